"""Restricted Nash Response (jaxcfr.solvers.rnr) and opponent models (jaxcfr.evaluate.opponent) on Kuhn poker."""

import functools
import json

import jax
import numpy as np
import pytest

from jaxcfr import solvers
from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.evaluate import experts, exploitation, opponent
from jaxcfr.kits import strategy_files
from jaxcfr.run import cli
from jaxcfr.solvers import cfr, rnr
from tests.helpers import (
  best_response_values,
  exploitability,
  expected_value,
  history_reach,
  load,
  sequence_constraints,
)

KUHN_VALUE = -1 / 18  # player 0's value of Kuhn poker
PS = (0.0, 0.3, 0.6, 0.8, 0.9, 1.0)
ITERATIONS = 3000
TOLERANCE = 2e-3  # CFR+ after ITERATIONS on Kuhn: exploitabilities ~1e-4


@functools.cache
def kuhn():
  return load("kuhn_poker")


@functools.cache
def model():
  """A weak, partly converged player: 10 iterations of plain CFR."""
  return opponent.fixed_model(kuhn(), "cfr:10")


@functools.cache
def sweep():
  """One batched program: every p of PS for both restricted players."""
  tensors = kuhn().tensors
  solver = solvers.get("rnr")
  grid_p = np.array(PS * 2)
  grid_r = np.repeat([0, 1], len(PS)).astype(np.int32)
  state = solver.run(tensors, solver.init(tensors, model=model(), p=grid_p, restricted=grid_r), ITERATIONS)
  metrics = jax.device_get(exploitation.evaluate(solver, tensors, state, KUHN_VALUE))
  return state, {k: np.asarray(v).reshape(2, len(PS)) for k, v in metrics.items()}


def test_p_zero_is_an_equilibrium():
  state, metrics = sweep()
  tensors = kuhn().tensors
  average = cfr.average_strategy(tensors, state.inner_state)
  for r in (0, 1):
    profile = tuple(s[..., r * len(PS)] for s in average)
    assert float(exploitability(tensors, profile)) < TOLERANCE
    assert float(expected_value(tensors, profile)) == pytest.approx(KUHN_VALUE, abs=TOLERANCE)
    assert metrics["exploitability"][r, 0] < TOLERANCE


def test_p_one_is_a_best_response_to_the_model():
  _, metrics = sweep()
  best = np.asarray(best_response_values(kuhn().tensors, model()))  # [BR0(model1), BR1(model0)]
  for r in (0, 1):
    assert metrics["best_response_value"][r, -1] == pytest.approx(best[1 - r], abs=1e-12)
    assert metrics["value_vs_model"][r, -1] == pytest.approx(best[1 - r], abs=TOLERANCE)


def test_trade_off_is_monotone_in_p():
  _, metrics = sweep()
  for r in (0, 1):
    assert np.all(np.diff(metrics["exploitation"][r]) > -TOLERANCE)
    assert np.all(np.diff(metrics["exploitability"][r]) > -TOLERANCE)
    assert np.all(metrics["exploitability"][r] > -TOLERANCE)
    # the counter-strategy beats the game value against the model by more as p grows
    assert metrics["exploitation"][r, -1] > metrics["exploitation"][r, 0] + 0.01


def test_each_counter_strategy_solves_its_own_restricted_game():
  """The RNR of p maximises ``p * exploitation - (1 - p) * exploitability`` (u's value in the
  modified game of Johanson et al. 2007 section 5, minus the game value) over every counter-strategy of
  the sweep."""
  _, metrics = sweep()
  for r in (0, 1):
    for i, p in enumerate(PS):
      objective = p * metrics["exploitation"][r] - (1 - p) * metrics["exploitability"][r]
      assert objective[i] >= objective.max() - TOLERANCE


def test_metrics_match_direct_evaluation():
  state, metrics = sweep()
  tensors = kuhn().tensors
  average = cfr.average_strategy(tensors, state.inner_state)
  k = 2 * len(PS) - 3  # restricted player 1, p = 0.8
  counter = (average[0][..., k], model()[1])
  value0 = float(expected_value(tensors, counter))
  assert metrics["value_vs_model"][1, -3] == pytest.approx(value0, abs=1e-12)
  assert metrics["exploitation"][1, -3] == pytest.approx(value0 - KUHN_VALUE, abs=1e-12)
  br1 = float(best_response_values(tensors, counter)[1])
  assert metrics["exploitability"][1, -3] == pytest.approx(KUHN_VALUE + br1, abs=1e-12)


