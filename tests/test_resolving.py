"""Depth-limited lookaheads, their leaf values, re-solving with the CFR-D gadget and the
continual re-solving agent (jaxcfr.solvers.lookahead, jaxcfr.solvers.resolving) on
no-limit Leduc in DeepStack-Leduc's betting (ante 100, pot-sized raises and all-in), with
stacks of 300 (89 public nodes) or 500 chips (317)."""

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxcfr.kits.public_tree import values as ops
from jaxcfr.kits import public_tree as public_tree
from jaxcfr.games import no_limit_leduc_poker, poker_rules
from jaxcfr.solvers import cfr, lookahead, resolving


@functools.cache
def _game(stack: int):
  rules = no_limit_leduc_poker.NoLimitLeducPoker(betting="deepstack", stack=stack, ante=100).public_tree_rules()
  whole = public_tree.build(rules)
  return rules, whole, public_tree.to_device(whole)


@functools.cache
def _equilibrium(stack: int, iterations: int = 4000):
  _, _, tensors = _game(stack)
  state = cfr.init(tensors, **cfr.preset_hyperparameters("cfr+"))
  state = cfr.run(tensors, state, iterations, cfr.preset_step("cfr+"))
  return cfr.average_strategy(tensors, state)


def _rows(whole, sub, start, player):
  """The rows of ``whole``'s strategy of ``player`` at ``sub``'s decision nodes of ``player``."""
  row = {int(n): i for i, n in enumerate(whole.decision_nodes(player))}
  at = public_tree.embedding(whole, sub, start)
  return np.array([row[int(at[n])] for n in sub.decision_nodes(player)], np.int64)


def _restrict(whole, profile, sub, start=0):
  width = sub.action_ids.shape[1]
  return tuple(profile[p][_rows(whole, sub, start, p), :width] for p in (0, 1))


def test_lookahead_stops_at_the_next_round():
  rules, whole, _ = _game(500)
  tree = lookahead.build(rules)
  leaves = np.flatnonzero(tree.kind == poker_rules.LEAF)
  assert len(leaves) and np.all(tree.round[leaves] == 1) and np.all(tree.num_children[leaves] == 0)
  assert all(len(tree.board_cards(n)) == 1 for n in leaves)  # after the deal: a leaf knows its board
  assert not np.any((tree.kind == poker_rules.DECISION) & (tree.round > 0))
  at = public_tree.embedding(whole, tree)
  assert np.all(whole.kind[at[leaves]] == poker_rules.DECISION)
  assert np.all(whole.contribution[at] == tree.contribution) and np.all(whole.board[at] == tree.board)
  assert all(whole.find(tree.path(n)) == at[n] for n in range(tree.num_nodes))
  assert public_tree.build(poker_rules.Subgame(rules, rounds=2)).num_nodes == whole.num_nodes
  with pytest.raises(ValueError, match="rounds must be"):
    poker_rules.Subgame(rules, rounds=0)
  deepstack = _game(1200)[0]  # DeepStack-Leduc's game (docs/resolving.md)
  first = lookahead.build(deepstack)
  assert (first.num_nodes, int(np.sum(first.kind == poker_rules.LEAF))) == (101, 30)


def test_leaf_values_are_required_exactly_on_depth_limited_trees():
  rules, _, whole = _game(300)
  tensors = public_tree.to_device(lookahead.build(rules))
  profile = ops.uniform_profile(tensors)
  opponent = ops.ranges(tensors, 1, profile[1])
  with pytest.raises(ValueError, match="depth-limit leaves: pass leaf_values"):
    ops.counterfactual_values(tensors, 0, profile[0], opponent)
  with pytest.raises(ValueError, match="no depth-limit leaves"):
    ops.counterfactual_values(whole, 0, None, ops.ranges(whole, 1, ops.uniform_strategy(whole, 1)), leaf_values=0.0)
  state = cfr.init(tensors)
  with pytest.raises(ValueError, match="give a leaf_fn"):
    cfr.step(tensors, state)


