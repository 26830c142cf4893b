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
- ``mlp``: a multilayer perceptron (``jaxcfr.solvers.networks``: tanh hidden layers, linear output) trained by optax
  (Adam by default) for ``steps`` full-batch steps per iteration on the weighted squared
  (or Huber) error, warm-started from the previous parameters and optimiser state; targets
  are divided by their weighted root mean square (kept in the parameters) when ``normalise``.
- ``tree``: a regression tree grown by Waugh et al. 2015's rule: at every node the best
  single-feature split by squared-error reduction over all data points; a leaf (predicting
  the mean) where the best reduction (summed over the data points, or with ``error="mean"``
  their mean) is not above ``threshold`` or none exists. Jittable: the
  tree is grown on the U distinct feature rows (rows with equal features cannot be split
  apart, so their weights and weighted targets are summed: the same tree), level by level
  (at most ``max_depth`` levels, at most U nodes a level, numbered compactly); every node's
  best split is found from per-node histograms over each feature's distinct values (U F V
  cells a level, V the most values of a feature), or by one stable sort per feature where
  that exceeds ``_HISTOGRAM_CELLS``. The tree's size is data dependent, its arrays static.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.solvers import networks

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
  return networks.forward(networks.MLPParams(weights), x, "tanh")[:, 0]


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
    weights = networks.glorot(key, widths, _dtype())  # the shared MLP (jaxcfr.solvers.networks)
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
_HISTOGRAM_CELLS = 1 << 24  # distinct rows x features x values per feature above which splits are found by sorting


class TreeParams(NamedTuple):
  """A tree of at most ``D`` split levels, nodes numbered compactly per level (< U, the
  distinct feature rows it was grown on).

  Attributes:
    feature: [D, U] int32 split feature of node n at level d.
    cut: [D, U] float split point (a row goes right when its feature exceeds it).
    split: [D, U] bool, node n at level d splits (else it is a leaf if it has data).
    child: [D, 2U] int32 node at level d + 1 of (2 n + right).
    value: [D + 1, U] float mean target of every node (the leaf prediction).
    leaves: [] int32 number of leaves.
  """

  feature: jax.Array
  cut: jax.Array
  split: jax.Array
  child: jax.Array
  value: jax.Array
  leaves: jax.Array


@dataclasses.dataclass(frozen=True, eq=False)
class _Distinct:
  """The distinct feature rows of a RowData, host NumPy (built when the tree is traced).

  Rows with equal features always share a node, so the tree grown on the distinct rows (their
  weights and weighted targets summed) is the tree grown on all rows.

  Attributes:
    x: [U, F] the distinct rows.
    inverse: [N] the distinct row of every row.
    order: [F, U] int32 the distinct rows sorted by each feature (the sorting path's presort).
    bins: [U, F] int32 rank of each row's value among its feature's distinct values.
    values: [F, V] each feature's distinct values, ascending (padded with the largest).
    cuttable: [F, V] bool, a cut may follow value v of feature f (v is not its largest).
  """

  x: np.ndarray
  inverse: np.ndarray
  order: np.ndarray
  bins: np.ndarray
  values: np.ndarray
  cuttable: np.ndarray

  @property
  def histogram(self) -> bool:
    """Whether splits are found from per-node histograms (else by sorting)."""
    return self.x.shape[0] * self.values.size <= _HISTOGRAM_CELLS


def _distinct(features: np.ndarray) -> _Distinct:
  """The distinct rows of ``features`` [N, F] rounded to float32 (exact in either dtype)."""
  x, inverse = np.unique(np.asarray(features, np.float32), axis=0, return_inverse=True)
  columns = [np.unique(x[:, f]) for f in range(x.shape[1])]
  width = max((len(c) for c in columns), default=1)
  values = np.stack([np.pad(c, (0, width - len(c)), mode="edge") for c in columns]) if columns else np.zeros((0, 1))
  cuttable = np.arange(width)[None, :] < np.array([len(c) - 1 for c in columns], int)[:, None]
  bins = np.stack([np.searchsorted(c, x[:, f]) for f, c in enumerate(columns)], 1) if columns else np.zeros((len(x), 0))
  return _Distinct(
    x=x,
    inverse=inverse.reshape(-1).astype(np.int32),
    order=np.argsort(x, axis=0, kind="stable").T.astype(np.int32),
    bins=bins.astype(np.int32),
    values=values,
    cuttable=cuttable.reshape(len(columns), width),
  )


def _sorted_splits(x, order, node, w, wy, num_nodes):
  """Per node [num_nodes]: the best single-feature split's SSE reduction (-inf if none),
  feature and cut, by one stable sort per feature. ``node`` [N] (``num_nodes`` = excluded
  rows); ``order`` [F, N] presort."""
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


