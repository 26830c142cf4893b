"""Exact evaluation in float64: against OpenSpiel, against history-level references, known
equilibria, native games against their OpenSpiel twins, gradients and batching."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import best_response as os_best_response
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability as os_exploitability

import jaxcfr
from jaxcfr.kits.sequence_form import row_sums
from jaxcfr.kits.sequence_form.arrays import TERMINAL_NODE
from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.kits.sequence_form.evaluation import plans
from jaxcfr.kits.sequence_form.openspiel import from_openspiel_policy, to_openspiel_policy

from helpers import (
  as_jax,
  best_response_values,
  expected_value,
  exploitability,
  history_reach,
  load,
  nash_conv,
  random_profile,
  reference_expected_value,
)

GOOFSPIEL = "goofspiel(num_cards=4,imp_info=True,points_order=descending)"
PROFILE_KINDS = {  # seed, random_profile keywords
  "dirichlet": (0, {}),
  "dirichlet-2": (1, {}),
  "with-zeros": (2, {"zeros": 0.4}),
  "many-zeros": (3, {"zeros": 0.8}),
  "pure": (4, {"pure": True}),
}


# --- uniform play --------------------------------------------------------------------------


@pytest.mark.parametrize(
  "name, expected",
  [
    ("kuhn_poker", 0.9166666666666666),  # 11/12
    ("openspiel:kuhn_poker", 0.9166666666666666),
    ("leduc_poker", 4.747222222222222),
    ("openspiel:leduc_poker", 4.747222222222222),
  ],
)
def test_uniform_nash_conv(name, expected):
  game = load(name)
  profile = jaxcfr.uniform_profile(game.tensors)
  assert float(nash_conv(game.tensors, profile)) == pytest.approx(expected, abs=1e-9)
  assert float(exploitability(game.tensors, profile)) == pytest.approx(expected / 2, abs=1e-9)
  os_game = game.openspiel_game()
  assert os_exploitability.nash_conv(os_game, policy_lib.UniformRandomPolicy(os_game)) == pytest.approx(
    expected, abs=1e-9
  )


def test_uniform_strategy_is_uniform_over_legal_actions():
  treeplex = load("leduc_poker").tensors.players[0]
  sigma = np.asarray(evaluation.uniform_strategy(treeplex, jnp.float64))
  legal = np.asarray(treeplex.legal)
  np.testing.assert_allclose(sigma.sum(-1), 1.0, rtol=0, atol=1e-15)
  np.testing.assert_array_equal(sigma[~legal], 0.0)
  np.testing.assert_allclose(sigma[legal], np.repeat(1 / legal.sum(-1), legal.sum(-1)), atol=1e-15)


# --- against OpenSpiel on random strategies ------------------------------------------------


@pytest.mark.parametrize("kind", sorted(PROFILE_KINDS))
@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker", "openspiel:leduc_poker", GOOFSPIEL])
def test_values_match_openspiel(name, kind):
  game = load(name)
  seed, kwargs = PROFILE_KINDS[kind]
  profile = random_profile(game.arrays, seed, **kwargs)
  os_game = game.openspiel_game()
  policy = to_openspiel_policy(game.arrays, profile, os_game)
  root = os_game.new_initial_state()
  os_br = [os_best_response.BestResponsePolicy(os_game, p, policy).value(root) for p in range(2)]
  os_value = expected_game_score.policy_value(root, [policy, policy])[0]

  br = np.asarray(best_response_values(game.tensors, as_jax(profile)))
  np.testing.assert_allclose(br, os_br, rtol=0, atol=1e-12)
  assert float(expected_value(game.tensors, as_jax(profile))) == pytest.approx(os_value, abs=1e-12)
  # OpenSpiel's C++ best response, a second independent implementation.
  cpp = os_exploitability.nash_conv(os_game, policy, return_only_nash_conv=False, use_cpp_br=True)
  assert float(nash_conv(game.tensors, as_jax(profile))) == pytest.approx(cpp.nash_conv, abs=1e-12)
  np.testing.assert_allclose(br - [os_value, -os_value], cpp.player_improvements, rtol=0, atol=1e-12)


# --- against history-level references (no sequence form, no OpenSpiel) ---------------------


@jax.jit
def _values(tensors, profile):
  """Per player: counterfactual values (q [I, A], v [I]) and best response (value, [I, A])."""
  g = evaluation.sequence_values(tensors.payoff, *plans(tensors, profile))
  cfv = [evaluation.counterfactual_values(t, gi, s) for t, gi, s in zip(tensors.players, g, profile)]
  br = [evaluation.best_response(t, gi) for t, gi in zip(tensors.players, g)]
  return cfv, br


def reference_counterfactual_values(arrays, profile, player):
  """q [I, A] by definition: sum over the histories h of I of the opponent's and chance's
  reach of h times the player's expected utility after h·a."""
  sign = 1.0 if player == 0 else -1.0
  reach = history_reach(arrays, profile)
  value = np.where(arrays.kind == TERMINAL_NODE, arrays.utility, 0.0)
  for h in range(arrays.num_histories - 1, -1, -1):  # children come after parents
    if arrays.kind[h] == TERMINAL_NODE:
      continue
    children = arrays.first_child[h] + np.arange(arrays.num_children[h])
    if arrays.kind[h] < 2:
      weights = profile[arrays.kind[h]][arrays.infoset[h], : len(children)]
    else:
      weights = arrays.chance_prob[children]
    value[h] = weights @ value[children]
  q = np.zeros(profile[player].shape)
  for h in np.flatnonzero(arrays.kind == player):
    children = arrays.first_child[h] + np.arange(arrays.num_children[h])
    q[arrays.infoset[h], : len(children)] += reach[1 - player, h] * reach[2, h] * sign * value[children]
  return q


