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
``VectorizedRules`` protocol of jaxcfr/kits/sequence_form/vectorized.py), for games too big to walk, and
``info``: its GameInfo, what the layers above need to know of it (a game without one
declares the defaults).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

__all__ = [
  "CHANCE",
  "TERMINAL",
  "PLAYER_0",
  "PLAYER_1",
  "CHANCE_NODE",
  "TERMINAL_NODE",
  "State",
  "GameError",
  "GameBuildError",
  "OpenSpielVariant",
  "GameInfo",
  "InfostateEncoding",
  "check_int",
  "strings_from_chars",
]

CHANCE = -1  # OpenSpiel's kChancePlayerId
TERMINAL = -4  # OpenSpiel's kTerminalPlayerId

# Node kinds: the values of ``GameArrays.kind`` and of the vectorised rules' ``kind``
# (jaxcfr/kits/sequence_form/vectorized.py); defined here once, jaxcfr.kits.sequence_form.arrays imports them.
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


class GameBuildError(GameError):
  """Rules that break an assumption of the representation a game is built in (perfect
  recall, two players, zero-sum, ...)."""


class OpenSpielVariant(GameError):
  """The parameters name a variant of an OpenSpiel game that the native rules do not
  cover; ``jaxcfr.load`` then builds OpenSpiel's game through the adapter."""


@dataclasses.dataclass(frozen=True)
class InfostateEncoding:
  """A game's information-state encoding: the input of the neural solvers' networks
  (jaxcfr.solvers.deep_cfr, escher), computed on the host from the infoset keys alone.

  ``encode(keys, player)`` -> [I, F] float32, one row per key of ``player``. Compares and
  hashes by value (``function`` is a module-level function, ``params`` a tuple), so loading
  a game twice gives equal GameInfos.

  Attributes:
    function: ``function(keys: list[str], player: int, **params) -> [I, F]``.
    params: ((name, value), ...) the game's parameters the layout depends on.
    openspiel: True when the rows equal OpenSpiel's ``information_state_tensor`` of the twin
      (GameInfo.openspiel_name; tests/test_encodings.py checks every infoset), else the layout
      is the one ``function`` documents.
  """

  function: Callable
  params: tuple = ()
  openspiel: bool = False

  def encode(self, keys, player: int) -> np.ndarray:
    """[I, F] float32 rows of the keys of ``player``."""
    rows = np.asarray(self.function([str(k) for k in keys], int(player), **dict(self.params)), np.float32)
    return rows.reshape(len(keys), -1)


@dataclasses.dataclass(frozen=True)
class GameInfo:
  """What a game declares about itself for the layers above the rules, so that none of them
  looks a game up by its name. The defaults describe a game with nothing special; a game
  states only what differs.

  Attributes:
    payoff_unit: the unit of the returns, e.g. "chips", "small bets"; "value" by default.
    is_poker: a poker game; head-to-head tables also report its values in thousandths of
      ``payoff_unit`` per hand.
    openspiel_name: the OpenSpiel game string with the same histories, action ids and chance
      ids (``Game.openspiel_game`` loads it), or None.
    metrics: the family of game-specific metrics reported next to exploitability (a tag that
      jaxcfr.evaluate.game_metrics implements: "kuhn"), or None.
    features: the feature set and card abstractions of regression CFR for the game (a tag
      that jaxcfr.solvers.rcfr_features implements: "leduc"), or None for the generic
      encoding of the infoset keys.
    big_blind: chips of a big blind, for games reported in milli-big-blinds per game (mbb/g),
      or None.
    pot: chips in the middle at the root of a subgame, for values reported as a share of the
      pot, or None.
    representations: the kits that can build the game (jaxcfr.kits: "sequence_form",
      "public_tree", "card_abstraction"), its default first: what ``jaxcfr.load`` offers.
    public_tree_runs: for a game with both a sequence form and a public tree, the fewest runs
      of one batch that the public tree solves faster on a CPU (measured by
      ``benchmarks/public_tree.py``), so that loading for such a batch picks it by default;
      None where the sequence form is the faster for every batch measured.
    encoding: the information-state encoding of the neural solvers (InfostateEncoding), or
      None for the generic encoding of the infoset keys (jaxcfr.solvers.neural_inputs).
  """

  payoff_unit: str = "value"
  is_poker: bool = False
  openspiel_name: str | None = None
  metrics: str | None = None
  features: str | None = None
  big_blind: float | None = None
  pot: float | None = None
  public_tree_runs: int | None = None
  representations: tuple = ("sequence_form",)
  encoding: InfostateEncoding | None = None

  def __post_init__(self):
    if not isinstance(self.payoff_unit, str) or not self.payoff_unit.strip():
      raise GameError(f"payoff_unit must be a non-empty string, got {self.payoff_unit!r}")
    if not isinstance(self.is_poker, bool):
      raise GameError(f"is_poker must be True or False, got {self.is_poker!r}")
    for field in ("openspiel_name", "metrics", "features"):
      value = getattr(self, field)
      if value is not None and (not isinstance(value, str) or not value.strip()):
        raise GameError(f"{field} must be a non-empty string or None, got {value!r}")
    for field in ("big_blind", "pot"):
      value = getattr(self, field)
      if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0):
        raise GameError(f"{field} must be a positive number or None, got {value!r}")
    kits = self.representations
    if not isinstance(kits, tuple) or not kits or not all(isinstance(k, str) and k for k in kits):
      raise GameError(f"representations must be a non-empty tuple of kit names, got {kits!r}")
    runs = self.public_tree_runs
    if runs is not None and (isinstance(runs, bool) or not isinstance(runs, int) or runs < 1):
      raise GameError(f"public_tree_runs must be a positive int or None, got {runs!r}")
    if self.encoding is not None and not isinstance(self.encoding, InfostateEncoding):
      raise GameError(f"encoding must be an InfostateEncoding or None, got {self.encoding!r}")


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
