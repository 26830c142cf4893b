"""``light_jit``: ``jax.jit`` for the programs a solve runs rarely (its evaluations, its final
average), compiled in less time at no cost to the programs it runs often.

On a CPU, XLA hands its kernels to LLVM at optimisation level 2 by default, and emits its
fusions with its newer emitters. At level 1 and with the older emitters
(``xla_cpu_use_fusion_emitters=false``), the evaluator of a public tree compiles in about a
third of the time and runs as fast: river endgame 3, 3.3 s to 1.1 s and 8 ms a call either
way; turn endgame 2, 4.2 s to 1.6 s and about 600 ms a call (2-core CPU, one core). The step
loop compiles faster that way too but runs slower (a third slower on river endgame 3 with the
older emitters), so it keeps the defaults: it runs hundreds of times, an evaluation a few.
An option that ``XLA_FLAGS`` sets stands; on other backends nothing changes.

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
