"""The public tree of a poker game: one node per public state, arrays over private hands.

For games whose private information is dealt by chance and whose actions are all public,
vector-form CFR keeps one node per public state and, at each node, arrays over every
player's private hands (ranges ``[H]``, strategies ``[A, H]``, counterfactual values ``[H]``;
Johanson, Bowling, Waugh and Zinkevich, "Accelerating Best Response Calculation in Large
Extensive Games", 2011; Moravcik et al., "DeepStack: Expert-Level Artificial Intelligence in
Heads-Up No-Limit Poker", 2017). This module builds that tree on the host from the
declarative rules of a public game (jaxcfr.games.poker_rules: ``PokerRules`` for limit poker
from the deal, ``NoLimitRules`` for no-limit subgames from a board, a pot and ranges, with a
bet-size abstraction), checks it (jaxcfr.kits.public_tree.checks), maps it onto the sequence form of the same game
(jaxcfr.kits.public_tree.conversion) and moves it to the device (jaxcfr.kits.public_tree.device);
``public_tree_of`` builds the tree of a game's rules object (one that offers
``public_tree_rules()``). The operations are in jaxcfr.kits.public_tree.values, the CFR family
in jaxcfr.solvers.cfr, the layout and the terminal algorithms in docs/design.md.

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

import numpy as np

from jaxcfr.kits.card_abstraction import hand_eval
from jaxcfr.base import memory
from jaxcfr.kits.public_tree.checks import check
from jaxcfr.games.no_limit_rules import NoLimitRules
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
  PokerRules,
  Subgame,
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

  @property
  def deck_rows(self) -> np.ndarray:
    """[H] int64, each hand's row in the list of every hand of the deck (poker_rules.hands'
    order, e.g. hold'em's 1,326): ``arange(H)`` unless the tree holds only the hands in play
    (``rules.hands_in_play``)."""
    deck = all_hands(self.rules.num_cards, self.rules.hand_size)
    if len(deck) == self.num_hands:
      return np.arange(self.num_hands)
    index = {tuple(hand): row for row, hand in enumerate(deck.tolist())}
    return np.array([index[tuple(hand)] for hand in self.hands.tolist()], np.int64)

  def on_deck(self, x, axis: int = 0, fill: float = 0.0) -> np.ndarray:
    """``x`` with its hand axis ``axis`` (length H) spread over every hand of the deck
    (``deck_rows``), ``fill`` on the hands the tree leaves out."""
    x = np.moveaxis(np.asarray(x), axis, 0)
    deck = math.comb(self.rules.num_cards, self.rules.hand_size)
    out = np.full((deck,) + x.shape[1:], fill, np.result_type(x.dtype, np.asarray(fill).dtype))
    out[self.deck_rows] = x
    return np.moveaxis(out, 0, axis)

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


def build(rules, name: str | None = None) -> PublicTree:
  """The checked public tree of ``rules`` (breadth-first, see PublicTree): a PokerRules, a
  NoLimitRules, or any rules of the public-game protocol (jaxcfr.games.poker_rules). Priced as
  it grows (every 4,096 nodes: nodes times hands, ``BYTES_PER_NODE_HAND``), a tree beyond the
  memory limit is refused in a second or so; ``name``, the game's, for that message."""
  root = rules.root()
  records = [(*rules.kind_of(root), -1, -1, 1.0, root)]  # (kind, player, parent, action, prob, state)
  depth, first_child, num_children = [0], [], []
  hands = all_hands(rules.num_cards, rules.hand_size)
  initial_range = np.asarray(rules.initial_range(), np.float64)
  if getattr(rules, "hands_in_play", False):  # optional in the protocol (poker_rules)
    hands, initial_range = _hands_in_play(hands, initial_range)
  room, num_hands = memory.limit(), len(hands)
  for index in itertools.count():
    if index == len(records):
      break
    if not index % 4096:  # the solver's arrays over nodes and hands, priced as the tree grows
      memory.check(
        len(records) * num_hands * BYTES_PER_NODE_HAND,
        "the public tree" if name is None else f"the public tree of {name}",
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
  valid = ~(hands[None, :, :, None] == boards[:, None, None, :]).any((2, 3))
  board = np.array([board_index[s.board] for s in states], np.int32)
  showdown_boards = np.unique(board[kind == SHOWDOWN]).astype(np.int32)
  out_of_play = int(np.argmin((initial_range > 0).any(0)))  # padding of ragged holder lists (_card_removal)
  members, subsets = _card_removal(rules.num_cards, hands, out_of_play) if rules.card_removal else ((), ())
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
    initial_range=initial_range,
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


def public_tree_of(game, name: str | None = None) -> PublicTree:
  """The public tree of a game's rules object (jaxcfr.games): ``build(game.public_tree_rules(),
  name)``. Raises ValueError if the game declares no public tree."""
  if not hasattr(game, "public_tree_rules"):
    raise ValueError(f"{getattr(game, 'name', game)!r} declares no public tree (it has no public_tree_rules())")
  return build(game.public_tree_rules(), name)


def _hands_in_play(hands: np.ndarray, initial_range: np.ndarray) -> tuple:
  """([H', k], [2, H']) the hands with a weight in either player's range at the root and the
  first hand without (the padding of the card-removal tables' holder lists: ``_card_removal``),
  in ``hands``' order, and their ranges; ``hands`` and ``initial_range`` unchanged when every
  hand is in play."""
  in_play = (initial_range > 0).any(0)
  if in_play.all():
    return hands, initial_range
  keep = np.sort(np.concatenate([[np.argmin(in_play)], np.flatnonzero(in_play)]))
  return hands[keep], initial_range[:, keep]


def _card_removal(num_cards: int, hands: np.ndarray, padding: int = 0) -> tuple:
  """Per subset size ``s = 1..k``: the hands holding each ``s``-subset of the deck ([M_s, W_s])
  and each hand's ``s``-subsets ([H, C(k, s)]). With every hand of the deck each ``s``-subset
  has ``W_s = C(n - s, k - s)`` holders; with some of them (``_hands_in_play``) the lists are
  padded to the longest with ``padding``, a hand out of play (zero reach everywhere, so
  padding adds nothing to a sum over holders)."""
  members, subsets = [], []
  k = hands.shape[1]
  for s in range(1, k + 1):
    index = {c: i for i, c in enumerate(itertools.combinations(range(num_cards), s))}
    of_hand = np.array([[index[c] for c in itertools.combinations(hand.tolist(), s)] for hand in hands], np.int32)
    holders = [[] for _ in index]
    for h, row in enumerate(of_hand):
      for m in row:
        holders[m].append(h)
    width = max(len(h) for h in holders)
    members.append(np.array([h + [padding] * (width - len(h)) for h in holders], np.int32))
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
      of jaxcfr.kits.card_abstraction.hand_eval, with card ``c`` as hold'em's ``(c // suits) * 4 + c % suits``).
    hands: [H, k] cards; boards: [B, b] cards (-1 padding).
  """
  out = np.full(valid.shape, -1, np.int32)
  holdem = _holdem_ranks(rules, hands, boards) if rules.strength == HOLDEM else None
  for b, row in enumerate(boards):
    which = np.flatnonzero(valid[b])
    if holdem is not None:
      keys = holdem[b, which]
    else:
      public = tuple(int(c) for c in row if c >= 0)
      keys = [rules.strength(tuple(int(c) for c in hands[h]) + public, rules.suits) for h in which]
      ranked = {key: r for r, key in enumerate(sorted(set(keys)))}
      keys = np.array([ranked[key] for key in keys], np.int64)
    out[b, which] = np.unique(keys, return_inverse=True)[1].ravel()
  return out


# hand_eval.hand_rank's calls take at most this many hands, padded to a power of two: a few
# program shapes for every spot (each compiled once, then read from the compilation cache)
# instead of one per board's count of valid hands
_RANK_CHUNK = 2**18


def _holdem_ranks(rules, hands: np.ndarray, boards: np.ndarray) -> np.ndarray:
  """[B, H] int32 hand_eval.hand_rank of every hand with every board (boards of one length at
  a time; meaningless where the hand shares a card with the board, which ``strengths`` skips)."""
  out = np.zeros((len(boards), len(hands)), np.int32)
  length = (boards >= 0).sum(1)
  for size in np.unique(length):
    rows = np.flatnonzero(length == size)
    public = np.stack([row[row >= 0] for row in boards[rows]])  # [R, size]
    cards = np.concatenate(
      [
        np.broadcast_to(hands, (len(rows),) + hands.shape),
        np.broadcast_to(public[:, None], (len(rows), len(hands), size)),
      ],
      2,
    ).reshape(len(rows) * len(hands), -1)
    cards = (cards // rules.suits) * 4 + cards % rules.suits
    ranks = np.empty(len(cards), np.int32)
    for start in range(0, len(cards), _RANK_CHUNK):
      chunk = cards[start : start + _RANK_CHUNK]
      padded = np.zeros((min(_RANK_CHUNK, 1 << (len(chunk) - 1).bit_length()), chunk.shape[1]), chunk.dtype)
      padded[: len(chunk)] = chunk
      ranks[start : start + len(chunk)] = np.asarray(hand_eval.hand_rank(padded))[: len(chunk)]
    out[rows] = ranks.reshape(len(rows), len(hands))
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