@pytest.mark.parametrize("kind", ["dirichlet", "many-zeros"])
@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_counterfactual_values_match_definition(name, kind):
  game = load(name)
  seed, kwargs = PROFILE_KINDS[kind]
  profile = random_profile(game.arrays, seed, **kwargs)
  cfv, _ = _values(game.tensors, as_jax(profile))
  for player in range(2):
    q, v = cfv[player]
    reference = reference_counterfactual_values(game.arrays, profile, player)
    np.testing.assert_allclose(q, reference, rtol=0, atol=1e-12)
    np.testing.assert_allclose(v, (profile[player] * reference).sum(-1), rtol=0, atol=1e-12)
    # The root infosets' values add up to the player's expected utility.
    roots = np.asarray(game.tensors.players[player].parent_seq) == 0
    sign = 1 if player == 0 else -1
    assert float(v[roots].sum()) == pytest.approx(sign * reference_expected_value(game.arrays, profile), abs=1e-12)


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker", "coin_toss", GOOFSPIEL])
def test_expected_value_and_best_responses_are_consistent(name):
  """x^T A y equals the sum over terminals of reach times utility; the pure strategy that
  best_response returns attains the best-response value; no deviation beats it."""
  game = load(name)
  profile = random_profile(game.arrays, 7, zeros=0.3)
  assert float(expected_value(game.tensors, as_jax(profile))) == pytest.approx(
    reference_expected_value(game.arrays, profile), abs=1e-12
  )
  _, br = _values(game.tensors, as_jax(profile))
  br_value = np.asarray(best_response_values(game.tensors, as_jax(profile)))
  np.testing.assert_allclose([br[0][0], br[1][0]], br_value, atol=0)
  for player in range(2):
    strategy = np.asarray(br[player][1])
    assert np.all(strategy.sum(-1) == 1) and np.all(strategy[~game.arrays.players[player].legal] == 0)
    deviation = list(profile)
    deviation[player] = strategy
    sign = 1 if player == 0 else -1
    assert sign * reference_expected_value(game.arrays, deviation) == pytest.approx(br_value[player], abs=1e-12)
    for seed in range(3):  # random deviations never do better than the best response
      deviation[player] = random_profile(game.arrays, 100 + seed)[player]
      assert sign * reference_expected_value(game.arrays, deviation) <= br_value[player] + 1e-12
  assert br_value.sum() >= -1e-12


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_best_response_profile_attains_each_seats_best_response_value(name):
  """Seat p of best_response_profile, played against the other seat of the profile, earns
  exactly that seat's best-response value (history-level reference), in a batch as alone."""
  game = load(name)
  profiles = [random_profile(game.arrays, seed, zeros=0.4) for seed in (11, 12)]
  br_value = [np.asarray(best_response_values(game.tensors, as_jax(p))) for p in profiles]
  stacked = tuple(jnp.stack([jnp.asarray(p[i]) for p in profiles], -1) for i in (0, 1))
  batched = jaxcfr.kits.sequence_form.evaluation.best_response_profile(game.tensors, stacked)
  for k, profile in enumerate(profiles):
    alone = jaxcfr.kits.sequence_form.evaluation.best_response_profile(game.tensors, as_jax(profile))
    for player, sign in ((0, 1), (1, -1)):
      strategy = np.asarray(alone[player])
      np.testing.assert_array_equal(strategy, np.asarray(batched[player][..., k]))
      assert set(np.unique(strategy)) <= {0.0, 1.0}
      deviation = list(profile)
      deviation[player] = strategy
      assert sign * reference_expected_value(game.arrays, deviation) == pytest.approx(br_value[k][player], abs=1e-12)


