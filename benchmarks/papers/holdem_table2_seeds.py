"""Ponsen, de Jong and Lanctot 2011, Table 2's restricted responses over several seeds: does
MCRNR10 win more against the rule bot than MCRNR100 whatever the seed?

figure4_holdem.py plays MCRNR10 and MCRNR100 (pConf 0.75, the rule bot of the same abstraction
as the model, one run restricting each seat) against the rule bot once: sampling seeds 0 and 1,
10^7 iterations a pair. This script trains each pair with figure4_holdem.py's functions for each
seed of --seeds (seed s samples with 2s and 2s + 1, so seed 0 is the crosstable's run at its
iteration count) and plays it against the 10-bucket rule bot, as the crosstable does, on the
crosstable's --deals duplicate deals (the same deals for every seed and both abstractions).

Recorded per abstraction: each seed's sb/h with its 95% interval over the deals; over the seeds,
the mean with a 95% t interval (the seeds are the replicates). And MCRNR10 minus MCRNR100 per
seed, with a paired t test (two-sided) and how many seeds it is positive for.

The budget: a pair runs about 34,000 iterations a second on one idle core of this machine (both
abstractions alike), so the crosstable's 10^7 iterations take about 10 minutes a pair, 20 a seed;
eight seeds would take nearly three hours, more than the hour this record had. The default,
3 x 10^6 iterations a pair, takes about 6.5 minutes a seed with compilation and the matches, so
eight seeds take about 50 minutes. It is under a third of the crosstable's budget: the 100-bucket
pair, whose rows each see a tenth of the updates, is further from converged than at 10^7, so the
gap between the abstractions may be wider here than there.

  python -m benchmarks holdem_table2_seeds [--seeds 0 1 2 3 4 5 6 7] [--iters 3000000]

writes benchmarks/papers/results/holdem_table2_seeds.json, again after each seed from the second
on (a stopped run keeps the seeds it finished; ``seeds_done`` says which).
"""

from __future__ import annotations

import argparse

import jax
import numpy as np

import jaxcfr
from jaxcfr.kits.card_abstraction import match as holdem_match

import figure4_holdem  # noqa: E402  pylint: disable=wrong-import-position
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position
from seed_statistics import over_seeds  # noqa: E402  pylint: disable=wrong-import-position

KEY = 2011  # figure4_holdem.py's: the crosstable's deals
PCONF = 0.75
BUCKETS = (10, 100)


def summary(runs: dict) -> dict:
  """Per abstraction the mean over the seeds; MCRNR10 minus MCRNR100 per seed, paired."""
  sb = {b: [run[f"MCRNR{b}"]["sb_per_hand"] for run in runs.values()] for b in BUCKETS}
  return {
    **{f"MCRNR{b}": over_seeds(sb[b]) for b in BUCKETS},
    "MCRNR10_minus_MCRNR100": over_seeds(np.subtract(sb[10], sb[100])),
  }


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("--seeds", type=int, nargs="+", default=list(range(8)))
  parser.add_argument("--iters", type=int, default=3_000_000, help="MCRNR iterations of each pair")
  parser.add_argument("--deals", type=int, default=4096, help="duplicate deals per match")
  parser.add_argument("--out", default="benchmarks/papers/results/holdem_table2_seeds")
  args = parser.parse_args(argv)
  if len(args.seeds) < 2 or len(set(args.seeds)) != len(args.seeds):
    parser.error("the t intervals need at least two distinct seeds")
  games = {b: jaxcfr.load(f"limit_holdem(buckets={b})") for b in BUCKETS}
  bot = holdem_match.rule_bot(games[10])
  key = jax.random.PRNGKey(KEY)
  runs = {}
  path = None
  for seed in args.seeds:
    run = {}
    for b in BUCKETS:
      profile, seconds = figure4_holdem.restricted_pair(games[b], args.iters, seed)
      result = figure4_holdem.against(profile, games[b], bot, games[10], key, args.deals)
      run[f"MCRNR{b}"] = {**result, "seconds": seconds}
      print("seed", seed, f"MCRNR{b}", run[f"MCRNR{b}"], flush=True)
    runs[str(seed)] = run
    if len(runs) < 2:
      continue
    path = write_record(
      f"{args.out}.json",
      benchmark="holdem_table2_seeds",
      description=(
        "Ponsen et al. 2011 Table 2's restricted responses over several seeds, limit hold'em with the "
        "imperfect-recall abstraction of equal-width buckets of exact E[HS]. Per seed s (sampling seeds 2s and "
        f"2s + 1): MCRNR10 and MCRNR100 (pConf {PCONF}, the rule bot of the same abstraction as the model, one run "
        f"restricting each seat, {args.iters} iterations a pair; figure4_holdem.json's crosstable ran 10^7) play "
        f"the 10-bucket rule bot (the stand-in for Poki) on {args.deals} duplicate deals, the same for every seed: "
        "row agent's sb/h, expected payoff over the actions, 95% interval over the deals. Over the seeds: the mean "
        "with a 95% t interval, and MCRNR10 minus MCRNR100 per seed with a paired two-sided t test. Seconds are "
        "each pair's training, compilation included, on a CPU core shared with other work."
      ),
      configuration={**vars(args), "key": KEY, "pconf": PCONF, "sampling_seeds": "2 seed and 2 seed + 1"},
      results={"seeds_done": [int(s) for s in runs], "runs": runs, "over_seeds": summary(runs)},
    )
    print("over seeds", summary(runs), flush=True)
  return path


if __name__ == "__main__":
  main()
