"""Restricted Nash Response (RNR) and data-biased response (DBR) on every deterministic solver
of jaxcfr.solvers.cfr and every exact kit (Johanson, Zinkevich and Bowling, "Computing Robust
Counter-Strategies", 2007, sections 5-6), through CFR's hooks: the sequence form's realization
plans and the public tree's ranges mix alike.

The restricted player ``r`` plays ``mix_p(sigma_fix, sigma)``: with probability ``p`` the
fixed model ``sigma_fix``, otherwise its free strategy ``sigma`` (Johanson et al. 2007 eq. 3-4).
Realization plans mix linearly, so the unrestricted player ``u = 1 - r`` faces

    y_eff = p * plan(sigma_fix) + (1 - p) * plan(sigma)

and is the one whose strategy is the *counter-strategy*. ``p = 0`` is the original game
(a Nash equilibrium), ``p = 1`` a best response to the model.

The restricted player's free part learns against the unrestricted player's plan as in
plain CFR. In the modified game of Johanson et al. 2007 section 5 (an unobserved chance node at the
root chooses "fixed" with probability ``p``) the free part is a separate copy of ``r``'s
tree reached with chance probability ``1 - p``, so its counterfactual values are the
plain ones times ``1 - p``. Every update of cfr.py (regret matching, RM+ flooring, the
DCFR/LCFR discounts, PCFR+'s prediction, the own-reach averaging weights) is positively
homogeneous in the regrets, so for ``p < 1`` leaving out that constant changes neither
the free strategy nor anything else of the trajectory. At ``p = 1`` the modified game gives
the free part zero values (it would stay uniform); here it keeps learning against ``u``,
which ``u`` never sees (its weight in ``y_eff`` is 0), so ``u``'s trajectory is the same.

``p``, the restricted player and the model are array leaves of RNRState: ``p`` of shape
[*B] makes a batch of runs with trailing axes [..., *B] like every solver's.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxcfr import kits
from jaxcfr.solvers import cfr, cfr_schedule, registry, restriction
from jaxcfr.solvers.restriction import check_model, check_restriction, counter_of

__all__ = ["RNRState", "DBRState", "mixed_plan", "behaviour", "counter_profile", "count_confidence", "solver", "BASE"]


class RNRState(NamedTuple):
  """One RNR run or a batch of them (trailing batch axes ``B``).

  Attributes:
    inner_state: the cfr.CFRState of both players (the restricted player's entries are its free part).
    p: [*B] probability that the restricted player follows the model.
    restricted: [*B] int32, the restricted player (0 or 1).
    model: ([N0, A0, *E, *B], [N1, A1, *E, *B]) the fixed model profile; only the restricted
      player's strategy is used.
    model_plan: its reaches (realization plans [S, *B] on the sequence form, ranges
      [N, H, *B] on the public tree).
  """

  inner_state: cfr.CFRState
  p: jax.Array
  restricted: jax.Array
  model: tuple
  model_plan: tuple

  @property
  def iteration(self) -> jax.Array:
    return self.inner_state.iteration


def mixed_plan(state: RNRState, player: int, plan: jax.Array) -> jax.Array:
  """The reach that ``player``'s opponent faces: ``p * reach(sigma_fix) + (1 - p) * plan``
  where ``player`` is restricted, ``plan`` otherwise (Johanson et al. 2007, eq. 4); reaches
  mix linearly in both kits."""
  weight = jnp.where(state.restricted == player, state.p, 0).astype(plan.dtype)
  weight = weight.reshape((1,) * (plan.ndim - weight.ndim) + weight.shape)
  fixed = state.model_plan[player].astype(plan.dtype)
  fixed = fixed.reshape(fixed.shape + (1,) * (plan.ndim - fixed.ndim))
  return weight * fixed + (1 - weight) * plan


def _step(tensors, state: RNRState, *, base_step, operations) -> RNRState:
  del operations
  hooks = cfr.Hooks(opponent_plan=lambda player, strategy, plan: mixed_plan(state, player, plan))
  return state._replace(inner_state=base_step(tensors, state.inner_state, hooks=hooks))


def _base_state(tensors, base: str, batch_parts, hyperparameters, operations):
  """The base CFR state and the batch shape: the base's hyperparameters broadcast with
  ``batch_parts`` (the shapes of p, restricted, the model, ...)."""
  defaults = cfr.preset_hyperparameters(base)
  unknown = sorted(set(hyperparameters) - set(defaults))
  if unknown:
    raise ValueError(f"{base} has no hyperparameter {', '.join(unknown)}; its hyperparameters: {', '.join(defaults)}")
  given, neutral = cfr_schedule.split_neutral({**defaults, **hyperparameters})
  hyper = {k: jnp.asarray(v) for k, v in given.items()}
  batch = jnp.broadcast_shapes(*(h.shape for h in hyper.values()), *batch_parts)
  state = cfr.init(
    tensors,
    **{k: jnp.broadcast_to(h, batch) for k, h in hyper.items()},
    **neutral,
    predictive=cfr.PRESETS[base].predictive,
    operations=operations,
  )
  return state, batch


def _init(tensors, *, model=None, p=None, restricted=1, base: str, operations, **hyperparameters) -> RNRState:
  if p is None:
    raise ValueError("rnr needs p, the probability that the restricted player follows the model")
  check_restriction(p, restricted)
  check_model(tensors, model)
  dtype = tensors.dtype
  p, restricted = jnp.asarray(p, dtype), jnp.asarray(restricted, jnp.int32)
  model = tuple(jnp.asarray(s, dtype) for s in model)
  rows = _row_axes(tensors, operations)
  state, batch = _base_state(
    tensors, base, [p.shape, restricted.shape, *(s.shape[rows:] for s in model)], hyperparameters, operations
  )
  model = _batched_profile(model, batch, rows)
  model_plan = tuple(operations.reach(tensors, player, s) for player, s in enumerate(model))
  return RNRState(
    inner_state=state,
    p=jnp.broadcast_to(p, batch),
    restricted=jnp.broadcast_to(restricted, batch),
    model=model,
    model_plan=model_plan,
  )


def _row_axes(tensors, operations) -> int:
  """The axes of one strategy before the batch axes (2 for [I, A], 3 for [N, A, H])."""
  return operations.uniform(tensors, 0).ndim


def _expand(x: jax.Array, ndim: int) -> jax.Array:
  return x.reshape(x.shape + (1,) * (ndim - x.ndim))


def _batched_profile(profile, batch: tuple, rows: int) -> tuple:
  """Each strategy [N, A, *E] or [N, A, *E, *B] broadcast to [N, A, *E, *B] (every state
  leaf carries the batch axes)."""
  return tuple(jnp.broadcast_to(_expand(s, rows + len(batch)), s.shape[:rows] + batch) for s in profile)


def _average(tensors, state, *, operations):
  return cfr.average_strategy(tensors, state.inner_state, operations)


def _current(tensors, state):
  return cfr.current_strategy(tensors, state.inner_state)


def counter_profile(tensors, state, *, operations):
  """The profile (each [I, A, *B]) where the restricted player plays its model and the
  unrestricted player its average strategy: the counter-strategy against the model."""
  return counter_of(_average(tensors, state, operations=operations), state.restricted, state.model)


def solver(name: str, *, kit: str = "sequence_form", base: str = "cfr+", updates: str | None = None) -> registry.Solver:
  """The registered ``rnr`` or ``dbr`` solver on the CFR preset ``base``.

  rnr: ``init(tensors, *, model, p, restricted=1, **base hyperparameters)``: ``model`` a
  profile (only the restricted player's strategy is used); ``p`` and ``restricted`` scalars
  or arrays [*B], broadcast with the base's hyperparameters.
  dbr: ``init(tensors, *, model, p=None, confidence=None, restricted=1, **base
  hyperparameters)``: ``p`` one confidence for every infoset (scalar or [*B]), or
  ``confidence`` a pair of per-infoset arrays ([I0, *B'], [I1, *B']), e.g. from
  ``count_confidence``.
  """
  operations = kits.get(kit).operations()
  base_step = cfr.preset_step(base, updates, operations=operations)
  init, step = (_init, _step) if name == "rnr" else (_dbr_init, _dbr_step)
  defaults = {"p": None, "restricted": 1, **cfr.preset_hyperparameters(base)}
  return registry.Solver(
    name=name,
    init=functools.partial(init, base=base, operations=operations),
    step=functools.partial(step, base_step=base_step, operations=operations),
    average_strategy=functools.partial(_average, operations=operations),
    current_strategy=_current,
    hyperparameters=defaults,
    options={"base": base, "updates": updates},
    requires=("model", "p"),
    counter_profile=functools.partial(counter_profile, operations=operations),
  )


# --- Data-biased response (Ponsen et al. 2011 footnote 9; Johanson & Bowling 2009) ---------------
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
    inner_state: the cfr.CFRState (the restricted player's entries are its free part).
    confidence: ([N0, *E, *B], [N1, *E, *B]) per-row confidence (per infoset; per public node
      and hand on the public tree); only the restricted player's is used.
    restricted: [*B] int32, the restricted player.
    model: ([I0, A0, *B], [I1, A1, *B]) the fixed model profile.
  """

  inner_state: cfr.CFRState
  confidence: tuple
  restricted: jax.Array
  model: tuple

  @property
  def iteration(self) -> jax.Array:
    return self.inner_state.iteration


def behaviour(state: DBRState, player: int, strategy: jax.Array) -> jax.Array:
  """[N, A, *E, *B] ``c sigma_fix + (1 - c) strategy`` where ``player`` is restricted, else
  ``strategy``."""
  confidence = state.confidence[player].astype(strategy.dtype)
  restricted = state.restricted.reshape((1,) * (confidence.ndim - state.restricted.ndim) + state.restricted.shape)
  weight = jnp.where(restricted == player, confidence, 0)
  weight = jnp.expand_dims(_expand(weight, strategy.ndim - 1), 1)
  model = _expand(state.model[player].astype(strategy.dtype), strategy.ndim)
  return weight * model + (1 - weight) * strategy


def _dbr_step(tensors, state: DBRState, *, base_step, operations) -> DBRState:
  def own(player, strategy):
    return behaviour(state, player, strategy)

  def opponent_plan(player, strategy, plan):
    del plan
    return operations.reach(tensors, player, own(player, strategy))

  hooks = cfr.Hooks(opponent_plan=opponent_plan, behaviour=own)
  return state._replace(inner_state=base_step(tensors, state.inner_state, hooks=hooks))


def _dbr_init(
  tensors, *, model=None, p=None, confidence=None, restricted=1, base: str, operations, **hyperparameters
) -> DBRState:
  if (p is None) == (confidence is None):
    raise ValueError(
      "dbr needs exactly one of p (one confidence for every infoset) and confidence "
      "(per-infoset arrays, e.g. from count_confidence)"
    )
  dtype = tensors.dtype
  if confidence is not None:
    confidence = tuple(jnp.asarray(c, dtype) for c in confidence)
    for c in confidence:
      check_restriction(c, restricted, name="confidence")
  else:  # one constant for every infoset, scalar or [*B]
    check_restriction(p, restricted)
    c = jnp.asarray(p, dtype)
    uniform = [operations.uniform(tensors, player) for player in (0, 1)]
    confidence = tuple(jnp.broadcast_to(c, u.shape[:1] + u.shape[2:] + c.shape) for u in uniform)
  check_model(tensors, model)
  restricted = jnp.asarray(restricted, jnp.int32)
  model = tuple(jnp.asarray(s, dtype) for s in model)
  rows = _row_axes(tensors, operations)
  state, batch = _base_state(
    tensors,
    base,
    [restricted.shape, *(c.shape[rows - 1 :] for c in confidence), *(s.shape[rows:] for s in model)],
    hyperparameters,
    operations,
  )
  confidence = tuple(
    jnp.broadcast_to(_expand(c, rows - 1 + len(batch)), c.shape[: rows - 1] + batch) for c in confidence
  )
  return DBRState(
    inner_state=state,
    confidence=confidence,
    restricted=jnp.broadcast_to(restricted, batch),
    model=_batched_profile(model, batch, rows),
  )


def count_confidence(counts, *, p_max: float, threshold: float) -> jax.Array:
  """[I] count-based confidence ``p_max * min(1, n(I) / threshold)`` from observation
  counts [I, A] (e.g. jaxcfr.evaluate.opponent.sample_games): no trust in the model where
  it saw nothing, full trust ``p_max`` from ``threshold`` observations on (a linear ramp,
  one of the confidence functions of the data-biased response)."""
  total = jnp.asarray(counts).sum(1)
  return p_max * jnp.minimum(1.0, total / threshold)


BASE = registry.Param("base", str, "cfr+", "the CFR preset the restricted solver runs on", choices=cfr.ALGORITHMS)
_RESTRICTED_HYPERPARAMETERS = (
  restriction.P,
  restriction.RESTRICTED,
  restriction.MODEL,
  *cfr.declared_hyperparameters(None),
)

for _kit in kits.names():
  if kits.get(_kit).operations is None:
    continue
  registry.register(
    "rnr",
    functools.partial(solver, "rnr", kit=_kit),
    summary="restricted Nash response (Johanson et al. 2007) on a CFR preset",
    representation=_kit,
    options=(BASE, cfr.UPDATES),
    hyperparameters=_RESTRICTED_HYPERPARAMETERS,
    requires=("model", "p"),
  )
  registry.register(
    "dbr",
    functools.partial(solver, "dbr", kit=_kit),
    summary="data-biased response (per-row confidence in the model) on a CFR preset",
    representation=_kit,
    options=(BASE, cfr.UPDATES),
    hyperparameters=(
      *_RESTRICTED_HYPERPARAMETERS,
      registry.Param(
        "confidence", object, None, "per-row confidence ([N0, *E, *B], [N1, *E, *B])", batchable=True, cli=False
      ),
    ),
    requires=("model",),
  )
