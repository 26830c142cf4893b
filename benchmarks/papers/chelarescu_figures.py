"""Chelarescu 2019, Figures 3.1-3.13: each action's average-strategy probability against iterations.

The report (Chelarescu, "Learning strategies in large imperfect-information games", University
of Manchester, 2019), chapter 3:

  * Figures 3.1-3.4: regret matching on rock-paper-scissors for 10^3, 10^4, 10^5 and 10^6
    iterations; 3.5-3.8: the same on RPS+ (a win with scissors pays 2). "Average strategy for
    each action is plotted against number of BR iterations. The action profile starts evenly
    distributed, then quickly converges to a Nash equilibrium. The gray lines provide the
    exact solutions" (section 3.2).
  * Figures 3.9-3.12: CFR on Coin Toss, "the strategy profile for P2" (guess heads, guess
    tails, forfeit) for 10^3 ... 10^6 iterations; Figure 3.13: 10^6 iterations with the
    "Sell" outcomes reversed (P1 gets -0.5 selling heads, 0.5 selling tails:
    ``coin_toss(sell_value=-0.5)``), where P2's equilibrium swaps to heads 3/4, tails 1/4.

What runs (every run starts from the even profile: zero regrets, uniform strategies):

  * ``rm``: jaxcfr's regret matching (simultaneous updates, exact expected regrets). On RPS
    the even start is already the equilibrium and has zero regret, so ``rm``'s average stays
    exactly at 1/3 (a flat line on the gray one); on RPS+ it moves from 1/3 to 0.4/0.4/0.2.
  * ``mccfr-es``: regret matching against a *sampled* opponent action (external sampling on
    the one-move game; alternating updates), one run per seed, the seeds as one batch. It
    also starts even, wanders, and converges to the gray lines: the behaviour the report's
    text describes on RPS, which exact regret matching from the even start cannot show.
    The figures draw seed 0; the record keeps every seed's distance to the equilibrium.
  * ``cfr``: vanilla CFR (alternating updates, uniform averaging) on Coin Toss.

The figures for 10^3 ... 10^6 iterations are the first N iterations of one run of
``--iterations`` (for a deterministic solver identical to a run of N; for a sampled one, a run
of N with the same seed). The average strategy is recorded at every iteration up to 200, every
4th up to 1,000, then at every N/200-th iteration of each decade N (linear x axes, as in a plot
of every iteration). The x axis scale of the report's figures is not stated in its text; we use linear.

  python benchmarks/papers/chelarescu_figures.py [--iterations 1000000] [--seeds 16]
      [--out benchmarks/papers/results/chelarescu_figures]

writes OUT.json (with date, hardware and commit) and, with matplotlib, OUT.png.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the benchmarks folder: record, timing
import jaxcfr  # noqa: E402
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

RPS_ACTIONS = ("rock", "paper", "scissors")
COIN_ACTIONS = ("guess heads", "guess tails", "forfeit")
# name -> (game, player whose strategy is drawn, action names, equilibrium, solvers)
RUNS = {
  "rps": ("rps", 0, RPS_ACTIONS, (1 / 3, 1 / 3, 1 / 3), ("mccfr-es", "rm")),
  "rps_plus": ("rps_plus", 0, RPS_ACTIONS, (0.4, 0.4, 0.2), ("mccfr-es", "rm")),
  "coin_toss": ("coin_toss", 1, COIN_ACTIONS, (0.25, 0.75, 0.0), ("cfr",)),
  "coin_toss_reversed": ("coin_toss(sell_value=-0.5)", 1, COIN_ACTIONS, (0.75, 0.25, 0.0), ("cfr",)),
}
SAMPLED = ("mccfr-es",)
# figure -> (run, iterations)
FIGURES = {
  **{f"3.{k + 1}": ("rps", 10 ** (k + 3)) for k in range(4)},
  **{f"3.{k + 5}": ("rps_plus", 10 ** (k + 3)) for k in range(4)},
  **{f"3.{k + 9}": ("coin_toss", 10 ** (k + 3)) for k in range(4)},
  "3.13": ("coin_toss_reversed", 10**6),
}
TITLES = {
  "rps": "RPS",
  "rps_plus": "RPS+",
  "coin_toss": "Coin Toss, P2",
  "coin_toss_reversed": "Coin Toss reversed, P2",
}
DIGITS = 5  # the curves are stored rounded to this many decimals


def checkpoints(iterations: int) -> np.ndarray:
  """The iterations at which the average is recorded (at most ``iterations``): every one up to
  200, every 4th up to 1,000, then every (10^k / 200)-th of each decade up to 10^k, and
  ``iterations`` itself; about 200 points per figure's width."""
  points = set(range(1, 201)) | set(range(204, 1001, 4))
  decade = 10**4
  while decade // 10 < iterations:
    points |= set(range(decade // 10, decade + 1, decade // 200))
    decade *= 10
  return np.array(sorted(p for p in points | {iterations} if p <= iterations))


def figure_sizes(iterations: int) -> list[int]:
  """The figures' iteration counts (10^3 ... 10^6) that a run of ``iterations`` covers."""
  return sorted({n for _, n in FIGURES.values() if n <= iterations})


def trajectory(game, algorithm: str, iterations: int, player: int, seeds: int):
  """(checkpoints [T], average strategy of ``player`` at its first infoset [T, A] (or
  [T, A, seeds] for a sampled solver), exploitability of the average profile [T] (or [T, seeds]),
  seconds). One jitted scan: each step runs the solver to the next checkpoint."""
  tensors, solver = game.tensors, jaxcfr.solvers.get(algorithm)
  points = checkpoints(iterations)
  gaps = jnp.asarray(np.diff(np.concatenate([[0], points])), jnp.int32)

  def advance(state, gap):
    state = solver.run(tensors, state, gap)
    average = solver.average_strategy(tensors, state)
    return state, (average[player][0], jaxcfr.exploitability(tensors, average))

  hyper = {"seed": jnp.arange(seeds)} if algorithm in SAMPLED else {}
  start = time.perf_counter()
  _, (strategy, exploitability) = jax.jit(lambda s, g: jax.lax.scan(advance, s, g))(solver.init(tensors, **hyper), gaps)
  strategy, exploitability = np.asarray(strategy), np.asarray(exploitability)
  return points, strategy, exploitability, time.perf_counter() - start


def compute(iterations: int = 10**6, seeds: int = 16, log=print) -> dict:
  """The record's ``results``: the checkpoints, and for every run of ``RUNS`` each solver's curve
  (per action; seed 0 for a sampled solver), and at each figure's size the largest distance of
  the average from the equilibrium and the exploitability (per seed for a sampled solver)."""
  runs = {}
  sizes = figure_sizes(iterations)
  for name, (game_name, player, actions, equilibrium, algorithms) in RUNS.items():
    game = jaxcfr.load(game_name, dtype="float64")
    keys = game.arrays.players[player].keys
    run = {
      "game": game_name,
      "player": player,
      "infoset": str(keys[0]),
      "actions": list(actions),
      "equilibrium": list(equilibrium),
      "curves": {},
      "at_figure_sizes": {},
      "seconds": {},
    }
    for algorithm in algorithms:
      points, strategy, exploitability, seconds = trajectory(game, algorithm, iterations, player, seeds)
      sampled = strategy.ndim == 3
      first = strategy[..., 0] if sampled else strategy
      run["curves"][algorithm] = np.round(first.T, DIGITS).tolist()
      at = {}
      for n in sizes:
        row = int(np.searchsorted(points, n))
        deviation = np.abs(strategy[row] - np.reshape(equilibrium, (-1,) + (1,) * (strategy.ndim - 2))).max(axis=0)
        at[str(n)] = {
          "average": np.round(strategy[row], 8).tolist(),
          "max_abs_deviation": np.atleast_1d(deviation).tolist(),
          "exploitability": np.atleast_1d(exploitability[row]).tolist(),
        }
      run["at_figure_sizes"][algorithm] = at
      run["seconds"][algorithm] = seconds
      last = at[str(sizes[-1])] if sizes else None
      if last is not None:
        log(
          f"{name:18s} {algorithm:8s} after {sizes[-1]:>7d}: average {np.round(first[-1], 4)}, "
          f"max |average - equilibrium| {max(last['max_abs_deviation']):.2e}"
          + (f" (worst of {seeds} seeds)" if sampled else "")
          + f", {seconds:.1f} s"
        )
    runs[name] = run
  return {
    "figures": {k: {"run": r, "iterations": n} for k, (r, n) in FIGURES.items()},
    "iterations": checkpoints(iterations).tolist(),
    "runs": runs,
  }


def plot(results: dict, path=None, max_iterations: int | None = None):
  """Figures 3.1-3.13 (those with at most ``max_iterations`` iterations) from ``results``; one
  panel per figure, a row per game. Returns the matplotlib figure; saved to ``path`` if given."""
  import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel

  figures = {k: v for k, v in results["figures"].items() if max_iterations is None or v["iterations"] <= max_iterations}
  rows = ["rps", "rps_plus", ("coin_toss", "coin_toss_reversed")]
  layout = [[k for k, v in figures.items() if v["run"] in (row if isinstance(row, tuple) else (row,))] for row in rows]
  layout = [row for row in layout if row]
  columns = max(len(row) for row in layout)
  fig, axes = plt.subplots(len(layout), columns, figsize=(3.3 * columns, 2.9 * len(layout)), squeeze=False)
  colors = ("tab:red", "tab:blue", "tab:green")
  for r, row in enumerate(layout):
    for c in range(columns):
      ax = axes[r][c]
      if c >= len(row):
        ax.axis("off")
        continue
      spec = figures[row[c]]
      run = results["runs"][spec["run"]]
      n = spec["iterations"]
      x = np.asarray(results["iterations"])
      keep = x <= n
      for value in run["equilibrium"]:
        ax.axhline(value, color="gray", lw=1.5, alpha=0.6)
      for algorithm, curve in run["curves"].items():
        style = "--" if algorithm == "rm" else "-"
        for action, values, color in zip(run["actions"], curve, colors):
          ax.plot(x[keep], np.asarray(values)[keep], style, color=color, lw=1, label=f"{action} ({algorithm})")
      ax.set(xlim=(0, n), ylim=(-0.02, 1.02), xlabel="iterations", title=f"Figure {row[c]}: {TITLES[spec['run']]}")
      ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 3))
      if c == 0:
        ax.set_ylabel("average strategy")
        ax.legend(fontsize=6, loc="upper right")
  fig.tight_layout()
  if path is not None:
    fig.savefig(path, dpi=110)
  return fig


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--iterations", type=int, default=10**6, help="iterations of every run (the report: 10^6)")
  parser.add_argument("--seeds", type=int, default=16, help="seeds of the sampled regret matching, one batch")
  parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "chelarescu_figures"))
  args = parser.parse_args(argv)
  if args.iterations < 1 or args.seeds < 1:
    parser.error("--iterations and --seeds must be positive")
  results = compute(args.iterations, args.seeds)
  out = Path(args.out)
  png = out.with_suffix(".png")
  try:
    import matplotlib  # pylint: disable=import-outside-toplevel

    matplotlib.use("Agg")
    plot(results, png)
  except ImportError:
    png = None
  write_record(
    out.with_suffix(".json"),
    benchmark="chelarescu_figures",
    description=(
      "Chelarescu 2019 Figures 3.1-3.13: the average-strategy probability of each action against "
      "iterations, from the even start (zero regrets). RPS and RPS+ (player 0): jaxcfr's rm "
      "(simultaneous regret matching on exact expected regrets) and mccfr-es (regret matching "
      f"against a sampled opponent action, alternating updates; {args.seeds} seeds as one batch, "
      "curves of seed 0). Coin Toss and Coin Toss with reversed sell outcomes (sell_value=-0.5), "
      "player 1 (the report's P2): vanilla CFR. Curves rounded to 5 decimals; at_figure_sizes "
      "holds the average, the largest |average - equilibrium| and the exploitability (NashConv / 2) "
      "of the average profile at 10^3 ... 10^6 iterations. Float64; CPU shared with other jobs."
    ),
    configuration={
      "iterations": args.iterations,
      "seeds": args.seeds,
      "dtype": "float64",
      "runs": {name: {"game": g, "player": p, "solvers": list(a)} for name, (g, p, _, _, a) in RUNS.items()},
      "figure": png.name if png is not None else None,
    },
    results=results,
  )
  return results


if __name__ == "__main__":
  main()
