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
from jaxcfr.kits.sequence_form.tree_arrays import Tree, TreeStatics, chance_reach, path_product, pytree, tree_statics

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


@pytree(meta=("level_slices",))
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


@pytree()
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


@pytree(meta=("name", "info", "labels"))
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
