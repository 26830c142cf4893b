"""Ponsen, de Jong and Lanctot 2011, Table 2 with an opponent model learned from observed games,
and Figure 8 (MCRNR learning while it plays), on limit hold'em's 10-bucket abstraction.

1. MCCFR10: outcome sampling (epsilon 0.6) for --iters iterations; it is the baseline of
   Table 2 and the player that observes the modelled bot.
2. The opponent data: --games games between the rule bot (jaxcfr.kits.card_abstraction.match, a
   stand-in for the paper's Poki and Sparbot, which we cannot have) and MCCFR10, the bot in
   each seat for half of them (the paper: about 20,000 games against each bot).
3. The model: jaxcfr.evaluate.holdem_model, the paper's five features and one tree per round
   (regression trees with --threshold in place of Weka's J48), and how well it predicts the
   bot (``agreement``).
4. Table 2: MCRNR10 (pConf 0.75, one run restricting each seat) with the learned model, and
   with the bot itself as the model (what benchmarks/papers/figure4_holdem.py runs), against the rule
   bot beside MCCFR10: sb/h on --deals duplicate deals, expected payoff over the actions, 95%
   intervals over the deals.
5. Figure 8: while the bot plays --online-games hands, MCRNR with the learned model runs
   --online-iters iterations in blocks of --block hands; after each block's iterations its
   counter-strategy plays the block (duplicate deals, two hands each) and the winnings are
   recorded. The paper runs about 6 million iterations during 1,000 games, as the default
   here does.

  python -m benchmarks holdem_learned_model [--iters 10000000] [--games 20000] [--online-iters 6000000]

writes benchmarks/papers/results/holdem_learned_model.json and .png.
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

PCONF = holdem_opponent_model.PCONF


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("--game", default="limit_holdem(buckets=10)")
  parser.add_argument("--iters", type=int, default=10_000_000, help="MCCFR10 and each MCRNR10 run")
  parser.add_argument("--games", type=int, default=20000, help="observed games of the bot")
  parser.add_argument("--threshold", type=float, default=1.0, help="the model trees' least error reduction")
  parser.add_argument("--deals", type=int, default=2048, help="duplicate deals per match")
  parser.add_argument("--online-games", type=int, default=1000)
  parser.add_argument("--online-iters", type=int, default=6_000_000)
  parser.add_argument("--block", type=int, default=20, help="online hands per block (even)")
  parser.add_argument("--out", default="benchmarks/papers/results/holdem_learned_model")
  args = parser.parse_args(argv)
  if args.block < 2 or args.block % 2 or args.online_games % args.block:
    parser.error(f"--block must be even and divide --online-games, got {args.block} and {args.online_games}")
  game = jaxcfr.load(args.game)
  bot = holdem_match.rule_bot(game)
  key = jax.random.PRNGKey(2011)

  mccfr10, observed, model, seconds = holdem_opponent_model.observed_model(
    game, bot, key, iters=args.iters, games=args.games, threshold=args.threshold
  )
  fit = {
    "learned": holdem_model.agreement(game, model, bot, observed),
    "uniform (for scale)": holdem_model.agreement(game, holdem_match.uniform(game), bot, observed),
  }
  print("model", fit, flush=True)

  mcrnr = solvers.get("mcrnr", "card_abstraction")
  agents = {"MCCFR10": mccfr10}
  for label, sigma_fix in (("MCRNR10, learned model", model), ("MCRNR10, the bot as its model", bot)):
    start = time.perf_counter()
    state = mcrnr.init(game, model=sigma_fix, seed=jnp.array([0, 1]), p=PCONF, restricted=jnp.array([1, 0]))
    state = jax.block_until_ready(mcrnr.run(game, state, args.iters))
    seconds[label] = time.perf_counter() - start
    agents[label] = holdem_opponent_model.counter(mcrnr, game, state)
  table = {}
  for label, agent in agents.items():
    table[label] = holdem_match.match(game, agent, bot, jax.random.fold_in(key, 3), args.deals)
    print(label, "vs the rule bot", table[label], flush=True)

  start = time.perf_counter()
  state = mcrnr.init(game, model=model, seed=jnp.array([2, 3]), p=PCONF, restricted=jnp.array([1, 0]))
  blocks = args.online_games // args.block
  per_block = args.online_iters // blocks
  online = []
  for b in range(blocks):
    state = mcrnr.run(game, state, per_block)
    result = holdem_match.match(
      game, holdem_opponent_model.counter(mcrnr, game, state), bot, jax.random.fold_in(key, 100 + b), args.block // 2
    )
    online.append({"hands": (b + 1) * args.block, "iterations": (b + 1) * per_block, **result})
  seconds["online"] = time.perf_counter() - start
  means = np.array([row["sb_per_hand"] for row in online])
  cumulative = np.cumsum(means) / np.arange(1, blocks + 1)
  for row, c in zip(online, cumulative):
    row["cumulative_sb_per_hand"] = float(c)
  print("online: first block", online[0]["sb_per_hand"], "cumulative at the end", float(cumulative[-1]), flush=True)

  path = write_record(
    f"{args.out}.json",
    benchmark="holdem_learned_model",
    description=(
      "Ponsen et al. 2011 Table 2 with an opponent model learned from observed games (regression trees on the "
      "paper's five features, one per round and action, jaxcfr.evaluate.holdem_model) and Figure 8 (MCRNR "
      "learning while it plays), limit hold'em's 10-bucket abstraction (equal-width buckets of exact E[HS], the paper's). The rule bot stands in for "
      "Poki and Sparbot; the observed games are the bot against MCCFR10. Matches: sb/h of the row agent against "
      "the rule bot, duplicate deals, expected payoff over the actions, 95% intervals over the deals. Figure 8: "
      f"{args.online_iters} MCRNR iterations during {args.online_games} hands (the paper: about 6 million during "
      "1,000 games); each block of hands is played by the counter-strategy after that block's iterations."
    ),
    configuration={**vars(args), "pconf": PCONF},
    results={"seconds": seconds, "model_fit": fit, "against_rule_bot": table, "online": online},
  )
  import matplotlib  # pylint: disable=import-outside-toplevel

  matplotlib.use("Agg")
  import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel

  fig, ax = plt.subplots(figsize=(6, 4))
  hands = [row["hands"] for row in online]
  ax.plot(hands, means, ".", alpha=0.4, label=f"each block of {args.block} hands")
  ax.plot(hands, cumulative, label="mean over the hands so far")
  final = table["MCRNR10, learned model"]["sb_per_hand"]
  ax.axhline(final, color="C2", ls="--", label=f"after {args.iters:,} iterations offline")
  ax.axhline(0, color="k", lw=0.5)
  ax.set_xlabel(f"hands played against the rule bot ({args.online_iters:,} MCRNR iterations in all)")
  ax.set_ylabel("MCRNR10's winnings (sb/h)")
  ax.set_title("Learning while playing (Ponsen et al. 2011, Fig. 8)")
  ax.legend(fontsize=8)
  fig.tight_layout()
  fig.savefig(f"{args.out}.png", dpi=120)
  return path


if __name__ == "__main__":
  main()
