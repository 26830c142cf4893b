"""Lanctot et al. 2009's Figure 1: exploitability against nodes touched for CFR, CFR with pruning,
outcome-sampling and external-sampling MCCFR (and chance-sampled CFR).

Instances: ``kuhn_poker``, ``one_card_poker(num_cards=13)``, ``leduc_poker`` and the paper's
own OCP(500), ``one_card_poker(num_cards=500)`` (2.2M histories), to the paper's 1e9 nodes
touched; the paper's Goofspiel(7), Latent Tic-Tac-Toe and Princess and Monster are larger
still: each runs on request, with one seed unless ``--seeds`` is given, to the paper's budget,
and is merged into the results file. On OCP(500), five seeds of the sampled algorithms as one
batch take about 0.5 (outcome sampling), 0.4 (external) and 0.9 (chance-sampled) hours of one
CPU core, float64; CFR's 1e9 nodes are about 230 iterations.

Nodes touched are histories visited, as Lanctot et al. 2009 section 5 counts them:
  * CFR: every history, once per player pass; our CFR alternates updates (player 0's pass,
    then player 1's), so an iteration touches 2 |H|. ``cfr-simultaneous`` draws CFR as the
    paper states it (Zinkevich et al. 2008: both players' regrets from the same strategies),
    with and without pruning, to tell how much of the gap to the samplers is the alternation.
  * CFR with pruning: the same iterates; a pass for player i skips the subtrees where the
    opponent's reach is zero, so it touches the histories with ``pi_-i(h) > 0``.
  * MCCFR-outcome (epsilon = 0.6, K = 1, the papers' algorithm): the sampled paths.
  * MCCFR-outcome with optimistic averaging (``mccfr-os-optimistic``, on request): the same paths.
  * MCCFR-outcome with both players exploring (``mccfr-os-both``, on request): its paths.
  * MCCFR-outcome as the paper iterates (``mccfr-os-simultaneous``, on request): one path per
    iteration, sampled epsilon-greedily at both players' infosets, updates both players.
  * MCCFR-external, CFR chance-sampled: the histories consistent with the sample (on a game
    without chance nodes, Goof(7) and latent tic-tac-toe here, chance-sampled CFR is vanilla
    CFR and is not drawn).
The y axis is the paper's exploitability ``epsilon_sigma = b1(sigma2) + b2(sigma1)``
(NashConv; OpenSpiel's exploitability is half of it) of the average strategy. Sampled
algorithms are averaged over their seeds (run as one batch, trailing axes; the figure shades the lowest
to the highest seed at each checkpoint); wall time is
recorded next to nodes touched (CFR's includes counting its pruned nodes, in sequence form:
a sum over the opponent's sequences per player pass). Axes are logarithmic (the paper's are linear).
Goof(7) and latent tic-tac-toe run in float32 (see DTYPES): outcome sampling's 1.7e8
iterations on Goof(7) pass 2^24, after which a float32 running sum no longer absorbs
increments of its own size, and its float32 curve rose again after about 1e9 nodes (0.40 at
the budget, lowest 0.23 at 4.2e8). The results file holds that curve drawn in float64
(``--dtype float64``, 27 minutes for one seed on this machine): 0.10 at the budget.

  python benchmarks/papers/figure1_nodes_touched.py [--games kuhn_poker,leduc_poker] [--scale 1] [--max-minutes M]
      [--algorithms cfr,mccfr-os,mccfr-es,cfr-cs] [--dtype float64]

``--max-minutes`` stops each algorithm after about M minutes; the game's ``short_of_budget``
then lists the algorithms whose curves end short of the budget by more than an iteration.
``--algorithms`` redraws some curves of a game and keeps the others from the results file.
``--more-seeds K`` adds K seeds to sampled curves already in the results file, at their
checkpoints (the seeds after the ones they have): a game whose seeds do not fit in memory as
one batch (five of latent tic-tac-toe's need over 30 GiB) gets its seeds in several runs.
``--redraw-seeds S[,S+1...]`` draws those seeds (consecutive, as one batch) of sampled curves already in
the results file again, at their checkpoints, in place of the old ones (a seed first drawn
from code that was not committed); ``measured_per_algorithm`` lists each redraw under
``seeds_redrawn``, and a redraw of exactly the first run's seeds takes over that run's date,
commit and seconds (the replaced date and commit kept under ``first_run``).
Writes benchmarks/papers/results/figure1_nodes_touched.json and .png, and the same curves against
wall time, figure1_wall_time.png (figure1_plot.py, which redraws both from the file; needs
matplotlib: the ``notebooks`` extra).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import jaxcfr
from jaxcfr import solvers
from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.kits.sequence_form.arrays import CHANCE_NODE
from jaxcfr.base import memory
from jaxcfr.solvers import mccfr, mccfr_state
from figure1_plot import LABELS, plot  # noqa: E402  pylint: disable=wrong-import-position
from record import read_record, stamp, write_record  # noqa: E402  pylint: disable=wrong-import-position
from timing import per_iteration, timed  # noqa: E402  pylint: disable=wrong-import-position

# game -> budget of nodes touched per algorithm (times --scale)
GAMES = {
  "kuhn_poker": 2e6,
  "one_card_poker(num_cards=13)": 1e7,
  "leduc_poker": 1.5e7,
  "one_card_poker(num_cards=500)": 1e9,  # the paper's axis
}
# The paper's own budgets (the x range of its Figure 1) for the games run on request:
# ``--games 'princess_and_monster(rows=3,cols=3,horizon=11);'`` (merged into the results file).
PAPER_BUDGETS = {
  "goofspiel(num_cards=7)": 5e9,
  "latent_tic_tac_toe": 6e8,
  "princess_and_monster(cols=3,horizon=11,rows=3)": 5e8,
}
SEEDS = {g: 1 for g in PAPER_BUDGETS}  # game -> seeds where --seeds is not given
# In float64, latent tic-tac-toe's tensors and solver states and Goof(7)'s chance-sampled CFR
# need more than this machine's 24 GiB.
DTYPES = {"latent_tic_tac_toe": "float32", "goofspiel": "float32"}  # game name -> dtype, overriding float64
SAMPLED = ("mccfr-os", "mccfr-es", "cfr-cs", "mccfr-os-optimistic", "mccfr-os-both", "mccfr-os-simultaneous")
# curves drawn with a solver's option: name -> (solver, options). Outcome sampling with optimistic
# averaging (Ponsen et al. 2011, Algorithm 1) is one reading of the paper's unstated average rule;
# with both players exploring, one reading of its "at each information set, we sample an action
# uniformly randomly with probability epsilon" (Lanctot et al. 2009, section 5); simultaneous, the
# paper's iteration: "we sample one terminal history and only update each information set along
# that history" (section 3), sampled epsilon-greedily at both players' infosets.
VARIANTS = {
  "mccfr-os-optimistic": ("mccfr-os", {"averaging": "optimistic"}),
  "mccfr-os-both": ("mccfr-os", {"exploring": "both"}),
  "mccfr-os-simultaneous": ("mccfr-os", {"exploring": "both", "updates": "simultaneous"}),
}
# --algorithms; "cfr" draws CFR and CFR with pruning (alternating updates), "cfr-simultaneous"
# the same with simultaneous updates
RUNNABLE = ("cfr", "cfr-simultaneous", *SAMPLED)
CHECKPOINTS = 24


def _checkpoints(last: int) -> list[int]:
  return sorted({int(round(x)) for x in np.geomspace(1, max(last, 2), CHECKPOINTS)})


def run_cfr(game, budget: float, max_seconds: float, simultaneous: bool = False) -> dict:
  """Vanilla CFR (OpenSpiel's preset, alternating; with ``simultaneous``, both players
  updated from the same strategies, as Zinkevich et al. 2008 and Lanctot et al. 2009 state
  it: the ``rm`` preset); node counts with and without pruning. CFR stops when it has
  touched ``budget`` nodes; CFR with pruning follows the same iterates further, until its
  own (smaller) count reaches the budget. Both stop early, at the next checkpoint, once
  ``max_seconds`` of wall time (evaluations included) have passed."""
  tensors = game.tensors
  solver = solvers.get("rm" if simultaneous else "cfr")
  histories = game.arrays.num_histories

  # The tensors are arguments, not closed-over constants: a full-size game's would be copied
  # into the program (gigabytes).
  @jax.jit
  def chunk(tensors, per_sequence, state, pruned, n):  # n is traced: one compilation for every checkpoint
    def body(_, carry):
      state, pruned = carry
      first = mccfr.cfr_nodes_touched(
        tensors, state.strategy[1], 0, pruning=True, histories_per_sequence=per_sequence[1]
      )
      before = state.strategy[0]  # player 1's pass reads player 0's strategy before the step if simultaneous
      state = solver.step(tensors, state)
      second = mccfr.cfr_nodes_touched(
        tensors, before if simultaneous else state.strategy[0], 1, pruning=True, histories_per_sequence=per_sequence[0]
      )
      return state, pruned + first.astype(jnp.int64) + second.astype(jnp.int64)

    return jax.lax.fori_loop(0, n, body, (state, pruned))

  per_sequence = [jnp.asarray(mccfr.histories_per_sequence(game.arrays, p)) for p in (0, 1)]

  exploit = jax.jit(lambda t, s: evaluation.nash_conv(t, solver.average_strategy(t, s)))
  state, pruned, done, seconds = solver.init(tensors), jnp.zeros((), jnp.int64), 0, 0.0
  deadline = time.perf_counter() + max_seconds  # evaluations included: on the paper's games they take minutes
  full_rows, pruned_rows = [], []

  def advance(targets):
    nonlocal state, pruned, done, seconds
    for target in targets:
      if target <= done or time.perf_counter() >= deadline:
        continue
      elapsed, (state, pruned) = timed(lambda: chunk(tensors, per_sequence, state, pruned, target - done))  # pylint: disable=cell-var-from-loop
      seconds += elapsed
      done = target
      row = {"iteration": done, "nash_conv": float(exploit(tensors, state)), "seconds": seconds}
      if 2 * histories * done <= budget:
        full_rows.append({**row, "nodes_touched": 2 * histories * done})
      pruned_rows.append({**row, "nodes_touched": int(pruned)})

  advance(_checkpoints(int(budget / (2 * histories))))
  while done and int(pruned) < budget and time.perf_counter() < deadline:  # pruning touched fewer: on to its own budget
    last = int(budget / (int(pruned) / done))  # at the mean rate so far (later iterations may prune more)
    advance(sorted({int(round(x)) for x in np.geomspace(done, max(last, done + 1), CHECKPOINTS // 2)}))
  suffix = "-simultaneous" if simultaneous else ""
  return {f"cfr{suffix}": full_rows, f"cfr-pruning{suffix}": pruned_rows}


def run_sampled(
  game, algorithm: str, budget: float, seeds: int, max_seconds: float, first_seed: int = 0, targets=None
) -> list[dict]:
  """Average exploitability of ``seeds`` seeds (``first_seed`` onwards) at checkpoints up to
  ``budget`` nodes touched, or up to about ``max_seconds`` (a probe's time per iteration plans
  the last checkpoint: the slope between calls, without the fixed cost of a call; no
  checkpoint starts after ``max_seconds`` of wall time, evaluations included); at the
  iterations ``targets`` instead, if given (another run's checkpoints)."""
  tensors = game.tensors
  name, options = VARIANTS.get(algorithm, (algorithm, {}))
  solver = solvers.get(name, **options)
  # jitted, n traced: one compilation; in place (a copy of a full-size game's state costs a second)
  chunk = lambda state, n: solver.run(tensors, state, n, donate=True)
  exploit = jax.jit(lambda t, s: evaluation.nash_conv(t, solver.average_strategy(t, s)))  # [seeds]
  fresh = lambda: solver.init(tensors, seed=jnp.arange(first_seed, first_seed + seeds))  # seeds on trailing axes
  memory.check_state(fresh, game.name, algorithm, seeds)  # a clear error, not the kernel's OOM killer
  probe = jax.block_until_ready(chunk(fresh(), 50))  # compiles
  nodes_per_iteration = float(np.mean(mccfr_state.nodes_touched(probe))) / 50
  iterations = int(budget / nodes_per_iteration)
  if max_seconds < float("inf"):
    seconds_per_iteration = per_iteration(chunk, probe, seconds=2.0, repeats=3)["iteration_s"]
    iterations = min(iterations, int(max_seconds / max(seconds_per_iteration, 1e-9)))
  extend = iterations == int(budget / nodes_per_iteration) and targets is None  # planned by the budget
  del probe
  state = fresh()
  rows, done, seconds = [], 0, 0.0
  deadline = time.perf_counter() + max_seconds
  targets = list(_checkpoints(iterations)) if targets is None else list(targets)
  while targets and time.perf_counter() < deadline:  # past the deadline, the evaluations took the rest
    target = targets.pop(0)
    elapsed, state = timed(lambda: chunk(state, target - done))  # pylint: disable=cell-var-from-loop
    seconds += elapsed
    done = target
    values = np.asarray(exploit(tensors, state))
    nodes = mccfr_state.nodes_touched(state)
    rows.append(
      {
        "iteration": done,
        "nodes_touched": float(np.mean(nodes)),
        "nash_conv": float(np.mean(values)),
        "nash_conv_per_seed": values.tolist(),
        "nodes_touched_per_seed": nodes.tolist(),
        "seconds": seconds,
      }
    )
    # The probe's nodes per iteration come from the first 50 iterations; paths change length as
    # the strategies do, so a plan can end short of the budget: one more checkpoint at the
    # rate measured so far (latent tic-tac-toe: 17.5 nodes per iteration against the probe's 21).
    if extend and not targets and np.mean(nodes) < budget * 0.99:
      extend = False
      last = int(np.ceil(budget / (np.mean(nodes) / done)))
      targets = [last] if last > done else []
  return rows


def with_more_seeds(rows: list[dict], more: list[dict]) -> list[dict]:
  """A sampled curve's ``rows`` with the seeds of ``more`` (the same checkpoints) appended:
  per-seed values concatenated, means over all seeds, the first run's seconds."""
  if [r["iteration"] for r in rows] != [r["iteration"] for r in more]:
    raise ValueError("the added seeds' checkpoints differ from the curve's")
  out = []
  for old, new in zip(rows, more):
    nash_conv = old["nash_conv_per_seed"] + new["nash_conv_per_seed"]
    nodes = old["nodes_touched_per_seed"] + new["nodes_touched_per_seed"]
    out.append(
      {
        **old,
        "nash_conv": float(np.mean(nash_conv)),
        "nodes_touched": float(np.mean(nodes)),
        "nash_conv_per_seed": nash_conv,
        "nodes_touched_per_seed": nodes,
      }
    )
  return out


def with_seeds_redrawn(rows: list[dict], redrawn: list[dict], first: int, seconds: bool) -> list[dict]:
  """A sampled curve's ``rows`` with its seeds ``first`` onwards replaced by those of ``redrawn``
  (the same checkpoints): means over all seeds; ``redrawn``'s seconds if ``seconds``, else the
  first run's."""
  if [r["iteration"] for r in rows] != [r["iteration"] for r in redrawn]:
    raise ValueError("the redrawn seeds' checkpoints differ from the curve's")
  out = []
  for old, new in zip(rows, redrawn):
    span = slice(first, first + len(new["nash_conv_per_seed"]))
    nash_conv, nodes = list(old["nash_conv_per_seed"]), list(old["nodes_touched_per_seed"])
    nash_conv[span], nodes[span] = new["nash_conv_per_seed"], new["nodes_touched_per_seed"]
    out.append(
      {
        **old,
        "nash_conv": float(np.mean(nash_conv)),
        "nodes_touched": float(np.mean(nodes)),
        "nash_conv_per_seed": nash_conv,
        "nodes_touched_per_seed": nodes,
        "seconds": new["seconds"] if seconds else old["seconds"],
      }
    )
  return out


def _report(name: str, algorithms: dict) -> None:
  for algorithm, rows in algorithms.items():
    last = rows[-1]
    print(
      f"{name:30} {LABELS[algorithm]:20} {last['iteration']:>9} it {last['nodes_touched']:>14,.0f} nodes "
      f"NashConv {last['nash_conv']:.4f}  {last['seconds']:.1f}s",
      flush=True,
    )


def _merge_earlier(games: dict, earlier: dict) -> dict:
  """``games`` (name -> entry, this run's) with the games of the record ``earlier`` that this
  run left out, and the curves of a game it ran that this run did not redraw (when the
  budget and the game's dtype agree; a curve may have been drawn in another dtype, see
  ``--dtype``), in the earlier order. Every curve keeps the date and commit it
  was measured at."""
  games = dict(games)
  for name, old in earlier["results"]["games"].items():
    old.setdefault(
      "measured",
      {"date": earlier["date"], "git_commit": earlier["git_commit"], "scale": earlier["configuration"].get("scale")},
    )
    old.setdefault("measured_per_algorithm", {a: old["measured"] for a in old["algorithms"]})
    new = games.get(name)
    if new is None:
      games[name] = old
    elif (old["node_budget"], old.get("dtype", "float64")) == (new["node_budget"], new["dtype"]):
      new["algorithms"] = {**old["algorithms"], **new["algorithms"]}
      new["measured_per_algorithm"] = {**old["measured_per_algorithm"], **new["measured_per_algorithm"]}
      new["dtype_per_algorithm"] = {
        **{a: old.get("dtype", "float64") for a in old["algorithms"]},
        **old.get("dtype_per_algorithm", {}),
        **new["dtype_per_algorithm"],
      }
  order = [*earlier["results"]["games"], *games]
  return {name: games[name] for name in dict.fromkeys(order)}


def _merged(out: Path, games: dict) -> dict:
  """The ``results`` of ``games`` (name -> entry) merged with the earlier games and curves of
  the results file ``out`` (see ``_merge_earlier``), each with its ``short_of_budget`` and the
  seeds of each sampled curve (``seeds_per_algorithm``; ``seeds``: the most of any curve, as
  curves of one game may come from runs with different ``--seeds``)."""
  result = {"games": _merge_earlier(games, read_record(out)) if out.exists() else dict(games)}
  for entry in result["games"].values():
    entry["seeds_per_algorithm"] = {
      a: len(rows[-1]["nash_conv_per_seed"])
      for a, rows in entry["algorithms"].items()
      if "nash_conv_per_seed" in rows[-1]
    }
    entry["seeds"] = max(entry["seeds_per_algorithm"].values(), default=entry.get("seeds"))
    # one more iteration would not have reached the budget either
    entry["short_of_budget"] = [
      a
      for a, rows in entry["algorithms"].items()
      if rows[-1]["nodes_touched"] * (1 + 1 / rows[-1]["iteration"]) < 0.95 * entry["node_budget"]
    ]
  return result


def main(argv=None) -> dict:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument(
    "--games", default=",".join(GAMES), help="comma-separated game strings (';'-separated when a string has commas)"
  )
  parser.add_argument("--scale", type=float, default=1.0, help="multiplies every node budget")
  parser.add_argument(
    "--seeds", type=int, default=None, help="seeds of the sampled algorithms (default: 5; 1 on the paper's large games)"
  )
  parser.add_argument(
    "--max-minutes",
    type=float,
    default=float("inf"),
    help="stop each algorithm after about this long (the figure then ends short of the budget)",
  )
  parser.add_argument(
    "--algorithms",
    default=",".join(a for a in RUNNABLE if a not in VARIANTS),
    help="comma-separated, of " + ", ".join(RUNNABLE) + " (a game's other curves are kept from "
    "an earlier run at the same budget and dtype)",
  )
  parser.add_argument(
    "--dtype",
    choices=("float32", "float64"),
    help="draw this run's curves in this dtype (default: float64, or the game's entry in DTYPES); "
    "they replace the curves of the same algorithms and are labelled with their dtype",
  )
  parser.add_argument(
    "--more-seeds",
    type=int,
    default=None,
    help="add this many seeds to the sampled curves of --algorithms already in --out, at their checkpoints",
  )
  parser.add_argument(
    "--redraw-seeds",
    default=None,
    help="comma-separated consecutive seeds of the sampled curves of --algorithms in --out to draw again, at their "
    "checkpoints",
  )
  parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "figure1_nodes_touched.json"))
  args = parser.parse_args(argv)
  if args.more_seeds is not None and (args.more_seeds < 1 or not Path(args.out).exists()):
    parser.error(f"--more-seeds needs a positive count and an existing --out, got {args.more_seeds} and {args.out}")
  redraw = [int(x) for x in args.redraw_seeds.split(",")] if args.redraw_seeds else []
  if args.redraw_seeds is not None and (
    not redraw or redraw != list(range(redraw[0], redraw[0] + len(redraw))) or redraw[0] < 0
  ):
    parser.error(f"--redraw-seeds takes consecutive seeds from 0 up, got {args.redraw_seeds!r}")
  if redraw and (args.more_seeds is not None or not Path(args.out).exists()):
    parser.error("--redraw-seeds needs an existing --out and no --more-seeds")
  seeds_of = lambda name: args.seeds or SEEDS.get(name, 5)
  if args.seeds is not None and args.seeds < 1:
    parser.error(f"--seeds must be positive, got {args.seeds}")
  if not args.max_minutes > 0:
    parser.error(f"--max-minutes must be positive, got {args.max_minutes}")
  max_seconds = args.max_minutes * 60
  algorithms = [a.strip() for a in args.algorithms.split(",") if a.strip()]
  if not algorithms or set(algorithms) - set(RUNNABLE):
    parser.error(f"--algorithms takes {', '.join(RUNNABLE)}; got {args.algorithms!r}")
  out = Path(args.out)
  result = None
  names = [g.strip() for g in args.games.split(";" if ";" in args.games else ",") if g.strip()]
  game_dtype = lambda name: DTYPES.get(name.split("(")[0], "float64")
  dtype = lambda name: args.dtype or game_dtype(name)
  # 64-bit arrays for float64 games and for CFR's counts of pruned nodes (billions on the
  # paper's games); a float32-only sampled run keeps 32-bit indices.
  jax.config.update(
    "jax_enable_x64",
    bool({"cfr", "cfr-simultaneous"} & set(algorithms)) or any(dtype(name) == "float64" for name in names),
  )
  for name in names:
    game = jaxcfr.load(name, dtype=dtype(name))
    budget = {**GAMES, **PAPER_BUDGETS}.get(game.name, 1e7) * args.scale
    entry = {
      "histories": game.arrays.num_histories,
      "node_budget": budget,
      "dtype": game_dtype(name),
      "seeds": seeds_of(game.name),
      "algorithms": {},
      "measured_per_algorithm": {},
      "dtype_per_algorithm": {},
    }
    measured = {
      **stamp(),
      "scale": args.scale,
      "max_minutes": None if max_seconds == float("inf") else args.max_minutes,
    }
    entry["measured"] = measured
    has_chance = bool((np.asarray(game.arrays.kind) == CHANCE_NODE).any())
    for algorithm in algorithms:
      if algorithm == "cfr-cs" and not has_chance:  # and its frontier would hold every history
        print(f"{game.name}: no chance nodes, so chance-sampled CFR is vanilla CFR; not drawn", flush=True)
        continue
      if algorithm in ("cfr", "cfr-simultaneous"):
        curves = run_cfr(game, budget, max_seconds, simultaneous=algorithm == "cfr-simultaneous")
      elif args.more_seeds or redraw:
        flag = "--more-seeds" if args.more_seeds else "--redraw-seeds"
        old = read_record(out)["results"]["games"].get(game.name, {})
        earlier = old.get("algorithms", {}).get(algorithm)
        if not earlier or "nash_conv_per_seed" not in earlier[-1]:
          parser.error(f"{flag}: {out} has no sampled {algorithm} curve on {game.name}")
        drawn_in = old.get("dtype_per_algorithm", {}).get(algorithm, old.get("dtype"))
        if drawn_in != str(game.tensors.dtype):
          parser.error(f"{flag}: the {algorithm} curve on {game.name} is in {drawn_in}: pass --dtype {drawn_in}")
        seeds = len(earlier[-1]["nash_conv_per_seed"])
        targets = [r["iteration"] for r in earlier]
        was = old.get("measured_per_algorithm", {}).get(algorithm, {})
        if args.more_seeds:
          more = run_sampled(game, algorithm, budget, args.more_seeds, float("inf"), first_seed=seeds, targets=targets)
          curves = {algorithm: with_more_seeds(earlier, more)}
          added = {"first_seed": seeds, "seeds": args.more_seeds, **measured}
          entry["measured_per_algorithm"][algorithm] = {**was, "seeds_added": was.get("seeds_added", []) + [added]}
        else:
          if redraw[-1] >= seeds:
            parser.error(f"--redraw-seeds: the {algorithm} curve on {game.name} has seeds 0 to {seeds - 1}")
          again = run_sampled(game, algorithm, budget, len(redraw), float("inf"), first_seed=redraw[0], targets=targets)
          first_run = redraw == list(range(was.get("seeds_added", [{"first_seed": seeds}])[0]["first_seed"]))
          curves = {algorithm: with_seeds_redrawn(earlier, again, redraw[0], seconds=first_run)}
          record = {**was, "seeds_redrawn": was.get("seeds_redrawn", []) + [{"seeds": redraw, **measured}]}
          if first_run:  # the first run's seeds all drawn again: its stamp gives way
            replaced = {"date": was.get("date"), "commit": was.get("git_commit")}
            record = {
              **record,
              "date": measured["date"],
              "git_commit": measured["git_commit"],
              "first_run": record.get("first_run", replaced),
            }
          entry["measured_per_algorithm"][algorithm] = record
      else:
        curves = {algorithm: run_sampled(game, algorithm, budget, seeds_of(game.name), max_seconds)}
      entry["algorithms"].update(curves)
      entry["measured_per_algorithm"].update({a: measured for a in curves if a not in entry["measured_per_algorithm"]})
      entry["dtype_per_algorithm"].update({a: str(game.tensors.dtype) for a in curves})
      _report(game.name, curves)
      result = _merged(out, {game.name: entry})  # each curve is written as soon as it is drawn
      write_record(
        out,
        benchmark="figure1_nodes_touched",
        description=__doc__.split("\n\n")[1].strip(),
        configuration={
          "games": list(result["games"]),
          "scale": args.scale,
          "seeds": args.seeds,
          "paper_budgets": PAPER_BUDGETS,
          "seeds_per_game": {g: result["games"][g].get("seeds") for g in result["games"]},
          "epsilon": mccfr_state.DEFAULT_EPSILON,
          "dtype": "float64",
          "dtype_per_game": DTYPES,
          "algorithms": [*LABELS],
        },
        results=result,
      )
  if result is None:
    print("no curve was drawn; the results file is unchanged")
    return read_record(out) if out.exists() else {}
  if plot(result, out.with_suffix(".png")) and plot(result, out.with_name("figure1_wall_time.png"), "seconds"):
    print(f"wrote {out}, {out.with_suffix('.png')} and {out.with_name('figure1_wall_time.png')}")
  else:
    print(f"wrote {out}")
  return read_record(out)


if __name__ == "__main__":
  main()
