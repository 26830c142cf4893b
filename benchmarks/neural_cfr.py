"""Neural CFR on Leduc: deep-cfr, sd-cfr and escher, exploitability against wall time and nodes
touched, a batch of seeds against one seed, and OpenSpiel's JAX Deep CFR beside ours.

Sections (``--sections``, each its own results file ``neural_cfr_SECTION.json``): ``leduc``
the curves with tabular CFR+ and RCFR beside; ``escher`` ESCHER's value network against more value
fitting and against the exact values, for the goal's ten minutes; ``games`` liar's dice, goofspiel(5) and no-limit
Leduc; ``seeds`` Steinberger's five-seed Leduc comparison of Deep CFR and SD-CFR as batches;
``batch`` a batch of seeds against one, with and without the fits; ``peers`` the first record
(``neural_cfr.json``: the curves of the paper's ESCHER values, OpenSpiel, the variances).

Each method runs seed 0 in float32 for ``--seconds`` (escher: ``--escher-seconds``) of training
at most, or until it reaches 20 mbb/g (chunks of ``--chunk`` iterations, one compiled loop
each; ``escher-exact-values`` is escher with the exact history values, an ablation that
separates the estimator from the value network's error); after each chunk the policy is evaluated exactly on the
sequence form (exploitability = NashConv / 2, in mbb/g = chips x 1000): Deep CFR's and ESCHER's
average-strategy networks are fitted then (that fit's time is reported per evaluation, not
added to the training time), SD-CFR's average is the exact mixture of its iterations'
strategies. The time to 100, 50 and 20 mbb/g is the training time at the first evaluation at
or below it (null: not reached in the budget). A batch of ``--batch`` seeds is timed against
one seed over ``--batch-iterations`` iterations after compiling.

OpenSpiel's ``open_spiel.python.jax.deep_cfr.DeepCFRSolver`` (flax.nnx, chex: benchmark-only
installs, ``pip install flax chex``; without them this part records why) runs with its own
defaults except the number of iterations (``--openspiel-iterations``): 20 traversals per
iteration, advantage networks (128, 128) re-initialised and trained 750 full-buffer Adam steps
at 1e-4 per iteration, a policy network (256, 256) trained 5000 steps at the end, a reservoir of
10^6. Our deep-cfr runs the same settings (its one ``hidden`` for both networks: (128, 128);
``memory=0`` keeps every sample, which a 10^6 reservoir does too at these sizes), and then its
own settings until it reaches OpenSpiel's exploitability. OpenSpiel's exploitability is its own
``exploitability.exploitability`` of the tabulated policy.

The per-walk variance of the regret estimates (ESCHER's with exact values against outcome and
external sampling's) on Kuhn and Leduc is recorded too.

    taskset -c 1 python -m benchmarks neural_cfr [--seconds 240] [--openspiel-iterations kuhn_poker=10,...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import jaxcfr  # noqa: E402
from jaxcfr import solvers  # noqa: E402
from record import write_record  # noqa: E402  pylint: disable=wrong-import-position

RESULTS = Path(__file__).resolve().parent / "results"
BATCHED = ("deep-cfr", "sd-cfr", "escher")
TARGETS = (100.0, 50.0, 20.0)
OURS = dict(traversals=1000, steps=300, hidden=(64, 64), warm_start=True)
ESCHER = dict(OURS, policy_steps=2000, value_traversals=1000, value_steps=300)
# the value network on both players' information states, fitted to one-step backups (escher's options)
ESCHER_BACKUP = dict(ESCHER, value_inputs="infostates", value_targets="backup", value_exploration=0.5)
METHODS = {  # label: (solver, options)
  "deep-cfr": ("deep-cfr", dict(OURS, policy_steps=2000)),
  "sd-cfr": ("sd-cfr", OURS),
  "escher": ("escher", ESCHER_BACKUP),
  "escher-paper-values": ("escher", ESCHER),  # the paper's returns on the path features
  "escher-exact-values": ("escher", dict(ESCHER, value_function="exact")),  # ablation: no value-learning error
  # the value network fitted on three times the trajectories, 1000 steps a fit (the escher section)
  "escher-value3k": ("escher", dict(ESCHER_BACKUP, value_traversals=3000, value_steps=1000)),
  "cfr+": ("cfr+", {}),  # tabular, beside the neural ones
  "rcfr": ("rcfr", {}),  # regression CFR with its default regressor
}
# Steinberger 2019's Leduc comparison, with the settings of PokerRL's Leduc example
# (SD-CFR_LEDUC_EXAMPLE: 1500 traversals an iteration, 750 Adam steps an advantage fit; here on
# the weighted full objective, the expectation of its 2048-point minibatches' gradient)
PAPER = dict(traversals=1500, steps=750, hidden=(64, 64), warm_start=True)
OPENSPIEL_DEFAULTS = dict(
  traversals=20, advantage_layers=(128, 128), policy_layers=(256, 256), learning_rate=1e-4, steps=750, policy_steps=5000
)


def _mbb(tensors, solver, state) -> tuple[float, float]:
  """(exploitability in mbb/g, seconds the average strategy took)."""
  start = time.perf_counter()
  profile = jax.block_until_ready(solver.average_strategy(tensors, state))
  fit = time.perf_counter() - start
  return 1e3 * float(jaxcfr.exploitability(tensors, profile)), fit


def _nodes(tensors, solver, state) -> int:
  """Histories touched: the sampling solvers' counter; the full-width ones a pass over every
  history per iteration."""
  counts = solver.counters(state) if solver.counters else {}
  if "nodes_touched" in counts:
    return int(counts["nodes_touched"])
  return int(state.iteration) * int(tensors.tree.parent.shape[0])


def curve(game: str, label: str, seconds: float, chunk: int, learning_rate: float, stop_at=None) -> dict:
  """One run of ``METHODS[label]`` for ``seconds`` of training at most: its curve and times to the targets."""
  name, options = METHODS[label]
  tensors = jaxcfr.load(game, dtype="float32").tensors
  solver = solvers.get(name, **options)
  hyper = {"seed": 0} if "seed" in solver.hyperparameters else {}
  if name in BATCHED:
    hyper["learning_rate"] = learning_rate
  state = solver.init(tensors, **hyper)
  start = time.perf_counter()
  state = jax.block_until_ready(solver.run(tensors, state, chunk))
  compile_s = time.perf_counter() - start  # the first chunk, compile included; not in the curve's time
  _mbb(tensors, solver, state)  # compiles the average strategy
  points, trained = [], 0.0
  while trained < seconds:
    start = time.perf_counter()
    state = jax.block_until_ready(solver.run(tensors, state, chunk))
    trained += time.perf_counter() - start
    mbb, fit = _mbb(tensors, solver, state)
    nodes = _nodes(tensors, solver, state)
    points.append(dict(iteration=int(state.iteration), seconds=trained, nodes_touched=nodes, mbb=mbb, average_s=fit))
    print(
      f"  {label:>8} {game}: it {points[-1]['iteration']:5d} {trained:7.1f} s {nodes:>12,d} nodes {mbb:8.1f} mbb/g",
      flush=True,
    )
    if stop_at is not None and mbb <= stop_at:
      break
  # the first chunk's iterations count: the time per iteration of later chunks stands in for it
  per_iteration = trained / max(points[-1]["iteration"] - chunk, 1)
  for p in points:
    p["seconds"] += per_iteration * chunk
  reach = {f"seconds_to_{int(t)}_mbb": next((p["seconds"] for p in points if p["mbb"] <= t), None) for t in TARGETS}
  return dict(
    method=label,
    solver=name,
    game=game,
    options={k: list(v) if isinstance(v, tuple) else v for k, v in options.items()},
    learning_rate=learning_rate,
    first_chunk_with_compile_s=compile_s,
    seconds_per_iteration=per_iteration,
    final_mbb=points[-1]["mbb"],
    best_mbb=min(p["mbb"] for p in points),
    **reach,
    curve=points,
  )


def batch_cost(game: str, label: str, batch: int, iterations: int) -> dict:
  """Seconds per iteration of one seed and of ``batch`` seeds in one program (after compiling)."""
  name, options = METHODS[label]
  tensors = jaxcfr.load(game, dtype="float32").tensors
  solver = solvers.get(name, **options)
  out = {"method": label, "game": game, "iterations_timed": iterations}
  for runs in (1, batch):
    state = solver.init(tensors, seed=0 if runs == 1 else jnp.arange(runs))
    state = jax.block_until_ready(solver.run(tensors, state, 1))  # compile
    start = time.perf_counter()
    jax.block_until_ready(solver.run(tensors, state, iterations))
    out[f"seconds_per_iteration_{runs}_seeds"] = (time.perf_counter() - start) / iterations
  out["batch_over_one"] = out[f"seconds_per_iteration_{batch}_seeds"] / out["seconds_per_iteration_1_seeds"]
  print(f"  {label:>8} {game}: a batch of {batch} seeds costs {out['batch_over_one']:.2f}x one seed", flush=True)
  return out


def matched(game: str, iterations: int) -> dict:
  """Our deep-cfr with OpenSpiel's defaults for ``iterations`` iterations (policy fit included)."""
  d = OPENSPIEL_DEFAULTS
  tensors = jaxcfr.load(game, dtype="float32").tensors
  solver = solvers.get(
    "deep-cfr",
    traversals=d["traversals"],
    hidden=d["advantage_layers"],
    steps=d["steps"],
    policy_steps=d["policy_steps"],
  )
  state = solver.init(tensors, seed=0, learning_rate=d["learning_rate"])
  jax.block_until_ready(solver.average_strategy(tensors, solver.run(tensors, state, 1)))  # compile both programs
  start = time.perf_counter()
  state = solver.run(tensors, state, iterations)
  profile = jax.block_until_ready(solver.average_strategy(tensors, state))
  seconds = time.perf_counter() - start
  mbb = 1e3 * float(jaxcfr.exploitability(tensors, profile))
  print(f"  jaxcfr deep-cfr {game} with OpenSpiel's settings: {seconds:.1f} s {mbb:.1f} mbb/g", flush=True)
  return {"game": game, "iterations": iterations, "seconds_with_policy_fit": seconds, "mbb": mbb}


