"""Johanson, Zinkevich and Bowling, "Computing Robust Counter-Strategies" (NIPS 2007): Tables 1
and 2 and Figure 2 on Leduc poker (frequentist best responses against restricted Nash responses).

The paper plays heads-up limit Texas hold'em against seven programs; limit hold'em opponents
and their best responses are out of reach on a 2-core CPU, so everything here is Leduc poker
(exact values, float64), with opponents of different styles built from the library's solvers:

  CFR(10), CFR(30)  vanilla CFR's average strategy after 10 / 30 iterations: one program at two
                    iteration counts, like the paper's S1239 / S1399 (same method, different
                    numbers of iterations);
  Abstraction J.QK  regression CFR with the tabular abstraction regressor J.QK (Waugh et al.
                    2015: queens and kings indistinguishable), --abstraction-iters iterations,
                    played in the full game;
  Loose             the equilibrium with --loose of every fold probability moved to call;
  Tight             the equilibrium with --tight of the call and raise probability moved to fold
                    wherever a fold is legal (facing a raise);
  Aggressive        the equilibrium with --aggressive of the call probability moved to raise
                    wherever a raise is legal;
  MCTS              information-set MCTS (UCT, C = 2, visit counts), --mcts-sims simulations.
Holdout opponents (Figure 2 only, as the paper's Bluffbot and Monash are in no table):
  MCCFR-OS          outcome-sampling MCCFR's average after --os-iters iterations (seed 0);
  QRE               magnetic mirror descent at temperature --qre-temperature, --qre-iters
                    iterations (a logit quantal-response player).
The equilibrium (the paper's CFR5) is CFR+'s average after --eq-iters iterations.

Counter-strategies, one agent per opponent (a strategy for each seat):
  FBR  (section 4) a frequentist model of each seat of the opponent from --hands sampled hands
       against the paper's probe, "a trivial strategy that calls and raises with equal
       probability" (jaxcfr.evaluate.opponent.action_strategy), observed actions counted per
       infoset and normalised, the call action at infosets never observed (the paper's default),
       then each seat's exact best response to the model (jaxcfr.kits.sequence_form.evaluation.best_response_profile;
       Leduc needs no abstraction: the model lives in the full game).
  RNR  (section 5) restricted Nash responses to the same models (jaxcfr.solvers rnr on CFR+,
       --rnr-iters iterations), every p of --ps for every opponent and seat in one batch. The
       paper's tables give no p: it chose p per opponent "such that the resulting epsilon is close
       to 100 mb/h"; here p is the grid value whose exploitability is closest to --epsilon
       milli-chips per hand (default 200: 100 milli-small-bets per hand with Leduc's first-round
       bet of 2 chips as the small bet).

Tables 1 and 2: each counter-strategy against every opponent and the equilibrium, exact
expected values with seats alternated (jaxcfr.evaluate.head_to_head.crosstable), in
milli-chips per hand (the paper's mb/h is milli-small-bets per hand of hold'em), with the
average over the columns (equilibrium included, as in the paper), the column maxima, the
exact best response to each opponent for reference, and each counter-strategy's
exploitability (NashConv / 2, milli-chips per hand).

Figure 2 (section 6; its code in johanson_figure2.py): UCB1
(jaxcfr.evaluate.experts.ucb1_matches) chooses hand by hand among the FBR experts of the
--training opponents, among their RNR experts, or plays the equilibrium (UCB1 over copies of
it), against the training opponents and the holdout opponents: --matches matches of --match-hands hands in each seat (seat pairs with independent
deals, not duplicate deals), fixed seeds; mean per hand and 95% normal intervals over the
match pairs.

--sensitivity repeats the tables' summary with models from other numbers of observed hands
("exact": the opponent itself as the model, FBR = its best response).

  PYTHONPATH=benchmarks python benchmarks/papers/johanson_tables.py --out benchmarks/papers/results/johanson_tables

writes OUT.json (with date, hardware and commit) and, with matplotlib, OUT_figure2.png.
"""

from __future__ import annotations

import argparse
import time

import jax
import numpy as np

from johanson_figure2 import averages, exact_expert_values, figure2, plot  # noqa: E402  pylint: disable=wrong-import-position
from record import read_record, write_record  # noqa: E402  pylint: disable=wrong-import-position

