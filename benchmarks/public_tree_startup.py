"""Command to answer of ``jaxcfr solve`` on the public tree without, with a cold and with a warm compilation cache.

    python -m benchmarks public_tree_startup
    python -m benchmarks public_tree_startup --games 'hunl_subgame(endgame=4,hands=in_play)' --repeats 3

Each run is a fresh ``jaxcfr solve GAME --representation public_tree --algo ALGO --iters N``
process pinned to one core (``--core``; ``XLA_FLAGS=--xla_force_host_platform_device_count=1``),
its game cache warm (a first run fills it), timed from the command's start to its exit, with its
own peak memory (``os.wait4``) and what its ``--json`` record says of compiling and running.
Per repeat: ``--no-compilation-cache``; ``cold``, the compilation cache on and empty (a new
folder); ``warm``, the same command again, the programs now on disk. Medians of ``--repeats``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from poker_peer import run_process  # noqa: E402  pylint: disable=wrong-import-position
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

GAMES = tuple(f"hunl_subgame(endgame={e},hands=in_play)" for e in (4, 3, 2))
MODES = ("off", "cold", "warm")


def one(game: str, mode: str, folder: Path, args) -> dict:
  out = folder / "record.json"
  command = [shutil.which("jaxcfr") or "jaxcfr", "solve", game, "--representation", "public_tree"]
  command += ["--algo", args.algorithm, "--iters", str(args.iters), "--eval-every", str(args.iters), "--no-progress"]
  command += ["--json", str(out)] + (["--no-compilation-cache"] if mode == "off" else [])
  env = dict(os.environ, JAXCFR_CACHE_DIR=str(args.game_cache), JAX_PLATFORMS="cpu")
  env.pop("JAX_COMPILATION_CACHE_DIR", None)
  if mode != "off":  # the compilation cache is xla/ under the game cache: a copy of the warm one, without xla/
    env["JAXCFR_CACHE_DIR"] = str(folder / "game_cache")
    if not (folder / "game_cache").exists():
      shutil.copytree(args.game_cache, folder / "game_cache", ignore=shutil.ignore_patterns("xla"))
  flags = env.get("XLA_FLAGS", "")
  env["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count=1".strip()
  run = run_process(command, core=args.core, env=env)
  if run["returncode"] != 0:
    raise RuntimeError(f"{' '.join(command)} failed: {run['stderr_tail']}")
  record = json.loads(out.read_text())
  return {
    "command_to_answer_s": run["wall_s"],
    "peak_rss_bytes": run["peak_rss_bytes"],
    "compile_s": record.get("compile_seconds"),
    "run_s": record.get("run_seconds"),
    "solve_s": record.get("seconds"),
    "exploitability_pot_percent": record.get("exploitability_pot_percent"),
    "load_average": os.getloadavg()[0],
  }


def main(argv: list[str] | None = None) -> dict:
  parser = argparse.ArgumentParser(prog="python -m benchmarks public_tree_startup", description=__doc__.splitlines()[0])
  parser.add_argument("--games", default=";".join(GAMES), help="semicolon-separated game strings")
  parser.add_argument("--algorithm", default="dcfr-pfs", help="the solver")
  parser.add_argument("--iters", type=int, default=200, help="iterations of every run")
  parser.add_argument("--repeats", type=int, default=3, help="repeats of the three modes (medians recorded)")
  parser.add_argument("--core", type=int, default=1, help="the CPU core the runs are pinned to")
  parser.add_argument(
    "--out", default=str(HERE / "results" / "public_tree_startup.json"), help="the results file (JSON)"
  )
  args = parser.parse_args(argv)
  results = {}
  with tempfile.TemporaryDirectory(prefix="startup_") as top:
    args.game_cache = Path(top) / "game_cache"
    args.game_cache.mkdir()  # a public tree is not cached: the first run may write nothing there
    for game in [g for g in args.games.split(";") if g]:
      runs = {mode: [] for mode in MODES}
      one(game, "off", Path(top), args)  # fills the game cache (strength tables), untimed
      for repeat in range(args.repeats):
        folder = Path(top) / f"{len(results)}_{repeat}"
        folder.mkdir()
        for mode in ("cold", "warm", "off"):
          runs[mode].append(one(game, mode, folder, args))
          print(game, mode, runs[mode][-1], flush=True)
      results[game] = {
        mode: {k: statistics.median(r[k] for r in rows) for k in rows[0] if rows[0][k] is not None}
        for mode, rows in runs.items()
      }
      results[game]["runs"] = runs
      write_record(
        args.out,
        benchmark="public_tree_startup",
        description=__doc__.split("\n\n")[0].replace("\n", " ")
        + " Shared 2-core CPU under other load (load_average per run).",
        configuration={k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        results=results,
      )
  return results


if __name__ == "__main__":
  main()
