"""The public tree of a poker game: one node per public state, arrays over private hands.

For games whose private information is dealt by chance and whose actions are all public,
vector-form CFR keeps one node per public state and, at each node, arrays over every
player's private hands (ranges ``[H]``, strategies ``[A, H]``, counterfactual values ``[H]``;
Johanson, Bowling, Waugh and Zinkevich, "Accelerating Best Response Calculation in Large
Extensive Games", 2011; Moravcik et al., "DeepStack: Expert-Level Artificial Intelligence in
Heads-Up No-Limit Poker", 2017). This module builds that tree on the host from a small
declarative description of a poker game (``PokerRules``), checks it (``check``), maps it
onto the sequence form of the same game (``sequence_form_map``) and moves it to the device
(``to_device``); the operations are in jaxcfr.core.public_tree, the solvers in
jaxcfr.solvers.vector_cfr, the layout and the terminal algorithms in docs/design.md.

Cards are ``0 .. ranks * suits - 1``; card ``c`` has rank ``c // suits`` and suit
``c % suits``. A hand is a sorted tuple of ``hand_size`` cards; both players hold hands of
one list, every ``hand_size``-subset of the deck in lexicographic order (for one card per
hand, hand ``h`` is card ``h``). A board is the tuple of public cards dealt so far. On a
board, a hand is *valid* if it holds none of the board's cards.

Chance: player 0's hand is dealt first, then player 1's, from one deck; public cards are
dealt at the start of rounds. The probability of a public deal is conditional on both
hands, ``1 / C(n - 2k - |board|, m)`` for ``m`` cards from a deck of ``n`` with hands of
``k``; it sums to one over the deals that avoid any two valid hands. The private deals are
folded into the initial ranges: player 0's is ``1 / C(n, k)`` (its marginal), player 1's
``1 / C(n - k, k)`` (conditional on player 0's hand), so that on every pair of hands that
share no card the product is the joint deal probability.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import math
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.game.arrays import CHANCE_NODE, GameArrays

__all__ = [
  "DECISION",
  "CHANCE",
  "FOLD",
  "SHOWDOWN",
  "FOLD_CALL_RAISE",
  "PASS_BET",
  "PokerRules",
  "kuhn_rules",
  "one_card_poker_rules",
  "leduc_rules",
  "rank_groups",
  "PublicTree",
  "build",
  "check",
  "SequenceFormMap",
  "sequence_form_map",
  "PublicTreeTensors",
  "to_device",
]

DECISION, CHANCE, FOLD, SHOWDOWN = 0, 1, 2, 3  # public node kinds
FOLD_CALL_RAISE = "fold_call_raise"  # action ids fold 0, call (check) 1, raise 2 (OpenSpiel's Leduc)
PASS_BET = "pass_bet"  # pass 0 (check, fold), bet 1 (bet, call) (OpenSpiel's Kuhn), for one raise a round
_FOLD, _CALL, _RAISE = "f", "c", "r"


def rank_groups(cards: tuple, suits: int) -> tuple:
  """Showdown key of cards (a hand and the board) by their ranks alone: more of a kind
  first, then higher ranks ((count, rank) pairs, descending); no straights or flushes. It
  orders Kuhn poker (the higher card), one-card poker and Leduc (a pair with the board,
  then the higher card)."""
  ranks = [c // suits for c in cards]
  return tuple(sorted(((count, rank) for rank, count in collections.Counter(ranks).items()), reverse=True))


@dataclasses.dataclass(frozen=True)
class PokerRules:
  """A two-player limit poker game, declaratively.

  Attributes:
    ranks, suits: the deck, ``ranks * suits`` cards.
    hand_size: private cards per player.
    board_cards: per betting round, the public cards dealt before it (``len`` = rounds).
    raise_sizes: per round, the chips one raise adds beyond calling.
    max_raises: raises allowed per round.
    ante: chips each player puts in before the deal.
    actions: the game's action ids, FOLD_CALL_RAISE (0, 1, 2) or PASS_BET (0 = check or
      fold, 1 = bet or call; needs ``max_raises=1``).
    strength: ``strength(cards, suits)``, the showdown key of a hand's and the board's
      cards (higher wins, equal keys tie).
  """

  ranks: int
  suits: int = 1
  hand_size: int = 1
  board_cards: tuple = (0,)
  raise_sizes: tuple = (1,)
  max_raises: int = 1
  ante: int = 1
  actions: str = FOLD_CALL_RAISE
  strength: Callable = rank_groups

  def __post_init__(self):
    for name in ("ranks", "suits", "hand_size", "max_raises", "ante"):
      low = 0 if name == "max_raises" else 1
      if not isinstance(getattr(self, name), int) or getattr(self, name) < low:
        raise ValueError(f"{name} must be an int >= {low}, got {getattr(self, name)!r}")
    if not self.board_cards or len(self.raise_sizes) != len(self.board_cards):
      raise ValueError(
        f"board_cards and raise_sizes need one entry per round, got {self.board_cards}, {self.raise_sizes}"
      )
    if any(c < 0 for c in self.board_cards) or any(s < 1 for s in self.raise_sizes):
      raise ValueError(f"board_cards must be >= 0 and raise_sizes >= 1, got {self.board_cards}, {self.raise_sizes}")
    if 2 * self.hand_size + sum(self.board_cards) > self.num_cards:
      raise ValueError(f"a deck of {self.num_cards} cards cannot deal two hands of {self.hand_size} and the boards")
    if self.actions not in (FOLD_CALL_RAISE, PASS_BET):
      raise ValueError(f"actions must be {FOLD_CALL_RAISE!r} or {PASS_BET!r}, got {self.actions!r}")
    if self.actions == PASS_BET and self.max_raises != 1:
      raise ValueError(f"actions={PASS_BET!r} needs max_raises=1, got {self.max_raises}")

  @property
  def num_cards(self) -> int:
    return self.ranks * self.suits

  def action_id(self, action: str, facing: bool) -> int:
    """The game's id of an abstract action (fold, call, raise)."""
    if self.actions == PASS_BET:
      return {_FOLD: 0, _CALL: int(facing), _RAISE: 1}[action]
    return {_FOLD: 0, _CALL: 1, _RAISE: 2}[action]


