"""The sequence form's evaluator: exact metrics, jitted (``light_jit``: it runs rarely).

NashConv and exploitability of the average strategy, its value for player 0, the
exploitability of the current strategy, the game's own metrics (``extra``, e.g. Kuhn's
errors), and for a game that declares its big blind and pot the exploitability in mbb/g and
in percent of the pot (jaxcfr.base.units).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

from jaxcfr.base import units
from jaxcfr.base.light_jit import light_jit
from jaxcfr.games import GameInfo
from jaxcfr.kits.sequence_form import evaluation

__all__ = ["EXACT_METRICS", "exact_metrics", "ExactEvaluator", "evaluator"]

EXACT_METRICS = ("exploitability", "nash_conv", "value", "current_exploitability")


def exact_metrics(tensors, state, *, solver, extra: Callable | None = None) -> dict:
  """Exact metrics of a state (each [*B] for a batch): NashConv and exploitability of the
  average strategy, its value for player 0, and the exploitability of the current strategy;
  ``extra(profile) -> dict``, the game's own metrics of the average strategy, if given."""
  average = solver.average_strategy(tensors, state)
  best = evaluation.best_response_values(tensors, average)
  current = evaluation.best_response_values(tensors, solver.current_strategy(tensors, state))
  values = {
    "nash_conv": best.sum(0),
    "exploitability": best.sum(0) / 2,
    "value": evaluation.expected_value(tensors, average),
    "current_exploitability": current.sum(0) / 2,
  }
  if extra is not None:
    values.update(extra(average))
  return values


@functools.partial(light_jit, static_argnums=(0, 1))
def _measure(solver, extra, tensors, state) -> dict:
  return exact_metrics(tensors, state, solver=solver, extra=extra)


@dataclasses.dataclass(frozen=True)
class ExactEvaluator:
  """Exact metrics of the sequence form; ``extra`` the game's own (Kuhn's errors) or None;
  ``info`` the game's declaration (its units)."""

  extra: Callable | None = None
  info: GameInfo = GameInfo()
  headline: str = "exploitability"
  worst: str = "max"

  def describe(self, solver) -> dict:
    del solver
    return {"evaluation": "exact (sequence-form best responses)"}

  def __call__(self, solver, tensors, state, iteration: int) -> dict:
    del iteration
    values = dict(_measure(solver, self.extra, tensors, state))
    return {**values, **units.exploitability_units(values["exploitability"], self.info)}


def evaluator(game, extra: Callable | None = None) -> ExactEvaluator:
  """The kit's evaluator of ``game``."""
  return ExactEvaluator(extra, game.info)
