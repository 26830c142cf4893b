"""A game loaded on the public tree: what ``jaxcfr.load(..., representation="public_tree")``
returns (jaxcfr.game.loading), the host tree and its device pytree side by side.
"""

from __future__ import annotations

import dataclasses

import jax
import numpy as np

from jaxcfr.game import public_tree
from jaxcfr.game.representation import Representation
from jaxcfr.games import GameInfo

__all__ = ["PublicTreeGame"]


@dataclasses.dataclass(frozen=True)
class PublicTreeGame:
  """A game on the public tree (vector form).

  Attributes:
    name: the canonical game string.
    info: what the game declares about itself (jaxcfr.games.GameInfo).
    tree: the host PublicTree (NumPy; jaxcfr.game.public_tree).
    tensors: the device PublicTreeTensors, what the public-tree solvers take.
  """

  name: str
  info: GameInfo
  tree: public_tree.PublicTree
  tensors: public_tree.PublicTreeTensors

  @property
  def representation(self) -> Representation:
    return Representation.PUBLIC_TREE

  def statistics(self) -> dict:
    """Public nodes by kind, hands, decision nodes per player and the device bytes."""
    kinds = np.asarray(self.tree.kind)
    names = {public_tree.DECISION: "decision", public_tree.CHANCE: "chance", public_tree.FOLD: "fold"}
    names.update({public_tree.SHOWDOWN: "showdown", public_tree.PAYOFF: "payoff"})
    leaves = jax.tree_util.tree_leaves(self.tensors)
    return {
      "game": self.name,
      "representation": str(self.representation),
      "public_nodes": int(kinds.size),
      **{f"{label}_nodes": int((kinds == kind).sum()) for kind, label in names.items()},
      "hands": int(self.tree.num_hands),
      "decision_nodes_per_player": [int(self.tree.decision_nodes(p).size) for p in (0, 1)],
      "device_bytes": int(sum(leaf.nbytes for leaf in leaves)),
    }
