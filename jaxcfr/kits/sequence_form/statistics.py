"""Game statistics: history and infoset counts, game length, M-values (Lanctot et al. 2009, section 4)."""

from __future__ import annotations

import numpy as np

from jaxcfr.kits.sequence_form.arrays import CHANCE_NODE, TERMINAL_NODE, GameArrays, PlayerArrays

__all__ = ["m_value", "label_paths", "statistics"]


def m_value(player: PlayerArrays) -> float:
  """``M_i = sum over own action sequences a of sqrt(|I_i(a)|)`` (Lanctot et al. 2009, section 4).

  ``I_i(a)`` is the set of the player's infosets reached after the player's own action
  sequence ``a``, compared by the actions' labels (ids). For OCP(500) this gives Lanctot et al. 2009
  Table 1's M1 = 45 and M2 = 32.
  """
  counts = np.bincount(label_paths(player))
  return float(np.sqrt(counts[counts > 0]).sum())


def label_paths(player: PlayerArrays) -> np.ndarray:
  """[I] int64, an id of each infoset's own action-label path (the labels, i.e. action
  ids, of the player's own earlier actions): infosets with equal ids form one ``I_i(a)``.

  Vectorised over treeplex levels: a path of length ``l`` is (the path id of the parent
  sequence's infoset, the parent sequence's label), numbered with ``np.unique``.
  """
  seq_infoset = np.repeat(np.arange(player.num_infosets), player.num_actions)
  seq_label = player.action_ids[player.legal].astype(np.int64)  # [S - 1] in sequence order
  num_labels = int(seq_label.max()) + 2 if len(seq_label) else 1
  paths = np.zeros(player.num_infosets, np.int64)
  next_id = 1  # 0 = the empty path
  for lo, hi in zip(player.level_offsets[:-1], player.level_offsets[1:]):
    parent = player.parent_seq[lo:hi].astype(np.int64)
    if not len(parent) or np.all(parent == 0):
      continue
    # (parent path, label); ``+ 1`` keeps the empty parent (0) apart from label 0.
    key = paths[seq_infoset[np.maximum(parent - 1, 0)]] * num_labels + seq_label[np.maximum(parent - 1, 0)] + 1
    key = np.where(parent == 0, 0, key)
    unique, inverse = np.unique(key, return_inverse=True)
    ids = next_id + np.arange(len(unique))
    ids[unique == 0] = 0
    paths[lo:hi] = ids[inverse.ravel()]
    next_id += len(unique)
  return paths


def statistics(arrays: GameArrays) -> dict:
  """The statistics of ``jaxcfr info``; ``max_length`` counts chance actions too."""
  kind = arrays.kind
  return {
    "game": arrays.name,
    "histories": arrays.num_histories,
    "chance_nodes": int((kind == CHANCE_NODE).sum()),
    "decision_nodes": int((kind < CHANCE_NODE).sum()),
    "terminals": int((kind == TERMINAL_NODE).sum()),
    "infosets": [p.num_infosets for p in arrays.players],
    "sequences": [p.num_sequences for p in arrays.players],
    "max_actions": [p.max_actions for p in arrays.players],
    "max_length": len(arrays.depth_offsets) - 2,
    "m_values": [m_value(p) for p in arrays.players],
  }
