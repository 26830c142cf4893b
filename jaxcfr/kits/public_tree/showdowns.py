"""Showdown values on the public tree (jaxcfr.kits.public_tree.values): each hand's value of
the showdowns below a node against the opponent's reach, by prefix and suffix sums over the
hands sorted by strength once at build time with corrections over each card's holders
(Johanson et al., "Accelerating Best Response Calculation in Large Extensive Games", 2011),
or by dense ``[H, H]`` products for small ``H``. Shapes as in jaxcfr.kits.public_tree.values.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.kits.public_tree.device import PublicTreeTensors

__all__ = [
  "EXACT",
  "expand_to",
  "select_rows",
  "compatible_reach",
  "compatible_hands",
  "showdown_values",
  "showdown_values_dense",
]

# Every product here is exact arithmetic in the solver's dtype: on a GPU, float32 products
# otherwise run at TensorFloat-32 (a 10-bit mantissa), which would perturb the values.
EXACT = jax.lax.Precision.HIGHEST

_SHORT_SCAN = 64  # prefix sums over at most this many entries are one matrix product (_scan)
_SCAN_BLOCK = 32  # and longer ones blocks of this many


def expand_to(x: jax.Array, ndim: int) -> jax.Array:
  """``x`` with trailing unit axes up to ``ndim`` axes."""
  return x.reshape(x.shape + (1,) * (ndim - x.ndim))


def select_rows(table: jax.Array, index: jax.Array, ndim: int) -> jax.Array:
  """[n, ...] rows ``index`` [n] of ``table`` [R, ...], zero where ``index`` is not in ``[0, R)``."""
  inside = (index >= 0) & (index < table.shape[0])
  if table.shape[0] == 0:
    return jnp.zeros(index.shape + table.shape[1:], table.dtype)
  return jnp.where(expand_to(inside, ndim), table[jnp.clip(index, 0, table.shape[0] - 1)], 0)


def compatible_reach(tree: PublicTreeTensors, reach: jax.Array) -> jax.Array:
  """[T, H, *B] for each hand ``h``, the sum of ``reach`` [T, H, *B] over the hands that
  share no card with ``h``: by inclusion-exclusion over the subsets ``S`` of ``h``'s cards,
  ``sum_S (-1)^|S| sum_{h' holds S} reach(h')`` (``S`` empty: the total; ``S = h``: ``h``
  itself). The sums over each subset's holders are one product with the 0/1 incidence
  matrix of hands and subsets (measured on a turn endgame's folds, one CPU core: 19 ms
  against 73 ms for a gather of the holders and a sum, with one gather per column below)."""
  out = reach.sum(1, keepdims=True)
  for s, (members, subsets) in enumerate(zip(tree.members, tree.subsets), 1):
    sign = jnp.add if s % 2 == 0 else jnp.subtract
    if s == tree.hands.shape[1]:  # S = h: the hand itself is the one hand that holds all its cards
      out = sign(out, reach)
      continue
    # [T, M_s, *B] the reach of each subset's holders: a product with the [H, M_s] incidence
    incidence = jnp.zeros((reach.shape[1], members.shape[0]), reach.dtype)
    incidence = incidence.at[members, jnp.arange(members.shape[0])[:, None]].set(1)
    held = jnp.moveaxis(jnp.tensordot(reach, incidence, axes=(1, 0), precision=EXACT), -1, 1)
    # one gather per column of ``subsets``, each added or subtracted in turn (a gather of all
    # columns and a sum, or a sign times a sum, is slower on a CPU)
    for c in range(subsets.shape[1]):
      out = sign(out, held[:, subsets[:, c]])
  return jnp.broadcast_to(out, reach.shape)


def _compatible_hands_first(tree: PublicTreeTensors, reach: jax.Array) -> jax.Array:
  """[H, G, *B] ``compatible_reach`` of ``reach`` [H, G, *B] laid out hands first (a
  showdown board's, ``_board_values``: transposes there made XLA lay the loop's arrays out
  the other way, a transposed copy of each board's arrays every step)."""
  out = reach.sum(0, keepdims=True)
  for s, (members, subsets) in enumerate(zip(tree.members, tree.subsets), 1):
    sign = jnp.add if s % 2 == 0 else jnp.subtract
    if s == tree.hands.shape[1]:
      out = sign(out, reach)
      continue
    incidence = jnp.zeros((reach.shape[0], members.shape[0]), reach.dtype)
    incidence = incidence.at[members, jnp.arange(members.shape[0])[:, None]].set(1)
    held = jnp.tensordot(incidence, reach, axes=(0, 0), precision=EXACT)  # [M_s, G, *B]
    for c in range(subsets.shape[1]):
      out = sign(out, held[subsets[:, c]])
  return jnp.broadcast_to(out, reach.shape)


def compatible_hands(tree: PublicTreeTensors) -> jax.Array:
  """[H, H] bool, the hands share no card (all True where hands never conflict: dice)."""
  hands = tree.hands
  if not tree.members:
    return jnp.ones((tree.num_hands,) * 2, bool)
  return ~(hands[:, None, :, None] == hands[None, :, None, :]).any((2, 3))


def _prefix(x: jax.Array) -> jax.Array:
  """Exclusive prefix sums along the first axis, one longer: ``P[j] = sum_{t < j} x[t]``."""
  return _scan(x, suffix=False)


def _suffix(x: jax.Array) -> jax.Array:
  """Suffix sums along the first axis, one longer: ``Q[j] = sum_{t >= j} x[t]`` (``Q[end] = 0``)."""
  return _scan(x, suffix=True)


def _triangle(n: int, suffix: bool, dtype, *, inclusive: bool = False) -> jax.Array:
  """[n, n + 1] (exclusive) or [n, n] (``inclusive``) 0/1 matrix ``T`` with ``(T^T x)[j]``
  the sum of ``x[t]`` over ``t < j`` (``t <= j`` inclusive), or over ``t >= j`` (``suffix``)."""
  t, j = np.arange(n)[:, None], np.arange(n if inclusive else n + 1)[None, :]
  return jnp.asarray((t >= j) if suffix else ((t <= j) if inclusive else (t < j)), dtype)


def _scan(x: jax.Array, suffix: bool) -> jax.Array:
  """Prefix or suffix sums along the first axis, one longer, with exact zeros at ``P[0]``
  and ``Q[end]``, as products with triangular 0/1 matrices (every sum a sum of its own
  terms, so a sum of zeros is exactly zero) that contract the first axis, the rows of a
  matrix product. A short axis (a card's holders: 51 in hold'em) is one product; a long one
  (the hands) is cut into blocks of ``_SCAN_BLOCK``: a product within each block plus the
  sums of the blocks before (after) it, a second product. XLA's ``cumsum`` (a
  reduce-window) is several times slower on a CPU and needed transposes on a GPU (measured:
  [3000, 1326] float32 on one core, 45.5 ms against 7.9 ms)."""
  n = x.shape[0]
  dot = lambda a, b, axis: jnp.tensordot(a, b, axes=(0, axis), precision=EXACT)
  if n <= _SHORT_SCAN:
    return dot(_triangle(n, suffix, x.dtype), x, 0)
  size = _block_size(n)
  blocks = -(-n // size)
  y = x if blocks * size == n else jnp.pad(x, [(0, blocks * size - n)] + [(0, 0)] * (x.ndim - 1))
  y = y.reshape((blocks, size) + x.shape[1:])
  within = jnp.moveaxis(dot(_triangle(size, suffix, x.dtype, inclusive=True), y, 1), 0, 1)  # [K, b, ...]
  # the sums of the blocks strictly before (after) each block: exclusive scans of the totals
  outer = _triangle(blocks, suffix, x.dtype)  # [K, K + 1]
  between = dot(outer[:, 1:] if suffix else outer[:, :-1], y.sum(1), 0)  # [K, ...]
  sums = (within + between[:, None]).reshape((blocks * size,) + x.shape[1:])[:n]
  zero = jnp.zeros_like(sums[:1])
  return jnp.concatenate([sums, zero] if suffix else [zero, sums])


def _block_size(n: int) -> int:
  """``_scan``'s block: the divisor of ``n`` nearest ``_SCAN_BLOCK`` within 3/4 to 3/2 of it
  (34 for hold'em's 1,326 hands), so that no padded copy of the array is made (a tenth of a
  turn iteration on one core), else ``_SCAN_BLOCK`` with padding."""
  near = [b for b in range(3 * _SCAN_BLOCK // 4, 3 * _SCAN_BLOCK // 2 + 1) if n % b == 0]
  return min(near, key=lambda b: (abs(b - _SCAN_BLOCK), b)) if near else _SCAN_BLOCK


def _rest(prefix: jax.Array) -> jax.Array:
  """The suffix sums ``Q[j] = P[end] - P[j]`` from exclusive prefix sums ``P`` along the
  first axis (exactly zero at the end): one scan serves both sides. Used for the card
  corrections (the larger part of a hold'em showdown's work), not for the sums over all
  hands: there an exact tie in one-card games (a regret of exactly zero) would come out
  +-1e-17 and regret matching would break it, which the tests comparing iterates with the
  sequence form would see."""
  return prefix[-1:] - prefix


def _weaker_stronger(tree: PublicTreeTensors, table: jax.Array, reach: jax.Array):
  """([H, G, *B], [H, G, *B]) the opponent's reach over the compatible hands strictly weaker
  and strictly stronger than each hand, at ``G`` showdowns on one board (``table``: its row
  of the sorted tables; ``reach``: [H, G, *B], hands first, so that every gather takes whole
  rows: gathering along the last axis was 2.8x slower on a CPU, with the transposes). Prefix
  sums over the hands by strength give the sums over all weaker hands; inclusion-exclusion
  over each hand's proper card subsets ``S`` subtracts the weaker hands holding ``S``, read
  from prefix sums over ``S``'s holders sorted by strength (the hand itself, ``S`` = all
  its cards, is never strictly weaker or stronger)."""
  ordered = reach[tree.order[table]]
  weaker = _prefix(ordered)[tree.lo[table]]
  stronger = _suffix(ordered)[tree.hi[table]]
  for s, (sub_order, sub_lo, sub_hi) in enumerate(zip(tree.sub_order, tree.sub_lo, tree.sub_hi), 1):
    prefix = _prefix(reach[sub_order[table].T])  # [W + 1, M, G, *B]: each subset's holders by strength
    subsets, lo, hi, rest = tree.subsets[s - 1], sub_lo[table], sub_hi[table], _rest(prefix)  # [H, C], ...
    sign = jnp.add if s % 2 == 0 else jnp.subtract
    for c in range(subsets.shape[1]):  # one gather per column (as in compatible_reach)
      weaker = sign(weaker, prefix[lo[:, c], subsets[:, c]])  # [H, G, *B]
      stronger = sign(stronger, rest[hi[:, c], subsets[:, c]])
  return weaker, stronger


# Bytes of one board's working set in _weaker_stronger per showdown, hand and batch element,
# over the item size: the sorted reach and its prefix sums, the two results, and per card subset
# the holders' reach, its prefix sums and the gathered corrections (about 14; rounded up).
_BOARD_WORK = 16


def _boards_per_step(tree: PublicTreeTensors, padded: jax.Array) -> int:
  """How many showdown boards one step of ``_by_board``'s loop takes: 1 where
  ``tree.showdown_step_bytes`` is 0, else as many as fit it (all at most)."""
  if not tree.showdown_step_bytes:
    return 1
  per_board = _BOARD_WORK * math.prod(padded.shape[1:]) * padded.dtype.itemsize
  return int(min(max(tree.showdown_step_bytes // per_board, 1), padded.shape[0]))


def _board_values(tree: PublicTreeTensors, player: int, split, table, reach: jax.Array, chips: jax.Array) -> jax.Array:
  """[H, G, *B] ``player``'s values at ``G`` showdowns on one board (``table``: its row of the
  sorted tables; ``reach`` [H, G, *B] the opponent's, hands first; ``chips`` [G, 2] the
  contributions): ``_weaker_stronger``'s two sums combined in the loop's step, so that one
  array leaves it. ``split``: bool [], whether any showdown's contributions differ."""
  weaker, stronger = _weaker_stronger(tree, table, reach)
  # a split pot's term needs the compatible total only where the chips differ (never in
  # poker, where a showdown follows a call or two all-ins of equal stacks); ``split`` is the
  # whole tree's, not the board's, so that a vmap over boards keeps the branch (a batched
  # predicate would run both)
  total = jax.lax.cond(split, lambda: _compatible_hands_first(tree, reach), lambda: weaker + stronger)
  own, other = (expand_to(chips[:, p], reach.ndim - 1)[None] for p in (player, 1 - player))
  return other * weaker - own * stronger + (other - own) / 2 * (total - weaker - stronger)


def _by_board(tree: PublicTreeTensors, player: int, reach: jax.Array) -> jax.Array:
  """[S, H, *B] ``_board_values`` at every showdown, board by board (``lax.map`` over
  ``showdown_groups``): each board's sorted tables are gathered once for all its showdowns,
  and the working set is one step's (docs/design.md, "Cost"). A step takes
  ``_boards_per_step`` boards side by side (a ``vmap``; the boards padded to a multiple of
  it with empty ones). The boards' reach is laid out hands first ([Bs, H, G, *B],
  ``_weaker_stronger``)."""
  groups = tree.showdown_groups  # its padding, row S, reads zeros
  padded = select_rows(reach, groups, groups.ndim + reach.ndim - 1)  # [Bs, G, H, *B]
  padded = jnp.swapaxes(padded, 1, 2)  # [Bs, H, G, *B]
  chips = select_rows(tree.showdown_chips, groups, groups.ndim + 1)  # [Bs, G, 2]
  count, width = padded.shape[0], _boards_per_step(tree, padded)
  split = jnp.any(tree.showdown_chips[:, 0] != tree.showdown_chips[:, 1])
  one = lambda board, r, c: _board_values(tree, player, split, board, r, c)
  if width == 1:
    step, boards = lambda x: one(*x), jnp.arange(count)
  else:
    steps = -(-count // width)
    boards = jnp.minimum(jnp.arange(steps * width), count - 1).reshape(steps, width)
    extra = lambda x: jnp.concatenate([x, jnp.zeros((steps * width - count,) + x.shape[1:], x.dtype)])
    padded, chips = (extra(x).reshape((steps, width) + x.shape[1:]) for x in (padded, chips))
    step = lambda x: jax.vmap(one)(*x)
  values = jax.lax.map(step, (boards, padded, chips))  # [Bs', H, G, *B]
  hands = reach.shape[1]
  values = jnp.swapaxes(values.reshape((-1, hands) + values.shape[-(reach.ndim - 1) :]), 1, 2)
  return values.reshape((-1,) + reach.shape[1:])[tree.showdown_slot]


def showdown_values(tree: PublicTreeTensors, player: int, opponent_reach: jax.Array, *, dense: bool = False):
  """[S, H, *B] ``player``'s values at the showdowns: for hand ``h``, the opponent's chips
  times its reach over compatible weaker hands, minus the player's chips times its reach
  over compatible stronger hands, plus half the difference of the chips times its reach
  over compatible equal hands (a split pot); zero for hands the board blocks.

  Args:
    opponent_reach: [S, H, *B] the opponent's ranges at ``tree.showdown_nodes``.
    dense: the sums as [H, H] products instead of sorted prefix sums.
  """
  table = tree.showdown_table
  if table.shape[0] == 0:  # e.g. a lookahead of a round that no all-in can end
    return jnp.zeros_like(opponent_reach)
  ndim = opponent_reach.ndim
  mask = expand_to(tree.valid[tree.board[tree.showdown_nodes]], ndim)
  if not dense:
    return _by_board(tree, player, opponent_reach) * mask
  strength = tree.strength[table]  # [S, H]
  compatible = compatible_hands(tree)[None] & (strength[:, :, None] >= 0) & (strength[:, None, :] >= 0)
  beats = (compatible & (strength[:, :, None] > strength[:, None, :])).astype(opponent_reach.dtype)
  weaker = jnp.einsum("shg,sg...->sh...", beats, opponent_reach, precision=EXACT)
  stronger = jnp.einsum("sgh,sg...->sh...", beats, opponent_reach, precision=EXACT)
  total = jnp.einsum("shg,sg...->sh...", compatible.astype(opponent_reach.dtype), opponent_reach, precision=EXACT)
  own, other = (expand_to(tree.showdown_chips[:, p], ndim) for p in (player, 1 - player))
  values = other * weaker - own * stronger + (other - own) / 2 * (total - weaker - stronger)
  return values * mask


def showdown_values_dense(tree: PublicTreeTensors, player: int, opponent_reach: jax.Array) -> jax.Array:
  """``showdown_values`` by dense [H, H] products (small ``H``)."""
  return showdown_values(tree, player, opponent_reach, dense=True)
