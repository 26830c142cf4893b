"""Built games: statistics against OpenSpiel, M-values, the layout invariants of the arrays,
and native games against their OpenSpiel twins."""

from __future__ import annotations

import math
import sys
from collections import defaultdict

import hypothesis
import hypothesis.strategies as st
import numpy as np
import pyspiel
import pytest

import jaxcfr
from jaxcfr.base import openspiel as openspiel_adapter
from jaxcfr.kits.sequence_form import statistics as statistics_lib
from jaxcfr.kits.sequence_form.arrays import CHANCE_NODE, PLAYER_0, PLAYER_1, TERMINAL_NODE, PlayerArrays
from jaxcfr.kits.sequence_form.build import build_from_protocol
from jaxcfr import games
from jaxcfr.games import goofspiel, leduc_poker, liars_dice, no_limit_leduc_poker, one_card_poker
from jaxcfr.games._base import InfostateEncoding

from helpers import load

GOOFSPIEL = "goofspiel(num_cards=4,imp_info=True,points_order=descending)"  # OpenSpiel's parameters
NATIVE_GOOFSPIEL = "goofspiel(num_cards=4,forced_last_round=False)"  # the same game and rules


def openspiel_reference(game) -> dict:
  """Statistics of an OpenSpiel game by a plain recursive walk over its states."""
  counts = defaultdict(int)
  infosets = [{}, {}]  # information_state_string -> number of legal actions
  own_sequences = [defaultdict(set), defaultdict(set)]  # own action labels -> infosets

  def walk(state):
    counts["histories"] += 1
    counts["max_length"] = max(counts["max_length"], len(state.history()))
    if state.is_terminal():
      counts["terminals"] += 1
      return
    if state.is_chance_node():
      counts["chance_nodes"] += 1
      for action, _ in state.chance_outcomes():
        walk(state.child(action))
      return
    counts["decision_nodes"] += 1
    player = state.current_player()
    legal = state.legal_actions()
    key = state.information_state_string(player)
    assert infosets[player].setdefault(key, len(legal)) == len(legal)
    own = tuple(a.action for a in state.full_history() if a.player == player)
    own_sequences[player][own].add(key)
    for action in legal:
      walk(state.child(action))

  limit = sys.getrecursionlimit()
  sys.setrecursionlimit(max(limit, 10_000))
  try:
    walk(game.new_initial_state())
  finally:
    sys.setrecursionlimit(limit)
  return {
    "histories": counts["histories"],
    "chance_nodes": counts["chance_nodes"],
    "decision_nodes": counts["decision_nodes"],
    "terminals": counts["terminals"],
    "infosets": [len(i) for i in infosets],
    "sequences": [1 + sum(i.values()) for i in infosets],
    "max_actions": [max(i.values()) for i in infosets],
    "max_length": counts["max_length"],
    "m_values": [sum(math.sqrt(len(s)) for s in groups.values()) for groups in own_sequences],
  }


def _openspiel(name: str):
  game = pyspiel.load_game(name)
  if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
    game = pyspiel.convert_to_turn_based(game)
  return game


@pytest.mark.parametrize(
  "jaxcfr_name, openspiel_name",
  [
    ("kuhn_poker", "kuhn_poker"),
    ("openspiel:kuhn_poker", "kuhn_poker"),
    ("leduc_poker", "leduc_poker"),
    ("openspiel:leduc_poker", "leduc_poker"),
    ("openspiel:liars_dice", "liars_dice"),  # ~300k histories: the slowest test (a few seconds)
    ("liars_dice", "liars_dice"),  # native rules (games/liars_dice.py)
    (f"openspiel:{GOOFSPIEL}", GOOFSPIEL),
    (NATIVE_GOOFSPIEL, GOOFSPIEL),  # native rules (games/goofspiel.py)
  ],
)
def test_statistics_match_openspiel(jaxcfr_name, openspiel_name):
  stats = jaxcfr.load(jaxcfr_name, use_cache=False).statistics()
  reference = openspiel_reference(_openspiel(openspiel_name))
  m_values = stats.pop("m_values")
  reference_m = reference.pop("m_values")
  assert {k: stats[k] for k in reference} == reference
  np.testing.assert_allclose(m_values, reference_m, rtol=1e-12)


