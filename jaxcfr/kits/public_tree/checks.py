"""The structural checks of a public tree: its nodes, deals, payoffs, ranges and card-removal
tables, as every build guarantees them (``build`` runs them; jaxcfr.kits.public_tree.conformance
checks profiles and loaded games)."""

from __future__ import annotations

import math

import numpy as np

from jaxcfr.games.poker_rules import CHANCE, DECISION, FOLD, LEAF, PAYOFF, SHOWDOWN, disjoint_pairs

__all__ = ["check"]


def check(tree) -> None:
  """Raises ValueError naming the first inconsistency of ``tree``'s (a PublicTree) structure, deals,
  payoffs, ranges or card-removal tables."""
  n, k = tree.rules.num_cards, tree.rules.hand_size
  size = tree.num_nodes
  depth = np.zeros(size, np.int64)
  for d in range(len(tree.depth_offsets) - 1):
    depth[tree.depth_offsets[d] : tree.depth_offsets[d + 1]] = d
  for node in range(size):
    kids = np.arange(tree.first_child[node], tree.first_child[node] + tree.num_children[node])
    if np.any(tree.parent[kids] != node) or np.any(depth[kids] != depth[node] + 1):
      raise ValueError(f"node {node}'s children are not contiguous or not one level down")
    terminal = tree.kind[node] in (FOLD, SHOWDOWN, PAYOFF, LEAF)
    if terminal != (len(kids) == 0):
      raise ValueError(f"node {node} of kind {tree.kind[node]} has {len(kids)} children")
    if tree.kind[node] == CHANCE:
      board = tree.board_cards(node)
      new = {tuple(sorted(set(tree.board_cards(c)) - set(board))) for c in kids}
      m = len(next(iter(new))) if new else 0
      expected = math.comb(n - len(board), m)
      prob = 1 / math.comb(n - 2 * k - len(board), m)
      if m == 0 or len(new) != len(kids) or len(kids) != expected or not np.allclose(tree.chance_prob[kids], prob):
        raise ValueError(f"chance node {node} does not deal every {m}-card combination once with probability {prob}")
    ids = tree.action_ids[node, : len(kids)].tolist()
    if tree.kind[node] == DECISION and (ids != sorted(set(ids)) or ids != tree.action[kids].tolist()):
      raise ValueError(f"decision node {node}'s action ids do not match its children")
    if tree.kind[node] == FOLD and tree.player[node] != tree.player[tree.parent[node]]:
      raise ValueError(f"fold node {node} is not folded by the player who acted")
  kids = tree.parent >= 0
  if np.any(tree.contribution[kids] < tree.contribution[tree.parent[kids]]):
    raise ValueError("a contribution decreases from a node to its child")
  blocked = np.array([np.isin(tree.hands, b[b >= 0]).any(1) for b in tree.boards])
  if np.any(tree.valid == blocked):
    raise ValueError("the valid masks do not match the boards")
  root = tree.initial_range * tree.valid[tree.board[0]]
  if tree.initial_range.shape != (2, tree.num_hands) or np.any(tree.initial_range < 0):
    raise ValueError(f"the initial ranges must be [2, {tree.num_hands}] and >= 0")
  joint = disjoint_pairs(tree.hands, root[0], root[1]) if tree.members else root[0].sum() * root[1].sum()
  if not np.isclose(joint, 1.0):
    raise ValueError(
      "the initial ranges do not make a joint distribution of the two hands (they sum to one over pairs)"
    )
  if bool(tree.members) != bool(tree.rules.card_removal):
    raise ValueError(
      f"card removal tables {'present' if tree.members else 'missing'} for rules.card_removal={tree.rules.card_removal}"
    )
  payoffs = tree.kind == PAYOFF
  if np.any((tree.payoff_index >= 0) != payoffs) or tree.payoff_tables.shape[1:] != (tree.num_hands,) * 2:
    raise ValueError("the payoff tables do not match the PAYOFF terminals")
  for s, (members, subsets) in enumerate(zip(tree.members, tree.subsets), 1):
    every_hand = tree.num_hands == math.comb(n, k)  # else the hands in play (tree.build): holder lists padded
    holders = members.shape[1] == math.comb(n - s, k - s) or not every_hand
    if members.shape[0] != math.comb(n, s) or not holders or subsets.shape != (tree.num_hands, math.comb(k, s)):
      raise ValueError(f"the {s}-card removal tables have shapes {members.shape}, {subsets.shape}")
    rows = np.repeat(np.arange(tree.num_hands), subsets.shape[1])
    if not np.all(np.any(members[subsets.ravel()] == rows[:, None], axis=1)):
      raise ValueError(f"a hand is missing from the holders of one of its {s}-card subsets")
  ordered = np.take_along_axis(tree.strength, tree.order, 1)
  if np.any(np.diff(ordered, axis=1) < 0) or np.any((tree.strength < 0) != ~tree.valid[tree.showdown_boards]):
    raise ValueError("the showdown order is not sorted by strength or marks a wrong hand invalid")
  for b in range(len(tree.showdown_boards)):
    group = np.take_along_axis(tree.strength[b], tree.order[b], 0)
    if np.any(group[tree.lo[b]] != tree.strength[b]) or np.any(group[tree.hi[b] - 1] != tree.strength[b]):
      raise ValueError(f"the tie groups of showdown board {b} are wrong")
