"""``solve``: runs any registered solver on a game of any representation in jitted chunks,
with metrics on a schedule (the evaluator of the game's kit, ``Kit.evaluator``), a progress bar, batches of runs (any hyperparameter, seeds
included) split over the local devices, and checkpoint / resume. Nothing here depends on
the solver's family or the game's representation: settings are split and checked by the
solver's declaration (jaxcfr.solvers.registry).
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import signal
import sys
import threading
import time
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import tqdm

from jaxcfr import solvers
from jaxcfr import kits
from jaxcfr.evaluate import game_metrics
from jaxcfr.base import integrity, memory
from jaxcfr.kits import load
from jaxcfr.kits.sequence_form import Game
from jaxcfr.run import checkpoint as checkpoint_lib
from jaxcfr.run import sharding
from jaxcfr.run.hardware import provenance

__all__ = ["SolveResult", "Interrupted", "NonFiniteError", "solve", "hyperparameter_grid"]


@dataclasses.dataclass
class SolveResult:
  """What ``solve`` returns. With a batch of B runs, metrics are lists of B values and the
  strategies and state carry trailing batch axes ``[..., B]`` (the library's one batch
  convention, jaxcfr.solvers.registry).

  Attributes:
    history: one dict per evaluation: iteration, seconds (wall time since the start,
      compilation included), the evaluator's metrics (``Kit.evaluator``: on the
      sequence form exploitability, nash_conv, value, current_exploitability and the game's
      own metrics, such as Kuhn poker's squared_error and dominated_error; on sampled games
      sb_per_hand_vs_bot and ci95), floats or lists with a batch, and the solver's counters
      (sampled solvers: nodes_touched, the work measure of Lanctot et al. 2009; mcts:
      tree_nodes).
    state: the final solver state.
    average_strategy: the average profile ((sigma0, sigma1), [I, A, *B] each).
    seconds: wall time of the run, compilation included; compile_seconds: of which JAX
      spent tracing and compiling.
    representation: the game's representation; evaluation: what the metrics are;
    provenance: when, on what and from which commit it ran (timestamp, git_commit, hardware).
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
  compile_seconds: float = 0.0
  representation: str = "sequence_form"
  evaluation: dict = dataclasses.field(default_factory=dict)
  provenance: dict = dataclasses.field(default_factory=dict)

  def summary(self) -> dict:
    """The JSON record: the last evaluation's metrics at the top, one row per run of a
    batch under ``results``, the whole history below."""
    last = self.history[-1]
    measured = {k: v for k, v in last.items() if k not in ("iteration", "seconds")}
    run_seconds = self.seconds - self.compile_seconds
    record = {
      "game": self.game,
      "representation": self.representation,
      "algo": self.algorithm,
      "options": self.options,
      "iters": self.iterations,
      "dtype": str(self.average_strategy[0].dtype),
      "batch_size": self.batch_size,
      "hyperparameters": self.hyperparameters,
      **measured,
      **self.evaluation,
      "seconds": self.seconds,
      "compile_seconds": self.compile_seconds,
      "run_seconds": run_seconds,
      "iterations_per_second": self.iterations * (self.batch_size or 1) / run_seconds if run_seconds > 0 else None,
      **self.provenance,
      "history": self.history,
    }
    if "nodes_touched" in last:
      record["nodes_touched_per_iteration"] = (np.asarray(last["nodes_touched"]) / last["iteration"]).tolist()
    if self.batch_size:  # one result per run
      record["results"] = [
        {
          **{k: v[b] for k, v in self.hyperparameters.items() if isinstance(v, list)},
          **{k: v[b] for k, v in measured.items()},
        }
        for b in range(self.batch_size)
      ]
    return record


def hyperparameter_grid(**values) -> dict[str, np.ndarray]:
  """The Cartesian product of hyperparameter lists as equal-length arrays, e.g.
  ``hyperparameter_grid(alpha=[1, 1.5], gamma=[1, 2])`` gives 4 configurations."""
  names = [k for k, v in values.items() if v is not None]
  rows = list(itertools.product(*(np.atleast_1d(values[k]) for k in names)))
  return {k: np.array([r[i] for r in rows]) for i, k in enumerate(names)}


class _CompileClock:
  """Seconds JAX spends tracing, lowering and compiling while active (jax.monitoring's
  compile events), so that results report compile time apart from run time."""

  _instance = None

  def __init__(self):
    self.seconds, self.active = 0.0, False
    jax.monitoring.register_event_duration_secs_listener(self._listen)

  @classmethod
  def get(cls) -> _CompileClock:
    if cls._instance is None:
      cls._instance = cls()
    return cls._instance

  def _listen(self, event: str, duration: float, **kwargs) -> None:
    del kwargs
    if self.active and event.startswith("/jax/core/compile/"):
      self.seconds += duration

  def __enter__(self):
    self.seconds, self.active = 0.0, True
    return self

  def __exit__(self, *exc):
    self.active = False


class Interrupted(KeyboardInterrupt):
  """A run stopped by Ctrl-C; ``str()`` says where, and whether a checkpoint was saved."""


