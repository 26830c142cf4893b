"""The jaxcfr command line: game statistics, solving with any registered solver, restricted
Nash responses to an opponent model, and head-to-head matches of strategy files."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

from jaxcfr import solvers, xla_setup

__all__ = ["main"]

_GAME_HELP = "a game string, e.g. leduc_poker, one_card_poker(num_cards=13), openspiel:liars_dice"


def _floats(text: str) -> list[float]:
  try:
    values = [float(v) for v in text.split(",")]
  except ValueError:
    raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None
  if not all(math.isfinite(v) for v in values):
    raise argparse.ArgumentTypeError(f"expected finite numbers, got {text!r}")
  return values


def _ints(text: str) -> list[int]:
  try:
    return [int(v) for v in text.split(",")]
  except ValueError:
    raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def _integer(minimum: int):
  """An argparse type: an integer of at least ``minimum``."""
  kind = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"

  def parse(text: str) -> int:
    try:
      value = int(text)
    except ValueError:
      raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}") from None
    if value < minimum:
      raise argparse.ArgumentTypeError(f"expected {kind}, got {value}")
    return value

  return parse


_positive = _integer(1)
_non_negative = _integer(0)


class _Formatter(argparse.ArgumentDefaultsHelpFormatter):
  """Shows an argument's default where it has one worth showing."""

  def _get_help_string(self, action):
    if action.default in (None, False, argparse.SUPPRESS) or "(default" in (action.help or ""):
      return action.help
    return super()._get_help_string(action)


def _version() -> str:
  from jaxcfr import __version__  # pylint: disable=import-outside-toplevel

  return f"jaxcfr {__version__}"


def _common(command: argparse.ArgumentParser, default_game: str) -> None:
  command.add_argument("game", nargs="?", default=default_game, help=_GAME_HELP)
  command.add_argument("--iters", type=_positive, default=1000, help="iterations of every run")
  command.add_argument("--dtype", choices=("float32", "float64"), default="float64", help="float precision")
  command.add_argument(
    "--eval-every", type=_positive, help="iterations between evaluations (default: a tenth of the run)"
  )
  command.add_argument("--json", metavar="FILE", help="write the results, self-described, as JSON")
  command.add_argument("--checkpoint", metavar="FILE", help="checkpoint file (.npz), also written on Ctrl-C")
  command.add_argument(
    "--checkpoint-every", type=_positive, metavar="N", help="iterations between checkpoints (default: every evaluation)"
  )
  command.add_argument("--resume", action="store_true", help="continue from --checkpoint if it exists")
  command.add_argument(
    "--progress",
    action=argparse.BooleanOptionalAction,
    default=None,
    help="draw a progress bar with rate and time left (default: on a terminal)",
  )
  hosts = command.add_argument_group("several processes (jax.distributed): one command per process, same arguments")
  hosts.add_argument(
    "--distributed",
    action="store_true",
    help="join a multi-process run, the cluster detected from its environment (e.g. SLURM)",
  )
  hosts.add_argument("--coordinator", metavar="HOST:PORT", help="the coordinator's address (process 0's host)")
  hosts.add_argument("--num-processes", type=_positive, metavar="N", help="the number of processes")
  hosts.add_argument("--process-id", type=_non_negative, metavar="K", help="this process's id, 0..N-1")


