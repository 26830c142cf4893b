"""Simulations per second of information-set MCTS (jaxcfr ``mcts``) side by side with
OpenSpiel's C++ ``ISMCTSBot`` on Kuhn and Leduc poker, same UCT constant.

What differs (so the rates compare work per simulation, not identical algorithms):
  * OpenSpiel's ISMCTSBot searches from one decision: each ``step`` samples a world state
    consistent with the acting player's information, runs ``max_simulations`` simulations
    from it with a tree keyed by infoset string, evaluates each new leaf with a
    random-rollout evaluator (one rollout) and back-propagates within its tree. Here it
    plays whole self-play games with 1,000 simulations per decision, and the rate is
    simulations / wall time (its per-step overhead included).
  * jaxcfr's ``mcts`` runs whole-game self-play simulations from the root on the tree
    arrays, on-policy (the UCT rule below the tree, no random rollout), backing up to every
    decision on the path (Ponsen et al. 2011 section 3.2.1). A single run is sequential
    (one jitted loop of simulations); throughput comes from a batch of independent runs
    (seeds) as one program.
The rates are measured on a 2-core CPU shared with other jobs (stated in the result file).

  python benchmarks/mcts_speed.py [--games kuhn_poker,leduc_poker] [--batch 1024] [--out ...]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import jax
import numpy as np

import jaxcfr
from jaxcfr import solvers
from record import read_record, write_record  # noqa: E402  pylint: disable=wrong-import-position
from timing import timed  # noqa: E402  pylint: disable=wrong-import-position


def openspiel_rate(name: str, *, uct_c: float, simulations: int, seconds: float) -> dict:
  """ISMCTSBot (C++) self-play: simulations per second over whole games for ~``seconds``."""
  import pyspiel  # pylint: disable=import-outside-toplevel

  game = pyspiel.load_game(name)
  rng = np.random.default_rng(0)
  bots = [pyspiel.ISMCTSBot(p, pyspiel.RandomRolloutEvaluator(1, p), uct_c, simulations) for p in (0, 1)]
  steps, start = 0, time.perf_counter()
  while time.perf_counter() - start < seconds:
    state = game.new_initial_state()
    while not state.is_terminal():
      if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(outcomes[rng.choice(len(outcomes), p=probs)])
      else:
        state.apply_action(bots[state.current_player()].step(state))
        steps += 1
  elapsed = time.perf_counter() - start
  return {"simulations_per_second": steps * simulations / elapsed, "decisions": steps, "seconds": elapsed}


def jaxcfr_rate(name: str, *, uct_c: float, batch: int | None, seconds: float) -> dict:
  """``mcts`` simulations per second (all runs of the batch together), compilation excluded."""
  game = jaxcfr.load(name, dtype="float32")
  solver = solvers.get("mcts")
  seeds = np.arange(batch) if batch else 0
  state = solver.init(game.tensors, seed=seeds, uct_c=uct_c)
  chunk = 1000
  state = jax.block_until_ready(solver.run(game.tensors, state, chunk))  # compile and warm up
  first, state = timed(lambda: solver.run(game.tensors, state, chunk))
  chunk = max(chunk, int(chunk * seconds / max(first, 1e-6)))
  elapsed, _ = timed(lambda: solver.run(game.tensors, state, chunk))
  return {
    "simulations_per_second": chunk * (batch or 1) / elapsed,
    "simulations_per_run": chunk,
    "runs": batch or 1,
    "seconds": elapsed,
  }


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--games", default="kuhn_poker,leduc_poker")
  parser.add_argument("--batch", type=int, default=1024)
  parser.add_argument("--uct-c", type=float, default=2.0)
  parser.add_argument("--simulations", type=int, default=1000, help="ISMCTSBot simulations per decision")
  parser.add_argument("--seconds", type=float, default=10.0, help="measurement time per configuration")
  parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "mcts_speed"))
  args = parser.parse_args(argv)
  rows = {}
  for name in args.games.split(","):
    peer = openspiel_rate(name, uct_c=args.uct_c, simulations=args.simulations, seconds=args.seconds)
    single = jaxcfr_rate(name, uct_c=args.uct_c, batch=None, seconds=args.seconds)
    batched = jaxcfr_rate(name, uct_c=args.uct_c, batch=args.batch, seconds=args.seconds)
    rows[name] = {
      "openspiel_ismcts_cpp": peer,
      "jaxcfr_single_run": single,
      f"jaxcfr_batch_{args.batch}": batched,
      "ratio_single": single["simulations_per_second"] / peer["simulations_per_second"],
      "ratio_batch": batched["simulations_per_second"] / peer["simulations_per_second"],
    }
    print(
      f"{name}: OpenSpiel ISMCTSBot {peer['simulations_per_second']:,.0f} sims/s; jaxcfr one run "
      f"{single['simulations_per_second']:,.0f} ({rows[name]['ratio_single']:.2f}x); batch of {args.batch} "
      f"{batched['simulations_per_second']:,.0f} ({rows[name]['ratio_batch']:.1f}x)",
      flush=True,
    )
  write_record(
    args.out + ".json",
    benchmark="mcts_speed",
    description=(
      "information-set MCTS simulations per second vs OpenSpiel's C++ ISMCTSBot. OpenSpiel: "
      "pyspiel.ISMCTSBot, RandomRolloutEvaluator(1 rollout), "
      f"{args.simulations} simulations per decision, whole self-play games, uct_c "
      f"{args.uct_c}. jaxcfr: mcts (backup=path, on-policy, visit-count policy), float32, "
      f"uct_c {args.uct_c}, one run and a batch of {args.batch} seeds as one program. "
      "Simulations are not the same work (see the module docstring: per-decision search "
      "with random rollouts vs whole-game self-play). Measured on a 2-core CPU shared with "
      "other jobs (the load average is recorded)."
    ),
    configuration={
      "games": args.games.split(","),
      "batch": args.batch,
      "uct_c": args.uct_c,
      "simulations_per_decision": args.simulations,
      "seconds": args.seconds,
      "dtype": "float32",
      "seeds": {"one run": 0, "batch": list(range(args.batch))},  # solver.init's seeds
    },
    results={"load_average_1min_at_end": os.getloadavg()[0], "games": rows},
  )
  return read_record(args.out + ".json")


if __name__ == "__main__":
  main()
