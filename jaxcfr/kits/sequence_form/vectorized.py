"""A level-synchronous builder: GameArrays from vectorised rules (docs/design.md section 3,
"Building big games").

The tree-walk builder (build.py) spends microseconds of Python per history; the games of
Lanctot et al. 2009 Table 1 have 10^7-10^8. Here one depth level of the tree is one batch of states,
a dict of NumPy arrays with a leading axis ``[N]``, and the rules answer for the whole batch
at once (``VectorizedRules``). Infoset ids come from exact integer codes of the acting
player's information state (``np.unique`` / ``np.searchsorted`` against the codes seen at
earlier levels), sequence ids from offsets, and the result is renumbered by the same code
as the tree walk (``build.assemble_game_arrays``).

Numbering: infosets get temporary ids in order of first appearance in breadth-first order
(the tree walk's order), so on every game that has both kinds of rules the two builders
return identical arrays; the one difference is that the vectorised arrays hold the rules'
int64 infoset codes (``key_data``) instead of key strings, and decode the same keys on
demand (``PlayerArrays.keys``).

The builder checks what the tree walk checks: chance probabilities positive and summing to
one, finite utilities, the same legal actions at every history of an infoset, and perfect
recall (every history of an infoset has the same parent sequence).
"""

from __future__ import annotations

import functools
import time
from typing import Protocol

import numpy as np

from jaxcfr.base import memory
from jaxcfr.kits.sequence_form.arrays import CHANCE_NODE, NUM_PLAYERS, PLAYER_0, PLAYER_1, TERMINAL_NODE, GameArrays
from jaxcfr.kits.sequence_form.build import GameBuildError, TemporaryTreeplex, assemble_game_arrays

__all__ = ["VectorizedRules", "take", "ragged_arange", "key_decoder", "estimate_histories", "build_vectorized"]

States = dict  # str -> np.ndarray with a leading axis [N]


class VectorizedRules(Protocol):
  """The rules of a game over batches of states.

  Every method takes a batch ``states`` (a dict of arrays with a leading axis ``[N]``).
  """

  name: str
  params: dict

  def initial_states(self) -> States:
    """The root, as a batch of one state."""

  def node_kind(self, states: States) -> np.ndarray:
    """[N] int: PLAYER_0, PLAYER_1, CHANCE_NODE or TERMINAL_NODE (arrays.py)."""

  def expand(self, states: States) -> tuple[np.ndarray, np.ndarray, np.ndarray, States]:
    """Children of non-terminal states.

    Returns:
      (parent, action_id, chance_prob, children): ``parent`` [M] int, the index of each
      child's parent in ``states``, non-decreasing; ``action_id`` [M] int, ascending within
      a parent (the order of legal_actions or chance_outcomes of the small-game protocol);
      ``chance_prob`` [M] float, the edge probability (1 below decision nodes);
      ``children``, a batch of M states.
    """

  def utility(self, states: States) -> np.ndarray:
    """[N] float, player 0's utility at terminal states."""

  def infoset_code(self, states: States, player: int) -> np.ndarray:
    """[N] int64, an exact code of ``player``'s information state at states where the
    player acts: equal codes exactly for histories the player cannot tell apart."""

  def infoset_keys(self, player: int, codes: np.ndarray) -> np.ndarray:
    """[K] str, the information-state key of each code (the small-game protocol's
    ``information_state_string``)."""


def take(states: States, index) -> States:
  """The sub-batch ``states[index]`` (an index array or a boolean mask)."""
  return {name: values[index] for name, values in states.items()}


def ragged_arange(counts: np.ndarray) -> np.ndarray:
  """``concatenate([arange(c) for c in counts])`` without a Python loop."""
  counts = np.asarray(counts, np.int64)
  total = int(counts.sum())
  starts = np.repeat(np.cumsum(counts) - counts, counts)
  return np.arange(total, dtype=np.int64) - starts


