"""Sampling on the tree arrays: prefix sums, inverse-CDF draws, chance outcomes, uniforms
from raw bits, and reach probabilities of histories. Shared by every sampled solver."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.kits.sequence_form.arrays import CHANCE_NODE
from jaxcfr.kits.sequence_form.tensors import Tree, path_product, tree_statics

__all__ = [
  "prefix_sum",
  "exclusive_prefix_product",
  "inverse_cdf",
  "sibling_cdf",
  "chance_outcome",
  "uniform_from_bits",
  "words_per_uniform",
  "history_reach",
  "split_key",
]

# Prefix sums along a short axis (at most ``UNROLLED_PREFIX`` entries) of rows are written
# out as running sums over the columns (n - 1 elementwise adds): outcome sampling's walk
# on Leduc, 4096 trajectories, costs 19 ns per trajectory and level so, against 70 with
# the fused reduce below (its draws at chance nodes of 6 children), and a vmapped batch of
# 64 one-trajectory runs 115 against 135 us per iteration. A single short vector, as in
# external sampling's compaction, is faster as one fused broadcast-and-reduce (quadratic
# work, but one kernel) up to ``SMALL_PREFIX`` entries; above that ``cumsum`` (on a CPU a
# ``cumsum`` of a few dozen entries costs about half a microsecond, several times a fused
# elementwise kernel). Prefix products along at most ``UNROLLED_PREFIX`` entries are written
# out too.
UNROLLED_PREFIX = 32
SMALL_PREFIX = 128
# Chance nodes wider than this are drawn by binary search on ``sibling_cdf`` (a few gathers)
# rather than by a prefix sum over their window (work quadratic in the width when fused).
SEARCH_WIDTH = 32


def _running(x: jax.Array, combine, axis: int = -1) -> jax.Array:
  """Inclusive scan of ``x`` along ``axis``, written out slice by slice."""
  axis = axis % x.ndim
  slices = [jax.lax.index_in_dim(x, 0, axis, keepdims=False)]
  for j in range(1, x.shape[axis]):
    slices.append(combine(slices[-1], jax.lax.index_in_dim(x, j, axis, keepdims=False)))
  return jnp.stack(slices, axis)


def prefix_sum(x: jax.Array, exclusive: bool = False) -> jax.Array:
  """Prefix sums of ``x`` [..., n] along the last axis."""
  n = x.shape[-1]
  if 1 < n <= UNROLLED_PREFIX and x.ndim > 1:
    if not exclusive:
      return _running(x, jnp.add)
    return jnp.concatenate([jnp.zeros_like(x[..., :1]), _running(x[..., :-1], jnp.add)], -1)
  if n <= SMALL_PREFIX:
    j = jnp.arange(n)
    before = (j[None, :] < j[:, None]) if exclusive else (j[None, :] <= j[:, None])  # [n (out), n (in)]
    return jnp.where(before, x[..., None, :], 0).sum(-1)
  total = jnp.cumsum(x, -1)
  return total - x if exclusive else total


def exclusive_prefix_product(x: jax.Array, axis: int = -1) -> jax.Array:
  """Products of the entries of ``x`` strictly before each position along ``axis`` (1
  first). Along at most ``UNROLLED_PREFIX`` entries the products are written out slice by
  slice, elementwise work that fuses into its neighbours (outcome sampling on Leduc, 4096
  trajectories: 3.6 against 4.2 ms per iteration with ``cumprod``; 64 vmapped seeds of one
  trajectory each: about 75 against 85 us; one trajectory: the same 1.8-1.9 us);
  ``cumprod`` beyond."""
  n = x.shape[axis]
  if n == 0:
    return x
  before = jax.lax.slice_in_dim(x, 0, n - 1, axis=axis)
  unroll = 1 < n <= UNROLLED_PREFIX
  inclusive = _running(before, jnp.multiply, axis) if unroll else jnp.cumprod(before, axis)
  return jnp.concatenate([jnp.ones_like(jax.lax.slice_in_dim(x, 0, 1, axis=axis)), inclusive], axis)


def inverse_cdf(probs: jax.Array, u: jax.Array, count: jax.Array) -> jax.Array:
  """[N] int32 index drawn from each row of ``probs`` [N, W] (unnormalised, zero past the
  row's ``count`` [N] entries) by inverse CDF with uniforms ``u`` [N] in [0, 1)."""
  cum = prefix_sum(probs)
  below = cum[:, :-1] <= (u * cum[:, -1])[:, None]
  return jnp.minimum(below.sum(-1), jnp.maximum(count, 1) - 1).astype(jnp.int32)


def sibling_cdf(tree: Tree) -> jax.Array | None:
  """[H] for each child of a chance node, the chance probability of it and its earlier
  siblings; 0 elsewhere. None when no chance node has more than ``SEARCH_WIDTH`` children
  (``chance_outcome`` then sums its short windows directly).

  Computed from ``tree.chance_prob``, so it follows any change of the chance leaves: on the
  host in float64 when they are concrete, else one row-wise ``cumsum`` per chance node
  (the indices are static). Inside a jitted loop it depends on the tensors only, so XLA
  computes it once per call, outside the loop.
  """
  statics = tree_statics(tree)
  if statics.chance_width <= SEARCH_WIDTH:
    return None
  nodes = np.flatnonzero(statics.kind == CHANCE_NODE)
  counts = statics.num_children[nodes]
  j = np.arange(int(counts.max()))
  inside = j[None, :] < counts[:, None]
  children = np.where(inside, statics.first_child[nodes][:, None] + j[None, :], 0)
  prob = tree.chance_prob
  if isinstance(prob, jax.core.Tracer):
    cums = jnp.cumsum(jnp.where(inside, prob[children], 0), axis=1)
    return jnp.zeros_like(prob).at[children[inside]].set(cums[inside])
  host = np.asarray(prob, np.float64)
  cdf = np.zeros_like(host)
  cdf[children[inside]] = np.cumsum(np.where(inside, host[children], 0), axis=1)[inside]
  return jnp.asarray(cdf, prob.dtype)


def _search_cdf(cdf: jax.Array, first: jax.Array, count: jax.Array, u: jax.Array, width: int) -> jax.Array:
  """[N] smallest ``j < count`` with ``cdf[first + j] > u * cdf[first + count - 1]`` (the
  inverse-CDF draw), by binary search: ``ceil(log2(width))`` rounds of one gather each."""
  last = jnp.maximum(count, 1) - 1
  target = u * cdf[first + last]
  lo, hi = jnp.zeros_like(last), last
  for _ in range(int(np.ceil(np.log2(max(width, 2))))):
    mid = (lo + hi) // 2
    right = cdf[first + mid] <= target
    lo, hi = jnp.where(right, mid + 1, lo), jnp.where(right, hi, mid)
  return jnp.minimum(lo, last).astype(jnp.int32)


def chance_outcome(
  chance_prob: jax.Array, first: jax.Array, count: jax.Array, u: jax.Array, width: int, cdf: jax.Array | None = None
) -> jax.Array:
  """[N] int32 child drawn at chance nodes whose children are ``first:first + count``
  (``count <= width``, the game's chance width) by inverse CDF with ``u`` [N].

  The children are contiguous, so each row is one window of ``chance_prob`` [H] (a slice
  gather; the window start is clamped into the array and the children masked inside it).
  With ``cdf = sibling_cdf(tree)`` (not None when ``width > SEARCH_WIDTH``), every row is
  drawn by binary search on it instead (``log2(width)`` gathers per draw). Without it,
  wide rows pick their block of about ``sqrt(width)`` outcomes first, then the outcome
  inside it, with small fused prefix sums instead of one long ``cumsum`` (work
  proportional to the width on every draw)."""
  if cdf is not None and width > SEARCH_WIDTH:
    return _search_cdf(cdf, first, count, u, width)
  num = chance_prob.shape[0]
  start = jnp.clip(first, 0, max(num - width, 0))
  rows = jax.vmap(lambda s: jax.lax.dynamic_slice(chance_prob, (s,), (min(width, num),)))(start)
  offset = first - start
  j = jnp.arange(rows.shape[1])
  inside = (j >= offset[:, None]) & (j < (offset + count)[:, None])
  rows = jnp.where(inside, rows, 0)
  if rows.shape[1] <= SMALL_PREFIX:
    cum = prefix_sum(rows)
    below = (cum <= (u * cum[:, -1])[:, None]) & inside
    return jnp.minimum(below.sum(-1), jnp.maximum(count, 1) - 1).astype(jnp.int32)
  block = int(np.ceil(np.sqrt(rows.shape[1])))
  blocks = -(-rows.shape[1] // block)
  grid = jnp.pad(rows, ((0, 0), (0, blocks * block - rows.shape[1]))).reshape(-1, blocks, block)
  totals = grid.sum(-1)  # [N, blocks]
  cum_blocks = prefix_sum(totals)
  target = u * cum_blocks[:, -1]
  chosen = jnp.minimum((cum_blocks[:, :-1] <= target[:, None]).sum(-1), blocks - 1)
  before = jnp.take_along_axis(cum_blocks - totals, chosen[:, None], 1)[:, 0]
  row = jnp.take_along_axis(grid, chosen[:, None, None], 1)[:, 0]  # [N, block]
  cum = prefix_sum(row) + before[:, None]
  within = jnp.minimum((cum[:, :-1] <= target[:, None]).sum(-1), block - 1)
  a = chosen * block + within - offset
  return jnp.clip(a, 0, jnp.maximum(count, 1) - 1).astype(jnp.int32)


def uniform_from_bits(bits: jax.Array, dtype) -> jax.Array:
  """Uniforms in [0, 1) of ``dtype`` from uint32 ``bits`` [2 N] (float64) or [N] (else),
  as ``jax.random.uniform`` makes them: the high bits fill the mantissa of a number in [1, 2)."""
  dtype = jnp.dtype(dtype)
  if dtype == jnp.float64:
    pairs = bits.reshape(-1, 2).astype(jnp.uint64)
    word = (pairs[:, 0] << 32) | pairs[:, 1]
    one = jax.lax.bitcast_convert_type(jnp.float64(1.0), jnp.uint64)
    return jax.lax.bitcast_convert_type((word >> 12) | one, jnp.float64) - 1.0
  one = jax.lax.bitcast_convert_type(jnp.float32(1.0), jnp.uint32)
  return (jax.lax.bitcast_convert_type((bits >> 9) | one, jnp.float32) - 1.0).astype(dtype)


def words_per_uniform(dtype) -> int:
  """uint32 words ``uniform_from_bits`` reads per uniform of ``dtype``."""
  return 2 if jnp.dtype(dtype) == jnp.float64 else 1


def split_key(key: jax.Array, num: int) -> list[jax.Array]:
  """``num`` raw [2] uint32 keys split from a raw key."""
  keys = jax.random.split(jax.random.wrap_key_data(key), num)
  return [jax.random.key_data(k) for k in keys]


def history_reach(tree: Tree, strategy: jax.Array, player: int) -> jax.Array:
  """[H] ``pi_player(h)``: the product of ``player``'s probabilities (``strategy`` [I, A])
  on the path to each history (1 at the root, which no edge enters)."""
  parent = jnp.maximum(tree.parent, 0)
  acting = (tree.kind[parent] == player) & (tree.parent >= 0)
  edge = strategy[jnp.maximum(tree.infoset[parent], 0), tree.action_index]
  return path_product(tree, jnp.where(acting, edge, 1.0).astype(strategy.dtype))
