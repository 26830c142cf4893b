"""The exploitation / exploitability trade-off of restricted Nash responses: paper 000
Figure 6 and the shape of paper 003 Figure 1.

For each game and each opponent model: RNR for every p (default: paper 000's 0, 0.5, 0.7,
0.8, 0.9, 0.93, 0.97, 1) with each restricted player of --restricted, all as one batched
program (jaxcfr.rnr.trade_off; --algo mccfr-os runs Monte-Carlo RNR). With both players
restricted in turn, exploitation (value against the model minus the game value) and
exploitability (worst-case loss below the game value) are summed over the two, as in
Figure 6; paper 003 Figure 1 plots the same two numbers, one curve per opponent model.

Models (--models, comma-separated): any spec of jaxcfr.opponent.fixed_model (``uniform``,
``cfr:ITERS``, ``mccfr-os:ITERS`` (paper 000: "models taken from runs of MCCFR"), a
strategy file), or ``frequentist:SPEC:GAMES``: paper 003 section 4's frequentist model of
the strategy SPEC, from GAMES sampled games per seat against a uniform probe (uniform where
nothing was observed), as paper 003 modelled its opponents from observed play.

  PYTHONPATH=benchmarks python benchmarks/rnr_tradeoff.py --games kuhn_poker,leduc_poker --out rnr_tradeoff

Committed runs (benchmarks/results/):
  figure6_tradeoff: --games 'one_card_poker(num_cards=500),liars_dice(dice_sides=6),
    goofspiel(num_cards=4),princess_and_monster(rows=3,cols=3,horizon=5)' --models mccfr-os:200000
    (OCP(500) and Bluff(1,1,6) at the papers' sizes; Goofspiel and PAM smaller than the
    papers' Goof(7) and PAM(3,3,11), which take ~1 s per CFR+ iteration on this CPU).
  paper003_figure1_leduc: --games leduc_poker --models frequentist:cfr:10:100000,frequentist:cfr+:200:100000
    --ps 0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.95,0.99,1

writes OUT.json (with date, hardware and commit) and, if matplotlib is installed, OUT.png.
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp

from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

PAPER_PS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.93, 0.97, 1.0)


def model_of(game, spec: str, seed: int = 0):
  """A model profile from a spec (see the module doc)."""
  from jaxcfr import evaluation, opponent  # pylint: disable=import-outside-toplevel
  if not spec.startswith("frequentist:"):
    return opponent.fixed_model(game, spec)
  strategy_spec, _, games = spec[len("frequentist:"):].rpartition(":")
  strategy = opponent.fixed_model(game, strategy_spec)
  probe = evaluation.uniform_profile(game.tensors)
  keys = jax.random.split(jax.random.key(seed))
  return tuple(opponent.frequentist_model(game.tensors, player, strategy[player], probe[1 - player], keys[player],
                                          int(games))[player] for player in (0, 1))


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--games", default="kuhn_poker,one_card_poker(num_cards=13),leduc_poker")
  parser.add_argument("--models", default="cfr:20", help="comma-separated model specs (see the module doc)")
  parser.add_argument("--ps", default=",".join(f"{p:g}" for p in PAPER_PS))
  parser.add_argument("--restricted", choices=("0", "1", "both"), default="both")
  parser.add_argument("--algo", default="cfr+")
  parser.add_argument("--iters", type=int, default=2000)
  parser.add_argument("--out", default="rnr_tradeoff", help="output path without extension")
  args = parser.parse_args(argv)
  jax.config.update("jax_enable_x64", True)
  import jaxcfr  # pylint: disable=import-outside-toplevel
  from jaxcfr.loading import split_game_list  # pylint: disable=import-outside-toplevel
  from jaxcfr import mccfr, rnr  # pylint: disable=import-outside-toplevel

  ps = [float(p) for p in args.ps.split(",")]
  restricted = (0, 1) if args.restricted == "both" else (int(args.restricted),)
  results = {}
  for name in split_game_list(args.games):
    game = jaxcfr.load(name, dtype="float64")
    value, tolerance = rnr.game_value(game.tensors, iterations=max(args.iters, 2000),
                                      algorithm="cfr+" if args.algo in mccfr.ALGORITHMS else args.algo)
    options = {"chance_width": mccfr.chance_width(game)} if args.algo == "mccfr-os" else {}
    per_model = {}
    for spec in args.models.split(","):
      model = model_of(game, spec)
      rows = rnr.trade_off(game.tensors, model, ps, restricted=restricted, algorithm=args.algo,
                           iterations=args.iters, value=value, **options)
      curve = []
      for p in ps:
        pair = [r for r in rows if r["p"] == p]
        curve.append({"p": p, "exploitation": sum(r["exploitation"] for r in pair),
                      "exploitability": sum(r["exploitability"] for r in pair)})
      per_model[spec] = {"curve": curve, "rows": rows}
      print(f"{game.name}, model {spec}")
      for point in curve:
        print(f"  p={point['p']:<5} exploitation {point['exploitation']:.5f}  "
              f"exploitability {point['exploitability']:.5f}", flush=True)
    results[game.name] = {"game_value": value, "game_value_tolerance": 2 * tolerance, "models": per_model}
  record = {"algo": args.algo, "iters": args.iters, "restricted": list(restricted), "ps": ps,
            "summed_over_restricted_players": len(restricted) == 2, "games": results}
  write_record(args.out + ".json", record)
  _plot(results, args.out + ".png", len(restricted) == 2)
  return record


def _plot(results: dict, path: str, summed: bool) -> None:
  try:
    import matplotlib  # pylint: disable=import-outside-toplevel
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
  except ImportError:
    return
  fig, axes = plt.subplots(1, len(results), figsize=(4 * len(results), 3.5), squeeze=False)
  for ax, (name, result) in zip(axes[0], results.items()):
    for spec, per_model in result["models"].items():
      curve = per_model["curve"]
      ax.plot([c["exploitability"] for c in curve], [c["exploitation"] for c in curve], "o-", label=spec, markersize=3)
      for c in curve:
        ax.annotate(f"{c['p']:g}", (c["exploitability"], c["exploitation"]), fontsize=6)
    ax.set_title(name, fontsize=8)
    suffix = " (summed over restricted players)" if summed else ""
    ax.set_xlabel("exploitability" + suffix, fontsize=7)
    ax.set_ylabel("exploitation" + suffix, fontsize=7)
    ax.legend(fontsize=6)
  fig.tight_layout()
  fig.savefig(path, dpi=120)


if __name__ == "__main__":
  main()
