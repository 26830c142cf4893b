"""Counterfactual value networks and their data (jaxcfr.solvers.value_network) on no-limit
Leduc in DeepStack-Leduc's betting with stacks of 300 chips: the range generator, the
batched generation of solved situations, the zero-sum correction, training, the units of
the leaf function, and files."""

import functools


import jax.numpy as jnp
import numpy as np
import pytest

from jaxcfr.kits.public_tree import values as ops
from jaxcfr.base import integrity
from jaxcfr.kits import public_tree as public_tree
from jaxcfr.games import no_limit_leduc_poker, poker_rules
from jaxcfr.solvers import lookahead
from jaxcfr.solvers import value_network as vn


@functools.cache
def _rules():
  return no_limit_leduc_poker.NoLimitLeducPoker(betting="deepstack", stack=300, ante=100).public_tree_rules()


@functools.cache
def _data(count: int = 256, seed: int = 0):
  return vn.generate(_rules(), count, iterations=200, seed=seed, batch=64)


def test_random_ranges_split_the_mass_over_hands_sorted_by_strength():
  rng = np.random.default_rng(0)
  valid = np.array([True, True, False, True, True, True])
  order = np.array([5, 2, 0, 3, 1, 4])
  ranges = vn.random_ranges(order, valid, 20000, rng)
  np.testing.assert_allclose(ranges.sum(0), 1.0)
  assert np.all(ranges[2] == 0) and np.all(ranges >= 0)
  # each split is uniform: of five hands, the weakest two hold on average
  # 1/2 (the middle hand goes right: they are the left half) x 1/2
  # + 1/2 (it goes left) x 1/2 x (1/2 x (1/2 + 1/4) + 1/2 x 1/2) = 0.40625
  weakest = [h for h in order if valid[h]][:2]
  assert abs(ranges[weakest].sum(0).mean() - 0.40625) < 0.01
  assert np.std(ranges[valid], axis=1).min() > 0.1
  np.testing.assert_array_equal(
    vn.random_ranges(order, valid, 5, np.random.default_rng(1)),
    vn.random_ranges(order, valid, 5, np.random.default_rng(1)),
  )


def test_generated_situations_are_solved_subgames():
  data = _data()
  starts = vn.round_starts(_rules())
  assert {sum(s.chips) for s in starts} == set(np.unique(data.pot))
  assert np.all(data.board.sum(0) == 1)
  np.testing.assert_allclose(data.ranges.sum(1), 1.0)
  # values per chip of the pot; the two players' values nearly cancel (best responses: >= 0)
  total = (data.ranges * data.values).sum((0, 1))
  assert np.all(total > -1e-9) and np.all(total < 0.01)
  # one situation solved alone gives the same values
  index = 7
  start = next(s for s in starts if sum(s.chips) == data.pot[index] and data.board[s.board[0], index])
  tree = public_tree.to_device(public_tree.build(poker_rules.Subgame(_rules(), start)))
  alone = lookahead.solve_ranges(tree, jnp.asarray(data.ranges[:, :, index]), 200)
  np.testing.assert_allclose(data.values[:, :, index], np.asarray(alone) / data.pot[index], atol=1e-12)
  with pytest.raises(ValueError, match=">= 1"):
    vn.generate(_rules(), 0)


def _which(data) -> np.ndarray:
  """[S] each situation's index among the round starts (by pot and board)."""
  index = {(sum(s.chips), tuple(s.board)): i for i, s in enumerate(vn.round_starts(_rules()))}
  return np.array([index[(int(pot), tuple(np.flatnonzero(board)))] for pot, board in zip(data.pot, data.board.T)])


def test_solve_normalises_any_ranges_and_refuses_bad_input():
  data = _data()
  blocked = data.board.astype(float)[None]  # weight on the hands the board blocks: ignored
  again = vn.solve(_rules(), _which(data), data.ranges, iterations=200, batch=64)
  scaled = vn.solve(_rules(), _which(data), 2 * data.ranges + 5 * blocked, iterations=200, batch=64)
  np.testing.assert_array_equal(scaled.values, again.values)
  np.testing.assert_allclose(again.ranges, data.ranges, atol=1e-15)
  # data.ranges are themselves normalised once more here: CFR+ differs in the last bits' ties
  assert np.abs(again.values - data.values).max() < 0.01
  for which, ranges, message in (
    (_which(data)[:-1], data.ranges, "which must be"),
    (_which(data) + 100, data.ranges, "index the"),
    (_which(data), -data.ranges, ">= 0"),
  ):
    with pytest.raises(ValueError, match=message):
      vn.solve(_rules(), which, ranges)


def test_suit_relabellings_are_solved_situations_too():
  data = _data()
  count = data.pot.shape[0]
  both = vn.with_suit_permutations(_rules(), data)
  assert both.pot.shape == (2 * count,)
  np.testing.assert_array_equal(both.values[..., :count], data.values)
  image = vn.Situations(*(x[..., count:] for x in both))
  assert not np.array_equal(image.board, data.board)
  solved = vn.solve(_rules(), _which(image), image.ranges, iterations=200, batch=64)
  # the same solve up to the order of floating-point sums (CFR+ at 200 iterations)
  assert np.abs(solved.values - image.values).max() < 0.01
  unpermuted = vn.Situations(data.pot, data.board, image.ranges, image.values)  # the board left as it was
  assert (
    np.abs(vn.solve(_rules(), _which(unpermuted), image.ranges, iterations=200, batch=64).values - image.values).max()
    > 0.1
  )


