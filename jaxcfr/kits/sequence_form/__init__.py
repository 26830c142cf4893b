"""The sequence-form kit: a game converted once into sequence-form tensors (Tree arrays,
each player's treeplex, the sequence-form payoff), exact for every two-player zero-sum game of
perfect recall, native or OpenSpiel's.

- ``arrays``, ``build``, ``vectorized``, ``row_sums``, ``tensors``: the host arrays, the two
  builders (a tree walk, and level by level for rules that offer ``vectorized()``), padded row
  tables, the device pytree ``GameTensors``;
- ``evaluation``: realization plans, sequence and counterfactual values, best responses,
  NashConv and exploitability; ``operations``: the CFR operations;
- ``sampling``, ``walk``, ``row_updates``: the tree-array walks of the sampled solvers;
- ``game``, ``checks``, ``evaluator``, ``strategy_file``, ``statistics``, ``openspiel``: the
  loaded game, its checks, metrics, files, statistics and OpenSpiel policies.
"""

from jaxcfr.kits.registry import Kit
from jaxcfr.kits.sequence_form import checks, evaluation, evaluator, strategy_file
from jaxcfr.kits.sequence_form.game import NAME, Game, build_arrays, load
from jaxcfr.kits.sequence_form.operations import SequenceFormOperations
from jaxcfr.kits.sequence_form.tensors import GameTensors

__all__ = ["NAME", "KIT", "Game", "GameTensors", "build_arrays", "load"]

KIT = Kit(
  name=NAME,
  summary="exact sequence-form tensors (treeplexes and the sparse payoff): every algorithm, exact best responses",
  load=load,
  tensors_type=GameTensors,
  evaluator=evaluator.evaluator,
  save_strategy=strategy_file.save,
  load_strategy=strategy_file.load,
  check_game=checks.check_game,
  check_profile=evaluation.check_profile,
  uniform_profile=evaluation.uniform_profile,
  example="kuhn_poker",
  best_response_values=evaluation.best_response_values,
  expected_value=evaluation.expected_value,
  operations=SequenceFormOperations,
)
