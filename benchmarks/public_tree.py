"""The public tree (vector-form CFR) against the sequence form, and the Libratus endgames.

    python -m benchmarks public_tree                          # all parts
    python -m benchmarks public_tree --parts leduc --out /tmp/p.json
    python -m benchmarks public_tree --parts range_batch --iterations 200 \
        --out benchmarks/results/public_tree_range_batch.json

Parts:
- ``leduc``: Leduc CFR+ milliseconds per iteration, float32, one run and a batch of 64 runs,
  on the public tree (sorted and dense terminals) and on the sequence form, in one process.
- ``liars_dice``: the same for liar's dice (one die of 6 faces each; its calls are payoff
  terminals, one dense product each), one run and batches of 64 and 1,024 runs.
- ``endgames``: the four Libratus endgames (``hunl_subgame(endgame=K)``: stacks 20,000, big
  blind 100, first bets 0.5 pot, 1 pot and all-in, raises 1 pot and all-in): public nodes,
  device memory, seconds per iteration; for the river endgames (3 and 4), CFR+, DCFR and
  PCFR+ to ``--iterations`` with exploitability in mbb/g and percent of the pot on a schedule,
  and the run time to reach 0.5% of the pot. The turn endgames are timed per iteration only
  (``--turn-iterations``): a thousand iterations take hours on a 2-core CPU.
- ``turn_curves``: the turn endgames (``--turn-endgames``, default 2 then 1) with CFR+, DCFR
  and PCFR+ (``--algorithms``) to ``--iterations`` like the rivers' curves, each curve stopped early once its run
  time passes ``--max-minutes`` (the point it reached recorded).
- ``range_batch``: Libratus endgame 4 (a river) with ``--batches`` different range pairs (the
  endgame's ranges times independent log-normal noise, sigma 1, per hand) as one program
  (``jaxcfr.kits.public_tree.values.with_initial_ranges``): CFR+ milliseconds per iteration and per
  subgame against one subgame alone, then the largest batch solved for ``--iterations``
  iterations: the exploitability of every subgame in percent of the pot.
- ``flop``: a flop subgame (``--flop``, default ``FLOP``: about 595,000 public nodes) solved by
  each of ``--flop-algorithms`` until within 0.5% of the pot (evaluated every ``--every``
  iterations, each run capped at ``--max-minutes``): build time, size, run and wall seconds
  to the target, and the device's peak memory. Meant for a GPU: its state is about 25 GB.
- ``rounding``: how far rounding alone moves a solver's exploitability: river endgame 3 in
  float64 with the showdowns summed two ways (sorted prefix sums and dense [H, H] products:
  the same sums in other orders), CFR+, DCFR and PCFR+, the exploitability of each at
  ``ROUNDING_CHECKPOINTS`` and the relative difference between the two.
- ``small_deck_peer``: the small-deck subgames of ``SMALL_DECK`` (universal_poker with 5 ranks,
  OpenSpiel's ``potSize`` and ``boardCards``): OpenSpiel's C++ CFR+ (``pyspiel.CFRPlusSolver``,
  timed by ``benchmarks/peers.py`` as for Leduc) against CFR+ on the public tree and on our
  sequence form of the same OpenSpiel game, milliseconds per iteration and the ratios.
The results file records the hardware and commit.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import write_record  # noqa: E402  pylint: disable=wrong-import-position
from timing import per_iteration  # noqa: E402  pylint: disable=wrong-import-position

PARTS = ("leduc", "liars_dice", "endgames", "turn_curves", "range_batch", "small_deck_peer", "flop", "rounding")
# The flop part's subgame: a 3-bet pot (20 big blinds in the middle, 90 behind each: a
# stack-to-pot ratio of 4.5, as in postflop-solver's own example), uniform ranges, one bet
# size and all-in for the first bet of every round, a pot raise and all-in, two bets or
# raises a round.
FLOP = "board=Td9d6h,pot=200,stack=1000,big_blind=10,first_bets=0.5;allin,raises=1;allin,max_raises=2"
# Small-deck no-limit hold'em subgames both OpenSpiel and the public tree hold (the twins of
# tests/test_hunl_subgame.py): ranks, suits, board, stack; pot 200, big blind 100, bets of
# the pot and all-in (OpenSpiel's fcpa).
ROUNDING_CHECKPOINTS = (10, 50, 100, 200, 500, 1000)
SMALL_DECK = {"turn": (5, 2, "2c3d4c5d", 2000), "river": (5, 3, "2c3d4h5c6d", 2000)}
RANGE_NOISE_SEED = 0  # the log-normal noise of the range batch's ranges (numpy.random.default_rng)


def _solver_timing(game, algorithm: str, batch: int | None = None, **options) -> dict:
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel

  from jaxcfr import solvers  # pylint: disable=import-outside-toplevel

  solver = solvers.get(algorithm, game.representation, **options)
  kwargs = {} if batch is None else {"averaging_delay": jnp.zeros(batch, jnp.int32)}
  state = solver.init(game.tensors, **kwargs)
  timing = per_iteration(lambda s, n: solver.run(game.tensors, s, n), state, seconds=2.0)
  return {"ms_per_iteration": 1000 * timing["iteration_s"], "compile_s": timing["compile_s"]}


def small_game(name: str, batches: tuple, terminals: tuple) -> dict:
  """CFR+ ms per iteration of ``name`` on the sequence form and on the public tree (with each
  of ``terminals``), one run (None) and each batch size, with the public tree's ratios."""
  import jaxcfr  # pylint: disable=import-outside-toplevel

  sequence = jaxcfr.load(name)
  public = jaxcfr.load(name, representation="public_tree")
  rows = {}
  for batch in batches:
    key = "one_run" if batch is None else f"batch_{batch}"
    rows[key] = {"sequence_form": _solver_timing(sequence, "cfr+", batch)}
    for kind in terminals:
      rows[key][f"public_tree_{kind}"] = _solver_timing(public, "cfr+", batch, terminals=kind)
    base = rows[key]["sequence_form"]["ms_per_iteration"]
    for kind in terminals:
      rows[key][f"public_tree_{kind}"]["over_sequence_form"] = (
        rows[key][f"public_tree_{kind}"]["ms_per_iteration"] / base
      )
    print(name, key, rows[key], flush=True)
  return rows


