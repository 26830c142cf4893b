"""The game value as a differentiable function of the payoffs (Danskin's theorem).

The value of a zero-sum game in sequence form is ``v(A) = max_x min_y x^T A y`` over the
players' realization-plan polytopes. By Danskin's theorem (Danskin, "The theory of max-min,
with applications", 1966), where the equilibrium plans ``(x*, y*)`` are unique ``v`` is
differentiable and

    dv / dA[s0, s1] = x*[s0] y*[s1],

the outer product of the equilibrium plans, read at the payoff's pairs; the chain rule
carries it to the utilities and chance probabilities when ``payoff.value`` is computed from
them (``jaxcfr.with_payoff_from_tree``). The forward pass is one solve (any registered
solver without requirements, by default CFR+) and the backward pass one gather, so a
gradient costs one solve, whatever the number of iterations. With several equilibria the
value is only directionally differentiable and this is one supergradient-type element; with
an approximate solve the gradient is exact for the approximate plans (its error is of the
order of the plans' distance to equilibrium).
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.kits.sequence_form.tensors import GameTensors
from jaxcfr import solvers

__all__ = ["equilibrium_value", "zero_cotangent"]


def zero_cotangent(tree):
  """A zero cotangent for ``tree``: zeros for float leaves, ``float0`` zeros for the others
  (integer and boolean index arrays), as ``custom_vjp`` backward passes must return."""

  def zero(leaf):
    leaf = jnp.asarray(leaf) if not hasattr(leaf, "dtype") else leaf
    if jnp.issubdtype(leaf.dtype, jnp.inexact):
      return jnp.zeros_like(leaf)
    return np.zeros(jnp.shape(leaf), jax.dtypes.float0)

  return jax.tree_util.tree_map(zero, tree)


def equilibrium_value(
  tensors: GameTensors, *, algo: str = "cfr+", iterations: int = 2000, average: bool = True, **hyperparameters
) -> jax.Array:
  """Player 0's equilibrium value ``x*^T A y*`` ([*B] for batched hyperparameters, else a scalar),
  differentiable with respect to the float leaves of ``tensors`` by Danskin's theorem.

  Args:
    tensors: the game; its ``payoff.value`` [P] may be traced (computed from utilities or
      chance probabilities by ``jaxcfr.with_payoff_from_tree``).
    algo: a registered solver without requirements (``jaxcfr.solvers.names()``).
    iterations: its iterations (a Python int).
    average: use the average strategy (True) or the current one (False: MMD annealed,
      or any last-iterate solver).
    hyperparameters: ``init`` arguments of the solver (e.g. ``alpha=...``).
  The gradient with respect to ``payoff.value`` is ``x*[seq0] y*[seq1]``; with respect to the
  hyperparameters it is zero (the exact value does not depend on them).
  """
  solver = solvers.get(algo)
  if solver.requires:
    raise ValueError(
      f"equilibrium_value needs a solver without requirements; {algo} requires {', '.join(solver.requires)}"
    )
  hyperparameters = {k: jnp.asarray(v) for k, v in hyperparameters.items()}
  return _value(solver, int(iterations), bool(average), tensors, hyperparameters)


def _plans(solver, iterations, average, tensors, hyperparameters):
  state = solver.run(tensors, solver.init(tensors, **hyperparameters), iterations)
  profile = (solver.average_strategy if average else solver.current_strategy)(tensors, state)
  return evaluation.plans(tensors, profile)


@functools.partial(jax.custom_vjp, nondiff_argnums=(0, 1, 2))
def _value(solver, iterations, average, tensors, hyperparameters):
  x, y = _plans(solver, iterations, average, tensors, hyperparameters)
  return _bilinear(tensors, x, y)


def _bilinear(tensors, x, y):
  payoff = tensors.payoff
  pairs = evaluation.expand_to(payoff.value, x.ndim) * x[payoff.seq0] * y[payoff.seq1]
  return pairs.sum(0)


def _value_forward(solver, iterations, average, tensors, hyperparameters):
  x, y = _plans(solver, iterations, average, tensors, hyperparameters)
  return _bilinear(tensors, x, y), (tensors, hyperparameters, x, y)


def _value_backward(solver, iterations, average, residuals, cotangent):
  del solver, iterations, average
  tensors, hyperparameters, x, y = residuals
  payoff = tensors.payoff
  outer = x[payoff.seq0] * y[payoff.seq1] * evaluation.expand_to(cotangent, x.ndim)  # [P, *B]
  grad = outer.reshape(outer.shape[0], -1).sum(1).astype(payoff.value.dtype)
  tensors_bar = zero_cotangent(tensors)
  tensors_bar = dataclasses.replace(tensors_bar, payoff=dataclasses.replace(tensors_bar.payoff, value=grad))
  return tensors_bar, zero_cotangent(hyperparameters)


_value.defvjp(_value_forward, _value_backward)
