"""The games of Lanctot et al. 2009 Table 1 and Bluff (games/goofspiel.py, liars_dice.py,
princess_and_monster.py, latent_tic_tac_toe.py, one_card_poker.py) and the vectorised
builder (jaxcfr/vectorized.py), on small instances: the vectorised builder against the
tree walk, the rules against OpenSpiel (statistics, infoset partitions, values of random
strategies), equilibrium values against OpenSpiel's sequence-form LP. Full-size builds
are in benchmarks/papers/full_size_games.py, not here."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
from open_spiel.python.algorithms import best_response as os_best_response
from open_spiel.python.algorithms import expected_game_score

from jaxcfr import games
import jaxcfr
from jaxcfr.kits.sequence_form import arrays as arrays_module
from jaxcfr import solvers
from jaxcfr.kits.sequence_form.build import GameBuildError, build_from_protocol
from jaxcfr.kits.sequence_form.openspiel import to_openspiel_policy
from jaxcfr.kits.sequence_form.vectorized import build_vectorized

from helpers import as_jax, best_response_values, expected_value, load, nash_conv, random_profile
from test_games import _openspiel, _partition, check_layout, openspiel_reference

SMALL_GAMES = [
  games.OneCardPoker(2),
  games.OneCardPoker(7),
  games.kuhn_poker(),
  games.Goofspiel(1),
  games.Goofspiel(3),
  games.Goofspiel(4),
  games.Goofspiel(4, forced_last_round=False),
  games.Goofspiel(1, forced_last_round=False),
  games.LiarsDice(2),
  games.LiarsDice(4),
  games.PrincessAndMonster(1, 2, 3),
  games.PrincessAndMonster(2, 3, 5),
  games.PrincessAndMonster(3, 3, 3),
  games.LatentTicTacToe("eaibc"),
  games.LatentTicTacToe("eaib"),
  games.LatentTicTacToe("aeic"),
]


def assert_identical(a, b):
  """Every array of two GameArrays, dtypes included, and the same infoset keys (the tree
  walk stores key strings, the vectorised builder int64 codes that decode to them)."""
  da, db = a.to_npz_dict(), b.to_npz_dict()
  assert da.keys() == db.keys()
  for key in da:
    if key.endswith("_key_data"):
      continue
    assert da[key].dtype == db[key].dtype, key
    np.testing.assert_array_equal(da[key], db[key], err_msg=key)
  for pa, pb in zip(a.players, b.players):
    assert pa.keys.dtype == pb.keys.dtype
    np.testing.assert_array_equal(pa.keys, pb.keys)
  np.testing.assert_array_equal(a.first_child, b.first_child)


@pytest.mark.parametrize("game", SMALL_GAMES, ids=lambda g: f"{g.name}{g.params}")
def test_vectorized_builder_equals_tree_walk(game):
  walked = build_from_protocol(game.new_initial_state(), "g")
  vectorized = build_vectorized(game.vectorized(), "g")
  assert walked.players[0].key_data.dtype.kind == "U"
  assert all(p.key_data.dtype == np.int64 for p in vectorized.players)  # codes, not strings
  assert_identical(walked, vectorized)
  check_layout(vectorized)


def test_vectorized_builder_is_deterministic():
  rules = games.Goofspiel(5).vectorized()
  assert_identical(build_vectorized(rules, "g"), build_vectorized(rules, "g"))


def test_node_kinds_are_defined_once_by_the_rules():
  """The node kinds are the rules' public constants, which jaxcfr.kits.sequence_form.arrays imports (one
  definition, not two equal ones)."""
  kinds = ("PLAYER_0", "PLAYER_1", "CHANCE_NODE", "TERMINAL_NODE")
  assert [getattr(games, k) for k in kinds] == [0, 1, 2, 3] and set(kinds) <= set(games.__all__)
  assert all(getattr(arrays_module, k) is getattr(games, k) for k in kinds)
  source = Path(arrays_module.__file__).read_text()
  assert "from jaxcfr.games import" in source and not re.search(r"^(PLAYER_0|CHANCE_NODE)\b.*=", source, re.M)


# --- the rules against OpenSpiel --------------------------------------------------------------

OPENSPIEL_TWINS = [
  "goofspiel(forced_last_round=False,num_cards=3)",
  "goofspiel(forced_last_round=False,num_cards=5)",
  "liars_dice(dice_sides=2)",
  "liars_dice(dice_sides=4)",
]


@pytest.mark.parametrize("name", OPENSPIEL_TWINS)
def test_statistics_and_infosets_match_openspiel(name):
  """Same statistics as OpenSpiel's game, and the same histories (action-id paths),
  infoset partitions, chance probabilities and utilities as the adapter's build of it."""
  game = load(name)
  stats = game.statistics()
  reference = openspiel_reference(_openspiel(game.openspiel_name))
  np.testing.assert_allclose(stats.pop("m_values"), reference.pop("m_values"), rtol=1e-12)
  assert {k: stats[k] for k in reference} == reference
  if game.arrays.num_histories < 20_000:
    adapter = load(f"openspiel:{game.openspiel_name}").arrays
    native_paths, native_partition = _partition(game.arrays)
    adapter_paths, adapter_partition = _partition(adapter)
    assert native_paths == adapter_paths and native_partition == adapter_partition
    leaf = lambda a: {tuple(a.history_actions(h)): (a.utility[h], a.chance_prob[h]) for h in range(a.num_histories)}
    assert leaf(game.arrays) == leaf(adapter)


