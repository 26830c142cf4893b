"""One-Card Poker OCP(N) (paper 000, section 2.2); OCP(3) is Kuhn poker.

Each player antes one chip and is dealt one private card from a deck of N cards (player 0
first, then player 1, without replacement, uniformly). Actions: pass = 0, bet = 1; one
chip can be bet. Player 0 acts first:
  pass, pass        -> showdown for 1
  pass, bet, pass   -> player 1 wins 1
  pass, bet, bet    -> showdown for 2
  bet, pass         -> player 0 wins 1
  bet, bet          -> showdown for 2
The higher card wins the showdown. Chance outcomes and actions use OpenSpiel's ids, so that
OCP(3) has the statistics of OpenSpiel's ``kuhn_poker``.
"""

from __future__ import annotations

from games._base import CHANCE, TERMINAL, State, check_int

PASS, BET = 0, 1
_TERMINAL_BETS = {"pp": 1, "pbp": 1, "pbb": 2, "bp": 1, "bb": 2}


class OneCardPokerState(State):

  def __init__(self, num_cards: int, cards: tuple = (), bets: str = ""):
    self.num_cards, self.cards, self.bets = num_cards, cards, bets

  def current_player(self) -> int:
    if len(self.cards) < 2:
      return CHANCE
    if self.bets in _TERMINAL_BETS:
      return TERMINAL
    return len(self.bets) % 2

  def legal_actions(self) -> list[int]:
    return [PASS, BET]

  def chance_outcomes(self) -> list[tuple[int, float]]:
    remaining = [c for c in range(self.num_cards) if c not in self.cards]
    return [(c, 1.0 / len(remaining)) for c in remaining]

  def child(self, action: int) -> "OneCardPokerState":
    if self.current_player() == CHANCE:
      return OneCardPokerState(self.num_cards, self.cards + (action,), self.bets)
    return OneCardPokerState(self.num_cards, self.cards, self.bets + "pb"[action])

  def returns(self) -> list[float]:
    stake = _TERMINAL_BETS[self.bets]
    if self.bets == "pbp":
      u0 = -1.0
    elif self.bets == "bp":
      u0 = 1.0
    else:
      u0 = float(stake if self.cards[0] > self.cards[1] else -stake)
    return [u0, -u0]

  def information_state_string(self, player: int) -> str:
    return f"{self.cards[player]}:{self.bets}"


class OneCardPoker:

  def __init__(self, num_cards: int = 3):
    self.num_cards = check_int("num_cards", num_cards, low=2)
    self.name = "one_card_poker"
    self.params = {"num_cards": num_cards}

  def new_initial_state(self) -> OneCardPokerState:
    return OneCardPokerState(self.num_cards)


def kuhn_poker() -> OneCardPoker:
  """Kuhn poker is OCP(3) (paper 000, section 2.2)."""
  game = OneCardPoker(3)
  game.name, game.params = "kuhn_poker", {}
  return game