@pytest.mark.parametrize("algorithm", cfr.ALGORITHMS)
def test_p_zero_reproduces_the_plain_solver(algorithm):
  tensors = kuhn().tensors
  base, solver = solvers.get(algorithm), solvers.get("rnr", base=algorithm)
  plain = base.run(tensors, base.init(tensors), 20)
  state = solver.run(tensors, solver.init(tensors, model=model(), p=0.0, restricted=0), 20)
  for a, b in zip(jax.tree.leaves(plain), jax.tree.leaves(state.inner_state)):
    np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=0, atol=1e-14)


def _single(p, restricted, iterations=50):
  tensors = kuhn().tensors
  solver = solvers.get("rnr")
  return solver.run(tensors, solver.init(tensors, model=model(), p=p, restricted=restricted), iterations)


def test_batch_over_p_equals_single_runs_and_vmap():
  tensors = kuhn().tensors
  solver = solvers.get("rnr")
  ps, rs = np.array([0.2, 0.9, 0.5]), np.array([1, 1, 0], np.int32)
  batched = solver.run(tensors, solver.init(tensors, model=model(), p=ps, restricted=rs), 50)
  assert batched.inner_state.strategy[0].shape == tensors.players[0].legal.shape + (3,)
  states = jax.vmap(lambda p, r: solver.init(tensors, model=model(), p=p, restricted=r))(ps, rs)
  mapped = jax.vmap(lambda s: solver.run(tensors, s, 50))(states)
  for k, (p, r) in enumerate(zip(ps, rs)):
    single = _single(p, r)
    for a, b, c in zip(
      jax.tree.leaves(single.inner_state), jax.tree.leaves(batched.inner_state), jax.tree.leaves(mapped.inner_state)
    ):  # to rounding: batch widths round alike only to an ulp
      np.testing.assert_allclose(np.asarray(b)[..., k], np.asarray(a), rtol=0, atol=1e-10)
      np.testing.assert_allclose(np.asarray(c)[k], np.asarray(a), rtol=0, atol=1e-10)


def test_trade_off_rows():
  rows = exploitation.trade_off(kuhn().tensors, model(), [0.0, 1.0], restricted=(0, 1), iterations=50, value=KUHN_VALUE)
  assert [(r["p"], r["restricted_player"]) for r in rows] == [(0.0, 0), (1.0, 0), (0.0, 1), (1.0, 1)]
  for row in rows:
    assert {"p", "restricted_player", "value_vs_model", "exploitation", "exploitability"} <= set(row)
    assert row["exploitation"] == pytest.approx(
      row["value_vs_model"] - (KUHN_VALUE if row["restricted_player"] else -KUHN_VALUE)
    )


def test_gain_over_equilibrium_is_ponsen_2011_figure_6s_exploitation():
  """Without a given value, trade_off solves for an equilibrium and reports each counter-
  strategy's gain over it: zero at p = 0 when RNR runs the equilibrium's own iterations (the
  same CFR+ run), the best response's gain at p = 1."""
  tensors = kuhn().tensors
  rows = exploitation.trade_off(tensors, model(), [0.0, 1.0], restricted=(0, 1), iterations=2000)
  equilibrium, value, _ = exploitation.equilibrium(tensors, iterations=2000)
  reference = np.asarray(exploitation.equilibrium_values_vs_model(tensors, equilibrium, model()))
  for row in rows:
    assert row["game_value"] == pytest.approx(value)
    assert row["gain_over_equilibrium"] == pytest.approx(row["value_vs_model"] - reference[row["restricted_player"]])
    if row["p"] == 0.0:
      assert abs(row["gain_over_equilibrium"]) < 1e-6
    else:  # the best response to the model gains over the equilibrium, by the best-response value
      assert row["gain_over_equilibrium"] > 1e-3
      assert row["value_vs_model"] == pytest.approx(row["best_response_value"], abs=1e-6)
  assert "gain_over_equilibrium" not in exploitation.trade_off(tensors, model(), [0.5], iterations=10, value=value)[0]


