"""The history tree on the device (``Tree``: parents, kinds, infosets, children, sequences,
chance probabilities, utilities, numbered breadth-first) and the host-side quantities that set
the shapes of walks down it (``TreeStatics``), with products along its paths."""

from __future__ import annotations

import dataclasses
import functools
import hashlib

import jax
import numpy as np

from jaxcfr.games import CHANCE_NODE
from jaxcfr.kits.sequence_form.arrays import first_children

__all__ = ["pytree", "TreeStatics", "Tree", "tree_statics", "path_product", "chance_reach"]


def pytree(*, meta: tuple[str, ...] = ()):
  """Registers a frozen dataclass as a pytree whose fields in ``meta`` are static."""

  def wrap(cls):
    cls = dataclasses.dataclass(frozen=True)(cls)
    data = [f.name for f in dataclasses.fields(cls) if f.name not in meta]
    return jax.tree_util.register_dataclass(cls, data_fields=data, meta_fields=list(meta))

  return wrap


class TreeStatics:
  """Static (shape-giving) quantities of one game's tree, computed on the host from its
  integer arrays on first use and cached: under ``jit`` the tree's arrays may be traced,
  so anything that sets a shape must come from here. It is static metadata of ``Tree``,
  so it compares and hashes by value (a digest of its arrays): loading the same game
  twice gives equal statics and reuses every compiled program. Nothing else is computed
  until asked.

  Attributes:
    kind, num_children: [H] host (NumPy) arrays of the tree (memory-mapped from the cache
      when the game was loaded from it).
    depth_offsets: [D + 1] history offsets of the depth levels.
  """

  def __init__(self, kind, num_children, depth_offsets):
    self.kind, self.num_children = np.asarray(kind), np.asarray(num_children)
    self.depth_offsets = np.asarray(depth_offsets)
    self._capacity = {}

  @functools.cached_property
  def first_child(self) -> np.ndarray:
    """[H] index of each history's first child (derived from ``num_children`` when first needed)."""
    return first_children(self.num_children)

  def __repr__(self):
    return f"TreeStatics(histories={self.kind.shape[0]}, depths={len(self.depth_offsets) - 1})"

  @functools.cached_property
  def digest(self) -> bytes:
    """A digest of the arrays that define the statics (one pass over [H] bytes, once)."""
    hasher = hashlib.blake2b(digest_size=16)
    for array in (self.kind, self.num_children, self.depth_offsets):
      hasher.update(str((array.dtype, array.shape)).encode())
      hasher.update(np.ascontiguousarray(array).data)
    return hasher.digest()

  def __eq__(self, other):
    return self is other or (isinstance(other, TreeStatics) and self.digest == other.digest)

  def __hash__(self):
    return hash(self.digest)

  def _level(self, d: int) -> slice:
    return slice(int(self.depth_offsets[d]), int(self.depth_offsets[d + 1]))

  @functools.cached_property
  def max_children(self) -> int:
    """The most children of any history."""
    return max(1, int(self.num_children.max())) if self.num_children.size else 1

  @functools.cached_property
  def chance_width(self) -> int:
    """The most children of any chance node (1 without chance nodes)."""
    chance = self.kind == CHANCE_NODE
    return max(1, int(self.num_children[chance].max())) if chance.any() else 1

  @functools.cached_property
  def level_kinds(self) -> tuple:
    """Per depth, the sorted node kinds present (0, 1 players, 2 chance, 3 terminal)."""
    return tuple(
      tuple(int(k) for k in np.unique(self.kind[self._level(d)])) for d in range(len(self.depth_offsets) - 1)
    )

  @functools.cached_property
  def level_chance_width(self) -> tuple:
    """Per depth, the most children of a chance node there (0 without chance nodes)."""
    widths = []
    for d in range(len(self.depth_offsets) - 1):
      level = self._level(d)
      chance = self.kind[level] == CHANCE_NODE
      widths.append(int(self.num_children[level][chance].max()) if chance.any() else 0)
    return tuple(widths)

  def frontier_capacity(self, expanded: tuple) -> tuple:
    """Per depth ``d``, the most histories at depth ``d`` that a traversal can reach when it
    expands every child at nodes of the players in ``expanded`` and follows one child at
    every other non-terminal node (chance and the unexpanded player), over every possible
    choice of those children: ``N_d(h) = [depth(h) = d]`` at depth ``d``; deeper, the sum
    of the children's ``N_d`` at expanded nodes and their maximum at the others (0 at
    terminals). The root's ``N_d`` is exact: some choice of sampled children reaches it.

    It is never above the number of distinct ``seq_i`` (``expanded = (i,)``) or distinct
    ``(seq_0, seq_1)`` (both expanded) among the histories at depth ``d``: two histories
    that follow the same sampled choices first differ at a node of an expanded player,
    so by perfect recall their sequences of that player differ. O(D H) host work, once.

    Returns:
      (C_0 = 1, C_1, ..., C_{D-1}) Python ints.
    """
    expanded = tuple(sorted(int(p) for p in expanded))
    if expanded not in self._capacity:
      depths = len(self.depth_offsets) - 1
      capacity = [1]
      for d in range(1, depths):
        count = np.ones(self._level(d).stop - self._level(d).start, np.int64)
        for e in range(d, 0, -1):  # fold level e into its parents at level e - 1
          parents = self._level(e - 1)
          kind, first = self.kind[parents], self.first_child[parents] - self.depth_offsets[e]
          inner = self.num_children[parents] > 0
          total = np.zeros(parents.stop - parents.start, np.int64)
          if inner.any():  # children are contiguous and ordered like their parents
            starts = first[inner]
            sums, maxima = np.add.reduceat(count, starts), np.maximum.reduceat(count, starts)
            total[inner] = np.where(np.isin(kind[inner], expanded), sums, maxima)
          count = total
        capacity.append(max(1, int(count[0])))
      self._capacity[expanded] = tuple(capacity)
    return self._capacity[expanded]


