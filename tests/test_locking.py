"""Node locking (jaxcfr.solvers.locking): locking a node to an equilibrium's strategy changes
nothing (the value stays the game's and the locking player's strategy unexploitable),
locking an exploitable strategy lets the other player exploit it (the value moves the way a best
response says), a combo lock fixes only the hands it names, and the gradient of the locking
player's value with respect to the locked frequencies agrees with finite differences."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcfr
from jaxcfr import diff, solvers
from jaxcfr.solvers.locking import Lock

GAME_VALUE = -1 / 18  # Kuhn poker's value for player 0


def _kuhn(representation):
  return jaxcfr.load("kuhn_poker", dtype="float64", representation=representation)


def _rows(strategy):
  return strategy.shape[:1] + strategy.shape[2:]


def _solve(game, lock, iterations=2000, base="dcfr"):
  solver = solvers.get("locked", game.representation, base=base, player=lock.player)
  state = solver.run(game.tensors, solver.init(game.tensors, lock=lock), iterations)
  return solver.average_strategy(game.tensors, state)


@pytest.mark.parametrize("representation", ["sequence_form", "public_tree"])
def test_locking_a_node_to_the_equilibrium_changes_nothing(representation):
  game = _kuhn(representation)
  solver = solvers.get("dcfr", representation)
  equilibrium = solver.average_strategy(game.tensors, solver.run(game.tensors, solver.init(game.tensors), 2000))
  mask = jnp.zeros(_rows(equilibrium[0]), bool).at[0].set(True)
  profile = _solve(game, Lock(0, mask, equilibrium[0]))
  np.testing.assert_allclose(profile[0][0], equilibrium[0][0], atol=1e-12)  # the lock holds
  np.testing.assert_allclose(float(jaxcfr.expected_value(game.tensors, profile)), GAME_VALUE, atol=2e-3)
  # the locking player's strategy is still an equilibrium strategy of the whole game (player 1's
  # may lean on the lock: in the locked game player 0 cannot deviate at the locked node)
  np.testing.assert_allclose(-float(jaxcfr.best_response_values(game.tensors, profile)[1]), GAME_VALUE, atol=2e-3)


@pytest.mark.parametrize("representation", ["sequence_form", "public_tree"])
def test_locking_an_exploitable_strategy_lets_the_other_player_exploit_it(representation):
  """Player 0 locked to bet at its first decision with every hand: its value falls below the
  game's, to what player 1's best response against it concedes."""
  game = _kuhn(representation)
  uniform = jaxcfr.uniform_profile(game.tensors)[0]
  mask = jnp.zeros(_rows(uniform), bool).at[0].set(True)
  always_bet = jnp.zeros_like(uniform).at[0, 1].set(1.0)
  profile = _solve(game, Lock(0, mask, always_bet))
  value = float(jaxcfr.expected_value(game.tensors, profile))
  best = np.asarray(jaxcfr.best_response_values(game.tensors, profile))
  assert value < GAME_VALUE - 0.02  # exploited
  np.testing.assert_allclose(value, -best[1], atol=3e-3)  # player 1 plays a best response to the lock


def test_a_combo_lock_fixes_only_the_hands_it_names():
  game = jaxcfr.load("leduc_poker", dtype="float64", representation="public_tree")
  uniform = jaxcfr.uniform_profile(game.tensors)[0]
  kings = np.array([card // 2 == 2 for card in range(game.tensors.num_hands)])  # Leduc's K, K
  mask = jnp.zeros(_rows(uniform), bool).at[0].set(jnp.asarray(kings))
  raise_with_kings = uniform.at[0].set(jnp.where(kings, jnp.array([0.0, 1.0, 0.0])[:, None], uniform[0]))  # call, raise
  profile = _solve(game, Lock(0, mask, raise_with_kings), iterations=300)
  np.testing.assert_allclose(profile[0][0][:, kings], raise_with_kings[0][:, kings], atol=1e-12)
  assert not np.allclose(profile[0][0][:, ~kings], uniform[0][:, ~kings], atol=1e-2)  # the others learn


def test_the_gradient_of_the_lockers_value_is_the_finite_differences():
  """d EV_0 / d p, where player 0 bets with probability p at its first decision (all hands),
  through 30 unrolled DCFR iterations of the locked solve (float64, public tree)."""
  game = _kuhn("public_tree")
  uniform = jaxcfr.uniform_profile(game.tensors)[0]
  mask = jnp.zeros(_rows(uniform), bool).at[0].set(True)
  solver = solvers.get("locked", "public_tree")

  def value(p):
    strategy = uniform.at[0, 0].set(1 - p).at[0, 1].set(p)
    state = diff.unrolled(solver, game.tensors, solver.init(game.tensors, lock=Lock(0, mask, strategy)), 30)
    return jaxcfr.expected_value(game.tensors, solver.average_strategy(game.tensors, state))

  p, h = 0.3, 1e-5
  gradient = float(jax.grad(value)(p))
  finite = (float(value(p + h)) - float(value(p - h))) / (2 * h)
  np.testing.assert_allclose(gradient, finite, rtol=1e-5, atol=1e-8)
  assert abs(gradient) > 1e-3  # the lock matters to the value
