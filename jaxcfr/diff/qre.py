"""Logit quantal response equilibria, differentiable by implicit differentiation.

The logit QRE of temperature ``alpha`` (McKelvey and Palfrey, "Quantal Response Equilibria
for Extensive Form Games", 1998; in sequence form with the dilated entropy, Ling, Fang and
Kolter, "What game are we playing? End-to-end learning in normal and extensive form
games", 2018) is the saddle point of the regularised game

    max_x min_y  x^T A y - alpha KL_dil(x || rho0) + alpha KL_dil(y || rho1)

(the plain dilated entropy ``psi`` without a magnet: Gambit's agent logit QRE with lambda =
1 / alpha). It is the fixed point ``s* = M(s*; theta)`` of one step of magnetic mirror descent
on log strategies (``jaxcfr.solvers.mmd.mmd_map``, Sokota et al., "A Unified Approach to
Reinforcement Learning, Quantal Response Equilibria, and Two-Player Zero-Sum Games", 2023),
a contraction near ``s*``; ``qre`` iterates it until the largest change of a log probability
is below ``tolerance``.

**Gradients.** By the implicit function theorem, for a cotangent ``v`` on ``s*`` the
gradient with respect to the parameters ``theta`` (the payoff, the temperature, the magnet)
is ``(dM/dtheta)^T lambda`` where ``lambda = v + (dM/ds)^T lambda``: the adjoint system,
solved by the same fixed-point iteration, each step one vector-Jacobian product of ``M``
(so no Jacobian or Hessian is formed; its convergence rate is the forward one). A
``custom_vjp`` holds it, so ``jax.grad``, ``vmap`` and ``jit`` compose with ``qre``.

Batches: ``temperature`` [B] (and the step size) gives every strategy trailing axes
``[I, A, B]``: the forward and adjoint iterations run all temperatures as one program and
stop when all have converged. ``vmap`` over payoff parameters works as well.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.diff.value import zero_cotangent
from jaxcfr.kits.sequence_form.tensors import GameTensors
from jaxcfr.solvers import mmd

__all__ = ["qre", "qre_gap"]


def _tolerance(dtype, tolerance):
  if tolerance is not None:
    return float(tolerance)
  return 1e-11 if jnp.dtype(dtype) == jnp.float64 else 1e-5


def qre(
  tensors: GameTensors,
  *,
  temperature,
  magnet=None,
  step_size=0.0,
  tolerance: float | None = None,
  max_iterations: int = 100_000,
):
  """The logit QRE profile at ``temperature`` (``([I0, A0, *B], [I1, A1, *B])``), differentiable
  with respect to ``temperature``, the float leaves of ``tensors`` and the magnet.

  Args:
    tensors: the game (``payoff.value`` [P] may be traced: computed from utilities or chance
      probabilities by ``jaxcfr.with_payoff_from_tree``).
    temperature: alpha > 0, a scalar or [*B] (a batch of QREs as one program).
    magnet: optional profile ([I, A] or [I, A, *B] per player, positive on legal actions); the
      regulariser is then the dilated KL divergence to it; None: the dilated entropy.
    step_size: MMD's eta ([*B]); 0 for ``alpha / max |A|^2`` (the fixed point does not depend
      on it; the number of iterations does).
    tolerance: stop when no log probability changes by more than this (default 1e-11 in
      float64, 1e-5 in float32); the adjoint iteration uses the same test, relative to the
      size of its iterate.
    max_iterations: a bound on both iterations.
  """
  state = mmd.init(tensors, temperature=temperature, step_size=step_size, magnet=magnet)
  temperature = jnp.broadcast_to(jnp.asarray(temperature, tensors.dtype), state.temperature.shape)
  config = (_tolerance(tensors.dtype, tolerance), int(max_iterations))
  log_strategy = _fixed_point(config, tensors, temperature, state.log_magnet, state.step_size, state.log_strategy)
  return tuple(
    jnp.where(evaluation.expand_to(tp.legal, ls.ndim), jnp.exp(ls), 0) for tp, ls in zip(tensors.players, log_strategy)
  )


def _largest(tree) -> jax.Array:
  return jnp.max(jnp.stack([jnp.max(jnp.abs(x)) for x in jax.tree_util.tree_leaves(tree)]))


def _iterate(update, start, tolerance, max_iterations, relative=False):
  """``x <- update(x)`` until the largest change is below ``tolerance`` (relative to the size of
  ``x`` when ``relative``) or ``max_iterations``."""

  def condition(carry):
    i, _, change = carry
    return (i < max_iterations) & (change > tolerance)

  def body(carry):
    i, x, _ = carry
    new = update(x)
    change = _largest(jax.tree_util.tree_map(jnp.subtract, new, x))
    if relative:
      change = change / (1 + _largest(new))
    return i + 1, new, change

  dtype = jax.tree_util.tree_leaves(start)[0].dtype
  _, x, _ = jax.lax.while_loop(condition, body, (jnp.int32(0), start, jnp.asarray(jnp.inf, dtype)))
  return x


@functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
def _fixed_point(config, tensors, temperature, log_magnet, step_size, start):
  tolerance, max_iterations = config
  return _iterate(
    lambda s: mmd.mmd_map(tensors, s, log_magnet, temperature, step_size), start, tolerance, max_iterations
  )


def _fixed_point_forward(config, tensors, temperature, log_magnet, step_size, start):
  solution = _fixed_point(config, tensors, temperature, log_magnet, step_size, start)
  return solution, (tensors, temperature, log_magnet, step_size, start, solution)


def _fixed_point_backward(config, residuals, cotangent):
  tolerance, max_iterations = config
  tensors, temperature, log_magnet, step_size, start, solution = residuals
  _, vjp = jax.vjp(
    lambda s, t, T, m, e: mmd.mmd_map(t, s, m, T, e), solution, tensors, temperature, log_magnet, step_size
  )
  adjoint = _iterate(
    lambda lam: jax.tree_util.tree_map(jnp.add, cotangent, vjp(lam)[0]),
    cotangent,
    tolerance,
    max_iterations,
    relative=True,
  )
  _, tensors_bar, temperature_bar, magnet_bar, step_bar = vjp(adjoint)
  return tensors_bar, temperature_bar, magnet_bar, step_bar, zero_cotangent(start)


_fixed_point.defvjp(_fixed_point_forward, _fixed_point_backward)


def _kl(tensors, profile, log_magnet):
  """[*B] each player's dilated KL divergence to its magnet (the dilated entropy without one)."""
  out = []
  for tp, s, m in zip(tensors.players, profile, log_magnet):
    legal = evaluation.expand_to(tp.legal, s.ndim)
    x = evaluation.realization_plan(tp, s)
    log_ratio = jnp.where(
      legal & (s > 0), jnp.log(jnp.where(legal & (s > 0), s, 1)) - evaluation.expand_to(m, s.ndim), 0
    )
    out.append((evaluation.action_table(tp, x) * log_ratio).sum((0, 1)))
  return out


