"""Poker as a public game: the declarative rules from which jaxcfr.kits.public_tree.tree builds the
public tree (one node per public state, arrays over private hands).

Cards are ``0 .. ranks * suits - 1``; card ``c`` has rank ``c // suits`` (0 = the lowest) and
suit ``c % suits``. A hand is a sorted tuple of ``hand_size`` cards; both players hold hands
of one list, every ``hand_size``-subset of the deck in lexicographic order (``hands``). A
board is the tuple of public cards dealt so far, in the order they were dealt.

**The public-game protocol.** A rules object offers:

- ``num_cards``, ``suits``, ``hand_size``: the deck and the private cards of each player;
- ``card_removal``: True where the players' hands and the board come from one deck (a hand
  that shares a card with the other's or the board's is impossible); False where private
  hands never conflict (a die each: ``hand_size`` 1, hand ``h`` is face ``h``);
- ``root()``: the public state at the root; a state has ``round``, ``board`` (a tuple of
  cards) and ``chips`` (each player's contribution so far);
- ``kind_of(state)``: ``(kind, player)``, with kinds DECISION (the acting player), CHANCE,
  FOLD (the folding player), SHOWDOWN, PAYOFF and LEAF (player -1 at chance nodes,
  showdowns, payoffs and leaves; a LEAF is where a depth-limited lookahead stops:
  ``Subgame``; a PAYOFF is a terminal of any other game);
- ``children(state)``: ``[(kind, player, action id, chance probability, child state)]`` of a
  decision or chance state, decisions' children in ascending action id. A chance node deals
  ``m`` public cards, each combination once, with probability ``1 / C(n - 2k - |board|, m)``
  for a deck of ``n`` and hands of ``k`` (conditional on both hands);
- ``initial_range()``: ``[2, H]`` float64, each player's weight of each hand at the root,
  zero on the hands the root's board blocks, such that ``r0(h0) r1(h1)`` summed over the
  pairs of hands that share no card is one (the joint probability of the private deal);
- ``payoff(state)`` (games with PAYOFF terminals): ``[H, H]`` float64, player 0's payoff at
  that terminal for each pair of hands ``(h0, h1)`` (player 1's is minus it);
- ``strength``: the showdown order, either ``strength(cards, suits)`` (the key of a hand's
  and the board's cards: higher wins, equal keys tie) or ``HOLDEM`` (the seven-card hold'em
  ranking of two private and five public cards, which the game layer evaluates);
- ``hands_in_play`` (optional, False if absent): the public tree holds only the hands with a
  weight in either player's initial range (NoLimitRules documents it).

Two families implement it for poker: ``PokerRules``, limit poker from the deal on (Kuhn,
one-card poker, Leduc), and ``NoLimitRules`` (games/no_limit_rules.py), no-limit subgames from a
given board, pot and ranges with a bet-size abstraction (heads-up no-limit hold'em endgames:
games/hunl_subgame.py);
games/liars_dice.py implements it for liar's dice (private dice, public bids, PAYOFF terminals).
``Subgame`` wraps any of them: the game below one of its public states, with given ranges,
to the end of the game or depth-limited to a number of betting rounds (DeepStack's
lookahead: Moravcik et al., "DeepStack: Expert-Level Artificial Intelligence in Heads-Up
No-Limit Poker", 2017).
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import math
from collections.abc import Callable

import numpy as np

__all__ = [
  "deal",
  "check_strength",
  "DECISION",
  "CHANCE",
  "FOLD",
  "SHOWDOWN",
  "HOLDEM",
  "FOLD_CALL_RAISE",
  "PASS_BET",
  "FOLD_ID",
  "CALL_ID",
  "ALL_IN",
  "rank_groups",
  "hands",
  "PokerRules",
  "kuhn_rules",
  "one_card_poker_rules",
  "leduc_rules",
  "disjoint_pairs",
  "LEAF",
  "PAYOFF",
  "normalised_ranges",
  "Subgame",
]

DECISION, CHANCE, FOLD, SHOWDOWN, LEAF, PAYOFF = 0, 1, 2, 3, 4, 5  # public node kinds
HOLDEM = "holdem"  # the seven-card hold'em showdown (two private cards and a board of five)
FOLD_CALL_RAISE = "fold_call_raise"  # action ids fold 0, call (check) 1, raise 2 (OpenSpiel's Leduc)
PASS_BET = "pass_bet"  # pass 0 (check, fold), bet 1 (bet, call) (OpenSpiel's Kuhn), for one raise a round
FOLD_ID, CALL_ID = 0, 1  # no-limit action ids; bets and raises are 2, 3, ... (NoLimitRules.sizes)
ALL_IN = math.inf  # the bet size (in pots) of the all-in
_FOLD, _CALL, _RAISE = "f", "c", "r"


def rank_groups(cards: tuple, suits: int) -> tuple:
  """Showdown key of cards (a hand and the board) by their ranks alone: more of a kind
  first, then higher ranks ((count, rank) pairs, descending); no straights or flushes. It
  orders Kuhn poker (the higher card), one-card poker and Leduc (a pair with the board,
  then the higher card)."""
  ranks = [c // suits for c in cards]
  return tuple(sorted(((count, rank) for rank, count in collections.Counter(ranks).items()), reverse=True))


def hands(num_cards: int, hand_size: int) -> np.ndarray:
  """[H, k] int32, every ``k``-subset of the deck in lexicographic order (both players' hands)."""
  return np.array(list(itertools.combinations(range(num_cards), hand_size)), np.int32).reshape(-1, hand_size)


def deal(num_cards: int, hand_size: int, state, m: int, settle: Callable, kind_of: Callable) -> list:
  """The children of a chance state dealing ``m`` public cards: every combination of the
  cards not on the board, with its probability given both hands; ``settle(child)`` is the
  dealt state where play goes on, ``kind_of`` its (kind, player)."""
  remaining = [c for c in range(num_cards) if c not in state.board]
  prob = 1.0 / math.comb(num_cards - 2 * hand_size - len(state.board), m)
  out = []
  for index, cards in enumerate(itertools.combinations(remaining, m)):
    child = settle(dataclasses.replace(state, board=state.board + cards))
    out.append((*kind_of(child), index, prob, child))
  return out


def check_strength(rules) -> None:
  """Raises ValueError unless the rules' showdown order suits their deck (HOLDEM: two private
  cards, at most 13 ranks and 4 suits, five board cards)."""
  if rules.strength == HOLDEM:
    if rules.hand_size != 2 or rules.suits > 4 or rules.ranks > 13 or rules.final_board != 5:
      raise ValueError(
        f"strength={HOLDEM!r} needs hands of 2 cards, a board of 5, at most 4 suits and 13 ranks, got hand_size="
        f"{rules.hand_size}, a board of {rules.final_board}, {rules.suits} suits and {rules.ranks} ranks"
      )
  elif not callable(rules.strength):
    raise ValueError(f"strength must be a callable or {HOLDEM!r}, got {rules.strength!r}")


# --- limit poker from the deal -------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _LimitState:
  """A public state of limit poker: round, the round's abstract actions, the board, chips
  in, chips owed by the player to act."""

  round: int
  actions: tuple
  board: tuple
  chips: tuple
  owed: int


@dataclasses.dataclass(frozen=True)
class PokerRules:
  """A two-player limit poker game from the private deal on, declaratively (the public-game
  protocol: module doc).

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
      cards (higher wins, equal keys tie), or HOLDEM.
  """

  ranks: int
  suits: int = 1
  hand_size: int = 1
  board_cards: tuple = (0,)
  raise_sizes: tuple = (1,)
  max_raises: int = 1
  ante: int = 1
  actions: str = FOLD_CALL_RAISE
  strength: Callable | str = rank_groups
  card_removal = True  # the protocol's (module doc); a class constant, not a field

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
    check_strength(self)

  @property
  def num_cards(self) -> int:
    return self.ranks * self.suits

  @property
  def final_board(self) -> int:
    """Public cards at a showdown."""
    return sum(self.board_cards)

  def action_id(self, action: str, facing: bool) -> int:
    """The game's id of an abstract action (fold, call, raise)."""
    if self.actions == PASS_BET:
      return {_FOLD: 0, _CALL: int(facing), _RAISE: 1}[action]
    return {_FOLD: 0, _CALL: 1, _RAISE: 2}[action]

  def root(self) -> _LimitState:
    return _LimitState(0, (), (), (self.ante, self.ante), 0)

  def kind_of(self, state: _LimitState) -> tuple:
    """(kind, player) of a non-terminal state."""
    if len(state.board) < sum(self.board_cards[: state.round + 1]):
      return CHANCE, -1
    return DECISION, len(state.actions) % 2

  def children(self, state: _LimitState) -> list:
    """[(kind, player, action id, chance prob, child state)] of a decision or chance state."""
    if self.kind_of(state)[0] == CHANCE:
      return deal(self.num_cards, self.hand_size, state, self.board_cards[state.round], lambda x: x, self.kind_of)
    player, facing = len(state.actions) % 2, state.owed > 0
    legal = ([_FOLD] if facing else []) + [_CALL] + ([_RAISE] if state.actions.count(_RAISE) < self.max_raises else [])
    out = []
    for action in legal:
      chips, owed, actions = list(state.chips), 0, state.actions + (action,)
      if action == _FOLD:
        out.append((FOLD, player, self.action_id(action, facing), 1.0, dataclasses.replace(state, actions=actions)))
        continue
      if action == _CALL:
        chips[player] += state.owed
      else:
        owed = self.raise_sizes[state.round]
        chips[player] += state.owed + owed
      child = _LimitState(state.round, actions, state.board, tuple(chips), owed)
      if action == _CALL and len(actions) >= 2:  # the round is over
        if state.round + 1 == len(self.board_cards):
          out.append((SHOWDOWN, -1, self.action_id(action, facing), 1.0, child))
          continue
        child = _LimitState(state.round + 1, (), state.board, tuple(chips), 0)
      out.append((*self.kind_of(child), self.action_id(action, facing), 1.0, child))
    return sorted(out, key=lambda entry: entry[2])

  def initial_range(self) -> np.ndarray:
    """[2, H] the private deal folded into the ranges: player 0's ``1 / C(n, k)`` (its
    marginal), player 1's ``1 / C(n - k, k)`` (conditional on player 0's hand)."""
    n, k = self.num_cards, self.hand_size
    count = math.comb(n, k)
    return np.stack([np.full(count, 1 / math.comb(n, k)), np.full(count, 1 / math.comb(n - k, k))])


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


# --- no-limit subgames ----------------------------------------------------------------------------


def normalised_ranges(table: np.ndarray, board: tuple, weights: np.ndarray) -> np.ndarray:
  """[2, H] ``weights`` [2, H] zeroed on the hands (rows of ``table``) that ``board`` blocks,
  player 0's scaled to sum to one, player 1's so that ``r0(h0) r1(h1)`` sums to one over the
  pairs of hands that share no card (the private deal's joint probability).

  Raises:
    ValueError: a player's range has no weight left, or no pair of hands is possible.
  """
  weights = np.array(weights, np.float64) * ~np.isin(table, board).any(1)
  if weights.shape != (2, len(table)) or np.any(weights < 0) or not np.all(np.isfinite(weights)):
    raise ValueError(f"ranges must be [2, {len(table)}] finite weights >= 0, got shape {weights.shape}")
  for p in (0, 1):
    if not weights[p].sum() > 0:
      raise ValueError(f"the range of player {p} has no weight on a hand that the board {board} leaves possible")
  weights[0] /= weights[0].sum()
  joint = disjoint_pairs(table, weights[0], weights[1])
  if not joint > 0:
    raise ValueError("the two ranges have no pair of hands that share no card")
  weights[1] /= joint
  return weights


def disjoint_pairs(table: np.ndarray, r0: np.ndarray, r1: np.ndarray) -> float:
  """``sum r0(h0) r1(h1)`` over the pairs of hands (rows of ``table`` [H, k]) that share no
  card, by inclusion-exclusion over the card subsets ``S`` two hands can share:
  ``sum_S (-1)^|S| R0(S) R1(S)``, with ``R(S)`` the weight of the hands holding ``S``."""
  k = table.shape[1]
  base = int(table.max()) + 1
  total = 0.0
  for s in range(k + 1):
    keys = [sum(table[:, c] * base**j for j, c in enumerate(cols)) for cols in itertools.combinations(range(k), s)]
    keys = np.concatenate([np.broadcast_to(key, len(table)) for key in keys])
    _, inverse = np.unique(keys, return_inverse=True)
    reps = len(keys) // len(table)
    total += (-1) ** s * float(np.dot(np.bincount(inverse, np.tile(r0, reps)), np.bincount(inverse, np.tile(r1, reps))))
  return total


# --- subgames and depth-limited lookaheads --------------------------------------------------------


class Subgame:
  """The public game below one public state of ``rules`` (any rules of the protocol), with
  given ranges there, to the end of the game or depth-limited: with ``rounds`` set, the
  first decision of a betting round ``rounds`` or more after the root's becomes a LEAF,
  whose counterfactual values a function supplies (DeepStack's lookahead, which stops at
  the end of the root's betting round, ``rounds=1``: Moravcik et al. 2017). Chance nodes
  and showdowns before a leaf stay in the tree, so a leaf follows the deal of its round
  and knows its board; an all-in runout has no decision and is solved exactly.

  Attributes:
    whole: the rules of the whole game (``rules``, or its ``whole`` if it is a Subgame).

  Args:
    rules: the whole game's rules.
    root: a public state of ``rules`` (default ``rules.root()``).
    ranges: [2, H] each player's weight of each hand at ``root`` (``normalised_ranges``);
      default the rules' own ranges when ``root`` is the game's root, else uniform.
    rounds: None (to the end of the game) or the betting rounds kept, >= 1.
  """

  def __init__(self, rules, root=None, ranges=None, rounds: int | None = None):
    if not rules.card_removal:
      raise ValueError("Subgame needs a card game (rules.card_removal): its ranges are normalised over disjoint hands")
    if rounds is not None and (isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1):
      raise ValueError(f"rounds must be None or an int >= 1, got {rounds!r}")
    self.rules, self.rounds = rules, rounds
    self.whole = getattr(rules, "whole", rules)  # the whole game's rules (a Subgame of a Subgame's too)
    self.state = rules.root() if root is None else root
    table = hands(rules.num_cards, rules.hand_size)
    if ranges is None:
      self.ranges = (
        rules.initial_range() if root is None else normalised_ranges(table, self.state.board, np.ones((2, len(table))))
      )
    else:
      self.ranges = normalised_ranges(table, self.state.board, ranges)
    self.num_cards, self.hand_size = rules.num_cards, rules.hand_size
    self.suits, self.strength, self.card_removal = rules.suits, rules.strength, rules.card_removal

  def root(self):
    return self.state

  def _cut(self, kind: int, player: int, state) -> tuple:
    if kind == DECISION and self.rounds is not None and state.round >= self.state.round + self.rounds:
      return LEAF, -1
    return kind, player

  def kind_of(self, state) -> tuple:
    return self._cut(*self.rules.kind_of(state), state)

  def children(self, state) -> list:
    # the kinds the rules give their children (a rules' kind_of may not know its terminals)
    return [
      (*self._cut(kind, player, child), action, prob, child)
      for kind, player, action, prob, child in self.rules.children(state)
    ]

  def initial_range(self) -> np.ndarray:
    return self.ranges
