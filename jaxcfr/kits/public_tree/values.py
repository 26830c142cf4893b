"""Pure operations on the public tree (jaxcfr.kits.public_tree.tree): ranges, counterfactual
values, terminal values with card removal, best responses, and the conversion of a
public-tree profile to the sequence form.

Shapes: ``N`` public nodes, ``H`` hands, ``A`` most actions, ``N_p`` decision nodes of
player ``p``, ``*B`` trailing batch axes. A player's strategy is ``[N_p, A, H, *B]`` (the
probability of action slot ``a`` with hand ``h`` at the player's ``n``-th decision node), a
profile a pair of them. Ranges are ``[N, H, *B]``: the deal probability of each hand
(``initial_range``, ``[2, H]``, or ``[2, H, *B]`` for a batch of subgames that differ in
their ranges: ``with_initial_ranges``) times the player's own reach, zero where the board holds one of the
hand's cards. Counterfactual values are ``[N, H, *B]``, each player's own (player 1's are
minus player 0's payoffs): ``v_i(n, h)`` is the sum over the opponent's hands ``h'`` that
share no card with ``h`` of ``r_{-i}(n, h')`` times player ``i``'s expected payoff below
``n`` (chance below ``n`` included). The sequence form's counterfactual value of the
infoset ``(n, h)`` is ``v_i(n, h)`` times player ``i``'s share of the deal and the
probability of ``n``'s public cards: a constant of each node, so regrets differ by a
positive factor per infoset and regret matching is unchanged.

Terminal values (docs/design.md, "The public tree"): a fold's by inclusion-exclusion over
the cards of each hand, O(H k + M W) for the ``M`` card subsets held by ``W`` hands each;
a showdown's by prefix and suffix sums over the hands sorted by strength once at build
time, with the same corrections over each card's holders, O(H k + M W); and, for small
``H``, by dense ``[H, H]`` products (``dense=True``); a payoff terminal's (games whose
terminals are no fold or showdown, as liar's dice's calls) by a dense product with its
``[H, H]`` payoff matrix. Johanson et al., "Accelerating Best Response Calculation in Large
Extensive Games" (2011) introduced the sorted showdown.
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.base import regret
from jaxcfr.kits.public_tree.device import PublicTreeTensors

# Every product here is exact arithmetic in the solver's dtype: on a GPU, float32 products
# otherwise run at TensorFloat-32 (a 10-bit mantissa), which would perturb the values.
EXACT = jax.lax.Precision.HIGHEST

__all__ = [
  "uniform_strategy",
  "uniform_profile",
  "ranges",
  "compatible_reach",
  "normalise_ranges",
  "with_initial_ranges",
  "fold_values",
  "showdown_values",
  "fold_values_dense",
  "showdown_values_dense",
  "payoff_values",
  "terminal_values",
  "counterfactual_values",
  "action_values",
  "root_value",
  "expected_value",
  "best_response_values",
  "nash_conv",
  "exploitability",
]


_SHORT_SCAN = 64  # prefix sums over at most this many entries are one matrix product (_scan)
_SCAN_BLOCK = 32  # and longer ones blocks of this many


def _expand(x: jax.Array, ndim: int) -> jax.Array:
  """``x`` with trailing unit axes up to ``ndim`` axes."""
  return x.reshape(x.shape + (1,) * (ndim - x.ndim))


def uniform_strategy(tree: PublicTreeTensors, player: int) -> jax.Array:
  """[N_p, A, H] uniform over each decision node's legal actions."""
  legal = tree.legal[player].astype(tree.dtype)
  uniform = legal / jnp.maximum(legal.sum(1, keepdims=True), 1)
  return jnp.broadcast_to(uniform[:, :, None], legal.shape + (tree.num_hands,))


def uniform_profile(tree: PublicTreeTensors) -> tuple:
  """([N_0, A, H], [N_1, A, H]) uniform strategies."""
  return uniform_strategy(tree, 0), uniform_strategy(tree, 1)


def _rows(strategy: jax.Array, constants: tuple, index: jax.Array) -> jax.Array:
  """[*index.shape, H, *B] row ``index`` of the strategy's (node, slot) rows followed by
  rows of ``constants`` (``index`` ``N_p A + k``: ``constants[k]`` everywhere), gathered and
  selected in one pass: the table of both is never built (a copy of the strategy per pass)."""
  rows = strategy.reshape((-1,) + strategy.shape[2:])
  count, ndim = rows.shape[0], index.ndim + rows.ndim - 1
  constant = jnp.asarray(constants[0], rows.dtype)
  for k, value in enumerate(constants[1:], 1):
    constant = jnp.where(index == count + k, jnp.asarray(value, rows.dtype), constant)
  constant = _expand(constant, ndim)
  if count == 0:
    return jnp.broadcast_to(constant, index.shape + rows.shape[1:])
  return jnp.where(_expand(index < count, ndim), rows[jnp.minimum(index, count - 1)], constant)


