"""Kuhn poker's equilibrium family and the metrics of Ponsen, de Jong and Lanctot, "Computing
Approximate Nash Equilibria and Robust Best-Responses Using Sampling", 2011
(jaxcfr.evaluate.kuhn): membership of known equilibria, of CFR+'s average, the dominated
error's exact values on hand-computed profiles (the paper's seven actions and the five of one
round), and both dominated-action lists checked with the exact counterfactual values and best
responses."""

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcfr
from jaxcfr import solvers
from jaxcfr.kits.sequence_form import evaluation
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
  assert float(kuhn.dominated_error(game, profile, actions=kuhn.DOMINATED_ONE_ROUND)) == 0
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
  assert float(kuhn.dominated_error(game, uniform)) == pytest.approx(3.5)  # the paper's seven actions at 1/2
  assert float(kuhn.dominated_error(game, uniform, actions=kuhn.DOMINATED_ONE_ROUND)) == pytest.approx(2.5)  # five
  # squared error: nearest alpha = (1/2 + 3/2 + 1/2 - 1/3) / 11 = 13/66, inside [0, 1/3]
  a = 13 / 66
  fixed = (0.5 - 0) ** 2 * 3 + (0.5 - 1) ** 2 * 3 + (0.5 - 1 / 3) ** 2 * 2 + (0.5 - 0) ** 2 * 1
  expected = (0.5 - a) ** 2 + (0.5 - 3 * a) ** 2 + (0.5 - a - 1 / 3) ** 2 + fixed
  assert float(kuhn.squared_error(game, uniform)) == pytest.approx(expected, rel=1e-12)


def _pure_or_mixed(game, bets):
  """The profile whose bet probability at (player, card, history) is ``bets[player][(card,
  history)]``: [I, 2] per player."""
  profile = []
  for player in (0, 1):
    strategy = np.zeros((len(kuhn.infoset_rows(game, player)), 2))
    for infoset, row in kuhn.infoset_rows(game, player).items():
      strategy[row] = (1 - bets[player][infoset], bets[player][infoset])
    profile.append(strategy)
  return profile


def test_dominated_error_equals_the_hand_counted_values_of_both_lists():
  """Counted by hand from the lists (player 0: Q bets first, J calls pb, K folds pb; player 1:
  Q bets p, K checks p, J calls b, K folds b), as one batch of four profiles."""
  game = helpers.load("kuhn_poker")
  every = {p: {infoset: 1.0 for infoset in kuhn.infoset_rows(game, p)} for p in (0, 1)}
  never = {p: {k: 0.0 for k in every[p]} for p in (0, 1)}
  # the equilibrium alpha = 0 but player 0 bets Q first with 1/4 and player 1 bets Q after a pass with 1/2
  equilibrium = kuhn.equilibrium(game, 0.0)
  q_bets = [s.copy() for s in equilibrium]
  q_bets[0][kuhn.infoset_rows(game, 0)[("Q", "")]] = (0.75, 0.25)
  q_bets[1][kuhn.infoset_rows(game, 1)[("Q", "p")]] = (0.5, 0.5)
  # player 0 folds K after pass-bet with 0.2 and calls with J with 0.1, player 1 checks K with 0.3
  five = [s.copy() for s in equilibrium]
  five[0][kuhn.infoset_rows(game, 0)[("K", "pb")]] = (0.2, 0.8)
  five[0][kuhn.infoset_rows(game, 0)[("J", "pb")]] = (0.9, 0.1)
  five[1][kuhn.infoset_rows(game, 1)[("K", "p")]] = (0.3, 0.7)
  profiles = [_pure_or_mixed(game, every), _pure_or_mixed(game, never), q_bets, five]
  batch = tuple(jnp.asarray(np.stack([r[p] for r in profiles], -1)) for p in (0, 1))
  # always bet: Q bets (2) + J calls (2); always pass: K folds (2) + K checks (1)
  np.testing.assert_allclose(np.asarray(kuhn.dominated_error(game, batch)), [4, 3, 0.75, 0.6], atol=1e-12)
  np.testing.assert_allclose(
    np.asarray(kuhn.dominated_error(game, batch, actions=kuhn.DOMINATED_ONE_ROUND)), [2, 3, 0, 0.6], atol=1e-12
  )
  assert set(kuhn.DOMINATED_ONE_ROUND) < set(kuhn.DOMINATED) and len(kuhn.DOMINATED) == 7
  assert set(kuhn.DOMINATED) - set(kuhn.DOMINATED_ONE_ROUND) == {(0, "Q", "", kuhn.BET), (1, "Q", "p", kuhn.BET)}


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