TABLE_OPPONENTS = ("CFR(10)", "CFR(30)", "Abstraction J.QK", "Loose", "Tight", "Aggressive", "MCTS")
HOLDOUT_OPPONENTS = ("MCCFR-OS", "QRE")
TRAINING = ("CFR(30)", "Abstraction J.QK", "Loose", "MCTS")
EQUILIBRIUM = "Equilibrium"
PS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.93, 0.95, 0.97, 0.99, 1.0)

SIZES = {
  "full": {
    "eq_iters": 2000,
    "abstraction_iters": 300,
    "mcts_sims": 20000,
    "os_iters": 20000,
    "qre_iters": 1000,
    "hands": 100_000,
    "rnr_iters": 2000,
    "ps": PS,
    "match_hands": 1000,
    "matches": 50,
  },
  "smoke": {
    "eq_iters": 100,
    "abstraction_iters": 20,
    "mcts_sims": 500,
    "os_iters": 500,
    "qre_iters": 50,
    "hands": 500,
    "rnr_iters": 50,
    "ps": (0.0, 0.5, 1.0),
    "match_hands": 50,
    "matches": 4,
  },
}
DEFAULTS = {
  "loose": 0.7,
  "tight": 0.3,
  "aggressive": 0.4,
  "qre_temperature": 0.01,
  "epsilon": 200.0,
  "seed": 0,
  "training": TRAINING,
}


def settings(size: str = "full", **overrides) -> dict:
  """The configuration of one run: the sizes of ``size`` ("full" or "smoke") and the defaults,
  with ``overrides``."""
  config = {**SIZES[size], **DEFAULTS}
  unknown = sorted(set(overrides) - set(config) - {"sensitivity"})
  if unknown:
    raise ValueError(f"unknown settings {unknown}")
  return {"sensitivity": (), **config, **overrides}


def shifted(tensors, profile, source, target, fraction: float) -> tuple:
  """``profile`` with ``fraction`` of the probability of the action ids ``source`` moved,
  in equal shares, to the legal action ids of ``target``, at every infoset where one of
  ``target`` is legal (unchanged elsewhere)."""
  out = []
  for player in (0, 1):
    ids = np.asarray(tensors.labels.action_ids(player))
    strategy = np.asarray(profile[player], np.float64)
    to = np.isin(ids, target)
    moved = np.where(np.isin(ids, source) & to.any(1, keepdims=True), fraction * strategy, 0.0)
    share = to / np.maximum(to.sum(1, keepdims=True), 1)
    out.append(strategy - moved + moved.sum(1, keepdims=True) * share)
  return tuple(jax.numpy.asarray(s, tensors.dtype) for s in out)


def opponents(game, config: dict) -> tuple[dict, dict]:
  """({name: profile}, {name: how it is made}) of the equilibrium, the table opponents and the
  holdout opponents."""
  import jaxcfr  # pylint: disable=import-outside-toplevel
  from jaxcfr.evaluate import opponent  # pylint: disable=import-outside-toplevel
  from jaxcfr.games.leduc_poker import CALL, FOLD, RAISE  # pylint: disable=import-outside-toplevel

  tensors = game.tensors
  eq = opponent.fixed_model(game, f"cfr+:{config['eq_iters']}")
  abstraction = jaxcfr.solvers.get("rcfr", regressor="abstraction:J.QK")
  mmd = jaxcfr.solvers.get("mmd")
  profiles = {
    EQUILIBRIUM: eq,
    "CFR(10)": opponent.fixed_model(game, "cfr:10"),
    "CFR(30)": opponent.fixed_model(game, "cfr:30"),
    "Abstraction J.QK": abstraction.average_strategy(
      tensors, abstraction.run(tensors, abstraction.init(tensors), config["abstraction_iters"])
    ),
    "Loose": shifted(tensors, eq, [FOLD], [CALL], config["loose"]),
    "Tight": shifted(tensors, eq, [CALL, RAISE], [FOLD], config["tight"]),
    "Aggressive": shifted(tensors, eq, [CALL], [RAISE], config["aggressive"]),
    "MCTS": opponent.fixed_model(game, f"mcts:{config['mcts_sims']}"),
    "MCCFR-OS": opponent.fixed_model(game, f"mccfr-os:{config['os_iters']}"),
    "QRE": mmd.average_strategy(
      tensors, mmd.run(tensors, mmd.init(tensors, temperature=config["qre_temperature"]), config["qre_iters"])
    ),
  }
  how = {
    EQUILIBRIUM: f"CFR+ average strategy, {config['eq_iters']} iterations (the paper's CFR5)",
    "CFR(10)": "vanilla CFR average strategy, 10 iterations",
    "CFR(30)": "vanilla CFR average strategy, 30 iterations",
    "Abstraction J.QK": f"RCFR with the tabular abstraction regressor J.QK, {config['abstraction_iters']} iterations",
    "Loose": f"the equilibrium with {config['loose']:g} of each fold probability moved to call",
    "Tight": f"the equilibrium with {config['tight']:g} of the call and raise probability moved to fold facing a raise",
    "Aggressive": f"the equilibrium with {config['aggressive']:g} of the call probability moved to raise where legal",
    "MCTS": f"information-set MCTS (UCT, C = 2, visit counts), {config['mcts_sims']} simulations, seed 0",
    "MCCFR-OS": f"outcome-sampling MCCFR average strategy, {config['os_iters']} iterations, seed 0 (holdout)",
    "QRE": f"magnetic mirror descent, temperature {config['qre_temperature']:g}, {config['qre_iters']} iterations "
    "(holdout)",
  }
  return profiles, how