def kuhn_rules() -> PokerRules:
  """Kuhn poker: 3 cards, one private card each, ante 1, one bet of 1 (games/one_card_poker.py)."""
  return one_card_poker_rules(3)


def one_card_poker_rules(num_cards: int = 3) -> PokerRules:
  """One-card poker OCP(N) (Ponsen et al. 2011, section 2.2; games/one_card_poker.py)."""
  return PokerRules(ranks=num_cards, actions=PASS_BET)


def leduc_rules() -> PokerRules:
  """Leduc hold'em: J Q K in two suits, one private and one public card, raises of 2 and 4,
  two raises a round, ante 1 (games/leduc_poker.py)."""
  return PokerRules(ranks=3, suits=2, board_cards=(0, 1), raise_sizes=(2, 4), max_raises=2)


@dataclasses.dataclass(frozen=True)
class _Public:
  """A public state while building: round, the round's abstract actions, the board,
  chips in, chips owed by the player to act."""

  round: int
  actions: tuple
  board: tuple
  chips: tuple
  owed: int


@dataclasses.dataclass(frozen=True)
class PublicTree:
  """The public tree on the host (NumPy). ``N`` nodes numbered breadth-first (each depth a
  contiguous slice, each node's children contiguous and in the order of their parents),
  ``A`` most actions, ``H`` hands of ``k`` cards, ``Bd`` distinct boards, ``Bs`` boards
  with a showdown. Card-removal tables, per subset size ``s = 1..k`` of a hand's cards
  (``M_s`` subsets of ``s`` cards of the deck, each held by ``W_s`` hands):

  Attributes:
    rules: the PokerRules.
    kind: [N] int8, DECISION, CHANCE, FOLD or SHOWDOWN.
    player: [N] int8, the acting player at decisions, the folding player at folds, else -1.
    parent: [N] int32, -1 at the root; first_child, num_children: [N] int32.
    action: [N] int32, the incoming edge: the game's action id after a decision, the index
      of the deal among its chance node's children after a chance node, -1 at the root.
    chance_prob: [N] float64, probability of the incoming deal given both hands (else 1).
    contribution: [N, 2] int64, chips each player has put in (ante included).
    round: [N] int8; board: [N] int32, the node's board (a row of ``boards``).
    depth_offsets: [D + 1] int64, nodes of depth ``d`` are ``depth_offsets[d]:[d + 1]``.
    action_ids: [N, A] int32, the game's id of each child of a decision node, -1 = none.
    hands: [H, k] int32, the hands (both players hold hands of this list).
    boards: [Bd, max board] int32 card ids, -1 padding; valid: [Bd, H] bool.
    initial_range: [2, H] float64, the private deal folded into the ranges (module doc).
    members: per ``s``, [M_s, W_s] int32, the hands holding each ``s``-subset of the deck.
    subsets: per ``s``, [H, C(k, s)] int32, each hand's ``s``-subsets (rows of ``members``).
    showdown_boards: [Bs] int32, rows of ``boards`` with a showdown, sorted.
    strength: [Bs, H] int32, showdown strength on each such board (-1 if invalid).
    order: [Bs, H] int32, the hands by ascending strength (stable).
    lo, hi: [Bs, H] int32, where each hand's tie group starts and ends in ``order``.
    sub_order: per ``s < k``, [Bs, M_s, W_s] int32, ``members`` sorted by strength.
    sub_lo, sub_hi: per ``s < k``, [Bs, H, C(k, s)] int32, each hand's tie group in the
      sorted members of each of its ``s``-subsets.
  """

  rules: PokerRules
  kind: np.ndarray
  player: np.ndarray
  parent: np.ndarray
  first_child: np.ndarray
  num_children: np.ndarray
  action: np.ndarray
  chance_prob: np.ndarray
  contribution: np.ndarray
  round: np.ndarray
  board: np.ndarray
  depth_offsets: np.ndarray
  action_ids: np.ndarray
  hands: np.ndarray
  boards: np.ndarray
  valid: np.ndarray
  initial_range: np.ndarray
  members: tuple
  subsets: tuple
  showdown_boards: np.ndarray
  strength: np.ndarray
  order: np.ndarray
  lo: np.ndarray
  hi: np.ndarray
  sub_order: tuple
  sub_lo: tuple
  sub_hi: tuple

  @property
  def num_nodes(self) -> int:
    return int(self.kind.shape[0])

  @property
  def num_hands(self) -> int:
    return int(self.hands.shape[0])

  def player_hands(self, player: int) -> list[tuple]:
    """Player ``player``'s private hands as card tuples (both players share one list)."""
    del player
    return [tuple(int(c) for c in hand) for hand in self.hands]

  def decision_nodes(self, player: int) -> np.ndarray:
    """[N_p] int32, the decision nodes of ``player``, breadth-first."""
    return np.flatnonzero((self.kind == DECISION) & (self.player == player)).astype(np.int32)

  def board_cards(self, node: int) -> tuple:
    """The public cards at ``node``."""
    return tuple(int(c) for c in self.boards[self.board[node]] if c >= 0)