def _gains(q, player, row, action):
  return np.asarray(q[player][row, action] - q[player][row, 1 - action])


def test_dominated_actions_of_one_round_are_exactly_the_listed_five():
  """With exact counterfactual values over random, sparse and pure profiles: each of the five
  never beats the other action at its infoset and loses for some profile; every other action,
  the paper's two Q bets included, beats the alternative for some profile (so nothing is
  missing, and the Q bets are not dominated in one round)."""
  game = helpers.load("kuhn_poker")
  q = _counterfactual()(_profiles(game))
  listed = {(p, kuhn.infoset_rows(game, p)[(c, h)], a) for p, c, h, a in kuhn.DOMINATED_ONE_ROUND}
  for player in (0, 1):
    for row in range(q[player].shape[0]):
      for action in (0, 1):
        gain = _gains(q, player, row, action)
        if (player, row, action) in listed:
          assert gain.max() <= 1e-12 and gain.min() < -1e-3, (player, row, action)
        else:
          assert gain.max() > 1e-3, (player, row, action)


def _without(game, profile, actions):
  """``profile`` ([I, 2, N] each) with probability 0 on ``actions`` (moved to the other action)."""
  profile = [np.array(s) for s in profile]
  for player, card, history, action in actions:
    profile[player][kuhn.infoset_rows(game, player)[(card, history)], action] = 0.0
    profile[player][kuhn.infoset_rows(game, player)[(card, history)], 1 - action] = 1.0
  return profile


def test_the_papers_two_further_actions_are_dominated_once_the_five_are_removed():
  """The second round of iterated dominance: against opponents that avoid the five, player 1's
  bet with Q after a pass never beats a check (player 0's J folds, its K calls), and player 0's
  bet with Q never beats a check followed by a call after pass-bet (against J: +1 for the bet,
  +1 or +2 for check-call; against K, who always bets after a check, -2 either way); each
  loses for some profile. With all seven removed, every other action still beats the
  alternative for some profile: the elimination stops at seven."""
  game = helpers.load("kuhn_poker")
  five_removed = _without(game, _profiles(game), kuhn.DOMINATED_ONE_ROUND)
  check_call = [s.copy() for s in five_removed]
  check_call[0][kuhn.infoset_rows(game, 0)[("Q", "pb")]] = np.array([[0.0], [1.0]])  # the dominating continuation
  q_five, q_call = (_counterfactual()(tuple(jnp.asarray(s) for s in p)) for p in (five_removed, check_call))
  for player, q in ((0, q_call), (1, q_five)):
    card, history, action = {0: ("Q", "", kuhn.BET), 1: ("Q", "p", kuhn.BET)}[player]
    gain = _gains(q, player, kuhn.infoset_rows(game, player)[(card, history)], action)
    assert gain.max() <= 1e-12 and gain.min() < -1e-3, player
  q = _counterfactual()(tuple(jnp.asarray(s) for s in _without(game, _profiles(game), kuhn.DOMINATED)))
  rows = {(p, kuhn.infoset_rows(game, p)[(c, h)], a) for p, c, h, a in kuhn.DOMINATED}
  for player in (0, 1):
    for row in range(q[player].shape[0]):
      for action in (0, 1):
        if (player, row, action) not in rows:
          assert _gains(q, player, row, action).max() > 1e-3, (player, row, action)


def test_best_responses_avoid_the_dominated_actions():
  """A best response to a full-support opponent plays none of the five; to an opponent with
  full support except on the five (which it never plays), none of the seven."""
  game = helpers.load("kuhn_poker")
  for seed in range(5):
    random = helpers.random_profile(game.arrays, seed=seed)
    for opponents, actions in (
      (random, kuhn.DOMINATED_ONE_ROUND),
      (_without(game, random, kuhn.DOMINATED_ONE_ROUND), kuhn.DOMINATED),
    ):
      profile = helpers.as_jax(opponents)
      x, y = evaluation.plans(game.tensors, profile)
      g = evaluation.sequence_values(game.tensors.payoff, x, y)
      best = [evaluation.best_response(t, gi)[1] for t, gi in zip(game.tensors.players, g)]
      assert float(kuhn.dominated_error(game, best, actions=actions)) == 0, (seed, len(actions))


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
