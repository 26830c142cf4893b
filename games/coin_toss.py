"""Coin Toss (Chelarescu 2019, section 2.2, Figure 2.2).

A fair coin (heads = 0, tails = 1) is seen by player 0 alone, who then sells (0) or plays
(1). Selling ends the game: player 0 gets ``sell_value`` on heads and ``-sell_value`` on
tails (0.5 in the paper; -0.5 is the paper's reversed variant, Figure 3.13). Playing lets
player 1, who has not seen the coin, guess heads (0), tails (1) or forfeit (2): a right
guess pays player 0 -1, a wrong guess or a forfeit pays player 0 +1. With sell_value = 0.5
player 1's equilibrium guess is heads 1/4, tails 3/4, and the game value is 0.
"""

from __future__ import annotations

import math

from ._base import CHANCE, TERMINAL, GameError, State

__all__ = ["CoinTossState", "CoinToss"]

SELL, PLAY = 0, 1
GUESS_HEADS, GUESS_TAILS, FORFEIT = 0, 1, 2


class CoinTossState(State):
  def __init__(self, sell_value: float, moves: tuple = ()):
    self.sell_value, self.moves = sell_value, moves  # (coin, player 0's move[, guess])

  def current_player(self) -> int:
    if not self.moves:
      return CHANCE
    if len(self.moves) == 1:
      return 0
    if self.moves[1] == SELL or len(self.moves) == 3:
      return TERMINAL
    return 1

  def legal_actions(self) -> list[int]:
    return [SELL, PLAY] if len(self.moves) == 1 else [GUESS_HEADS, GUESS_TAILS, FORFEIT]

  def chance_outcomes(self) -> list[tuple[int, float]]:
    return [(0, 0.5), (1, 0.5)]

  def child(self, action: int) -> CoinTossState:
    return CoinTossState(self.sell_value, self.moves + (action,))

  def returns(self) -> list[float]:
    coin = self.moves[0]
    if self.moves[1] == SELL:
      u0 = self.sell_value if coin == 0 else -self.sell_value
    else:
      u0 = -1.0 if self.moves[2] == coin else 1.0
    return [u0, -u0]

  def information_state_string(self, player: int) -> str:
    return f"coin {self.moves[0]}" if player == 0 else "play"


class CoinToss:
  def __init__(self, sell_value: float = 0.5):
    if isinstance(sell_value, bool) or not isinstance(sell_value, (int, float)) or not math.isfinite(sell_value):
      raise GameError(f"parameter sell_value must be a finite number, got {sell_value!r}")
    self.name, self.params = "coin_toss", {"sell_value": float(sell_value)}
    self.sell_value = float(sell_value)

  def new_initial_state(self) -> CoinTossState:
    return CoinTossState(self.sell_value)
