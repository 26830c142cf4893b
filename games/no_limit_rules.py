"""No-limit poker subgames as rules of the public-game protocol (games/poker_rules.py): a board,
a pot, stacks, ranges and a bet-size abstraction (pot fractions per first bet and raise, or
postflop-solver's bet trees: games/bet_trees.py)."""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable

import numpy as np

from .poker_rules import (
  ALL_IN,
  CALL_ID,
  CHANCE,
  DECISION,
  FOLD,
  FOLD_ID,
  HOLDEM,
  SHOWDOWN,
  check_strength,
  deal,
  hands,
  normalised_ranges,
)

__all__ = ["NoLimitState", "NoLimitRules"]


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
    hands_in_play: the public tree then holds only the hands with a weight in either range
      (and one hand out of play, the padding of its card-removal tables): its arrays over
      hands are smaller (a turn endgame's 1,326 hands become about 860), and its per-hand
      results cover ``PublicTree.hands``, spread back over every hand by
      ``PublicTree.on_deck``. Leave it False where the ranges change after the build (a batch
      of subgames with other ranges, trees of several boards stacked as one batch).
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
  hands_in_play: bool = False
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
    check_strength(self)
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
      return deal(self.num_cards, self.hand_size, state, m, self._settle, self.kind_of)
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
