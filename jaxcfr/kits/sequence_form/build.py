"""Builds GameArrays by walking a game through the small-game protocol (games/_base.py).

The walk is breadth-first, one depth at a time, and checks the rules as it goes: two
players, chance probabilities that are positive and sum to one, finite zero-sum returns,
the same legal actions at every history of an infoset, and perfect recall (every history
of an infoset is reached by the same sequence of the player's own infosets and actions).
Cost: a few microseconds of Python per history; big games use the vectorised builders.
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from jaxcfr.base import memory
from jaxcfr.games import GameBuildError
from jaxcfr.kits.sequence_form.arrays import CHANCE_NODE, NUM_PLAYERS, TERMINAL_NODE, GameArrays, PlayerArrays

__all__ = [
  "GameBuildError",
  "WALK_BYTES_PER_HISTORY",
  "estimate_histories",
  "build_from_protocol",
  "TemporaryTreeplex",
  "number_treeplex",
  "assemble_game_arrays",
]

_CHANCE, _TERMINAL = -1, -4  # the protocol's (OpenSpiel's) player ids
_METER_EVERY = 1 << 12  # histories between two readings of the walk's memory (memory.Meter)
# The tree walk's peak per history, at least: its lists and the states waiting at the next depth
# (measured 681 B on OpenSpiel's liar's dice, 1.7 KB on its imperfect-information Goofspiel(5)).
WALK_BYTES_PER_HISTORY = 512


def _num_children(state) -> int:
  player = state.current_player()
  if player == _TERMINAL:
    return 0
  return len(state.chance_outcomes()) if player == _CHANCE else len(state.legal_actions())


def _children(state, ks) -> list:
  """The children of ``state`` at positions ``ks`` of the walk's order (chance outcomes, or legal actions)."""
  if state.current_player() == _CHANCE:
    outcomes = state.chance_outcomes()
    return [state.child(outcomes[k][0]) for k in ks]
  actions = state.legal_actions()
  return [state.child(actions[k]) for k in ks]


def estimate_histories(root, name: str, room: memory.Limit | None = None, *, seconds=memory.ESTIMATE_SECONDS):
  """The number of histories of the game below ``root``, counted level by level without
  holding them: each depth keeps at most ``memory.FRONTIER`` of its states (a uniform sample
  of the previous sample's children, each standing for equally many), so the count is exact
  while no level is wider and an unbiased estimate after. Refuses (GameTooLargeError, through
  ``memory.check_estimate`` at ``WALK_BYTES_PER_HISTORY``) as soon as the histories so far are
  beyond the limit ``room``.

  Returns:
    (histories, exact), or None when ``seconds`` passed first (the walk's own meter decides).
  """
  room = room or memory.limit()
  rng = np.random.default_rng(0)
  level, weight, total, exact, depth = [root], 1.0, 0.0, True, 0
  deadline = time.monotonic() + seconds
  while level:
    total += weight * len(level)
    memory.check_estimate(total, depth, exact, name, room, WALK_BYTES_PER_HISTORY)
    if time.monotonic() > deadline:
      return None
    counts = np.array([_num_children(state) for state in level], np.int64)
    children = int(counts.sum())
    picks = np.arange(children)
    if children > memory.FRONTIER:
      picks = np.sort(rng.choice(children, memory.FRONTIER, replace=False))
      weight, exact = weight * children / memory.FRONTIER, False
    owner = np.searchsorted(np.cumsum(counts), picks, side="right")
    position = picks - (np.cumsum(counts) - counts)[owner]
    starts = np.flatnonzero(np.diff(owner, prepend=-1))  # picks grouped by their state, in order
    level = [
      child
      for a, b in zip(starts.tolist(), [*starts[1:].tolist(), len(picks)])
      for child in _children(level[owner[a]], position[a:b].tolist())
    ]
    depth += 1
  return total, exact


class _InfosetTable:
  """One player's infosets in discovery order, with their temporary sequence numbers."""

  def __init__(self, player: int):
    self.player = player
    self.ids: dict[str, int] = {}
    self.parent_seq: list[int] = []  # temporary sequence ids; 0 = empty
    self.actions: list[tuple] = []
    self.seq_base: list[int] = []
    self.first_history: list[int] = []
    self.num_sequences = 1

  def lookup(self, key: str, parent_seq: int, actions: tuple, history: int) -> int:
    infoset = self.ids.get(key)
    if infoset is None:
      infoset = self.ids[key] = len(self.parent_seq)
      self.parent_seq.append(parent_seq)
      self.actions.append(actions)
      self.seq_base.append(self.num_sequences)
      self.first_history.append(history)
      self.num_sequences += len(actions)
      return infoset
    if self.parent_seq[infoset] != parent_seq:
      raise GameBuildError(
        f"imperfect recall: player {self.player}'s infoset {key!r} is reached after "
        f"different sequences of the player's own actions; the sequence form needs "
        f"perfect recall"
      )
    if self.actions[infoset] != actions:
      raise GameBuildError(
        f"infoset {key!r} of player {self.player} has different legal actions at two of "
        f"its histories: {list(self.actions[infoset])} and {list(actions)}"
      )
    return infoset


