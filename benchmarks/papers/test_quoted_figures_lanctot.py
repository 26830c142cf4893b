"""The figures quoted from the results of Lanctot, Waugh, Zinkevich and Bowling, "Monte Carlo
Sampling for Regret Minimization in Extensive Games" (NIPS 2009): see quoted_figures.py."""

import math
import numpy as np

from figure1_plot import NAMES, curve_x, orders, order_text
from quoted_figures import (
  _word,
  quoted_test,
)


OCP500 = "one_card_poker(num_cards=500)"
PAM = "princess_and_monster(cols=3,horizon=11,rows=3)"
GOOF7 = "goofspiel(num_cards=7)"


def _es_reaches_within_one_cfr_iteration(algorithms: dict) -> str:
  """External sampling's NashConv at its last evaluation within the nodes of vanilla CFR's first iteration."""
  one_iteration = algorithms["cfr"][0]["nodes_touched"]
  return f"{min(p['nash_conv'] for p in algorithms['mccfr-es'] if p['nodes_touched'] <= one_iteration):.3f}"


def _samplers_end_below_cfr(algorithms: dict) -> str:
  """'below' if every sampler's last NashConv is below both CFR curves' (else 'not below')."""
  cfr = min(algorithms[a][-1]["nash_conv"] for a in ("cfr", "cfr-pruning"))
  samplers = max(algorithms[a][-1]["nash_conv"] for a in ("mccfr-os", "mccfr-es", "cfr-cs"))
  return "below" if samplers < cfr else "not below"


def _ends(game: str, algorithm: str, other: str):
  """'above' or 'below': where ``algorithm``'s last NashConv on ``game`` ends against ``other``'s."""

  def word(games: dict) -> str:
    curves = games[game]["algorithms"]
    return "above" if curves[algorithm][-1]["nash_conv"] > curves[other][-1]["nash_conv"] else "below"

  return word


def _last(game: str, algorithm: str, digits: int):
  """The NashConv at the end of ``algorithm``'s curve on ``game`` (figure1_nodes_touched.json)."""
  return lambda games: f"{games[game]['algorithms'][algorithm][-1]['nash_conv']:.{digits}f}"


def _last_over_seeds(game: str, algorithm: str, digits: int):
  """The mean NashConv at the end of ``algorithm``'s curve on ``game`` with the lowest and highest seed's."""

  def text(games: dict) -> str:
    seeds = _seeds_at_end(games, game, algorithm)
    mean = games[game]["algorithms"][algorithm][-1]["nash_conv"]
    return f"{mean:.{digits}f} ({_word(len(seeds))} seeds: {_spread(seeds, digits)})"

  return text


def _seeds_at_end(games: dict, game: str, algorithm: str) -> list:
  """Each seed's NashConv at the end of ``algorithm``'s curve on ``game`` (figure1_nodes_touched.json)."""
  return games[game]["algorithms"][algorithm][-1]["nash_conv_per_seed"]


def _spread(values: list, digits: int) -> str:
  """The lowest and highest of ``values``, as 0.057-0.072."""
  return f"{min(values):.{digits}f}-{max(values):.{digits}f}"


def _all_above(games: dict, game: str, algorithm: str, other: str) -> str:
  """ "above" when every seed of ``algorithm`` ends above every seed of ``other``, else "not above"."""
  return "above" if min(_seeds_at_end(games, game, algorithm)) > max(_seeds_at_end(games, game, other)) else "not above"


def _nodes(x: float) -> str:
  """A count of nodes touched as the README writes it: 4.6e7, not 4.6e+07."""
  return f"{x:.1e}".replace("e+0", "e")


def _reaches(game: str, algorithm: str, level: float = 0.5):
  """The nodes touched at which ``algorithm``'s curve on ``game`` first falls below ``level``, as 1.3e9."""

  def nodes(games: dict) -> str:
    rows = games[game]["algorithms"][algorithm]
    first = next(r["nodes_touched"] for r in rows if r["nash_conv"] < level)
    return _nodes(first)

  return nodes