class NonFiniteError(ValueError):
  """A run whose state turned NaN or infinite: ``str()`` names the state's field and the
  iterations between which it happened."""


def _check_finite(state, watched: np.ndarray, *, done: int, before: int, what: str) -> int:
  """Raises NonFiniteError naming the first ``watched`` leaf of ``state`` (those finite at the
  start: regrets, strategies, averages; not a hyperparameter such as alpha = inf) that is
  no longer finite after iteration ``done`` (it was after iteration ``before``); else
  returns ``done``. With several processes, a collective."""
  bad = watched & ~sharding.finite_leaves(state)
  if bad.any():
    path = jax.tree_util.tree_flatten_with_path(state)[0][int(np.argmax(bad))][0]
    where = f"at iteration {done}" if done == before + 1 else f"between iterations {before + 1} and {done}"
    raise NonFiniteError(
      f"{what}: the solver state's {jax.tree_util.keystr(path)} became NaN or infinite {where}; "
      "the run is stopped (results past it would be meaningless)"
    )
  return done


def _average(solver, tensors, state, distributed: bool):
  """The average profile; gathered to every process when the batch spans several."""
  average = solver.average_strategy(tensors, state)
  return sharding.gather(average) if distributed else average


class _HeldInterrupt:
  """Holds Ctrl-C back for the length of a ``with`` block and raises it (KeyboardInterrupt)
  when the block ends. A chunk that donates its state hands the old buffers over before the
  new state arrives; an interrupt in between would leave nothing to checkpoint.
  ``active`` is False where Python's own SIGINT handler is not installed in the main thread
  (other threads, custom handlers): nothing is held there, and the caller must not donate."""

  def __init__(self):
    self.active = (
      threading.current_thread() is threading.main_thread()
      and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )
    self.received = False

  @contextlib.contextmanager
  def held(self):
    if not self.active:
      yield
      return
    self.received = False
    signal.signal(signal.SIGINT, self._record)
    try:
      yield
    finally:
      signal.signal(signal.SIGINT, signal.default_int_handler)
    if self.received:
      raise KeyboardInterrupt

  def _record(self, signum, frame):
    del signum, frame
    self.received = True