# --- native games against their OpenSpiel twins ---------------------------------------------


@pytest.mark.parametrize("kind", sorted(PROFILE_KINDS))
@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_native_and_adapter_agree(name, kind):
  native, adapter = load(name), load(f"openspiel:{name}")
  os_game = native.openspiel_game()
  seed, kwargs = PROFILE_KINDS[kind]
  profile = random_profile(native.arrays, seed, **kwargs)
  policy = to_openspiel_policy(native.arrays, profile, os_game)
  # The native profile survives the round trip through OpenSpiel exactly.
  for mine, back in zip(profile, from_openspiel_policy(native.arrays, policy, os_game)):
    np.testing.assert_array_equal(mine, back)
  mapped = from_openspiel_policy(adapter.arrays, policy, os_game)
  for fn in (expected_value, best_response_values, nash_conv):
    np.testing.assert_allclose(
      fn(native.tensors, as_jax(profile)), fn(adapter.tensors, as_jax(mapped)), rtol=0, atol=1e-12
    )


# --- known equilibria -----------------------------------------------------------------------


def strategy_by_keys(player_arrays, rows: dict) -> np.ndarray:
  """[I, A] from {infoset key: action probabilities}; every infoset must be given."""
  assert set(rows) == set(player_arrays.keys.tolist())
  strategy = np.zeros(player_arrays.action_ids.shape)
  for i, key in enumerate(player_arrays.keys):
    strategy[i, : player_arrays.num_actions[i]] = rows[key]
  return strategy


def kuhn_profile(arrays, *, alpha, beta, gamma, eta=1 / 3, xi=1 / 3):
  """Ponsen et al. 2011 section 2.2 with the dominated actions removed. Cards 0 = J, 1 = Q, 2 = K;
  actions [pass, bet]. alpha: bet with J; beta: call with Q after pass-bet; gamma: bet with
  K; eta: second player calls a bet with Q; xi: second player bets J after a pass."""
  sigma0 = strategy_by_keys(
    arrays.players[0],
    {
      "0:": [1 - alpha, alpha],
      "1:": [1, 0],
      "2:": [1 - gamma, gamma],
      "0:pb": [1, 0],
      "1:pb": [1 - beta, beta],
      "2:pb": [0, 1],
    },
  )
  sigma1 = strategy_by_keys(
    arrays.players[1],
    {"0:p": [1 - xi, xi], "1:p": [1, 0], "2:p": [0, 1], "0:b": [1, 0], "1:b": [1 - eta, eta], "2:b": [0, 1]},
  )
  return sigma0, sigma1


@pytest.mark.parametrize("g", [0.0, 0.25, 0.5, 0.9, 1.0])
def test_kuhn_equilibrium_family(g):
  game = load("kuhn_poker")
  profile = kuhn_profile(game.arrays, alpha=g / 3, beta=(1 + g) / 3, gamma=g)
  assert float(nash_conv(game.tensors, as_jax(profile))) == pytest.approx(0.0, abs=1e-12)
  assert float(expected_value(game.tensors, as_jax(profile))) == pytest.approx(-1 / 18, abs=1e-12)
  np.testing.assert_allclose(best_response_values(game.tensors, as_jax(profile)), [-1 / 18, 1 / 18], atol=1e-12)