def test_openspiel_names_resolve_through_the_adapter():
  assert jaxcfr.load("kuhn_poker").name == "kuhn_poker"  # native wins over OpenSpiel
  assert load(f"openspiel:{GOOFSPIEL}").name == "openspiel:goofspiel(imp_info=True,num_cards=4,points_order=descending)"
  for name in (GOOFSPIEL, NATIVE_GOOFSPIEL):  # OpenSpiel's parameters: OpenSpiel's game, native rules
    assert load(name).name == "goofspiel(forced_last_round=False,num_cards=4)"
  # OpenSpiel's other variants build through the adapter; this one's information-state
  # strings forget the order of the player's own bids, which the builder reports.
  with pytest.raises(jaxcfr.GameBuildError, match="imperfect recall"):
    jaxcfr.load("goofspiel(num_cards=4,imp_info=False)")
  assert load(NATIVE_GOOFSPIEL).openspiel_name == "goofspiel(imp_info=True,num_cards=4,points_order=descending)"
  assert load("goofspiel(num_cards=4)").openspiel_name is None  # the last round is played: no twin
  assert load("liars_dice").name == "liars_dice(dice_sides=6)"
  assert load("liars_dice").openspiel_name == "liars_dice(dice_sides=6)"
  assert load("openspiel:liars_dice").name == "openspiel:liars_dice"
  assert load("openspiel:kuhn_poker").name == "openspiel:kuhn_poker"
  assert load("kuhn_poker").openspiel_name == "kuhn_poker"
  assert load("one_card_poker(num_cards=3)").openspiel_name == "kuhn_poker"
  assert load("leduc_poker").openspiel_game().get_type().short_name == "leduc_poker"
  with pytest.raises(ValueError, match=r"coin_toss\(sell_value=0.5\) has no OpenSpiel twin"):
    load("coin_toss").openspiel_game()


# What each native game declares (jaxcfr.games.GameInfo): (poker, payoff unit, twin, metrics, features).
DECLARED = {
  "kuhn_poker": (True, "chips", "kuhn_poker", "kuhn", None),
  "one_card_poker(num_cards=3)": (True, "chips", "kuhn_poker", None, None),
  "one_card_poker(num_cards=5)": (True, "chips", None, None, None),
  "leduc_poker": (True, "chips", "leduc_poker", None, "leduc"),
  "no_limit_leduc_poker(stack=4)": (True, "chips", games.NoLimitLeducPoker(stack=4).openspiel_name, None, None),
  "liars_dice(dice_sides=3)": (False, "value", "liars_dice(dice_sides=3)", None, None),
  NATIVE_GOOFSPIEL: (False, "value", "goofspiel(imp_info=True,num_cards=4,points_order=descending)", None, None),
  "goofspiel(num_cards=3)": (False, "value", None, None, None),
  "rps": (False, "value", None, None, None),
  "coin_toss": (False, "value", None, None, None),
}


# The games with a public tree declare both exact kits; liar's dice's public tree is the faster for
# batches of 64 runs (benchmarks/results/public_tree_liars_dice.json); no-limit Leduc counts its
# ante as the big blind.
# Each declares its information-state encoding (the neural solvers' inputs; OpenSpiel's layout
# where a twin exists: tests/test_encodings.py).
BOTH = {"representations": ("sequence_form", "public_tree")}
KUHN_ENCODING = InfostateEncoding(one_card_poker.information_state_tensor, (("num_cards", 3),), openspiel=True)
NO_LIMIT = (("num_cards", 6), ("length", 12), ("all_in", 0))
DECLARED_ALSO = {
  "kuhn_poker": {**BOTH, "encoding": KUHN_ENCODING},
  "one_card_poker(num_cards=3)": {**BOTH, "encoding": KUHN_ENCODING},
  "one_card_poker(num_cards=5)": {
    **BOTH,
    "encoding": InfostateEncoding(one_card_poker.information_state_tensor, (("num_cards", 5),)),
  },
  "leduc_poker": {**BOTH, "encoding": InfostateEncoding(leduc_poker.information_state_tensor, openspiel=True)},
  "no_limit_leduc_poker(stack=4)": {
    **BOTH,
    "big_blind": 1.0,
    "encoding": InfostateEncoding(no_limit_leduc_poker.information_state_tensor, NO_LIMIT, openspiel=True),
  },
  "liars_dice(dice_sides=3)": {
    "public_tree_runs": 64,
    **BOTH,
    "encoding": InfostateEncoding(liars_dice.information_state_tensor, (("sides", 3),), openspiel=True),
  },
  NATIVE_GOOFSPIEL: {
    "encoding": InfostateEncoding(goofspiel.information_state_tensor, (("num_cards", 4),), openspiel=True)
  },
  "goofspiel(num_cards=3)": {"encoding": InfostateEncoding(goofspiel.information_state_tensor, (("num_cards", 3),))},
}


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_games_declare_their_info_and_the_loaded_game_carries_it(name):
  game = load(name)
  declared = games.GameInfo(*[DECLARED[name][i] for i in (1, 0, 2, 3, 4)], **DECLARED_ALSO.get(name, {}))
  assert game.info == declared and game.tensors.info == declared and game.arrays.info == declared
  assert game.openspiel_name == declared.openspiel_name
  assert game.representation == "sequence_form"


