"""The CFR family against OpenSpiel's solvers, batches, and convergence."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import discounted_cfr
from open_spiel.python.algorithms import exploitability as os_exploitability

import jaxcfr
from jaxcfr import solvers
from jaxcfr.kits.sequence_form import openspiel as openspiel_policies
from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.solvers import cfr


@functools.cache
def game(name):
  return jaxcfr.load(name, dtype=jnp.float64)


def average_exploitability(tensors, solver, state):
  return float(jaxcfr.exploitability(tensors, solver.average_strategy(tensors, state)))


_OPENSPIEL_SOLVERS = {
  "cfr": (pyspiel.CFRSolver, pyspiel.exploitability),
  "cfr+": (pyspiel.CFRPlusSolver, pyspiel.exploitability),
  "lcfr": (discounted_cfr.LCFRSolver, os_exploitability.exploitability),
  "dcfr": (discounted_cfr.DCFRSolver, os_exploitability.exploitability),
}


def _checkpoints(name, algorithm):
  """(iteration, relative tolerance) at which the trajectories are compared. LCFR and DCFR
  on Leduc amplify rounding (mathematically zero regrets computed as +-1e-17 flip regret
  matching between uniform and pure) from t ~ 40 on: no two summation orders agree to 1e-9
  at t = 100 (a 1e-15 change of the payoffs moves DCFR's exploitability there by more than
  1e-7), so t = 100 is compared at 2e-3 (measured: 2e-6 for LCFR, 6e-4 for DCFR)."""
  if name == "leduc_poker" and algorithm in ("lcfr", "dcfr"):
    return ((1, 1e-9), (10, 1e-9), (40, 1e-9), (100, 2e-3))
  return ((1, 1e-9), (10, 1e-9), (100, 1e-9))


@pytest.mark.parametrize("algorithm", sorted(_OPENSPIEL_SOLVERS))
@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_presets_reproduce_openspiel_trajectories(name, algorithm):
  g = game(name)
  solver = solvers.get(algorithm)
  make_reference, reference_exploitability = _OPENSPIEL_SOLVERS[algorithm]
  reference = make_reference(pyspiel.load_game(name))
  state, done = solver.init(g.tensors), 0
  for checkpoint, tolerance in _checkpoints(name, algorithm):
    state = solver.run(g.tensors, state, checkpoint - done)
    for _ in range(checkpoint - done):
      reference.evaluate_and_update_policy()
    done = checkpoint
    expected = reference_exploitability(pyspiel.load_game(name), reference.average_policy())
    assert average_exploitability(g.tensors, solver, state) == pytest.approx(expected, rel=tolerance)


def test_average_strategy_equals_openspiel_policy_entrywise():
  g = game("kuhn_poker")
  solver = solvers.get("cfr+")
  state = solver.run(g.tensors, solver.init(g.tensors), 25)
  reference = pyspiel.CFRPlusSolver(pyspiel.load_game("kuhn_poker"))
  for _ in range(25):
    reference.evaluate_and_update_policy()
  theirs = openspiel_policies.from_openspiel_policy(g.arrays, reference.average_policy(), g.openspiel_game())
  for ours, expected in zip(solver.average_strategy(g.tensors, state), theirs):
    np.testing.assert_allclose(ours, expected, rtol=1e-10, atol=1e-12)


def test_cfr_plus_converges_on_leduc():
  g = game("leduc_poker")
  solver = solvers.get("cfr+")
  state = solver.run(g.tensors, solver.init(g.tensors), 1000)
  average = solver.average_strategy(g.tensors, state)
  assert float(jaxcfr.exploitability(g.tensors, average)) < 1e-3
  assert float(jaxcfr.expected_value(g.tensors, average)) == pytest.approx(-0.0856064, abs=1e-4)


@pytest.mark.parametrize(
  "algorithm,updates", [("pcfr+", None), ("dcfr", "simultaneous"), ("cfr+", "simultaneous"), ("lcfr", None)]
)
def test_other_configurations_converge_on_kuhn(algorithm, updates):
  g = game("kuhn_poker")
  solver = solvers.get(algorithm, updates=updates)
  state = solver.run(g.tensors, solver.init(g.tensors), 1000)
  average = solver.average_strategy(g.tensors, state)
  tolerance = 1e-2 if updates == "simultaneous" else 2e-3  # simultaneous updates are slower
  assert average_exploitability(g.tensors, solver, state) < tolerance
  assert float(jaxcfr.expected_value(g.tensors, average)) == pytest.approx(-1 / 18, abs=tolerance)


def _matrix(g):
  """Player 0's payoff matrix of a one-shot game, from the expected values of pure profiles."""
  sizes = [t.legal.shape[1] for t in g.tensors.players]
  matrix = np.zeros(sizes)
  for i in range(sizes[0]):
    for j in range(sizes[1]):
      profile = (jnp.eye(sizes[0])[i][None], jnp.eye(sizes[1])[j][None])
      matrix[i, j] = float(jaxcfr.expected_value(g.tensors, profile))
  return matrix


