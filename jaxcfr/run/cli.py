"""The jaxcfr command line: game statistics, solving with any registered solver, restricted
Nash responses to an opponent model, head-to-head matches of strategy files, and
depth-limited solving with value networks (jaxcfr.run.resolving_cli)."""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import tempfile
import time
from pathlib import Path

from jaxcfr import kits, solvers, xla_setup
from jaxcfr.base import memory
from jaxcfr.run import resolving_cli

__all__ = ["main", "parser", "solve_settings"]

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


def _integer(minimum: int, maximum: int | None = None):
  """An argparse type: an integer of at least ``minimum`` (and at most ``maximum``)."""
  kind = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
  if maximum is not None:
    kind = f"an integer in [{minimum}, {maximum:,}]"

  def parse(text: str) -> int:
    try:
      value = int(text)
    except ValueError:
      raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}") from None
    if value < minimum or (maximum is not None and value > maximum):
      raise argparse.ArgumentTypeError(f"expected {kind}, got {value}")
    return value

  return parse


_positive = _integer(1)
_non_negative = _integer(0)
MAX_SAMPLED_GAMES = 10**7  # match --games: the games of a pair are played at once, in memory


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
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
  command.add_argument(
    "--dtype", choices=("float32", "float64"), default="float32", help="float precision (float32, as the library)"
  )
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
  hosts.add_argument(
    "--join-timeout",
    type=_integer(1, 86_400),
    default=300,
    metavar="SECONDS",
    help="give up, with one line and exit status 2, if the other processes have not joined by then",
  )


def _representation_flag(command) -> None:
  command.add_argument(
    "--representation",
    choices=list(kits.names()),
    help="load the game as sequence-form tensors, on the public tree (vector form) or as a sampled game "
    "(default: the game's own; a game may have several)",
  )


def _algorithms_epilog() -> str:
  lines = ["solvers (representations; summary):"]
  for name in solvers.names():
    first = solvers.registration(name, solvers.representations(name)[0])
    where = ", ".join(map(str, solvers.representations(name)))
    lines.append(f"  {name:<9} ({where}) {first.summary}")
  return "\n".join(lines)


def _declared_flags() -> dict[str, list]:
  """Every command-line setting declared by a registered solver: name -> [(registration, Param)]."""
  flags: dict[str, list] = {}
  for declared in solvers.registrations():
    for param in declared.params:
      if param.cli:
        flags.setdefault(param.name, []).append((declared, param))
  return flags


def _flag_help(uses: list) -> str:
  """One help text naming the solvers a flag applies to, grouped by what it means to them."""
  groups: dict[tuple, list] = {}
  for declared, param in uses:
    default = "the solver's" if param.default is None else param.default
    key = (param.help, str(default), param.describe_range())
    where = (
      declared.name if declared.representation == "sequence_form" else (f"{declared.name} ({declared.representation})")
    )
    if where not in groups.setdefault(key, []):
      groups[key].append(where)
  parts = [
    f"{', '.join(names)}: {text} ({allowed}; default {default})" for (text, default, allowed), names in groups.items()
  ]
  if any(param.batchable for _, param in uses):
    parts.append("a comma-separated list runs a batch over the grid of all lists")
  return "; ".join(parts).replace("%", "%%")


def _solver_flags(group) -> None:
  """One flag per declared setting, typed by its declaration (jaxcfr.base.params)."""
  for name, uses in _declared_flags().items():
    params = [param for _, param in uses]
    kind = params[0].kind
    flag = params[0].flag
    if any(p.kind != kind for p in params):
      raise TypeError(f"solvers declare {name} with different kinds: {sorted({str(p.kind) for p in params})}")
    help_text = _flag_help(uses)
    if any(p.batchable for p in params):
      group.add_argument(flag, type=_ints if kind is int else _floats, metavar="LIST", help=help_text)
    elif kind is bool:
      group.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=help_text)
    elif kind == "ints":
      group.add_argument(flag, type=_ints, metavar="N,N,...", help=help_text)
    else:
      choices = sorted({c for p in params for c in p.choices}) if all(p.choices for p in params) else None
      group.add_argument(flag, type={int: int, float: float, str: str}[kind], choices=choices, help=help_text)


