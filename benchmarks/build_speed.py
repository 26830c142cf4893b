"""Builder speed: histories per second of the tree-walk builder (jaxcfr/kits/sequence_form/build.py).

Builds each game from its rules with the cache off, through the OpenSpiel adapter and
through the native rules in games/, and reports the best of ``--repeats`` wall times for
the build alone (``loading.build_arrays``: rules -> NumPy GameArrays) and for the whole
``jaxcfr.load`` (build plus moving the tensors to the default device).

  python benchmarks/build_speed.py [--out benchmarks/results/build_speed.json] [--repeats 3]
"""

from __future__ import annotations

import argparse
from pathlib import Path


import jaxcfr
from jaxcfr.kits import loading
from record import read_record, write_record  # noqa: E402  pylint: disable=wrong-import-position
from timing import best_of  # noqa: E402  pylint: disable=wrong-import-position

GAMES = [
  # (game string, how it is built)
  ("openspiel:kuhn_poker", "adapter"),
  ("openspiel:leduc_poker", "adapter"),
  ("liars_dice", "adapter"),
  ("kuhn_poker", "native"),
  ("leduc_poker", "native"),
  ("one_card_poker(num_cards=100)", "native"),
]


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "build_speed.json"))
  parser.add_argument("--repeats", type=int, default=3)
  args = parser.parse_args(argv)

  rows = []
  for game_string, route in GAMES:
    build_s, (arrays, _) = best_of(lambda: loading.build_arrays(game_string, use_cache=False), args.repeats)
    load_s, game = best_of(lambda: jaxcfr.load(game_string, use_cache=False), args.repeats)
    histories = arrays.num_histories
    assert game.arrays.num_histories == histories
    rows.append(
      {
        "game": arrays.name,
        "route": route,
        "histories": histories,
        "infosets": [p.num_infosets for p in arrays.players],
        "build_s": build_s,
        "histories_per_s": histories / build_s,
        "load_s": load_s,
        "load_histories_per_s": histories / load_s,
      }
    )

  header = f"{'game':34} {'route':8} {'histories':>10} {'build s':>9} {'hist/s':>11} {'load s':>9}"
  print(header)
  print("-" * len(header))
  for r in rows:
    print(
      f"{r['game']:34} {r['route']:8} {r['histories']:>10,} {r['build_s']:>9.4f} "
      f"{r['histories_per_s']:>11,.0f} {r['load_s']:>9.4f}"
    )

  write_record(
    args.out,
    benchmark="build_speed",
    description="tree-walk builder, cache off; build = rules -> GameArrays, load = build + "
    f"to_tensors; best of {args.repeats} runs",
    configuration={"games": [{"game": g, "route": r} for g, r in GAMES], "repeats": args.repeats, "cache": False},
    results=rows,
  )
  print(f"wrote {args.out}")
  return read_record(args.out)


if __name__ == "__main__":
  main()