def _log_curve(games: dict, game: str, algorithm: str) -> tuple:
  rows = games[game]["algorithms"][algorithm]
  return [math.log(r["nodes_touched"]) for r in rows], [r["nash_conv"] for r in rows]


def _crosses(game: str, algorithm: str, level: float = 0.5):
  """The nodes touched at which ``algorithm``'s mean curve on ``game`` crosses ``level``,
  interpolated linearly in log(nodes) between the evaluations around it, as 4.6e7."""

  def nodes(games: dict) -> str:
    x, y = _log_curve(games, game, algorithm)
    j = next(i for i, v in enumerate(y) if v <= level)
    t = (y[j - 1] - level) / (y[j - 1] - y[j])
    return _nodes(math.exp(x[j - 1] + t * (x[j] - x[j - 1])))

  return nodes


def _highest(game: str):
  """The highest NashConv of the paper's four curves on ``game``, as 1.87."""
  paper = ("cfr", "cfr-pruning", "mccfr-os", "mccfr-es")
  return lambda games: f"{max(p['nash_conv'] for a in paper for p in games[game]['algorithms'][a]):.2f}"


def _at(game: str, algorithm: str, nodes: float):
  """``algorithm``'s mean NashConv on ``game`` after ``nodes`` nodes touched, linear in
  log(nodes) between its evaluations, as 0.717."""

  def value(games: dict) -> str:
    x, y = _log_curve(games, game, algorithm)
    return f"{np.interp(math.log(nodes), x, y):.3f}"

  return value


def _at_last_of(game: str, algorithm: str, other: str):
  """``algorithm``'s mean NashConv on ``game`` at the nodes of ``other``'s last evaluation, as 0.579."""
  return lambda games: _at(game, algorithm, games[game]["algorithms"][other][-1]["nodes_touched"])(games)


def _above_from(game: str, algorithm: str, other: str):
  """The first evaluation of ``algorithm`` on ``game`` from which every later one lies above
  ``other``'s mean curve (linear in log(nodes)), as a power of ten rounded up: 1e6."""

  def nodes(games: dict) -> str:
    x, y = _log_curve(games, game, other)
    rows = games[game]["algorithms"][algorithm]
    above = [r["nash_conv"] > np.interp(math.log(r["nodes_touched"]), x, y) for r in rows]
    first = next(i for i in range(len(rows)) if all(above[i:]))
    return f"1e{math.ceil(math.log10(rows[first]['nodes_touched']))}"

  return nodes


def _optimistic_within(games: dict) -> str:
  """The largest relative distance, in % rounded up, between optimistic averaging's one seed on
  Goof(7) and stochastic averaging's mean curve (linear in log(nodes)), over the evaluations from
  NashConv 1 down (the early points wander with one seed)."""
  x, y = _log_curve(games, GOOF7, "mccfr-os")
  rows = [r for r in games[GOOF7]["algorithms"]["mccfr-os-optimistic"] if r["nash_conv"] < 1]
  return str(
    math.ceil(max(abs(r["nash_conv"] / np.interp(math.log(r["nodes_touched"]), x, y) - 1) for r in rows) * 100)
  )


def _overtakes(game: str, algorithm: str, other: str):
  """The nodes touched after which ``algorithm``'s mean curve stays below ``other``'s, both
  linear in log(nodes) between evaluations: the last crossing, solved exactly, as 8.1e7."""

  def nodes(games: dict) -> str:
    (xa, ya), (xb, yb) = _log_curve(games, game, algorithm), _log_curve(games, game, other)
    at = lambda x, xs, ys: next(
      ys[i] + (x - xs[i]) * (ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]) for i in range(len(xs) - 1) if x <= xs[i + 1]
    )
    points = sorted(x for x in set(xa + xb) if max(xa[0], xb[0]) <= x <= min(xa[-1], xb[-1]))
    gap = [at(x, xa, ya) - at(x, xb, yb) for x in points]  # linear between consecutive points
    j = max(i for i in range(len(points) - 1) if gap[i] >= 0 > gap[i + 1])
    crossing = points[j] + (points[j + 1] - points[j]) * gap[j] / (gap[j] - gap[j + 1])
    return _nodes(math.exp(crossing))

  return nodes


