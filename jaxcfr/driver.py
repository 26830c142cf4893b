"""``solve``: runs a solver in jitted chunks, with metrics on a schedule, a progress bar,
batches of configurations, and checkpoint / resume (DESIGN section 5, "driver")."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr import cfr, checkpoint as checkpoint_lib, evaluation, sharding, mccfr
from jaxcfr.hardware import hardware
from jaxcfr.loading import Game, load

HYPERPARAMETERS = ("alpha", "beta", "gamma", "averaging_delay")
# Sampled algorithms (mccfr.ALGORITHMS): batchable array hyperparameters and static options.
SAMPLED_HYPERPARAMETERS = mccfr.HYPERPARAMETERS  # seed, epsilon
SAMPLED_OPTIONS = ("trajectories", "averaging")


@dataclasses.dataclass
class SolveResult:
  """What ``solve`` returns. With a batch, metrics have an axis [B]; the strategies and state
  fields of deterministic runs carry trailing batch axes [..., B] (cfr.init), those of
  sampled runs (one PRNG seed each, vmapped) a leading axis [B, ...].

  Attributes:
    history: one dict per evaluation: iteration, seconds, exploitability, nash_conv, value,
      current_exploitability (floats, or lists with a batch); sampled algorithms add
      nodes_touched (the running count, paper 002's measure of work).
    state: the final solver state.
    average_strategy: the average profile ((sigma0, sigma1), batched with a batch).
  """

  game: str
  algorithm: str
  updates: str
  iterations: int
  hyperparameters: dict
  batch_size: int | None
  history: list
  state: cfr.CFRState
  average_strategy: tuple
  seconds: float

  def summary(self) -> dict:
    """The JSON record: the last evaluation's metrics at the top, the whole history below."""
    last = self.history[-1]
    record = {
        "game": self.game, "algo": self.algorithm, "updates": self.updates, "iters": self.iterations,
        "dtype": str(self.state.regrets[0].dtype), "batch_size": self.batch_size,
        "hyperparameters": self.hyperparameters,
        "exploitability": last["exploitability"], "nash_conv": last["nash_conv"],
        "value": last["value"], "current_exploitability": last["current_exploitability"],
        "seconds": self.seconds, "hardware": hardware(), "history": self.history,
    }
    if "nodes_touched" in last:  # a sampled algorithm
      record["nodes_touched"] = last["nodes_touched"]
      record["nodes_touched_per_iteration"] = (np.asarray(last["nodes_touched"]) / last["iteration"]).tolist()
      if self.batch_size:  # one result per run (seed)
        keys = ("exploitability", "nash_conv", "value", "current_exploitability", "nodes_touched")
        record["results"] = [{**{k: v[b] for k, v in self.hyperparameters.items() if isinstance(v, list)},
                              **{k: last[k][b] for k in keys}} for b in range(self.batch_size)]
    return record


def metrics(tensors, state: cfr.CFRState, *, solver: cfr.Solver) -> dict:
  """Exact metrics of a state (each [*B] for a batch): NashConv and exploitability of the
  average strategy, its value for player 0, and the exploitability of the current strategy."""
  average = solver.average_strategy(tensors, state)
  best = evaluation.best_response_values(tensors, average)
  current = evaluation.best_response_values(tensors, solver.current_strategy(tensors, state))
  return {"nash_conv": best.sum(0), "exploitability": best.sum(0) / 2,
          "value": evaluation.expected_value(tensors, average),
          "current_exploitability": current.sum(0) / 2}


@functools.lru_cache(maxsize=32)
def _compiled(solver: cfr.Solver, vmapped: bool):
  """Jitted (chunk runner, metrics) for a solver; cached so repeated solves reuse them.

  Deterministic batches carry trailing batch axes and need no vmap; batches of sampled runs
  (one PRNG key each) are vmapped.
  """

  def chunk(tensors, state, n):
    body = lambda s: jax.lax.fori_loop(0, n, lambda _, x: solver.step(tensors, x), s)
    return jax.vmap(body)(state) if vmapped else body(state)

  def measure(tensors, state):
    fn = functools.partial(metrics, tensors, solver=solver)
    return jax.vmap(fn)(state) if vmapped else fn(state)

  return jax.jit(chunk, static_argnums=2), jax.jit(measure)


def hyperparameter_grid(**values) -> dict[str, np.ndarray]:
  """The Cartesian product of hyperparameter lists as equal-length arrays, e.g.
  ``hyperparameter_grid(alpha=[1, 1.5], gamma=[1, 2])`` gives 4 configurations."""
  names = [k for k, v in values.items() if v is not None]
  rows = list(itertools.product(*(np.atleast_1d(values[k]) for k in names)))
  return {k: np.array([r[i] for r in rows]) for i, k in enumerate(names)}


class _Progress:
  """A one-line progress bar on stderr, drawn only on a terminal unless forced."""

  def __init__(self, total: int, enabled: bool | None):
    self.total = total
    self.enabled = sys.stderr.isatty() if enabled is None else enabled
    self.start = time.perf_counter()

  def update(self, done: int, exploitability) -> None:
    if not self.enabled:
      return
    width = 30
    filled = int(width * done / max(self.total, 1))
    rate = done / max(time.perf_counter() - self.start, 1e-9)
    worst = float(np.max(exploitability))
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} it "
                     f"{rate:,.0f} it/s exploitability {worst:.3e}")
    sys.stderr.flush()

  def close(self) -> None:
    if self.enabled:
      sys.stderr.write("\n")


