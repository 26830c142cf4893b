"""DCFR as the poker solvers run it: dcfr, dcfr-pfs (postflop-solver) and dcfr-ts (TexasSolver), with CFR+ beside.

    python -m benchmarks dcfr_presets                                  # endgames 4, 3, 2, 1
    python -m benchmarks dcfr_presets --endgames 3,4 --max-iterations 2000

Every preset of ``--presets`` that alternates its updates and does not predict runs the same
step (jaxcfr.solvers.cfr with the schedule's hyperparameters, jaxcfr.solvers.cfr_schedule), so
all of them run on one Libratus endgame (its tree over the hands in play) as one batched program (a batch over the
hyperparameters, the tree shared), float32 on the public tree. The exploitability (NashConv / 2,
chips) of each run's average strategy is checked every ``--every`` iterations, as
postflop-solver checks it; recorded: the iterations (and the batch's seconds) at which each run
first reaches 0.5, 0.3 and 0.1% of the pot, and its curve. A run stops at
``--max-iterations`` or after ``--max-minutes`` (then ``null`` for the targets not reached).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

TARGETS = (0.5, 0.3, 0.1)


def solve(endgame: int, presets: list, every: int, max_iterations: int, max_minutes: float) -> dict:
  import jax  # pylint: disable=import-outside-toplevel
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel
  import numpy as np  # pylint: disable=import-outside-toplevel

  import jaxcfr  # pylint: disable=import-outside-toplevel
  from jaxcfr import solvers  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits.public_tree import values  # pylint: disable=import-outside-toplevel
  from jaxcfr.solvers import cfr  # pylint: disable=import-outside-toplevel

  start = time.perf_counter()
  game = jaxcfr.load(f"hunl_subgame(endgame={endgame},hands=in_play)", representation="public_tree")
  tree, pot = game.tensors, float(game.info.pot)
  defaults = [cfr.preset_hyperparameters(p) for p in presets]
  batch = {k: jnp.asarray([d[k] for d in defaults]) for k in defaults[0]}
  solver = solvers.get(presets[0], "public_tree")
  state = solver.init(tree, **batch)
  exploitability = jax.jit(lambda t, s: values.exploitability(t, solver.average_strategy(t, s)))
  row = {"pot": pot, "statistics": game.statistics(), "build_and_load_s": time.perf_counter() - start}
  curves, reached, clock, done = [[] for _ in presets], [dict() for _ in presets], time.perf_counter(), 0
  while True:
    value = np.asarray(exploitability(tree, state), float)
    seconds = time.perf_counter() - clock
    for k in range(len(presets)):
      curves[k].append([done, float(value[k])])
      for target in TARGETS:
        if target not in reached[k] and value[k] <= pot * target / 100:
          reached[k][target] = {"iterations": done, "seconds": seconds}
    print(endgame, done, f"{seconds:.0f} s", np.round(value / pot * 100, 3).tolist(), flush=True)
    if all(len(r) == len(TARGETS) for r in reached) or done >= max_iterations or seconds > 60 * max_minutes:
      break
    state = jax.block_until_ready(solver.run(tree, state, every))
    done += every
  row["seconds_per_iteration_of_the_batch"] = (time.perf_counter() - clock) / max(done, 1)
  row["presets"] = {
    name: {
      "hyperparameters": {k: float(v) for k, v in defaults[k_].items()},
      **{f"iterations_to_{t}": reached[k_].get(t, {}).get("iterations") for t in TARGETS},
      **{f"batch_seconds_to_{t}": reached[k_].get(t, {}).get("seconds") for t in TARGETS},
      "curve_pot_percent": [[i, e / pot * 100] for i, e in curves[k_]],
    }
    for k_, name in enumerate(presets)
  }
  row["iterations"] = done
  return row


def main(argv: list[str] | None = None) -> dict:
  parser = argparse.ArgumentParser(prog="python -m benchmarks dcfr_presets", description=__doc__.splitlines()[0])
  parser.add_argument("--endgames", default="4,3,2,1", help="comma-separated Libratus endgames (1..4)")
  parser.add_argument("--presets", default="dcfr,dcfr-pfs,dcfr-ts,cfr+", help="presets sharing one step")
  parser.add_argument("--every", type=int, default=10, help="iterations between exploitability checks")
  parser.add_argument("--max-iterations", type=int, default=3000, help="each endgame stops here at the latest")
  parser.add_argument("--max-minutes", type=float, default=60.0, help="each endgame stops at the first check after")
  parser.add_argument(
    "--out", default=str(Path(__file__).parent / "results" / "dcfr_presets.json"), help="the results file"
  )
  args = parser.parse_args(argv)
  from jaxcfr.solvers import cfr  # pylint: disable=import-outside-toplevel

  presets = [p for p in args.presets.split(",") if p]
  for name in presets:
    preset = cfr.PRESETS.get(name)
    if preset is None or preset.predictive or preset.updates != "alternating":
      parser.error(f"--presets: {name!r} is not an alternating, non-predictive CFR preset (one step for all)")
  path = Path(args.out)
  results = json.loads(path.read_text())["results"] if path.exists() else {}
  for endgame in [int(e) for e in args.endgames.split(",") if e]:
    results[f"endgame{endgame}"] = solve(endgame, presets, args.every, args.max_iterations, args.max_minutes)
    write_record(
      args.out,
      benchmark="dcfr_presets",
      description=__doc__.split("\n\n")[0].replace("\n", " ")
      + " Iterations to 0.5/0.3/0.1% of the pot, exploitability checked every 10 iterations, float32, "
      "XLA:CPU, one batched program per endgame (presets as a batch over hyperparameters).",
      configuration={**vars(args), "presets": presets},
      results=results,
    )
  return results


if __name__ == "__main__":
  main()
