"""Regression CFR (RCFR): CFR whose regret table is replaced by a regressor.

Waugh, Morrill, Bagnell and Bowling, "Solving Games with Functional Regret Estimation",
AAAI 2015 (Waugh et al. 2015). Each iteration, for the updating player (alternating updates,
player 0 first, as the ``cfr`` preset; or simultaneous):

    r^t(I, a) = q^t(I, a) - v^t(I)                 exact, from the sequence-form engine
    R^t = R^{t-1} + r^t                             (RCFR+: floored at zero)
    f_t = fit(f_{t-1}; phi(I, a) -> R^t(I, a) / t)  the regressor, on every legal (I, a)
    sigma^{t+1}(I) = regret matching on f_t(phi(I, .)) over the legal actions

The counterfactual values and the regret and average updates are jaxcfr.solvers.cfr's own
(its ``step_with_carry``, with a ``next_strategy`` hook that fits the regressor), so with
the ``table`` regressor (an exact fit) RCFR *is* CFR. The targets ``R^t / t`` with weights
``t`` are the sufficient statistics of Algorithm 1's data set of all past instantaneous
regrets (every row has ``t`` points with that mean), so keeping "all the data" costs one
table; ``bootstrap`` replaces ``R^{t-1}`` by the previous
estimate ``t-1 * f_{t-1}`` (prediction plus the new regret, as OpenSpiel's RCFR offers).
With ``reservoir=K`` the data set is instead a uniform sample of ``K`` past points per player
(jaxcfr.solvers.reservoir: rows, instantaneous regrets, iterations; Algorithm R keyed by the
run's seed and the iteration), and the regressor is fit on it.
The average strategy is accumulated exactly per infoset, as in the paper (uniform, or
linear with ``averaging="linear"``).

Regressors (jaxcfr.solvers.regressors): ``table``, ``abstraction:<name>`` (CFR on the
abstract game; Leduc's JQK, J.QK, JQ.K, J.Q.K or a user map, option ``abstraction``),
``mlp`` and ``tree`` (threshold as ``tree:THRESHOLD`` or the ``threshold`` hyperparameter).
Features (jaxcfr.solvers.rcfr_features): Leduc's eight of the paper or a generic encoding.

Each run is written for itself and batched over trailing axes by ``registry.per_run``:
seeds of the MLP's initialisation, learning rates and thresholds batch in one program. The
solver's ``counters`` report ``regressor_size`` (parameters or leaves, both players) and
``relative_size`` (that over the full regret table, the legal sequences of both players).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.base import regret
from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.kits.sequence_form.tensors import GameTensors
from jaxcfr.solvers import cfr, rcfr_features, regressors, registry, reservoir as reservoirs

__all__ = ["RCFRState", "solver", "parse_regressor", "abstract_average_strategy", "REGRESSORS"]

REGRESSORS = ("table", "abstraction:<name>", "mlp", "tree", "tree:<threshold>")


class RCFRState(NamedTuple):
  """One run's state (trailing batch axes ``B`` on every leaf when batched).

  Attributes:
    inner_state: the CFR state (cumulative or bootstrapped regrets [I, A], strategies, the
      exact average accumulator, iteration).
    params: (params0, params1) the regressors' pytrees.
    regressor_size: [] int32 parameters or leaves of both players' regressors.
    relative_size: [] float, regressor_size over the full regret table.
    learning_rate, threshold: [] float, the regressors' batchable hyperparameters.
    buffers: () for all data, else (buffer0, buffer1) the players' reservoirs.
    seed: [] uint32 the run's seed (the reservoir's draws).
  """

  inner_state: cfr.CFRState
  params: tuple
  regressor_size: jax.Array
  relative_size: jax.Array
  learning_rate: jax.Array
  threshold: jax.Array
  buffers: tuple = ()
  seed: jax.Array = None

  @property
  def iteration(self) -> jax.Array:
    return self.inner_state.iteration


def parse_regressor(
  spec: str,
  *,
  hidden=(24, 24),
  steps=100,
  loss="mse",
  optimizer="adam",
  normalise=True,
  max_depth=32,
  tree_error="sum",
) -> tuple[regressors.Regressor, object, dict]:
  """(regressor, abstraction name or None, default hyperparameters) of a spec: "table",
  "abstraction:<name>" ("abstraction:map" takes the solver's ``abstraction`` option), "mlp",
  "tree" or "tree:<threshold>"."""
  kind, _, argument = str(spec).partition(":")
  if kind == "table" and not argument:
    return regressors.table(), None, {}
  if kind == "abstraction" and argument:
    return regressors.abstraction(), argument, {}
  if kind == "mlp" and not argument:
    made = regressors.mlp(hidden=tuple(hidden), steps=steps, loss=loss, optimizer=optimizer, normalise=normalise)
    return made, None, dict(made.hyperparameters)
  if kind == "tree":
    try:
      threshold = float(argument) if argument else 0.0
    except ValueError as error:
      raise ValueError(f"regressor tree:THRESHOLD needs a number, got {spec!r}") from error
    if not threshold >= 0:
      raise ValueError(f"the tree's threshold must be >= 0, got {threshold}")
    return regressors.tree(max_depth=max_depth, error=tree_error), None, {"threshold": threshold}
  raise ValueError(f"unknown regressor {spec!r}; choose one of {', '.join(REGRESSORS)}")


def _rows(tensors: GameTensors, features: str, abstraction) -> tuple:
  return tuple(rcfr_features.row_data(tensors, p, features, abstraction) for p in (0, 1))


def _as_dtype(tree, dtype):
  """``tree`` with its float leaves in ``dtype`` (the game's: regressors start in JAX's default)."""
  return jax.tree_util.tree_map(lambda x: x.astype(dtype) if jnp.issubdtype(x.dtype, jnp.floating) else x, tree)


def solver(
  *,
  regressor: str = "mlp",
  features: str = "auto",
  updates: str = "alternating",
  plus: bool = False,
  bootstrap: bool = False,
  averaging: str = "uniform",
  abstraction=None,
  hidden: tuple = (24, 24),
  steps: int = 100,
  loss: str = "mse",
  optimizer: str = "adam",
  normalise: bool = True,
  max_depth: int = 32,
  tree_error: str = "sum",
  reservoir: int | None = None,
) -> registry.Solver:
  """The registered ``rcfr`` solver (``jaxcfr.solvers.get("rcfr", regressor="tree:0.01")``).

  Options:
    regressor: "table", "abstraction:<name>", "mlp" (default), "tree" or "tree:<threshold>".
    features: "auto" (the set the game declares, GameInfo.features: Leduc's eight on
      leduc_poker; else generic), "leduc" or "generic".
    updates: "alternating" (player 0 then player 1, as ``cfr``) or "simultaneous".
    plus: RCFR+, cumulative regrets floored at zero.
    bootstrap: targets from the previous prediction plus the new regret.
    averaging: "uniform" or "linear" (weights t) average strategy.
    abstraction: for "abstraction:map", a tuple of (infoset key, label) pairs.
    hidden, steps, loss, optimizer, normalise: the MLP's (jaxcfr.solvers.regressors.mlp).
    max_depth: the tree's most levels.
    tree_error: what the tree's threshold bounds: the reduction of the squared error summed
      over all data points ("sum": a fixed threshold grows the tree with the iterations) or
      of its mean ("mean": about the same size all run); jaxcfr.solvers.regressors.tree.
    reservoir: None (all data: targets R^t / t) or K >= 1, the points (instantaneous regrets)
      each player's reservoir keeps; the regressor is fit on their per-row means, weighted
      by their counts. Not with plus or bootstrap (they change the cumulative targets).

  Hyperparameters of ``init`` (batchable): seed (mlp, or a reservoir), learning_rate (mlp),
  threshold (tree).
  """
  made, abstraction_name, defaults = parse_regressor(
    regressor,
    hidden=hidden,
    steps=steps,
    loss=loss,
    optimizer=optimizer,
    normalise=normalise,
    max_depth=max_depth,
    tree_error=tree_error,
  )
  if abstraction_name == "map":
    if abstraction is None:
      raise ValueError("regressor abstraction:map needs the abstraction option (pairs of infoset key and label)")
    abstraction_name = tuple(abstraction)
  elif abstraction is not None:
    raise ValueError(f"the abstraction option applies to regressor abstraction:map, not {regressor!r}")
  if updates not in ("alternating", "simultaneous"):
    raise ValueError(f"updates must be 'alternating' or 'simultaneous', got {updates!r}")
  if averaging not in ("uniform", "linear"):
    raise ValueError(f"averaging must be 'uniform' or 'linear', got {averaging!r}")
  if features not in rcfr_features.FEATURE_SETS:
    raise ValueError(f"unknown features {features!r}; choose one of {list(rcfr_features.FEATURE_SETS)}")
  if reservoir is not None:
    if isinstance(reservoir, bool) or not isinstance(reservoir, (int, np.integer)) or reservoir < 1:
      raise ValueError(f"reservoir must be an integer >= 1 (points kept per player) or None, got {reservoir!r}")
    if plus or bootstrap:
      raise ValueError("reservoir keeps instantaneous regrets: it does not combine with plus or bootstrap")
    reservoir = int(reservoir)
  hyperparameters = ({"seed": 0} if made.uses_seed or reservoir else {}) | defaults
  alternating = updates == "alternating"

  def rows_of(tensors):
    return _rows(tensors, features, abstraction_name)

  def check(tensors, **kwargs):
    unknown = sorted(set(kwargs) - set(hyperparameters))
    if unknown:
      raise ValueError(
        f"rcfr ({regressor}) has no hyperparameter {', '.join(unknown)}; "
        f"its hyperparameters: {', '.join(hyperparameters) or 'none'}"
      )
    threshold = registry.concrete(kwargs.get("threshold", 0.0))
    if threshold is not None and not np.all(threshold >= 0):
      raise ValueError(f"the tree's threshold must be >= 0, got {threshold}")
    rate = registry.concrete(kwargs.get("learning_rate", 1.0))
    if rate is not None and not np.all(rate > 0):
      raise ValueError(f"learning_rate must be > 0, got {rate}")
    rows_of(tensors)  # bad features or abstraction for this game fail here, once

  def init(tensors: GameTensors, **kwargs) -> RCFRState:
    values = {**hyperparameters, **kwargs}
    dtype = tensors.dtype
    rows = rows_of(tensors)
    key = jax.random.key(jnp.asarray(values.get("seed", 0), jnp.uint32))
    params = tuple(_as_dtype(made.init(k, r), dtype) for k, r in zip(jax.random.split(key), rows))
    inner = cfr.init(
      tensors, alpha=cfr.INF, beta=-cfr.INF if plus else cfr.INF, gamma=1.0 if averaging == "linear" else 0.0
    )
    size = sum(made.size(p, r) for p, r in zip(params, rows))
    buffers = tuple(reservoirs.empty(reservoir, dtype) for _ in rows) if reservoir else ()
    return RCFRState(
      inner_state=inner,
      params=params,
      regressor_size=size,
      relative_size=size.astype(dtype) / rcfr_features.table_size(tensors),
      learning_rate=jnp.asarray(values.get("learning_rate", 1.0), dtype),
      threshold=jnp.asarray(values.get("threshold", 0.0), dtype),
      buffers=buffers,
      seed=jnp.asarray(values.get("seed", 0), jnp.uint32),
    )

  def step(tensors: GameTensors, state: RCFRState) -> RCFRState:
    rows = rows_of(tensors)
    inner = state.inner_state
    hyper = {"learning_rate": state.learning_rate, "threshold": state.threshold}
    t = (inner.iteration + 1).astype(inner.alpha.dtype)

    def next_strategy(player: int, update: cfr.PlayerUpdate, carry: tuple) -> tuple:
      """CFR's regret and average update of ``player`` kept, its next strategy regret
      matching on the regressor's estimate; carry: (params, buffers)."""
      params, buffers = list(carry[0]), list(carry[1])
      treeplex = tensors.players[player]
      cumulative = update.regrets
      if buffers:
        legal_rows = np.flatnonzero(rows[player].legal)
        key = jax.random.fold_in(jax.random.fold_in(jax.random.key(state.seed), player), inner.iteration)
        buffers[player] = reservoirs.add(
          buffers[player], legal_rows, update.instant.reshape(-1)[legal_rows], inner.iteration + 1, key
        )
        targets, weights = reservoirs.statistics(buffers[player], len(rows[player].legal))
      else:
        targets = cumulative.reshape(-1) / t
        weights = jnp.where(treeplex.legal.reshape(-1), t, 0).astype(t.dtype)
      params[player] = made.fit(params[player], rows[player], targets, weights, hyper)
      estimate = made.predict(params[player], rows[player]).reshape(treeplex.legal.shape)
      if bootstrap:
        cumulative = jnp.where(treeplex.legal, t * estimate, 0)
      strategy = regret.regret_matching(estimate, treeplex.legal)
      return update._replace(regrets=cumulative, strategy=strategy), (tuple(params), tuple(buffers))

    inner, (params, buffers) = cfr.step_with_carry(
      tensors,
      inner,
      (state.params, state.buffers),
      alternating=alternating,
      hooks=cfr.Hooks(next_strategy=next_strategy),
    )
    size = sum(made.size(p, r) for p, r in zip(params, rows))
    return state._replace(
      inner_state=inner,
      params=params,
      regressor_size=size,
      buffers=buffers,
      relative_size=size.astype(t.dtype) / rcfr_features.table_size(tensors),
    )

  def average_strategy(tensors, state):
    return cfr.average_strategy(tensors, state.inner_state)

  def current_strategy(tensors, state):
    del tensors
    return state.inner_state.strategy

  options = dict(
    regressor=regressor,
    features=features,
    updates=updates,
    plus=plus,
    bootstrap=bootstrap,
    averaging=averaging,
    abstraction=abstraction,
    hidden=tuple(hidden),
    steps=steps,
    loss=loss,
    optimizer=optimizer,
    normalise=normalise,
    max_depth=max_depth,
    tree_error=tree_error,
    reservoir=reservoir,
  )
  return registry.Solver(
    name="rcfr",
    hyperparameters=hyperparameters,
    options=options,
    counters=counters,
    **registry.per_run(
      init,
      hyperparameters,
      check=check,
      step=step,
      average_strategy=average_strategy,
      current_strategy=current_strategy,
    ),
  )


def counters(state: RCFRState) -> dict:
  """Host-side sizes reported with the metrics: regressor_size (parameters or leaves, both
  players) and relative_size (over the full regret table), each [*B]."""
  return {"regressor_size": np.asarray(state.regressor_size), "relative_size": np.asarray(state.relative_size)}


def abstract_average_strategy(tensors: GameTensors, state: RCFRState, abstraction) -> tuple:
  """The abstract game's average strategy mapped back to the full game ([I, A, *B] each): the
  exact accumulator summed over the infosets of each abstract infoset, then normalised (what
  CFR on the abstract game averages, whereas RCFR's average is kept per full infoset)."""
  profile = []
  for player, treeplex in enumerate(tensors.players):
    cells, _ = rcfr_features.abstraction_cells(tensors, player, abstraction)
    abstract = cells.reshape(treeplex.legal.shape)[:, 0] // treeplex.max_actions
    accumulator = state.inner_state.average[player]
    summed = jax.ops.segment_sum(accumulator, jnp.asarray(abstract), int(abstract.max()) + 1)[abstract]
    profile.append(evaluation.normalise_rows(treeplex, summed))
  return tuple(profile)


registry.register(
  "rcfr",
  solver,
  summary="regression CFR (Waugh et al. 2015): regret matching on regressed regrets",
  options=(
    registry.Param(
      "regressor", str, "mlp", "table, abstraction:NAME (Leduc: JQK, J.QK, JQ.K, J.Q.K), mlp or tree:THRESHOLD"
    ),
    registry.Param("features", str, "auto", "the regressor's features", choices=rcfr_features.FEATURE_SETS),
    registry.Param("updates", str, "alternating", cfr.UPDATES.help, choices=cfr.UPDATES.choices),
    registry.Param("plus", bool, False, "RCFR+: regrets floored at zero"),
    registry.Param("bootstrap", bool, False, "targets: the previous prediction plus the new regret"),
    registry.Param("averaging", str, "uniform", "the average strategy's weights", choices=("uniform", "linear")),
    registry.Param("abstraction", object, None, "abstraction:map's pairs of (infoset key, label)", cli=False),
    registry.Param("hidden", "ints", (24, 24), "mlp: the widths of the hidden layers", low=1),
    registry.Param("steps", int, 100, "mlp: optimiser steps per iteration", low=1),
    registry.Param("loss", str, "mse", "mlp: the loss", choices=("mse", "huber")),
    registry.Param("optimizer", str, "adam", "mlp: the optax optimiser", choices=("adam", "sgd")),
    registry.Param("normalise", bool, True, "mlp: targets normalised before fitting"),
    registry.Param("max_depth", int, 32, "tree: the most levels", low=1),
    registry.Param(
      "tree_error",
      str,
      "sum",
      "tree: the threshold bounds the squared error's reduction summed over all data points, or its mean",
      choices=("sum", "mean"),
    ),
    registry.Param(
      "reservoir", int, None, "fit on a reservoir of K sampled regrets per player (default: all data)", low=1
    ),
  ),
  hyperparameters=(
    registry.SEED,
    registry.Param("learning_rate", float, 1e-2, "mlp: the optimiser's step size", batchable=True, low=0.0),
    registry.Param("threshold", float, 0.0, "tree: least error reduction of a split", batchable=True, low=0.0),
  ),
)