def _children(rules: PokerRules, state: _Public):
  """[(kind, player, action id, chance prob, child state)] of a decision or chance state."""
  if len(state.board) < sum(rules.board_cards[: state.round + 1]):  # a deal before this round
    m = rules.board_cards[state.round]
    remaining = [c for c in range(rules.num_cards) if c not in state.board]
    prob = 1.0 / math.comb(rules.num_cards - 2 * rules.hand_size - len(state.board), m)
    out = []
    for index, cards in enumerate(itertools.combinations(remaining, m)):
      child = dataclasses.replace(state, board=state.board + cards)
      out.append((*_kind_of(rules, child), index, prob, child))
    return out
  player, facing = len(state.actions) % 2, state.owed > 0
  legal = ([_FOLD] if facing else []) + [_CALL] + ([_RAISE] if state.actions.count(_RAISE) < rules.max_raises else [])
  out = []
  for action in legal:
    chips, owed, actions = list(state.chips), 0, state.actions + (action,)
    if action == _FOLD:
      out.append((FOLD, player, rules.action_id(action, facing), 1.0, dataclasses.replace(state, actions=actions)))
      continue
    if action == _CALL:
      chips[player] += state.owed
    else:
      owed = rules.raise_sizes[state.round]
      chips[player] += state.owed + owed
    child = _Public(state.round, actions, state.board, tuple(chips), owed)
    if action == _CALL and len(actions) >= 2:  # the round is over
      if state.round + 1 == len(rules.board_cards):
        out.append((SHOWDOWN, -1, rules.action_id(action, facing), 1.0, child))
        continue
      child = _Public(state.round + 1, (), state.board, tuple(chips), 0)
    out.append((*_kind_of(rules, child), rules.action_id(action, facing), 1.0, child))
  return sorted(out, key=lambda entry: entry[2])


def _kind_of(rules: PokerRules, state: _Public) -> tuple:
  """(kind, player) of a non-terminal state."""
  if len(state.board) < sum(rules.board_cards[: state.round + 1]):
    return CHANCE, -1
  return DECISION, len(state.actions) % 2