@pytest.mark.parametrize(
  "change",
  [
    {"eta": 0.5},
    {"xi": 0.0},
    {"alpha": 0.5},
    {"beta": 0.0},
    {"gamma": 0.3},
  ],
)
def test_kuhn_non_equilibria_are_exploitable(change):
  game = load("kuhn_poker")
  params = {"alpha": 0.5 / 3, "beta": 1.5 / 3, "gamma": 0.5, **change}
  profile = kuhn_profile(game.arrays, **params)
  assert float(nash_conv(game.tensors, as_jax(profile))) > 1e-3


def test_kuhn_equilibrium_in_the_adapter_game():
  """The g = 0.5 equilibrium mapped into openspiel:kuhn_poker is still an equilibrium there."""
  native, adapter = load("kuhn_poker"), load("openspiel:kuhn_poker")
  os_game = native.openspiel_game()
  policy = to_openspiel_policy(native.arrays, kuhn_profile(native.arrays, alpha=0.5 / 3, beta=0.5, gamma=0.5), os_game)
  assert os_exploitability.nash_conv(os_game, policy) == pytest.approx(0.0, abs=1e-12)
  mapped = as_jax(from_openspiel_policy(adapter.arrays, policy, os_game))
  assert float(nash_conv(adapter.tensors, mapped)) == pytest.approx(0.0, abs=1e-12)
  assert float(expected_value(adapter.tensors, mapped)) == pytest.approx(-1 / 18, abs=1e-12)


def test_rps_plus_equilibrium():
  game = load("rps_plus")
  equilibrium = np.array([[0.4, 0.4, 0.2]])
  profile = as_jax((equilibrium, equilibrium))
  assert float(exploitability(game.tensors, profile)) == pytest.approx(0.0, abs=1e-12)
  assert float(expected_value(game.tensors, profile)) == pytest.approx(0.0, abs=1e-12)
  off = as_jax((np.array([[1 / 3, 1 / 3, 1 / 3]]),) * 2)
  assert float(exploitability(game.tensors, off)) > 0.1


@pytest.mark.parametrize(
  "game_string, guess, other_guess, other_exploitability",
  [
    ("coin_toss", [0.25, 0.75, 0], [0.5, 0.5, 0], 0.125),
    # reversed (test_reversed_coin_toss_payoffs_and_equilibrium derives the 0.25)
    ("coin_toss(sell_value=-0.5)", [0.75, 0.25, 0], [0.25, 0.75, 0], 0.25),
  ],
)
def test_coin_toss_equilibrium(game_string, guess, other_guess, other_exploitability):
  """P1 sells both coins and P2 guesses ``guess``: an equilibrium of value 0; P2's
  ``other_guess`` is exploitable by ``other_exploitability``."""
  game = load(game_string)
  sigma0 = strategy_by_keys(game.arrays.players[0], {"coin 0": [1, 0], "coin 1": [1, 0]})  # sell
  profile = as_jax((sigma0, strategy_by_keys(game.arrays.players[1], {"play": guess})))
  assert float(exploitability(game.tensors, profile)) == pytest.approx(0.0, abs=1e-12)
  assert float(expected_value(game.tensors, profile)) == pytest.approx(0.0, abs=1e-12)
  other = as_jax((sigma0, strategy_by_keys(game.arrays.players[1], {"play": other_guess})))
  assert float(exploitability(game.tensors, other)) == pytest.approx(other_exploitability, abs=1e-12)


def test_reversed_coin_toss_payoffs_and_equilibrium():
  """Chelarescu 2019's reversed Coin Toss (Figure 3.13; sell_value=-0.5): selling pays P1
  -0.5 on heads and +0.5 on tails, playing is unchanged, and P2's equilibrium guess swaps to
  heads 3/4, tails 1/4 (checked in test_coin_toss_equilibrium). By hand: against the unreversed guess (1/4, 3/4) P1 plays heads
  (1 - 2/4 = 0.5 > -0.5) and sells tails (0.5 > 1 - 6/4), worth 0.5; selling both is worth
  0 whatever P2 does, so NashConv = 0.5 and exploitability 0.25."""
  from jaxcfr.games.coin_toss import CoinToss  # pylint: disable=import-outside-toplevel

  rules = CoinToss(sell_value=-0.5)
  root = rules.new_initial_state()
  assert root.child(0).child(0).returns() == [-0.5, 0.5]  # heads, sell
  assert root.child(1).child(0).returns() == [0.5, -0.5]  # tails, sell
  assert root.child(0).child(1).child(0).returns() == [-1.0, 1.0]  # heads, play, P2 guesses heads
  assert root.child(0).child(1).child(1).returns() == [1.0, -1.0]  # heads, play, P2 guesses tails
  assert root.child(1).child(1).child(2).returns() == [1.0, -1.0]  # tails, play, P2 forfeits
  # the equilibrium and the unreversed guess's exploitability: test_coin_toss_equilibrium