def _check_chance(outcomes, where, tolerance: float) -> None:
  """``where()`` describes the node; called only for an error message."""
  if not outcomes:
    raise GameBuildError(f"chance node {where()} has no outcomes")
  probs = [p for _, p in outcomes]
  if any(not math.isfinite(p) or p <= 0 for p in probs):
    raise GameBuildError(f"chance node {where()} has a probability that is not positive and finite: {probs}")
  if abs(sum(probs) - 1.0) > tolerance:
    raise GameBuildError(f"chance probabilities at {where()} sum to {sum(probs)!r}, not 1")


def _check_returns(returns, where, tolerance: float) -> float:
  returns = list(returns)
  if len(returns) != NUM_PLAYERS:
    raise GameBuildError(f"terminal {where()} returns {len(returns)} utilities; jaxcfr needs two players")
  if not all(math.isfinite(u) for u in returns):
    raise GameBuildError(f"terminal {where()} has a utility that is not finite (NaN or inf): {returns}")
  if abs(returns[0] + returns[1]) > tolerance * max(1.0, abs(returns[0])):
    raise GameBuildError(f"terminal {where()} is not zero-sum: returns {returns}")
  return float(returns[0])


def build_from_protocol(root, name: str, *, tolerance: float = 1e-9, max_histories: int = 50_000_000) -> GameArrays:
  """Walks the game from ``root`` and returns its arrays.

  Args:
    root: the initial state (games/_base.py protocol, or an OpenSpiel state).
    name: the canonical game string, stored with the arrays.
    tolerance: for chance probabilities summing to one and returns summing to zero.
    max_histories: stop with an error beyond this many histories.
  Raises:
    memory.GameTooLargeError: before the walk, the game's estimated histories need more than
      the limit (``estimate_histories``); during it, the walk's memory grew past the limit
      (memory.Meter, read every 4,096 histories: the walk holds about 0.7-1.7 KB per
      history, most of it the protocol's states waiting at the next depth).
  """
  meter = memory.Meter(name)
  estimate_histories(root, name, meter.room)
  tables = [_InfosetTable(p) for p in range(NUM_PLAYERS)]
  parent, kind, infoset, action_index, action_id = [], [], [], [], []
  chance_prob, utility, num_children, seq0, seq1 = [], [], [], [], []
  depth_offsets = [0]
  # Per pending node: (state, parent, action index, action id, edge prob, own seqs).
  level = [(root, -1, -1, -1, 1.0, (0, 0))]
  while level:
    next_level = []
    for state, par, a_index, a_id, prob, seqs in level:
      history = len(parent)
      if not history % _METER_EVERY:
        meter.check(
          f"{history:,} histories walked, {len(next_level):,} states waiting at depth {len(depth_offsets)}",
          more=history * memory.BYTES_PER_HISTORY,  # the arrays made from the lists at the end
        )
      parent.append(par)
      action_index.append(a_index)
      action_id.append(a_id)
      chance_prob.append(prob)
      seq0.append(seqs[0])
      seq1.append(seqs[1])
      player = state.current_player()
      if player == _TERMINAL:
        kind.append(TERMINAL_NODE)
        infoset.append(-1)
        utility.append(
          _check_returns(state.returns(), lambda: f"{_path(parent, action_id, history)} of {name}", tolerance)
        )
        num_children.append(0)
        continue
      utility.append(0.0)
      if player == _CHANCE:
        outcomes = list(state.chance_outcomes())
        _check_chance(outcomes, lambda: f"{_path(parent, action_id, history)} of {name}", tolerance)
        kind.append(CHANCE_NODE)
        infoset.append(-1)
        for index, (action, p) in enumerate(outcomes):
          next_level.append((state.child(action), history, index, action, float(p), seqs))
        num_children.append(len(outcomes))
        continue
      if player not in (0, 1):
        raise GameBuildError(
          f"{name}: current_player() returned {player}; jaxcfr needs two players and turn-based play"
        )
      actions = tuple(state.legal_actions())
      if not actions:
        raise GameBuildError(f"{name}: a decision node has no legal actions")
      key = state.information_state_string(player)
      table = tables[player]
      info = table.lookup(key, seqs[player], actions, history)
      kind.append(player)
      infoset.append(info)
      base = table.seq_base[info]
      for index, action in enumerate(actions):
        child_seqs = (base + index, seqs[1]) if player == 0 else (seqs[0], base + index)
        next_level.append((state.child(action), history, index, action, 1.0, child_seqs))
      num_children.append(len(actions))
    depth_offsets.append(len(parent))
    if len(parent) + len(next_level) > max_histories:
      raise GameBuildError(f"{name} has more than {max_histories} histories; use a vectorised builder")
    level = next_level
  return _finish(
    name,
    tables,
    parent,
    kind,
    infoset,
    action_index,
    action_id,
    chance_prob,
    utility,
    num_children,
    np.array([seq0, seq1]),
    depth_offsets,
  )


