"""The command line of depth-limited solving (DeepStack's method, docs/resolving.md): solved
situations for a value network (``value-data``), its training (``value-train``), and the
continual re-solving agent scored exactly (``resolve``). Registered by jaxcfr.run.cli.

    jaxcfr value-data 'no_limit_leduc_poker(betting=deepstack,stack=1200,ante=100)' --count 10000 --out data.npz
    jaxcfr value-train data.npz --out net.npz --steps 20000
    jaxcfr value-data --queries net.npz --count 10000 --out asked.npz      # what its agent asks
    jaxcfr value-train data.npz asked.npz --suit-permutations --cosine --out net2.npz
    jaxcfr resolve 'no_limit_leduc_poker(betting=deepstack,stack=1200,ante=100)' --leaf net.npz
"""

from __future__ import annotations

import time

import numpy as np

from jaxcfr.run import hardware
from jaxcfr.solvers.resolving import GADGETS

__all__ = ["add_commands", "COMMANDS", "OUTPUTS"]

DEFAULT_GAME = "no_limit_leduc_poker(betting=deepstack,stack=1200,ante=100)"


def add_commands(commands, formatter, *, positive, ints, game_help: str) -> None:
  """Adds ``value-data``, ``value-train`` and ``resolve`` to the subparsers ``commands``."""
  data = commands.add_parser(
    "value-data",
    help="random situations at the second round's start, solved to the end (a value network's data)",
    formatter_class=formatter,
  )
  data.add_argument("game", nargs="?", default=DEFAULT_GAME, help=game_help)
  data.add_argument("--count", type=positive, default=1000, help="situations")
  data.add_argument("--iters", type=positive, default=1000, help="CFR+ iterations solving each situation")
  data.add_argument("--batch", type=positive, default=4096, help="situations solved as one program")
  data.add_argument("--seed", type=positive, default=1, help="seed of the situations (>= 1)")
  data.add_argument(
    "--queries",
    metavar="NETWORK",
    help="instead of random ranges, those the re-solving agent with this network asks it about (at most --count, "
    "drawn at random; DAgger's data: docs/resolving.md)",
  )
  data.add_argument("--query-iters", type=positive, default=1000, help="CFR+ iterations of the querying agent")
  data.add_argument("--every", type=positive, default=10, help="record the leaves of every n-th leaf call")
  data.add_argument("--out", required=True, metavar="FILE", help="the data file (.npz with a checksum)")
  data.add_argument("--json", metavar="FILE", help="write the results as JSON")

  train = commands.add_parser("value-train", help="train a counterfactual value network", formatter_class=formatter)
  train.add_argument("data", nargs="+", help="files written by 'jaxcfr value-data' (their situations together)")
  train.add_argument("--game", default=DEFAULT_GAME, help="the game the data is of (its deck and stack)")
  train.add_argument("--validation", metavar="FILE", help="held-out data, its loss printed every 100 steps")
  train.add_argument("--hidden", type=ints, default=[50, 50, 50, 50, 50], help="hidden widths")
  train.add_argument("--steps", type=positive, default=20000, help="Adam steps")
  train.add_argument("--batch-size", type=positive, default=100, help="minibatch size")
  train.add_argument("--learning-rate", type=float, default=1e-3, help="Adam's learning rate")
  train.add_argument("--cosine", action="store_true", help="decay the learning rate to zero (cosine)")
  train.add_argument(
    "--suit-permutations", action="store_true", help="add every relabelling of the suits to the data (a symmetry)"
  )
  train.add_argument("--seed", type=positive, default=1, help="seed of the weights and minibatches (>= 1)")
  train.add_argument("--out", required=True, metavar="FILE", help="the network file (.npz with a checksum)")
  train.add_argument("--json", metavar="FILE", help="write the results as JSON")

  resolve = commands.add_parser(
    "resolve",
    help="the continual re-solving agent's exact exploitability (both seats)",
    formatter_class=formatter,
  )
  resolve.add_argument("game", nargs="?", default=DEFAULT_GAME, help=game_help)
  resolve.add_argument(
    "--leaf",
    default="exact",
    help="the leaves' values: 'exact' (solved afresh at every call), 'warm' (solved on, warm-started across the "
    "lookahead's iterations: docs/resolving.md), a network file, or several, comma-separated (their mean)",
  )
  resolve.add_argument("--iters", type=positive, default=1000, help="CFR+ iterations of every re-solve")
  resolve.add_argument(
    "--leaf-iters", type=positive, help="CFR+ iterations of each exact leaf solve (default 200) or warm call (1)"
  )
  resolve.add_argument(
    "--gadget",
    choices=GADGETS,
    default=GADGETS[0],
    help="the gadget's follow regrets: regret matching+ as DeepStack-Leduc, or regret matching (docs/resolving.md)",
  )
  resolve.add_argument("--dtype", choices=("float32", "float64"), default="float32", help="float precision")
  resolve.add_argument("--strategy-out", metavar="FILE", help="write the agent's strategy as .npz")
  resolve.add_argument("--json", metavar="FILE", help="write the results as JSON")