def _solver_settings(args, declared) -> tuple[dict, dict]:
  """(options, hyperparameter lists) given on the command line for the solver ``declared``;
  a flag of another solver is an error naming the solvers it applies to."""
  options, lists = {}, {}
  for name, uses in _declared_flags().items():
    value = getattr(args, name)
    if value is None:
      continue
    param = declared.param(name)
    if param is None or not param.cli:
      owners = ", ".join(dict.fromkeys(d.name for d, _ in uses))
      raise ValueError(
        f"{uses[0][1].flag} does not apply to --algo {declared.name} on {declared.representation} "
        f"games (it applies to: {owners})"
      )
    if param.batchable:
      lists[name] = value
    else:
      options[name] = tuple(value) if param.kind == "ints" else value
  return options, lists


def parser() -> argparse.ArgumentParser:
  """The command line's argument parser (every solver flag generated from the declarations)."""
  formatter = _Formatter
  top = argparse.ArgumentParser(prog="jaxcfr", description=__doc__, formatter_class=formatter)
  top.add_argument("--version", action="version", version=_version())
  commands = top.add_subparsers(dest="command", required=True)

  info = commands.add_parser("info", help="statistics of a game", formatter_class=formatter)
  info.add_argument("game", help=_GAME_HELP)
  _representation_flag(info)
  info.add_argument(
    "--json",
    nargs="?",
    const="-",
    metavar="FILE",
    help="write the statistics, self-described, as JSON to FILE (to standard output without one)",
  )

  solve = commands.add_parser(
    "solve",
    help="solve a game with any registered solver",
    formatter_class=formatter,
    epilog=_algorithms_epilog(),
  )
  _common(solve, "leduc_poker")
  _representation_flag(solve)
  solve.add_argument(
    "--algo",
    choices=solvers.names(),
    default="cfr+",
    help="the solver (listed below with the representations it runs on); mcrnr on a sampled game models its "
    "rule bot, elsewhere use 'jaxcfr rnr'",
  )
  solve.add_argument("--batch", type=_positive, metavar="B", help="run seeds SEED..SEED+B-1 as one batched program")
  solve.add_argument("--strategy-out", metavar="FILE", help="write the average strategy as .npz")
  _solver_flags(solve.add_argument_group("solver settings (each solver's declared options and hyperparameters)"))

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
    "one agent per run; FILE#K only its run K), or 'uniform'",
  )
  match.add_argument(
    "--games",
    type=_integer(0, MAX_SAMPLED_GAMES),
    default=0,
    help="also play this many sampled games per pair (half in each seat, all at once in memory), with 95%% intervals",
  )
  match.add_argument("--seed", type=_integer(0, 2**32 - 1), default=0, help="PRNG seed of the sampled games")
  match.add_argument(
    "--dtype", choices=("float32", "float64"), default="float32", help="float precision (float32, as the library)"
  )
  match.add_argument("--json", metavar="FILE", help="write the crosstable as JSON")
  resolving_cli.add_commands(commands, formatter, positive=_positive, ints=_ints, game_help=_GAME_HELP)
  for command in commands.choices.values():
    command.add_argument(
      "--max-memory",
      type=_size,
      metavar="SIZE",
      help=f"the memory builds and runs may use, e.g. 8G or 512M (default: what is available now; ${memory.ENV})",
    )
    command.add_argument(
      "--compilation-cache",
      action=argparse.BooleanOptionalAction,
      default=None,
      help="keep compiled programs on disk, under the game cache's xla/ folder, so that a game of a shape solved "
      f"before starts without compiling (default: on; ${COMPILATION_CACHE_ENV}=0 turns it off, "
      "$JAX_COMPILATION_CACHE_DIR chooses the folder)",
    )
  return top


COMPILATION_CACHE_ENV = "JAXCFR_COMPILATION_CACHE"
# Programs that compile faster than this are not written to the compilation cache.
COMPILATION_CACHE_MIN_SECONDS = 0.5


def compilation_cache(enabled: bool | None, environ=os.environ) -> str | None:
  """Turns on JAX's persistent compilation cache for this command and returns its folder, or
  None when it stays off: ``enabled`` (``--compilation-cache``; None: ``$JAXCFR_COMPILATION_CACHE``,
  where 0, false, no or off turn it off, default on). The folder is ``$JAX_COMPILATION_CACHE_DIR``
  when the user sets it (JAX reads it itself), else ``xla/`` under the game cache
  (jaxcfr.base.cache.cache_dir). A river endgame's DCFR compiles in seconds and loads from the
  cache in a fraction of that (benchmarks/results/public_tree_startup.json)."""
  if enabled is None:
    enabled = environ.get(COMPILATION_CACHE_ENV, "1").strip().lower() not in ("0", "false", "no", "off")
  if not enabled:
    return None
  import jax  # pylint: disable=import-outside-toplevel

  from jaxcfr.base import cache  # pylint: disable=import-outside-toplevel

  folder = environ.get("JAX_COMPILATION_CACHE_DIR") or str(cache.cache_dir() / "xla")
  jax.config.update("jax_compilation_cache_dir", folder)
  if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in environ:
    jax.config.update("jax_persistent_cache_min_compile_time_secs", COMPILATION_CACHE_MIN_SECONDS)
  return folder


