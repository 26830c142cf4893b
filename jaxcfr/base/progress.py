"""Progress of the long one-time builds (limit hold'em's tables, ...), seen on a terminal and
in a log alike.

``steps(iterable, desc)`` yields what ``iterable`` yields and shows how far it got, in one of
three ways (``mode()``): a bar with rate and time left (tqdm) when ``$JAXCFR_PROGRESS`` is 1
or stderr is a terminal; a plain line every ``LINE_EVERY`` seconds (and at the end) when
stderr is not a terminal, so that a redirected log shows that the build runs and how much is
left; nothing when ``$JAXCFR_PROGRESS`` is 0 (the command line's ``--no-progress``).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator

import tqdm

__all__ = ["ENV", "LINE_EVERY", "mode", "steps"]

ENV = "JAXCFR_PROGRESS"
LINE_EVERY = 5.0  # seconds between two lines in a log


def mode() -> str:
  """``"bar"``, ``"lines"`` or ``"off"`` (see the module doc)."""
  setting = os.environ.get(ENV)
  if setting == "0":
    return "off"
  if setting == "1" or sys.stderr.isatty():
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
