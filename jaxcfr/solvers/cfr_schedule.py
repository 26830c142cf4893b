"""The CFR family's schedules (jaxcfr.solvers.cfr runs them): how an iteration discounts the
cumulative regrets and weighs the average strategy, the batchable hyperparameters that set
them, and the presets that name their values.

At iteration ``t`` (from 1) the updating player's cumulative regrets ``R`` take the
instantaneous regrets ``r^t`` and a discount ``d(s) = s^e / (s^e + 1)`` (``e = alpha`` where the
sum is >= 0, ``beta`` where it is negative; ``discount``):

    discount_lag = 0:  R <- (R + r^t) d(t)          by the sign of R + r^t (Brown and Sandholm)
    discount_lag = L:  R <- R d(max(t - L, 0)) + r^t  by the sign of R (the sum carried in is
                       discounted before this iteration's regrets are added; postflop-solver's
                       DCFR is L = 2: its iteration t, from 0, discounts by (t - 1)^alpha)

and the average strategy is ``S_t / W_t`` with

    S_t = average_decay S_{t-1} + w_t x_t,   W_t = average_decay W_{t-1} + w_t,
    w_t = (j / (1 + c j))^gamma              (c = weight_saturation; c = 0: j^gamma)

where ``j`` counts the iterations since the average last restarted (``j = t`` without
restarts; with ``average_restart = b >= 2`` the sums are emptied at the iterations whose
index from 0, ``t - 1``, is a power of ``b``: t = 2, 5, 17, 65, ... for b = 4, and there
``j = 1``; with an averaging delay ``d``, where ``t - 1 - d`` is), and ``x_t`` is, by ``average_terms``: 0 the player's own reach times its
strategy sigma^t (CFR's average: Zinkevich et al. 2007), 1 sigma^t alone, 2 the next
strategy sigma^{t+1} alone. No weight is given during the first ``averaging_delay``
iterations. The defaults (lag 0, no restart, decay 1, saturation 0, terms 0) are the
classic family; each preset's values are in ``PRESETS``.

The two peers' DCFR, read from their code:

- ``dcfr-pfs``, b-inary/postflop-solver (src/solver.rs, ``DiscountParams``, commit 9d1509fe):
  positive regrets times ``(t-1)^1.5 / ((t-1)^1.5 + 1)`` at its iteration ``t`` from 0 (0 at
  t = 0, 1), negative ones times 0.5 (``beta = 0``), both on the sum carried in before the new
  regrets are added; the cumulative strategy ``S <- S ((t - p) / (t - p + 1))^3 + sigma^t``,
  ``p`` the largest power of 4 <= t (so emptied when t is a power of 4), unweighted by reach:
  ``alpha = 1.5, beta = 0, gamma = 3, discount_lag = 2, average_restart = 4, average_terms = 1``.
- ``dcfr-ts``, bupticybee/TexasSolver (src/trainable/DiscountedCfrTrainable.cpp, commit
  d926d24): ``R <- (R + r) * t^1.5 / (t^1.5 + 1)`` where positive, ``* 0.5`` otherwise (t from
  1), then ``S <- 0.9 S + (t / (t + 1))^2 sigma^{t+1}``, the strategy that regret matching makes
  of the updated regrets, unweighted by reach (the reach factor is commented out):
  ``alpha = 1.5, beta = 0, gamma = 2, weight_saturation = 1, average_decay = 0.9,
  average_terms = 2``.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.base import packing, regret
from jaxcfr.solvers import registry

__all__ = [
  "ALGORITHMS",
  "INF",
  "is_neutral",
  "split_neutral",
  "UPDATES",
  "REGRET_TOLERANCE",
  "Preset",
  "PRESETS",
  "SUMMARIES",
  "SCHEDULE",
  "discount",
  "regret_update",
  "since_restart",
  "next_weight_ratio",
  "average_term",
  "running_average",
  "broadcast_hyperparameters",
  "check_hyperparameters",
  "declared_hyperparameters",
  "preset_hyperparameters",
]

ALGORITHMS = ("cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "rm", "rm+", "dcfr-pfs", "dcfr-ts")
INF = float("inf")


@dataclasses.dataclass(frozen=True)
class Preset:
  alpha: float
  beta: float
  gamma: float
  updates: str = "alternating"
  predictive: bool = False
  discount_lag: int = 0
  average_restart: int = 0
  average_decay: float = 1.0
  weight_saturation: float = 0.0
  average_terms: int = 0


PRESETS = {
  "cfr": Preset(INF, INF, 0.0),
  "cfr+": Preset(INF, -INF, 1.0),
  "lcfr": Preset(1.0, 1.0, 1.0),
  "dcfr": Preset(1.5, 0.0, 2.0),
  "pcfr+": Preset(INF, -INF, 2.0, predictive=True),
  "rm": Preset(INF, INF, 0.0, updates="simultaneous"),
  "rm+": Preset(INF, -INF, 1.0, updates="simultaneous"),
  "dcfr-pfs": Preset(1.5, 0.0, 3.0, discount_lag=2, average_restart=4, average_terms=1),
  "dcfr-ts": Preset(1.5, 0.0, 2.0, average_decay=0.9, weight_saturation=1.0, average_terms=2),
}

SUMMARIES = {  # one line per preset, shared by the kits' registrations
  "cfr": "counterfactual regret minimisation (regret matching, uniform average)",
  "cfr+": "CFR+ (regret matching+, linear average)",
  "lcfr": "linear CFR (regrets and average weighted by t)",
  "dcfr": "discounted CFR (Brown and Sandholm 2019)",
  "pcfr+": "predictive CFR+ (Farina, Kroer and Sandholm 2021)",
  "rm": "regret matching with simultaneous updates",
  "rm+": "regret matching+ with simultaneous updates",
  "dcfr-pfs": "discounted CFR as postflop-solver runs it (gamma 3, the average restarted at powers of 4)",
  "dcfr-ts": "discounted CFR as TexasSolver runs it (the strategy sum decayed by 0.9)",
}

# The schedule's hyperparameters beyond alpha, beta, gamma and averaging_delay, with their
# neutral values (the classic family) and dtypes ("int" or "float": the state's dtype).
SCHEDULE = {
  "discount_lag": (0, "int"),
  "average_restart": (0, "int"),
  "average_decay": (1.0, "float"),
  "weight_saturation": (0.0, "float"),
  "average_terms": (0, "int"),
}


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


def _lagged_discount(t: jax.Array, exponent: jax.Array) -> jax.Array:
  """``discount`` for ``t >= 0``: at t = 0 the limit of ``t^e / (t^e + 1)``: 0 for e > 0, 1/2
  for e = 0, 1 for e < 0 (inf: 1, no discount; -inf: 0)."""
  at_zero = jnp.where(exponent > 0, 0.0, jnp.where(exponent == 0, 0.5, 1.0))
  at_zero = jnp.where(exponent == INF, 1.0, jnp.where(exponent == -INF, 0.0, at_zero))
  return jnp.where(t > 0, discount(jnp.maximum(t, 1), exponent), at_zero)


def regret_update(state, regrets: jax.Array, instant: jax.Array, t: jax.Array, tolerance: float = 0.0) -> jax.Array:
  """[I, A, *B] the cumulative regrets after iteration ``t`` (module doc): ``regrets`` [I, A,
  *B] carried in, ``instant`` [I, A, *B] this iteration's; ``state``: anything with
  CFRState's alpha, beta and discount_lag ([*B]; a lag of None is 0). ``tolerance``: a sum
  ``R + r^t`` within it (relative to ``|R| + |r^t|``) of zero is zero (jaxcfr.base.regret's
  ties; 0: none)."""
  scale = jnp.abs(regrets) + jnp.abs(instant) if tolerance else None
  total = regret.snap_to_zero(regrets + instant, scale, tolerance)
  factor = jnp.where(total >= 0, discount(t, state.alpha), discount(t, state.beta))
  late = total * factor.astype(total.dtype)
  lag = getattr(state, "discount_lag", None)
  if lag is None:
    return late
  early_t = jnp.maximum(t - lag.astype(t.dtype), 0)
  early = jnp.where(regrets >= 0, _lagged_discount(early_t, state.alpha), _lagged_discount(early_t, state.beta))
  lagged = regret.snap_to_zero(regrets * early.astype(regrets.dtype) + instant, scale, tolerance)
  return jnp.where(lag > 0, lagged, late)


def since_restart(t: jax.Array, base, delay=0) -> jax.Array:
  """[*B] int32 ``j``: iteration ``t``'s index from 1 since the average last restarted, at the
  iterations whose ``t - 1 - delay`` is a power of ``base`` [*B] (``base`` < 2, or None: never,
  j = t; ``delay``: the averaging delay, from whose end the restarts count)."""
  n = jnp.asarray(t).astype(jnp.int32)
  if base is None:
    return n
  m = n - 1 - jnp.asarray(delay).astype(jnp.int32)
  b = jnp.maximum(base, 2).astype(jnp.int32)
  exponent = jnp.floor(jnp.log(jnp.maximum(m, 1).astype(jnp.float32)) / jnp.log(b.astype(jnp.float32)))
  power = jnp.power(b, jnp.maximum(exponent, 0).astype(jnp.int32))  # b^e, corrected for log's rounding:
  power = jnp.where(power > m, power // b, power)
  power = jnp.where(power * b <= m, power * b, power)  # the largest power of b <= m
  return jnp.where((base >= 2) & (m >= 1), m - power + 1, n)


def next_weight_ratio(state, t: jax.Array) -> jax.Array:
  """[*B] ``W_t / w_t`` of iteration ``t`` (module doc): 1 at a restart (and at t = 1), else
  ``1 + W_{t-1}/w_{t-1} * average_decay * w_{t-1}/w_t``, 0 during the delay. ``state``:
  anything with CFRState's ``weight_ratio``, ``gamma``, ``averaging_delay`` and the schedule
  (fields that are None take their neutral values)."""
  averaging = t > state.averaging_delay
  j = since_restart(t, getattr(state, "average_restart", None), state.averaging_delay).astype(t.dtype)
  growth = ((j - 1) / j) ** state.gamma  # w_{t-1} / w_t, times the saturation's factor:
  saturation, decay = getattr(state, "weight_saturation", None), getattr(state, "average_decay", None)
  if saturation is not None:
    growth = growth * ((1 + saturation * j) / (1 + saturation * (j - 1))) ** state.gamma
  if decay is not None:
    growth = growth * decay
  ratio = 1.0 + state.weight_ratio * growth  # one multiply-add, as before the schedule (same bits)
  return jnp.where(averaging, jnp.where(j == 1, 1.0, ratio), 0.0)


def average_term(state, reach: jax.Array, strategy: jax.Array, following: jax.Array) -> jax.Array:
  """[I, A, *B] what iteration adds to the player's average (module doc, ``average_terms``):
  ``reach`` [I, 1, *B] times ``strategy`` [I, A, *B], the strategy alone, or the ``following``
  one (the next)."""
  terms = getattr(state, "average_terms", None)
  weighted = reach * strategy
  if terms is None:
    return weighted
  return jnp.where(terms == 0, weighted, jnp.where(terms == 1, strategy, following))


def running_average(weight_ratio: jax.Array, average: jax.Array, current: jax.Array) -> jax.Array:
  """``average`` [..., *B] updated with this iteration's ``current`` with the average
  strategy's weights (``weight_ratio`` [*B], the state's after the step: the weights so far
  over this iteration's), so that values kept beside a run average like its strategies."""
  mix = jnp.where(weight_ratio > 0, 1.0 / jnp.where(weight_ratio > 0, weight_ratio, 1.0), 0.0).astype(average.dtype)
  return average * (1 - mix) + current * mix


