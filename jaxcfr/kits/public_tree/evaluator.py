"""The public tree's evaluator: exact metrics on the public tree (jaxcfr.kits.public_tree.values),
jitted (``light_jit``: it runs rarely); for a game that declares its big blind and pot, the
exploitability in mbb/g and in percent of the pot (jaxcfr.base.units)."""

from __future__ import annotations

import dataclasses
import functools

from jaxcfr.base import units
from jaxcfr.base.light_jit import light_jit
from jaxcfr.games import GameInfo
from jaxcfr.kits.public_tree import values as ops

__all__ = ["PublicTreeEvaluator", "evaluator"]


@functools.partial(light_jit, static_argnums=(0,))
def _measure(solver, tensors, state) -> dict:
  average = solver.average_strategy(tensors, state)
  best, current, value = ops.evaluation(tensors, average, solver.current_strategy(tensors, state))
  return {
    "nash_conv": best.sum(0),
    "exploitability": best.sum(0) / 2,
    "value": value,
    "current_exploitability": current.sum(0) / 2,
  }


@dataclasses.dataclass(frozen=True)
class PublicTreeEvaluator:
  """Exact metrics on the public tree, in the units ``info`` declares."""

  info: GameInfo = GameInfo()
  headline: str = "exploitability"
  worst: str = "max"

  def describe(self, solver) -> dict:
    del solver
    return {"evaluation": "exact (best responses on the public tree)"}

  def __call__(self, solver, tensors, state, iteration: int) -> dict:
    del iteration
    values = dict(_measure(solver, tensors, state))
    return {**values, **units.exploitability_units(values["exploitability"], self.info)}


def evaluator(game, extra=None) -> PublicTreeEvaluator:
  """The kit's evaluator of ``game`` (the game's own metrics, ``extra``, are the sequence
  form's: not taken here)."""
  del extra
  return PublicTreeEvaluator(game.info)
