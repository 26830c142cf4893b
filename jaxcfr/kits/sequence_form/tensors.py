"""The game as one immutable JAX pytree (docs/design.md, "The tensors").

Integer index arrays and the float leaves ``tree.chance_prob``, ``tree.utility`` and
``payoff.value`` are pytree children; sizes and level boundaries are static metadata, so
shapes are static under ``jit``. Sizes are derived from array shapes.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import hashlib

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.games import CHANCE_NODE, TERMINAL_NODE, GameInfo
from jaxcfr.kits.sequence_form.arrays import GameArrays, PlayerArrays, first_children, index_dtype
from jaxcfr.kits.sequence_form.row_sums import RowSums, build_row_sums

__all__ = [
  "Treeplex",
  "TreeStatics",
  "Tree",
  "tree_statics",
  "SequencePayoff",
  "InfosetLabels",
  "GameTensors",
  "padded_sequence_ids",
  "payoff_pairs",
  "terminal_values",
  "device_bytes",
  "to_tensors",
  "path_product",
  "chance_reach",
  "with_payoff_from_tree",
]


def _pytree(*, meta: tuple[str, ...] = ()):
  """Registers a frozen dataclass as a pytree whose fields in ``meta`` are static."""

  def wrap(cls):
    cls = dataclasses.dataclass(frozen=True)(cls)
    data = [f.name for f in dataclasses.fields(cls) if f.name not in meta]
    return jax.tree_util.register_dataclass(cls, data_fields=data, meta_fields=list(meta))

  return wrap


@_pytree(meta=("level_slices",))
class Treeplex:
  """One player's treeplex. ``I`` infosets, ``A`` max actions, ``S = 1 + I * A`` sequences.

  On the device, sequences are *padded*: the sequence of (infoset ``i``, action slot ``a``)
  is ``1 + i * A + a`` for every slot, legal or not, and 0 is the empty sequence. A [S]
  vector then reshapes to [I, A] for free; the slots of illegal actions are never reached
  (plans are 0 there, no payoff refers to them). GameArrays keep the compact numbering;
  ``padded_sequence_ids`` maps one to the other.

  Attributes:
    parent_seq: [I] int32, padded sequence leading to each infoset (0 = empty sequence).
    legal: [I, A] bool, True = legal action.
    children: per pair of adjacent levels ``(l, l + 1)``, a RowSums whose rows are level
      ``l``'s sequences (``level_sequences`` of it, counted from its first) and whose
      entries are level ``l + 1``'s infosets (counted from its first): the child infosets
      of every sequence, for the bottom-up passes. An infoset's parent sequence lies one
      level up (levels are treeplex depths).
    level_slices: static ((lo, hi), ...) infoset ranges by treeplex depth, top first.
  """

  parent_seq: jax.Array
  legal: jax.Array
  children: tuple
  level_slices: tuple

  @property
  def num_infosets(self) -> int:
    return self.legal.shape[0]

  @property
  def max_actions(self) -> int:
    return self.legal.shape[1]

  @property
  def num_sequences(self) -> int:
    """Padded sequences, the empty one included: ``1 + I * A``."""
    return 1 + self.legal.shape[0] * self.legal.shape[1]

  @property
  def sequences(self) -> jax.Array:
    """[I, A] padded sequence ids."""
    return 1 + jnp.arange(self.num_infosets * self.max_actions, dtype=jnp.int32).reshape(self.legal.shape)

  def level_sequences(self, lo: int, hi: int) -> slice:
    """The padded sequence range of infosets ``lo:hi``."""
    return slice(1 + lo * self.max_actions, 1 + hi * self.max_actions)


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


@_pytree(meta=("depth_slices", "statics"))
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


@_pytree()
class SequencePayoff:
  """Player 0's sequence-form payoff ``A[seq0, seq1] = sum_z c(z) u0(z)``. ``P`` pairs.

  Attributes:
    seq0, seq1: [P] int32, the pairs, sorted by seq0 then seq1, duplicates summed.
    value: [P] float, the entries (a differentiable leaf).
    pairs_by_seq0, pairs_by_seq1: RowSums of the pairs of each sequence of player 0
      ([S0] rows) and of player 1 ([S1] rows), for ``A y`` and ``A^T x``.
    terminal: [Z] int32, the terminal histories.
    terminal_pair: [Z] int32, the pair each terminal adds to.
  """

  seq0: jax.Array
  seq1: jax.Array
  value: jax.Array
  pairs_by_seq0: RowSums
  pairs_by_seq1: RowSums
  terminal: jax.Array
  terminal_pair: jax.Array

  @property
  def num_pairs(self) -> int:
    return self.value.shape[0]


class InfosetLabels:
  """Host-side labels of both players' infosets and actions, for what a solver computes from
  them on the host (regression CFR's features and abstractions: jaxcfr.solvers.rcfr_features),
  so that nothing reloads a game by its name. Static metadata of GameTensors: like
  TreeStatics it compares and hashes by value, a digest of the arrays that define the labels
  (each player's key data, action ids and action counts; for keys stored as codes of
  vectorised rules, also the name of the game whose rules decode them), so loading the same
  game twice gives equal labels. Keys are decoded only when first asked for.

  Attributes:
    players: (PlayerArrays, PlayerArrays) the host arrays the labels are read from
      (memory-mapped from the cache when the game was loaded from it).
    source: the canonical name of the game they were built with.
  """

  def __init__(self, players, source: str):
    self.players, self.source = tuple(players), str(source)

  def keys(self, player: int) -> np.ndarray:
    """[I_p] str, the information-state key of each infoset of ``player``."""
    return self.players[player].keys

  def action_ids(self, player: int) -> np.ndarray:
    """[I_p, A_p] int, the game's action id of each legal action of ``player``, -1 at padding."""
    return self.players[player].action_ids

  def legal(self, player: int) -> np.ndarray:
    """[I_p, A_p] bool, True = legal (host, equal to ``Treeplex.legal``)."""
    return self.players[player].legal

  @functools.cached_property
  def num_legal_sequences(self) -> int:
    """The legal sequences of both players, the empty ones excluded (the full regret table)."""
    return int(sum(int(np.sum(p.num_actions)) for p in self.players))

  def __repr__(self):
    return f"InfosetLabels({self.source}, infosets={[p.num_infosets for p in self.players]})"

  @functools.cached_property
  def digest(self) -> bytes:
    """A digest of the arrays that define the labels (one pass over [I] bytes, once)."""
    hasher = hashlib.blake2b(digest_size=16)
    for player in self.players:
      coded = player.key_data.dtype.kind not in "US"
      hasher.update(self.source.encode() if coded else b"keys")
      for array in (player.key_data, player.action_ids, player.num_actions):
        hasher.update(str((array.dtype, array.shape)).encode())
        hasher.update(np.ascontiguousarray(array).data)
    return hasher.digest()

  def __eq__(self, other):
    return self is other or (isinstance(other, InfosetLabels) and self.digest == other.digest)

  def __hash__(self):
    return hash(self.digest)


@_pytree(meta=("name", "info", "labels"))
class GameTensors:
  """Everything the solvers read, as one pytree (sizes are derived from the arrays' shapes).

  Attributes:
    tree: Tree, the history-level arrays ([H] each; ``sequence`` [2, H]).
    players: (Treeplex, Treeplex), each player's treeplex (``legal`` [I_p, A_p],
      ``parent_seq`` [I_p]; padded sequences ``S_p = 1 + I_p A_p``).
    payoff: SequencePayoff, player 0's sequence-form payoff ([P] pairs).
    name: static, the canonical game string (for messages: nothing loads a game by it).
    info: static, the GameInfo the game declares (jaxcfr.games.GameInfo).
    labels: static InfosetLabels (host-side infoset keys and action ids), or None for
      tensors built without ``to_tensors``.
  """

  tree: Tree
  players: tuple
  payoff: SequencePayoff
  name: str
  info: GameInfo = GameInfo()
  labels: InfosetLabels | None = None

  @property
  def dtype(self):
    return self.payoff.value.dtype


def _slices(offsets) -> tuple:
  offsets = [int(o) for o in offsets]
  return tuple(zip(offsets[:-1], offsets[1:]))


def padded_sequence_ids(player: PlayerArrays) -> np.ndarray:
  """[S_compact] the padded id (see Treeplex) of each compact sequence id of GameArrays."""
  seq_infoset = np.repeat(np.arange(player.num_infosets), player.num_actions)
  seq_action = np.arange(player.num_sequences - 1) - player.seq_offset[seq_infoset]
  return np.concatenate([[0], 1 + seq_infoset * player.max_actions + seq_action]).astype(np.int64)


def _treeplex(player: PlayerArrays) -> Treeplex:
  parent_seq = padded_sequence_ids(player)[player.parent_seq]
  levels = _slices(player.level_offsets)
  children = []
  for (lo, hi), (child_lo, child_hi) in zip(levels, levels[1:]):
    first = 1 + lo * player.max_actions
    children.append(build_row_sums(parent_seq[child_lo:child_hi] - first, (hi - lo) * player.max_actions))
  return Treeplex(
    parent_seq=jnp.asarray(parent_seq, jnp.int32),
    legal=jnp.asarray(player.legal),
    children=tuple(children),
    level_slices=levels,
  )


def payoff_pairs(arrays: GameArrays) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
  """Returns (terminal [Z], terminal_pair [Z], seq0 [P], seq1 [P]) (compact sequence ids),
  pairs sorted by (seq0, seq1). Index arrays are int32 where they fit."""
  terminal = np.flatnonzero(arrays.kind == TERMINAL_NODE).astype(index_dtype(arrays.num_histories))
  num_seq1 = arrays.players[1].num_sequences
  keys = arrays.sequence[0, terminal].astype(np.int64)
  keys *= num_seq1
  keys += arrays.sequence[1, terminal]
  keys, terminal_pair = np.unique(keys, return_inverse=True)
  terminal_pair = terminal_pair.ravel().astype(index_dtype(len(keys)))
  seq0, seq1 = np.divmod(keys, num_seq1)
  return terminal, terminal_pair, seq0, seq1


def terminal_values(arrays: GameArrays, terminal: np.ndarray) -> np.ndarray:
  """[Z] float64 ``c(z) u0(z)`` at the given terminals. Without chance nodes ``c = 1`` and
  no [H] array is made."""
  if not np.any(arrays.kind == CHANCE_NODE):
    return np.asarray(arrays.utility[terminal], np.float64)
  return arrays.chance_reach()[terminal] * arrays.utility[terminal]


def _device(values: np.ndarray, dtype) -> jax.Array:
  """One copy to the device, converted on the host first (``jnp.asarray`` of a NumPy array
  can hold two device copies at once)."""
  return jax.device_put(np.asarray(values, dtype))


def device_bytes(arrays: GameArrays, dtype=None) -> int:
  """An upper estimate of the device memory of ``to_tensors(arrays, dtype)``, in bytes: 21
  bytes of indices and four floats per history, and at most 28 bytes per sequence-form pair
  (a pair per terminal at most)."""
  itemsize = (jnp.dtype(dtype) if dtype is not None else jnp.zeros(()).dtype).itemsize
  terminals = int(np.count_nonzero(arrays.kind == TERMINAL_NODE))
  return arrays.num_histories * (21 + 4 * itemsize) + terminals * 28


def to_tensors(arrays: GameArrays, dtype=None) -> GameTensors:
  """Moves built arrays to the default device as a GameTensors pytree.

  Memory: the device arrays (37 bytes per history in float32, plus 12 per sequence-form
  pair, at most 16 more per pair and 8 per sequence for the row tables) and, while they
  are made, host temporaries of a few [Z] int64 arrays (the pairs) and one [H] int32
  array at a time; the [H] float64 chance reach only if the game has
  chance nodes.

  Args:
    arrays: the built game.
    dtype: float dtype of the leaves; default jax's default float (float32 unless x64).
  """
  dtype = jnp.dtype(dtype) if dtype is not None else jnp.zeros(()).dtype
  if dtype == jnp.float64 and not jax.config.jax_enable_x64:
    raise ValueError("dtype float64 needs jax.config.update('jax_enable_x64', True) before loading")
  num_padded = [p.num_infosets * p.max_actions + 1 for p in arrays.players]
  if max(arrays.num_histories, *num_padded) >= 2**31:
    raise ValueError(f"{arrays.name} has more histories or sequences than int32 indices hold")
  i32 = np.int32
  terminal, terminal_pair, seq0, seq1 = payoff_pairs(arrays)
  padded = [padded_sequence_ids(p).astype(i32) for p in arrays.players]  # monotone: order is kept
  seq0, seq1 = padded[0][seq0], padded[1][seq1]
  values = np.bincount(terminal_pair, weights=terminal_values(arrays, terminal), minlength=len(seq0))
  payoff = SequencePayoff(
    seq0=_device(seq0, i32),
    seq1=_device(seq1, i32),
    value=_device(values, dtype),
    pairs_by_seq0=build_row_sums(seq0, num_padded[0]),
    pairs_by_seq1=build_row_sums(seq1, num_padded[1]),
    terminal=_device(terminal, i32),
    terminal_pair=_device(terminal_pair, i32),
  )
  del terminal, terminal_pair, seq0, seq1, values
  sequence = np.empty((2, arrays.num_histories), i32)
  for p in range(2):
    np.take(padded[p], arrays.sequence[p], out=sequence[p])
  sequence = _device(sequence, i32)
  tree = Tree(
    parent=_device(arrays.parent, i32),
    kind=_device(arrays.kind, np.int8),
    infoset=_device(arrays.infoset, i32),
    action_index=_device(arrays.action_index, i32),
    first_child=_device(first_children(arrays.num_children), i32),
    num_children=_device(arrays.num_children, i32),
    sequence=sequence,
    chance_prob=_device(arrays.chance_prob, dtype),
    utility=_device(arrays.utility, dtype),
    depth_slices=_slices(arrays.depth_offsets),
    statics=TreeStatics(arrays.kind, arrays.num_children, arrays.depth_offsets),
  )
  tensors = GameTensors(
    tree=tree,
    players=tuple(_treeplex(p) for p in arrays.players),
    payoff=payoff,
    name=arrays.name,
    info=arrays.info,
    labels=InfosetLabels(arrays.players, arrays.name),
  )
  gc.collect()  # host temporaries handed to device_put can sit in reference cycles
  return tensors


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


def with_payoff_from_tree(tensors: GameTensors) -> GameTensors:
  """Recomputes ``payoff.value`` from ``tree.chance_prob`` and ``tree.utility`` in JAX.

  Use it after replacing those leaves (e.g. a parameterised chance distribution), so that
  ``jax.grad`` of any solver output reaches chance probabilities and utilities.
  """
  payoff = tensors.payoff
  terminal = payoff.terminal
  contribution = chance_reach(tensors.tree)[terminal] * tensors.tree.utility[terminal]
  value = jax.ops.segment_sum(contribution, payoff.terminal_pair, num_segments=payoff.num_pairs)
  return dataclasses.replace(tensors, payoff=dataclasses.replace(payoff, value=value))
