"""Restricted Nash Response (RNR) in sequence form with every deterministic solver of
jaxcfr.cfr (DESIGN section 5, "Opponent exploitation"; paper 003 sections 5-6).

The restricted player ``r`` plays ``mix_p(sigma_fix, sigma)``: with probability ``p`` the
fixed model ``sigma_fix``, otherwise its free strategy ``sigma`` (paper 003 eq. 3-4).
Realization plans mix linearly, so the unrestricted player ``u = 1 - r`` faces

    y_eff = p * plan(sigma_fix) + (1 - p) * plan(sigma)

and is the one whose strategy is the *counter-strategy*. ``p = 0`` is the original game
(a Nash equilibrium), ``p = 1`` a best response to the model.

The restricted player's free part learns against the unrestricted player's plan as in
plain CFR. In the modified game of paper 003 section 5 (an unobserved chance node at the
root chooses "fixed" with probability ``p``) the free part is a separate copy of ``r``'s
tree reached with chance probability ``1 - p``, so its counterfactual values are the
plain ones times ``1 - p``. Every update of cfr.py (regret matching, RM+ flooring, the
DCFR/LCFR discounts, PCFR+'s prediction, the own-reach averaging weights) is positively
homogeneous in the regrets, so for ``p < 1`` leaving out that constant changes neither
the free strategy nor anything else of the trajectory. At ``p = 1`` the modified game gives
the free part zero values (it would stay uniform); here it keeps learning against ``u``,
which ``u`` never sees (its weight in ``y_eff`` is 0), so ``u``'s trajectory is the same.

``p``, the restricted player and the model are array leaves of RNRState: ``p`` of shape
[*B] makes a batch of runs with trailing axes [..., *B] (cfr.init), and ``vmap`` over
states works too.
"""

from __future__ import annotations

import functools
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr import cfr, evaluation, mccfr, opponent
from jaxcfr.tensors import GameTensors


class RNRState(NamedTuple):
  """One RNR run or a batch of them (trailing batch axes ``B``).

  Attributes:
    solver: the cfr.CFRState of both players (the restricted player's entries are its free part).
    p: [*B] probability that the restricted player follows the model.
    restricted: [*B] int32, the restricted player (0 or 1).
    model: ([I0, A0, *B'], [I1, A1, *B']) the fixed model profile; only the restricted
      player's strategy is used. ``B'`` is empty or ``B``.
    model_plan: ([S0, *B'], [S1, *B']) its realization plans.
  """

  solver: cfr.CFRState
  p: jax.Array
  restricted: jax.Array
  model: tuple
  model_plan: tuple


class RNRSolver(NamedTuple):
  """init(tensors, model, *, p, restricted, **hyperparameters) -> RNRState;
  step(tensors, state) -> RNRState; run(tensors, state, n) -> RNRState (jitted);
  counter_profile(tensors, state) -> profile (model for r, average counter-strategy for u)."""

  init: Callable
  step: Callable
  run: Callable
  counter_profile: Callable
  base: cfr.Solver


def mixed_plan(state: RNRState, player: int, plan: jax.Array) -> jax.Array:
  """[S, *B] the plan that ``player``'s opponent faces: ``p * plan(sigma_fix) + (1 - p) * plan``
  where ``player`` is restricted, ``plan`` otherwise (paper 003 eq. 4)."""
  weight = jnp.where(state.restricted == player, state.p, 0).astype(plan.dtype)
  weight = weight.reshape((1,) + weight.shape)
  fixed = evaluation.expand_to(state.model_plan[player].astype(plan.dtype), plan.ndim)
  return weight * fixed + (1 - weight) * plan


def _step(tensors: GameTensors, state: RNRState, *, base: cfr.Solver) -> RNRState:
  transform = lambda player, strategy, plan: mixed_plan(state, player, plan)
  return state._replace(solver=base.step(tensors, state.solver, opponent_plan=transform))


def check_model(tensors: GameTensors, model) -> None:
  """``evaluation.check_profile`` on a concrete model (skipped under tracing)."""
  if len(model) != 2:
    raise ValueError(f"a model is a profile with one strategy per player (2), got {len(model)}")
  try:
    concrete = tuple(np.asarray(s) for s in model)
  except (jax.errors.TracerArrayConversionError, jax.errors.ConcretizationTypeError):
    return
  evaluation.check_profile(tensors, concrete, tolerance=1e-5)


def check_restriction(p, restricted) -> None:
  """Raises ValueError unless every ``p`` lies in [0, 1] and every restricted player is 0 or
  1 (skipped for traced values, under jit or vmap)."""
  try:
    concrete_p, concrete_r = np.asarray(p), np.asarray(restricted)
  except (jax.errors.TracerArrayConversionError, jax.errors.ConcretizationTypeError):
    return
  if np.any((concrete_p < 0) | (concrete_p > 1)):
    raise ValueError(f"p must lie in [0, 1], got {concrete_p}")
  if np.any((concrete_r != 0) & (concrete_r != 1)):
    raise ValueError(f"restricted must be 0 or 1, got {concrete_r}")


