"""A fixed-size reservoir of RCFR's data points, pure JAX (Vitter's Algorithm R, batched).

RCFR's data set (Waugh et al. 2015, Algorithm 1) is every past instantaneous regret
``(phi(I, a), r^s(I, a), s)``. Keeping all of it costs one table (the targets ``R^t / t``
with weights ``t`` are its sufficient statistics); a reservoir keeps a uniform sample of
``K`` points instead, as memory-bounded neural CFR variants do (Deep CFR's advantage memory,
Brown et al. 2019). A point is stored as its row (the index of its features), its value and
its iteration::

    buffer = empty(K)                                  [K] slots, iteration 0 = empty
    buffer = add(buffer, rows [M], values [M], t, key)  M new points, Algorithm R
    means, counts = statistics(buffer, N)              [N] per-row mean value and count

Fitting a regressor on the reservoir's points by (weighted) squared error is fitting the
per-row means with the counts as weights: the within-row variance is a constant of the
fit, and a regression tree's split gains are the same. ``add`` offers the ``M`` points in
order; point ``n`` (counting every point offered so far, from 0) takes slot ``n`` while the
reservoir fills, then slot ``j ~ U{0..n}`` if ``j < K``: each of the ``n + 1`` points seen is
kept with probability ``K / (n + 1)``. Several points of one batch drawing the same slot
resolve as the sequential algorithm does: the last one stays.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

__all__ = ["Reservoir", "empty", "add", "statistics"]


class Reservoir(NamedTuple):
  """row: [K] int32 row index of each point; value: [K, ...] float its instantaneous regret(s);
  iteration: [K] int32 the iteration it came from (0: empty slot); seen: [] int32 points
  offered so far (below 2^31)."""

  row: jax.Array
  value: jax.Array
  iteration: jax.Array
  seen: jax.Array


def empty(capacity: int, dtype=None, shape: tuple = ()) -> Reservoir:
  """An empty reservoir of ``capacity`` (>= 1) points, each value of ``shape`` (a row of
  regrets for Deep CFR's advantage memory)."""
  if int(capacity) < 1:
    raise ValueError(f"reservoir must be >= 1 (points kept per player), got {capacity}")
  dtype = dtype or jnp.zeros(()).dtype
  return Reservoir(
    row=jnp.zeros(capacity, jnp.int32),
    value=jnp.zeros((capacity,) + tuple(shape), dtype),
    iteration=jnp.zeros(capacity, jnp.int32),
    seen=jnp.zeros((), jnp.int32),
  )


def add(buffer: Reservoir, rows, values, iteration, key, valid=None) -> Reservoir:
  """Offer ``M`` points (``rows`` [M] int, ``values`` [M, ...] as the buffer's) from ``iteration``
  in order; with ``valid`` [M] bool only those points are offered (the others are skipped:
  neither counted nor kept)."""
  capacity = buffer.row.shape[0]
  m = values.shape[0]
  offered = jnp.ones((m,), bool) if valid is None else jnp.asarray(valid, bool)
  order = jnp.cumsum(offered.astype(jnp.int32)) - 1  # rank among the offered points
  index = buffer.seen + order  # n of each point
  draw = jax.random.randint(key, (m,), 0, index + 1, dtype=jnp.int32)  # U{0..n}
  slot = jnp.where(index < capacity, index, draw)
  slot = jnp.where((slot < capacity) & offered, slot, capacity)  # capacity: not kept
  last = jax.ops.segment_max(jnp.arange(m, dtype=jnp.int32), slot, capacity + 1)[:capacity]
  taken = last >= 0
  point = jnp.where(taken, last, 0)
  wide = taken.reshape(taken.shape + (1,) * (values.ndim - 1))
  return Reservoir(
    row=jnp.where(taken, jnp.asarray(rows, jnp.int32)[point], buffer.row),
    value=jnp.where(wide, values[point], buffer.value),
    iteration=jnp.where(taken, jnp.asarray(iteration, jnp.int32), buffer.iteration),
    seen=buffer.seen + offered.sum().astype(jnp.int32),
  )


def statistics(buffer: Reservoir, num_rows: int) -> tuple[jax.Array, jax.Array]:
  """(means [N], counts [N]): each row's mean stored value (0 without points) and its number
  of points, in the value's dtype."""
  filled = (buffer.iteration > 0).astype(buffer.value.dtype)
  counts = jax.ops.segment_sum(filled, buffer.row, num_rows)
  sums = jax.ops.segment_sum(filled * buffer.value, buffer.row, num_rows)
  return jnp.where(counts > 0, sums / jnp.where(counts > 0, counts, 1), 0), counts
