"""Reports over many boards as one batched program: the per-board cost of solving a spot's
subgames on every next card together (jaxcfr.poker.boards) against one board alone.

    python -m benchmarks poker_boards [--endgame 2] [--boards 48] [--iterations 100]

Solves Libratus turn endgame 2 (as a Spot) on ``--boards`` river cards as one vmapped program
and one river alone, the same iterations each, compilation timed apart (each program run twice:
the second run's time is reported), and writes ``results/poker_boards.json``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import jax

from jaxcfr.games.spots import Spot
from jaxcfr.poker import boards, solutions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position


def _timed(run):
  first = time.perf_counter()
  run()
  compiled = time.perf_counter() - first
  start = time.perf_counter()
  out = run()
  return out, time.perf_counter() - start, compiled


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--endgame", type=int, default=2, help="a Libratus turn endgame (1 or 2)")
  parser.add_argument("--boards", type=int, default=48, help="how many river cards (the first ones that can come)")
  parser.add_argument("--iterations", type=int, default=100)
  parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "poker_boards.json"))
  args = parser.parse_args(argv)
  spot = Spot.from_endgame(args.endgame)
  cards = [board[-2:] for board in boards.next_boards(spot)][: args.boards]
  report, batch_seconds, batch_first = _timed(
    lambda: boards.solve_boards(spot, cards, iterations=args.iterations, with_equity=False)
  )
  one = solutions.game_of(boards.subgame(spot, spot.board + cards[0]))
  from jaxcfr import solvers  # pylint: disable=import-outside-toplevel

  solver = solvers.get("dcfr", "public_tree")
  run_one = jax.jit(lambda t: solver.average_strategy(t, solver.run(t, solver.init(t), args.iterations)))
  _, one_seconds, one_first = _timed(lambda: jax.block_until_ready(run_one(one.tensors)))
  batch_solve = report["seconds"]
  results = {
    "boards": len(cards),
    "iterations": args.iterations,
    "batch_seconds": batch_solve,
    "batch_seconds_with_reports": batch_seconds,
    "batch_first_call_seconds": batch_first,
    "one_board_seconds": one_seconds,
    "one_board_first_call_seconds": one_first,
    "per_board_seconds_in_the_batch": batch_solve / len(cards),
    "per_board_ratio_to_alone": batch_solve / len(cards) / one_seconds,
    "worst_exploitability_pot_percent": max(row["exploitability_pot_percent"] for row in report["rows"]),
  }
  print(results, flush=True)
  write_record(
    args.out,
    benchmark="poker_boards",
    description="a spot's subgames on many river cards solved as one batched program against one board alone",
    configuration={"spot": f"Libratus endgame {args.endgame}", "cards": cards, "algorithm": "dcfr", "dtype": "float32"},
    results=results,
  )
  return 0


if __name__ == "__main__":
  sys.exit(main())
