"""Our public-tree DCFR against b-inary/postflop-solver (the peer) on the same poker spots, one core each.

    python -m benchmarks poker_peer --peer /work/peer/bench/target/release/peer-bench
    python -m benchmarks poker_peer --peer-results /work/peer/results --spots libratus_subgame4
    python -m benchmarks poker_peer --peer PEER --spots libratus_subgame3,libratus_subgame4 --repeats 3

Spots (``SPOTS``): the four Libratus endgames (``Spot.from_endgame(n)``: our bet abstraction,
half a pot, a pot and all-in first, a pot and all-in raises), postflop-solver's README example
(a turn: ``benchmarks/spots/postflop_solver_readme_turn.json``) and PioSOLVER's "3betpotFAST"
flop preset on which Desktop/WASM Postflop publish their benchmark
(``benchmarks/spots/pio_3betpot_fast_flop.json``); benchmarks/spots/README.md names the sources.

For each spot and repeat, ours and the peer's run alternately (the order swapped every repeat),
each a fresh process pinned to one core (``--core``; ours with
``XLA_FLAGS=--xla_force_host_platform_device_count=1``) and measured alike: the exploitability
(NashConv / 2, chips, of the average strategy) before the first iteration and after every 10th,
the time and iterations to 0.5, 0.3 and 0.1% of the pot on the solve's clock (which starts
before the uniform strategy's exploitability, as the peer's ``solve``), seconds per iteration
(the iterations' time without the checks), the time before the first iteration and from the
command to the answer (both from the process's start), and the peak resident memory
(``os.wait4``'s ``ru_maxrss``). The peer is the ``peer-bench`` harness around postflop-solver
(``--peer``; its SPOT.json is written here from our Spot: ``peer_spot``), or its OUT.json files
(``--peer-results``: a directory of ``NAME.json`` or one JSON object of them). Our side is
benchmarks/poker_peer_ours.py run as a script: it loads the spot file with ``jaxcfr.load``,
compiles the iterations and the exploitability before its clock starts, and stops at 0.1% of
the pot, at ``--max-iterations`` or after ``--max-seconds`` (checked at each exploitability
check, as the peer does). Medians over the repeats and ours / peer ratios go to the results file, with the
peer's commit and settings from its output, and one more process's peak memory: Python
importing JAX and running one jitted operation, JAX's own footprint.

The games are checked equal (``--check``, a separate process of ours, untimed): our tree's
betting lines and chip amounts against the peer's ``tree.lines_total``, the exploitability of
the uniform strategy and each player's expected value under it against the peer's, and the peer's
equilibrium scored by ours: the first peer run of each spot dumps its whole average strategy
(the harness's ``dump_strategy``, after its answer and timings are written), our side loads it
into our tree (poker_peer_ours.py ``--score-peer-strategy``: each node by its betting line and
dealt cards, each hand by its cards) and computes its exploitability, against the one the peer
reports for it. The results also compare what both programs report of their own solutions
(each solution's value and root frequencies) and, where a spot has a published solution
(``PUBLISHED``), the peer's against it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from poker_peer_ours import EVERY, TARGETS, our_lines  # noqa: E402,F401  pylint: disable=wrong-import-position
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

SPOTS = {
  "libratus_subgame1": 1,
  "libratus_subgame2": 2,
  "libratus_subgame3": 3,
  "libratus_subgame4": 4,
  "postflop_solver_readme_example": HERE / "spots" / "postflop_solver_readme_turn.json",
  "desktop_postflop_3betpotFAST": HERE / "spots" / "pio_3betpot_fast_flop.json",
}
PEER = "b-inary/postflop-solver"
# Published solutions of a spot: OOP's root equity and EV (pot share) that postflop-solver's test
# solve_pio_preset_normal (src/game/tests.rs, commit 9d1509fe) asserts as PioSOLVER's, EV within 0.2
PUBLISHED = {
  "desktop_postflop_3betpotFAST": {
    "source": "postflop-solver's test solve_pio_preset_normal (PioSOLVER's solution, EV within 0.2)",
    "oop_equity": 0.55347,
    "oop_ev_pot_share": 105.11,
  }
}
STREETS = ("flop", "turn", "river")


def load_spot(name: str):
  """The Spot of ``SPOTS[name]``."""
  from jaxcfr.games.spots import Spot  # pylint: disable=import-outside-toplevel

  source = SPOTS[name]
  return Spot.from_endgame(source) if isinstance(source, int) else Spot.load(source)


def peer_spot(
  spot,
  name: str,
  *,
  max_iterations: int,
  max_seconds: float | None,
  compression: bool = False,
  dump_strategy: str | None = None,
) -> dict:
  """The peer-bench SPOT.json of ``spot``: board, starting pot, effective stack, both ranges
  (range strings when both are strings, else weights in our hand order), per street
  [OOP bet, OOP raise, IP bet, IP raise] sizes in postflop-solver's notation, donk sizes and
  the thresholds; ``dump_strategy``: where the harness writes the peer's average strategy. ValueError
  for a raise cap, which postflop-solver's trees do not have."""
  tree = spot.bet_tree
  if tree.max_raises is not None:
    raise ValueError(f"{name}: postflop-solver has no raise cap; the spot's bet tree sets max_raises={tree.max_raises}")
  strings = isinstance(spot.oop_range, str) and isinstance(spot.ip_range, str)
  ranges = {"range_strings": [spot.oop_range, spot.ip_range]} if strings else {"ranges": spot.ranges.tolist()}
  return {
    "name": name,
    "board": spot.board,
    "starting_pot": spot.pot,
    "effective_stack": spot.effective_stack,
    **ranges,
    "bet_sizes": {
      street: [tree.bets[s][0], tree.raises[s][0], tree.bets[s][1], tree.raises[s][1]]
      for s, street in enumerate(STREETS)
    },
    "donk_sizes": {"turn": tree.donks[0], "river": tree.donks[1]},
    "add_allin_threshold": tree.add_allin_threshold,
    "force_allin_threshold": tree.force_allin_threshold,
    "merging_threshold": tree.merging_threshold,
    "compression": compression,
    "targets_pot_percent": list(TARGETS),
    "max_iterations": max_iterations,
    **({} if max_seconds is None else {"max_seconds": max_seconds}),
    "dump_tree": True,
    "dump_root_strategy": True,
    **({} if dump_strategy is None else {"dump_strategy": dump_strategy}),
  }


