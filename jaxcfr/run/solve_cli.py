"""The command line's solving commands: ``info`` (a game's statistics), ``solve`` (any
registered solver through the driver, its flags generated from the solvers' declarations) and
``rnr`` (restricted Nash responses to an opponent model, the trade-off table). Each declares
its settings once (jaxcfr.run.flags); jaxcfr.run.cli parses and checks them and calls the
handler with one settings object."""

from __future__ import annotations

import json
import math
import time

from jaxcfr import kits, solvers
from jaxcfr.base.params import Param
from jaxcfr.run import common_flags, driver, flags, outputs
from jaxcfr.run.flags import Command, Flag

__all__ = ["commands", "solve_settings"]


def _info(settings) -> int:
  from jaxcfr.run import hardware  # pylint: disable=import-outside-toplevel

  started = time.perf_counter()
  game = kits.load(settings.game, representation=settings.representation)
  stats = game.statistics()
  if settings.json:
    record = {"game": game.name, "representation": str(game.representation), "statistics": stats}
    record = outputs.described({**record, **hardware.provenance()}, settings.argv, started=started)
    if settings.json == "-":
      print(json.dumps(record, indent=2))
    else:
      outputs.write_json(settings.json, record)
  else:
    width = max(map(len, stats))
    for key, value in stats.items():
      print(f"{key:<{width}}  {value}")
  return 0


def solve_settings(settings) -> tuple:
  """``(representation, registration, options, hyperparameter lists)`` of parsed ``solve``
  settings, checked against the solver's declaration (nothing is loaded or built). With no
  ``--representation``, a game with both exact representations gets the faster one for the
  batch's number of runs (``jaxcfr.kits.representation_of``)."""
  representation = kits.representation_of(settings.game, settings.representation)
  representation, declared, options, lists = _settings_for(settings, representation)
  if settings.representation is None:
    runs = math.prod(len(v) for v in lists.values())
    faster = kits.representation_of(settings.game, runs=runs)
    if faster != representation and faster in solvers.representations(settings.algo):
      representation, declared, options, lists = _settings_for(settings, faster)
  solvers.check_settings(settings.algo, representation, options, lists)
  return representation, declared, options, lists


def _settings_for(settings, representation) -> tuple:
  """``solve_settings`` for one representation, before the settings are checked."""
  declared = solvers.registration(settings.algo, representation)
  options, lists = flags.solver_settings(settings, declared)
  if "seed" in {p.name for p in declared.hyperparameters}:
    seeds = lists.get("seed", [0])
    if settings.batch is not None:
      if len(seeds) != 1:
        raise ValueError("--batch B takes one --seed (the first of the batch)")
      lists["seed"] = list(range(seeds[0], seeds[0] + settings.batch))
  elif settings.batch is not None:
    raise ValueError(f"--batch runs a batch of seeds; --algo {settings.algo} draws no random numbers")
  return representation, declared, options, lists


def _solve(settings) -> int:
  started = time.perf_counter()
  representation, declared, options, lists = solve_settings(settings)
  solvers.get(settings.algo, representation, **options)  # the options checked and the solver built before loading
  kit = kits.get(representation)
  if "model" in declared.requires and kit.default_model is None:
    raise ValueError(
      f"--algo {settings.algo} needs an opponent model; use 'jaxcfr rnr {settings.game} --algo {settings.algo}'"
    )
  objects = [name for name in declared.requires if name not in ("model", "p")]
  if objects:  # arrays or objects that only Python can pass (a node lock)
    raise ValueError(
      f"--algo {settings.algo} needs {', '.join(objects)}, which the command line cannot give; "
      f"run it from Python (jaxcfr.solve(game, {settings.algo!r}, ..., {objects[0]}=...))"
    )
  if settings.strategy_out and kit.save_strategy is None:
    raise ValueError(f"--strategy-out: strategies of the {representation} representation cannot be saved")
  run = common_flags.run_settings(settings)
  run.check()
  main_process = common_flags.join(settings)
  common_flags.use_dtype(settings.dtype)
  batched = any(len(v) > 1 for v in lists.values())
  batch = driver.hyperparameter_grid(**lists) if batched else None
  chosen = dict(options)
  if not batched:
    chosen.update({k: v[0] for k, v in lists.items()})
  game = kits.load(settings.game, dtype=settings.dtype, representation=representation)
  result = driver.run(game, settings.algo, run, batch=batch, **chosen)
  if not main_process:
    return 0
  summary = result.summary()
  outputs.print_summary(summary, result)
  if settings.strategy_out:  # before the JSON, so that a failing JSON write loses neither
    from jaxcfr.kits.strategy_files import save_strategy  # pylint: disable=import-outside-toplevel

    save = lambda p: save_strategy(p, game, result.average_strategy)  # noqa: E731
    outputs.write_output(settings.strategy_out, "--strategy-out", save)
  if settings.json:
    outputs.write_json(settings.json, outputs.described(summary, settings.argv, started=started))
  return 0