def counter_strategies(tensors, profiles: dict, names, hands, config: dict, key) -> dict:
  """FBR and RNR agents to frequentist models of ``names`` from ``hands`` observed hands per
  seat ("exact": the opponent itself as the model).

  Returns:
    {"fbr": {name: agent}, "rnr": {name: agent}, "p": {name: p}, "rnr_exploitability":
    {name: [milli-chips per hand for every p of config["ps"]]}, "unobserved": {name: share of
    the model's infosets never observed, per seat}}
  """
  import jaxcfr  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits.sequence_form import evaluation  # pylint: disable=import-outside-toplevel
  from jaxcfr.evaluate import opponent  # pylint: disable=import-outside-toplevel
  from jaxcfr.games.leduc_poker import CALL, RAISE  # pylint: disable=import-outside-toplevel

  probe = tuple(opponent.action_strategy(tensors, p, {CALL: 1.0, RAISE: 1.0}) for p in (0, 1))
  default = tuple(opponent.action_strategy(tensors, p, {CALL: 1.0}) for p in (0, 1))
  models, unobserved = {}, {}
  for index, name in enumerate(names):
    if hands == "exact":
      models[name], unobserved[name] = profiles[name], [0.0, 0.0]
      continue
    model_key = jax.random.fold_in(key, index)
    models[name] = opponent.frequentist_profile(tensors, profiles[name], probe, model_key, int(hands), default=default)
    seat_keys = jax.random.split(model_key)
    unobserved[name] = [
      float(
        (
          np.asarray(
            opponent.sample_games(
              tensors, [probe[0], profiles[name][1]] if seat else [profiles[name][0], probe[1]], seat_keys[seat], hands
            )[0][seat]
          ).sum(1)
          == 0
        ).mean()
      )
      for seat in (0, 1)
    ]
  best_response = jax.jit(evaluation.best_response_profile)
  fbr = {name: best_response(tensors, models[name]) for name in names}

  # RNR: [I, A, K opponents, P values of p, 2 restricted seats] in one batch.
  ps = np.asarray(config["ps"], np.float64)
  count, num_p = len(names), len(ps)
  shape = (count, num_p, 2)
  stacked = tuple(np.stack([np.asarray(models[n][seat]) for n in names], -1) for seat in (0, 1))
  model = tuple(np.broadcast_to(s[:, :, :, None, None], s.shape + (num_p, 2)) for s in stacked)
  p = np.broadcast_to(ps[None, :, None], shape)
  restricted = np.broadcast_to(np.array([1, 0])[None, None, :], shape)
  solver = jaxcfr.solvers.get("rnr")
  init = jax.jit(lambda model, p, restricted: solver.init(tensors, model=model, p=p, restricted=restricted))
  state = solver.run(tensors, init(model, p, restricted), config["rnr_iters"])
  average = solver.average_strategy(tensors, state)
  # Seat 0 plays the counter-strategy of the run restricting seat 1, and vice versa.
  agents = (average[0][..., 0], average[1][..., 1])  # each [I, A, K, P]
  exploitability = 1000 * np.asarray(jax.jit(jaxcfr.exploitability)(tensors, agents))  # [K, P]
  rnr, chosen = {}, {}
  for k, name in enumerate(names):
    j = int(np.argmin(np.abs(exploitability[k] - config["epsilon"])))
    chosen[name] = float(ps[j])
    rnr[name] = (agents[0][:, :, k, j], agents[1][:, :, k, j])
  return {
    "fbr": fbr,
    "rnr": rnr,
    "p": chosen,
    "rnr_exploitability": {n: exploitability[k].tolist() for k, n in enumerate(names)},
    "unobserved": unobserved,
  }