def _select_rows(table: jax.Array, index: jax.Array, ndim: int) -> jax.Array:
  """[n, ...] rows ``index`` [n] of ``table`` [R, ...], zero where ``index`` is not in ``[0, R)``."""
  inside = (index >= 0) & (index < table.shape[0])
  if table.shape[0] == 0:
    return jnp.zeros(index.shape + table.shape[1:], table.dtype)
  return jnp.where(_expand(inside, ndim), table[jnp.clip(index, 0, table.shape[0] - 1)], 0)


def ranges(tree: PublicTreeTensors, player: int, strategy: jax.Array, initial: jax.Array | None = None) -> jax.Array:
  """[N, H, *B] the reach of each of ``player``'s hands at every node, top-down:
  ``r(child) = r(parent) sigma(parent, slot, h) valid(child's board, h)`` (no sigma at
  the opponent's and chance nodes).

  Args:
    strategy: [N_p, A, H, *B] the player's strategy.
    initial: [H, *B] the ranges at the root (default: the deal, ``tree.initial_range``).
  """
  batch = strategy.shape[3:]
  ndim = 2 + len(batch)
  initial = tree.initial_range[player] if initial is None else initial
  root = _expand(initial, ndim - 1) * _expand(tree.valid[tree.board[0]], ndim - 1)
  levels = [jnp.broadcast_to(root, (tree.num_hands,) + batch)[None].astype(strategy.dtype)]
  for d, (lo, hi) in enumerate(tree.level_slices[1:], 1):
    reach = levels[-1][tree.level_parent[d - 1]] * _rows(strategy, (1,), tree.reach_index[player][d - 1])
    if tree.level_dealt[d]:
      reach = reach * _expand(tree.valid[tree.board[lo:hi]], ndim)
    levels.append(reach)
  return jnp.concatenate(levels)


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


def normalise_ranges(tree: PublicTreeTensors, ranges: jax.Array) -> tuple:
  """([2, H, *B], [2, *B]) ``ranges`` [2, H, *B] (each player's weight of each hand at the
  root) normalised as the builder normalises a subgame's given ranges, and the factors
  that undo it: zero on the hands the root board blocks, player 0's summing to one,
  player 1's so that ``r0(h0) r1(h1)`` sums to one over the pairs of hands that share no
  card; ``normalised * scale = weights``. A player's counterfactual values scale with the
  opponent's factor. Where a factor is zero (no weight, or no compatible pair) the
  normalised ranges are zero and the factor is reported as zero."""
  weights = ranges * _expand(tree.valid[tree.board[0]], ranges.ndim - 1).astype(ranges.dtype)
  total = weights[0].sum(0)  # [*B]
  first = weights[0] / jnp.where(total > 0, total, 1)
  joint = (first * compatible_reach(tree, weights[1][None])[0]).sum(0)  # [*B]
  scale = jnp.stack([total, jnp.where(total > 0, joint, 0)])
  safe = jnp.where(scale > 0, scale, 1)
  normalised = jnp.stack([first, weights[1] / safe[1]]) * (scale > 0)[:, None]
  return normalised, scale


def with_initial_ranges(tree: PublicTreeTensors, ranges) -> PublicTreeTensors:
  """``tree`` with other ranges at the root: ``ranges`` [2, H, *B], each player's weight of
  each hand, with trailing batch axes ``B`` for a batch of subgames that differ only in the
  ranges (the solvers then run them as one program, a state's batch axes including ``B``).
  Normalised as the builder normalises a subgame's given ranges (``normalise_ranges``).

  Raises:
    ValueError: (concrete ``ranges`` only) a wrong shape, a negative weight, or a subgame
      whose ranges have no pair of compatible hands.
  """
  ranges = jnp.asarray(ranges, tree.dtype)
  if ranges.ndim < 2 or ranges.shape[:2] != (2, tree.num_hands):
    raise ValueError(
      f"ranges must be [2, {tree.num_hands}, *B] (both players' weights of each hand), got {ranges.shape}"
    )
  normalised, scale = normalise_ranges(tree, ranges)
  if not isinstance(ranges, jax.core.Tracer):
    if bool(jnp.any(ranges < 0)):
      raise ValueError("ranges must be >= 0")
    if not bool(jnp.all(scale > 0)):
      bad = np.argwhere(~np.asarray(jnp.all(scale > 0, 0)).reshape(-1))[0, 0]
      raise ValueError(
        f"subgame {bad} of the batch: the ranges have no pair of hands that share no card with each other and the board"
      )
  return dataclasses.replace(tree, initial_range=normalised)


