"""Iterations per second of the sampled solvers on limit hold'em's abstraction, exact E[HS]
against Monte Carlo E[HS], and what a run of 10^8 iterations costs at that rate.

For each abstraction (``limit_holdem(buckets=10)``: exact E[HS] from tables, the default;
``limit_holdem(buckets=10,rollouts=64)``: 64 rollouts per E[HS], the abstraction before it)
and each solver (``mccfr-os``, ``mcts``, ``mcrnr`` as a pair of runs restricting each seat,
``cfr-cs`` with 8 deals per iteration), one compiled run of --iters iterations (a tenth for
``cfr-cs``, a twentieth with rollouts) is timed after a short run that compiles it, --repeats
times; the median is recorded. Also the bucketing of one deal alone (sampling the deal
included), the part of an iteration the abstraction costs.

  python -m benchmarks holdem_speed [--iters 200000] [--repeats 3]

writes benchmarks/results/holdem_speed.json. Run it on an otherwise idle core (``taskset``).
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np

import jaxcfr
from jaxcfr import solvers
from jaxcfr.kits.card_abstraction import match as holdem_match
from jaxcfr.kits.card_abstraction import game as limit_holdem

from record import write_record  # noqa: E402  pylint: disable=wrong-import-position
from timing import timed  # noqa: E402  pylint: disable=wrong-import-position

GAMES = ("limit_holdem(buckets=10)", "limit_holdem(buckets=10,rollouts=64)")


def _median_rate(run, state, n: int, repeats: int) -> float:
  _, state = timed(lambda: run(state, 2))  # compile
  rates = []
  for _ in range(repeats):
    seconds, state = timed(lambda state=state: run(state, n))
    rates.append(n / seconds)
  return float(np.median(rates))


def _bucketing_us(game, n: int, repeats: int) -> float:
  """Microseconds to sample one deal and bucket it, in a compiled loop of ``n`` deals."""
  key = jax.random.PRNGKey(0)

  @jax.jit
  def loop(g, count):
    def body(i, acc):
      deal = limit_holdem.sample_deals(jax.random.fold_in(key, i), 1)
      return acc + limit_holdem.deal_buckets(g, deal).sum()

    return jax.lax.fori_loop(0, count, body, 0)

  timed(lambda: loop(game, 2))  # compile
  return float(np.median([timed(lambda: loop(game, n))[0] / n * 1e6 for _ in range(repeats)]))


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("--iters", type=int, default=200_000)
  parser.add_argument("--repeats", type=int, default=3)
  parser.add_argument("--out", default="benchmarks/results/holdem_speed.json")
  args = parser.parse_args(argv)
  if args.iters < 100 or args.repeats < 1:
    parser.error(f"--iters must be at least 100 and --repeats positive, got {args.iters} and {args.repeats}")
  results = {}
  for name in GAMES:
    game = jaxcfr.load(name)
    n = args.iters if game.rollouts == 0 else args.iters // 20
    bot = holdem_match.rule_bot(game)
    inits = {
      "mccfr-os": lambda s: s.init(game, seed=0),
      "mcts": lambda s: s.init(game, seed=0, uct_c=17.0),
      "mcrnr (2 runs)": lambda s: s.init(game, model=bot, seed=jnp.array([0, 1]), p=0.75, restricted=jnp.array([1, 0])),
      "cfr-cs (8 deals)": lambda s: s.init(game, seed=0),
    }
    rates = {}
    for label, init in inits.items():
      solver = solvers.get(label.split()[0], "card_abstraction")
      count = max(10, n // 10) if label.startswith("cfr-cs") else n
      rates[label] = _median_rate(lambda s, k, solver=solver: solver.run(game, s, k), init(solver), count, args.repeats)
      print(name, label, f"{rates[label]:,.0f} iterations/s", flush=True)
    results[name] = {
      "iterations_per_second": rates,
      "bucketing_us_per_deal": _bucketing_us(game, max(1000, n // 10), args.repeats),
      "hours_for_1e8_mccfr_os": 1e8 / rates["mccfr-os"] / 3600,
    }
    print(name, results[name], flush=True)
  description = (
    "Iterations per second of the sampled solvers on limit hold'em's 10-bucket abstraction, exact E[HS] "
    "(tables, the default) against 64 Monte Carlo rollouts per E[HS]; median of --repeats timed runs after "
    "compiling; mcrnr counts iterations of a pair of runs; cfr-cs walks the whole betting tree for 8 deals an "
    "iteration. bucketing_us_per_deal: sampling one deal and bucketing it, in a compiled loop. One CPU core."
  )
  return write_record(
    args.out, benchmark="holdem_speed", description=description, configuration=vars(args), results=results
  )


if __name__ == "__main__":
  main()
