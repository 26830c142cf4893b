"""The door to OpenSpiel: import any two-player zero-sum OpenSpiel game, and convert
strategies to and from OpenSpiel policies. Needs the optional extra ``open_spiel``.

OpenSpiel's games declare no GameInfo; ``game_info`` derives what OpenSpiel's game type
tells: its short name says whether it is poker (paid in chips) and Kuhn poker's metrics
apply to two-player ``kuhn_poker``; its twin is itself.
"""

from __future__ import annotations

import contextlib
import os
import sys

import numpy as np

from jaxcfr.games import GameInfo
from jaxcfr.game.build import GameBuildError, build_from_protocol

__all__ = [
  "POKER_GAMES",
  "available",
  "registered_names",
  "load_openspiel_game",
  "game_info",
  "build_openspiel",
  "to_openspiel_policy",
  "from_openspiel_policy",
]

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


def load_openspiel_game(game_string: str):
  """Loads an OpenSpiel game, made turn-based if simultaneous, checked for two players and
  zero-sum utilities."""
  pyspiel = _pyspiel()
  try:
    with _native_stderr_silenced():
      game = pyspiel.load_game(game_string)
  except pyspiel.SpielError as error:
    raise ValueError(f"OpenSpiel cannot load {game_string!r}: {error}") from error
  game_type = game.get_type()
  if game.num_players() != 2:
    raise GameBuildError(f"{game_string} has {game.num_players()} players; jaxcfr solves two-player games")
  if game_type.utility not in (pyspiel.GameType.Utility.ZERO_SUM,):
    raise GameBuildError(f"{game_string} is not zero-sum ({game_type.utility}); jaxcfr solves zero-sum games")
  if game_type.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
    game = pyspiel.convert_to_turn_based(game)
  return game


def game_info(game_string: str) -> GameInfo:
  """The GameInfo of an OpenSpiel game string (see the module doc): poker-ness and the unit
  from its game type's short name, Kuhn's metrics for two-player kuhn_poker, itself as the
  twin. Nothing else is known of OpenSpiel's games: no RCFR feature set (the generic one)."""
  pyspiel = _pyspiel()
  try:
    with _native_stderr_silenced():
      game = pyspiel.load_game(game_string)
  except pyspiel.SpielError as error:
    raise ValueError(f"OpenSpiel cannot load {game_string!r}: {error}") from error
  short_name = game.get_type().short_name
  poker = short_name in POKER_GAMES
  return GameInfo(
    payoff_unit="chips" if poker else "value",
    is_poker=poker,
    openspiel_name=game_string,
    metrics="kuhn" if short_name == "kuhn_poker" and game.num_players() == 2 else None,
  )


def build_openspiel(game_string: str, name: str | None = None, **kwargs):
  """GameArrays of an OpenSpiel game, declaring its ``game_info``; infoset keys are
  OpenSpiel's information-state strings."""
  game = load_openspiel_game(game_string)
  arrays = build_from_protocol(game.new_initial_state(), name or f"openspiel:{game_string}", **kwargs)
  return arrays.with_info(game_info(game_string))


def _infoset_states(arrays, openspiel_game, player: int):
  """Yields (infoset id, OpenSpiel state) by replaying one history of each infoset."""
  for infoset, history in enumerate(arrays.players[player].first_history):
    state = openspiel_game.new_initial_state()
    for action in arrays.history_actions(int(history)):
      state.apply_action(action)
    if state.current_player() != player:
      raise ValueError(
        f"infoset {infoset} of player {player} does not replay to that player's turn in "
        f"{openspiel_game}; the games differ"
      )
    yield infoset, state


def to_openspiel_policy(arrays, profile, openspiel_game):
  """An OpenSpiel TabularPolicy playing ``profile`` in ``openspiel_game``.

  Works for games built through the adapter and for native games whose action and chance
  ids equal OpenSpiel's (kuhn_poker, leduc_poker): each infoset is found by replaying one
  of its histories in ``openspiel_game``.

  Args:
    arrays: the GameArrays of the game (``Game.arrays``).
    profile: (sigma0 [I0, A0], sigma1 [I1, A1]) array-likes.
  """
  from open_spiel.python import policy as policy_lib  # pylint: disable=import-outside-toplevel

  tabular = policy_lib.TabularPolicy(openspiel_game)
  for player, strategy in enumerate(profile):
    strategy = np.asarray(strategy, np.float64)
    action_ids = arrays.players[player].action_ids
    for infoset, state in _infoset_states(arrays, openspiel_game, player):
      key = state.information_state_string(player)
      row = tabular.action_probability_array[tabular.state_lookup[key]]
      row[:] = 0
      legal = action_ids[infoset] >= 0
      row[action_ids[infoset][legal]] = strategy[infoset][legal]
  return tabular


def from_openspiel_policy(arrays, openspiel_policy, openspiel_game):
  """(sigma0, sigma1) NumPy arrays read from any OpenSpiel policy (Python or C++)."""
  profile = []
  for player in range(2):
    action_ids = arrays.players[player].action_ids
    strategy = np.zeros(action_ids.shape)
    for infoset, state in _infoset_states(arrays, openspiel_game, player):
      probs = openspiel_policy.action_probabilities(state)
      for a, action in enumerate(action_ids[infoset]):
        if action >= 0:
          strategy[infoset, a] = probs.get(int(action), 0.0)
    profile.append(strategy)
  return tuple(profile)
