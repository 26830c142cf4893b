"""Timing of jaxcfr's own solvers, shared by the benchmark scripts.

Each timing compiles and warms up first, then times whole jitted chunks of iterations
(``lax.fori_loop`` inside one call), so that it measures the array program, not dispatch.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import jaxcfr
from jaxcfr import solvers
from jaxcfr.run import sharding
from jaxcfr.solvers import mccfr_state
from timing import best_seconds, seconds_per_call, timed  # noqa: E402  pylint: disable=wrong-import-position


def cfr_ms_per_iteration(
  game: jaxcfr.kits.sequence_form.Game,
  algorithm: str = "cfr+",
  *,
  batch: int | None = None,
  vmap: bool = False,
  shard: bool = False,
  library: bool = False,
  min_seconds: float = 1.0,
  chunk: int | None = None,
) -> dict:
  """Milliseconds per iteration of one run (``batch=None``) or of a vmapped batch of runs.

  The batch runs differ in their averaging exponent gamma, so no two are the same program
  input; per-run cost is ``ms_per_iteration / batch``. ``vmap=True`` batches with
  ``jax.vmap`` (leading batch axis) instead of the solver's trailing batch axes;
  ``shard=True`` splits the trailing batch axis over the local devices. The loop is a
  ``fori_loop`` of ``solver.step`` written here (as a user would), or with ``library=True``
  the solver's own ``run``.
  """
  solver = solvers.get(algorithm)
  tensors = game.tensors
  step = lambda s: solver.step(tensors, s)
  if batch is None:
    state = solver.init(tensors)
  elif vmap:
    state = jax.vmap(lambda g: solver.init(tensors, gamma=g))(jnp.linspace(1.0, 2.0, batch))
    step = jax.vmap(step)
  else:
    state = solver.init(tensors, gamma=jnp.linspace(1.0, 2.0, batch))
    if shard:
      state = sharding.shard_trailing_batch(state, batch)
      if sharding.is_split(state):  # as jaxcfr.solve does
        tensors = sharding.replicate(tensors)
  if library:
    step_all = lambda s, n: solver.run(tensors, s, n)
    jit = lambda fn: fn  # solver.run is jitted
  else:
    step_all = lambda s, n: jax.lax.fori_loop(0, n, lambda _, x: step(x), s)
    jit = jax.jit
  # Pick a chunk long enough that one call takes ~0.1 s, after a first compiled probe of 10
  # iterations (one would be mostly the call's fixed cost, and the chunk too short).
  probe = jit(lambda s: step_all(s, 10))
  jax.block_until_ready(probe(state))
  once = seconds_per_call(probe, state, 0.05)[0] / 10
  chunk = chunk or max(1, min(10_000, int(0.1 / max(once, 1e-7))))
  run = jit(lambda s: step_all(s, chunk))
  state = run(state)
  jax.block_until_ready(state)
  seconds, calls, _ = seconds_per_call(run, state, min_seconds)
  return {
    "ms_per_iteration": 1e3 * seconds / chunk,
    "iterations_timed": calls * chunk,
    "batch": batch,
    "batch_layout": "vmap" if vmap else "trailing",
    "loop": "solver.run" if library else "user",
    "dtype": str(tensors.dtype),
    "devices": len(jax.local_devices()) if shard else 1,
    "algorithm": algorithm,
  }


def outcome_sampling_rate(
  game: jaxcfr.kits.sequence_form.Game, trajectories: int, batch: int, devices: int, seconds: float, repeats: int
) -> dict:
  """Trajectories per second of outcome sampling (epsilon 0.6), ``trajectories`` per update and
  player, ``batch`` seeds on trailing axes (1: no batch axis); ``devices`` > 1 shards the seeds
  over that many local devices."""
  tensors = game.tensors
  solver = solvers.get("mccfr-os", trajectories=trajectories)
  # solver.run is jitted with a traced count: every n shares one compilation.
  make = lambda n: lambda state: solver.run(tensors, state, n)
  if batch == 1:
    state = solver.init(tensors)
  else:
    state = solver.init(tensors, seed=jnp.arange(batch))  # trailing batch axis [..., B], on device 0
    if devices > 1:
      state = sharding.shard_trailing_batch(state, batch, jax.local_devices()[:devices])
  probe = make(2)
  state = jax.block_until_ready(probe(state))
  once, state = timed(lambda: probe(state))
  per_step = max(once / 2, 1e-6)
  steps = max(2, int(seconds / per_step))
  run = make(steps)
  state = jax.block_until_ready(run(state))  # compile
  holder = [state]

  def go():
    holder[0] = jax.block_until_ready(run(holder[0]))

  best = best_seconds(go, repeats)
  return {
    "trajectories_per_update": trajectories,
    "seeds": batch,
    "devices": devices,
    "steps": steps,
    "seconds": best,
    "steps_per_s": steps / best,
    "trajectories_per_s": 2 * trajectories * batch * steps / best,
    "nodes_touched_per_trajectory": float(np.mean(mccfr_state.nodes_touched(holder[0])))
    / (2 * trajectories * int(np.mean(holder[0].iteration))),
  }


def traversal_rate(
  game: jaxcfr.kits.sequence_form.Game, algorithm: str, batch: int, seconds: float, repeats: int
) -> dict:
  """External (``mccfr-es``) or chance (``cfr-cs``) sampling, ``batch`` seeds (1: no vmap)."""
  tensors = game.tensors
  solver = solvers.get(algorithm)
  make = lambda n: lambda state: solver.run(tensors, state, n)  # jitted, n traced: one compilation
  state = solver.init(tensors) if batch == 1 else solver.init(tensors, seed=jnp.arange(batch))  # [..., B]
  probe = make(50)
  state = jax.block_until_ready(probe(state))
  once, state = timed(lambda: probe(state))
  steps = max(100, int(seconds / max(once / 50, 1e-7)))
  run = make(steps)
  holder = [jax.block_until_ready(run(state))]  # compile

  def go():
    holder[0] = jax.block_until_ready(run(holder[0]))

  best = best_seconds(go, repeats)
  nodes_per_iteration = float(np.mean(mccfr_state.nodes_touched(holder[0]) / np.asarray(holder[0].iteration)))
  return {
    "algorithm": algorithm,
    "seeds": batch,
    "steps": steps,
    "seconds": best,
    "ms_per_iteration": 1e3 * best / steps,
    "iterations_per_s": batch * steps / best,
    "nodes_touched_per_iteration": nodes_per_iteration,
    "nodes_touched_per_s": nodes_per_iteration * batch * steps / best,
  }
