"""Kuhn poker's equilibrium family and the metrics of Ponsen et al. 2011 (jaxcfr.evaluate.kuhn):
membership of known equilibria, of CFR+'s average, and the dominated-action list checked with
the exact counterfactual values and best responses."""

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcfr
from jaxcfr import solvers
from jaxcfr.core import evaluation
from jaxcfr.evaluate import game_metrics, kuhn
import helpers


@functools.cache
def _counterfactual():
  """A jitted profile -> (q0 [I0, 2, N], q1 [I1, 2, N]) of a batch of N profiles."""
  tensors = helpers.load("kuhn_poker").tensors

  @jax.jit
  def run(tensors, profile):
    x, y = evaluation.plans(tensors, profile)
    g = evaluation.sequence_values(tensors.payoff, x, y)
    return tuple(evaluation.counterfactual_values(t, gi, s)[0] for t, gi, s in zip(tensors.players, g, profile))

  return functools.partial(run, tensors)


@pytest.mark.parametrize("alpha", [0.0, 0.1, 0.25, 1 / 3])
def test_every_family_member_is_an_equilibrium_with_error_zero(alpha):
  game = helpers.load("kuhn_poker")
  profile = helpers.as_jax(kuhn.equilibrium(game, alpha))
  assert abs(float(helpers.exploitability(game.tensors, profile))) < 1e-12
  np.testing.assert_allclose(float(helpers.expected_value(game.tensors, profile)), -1 / 18, atol=1e-12)
  assert float(kuhn.squared_error(game, profile)) < 1e-24
  assert float(kuhn.dominated_error(game, profile)) == 0
  np.testing.assert_allclose(float(kuhn.nearest_alpha(game, profile)), alpha, atol=1e-12)


def test_off_family_profiles_have_positive_error_and_the_nearest_alpha_is_the_minimiser():
  game = helpers.load("kuhn_poker")
  profile = helpers.random_profile(game.arrays, seed=4)
  error = float(kuhn.squared_error(game, profile))
  alphas = np.linspace(0, 1 / 3, 2001)
  by_grid = [sum(((profile[p][:, 1] - kuhn.equilibrium(game, a)[p][:, 1]) ** 2).sum() for p in (0, 1)) for a in alphas]
  np.testing.assert_allclose(error, min(by_grid), rtol=1e-5)
  assert error > 0.01
  with pytest.raises(ValueError, match="alpha must lie in"):
    kuhn.equilibrium(game, 0.5)


def test_uniform_profile_errors_equal_the_hand_computed_figures():
  game = helpers.load("kuhn_poker")
  uniform = jaxcfr.uniform_profile(game.tensors)
  assert float(kuhn.dominated_error(game, uniform)) == pytest.approx(2.5)  # five dominated actions at 1/2
  # squared error: nearest alpha = (1/2 + 3/2 + 1/2 - 1/3) / 11 = 13/66, inside [0, 1/3]
  a = 13 / 66
  fixed = (0.5 - 0) ** 2 * 3 + (0.5 - 1) ** 2 * 3 + (0.5 - 1 / 3) ** 2 * 2 + (0.5 - 0) ** 2 * 1
  expected = (0.5 - a) ** 2 + (0.5 - 3 * a) ** 2 + (0.5 - a - 1 / 3) ** 2 + fixed
  assert float(kuhn.squared_error(game, uniform)) == pytest.approx(expected, rel=1e-12)


def test_cfr_plus_average_after_ten_thousand_iterations_is_near_the_family():
  game = helpers.load("kuhn_poker")
  solver = solvers.get("cfr+")
  state = solver.run(game.tensors, solver.init(game.tensors), 10_000)
  average = solver.average_strategy(game.tensors, state)
  assert float(kuhn.squared_error(game, average)) < 1e-4
  assert float(kuhn.dominated_error(game, average)) < 1e-2


def _profiles(game, count=400):
  """A batch of random profiles [I, 2, N]: mixed, with zeros, and pure."""
  rows = [
    helpers.random_profile(game.arrays, seed=s, **kw)
    for s in range(count // 4)
    for kw in ({}, {"zeros": 0.3}, {"pure": True}, {"pure": True})
  ]
  return tuple(jnp.asarray(np.stack([r[p] for r in rows], -1)) for p in (0, 1))


def test_dominated_actions_are_exactly_the_listed_ones():
  """With exact counterfactual values over random, sparse and pure profiles: each listed
  action never beats the other action at its infoset and loses for some profile; every
  other action beats the alternative for some profile (so nothing is missing)."""
  game = helpers.load("kuhn_poker")
  q = _counterfactual()(_profiles(game))
  listed = {(p, kuhn.infoset_rows(game, p)[(c, h)], a) for p, c, h, a in kuhn.DOMINATED}
  for player in (0, 1):
    for row in range(q[player].shape[0]):
      for action in (0, 1):
        gain = np.asarray(q[player][row, action] - q[player][row, 1 - action])
        if (player, row, action) in listed:
          assert gain.max() <= 1e-12 and gain.min() < -1e-3, (player, row, action)
        else:
          assert gain.max() > 1e-3, (player, row, action)


def test_best_responses_to_full_support_opponents_avoid_dominated_actions():
  game = helpers.load("kuhn_poker")
  for seed in range(5):
    profile = helpers.as_jax(helpers.random_profile(game.arrays, seed=seed))
    x, y = evaluation.plans(game.tensors, profile)
    g = evaluation.sequence_values(game.tensors.payoff, x, y)
    best = [evaluation.best_response(t, gi)[1] for t, gi in zip(game.tensors.players, g)]
    assert float(kuhn.dominated_error(game, best)) == 0


def test_game_metrics_hook_is_chosen_by_game_and_shared_between_loads():
  game = helpers.load("kuhn_poker")
  assert game_metrics.for_game(game) is game_metrics.for_game(jaxcfr.load("kuhn_poker", dtype="float64"))
  assert game_metrics.for_game(helpers.load("leduc_poker")) is None
  values = game_metrics.for_game(game)(jaxcfr.uniform_profile(game.tensors))
  assert set(values) == {"squared_error", "dominated_error"}


def _declaring(game, **changes):
  """The loaded game with its GameInfo changed (nothing else: name, arrays and keys kept)."""
  return dataclasses.replace(game, arrays=game.arrays.with_info(dataclasses.replace(game.info, **changes)))


def test_game_metrics_follow_the_declared_tag_not_the_name():
  game = helpers.load("kuhn_poker")
  assert kuhn.is_kuhn(game) and game.info.metrics == "kuhn"
  assert not kuhn.is_kuhn(helpers.load("one_card_poker(num_cards=3)"))  # declares no metrics
  assert game_metrics.for_game(jaxcfr.load("openspiel:kuhn_poker")) is not None  # OpenSpiel's two-player Kuhn
  renamed = dataclasses.replace(game, name="a_game_never_seen")
  assert game_metrics.for_game(renamed) is game_metrics.for_game(game)
  assert game_metrics.for_game(_declaring(game, metrics=None)) is None
  with pytest.raises(ValueError, match="declares metrics 'chess'; the known families are \\['kuhn'\\]"):
    game_metrics.for_game(_declaring(game, metrics="chess"))
  with pytest.raises(ValueError, match="its infoset keys are not Kuhn poker's"):
    game_metrics.for_game(_declaring(helpers.load("leduc_poker"), metrics="kuhn"))
