"""Monte-Carlo Restricted Nash Response on outcome sampling (Ponsen, de Jong and Lanctot,
"Computing Approximate Nash Equilibria and Robust Best-Responses Using Sampling", 2011,
section 4.2, Algorithm 2).

RNR's modified game (Johanson et al. 2007 section 5) starts with a hidden coin: with probability ``p``
the restricted player ``r`` follows the fixed model ``sigma_fix`` for the whole game (the
"restricted subtree"), otherwise its free strategy. MCRNR is outcome-sampling MCCFR
(jaxcfr.solvers.outcome_sampling) on that game. Every sampled trajectory first draws the coin
(a chance event drawn with its own probability, so it cancels from every sampled value,
Lanctot et al. 2009, eq. 10). In the model's subtree ``r`` acts by ``sigma_fix`` (Algorithm 2 line 8) and
its regrets and average are not updated (the model's copy of ``r`` has none); the
unrestricted player ``u`` cannot see the coin and updates as in plain outcome sampling.
``u``'s average strategy is the counter-strategy. In expectation the updates are RNR's
counterfactual regrets (jaxcfr.solvers.rnr): ``u``'s against ``y_eff = p y_fix + (1 - p) y`` and
``(1 - p)`` times the free part's (tests/test_mcrnr.py checks both means).

As in our outcome sampling and unlike Algorithm 2 as printed: the players'
updates alternate (one walk each, the updating player epsilon-greedy, the other on-policy,
like OpenSpiel's solver), each walk draws ``K`` trajectories, and the average is
stochastically weighted by default (``averaging="optimistic"`` is line 16). The paper
switches the restricted player between iterations and pairs the two counter-strategies;
here the restricted player is a leaf of the state, so both are runs of one batch
(``paired_profile`` pairs them as Ponsen et al. 2011 Figure 7 does).

The solver steps one run; the registry batches runs (``p``, ``restricted``, ``seed``,
``epsilon`` of shape ``B``) over trailing axes by ``vmap``, the model shared by all.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxcfr.kits.sequence_form.tensors import GameTensors
from jaxcfr.solvers import mccfr, mccfr_state, outcome_sampling, registry
from jaxcfr.solvers.restriction import MODEL, RESTRICTED, P, check_model, check_restriction, counter_of

__all__ = ["MCRNRState", "check", "init", "model_subtree", "step", "paired_profile", "solver"]


class MCRNRState(NamedTuple):
  """One MCRNR run (a batch has trailing axes ``B`` on every leaf).

  Attributes:
    inner_state: the MCCFRState of both players (the restricted player's entries are its free part).
    p: [] probability of the model's subtree.
    restricted: [] int32, the restricted player.
    model: ([I0, A0], [I1, A1]) the fixed model profile (only the restricted player's is read).
  """

  inner_state: mccfr_state.MCCFRState
  p: jax.Array
  restricted: jax.Array
  model: tuple

  @property
  def iteration(self) -> jax.Array:
    return self.inner_state.iteration


def check(tensors: GameTensors, *, model=None, p=None, restricted=1, epsilon=mccfr_state.DEFAULT_EPSILON, **_):
  """Raises ValueError for a missing or out-of-range p, restricted player, epsilon or model."""
  if p is None:
    raise ValueError("mcrnr needs p, the probability of the model's subtree")
  check_restriction(p, restricted)
  mccfr_state.check(tensors, epsilon=epsilon)
  check_model(tensors, model)


def init(
  tensors: GameTensors, *, model=None, p=None, restricted=1, seed=0, epsilon=mccfr_state.DEFAULT_EPSILON
) -> MCRNRState:
  """A fresh state of one run."""
  check(tensors, model=model, p=p, restricted=restricted, epsilon=epsilon)
  dtype = tensors.dtype
  return MCRNRState(
    inner_state=mccfr_state.init(tensors, seed=seed, epsilon=epsilon),
    p=jnp.asarray(p, dtype),
    restricted=jnp.asarray(restricted, jnp.int32),
    model=tuple(jnp.asarray(s, dtype) for s in model),
  )


def model_subtree(state: MCRNRState, key: jax.Array, player: int, *, trajectories: int):
  """Algorithm 2's hidden coin for the walk of ``player`` with ``key``: each trajectory
  lies in the model's subtree with probability ``p`` (drawn from ``key`` folded with 1, so
  the walk's own random numbers are those of plain outcome sampling). There the
  restricted player acts by the model (lines 7-8) and, if it is ``player``, is not updated.

  Returns:
    (outcome_sampling.Override, keep [K] bool) for outcome_sampling.outcome_step.
  """
  coin = jax.random.fold_in(jax.random.wrap_key_data(key), 1)
  fixed = jax.random.uniform(coin, (trajectories,)) < state.p
  keep = ~(fixed & (state.restricted == player))
  return outcome_sampling.Override(state.model, state.restricted, fixed), keep


def step(
  tensors: GameTensors,
  state: MCRNRState,
  *,
  trajectories: int,
  averaging: str,
  exploring: str = "updating",
  updates: str = "alternating",
) -> MCRNRState:
  """One MCRNR iteration of one run (an outcome-sampling update of each player, alternating:
  the model's subtree is chosen per walk)."""
  override = functools.partial(model_subtree, state, trajectories=trajectories)
  inner_state = outcome_sampling.outcome_step(
    tensors,
    state.inner_state,
    trajectories=trajectories,
    averaging=averaging,
    override=override,
    exploring=exploring,
    updates=updates,
  )
  return state._replace(inner_state=inner_state)


def _average(tensors: GameTensors, state: MCRNRState):
  return mccfr_state.average_strategy(tensors, state.inner_state)


def _current(tensors: GameTensors, state: MCRNRState):
  return mccfr_state.current_strategy(tensors, state.inner_state)


def _counter(tensors: GameTensors, state: MCRNRState):
  return counter_of(_average(tensors, state), state.restricted, state.model)


def paired_profile(tensors: GameTensors, state: MCRNRState, solver: registry.Solver):
  """Ponsen et al. (2011) Figure 7's profile from a batch [2 B] whose first half restricts
  player 1 and second half player 0 (same p, seeds in order): player 0's counter-strategy
  from the first half and player 1's from the second, each [I, A, B]."""
  average = solver.average_strategy(tensors, state)
  half = state.p.shape[-1] // 2
  return average[0][..., :half], average[1][..., half:]


def solver(*, trajectories: int = 1, averaging: str = "stochastic", exploring: str = "updating") -> registry.Solver:
  """The registered ``mcrnr`` solver.

  ``init(tensors, *, model, p, restricted=1, seed=0, epsilon=0.6)``; options as the
  outcome-sampling solver's (``jaxcfr.solvers.get("mccfr-os", ...)``).
  """
  base = mccfr.outcome_sampling_solver(trajectories=trajectories, averaging=averaging, exploring=exploring)
  hyperparameters = {"p": None, "restricted": 1, **base.hyperparameters}
  one_step = functools.partial(step, **base.options)
  return registry.Solver(
    name="mcrnr",
    hyperparameters=hyperparameters,
    options=dict(base.options),
    requires=("model", "p"),
    counters=lambda state: mccfr.counters(state.inner_state),
    **registry.per_run(
      init,
      hyperparameters,
      check=check,
      step=one_step,
      average_strategy=_average,
      current_strategy=_current,
      counter_profile=_counter,
    ),
  )


registry.register(
  "mcrnr",
  solver,
  summary="Monte-Carlo restricted Nash response on outcome sampling (Ponsen et al. 2011, Algorithm 2)",
  options=(mccfr.TRAJECTORIES, mccfr.AVERAGING, mccfr.EXPLORING),
  hyperparameters=(P, RESTRICTED, MODEL, registry.SEED, mccfr.EPSILON),
  requires=("model", "p"),
)
