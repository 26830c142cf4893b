"""Regret regressors for RCFR: pure JAX pytrees behind one small interface.

    params = regressor.init(key, rows)                                  fresh parameters
    params = regressor.fit(params, rows, targets [N], weights [N], hyper)   train on the rows
    values = regressor.predict(params, rows)                            [N] predictions
    size   = regressor.size(params, rows)                               [] parameters or leaves

``rows`` is one player's ``rcfr_features.RowData`` (host NumPy, constants of the program),
``targets`` are the cumulative regrets per iteration ``R^t(I, a) / t`` (Waugh, Morrill,
Bagnell and Bowling, "Solving Games with Functional Regret Estimation", AAAI 2015, Algorithm
1: the minimiser of the squared error over all past instantaneous regrets), ``weights`` the
number of data points of each row (``t`` on legal rows, 0 elsewhere), and ``hyper`` the
batchable hyperparameters (``learning_rate``, ``threshold``), traced scalars.

- ``table``: one parameter per sequence, the exact fit ``f = R / t``; RCFR is then CFR.
- ``abstraction``: one parameter per abstract cell, the weighted mean of its rows: CFR on the
  abstract game (Waugh et al. 2015, "Relationship to Abstraction": the abstract regret is the
  sum of the member regrets, and regret matching on the mean equals it on the sum).
- ``mlp``: a multilayer perceptron (tanh hidden layers, linear output) trained by optax
  (Adam by default) for ``steps`` full-batch steps per iteration on the weighted squared
  (or Huber) error, warm-started from the previous parameters and optimiser state; targets
  are divided by their weighted root mean square (kept in the parameters) when ``normalise``.
- ``tree``: a regression tree grown by Waugh et al. 2015's rule: at every node the best
  single-feature split by squared-error reduction over all data points; a leaf (predicting
  the mean) where the best reduction is below ``threshold`` or none exists. Jittable: the
  tree is grown level by level (at most ``max_depth`` levels, at most N nodes a level,
  numbered compactly), every node's best split found by one stable sort per feature and
  segment sums, so the tree's size is data dependent but its arrays are static.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["Regressor", "table", "abstraction", "mlp", "tree", "TreeParams", "MLPParams"]


@dataclasses.dataclass(frozen=True, eq=False)
class Regressor:
  """A regret regressor (see the module doc for the signatures).

  Attributes:
    name: "table", "abstraction", "mlp" or "tree".
    init, fit, predict, size: the pure functions.
    hyperparameters: batchable hyperparameters ``fit`` reads from ``hyper``, with defaults.
    uses_seed: whether ``init`` draws random numbers (then ``seed`` is a hyperparameter).
  """

  name: str
  init: Callable
  fit: Callable
  predict: Callable
  size: Callable
  hyperparameters: dict = dataclasses.field(default_factory=dict)
  uses_seed: bool = False


def _dtype():
  return jnp.zeros(()).dtype


# ---------------------------------------------------------------- tabular


def table() -> Regressor:
  """One parameter per row; ``fit`` is exact on the rows with data."""

  def init(key, rows):
    del key
    return jnp.zeros(len(rows.legal), _dtype())

  def fit(params, rows, targets, weights, hyper):
    del rows, hyper
    return jnp.where(weights > 0, targets, params)

  def predict(params, rows):
    del rows
    return params

  def size(params, rows):
    del params
    return jnp.asarray(int(rows.legal.sum()), jnp.int32)

  return Regressor("table", init, fit, predict, size)


def abstraction() -> Regressor:
  """One parameter per abstract cell (``rows.cells``): the weighted mean of its rows' targets."""

  def init(key, rows):
    del key
    return jnp.zeros(rows.num_cells, _dtype())

  def fit(params, rows, targets, weights, hyper):
    del hyper
    cells = jnp.asarray(rows.cells)
    total = jax.ops.segment_sum(weights, cells, rows.num_cells)
    weighted = jax.ops.segment_sum(weights * targets, cells, rows.num_cells)
    return jnp.where(total > 0, weighted / jnp.where(total > 0, total, 1), params)

  def predict(params, rows):
    return params[jnp.asarray(rows.cells)]

  def size(params, rows):
    del params
    return jnp.asarray(len(np.unique(rows.cells[rows.legal])), jnp.int32)

  return Regressor("abstraction", init, fit, predict, size)


