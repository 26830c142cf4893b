"""The public tree on the device: ``PublicTreeTensors``, the pytree the public tree's solvers
and operations take, made from the host tree by ``to_device``."""

from __future__ import annotations

import dataclasses

import jax
import numpy as np

from jaxcfr.games.poker_rules import CHANCE, DECISION, FOLD, LEAF, PAYOFF, SHOWDOWN
from jaxcfr.kits.public_tree.tree import PublicTree

__all__ = ["PublicTreeTensors", "to_device"]


def _pytree(*, meta: tuple = ()):
  """Registers a frozen dataclass as a pytree whose fields in ``meta`` are static."""

  def wrap(cls):
    cls = dataclasses.dataclass(frozen=True)(cls)
    data = [f.name for f in dataclasses.fields(cls) if f.name not in meta]
    return jax.tree_util.register_dataclass(cls, data_fields=data, meta_fields=list(meta))

  return wrap


@_pytree(meta=("level_slices", "level_dealt", "showdown_step_bytes"))
class PublicTreeTensors:
  """The public tree on the device (see PublicTree for the sizes). ``N_p`` decision nodes
  of player ``p``; level ``d`` holds the nodes of depth ``d``, ``level_slices[d]``, ``n_d``
  of them with at most ``C_d`` children each (in level ``d + 1``); ``T = F + S + P``
  terminals, the ``F`` folds, the ``S`` showdowns, then the ``P`` payoff terminals. Per player, a strategy
  ``[N_p, A, H, *B]`` is read through flat tables: its ``N_p A`` rows (node, slot) followed
  by constant rows, so that each level's factors are one gather.

  Attributes:
    kind, player: [N] int8 (PublicTree's); board: [N] int32, the node's row of ``valid``.
    valid: [Bd, H] bool, the hands that the board's cards leave possible.
    decision_nodes: per player, [N_p] int32; legal, children: per player, [N_p, A] bool
      and int32 (child node ids, 0 where illegal).
    level_parent: per level ``d >= 1``, [n_d] int32, the parent counted from level ``d - 1``'s first node.
    reach_index: per player, per level ``d >= 1``, [n_d] int32, the row of the factor the
      player's reach gains on the incoming edge: its strategy's (parent, slot) row if the
      parent is the player's decision, else ``N_p A`` (a row of ones).
    Bottom-up, each level ``d < D - 1`` gathers its decision nodes' children and its
    chance nodes' children apart (``nD_d`` decision nodes with at most ``A_d`` children,
    ``nC_d`` chance nodes with at most ``C_d``), so that a chance node's many deals do not
    pad the decision nodes beside it:
    decision_children: per level, [nD_d, A_d] int32, children counted from level ``d + 1``'s
      first node (0 at padding); decision_legal: per level, [nD_d, A_d] bool, not padding.
    decision_weight: per player, per level, [nD_d, A_d] int32, the row of each child's weight:
      the strategy's (node, slot) row at the player's own decisions, else ``N_p A + 1`` (a
      row of ones) or ``N_p A`` (zeros, at padding).
    decision_own: per player, per level, [nD_d] bool, the player's own decision nodes.
    chance_children: per level, [nC_d, C_d] int32; chance_weight: per level, [nC_d, C_d]
      float, each deal's probability (0 at padding).
    level_gather: per level, [n_d] int32, each node's row in the decision values, then the
      chance values, then one row of zeros (the terminals').
    terminal_row: [N] int32, each terminal's row among the ``T + L`` terminals and leaves
      (the folds, the showdowns, the payoff terminals, then the leaves), ``T + L`` elsewhere.
    fold_nodes: [F] int32; fold_payoff: [2, F] float, each player's payoff at each fold
      (minus its chips if it folded, else the folder's chips).
    showdown_nodes: [S] int32; showdown_table: [S] int32, its board's row of ``strength``,
      ``order`` and the other sorted tables; showdown_chips: [S, 2] float, the contributions.
    showdown_groups: [Bs, G] int32, the showdowns on each showdown board (rows of
      ``showdown_nodes``; ``G`` the most on one board, padded with ``S``), so that a board's
      sorted tables are read once for all its showdowns; showdown_slot: [S] int32, each
      showdown's position in ``showdown_groups`` flattened.
    payoff_nodes: [P] int32; payoff_table: [P] int32, each one's row of ``payoff_tables``
      [K, H, H] float (player 0's payoff per pair of hands; PublicTree's).
    hands: [H, k] int32; members, subsets, strength, order, lo, hi, sub_order, sub_lo,
      sub_hi: PublicTree's card-removal and showdown tables.
    leaf_nodes: [L] int32, the leaves of a depth-limited tree (poker_rules.Subgame; none
      otherwise); leaf_chips: [L, 2] float, the contributions there.
    boards: [Bd, max board] int32, each board's cards (-1 padding).
    initial_range: [2, H] float.
    level_slices: static ((lo, hi), ...) node ranges by depth.
    level_dealt: static, per level, whether any of its nodes follows a deal (its ranges
      are masked by ``valid`` there).
    showdown_step_bytes: static, the working set of one step of the loop over the showdown
      boards (jaxcfr.kits.public_tree.values's ``_by_board``): 0, one board a step (a CPU: the
      working set stays in cache); else as many boards a step as fit it (an accelerator:
      fewer, wider steps, since each step of a loop costs kernel launches).
  """

  kind: jax.Array
  player: jax.Array
  board: jax.Array
  valid: jax.Array
  decision_nodes: tuple
  legal: tuple
  children: tuple
  level_parent: tuple
  reach_index: tuple
  decision_children: tuple
  decision_legal: tuple
  decision_weight: tuple
  decision_own: tuple
  chance_children: tuple
  chance_weight: tuple
  level_gather: tuple
  terminal_row: jax.Array
  fold_nodes: jax.Array
  fold_payoff: jax.Array
  showdown_nodes: jax.Array
  showdown_table: jax.Array
  showdown_chips: jax.Array
  showdown_groups: jax.Array
  showdown_slot: jax.Array
  payoff_nodes: jax.Array
  payoff_table: jax.Array
  payoff_tables: jax.Array
  hands: jax.Array
  members: tuple
  subsets: tuple
  strength: jax.Array
  order: jax.Array
  lo: jax.Array
  hi: jax.Array
  sub_order: tuple
  sub_lo: tuple
  sub_hi: tuple
  leaf_nodes: jax.Array
  leaf_chips: jax.Array
  boards: jax.Array
  initial_range: jax.Array
  level_slices: tuple
  level_dealt: tuple
  showdown_step_bytes: int = 0

  @property
  def dtype(self):
    return self.initial_range.dtype

  @property
  def num_hands(self) -> int:
    return self.hands.shape[0]

  @property
  def max_actions(self) -> int:
    return self.legal[0].shape[1]