def is_neutral(name: str, value) -> bool:
  """Whether ``value`` of hyperparameter ``name`` is a schedule's neutral value given as a
  Python number (not an array: a batch or a traced value keeps its place in the state)."""
  if name not in SCHEDULE or isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
    return False
  return value == SCHEDULE[name][0]


def split_neutral(hyperparameters: dict) -> tuple[dict, dict]:
  """``(others, neutral)``: ``hyperparameters`` without and with its neutral schedule entries
  (``is_neutral``), for solvers that broadcast the others with a batch of their own."""
  neutral = {k: v for k, v in hyperparameters.items() if is_neutral(k, v)}
  return {k: v for k, v in hyperparameters.items() if k not in neutral}, neutral


def broadcast_hyperparameters(dtype, alpha, beta, gamma, averaging_delay, **schedule) -> tuple[dict, tuple]:
  """``({alpha, beta, gamma, averaging_delay, *schedule}: arrays [*B], B)``: the
  hyperparameters as arrays (floats in ``dtype``, the delay and the schedule's integers int32)
  broadcast to their common batch shape ``B``; ``schedule``'s names are ``SCHEDULE``'s. A
  schedule entry missing or given as its neutral Python number is left out (the state's field
  None), so that a run without a schedule pays nothing for it (a batch of 64 Leduc CFR+ runs
  took 0.30 ms an iteration with the neutral schedule as arrays, 0.21 ms without)."""
  unknown = sorted(set(schedule) - set(SCHEDULE))
  if unknown:
    raise ValueError(f"unknown CFR hyperparameters {unknown}; the schedule's are {list(SCHEDULE)}")
  hyper = dict(
    alpha=jnp.asarray(alpha, dtype),
    beta=jnp.asarray(beta, dtype),
    gamma=jnp.asarray(gamma, dtype),
    averaging_delay=jnp.asarray(averaging_delay, jnp.int32),
  )
  for name, (neutral, kind) in SCHEDULE.items():
    value = schedule.get(name, neutral)
    if is_neutral(name, value):
      continue  # the state holds None and the step does none of its work
    hyper[name] = jnp.asarray(value, jnp.int32 if kind == "int" else dtype)
  batch = jnp.broadcast_shapes(*(h.shape for h in hyper.values()))
  return {k: jnp.broadcast_to(h, batch) for k, h in hyper.items()}, batch