def _random_profile(tensors, seed: int):
  """A profile with random rows over the legal actions (a strategy in mid-run)."""
  key = jax.random.key(seed)
  out = []
  for p, tp in enumerate(tensors.players):
    w = jax.random.uniform(jax.random.fold_in(key, p), tp.legal.shape, tensors.dtype) ** 2 * tp.legal
    out.append(w / w.sum(-1, keepdims=True))
  return tuple(out)


def variance(game: str, draws: int, epsilon: float = 0.6) -> dict:
  """Per-walk variance of three estimates of the counterfactual regrets ``r(I, a)`` of a random
  profile (both players, summed over (I, a)): ESCHER's with the exact history values, divided by
  the uniform policy's reach of I (its expectation is then ``r``); outcome sampling's (Lanctot et
  al. 2009, exploring with ``epsilon`` at the updating player); external sampling's (Deep CFR's)."""
  from jaxcfr.kits.sequence_form import evaluation  # pylint: disable=import-outside-toplevel
  from jaxcfr.solvers import deep_cfr, escher, outcome_sampling  # pylint: disable=import-outside-toplevel

  tensors = jaxcfr.load(game, dtype="float32").tensors
  profile = _random_profile(tensors, 7)
  values = escher.history_values(tensors, profile)
  out = {"game": game, "draws": draws, "epsilon": epsilon}
  totals = {"escher_exact_values": 0.0, "outcome_sampling": 0.0, "external_sampling": 0.0}
  nodes = dict.fromkeys(totals, 0.0)
  for player in (0, 1):
    treeplex = tensors.players[player]
    n = treeplex.num_infosets
    xi = evaluation.realization_plan(treeplex, evaluation.uniform_strategy(treeplex, tensors.dtype))
    xi = xi[treeplex.parent_seq][:, None]

    def table(index, rows):
      return jnp.einsum("ri,ra->ia", jax.nn.one_hot(index, n, dtype=rows.dtype), rows)

    def one(key, player=player, table=table, xi=xi):
      raw = jax.random.key_data(key)
      e = escher.regret_samples(tensors, profile, values, raw, player, 1)
      paths = outcome_sampling.sample_trajectories(tensors, profile, raw, 1, player=player, epsilon=epsilon)
      os_ = outcome_sampling.outcome_sampling_estimate(tensors, profile, paths, player=player)
      es = deep_cfr.external_walks(tensors, profile, key, player, 1)
      return (
        (table(e.index.reshape(-1), e.regret.reshape(-1, e.regret.shape[-1])) / xi, e.nodes_touched),
        (os_.regret, os_.nodes_touched),
        (table(es.index.reshape(-1), es.regret.reshape(-1, es.regret.shape[-1])), es.nodes_touched.sum()),
      )

    keys = jax.random.split(jax.random.key(11 + player), draws)
    results = jax.jit(jax.vmap(one))(keys)
    for name, (estimate, touched) in zip(totals, results):
      totals[name] += float(jnp.var(estimate, axis=0, ddof=1).sum())
      nodes[name] += float(jnp.mean(touched)) / 2
  for name in totals:
    out[name] = {"variance_sum_over_infoset_actions": totals[name], "nodes_per_walk": nodes[name]}
  print(f"  regret-estimate variance on {game}: " + ", ".join(f"{k} {v:.3g}" for k, v in totals.items()), flush=True)
  return out


