"""The public tree of a poker game: one node per public state, arrays over private hands.

For games whose private information is dealt by chance and whose actions are all public,
vector-form CFR keeps one node per public state and, at each node, arrays over every
player's private hands (ranges ``[H]``, strategies ``[A, H]``, counterfactual values ``[H]``;
Johanson, Bowling, Waugh and Zinkevich, "Accelerating Best Response Calculation in Large
Extensive Games", 2011; Moravcik et al., "DeepStack: Expert-Level Artificial Intelligence in
Heads-Up No-Limit Poker", 2017). This module builds that tree on the host from the
declarative rules of a public game (jaxcfr.games.poker_rules: ``PokerRules`` for limit poker
from the deal, ``NoLimitRules`` for no-limit subgames from a board, a pot and ranges, with a
bet-size abstraction), checks it (``check``), maps it onto the sequence form of the same game
(``sequence_form_map``) and moves it to the device (``to_device``); ``public_tree_of`` builds
the tree of a game's rules object (one that offers ``public_tree_rules()``). The operations
are in jaxcfr.core.public_tree, the solvers in jaxcfr.solvers.vector_cfr, the layout and the
terminal algorithms in docs/design.md.

Cards are ``0 .. ranks * suits - 1``; card ``c`` has rank ``c // suits`` and suit
``c % suits``. A hand is a sorted tuple of ``hand_size`` cards; both players hold hands of
one list, every ``hand_size``-subset of the deck in lexicographic order (for one card per
hand, hand ``h`` is card ``h``). A board is the tuple of public cards dealt so far. On a
board, a hand is *valid* if it holds none of the board's cards.

Chance: the probability of a public deal is conditional on both hands,
``1 / C(n - 2k - |board|, m)`` for ``m`` cards from a deck of ``n`` with hands of ``k``; it
sums to one over the deals that avoid any two valid hands. The private deal is folded into
the initial ranges (the rules' ``initial_range``), so that on every pair of hands that share
no card the product of the two players' ranges is the joint probability of the pair: from
the deal, player 0's ``1 / C(n, k)`` (its marginal) and player 1's ``1 / C(n - k, k)``
(conditional on player 0's hand); in a subgame, the given ranges normalised so.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.game import hand_eval, memory
from jaxcfr.game.arrays import CHANCE_NODE, GameArrays
from jaxcfr.games.poker_rules import (
  CHANCE,
  DECISION,
  FOLD,
  FOLD_CALL_RAISE,
  HOLDEM,
  LEAF,
  PASS_BET,
  PAYOFF,
  SHOWDOWN,
  NoLimitRules,
  PokerRules,
  Subgame,
  disjoint_pairs,
  hands as all_hands,
  kuhn_rules,
  leduc_rules,
  one_card_poker_rules,
  rank_groups,
)

__all__ = [
  "DECISION",
  "CHANCE",
  "FOLD",
  "SHOWDOWN",
  "LEAF",
  "PAYOFF",
  "HOLDEM",
  "FOLD_CALL_RAISE",
  "PASS_BET",
  "PokerRules",
  "NoLimitRules",
  "Subgame",
  "kuhn_rules",
  "one_card_poker_rules",
  "leduc_rules",
  "rank_groups",
  "PublicTree",
  "build",
  "public_tree_of",
  "embedding",
  "strengths",
  "check",
  "SequenceFormMap",
  "sequence_form_map",
  "PublicTreeTensors",
  "to_device",
]


@dataclasses.dataclass(frozen=True)
class PublicTree:
  """The public tree on the host (NumPy). ``N`` nodes numbered breadth-first (each depth a
  contiguous slice, each node's children contiguous and in the order of their parents),
  ``A`` most actions, ``H`` hands of ``k`` cards, ``Bd`` distinct boards, ``Bs`` boards
  with a showdown. Card-removal tables, per subset size ``s = 1..k`` of a hand's cards
  (``M_s`` subsets of ``s`` cards of the deck, each held by ``W_s`` hands):

  Attributes:
    rules: the public game's rules (PokerRules or NoLimitRules; jaxcfr.games.poker_rules).
    kind: [N] int8, DECISION, CHANCE, FOLD, SHOWDOWN, PAYOFF (a terminal with a payoff per
      pair of hands) or LEAF (a depth limit: poker_rules.Subgame).
    player: [N] int8, the acting player at decisions, the folding player at folds, else -1.
    parent: [N] int32, -1 at the root; first_child, num_children: [N] int32.
    action: [N] int32, the incoming edge: the game's action id after a decision, the index
      of the deal among its chance node's children after a chance node, -1 at the root.
    chance_prob: [N] float64, probability of the incoming deal given both hands (else 1).
    contribution: [N, 2] int64, chips each player has put in (ante or share of the pot included).
    round: [N] int8; board: [N] int32, the node's board (a row of ``boards``).
    depth_offsets: [D + 1] int64, nodes of depth ``d`` are ``depth_offsets[d]:[d + 1]``.
    action_ids: [N, A] int32, the game's id of each child of a decision node, -1 = none.
    hands: [H, k] int32, the hands (both players hold hands of this list).
    boards: [Bd, max board] int32 card ids, -1 padding; valid: [Bd, H] bool.
    initial_range: [2, H] float64, the private deal folded into the ranges (module doc).
    members: per ``s``, [M_s, W_s] int32, the hands holding each ``s``-subset of the deck;
      empty (``()``) where hands never conflict (``rules.card_removal`` False: dice).
    subsets: per ``s``, [H, C(k, s)] int32, each hand's ``s``-subsets (rows of ``members``).
    showdown_boards: [Bs] int32, rows of ``boards`` with a showdown, sorted.
    strength: [Bs, H] int32, showdown strength on each such board (-1 if invalid).
    order: [Bs, H] int32, the hands by ascending strength (stable).
    lo, hi: [Bs, H] int32, where each hand's tie group starts and ends in ``order``.
    sub_order: per ``s < k``, [Bs, M_s, W_s] int32, ``members`` sorted by strength.
    sub_lo, sub_hi: per ``s < k``, [Bs, H, C(k, s)] int32, each hand's tie group in the
      sorted members of each of its ``s``-subsets.
    payoff_index: [N] int32, a PAYOFF terminal's row of ``payoff_tables``, -1 elsewhere.
    payoff_tables: [K, H, H] float64, the distinct payoff matrices (player 0's payoff for
      the hands ``(h0, h1)``; rules.payoff).
    states: [N] the rules' public state of each node (a subgame's root: ``Subgame``).
  """

  rules: PokerRules | NoLimitRules
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
  payoff_index: np.ndarray
  payoff_tables: np.ndarray
  states: tuple = dataclasses.field(default=(), repr=False, compare=False)

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

  def path(self, node: int) -> tuple:
    """The incoming ``action`` of each node from the root's child down to ``node``: the same
    public history in any tree of the same game rooted above it (``find``)."""
    out = []
    while self.parent[node] >= 0:
      out.append(int(self.action[node]))
      node = self.parent[node]
    return tuple(reversed(out))

  def find(self, path, start: int = 0) -> int:
    """The node that ``path`` (incoming actions, as ``path`` gives them) reaches from
    ``start``. Raises ValueError if no child of a node on the way has the next action."""
    node = int(start)
    for action in path:
      kids = np.arange(self.first_child[node], self.first_child[node] + self.num_children[node])
      match = kids[self.action[kids] == action]
      if not len(match):
        raise ValueError(f"node {node} has no child by action {action}")
      node = int(match[0])
    return node


# A run's memory per public node and private hand: about eight [N, H] float64 arrays of the
# solver's state and passes (regrets and average strategies over actions, ranges and values).
BYTES_PER_NODE_HAND = 64


def build(rules) -> PublicTree:
  """The checked public tree of ``rules`` (breadth-first, see PublicTree): a PokerRules, a
  NoLimitRules, or any rules of the public-game protocol (jaxcfr.games.poker_rules)."""
  root = rules.root()
  records = [(*rules.kind_of(root), -1, -1, 1.0, root)]  # (kind, player, parent, action, prob, state)
  depth, first_child, num_children = [0], [], []
  room, num_hands = memory.limit(), math.comb(rules.num_cards, rules.hand_size)
  for index in itertools.count():
    if index == len(records):
      break
    if not index % 4096:  # the solver's arrays over nodes and hands, priced as the tree grows
      memory.check(
        len(records) * num_hands * BYTES_PER_NODE_HAND,
        "the public tree",
        f"{len(records):,} public nodes so far, {num_hands:,} hands each",
        room,
      )
    kind, _, _, _, _, state = records[index]
    children = rules.children(state) if kind in (DECISION, CHANCE) else []  # none at terminals and leaves
    first_child.append(len(records))
    num_children.append(len(children))
    for child_kind, player, action, prob, child in children:
      records.append((child_kind, player, index, action, prob, child))
      depth.append(depth[index] + 1)
  kind = np.array([r[0] for r in records], np.int8)
  states = [r[5] for r in records]
  num_children = np.array(num_children, np.int32)
  max_actions = max(int(num_children[kind == DECISION].max(initial=0)), 1)
  action_ids = np.full((len(records), max_actions), -1, np.int32)
  for node in np.flatnonzero(kind == DECISION):
    action_ids[node, : num_children[node]] = [records[first_child[node] + a][3] for a in range(num_children[node])]
  board_rows = sorted({s.board for s in states}, key=lambda b: (len(b), b))
  board_index = {b: i for i, b in enumerate(board_rows)}
  width = max(len(b) for b in board_rows)
  boards = np.array([list(b) + [-1] * (width - len(b)) for b in board_rows], np.int32).reshape(len(board_rows), width)
  hands = all_hands(rules.num_cards, rules.hand_size)
  valid = ~(hands[None, :, :, None] == boards[:, None, None, :]).any((2, 3))
  board = np.array([board_index[s.board] for s in states], np.int32)
  showdown_boards = np.unique(board[kind == SHOWDOWN]).astype(np.int32)
  members, subsets = _card_removal(rules.num_cards, hands) if rules.card_removal else ((), ())
  tables = _showdown_tables(rules, hands, boards[showdown_boards], valid[showdown_boards], members, subsets)
  payoff_index, payoff_tables = _payoff_tables(rules, kind, states, len(hands))
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
    initial_range=np.asarray(rules.initial_range(), np.float64),
    members=members,
    subsets=subsets,
    showdown_boards=showdown_boards,
    **tables,
    payoff_index=payoff_index,
    payoff_tables=payoff_tables,
    states=tuple(states),
  )
  check(tree)
  return tree


def embedding(whole: PublicTree, sub: PublicTree, start: int = 0) -> np.ndarray:
  """[N_sub] int64, the node of ``whole`` at each node of ``sub``, a subgame of the same game
  rooted at ``whole``'s node ``start`` (``poker_rules.Subgame``: the same public
  histories, matched by their incoming actions). A leaf of a depth-limited ``sub`` maps to
  the decision node it stands for.

  Raises:
    ValueError: ``sub`` has a history that ``whole`` lacks below ``start``.
  """
  out = np.empty(sub.num_nodes, np.int64)
  out[0] = start
  for node in range(1, sub.num_nodes):  # breadth-first: the parent is mapped first
    out[node] = whole.find((int(sub.action[node]),), start=out[sub.parent[node]])
  return out


def public_tree_of(game) -> PublicTree:
  """The public tree of a game's rules object (jaxcfr.games): ``build(game.public_tree_rules())``.
  Raises ValueError if the game declares no public tree."""
  if not hasattr(game, "public_tree_rules"):
    raise ValueError(f"{getattr(game, 'name', game)!r} declares no public tree (it has no public_tree_rules())")
  return build(game.public_tree_rules())


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


def _payoff_tables(rules, kind: np.ndarray, states: list, num_hands: int) -> tuple:
  """([N] int32, [K, H, H] float64) each PAYOFF terminal's row among the distinct matrices
  of ``rules.payoff`` (PublicTree's ``payoff_index`` and ``payoff_tables``)."""
  index = np.full(len(kind), -1, np.int32)
  rows: dict = {}
  for node in np.flatnonzero(kind == PAYOFF):
    matrix = np.asarray(rules.payoff(states[node]), np.float64)
    if matrix.shape != (num_hands, num_hands) or not np.all(np.isfinite(matrix)):
      raise ValueError(
        f"the payoff at node {node} must be a finite [{num_hands}, {num_hands}] matrix, got {matrix.shape}"
      )
    index[node] = rows.setdefault(matrix.tobytes(), len(rows))
  tables = [np.frombuffer(key).reshape(num_hands, num_hands) for key in rows]
  return index, np.array(tables, np.float64).reshape(len(tables), num_hands, num_hands)


def strengths(rules, hands: np.ndarray, boards: np.ndarray, valid: np.ndarray) -> np.ndarray:
  """[B, H] int32 the showdown strength of each hand on each board, dense ranks from 0 (the
  weakest), equal for hands that tie, -1 where ``valid`` [B, H] is False.

  Args:
    rules: the rules; their ``strength`` is a key function or HOLDEM (the seven-card ranking
      of jaxcfr.game.hand_eval, with card ``c`` as hold'em's ``(c // suits) * 4 + c % suits``).
    hands: [H, k] cards; boards: [B, b] cards (-1 padding).
  """
  out = np.full(valid.shape, -1, np.int32)
  for b, row in enumerate(boards):
    public = tuple(int(c) for c in row if c >= 0)
    which = np.flatnonzero(valid[b])
    if rules.strength == HOLDEM:
      cards = np.concatenate([hands[which], np.broadcast_to(np.array(public, np.int32), (len(which), len(public)))], 1)
      keys = np.asarray(hand_eval.hand_rank((cards // rules.suits) * 4 + cards % rules.suits))
    else:
      keys = [rules.strength(tuple(int(c) for c in hands[h]) + public, rules.suits) for h in which]
      ranked = {key: r for r, key in enumerate(sorted(set(keys)))}
      keys = np.array([ranked[key] for key in keys], np.int64)
    out[b, which] = np.unique(keys, return_inverse=True)[1].ravel()
  return out


def _showdown_tables(rules, hands, boards, valid, members, subsets) -> dict:
  """Strengths and the sorted orders of the prefix-sum showdown (PublicTree's fields)."""
  k = hands.shape[1]
  strength = strengths(rules, hands, boards, valid)
  if not len(boards):
    empty = tuple(np.zeros((0,) + m.shape, np.int32) for m in members[: k - 1])
    subs = tuple(np.zeros((0,) + s.shape, np.int32) for s in subsets[: k - 1])
    return dict(strength=strength, order=strength, lo=strength, hi=strength, sub_order=empty, sub_lo=subs, sub_hi=subs)
  order = np.argsort(strength, axis=1, kind="stable").astype(np.int32)
  ordered = np.take_along_axis(strength, order, 1)
  lo = np.stack([np.searchsorted(o, s, "left") for o, s in zip(ordered, strength)]).astype(np.int32)
  hi = np.stack([np.searchsorted(o, s, "right") for o, s in zip(ordered, strength)]).astype(np.int32)
  sub_order, sub_lo, sub_hi = [], [], []
  for s in range(1, k):
    sub_strength = strength[:, members[s - 1]]  # [Bs, M, W]
    by = np.argsort(sub_strength, axis=2, kind="stable")
    sub_order.append(np.take_along_axis(np.broadcast_to(members[s - 1], by.shape), by, 2).astype(np.int32))
    below, above = np.zeros((2, len(boards)) + subsets[s - 1].shape, np.int32)
    for b in range(len(boards)):  # one board at a time: [H, C, W] per board
      held = sub_strength[b][subsets[s - 1]]  # the strengths of the members of each hand's subsets
      own = strength[b][:, None, None]
      below[b], above[b] = (held < own).sum(-1), (held <= own).sum(-1)
    sub_lo.append(below)
    sub_hi.append(above)
  return dict(
    strength=strength, order=order, lo=lo, hi=hi, sub_order=tuple(sub_order), sub_lo=tuple(sub_lo), sub_hi=tuple(sub_hi)
  )


def check(tree: PublicTree) -> None:
  """Raises ValueError naming the first inconsistency of ``tree``'s structure, deals,
  payoffs, ranges or card-removal tables."""
  n, k = tree.rules.num_cards, tree.rules.hand_size
  size = tree.num_nodes
  depth = np.zeros(size, np.int64)
  for d in range(len(tree.depth_offsets) - 1):
    depth[tree.depth_offsets[d] : tree.depth_offsets[d + 1]] = d
  for node in range(size):
    kids = np.arange(tree.first_child[node], tree.first_child[node] + tree.num_children[node])
    if np.any(tree.parent[kids] != node) or np.any(depth[kids] != depth[node] + 1):
      raise ValueError(f"node {node}'s children are not contiguous or not one level down")
    terminal = tree.kind[node] in (FOLD, SHOWDOWN, PAYOFF, LEAF)
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
    if tree.kind[node] == DECISION and (ids != sorted(set(ids)) or ids != tree.action[kids].tolist()):
      raise ValueError(f"decision node {node}'s action ids do not match its children")
    if tree.kind[node] == FOLD and tree.player[node] != tree.player[tree.parent[node]]:
      raise ValueError(f"fold node {node} is not folded by the player who acted")
  kids = tree.parent >= 0
  if np.any(tree.contribution[kids] < tree.contribution[tree.parent[kids]]):
    raise ValueError("a contribution decreases from a node to its child")
  blocked = np.array([np.isin(tree.hands, b[b >= 0]).any(1) for b in tree.boards])
  if np.any(tree.valid == blocked):
    raise ValueError("the valid masks do not match the boards")
  root = tree.initial_range * tree.valid[tree.board[0]]
  if tree.initial_range.shape != (2, tree.num_hands) or np.any(tree.initial_range < 0):
    raise ValueError(f"the initial ranges must be [2, {tree.num_hands}] and >= 0")
  joint = disjoint_pairs(tree.hands, root[0], root[1]) if tree.members else root[0].sum() * root[1].sum()
  if not np.isclose(joint, 1.0):
    raise ValueError(
      "the initial ranges do not make a joint distribution of the two hands (they sum to one over pairs)"
    )
  if bool(tree.members) != bool(tree.rules.card_removal):
    raise ValueError(
      f"card removal tables {'present' if tree.members else 'missing'} for rules.card_removal={tree.rules.card_removal}"
    )
  payoffs = tree.kind == PAYOFF
  if np.any((tree.payoff_index >= 0) != payoffs) or tree.payoff_tables.shape[1:] != (tree.num_hands,) * 2:
    raise ValueError("the payoff tables do not match the PAYOFF terminals")
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


@_pytree(meta=("level_slices", "level_dealt", "showdown_step_bytes"))
class PublicTreeTensors:
  """The public tree on the device (see PublicTree for the sizes). ``N_p`` decision nodes
  of player ``p``; level ``d`` holds the nodes of depth ``d``, ``level_slices[d]``, ``n_d``
  of them with at most ``C_d`` children each (in level ``d + 1``); ``T = F + S + P``
  terminals, the ``F`` folds, the ``S`` showdowns, then the ``P`` payoff terminals. Per player, a strategy
  ``[N_p, A, H, *B]`` is read through flat tables: its ``N_p A`` rows (node, slot) followed
  by constant rows, so that each level's factors are one gather.

  Attributes:
    kind, player: [N] int8 (PublicTree's); board: [N] int32, the node's row of ``valid``.
    valid: [Bd, H] bool, the hands that the board's cards leave possible.
    decision_nodes: per player, [N_p] int32; legal, children: per player, [N_p, A] bool
      and int32 (child node ids, 0 where illegal).
    level_parent: per level ``d >= 1``, [n_d] int32, the parent counted from level ``d - 1``'s first node.
    reach_index: per player, per level ``d >= 1``, [n_d] int32, the row of the factor the
      player's reach gains on the incoming edge: its strategy's (parent, slot) row if the
      parent is the player's decision, else ``N_p A`` (a row of ones).
    Bottom-up, each level ``d < D - 1`` gathers its decision nodes' children and its
    chance nodes' children apart (``nD_d`` decision nodes with at most ``A_d`` children,
    ``nC_d`` chance nodes with at most ``C_d``), so that a chance node's many deals do not
    pad the decision nodes beside it:
    decision_children: per level, [nD_d, A_d] int32, children counted from level ``d + 1``'s
      first node (0 at padding); decision_legal: per level, [nD_d, A_d] bool, not padding.
    decision_weight: per player, per level, [nD_d, A_d] int32, the row of each child's weight:
      the strategy's (node, slot) row at the player's own decisions, else ``N_p A + 1`` (a
      row of ones) or ``N_p A`` (zeros, at padding).
    decision_own: per player, per level, [nD_d] bool, the player's own decision nodes.
    chance_children: per level, [nC_d, C_d] int32; chance_weight: per level, [nC_d, C_d]
      float, each deal's probability (0 at padding).
    level_gather: per level, [n_d] int32, each node's row in the decision values, then the
      chance values, then one row of zeros (the terminals').
    terminal_row: [N] int32, each terminal's row among the ``T + L`` terminals and leaves
      (the folds, the showdowns, the payoff terminals, then the leaves), ``T + L`` elsewhere.
    fold_nodes: [F] int32; fold_payoff: [2, F] float, each player's payoff at each fold
      (minus its chips if it folded, else the folder's chips).
    showdown_nodes: [S] int32; showdown_table: [S] int32, its board's row of ``strength``,
      ``order`` and the other sorted tables; showdown_chips: [S, 2] float, the contributions.
    showdown_groups: [Bs, G] int32, the showdowns on each showdown board (rows of
      ``showdown_nodes``; ``G`` the most on one board, padded with ``S``), so that a board's
      sorted tables are read once for all its showdowns; showdown_slot: [S] int32, each
      showdown's position in ``showdown_groups`` flattened.
    payoff_nodes: [P] int32; payoff_table: [P] int32, each one's row of ``payoff_tables``
      [K, H, H] float (player 0's payoff per pair of hands; PublicTree's).
    hands: [H, k] int32; members, subsets, strength, order, lo, hi, sub_order, sub_lo,
      sub_hi: PublicTree's card-removal and showdown tables.
    leaf_nodes: [L] int32, the leaves of a depth-limited tree (poker_rules.Subgame; none
      otherwise); leaf_chips: [L, 2] float, the contributions there.
    boards: [Bd, max board] int32, each board's cards (-1 padding).
    initial_range: [2, H] float.
    level_slices: static ((lo, hi), ...) node ranges by depth.
    level_dealt: static, per level, whether any of its nodes follows a deal (its ranges
      are masked by ``valid`` there).
    showdown_step_bytes: static, the working set of one step of the loop over the showdown
      boards (jaxcfr.core.public_tree's ``_by_board``): 0, one board a step (a CPU: the
      working set stays in cache); else as many boards a step as fit it (an accelerator:
      fewer, wider steps, since each step of a loop costs kernel launches).
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
  decision_children: tuple
  decision_legal: tuple
  decision_weight: tuple
  decision_own: tuple
  chance_children: tuple
  chance_weight: tuple
  level_gather: tuple
  terminal_row: jax.Array
  fold_nodes: jax.Array
  fold_payoff: jax.Array
  showdown_nodes: jax.Array
  showdown_table: jax.Array
  showdown_chips: jax.Array
  showdown_groups: jax.Array
  showdown_slot: jax.Array
  payoff_nodes: jax.Array
  payoff_table: jax.Array
  payoff_tables: jax.Array
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
  leaf_nodes: jax.Array
  leaf_chips: jax.Array
  boards: jax.Array
  initial_range: jax.Array
  level_slices: tuple
  level_dealt: tuple
  showdown_step_bytes: int = 0

  @property
  def dtype(self):
    return self.initial_range.dtype

  @property
  def num_hands(self) -> int:
    return self.hands.shape[0]

  @property
  def max_actions(self) -> int:
    return self.legal[0].shape[1]


def _groups(label: np.ndarray, count: int) -> tuple:
  """([count, G], [len(label)]) the positions of each label's members (padded with
  ``len(label)``), and each member's position in the flattened groups."""
  sizes = np.bincount(label, minlength=count)
  width = max(int(sizes.max(initial=0)), 1)
  groups = np.full((count, width), len(label), np.int64)
  slot = np.zeros(len(label), np.int64)
  for g in range(count):
    members = np.flatnonzero(label == g)
    groups[g, : len(members)] = members
    slot[members] = g * width + np.arange(len(members))
  return groups, slot


# One step of the loop over showdown boards on an accelerator: 1 GiB of working set.
ACCELERATOR_SHOWDOWN_STEP_BYTES = 2**30


def to_device(tree: PublicTree, dtype=None, showdown_step_bytes: int | None = None) -> PublicTreeTensors:
  """The device pytree of ``tree`` (float leaves in ``dtype``, default JAX's float) on JAX's
  default device. ``showdown_step_bytes``: PublicTreeTensors' (default: 0 on a CPU,
  ``ACCELERATOR_SHOWDOWN_STEP_BYTES`` elsewhere); it changes the speed, not the values."""
  if showdown_step_bytes is None:
    showdown_step_bytes = 0 if jax.default_backend() == "cpu" else ACCELERATOR_SHOWDOWN_STEP_BYTES
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
  level_parent, reach_index = [], ([], [])
  for (lo, hi), (prev_lo, _) in zip(level_slices[1:], level_slices[:-1]):
    parent = tree.parent[lo:hi]
    level_parent.append(parent - prev_lo)
    for p in (0, 1):
      own = row[p, parent] >= 0
      reach_index[p].append(np.where(own, row[p, parent] + slot[lo:hi], len(decision_nodes[p]) * width))
  below = dict(decision_children=[], decision_legal=[], chance_children=[], chance_weight=[], level_gather=[])
  decision_weight, decision_own = ([], []), ([], [])
  for (lo, hi), (next_lo, _) in zip(level_slices[:-1], level_slices[1:]):
    groups = []
    for kind in (DECISION, CHANCE):
      nodes = lo + np.flatnonzero(tree.kind[lo:hi] == kind)
      count = tree.num_children[nodes]
      c = max(int(count.max(initial=0)), 1)
      present = np.arange(c)[None, :] < count[:, None]
      child = np.where(present, tree.first_child[nodes, None] + np.arange(c)[None, :], 0)
      groups.append((nodes, present, child, np.where(present, child - next_lo, 0)))
    (nodes, present, _, kids), (chance, chance_present, chance_child, chance_kids) = groups
    below["decision_children"].append(kids)
    below["decision_legal"].append(present)
    below["chance_children"].append(chance_kids)
    below["chance_weight"].append(np.where(chance_present, tree.chance_prob[chance_child], 0.0))
    gather = np.full(hi - lo, len(nodes) + len(chance), np.int64)
    gather[nodes - lo] = np.arange(len(nodes))
    gather[chance - lo] = len(nodes) + np.arange(len(chance))
    below["level_gather"].append(gather)
    for p in (0, 1):
      own = row[p, nodes] >= 0
      constant = len(decision_nodes[p]) * width + present
      decision_weight[p].append(np.where(own[:, None], row[p, nodes, None] + np.arange(present.shape[1]), constant))
      decision_own[p].append(own)
  fold_nodes = np.flatnonzero(tree.kind == FOLD)
  showdown_nodes = np.flatnonzero(tree.kind == SHOWDOWN)
  payoff_nodes = np.flatnonzero(tree.kind == PAYOFF)
  leaf_nodes = np.flatnonzero(tree.kind == LEAF)
  terminals = (fold_nodes, showdown_nodes, payoff_nodes, leaf_nodes)
  terminal_row = np.full(size, sum(map(len, terminals)), np.int64)
  for offset, nodes in zip(np.cumsum([0] + [len(t) for t in terminals[:-1]]), terminals):
    terminal_row[nodes] = offset + np.arange(len(nodes))
  chips = tree.contribution[fold_nodes].astype(np.float64)
  folder = tree.player[fold_nodes]
  fold_payoff = np.stack([np.where(folder == p, -chips[:, p], chips[:, 1 - p]) for p in (0, 1)])
  table_of_board = {int(b): i for i, b in enumerate(tree.showdown_boards)}
  showdown_table = np.array([table_of_board[int(b)] for b in tree.board[showdown_nodes]], np.int64)
  showdown_groups, showdown_slot = _groups(showdown_table, len(tree.showdown_boards))
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
    decision_children=indices(below["decision_children"]),
    decision_legal=tuple(jnp.asarray(x) for x in below["decision_legal"]),
    decision_weight=tuple(indices(x) for x in decision_weight),
    decision_own=tuple(tuple(jnp.asarray(x) for x in own) for own in decision_own),
    chance_children=indices(below["chance_children"]),
    chance_weight=tuple(jnp.asarray(x, dtype) for x in below["chance_weight"]),
    level_gather=indices(below["level_gather"]),
    terminal_row=index(terminal_row),
    fold_nodes=index(fold_nodes),
    fold_payoff=jnp.asarray(fold_payoff, dtype),
    showdown_nodes=index(showdown_nodes),
    showdown_table=index(showdown_table),
    showdown_chips=jnp.asarray(tree.contribution[showdown_nodes], dtype),
    showdown_groups=index(showdown_groups),
    showdown_slot=index(showdown_slot),
    payoff_nodes=index(payoff_nodes),
    payoff_table=index(tree.payoff_index[payoff_nodes]),
    payoff_tables=jnp.asarray(tree.payoff_tables, dtype),
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
    leaf_nodes=index(leaf_nodes),
    leaf_chips=jnp.asarray(tree.contribution[leaf_nodes], dtype).reshape(-1, 2),
    boards=index(tree.boards),
    initial_range=jnp.asarray(tree.initial_range, dtype),
    level_slices=level_slices,
    level_dealt=(False,) + dealt,
    showdown_step_bytes=int(showdown_step_bytes),
  )