def test_agent_queries_are_the_ranges_at_its_lookaheads_leaves():
  rules = _rules()
  net = vn.init(rules, hidden=(8,), seed=0)
  which, ranges = vn.agent_queries(rules, net, iterations=3, every=1)
  assert ranges.shape == (2, 6, which.shape[0])
  # the first call: the first lookahead's leaves (from the game's root) under uniform strategies
  tree = lookahead.build(rules)
  tensors = public_tree.to_device(tree)
  leaves = np.asarray(tensors.leaf_nodes)
  reach = np.stack([np.asarray(ops.ranges(tensors, p, ops.uniform_strategy(tensors, p)))[leaves] for p in (0, 1)])
  np.testing.assert_allclose(ranges[..., : len(leaves)], reach.transpose(0, 2, 1), atol=1e-15)
  starts = vn.round_starts(rules)
  for leaf, node in enumerate(leaves):
    start = starts[which[leaf]]
    assert sum(start.chips) == tree.contribution[node].sum() and start.board == tuple(tree.board_cards(node))
  assert not np.allclose(ranges[..., -len(leaves) :], ranges[..., : len(leaves)])  # later calls: not uniform
  with pytest.raises(ValueError, match="every"):
    vn.agent_queries(rules, net, iterations=3, every=0)


def test_zero_sum_correction_and_blocked_hands():
  net = vn.init(_rules(), hidden=(8,), seed=1)
  data = _data()
  values = vn.predict(net, jnp.asarray(data.pot), jnp.asarray(data.board), jnp.asarray(data.ranges))
  np.testing.assert_allclose((data.ranges * values).sum((0, 1)), 0.0, atol=1e-12)
  assert np.all(np.where(data.board[None], values, 0) == 0)  # a one-card hand on the board


def test_training_fits_the_solved_values():
  data, held = _data(), _data(64, seed=1)
  net = vn.init(_rules(), hidden=(32, 32), seed=0)
  trained, (losses, validation) = vn.train(net, data, steps=600, batch_size=64, learning_rate=3e-3, validation=held)
  assert losses[-100:].mean() < losses[:10].mean() / 5 and validation[-1] < validation[0]
  again, _ = vn.train(net, data, steps=600, batch_size=64, learning_rate=3e-3)
  np.testing.assert_array_equal(again.weights[0][0], trained.weights[0][0])  # a fixed seed is one result


def test_leaf_function_units():
  rules = _rules()
  tree = lookahead.build(rules)
  tensors = public_tree.to_device(tree)
  net = vn.init(rules, hidden=(8,), seed=2)
  leaves = tensors.leaf_nodes
  reach = [ops.ranges(tensors, p, ops.uniform_strategy(tensors, p)) for p in (0, 1)]
  ranges = jnp.stack([r[leaves] for r in reach])  # [2, L, H]
  got = vn.leaf_fn(net)(tensors, ranges)
  for leaf, node in enumerate(np.asarray(leaves)):
    pot = tree.contribution[node].sum()
    board = np.zeros((rules.num_cards, 1), bool)
    board[list(tree.board_cards(node)), 0] = True
    total = ranges[:, leaf].sum(1)
    per_chip = vn.predict(
      net, jnp.array([pot], float), jnp.asarray(board), (ranges[:, leaf] / total[:, None])[..., None]
    )
    expected = per_chip[..., 0] * pot * total[::-1, None]
    np.testing.assert_allclose(got[:, leaf], expected, rtol=1e-12, atol=1e-12)
  batched = vn.leaf_fn(net)(tensors, jnp.stack([ranges, ranges * 2], -1))
  np.testing.assert_allclose(batched[..., 1], 2 * got, rtol=1e-12)  # values scale with the opponent's weight
  other = vn.init(rules, hidden=(8,), seed=3)
  ensemble = vn.leaf_fn((net, other))(tensors, ranges)  # the mean of the networks' values
  np.testing.assert_allclose(ensemble, (got + vn.leaf_fn(other)(tensors, ranges)) / 2, rtol=1e-12, atol=1e-12)
  bigger = no_limit_leduc_poker.NoLimitLeducPoker(betting="deepstack", stack=600, ante=100).public_tree_rules()
  with pytest.raises(ValueError, match="one game"):
    vn.leaf_fn((net, vn.init(bigger, hidden=(8,))))


def test_files_round_trip_and_refuse_damage(tmp_path):
  net = vn.init(_rules(), hidden=(4, 4), seed=3)
  vn.save(tmp_path / "net.npz", net)
  loaded = vn.load(tmp_path / "net.npz")
  assert loaded.stack == 300 and loaded.num_hands == 6
  for (w, b), (w2, b2) in zip(net.weights, loaded.weights):
    np.testing.assert_array_equal(w, w2)
    np.testing.assert_array_equal(b, b2)
  vn.save_data(tmp_path / "data.npz", _data())
  np.testing.assert_array_equal(vn.load_data(tmp_path / "data.npz").values, _data().values)
  raw = bytearray((tmp_path / "net.npz").read_bytes())
  raw[len(raw) // 2] ^= 0xFF
  (tmp_path / "bad.npz").write_bytes(bytes(raw))
  with pytest.raises(integrity.DamagedFileError):
    vn.load(tmp_path / "bad.npz")
  with pytest.raises(integrity.DamagedFileError, match="not value network data|does not exist|checksum"):
    vn.load_data(tmp_path / "net.npz")
