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
  ranking of two private and five public cards, which the game layer evaluates).

Two families implement it for poker: ``PokerRules``, limit poker from the deal on (Kuhn,
one-card poker, Leduc), and ``NoLimitRules``, no-limit subgames from a given board, pot and ranges
with a bet-size abstraction (heads-up no-limit hold'em endgames: games/hunl_subgame.py);
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
  "NoLimitState",
  "NoLimitRules",
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


def _deal(num_cards: int, hand_size: int, state, m: int, settle: Callable, kind_of: Callable) -> list:
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


def _check_strength(rules) -> None:
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
    _check_strength(self)

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
      return _deal(self.num_cards, self.hand_size, state, self.board_cards[state.round], lambda x: x, self.kind_of)
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


@dataclasses.dataclass(frozen=True)
class NoLimitState:
  """A public state of a no-limit subgame.

  Attributes:
    round: the betting round (an index into ``board_cards``).
    board: the public cards.
    chips: each player's contribution (the pot's share included).
    actions: this round's action ids.
    min_to: the least a raise may raise to (a contribution), the ACPC rule: the round's
      start sets it to the largest contribution plus the big blind, a raise to ``R`` over a
      largest contribution ``M`` to at least ``2 R - M``.
    bets: bets and raises made this round.
  """

  round: int
  board: tuple
  chips: tuple
  actions: tuple = ()
  min_to: int = 0
  bets: int = 0


def _round_half_up(x: float) -> int:
  """The nearest integer, halves away from zero (C's ``round`` for x >= 0)."""
  return int(math.floor(x + 0.5))


@dataclasses.dataclass(frozen=True)
class NoLimitRules:
  """A two-player no-limit poker subgame from a given board, pot and ranges, with a bet-size
  abstraction (the public-game protocol: module doc). Player 0 is out of position and acts
  first in every round; a round ends when a player calls after both have acted, or folds.

  A bet or raise of ``f`` pots raises the largest contribution ``M`` by ``f`` times the pot
  after calling, to ``M + f (pot + owed)`` chips (rounded half up; OpenSpiel's pot-size
  raise). The first bet of a round takes the sizes ``first_bets``, later raises ``raises``.
  The size ALL_IN (infinitely many pots) is the all-in. A size below the least raise
  (``NoLimitState.min_to``) is dropped; one above the stack becomes the all-in; two sizes to
  the same amount are one action (the lower id). No raise
  is allowed facing an all-in, or after ``max_raises`` bets and raises in the round. When
  both players are all-in, the remaining public cards are dealt and the hands shown down.

  Action ids: fold 0, check or call 1, then ``2 + j`` for the ``j``-th of ``sizes`` (the
  sorted union of the finite ``first_bets`` and ``raises``) and ``2 + len(sizes)`` for the
  all-in. With ``first_bets = raises = (1, ALL_IN)`` these are OpenSpiel's fold, call, pot
  and all-in (its ``fcpa`` abstraction). The defaults are the Libratus endgames' (Brown and
  Sandholm, "Solving Imperfect-Information Games via Discounted Regret Minimization", 2019):
  first bets of half a pot, a pot and all-in, later raises of a pot and all-in.

  Attributes:
    ranks, suits: the deck, ``ranks * suits`` cards (hold'em: 13 and 4).
    board: the public cards at the root (card ids).
    board_cards: per betting round of the whole game, the public cards dealt before it
      (hold'em: 0, 3, 1, 1); the root's round is the one whose cards ``board`` completes.
    pot: chips in the middle at the root, half from each player.
    stack: each player's chips at the start of the hand, the pot's share included (a
      contribution never exceeds it).
    big_blind: the least bet.
    first_bets, raises: the sizes (pot fractions, or ALL_IN) of the first bet of a round and
      of later raises.
    max_raises: bets and raises allowed per round, or None (the stacks bound them).
    ranges: ``((H floats), (H floats))`` each player's weight of each hand (every 2-subset
      of the deck, lexicographic), or None for uniform; ``initial_range`` normalises them.
    hand_size: private cards per player.
    strength: HOLDEM, or a ``strength(cards, suits)`` key (module doc).
    bet_tree: None, or a ``jaxcfr.games.bet_trees.BetTree``: the betting is then
      postflop-solver's with those sizes per street and player (games/bet_trees.py; action
      ids ``2 + x`` for ``x`` chips put in on the street), and ``first_bets``, ``raises`` and
      ``max_raises`` are unused.
  """

  ranks: int = 13
  suits: int = 4
  board: tuple = ()
  board_cards: tuple = (0, 3, 1, 1)
  pot: int = 200
  stack: int = 20_000
  big_blind: int = 100
  first_bets: tuple = (0.5, 1.0, ALL_IN)
  raises: tuple = (1.0, ALL_IN)
  max_raises: int | None = None
  ranges: tuple | None = None
  hand_size: int = 2
  strength: Callable | str = HOLDEM
  bet_tree: object = None
  card_removal = True  # the protocol's (module doc); a class constant, not a field

  def __post_init__(self):
    for name in ("ranks", "suits", "hand_size", "pot", "stack", "big_blind"):
      value = getattr(self, name)
      if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    if self.max_raises is not None and (not isinstance(self.max_raises, int) or self.max_raises < 0):
      raise ValueError(f"max_raises must be an int >= 0 or None, got {self.max_raises!r}")
    if self.pot % 2 or self.pot // 2 > self.stack:
      raise ValueError(f"pot must be even and at most twice the stack, got pot={self.pot}, stack={self.stack}")
    if not self.board_cards or any(not isinstance(c, int) or c < 0 for c in self.board_cards):
      raise ValueError(f"board_cards must be counts >= 0, one per round, got {self.board_cards!r}")
    if 2 * self.hand_size + self.final_board > self.num_cards:
      raise ValueError(f"a deck of {self.num_cards} cards cannot deal two hands of {self.hand_size} and the boards")
    object.__setattr__(self, "board", tuple(int(c) for c in self.board))
    if len(set(self.board)) != len(self.board) or any(not 0 <= c < self.num_cards for c in self.board):
      raise ValueError(f"board must hold distinct cards in 0..{self.num_cards - 1}, got {self.board!r}")
    if len(self.board) not in itertools.accumulate(self.board_cards):
      raise ValueError(f"a board of {len(self.board)} cards starts no round of board_cards={self.board_cards}")
    for name in ("first_bets", "raises"):
      sizes = tuple(getattr(self, name))
      if any(isinstance(f, bool) or not isinstance(f, (int, float)) or not (0 < f < 1e6 or f == ALL_IN) for f in sizes):
        raise ValueError(f"{name} must be positive pot fractions or ALL_IN, got {sizes!r}")
      object.__setattr__(self, name, tuple(float(f) for f in sizes))
    _check_strength(self)
    if self.bet_tree is not None:
      self.bet_tree.check(self)  # a BetTree (games/bet_trees.py), which imports this module
    if self.ranges is not None:
      count = math.comb(self.num_cards, self.hand_size)
      weights = np.asarray(self.ranges, np.float64)
      if weights.shape != (2, count):
        raise ValueError(f"ranges must be two rows of {count} weights (one per hand), got shape {weights.shape}")
      if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError("ranges must be finite and >= 0")
      object.__setattr__(self, "ranges", tuple(tuple(row) for row in weights.tolist()))
    self.initial_range()  # every player has a possible hand

  @property
  def num_cards(self) -> int:
    return self.ranks * self.suits

  @property
  def final_board(self) -> int:
    """Public cards at a showdown."""
    return sum(self.board_cards)

  @property
  def root_round(self) -> int:
    """The round whose public cards ``board`` completes."""
    return list(itertools.accumulate(self.board_cards)).index(len(self.board))

  @property
  def sizes(self) -> tuple:
    """The pot fractions of the action ids ``2, 3, ...`` (the all-in is ``2 + len(sizes)``)."""
    return tuple(sorted((set(self.first_bets) | set(self.raises)) - {ALL_IN}))

  @property
  def all_in_id(self) -> int:
    return 2 + len(self.sizes)

  def root(self) -> NoLimitState:
    if self.bet_tree is not None:
      return self._settle(self.bet_tree.root(self))
    chips = (self.pot // 2, self.pot // 2)
    return self._settle(NoLimitState(self.root_round, self.board, chips, min_to=self.pot // 2 + self.big_blind))

  def _dealt(self, state: NoLimitState) -> bool:
    """Whether the public cards of ``state``'s round are on the board."""
    return len(state.board) >= sum(self.board_cards[: state.round + 1])

  def _settle(self, state: NoLimitState) -> NoLimitState:
    """``state``, or where play goes on from it: with both players all-in, the next round
    whose cards are still to be dealt (or the last round, for the showdown)."""
    while min(state.chips) >= self.stack and self._dealt(state) and state.round + 1 < len(self.board_cards):
      state = self._next_round(state)
    return state

  def _next_round(self, state: NoLimitState) -> NoLimitState:
    return NoLimitState(state.round + 1, state.board, state.chips, min_to=max(state.chips) + self.big_blind)

  def kind_of(self, state: NoLimitState) -> tuple:
    """(kind, player) of a non-terminal state (settled: ``_settle``)."""
    if not self._dealt(state):
      return CHANCE, -1
    if min(state.chips) >= self.stack:  # both all-in, every card dealt
      return SHOWDOWN, -1
    return DECISION, len(state.actions) % 2

  def children(self, state: NoLimitState) -> list:
    """[(kind, player, action id, chance prob, child state)] of a decision or chance state."""
    kind, player = self.kind_of(state)
    if kind == CHANCE:
      m = self.board_cards[state.round]
      return _deal(self.num_cards, self.hand_size, state, m, self._settle, self.kind_of)
    if self.bet_tree is not None:
      return self.bet_tree.children(self, state, player)
    top = max(state.chips)
    out = []
    if top > state.chips[player]:
      out.append((FOLD, player, FOLD_ID, 1.0, dataclasses.replace(state, actions=state.actions + (FOLD_ID,))))
    chips = list(state.chips)
    chips[player] = top
    called = dataclasses.replace(state, chips=tuple(chips), actions=state.actions + (CALL_ID,))
    if len(called.actions) >= 2 and state.round + 1 == len(self.board_cards):  # the last round is over
      out.append((SHOWDOWN, -1, CALL_ID, 1.0, called))
    else:
      called = self._settle(self._next_round(called)) if len(called.actions) >= 2 else called
      out.append((*self.kind_of(called), CALL_ID, 1.0, called))
    for action, to in self._raises(state, player).items():
      chips[player] = to
      min_to = max(state.min_to, 2 * to - top)
      child = NoLimitState(state.round, state.board, tuple(chips), state.actions + (action,), min_to, state.bets + 1)
      out.append((DECISION, 1 - player, action, 1.0, child))
    return sorted(out, key=lambda entry: entry[2])

  def _raises(self, state: NoLimitState, player: int) -> dict:
    """{action id: contribution raised to} of the bets and raises open to ``player``."""
    top = max(state.chips)
    if top >= self.stack or (self.max_raises is not None and state.bets >= self.max_raises):
      return {}
    after_call = sum(state.chips) + top - state.chips[player]
    least = min(state.min_to, self.stack)
    amounts = {}
    for fraction in self.first_bets if state.bets == 0 else self.raises:
      if fraction == ALL_IN or top + fraction * after_call > self.stack:
        amounts[self.all_in_id] = self.stack
        continue
      to = _round_half_up(top + fraction * after_call)
      if to >= least:
        amounts[2 + self.sizes.index(fraction)] = to
    by_amount = {}
    for action in sorted(amounts):  # two sizes to one amount: the lower id
      by_amount.setdefault(amounts[action], action)
    return {action: to for to, action in by_amount.items()}

  def initial_range(self) -> np.ndarray:
    """[2, H] the ranges at the root: ``ranges`` (or ones), ``normalised_ranges``."""
    table = hands(self.num_cards, self.hand_size)
    weights = np.ones((2, len(table))) if self.ranges is None else np.array(self.ranges, np.float64)
    return normalised_ranges(table, self.board, weights)


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