def _curve(
  game, algorithm: str, iterations: int, every: int, max_seconds: float = float("inf"), stop_at_target: bool = False
) -> dict:
  """Exploitability of ``algorithm`` on ``game`` every ``every`` iterations to ``iterations``
  (or until the run time passes ``max_seconds``, or, with ``stop_at_target``, until the
  average strategy is within 0.5% of the pot): run seconds (the solver alone) and wall
  seconds (evaluations included) at each point."""
  import jax  # pylint: disable=import-outside-toplevel

  from jaxcfr import solvers  # pylint: disable=import-outside-toplevel
  from jaxcfr import kits  # pylint: disable=import-outside-toplevel

  solver = solvers.get(algorithm, game.representation)
  evaluate = kits.of_game(game).evaluator(game)
  state = solver.init(game.tensors)
  state = solver.run(game.tensors, state, 1)  # compile the run and the evaluation
  jax.block_until_ready(evaluate(solver, game.tensors, state, 1))
  state = solver.init(game.tensors)
  points, run_seconds, reached = [], 0.0, None
  done, began = 0, time.perf_counter()
  while done < iterations and run_seconds < max_seconds and not (stop_at_target and reached):
    start = time.perf_counter()
    state = solver.run(game.tensors, state, every)
    state.iteration.block_until_ready()
    run_seconds += time.perf_counter() - start
    done += every
    values = {k: float(v) for k, v in evaluate(solver, game.tensors, state, done).items()}
    wall = time.perf_counter() - began
    points.append({"iteration": done, "run_seconds": run_seconds, "wall_seconds": wall, **values})
    if reached is None and values["exploitability_pot_percent"] <= 0.5:
      reached = {"iteration": done, "run_seconds": run_seconds, "wall_seconds": wall}
  return {"curve": points, "reached_half_percent_of_pot": reached, "stopped_early": done < iterations}


def endgames(iterations: int, every: int, turn_iterations: int) -> dict:
  import jaxcfr  # pylint: disable=import-outside-toplevel

  out = {}
  for k in (1, 2, 3, 4):
    start = time.perf_counter()
    game = jaxcfr.load(f"hunl_subgame(endgame={k})")
    build = time.perf_counter() - start
    stats = game.statistics()
    row = {"build_and_load_s": build, "statistics": stats, "pot": game.info.pot}
    if stats["chance_nodes"] == 0:  # a river endgame
      row["cfr+"] = _solver_timing(game, "cfr+")
      for algorithm in ("cfr+", "dcfr", "pcfr+"):
        row[f"{algorithm}_curve"] = _curve(game, algorithm, iterations, every)
        last = row[f"{algorithm}_curve"]["curve"][-1]
        print(k, algorithm, last["exploitability_mbb"], last["exploitability_pot_percent"], flush=True)
    else:
      from jaxcfr import solvers  # pylint: disable=import-outside-toplevel

      solver = solvers.get("cfr+", game.representation)
      state = solver.run(game.tensors, solver.init(game.tensors), 1)
      state.iteration.block_until_ready()
      start = time.perf_counter()
      state = solver.run(game.tensors, state, turn_iterations)
      state.iteration.block_until_ready()
      row["cfr+"] = {"ms_per_iteration": 1000 * (time.perf_counter() - start) / turn_iterations}
    out[f"endgame{k}"] = row
    print(k, {key: v for key, v in row.items() if not key.endswith("curve")}, flush=True)
  return out


