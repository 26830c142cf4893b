"""A game loaded on the public tree: what ``jaxcfr.load(..., representation="public_tree")``
returns, the host tree and its device pytree side by side, and the kit's loader."""

from __future__ import annotations

import dataclasses

import jax
import numpy as np

from jaxcfr.games import GameInfo
from jaxcfr.kits.public_tree import tree as public_tree
from jaxcfr.kits.public_tree.device import PublicTreeTensors, to_device
from jaxcfr.kits.registry import GameSource

__all__ = ["NAME", "PublicTreeGame", "load"]

NAME = "public_tree"


@dataclasses.dataclass(frozen=True)
class PublicTreeGame:
  """A game on the public tree (vector form).

  Attributes:
    name: the canonical game string.
    info: what the game declares about itself (jaxcfr.games.GameInfo).
    tree: the host PublicTree (NumPy; jaxcfr.kits.public_tree.tree).
    tensors: the device PublicTreeTensors, what the public-tree solvers take.
  """

  name: str
  info: GameInfo
  tree: public_tree.PublicTree
  tensors: PublicTreeTensors

  @property
  def representation(self) -> str:
    return NAME

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


def load(source: GameSource, *, dtype=None, use_cache: bool = True) -> PublicTreeGame:
  """The kit's loader: the public tree of ``source``'s rules (``public_tree_rules()``), built
  and moved to the device in ``dtype``. Not cached: the build is priced as it grows
  (jaxcfr.base.memory) and takes seconds at most."""
  del use_cache
  tree = public_tree.public_tree_of(source.rules, source.name)
  return PublicTreeGame(name=source.name, info=source.info, tree=tree, tensors=to_device(tree, dtype))
