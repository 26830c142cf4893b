"""The built game as NumPy arrays: what the builders produce, the disk cache stores, and
``tensors.py`` moves to the device.

Histories are numbered breadth-first: each depth is a contiguous slice and the children of
a node are contiguous. Per player, information sets are numbered by treeplex depth (the
number of the player's own earlier actions), so every level of the top-down and bottom-up
passes is a contiguous slice; sequence ``0`` is the empty sequence and the sequences of
infoset ``I`` are ``1 + seq_offset[I] + a`` for its legal actions ``a``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

# Node kinds in ``GameArrays.kind``.
PLAYER_0, PLAYER_1, CHANCE_NODE, TERMINAL_NODE = 0, 1, 2, 3
NUM_PLAYERS = 2
FORMAT_VERSION = 1


@dataclasses.dataclass(frozen=True)
class PlayerArrays:
  """One player's treeplex. ``I`` infosets, ``A`` = max legal actions, ``S`` sequences.

  Attributes:
    parent_seq: [I] int32, the sequence that leads to each infoset (0 = empty).
    num_actions: [I] int32, legal actions per infoset.
    level_offsets: [L + 1] int64, infosets of treeplex depth ``l`` are
      ``level_offsets[l]:level_offsets[l + 1]``.
    action_ids: [I, A] int32, the game's action id of each legal action, -1 = padding.
    keys: [I] str, the information-state key of each infoset.
    first_history: [I] int64, one history in each infoset (replayable by ``action_id``).
  """

  parent_seq: np.ndarray
  num_actions: np.ndarray
  level_offsets: np.ndarray
  action_ids: np.ndarray
  keys: np.ndarray
  first_history: np.ndarray

  @property
  def num_infosets(self) -> int:
    return int(self.num_actions.shape[0])

  @property
  def num_sequences(self) -> int:
    return 1 + int(self.num_actions.sum())

  @property
  def max_actions(self) -> int:
    return int(self.action_ids.shape[1])

  @property
  def legal(self) -> np.ndarray:
    """[I, A] bool, True = legal (the one mask convention everywhere)."""
    return np.arange(self.max_actions)[None, :] < self.num_actions[:, None]

  @property
  def seq_offset(self) -> np.ndarray:
    """[I] int64, sequences of infoset I are ``1 + seq_offset[I] + a``."""
    return np.concatenate([[0], np.cumsum(self.num_actions)[:-1]]).astype(np.int64)

  @property
  def sequences(self) -> np.ndarray:
    """[I, A] int32 sequence ids, 0 at padding (masked by ``legal``)."""
    seqs = 1 + self.seq_offset[:, None] + np.arange(self.max_actions)[None, :]
    return np.where(self.legal, seqs, 0).astype(np.int32)


@dataclasses.dataclass(frozen=True)
class GameArrays:
  """A whole game. ``H`` histories.

  Attributes:
    name: the canonical game string, e.g. ``one_card_poker(num_cards=13)``.
    parent: [H] int32, -1 at the root.
    kind: [H] int8, PLAYER_0, PLAYER_1, CHANCE_NODE or TERMINAL_NODE.
    infoset: [H] int32, the acting player's infoset id, -1 at chance and terminals.
    action_index: [H] int32, position of the incoming action among the parent's actions.
    action_id: [H] int32, the game's id of the incoming action (-1 at the root).
    chance_prob: [H] float64, probability of the incoming edge (1 unless from chance).
    utility: [H] float64, player 0's utility at terminals, 0 elsewhere.
    first_child: [H] int64, index of the first child (children are contiguous).
    num_children: [H] int32.
    sequence: [2, H] int32, each player's last own sequence before the history.
    depth_offsets: [D + 1] int64, histories of depth d are ``depth_offsets[d]:[d + 1]``.
    players: one PlayerArrays per player.
  """

  name: str
  parent: np.ndarray
  kind: np.ndarray
  infoset: np.ndarray
  action_index: np.ndarray
  action_id: np.ndarray
  chance_prob: np.ndarray
  utility: np.ndarray
  first_child: np.ndarray
  num_children: np.ndarray
  sequence: np.ndarray
  depth_offsets: np.ndarray
  players: tuple[PlayerArrays, PlayerArrays]

  @property
  def num_histories(self) -> int:
    return int(self.parent.shape[0])

  def chance_reach(self) -> np.ndarray:
    """[H] product of chance probabilities on the path to each history."""
    reach = self.chance_prob.copy()
    for d in range(1, len(self.depth_offsets) - 1):
      lo, hi = self.depth_offsets[d], self.depth_offsets[d + 1]
      reach[lo:hi] *= reach[self.parent[lo:hi]]
    return reach

  def history_actions(self, history: int) -> list[int]:
    """The game's action ids from the root to ``history`` (chance outcomes included)."""
    actions = []
    while self.parent[history] >= 0:
      actions.append(int(self.action_id[history]))
      history = self.parent[history]
    return actions[::-1]

  # --- disk format: plain arrays, loaded with allow_pickle=False -----------------------

  def to_npz_dict(self) -> dict[str, np.ndarray]:
    out = {"format_version": np.array(FORMAT_VERSION), "name": np.array(self.name)}
    for field in dataclasses.fields(self):
      if field.name not in ("name", "players"):
        out[field.name] = getattr(self, field.name)
    for p, player in enumerate(self.players):
      for field in dataclasses.fields(player):
        out[f"p{p}_{field.name}"] = getattr(player, field.name)
    return out

  @classmethod
  def from_npz_dict(cls, data) -> "GameArrays":
    if int(data["format_version"]) != FORMAT_VERSION:
      raise ValueError("cached game arrays have an old format version")
    players = tuple(
        PlayerArrays(**{f.name: data[f"p{p}_{f.name}"] for f in dataclasses.fields(PlayerArrays)})
        for p in range(NUM_PLAYERS))
    fields = {f.name: data[f.name] for f in dataclasses.fields(cls) if f.name not in ("name", "players")}
    return cls(name=str(data["name"]), players=players, **fields)