def crosstable(tensors, rows: dict, columns: dict) -> np.ndarray:
  """[R, C] exact head-to-head value (milli-chips per hand, seats alternated) of each row
  agent against each column agent."""
  from jaxcfr.evaluate import head_to_head  # pylint: disable=import-outside-toplevel

  agents = list(rows.values()) + list(columns.values())
  table = head_to_head.crosstable(tensors, agents)
  return 1000 * table[: len(rows), len(rows) :]


def table(tensors, kind: str, agents: dict, profiles: dict, names, holdouts, p=None) -> dict:
  """One crosstable (Table 1 or 2): rows = the counter-strategy of each opponent in ``names``
  and the equilibrium; columns = ``names``, the equilibrium; extra columns for ``holdouts``."""
  import jaxcfr  # pylint: disable=import-outside-toplevel

  rows = {f"{kind}-{n}": agents[n] for n in names}
  rows[EQUILIBRIUM] = profiles[EQUILIBRIUM]
  columns = {n: profiles[n] for n in (*names, EQUILIBRIUM, *holdouts)}
  values = crosstable(tensors, rows, columns)
  main = values[:, : len(names) + 1]
  best_values, exploitability = jax.jit(jaxcfr.best_response_values), jax.jit(jaxcfr.exploitability)
  best = {n: 1000 * float(best_values(tensors, profiles[n]).mean()) for n in (*names, *holdouts)}
  out = {
    "rows": list(rows),
    "columns": list(columns),
    "values": values.tolist(),
    "average": main.mean(1).tolist(),
    "column_max": main.max(0).tolist(),
    "best_response": [best.get(n, 0.0) for n in columns],
    "exploitability": [1000 * float(exploitability(tensors, a)) for a in rows.values()],
  }
  if p is not None:
    out["p"] = [p[n] for n in names] + [0.0]
  out["summary"] = summary(values[:, : len(names) + 1], len(names))
  return out


def summary(values: np.ndarray, count: int) -> dict:
  """The finding in numbers, from a table's opponent columns (milli-chips per hand): the
  diagonal (each counter-strategy against its own opponent), the off-diagonal entries, and
  how the counter-strategies compare with the equilibrium row against the same opponents."""
  counters, equilibrium = values[:count, :count], values[count, :count]
  off = ~np.eye(count, dtype=bool)
  below_eq = counters < equilibrium[None, :]
  return {
    "diagonal_mean": float(np.diag(counters).mean()),
    "off_diagonal_mean": float(counters[off].mean()),
    "off_diagonal_min": float(counters[off].min()),
    "off_diagonal_negative": int((counters[off] < 0).sum()),
    "off_diagonal_below_equilibrium": int(below_eq[off].sum()),
    "off_diagonal_count": int(off.sum()),
    "against_equilibrium_mean": float(values[:count, count].mean()),
    "equilibrium_row_mean": float(equilibrium.mean()),
    "row_average_mean": float(values[:count].mean()),
  }


