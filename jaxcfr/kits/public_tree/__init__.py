"""The public tree kit (vector-form CFR): one node per public state, arrays over each player's
private hands. Games whose private information is dealt by chance and whose actions are all
public declare it (poker of every kind, liar's dice).

- ``tree``: the host tree built from a game's public rules (``build``, ``public_tree_of``);
- ``checks``, ``conformance``: its structural checks, a profile's and a loaded game's;
- ``conversion``: the map onto the sequence form;
- ``device``: ``PublicTreeTensors``, what its solvers take (``to_device``);
- ``values``: ranges, terminal and counterfactual values, best responses, exploitability;
- ``operations``: the CFR operations and depth-limited leaves (``LeafValueFn``, ``LeafSolver``);
- ``game``, ``evaluator``, ``strategy_file``: the loaded game, its metrics, its files.
"""

from jaxcfr.base.params import Param
from jaxcfr.kits.registry import Kit
from jaxcfr.kits.public_tree.tree import *  # noqa: F403  (the host tree and the rules it is built from)
from jaxcfr.kits.public_tree.tree import __all__ as _tree_names
from jaxcfr.kits.public_tree import evaluator, strategy_file, values
from jaxcfr.kits.public_tree.checks import check
from jaxcfr.kits.public_tree.conformance import check_game, check_profile
from jaxcfr.kits.public_tree.conversion import SequenceFormMap, sequence_form_map, to_sequence_form
from jaxcfr.kits.public_tree.device import PublicTreeTensors, to_device
from jaxcfr.kits.public_tree.game import NAME, PublicTreeGame, load
from jaxcfr.kits.public_tree.operations import LeafSolver, LeafValueFn, PublicTreeOperations, leaf_values

__all__ = [
  *_tree_names,
  "check",
  "SequenceFormMap",
  "sequence_form_map",
  "to_sequence_form",
  "PublicTreeTensors",
  "to_device",
  "NAME",
  "PublicTreeGame",
  "load",
  "LeafSolver",
  "LeafValueFn",
  "PublicTreeOperations",
  "leaf_values",
  "KIT",
]

TERMINALS = Param(
  "terminals",
  str,
  "sorted",
  "public tree: showdowns by prefix sums over hands sorted by strength (O(H)) or dense [H, H] products",
  choices=("sorted", "dense"),
)


def operations(terminals: str = "sorted", leaf_fn=None) -> PublicTreeOperations:
  """The CFR operations with the ``terminals`` option (and a depth-limited tree's ``leaf_fn``)."""
  return PublicTreeOperations(dense=terminals == "dense", leaf_fn=leaf_fn)


KIT = Kit(
  name=NAME,
  summary="one node per public state with arrays over private hands (vector-form CFR): poker, liar's dice",
  load=load,
  tensors_type=PublicTreeTensors,
  evaluator=evaluator.evaluator,
  save_strategy=strategy_file.save,
  load_strategy=strategy_file.load,
  check_game=check_game,
  check_profile=check_profile,
  uniform_profile=values.uniform_profile,
  example="kuhn_poker",
  best_response_values=values.best_response_values,
  expected_value=values.expected_value,
  operations=operations,
  operation_options=(TERMINALS,),
)