def _parser() -> argparse.ArgumentParser:
  formatter = _Formatter
  parser = argparse.ArgumentParser(prog="jaxcfr", description=__doc__, formatter_class=formatter)
  parser.add_argument("--version", action="version", version=_version())
  commands = parser.add_subparsers(dest="command", required=True)

  info = commands.add_parser("info", help="statistics of a game", formatter_class=formatter)
  info.add_argument("game", help=_GAME_HELP)
  info.add_argument("--json", action="store_true", help="print JSON")

  free = [n for n in solvers.names() if not solvers.get(n).requires]
  from jaxcfr.solvers import sampled_games  # pylint: disable=import-outside-toplevel

  sampled_only = [n for n in sampled_games.names() if n not in free]  # mcrnr on limit hold'em
  solve = commands.add_parser("solve", help="solve a game with any registered solver", formatter_class=formatter)
  _common(solve, "leduc_poker")
  solve.add_argument(
    "--algo",
    choices=free + sampled_only,
    default="cfr+",
    help="the solver; mccfr-os: outcome sampling, mccfr-es: external sampling, cfr-cs: chance "
    "sampling; mcrnr only on limit_holdem (modelling the rule bot; elsewhere use 'rnr')",
  )
  solve.add_argument(
    "--updates", choices=("alternating", "simultaneous"), help="CFR family: update order (default: the preset's)"
  )
  for name in ("alpha", "beta", "gamma"):
    solve.add_argument(
      f"--{name}",
      type=_floats,
      help=f"CFR family: {name} (default: the preset's); a comma-separated list runs a batch over "
      f"the grid of all lists",
    )
  solve.add_argument("--averaging-delay", type=_non_negative, help="CFR family: iterations left out of the average")
  regularised = solve.add_argument_group("magnetic mirror descent (mmd)")
  regularised.add_argument(
    "--temperature",
    type=_floats,
    help="mmd: the QRE temperature alpha (default 0.1); a comma-separated list runs a batch",
  )
  regularised.add_argument("--step-size", type=_floats, help="mmd: eta (default alpha / max |A|^2); a list is a batch")
  regularised.add_argument(
    "--anneal",
    action="store_true",
    help="mmd: temperature alpha / sqrt(t), towards a Nash equilibrium (report the current strategy)",
  )
  sampled = solve.add_argument_group("stochastic solvers (mccfr-os, mccfr-es, cfr-cs, mcts)")
  sampled.add_argument(
    "--seed", type=_ints, default=[0], help="PRNG seed; a comma-separated list runs the seeds as one batch"
  )
  sampled.add_argument("--batch", type=_positive, metavar="B", help="run seeds SEED..SEED+B-1 as one batched program")
  sampled.add_argument(
    "--epsilon", type=_floats, help="outcome sampling's exploration in [0, 1] (default 0.6); a list is a batch"
  )
  sampled.add_argument(
    "--trajectories",
    type=_positive,
    metavar="K",
    help="outcome sampling's trajectories per update (default 1, the papers' algorithm)",
  )
  search = solve.add_argument_group("mcts (information-set UCT, Ponsen et al. 2011; Smooth UCT)")
  search.add_argument("--uct-c", type=_floats, help="C of UCT (default 2); a comma-separated list runs a batch")
  search.add_argument("--smooth", action="store_true", help="Smooth UCT (Heinrich and Silver 2015)")
  search.add_argument("--final", choices=("visits", "max"), help="final policy: visit counts (default) or max-visit")
  search.add_argument(
    "--backup",
    choices=("path", "tree"),
    help="back up to every decision on the path (default, the paper) or only inside the tree",
  )
  regression = solve.add_argument_group("regression CFR (rcfr; Waugh et al. 2015)")
  regression.add_argument(
    "--regressor", help="table, abstraction:NAME (Leduc: JQK, J.QK, JQ.K, J.Q.K), mlp (default) or tree:THRESHOLD"
  )
  regression.add_argument("--features", choices=("auto", "generic", "leduc"), help="regressor features (default auto)")
  regression.add_argument("--threshold", type=_floats, help="tree: least error reduction of a split; a list is a batch")
  regression.add_argument("--learning-rate", type=_floats, help="mlp: the optimiser's step size; a list is a batch")
  regression.add_argument("--steps", type=_positive, help="mlp: optimiser steps per iteration (default 100)")
  regression.add_argument("--plus", action="store_true", default=None, help="RCFR+: regrets floored at zero")
  regression.add_argument(
    "--bootstrap", action="store_true", default=None, help="targets: the previous prediction plus the new regret"
  )
  regression.add_argument(
    "--reservoir",
    type=_positive,
    metavar="K",
    help="fit on a reservoir of K sampled regrets per player (default: all data)",
  )
  regression.add_argument(
    "--averaging", help="the average strategy's weights: rcfr uniform or linear; mccfr-os stochastic or optimistic"
  )
  solve.add_argument("--strategy-out", metavar="FILE", help="write the average strategy as .npz")

  rnr = commands.add_parser(
    "rnr",
    help="restricted Nash responses to an opponent model (exploitation vs exploitability)",
    formatter_class=formatter,
  )
  _common(rnr, "kuhn_poker")
  rnr.add_argument(
    "--model",
    default="cfr:100",
    help="the fixed model: uniform, ALGO:ITERS (the average strategy of a registered solver, e.g. "
    "cfr:100 or mccfr-os:100000), or a strategy file written by 'solve --strategy-out' "
    "(FILE#K: run K of a batched one)",
  )
  rnr.add_argument(
    "--p",
    type=_floats,
    default=[0, 0.5, 0.7, 0.8, 0.9, 0.93, 0.97, 1],
    help="comma-separated probabilities in [0, 1] that the restricted player follows the model",
  )
  rnr.add_argument(
    "--restricted",
    choices=("0", "1", "both"),
    default="1",
    help="the restricted (modelled) player; the other computes the counter-strategy",
  )
  restricted = [n for n in solvers.names() if solvers.get(n).counter_profile is not None]
  rnr.add_argument(
    "--algo",
    choices=restricted,
    default="rnr",
    help="rnr: restricted Nash response; dbr: data-biased response (confidence p at every infoset); "
    "mcrnr: Monte-Carlo RNR on outcome sampling (Ponsen et al. 2011, Algorithm 2)",
  )
  rnr.add_argument("--base", default="cfr+", help="rnr and dbr: the CFR preset they run on")
  rnr.add_argument("--seed", type=int, default=0, help="mcrnr: the seed of every run")
  rnr.add_argument("--trajectories", type=_positive, help="mcrnr: trajectories per update (default 1)")
  rnr.add_argument(
    "--value-iters", type=_positive, help="CFR+ iterations of the game-value solve (default: max(iters, 2000))"
  )

  match = commands.add_parser(
    "match", help="head-to-head crosstable of strategy files (exact, seats alternated)", formatter_class=formatter
  )
  match.add_argument("game", nargs="?", default="kuhn_poker", help=_GAME_HELP)
  match.add_argument(
    "--agents",
    required=True,
    help="comma-separated strategy files written by 'solve --strategy-out' (a batched file gives "
    "one agent per run), or 'uniform'",
  )
  match.add_argument(
    "--games",
    type=_non_negative,
    default=0,
    help="also play this many sampled games per pair (half in each seat), with 95%% intervals",
  )
  match.add_argument("--seed", type=int, default=0, help="PRNG seed of the sampled games")
  match.add_argument("--dtype", choices=("float32", "float64"), default="float64", help="float precision")
  match.add_argument("--json", metavar="FILE", help="write the crosstable as JSON")
  return parser


