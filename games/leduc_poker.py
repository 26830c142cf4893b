"""Leduc Hold'em with OpenSpiel's rules (also Waugh et al. 2015 and Chelarescu 2019 section 2.4).

A deck of six cards, two suits of three ranks; card c has rank c // 2. Each player antes
one chip and gets one private card (player 0 first); after the first betting round one
public card is dealt. Betting rounds: player 0 acts first; actions fold = 0, call = 1
(check when nothing is owed), raise = 2; a raise adds 2 chips in round one and 4 in round
two, at most two raises a round; fold is legal only when facing a raise. A round ends on a
call after each player has acted, or on a fold. At the showdown a card pairing the public
card wins, else the higher rank; equal ranks split the pot.
"""

from __future__ import annotations

import numpy as np

from ._base import CHANCE, TERMINAL, GameInfo, InfostateEncoding, State
from .poker_rules import PokerRules, leduc_rules

__all__ = ["LeducState", "LeducPoker", "information_state_tensor"]

FOLD, CALL, RAISE = 0, 1, 2
_RAISE_SIZE = (2, 4)
_MAX_RAISES = 2
_NUM_CARDS = 6


def _round_over(actions: tuple) -> bool:
  return len(actions) >= 2 and actions[-1] == CALL


def _contributions(rounds: tuple) -> list[int]:
  """Chips put in by each player, ante included."""
  chips = [1, 1]
  for round_index, actions in enumerate(rounds):
    owed = 0
    for turn, action in enumerate(actions):
      player = turn % 2
      if action == CALL:
        chips[player] += owed
        owed = 0
      elif action == RAISE:
        chips[player] += owed + _RAISE_SIZE[round_index]
        owed = _RAISE_SIZE[round_index]
  return chips


class LeducState(State):
  def __init__(self, cards: tuple = (), rounds: tuple = ((),)):
    self.cards, self.rounds = cards, rounds  # cards: (p0, p1[, public])

  @property
  def _actions(self) -> tuple:
    return self.rounds[-1]

  def _folded(self) -> bool:
    return bool(self._actions) and self._actions[-1] == FOLD

  def current_player(self) -> int:
    if len(self.cards) < 2:
      return CHANCE
    if self._folded():
      return TERMINAL
    if _round_over(self._actions):
      return CHANCE if len(self.rounds) == 1 else TERMINAL
    return len(self._actions) % 2

  def legal_actions(self) -> list[int]:
    facing_raise = RAISE in self._actions and self._actions[-1] == RAISE
    actions = [FOLD] if facing_raise else []
    actions.append(CALL)
    if self._actions.count(RAISE) < _MAX_RAISES:
      actions.append(RAISE)
    return actions

  def chance_outcomes(self) -> list[tuple[int, float]]:
    remaining = [c for c in range(_NUM_CARDS) if c not in self.cards]
    return [(c, 1.0 / len(remaining)) for c in remaining]

  def child(self, action: int) -> LeducState:
    if self.current_player() == CHANCE:
      rounds = self.rounds if len(self.cards) < 2 else self.rounds + ((),)
      return LeducState(self.cards + (action,), rounds)
    return LeducState(self.cards, self.rounds[:-1] + (self._actions + (action,),))

  def returns(self) -> list[float]:
    chips = _contributions(self.rounds)
    if self._folded():
      loser = (len(self._actions) - 1) % 2
      u0 = -chips[0] if loser == 0 else chips[1]
    else:
      strength = [self._strength(p) for p in range(2)]
      u0 = 0 if strength[0] == strength[1] else (chips[1] if strength[0] > strength[1] else -chips[0])
    return [float(u0), float(-u0)]

  def _strength(self, player: int) -> int:
    rank, public_rank = self.cards[player] // 2, self.cards[2] // 2
    return 10 + rank if rank == public_rank else rank

  def information_state_string(self, player: int) -> str:
    public = self.cards[2] if len(self.cards) > 2 else ""
    history = "/".join("".join("fcr"[a] for a in actions) for actions in self.rounds)
    return f"{self.cards[player]}:{public}:{history}"


def information_state_tensor(keys: list, player: int) -> np.ndarray:
  """[I, 30] rows of the keys ``"card:public:history"``: OpenSpiel's ``leduc_poker`` layout, the
  player one-hot (2), the private card one-hot (6), the public card one-hot (6, zeros before it
  is dealt), then per round four action slots of two bits, call = (1, 0) and raise = (0, 1)
  (8 per round; a fold ends the game, so no key holds one)."""
  rows = np.zeros((len(keys), 2 + 2 * _NUM_CARDS + 16), np.float32)
  rows[:, player] = 1
  for i, key in enumerate(keys):
    card, public, history = key.split(":")
    rows[i, 2 + int(card)] = 1
    if public:
      rows[i, 2 + _NUM_CARDS + int(public)] = 1
    for round_index, actions in enumerate(history.split("/")):
      for turn, action in enumerate(actions):
        rows[i, 2 + 2 * _NUM_CARDS + 8 * round_index + 2 * turn + "cr".index(action)] = 1
  return rows


class LeducPoker:
  def __init__(self):
    self.name, self.params = "leduc_poker", {}
    self.info = GameInfo(
      payoff_unit="chips",
      is_poker=True,
      openspiel_name="leduc_poker",
      features="leduc",
      representations=("sequence_form", "public_tree"),
      encoding=InfostateEncoding(information_state_tensor, openspiel=True),
    )

  def new_initial_state(self) -> LeducState:
    return LeducState()

  def public_tree_rules(self) -> PokerRules:
    """The rules of the public tree (jaxcfr.kits.public_tree.tree.public_tree_of builds it)."""
    return leduc_rules()