# ---------------------------------------------------------------- MLP


class MLPParams(NamedTuple):
  """weights: list of ([F_in, F_out], [F_out]) layers; opt_state: the optax state; scale: []
  the target scale of the last fit."""

  weights: list
  opt_state: object
  scale: jax.Array


def _forward(weights, x):
  for w, b in weights[:-1]:
    x = jnp.tanh(x @ w + b)
  w, b = weights[-1]
  return (x @ w + b)[:, 0]


def mlp(
  *,
  hidden: tuple = (24, 24),
  steps: int = 100,
  loss: str = "mse",
  optimizer: str = "adam",
  normalise: bool = True,
  learning_rate: float = 1e-2,
) -> Regressor:
  """A multilayer perceptron ``F -> hidden layers -> 1`` trained by optax.

  Args:
    hidden: widths of the tanh hidden layers.
    steps: full-batch optimiser steps per RCFR iteration (warm-started).
    loss: "mse" (squared error) or "huber" (delta 1, on normalised targets).
    optimizer: "adam" or "sgd" (optax).
    normalise: divide targets by their weighted root mean square.
    learning_rate: the default of the batchable hyperparameter.
  """
  import optax  # pylint: disable=import-outside-toplevel

  if loss not in ("mse", "huber"):
    raise ValueError(f"mlp loss must be 'mse' or 'huber', got {loss!r}")
  if optimizer not in ("adam", "sgd"):
    raise ValueError(f"mlp optimizer must be 'adam' or 'sgd', got {optimizer!r}")
  if steps < 1 or not hidden or min(hidden) < 1:
    raise ValueError(f"mlp needs steps >= 1 and hidden widths >= 1, got steps={steps}, hidden={hidden}")
  make = optax.adam if optimizer == "adam" else optax.sgd

  def init(key, rows):
    widths = (rows.features.shape[1],) + tuple(hidden) + (1,)
    weights = []
    for n_in, n_out in zip(widths[:-1], widths[1:]):
      key, sub = jax.random.split(key)
      bound = np.sqrt(6.0 / (n_in + n_out))  # Glorot uniform
      weights.append((jax.random.uniform(sub, (n_in, n_out), _dtype(), -bound, bound), jnp.zeros(n_out, _dtype())))
    return MLPParams(weights, make(1.0).init(weights), jnp.ones((), _dtype()))

  def fit(params, rows, targets, weights, hyper):
    x = jnp.asarray(rows.features, targets.dtype)
    share = weights / jnp.maximum(weights.sum(), 1e-300)
    if normalise:
      scale = jnp.sqrt((share * targets**2).sum())
      scale = jnp.where(scale > 0, scale, 1.0)
    else:
      scale = jnp.ones((), targets.dtype)
    y = targets / scale
    opt = make(hyper["learning_rate"])

    def objective(w):
      error = _forward(w, x) - y
      per_row = error**2 if loss == "mse" else optax.huber_loss(error)
      return (share * per_row).sum()

    def one(_, carry):
      w, state = carry
      grads = jax.grad(objective)(w)
      updates, state = opt.update(grads, state, w)
      return optax.apply_updates(w, updates), state

    w, state = jax.lax.fori_loop(0, steps, one, (params.weights, params.opt_state))
    return MLPParams(w, state, scale)

  def predict(params, rows):
    return _forward(params.weights, jnp.asarray(rows.features, params.scale.dtype)) * params.scale

  def size(params, rows):
    widths = (rows.features.shape[1],) + tuple(hidden) + (1,)
    return jnp.asarray(sum(a * b + b for a, b in zip(widths[:-1], widths[1:])), jnp.int32)

  return Regressor("mlp", init, fit, predict, size, hyperparameters={"learning_rate": learning_rate}, uses_seed=True)


# ---------------------------------------------------------------- regression tree


_TIE = 1e-9  # relative gap under which two split gains are a tie (the first feature / cut wins)


