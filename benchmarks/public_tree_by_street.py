"""A turn endgame's CFR step over the whole public tree against a loop over its river subgames.

The peers (postflop-solver, TexasSolver) walk the tree depth first: each river subgame's arrays
are touched while they sit in cache. The public tree's step instead runs every level of the whole
tree as one array operation (``hunl_subgame`` turn endgame 2: 8,637 public nodes). This measures
the depth-first order in JAX: a lookahead of the turn's betting (``lookahead.build``, its leaves
after the river deals) whose leaves' river subgames each run one CFR step per iteration from
their own state (``lookahead.warm_leaf_values(iterations=1)``), either side by side (``vmap``,
one wide program) or one after another (``sequential``, ``lax.map``: the working set of one
river subgame). The three modes run the same algorithm (``--algorithm``, default CFR+) on the
same hands (every hand the board leaves: lookahead subgames hold them all), each in its own
process, pinned to one core: milliseconds per step (best of ``--repeats`` timed steps after a
compiling one), the compile, and the process's peak resident memory. The warm lookahead is
CFR-D with one CFR step per leaf and iteration, not the whole tree's iterates: this is a
measure of cost, not of equality.

    python -m benchmarks public_tree_by_street [--game 'hunl_subgame(endgame=2)'] [--core 0]
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

  from jaxcfr.kits import public_tree, registry  # pylint: disable=import-outside-toplevel
  from jaxcfr.solvers import cfr, lookahead  # pylint: disable=import-outside-toplevel

  start = time.perf_counter()
  rules = registry.source(game).rules.public_tree_rules()
  if mode == "whole":
    tree = public_tree.build(rules)
    operations = public_tree.operations()
  else:
    tree = lookahead.build(rules, rounds=1)
    leaf_fn = lookahead.warm_leaf_values(tree, 1, algorithm, jnp.float32, sequential=mode.endswith("another"))
    operations = public_tree.operations(leaf_fn=leaf_fn)
  tensors = public_tree.to_device(tree, jnp.float32)
  state = cfr.init(tensors, **cfr.preset_hyperparameters(algorithm), operations=operations)
  step = jax.jit(lambda s: cfr.preset_step(algorithm, operations=operations)(tensors, s))
  build_s = time.perf_counter() - start
  start = time.perf_counter()
  state = jax.block_until_ready(step(state))
  compile_s = time.perf_counter() - start
  best = float("inf")
  for _ in range(repeats):
    start = time.perf_counter()
    state = jax.block_until_ready(step(state))
    best = min(best, time.perf_counter() - start)
  leaves = int((tree.kind == public_tree.LEAF).sum())
  return {
    "public_nodes": tree.num_nodes,
    "leaf_subgames": leaves,
    "hands": tree.num_hands,
    "build_s": build_s,
    "compile_and_first_step_s": compile_s,
    "ms_per_step": 1e3 * best,
    "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
  }


def main(argv: list[str] | None = None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--game", default="hunl_subgame(endgame=2)", help="a game with a public tree and a deal")
  parser.add_argument("--algorithm", default="cfr+", help="the CFR preset of every mode (and of the leaves' steps)")
  parser.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of {', '.join(MODES)}")
  parser.add_argument("--repeats", type=int, default=5, help="timed steps per mode (the best is kept)")
  parser.add_argument("--core", type=int, default=0, help="the core every mode's process is pinned to")
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
  results = {}
  for mode in modes:
    command = ["taskset", "-c", str(args.core), sys.executable, __file__, "--child", mode]
    command += ["--game", args.game, "--algorithm", args.algorithm, "--repeats", str(args.repeats)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=dict(os.environ))
    if done.returncode:
      raise SystemExit(f"{mode}: the child failed: {done.stderr.strip().splitlines()[-1:]}")
    results[mode] = json.loads(done.stdout.strip().splitlines()[-1])
    print(
      f"  {mode}: {results[mode]['ms_per_step']:.1f} ms a step, {results[mode]['peak_rss_bytes'] / 1e6:,.0f} MB peak"
    )
  if "whole" in results:
    for mode in results:
      results[mode]["over_whole"] = results[mode]["ms_per_step"] / results["whole"]["ms_per_step"]
  configuration = {
    "game": args.game,
    "algorithm": args.algorithm,
    "dtype": "float32",
    "repeats": args.repeats,
    "core": args.core,
    "modes": modes,
  }
  write_record(
    args.out,
    benchmark="public_tree_by_street",
    description=__doc__.split("\n\n")[0] + " " + __doc__.split("\n\n")[1].replace("\n", " "),
    configuration=configuration,
    results=results,
  )
  return results


if __name__ == "__main__":
  main()
