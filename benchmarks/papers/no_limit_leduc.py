"""No-limit Leduc hold'em: sizes and build seconds of the full game by stack, and of the abstractions.

For each game string: the statistics of ``jaxcfr info`` (jaxcfr/kits/sequence_form/statistics.py), the
seconds of the build with the cache off (``loading.build_arrays``: the vectorised rules
where the game has them, ``betting=full`` up to ``stack - ante = 42``), those of the
tree walk (``build.build_from_protocol``) for games of at most ``--walk-up-to`` histories
(0: never; the two builds must give equal arrays), whether the
game is OpenSpiel's ``universal_poker`` game (its twin), and for games of at most
``--solve-up-to`` sequences per player the value of CFR+'s average strategy after
``--iters`` iterations with its exploitability (the game value lies within twice that).

  python -m benchmarks no_limit_leduc [--out benchmarks/papers/results/no_limit_leduc.json]
      [--games "no_limit_leduc_poker(stack=4);..."] [--solve-up-to 20000] [--iters 1000]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import jaxcfr
from jaxcfr import solvers
from jaxcfr.kits.sequence_form import build
from jaxcfr.kits import loading
from jaxcfr.games import GAMES
from record import read_record, write_record  # noqa: E402  pylint: disable=wrong-import-position
from timing import timed  # noqa: E402  pylint: disable=wrong-import-position

DEFAULT_GAMES = [f"no_limit_leduc_poker(stack={s})" for s in (4, 6, 8, 10, 12, 14, 16, 18, 20)] + [
  "no_limit_leduc_poker(stack=8,raise_rule=increment)",
  "no_limit_leduc_poker(stack=12,betting=fcpa)",
  "no_limit_leduc_poker(stack=100,betting=fcpa)",
  "no_limit_leduc_poker(stack=1200,ante=100,betting=fcpa)",
  "no_limit_leduc_poker(stack=1200,ante=100,betting=deepstack)",
]


def _solve(game_string: str, iters: int) -> dict:
  jax.config.update("jax_enable_x64", True)
  game = jaxcfr.load(game_string, dtype=jnp.float64)
  solver = solvers.get("cfr+")
  state = solver.run(game.tensors, solver.init(game.tensors), iters)
  average = solver.average_strategy(game.tensors, state)
  return {
    "cfr_plus_iterations": iters,
    "value": float(jaxcfr.expected_value(game.tensors, average)),
    "exploitability": float(jaxcfr.exploitability(game.tensors, average)),
  }


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "no_limit_leduc.json"))
  parser.add_argument("--games", default=";".join(DEFAULT_GAMES), help="game strings separated by ';'")
  parser.add_argument("--solve-up-to", type=int, default=20000, help="most sequences per player to solve")
  parser.add_argument("--iters", type=int, default=1000)
  parser.add_argument("--walk-up-to", type=int, default=3_100_000, help="most histories to build by the tree walk too")
  args = parser.parse_args(argv)

  rows = []
  for game_string in filter(None, (g.strip() for g in args.games.split(";"))):
    build_s, (arrays, info) = timed(lambda game_string=game_string: loading.build_arrays(game_string, use_cache=False))
    row = {
      **jaxcfr.kits.sequence_form.statistics.statistics(arrays),
      "build_s": build_s,
      "openspiel_twin": info.openspiel_name,
    }
    if arrays.num_histories <= args.walk_up_to:
      name, params = loading.parse_game_string(game_string)
      row["tree_walk_build_s"], walked = timed(
        lambda arrays=arrays, name=name, params=params: build.build_from_protocol(
          GAMES[name](**params).new_initial_state(), arrays.name
        )
      )
      for field in ("parent", "kind", "infoset", "action_id", "chance_prob", "utility", "sequence"):
        assert np.array_equal(getattr(walked, field), getattr(arrays, field)), (game_string, field)
      del walked
    del arrays
    if max(row["sequences"]) <= args.solve_up_to:
      row.update(_solve(game_string, args.iters))
    rows.append(row)
    print(
      f"{row['game']:62} H={row['histories']:>10,} I={row['infosets'][0]:>8,} "
      f"S={row['sequences'][0]:>8,} Z={row['terminals']:>10,} {build_s:7.1f} s "
      f"(walk {row.get('tree_walk_build_s', float('nan')):6.1f} s) "
      f"v={row.get('value', float('nan')):+.5f}",
      flush=True,
    )

  write_record(
    args.out,
    benchmark="no_limit_leduc",
    description="no_limit_leduc_poker sizes (per player: infosets, sequences) and build seconds, cache "
    "off (build_s: vectorised rules where the game has them, else the tree walk; "
    "tree_walk_build_s: the tree walk, equal arrays checked); values of CFR+'s average "
    "strategy with its exploitability. The 2-core CPU was shared with other jobs, so the "
    "seconds are upper bounds.",
    configuration={
      "games": [row["game"] for row in rows],
      "solve_up_to_sequences": args.solve_up_to,
      "cfr_plus_iterations": args.iters,
      "walk_up_to_histories": args.walk_up_to,
      "dtype": "float64",
      "cache": False,
    },
    results=rows,
  )
  print(f"wrote {args.out}")
  return read_record(args.out)


if __name__ == "__main__":
  main()