def qre_gap(tensors: GameTensors, profile, *, temperature, magnet=None) -> jax.Array:
  """[*B] the saddle-point gap of the regularised game at ``profile`` (0 exactly at its QRE):
  ``max_x' f(x', y) - min_y' f(x, y')`` with ``f(x, y) = x^T A y - alpha KL(x) + alpha KL(y)``
  (OpenSpiel's ``MMDDilatedEnt.get_gap``)."""
  temperature = jnp.asarray(temperature, tensors.dtype)
  log_magnet = (
    tuple(jnp.zeros(tp.legal.shape, tensors.dtype) for tp in tensors.players)
    if magnet is None
    else tuple(jnp.where(tp.legal, jnp.log(jnp.asarray(m, tensors.dtype)), 0) for tp, m in zip(tensors.players, magnet))
  )
  x, y = evaluation.plans(tensors, profile)
  g0 = evaluation.sequence_values_for(tensors.payoff, 0, y)
  g1 = evaluation.sequence_values_for(tensors.payoff, 1, x)
  soft = [
    evaluation.soft_best_response(tp, g / temperature, m)[0] for tp, g, m in zip(tensors.players, (g0, g1), log_magnet)
  ]
  kl = _kl(tensors, profile, log_magnet)
  return temperature * (soft[0] + soft[1] + kl[0] + kl[1])