class TreeParams(NamedTuple):
  """A tree of at most ``D`` split levels, nodes numbered compactly per level (< N).

  Attributes:
    feature: [D, N] int32 split feature of node n at level d.
    cut: [D, N] float split point (a row goes right when its feature exceeds it).
    split: [D, N] bool, node n at level d splits (else it is a leaf if it has data).
    child: [D, 2N] int32 node at level d + 1 of (2 n + right).
    value: [D + 1, N] float mean target of every node (the leaf prediction).
    leaves: [] int32 number of leaves.
  """

  feature: jax.Array
  cut: jax.Array
  split: jax.Array
  child: jax.Array
  value: jax.Array
  leaves: jax.Array


def _best_splits(x, order, node, w, wy, num_nodes):
  """Per node [num_nodes]: the best single-feature split's SSE reduction (-inf if none),
  feature and cut. ``node`` [N] (``num_nodes`` = excluded rows); ``order`` [F, N] presort."""
  n, f_count = x.shape
  total_w = jax.ops.segment_sum(w, node, num_nodes + 1)
  total_s = jax.ops.segment_sum(wy, node, num_nodes + 1)
  positions = jnp.arange(n)
  gains, cuts = [], []
  for f in range(f_count):
    o = order[f]
    perm = jnp.argsort(node[o], stable=True)  # grouped by node, sorted by x_f within
    rows = o[perm]
    k = node[rows]
    xs = x[rows, f]
    cw, cs = jnp.cumsum(w[rows]), jnp.cumsum(wy[rows])
    start = jax.ops.segment_min(positions, k, num_nodes + 1)[k]
    before_w = jnp.where(start > 0, cw[jnp.maximum(start - 1, 0)], 0)
    before_s = jnp.where(start > 0, cs[jnp.maximum(start - 1, 0)], 0)
    wl, sl = cw - before_w, cs - before_s
    wn, sn = total_w[k], total_s[k]
    wr, sr = wn - wl, sn - sl
    nxt = jnp.concatenate([xs[1:], xs[-1:]])
    same = jnp.concatenate([k[1:] == k[:-1], jnp.zeros(1, bool)])
    valid = same & (nxt > xs) & (k < num_nodes) & (wl > 0) & (wr > 0)
    safe = lambda v: jnp.where(valid, v, 1.0)
    gain = sl**2 / safe(wl) + sr**2 / safe(wr) - sn**2 / jnp.where(wn > 0, wn, 1.0)
    gain = jnp.where(valid, gain, -jnp.inf)
    node_gain = jax.ops.segment_max(gain, k, num_nodes + 1)[:num_nodes]
    # ties (equal partitions in exact arithmetic) go to the first cut: rounding must not choose
    near = node_gain[jnp.minimum(k, num_nodes - 1)]
    first = jnp.where(valid & (gain >= near - _TIE * jnp.abs(near)), positions, n)
    at = jnp.minimum(jax.ops.segment_min(first, k, num_nodes + 1)[:num_nodes], n - 2)
    gains.append(node_gain)
    cuts.append((xs[at] + xs[at + 1]) / 2)
  gains, cuts = jnp.stack(gains), jnp.stack(cuts)  # [F, nodes]
  best_gain = gains.max(0)
  best_feature = jnp.argmax(gains >= best_gain - _TIE * jnp.abs(best_gain), axis=0).astype(jnp.int32)  # first near-best
  best_cut = jnp.take_along_axis(cuts, best_feature[None], 0)[0]
  return best_gain, best_feature, best_cut, total_w[:num_nodes], total_s[:num_nodes]