T_975 = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776, 6: 2.571, 8: 2.365, 10: 2.262}  # Student t, n - 1 = key - 1


def _interval(values) -> dict:
  """mean and its 95% Student-t interval over runs."""
  x = np.asarray(values, float)
  half = T_975[len(x)] * x.std(ddof=1) / np.sqrt(len(x))
  return {"mean": float(x.mean()), "low": float(x.mean() - half), "high": float(x.mean() + half), "runs": x.tolist()}


def seeds_comparison(game: str, seeds: int, iterations: int, every: int) -> dict:
  """Steinberger 2019's comparison: deep-cfr's average network against sd-cfr's exact mixture
  over ``seeds`` seeds run as one batch each, ``PAPER``'s settings, evaluated every ``every``
  iterations; per evaluation each method's mean with a 95% interval and the paired difference."""
  tensors = jaxcfr.load(game, dtype="float32").tensors
  out = {"game": game, "seeds": list(range(seeds)), "options": _plain(PAPER), "evaluations": []}
  runs = {}
  for name in ("deep-cfr", "sd-cfr"):
    solver = solvers.get(name, **PAPER) if name == "sd-cfr" else solvers.get(name, **PAPER, policy_steps=4000)
    state = solver.init(tensors, seed=jnp.arange(seeds))
    curve_, trained = [], 0.0
    while int(state.iteration[0]) < iterations:
      start = time.perf_counter()
      state = jax.block_until_ready(solver.run(tensors, state, every))
      trained += time.perf_counter() - start
      profile = solver.average_strategy(tensors, state)
      mbb = [1e3 * float(jaxcfr.exploitability(tensors, tuple(x[..., b] for x in profile))) for b in range(seeds)]
      curve_.append({"iteration": int(state.iteration[0]), "seconds_batch": trained, "mbb": mbb})
      print(
        f"  {name} {seeds} seeds it {curve_[-1]['iteration']}: {np.mean(mbb):.1f} mbb/g ({trained:.0f} s)", flush=True
      )
    runs[name] = curve_
  for deep, single in zip(runs["deep-cfr"], runs["sd-cfr"]):
    difference = np.subtract(deep["mbb"], single["mbb"])
    out["evaluations"].append(
      {
        "iteration": deep["iteration"],
        "deep_cfr_mbb": _interval(deep["mbb"]),
        "sd_cfr_mbb": _interval(single["mbb"]),
        "deep_minus_sd_mbb": _interval(difference),
        "sd_cfr_below_in_seeds": int((difference > 0).sum()),
      }
    )
  last = out["evaluations"][-1]
  out["sd_cfr_below_deep_cfr_at_the_end"] = bool(last["deep_minus_sd_mbb"]["low"] > 0)
  out["seconds_per_iteration_batch"] = {k: v[-1]["seconds_batch"] / v[-1]["iteration"] for k, v in runs.items()}
  return out


