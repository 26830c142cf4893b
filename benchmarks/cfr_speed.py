"""CFR+ milliseconds per iteration: jaxcfr next to OpenSpiel's C++ solver, OpenSpiel's
JaxCFR and LiteEFG, in the same run, as ratios; and the cost per run of batches.

    python benchmarks/cfr_speed.py                       # all games, all peers
    python benchmarks/cfr_speed.py --games leduc_poker --peers openspiel_cpp

Peers run one at a time in their own processes (benchmarks/peers.py); ours runs in this
process (float32) and in a child process (float64, the peers' precision except JaxCFR).
Goals of the batch-scaling issue, on a CPU: Leduc >= 800x OpenSpiel C++ and liars_dice
>= 100x per iteration (the CFR issue's were 150x, 20x JaxCFR and 50x); a batch of 64 costs
<= 8x one run and of 512 <= 64x (best layout, sharding allowed); the per-run cost is
reported for B = 1..4096.
The results file records the hardware.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ours as ours_lib  # noqa: E402  pylint: disable=wrong-import-position
import peers  # noqa: E402  pylint: disable=wrong-import-position
from record import read_record, write_record  # noqa: E402  pylint: disable=wrong-import-position

GAMES = ("kuhn_poker", "leduc_poker", "liars_dice", "goofspiel(num_cards=5,imp_info=True)")  # OpenSpiel strings
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
VMAP_BATCHES = (1, 8, 64, 512)  # vmap's leading axis is several times slower: a few points
LAYOUTS = ("trailing", "library", "sharded", "library_sharded", "vmap")
GOALS = {
  ("leduc_poker", "openspiel_cpp"): 800,
  ("leduc_poker", "openspiel_jax"): 20,
  ("liars_dice", "openspiel_cpp"): 100,
}


def ours(game_string: str, dtype: str) -> dict:
  """Our CFR+ timing; float64 without x64 enabled runs in a child process (x64 is process-wide)."""
  import jax  # pylint: disable=import-outside-toplevel

  if dtype == "float64" and not jax.config.jax_enable_x64:
    command = [sys.executable, __file__, "--ours-only", game_string]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])
  import jaxcfr  # pylint: disable=import-outside-toplevel

  return ours_lib.cfr_ms_per_iteration(jaxcfr.load(game_string, dtype=dtype))


def sharded_batches(game_string: str) -> dict:
  """Batch timings with the trailing batch axis split over one host device per usable core
  (a child process: the device count is fixed when JAX starts)."""
  from jaxcfr import xla_setup  # pylint: disable=import-outside-toplevel

  env = {**os.environ, "XLA_FLAGS": f"--{xla_setup.DEVICE_COUNT}={xla_setup.usable_cores()}"}
  command = [sys.executable, __file__, "--sharded-batches", game_string]
  out = subprocess.run(command, capture_output=True, text=True, check=True, env=env).stdout
  return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--games", default=";".join(GAMES), help="';'-separated game strings")
  parser.add_argument("--peers", default=",".join(peers.PEERS))
  parser.add_argument("--batch-game", default="leduc_poker")
  parser.add_argument("--peer-timeout", type=float, default=1800.0)
  parser.add_argument("--out", default=None, help="results file (default: benchmarks/results/cfr_speed_<backend>.json)")
  parser.add_argument("--ours-only", metavar="GAME", help=argparse.SUPPRESS)
  parser.add_argument("--sharded-batches", metavar="GAME", help=argparse.SUPPRESS)
  args = parser.parse_args(argv)

  if args.ours_only:  # the float64 child process
    import jax  # pylint: disable=import-outside-toplevel

    jax.config.update("jax_enable_x64", True)
    print(json.dumps(ours(args.ours_only, "float64")))
    return 0

  if args.sharded_batches:  # the child process of sharded_batches
    import jaxcfr  # pylint: disable=import-outside-toplevel

    game = jaxcfr.load(args.sharded_batches)
    print(
      json.dumps(
        {
          f"{loop}_{b}": ours_lib.cfr_ms_per_iteration(game, batch=b, shard=True, library=loop == "library")
          for loop in ("user", "library")
          for b in BATCHES
        }
      )
    )
    return 0

  import jaxcfr  # pylint: disable=import-outside-toplevel

  games = [g.strip() for g in args.games.split(";") if g.strip()]
  chosen_peers = [p for p in args.peers.split(",") if p]
  record = {"games": {}, "batches": {}}
  for game in games:
    row = {"jaxcfr_float32": ours(game, "float32"), "jaxcfr_float64": ours(game, "float64"), "peers": {}}
    base = row["jaxcfr_float32"]["ms_per_iteration"]
    print(
      f"{game}: jaxcfr {base:.4f} ms/iter (float32), {row['jaxcfr_float64']['ms_per_iteration']:.4f} (float64)",
      flush=True,
    )
    for peer in chosen_peers:
      result = peers.run_peer_isolated(
        peer, game, iterations=5, timeout_s=args.peer_timeout, check_game="kuhn_poker", check_iterations=10
      )
      if result.get("timing"):
        ms = result["timing"]["ms_per_iteration"]
        result["speedup_float32"] = ms / base
        result["speedup_float64"] = ms / row["jaxcfr_float64"]["ms_per_iteration"]
        goal = GOALS.get((game, peer))
        result["goal"] = goal
        verdict = (
          "" if goal is None else f" (goal {goal}x: {'met' if result['speedup_float32'] >= goal else 'NOT met'})"
        )
        print(
          f"  {peer:14s} {ms:10.3f} ms/iter  -> jaxcfr {result['speedup_float32']:.1f}x faster"
          f" (float64: {result['speedup_float64']:.1f}x){verdict}",
          flush=True,
        )
      else:
        print(f"  {peer:14s} {result.get('error')}", flush=True)
      row["peers"][peer] = result
    record["games"][game] = row

  game = jaxcfr.load(args.batch_game)
  single = ours(args.batch_game, "float32")["ms_per_iteration"]
  print(f"batches on {args.batch_game} (one run: {single:.4f} ms/iter)")
  sharded = sharded_batches(args.batch_game)
  for layout in LAYOUTS:
    for batch in VMAP_BATCHES if layout == "vmap" else BATCHES:
      if layout.endswith("sharded"):
        result = sharded[f"{'library' if layout == 'library_sharded' else 'user'}_{batch}"]
      else:
        result = ours_lib.cfr_ms_per_iteration(game, batch=batch, vmap=layout == "vmap", library=layout == "library")
      result["cost_vs_one_run"] = result["ms_per_iteration"] / single
      result["ms_per_run_iteration"] = result["ms_per_iteration"] / batch
      record["batches"][f"{layout}_{batch}"] = result
      print(
        f"  {layout:8s} B={batch:4d}: {result['ms_per_iteration']:9.3f} ms/iter for the batch, "
        f"{result['cost_vs_one_run']:7.1f}x one run",
        flush=True,
      )
  backend = jaxcfr.run.hardware.hardware()["backend"]
  out = Path(args.out or Path(__file__).parent / "results" / f"cfr_speed_{backend}.json")
  if out.exists():  # a run over some games keeps the other games' rows of an earlier run
    earlier = read_record(out)["results"]
    record["games"] = {
      **{g: r for g, r in earlier.get("games", {}).items() if g not in record["games"]},
      **record["games"],
    }
  configuration = {
    "algorithm": "cfr+",
    "games": list(record["games"]),
    "peers": chosen_peers,
    "dtypes": ["float32", "float64"],
    "batch_game": args.batch_game,
    "batches": list(BATCHES),
    "vmap_batches": list(VMAP_BATCHES),
    "batch_layouts": list(LAYOUTS),
    "peer_iterations": 5,
    "goals": {f"{g} vs {p}": goal for (g, p), goal in GOALS.items()},
  }
  write_record(
    out,
    benchmark="cfr_speed",
    description="CFR+ milliseconds per iteration: jaxcfr (float32 in this process, float64 in a child "
    "process; jitted fori_loop chunks of ~0.1 s, timed for >= 1 s after compilation) next "
    "to the peers (each in its own process), as ratios; then the cost of batches of runs "
    "on batch_game: trailing batch axes with a user's fori_loop of solver.step ('trailing') or "
    "the solver's own run ('library'); each "
    "with the trailing axis sharded over one host device per core ('sharded', "
    "'library_sharded'); and jax.vmap's leading axis ('vmap'). The CPU may be shared "
    "with other jobs.",
    configuration=configuration,
    results=record,
  )
  print(f"wrote {out}")
  return 0


if __name__ == "__main__":
  os.environ.setdefault("PYTHONUNBUFFERED", "1")
  sys.exit(main())
