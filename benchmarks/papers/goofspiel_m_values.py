"""Goof(N)'s M-value (Lanctot et al. 2009, section 4) under several counting conventions, computed
from the rules directly (no game build), to look for the convention behind Lanctot et al. 2009
Table 1's M1 = M2 = 89,884 for Goof(7).

A player's infoset before its bid k + 1 is (its own k bids, the k results: won, lost,
tie); it exists when some opponent bids (distinct cards) give those results. The M-value
groups infosets by a key and sums sqrt(group size):

  card labels      the own bids, labelled by card: Lanctot et al. 2009's definition and jaxcfr's
                   (jaxcfr/kits/sequence_form/statistics.py); equal to ``jaxcfr info``'s value
  rank labels      the own bids labelled by their position among the cards still in hand
  parent sequence  the treeplex parent sequence (own bids and all results but the last)
  results only     the public results, not the own bids
  set of own cards the own bids as an unordered set
  round only       one group per round

each with and without the forced last round (one card left: a one-action infoset, which
OpenSpiel's goofspiel does not play). Cost for N = 7: ~20 s, ~1 GB.

  python -m benchmarks goofspiel_m_values [N ...] [--out benchmarks/papers/results/goofspiel_m_values.json]
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

import numpy as np

LANCTOT_2009_GOOF7_M = 89_884


def _partial_permutations(n: int, k: int) -> np.ndarray:
  """[n! / (n - k)!, k] all sequences of k distinct cards of 0..n-1."""
  if k == 0:
    return np.zeros((1, 0), np.int64)
  return np.array(list(itertools.permutations(range(n), k)), np.int64)


def _rank_labels(bids: np.ndarray) -> np.ndarray:
  """[S, k] each bid's position among the cards still in hand when it was made."""
  ranks = bids.copy()
  for j in range(bids.shape[1]):
    ranks[:, j] -= (bids[:, :j] < bids[:, [j]]).sum(1)
  return ranks


def infosets(n: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
  """One player's infosets before its bid k + 1 (the same for both players).

  Returns (bids [S, k] all own bid sequences, sequence [J] the own sequence of each
  infoset (row of ``bids``), results [J] the results of rounds 1..k in base 3, round 1
  most significant; 0 = this player won, 1 = lost, 2 = tie).
  """
  bids = _partial_permutations(n, k)
  results = np.zeros((len(bids), len(bids)), np.int64)  # [own, opponent]
  for j in range(k):
    own, other = bids[:, j][:, None], bids[:, j][None, :]
    results = results * 3 + np.where(own > other, 0, np.where(own < other, 1, 2))
  pairs = np.unique((np.arange(len(bids))[:, None] * 3**k + results).ravel())
  return bids, pairs // 3**k, pairs % 3**k


def _m(groups: np.ndarray) -> float:
  _, counts = np.unique(groups, return_counts=True)
  return float(np.sqrt(counts).sum())


def m_values(n: int) -> dict:
  """{convention: (M with the forced last round, M without it)} and the infoset count."""
  per_round: dict[str, list[float]] = {}
  num_infosets = 0
  for k in range(n):  # k = n - 1: the forced last bid
    bids, sequence, results = infosets(n, k)
    num_infosets += len(sequence)
    code = lambda labels: (labels * n ** np.arange(labels.shape[1])).sum(1)
    card = code(bids)[sequence]
    groups = {
      "card labels": card,
      "rank labels": code(_rank_labels(bids))[sequence],
      "parent sequence": card * 3 ** max(k - 1, 0) + results // 3,
      "results only": results,
      "set of own cards": (1 << bids).sum(1)[sequence],
      "round only": np.zeros(len(sequence), np.int64),
    }
    for name, key in groups.items():
      per_round.setdefault(name, []).append(_m(key))
  return {
    "infosets_per_player": num_infosets,
    **{name: (sum(values), sum(values[:-1])) for name, values in per_round.items()},
  }


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("n", nargs="*", type=int, default=[7], help="numbers of cards (default: 7)")
  parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "goofspiel_m_values.json"))
  args = parser.parse_args(argv)
  from record import read_record, write_record  # pylint: disable=import-outside-toplevel

  results = {}
  for n in args.n:
    result = m_values(n)
    infosets = result.pop("infosets_per_player")
    results[f"goofspiel(num_cards={n})"] = {
      "infosets_per_player": infosets,
      **{
        name: {"m_value": full, "m_value_without_forced_last_round": without_forced}
        for name, (full, without_forced) in result.items()
      },
    }
    print(f"Goof({n}): {infosets:,} infosets per player")
    for name, (full, without_forced) in result.items():
      print(f"  {name:18s} {full:12,.1f}   without the forced last round {without_forced:12,.1f}")
    if n == 7:
      print(f"  Lanctot et al. 2009 Table 1: {LANCTOT_2009_GOOF7_M:,}")
  write_record(
    args.out,
    benchmark="goofspiel_m_values",
    description="Goof(N)'s M-value (sum over groups of infosets of sqrt(group size)) per player under "
    "several grouping conventions, counted from the rules (no game build), with and "
    "without the forced last round; Lanctot et al. 2009 Table 1 gives 89,884 for Goof(7)",
    configuration={"num_cards": args.n, "lanctot_2009_goof7_m": LANCTOT_2009_GOOF7_M},
    results=results,
  )
  print(f"wrote {args.out}")
  return read_record(args.out)


if __name__ == "__main__":
  main()