def batch_profile(game: str, label: str, batch: int, iterations: int) -> dict:
  """Where a batch's time goes: ``batch_cost`` with the method's settings, and with every fit cut
  to one optimiser step (the walks, memories and table evaluations alone)."""
  name, options = METHODS[label]
  walks_only = dict(options, steps=1)
  if name == "escher":
    walks_only["value_steps"] = 1
  out = {"full": batch_cost(game, label, batch, iterations)}
  METHODS[f"{label} (walks only)"] = (name, walks_only)
  out["walks_only"] = batch_cost(game, f"{label} (walks only)", batch, iterations)
  del METHODS[f"{label} (walks only)"]
  for runs in ("1", str(batch)):
    key = f"seconds_per_iteration_{runs}_seeds"
    out[f"fit_share_{runs}_seeds"] = 1 - out["walks_only"][key] / out["full"][key]
  return out


def _argv() -> list:
  """The command line's arguments from the script's name on."""
  args = sys.argv[1:]
  return args if args[:1] == ["neural_cfr"] else ["neural_cfr"] + args


def _plain(options: dict) -> dict:
  return {k: list(v) if isinstance(v, tuple) else v for k, v in options.items()}


LOAD = (
  " Ran pinned to one core (taskset -c 1) of the 2-core CPU, which other engineers' jobs share: absolute "
  "times are under that load, ratios are taken in one run."
)


