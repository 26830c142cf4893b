"""XLA:CPU compiles small loops into one kernel: jaxcfr raises its size limit at import.

XLA's CPU runtime runs a ``while`` loop (every ``lax.scan`` and ``fori_loop``) as a
sequence of kernels per step, each dispatched by its thunk executor, unless the loop's
bytes accessed (``HloCostAnalysis``) are below ``xla_cpu_small_while_loop_byte_threshold``,
1 kB by default; the loop is then compiled into one kernel. A sampled step is a few hundred
operations on a few dozen entries each, and as separate kernels it costs several times its
work. With the walks as one kernel, outcome sampling on princess-and-monster (3, 3, 11),
one trajectory per update, went from 50-80 to 9-10 us per iteration; with the whole
``run`` as one kernel (its updates written as row loops, jaxcfr.base.row_updates), one
seed of outcome sampling on Leduc poker takes about 1.3 us per iteration instead of 7,
external sampling 5.3 instead of 17 (2-core CPU, benchmarks/results/mccfr_speed.json).
XLA counts every gather as reading its whole operand, so a walk over a tree of ``H``
histories counts a few hundred bytes per history per step (external sampling on Leduc,
9,457 histories: between 2 and 3 MB; outcome sampling on Goof(7), 98M histories: more
than 1 GB): jaxcfr sets no limit in practice. Loops
holding a scatter, a dot, a collective or a library call (XLA:CPU runs a reduction over a
short axis as a YNNPACK call, hence ``jaxcfr.base.regret.unrolled_reduce``) are never
compiled this way, whatever the limit (one CFR run, MMD, RCFR and MCTS are unchanged), and
neither are loops of a user's program that hold them. A batch of CFR runs (8 or more,
gathering instead of scatter-adding: ``jaxcfr.kits.sequence_form.evaluation``) compiles into one kernel,
which runs on one core: split the batch over the cores (``jaxcfr.run.sharding``; the
command line shows XLA one CPU device per core, ``expose_cpu_cores``). So at import, before
JAX starts its backend, jaxcfr adds

    --xla_backend_extra_options=xla_cpu_small_while_loop_byte_threshold=4611686018427387904

to ``XLA_FLAGS``, unless the user already sets ``xla_backend_extra_options`` there (their
choice stands) or sets ``JAXCFR_SMALL_LOOP_BYTES`` (the threshold to use; ``0`` leaves
XLA's default). The option is read once, when JAX starts its backend; if JAX started
before jaxcfr was imported, it cannot take effect and a warning says so. It is an XLA:CPU
option: the GPU compiles loops its own way, and the H100 runs of
benchmarks/results/accelerator_nvidia_h100_80gb_hbm3.json carried it unread.
"""

from __future__ import annotations

import os
import warnings

__all__ = [
  "SMALL_LOOP_BYTES",
  "OPTION",
  "small_loop_flag",
  "configure",
  "DEVICE_COUNT",
  "usable_cores",
  "cpu_devices_flag",
  "expose_cpu_cores",
]

SMALL_LOOP_BYTES = 1 << 62  # no limit in practice
OPTION = "xla_cpu_small_while_loop_byte_threshold"


def small_loop_flag(environ=os.environ) -> str | None:
  """The ``XLA_FLAGS`` entry jaxcfr adds, or None (the user's flags or choice stand)."""
  if "xla_backend_extra_options" in environ.get("XLA_FLAGS", ""):
    return None
  requested = environ.get("JAXCFR_SMALL_LOOP_BYTES", "").strip()
  if requested:
    if not requested.isdigit():
      raise ValueError(f"JAXCFR_SMALL_LOOP_BYTES must be a whole number of bytes (0: XLA's default), got {requested!r}")
    if int(requested) == 0:
      return None
  return f"--xla_backend_extra_options={OPTION}={int(requested or SMALL_LOOP_BYTES)}"


def _jax_started() -> bool:
  """Whether JAX has started its backends (XLA_FLAGS are read then, once)."""
  try:
    from jax._src import xla_bridge  # pylint: disable=import-outside-toplevel

    return xla_bridge.backends_are_initialized()
  except (ImportError, AttributeError):  # a JAX without this function: assume not
    return False


def _add_flag(environ, flag: str) -> None:
  environ["XLA_FLAGS"] = f"{environ.get('XLA_FLAGS', '')} {flag}".strip()


def configure(environ=os.environ) -> None:
  """Adds ``small_loop_flag`` to ``environ["XLA_FLAGS"]``; warns when JAX's backend already
  started (the flag is then not read)."""
  flag = small_loop_flag(environ)
  if flag is None:
    return
  _add_flag(environ, flag)
  if _jax_started():
    warnings.warn(
      "JAX started before jaxcfr was imported, so XLA keeps its default size limit for loops compiled "
      "into one kernel: sampled solvers on CPU may run several times slower. Import jaxcfr before using "
      "JAX (or set JAXCFR_SMALL_LOOP_BYTES=0 to silence this)",
      stacklevel=3,
    )


DEVICE_COUNT = "xla_force_host_platform_device_count"


def usable_cores() -> int:
  """The CPU cores this process may run on."""
  return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def cpu_devices_flag(environ=os.environ, cores: int | None = None) -> str | None:
  """The ``XLA_FLAGS`` entry that shows XLA one CPU device per usable core, or None when
  the user's flags already set a device count or there is one core. A batch of runs
  compiles into one kernel per device, which runs on one core, so a batch uses every core
  only when split over that many devices (``jaxcfr.run.sharding``). The command line sets
  it for its own process (``expose_cpu_cores``); a program sets it itself before JAX starts."""
  if DEVICE_COUNT in environ.get("XLA_FLAGS", ""):
    return None
  cores = cores or usable_cores()
  return f"--{DEVICE_COUNT}={cores}" if cores > 1 else None


def expose_cpu_cores(environ=os.environ) -> None:
  """Adds ``cpu_devices_flag`` to ``environ["XLA_FLAGS"]`` if JAX has not started (after it,
  the flag would not be read)."""
  flag = cpu_devices_flag(environ)
  if flag and not _jax_started():
    _add_flag(environ, flag)
