"""The driver of jobs done in parts on the host: continual re-solving (a part per seat),
value-network data (a part per chunk of situations) and training (a part per hundred steps)
(jaxcfr.run.resolving_jobs). ``run_job`` gives them what ``driver.solve`` gives solvers: a
progress bar, a checkpoint after every part and on Ctrl-C, bit-exact resume (each part is a
function of the state before it), compile time apart from run time, and the one record
(``SolveResult``), evaluated once at the end.

A job is any object with these members (``Job``)::

    name, game, representation, algorithm, options, iterations, dtype   what the record names
    parts: int                      pieces of work, checkpointed after each
    total: int, unit: str           the progress bar's count and unit (re-solves, situations, steps)
    identity() -> dict              what a checkpoint of the job must match
    start() -> state                the state before the first part (fixed shapes: a checkpoint's template)
    part(state, k, advance) -> state   does part k; ``advance(n)`` moves the bar by n units
    evaluate(state) -> dict         the metrics of the finished job
    strategy(state) -> profile | None   the profile the job made, if any
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path
from typing import Any, Protocol

import tqdm

from jaxcfr.run import checkpoint as checkpoint_lib
from jaxcfr.run.hardware import provenance
from jaxcfr.run.records import CompileClock, Interrupted, SolveResult

__all__ = ["Job", "JobSettings", "run_job"]


class Job(Protocol):
  """A job done in parts (module doc)."""

  name: str
  game: str
  representation: str
  algorithm: str
  options: dict
  iterations: int
  dtype: str
  parts: int
  total: int
  unit: str

  def identity(self) -> dict: ...

  def start(self) -> Any: ...

  def part(self, state, k: int, advance) -> Any: ...

  def evaluate(self, state) -> dict: ...

  def strategy(self, state) -> tuple | None: ...


@dataclasses.dataclass(frozen=True)
class JobSettings:
  """How a job runs: ``checkpoint`` (an .npz file written after every part and on Ctrl-C),
  ``resume`` (go on from it if it exists) and ``progress`` (a bar; default: on a terminal)."""

  checkpoint: str | Path | None = None
  resume: bool = False
  progress: bool | None = None

  def check(self) -> None:
    if self.resume and not self.checkpoint:
      raise ValueError("resume needs a checkpoint file to resume from")
    if self.checkpoint:
      checkpoint_lib.check_writable(self.checkpoint, "checkpoint")


def run_job(job: Job, settings: JobSettings = JobSettings()) -> SolveResult:
  """Runs ``job``'s parts not yet done (all of them, or those after a resumed checkpoint's)
  and returns its record. Raises ValueError for a checkpoint of another job, before any
  part, and Interrupted on Ctrl-C, after saving the checkpoint if one was asked for."""
  settings.check()
  state, done, elapsed_before, compile_before, counted = job.start(), 0, 0.0, 0.0, 0
  identity = {"job": job.name, **job.identity()}
  if settings.resume and Path(settings.checkpoint).exists():
    state, saved = checkpoint_lib.load(settings.checkpoint, state, host=True)
    if saved.get("identity") != identity:
      raise ValueError(f"checkpoint {settings.checkpoint} is of another job: {saved.get('identity')} != {identity}")
    done, counted = saved["parts"], saved["units"]
    elapsed_before, compile_before = saved["seconds"], saved["compile_seconds"]
  enabled = sys.stderr.isatty() if settings.progress is None else settings.progress
  bar = tqdm.tqdm(
    total=job.total,
    initial=counted,
    unit=job.unit,
    disable=not enabled,
    file=sys.stderr,
    dynamic_ncols=True,
    desc=f"{job.name} {job.game}",
  )
  clock, start = CompileClock.get(), time.perf_counter()

  def save() -> None:
    meta = {"identity": identity, "parts": done, "units": counted, "compile_seconds": compile_before + clock.seconds}
    checkpoint_lib.save(settings.checkpoint, state, {**meta, "seconds": elapsed_before + time.perf_counter() - start})

  def advance(n: int) -> None:
    nonlocal counted
    counted += n
    bar.update(n)

  with clock, bar:
    try:
      for k in range(done, job.parts):
        before = counted
        try:
          state = job.part(state, k, advance)
        except BaseException:
          counted = before  # the part's units are not done: a resumed run does them again
          raise
        done = k + 1
        if settings.checkpoint:
          save()
    except KeyboardInterrupt:
      if settings.checkpoint:
        save()
      raise Interrupted(done, job.parts, unit="part", checkpoint=settings.checkpoint) from None
    metrics = job.evaluate(state)
  seconds = elapsed_before + time.perf_counter() - start
  return SolveResult(
    game=job.game,
    algorithm=job.algorithm,
    options=job.options,
    iterations=job.iterations,
    hyperparameters={},
    batch_size=None,
    history=[{"iteration": job.iterations, "seconds": seconds, **metrics}],
    state=state,
    average_strategy=job.strategy(state),
    seconds=seconds,
    compile_seconds=compile_before + clock.seconds,
    representation=job.representation,
    evaluation=getattr(job, "evaluation", {}),
    provenance=provenance(),
    job=job.name,
    dtype=job.dtype,
  )
