"""Where one iteration on the public tree spends its time: each part of a CFR step timed alone,
and, with ``--trace``, the device's own record of one step (the kernels or thunks by total time).

A step with alternating updates computes both players' ranges (top-down), then for each player
the counterfactual values (the terminal values, then bottom-up), the regret and average
updates, and the updating player's ranges again. The parts timed here, each a jitted call on
the tree with the uniform strategies (best of ``--repeats`` after a compiling call):
``ranges`` (one player), ``folds``, ``showdowns`` (for each of ``--step-bytes``: the loop over
the showdown boards taking as many boards a step as fit that many bytes, 0 meaning one board),
``terminals`` (folds, showdowns, payoff terminals), ``values`` (the bottom-up pass with its
terminals), and the whole ``step`` (``solver.run`` for one iteration, per iteration). Two
experiments beside the library's code, for hold'em's two-card hands: ``folds_by_product`` (the
folds with the card sums as one product, written out here) and, where the tree takes several
showdown boards a step (an accelerator), ``experiment_showdown_gathers`` (a board's reach put
in order of strength by gathering columns of [G, H] or rows of [H, G]).

    python -m benchmarks public_tree_profile --game 'hunl_subgame(endgame=3)'
    python -m benchmarks public_tree_profile --game 'hunl_subgame(board=Td9d6h,...)' --trace
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import write_record  # noqa: E402  pylint: disable=wrong-import-position
from timing import best_seconds, per_iteration  # noqa: E402  pylint: disable=wrong-import-position


def _timed_part(fn, *args, repeats: int) -> dict:
  """Compile seconds and the best of ``repeats`` milliseconds of jitted ``fn(*args)``."""
  import jax  # pylint: disable=import-outside-toplevel

  jitted = jax.jit(fn)
  start = time.perf_counter()
  jax.block_until_ready(jitted(*args))
  compile_s = time.perf_counter() - start
  return {"ms": 1000 * best_seconds(lambda: jitted(*args), repeats), "compile_s": compile_s}


def trace_summary(trace_dir: str, top: int) -> dict:
  """The ``top`` event names of the Perfetto trace that ``jax.profiler.trace`` wrote under
  ``trace_dir``, by total duration, with their counts, and the total per process (the device's
  streams and the host's threads)."""
  files = sorted(Path(trace_dir).rglob("perfetto_trace.json.gz"))
  if not files:
    return {"error": f"no perfetto_trace.json.gz under {trace_dir}"}
  with gzip.open(files[-1], "rt") as f:
    events = json.load(f)
  events = events["traceEvents"] if isinstance(events, dict) else events
  names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
  by_name, by_process = collections.defaultdict(lambda: [0.0, 0]), collections.defaultdict(float)
  for e in events:
    if e.get("ph") != "X":
      continue
    process = names.get(e.get("pid"), str(e.get("pid")))
    key = (process, e.get("name", "?"))
    by_name[key][0] += e.get("dur", 0.0)
    by_name[key][1] += 1
    by_process[process] += e.get("dur", 0.0)
  ranked = sorted(by_name.items(), key=lambda kv: -kv[1][0])[:top]
  return {
    "ms_per_process": {k: v / 1000 for k, v in sorted(by_process.items(), key=lambda kv: -kv[1])},
    "top_events": [{"process": p, "name": n[:160], "ms": d / 1000, "count": c} for (p, n), (d, c) in ranked],
  }


# The parts of an iteration, each function wrapped in a named scope while the attribution's step
# is traced (the op names of the compiled program then carry them; the innermost one counts).
SCOPES = (
  ("ranges", "values", "ranges"),
  ("folds", "values", "fold_values"),
  ("showdowns", "values", "showdown_values"),
  ("payoffs", "values", "payoff_values"),
  ("bottom_up", "values", "counterfactual_values"),
  ("cfr_update", "cfr", "_update_player"),
)


def _scoped(function, name):
  import jax  # pylint: disable=import-outside-toplevel

  def wrapped(*args, **kwargs):
    with jax.named_scope(name):
      return function(*args, **kwargs)

  return wrapped


def attribution(tree, solver, state, trace_dir: str) -> dict:
  """Milliseconds of two iterations by part of the iteration (``SCOPES``): the step is traced
  again with each part in a named scope, compiled, run twice under ``jax.profiler``, and every
  event of the trace is given to the innermost scope in the op name of its HLO instruction
  (``other``: none; ``runtime``: events that are no instruction of the program). Also the
  program's compile seconds and XLA's cost analysis of one iteration (bytes accessed, flops)."""
  import re  # pylint: disable=import-outside-toplevel

  import jax  # pylint: disable=import-outside-toplevel

  from jaxcfr.kits.public_tree import values  # pylint: disable=import-outside-toplevel
  from jaxcfr.solvers import cfr  # pylint: disable=import-outside-toplevel

  modules = {"values": values, "cfr": cfr}
  originals = {(m, f): getattr(modules[m], f) for _, m, f in SCOPES}
  for name, m, f in SCOPES:
    setattr(modules[m], f, _scoped(originals[(m, f)], name))
  try:
    jax.clear_caches()
    one = jax.jit(solver.step).lower(tree, state).compile()
    start = time.perf_counter()
    two = jax.jit(lambda t, s: solver.step(t, solver.step(t, s))).lower(tree, state).compile()
    compile_s = time.perf_counter() - start
  finally:
    for (m, f), function in originals.items():
      setattr(modules[m], f, function)
  cost = one.cost_analysis()
  cost = cost[0] if isinstance(cost, list) else cost
  state = jax.block_until_ready(two(tree, state))
  with jax.profiler.trace(trace_dir, create_perfetto_trace=True):
    jax.block_until_ready(two(tree, state))
  op_names = dict(re.findall(r"%(\S+) = [^\n]*?metadata=\{op_name=\"([^\"]*)\"", two.as_text()))
  scopes = [name for name, _, _ in SCOPES]
  parts = collections.defaultdict(float)
  for event, micros in _exclusive(trace_dir).items():
    path = op_names.get(event)
    found = [s for s in (path or "").split("/") if s in scopes]
    parts[found[-1] if found else ("other" if path is not None else "runtime")] += micros / 1000 / 2
  return {
    "ms_per_iteration_by_part": dict(sorted(parts.items(), key=lambda kv: -kv[1])),
    "compile_s_of_two_steps": compile_s,
    "cost_analysis_per_iteration": {k: cost.get(k) for k in ("bytes accessed", "flops", "transcendentals")},
  }


def _exclusive(trace_dir: str) -> dict:
  """{name: microseconds} of the trace's complete events less the events nested in them on
  the same thread (a loop's time without its body's kernels), Python's own events and the
  caller's wait for the kernels left out."""
  files = sorted(Path(trace_dir).rglob("perfetto_trace.json.gz"))
  with gzip.open(files[-1], "rt") as f:
    events = json.load(f)
  events = events["traceEvents"] if isinstance(events, dict) else events
  waiting = lambda name: name.startswith("$") or "wait for completion" in name  # Python's events, or idle
  events = [e for e in events if e.get("ph") == "X" and not waiting(e.get("name", "$"))]
  events.sort(key=lambda e: (e.get("pid"), e.get("tid"), e["ts"], -e.get("dur", 0.0)))
  out, stack = collections.defaultdict(float), []
  for e in events:
    thread, end = (e.get("pid"), e.get("tid")), e["ts"] + e.get("dur", 0.0)
    while stack and (stack[-1][0] != thread or stack[-1][1] <= e["ts"]):
      stack.pop()
    if stack:
      out[stack[-1][2]] -= e.get("dur", 0.0)  # time of the enclosing event spent in this one
    out[e.get("name", "?")] += e.get("dur", 0.0)
    stack.append((thread, end, e.get("name", "?")))
  return out


def card_incidence(tree):
  """[H, M] 1 where hand ``h`` holds card ``m`` (``tree.members[0]``'s rows)."""
  import numpy as np  # pylint: disable=import-outside-toplevel

  members = np.asarray(tree.members[0])
  incidence = np.zeros((tree.num_hands, members.shape[0]), np.float32)
  incidence[members, np.arange(members.shape[0])[:, None]] = 1
  return incidence


def folds_by_product(tree, player: int, opponent_reach, incidence):
  """An experiment beside ``jaxcfr.kits.public_tree.values.fold_values`` (two-card hands): the reach
  of each card's holders as one product with the [H, M] card-incidence matrix
  (``card_incidence``), instead of a gather of the holders and a sum."""
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel

  subsets = tree.subsets[0]
  total = opponent_reach.sum(1, keepdims=True)
  held = jnp.matmul(opponent_reach, jnp.asarray(incidence, opponent_reach.dtype), precision="highest")  # [F, M]
  reach = total - held[:, subsets[:, 0]] - held[:, subsets[:, 1]] + opponent_reach
  mask = tree.valid[tree.board[tree.fold_nodes]]
  return tree.fold_payoff[player][:, None] * reach * mask


def showdown_gathers(tree, reach, width: int) -> dict:
  """An experiment on the showdowns' first step, each board's reach [G, H] put in its hands'
  order of strength, over every showdown board in steps of ``width`` boards (``lax.map`` over
  a ``vmap``, as jaxcfr.kits.public_tree.values runs the showdowns): ``columns`` gathers the hands
  axis of [G, H] as the library does; ``rows`` gathers rows of the transposed [H, G];
  ``transpose`` only transposes. Milliseconds, best of three."""
  import jax  # pylint: disable=import-outside-toplevel
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel

  groups = tree.showdown_groups  # [Bs, G]
  padded = jnp.concatenate([reach, jnp.zeros_like(reach[:1])])[groups]  # [Bs, G, H]
  count = padded.shape[0]
  steps = -(-count // width)
  padded = jnp.concatenate([padded, jnp.zeros((steps * width - count,) + padded.shape[1:], padded.dtype)])
  padded = padded.reshape((steps, width) + padded.shape[1:])
  boards = jnp.minimum(jnp.arange(steps * width), count - 1).reshape(steps, width)
  variants = {
    "columns": lambda order, r: r[:, order],
    "rows": lambda order, r: r.T[order],
    "transpose": lambda order, r: r.T,
  }
  out = {}
  for name, gather in variants.items():

    def run(t, boards, padded, gather=gather):
      step = lambda x: jax.vmap(lambda b, r: gather(t.order[b], r))(*x)
      return jax.lax.map(step, (boards, padded))

    out[name] = _timed_part(run, tree, boards, padded, repeats=3)
  return out


def profile(
  game_name: str, algorithm: str, step_bytes: list, repeats: int, trace: bool, top: int, attribute: bool = False
) -> dict:
  import jax  # pylint: disable=import-outside-toplevel

  import jaxcfr  # pylint: disable=import-outside-toplevel
  from jaxcfr import solvers  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits.public_tree import values as ops  # pylint: disable=import-outside-toplevel

  start = time.perf_counter()
  game = jaxcfr.load(game_name, representation="public_tree")
  tree = game.tensors
  out = {"game": game.name, "build_and_load_s": time.perf_counter() - start, "statistics": game.statistics()}
  print(out, flush=True)
  strategy = [ops.uniform_strategy(tree, p) for p in (0, 1)]
  reach = [jax.jit(ops.ranges, static_argnums=1)(tree, p, strategy[p]) for p in (0, 1)]
  parts = {
    "ranges": _timed_part(lambda t, s: ops.ranges(t, 0, s), tree, strategy[0], repeats=repeats),
    "folds": _timed_part(lambda t, r: ops.fold_values(t, 0, r[t.fold_nodes]), tree, reach[1], repeats=repeats),
  }
  if tree.hands.shape[1] == 2:
    incidence = card_incidence(tree)
    by_product = lambda t, r, i: folds_by_product(t, 0, r[t.fold_nodes], i)
    parts["folds_by_product"] = _timed_part(by_product, tree, reach[1], incidence, repeats=repeats)
    expected = jax.jit(lambda t, r: ops.fold_values(t, 0, r[t.fold_nodes]))(tree, reach[1])
    got = jax.jit(by_product)(tree, reach[1], incidence)
    parts["folds_by_product"]["max_abs_difference"] = float(abs(expected - got).max())
  for size in step_bytes:
    sized = dataclasses.replace(tree, showdown_step_bytes=size)
    parts[f"showdowns_step_bytes_{size}"] = _timed_part(
      lambda t, r: ops.showdown_values(t, 0, r[t.showdown_nodes]), sized, reach[1], repeats=repeats
    )
    print(size, parts[f"showdowns_step_bytes_{size}"], flush=True)
  if tree.showdown_step_bytes:
    width = max(int(tree.showdown_step_bytes // (16 * tree.showdown_groups.shape[1] * tree.num_hands * 4)), 1)
    parts["experiment_showdown_gathers"] = showdown_gathers(tree, reach[1][tree.showdown_nodes], width)
    print(parts["experiment_showdown_gathers"], flush=True)
  parts["terminals"] = _timed_part(lambda t, r: ops.terminal_values(t, 0, r), tree, reach[1], repeats=repeats)
  parts["values"] = _timed_part(
    lambda t, s, r: ops.counterfactual_values(t, 0, s, r), tree, strategy[0], reach[1], repeats=repeats
  )
  solver = solvers.get(algorithm, "public_tree")
  state = solver.init(tree)
  timing = per_iteration(lambda s, n: solver.run(tree, s, n), state, seconds=4.0, repeats=2)
  parts["step"] = {"ms": 1000 * timing["iteration_s"], "compile_s": timing["compile_s"]}
  out["parts"] = parts
  out["showdown_step_bytes_default"] = tree.showdown_step_bytes
  print(json.dumps(parts, indent=1), flush=True)
  leaves = lambda x: sum(leaf.nbytes for leaf in jax.tree_util.tree_leaves(x))
  out["bytes"] = {
    "tree": leaves(tree),
    "state": leaves(state),
    "one_node_hand_array": int(tree.kind.shape[0]) * tree.num_hands * 4,
  }
  if attribute:
    with tempfile.TemporaryDirectory() as trace_dir:
      out["attribution"] = attribution(tree, solver, state, trace_dir)
    print(json.dumps(out["attribution"], indent=1), flush=True)
  if trace:
    state = jax.block_until_ready(solver.run(tree, state, 1))
    with tempfile.TemporaryDirectory() as trace_dir:
      try:
        with jax.profiler.trace(trace_dir, create_perfetto_trace=True):
          state = jax.block_until_ready(solver.run(tree, state, 2))
        out["trace_of_two_steps"] = trace_summary(trace_dir, top)
      except Exception as error:  # pylint: disable=broad-except  (a profiler the machine lacks)
        out["trace_of_two_steps"] = {"error": f"{type(error).__name__}: {error}"}
    print(json.dumps(out["trace_of_two_steps"], indent=1), flush=True)
  return out


def main(argv: list[str] | None = None) -> dict:
  parser = argparse.ArgumentParser(prog="python -m benchmarks public_tree_profile", description=__doc__.splitlines()[0])
  parser.add_argument("--game", default="hunl_subgame(endgame=3)", help="a game with a public tree")
  parser.add_argument("--algorithm", default="dcfr", help="the solver of the timed step")
  parser.add_argument("--step-bytes", default="0", help="comma-separated showdown_step_bytes to time the showdowns at")
  parser.add_argument("--repeats", type=int, default=3, help="timed calls of each part (the best is kept)")
  parser.add_argument("--trace", action="store_true", help="also record two steps with jax.profiler and rank events")
  parser.add_argument("--top", type=int, default=40, help="--trace: how many events to keep")
  parser.add_argument(
    "--attribute", action="store_true", help="also the time of two steps by part (ranges, folds, ...) and their bytes"
  )
  parser.add_argument(
    "--out", default=str(Path(__file__).parent / "results" / "public_tree_profile.json"), help="the results file"
  )
  args = parser.parse_args(argv)
  step_bytes = [int(b) for b in args.step_bytes.split(",") if b]
  if any(b < 0 for b in step_bytes):
    parser.error(f"--step-bytes must be >= 0, got {args.step_bytes}")
  results = profile(args.game, args.algorithm, step_bytes, args.repeats, args.trace, args.top, args.attribute)
  write_record(
    args.out,
    benchmark="public_tree_profile",
    description=__doc__.splitlines()[0] + " float32 on JAX's default device (the hardware record names it).",
    configuration=vars(args),
    results=results,
  )
  return results


if __name__ == "__main__":
  main()