def _size(text: str) -> str:
  try:
    memory.parse_size(text, "--max-memory")
  except ValueError as error:
    raise argparse.ArgumentTypeError(str(error)) from None
  return text


def _check_outputs(*paths_and_names) -> None:
  """Each given output path is writable, and no two flags name the same file."""
  from jaxcfr.run.checkpoint import check_writable  # pylint: disable=import-outside-toplevel

  seen = {}
  for path, name in paths_and_names:
    if path:
      check_writable(path, name)
      resolved = os.path.realpath(path)
      if resolved in seen:
        raise ValueError(f"{seen[resolved]} and {name} name the same file {path}; give each its own")
      seen[resolved] = name


def _write_output(path: str, flag: str, write) -> None:
  """``write(path)``; if that fails (a full disk, a removed folder), ``write`` to a file of
  the same name in a new temporary folder and raise one line naming both, so that a
  finished run's results are not lost."""
  try:
    write(path)
  except OSError as error:
    fallback = os.path.join(tempfile.mkdtemp(prefix="jaxcfr-"), os.path.basename(path) or "output")
    write(fallback)
    raise ValueError(f"{flag} {path} could not be written ({error.strerror or error}); it is in {fallback}") from None


def _write_json(path: str, record: dict) -> None:
  text = json.dumps(record, indent=2)
  _write_output(path, "--json", lambda p: Path(p).write_text(text, encoding="utf-8"))


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
    sharding.initialize(args.coordinator, args.num_processes, args.process_id, timeout_s=args.join_timeout)
  else:  # one process: a batch is split over one CPU device per core (unless XLA_FLAGS sets a count)
    xla_setup.expose_cpu_cores()
  return sharding.is_main_process()


def _info(args) -> int:
  from jaxcfr.kits import load  # pylint: disable=import-outside-toplevel
  from jaxcfr.run import hardware  # pylint: disable=import-outside-toplevel

  started = time.perf_counter()
  if args.json not in (None, "-"):
    _check_outputs((args.json, "--json"))
  game = load(args.game, representation=args.representation)
  stats = game.statistics()
  if args.json:
    record = {"game": game.name, "representation": str(game.representation), "statistics": stats}
    record = _described({**record, **hardware.provenance()}, args, started=started)
    if args.json == "-":
      print(json.dumps(record, indent=2))
    else:
      _write_json(args.json, record)
  else:
    width = max(map(len, stats))
    for key, value in stats.items():
      print(f"{key:<{width}}  {value}")
  return 0


def solve_settings(args) -> tuple:
  """``(representation, registration, options, hyperparameter lists)`` of parsed ``solve``
  arguments, checked against the solver's declaration (nothing is loaded or built). With no
  ``--representation``, a game with both exact representations gets the faster one for the
  batch's number of runs (``jaxcfr.kits.representation_of``)."""
  from jaxcfr.kits import representation_of  # pylint: disable=import-outside-toplevel

  representation = representation_of(args.game, args.representation)
  representation, declared, options, lists = _settings_for(args, representation)
  if args.representation is None:
    runs = math.prod(len(v) for v in lists.values())
    faster = representation_of(args.game, runs=runs)
    if faster != representation and faster in solvers.representations(args.algo):
      representation, declared, options, lists = _settings_for(args, faster)
  solvers.check_settings(args.algo, representation, options, lists)
  return representation, declared, options, lists


def _settings_for(args, representation) -> tuple:
  """``solve_settings`` for one representation, before the settings are checked."""
  declared = solvers.registration(args.algo, representation)
  options, lists = _solver_settings(args, declared)
  if "seed" in {p.name for p in declared.hyperparameters}:
    seeds = lists.get("seed", [0])
    if args.batch is not None:
      if len(seeds) != 1:
        raise ValueError("--batch B takes one --seed (the first of the batch)")
      lists["seed"] = list(range(seeds[0], seeds[0] + args.batch))
  elif args.batch is not None:
    raise ValueError(f"--batch runs a batch of seeds; --algo {args.algo} draws no random numbers")
  return representation, declared, options, lists


