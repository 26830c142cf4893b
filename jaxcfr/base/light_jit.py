"""``light_jit``: ``jax.jit`` for the programs a solve runs rarely (its evaluations, its final
average), compiled in less time at no cost to the programs it runs often.

On a CPU, XLA hands its kernels to LLVM at optimisation level 2 by default, and emits its
fusions with its newer emitters. At level 1 and with the older emitters
(``xla_cpu_use_fusion_emitters=false``), a public tree's evaluator compiles in well under half
the time and runs as fast; the step loop would compile faster too but run slower, so it keeps
the defaults: it runs hundreds of times, an evaluation a few. What this does to a solve's
start-up: ``python -m benchmarks public_tree_startup``. An option that ``XLA_FLAGS`` sets
stands; on other backends nothing changes.

>>> import jax.numpy as jnp
>>> from jaxcfr.base.light_jit import light_jit
>>> total = light_jit(lambda x: (x * x).sum())
>>> float(total(jnp.arange(4.0)))
14.0
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable

import jax

__all__ = ["LIGHT_OPTIONS", "light_options", "light_jit"]

LIGHT_OPTIONS = {"xla_backend_optimization_level": 1, "xla_cpu_use_fusion_emitters": False}


def light_options(backend: str, environ=os.environ) -> dict | None:
  """The compiler options of a rarely run program on ``backend``: on a CPU, ``LIGHT_OPTIONS``
  but those ``XLA_FLAGS`` sets (None: XLA's own settings)."""
  flags = environ.get("XLA_FLAGS", "")
  options = {k: v for k, v in LIGHT_OPTIONS.items() if k not in flags} if backend == "cpu" else {}
  return options or None


def light_jit(fun: Callable, **jit_kwargs) -> Callable:
  """``jax.jit(fun, **jit_kwargs)`` compiled with ``light_options`` of the default backend at
  the first call (inside another program's trace it is inlined there, as any jitted call)."""
  programs = {}

  @functools.wraps(fun)
  def call(*args, **kwargs):
    options = light_options(jax.default_backend())
    key = None if options is None else tuple(sorted(options.items()))
    if key not in programs:
      programs[key] = jax.jit(fun, compiler_options=options, **jit_kwargs)
    try:
      return programs[key](*args, **kwargs)
    except Exception as error:  # an older XLA without one of the options: XLA's own settings
      if key is None or "No such compile option" not in str(error):
        raise
      programs[key] = jax.jit(fun, **jit_kwargs)
      return programs[key](*args, **kwargs)

  return call
