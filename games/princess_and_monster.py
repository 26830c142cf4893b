"""Princess and Monster PAM(R, C, H), pursuit in a dark room (Ponsen et al. 2011, section 2.2;
Lanctot et al. 2009, section 5).

The board is an R x C grid, cells numbered ``row * C + col``, 4-connected. Player 0 is the
princess (the evader), player 1 the monster. Chance places the princess on a uniformly
random cell, then the monster, independently (the same cell is possible). Then the players
move alternately, the princess first, H moves in total ("players take turns alternately
moving", Ponsen et al. 2011). A move is up (0), right (1), down (2), left (3) to an adjacent cell
of the grid, or stay (4). Neither player ever sees the other or the other's moves, which
is the papers' simultaneous "dark room" made turn-based: the second mover of a step does
not see the first's move. After every move, if both stand on the same cell the monster
has caught the princess and the game ends. The payoff to the princess is the number of
moves made without capture: ``t - 1`` when move t (1-based) ends in a capture, ``H`` when
no move does; the monster gets the negative.

Choices the papers leave open, taken here: staying put is a move, a capture is checked
after every move (also when the princess walks into the monster, and not before the
first move), and the starts are independent. With these rules PAM(3, 3, 11) has the
91.8 million histories of Lanctot et al. 2009 Table 1, whose depth l = 13 then counts the two
chance placements (docs/games.md).

Infoset key: the player's start cell and own moves, e.g. ``"4:URS"``.
"""

from __future__ import annotations

import numpy as np

from ._base import CHANCE, CHANCE_NODE, PLAYER_0, PLAYER_1, TERMINAL, TERMINAL_NODE, GameError, State, check_int

__all__ = ["PrincessAndMonsterState", "PrincessAndMonster", "VectorizedPrincessAndMonster"]

_STEPS = ((-1, 0), (0, 1), (1, 0), (0, -1), (0, 0))  # up, right, down, left, stay
_LETTERS = "URDLS"


def _move(cell: int, action: int, rows: int, cols: int) -> int | None:
  row, col = divmod(cell, cols)
  row, col = row + _STEPS[action][0], col + _STEPS[action][1]
  return row * cols + col if 0 <= row < rows and 0 <= col < cols else None


class PrincessAndMonsterState(State):
  def __init__(self, rows: int, cols: int, horizon: int, starts: tuple = (), moves: tuple = ()):
    self.rows, self.cols, self.horizon = rows, cols, horizon
    self.starts, self.moves = starts, moves

  def _positions(self) -> list[int]:
    positions = list(self.starts)
    for t, action in enumerate(self.moves):
      positions[t % 2] = _move(positions[t % 2], action, self.rows, self.cols)
    return positions

  def _captured(self) -> bool:
    return bool(self.moves) and self._positions()[0] == self._positions()[1]

  def current_player(self) -> int:
    if len(self.starts) < 2:
      return CHANCE
    if self._captured() or len(self.moves) == self.horizon:
      return TERMINAL
    return len(self.moves) % 2

  def legal_actions(self) -> list[int]:
    cell = self._positions()[len(self.moves) % 2]
    return [a for a in range(len(_STEPS)) if _move(cell, a, self.rows, self.cols) is not None]

  def chance_outcomes(self) -> list[tuple[int, float]]:
    cells = self.rows * self.cols
    return [(cell, 1.0 / cells) for cell in range(cells)]

  def child(self, action: int) -> PrincessAndMonsterState:
    if self.current_player() == CHANCE:
      return PrincessAndMonsterState(self.rows, self.cols, self.horizon, self.starts + (action,), self.moves)
    return PrincessAndMonsterState(self.rows, self.cols, self.horizon, self.starts, self.moves + (action,))

  def returns(self) -> list[float]:
    u0 = float(len(self.moves) - 1 if self._captured() else len(self.moves))
    return [u0, -u0]

  def information_state_string(self, player: int) -> str:
    return f"{self.starts[player]}:" + "".join(_LETTERS[a] for a in self.moves[player::2])