def _grow(x, order, targets, weights, threshold, max_depth: int) -> TreeParams:
  n = x.shape[0]
  dtype = targets.dtype
  wy = weights * targets
  tolerance = 1e-12 * (weights * targets**2).sum() + 1e-300  # rounding, not an improvement
  empty = TreeParams(
    feature=jnp.zeros((max_depth, n), jnp.int32),
    cut=jnp.zeros((max_depth, n), dtype),
    split=jnp.zeros((max_depth, n), bool),
    child=jnp.zeros((max_depth, 2 * n), jnp.int32),
    value=jnp.zeros((max_depth + 1, n), dtype),
    leaves=jnp.zeros((), jnp.int32),
  )
  node = jnp.where(weights > 0, 0, n).astype(jnp.int32)  # n: excluded (no data, or in a leaf above)

  def level(carry):
    d, node, tree = carry
    gain, feature, cut, total_w, total_s = _best_splits(x, order, node, weights, wy, n)
    has_data = total_w > 0
    split = has_data & (gain > threshold) & (gain > tolerance)
    value = jnp.where(has_data, total_s / jnp.where(has_data, total_w, 1), 0)
    safe_node = jnp.minimum(node, n - 1)
    right = x[jnp.arange(n), feature[safe_node]] > cut[safe_node]
    going = (node < n) & split[safe_node]
    key = jnp.where(going, 2 * safe_node + right, 2 * n)
    present = jnp.zeros(2 * n + 1, jnp.int32).at[key].max(1)[: 2 * n]
    rank = jnp.cumsum(present) - 1
    child = jnp.where(present > 0, rank, 0).astype(jnp.int32)
    new_node = jnp.where(going, child[jnp.minimum(key, 2 * n - 1)], n).astype(jnp.int32)
    feature, cut = jnp.where(split, feature, 0), jnp.where(split, cut, 0)  # no don't-care entries
    tree = tree._replace(
      feature=tree.feature.at[d].set(feature),
      cut=tree.cut.at[d].set(cut),
      split=tree.split.at[d].set(split),
      child=tree.child.at[d].set(child),
      value=tree.value.at[d].set(value),
      leaves=tree.leaves + (has_data & ~split).sum().astype(jnp.int32),
    )
    return d + 1, new_node, tree

  d, node, tree = jax.lax.while_loop(lambda c: (c[0] < max_depth) & jnp.any(c[1] < n), level, (0, node, empty))
  total_w = jax.ops.segment_sum(weights, node, n + 1)[:n]
  total_s = jax.ops.segment_sum(wy, node, n + 1)[:n]
  last = jnp.where(total_w > 0, total_s / jnp.where(total_w > 0, total_w, 1), 0)
  return tree._replace(value=tree.value.at[d].set(last), leaves=tree.leaves + (total_w > 0).sum().astype(jnp.int32))


def _walk(tree: TreeParams, x) -> jax.Array:
  """[N] predictions for rows ``x`` [N, F]: follow the splits down to a leaf."""
  n_rows = x.shape[0]
  max_depth = tree.feature.shape[0]

  def level(d, carry):
    node, out, stopped = carry
    splits = tree.split[d, node] & ~stopped
    leaf_here = ~tree.split[d, node] & ~stopped
    out = jnp.where(leaf_here, tree.value[d, node], out)
    right = x[jnp.arange(n_rows), tree.feature[d, node]] > tree.cut[d, node]
    node = jnp.where(splits, tree.child[d, 2 * node + right], node)
    return node, out, stopped | leaf_here

  node = jnp.zeros(n_rows, jnp.int32)
  node, out, stopped = jax.lax.fori_loop(
    0, max_depth, level, (node, jnp.zeros(n_rows, tree.value.dtype), jnp.zeros(n_rows, bool))
  )
  return jnp.where(stopped, out, tree.value[max_depth, node])


def tree(*, max_depth: int = 32, threshold: float = 0.0) -> Regressor:
  """A regression tree grown by Waugh et al. 2015's rule (see the module doc).

  Args:
    max_depth: the most split levels (static: it sets the arrays' shapes).
    threshold: the default of the batchable hyperparameter: the least squared-error
      reduction (summed over all data points) a split must bring; >= 0.
  """
  if max_depth < 1:
    raise ValueError(f"tree max_depth must be >= 1, got {max_depth}")

  def init(key, rows):
    del key
    n = len(rows.legal)
    dtype = _dtype()
    return TreeParams(
      feature=jnp.zeros((max_depth, n), jnp.int32),
      cut=jnp.zeros((max_depth, n), dtype),
      split=jnp.zeros((max_depth, n), bool),
      child=jnp.zeros((max_depth, 2 * n), jnp.int32),
      value=jnp.zeros((max_depth + 1, n), dtype),
      leaves=jnp.ones((), jnp.int32),
    )

  def fit(params, rows, targets, weights, hyper):
    del params
    x = jnp.asarray(rows.features, targets.dtype)
    return _grow(x, jnp.asarray(rows.order), targets, weights, hyper["threshold"], max_depth)

  def predict(params, rows):
    return _walk(params, jnp.asarray(rows.features, params.value.dtype))

  def size(params, rows):
    del rows
    return params.leaves

  return Regressor("tree", init, fit, predict, size, hyperparameters={"threshold": threshold})
