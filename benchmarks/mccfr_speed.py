"""MCCFR speed next to OpenSpiel's C++ solvers, in the same run, on the same machine:
outcome sampling (trajectories per second, against ``OutcomeSamplingMCCFRSolver``) and
external sampling (time per iteration and nodes touched per second, against
``ExternalSamplingMCCFRSolver``; chance-sampled CFR beside it, which OpenSpiel's C++ lacks).

One OpenSpiel ``run_iteration`` samples two trajectories (player 0's update, then player
1's), so its trajectories per second are ``2 * iterations / s``. Ours: one ``step`` draws
K trajectories per player for each of B seeds (one batch, trailing axes), so
``2 * K * B * steps / s``. K = 1, B = 1 is the papers' algorithm itself; larger K averages
K sampled regrets per update (a mini-batch), larger B runs independent seeds.
``--devices N`` splits the CPU into N XLA host devices and shards the seed batch over them
(jaxcfr.run.sharding), so that XLA uses N cores; OpenSpiel's solver is single-threaded.
Everything is float32, timed after compilation, best of ``--repeats``.

External sampling: one iteration is one traversal per player (OpenSpiel's ``run_iteration``);
ours with one seed (the algorithm itself) and with a batch of seeds. Nodes touched per
iteration are Lanctot et al. 2009's count (histories consistent with the sample); OpenSpiel's solver
does not count them, so its nodes per second use our mean per iteration (the same sampling
scheme, per visited history, touches the same expected number).

  python -m benchmarks mccfr_speed [--game leduc_poker] [--es-games kuhn_poker,leduc_poker]
                                  [--devices 2] [--out ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def _parse(argv):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--game", default="leduc_poker")
  parser.add_argument(
    "--devices",
    type=int,
    default=os.cpu_count() or 1,
    help="XLA host devices for the sharded batch runs (default: CPU count)",
  )
  parser.add_argument(
    "--es-games",
    default="kuhn_poker,leduc_poker",
    help="games of the external / chance sampling comparison ('' to skip)",
  )
  parser.add_argument("--seconds", type=float, default=2.0, help="about how long to time each configuration")
  parser.add_argument("--repeats", type=int, default=3)
  parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "mccfr_speed.json"))
  return parser.parse_args(argv)


# The device count must be known before jax starts: ``python benchmarks/mccfr_speed.py ARGS`` and
# ``python -m benchmarks mccfr_speed ARGS`` both parse their arguments here, at import.
_COMMAND_LINE = (
  sys.argv[1:]
  if __name__ == "__main__"
  else sys.argv[2:]
  if sys.argv[1:2] == ["mccfr_speed"] and Path(sys.argv[0]).parent.name == "benchmarks"
  else []
)
ARGS = _parse(_COMMAND_LINE)
if ARGS.devices > 1:  # must precede the first import of jax
  os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + f" --xla_force_host_platform_device_count={ARGS.devices}"
  ).strip()

import jax  # pylint: disable=wrong-import-position
import pyspiel  # pylint: disable=wrong-import-position

import jaxcfr  # pylint: disable=wrong-import-position
import ours as ours_lib  # noqa: E402  pylint: disable=wrong-import-position
from record import read_record, write_record  # noqa: E402  pylint: disable=wrong-import-position
from timing import best_seconds  # noqa: E402  pylint: disable=wrong-import-position

EPSILON = 0.6
TRAVERSALS = (("mccfr-es", 1), ("mccfr-es", 64), ("cfr-cs", 1), ("cfr-cs", 64))  # (algorithm, seeds)


def _time_openspiel(solver, seconds: float, repeats: int) -> tuple[int, float]:
  """(iterations, best seconds) of an OpenSpiel MCCFR solver: 1000 warm-up iterations (the
  tables fill), then a count calibrated to take about ``seconds``, timed ``repeats`` times."""
  for _ in range(1000):
    solver.run_iteration()
  start, n = time.perf_counter(), 0
  while time.perf_counter() - start < 0.2:
    solver.run_iteration()
    n += 1
  iterations = max(1000, int(n * seconds / 0.2))

  def run():
    for _ in range(iterations):
      solver.run_iteration()

  return iterations, best_seconds(run, repeats)


def openspiel_rate(game_string: str, seconds: float, repeats: int) -> dict:
  solver = pyspiel.OutcomeSamplingMCCFRSolver(pyspiel.load_game(game_string), EPSILON, 1)
  iterations, best = _time_openspiel(solver, seconds, repeats)
  return {
    "solver": "pyspiel.OutcomeSamplingMCCFRSolver (C++)",
    "epsilon": EPSILON,
    "iterations": iterations,
    "seconds": best,
    "iterations_per_s": iterations / best,
    "trajectories_per_s": 2 * iterations / best,
  }


def openspiel_es_rate(game_string: str, seconds: float, repeats: int) -> dict:
  solver = pyspiel.ExternalSamplingMCCFRSolver(pyspiel.load_game(game_string), 1)
  iterations, best = _time_openspiel(solver, seconds, repeats)
  return {
    "solver": "pyspiel.ExternalSamplingMCCFRSolver (C++)",
    "iterations": iterations,
    "seconds": best,
    "iterations_per_s": iterations / best,
    "ms_per_iteration": 1e3 * best / iterations,
  }


def traversal_comparison(game_string: str, seconds: float, repeats: int) -> dict:
  game = jaxcfr.load(game_string)
  reference = openspiel_es_rate(game_string, seconds, repeats)
  rows = []
  for algorithm, batch in TRAVERSALS:
    row = ours_lib.traversal_rate(game, algorithm, batch, seconds, repeats)
    rows.append(row)
    print(
      f"{game.name:14} ours {algorithm:8} B={batch:2d}: {row['ms_per_iteration']:.4f} ms/step, "
      f"{row['iterations_per_s']:>10,.0f} it/s, {row['nodes_touched_per_s']:>12,.0f} nodes/s",
      flush=True,
    )
  es = rows[0]
  reference["nodes_touched_per_s"] = es["nodes_touched_per_iteration"] * reference["iterations_per_s"]
  print(
    f"{game.name:14} OpenSpiel C++ ES:   {reference['ms_per_iteration']:.4f} ms/it, "
    f"{reference['iterations_per_s']:>10,.0f} it/s; ours B=1 is "
    f"{reference['ms_per_iteration'] / es['ms_per_iteration']:.2f}x its speed",
    flush=True,
  )
  return {
    "histories": game.arrays.num_histories,
    "frontier_capacity": {str(p): list(game.tensors.tree.statics.frontier_capacity(p)) for p in ((0,), (1,), (0, 1))},
    "openspiel": reference,
    "ours": rows,
    "es_speed_ratio_to_openspiel": reference["ms_per_iteration"] / es["ms_per_iteration"],
  }


def main(argv=None) -> dict:
  args = ARGS if argv is None else _parse(argv)  # --devices only counts at import (see ARGS)
  game = jaxcfr.load(args.game)
  devices = len(jax.devices())
  reference = openspiel_rate(args.game, args.seconds, args.repeats)
  print(f"OpenSpiel C++ outcome sampling: {reference['trajectories_per_s']:,.0f} trajectories/s")
  # (K trajectories per update, B seeds, host devices the seeds are sharded over)
  configurations = [
    (1, 1, 1),
    (1, 64, 1),
    (64, 1, 1),
    (256, 1, 1),
    (1024, 1, 1),
    (4096, 1, 1),
    (256, 8, 1),
    (1024, 4, 1),
  ]
  if devices > 1:
    configurations += [
      (1, 64, devices),
      (256, 8 * devices, devices),
      (1024, 2 * devices, devices),
      (4096, devices, devices),
    ]
  rows = []
  for trajectories, batch, shards in configurations:
    row = ours_lib.outcome_sampling_rate(game, trajectories, batch, shards, args.seconds, args.repeats)
    row["ratio_to_openspiel"] = row["trajectories_per_s"] / reference["trajectories_per_s"]
    rows.append(row)
    print(
      f"ours K={trajectories:5d} B={batch:3d} devices={shards}: "
      f"{row['trajectories_per_s']:>12,.0f} trajectories/s  ({row['ratio_to_openspiel']:.2f}x OpenSpiel)",
      flush=True,
    )
  best = max(rows, key=lambda r: r["trajectories_per_s"])
  best_one_device = max((r for r in rows if r["devices"] == 1), key=lambda r: r["trajectories_per_s"])
  description = (
    "outcome sampling (epsilon = 0.6, alternating updates) trajectories per second, "
    "ours (float32, K trajectories per update, B seeds vmapped, sharded over host "
    "devices when devices > 1) next to OpenSpiel's C++ OutcomeSamplingMCCFRSolver "
    f"(single thread), best of {args.repeats} timed runs after compilation. external_sampling: "
    "time per iteration (one traversal per player, alternating) and nodes touched per "
    "second of external sampling (mccfr-es, frontier walks) next to OpenSpiel's C++ "
    "ExternalSamplingMCCFRSolver (single thread), and chance-sampled CFR (cfr-cs); ours "
    "float32, one seed or 64 vmapped seeds on one device; OpenSpiel's nodes per second "
    "use our mean nodes touched per iteration"
  )
  es_games = list(filter(None, args.es_games.split(";" if ";" in args.es_games else ",")))
  configuration = {
    "game": game.name,
    "epsilon": EPSILON,
    "dtype": "float32",
    "seconds": args.seconds,
    "repeats": args.repeats,
    "devices": devices,
    "outcome_sampling": [{"trajectories_per_update": k, "seeds": b, "devices": d} for k, b, d in configurations],
    "external_sampling_games": es_games,
    "external_sampling": [{"algorithm": a, "seeds": b} for a, b in TRAVERSALS],
  }
  result = {
    "openspiel": reference,
    "ours": rows,
    "best": {
      "trajectories_per_s": best["trajectories_per_s"],
      "ratio_to_openspiel": best["ratio_to_openspiel"],
      "configuration": {k: best[k] for k in ("trajectories_per_update", "seeds", "devices")},
    },
    "best_one_device": {
      "trajectories_per_s": best_one_device["trajectories_per_s"],
      "ratio_to_openspiel": best_one_device["ratio_to_openspiel"],
      "configuration": {k: best_one_device[k] for k in ("trajectories_per_update", "seeds")},
    },
    "papers_algorithm": {
      "note": "K = 1, one seed: one trajectory per player per iteration",
      "trajectories_per_s": rows[0]["trajectories_per_s"],
      "ratio_to_openspiel": rows[0]["ratio_to_openspiel"],
    },
    "external_sampling": {"games": {name: traversal_comparison(name, args.seconds, args.repeats) for name in es_games}},
  }
  out = Path(args.out)
  write_record(out, benchmark="mccfr_speed", description=description, configuration=configuration, results=result)
  print(
    f"best: {best['trajectories_per_s']:,.0f} trajectories/s = {best['ratio_to_openspiel']:.2f}x OpenSpiel; wrote {out}"
  )
  return read_record(out)


if __name__ == "__main__":
  main()
