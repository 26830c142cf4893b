"""Latent Tic-Tac-Toe (Lanctot et al. 2009, section 5): "moves are not disclosed until after the
opponent's next move, and lost if invalid at the time they are revealed".

The exact rules implemented (the paper gives only the sentence above):

- Player 0 (x) and player 1 (o) alternate, player 0 first, on a 3 x 3 board (cells 0..8,
  row by row; action id = cell). The board shows the *revealed* marks only.
- A move is any cell that is empty on the revealed board. It stays hidden from the
  opponent (the pending move) until the opponent has made its next move; then it is
  revealed to both players: placed if its cell is still empty, lost (no mark) if the
  cell was taken meanwhile, which happens when the opponent's own earlier move, revealed
  in between, went to the same cell.
- So the acting player always knows the whole revealed board; what it does not know is
  the opponent's pending move. After each of its moves it learns the opponent's previous
  move (the one just revealed).
- The game ends when a reveal completes a row, column or diagonal for the revealed
  player (that player wins: +1 / -1), or when the revealed board is full (a draw, 0; the
  move just made is then necessarily lost). The first move reveals nothing.

Infoset key: the player's own moves, each followed by the cell of the opponent's move
revealed right after it (``-`` for none), e.g. player 0's ``"4-08"``: it played 4 (no
reveal), then 0 and saw the opponent's first move, 8.
"""

from __future__ import annotations

import numpy as np

from ._base import PLAYER_0, PLAYER_1, TERMINAL, TERMINAL_NODE, GameError, State, strings_from_chars

__all__ = ["MAX_OWN_MOVES", "LatentTicTacToeState", "LatentTicTacToe", "VectorizedLatentTicTacToe"]

_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
_LINE_MASKS = np.array([sum(1 << c for c in line) for line in _LINES], np.int16)
_FULL = (1 << 9) - 1
MAX_OWN_MOVES = 9  # infoset codes hold two decimal digits per own move


def _replay(moves: tuple):
  """(board [9] of None / 0 / 1, winner (None, 0, 1), full) after the given moves."""
  board, winner = [None] * 9, None
  for t in range(1, len(moves)):  # the move before t is revealed after move t
    revealed_player, cell = (t - 1) % 2, moves[t - 1]
    if board[cell] is None:
      board[cell] = revealed_player
      if any(all(board[c] == revealed_player for c in line) for line in _LINES):
        winner = revealed_player
  return board, winner, all(b is not None for b in board)


class LatentTicTacToeState(State):
  def __init__(self, moves: tuple = ()):
    self.moves = moves

  def current_player(self) -> int:
    _, winner, full = _replay(self.moves)
    return TERMINAL if winner is not None or full else len(self.moves) % 2

  def legal_actions(self) -> list[int]:
    board, _, _ = _replay(self.moves)
    return [cell for cell in range(9) if board[cell] is None]

  def child(self, action: int) -> LatentTicTacToeState:
    return LatentTicTacToeState(self.moves + (action,))

  def returns(self) -> list[float]:
    _, winner, _ = _replay(self.moves)
    u0 = 0.0 if winner is None else 1.0 if winner == 0 else -1.0
    return [u0, -u0]

  def information_state_string(self, player: int) -> str:
    return "".join(f"{self.moves[t]}{self.moves[t - 1] if t else '-'}" for t in range(player, len(self.moves), 2))


class LatentTicTacToe:
  """``latent_tic_tac_toe``, or ``latent_tic_tac_toe(opening=eai)``: the subgame after the
  given first moves, cells written as letters ``a``..``i`` (small instances for tests)."""

  def __init__(self, opening: str = ""):
    if not isinstance(opening, str) or any(c not in _CELL_LETTERS for c in opening):
      raise GameError(f"parameter opening must be letters a..i (cells 0..8), got {opening!r}")
    self.opening = tuple(_CELL_LETTERS.index(c) for c in opening)
    state = LatentTicTacToeState()
    for cell in self.opening:
      if state.is_terminal() or cell not in state.legal_actions():
        raise GameError(f"opening {opening!r} is not a legal sequence of moves")
      state = state.child(cell)
    self.name, self.params = "latent_tic_tac_toe", ({"opening": opening} if opening else {})

  def new_initial_state(self) -> LatentTicTacToeState:
    return LatentTicTacToeState(self.opening)

  def vectorized(self) -> VectorizedLatentTicTacToe:
    return VectorizedLatentTicTacToe(self.opening)


_CELL_LETTERS = "abcdefghi"


