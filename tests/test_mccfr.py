"""The sampled family (jaxcfr.solvers.mccfr, outcome_sampling): Ponsen et al. 2011's worked example, unbiased estimators,
batches over seeds, convergence next to OpenSpiel's C++ MCCFR solvers, driver and CLI."""

import contextlib
import dataclasses
import functools
import json
import statistics

import jax
import jax.numpy as jnp
import numpy as np
import pyspiel
import pytest

from jaxcfr import solvers
from jaxcfr.kits.sequence_form import evaluation, sampling
from jaxcfr.base import row_updates
from jaxcfr.kits.sequence_form.arrays import CHANCE_NODE
from jaxcfr.run import cli, driver
from jaxcfr.solvers import mccfr, mccfr_state, outcome_sampling
import helpers

EPSILON = 0.6


@functools.cache
def solver(algorithm, trajectories=1, averaging="stochastic", name="kuhn_poker"):
  options = {"trajectories": trajectories, "averaging": averaging} if algorithm == "mccfr-os" else {}
  return solvers.get(algorithm, **options)


@functools.cache
def _runner(algorithm, name, trajectories, averaging, batched):
  """Jitted (seed(s), iterations) -> final state(s); the iteration count is traced, so every
  test of one configuration shares one compilation."""
  s = solver(algorithm, trajectories, averaging, name)
  tensors = helpers.load(name).tensors

  def run(seed, iterations):
    return jax.lax.fori_loop(0, iterations, lambda _, x: s.step(tensors, x), s.init(tensors, seed=seed))

  return jax.jit(jax.vmap(run, (0, None)) if batched else run)


def batched_run(algorithm, name, iterations, trajectories=1, averaging="stochastic"):
  """seeds [B] -> the B final states, as one vmapped program."""
  return lambda seeds: _runner(algorithm, name, trajectories, averaging, True)(seeds, iterations)


def run_alone(algorithm, name, iterations, seed, trajectories=1, averaging="stochastic"):
  return _runner(algorithm, name, trajectories, averaging, False)(seed, iterations)


@functools.cache
def batched_exploitability(algorithm, name):
  s = solver(algorithm, name=name)
  tensors = helpers.load(name).tensors
  return jax.jit(jax.vmap(lambda state: evaluation.exploitability(tensors, s.average_strategy(tensors, state))))


def take(state, b):
  return jax.tree_util.tree_map(lambda leaf: leaf[b], state)


# --- Ponsen et al. 2011, section 3.2.3 ---------------------------------------------------------------


def test_worked_kuhn_example_of_ponsen_2011():
  """First iteration on z1 = (K|Q, bet, pass), both players updated on the one trajectory
  with the profile of the forward pass, optimistic averaging (Ponsen et al. 2011, Algorithm 1)."""
  game = helpers.load("kuhn_poker")
  tensors, arrays = game.tensors, game.arrays
  # Kuhn's cards 0, 1, 2 = J, Q, K; actions 0 = pass, 1 = bet.
  z1 = next(h for h in range(arrays.num_histories) if arrays.kind[h] == 3 and arrays.history_actions(h) == [2, 1, 1, 0])
  i1 = list(arrays.players[0].keys).index("2:")  # player 1 holds the King, no actions yet
  i2 = list(arrays.players[1].keys).index("1:b")  # player 2 holds the Queen, facing a bet
  state = solver("mccfr-os", averaging="optimistic").init(tensors)
  sigma = mccfr.current_strategy(tensors, state)
  path = outcome_sampling.forced_trajectory(tensors, sigma, z1, epsilon=EPSILON, exploring=(0, 1))
  assert float(path.sample_prob.prod()) == pytest.approx(1 / 24)  # pi^sigma'(z1)
  update = jax.jit(
    functools.partial(outcome_sampling.outcome_sampling_update, averaging="optimistic"), static_argnames="player"
  )
  state, update2 = update(tensors, state, path, player=1, strategies=sigma)
  state, update1 = update(tensors, state, path, player=0, strategies=sigma)
  # Ponsen et al. 2011, eq. 6: w_I = u_i(z) pi_-i(z[I]) / pi^sigma'(z)
  assert update2.w_ponsen_2011[0][update2.w_ponsen_2011[0] != 0].tolist() == pytest.approx([-2.0])
  assert update1.w_ponsen_2011[0][update1.w_ponsen_2011[0] != 0].tolist() == pytest.approx([4.0])
  # Lanctot et al. 2009, eq. 10's w_I includes the tail: -2 * 1 and 4 * 1/2
  assert update1.w[0][update1.w[0] != 0].tolist() == pytest.approx([2.0])
  np.testing.assert_allclose(state.regrets[1][i2], [-1.0, 1.0])
  np.testing.assert_allclose(state.regrets[0][i1], [-1.0, 1.0])
  np.testing.assert_allclose(state.average[1][i2], [0.5, 0.5])
  np.testing.assert_allclose(state.average[0][i1], [0.5, 0.5])
  assert int(state.last_visit[1][i2]) == 1 and int(state.last_visit[0][i1]) == 1
  for player in (0, 1):  # nothing else moved
    touched = np.zeros(arrays.players[player].num_infosets, bool)
    touched[i1 if player == 0 else i2] = True
    assert not np.asarray(state.regrets[player])[~touched].any()
    assert not np.asarray(state.average[player])[~touched].any()
  np.testing.assert_allclose(mccfr.current_strategy(tensors, state)[1][i2], [0.0, 1.0])  # eq. 5
  assert mccfr.nodes_touched(state) == 2 * 5  # the path root, K, K|Q, bet, pass, twice