# --- gradients ------------------------------------------------------------------------------


def _with_tree(tensors, **leaves):
  return dataclasses.replace(tensors, tree=dataclasses.replace(tensors.tree, **leaves))


def _ev_with_payoff(tensors, value, profile):
  payoff = dataclasses.replace(tensors.payoff, value=value)
  return jaxcfr.expected_value(dataclasses.replace(tensors, payoff=payoff), profile)


_value_of_payoff = jax.jit(_ev_with_payoff)


@jax.jit
def _value_of_tree(tensors, utility, chance_prob, profile):
  tensors = jaxcfr.with_payoff_from_tree(_with_tree(tensors, utility=utility, chance_prob=chance_prob))
  return jaxcfr.expected_value(tensors, profile)


def _central_differences(fn, point, eps=1e-6):
  point = np.asarray(point, np.float64)
  out = np.zeros_like(point)
  for k in range(point.size):
    step = np.zeros_like(point)
    step[k] = eps
    out[k] = (float(fn(point + step)) - float(fn(point - step))) / (2 * eps)
  return out


def test_gradient_with_respect_to_payoff():
  game = load("kuhn_poker")
  profile = as_jax(random_profile(game.arrays, 11))
  tensors = game.tensors
  value = tensors.payoff.value
  grad = np.asarray(jax.grad(_value_of_payoff, argnums=1)(tensors, value, profile))
  assert np.all(np.isfinite(grad))
  numeric = _central_differences(lambda v: _value_of_payoff(tensors, v, profile), value)
  np.testing.assert_allclose(grad, numeric, rtol=0, atol=1e-8)
  x, y = plans(tensors, profile)  # d(x^T A y)/dA[s0, s1] = x[s0] y[s1]
  np.testing.assert_allclose(grad, np.asarray(x)[tensors.payoff.seq0] * np.asarray(y)[tensors.payoff.seq1], atol=1e-15)


def test_payoff_from_tree_reproduces_the_built_payoff():
  for name in ("kuhn_poker", "leduc_poker"):
    tensors = load(name).tensors
    rebuilt = jax.jit(jaxcfr.with_payoff_from_tree)(tensors)
    np.testing.assert_allclose(rebuilt.payoff.value, tensors.payoff.value, rtol=1e-14, atol=1e-15)


def test_gradient_with_respect_to_utility_and_chance():
  game = load("kuhn_poker")
  profile_np = random_profile(game.arrays, 12, zeros=0.3)
  profile = as_jax(profile_np)
  tensors = game.tensors
  utility, chance = tensors.tree.utility, tensors.tree.chance_prob
  assert float(_value_of_tree(tensors, utility, chance, profile)) == pytest.approx(
    reference_expected_value(game.arrays, profile_np), abs=1e-14
  )
  d_utility, d_chance = jax.grad(_value_of_tree, argnums=(1, 2))(tensors, utility, chance, profile)
  d_utility, d_chance = np.asarray(d_utility), np.asarray(d_chance)
  assert np.all(np.isfinite(d_utility)) and np.all(np.isfinite(d_chance))
  assert np.any(d_chance[np.asarray(tensors.tree.kind)[np.asarray(tensors.tree.parent)] == 2] != 0)
  np.testing.assert_allclose(
    d_utility, _central_differences(lambda u: _value_of_tree(tensors, u, chance, profile), utility), rtol=0, atol=1e-8
  )
  np.testing.assert_allclose(
    d_chance, _central_differences(lambda c: _value_of_tree(tensors, utility, c, profile), chance), rtol=0, atol=1e-8
  )
  # d EV / d u(z) is the reach probability of terminal z, and 0 at other histories.
  terminal = game.arrays.kind == TERMINAL_NODE
  reach = history_reach(game.arrays, profile_np).prod(0)
  np.testing.assert_allclose(d_utility, np.where(terminal, reach, 0.0), rtol=0, atol=1e-15)


