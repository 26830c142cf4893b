"""External and chance sampling as frontier walks whose cost follows the sample, not the tree.

One traversal for the updating player ``i`` (Lanctot et al. 2009 eq. 11 for external sampling;
chance-sampled CFR for chance sampling) in two passes over the tree arrays:

Forward, one depth level at a time. The frontier of depth ``d`` is a [C_d] array of
histories (``C_d`` static, see below) with a validity mask; its first ``n_d`` slots hold the
histories consistent with the sample so far, in a stable (breadth-first) order. Each
frontier history is expanded into its children

  * at a node of an expanded player (``i``; for chance sampling both players): every child;
  * at a node of the opponent (external sampling): one child drawn from ``sigma_-i`` at
    that node, regret-matched on the gathered row of cumulative regrets. One draw per
    visited history, as OpenSpiel's ``ExternalSamplingMCCFRSolver`` does; Lanctot et al. 2009 draws
    one action per opponent infoset (a pure strategy ``tau``). Both are unbiased, since
    each history reached gets an action with its exact distribution, independent of the
    draws above it (eq. 11's ``q(z) = pi_-i(z) pi_c(z)`` holds per terminal); per visited
    node is the one that costs O(visited) (a ``tau`` needs a draw at every infoset, or a
    hash of the infoset to a shared draw), and it makes the capacity below exact;
  * at a chance node: one outcome drawn from ``chance_prob`` of its children (one
    uniform per visited node);
  * terminals have no children.

The candidate children form a [C_d, W] array (``W`` = the expanded players' most actions);
its valid entries are compacted into the [C_{d+1}] frontier with an exclusive prefix sum and
one scatter, so the order stays stable and each candidate remembers its slot there.

Backward, deepest level first, with gathers only: a frontier history's value is
``u_i(z)`` at a terminal, ``sum_a sigma(a) v(ha)`` at an expanded node (chance sampling
weighs the opponent's actions by ``sigma_-i``) and its sampled child's value elsewhere.
At each history ``h`` of player ``i`` the row ``w(h) (v(ha) - v(h))`` (legal ``a``) is the
sampled regret, with ``w = 1`` for external sampling (``q(z)`` cancels ``pi_-i pi_c``)
and ``w = pi_-i(h)`` (the opponent's reach, carried forward) for chance sampling; the rows
of all levels are scatter-added into the [I, A] regret table at once. They sum, over the
sampled histories of an infoset, to ``q~(I, a) - v~(I)``.

Capacities. With chance and opponent choices fixed, two histories at one depth that the
walk reaches first differ at a node of an expanded player, so perfect recall gives them
different sequences of that player: the frontier never holds more than the distinct
``seq_i`` (or ``(seq_0, seq_1)`` for chance sampling) at that depth. ``C_d`` is the exact
worst case, which is smaller: ``TreeStatics.frontier_capacity`` computes, bottom-up on
the host, the most depth-``d`` histories any choice of sampled children reaches (sums at
expanded nodes, maxima elsewhere). It is a static per-game, per-player quantity, cached
with the tree; for Leduc poker it is (1, 1, 1, 2, 2, 5, 4, 5, 10, 12, 7, 1) for player 0
(51 slots over 12 levels, against 9457 histories). ``Traversal.overflow`` reports a
frontier that would exceed its capacity (impossible by the argument above; the tests
check it).

Cost: O(sum_d C_d * W) per traversal, plus the gathers of the visited rows.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxcfr.base import regret
from jaxcfr.kits.sequence_form import sampling
from jaxcfr.kits.sequence_form.arrays import CHANCE_NODE, TERMINAL_NODE
from jaxcfr.kits.sequence_form.tensors import GameTensors, tree_statics

__all__ = ["Traversal", "uniforms_needed", "traverse"]


class Traversal(NamedTuple):
  """The rows one traversal produces, before they are scattered into [I, A] tables.

  ``R`` = frontier slots at levels with nodes of the updating player, ``R'`` = slots at
  levels with opponent nodes; rows of other slots have index ``I`` (``I_opp``), which a
  scatter with ``mode="drop"`` ignores.

  Attributes:
    index: [R] int32, the updating player's infoset of each row.
    regret: [R, A] sampled regrets ``w(h) (v(ha) - v(h))`` (0 at illegal actions).
    values: [R, A] sampled counterfactual action values ``w(h) v(ha)``.
    opponent_index: [R'] int32, the opponent's infoset of each visited opponent history.
    opponent_sigma: [R', A_opp] the opponent's sigma at that history.
    nodes_touched: [] int32, histories on the frontiers (consistent with the sample).
    frontier_sizes: [D] int32, histories consistent with the sample at each depth.
    overflow: [] bool, some frontier exceeded its capacity (never, see the module doc).
  """

  index: jax.Array
  regret: jax.Array
  values: jax.Array
  opponent_index: jax.Array
  opponent_sigma: jax.Array
  nodes_touched: jax.Array
  frontier_sizes: jax.Array
  overflow: jax.Array


# Below this size a compaction is one fused broadcast-and-reduce (quadratic work, but one
# kernel); above it, a scatter. On a CPU a scatter of a few dozen entries costs about half
# a microsecond, several times a fused elementwise kernel, and a traversal has a few of
# them per depth level.
_SMALL_COMPACTION = 1 << 14


def _compact(live: jax.Array, values, capacity: int):
  """Stable compaction of the entries of ``values`` (each [n]) where ``live`` [n] into
  [capacity] arrays (zeros past the live count; live entries past ``capacity`` are lost).

  Returns:
    (compacted values, rank [n] int32: each entry's slot, live count [] int32).
  """
  n = live.shape[0]
  rank = sampling.prefix_sum(live.astype(jnp.int32), exclusive=True)
  if n * capacity <= _SMALL_COMPACTION:
    select = live[None, :] & (rank[None, :] == jnp.arange(capacity)[:, None])  # [capacity, n]
    out = [jnp.where(select, v[None, :], 0).sum(-1).astype(v.dtype) for v in values]
  else:
    target = jnp.where(live, rank, capacity)
    out = [jnp.zeros((capacity,), v.dtype).at[target].set(v, mode="drop") for v in values]
  return out, rank, live.sum().astype(jnp.int32)


def uniforms_needed(tensors: GameTensors, *, player: int, sample_opponent: bool) -> int:
  """How many uniforms ``traverse`` draws (one per frontier slot at depths with sampled nodes)."""
  statics = tree_statics(tensors.tree)
  capacity = statics.frontier_capacity((player,) if sample_opponent else (0, 1))
  sampled = (CHANCE_NODE, 1 - player) if sample_opponent else (CHANCE_NODE,)
  return sum(c for d, c in enumerate(capacity[:-1]) if any(k in statics.level_kinds[d] for k in sampled))


def _pad(x: jax.Array, width: int) -> jax.Array:
  return jnp.pad(x, ((0, 0), (0, width - x.shape[1]))) if x.shape[1] < width else x[:, :width]


class _Level(NamedTuple):
  valid: jax.Array  # [C] bool
  kind: jax.Array  # [C] int (TERMINAL_NODE at invalid slots)
  infoset: jax.Array  # [C]
  count: jax.Array  # [C] legal actions / children
  utility: jax.Array  # [C] u_i at terminals
  sigma: jax.Array | None  # [C, W] sigma of the expanded player acting there
  slot: jax.Array | None  # [C, W] int32, each candidate child's slot in the next frontier
  live: jax.Array | None  # [C, W] bool, candidate is a child on the next frontier
  expanded: jax.Array | None  # [C] bool
  reach: jax.Array  # [C] opponent reach pi_-i(h) (chance sampling; else 1)
  own_sigma: jax.Array | None  # [C, A_i] the updating player's sigma (levels with its nodes)
  opponent_sigma: jax.Array | None  # [C, A_opp] (levels with opponent nodes)


def traverse(
  tensors: GameTensors,
  tables,
  key: jax.Array | None,
  *,
  player: int,
  sample_opponent: bool,
  matched: bool,
  uniforms: jax.Array | None = None,
) -> Traversal:
  """One traversal for ``player`` (see the module doc).

  Args:
    tables: ([I0, A0], [I1, A1]) the players' strategies, or their cumulative regrets when
      ``matched`` (regret matching is then done per gathered row).
    key: a raw [2] uint32 PRNG key (or None with ``uniforms``).
    uniforms: [uniforms_needed(...)] the traversal's uniforms, instead of ``key``.
    sample_opponent: external sampling (True: one opponent action per visited history) or
      chance sampling (False: the opponent's actions are expanded and weighted).
  """
  tree = tensors.tree
  statics = tree_statics(tree)
  cdf = sampling.sibling_cdf(tree)
  opponent = 1 - player
  expanded_players = (player,) if sample_opponent else (0, 1)
  capacity = statics.frontier_capacity(expanded_players)
  depths = len(capacity)
  num_infosets, own_width = tensors.players[player].legal.shape
  num_opp, opp_width = tensors.players[opponent].legal.shape
  width = max(tensors.players[p].max_actions for p in expanded_players)
  dtype = tensors.dtype
  sign = 1.0 if player == 0 else -1.0
  needed = uniforms_needed(tensors, player=player, sample_opponent=sample_opponent)
  if uniforms is None:
    uniforms = jax.random.uniform(jax.random.wrap_key_data(key), (needed,), dtype)
  used = 0

  def rows(p, infoset, count):
    table = tables[p]
    row = table[jnp.clip(infoset, 0, table.shape[0] - 1)]
    return regret.regret_matching(row, regret.legal_from_count(count, row.shape[-1]), axis=-1) if matched else row

  nodes = jnp.zeros((1,), jnp.int32)
  valid = jnp.ones((1,), bool)
  reach = jnp.ones((1,), dtype)
  levels, sizes = [], [jnp.ones((), jnp.int32)]
  overflow = jnp.zeros((), bool)
  for d in range(depths):
    kinds = statics.level_kinds[d]
    kind = jnp.where(valid, tree.kind[nodes].astype(jnp.int32), TERMINAL_NODE)
    infoset = tree.infoset[nodes]
    count = tree.num_children[nodes]
    utility = tree.utility[nodes] * sign if TERMINAL_NODE in kinds else jnp.zeros(nodes.shape, dtype)
    own_sigma = rows(player, infoset, count) if player in kinds else None
    opp_sigma = rows(opponent, infoset, count) if opponent in kinds else None
    if d == depths - 1 or kinds == (TERMINAL_NODE,):
      levels.append(_Level(valid, kind, infoset, count, utility, None, None, None, None, reach, own_sigma, opp_sigma))
      break
    first = tree.first_child[nodes]
    expanded = jnp.zeros(nodes.shape, bool)
    sigma = jnp.zeros(nodes.shape + (width,), dtype)
    choice = jnp.zeros(nodes.shape, jnp.int32)
    chance_width = statics.level_chance_width[d]
    if chance_width or (sample_opponent and opponent in kinds):
      u = uniforms[used : used + capacity[d]]
      used += capacity[d]
    for p, rows_p in ((player, own_sigma), (opponent, opp_sigma)):
      if rows_p is None:
        continue
      if p in expanded_players:
        expanded = expanded | (kind == p)
        sigma = jnp.where((kind == p)[:, None], _pad(rows_p, width), sigma)
      else:
        choice = jnp.where(kind == p, sampling.inverse_cdf(rows_p, u, count), choice)
    if chance_width:
      drawn = sampling.chance_outcome(tree.chance_prob, first, count, u, chance_width, cdf)
      choice = jnp.where(kind == CHANCE_NODE, drawn, choice)
    sampled = (kind != TERMINAL_NODE) & ~expanded
    j = jnp.arange(width)
    live = (expanded[:, None] & (j < count[:, None])) | (sampled[:, None] & (j == 0))
    child = first[:, None] + jnp.where(expanded[:, None], j, choice[:, None])
    next_capacity = capacity[d + 1]
    carried = [child.reshape(-1)]
    if not sample_opponent:  # chance sampling: carry the opponent's reach pi_-i(h)
      edge = jnp.where((kind == opponent)[:, None], sigma, 1.0) if opponent in kinds else 1.0
      carried.append(jnp.broadcast_to(edge * reach[:, None], live.shape).reshape(-1))
    carried, position, total = _compact(live.reshape(-1), carried, next_capacity)
    position = position.reshape(live.shape)
    overflow = overflow | (total > next_capacity)
    next_nodes = carried[0]
    next_reach = carried[1] if not sample_opponent else jnp.ones((next_capacity,), dtype)
    levels.append(
      _Level(
        valid,
        kind,
        infoset,
        count,
        utility,
        sigma,
        jnp.minimum(position, next_capacity - 1),
        live,
        expanded,
        reach,
        own_sigma,
        opp_sigma,
      )
    )
    sizes.append(total)
    nodes, valid, reach = next_nodes, jnp.arange(next_capacity) < total, next_reach

  own_index, own_regret, own_values, opp_index, opp_rows = [], [], [], [], []
  value = None
  for d in reversed(range(len(levels))):
    level = levels[d]
    kinds = statics.level_kinds[d]
    if level.slot is None:
      v = level.utility
    else:
      below = jnp.where(level.live, value[level.slot], 0)
      v = jnp.where(
        level.expanded,
        (level.sigma * below).sum(-1),
        jnp.where(level.kind == TERMINAL_NODE, level.utility, below[:, 0]),
      )
    v = jnp.where(level.valid, v, 0)
    if player in kinds and level.slot is not None:
      legal = jnp.arange(own_width) < level.count[:, None]
      q = _pad(below, own_width)
      weight = level.reach[:, None]
      own_index.append(jnp.where(level.kind == player, level.infoset, num_infosets))
      own_regret.append(jnp.where(legal, weight * (q - v[:, None]), 0))
      own_values.append(jnp.where(legal, weight * q, 0))
    if opponent in kinds and level.opponent_sigma is not None:
      opp_index.append(jnp.where(level.kind == opponent, level.infoset, num_opp))
      opp_rows.append(level.opponent_sigma)
    value = v

  def cat(parts, shape):
    return jnp.concatenate(parts) if parts else jnp.zeros(shape, dtype)

  return Traversal(
    index=cat(own_index, (0,)).astype(jnp.int32),
    regret=cat(own_regret, (0, own_width)),
    values=cat(own_values, (0, own_width)),
    opponent_index=cat(opp_index, (0,)).astype(jnp.int32),
    opponent_sigma=cat(opp_rows, (0, opp_width)),
    nodes_touched=sum(sizes).astype(jnp.int32),
    frontier_sizes=jnp.stack(sizes + [jnp.zeros((), jnp.int32)] * (depths - len(sizes))),
    overflow=overflow,
  )
