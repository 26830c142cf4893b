"""The games of Lanctot et al. 2009 Table 1 at the paper's sizes, and Bluff(1,1,6): statistics,
build time and peak memory, bytes per history, cache load time, and one CFR+ iteration
(Ponsen et al. 2011 use Bluff(1,1,N) without giving N; 6 is this project's choice).

Each game runs in its own subprocess (so that peak memory is per game):
  1. build with the vectorised builder, cache off; peak RSS of the process so far;
  2. write the cache file (np.savez, uncompressed) and read it back (``build_arrays``);
  3. ``jaxcfr.load`` from the cache (arrays read + tensors moved to the device);
  4. CFR+, vanilla CFR, outcome sampling and external sampling (``solvers.get(name)``):
     ``s.init``, a first ``s.run(tensors, state, 1)`` (compile + one iteration), then the
     seconds per iteration as the slope between calls of ``n`` and ``2 n`` iterations (best
     of three each; the count is traced: one compilation), apart from the fixed cost per
     call (``time_iterations``). Lanctot et al.
     2009 Table 1's t_vc, t_os and t_es sit beside them, with our speed-up.
Peak memory is recorded twice: ``*_peak_rss_gib`` (getrusage, includes the file-backed
pages of the memory-mapped cache, which the kernel can reclaim) and ``*_peak_anon_gib``
(RssAnon sampled every 20 ms: the memory the process really needs), per stage.
Not part of CI: the full builds take minutes and up to ~16 GB.

  python benchmarks/papers/full_size_games.py [--games goofspiel,...] [--out benchmarks/papers/results/full_size_games.json]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from timing import per_iteration, timed  # pylint: disable=wrong-import-order

GAMES = {  # short name: (game string, Lanctot et al. 2009 Table 1 row or None)
  "one_card_poker": (
    "one_card_poker(num_cards=500)",
    {
      "game": "OCP",
      "H_millions": 22.4,
      "I_thousands": 2,
      "l": 5,
      "M1": 45,
      "M2": 32,
      "t_vc_s": 28,
      "t_os_s": 46e-6,
      "t_es_s": 99e-6,
    },
  ),
  "goofspiel": (
    "goofspiel(num_cards=7)",
    {
      "game": "Goof",
      "H_millions": 98.3,
      "I_thousands": 3294,
      "l": 14,
      "M1": 89884,
      "M2": 89884,
      "t_vc_s": 110,
      "t_os_s": 150e-6,
      "t_es_s": 150e-3,
    },
  ),
  "latent_tic_tac_toe": (
    "latent_tic_tac_toe",
    {
      "game": "LTTT",
      "H_millions": 70.4,
      "I_thousands": 16039,
      "l": 18,
      "M1": 1333630,
      "M2": 1236660,
      "t_vc_s": 38,
      "t_os_s": 62e-6,
      "t_es_s": 70e-3,
    },
  ),
  "princess_and_monster": (
    "princess_and_monster(rows=3,cols=3,horizon=11)",
    {
      "game": "PAM",
      "H_millions": 91.8,
      "I_thousands": 20,
      "l": 13,
      "M1": 9541,
      "M2": 2930,
      "t_vc_s": 120,
      "t_os_s": 85e-6,
      "t_es_s": 28e-3,
    },
  ),
  "liars_dice": ("liars_dice(dice_sides=6)", None),  # Bluff(1,1,N) of Ponsen et al. 2011 (N ours), not in Table 1
}


def _peak_rss_gib() -> float:
  """Peak resident set since the process started (includes file-backed pages of the
  memory-mapped cache file, which the kernel can reclaim)."""
  return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


class _AnonymousPeak:
  """Samples RssAnon (process memory that is not file-backed) every 20 ms in a thread; the
  peak is what the process needs from RAM (the mapped cache pages are reclaimable)."""

  def __init__(self):
    self.peak = 0.0
    thread = threading.Thread(target=self._run, daemon=True)
    thread.start()

  @staticmethod
  def now() -> float:
    with open("/proc/self/status") as status:
      for line in status:
        if line.startswith("RssAnon:"):
          return int(line.split()[1]) / 2**20
    return float("nan")

  def _run(self):
    while True:
      self.peak = max(self.peak, self.now())
      time.sleep(0.02)

  def take(self) -> float:
    """The peak since the last take (GiB)."""
    peak, self.peak = max(self.peak, self.now()), 0.0
    return peak


ALGORITHMS = {
  "cfr+": "cfr_plus",
  "cfr": "vanilla_cfr",
  "mccfr-os": "outcome_sampling",
  "mccfr-es": "external_sampling",
}  # solver name: key prefix in the results


def time_iterations(solver, tensors, seconds: float = 2.0, repeats: int = 3) -> dict:
  """Compile time, seconds per iteration and fixed cost per call of ``solver.run`` (jitted,
  traced count: one compilation for every count): timing.per_iteration's slope between calls
  of ``n`` and ``2 n`` iterations; the slope is what Lanctot et al. 2009 Table 1 reports.
  Each call donates its state, as the driver's do (rows measured before commit 0627c85 copied
  it: their fixed cost per call includes a copy of the state)."""
  import jax  # pylint: disable=import-outside-toplevel
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel

  state = jax.tree_util.tree_map(jnp.copy, solver.init(tensors))  # buffers of its own, to donate
  return per_iteration(
    lambda state, n: solver.run(tensors, state, n, donate=True), state, seconds=seconds, repeats=repeats
  )


def measure(game_string: str) -> dict:
  """Runs in the child process."""
  import jax  # pylint: disable=import-outside-toplevel
  import numpy as np  # pylint: disable=import-outside-toplevel
  import jaxcfr  # pylint: disable=import-outside-toplevel
  from jaxcfr import solvers  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits import loading
  from jaxcfr.kits.sequence_form import vectorized  # pylint: disable=import-outside-toplevel

  anonymous = _AnonymousPeak()
  row = {"game": game_string}
  row["build_s"], (arrays, _) = timed(lambda: loading.build_arrays(game_string, use_cache=False))
  row["build_peak_rss_gib"] = _peak_rss_gib()
  row["build_peak_anon_gib"] = anonymous.take()
  from jaxcfr.kits.sequence_form.statistics import statistics  # pylint: disable=import-outside-toplevel

  row["statistics_s"], row["statistics"] = timed(lambda arrays=arrays: statistics(arrays))
  histories = arrays.num_histories
  npz = arrays.to_npz_dict()
  row["array_bytes"] = int(sum(v.nbytes for v in npz.values()))
  row["array_bytes_per_history"] = row["array_bytes"] / histories
  del npz

  # Write the cache entry from the arrays just built (the builder replaced by them), then
  # read it back, then load from it.
  real_builder = vectorized.build_vectorized
  vectorized.build_vectorized = lambda rules, name, built=arrays, **kwargs: built
  row["cache_write_s"] = timed(lambda: loading.build_arrays(game_string))[0]  # the result dropped at once
  vectorized.build_vectorized = real_builder
  row["cache_file_bytes"] = sum(f.stat().st_size for f in loading.cache_dir().glob("*.npz"))
  del arrays
  gc.collect()
  row["write_peak_anon_gib"] = anonymous.take()
  row["cache_read_s"], (cached, _) = timed(lambda: loading.build_arrays(game_string))  # memory-mapped: pages
  # are read when used
  assert cached.num_histories == histories
  del cached

  def load_to_device():
    loaded = jaxcfr.load(game_string)
    jax.block_until_ready(loaded.tensors)  # timed() waits for arrays, not for the Game around them
    return loaded

  row["cached_load_s"], game = timed(load_to_device)
  row["load_peak_rss_gib"] = _peak_rss_gib()
  row["load_peak_anon_gib"] = anonymous.take()
  row["device_tensor_bytes"] = int(sum(leaf.nbytes for leaf in jax.tree_util.tree_leaves(game.tensors)))

  for algorithm, key in ALGORITHMS.items():
    timing = time_iterations(solvers.get(algorithm), game.tensors)
    row.update({f"{key}_{name}": value for name, value in timing.items()})
    row[f"{key}_peak_anon_gib"] = anonymous.take()
  row["dtype"] = str(np.dtype(game.tensors.dtype))
  row["peak_rss_gib"] = _peak_rss_gib()
  row["peak_anon_gib"] = max(row[k] for k in row if k.endswith("_peak_anon_gib"))
  return row


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--games", default=",".join(GAMES), help=f"comma-separated, from {list(GAMES)}")
  parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "full_size_games.json"))
  parser.add_argument("--child", help=argparse.SUPPRESS)
  args = parser.parse_args(argv)
  if args.child:
    print(json.dumps(measure(args.child)))
    return {}

  from record import read_record, stamp, write_record  # pylint: disable=import-outside-toplevel

  rows = []
  for short in args.games.split(","):
    game_string, paper = GAMES[short]
    with tempfile.TemporaryDirectory(prefix="jaxcfr-full-size-") as cache:
      env = {**os.environ, "JAXCFR_CACHE_DIR": cache}
      print(f"{game_string} ...", flush=True)
      done = subprocess.run(
        [sys.executable, __file__, "--child", game_string], env=env, capture_output=True, text=True, check=False
      )
    if done.returncode:
      print(done.stderr[-3000:], file=sys.stderr)
      rows.append({"game": game_string, "error": done.stderr[-2000:], "lanctot_2009_table_1": paper})
      continue
    row = json.loads(done.stdout.strip().splitlines()[-1])
    row["lanctot_2009_table_1"] = paper
    # a partial run keeps the other games' rows of an earlier run: each row says when and at which commit
    row["measured"] = stamp()
    if paper:  # the paper's seconds per iteration over ours (> 1: we are faster)
      row["speedup_over_paper"] = {
        key: paper[f"t_{short_key}_s"] / row[f"{key}_iteration_s"]
        for key, short_key in (("vanilla_cfr", "vc"), ("outcome_sampling", "os"), ("external_sampling", "es"))
      }
    rows.append(row)
    stats = row["statistics"]
    print(
      f"  |H| {stats['histories']:,}  |I| {stats['infosets']}  l {stats['max_length']}  "
      f"M {[round(m) for m in stats['m_values']]}  build {row['build_s']:.1f} s  "
      f"peak {row['build_peak_rss_gib']:.1f} GiB (anon {row['peak_anon_gib']:.1f} GiB overall)  "
      f"{row['array_bytes_per_history']:.1f} B/history  "
      f"cached load {row['cached_load_s']:.1f} s  CFR+ iteration {row['cfr_plus_iteration_s']:.3f} s",
      flush=True,
    )
    for key in ALGORITHMS.values():
      print(
        f"  {key:18s} {row[f'{key}_iteration_s']:.3g} s per iteration, compile {row[f'{key}_compile_s']:.1f} s"
        + (f", {row['speedup_over_paper'][key]:.0f}x the paper's" if key in row.get("speedup_over_paper", {}) else ""),
        flush=True,
      )
  description = (
    "vectorised build (cache off), cache write/read, jaxcfr.load from the cache; compile time "
    "and seconds per iteration (best of 3 timed calls) of CFR+, vanilla CFR, outcome sampling "
    "(epsilon 0.6, one trajectory per player per iteration) and external sampling (one traversal "
    "per player per iteration), next to Lanctot et al. 2009 Table 1's t_vc, t_os, t_es (an 8-core "
    "2009 machine); peak memory per game (own process); each row records the date and commit it was "
    "measured at ('measured')"
  )
  out = Path(args.out)
  if out.exists() and set(args.games.split(",")) != set(GAMES):  # a partial run updates its rows only
    kept = [r for r in read_record(out)["results"] if r["game"] not in {row["game"] for row in rows}]
    rows = kept + rows
  write_record(
    out,
    benchmark="full_size_games",
    description=description,
    configuration={
      "games": [row["game"] for row in rows],
      "algorithms": list(ALGORITHMS),
      "timing": "timing.per_iteration: seconds=2, repeats=3",
      "lanctot_2009_table_1": {GAMES[k][0]: v for k, (_, v) in GAMES.items() if v},
    },
    results=rows,
  )
  print(f"wrote {out}")
  return read_record(out)


if __name__ == "__main__":
  main()
