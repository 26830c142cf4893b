"""The CFR family's schedules (jaxcfr.solvers.cfr_schedule): every preset, the peers' DCFR
included, follows its update rule written out here in NumPy, iterate by iterate, on Kuhn poker
(sequence form) and Leduc poker (public tree); restarts happen where the peers
restart; batches over the schedule equal runs alone."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcfr
from jaxcfr import kits, solvers
from jaxcfr.solvers import cfr
from jaxcfr.solvers.cfr_schedule import since_restart

ITERATIONS = 40


@functools.cache
def game(name, representation="sequence_form"):
  return jaxcfr.load(name, representation=representation, dtype=jnp.float64)


def _matching(regrets, legal):
  positive = np.where(legal, np.maximum(regrets, 0), 0)
  total = positive.sum(1, keepdims=True)
  uniform = legal / np.maximum(legal.sum(1, keepdims=True), 1)
  return np.where(total > 0, positive / np.where(total > 0, total, 1), uniform)


def _postflop_solver(t0, regrets, strategy, cumulative, instant, reach, following):
  """b-inary/postflop-solver's DCFR (src/solver.rs) at its iteration ``t0`` from 0: the
  carried regrets discounted by ``(t0-1)^1.5`` (positive) or 0.5 (negative) before adding,
  the strategy sum by ``((t0 - p)/(t0 - p + 1))^3`` (``p`` the largest power of 4 <= t0)."""
  del reach, following
  power = 0 if t0 == 0 else 4 ** int(np.floor(np.log(t0) / np.log(4) + 1e-9))
  t_alpha = max(t0 - 1, 0)
  alpha = t_alpha**1.5 / (t_alpha**1.5 + 1)
  t_gamma = t0 - power
  gamma = (t_gamma / (t_gamma + 1)) ** 3
  regrets = regrets * np.where(regrets >= 0, alpha, 0.5) + instant
  return regrets, cumulative * gamma + strategy


def _texas_solver(t0, regrets, strategy, cumulative, instant, reach, following):
  """bupticybee/TexasSolver's DCFR (DiscountedCfrTrainable::updateRegrets) with its
  iteration_number ``t = t0 + 1``: regrets added, then times ``t^1.5 / (t^1.5 + 1)`` where
  positive and 0.5 elsewhere; the sum decayed by 0.9 gains the next strategy times
  ``(t / (t + 1))^2``."""
  del strategy, reach
  t = t0 + 1
  total = regrets + instant
  regrets = total * np.where(total > 0, t**1.5 / (t**1.5 + 1), 0.5)
  return regrets, cumulative * 0.9 + following(regrets) * (t / (t + 1)) ** 2


def _classic(preset):
  """The classic family (OpenSpiel's presets): regrets added, then discounted by t^alpha or
  t^beta; the sum gains t^gamma times the reach-weighted current strategy."""

  def update(t0, regrets, strategy, cumulative, instant, reach, following):
    del following
    t = t0 + 1
    total = regrets + instant
    factor = np.where(total >= 0, cfr.discount(t, preset.alpha), cfr.discount(t, preset.beta))
    return total * np.asarray(factor), cumulative + t**preset.gamma * reach * strategy

  return update


RULES = {"dcfr-pfs": _postflop_solver, "dcfr-ts": _texas_solver}


@functools.partial(jax.jit, static_argnums=(0, 2))
def _kit_pass(ops, tensors, p, strategy):
  """``p``'s action and node values against the opponent's reach, and ``p``'s own reach at
  its decisions, under ``strategy`` (both players'): the kit's operations, compiled once."""
  reach = [ops.reach(tensors, q, strategy[q]) for q in (0, 1)]
  q, v, _ = ops.values(tensors, p, strategy[p], reach[1 - p], None)
  return q, v, ops.decision_reach(tensors, p, reach[p])


def _reference(tensors, name, iterations):
  """[(strategies, averages, regrets)] after each iteration, the rule of ``name`` in NumPy
  over the kit's own counterfactual values (alternating: player 1 sees player 0's update)."""
  ops = kits.of_tensors(tensors).operations()
  rule = RULES.get(name) or _classic(cfr.PRESETS[name])
  legal = [np.asarray(ops.legal(tensors, p, 3 if _public(tensors) else 2)) for p in (0, 1)]
  strategy = [np.asarray(ops.uniform(tensors, p)) for p in (0, 1)]
  regrets = [np.zeros_like(s) for s in strategy]
  cumulative = [np.zeros_like(s) for s in strategy]
  out = []
  for t0 in range(iterations):
    for p in (0, 1):
      q, v, own = _kit_pass(ops, tensors, p, [jnp.asarray(s) for s in strategy])
      instant = np.where(legal[p], np.asarray(q) - np.asarray(v)[:, None], 0)
      own = np.asarray(own)[:, None]
      regrets[p], cumulative[p] = rule(
        t0, regrets[p], strategy[p], cumulative[p], instant, own, lambda r, p=p: _matching(r, legal[p])
      )
      strategy[p] = _matching(regrets[p], legal[p])
    averages = [_matching(c, legal[p]) for p, c in enumerate(cumulative)]
    out.append(([s.copy() for s in strategy], averages, [r.copy() for r in regrets]))
  return out


def _public(tensors):
  return type(tensors).__name__ == "PublicTreeTensors"


@pytest.mark.parametrize(
  "name, game_name, representation",
  [(n, "kuhn_poker", "sequence_form") for n in ("dcfr-pfs", "dcfr-ts", "dcfr", "cfr+", "lcfr")]
  + [(n, "leduc_poker", "public_tree") for n in ("dcfr-pfs", "dcfr-ts")],
)
def test_presets_follow_their_update_rules_iterate_by_iterate(name, game_name, representation):
  """Strategies, normalised averages and the peers' regrets after each iteration, to 1e-10
  (float64; regrets relative to their scale): the reference's values are compiled apart from
  the solver's step, which rounds them apart by up to 1e-11 by the 40th iteration."""
  tensors = game(game_name, representation).tensors
  solver = solvers.get(name, representation)
  step = jax.jit(solver.step)
  state = solver.init(tensors)
  for t, (strategy, average, regrets) in enumerate(_reference(tensors, name, ITERATIONS), 1):
    state = step(tensors, state)
    got_average = solver.average_strategy(tensors, state)
    for p in (0, 1):
      np.testing.assert_allclose(state.strategy[p], strategy[p], atol=1e-10, err_msg=f"{name} strategy t={t}")
      np.testing.assert_allclose(got_average[p], average[p], atol=1e-10, err_msg=f"{name} average t={t}")
      if name in RULES:  # the peers' regrets are stored as they store them
        scale = max(np.abs(regrets[p]).max(), 1e-300)
        np.testing.assert_allclose(state.regrets[p] / scale, regrets[p] / scale, atol=1e-10, err_msg=f"t={t}")


def test_the_average_restarts_where_postflop_solver_restarts():
  """Its iteration index t0 (from 0) a power of 4 empties the sum: our t = t0 + 1 = 2, 5, 17,
  65, 257, where j, the index since the restart, is 1 (and at t = 1); base 0 or 1 never
  restarts."""
  t = jnp.arange(1, 1100)
  j = np.asarray(since_restart(t, jnp.asarray(4)))
  assert [int(x) for x in np.flatnonzero(j == 1) + 1] == [1, 2, 5, 17, 65, 257, 1025]
  assert np.all(j[1:] - j[:-1] == np.where(j[1:] == 1, j[1:] - j[:-1], 1))
  for base in (0, 1):
    np.testing.assert_array_equal(since_restart(t, jnp.asarray(base)), t)
  np.testing.assert_array_equal(
    np.flatnonzero(np.asarray(since_restart(t[:40], jnp.asarray(3))) == 1) + 1, [1, 2, 4, 10, 28]
  )
  # after an averaging delay d the restarts count from its end: t - 1 - d a power of 4
  np.testing.assert_array_equal(
    np.flatnonzero(np.asarray(since_restart(t[:40], jnp.asarray(4), 2)) == 1) + 1, [1, 4, 7, 19]
  )


def test_a_restart_makes_the_average_the_current_strategy():
  """Right after a restart (t = 5) the unweighted average is that iteration's strategy."""
  tensors = game("kuhn_poker").tensors
  solver = solvers.get("dcfr-pfs")
  before = solver.run(tensors, solver.init(tensors), 4)
  after = solver.run(tensors, before, 1)
  for p in (0, 1):
    np.testing.assert_allclose(solver.average_strategy(tensors, after)[p], before.strategy[p], atol=1e-15)


def test_a_batch_over_the_schedule_equals_runs_alone():
  """dcfr, dcfr-pfs and dcfr-ts as one program (a batch over every hyperparameter)."""
  tensors = game("kuhn_poker").tensors
  names = ("dcfr", "dcfr-pfs", "dcfr-ts")
  defaults = [cfr.preset_hyperparameters(n) for n in names]
  batch = {k: jnp.asarray([d[k] for d in defaults]) for k in defaults[0]}
  solver = solvers.get("dcfr")
  batched = solver.run(tensors, solver.init(tensors, **batch), 30)
  for k, name in enumerate(names):
    alone = solvers.get(name)
    state = alone.run(tensors, alone.init(tensors), 30)
    for p in (0, 1):
      np.testing.assert_allclose(batched.strategy[p][..., k], state.strategy[p], atol=1e-13)
      np.testing.assert_allclose(batched.average[p][..., k], state.average[p], atol=1e-13)


@pytest.mark.parametrize(
  "name, value",
  [
    ("average_decay", 1.5),
    ("average_terms", 3),
    ("discount_lag", -1),
    ("average_restart", -2),
    ("weight_saturation", -0.5),
  ],
)
def test_bad_schedule_values_raise(name, value):
  tensors = game("kuhn_poker").tensors
  with pytest.raises(ValueError, match=name):
    solvers.get("dcfr").init(tensors, **{name: value})
