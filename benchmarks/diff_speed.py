"""The cost of gradients on Leduc (float32, jitted, after compilation):

1. the gradient of the exploitability after T unrolled DCFR iterations with respect to
   (alpha, beta, gamma) and the utilities, against the forward run (``solver.run``, jitted;
   goal: <= 3x), with checkpointed chunks of several lengths and without, side by side with
   and without (``unrolled(..., reverse_passes=False)``) the hand-written reverse passes of
   ``jaxcfr.kits.sequence_form.evaluation`` (the payoff
   products' transposed segment sums, the counterfactual values' top-down adjoint; "autodiff"
   differentiates the forward code instead, whose gathers become unsorted scatter-adds), and
   the compiled program's temporary memory for T = 10,000 (goal: fits in 1 GiB); each also
   with the checkpoints keeping every step's sequence values (``policy=KEEP_PRODUCTS``: the
   recomputation skips the payoff products, memory grows with T);
2. the same gradient ratio (w.r.t. the utilities) for CFR+, DCFR and PCFR+, with and without KEEP_PRODUCTS;
3. the logit QRE and its implicit gradient for 64 temperatures as one program.

    python benchmarks/diff_speed.py [--iters 1000]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import jaxcfr  # noqa: E402
from jaxcfr import diff, solvers  # noqa: E402
from jaxcfr.kits.sequence_form import evaluation  # noqa: E402
from jaxcfr.diff.unrolled import default_chunk  # noqa: E402
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position


def timed(fn, *args, repeats=3, clock=time.perf_counter) -> float:
  jax.block_until_ready(fn(*args))  # compile
  best = float("inf")
  for _ in range(repeats):
    start = clock()
    jax.block_until_ready(fn(*args))
    best = min(best, clock() - start)
  return best


def with_utility(tensors, utility):
  return jaxcfr.with_payoff_from_tree(
    dataclasses.replace(tensors, tree=dataclasses.replace(tensors.tree, utility=utility))
  )


KEEP_PRODUCTS = jax.checkpoint_policies.save_only_these_names(evaluation.SEQUENCE_VALUES)


def unrolled_costs(tensors, iterations: int, repeats: int) -> dict:
  """Seconds of CPU time (``time.process_time``, best of ``repeats``: less sensitive than wall
  time to other jobs on a shared machine) and ratios to the forward ``solver.run``."""
  solver = solvers.get("dcfr")

  def loss(params, chunk, checkpoint=True, reverse_passes=True, policy=None):
    game = with_utility(tensors, params["utility"])
    state = solver.init(game, alpha=params["abg"][0], beta=params["abg"][1], gamma=params["abg"][2])
    state = diff.unrolled(
      solver, game, state, iterations, chunk=chunk, checkpoint=checkpoint, reverse_passes=reverse_passes, policy=policy
    )
    return jaxcfr.exploitability(game, solver.average_strategy(game, state))

  params = {"abg": jnp.array([1.5, 0.0, 2.0], tensors.dtype), "utility": tensors.tree.utility}
  forward = jax.jit(
    lambda p: jaxcfr.exploitability(
      tensors,
      solver.average_strategy(
        tensors,
        solver.run(tensors, solver.init(tensors, alpha=p["abg"][0], beta=p["abg"][1], gamma=p["abg"][2]), iterations),
      ),
    )
  )
  clock = time.process_time
  forward_s = timed(forward, params, repeats=repeats, clock=clock)
  results = {
    "iterations": iterations,
    "default_chunk": default_chunk(iterations),
    "forward_run_s": forward_s,
    "forward_unrolled_s": timed(
      jax.jit(lambda p: loss(p, default_chunk(iterations))), params, repeats=repeats, clock=clock
    ),
  }
  variants = [(f"checkpoint chunk={c}", c, True, None) for c in (1, 4, default_chunk(iterations), 100)]
  variants.append(("stored (no checkpoint)", default_chunk(iterations), False, None))
  variants.append(
    (f"checkpoint chunk={default_chunk(iterations)}, products kept", default_chunk(iterations), True, KEEP_PRODUCTS)
  )
  for reverse in ("hand-written", "autodiff"):
    rows = {}
    for name, chunk, checkpoint, policy in variants:

      def gradient(p, chunk=chunk, checkpoint=checkpoint, hand=reverse == "hand-written", policy=policy):
        return jax.value_and_grad(lambda q: loss(q, chunk, checkpoint, hand, policy))(p)

      seconds = timed(jax.jit(gradient), params, repeats=repeats, clock=clock)
      rows[name] = {"gradient_s": seconds, "ratio": seconds / forward_s}
      print(reverse, name, rows[name], flush=True)
    results[reverse] = rows
  results["best_ratio"] = min(r["ratio"] for r in results["hand-written"].values())
  return results


def algorithm_ratios(tensors, iterations: int, repeats: int) -> dict:
  """CFR+, DCFR and PCFR+: CPU seconds of the exploitability after T iterations and its
  gradient w.r.t. the utilities (default checkpoint chunk, hand-written reverse passes),
  against the forward ``solver.run``."""
  out = {}
  for name in ("cfr+", "dcfr", "pcfr+"):
    solver = solvers.get(name)

    def forward(utility, solver=solver):
      game = with_utility(tensors, utility)
      return jaxcfr.exploitability(game, solver.average_strategy(game, solver.run(game, solver.init(game), iterations)))

    def loss(utility, solver=solver, policy=None):
      game = with_utility(tensors, utility)
      state = diff.unrolled(solver, game, solver.init(game), iterations, policy=policy)
      return jaxcfr.exploitability(game, solver.average_strategy(game, state))

    utility = tensors.tree.utility
    forward_s = timed(jax.jit(forward), utility, repeats=repeats, clock=time.process_time)
    gradient_s = timed(jax.jit(jax.value_and_grad(loss)), utility, repeats=repeats, clock=time.process_time)
    kept = jax.jit(jax.value_and_grad(lambda u, loss=loss: loss(u, policy=KEEP_PRODUCTS)))
    kept_s = timed(kept, utility, repeats=repeats, clock=time.process_time)
    out[name] = {
      "forward_run_s": forward_s,
      "gradient_s": gradient_s,
      "ratio": gradient_s / forward_s,
      "gradient_products_kept_s": kept_s,
      "ratio_products_kept": kept_s / forward_s,
    }
    print(name, out[name], flush=True)
  return out


def memory_10000(tensors) -> dict:
  """Temporary bytes of the compiled gradient program for T = 10,000 (XLA's memory analysis)."""
  solver = solvers.get("dcfr")
  out = {}
  for chunk, checkpoint, policy in ((100, True, None), (100, False, None), (100, True, KEEP_PRODUCTS)):

    def loss(abg, chunk=chunk, checkpoint=checkpoint, policy=policy):
      state = diff.unrolled(
        solver,
        tensors,
        solver.init(tensors, alpha=abg[0], beta=abg[1], gamma=abg[2]),
        10000,
        chunk=chunk,
        checkpoint=checkpoint,
        policy=policy,
      )
      return jaxcfr.exploitability(tensors, solver.average_strategy(tensors, state))

    compiled = jax.jit(jax.grad(loss)).lower(jnp.array([1.5, 0.0, 2.0], tensors.dtype)).compile()
    analysis = compiled.memory_analysis()
    kept = ",products kept" if policy is not None else ""
    out[f"chunk={chunk},checkpoint={checkpoint}{kept}"] = None if analysis is None else int(analysis.temp_size_in_bytes)
  return out


def qre_64(tensors) -> dict:
  temperatures = jnp.geomspace(0.02, 1.0, 64).astype(tensors.dtype)

  def loss(temperature, utility):
    game = with_utility(tensors, utility)
    profile = diff.qre(game, temperature=temperature, tolerance=1e-5)
    return jaxcfr.expected_value(game, profile).sum()

  qre = jax.jit(lambda t: diff.qre(tensors, temperature=t, tolerance=1e-5))
  grad = jax.jit(jax.value_and_grad(loss, argnums=(0, 1)))
  profile = qre(temperatures)
  gaps = diff.qre_gap(tensors, profile, temperature=temperatures)
  return {
    "temperatures": [float(temperatures[0]), float(temperatures[-1]), 64],
    "qre_64_s": timed(qre, temperatures, repeats=1),
    "qre_and_gradient_64_s": timed(grad, temperatures, tensors.tree.utility, repeats=1),
    "qre_1_s": timed(qre, temperatures[31:32], repeats=1),
    "largest_regularised_gap": float(np.max(np.asarray(gaps))),
  }


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__)
  parser.add_argument("--game", default="leduc_poker")
  parser.add_argument("--iters", type=int, default=1000)
  parser.add_argument("--repeats", type=int, default=5)
  parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "diff_speed.json"))
  args = parser.parse_args(argv)
  tensors = jaxcfr.load(args.game).tensors
  unrolled = unrolled_costs(tensors, args.iters, args.repeats)
  print(unrolled, flush=True)
  algorithms = algorithm_ratios(tensors, args.iters, args.repeats)
  memory = memory_10000(tensors)
  print(memory, flush=True)
  qre = qre_64(tensors)
  print(qre, flush=True)
  write_record(
    args.out,
    benchmark="diff_speed",
    description=(
      f"Gradient costs on {args.game}, float32, jitted, after compilation. "
      f"unrolled: CPU seconds (process_time), best of {args.repeats}, of the exploitability after T DCFR "
      "iterations and its gradient w.r.t. (alpha, beta, gamma) and the utilities, vs the forward "
      "solver.run (goal <= 3x), for several checkpoint chunk lengths and without checkpoints, with the "
      "hand-written reverse passes of jaxcfr.kits.sequence_form.evaluation and with plain autodiff of the same forward "
      "code (same run); algorithms: CFR+, DCFR and PCFR+, the gradient w.r.t. the utilities (default chunk, "
      "hand-written passes) against each one's forward run, and with the checkpoints keeping every step's "
      "sequence values (products kept: jax.checkpoint_policies.save_only_these_names(evaluation.SEQUENCE_VALUES)); memory: XLA temp bytes of the T=10,000 gradient; "
      "QRE: wall seconds, 1 timing; "
      "qre: 64 temperatures as one program, tolerance 1e-5 on log-probabilities. "
      "Measured on one core (taskset) of a 2-core VM; other jobs may use the other core: timings are noisy."
    ),
    configuration={"game": args.game, "dtype": "float32", "repeats": args.repeats},
    results={"unrolled": unrolled, "algorithms": algorithms, "gradient_memory_T10000_bytes": memory, "qre": qre},
  )
  return 0


if __name__ == "__main__":
  sys.exit(main())
