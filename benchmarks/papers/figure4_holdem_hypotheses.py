"""Tests of causes for Ponsen et al. 2011 Figure 4 (right) in limit hold'em (10 buckets): the paper's
MCTS10 is ahead of MCCFR10 early, where figure4_holdem.json's MCTS10 never leads. Each suspected
factor is varied on its own, with the training seed repeated:

- the exploration constant C of MCTS10 (the paper's 17, "the best of several"): --uct-c;
- the first evaluation (the paper's and figure4_holdem.json's is at 10^6 iterations): --points,
  earlier ones;
- the reference strategy: chance-sampled CFR (figure4_holdem.py's) after --reference-iters and
  after the shorter --short-reference-iters (a snapshot of the same run), and outcome-sampling
  MCCFR10 (epsilon 0.6, the paper's kind of reference) after --mccfr-reference-iters;
- the seed: every agent runs once per seed of --seeds.

Every agent is evaluated at every point against every reference on the same --deals duplicate
deals (figure4_holdem.py's match and key), and each point's sb/h is summarised over the seeds (mean
and 95% t interval). The answers: at each (reference, point), whether some C makes MCTS10's mean
lead MCCFR10's, and for how many seeds MCTS10 leads MCCFR10 run with the same seed.

  python -m benchmarks figure4_holdem_hypotheses [--seeds 0,1,2,3] [--uct-c 5,10,17,30,60]
      [--points 10000,30000,100000,300000,1000000] [--deals 2048] [--merge]

writes benchmarks/papers/results/figure4_holdem_hypotheses.json and .png. With --merge, the
--uct-c constants are added to the record already at --out (run with the same seeds, points,
deals and references): the references are trained again, MCCFR10 is run again with the first
seed only, as a check that they are the record's (its sb/h against every reference at every
point must be the record's), the record's curves are kept, and the summaries and answers are
computed over all the constants; configuration's "runs" says which constants each commit ran.
"""

from __future__ import annotations

import argparse
import time

import jax
import numpy as np

import jaxcfr
from jaxcfr import solvers
from jaxcfr.kits.card_abstraction import match as holdem_match

import figure4_holdem  # noqa: E402  pylint: disable=wrong-import-position
from record import read_record, stamp, write_record  # noqa: E402  pylint: disable=wrong-import-position
from seed_statistics import over_seeds  # noqa: E402  pylint: disable=wrong-import-position

MCCFR_LABEL = "MCCFR10"
REFERENCE_SEED = 100  # the MCCFR10 reference's own seed, apart from the agents'


def _integers(text: str) -> list:
  return [int(float(part)) for part in text.split(",")]


def _constants(text: str) -> list:
  return [float(part) for part in text.split(",")]


def mcts_label(uct_c: float) -> str:
  return f"MCTS10 (C = {uct_c:g})"


def train_references(game, args) -> tuple:
  """The reference strategies, name -> average profile, and the seconds each run took."""
  references, seconds = {}, {}
  cfr_cs = solvers.get("cfr-cs", "card_abstraction")
  state = cfr_cs.run(game, cfr_cs.init(game, seed=0), 1)

  def keep_cfr_cs(iteration, profile):
    references[f"CFR-CS10 after {iteration:,}"] = profile

  points = [args.short_reference_iters, args.reference_iters]
  _, seconds["CFR-CS10"] = figure4_holdem.run_with_evaluations(cfr_cs, game, state, points, keep_cfr_cs)
  name, hyper = figure4_holdem.CURVES[MCCFR_LABEL]
  mccfr = solvers.get(name, "card_abstraction")
  state = mccfr.run(game, mccfr.init(game, seed=REFERENCE_SEED, **hyper), 1)

  def keep_mccfr(iteration, profile):
    references[f"MCCFR10 after {iteration:,}"] = profile

  points = [args.mccfr_reference_iters]
  _, seconds["MCCFR10"] = figure4_holdem.run_with_evaluations(mccfr, game, state, points, keep_mccfr)
  return references, seconds


def agents(uct_constants: list) -> dict:
  """Label -> (solver name, hyperparameters): MCCFR10 as in figure4_holdem.py and MCTS10 at each C."""
  found = {MCCFR_LABEL: figure4_holdem.CURVES[MCCFR_LABEL]}
  name, hyper = figure4_holdem.CURVES["MCTS10"]
  for uct_c in uct_constants:
    found[mcts_label(uct_c)] = (name, {**hyper, "uct_c": uct_c})
  return found


# What a merged run must share with the record it extends.
SHARED = ("seeds", "points", "deals", "reference_iters", "short_reference_iters", "mccfr_reference_iters")
CHECK_TOLERANCE = 1e-6  # sb/h; the check's largest difference is recorded


def ordered(curves: dict) -> dict:
  """``curves`` with MCCFR10 first and MCTS10 by increasing C."""
  constant = {
    mcts_label(c): c for c in (float(label[len("MCTS10 (C = ") : -1]) for label in curves if label != MCCFR_LABEL)
  }
  return {label: curves[label] for label in [MCCFR_LABEL, *sorted(constant, key=constant.get)]}


