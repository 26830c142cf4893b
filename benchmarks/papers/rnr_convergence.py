"""RNR against Monte-Carlo RNR, convergence in time: Ponsen et al. 2011 Figure 7's experiment.

For each game:
  * the model sigma_fix is the average strategy of an outcome-sampling MCCFR run (seed 0,
    epsilon 0.6), extended in chunks until its NashConv is <= 0.1 (the paper's
    "run until eps_sigma_fix <= 0.1"; capped at --model-seconds, the reached value is
    recorded);
  * for every p, two runs, one restricting each player, in one batch per solver;
  * y: the NashConv ``b1(sigma2) + b2(sigma1)`` of the paired profile (player 0's
    counter-strategy from the run restricting player 1, player 1's from the run restricting
    player 0; Ponsen et al. 2011, Figure 7's caption); it need not reach 0 for p > 0;
  * x: wall time of the solver iterations (compilation and the evaluations excluded), and
    nodes touched (MCRNR: the histories on its sampled paths, mean over the runs; RNR: four
    times the game's histories per iteration, both players' walks of the restricted game's
    two copies of the tree, as a tree-walking RNR touches them).
Solvers: RNR on vanilla CFR (the paper's "RNR"), RNR on CFR+ (jaxcfr's default) and MCRNR
(jaxcfr.solvers.mcrnr: outcome sampling, epsilon 0.6, --trajectories per walk, by default the
paper's one).
Each solver's iterations run in chunks that double, to a --seconds budget per solver.

Default games, on this CPU: OCP(500), Bluff(1,1,6), Goofspiel(4) and PAM(3, 3, 5). Ponsen et
al. 2011's text gives a size for these experiments only for OCP ("we use a deck of size
N = 500", section 4.3.1); for Goofspiel, Bluff and PAM it gives none, so Bluff(1,1,6),
Goofspiel(4) and PAM(3, 3, 5) are this project's choices, the last two smaller than Lanctot
et al. 2009's Goof(7) and PAM(3, 3, 11) (those take ~1 s per CFR iteration here, see
benchmarks/papers/results/full_size_games.json; run them with --games on a GPU). On this CPU the
largest PAM that fits 8 GiB (PAM(3,3,11)'s build peaks at 11.1 GiB) made rnr_convergence_pam10.json
(one core, about 25 minutes, 4.3 GiB peak RSS):

  python -m benchmarks rnr_convergence --games 'princess_and_monster(rows=3,cols=3,horizon=10)' \
    --seconds 240 --model-seconds 600 --out benchmarks/papers/results/rnr_convergence_pam10

Lanctot et al. 2009's PAM(3,3,11) runs the same way with the memory guard raised past the 8 GiB
(its seconds, niced on a core shared with other work, are indicative; the comparison is in nodes
touched). No record of it yet: on 2026-11-29 this run fit in memory (about 10 GiB anonymous) but
was starved of CPU by the core's other work and stopped unfinished after 100 minutes (its model
had reached NashConv 0.41 after 348,000 outcome-sampling iterations in the 600 s, short of the
paper's 0.1: give it a larger --model-seconds); it needs a core of its own for about an hour:

  JAXCFR_MAX_MEMORY=13G nice -n 15 taskset -c 0 python -m benchmarks rnr_convergence \
    --games 'princess_and_monster(rows=3,cols=3,horizon=11)' --seconds 240 --model-seconds 600 \
    --note '...' --out benchmarks/papers/results/rnr_convergence_pam11

  python benchmarks/papers/rnr_convergence.py [--games ...] [--out benchmarks/papers/results/rnr_convergence]

writes OUT.json (with date, hardware and commit) and, with matplotlib, OUT.png.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

import jax
import numpy as np

import jaxcfr
from jaxcfr import solvers
from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.base.game_strings import split_game_list
from jaxcfr.solvers import mccfr_state, mcrnr
from record import read_record, write_record  # noqa: E402  pylint: disable=wrong-import-position
from timing import timed  # noqa: E402  pylint: disable=wrong-import-position

# Nodes touched by one RNR iteration, in histories of the game: the restricted game is two copies
# of the tree below the hidden coin (the opponent on the model, or free), and alternating updates
# walk it once for each player (Lanctot et al. 2009 section 5 counts nodes touched as histories
# visited).
RNR_WALKS = 4
GAMES = (
  "one_card_poker(num_cards=500),liars_dice(dice_sides=6),goofspiel(num_cards=4),"
  "princess_and_monster(rows=3,cols=3,horizon=5)"
)


def model_from_mccfr(game, *, target: float, seconds: float, trajectories: int = 64, chunk: int = 2000):
  """The average of an outcome-sampling run (``trajectories`` per walk) extended until its
  NashConv is <= target (or ``seconds`` have passed)."""
  tensors = game.tensors
  solver = solvers.get("mccfr-os", trajectories=trajectories)
  run = lambda s, n: solver.run(tensors, s, n)  # jitted, n traced
  nash_conv = jax.jit(lambda s: evaluation.nash_conv(tensors, solver.average_strategy(tensors, s)))
  state, start = solver.init(tensors, seed=0), time.perf_counter()
  while True:
    state = run(state, chunk)
    value = float(nash_conv(state))
    if value <= target or time.perf_counter() - start > seconds:
      return solver.average_strategy(tensors, state), {
        "nash_conv": value,
        "iterations": int(state.iteration),
        "trajectories": trajectories,
        "seconds": time.perf_counter() - start,
      }


def convergence(tensors, state, solver, paired, nodes, *, seconds: float, first_chunk: int):
  """[(seconds, iterations, nodes touched, NashConv [P])] at doubling chunks until
  ``seconds`` of solving (``solver.run`` is jitted with a traced count: one compilation for
  every chunk); ``nodes(state, iterations)`` counts the nodes touched per run so far."""
  run = lambda s, n: solver.run(tensors, s, n)
  measure = jax.jit(lambda s: evaluation.nash_conv(tensors, paired(s)))
  jax.block_until_ready(run(state, 1))  # compile
  points, elapsed, iterations, chunk = [], 0.0, 0, first_chunk
  while elapsed < seconds:
    seconds_taken, state = timed(lambda: run(state, chunk))  # pylint: disable=cell-var-from-loop
    elapsed += seconds_taken
    iterations += chunk
    points.append(
      {
        "seconds": elapsed,
        "iterations": iterations,
        "nodes_touched": float(nodes(state, iterations)),
        "nash_conv": np.asarray(measure(state)).tolist(),
      }
    )
    chunk *= 2
  return points


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--games", default=GAMES)
  parser.add_argument("--ps", default="0.5,0.9")
  parser.add_argument("--seconds", type=float, default=60.0, help="solving time per solver and game")
  parser.add_argument("--model-seconds", type=float, default=120.0)
  parser.add_argument("--model-target", type=float, default=0.1, help="NashConv of the model")
  parser.add_argument("--trajectories", type=int, default=1, help="MCRNR trajectories per walk (the paper's: 1)")
  parser.add_argument("--dtype", default="float32")
  parser.add_argument(
    "--note", default="", help="how the run was made (e.g. a niced process on a shared core), added to the record"
  )
  parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "rnr_convergence"))
  args = parser.parse_args(argv)
  if args.dtype == "float64":
    jax.config.update("jax_enable_x64", True)
  ps = [float(p) for p in args.ps.split(",")]
  grid_p = np.array(ps * 2)
  grid_r = np.array([1] * len(ps) + [0] * len(ps), np.int32)  # first half restricts player 1
  half = len(ps)
  results = {}
  for name in split_game_list(args.games):
    game = jaxcfr.load(name, dtype=args.dtype)
    tensors = game.tensors
    model, model_info = model_from_mccfr(game, target=args.model_target, seconds=args.model_seconds)
    print(
      f"{game.name}: model NashConv {model_info['nash_conv']:.4f} after {model_info['iterations']} "
      f"outcome-sampling iterations of {model_info['trajectories']} trajectories",
      flush=True,
    )
    curves = {}
    for algorithm in ("cfr", "cfr+"):
      solver = solvers.get("rnr", base=algorithm)

      def paired(state, solver=solver):
        average = solver.average_strategy(tensors, state)
        return average[0][..., :half], average[1][..., half:]

      state = solver.init(tensors, model=model, p=grid_p, restricted=grid_r)
      walk = RNR_WALKS * game.arrays.num_histories  # per iteration: a tree walk's nodes
      curves[f"rnr-{algorithm}"] = convergence(
        tensors, state, solver, paired, lambda _, n, walk=walk: walk * n, seconds=args.seconds, first_chunk=1
      )
    solver = solvers.get("mcrnr", trajectories=args.trajectories)
    state = solver.init(tensors, model=model, p=grid_p, restricted=grid_r, seed=np.arange(2 * half))
    curves["mcrnr"] = convergence(
      tensors,
      state,
      solver,
      lambda s: mcrnr.paired_profile(tensors, s, solver),
      lambda s, _: np.mean(mccfr_state.nodes_touched(s.inner_state)),
      seconds=args.seconds,
      first_chunk=16,
    )
    for label, points in curves.items():
      last = points[-1]
      print(
        f"  {label:9s} {last['iterations']:>9} iterations in {last['seconds']:.1f} s: NashConv "
        + ", ".join(f"p={p}: {v:.4f}" for p, v in zip(ps, last["nash_conv"])),
        flush=True,
      )
    results[game.name] = {
      "histories": int(game.arrays.num_histories),
      "model": model_info,
      "curves": curves,
      "peak_rss_gib_so_far": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
    }
  write_record(
    args.out + ".json",
    benchmark="rnr_convergence",
    description="Ponsen et al. 2011 Figure 7: RNR vs MCRNR convergence in time and in nodes touched "
    "(NashConv of the restricted player's and its opponent's paired profile against solving seconds, "
    "compilation excluded, and against nodes touched: MCRNR's sampled histories, RNR's "
    f"{RNR_WALKS} x the game's histories per iteration; the model is an outcome-sampling average). "
    "The CPU may be shared with other jobs (the load average is recorded)." + (f" {args.note}" if args.note else ""),
    configuration={
      "games": list(results),
      "ps": ps,
      "seconds_per_solver": args.seconds,
      "model_seconds": args.model_seconds,
      "model_target": args.model_target,
      "mcrnr_trajectories": args.trajectories,
      "seeds": {"model_mccfr_os": 0, "mcrnr_runs": list(range(2 * half))},
      "dtype": args.dtype,
      "solvers": ["rnr-cfr", "rnr-cfr+", "mcrnr"],
      **({"note": args.note} if args.note else {}),
      **({"max_memory": os.environ["JAXCFR_MAX_MEMORY"]} if os.environ.get("JAXCFR_MAX_MEMORY") else {}),
    },
    results={"load_average_1min_at_end": os.getloadavg()[0], "games": results},
  )
  _plot(results, ps, args.out + ".png")
  return read_record(args.out + ".json")


def _plot(results: dict, ps: list, path: str) -> None:
  """NashConv of the paired profile against seconds (top) and nodes touched (bottom)."""
  try:
    import matplotlib  # pylint: disable=import-outside-toplevel

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
  except ImportError:
    return
  fig, axes = plt.subplots(2, len(results), figsize=(4.2 * len(results), 7.0), squeeze=False)
  styles = {"rnr-cfr": "C0", "rnr-cfr+": "C2", "mcrnr": "C3"}
  for column, (name, result) in enumerate(results.items()):
    for row, x in enumerate(("seconds", "nodes_touched")):
      ax = axes[row][column]
      for label, points in result["curves"].items():
        for k, p in enumerate(ps):
          ax.loglog(
            [pt[x] for pt in points],
            [pt["nash_conv"][k] for pt in points],
            color=styles[label],
            linestyle="-" if k == 0 else "--",
            label=f"{label} p={p}",
          )
      ax.set_title(name, fontsize=8)
      ax.set_xlabel(x.replace("_", " "))
      ax.set_ylabel("NashConv of the paired profile")
  axes[0][0].legend(fontsize=6)
  fig.tight_layout()
  fig.savefig(path, dpi=120)


if __name__ == "__main__":
  main()
