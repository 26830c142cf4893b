"""The state of one sampled-CFR run (outcome, external and chance sampling): cumulative
sampled regrets, average-strategy weights, the PRNG key and the count of nodes touched."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.base import regret
from jaxcfr.kits.sequence_form.tensors import GameTensors
from jaxcfr.solvers import registry

__all__ = [
  "DEFAULT_EPSILON",
  "COUNT_BASE",
  "MCCFRState",
  "add_count",
  "nodes_touched",
  "init",
  "check",
  "current_strategy",
  "average_strategy",
]

DEFAULT_EPSILON = 0.6
COUNT_BASE = 1 << 24  # nodes_touched = high * COUNT_BASE + low


class MCCFRState(NamedTuple):
  """State of one sampled run; every field is an array, so ``vmap`` over states (e.g. over
  seeds) runs B independent runs as one program.

  Attributes:
    regrets: ([I0, A0], [I1, A1]) cumulative sampled regrets.
    average: ([I0, A0], [I1, A1]) cumulative average-strategy weights (unnormalised).
    last_visit: ([I0], [I1]) int32, ``c_I`` of optimistic averaging: the iteration of the
      infoset's last update (unused by the other averaging rules).
    key: [2] uint32, the raw PRNG key of the next iteration.
    iteration: [] int32, iterations done (one iteration updates both players).
    nodes_touched: [2] int32, (high, low) words of the running count of nodes touched.
    seed: [] int32, the seed the run started from.
    epsilon: [] float, exploration of outcome sampling's epsilon-greedy sampling profile.
  """

  regrets: tuple
  average: tuple
  last_visit: tuple
  key: jax.Array
  iteration: jax.Array
  nodes_touched: jax.Array
  seed: jax.Array
  epsilon: jax.Array


def add_count(counter: jax.Array, n: jax.Array) -> jax.Array:
  low = counter[1] + n.astype(jnp.int32)
  return jnp.stack([counter[0] + low // COUNT_BASE, low % COUNT_BASE])


def nodes_touched(state: MCCFRState) -> np.ndarray:
  """The running count of nodes touched as int64 ([*B] for a batch of states)."""
  counter = np.asarray(jax.device_get(state.nodes_touched)).astype(np.int64)
  return counter[0] * COUNT_BASE + counter[1]


def init(tensors: GameTensors, *, seed=0, epsilon=DEFAULT_EPSILON) -> MCCFRState:
  """A fresh state of one run: zero regrets (uniform strategies), the PRNG key of
  ``seed``. ``seed`` and ``epsilon`` may be traced (the registered solvers batch runs by
  ``vmap``, jaxcfr.solvers.registry.per_run)."""
  check(tensors, epsilon=epsilon)
  dtype = tensors.dtype
  zeros = tuple(jnp.zeros(tp.legal.shape, dtype) for tp in tensors.players)
  seed = jnp.asarray(seed, jnp.int32)
  return MCCFRState(
    regrets=zeros,
    average=zeros,
    last_visit=tuple(jnp.zeros((tp.num_infosets,), jnp.int32) for tp in tensors.players),
    key=jax.random.key_data(jax.random.key(seed)),
    iteration=jnp.zeros((), jnp.int32),
    nodes_touched=jnp.zeros((2,), jnp.int32),
    seed=seed,
    epsilon=jnp.asarray(epsilon, dtype),
  )


def check(tensors: GameTensors, *, epsilon=DEFAULT_EPSILON, **_) -> None:
  """Raises ValueError for an epsilon outside [0, 1] (NaN included; traced values pass)."""
  del tensors
  eps = registry.concrete(epsilon)
  if eps is not None and not np.all((eps >= 0) & (eps <= 1)):
    raise ValueError(f"epsilon must lie in [0, 1], got {eps}")


def current_strategy(tensors: GameTensors, state: MCCFRState):
  """Regret matching on the cumulative sampled regrets ([I, A] each)."""
  return tuple(regret.regret_matching(r, tp.legal) for tp, r in zip(tensors.players, state.regrets))


def average_strategy(tensors: GameTensors, state: MCCFRState):
  """The normalised average profile ([I, A] each); uniform at infosets never averaged."""
  return tuple(regret.normalise(a, tp.legal) for tp, a in zip(tensors.players, state.average))
