"""Progress of long work (limit hold'em's tables, jobs, ...), seen on a terminal and in a log alike.

Whether it shows is the setting of one command for the layers it calls, given by
``bars(enabled)`` around the work (the command line's ``--progress`` and ``--no-progress``).
``steps(iterable, desc)`` yields what ``iterable`` yields and shows how far it got, in one of
three ways (``mode()``): a bar with rate and time left (tqdm) when bars are on, or by default
when standard error is a terminal; a plain line every ``LINE_EVERY`` seconds (and at the end)
by default when standard error is not a terminal, so that a redirected log shows that the
build runs and how much is left; nothing when bars are off.

    with progress.bars(False):
      game = jaxcfr.load("limit_holdem(buckets=10)")   # its table builds show nothing
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import time
from collections.abc import Iterable, Iterator

import tqdm

__all__ = ["LINE_EVERY", "bars", "enabled", "mode", "steps"]

LINE_EVERY = 5.0  # seconds between two lines in a log

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


def mode() -> str:
  """``"bar"``, ``"lines"`` or ``"off"`` (see the module doc)."""
  scoped = _BARS.get()
  if scoped is False:
    return "off"
  if scoped or sys.stderr.isatty():
    return "bar"
  return "lines"


def _lines(iterable: Iterable, desc: str, total: int | None, every: float) -> Iterator:
  start = last = time.monotonic()
  done = 0
  for item in iterable:
    yield item
    done += 1
    now = time.monotonic()
    if now - last >= every or (total is not None and done == total):
      last = now
      rate = done / max(now - start, 1e-9)
      if total is None:
        text = f"{desc}: {done:,} steps, {now - start:.0f} s"
      else:
        left = (total - done) / rate
        text = f"{desc}: {done:,}/{total:,} ({100 * done / total:.0f}%), {now - start:.0f} s, about {left:.0f} s left"
      print(text, file=sys.stderr, flush=True)


def steps(iterable: Iterable, desc: str, total: int | None = None, every: float = LINE_EVERY) -> Iterator:
  """``iterable``'s items, its progress shown as ``mode()`` says.

  Args:
    iterable: the steps of the work.
    desc: what the work is, e.g. "turn E[HS]".
    total: the number of steps (default ``len(iterable)`` where it has one).
    every: seconds between two lines in a log.
  """
  if total is None and hasattr(iterable, "__len__"):
    total = len(iterable)
  shown = mode()
  if shown == "off":
    return iter(iterable)
  if shown == "bar":
    return iter(tqdm.tqdm(iterable, desc=desc, total=total, leave=False, file=sys.stderr, dynamic_ncols=True))
  return _lines(iterable, desc, total, every)