@pytest.mark.parametrize("trajectories", [4, 8])  # 44 and 88 rows: pairwise and sorted deduplication
def test_optimistic_averaging_updates_each_visited_infoset_once(trajectories):
  """Row-wise optimistic averaging equals Ponsen et al. 2011 Algorithm 1 line 15 written over
  the whole table (s_I += (t - c_I) pi_i(I) sigma(I, .) at every visited I, c_I <- t), with
  several trajectories per update, so that infosets are visited more than once."""
  tensors = helpers.load("leduc_poker").tensors
  state = solver("mccfr-os", averaging="optimistic").init(tensors)
  update = jax.jit(
    functools.partial(outcome_sampling.outcome_sampling_update, averaging="optimistic"), static_argnames="player"
  )
  twice = 0
  for step, key in enumerate(jax.random.split(jax.random.PRNGKey(5), 30)):
    player = step % 2
    sigma = mccfr.current_strategy(tensors, state)
    paths = outcome_sampling.sample_trajectories(tensors, sigma, key, trajectories, player=player, epsilon=EPSILON)
    new, estimate = update(tensors, state, paths, player=player)
    t = int(state.iteration) + 1
    weight = (t - np.asarray(state.last_visit[player])) * np.asarray(estimate.reach)
    visited = np.asarray(estimate.visited)
    expected = np.asarray(state.average[player]) + np.where(visited[:, None], weight[:, None] * sigma[player], 0)
    np.testing.assert_allclose(new.average[player], expected, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(new.last_visit[player], np.where(visited, t, state.last_visit[player]))
    twice += int(visited.sum()) < int((np.asarray(estimate.w) != 0).sum())
    state = new._replace(iteration=new.iteration + player)
  assert twice > 0  # some update visited an infoset on two trajectories


# --- unbiased estimators --------------------------------------------------------------------


def _z_bound(num_tests: int, alpha: float = 1e-3) -> float:
  """Two-sided normal quantile with a Bonferroni correction over ``num_tests`` entries."""
  return statistics.NormalDist().inv_cdf(1 - alpha / (2 * max(num_tests, 1)))


@functools.cache
def _moments_fn(name):
  """Jitted: (profile, keys [N, 2]) -> {quantity: (sum, sum of squares, nonzero count)}
  over N independent draws of every sampler's estimate for both players."""
  game = helpers.load(name)
  tensors = game.tensors

  def draw(profile, key):
    out = {}
    for player in (0, 1):
      paths = outcome_sampling.sample_trajectories(tensors, profile, key, 1, player=player, epsilon=EPSILON)
      os_ = outcome_sampling.outcome_sampling_estimate(tensors, profile, paths, player=player)
      es = mccfr.external_sampling_estimate(tensors, profile, key, player=player)
      cs = mccfr.chance_sampling_estimate(tensors, profile, key, player=player)
      out.update(
        {
          f"os_regret{player}": os_.regret,
          f"os_average{player}": os_.average,
          f"os_nodes{player}": os_.nodes_touched,
          f"es_regret{player}": es.regret,
          f"es_visits{1 - player}": es.opponent_visits,
          f"es_nodes{player}": es.nodes_touched,
          f"cs_regret{player}": cs.regret,
          f"cs_nodes{player}": cs.nodes_touched,
        }
      )
    return out

  def moments(profile, keys):
    draws = jax.vmap(draw, (None, 0))(profile, keys)
    f = lambda x: x.astype(jnp.float64)
    return {k: (f(v).sum(0), (f(v) ** 2).sum(0), (v != 0).sum(0)) for k, v in draws.items()}

  return jax.jit(moments)


def _exact(game, profile):
  """The exact expectations of every estimate in ``_moments_fn``."""
  tensors, arrays = game.tensors, game.arrays
  plans = evaluation.plans(tensors, profile)
  reach = helpers.history_reach(arrays, profile)  # [3, H]: player 0, player 1, chance
  # histories of each infoset the opponent and chance reach (outcome sampling visits no other)
  reached = [
    np.bincount(
      arrays.infoset[(arrays.kind == p) & (reach[1 - p] * reach[2] > 0)], minlength=arrays.players[p].num_infosets
    )
    for p in (0, 1)
  ]
  exact = {}
  for player in (0, 1):
    treeplex = tensors.players[player]
    values = evaluation.sequence_values_for(tensors.payoff, player, plans[1 - player])
    q, v = evaluation.counterfactual_values(treeplex, values, profile[player])
    regret = np.asarray(jnp.where(treeplex.legal, q - v[:, None], 0))
    own_plan = np.asarray(plans[player])[np.asarray(treeplex.parent_seq)]
    sampling = list(profile)
    legal = arrays.players[player].legal
    sampling[player] = EPSILON * legal / legal.sum(-1, keepdims=True) + (1 - EPSILON) * np.asarray(profile[player])
    opponent_reach = reach[1 - player] * reach[2]
    at_player = arrays.kind == player
    chance_at = np.bincount(
      arrays.infoset[at_player], weights=reach[2][at_player], minlength=arrays.players[player].num_infosets
    )
    exact.update(
      {
        f"os_regret{player}": regret,
        f"es_regret{player}": regret,
        f"cs_regret{player}": regret,
        # stochastically-weighted averaging: E = pi_i(I) sigma(I, .) |{h in I reached by -i, c}|
        f"os_average{player}": (reached[player] * own_plan)[:, None] * np.asarray(profile[player]),
        # simple averaging's visit count: E = pi_i(J) sum_{h in J} pi_c(h)
        f"es_visits{player}": own_plan * chance_at,
        f"os_nodes{player}": helpers.history_reach(arrays, sampling).prod(0).sum(),
        f"es_nodes{player}": opponent_reach.sum(),
        f"cs_nodes{player}": reach[2].sum(),
      }
    )
  return exact


@pytest.mark.parametrize(
  "name,draws,min_nonzero,coverage",
  [
    ("kuhn_poker", 20000, 0, {"os": 0.9, "es": 0.9, "cs": 0.9}),
    ("leduc_poker", 6000, 100, {"os": 0.005, "es": 0.015, "cs": 0.4}),
  ],
)
def test_sampled_estimates_are_unbiased(name, draws, min_nonzero, coverage):
  """Means over many draws of each sampler's regret (and of the averaging weights and
  nodes touched) match the exact values within a z bound from the sample standard error.
  On Leduc, entries with few nonzero draws (rarely sampled infosets, where the normal
  approximation fails) are left out; the rest must still cover most of the table."""
  game = helpers.load(name)
  profile = helpers.as_jax(helpers.random_profile(game.arrays, seed=7, zeros=0.1))
  moments_fn = _moments_fn(name)
  chunk = min(draws, 10000 if name == "kuhn_poker" else 3000)
  totals = None
  for start in range(0, draws, chunk):
    keys = jax.vmap(lambda s: jax.random.key_data(jax.random.key(s)))(jnp.arange(start, start + chunk))
    part = jax.device_get(moments_fn(profile, keys))
    totals = part if totals is None else {k: tuple(a + b for a, b in zip(totals[k], part[k])) for k in part}
  exact = _exact(game, profile)
  checked = {}
  for key, (total, squares, nonzero) in totals.items():
    mean = total / draws
    variance = np.maximum(squares / draws - mean**2, 0) * draws / (draws - 1)
    se = np.sqrt(variance / draws)
    expected = np.broadcast_to(exact[key], mean.shape)
    random = se > 1e-12 * (1 + np.abs(expected))
    # deterministic entries (never sampled or constant) must be exact
    np.testing.assert_allclose(
      mean[~random & (nonzero >= min_nonzero)],
      expected[~random & (nonzero >= min_nonzero)],
      rtol=1e-9,
      atol=1e-9,
      err_msg=key,
    )
    tested = random & (nonzero >= max(min_nonzero, 1))
    z = np.abs(mean - expected)[tested] / se[tested]
    checked[key] = (z, tested.mean())
  bound = _z_bound(sum(z.size for z, _ in checked.values()))
  worst = {k: float(z.max()) for k, (z, _) in checked.items() if z.size}
  assert max(worst.values()) < bound, (bound, worst)
  for sampler, fraction in coverage.items():  # the z-tests are not vacuous
    for player in (0, 1):
      assert checked[f"{sampler}_regret{player}"][1] > fraction, (
        sampler,
        player,
        checked[f"{sampler}_regret{player}"][1],
      )


def test_exploring_both_players_keeps_outcome_sampling_unbiased():
  """With ``exploring="both"`` the opponent samples epsilon-greedily as well (its sampling
  probabilities differ from its strategy's on the paths); the regret estimates stay unbiased,
  and the averaging weights' expectation counts every history of an infoset that chance
  reaches (the opponent's exploration reaches them all)."""
  game = helpers.load("kuhn_poker")
  tensors, arrays = game.tensors, game.arrays
  profile = helpers.as_jax(helpers.random_profile(arrays, seed=7, zeros=0.1))
  draws = 20000

  @jax.jit
  def moments(keys):
    def draw(key):
      out = {}
      for player in (0, 1):
        paths = outcome_sampling.sample_trajectories(
          tensors, profile, key, 1, player=player, epsilon=EPSILON, exploring="both"
        )
        estimate = outcome_sampling.outcome_sampling_estimate(tensors, profile, paths, player=player)
        opponent = (tensors.tree.kind[paths.nodes[0, :-1]] == 1 - player) & (paths.policy_prob[0] < 1)
        out[f"regret{player}"] = estimate.regret
        out[f"average{player}"] = estimate.average
        out[f"explored{player}"] = jnp.any(opponent & (paths.sample_prob[0] != paths.policy_prob[0]))
      return out

    values = jax.vmap(draw)(keys)
    return {
      k: (v.astype(jnp.float64).mean(0), v.astype(jnp.float64).std(0) / np.sqrt(draws)) for k, v in values.items()
    }

  keys = jax.vmap(lambda s: jax.random.key_data(jax.random.key(s)))(jnp.arange(draws))
  got = jax.device_get(moments(keys))
  plans = evaluation.plans(tensors, profile)
  chance_reach = helpers.history_reach(arrays, profile)[2]
  z = []
  for player in (0, 1):
    assert got[f"explored{player}"][0] > 0.1  # the opponent explores on many paths
    treeplex = tensors.players[player]
    values = evaluation.sequence_values_for(tensors.payoff, player, plans[1 - player])
    q, v = evaluation.counterfactual_values(treeplex, values, profile[player])
    regret = np.asarray(jnp.where(treeplex.legal, q - v[:, None], 0))
    histories = np.bincount(
      arrays.infoset[(arrays.kind == player) & (chance_reach > 0)], minlength=arrays.players[player].num_infosets
    )
    own_plan = np.asarray(plans[player])[np.asarray(treeplex.parent_seq)]
    average = (histories * own_plan)[:, None] * np.asarray(profile[player])
    for key, exact in ((f"regret{player}", regret), (f"average{player}", average)):
      mean, se = got[key]
      random = se > 1e-12
      np.testing.assert_allclose(mean[~random], exact[~random], atol=1e-9, err_msg=key)
      z.append(np.abs(mean - exact)[random] / se[random])
  z = np.concatenate(z)
  assert z.size > 20 and z.max() < _z_bound(z.size), (z.size, z.max())


@pytest.mark.parametrize("name,chance_width", [("leduc_poker", 6), ("goofspiel(num_cards=3)", 0)])
def test_sampled_trajectories_reach_terminals_with_their_probabilities(name, chance_width):
  """Leduc's walk draws chance from windows of six; goofspiel's has no chance node and no chance reads."""
  game = helpers.load(name)
  assert max(game.tensors.tree.statics.level_chance_width) == chance_width
  profile = helpers.as_jax(helpers.random_profile(game.arrays, seed=3))
  key = jax.random.key_data(jax.random.key(11))
  paths = jax.jit(functools.partial(outcome_sampling.sample_trajectories, num=3000, player=1, epsilon=EPSILON))(
    game.tensors, profile, key
  )
  assert (np.asarray(game.arrays.kind)[np.asarray(paths.nodes[:, -1])] == 3).all()  # all reach terminals
  reach = helpers.history_reach(game.arrays, profile)
  terminal = np.asarray(paths.nodes[:, -1])
  np.testing.assert_allclose(np.asarray(paths.policy_prob.prod(1)), reach.prod(0)[terminal], rtol=1e-12)


def _brute_force_capacity(arrays, expanded):
  """The most histories per depth over every choice of one child at each non-expanded node,
  by enumerating the choices (tiny games only)."""
  import itertools  # pylint: disable=import-outside-toplevel

  choosers = [h for h in range(arrays.num_histories) if arrays.kind[h] != 3 and arrays.kind[h] not in expanded]
  depth = np.repeat(np.arange(len(arrays.depth_offsets) - 1), np.diff(arrays.depth_offsets))
  best = np.zeros(len(arrays.depth_offsets) - 1, int)
  for choice in itertools.product(*[range(arrays.num_children[h]) for h in choosers]):
    pick = dict(zip(choosers, choice))
    reached = np.zeros(arrays.num_histories, bool)
    reached[0] = True
    for h in range(1, arrays.num_histories):
      p = arrays.parent[h]
      reached[h] = reached[p] and (p not in pick or arrays.action_index[h] == pick[p])
    best = np.maximum(best, np.bincount(depth[reached], minlength=len(best)))
  return tuple(int(b) for b in best)


def test_frontier_capacity_is_the_exact_worst_case():
  """On a small game the capacities equal a brute force over every choice of sampled
  children; on Leduc they stay below the distinct own sequences (or sequence pairs) per
  depth, the bound that perfect recall gives."""
  game = helpers.load("one_card_poker(num_cards=3)")
  statics = game.tensors.tree.statics
  for expanded in ((0,), (1,), (0, 1)):
    assert statics.frontier_capacity(expanded) == _brute_force_capacity(game.arrays, expanded), expanded
  leduc = helpers.load("leduc_poker").arrays
  statics = helpers.load("leduc_poker").tensors.tree.statics
  offsets = leduc.depth_offsets
  for expanded in ((0,), (1,), (0, 1)):
    capacity = statics.frontier_capacity(expanded)
    for d in range(len(offsets) - 1):
      sequences = leduc.sequence[list(expanded), offsets[d] : offsets[d + 1]]
      assert capacity[d] <= len(np.unique(sequences, axis=1).T), (expanded, d)
    assert sum(capacity) < leduc.num_histories / 50


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_frontiers_never_overflow_and_fill_their_capacity(name):
  """Over many draws (random and extreme profiles, the latter forcing every opponent
  action), no frontier exceeds its static capacity, and the largest frontiers seen reach it
  (the capacity is the exact worst case, not a loose bound)."""
  game = helpers.load(name)
  tensors = game.tensors
  keys = jax.vmap(lambda s: jax.random.key_data(jax.random.key(s)))(jnp.arange(4000))
  profiles = [helpers.as_jax(helpers.random_profile(game.arrays, seed=s, pure=s > 0)) for s in range(6)]

  @jax.jit
  def sizes(profile, keys):
    def one(key):
      out = []
      for player in (0, 1):
        es = mccfr.external_sampling_estimate(tensors, profile, key, player=player)
        cs = mccfr.chance_sampling_estimate(tensors, profile, key, player=player)
        out += [(es.frontier_sizes, es.overflow, es.nodes_touched), (cs.frontier_sizes, cs.overflow, cs.nodes_touched)]
      return out

    return jax.vmap(one)(keys)

  seen = [0] * 4
  for profile in profiles:
    for i, (frontier, overflow, touched) in enumerate(sizes(profile, keys)):
      assert not np.asarray(overflow).any()
      np.testing.assert_array_equal(np.asarray(frontier).sum(-1), touched)
      seen[i] = np.maximum(seen[i], np.asarray(frontier).max(0))
  statics = tensors.tree.statics
  for i, expanded in enumerate([(0,), (0, 1), (1,), (0, 1)]):
    capacity = np.array(statics.frontier_capacity(expanded))
    assert (seen[i] <= capacity).all() and (seen[i] == capacity).all(), (i, seen[i], capacity)


# --- batches over seeds ---------------------------------------------------------------------


@pytest.mark.parametrize("algorithm,trajectories", [("mccfr-os", 3), ("mccfr-es", 1), ("cfr-cs", 1)])
def test_batch_over_seeds_equals_runs_alone(algorithm, trajectories):
  seeds = jnp.array([5, 6, 5])
  batched = batched_run(algorithm, "kuhn_poker", 30, trajectories)(seeds)
  for b in range(len(seeds)):
    alone = run_alone(algorithm, "kuhn_poker", 30, seeds[b], trajectories)
    for x, y in zip(jax.tree_util.tree_leaves(alone), jax.tree_util.tree_leaves(take(batched, b))):
      np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12)
  for x, y in zip(jax.tree_util.tree_leaves(take(batched, 0)), jax.tree_util.tree_leaves(take(batched, 2))):
    np.testing.assert_array_equal(x, y)  # the same seed, the same run
  assert not np.array_equal(batched.regrets[0][0], batched.regrets[0][1])
  assert (batched.iteration == 30).all()


