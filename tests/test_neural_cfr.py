"""Neural CFR (deep-cfr, sd-cfr, escher): short runs on Kuhn below a stated exploitability, the
sampled regrets unbiased against the exact counterfactual regrets, a batch of seeds equal to
the seeds run alone, legal-action masking, and one-line option errors."""

import statistics

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcfr
from jaxcfr import solvers
from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.kits.sequence_form.arrays import TERMINAL_NODE
from jaxcfr.solvers import deep_cfr, escher, networks, neural_inputs
import helpers

SMALL = dict(traversals=100, steps=100, hidden=(32, 32))
OPTIONS = {
  "deep-cfr": dict(SMALL, policy_steps=500),
  "sd-cfr": SMALL,
  "escher": dict(SMALL, policy_steps=500, value_traversals=200, value_steps=100),
  "escher-backup": dict(
    SMALL,
    policy_steps=500,
    value_traversals=200,
    value_steps=100,
    value_inputs="infostates",
    value_targets="backup",
    value_exploration=0.5,
  ),
}
# Exploitability (NashConv / 2) after 30 iterations of seed 0 on Kuhn (uniform: 0.458). Measured
# in float64: deep-cfr 0.039, sd-cfr 0.032, escher 0.042 (seeds 1-3: 0.013-0.023, 0.012-0.024,
# 0.023-0.086); the bounds leave room for rounding elsewhere.
# escher-backup (both information states as the value network's inputs, one-step backups as its
# targets): 0.023 in float32 (seed 0).
BOUNDS = {"deep-cfr": 0.06, "sd-cfr": 0.06, "escher": 0.08, "escher-backup": 0.08}


def _z_bound(num_tests: int, alpha: float = 1e-3) -> float:
  """Two-sided normal quantile with a Bonferroni correction over ``num_tests`` entries."""
  return statistics.NormalDist().inv_cdf(1 - alpha / (2 * max(num_tests, 1)))


def _assert_mean(draws: np.ndarray, expected: np.ndarray) -> float:
  """The mean of ``draws`` [N, ...] is ``expected`` within a Bonferroni z bound from the sample
  standard error (entries without variance exactly); returns the fraction of entries tested."""
  mean = draws.mean(0)
  se = draws.std(0, ddof=1) / np.sqrt(draws.shape[0])
  random = se > 1e-12
  np.testing.assert_allclose(mean[~random], expected[~random], atol=1e-9)
  z = np.abs(mean - expected)[random] / se[random]
  assert z.max() < _z_bound(z.size), (z.max(), _z_bound(z.size))
  return random.mean()


@pytest.mark.parametrize("name", ["deep-cfr", "sd-cfr", "escher", "escher-backup"])
def test_a_short_run_on_kuhn_is_below_its_bound(name):
  tensors = helpers.load("kuhn_poker").tensors
  solver = solvers.get(name.split("-backup")[0], **OPTIONS[name])
  state = solver.run(tensors, solver.init(tensors, seed=0), 30)
  profile = solver.average_strategy(tensors, state)
  evaluation.check_profile(tensors, profile)
  assert float(jaxcfr.exploitability(tensors, profile)) < BOUNDS[name]
  counts = solver.counters(state)
  assert counts["nodes_touched"] > 30 * 2 * 100 and np.all(np.isfinite(counts["advantage_loss"]))


def _exact_regrets(tensors, profile, player):
  """[I, A] the exact counterfactual regrets of ``player`` under ``profile`` (0 at illegal actions)."""
  plans = evaluation.plans(tensors, profile)
  treeplex = tensors.players[player]
  values = evaluation.sequence_values_for(tensors.payoff, player, plans[1 - player])
  q, v = evaluation.counterfactual_values(treeplex, values, profile[player])
  return np.asarray(jnp.where(treeplex.legal, q - v[:, None], 0))


def _tables(index, rows, num_infosets):
  """[K, I, A] each draw's rows (index [K, R], rows [K, R, A]) summed per infoset."""
  onehot = jax.nn.one_hot(index, num_infosets, dtype=rows.dtype)  # index I gives a zero row
  return np.asarray(jnp.einsum("kri,kra->kia", onehot, rows))


@pytest.mark.parametrize("player", [0, 1])
def test_deep_cfr_traversal_regrets_are_the_counterfactual_regrets(player):
  """External sampling's regret rows, summed per infoset, have the exact counterfactual
  regrets as their mean (Deep CFR's and SD-CFR's advantage targets)."""
  game = helpers.load("kuhn_poker")
  tensors = game.tensors
  profile = helpers.as_jax(helpers.random_profile(game.arrays, seed=7, zeros=0.1))
  walks = jax.jit(lambda k: deep_cfr.external_walks(tensors, profile, k, player, 20000))(jax.random.key(3))
  draws = _tables(walks.index, walks.regret, tensors.players[player].num_infosets)
  assert _assert_mean(draws, _exact_regrets(tensors, profile, player)) > 0.9