def _fixed_below(rules, whole, tree, profile):
  """The LeafValueFn of ``tree`` whose values are those of ``profile`` (of the whole game)
  below each leaf: linear in the ranges, so the lookahead's values must equal the whole
  tree's. Being linear, each leaf's values are a matrix [H, H] per player (the values of
  each hand against each of the opponent's hands alone), found once from the unit ranges,
  so that the solves compile one product instead of every leaf's subgame."""
  matrices = []  # [L][2] of [H, H']
  for leaf in np.flatnonzero(tree.kind == poker_rules.LEAF):
    host = lookahead.build(rules, tree.states[leaf], rounds=None)
    below, sub = _restrict(whole, profile, host, public_tree.embedding(whole, tree)[leaf]), public_tree.to_device(host)
    units = jnp.eye(sub.num_hands, dtype=sub.dtype)  # [H', B = H']: the opponent holds hand b
    batched = [jnp.broadcast_to(b[..., None], b.shape + (sub.num_hands,)) for b in below]
    matrices.append(
      [ops.counterfactual_values(sub, p, batched[p], ops.ranges(sub, 1 - p, batched[1 - p], units))[0] for p in (0, 1)]
    )
  matrices = jnp.asarray(matrices).swapaxes(0, 1)  # [2, L, H, H']

  def leaf_fn(_, ranges):  # ranges [2, L, H, *B] -> values [2, L, H, *B]
    return jnp.einsum("plhg,plg...->plh...", matrices, ranges[::-1], precision=jax.lax.Precision.HIGHEST)

  return leaf_fn


def _random_profile(whole, seed: int) -> tuple:
  """A random profile ([N_p, A, H] per player, six hands) on the whole tree's legal actions."""
  rng = np.random.default_rng(seed)
  profile = tuple(
    jnp.asarray(rng.dirichlet(np.ones(whole.legal[p].shape[1]), size=(whole.legal[p].shape[0], 6)).transpose(0, 2, 1))
    * whole.legal[p][:, :, None]
    for p in (0, 1)
  )
  return tuple(x / x.sum(1, keepdims=True) for x in profile)


def test_lookahead_values_equal_the_whole_trees_with_the_same_strategies_below():
  rules, whole_host, whole = _game(500)
  tree = lookahead.build(rules)
  tensors = public_tree.to_device(tree)
  profile = _random_profile(whole, seed=3)
  leaf_fn = _fixed_below(rules, whole_host, tree, profile)
  mine = _restrict(whole_host, profile, tree)
  at = public_tree.embedding(whole_host, tree)
  reach = [ops.ranges(tensors, p, mine[p]) for p in (0, 1)]
  leaves = public_tree.leaf_values(tensors, leaf_fn, reach)
  for p in (0, 1):
    expected = ops.counterfactual_values(whole, p, profile[p], ops.ranges(whole, 1 - p, profile[1 - p]))
    got = ops.counterfactual_values(tensors, p, mine[p], reach[1 - p], leaf_values=leaves[p])
    np.testing.assert_allclose(got, expected[at], rtol=0, atol=1e-10)
    np.testing.assert_allclose(reach[p], ops.ranges(whole, p, profile[p])[at], rtol=0, atol=1e-15)


def test_exact_leaf_values_scale_with_the_ranges_and_survive_empty_ranges():
  rules, _, _ = _game(500)
  tree = lookahead.build(rules)
  leaf = int(np.flatnonzero(tree.kind == poker_rules.LEAF)[0])
  sub = public_tree.to_device(lookahead.build(rules, tree.states[leaf], rounds=None))
  solve = jax.jit(functools.partial(lookahead.solve_ranges, iterations=300))
  ranges = jnp.asarray(np.random.default_rng(0).random((2, 6)))
  values = solve(sub, ranges)
  scaled = solve(sub, ranges * jnp.array([[3.0], [0.5]]))
  np.testing.assert_allclose(scaled, values * jnp.array([[0.5], [3.0]]), rtol=1e-9, atol=1e-9)
  # a player without weight: the opponent's values are zero, its own stay finite and real
  empty = solve(sub, ranges.at[1].set(0.0))
  assert np.all(empty[0] == 0) and np.all(np.isfinite(empty[1])) and np.any(empty[1] != 0)
  # batched ranges equal each alone
  batch = jnp.stack([ranges, ranges[::-1]], -1)
  np.testing.assert_allclose(solve(sub, batch)[..., 1], solve(sub, ranges[::-1]), atol=1e-12)