def test_row_updates_add_like_a_scatter_one_run_and_batched():
  """``add_rows`` (on a CPU a loop of row updates, no scatter; under ``vmap`` one loop over
  the stacked tables inside ``local_batches()``, else a scatter; for many rows a scatter) equals ``np.add.at`` over the rows inside the table, with repeated rows
  and rows outside ``[0, I)`` (dropped, negative ones too)."""
  rng = np.random.default_rng(0)
  table = rng.normal(size=(5, 3, 4))  # a batch of four [5, 3] tables on the last axis
  index = np.array([[1, 4, 1, 5, -1, 0, 1]] * 4).T + np.array([0, 0, 1, 9])  # [7, 4]
  rows = rng.normal(size=(7, 3, 4))
  expected = table.copy()
  for b in range(4):
    inside = (index[:, b] >= 0) & (index[:, b] < 5)
    np.add.at(expected[..., b], index[inside, b], rows[inside, :, b])
  one = jax.jit(row_updates.add_rows)
  for b in range(4):
    np.testing.assert_allclose(one(table[..., b], index[:, b], rows[..., b]), expected[..., b], rtol=1e-12)
  for local in (False, True):  # the batched scatter; one loop over the stacked tables

    def traced(fn, local=local):
      def inside(*args):
        with row_updates.local_batches() if local else contextlib.nullcontext():
          return fn(*args)

      return jax.jit(inside)

    batched = traced(jax.vmap(row_updates.add_rows, in_axes=-1, out_axes=-1))
    np.testing.assert_allclose(batched(table, index, rows), expected, rtol=1e-12)
    shared_table = traced(jax.vmap(row_updates.add_rows, in_axes=(None, -1, -1), out_axes=-1))
    np.testing.assert_allclose(shared_table(table[..., 0], index, rows)[..., 0], expected[..., 0], rtol=1e-12)
  if jax.default_backend() == "cpu":
    assert " scatter(" not in one.lower(table[..., 0], index[:, 0], rows[..., 0]).compile().as_text()
  many = rng.integers(-3, 53, size=row_updates.ROW_LOOP_ROWS + 1)  # a large update: the scatter
  big_rows, big_table = rng.normal(size=(len(many), 3)), rng.normal(size=(50, 3))
  expected = big_table.copy()
  np.add.at(expected, many[(many >= 0) & (many < 50)], big_rows[(many >= 0) & (many < 50)])
  np.testing.assert_allclose(one(big_table, many, big_rows), expected, rtol=1e-12)