def test_dbr_trade_off_ends_agree_with_rnr():
  """Confidence 0 and 1 at every infoset are the same games as p = 0 and p = 1."""
  tensors = kuhn().tensors
  rows = {
    variant: exploitation.trade_off(
      tensors, model(), [0.0, 1.0], restricted=(0, 1), iterations=50, value=KUHN_VALUE, solver=variant
    )
    for variant in ("rnr", "dbr")
  }
  for a, b in zip(rows["rnr"], rows["dbr"]):
    for key in ("value_vs_model", "exploitation", "exploitability"):
      assert a[key] == pytest.approx(b[key], abs=1e-12)
  with pytest.raises(ValueError, match="unknown solver"):
    exploitation.trade_off(tensors, model(), [0.5], solver="mcrn")


def test_invalid_arguments():
  tensors = kuhn().tensors
  with pytest.raises(ValueError, match="p of solver .rnr. must be in"):
    solvers.get("rnr").init(tensors, model=model(), p=1.5)
  with pytest.raises(ValueError, match="restricted"):
    solvers.get("rnr").init(tensors, model=model(), p=0.5, restricted=2)
  with pytest.raises(ValueError, match="sums to"):
    solvers.get("rnr").init(tensors, model=(model()[0], 2 * np.asarray(model()[1])), p=0.5)
  with pytest.raises(ValueError, match="p of solver .dbr. must be in"):
    solvers.get("dbr").init(tensors, model=model(), p=-0.1)
  with pytest.raises(ValueError, match="neither"):
    opponent.fixed_model(kuhn(), "no_such_file.npz")


def test_fixed_models(tmp_path):
  game = kuhn()
  uniform = opponent.fixed_model(game, "uniform")
  for s, u in zip(uniform, evaluation.uniform_profile(game.tensors)):
    np.testing.assert_array_equal(np.asarray(s), np.asarray(u))
  path = tmp_path / "model.npz"
  strategy_files.save_strategy(path, game, model())
  for s, m in zip(opponent.fixed_model(game, str(path)), model()):
    np.testing.assert_allclose(np.asarray(s), np.asarray(m), rtol=0, atol=1e-15)
  sampled = opponent.fixed_model(game, "mccfr-os:2000")  # the average of an outcome-sampling run
  evaluation.check_profile(game.tensors, tuple(np.asarray(s) for s in sampled))
  assert 0.001 < float(exploitability(game.tensors, sampled)) < 0.2  # uniform: 0.46


def test_sampled_games_follow_the_profile():
  game = kuhn()
  num_games = 100_000
  counts, terminals = opponent.sample_games(game.tensors, model(), jax.random.key(1), num_games)
  reach = history_reach(game.arrays, [np.asarray(s) for s in model()]).prod(0)
  terminal = game.arrays.kind == 3
  frequency = np.bincount(np.asarray(terminals), minlength=len(reach)) / num_games
  assert np.all(frequency[~terminal] == 0)
  sigma = np.sqrt(reach * (1 - reach) / num_games)
  assert np.all(np.abs(frequency - reach)[terminal] < 5 * sigma[terminal] + 1e-12)
  assert sum(int(c.sum()) for c in counts) > num_games  # every Kuhn game has >= 2 actions


def test_frequentist_model_converges_to_the_sampled_strategy():
  tensors = kuhn().tensors
  uniform = evaluation.uniform_profile(tensors)
  strategy = np.asarray(model()[0])
  errors = []
  for num_games in (100, 100_000):
    built = opponent.frequentist_model(tensors, 0, strategy, uniform[1], jax.random.key(2), num_games)
    np.testing.assert_array_equal(np.asarray(built[1]), np.asarray(uniform[1]))
    errors.append(float(np.abs(np.asarray(built[0]) - strategy).max()))
  assert errors[1] < 0.02 and errors[1] < errors[0] / 3