def peers_section(args) -> None:
  """The first record (neural_cfr.json): curves, batches, the regret variances and OpenSpiel."""
  methods = ["deep-cfr", "sd-cfr", "escher-paper-values", "escher-exact-values"]
  variances = [variance(game, args.variance_draws) for game in ("kuhn_poker", "leduc_poker")]
  budget = {m: args.escher_seconds if m.startswith("escher") else args.seconds for m in methods}
  curves = [curve(args.game, m, budget[m], args.chunk, args.learning_rate, min(TARGETS)) for m in methods]
  # each batched solver once (ESCHER with the paper's values; the exact values are an ablation)
  batches = [batch_cost(args.game, m, args.batch, args.batch_iterations) for m in methods[:3]]
  from neural_cfr_peers import openspiel  # pylint: disable=import-outside-toplevel  (it imports this module)

  os_iterations = dict(item.split("=") for item in args.openspiel_iterations.split(","))
  peers = []
  for game in args.openspiel_games.split(",") if args.openspiel_games else ():
    theirs = openspiel(game, int(os_iterations[game]))
    row = {"openspiel": theirs}
    if theirs["ran"]:
      row["jaxcfr_same_settings"] = matched(game, int(os_iterations[game]))
      own = curve(game, "deep-cfr", args.seconds, args.chunk, args.learning_rate, theirs["mbb"])
      row["jaxcfr_own_settings_to_openspiel_mbb"] = {
        k: own[k] for k in ("seconds_per_iteration", "final_mbb", "first_chunk_with_compile_s")
      } | {"seconds": own["curve"][-1]["seconds"], "reached": own["final_mbb"] <= theirs["mbb"]}
      row["wall_time_ratio_same_settings"] = (
        theirs["seconds_with_policy_fit"] / row["jaxcfr_same_settings"]["seconds_with_policy_fit"]
      )
    peers.append(row)
  path = write_record(
    args.out,
    benchmark="neural_cfr",
    configuration={
      "section": "peers",
      "command": "python -m benchmarks " + " ".join(_argv()),
      "game": args.game,
      "dtype": "float32",
      "seed": 0,
      "training_seconds_per_method": args.seconds,
      "iterations_per_evaluation": args.chunk,
      "learning_rate": args.learning_rate,
      "methods": {
        m: {"solver": METHODS[m][0]} | {k: list(v) if isinstance(v, tuple) else v for k, v in METHODS[m][1].items()}
        for m in methods
      },
      "escher_training_seconds": args.escher_seconds,
      "batch": args.batch,
      "openspiel_defaults": {k: list(v) if isinstance(v, tuple) else v for k, v in OPENSPIEL_DEFAULTS.items()},
      "openspiel_iterations": os_iterations,
    },
    results={"curves": curves, "batch": batches, "openspiel": peers, "regret_variance": variances},
    description=(
      "Exploitability (NashConv / 2, mbb/g) of deep-cfr, sd-cfr and escher against training wall time and "
      "nodes touched (histories on the sampled walks) on one seed, exact on the sequence form; time to 100, 50 "
      "and 20 mbb/g; seconds per iteration of a batch of seeds against one; OpenSpiel's JAX Deep CFR with its "
      "defaults beside ours with the same settings, in one run; the per-walk variance of ESCHER's regret estimate "
      "(exact history values, rescaled to the counterfactual regret) against outcome and external sampling's. Ran "
      "pinned to one core of the 2-core CPU, which other jobs share: absolute times are under that load, the ratios "
      "are taken in one run."
    ),
  )
  print(f"wrote {path}")


