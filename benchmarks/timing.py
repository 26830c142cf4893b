"""The one timing harness of the benchmarks: wall-clock seconds with JAX's asynchronous
dispatch waited for (``jax.block_until_ready`` on every result), compilation kept out of the
timed calls by the callers' warm-up call.

  timed(fn)                          seconds and result of one call
  best_seconds(fn, repeats)          best of ``repeats`` calls (and ``best_of``: with the last result)
  seconds_per_call(run, state, s)    ``state = run(state)`` repeated for at least ``s`` seconds
  per_iteration(run, state, ...)     ``run(state, n)``: compile time, the fixed cost per call and
                                     the slope per iteration (Lanctot et al. 2009 Table 1's unit)
"""

from __future__ import annotations

import time
from typing import Any
from collections.abc import Callable

__all__ = ["best_of", "best_seconds", "per_iteration", "seconds_per_call", "timed"]


def _ready(value):
  import jax  # pylint: disable=import-outside-toplevel  (scripts set XLA_FLAGS before jax starts)

  return jax.block_until_ready(value)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
  """(seconds, result) of one call of ``fn()``, its JAX arrays waited for."""
  start = time.perf_counter()
  result = _ready(fn())
  return time.perf_counter() - start, result


def best_of(fn: Callable[[], Any], repeats: int = 3) -> tuple[float, Any]:
  """(best seconds of ``repeats`` calls of ``fn()``, the last call's result)."""
  if repeats < 1:
    raise ValueError(f"repeats must be >= 1, got {repeats}")
  best, result = float("inf"), None
  for _ in range(repeats):
    seconds, result = timed(fn)
    best = min(best, seconds)
  return best, result


def best_seconds(fn: Callable[[], Any], repeats: int = 3) -> float:
  """The best of ``repeats`` wall times of ``fn()`` (warm it up first if it compiles)."""
  return best_of(fn, repeats)[0]


def seconds_per_call(run: Callable[[Any], Any], state, min_seconds: float) -> tuple[float, int, Any]:
  """(seconds per call, calls, last state) of ``state = run(state)`` (already compiled),
  repeated until at least ``min_seconds`` have passed."""
  calls, start = 0, time.perf_counter()
  while True:
    state = _ready(run(state))
    calls += 1
    elapsed = time.perf_counter() - start
    if elapsed >= min_seconds:
      return elapsed / calls, calls, state


def per_iteration(run: Callable[[Any, int], Any], state, *, seconds: float = 2.0, repeats: int = 3) -> dict:
  """Compile time, seconds per iteration and fixed cost per call of ``run(state, n)`` (one
  compilation for every ``n``: a jitted function with a traced count, like ``solver.run``).

  A call of ``n`` iterations costs ``c + n x``: ``c`` is work done once per call (XLA hoists
  passes over the tree's arrays out of the loop), ``x`` the iteration. The count grows until
  a call takes about ``seconds / 2``, and further while ``n`` more iterations add less than
  ``seconds / 4`` (a large fixed cost); ``x`` is the slope between the best of ``repeats``
  calls of ``n`` and of ``2 n`` iterations. The first call (compilation and one iteration) is timed
  apart. Returns {compile_and_first_iteration_s, compile_s, iteration_s, per_call_s,
  iterations_per_call}."""
  first, state = timed(lambda: run(state, 1))

  def best(count):
    nonlocal state
    times = []
    for _ in range(repeats):
      elapsed, state = timed(lambda: run(state, count))
      times.append(elapsed)
    return min(times)

  count, once = 1, best(1)
  while once < seconds / 2 and count < 10**7:
    count *= max(2, min(100, int(seconds / 2 / max(once, 1e-6))))
    once = best(count)
  twice = best(2 * count)
  while twice - once < seconds / 4 and count < 10**7:  # a fixed cost per call hid the iterations
    count *= max(2, min(100, int(seconds / 4 / max(twice - once, 1e-6))))
    once, twice = best(count), best(2 * count)
  iteration = (twice - once) / count if twice > once else twice / (2 * count)
  return {
    "compile_and_first_iteration_s": first,
    "compile_s": max(first - once / count, 0.0),
    "iteration_s": iteration,
    "per_call_s": max(once - count * iteration, 0.0),
    "iterations_per_call": count,
  }