def _solve(args) -> int:
  started = time.perf_counter()
  _check_outputs((args.json, "--json"), (args.strategy_out, "--strategy-out"), (args.checkpoint, "--checkpoint"))
  if args.resume and not args.checkpoint:
    raise ValueError("--resume needs --checkpoint FILE")
  if args.checkpoint_every is not None and not args.checkpoint:
    raise ValueError("--checkpoint-every needs --checkpoint FILE")
  representation, declared, options, lists = solve_settings(args)
  solvers.get(args.algo, representation, **options)  # the options checked and the solver built before loading
  needs_model = "model" in declared.requires
  if needs_model and representation != "card_abstraction":
    raise ValueError(f"--algo {args.algo} needs an opponent model; use 'jaxcfr rnr {args.game} --algo {args.algo}'")
  main_process = _join(args)
  import jax  # pylint: disable=import-outside-toplevel

  if args.dtype == "float64":
    jax.config.update("jax_enable_x64", True)
  from jaxcfr.kits.strategy_files import save_strategy  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits import load  # pylint: disable=import-outside-toplevel
  from jaxcfr.run import driver  # pylint: disable=import-outside-toplevel

  batched = any(len(v) > 1 for v in lists.values())
  batch = driver.hyperparameter_grid(**lists) if batched else None
  settings = dict(options)
  if not batched:
    settings.update({k: v[0] for k, v in lists.items()})
  game = load(args.game, dtype=args.dtype, representation=representation)
  if needs_model:  # a sampled game's restricted solver models the game's rule bot
    from jaxcfr.kits.card_abstraction import match as holdem_match  # pylint: disable=import-outside-toplevel

    settings["model"] = holdem_match.rule_bot(game)
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
  _print_summary(summary, result)
  if args.strategy_out:  # before the JSON, so that a failing JSON write loses neither
    _write_output(args.strategy_out, "--strategy-out", lambda p: save_strategy(p, game, result.average_strategy))
  if args.json:
    _write_json(args.json, _described(summary, args, started=started))
  return 0


# How the summary prints the metrics it knows; others print as they are.
_NOTES = {
  "exploitability": "(NashConv / 2, OpenSpiel's convention)",
  "value": "(player 0, average strategy)",
  "nodes_touched": "(Lanctot et al. 2009's count)",
  "squared_error": "(Kuhn poker, average strategy; docs/kuhn.md)",
  "dominated_error": "(Kuhn poker, average strategy, Ponsen et al. 2011's seven actions; docs/kuhn.md)",
  "sb_per_hand_vs_bot": "(small bets per hand against the rule bot; ci95 its 95% half-width)",
}


def _print_summary(summary: dict, result) -> None:
  options = ", ".join(f"{k}={v}" for k, v in summary["options"].items())
  print(f"{'game':<25}{summary['game']} ({summary['representation']})")
  print(f"{'algorithm':<25}{summary['algo']} ({options + ', ' if options else ''}{summary['dtype']})")
  print(f"{'iterations':<25}{summary['iters']}")
  if result.batch_size:
    print(f"{'batch':<25}{result.batch_size} runs: {result.hyperparameters}")
  skip = {"iteration", "seconds"}
  for key, value in result.history[-1].items():
    if key not in skip:
      print(f"{key:<25}{value}   {_NOTES.get(key, '')}".rstrip())
  if "relative_size" in summary:
    print(f"{'':<25}(regressor_size over the full regret table: relative_size)")
  print(f"{'seconds':<25}{summary['seconds']:.3f}   ({summary['compile_seconds']:.3f} compiling)")