@pytest.mark.parametrize("name", ["goofspiel(forced_last_round=False,num_cards=4)", "liars_dice(dice_sides=3)"])
def test_values_of_random_strategies_match_openspiel(name):
  """Expected value and both best-response values of random profiles, computed by
  OpenSpiel's tree walks on its own game."""
  game = load(name)
  os_game = game.openspiel_game()
  for seed in range(2):
    profile = random_profile(game.arrays, seed, zeros=0.2 * seed)
    policy = to_openspiel_policy(game.arrays, profile, os_game)
    root = os_game.new_initial_state()
    os_value = expected_game_score.policy_value(root, [policy, policy])[0]
    os_br = [os_best_response.BestResponsePolicy(os_game, p, policy).value(root) for p in range(2)]
    assert float(expected_value(game.tensors, as_jax(profile))) == pytest.approx(os_value, abs=1e-12)
    np.testing.assert_allclose(np.asarray(best_response_values(game.tensors, as_jax(profile))), os_br, atol=1e-12)


# --- equilibrium values ------------------------------------------------------------------------

# Player 0's game values from OpenSpiel's sequence-form LP
# (open_spiel.python.algorithms.sequence_form_lp.solve_zero_sum_game, ECOS solver) on
# OpenSpiel's liars_dice(dice_sides=N) and turn-based goofspiel(imp_info=True,
# points_order=descending): 0.5, 0.111111111, 0.0625, 0.008 for 2..5 sides and ~1e-12 for
# goofspiel 3, 4 and 5 (symmetric games); dice_sides=6 is -0.0271318 (= -7/258). The native
# goofspiel plays the forced last round, which changes no value. PCFR+ (the fastest of the
# family here) reaches NashConv < 1e-6 within 2,000 iterations on the small games; the two
# full-size-for-CI games get 2,000 iterations and a looser NashConv (1e-6 would take
# minutes). In every case the value of the average profile must lie within NashConv of the
# LP value, which is what is asserted.
LP_VALUES = {  # name: (value, NashConv to reach, most iterations)
  "liars_dice(dice_sides=2)": (0.5, 1e-6, 2_000),
  "liars_dice(dice_sides=3)": (1 / 9, 1e-6, 2_000),
  "goofspiel(num_cards=3)": (0.0, 1e-6, 2_000),
  "liars_dice(dice_sides=4)": (0.0625, 1e-6, 2_000),
  "goofspiel(num_cards=4)": (0.0, 1e-6, 2_000),
  "liars_dice(dice_sides=6)": (-7 / 258, 5e-4, 2_000),
  "goofspiel(num_cards=5)": (0.0, 5e-5, 2_000),
}


