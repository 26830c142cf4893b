"""What the restricted solvers (RNR, DBR, MCRNR) share: checks of the restriction and the
model, and the counter profile they are scored by.

In a restricted Nash response (Johanson, Zinkevich and Bowling, "Computing Robust
Counter-Strategies", 2007) the restricted player ``r`` is tied to a fixed model
``sigma_fix`` with probability ``p``; the other player's average strategy is the
counter-strategy. The *counter profile* puts the model at ``r`` and the counter-strategy
at the other seat; jaxcfr.evaluate.exploitation scores it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr import kits
from jaxcfr.solvers import registry

__all__ = ["P", "RESTRICTED", "MODEL", "check_restriction", "check_model", "counter_of"]

# The restricted solvers' declared hyperparameters (jaxcfr.base.params).
P = registry.Param(
  "p", float, None, "probability that the restricted player follows the model", batchable=True, low=0.0, high=1.0
)
RESTRICTED = registry.Param(
  "restricted",
  int,
  1,
  "the restricted (modelled) player; the other computes the counter-strategy",
  batchable=True,
  low=0,
  high=1,
)
MODEL = registry.Param(
  "model", object, None, "the fixed model: a profile ([I, A, *B] per player)", batchable=True, cli=False
)


def check_restriction(p, restricted, name: str = "p") -> None:
  """Raises ValueError unless every ``p`` lies in [0, 1] (NaN included) and every
  restricted player is 0 or 1 (skipped for traced values)."""
  concrete_p, concrete_r = registry.concrete(p), registry.concrete(restricted)
  if concrete_p is not None and not np.all((concrete_p >= 0) & (concrete_p <= 1)):
    raise ValueError(f"{name} must lie in [0, 1], got {concrete_p}")
  if concrete_r is not None and np.any((concrete_r != 0) & (concrete_r != 1)):
    raise ValueError(f"restricted must be 0 or 1, got {concrete_r}")


def check_model(tensors, model) -> None:
  """The kit's ``check_profile`` on a concrete model profile (skipped when traced)."""
  if model is None or len(model) != 2:
    raise ValueError("a model is a profile with one strategy per player (2): pass model=(sigma0, sigma1)")
  concrete = [registry.concrete(s) for s in model]
  if all(s is not None for s in concrete):
    kits.of_tensors(tensors).check_profile(tensors, concrete, tolerance=1e-5)


def counter_of(average, restricted: jax.Array, model):
  """The profile (each [N, A, *E, *B]) with the model where ``restricted`` [*B] is the player
  and ``average`` elsewhere."""
  out = []
  for player in (0, 1):
    ndim = average[player].ndim
    seat = restricted.reshape((1,) * (ndim - restricted.ndim) + restricted.shape)
    fixed = model[player].astype(average[player].dtype)
    fixed = fixed.reshape(fixed.shape + (1,) * (ndim - fixed.ndim))
    out.append(jnp.where(seat == player, fixed, average[player]))
  return tuple(out)
