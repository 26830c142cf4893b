"""``solve``: runs any registered solver in jitted chunks, with metrics on a schedule, a
progress bar, batches of runs (any hyperparameter, seeds included) split over the local
devices, and checkpoint / resume. Nothing here depends on the solver's family.
"""

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

from jaxcfr import solvers
from jaxcfr.core import evaluation
from jaxcfr.evaluate import game_metrics
from jaxcfr.game.loading import Game, load
from jaxcfr.run import checkpoint as checkpoint_lib
from jaxcfr.run import sharding
from jaxcfr.run.hardware import hardware

__all__ = ["SolveResult", "solve", "metrics", "hyperparameter_grid"]

_METRICS = ("exploitability", "nash_conv", "value", "current_exploitability")


@dataclasses.dataclass
class SolveResult:
  """What ``solve`` returns. With a batch of B runs, metrics are lists of B values and the
  strategies and state carry trailing batch axes ``[..., B]`` (the library's one batch
  convention, jaxcfr.solvers.registry).

  Attributes:
    history: one dict per evaluation: iteration, seconds, exploitability, nash_conv, value,
      current_exploitability (floats, or lists with a batch), the game's own metrics of the
      average strategy (Kuhn poker: squared_error, dominated_error; see
      jaxcfr.evaluate.game_metrics), and the solver's counters (sampled solvers:
      nodes_touched, the work measure of Lanctot et al. 2009; mcts: tree_nodes).
    state: the final solver state.
    average_strategy: the average profile ((sigma0, sigma1), [I, A, *B] each).
  """

  game: str
  algorithm: str
  options: dict
  iterations: int
  hyperparameters: dict
  batch_size: int | None
  history: list
  state: object
  average_strategy: tuple
  seconds: float

  def summary(self) -> dict:
    """The JSON record: the last evaluation's metrics at the top, one row per run of a
    batch under ``results``, the whole history below."""
    last = self.history[-1]
    counters = {k: v for k, v in last.items() if k not in _METRICS + ("iteration", "seconds")}
    record = {
        "game": self.game, "algo": self.algorithm, "options": self.options, "iters": self.iterations,
        "dtype": str(self.average_strategy[0].dtype), "batch_size": self.batch_size,
        "hyperparameters": self.hyperparameters, **{k: last[k] for k in _METRICS}, **counters,
        "seconds": self.seconds, "hardware": hardware(), "history": self.history,
    }
    if "nodes_touched" in last:
      record["nodes_touched_per_iteration"] = (np.asarray(last["nodes_touched"]) / last["iteration"]).tolist()
    if self.batch_size:  # one result per run
      keys = _METRICS + tuple(counters)
      record["results"] = [{**{k: v[b] for k, v in self.hyperparameters.items() if isinstance(v, list)},
                            **{k: last[k][b] for k in keys}} for b in range(self.batch_size)]
    return record


def metrics(tensors, state, *, solver: solvers.Solver, extra=None) -> dict:
  """Exact metrics of a state (each [*B] for a batch): NashConv and exploitability of the
  average strategy, its value for player 0, and the exploitability of the current strategy;
  ``extra(profile) -> dict``, the game's own metrics of the average strategy
  (jaxcfr.evaluate.game_metrics.for_game: Kuhn's squared and dominated errors), if given."""
  average = solver.average_strategy(tensors, state)
  best = evaluation.best_response_values(tensors, average)
  current = evaluation.best_response_values(tensors, solver.current_strategy(tensors, state))
  values = {"nash_conv": best.sum(0), "exploitability": best.sum(0) / 2,
            "value": evaluation.expected_value(tensors, average),
            "current_exploitability": current.sum(0) / 2}
  if extra is not None:
    values.update(extra(average))
  return values


