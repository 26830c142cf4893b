"""``light_jit``: ``jax.jit`` for the programs a solve runs rarely (its evaluations, its final
average), compiled in less time at no cost to the programs it runs often.

On a CPU, XLA hands its kernels to LLVM at optimisation level 2 by default. At level 1 the
evaluator of a public tree compiles in about 60% of the time and runs as fast: river endgame
3, 3.3 s to 1.8 s and 7.8 ms a call either way; turn endgame 2, 4.2 s to 2.6 s and 572 ms
against 588 ms (2-core CPU, one core). The step loop at level 1 also compiles faster (3.9 s
to 2.6 s on river endgame 3) but runs 20-60% slower, so it keeps the default: it runs
hundreds of times, an evaluation a few. Where ``XLA_FLAGS`` names a level, that level stands;
on other backends nothing changes.

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

__all__ = ["LEVEL_OPTION", "LIGHT_LEVEL", "light_options", "light_jit"]

LEVEL_OPTION = "xla_backend_optimization_level"
LIGHT_LEVEL = 1


def light_options(backend: str, environ=os.environ) -> dict | None:
  """The compiler options of a rarely run program on ``backend``: LLVM at ``LIGHT_LEVEL`` on a
  CPU, unless ``XLA_FLAGS`` sets a level (None: XLA's own settings)."""
  if backend != "cpu" or LEVEL_OPTION in environ.get("XLA_FLAGS", ""):
    return None
  return {LEVEL_OPTION: LIGHT_LEVEL}


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
    return programs[key](*args, **kwargs)

  return call