def _stops(done: int, iterations: int, *every: int) -> int:
  """The next iteration after ``done`` that is a multiple of one of ``every`` or the end."""
  return min([iterations] + [(done // e + 1) * e for e in every])


def _positive(name: str, value) -> None:
  if value is not None and (int(value) != value or value < 1):
    raise ValueError(f"{name} must be a positive integer, got {value}")


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


def _to_python(value):
  value = np.asarray(value)
  return value.item() if value.ndim == 0 else value.tolist()


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
      ``alpha``, ``seed``, ``epsilon``, ``model``).
  Raises:
    ValueError: a bad argument, found before any long work. NonFiniteError (a ValueError):
      the state turned NaN or infinite (checked after every call of the solver's ``run``;
      with several processes, at each evaluation and checkpoint).
      Interrupted (a KeyboardInterrupt) on Ctrl-C, after saving the checkpoint if one was
      asked for.
  """
  _positive("iterations", iterations)
  _positive("eval_every", eval_every)
  _positive("checkpoint_every", checkpoint_every)
  if resume and not checkpoint:
    raise ValueError("resume needs a checkpoint file to resume from")
  if checkpoint:
    checkpoint_lib.check_writable(checkpoint, "checkpoint")
  if isinstance(game, str):
    game = load(game)
  declared = solvers.registration(algorithm, game.representation)
  options, hyperparameters = solvers.split_settings(algorithm, game.representation, settings)
  solver = solvers.get(algorithm, game.representation, **options)
  not_batchable = sorted(set(batch or {}) - set(solver.hyperparameters))
  if not_batchable:
    raise ValueError(
      f"{algorithm} cannot batch {', '.join(not_batchable)}; its batchable hyperparameters: "
      f"{', '.join(solver.hyperparameters) or 'none'}"
    )
  for param in declared.hyperparameters:
    given = (batch or {}).get(param.name, hyperparameters.get(param.name))
    if param.below_iterations and given is not None and np.max(np.asarray(given)) >= iterations:
      raise ValueError(
        f"{param.name} {np.max(np.asarray(given))} must be below the run's {iterations} iterations ({param.help})"
      )
  tensors = game.tensors
  warn_if_float32_saturates(getattr(tensors, "dtype", jnp.float32), iterations)
  evaluator = kits.of_game(game).evaluator(game, game_metrics.for_game(game))
  eval_every = eval_every or max(1, iterations // 10)
  checkpoint_every = checkpoint_every or eval_every
  batch_size = None
  if batch:
    sizes = {len(np.atleast_1d(v)) for v in batch.values()}
    if len(sizes) != 1:
      raise ValueError(f"batch arrays must have one length, got {sorted(sizes)}")
    batch_size = sizes.pop()
  batched = {k: jnp.asarray(v).reshape(-1) for k, v in (batch or {}).items()}
  memory.check_state(lambda: solver.init(tensors, **hyperparameters, **batched), game.name, algorithm, batch_size)
  state = solver.init(tensors, **hyperparameters, **batched)
  recorded = {  # every hyperparameter of the runs, defaults included
    **{k: v for k, v in solver.hyperparameters.items() if v is not None},
    **{k: _to_python(v) for k, v in hyperparameters.items() if k in solver.hyperparameters},
    **{k: _to_python(v) for k, v in (batch or {}).items()},
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
  history, done, elapsed_before, compile_before = [], 0, 0.0, 0.0
  if resume and Path(checkpoint).exists():
    state, saved = checkpoint_lib.load(checkpoint, state)
    if saved.get("identity") != identity:
      raise ValueError(f"checkpoint {checkpoint} is of another run: {saved.get('identity')} != {identity}")
    history, done = saved["history"], saved["iterations"]
    elapsed_before, compile_before = saved["seconds"], saved.get("compile_seconds", 0.0)
  if done > iterations:
    raise ValueError(f"checkpoint has {done} iterations, more than the {iterations} asked for")
  distributed = jax.process_count() > 1
  if batch_size:  # split over every device of every process, or of this one as far as the batch divides
    devices = None if distributed else sharding.devices_dividing(batch_size)
    state = sharding.shard_trailing_batch(state, batch_size, devices)
    if sharding.is_split(state):
      tensors = sharding.replicate(tensors, devices)  # split: the tensors on each device once, not at every call
  elif distributed:
    raise ValueError("a run over several processes needs a batch of runs to split between them")
  enabled = (sys.stderr.isatty() if progress is None else progress) and sharding.is_main_process()
  bar = tqdm.tqdm(
    total=iterations,
    initial=done,
    unit="it",
    disable=not enabled,
    file=sys.stderr,
    dynamic_ncols=True,
    desc=f"{algorithm} {game.name}",
  )
  start = time.perf_counter()
  clock = _CompileClock.get()

  def save(seconds):
    host = sharding.gather(state) if distributed else state  # every process takes part in the gather
    if sharding.is_main_process():
      checkpoint_lib.save(
        checkpoint,
        host,
        {
          "identity": identity,
          "iterations": done,
          "history": history,
          "seconds": seconds,
          "compile_seconds": compile_before + clock.seconds,
        },
      )

  chunk = 1  # iterations per call, adapted so that a call takes about half a second
  interrupt = _HeldInterrupt()
  if interrupt.active:  # each call computes in place: own buffers, not the caller's or the tensors'
    state = jax.tree_util.tree_map(jnp.copy, state)
  watched = sharding.finite_leaves(state)  # the leaves that must stay finite
  checked, what = done, f"{algorithm} on {game.name}"
  with clock, bar:
    try:
      while done < iterations or not history:
        stop = _stops(done, iterations, eval_every, checkpoint_every)
        while done < stop:
          n = min(chunk, stop - done)
          compiled_before, call_start = clock.seconds, time.perf_counter()
          with interrupt.held():
            state = jax.block_until_ready(solver.run(tensors, state, n, donate=interrupt.active))
            done += n
          bar.update(n)
          if not distributed:  # every chunk; processes adapt their chunks apart, so they check at stops
            checked = _check_finite(state, watched, done=done, before=checked, what=what)
          took = time.perf_counter() - call_start - (clock.seconds - compiled_before)
          chunk = int(np.clip(n * 0.5 / max(took, 1e-6), 1, 1 << 20))
        if distributed:
          checked = _check_finite(state, watched, done=done, before=checked, what=what)
        if done % eval_every == 0 or done == iterations:
          values = sharding.gather(evaluator(solver, tensors, state, done))
          history.append(
            {
              "iteration": done,
              "seconds": elapsed_before + time.perf_counter() - start,
              **{k: _to_python(v) for k, v in values.items()},
            }
          )
          if solver.counters is not None:
            counted = solver.counters(sharding.gather(state) if distributed else state)
            history[-1].update({k: _to_python(v) for k, v in counted.items()})
          worst = np.max if evaluator.worst == "max" else np.min
          bar.set_postfix({evaluator.headline: f"{float(worst(values[evaluator.headline])):.3e}"})
        if checkpoint and (done % checkpoint_every == 0 or done == iterations):
          save(elapsed_before + time.perf_counter() - start)
    except KeyboardInterrupt:
      where = f"interrupted at iteration {done} of {iterations}"
      if checkpoint:
        save(elapsed_before + time.perf_counter() - start)
        raise Interrupted(
          f"{where}; checkpoint saved to {checkpoint} (resume: the same call with resume=True)"
        ) from None
      raise Interrupted(f"{where}; nothing was saved (give a checkpoint file to keep long runs)") from None
  seconds = elapsed_before + time.perf_counter() - start
  return SolveResult(
    game=game.name,
    algorithm=algorithm,
    options=solver.options,
    iterations=iterations,
    hyperparameters=recorded,
    batch_size=batch_size,
    history=history,
    state=state,
    average_strategy=_average(solver, tensors, state, distributed),
    seconds=seconds,
    compile_seconds=compile_before + clock.seconds,
    representation=str(game.representation),
    evaluation=evaluator.describe(solver),
    provenance=provenance(),
  )