def test_exact_leaf_values_at_the_equilibrium_ranges_are_the_equilibriums():
  rules, whole_host, whole = _game(500)
  profile = _equilibrium(500)
  tree = lookahead.build(rules)
  tensors = public_tree.to_device(tree)
  mine = _restrict(whole_host, profile, tree)
  reach = [ops.ranges(tensors, p, mine[p]) for p in (0, 1)]
  leaf_fn = lookahead.exact_leaf_values(tree, iterations=2000)
  leaves = jax.jit(public_tree.leaf_values, static_argnums=1)(tensors, leaf_fn, reach)
  at = public_tree.embedding(whole_host, tree)[tensors.leaf_nodes]
  for p in (0, 1):
    expected = ops.counterfactual_values(whole, p, profile[p], ops.ranges(whole, 1 - p, profile[1 - p]))[at]
    held = reach[p][tensors.leaf_nodes] > 1e-3  # a hand's value is unique where it is held
    np.testing.assert_allclose(np.where(held, leaves[p], 0), np.where(held, expected, 0), atol=0.05)
  # and the lookahead with them values the game as the whole tree does
  value = ops.root_value(tensors, 0, ops.counterfactual_values(tensors, 0, mine[0], reach[1], leaf_values=leaves[0]))
  assert abs(float(value) - float(ops.expected_value(whole, profile))) < 0.05


def test_resolving_keeps_the_opponents_values_within_the_bounds():
  rules, whole_host, whole = _game(500)
  profile = _equilibrium(500)
  equilibrium = float(ops.exploitability(whole, profile))
  for node in (int(whole_host.find((1, 1, 0))), int(whole_host.find((1, 1, 0, 1)))):  # round two, each player
    player = int(whole_host.player[node])
    reach = ops.ranges(whole, player, profile[player])[node]
    bounds = ops.counterfactual_values(whole, 1 - player, None, ops.ranges(whole, player, profile[player]))[node]
    sub = lookahead.build(rules, whole_host.states[node], rounds=None)
    tensors = public_tree.to_device(sub)
    out = resolving.resolve(tensors, reach, bounds, player=player, iterations=2000)
    best = ops.counterfactual_values(tensors, 1 - player, None, ops.ranges(tensors, player, out.strategy, reach))[0]
    assert np.all(best <= bounds + 0.1), best - bounds  # 0.1 chips of a 200-chip pot
    np.testing.assert_allclose(out.opponent_values[0], bounds, atol=0.2)
    spliced = list(profile)
    spliced[player] = (
      profile[player].at[_rows(whole_host, sub, node, player), : out.strategy.shape[1]].set(out.strategy)
    )
    assert float(ops.exploitability(whole, tuple(spliced))) <= equilibrium + 0.02
  safe = resolving.resolve(tensors, reach, bounds, player=player, iterations=2000, carry="best_response")
  np.testing.assert_array_equal(safe.strategy, out.strategy)  # the same solve, other values handed on
  np.testing.assert_allclose(safe.opponent_values[0], best, rtol=1e-12, atol=1e-9)


def test_final_leaves_carry_is_the_leaf_function_at_the_average_ranges():
  rules, whole_host, whole = _game(300)
  tree = lookahead.build(rules)
  tensors = public_tree.to_device(tree)
  profile = _random_profile(whole, seed=5)
  leaf_fn = _fixed_below(rules, whole_host, tree, profile)  # linear: the opponent's values follow the agent's range
  leaves = np.asarray(tensors.leaf_nodes)
  for player in (0, 1):
    own = whole.initial_range[player]
    bounds = ops.counterfactual_values(whole, 1 - player, None, ops.ranges(whole, player, profile[player]))[0]
    solve = functools.partial(resolving.resolve, tensors, own, bounds, player=player, iterations=50, leaf_fn=leaf_fn)
    averaged, final = solve(), solve(carry="final_leaves")
    np.testing.assert_array_equal(final.strategy, averaged.strategy)  # the same solve, other values handed on
    inner = np.setdiff1d(np.arange(tree.num_nodes), leaves)
    np.testing.assert_array_equal(final.opponent_values[inner], averaged.opponent_values[inner])
    reach = [ops.ranges(tensors, player, final.strategy, own)] * 2  # the opponent's range does not matter here
    expected = public_tree.leaf_values(tensors, leaf_fn, reach)[1 - player]
    np.testing.assert_allclose(final.opponent_values[leaves], expected, rtol=0, atol=1e-10)
    if player == 1:  # the opponent updates first and sees the strategies the average is made of
      np.testing.assert_allclose(final.opponent_values[leaves], averaged.opponent_values[leaves], rtol=0, atol=1e-10)
    assert np.any(np.abs(final.opponent_values[leaves]) > 1)