def _init(tensors: GameTensors, model, *, p, restricted=1, base: cfr.Solver, **hyperparameters) -> RNRState:
  dtype = tensors.dtype
  probe = base.init(tensors, **hyperparameters)
  p = jnp.asarray(p, dtype)
  restricted = jnp.asarray(restricted, jnp.int32)
  model = tuple(jnp.asarray(s, dtype) for s in model)
  batch = jnp.broadcast_shapes(probe.iteration.shape, p.shape, restricted.shape, *(s.shape[2:] for s in model))
  check_restriction(p, restricted)
  check_model(tensors, model)
  hyper = {k: jnp.broadcast_to(getattr(probe, k), batch) for k in ("alpha", "beta", "gamma", "averaging_delay")}
  state = base.init(tensors, **hyper)
  model_plan = tuple(evaluation.realization_plan(tp, s) for tp, s in zip(tensors.players, model))
  return RNRState(solver=state, p=jnp.broadcast_to(p, batch), restricted=jnp.broadcast_to(restricted, batch),
                  model=model, model_plan=model_plan)


def counter_profile(tensors: GameTensors, state: RNRState):
  """The profile (each [I, A, *B]) where the restricted player plays its model and the
  unrestricted player its average strategy: the RNR counter-strategy against the model."""
  return counter_of(cfr.average_strategy(tensors, state.solver), state.restricted, state.model)


def counter_of(average, restricted: jax.Array, model):
  """The profile (each [I, A, *B]) with the model where ``restricted`` [*B] is the player and
  ``average`` (each [I, A, *B]) elsewhere."""
  out = []
  for player in (0, 1):
    ndim = average[player].ndim
    restricted_ = restricted.reshape((1, 1) + restricted.shape)
    fixed = evaluation.expand_to(model[player].astype(average[player].dtype), ndim)
    out.append(jnp.where(restricted_ == player, fixed, average[player]))
  return tuple(out)


@functools.lru_cache(maxsize=None)
def solver(algorithm: str = "cfr+", **options) -> RNRSolver:
  """The RNR solver around ``cfr.solver(algorithm, **options)`` (cached: compiles once).

  ``init(tensors, model, *, p, restricted=1, **hyperparameters)``: ``model`` a profile
  (only the restricted player's strategy is used), ``p`` and ``restricted`` scalars or
  arrays [*B] broadcast with the hyperparameters of cfr.init.
  """
  base = cfr.solver(algorithm, **options)
  step = functools.partial(_step, base=base)

  run = cfr.iterate(step)

  return RNRSolver(init=functools.partial(_init, base=base), step=step, run=run,
                   counter_profile=counter_profile, base=base)


def evaluate(tensors: GameTensors, state: RNRState, game_value) -> dict:
  """Exact metrics of the counter-strategy (each [*B], from the unrestricted player u's
  point of view; ``game_value`` is player 0's value of the game).

  value_vs_model: u's expected value against the model.
  best_response_value: u's best-response value against the model (the p = 1 limit).
  exploitation: ``value_vs_model - game value`` (u's gain over the game value).
  exploitability: ``game value + BR_r(counter)``, u's worst-case loss below the game value
    (0 for an equilibrium strategy; paper 003 Figure 1's x axis).
  """
  return evaluate_counter(tensors, counter_profile(tensors, state), state.restricted, game_value)


def evaluate_counter(tensors: GameTensors, profile, restricted: jax.Array, game_value) -> dict:
  """``evaluate`` for a counter profile ([I, A, *B] each; the restricted player's entry is
  its model) and the restricted players [*B], whichever solver computed it."""
  unrestricted = 1 - restricted
  sign = jnp.where(unrestricted == 0, 1.0, -1.0).astype(tensors.dtype)
  value0 = evaluation.expected_value(tensors, profile)
  best = evaluation.best_response_values(tensors, profile)  # [2, *B]: BR0(sigma1), BR1(sigma0)
  br_restricted = jnp.where(restricted == 0, best[0], best[1])
  br_unrestricted = jnp.where(restricted == 0, best[1], best[0])
  game_value_u = sign * game_value
  value_u = sign * value0
  return {"value_vs_model": value_u, "best_response_value": br_unrestricted,
          "exploitation": value_u - game_value_u, "exploitability": game_value_u + br_restricted}


@functools.partial(jax.jit, static_argnums=3)
def _evaluate_with(tensors: GameTensors, state, game_value, counter: Callable) -> dict:
  return evaluate_counter(tensors, counter(tensors, state), state.restricted, game_value)