def _per_iteration(game: str, algorithm: str):
  """Nodes touched per iteration of ``algorithm`` on ``game`` (its first evaluation), as 49,759."""
  return lambda games: (
    f"{games[game]['algorithms'][algorithm][0]['nodes_touched'] / games[game]['algorithms'][algorithm][0]['iteration']:,.0f}"
  )


GAME_NAMES = {
  "kuhn_poker": "Kuhn",
  "one_card_poker(num_cards=13)": "OCP(13)",
  "leduc_poker": "Leduc",
  OCP500: "OCP(500)",
  PAM: "PAM(3,3,11)",
  GOOF7: "Goof(7)",
  "latent_tic_tac_toe": "latent tic-tac-toe",
}


def _valued(row: dict) -> str:
  """An order with each group's NashConv there: 'CFR = CFR with pruning 0.0042, external sampling 0.028'."""
  return ", ".join(f"{order_text([group])} {row['values'][group[0]]:.2g}" for group in row["order"])


def _time_orders(games: dict) -> str:
  """figure1_plot.orders of every game as the ledger's table rows."""
  rows = []
  for name, row in orders({"games": games}).items():
    swapped = "; ".join(f"{NAMES[a]} and {NAMES[b]}" for a, b in row["swapped"]) or "none"
    nodes, seconds = row["nodes_touched"], row["seconds"]
    rows.append(
      f"| {GAME_NAMES[name]} | {_nodes(nodes['at'])} | {_valued(nodes)} | {seconds['at']:.2g} | {_valued(seconds)} "
      f"| {swapped} |"
    )
  return "\n".join(rows)


def _same_order(same: bool):
  """The games whose order of the four algorithms is (``same``) or is not the same in time as in nodes."""

  def games_(games: dict) -> str:
    names = [GAME_NAMES[n] for n, row in orders({"games": games}).items() if (not row["swapped"]) == same]
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]

  return games_


def _cost_per_node(games: dict) -> str:
  """The range over the games and both samplers of a sampler's seconds per node touched (per seed) over
  CFR's, at each curve's end, as '5 to 324'."""
  rate = lambda entry, a: curve_x(entry, a, "seconds")[-1] / entry["algorithms"][a][-1]["nodes_touched"]
  ratios = [rate(e, a) / rate(e, "cfr") for e in games.values() for a in ("mccfr-os", "mccfr-es")]
  return f"{min(ratios):.0f} to {max(ratios):.0f}"


def _batch_swaps(games: dict) -> str:
  """The games where the recorded seconds of a whole batch (not over its seeds) swap a pair, with the pair."""
  found = [
    f"{GAME_NAMES[n]} ({'; '.join(f'{NAMES[a]} and {NAMES[b]}' for a, b in row['batch_swapped'])})"
    for n, row in orders({"games": games}).items()
    if row["batch_swapped"]
  ]
  return ", ".join(found) or "no game"