@pytest.mark.parametrize("algorithm", ["mccfr-os", "mccfr-es", "cfr-cs", "mcts"])
def test_a_sampled_run_compiles_into_one_kernel(algorithm):
  """On a CPU a sampled solver's ``run`` of one seed or a batch of seeds on Leduc poker is one kernel (an
  XLA:CPU "small call"): no loop is left for the runtime to step through kernel by kernel
  (see jaxcfr.base.row_updates and jaxcfr.xla_setup)."""
  if jax.default_backend() != "cpu":
    pytest.skip("an XLA:CPU property")
  s = solver(algorithm)
  tensors = helpers.load("leduc_poker").tensors
  # one run, and for outcome sampling a batch of four seeds (its few rows per run are one loop
  # over the stacked tables; the others' batches scatter: row_updates.add_rows)
  for seed in (0, np.arange(4)) if algorithm == "mccfr-os" else (0,):
    state = s.init(tensors, seed=seed)
    compiled = jax.jit(s.run).lower(tensors, state, 10).compile().as_text()
    entry = compiled[compiled.index("\nENTRY") :]
    assert " while(" not in entry and entry.count('xla_cpu_small_call="true"') == 1


@pytest.mark.parametrize("name", ["kuhn_poker", "goofspiel(num_cards=3)"])  # a chance root, a player's root
def test_nodes_touched_of_cfr_with_and_without_pruning(name):
  """A pruned CFR pass visits exactly the histories the opponent reaches (brute force), counted
  over histories and in sequence form."""
  game = helpers.load(name)
  profile = helpers.random_profile(game.arrays, seed=1, zeros=0.5)
  reach = helpers.history_reach(game.arrays, profile)
  count = jax.jit(mccfr.cfr_nodes_touched, static_argnames=("player", "pruning"))
  for player in (0, 1):
    pruned = count(game.tensors, jnp.asarray(profile[1 - player]), player=player, pruning=True)
    assert int(pruned) == int((reach[1 - player] > 0).sum()) < game.arrays.num_histories
    per_sequence = mccfr.histories_per_sequence(game.arrays, 1 - player)
    assert per_sequence.sum() == game.arrays.num_histories
    by_sequence = count(
      game.tensors,
      jnp.asarray(profile[1 - player]),
      player=player,
      pruning=True,
      histories_per_sequence=jnp.asarray(per_sequence),
    )
    assert int(by_sequence) == int(pruned)
    full = count(game.tensors, jnp.asarray(profile[1 - player]), player=player, pruning=False)
    assert int(full) == game.arrays.num_histories
  history_reach = jax.jit(sampling.history_reach, static_argnames="player")
  np.testing.assert_allclose(history_reach(game.tensors.tree, jnp.asarray(profile[0]), player=0), reach[0])


