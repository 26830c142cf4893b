"""XLA:CPU compiles small loops into one kernel: jaxcfr raises its size limit at import.

XLA's CPU runtime runs a ``while`` loop (every ``lax.scan`` and ``fori_loop``) as a
sequence of kernels per step, each dispatched by its thunk executor, unless the loop's
bytes accessed (``HloCostAnalysis``) are below ``xla_cpu_small_while_loop_byte_threshold``,
1 kB by default; the loop is then compiled into one kernel. A sampled walk with one
trajectory per step is a loop of a few dozen scalar operations, and as separate kernels it
costs several times its work: outcome sampling on princess-and-monster (3, 3, 11), one
trajectory per update, took 50-80 us per iteration, and 9-10 us with the walk as one kernel
(2-core CPU). A vmapped batch of 64 outcome-sampling seeds on Leduc went from 106 to
about 70 us per iteration. The full CFR family is unchanged (its loops hold scatters, which
XLA never compiles this way). So at import, before JAX starts its backend, jaxcfr adds

    --xla_backend_extra_options=xla_cpu_small_while_loop_byte_threshold=1048576

to ``XLA_FLAGS``, unless the user already sets ``xla_backend_extra_options`` there (their
choice stands) or sets ``JAXCFR_SMALL_LOOP_BYTES`` (the threshold to use; ``0`` leaves
XLA's default). The option is read once, when JAX starts its backend; if JAX started
before jaxcfr was imported, it cannot take effect and a warning says so. It is an XLA:CPU
option; runs on accelerators have not yet been measured with it.
"""

from __future__ import annotations

import os
import warnings

SMALL_LOOP_BYTES = 1 << 20
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


def configure(environ=os.environ) -> None:
  """Adds ``small_loop_flag`` to ``environ["XLA_FLAGS"]``; warns when JAX's backend already
  started (the flag is then not read)."""
  flag = small_loop_flag(environ)
  if flag is None:
    return
  environ["XLA_FLAGS"] = f"{environ.get('XLA_FLAGS', '')} {flag}".strip()
  try:
    from jax._src import xla_bridge  # pylint: disable=import-outside-toplevel
    started = xla_bridge.backends_are_initialized()
  except (ImportError, AttributeError):  # a JAX without this function: nothing to say
    started = False
  if started:
    warnings.warn("JAX started before jaxcfr was imported, so XLA keeps its default size limit for loops compiled "
                  "into one kernel: sampled solvers on CPU may run several times slower. Import jaxcfr before using "
                  "JAX (or set JAXCFR_SMALL_LOOP_BYTES=0 to silence this)", stacklevel=3)