def _rnr(args) -> int:
  started = time.perf_counter()
  _check_outputs((args.json, "--json"))
  if args.resume and not args.checkpoint:
    raise ValueError("--resume needs --checkpoint FILE")
  declared = solvers.registration(args.algo)
  given = {"base": None if args.base == "cfr+" else args.base, "trajectories": args.trajectories}
  for name, value in given.items():
    if value is not None and declared.param(name) is None:
      where = declared.representation
      owners = ", ".join(n for n in solvers.names(where) if solvers.registration(n, where).param(name))
      raise ValueError(f"--{name} does not apply to --algo {args.algo} (it applies to: {owners})")
  options = {k: v for k, v in given.items() if v is not None}
  solvers.check_settings(args.algo, declared.representation, options, {"p": args.p})
  solver = solvers.get(args.algo, **options)
  if args.seed != 0 and not solver.stochastic:
    raise ValueError(f"--seed applies to --algo mcrnr, not {args.algo}")
  main_process = _join(args)
  import jax  # pylint: disable=import-outside-toplevel

  if args.dtype == "float64":
    jax.config.update("jax_enable_x64", True)
  from jaxcfr.evaluate import exploitation, opponent  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits import load  # pylint: disable=import-outside-toplevel
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
  from jaxcfr.kits.sequence_form import evaluation  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits.strategy_files import load_runs  # pylint: disable=import-outside-toplevel

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
  from jaxcfr.kits import load  # pylint: disable=import-outside-toplevel

  game = load(args.game, dtype=args.dtype)
  names, profiles = _agents(game, args.agents)
  table = head_to_head.crosstable(game.tensors, profiles)
  poker = head_to_head.is_poker(game)
  unit, scale = head_to_head.table_unit(game)
  print(f"game {game.name}: row agent's exact expected value against the column agent, seats alternated ({unit})")
  corner = "row / column"
  width = max(len(corner), *(len(n) for n in names))
  column = max(10, *(len(n) for n in names))
  print(f"{corner:<{width}} " + " ".join(f"{n:>{column}}" for n in names))
  for i, name in enumerate(names):
    print(f"{name:<{width}} " + " ".join(f"{scale * v:>{column}.3f}" for v in table[i]))
  record = {"game": game.name, "agents": names, "unit": unit, "crosstable": table.tolist()}
  if poker:  # e.g. crosstable_milli_chips_per_hand
    record[f"crosstable_{unit.replace('-', '_').replace(' ', '_')}"] = (scale * table).tolist()
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


def _resolving_command(args) -> int:
  """One of jaxcfr.run.resolving_cli's commands: its outputs checked first, its record
  written as --json."""
  started = time.perf_counter()
  _check_outputs(
    *((getattr(args, name), f"--{name.replace('_', '-')}") for name in resolving_cli.OUTPUTS[args.command])
  )
  record = resolving_cli.COMMANDS[args.command](args, _write_output)
  if args.json:
    _write_json(args.json, _described(record, args, started=started))
  return 0


def _negative_values(argv: list[str]) -> list[str]:
  """``--flag -1,0`` as ``--flag=-1,0``: argparse takes a value that starts with a dash
  for an option unless it is one plain negative number."""
  out = []
  for token in argv:
    if out and out[-1].startswith("--") and "=" not in out[-1] and re.match(r"^-(\d|\.\d|inf)", token):
      out[-1] = f"{out[-1]}={token}"
    else:
      out.append(token)
  return out


def main(argv: list[str] | None = None) -> int:
  argv = sys.argv[1:] if argv is None else list(argv)
  args = parser().parse_args(_negative_values(argv))
  args.argv = argv
  settings = {  # read by the builds (jaxcfr.base.memory.limit; limit hold'em's table bars), for this command only
    memory.ENV: args.max_memory,
    "JAXCFR_PROGRESS": None if getattr(args, "progress", None) is None else str(int(args.progress)),
  }
  before = {name: os.environ.get(name) for name in settings}
  os.environ.update({name: value for name, value in settings.items() if value is not None})
  try:
    return _run(args)
  finally:
    for name, value in before.items():
      if value is None:
        os.environ.pop(name, None)
      else:
        os.environ[name] = value


def _run(args) -> int:
  try:
    compilation_cache(args.compilation_cache)
    if args.command in resolving_cli.COMMANDS:
      return _resolving_command(args)
    return {"info": _info, "solve": _solve, "rnr": _rnr, "match": _match}[args.command](args)
  except (ValueError, ImportError) as error:
    print(f"jaxcfr: error: {error}", file=sys.stderr)
    return 2
  except BrokenPipeError:  # the reader of standard output left (``| head``): stop quietly, as a Unix tool
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's final flush must not fail
    return 141
  except KeyboardInterrupt as interrupt:
    message = str(interrupt) or "interrupted"
    message = message.replace("the same call with resume=True", "the same command with --resume")
    message = message.replace("give a checkpoint file", "use --checkpoint FILE")
    print(f"jaxcfr: {message}", file=sys.stderr)
    return 130


if __name__ == "__main__":
  sys.exit(main())
