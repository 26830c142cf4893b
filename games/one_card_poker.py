"""One-Card Poker OCP(N) (Ponsen et al. 2011, section 2.2); OCP(3) is Kuhn poker.

Each player antes one chip and is dealt one private card from a deck of N cards (player 0
first, then player 1, without replacement, uniformly). Actions: pass = 0, bet = 1; one
chip can be bet. Player 0 acts first::

  pass, pass        -> showdown for 1
  pass, bet, pass   -> player 1 wins 1
  pass, bet, bet    -> showdown for 2
  bet, pass         -> player 0 wins 1
  bet, bet          -> showdown for 2

The higher card wins the showdown. Chance outcomes and actions use OpenSpiel's ids, so that
OCP(3) has the statistics of OpenSpiel's ``kuhn_poker``.
"""

from __future__ import annotations

import numpy as np

from ._base import (
  CHANCE,
  CHANCE_NODE,
  PLAYER_0,
  PLAYER_1,
  TERMINAL,
  TERMINAL_NODE,
  GameInfo,
  InfostateEncoding,
  State,
  check_int,
)
from .poker_rules import PokerRules, one_card_poker_rules

__all__ = ["OneCardPokerState", "OneCardPoker", "kuhn_poker", "VectorizedOneCardPoker", "information_state_tensor"]

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

  def child(self, action: int) -> OneCardPokerState:
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


def information_state_tensor(keys: list, player: int, *, num_cards: int) -> np.ndarray:
  """[I, 2 + N + 6] rows of the keys ``"card:bets"``: OpenSpiel's ``kuhn_poker`` layout (N = 3:
  size 11): the player one-hot (2), the own card one-hot (N), then for each of the three turns a
  pass / bet one-hot (2 each, zeros for turns not yet played)."""
  rows = np.zeros((len(keys), 2 + num_cards + 6), np.float32)
  rows[:, player] = 1
  for i, key in enumerate(keys):
    card, bets = key.split(":")
    rows[i, 2 + int(card)] = 1
    for turn, bet in enumerate(bets):
      rows[i, 2 + num_cards + 2 * turn + "pb".index(bet)] = 1
  return rows


def _encoding(num_cards: int) -> InfostateEncoding:
  return InfostateEncoding(information_state_tensor, (("num_cards", num_cards),), openspiel=num_cards == 3)


class OneCardPoker:
  def __init__(self, num_cards: int = 3):
    self.num_cards = check_int("num_cards", num_cards, low=2)
    self.name = "one_card_poker"
    self.params = {"num_cards": num_cards}
    # OCP(3) is OpenSpiel's kuhn_poker: the same histories, action ids and chance ids.
    self.info = GameInfo(
      payoff_unit="chips",
      is_poker=True,
      openspiel_name="kuhn_poker" if num_cards == 3 else None,
      representations=("sequence_form", "public_tree"),
      encoding=_encoding(num_cards),
    )

  def new_initial_state(self) -> OneCardPokerState:
    return OneCardPokerState(self.num_cards)

  def vectorized(self) -> VectorizedOneCardPoker:
    return VectorizedOneCardPoker(self.num_cards)

  def public_tree_rules(self) -> PokerRules:
    """The rules of the public tree (jaxcfr.kits.public_tree.tree.public_tree_of builds it)."""
    return one_card_poker_rules(self.num_cards)


def kuhn_poker() -> OneCardPoker:
  """Kuhn poker is OCP(3) (Ponsen et al. 2011, section 2.2)."""
  game = OneCardPoker(3)
  game.name, game.params = "kuhn_poker", {}
  game.info = GameInfo(
    payoff_unit="chips",
    is_poker=True,
    openspiel_name="kuhn_poker",
    metrics="kuhn",
    representations=("sequence_form", "public_tree"),
    encoding=_encoding(3),
  )
  return game


# --- vectorised rules (jaxcfr/kits/sequence_form/vectorized.py), for big N -----------------------------------

_BETTING = ("", "p", "b", "pb", "pp", "pbp", "pbb", "bp", "bb")  # index = betting state
_NUM_DECISION_STATES = 4  # "", "p", "b", "pb"; the rest are terminal
_NEXT = np.array([[1, 2], [4, 3], [7, 8], [5, 6]])  # [betting state, action] -> betting state
_STAKE = np.array([0, 0, 0, 0, 1, 1, 2, 1, 2])
_FOLDER = np.array([-1, -1, -1, -1, -1, 0, -1, 1, -1])  # who passed facing a bet (loses 1)
_KIND = np.array([PLAYER_0, PLAYER_1, PLAYER_1, PLAYER_0] + [TERMINAL_NODE] * 5)


class VectorizedOneCardPoker:
  """OCP(N) over batches of states ``{"card0", "card1": [N] int32 (-1 = not dealt),
  "betting": [N] int8 index into _BETTING}``; the same histories, ids and keys as
  OneCardPokerState."""

  def __init__(self, num_cards: int):
    self.num_cards = num_cards

  def initial_states(self) -> dict:
    return {"card0": np.array([-1], np.int32), "card1": np.array([-1], np.int32), "betting": np.array([0], np.int8)}

  def node_kind(self, states) -> np.ndarray:
    return np.where(states["card1"] < 0, CHANCE_NODE, _KIND[states["betting"]]).astype(np.int8)

  def expand(self, states):
    n, num_cards = len(states["card0"]), self.num_cards
    if states["card0"][0] < 0:  # the root: deal player 0's card
      return (
        np.zeros(num_cards, np.int64),
        np.arange(num_cards),
        np.full(num_cards, 1.0 / num_cards),
        {
          "card0": np.arange(num_cards, dtype=np.int32),
          "card1": np.full(num_cards, -1, np.int32),
          "betting": np.zeros(num_cards, np.int8),
        },
      )
    if states["card1"][0] < 0:  # deal player 1's card from the rest
      parent = np.repeat(np.arange(n), num_cards)
      card1 = np.tile(np.arange(num_cards, dtype=np.int32), n)
      keep = card1 != states["card0"][parent]
      parent, card1 = parent[keep], card1[keep]
      return (
        parent,
        card1,
        np.full(len(parent), 1.0 / (num_cards - 1)),
        {"card0": states["card0"][parent], "card1": card1, "betting": np.zeros(len(parent), np.int8)},
      )
    parent = np.repeat(np.arange(n), 2)
    action = np.tile(np.array([PASS, BET]), n)
    children = {
      "card0": states["card0"][parent],
      "card1": states["card1"][parent],
      "betting": _NEXT[states["betting"][parent], action].astype(np.int8),
    }
    return parent, action, np.ones(len(parent)), children

  def utility(self, states) -> np.ndarray:
    betting = states["betting"]
    folder = _FOLDER[betting]
    showdown = np.where(states["card0"] > states["card1"], 1.0, -1.0) * _STAKE[betting]
    return np.where(folder == 0, -1.0, np.where(folder == 1, 1.0, showdown))

  def infoset_code(self, states, player: int) -> np.ndarray:
    return states[f"card{player}"].astype(np.int64) * _NUM_DECISION_STATES + states["betting"]

  def infoset_keys(self, player: int, codes) -> np.ndarray:
    card, betting = np.divmod(np.asarray(codes), _NUM_DECISION_STATES)
    return np.array([f"{c}:{_BETTING[b]}" for c, b in zip(card.tolist(), betting.tolist())])