def test_openspiel_games_get_what_their_game_type_tells():
  kuhn, liars_dice = load("openspiel:kuhn_poker"), load("openspiel:liars_dice")
  assert kuhn.info == games.GameInfo(payoff_unit="chips", is_poker=True, openspiel_name="kuhn_poker", metrics="kuhn")
  assert liars_dice.info == games.GameInfo(openspiel_name="liars_dice")
  assert openspiel_adapter.game_info("leduc_poker").features is None  # OpenSpiel's keys are not Leduc's
  assert openspiel_adapter.game_info("universal_poker").is_poker
  assert not openspiel_adapter.game_info("kuhn_poker(players=3)").metrics


def test_game_info_checks_its_fields():
  assert games.GameInfo() == games.GameInfo(payoff_unit="value", is_poker=False)
  with pytest.raises(games.GameError, match="payoff_unit must be a non-empty string"):
    games.GameInfo(payoff_unit="")
  with pytest.raises(games.GameError, match="is_poker must be True or False"):
    games.GameInfo(is_poker="yes")
  with pytest.raises(games.GameError, match="metrics must be a non-empty string or None"):
    games.GameInfo(metrics=3)
  for runs in (0, 2.5, True):
    with pytest.raises(games.GameError, match="public_tree_runs must be a positive int or None"):
      games.GameInfo(public_tree_runs=runs)


def test_m_value_kuhn():
  """Lanctot et al. 2009 section 4: player 0 has 3 infosets after () and 3 after (pass);
  player 1 has all 6 infosets after (), so M1 = 2 sqrt(3) and M2 = sqrt(6)."""
  arrays = load("kuhn_poker").arrays
  assert statistics_lib.m_value(arrays.players[0]) == pytest.approx(2 * math.sqrt(3), rel=1e-14)
  assert statistics_lib.m_value(arrays.players[1]) == pytest.approx(math.sqrt(6), rel=1e-14)


def test_m_value_groups_by_action_labels_not_by_sequences():
  """Infosets C (after A's action 0) and D (after B's action 0) follow different sequences
  with the same action label, so they form one group: M = sqrt(2) + sqrt(2)."""
  player = PlayerArrays(
    parent_seq=np.array([0, 0, 1, 3], np.int32),
    num_actions=np.array([2, 2, 2, 2], np.int32),
    level_offsets=np.array([0, 2, 4], np.int64),
    action_ids=np.array([[0, 1]] * 4, np.int32),
    key_data=np.array(["A", "B", "C", "D"]),
    first_history=np.zeros(4, np.int64),
  )
  assert statistics_lib.m_value(player) == pytest.approx(2 * math.sqrt(2), rel=1e-14)
  # With distinct labels at B the groups split: sqrt(2) + 1 + 1.
  relabelled = PlayerArrays(**{**player.__dict__, "action_ids": np.array([[0, 1], [2, 3], [0, 1], [0, 1]], np.int32)})
  assert statistics_lib.m_value(relabelled) == pytest.approx(math.sqrt(2) + 2, rel=1e-14)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_goofspiel_m_value_script_agrees_with_statistics(n):
  """benchmarks/papers/goofspiel_m_values.py counts Goof(N)'s infosets and M-values from the rules
  alone (docs/games.md's M-value conventions); its paper-002 convention must equal
  ``jaxcfr info``'s value, with and without the forced last round."""
  import importlib.util  # pylint: disable=import-outside-toplevel
  from pathlib import Path  # pylint: disable=import-outside-toplevel

  path = Path(__file__).resolve().parents[1] / "benchmarks" / "papers" / "goofspiel_m_values.py"
  spec = importlib.util.spec_from_file_location("goofspiel_m_values", path)
  script = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(script)
  result = script.m_values(n)
  forced = load(f"goofspiel(num_cards={n})").statistics()
  automatic = load(f"goofspiel(num_cards={n},forced_last_round=False)").statistics()
  assert result["infosets_per_player"] == forced["infosets"][0] == forced["infosets"][1]
  np.testing.assert_allclose(result["card labels"], [forced["m_values"][0], automatic["m_values"][0]], rtol=1e-12)
  np.testing.assert_allclose(result["rank labels"], result["card labels"], rtol=1e-12)


