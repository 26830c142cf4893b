"""The guards of the driver's loop: Ctrl-C held back while a chunk donates its state
(``HeldInterrupt``), and a state that turns NaN or infinite stopped with one line naming its
field and the iterations (``check_finite``)."""

from __future__ import annotations

import contextlib
import signal
import threading

import jax
import numpy as np

from jaxcfr.run import sharding
from jaxcfr.run.records import NonFiniteError

__all__ = ["HeldInterrupt", "check_finite"]


def check_finite(state, watched: np.ndarray, *, done: int, before: int, what: str) -> int:
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


class HeldInterrupt:
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