def _check_outputs(*paths_and_names) -> None:
  from jaxcfr.run.checkpoint import check_writable  # pylint: disable=import-outside-toplevel

  for path, name in paths_and_names:
    if path:
      check_writable(path, name)


def _write_json(path: str, record: dict) -> None:
  with open(path, "w", encoding="utf-8") as f:
    json.dump(record, f, indent=2)


def _described(record: dict, args, *, started: float) -> dict:
  """``record`` with the command line and the wall time of the whole command."""
  return {"command": ["jaxcfr"] + list(args.argv), **record, "command_seconds": time.perf_counter() - started}


def _join(args) -> bool:
  """Joins a multi-process run when asked (before any JAX work); True on the process that
  prints and writes files."""
  explicit = (args.coordinator, args.num_processes, args.process_id)
  if any(v is not None for v in explicit) and any(v is None for v in explicit):
    raise ValueError("--coordinator, --num-processes and --process-id go together")
  if args.process_id is not None and args.process_id >= args.num_processes:
    raise ValueError(f"--process-id {args.process_id} is not below --num-processes {args.num_processes}")
  from jaxcfr.run import sharding  # pylint: disable=import-outside-toplevel

  if args.distributed or args.coordinator:
    sharding.initialize(args.coordinator, args.num_processes, args.process_id)
  else:  # one process: a batch is split over one CPU device per core (unless XLA_FLAGS sets a count)
    xla_setup.expose_cpu_cores()
  return sharding.is_main_process()


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
  started = time.perf_counter()
  from jaxcfr.game.loading import SAMPLED_GAMES, parse_game_string  # pylint: disable=import-outside-toplevel

  if parse_game_string(args.game)[0] in SAMPLED_GAMES:
    return _solve_sampled(args, started)
  _check_outputs((args.json, "--json"), (args.strategy_out, "--strategy-out"))
  if solvers.get(args.algo).requires:
    raise ValueError(f"--algo {args.algo} needs an opponent model; use 'jaxcfr rnr {args.game} --algo {args.algo}'")
  if args.resume and not args.checkpoint:
    raise ValueError("--resume needs --checkpoint FILE")
  options = {
    "updates": args.updates,
    "trajectories": args.trajectories,
    "smooth": args.smooth or None,
    "final": args.final,
    "backup": args.backup,
    "regressor": args.regressor,
    "features": args.features,
    "steps": args.steps,
    "plus": args.plus,
    "bootstrap": args.bootstrap,
    "averaging": args.averaging,
    "reservoir": args.reservoir,
    "anneal": True if args.anneal else None,
  }
  options = {k: v for k, v in options.items() if v is not None}
  allowed = solvers.option_names(args.algo)
  for name in options:
    if name not in allowed:
      raise ValueError(f"--{name} does not apply to --algo {args.algo} (its options: {', '.join(allowed) or 'none'})")
  solver = solvers.get(args.algo, **options)
  settings = {**options, **({"averaging_delay": args.averaging_delay} if args.averaging_delay is not None else {})}
  lists = {
    k: getattr(args, k)
    for k in ("alpha", "beta", "gamma", "epsilon", "uct_c", "threshold", "learning_rate", "temperature", "step_size")
    if getattr(args, k) is not None
  }
  if solver.stochastic:
    seeds = args.seed
    if args.batch is not None:
      if len(seeds) != 1:
        raise ValueError("--batch B takes one --seed (the first of the batch)")
      seeds = list(range(seeds[0], seeds[0] + args.batch))
    lists["seed"] = seeds
  elif args.batch is not None or args.seed != [0]:
    raise ValueError(f"--seed and --batch apply to stochastic solvers, not {args.algo}")
  main_process = _join(args)
  import jax  # pylint: disable=import-outside-toplevel

  if args.dtype == "float64":
    jax.config.update("jax_enable_x64", True)
  from jaxcfr.evaluate.strategy_files import save_strategy  # pylint: disable=import-outside-toplevel
  from jaxcfr.game.loading import load  # pylint: disable=import-outside-toplevel
  from jaxcfr.run import driver  # pylint: disable=import-outside-toplevel

  batched = any(len(v) > 1 for v in lists.values())
  batch = driver.hyperparameter_grid(**lists) if batched else None
  if not batched:
    settings.update({k: v[0] for k, v in lists.items()})
  game = load(args.game, dtype=args.dtype)
  result = driver.solve(
    game,
    args.algo,
    args.iters,
    eval_every=args.eval_every,
    batch=batch,
    checkpoint=args.checkpoint,
    checkpoint_every=args.checkpoint_every,
    resume=args.resume,
    progress=args.progress,
    **settings,
  )
  if not main_process:
    return 0
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
  if "regressor_size" in summary:
    print(f"regressor size  {summary['regressor_size']}   ({summary['relative_size']} of the full regret table)")
  if "nodes_touched" in summary:
    print(f"nodes touched   {summary['nodes_touched']}   (Lanctot et al. 2009's count)")
  print(f"seconds         {summary['seconds']:.3f}   ({summary['compile_seconds']:.3f} compiling)")
  for name in ("squared_error", "dominated_error"):
    if name in summary:
      print(f"{name:<15} {summary[name]}   (Kuhn poker, average strategy; docs/kuhn.md)")
  if args.json:
    _write_json(args.json, _described(summary, args, started=started))
  if args.strategy_out:
    save_strategy(args.strategy_out, game, result.average_strategy)
  return 0


