"""The memory a build or a run may use, and the guard that keeps within it.

Every loader estimates what it is about to allocate and calls ``check`` before it does.
Before a sequence-form build, the game's size is estimated without holding the states it
counts (``check_estimate``): level by level from the root with at most ``FRONTIER`` states a
depth, a uniform sample of each level's children standing for the whole level (exact while
no level is wider), for ``ESTIMATE_SECONDS`` at most; a game beyond the limit is refused in
seconds and a few MB. Then, as the build goes, the vectorised builder probes each depth
level's growth on a sample of its states, the tree walk (native small games and OpenSpiel's)
measures the process, the public-tree builder counts nodes times hands, ``load`` prices the
device tensors and the driver the solver state (``jax.eval_shape`` of its ``init``). Over the limit, ``check`` raises
GameTooLargeError, one line naming the estimate, the limit and the way out. ``guarded``
wraps a whole build: the address space is capped at the limit for its duration, so an
allocation the estimates missed fails there as a MemoryError, which becomes the same line,
instead of reaching the kernel's out-of-memory killer.

The limit is the one given to ``limited(size)`` for the work inside it (the command line's
``--max-memory``), else ``$JAXCFR_MAX_MEMORY`` (``8G``, ``512M``, ``1.5T`` or bytes) when set,
otherwise the memory available now: the least of the system's available memory, the cgroup's
limit less its usage, and the address-space limit less the process's size.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
import resource
from typing import NamedTuple

from jaxcfr.games import GameError

__all__ = [
  "ENV",
  "BYTES_PER_HISTORY",
  "GameTooLargeError",
  "parse_size",
  "format_size",
  "available",
  "Limit",
  "limit",
  "limited",
  "check",
  "FRONTIER",
  "ESTIMATE_SECONDS",
  "MARGIN",
  "check_estimate",
  "STATE_COPIES",
  "check_state",
  "Meter",
  "guarded",
  "resident",
]

ENV = "JAXCFR_MAX_MEMORY"
# Peak bytes per history of a sequence-form build (the builders' per-level chunks, then the
# assembled arrays beside them: 80-115 measured on Goofspiel, no-limit Leduc and liar's dice)
# and of the device tensors made from them (37-60), rounded up.
BYTES_PER_HISTORY = 128
_UNITS = {"": 1, "B": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([KMGT]?)(?:I?B)?\s*$", re.I)


class GameTooLargeError(GameError):
  """A build or a run would need more memory than the limit (``limit``)."""


def parse_size(text: str, what: str = f"--max-memory ({ENV})") -> int:
  """``"8G"`` -> 8 * 2**30 bytes; K, M, G, T are powers of 1,024, with or without "B"/"iB"."""
  match = _SIZE.match(str(text))
  if not match or float(match.group(1)) <= 0:
    raise GameError(f"{what} must be a positive size such as 8G, 512M or 1.5T, got {text!r}")
  return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def format_size(size: float) -> str:
  for unit in ("B", "KiB", "MiB", "GiB"):
    if abs(size) < 1024:
      return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
    size /= 1024
  return f"{size:.1f} TiB"


def _read_int(path: str, field: str | None = None) -> int | None:
  """An integer from a /proc or /sys file (the value after ``field:``), or None."""
  try:
    with open(path, encoding="ascii") as handle:
      for line in handle:
        if field is None:
          value = line.split()[0]
          return None if value == "max" else int(value)
        if line.startswith(field + ":"):
          return int(line.split()[1]) * 1024  # /proc/meminfo and /proc/self/status are in kB
  except (OSError, ValueError, IndexError):
    return None
  return None


def resident() -> int:
  """This process's resident memory in bytes (0 where /proc is missing)."""
  return _read_int("/proc/self/status", "VmRSS") or 0


def _address_space() -> int:
  return _read_int("/proc/self/status", "VmSize") or 0


def available() -> int:
  """The memory this process can still take, in bytes (the least of the system's available
  memory, the cgroup's room and the address-space limit's room); a large number where
  none is known."""
  room = [_read_int("/proc/meminfo", "MemAvailable")]
  for maximum, used in (
    ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
    ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
  ):
    cap, usage = _read_int(maximum), _read_int(used)
    if cap is not None and usage is not None and cap < 2**60:
      room.append(cap - usage)
  soft, _ = resource.getrlimit(resource.RLIMIT_AS)
  if soft != resource.RLIM_INFINITY:
    room.append(soft - _address_space())
  known = [r for r in room if r is not None]
  return max(0, min(known)) if known else 2**62


class Limit(NamedTuple):
  """The memory limit: ``size`` bytes, and ``source``, where the figure comes from."""

  size: int
  source: str


_LIMITED: contextvars.ContextVar = contextvars.ContextVar("jaxcfr_max_memory", default=None)


@contextlib.contextmanager
def limited(size: int | str | None):
  """The limit for the work inside the ``with`` block (every build and run it starts, in this
  thread or context): ``size`` bytes, or a size such as ``"8G"``; None keeps the limit as it
  is. How the command line's ``--max-memory`` reaches the builders, instead of the environment.

      with memory.limited("512M"):
        game = jaxcfr.load("leduc_poker")
  """
  if size is None:
    yield
    return
  size = parse_size(size, "--max-memory") if isinstance(size, str) else int(size)
  if size <= 0:
    raise GameError(f"--max-memory must be a positive size, got {size}")
  token = _LIMITED.set(Limit(size, "set by --max-memory"))
  try:
    yield
  finally:
    _LIMITED.reset(token)


