"""The representations a game can take, each with its own solvers and evaluator.

A loaded game declares its ``representation``; a registered solver declares the
representations it accepts (jaxcfr.solvers.registry); the driver picks the evaluator by
representation (jaxcfr.evaluate.evaluators).

- ``SEQUENCE_FORM``: the exact sequence-form tensors (``GameTensors``): every CFR-family
  solver, exact best response and exploitability.
- ``SAMPLED``: a game played by sampling deals and actions, with no tensors (limit hold'em's
  card abstraction, ``HoldemGame``): sampled solvers, scored by sampled matches.
- ``PUBLIC_TREE``: one node per public state with arrays over each player's private hands
  (vector-form CFR; jaxcfr.game.public_tree).
"""

from __future__ import annotations

import enum

__all__ = ["Representation"]


class Representation(str, enum.Enum):
  """A representation of a game; its value is the name used in messages and on the command line."""

  SEQUENCE_FORM = "sequence_form"
  SAMPLED = "sampled"
  PUBLIC_TREE = "public_tree"

  def __str__(self) -> str:
    return self.value
