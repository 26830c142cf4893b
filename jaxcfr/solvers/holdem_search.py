"""MCTS and MCRNR on limit hold'em's imperfect-recall abstraction (jaxcfr.kits.card_abstraction.game),
registered with jaxcfr.solvers.holdem_cfr.

``mcts`` (Ponsen et al. 2011, section 3.2.1; C = 17 in their hold'em experiment, section
3.3.2): statistics per infoset row ``(betting node, current bucket)``, visit counts
``n(I, a)`` and summed rewards ``W(I, a)`` (small bets). One simulation draws a deal and
walks the betting tree choosing at every decision the UCT action of eq. 2 (untried actions
first, ties broken at random; jaxcfr.solvers.mcts.uct_choice), then adds the terminal
reward of the acting player to every ``(I, a)`` on the path. Every infoset row exists from
the start (the tables are dense), so there is no separate expansion or rollout policy: the
rule of eq. 2 is applied all the way down, as the paper's on-policy simulation does. The
final policy is the normalised visit counts (uniform where never visited).

``mcrnr`` (Ponsen et al. 2011, Algorithm 2 and section 4.3.2): outcome-sampling MCCFR in
which the restricted player ``r`` (a hyperparameter, batchable) acts at every infoset by
``pConf * sigma_fix + (1 - pConf) * sigma_r`` (the paper's constant ``pConf = 0.75``,
"in essence a MCDBR"); ``sigma_fix`` is the opponent model (``model=``, a profile of
``[I_p, 3]`` tables, e.g. jaxcfr.kits.card_abstraction.match.rule_bot). The counter-strategy is
the other player's average strategy.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxcfr.base import regret
from jaxcfr.kits.sequence_form import sampling as sampling_lib
from jaxcfr.kits.card_abstraction import game as holdem
from jaxcfr.kits.card_abstraction import walk as betting_walk
from jaxcfr.solvers import mccfr, registry, restriction, holdem_cfr
from jaxcfr.solvers.mcts import uct_choice

__all__ = ["SearchState", "DEFAULT_C", "DEFAULT_PCONF"]

DEFAULT_C = 17.0
DEFAULT_PCONF = 0.75


class SearchState(NamedTuple):
  """One ``mcts`` run: visits ([I0, 3], [I1, 3]) int32, rewards ([I0, 3], [I1, 3]), key [2],
  uct_c [], iteration []."""

  visits: tuple
  rewards: tuple
  key: jax.Array
  uct_c: jax.Array
  iteration: jax.Array


def _mcts_init(game, *, seed=0, uct_c=DEFAULT_C) -> SearchState:
  zeros = tuple(jnp.zeros((n, 3), jnp.float32) for n in game.num_infosets)
  key = jax.random.key_data(jax.random.key(jnp.asarray(seed, jnp.uint32)))
  return SearchState(
    visits=tuple(z.astype(jnp.int32) for z in zeros),
    rewards=zeros,
    key=key,
    uct_c=jnp.asarray(uct_c, jnp.float32),
    iteration=jnp.zeros((), jnp.int32),
  )


def _mcts_step(game, state: SearchState) -> SearchState:
  arrays = game.arrays
  keys = sampling_lib.split_key(state.key, 3)
  deal = holdem.sample_deals(jax.random.wrap_key_data(keys[1]), 1)
  buckets = holdem.deal_buckets(game, deal)[0]
  sign = holdem.showdown_sign(deal)
  u = jax.random.uniform(jax.random.wrap_key_data(keys[2]), (betting_walk.max_depth(game.tree),))

  def policy(decision: betting_walk.Decision, ud):
    p, row = decision.seat, decision.row
    pick = lambda t: jnp.where(
      p == 0, t[0][jnp.clip(row, 0, t[0].shape[0] - 1)], t[1][jnp.clip(row, 0, t[1].shape[0] - 1)]
    )
    a = uct_choice(pick(state.visits), pick(state.rewards), decision.legal, state.uct_c, ud)
    return a, (decision.alive, p, row, a)

  last, (alive, p, row, a) = betting_walk.walk_betting(game, buckets, policy, u)
  u0 = holdem.terminal_utility(arrays, last[None], sign)[0] / holdem_cfr.SMALL_BET
  visits, rewards = [], []
  for q in (0, 1):
    size = state.visits[q].shape[0]
    rows = jnp.where(alive & (p == q), row, size)
    reward = u0 if q == 0 else -u0
    visits.append(state.visits[q].at[rows, a].add(1, mode="drop"))
    rewards.append(state.rewards[q].at[rows, a].add(reward, mode="drop"))
  return state._replace(visits=tuple(visits), rewards=tuple(rewards), key=keys[0], iteration=state.iteration + 1)


def _mcts_policy(game, state: SearchState):
  return tuple(
    regret.normalise(state.visits[p].astype(jnp.float32), holdem_cfr.legal_table(game, p), axis=-1) for p in (0, 1)
  )


def _mcts() -> registry.Solver:
  functions = registry.per_run(
    _mcts_init, ("seed", "uct_c"), step=_mcts_step, average_strategy=_mcts_policy, current_strategy=_mcts_policy
  )
  return registry.Solver(name="mcts", hyperparameters={"seed": 0, "uct_c": DEFAULT_C}, **functions)


class RestrictedState(NamedTuple):
  """One ``mcrnr`` run: the outcome-sampling state (``inner_state``), the model ([I0, 3],
  [I1, 3]), the restricted player [] and pConf []."""

  inner_state: holdem_cfr.HoldemState
  model: tuple
  restricted: jax.Array
  p: jax.Array

  @property
  def iteration(self):
    return self.inner_state.iteration


def _mcrnr_init(
  game, *, model, seed=0, epsilon=holdem_cfr.DEFAULT_EPSILON, p=DEFAULT_PCONF, restricted=1
) -> RestrictedState:
  return RestrictedState(
    inner_state=holdem_cfr.init(game, seed=seed, epsilon=epsilon),
    model=tuple(jnp.asarray(m, jnp.float32) for m in model),
    restricted=jnp.asarray(restricted, jnp.int32),
    p=jnp.asarray(p, jnp.float32),
  )


def _mcrnr_step(game, state: RestrictedState) -> RestrictedState:
  fixed = holdem_cfr.Fixed(tables=state.model, player=state.restricted, p=state.p)
  return state._replace(inner_state=holdem_cfr.step(game, state.inner_state, fixed=fixed))


def _mixed(game, state: RestrictedState, strategy):
  profile = strategy(game, state.inner_state)
  return tuple(
    jnp.where(state.restricted == q, state.p * state.model[q] + (1 - state.p) * profile[q], profile[q]) for q in (0, 1)
  )


def _mcrnr_counter(game, state: RestrictedState):
  """The counter-strategy for the unrestricted seat and the model for the restricted one."""
  average = holdem_cfr.average_strategy(game, state.inner_state)
  return tuple(jnp.where(state.restricted == q, state.model[q], average[q]) for q in (0, 1))


def _mcrnr() -> registry.Solver:
  functions = registry.per_run(
    _mcrnr_init,
    ("seed", "epsilon", "p", "restricted"),
    step=_mcrnr_step,
    average_strategy=lambda g, s: _mixed(g, s, holdem_cfr.average_strategy),
    current_strategy=lambda g, s: _mixed(g, s, holdem_cfr.current_strategy),
    counter_profile=_mcrnr_counter,
  )
  return registry.Solver(
    name="mcrnr",
    hyperparameters={"seed": 0, "epsilon": holdem_cfr.DEFAULT_EPSILON, "p": DEFAULT_PCONF, "restricted": 1},
    requires=("model",),
    **functions,
  )


registry.register(
  "mcts",
  _mcts,
  summary="information-set UCT on the card abstraction (Ponsen et al. 2011, 3.2.1)",
  representation="card_abstraction",
  hyperparameters=(
    registry.SEED,
    registry.Param("uct_c", float, DEFAULT_C, "C of UCT (eq. 2)", batchable=True, low=0.0, finite=True),
  ),
)
registry.register(
  "mcrnr",
  _mcrnr,
  summary="Monte-Carlo RNR on the card abstraction (Ponsen et al. 2011, Algorithm 2, constant pConf)",
  representation="card_abstraction",
  hyperparameters=(
    restriction.MODEL,
    registry.SEED,
    mccfr.EPSILON,
    registry.Param("p", float, DEFAULT_PCONF, restriction.P.help, batchable=True, low=0.0, high=1.0),
    restriction.RESTRICTED,
  ),
  requires=("model",),
)