def _path(parent: list, action_id: list, history: int) -> str:
  actions = []
  while parent[history] >= 0:
    actions.append(action_id[history])
    history = parent[history]
  return "[" + " ".join(map(str, actions[::-1])) + "]"


def _finish(
  name,
  tables,
  parent,
  kind,
  infoset,
  action_index,
  action_id,
  chance_prob,
  utility,
  num_children,
  temp_sequence,
  depth_offsets,
) -> GameArrays:
  """The tree walk's lists and infoset tables -> GameArrays (see ``assemble_game_arrays``)."""
  treeplexes = []
  for table in tables:
    num_actions = np.array([len(a) for a in table.actions], np.int32)
    keys = np.empty(len(table.ids), dtype=object)
    for key, i in table.ids.items():
      keys[i] = key
    treeplexes.append(
      TemporaryTreeplex(
        parent_seq=np.array(table.parent_seq, np.int64),
        num_actions=num_actions,
        seq_action_id=np.array([-1] + [a for actions in table.actions for a in actions], np.int32),
        key_data=keys.astype(str) if len(keys) else np.array([], dtype=str),
        first_history=np.array(table.first_history, np.int64),
      )
    )
  return assemble_game_arrays(
    name,
    treeplexes,
    parent=np.array(parent, np.int32),
    kind=np.array(kind, np.int8),
    infoset=np.array(infoset, np.int32),
    action_index=np.array(action_index, np.int32),
    action_id=np.array(action_id, np.int32),
    chance_prob=np.array(chance_prob, np.float64),
    utility=np.array(utility, np.float64),
    num_children=np.array(num_children, np.int32),
    temp_sequence=np.asarray(temp_sequence),
    depth_offsets=np.array(depth_offsets, np.int64),
  )


@dataclasses.dataclass
class TemporaryTreeplex:
  """One player's infosets in discovery order (breadth-first order of first appearance),
  before the renumbering by treeplex depth. ``I`` infosets, ``S`` temporary sequences.

  The temporary sequences of infoset ``i`` are ``1 + cumsum(num_actions)[:i].sum() + a``,
  i.e. sequences in discovery order, 0 = the empty sequence.

  Attributes:
    parent_seq: [I] int, temporary id of the sequence leading to each infoset.
    num_actions: [I] int32.
    seq_action_id: [S] int32, the action id of each temporary sequence (-1 at 0).
    key_data: [I] str information-state keys, or [I] int64 infoset codes (vectorised rules).
    first_history: [I] int64, the first history (breadth-first) of each infoset.
    key_decoder: codes -> str keys, for int64 key_data (see arrays.PlayerArrays).
  """

  parent_seq: np.ndarray
  num_actions: np.ndarray
  seq_action_id: np.ndarray
  key_data: np.ndarray
  first_history: np.ndarray
  key_decoder: object = None


def _exclusive_cumsum(values: np.ndarray) -> np.ndarray:
  out = np.zeros(len(values), np.int64)
  np.cumsum(values[:-1], out=out[1:])
  return out


def _compact_strings(keys: np.ndarray) -> np.ndarray:
  """A str array in the narrowest fixed width that holds its longest string."""
  keys = keys.astype(str)
  return keys.astype(f"U{max(int(np.char.str_len(keys).max()), 1)}")


def _key_data(key_data: np.ndarray, order: np.ndarray) -> np.ndarray:
  """Keys (compact strings) or codes (int64) in the new infoset order."""
  if key_data.dtype.kind in "US" or key_data.dtype == object:
    return _compact_strings(key_data[order]) if len(order) else np.array([], dtype=str)
  return np.asarray(key_data, np.int64)[order]