def _solve_sampled(args, started: float) -> int:
  """``solve`` on a sampled game (limit hold'em): no tensors, so no exact metrics; each run's
  average strategy is scored against the rule bot in small bets per hand."""
  from jaxcfr.solvers import sampled_games  # pylint: disable=import-outside-toplevel

  _check_outputs((args.json, "--json"), (args.strategy_out, "--strategy-out"))
  sampled_games.get(args.algo)  # a clear error for the algorithms that need the tree, before loading
  for flag in ("checkpoint", "resume", "batch", "strategy_out", "distributed", "coordinator"):
    if getattr(args, flag, None):
      raise ValueError(f"--{flag.replace('_', '-')} is not supported on sampled games such as {args.game}")
  for flag in ("epsilon", "uct_c"):
    if getattr(args, flag) is not None and len(getattr(args, flag)) > 1:
      raise ValueError(f"--{flag.replace('_', '-')} takes one value on sampled games (batch over --seed)")
  from jaxcfr.game.loading import load  # pylint: disable=import-outside-toplevel
  from jaxcfr.run.sampled import solve_sampled  # pylint: disable=import-outside-toplevel

  game = load(args.game)
  scalars = {k: getattr(args, k)[0] for k in ("epsilon", "uct_c") if getattr(args, k) is not None}
  record = solve_sampled(
    game, args.algo, args.iters, seeds=args.seed, eval_every=args.eval_every, progress=args.progress, **scalars
  )
  del record["average_strategy"]
  last = record["history"][-1]
  print(f"game            {record['game']}")
  settings = ", ".join(f"{k}={v}" for k, v in record["hyperparameters"].items())
  print(f"algorithm       {record['algo']} ({settings + ', ' if settings else ''}seeds {record['seeds']})")
  print(f"iterations      {record['iters']}")
  rate = record["iterations_per_second"]
  print(f"iterations/s    {rate:.1f}   (all runs, after compiling)" if rate else "iterations/s    -")
  for seed, value, ci in zip(record["seeds"], last["sb_per_hand_vs_bot"], last["ci95"]):
    print(
      f"vs rule bot     {value:+.3f} +- {ci:.3f} sb/h   (seed {seed}, {record['scored']}, {record['eval_deals']} duplicate deals)"
    )
  print(f"seconds         {record['seconds']:.3f}")
  if args.json:
    _write_json(args.json, _described(record, args, started=started))
  return 0