@hypothesis.settings(max_examples=8, deadline=None, database=None)
@hypothesis.given(st.integers(min_value=2, max_value=12))
def test_one_card_poker_sizes(n):
  """OCP(N): N (N - 1) deals, each a Kuhn betting tree of 4 decisions and 5 terminals;
  Lanctot et al. 2009 Table 1 gives M1 = 45, M2 = 32 for N = 500, i.e. 2 sqrt(N) and sqrt(2N)."""
  stats = statistics_lib.statistics(build_from_protocol(games.OneCardPoker(n).new_initial_state(), f"ocp{n}"))
  deals = n * (n - 1)
  assert stats["histories"] == 1 + n + 9 * deals
  assert stats["chance_nodes"] == 1 + n
  assert stats["decision_nodes"] == 4 * deals
  assert stats["terminals"] == 5 * deals
  assert stats["infosets"] == [2 * n, 2 * n]
  assert stats["sequences"] == [4 * n + 1, 4 * n + 1]
  assert stats["max_length"] == 5
  np.testing.assert_allclose(stats["m_values"], [2 * math.sqrt(n), math.sqrt(2 * n)], rtol=1e-14)


def check_layout(arrays):
  """The layout promised by arrays.py, checked history by history."""
  H = arrays.num_histories
  kind = arrays.kind
  assert arrays.parent[0] == -1 and arrays.depth_offsets[0] == 0 and arrays.depth_offsets[-1] == H
  assert np.all(np.diff(arrays.depth_offsets) > 0)
  depth = np.repeat(np.arange(len(arrays.depth_offsets) - 1), np.diff(arrays.depth_offsets))
  assert np.all(depth[arrays.parent[1:]] == depth[1:] - 1)
  assert np.all(np.diff(arrays.parent[1:]) >= 0)  # breadth-first: children ordered by parent
  assert np.all((arrays.num_children == 0) == (kind == TERMINAL_NODE))
  for h in np.flatnonzero(kind != TERMINAL_NODE):
    children = arrays.first_child[h] + np.arange(arrays.num_children[h])
    assert np.all(arrays.parent[children] == h)
    assert np.all(arrays.action_index[children] == np.arange(arrays.num_children[h]))
    if kind[h] == CHANCE_NODE:
      assert arrays.chance_prob[children].sum() == pytest.approx(1.0, abs=1e-12)
      assert np.all(arrays.sequence[:, children] == arrays.sequence[:, [h]])
    else:
      player = arrays.players[kind[h]]
      info = arrays.infoset[h]
      assert arrays.num_children[h] == player.num_actions[info]
      # The histories of an infoset are reached by the same own sequence (perfect recall).
      assert arrays.sequence[kind[h], h] == player.parent_seq[info]
      assert np.all(arrays.action_id[children] == player.action_ids[info, : arrays.num_children[h]])
      assert np.all(arrays.sequence[kind[h], children] == player.sequences[info, : arrays.num_children[h]])
      assert np.all(arrays.sequence[1 - kind[h], children] == arrays.sequence[1 - kind[h], h])
      assert np.all(arrays.chance_prob[children] == 1.0)
  assert np.all(arrays.infoset[(kind == CHANCE_NODE) | (kind == TERMINAL_NODE)] == -1)
  assert np.all(arrays.utility[kind != TERMINAL_NODE] == 0)
  for p, player in enumerate(arrays.players):
    assert len(set(player.keys.tolist())) == player.num_infosets
    assert np.all(player.legal == (player.action_ids >= 0))
    assert np.all(kind[player.first_history] == p)
    assert np.all(arrays.infoset[player.first_history] == np.arange(player.num_infosets))
    assert set(arrays.infoset[kind == p].tolist()) == set(range(player.num_infosets))
    # Treeplex levels: the parent sequence of a level-l infoset belongs to level l - 1.
    seq_level = np.zeros(player.num_sequences, np.int64)
    for level, (lo, hi) in enumerate(zip(player.level_offsets[:-1], player.level_offsets[1:])):
      assert hi > lo
      seqs = player.sequences[lo:hi][player.legal[lo:hi]]
      seq_level[seqs] = level + 1
      assert np.all(seq_level[player.parent_seq[lo:hi]] == level)
    assert sorted(player.sequences[player.legal].tolist()) == list(range(1, player.num_sequences))


