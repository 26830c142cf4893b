"""The card abstraction's evaluator: no exact metrics exist, so each run's average strategy (a
restricted solver's counter profile) plays duplicate deals against the game's rule bot
(jaxcfr.kits.card_abstraction.match), reported in small bets per hand with a 95% interval."""

from __future__ import annotations

import dataclasses

import jax
import numpy as np

from jaxcfr.kits.card_abstraction import match

__all__ = ["MatchEvaluator", "evaluator"]


@dataclasses.dataclass(frozen=True)
class MatchEvaluator:
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
    bot = match.rule_bot(self.game)
    batch = profile[0].shape[2:]
    runs = int(np.prod(batch)) if batch else 1
    flat = tuple(np.asarray(s).reshape(s.shape[:2] + (runs,)) for s in profile)
    key = jax.random.PRNGKey(10_000 + iteration)
    rows = [match.match(self.game, tuple(s[..., b] for s in flat), bot, key, self.deals) for b in range(runs)]
    shape = batch or ()
    return {
      "sb_per_hand_vs_bot": np.array([r["sb_per_hand"] for r in rows]).reshape(shape),
      "ci95": np.array([r["ci95"] for r in rows]).reshape(shape),
    }


def evaluator(game, extra=None) -> MatchEvaluator:
  """The kit's evaluator of ``game`` (no game-specific metrics)."""
  del extra
  return MatchEvaluator(game)
