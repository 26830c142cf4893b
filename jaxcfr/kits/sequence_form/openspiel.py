"""Sequence-form profiles to and from OpenSpiel policies (the games themselves come in through
jaxcfr.base.openspiel). Needs the optional extra ``open_spiel``."""

from __future__ import annotations

import numpy as np


__all__ = ["to_openspiel_policy", "from_openspiel_policy"]


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