def test_exact_history_values_are_the_expected_utilities():
  game = helpers.load("kuhn_poker")
  profile = helpers.random_profile(game.arrays, seed=5, zeros=0.1)
  values = np.asarray(escher.history_values(game.tensors, helpers.as_jax(profile)))
  assert values[0] == pytest.approx(helpers.reference_expected_value(game.arrays, profile), abs=1e-12)
  terminal = game.arrays.kind == TERMINAL_NODE
  np.testing.assert_allclose(values[terminal], game.arrays.utility[terminal])


@pytest.mark.parametrize("game_name", ["kuhn_poker", "leduc_poker"])
def test_the_one_step_backup_of_the_exact_values_is_the_exact_values(game_name):
  """``backup_values`` of the exact history values gives them back at every inner history (the
  fixed point the backup targets of ESCHER's value fit aim at), and anything else not."""
  game = helpers.load(game_name)
  profile = helpers.as_jax(helpers.random_profile(game.arrays, seed=3, zeros=0.1))
  values = escher.history_values(game.tensors, profile)
  inner = game.arrays.kind != TERMINAL_NODE
  backup = np.asarray(escher.backup_values(game.tensors, profile, values))
  np.testing.assert_allclose(backup[inner], np.asarray(values)[inner], atol=1e-9)
  shifted = np.asarray(escher.backup_values(game.tensors, profile, values + 1.0))
  np.testing.assert_allclose(shifted[inner], np.asarray(values)[inner] + 1.0, atol=1e-9)  # probabilities sum to 1


def test_history_infostates_are_the_players_information_at_each_history():
  """Leduc: where a player acts, its block of the history features is its own infoset's
  encoding; after it has acted, its last infoset's; before, an infoset below with the same
  private card (the first character of the key); the path's block follows."""
  tensors = helpers.load("leduc_poker").tensors
  arrays = helpers.load("leduc_poker").arrays
  infosets = np.asarray(neural_inputs.history_infosets(tensors))
  features = np.asarray(neural_inputs.history_infostate_features(tensors))
  encodings = [neural_inputs.infostate_features(tensors, p) for p in (0, 1)]
  widths = [e.shape[1] for e in encodings]
  for p in (0, 1):
    acts = arrays.kind == p
    np.testing.assert_array_equal(infosets[p][acts], arrays.infoset[acts])
    block = features[:, sum(widths[:p]) : sum(widths[: p + 1])]
    np.testing.assert_array_equal(block, encodings[p][infosets[p]])
    keys = tensors.labels.keys(p)
    first = arrays.first_child
    checked = 0
    for h in np.flatnonzero(arrays.kind == 1 - p)[::25]:  # the opponent acts: p's card, from below h
      below = h
      while arrays.kind[below] not in (p, TERMINAL_NODE):  # down the last child (a raise, if legal)
        below = first[below] + arrays.num_children[below] - 1
      if arrays.kind[below] == p:
        assert keys[infosets[p][h]][0] == keys[arrays.infoset[below]][0]
        checked += 1
    assert checked > 10
  path = np.asarray(neural_inputs.history_features(tensors))
  np.testing.assert_array_equal(features[:, sum(widths) :], path)
  assert np.all(infosets >= 0)


@pytest.mark.parametrize("player", [0, 1])
def test_escher_regrets_are_the_counterfactual_regrets_scaled_by_the_fixed_sampling_reach(player):
  """ESCHER's estimator with exact history values: a trajectory's rows at an infoset I have
  the mean xi(I) r(I, a), xi(I) the uniform profile's reach of I (no importance weights)."""
  game = helpers.load("kuhn_poker")
  tensors, arrays = game.tensors, game.arrays
  profile = helpers.as_jax(helpers.random_profile(arrays, seed=7, zeros=0.1))
  values = escher.history_values(tensors, profile)
  samples = jax.jit(lambda k: escher.regret_samples(tensors, profile, values, k, player, 100000))(
    jax.random.key_data(jax.random.key(4))
  )
  draws = _tables(samples.index, samples.regret, tensors.players[player].num_infosets)
  legal = arrays.players[player].legal
  uniform = list(helpers.random_profile(arrays, seed=7, zeros=0.1))
  uniform[player] = legal / legal.sum(-1, keepdims=True)
  xi = helpers.history_reach(arrays, uniform)[player]
  at = arrays.kind == player
  reach = np.zeros(tensors.players[player].num_infosets)
  reach[arrays.infoset[at]] = xi[at]  # the same at every history of the infoset (perfect recall)
  assert _assert_mean(draws, reach[:, None] * _exact_regrets(tensors, profile, player)) > 0.9