def number_treeplex(table: TemporaryTreeplex) -> tuple[PlayerArrays, np.ndarray, np.ndarray]:
  """Renumbers one player's infosets by treeplex depth (stable: discovery order within a
  depth) and the sequences to match (arrays.py's layout).

  Returns:
    (the PlayerArrays, new_infoset [I] int64 (temporary id -> new id),
     new_sequence [S] int32 (temporary sequence id -> new sequence id)).
  """
  n = len(table.num_actions)
  num_actions = np.asarray(table.num_actions, np.int32)
  temp_parent_seq = np.asarray(table.parent_seq, np.int64)
  num_seqs = 1 + int(num_actions.sum())
  seq_owner = np.concatenate([[-1], np.repeat(np.arange(n), num_actions)])  # [S] infoset of each sequence
  parent_owner = seq_owner[temp_parent_seq]
  # Treeplex depth: parents are discovered before their children, so iterating
  # ``depth = depth[parent's infoset] + 1`` reaches the fixpoint within (max depth + 1) rounds.
  depth = np.zeros(n, np.int64)
  has_parent = parent_owner >= 0
  while True:
    new_depth = np.where(has_parent, depth[np.maximum(parent_owner, 0)] + 1, 0)
    if np.array_equal(new_depth, depth):
      break
    depth = new_depth
  order = np.argsort(depth, kind="stable")  # new id -> temporary id
  new_infoset = np.empty(n, np.int64)
  new_infoset[order] = np.arange(n)
  new_num_actions = num_actions[order]
  new_offset = _exclusive_cumsum(new_num_actions)
  # Temporary sequence s = 1 + temp_offset[i] + a  ->  1 + new_offset[new_infoset[i]] + a.
  temp_offset = _exclusive_cumsum(num_actions)
  new_sequence = np.zeros(num_seqs, np.int32)
  owners = seq_owner[1:]
  new_sequence[1:] = np.arange(1, num_seqs) - temp_offset[owners] + new_offset[new_infoset[owners]]
  max_actions = int(num_actions.max()) if n else 1
  action_ids = np.full((n, max_actions), -1, np.int32)
  legal = np.arange(max_actions)[None, :] < new_num_actions[:, None]
  action_id_by_new_sequence = np.empty(num_seqs - 1, np.int32)
  action_id_by_new_sequence[new_sequence[1:] - 1] = table.seq_action_id[1:]
  action_ids[legal] = action_id_by_new_sequence
  level_offsets = np.searchsorted(depth[order], np.arange(depth.max() + 2 if n else 1)).astype(np.int64)
  player = PlayerArrays(
    parent_seq=new_sequence[temp_parent_seq[order]].astype(np.int32),
    num_actions=new_num_actions,
    level_offsets=level_offsets,
    action_ids=action_ids,
    key_data=_key_data(np.asarray(table.key_data), order),
    first_history=np.asarray(table.first_history, np.int64)[order],
    key_decoder=table.key_decoder,
  )
  return player, new_infoset, new_sequence


def assemble_game_arrays(
  name: str,
  treeplexes,
  *,
  parent,
  kind,
  infoset,
  action_index,
  action_id,
  chance_prob,
  utility,
  num_children,
  temp_sequence,
  depth_offsets,
) -> GameArrays:
  """GameArrays from breadth-first history arrays that use temporary infoset and sequence
  ids (one TemporaryTreeplex per player); renumbers them in place (see ``number_treeplex``).

  Args:
    treeplexes: one TemporaryTreeplex per player.
    parent, kind, infoset, action_index, action_id, chance_prob, utility, num_children: [H]
      arrays in the dtypes of GameArrays; ``infoset`` holds temporary ids.
    temp_sequence: [2, H] each player's last own temporary sequence before each history.
    depth_offsets: [D + 1] int64.
  """
  sequence = np.empty(temp_sequence.shape, np.int32)
  players = []
  for p, table in enumerate(treeplexes):
    player, new_infoset, new_sequence = number_treeplex(table)
    players.append(player)
    np.take(new_sequence, temp_sequence[p], out=sequence[p])
    mine = np.flatnonzero(kind == p)
    infoset[mine] = new_infoset[infoset[mine]]
    del mine
  return GameArrays(
    name=name,
    parent=parent,
    kind=kind,
    infoset=infoset,
    action_index=action_index,
    action_id=action_id,
    chance_prob=chance_prob,
    utility=utility,
    num_children=num_children,
    sequence=sequence,
    depth_offsets=depth_offsets,
    players=tuple(players),
  )
