"""The kits: one package per representation of games, behind one small interface
(jaxcfr.kits.registry: ``Kit``, ``CFROperations``), and the only place that knows their set.

- ``sequence_form``: exact sequence-form tensors, every algorithm;
- ``public_tree``: one node per public state, arrays over private hands (vector-form CFR);
- ``card_abstraction``: limit hold'em's card abstraction, played by sampling deals.

``load`` parses a game string once and asks the rules which kits can build them
(``GameInfo.representations``); ``of_game``/``of_tensors`` find a game's kit. A new
representation is one new kit package and one ``register`` line below.
"""

from jaxcfr.kits import registry
from jaxcfr.kits.registry import (
  CFROperations,
  Evaluator,
  GameSource,
  Kit,
  get,
  load,
  names,
  of_game,
  of_tensors,
  representation_of,
  representations_of,
  source,
)
from jaxcfr.kits import card_abstraction, public_tree, sequence_form

registry.register(sequence_form.KIT)
registry.register(public_tree.KIT)
registry.register(card_abstraction.KIT)

__all__ = [
  "CFROperations",
  "Evaluator",
  "GameSource",
  "Kit",
  "get",
  "load",
  "names",
  "of_game",
  "of_tensors",
  "representation_of",
  "representations_of",
  "source",
]
