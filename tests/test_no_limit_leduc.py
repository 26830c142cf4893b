"""No-limit Leduc hold'em (games/no_limit_leduc_poker.py): the rules on hand-written hands,
parameter errors, the same game as OpenSpiel's universal_poker where the rules coincide,
and CFR+ on a small stack."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import jaxcfr
from jaxcfr import solvers
from jaxcfr.kits.sequence_form import build, vectorized
from jaxcfr.games import CHANCE, TERMINAL, GameError
from jaxcfr.games.no_limit_leduc_poker import ALL_IN, CALL, FOLD, POT, NoLimitLeducPoker

from helpers import exploitability, expected_value, load, lp_game_value
from test_big_games import assert_identical
from test_games import check_layout

J0, J1, Q0, Q1, K0, K1 = range(6)  # card c has rank c // 2


def play(actions, cards=(J0, K0), board=None, **params):
  """The state after dealing ``cards`` and playing ``actions``; the public card ``board``
  is dealt when the first round ends."""
  state = NoLimitLeducPoker(**params).new_initial_state()
  for card in cards:
    state = state.child(card)
  for action in actions:
    state = state.child(action)
    if state.current_player() == CHANCE:
      state = state.child(board)
  return state


def test_opening_bet_is_at_least_the_ante_and_every_integer_up_to_the_stack():
  root = play([], stack=10)
  assert root.current_player() == 0
  assert root.legal_actions() == [CALL] + list(range(2, 11))  # no fold when nothing is owed
  assert play([], stack=20, ante=2).legal_actions() == [CALL] + list(range(4, 21))
  assert play([CALL], stack=10).legal_actions() == [CALL] + list(range(2, 11))


def test_minimum_reraise_doubles_the_previous_bet_of_the_round():
  # Bets of the round (raise-to amounts are totals, the ante of 1 included): player 0
  # bets 2 (to 3); player 1 must raise to at least a bet of 4 (to 5).
  state = play([3], stack=30)
  assert state.legal_actions() == [FOLD, CALL] + list(range(5, 31))
  # Player 1 raises to a bet of 5 (to 6): player 0's re-raise must bet at least 10 (to 11);
  # the ACPC increment rule allows a bet of 8 (raise by the last increment, 3).
  assert play([3, 6], stack=30).legal_actions() == [FOLD, CALL] + list(range(11, 31))
  assert play([3, 6], stack=30, raise_rule="increment").legal_actions() == [FOLD, CALL] + list(range(9, 31))
  # In round two the amounts restart from the round's first bet: check, bet 3, re-raise >= 6.
  state = play([3, CALL, CALL, 6], board=Q0, stack=30)
  assert state.spent == (3, 6)
  assert state.legal_actions() == [FOLD, CALL] + list(range(3 + 2 * 3, 31))
  # No cap on the number of raises: five raises in one round.
  state = play([2, 3, 5, 9, 17], stack=40)
  assert state.legal_actions() == [FOLD, CALL] + list(range(33, 41))


def test_all_in_is_always_allowed_and_capped_by_the_stack():
  # Bets of 3 and 6: the next minimum (bet 12, to 13) is above the stack of 10, so only
  # all-in (to 10) is left besides fold and call.
  state = play([4, 7], stack=10)
  assert state.legal_actions() == [FOLD, CALL, 10]
  state = state.child(10)
  assert state.legal_actions() == [FOLD, CALL]  # the opponent is all-in: no raise
  called = state.child(CALL)
  assert called.current_player() == CHANCE  # the public card is dealt, then the showdown
  assert [c for c, _ in called.chance_outcomes()] == [J1, Q0, Q1, K1]
  final = called.child(Q0)
  assert final.current_player() == TERMINAL
  assert final.returns() == [-10.0, 10.0]  # K beats J
  assert play([10, CALL], board=J1, stack=10).returns() == [10.0, -10.0]  # pair of jacks


def test_pot_sizes_fold_and_showdown_payoffs():
  state = play([3, CALL], board=Q0, stack=20)  # bet 2, call: 3 each after round one
  assert state.spent == (3, 3) and state.current_player() == 0 and state.round == 1
  state = state.child(CALL).child(7)  # check, bet 4
  assert state.spent == (3, 7) and state.current_player() == 0
  assert state.child(FOLD).returns() == [-3.0, 3.0]
  assert state.child(CALL).returns() == [-7.0, 7.0]  # K beats J, no pair
  assert play([3, FOLD]).returns() == [1.0, -1.0]  # the ante only
  assert play([CALL, CALL, CALL, CALL], board=J1).returns() == [1.0, -1.0]  # J pairs the board
  assert play([CALL, CALL, CALL, CALL], cards=(Q0, Q1), board=K0).returns() == [0.0, 0.0]  # split
  assert play([CALL, 2, CALL, CALL, CALL], cards=(Q0, K1), board=Q1).returns() == [2.0, -2.0]
  assert play([3, 6], stack=30).information_state_string(0) == "0::r3r6"
  assert play([3, CALL, CALL], board=Q0).information_state_string(1) == "4:2:r3c/c"


def test_fcpa_and_deepstack_abstractions():
  # fcpa: pot raise to 3x the opponent's total (ids: fold 0, call 1, pot 2, all-in 3).
  root = play([], stack=20, betting="fcpa")
  assert root.legal_actions() == [CALL, POT, ALL_IN]
  state = root.child(POT)
  assert state.spent == (3, 1) and state.legal_actions() == [FOLD, CALL, POT, ALL_IN]
  assert state.child(POT).spent == (3, 9)
  assert state.child(POT).legal_actions() == [FOLD, CALL, ALL_IN]  # a pot raise to 27 > 20
  # A pot raise that is exactly all-in keeps id 2 in fcpa, id 3 in DeepStack-Leduc's tree.
  assert play([POT], stack=9, betting="fcpa").legal_actions() == [FOLD, CALL, POT]
  assert play([POT], stack=9, betting="deepstack").legal_actions() == [FOLD, CALL, ALL_IN]
  assert play([], stack=9, betting="deepstack").legal_actions() == [FOLD, CALL, POT, ALL_IN]
  assert play([ALL_IN, CALL], board=K1, stack=9, betting="fcpa").returns() == [-9.0, 9.0]


@pytest.mark.parametrize(
  "params, message",
  [
    (dict(stack=1), r"parameter stack must be in \[2, 1000000\], got 1"),
    (dict(stack=10.5), "parameter stack must be an integer, got 10.5"),
    (dict(ante=0), r"parameter ante must be in \[1, 999999\], got 0"),
    (dict(stack=3, ante=3), r"parameter stack must be in \[4, 1000000\], got 3"),
    (dict(betting="limit"), r"parameter betting must be one of \['full', 'fcpa', 'deepstack'\], got 'limit'"),
    (dict(raise_rule="triple"), "parameter raise_rule must be one of"),
    (dict(num_suits=0), "parameter num_suits must be in"),
    (dict(num_ranks=2, num_suits=1), r"num_ranks \* num_suits must be >= 3"),
    (dict(stack=44), r"betting=full allows stack - ante <= 42 chips .* got 43; use betting=fcpa"),
  ],
)
def test_bad_parameters(params, message):
  with pytest.raises(GameError, match=message):
    NoLimitLeducPoker(**params)


def test_bad_parameters_through_load():
  with pytest.raises(GameError, match="parameter stack must be"):
    jaxcfr.load("no_limit_leduc_poker(stack=0)", use_cache=False)
  with pytest.raises(GameError, match="unknown parameter for no_limit_leduc_poker"):
    jaxcfr.load("no_limit_leduc_poker(stake=10)", use_cache=False)


@pytest.mark.parametrize("params", [dict(stack=5), dict(stack=6, ante=2, raise_rule="increment", num_suits=3)])
def test_vectorized_rules_build_the_tree_walk_arrays(params):
  """``jaxcfr.load`` builds ``betting=full`` from the vectorised rules: the same arrays and
  infoset keys as the tree walk over NoLimitLeducState."""
  rules = NoLimitLeducPoker(**params)
  walked = build.build_from_protocol(rules.new_initial_state(), "walk")
  levels = vectorized.build_vectorized(rules.vectorized(), "walk")
  assert_identical(walked, levels)  # every array, dtypes included, and the decoded keys
  check_layout(levels)
  assert hasattr(NoLimitLeducPoker(stack=43), "vectorized")  # 42 chips: the raise mask's bound
  assert not hasattr(NoLimitLeducPoker(stack=20, betting="fcpa"), "vectorized")


# Where the rules coincide the native game is universal_poker's game: the same histories
# in the same order, action ids, chance ids (cards), chance probabilities and utilities.
# The paper's doubling rule agrees with the ACPC increment rule while no second re-raise
# below all-in fits: stack <= 4 ante. fcpa's pot raises satisfy both rules.
@pytest.mark.parametrize(
  "name",
  [
    "no_limit_leduc_poker(stack=4)",
    "no_limit_leduc_poker(stack=8,ante=2)",  # the paper's rule at stack = 4 ante
    "no_limit_leduc_poker(stack=5,raise_rule=increment)",
    "no_limit_leduc_poker(stack=7,ante=2,raise_rule=increment,num_ranks=4)",
    "no_limit_leduc_poker(stack=12,betting=fcpa)",
    "no_limit_leduc_poker(stack=1200,ante=100,betting=fcpa,num_suits=3)",
  ],
)
def test_same_game_as_openspiel_universal_poker(name):
  ours = jaxcfr.load(name, use_cache=False)
  assert ours.openspiel_name.startswith("universal_poker(betting=nolimit,")
  theirs = jaxcfr.load(f"openspiel:{ours.openspiel_name}", use_cache=False)
  for field in ("parent", "kind", "action_index", "action_id", "chance_prob", "utility", "sequence"):
    np.testing.assert_array_equal(getattr(ours.arrays, field), getattr(theirs.arrays, field), err_msg=field)
  mine, reference = ours.statistics(), theirs.statistics()
  assert {k: v for k, v in mine.items() if k != "game"} == {k: v for k, v in reference.items() if k != "game"}


def test_paper_rule_differs_from_openspiel_above_four_antes():
  """At stack 5 the doubling rule forbids a second re-raise to 4 (a bet of 3 against a bet
  of 2 after a bet of 1) that the increment rule allows: a smaller game, and no twin."""
  game = NoLimitLeducPoker(stack=5)
  assert game.openspiel_name is None
  ours = load("no_limit_leduc_poker(stack=5)").statistics()
  os_name = NoLimitLeducPoker(stack=5, raise_rule="increment").openspiel_name
  theirs = jaxcfr.load(f"openspiel:{os_name}", use_cache=False).statistics()
  assert ours["histories"] == 36_997 and theirs["histories"] == 41_197
  assert ours["infosets"] == [1632, 1632] and theirs["infosets"] == [1824, 1824]
  assert play([2, 3], stack=5).legal_actions() == [FOLD, CALL, 5]
  assert play([2, 3], stack=5, raise_rule="increment").legal_actions() == [FOLD, CALL, 4, 5]


# Player 0's game values, exact: scipy's HiGHS on the sequence-form linear program
# (helpers.lp_game_value).
VALUES = {"no_limit_leduc_poker(stack=4)": -0.04420098943239359}


def test_game_value_equals_openspiel_solution():
  """The exact value of the native game (the paper's rule at stack 4, universal_poker's
  game) against the value of the profile that OpenSpiel's own CFR+ computes on
  universal_poker, within that profile's NashConv (|u(sigma) - v| <= NashConv(sigma))."""
  name = "no_limit_leduc_poker(stack=4)"
  value = lp_game_value(load(name).tensors)
  assert value == pytest.approx(VALUES[name], abs=1e-9)
  os_game = pyspiel.load_game(load(name).openspiel_name)
  solver = pyspiel.CFRPlusSolver(os_game)
  for _ in range(100):
    solver.evaluate_and_update_policy()
  policy = solver.average_policy()
  nash_conv = pyspiel.nash_conv(os_game, policy)
  theirs = pyspiel.expected_returns(os_game.new_initial_state(), policy, -1, True)[0]
  assert nash_conv < 0.01
  assert abs(value - theirs) <= nash_conv


def test_cfr_plus_solves_a_small_stack():
  """CFR+'s average strategy converges and its value approaches the exact one."""
  name = "no_limit_leduc_poker(stack=4)"
  game = load(name)
  solver = solvers.get("cfr+")
  state = solver.run(game.tensors, solver.init(game.tensors), 300)
  average = solver.average_strategy(game.tensors, state)
  gap = float(exploitability(game.tensors, average))  # measured 5.8e-4
  assert gap < 1e-3
  assert abs(float(expected_value(game.tensors, average)) - VALUES[name]) <= 2 * gap
