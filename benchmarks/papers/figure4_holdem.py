"""Ponsen et al. 2011 Figure 4 (right) and a crosstable in the spirit of their Tables 1 and 2,
on heads-up limit hold'em with the imperfect-recall abstraction of the paper: equal-width buckets of
exact E[HS] (jaxcfr.kits.card_abstraction.game).

1. A reference strategy, "a pre-learned Nash-equilibrium strategy (using MCCFR with a
   10-bucket discretization)": here chance-sampled CFR (``cfr-cs``, an MCCFR variant of
   Lanctot et al. 2009 that walks the whole betting tree for each sampled deal; it learns
   far faster per second on this CPU than outcome sampling) for --reference-iters iterations.
2. Figure 4 (right): outcome-sampling MCCFR (epsilon 0.6) and MCTS (C = 17) in the 10-bucket
   game, evaluated every --eval-every iterations to --iters in small bets per hand against
   the reference (duplicate deals, expected payoff over the actions; jaxcfr.kits.card_abstraction.match).
   The paper evaluated every 10^6 iterations with 10^5 games (its text does not give the
   runs' total); one CPU core runs about 33,000 outcome-sampling iterations a second
   (``holdem_speed.json``), so 10^7 iterations take about 5 minutes a curve and 10^8 an hour.
3. The crosstable: MCCFR10, MCCFR100, MCTS10, MCRNR10 and MCRNR100 (pConf 0.75, the rule bot
   of the same abstraction as the opponent model sigma_fix: one run restricting each seat), the reference and the rule bot
   (a stand-in for the paper's commercial bots Poki and Sparbot, which we cannot have),
   every pair on --deals duplicate deals, row agent's sb/h with 95% intervals. MCCFR100 runs
   --iters iterations, each MCRNR pair --mcrnr-iters (a pair costs about two runs' time, so
   a 10^8-iteration record may keep the restricted responses shorter).

  python -m benchmarks figure4_holdem [--iters 10000000] [--mcrnr-iters N] [--eval-every 1000000]
                                      [--reference-iters 300000] [--agents-dir DIR]
                                      [--agents A,B] [--train-only]

With --agents-dir, each trained agent is saved there and a saved one (of the same
configuration) is read instead of trained, so training can be shared between processes and
a stopped run resumes. The 10^8-iteration record was made by three processes sharing two
cores (the reference and MCCFR10; MCCFR100 and the MCRNR pairs; MCTS10 once the reference was
saved), then one that played the crosstable:

  ... --agents-dir D --agents reference,MCCFR10 --train-only     (first: the curves need it)
  ... --agents-dir D --agents MCCFR100,MCRNR10,MCRNR100 --train-only
  ... --agents-dir D --agents MCTS10 --train-only                (once D/reference.npz exists)
  ... --agents-dir D

writes benchmarks/papers/results/figure4_holdem.json and .png. Iterations per second are measured
after compilation, on whatever else this machine runs at the time (a shared CPU: see the
record's description).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import jaxcfr
from jaxcfr.kits.card_abstraction import match as holdem_match
from jaxcfr import solvers
from jaxcfr.run import checkpoint

from record import write_record  # noqa: E402  pylint: disable=wrong-import-position


def _timed_run(solver, game, state, n):
  start = time.perf_counter()
  state = jax.block_until_ready(solver.run(game, state, n))
  return state, time.perf_counter() - start


def _first(profile):
  return tuple(t[..., 0] if t.ndim == 3 else t for t in profile)


def run_with_evaluations(solver, game, state, points, evaluate):
  """Runs ``solver`` on from ``state`` (one iteration done) to each iteration count of ``points``
  (increasing, above 1) in turn and calls ``evaluate(iteration, average strategy)`` at each;
  returns the state and the seconds spent running, evaluations excluded."""
  done, run_seconds = 1, 0.0
  for point in points:
    state, seconds = _timed_run(solver, game, state, point - done)
    run_seconds += seconds
    done = point
    evaluate(done, solver.average_strategy(game, state))
  return state, run_seconds


# The trained agents, in the crosstable's order; "reference" is labelled CFR-CS10 there.
AGENTS = ("MCCFR10", "MCTS10", "MCCFR100", "MCRNR10", "MCRNR100", "reference")
CURVES = {"MCCFR10": ("mccfr-os", {"epsilon": 0.6}), "MCTS10": ("mcts", {"uct_c": 17.0})}


def _train(label, game, args, key, reference):
  """Trains one agent on ``game``: (profile, info); info holds "rate" [what, iterations per second]
  and "curve" (Figure 4's evaluations against ``reference()``, or None)."""
  if label == "reference":
    cs = solvers.get("cfr-cs", "card_abstraction")
    state = cs.run(game, cs.init(game, seed=0), 1)  # compile
    state, seconds = _timed_run(cs, game, state, args.reference_iters - 1)
    rate = ["cfr-cs (8 deals per iteration), 10 buckets", (args.reference_iters - 1) / seconds]
    return cs.average_strategy(game, state), {"rate": rate, "curve": None}
  if label in CURVES:
    name, hyper = CURVES[label]
    solver = solvers.get(name, "card_abstraction")
    state = solver.run(game, solver.init(game, seed=0, **hyper), 1)
    rows = []

    def evaluate(iteration, profile):
      rows.append({"iteration": iteration, **holdem_match.match(game, profile, reference(), key, args.deals)})
      print(label, rows[-1], flush=True)

    points = [*range(args.eval_every, args.iters, args.eval_every), args.iters]
    state, run_seconds = run_with_evaluations(solver, game, state, points, evaluate)
    info = {"rate": [f"{name}, 10 buckets", (args.iters - 1) / run_seconds], "curve": rows}
    return solver.average_strategy(game, state), info
  if label == "MCCFR100":
    solver = solvers.get("mccfr-os", "card_abstraction")
    state = solver.run(game, solver.init(game, seed=0), 1)
    state, seconds = _timed_run(solver, game, state, args.iters - 1)
    info = {"rate": ["mccfr-os, 100 buckets", (args.iters - 1) / seconds], "curve": None}
    return solver.average_strategy(game, state), info
  buckets = int(label.removeprefix("MCRNR"))
  profile, seconds = restricted_pair(game, args.mcrnr_iters)
  rate = [f"mcrnr (2 runs: one per restricted seat), {buckets} buckets", 2 * args.mcrnr_iters / seconds]
  return profile, {"rate": rate, "curve": None}


def restricted_pair(game, iters, seed=0):
  """The crosstable's MCRNR agent on ``game``: pConf 0.75, the rule bot of ``game`` as the model, one
  run restricting each seat (sampling seeds 2 seed and 2 seed + 1), ``iters`` iterations. Returns the
  counter-strategy profile (each seat's table from the run that restricts the other) and the seconds run."""
  mcrnr = solvers.get("mcrnr", "card_abstraction")
  bot = holdem_match.rule_bot(game)
  seeds = jnp.array([2 * seed, 2 * seed + 1])
  state = mcrnr.init(game, model=bot, seed=seeds, p=0.75, restricted=jnp.array([1, 0]))
  state, seconds = _timed_run(mcrnr, game, state, iters)
  counter = mcrnr.counter_profile(game, state)
  return (counter[0][..., 0], counter[1][..., 1]), seconds


def against(profile, game, opponent, opponent_game, key, deals):
  """The crosstable's cell: ``profile`` (of ``game``) against ``opponent`` (of ``opponent_game``), row sb/h."""
  return holdem_match.match(game, _first(profile), _first(opponent), key, deals, game_b=opponent_game)


def _agent(label, games, args, key, reference, run_config):
  """``_train(label, ...)``, or the agent saved by an earlier run in --agents-dir (written there
  when trained): runs on two cores can share the training, and a stopped run resumes."""
  path = None if args.agents_dir is None else Path(args.agents_dir) / f"{label}.npz"
  game = games[100 if label.endswith("100") else 10]
  if path is not None and path.exists():
    sampled = solvers.get("mccfr-os", "card_abstraction")
    template = sampled.average_strategy(game, sampled.init(game, seed=0))
    profile, saved = checkpoint.load(path, template)
    if saved.get("configuration") != run_config:
      raise SystemExit(f"--agents-dir: {path} was trained with {saved.get('configuration')}, not {run_config}")
    print(label, "read from", path, flush=True)
    return profile, game, saved["info"]
  profile, info = _train(label, game, args, key, reference)
  if path is not None:
    checkpoint.save(path, profile, {"configuration": run_config, "info": info})
  return profile, game, info


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("--iters", type=int, default=10_000_000)
  parser.add_argument(
    "--mcrnr-iters", type=int, default=None, help="iterations of each MCRNR pair of the crosstable (default: --iters)"
  )
  parser.add_argument("--eval-every", type=int, default=1_000_000)
  parser.add_argument("--reference-iters", type=int, default=300_000)
  parser.add_argument("--deals", type=int, default=4096, help="duplicate deals per evaluation and per crosstable cell")
  parser.add_argument("--out", default="benchmarks/papers/results/figure4_holdem")
  parser.add_argument(
    "--agents-dir",
    default=None,
    help="folder in which each trained agent is saved and from which a saved one is read instead of trained",
  )
  parser.add_argument(
    "--agents",
    type=lambda text: text.split(","),
    default=list(AGENTS),
    help=f"comma-separated agents to train first (default all: {','.join(AGENTS)})",
  )
  parser.add_argument("--train-only", action="store_true", help="stop after training --agents (needs --agents-dir)")
  args = parser.parse_args(argv)
  args.mcrnr_iters = args.iters if args.mcrnr_iters is None else args.mcrnr_iters
  if min(args.iters, args.mcrnr_iters, args.eval_every, args.reference_iters) < 2:
    parser.error("--iters, --mcrnr-iters, --eval-every and --reference-iters must be at least 2")
  unknown = set(args.agents) - set(AGENTS)
  if unknown:
    parser.error(f"--agents: unknown {sorted(unknown)}; choose from {', '.join(AGENTS)}")
  if args.train_only and args.agents_dir is None:
    parser.error("--train-only needs --agents-dir, where the trained agents are saved")
  if args.agents_dir is not None and not Path(args.agents_dir).is_dir():
    parser.error(f"--agents-dir {args.agents_dir} is not an existing folder")
  games = {10: jaxcfr.load("limit_holdem(buckets=10)"), 100: jaxcfr.load("limit_holdem(buckets=100)")}
  key = jax.random.PRNGKey(2011)
  run_config = {k: getattr(args, k) for k in ("iters", "mcrnr_iters", "eval_every", "reference_iters", "deals")}
  trained = {}  # label -> (profile, game, info)

  def agent(label):
    if label not in trained:
      trained[label] = _agent(label, games, args, key, lambda: agent("reference")[0], run_config)
    return trained[label]

  for label in args.agents:
    agent(label)
  if args.train_only:
    return None
  finals = {("CFR-CS10 (reference)" if label == "reference" else label): agent(label)[:2] for label in AGENTS}
  finals["rule bot"] = (holdem_match.rule_bot(games[10]), games[10])
  rates = dict(agent(label)[2]["rate"] for label in AGENTS)
  curves = {label: agent(label)[2]["curve"] for label in ("MCCFR10", "MCTS10")}

  labels = list(finals)
  table = {}
  for i, a in enumerate(labels):
    for b in labels[i + 1 :]:
      (pa, ga), (pb, gb) = finals[a], finals[b]
      result = against(pa, ga, pb, gb, key, args.deals)
      table.setdefault(a, {})[b] = result
      table.setdefault(b, {})[a] = {**result, "sb_per_hand": -result["sb_per_hand"]}
      print(a, "vs", b, result, flush=True)

  description = (
    "Ponsen et al. 2011 Figure 4 (right) and Tables 1-2 in spirit, limit hold'em with the "
    "imperfect-recall abstraction of equal-width buckets of exact E[HS] (the paper's); sb/h of the row agent, duplicate deals, "
    "expected payoff over actions, 95% intervals over deals. The rule bot stands in for the "
    "paper's commercial bots. Agents may have been trained in separate processes, one per core "
    "(--agents-dir); the rates are measured after compilation on whatever else the CPU ran at the time."
  )
  path = write_record(
    f"{args.out}.json",
    benchmark="figure4_holdem",
    description=description,
    configuration={**run_config, "out": args.out},
    results={"iterations_per_second": rates, "figure4_right": curves, "crosstable": table},
  )
  import matplotlib  # pylint: disable=import-outside-toplevel

  matplotlib.use("Agg")
  import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel

  fig, ax = plt.subplots(figsize=(6, 4))
  for label, rows in curves.items():
    x = [r["iteration"] for r in rows]
    y = np.array([r["sb_per_hand"] for r in rows])
    ci = np.array([r["ci95"] for r in rows])
    ax.plot(x, y, marker="o", label=label)
    ax.fill_between(x, y - ci, y + ci, alpha=0.2)
  ax.axhline(0, color="k", lw=0.5)
  ax.set_xlabel("iterations")
  ax.set_ylabel("sb/h against the reference strategy")
  ax.set_title("Limit hold'em, 10 buckets (Ponsen et al. 2011, Fig. 4 right)")
  ax.legend()
  fig.tight_layout()
  fig.savefig(f"{args.out}.png", dpi=120)
  return path


if __name__ == "__main__":
  main()