def _rnr(args) -> int:
  started = time.perf_counter()
  _check_outputs((args.json, "--json"))
  if args.resume and not args.checkpoint:
    raise ValueError("--resume needs --checkpoint FILE")
  if not all(0 <= p <= 1 for p in args.p):
    raise ValueError(f"--p values must lie in [0, 1], got {args.p}")
  allowed = solvers.option_names(args.algo)
  if args.trajectories is not None and "trajectories" not in allowed:
    raise ValueError(f"--trajectories applies to --algo mcrnr, not {args.algo}")
  if args.base != "cfr+" and "base" not in allowed:
    raise ValueError(f"--base applies to --algo rnr and dbr, not {args.algo}")
  options = {
    k: v for k, v in {"base": args.base, "trajectories": args.trajectories}.items() if k in allowed and v is not None
  }
  solver = solvers.get(args.algo, **options)
  if args.seed != 0 and not solver.stochastic:
    raise ValueError(f"--seed applies to --algo mcrnr, not {args.algo}")
  main_process = _join(args)
  import jax  # pylint: disable=import-outside-toplevel

  if args.dtype == "float64":
    jax.config.update("jax_enable_x64", True)
  from jaxcfr.evaluate import exploitation, opponent  # pylint: disable=import-outside-toplevel
  from jaxcfr.game.loading import load  # pylint: disable=import-outside-toplevel
  from jaxcfr.run import driver  # pylint: disable=import-outside-toplevel

  game = load(args.game, dtype=args.dtype)
  model = opponent.fixed_model(game, args.model)
  grid_p, grid_r = exploitation.grid(args.p, (0, 1) if args.restricted == "both" else int(args.restricted))
  value_started = time.perf_counter()
  value, tolerance = exploitation.game_value(game.tensors, iterations=args.value_iters or max(args.iters, 2000))
  value_seconds = time.perf_counter() - value_started
  seeds = {"seed": args.seed} if solver.stochastic else {}
  result = driver.solve(
    game,
    args.algo,
    args.iters,
    eval_every=args.eval_every,
    batch={"p": grid_p, "restricted": grid_r},
    checkpoint=args.checkpoint,
    checkpoint_every=args.checkpoint_every,
    resume=args.resume,
    progress=args.progress,
    model=model,
    **seeds,
    **options,
  )
  from jaxcfr.run import sharding  # pylint: disable=import-outside-toplevel

  rows = exploitation.rows(
    sharding.gather(exploitation.evaluate(solver, game.tensors, result.state, value)), grid_p, grid_r, value
  )
  if not main_process:
    return 0
  print(
    f"game {game.name}, model {args.model}, {args.algo} {solver.options} x {args.iters} iterations; "
    f"game value (player 0) {value:.6f} +- {2 * tolerance:.1e}"
  )
  print(f"{'r':>2} {'p':>6} {'value_vs_model':>15} {'exploitation':>13} {'exploitability':>15}")
  for row in rows:
    print(
      f"{row['restricted_player']:>2} {row['p']:>6.3f} {row['value_vs_model']:>15.6f} "
      f"{row['exploitation']:>13.6f} {row['exploitability']:>15.6f}"
    )
  if args.json:
    summary = result.summary()
    record = {
      "game": game.name,
      "model": args.model,
      "algo": args.algo,
      "options": solver.options,
      "iters": args.iters,
      "dtype": summary["dtype"],
      "seed": args.seed if solver.stochastic else None,
      "game_value": value,
      "game_value_tolerance": 2 * tolerance,
      "game_value_seconds": value_seconds,
      "seconds": summary["seconds"],
      "compile_seconds": summary["compile_seconds"],
      "run_seconds": summary["run_seconds"],
      "git_commit": summary["git_commit"],
      "hardware": summary["hardware"],
      "rows": rows,
    }
    _write_json(args.json, _described(record, args, started=started))
  return 0