def test_escher_value_targets_are_the_history_values_times_the_sampling_reach():
  """The importance-weighted returns of ``value_samples``, summed per history, have the mean
  ``s(h) V(h)``: ``s(h)`` the exploring profile's reach of ``h`` and ``V`` its value under sigma."""
  game = helpers.load("kuhn_poker")
  tensors, arrays = game.tensors, game.arrays
  sigma = helpers.random_profile(arrays, seed=9, zeros=0.1)
  epsilon = 0.3
  rows, returns, valid, _ = jax.jit(lambda k: escher.value_samples(tensors, helpers.as_jax(sigma), k, 50000, epsilon))(
    jax.random.key_data(jax.random.key(5))
  )
  depth = rows.shape[0] // 50000
  index = jnp.where(valid, rows, arrays.num_histories).reshape(50000, depth)
  draws = _tables(index, returns.reshape(50000, depth, 1), arrays.num_histories)[..., 0]
  legal = [arrays.players[p].legal for p in (0, 1)]
  exploring = [epsilon * lg / lg.sum(-1, keepdims=True) + (1 - epsilon) * s for lg, s in zip(legal, sigma)]
  reach = helpers.history_reach(arrays, exploring).prod(0)
  expected = reach * np.asarray(escher.history_values(tensors, helpers.as_jax(sigma)))
  expected[arrays.kind == TERMINAL_NODE] = 0  # terminals are read exactly, not learned
  assert _assert_mean(draws, expected) > 0.45  # 28 of Kuhn's 58 histories are not terminal


@pytest.mark.parametrize("name", ["deep-cfr", "sd-cfr", "escher"])
def test_a_batch_of_seeds_equals_the_seeds_run_alone(name):
  tensors = jaxcfr.load("kuhn_poker", dtype="float64").tensors
  options = dict(OPTIONS[name], traversals=20, steps=20)
  if name != "sd-cfr":
    options.update(policy_steps=50)
  if name == "escher":
    options.update(value_traversals=20, value_steps=20)
  solver = solvers.get(name, **options)
  seeds = (4, 5, 6)
  alone = [solver.run(tensors, solver.init(tensors, seed=s), 4) for s in seeds]
  batch = solver.run(tensors, solver.init(tensors, seed=jnp.asarray(seeds)), 4)
  assert solvers.batch_shape(batch) == (3,)
  for b, state in enumerate(alone):
    for x, y in zip(jax.tree_util.tree_leaves(state), jax.tree_util.tree_leaves(batch)):
      np.testing.assert_allclose(np.asarray(y)[..., b], np.asarray(x), rtol=1e-6, atol=1e-8)
  if name == "sd-cfr":  # the others' averages are networks fitted to the memories compared above
    profiles = solver.average_strategy(tensors, batch)
    for b, state in enumerate(alone):
      for x, y in zip(solver.average_strategy(tensors, state), profiles):
        np.testing.assert_allclose(np.asarray(y)[..., b], np.asarray(x), atol=1e-9)


def test_outputs_are_masked_to_the_legal_actions():
  outputs = jnp.asarray([[3.0, -1.0, 5.0], [-2.0, -1.0, 9.0], [0.5, 0.5, 0.5]])
  legal = jnp.asarray([[True, True, False], [True, True, False], [True, False, False]])
  policy = np.asarray(networks.masked_policy(outputs, legal))
  matched = np.asarray(networks.regret_matching_argmax(outputs, legal))
  for strategy in (policy, matched):
    assert np.all(strategy[~np.asarray(legal)] == 0)
    np.testing.assert_allclose(strategy.sum(-1), 1)
  np.testing.assert_allclose(matched, [[1, 0, 0], [0, 1, 0], [1, 0, 0]])  # no positive legal advantage: argmax
  np.testing.assert_allclose(networks.masked_values(outputs, legal)[1], [-2.0, -1.0, 0.0])


def test_leduc_strategies_are_zero_at_illegal_actions():
  """Leduc's infosets facing no bet have two actions of three: the networks' strategies put
  nothing on the third."""
  tensors = helpers.load("leduc_poker").tensors
  solver = solvers.get("sd-cfr", traversals=10, steps=5, hidden=(8,))
  state = solver.run(tensors, solver.init(tensors, seed=1), 2)
  for profile in (solver.current_strategy(tensors, state), solver.average_strategy(tensors, state)):
    evaluation.check_profile(tensors, profile)
    for treeplex, strategy in zip(tensors.players, profile):
      assert not np.asarray(treeplex.legal).all()
      assert np.all(np.asarray(strategy)[~np.asarray(treeplex.legal)] == 0)


@pytest.mark.parametrize(
  "name,options,message",
  [
    ("deep-cfr", dict(traversals=0), "traversals of solver 'deep-cfr' must be >= 1"),
    ("sd-cfr", dict(hidden=()), "hidden widths must be >= 1"),
    ("escher", dict(value_exploration=0.0), "value_exploration must be in"),
  ],
)
def test_bad_options_get_one_line_errors(name, options, message):
  with pytest.raises(ValueError, match=message):
    solvers.get(name, **options)
