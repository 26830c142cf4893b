"""The deterministic CFR family as pure, batchable ``init`` / ``step`` pairs.

One parameterisation covers CFR, CFR+, LCFR, DCFR(alpha, beta, gamma) and PCFR+. At
iteration ``t`` (from 1) the updating player's cumulative regrets are

    R <- R + r^t                                   (r^t: instantaneous regret, q - v)
    R <- R * t^alpha / (t^alpha + 1)   where R >= 0   (alpha = inf: no discount)
    R <- R * t^beta  / (t^beta  + 1)   where R <  0   (beta = inf: none; beta = -inf: R <- 0)

and its average-strategy accumulator gains ``t^gamma * x(parent(I)) * sigma^t(I, a)`` (own
reach times the current strategy; no weight during the first ``averaging_delay``
iterations). The next strategy is regret matching on ``R`` (``R + r^t`` for the predictive
PCFR+, whose prediction is the last instantaneous regret). DCFR is Brown & Sandholm's
"Solving Imperfect-Information Games via Discounted Regret Minimization" (2019); CFR, CFR+
and LCFR are defined in Chelarescu 2019 sections 1.6-1.7; counterfactual regret is Lanctot et al. 2009
eq. 4-5.

Presets follow OpenSpiel's solvers of the same name (alternating updates, player 0 first,
player 1 then sees player 0's new strategy):

    cfr    alpha=inf beta=inf  gamma=0   (pyspiel.CFRSolver: plain RM, uniform average)
    cfr+   alpha=inf beta=-inf gamma=1   (pyspiel.CFRPlusSolver: RM+, linear average)
    lcfr   alpha=1   beta=1    gamma=1   (discounted_cfr.LCFRSolver)
    dcfr   alpha=1.5 beta=0    gamma=2   (discounted_cfr.DCFRSolver)
    pcfr+  alpha=inf beta=-inf gamma=2, predictive (Farina, Kroer & Sandholm 2021)
    rm, rm+: cfr and cfr+ with simultaneous updates (regret matching, Chelarescu 2019 chapter 3)

The average accumulator is kept normalised (a convex combination, ``W_t / w_t`` carried
as ``weight_ratio``), so large ``t^gamma`` cannot overflow; ratios of its entries, and so
the average strategy, are unchanged. The discounts are computed from ``t^-|alpha|`` (and
``t^-|beta|``), never from ``t^alpha``, so that they stay finite for every exponent and
iteration (see ``discount``).

Solvers built on CFR reuse its iteration by composition: ``step`` (and ``step_with_carry``)
take ``Hooks``, typed functions that replace the plan a player updates against, the
behaviour below a player's infosets, or the regrets-to-strategy map (jaxcfr.solvers.rnr's
RNR and DBR, jaxcfr.solvers.rcfr's regressor), and such a solver keeps the CFRState as
its ``inner_state``.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, NamedTuple
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.core import evaluation, regret
from jaxcfr.game.tensors import GameTensors, Treeplex
from jaxcfr.solvers import registry

__all__ = [
  "SUMMARIES",
  "ALGORITHMS",
  "INF",
  "PRESETS",
  "Preset",
  "CFRState",
  "PlayerUpdate",
  "OpponentPlan",
  "Behaviour",
  "NextStrategy",
  "Hooks",
  "normalise_rows",
  "regret_matching",
  "discount",
  "next_weight_ratio",
  "init",
  "check_hyperparameters",
  "broadcast_hyperparameters",
  "step",
  "step_with_carry",
  "average_strategy",
  "current_strategy",
  "preset_step",
  "preset_hyperparameters",
  "declared_hyperparameters",
  "UPDATES",
  "solver",
]

ALGORITHMS = ("cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "rm", "rm+")
INF = float("inf")


@dataclasses.dataclass(frozen=True)
class Preset:
  alpha: float
  beta: float
  gamma: float
  updates: str = "alternating"
  predictive: bool = False


PRESETS = {
  "cfr": Preset(INF, INF, 0.0),
  "cfr+": Preset(INF, -INF, 1.0),
  "lcfr": Preset(1.0, 1.0, 1.0),
  "dcfr": Preset(1.5, 0.0, 2.0),
  "pcfr+": Preset(INF, -INF, 2.0, predictive=True),
  "rm": Preset(INF, INF, 0.0, updates="simultaneous"),
  "rm+": Preset(INF, -INF, 1.0, updates="simultaneous"),
}


class CFRState(NamedTuple):
  """State of one run, or of a batch of runs with trailing batch axes ``B`` (see ``init``).
  Every field is an array, so ``vmap`` over states runs a sweep too.

  Attributes:
    regrets: ([I0, A0], [I1, A1]) cumulative (discounted) regrets.
    strategy: ([I0, A0], [I1, A1]) current strategies sigma^t.
    average: ([I0, A0], [I1, A1]) normalised reach-weighted strategy sums.
    last_regret: ([I0, A0], [I1, A1]) last instantaneous regrets (PCFR+'s prediction);
      empty ([0, A]) for solvers that do not predict.
    iteration: [] int32, iterations done.
    weight_ratio: [] float, ``W_t / w_t`` of the averaging weights (0 before averaging).
    alpha, beta, gamma: [] float, the discount exponents.
    averaging_delay: [] int32, iterations that do not enter the average.
  """

  regrets: tuple
  strategy: tuple
  average: tuple
  last_regret: tuple
  iteration: jax.Array
  weight_ratio: jax.Array
  alpha: jax.Array
  beta: jax.Array
  gamma: jax.Array
  averaging_delay: jax.Array


def normalise_rows(treeplex: Treeplex, weights: jax.Array) -> jax.Array:
  """[I, A, *B] rows of non-negative ``weights`` scaled to sum to one over the legal
  actions (axis 1); uniform where a row is all zero."""
  return regret.normalise(weights, evaluation.expand_to(treeplex.legal, weights.ndim))


def regret_matching(treeplex: Treeplex, regrets: jax.Array) -> jax.Array:
  """[I, A, *B] strategy proportional to positive regret; uniform where none is positive."""
  return regret.regret_matching(regrets, evaluation.expand_to(treeplex.legal, regrets.ndim))


def discount(t: jax.Array, exponent: jax.Array) -> jax.Array:
  """The discount factor of iteration ``t >= 1`` ([*B]): ``t^e / (t^e + 1)``, with e = inf
  giving 1 (no discount) and e = -inf giving 0 (a reset).

  Computed as ``1 / (1 + t^-e)`` for ``e >= 0`` and ``t^e / (t^e + 1)`` for ``e < 0``: the
  power is ``t^-|e|``, in (0, 1], so that no exponent and no ``t`` overflow it (``t^e`` itself
  is inf for e = 100 at t = 1,203 in float64 and at t = 3 in float32, and inf / inf is NaN);
  the factor is finite and in [0, 1] for every exponent, and smooth in it."""
  finite = jnp.where(jnp.isinf(exponent), 0.0, exponent)
  positive = finite >= 0
  small = t ** jnp.where(positive, -finite, finite)  # t^-|e|, the gradient of |e| kept at e = 0
  factor = jnp.where(positive, 1 / (1 + small), small / (small + 1))
  return jnp.where(exponent == INF, 1.0, jnp.where(exponent == -INF, 0.0, factor))


def next_weight_ratio(state: CFRState, t: jax.Array) -> jax.Array:
  """[*B] ``W_t / w_t`` of iteration ``t`` with ``w_t = t^gamma`` after the delay:
  ``1 + W_{t-1}/w_{t-1} * ((t-1)/t)^gamma`` (0 during the delay). ``state``: anything with
  CFRState's ``weight_ratio``, ``gamma`` and ``averaging_delay``."""
  averaging = t > state.averaging_delay
  growth = ((t - 1) / t) ** state.gamma
  ratio = 1.0 + state.weight_ratio * growth
  return jnp.where(averaging, ratio, 0.0)


class PlayerUpdate(NamedTuple):
  """One player's update within an iteration (each [I, A, *B]).

  Attributes:
    regrets: the cumulative regrets after the update (added and discounted).
    average: the normalised average-strategy accumulator after the update.
    instant: the instantaneous regrets ``r^t = q - v`` (0 at illegal actions).
    strategy: the player's next strategy (by default regret matching on ``regrets``, or on
      ``regrets + instant`` for the predictive PCFR+).
  """

  regrets: jax.Array
  average: jax.Array
  instant: jax.Array
  strategy: jax.Array


OpponentPlan = Callable[[int, jax.Array, jax.Array], jax.Array]
"""``opponent_plan(player, strategy [I, A, *B], plan [S, *B]) -> plan [S, *B]``: the realization
plan of ``player`` that the other player updates against (default: ``plan``, that of ``strategy``)."""

Behaviour = Callable[[int, jax.Array], jax.Array]
"""``behaviour(player, strategy [I, A, *B]) -> [I, A, *B]``: the strategy ``player`` follows below
each of its infosets when its counterfactual values are computed (default: ``strategy``)."""

NextStrategy = Callable[[int, PlayerUpdate, Any], tuple[PlayerUpdate, Any]]
"""``next_strategy(player, update, carry) -> (update, carry)``: replaces the player's update after
the regret and average updates, e.g. its next strategy (and regrets) from a regressor fit to
the regrets; ``carry`` is threaded through the players' updates in order (see ``step_with_carry``)."""


class Hooks(NamedTuple):
  """The parts of a CFR iteration that a solver built on it replaces (None: CFR's own).

  Attributes:
    opponent_plan: an OpponentPlan (jaxcfr.solvers.rnr: a restricted player's plan mixed
      with a fixed model's).
    behaviour: a Behaviour (jaxcfr.solvers.rnr's data-biased response: the model mixed in
      at every infoset); regrets are then those of the player's strategy at each infoset
      with the behaviour downstream.
    next_strategy: a NextStrategy (jaxcfr.solvers.rcfr: the next strategy by regret
      matching on a regressor's estimate of the regrets).
  """

  opponent_plan: OpponentPlan | None = None
  behaviour: Behaviour | None = None
  next_strategy: NextStrategy | None = None


def _update_player(
  tensors: GameTensors,
  state: CFRState,
  player: int,
  strategies: list,
  opponent_plan: jax.Array,
  own_plan: jax.Array,
  t: jax.Array,
  weight_ratio,
  predictive: bool,
  behaviour: jax.Array | None = None,
) -> PlayerUpdate:
  """One player's regret, average and strategy update against ``opponent_plan``.

  ``behaviour``, if given, is the strategy the player actually follows below each infoset;
  regrets are then those of ``strategies[player]`` at each infoset with ``behaviour`` downstream."""
  treeplex = tensors.players[player]
  seq_values = evaluation.sequence_values_for(tensors.payoff, player, opponent_plan)
  if behaviour is None:
    q, v = evaluation.counterfactual_values(treeplex, seq_values, strategies[player])
  else:
    q, _ = evaluation.counterfactual_values(treeplex, seq_values, behaviour)
    v = evaluation.sum_actions(q * strategies[player])
  instant = jnp.where(evaluation.expand_to(treeplex.legal, q.ndim), q - jnp.expand_dims(v, 1), 0)
  regrets = state.regrets[player] + instant
  factor = jnp.where(regrets >= 0, discount(t, state.alpha), discount(t, state.beta))
  regrets = regrets * factor.astype(regrets.dtype)
  reach = jnp.expand_dims(evaluation.parent_reach(treeplex, own_plan), 1)
  mix = jnp.where(weight_ratio > 0, 1.0 / jnp.where(weight_ratio > 0, weight_ratio, 1.0), 0.0)
  mix = mix.astype(regrets.dtype)
  average = state.average[player] * (1 - mix) + reach * strategies[player] * mix
  matched = regrets + instant if predictive else regrets
  return PlayerUpdate(regrets, average, instant, regret_matching(treeplex, matched))


def step_with_carry(
  tensors: GameTensors,
  state: CFRState,
  carry: Any = None,
  *,
  alternating: bool = True,
  predictive: bool = False,
  hooks: Hooks | None = None,
) -> tuple[CFRState, Any]:
  """One CFR iteration with ``hooks`` (see Hooks), threading ``carry`` through
  ``hooks.next_strategy`` (player 0's update, then player 1's): returns (state, carry).

  Each player ``i`` in turn: counterfactual values against the opponent's plan (with
  ``hooks.opponent_plan`` and ``hooks.behaviour``), the regret and average updates of the
  module doc, and its next strategy (``hooks.next_strategy``). ``alternating``: player 1
  updates against player 0's new strategy (else both against the current profile).
  ``predictive``: PCFR+'s prediction (the last instantaneous regrets) is kept and added
  before regret matching."""
  hooks = Hooks() if hooks is None else hooks
  t = (state.iteration + 1).astype(state.alpha.dtype)
  weight_ratio = next_weight_ratio(state, t)
  current, new = list(state.strategy), list(state.strategy)
  regrets, average, last = list(state.regrets), list(state.average), list(state.last_regret)
  plans = [evaluation.realization_plan(tp, s) for tp, s in zip(tensors.players, current)]
  for player in (0, 1):
    opponent = plans[1 - player]
    if hooks.opponent_plan is not None:
      opponent = hooks.opponent_plan(1 - player, current[1 - player], opponent)
    own = None if hooks.behaviour is None else hooks.behaviour(player, current[player])
    update = _update_player(tensors, state, player, current, opponent, plans[player], t, weight_ratio, predictive, own)
    if hooks.next_strategy is not None:
      update, carry = hooks.next_strategy(player, update, carry)
    regrets[player], average[player], new[player] = update.regrets, update.average, update.strategy
    if predictive:
      last[player] = update.instant
    if alternating:  # the next player sees this player's new strategy
      current[player] = new[player]
      plans[player] = evaluation.realization_plan(tensors.players[player], new[player])
  state = state._replace(
    regrets=tuple(regrets),
    strategy=tuple(new),
    average=tuple(average),
    last_regret=tuple(last),
    iteration=state.iteration + 1,
    weight_ratio=weight_ratio,
  )
  return state, carry


def step(
  tensors: GameTensors,
  state: CFRState,
  *,
  alternating: bool = True,
  predictive: bool = False,
  hooks: Hooks | None = None,
) -> CFRState:
  """One CFR iteration (``step_with_carry`` without a carry): ``hooks`` replace parts of it
  (jaxcfr.solvers.rnr's RNR and DBR build on ``opponent_plan`` and ``behaviour``)."""
  return step_with_carry(tensors, state, None, alternating=alternating, predictive=predictive, hooks=hooks)[0]


def init(
  tensors: GameTensors, *, alpha=INF, beta=INF, gamma=0.0, averaging_delay=0, predictive: bool = False
) -> CFRState:
  """A fresh state: zero regrets, uniform strategies.

  Hyperparameters may be traced arrays. Arrays of shape ``B`` make a batch of runs: every
  field then has trailing axes ``B`` (strategies ``[I, A, *B]``, scalars ``[*B]``), and
  ``step`` advances all runs as one program. ``last_regret`` is ``[I, A, *B]`` for a
  ``predictive`` solver and empty (``[0, A, *B]``) otherwise: on large games every
  ``[I, A]`` array of the state is a sizeable share of memory.
  """
  check_hyperparameters(alpha=alpha, beta=beta, gamma=gamma, averaging_delay=averaging_delay)
  dtype = tensors.dtype
  hyper, batch = broadcast_hyperparameters(dtype, alpha, beta, gamma, averaging_delay)
  zeros = tuple(jnp.zeros(tp.legal.shape + batch, dtype) for tp in tensors.players)
  uniform = tuple(
    jnp.broadcast_to(evaluation.expand_to(s, 2 + len(batch)), tp.legal.shape + batch)
    for tp, s in zip(tensors.players, evaluation.uniform_profile(tensors))
  )
  last = zeros if predictive else tuple(jnp.zeros((0, tp.max_actions) + batch, dtype) for tp in tensors.players)
  return CFRState(
    regrets=zeros,
    strategy=uniform,
    average=zeros,
    last_regret=last,
    iteration=jnp.zeros(batch, jnp.int32),
    weight_ratio=jnp.zeros(batch, dtype),
    **hyper,
  )


def broadcast_hyperparameters(dtype, alpha, beta, gamma, averaging_delay) -> tuple[dict, tuple]:
  """``({alpha, beta, gamma, averaging_delay}: arrays [*B], B)``: the hyperparameters as
  arrays (floats in ``dtype``, the delay int32) broadcast to their common batch shape ``B``."""
  hyper = dict(
    alpha=jnp.asarray(alpha, dtype),
    beta=jnp.asarray(beta, dtype),
    gamma=jnp.asarray(gamma, dtype),
    averaging_delay=jnp.asarray(averaging_delay, jnp.int32),
  )
  batch = jnp.broadcast_shapes(*(h.shape for h in hyper.values()))
  return {k: jnp.broadcast_to(h, batch) for k, h in hyper.items()}, batch


def check_hyperparameters(**values) -> None:
  """Raises ValueError naming a concrete hyperparameter out of its range: alpha and beta
  NaN, gamma NaN or negative, averaging_delay negative (traced values are not checked)."""
  for name, value in values.items():
    value = registry.concrete(value)
    if value is None:
      continue
    if np.any(np.isnan(value.astype(float))):
      raise ValueError(f"{name} must be a number, got {value}")
    if name in ("gamma", "averaging_delay") and np.any(value < 0):
      raise ValueError(f"{name} must be >= 0, got {value}")


def average_strategy(tensors: GameTensors, state: CFRState):
  """The average profile ([I, A, *B] each); uniform at infosets the player never reached."""
  return tuple(normalise_rows(tp, a) for tp, a in zip(tensors.players, state.average))


def current_strategy(tensors: GameTensors, state: CFRState):
  """The current profile sigma^t ([I, A, *B] each)."""
  del tensors
  return state.strategy


def preset_step(algorithm: str, updates: str | None = None) -> Callable:
  """``step(tensors, state, *, hooks=None)`` of a preset with its update order (default:
  the preset's): ``step`` with the preset's ``alternating`` and ``predictive``."""
  if algorithm not in PRESETS:
    raise ValueError(f"unknown CFR algorithm {algorithm!r}; choose one of {list(ALGORITHMS)}")
  preset = PRESETS[algorithm]
  updates = updates or preset.updates
  if updates not in ("alternating", "simultaneous"):
    raise ValueError(f"updates must be 'alternating' or 'simultaneous', got {updates!r}")
  return functools.partial(step, alternating=updates == "alternating", predictive=preset.predictive)


def preset_hyperparameters(algorithm: str) -> dict:
  """The preset's defaults of the batchable hyperparameters."""
  return {p.name: p.default for p in declared_hyperparameters(algorithm)}


SUMMARIES = {  # one line per preset, shared by the public tree's registrations
  "cfr": "counterfactual regret minimisation (regret matching, uniform average)",
  "cfr+": "CFR+ (regret matching+, linear average)",
  "lcfr": "linear CFR (regrets and average weighted by t)",
  "dcfr": "discounted CFR (Brown and Sandholm 2019)",
  "pcfr+": "predictive CFR+ (Farina, Kroer and Sandholm 2021)",
  "rm": "regret matching with simultaneous updates",
  "rm+": "regret matching+ with simultaneous updates",
}

UPDATES = registry.Param(
  "updates",
  str,
  None,
  "update order: alternating (player 0, then player 1 against player 0's new strategy) or simultaneous "
  "(default: the preset's)",
  choices=("alternating", "simultaneous"),
)


def declared_hyperparameters(algorithm: str | None) -> tuple:
  """The CFR family's batchable hyperparameters with the defaults of preset ``algorithm``
  (None: "the preset's", for solvers built on a preset chosen by an option)."""
  preset = PRESETS[algorithm] if algorithm is not None else None
  pick = (lambda v: v) if preset is not None else (lambda v: None)
  return (
    registry.Param(
      "alpha",
      float,
      pick(preset and preset.alpha),
      "CFR family: positive regrets scaled by t^alpha / (t^alpha + 1) each iteration (inf: no discount)",
      batchable=True,
    ),
    registry.Param(
      "beta",
      float,
      pick(preset and preset.beta),
      "CFR family: negative regrets scaled by t^beta / (t^beta + 1) (inf: none; -inf: reset to 0)",
      batchable=True,
    ),
    registry.Param(
      "gamma",
      float,
      pick(preset and preset.gamma),
      "CFR family: iteration t weighs t^gamma in the average strategy",
      batchable=True,
      low=0.0,
    ),
    registry.Param(
      "averaging_delay",
      int,
      0,
      "iterations left out of the average strategy",
      batchable=True,
      low=0,
      below_iterations=True,
    ),
  )


def solver(name: str, *, updates: str | None = None) -> registry.Solver:
  """The registered solver of a preset (``jaxcfr.solvers.get(name, updates=...)``).

  Options:
    updates: "alternating" or "simultaneous" (default: the preset's).

  Hyperparameters of ``init`` (batchable): alpha, beta, gamma (discount exponents, default
  the preset's; see the module doc) and averaging_delay (iterations left out of the average).
  """
  preset = preset_step(name, updates)
  defaults = preset_hyperparameters(name)
  predictive = PRESETS[name].predictive

  def init_with_defaults(tensors, **hyperparameters):
    return init(tensors, **{**defaults, **hyperparameters}, predictive=predictive)

  return registry.Solver(
    name=name,
    init=init_with_defaults,
    step=preset,
    average_strategy=average_strategy,
    current_strategy=current_strategy,
    hyperparameters=defaults,
    options={"updates": updates or PRESETS[name].updates},
  )


for _name in ALGORITHMS:
  registry.register(
    _name,
    functools.partial(solver, _name),
    summary=SUMMARIES[_name],
    options=(UPDATES,),
    hyperparameters=declared_hyperparameters(_name),
  )