def _restricted() -> tuple:
  """The registrations of the restricted solvers (those with a counter profile), on every
  representation: rnr's --algo and its generated flags."""
  return tuple(r for r in solvers.registrations() if solvers.get(r.name, r.representation).counter_profile is not None)


# Settings that rnr declares itself (its runs are the grid of p and the restricted player).
_RNR_OWN = ("p", "restricted", "seed", "model")


def _rnr(settings) -> int:
  started = time.perf_counter()
  representation = kits.representation_of(settings.game, settings.representation)
  kit = kits.get(representation)
  if kit.best_response_values is None or kit.expected_value is None:
    hint = f"; 'jaxcfr solve {settings.game} --algo mcrnr' plays its kit's model" if kit.default_model else ""
    raise ValueError(
      f"rnr scores counter-strategies by exact best responses, which the {representation} representation of "
      f"{settings.game} has not{hint}"
    )
  declared = solvers.registration(settings.algo, representation)
  options, lists = flags.solver_settings(settings, declared, _restricted(), leave_out=_RNR_OWN)
  for name, values in lists.items():
    if len(values) != 1:
      raise ValueError(f"--{name.replace('_', '-')} takes one value in rnr (its runs are the grid of --p)")
  shared = {name: values[0] for name, values in lists.items()}
  solvers.check_settings(settings.algo, representation, options, {"p": settings.p, **shared})
  solver = solvers.get(settings.algo, representation, **options)
  if settings.seed != 0 and not solver.stochastic:
    raise ValueError(f"--seed applies to --algo mcrnr, not {settings.algo}")
  run = common_flags.run_settings(settings)
  run.check()
  main_process = common_flags.join(settings)
  common_flags.use_dtype(settings.dtype)
  from jaxcfr.evaluate import exploitation, opponent  # pylint: disable=import-outside-toplevel
  from jaxcfr.run import sharding  # pylint: disable=import-outside-toplevel

  game = kits.load(settings.game, dtype=settings.dtype, representation=representation)
  model = opponent.fixed_model(game, settings.model)
  restricted = (0, 1) if settings.restricted == "both" else int(settings.restricted)
  grid_p, grid_r = exploitation.grid(settings.p, restricted)
  value_started = time.perf_counter()
  iterations = settings.value_iters or max(settings.iterations, 2000)
  value, tolerance = exploitation.game_value(game.tensors, iterations=iterations)
  value_seconds = time.perf_counter() - value_started
  seeds = {"seed": settings.seed} if solver.stochastic else {}
  grid = {"p": grid_p, "restricted": grid_r}
  result = driver.run(game, settings.algo, run, batch=grid, model=model, **seeds, **options, **shared)
  metrics = sharding.gather(exploitation.evaluate(solver, game.tensors, result.state, value))
  rows = exploitation.rows(metrics, grid_p, grid_r, value)
  if not main_process:
    return 0
  print(
    f"game {game.name}, model {settings.model}, {settings.algo} {solver.options} x {settings.iterations} iterations; "
    f"game value (player 0) {value:.6f} +- {2 * tolerance:.1e}"
  )
  print(f"{'r':>2} {'p':>6} {'value_vs_model':>15} {'exploitation':>13} {'exploitability':>15}")
  for row in rows:
    print(
      f"{row['restricted_player']:>2} {row['p']:>6.3f} {row['value_vs_model']:>15.6f} "
      f"{row['exploitation']:>13.6f} {row['exploitability']:>15.6f}"
    )
  if settings.json:
    summary = result.summary()
    record = {
      "game": game.name,
      "model": settings.model,
      "algo": settings.algo,
      "options": solver.options,
      "iters": settings.iterations,
      "dtype": summary["dtype"],
      "seed": settings.seed if solver.stochastic else None,
      "game_value": value,
      "game_value_tolerance": 2 * tolerance,
      "game_value_seconds": value_seconds,
      **{k: summary[k] for k in ("seconds", "compile_seconds", "run_seconds", "git_commit", "hardware")},
      "rows": rows,
    }
    outputs.write_json(settings.json, outputs.described(record, settings.argv, started=started))
  return 0