# --- convergence next to OpenSpiel ----------------------------------------------------------

# Average exploitability over the seeds, ours within this factor of OpenSpiel's (both ways).
FACTOR = 1.5


def _openspiel_exploitability(algorithm, name, iterations, seeds):
  game = pyspiel.load_game(name)
  values = []
  for seed in seeds:
    if algorithm == "mccfr-os":
      reference = pyspiel.OutcomeSamplingMCCFRSolver(game, EPSILON, seed)
    else:
      reference = pyspiel.ExternalSamplingMCCFRSolver(game, seed)
    for _ in range(iterations):
      reference.run_iteration()
    values.append(pyspiel.exploitability(game, reference.average_policy()))
  return float(np.mean(values))


@pytest.mark.parametrize(
  "algorithm,name,iterations,num_seeds",
  [
    ("mccfr-os", "kuhn_poker", 10000, 8),
    ("mccfr-es", "kuhn_poker", 1000, 8),
    ("mccfr-os", "leduc_poker", 20000, 4),
    ("mccfr-es", "leduc_poker", 1000, 4),
  ],
)
def test_convergence_comparable_to_openspiel(algorithm, name, iterations, num_seeds):
  """One of our iterations is one of OpenSpiel's ``run_iteration`` calls (player 0's update,
  then player 1's; K = 1 for outcome sampling, epsilon = 0.6)."""
  states = batched_run(algorithm, name, iterations)(jnp.arange(num_seeds))
  ours = float(np.mean(batched_exploitability(algorithm, name)(states)))
  theirs = _openspiel_exploitability(algorithm, name, iterations, range(num_seeds))
  assert theirs / FACTOR < ours < theirs * FACTOR, (ours, theirs)