def _groups(label: np.ndarray, count: int) -> tuple:
  """([count, G], [len(label)]) the positions of each label's members (padded with
  ``len(label)``), and each member's position in the flattened groups."""
  sizes = np.bincount(label, minlength=count)
  width = max(int(sizes.max(initial=0)), 1)
  groups = np.full((count, width), len(label), np.int64)
  slot = np.zeros(len(label), np.int64)
  for g in range(count):
    members = np.flatnonzero(label == g)
    groups[g, : len(members)] = members
    slot[members] = g * width + np.arange(len(members))
  return groups, slot


# One step of the loop over showdown boards on an accelerator: 1 GiB of working set.
ACCELERATOR_SHOWDOWN_STEP_BYTES = 2**30


def to_device(tree: PublicTree, dtype=None, showdown_step_bytes: int | None = None) -> PublicTreeTensors:
  """The device pytree of ``tree`` (float leaves in ``dtype``, default JAX's float) on JAX's
  default device. ``showdown_step_bytes``: PublicTreeTensors' (default: 0 on a CPU,
  ``ACCELERATOR_SHOWDOWN_STEP_BYTES`` elsewhere); it changes the speed, not the values."""
  if showdown_step_bytes is None:
    showdown_step_bytes = 0 if jax.default_backend() == "cpu" else ACCELERATOR_SHOWDOWN_STEP_BYTES
  dtype = jax.dtypes.canonicalize_dtype(dtype or float)
  size, width = tree.num_nodes, tree.action_ids.shape[1]
  slot = np.zeros(size, np.int64)
  for node in np.flatnonzero(tree.num_children):
    slot[tree.first_child[node] : tree.first_child[node] + tree.num_children[node]] = np.arange(tree.num_children[node])
  decision_nodes = [tree.decision_nodes(p) for p in (0, 1)]
  row = np.full((2, size), -1, np.int64)  # strategy row of (node, slot 0), per player
  for p, nodes in enumerate(decision_nodes):
    row[p, nodes] = np.arange(len(nodes)) * width
  legal = [np.arange(width)[None, :] < tree.num_children[nodes][:, None] for nodes in decision_nodes]
  children = [
    np.where(lg, tree.first_child[n][:, None] + np.arange(width)[None, :], 0) for n, lg in zip(decision_nodes, legal)
  ]
  level_slices = tuple((int(a), int(b)) for a, b in zip(tree.depth_offsets[:-1], tree.depth_offsets[1:]))
  level_parent, reach_index = [], ([], [])
  for (lo, hi), (prev_lo, _) in zip(level_slices[1:], level_slices[:-1]):
    parent = tree.parent[lo:hi]
    level_parent.append(parent - prev_lo)
    for p in (0, 1):
      own = row[p, parent] >= 0
      reach_index[p].append(np.where(own, row[p, parent] + slot[lo:hi], len(decision_nodes[p]) * width))
  below = dict(decision_children=[], decision_legal=[], chance_children=[], chance_weight=[], level_gather=[])
  decision_weight, decision_own = ([], []), ([], [])
  for (lo, hi), (next_lo, _) in zip(level_slices[:-1], level_slices[1:]):
    groups = []
    for kind in (DECISION, CHANCE):
      nodes = lo + np.flatnonzero(tree.kind[lo:hi] == kind)
      count = tree.num_children[nodes]
      c = max(int(count.max(initial=0)), 1)
      present = np.arange(c)[None, :] < count[:, None]
      child = np.where(present, tree.first_child[nodes, None] + np.arange(c)[None, :], 0)
      groups.append((nodes, present, child, np.where(present, child - next_lo, 0)))
    (nodes, present, _, kids), (chance, chance_present, chance_child, chance_kids) = groups
    below["decision_children"].append(kids)
    below["decision_legal"].append(present)
    below["chance_children"].append(chance_kids)
    below["chance_weight"].append(np.where(chance_present, tree.chance_prob[chance_child], 0.0))
    gather = np.full(hi - lo, len(nodes) + len(chance), np.int64)
    gather[nodes - lo] = np.arange(len(nodes))
    gather[chance - lo] = len(nodes) + np.arange(len(chance))
    below["level_gather"].append(gather)
    for p in (0, 1):
      own = row[p, nodes] >= 0
      constant = len(decision_nodes[p]) * width + present
      decision_weight[p].append(np.where(own[:, None], row[p, nodes, None] + np.arange(present.shape[1]), constant))
      decision_own[p].append(own)
  fold_nodes = np.flatnonzero(tree.kind == FOLD)
  showdown_nodes = np.flatnonzero(tree.kind == SHOWDOWN)
  payoff_nodes = np.flatnonzero(tree.kind == PAYOFF)
  leaf_nodes = np.flatnonzero(tree.kind == LEAF)
  terminals = (fold_nodes, showdown_nodes, payoff_nodes, leaf_nodes)
  terminal_row = np.full(size, sum(map(len, terminals)), np.int64)
  for offset, nodes in zip(np.cumsum([0] + [len(t) for t in terminals[:-1]]), terminals):
    terminal_row[nodes] = offset + np.arange(len(nodes))
  chips = tree.contribution[fold_nodes].astype(np.float64)
  folder = tree.player[fold_nodes]
  fold_payoff = np.stack([np.where(folder == p, -chips[:, p], chips[:, 1 - p]) for p in (0, 1)])
  table_of_board = {int(b): i for i, b in enumerate(tree.showdown_boards)}
  showdown_table = np.array([table_of_board[int(b)] for b in tree.board[showdown_nodes]], np.int64)
  showdown_groups, showdown_slot = _groups(showdown_table, len(tree.showdown_boards))
  dealt = tuple(bool(np.any(tree.kind[tree.parent[lo:hi]] == CHANCE)) for lo, hi in level_slices[1:])
  # host arrays converted by numpy and put on the device as they are: a jnp conversion compiles
  # a program per shape (about 30 of them, 0.4 s of a river endgame's start on one core)
  put = lambda x, kind=None: jax.device_put(np.asarray(x, kind))
  index = lambda x: put(x, np.int32)
  indices = lambda xs: tuple(index(x) for x in xs)
  return PublicTreeTensors(
    kind=put(tree.kind),
    player=put(tree.player),
    board=index(tree.board),
    valid=put(tree.valid),
    decision_nodes=indices(decision_nodes),
    legal=tuple(put(x) for x in legal),
    children=indices(children),
    level_parent=indices(level_parent),
    reach_index=tuple(indices(x) for x in reach_index),
    decision_children=indices(below["decision_children"]),
    decision_legal=tuple(put(x) for x in below["decision_legal"]),
    decision_weight=tuple(indices(x) for x in decision_weight),
    decision_own=tuple(tuple(put(x) for x in own) for own in decision_own),
    chance_children=indices(below["chance_children"]),
    chance_weight=tuple(put(x, dtype) for x in below["chance_weight"]),
    level_gather=indices(below["level_gather"]),
    terminal_row=index(terminal_row),
    fold_nodes=index(fold_nodes),
    fold_payoff=put(fold_payoff, dtype),
    showdown_nodes=index(showdown_nodes),
    showdown_table=index(showdown_table),
    showdown_chips=put(tree.contribution[showdown_nodes], dtype),
    showdown_groups=index(showdown_groups),
    showdown_slot=index(showdown_slot),
    payoff_nodes=index(payoff_nodes),
    payoff_table=index(tree.payoff_index[payoff_nodes]),
    payoff_tables=put(tree.payoff_tables, dtype),
    hands=index(tree.hands),
    members=indices(tree.members),
    subsets=indices(tree.subsets),
    strength=index(tree.strength),
    order=index(tree.order),
    lo=index(tree.lo),
    hi=index(tree.hi),
    sub_order=indices(tree.sub_order),
    sub_lo=indices(tree.sub_lo),
    sub_hi=indices(tree.sub_hi),
    leaf_nodes=index(leaf_nodes),
    leaf_chips=put(np.reshape(tree.contribution[leaf_nodes], (-1, 2)), dtype),
    boards=index(tree.boards),
    initial_range=put(tree.initial_range, dtype),
    level_slices=level_slices,
    level_dealt=(False,) + dealt,
    showdown_step_bytes=int(showdown_step_bytes),
  )