@pytest.mark.parametrize("name", sorted(LP_VALUES))
def test_solver_reaches_the_lp_value(name):
  value, target, max_iterations = LP_VALUES[name]
  game = load(name)
  solver = solvers.get("pcfr+")
  state = solver.init(game.tensors)
  for _ in range(max_iterations // 1000):
    state = solver.run(game.tensors, state, 1000)
    profile = solver.average_strategy(game.tensors, state)
    gap = float(nash_conv(game.tensors, profile))
    if gap < target:
      break
  assert gap < target
  assert abs(float(expected_value(game.tensors, profile)) - value) <= gap + 1e-9


# --- loading and errors ------------------------------------------------------------------------


def test_registered_names_load_natively():
  assert load("goofspiel(num_cards=3)").name == "goofspiel(num_cards=3)"
  assert load("goofspiel(num_cards=3)").statistics()["max_length"] == 6  # the forced last round is played
  assert load("princess_and_monster(rows=2,cols=2,horizon=3)").name == "princess_and_monster(cols=2,horizon=3,rows=2)"
  assert load("latent_tic_tac_toe(opening=eaibc)").name == "latent_tic_tac_toe(opening=eaibc)"
  assert load("one_card_poker(num_cards=500)").statistics()["histories"] == 1 + 500 + 9 * 500 * 499
  with pytest.raises(games.GameError, match="opening"):
    jaxcfr.load("latent_tic_tac_toe(opening=eae)")


@dataclasses.dataclass
class _CoinGuessRules:
  """A coin (chance), a move of player 0 (two actions), then a guess of ``guesser``; the
  guess infosets are keyed by ``guess_key(states)``; ``short_guess`` leaves one guess after
  move 0. Bad keys and action sets must break the builder's checks."""

  guesser: int
  guess_key: callable
  short_guess: bool = False
  name: str = "coin_guess"
  params: dict = dataclasses.field(default_factory=dict)

  def initial_states(self):
    return {"coin": np.array([-1]), "move": np.array([-1]), "guess": np.array([-1])}

  def node_kind(self, s):
    return np.where(s["coin"] < 0, 2, np.where(s["move"] < 0, 0, np.where(s["guess"] < 0, self.guesser, 3)))

  def expand(self, s):
    n = len(s["coin"])
    field = "coin" if s["coin"][0] < 0 else "move" if s["move"][0] < 0 else "guess"
    parent = np.repeat(np.arange(n), 2)
    action = np.tile(np.arange(2), n)
    if field == "guess" and self.short_guess:
      keep = (action == 0) | (s["move"][parent] == 1)
      parent, action = parent[keep], action[keep]
    children = {k: v[parent] for k, v in s.items()}
    children[field] = action
    return parent, action, np.full(len(parent), 0.5), children

  def utility(self, s):
    return (s["coin"] == s["guess"]).astype(float)

  def infoset_code(self, s, player):
    return self.guess_key(s) if s["move"][0] >= 0 else s["coin"]

  def infoset_keys(self, player, codes):
    return np.array([str(c) for c in codes])


def test_vectorized_builder_checks_legal_actions_and_perfect_recall():
  constant = lambda s: np.full(len(s["coin"]), 7, np.int64)
  with pytest.raises(GameBuildError, match="'7' of player 1 has different legal actions"):
    build_vectorized(_CoinGuessRules(1, constant, short_guess=True), "coin_guess")
  with pytest.raises(GameBuildError, match="imperfect recall: player 0's infoset '7'"):  # forgets its move
    build_vectorized(_CoinGuessRules(0, constant), "coin_guess")
  built = build_vectorized(_CoinGuessRules(1, lambda s: s["move"]), "coin_guess")
  assert [p.num_infosets for p in built.players] == [2, 2]


def test_openspiel_variants_of_native_games_resolve_through_openspiel():
  """OpenSpiel's goofspiel(imp_info=True) has a random point order (its default): it is not
  the native game and must not be silently replaced by it."""
  variant = load("goofspiel(num_cards=3,imp_info=True)")
  assert variant.name == "openspiel:goofspiel(imp_info=True,num_cards=3)"
  assert variant.arrays.kind.tolist().count(2) > 0  # the chance node that orders the points
  native = load("goofspiel(num_cards=3,imp_info=True,points_order=descending)")
  assert not native.name.startswith("openspiel:")
  with pytest.raises(games.GameError, match="forced_last_round"):
    load("goofspiel(num_cards=3,imp_info=True,points_order=descending,forced_last_round=True)")