@functools.lru_cache(maxsize=None)
def _equilibrium(algorithm: str, iterations: int):
  average = opponent.average_of_run(algorithm, iterations)

  @jax.jit
  def solve(tensors):
    profile = average(tensors)
    return evaluation.expected_value(tensors, profile), evaluation.exploitability(tensors, profile)

  return solve


def game_value(tensors: GameTensors, *, iterations: int = 2000, algorithm: str = "cfr+"):
  """(value, tolerance): player 0's game value from an ``algorithm`` run of ``iterations``
  iterations, and the exploitability of its average (the value is within 2x that of the truth)."""
  value, tolerance = _equilibrium(algorithm, iterations)(tensors)
  return float(value), float(tolerance)


def trade_off(tensors: GameTensors, model, ps, *, restricted=(1,), algorithm: str = "cfr+",
              iterations: int = 1000, value=None, variant: str = "rnr", seed: int = 0,
              **options) -> list[dict]:
  """The exploitation / exploitability trade-off (paper 003 Figure 1, paper 000 Figure 6)
  for every (p, restricted player) pair, as one batched program.

  Args:
    model: the fixed model profile (only the restricted players' strategies are used).
    ps: the values of p.
    restricted: the restricted players to sweep (0, 1 or both).
    algorithm: a jaxcfr.cfr algorithm, or "mccfr-os" for Monte-Carlo RNR (jaxcfr.mcrnr;
      ``seed`` seeds every run; options as mcrnr.solver's).
    value: player 0's game value (default: ``game_value`` with the same algorithm, CFR+
      for MCRNR, at least as many iterations as the RNR runs and 2000).
    variant: "rnr" (restricted Nash response) or "dbr" (data-biased response with the
      constant confidence p at every infoset).
  Returns:
    one dict per pair: p, restricted_player, value_vs_model, best_response_value,
    exploitation, exploitability, game_value.
  """
  ps = [float(p) for p in ps]
  restricted = [int(r) for r in np.atleast_1d(restricted)]
  grid_p = np.array([p for r in restricted for p in ps])
  grid_r = np.array([r for r in restricted for _ in ps], np.int32)
  sampled = algorithm in mccfr.ALGORITHMS
  if sampled and (algorithm != "mccfr-os" or variant != "rnr"):
    raise ValueError(f"the sampled restricted Nash response (MCRNR) runs on outcome sampling (mccfr-os) "
                     f"with variant 'rnr'; got algorithm {algorithm!r}, variant {variant!r}")
  if variant not in ("rnr", "dbr"):
    raise ValueError(f"variant must be 'rnr' or 'dbr', got {variant!r}")
  if value is None:
    value, _ = game_value(tensors, iterations=max(iterations, 2000), algorithm="cfr+" if sampled else algorithm)
  if sampled:
    from jaxcfr import mcrnr  # pylint: disable=import-outside-toplevel  (mcrnr builds on this module)
    rnr = mcrnr.solver(**options)
    state = rnr.init(tensors, model, p=grid_p, restricted=grid_r, seed=seed)
  elif variant == "rnr":
    rnr = solver(algorithm, **options)
    state = rnr.init(tensors, model, p=grid_p, restricted=grid_r)
  else:
    rnr = dbr_solver(algorithm, **options)
    state = rnr.init(tensors, model, confidence=grid_p, restricted=grid_r)
  state = rnr.run(tensors, state, iterations)
  metrics = jax.device_get(_evaluate_with(tensors, state, jnp.asarray(value, tensors.dtype), rnr.counter_profile))
  rows = []
  for k, (p, r) in enumerate(zip(grid_p, grid_r)):
    rows.append({"p": float(p), "restricted_player": int(r),
                 **{name: float(v[k]) for name, v in metrics.items()}, "game_value": float(value)})
  return rows


# --- Data-biased response (paper 000 footnote 9; Johanson & Bowling 2009) ---------------
#
# The restricted player's choice between model and free strategy is made afresh, hidden,
# at each of its infosets: it follows ``b(I) = c(I) sigma_fix(I) + (1 - c(I)) sigma(I)``
# with a per-infoset confidence ``c(I)``. The unrestricted player faces the plan of ``b``.
# The set of such ``b`` is a treeplex whose local sets are scaled simplices, so CFR over it
# is CFR on ``sigma`` with counterfactual values computed with ``b`` below each infoset;
# the free part's local regrets are ``(1 - c(I)) (q_b(I, a) - sum_a' sigma(I, a') q_b(I, a'))``,
# and the per-infoset factor ``1 - c(I)`` (constant over iterations) is left out for the
# same reason as ``1 - p`` above (infosets with ``c(I) = 1`` are then still updated, which
# nothing sees).