def _histogram_splits(bins, values, cuttable, node, w, wy, num_nodes):
  """As ``_sorted_splits``, from per-node histograms over each feature's distinct values:
  ``bins`` [N, F] value ranks, ``values`` [F, V], ``cuttable`` [F, V]. The same splits (the
  first near-best cut after a value present in the node, at the midpoint to the next value
  present in it), at a cost of N F V per level instead of F sorts."""
  n, f_count = bins.shape
  width = values.shape[1]
  slot = (node[:, None] * f_count + jnp.arange(f_count)[None, :]) * width + bins  # [N, F]
  data = jnp.stack([w, wy], -1)  # [N, 2]
  hist = jax.ops.segment_sum(
    jnp.broadcast_to(data[:, None, :], (n, f_count, 2)).reshape(-1, 2),
    slot.reshape(-1),
    (num_nodes + 1) * f_count * width,
  )[: num_nodes * f_count * width].reshape(num_nodes, f_count, width, 2)
  total_w = jax.ops.segment_sum(w, node, num_nodes + 1)[:num_nodes]
  total_s = jax.ops.segment_sum(wy, node, num_nodes + 1)[:num_nodes]
  upto = jnp.arange(width)[:, None] <= jnp.arange(width)[None, :]  # [V (value), V (cut)]
  exact = jax.lax.Precision.HIGHEST  # sums, not TensorFloat-32 products on a GPU
  left = jnp.einsum("nfvs,vc->nfcs", hist, upto.astype(hist.dtype), precision=exact)  # values <= cut's
  right = jnp.einsum("nfvs,vc->nfcs", hist, (~upto).astype(hist.dtype), precision=exact)  # values > cut's
  wl, sl, wr, sr = left[..., 0], left[..., 1], right[..., 0], right[..., 1]
  wn, sn = total_w[:, None, None], total_s[:, None, None]
  valid = cuttable[None] & (wl > 0) & (wr > 0)
  safe = lambda v: jnp.where(valid, v, 1.0)
  gain = sl**2 / safe(wl) + sr**2 / safe(wr) - sn**2 / jnp.where(wn > 0, wn, 1.0)
  gain = jnp.where(valid, gain, -jnp.inf)  # [nodes, F, V]
  feature_gain = gain.max(-1)
  at = jnp.argmax(gain >= (feature_gain - _TIE * jnp.abs(feature_gain))[..., None], -1)  # first near-best cut
  best_gain = feature_gain.max(-1)
  best_feature = jnp.argmax(feature_gain >= (best_gain - _TIE * jnp.abs(best_gain))[:, None], -1).astype(jnp.int32)
  cut_at = jnp.take_along_axis(at, best_feature[:, None], 1)[:, 0]
  present = jnp.take_along_axis(hist[..., 0], best_feature[:, None, None], 1)[:, 0] > 0  # [nodes, V]
  following = jnp.argmax(present & (jnp.arange(width)[None, :] > cut_at[:, None]), -1)
  best_cut = (values[best_feature, cut_at] + values[best_feature, following]) / 2
  return best_gain, best_feature, best_cut, total_w, total_s


def _grow(distinct: _Distinct, weights, weighted, tolerance, threshold, max_depth: int) -> TreeParams:
  """The tree on the distinct rows: ``weights`` [U] and ``weighted`` [U] (weights times
  targets) summed over the rows of each distinct row; ``tolerance`` [] the gain that is
  rounding, not an improvement."""
  x = jnp.asarray(distinct.x, weights.dtype)
  n = x.shape[0]
  dtype = weights.dtype
  wy = weighted
  if distinct.histogram:
    bins, values = jnp.asarray(distinct.bins), jnp.asarray(distinct.values, dtype)
    cuttable = jnp.asarray(distinct.cuttable)
    splits = lambda node: _histogram_splits(bins, values, cuttable, node, weights, wy, n)
  else:
    order = jnp.asarray(distinct.order)
    splits = lambda node: _sorted_splits(x, order, node, weights, wy, n)
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
    gain, feature, cut, total_w, total_s = splits(node)
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


def tree(*, max_depth: int = 32, threshold: float = 0.0, error: str = "sum") -> Regressor:
  """A regression tree grown by Waugh et al. 2015's rule (see the module doc).

  Args:
    max_depth: the most split levels (static: it sets the arrays' shapes).
    threshold: the default of the batchable hyperparameter: the least reduction of the
      squared error a split must bring; >= 0.
    error: what ``threshold`` bounds: "sum", the squared error summed over all data points
      (it grows with the data: at a fixed threshold RCFR's tree grows with the iterations),
      or "mean", its mean over all data points (the sum over the total weight, ``t`` times
      the legal rows in RCFR: a fixed threshold keeps about the same tree size over a run).
      The paper's "if the error improvement at a node is less than a threshold" reads
      either way.
  """
  if max_depth < 1:
    raise ValueError(f"tree max_depth must be >= 1, got {max_depth}")
  if error not in ("sum", "mean"):
    raise ValueError(f"tree error must be 'sum' or 'mean', got {error!r}")

  def init(key, rows):
    del key
    n = len(_distinct(rows.features).x)
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
    distinct = _distinct(rows.features)
    inverse, count = jnp.asarray(distinct.inverse), len(distinct.x)
    summed = jax.ops.segment_sum(jnp.stack([weights, weights * targets], -1), inverse, count)
    tolerance = 1e-12 * (weights * targets**2).sum() + 1e-300  # rounding, not an improvement
    threshold = hyper["threshold"] * (weights.sum() if error == "mean" else 1)
    return _grow(distinct, summed[:, 0], summed[:, 1], tolerance, threshold, max_depth)

  def predict(params, rows):
    distinct = _distinct(rows.features)
    return _walk(params, jnp.asarray(distinct.x, params.value.dtype))[jnp.asarray(distinct.inverse)]

  def size(params, rows):
    del rows
    return params.leaves

  return Regressor("tree", init, fit, predict, size, hyperparameters={"threshold": threshold})
