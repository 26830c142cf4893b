"""The command line of depth-limited solving (DeepStack's method, docs/resolving.md): solved
situations for a value network (``value-data``), its training (``value-train``), and the
continual re-solving agent scored exactly (``resolve``). Each declares its settings once
(jaxcfr.run.flags) and runs as a job of the driver (jaxcfr.run.resolving_jobs: a progress bar,
``--checkpoint``/``--resume``, the one JSON record of ``solve``); the CFR preset of the solves
is one that the registry holds for the public tree.

    jaxcfr value-data 'no_limit_leduc_poker(betting=deepstack,stack=1200,ante=100)' --count 10000 --out data.npz
    jaxcfr value-train data.npz --out net.npz --steps 20000
    jaxcfr value-data --queries net.npz --count 10000 --out asked.npz      # what its agent asks
    jaxcfr value-train data.npz asked.npz --suit-permutations --cosine --out net2.npz
    jaxcfr resolve 'no_limit_leduc_poker(betting=deepstack,stack=1200,ante=100)' --leaf net.npz
"""

from __future__ import annotations

import time

from jaxcfr import kits, solvers
from jaxcfr.base.params import Param
from jaxcfr.run import common_flags, jobs, outputs
from jaxcfr.run.flags import Command, Flag
from jaxcfr.solvers.cfr import PRESETS
from jaxcfr.solvers.resolving import GADGETS

__all__ = ["commands", "DEFAULT_GAME"]

DEFAULT_GAME = "no_limit_leduc_poker(betting=deepstack,stack=1200,ante=100)"


def _presets() -> tuple:
  """The CFR presets the registry holds for the public tree (the solves' ``--algo``)."""
  return tuple(name for name in solvers.names("public_tree") if name in PRESETS)


def _algo(what: str) -> Flag:
  return Flag(Param("algo", str, "cfr+", f"the CFR preset of {what} (on the public tree)", choices=_presets()))


def _public_game(name: str, dtype=None):
  """``name`` loaded on the public tree, checked to be a game of two betting rounds."""
  kits.representation_of(name, "public_tree")  # one line, before any build, for a game without one
  game = kits.load(name, representation="public_tree", dtype=dtype)
  rounds = int(game.tree.round.max()) + 1
  if rounds != 2:
    raise ValueError(f"{name}: re-solving here needs a game of two betting rounds (no-limit Leduc), it has {rounds}")
  from jaxcfr.solvers import value_data  # pylint: disable=import-outside-toplevel

  value_data.round_starts(game.tree.rules)  # the second round is reachable
  return game


def _network_of(path: str, game, flag: str):
  """The value network at ``path`` (``flag``'s), checked to be one of ``game``."""
  from jaxcfr.solvers import value_network  # pylint: disable=import-outside-toplevel

  network = value_network.load(path)
  if (network.num_hands, network.stack) != (game.tree.num_hands, value_network.stack_of(game.tree.rules)):
    raise ValueError(f"{flag} {path} is a network of another game (hands {network.num_hands}, stack {network.stack})")
  return network


def _job_settings(settings) -> jobs.JobSettings:
  return jobs.JobSettings(checkpoint=settings.checkpoint, resume=settings.resume, progress=settings.progress)


def _write_record(settings, result, started: float, **more) -> None:
  if settings.json:
    record = outputs.described({**result.summary(), **more}, settings.argv, started=started)
    outputs.write_json(settings.json, record)