def check_hyperparameters(**values) -> None:
  """Raises ValueError naming a concrete hyperparameter out of its range: alpha and beta
  NaN; gamma, averaging_delay, discount_lag, average_restart or weight_saturation negative or
  NaN; average_decay outside [0, 1]; average_terms not 0, 1 or 2 (traced values are not
  checked)."""
  for name, value in values.items():
    value = registry.concrete(value)
    if value is None:
      continue
    if np.any(np.isnan(value.astype(float))):
      raise ValueError(f"{name} must be a number, got {value}")
    if name in ("gamma", "averaging_delay", "discount_lag", "average_restart", "weight_saturation") and np.any(
      value < 0
    ):
      raise ValueError(f"{name} must be >= 0, got {value}")
    if name == "average_decay" and np.any((value < 0) | (value > 1)):
      raise ValueError(f"average_decay must be in [0, 1], got {value}")
    if name == "average_terms" and not np.all(np.isin(value, (0, 1, 2))):
      raise ValueError(f"average_terms must be 0, 1 or 2, got {value}")


def preset_hyperparameters(algorithm: str) -> dict:
  """The preset's defaults of the batchable hyperparameters."""
  return {p.name: p.default for p in declared_hyperparameters(algorithm)}


def declared_hyperparameters(algorithm: str | None) -> tuple:
  """The CFR family's batchable hyperparameters with the defaults of preset ``algorithm``
  (None: "the preset's", for solvers built on a preset chosen by an option)."""
  preset = PRESETS[algorithm] if algorithm is not None else None
  pick = (lambda name: getattr(preset, name)) if preset is not None else (lambda name: None)
  param = lambda name, kind, text, **bounds: registry.Param(name, kind, pick(name), text, batchable=True, **bounds)
  return (
    param("alpha", float, "CFR family: positive regrets scaled by t^alpha / (t^alpha + 1) each iteration (inf: none)"),
    param("beta", float, "CFR family: negative regrets scaled by t^beta / (t^beta + 1) (inf: none; -inf: reset to 0)"),
    param("gamma", float, "CFR family: iteration t weighs t^gamma in the average strategy", low=0.0),
    registry.Param(
      "averaging_delay",
      int,
      0,
      "iterations left out of the average strategy",
      batchable=True,
      low=0,
      below_iterations=True,
    ),
    param(
      "discount_lag",
      int,
      "CFR family: 0 discounts the regrets after adding iteration t's; L > 0 discounts the sum carried in, "
      "by t - L's factors, before adding them (postflop-solver: 2)",
      low=0,
    ),
    param(
      "average_restart",
      int,
      "CFR family: the average strategy restarts at the iterations t whose t - 1 - averaging_delay is a power of "
      "this (0, 1: never; postflop-solver: 4)",
      low=0,
    ),
    param(
      "average_decay",
      float,
      "CFR family: the average strategy's sums are multiplied by this each iteration (TexasSolver: 0.9)",
      low=0.0,
      high=1.0,
    ),
    param(
      "weight_saturation",
      float,
      "CFR family: c in the average's weights (j / (1 + c j))^gamma, j the iterations since a restart "
      "(0: j^gamma; TexasSolver: 1)",
      low=0.0,
      finite=True,
    ),
    param(
      "average_terms",
      int,
      "CFR family: the average sums 0 the strategy times the player's reach, 1 the strategy alone "
      "(postflop-solver), 2 the next strategy alone (TexasSolver)",
      low=0,
      high=2,
    ),
  )


UPDATES = registry.Param(
  "updates",
  str,
  None,
  "update order: alternating (player 0, then player 1 against player 0's new strategy) or simultaneous "
  "(default: the preset's)",
  choices=("alternating", "simultaneous"),
)

REGRET_TOLERANCE = registry.Param(
  "regret_tolerance",
  float,
  0.0,
  "CFR family: regrets within this relative tolerance of zero count as zero, so that ties exact arithmetic "
  "makes stay ties after rounding (e.g. 1e-9 in float64; 0: off, OpenSpiel's iterates)",
  low=0.0,
  high=0.5,
)

STORAGE = registry.Param(
  "storage",
  str,
  "float",
  "CFR family: how the state keeps the cumulative regrets and the average: float (the solver's dtype) or "
  "16bit (16-bit codes and one scale per row, half the bytes, as postflop-solver's compression; "
  "jaxcfr.base.packing)",
  choices=packing.STORAGES,
)
