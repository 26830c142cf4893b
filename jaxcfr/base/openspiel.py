"""The door to OpenSpiel's games: any two-player zero-sum OpenSpiel game as rules of the
small-game protocol (``OpenSpielRules``: ``new_initial_state()`` is OpenSpiel's), which the
sequence-form kit builds like native rules. Needs the optional extra ``open_spiel``.

OpenSpiel's games declare no GameInfo; ``game_info`` derives what OpenSpiel's game type
tells: its short name says whether it is poker (paid in chips) and Kuhn poker's metrics
apply to two-player ``kuhn_poker``; its twin is itself; the sequence form is its one
representation.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys

from jaxcfr.games import GameBuildError, GameInfo

__all__ = ["POKER_GAMES", "available", "registered_names", "load_openspiel_game", "game_info", "OpenSpielRules"]

# OpenSpiel's poker games (short names of their game types); their returns are chips.
POKER_GAMES = ("kuhn_poker", "leduc_poker", "universal_poker", "repeated_poker", "repeated_leduc_poker")


def _pyspiel():
  try:
    import pyspiel  # pylint: disable=import-outside-toplevel
  except ImportError as error:
    raise ImportError("this needs OpenSpiel: pip install 'jaxcfr[openspiel]'") from error
  return pyspiel


def available() -> bool:
  try:
    _pyspiel()
  except ImportError:
    return False
  return True


def registered_names() -> set[str]:
  return set(_pyspiel().registered_names()) if available() else set()


@contextlib.contextmanager
def _native_stderr_silenced():
  """OpenSpiel's C++ prints a SpielError to the process's stderr before raising it; its text
  is in the exception too, which becomes the one line of the error."""
  sys.stderr.flush()
  saved = os.dup(2)
  try:
    with open(os.devnull, "wb") as null:
      os.dup2(null.fileno(), 2)
    yield
  finally:
    os.dup2(saved, 2)
    os.close(saved)


def _load(game_string: str):
  """OpenSpiel's game of ``game_string``; its SpielError as one line (ValueError)."""
  pyspiel = _pyspiel()
  try:
    with _native_stderr_silenced():
      return pyspiel.load_game(game_string)
  except pyspiel.SpielError as error:
    raise ValueError(f"OpenSpiel cannot load {game_string!r}: {error}") from error


def load_openspiel_game(game_string: str):
  """Loads an OpenSpiel game, made turn-based if simultaneous, checked for two players and
  zero-sum utilities."""
  pyspiel = _pyspiel()
  game = _load(game_string)
  game_type = game.get_type()
  if game.num_players() != 2:
    raise GameBuildError(f"{game_string} has {game.num_players()} players; jaxcfr solves two-player games")
  if game_type.utility not in (pyspiel.GameType.Utility.ZERO_SUM,):
    raise GameBuildError(f"{game_string} is not zero-sum ({game_type.utility}); jaxcfr solves zero-sum games")
  if game_type.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
    game = pyspiel.convert_to_turn_based(game)
  return game


def game_info(game_string: str) -> GameInfo:
  """The GameInfo of an OpenSpiel game string (see the module doc)."""
  game = _load(game_string)
  short_name = game.get_type().short_name
  poker = short_name in POKER_GAMES
  return GameInfo(
    payoff_unit="chips" if poker else "value",
    is_poker=poker,
    openspiel_name=game_string,
    metrics="kuhn" if short_name == "kuhn_poker" and game.num_players() == 2 else None,
    representations=("sequence_form",),
  )


class OpenSpielRules:
  """An OpenSpiel game as rules of the small-game protocol (jaxcfr.games._base).

  Attributes:
    name: ``openspiel:`` and OpenSpiel's game string (its parameters sorted).
    params: the game's parameters.
    info: its ``game_info``.
    fingerprint: what identifies the library that plays it (pyspiel's file and its time).
  """

  def __init__(self, game_string: str, name: str, params: dict):
    self.game_string, self.name, self.params = game_string, name, params
    self.info = game_info(game_string)
    pyspiel = _pyspiel()
    where = f"{pyspiel.__file__}{os.path.getmtime(pyspiel.__file__)}"
    self.fingerprint = hashlib.sha256(where.encode()).hexdigest()[:16]

  def new_initial_state(self):
    return load_openspiel_game(self.game_string).new_initial_state()

  def openspiel_game(self):
    return load_openspiel_game(self.game_string)