def _reference_regret_matching(matrix, iterations, *, plus: bool, gamma: float):
  """Simultaneous regret matching on a matrix game, written out (Chelarescu 2019, chapter 3):
  both players respond to the same current strategies; the average weighs sigma^t by t^gamma."""

  def match(r):
    positive = np.maximum(r, 0)
    return positive / positive.sum() if positive.sum() > 0 else np.full(len(r), 1 / len(r))

  x, y = np.full(matrix.shape[0], 1 / matrix.shape[0]), np.full(matrix.shape[1], 1 / matrix.shape[1])
  rx, ry, sx, sy = np.zeros_like(x), np.zeros_like(y), np.zeros_like(x), np.zeros_like(y)
  for t in range(1, iterations + 1):
    sx, sy = sx + t**gamma * x, sy + t**gamma * y
    ux, uy = matrix @ y, -(matrix.T @ x)
    rx, ry = rx + ux - x @ ux, ry + uy - y @ uy
    if plus:
      rx, ry = np.maximum(rx, 0), np.maximum(ry, 0)
    x, y = match(rx), match(ry)
  return (x, y), (sx / sx.sum(), sy / sy.sum())


@pytest.mark.parametrize("algorithm,plus,gamma", [("rm", False, 0.0), ("rm+", True, 1.0)])
@pytest.mark.parametrize("name", ["rps", "rps_plus"])
def test_simultaneous_presets_are_regret_matching(name, algorithm, plus, gamma):
  """rm and rm+ equal regret matching (plus) written out on the payoff matrix, iterate by iterate."""
  g = game(name)
  solver = solvers.get(algorithm)
  state = solver.run(g.tensors, solver.init(g.tensors), 37)
  current, average = _reference_regret_matching(_matrix(g), 37, plus=plus, gamma=gamma)
  for ours, theirs in zip(solver.current_strategy(g.tensors, state), current):
    np.testing.assert_allclose(np.asarray(ours)[0], theirs, rtol=1e-12, atol=1e-14)
  for ours, theirs in zip(solver.average_strategy(g.tensors, state), average):
    np.testing.assert_allclose(np.asarray(ours)[0], theirs, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name,equilibrium", [("rps", (1 / 3, 1 / 3, 1 / 3)), ("rps_plus", (0.4, 0.4, 0.2))])
def test_regret_matching_on_normal_form_games(name, equilibrium):
  g = game(name)
  solver = solvers.get("rm+")
  state = solver.run(g.tensors, solver.init(g.tensors), 2000)
  average = solver.average_strategy(g.tensors, state)
  for strategy in average:
    np.testing.assert_allclose(strategy[0], equilibrium, atol=2e-2)
  assert float(jaxcfr.exploitability(g.tensors, average)) < 1e-2


@pytest.mark.parametrize(
  "name,equilibrium", [("coin_toss", (0.25, 0.75, 0.0)), ("coin_toss(sell_value=-0.5)", (0.75, 0.25, 0.0))]
)
@pytest.mark.parametrize("algorithm", ["cfr", "cfr+"])
def test_coin_toss_guess_of_player_one(name, equilibrium, algorithm):
  """Chelarescu 2019 section 3.3: P2 guesses heads 1/4 of the time, 3/4 when the sell
  outcomes are reversed (Figure 3.13)."""
  g = game(name)
  solver = solvers.get(algorithm)
  state = solver.run(g.tensors, solver.init(g.tensors), 2000)
  guess = solver.average_strategy(g.tensors, state)[1][0]
  np.testing.assert_allclose(guess, equilibrium, atol=1e-2)


def test_dcfr_grid_as_one_batch_equals_runs_alone():
  g = game("kuhn_poker")
  solver = solvers.get("dcfr")
  grid = jaxcfr.run.driver.hyperparameter_grid(alpha=[1.0, 1.5], beta=[0.0, 0.5], gamma=[1.0, 2.0])
  batched = jax.jit(jax.vmap(lambda kw: solver.run(g.tensors, solver.init(g.tensors, **kw), 20)))(
    {k: jnp.asarray(v) for k, v in grid.items()}
  )
  trailing = solver.run(g.tensors, solver.init(g.tensors, **grid), 20)  # batch axes trail
  assert trailing.regrets[0].shape == g.tensors.players[0].legal.shape + (8,)
  for b in range(len(grid["alpha"])):
    alone = solver.run(g.tensors, solver.init(g.tensors, **{k: v[b] for k, v in grid.items()}), 20)
    for x, y, z in zip(*map(jax.tree_util.tree_leaves, (alone, batched, trailing))):
      np.testing.assert_allclose(x, y[b], rtol=1e-9, atol=1e-12)
      np.testing.assert_allclose(x, z[..., b], rtol=1e-9, atol=1e-12)


def test_batches_over_payoffs_and_initial_states():
  g = game("kuhn_poker")
  solver = solvers.get("cfr+")
  scales = jnp.array([1.0, 2.0, 0.5])
  key = jax.random.PRNGKey(0)
  regrets0 = jax.random.uniform(key, (3,) + g.tensors.players[0].legal.shape)

  def run(scale, regrets):
    tensors = jaxcfr.kits.sequence_form.tensors.GameTensors(
      tree=g.tensors.tree,
      players=g.tensors.players,
      name=g.tensors.name,
      payoff=jaxcfr.kits.sequence_form.tensors.SequencePayoff(
        **{**vars(g.tensors.payoff), "value": g.tensors.payoff.value * scale}
      ),
    )
    state = solver.init(tensors)
    state = state._replace(
      regrets=(regrets * tensors.players[0].legal, state.regrets[1]),
      strategy=(evaluation.regret_matching(tensors.players[0], regrets), state.strategy[1]),
    )
    return solver.run(tensors, state, 10).average

  batched = jax.vmap(run)(scales, regrets0)
  for b in range(3):
    alone = run(scales[b], regrets0[b])
    for x, y in zip(alone, batched):
      np.testing.assert_allclose(x, y[b], rtol=1e-9, atol=1e-12)


def test_bad_solver_options_raise():
  with pytest.raises(ValueError, match="unknown solver"):
    solvers.get("cfr++")
  with pytest.raises(ValueError, match="updates"):
    solvers.get("cfr", updates="sometimes")
  with pytest.raises(ValueError, match="no option gamma"):
    solvers.get("dcfr", gamma=-1.0)
  with pytest.raises(ValueError, match="gamma of solver .dcfr. must be >= 0"):
    solvers.get("dcfr").init(game("kuhn_poker").tensors, gamma=-1.0)
  with pytest.raises(ValueError, match="alpha of solver .dcfr. must be a number, got NaN"):
    solvers.get("dcfr").init(game("kuhn_poker").tensors, alpha=jnp.array([1.0, jnp.nan]))
  with pytest.raises(ValueError, match="no hyperparameter delta"):
    solvers.get("dcfr").init(game("kuhn_poker").tensors, delta=1.0)


def test_last_regret_is_kept_only_by_predictive_solvers():
  """Non-predictive solvers keep an empty [0, A, *B] last_regret: one [I, A] array less."""
  g = game("kuhn_poker")
  plain = solvers.get("cfr+").init(g.tensors, alpha=jnp.array([1.0, 2.0]))
  assert [x.shape for x in plain.last_regret] == [(0, 2, 2), (0, 2, 2)]
  assert solvers.get("cfr+").run(g.tensors, plain, 3).last_regret[0].shape == (0, 2, 2)
  predictive = solvers.get("pcfr+").init(g.tensors)
  assert [x.shape for x in predictive.last_regret] == [t.legal.shape for t in g.tensors.players]


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
def test_discounts_stay_finite_for_any_exponent_and_iteration(dtype):
  """``t^e / (t^e + 1)`` without forming ``t^e`` (inf / inf = NaN once it overflows: e = 100 at
  t = 1,203 in float64, at t = 3 in float32); equal to the formula wherever that is finite."""
  t = np.array([1, 2, 3, 1203, 2**24, 2**31 - 1], float)[:, None]
  e = np.array([-np.inf, -1e30, -100, -1.5, 0, 0.5, 1, 1.5, 100, 1e30, np.inf])[None, :]
  factor = np.asarray(cfr.discount(jnp.asarray(t, dtype), jnp.asarray(e, dtype)))
  assert factor.dtype == dtype and np.all((factor >= 0) & (factor <= 1))
  with np.errstate(over="ignore", invalid="ignore"):
    exact = 1 / (1 + np.exp(-np.longdouble(e) * np.log(np.longdouble(t))))
  exact = np.where(e == np.inf, 1.0, np.where(e == -np.inf, 0.0, exact)).astype(float)
  np.testing.assert_allclose(factor, exact, rtol=8 * np.finfo(dtype).eps, atol=np.finfo(dtype).tiny)
  ratio = cfr.next_weight_ratio(  # the averaging weights (t-1/t)^gamma: finite for any gamma
    cfr.CFRState(*[None] * 5, jnp.asarray(3.0, dtype), None, None, jnp.asarray(e[0, 4:], dtype), jnp.asarray(0)),
    jnp.asarray(t[1:], dtype),
  )
  assert np.all(np.isfinite(np.asarray(ratio)))


def test_dcfr_with_a_huge_alpha_converges_like_any_dcfr():
  """alpha = 1000 overflowed t^alpha at t = 3 (float64) and turned every regret into NaN."""
  g = game("kuhn_poker")
  solver = solvers.get("dcfr")
  state = solver.run(g.tensors, solver.init(g.tensors, alpha=1000.0), 200)
  assert np.all(np.isfinite(np.asarray(state.regrets[0])))
  assert average_exploitability(g.tensors, solver, state) < 5e-3
