"""The ``jaxcfr`` command line: ``jaxcfr info GAME``, ``jaxcfr solve GAME``, ``jaxcfr rnr GAME``."""

from __future__ import annotations

import argparse
import json
import sys

from jaxcfr import solvers


def _floats(text: str) -> list[float]:
  try:
    return [float(v) for v in text.split(",")]
  except ValueError as error:
    raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from error


def _parser() -> argparse.ArgumentParser:
  parser = argparse.ArgumentParser(prog="jaxcfr", description=__doc__)
  commands = parser.add_subparsers(dest="command", required=True)

  info = commands.add_parser("info", help="statistics of a game")
  info.add_argument("game", help="e.g. leduc_poker, one_card_poker(num_cards=13), openspiel:liars_dice")
  info.add_argument("--json", action="store_true", help="print JSON")

  free = [n for n in solvers.names() if not solvers.get(n).requires]
  solve = commands.add_parser("solve", help="solve a game with any registered solver")
  solve.add_argument("game", nargs="?", default="leduc_poker")
  solve.add_argument("--algo", choices=free, default="cfr+",
                     help="mccfr-os: outcome sampling, mccfr-es: external sampling, cfr-cs: chance sampling")
  solve.add_argument("--iters", type=int, default=1000)
  solve.add_argument("--updates", choices=("alternating", "simultaneous"), help="CFR family: update order")
  solve.add_argument("--dtype", choices=("float32", "float64"), default="float64")
  solve.add_argument("--eval-every", type=int, help="iterations between evaluations")
  for name in ("alpha", "beta", "gamma"):
    solve.add_argument(f"--{name}", type=_floats,
                       help=f"CFR family: {name}; a comma-separated list runs a batch over the grid of all lists")
  solve.add_argument("--averaging-delay", type=int, help="CFR family: iterations left out of the average")
  regularised = solve.add_argument_group("magnetic mirror descent (mmd)")
  regularised.add_argument("--temperature", type=_floats,
                           help="mmd: the QRE temperature alpha (default 0.1); a comma-separated list runs a batch")
  regularised.add_argument("--step-size", type=_floats, help="mmd: eta (default alpha / max |A|^2); a list is a batch")
  regularised.add_argument("--anneal", action="store_true",
                           help="mmd: temperature alpha / sqrt(t), towards a Nash equilibrium (report the current strategy)")
  sampled = solve.add_argument_group("stochastic solvers (mccfr-os, mccfr-es, cfr-cs)")
  sampled.add_argument("--seed", type=int, default=0, help="PRNG seed (the first of a batch)")
  sampled.add_argument("--batch", type=int, metavar="B",
                       help="run seeds SEED..SEED+B-1 as one batched program; the JSON holds one result per seed")
  sampled.add_argument("--epsilon", type=_floats, help="outcome sampling's exploration (default 0.6); a list is a batch")
  sampled.add_argument("--trajectories", type=int, metavar="K",
                       help="outcome sampling's trajectories per update (default 1, the papers' algorithm)")
  solve.add_argument("--json", metavar="FILE", help="write the results as JSON")
  solve.add_argument("--strategy-out", metavar="FILE", help="write the average strategy as .npz")
  solve.add_argument("--checkpoint", metavar="FILE", help="checkpoint file (.npz)")
  solve.add_argument("--checkpoint-every", type=int)
  solve.add_argument("--resume", action="store_true", help="continue from --checkpoint")
  solve.add_argument("--no-progress", action="store_true")

  rnr = commands.add_parser("rnr", help="restricted Nash responses to an opponent model (exploitation vs exploitability)")
  rnr.add_argument("game", nargs="?", default="kuhn_poker")
  rnr.add_argument("--model", default="cfr:100",
                   help="the fixed model: uniform, ALGO:ITERS (e.g. cfr:100 or mccfr-os:100000, an average strategy) or a "
                        "strategy file written by 'solve --strategy-out'")
  rnr.add_argument("--p", type=_floats, default=[0, 0.5, 0.7, 0.8, 0.9, 0.93, 0.97, 1],
                   help="comma-separated probabilities that the restricted player follows the model")
  rnr.add_argument("--restricted", choices=("0", "1", "both"), default="1",
                   help="the restricted (modelled) player; the other computes the counter-strategy")
  restricted = [n for n in solvers.names() if solvers.get(n).counter_profile is not None]
  rnr.add_argument("--algo", choices=restricted, default="rnr",
                   help="rnr: restricted Nash response; dbr: data-biased response (confidence p at every infoset); "
                        "mcrnr: Monte-Carlo RNR on outcome sampling (Ponsen et al. 2011, Algorithm 2)")
  rnr.add_argument("--base", default="cfr+", help="rnr and dbr: the CFR preset they run on")
  rnr.add_argument("--iters", type=int, default=1000)
  rnr.add_argument("--seed", type=int, default=0, help="mcrnr: the seed of every run")
  rnr.add_argument("--trajectories", type=int, help="mcrnr: trajectories per update (default 1)")
  rnr.add_argument("--value-iters", type=int, help="iterations of the game-value solve (default: max(iters, 2000))")
  rnr.add_argument("--dtype", choices=("float32", "float64"), default="float64")
  rnr.add_argument("--json", metavar="FILE", help="write one JSON row per (p, restricted player)")
  return parser


def _info(args) -> int:
  from jaxcfr.game.loading import load  # pylint: disable=import-outside-toplevel
  stats = load(args.game).statistics()
  if args.json:
    print(json.dumps(stats, indent=2))
  else:
    width = max(map(len, stats))
    for key, value in stats.items():
      print(f"{key:<{width}}  {value}")
  return 0


