"""The exploitation / exploitability trade-off of restricted Nash responses: Ponsen et al. 2011
Figure 6 and the shape of Johanson et al. 2007 Figure 1.

For each game and each opponent model: RNR for every p (default: Ponsen et al. 2011's 0, 0.5, 0.7,
0.8, 0.9, 0.93, 0.97, 1) with each restricted player of --restricted, all as one batched
program (jaxcfr.evaluate.exploitation.trade_off). --algo picks the restricted solver: ``rnr``
(restricted Nash response on the CFR preset --base, default CFR+), ``dbr`` (data-biased
response on --base, confidence p at every infoset) or ``mcrnr`` (Monte-Carlo RNR, outcome
sampling with --trajectories per walk); the old spellings still work (a CFR preset name
means ``rnr`` on that base, ``mccfr-os`` means ``mcrnr``). With both players
restricted in turn, exploitation (value against the model minus the game value) and
exploitability (worst-case loss below the game value) are summed over the two, as in
Figure 6; Johanson et al. 2007 Figure 1 plots the same two numbers, one curve per opponent model.

Models (--models, comma-separated): any spec of jaxcfr.evaluate.opponent.fixed_model (``uniform``,
``cfr:ITERS``, ``mccfr-os:ITERS`` (Ponsen et al. 2011: "models taken from runs of MCCFR"), a
strategy file), or ``frequentist:SPEC:GAMES``: Johanson et al. 2007 section 4's frequentist model of
the strategy SPEC, from GAMES sampled games per seat against a uniform probe (uniform where
nothing was observed), as Johanson et al. 2007 modelled its opponents from observed play.

  PYTHONPATH=benchmarks python benchmarks/papers/rnr_tradeoff.py --games kuhn_poker,leduc_poker --out rnr_tradeoff

Committed runs (benchmarks/results/):
  figure6_tradeoff: --games 'one_card_poker(num_cards=500),liars_dice(dice_sides=6),
    goofspiel(num_cards=4),princess_and_monster(rows=3,cols=3,horizon=5)' --models mccfr-os:200000
    (OCP(500) is the size Ponsen et al. 2011 give, section 4.3.1; their text gives no size for
    Goofspiel, Bluff and PAM, so Bluff(1,1,6), Goofspiel(4) and PAM(3,3,5) are this project's
    choices, the last two smaller than Lanctot et al. 2009's Goof(7) and PAM(3,3,11), which
    take ~1 s per CFR+ iteration on this CPU).
  johanson_2007_figure1_leduc: --games leduc_poker --models frequentist:cfr:10:100000,frequentist:cfr+:200:100000
    --ps 0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.95,0.99,1

writes OUT.json (with date, hardware and commit) and, if matplotlib is installed, OUT.png.
"""

from __future__ import annotations

import argparse
import time

import jax

from record import read_record, write_record  # noqa: E402  pylint: disable=wrong-import-position

PAPER_PS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.93, 0.97, 1.0)
SUMMED = ("gain_over_equilibrium", "exploitation", "exploitability")


