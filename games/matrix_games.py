"""Rock-paper-scissors and RPS+ (Chelarescu 2019, section 2.1) as two-move extensive games.

Player 0 moves first; player 1 moves without seeing that move (one information set), which
is the normal-form game in sequence form. Actions: rock = 0, paper = 1, scissors = 2.
In RPS+ a win with scissors pays 2 instead of 1 (Chelarescu 2019, Table 2.2); its equilibrium is
(0.4, 0.4, 0.2).
"""

from __future__ import annotations

from ._base import TERMINAL, State

__all__ = ["RPS_PAYOFF", "RPS_PLUS_PAYOFF", "MatrixState", "MatrixGame", "rps", "rps_plus"]

RPS_PAYOFF = ((0, -1, 1), (1, 0, -1), (-1, 1, 0))  # row player's payoff, Chelarescu 2019 Table 2.1
RPS_PLUS_PAYOFF = ((0, -1, 2), (1, 0, -2), (-2, 2, 0))  # Chelarescu 2019 Table 2.2


class MatrixState(State):
  def __init__(self, payoff, moves: tuple = ()):
    self.payoff, self.moves = payoff, moves

  def current_player(self) -> int:
    return TERMINAL if len(self.moves) == 2 else len(self.moves)

  def legal_actions(self) -> list[int]:
    return list(range(len(self.payoff) if not self.moves else len(self.payoff[0])))

  def child(self, action: int) -> MatrixState:
    return MatrixState(self.payoff, self.moves + (action,))

  def returns(self) -> list[float]:
    u0 = float(self.payoff[self.moves[0]][self.moves[1]])
    return [u0, -u0]

  def information_state_string(self, player: int) -> str:
    return f"player {player}"


class MatrixGame:
  def __init__(self, name: str, payoff):
    self.name, self.params, self.payoff = name, {}, payoff

  def new_initial_state(self) -> MatrixState:
    return MatrixState(self.payoff)


def rps() -> MatrixGame:
  return MatrixGame("rps", RPS_PAYOFF)


def rps_plus() -> MatrixGame:
  return MatrixGame("rps_plus", RPS_PLUS_PAYOFF)