def _one_core(core: int | None):
  if core is None:
    return None
  return lambda: os.sched_setaffinity(0, {core})


def run_process(command: list, *, core: int | None, env: dict | None = None) -> dict:
  """Runs ``command`` pinned to ``core``: {start (time.time() before the start), wall_s,
  peak_rss_bytes (its own ru_maxrss), returncode, stdout, stderr tail}."""
  with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
    start = time.time()
    process = subprocess.Popen(command, stdout=out, stderr=err, env=env, preexec_fn=_one_core(core))  # noqa: PLW1509
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.time() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    out.seek(0), err.seek(0)
    stdout, stderr = out.read().decode(), err.read().decode()
  return {
    "start": start,
    "wall_s": wall,
    "peak_rss_bytes": usage.ru_maxrss * 1024,
    "returncode": process.returncode,
    "stdout": stdout,
    "stderr_tail": stderr[-2000:],
  }


def _our_env() -> dict:
  env = dict(os.environ)
  flags = env.get("XLA_FLAGS", "")
  if "xla_force_host_platform_device_count" not in flags:
    env["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count=1".strip()
  env["JAX_PLATFORMS"] = "cpu"
  return env


def run_peer(binary: str, spot_json: dict, workdir: Path, core: int | None) -> dict:
  """One peer-bench run: its OUT.json with the process's own wall time and peak memory."""
  spot_path, out_path = workdir / f"{spot_json['name']}.spot.json", workdir / f"{spot_json['name']}.out.json"
  spot_path.write_text(json.dumps(spot_json))
  run = run_process([binary, str(spot_path), str(out_path)], core=core)
  if run["returncode"] != 0:
    raise RuntimeError(f"peer-bench failed on {spot_json['name']}: {run['stderr_tail']}")
  out = json.loads(out_path.read_text())
  return {**out, "measured": {k: run[k] for k in ("wall_s", "peak_rss_bytes")}, "load_average": os.getloadavg()[0]}


def run_ours(spot_file: Path, args, *, check: bool = False, score: str | None = None) -> dict:
  """One run of ours in a fresh process (times relative to its start); ``check``: the equality
  checks instead; ``score``: the exploitability of the peer's strategy dumped there instead."""
  command = [sys.executable, str(HERE / "poker_peer_ours.py"), str(spot_file), "--algorithm", args.algorithm]
  command += [
    "--hands",
    args.hands,
    "--storage",
    args.storage,
    "--max-iterations",
    str(args.max_iterations),
    "--max-seconds",
    str(args.max_seconds),
  ]
  command += ["--check"] if check else []
  command += ["--score-peer-strategy", score] if score else []
  run = run_process(command, core=args.core, env=_our_env())
  if run["returncode"] != 0:
    raise RuntimeError(f"our run failed on {spot_file}: {run['stderr_tail']}")
  out = json.loads(run["stdout"].strip().splitlines()[-1])
  events = out.pop("events", {})
  out.update({f"{k}_s": v - run["start"] for k, v in events.items()})
  out.update(wall_s=run["wall_s"], peak_rss_bytes=run["peak_rss_bytes"])
  return out


def jax_footprint(core: int | None) -> dict:
  """Peak memory of a Python process that imports JAX and runs one jitted operation."""
  code = "import jax, jax.numpy as jnp; jax.jit(lambda x: x * 2 + 1)(jnp.ones(8)).block_until_ready()"
  run = run_process([sys.executable, "-c", code], core=core, env=_our_env())
  return {"peak_rss_bytes": run["peak_rss_bytes"], "wall_s": run["wall_s"], "code": code}


def _median(values):
  values = [v for v in values if v is not None]
  return statistics.median(values) if values else None


def _ratio(ours, peer):
  return ours / peer if ours is not None and peer else None


def _figures_ours(run: dict) -> dict:
  return {
    **{f"seconds_to_{t}": (r or {}).get("seconds") for t, r in zip(TARGETS, run["targets"])},
    **{f"iterations_to_{t}": (r or {}).get("iterations") for t, r in zip(TARGETS, run["targets"])},
    "seconds_per_iteration": run["seconds_per_iteration"],
    "command_to_answer_s": run["answer_s"],
    "before_first_iteration_s": run["solve_started_s"],
    "build_s": run["built_s"] - run["imported_s"],
    "import_s": run["imported_s"],
    "compile_s": run["solve_started_s"] - run["built_s"],
    "peak_rss_bytes": run["peak_rss_at_answer_bytes"] or run["peak_rss_bytes"],
    "peak_rss_process_bytes": run["peak_rss_bytes"],
    "load_average": run["load_average"],
    "iterations": run["iterations"],
    "final_exploitability_chips": run["final_exploitability_chips"],
  }


def _figures_peer(out: dict) -> dict:
  targets = out["targets"]
  solve, finalize = out["seconds_solve"], out.get("seconds_finalize", 0.0)
  iterations = out["iterations"]
  checks = [p for p in out.get("trajectory", []) if p[0] > 0]
  return {
    **{f"seconds_to_{t['pot_percent']}": t["seconds"] for t in targets},
    **{f"iterations_to_{t['pot_percent']}": t["iterations"] for t in targets},
    # the solve's time per iteration with the checks in it (the harness times them together)
    "seconds_per_iteration_with_checks": (checks[-1][1] - out["trajectory"][0][1]) / iterations if iterations else None,
    "command_to_answer_s": out["seconds_total"],
    # process start to main, plus the timed build (the tree dump and uniform EV before the solve are not timed)
    "before_first_iteration_s": out.get("seconds_process_start_to_main", 0.0) + out["seconds_build"],
    "before_first_iteration_upper_s": out["seconds_total"] - solve - finalize,
    "build_s": out["seconds_build"],
    "peak_rss_bytes": (out.get("measured") or {}).get("peak_rss_bytes", out["peak_rss_bytes"]),
    "load_average": out.get("load_average"),
    "iterations": iterations,
    "final_exploitability_chips": out.get("final_exploitability_chips"),
  }


def summarize(ours: list, peer: list) -> dict:
  """Medians over the repeats of both programs' figures, and ours / peer."""
  mine = [_figures_ours(r) for r in ours]
  theirs = [_figures_peer(r) for r in peer]
  ours_median = {k: _median([f[k] for f in mine]) for k in (mine[0] if mine else {})}
  peer_median = {k: _median([f[k] for f in theirs]) for k in (theirs[0] if theirs else {})}
  ratios = {k: _ratio(ours_median.get(k), peer_median.get(k)) for k in ours_median if k in peer_median}
  if "seconds_per_iteration" in ours_median:
    ratios["seconds_per_iteration"] = _ratio(
      ours_median["seconds_per_iteration"], peer_median.get("seconds_per_iteration_with_checks")
    )
  return {"ours": ours_median, "peer": peer_median, "ours_over_peer": ratios, "ours_runs": mine, "peer_runs": theirs}


def equality(ours: dict, peer: dict, scored: dict | None = None) -> dict:
  """Our tree and uniform values (``checks``) against the peer's OUT.json, and ``scored``, our
  exploitability of the peer's dumped strategy (``--score-peer-strategy``), against the peer's."""
  want, got = sorted(peer["tree"]["lines_total"]), sorted(ours["lines_total"])
  only_peer, only_ours = sorted(set(want) - set(got)), sorted(set(got) - set(want))
  uniform = peer["uniform"]
  relative = lambda a, b: abs(a - b) / max(abs(b), 1e-30)
  return {
    "lines_equal": want == got,
    "lines": {"peer": len(want), "ours": len(got), "only_peer": only_peer[:10], "only_ours": only_ours[:10]},
    "uniform_exploitability_chips": {
      "ours": ours["uniform_exploitability_chips"],
      "peer": uniform["exploitability_chips"],
      "relative_difference": relative(ours["uniform_exploitability_chips"], uniform["exploitability_chips"]),
    },
    "uniform_ev_oop_chips": {
      "ours": ours["uniform_ev_oop"],
      "peer": uniform["ev_zero_sum"]["oop"],
      "relative_difference": relative(ours["uniform_ev_oop"], uniform["ev_zero_sum"]["oop"]),
    },
    "uniform_ev_ip_chips": {"ours": -ours["uniform_ev_oop"], "peer": uniform["ev_zero_sum"]["ip"]},
    "peer_equilibrium_in_ours": "not checked: no peer run of this benchmark dumped its strategy (--peer-results)"
    if scored is None
    else {
      "exploitability_chips": {
        "ours": scored["exploitability_chips"],
        "peer": scored["peer_exploitability_chips"],
        "relative_difference": relative(scored["exploitability_chips"], scored["peer_exploitability_chips"]),
      },
      "decision_nodes_matched": scored["decision_nodes"],
    },
  }


def solutions(ours: dict, peer: dict) -> dict:
  """What both programs report of their own solutions (not one scored by the other): the
  value to OOP (chips won per deal) and OOP's root frequencies, and the mean over OOP's range
  (weighted as the frequencies) of the largest difference of the two root strategies per hand."""
  import numpy as np  # pylint: disable=import-outside-toplevel

  out = {
    "ev_oop_chips": {"ours": ours["final_ev_oop"], "peer": peer["final"]["ev_zero_sum"]["oop"]},
    "final_exploitability_chips": {
      "ours": ours["final_exploitability_chips"],
      "peer": peer["final_exploitability_chips"],
    },
    "root_actions": {"ours": ours["root"]["actions"], "peer": peer["final"]["root_actions"]},
    "root_frequencies_oop": {"ours": ours["root"]["frequencies"], "peer": peer["final"]["root_action_frequencies_oop"]},
  }
  theirs = (peer.get("root_strategy") or {}).get("strategy")
  if theirs is not None and ours["root"]["actions"] == peer["final"]["root_actions"]:
    a, b = np.asarray(ours["root"]["strategy"]), np.asarray(theirs)
    held = b.sum(1) > 0
    out["root_strategy_mean_max_difference"] = float(np.abs(a - b).max(1)[held].mean())
  return out


def published_check(name: str, peer: dict, ours: dict | None) -> dict | None:
  """The peer's solution of spot ``name`` (and ours, where we ran: OOP's EV as a pot share, its
  value per deal plus half the pot) against its ``PUBLISHED`` one (None if none is): OOP's root
  equity and EV (pot share) as the peer's interpreter reports them."""
  if name not in PUBLISHED:
    return None
  oop = peer["final"]["players"]["oop"]
  mine = "not solved: our tree of this spot does not fit this machine (ours_error)"
  if ours is not None:
    mine = {"oop_ev_pot_share": ours["final_ev_oop"] + ours["pot"] / 2}
  return {
    "published": PUBLISHED[name],
    "peer": {"oop_equity": oop["average_equity"], "oop_ev_pot_share": oop["average_ev_pot_share"]},
    "peer_exploitability_pot_percent": peer["final_exploitability_pot_percent"],
    "peer_root": dict(zip(peer["final"]["root_actions"], peer["final"]["root_action_frequencies_oop"])),
    "ours": mine,
  }


def _peer_results(path: str) -> dict:
  """{spot name: [OUT.json, ...]} from a directory of NAME.json or one JSON object."""
  path = Path(path)
  if path.is_dir():
    return {p.stem: [json.loads(p.read_text())] for p in sorted(path.glob("*.json")) if p.stem in SPOTS}
  data = json.loads(path.read_text())
  return {k: v if isinstance(v, list) else [v] for k, v in data.items()}


def main(argv: list[str] | None = None) -> dict:
  argv = sys.argv[1:] if argv is None else argv
  parser = argparse.ArgumentParser(prog="python -m benchmarks poker_peer", description=__doc__.splitlines()[0])
  source = parser.add_mutually_exclusive_group(required=True)
  source.add_argument("--peer", help="the peer-bench binary (runs alternate with ours)")
  source.add_argument("--peer-results", help="the peer's OUT.json files: a directory of NAME.json or one JSON object")
  parser.add_argument("--spots", default=",".join(SPOTS), help=f"comma-separated, of {', '.join(SPOTS)}")
  parser.add_argument("--algorithm", default="dcfr-pfs", help="our public-tree solver")
  parser.add_argument(
    "--hands",
    default="in_play",
    choices=("in_play", "all"),
    help="our tree over the hands in either range, or all 1,326",
  )
  parser.add_argument(
    "--storage",
    default="float",
    choices=("float", "16bit"),
    help="16bit: our regrets and average in 16 bits (the CFR family's storage option) and the peer's compression",
  )
  parser.add_argument("--repeats", type=int, default=3, help="runs of each program per spot (medians recorded)")
  parser.add_argument("--core", type=int, default=1, help="the CPU core both programs are pinned to (-1: none)")
  parser.add_argument("--max-iterations", type=int, default=10000, help="each run stops here at the latest")
  parser.add_argument("--max-seconds", type=float, default=900.0, help="each run stops at the first check after this")
  parser.add_argument("--out", default=str(HERE / "results" / "poker_peer.json"), help="the results file")
  args = parser.parse_args(argv)
  names = [n for n in args.spots.split(",") if n]
  unknown = sorted(set(names) - set(SPOTS))
  if unknown:
    parser.error(f"--spots: unknown {unknown}; choose from {list(SPOTS)}")
  if args.repeats < 1:
    parser.error(f"--repeats must be >= 1, got {args.repeats}")
  args.core = None if args.core < 0 else args.core
  given = _peer_results(args.peer_results) if args.peer_results else {}
  results = {"jax_footprint": jax_footprint(args.core), "spots": {}}
  print("JAX footprint", results["jax_footprint"], flush=True)

  def save():
    peer_runs = [r for row in results["spots"].values() for r in row.get("peer_out", [])]
    first = peer_runs[0] if peer_runs else {}
    configuration = {
      **{k: v for k, v in vars(args).items()},
      "targets_pot_percent": list(TARGETS),
      "check_every": EVERY,
      "ours": f"jaxcfr public tree (hands={args.hands}), {args.algorithm}, float32, storage {args.storage}, "
      "XLA:CPU with one device, "
      "pinned to one core",
      "peer": {
        "name": PEER,
        "commit": first.get("peer_commit"),
        "threads": first.get("threads"),
        "build": first.get("build"),
        "settings": "DCFR as postflop-solver's solve (alpha 1.5, beta 0.5, gamma 3 restarted at powers of 4), "
        f"float32, {'compression (16 bits)' if args.storage == '16bit' else 'no compression'}, "
        "exploitability every 10 iterations",
      },
    }
    for row in results["spots"].values():
      row.pop("peer_out_full", None)
    write_record(
      args.out,
      benchmark="poker_peer",
      description=__doc__.split("\n\n")[0]
      + " Medians of the repeats; ours_over_peer: ratios (time, iterations, memory). Shared 2-core CPU: other "
      "processes ran beside these, so single figures vary by tens of percent.",
      configuration=configuration,
      results=results,
    )

  with tempfile.TemporaryDirectory(prefix="poker_peer_") as folder:
    workdir = Path(folder)
    for name in names:
      spot = load_spot(name)
      spot_file = workdir / f"{name}.jaxcfr-spot.json"
      spot.save(spot_file)
      row = {"spot": spot.to_dict() if isinstance(spot.oop_range, str) else {"source": str(SPOTS[name])}}
      try:
        check = run_ours(spot_file, args, check=True)
      except RuntimeError as error:  # a spot whose tree does not fit this machine
        row["ours_error"] = str(error).splitlines()[-1][:400]
        check = None
      settings = dict(max_iterations=args.max_iterations, max_seconds=args.max_seconds)
      settings["compression"] = args.storage == "16bit"
      ours_runs, peer_runs = [], list(given.get(name, []))
      for repeat in range(args.repeats):
        order = ("ours", "peer") if repeat % 2 == 0 else ("peer", "ours")
        for who in order:
          if who == "ours" and check is not None:
            ours_runs.append(run_ours(spot_file, args))
            print(name, "ours", _figures_ours(ours_runs[-1]), flush=True)
          elif who == "peer" and args.peer:
            # the first run's strategy, where our tree can load it
            dump = str(workdir / f"{name}.strategy") if not peer_runs and check is not None else None
            peer_runs.append(
              run_peer(args.peer, peer_spot(spot, name, **settings, dump_strategy=dump), workdir, args.core)
            )
            print(name, "peer", _figures_peer(peer_runs[-1]), flush=True)
      row.update(summarize(ours_runs, peer_runs))
      if check is not None and peer_runs:
        dumped = workdir / f"{name}.strategy"
        scored = run_ours(spot_file, args, score=str(dumped)) if dumped.exists() else None
        row["equality"] = equality(check, peer_runs[0], scored)
        row["ours_statistics"] = check["statistics"]
        if ours_runs:
          row["solutions"] = solutions(ours_runs[0], peer_runs[0])
      if ours_runs:
        row["ours_trajectory"] = ours_runs[0]["trajectory"]
      if peer_runs:
        if name in PUBLISHED:
          row["published_solution"] = published_check(name, peer_runs[0], ours_runs[0] if ours_runs else None)
        row["peer_trajectory"] = peer_runs[0].get("trajectory")
        row["peer_tree"] = {k: v for k, v in peer_runs[0]["tree"].items() if not k.startswith("lines")}
        row["peer_out"] = [{k: r.get(k) for k in ("peer_commit", "threads", "build")} for r in peer_runs]
      results["spots"][name] = row
      print(name, json.dumps({k: row.get(k) for k in ("ours", "peer", "ours_over_peer", "equality")}), flush=True)
      save()
  return results


if __name__ == "__main__":
  main()
