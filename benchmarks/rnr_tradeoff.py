"""The exploitation / exploitability trade-off of restricted Nash responses, in the shape of
paper 000 Figure 6 (and paper 003 Figure 1), on small games.

For each game: a fixed model (default: the average strategy of a short plain-CFR run, a
weak player), RNR for every p of the paper (0, 0.5, 0.7, 0.8, 0.9, 0.93, 0.97, 1) with each
player restricted in turn, all as one batched program (jaxcfr.rnr.trade_off). As in
Figure 6, exploitation (value against the model minus the game value) and exploitability
(worst-case loss below the game value) are summed over the two restricted players.

  PYTHONPATH=. python benchmarks/rnr_tradeoff.py --games kuhn_poker,leduc_poker --out rnr_tradeoff

writes rnr_tradeoff.json and, if matplotlib is installed, rnr_tradeoff.png.
"""

from __future__ import annotations

import argparse
import json

import jax

PAPER_PS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.93, 0.97, 1.0)


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--games", default="kuhn_poker,one_card_poker(num_cards=13),leduc_poker")
  parser.add_argument("--model", default="cfr:20", help="see jaxcfr.opponent.fixed_model")
  parser.add_argument("--algo", default="cfr+")
  parser.add_argument("--iters", type=int, default=2000)
  parser.add_argument("--out", default="rnr_tradeoff", help="output path without extension")
  args = parser.parse_args()
  jax.config.update("jax_enable_x64", True)
  import jaxcfr  # pylint: disable=import-outside-toplevel
  from jaxcfr import opponent, rnr  # pylint: disable=import-outside-toplevel

  results = {}
  for name in args.games.split(","):
    game = jaxcfr.load(name, dtype="float64")
    model = opponent.fixed_model(game, args.model)
    value, tolerance = rnr.game_value(game.tensors, iterations=max(args.iters, 2000), algorithm=args.algo)
    rows = rnr.trade_off(game.tensors, model, PAPER_PS, restricted=(0, 1), algorithm=args.algo,
                         iterations=args.iters, value=value)
    curve = []
    for p in PAPER_PS:
      pair = [r for r in rows if r["p"] == p]
      curve.append({"p": p, "exploitation": sum(r["exploitation"] for r in pair),
                    "exploitability": sum(r["exploitability"] for r in pair)})
    results[game.name] = {"game_value": value, "game_value_tolerance": 2 * tolerance, "curve": curve, "rows": rows}
    print(game.name)
    for point in curve:
      print(f"  p={point['p']:<5} exploitation {point['exploitation']:.5f}  exploitability {point['exploitability']:.5f}")
  record = {"model": args.model, "algo": args.algo, "iters": args.iters, "games": results}
  with open(args.out + ".json", "w", encoding="utf-8") as f:
    json.dump(record, f, indent=2)
  try:
    import matplotlib  # pylint: disable=import-outside-toplevel
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
  except ImportError:
    return
  fig, axes = plt.subplots(1, len(results), figsize=(4 * len(results), 3.5), squeeze=False)
  for ax, (name, result) in zip(axes[0], results.items()):
    xs = [c["exploitability"] for c in result["curve"]]
    ys = [c["exploitation"] for c in result["curve"]]
    ax.plot(xs, ys, "o-")
    for c in result["curve"]:
      ax.annotate(f"{c['p']:g}", (c["exploitability"], c["exploitation"]), fontsize=7)
    ax.set_title(name, fontsize=9)
    ax.set_xlabel("exploitability (summed over restricted players)")
    ax.set_ylabel("exploitation")
  fig.tight_layout()
  fig.savefig(args.out + ".png", dpi=120)


if __name__ == "__main__":
  main()