def key_decoder(rules: VectorizedRules, player: int):
  """codes [K] int64 -> [K] str keys of ``player`` (the rules' ``infoset_keys``)."""
  return functools.partial(rules.infoset_keys, player)


class _InfosetTable:
  """One player's infosets, numbered in order of first appearance (breadth-first)."""

  def __init__(self, player: int):
    self.player = player
    self.sorted_codes = np.zeros(0, np.int64)
    self.sorted_ids = np.zeros(0, np.int64)
    self.parent_seq = np.zeros(0, np.int64)  # [I] temporary sequence ids
    self.num_actions = np.zeros(0, np.int32)
    self.seq_base = np.zeros(0, np.int64)  # [I] first temporary sequence of each infoset
    self.codes: list[np.ndarray] = []  # chunks in id order
    self.first_history: list[np.ndarray] = []
    self.seq_action_id: list[np.ndarray] = [np.array([-1], np.int32)]
    self.num_sequences = 1

  @property
  def num_infosets(self) -> int:
    return len(self.num_actions)

  def lookup(self, codes, history, parent_seq, num_children, child_start, child_action_id, rules) -> np.ndarray:
    """Infoset ids of one level's decision histories of this player; registers new ones.

    Args:
      codes: [N] int64 infoset codes.
      history: [N] int64 global history ids.
      parent_seq: [N] int64 the player's temporary sequence at each history.
      num_children: [N] int32.
      child_start: [N] int64 position of each history's first child in ``child_action_id``.
      child_action_id: [M] the level's children's action ids.
    """
    ids = np.empty(len(codes), np.int64)
    pos = np.searchsorted(self.sorted_codes, codes)
    found = pos < len(self.sorted_codes)
    found[found] = self.sorted_codes[pos[found]] == codes[found]
    ids[found] = self.sorted_ids[pos[found]]
    new = np.flatnonzero(~found)
    if len(new):
      unique_codes, first_index, inverse = np.unique(codes[new], return_index=True, return_inverse=True)
      appearance = np.argsort(first_index, kind="stable")  # new infosets in breadth-first order
      id_of_unique = np.empty(len(unique_codes), np.int64)
      id_of_unique[appearance] = self.num_infosets + np.arange(len(unique_codes))
      ids[new] = id_of_unique[inverse.ravel()]
      first = new[first_index[appearance]]  # local index of each new infoset's first history
      num_actions = num_children[first].astype(np.int32)
      seq_base = self.num_sequences + np.concatenate([[0], np.cumsum(num_actions[:-1], dtype=np.int64)])
      self.codes.append(unique_codes[appearance])
      self.first_history.append(history[first])
      self.parent_seq = np.concatenate([self.parent_seq, parent_seq[first]])
      self.num_actions = np.concatenate([self.num_actions, num_actions])
      self.seq_base = np.concatenate([self.seq_base, seq_base])
      children = np.repeat(child_start[first], num_actions) + ragged_arange(num_actions)
      self.seq_action_id.append(child_action_id[children].astype(np.int32))
      self.num_sequences += int(num_actions.sum())
      order = np.argsort(np.concatenate([self.sorted_codes, unique_codes]), kind="stable")
      self.sorted_codes = np.concatenate([self.sorted_codes, unique_codes])[order]
      self.sorted_ids = np.concatenate([self.sorted_ids, id_of_unique])[order]
    self._check(ids, codes, parent_seq, num_children, child_start, child_action_id, rules)
    return ids

  def _check(self, ids, codes, parent_seq, num_children, child_start, child_action_id, rules):
    bad = np.flatnonzero(self.parent_seq[ids] != parent_seq)
    if len(bad):
      raise GameBuildError(
        f"imperfect recall: player {self.player}'s infoset {self._key(rules, codes[bad[0]])!r} is "
        f"reached after different sequences of the player's own actions; the sequence form "
        f"needs perfect recall"
      )
    bad = np.flatnonzero(self.num_actions[ids] != num_children)
    if not len(bad):
      children = np.repeat(child_start, num_children) + ragged_arange(num_children)
      action_index = ragged_arange(num_children)
      expected = np.concatenate(self.seq_action_id)[np.repeat(self.seq_base[ids], num_children) + action_index]
      wrong = np.flatnonzero(expected != child_action_id[children])
      bad = np.unique(np.repeat(np.arange(len(ids)), num_children)[wrong])
    if len(bad):
      raise GameBuildError(
        f"infoset {self._key(rules, codes[bad[0]])!r} of player {self.player} has different legal "
        f"actions at two of its histories"
      )

  def _key(self, rules, code) -> str:
    return str(rules.infoset_keys(self.player, np.array([code], np.int64))[0])

  def temporary_treeplex(self, rules) -> TemporaryTreeplex:
    codes = np.concatenate(self.codes) if self.codes else np.zeros(0, np.int64)
    return TemporaryTreeplex(
      parent_seq=self.parent_seq,
      num_actions=self.num_actions,
      seq_action_id=np.concatenate(self.seq_action_id),
      key_data=codes,  # keys are decoded from the codes on demand (arrays.PlayerArrays.keys)
      first_history=np.concatenate(self.first_history) if self.first_history else np.zeros(0, np.int64),
      key_decoder=key_decoder(rules, self.player),
    )


