"""Game-specific metrics reported next to exploitability, chosen by the game (never by the
solver's family): the game declares a family by its GameInfo's ``metrics`` tag
(jaxcfr.games.GameInfo), and ``FAMILIES`` maps each tag to the functions that make them.
Today one family, ``"kuhn"``: Kuhn poker's squared error to the equilibrium family and its
dominated-action error (jaxcfr.evaluate.kuhn; Ponsen, de Jong and Lanctot, "Computing
Approximate Nash Equilibria and Robust Best-Responses Using Sampling", 2011, Figure 4).
"""

from __future__ import annotations

from collections.abc import Callable

from jaxcfr.evaluate import kuhn

__all__ = ["FAMILIES", "for_game"]

# metrics tag -> (the representation whose profiles it reads, loaded game -> profile -> {name: [*B]})
FAMILIES = {"kuhn": ("sequence_form", kuhn.metrics_function)}


def for_game(game) -> Callable | None:
  """``profile -> {name: [*B]}`` for a loaded game that declares a metrics family, in the
  representation the family reads, else None.

  The function is traceable (the driver jits it with the exact metrics) and the same object
  for every load of the same game (no recompilation). Raises ValueError for a tag that no
  family implements."""
  tag = game.info.metrics
  if tag is None:
    return None
  if tag not in FAMILIES:
    raise ValueError(f"game {game.name} declares metrics {tag!r}; the known families are {sorted(FAMILIES)}")
  representation, make = FAMILIES[tag]
  return make(game) if game.representation == representation else None
