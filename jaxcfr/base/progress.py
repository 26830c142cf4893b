"""Whether long builds draw progress bars: the setting of one command for the layers it calls,
given by ``bars(enabled)`` around the work (the command line's ``--progress`` and
``--no-progress``), else drawn only when standard error is a terminal (not in redirected logs).

    with progress.bars(False):
      game = jaxcfr.load("limit_holdem(buckets=10)")   # its table builds draw nothing
"""

from __future__ import annotations

import contextlib
import contextvars
import sys

__all__ = ["bars", "enabled"]

_BARS: contextvars.ContextVar = contextvars.ContextVar("jaxcfr_progress_bars", default=None)


@contextlib.contextmanager
def bars(setting: bool | None):
  """Progress bars on (True) or off (False) for the work inside the ``with`` block; None keeps
  the setting as it is."""
  if setting is None:
    yield
    return
  token = _BARS.set(bool(setting))
  try:
    yield
  finally:
    _BARS.reset(token)


def enabled(setting: bool | None = None) -> bool:
  """``setting`` when given, else the one ``bars`` set around this call, else whether standard
  error is a terminal."""
  if setting is not None:
    return bool(setting)
  scoped = _BARS.get()
  return sys.stderr.isatty() if scoped is None else scoped