def test_frequentist_model_defaults_at_unobserved_infosets():
  tensors = kuhn().tensors
  # Player 0 always passes first, so player 1's infosets after a bet are never reached.
  always_pass = np.zeros(tensors.players[0].legal.shape)
  always_pass[:, 0] = 1
  uniform1 = np.asarray(evaluation.uniform_profile(tensors)[1])
  default = np.asarray(model()[1])
  built = opponent.frequentist_model(tensors, 1, uniform1, always_pass, jax.random.key(3), 1000, default=default)
  counts, _ = opponent.sample_games(tensors, (always_pass, uniform1), jax.random.key(3), 1000)
  unobserved = np.asarray(counts[1]).sum(1) == 0
  assert unobserved.any() and not unobserved.all()
  np.testing.assert_array_equal(np.asarray(built[1])[unobserved], default[unobserved])
  observed = np.asarray(built[1])[~unobserved]
  np.testing.assert_allclose(observed, uniform1[~unobserved], atol=0.1)


def test_action_strategy_plays_named_actions_among_the_legal_ones():
  """Leduc's ids (fold 0, call 1, raise 2; fold legal only facing a raise): the paper's
  call default, its call/raise probe, and the uniform fallback where nothing named is legal."""
  tensors = load("leduc_poker").tensors
  for player in (0, 1):
    ids = np.asarray(tensors.labels.action_ids(player))
    legal = np.asarray(tensors.players[player].legal)
    call = np.asarray(opponent.action_strategy(tensors, player, {1: 1.0}))
    np.testing.assert_array_equal(call, (ids == 1).astype(float))
    probe = np.asarray(opponent.action_strategy(tensors, player, {1: 1.0, 2: 1.0}))
    can_raise = (ids == 2).any(1)
    np.testing.assert_array_equal(probe[can_raise], np.where(ids[can_raise] >= 1, 0.5, 0.0))
    np.testing.assert_array_equal(probe[~can_raise], (ids[~can_raise] == 1).astype(float))
    fold = np.asarray(opponent.action_strategy(tensors, player, {0: 3.0}))
    facing = (ids == 0).any(1)
    assert facing.any() and not facing.all()
    np.testing.assert_array_equal(fold[facing], (ids[facing] == 0).astype(float))
    np.testing.assert_allclose(fold[~facing], legal[~facing] / legal[~facing].sum(1, keepdims=True))
  with pytest.raises(ValueError, match="weights"):
    opponent.action_strategy(tensors, 0, {1: -1.0})


def test_frequentist_profile_models_each_seat_with_its_own_key_and_default():
  tensors = kuhn().tensors
  uniform = evaluation.uniform_profile(tensors)
  always_pass = tuple(np.eye(2)[np.zeros(tp.legal.shape[0], int)] for tp in tensors.players)
  default = tuple(np.asarray(s) for s in model())
  key = jax.random.key(5)
  built = opponent.frequentist_profile(tensors, model(), always_pass, key, 500, default=default)
  keys = jax.random.split(key)
  for player in (0, 1):
    alone = opponent.frequentist_model(
      tensors, player, model()[player], always_pass[1 - player], keys[player], 500, default=default[player]
    )
    np.testing.assert_array_equal(np.asarray(built[player]), np.asarray(alone[player]))
  # Against an always-passing probe, player 1 never faces a bet: those infosets keep the default.
  counts, _ = opponent.sample_games(tensors, (always_pass[0], model()[1]), keys[1], 500)
  unobserved = np.asarray(counts[1]).sum(1) == 0
  assert unobserved.any()
  np.testing.assert_array_equal(np.asarray(built[1])[unobserved], default[1][unobserved])
  assert not np.array_equal(np.asarray(built[0]), np.asarray(uniform[0]))


def test_cli_writes_rows(tmp_path):
  path = tmp_path / "rnr.json"
  assert (
    cli.main(
      [
        "rnr",
        "kuhn_poker",
        "--model",
        "uniform",
        "--p",
        "0,1",
        "--restricted",
        "both",
        "--iters",
        "50",
        "--value-iters",
        "50",
        "--json",
        str(path),
      ]
    )
    == 0
  )
  assert (
    cli.main(
      ["rnr", "kuhn_poker", "--model", "uniform", "--p", "0.5", "--algo", "dbr", "--iters", "50", "--value-iters", "50"]
    )
    == 0
  )
  record = json.loads(path.read_text())
  assert len(record["rows"]) == 4
  for row in record["rows"]:
    assert {"p", "restricted_player", "value_vs_model", "exploitation", "exploitability"} <= set(row)
  assert cli.main(["rnr", "kuhn_poker", "--model", "nonexistent.npz", "--p", "0"]) == 2