def check_against(earlier: dict, rows: dict, seed: int) -> float:
  """The largest difference of MCCFR10's sb/h at ``seed`` (``rows``) from the record ``earlier``'s;
  SystemExit when above CHECK_TOLERANCE (the references are not the record's)."""
  recorded = earlier["results"]["curves"][MCCFR_LABEL][str(seed)]
  if set(recorded) != set(rows):
    raise SystemExit(f"--merge: references {sorted(rows)} are not the record's {sorted(recorded)}")
  largest = max(abs(a["sb_per_hand"] - b["sb_per_hand"]) for r in rows for a, b in zip(rows[r], recorded[r]))
  if largest > CHECK_TOLERANCE:
    raise SystemExit(f"--merge: MCCFR10 seed {seed} differs from the record by {largest:g} sb/h; references differ")
  return largest


def curve(game, name, hyper, seed, points, references, key, deals) -> tuple:
  """One agent's run with ``seed``: {reference: [{iteration, sb_per_hand, ci95, deals}]} and its
  seconds of running."""
  solver = solvers.get(name, "card_abstraction")
  state = solver.run(game, solver.init(game, seed=seed, **hyper), 1)
  rows = {reference: [] for reference in references}

  def evaluate(iteration, profile):
    for reference, reference_profile in references.items():
      result = holdem_match.match(game, profile, reference_profile, key, deals)
      rows[reference].append({"iteration": iteration, **result})
    print(name, hyper, seed, iteration, {r: round(v[-1]["sb_per_hand"], 4) for r, v in rows.items()}, flush=True)

  _, seconds = figure4_holdem.run_with_evaluations(solver, game, state, points, evaluate)
  return rows, seconds


def summarise(curves: dict, references: list, points: list) -> dict:
  """{reference: {agent: [{iteration, mean, ci95, per_seed}]}} from curves[agent][seed][reference]."""
  summary = {}
  for reference in references:
    for label, by_seed in curves.items():
      rows = []
      for k, iteration in enumerate(points):
        values = [runs[reference][k]["sb_per_hand"] for runs in by_seed.values()]
        rows.append({"iteration": iteration, **over_seeds(values, test=None)})
      summary.setdefault(reference, {})[label] = rows
  return summary


def hypotheses(summary: dict, points: list) -> dict:
  """The answers, per reference and point: the MCTS10 constants whose mean leads MCCFR10's, the best
  constant and its margin, and per constant the seeds at which MCTS10 leads MCCFR10 of the same seed."""
  answers = {}
  for reference, by_agent in summary.items():
    mccfr = by_agent[MCCFR_LABEL]
    rows = []
    for k, iteration in enumerate(points):
      mcts = {label: rows_[k] for label, rows_ in by_agent.items() if label != MCCFR_LABEL}
      best = max(mcts, key=lambda label: mcts[label]["mean"])
      rows.append(
        {
          "iteration": iteration,
          "mcts_constants_leading_by_mean": [label for label, row in mcts.items() if row["mean"] > mccfr[k]["mean"]],
          "best_mcts": best,
          "best_mcts_minus_mccfr": mcts[best]["mean"] - mccfr[k]["mean"],
          "seeds_mcts_leads": {
            label: int(sum(a > b for a, b in zip(row["per_seed"], mccfr[k]["per_seed"]))) for label, row in mcts.items()
          },
        }
      )
    answers[reference] = rows
  return answers


