"""The CFR operations of the public tree (jaxcfr.kits.registry.CFROperations): strategy
tables ``[N_p, A, H, *B]`` over each player's decision nodes, action slots and private hands,
reaches as ranges ``[N, H, *B]`` (jaxcfr.kits.public_tree.values), and a depth-limited tree's
leaf values asked of a ``LeafValueFn`` or a ``LeafSolver`` with both players' ranges.

The counterfactual values of one public node are those of the sequence form's infosets at it
scaled by one positive constant, so CFR's iterates on the public tree are the sequence form's
(tests/test_public_tree.py checks them to 1e-12 in float64).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxcfr.kits.public_tree import values as ops
from jaxcfr.kits.public_tree.device import PublicTreeTensors

__all__ = ["LeafValueFn", "LeafSolver", "PublicTreeOperations", "leaf_values"]

LeafValueFn = Callable[[PublicTreeTensors, jax.Array], jax.Array]
"""``leaf_fn(tree, ranges)``: ``ranges`` [2, L, H, *B], both players' ranges at the tree's
``L`` leaves (``tree.leaf_nodes``) -> [2, L, H, *B] both players' counterfactual values
there (in the public tree's units: jaxcfr.kits.public_tree.values)."""


class LeafSolver(NamedTuple):
  """A leaf value function with a state carried across a solve's iterations (a solve of the
  game below the leaves warm-started from the last call's: jaxcfr.solvers.lookahead's
  ``warm_leaf_values``); accepted wherever a ``LeafValueFn`` is.

  Attributes:
    init: ``init(tree, batch) -> leaf_state`` for the depth-limited ``tree`` and the run's
      batch shape ``batch``.
    apply: ``apply(tree, ranges, leaf_state) -> (values, leaf_state)``, ``LeafValueFn``'s
      ranges and values.
  """

  init: Callable
  apply: Callable


def _leaf_call(tree, leaf_fn, reach, leaf_state) -> tuple:
  """The values at the leaves ([2, L, H, *B], or None for a tree without leaves) and the leaf
  state after the call."""
  if tree.leaf_nodes.shape[0] == 0:
    return None, leaf_state
  if leaf_fn is None:
    raise ValueError(f"the tree has {tree.leaf_nodes.shape[0]} depth-limit leaves: give a leaf_fn for their values")
  ranges = jnp.stack([r[tree.leaf_nodes] for r in reach])
  if isinstance(leaf_fn, LeafSolver):
    return leaf_fn.apply(tree, ranges, leaf_state)
  return leaf_fn(tree, ranges), leaf_state


def leaf_values(
  tree: PublicTreeTensors, leaf_fn: LeafValueFn | LeafSolver | None, reach, leaf_state: tuple = ()
) -> jax.Array | None:
  """[2, L, H, *B] ``leaf_fn``'s values at the leaves given both players' ranges ``reach``
  ([N, H, *B] each) (a ``LeafSolver`` from ``leaf_state``), or None for a tree without
  leaves."""
  return _leaf_call(tree, leaf_fn, reach, leaf_state)[0]


@dataclasses.dataclass(frozen=True)
class PublicTreeOperations:
  """The public tree's operations.

  Attributes:
    dense: terminal values by [H, H] products instead of sorted prefix sums.
    leaf_fn: the values at a depth-limited tree's leaves (a ``LeafValueFn`` or a
      ``LeafSolver``), or None for a tree without leaves.
  """

  dense: bool = False
  leaf_fn: LeafValueFn | LeafSolver | None = None

  def batch_shape(self, tensors: PublicTreeTensors) -> tuple:
    return tuple(tensors.initial_range.shape[2:])

  def uniform(self, tensors: PublicTreeTensors, player: int):
    return ops.uniform_strategy(tensors, player)

  def legal(self, tensors: PublicTreeTensors, player: int, ndim: int):
    legal = tensors.legal[player]
    return legal.reshape(legal.shape + (1,) * (ndim - 2))

  def reach(self, tensors: PublicTreeTensors, player: int, strategy, root=None):
    return ops.ranges(tensors, player, strategy, root)

  def decision_reach(self, tensors: PublicTreeTensors, player: int, reach):
    return reach[tensors.decision_nodes[player]]

  def context(self, tensors: PublicTreeTensors, reaches, kit_state) -> tuple:
    return _leaf_call(tensors, self.leaf_fn, reaches, kit_state)

  def values(self, tensors: PublicTreeTensors, player: int, strategy, opponent_reach, context) -> tuple:
    leaves = None if context is None else context[player]
    values = ops.counterfactual_values(tensors, player, strategy, opponent_reach, dense=self.dense, leaf_values=leaves)
    return ops.action_values(tensors, player, values), values[tensors.decision_nodes[player]], values

  def kept_values(self, tensors: PublicTreeTensors, batch: tuple, keep_values: bool):
    """[2, K, H, *B] zeros: both players' values at every node (``K = N``) or the root."""
    nodes = tensors.kind.shape[0] if keep_values else 1
    return jnp.zeros((2, nodes, tensors.num_hands) + tuple(batch), tensors.dtype)

  def init_leaf_state(self, tensors: PublicTreeTensors, batch: tuple):
    """The leaf solver's state for a run of batch shape ``batch`` (``()`` without one)."""
    return self.leaf_fn.init(tensors, batch) if isinstance(self.leaf_fn, LeafSolver) else ()
