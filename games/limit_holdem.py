"""Heads-up limit Texas hold'em: the deck and the betting tree, enumerated in NumPy.

The game of Ponsen et al. 2011 (section 4.3.2), with the ACPC's limit rules:

- a deck of 52 cards, card ``c`` of rank ``c // 4`` (0 = deuce .. 12 = ace) and suit
  ``c % 4``; each player gets two private cards, then three, one and one public cards are
  dealt before rounds 2, 3 and 4 (flop, turn, river);
- player 0 is the button and posts the small blind, player 1 the big blind. Amounts are in
  chips: small blind 1, big blind 2, a bet or raise adds 2 chips (one small bet) in rounds 1
  and 2 and 4 chips (one big bet) in rounds 3 and 4. Results are reported in small bets
  (chips / 2);
- the button acts first preflop, the big blind first afterwards;
- at most four bets a round, the big blind counting as the first bet preflop (the ACPC's
  ``maxRaises = 3 4 4 4``): preflop the players may raise three times, afterwards bet and
  raise four times;
- actions fold = 0, call = 1 (check when nothing is owed), raise = 2 (bet when nothing is
  owed); fold is legal only when facing a bet; a round ends on a call once both players
  have acted in it (the big blind's option preflop included), the hand on a fold or after
  the fourth round's call (showdown: the better seven-card hand wins the pot, equal hands
  split it).

The cards are independent of the betting, so the game is a deal (9 cards) and a walk in the
betting tree. ``betting_tree()`` enumerates every betting sequence once (breadth first):
the arrays jaxcfr.kits.card_abstraction.game moves to the device.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ._base import GameError, GameInfo, check_int

__all__ = [
  "ACTIONS",
  "NUM_CARDS",
  "NUM_ROUNDS",
  "BLINDS",
  "BET_SIZES",
  "MAX_BETS",
  "SMALL_BET",
  "INFO",
  "FIRST_PLAYER",
  "BOARD_CARDS",
  "BettingTree",
  "betting_tree",
  "preflop_class",
  "BUCKETINGS",
  "LimitHoldem",
]

FOLD, CALL, RAISE = 0, 1, 2
ACTIONS = ("fold", "call", "raise")
NUM_CARDS = 52
NUM_ROUNDS = 4
BLINDS = (1, 2)  # chips: player 0 (button, small blind), player 1 (big blind)
BET_SIZES = (2, 2, 4, 4)  # chips per bet or raise in each round
MAX_BETS = 4  # bets per round, the big blind counting as the first preflop
SMALL_BET = 2  # chips per small bet, the unit of results
# What the loaded game (jaxcfr.kits.card_abstraction.game.HoldemGame) declares: its solvers and matches
# count in small bets (chips / SMALL_BET).
INFO = GameInfo(payoff_unit="small bets", is_poker=True, representations=("card_abstraction",))
FIRST_PLAYER = (0, 1, 1, 1)  # who acts first in each round
BOARD_CARDS = (0, 3, 4, 5)  # public cards visible in each round
# terminal kinds
NOT_TERMINAL, FOLDED, SHOWDOWN = 0, 1, 2


@dataclasses.dataclass(frozen=True)
class BettingTree:
  """Every betting sequence of heads-up limit hold'em; ``N`` nodes numbered breadth first.

  Attributes:
    player: [N] int32, who acts (-1 at terminals).
    round: [N] int32, the betting round 0..3 (of the last action at terminals).
    contribution: [N, 2] int32, chips each player has put in the pot (blinds included).
    child: [N, 3] int32, the node after fold / call / raise, -1 where illegal.
    terminal: [N] int32, NOT_TERMINAL, FOLDED or SHOWDOWN.
    folder: [N] int32, the player who folded (-1 elsewhere).
    bets: [N] int32, bets made so far in the round (the big blind counts preflop).
    history: [N] str, the actions as letters (f, c, r), rounds separated by '/'.
  """

  player: np.ndarray
  round: np.ndarray
  contribution: np.ndarray
  child: np.ndarray
  terminal: np.ndarray
  folder: np.ndarray
  bets: np.ndarray
  history: np.ndarray

  @property
  def num_nodes(self) -> int:
    return int(self.player.shape[0])

  def node(self, history: str) -> int:
    """The node of a history string such as ``"rc/cr"`` (ValueError if there is none)."""
    found = np.flatnonzero(self.history == history)
    if found.size == 0:
      raise ValueError(f"no betting node {history!r} in limit hold'em")
    return int(found[0])


def _children(state: tuple) -> list:
  """``state = (round, bets, acted, contribution0, contribution1, player, history)`` -> [(action, state or
  terminal tuple)] for the legal actions."""
  rnd, bets, acted, c0, c1, player, history = state
  chips = [c0, c1]
  owed = chips[1 - player] - chips[player]
  out = []
  if owed > 0:
    out.append((FOLD, ("fold", rnd, c0, c1, player, history + "f")))
  called = list(chips)
  called[player] += owed
  if acted + 1 >= 2:  # the call closes the round
    if rnd == NUM_ROUNDS - 1:
      out.append((CALL, ("showdown", rnd, called[0], called[1], -1, history + "c")))
    else:
      nxt = rnd + 1
      out.append((CALL, (nxt, 0, 0, called[0], called[1], FIRST_PLAYER[nxt], history + "c/")))
  else:
    out.append((CALL, (rnd, bets, acted + 1, called[0], called[1], 1 - player, history + "c")))
  if bets < MAX_BETS:
    raised = list(called)
    raised[player] += BET_SIZES[rnd]
    out.append((RAISE, (rnd, bets + 1, acted + 1, raised[0], raised[1], 1 - player, history + "r")))
  return out


def betting_tree() -> BettingTree:
  """The whole betting tree, breadth first from the preflop root (blinds posted)."""
  root = (0, 1, 0, BLINDS[0], BLINDS[1], FIRST_PLAYER[0], "")
  rows = []  # (player, round, c0, c1, terminal, folder, bets, history)
  children = []
  queue = [root]
  head = 0
  while head < len(queue):
    state = queue[head]
    head += 1
    if state[0] in ("fold", "showdown"):
      kind, rnd, c0, c1, folder, history = state
      rows.append((-1, rnd, c0, c1, FOLDED if kind == "fold" else SHOWDOWN, folder, 0, history))
      children.append([-1, -1, -1])
      continue
    rnd, bets, _, c0, c1, player, history = state
    rows.append((player, rnd, c0, c1, NOT_TERMINAL, -1, bets, history))
    row = [-1, -1, -1]
    for action, nxt in _children(state):
      row[action] = len(queue)
      queue.append(nxt)
    children.append(row)
  cols = list(zip(*rows))
  return BettingTree(
    player=np.array(cols[0], np.int32),
    round=np.array(cols[1], np.int32),
    contribution=np.stack([np.array(cols[2], np.int32), np.array(cols[3], np.int32)], -1),
    child=np.array(children, np.int32),
    terminal=np.array(cols[4], np.int32),
    folder=np.array(cols[5], np.int32),
    bets=np.array(cols[6], np.int32),
    history=np.array(cols[7]),
  )


def preflop_class(cards: np.ndarray) -> np.ndarray:
  """[...] the 169 strategically distinct preflop hands of two cards [..., 2]: pairs
  0..12 (by rank), suited 13..90 and offsuit 91..168 (by the pair of ranks, high first)."""
  cards = np.asarray(cards)
  r0, r1 = cards[..., 0] // 4, cards[..., 1] // 4
  high, low = np.maximum(r0, r1), np.minimum(r0, r1)
  suited = (cards[..., 0] % 4) == (cards[..., 1] % 4)
  index = high * (high - 1) // 2 + low  # 0..77 over high > low
  return np.where(high == low, high, np.where(suited, 13 + index, 91 + index)).astype(np.int32)


BUCKETINGS = ("width", "percentile")  # equal-width E[HS] intervals, or equal-mass ones


class LimitHoldem:
  """``limit_holdem(buckets=B, bucketing=..., rollouts=R)``: heads-up limit hold'em with a card
  abstraction of ``buckets`` hand-strength buckets per round (``bucketing``: equal-width
  E[HS] intervals or percentiles), E[HS] exact (``rollouts=0``) or estimated from ``R``
  rollouts; played by sampling deals (the card-abstraction kit, jaxcfr.kits.card_abstraction,
  builds the game's tables and its solvers sample it)."""

  name = "limit_holdem"
  info = INFO

  def __init__(self, buckets: int = 10, bucketing: str = "width", rollouts: int = 0):
    self.buckets = check_int("buckets", buckets, low=2, high=1000)
    if bucketing not in BUCKETINGS:
      raise GameError(f"parameter bucketing must be one of {', '.join(BUCKETINGS)}, got {bucketing!r}")
    self.bucketing = bucketing
    self.rollouts = check_int("rollouts", rollouts, low=0, high=4096)
    self.params = {"buckets": self.buckets, "bucketing": self.bucketing, "rollouts": self.rollouts}