def plot(summary: dict, out: str) -> None:
  import matplotlib  # pylint: disable=import-outside-toplevel

  matplotlib.use("Agg")
  import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel

  fig, axes = plt.subplots(1, len(summary), figsize=(5 * len(summary), 4), sharey=True, squeeze=False)
  for ax, (reference, by_agent) in zip(axes[0], summary.items()):
    for label, rows in by_agent.items():
      x = [row["iteration"] for row in rows]
      y = np.array([row["mean"] for row in rows])
      low, high = np.array([row["ci95"] for row in rows]).T
      style = {"color": "k", "lw": 2} if label == MCCFR_LABEL else {}
      ax.plot(x, y, marker="o", label=label, **style)
      ax.fill_between(x, low, high, alpha=0.15, **({"color": "k"} if label == MCCFR_LABEL else {}))
    ax.set_xscale("log")
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("iterations")
    ax.set_title(f"against {reference}", fontsize=9)
  axes[0][0].set_ylabel("sb/h, mean over seeds (95% interval)")
  axes[0][0].legend(fontsize=8)
  fig.suptitle("Limit hold'em, 10 buckets: causes for Ponsen et al. 2011 Fig. 4 (right)", fontsize=10)
  fig.tight_layout()
  fig.savefig(f"{out}.png", dpi=110)


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("--seeds", type=_integers, default=[0, 1, 2, 3])
  parser.add_argument("--uct-c", type=_constants, default=[5.0, 10.0, 17.0, 30.0, 60.0])
  parser.add_argument("--points", type=_integers, default=[10_000, 30_000, 100_000, 300_000, 1_000_000])
  parser.add_argument("--reference-iters", type=int, default=300_000)
  parser.add_argument("--short-reference-iters", type=int, default=30_000)
  parser.add_argument("--mccfr-reference-iters", type=int, default=10_000_000)
  parser.add_argument("--deals", type=int, default=2048, help="duplicate deals per evaluation")
  parser.add_argument("--out", default="benchmarks/papers/results/figure4_holdem_hypotheses")
  parser.add_argument("--merge", action="store_true", help="add the --uct-c constants to the record at --out")
  args = parser.parse_args(argv)
  if len(args.seeds) < 2:
    parser.error("--seeds: at least two, for an interval over the seeds")
  if args.points != sorted(set(args.points)) or args.points[0] < 2:
    parser.error("--points: increasing iteration counts, each at least 2")
  if not 2 <= args.short_reference_iters < args.reference_iters or args.mccfr_reference_iters < 2:
    parser.error("--short-reference-iters must be at least 2 and below --reference-iters; --mccfr-reference-iters >= 2")
  earlier = read_record(f"{args.out}.json") if args.merge else None
  if earlier:
    differing = [k for k in SHARED if earlier["configuration"][k] != getattr(args, k)]
    repeated = sorted(set(args.uct_c) & set(earlier["configuration"]["uct_c"]))
    if differing or repeated:
      parser.error(f"--merge: {differing} differ from the record's, or C = {repeated} are in it already")
  start = time.perf_counter()
  game = jaxcfr.load("limit_holdem(buckets=10)")
  key = jax.random.PRNGKey(2011)  # figure4_holdem.py's deals
  agents_ = agents(args.uct_c)
  references, reference_seconds = train_references(game, args)
  print("references", reference_seconds, flush=True)
  curves, seconds, run = {}, {}, {"uct_c": args.uct_c}
  if earlier:  # MCCFR10 again with the first seed: the references must be the record's
    name, hyper = figure4_holdem.CURVES[MCCFR_LABEL]
    seed = args.seeds[0]
    rows, seconds[f"{MCCFR_LABEL}, seed {seed} (check)"] = curve(
      game, name, hyper, seed, args.points, references, key, args.deals
    )
    run["mccfr10_check"] = {"seed": seed, "largest_sb_per_hand_difference": check_against(earlier, rows, seed)}
    del agents_[MCCFR_LABEL]
  for label, (name, hyper) in agents_.items():
    for seed in args.seeds:
      rows, seconds[f"{label}, seed {seed}"] = curve(game, name, hyper, seed, args.points, references, key, args.deals)
      curves.setdefault(label, {})[str(seed)] = rows
  runs = []
  if earlier:
    before = earlier["configuration"]
    runs = before.get("runs") or [
      {
        "uct_c": before["uct_c"],
        "git_commit": earlier["git_commit"],
        "date": earlier["date"],
        "seconds": earlier["results"]["seconds"]["total"],
      }
    ]
    curves = ordered({**earlier["results"]["curves"], **curves})
    seconds = {**earlier["results"]["seconds"]["agents"], **seconds}
    args.uct_c = sorted([*before["uct_c"], *args.uct_c])
  summary = summarise(curves, list(references), args.points)
  description = (
    "Tests of causes for Ponsen et al. 2011 Figure 4 (right), limit hold'em with 10 equal-width buckets of exact "
    "E[HS]: MCCFR10 (outcome sampling, epsilon 0.6) and MCTS10 at several exploration constants C, each run once "
    "per seed, evaluated at early iteration counts against three reference strategies (chance-sampled CFR after two "
    "run lengths, outcome-sampling MCCFR10) in sb/h of the agent on the same duplicate deals (expected payoff over "
    "actions); 'summary' holds each point's mean over the seeds with its 95% t interval, 'hypotheses' the constants "
    "whose mean leads MCCFR10's and the seeds at which MCTS10 leads MCCFR10 of the same seed. One CPU core, shared "
    "machine; seconds are of running, evaluations excluded."
  )
  configuration = {
    **{k: getattr(args, k) for k in ("seeds", "uct_c", "points", "deals", "out")},
    "reference_iters": args.reference_iters,
    "short_reference_iters": args.short_reference_iters,
    "mccfr_reference_iters": args.mccfr_reference_iters,
    "mccfr_reference_seed": REFERENCE_SEED,
    "cfr_cs_reference_seed": 0,
    "match_key": 2011,
    "agents": {label: [name, hyper] for label, (name, hyper) in agents(args.uct_c).items()},
  }
  if earlier:  # which constants each commit ran; this run's commit is the record's own
    configuration["runs"] = [*runs, {**run, **stamp(), "seconds": time.perf_counter() - start}]
  path = write_record(
    f"{args.out}.json",
    benchmark="figure4_holdem_hypotheses",
    description=description,
    configuration=configuration,
    results={
      "hypotheses": hypotheses(summary, args.points),
      "summary": summary,
      "curves": curves,
      "seconds": {"references": reference_seconds, "agents": seconds, "total": time.perf_counter() - start},
    },
  )
  plot(summary, args.out)
  return path


if __name__ == "__main__":
  main()
