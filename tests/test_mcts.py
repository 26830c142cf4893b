"""Information-set MCTS (jaxcfr.solvers.mcts; Ponsen et al. 2011 section 3.2.1) and Smooth UCT
(Heinrich and Silver 2015): eq. 2 on a hand-built table, a step-by-step match with a slow
reference written here (same PRNG draws), visit counts, and batches over C."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxcfr import solvers
from jaxcfr.kits.sequence_form.arrays import CHANCE_NODE, TERMINAL_NODE
from jaxcfr.solvers import mcts
import helpers


def test_uct_selection_on_a_hand_built_table():
  legal = jnp.array([True, True, True, False])
  # untried actions first, whatever the others' values; ties among them by the uniform
  visits, rewards = jnp.array([10, 0, 0, 0]), jnp.array([20.0, 0, 0, 0])
  assert int(mcts.uct_choice(visits, rewards, legal, 2.0, 0.2)) == 1
  assert int(mcts.uct_choice(visits, rewards, legal, 2.0, 0.7)) == 2
  # eq. 2 by hand: n(I) = 30; scores 1 + 2 sqrt(ln 30 / 10), -0.5 + 2 sqrt(ln 30 / 5), 0.2 + 2 sqrt(ln 30 / 15)
  visits, rewards = jnp.array([10, 5, 15, 99]), jnp.array([10.0, -2.5, 3.0, 1e9])
  expected = [1 + 2 * np.sqrt(np.log(30) / 10), -0.5 + 2 * np.sqrt(np.log(30) / 5), 0.2 + 2 * np.sqrt(np.log(30) / 15)]
  np.testing.assert_allclose(np.asarray(mcts.uct_scores(visits, rewards, legal, 2.0))[:3], expected, rtol=1e-12)
  assert np.asarray(mcts.uct_scores(visits, rewards, legal, 2.0))[3] == -np.inf  # illegal never chosen
  assert int(mcts.uct_choice(visits, rewards, legal, 2.0, 0.5)) == int(np.argmax(expected))
  assert int(mcts.uct_choice(visits, rewards, legal, 0.0, 0.5)) == 0  # C = 0: greedy on the mean
  # equal scores: the uniform picks among them
  visits, rewards = jnp.array([4, 4, 8, 0]), jnp.array([2.0, 2.0, 0.0, 0])
  chosen = {int(mcts.uct_choice(visits, rewards, legal, 1.0, u)) for u in (0.1, 0.9)}
  assert chosen == {0, 1}
  np.testing.assert_allclose(float(mcts.smooth_eta(1e8, 0.9, 0.001, 0.1)), 0.1)
  np.testing.assert_allclose(float(mcts.smooth_eta(100.0, 0.9, 0.001, 0.1)), 0.9 / 1.01)


class Reference:
  """Slow NumPy information-set MCTS on the host arrays, written from the paper's four steps."""

  def __init__(self, game, c, *, smooth=False, backup="path", eta=0.9, d=0.001, gamma=0.1):
    self.a, self.c, self.smooth, self.backup = game.arrays, c, smooth, backup
    self.eta, self.d, self.gamma = eta, d, gamma
    self.n = [np.zeros(p.legal.shape, np.int64) for p in self.a.players]
    self.w = [np.zeros(p.legal.shape) for p in self.a.players]
    self.expanded = {0}

  def uct(self, n, w, u):
    total = n.sum()
    scores = [
      np.inf if n[k] == 0 else w[k] / n[k] + self.c * np.sqrt(np.log(max(total, 1)) / n[k]) for k in range(len(n))
    ]
    best = [k for k, s in enumerate(scores) if s == max(scores)]
    return best[min(int(np.floor(u * len(best))), len(best) - 1)]

  @staticmethod
  def inverse_cdf(weights, u):
    cum = np.cumsum(weights)
    return min(int((cum[:-1] <= u * cum[-1]).sum()), len(weights) - 1)

  def simulate(self, uniforms):
    a, h, grown, path = self.a, 0, False, []
    for depth in range(len(uniforms)):
      if a.kind[h] == TERMINAL_NODE:
        break
      children = a.first_child[h] + np.arange(a.num_children[h])
      u = uniforms[depth]
      if a.kind[h] == CHANCE_NODE:
        k = self.inverse_cdf(a.chance_prob[children], u[0])
      else:
        p, i = a.kind[h], a.infoset[h]
        acts = a.action_index[children]
        n, w = self.n[p][i, acts], self.w[p][i, acts]
        k = self.uct(n, w, u[0])
        if self.smooth and n.sum() > 0:
          eta = max(self.gamma, self.eta / (1 + self.d * np.sqrt(n.sum())))
          if not u[1] < eta:
            k = self.inverse_cdf(n.astype(float), u[0])
      child = children[k]
      in_tree = h in self.expanded and not grown
      if in_tree and child not in self.expanded:
        self.expanded.add(child)
        grown = True
      if a.kind[h] != CHANCE_NODE and (self.backup == "path" or in_tree):
        path.append((a.kind[h], a.infoset[h], a.action_index[child]))
      h = child
    for p, i, act in path:
      self.n[p][i, act] += 1
      self.w[p][i, act] += a.utility[h] if p == 0 else -a.utility[h]