def _agents(game, spec: str) -> tuple[list, list]:
  """(names, profiles) of the comma-separated agent files (a batched file: one agent per run)."""
  import numpy as np  # pylint: disable=import-outside-toplevel
  from jaxcfr.core import evaluation  # pylint: disable=import-outside-toplevel
  from jaxcfr.evaluate.strategy_files import load_runs  # pylint: disable=import-outside-toplevel

  names, profiles = [], []
  for item in (s.strip() for s in spec.split(",")):
    if item == "uniform":
      names.append(item)
      profiles.append(tuple(np.asarray(s) for s in evaluation.uniform_profile(game.tensors)))
      continue
    runs = load_runs(item, game)
    names.extend([item] if len(runs) == 1 else [f"{item}[{b}]" for b in range(len(runs))])
    profiles.extend(runs)
  if len(profiles) < 2:
    raise ValueError(f"--agents needs at least two agents, got {len(profiles)}")
  return names, profiles


def _match(args) -> int:
  started = time.perf_counter()
  _check_outputs((args.json, "--json"))
  import jax  # pylint: disable=import-outside-toplevel

  if args.dtype == "float64":
    jax.config.update("jax_enable_x64", True)
  from jaxcfr.evaluate import head_to_head  # pylint: disable=import-outside-toplevel
  from jaxcfr.game.loading import load  # pylint: disable=import-outside-toplevel

  game = load(args.game, dtype=args.dtype)
  names, profiles = _agents(game, args.agents)
  table = head_to_head.crosstable(game.tensors, profiles)
  poker = head_to_head.is_poker(game.name)
  unit = "milli-chips per hand" if poker else "value per game"
  scale = 1000.0 if poker else 1.0
  print(f"game {game.name}: row agent's exact expected value against the column agent, seats alternated ({unit})")
  width = max(len(n) for n in names)
  for i, name in enumerate(names):
    print(f"{name:<{width}} " + " ".join(f"{scale * v:>10.3f}" for v in table[i]))
  record = {"game": game.name, "agents": names, "unit": unit, "crosstable": table.tolist()}
  if poker:
    record["crosstable_milli_chips_per_hand"] = (1000 * table).tolist()
  if args.games:
    key = jax.random.PRNGKey(args.seed)
    sampled = []
    for i in range(len(names)):
      for j in range(i + 1, len(names)):
        key, sub = jax.random.split(key)
        row = head_to_head.sampled_match(game.tensors, profiles[i], profiles[j], sub, args.games)
        sampled.append({"row": names[i], "column": names[j], "exact": float(table[i, j]), **row})
        print(
          f"sampled {names[i]} vs {names[j]}: {scale * row['mean']:.3f} +- {scale * row['half_width']:.3f} "
          f"(95%, {row['games']} games; exact {scale * table[i, j]:.3f})"
        )
    record["sampled"] = sampled
  if args.json:
    _write_json(args.json, _described(record, args, started=started))
  return 0


def main(argv: list[str] | None = None) -> int:
  argv = sys.argv[1:] if argv is None else list(argv)
  args = _parser().parse_args(argv)
  args.argv = argv
  try:
    return {"info": _info, "solve": _solve, "rnr": _rnr, "match": _match}[args.command](args)
  except (ValueError, ImportError) as error:
    print(f"jaxcfr: error: {error}", file=sys.stderr)
    return 2
  except KeyboardInterrupt as interrupt:
    print(f"jaxcfr: {interrupt or 'interrupted'}", file=sys.stderr)
    return 130


if __name__ == "__main__":
  sys.exit(main())
