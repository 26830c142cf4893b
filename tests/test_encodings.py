"""The games' information-state encodings (GameInfo.encoding, the neural solvers' inputs):
OpenSpiel's ``information_state_tensor`` on every infoset of the twin, by walking both rules
side by side (the twins share histories, action ids and chance ids)."""

import numpy as np
import pyspiel
import pytest

from jaxcfr import games

TWINS = [
  "kuhn_poker",
  "one_card_poker(num_cards=3)",
  "leduc_poker",
  "liars_dice(dice_sides=3)",
  "liars_dice(dice_sides=4)",
  "goofspiel(num_cards=4,forced_last_round=False)",
  "no_limit_leduc_poker(stack=4)",
  "no_limit_leduc_poker(stack=3,ante=1,num_ranks=2)",
  "no_limit_leduc_poker(stack=6,raise_rule=increment)",
  "no_limit_leduc_poker(stack=6,betting=fcpa)",
]


def _rules(name: str):
  base, _, args = name.partition("(")
  params = dict(a.split("=") for a in args.rstrip(")").split(",")) if args else {}
  typed = {k: (v == "True" if v in ("True", "False") else int(v) if v.isdigit() else v) for k, v in params.items()}
  return games.GAMES[base](**typed)


def _openspiel(rules):
  game = pyspiel.load_game(rules.info.openspiel_name)
  if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
    game = pyspiel.convert_to_turn_based(game)
  return game


@pytest.mark.parametrize("name", TWINS)
def test_encodings_equal_openspiels_information_state_tensor_on_every_infoset(name):
  rules = _rules(name)
  encoding = rules.info.encoding
  assert encoding is not None and encoding.openspiel
  checked = {}

  def walk(ours, theirs):
    assert ours.current_player() == theirs.current_player()
    if ours.is_terminal():
      return
    if ours.is_chance_node():
      for action, _ in ours.chance_outcomes():
        walk(ours.child(action), theirs.child(action))
      return
    player = ours.current_player()
    key = ours.information_state_string(player)
    if (player, key) not in checked:
      row = encoding.encode([key], player)[0]
      expected = np.asarray(theirs.information_state_tensor(player), np.float32)
      assert row.shape == expected.shape, (name, key)
      np.testing.assert_array_equal(row, expected, err_msg=f"{name}: {key}")
      checked[(player, key)] = True
    for action in ours.legal_actions():
      walk(ours.child(action), theirs.child(action))

  walk(rules.new_initial_state(), _openspiel(rules).new_initial_state())
  assert len(checked) > 10


def test_games_without_a_twin_declare_a_documented_layout():
  for name, size in (("goofspiel(num_cards=5)", 4 + 2 * 16 + 5 + 10 + 50), ("no_limit_leduc_poker", 2 + 12 + 3 * 18)):
    rules = _rules(name)
    assert rules.info.openspiel_name is None and not rules.info.encoding.openspiel
    state = rules.new_initial_state()
    while state.is_chance_node():
      state = state.child(state.chance_outcomes()[0][0])
    row = rules.info.encoding.encode([state.information_state_string(0)], 0)
    assert row.shape == (1, size) and row[0, 0] == 1
  # the forced last round keeps OpenSpiel's layout: the last point card (1) in the last slot
  row = _rules("goofspiel(num_cards=3)").info.encoding.encode(["102="], 1)[0]  # rounds: 1 (lost), 2 (tie)
  cards_at = 4 + 2 * 7 + 3 + 2 * 3
  assert (
    row.shape == (cards_at + 2 * 9,) and row[cards_at + 3 * 2 + 0] == 1 and row[4 + 7 + 3] == 1
  )  # card 1; P0 (second): 3


def test_game_info_compares_encodings_by_value():
  assert _rules("liars_dice(dice_sides=3)").info == _rules("liars_dice(dice_sides=3)").info
  assert _rules("liars_dice(dice_sides=3)").info != _rules("liars_dice(dice_sides=4)").info
  assert hash(_rules("leduc_poker").info) == hash(_rules("leduc_poker").info)
  with pytest.raises(games.GameError, match="encoding must be an InfostateEncoding or None"):
    games.GameInfo(encoding="leduc")
