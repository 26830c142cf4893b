"""Limit hold'em's first use: the time to build the exact E[HS] tables on one core.

Times ``hand_strength.build_tables`` (compilation included, the cache not used) pinned to one
CPU core with XLA on one thread: the wall time and the process's CPU time (on a shared
machine the CPU time is what one idle core would take). With ``--old-chunks N`` it also
times N chunks of the former build (``turn_strength`` of 8 turn boards at a time, every river
board of every canonical turn ranked) and extrapolates to its 2,054 chunks.

  XLA_FLAGS=--xla_cpu_multi_thread_eigen=false python -m benchmarks strength_tables \\
    [--out benchmarks/results/strength_tables.json] [--old-chunks 40]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from record import write_record  # noqa: E402  pylint: disable=wrong-import-position


def _clock():
  return time.perf_counter(), time.process_time()


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "strength_tables.json"))
  parser.add_argument("--old-chunks", type=int, default=40, help="chunks of the former build to time (0: none)")
  args = parser.parse_args(argv)
  os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false")
  if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel  (after XLA_FLAGS)
  import numpy as np  # pylint: disable=import-outside-toplevel

  from jaxcfr.base import progress  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits.card_abstraction import hand_strength as hs  # pylint: disable=import-outside-toplevel

  wall, cpu = _clock()
  tables = hs.build_tables(progress=progress.steps)
  tables.preflop.block_until_ready()
  wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
  hs.check_tables({k: np.asarray(v) for k, v in tables._asdict().items()})
  results = {"build_tables": {"wall_seconds": round(wall, 1), "cpu_seconds": round(cpu, 1)}}
  if args.old_chunks:
    turns = hs.canonical_boards(4)
    hs.turn_strength(jnp.asarray(turns[:8])).block_until_ready()  # compiled outside the timing
    start = time.process_time()
    for i in range(1, args.old_chunks + 1):
      hs.turn_strength(jnp.asarray(turns[8 * i : 8 * i + 8])).block_until_ready()
    per_chunk = (time.process_time() - start) / args.old_chunks
    results["former_turn_table"] = {
      "cpu_seconds_per_chunk_of_8_turns": round(per_chunk, 4),
      "cpu_seconds_extrapolated": round(per_chunk * -(-len(turns) // 8), 1),
    }
  write_record(
    args.out,
    benchmark="strength_tables",
    description=(
      "Wall and CPU seconds of hand_strength.build_tables (the exact E[HS] tables of limit hold'em, "
      "compilation included, no cache), the process pinned to one core with XLA on one thread; the "
      "machine shared with other work, so the CPU seconds are the figure for one idle core. "
      "former_turn_table: the former build's turn table (turn_strength of every canonical turn, 8 at a "
      "time) timed on some chunks and extrapolated."
    ),
    configuration={"old_chunks": args.old_chunks, "xla_flags": os.environ.get("XLA_FLAGS")},
    results=results,
  )
  print(results)
  return results


if __name__ == "__main__":
  main()
