"""What a public-tree solve compiles before and around its first iteration, and what each program costs to compile.

    python -m benchmarks public_tree_compile
    python -m benchmarks public_tree_compile --games 'hunl_subgame(endgame=4)' --xla-flags=--xla_cpu_use_fusion_emitters=false

Two views, each in fresh processes pinned to one core (``--core``), JAX on the CPU, no
compilation cache:

``command``: ``jaxcfr solve GAME --representation public_tree --algo ALGO --iters N`` run with
``JAX_LOG_COMPILES``: every program XLA compiled during the command, in order, with its
seconds of XLA compilation (wall), the programs under ``--small`` seconds counted together;
beside them the command's wall and CPU seconds (user + sys, ``os.wait4``) and what its
``--json`` record says of compiling and running.

``programs``: the pieces one at a time in one process (``jax.jit(f).lower(...)``, then
``.compile()``): each one's seconds to lower and to compile (wall and the process's CPU),
its instructions in the compiled HLO module and its fusions: one player's ``ranges``,
``folds``, ``showdowns``, the ``values`` pass (terminals and bottom-up), a ``best_response``
pass, the solver's ``step`` and the evaluator's ``measure`` (jaxcfr.kits.public_tree.evaluator).
The machine is a shared 2-core CPU under other load: compare CPU seconds, and the load
average recorded with each run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

GAMES = ("hunl_subgame(endgame=4)", "hunl_subgame(endgame=2)")
_COMPILED = re.compile(r"Finished XLA compilation of (\S+) in ([0-9.e-]+) sec")


def _environment(args) -> dict:
  env = dict(os.environ, JAX_PLATFORMS="cpu")
  env.pop("JAX_COMPILATION_CACHE_DIR", None)
  if args.xla_flags:
    env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} {args.xla_flags}".strip()
  return env


def _run(line: list, core: int, env: dict) -> dict:
  """Runs ``line`` pinned to ``core``: its wall seconds, its own CPU seconds (user + sys) and
  peak memory (``os.wait4``), return code and stderr."""
  with tempfile.TemporaryFile() as err:
    start = time.perf_counter()
    process = subprocess.Popen(line, stdout=subprocess.DEVNULL, stderr=err, env=env)
    os.sched_setaffinity(process.pid, {core})
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    err.seek(0)
    return {
      "wall_s": wall,
      "cpu_s": usage.ru_utime + usage.ru_stime,
      "peak_rss_bytes": usage.ru_maxrss * 1024,
      "returncode": os.waitstatus_to_exitcode(status),
      "stderr": err.read().decode(errors="replace"),
    }


def command(game: str, args) -> dict:
  """The programs compiled by one ``jaxcfr solve`` and the command's seconds."""
  with tempfile.TemporaryDirectory(prefix="compile_") as folder:
    out = Path(folder) / "record.json"
    line = [shutil.which("jaxcfr") or "jaxcfr", "solve", game, "--representation", "public_tree"]
    line += ["--algo", args.algorithm, "--iters", str(args.iters), "--eval-every", str(args.iters), "--no-progress"]
    line += ["--json", str(out), "--no-compilation-cache"]
    run = _run(line, args.core, dict(_environment(args), JAX_LOG_COMPILES="1"))
    if run["returncode"] != 0:
      raise RuntimeError(f"{' '.join(line)} failed: {run['stderr'][-2000:]}")
    record = json.loads(out.read_text())
  compiled = [(name, float(seconds)) for name, seconds in _COMPILED.findall(run["stderr"])]
  small = [s for _, s in compiled if s < args.small]
  return {
    **{k: run[k] for k in ("wall_s", "cpu_s", "peak_rss_bytes")},
    "compile_s_recorded": record.get("compile_seconds"),
    "run_s_recorded": record.get("run_seconds"),
    "exploitability_pot_percent": record.get("exploitability_pot_percent"),
    "programs": [{"name": n, "xla_compile_s": s} for n, s in compiled if s >= args.small],
    "small_programs": {"count": len(small), "xla_compile_s": sum(small)},
    "xla_compile_s_total": sum(s for _, s in compiled),
    "load_average": os.getloadavg()[0],
  }


