"""Regret matching, the one rule every regret minimiser of the library plays.

Hart and Mas-Colell's regret matching: the strategy is proportional to the positive part
of the (cumulative) regrets over the legal actions, and uniform over them where no regret
is positive (Ponsen, de Jong and Lanctot 2011, eq. 5; Chelarescu 2019, section 1.6). It
serves whole tables (``[I, A, *B]``, actions on axis 1) and gathered rows (``[N, A]``,
actions last) alike: only the axis and the legal mask differ.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["normalise", "regret_matching", "legal_from_count", "unrolled_reduce"]

_UNROLL_LIMIT = 64


def unrolled_reduce(x: jax.Array, axis: int, combine, reduce, keepdims: bool = False) -> jax.Array:
  """``reduce(x, axis)`` written as ``combine`` of the slices along ``axis`` when that axis
  is short (at most 64: actions). XLA:CPU runs a reduction over a short axis as a YNNPACK
  library call: a kernel of its own that costs several times the fused adds, and that keeps
  the loop around it from being compiled into one kernel (jaxcfr.xla_setup). With the sums
  of regret matching unrolled, a batched CFR+ iteration on Leduc poker (64 runs) compiles
  into one kernel and went from 0.39 to 0.27 ms per iteration on one core, 0.17 ms split
  over two (benchmarks/results/cfr_speed_cpu.json)."""
  axis = axis % x.ndim
  if x.shape[axis] > _UNROLL_LIMIT:
    return reduce(x, axis=axis, keepdims=keepdims)
  total = jax.lax.index_in_dim(x, 0, axis, keepdims)
  for a in range(1, x.shape[axis]):
    total = combine(total, jax.lax.index_in_dim(x, a, axis, keepdims))
  return total


def normalise(weights: jax.Array, legal: jax.Array, axis: int = 1) -> jax.Array:
  """Non-negative ``weights`` scaled to sum to one over the legal actions along ``axis``;
  uniform over them where the weights sum to zero.

  Args:
    weights: e.g. [I, A, *B] (``axis=1``) or [N, A] (``axis=-1``).
    legal: bool, broadcastable to ``weights`` (True = legal).
  """
  weights = jnp.where(legal, weights, 0)
  total = unrolled_reduce(weights, axis, jnp.add, jnp.sum, keepdims=True)
  uniform = legal / jnp.maximum(legal.sum(axis, keepdims=True), 1).astype(weights.dtype)
  return jnp.where(total > 0, weights / jnp.where(total > 0, total, 1), uniform).astype(weights.dtype)


def regret_matching(regrets: jax.Array, legal: jax.Array, axis: int = 1) -> jax.Array:
  """The strategy proportional to positive regret over the legal actions (uniform where
  none is positive); shapes as ``normalise``."""
  return normalise(jnp.maximum(regrets, 0), legal, axis)


def legal_from_count(count: jax.Array, width: int) -> jax.Array:
  """[N, width] bool: the first ``count`` [N] actions of each row are legal (the tree
  arrays number a node's legal actions 0..count-1)."""
  return jnp.arange(width) < count[..., None]