class PrincessAndMonster:
  """``princess_and_monster(rows=R, cols=C, horizon=H)``; Lanctot et al. 2009 uses a 3 x 3 grid."""

  def __init__(self, rows: int = 3, cols: int = 3, horizon: int = 5):
    self.rows = check_int("rows", rows, low=1, high=16)
    self.cols = check_int("cols", cols, low=1, high=16)
    self.horizon = check_int("horizon", horizon, low=1, high=40)
    if rows * cols < 2:
      raise GameError("princess_and_monster needs at least two cells")
    self.name = "princess_and_monster"
    self.params = {"rows": rows, "cols": cols, "horizon": horizon}

  def new_initial_state(self) -> PrincessAndMonsterState:
    return PrincessAndMonsterState(self.rows, self.cols, self.horizon)

  def vectorized(self) -> VectorizedPrincessAndMonster:
    return VectorizedPrincessAndMonster(self.rows, self.cols, self.horizon)


class VectorizedPrincessAndMonster:
  """PAM over batches of states: ``pos0``, ``pos1``: [N] int16 cells (-1 = not placed);
  ``moves``: [N] int8 moves made; ``captured``: [N] bool; ``code0``, ``code1``: [N] int64
  infoset codes ``walk * cells + start``, ``walk`` one base-6 digit ``action + 1`` per own
  move (the leading digit is >= 1, so walks of different lengths differ)."""

  def __init__(self, rows: int, cols: int, horizon: int):
    self.rows, self.cols, self.horizon = rows, cols, horizon
    self.cells = rows * cols
    if 6.0 ** ((horizon + 1) // 2) * self.cells >= 2.0**62:
      raise GameError(f"horizon {horizon} is too long for exact int64 infoset codes")

  def initial_states(self) -> dict:
    return {
      "pos0": np.array([-1], np.int16),
      "pos1": np.array([-1], np.int16),
      "moves": np.array([0], np.int8),
      "captured": np.array([False]),
      "code0": np.array([0], np.int64),
      "code1": np.array([0], np.int64),
    }

  def node_kind(self, states) -> np.ndarray:
    kind = np.where(
      states["captured"] | (states["moves"] == self.horizon),
      TERMINAL_NODE,
      np.where(states["moves"] % 2 == 0, PLAYER_0, PLAYER_1),
    )
    return np.where(states["pos1"] < 0, CHANCE_NODE, kind).astype(np.int8)

  def expand(self, states):
    n = len(states["pos0"])
    for placed in ("pos0", "pos1"):  # chance levels place one player everywhere
      if states[placed][0] < 0:
        parent = np.repeat(np.arange(n), self.cells)
        cell = np.tile(np.arange(self.cells), n)
        children = {name: values[parent] for name, values in states.items()}
        children[placed] = cell.astype(np.int16)
        children[f"code{placed[-1]}"] = cell.astype(np.int64)
        return parent, cell, np.full(len(parent), 1.0 / self.cells), children
    player = int(states["moves"][0]) % 2  # levels alternate between the players
    parent = np.repeat(np.arange(n), len(_STEPS))
    action = np.tile(np.arange(len(_STEPS)), n)
    row, col = np.divmod(states[f"pos{player}"][parent].astype(np.int64), self.cols)
    row = row + np.array(_STEPS)[action, 0]
    col = col + np.array(_STEPS)[action, 1]
    keep = (row >= 0) & (row < self.rows) & (col >= 0) & (col < self.cols)
    parent, action = parent[keep], action[keep]
    children = {name: values[parent] for name, values in states.items()}
    children[f"pos{player}"] = (row[keep] * self.cols + col[keep]).astype(np.int16)
    code = children[f"code{player}"]
    walk, start = np.divmod(code, self.cells)
    children[f"code{player}"] = (walk * 6 + action + 1) * self.cells + start
    children["moves"] = children["moves"] + np.int8(1)
    children["captured"] = children["pos0"] == children["pos1"]
    return parent, action, np.ones(len(parent)), children

  def utility(self, states) -> np.ndarray:
    return states["moves"].astype(np.float64) - states["captured"]

  def infoset_code(self, states, player: int) -> np.ndarray:
    return states[f"code{player}"]

  def infoset_keys(self, player: int, codes) -> np.ndarray:
    keys = []
    for code in np.asarray(codes).tolist():
      walk, start = divmod(code, self.cells)
      letters = []
      while walk:
        walk, digit = divmod(walk, 6)
        letters.append(_LETTERS[digit - 1])
      keys.append(f"{start}:" + "".join(reversed(letters)))
    return np.array(keys)