def build(rules: PokerRules) -> PublicTree:
  """The checked public tree of ``rules`` (breadth-first, see PublicTree)."""
  root = _Public(0, (), (), (rules.ante, rules.ante), 0)
  records = [(*_kind_of(rules, root), -1, -1, 1.0, root)]  # (kind, player, parent, action, prob, state)
  depth, first_child, num_children = [0], [], []
  for index in itertools.count():
    if index == len(records):
      break
    kind, _, _, _, _, state = records[index]
    children = _children(rules, state) if kind in (DECISION, CHANCE) else []
    first_child.append(len(records))
    num_children.append(len(children))
    for child_kind, player, action, prob, child in children:
      records.append((child_kind, player, index, action, prob, child))
      depth.append(depth[index] + 1)
  kind = np.array([r[0] for r in records], np.int8)
  states = [r[5] for r in records]
  num_children = np.array(num_children, np.int32)
  max_actions = max(int(num_children[kind == DECISION].max()), 1)
  action_ids = np.full((len(records), max_actions), -1, np.int32)
  for node in np.flatnonzero(kind == DECISION):
    action_ids[node, : num_children[node]] = [records[first_child[node] + a][3] for a in range(num_children[node])]
  board_rows = sorted({s.board for s in states}, key=lambda b: (len(b), b))
  board_index = {b: i for i, b in enumerate(board_rows)}
  width = max(len(b) for b in board_rows)
  boards = np.array([list(b) + [-1] * (width - len(b)) for b in board_rows], np.int32).reshape(len(board_rows), width)
  hands = np.array(list(itertools.combinations(range(rules.num_cards), rules.hand_size)), np.int32)
  valid = ~(hands[None, :, :, None] == boards[:, None, None, :]).any((2, 3))
  n, k = rules.num_cards, rules.hand_size
  board = np.array([board_index[s.board] for s in states], np.int32)
  showdown_boards = np.unique(board[kind == SHOWDOWN]).astype(np.int32)
  members, subsets = _card_removal(n, hands)
  tables = _showdown_tables(rules, hands, boards[showdown_boards], valid[showdown_boards], members, subsets)
  tree = PublicTree(
    rules=rules,
    kind=kind,
    player=np.array([r[1] for r in records], np.int8),
    parent=np.array([r[2] for r in records], np.int32),
    first_child=np.array(first_child, np.int32),
    num_children=num_children,
    action=np.array([r[3] for r in records], np.int32),
    chance_prob=np.array([r[4] for r in records], np.float64),
    contribution=np.array([s.chips for s in states], np.int64),
    round=np.array([s.round for s in states], np.int8),
    board=board,
    depth_offsets=np.searchsorted(np.array(depth), np.arange(max(depth) + 2)).astype(np.int64),
    action_ids=action_ids,
    hands=hands,
    boards=boards,
    valid=valid,
    initial_range=np.stack([np.full(len(hands), 1 / math.comb(n, k)), np.full(len(hands), 1 / math.comb(n - k, k))]),
    members=members,
    subsets=subsets,
    showdown_boards=showdown_boards,
    **tables,
  )
  check(tree)
  return tree


def _card_removal(num_cards: int, hands: np.ndarray) -> tuple:
  """Per subset size ``s = 1..k``: the hands holding each ``s``-subset of the deck ([M_s, W_s])
  and each hand's ``s``-subsets ([H, C(k, s)])."""
  members, subsets = [], []
  k = hands.shape[1]
  for s in range(1, k + 1):
    index = {c: i for i, c in enumerate(itertools.combinations(range(num_cards), s))}
    of_hand = np.array([[index[c] for c in itertools.combinations(hand.tolist(), s)] for hand in hands], np.int32)
    holders = [[] for _ in index]
    for h, row in enumerate(of_hand):
      for m in row:
        holders[m].append(h)
    members.append(np.array(holders, np.int32))  # every s-subset is in C(n - s, k - s) hands
    subsets.append(of_hand)
  return tuple(members), tuple(subsets)


def _showdown_tables(rules, hands, boards, valid, members, subsets) -> dict:
  """Strengths and the sorted orders of the prefix-sum showdown (PublicTree's fields)."""
  k = hands.shape[1]
  strength = np.full(valid.shape, -1, np.int32)
  if not len(boards):
    empty = tuple(np.zeros((0,) + m.shape, np.int32) for m in members[: k - 1])
    subs = tuple(np.zeros((0,) + s.shape, np.int32) for s in subsets[: k - 1])
    return dict(strength=strength, order=strength, lo=strength, hi=strength, sub_order=empty, sub_lo=subs, sub_hi=subs)
  for b, board in enumerate(boards):
    public = tuple(int(c) for c in board if c >= 0)
    keys = {h: rules.strength(tuple(int(c) for c in hands[h]) + public, rules.suits) for h in np.flatnonzero(valid[b])}
    rank = {key: r for r, key in enumerate(sorted(set(keys.values())))}
    for h, key in keys.items():
      strength[b, h] = rank[key]
  order = np.argsort(strength, axis=1, kind="stable").astype(np.int32)
  ordered = np.take_along_axis(strength, order, 1)
  lo = np.stack([np.searchsorted(o, s, "left") for o, s in zip(ordered, strength)]).astype(np.int32)
  hi = np.stack([np.searchsorted(o, s, "right") for o, s in zip(ordered, strength)]).astype(np.int32)
  sub_order, sub_lo, sub_hi = [], [], []
  for s in range(1, k):
    sub_strength = strength[:, members[s - 1]]  # [Bs, M, W]
    by = np.argsort(sub_strength, axis=2, kind="stable")
    sub_order.append(np.take_along_axis(np.broadcast_to(members[s - 1], by.shape), by, 2).astype(np.int32))
    held = sub_strength[:, subsets[s - 1]]  # [Bs, H, C, W] strengths of the members of each hand's subsets
    own = strength[:, :, None, None]
    sub_lo.append((held < own).sum(-1).astype(np.int32))
    sub_hi.append((held <= own).sum(-1).astype(np.int32))
  return dict(
    strength=strength, order=order, lo=lo, hi=hi, sub_order=tuple(sub_order), sub_lo=tuple(sub_lo), sub_hi=tuple(sub_hi)
  )