@functools.partial(jax.jit, static_argnums=(0, 1))
def _measure(solver: solvers.Solver, extra, tensors, state) -> dict:
  return metrics(tensors, state, solver=solver, extra=extra)


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
          eval_every: int | None = None, batch: dict | None = None,
          checkpoint: str | Path | None = None, checkpoint_every: int | None = None,
          resume: bool = False, progress: bool | None = None, **settings) -> SolveResult:
  """Runs the registered solver ``algorithm`` for ``iterations`` iterations and evaluates
  it on a schedule.

  Args:
    game: a loaded Game or a game string.
    algorithm: a name of ``jaxcfr.solvers.names()``.
    iterations: total iterations (including those of a resumed checkpoint).
    eval_every: iterations between evaluations (default: a tenth of the run).
    batch: hyperparameter name -> [B] values (seeds included); the B runs execute as one
      program with trailing batch axes, split over the local devices when B is a multiple
      of their number (see ``hyperparameter_grid``).
    checkpoint: an .npz path written every ``checkpoint_every`` iterations (default: at
      every evaluation) and at the end.
    resume: continue from ``checkpoint`` if it exists; the result equals an uninterrupted run.
    progress: draw a progress bar (default: when stderr is a terminal).
    **settings: the solver's static options (``jaxcfr.solvers.option_names(algorithm)``,
      e.g. ``updates`` or ``trajectories``) and hyperparameters for every run (e.g.
      ``alpha``, ``seed``, ``epsilon``, ``model``).
  """
  if isinstance(game, str):
    game = load(game)
  if iterations < 1:
    raise ValueError(f"iterations must be >= 1, got {iterations}")
  option_names = solvers.option_names(algorithm)
  options = {k: v for k, v in settings.items() if k in option_names}
  solver = solvers.get(algorithm, **options)
  hyperparameters = {k: v for k, v in settings.items() if k not in option_names}
  allowed = tuple(solver.hyperparameters) + solver.requires
  unknown = sorted(set(hyperparameters) - set(allowed) | set(batch or {}) - set(solver.hyperparameters))
  if unknown:
    raise ValueError(f"{algorithm} has no setting {', '.join(unknown)}; options: {', '.join(option_names) or 'none'}; "
                     f"hyperparameters: {', '.join(solver.hyperparameters) or 'none'}")
  tensors = game.tensors
  extra = game_metrics.for_game(game)
  eval_every = max(1, eval_every or iterations // 10)
  checkpoint_every = checkpoint_every or eval_every
  batch_size = None
  if batch:
    sizes = {len(np.atleast_1d(v)) for v in batch.values()}
    if len(sizes) != 1:
      raise ValueError(f"batch arrays must have one length, got {sorted(sizes)}")
    batch_size = sizes.pop()
    state = solver.init(tensors, **hyperparameters, **{k: jnp.asarray(v).reshape(-1) for k, v in batch.items()})
    state = sharding.shard_trailing_batch(state, batch_size)
  else:
    state = solver.init(tensors, **hyperparameters)
  recorded = {**{k: _to_python(v) for k, v in hyperparameters.items() if k in solver.hyperparameters},
              **{k: _to_python(v) for k, v in (batch or {}).items()}}
  identity = {"game": game.name, "algorithm": algorithm, "options": solver.options,
              "hyperparameters": recorded, "batch_size": batch_size}
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
      state = solver.run(tensors, state, n)
      done += n
    values = jax.device_get(_measure(solver, extra, tensors, state))
    seconds = elapsed_before + time.perf_counter() - start
    history.append({"iteration": done, "seconds": seconds, **{k: _to_python(v) for k, v in values.items()}})
    if solver.counters is not None:
      history[-1].update({k: _to_python(v) for k, v in solver.counters(state).items()})
    bar.update(done, values["exploitability"])
    if checkpoint and (done % checkpoint_every == 0 or done == iterations):
      checkpoint_lib.save(checkpoint, state, {"identity": identity, "iterations": done,
                                              "history": history, "seconds": seconds})
  bar.close()
  seconds = elapsed_before + time.perf_counter() - start
  return SolveResult(game=game.name, algorithm=algorithm, options=solver.options, iterations=iterations,
                     hyperparameters=recorded, batch_size=batch_size, history=history, state=state,
                     average_strategy=solver.average_strategy(tensors, state), seconds=seconds)
