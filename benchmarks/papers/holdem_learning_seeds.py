"""Ponsen, de Jong and Lanctot 2011, Figure 8 over several seeds: does MCRNR10 learn to exploit
its opponent while it plays?

holdem_learned_model.py runs Figure 8 once (one seed, the paper's 6 million iterations). This
script repeats the online part over --seeds, with a smaller budget per seed, and tests the trend:

1. MCCFR10: outcome sampling (epsilon 0.6) for --iters iterations, the player that observes the
   rule bot (the stand-in for the paper's Poki).
2. The model: --games observed games of the bot against MCCFR10 (half in each seat), learned by
   jaxcfr.evaluate.holdem_model as in holdem_learned_model.py (both call holdem_opponent_model.py);
   one model for every seed.
3. For each seed: MCRNR (the learned model, pConf 0.75, one run restricting each seat, its
   sampling seeded by the seed) runs --online-iters iterations during --online-games hands in
   blocks of --block hands; after each block's iterations its counter-strategy plays the block
   against the bot (duplicate deals drawn from the seed, two hands each; sb/h is the expected
   payoff over the actions).
4. The trend: per seed, the least-squares slope of the blocks' sb/h against the hands played
   (sb/h per 1,000 hands) and the later half's mean minus the first half's. Over the seeds, the
   mean of each with a 95% t interval and a one-sided t test (the seeds are the replicates) that
   it is positive.

  python -m benchmarks holdem_learning_seeds [--seeds 0 1 2 3 4 5 6 7] [--online-iters 750000]

writes benchmarks/papers/results/holdem_learning_seeds.json.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

import jaxcfr
from jaxcfr import solvers
from jaxcfr.kits.card_abstraction import match as holdem_match
from jaxcfr.evaluate import holdem_model

import holdem_opponent_model  # noqa: E402  pylint: disable=wrong-import-position
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position
from seed_statistics import over_seeds  # noqa: E402  pylint: disable=wrong-import-position

PCONF = holdem_opponent_model.PCONF
KEY = 2011


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("--game", default="limit_holdem(buckets=10)")
  parser.add_argument("--iters", type=int, default=1_000_000, help="MCCFR10, the observing player")
  parser.add_argument("--games", type=int, default=20000, help="observed games of the bot")
  parser.add_argument("--threshold", type=float, default=1.0, help="the model trees' least error reduction")
  parser.add_argument("--seeds", type=int, nargs="+", default=list(range(8)))
  parser.add_argument("--online-games", type=int, default=1000)
  parser.add_argument("--online-iters", type=int, default=750_000, help="MCRNR iterations per seed")
  parser.add_argument("--block", type=int, default=20, help="online hands per block (even)")
  parser.add_argument("--out", default="benchmarks/papers/results/holdem_learning_seeds")
  args = parser.parse_args(argv)
  if args.block < 2 or args.block % 2 or args.online_games % args.block:
    parser.error(f"--block must be even and divide --online-games, got {args.block} and {args.online_games}")
  if len(args.seeds) < 2:
    parser.error("the trend test needs at least two seeds")
  game = jaxcfr.load(args.game)
  bot = holdem_match.rule_bot(game)
  key = jax.random.PRNGKey(KEY)

  _, observed, model, seconds = holdem_opponent_model.observed_model(
    game, bot, key, iters=args.iters, games=args.games, threshold=args.threshold
  )
  fit = holdem_model.agreement(game, model, bot, observed)
  print("model", fit, flush=True)

  mcrnr = solvers.get("mcrnr", "card_abstraction")
  blocks = args.online_games // args.block
  per_block = args.online_iters // blocks
  hands = np.arange(1, blocks + 1) * args.block
  x = (hands - args.block / 2) / 1000  # each block's middle hand, in thousands of hands
  runs = {}
  slopes, halves = [], []
  for seed in args.seeds:
    start = time.perf_counter()
    state = mcrnr.init(
      game, model=model, seed=jnp.array([2 * seed, 2 * seed + 1]), p=PCONF, restricted=jnp.array([1, 0])
    )
    deals = jax.random.fold_in(key, 1000 + seed)
    sb = []
    for b in range(blocks):
      state = mcrnr.run(game, state, per_block)
      result = holdem_match.match(
        game, holdem_opponent_model.counter(mcrnr, game, state), bot, jax.random.fold_in(deals, b), args.block // 2
      )
      sb.append(float(result["sb_per_hand"]))
    sb = np.array(sb)
    slope = float(np.polyfit(x, sb, 1)[0])
    diff = float(sb[blocks // 2 :].mean() - sb[: blocks // 2].mean())
    slopes.append(slope)
    halves.append(diff)
    runs[str(seed)] = {
      "seconds": time.perf_counter() - start,
      "block_sb_per_hand": sb.tolist(),
      "mean_sb_per_hand": float(sb.mean()),
      "first_half_sb_per_hand": float(sb[: blocks // 2].mean()),
      "later_half_sb_per_hand": float(sb[blocks // 2 :].mean()),
      "slope_sb_per_hand_per_1000_hands": slope,
    }
    print("seed", seed, "mean", float(sb.mean()), "slope", slope, "later - first", diff, flush=True)

  trend = {
    "slope_sb_per_hand_per_1000_hands": over_seeds(slopes, "greater"),
    "later_minus_first_half_sb_per_hand": over_seeds(halves, "greater"),
    "mean_sb_per_hand": over_seeds([r["mean_sb_per_hand"] for r in runs.values()], "greater"),
    "first_half_sb_per_hand": over_seeds([r["first_half_sb_per_hand"] for r in runs.values()], "greater"),
    "later_half_sb_per_hand": over_seeds([r["later_half_sb_per_hand"] for r in runs.values()], "greater"),
  }
  print("trend", trend["slope_sb_per_hand_per_1000_hands"], trend["later_minus_first_half_sb_per_hand"], flush=True)
  return write_record(
    f"{args.out}.json",
    benchmark="holdem_learning_seeds",
    description=(
      "Ponsen et al. 2011 Figure 8 (MCRNR10 learns to exploit its opponent while it plays) over several seeds, "
      "limit hold'em's 10-bucket abstraction. The rule bot stands in for Poki; the opponent model is learned from "
      "the bot's games against MCCFR10 (jaxcfr.evaluate.holdem_model), one model for every seed. Per seed: "
      f"{args.online_iters} MCRNR iterations (pConf 0.75) during {args.online_games} hands in blocks of "
      f"{args.block}; each block is played by the counter-strategy after that block's iterations (duplicate deals, "
      "expected payoff over the actions). Trend: per seed, the least-squares slope of the blocks' sb/h against the "
      "hands played (per 1,000 hands) and the later half's mean minus the first half's; over the seeds, the mean, "
      "a 95% t interval and a one-sided t test that it is positive."
    ),
    configuration={**vars(args), "key": KEY, "pconf": PCONF, "iterations_per_block": per_block},
    results={"seconds": seconds, "model_fit": fit, "runs": runs, "trend": trend},
  )


if __name__ == "__main__":
  main()
