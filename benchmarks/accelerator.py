"""The accelerator suite: CFR+ per iteration on five games, batches to B = 4096, sampled-CFR throughput in seed batches, and bytes moved per iteration against the device's bandwidth.

Runs on JAX's default device (meant for a GPU; it runs on a CPU too), float32:
  cfr        CFR+ milliseconds per iteration, one run, on kuhn_poker, leduc_poker,
             liars_dice and goofspiel(num_cards=5) (native rules; ours.cfr_ms_per_iteration:
             a user's jitted fori_loop of solver.step);
  batches    Leduc CFR+ with a trailing batch of B = 1..4096 runs (the user's loop and the
             solver's own run): the cost of the batch against one run;
  sampling   outcome sampling (K trajectories per update and player, B seeds) in
             trajectories per second, external sampling and chance-sampled CFR per
             iteration, on Leduc;
  bandwidth  a device-to-device copy's bytes per second (read plus written), then CFR+ on
             goofspiel(num_cards=7), timed as above: XLA's bytes accessed and the game's
             tensors plus the state read and written, over the measured time, as a fraction
             of the copy's rate;
  profile    the operations of Leduc CFR+'s compiled loop body (what each iteration launches)
             and, with --trace-dir, a jax.profiler trace of a few iterations.
Goals of the batch-scaling issue on one H100: a batch of 1,024 Leduc runs <= 4x one run;
goofspiel(7) CFR+ <= 10 ms per iteration; outcome sampling >= 1e8 trajectories per second in a
seed batch; bytes moved per iteration over time >= 50% of the memory bandwidth on goofspiel(7).
The record is rewritten after every section, so a run cut short keeps what it measured.

  python -m benchmarks accelerator [--sections cfr,batches,sampling,bandwidth,profile] [--smoke]
"""

from __future__ import annotations

import argparse
import collections
import re
import statistics
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp

import jaxcfr
from jaxcfr import solvers
from jaxcfr.run.hardware import hardware
import ours as ours_lib  # noqa: E402  pylint: disable=wrong-import-position
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position
from timing import timed  # noqa: E402  pylint: disable=wrong-import-position

SECTIONS = ("cfr", "batches", "sampling", "bandwidth", "profile")
CFR_GAMES = ("kuhn_poker", "leduc_poker", "liars_dice", "goofspiel(num_cards=5)")
BIG_GAME = "goofspiel(num_cards=7)"  # timed by the bandwidth section (its build takes a minute)
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
OUTCOME_SAMPLING = ((1, 1), (1, 64), (1, 1024), (1, 8192), (1, 65536), (16, 4096), (256, 256), (4096, 16))  # (K, B)
TRAVERSALS = (("mccfr-es", 1), ("mccfr-es", 1024), ("cfr-cs", 1), ("cfr-cs", 1024))  # (algorithm, seeds)
GOALS = {
  "leduc_batch_1024_vs_one_run": 4.0,
  "goofspiel7_cfr_plus_ms": 10.0,
  "outcome_sampling_trajectories_per_s": 1e8,
  "goofspiel7_bandwidth_fraction": 0.5,
}
SMOKE = {
  "games": ("kuhn_poker", "leduc_poker"),
  "big_game": "goofspiel(num_cards=4)",
  "batches": (1, 8),
  "outcome_sampling": ((1, 1), (4, 8)),
  "traversals": (("mccfr-es", 1), ("cfr-cs", 8)),
}


def copy_bandwidth(gib: float = 1.0, repeats: int = 20) -> dict:
  """Bytes per second (read plus written) of ``x + 1`` over ``gib`` GiB of float32: the
  device's practical memory bandwidth (median of ``repeats`` calls after a warm-up)."""
  x = jnp.arange(int(gib * 2**28), dtype=jnp.float32)
  add = jax.jit(lambda v: v + 1.0)
  jax.block_until_ready(add(x))
  seconds = statistics.median(timed(lambda: add(x))[0] for _ in range(repeats))
  moved = 2 * x.nbytes
  return {"bytes_moved": moved, "seconds": seconds, "bytes_per_s": moved / seconds}


def step_bytes(tensors, state) -> dict:
  """Bytes one CFR+ step must move at least (the game's tensors read once, the state read and
  written) and the bytes XLA's cost analysis counts for the compiled step."""
  step = jax.jit(lambda s: solvers.get("cfr+").step(tensors, s))
  cost = step.lower(state).compile().cost_analysis()
  cost = cost[0] if isinstance(cost, (list, tuple)) else cost
  leaves = lambda tree: sum(leaf.nbytes for leaf in jax.tree_util.tree_leaves(tree) if hasattr(leaf, "nbytes"))
  return {
    "tensor_bytes": leaves(tensors),
    "state_bytes": leaves(state),
    "least_bytes": leaves(tensors) + 2 * leaves(state),
    "xla_bytes_accessed": float(cost.get("bytes accessed", float("nan"))) if cost else None,
  }