class VectorizedLatentTicTacToe:
  """LTTT over batches of states: ``marks0``, ``marks1``: [N] int16 bitmasks of the
  revealed marks; ``pending``: [N] int8 the last move, not yet revealed (-1 = none);
  ``moves``: [N] int8 moves made; ``outcome``: [N] int8 0 = on, 1 = player 0 won,
  2 = player 1 won, 3 = draw; ``code0``, ``code1``: [N] int64 infoset codes, two decimal
  digits ``(move + 1, revealed + 1 or 0)`` per own move (the leading digit is >= 1)."""

  def __init__(self, opening: tuple = ()):
    self.opening = opening

  def initial_states(self) -> dict:
    states = {
      "marks0": np.array([0], np.int16),
      "marks1": np.array([0], np.int16),
      "pending": np.array([-1], np.int8),
      "moves": np.array([0], np.int8),
      "outcome": np.array([0], np.int8),
      "code0": np.array([0], np.int64),
      "code1": np.array([0], np.int64),
    }
    for cell in self.opening:
      _, action, _, children = self.expand(states)
      states = {name: values[action == cell] for name, values in children.items()}
    return states

  def node_kind(self, states) -> np.ndarray:
    kind = np.where(states["moves"] % 2 == 0, PLAYER_0, PLAYER_1)
    return np.where(states["outcome"] > 0, TERMINAL_NODE, kind).astype(np.int8)

  def expand(self, states):
    n = len(states["moves"])
    player = int(states["moves"][0]) % 2  # no chance: a level is one move number
    opponent = 1 - player
    parent = np.repeat(np.arange(n), 9)
    cell = np.tile(np.arange(9, dtype=np.int16), n)
    taken = states["marks0"] | states["marks1"]
    keep = (taken[parent] >> cell) & 1 == 0
    parent, cell = parent[keep], cell[keep]
    children = {name: values[parent] for name, values in states.items()}
    if (int(children["moves"][0]) // 2) + 1 > MAX_OWN_MOVES:
      raise AssertionError("latent tic-tac-toe is longer than its infoset codes allow")
    revealed = children["pending"].astype(np.int16)
    children[f"code{player}"] = children[f"code{player}"] * 100 + (cell + 1) * 10 + (revealed + 1)
    has_pending = revealed >= 0
    bit = np.where(has_pending, np.int16(1) << np.maximum(revealed, 0), 0).astype(np.int16)
    placed = has_pending & ((children["marks0"] | children["marks1"]) & bit == 0)
    marks = children[f"marks{opponent}"] | np.where(placed, bit, 0).astype(np.int16)
    children[f"marks{opponent}"] = marks
    won = np.any((marks[:, None] & _LINE_MASKS[None, :]) == _LINE_MASKS[None, :], axis=1)
    full = (children["marks0"] | children["marks1"]) == _FULL
    children["outcome"] = np.where(won, 1 + opponent, np.where(full, 3, 0)).astype(np.int8)
    children["pending"] = cell.astype(np.int8)
    children["moves"] = children["moves"] + np.int8(1)
    return parent, cell.astype(np.int64), np.ones(len(parent)), children

  def utility(self, states) -> np.ndarray:
    outcome = states["outcome"]
    return np.where(outcome == 1, 1.0, np.where(outcome == 2, -1.0, 0.0))

  def infoset_code(self, states, player: int) -> np.ndarray:
    return states[f"code{player}"]

  def infoset_keys(self, player: int, codes) -> np.ndarray:
    codes = np.asarray(codes, np.int64).copy()
    pairs = np.zeros((len(codes), MAX_OWN_MOVES), np.int64)  # latest move first
    for j in range(MAX_OWN_MOVES):
      codes, pairs[:, j] = np.divmod(codes, 100)
    length = (pairs > 0).sum(1)
    rows = np.arange(len(codes))
    chars = np.zeros((len(codes), 2 * MAX_OWN_MOVES), np.uint8)
    for k in range(MAX_OWN_MOVES):  # k-th own move in order of play
      present = k < length
      move_plus_one, revealed_plus_one = np.divmod(pairs[rows, np.maximum(length - 1 - k, 0)], 10)
      chars[:, 2 * k] = np.where(present, ord("0") + move_plus_one - 1, 0)
      chars[:, 2 * k + 1] = np.where(
        present, np.where(revealed_plus_one > 0, ord("0") + revealed_plus_one - 1, ord("-")), 0
      )
    return strings_from_chars(chars)