def check(tree: PublicTree) -> None:
  """Raises ValueError naming the first inconsistency of ``tree``'s structure, deals,
  payoffs or card-removal tables."""
  rules, n, k = tree.rules, tree.rules.num_cards, tree.rules.hand_size
  size = tree.num_nodes
  depth = np.zeros(size, np.int64)
  for d in range(len(tree.depth_offsets) - 1):
    depth[tree.depth_offsets[d] : tree.depth_offsets[d + 1]] = d
  for node in range(size):
    kids = np.arange(tree.first_child[node], tree.first_child[node] + tree.num_children[node])
    if np.any(tree.parent[kids] != node) or np.any(depth[kids] != depth[node] + 1):
      raise ValueError(f"node {node}'s children are not contiguous or not one level down")
    terminal = tree.kind[node] in (FOLD, SHOWDOWN)
    if terminal != (len(kids) == 0):
      raise ValueError(f"node {node} of kind {tree.kind[node]} has {len(kids)} children")
    if tree.kind[node] == CHANCE:
      board = tree.board_cards(node)
      new = {tuple(sorted(set(tree.board_cards(c)) - set(board))) for c in kids}
      m = len(next(iter(new))) if new else 0
      expected = math.comb(n - len(board), m)
      prob = 1 / math.comb(n - 2 * k - len(board), m)
      if m == 0 or len(new) != len(kids) or len(kids) != expected or not np.allclose(tree.chance_prob[kids], prob):
        raise ValueError(f"chance node {node} does not deal every {m}-card combination once with probability {prob}")
    ids = tree.action_ids[node, : len(kids)].tolist()
    if tree.kind[node] == DECISION and (ids != sorted(ids) or ids != tree.action[kids].tolist()):
      raise ValueError(f"decision node {node}'s action ids do not match its children")
    if tree.kind[node] == FOLD and tree.player[node] != tree.player[tree.parent[node]]:
      raise ValueError(f"fold node {node} is not folded by the player who acted")
  if np.any(tree.contribution < rules.ante):
    raise ValueError("a contribution is below the ante")
  blocked = np.array([[bool(set(h.tolist()) & set(b.tolist())) for h in tree.hands] for b in tree.boards])
  if np.any(tree.valid == blocked):
    raise ValueError("the valid masks do not match the boards")
  if not np.allclose(tree.initial_range.sum(1), [1, math.comb(n, k) / math.comb(n - k, k)]):
    raise ValueError("the initial ranges do not hold the deal probabilities")
  for s, (members, subsets) in enumerate(zip(tree.members, tree.subsets), 1):
    if members.shape != (math.comb(n, s), math.comb(n - s, k - s)) or subsets.shape != (
      tree.num_hands,
      math.comb(k, s),
    ):
      raise ValueError(f"the {s}-card removal tables have shapes {members.shape}, {subsets.shape}")
    rows = np.repeat(np.arange(tree.num_hands), subsets.shape[1])
    if not np.all(np.any(members[subsets.ravel()] == rows[:, None], axis=1)):
      raise ValueError(f"a hand is missing from the holders of one of its {s}-card subsets")
  ordered = np.take_along_axis(tree.strength, tree.order, 1)
  if np.any(np.diff(ordered, axis=1) < 0) or np.any((tree.strength < 0) != ~tree.valid[tree.showdown_boards]):
    raise ValueError("the showdown order is not sorted by strength or marks a wrong hand invalid")
  for b in range(len(tree.showdown_boards)):
    group = np.take_along_axis(tree.strength[b], tree.order[b], 0)
    if np.any(group[tree.lo[b]] != tree.strength[b]) or np.any(group[tree.hi[b] - 1] != tree.strength[b]):
      raise ValueError(f"the tie groups of showdown board {b} are wrong")