def loop_body_operations(tensors, state) -> dict:
  """Opcode counts of the largest ``while`` body of a compiled 10-iteration CFR+ loop: on an
  accelerator each fusion, copy or custom call there is a kernel launched every iteration."""
  step = solvers.get("cfr+").step
  loop = jax.jit(lambda s: jax.lax.fori_loop(0, 10, lambda _, x: step(tensors, x), s))
  text = loop.lower(state).compile().as_text()
  bodies = re.findall(r"body=%?([\w.\-]+)", text)
  computations = {
    m.group(1): m.group(2)
    for m in re.finditer(r"^(?:ENTRY )?%?([\w.\-]+) [^\n]*\{\n(.*?)\n\}", text, flags=re.M | re.S)
  }
  body = max((computations.get(name, "") for name in bodies), key=len, default="")
  skip = {"parameter", "get-tuple-element", "tuple", "constant", "bitcast"}
  counts = collections.Counter(op for op in re.findall(r"= [^=]*? ([a-z][\w\-]*)\(", body) if op not in skip)
  return {"kernels_per_iteration": sum(counts.values()), "opcodes": dict(counts.most_common())}


def verdicts(record: dict, big_game: str) -> dict:
  """Each goal of GOALS measured so far: {measured, goal, met}."""
  measured = {}
  batch_1024 = [
    record["batches"][key]["cost_vs_one_run"] for key in ("user_1024", "library_1024") if key in record["batches"]
  ]
  if batch_1024:
    measured["leduc_batch_1024_vs_one_run"] = (min(batch_1024), "<=")
  if big_game in record["cfr"]:
    measured["goofspiel7_cfr_plus_ms"] = (record["cfr"][big_game]["ms_per_iteration"], "<=")
  if record["outcome_sampling"]:
    measured["outcome_sampling_trajectories_per_s"] = (
      max(r["trajectories_per_s"] for r in record["outcome_sampling"]),
      ">=",
    )
  if "bandwidth" in record:
    measured["goofspiel7_bandwidth_fraction"] = (record["bandwidth"]["least_bytes_fraction_of_copy"], ">=")
  return {
    key: {"measured": value, "goal": GOALS[key], "met": value <= GOALS[key] if sense == "<=" else value >= GOALS[key]}
    for key, (value, sense) in measured.items()
  }


def run_cfr(games, record, save) -> None:
  for game_string in games:
    build_s, game = timed(lambda g=game_string: jaxcfr.load(g))
    row = ours_lib.cfr_ms_per_iteration(game)
    row["load_s"] = build_s
    record["cfr"][game_string] = row
    print(f"cfr+ {game_string:40s} {row['ms_per_iteration']:10.4f} ms/iter", flush=True)
    save()


def run_batches(batches, record, save) -> None:
  game = jaxcfr.load("leduc_poker")
  one = ours_lib.cfr_ms_per_iteration(game)["ms_per_iteration"]
  for loop in ("user", "library"):
    for batch in batches:
      row = ours_lib.cfr_ms_per_iteration(game, batch=batch, library=loop == "library")
      row["cost_vs_one_run"] = row["ms_per_iteration"] / one
      record["batches"][f"{loop}_{batch}"] = row
      print(
        f"leduc cfr+ {loop:7s} B={batch:5d} {row['ms_per_iteration']:9.4f} ms/iter, "
        f"{row['cost_vs_one_run']:7.2f}x one run",
        flush=True,
      )
    save()


def run_sampling(outcome_sampling, traversals, seconds, record, save) -> None:
  game = jaxcfr.load("leduc_poker")
  for trajectories, batch in outcome_sampling:
    row = ours_lib.outcome_sampling_rate(game, trajectories, batch, 1, seconds, 3)
    record["outcome_sampling"].append(row)
    print(
      f"outcome sampling K={trajectories:5d} B={batch:6d} {row['trajectories_per_s']:14,.0f} trajectories/s", flush=True
    )
    save()
  for algorithm, batch in traversals:
    row = ours_lib.traversal_rate(game, algorithm, batch, seconds, 3)
    record["traversals"].append(row)
    print(
      f"{algorithm} B={batch:5d} {row['ms_per_iteration']:.4f} ms/step, {row['iterations_per_s']:,.0f} it/s", flush=True
    )
    save()


def run_bandwidth(big_game, record, save) -> None:
  copy = copy_bandwidth()
  print(f"copy: {copy['bytes_per_s'] / 1e9:.0f} GB/s (read + written)", flush=True)
  game = jaxcfr.load(big_game)
  state = solvers.get("cfr+").init(game.tensors)
  moved = step_bytes(game.tensors, state)
  timing = ours_lib.cfr_ms_per_iteration(game)
  record["cfr"][big_game] = timing
  seconds = timing["ms_per_iteration"] / 1e3
  row = {
    "game": big_game,
    "copy": copy,
    **moved,
    "ms_per_iteration": timing["ms_per_iteration"],
    "least_bytes_fraction_of_copy": moved["least_bytes"] / seconds / copy["bytes_per_s"],
  }
  if moved["xla_bytes_accessed"]:
    row["xla_bytes_fraction_of_copy"] = moved["xla_bytes_accessed"] / seconds / copy["bytes_per_s"]
  record["bandwidth"] = row
  print(
    f"{big_game}: {timing['ms_per_iteration']:.3f} ms/iter; least bytes {moved['least_bytes'] / 1e9:.2f} GB "
    f"({row['least_bytes_fraction_of_copy']:.0%} of the copy rate); XLA counts "
    f"{(moved['xla_bytes_accessed'] or float('nan')) / 1e9:.2f} GB",
    flush=True,
  )
  save()


