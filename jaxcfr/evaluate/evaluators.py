"""What the driver measures on a schedule, chosen by the game's representation.

- Sequence form (``ExactEvaluator``): NashConv and exploitability of the average strategy,
  its value for player 0, the exploitability of the current strategy, and the game's own
  metrics (jaxcfr.evaluate.game_metrics), all exact and jitted.
- The public tree (``PublicTreeEvaluator``): the same exact metrics computed on the public
  tree (jaxcfr.core.public_tree), and for a game that declares its big blind and pot, the
  exploitability in milli-big-blinds per game (``exploitability_mbb``) and as a percentage of
  the pot at the root (``exploitability_pot_percent``).
- Sampled games (``MatchEvaluator``): no exact metrics exist; each run's average strategy
  (a restricted solver's counter profile) plays duplicate deals against the game's rule bot
  (jaxcfr.evaluate.holdem_match), reported in small bets per hand with a 95% interval.

An evaluator is ``evaluator(solver, tensors, state, iteration) -> {name: value}`` (each value
``[*B]`` for a batch of runs) with ``headline`` (the metric the progress bar shows, the
larger over the batch when ``worst`` is "max", the smaller when "min") and
``describe(solver)`` (what the record says was measured).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

import jax
import numpy as np

from jaxcfr.core import evaluation, public_tree
from jaxcfr.evaluate import game_metrics, holdem_match
from jaxcfr.game.representation import Representation

__all__ = [
  "Evaluator",
  "ExactEvaluator",
  "PublicTreeEvaluator",
  "MatchEvaluator",
  "exact_metrics",
  "for_game",
]

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


@functools.partial(jax.jit, static_argnums=(0, 1))
def _measure(solver, extra, tensors, state) -> dict:
  return exact_metrics(tensors, state, solver=solver, extra=extra)


class Evaluator:
  """The protocol: ``__call__(solver, tensors, state, iteration) -> dict``, ``headline``,
  ``worst`` ("max" or "min": which run of a batch the progress bar shows) and
  ``describe(solver) -> dict`` (what the record says was measured)."""

  headline: str
  worst: str

  def describe(self, solver) -> dict:
    raise NotImplementedError

  def __call__(self, solver, tensors, state, iteration: int) -> dict:
    raise NotImplementedError


@dataclasses.dataclass(frozen=True)
class ExactEvaluator(Evaluator):
  """Exact metrics of the sequence form; ``extra`` the game's own (Kuhn's errors) or None."""

  extra: Callable | None = None
  headline: str = "exploitability"
  worst: str = "max"

  def describe(self, solver) -> dict:
    del solver
    return {"evaluation": "exact (sequence-form best responses)"}

  def __call__(self, solver, tensors, state, iteration: int) -> dict:
    del iteration
    return _measure(solver, self.extra, tensors, state)


@functools.partial(jax.jit, static_argnums=(0,))
def _measure_public(solver, tensors, state) -> dict:
  average = solver.average_strategy(tensors, state)
  best = public_tree.best_response_values(tensors, average)
  current = public_tree.best_response_values(tensors, solver.current_strategy(tensors, state))
  return {
    "nash_conv": best.sum(0),
    "exploitability": best.sum(0) / 2,
    "value": public_tree.expected_value(tensors, average),
    "current_exploitability": current.sum(0) / 2,
  }


@dataclasses.dataclass(frozen=True)
class PublicTreeEvaluator(Evaluator):
  """Exact metrics on the public tree; ``big_blind`` and ``pot`` (the game's declaration, or
  None) add the exploitability in mbb/g and in percent of the pot."""

  big_blind: float | None = None
  pot: float | None = None
  headline: str = "exploitability"
  worst: str = "max"

  def describe(self, solver) -> dict:
    del solver
    return {"evaluation": "exact (best responses on the public tree)"}

  def __call__(self, solver, tensors, state, iteration: int) -> dict:
    del iteration
    values = dict(_measure_public(solver, tensors, state))
    if self.big_blind:
      values["exploitability_mbb"] = values["exploitability"] * (1000.0 / self.big_blind)
    if self.pot:
      values["exploitability_pot_percent"] = values["exploitability"] * (100.0 / self.pot)
    return values


@dataclasses.dataclass(frozen=True)
class MatchEvaluator(Evaluator):
  """Each run's strategy against the rule bot over ``deals`` duplicate deals (sb/h, 95%)."""

  game: object
  deals: int = 512
  headline: str = "sb_per_hand_vs_bot"
  worst: str = "min"

  def describe(self, solver) -> dict:
    return {
      "evaluation": "sampled duplicate matches against the rule bot, small bets per hand with 95% intervals",
      "opponent": "rule bot (a stand-in for Ponsen et al. 2011's commercial bots)",
      "eval_deals": self.deals,
      "scored": "counter-profile" if solver.counter_profile else "average strategy",
    }

  def __call__(self, solver, tensors, state, iteration: int) -> dict:
    scored = solver.counter_profile or solver.average_strategy
    profile = scored(tensors, state)
    bot = holdem_match.rule_bot(self.game)
    batch = profile[0].shape[2:]
    runs = int(np.prod(batch)) if batch else 1
    flat = tuple(np.asarray(s).reshape(s.shape[:2] + (runs,)) for s in profile)
    key = jax.random.PRNGKey(10_000 + iteration)
    rows = [holdem_match.match(self.game, tuple(s[..., b] for s in flat), bot, key, self.deals) for b in range(runs)]
    shape = batch or ()
    return {
      "sb_per_hand_vs_bot": np.array([r["sb_per_hand"] for r in rows]).reshape(shape),
      "ci95": np.array([r["ci95"] for r in rows]).reshape(shape),
    }


def for_game(game) -> Evaluator:
  """The evaluator of a loaded game's representation."""
  if game.representation == Representation.SAMPLED:
    return MatchEvaluator(game)
  if game.representation == Representation.SEQUENCE_FORM:
    return ExactEvaluator(game_metrics.for_game(game))
  if game.representation == Representation.PUBLIC_TREE:
    return PublicTreeEvaluator(big_blind=game.info.big_blind, pot=game.info.pot)
  raise ValueError(f"no evaluator for the {game.representation} representation of {game.name}")