def test_chance_sampling_and_optimistic_averaging_converge_on_kuhn():
  seeds = jnp.arange(4)
  for algorithm, averaging, iterations, bound in (
    ("cfr-cs", "stochastic", 1000, 0.05),
    ("mccfr-os", "optimistic", 10000, 0.06),
  ):
    states = batched_run(algorithm, "kuhn_poker", iterations, 1, averaging)(seeds)
    values = batched_exploitability(algorithm, "kuhn_poker")(states)  # the same average rule
    assert float(np.mean(values)) < bound, (algorithm, averaging, values)


@pytest.mark.parametrize("trajectories", [1, 30])  # regret matching per visited row, and on the whole tables
def test_simultaneous_outcome_sampling_updates_both_players_from_one_walk(trajectories):
  """``updates="simultaneous"``: one walk (epsilon-greedy at both players' infosets) updates
  player 0 and then player 1, each against the profile the walk was sampled with (not player
  0's new regrets), and its nodes count once; the same as the two updates written out."""
  tensors = helpers.load("kuhn_poker").tensors
  simultaneous = solvers.get("mccfr-os", trajectories=trajectories, exploring="both", updates="simultaneous")
  state = simultaneous.run(tensors, simultaneous.init(tensors, seed=3), 5)  # regrets no longer zero
  got = jax.jit(simultaneous.step)(tensors, state)

  profile = mccfr.current_strategy(tensors, state)
  key = sampling.split_key(state.key, 3)[1]
  paths = outcome_sampling.sample_trajectories(
    tensors, profile, key, trajectories, player=0, epsilon=EPSILON, exploring="both"
  )
  want = state
  for player in (0, 1):
    want, _ = outcome_sampling.outcome_sampling_update(tensors, want, paths, player=player, strategies=profile)
  for player in (0, 1):
    np.testing.assert_allclose(got.regrets[player], want.regrets[player], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got.average[player], want.average[player], rtol=1e-6, atol=1e-6)
    assert np.abs(np.asarray(got.average[player] - state.average[player])).max() > 0  # both players updated
  path_nodes = int((np.asarray(tensors.tree.kind)[np.asarray(paths.nodes[:, :-1])] != 3).sum()) + trajectories
  assert mccfr.nodes_touched(got) - mccfr.nodes_touched(state) == path_nodes
  assert int(got.iteration) == int(state.iteration) + 1