def run_profile(trace_dir, record, save) -> None:
  game = jaxcfr.load("leduc_poker")
  state = solvers.get("cfr+").init(game.tensors)
  record["profile"] = {"leduc_poker": loop_body_operations(game.tensors, state)}
  print(
    f"leduc cfr+ loop body: {record['profile']['leduc_poker']['kernels_per_iteration']} operations "
    f"{record['profile']['leduc_poker']['opcodes']}",
    flush=True,
  )
  if trace_dir:
    step = solvers.get("cfr+").step
    loop = jax.jit(lambda s: jax.lax.fori_loop(0, 20, lambda _, x: step(game.tensors, x), s))
    state = jax.block_until_ready(loop(state))
    with jax.profiler.trace(trace_dir):
      jax.block_until_ready(loop(state))
    record["profile"]["trace_dir"] = str(trace_dir)
  save()


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated, from {list(SECTIONS)}")
  parser.add_argument("--smoke", action="store_true", help="small games and batches: checks that the suite runs")
  parser.add_argument("--seconds", type=float, default=1.0, help="about how long to time each sampled configuration")
  parser.add_argument(
    "--batches", default=None, help="comma-separated batch sizes of the batches section (default: 1 to 4096)"
  )
  parser.add_argument("--trace-dir", default=None, help="write a jax.profiler trace of Leduc CFR+ here")
  parser.add_argument(
    "--out", default=None, help="results file (default: benchmarks/results/accelerator_<device kind>.json)"
  )
  args = parser.parse_args(argv)
  sections = [s for s in args.sections.split(",") if s]
  unknown = sorted(set(sections) - set(SECTIONS))
  if unknown:
    parser.error(f"--sections: unknown {unknown}; choose from {list(SECTIONS)}")
  device = jax.devices()[0]
  kind = re.sub(r"[^a-z0-9]+", "_", device.device_kind.lower()).strip("_")
  out = Path(args.out or Path(__file__).parent / "results" / f"accelerator_{kind}.json")
  small = (
    SMOKE
    if args.smoke
    else {
      "games": CFR_GAMES,
      "big_game": BIG_GAME,
      "batches": BATCHES,
      "outcome_sampling": OUTCOME_SAMPLING,
      "traversals": TRAVERSALS,
    }
  )
  record = {
    "device": device.device_kind,
    "platform": device.platform,
    "cfr": {},
    "batches": {},
    "outcome_sampling": [],
    "traversals": [],
  }
  configuration = {
    "sections": sections,
    "smoke": args.smoke,
    "dtype": "float32",
    "goals": GOALS,
    **{key: list(value) if isinstance(value, tuple) else value for key, value in small.items()},
  }
  if args.batches:
    small = dict(small)
    small["batches"] = tuple(int(b) for b in args.batches.split(","))
    configuration["batches"] = list(small["batches"])
  started = time.perf_counter()

  def save():
    record["seconds_so_far"] = time.perf_counter() - started
    record["goals"] = verdicts(record, small["big_game"])
    write_record(
      out,
      benchmark="accelerator",
      description="CFR+ ms per iteration (one run; a user's jitted fori_loop of solver.step, chunks "
      "of ~0.1 s timed for >= 1 s after compilation), the cost of trailing batches of Leduc "
      "runs against one run, outcome sampling trajectories per second (best of 3), external "
      "and chance sampling per iteration, goofspiel(7) CFR+ bytes per iteration over time "
      "against a device copy's rate, and the operations of Leduc CFR+'s compiled loop body, "
      f"all float32 on JAX's default device ({device.device_kind})",
      configuration=configuration,
      results=record,
    )

  print(
    f"device: {device.device_kind} ({device.platform}); jax {jax.__version__}; {hardware()['cpu_model']}", flush=True
  )
  if "cfr" in sections:
    run_cfr(small["games"], record, save)
  if "batches" in sections:
    run_batches(small["batches"], record, save)
  if "sampling" in sections:
    run_sampling(small["outcome_sampling"], small["traversals"], args.seconds, record, save)
  if "bandwidth" in sections:
    run_bandwidth(small["big_game"], record, save)
  if "profile" in sections:
    run_profile(args.trace_dir, record, save)
  for key, verdict in record["goals"].items() if record.get("goals") else ():
    print(f"goal {key}: {verdict['measured']:.4g} (goal {verdict['goal']:g}: {'met' if verdict['met'] else 'NOT met'})")
  print(f"wrote {out}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
