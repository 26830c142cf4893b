"""Game statistics: history and infoset counts, game length, M-values (paper 002, section 4)."""

from __future__ import annotations

import numpy as np

from jaxcfr.arrays import CHANCE_NODE, TERMINAL_NODE, GameArrays, PlayerArrays


def m_value(player: PlayerArrays) -> float:
  """``M_i = sum over own action sequences a of sqrt(|I_i(a)|)`` (paper 002, section 4).

  ``I_i(a)`` is the set of the player's infosets reached after the player's own action
  sequence ``a``, compared by the actions' labels (ids). For OCP(500) this gives paper 002
  Table 1's M1 = 45 and M2 = 32.
  """
  seq_infoset = np.repeat(np.arange(player.num_infosets), player.num_actions)
  seq_label = player.action_ids[player.legal]  # [S - 1] in sequence order
  path_ids: dict[tuple, int] = {(): 0}
  infoset_path = np.zeros(player.num_infosets, np.int64)
  for infoset in range(player.num_infosets):  # level order: parents come first
    parent = int(player.parent_seq[infoset])
    if parent == 0:
      key = ()
    else:
      key = (int(infoset_path[seq_infoset[parent - 1]]), int(seq_label[parent - 1]))
    infoset_path[infoset] = path_ids.setdefault(key, len(path_ids))
  counts = np.bincount(infoset_path)
  return float(np.sqrt(counts[counts > 0]).sum())


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