def _check_level(kind, utility, chance_parent, chance_prob, is_chance_parent, name, depth, tolerance):
  """Node kinds, finite utilities, and chance probabilities (positive, summing to one)."""
  if np.any((kind < PLAYER_0) | (kind > TERMINAL_NODE)):
    raise GameBuildError(f"{name}: node_kind returned a value outside 0..3 at depth {depth}")
  if not np.all(np.isfinite(utility)):
    raise GameBuildError(f"{name}: a terminal at depth {depth} has a utility that is not finite (NaN or inf)")
  if not np.all(np.isfinite(chance_prob) & (chance_prob > 0)):
    raise GameBuildError(f"{name}: a chance probability at depth {depth} is not positive and finite")
  totals = np.bincount(chance_parent, weights=chance_prob, minlength=len(is_chance_parent))[is_chance_parent]
  if np.any(np.abs(totals - 1.0) > tolerance):
    worst = totals[np.argmax(np.abs(totals - 1.0))]
    raise GameBuildError(f"{name}: chance probabilities at depth {depth} sum to {worst!r}, not 1")


_PROBE = 256  # states of a level expanded first, to price the whole level
_CHILDREN_AT_ONCE = 1 << 18  # children an estimate makes in one expansion


def _size(states: States) -> int:
  return len(next(iter(states.values()))) if states else 0


