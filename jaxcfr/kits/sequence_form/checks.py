"""The sequence form's checks: the structural invariants that arrays read from disk must pass, as
a fresh build does (breadth-first numbering, parents and children consistent, indices in range,
chance distributions that sum to one, finite utilities; O(H) vectorised work), and the kit's
conformance check of a loaded game (``check_game``)."""

from __future__ import annotations

import numpy as np

from jaxcfr.base.integrity import DamagedFileError
from jaxcfr.kits.sequence_form.arrays import CHANCE_NODE, NUM_PLAYERS, TERMINAL_NODE, GameArrays

__all__ = ["check_game_arrays", "check_game"]


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


def check_game(game) -> None:
  """The kit's conformance check of a loaded game: its arrays pass the structural checks and
  survive the cache format's round trip, its tensors agree with the arrays, and the uniform
  profile is valid with a finite, non-negative exploitability (AssertionError naming what
  failed)."""
  from jaxcfr.base import integrity  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits.sequence_form import evaluation  # pylint: disable=import-outside-toplevel

  arrays = game.arrays
  check_game_arrays(arrays)
  stored = integrity.verify_checksum(integrity.with_checksum(arrays.to_npz_dict()), f"{game.name} (round trip)")
  back = GameArrays.from_npz_dict(stored, tuple(p.key_decoder for p in arrays.players))
  for field in ("parent", "kind", "infoset", "utility", "chance_prob"):
    np.testing.assert_array_equal(getattr(back, field), getattr(arrays, field), err_msg=f"{game.name}: {field}")
  tensors = game.tensors
  assert [tp.legal.shape for tp in tensors.players] == [p.legal.shape for p in arrays.players], game.name
  np.testing.assert_array_equal(np.asarray(tensors.tree.kind), arrays.kind, err_msg=f"{game.name}: tree kinds")
  uniform = evaluation.uniform_profile(tensors)
  evaluation.check_profile(tensors, uniform)
  start = float(evaluation.exploitability(tensors, uniform))
  assert np.isfinite(start) and start >= -1e-6, f"{game.name}: the uniform profile's exploitability is {start}"