_constraints = sequence_constraints


def _restricted_game_value(tensors, restricted, p, fixed_plan):
  """The unrestricted player's value of the RNR game by linear programming (Johanson et al. 2007
  section 5: the restricted plan is ``p y_fix + (1 - p) y``):
  ``max_x p x^T M y_fix + min_y (1 - p) x^T M y`` with the inner min replaced by its dual."""
  from scipy.optimize import linprog  # pylint: disable=import-outside-toplevel

  payoff = tensors.payoff
  a = np.zeros((tensors.players[0].num_sequences, tensors.players[1].num_sequences))
  np.add.at(a, (np.asarray(payoff.seq0), np.asarray(payoff.seq1)), np.asarray(payoff.value))
  m = a if restricted == 1 else -a.T  # the unrestricted player's payoff, [S_u, S_r]
  u = 1 - restricted
  e, e_rhs, x_bounds = _constraints(tensors.players[u])
  f, f_rhs, _ = _constraints(tensors.players[restricted])
  nz = f.shape[0]
  # variables (x, z): maximise p (M y_fix)^T x + f^T z  s.t.  E x = e,  F^T z - (1 - p) M^T x <= 0
  objective = -np.concatenate([p * m @ fixed_plan, f_rhs])
  inequality = np.hstack([-(1 - p) * m.T, f.T])
  equality = np.hstack([e, np.zeros((e.shape[0], nz))])
  result = linprog(
    objective,
    A_ub=inequality,
    b_ub=np.zeros(m.shape[1]),
    A_eq=equality,
    b_eq=e_rhs,
    bounds=x_bounds + [(None, None)] * nz,
    method="highs",
  )
  assert result.status == 0
  return -result.fun


def test_restricted_game_value_matches_linear_programming():
  """``v* + p * exploitation - (1 - p) * exploitability`` of each RNR is the unrestricted
  player's value of the modified game, computed independently by an LP."""
  _, metrics = sweep()
  tensors = kuhn().tensors
  for r in (0, 1):
    fixed_plan = np.asarray(evaluation.realization_plan(tensors.players[r], model()[r]))
    value_u = KUHN_VALUE if r == 1 else -KUHN_VALUE
    for i, p in enumerate(PS):
      achieved = value_u + p * metrics["exploitation"][r, i] - (1 - p) * metrics["exploitability"][r, i]
      assert achieved == pytest.approx(_restricted_game_value(tensors, r, p, fixed_plan), abs=TOLERANCE)


def _dbr_game_value(tensors, restricted, confidence, model_strategy, counter_plan=None):
  """The unrestricted player's value of the data-biased game by LP: the restricted plans are
  those with ``y(I, a) >= c(I) sigma_fix(I, a) y(parent(I))`` (behaviour ``c sigma_fix +
  (1 - c) sigma``). With ``counter_plan``, the value that counter-strategy guarantees."""
  from scipy.optimize import linprog  # pylint: disable=import-outside-toplevel

  payoff = tensors.payoff
  a = np.zeros((tensors.players[0].num_sequences, tensors.players[1].num_sequences))
  np.add.at(a, (np.asarray(payoff.seq0), np.asarray(payoff.seq1)), np.asarray(payoff.value))
  m = a if restricted == 1 else -a.T
  u = 1 - restricted
  e, e_rhs, x_bounds = _constraints(tensors.players[u])
  f, f_rhs, _ = _constraints(tensors.players[restricted])
  treeplex = tensors.players[restricted]
  legal, parent = np.asarray(treeplex.legal), np.asarray(treeplex.parent_seq)
  g = []
  for i, a_ in zip(*np.nonzero(legal)):
    row = np.zeros(treeplex.num_sequences)
    row[1 + i * treeplex.max_actions + a_] = 1
    row[parent[i]] -= confidence[i] * model_strategy[i, a_]
    g.append(row)
  g = np.array(g)
  if counter_plan is not None:
    x_bounds = [(v, v) for v in counter_plan]
  nx, nz, nw = m.shape[0], f.shape[0], g.shape[0]
  objective = -np.concatenate([np.zeros(nx), f_rhs, np.zeros(nw)])
  inequality = np.hstack([-m.T, f.T, g.T])
  equality = np.hstack([e, np.zeros((e.shape[0], nz + nw))])
  result = linprog(
    objective,
    A_ub=inequality,
    b_ub=np.zeros(m.shape[1]),
    A_eq=equality,
    b_eq=e_rhs,
    bounds=x_bounds + [(None, None)] * nz + [(0, None)] * nw,
    method="highs",
  )
  assert result.status == 0
  return -result.fun