def _peak_device_bytes() -> int | None:
  import jax  # pylint: disable=import-outside-toplevel

  stats = jax.devices()[0].memory_stats() or {}
  return stats.get("peak_bytes_in_use")


def flop(spec: str, algorithms: list, iterations: int, every: int, max_minutes: float) -> dict:
  """A flop subgame (``hunl_subgame(spec)``, uniform ranges): build time, size, and each of
  ``algorithms`` run until its average strategy is within 0.5% of the pot (evaluated every
  ``every`` iterations, at most ``iterations`` or ``max_minutes`` of run time), with the
  device's peak memory (where JAX reports it)."""
  import jaxcfr  # pylint: disable=import-outside-toplevel

  start = time.perf_counter()
  game = jaxcfr.load(f"hunl_subgame({spec})")
  row = {"game": game.name, "build_and_load_s": time.perf_counter() - start, "statistics": game.statistics()}
  row.update(pot=game.info.pot)
  print("flop", row, flush=True)
  for algorithm in algorithms:
    curve = _curve(game, algorithm, iterations, every, 60 * max_minutes, stop_at_target=True)
    curve["peak_device_bytes"] = _peak_device_bytes()
    last = curve["curve"][-1]
    curve["ms_per_iteration"] = 1000 * last["run_seconds"] / last["iteration"]
    row[f"{algorithm}_curve"] = curve
    print("flop", algorithm, last, curve["reached_half_percent_of_pot"], curve["peak_device_bytes"], flush=True)
  return row


def turn_curves(endgames: list, iterations: int, every: int, max_minutes: float, algorithms: list) -> dict:
  import jaxcfr  # pylint: disable=import-outside-toplevel

  out = {}
  for k in endgames:
    game = jaxcfr.load(f"hunl_subgame(endgame={k})")
    row = {"statistics": game.statistics(), "pot": game.info.pot}
    for algorithm in algorithms:
      row[f"{algorithm}_curve"] = curve = _curve(game, algorithm, iterations, every, 60 * max_minutes)
      last = curve["curve"][-1]
      row[f"{algorithm}_ms_per_iteration"] = 1000 * last["run_seconds"] / last["iteration"]
      print(k, algorithm, last, flush=True)
    out[f"endgame{k}"] = row
  return out


def range_batch(batches: list, iterations: int, every: int) -> dict:
  import jax  # pylint: disable=import-outside-toplevel
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel
  import numpy as np  # pylint: disable=import-outside-toplevel

  import jaxcfr  # pylint: disable=import-outside-toplevel
  from jaxcfr import solvers  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits.public_tree import values as ops  # pylint: disable=import-outside-toplevel
  from jaxcfr.games import hunl_subgame as hs  # pylint: disable=import-outside-toplevel

  game = jaxcfr.load("hunl_subgame(endgame=4)")
  reach = hs.libratus_endgame(4).reach
  noise = np.random.default_rng(RANGE_NOISE_SEED).lognormal(0.0, 1.0, (2, reach.shape[1], max(batches)))
  weights = reach[:, :, None] * noise
  solver = solvers.get("cfr+", game.representation)
  rows = {}
  for batch in batches:
    tree = ops.with_initial_ranges(game.tensors, weights[..., :batch])
    timing = per_iteration(lambda s, n, tree=tree: solver.run(tree, s, n), solver.init(tree), seconds=2.0)
    per_subgame = 1000 * timing["iteration_s"] / batch
    rows[f"batch_{batch}"] = {
      "ms_per_iteration": 1000 * timing["iteration_s"],
      "ms_per_iteration_per_subgame": per_subgame,
      "compile_s": timing["compile_s"],
      "per_subgame_over_one_alone": per_subgame / rows["batch_1"]["ms_per_iteration"] if rows else 1.0,
    }
    print(batch, rows[f"batch_{batch}"], flush=True)
  batch = max(batches)
  tree = ops.with_initial_ranges(game.tensors, weights[..., :batch])
  state = solver.init(tree)
  exploitability = jax.jit(ops.exploitability)
  curve, seconds, done = [], 0.0, 0
  while done < iterations:
    start = time.perf_counter()
    state = solver.run(tree, state, every)
    state.iteration.block_until_ready()
    seconds += time.perf_counter() - start
    done += every
    percent = np.asarray(exploitability(tree, solver.average_strategy(tree, state))) * 100.0 / game.info.pot
    curve.append(
      {
        "iteration": done,
        "run_seconds": seconds,
        "pot_percent_median": float(np.median(percent)),
        "pot_percent_max": float(percent.max()),
        "subgames_within_half_percent": int((percent <= 0.5).sum()),
      }
    )
    print(curve[-1], flush=True)
  return {"batches": rows, "largest_batch": batch, "curve": curve, "dtype": str(jnp.zeros(()).dtype)}


