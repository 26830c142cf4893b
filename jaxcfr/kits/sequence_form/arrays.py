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
import functools
from collections.abc import Callable

import numpy as np

from jaxcfr.games import CHANCE_NODE, PLAYER_0, PLAYER_1, TERMINAL_NODE, GameInfo  # node kinds: the rules' own

__all__ = [
  "PLAYER_0",
  "PLAYER_1",
  "CHANCE_NODE",
  "TERMINAL_NODE",
  "NUM_PLAYERS",
  "FORMAT_VERSION",
  "index_dtype",
  "first_children",
  "PlayerArrays",
  "GameArrays",
]

NUM_PLAYERS = 2
FORMAT_VERSION = 2  # 2: first_child derived, not stored; keys as key_data (str or int64 codes)


def index_dtype(size: int):
  """int32 for indices below ``size`` when they fit, else int64."""
  return np.int32 if size < 2**31 else np.int64


def first_children(num_children: np.ndarray) -> np.ndarray:
  """[H] index of each history's first child (breadth-first: ``1 + exclusive cumsum``),
  int32 when the histories fit (see ``index_dtype``)."""
  out = np.empty(len(num_children), index_dtype(len(num_children) + 1))
  if len(out):
    out[0] = 1
    np.cumsum(num_children[:-1], out=out[1:])
    out[1:] += 1
  return out


@dataclasses.dataclass(frozen=True)
class PlayerArrays:
  """One player's treeplex. ``I`` infosets, ``A`` = max legal actions, ``S`` sequences.

  Attributes:
    parent_seq: [I] int32, the sequence that leads to each infoset (0 = empty).
    num_actions: [I] int32, legal actions per infoset.
    level_offsets: [L + 1] int64, infosets of treeplex depth ``l`` are
      ``level_offsets[l]:level_offsets[l + 1]``.
    action_ids: [I, A] int32, the game's action id of each legal action, -1 = padding.
    key_data: [I] str information-state keys (tree-walk and OpenSpiel builds), or [I]
      int64 exact infoset codes of vectorised rules (8 bytes an infoset instead of a
      string), turned into keys on demand by ``key_decoder``. Read keys from ``keys``.
    first_history: [I] int64, one history in each infoset (replayable by ``action_id``).
    key_decoder: codes [K] int64 -> [K] str keys (the rules' ``infoset_keys`` for this
      player); not stored on disk (``jaxcfr.load`` attaches it), None for str key_data.
  """

  parent_seq: np.ndarray
  num_actions: np.ndarray
  level_offsets: np.ndarray
  action_ids: np.ndarray
  key_data: np.ndarray
  first_history: np.ndarray
  key_decoder: Callable | None = dataclasses.field(default=None, compare=False, repr=False)

  @functools.cached_property
  def keys(self) -> np.ndarray:
    """[I] str, the information-state key of each infoset (decoded once, on first use)."""
    if not len(self.key_data):
      return np.array([], dtype=str)
    if self.key_data.dtype.kind in "US":
      return self.key_data.astype(str)
    if self.key_decoder is None:
      raise ValueError(
        "these infoset keys are codes of vectorised rules and no decoder is attached; "
        "load the game with jaxcfr.load (or build_vectorized) to read its keys"
      )
    keys = np.asarray(self.key_decoder(np.asarray(self.key_data, np.int64))).astype(str)
    return keys.astype(f"U{max(int(np.char.str_len(keys).max()), 1)}")  # as narrow as the tree walk's

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
    num_children: [H] int32. (``first_child``, the index of each history's first child, is
      derived from it on first use and not stored.)
    sequence: [2, H] int32, each player's last own sequence before the history.
    depth_offsets: [D + 1] int64, histories of depth d are ``depth_offsets[d]:[d + 1]``.
    players: one PlayerArrays per player.
    info: the GameInfo the game declares (jaxcfr.games.GameInfo); not stored on disk
      (``jaxcfr.load`` attaches the rules' own, the OpenSpiel adapter derives one).
  """

  name: str
  parent: np.ndarray
  kind: np.ndarray
  infoset: np.ndarray
  action_index: np.ndarray
  action_id: np.ndarray
  chance_prob: np.ndarray
  utility: np.ndarray
  num_children: np.ndarray
  sequence: np.ndarray
  depth_offsets: np.ndarray
  players: tuple[PlayerArrays, PlayerArrays]
  info: GameInfo = dataclasses.field(default=GameInfo(), compare=False)

  @property
  def num_histories(self) -> int:
    return int(self.parent.shape[0])

  @functools.cached_property
  def first_child(self) -> np.ndarray:
    """[H] int32 (int64 beyond 2^31 histories), index of the first child (children are
    contiguous); computed from ``num_children`` on first use."""
    return first_children(self.num_children)

  def with_info(self, info: GameInfo) -> GameArrays:
    """The same arrays declaring ``info`` (see GameInfo)."""
    return dataclasses.replace(self, info=info)

  def with_key_decoders(self, decoders) -> GameArrays:
    """The same arrays with one key decoder per player (see PlayerArrays.key_decoder)."""
    players = tuple(dataclasses.replace(p, key_decoder=d) for p, d in zip(self.players, decoders))
    return dataclasses.replace(self, players=players)

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
      if field.name not in ("name", "players", "info"):
        out[field.name] = getattr(self, field.name)
    for p, player in enumerate(self.players):
      for field in _stored_fields(PlayerArrays):
        out[f"p{p}_{field.name}"] = getattr(player, field.name)
    return out

  @classmethod
  def from_npz_dict(cls, data, key_decoders=(None, None)) -> GameArrays:
    """The inverse of ``to_npz_dict``; ``key_decoders``: one per player (see PlayerArrays)."""
    if int(data["format_version"]) != FORMAT_VERSION:
      raise ValueError("cached game arrays have an old format version")
    players = tuple(
      PlayerArrays(
        **{f.name: data[f"p{p}_{f.name}"] for f in _stored_fields(PlayerArrays)}, key_decoder=key_decoders[p]
      )
      for p in range(NUM_PLAYERS)
    )
    fields = {f.name: data[f.name] for f in dataclasses.fields(cls) if f.name not in ("name", "players", "info")}
    return cls(name=str(data["name"]), players=players, **fields)


def _stored_fields(cls):
  return [f for f in dataclasses.fields(cls) if f.name != "key_decoder"]