def run(config: dict, log=print) -> dict:
  """Every table and Figure 2 at ``config`` (``settings()``); the results as plain data."""
  import jaxcfr  # pylint: disable=import-outside-toplevel

  start = time.perf_counter()
  game = jaxcfr.load("leduc_poker", dtype="float64")
  tensors = game.tensors
  profiles, how = opponents(game, config)
  log(f"[{time.perf_counter() - start:6.1f} s] opponents built")
  key = jax.random.key(config["seed"])
  counters = counter_strategies(tensors, profiles, TABLE_OPPONENTS, config["hands"], config, jax.random.fold_in(key, 0))
  log(f"[{time.perf_counter() - start:6.1f} s] FBR and RNR counter-strategies")
  table1 = table(tensors, "FBR", counters["fbr"], profiles, TABLE_OPPONENTS, HOLDOUT_OPPONENTS)
  table2 = table(tensors, "RNR", counters["rnr"], profiles, TABLE_OPPONENTS, HOLDOUT_OPPONENTS, counters["p"])
  training = tuple(config["training"])
  expert_sets = {
    "FBR experts": [counters["fbr"][n] for n in training],
    "RNR experts": [counters["rnr"][n] for n in training],
    EQUILIBRIUM: [profiles[EQUILIBRIUM]] * len(training),  # UCB1 over copies: the equilibrium itself
  }
  faced = {n: profiles[n] for n in (*training, *HOLDOUT_OPPONENTS)}
  figure = figure2(tensors, expert_sets, faced, config, jax.random.fold_in(key, 1))
  groups = {"training average": training, "holdout average": HOLDOUT_OPPONENTS}
  log(f"[{time.perf_counter() - start:6.1f} s] Figure 2 matches")
  sensitivity = {}
  for index, hands in enumerate(config["sensitivity"]):
    other = counter_strategies(tensors, profiles, TABLE_OPPONENTS, hands, config, jax.random.fold_in(key, 2 + index))
    sensitivity[str(hands)] = {"p": other["p"], "unobserved": other["unobserved"]}
    for kind in ("fbr", "rnr"):
      result = table(
        tensors, kind.upper(), other[kind], profiles, TABLE_OPPONENTS, (), other["p"] if kind == "rnr" else None
      )
      sensitivity[str(hands)][kind] = {
        **result["summary"],
        "mean_exploitability": float(np.mean(result["exploitability"][:-1])),
        "diagonal": [result["values"][k][k] for k in range(len(TABLE_OPPONENTS))],
      }
    log(f"[{time.perf_counter() - start:6.1f} s] sensitivity: models from {hands} hands")
  return {
    "unit": "milli-chips per hand (thousandths of a chip; Leduc's first-round bet is 2 chips)",
    "opponents": {
      n: {
        "how": how[n],
        "exploitability": 1000 * float(jax.jit(jaxcfr.exploitability)(tensors, profiles[n])),
        "equilibrium_wins": float(crosstable(tensors, {EQUILIBRIUM: profiles[EQUILIBRIUM]}, {n: profiles[n]})[0, 0]),
      }
      for n in profiles
    },
    "models_unobserved_infosets": counters["unobserved"],
    "rnr_p_grid": list(config["ps"]),
    "rnr_exploitability_by_p": counters["rnr_exploitability"],
    "table1_fbr": table1,
    "table2_rnr": table2,
    "figure2": figure,
    "figure2_averages": averages(figure, groups),
    "figure2_exact_expert_values": exact_expert_values((table1, table2), training, faced),
    "sensitivity": sensitivity,
    "seconds": time.perf_counter() - start,
  }