# --- batching -------------------------------------------------------------------------------

_batched_nash_conv = jax.jit(jax.vmap(jaxcfr.nash_conv, in_axes=(None, 0)))


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_vmap_nash_conv_over_profiles(name):
  game = load(name)
  profiles = [random_profile(game.arrays, seed, zeros=0.3 * (seed % 2)) for seed in range(4)]
  batch = tuple(jnp.stack([p[i] for p in profiles]) for i in range(2))
  batched = np.asarray(_batched_nash_conv(game.tensors, batch))
  single = np.array([float(nash_conv(game.tensors, as_jax(p))) for p in profiles])
  assert batched.shape == (4,)
  assert len(set(single.round(9).tolist())) == 4  # four genuinely different profiles
  np.testing.assert_allclose(batched, single, rtol=0, atol=1e-12)


def test_vmap_over_payoff_values():
  """A batch of games that differ in payoff values: EV is linear in the payoff."""
  game = load("kuhn_poker")
  profile = as_jax(random_profile(game.arrays, 5))
  scales = jnp.array([0.0, 1.0, -2.0, 3.5])
  values = scales[:, None] * game.tensors.payoff.value[None, :]
  batched = jax.jit(jax.vmap(_ev_with_payoff, in_axes=(None, 0, None)))(game.tensors, values, profile)
  base = float(expected_value(game.tensors, profile))
  np.testing.assert_allclose(batched, np.asarray(scales) * base, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("sorted_rows", [True, False])
def test_row_sums_match_a_segment_sum(sorted_rows):
  rng = np.random.default_rng(3)
  counts = np.concatenate([rng.integers(0, 5, 40), [0, 1, 17, 0, 64]])  # empty rows, one wide row
  rows = np.repeat(np.arange(len(counts)), counts)
  if not sorted_rows:
    rows = rng.permutation(rows)
  table = row_sums.build_row_sums(rows, len(counts) + 3)  # trailing rows without entries
  widths = sorted({e.shape[1] for e in table.entries})
  assert widths == [1, 2, 4, 32, 64] and all(w & (w - 1) == 0 for w in widths)
  assert sum(e.size for e in table.entries) <= 2 * len(rows)
  values = rng.normal(size=(len(rows), 3))
  expected = np.zeros((len(counts) + 3, 3))
  np.add.at(expected, rows, values)
  padded = row_sums.padded(jnp.asarray(values))
  got = jax.jit(lambda t: row_sums.sum_rows(t, lambda e: padded[e], (3,), padded.dtype))(table)
  np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
  with pytest.raises(ValueError, match="row ids must lie in 0..4"):
    row_sums.build_row_sums(np.array([0, 5]), 5)


def test_batched_cfr_iteration_holds_no_scatter_and_equals_single_runs():
  """In batches the sequence-form sums gather (jaxcfr.kits.sequence_form.row_sums): no scatter in a
  compiled CFR+ step of 8 runs, nor a library call (regret matching's sums are adds:
  jaxcfr.base.regret.unrolled_reduce), so XLA:CPU compiles a loop of them into one kernel
  (jaxcfr.xla_setup); its runs equal the one-run (scatter) path to rounding."""
  tensors = jaxcfr.load("leduc_poker").tensors
  solver = jaxcfr.solvers.get("cfr+")
  gammas = np.linspace(0.5, 2.0, 8)
  state = solver.init(tensors, gamma=gammas)
  text = jax.jit(lambda s: solver.step(tensors, s)).lower(state).compile().as_text()
  assert not [op for op in (" scatter(", "custom-call(", "kind=kCustom") if op in text]
  batched = solver.run(tensors, state, 5)
  for k in (0, 7):
    alone = solver.run(tensors, solver.init(tensors, gamma=gammas[k]), 5)
    for a, b in zip(jax.tree.leaves(alone), jax.tree.leaves(batched)):
      np.testing.assert_allclose(np.asarray(b)[..., k], np.asarray(a), rtol=1e-12, atol=1e-14)
