"""``solve``: runs any registered solver on a game of any representation in jitted chunks,
with metrics on a schedule (the evaluator of the game's kit, ``Kit.evaluator``), a progress bar, batches of runs (any hyperparameter, seeds
included) split over the local devices, and checkpoint / resume. Nothing here depends on
the solver's family or the game's representation: settings are split and checked by the
solver's declaration (jaxcfr.solvers.registry), and a restricted solver without a model plays
against the one its kit declares (``Kit.default_model``).

A run is three steps, each a function of its own: ``plan`` (the checks, the game, the solver,
its state and the run's identity, or the state of a checkpoint to resume), ``loop`` (chunks,
evaluations on the schedule, checkpoints, Ctrl-C) and ``record`` (the SolveResult). How the run
goes is one ``RunSettings``, the same object from the command line's flags (jaxcfr.run.flags)
to here.

    result = solve("leduc_poker", "dcfr", 1000, eval_every=100, checkpoint="run.npz")
    # the same, in its steps
    planned = plan("leduc_poker", "dcfr", RunSettings(1000, eval_every=100, checkpoint="run.npz"))
    result = record(planned, loop(planned))
"""

from __future__ import annotations

import dataclasses
import itertools
import sys
import time
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import tqdm

from jaxcfr import kits, solvers
from jaxcfr.base import integrity, memory
from jaxcfr.base.light_jit import light_jit
from jaxcfr.base.params import Param
from jaxcfr.evaluate import game_metrics
from jaxcfr.kits import load
from jaxcfr.kits.sequence_form import Game
from jaxcfr.run import checkpoint as checkpoint_lib
from jaxcfr.run import guards, sharding
from jaxcfr.run.hardware import provenance
from jaxcfr.run.records import CompileClock, Interrupted, NonFiniteError, SolveResult, to_python

__all__ = [
  "SolveResult",
  "Interrupted",
  "NonFiniteError",
  "RunSettings",
  "RUN_SETTINGS",
  "Plan",
  "Looped",
  "plan",
  "loop",
  "record",
  "run",
  "solve",
  "hyperparameter_grid",
  "warn_if_float32_saturates",
]

RUN_SETTINGS = (
  Param("iterations", int, 1000, "iterations of every run", low=1),
  Param("eval_every", int, None, "iterations between evaluations (default: a tenth of the run)", low=1),
  Param("checkpoint", str, None, "checkpoint file (.npz), also written on Ctrl-C"),
  Param(
    "checkpoint_every",
    int,
    None,
    "iterations between checkpoints (default: every evaluation; needs a checkpoint)",
    low=1,
  ),
  Param("resume", bool, False, "continue from the checkpoint if it exists (needs a checkpoint)"),
  Param("progress", bool, None, "draw a progress bar with rate and time left (default: on a terminal)"),
)
"""The declarations of ``RunSettings``' fields: the command line's flags of every run come from them."""