def _public_game(name: str, dtype=None):
  from jaxcfr.kits import load  # pylint: disable=import-outside-toplevel
  from jaxcfr.solvers import value_network  # pylint: disable=import-outside-toplevel

  game = load(name, representation="public_tree", dtype=dtype)
  rounds = int(game.tree.round.max()) + 1
  if rounds != 2:
    raise ValueError(f"{name}: re-solving here needs a game of two betting rounds (no-limit Leduc), it has {rounds}")
  value_network.round_starts(game.tree.rules)  # the second round is reachable
  return game


def _network_of(path: str, game, flag: str):
  """The value network at ``path`` (``flag``'s), checked to be one of ``game``."""
  from jaxcfr.solvers import value_network  # pylint: disable=import-outside-toplevel

  network = value_network.load(path)
  if (network.num_hands, network.stack) != (game.tree.num_hands, value_network.stack_of(game.tree.rules)):
    raise ValueError(f"{flag} {path} is a network of another game (hands {network.num_hands}, stack {network.stack})")
  return network


def _value_data(args, write_output) -> dict:
  from jaxcfr.solvers import value_network  # pylint: disable=import-outside-toplevel

  game = _public_game(args.game)
  rules = game.tree.rules
  network = _network_of(args.queries, game, "--queries") if args.queries else None
  started = time.perf_counter()
  if network is None:
    data = value_network.generate(rules, args.count, iterations=args.iters, seed=args.seed, batch=args.batch)
  else:
    which, ranges = value_network.agent_queries(rules, network, iterations=args.query_iters, every=args.every)
    pick = np.sort(np.random.default_rng(args.seed).permutation(len(which))[: args.count])
    print(f"the agent asked about {len(which)} situations; solving {len(pick)}")
    data = value_network.solve(rules, which[pick], ranges[..., pick], iterations=args.iters, batch=args.batch)
  seconds = time.perf_counter() - started
  count = int(data.pot.shape[0])
  write_output(args.out, "--out", lambda p: value_network.save_data(p, data))
  print(f"{count} situations of {game.name} in {seconds:.1f} s ({count / seconds:.1f} per second): {args.out}")
  record = {"game": game.name, "count": count, "iters": args.iters, "batch": args.batch, "seed": args.seed}
  record |= {"queries": args.queries, "query_iters": args.query_iters, "every": args.every} if args.queries else {}
  return record | {"seconds": seconds, "situations_per_second": count / seconds, **hardware.provenance()}