def test_simultaneous_outcome_sampling_converges_on_kuhn_and_needs_both_players_exploring():
  solver_ = solvers.get("mccfr-os", exploring="both", updates="simultaneous")
  tensors = helpers.load("kuhn_poker").tensors
  states = jax.jit(lambda s: solver_.run(tensors, s, 10000))(solver_.init(tensors, seed=jnp.arange(4)))
  values = evaluation.exploitability(tensors, solver_.average_strategy(tensors, states))
  assert float(np.mean(values)) < 0.06, values
  with pytest.raises(ValueError, match="pass exploring=both"):
    solvers.get("mccfr-os", updates="simultaneous")
  with pytest.raises(ValueError, match="pass exploring=both"):
    outcome_sampling.outcome_step(
      tensors, solver_.init(tensors), trajectories=1, averaging="stochastic", updates="simultaneous"
    )


# --- driver and command line ----------------------------------------------------------------


def test_driver_runs_seeds_as_a_batch():
  kuhn = helpers.load("kuhn_poker")
  result = driver.solve(kuhn, "mccfr-es", 40, eval_every=20, batch={"seed": [1, 2]})
  assert result.batch_size == 2 and [row["iteration"] for row in result.history] == [20, 40]
  counts = [row["nodes_touched"] for row in result.history]
  assert all(0 < a < b for a, b in zip(counts[0], counts[1]))
  alone = driver.solve(kuhn, "mccfr-es", 40, eval_every=20, seed=2)
  assert result.summary()["exploitability"][1] == pytest.approx(alone.summary()["exploitability"], rel=1e-12)
  assert result.summary()["results"][1]["seed"] == 2
  assert alone.summary()["nodes_touched"] == counts[1][1]
  with pytest.raises(ValueError, match="solver .mccfr-os. has no setting alpha"):
    driver.solve(kuhn, "mccfr-os", 10, alpha=1.0)
  with pytest.raises(ValueError, match="pass exploring=both"):  # one walk updates both players
    driver.solve(kuhn, "mccfr-os", 10, updates="simultaneous")


def test_sampled_resume_equals_uninterrupted_run(tmp_path):
  kuhn = helpers.load("kuhn_poker")
  path = tmp_path / "run.npz"
  straight = driver.solve(kuhn, "mccfr-es", 40, eval_every=20, seed=2)
  driver.solve(kuhn, "mccfr-es", 20, eval_every=20, seed=2, checkpoint=path)
  resumed = driver.solve(kuhn, "mccfr-es", 40, eval_every=20, seed=2, checkpoint=path, resume=True)
  for a, b in zip(jax.tree_util.tree_leaves(straight.state), jax.tree_util.tree_leaves(resumed.state)):
    np.testing.assert_array_equal(a, b)  # the PRNG key is part of the state
  assert resumed.history[-1]["nodes_touched"] == straight.history[-1]["nodes_touched"]
  with pytest.raises(ValueError, match="another run"):
    driver.solve(kuhn, "mccfr-es", 60, eval_every=20, seed=3, checkpoint=path, resume=True)


