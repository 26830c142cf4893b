"""The deterministic CFR family as pure, batchable ``init`` / ``step`` pairs, written once over
the operations of every exact kit (jaxcfr.kits.registry.CFROperations: the sequence form's
``[I, A, *B]`` tables over infosets, the public tree's ``[N, A, H, *B]`` over public nodes and
hands) and registered for each of them.

One parameterisation covers CFR, CFR+, LCFR, DCFR(alpha, beta, gamma) and PCFR+. At
iteration ``t`` (from 1) the updating player's cumulative regrets are

    R <- R + r^t                                   (r^t: instantaneous regret, q - v)
    R <- R * t^alpha / (t^alpha + 1)   where R >= 0   (alpha = inf: no discount)
    R <- R * t^beta  / (t^beta  + 1)   where R <  0   (beta = inf: none; beta = -inf: R <- 0)

and its average-strategy accumulator gains ``t^gamma * x(parent(I)) * sigma^t(I, a)`` (own
reach times the current strategy; no weight during the first ``averaging_delay``
iterations). The next strategy is regret matching on ``R`` (``R + r^t`` for the predictive
PCFR+, whose prediction is the last instantaneous regret).

**Ties** (jaxcfr.base.regret): the option ``regret_tolerance`` (off by default: OpenSpiel's
iterates, bit for bit) sets to 0 an instantaneous regret within it times its row's largest
``|q|``, and a regret sum ``R + r^t`` within it times ``|R| + |r^t|``; with 1e-9 in float64 the
sequence form and the public tree of ``no_limit_leduc_poker(stack=4)`` agree to 1e-9 after 100
iterations of RM+, CFR+ and DCFR (tests/test_public_tree.py). DCFR is Brown & Sandholm's
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

and two presets run DCFR as the poker solvers do (jaxcfr.solvers.cfr_schedule, which also
holds the schedule's further hyperparameters: a lag of the regrets' discount, restarts and a
decay of the average, its weights' saturation, and what it sums):

    dcfr-pfs  alpha=1.5 beta=0 gamma=3, the average restarted at t - 1 = 4^k, unweighted by reach
              (b-inary/postflop-solver)
    dcfr-ts   alpha=1.5 beta=0, the average decayed by 0.9 with weights (t / (t + 1))^2, of the
              next strategy, unweighted by reach (bupticybee/TexasSolver)

The average accumulator is kept normalised (a convex combination, ``W_t / w_t`` carried
as ``weight_ratio``), so large ``t^gamma`` cannot overflow; ratios of its entries, and so
the average strategy, are unchanged. The discounts are computed from ``t^-|alpha|`` (and
``t^-|beta|``), never from ``t^alpha``, so that they stay finite for every exponent and
iteration (see ``discount``).

Solvers built on CFR reuse its iteration by composition: ``step`` (and ``step_with_carry``)
take ``Hooks``, typed functions that replace the reach a player updates against, the
behaviour below a player's rows, or the regrets-to-strategy map (jaxcfr.solvers.rnr's
RNR and DBR, jaxcfr.solvers.rcfr's regressor), and such a solver keeps the CFRState as
its ``inner_state``. The kit's operations come from the tensors' type
(``jaxcfr.kits.of_tensors``) or are given (``operations=``: the public tree's dense terminals
or depth-limited leaves); ``root`` sets both players' reach at the root for one step where
the kit has one (the public tree's ranges: the CFR-D gadget's opponent range).
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple
from collections.abc import Callable

import jax
import jax.numpy as jnp

from jaxcfr import kits
from jaxcfr.base import packing, regret
from jaxcfr.kits.registry import CFROperations
from jaxcfr.solvers import registry
from jaxcfr.solvers.cfr_hooks import Behaviour, Hooks, NextStrategy, OpponentPlan, PlayerUpdate
from jaxcfr.solvers.cfr_schedule import (
  ALGORITHMS,
  INF,
  PRESETS,
  REGRET_TOLERANCE,
  STORAGE,
  SUMMARIES,
  UPDATES,
  Preset,
  average_term,
  broadcast_hyperparameters,
  check_hyperparameters,
  declared_hyperparameters,
  discount,
  next_weight_ratio,
  preset_hyperparameters,
  regret_update,
  running_average,
)

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
  "operations_of",
  "discount",
  "next_weight_ratio",
  "init",
  "check_hyperparameters",
  "broadcast_hyperparameters",
  "step",
  "step_with_carry",
  "run",
  "running_average",
  "average_strategy",
  "current_strategy",
  "preset_step",
  "preset_hyperparameters",
  "declared_hyperparameters",
  "UPDATES",
  "REGRET_TOLERANCE",
  "solver",
]


class CFRState(NamedTuple):
  """State of one run, or of a batch of runs with trailing batch axes ``B`` (see ``init``).
  Every field is an array, so ``vmap`` over states runs a sweep too.

  Attributes:
    regrets: ([I0, A0], [I1, A1]) cumulative (discounted) regrets (``init``'s ``storage``).
    strategy: ([I0, A0], [I1, A1]) current strategies sigma^t.
    average: ([I0, A0], [I1, A1]) normalised reach-weighted strategy sums (the same storage).
    last_regret: ([I0, A0], [I1, A1]) last instantaneous regrets (PCFR+'s prediction);
      empty ([0, A]) for solvers that do not predict.
    iteration: [] int32, iterations done.
    weight_ratio: [] float, ``W_t / w_t`` of the averaging weights (0 before averaging).
    alpha, beta, gamma: [] float, the discount exponents.
    averaging_delay: [] int32, iterations that do not enter the average.
    values: what the kit keeps of each player's counterfactual values under the strategies
      its last update saw (the public tree with ``keep_values``: [2, K, H, *B] at every node,
      ``K = N``, or at the root, ``K = 1``), else ().
    leaf_state: a depth-limited public tree's ``LeafSolver`` state, else ().
    discount_lag, average_restart, average_terms: [] int32; average_decay,
      weight_saturation: [] float: the schedule (jaxcfr.solvers.cfr_schedule; ``init`` sets
      them, None reads as the neutral value).
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
  values: jax.Array | tuple = ()
  leaf_state: tuple = ()
  discount_lag: jax.Array | None = None
  average_restart: jax.Array | None = None
  average_decay: jax.Array | None = None
  weight_saturation: jax.Array | None = None
  average_terms: jax.Array | None = None


def operations_of(tensors, operations: CFROperations | None = None) -> CFROperations:
  """``operations``, or the default operations of the kit whose solvers take ``tensors``."""
  return operations if operations is not None else kits.of_tensors(tensors).operations()


def _update_player(
  ops,
  tensors,
  state: CFRState,
  player,
  strategies,
  opponent_reach,
  own_reach,
  t,
  weight_ratio,
  predictive,
  behaviour,
  context,
  tolerance=0.0,
) -> tuple:
  """One player's regret, average and strategy update against ``opponent_reach``: returns
  (PlayerUpdate, the values the kit keeps).

  ``behaviour``, if given, is the strategy the player actually follows below each row;
  regrets are then those of ``strategies[player]`` at each row with ``behaviour`` downstream.
  ``tolerance``: the ``regret_tolerance`` of the module doc's ties (0: none)."""
  strategy = strategies[player]
  if behaviour is None:
    q, v, kept = ops.values(tensors, player, strategy, opponent_reach, context)
  else:
    q, _, kept = ops.values(tensors, player, behaviour, opponent_reach, context)
    v = regret.unrolled_reduce(q * strategy, 1, jnp.add, jnp.sum)
  legal = ops.legal(tensors, player, q.ndim)
  instant = jnp.where(legal, q - jnp.expand_dims(v, 1), 0)
  if tolerance:
    row_scale = regret.unrolled_reduce(jnp.where(legal, jnp.abs(q), 0), 1, jnp.maximum, jnp.max, keepdims=True)
    instant = regret.snap_to_zero(instant, row_scale, tolerance)
  regrets = regret_update(state, packing.unpack(state.regrets[player], q.dtype), instant, t, tolerance)
  matched = regrets
  if predictive:
    matched = regret.snap_to_zero(regrets + instant, jnp.abs(regrets) + jnp.abs(instant), tolerance)
  following = regret.regret_matching(matched, legal)
  reach = jnp.expand_dims(ops.decision_reach(tensors, player, own_reach), 1)
  average = packing.unpack(state.average[player], q.dtype)
  average = running_average(weight_ratio, average, average_term(state, reach, strategy, following))
  return PlayerUpdate(regrets, average, instant, following), kept


def step_with_carry(
  tensors,
  state: CFRState,
  carry: Any = None,
  *,
  alternating: bool = True,
  predictive: bool = False,
  hooks: Hooks | None = None,
  operations: CFROperations | None = None,
  root=None,
  regret_tolerance: float = 0.0,
) -> tuple[CFRState, Any]:
  """One CFR iteration with ``hooks`` (see Hooks), threading ``carry`` through
  ``hooks.next_strategy`` (player 0's update, then player 1's): returns (state, carry).

  Each player ``i`` in turn: counterfactual values against the opponent's reach (with
  ``hooks.opponent_plan`` and ``hooks.behaviour``), the regret and average updates of the
  module doc, and its next strategy (``hooks.next_strategy``). ``alternating``: player 1
  updates against player 0's new strategy (else both against the current profile).
  ``predictive``: PCFR+'s prediction (the last instantaneous regrets) is kept and added
  before regret matching. ``operations``: the kit's (default: ``operations_of(tensors)``).
  ``root``: both players' reach at the root for this step ([2, ...], the public tree's
  ranges [2, H, *B]), where the kit has one. ``regret_tolerance``: regrets within it
  (relative) of zero are 0 (the module doc's ties; 0, the default: none)."""
  ops = operations_of(tensors, operations)
  hooks = Hooks() if hooks is None else hooks
  t = (state.iteration + 1).astype(state.alpha.dtype)
  weight_ratio = next_weight_ratio(state, t)
  current, new = list(state.strategy), list(state.strategy)
  regrets, average, last = list(state.regrets), list(state.average), list(state.last_regret)
  root = (None, None) if root is None else root
  reach = [ops.reach(tensors, p, s, root[p]) for p, s in enumerate(current)]
  context, leaf_state = ops.context(tensors, reach, state.leaf_state)
  kept = [None, None]
  for player in (0, 1):
    opponent = reach[1 - player]
    if hooks.opponent_plan is not None:
      opponent = hooks.opponent_plan(1 - player, current[1 - player], opponent)
    own = None if hooks.behaviour is None else hooks.behaviour(player, current[player])
    update, kept[player] = _update_player(
      ops,
      tensors,
      state,
      player,
      current,
      opponent,
      reach[player],
      t,
      weight_ratio,
      predictive,
      own,
      context,
      regret_tolerance,
    )
    if hooks.next_strategy is not None:
      update, carry = hooks.next_strategy(player, update, carry)
    regrets[player] = packing.repack_like(regrets[player], update.regrets, state.iteration.ndim)
    average[player] = packing.repack_like(average[player], update.average, state.iteration.ndim)
    new[player] = update.strategy
    if predictive:
      last[player] = update.instant
    if alternating and player == 0:  # player 1 updates against player 0's new strategy
      current[player] = new[player]
      reach[player] = ops.reach(tensors, player, new[player], root[player])
      context, leaf_state = ops.context(tensors, reach, leaf_state)
  values = state.values
  if not isinstance(values, tuple):
    values = jnp.stack([k[: values.shape[1]] for k in kept]).astype(values.dtype)
  state = state._replace(
    regrets=tuple(regrets),
    strategy=tuple(new),
    average=tuple(average),
    last_regret=tuple(last),
    iteration=state.iteration + 1,
    weight_ratio=weight_ratio,
    values=values,
    leaf_state=leaf_state,
  )
  return state, carry


def step(
  tensors,
  state: CFRState,
  *,
  alternating: bool = True,
  predictive: bool = False,
  hooks: Hooks | None = None,
  operations: CFROperations | None = None,
  root=None,
  regret_tolerance: float = 0.0,
) -> CFRState:
  """One CFR iteration (``step_with_carry`` without a carry): ``hooks`` replace parts of it
  (jaxcfr.solvers.rnr's RNR and DBR build on ``opponent_plan`` and ``behaviour``)."""
  return step_with_carry(
    tensors,
    state,
    None,
    alternating=alternating,
    predictive=predictive,
    hooks=hooks,
    operations=operations,
    root=root,
    regret_tolerance=regret_tolerance,
  )[0]


def init(
  tensors,
  *,
  alpha=INF,
  beta=INF,
  gamma=0.0,
  averaging_delay=0,
  discount_lag=0,
  average_restart=0,
  average_decay=1.0,
  weight_saturation=0.0,
  average_terms=0,
  predictive: bool = False,
  keep_values: bool = False,
  operations: CFROperations | None = None,
  storage: str = "float",
) -> CFRState:
  """A fresh state: zero regrets, uniform strategies.

  Hyperparameters may be traced arrays. Arrays of shape ``B`` make a batch of runs: every
  field then has trailing axes ``B`` (strategies ``[N, A, *E, *B]``, scalars ``[*B]``), and
  ``step`` advances all runs as one program; the tensors' own batch (a batch of subgames'
  ranges) broadcasts with it. ``last_regret`` is ``[N, A, *E, *B]`` for a ``predictive``
  solver and empty (``[0, A, *E, *B]``) otherwise: on large games every table of the state
  is a sizeable share of memory. ``keep_values``: the state keeps the kit's values at every
  node, not only at the root (re-solving averages them: jaxcfr.solvers.resolving).
  ``operations``: the kit's (its ``leaf_fn``'s state starts here). The schedule's
  hyperparameters (``discount_lag`` to ``average_terms``) are jaxcfr.solvers.cfr_schedule's.
  ``storage``: "16bit" keeps the regrets and the average in 16 bits (jaxcfr.base.packing).
  """
  STORAGE.check(storage, "the CFR family")
  ops = operations_of(tensors, operations)
  schedule = dict(
    discount_lag=discount_lag,
    average_restart=average_restart,
    average_decay=average_decay,
    weight_saturation=weight_saturation,
    average_terms=average_terms,
  )
  check_hyperparameters(alpha=alpha, beta=beta, gamma=gamma, averaging_delay=averaging_delay, **schedule)
  dtype = tensors.dtype
  hyper, batch = broadcast_hyperparameters(dtype, alpha, beta, gamma, averaging_delay, **schedule)
  batch = jnp.broadcast_shapes(batch, ops.batch_shape(tensors))
  hyper = {k: jnp.broadcast_to(v, batch) for k, v in hyper.items()}
  uniform = [ops.uniform(tensors, p) for p in (0, 1)]
  zeros = tuple(jnp.zeros(u.shape + batch, dtype) for u in uniform)
  strategy = tuple(jnp.broadcast_to(u.reshape(u.shape + (1,) * len(batch)), u.shape + batch) for u in uniform)
  last = zeros if predictive else tuple(jnp.zeros((0,) + u.shape[1:] + batch, dtype) for u in uniform)
  packed = lambda signed: zeros if storage == "float" else tuple(packing.pack(z, len(batch), signed) for z in zeros)
  return CFRState(
    regrets=packed(True),
    strategy=strategy,
    average=packed(False),
    last_regret=last,
    iteration=jnp.zeros(batch, jnp.int32),
    weight_ratio=jnp.zeros(batch, dtype),
    **hyper,
    values=ops.kept_values(tensors, batch, keep_values),
    leaf_state=ops.init_leaf_state(tensors, batch),
  )


def average_strategy(tensors, state: CFRState, operations: CFROperations | None = None):
  """The average profile ([N, A, *E, *B] each); uniform at rows the player never reached."""
  ops = operations_of(tensors, operations)
  averages = [packing.unpack(a, tensors.dtype) for a in state.average]
  return tuple(regret.normalise(a, ops.legal(tensors, p, a.ndim)) for p, a in enumerate(averages))


def current_strategy(tensors, state: CFRState):
  """The current profile sigma^t ([N, A, *E, *B] each)."""
  del tensors
  return state.strategy


@functools.cache
def preset_step(
  algorithm: str,
  updates: str | None = None,
  *,
  operations: CFROperations | None = None,
  regret_tolerance: float = 0.0,
) -> Callable:
  """``step(tensors, state, *, hooks=None, root=None)`` of a preset with its update order
  (default: the preset's), the kit's ``operations`` (default: the tensors' kit's) and the
  ``regret_tolerance`` of ties (module doc; 0: none): ``step`` with the preset's
  ``alternating`` and ``predictive``. Cached, so that ``run`` compiles once per preset."""
  if algorithm not in PRESETS:
    raise ValueError(f"unknown CFR algorithm {algorithm!r}; choose one of {list(ALGORITHMS)}")
  preset = PRESETS[algorithm]
  updates = updates or preset.updates
  if updates not in ("alternating", "simultaneous"):
    raise ValueError(f"updates must be 'alternating' or 'simultaneous', got {updates!r}")
  regret_tolerance = REGRET_TOLERANCE.check(regret_tolerance, algorithm)
  return functools.partial(
    step,
    alternating=updates == "alternating",
    predictive=preset.predictive,
    operations=operations,
    regret_tolerance=regret_tolerance,
  )


@functools.partial(jax.jit, static_argnames=("step_fn",))
def _run(tensors, state, num_iterations, step_fn):
  return jax.lax.fori_loop(0, num_iterations, lambda _, s: step_fn(tensors, s), state)


def run(tensors, state: CFRState, num_iterations, step_fn: Callable) -> CFRState:
  """``num_iterations`` (traced: no recompilation per count) of ``step_fn`` (e.g. a
  ``preset_step``), jitted."""
  return _run(tensors, state, num_iterations, step_fn)


def solver(
  name: str,
  *,
  kit: str,
  updates: str | None = None,
  regret_tolerance: float = 0.0,
  storage: str = "float",
  **options,
) -> registry.Solver:
  """The registered solver of a preset on the exact kit ``kit``
  (``jaxcfr.solvers.get(name, kit, updates=..., **options)``).

  Options:
    updates: "alternating" or "simultaneous" (default: the preset's).
    regret_tolerance: regrets within it (relative) of zero count as zero (the module doc's
      ties; 0, the default: off).
    storage: "float" (default) or "16bit": the regrets and the average in 16 bits (``init``).
    the kit's own (``Kit.operation_options``; the public tree's ``terminals``).

  Hyperparameters of ``init`` (batchable): alpha, beta, gamma (discount exponents, default
  the preset's; see the module doc) and averaging_delay (iterations left out of the average).
  """
  operations = kits.get(kit).operations(**options)
  preset = preset_step(name, updates, operations=operations, regret_tolerance=regret_tolerance)
  defaults = preset_hyperparameters(name)
  predictive = PRESETS[name].predictive

  def init_with_defaults(tensors, **hyperparameters):
    return init(
      tensors, **{**defaults, **hyperparameters}, predictive=predictive, operations=operations, storage=storage
    )

  return registry.Solver(
    name=name,
    init=init_with_defaults,
    step=preset,
    average_strategy=functools.partial(average_strategy, operations=operations),
    current_strategy=current_strategy,
    hyperparameters=defaults,
    options={
      "updates": updates or PRESETS[name].updates,
      "regret_tolerance": regret_tolerance,
      "storage": storage,
      **options,
    },
  )


for _kit in kits.names():
  if kits.get(_kit).operations is None:
    continue
  for _name in ALGORITHMS:
    registry.register(
      _name,
      functools.partial(solver, _name, kit=_kit),
      summary=SUMMARIES[_name],
      representation=_kit,
      options=(UPDATES, REGRET_TOLERANCE, STORAGE, *kits.get(_kit).operation_options),
      hyperparameters=declared_hyperparameters(_name),
    )