def rounding() -> dict:
  import jax  # pylint: disable=import-outside-toplevel

  import jaxcfr  # pylint: disable=import-outside-toplevel
  from jaxcfr import solvers  # pylint: disable=import-outside-toplevel
  from jaxcfr import kits  # pylint: disable=import-outside-toplevel

  jax.config.update("jax_enable_x64", True)
  game = jaxcfr.load("hunl_subgame(endgame=3)", dtype="float64")
  evaluate = kits.of_game(game).evaluator(game)
  out = {"game": game.name, "dtype": "float64"}
  for algorithm in ("cfr+", "dcfr", "pcfr+"):
    curves = {}
    for terminals in ("sorted", "dense"):
      solver = solvers.get(algorithm, game.representation, terminals=terminals)
      state, done, points = solver.init(game.tensors), 0, []
      for checkpoint in ROUNDING_CHECKPOINTS:
        state = solver.run(game.tensors, state, checkpoint - done)
        done = checkpoint
        points.append(float(evaluate(solver, game.tensors, state, done)["exploitability_mbb"]))
      curves[terminals] = points
    relative = [abs(a - b) / max(abs(a), abs(b)) for a, b in zip(curves["sorted"], curves["dense"])]
    out[algorithm] = {
      "iterations": list(ROUNDING_CHECKPOINTS),
      "exploitability_mbb": curves,
      "relative_difference": relative,
    }
    print("rounding", algorithm, curves, relative, flush=True)
  return out


def small_deck_peer() -> dict:
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel

  import jaxcfr  # pylint: disable=import-outside-toplevel
  import peers  # pylint: disable=import-outside-toplevel
  from jaxcfr import solvers  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits import public_tree as pt  # pylint: disable=import-outside-toplevel
  from jaxcfr.games.no_limit_rules import NoLimitRules  # pylint: disable=import-outside-toplevel
  from jaxcfr.games.poker_rules import ALL_IN  # pylint: disable=import-outside-toplevel

  out = {}
  for which, (ranks, suits, board, stack) in SMALL_DECK.items():
    string = (
      "universal_poker(betting=nolimit,numPlayers=2,numRounds=4,numBoardCards=0 3 1 1,numHoleCards=2,"
      f"numRanks={ranks},numSuits={suits},stack={stack} {stack},blind=100 50,firstPlayer=2 1 1 1,"
      f"bettingAbstraction=fcpa,potSize=200,boardCards={board})"
    )
    cards = tuple("23456789TJQKA".index(board[i]) * suits + "cdhs".index(board[i + 1]) for i in range(0, len(board), 2))
    rules = NoLimitRules(
      ranks=ranks,
      suits=suits,
      board=cards,
      pot=200,
      stack=stack,
      big_blind=100,
      first_bets=(1.0, ALL_IN),
      raises=(1.0, ALL_IN),
    )
    tree = pt.build(rules)
    solver = solvers.get("cfr+", "public_tree")
    tensors = pt.to_device(tree, jnp.float32)
    timing = per_iteration(lambda s, n, t=tensors: solver.run(t, s, n), solver.init(tensors), seconds=2.0)
    public = {"ms_per_iteration": 1000 * timing["iteration_s"], "public_nodes": int(tree.num_nodes)}
    sequence = _solver_timing(jaxcfr.load("openspiel:" + string, use_cache=False), "cfr+")
    peer = peers.time_openspiel_cpp_cfr_plus(string, 20)
    row = {
      "game": string,
      "hands": int(tree.num_hands),
      "openspiel_cpp_cfr_plus": peer,
      "public_tree_cfr_plus_float32": public,
      "sequence_form_cfr_plus_float32": sequence,
      "openspiel_over_public_tree": peer["ms_per_iteration"] / public["ms_per_iteration"],
      "openspiel_over_sequence_form": peer["ms_per_iteration"] / sequence["ms_per_iteration"],
    }
    out[which] = row
    print(which, {k: v for k, v in row.items() if k != "openspiel_cpp_cfr_plus"}, peer["ms_per_iteration"], flush=True)
  return out