def estimate_histories(rules: VectorizedRules, name: str, room: memory.Limit | None = None, *, seconds=None):
  """The number of histories of the game, counted level by level without holding them (the
  vectorised twin of jaxcfr.kits.sequence_form.build.estimate_histories): each depth keeps at
  most ``memory.FRONTIER`` states, children drawn with one probability from the previous
  sample's (expanded ``_CHILDREN_AT_ONCE`` children at a time, the rate from a first few), each
  standing for equally many; exact while no level is wider. Refuses (GameTooLargeError,
  ``memory.check_estimate`` at ``memory.BYTES_PER_HISTORY``) as soon as the histories so far,
  or the next level extrapolated from its first states, are beyond the limit ``room``.

  Returns:
    (histories, exact), or None when ``seconds`` (default ``memory.ESTIMATE_SECONDS``) passed
    first (the build's own probes decide).
  """
  room = room or memory.limit()
  rng = np.random.default_rng(0)
  deadline = time.monotonic() + (memory.ESTIMATE_SECONDS if seconds is None else seconds)
  states, weight, total, exact, depth = rules.initial_states(), 1.0, 0.0, True, 0
  while _size(states):
    total += weight * _size(states)
    memory.check_estimate(total, depth, exact, name, room)
    expanding = np.flatnonzero(np.asarray(rules.node_kind(states)) != TERMINAL_NODE)
    if not len(expanding) or time.monotonic() > deadline:
      return (total, exact) if not len(expanding) else None
    first = expanding[: min(len(expanding), 8)]
    per_state = len(rules.expand(take(states, first))[0]) / len(first)  # the rate of the first few
    whole = exact and len(first) == len(expanding)
    memory.check_estimate(total + weight * per_state * len(expanding), depth + 1, whole, name, room)
    keep = min(1.0, memory.FRONTIER / max(per_state * len(expanding), 1.0))
    step = max(1, int(_CHILDREN_AT_ONCE // max(per_state, 1.0)))
    kept, count = [], 0
    for start in range(0, len(expanding), step):
      parent, _, _, children = rules.expand(take(states, expanding[start : start + step]))
      count += len(parent)
      kept.append(take(children, rng.random(len(parent)) < keep) if keep < 1 else children)
    states = {k: np.concatenate([c[k] for c in kept]) for k in kept[0]}
    depth += 1
    if keep < 1:  # the kept children stand for the whole level: weight * count histories
      if not _size(states):  # none drawn (the first few misled the rate): the level is counted, not walked
        return total + weight * count, False
      weight, exact = weight * count / _size(states), False
  return total, exact


def _check_growth(rules, states, expanding, histories: int, name: str, depth: int, room: memory.Limit) -> None:
  """Prices the next level from its children on an evenly spread sample of ``expanding``
  (a level of up to ``_PROBE`` states is priced whole) and stops the build with
  GameTooLargeError before the level is allocated if the tree so far, the next level and its
  states exceed the memory limit."""
  sample = np.unique(np.linspace(0, len(expanding) - 1, min(len(expanding), _PROBE)).astype(np.int64))
  parent_local, _, _, children = rules.expand(take(states, expanding[sample]))
  scale = len(expanding) / len(sample)
  next_level = len(parent_local) * scale
  state_bytes = sum(np.asarray(v).nbytes for v in children.values()) * scale
  memory.check(
    (histories + next_level) * memory.BYTES_PER_HISTORY + state_bytes,
    name,
    f"{histories:,} histories to depth {depth} and about {next_level:,.0f} at depth {depth + 1}",
    room,
  )


def build_vectorized(rules: VectorizedRules, name: str, *, tolerance: float = 1e-9) -> GameArrays:
  """Builds the arrays of a game from vectorised rules, one depth level at a time.

  Memory: the finished arrays (about 45 bytes per history, plus 8 bytes per infoset code
  and the [I, A] action ids) plus one level of states and their children; each field is
  concatenated from its per-level chunks separately. Infoset keys are not built: the
  arrays keep the rules' integer codes and decode keys on demand.

  Args:
    rules: the game's VectorizedRules.
    name: the canonical game string, stored with the arrays.
    tolerance: for chance probabilities summing to one.
  """
  room = memory.limit()
  estimate_histories(rules, name, room)
  tables = [_InfosetTable(p) for p in range(NUM_PLAYERS)]
  chunks = {
    field: []
    for field in (
      "parent",
      "kind",
      "infoset",
      "action_index",
      "action_id",
      "chance_prob",
      "utility",
      "num_children",
      "temp_sequence",
    )
  }
  states = rules.initial_states()
  incoming = {
    "parent": np.array([-1], np.int32),
    "action_index": np.array([-1], np.int32),
    "action_id": np.array([-1], np.int32),
    "chance_prob": np.array([1.0]),
    "temp_sequence": np.zeros((NUM_PLAYERS, 1), np.int64),
  }
  depth_offsets = [0]
  depth = 0
  while True:
    offset = depth_offsets[-1]
    n = len(incoming["parent"])
    kind = np.asarray(rules.node_kind(states), np.int8)
    utility = np.zeros(n)
    terminal = np.flatnonzero(kind == TERMINAL_NODE)
    if len(terminal):
      utility[terminal] = rules.utility(take(states, terminal))
    expanding = np.flatnonzero(kind != TERMINAL_NODE)
    last_level = not len(expanding)
    if last_level:
      parent_local, child_action_id, child_prob, children = (
        np.zeros(0, np.int64),
        np.zeros(0, np.int32),
        np.zeros(0),
        {},
      )
    else:
      _check_growth(rules, states, expanding, offset + n, name, depth, room)
      parent_local, child_action_id, child_prob, children = rules.expand(take(states, expanding))
    parent_local = np.asarray(parent_local, np.int64)
    counts = np.bincount(parent_local, minlength=len(expanding)).astype(np.int32)
    if np.any(np.diff(parent_local) < 0):
      raise GameBuildError(f"{name}: expand must group children by parent, in order")
    if np.any(counts == 0):
      raise GameBuildError(
        f"{name}: a {'chance' if kind[expanding[np.argmin(counts)]] == CHANCE_NODE else 'decision'} "
        f"node at depth {depth} has no children"
      )
    num_children = np.zeros(n, np.int32)
    num_children[expanding] = counts
    child_prob = np.asarray(child_prob, np.float64)
    from_chance = kind[expanding][parent_local] == CHANCE_NODE
    _check_level(
      kind,
      utility[terminal],
      parent_local[from_chance],
      child_prob[from_chance],
      kind[expanding] == CHANCE_NODE,
      name,
      depth,
      tolerance,
    )
    child_prob = np.where(from_chance, child_prob, 1.0)
    child_start = np.zeros(len(expanding), np.int64)
    np.cumsum(counts[:-1], out=child_start[1:])
    child_action_index = ragged_arange(counts)
    child_parent = expanding[parent_local]  # local index in this level
    child_sequence = incoming["temp_sequence"][:, child_parent]
    infoset = np.full(n, -1, np.int32)
    for p in (PLAYER_0, PLAYER_1):
      mine_in_expanding = np.flatnonzero(kind[expanding] == p)
      if not len(mine_in_expanding):
        continue
      mine = expanding[mine_in_expanding]
      codes = np.asarray(rules.infoset_code(take(states, mine), p), np.int64)
      ids = tables[p].lookup(
        codes,
        offset + mine,
        incoming["temp_sequence"][p, mine],
        counts[mine_in_expanding],
        child_start[mine_in_expanding],
        child_action_id,
        rules,
      )
      infoset[mine] = ids
      parent_infoset = np.full(len(expanding), -1, np.int64)
      parent_infoset[mine_in_expanding] = ids
      own = kind[child_parent] == p
      child_sequence[p, own] = tables[p].seq_base[parent_infoset[parent_local[own]]] + child_action_index[own]
    chunks["parent"].append(incoming["parent"])
    chunks["kind"].append(kind)
    chunks["infoset"].append(infoset)
    chunks["action_index"].append(incoming["action_index"])
    chunks["action_id"].append(incoming["action_id"])
    chunks["chance_prob"].append(incoming["chance_prob"])
    chunks["utility"].append(utility)
    chunks["num_children"].append(num_children)
    chunks["temp_sequence"].append(incoming["temp_sequence"].astype(np.int32))
    depth_offsets.append(offset + n)
    if last_level:
      break
    incoming = {
      "parent": (offset + child_parent).astype(np.int32),
      "action_index": child_action_index.astype(np.int32),
      "action_id": np.asarray(child_action_id, np.int32),
      "chance_prob": child_prob,
      "temp_sequence": child_sequence,
    }
    states = children
    del children, child_sequence, child_parent, parent_local
    depth += 1

  def concatenate(field, axis=0):  # one field at a time, its chunks freed as it goes
    return np.concatenate(chunks.pop(field), axis=axis)

  fields = {
    field: concatenate(field)
    for field in ("parent", "kind", "infoset", "action_index", "action_id", "chance_prob", "utility", "num_children")
  }
  temp_sequence = concatenate("temp_sequence", axis=1)
  return assemble_game_arrays(
    name,
    [t.temporary_treeplex(rules) for t in tables],
    temp_sequence=temp_sequence,
    depth_offsets=np.array(depth_offsets, np.int64),
    **fields,
  )
