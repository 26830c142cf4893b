"""Monte-Carlo Restricted Nash Response (paper 000 section 4.2, Algorithm 2) on outcome
sampling (DESIGN section 5, "Opponent exploitation").

RNR's modified game (paper 003 section 5) starts with a hidden coin: with probability ``p``
the restricted player ``r`` follows the fixed model ``sigma_fix`` for the whole game (the
"restricted subtree"), otherwise its free strategy. MCRNR is outcome-sampling MCCFR
(jaxcfr.mccfr, ``mccfr-os``) on that game. Every sampled trajectory first draws the coin
(a chance event drawn with its own probability, so it cancels from every sampled value,
002 eq. 10). In the model's subtree ``r`` acts by ``sigma_fix`` (Algorithm 2 line 8) and
its regrets and average are not updated (the model's copy of ``r`` has none); the
unrestricted player ``u`` cannot see the coin and updates as in plain outcome sampling.
``u``'s average strategy is the counter-strategy. In expectation the updates are RNR's
counterfactual regrets (jaxcfr.rnr): ``u``'s against ``y_eff = p y_fix + (1 - p) y`` and
``(1 - p)`` times the free part's (tests/test_mcrnr.py checks both means).

As in jaxcfr.mccfr's outcome sampling and unlike Algorithm 2 as printed: the players'
updates alternate (one walk each, the updating player epsilon-greedy, the other on-policy,
like OpenSpiel's solver), each walk draws ``K`` trajectories, and the average is
stochastically weighted by default (``averaging="optimistic"`` is line 16). The paper
switches the restricted player between iterations and pairs the two counter-strategies;
here the restricted player is a leaf of the state, so both are runs of one batch
(``paired_profile`` pairs them as paper 000 Figure 7 does).

A batch (``p``, ``restricted``, ``seed`` of shape [B]) is one program: ``vmap`` over the
sampler states, leading axis [B]; the model is shared. ``counter_profile`` returns
trailing batch axes ([I, A, B]) like jaxcfr.rnr, so rnr.evaluate_counter scores both.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr import cfr, mccfr, rnr
from jaxcfr.tensors import GameTensors


class MCRNRState(NamedTuple):
  """One MCRNR run, or a batch with a leading axis [B] on every leaf but the model.

  Attributes:
    sampler: the mccfr.MCCFRState of both players (the restricted player's entries are its
      free part).
    p: [] or [B], probability of the model's subtree.
    restricted: [] or [B] int32, the restricted player.
    model: ([I0, A0], [I1, A1]) the fixed model profile (only the restricted player's is read).
  """

  sampler: mccfr.MCCFRState
  p: jax.Array
  restricted: jax.Array
  model: tuple


def _batched(state: MCRNRState) -> bool:
  return state.p.ndim == 1


def init(tensors: GameTensors, model, *, p, restricted=1, seed=0, epsilon=mccfr.DEFAULT_EPSILON) -> MCRNRState:
  """A fresh state; ``p``, ``restricted``, ``seed`` and ``epsilon`` are scalars or [B] arrays
  (broadcast together; any [B] makes a batch)."""
  dtype = tensors.dtype
  p, restricted = jnp.asarray(p, dtype), jnp.asarray(restricted, jnp.int32)
  seed, epsilon = jnp.asarray(seed, jnp.int32), jnp.asarray(epsilon, dtype)
  shape = jnp.broadcast_shapes(p.shape, restricted.shape, seed.shape, epsilon.shape)
  if len(shape) > 1:
    raise ValueError(f"MCRNR batches have one axis; got shape {shape}")
  rnr.check_restriction(p, restricted)
  rnr.check_model(tensors, model)
  model = tuple(jnp.asarray(s, dtype) for s in model)
  p, restricted, seed, epsilon = (jnp.broadcast_to(x, shape) for x in (p, restricted, seed, epsilon))
  fresh = functools.partial(mccfr.init, tensors)
  sampler = jax.vmap(fresh)(seed=seed, epsilon=epsilon) if shape else fresh(seed=seed, epsilon=epsilon)
  return MCRNRState(sampler=sampler, p=p, restricted=restricted, model=model)


def _step(tensors: GameTensors, state: MCRNRState, *, trajectories: int, averaging: str,
          chance_width: int | None) -> MCRNRState:
  def one(sampler, p, restricted):
    return mccfr.outcome_step(tensors, sampler, trajectories=trajectories, averaging=averaging,
                              chance_width=chance_width, rnr=(state.model, restricted, p))

  run = jax.vmap(one) if _batched(state) else one
  return state._replace(sampler=run(state.sampler, state.p, state.restricted))


def average_strategy(tensors: GameTensors, state: MCRNRState):
  """Both players' average strategies, [I, A] each, or [I, A, B] for a batch."""
  if not _batched(state):
    return mccfr.average_strategy(tensors, state.sampler)
  average = jax.vmap(mccfr.average_strategy, (None, 0))(tensors, state.sampler)
  return tuple(jnp.moveaxis(a, 0, -1) for a in average)


def counter_profile(tensors: GameTensors, state: MCRNRState):
  """The profile (each [I, A] or [I, A, B]) with the model for the restricted player and the
  average strategy (the counter-strategy) for the other."""
  return rnr.counter_of(average_strategy(tensors, state), state.restricted, state.model)


def paired_profile(tensors: GameTensors, state: MCRNRState):
  """Paper 000 Figure 7's profile from a batch [2 B] whose first half restricts player 1 and
  second half player 0 (same p, seeds in order): player 0's counter-strategy from the first
  half and player 1's from the second, each [I, A, B]."""
  average = average_strategy(tensors, state)
  half = state.p.shape[0] // 2
  return average[0][..., :half], average[1][..., half:]


def evaluate(tensors: GameTensors, state: MCRNRState, game_value) -> dict:
  """rnr.evaluate's exact metrics of the counter-strategies ([] or [B] each)."""
  return rnr.evaluate_counter(tensors, counter_profile(tensors, state), state.restricted, game_value)


@functools.lru_cache(maxsize=None)
def solver(*, trajectories: int = 1, averaging: str = "stochastic", chance_width: int | None = None) -> rnr.RNRSolver:
  """The MCRNR solver (cached: compiles once per option set).

  ``init(tensors, model, *, p, restricted=1, seed=0, epsilon=0.6)``; ``step`` and the jitted
  ``run(tensors, state, n)`` take single or batched states. Options as mccfr.solver's.
  """
  base = mccfr.solver("mccfr-os", trajectories=trajectories, averaging=averaging, chance_width=chance_width)
  step = functools.partial(_step, trajectories=int(trajectories), averaging=averaging, chance_width=chance_width)

  def checked_init(tensors, model, **kwargs):
    base.init(tensors)  # the option checks of mccfr.solver (chance_width against the game)
    return init(tensors, model, **kwargs)

  return rnr.RNRSolver(init=checked_init, step=step, run=cfr.iterate(step), counter_profile=counter_profile,
                       base=base)