def main(argv=None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument(
    "--sections", default="leduc,games,seeds,batch", help="of leduc, escher, games, seeds, batch, peers"
  )
  parser.add_argument("--game", default="leduc_poker")
  parser.add_argument("--seconds", type=float, default=240.0, help="training seconds per method (at most)")
  parser.add_argument("--escher-seconds", type=float, default=120.0, help="peers: the same for escher's runs")
  parser.add_argument("--chunk", type=int, default=40, help="iterations between evaluations")
  parser.add_argument("--learning-rate", type=float, default=1e-3)
  parser.add_argument("--methods", default="deep-cfr,sd-cfr,escher,cfr+,rcfr", help="leduc: the curves' methods")
  parser.add_argument("--escher-methods", default="escher,escher-value3k,escher-exact-values", help="escher section")
  parser.add_argument("--escher-variant-seconds", type=float, default=600.0, help="escher: training seconds each")
  parser.add_argument("--games", default="liars_dice;goofspiel(num_cards=5);no_limit_leduc_poker(stack=6)")
  parser.add_argument("--game-methods", default="deep-cfr,sd-cfr,escher")
  parser.add_argument("--game-seconds", type=float, default=60.0)
  parser.add_argument("--game-chunk", type=int, default=10)
  parser.add_argument("--seeds", type=int, default=5, help="seeds: runs of each method (one batch)")
  parser.add_argument("--seed-iterations", type=int, default=200)
  parser.add_argument("--seed-every", type=int, default=50)
  parser.add_argument("--batch", type=int, default=8)
  parser.add_argument("--batch-iterations", type=int, default=5)
  parser.add_argument("--openspiel-games", default="kuhn_poker,leduc_poker")
  parser.add_argument("--openspiel-iterations", default="kuhn_poker=10,leduc_poker=4")
  parser.add_argument("--variance-draws", type=int, default=20000)
  parser.add_argument("--out", default=str(RESULTS / "neural_cfr.json"), help="peers' file")
  parser.add_argument("--out-dir", default=str(RESULTS), help="the other sections' files: neural_cfr_SECTION.json")
  args = parser.parse_args(argv)
  sections = args.sections.split(",")
  common = {"dtype": "float32", "learning_rate": args.learning_rate}

  def save(out: str, section: str, configuration: dict, results, description: str) -> None:
    """One section's results file (benchmarks/record.py), with the command that ran it."""
    command = {"section": section, "command": "python -m benchmarks " + " ".join(_argv())}
    path = write_record(
      out, benchmark="neural_cfr", description=description, configuration=command | configuration, results=results
    )
    print(f"wrote {path}", flush=True)

  def curves_file(section: str, methods: list, seconds: float, description: str) -> None:
    """Leduc curves of ``methods`` (seed 0, until 20 mbb/g or ``seconds``) in neural_cfr_SECTION.json."""
    curves = [curve(args.game, m, seconds, args.chunk, args.learning_rate, min(TARGETS)) for m in methods]
    configuration = {"game": args.game, "seed": 0, "training_seconds_per_method": seconds}
    configuration |= {"iterations_per_evaluation": args.chunk}
    configuration |= {"methods": {m: {"solver": METHODS[m][0]} | _plain(METHODS[m][1]) for m in methods}}
    save(f"{args.out_dir}/neural_cfr_{section}.json", section, common | configuration, {"curves": curves}, description)

  if "leduc" in sections:
    curves_file(
      "leduc",
      args.methods.split(","),
      args.seconds,
      "Exploitability (NashConv / 2, mbb/g, exact on the sequence form) of deep-cfr, sd-cfr and escher (its value "
      "network on both players' information states, fitted to one-step backups), with tabular CFR+ and RCFR beside "
      "them, against training wall time and nodes touched (histories on the sampled walks; a pass over every history "
      "per iteration for the full-width solvers), seed 0, until 20 mbb/g or the budget; times to 100, 50 and 20 "
      "mbb/g." + LOAD,
    )
  if "escher" in sections:
    curves_file(
      "escher",
      args.escher_methods.split(","),
      args.escher_variant_seconds,
      "ESCHER on Leduc for the goal's ten minutes: its default value network (both players' information states, "
      "one-step backups), the same fitted on three times the trajectories with 1000 steps a fit, and the exact "
      "history values (no value-learning error: the estimator alone); seed 0, until 20 mbb/g or the budget, "
      "exploitability exact on the sequence form (mbb/g); times to 100, 50 and 20 mbb/g." + LOAD,
    )
  if "games" in sections:
    games = args.games.split(";")
    methods = args.game_methods.split(",")
    curves = [curve(g, m, args.game_seconds, args.game_chunk, args.learning_rate) for g in games for m in methods]
    save(
      f"{args.out_dir}/neural_cfr_games.json",
      "games",
      common
      | {"games": games, "seed": 0, "training_seconds_per_method": args.game_seconds}
      | {"iterations_per_evaluation": args.game_chunk}
      | {"methods": {m: {"solver": METHODS[m][0]} | _plain(METHODS[m][1]) for m in methods}},
      {"curves": curves},
      "Exact exploitability (NashConv / 2, milli-units of the game's payoff per game) of deep-cfr, sd-cfr and "
      "escher against training wall time and nodes touched on liar's dice, goofspiel(5) and no-limit Leduc, seed "
      "0, a fixed budget each." + LOAD,
    )
  if "seeds" in sections:
    result = seeds_comparison(args.game, args.seeds, args.seed_iterations, args.seed_every)
    save(
      f"{args.out_dir}/neural_cfr_seeds.json",
      "seeds",
      common
      | {"game": args.game, "seeds": args.seeds, "iterations": args.seed_iterations}
      | {"every": args.seed_every, "options": _plain(PAPER), "deep_cfr_policy_steps": 4000},
      result,
      "Steinberger 2019's Leduc comparison: deep-cfr's average-strategy network against sd-cfr's exact mixture, "
      "seeds 0-4 as one batch per method, with PokerRL's Leduc example's traversals and fit steps; per "
      "evaluation each method's mean exploitability (mbb/g) with a 95% Student-t interval over the seeds and the "
      "paired difference." + LOAD,
    )
  if "batch" in sections:
    rows = [batch_profile(args.game, m, args.batch, args.batch_iterations) for m in BATCHED]
    save(
      f"{args.out_dir}/neural_cfr_batch.json",
      "batch",
      common
      | {"game": args.game, "batch": args.batch, "iterations_timed": args.batch_iterations}
      | {"seeds": {"one_run": [0], "batch": list(range(args.batch))}}
      | {"methods": {m: _plain(METHODS[m][1]) for m in BATCHED}},
      {"methods": rows},
      "Seconds per iteration of a batch of seeds in one program against one seed (after compiling), with each "
      "method's settings and with every fit cut to one optimiser step (the walks, memories and network "
      "evaluations alone), so that the fits' share of the time is the difference." + LOAD,
    )
  if "peers" in sections:
    peers_section(args)


if __name__ == "__main__":
  main()
