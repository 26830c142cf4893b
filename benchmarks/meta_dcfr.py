"""Meta-learning a solver: tune DCFR's (alpha, beta, gamma) (Brown and Sandholm, "Solving
Imperfect-Information Games via Discounted Regret Minimization", 2019) by the gradient of the
mean exploitability after T iterations on a distribution of perturbed Leduc games (every
terminal utility moved by N(0, 0.3^2)), through ``jaxcfr.diff.unrolled``; compare with the
best point of a grid search run as one batch (trailing batch axes over the grid, ``vmap`` over
the games), and with DCFR's published defaults (1.5, 0, 2). Both are scored on held-out games.

    python benchmarks/meta_dcfr.py [--iters 100] [--games 4]
    python benchmarks/meta_dcfr.py --figure-only   # redraw meta_dcfr.png from meta_dcfr.json
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import jaxcfr  # noqa: E402
from jaxcfr import diff, solvers  # noqa: E402
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position


def perturbed_utilities(tensors, count, seed):
  rng = np.random.default_rng(seed)
  noise = rng.normal(size=(count,) + tensors.tree.utility.shape) * 0.3
  return tensors.tree.utility + jnp.asarray(noise, tensors.dtype) * (tensors.tree.kind == 3)


def with_utility(tensors, utility):
  return jaxcfr.with_payoff_from_tree(
    dataclasses.replace(tensors, tree=dataclasses.replace(tensors.tree, utility=utility))
  )


def figure(record: dict, out) -> None:
  """Training exploitability along the descent from each start against the grid's best point
  and DCFR's defaults; and the three points' held-out scores."""
  import matplotlib  # pylint: disable=import-outside-toplevel

  matplotlib.use("Agg")
  import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel

  results, path = record["results"]["rows"], record["results"]["path"]
  fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
  steps = [p["step"] for p in path]
  for k in range(len(path[0]["train_exploitability"])):
    end = path[-1]["alpha_beta_gamma"][k]
    left.semilogy(
      steps,
      [p["train_exploitability"][k] for p in path],
      "o-",
      ms=3,
      label=f"start {k}, ends at ({', '.join(f'{x:.2f}' for x in end)})",
    )
  for name, style in (("grid_best", "--"), ("dcfr_default", ":")):
    left.axhline(
      results[name]["train"],
      color="k",
      ls=style,
      lw=1,
      label=f"{name} {tuple(round(x, 1) for x in results[name]['alpha_beta_gamma'])}",
    )
  left.set(
    xlabel="gradient steps",
    ylabel="mean exploitability (train games)",
    title=f"DCFR tuned by gradient, T = {record['configuration']['iterations']}",
  )
  left.legend(fontsize=6)
  names = list(results)
  right.bar(range(len(names)), [results[n]["test"] for n in names], color=["C0", "C1", "C2"])
  right.set_xticks(
    range(len(names)), [f"{n}\n{tuple(round(x, 2) for x in results[n]['alpha_beta_gamma'])}" for n in names], fontsize=7
  )
  right.set(
    ylabel="mean exploitability (held-out games)",
    title=f"tuned vs best of a {record['results']['grid_points']}-point grid",
  )
  fig.tight_layout()
  fig.savefig(out, dpi=120)
  plt.close(fig)


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__)
  parser.add_argument("--game", default="leduc_poker")
  parser.add_argument("--iters", type=int, default=100)
  parser.add_argument("--games", type=int, default=4)
  parser.add_argument("--steps", type=int, default=100)
  parser.add_argument("--lr", type=float, default=0.05)
  parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "meta_dcfr.json"))
  parser.add_argument("--figure-only", action="store_true", help="redraw the figure from the --out record")
  args = parser.parse_args(argv)
  if args.figure_only:
    figure(json.loads(Path(args.out).read_text()), Path(args.out).with_suffix(".png"))
    return 0
  tensors = jaxcfr.load(args.game).tensors
  solver = solvers.get("dcfr")
  train, test = perturbed_utilities(tensors, args.games, 0), perturbed_utilities(tensors, args.games, 1)

  def exploitability(abg, utility):  # abg [3] or [3, B]
    game = with_utility(tensors, utility)
    state = solver.init(game, alpha=abg[0], beta=abg[1], gamma=abg[2])
    state = diff.unrolled(solver, game, state, args.iters, chunk=10)
    return jaxcfr.exploitability(game, solver.average_strategy(game, state))

  def mean_loss(abg, games):
    return jax.vmap(lambda u: exploitability(abg, u))(games).mean(0)

  # Several starts descend at once: [3, S] hyperparameters are a batch of S runs (trailing axes).
  loss_and_grad = jax.jit(jax.value_and_grad(lambda abg: jnp.log(mean_loss(abg, train)).sum()))
  score = jax.jit(mean_loss)

  start = time.perf_counter()
  starts = jnp.array([[1.0, 1.0, 1.0], [1.5, 0.0, 2.0], [2.0, -1.0, 3.0], [3.0, 0.5, 1.0]], tensors.dtype).T  # [3, S]
  abg = starts
  m, v, path = jnp.zeros_like(abg), jnp.zeros_like(abg), []
  for i in range(args.steps):
    _, g = loss_and_grad(abg)
    m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g**2
    abg = abg - args.lr * (m / (1 - 0.9 ** (i + 1))) / (jnp.sqrt(v / (1 - 0.999 ** (i + 1))) + 1e-8)
    abg = abg.at[2].set(jnp.maximum(abg[2], 0.0))
    if i % 10 == 9 or i == args.steps - 1:
      path.append(
        {
          "step": i + 1,
          "alpha_beta_gamma": np.asarray(abg).T.tolist(),
          "train_exploitability": np.asarray(score(abg, train)).tolist(),
        }
      )
      print(path[-1], flush=True)
  gradient_seconds = time.perf_counter() - start
  abg = abg[:, int(np.argmin(np.asarray(score(abg, train))))]

  grid_values = {
    "alpha": [0.5, 1.0, 1.5, 2.0, 3.0, 5.0],
    "beta": [-2.0, -1.0, 0.0, 0.5, 1.0],
    "gamma": [0.0, 1.0, 2.0, 3.0, 4.0],
  }
  grid = jnp.asarray(list(itertools.product(*grid_values.values())), tensors.dtype).T  # [3, G]
  start = time.perf_counter()
  grid_train = np.asarray(jax.block_until_ready(score(grid, train)))  # one batch: [G] trailing axes x vmap over games
  grid_seconds = time.perf_counter() - start
  best = grid[:, int(np.argmin(grid_train))]
  rows = {
    name: {
      "alpha_beta_gamma": np.asarray(point).tolist(),
      "train": float(score(point, train)),
      "test": float(score(point, test)),
    }
    for name, point in (("gradient", abg), ("grid_best", best), ("dcfr_default", jnp.array([1.5, 0.0, 2.0])))
  }
  print(rows, flush=True)
  write_record(
    args.out,
    benchmark="meta_dcfr",
    description=(
      f"Meta-learning DCFR (alpha, beta, gamma) on {args.games} perturbed {args.game} games (utilities + "
      f"N(0, 0.3^2)), loss = mean exploitability (NashConv/2) of the average strategy after {args.iters} "
      f"iterations; Adam (lr {args.lr}) on the log loss through jaxcfr.diff.unrolled (chunk 10), {args.steps} "
      f"steps from 4 starts batched (the best on the training games kept); grid of {grid.shape[1]} points as one batch; scores on {args.games} held-out games. "
      "float32; CPU shared with other jobs."
    ),
    configuration={
      "game": args.game,
      "iterations": args.iters,
      "games": args.games,
      "lr": args.lr,
      "steps": args.steps,
      "grid": grid_values,
      "seeds": {"training games": 0, "held-out games": 1},  # the utilities' perturbations
      "figure": Path(args.out).with_suffix(".png").name,
    },
    results={
      "gradient_seconds": gradient_seconds,
      "grid_points": int(grid.shape[1]),
      "grid_seconds_incl_compile": grid_seconds,
      "rows": rows,
      "path": path,
    },
  )
  figure(json.loads(Path(args.out).read_text()), Path(args.out).with_suffix(".png"))
  return 0


if __name__ == "__main__":
  sys.exit(main())