@dataclasses.dataclass(frozen=True)
class SequenceFormMap:
  """Where each infoset of the sequence form lies in the public tree. Per player ``p``
  (``I_p`` infosets, ``A_p`` most actions of the sequence form):

  Attributes:
    node: per player, [I_p] int32, the index of the infoset's public node among ``p``'s
      decision nodes (``PublicTree.decision_nodes(p)``).
    hand: per player, [I_p] int32, the player's private hand there.
    slot: per player, [I_p, A_p] int32, the public node's action slot of each sequence-form
      action slot, -1 at padding.
  """

  node: tuple
  hand: tuple
  slot: tuple


def sequence_form_map(tree: PublicTree, arrays: GameArrays) -> SequenceFormMap:
  """Maps the sequence form of the same game onto ``tree`` by replaying one history of each
  infoset. The sequence form must deal player 0's hand, then player 1's, card by card as
  chance outcomes whose ids are cards, and the public cards card by card (the native
  kuhn_poker, one_card_poker and leduc_poker do). Raises ValueError unless the infosets
  and the pairs (decision node, valid hand) of each player correspond one to one."""
  k = tree.rules.hand_size
  hand_index = {tuple(h.tolist()): i for i, h in enumerate(tree.hands)}
  nodes, hands, slots = [], [], []
  for p, player in enumerate(arrays.players):
    position = {int(v): i for i, v in enumerate(tree.decision_nodes(p))}
    node_of, hand_of = np.zeros(player.num_infosets, np.int32), np.zeros(player.num_infosets, np.int32)
    slot = np.full(player.action_ids.shape, -1, np.int32)
    for infoset, history in enumerate(player.first_history):
      path, h = [], int(history)
      while arrays.parent[h] >= 0:
        path.append((int(arrays.kind[arrays.parent[h]]), int(arrays.action_id[h])))
        h = int(arrays.parent[h])
      node, private, pending = 0, [], []
      for edge_kind, action in reversed(path):
        if edge_kind == CHANCE_NODE and len(private) < 2 * k:
          private.append(action)
          continue
        if edge_kind == CHANCE_NODE:
          pending.append(action)
          if tree.kind[node] != CHANCE:
            raise ValueError(f"infoset {player.keys[infoset]!r}: a deal where the public tree has no chance node")
          kids = range(tree.first_child[node], tree.first_child[node] + tree.num_children[node])
          new = {c: set(tree.board_cards(c)) - set(tree.board_cards(node)) for c in kids}
          if len(pending) == len(next(iter(new.values()))):
            node, pending = next(c for c, cards in new.items() if cards == set(pending)), []
          continue
        found = np.flatnonzero(tree.action_ids[node] == action)
        if tree.kind[node] != DECISION or tree.player[node] != edge_kind or not len(found):
          raise ValueError(f"infoset {player.keys[infoset]!r}: action {action} has no public counterpart")
        node = int(tree.first_child[node] + found[0])
      if tree.kind[node] != DECISION or tree.player[node] != p:
        raise ValueError(f"infoset {player.keys[infoset]!r} does not reach a decision node of player {p}")
      node_of[infoset], hand_of[infoset] = position[node], hand_index[tuple(sorted(private[p * k : (p + 1) * k]))]
      for a, action in enumerate(player.action_ids[infoset]):
        if action >= 0:
          slot[infoset, a] = np.flatnonzero(tree.action_ids[node] == action)[0]
    decisions = tree.decision_nodes(p)
    pairs = set(zip(node_of.tolist(), hand_of.tolist()))
    expected = int(tree.valid[tree.board[decisions]].sum())
    if len(pairs) != player.num_infosets or len(pairs) != expected:
      raise ValueError(
        f"player {p}: {player.num_infosets} infosets map to {len(pairs)} distinct (node, hand) pairs of {expected}"
      )
    nodes.append(node_of)
    hands.append(hand_of)
    slots.append(slot)
  return SequenceFormMap(node=tuple(nodes), hand=tuple(hands), slot=tuple(slots))


def _pytree(*, meta: tuple = ()):
  """Registers a frozen dataclass as a pytree whose fields in ``meta`` are static."""

  def wrap(cls):
    cls = dataclasses.dataclass(frozen=True)(cls)
    data = [f.name for f in dataclasses.fields(cls) if f.name not in meta]
    return jax.tree_util.register_dataclass(cls, data_fields=data, meta_fields=list(meta))

  return wrap