def _value_data(settings) -> int:
  from jaxcfr.run.resolving_jobs import ValueData  # pylint: disable=import-outside-toplevel
  from jaxcfr.solvers import value_data  # pylint: disable=import-outside-toplevel

  started = time.perf_counter()
  game = _public_game(settings.game)
  network = _network_of(settings.queries, game, "--queries") if settings.queries else None
  asked = {"query_iters": settings.query_iters, "every": settings.every} if network is not None else {}
  job = ValueData(
    game,
    count=settings.count,
    iterations=settings.iterations,
    batch=settings.batch,
    seed=settings.seed,
    algorithm=settings.algo,
    network=network,
    queries=settings.queries,
    **asked,
  )
  if job.asked is not None:
    print(f"the agent asked about {job.asked} situations; solving {job.total}")
  result = jobs.run_job(job, _job_settings(settings))
  data = job.data(result.state)
  outputs.write_output(settings.out, "--out", lambda p: value_data.save_data(p, data))
  rate = job.total / result.seconds
  print(f"{job.total} situations of {game.name} in {result.seconds:.1f} s ({rate:.1f} per second): {settings.out}")
  _write_record(settings, result, started, situations_per_second=rate)
  return 0


def _value_train(settings) -> int:
  from jaxcfr.run.resolving_jobs import ValueTrain  # pylint: disable=import-outside-toplevel
  from jaxcfr.solvers import value_data, value_network  # pylint: disable=import-outside-toplevel

  started = time.perf_counter()
  game = _public_game(settings.game)
  hands = game.tree.num_hands
  files = [(path, value_data.load_data(path)) for path in settings.data]
  validation = value_data.load_data(settings.validation) if settings.validation else None
  for path, held in files + [(settings.validation, validation)]:
    if held is not None and held.ranges.shape[1] != hands:
      raise ValueError(f"{path} holds situations of {held.ranges.shape[1]} hands, the game {game.name} {hands}")
  job = ValueTrain(
    game,
    value_data.concatenate(*(held for _, held in files)),
    files=settings.data,
    hidden=settings.hidden,
    steps=settings.steps,
    batch_size=settings.batch_size,
    learning_rate=settings.learning_rate,
    cosine=settings.cosine,
    suit_permutations=settings.suit_permutations,
    seed=settings.seed,
    validation=validation,
    validation_file=settings.validation,
  )
  result = jobs.run_job(job, _job_settings(settings))
  network = job.network(result.state)
  outputs.write_output(settings.out, "--out", lambda p: value_network.save(p, network))
  metrics = result.history[-1]
  tail = "" if metrics["validation_loss"] is None else f", validation {metrics['validation_loss']:.3g}"
  last = metrics["loss_last_100"]
  print(f"trained {settings.steps} steps: loss {last:.3g} (mean of the last 100){tail}: {settings.out}")
  _write_record(settings, result, started)
  return 0


def _resolve(settings) -> int:
  from jaxcfr.run.resolving_jobs import LEAVES, ContinualResolving  # pylint: disable=import-outside-toplevel

  started = time.perf_counter()
  common_flags.use_dtype(settings.dtype)
  game = _public_game(settings.game, settings.dtype)
  networks = ()
  if settings.leaf in LEAVES:
    leaf_iters = settings.leaf_iters or (200 if settings.leaf == "exact" else 1)
  else:
    networks = tuple(_network_of(path, game, "--leaf") for path in settings.leaf.split(","))
    leaf_iters = settings.leaf_iters
  job = ContinualResolving(
    game,
    iterations=settings.iterations,
    leaf=settings.leaf,
    networks=networks,
    leaf_iters=leaf_iters,
    gadget=settings.gadget,
    algorithm=settings.algo,
    dtype=settings.dtype,
  )
  result = jobs.run_job(job, _job_settings(settings))
  outputs.print_summary(result.summary(), result)
  if settings.strategy_out:  # before the JSON, so that a failing JSON write loses neither
    from jaxcfr.kits import strategy_files  # pylint: disable=import-outside-toplevel

    save = lambda p: strategy_files.save_strategy(p, game, result.average_strategy)  # noqa: E731
    outputs.write_output(settings.strategy_out, "--strategy-out", save)
  _write_record(settings, result, started)
  return 0


def _out(what: str) -> Flag:
  return Flag(Param("out", str, None, what), metavar="FILE", output=True, required=True)


