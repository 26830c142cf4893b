"""A CFR step over a whole public tree against a loop over the subgames below its first deal.

The peers (postflop-solver, TexasSolver) walk the tree depth first: each river subgame's arrays
are touched while they sit in cache. The public tree's step instead runs every level of the whole
tree as one array operation. This measures the depth-first order in JAX: a lookahead of the first
betting round (``lookahead.build(rules, rounds=1)``, its leaves after the next deal) whose leaves'
subgames each run one CFR step per lookahead step from their own state
(``lookahead.warm_leaf_values(iterations=1)``), either side by side (``vmap``, one wide program) or
one after another (``sequential``, ``lax.map``: the step's intermediates are one subgame's, while
every subgame's tables and state stay resident). Every mode updates the players simultaneously
(an alternating step would ask its leaves for values twice, so each subgame would take two
steps), with the same CFR preset (``--algorithm``; the leaves' steps are the preset's own) on the
same hands (every hand the board leaves: lookahead subgames hold them all). Each mode runs in its
own process pinned to one core: milliseconds per step (best of ``--repeats`` timed steps after a
compiling one), the compile, the compiled step's temporary buffers (XLA's memory analysis: the
working memory of one step), and the process's peak resident memory (the build and the compile
included). A warm lookahead is CFR-D with one CFR step per leaf and step, not the whole tree's
iterates: this measures cost, not equality.

    python -m benchmarks public_tree_by_street [--game 'hunl_subgame(endgame=2)'] [--core 1]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

MODES = ("whole", "by_street_side_by_side", "by_street_one_after_another")


def measure(game: str, mode: str, algorithm: str, repeats: int) -> dict:
  """One mode's figures, in this process."""
  import jax  # pylint: disable=import-outside-toplevel
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel
  import numpy as np  # pylint: disable=import-outside-toplevel

  from jaxcfr.kits import public_tree, registry  # pylint: disable=import-outside-toplevel
  from jaxcfr.solvers import cfr, lookahead  # pylint: disable=import-outside-toplevel

  start = time.perf_counter()
  rules = registry.source(game).rules.public_tree_rules()
  subgame_nodes = []
  if mode == "whole":
    tree = public_tree.build(rules)
    operations = public_tree.operations()
  else:
    tree = lookahead.build(rules, rounds=1)
    leaf_fn = lookahead.warm_leaf_values(tree, 1, algorithm, jnp.float32, sequential=mode.endswith("another"))
    operations = public_tree.operations(leaf_fn=leaf_fn)
  tensors = public_tree.to_device(tree, jnp.float32)
  state = cfr.init(tensors, **cfr.preset_hyperparameters(algorithm), operations=operations)
  step = jax.jit(cfr.preset_step(algorithm, "simultaneous", operations=operations))
  build_s = time.perf_counter() - start
  if mode != "whole":  # the leaves' subgames' sizes, counted outside the build's time
    leaves = np.flatnonzero(tree.kind == public_tree.LEAF)
    subgame_nodes = [lookahead.build(rules, tree.states[n], rounds=None).num_nodes for n in leaves]
  start = time.perf_counter()
  compiled = step.lower(tensors, state).compile()
  state = jax.block_until_ready(compiled(tensors, state))
  compile_s = time.perf_counter() - start
  memory = compiled.memory_analysis()
  best = float("inf")
  for _ in range(repeats):
    start = time.perf_counter()
    state = jax.block_until_ready(compiled(tensors, state))
    best = min(best, time.perf_counter() - start)
  return {
    "public_nodes": tree.num_nodes,
    "leaf_subgames": len(subgame_nodes),
    "leaf_subgame_nodes": {"total": sum(subgame_nodes), "min": min(subgame_nodes), "max": max(subgame_nodes)}
    if subgame_nodes
    else None,
    "hands": tree.num_hands,
    "build_s": build_s,
    "compile_and_first_step_s": compile_s,
    "ms_per_step": 1e3 * best,
    "step_temp_bytes": getattr(memory, "temp_size_in_bytes", None),
    "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
  }


def main(argv: list[str] | None = None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--game", default="hunl_subgame(endgame=2)", help="a game with a public tree and a deal")
  parser.add_argument("--algorithm", default="cfr+", help="the CFR preset of every mode (and of the leaves' steps)")
  parser.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of {', '.join(MODES)}")
  parser.add_argument("--repeats", type=int, default=5, help="timed steps per mode (the best is kept)")
  parser.add_argument("--core", type=int, default=min(os.sched_getaffinity(0)), help="the core of every mode")
  parser.add_argument("--out", default=str(HERE / "results" / "public_tree_by_street.json"))
  parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
  args = parser.parse_args(argv)
  if args.child:
    print(json.dumps(measure(args.game, args.child, args.algorithm, args.repeats)))
    return {}
  modes = [m for m in args.modes.split(",") if m]
  unknown = sorted(set(modes) - set(MODES))
  if unknown:
    raise SystemExit(f"--modes: unknown {unknown}; choose from {list(MODES)}")
  results, load = {}, {"start": os.getloadavg()[0]}
  for mode in modes:
    command = ["taskset", "-c", str(args.core), sys.executable, __file__, "--child", mode]
    command += ["--game", args.game, "--algorithm", args.algorithm, "--repeats", str(args.repeats)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
      raise SystemExit(f"{mode}: the child failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
    results[mode] = json.loads(done.stdout.strip().splitlines()[-1])
    row = results[mode]
    print(f"  {mode}: {row['ms_per_step']:.1f} ms a step, {row['peak_rss_bytes'] / 1e6:,.0f} MB peak", flush=True)
  if "whole" in results:
    for row in results.values():
      row["over_whole"] = row["ms_per_step"] / results["whole"]["ms_per_step"]
  load["end"] = os.getloadavg()[0]
  configuration = {
    "game": args.game,
    "algorithm": args.algorithm,
    "updates": "simultaneous",
    "dtype": "float32",
    "repeats": args.repeats,
    "core": args.core,
    "modes": modes,
  }
  write_record(
    args.out,
    benchmark="public_tree_by_street",
    description=" ".join(__doc__.split("\n\n")[:2]).replace("\n", " ")
    + f" Game {args.game}; the 2-core machine's 1-minute load average at the start and the end is recorded.",
    configuration=configuration,
    results={"modes": results, "load_average_1_min": load},
  )
  return results


if __name__ == "__main__":
  main()