def test_bad_resolve_settings_are_one_line_errors():
  rules, _, _ = _game(300)
  tree = public_tree.to_device(lookahead.build(rules))
  hands = jnp.ones(tree.num_hands)
  with pytest.raises(ValueError, match="needs a tree without leaves"):
    resolving.resolve(tree, hands, hands, player=0, iterations=1, leaf_fn=lambda t, r: r, carry="best_response")
  with pytest.raises(ValueError, match="carry must be one of averaged, best_response"):
    resolving.resolve(tree, hands, hands, player=0, iterations=1, carry="exact")
  with pytest.raises(ValueError, match="iterations must be >= 1"):
    lookahead.warm_leaf_values(lookahead.build(rules), iterations=0)
  with pytest.raises(ValueError, match=r"gadget must be one of rm\+, rm,"):
    resolving.resolve(tree, hands, hands, player=0, iterations=1, gadget="cfr+")


def test_warm_leaf_values_continue_cfr_on_each_leafs_subgame():
  rules, _, _ = _game(300)
  tree = lookahead.build(rules)
  tensors = public_tree.to_device(tree)
  solver = lookahead.warm_leaf_values(tree, iterations=3)
  state = solver.init(tensors, ())
  ranges = jnp.asarray(np.random.default_rng(1).random((2, tensors.leaf_nodes.shape[0], tensors.num_hands)))
  apply = jax.jit(solver.apply)
  for _ in range(4):
    values, state = apply(tensors, ranges, state)
  # the last leaf's subgame: 12 CFR+ steps from its (unnormalised, board-masked) ranges
  leaf = int(tensors.leaf_nodes[-1])
  sub = public_tree.to_device(lookahead.build(rules, tree.states[leaf], rounds=None))
  valid = sub.valid[sub.board[0]]
  sub = dataclasses.replace(sub, initial_range=ranges[:, -1] * valid)
  alone = cfr.init(sub, **cfr.preset_hyperparameters("cfr+"))
  alone = cfr.run(sub, alone, 12, cfr.preset_step("cfr+"))
  np.testing.assert_allclose(values[:, -1], alone.values[:, 0], rtol=1e-12, atol=1e-12)
  assert np.any(np.abs(values[:, -1]) > 1)


@pytest.mark.parametrize("leaf_values", ["warm", "exact"])
def test_leaf_subgames_one_after_another_equal_side_by_side(leaf_values):
  rules, _, _ = _game(300)
  tree = lookahead.build(rules)
  tensors = public_tree.to_device(tree)
  ranges = jnp.asarray(np.random.default_rng(2).random((2, tensors.leaf_nodes.shape[0], tensors.num_hands, 2)))
  out = []
  for sequential in (False, True):
    if leaf_values == "warm":
      solver = lookahead.warm_leaf_values(tree, iterations=2, sequential=sequential)
      apply, state = jax.jit(solver.apply), solver.init(tensors, (2,))
      for _ in range(3):
        values, state = apply(tensors, ranges, state)
    else:
      values = jax.jit(lookahead.exact_leaf_values(tree, iterations=20, sequential=sequential))(tensors, ranges)
    out.append(values)
  assert out[0].shape == ranges.shape and np.any(np.abs(out[0]) > 1)
  np.testing.assert_allclose(out[1], out[0], rtol=1e-12, atol=1e-12)
  # one after another is a loop over the leaves, side by side none
  loops = []
  for sequential in (False, True):
    fn = lookahead.exact_leaf_values(tree, iterations=1, sequential=sequential)
    loops.append(str(jax.make_jaxpr(fn)(tensors, ranges)).count("scan["))
  assert loops[1] > loops[0]


def test_continual_resolving_with_exact_values_approaches_an_equilibrium():
  rules, _, whole = _game(300)
  agent = functools.partial(resolving.agent_strategy, rules)

  def exploitability(leaf_values_of, iterations):
    profile = tuple(jnp.asarray(agent(p, iterations=iterations, leaf_values_of=leaf_values_of)) for p in (0, 1))
    return float(ops.exploitability(whole, profile))

  warm = functools.partial(lookahead.warm_leaf_values, iterations=1)
  fresh = functools.partial(lookahead.exact_leaf_values, iterations=200)
  warm_300, fresh_300 = exploitability(warm, 300), exploitability(fresh, 300)  # about 20 and 40 s
  uniform = float(ops.exploitability(whole, ops.uniform_profile(whole)))
  assert warm_300 < uniform / 1000, (warm_300, uniform)
  # fresh leaf solves are a function of the ranges alone, and converge more slowly
  assert fresh_300 < uniform / 200 and warm_300 < fresh_300 / 2, (warm_300, fresh_300, uniform)