@_pytree(meta=("level_slices", "level_dealt"))
class PublicTreeTensors:
  """The public tree on the device (see PublicTree for the sizes). ``N_p`` decision nodes
  of player ``p``; level ``d`` holds the nodes of depth ``d``, ``level_slices[d]``, ``n_d``
  of them with at most ``C_d`` children each (in level ``d + 1``); ``T = F + S``
  terminals, the ``F`` folds then the ``S`` showdowns. Per player, a strategy
  ``[N_p, A, H, *B]`` is read through flat tables: its ``N_p A`` rows (node, slot) followed
  by constant rows, so that each level is one gather.

  Attributes:
    kind, player: [N] int8 (PublicTree's); board: [N] int32, the node's row of ``valid``.
    valid: [Bd, H] bool, the hands that the board's cards leave possible.
    decision_nodes: per player, [N_p] int32; legal, children: per player, [N_p, A] bool
      and int32 (child node ids, 0 where illegal).
    level_parent: per level ``d >= 1``, [n_d] int32, the parent counted from level ``d - 1``'s first node.
    reach_index: per player, per level ``d >= 1``, [n_d] int32, the row of the factor the
      player's reach gains on the incoming edge: its strategy's (parent, slot) row if the
      parent is the player's decision, else ``N_p A`` (a row of ones).
    level_children: per level ``d < D - 1``, [n_d, C_d] int32, children counted from level
      ``d + 1``'s first node (0 at padding).
    level_weight: per level ``d < D - 1``, [n_d, C_d] float, the chance probability of each
      child of a chance node, 1 at decision nodes' children, 0 at padding.
    value_index: per player, per level ``d < D - 1``, [n_d, C_d] int32, the row of each
      child's weight in the bottom-up pass: the strategy's row at the player's own
      decisions, else ``N_p A + j`` for ``weight_values[j]``.
    level_own: per player, per level ``d < D - 1``, [n_d] bool, the player's decision nodes.
    weight_values: [K] float, the distinct entries of ``level_weight``.
    terminal_row: [N] int32, each terminal's row among the T terminals, T elsewhere.
    fold_nodes: [F] int32; fold_payoff: [2, F] float, each player's payoff at each fold
      (minus its chips if it folded, else the folder's chips).
    showdown_nodes: [S] int32; showdown_table: [S] int32, its board's row of ``strength``,
      ``order`` and the other sorted tables; showdown_chips: [S, 2] float, the contributions.
    hands: [H, k] int32; members, subsets, strength, order, lo, hi, sub_order, sub_lo,
      sub_hi: PublicTree's card-removal and showdown tables.
    initial_range: [2, H] float.
    level_slices: static ((lo, hi), ...) node ranges by depth.
    level_dealt: static, per level, whether any of its nodes follows a deal (its ranges
      are masked by ``valid`` there).
  """

  kind: jax.Array
  player: jax.Array
  board: jax.Array
  valid: jax.Array
  decision_nodes: tuple
  legal: tuple
  children: tuple
  level_parent: tuple
  reach_index: tuple
  level_children: tuple
  level_weight: tuple
  value_index: tuple
  level_own: tuple
  weight_values: jax.Array
  terminal_row: jax.Array
  fold_nodes: jax.Array
  fold_payoff: jax.Array
  showdown_nodes: jax.Array
  showdown_table: jax.Array
  showdown_chips: jax.Array
  hands: jax.Array
  members: tuple
  subsets: tuple
  strength: jax.Array
  order: jax.Array
  lo: jax.Array
  hi: jax.Array
  sub_order: tuple
  sub_lo: tuple
  sub_hi: tuple
  initial_range: jax.Array
  level_slices: tuple
  level_dealt: tuple

  @property
  def dtype(self):
    return self.initial_range.dtype

  @property
  def num_hands(self) -> int:
    return self.hands.shape[0]

  @property
  def max_actions(self) -> int:
    return self.legal[0].shape[1]