class DBRState(NamedTuple):
  """One DBR run or a batch of them (trailing batch axes ``B``).

  Attributes:
    solver: the cfr.CFRState (the restricted player's entries are its free part).
    confidence: ([I0, *B'], [I1, *B']) per-infoset confidence; only the restricted player's is used.
    restricted: [*B] int32, the restricted player.
    model: ([I0, A0, *B'], [I1, A1, *B']) the fixed model profile.
  """

  solver: cfr.CFRState
  confidence: tuple
  restricted: jax.Array
  model: tuple


def behaviour(state: DBRState, player: int, strategy: jax.Array) -> jax.Array:
  """[I, A, *B] ``c sigma_fix + (1 - c) strategy`` where ``player`` is restricted, else ``strategy``."""
  confidence = state.confidence[player].astype(strategy.dtype)
  restricted = state.restricted.reshape((1,) + state.restricted.shape)
  weight = jnp.where(restricted == player, confidence, 0)
  weight = jnp.expand_dims(evaluation.expand_to(weight, strategy.ndim - 1), 1)
  model = evaluation.expand_to(state.model[player].astype(strategy.dtype), strategy.ndim)
  return weight * model + (1 - weight) * strategy


def _dbr_step(tensors: GameTensors, state: DBRState, *, base: cfr.Solver) -> DBRState:
  def own(player, strategy):
    return behaviour(state, player, strategy)

  def opponent_plan(player, strategy, plan):
    del plan
    return evaluation.realization_plan(tensors.players[player], own(player, strategy))

  return state._replace(solver=base.step(tensors, state.solver, opponent_plan=opponent_plan, behaviour=own))


def _dbr_init(tensors: GameTensors, model, *, confidence, restricted=1, base: cfr.Solver,
              **hyperparameters) -> DBRState:
  dtype = tensors.dtype
  if isinstance(confidence, (tuple, list)):
    confidence = tuple(jnp.asarray(c, dtype) for c in confidence)
  else:  # one constant for every infoset, scalar or [*B]
    c = jnp.asarray(confidence, dtype)
    confidence = tuple(jnp.broadcast_to(c, (tp.num_infosets,) + c.shape) for tp in tensors.players)
  restricted = jnp.asarray(restricted, jnp.int32)
  try:
    concrete = [np.asarray(c) for c in confidence] + [np.asarray(restricted)]
  except (jax.errors.TracerArrayConversionError, jax.errors.ConcretizationTypeError):
    concrete = None
  if concrete is not None:
    if any(np.any((c < 0) | (c > 1)) for c in concrete[:2]):
      raise ValueError("confidence must lie in [0, 1]")
    if np.any((concrete[2] != 0) & (concrete[2] != 1)):
      raise ValueError(f"restricted must be 0 or 1, got {concrete[2]}")
  check_model(tensors, model)
  probe = base.init(tensors, **hyperparameters)
  model = tuple(jnp.asarray(s, dtype) for s in model)
  batch = jnp.broadcast_shapes(probe.iteration.shape, restricted.shape, *(c.shape[1:] for c in confidence),
                               *(s.shape[2:] for s in model))
  hyper = {k: jnp.broadcast_to(getattr(probe, k), batch) for k in ("alpha", "beta", "gamma", "averaging_delay")}
  return DBRState(solver=base.init(tensors, **hyper), confidence=confidence,
                  restricted=jnp.broadcast_to(restricted, batch),
                  model=model)


@functools.lru_cache(maxsize=None)
def dbr_solver(algorithm: str = "cfr+", **options) -> RNRSolver:
  """The data-biased response solver around ``cfr.solver(algorithm, **options)``.

  ``init(tensors, model, *, confidence, restricted=1, **hyperparameters)``: ``confidence``
  a constant (scalar or [*B], every infoset) or a pair of per-infoset arrays
  ([I0, *B'], [I1, *B']), e.g. from ``count_confidence``. ``counter_profile`` and
  ``evaluate`` take its states as they take RNR states.
  """
  base = cfr.solver(algorithm, **options)
  step = functools.partial(_dbr_step, base=base)

  run = cfr.iterate(step)

  return RNRSolver(init=functools.partial(_dbr_init, base=base), step=step, run=run,
                   counter_profile=counter_profile, base=base)


def count_confidence(counts, *, p_max: float, threshold: float) -> jax.Array:
  """[I] count-based confidence ``p_max * min(1, n(I) / threshold)`` from observation
  counts [I, A] (e.g. opponent.sample_games): no trust in the model where it saw nothing,
  full trust ``p_max`` from ``threshold`` observations on (a linear ramp, one of the
  confidence functions of the data-biased response)."""
  total = jnp.asarray(counts).sum(1)
  return p_max * jnp.minimum(1.0, total / threshold)