@pytest.mark.parametrize(
  "name",
  [
    "kuhn_poker",
    "openspiel:kuhn_poker",
    "leduc_poker",
    "coin_toss",
    "rps_plus",
    "one_card_poker(num_cards=5)",
    GOOFSPIEL,
    NATIVE_GOOFSPIEL,
    "liars_dice(dice_sides=3)",
    "princess_and_monster(rows=2,cols=2,horizon=4)",
    "latent_tic_tac_toe(opening=eaib)",
  ],
)
def test_array_layout(name):
  check_layout(load(name).arrays)


def _partition(arrays):
  """Each player's infosets as a set of frozensets of action-id paths of histories."""
  paths = [tuple(arrays.history_actions(h)) for h in range(arrays.num_histories)]
  out = []
  for p in (PLAYER_0, PLAYER_1):
    groups = defaultdict(set)
    for h in np.flatnonzero(arrays.kind == p):
      groups[int(arrays.infoset[h])].add(paths[h])
    out.append({frozenset(g) for g in groups.values()})
  return set(paths), out


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker", "liars_dice(dice_sides=3)", NATIVE_GOOFSPIEL])
def test_native_game_is_its_openspiel_twin(name):
  """Same histories (as action-id paths), same infoset partitions, same utilities."""
  native, adapter = load(name).arrays, load(f"openspiel:{load(name).openspiel_name}").arrays
  assert native.num_histories == adapter.num_histories
  native_paths, native_partition = _partition(native)
  adapter_paths, adapter_partition = _partition(adapter)
  assert native_paths == adapter_paths
  assert native_partition == adapter_partition
  utility = lambda a: {tuple(a.history_actions(h)): (a.utility[h], a.chance_prob[h]) for h in range(a.num_histories)}
  assert utility(native) == utility(adapter)


def test_kuhn_infoset_keys_and_actions():
  """The key format the equilibrium tests rely on: f"{card}:{bets}", pass = 0, bet = 1."""
  arrays = load("kuhn_poker").arrays
  assert sorted(arrays.players[0].keys.tolist()) == ["0:", "0:pb", "1:", "1:pb", "2:", "2:pb"]
  assert sorted(arrays.players[1].keys.tolist()) == ["0:b", "0:p", "1:b", "1:p", "2:b", "2:p"]
  assert np.all(arrays.players[0].action_ids == [0, 1])


# Every native game at a small size, and an OpenSpiel game, through the conformance kit, in
# every representation it declares.
CONFORMANCE_GAMES = [
  "kuhn_poker",
  "leduc_poker",
  "one_card_poker(num_cards=5)",
  "rps",
  "rps_plus",
  "coin_toss",
  "goofspiel(num_cards=3)",
  "liars_dice(dice_sides=3)",
  "princess_and_monster(rows=2,cols=2,horizon=3)",
  "no_limit_leduc_poker(stack=4)",
  "openspiel:kuhn_poker",
  "hunl_subgame(endgame=4)",
  "limit_holdem(buckets=3,rollouts=4)",
]
CONFORMANCE = [(game, kit) for game in CONFORMANCE_GAMES for kit in jaxcfr.kits.representations_of(game)]


@pytest.mark.parametrize("name,representation", CONFORMANCE)
def test_every_game_passes_the_conformance_kit_in_every_representation(name, representation):
  import jaxcfr.testing

  game = jaxcfr.testing.check_game(name, representation=representation, dtype="float64")
  assert game.representation == representation


def test_the_native_games_are_all_in_the_conformance_list():
  from jaxcfr.games import GAMES

  checked = {name.split("(")[0] for name in CONFORMANCE_GAMES}
  # latent tic-tac-toe is too big for the test suite (benchmarks/papers/full_size_games.py)
  assert set(GAMES) - checked <= {"latent_tic_tac_toe"}
  assert {kit for _, kit in CONFORMANCE} == set(jaxcfr.kits.names())  # every kit is exercised
