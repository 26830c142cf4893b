"""The public tree and the sequence form of the same game, one onto the other: where each
infoset of the sequence form lies in the public tree (``sequence_form_map``), and a public-tree
profile as a sequence-form one (``to_sequence_form``), so that the exactness tests and the
strategy files can compare and convert them."""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from jaxcfr.games.poker_rules import CHANCE, DECISION
from jaxcfr.kits.public_tree.tree import PublicTree
from jaxcfr.kits.sequence_form.arrays import CHANCE_NODE, GameArrays

__all__ = ["SequenceFormMap", "sequence_form_map", "to_sequence_form"]


@dataclasses.dataclass(frozen=True)
class SequenceFormMap:
  """Where each infoset of the sequence form lies in the public tree. Per player ``p``
  (``I_p`` infosets, ``A_p`` most actions of the sequence form):

  Attributes:
    node: per player, [I_p] int32, the index of the infoset's public node among ``p``'s
      decision nodes (``PublicTree.decision_nodes(p)``).
    hand: per player, [I_p] int32, the player's private hand there.
    slot: per player, [I_p, A_p] int32, the public node's action slot of each sequence-form
      action slot, -1 at padding.
  """

  node: tuple
  hand: tuple
  slot: tuple


def sequence_form_map(tree: PublicTree, arrays: GameArrays) -> SequenceFormMap:
  """Maps the sequence form of the same game onto ``tree`` by replaying one history of each
  infoset. The sequence form must deal player 0's hand, then player 1's, card by card as
  chance outcomes whose ids are cards, and the public cards card by card (the native
  kuhn_poker, one_card_poker and leduc_poker do). Raises ValueError unless the infosets
  and the pairs (decision node, valid hand) of each player correspond one to one."""
  k = tree.rules.hand_size
  hand_index = {tuple(h.tolist()): i for i, h in enumerate(tree.hands)}
  nodes, hands, slots = [], [], []
  for p, player in enumerate(arrays.players):
    position = {int(v): i for i, v in enumerate(tree.decision_nodes(p))}
    node_of, hand_of = np.zeros(player.num_infosets, np.int32), np.zeros(player.num_infosets, np.int32)
    slot = np.full(player.action_ids.shape, -1, np.int32)
    for infoset, history in enumerate(player.first_history):
      path, h = [], int(history)
      while arrays.parent[h] >= 0:
        path.append((int(arrays.kind[arrays.parent[h]]), int(arrays.action_id[h])))
        h = int(arrays.parent[h])
      node, private, pending = 0, [], []
      for edge_kind, action in reversed(path):
        if edge_kind == CHANCE_NODE and len(private) < 2 * k:
          private.append(action)
          continue
        if edge_kind == CHANCE_NODE:
          pending.append(action)
          if tree.kind[node] != CHANCE:
            raise ValueError(f"infoset {player.keys[infoset]!r}: a deal where the public tree has no chance node")
          kids = range(tree.first_child[node], tree.first_child[node] + tree.num_children[node])
          new = {c: set(tree.board_cards(c)) - set(tree.board_cards(node)) for c in kids}
          if len(pending) == len(next(iter(new.values()))):
            node, pending = next(c for c, cards in new.items() if cards == set(pending)), []
          continue
        found = np.flatnonzero(tree.action_ids[node] == action)
        if tree.kind[node] != DECISION or tree.player[node] != edge_kind or not len(found):
          raise ValueError(f"infoset {player.keys[infoset]!r}: action {action} has no public counterpart")
        node = int(tree.first_child[node] + found[0])
      if tree.kind[node] != DECISION or tree.player[node] != p:
        raise ValueError(f"infoset {player.keys[infoset]!r} does not reach a decision node of player {p}")
      node_of[infoset], hand_of[infoset] = position[node], hand_index[tuple(sorted(private[p * k : (p + 1) * k]))]
      for a, action in enumerate(player.action_ids[infoset]):
        if action >= 0:
          slot[infoset, a] = np.flatnonzero(tree.action_ids[node] == action)[0]
    decisions = tree.decision_nodes(p)
    pairs = set(zip(node_of.tolist(), hand_of.tolist()))
    expected = int(tree.valid[tree.board[decisions]].sum())
    if len(pairs) != player.num_infosets or len(pairs) != expected:
      raise ValueError(
        f"player {p}: {player.num_infosets} infosets map to {len(pairs)} distinct (node, hand) pairs of {expected}"
      )
    nodes.append(node_of)
    hands.append(hand_of)
    slots.append(slot)
  return SequenceFormMap(node=tuple(nodes), hand=tuple(hands), slot=tuple(slots))


def to_sequence_form(mapping: SequenceFormMap, profile) -> tuple:
  """([I_0, A_0, *B], [I_1, A_1, *B]) the sequence-form profile of a public-tree
  ``profile`` ([N_p, A, H, *B] each), through ``jaxcfr.kits.public_tree.tree.sequence_form_map``
  (its NumPy arrays are constants; 0 at padding)."""
  out = []
  for p, strategy in enumerate(profile):
    node, hand, slot = mapping.node[p], mapping.hand[p], mapping.slot[p]
    picked = strategy[node[:, None], jnp.maximum(slot, 0), hand[:, None]]  # [I, A_seq, *B]
    out.append(jnp.where(_expand_to(jnp.asarray(slot >= 0), picked.ndim), picked, 0))
  return tuple(out)


def _expand_to(x, ndim: int):
  return x.reshape(x.shape + (1,) * (ndim - x.ndim))
