"""Reverse-mode gradients through T iterations of a solver, with memory bounded by chunks.

A registered solver's ``run`` is a ``lax.fori_loop`` with a traced count, which ``jax.grad``
cannot reverse. ``unrolled`` runs the same ``step`` as a ``lax.scan`` of ``ceil(T / chunk)``
chunks of static length, each wrapped in ``jax.checkpoint``: the backward pass keeps only
the state at chunk boundaries and recomputes one chunk's intermediate values at a time
(Griewank and Walther, "Algorithm 799: revolve", 2000, the one-level form). Memory is about
``T / chunk`` states plus ``chunk`` steps' residuals (``chunk ~ sqrt(T)`` balances them); the
cost is one extra forward pass. A ``policy`` can trade memory for part of that pass: with
``jax.checkpoint_policies.save_only_these_names(evaluation.SEQUENCE_VALUES)`` the checkpoints
keep each step's sequence values (``[S_p, *B]`` per player and step, so memory grows with T)
and the recomputation skips the sparse payoff products (benchmarks/results/diff_speed.json).

What the gradient is taken with respect to is whatever the scalar depends on: the float
leaves of the tensors (``payoff.value``, or ``tree.utility`` and ``tree.chance_prob`` through
``jaxcfr.with_payoff_from_tree``) and the float hyperparameters in the initial state (CFR's
alpha, beta, gamma; RNR's p). Regret matching is piecewise smooth: gradients are those of
the piece the run is on (see docs/differentiable.md). Sampled solvers are differentiable
for a fixed seed in the same sense.
"""

from __future__ import annotations

import math

import jax

from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.solvers.registry import Solver

__all__ = ["unrolled", "default_chunk"]


def default_chunk(num_iterations: int) -> int:
  """``ceil(sqrt(T))``: boundary states and per-chunk residuals of about equal number."""
  return max(1, math.isqrt(max(num_iterations - 1, 0)) + 1)


def unrolled(
  solver: Solver,
  tensors,
  state,
  num_iterations: int,
  *,
  chunk: int | None = None,
  checkpoint: bool = True,
  reverse_passes: bool = True,
  policy=None,
):
  """``num_iterations`` (static) steps of ``solver`` from ``state``, reverse-differentiable.

  Equal to ``solver.run(tensors, state, num_iterations)`` (same steps, same order).

  Args:
    solver: any Solver (``jaxcfr.solvers.get(...)``).
    tensors, state: as for ``solver.step``; leaves may be traced (the gradient's inputs).
    num_iterations: T, a Python int.
    chunk: iterations per checkpointed chunk (default ``ceil(sqrt(T))``).
    checkpoint: False keeps every step's residuals (memory ~T steps, no recomputation;
      slower on CPU, where stacking the residuals costs more than recomputing them).
    reverse_passes: trace the steps within ``jaxcfr.kits.sequence_form.evaluation.hand_written_reverse()``
      (the payoff products' and counterfactual values' hand-written reverse passes: the
      gradient about 20% cheaper; forward mode through the result is then unavailable, use
      ``solver.run`` for ``jax.jvp``). False: plain autodiff of the same steps.
    policy: the chunks' ``jax.checkpoint`` policy, what each checkpoint keeps besides the
      state at its start (default: nothing; see the module docstring); only with
      ``checkpoint=True``.
  Raises:
    ValueError: a negative ``num_iterations``, a ``chunk`` below 1, or a ``policy`` without
      checkpoints.
  Returns:
    the state after T steps (trailing batch axes as ``state``).
  """
  num_iterations = int(num_iterations)
  if num_iterations < 0:
    raise ValueError(f"num_iterations must be >= 0, got {num_iterations}")
  chunk = default_chunk(num_iterations) if chunk is None else int(chunk)
  if chunk < 1:
    raise ValueError(f"chunk must be >= 1, got {chunk}")
  if policy is not None and not checkpoint:
    raise ValueError("policy is the checkpoints' policy: with checkpoint=False every residual is kept already")

  def steps(length):
    def run(carry, _):
      carry, _ = jax.lax.scan(lambda s, _: (solver.step(tensors, s), None), carry, None, length=length)
      return carry, None

    return jax.checkpoint(run, policy=policy) if checkpoint else run

  full, rest = divmod(num_iterations, chunk)
  with evaluation.hand_written_reverse(reverse_passes):
    if full:
      state, _ = jax.lax.scan(steps(chunk), state, None, length=full)
    if rest:
      state, _ = steps(rest)(state, None)
  return state
