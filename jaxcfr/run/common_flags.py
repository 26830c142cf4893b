"""The settings several subcommands share, declared once (jaxcfr.run.flags): the game, the
representation, the float type, the JSON record, how a run goes (``driver.RUN_SETTINGS``, the
fields of ``driver.RunSettings``), a job's checkpoint, the processes of a distributed run and
the memory limit; and what the commands do with them before any work (``join``, ``dtype``)."""

from __future__ import annotations

from jaxcfr import kits, xla_setup
from jaxcfr.base import memory
from jaxcfr.base.params import Param
from jaxcfr.run import driver
from jaxcfr.run.flags import Flag

__all__ = [
  "GAME_HELP",
  "game",
  "REPRESENTATION",
  "DTYPE",
  "JSON",
  "RUN",
  "JOB",
  "PROCESSES",
  "MAX_MEMORY",
  "run_settings",
  "join",
  "use_dtype",
]

GAME_HELP = "a game string, e.g. leduc_poker, one_card_poker(num_cards=13), openspiel:liars_dice"


def game(default: str | None) -> Flag:
  """The positional game string (optional, ``default`` when absent; required without one)."""
  return Flag(Param("game", str, default, GAME_HELP), flag=None, nargs=None if default is None else "?")


REPRESENTATION = Flag(
  Param(
    "representation",
    str,
    None,
    "load the game as sequence-form tensors, on the public tree (vector form) or as a sampled game "
    "(default: the game's own; a game may have several)",
    choices=tuple(kits.names()),
  )
)
DTYPE = Flag(
  Param("dtype", str, "float32", "float precision (float32, as the library)", choices=("float32", "float64"))
)
JSON = Flag(Param("json", str, None, "write the results, self-described, as JSON"), metavar="FILE", output=True)

_RUN = {param.name: param for param in driver.RUN_SETTINGS}
RUN = (
  Flag(_RUN["iterations"], flag="--iters", metavar="ITERS"),
  Flag(_RUN["eval_every"]),
  Flag(_RUN["checkpoint"], metavar="FILE", output=True),
  Flag(_RUN["checkpoint_every"], metavar="N", needs="checkpoint"),
  Flag(_RUN["resume"], needs="checkpoint"),
  Flag(_RUN["progress"]),
)
"""How a run goes: the fields of ``driver.RunSettings``, as declared there."""

JOB = (
  Flag(
    Param("checkpoint", str, None, "checkpoint file (.npz), written after every part of the work and on Ctrl-C"),
    metavar="FILE",
    output=True,
  ),
  Flag(_RUN["resume"], needs="checkpoint"),
  Flag(Param("progress", bool, None, "draw a progress bar with rate and time left (default: on a terminal)")),
)
"""How a job in parts goes (``jobs.JobSettings``): its checkpoint, resume and progress bar."""

PROCESSES = (
  Flag(
    Param(
      "distributed",
      bool,
      False,
      "join a multi-process run, the cluster detected from its environment (e.g. SLURM)",
    )
  ),
  Flag(Param("coordinator", str, None, "the coordinator's address (process 0's host)"), metavar="HOST:PORT"),
  Flag(Param("num_processes", int, None, "the number of processes", low=1), metavar="N"),
  Flag(Param("process_id", int, None, "this process's id, 0..N-1", low=0), metavar="K"),
  Flag(
    Param(
      "join_timeout",
      int,
      300,
      "give up, with one line and exit status 2, if the other processes have not joined by then",
      low=1,
      high=86_400,
    ),
    metavar="SECONDS",
  ),
)
PROCESSES_TITLE = "several processes (jax.distributed): one command per process, same arguments"

MAX_MEMORY = Flag(
  Param(
    "max_memory",
    str,
    None,
    f"the memory builds and runs may use, e.g. 8G or 512M (default: what is available now; ${memory.ENV})",
  ),
  metavar="SIZE",
  parse=lambda text: memory.parse_size(text, "--max-memory"),
)
"""Every command's memory limit (``memory.limited`` around the command), in bytes."""

COMPILATION_CACHE_ENV = "JAXCFR_COMPILATION_CACHE"
COMPILATION_CACHE = Flag(
  Param(
    "compilation_cache",
    bool,
    None,
    "keep compiled programs on disk, under the game cache's xla/ folder, so that a game of a shape solved "
    f"before starts without compiling (default: on; ${COMPILATION_CACHE_ENV}=0 turns it off, "
    "$JAX_COMPILATION_CACHE_DIR chooses the folder)",
  )
)
"""Every command's persistent compilation cache (``cli.compilation_cache``)."""


def run_settings(settings) -> driver.RunSettings:
  """The ``driver.RunSettings`` of a command's settings (the ``RUN`` flags)."""
  return driver.RunSettings(**{param.name: getattr(settings, param.name) for param in driver.RUN_SETTINGS})


def join(settings) -> bool:
  """Joins a multi-process run when asked (before any JAX work); True on the process that
  prints and writes files. One process: a batch is split over one CPU device per core
  (unless ``XLA_FLAGS`` sets a count)."""
  explicit = (settings.coordinator, settings.num_processes, settings.process_id)
  if any(v is not None for v in explicit) and any(v is None for v in explicit):
    raise ValueError("--coordinator, --num-processes and --process-id go together")
  if settings.process_id is not None and settings.process_id >= settings.num_processes:
    raise ValueError(f"--process-id {settings.process_id} is not below --num-processes {settings.num_processes}")
  from jaxcfr.run import sharding  # pylint: disable=import-outside-toplevel

  if settings.distributed or settings.coordinator:
    sharding.initialize(
      settings.coordinator, settings.num_processes, settings.process_id, timeout_s=settings.join_timeout
    )
  else:
    xla_setup.expose_cpu_cores()
  return sharding.is_main_process()


def use_dtype(dtype: str) -> None:
  """float64 turns on ``jax_enable_x64`` (before the game is loaded)."""
  if dtype == "float64":
    import jax  # pylint: disable=import-outside-toplevel

    jax.config.update("jax_enable_x64", True)
