"""The CFR operations of the sequence form (jaxcfr.kits.registry.CFROperations): strategy
tables ``[I, A, *B]`` over each player's infosets, reaches as realization plans ``[S, *B]``,
values from the sequence-form payoff (Lanctot et al. 2009, eq. 4-5)."""

from __future__ import annotations

import dataclasses

from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.kits.sequence_form.tensors import GameTensors

__all__ = ["SequenceFormOperations"]


@dataclasses.dataclass(frozen=True)
class SequenceFormOperations:
  """The sequence form's operations (no options)."""

  def batch_shape(self, tensors: GameTensors) -> tuple:
    del tensors
    return ()

  def uniform(self, tensors: GameTensors, player: int):
    return evaluation.uniform_strategy(tensors.players[player], tensors.dtype)

  def legal(self, tensors: GameTensors, player: int, ndim: int):
    return evaluation.expand_to(tensors.players[player].legal, ndim)

  def reach(self, tensors: GameTensors, player: int, strategy, root=None):
    if root is not None:
      raise ValueError("the sequence form has no root ranges to set")
    return evaluation.realization_plan(tensors.players[player], strategy)

  def decision_reach(self, tensors: GameTensors, player: int, reach):
    return evaluation.parent_reach(tensors.players[player], reach)

  def context(self, tensors: GameTensors, reaches, kit_state) -> tuple:
    del tensors, reaches
    return None, kit_state

  def values(self, tensors: GameTensors, player: int, strategy, opponent_reach, context) -> tuple:
    del context
    seq_values = evaluation.sequence_values_for(tensors.payoff, player, opponent_reach)
    q, v = evaluation.counterfactual_values(tensors.players[player], seq_values, strategy)
    return q, v, None

  def kept_values(self, tensors: GameTensors, batch: tuple, keep_values: bool):
    del tensors, batch
    if keep_values:
      raise ValueError("the sequence form keeps no values in its CFR state (keep_values is the public tree's)")
    return ()

  def init_leaf_state(self, tensors: GameTensors, batch: tuple):
    del tensors, batch
    return ()
