"""A public tree over only the hands in play (NoLimitRules' ``hands_in_play``): the same game as
the tree over every hand, on the hands either player can hold. Its card-removal tables' holder
lists are padded with a hand out of play; ranges, fold and showdown values, best responses and
CFR's iterates equal the whole tree's on the hands in play (float64); reports, locks and
solution files read the same as over every hand."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxcfr import solvers
from jaxcfr.games import GameError
from jaxcfr.games.hunl_subgame import hunl_subgame
from jaxcfr.games.spots import Spot
from jaxcfr.kits.public_tree import build, to_device
from jaxcfr.kits.public_tree import values as ops
from jaxcfr.poker import locks, queries, solutions


@pytest.fixture(scope="module")
def trees():
  """(every hand, hands in play) trees of the fourth Libratus endgame (a river)."""
  whole = build(hunl_subgame(endgame=4).public_tree_rules())
  in_play = build(hunl_subgame(endgame=4, hands="in_play").public_tree_rules())
  return whole, in_play


def test_the_tree_holds_the_hands_in_either_range_and_one_padding_hand(trees):
  whole, in_play = trees
  weighted = (whole.initial_range > 0).any(0)
  rows = in_play.deck_rows
  assert in_play.num_hands == weighted.sum() + 1 < whole.num_hands
  assert weighted[rows].sum() == weighted.sum() and np.all(np.diff(rows) > 0)
  np.testing.assert_array_equal(in_play.hands, whole.hands[rows])
  np.testing.assert_array_equal(in_play.initial_range, whole.initial_range[:, rows])
  np.testing.assert_array_equal(in_play.on_deck(in_play.initial_range, axis=1), whole.initial_range)
  assert whole.members[0].shape == (52, 51) and in_play.members[0].shape[0] == 52
  assert in_play.members[0].shape[1] < 51  # holder lists padded to the longest, not to 51


def _random_profile(tensors, seed):
  rng = np.random.default_rng(seed)
  out = []
  for p in (0, 1):
    legal = np.asarray(tensors.legal[p])[..., None]
    s = rng.random(legal.shape[:2] + (tensors.num_hands,)) * legal
    out.append(s / s.sum(1, keepdims=True))
  return out


@jax.jit
def _everything(tensors, profile):
  """Both players' opponent ranges and terminal values, the best responses and the value."""
  reach = [ops.ranges(tensors, 1 - p, profile[1 - p]) for p in (0, 1)]
  terminal = [ops.terminal_values(tensors, p, reach[p]) for p in (0, 1)]
  return reach, terminal, ops.best_response_values(tensors, profile), ops.expected_value(tensors, profile)


def test_values_and_best_responses_equal_the_whole_trees_on_the_hands_in_play(trees):
  whole, in_play = trees
  rows, weighted = in_play.deck_rows, (in_play.initial_range > 0).any(0)
  profile = _random_profile(to_device(whole, "float64"), 0)
  big = _everything(to_device(whole, "float64"), [jnp.asarray(s) for s in profile])
  small = _everything(to_device(in_play, "float64"), [jnp.asarray(s[..., rows]) for s in profile])
  for p in (0, 1):
    np.testing.assert_array_equal(np.asarray(big[0][p])[:, rows], small[0][p])
    terminal = np.asarray(big[1][p])[:, rows][:, weighted]
    atol = 1e-9 * np.abs(terminal).max()
    np.testing.assert_allclose(np.asarray(small[1][p])[:, weighted], terminal, rtol=1e-9, atol=atol)
  np.testing.assert_allclose(small[2], big[2], rtol=1e-10)
  np.testing.assert_allclose(small[3], big[3], rtol=1e-10)


def test_cfr_iterates_equal_the_whole_trees_on_the_hands_in_play(trees):
  whole, in_play = trees
  rows = in_play.deck_rows
  big, small = to_device(whole, "float64"), to_device(in_play, "float64")
  solver = solvers.get("cfr", "public_tree")
  state_big, state_small = solver.init(big), solver.init(small)
  for _ in range(4):
    state_big, state_small = solver.run(big, state_big, 1), solver.run(small, state_small, 1)
    for a, b in zip(solver.average_strategy(big, state_big), solver.average_strategy(small, state_small)):
      np.testing.assert_allclose(b, np.asarray(a)[..., rows], atol=1e-9)
  assert np.isclose(
    float(ops.exploitability(small, solver.average_strategy(small, state_small))),
    float(ops.exploitability(big, solver.average_strategy(big, state_big))),
    rtol=1e-9,
  )


def test_reports_locks_and_files_read_over_every_hand(tmp_path):
  spot = Spot.from_endgame(4)
  every = solutions.solve(spot, "cfr", 3, dtype="float64", game=solutions.game_of(spot, "float64", hands_in_play=False))
  in_play = solutions.solve(spot, "cfr", 3, dtype="float64")
  assert in_play.game.tree.num_hands < every.game.tree.num_hands == 1326
  node = queries.node_at(every, "check")
  a, b = queries.report(every, node), queries.report(in_play, node)
  assert b["range"].shape == (1326,) and b["strategy"].shape[0] == 1326
  np.testing.assert_allclose(b["range"], a["range"], atol=1e-12)
  held = a["range"] > 0
  np.testing.assert_allclose(b["strategy"][held], a["strategy"][held], atol=1e-9)
  np.testing.assert_allclose(b["ev"][held], a["ev"][held], rtol=1e-8)
  np.testing.assert_allclose(b["equity"][held], a["equity"][held], rtol=1e-6)  # float32 sums
  assert np.isclose(b["range_ev"], a["range_ev"]) and np.allclose(b["frequencies"], a["frequencies"])
  lock = locks.parse(in_play.game, "root -> check @ AA")
  aces = [r for r, h in enumerate(in_play.game.tree.hands.tolist()) if h[0] // 4 == h[1] // 4 == 12]
  assert aces and np.asarray(lock.mask).sum() == len(aces) and np.asarray(lock.mask)[0, aces].all()
  solutions.save(tmp_path / "s.npz", in_play)
  back = solutions.load(tmp_path / "s.npz", dtype="float64")
  assert back.game.tree.num_hands == in_play.game.tree.num_hands
  np.testing.assert_array_equal(np.asarray(back.profile[0], np.float32), np.asarray(in_play.profile[0], np.float32))


def test_a_bad_hands_parameter_is_refused_in_one_line():
  with pytest.raises(GameError, match="hands must be all or in_play"):
    hunl_subgame(endgame=4, hands="some")
  jax.block_until_ready(0)