def _to_python(value):
  value = np.asarray(value)
  return value.item() if value.ndim == 0 else value.tolist()


def solve(game: Game | str, algorithm: str = "cfr+", iterations: int = 1000, *,
          updates: str | None = None, eval_every: int | None = None, batch: dict | None = None,
          checkpoint: str | Path | None = None, checkpoint_every: int | None = None,
          resume: bool = False, progress: bool | None = None, **hyperparameters) -> SolveResult:
  """Runs ``algorithm`` for ``iterations`` iterations and evaluates it on a schedule.

  Args:
    game: a loaded Game or a game string.
    algorithm: one of ``cfr.ALGORITHMS``.
    iterations: total iterations (including those of a resumed checkpoint).
    updates: "alternating" or "simultaneous" (default: the algorithm's).
    eval_every: iterations between evaluations (default: a tenth of the run).
    batch: hyperparameter name -> [B] values; the B runs execute as one program (trailing batch axes, cfr.init)
      (see ``hyperparameter_grid``).
    checkpoint: an .npz path written every ``checkpoint_every`` iterations (default: at
      every evaluation) and at the end.
    resume: continue from ``checkpoint`` if it exists; the result equals an uninterrupted run.
    progress: draw a progress bar (default: when stderr is a terminal).
    **hyperparameters: alpha, beta, gamma, averaging_delay for every run; for the sampled
      algorithms of ``mccfr.ALGORITHMS``: seed and epsilon (batchable: ``batch={"seed":
      [0, 1, 2]}`` runs the seeds as one vmapped program) and the static options
      trajectories (K) and averaging.
  """
  if isinstance(game, str):
    game = load(game)
  if iterations < 1:
    raise ValueError(f"iterations must be >= 1, got {iterations}")
  sampled = algorithm in mccfr.ALGORITHMS
  names = SAMPLED_HYPERPARAMETERS if sampled else HYPERPARAMETERS
  allowed = names + SAMPLED_OPTIONS if sampled else names
  unknown = set(hyperparameters) - set(allowed) | set(batch or {}) - set(names)
  if unknown:
    raise ValueError(f"unknown hyperparameters {sorted(unknown)}; known: {list(allowed)}")
  if sampled:
    if updates not in (None, "alternating"):
      raise ValueError(f"{algorithm} updates alternate; updates={updates!r} is not supported")
    options = {k: hyperparameters.pop(k) for k in SAMPLED_OPTIONS if k in hyperparameters}
    solver = mccfr.solver(algorithm, chance_width=mccfr.chance_width(game), **options)
    init = functools.partial(solver.init, **hyperparameters)
  else:
    solver = cfr.solver(algorithm, updates=updates, **hyperparameters)
    init = solver.init
  tensors = game.tensors
  eval_every = max(1, eval_every or iterations // 10)
  checkpoint_every = checkpoint_every or eval_every
  batch_size = None
  if batch:
    sizes = {len(np.atleast_1d(v)) for v in batch.values()}
    if len(sizes) != 1:
      raise ValueError(f"batch arrays must have one length, got {sorted(sizes)}")
    batch_size = sizes.pop()
    if sampled:  # seeds: one vmapped run each
      state = jax.vmap(lambda kw: init(tensors, **kw))({k: jnp.asarray(v) for k, v in batch.items()})
    else:  # hyperparameters: one state with trailing batch axes (cfr.init), split over devices
      state = init(tensors, **{k: jnp.asarray(v).reshape(-1) for k, v in batch.items()})
      state = sharding.shard_trailing_batch(state, batch_size)
  else:
    state = init(tensors)
  vmapped = sampled and batch_size is not None
  run_chunk, measure = _compiled(solver, vmapped)
  hyper = {k: _to_python(getattr(state, k)) for k in names}
  if sampled:
    hyper.update(trajectories=options.get("trajectories", 1), averaging=options.get("averaging", "stochastic"))
  identity = {"game": game.name, "algorithm": algorithm,
              "updates": "alternating" if sampled else updates or cfr.PRESETS[algorithm].updates,
              "hyperparameters": hyper, "batch_size": batch_size}
  history, done, elapsed_before = [], 0, 0.0
  if resume and checkpoint and Path(checkpoint).exists():
    state, saved = checkpoint_lib.load(checkpoint, state)
    if saved["identity"] != identity:
      raise ValueError(f"checkpoint {checkpoint} is of another run: {saved['identity']} != {identity}")
    history, done, elapsed_before = saved["history"], saved["iterations"], saved["seconds"]
  if done > iterations:
    raise ValueError(f"checkpoint has {done} iterations, more than the {iterations} asked for")
  bar = _Progress(iterations, progress)
  start = time.perf_counter()
  while done < iterations or not history:
    n = min(eval_every - done % eval_every, iterations - done)
    if n > 0:
      state = run_chunk(tensors, state, n)
      done += n
    values = jax.device_get(measure(tensors, state))
    seconds = elapsed_before + time.perf_counter() - start
    history.append({"iteration": done, "seconds": seconds, **{k: _to_python(v) for k, v in values.items()}})
    if sampled:
      history[-1]["nodes_touched"] = _to_python(mccfr.nodes_touched(state))
    bar.update(done, values["exploitability"])
    if checkpoint and (done % checkpoint_every == 0 or done == iterations):
      checkpoint_lib.save(checkpoint, state, {"identity": identity, "iterations": done,
                                              "history": history, "seconds": seconds})
  bar.close()
  seconds = elapsed_before + time.perf_counter() - start
  return SolveResult(game=game.name, algorithm=algorithm, updates=identity["updates"],
                     iterations=iterations, hyperparameters=hyper, batch_size=batch_size,
                     history=history, state=state,
                     average_strategy=(jax.vmap(solver.average_strategy, (None, 0))(tensors, state)
                                       if vmapped else solver.average_strategy(tensors, state)),
                     seconds=seconds)


def save_strategy(path: str | Path, game: Game, profile) -> None:
  """Writes a profile as .npz: ``player{p}`` [I, A, *B] with ``keys{p}`` and ``action_ids{p}``."""
  arrays = {}
  for p, (player, strategy) in enumerate(zip(game.arrays.players, profile)):
    arrays[f"player{p}"] = np.asarray(strategy)
    arrays[f"keys{p}"] = player.keys
    arrays[f"action_ids{p}"] = player.action_ids
  np.savez(path, game=np.array(game.name), **arrays)


def load_strategy(path: str | Path, game: Game) -> tuple:
  """Reads a profile written by ``save_strategy`` and checks it fits ``game``."""
  with np.load(path, allow_pickle=False) as data:
    if str(data["game"]) != game.name:
      raise ValueError(f"{path} holds a strategy for {data['game']}, not {game.name}")
    profile = tuple(np.asarray(data[f"player{p}"]) for p in range(2))
  evaluation.check_profile(game.tensors, profile)
  return profile