def commands() -> tuple[Command, ...]:
  """``value-data``, ``value-train`` and ``resolve``, each with its declared settings and handler."""
  data = Command(
    "value-data",
    "random situations at the second round's start, solved to the end (a value network's data)",
    {
      "": (
        common_flags.game(DEFAULT_GAME),
        Flag(Param("count", int, 1000, "situations", low=1)),
        Flag(
          Param("iterations", int, 1000, "CFR iterations solving each situation", low=1),
          flag="--iters",
          metavar="ITERS",
        ),
        _algo("every solve"),
        Flag(Param("batch", int, 4096, "situations solved as one program", low=1)),
        Flag(Param("seed", int, 1, "seed of the situations (>= 1)", low=1)),
        Flag(
          Param(
            "queries",
            str,
            None,
            "instead of random ranges, those the re-solving agent with this network asks it about (at most "
            "--count, drawn at random; DAgger's data: docs/resolving.md)",
          ),
          metavar="NETWORK",
        ),
        Flag(Param("query_iters", int, 1000, "CFR+ iterations of the querying agent", low=1)),
        Flag(Param("every", int, 10, "record the leaves of every n-th leaf call", low=1)),
        _out("the data file (.npz with a checksum)"),
        common_flags.JSON,
        *common_flags.JOB,
      )
    },
    _value_data,
  )
  train = Command(
    "value-train",
    "train a counterfactual value network",
    {
      "": (
        Flag(
          Param("data", str, None, "files written by 'jaxcfr value-data' (their situations together)"),
          flag=None,
          nargs="+",
        ),
        Flag(Param("game", str, DEFAULT_GAME, "the game the data is of (its deck and stack)")),
        Flag(Param("validation", str, None, "held-out data, its loss printed every 100 steps"), metavar="FILE"),
        Flag(Param("hidden", "ints", (50, 50, 50, 50, 50), "hidden widths", low=1)),
        Flag(Param("steps", int, 20000, "Adam steps", low=1)),
        Flag(Param("batch_size", int, 100, "minibatch size", low=1)),
        Flag(Param("learning_rate", float, 1e-3, "Adam's learning rate", low=0.0)),
        Flag(Param("cosine", bool, False, "decay the learning rate to zero (cosine)")),
        Flag(Param("suit_permutations", bool, False, "add every relabelling of the suits to the data (a symmetry)")),
        Flag(Param("seed", int, 1, "seed of the weights and minibatches (>= 1)", low=1)),
        _out("the network file (.npz with a checksum)"),
        common_flags.JSON,
        *common_flags.JOB,
      )
    },
    _value_train,
  )
  resolve = Command(
    "resolve",
    "the continual re-solving agent's exact exploitability (both seats)",
    {
      "": (
        common_flags.game(DEFAULT_GAME),
        Flag(
          Param(
            "leaf",
            str,
            "exact",
            "the leaves' values: 'exact' (solved afresh at every call), 'warm' (solved on, warm-started across the "
            "lookahead's iterations: docs/resolving.md), a network file, or several, comma-separated (their mean)",
          )
        ),
        Flag(
          Param("iterations", int, 1000, "CFR iterations of every re-solve", low=1), flag="--iters", metavar="ITERS"
        ),
        _algo("every re-solve"),
        Flag(
          Param(
            "leaf_iters", int, None, "CFR+ iterations of each exact leaf solve (default 200) or warm call (1)", low=1
          )
        ),
        Flag(
          Param(
            "gadget",
            str,
            GADGETS[0],
            "the gadget's follow regrets: regret matching+ as DeepStack-Leduc, or regret matching (docs/resolving.md)",
            choices=GADGETS,
          )
        ),
        common_flags.DTYPE,
        Flag(Param("strategy_out", str, None, "write the agent's strategy as .npz"), metavar="FILE", output=True),
        common_flags.JSON,
        *common_flags.JOB,
      )
    },
    _resolve,
  )
  return (data, train, resolve)
