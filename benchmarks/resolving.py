"""Continual re-solving (DeepStack) on no-limit Leduc: the agent's exploitability against the full-game solution's.

    python -m benchmarks resolving                                   # the defaults below
    python -m benchmarks resolving --stacks 1200 --train-sizes 1000 --out /tmp/r.json

For each stack (DeepStack-Leduc's game: ante 100, pot-sized raises and all-in, fold at every
decision: ``no_limit_leduc_poker(betting=deepstack,stack=S,ante=100)``), the exact
exploitability (``NashConv / 2``, chips per game and mbb/g with the ante as the big blind) of:
the uniform strategy; CFR+ on the whole game after 100, 1,000 and 10,000 iterations; the
continual re-solving agent (jaxcfr.solvers.resolving.agent_strategy: a first solve of the
first round's lookahead, then a re-solve at every decision of the agent, ``--iterations``
CFR+ iterations each, the gadget ``--gadget``) with exact leaf values (``--leaves``: fresh
solves of ``--leaf-iterations`` CFR+ iterations per call, agent ``exact``; solves warm-started
across the lookahead's iterations, ``--warm-leaf-iterations`` per call, agent ``exact_warm``)
and with value networks trained on ``--train-sizes`` situations (``train_network``: half of
them random, from DeepStack's range generator, half asked about by the agent itself over
``--query-rounds`` rounds; each solved by ``--data-iterations`` CFR+ iterations; the suits'
relabellings added; ``--query-rounds 0 --no-suit-permutations --no-cosine`` is DeepStack's
method). Every agent is scored at each of ``--iterations``. The agent plays both
seats; its exploitability is exact (best responses on the public tree). Head to head, the
agent's exact expected winnings per game (seats averaged) against CFR+ of 100 and 1,000
iterations and the 10,000-iteration solution. Data generation reports situations per second.
The agents' strategies and the networks are saved beside the results (``<results stem>_<stack>_<agent>.npz``,
``jaxcfr.kits.strategy_files``). DeepStack-Leduc's published figures are quoted with its
definition (its exploitability is ``NashConv / 2`` times 5/6: its deal weights sum to 30/36).
The results file records the hardware and commit.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

ANTE = 100
DEEPSTACK_LEDUC = {
  "source": "DeepStack-Leduc, doc/manual/tutorial.md (stack 1200, ante 100, pot and all-in bets, fold always)",
  "definition": "Source/Tree/tree_values.lua: mean over both players of best-response minus profile value with "
  "deal weights summing to 30/36, i.e. NashConv/2 x 5/6; chips per game",
  "uniform_reported": 175.0,
  "cfr_1000_iterations_500_skipped_reported": 1.0,
  "resolving_agent_with_its_network_reported": 1.37,
  "conversion_to_nashconv_over_2": 6 / 5,
}


def _profile(rules, iterations: int, leaf_values_of, gadget: str) -> tuple:
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel

  from jaxcfr.solvers import resolving  # pylint: disable=import-outside-toplevel

  return tuple(
    jnp.asarray(resolving.agent_strategy(rules, p, iterations=iterations, leaf_values_of=leaf_values_of, gadget=gadget))
    for p in (0, 1)
  )


def train_network(rules, size: int, args) -> tuple:
  """(network, record): a value network trained on ``size`` situations: with ``--query-rounds``
  R > 0, ``size / 2`` generated ones and, R times, ``size / (2 R)`` of the situations that the
  agent with the network so far asks about (``value_network.agent_queries``, DAgger), solved,
  added, and the network trained again from its initial weights; each time the suits'
  relabellings are added if ``--suit-permutations``. The record has the generation's seconds
  and situations per second, ``training_seconds`` (from the first training to the last, the
  queries' agents and solves included), the losses and, per round, the network's errors on the new queries before it
  trains on them and on held-out generated situations (mean absolute error per chip of the
  pot, on the hands the board leaves possible)."""
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel
  import numpy as np  # pylint: disable=import-outside-toplevel
  import optax  # pylint: disable=import-outside-toplevel

  from jaxcfr.solvers import value_network  # pylint: disable=import-outside-toplevel

  rounds = args.query_rounds
  generated = size // 2 if rounds else size
  seed = size + 1_000_003 * args.seed  # --seed 0: the seeds of the first records
  start = time.perf_counter()
  data = value_network.generate(rules, generated, iterations=args.data_iterations, seed=seed, batch=args.batch)
  record = {"generated": generated, "generation_seconds": time.perf_counter() - start}
  record["situations_per_second"] = generated / record["generation_seconds"]
  held = value_network.generate(rules, min(1000, size), iterations=args.data_iterations, seed=seed + 1)
  rng = np.random.default_rng(seed)

  def fit(data):
    schedule = optax.cosine_decay_schedule(args.learning_rate, args.train_steps) if args.cosine else args.learning_rate
    shown = value_network.with_suit_permutations(rules, data) if args.suit_permutations else data
    net = value_network.init(rules, hidden=tuple(args.hidden), seed=args.seed)
    return value_network.train(
      net,
      shown,
      steps=args.train_steps,
      batch_size=args.train_batch,
      learning_rate=schedule,
      seed=args.seed,
      validation=held,
    )

  def error(net, situations) -> float:  # mean |error| per chip of the pot on the possible hands
    predicted = value_network.predict(net, *(jnp.asarray(x) for x in situations[:3]))
    wrong = np.abs(np.asarray(predicted) - situations.values)
    possible = np.asarray(value_network.possible(net, jnp.asarray(situations.board)))[None]
    return float(wrong[np.broadcast_to(possible, wrong.shape)].mean())

  start = time.perf_counter()
  net, (losses, validation) = fit(data)
  record["queries"] = []
  for round_ in range(rounds):
    wanted = (size - generated) // rounds + (round_ < (size - generated) % rounds)
    which, ranges = value_network.agent_queries(rules, net, iterations=args.query_iterations, every=args.query_every)
    pick = np.sort(rng.choice(len(which), min(wanted, len(which)), replace=False))
    asked = value_network.solve(
      rules, which[pick], ranges[..., pick], iterations=args.data_iterations, batch=args.batch
    )
    record["queries"].append(
      {
        "asked": len(which),
        "kept": len(pick),
        "error_on_them_before_training_on_them": error(net, asked),
        "error_on_generated_held_out": error(net, held),
      }
    )
    data = value_network.concatenate(data, asked)
    net, (losses, validation) = fit(data)
  record["error_on_generated_held_out"] = error(net, held)
  record |= {
    "situations": int(data.pot.shape[0]),
    "training_seconds": time.perf_counter() - start,
    "train_loss_last_100": float(losses[-100:].mean()),
    "validation_loss": float(validation[-1]),
  }
  print(f"network of {size} situations: {record}", flush=True)
  return net, record


def one_stack(stack: int, args, out_dir: Path) -> dict:
  import jax  # pylint: disable=import-outside-toplevel

  from jaxcfr.kits.public_tree import values as ops  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits import strategy_files  # pylint: disable=import-outside-toplevel
  from jaxcfr import kits  # pylint: disable=import-outside-toplevel
  from jaxcfr.solvers import cfr, lookahead, value_network  # pylint: disable=import-outside-toplevel

  name = f"no_limit_leduc_poker(betting=deepstack,stack={stack},ante={ANTE})"
  game = kits.load(name, representation="public_tree")
  rules, whole = game.tree.rules, game.tensors
  exploit = jax.jit(ops.exploitability)
  row = lambda value, seconds: {"chips": value, "mbb_per_game": 1000 * value / ANTE, "seconds": seconds}
  rows = {"uniform": row(float(exploit(whole, ops.uniform_profile(whole))), 0.0)}
  cfr_profiles = {}
  state = cfr.init(whole, **cfr.preset_hyperparameters("cfr+"))
  done, start = 0, time.perf_counter()
  for target in (100, 1000, 10000):
    state = cfr.run(whole, state, target - done, cfr.preset_step("cfr+"))
    done = target
    cfr_profiles[target] = cfr.average_strategy(whole, state)
    rows[f"cfr+_{target}"] = row(float(exploit(whole, cfr_profiles[target])), time.perf_counter() - start)
  exact = {
    "fresh": ("exact", functools.partial(lookahead.exact_leaf_values, iterations=args.leaf_iterations)),
    "warm": ("exact_warm", functools.partial(lookahead.warm_leaf_values, iterations=args.warm_leaf_iterations)),
  }
  agents = dict(exact[kind] for kind in args.leaves)
  data_rows = {}
  for size in args.train_sizes:
    net, data_rows[size] = train_network(rules, size, args)
    value_network.save(out_dir / f"{Path(args.out).stem}_{stack}_value_network_{size}.npz", net)
    leaf_fn = value_network.leaf_fn(net)  # one function: re-solves of one shape share a program
    agents[f"network_{size}"] = lambda tree, fn=leaf_fn: fn
  prefix = Path(args.out).stem
  for agent, leaf_values_of in agents.items():
    for iterations in args.iterations:
      label = agent if iterations == args.iterations[0] else f"{agent}_iterations_{iterations}"
      start = time.perf_counter()
      profile = _profile(rules, iterations, leaf_values_of, args.gadget)
      rows[f"resolving_{label}"] = row(float(exploit(whole, profile)), time.perf_counter() - start)
      strategy_files.save_strategy(out_dir / f"{prefix}_{stack}_{label}.npz", game, profile)
      rows[f"resolving_{label}"]["head_to_head_chips"] = {
        f"cfr+_{t}": float(
          (
            ops.expected_value(whole, (profile[0], cfr_profiles[t][1]))
            - ops.expected_value(whole, (cfr_profiles[t][0], profile[1]))
          )
          / 2
        )
        for t in cfr_profiles
      }
      print(f"stack {stack}, {label}: {rows[f'resolving_{label}']}", flush=True)
  return {"game": name, "ante": ANTE, "exploitability": rows, "value_network_data": data_rows}


def main(argv: list[str] | None = None) -> dict:
  parser = argparse.ArgumentParser(prog="python -m benchmarks resolving", description=__doc__.splitlines()[0])
  ints = lambda text: [int(x) for x in text.split(",") if x]
  words = lambda text: [x.strip() for x in text.split(",") if x.strip()]
  parser.add_argument(
    "--stacks", type=ints, default=[1200, 3600], help="comma-separated stacks (ante 100; 2,400 has 1,200's tree)"
  )
  parser.add_argument(
    "--iterations",
    type=ints,
    default=[1000, 3000],
    help="CFR+ iterations of every solve and re-solve (each agent at each)",
  )
  parser.add_argument(
    "--leaves",
    type=words,
    default=["fresh", "warm"],
    help="exact-leaf agents: fresh (a solve from scratch per call) and warm (lookahead.warm_leaf_values)",
  )
  parser.add_argument("--leaf-iterations", type=int, default=200, help="CFR+ iterations of each fresh leaf solve")
  parser.add_argument("--warm-leaf-iterations", type=int, default=5, help="CFR+ steps of each warm leaf call")
  parser.add_argument("--gadget", default="rm+", help="the gadget of every re-solve (resolving.GADGETS)")
  parser.add_argument("--train-sizes", type=ints, default=[1000, 10000, 100000], help="situations per network")
  parser.add_argument("--data-iterations", type=int, default=1000, help="CFR+ iterations solving each situation")
  parser.add_argument("--batch", type=int, default=4096, help="situations solved as one program")
  parser.add_argument("--hidden", type=ints, default=[50, 50, 50, 50, 50], help="hidden widths (DeepStack-Leduc)")
  parser.add_argument("--train-steps", type=int, default=300000, help="Adam steps")
  parser.add_argument(
    "--query-rounds", type=int, default=3, help="rounds of the agent's own queries added to the data (0: none)"
  )
  parser.add_argument("--query-every", type=int, default=10, help="the leaves of every n-th leaf call are recorded")
  parser.add_argument("--query-iterations", type=int, default=1000, help="CFR+ iterations of the querying agent")
  parser.add_argument(
    "--suit-permutations", action=argparse.BooleanOptionalAction, default=True, help="add the suits' relabellings"
  )
  parser.add_argument(
    "--cosine", action=argparse.BooleanOptionalAction, default=True, help="cosine decay of the learning rate"
  )
  parser.add_argument("--train-batch", type=int, default=100, help="minibatch size (DeepStack-Leduc: 100)")
  parser.add_argument("--learning-rate", type=float, default=1e-3, help="Adam's (DeepStack-Leduc: 0.001)")
  parser.add_argument("--seed", type=int, default=0, help="seed of the networks' data, weights and queries")
  parser.add_argument("--dtype", default="float64", choices=("float32", "float64"), help="of every solve")
  parser.add_argument(
    "--out", default=str(Path(__file__).parent / "results" / "resolving.json"), help="the results file"
  )
  args = parser.parse_args(argv)
  if set(args.leaves) - {"fresh", "warm"}:
    parser.error(f"--leaves: unknown {sorted(set(args.leaves) - {'fresh', 'warm'})}; choose from fresh, warm")
  if args.gadget not in ("rm+", "rm"):
    parser.error(f"--gadget: unknown {args.gadget!r}; choose from rm+, rm")
  import jax  # pylint: disable=import-outside-toplevel

  jax.config.update("jax_enable_x64", args.dtype == "float64")
  out_dir = Path(args.out).parent
  results = {"deepstack_leduc": DEEPSTACK_LEDUC}
  for stack in args.stacks:
    results[f"stack_{stack}"] = one_stack(stack, args, out_dir)
    print(f"stack {stack}: {results[f'stack_{stack}']['exploitability']}", flush=True)
  write_record(
    args.out,
    benchmark="resolving",
    description="Continual re-solving on no-limit Leduc in DeepStack-Leduc's betting: exact exploitability "
    "(NashConv/2, chips and mbb/g with the ante as big blind) of the agent with exact leaf values and with value "
    f"networks, beside CFR+ on the whole game; {args.dtype}, this CPU.",
    configuration=vars(args),
    results=results,
  )
  return results


if __name__ == "__main__":
  main()
