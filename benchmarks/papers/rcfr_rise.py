"""Why the small RCFR+ MLPs of Waugh et al. 2015's Figure 1 (rcfr_figures.py) become more
exploitable after about 10^3 iterations: the 8 -> 21 -> 1 network of rcfr_figures.json, one
suspected factor changed at a time against the figure's setting.

The figure's setting (rcfr_figures.py): Leduc, float32, RCFR+ (cumulative regrets floored at
zero), 30 warm-started Adam steps per iteration at learning rate 0.01 on targets R^t / t
normalised by their root mean square, uniform averaging, seed 0. Each row changes one thing:
no flooring (plain RCFR), the optimiser's steps or learning rate, the averaging, the target
normalisation, a larger network (8 -> 20 -> 16 -> 1, the figure's plain-RCFR size), or an
exact fit (the table regressor: RCFR+ is then CFR+). The figure's setting and plain RCFR run
three initialisation seeds (one batch); the learning rates run as one batch.

At each checkpoint the record holds the average strategy's exploitability (the figure's y
axis, NashConv / 2 in chips), the current strategy's, and ``mass_on_nonpositive``: the share
of the current strategy's probability that goes to actions whose cumulative regret (the
regressor's target) is not positive, averaged over the infosets where some regret is positive
(regret matching on the exact regrets puts none there; it is the regressor's sign error).
``rise`` is the final average exploitability over the curve's lowest.

    python -m benchmarks rcfr_rise [--iters 20000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the benchmarks folder: record
sys.path.insert(0, str(Path(__file__).resolve().parent))  # this folder: rcfr_figures
import jaxcfr  # noqa: E402
from jaxcfr import solvers  # noqa: E402
from rcfr_figures import checkpoints  # noqa: E402  pylint: disable=wrong-import-position
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

RESULTS = Path(__file__).resolve().parent / "results"
FIGURE = {"regressor": "mlp", "hidden": (21,), "steps": 30, "plus": True}  # rcfr_figures' mlp+-21
# row -> (options changed, init hyperparameters); a list value is one batch
VARIANTS = {
  "figure's setting (RCFR+)": ({}, {"seed": [0, 1, 2]}),
  "plain RCFR (no flooring)": ({"plus": False}, {"seed": [0, 1, 2]}),
  "100 Adam steps per iteration": ({"steps": 100}, {}),
  "learning rates 0.001 and 0.03": ({}, {"learning_rate": [0.001, 0.03]}),
  "linear averaging": ({"averaging": "linear"}, {}),
  "no target normalisation": ({"normalise": False}, {}),
  "larger network 8 -> 20 -> 16 -> 1": ({"hidden": (20, 16)}, {}),
  "exact fit (table regressor: CFR+)": ({"regressor": "table"}, {}),
}


def mass_on_nonpositive(tensors, state) -> jax.Array:
  """[*B] the current strategy's mean probability on actions with cumulative regret <= 0, over
  the infosets (both players) where some legal action's regret is positive."""
  shares, counts = [], []
  for player, treeplex in enumerate(tensors.players):
    strategy = state.inner_state.strategy[player]
    regrets = state.inner_state.regrets[player]
    legal = jnp.asarray(treeplex.legal).reshape(treeplex.legal.shape + (1,) * (strategy.ndim - 2))
    positive = legal & (regrets > 0)
    counted = positive.any(axis=1)
    share = jnp.where(legal & ~positive, strategy, 0).sum(axis=1)
    shares.append(jnp.where(counted, share, 0).sum(axis=0))
    counts.append(counted.sum(axis=0))
  return sum(shares) / jnp.maximum(sum(counts), 1)


def run_variant(tensors, options: dict, hyper: dict, total: int) -> dict:
  solver = solvers.get("rcfr", **options)
  state = solver.init(tensors, **{k: jnp.asarray(v) for k, v in hyper.items()})

  @jax.jit
  def measure(s):
    average = jaxcfr.exploitability(tensors, solver.average_strategy(tensors, s))
    current = jaxcfr.exploitability(tensors, solver.current_strategy(tensors, s))
    return average, current, mass_on_nonpositive(tensors, s)

  points, done, start = [], 0, time.perf_counter()
  for point in checkpoints(total):
    state = solver.run(tensors, state, point - done)
    done = point
    average, current, mass = (np.atleast_1d(np.asarray(v)).tolist() for v in measure(state))
    points.append({"iteration": point, "average": average, "current": current, "mass_on_nonpositive": mass})
  seconds = time.perf_counter() - start
  averages = np.array([p["average"] for p in points])  # [checkpoints, batch]
  lowest = averages.min(axis=0)
  return {
    "options": {k: list(v) if isinstance(v, tuple) else v for k, v in options.items()},
    "batch": hyper,
    "parameters": int(np.asarray(solver.counters(state)["regressor_size"]).ravel()[0]),
    "curve": points,
    "lowest": lowest.tolist(),
    "lowest_at": [points[i]["iteration"] for i in averages.argmin(axis=0)],
    "final": averages[-1].tolist(),
    "rise": (averages[-1] / lowest).tolist(),
    "seconds": seconds,
  }


def main(argv=None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--iters", type=int, default=20000)
  parser.add_argument("--variants", default="", help="comma-separated row names (default: all)")
  parser.add_argument("--out", default=str(RESULTS / "rcfr_rise.json"))
  args = parser.parse_args(argv)
  names = [n for n in VARIANTS if not args.variants or n in args.variants.split(",")]
  tensors = jaxcfr.load("leduc_poker", dtype="float32").tensors
  rows = {}
  for name in names:
    change, hyper = VARIANTS[name]
    rows[name] = run_variant(tensors, {**FIGURE, **change}, hyper, args.iters)
    row = rows[name]
    print(
      f"{name:>36}: lowest {', '.join(f'{v:.3f}' for v in row['lowest'])} at {row['lowest_at']}, "
      f"final {', '.join(f'{v:.3f}' for v in row['final'])}, mass on non-positive "
      f"{', '.join(f'{v:.3f}' for v in row['curve'][-1]['mass_on_nonpositive'])} ({row['seconds']:.0f} s)",
      flush=True,
    )
  path = write_record(
    args.out,
    benchmark="rcfr_rise",
    description=(
      "What makes the 8 -> 21 -> 1 RCFR+ MLP of Waugh et al. 2015's Figure 1 (rcfr_figures.json) "
      "more exploitable after about 10^3 iterations: Leduc, float32, one change per row against "
      "the figure's setting; exploitability (NashConv / 2, chips) of the average and current "
      "strategies and the current strategy's mass on actions without positive cumulative regret "
      "at log-spaced checkpoints. Run on one core (taskset) of the 2-core CPU while other jobs "
      "used the other core: seconds are upper bounds."
    ),
    configuration={
      "game": "leduc_poker",
      "dtype": "float32",
      "iterations": args.iters,
      "figure_setting": {k: list(v) if isinstance(v, tuple) else v for k, v in FIGURE.items()},
      "learning_rate": 0.01,
      "seed": 0,
      "variants": {n: {"options": VARIANTS[n][0], "batch": VARIANTS[n][1]} for n in names},
      "command": "python -m benchmarks rcfr_rise" + (f" --iters {args.iters}" if args.iters != 20000 else ""),
    },
    results={"rows": rows},
  )
  print(f"wrote {path}")


if __name__ == "__main__":
  main(sys.argv[1:])