@functools.cache
def dbr_sweep():
  """DBR runs: constant confidences 0, 0.5, 1 and a count-based confidence, restricted player 1."""
  tensors = kuhn().tensors
  counts, _ = opponent.sample_games(tensors, model(), jax.random.key(4), 30)
  counted = np.asarray(rnr.count_confidence(counts[1], p_max=0.9, threshold=10))
  confidence1 = np.stack([np.zeros_like(counted), np.full_like(counted, 0.5), np.ones_like(counted), counted], -1)
  confidence = (np.zeros((tensors.players[0].num_infosets, 4)), confidence1)
  solver = solvers.get("dbr")
  state = solver.run(tensors, solver.init(tensors, model=model(), confidence=confidence, restricted=1), ITERATIONS)
  return state, confidence1


def test_count_confidence_ramps_to_p_max():
  counts = np.array([[0, 0], [3, 2], [10, 0], [40, 60]])
  np.testing.assert_allclose(np.asarray(rnr.count_confidence(counts, p_max=0.8, threshold=10)), [0, 0.4, 0.8, 0.8])


def test_dbr_with_zero_confidence_reproduces_the_plain_solver():
  tensors = kuhn().tensors
  base, solver = solvers.get("cfr+"), solvers.get("dbr")
  plain = base.run(tensors, base.init(tensors), 20)
  state = solver.run(tensors, solver.init(tensors, model=model(), p=0.0, restricted=1), 20)
  for a, b in zip(jax.tree.leaves(plain), jax.tree.leaves(state.inner_state)):
    np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=0, atol=1e-14)


def test_dbr_counter_strategies_solve_the_data_biased_game():
  tensors = kuhn().tensors
  state, confidence = dbr_sweep()
  solver = solvers.get("dbr")
  counter = solver.counter_profile(tensors, state)
  metrics = jax.device_get(exploitation.evaluate(solver, tensors, state, KUHN_VALUE))
  fixed = np.asarray(model()[1])
  best = float(best_response_values(tensors, model())[0])
  assert metrics["value_vs_model"][2] == pytest.approx(best, abs=TOLERANCE)  # confidence 1: a best response
  assert metrics["exploitability"][0] < TOLERANCE  # confidence 0: an equilibrium
  for k in range(confidence.shape[-1]):
    optimum = _dbr_game_value(tensors, 1, confidence[:, k], fixed)
    plan = np.asarray(evaluation.realization_plan(tensors.players[0], counter[0][..., k]))
    guaranteed = _dbr_game_value(tensors, 1, confidence[:, k], fixed, counter_plan=plan)
    assert guaranteed == pytest.approx(optimum, abs=TOLERANCE)


@functools.cache
def experts_setup():
  """Player 0's experts: RNR (p = 0.8) counter-strategies to a uniform player 1 and to model()."""
  tensors = kuhn().tensors
  opponents = [np.asarray(evaluation.uniform_profile(tensors)[1]), np.asarray(model()[1])]
  solver = solvers.get("rnr")
  grid = np.stack(opponents, -1)
  state = solver.run(tensors, solver.init(tensors, model=(model()[0], grid), p=0.8, restricted=1), 500)
  counters = np.moveaxis(np.asarray(solver.counter_profile(tensors, state)[0]), -1, 0)  # [E, I, A]
  return counters, opponents