def model_of(game, spec: str, seed: int = 0):
  """A model profile from a spec (see the module doc)."""
  from jaxcfr.kits.sequence_form import evaluation  # pylint: disable=import-outside-toplevel
  from jaxcfr.evaluate import opponent  # pylint: disable=import-outside-toplevel

  if not spec.startswith("frequentist:"):
    return opponent.fixed_model(game, spec)
  strategy_spec, _, games = spec[len("frequentist:") :].rpartition(":")
  strategy = opponent.fixed_model(game, strategy_spec)
  probe = evaluation.uniform_profile(game.tensors)
  keys = jax.random.split(jax.random.key(seed))
  return tuple(
    opponent.frequentist_model(game.tensors, player, strategy[player], probe[1 - player], keys[player], int(games))[
      player
    ]
    for player in (0, 1)
  )


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--games", default="kuhn_poker,one_card_poker(num_cards=13),leduc_poker")
  parser.add_argument("--models", default="cfr:20", help="comma-separated model specs (see the module doc)")
  parser.add_argument("--ps", default=",".join(f"{p:g}" for p in PAPER_PS))
  parser.add_argument("--restricted", choices=("0", "1", "both"), default="both")
  parser.add_argument(
    "--algo",
    default="rnr",
    help="comma-separated restricted solvers, each drawn as its own curve: rnr, dbr or mcrnr (or, as before, "
    "a CFR preset for rnr on it, or mccfr-os for mcrnr)",
  )
  parser.add_argument("--base", default="cfr+", help="the CFR preset under rnr and dbr (and of the game value)")
  parser.add_argument("--trajectories", type=int, default=1, help="mcrnr: trajectories per walk")
  parser.add_argument("--iters", type=int, default=2000, help="iterations of rnr and dbr")
  parser.add_argument("--mcrnr-iters", type=int, default=None, help="iterations of mcrnr (default: --iters)")
  parser.add_argument("--out", default="rnr_tradeoff", help="output path without extension")
  args = parser.parse_args(argv)
  jax.config.update("jax_enable_x64", True)
  import jaxcfr  # pylint: disable=import-outside-toplevel
  from jaxcfr.evaluate import exploitation  # pylint: disable=import-outside-toplevel
  from jaxcfr.base.game_strings import split_game_list  # pylint: disable=import-outside-toplevel
  from jaxcfr.solvers import cfr  # pylint: disable=import-outside-toplevel

  algos, base = [], args.base
  for algo in args.algo.split(","):
    if algo in cfr.ALGORITHMS:  # the old --algo PRESET: RNR on that preset
      algo, base = "rnr", algo
    elif algo == "mccfr-os":  # the old --algo mccfr-os: Monte-Carlo RNR
      algo = "mcrnr"
    if algo not in ("rnr", "dbr", "mcrnr"):
      parser.error(f"--algo takes rnr, dbr and mcrnr (or a CFR preset, or mccfr-os), got {algo!r}")
    algos.append(algo)
  iterations = {algo: (args.mcrnr_iters or args.iters) if algo == "mcrnr" else args.iters for algo in algos}
  options = {algo: {"trajectories": args.trajectories} if algo == "mcrnr" else {"base": base} for algo in algos}
  ps = [float(p) for p in args.ps.split(",")]
  restricted = (0, 1) if args.restricted == "both" else (int(args.restricted),)
  results = {}
  for name in split_game_list(args.games):
    game = jaxcfr.load(name, dtype="float64")
    equilibrium, value, tolerance = exploitation.equilibrium(
      game.tensors, iterations=max(args.iters, 2000), algorithm=base
    )
    per_model = {}
    for spec in args.models.split(","):
      model = model_of(game, spec)
      per_model[spec] = {}
      for algo in algos:
        start = time.perf_counter()
        rows = exploitation.trade_off(
          game.tensors,
          model,
          ps,
          restricted=restricted,
          solver=algo,
          iterations=iterations[algo],
          value=value,
          equilibrium_profile=equilibrium,
          **options[algo],
        )
        seconds = time.perf_counter() - start
        curve = []
        for p in ps:
          pair = [r for r in rows if r["p"] == p]
          curve.append({"p": p, **{key: sum(r[key] for r in pair) for key in SUMMED}})
        per_model[spec][algo] = {"curve": curve, "rows": rows, "seconds": seconds}
        print(f"{game.name}, model {spec}, {algo} ({iterations[algo]} iterations, {seconds:.0f} s)")
        for point in curve:
          print(
            f"  p={point['p']:<5} gain over equilibrium {point['gain_over_equilibrium']:.5f}  "
            f"exploitation {point['exploitation']:.5f}  exploitability {point['exploitability']:.5f}",
            flush=True,
          )
    results[game.name] = {"game_value": value, "game_value_tolerance": 2 * tolerance, "models": per_model}
  write_record(
    args.out + ".json",
    benchmark="rnr_tradeoff",
    description="The exploitation / exploitability trade-off of restricted Nash responses (Ponsen et "
    "al. 2011 Figure 6, Johanson et al. 2007 Figure 1): for each game, opponent model, restricted solver and "
    "p, the counter-strategy's gain over an equilibrium (its value against the model minus the value of the "
    f"equilibrium strategy of {max(args.iters, 2000)} {base} iterations against it: Ponsen et al.'s exploitation), "
    "its exploitation over the game value, and its exploitability (worst-case loss below the game value), "
    "summed over the restricted players when both are restricted in turn; float64",
    configuration={
      "games": list(results),
      "models": args.models.split(","),
      "algos": algos,
      "iterations": iterations,
      "options": options,
      "equilibrium": {"algorithm": base, "iterations": max(args.iters, 2000)},
      "restricted": list(restricted),
      "ps": ps,
      "dtype": "float64",
      "summed_over_restricted_players": len(restricted) == 2,
      # the frequentist models' sampled games (model_of) and mcrnr's walks (exploitation.trade_off's default)
      "seeds": {"frequentist models": 0, "mcrnr": 0},
    },
    results={"games": results},
  )
  _plot(results, args.out + ".png", len(restricted) == 2)
  return read_record(args.out + ".json")


def _plot(results: dict, path: str, summed: bool) -> None:
  """One panel per game: the gain over an equilibrium (Ponsen et al. 2011 Figure 6's y axis)
  against the exploitability, one curve per model and solver (exact RNR dashed)."""
  try:
    import matplotlib  # pylint: disable=import-outside-toplevel

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
  except ImportError:
    return
  fig, axes = plt.subplots(1, len(results), figsize=(4 * len(results), 3.5), squeeze=False)
  for ax, (name, result) in zip(axes[0], results.items()):
    for spec, per_algo in result["models"].items():
      for algo, run in per_algo.items():
        curve = run["curve"]
        x = [c["exploitability"] for c in curve]
        y = [c["gain_over_equilibrium"] for c in curve]
        ax.plot(x, y, "o--" if algo != "mcrnr" else "o-", label=f"{algo}, {spec}", markersize=3)
        for c, point in zip(curve, zip(x, y)):
          ax.annotate(f"{c['p']:g}", point, fontsize=6)
    ax.set_title(name, fontsize=8)
    suffix = " (summed over restricted players)" if summed else ""
    ax.set_xlabel("exploitability" + suffix, fontsize=7)
    ax.set_ylabel("gain over an equilibrium" + suffix, fontsize=7)
    ax.legend(fontsize=6)
  fig.tight_layout()
  fig.savefig(path, dpi=120)


if __name__ == "__main__":
  main()