@functools.cache
def _uniforms():
  tensors = helpers.load("kuhn_poker").tensors
  return jax.jit(lambda key: mcts.simulation_uniforms(tensors, key))


@pytest.mark.parametrize("smooth,backup,c", [(False, "path", 2.0), (True, "path", 2.0), (False, "tree", 0.5)])
def test_a_fixed_seed_run_matches_the_reference_step_by_step(smooth, backup, c):
  game = helpers.load("kuhn_poker")
  tensors = game.tensors
  solver = solvers.get("mcts", smooth=smooth, backup=backup)
  state = solver.init(tensors, seed=7, uct_c=c)
  reference = Reference(game, c, smooth=smooth, backup=backup)
  for _ in range(120):
    _, uniforms = _uniforms()(state.key)
    reference.simulate(np.asarray(uniforms))
    state = solver.run(tensors, state, 1)
    for p in (0, 1):
      np.testing.assert_array_equal(np.asarray(state.visits[p]), reference.n[p])
      np.testing.assert_allclose(np.asarray(state.rewards[p]), reference.w[p], atol=1e-12)
    assert set(np.flatnonzero(np.asarray(state.expanded))) == reference.expanded
  assert int(state.iteration) == 120


def test_visit_counts_sum_to_the_simulations_and_the_tree_grows_by_at_most_one_node():
  game = helpers.load("kuhn_poker")
  tensors = game.tensors
  solver = solvers.get("mcts")
  state = solver.run(tensors, solver.init(tensors, seed=jnp.arange(3)), 40)
  rows = [game.arrays.players[0].keys.tolist().index(k) for k in ("0:", "1:", "2:")]
  np.testing.assert_array_equal(np.asarray(state.visits[0])[rows].sum((0, 1)), [40] * 3)  # the opening decision
  np.testing.assert_array_equal(np.asarray(state.visits[1]).sum((0, 1)), [40] * 3)  # player 1 acts once a game
  # at most one new node per simulation (none when the whole path is already in the tree)
  nodes = solver.counters(state)["tree_nodes"]
  assert np.all((nodes > 20) & (nodes <= 41))
  one_more = solver.run(tensors, state, 1)
  assert np.all(np.isin(solver.counters(one_more)["tree_nodes"] - nodes, [0, 1]))
  profile = solver.average_strategy(tensors, state)
  visits = np.asarray(state.visits[1])[..., 0]
  np.testing.assert_allclose(np.asarray(profile[1])[..., 0], visits / visits.sum(1, keepdims=True))


def test_a_batch_over_c_is_one_program_equal_to_each_run_alone_and_max_visit_policy():
  tensors = helpers.load("kuhn_poker").tensors
  solver = solvers.get("mcts", final="max")
  values = [0.5, 2.0, 8.0]
  batch = solver.run(tensors, solver.init(tensors, seed=1, uct_c=jnp.array(values)), 30)
  for b, c in enumerate(values):
    alone = solver.run(tensors, solver.init(tensors, seed=1, uct_c=c), 30)
    for p in (0, 1):
      np.testing.assert_array_equal(np.asarray(batch.visits[p])[..., b], np.asarray(alone.visits[p]))
  policy = solver.average_strategy(tensors, batch)[0]
  assert set(np.unique(np.asarray(policy))) <= {0.0, 0.5, 1.0}
  with pytest.raises(ValueError, match="uct_c of solver .mcts. must be finite and >= 0"):
    solver.init(tensors, uct_c=-1.0)
  with pytest.raises(ValueError, match="final of solver .mcts. must be one of visits, max"):
    solvers.get("mcts", final="mean")


@pytest.mark.parametrize(
  "name,smooth,backup",
  [
    ("kuhn_poker", False, "path"),
    ("kuhn_poker", True, "path"),
    ("kuhn_poker", False, "tree"),
    ("leduc_poker", True, "path"),
  ],
)
def test_the_natively_batched_step_equals_each_run_alone_and_vmap_of_its_step(name, smooth, backup):
  tensors = helpers.load(name).tensors
  solver = solvers.get("mcts", smooth=smooth, backup=backup)
  seeds, values = jnp.array([3, 4, 5]), jnp.array([0.5, 2.0, 2.0])
  batch = solver.run(tensors, solver.init(tensors, seed=seeds, uct_c=values), 25)
  one_step = functools.partial(mcts.step, smooth=smooth, backup=backup)
  mapped = jax.jit(lambda s: jax.lax.fori_loop(0, 25, lambda _, x: jax.vmap(one_step, (None, -1), -1)(tensors, x), s))
  by_vmap = mapped(solver.init(tensors, seed=seeds, uct_c=values))
  for leaf, other in zip(jax.tree_util.tree_leaves(batch), jax.tree_util.tree_leaves(by_vmap)):
    np.testing.assert_array_equal(np.asarray(leaf), np.asarray(other))
  for b in range(3):
    alone = solver.run(tensors, solver.init(tensors, seed=int(seeds[b]), uct_c=float(values[b])), 25)
    for leaf, other in zip(jax.tree_util.tree_leaves(batch), jax.tree_util.tree_leaves(alone)):
      np.testing.assert_array_equal(np.asarray(leaf)[..., b], np.asarray(other))
  assert int(batch.visits[0].sum()) > 0  # the runs did play
