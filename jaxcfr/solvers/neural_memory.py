"""The memories of the neural CFR solvers (Deep CFR, SD-CFR, ESCHER) and the fits on them.

A memory holds samples ``(infoset row, vector [A], iteration t)``: sampled regrets (advantage
memories) or the strategy played (strategy memories). Deep CFR (Brown, Lerer, Gross and
Sandholm, "Deep Counterfactual Regret Minimization", ICML 2019) keeps a reservoir of them
and fits a network by minimising the t-weighted squared error over the memory (linear CFR's
weighting)::

    L(theta) = sum_k t_k || f_theta(x_{row_k}) - v_k ||^2  /  sum_k t_k

The inputs depend on the sample only through its row, so ``L`` equals, up to a constant, the
same error over the rows against their t-weighted means ``Y_r = sum_{k: row_k = r} t_k v_k / W_r``
with weights ``W_r = sum_{k: row_k = r} t_k``: ``statistics`` reduces any memory to ``(Y, W)``
and the fits see only that. Two memories:

- ``Tally`` (``capacity`` 0): every sample ever seen, kept as its sufficient statistics (sums
  ``[N, A]`` and weights ``[N]``): an unbounded memory in the space of one table;
- ``jaxcfr.solvers.reservoir.Reservoir`` (``capacity`` K): a uniform sample of K points
  (Algorithm R, as the papers' memories), reduced to ``(Y, W)`` by one segment sum per fit.

A fit takes ``steps`` optimiser steps either on the whole objective (``batch_size`` 0: every
row with data, weighted by ``W``) or on minibatches of ``batch_size`` rows drawn with
probability ``W_r / sum W`` (an unbiased estimate of the same gradient; the papers draw
minibatches of points, the same distribution of rows).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxcfr.solvers import networks, reservoir as reservoirs

__all__ = ["Tally", "empty", "remember", "statistics", "fit_values", "fit_policy"]


class Tally(NamedTuple):
  """All samples as sufficient statistics: total [N, A] the t-weighted sums of the vectors,
  weight [N] the sums of t."""

  total: jax.Array
  weight: jax.Array


def empty(num_rows: int, width: int, capacity: int, dtype):
  """An empty memory: a Tally of ``num_rows`` rows (``capacity`` 0) or a reservoir of
  ``capacity`` points of ``width`` values."""
  if capacity:
    return reservoirs.empty(capacity, dtype, (width,))
  return Tally(jnp.zeros((num_rows, width), dtype), jnp.zeros((num_rows,), dtype))


def remember(memory, rows: jax.Array, values: jax.Array, valid: jax.Array, t: jax.Array, key: jax.Array):
  """``memory`` with the samples ``values`` [M, A] at ``rows`` [M] of iteration ``t`` added,
  those where ``valid`` [M] only."""
  if isinstance(memory, Tally):
    num_rows = memory.weight.shape[0]
    target = jnp.where(valid, rows, num_rows)
    weight = t.astype(values.dtype)
    return Tally(
      memory.total.at[target].add(weight * values, mode="drop"),
      memory.weight.at[target].add(jnp.broadcast_to(weight, target.shape), mode="drop"),
    )
  return reservoirs.add(memory, rows, values, t, key, valid=valid)


def statistics(memory, num_rows: int) -> tuple[jax.Array, jax.Array]:
  """(Y [N, A] each row's t-weighted mean vector (0 without samples), W [N] its sum of t)."""
  if isinstance(memory, Tally):
    total, weight = memory.total, memory.weight
  else:
    t = memory.iteration.astype(memory.value.dtype)  # 0 at empty slots
    weight = jax.ops.segment_sum(t, memory.row, num_rows)
    total = jax.ops.segment_sum(t[:, None] * memory.value, memory.row, num_rows)
  return total / jnp.where(weight > 0, weight, 1)[:, None], weight


def _rows(weights: jax.Array, batch_size: int, key):
  """(rows, row weights) of one step: all rows weighted by W, or ``batch_size`` rows drawn
  with probability W / sum W, each of weight 1."""
  if not batch_size:
    return None, weights / jnp.maximum(weights.sum(), 1e-30)
  cdf = jnp.cumsum(weights)  # inverse CDF: O(N + b log N) a step, not categorical's O(b N)
  u = jax.random.uniform(key, (batch_size,), weights.dtype) * cdf[-1]
  pick = jnp.minimum(jnp.searchsorted(cdf, u, side="right"), weights.shape[0] - 1)  # rows of weight 0: never
  return pick, jnp.full((batch_size,), 1.0 / batch_size, weights.dtype)


def fit_values(net, params, state, opt, x, legal, targets, weights, *, steps: int, batch_size: int, key):
  """Fits ``net`` to the value rows ``targets`` [N, A] weighted by ``weights`` [N] on inputs
  ``x`` [N, F] (the squared error on the legal actions, ``legal`` [N, A]; outputs are 0 at
  illegal ones). Returns (params, optimiser state, [] last objective)."""

  def objective(p, k):
    pick, share = _rows(weights, batch_size, k)
    xs, ys, mask = (x, targets, legal) if pick is None else (x[pick], targets[pick], legal[pick])
    error = jnp.where(mask, net.apply(p, xs) - ys, 0)
    return (share * (error**2).sum(-1)).sum()

  return networks.minimise(objective, params, state, opt, steps, key)


def fit_policy(net, params, state, opt, x, legal, targets, weights, *, steps: int, batch_size: int, key):
  """Fits ``net``'s masked softmax to the strategy rows ``targets`` [N, A] weighted by
  ``weights`` [N] (squared error of the probabilities, as OpenSpiel's Deep CFR)."""

  def objective(p, k):
    pick, share = _rows(weights, batch_size, k)
    xs, ys, mask = (x, targets, legal) if pick is None else (x[pick], targets[pick], legal[pick])
    error = networks.masked_policy(net.apply(p, xs), mask) - ys
    return (share * (error**2).sum(-1)).sum()

  return networks.minimise(objective, params, state, opt, steps, key)
