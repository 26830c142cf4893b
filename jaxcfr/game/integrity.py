"""Integrity of everything read from disk: a digest of every array of a file, and the
structural checks that a loaded game must pass, as a fresh build does.

A damaged file must never load as a different game or a different run: cache entries,
checkpoints and strategy files carry a ``checksum`` member (a BLAKE2b digest of every
other member's name, dtype, shape and bytes) that is verified on read, and loaded game
arrays are checked for the invariants every builder guarantees (breadth-first numbering,
parents and children consistent, indices in range, chance distributions that sum to one,
finite utilities). Everything is read without pickles.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from jaxcfr.game.arrays import CHANCE_NODE, NUM_PLAYERS, TERMINAL_NODE, GameArrays

__all__ = ["DamagedFileError", "digest", "with_checksum", "verify_checksum", "read_arrays", "check_game_arrays"]

CHECKSUM = "checksum"
# Reading a damaged or foreign .npz file can fail anywhere in the parsers below it (the zip
# directory, a .npy header that numpy parses as Python literals, JSON metadata, ...): any
# error while reading means a damaged file, and becomes a DamagedFileError.
READ_ERRORS = (Exception,)


class DamagedFileError(ValueError):
  """A file that is not what it claims: unreadable, truncated, foreign, or whose checksum
  or structure does not hold."""


def digest(arrays: dict) -> str:
  """Hex BLAKE2b digest of named arrays (names sorted; name, dtype, shape and bytes)."""
  hasher = hashlib.blake2b(digest_size=16)
  for name in sorted(arrays):
    if name == CHECKSUM:
      continue
    value = np.asarray(arrays[name])
    hasher.update(f"{name}|{value.dtype.str}|{value.shape}|".encode())
    if value.dtype.kind in "US":
      hasher.update(np.ascontiguousarray(value).tobytes())
    else:
      flat = value.reshape(-1)
      for start in range(0, flat.shape[0], 1 << 24):  # memory-mapped members page in chunk by chunk
        hasher.update(np.ascontiguousarray(flat[start : start + (1 << 24)]).tobytes())
  return hasher.hexdigest()


def with_checksum(arrays: dict) -> dict:
  """``arrays`` with their ``checksum`` member added (to pass to ``np.savez``)."""
  return {**arrays, CHECKSUM: np.array(digest(arrays))}


def verify_checksum(arrays: dict, path) -> dict:
  """Raises DamagedFileError unless ``arrays`` (read from ``path``) carry a checksum that matches."""
  if CHECKSUM not in arrays:
    raise DamagedFileError(f"{path} has no checksum: it was not written by this version of jaxcfr, or is damaged")
  if str(arrays[CHECKSUM]) != digest(arrays):
    raise DamagedFileError(f"{path} is damaged: its checksum does not match its contents")
  return arrays


def read_arrays(path, what: str) -> dict:
  """The verified arrays of an .npz file written with ``with_checksum`` (read fully, no
  pickles). Raises DamagedFileError, one line naming ``what`` and the file, on any problem."""
  path = Path(path)
  if not path.is_file():
    raise DamagedFileError(f"{what} {path} does not exist or is not a file")
  try:
    with np.load(path, allow_pickle=False) as data:
      arrays = {name: data[name] for name in data.files}
  except READ_ERRORS as error:
    raise DamagedFileError(f"{what} {path} is not a readable jaxcfr .npz file ({type(error).__name__})") from None
  return verify_checksum(arrays, f"{what} {path}")


def check_game_arrays(arrays: GameArrays) -> None:
  """Raises DamagedFileError naming the first broken invariant of a game's arrays (the
  invariants every builder guarantees). O(H) vectorised work."""
  h = arrays.num_histories

  def require(condition, what):
    if not condition:
      raise DamagedFileError(f"game arrays of {arrays.name} are inconsistent: {what}")

  fields = ("parent", "kind", "infoset", "action_index", "action_id", "chance_prob", "utility", "num_children")
  require(all(getattr(arrays, f).shape == (h,) for f in fields) and arrays.sequence.shape == (2, h), "array shapes")
  require(h > 0 and arrays.parent[0] == -1, "the root")
  offsets = np.asarray(arrays.depth_offsets, np.int64)
  require(offsets[0] == 0 and offsets[-1] == h and np.all(np.diff(offsets) > 0), "depth offsets")
  parent = np.asarray(arrays.parent[1:], np.int64)
  require(np.all((parent >= 0) & (parent < np.arange(1, h))), "parents precede their children")
  require(np.all(np.diff(parent) >= 0), "breadth-first order of the parents")
  counts = np.bincount(parent, minlength=h)
  require(np.array_equal(counts, arrays.num_children), "children counts")
  kind = np.asarray(arrays.kind)
  require(np.all((kind >= 0) & (kind <= TERMINAL_NODE)), "node kinds")
  require(np.all((arrays.num_children == 0) == (kind == TERMINAL_NODE)), "terminals are the leaves")
  first = np.concatenate([[1], 1 + np.cumsum(np.asarray(arrays.num_children[:-1], np.int64))])
  position = np.arange(1, h) - first[parent]
  require(np.array_equal(position, arrays.action_index[1:]), "action indices")
  require(np.all(np.isfinite(arrays.utility)) and np.all(np.isfinite(arrays.chance_prob)), "finite values")
  from_chance = kind[parent] == CHANCE_NODE
  probs = np.asarray(arrays.chance_prob[1:])
  require(np.all(probs[~from_chance] == 1) and np.all((probs >= 0) & (probs <= 1)), "chance probabilities")
  sums = np.bincount(parent[from_chance], weights=probs[from_chance], minlength=h)
  require(np.allclose(sums[kind == CHANCE_NODE], 1.0, atol=1e-9), "chance probabilities sum to one")
  for p in range(NUM_PLAYERS):
    player = arrays.players[p]
    acting = kind == p
    infoset = np.asarray(arrays.infoset)
    require(np.all((infoset[acting] >= 0) & (infoset[acting] < player.num_infosets)), f"player {p}'s infoset ids")
    require(
      np.array_equal(player.num_actions[infoset[acting]], arrays.num_children[acting]), f"player {p}'s legal actions"
    )
    require(np.all((arrays.sequence[p] >= 0) & (arrays.sequence[p] < player.num_sequences)), f"player {p}'s sequences")
    require(
      np.all((player.parent_seq >= 0) & (player.parent_seq < player.num_sequences)), f"player {p}'s parent sequences"
    )
    levels = np.asarray(player.level_offsets, np.int64)
    require(
      levels[0] == 0 and levels[-1] == player.num_infosets and np.all(np.diff(levels) >= 0),
      f"player {p}'s treeplex levels",
    )
    require(
      player.action_ids.shape[0] == player.num_infosets and len(player.key_data) == player.num_infosets,
      f"player {p}'s infoset tables",
    )
  require(np.all(infoset[(kind == CHANCE_NODE) | (kind == TERMINAL_NODE)] == -1), "infosets of chance and terminals")
