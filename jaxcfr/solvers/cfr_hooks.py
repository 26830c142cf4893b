"""The typed hooks of the CFR iteration (jaxcfr.solvers.cfr): the parts of ``cfr.step`` that a
solver built on it replaces (RNR's and DBR's opponent plan and behaviour, RCFR's next strategy),
and the one player's update they see. Re-exported by jaxcfr.solvers.cfr."""

from __future__ import annotations

from typing import Any, NamedTuple
from collections.abc import Callable

import jax

__all__ = ["PlayerUpdate", "OpponentPlan", "Behaviour", "NextStrategy", "Hooks"]


class PlayerUpdate(NamedTuple):
  """One player's update within an iteration (each [I, A, *B]).

  Attributes:
    regrets: the cumulative regrets after the update (added and discounted).
    average: the normalised average-strategy accumulator after the update.
    instant: the instantaneous regrets ``r^t = q - v`` (0 at illegal actions).
    strategy: the player's next strategy (by default regret matching on ``regrets``, or on
      ``regrets + instant`` for the predictive PCFR+).
  """

  regrets: jax.Array
  average: jax.Array
  instant: jax.Array
  strategy: jax.Array


OpponentPlan = Callable[[int, jax.Array, jax.Array], jax.Array]
"""``opponent_plan(player, strategy [I, A, *B], plan [S, *B]) -> plan [S, *B]``: the realization
plan of ``player`` that the other player updates against (default: ``plan``, that of ``strategy``)."""

Behaviour = Callable[[int, jax.Array], jax.Array]
"""``behaviour(player, strategy [I, A, *B]) -> [I, A, *B]``: the strategy ``player`` follows below
each of its infosets when its counterfactual values are computed (default: ``strategy``)."""

NextStrategy = Callable[[int, PlayerUpdate, Any], tuple[PlayerUpdate, Any]]
"""``next_strategy(player, update, carry) -> (update, carry)``: replaces the player's update after
the regret and average updates, e.g. its next strategy (and regrets) from a regressor fit to
the regrets; ``carry`` is threaded through the players' updates in order (see ``step_with_carry``)."""


class Hooks(NamedTuple):
  """The parts of a CFR iteration that a solver built on it replaces (None: CFR's own).

  Attributes:
    opponent_plan: an OpponentPlan (jaxcfr.solvers.rnr: a restricted player's plan mixed
      with a fixed model's).
    behaviour: a Behaviour (jaxcfr.solvers.rnr's data-biased response: the model mixed in
      at every infoset); regrets are then those of the player's strategy at each infoset
      with the behaviour downstream.
    next_strategy: a NextStrategy (jaxcfr.solvers.rcfr: the next strategy by regret
      matching on a regressor's estimate of the regrets).
  """

  opponent_plan: OpponentPlan | None = None
  behaviour: Behaviour | None = None
  next_strategy: NextStrategy | None = None
