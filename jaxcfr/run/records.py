"""What a run of the driver leaves behind: the one record of every job (``SolveResult``, whose
``summary()`` is the JSON record of the command line), the errors that stop a run
(``Interrupted``, ``NonFiniteError``) and the clock of JAX's compilation time.

A record describes itself: the game and its representation, the job (``solve``, or the
depth-limited jobs of jaxcfr.run.resolving_jobs) and its algorithm, options, iterations and
hyperparameters, the metrics of every evaluation, the wall time with compilation apart, and
when, on what and from which commit it ran.
"""

from __future__ import annotations

import dataclasses

import jax
import numpy as np

__all__ = ["SolveResult", "Interrupted", "NonFiniteError", "CompileClock", "to_python"]


@dataclasses.dataclass
class SolveResult:
  """What the driver returns. With a batch of B runs, metrics are lists of B values and the
  strategies and state carry trailing batch axes ``[..., B]`` (the library's one batch
  convention, jaxcfr.solvers.registry).

  Attributes:
    game: the game's name; representation: its kit; algorithm: the solver (or the CFR preset
      a depth-limited job solves with); options: its static options (a job's settings).
    iterations: iterations of every run (of every re-solve or situation, for such jobs).
    hyperparameters: every hyperparameter of the runs, defaults included (lists with a batch).
    batch_size: B, or None for one run.
    history: one dict per evaluation: iteration, seconds (wall time since the start,
      compilation included), the evaluator's metrics (``Kit.evaluator``: on the
      sequence form exploitability, nash_conv, value, current_exploitability and the game's
      own metrics, such as Kuhn poker's squared_error and dominated_error; on sampled games
      sb_per_hand_vs_bot and ci95; exploitability_mbb and exploitability_pot_percent where
      the game declares a big blind and a pot), floats or lists with a batch, and the
      solver's counters (sampled solvers: nodes_touched, the work measure of Lanctot et al.
      2009; mcts: tree_nodes).
    state: the final solver state (a job's own state).
    average_strategy: the average profile ((sigma0, sigma1), [I, A, *B] each), or None for a
      job that makes no strategy (value-network data and training).
    seconds: wall time of the run, compilation included; compile_seconds: of which JAX
      spent tracing and compiling.
    evaluation: what the metrics are; provenance: when, on what and from which commit it ran
      (timestamp, git_commit, hardware).
    job: "solve", or the name of the job (jaxcfr.run.resolving_jobs).
    dtype: the float type of the run (default: the average strategy's).
  """

  game: str
  algorithm: str
  options: dict
  iterations: int
  hyperparameters: dict
  batch_size: int | None
  history: list
  state: object
  average_strategy: tuple | None
  seconds: float
  compile_seconds: float = 0.0
  representation: str = "sequence_form"
  evaluation: dict = dataclasses.field(default_factory=dict)
  provenance: dict = dataclasses.field(default_factory=dict)
  job: str = "solve"
  dtype: str | None = None

  def summary(self) -> dict:
    """The JSON record: the last evaluation's metrics at the top, one row per run of a
    batch under ``results``, the whole history below."""
    last = self.history[-1]
    measured = {k: v for k, v in last.items() if k not in ("iteration", "seconds")}
    run_seconds = self.seconds - self.compile_seconds
    dtype = self.dtype or str(self.average_strategy[0].dtype)
    record = {
      "game": self.game,
      "representation": self.representation,
      **({} if self.job == "solve" else {"job": self.job}),
      "algo": self.algorithm,
      "options": self.options,
      "iters": self.iterations,
      "dtype": dtype,
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


class Interrupted(KeyboardInterrupt):
  """A run stopped by Ctrl-C; ``str()`` says where, and whether a checkpoint was saved.

  Attributes:
    done, total: the work done and asked for, in ``unit`` (iterations, or a job's parts).
    checkpoint: the file the run was saved to, or None.
  """

  def __init__(self, done: int, total: int, *, unit: str = "iteration", checkpoint=None):
    self.done, self.total, self.unit, self.checkpoint = done, total, unit, checkpoint
    super().__init__(self.describe(resume="the same call with resume=True", save="give a checkpoint file"))

  def describe(self, *, resume: str, save: str) -> str:
    """The message, with ``resume`` saying how to go on from the checkpoint and ``save`` how
    to keep one (the command line says it in flags)."""
    where = f"interrupted at {self.unit} {self.done} of {self.total}"
    if self.checkpoint:
      return f"{where}; checkpoint saved to {self.checkpoint} (resume: {resume})"
    return f"{where}; nothing was saved ({save} to keep long runs)"


class NonFiniteError(ValueError):
  """A run whose state turned NaN or infinite: ``str()`` names the state's field and the
  iterations between which it happened."""


class CompileClock:
  """Seconds JAX spends tracing, lowering and compiling while active (jax.monitoring's
  compile events), so that results report compile time apart from run time."""

  _instance = None

  def __init__(self):
    self.seconds, self.active = 0.0, False
    jax.monitoring.register_event_duration_secs_listener(self._listen)

  @classmethod
  def get(cls) -> CompileClock:
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


def to_python(value):
  """A scalar or array as a Python number or (nested) list, for JSON."""
  value = np.asarray(value)
  return value.item() if value.ndim == 0 else value.tolist()