def _algorithms_epilog() -> str:
  lines = ["solvers (representations; summary):"]
  for name in solvers.names():
    first = solvers.registration(name, solvers.representations(name)[0])
    where = ", ".join(map(str, solvers.representations(name)))
    lines.append(f"  {name:<9} ({where}) {first.summary}")
  return "\n".join(lines)


def commands() -> tuple[Command, ...]:
  """``info``, ``solve`` and ``rnr``, each with its declared settings and handler."""
  info = Command(
    "info",
    "statistics of a game",
    {
      "": (
        common_flags.game(None),
        common_flags.REPRESENTATION,
        Flag(
          Param(
            "json", str, None, "write the statistics, self-described, as JSON to FILE (to standard output without one)"
          ),
          metavar="FILE",
          const="-",
          output=True,
        ),
      )
    },
    _info,
  )

  solve = Command(
    "solve",
    "solve a game with any registered solver",
    {
      "": (
        common_flags.game("leduc_poker"),
        *common_flags.RUN,
        common_flags.DTYPE,
        common_flags.JSON,
        common_flags.REPRESENTATION,
        Flag(
          Param(
            "algo",
            str,
            "cfr+",
            "the solver (listed below with the representations it runs on); a restricted solver plays against the "
            "model its kit declares (mcrnr on a sampled game: the rule bot), elsewhere use 'jaxcfr rnr'",
            choices=solvers.names(),
          )
        ),
        Flag(Param("batch", int, None, "run seeds SEED..SEED+B-1 as one batched program", low=1), metavar="B"),
        Flag(Param("strategy_out", str, None, "write the average strategy as .npz"), metavar="FILE", output=True),
      ),
      common_flags.PROCESSES_TITLE: common_flags.PROCESSES,
    },
    _solve,
    epilog=_algorithms_epilog(),
    extend=lambda parser: flags.solver_flags(
      parser.add_argument_group("solver settings (each solver's declared options and hyperparameters)")
    ),
  )

  rnr = Command(
    "rnr",
    "restricted Nash responses to an opponent model (exploitation vs exploitability)",
    {
      "": (
        common_flags.game("kuhn_poker"),
        *common_flags.RUN,
        common_flags.DTYPE,
        common_flags.JSON,
        Flag(
          Param(
            "model",
            str,
            "cfr:100",
            "the fixed model: uniform, ALGO:ITERS (the average strategy of a registered solver, e.g. "
            "cfr:100 or mccfr-os:100000), or a strategy file written by 'solve --strategy-out' "
            "(FILE#K: run K of a batched one)",
          )
        ),
        Flag(
          Param(
            "p",
            float,
            (0, 0.5, 0.7, 0.8, 0.9, 0.93, 0.97, 1),
            "comma-separated probabilities in [0, 1] that the restricted player follows the model",
            batchable=True,
          )
        ),
        Flag(
          Param(
            "restricted",
            str,
            "1",
            "the restricted (modelled) player; the other computes the counter-strategy",
            choices=("0", "1", "both"),
          )
        ),
        Flag(
          Param(
            "algo",
            str,
            "rnr",
            "rnr: restricted Nash response; dbr: data-biased response (confidence p at every infoset); "
            "mcrnr: Monte-Carlo RNR on outcome sampling (Ponsen et al. 2011, Algorithm 2)",
            choices=tuple(dict.fromkeys(r.name for r in _restricted())),
          )
        ),
        common_flags.REPRESENTATION,
        Flag(Param("seed", int, 0, "mcrnr: the seed of every run")),
        Flag(
          Param("value_iters", int, None, "CFR+ iterations of the game-value solve (default: max(iters, 2000))", low=1)
        ),
      ),
      common_flags.PROCESSES_TITLE: common_flags.PROCESSES,
    },
    _rnr,
    extend=lambda parser: flags.solver_flags(
      parser.add_argument_group("restricted solvers' settings (their declared options and hyperparameters)"),
      _restricted(),
      leave_out=_RNR_OWN,
    ),
  )

  return (info, solve, rnr)