def to_device(tree: PublicTree, dtype=None) -> PublicTreeTensors:
  """The device pytree of ``tree`` (float leaves in ``dtype``, default JAX's float)."""
  dtype = jnp.zeros((), dtype or float).dtype
  size, width = tree.num_nodes, tree.action_ids.shape[1]
  slot = np.zeros(size, np.int64)
  for node in np.flatnonzero(tree.num_children):
    slot[tree.first_child[node] : tree.first_child[node] + tree.num_children[node]] = np.arange(tree.num_children[node])
  decision_nodes = [tree.decision_nodes(p) for p in (0, 1)]
  row = np.full((2, size), -1, np.int64)  # strategy row of (node, slot 0), per player
  for p, nodes in enumerate(decision_nodes):
    row[p, nodes] = np.arange(len(nodes)) * width
  legal = [np.arange(width)[None, :] < tree.num_children[nodes][:, None] for nodes in decision_nodes]
  children = [
    np.where(lg, tree.first_child[n][:, None] + np.arange(width)[None, :], 0) for n, lg in zip(decision_nodes, legal)
  ]
  level_slices = tuple((int(a), int(b)) for a, b in zip(tree.depth_offsets[:-1], tree.depth_offsets[1:]))
  weight_values = np.unique(np.concatenate([[0.0, 1.0], tree.chance_prob]))
  level_parent, reach_index = [], ([], [])
  for (lo, hi), (prev_lo, _) in zip(level_slices[1:], level_slices[:-1]):
    parent = tree.parent[lo:hi]
    level_parent.append(parent - prev_lo)
    for p in (0, 1):
      own = row[p, parent] >= 0
      reach_index[p].append(np.where(own, row[p, parent] + slot[lo:hi], len(decision_nodes[p]) * width))
  level_children, level_weight, value_index, level_own = [], [], ([], []), ([], [])
  for (lo, hi), (next_lo, _) in zip(level_slices[:-1], level_slices[1:]):
    count = tree.num_children[lo:hi]
    c = max(int(count.max()), 1)
    present = np.arange(c)[None, :] < count[:, None]
    child = np.where(present, tree.first_child[lo:hi, None] + np.arange(c)[None, :], 0)
    weight = np.where(present, tree.chance_prob[child], 0.0)
    level_children.append(np.where(present, child - next_lo, 0))
    level_weight.append(weight)
    for p in (0, 1):
      own = row[p, lo:hi] >= 0
      constant = len(decision_nodes[p]) * width + np.searchsorted(weight_values, weight)
      value_index[p].append(np.where(own[:, None] & present, row[p, lo:hi, None] + np.arange(c)[None, :], constant))
      level_own[p].append(own)
  fold_nodes = np.flatnonzero(tree.kind == FOLD)
  showdown_nodes = np.flatnonzero(tree.kind == SHOWDOWN)
  terminal_row = np.full(size, len(fold_nodes) + len(showdown_nodes), np.int64)
  terminal_row[fold_nodes] = np.arange(len(fold_nodes))
  terminal_row[showdown_nodes] = len(fold_nodes) + np.arange(len(showdown_nodes))
  chips = tree.contribution[fold_nodes].astype(np.float64)
  folder = tree.player[fold_nodes]
  fold_payoff = np.stack([np.where(folder == p, -chips[:, p], chips[:, 1 - p]) for p in (0, 1)])
  table_of_board = {int(b): i for i, b in enumerate(tree.showdown_boards)}
  dealt = tuple(bool(np.any(tree.kind[tree.parent[lo:hi]] == CHANCE)) for lo, hi in level_slices[1:])
  index = lambda x: jnp.asarray(x, jnp.int32)
  indices = lambda xs: tuple(index(x) for x in xs)
  return PublicTreeTensors(
    kind=jnp.asarray(tree.kind),
    player=jnp.asarray(tree.player),
    board=index(tree.board),
    valid=jnp.asarray(tree.valid),
    decision_nodes=indices(decision_nodes),
    legal=tuple(jnp.asarray(x) for x in legal),
    children=indices(children),
    level_parent=indices(level_parent),
    reach_index=tuple(indices(x) for x in reach_index),
    level_children=indices(level_children),
    level_weight=tuple(jnp.asarray(x, dtype) for x in level_weight),
    value_index=tuple(indices(x) for x in value_index),
    level_own=tuple(tuple(jnp.asarray(x) for x in own) for own in level_own),
    weight_values=jnp.asarray(weight_values, dtype),
    terminal_row=index(terminal_row),
    fold_nodes=index(fold_nodes),
    fold_payoff=jnp.asarray(fold_payoff, dtype),
    showdown_nodes=index(showdown_nodes),
    showdown_table=index([table_of_board[int(b)] for b in tree.board[showdown_nodes]]),
    showdown_chips=jnp.asarray(tree.contribution[showdown_nodes], dtype),
    hands=index(tree.hands),
    members=indices(tree.members),
    subsets=indices(tree.subsets),
    strength=index(tree.strength),
    order=index(tree.order),
    lo=index(tree.lo),
    hi=index(tree.hi),
    sub_order=indices(tree.sub_order),
    sub_lo=indices(tree.sub_lo),
    sub_hi=indices(tree.sub_hi),
    initial_range=jnp.asarray(tree.initial_range, dtype),
    level_slices=level_slices,
    level_dealt=(False,) + dealt,
  )