@pytree(meta=("depth_slices", "statics"))
class Tree:
  """History-level arrays, breadth-first. ``H`` histories (see arrays.GameArrays).

  Attributes:
    parent: [H] int32; kind: [H] int8; infoset: [H] int32; action_index: [H] int32;
    first_child: [H] int32; num_children: [H] int32; sequence: [2, H] int32.
    chance_prob: [H] float, probability of the incoming edge (a differentiable leaf).
    utility: [H] float, player 0's utility at terminals (a differentiable leaf).
    depth_slices: static ((lo, hi), ...) history ranges by depth.
    statics: static TreeStatics (host-side quantities computed on demand), or None; see
      ``tree_statics``.
  """

  parent: jax.Array
  kind: jax.Array
  infoset: jax.Array
  action_index: jax.Array
  first_child: jax.Array
  num_children: jax.Array
  sequence: jax.Array
  chance_prob: jax.Array
  utility: jax.Array
  depth_slices: tuple
  statics: TreeStatics | None = None


def tree_statics(tree: Tree) -> TreeStatics:
  """The tree's TreeStatics; a tree built without one gets one from its (concrete) arrays."""
  if tree.statics is not None:
    return tree.statics
  if any(isinstance(x, jax.core.Tracer) for x in (tree.parent, tree.kind, tree.num_children)):
    raise ValueError(
      "this Tree has no TreeStatics and its arrays are traced; build it with "
      "tensors.to_tensors (or pass statics=TreeStatics(...))"
    )
  offsets = [lo for lo, _ in tree.depth_slices] + [tree.depth_slices[-1][1]]
  return TreeStatics(tree.kind, tree.num_children, offsets)


def path_product(tree: Tree, edge: jax.Array) -> jax.Array:
  """[H] product of ``edge`` [H] (a factor per history's incoming edge; the root's is
  used as is) along the path from the root to each history, one depth level at a time."""
  reach = edge
  for lo, hi in tree.depth_slices[1:]:
    reach = reach.at[lo:hi].multiply(reach[tree.parent[lo:hi]])
  return reach


def chance_reach(tree: Tree) -> jax.Array:
  """[H] product of chance probabilities on the path to each history (differentiable)."""
  return path_product(tree, tree.chance_prob)