def _pieces(game_name: str, algorithm: str) -> dict:
  """Runs in the child process: the ``programs`` view (printed as JSON)."""
  import functools  # pylint: disable=import-outside-toplevel

  import jax  # pylint: disable=import-outside-toplevel

  import jaxcfr  # pylint: disable=import-outside-toplevel
  from jaxcfr import solvers  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits.public_tree import evaluator, values  # pylint: disable=import-outside-toplevel

  wall, cpu = time.perf_counter(), time.process_time()
  game = jaxcfr.load(game_name, representation="public_tree")
  tree = game.tensors
  out = {"load_wall_s": time.perf_counter() - wall, "load_cpu_s": time.process_time() - cpu}
  out["levels"] = [hi - lo for lo, hi in tree.level_slices]
  solver = solvers.get(algorithm, "public_tree")
  state = solver.init(tree)
  strategy = values.uniform_profile(tree)
  opponent = jax.jit(values.ranges, static_argnums=1)(tree, 1, strategy[1])
  measure = functools.partial(evaluator._measure.__wrapped__, solver)  # pylint: disable=protected-access
  pieces = {
    "ranges": (lambda t, s: values.ranges(t, 0, s), strategy[0]),
    "folds": (lambda t, r: values.fold_values(t, 0, r[t.fold_nodes]), opponent),
    "showdowns": (lambda t, r: values.showdown_values(t, 0, r[t.showdown_nodes]), opponent),
    "values": (lambda t, s, r: values.counterfactual_values(t, 0, s, r), strategy[0], opponent),
    "best_response": (lambda t, r: values.counterfactual_values(t, 0, None, r), opponent),
    "step": (solver.step, state),
    "measure": (measure, state),
  }
  for name, (function, *operands) in pieces.items():
    wall, cpu = time.perf_counter(), time.process_time()
    lowered = jax.jit(function).lower(tree, *operands)
    lowered_wall, lowered_cpu = time.perf_counter(), time.process_time()
    compiled = lowered.compile()
    text = compiled.as_text()
    out[name] = {
      "lower_wall_s": lowered_wall - wall,
      "lower_cpu_s": lowered_cpu - cpu,
      "compile_wall_s": time.perf_counter() - lowered_wall,
      "compile_cpu_s": time.process_time() - lowered_cpu,
      "hlo_instructions": len(re.findall(r"^\s*(?:ROOT )?%\S+ = ", text, re.M)),
      "fusions": len(re.findall(r"= \S+ fusion\(", text)),
    }
  return out


def programs(game: str, args) -> dict:
  """The ``programs`` view in a fresh process pinned to ``args.core``."""
  code = f"import json, sys; sys.path.insert(0, {str(HERE)!r}); import public_tree_compile as m; "
  code += f"print('RESULT', json.dumps(m._pieces({game!r}, {args.algorithm!r})))"
  line = ["taskset", "-c", str(args.core), sys.executable, "-c", code]
  done = subprocess.run(line, env=_environment(args), capture_output=True, text=True, check=False)
  found = [row for row in done.stdout.splitlines() if row.startswith("RESULT ")]
  if done.returncode != 0 or not found:
    raise RuntimeError(f"the programs of {game} failed: {done.stderr[-2000:]}")
  return {**json.loads(found[-1][len("RESULT ") :]), "load_average": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> dict:
  parser = argparse.ArgumentParser(prog="python -m benchmarks public_tree_compile", description=__doc__.splitlines()[0])
  parser.add_argument("--games", default=";".join(GAMES), help="semicolon-separated game strings")
  parser.add_argument("--algorithm", default="dcfr", help="the solver")
  parser.add_argument("--iters", type=int, default=200, help="iterations of the command")
  parser.add_argument("--core", type=int, default=0, help="the CPU core the processes are pinned to")
  parser.add_argument(
    "--small", type=float, default=0.05, help="programs compiled in fewer seconds are counted together"
  )
  parser.add_argument("--views", default="command,programs", help="comma-separated: command, programs")
  parser.add_argument("--xla-flags", default="", help="XLA_FLAGS added for every process (an experiment)")
  parser.add_argument(
    "--label", default="", help="recorded with the configuration: e.g. which library PYTHONPATH put first"
  )
  parser.add_argument(
    "--out", default=str(HERE / "results" / "public_tree_compile.json"), help="the results file (JSON)"
  )
  args = parser.parse_args(argv)
  views = {"command": command, "programs": programs}
  results = {}
  for game in [g for g in args.games.split(";") if g]:
    results[game] = {}
    for view in [v for v in args.views.split(",") if v]:
      results[game][view] = views[view](game, args)
      print(game, view, json.dumps(results[game][view], indent=1), flush=True)
    write_record(
      args.out,
      benchmark="public_tree_compile",
      description=__doc__.split("\n\n")[0].replace("\n", " ")
      + " Shared 2-core CPU under other load (load_average per view); float32; no compilation cache.",
      configuration=vars(args),
      results=results,
    )
  return results


if __name__ == "__main__":
  main()