def _value_train(args, write_output) -> dict:
  import optax  # pylint: disable=import-outside-toplevel

  from jaxcfr.solvers import value_network  # pylint: disable=import-outside-toplevel

  game = _public_game(args.game)
  hands = game.tree.num_hands
  files = [(path, value_network.load_data(path)) for path in args.data]
  validation = value_network.load_data(args.validation) if args.validation else None
  for path, held in files + [(args.validation, validation)]:
    if held is not None and held.ranges.shape[1] != hands:
      raise ValueError(f"{path} holds situations of {held.ranges.shape[1]} hands, the game {game.name} {hands}")
  data = value_network.concatenate(*(held for _, held in files))
  if args.suit_permutations:
    data = value_network.with_suit_permutations(game.tree.rules, data)
  network = value_network.init(game.tree.rules, hidden=tuple(args.hidden), seed=args.seed)
  network, losses = value_network.train(
    network,
    data,
    steps=args.steps,
    batch_size=args.batch_size,
    learning_rate=optax.cosine_decay_schedule(args.learning_rate, args.steps) if args.cosine else args.learning_rate,
    seed=args.seed,
    validation=validation,
  )
  train, held = (losses, None) if validation is None else losses
  write_output(args.out, "--out", lambda p: value_network.save(p, network))
  tail = "" if held is None else f", validation {held[-1]:.3g}"
  print(f"trained {args.steps} steps: loss {train[-100:].mean():.3g} (mean of the last 100){tail}: {args.out}")
  record = {"data": args.data, "hidden": args.hidden, "steps": args.steps, "batch_size": args.batch_size}
  record |= {"learning_rate": args.learning_rate, "cosine": args.cosine, "suit_permutations": args.suit_permutations}
  record |= {"situations": int(data.pot.shape[0]), "seed": args.seed, "loss_last_100": float(train[-100:].mean())}
  record |= {"validation_loss": None if held is None else float(held[-1])}
  return record | hardware.provenance()


def _resolve(args, write_output) -> dict:
  import functools  # pylint: disable=import-outside-toplevel

  import jax  # pylint: disable=import-outside-toplevel

  from jaxcfr.kits.public_tree import values as ops  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits import strategy_files  # pylint: disable=import-outside-toplevel
  from jaxcfr.solvers import lookahead, resolving, value_network  # pylint: disable=import-outside-toplevel

  if args.dtype == "float64":
    jax.config.update("jax_enable_x64", True)
  game = _public_game(args.game, args.dtype)
  rules = game.tree.rules
  if args.leaf in ("exact", "warm"):
    args.leaf_iters = args.leaf_iters or (200 if args.leaf == "exact" else 1)
    leaf_values = lookahead.exact_leaf_values if args.leaf == "exact" else lookahead.warm_leaf_values
    leaf_values_of = functools.partial(leaf_values, iterations=args.leaf_iters)
  else:
    networks = tuple(_network_of(path, game, "--leaf") for path in args.leaf.split(","))
    leaf_fn = value_network.leaf_fn(networks)  # one function: re-solves of one shape share a compiled program
    leaf_values_of = lambda tree: leaf_fn  # noqa: E731
  started = time.perf_counter()
  profile = tuple(
    jax.numpy.asarray(
      resolving.agent_strategy(
        rules, p, iterations=args.iters, leaf_values_of=leaf_values_of, gadget=args.gadget, dtype=args.dtype
      )
    )
    for p in (0, 1)
  )
  chips = float(ops.exploitability(game.tensors, profile))
  seconds = time.perf_counter() - started
  ante = getattr(getattr(rules, "game", None), "ante", None)
  mbb = None if ante is None else 1000 * chips / ante
  print(f"continual re-solving on {game.name} ({args.leaf} leaves, {args.iters} iterations per re-solve):")
  print(
    f"  exploitability {chips:.4g} chips per game" + ("" if mbb is None else f", {mbb:.4g} mbb/g (ante as big blind)")
  )
  print(f"  {seconds:.1f} s")
  if args.strategy_out:  # before the JSON, so that a failing JSON write loses neither
    write_output(args.strategy_out, "--strategy-out", lambda p: strategy_files.save_strategy(p, game, profile))
  record = {"game": game.name, "leaf": args.leaf, "iters": args.iters, "leaf_iters": args.leaf_iters}
  record["gadget"] = args.gadget
  record |= {"dtype": args.dtype, "exploitability_chips": chips, "exploitability_mbb_per_game": mbb}
  record |= {"seconds": seconds, **hardware.provenance()}
  return record


COMMANDS = {"value-data": _value_data, "value-train": _value_train, "resolve": _resolve}
"""Each command's handler: ``handler(args, write_output) -> record``, ``write_output(path, flag,
write)`` the command line's writer of output files (one line and a fallback file on failure);
the command line writes the record as ``--json``."""
OUTPUTS = {"value-data": ("out", "json"), "value-train": ("out", "json"), "resolve": ("strategy_out", "json")}
"""Each command's output flags (by attribute), checked before any work."""
