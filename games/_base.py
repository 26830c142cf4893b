"""The small-game protocol shared by every native game.

A game is an object with ``name``, ``params`` and ``new_initial_state()``. A state is
immutable and answers the same questions as an OpenSpiel state, so that the builder reads
native games and OpenSpiel games through one interface:

- ``current_player()``: 0, 1, ``CHANCE`` or ``TERMINAL``;
- ``legal_actions()``: the action ids of the acting player, ascending;
- ``chance_outcomes()``: ``[(action id, probability), ...]`` at chance nodes;
- ``child(action)``: the state after ``action``;
- ``returns()``: ``[u0, u1]`` at terminals;
- ``information_state_string(player)``: a key equal for exactly the histories that the
  acting player cannot tell apart.

A game may also offer ``vectorized()``: the same rules over batches of states (the
``VectorizedRules`` protocol of jaxcfr/game/vectorized.py), for games too big to walk.
"""

from __future__ import annotations

import numpy as np

CHANCE = -1  # OpenSpiel's kChancePlayerId
TERMINAL = -4  # OpenSpiel's kTerminalPlayerId

# Node kinds returned by vectorised rules (jaxcfr/game/vectorized.py); equal to jaxcfr.game.arrays'
# constants, repeated here so that the rules need no JAX import.
PLAYER_0, PLAYER_1, CHANCE_NODE, TERMINAL_NODE = 0, 1, 2, 3


class State:
  """Derived predicates from ``current_player()``; subclasses implement the rest."""

  def current_player(self) -> int:
    raise NotImplementedError

  def is_terminal(self) -> bool:
    return self.current_player() == TERMINAL

  def is_chance_node(self) -> bool:
    return self.current_player() == CHANCE


class GameError(ValueError):
  """A game name, a parameter or a rule set that cannot be built."""


class OpenSpielVariant(GameError):
  """The parameters name a variant of an OpenSpiel game that the native rules do not
  cover; ``jaxcfr.load`` then builds OpenSpiel's game through the adapter."""


def check_int(name: str, value, *, low: int, high: int | None = None) -> int:
  """Returns ``value`` as an int in ``[low, high]``, or raises GameError naming it."""
  if isinstance(value, bool) or not isinstance(value, int):
    raise GameError(f"parameter {name} must be an integer, got {value!r}")
  if value < low or (high is not None and value > high):
    bounds = f">= {low}" if high is None else f"in [{low}, {high}]"
    raise GameError(f"parameter {name} must be {bounds}, got {value}")
  return value


def strings_from_chars(chars: np.ndarray) -> np.ndarray:
  """[N, W] uint8 ASCII codes, 0 = padding at the end -> [N] str array (vectorised keys)."""
  chars = np.ascontiguousarray(chars, np.uint8)
  if chars.shape[1] == 0:
    chars = np.zeros((chars.shape[0], 1), np.uint8)
  return chars.view(f"S{chars.shape[1]}").ravel().astype(f"U{chars.shape[1]}")