QUOTES = [
  # README.md, Lanctot et al. 2009 Figure 1 against wall time: the order of the four algorithms per game
  (
    "benchmarks/papers/README.md",
    "| game | nodes | order in nodes | seconds per seed | order in time | pairs in the opposite order | "
    "|---|---|---|---|---|---| {}",
    "figure1_nodes_touched.json",
    [("results/games", _time_orders)],
  ),
  (
    "benchmarks/papers/README.md",
    "the order of the four algorithms at the longest time all four curves reach is the one in nodes on {} and "
    "differs on {}: CFR with pruning takes CFR's time per iteration, and a sampler's node costs {} times "
    "CFR's seconds",
    "figure1_nodes_touched.json",
    [("results/games", _same_order(True)), ("results/games", _same_order(False)), ("results/games", _cost_per_node)],
  ),
  (
    "benchmarks/papers/README.md",
    "The order is the same in time as in nodes on {} and differs on {}: a node touched by a sampler costs {} times "
    "as many seconds as one touched by CFR (per seed, at each curve's end), where the paper's \"nearly identical\" "
    "implies costs per node about equal. Taking each batch's seconds whole instead of per seed swaps a pair on {}.",
    "figure1_nodes_touched.json",
    [
      ("results/games", _same_order(True)),
      ("results/games", _same_order(False)),
      ("results/games", _cost_per_node),
      ("results/games", _batch_swaps),
    ],
  ),
  # README.md, Lanctot et al. 2009 Figure 1: the seed counts of the curves still being extended
  (
    "benchmarks/papers/README.md",
    "outcome sampling on all three (seeds added one run at a time with `--more-seeds 1`: {} latent tic-tac-toe "
    "runs do not fit in this machine's memory as one batch), and so {} external sampling on latent tic-tac-toe "
    "and chance-sampled CFR on PAM, which ends at {}",
    "figure1_nodes_touched.json",
    [
      ("results/games", lambda games: _word(min(len(_seeds_at_end(games, g, "mccfr-os")) for g in (PAM, GOOF7)))),
      (
        "results/games",
        lambda games: "are" if len(_seeds_at_end(games, "latent_tic_tac_toe", "mccfr-es")) == 5 else "not",
      ),
      ("results/games", _last_over_seeds(PAM, "cfr-cs", 2)),
    ],
  ),
  # notebooks/README.md, Lanctot et al. 2009 Figure 1: outcome sampling's seeds on PAM and Goof(7)
  (
    "benchmarks/papers/README.md",
    "Outcome sampling's {} seeds on PAM end at {}, all {} external sampling's, and its {} on Goof(7) at {}, "
    "all {} external sampling's",
    "figure1_nodes_touched.json",
    [
      ("results/games", lambda games: _word(len(_seeds_at_end(games, PAM, "mccfr-os")))),
      ("results/games", lambda games: _spread(_seeds_at_end(games, PAM, "mccfr-os"), 3)),
      ("results/games", lambda games: _all_above(games, PAM, "mccfr-os", "mccfr-es")),
      ("results/games", lambda games: _word(len(_seeds_at_end(games, GOOF7, "mccfr-os")))),
      ("results/games", lambda games: _spread(_seeds_at_end(games, GOOF7, "mccfr-os"), 3)),
      ("results/games", lambda games: _all_above(games, GOOF7, "mccfr-os", "mccfr-es")),
    ],
  ),
  # notebooks/README.md, Lanctot et al. 2009 Figure 1 (row 03; the paper's comparisons in the list of every figure)
  (
    "benchmarks/papers/README.md",
    "OCP(500), {} seeds, to {} nodes touched ({} vanilla CFR iterations; `benchmarks/papers/figure1_nodes_touched.py`), "
    "where external sampling reaches NashConv {} within the nodes of one CFR iteration and every sampler ends {} CFR "
    "and CFR with pruning",
    "figure1_nodes_touched.json",
    [
      (f"results/games/{OCP500}/seeds", _word),
      (f"results/games/{OCP500}/node_budget", lambda n: f"{n:.0e}".replace("e+0", "e")),
      (f"results/games/{OCP500}/algorithms/cfr/-1/iteration", "{}"),
      (f"results/games/{OCP500}/algorithms", _es_reaches_within_one_cfr_iteration),
      (f"results/games/{OCP500}/algorithms", _samplers_end_below_cfr),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "| OCP(500) (1e9), five seeds | {} | {} | {} | {} |",
    "figure1_nodes_touched.json",
    [
      ("results/games", _last(OCP500, "cfr", 4)),
      ("results/games", _last(OCP500, "cfr-pruning", 4)),
      ("results/games", _last(OCP500, "mccfr-os", 4)),
      ("results/games", _last(OCP500, "mccfr-es", 5)),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "| PAM(3,3,11) (5e8) | 1.74 (at 3.7e8) | {} | {} | {} |",
    "figure1_nodes_touched.json",
    [
      ("results/games", _last(PAM, "cfr-pruning", 3)),
      ("results/games", _last_over_seeds(PAM, "mccfr-os", 3)),
      ("results/games", _last_over_seeds(PAM, "mccfr-es", 3)),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "| latent tic-tac-toe (6e8) | 1.35 (at 4.1e8) | {} | {} | {} |",
    "figure1_nodes_touched.json",
    [
      ("results/games", _last("latent_tic_tac_toe", "cfr-pruning", 2)),
      ("results/games", _last_over_seeds("latent_tic_tac_toe", "mccfr-os", 3)),
      ("results/games", _last_over_seeds("latent_tic_tac_toe", "mccfr-es", 3)),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "| {} in float64 | {} |",
    "figure1_nodes_touched.json",
    [
      ("results/games", _last_over_seeds("goofspiel(num_cards=7)", "mccfr-os", 3)),
      ("results/games", _last_over_seeds("goofspiel(num_cards=7)", "mccfr-es", 3)),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "On OCP(500) chance-sampled CFR ends at {}:",
    "figure1_nodes_touched.json",
    [("results/games", _last(OCP500, "cfr-cs", 5))],
  ),
  (
    "benchmarks/papers/README.md",
    "external sampling ends {} CFR with pruning on PAM (the paper has it ahead in every game, by considerable "
    "margins except in latent tic-tac-toe) and outcome sampling ends {} external sampling on Goof(7)",
    "figure1_nodes_touched.json",
    [
      ("results/games", _ends(PAM, "mccfr-es", "cfr-pruning")),
      ("results/games", _ends("goofspiel(num_cards=7)", "mccfr-os", "mccfr-es")),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "CFR with pruning ends at {} on PAM (alternating: {}), above external sampling's {}, the paper's order, and at "
    "{} on Goof(7) (alternating: {}), above both samplers as in the paper, where it reaches NashConv 0.5 after {} "
    "nodes (the paper: 2.5e9; alternating: {})",
    "figure1_nodes_touched.json",
    [
      ("results/games", _last(PAM, "cfr-pruning-simultaneous", 2)),
      ("results/games", _last(PAM, "cfr-pruning", 3)),
      ("results/games", _last(PAM, "mccfr-es", 3)),
      ("results/games", _last("goofspiel(num_cards=7)", "cfr-pruning-simultaneous", 2)),
      ("results/games", _last("goofspiel(num_cards=7)", "cfr-pruning", 3)),
      ("results/games", _reaches("goofspiel(num_cards=7)", "cfr-pruning-simultaneous")),
      ("results/games", _reaches("goofspiel(num_cards=7)", "cfr-pruning")),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "Outcome sampling is ahead of external sampling until {} nodes and behind after",
    "figure1_nodes_touched.json",
    [("results/games", _overtakes(GOOF7, "mccfr-es", "mccfr-os"))],
  ),
  (
    "benchmarks/papers/README.md",
    "The samplers reach NashConv 0.5 after about {} (external) and {} (outcome) nodes",
    "figure1_nodes_touched.json",
    [("results/games", _crosses(GOOF7, "mccfr-es")), ("results/games", _crosses(GOOF7, "mccfr-os"))],
  ),
  (
    "benchmarks/papers/README.md",
    "NashConv 1.0 after {} (outcome) and {} (external) nodes, and after {} for vanilla CFR",
    "figure1_nodes_touched.json",
    [
      ("results/games", _crosses(GOOF7, "mccfr-os", 1.0)),
      ("results/games", _crosses(GOOF7, "mccfr-es", 1.0)),
      ("results/games", _crosses(GOOF7, "cfr", 1.0)),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "just above the highest points of our four curves there ({} and {}, early in the sampled runs)",
    "figure1_nodes_touched.json",
    [("results/games", _highest(GOOF7)), ("results/games", _highest("latent_tic_tac_toe"))],
  ),
  (
    "benchmarks/papers/README.md",
    "optimistic averaging, drawn on Goof(7) to {} nodes, stays within {}% of stochastic averaging's curve",
    "figure1_nodes_touched.json",
    [
      (f"results/games/{GOOF7}/algorithms/mccfr-os-optimistic/-1/nodes_touched", _nodes),
      ("results/games", _optimistic_within),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "changes little: after {} nodes it is at {}, where the five seeds of stochastic averaging are at {} (interpolated)",
    "figure1_nodes_touched.json",
    [
      (f"results/games/{GOOF7}/algorithms/mccfr-os-optimistic/-1/nodes_touched", _nodes),
      ("results/games", _last(GOOF7, "mccfr-os-optimistic", 3)),
      ("results/games", _at_last_of(GOOF7, "mccfr-os", "mccfr-os-optimistic")),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "one seed, float64, to the budget in {} minutes) outcome sampling",
    "figure1_nodes_touched.json",
    [(f"results/games/{GOOF7}/algorithms/mccfr-os-both/-1/seconds", lambda s: str(round(s / 60)))],
  ),
  (
    "benchmarks/papers/README.md",
    "is slower at every point from {} nodes: NashConv {} after 1e7 nodes (the default: {}),\n"
    "  0.5 only after {} nodes, and {} at the budget (the default: {}).",
    "figure1_nodes_touched.json",
    [
      ("results/games", _above_from(GOOF7, "mccfr-os-both", "mccfr-os")),
      ("results/games", _at(GOOF7, "mccfr-os-both", 1e7)),
      ("results/games", _at(GOOF7, "mccfr-os", 1e7)),
      ("results/games", _crosses(GOOF7, "mccfr-os-both")),
      ("results/games", _last(GOOF7, "mccfr-os-both", 3)),
      ("results/games", _last(GOOF7, "mccfr-os", 3)),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "mccfr-os-simultaneous`, one seed, float64, {} minutes) it is at {} after 1e7 nodes, reaches 0.5 after {} and "
    "ends at {}, still above external sampling's {}.",
    "figure1_nodes_touched.json",
    [
      (f"results/games/{GOOF7}/algorithms/mccfr-os-simultaneous/-1/seconds", lambda s: str(round(s / 60))),
      ("results/games", _at(GOOF7, "mccfr-os-simultaneous", 1e7)),
      ("results/games", _crosses(GOOF7, "mccfr-os-simultaneous")),
      ("results/games", _last(GOOF7, "mccfr-os-simultaneous", 3)),
      ("results/games", _last(GOOF7, "mccfr-es", 3)),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "exploring at both players' infosets (the other reading of the paper's sampling profile) ends at {}, above the "
    "default's {}, and the paper's iteration (one walk updates both players) at {}",
    "figure1_nodes_touched.json",
    [
      ("results/games", _last(GOOF7, "mccfr-os-both", 3)),
      ("results/games", _last(GOOF7, "mccfr-os", 3)),
      ("results/games", _last(GOOF7, "mccfr-os-simultaneous", 3)),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "those are about 268,000 and 268 nodes per sampled iteration, where ours touch {} and {}.",
    "figure1_nodes_touched.json",
    [("results/games", _per_iteration(GOOF7, "mccfr-es")), ("results/games", _per_iteration(GOOF7, "mccfr-os"))],
  ),
]

test_a_quoted_figure_is_the_results_file_s = quoted_test(QUOTES)