@dataclasses.dataclass(frozen=True)
class RunSettings:
  """How a run goes, apart from the solver's own settings (declared in ``RUN_SETTINGS``).

  Attributes:
    iterations: total iterations (including those of a resumed checkpoint).
    eval_every: iterations between evaluations (default: a tenth of the run).
    checkpoint: an .npz path written every ``checkpoint_every`` iterations (default: at
      every evaluation), at the end, and when the run is interrupted (Ctrl-C).
    resume: continue from ``checkpoint`` if it exists; the result equals an uninterrupted run.
    progress: draw a progress bar with rate and time left (default: when stderr is a terminal).
  """

  iterations: int = 1000
  eval_every: int | None = None
  checkpoint: str | Path | None = None
  checkpoint_every: int | None = None
  resume: bool = False
  progress: bool | None = None

  def check(self) -> None:
    """ValueError naming the first bad setting (before any work)."""
    for name in ("iterations", "eval_every", "checkpoint_every"):
      value = getattr(self, name)
      if value is not None and (isinstance(value, bool) or int(value) != value or value < 1):
        raise ValueError(f"{name} must be a positive integer, got {value}")
    if self.resume and not self.checkpoint:
      raise ValueError("resume needs a checkpoint file to resume from")
    if self.checkpoint_every is not None and not self.checkpoint:
      raise ValueError("checkpoint_every needs a checkpoint file")
    if self.checkpoint:
      checkpoint_lib.check_writable(self.checkpoint, "checkpoint")

  @property
  def evaluations(self) -> int:
    """Iterations between evaluations, the default filled in."""
    return self.eval_every or max(1, self.iterations // 10)

  @property
  def checkpoints(self) -> int:
    """Iterations between checkpoints, the default filled in."""
    return self.checkpoint_every or self.evaluations


def hyperparameter_grid(**values) -> dict[str, np.ndarray]:
  """The Cartesian product of hyperparameter lists as equal-length arrays, e.g.
  ``hyperparameter_grid(alpha=[1, 1.5], gamma=[1, 2])`` gives 4 configurations."""
  names = [k for k, v in values.items() if v is not None]
  rows = list(itertools.product(*(np.atleast_1d(values[k]) for k in names)))
  return {k: np.array([r[i] for r in rows]) for i, k in enumerate(names)}


# A float32 running sum stops absorbing increments of its own size after 2^24 of them.
FLOAT32_ITERATIONS = 1 << 24


def warn_if_float32_saturates(dtype, iterations: int) -> None:
  """Warns when ``iterations`` iterations in ``dtype`` outlast float32's precision: past
  2^24 (about 1.7e7) iterations the solvers' running sums (regrets, average strategies)
  stop absorbing increments of the size they have had, and the average stalls or drifts
  (outcome sampling on Goof(7), benchmarks/papers/results/figure1_nodes_touched.json)."""
  if jnp.dtype(dtype) == jnp.float32 and iterations > FLOAT32_ITERATIONS:
    warnings.warn(
      f"{iterations} iterations in float32 pass 2^24 = {FLOAT32_ITERATIONS}: running sums stop absorbing "
      "their increments there; for runs this long load the game with dtype='float64' (with jax_enable_x64)",
      stacklevel=3,
    )


@dataclasses.dataclass
class Plan:
  """A checked run, ready to loop: what ``plan`` makes.

  Attributes:
    game, algorithm, run: what was asked (``run`` a RunSettings).
    solver, tensors, evaluator: the solver made from its options, the tensors it takes (on every
      device when the batch is split) and the kit's evaluator.
    state: the state to start from (fresh, or a checkpoint's); batch_size: B or None.
    recorded: every hyperparameter of the runs, defaults included (the record's).
    identity: what a checkpoint of this run must match.
    history, done, elapsed_before, compile_before: a resumed checkpoint's evaluations,
      iterations and seconds (empty and zero for a fresh run).
    distributed: several processes share the batch.
  """

  game: object
  algorithm: str
  run: RunSettings
  solver: solvers.Solver
  tensors: object
  evaluator: object
  state: object
  batch_size: int | None
  recorded: dict
  identity: dict
  history: list
  done: int = 0
  elapsed_before: float = 0.0
  compile_before: float = 0.0
  distributed: bool = False


@dataclasses.dataclass
class Looped:
  """What ``loop`` hands ``record``: the final state, the evaluations, and the seconds of the
  whole run (resumed parts included) with JAX's compilation apart."""

  state: object
  history: list
  seconds: float
  compile_seconds: float


def _batch_size(batch: dict | None) -> int | None:
  if not batch:
    return None
  sizes = {len(np.atleast_1d(v)) for v in batch.values()}
  if len(sizes) != 1:
    raise ValueError(f"batch arrays must have one length, got {sorted(sizes)}")
  return sizes.pop()


def _with_model(game, declared, settings: dict) -> dict:
  """``settings`` with the kit's default model for a restricted solver given none."""
  if "model" not in declared.requires or "model" in settings:
    return settings
  kit = kits.of_game(game)
  if kit.default_model is None:
    raise ValueError(
      f"{declared.name} needs an opponent model (model=...) on {kit.name} games; their kit declares no default"
    )
  return {**settings, "model": kit.default_model(game)}


def plan(
  game: Game | str, algorithm: str, run: RunSettings, *, batch: dict | None = None, settings: dict | None = None
) -> Plan:
  """The checks, the game, the solver, its state and the run's identity (or the state of a
  checkpoint to resume): everything before the first iteration. ValueError on a bad
  argument, before any long work. ``batch`` and ``settings`` as ``solve``'s."""
  run.check()
  if isinstance(game, str):
    game = load(game)
  algorithm_settings = dict(settings or {})
  declared = solvers.registration(algorithm, game.representation)
  options, hyperparameters = solvers.split_settings(algorithm, game.representation, algorithm_settings)
  hyperparameters = _with_model(game, declared, hyperparameters)
  solver = solvers.get(algorithm, game.representation, **options)
  not_batchable = sorted(set(batch or {}) - set(solver.hyperparameters))
  if not_batchable:
    raise ValueError(
      f"{algorithm} cannot batch {', '.join(not_batchable)}; its batchable hyperparameters: "
      f"{', '.join(solver.hyperparameters) or 'none'}"
    )
  for param in declared.hyperparameters:
    given = (batch or {}).get(param.name, hyperparameters.get(param.name))
    if param.below_iterations and given is not None and np.max(np.asarray(given)) >= run.iterations:
      raise ValueError(
        f"{param.name} {np.max(np.asarray(given))} must be below the run's {run.iterations} iterations ({param.help})"
      )
  tensors = game.tensors
  warn_if_float32_saturates(getattr(tensors, "dtype", jnp.float32), run.iterations)
  evaluator = kits.of_game(game).evaluator(game, game_metrics.for_game(game))
  batch_size = _batch_size(batch)
  batched = {k: jnp.asarray(v).reshape(-1) for k, v in (batch or {}).items()}
  memory.check_state(lambda: solver.init(tensors, **hyperparameters, **batched), game.name, algorithm, batch_size)
  state = solver.init(tensors, **hyperparameters, **batched)
  recorded = {  # every hyperparameter of the runs, defaults included
    **{k: v for k, v in solver.hyperparameters.items() if v is not None},
    **{k: to_python(v) for k, v in hyperparameters.items() if k in solver.hyperparameters},
    **{k: to_python(v) for k, v in (batch or {}).items()},
  }
  identity = {
    "game": game.name,
    "algorithm": algorithm,
    "representation": str(game.representation),
    "options": solver.options,
    "hyperparameters": recorded,
    "batch_size": batch_size,
    **{
      f"{k}_digest": integrity.digest({str(i): leaf for i, leaf in enumerate(jax.tree_util.tree_leaves(v))})
      for k, v in hyperparameters.items()
      if k not in solver.hyperparameters
    },
  }
  planned = Plan(game, algorithm, run, solver, tensors, evaluator, state, batch_size, recorded, identity, [])
  if run.resume and Path(run.checkpoint).exists():
    planned.state, saved = checkpoint_lib.load(run.checkpoint, state)
    if saved.get("identity") != identity:
      raise ValueError(f"checkpoint {run.checkpoint} is of another run: {saved.get('identity')} != {identity}")
    planned.history, planned.done = saved["history"], saved["iterations"]
    planned.elapsed_before, planned.compile_before = saved["seconds"], saved.get("compile_seconds", 0.0)
  if planned.done > run.iterations:
    raise ValueError(f"checkpoint has {planned.done} iterations, more than the {run.iterations} asked for")
  planned.distributed = jax.process_count() > 1
  if batch_size:  # split over every device of every process, or of this one as far as the batch divides
    devices = None if planned.distributed else sharding.devices_dividing(batch_size)
    planned.state = sharding.shard_trailing_batch(planned.state, batch_size, devices)
    if sharding.is_split(planned.state):
      planned.tensors = sharding.replicate(tensors, devices)  # split: the tensors on each device once
  elif planned.distributed:
    raise ValueError("a run over several processes needs a batch of runs to split between them")
  return planned


def stops(done: int, total: int, *every: int) -> int:
  """The next count after ``done`` that is a multiple of one of ``every`` or the end."""
  return min([total] + [(done // e + 1) * e for e in every])


def _evaluate(planned: Plan, state, done: int, started: float) -> dict:
  """One row of the history: the evaluator's metrics and the solver's counters at ``done``."""
  values = sharding.gather(planned.evaluator(planned.solver, planned.tensors, state, done))
  row = {
    "iteration": done,
    "seconds": planned.elapsed_before + time.perf_counter() - started,
    **{k: to_python(v) for k, v in values.items()},
  }
  if planned.solver.counters is not None:
    counted = planned.solver.counters(sharding.gather(state) if planned.distributed else state)
    row.update({k: to_python(v) for k, v in counted.items()})
  return row


def loop(planned: Plan) -> Looped:
  """Runs ``planned`` to its iterations in chunks of about half a second each, evaluating and
  checkpointing on its schedule (``RunSettings``). Raises NonFiniteError when the state turns
  NaN or infinite (after every chunk; with several processes, at each evaluation and
  checkpoint) and Interrupted on Ctrl-C, after saving the checkpoint if one was asked for."""
  run, solver, tensors, distributed = planned.run, planned.solver, planned.tensors, planned.distributed
  iterations, eval_every, checkpoint_every = run.iterations, run.evaluations, run.checkpoints
  state, history, done = planned.state, list(planned.history), planned.done
  enabled = (sys.stderr.isatty() if run.progress is None else run.progress) and sharding.is_main_process()
  bar = tqdm.tqdm(
    total=iterations,
    initial=done,
    unit="it",
    disable=not enabled,
    file=sys.stderr,
    dynamic_ncols=True,
    desc=f"{planned.algorithm} {planned.game.name}",
  )
  start = time.perf_counter()
  clock = CompileClock.get()

  def save(seconds):
    host = sharding.gather(state) if distributed else state  # every process takes part in the gather
    if sharding.is_main_process():
      meta = {"identity": planned.identity, "iterations": done, "history": history, "seconds": seconds}
      checkpoint_lib.save(run.checkpoint, host, {**meta, "compile_seconds": planned.compile_before + clock.seconds})

  chunk = 1  # iterations per call, adapted so that a call takes about half a second
  interrupt = guards.HeldInterrupt()
  if interrupt.active:  # each call computes in place: own buffers, not the caller's or the tensors'
    state = jax.tree_util.tree_map(jnp.copy, state)
  watched = sharding.finite_leaves(state)  # the leaves that must stay finite
  checked, what = done, f"{planned.algorithm} on {planned.game.name}"
  evaluator = planned.evaluator
  with clock, bar:
    try:
      while done < iterations or not history:
        stop = stops(done, iterations, eval_every, checkpoint_every)
        while done < stop:
          n = min(chunk, stop - done)
          compiled_before, call_start = clock.seconds, time.perf_counter()
          with interrupt.held():
            state = jax.block_until_ready(solver.run(tensors, state, n, donate=interrupt.active))
            done += n
          bar.update(n)
          if not distributed:  # every chunk; processes adapt their chunks apart, so they check at stops
            checked = guards.check_finite(state, watched, done=done, before=checked, what=what)
          took = time.perf_counter() - call_start - (clock.seconds - compiled_before)
          chunk = int(np.clip(n * 0.5 / max(took, 1e-6), 1, 1 << 20))
        if distributed:
          checked = guards.check_finite(state, watched, done=done, before=checked, what=what)
        if done % eval_every == 0 or done == iterations:
          history.append(_evaluate(planned, state, done, start))
          worst = np.max if evaluator.worst == "max" else np.min
          bar.set_postfix({evaluator.headline: f"{float(worst(history[-1][evaluator.headline])):.3e}"})
        if run.checkpoint and (done % checkpoint_every == 0 or done == iterations):
          save(planned.elapsed_before + time.perf_counter() - start)
    except KeyboardInterrupt:
      if run.checkpoint:
        save(planned.elapsed_before + time.perf_counter() - start)
      raise Interrupted(done, iterations, checkpoint=run.checkpoint) from None
  seconds = planned.elapsed_before + time.perf_counter() - start
  return Looped(state, history, seconds, planned.compile_before + clock.seconds)


# One program for the average strategy, computed once at the end (run op by op, a CFR state's
# average compiles a dozen small programs).
_final_average = light_jit(lambda solver, tensors, state: solver.average_strategy(tensors, state), static_argnums=0)


def record(planned: Plan, looped: Looped) -> SolveResult:
  """The SolveResult of a looped run: its evaluations, the average profile (gathered to every
  process when the batch spans several), the timings and the provenance."""
  average = _final_average(planned.solver, planned.tensors, looped.state)
  return SolveResult(
    game=planned.game.name,
    algorithm=planned.algorithm,
    options=planned.solver.options,
    iterations=planned.run.iterations,
    hyperparameters=planned.recorded,
    batch_size=planned.batch_size,
    history=looped.history,
    state=looped.state,
    average_strategy=sharding.gather(average) if planned.distributed else average,
    seconds=looped.seconds,
    compile_seconds=looped.compile_seconds,
    representation=str(planned.game.representation),
    evaluation=planned.evaluator.describe(planned.solver),
    provenance=provenance(),
  )


def run(game: Game | str, algorithm: str, settings: RunSettings, *, batch: dict | None = None, **solver_settings):
  """``record(plan(...), loop(...))``: the run of ``algorithm`` on ``game`` as ``settings`` says."""
  planned = plan(game, algorithm, settings, batch=batch, settings=solver_settings)
  return record(planned, loop(planned))


def solve(
  game: Game | str,
  algorithm: str = "cfr+",
  iterations: int = 1000,
  *,
  eval_every: int | None = None,
  batch: dict | None = None,
  checkpoint: str | Path | None = None,
  checkpoint_every: int | None = None,
  resume: bool = False,
  progress: bool | None = None,
  **settings,
) -> SolveResult:
  """Runs the registered solver ``algorithm`` for ``iterations`` iterations and evaluates
  it on a schedule.

  Args:
    game: a loaded Game or a game string.
    algorithm: a name of ``jaxcfr.solvers.names()``.
    iterations: total iterations (including those of a resumed checkpoint).
    eval_every: iterations between evaluations (default: a tenth of the run).
    batch: hyperparameter name -> [B] values (seeds included); the B runs execute as one
      program with trailing batch axes, split over the devices when B is a multiple of
      their number (see ``hyperparameter_grid``). After ``sharding.initialize`` the devices
      of every process share the batch: every process calls ``solve`` alike, each
      computes its slice, and every process gets the whole result; process 0 writes the
      checkpoint.
    checkpoint: an .npz path written every ``checkpoint_every`` iterations (default: at
      every evaluation), at the end, and when the run is interrupted (Ctrl-C).
    resume: continue from ``checkpoint`` if it exists; the result equals an uninterrupted run.
    progress: draw a progress bar with rate and time left (default: when stderr is a terminal).
    **settings: the solver's static options (``jaxcfr.solvers.option_names(algorithm)``,
      e.g. ``updates`` or ``trajectories``) and hyperparameters for every run (e.g.
      ``alpha``, ``seed``, ``epsilon``, ``model``; a restricted solver without ``model``
      plays against its kit's ``default_model``).
  Raises:
    ValueError: a bad argument, found before any long work. NonFiniteError (a ValueError):
      the state turned NaN or infinite (checked after every call of the solver's ``run``;
      with several processes, at each evaluation and checkpoint).
      Interrupted (a KeyboardInterrupt) on Ctrl-C, after saving the checkpoint if one was
      asked for.
  """
  settings_of_run = RunSettings(iterations, eval_every, checkpoint, checkpoint_every, resume, progress)
  return run(game, algorithm, settings_of_run, batch=batch, **settings)
