"""The JAX 7-card hand evaluator (jaxcfr.kits.card_abstraction.hand_eval) against PyPI's phevaluator on many
random hands: agreement of the order and the ties, and hands per second of both.

  python -m benchmarks hand_eval_check [--hands 10000000] [--chunk 1000000]

Needs ``phevaluator`` (the ``test`` extra). Writes benchmarks/results/hand_eval_check.json.
The CPU may be shared with other jobs: the rates are lower bounds.
"""

from __future__ import annotations

import argparse
import time

import jax.numpy as jnp
import numpy as np

from jaxcfr.kits.card_abstraction import hand_eval

from record import write_record  # noqa: E402  pylint: disable=wrong-import-position


SEED = 2011  # the random hands' generator (numpy.random.default_rng)


def _random_hands(rng, n):
  hands = rng.integers(0, 52, (n, 7))
  while True:
    bad = (np.diff(np.sort(hands, 1), axis=1) == 0).any(1)
    if not bad.any():
      return hands.astype(np.int32)
    hands[bad] = rng.integers(0, 52, (int(bad.sum()), 7))


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("--hands", type=int, default=10_000_000)
  parser.add_argument("--chunk", type=int, default=1_000_000)
  parser.add_argument("--out", default="benchmarks/results/hand_eval_check.json")
  args = parser.parse_args(argv)
  import phevaluator  # pylint: disable=import-outside-toplevel

  rng = np.random.default_rng(SEED)
  hand_eval.hand_rank(jnp.zeros((args.chunk, 7), jnp.int32) + jnp.arange(7)).block_until_ready()  # compile
  ours_seconds = ref_seconds = 0.0
  mapping = {}  # our rank -> the reference's rank
  mismatches = 0
  done = 0
  while done < args.hands:
    n = min(args.chunk, args.hands - done)
    hands = _random_hands(rng, n)
    start = time.perf_counter()
    ours = np.asarray(hand_eval.hand_rank(jnp.asarray(hands)))
    ours_seconds += time.perf_counter() - start
    start = time.perf_counter()
    ref = np.fromiter((phevaluator.evaluate_cards(*h) for h in hands.tolist()), np.int64, n)
    ref_seconds += time.perf_counter() - start
    for o, r in set(zip(ours.tolist(), ref.tolist())):
      if mapping.setdefault(o, r) != r:
        mismatches += 1
    done += n
  ours_sorted = sorted(mapping)
  refs = [mapping[o] for o in ours_sorted]
  ordered = all(a > b for a, b in zip(refs, refs[1:]))  # phevaluator: lower is better; distinct classes
  results = {
    "hands": done,
    "distinct_ranks": len(mapping),
    "tie_mismatches": mismatches,
    "same_order": ordered,
    "agree": bool(ordered and mismatches == 0),
    "ours_hands_per_second": done / ours_seconds,
    "phevaluator_hands_per_second": done / ref_seconds,
  }
  write_record(
    args.out,
    benchmark="hand_eval_check",
    description="jaxcfr.kits.card_abstraction.hand_eval.hand_rank against phevaluator.evaluate_cards on uniformly "
    "random 7-card hands; the CPU was shared with other jobs",
    configuration={**vars(args), "seed": SEED},
    results=results,
  )
  print(results)
  return results


if __name__ == "__main__":
  main()