def main(argv: list[str] | None = None) -> dict:
  parser = argparse.ArgumentParser(prog="python -m benchmarks public_tree", description=__doc__.splitlines()[0])
  parser.add_argument(
    "--parts",
    default=",".join(p for p in PARTS if p not in ("flop", "rounding")),
    help=f"comma-separated parts: {', '.join(PARTS)} (default: all but flop and rounding)",
  )
  parser.add_argument("--iterations", type=int, default=1000, help="iterations of the river endgames' curves")
  parser.add_argument("--every", type=int, default=50, help="iterations between evaluations of a curve")
  parser.add_argument("--turn-iterations", type=int, default=3, help="timed CFR+ iterations on the turn endgames")
  parser.add_argument("--turn-endgames", default="2,1", help="turn_curves: comma-separated turn endgames (1, 2)")
  parser.add_argument("--max-minutes", type=float, default=60.0, help="turn_curves, flop: run time cap of each curve")
  parser.add_argument("--algorithms", default="cfr+,dcfr,pcfr+", help="turn_curves: comma-separated solvers")
  parser.add_argument("--flop", default=FLOP, help="flop: the hunl_subgame parameters")
  parser.add_argument("--flop-algorithms", default="dcfr,pcfr+,cfr+", help="flop: comma-separated solvers")
  parser.add_argument("--leduc-batches", default="64", help="leduc: comma-separated batch sizes beside one run")
  parser.add_argument(
    "--batches", default="1,64,1024", help="range_batch: comma-separated batch sizes (1 first: the baseline)"
  )
  parser.add_argument(
    "--out", default=str(Path(__file__).parent / "results" / "public_tree.json"), help="the results file"
  )
  args = parser.parse_args(argv)
  parts = args.parts.split(",")
  unknown = sorted(set(parts) - set(PARTS))
  if unknown:
    parser.error(f"unknown parts {unknown}; choose from {list(PARTS)}")
  results = {}

  def save():
    write_record(
      args.out,
      benchmark="public_tree",
      description="CFR on the public tree against the sequence form (Leduc, liar's dice), the Libratus endgames "
      "(hunl_subgame, stacks 20,000, big blind 100, bets 0.5/1 pot and all-in first, 1 pot and all-in raises) "
      "and a flop subgame; float32 on JAX's default device (the hardware record names it).",
      configuration={**vars(args), "range_noise_seed": RANGE_NOISE_SEED},
      results=results,
    )

  if "leduc" in parts:
    batches = (None, *(int(b) for b in args.leduc_batches.split(",") if b))
    results["leduc_cfr_plus_float32"] = small_game("leduc_poker", batches, ("sorted", "dense"))
    save()
  if "liars_dice" in parts:
    results["liars_dice_cfr_plus_float32"] = small_game("liars_dice", (None, 64, 1024), ("sorted",))
    save()
  if "endgames" in parts:
    results["libratus_endgames_float32"] = endgames(args.iterations, args.every, args.turn_iterations)
    save()
  if "turn_curves" in parts:
    endgames_ = [int(k) for k in args.turn_endgames.split(",")]
    if not set(endgames_) <= {1, 2}:
      parser.error(f"--turn-endgames takes the turn endgames 1 and 2, got {args.turn_endgames}")
    algorithms = args.algorithms.split(",")
    unknown = sorted(set(algorithms) - {"cfr+", "dcfr", "pcfr+"})
    if unknown:
      parser.error(f"--algorithms: unknown {unknown}; choose from cfr+, dcfr, pcfr+")
    results["turn_curves_float32"] = turn_curves(endgames_, args.iterations, args.every, args.max_minutes, algorithms)
    save()
  if "range_batch" in parts:
    batches = [int(b) for b in args.batches.split(",")]
    if batches[0] != 1 or min(batches) < 1:
      parser.error(f"--batches must start with 1 (the baseline) and hold positive sizes, got {args.batches}")
    results["range_batch_endgame4_float32"] = range_batch(batches, args.iterations, args.every)
    save()
  if "small_deck_peer" in parts:
    results["small_deck_openspiel_peer"] = small_deck_peer()
    save()
  if "flop" in parts:
    algorithms = args.flop_algorithms.split(",")
    results["flop_float32"] = flop(args.flop, algorithms, args.iterations, args.every, args.max_minutes)
    save()
  if "rounding" in parts:  # last: it turns on float64 for the rest of the process
    results["rounding_endgame3_float64"] = rounding()
    save()
  return results


if __name__ == "__main__":
  main()