def test_expert_values_are_exact_values():
  tensors = kuhn().tensors
  counters, opponents = experts_setup()
  values = np.asarray(experts.expert_values(tensors, 0, counters, opponents[0]))
  for k, counter in enumerate(counters):
    assert values[k] == pytest.approx(float(expected_value(tensors, (counter, opponents[0]))), abs=1e-12)
  values1 = np.asarray(experts.expert_values(tensors, 1, np.stack(opponents), counters[0]))
  for k, strategy in enumerate(opponents):
    assert values1[k] == pytest.approx(-float(expected_value(tensors, (counters[0], strategy))), abs=1e-12)


def test_ucb1_prefers_the_best_expert():
  tensors = kuhn().tensors
  counters, opponents = experts_setup()
  values = np.asarray(experts.expert_values(tensors, 0, counters, opponents[0]))
  assert values[0] > values[1] + 0.3  # the counter to the uniform player is much better against it
  pulls, arms, payoffs = experts.ucb1_matches(
    tensors, 0, counters, opponents[0], jax.random.key(5), num_hands=1000, num_matches=32
  )
  pulls, arms, payoffs = map(np.asarray, (pulls, arms, payoffs))
  assert pulls.shape == (32, 2) and arms.shape == payoffs.shape == (32, 1000)
  np.testing.assert_array_equal(pulls.sum(1), 1000)
  assert pulls[:, 0].mean() > 0.7 * 1000
  # the sampled payoffs average to the exact values of the experts played
  expected = values[arms].mean()
  assert abs(payoffs.mean() - expected) < 5 * payoffs.std() / np.sqrt(payoffs.size)


def test_tradeoff_script_runs(tmp_path, monkeypatch):
  from pathlib import Path  # pylint: disable=import-outside-toplevel

  benchmarks = Path(__file__).resolve().parents[1] / "benchmarks"
  monkeypatch.syspath_prepend(str(benchmarks))
  monkeypatch.syspath_prepend(str(benchmarks / "papers"))
  import rnr_tradeoff  # pylint: disable=import-outside-toplevel

  out = tmp_path / "tradeoff"
  record = rnr_tradeoff.main(
    [
      "--games",
      "kuhn_poker",
      "--iters",
      "50",
      "--algo",
      "rnr,mcrnr",
      "--mcrnr-iters",
      "200",
      "--out",
      str(out),
      "--models",
      "cfr:10,frequentist:cfr:10:2000",
    ]
  )
  written = json.loads(out.with_suffix(".json").read_text())
  assert written == record and written["results"]["games"].keys() == {"kuhn_poker"}
  assert written["configuration"]["models"] == ["cfr:10", "frequentist:cfr:10:2000"]
  assert written["configuration"]["iterations"] == {"rnr": 50, "mcrnr": 200}
  models = record["results"]["games"]["kuhn_poker"]["models"]
  assert list(models) == ["cfr:10", "frequentist:cfr:10:2000"]
  for per_model in models.values():
    assert list(per_model) == ["rnr", "mcrnr"]
    for run in per_model.values():
      assert [c["p"] for c in run["curve"]] == [0.0, 0.5, 0.7, 0.8, 0.9, 0.93, 0.97, 1.0]
      assert len(run["rows"]) == 16
      # the gain over the equilibrium and the exploitation over the game value differ by one
      # constant per restricted player: the equilibrium's own exploitation of the model
      for r in (0, 1):
        shift = {
          round(row["exploitation"] - row["gain_over_equilibrium"], 12)
          for row in run["rows"]
          if row["restricted_player"] == r
        }
        assert len(shift) == 1, shift
    gain = [c["gain_over_equilibrium"] for c in per_model["rnr"]["curve"]]
    assert abs(gain[0]) < 0.01 and gain[-1] > gain[0] + 0.01  # ~zero at p = 0, grows to the best response
  # the frequentist model differs from the strategy it observed, but not by much
  runs = [m["rnr"]["rows"] for m in models.values()]
  gap = [abs(a["value_vs_model"] - b["value_vs_model"]) for a, b in zip(*runs)]
  assert 0 < max(gap) < 0.1