def test_cli_solve_sampled_batch_writes_one_result_per_seed(tmp_path, capsys):
  out = tmp_path / "r.json"
  assert (
    cli.main(
      [
        "solve",
        "kuhn_poker",
        "--algo",
        "mccfr-os",
        "--iters",
        "50",
        "--seed",
        "3",
        "--batch",
        "2",
        "--trajectories",
        "2",
        "--epsilon",
        "0.5",
        "--json",
        str(out),
        "--no-progress",
        "--dtype",
        "float64",
      ]
    )
    == 0
  )
  record = json.loads(out.read_text())
  assert record["algo"] == "mccfr-os" and record["batch_size"] == 2
  assert [r["seed"] for r in record["results"]] == [3, 4]
  assert record["options"]["trajectories"] == 2 and record["hyperparameters"]["epsilon"] == [0.5, 0.5]
  s = solvers.get("mccfr-os", trajectories=2)
  tensors = helpers.load("kuhn_poker").tensors
  for r in record["results"]:  # each run of the batch is the run of its seed alone
    alone = s.run(tensors, s.init(tensors, seed=r["seed"], epsilon=0.5), 50)
    assert r["nodes_touched"] == int(mccfr_state.nodes_touched(alone))
    assert r["exploitability"] == pytest.approx(
      float(helpers.exploitability(tensors, s.average_strategy(tensors, alone))), rel=1e-12
    )
  assert "nodes_touched" in capsys.readouterr().out
  assert cli.main(["solve", "kuhn_poker", "--algo", "cfr+", "--batch", "2"]) == 2
  assert "--algo cfr+ draws no random numbers" in capsys.readouterr().err


def test_bad_sampled_options_raise():
  with pytest.raises(ValueError, match="unknown solver"):
    solvers.get("mccfr-xs")
  with pytest.raises(ValueError, match="trajectories"):
    solvers.get("mccfr-os", trajectories=0)
  with pytest.raises(ValueError, match="averaging"):
    solvers.get("mccfr-os", averaging="linear")


@pytest.mark.parametrize("width,search", [(5, False), (300, False), (300, True)])
def test_chance_choice_inverts_the_cdf_of_each_window(width, search):
  """Chance outcomes are drawn from windows of ``chance_prob`` (the short fused prefix sum,
  or for wide rows the block-then-outcome search), also where the window is clamped at the
  end of the array: uniforms on a fine grid give each child its probability."""
  rng = np.random.default_rng(width)
  probs = rng.random(3 * width + 5)
  # (first, count), disjoint; the last window runs past the end of the array and is clamped
  nodes = [(0, width), (width + 1, width - 2), (2 * width, width), (3 * width + 2, 3)]
  for first, count in nodes:
    probs[first : first + count] /= probs[first : first + count].sum()
  cdf = np.zeros_like(probs)
  for first, count in nodes:
    cdf[first : first + count] = np.cumsum(probs[first : first + count])
  grid = 20000
  u = (np.arange(grid) + 0.5) / grid
  for first, count in nodes:
    drawn = jax.jit(sampling.chance_outcome, static_argnums=4)(
      jnp.asarray(probs),
      jnp.full((grid,), first),
      jnp.full((grid,), count),
      jnp.asarray(u),
      width,
      jnp.asarray(cdf) if search else None,
    )
    frequency = np.bincount(np.asarray(drawn), minlength=count) / grid
    assert frequency.shape == (count,)
    np.testing.assert_allclose(frequency, probs[first : first + count], atol=1.5 / grid)


def test_sibling_cdf_accumulates_each_chance_node():
  """One-card poker with 40 cards deals 40 then 39 outcomes (wider than SEARCH_WIDTH): each
  chance node's children carry the running sum of their probabilities, every other history
  0, computed on the host or traced alike; narrow games have none."""
  tree = helpers.load("one_card_poker(num_cards=40)").tensors.tree
  prob = np.asarray(tree.chance_prob)
  first, count, kind = map(np.asarray, (tree.first_child, tree.num_children, tree.kind))
  expected = np.zeros_like(prob)
  for node in np.flatnonzero(kind == CHANCE_NODE):
    expected[first[node] : first[node] + count[node]] = np.cumsum(prob[first[node] : first[node] + count[node]])
  np.testing.assert_allclose(sampling.sibling_cdf(tree), expected, rtol=1e-12, atol=0)
  traced = jax.jit(lambda p: sampling.sibling_cdf(dataclasses.replace(tree, chance_prob=p)))(tree.chance_prob)
  np.testing.assert_allclose(traced, expected, rtol=1e-12, atol=0)
  assert sampling.sibling_cdf(helpers.load("kuhn_poker").tensors.tree) is None


@pytest.mark.parametrize("shape", [(5,), (4, 1), (4, 2), (40, 7), (3, 40), (2, 200)])
def test_prefix_sums_match_numpy_on_every_path(shape):
  """Each way ``prefix_sum`` computes (written-out columns, fused reduce, cumsum) sums
  the same, inclusive and exclusive."""
  x = np.random.default_rng(0).random(shape)
  for exclusive in (False, True):
    expected = np.cumsum(x, -1) - (x if exclusive else 0)
    np.testing.assert_allclose(sampling.prefix_sum(jnp.asarray(x), exclusive), expected, rtol=1e-12)


@pytest.mark.parametrize("shape,axis", [((5,), -1), ((40, 7), -1), ((7, 40), 0), ((2, 3), 0), ((1,), 0)])
def test_exclusive_prefix_products_match_numpy(shape, axis):
  x = np.random.default_rng(1).random(shape) + 0.5
  moved = np.moveaxis(x, axis, -1)
  expected = np.concatenate([np.ones_like(moved[..., :1]), np.cumprod(moved, -1)[..., :-1]], -1)
  np.testing.assert_allclose(
    sampling.exclusive_prefix_product(jnp.asarray(x), axis), np.moveaxis(expected, -1, axis), rtol=1e-12
  )