def limit() -> Limit:
  """The size given to ``limited`` around this call, else ``$JAXCFR_MAX_MEMORY`` when set, else
  ``available()``. A build takes it once at its start (the memory available falls as the build
  allocates)."""
  scoped = _LIMITED.get()
  if scoped is not None:
    return scoped
  setting = os.environ.get(ENV)
  if setting is not None and setting.strip():
    return Limit(parse_size(setting), f"set by --max-memory ({ENV})")
  return Limit(available(), "available")


def check(need: float, name: str, what: str, room: Limit | None = None) -> None:
  """Raises GameTooLargeError if ``need`` bytes exceed the limit.

  Args:
    need: the estimate, in bytes.
    name: the game (or run) it is for.
    what: what the estimate counts, e.g. "2,006,323 histories to depth 9".
    room: the limit taken at the start of the work (default: ``limit()`` now).
  """
  room = room or limit()
  if need > room.size:
    raise GameTooLargeError(
      f"{name} needs about {format_size(need)} ({what}), more than the {format_size(room.size)} {room.source}; "
      f"{_way_out(room)}"
    )


FRONTIER = 2048  # states a depth that the size estimates keep (a uniform sample of the level)
ESTIMATE_SECONDS = 5.0  # an estimate undecided by then leaves the decision to the build's own guards
MARGIN = 1.25  # an estimate from samples refuses only past the limit by this factor (its sampling error)


def check_estimate(
  histories: float, depth: int, exact: bool, name: str, room: Limit, bytes_per_history: float = BYTES_PER_HISTORY
) -> None:
  """Raises GameTooLargeError if ``histories`` (counted to ``depth`` before building, exactly
  or estimated from samples) need more than the limit at ``bytes_per_history``: past the limit
  for an exact count, past ``MARGIN`` times it for an estimate (the build's own guards decide
  between the two)."""
  need = histories * bytes_per_history
  if need > room.size * (1 if exact else MARGIN):
    how = "counted" if exact else f"estimated from at most {FRONTIER:,} states a depth"
    check(
      need, name, f"{'' if exact else 'about '}{histories:,.0f} histories to depth {depth}, {how} before building", room
    )


# A run holds its state, the state its next step makes, and temporaries of about the same size.
STATE_COPIES = 3


def check_state(init, name: str, solver: str, runs: int | None = None) -> int:
  """Prices a solver's state from the shapes of ``init()`` (``jax.eval_shape``: nothing is
  allocated), held ``STATE_COPIES`` times while it steps, and raises GameTooLargeError if
  that exceeds the limit; returns the state's bytes. The driver calls it before every run;
  so can a caller that steps a solver itself.

  Args:
    init: a function of no arguments returning the state (``lambda: solver.init(...)``).
    name: the game the run is on.
    solver: the solver's name, for the message.
    runs: the number of runs in a batched state, for the message.
  """
  import jax  # pylint: disable=import-outside-toplevel  (the builders above need no JAX)
  import numpy as np  # pylint: disable=import-outside-toplevel

  leaves = jax.tree_util.tree_leaves(jax.eval_shape(init))
  state_bytes = int(sum(leaf.size * np.dtype(leaf.dtype).itemsize for leaf in leaves))
  batch = f" for {runs} runs" if runs else ""
  what = f"{solver}'s state of {format_size(state_bytes)}{batch}, held {STATE_COPIES} times while it steps"
  check(STATE_COPIES * state_bytes, name, what)
  return state_bytes


def _way_out(room: Limit) -> str:
  if room.source == "available":
    return f"choose smaller parameters, or set --max-memory ({ENV}) if more memory is free"
  return "choose smaller parameters or a larger --max-memory"


class Meter:
  """The growth of this process's resident memory since a walk began, checked against the
  limit taken then: for builders that cannot price what they allocate (OpenSpiel's states)."""

  def __init__(self, name: str):
    self.name, self.room, self.start = name, limit(), resident()

  def check(self, what: str, more: float = 0) -> None:
    """``more``: bytes still to come on top of the growth so far (e.g. the arrays a walk makes
    at its end)."""
    check(resident() - self.start + more, self.name, what, self.room)


@contextlib.contextmanager
def guarded(name: str):
  """Runs a build with the address space capped at the limit (where the system allows it);
  a MemoryError inside becomes GameTooLargeError naming ``name`` and the limit. For NumPy and
  OpenSpiel builds only: JAX's runtime is not written to survive a failed allocation."""
  room = limit()
  soft, hard = resource.getrlimit(resource.RLIMIT_AS)
  cap = _address_space() + room.size
  capped = (soft == resource.RLIM_INFINITY or cap < soft) and (hard == resource.RLIM_INFINITY or cap <= hard)
  if capped:
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
  try:
    yield
  except MemoryError:
    raise GameTooLargeError(
      f"{name} ran out of memory while building (the limit: {format_size(room.size)} {room.source}); {_way_out(room)}"
    ) from None
  finally:
    if capped:
      resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