def fold_values(tree: PublicTreeTensors, player: int, opponent_reach: jax.Array, *, dense: bool = False) -> jax.Array:
  """[F, H, *B] ``player``'s values at the folds: its payoff (minus its chips if it
  folded, the opponent's chips if the opponent did) times the opponent's reach over the
  hands compatible with each hand, zero for hands the board blocks.

  Args:
    opponent_reach: [F, H, *B] the opponent's ranges at ``tree.fold_nodes``.
  """
  if dense:
    compatible = _compatible(tree).astype(opponent_reach.dtype)
    reach = jnp.einsum("hg,fg...->fh...", compatible, opponent_reach, precision=EXACT)
  else:
    reach = compatible_reach(tree, opponent_reach)
  ndim = reach.ndim
  mask = tree.valid[tree.board[tree.fold_nodes]]
  return _expand(tree.fold_payoff[player], ndim) * reach * _expand(mask, ndim)


def fold_values_dense(tree: PublicTreeTensors, player: int, opponent_reach: jax.Array) -> jax.Array:
  """``fold_values`` by a dense [H, H] compatibility product (small ``H``)."""
  return fold_values(tree, player, opponent_reach, dense=True)


def _compatible(tree: PublicTreeTensors) -> jax.Array:
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


def _by_board(tree: PublicTreeTensors, reach: jax.Array) -> tuple:
  """``_weaker_stronger`` at every showdown ([S, H, *B] each), board by board
  (``lax.map`` over ``showdown_groups``): each board's sorted tables are gathered once for
  all its showdowns, and the working set is one step's (docs/design.md, "Cost"). A step
  takes ``_boards_per_step`` boards side by side (a ``vmap``; the boards padded to a
  multiple of it with empty ones). The boards' reach is laid out hands first ([Bs, H, G, *B],
  ``_weaker_stronger``)."""
  groups = tree.showdown_groups  # its padding, row S, reads zeros
  padded = _select_rows(reach, groups, groups.ndim + reach.ndim - 1)  # [Bs, G, H, *B]
  padded = jnp.swapaxes(padded, 1, 2)  # [Bs, H, G, *B]
  count, width = padded.shape[0], _boards_per_step(tree, padded)
  if width == 1:
    step, boards = lambda x: _weaker_stronger(tree, *x), jnp.arange(count)
  else:
    steps = -(-count // width)
    boards = jnp.minimum(jnp.arange(steps * width), count - 1).reshape(steps, width)
    padded = jnp.concatenate([padded, jnp.zeros((steps * width - count,) + padded.shape[1:], padded.dtype)])
    padded = padded.reshape((steps, width) + padded.shape[1:])
    step = lambda x: jax.vmap(lambda board, r: _weaker_stronger(tree, board, r))(*x)
  weaker, stronger = jax.lax.map(step, (boards, padded))
  hands = reach.shape[1]

  def flat(x):  # [Bs', H, G, *B] -> [S, H, *B]
    x = jnp.swapaxes(x.reshape((-1, hands) + x.shape[-(reach.ndim - 1) :]), 1, 2)
    return x.reshape((-1,) + reach.shape[1:])[tree.showdown_slot]

  return flat(weaker), flat(stronger)


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
  if dense:
    strength = tree.strength[table]  # [S, H]
    compatible = _compatible(tree)[None] & (strength[:, :, None] >= 0) & (strength[:, None, :] >= 0)
    beats = (compatible & (strength[:, :, None] > strength[:, None, :])).astype(opponent_reach.dtype)
    weaker = jnp.einsum("shg,sg...->sh...", beats, opponent_reach, precision=EXACT)
    stronger = jnp.einsum("sgh,sg...->sh...", beats, opponent_reach, precision=EXACT)
    total = jnp.einsum("shg,sg...->sh...", compatible.astype(opponent_reach.dtype), opponent_reach, precision=EXACT)
  else:
    weaker, stronger = _by_board(tree, opponent_reach)
    # a split pot's term needs the compatible total only where the chips differ (never in
    # poker, where a showdown follows a call or two all-ins of equal stacks)
    total = jax.lax.cond(
      jnp.any(tree.showdown_chips[:, 0] != tree.showdown_chips[:, 1]),
      lambda: compatible_reach(tree, opponent_reach),
      lambda: weaker + stronger,
    )
  ndim = weaker.ndim
  own, other = (_expand(tree.showdown_chips[:, p], ndim) for p in (player, 1 - player))
  values = other * weaker - own * stronger + (other - own) / 2 * (total - weaker - stronger)
  return values * _expand(tree.valid[tree.board[tree.showdown_nodes]], ndim)


def showdown_values_dense(tree: PublicTreeTensors, player: int, opponent_reach: jax.Array) -> jax.Array:
  """``showdown_values`` by dense [H, H] products (small ``H``)."""
  return showdown_values(tree, player, opponent_reach, dense=True)


def payoff_values(tree: PublicTreeTensors, player: int, opponent_reach: jax.Array) -> jax.Array:
  """[P, H, *B] ``player``'s values at the payoff terminals: ``sum_h' u(h, h') r(h')`` with
  the terminal's payoff matrix ``u`` (player 0's ``payoff_tables`` row, its transpose negated
  for player 1), zero for hands the board blocks.

  Args:
    opponent_reach: [P, H, *B] the opponent's ranges at ``tree.payoff_nodes``.
  """
  tables = tree.payoff_tables.astype(opponent_reach.dtype)
  if player == 1:
    tables = -jnp.swapaxes(tables, 1, 2)
  values = jnp.einsum("phg,pg...->ph...", tables[tree.payoff_table], opponent_reach, precision=EXACT)
  return values * _expand(tree.valid[tree.board[tree.payoff_nodes]], values.ndim)


def terminal_values(
  tree: PublicTreeTensors, player: int, opponent_ranges: jax.Array, *, dense: bool = False, leaf_values=None
) -> jax.Array:
  """[T + L, H, *B] ``player``'s values at the folds, the showdowns, the payoff terminals
  and the leaves, given the opponent's ranges [N, H, *B] at every node.

  Args:
    leaf_values: [L, H, *B] the player's counterfactual values at the leaves of a
      depth-limited tree (a value function's, given both players' ranges there), masked
      here by the leaves' boards; required if and only if the tree has leaves.

  Raises:
    ValueError: ``leaf_values`` missing for a depth-limited tree, or given for a whole one.
  """
  folds = fold_values(tree, player, opponent_ranges[tree.fold_nodes], dense=dense)
  showdowns = showdown_values(tree, player, opponent_ranges[tree.showdown_nodes], dense=dense)
  payoffs = payoff_values(tree, player, opponent_ranges[tree.payoff_nodes])
  leaves = tree.leaf_nodes.shape[0]
  if (leaf_values is None) != (leaves == 0):
    raise ValueError(
      f"the tree has {leaves} depth-limit leaves: pass leaf_values [{leaves}, H, *B] for them"
      if leaves
      else "leaf_values given, but the tree has no depth-limit leaves"
    )
  if not leaves:
    return jnp.concatenate([folds, showdowns, payoffs])
  leaf_values = jnp.broadcast_to(leaf_values, (leaves,) + folds.shape[1:]).astype(folds.dtype)
  mask = _expand(tree.valid[tree.board[tree.leaf_nodes]], folds.ndim)
  return jnp.concatenate([folds, showdowns, payoffs, leaf_values * mask])


def counterfactual_values(
  tree: PublicTreeTensors,
  player: int,
  strategy: jax.Array | None,
  opponent_ranges: jax.Array,
  *,
  dense: bool = False,
  leaf_values: jax.Array | None = None,
) -> jax.Array:
  """[N, H, *B] ``player``'s counterfactual values at every node, bottom-up: terminal
  values at the terminals, ``leaf_values`` [L, H, *B] at a depth-limited tree's leaves; ``sum_a sigma(a, h) v(child_a, h)`` at the player's decision
  nodes (the best action's value, ``max_a``, if ``strategy`` is None: a best response);
  the sum of the children at the opponent's (its strategy is in its ranges); and
  ``sum_c p(c) v(child_c, h)`` at chance nodes.

  Args:
    strategy: [N_p, A, H, *B] the player's strategy, or None for a best response.
    opponent_ranges: [N, H, *B] the opponent's ranges (``ranges``).
  """
  terminal = terminal_values(tree, player, opponent_ranges, dense=dense, leaf_values=leaf_values)
  ndim = terminal.ndim
  rows = lambda table, index: _select_rows(table, index, ndim)  # row T + L, no terminal, reads 0
  below, levels = None, []
  for d in reversed(range(len(tree.level_slices))):
    lo, hi = tree.level_slices[d]
    values = rows(terminal, tree.terminal_row[lo:hi])
    if below is not None:
      kids = below[tree.decision_children[d]]  # [nD, A, H, *B]
      if strategy is None:
        legal = _expand(tree.decision_legal[d], ndim + 1)
        best = regret.unrolled_reduce(jnp.where(legal, kids, -jnp.inf), 1, jnp.maximum, jnp.max)
        summed = regret.unrolled_reduce(jnp.where(legal, kids, 0), 1, jnp.add, jnp.sum)
        decided = jnp.where(_expand(tree.decision_own[player][d], ndim), best, summed)
      else:
        weight = _rows(strategy, (0, 1), tree.decision_weight[player][d])  # [nD, A, H, *B]
        decided = regret.unrolled_reduce(weight * kids, 1, jnp.add, jnp.sum)
      dealt = below[tree.chance_children[d]]  # [nC, C, H, *B]
      dealt = regret.unrolled_reduce(_expand(tree.chance_weight[d], ndim + 1) * dealt, 1, jnp.add, jnp.sum)
      values = values + jnp.concatenate([decided, dealt, jnp.zeros_like(values[:1])])[tree.level_gather[d]]
    levels.append(values)
    below = values
  return jnp.concatenate(levels[::-1])


def action_values(tree: PublicTreeTensors, player: int, values: jax.Array) -> jax.Array:
  """[N_p, A, H, *B] the values of each action at ``player``'s decision nodes (0 at
  illegal slots), from the node values [N, H, *B]."""
  q = values[tree.children[player]]
  return jnp.where(_expand(tree.legal[player], q.ndim), q, 0)


def root_value(tree: PublicTreeTensors, player: int, values: jax.Array, initial: jax.Array | None = None) -> jax.Array:
  """[*B] ``sum_h r_i(root, h) v_i(root, h)``: the player's expected payoff when ``values``
  [N, H, *B] are its counterfactual values (its best-response value if they are a best
  response's)."""
  initial = tree.initial_range[player] if initial is None else initial
  valid = _expand(tree.valid[tree.board[0]], initial.ndim)
  root = values[0] * _expand(initial * valid, values.ndim - 1)
  return root.sum(0)


def _leaf(leaf_values, player: int):
  return None if leaf_values is None else leaf_values[player]


def expected_value(tree: PublicTreeTensors, profile, *, dense: bool = False, leaf_values=None) -> jax.Array:
  """[*B] player 0's expected payoff under ``profile`` (``leaf_values``: [2, L, H, *B] both
  players' values at a depth-limited tree's leaves)."""
  values = counterfactual_values(
    tree, 0, profile[0], ranges(tree, 1, profile[1]), dense=dense, leaf_values=_leaf(leaf_values, 0)
  )
  return root_value(tree, 0, values)


def best_response_values(tree: PublicTreeTensors, profile, *, dense: bool = False, leaf_values=None) -> jax.Array:
  """[2, *B] each player's best-response value against the other's strategy in ``profile``
  (``jaxcfr.best_response_values`` on the sequence form of the same game). On a
  depth-limited tree the best response stops at the leaves, whose values ``leaf_values``
  [2, L, H, *B] are given."""
  out = []
  for player in (0, 1):
    opponent = ranges(tree, 1 - player, profile[1 - player])
    values = counterfactual_values(tree, player, None, opponent, dense=dense, leaf_values=_leaf(leaf_values, player))
    out.append(root_value(tree, player, values))
  return jnp.stack(out)


def nash_conv(tree: PublicTreeTensors, profile, *, dense: bool = False, leaf_values=None) -> jax.Array:
  """[*B] ``BR0(sigma1) + BR1(sigma0)`` (the game is zero-sum)."""
  return best_response_values(tree, profile, dense=dense, leaf_values=leaf_values).sum(0)


def exploitability(tree: PublicTreeTensors, profile, *, dense: bool = False, leaf_values=None) -> jax.Array:
  """[*B] ``nash_conv / 2``, OpenSpiel's ``exploitability``."""
  return nash_conv(tree, profile, dense=dense, leaf_values=leaf_values) / 2
