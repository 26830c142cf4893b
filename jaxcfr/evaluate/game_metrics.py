"""Game-specific metrics reported next to exploitability, chosen by the game (never by the
solver's family): today Kuhn poker's squared error to the equilibrium family and its
dominated-action error (jaxcfr.evaluate.kuhn; Ponsen, de Jong and Lanctot, "Computing
Approximate Nash Equilibria and Robust Best-Responses Using Sampling", 2011, Figure 4).
"""

from __future__ import annotations

from collections.abc import Callable

from jaxcfr.evaluate import kuhn

__all__ = ["for_game"]


def for_game(game) -> Callable | None:
  """``profile -> {name: [*B]}`` for a loaded game with known metrics, else None.

  The function is traceable (the driver jits it with the exact metrics) and the same object
  for every load of the same game (no recompilation)."""
  if kuhn.is_kuhn(game):
    return kuhn.metrics_function(game)
  return None
