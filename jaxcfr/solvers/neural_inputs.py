"""The inputs of the neural solvers' networks: information states and histories as vectors.

- ``infostate_features(tensors, player)`` -> [I, F] float32, host NumPy, one row per infoset
  of ``player``: the encoding the game declares (``GameInfo.encoding``, computed from the
  infoset keys; OpenSpiel's ``information_state_tensor`` layout where the game has a twin),
  else the generic encoding of the keys: each key one-hot per character position, over the
  characters and the longest key of both players. Cached per game (the labels and the info
  compare by value), built once when a program is traced; a constant of the program.
- ``path_features(tensors, slots)`` -> [..., D W]: a history given by the child slots taken from
  the root (``slots`` [..., D], -1 past its depth; chance outcomes are slots too) as one one-hot
  block of width W (the most children of any history) per depth: complete (the slots determine
  the history) and generic (read off the tree arrays), for ESCHER's history value function,
  whose histories have no key.
- ``history_infosets(tensors)`` -> [2, H] and ``history_infostate_features(tensors)`` -> [H, F0 +
  F1 + D W]: a history as both players' information-state encodings (the infoset where the
  player acts, else that of its last action before the history, else one below it) beside
  its path: the private information of both players in the games' own encodings, which the
  path's slots give only relative to the earlier chance outcomes.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.kits.sequence_form.tensors import GameTensors, InfosetLabels, tree_statics

__all__ = [
  "infostate_features",
  "generic_features",
  "path_features",
  "path_width",
  "history_paths",
  "history_features",
  "history_infosets",
  "history_infostate_features",
]


def generic_features(keys_by_player, player: int) -> np.ndarray:
  """[I, L V] the keys of ``player`` one-hot per character position (L the longest key and V
  the characters, over both players' keys)."""
  every = [str(k) for keys in keys_by_player for k in keys]
  vocabulary = {c: j for j, c in enumerate(sorted({c for k in every for c in k}))}
  length = max((len(k) for k in every), default=0)
  keys = [str(k) for k in keys_by_player[player]]
  rows = np.zeros((len(keys), max(length, 1), max(len(vocabulary), 1)), np.float32)
  for i, key in enumerate(keys):
    for position, character in enumerate(key):
      rows[i, position, vocabulary[character]] = 1.0
  return rows.reshape(len(keys), -1)


@functools.lru_cache(maxsize=32)
def _features(labels: InfosetLabels, info, player: int) -> np.ndarray:
  if info is not None and info.encoding is not None:
    rows = info.encoding.encode(labels.keys(player), player)
  else:
    rows = generic_features((labels.keys(0), labels.keys(1)), player)
  rows = np.ascontiguousarray(rows, np.float32)
  rows.setflags(write=False)
  return rows


def infostate_features(tensors: GameTensors, player: int) -> np.ndarray:
  """[I_p, F_p] float32 inputs of ``player``'s infosets (see the module doc)."""
  if tensors.labels is None:
    raise ValueError("these tensors carry no infoset labels; load the game with jaxcfr.load")
  return _features(tensors.labels, tensors.info, int(player))


def path_width(tensors: GameTensors) -> tuple[int, int]:
  """(D, W): the tree's depth levels below the root and its most children (static)."""
  statics = tree_statics(tensors.tree)
  return max(len(tensors.tree.depth_slices) - 1, 1), statics.max_children


def path_features(tensors: GameTensors, slots: jax.Array) -> jax.Array:
  """[..., D W] one-hot of the child slot taken at each depth (``slots`` [..., D] int, -1 for
  depths the history has not reached), in the tensors' dtype."""
  depth, width = path_width(tensors)
  onehot = jax.nn.one_hot(slots, width, dtype=tensors.dtype)  # -1 gives a zero row
  return onehot.reshape(slots.shape[:-1] + (depth * width,))


def history_paths(tensors: GameTensors) -> jax.Array:
  """[H, D] int32 the child slot taken at each depth on the way to every history (-1 below
  its depth), one depth level at a time from the tree arrays (traceable)."""
  tree = tensors.tree
  depth, _ = path_width(tensors)
  paths = jnp.full((tree.parent.shape[0], depth), -1, jnp.int32)
  for level, (lo, hi) in enumerate(tree.depth_slices[1:]):
    inherited = paths[tree.parent[lo:hi]].at[:, level].set(tree.action_index[lo:hi].astype(jnp.int32))
    paths = paths.at[lo:hi].set(inherited)
  return paths


def history_features(tensors: GameTensors) -> jax.Array:
  """[H, D W] ``path_features`` of every history (traceable)."""
  return path_features(tensors, history_paths(tensors))


def history_infosets(tensors: GameTensors) -> jax.Array:
  """[2, H] int32 each player's information state at every history: its infoset where it
  acts; else the infoset of its last action before the history; else (it has not acted yet)
  the smallest infoset id of its histories below (an infoset near the history where the
  infosets are numbered top-down); -1 where it acts neither before nor below (traceable)."""
  tree = tensors.tree
  rows = []
  for p, treeplex in enumerate(tensors.players):
    acts = tree.kind == p
    none = treeplex.num_infosets
    below = jnp.where(acts, tree.infoset, none).astype(jnp.int32)
    for lo, hi in reversed(tree.depth_slices[1:]):
      below = below.at[tree.parent[lo:hi]].min(below[lo:hi])
    below = jnp.where(below < none, below, -1)
    last = jnp.where(tree.sequence[p] > 0, (tree.sequence[p] - 1) // treeplex.max_actions, -1)
    rows.append(jnp.where(acts, tree.infoset, jnp.where(last >= 0, last, below)))
  return jnp.stack(rows).astype(jnp.int32)


def history_infostate_features(tensors: GameTensors) -> jax.Array:
  """[H, F0 + F1 + D W] both players' ``infostate_features`` at ``history_infosets`` (zeros
  at -1) and the path's ``history_features``, in the tensors' dtype (traceable)."""
  infosets = history_infosets(tensors)
  blocks = []
  for p in (0, 1):
    table = jnp.asarray(infostate_features(tensors, p), tensors.dtype)
    blocks.append(jnp.where(infosets[p][:, None] >= 0, table[jnp.maximum(infosets[p], 0)], 0))
  return jnp.concatenate(blocks + [history_features(tensors)], axis=1)