def _solve(args) -> int:
  import jax  # pylint: disable=import-outside-toplevel
  if args.dtype == "float64":
    jax.config.update("jax_enable_x64", True)
  from jaxcfr.evaluate.strategy_files import save_strategy  # pylint: disable=import-outside-toplevel
  from jaxcfr.game.loading import load  # pylint: disable=import-outside-toplevel
  from jaxcfr.run import driver  # pylint: disable=import-outside-toplevel
  if args.batch is not None and args.batch < 1:
    raise ValueError(f"--batch must be >= 1, got {args.batch}")
  game = load(args.game, dtype=args.dtype)
  given = {"updates": args.updates, "trajectories": args.trajectories, "averaging_delay": args.averaging_delay,
           "anneal": True if args.anneal else None}
  settings = {k: v for k, v in given.items() if v is not None}
  lists = {k: getattr(args, k) for k in ("alpha", "beta", "gamma", "epsilon", "temperature", "step_size")
           if getattr(args, k) is not None}
  solver = solvers.get(args.algo, **{k: v for k, v in settings.items() if k in solvers.option_names(args.algo)})
  if solver.stochastic:
    lists["seed"] = list(range(args.seed, args.seed + (args.batch or 1)))
  elif args.batch is not None or args.seed != 0:
    raise ValueError(f"--seed and --batch apply to stochastic solvers, not {args.algo}")
  batched = any(len(v) > 1 for v in lists.values())
  if batched:
    batch = driver.hyperparameter_grid(**lists)
  else:
    batch = None
    settings.update({k: v[0] for k, v in lists.items()})
  result = driver.solve(game, args.algo, args.iters, eval_every=args.eval_every, batch=batch,
                        checkpoint=args.checkpoint, checkpoint_every=args.checkpoint_every, resume=args.resume,
                        progress=False if args.no_progress else None, **settings)
  summary = result.summary()
  options = ", ".join(f"{k}={v}" for k, v in summary["options"].items())
  print(f"game            {summary['game']}")
  print(f"algorithm       {summary['algo']} ({options + ', ' if options else ''}{summary['dtype']})")
  print(f"iterations      {summary['iters']}")
  if batched:
    print(f"batch           {result.batch_size} runs: {result.hyperparameters}")
  print(f"exploitability  {summary['exploitability']}   (NashConv / 2, OpenSpiel's convention)")
  print(f"nash_conv       {summary['nash_conv']}")
  print(f"value           {summary['value']}   (player 0, average strategy)")
  if "nodes_touched" in summary:
    print(f"nodes touched   {summary['nodes_touched']}   (Lanctot et al. 2009's count)")
  print(f"seconds         {summary['seconds']:.3f}")
  if args.json:
    with open(args.json, "w", encoding="utf-8") as f:
      json.dump(summary, f, indent=2)
  if args.strategy_out:
    save_strategy(args.strategy_out, game, result.average_strategy)
  return 0


def _rnr(args) -> int:
  import jax  # pylint: disable=import-outside-toplevel
  if args.dtype == "float64":
    jax.config.update("jax_enable_x64", True)
  from jaxcfr.evaluate import exploitation, opponent  # pylint: disable=import-outside-toplevel
  from jaxcfr.game.loading import load  # pylint: disable=import-outside-toplevel
  if args.iters < 1:
    raise ValueError(f"--iters must be >= 1, got {args.iters}")
  given = {"base": args.base, "trajectories": args.trajectories}
  allowed = solvers.option_names(args.algo)
  options = {k: v for k, v in given.items() if k in allowed and v is not None}
  if args.trajectories is not None and "trajectories" not in allowed:
    raise ValueError(f"--trajectories applies to --algo mcrnr, not {args.algo}")
  if args.base != "cfr+" and "base" not in allowed:
    raise ValueError(f"--base applies to --algo rnr and dbr, not {args.algo}")
  solver = solvers.get(args.algo, **options)
  if args.seed != 0 and not solver.stochastic:
    raise ValueError(f"--seed applies to --algo mcrnr, not {args.algo}")
  game = load(args.game, dtype=args.dtype)
  model = opponent.fixed_model(game, args.model)
  restricted = (0, 1) if args.restricted == "both" else (int(args.restricted),)
  value, tolerance = exploitation.game_value(game.tensors, iterations=args.value_iters or max(args.iters, 2000))
  rows = exploitation.trade_off(game.tensors, model, args.p, restricted=restricted, solver=args.algo,
                                iterations=args.iters, value=value, seed=args.seed, **options)
  print(f"game {game.name}, model {args.model}, {args.algo} {solver.options} x {args.iters} iterations; "
        f"game value (player 0) {value:.6f} +- {2 * tolerance:.1e}")
  print(f"{'r':>2} {'p':>6} {'value_vs_model':>15} {'exploitation':>13} {'exploitability':>15}")
  for row in rows:
    print(f"{row['restricted_player']:>2} {row['p']:>6.3f} {row['value_vs_model']:>15.6f} "
          f"{row['exploitation']:>13.6f} {row['exploitability']:>15.6f}")
  if args.json:
    record = {"game": game.name, "model": args.model, "algo": args.algo, "options": solver.options,
              "iters": args.iters, "game_value": value, "game_value_tolerance": 2 * tolerance, "rows": rows}
    with open(args.json, "w", encoding="utf-8") as f:
      json.dump(record, f, indent=2)
  return 0


def main(argv: list[str] | None = None) -> int:
  args = _parser().parse_args(argv)
  try:
    return {"info": _info, "solve": _solve, "rnr": _rnr}[args.command](args)
  except (ValueError, ImportError) as error:
    print(f"jaxcfr: error: {error}", file=sys.stderr)
    return 2


if __name__ == "__main__":
  sys.exit(main())