def format_table(result: dict) -> str:
  """A crosstable as text (milli-chips per hand): the opponents and the equilibrium, the
  average over them, exploitability, p (RNR), then the holdout opponents' columns."""
  count = len(result["column_max"])
  columns, holdouts = result["columns"][:count], result["columns"][count:]
  width = max(len(r) for r in result["rows"]) + 2
  head = " " * width + "".join(f"{c[:10]:>11}" for c in columns) + f"{'Average':>11}{'Exploit.':>11}"
  head += f"{'p':>6}" if "p" in result else ""
  head += "  | holdout:" + "".join(f"{c[:10]:>11}" for c in holdouts) if holdouts else ""
  lines = [head]
  for i, row in enumerate(result["rows"]):
    line = f"{row:<{width}}" + "".join(f"{v:11.0f}" for v in result["values"][i][:count])
    line += f"{result['average'][i]:11.0f}{result['exploitability'][i]:11.0f}"
    line += f"{result['p'][i]:6.2f}" if "p" in result else ""
    line += "  |         " + "".join(f"{v:11.0f}" for v in result["values"][i][count:]) if holdouts else ""
    lines.append(line)
  lines.append(f"{'Max':<{width}}" + "".join(f"{v:11.0f}" for v in result["column_max"]))
  best = result["best_response"]
  line = f"{'Best response':<{width}}" + "".join(f"{v:11.0f}" for v in best[:count])
  line += " " * (22 + (6 if "p" in result else 0))
  line += "  |         " + "".join(f"{v:11.0f}" for v in best[count:]) if holdouts else ""
  lines.append(line)
  return "\n".join(lines)


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  full = SIZES["full"]
  parser.add_argument("--hands", type=int, default=full["hands"], help="observed hands per seat of each model")
  parser.add_argument("--rnr-iters", type=int, default=full["rnr_iters"])
  parser.add_argument("--ps", default=",".join(f"{p:g}" for p in PS), help="the p grid of the RNRs")
  parser.add_argument("--epsilon", type=float, default=DEFAULTS["epsilon"], help="target RNR exploitability, mc/h")
  parser.add_argument("--eq-iters", type=int, default=full["eq_iters"])
  parser.add_argument("--abstraction-iters", type=int, default=full["abstraction_iters"])
  parser.add_argument("--mcts-sims", type=int, default=full["mcts_sims"])
  parser.add_argument("--os-iters", type=int, default=full["os_iters"])
  parser.add_argument("--qre-iters", type=int, default=full["qre_iters"])
  parser.add_argument("--qre-temperature", type=float, default=DEFAULTS["qre_temperature"])
  parser.add_argument("--loose", type=float, default=DEFAULTS["loose"])
  parser.add_argument("--tight", type=float, default=DEFAULTS["tight"])
  parser.add_argument("--aggressive", type=float, default=DEFAULTS["aggressive"])
  parser.add_argument("--training", default=",".join(TRAINING), help="Figure 2's training opponents")
  parser.add_argument("--match-hands", type=int, default=full["match_hands"], help="hands per match and seat")
  parser.add_argument("--matches", type=int, default=full["matches"], help="match pairs (one match per seat)")
  parser.add_argument("--seed", type=int, default=DEFAULTS["seed"])
  parser.add_argument("--sensitivity", default="1000,10000,exact", help="other observed-hand counts ('' for none)")
  parser.add_argument("--smoke", action="store_true", help="the notebook's smoke sizes (seconds)")
  parser.add_argument("--out", default="johanson_tables", help="output path without extension")
  args = parser.parse_args(argv)
  training = tuple(args.training.split(","))
  if not set(training) <= set(TABLE_OPPONENTS):
    parser.error(f"--training must name table opponents: {', '.join(TABLE_OPPONENTS)}")
  jax.config.update("jax_enable_x64", True)
  overrides = {
    k: getattr(args, k)
    for k in (
      "hands",
      "rnr_iters",
      "eq_iters",
      "abstraction_iters",
      "mcts_sims",
      "os_iters",
      "qre_iters",
      "qre_temperature",
      "loose",
      "tight",
      "aggressive",
      "match_hands",
      "matches",
      "seed",
      "epsilon",
    )
    if not args.smoke or getattr(args, k) != parser.get_default(k)
  }
  overrides["training"] = training
  if not args.smoke or args.ps != parser.get_default("ps"):
    overrides["ps"] = tuple(float(p) for p in args.ps.split(","))
  overrides["sensitivity"] = tuple(
    s if s == "exact" else int(s) for s in args.sensitivity.split(",") if s and not args.smoke
  )
  config = settings("smoke" if args.smoke else "full", **overrides)
  results = run(config)
  print(f"Table 1 (FBR), {results['unit']}\n" + format_table(results["table1_fbr"]))
  print(f"Table 2 (RNR), {results['unit']}\n" + format_table(results["table2_rnr"]))
  for set_name, groups in results["figure2_averages"].items():
    print(set_name, {g: round(v["mean"]) for g, v in groups.items()})
  figure_path = args.out + "_figure2.png"
  write_record(
    args.out + ".json",
    benchmark="johanson_tables",
    description="Johanson, Zinkevich and Bowling 2007 (Computing Robust Counter-Strategies), Tables 1 "
    "and 2 and Figure 2 on Leduc poker instead of limit hold'em (out of reach on a 2-core CPU): "
    "frequentist best responses and restricted Nash responses to frequentist models of seven "
    "opponents built from the library's solvers, exact crosstables with seats alternated and "
    "exploitabilities in milli-chips per hand (float64), and UCB1 over FBR experts, RNR experts "
    "and an equilibrium against training and holdout opponents from sampled hands (fixed seeds, "
    "95% normal intervals over match pairs)",
    configuration={
      "game": "leduc_poker",
      "dtype": "float64",
      **{k: list(v) if isinstance(v, tuple) else v for k, v in config.items()},
      "table_opponents": list(TABLE_OPPONENTS),
      "holdout_opponents": list(HOLDOUT_OPPONENTS),
      "probe": "calls and raises with equal probability (the call alone where no raise is legal)",
      "model_default": "the call action at infosets never observed",
      "p_rule": "per opponent, the p of the grid whose RNR exploitability is closest to epsilon",
      "figure": figure_path.rsplit("/", 1)[-1],
    },
    results=results,
  )
  plot(results, figure_path, training)
  return read_record(args.out + ".json")


if __name__ == "__main__":
  main()
