"""The figures that the reproduction ledger (this folder's README.md), benchmarks/README.md and
the docs quote, read from the results files they come from: each entry is a sentence of a document with ``{}`` where the figures stand, the results
file, and the figures' paths in it (``/``-separated keys; an int is a list index) with their
format (a format string, or a function of the value; a function may also turn it into the word
that a comparison in the text uses, such as 'above' or 'loses to'). The test formats each figure
from the file and finds the sentence in the document (whitespace normalised), so a re-run that
changes a figure, or an edit that changes the text, fails here until both agree."""

import json
import math
import numpy as np
import re
from fractions import Fraction
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"  # speed and peers
PAPER_RESULTS = ROOT / "benchmarks" / "papers" / "results"  # the papers' experiments


def _results(name: str) -> Path:
  """A results file, from the papers' folder or the speed benchmarks'."""
  return PAPER_RESULTS / name if (PAPER_RESULTS / name).exists() else RESULTS / name


PT = "public_tree.json"
# Ponsen et al. 2011 Figures 6 and 7 (figure6_tradeoff.json, rnr_convergence.json)
FIG6 = "results/games/{}/models/mccfr-os:200000"
FIG6_GAMES = (
  "one_card_poker(num_cards=500)",
  "liars_dice(dice_sides=6)",
  "goofspiel(num_cards=4)",
  "princess_and_monster(cols=3,horizon=5,rows=3)",
)
FIG7_OCP = "results/games/one_card_poker(num_cards=500)/curves"
LEDUC = "results/leduc_cfr_plus_float32/one_run"
ENDGAMES = "results/libratus_endgames_float32"
LIARS = "results/liars_dice_cfr_plus_float32"
FIG4 = "results/final"
TURN = "results/turn_curves_float32/endgame2"
TURN1 = "results/turn_curves_float32/endgame1"
OCP500 = "one_card_poker(num_cards=500)"
PAM = "princess_and_monster(cols=3,horizon=11,rows=3)"
GOOF7 = "goofspiel(num_cards=7)"

PEERS = "results/entries"


NUMBER_WORDS = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
]
NUMBER_WORDS += ["thirteen", "fourteen", "fifteen", "sixteen"]


def _chips(seed: str, suffix: str) -> str:
  """The 10,000-situation network agent's chips in ``resolving_networks_<seed>.json``."""
  record = json.loads(_results(f"resolving_networks_{seed}.json").read_text())
  return f"{record['results']['stack_1200']['exploitability'][f'resolving_network_10000{suffix}']['chips']:.2f}"


def _sci(x: float) -> str:
  """7.5e-7, not 7.5e-07."""
  return f"{x:.1e}".replace("e-0", "e-")


def _power_of_ten(n: int) -> str:
  """10^6 for 1000000."""
  exponent = round(math.log10(n))
  assert 10**exponent == n, n
  return f"10^{exponent}"


def _fraction(x: float) -> str:
  return str(Fraction(x).limit_denominator(100))


def _word(n: int) -> str:
  return NUMBER_WORDS[n]


def _seconds_or_not_reached(x) -> str:
  """A time to a target: '12 s', '0.0 s' under 10 s, or 'not reached' (null)."""
  if x is None:
    return "not reached"
  return f"{x:.1f} s" if x < 10 else f"{x:.0f} s"


def _worst_of_seeds(deviations: list) -> str:
  return _sci(max(deviations))


def _counter_strategies(table: dict, key: str) -> list:
  """A johanson_tables.json crosstable's entries of ``key`` for the counter-strategies' rows (not the
  equilibrium's)."""
  return [value for name, value in zip(table["rows"], table[key]) if name != "Equilibrium"]


def _against_equilibrium(table: dict) -> list:
  column = table["columns"].index("Equilibrium")
  return [row[column] for row in _counter_strategies(table, "values")]


def _own_fbr_exploits_most(table: dict) -> bool:
  """Whether each table opponent's column is highest in the row of its own counter-strategy."""
  rows = {name: row for name, row in zip(table["rows"], table["values"]) if name != "Equilibrium"}
  columns = [name.split("-", 1)[1] for name in rows]
  return all(max(rows, key=lambda name: rows[name][table["columns"].index(c)]).split("-", 1)[1] == c for c in columns)


def _brittle(table: dict) -> bool:
  """Johanson et al. 2007 call the FBRs brittle: the off-diagonal "is generally negative" (35 of their 42
  entries). Ours count as brittle when most off-diagonal entries are negative."""
  summary = table["summary"]
  return 2 * summary["off_diagonal_negative"] > summary["off_diagonal_count"]


def _table1_label(table: dict) -> str:
  """'reproduced' when the paper's three claims for Table 1 hold (each opponent exploited most by its own
  FBR, the FBRs brittle, every FBR losing to the equilibrium), else 'differs'."""
  holds = _own_fbr_exploits_most(table) and _brittle(table) and max(_against_equilibrium(table)) < 0
  return "reproduced" if holds else "differs"


# The five opponents of johanson_tables.py that its options make more exploitable (the other two are CFR(10), CFR(30)).
_KNOBS = ("Abstraction J.QK", "Loose", "Tight", "Aggressive", "MCTS")


def _table2_label(results: dict) -> str:
  """'reproduced' when the paper's claims for Table 2 hold: each RNR wins less than the FBR against its own
  opponent, most of the off-diagonal is positive, and every RNR loses less to the equilibrium than its FBR."""
  fbr, rnr = results["table1_fbr"], results["table2_rnr"]

  def own(table: dict) -> list:
    return [
      row[table["columns"].index(name.split("-", 1)[1])]
      for name, row in zip(table["rows"], table["values"])
      if name != "Equilibrium"
    ]

  less = all(r < f for r, f in zip(own(rnr), own(fbr)))
  positive = 2 * rnr["summary"]["off_diagonal_negative"] < rnr["summary"]["off_diagonal_count"]
  safer = all(r > f for r, f in zip(_against_equilibrium(rnr), _against_equilibrium(fbr)))
  return "reproduced" if less and positive and safer else "differs"


def _figure2_label(averages: dict) -> str:
  """'reproduced' when, against the holdouts, RNR experts win most and FBR experts least (the paper's
  Figure 2), else 'differs'."""
  mean = {group: averages[group]["holdout average"]["mean"] for group in averages}
  return "reproduced" if mean["RNR experts"] > mean["Equilibrium"] > mean["FBR experts"] else "differs"


def _gap_to_best_response(table: dict) -> str:
  """How far the FBRs' diagonal falls short of the exact best responses, rounded up."""
  gaps = []
  for name, row in zip(table["rows"], table["values"]):
    if name != "Equilibrium":
      column = table["columns"].index(name.split("-", 1)[1])
      gaps.append(table["best_response"][column] - row[column])
  return f"{math.ceil(max(gaps))}"


def _expert_pulls(figure2: dict, end) -> str:
  """The least or most (``end``: min or max) share of the hands UCB1 gave one FBR or RNR expert, in %."""
  pulls = [
    p for group in ("FBR experts", "RNR experts") for opponent in figure2[group].values() for p in opponent["pulls"]
  ]
  return f"{100 * end(pulls):.0f}"


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


LABELS = {
  "one_card_poker(num_cards=500)": "OCP(500)",
  "liars_dice(dice_sides=6)": "Bluff(1,1,6)",
  "goofspiel(num_cards=4)": "Goofspiel(4)",
  "princess_and_monster(cols=3,horizon=5,rows=3)": "PAM(3,3,5)",
}


def _trajectories_per_iteration(games: dict) -> str:
  """rnr_convergence.json: the least and most sampled trajectories (MCRNR iterations) that cost
  what one RNR iteration does, by wall time, over the games, as '14 (Goofspiel(4)) to 1,675
  (Bluff(1,1,6))'."""
  ratios = {}
  for game, record in games.items():
    rnr, mcrnr = record["curves"]["rnr-cfr"][-1], record["curves"]["mcrnr"][-1]
    ratios[LABELS[game]] = (rnr["seconds"] / rnr["iterations"]) / (mcrnr["seconds"] / mcrnr["iterations"])
  low, high = min(ratios, key=ratios.get), max(ratios, key=ratios.get)
  return f"{ratios[low]:,.0f} ({low}) to {ratios[high]:,.0f} ({high})"


def _nash_conv_ratios(record: dict) -> list:
  """rnr_convergence.json, one game: (nodes, MCRNR's NashConv / RNR on vanilla CFR's) at each
  point of RNR's curve that MCRNR's spans, MCRNR's interpolated in log nodes (p = 0.5)."""
  mcrnr = record["curves"]["mcrnr"]
  nodes = np.log([point["nodes_touched"] for point in mcrnr])
  values = [point["nash_conv"][0] for point in mcrnr]
  return [
    (point["nodes_touched"], np.interp(np.log(point["nodes_touched"]), nodes, values) / point["nash_conv"][0])
    for point in record["curves"]["rnr-cfr"]
    if mcrnr[0]["nodes_touched"] <= point["nodes_touched"] <= mcrnr[-1]["nodes_touched"]
  ]


def _rnr_lead_from(game: str):
  """The nodes from which RNR on vanilla CFR stays below MCRNR's NashConv on ``game``, as
  1.8e+07 ('every point' where it leads throughout)."""

  def text(games: dict) -> str:
    ratios = _nash_conv_ratios(games[game])
    behind = [k for k, (_, ratio) in enumerate(ratios) if ratio < 1]
    if not behind:
      return "every point"
    assert behind[-1] + 1 < len(ratios), f"{game}: MCRNR leads to the end"
    return f"{ratios[behind[-1] + 1][0]:.1e}"

  return text


def _rnr_lead_range(game: str):
  """How many times lower RNR's NashConv is from where it leads on, as '1.3-2.2x'."""

  def text(games: dict) -> str:
    ratios = _nash_conv_ratios(games[game])
    behind = [k for k, (_, ratio) in enumerate(ratios) if ratio < 1]
    after = [ratio for _, ratio in ratios[(behind[-1] + 1 if behind else 0) :]]
    return f"{min(after):.1f}-{max(after):.1f}x"

  return text


def _rnr_behind_mcrnr(games: dict) -> str:
  """figure6_tradeoff.json: each (game, p > 0) where exact RNR gains less than MCRNR, as
  'Goofspiel(4) at p = 0.97: 0.1575 against 0.1578' (the text names one)."""
  found = []
  for game, record in games.items():
    model = record["models"]["mccfr-os:200000"]
    mcrnr = {point["p"]: point["gain_over_equilibrium"] for point in model["mcrnr"]["curve"]}
    for point in model["rnr"]["curve"]:
      p = point["p"]
      if p > 0 and p in mcrnr and point["gain_over_equilibrium"] < mcrnr[p]:
        found.append(f"{LABELS[game]} at p = {p}: {point['gain_over_equilibrium']:.4f} against {mcrnr[p]:.4f}")
  assert len(found) == 1, found
  return found[0]


def _rnr_most_ahead(games: dict) -> str:
  """figure6_tradeoff.json: the largest gain of exact RNR over MCRNR at a common p."""
  most = 0.0
  for record in games.values():
    model = record["models"]["mccfr-os:200000"]
    mcrnr = {point["p"]: point["gain_over_equilibrium"] for point in model["mcrnr"]["curve"]}
    most = max(
      [most]
      + [point["gain_over_equilibrium"] - mcrnr[point["p"]] for point in model["rnr"]["curve"] if point["p"] in mcrnr]
    )
  return f"{most:.3f}"


def _order_share(reading: dict, order_at_end: list) -> str:
  """chelarescu_kuhn_readings.json: the share (%) of the evaluations at which the report's order
  holds, once the order at the end is the one the text names."""
  assert reading["order_at_end"] == order_at_end, reading["order_at_end"]
  return f"{100 * reading['report_order_share']:.0f}"


def _mean_win(blocks: list) -> str:
  """holdem_learned_model.json: the mean sb/h won in some blocks of online hands."""
  return f"{sum(b['sb_per_hand'] for b in blocks) / len(blocks):.2f}"


def _p_value(p: float) -> str:
  """A one-sided p-value to one significant digit, as 0.0009 or 2e-06."""
  return f"{p:.1g}"


def _same_size_pairings(results: dict) -> list:
  """rcfr_figures.json: each abstraction's tree and MLP (the least exploitable no larger) against it, head to
  head in milli-chips per hand for the tree or MLP."""
  table = results["crosstable_mbh"]
  agents = table["agents"]
  return [
    table["rows"][agents.index(goal[kind]["agent"])][agents.index(goal["abstraction"])]
    for goal in results["goals"]
    for kind in ("tree", "mlp")
  ]


def _jqk_goal(results: dict) -> dict:
  return next(goal for goal in results["goals"] if goal["abstraction"] == "JQK")


def _median_ms(fmt: str):
  """The median ms per iteration of a peers_leduc.json entry's rounds, formatted."""
  return lambda runs: fmt.format(sorted(r["timing"]["ms_per_iteration"] for r in runs)[len(runs) // 2])


# Figure 8 over sixteen seeds (holdem_learning_seeds.json), quoted in the ledger and in docs/limit_holdem.md
FIGURE_8_TREND = [
  ("configuration/seeds", lambda seeds: _word(len(seeds))),
  ("configuration/online_iters", "{:,}"),
  ("configuration/iters", "{:,}"),
  *[
    (f"results/trend/{measure}/{field}", form)
    for measure, fields in (
      ("slope_sb_per_hand_per_1000_hands", ("mean", "ci95/0", "ci95/1", "p_one_sided_positive", "seeds_positive")),
      ("later_minus_first_half_sb_per_hand", ("mean", "ci95/0", "ci95/1", "p_one_sided_positive")),
    )
    for field, form in zip(fields, ("{:.2f}", "{:.2f}", "{:.2f}", _p_value, _word))
  ],
]

QUOTES = [
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
  # notebooks/README.md, Ponsen et al. 2011 Table 2 with a learned model and Figure 8
  (
    "benchmarks/papers/README.md",
    "the model predicts the bot's most likely action on {}% of its observed decisions and after {} iterations MCRNR10 "
    "wins {} sb/h against the bot, a little less than with the bot itself as its model ({}), where MCCFR10 loses {}",
    "holdem_learned_model.json",
    [
      ("results/model_fit/learned/most_likely_action_agrees_on_observed_decisions", lambda x: f"{100 * x:.0f}"),
      ("configuration/iters", "{:,}"),
      ("results/against_rule_bot/MCRNR10, learned model/sb_per_hand", "{:.2f}"),
      ("results/against_rule_bot/MCRNR10, the bot as its model/sb_per_hand", "{:.2f}"),
      ("results/against_rule_bot/MCCFR10/sb_per_hand", lambda x: f"{-x:.2f}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "as in the paper, {} MCRNR iterations (the learned model, pConf 0.75) run during 1,000 hands: each block of 20 "
    "hands is played by the counter-strategy of the iterations so far; its first 200 hands win {} sb/h, its last 200 {}",
    "holdem_learned_model.json",
    [
      ("configuration/online_iters", "{:,}"),
      ("results/online", lambda rows: _mean_win([r for r in rows if r["hands"] <= 200])),
      ("results/online", lambda rows: _mean_win([r for r in rows if r["hands"] > 800])),
    ],
  ),
  # Ponsen et al. 2011 Figure 8 over several seeds: the ledger and docs/limit_holdem.md
  (
    "benchmarks/papers/README.md",
    "Over {} seeds (`holdem_learning_seeds.py`: {} MCRNR iterations each, the learned model, pConf 0.75, during "
    "1,000 hands in blocks of 20, the model learned from the bot's games against MCCFR10 after {} iterations) "
    "MCRNR learns while it plays: the slope of the blocks' sb/h against the hands played is {} sb/h per 1,000 hands "
    "(95% interval {} to {} over the seeds, one-sided t test p = {}; positive for {} of the seeds), and the later half "
    "of the hands wins {} sb/h more than the first ({} to {}, p = {})",
    "holdem_learning_seeds.json",
    FIGURE_8_TREND,
  ),
  (
    "docs/limit_holdem.md",
    "repeats Figure 8 over {} seeds with a smaller budget (`benchmarks/papers/holdem_learning_seeds.py`: {} MCRNR "
    "iterations per seed during 1,000 hands, the model learned from games against MCCFR10 after {} iterations). "
    "MCRNR learns while it plays: the slope of the blocks' sb/h against the hands played is {} sb/h per 1,000 hands "
    "(95% interval {} to {} over the seeds, one-sided t test p = {}; positive for {} of the seeds), and the later half "
    "of the hands wins {} sb/h more than the first ({} to {}, p = {})",
    "holdem_learning_seeds.json",
    FIGURE_8_TREND,
  ),
  # README.md, information-set MCTS against OpenSpiel's C++ ISMCTSBot
  (
    "benchmarks/README.md",
    "one MCTS run does {}x its simulations per second on Kuhn and {}x on Leduc, and a batch of 1,024 seeds as one "
    "program {}x and {}x",
    "mcts_speed.json",
    [
      ("results/games/kuhn_poker/ratio_single", "{:.2f}"),
      ("results/games/leduc_poker/ratio_single", "{:.2f}"),
      ("results/games/kuhn_poker/ratio_batch", "{:.1f}"),
      ("results/games/leduc_poker/ratio_batch", "{:.1f}"),
    ],
  ),
  # README.md, Leduc against OpenSpiel's C++ CFR+ in a later session
  (
    "benchmarks/README.md",
    "Leduc alone on one idle core, {} ms against the C++ solver's {} ms, {}x",
    "cfr_speed_leduc_cpu.json",
    [
      ("results/games/leduc_poker/jaxcfr_float32/ms_per_iteration", "{:.4f}"),
      ("results/games/leduc_poker/peers/openspiel_cpp/timing/ms_per_iteration", "{:.2f}"),
      ("results/games/leduc_poker/peers/openspiel_cpp/speedup_float32", "{:.0f}"),
    ],
  ),
  # README.md, the turn endgames on this CPU
  (
    "benchmarks/README.md",
    "cost {} s and {} s per CFR+ iteration there (one core)",
    PT,
    [
      (f"{ENDGAMES}/endgame2/cfr+/ms_per_iteration", lambda ms: f"{ms / 1000:.2f}"),
      (f"{ENDGAMES}/endgame1/cfr+/ms_per_iteration", lambda ms: f"{ms / 1000:.1f}"),
    ],
  ),
  # README.md, the public tree on one H200
  (
    "benchmarks/README.md",
    "river endgame 3 costs {} ms per CFR+ iteration (after 1,000 iterations DCFR {} mbb/g, CFR+ {}, PCFR+ {}); "
    "the turn endgames 2 and 1 cost {} and {} ms per CFR+ iteration",
    "public_tree_endgames_nvidia_h200.json",
    [
      (f"{ENDGAMES}/endgame3/cfr+/ms_per_iteration", "{:.2f}"),
      (f"{ENDGAMES}/endgame3/dcfr_after_1000/exploitability_mbb", "{:.1f}"),
      (f"{ENDGAMES}/endgame3/cfr+_after_1000/exploitability_mbb", "{:.1f}"),
      (f"{ENDGAMES}/endgame3/pcfr+_after_1000/exploitability_mbb", "{:.1f}"),
      (f"{ENDGAMES}/endgame2/cfr+/ms_per_iteration", "{:.1f}"),
      (f"{ENDGAMES}/endgame1/cfr+/ms_per_iteration", "{:.1f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "costs {} ms per iteration, {} ms per subgame against {} ms for one alone, and every one is within 0.5% of its "
    "pot after {} CFR+ iterations, {} s of run time",
    "public_tree_range_batch_nvidia_h200.json",
    [
      ("results/range_batch_endgame4_float32/batches/batch_1024/ms_per_iteration", "{:.1f}"),
      ("results/range_batch_endgame4_float32/batches/batch_1024/ms_per_iteration_per_subgame", "{:.4f}"),
      ("results/range_batch_endgame4_float32/batches/batch_1/ms_per_iteration", "{:.2f}"),
      ("results/range_batch_endgame4_float32/curve/-1/iteration", "{}"),
      ("results/range_batch_endgame4_float32/curve/-1/run_seconds", "{:.2f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "{} public nodes; `python -m benchmarks public_tree --parts flop`) builds in {} s and reaches {}% of the pot "
    "with DCFR after {} iterations, {} s of run time ({} s with an evaluation every 10 iterations; {} ms per "
    "iteration), at a peak of {} GB of device memory",
    "public_tree_flop_nvidia_h200.json",
    [
      ("results/flop_float32/statistics/public_nodes", "{:,}"),
      ("results/flop_float32/build_and_load_s", "{:.0f}"),
      ("results/flop_float32/dcfr_curve/curve/-1/exploitability_pot_percent", "{:.2f}"),
      ("results/flop_float32/dcfr_curve/reached_half_percent_of_pot/iteration", "{}"),
      ("results/flop_float32/dcfr_curve/reached_half_percent_of_pot/run_seconds", "{:.1f}"),
      ("results/flop_float32/dcfr_curve/reached_half_percent_of_pot/wall_seconds", "{:.1f}"),
      ("results/flop_float32/dcfr_curve/ms_per_iteration", "{:.0f}"),
      ("results/flop_float32/dcfr_curve/peak_device_bytes", lambda b: f"{b / 1e9:.1f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "so this is {}x its time on a different tree, at {} times its memory",
    "public_tree_flop_nvidia_h200.json",
    [
      ("results/flop_float32/dcfr_curve/reached_half_percent_of_pot/run_seconds", lambda s: f"{s / 13.9:.1f}"),
      ("results/flop_float32/dcfr_curve/peak_device_bytes", lambda b: f"{b / 1.22e9:.0f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "Turn endgame 2 runs 1,000 iterations in {} s of run time with each of CFR+, DCFR and PCFR+ and ends at DCFR {} mbb/g, "
    "CFR+ {}, PCFR+ {}",
    "public_tree_turn_curves_nvidia_h200.json",
    [
      ("results/turn_curves_float32/endgame2/cfr+_curve/curve/-1/run_seconds", "{:.1f}"),
      ("results/turn_curves_float32/endgame2/dcfr_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      ("results/turn_curves_float32/endgame2/cfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      ("results/turn_curves_float32/endgame2/pcfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "the showdowns, {} ms of each player's values pass (two passes a step), are two thirds of it; the folds take {} ms a pass, the ranges {} ms",
    "public_tree_profile_nvidia_h200.json",
    [
      ("results/parts/showdowns_step_bytes_268435456/ms", "{:.0f}"),
      ("results/parts/folds/ms", "{:.1f}"),
      ("results/parts/ranges/ms", "{:.1f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "one run costs {} ms per CFR+ iteration on the sequence form, {} ms on the public tree with dense terminals",
    "public_tree_leduc_nvidia_h200.json",
    [
      ("results/leduc_cfr_plus_float32/one_run/sequence_form/ms_per_iteration", "{:.3f}"),
      ("results/leduc_cfr_plus_float32/one_run/public_tree_dense/ms_per_iteration", "{:.2f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "a batch of 1,024 CFR+ runs costs {}x one run through the solver's run ({}x in a user's loop), {} kernels",
    "accelerator_nvidia_h200.json",
    [
      ("results/batches/library_1024/cost_vs_one_run", "{:.2f}"),
      ("results/batches/user_1024/cost_vs_one_run", "{:.1f}"),
      ("results/profile/leduc_poker/kernels_per_iteration", "{}"),
    ],
  ),
  # README.md, the public tree
  (
    "benchmarks/README.md",
    "Leduc CFR+ costs {} ms per iteration on the public tree against {} ms on the sparse sequence form",
    PT,
    [(f"{LEDUC}/public_tree_sorted/ms_per_iteration", "{:.3f}"), (f"{LEDUC}/sequence_form/ms_per_iteration", "{:.3f}")],
  ),
  (
    "benchmarks/README.md",
    "tree costs {}x the sequence form's time for a batch of 64 runs and {}x for 1,024 ({}x for one run)",
    "public_tree_liars_dice.json",
    [
      (f"{LIARS}/batch_64/public_tree_sorted/over_sequence_form", "{:.2f}"),
      (f"{LIARS}/batch_1024/public_tree_sorted/over_sequence_form", "{:.2f}"),
      (f"{LIARS}/one_run/public_tree_sorted/over_sequence_form", "{:.2f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "costs {} ms per CFR+ iteration and reaches 0.5% of the pot in {} s of run time with DCFR ({} s with CFR+; "
    "after 1,000 iterations DCFR {} mbb/g, CFR+ {}, PCFR+ {})",
    PT,
    [
      (f"{ENDGAMES}/endgame4/cfr+/ms_per_iteration", "{:.1f}"),
      (f"{ENDGAMES}/endgame4/dcfr_curve/reached_half_percent_of_pot/run_seconds", "{:.2f}"),
      (f"{ENDGAMES}/endgame4/cfr+_curve/reached_half_percent_of_pot/run_seconds", "{:.2f}"),
      (f"{ENDGAMES}/endgame4/dcfr_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{ENDGAMES}/endgame4/cfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{ENDGAMES}/endgame4/pcfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "{} ms per iteration, 0.5% of the pot in {} s with DCFR (after 1,000 iterations DCFR {} mbb/g, CFR+ {}, PCFR+ {})",
    PT,
    [
      (f"{ENDGAMES}/endgame3/cfr+/ms_per_iteration", "{:.1f}"),
      (f"{ENDGAMES}/endgame3/dcfr_curve/reached_half_percent_of_pot/run_seconds", "{:.2f}"),
      (f"{ENDGAMES}/endgame3/dcfr_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{ENDGAMES}/endgame3/cfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{ENDGAMES}/endgame3/pcfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "{} ms per subgame and iteration against {} ms for one alone",
    "public_tree_range_batch.json",
    [
      ("results/range_batch_endgame4_float32/batches/batch_1024/ms_per_iteration_per_subgame", "{:.2f}"),
      ("results/range_batch_endgame4_float32/batches/batch_1/ms_per_iteration_per_subgame", "{:.2f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "{} s per CFR+ iteration then, another CPU), turn endgame 2 reaches 0.5% of the pot in {} s of run time with "
    "DCFR (after 1,000 iterations DCFR {} mbb/g, CFR+ {}, PCFR+ {})",
    "public_tree_turn_curves.json",
    [
      (f"{TURN}/cfr+_ms_per_iteration", lambda ms: f"{ms / 1000:.2f}"),
      (f"{TURN}/dcfr_curve/reached_half_percent_of_pot/run_seconds", "{:.0f}"),
      (f"{TURN}/dcfr_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{TURN}/cfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{TURN}/pcfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "turn endgame 1 costs {} s per CFR+ iteration on two cores (`public_tree_turn_curves_endgame1.json`)",
    "public_tree_turn_curves_endgame1.json",
    [(f"{TURN1}/cfr+_ms_per_iteration", lambda ms: f"{ms / 1000:.2f}")],
  ),
  (
    "benchmarks/README.md",
    "DCFR reaches 0.5% of the pot after {} s of run time ({} iterations) and ends at {} mbb/g ({}% of the pot) "
    "after {} s",
    "public_tree_turn_endgame1_dcfr.json",
    [
      (f"{TURN1}/dcfr_curve/reached_half_percent_of_pot/run_seconds", lambda s: f"{s:,.0f}"),
      (f"{TURN1}/dcfr_curve/reached_half_percent_of_pot/iteration", "{}"),
      (f"{TURN1}/dcfr_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{TURN1}/dcfr_curve/curve/-1/exploitability_pot_percent", "{:.2f}"),
      (f"{TURN1}/dcfr_curve/curve/-1/run_seconds", lambda s: f"{s:,.0f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "CFR+ at {} ({}%) after {} s",
    "public_tree_turn_endgame1_cfr+.json",
    [
      (f"{TURN1}/cfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{TURN1}/cfr+_curve/curve/-1/exploitability_pot_percent", "{:.2f}"),
      (f"{TURN1}/cfr+_curve/curve/-1/run_seconds", lambda s: f"{s:,.0f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "PCFR+ at {} ({}%) after {} s",
    "public_tree_turn_endgame1_pcfr+.json",
    [
      (f"{TURN1}/pcfr+_curve/curve/-1/exploitability_mbb", "{:.1f}"),
      (f"{TURN1}/pcfr+_curve/curve/-1/exploitability_pot_percent", "{:.2f}"),
      (f"{TURN1}/pcfr+_curve/curve/-1/run_seconds", lambda s: f"{s:,.0f}"),
    ],
  ),
  # README.md, continual re-solving on no-limit Leduc
  (
    "benchmarks/papers/README.md",
    "the agent with warm-started exact leaves is exploitable by {} chips per game, below CFR+ on the whole game at "
    "1,000 iterations ({})",
    "resolving_exact_warm.json",
    [
      ("results/stack_1200/exploitability/resolving_exact_warm/chips", "{:.3f}"),
      ("results/stack_1200/exploitability/cfr+_1000/chips", "{:.3f}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "by {} at 3,000 iterations per re-solve and {} at 1,000, as with exact leaves (`resolving_networks.json`",
    "resolving_networks.json",
    [
      ("results/stack_1200/exploitability/resolving_network_10000_iterations_3000/chips", "{:.2f}"),
      ("results/stack_1200/exploitability/resolving_network_10000/chips", "{:.2f}"),
    ],
  ),
  # docs/resolving.md, the agent with networks trained on its own queries
  (
    "docs/resolving.md",
    "at 3,000 iterations per re-solve ({} chips, {} mbb/g, with 10,000 situations)",
    "resolving_networks.json",
    [
      ("results/stack_1200/exploitability/resolving_network_10000_iterations_3000/chips", "{:.2f}"),
      ("results/stack_1200/exploitability/resolving_network_10000_iterations_3000/mbb_per_game", "{:.1f}"),
    ],
  ),
  (
    "docs/resolving.md",
    "{} and {} at 10,000, so the goal holds",
    "resolving_networks_10000_iterations_10000.json",
    [("results/seed_1/exploitability_chips", "{:.2f}"), ("results/seed_2/exploitability_chips", "{:.2f}")],
  ),
  (
    "docs/resolving.md",
    "and at 10,000 ({}, with 100,000)",
    "resolving_networks_100000_iterations_10000.json",
    [("results/exploitability_chips", "{:.2f}")],
  ),
  (
    "docs/resolving.md",
    "| 100,000 (50,000 + 3 x 16,667) | {} / {} |",
    "resolving_networks_100000.json",
    [
      ("results/stack_1200/value_network_data/100000/queries/0/error_on_them_before_training_on_them", "{:.3f}"),
      ("results/stack_1200/value_network_data/100000/queries/0/error_on_generated_held_out", "{:.3f}"),
    ],
  ),
  (
    "docs/resolving.md",
    "| the same, seeds 1 and 2 (`resolving_networks_seed1.json`, `_seed2.json`) | {} / {} | {} / {} |",
    "resolving_networks_seed1.json",
    [
      ("results/stack_1200/exploitability/resolving_network_10000/chips", "{:.2f}"),
      ("results/stack_1200/exploitability/resolving_network_10000/chips", lambda _: _chips("seed2", "")),
      ("results/stack_1200/exploitability/resolving_network_10000_iterations_3000/chips", "{:.2f}"),
      (
        "results/stack_1200/exploitability/resolving_network_10000/chips",
        lambda _: _chips("seed2", "_iterations_3000"),
      ),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "{} and {} at 3,000 with two other seeds",
    "resolving_networks_seed1.json",
    [
      ("results/stack_1200/exploitability/resolving_network_10000_iterations_3000/chips", "{:.2f}"),
      (
        "results/stack_1200/exploitability/resolving_network_10000/chips",
        lambda _: _chips("seed2", "_iterations_3000"),
      ),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "and {} with the mean of the three networks, `resolving_networks_ensemble.json`",
    "resolving_networks_ensemble.json",
    [("results/iterations_3000/exploitability_chips", "{:.2f}")],
  ),
  (
    "docs/resolving.md",
    "is better than any of them: {} chips at 3,000 iterations and {} at 10,000",
    "resolving_networks_ensemble.json",
    [
      ("results/iterations_3000/exploitability_chips", "{:.2f}"),
      ("results/iterations_10000/exploitability_chips", "{:.2f}"),
    ],
  ),
  # README.md, peers on Leduc as their authors run them
  (
    "benchmarks/README.md",
    "at its default one thread: CFR {} ms ({}x jaxcfr), CFR+ {} ms ({}x)",
    "peers_leduc.json",
    [
      (f"{PEERS}/liteefg_cfr_openspiel_leduc_1_thread/runs", _median_ms("{:.2f}")),
      ("results/ratios/liteefg_cfr_openspiel_leduc_1_thread", "{:.0f}"),
      (f"{PEERS}/liteefg_cfr_plus_openspiel_leduc_1_thread/runs", _median_ms("{:.2f}")),
      ("results/ratios/liteefg_cfr_plus_openspiel_leduc_1_thread", "{:.0f}"),
    ],
  ),
  (
    "benchmarks/README.md",
    "OpenSpiel's C++ CFRSolver {} ms ({}x) and CFRPlusSolver {} ms ({}x)",
    "peers_leduc.json",
    [
      (f"{PEERS}/openspiel_cpp_cfr/runs", _median_ms("{:.1f}")),
      ("results/ratios/openspiel_cpp_cfr", "{:.0f}"),
      (f"{PEERS}/openspiel_cpp_cfr_plus/runs", _median_ms("{:.1f}")),
      ("results/ratios/openspiel_cpp_cfr_plus", "{:.0f}"),
    ],
  ),
  # README.md and notebooks/README.md, Ponsen et al. 2011 Figure 4 (left)
  (
    "benchmarks/papers/README.md",
    "after 10^6 iterations MCCFR's squared error is {} and exploitability {}, MCTS settles at squared error {} and "
    "exploitability {}",
    "figure4_kuhn.json",
    [
      (f"{FIG4}/MCCFR (outcome sampling, eps 0.6)/squared_error/mean", _sci),
      (f"{FIG4}/MCCFR (outcome sampling, eps 0.6)/exploitability/mean", "{:.4f}"),
      (f"{FIG4}/MCTS (UCT, C = 2)/squared_error/mean", "{:.4f}"),
      (f"{FIG4}/MCTS (UCT, C = 2)/exploitability/mean", "{:.3f}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "MCTS's dominated error over the paper's seven actions falls from {} at half the run to {} at 10^6 iterations",
    "figure4_kuhn.json",
    [
      ("results/curves/MCTS (UCT, C = 2)/dominated_error/50", lambda seeds: f"{sum(seeds) / len(seeds):.3f}"),
      (f"{FIG4}/MCTS (UCT, C = 2)/dominated_error/mean", "{:.3f}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "MCCFR's from {} to {})",
    "figure4_kuhn.json",
    [
      (
        "results/curves/MCCFR (outcome sampling, eps 0.6)/dominated_error/50",
        lambda seeds: f"{sum(seeds) / len(seeds):.4f}",
      ),
      (f"{FIG4}/MCCFR (outcome sampling, eps 0.6)/dominated_error/mean", "{:.4f}"),
    ],
  ),
  # notebooks/README.md, the notebooks' rows: Chelarescu 2019 (02)
  (
    "benchmarks/papers/README.md",
    "3.9-3.12 reproduced (P2 within {} of heads {}, tails {} after {} CFR iterations)",
    "chelarescu_figures.json",
    [
      ("results/runs/coin_toss/at_figure_sizes/cfr/1000000/max_abs_deviation/0", _sci),
      ("results/runs/coin_toss/equilibrium/0", _fraction),
      ("results/runs/coin_toss/equilibrium/1", _fraction),
      ("configuration/iterations", _power_of_ten),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "3.13 reproduced (P2 swaps to heads {}, tails {}, within {})",
    "chelarescu_figures.json",
    [
      ("results/runs/coin_toss_reversed/equilibrium/0", _fraction),
      ("results/runs/coin_toss_reversed/equilibrium/1", _fraction),
      ("results/runs/coin_toss_reversed/at_figure_sizes/cfr/1000000/max_abs_deviation/0", _sci),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "3.5-3.8 reproduced (from the even start to {} / {} / {}, within {} for `rm`, {} for sampled regret matching, "
    "worst of {} seeds)",
    "chelarescu_figures.json",
    [
      ("results/runs/rps_plus/equilibrium/0", "{:g}"),
      ("results/runs/rps_plus/equilibrium/1", "{:g}"),
      ("results/runs/rps_plus/equilibrium/2", "{:g}"),
      ("results/runs/rps_plus/at_figure_sizes/rm/1000000/max_abs_deviation", _worst_of_seeds),
      ("results/runs/rps_plus/at_figure_sizes/mccfr-es/1000000/max_abs_deviation", _worst_of_seeds),
      ("configuration/seeds", "{}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "(`mccfr-es`: starts even, converges to {}, within {} after {})",
    "chelarescu_figures.json",
    [
      ("results/runs/rps/equilibrium/0", _fraction),
      ("results/runs/rps/at_figure_sizes/mccfr-es/1000000/max_abs_deviation", _worst_of_seeds),
      ("configuration/iterations", _power_of_ten),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "3.17-3.19 (Leduc) match the report's order (float64, after {} iterations CFR+ {}, LCFR {}, CFR {} milli-chips per "
    "game: LCFR only {}x below CFR); 3.14-3.16 (Kuhn) differ: CFR+ and LCFR swap order {} times at {} evaluations "
    "(CFR+ zigzags about LCFR's smooth curve) and LCFR ends lowest ({} against CFR+'s {} and CFR's {})",
    "chelarescu_poker.json",
    [
      ("results/leduc_poker/final_iteration", "{:,}"),
      ("results/leduc_poker/final_milli_chips/cfr+", "{:.3f}"),
      ("results/leduc_poker/final_milli_chips/lcfr", "{:.3f}"),
      ("results/leduc_poker/final_milli_chips/cfr", "{:.3f}"),
      ("results/leduc_poker/final_milli_chips", lambda v: f"{v['cfr'] / v['lcfr']:.0f}"),
      ("results/kuhn_poker/cfr+_lcfr_swaps", "{}"),
      ("results/kuhn_poker/evaluations", "{}"),
      ("results/kuhn_poker/final_milli_chips/lcfr", "{:.3f}"),
      ("results/kuhn_poker/final_milli_chips/cfr+", "{:.3f}"),
      ("results/kuhn_poker/final_milli_chips/cfr", "{:.3f}"),
    ],
  ),
  # notebooks/README.md, Waugh et al. 2015 (row 05)
  (
    "benchmarks/papers/README.md",
    "Against JQK the summed-error tree at {}% of 672 wins +{} mb/h where the paper's RCFR-22% wins +319.5: at a "
    "fixed threshold that tree grows with the iterations ({} leaves at {} iterations, {} at 10^5). The mean-error "
    "tree at {}% keeps its size, wins +{} and has the paper's Figure 1 shape. The RCFR+ MLP at {}% {} mb/h",
    "rcfr_figures.json",
    [
      ("results/sizes/tree-25/paper_relative_size", lambda v: f"{100 * v:.1f}"),
      ("results/vs_JQK_mbh/tree-25", "{:.1f}"),
      ("results/size_curves/tree-25/9/1", "{}"),
      ("results/size_curves/tree-25/9/0", "{:,}"),
      ("results/size_curves/tree-25/-1/1", "{}"),
      ("results/sizes/tree-mean-2e-07/paper_relative_size", lambda v: f"{100 * v:.1f}"),
      ("results/vs_JQK_mbh/tree-mean-2e-07", "{:.1f}"),
      ("results/sizes/mlp+-7/paper_relative_size", lambda v: f"{100 * v:.1f}"),
      ("results/vs_JQK_mbh/mlp+-7", lambda v: f"wins +{v:.1f}" if v > 0 else f"loses {-v:.1f}"),
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
  # notebooks/README.md, Ponsen et al. 2011 Figure 6 (row 04); the list of every figure: Johanson et al. 2007
  # Figure 1, Ponsen et al. 2011 Figure 7, Figure 4 (right) and Tables 1-2 in limit hold'em
  (
    "benchmarks/papers/README.md",
    "the gain rising from about zero at p = 0 (MCRNR {} on OCP(500), {} on Bluff(1,1,6), {} on Goofspiel(4), "
    "{} on PAM(3,3,5): its distance from convergence) to {}, {}, {} and {} at p = 1",
    "figure6_tradeoff.json",
    [(f"{FIG6.format(game)}/mcrnr/curve/0/gain_over_equilibrium", "{:.4f}") for game in FIG6_GAMES]
    + [(f"{FIG6.format(game)}/mcrnr/curve/-1/gain_over_equilibrium", "{:.3f}") for game in FIG6_GAMES],
  ),
  (
    "docs/rcfr.md",
    "like the abstractions (JQ.K {} after {} iterations, {} after 10^5) they drift up after a few hundred iterations: "
    "8 -> 14 -> 1 RCFR+ reaches {} after {} iterations and {} after 10^5, 8 -> 21 -> 1 {} and {}; only the larger "
    "network (8 -> 20 -> 16 -> 1) keeps improving ({} and {}) (`rcfr_figures.json`).",
    "rcfr_figures.json",
    [
      ("results/curves/JQ.K/5/1", "{:.3f}"),
      ("results/curves/JQ.K/5/0", "{}"),
      ("results/curves/JQ.K/-1/1", "{:.3f}"),
      ("results/curves/mlp+-14/6/1", "{:.3f}"),
      ("results/curves/mlp+-14/6/0", "{}"),
      ("results/curves/mlp+-14/-1/1", "{:.3f}"),
      ("results/curves/mlp+-21/6/1", "{:.3f}"),
      ("results/curves/mlp+-21/-1/1", "{:.3f}"),
      ("results/curves/mlp-20x16/6/1", "{:.3f}"),
      ("results/curves/mlp-20x16/-1/1", "{:.3f}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "with the average profile LCFR ends lowest ({} milli-chips per game against CFR+'s {} and CFR's {}) and the "
    "report's order holds at {}% of the evaluations; with the current profile (the report's \"current solution\") "
    "LCFR ends lowest too ({}%); with simultaneous updates CFR+ ends lowest but LCFR highest ({}%); CFR+ with a "
    "uniform average, {}%.",
    "chelarescu_kuhn_readings.json",
    [
      ("results/average/final_milli_chips/lcfr", "{:.4f}"),
      ("results/average/final_milli_chips/cfr+", "{:.4f}"),
      ("results/average/final_milli_chips/cfr", "{:.4f}"),
      ("results/average", lambda r: _order_share(r, ["lcfr", "cfr+", "cfr"])),
      ("results/current", lambda r: _order_share(r, ["lcfr", "cfr+", "cfr"])),
      ("results/simultaneous", lambda r: _order_share(r, ["cfr+", "cfr", "lcfr"])),
      ("results/cfr+ uniform average", lambda r: _order_share(r, ["lcfr", "cfr+", "cfr"])),
    ],
  ),
  (
    "docs/limit_holdem.md",
    "takes {} s of CPU and {} s of wall time on one idle core (the former build, which ranked every river board of "
    "every turn, takes about {} s of CPU by its first chunks",
    "strength_tables.json",
    [
      ("results/build_tables/cpu_seconds", "{:.1f}"),
      ("results/build_tables/wall_seconds", "{:.1f}"),
      ("results/former_turn_table/cpu_seconds_extrapolated", "{:.0f}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "gains more than MCRNR at every p above 0 on every game but one point ({}), by up to {} ({} against {} on "
    "OCP(500) at p = 1)",
    "figure6_tradeoff.json",
    [
      ("results/games", _rnr_behind_mcrnr),
      ("results/games", _rnr_most_ahead),
      (f"{FIG6.format(FIG6_GAMES[0])}/rnr/curve/-1/gain_over_equilibrium", "{:.3f}"),
      (f"{FIG6.format(FIG6_GAMES[0])}/mcrnr/curve/-1/gain_over_equilibrium", "{:.3f}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "a dense CFR iteration here costs as much as {} sampled trajectories (row `04` above)",
    "rnr_convergence.json",
    [("results/games", _trajectories_per_iteration)],
  ),
  (
    "benchmarks/papers/README.md",
    "on Bluff(1,1,6) and Goofspiel(4) MCRNR leads at first and RNR on vanilla CFR from {} and {} nodes on ({} and {} "
    "lower at the points both curves reach), and on PAM(3,3,5) RNR is ahead at {} both reach.",
    "rnr_convergence.json",
    [
      ("results/games", _rnr_lead_from("liars_dice(dice_sides=6)")),
      ("results/games", _rnr_lead_from("goofspiel(num_cards=4)")),
      ("results/games", _rnr_lead_range("liars_dice(dice_sides=6)")),
      ("results/games", _rnr_lead_range("goofspiel(num_cards=4)")),
      ("results/games", _rnr_lead_from("princess_and_monster(cols=3,horizon=5,rows=3)")),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "the paper's finding holds on OCP(500): after {} nodes MCRNR's NashConv at p = 0.5 is {} where RNR on vanilla "
    "CFR has {} after {}",
    "rnr_convergence.json",
    [
      (f"{FIG7_OCP}/mcrnr/-1/nodes_touched", lambda n: f"{n:.1e}"),
      (f"{FIG7_OCP}/mcrnr/-1/nash_conv/0", "{:.3f}"),
      (f"{FIG7_OCP}/rnr-cfr/2/nash_conv/0", "{:.2f}"),
      (f"{FIG7_OCP}/rnr-cfr/2/nodes_touched", lambda n: f"{n:.1e}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "Leduc, with frequentist models of CFR({}) and CFR+({}) from {} observed hands",
    "johanson_2007_figure1_leduc.json",
    [
      ("configuration/models/0", lambda model: model.split(":")[2]),
      ("configuration/models/1", lambda model: model.split(":")[2]),
      ("configuration/models/0", lambda model: f"{int(model.split(':')[3]):,}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "The models are outcome-sampling averages within the paper's bound on their NashConv on {} of the four games; "
    "Bluff(1,1,6)'s stops at {}",
    "rnr_convergence.json",
    [
      ("results/games", lambda games: _word(sum(game["model"]["nash_conv"] <= 0.1 for game in games.values()))),
      ("results/games/liars_dice(dice_sides=6)/model/nash_conv", "{:.2f}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "to {} iterations a curve (the paper's run length is not given; its reference is an MCCFR10 "
    "strategy, ours chance-sampled CFR after {} iterations of 8 deals). Both lose less and less to the reference "
    "(MCCFR10 {} sb/h after {} iterations and {} at the end, MCTS10 {} and {}) and MCTS10 levels off, as in the "
    "paper, but MCTS10 is never ahead: MCCFR10 leads at {} evaluation",
    "figure4_holdem.json",
    [
      ("configuration/iters", "{:,}"),
      ("configuration/reference_iters", "{:,}"),
      ("results/figure4_right/MCCFR10", lambda rows: f"{-rows[9]['sb_per_hand']:.3f}"),
      ("results/figure4_right/MCCFR10", lambda rows: _power_of_ten(rows[9]["iteration"])),
      ("results/figure4_right/MCCFR10", lambda rows: f"{-rows[-1]['sb_per_hand']:.3f}"),
      ("results/figure4_right/MCTS10", lambda rows: f"{-rows[9]['sb_per_hand']:.3f}"),
      ("results/figure4_right/MCTS10", lambda rows: f"{-rows[-1]['sb_per_hand']:.3f}"),
      (
        "results/figure4_right",
        lambda c: (
          "every"
          if all(a["sb_per_hand"] > b["sb_per_hand"] for a, b in zip(c["MCCFR10"], c["MCTS10"]))
          else "not every"
        ),
      ),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "after {} iterations MCCFR10 and MCTS10 win against the rule bot by about their 95% intervals ({} +- {} and "
    "{} +- {} sb/h; the reference wins {}), and MCCFR100 loses to it ({}) and to MCCFR10 ({})",
    "figure4_holdem.json",
    [
      ("configuration/iters", _power_of_ten),
      ("results/crosstable/MCCFR10/rule bot/sb_per_hand", "{:.3f}"),
      ("results/crosstable/MCCFR10/rule bot/ci95", "{:.3f}"),
      ("results/crosstable/MCTS10/rule bot/sb_per_hand", "{:.3f}"),
      ("results/crosstable/MCTS10/rule bot/ci95", "{:.3f}"),
      ("results/crosstable/CFR-CS10 (reference)/rule bot/sb_per_hand", "{:.3f}"),
      ("results/crosstable/rule bot/MCCFR100/sb_per_hand", "{:.3f}"),
      ("results/crosstable/MCCFR10/MCCFR100/sb_per_hand", "{:.3f}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "MCRNR100 (the 100-bucket rule bot as its model) wins less against the bot than MCRNR10 ({} against {} sb/h)",
    "figure4_holdem.json",
    [
      ("results/crosstable/MCRNR100/rule bot/sb_per_hand", "{:.2f}"),
      ("results/crosstable/MCRNR10/rule bot/sb_per_hand", "{:.2f}"),
    ],
  ),
  # notebooks/README.md, the list of every figure: Waugh et al. 2015 Figures 1-2 and Table 1
  (
    "benchmarks/papers/README.md",
    "the tree with threshold 0 follows CFR (its exploitability over CFR's at most {} at every checkpoint, "
    "`tree0_vs_cfr`), as the paper's RCFR-96% does, but of the other thresholds only threshold {} has stopped falling",
    "rcfr_figures.json",
    [
      ("results/tree0_vs_cfr/worst_ratio", "{:.3f}"),
      (
        "results",
        lambda results: " and ".join(
          f"{results['sizes'][name]['threshold']:g}"
          for name, curve in results["curves"].items()
          if name.startswith("tree-")
          and results["sizes"][name]["threshold"] > 0
          and curve[-1][1] > min(value for _, value in curve[:-1])
        ),
      ),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "at each of the {} abstractions' sizes the least exploitable tree and MLP no larger are {} than the abstraction",
    "rcfr_figures.json",
    [
      ("results/goals", lambda goals: _word(len(goals))),
      (
        "results/goals",
        lambda goals: (
          "less exploitable"
          if all(goal[kind]["less_exploitable"] for goal in goals for kind in ("tree", "mlp"))
          else "not always less exploitable"
        ),
      ),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "here {} of the {} same-size pairings (a tree or an MLP against the abstraction it is sized for, `goals` and "
    "`crosstable_mbh`) lose head to head, and JQK's tree, {} JQK, {} it",
    "rcfr_figures.json",
    [
      ("results", lambda results: f"{sum(value < 0 for value in _same_size_pairings(results))}"),
      ("results", lambda results: f"{len(_same_size_pairings(results))}"),
      (
        "results",
        lambda results: (
          "smaller than"
          if _jqk_goal(results)["tree"]["parameters"] < _jqk_goal(results)["parameters"]
          else "as large as"
        ),
      ),
      ("results", lambda results: "loses to" if _same_size_pairings(results)[0] < 0 else "beats"),
    ],
  ),
  # notebooks/README.md, Johanson et al. 2007 Tables 1 and 2 and Figure 2 on Leduc (row 10)
  (
    "benchmarks/papers/README.md",
    "models from {} observed hands per seat against the paper's call/raise probe with the call default, p per "
    "opponent for an exploitability near {} milli-chips per hand",
    "johanson_tables.json",
    [("configuration/hands", "{:,}"), ("configuration/epsilon", "{:.0f}")],
  ),
  (
    "benchmarks/papers/README.md",
    "**Table 1 {}**: as in the paper, {} is exploited most by its own FBR (diagonal mean {}, within {} of "
    "the exact best responses) and {} FBR loses to the equilibrium ({} to {}), exploitability {} to {}; but the "
    "FBRs are {}: off-diagonal mean {} with {} of {} entries negative (down to {}; the paper's: 35 of 42) and {} "
    "of {} below the equilibrium's",
    "johanson_tables.json",
    [
      ("results/table1_fbr", _table1_label),
      ("results/table1_fbr", lambda table: "each opponent" if _own_fbr_exploits_most(table) else "not each opponent"),
      ("results/table1_fbr/summary/diagonal_mean", "{:.0f}"),
      ("results/table1_fbr", _gap_to_best_response),
      ("results/table1_fbr", lambda table: "every" if max(_against_equilibrium(table)) < 0 else "not every"),
      ("results/table1_fbr", lambda table: f"{max(_against_equilibrium(table)):.0f}"),
      ("results/table1_fbr", lambda table: f"{min(_against_equilibrium(table)):.0f}"),
      ("results/table1_fbr", lambda table: f"{min(_counter_strategies(table, 'exploitability')):.0f}"),
      ("results/table1_fbr", lambda table: f"{max(_counter_strategies(table, 'exploitability')):.0f}"),
      (
        "results/table1_fbr",
        lambda table: "as brittle as the paper's" if _brittle(table) else "not brittle as the paper's are",
      ),
      ("results/table1_fbr/summary/off_diagonal_mean", "{:.0f}"),
      ("results/table1_fbr/summary/off_diagonal_negative", "{}"),
      ("results/table1_fbr/summary/off_diagonal_count", "{}"),
      ("results/table1_fbr/summary/off_diagonal_min", "{:.0f}"),
      ("results/table1_fbr/summary/off_diagonal_below_equilibrium", "{}"),
      ("results/table1_fbr/summary/off_diagonal_count", "{}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "brittleness depends on the model's data (1,000 hands: {} of {} negative; the exact opponent as model: {})",
    "johanson_tables.json",
    [
      ("results/sensitivity/1000/fbr/off_diagonal_negative", "{}"),
      ("results/sensitivity/1000/fbr/off_diagonal_count", "{}"),
      ("results/sensitivity/exact/fbr/off_diagonal_negative", "{}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "five of the seven exploitable by {} to {} milli-chips per hand, where the paper's A80 loses 1048 mb/h to its "
    "FBR and A60 is exploitable for over 2000 mb/h, a milli-small-bet being 2 milli-chips), they leave {} of {} "
    "entries negative (1,000 hands: {}; the exact opponent as model: {})",
    "johanson_tables_exploitable.json",
    [
      ("results/opponents", lambda o: f"{sorted(o[n]['exploitability'] for n in _KNOBS)[0]:,.0f}"),
      ("results/opponents", lambda o: f"{sorted(o[n]['exploitability'] for n in _KNOBS)[-1]:,.0f}"),
      ("results/table1_fbr/summary/off_diagonal_negative", "{}"),
      ("results/table1_fbr/summary/off_diagonal_count", "{}"),
      ("results/sensitivity/1000/fbr/off_diagonal_negative", "{}"),
      ("results/sensitivity/exact/fbr/off_diagonal_negative", "{}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "**Table 2 {}**: RNR (p {} to {}, exploitability {} to {}) diagonal mean {}, off-diagonal mean {} with "
    "{} of {} negative ({}), {} to {} against the equilibrium",
    "johanson_tables.json",
    [
      ("results", _table2_label),
      ("results/table2_rnr", lambda table: f"{min(_counter_strategies(table, 'p')):g}"),
      ("results/table2_rnr", lambda table: f"{max(_counter_strategies(table, 'p')):g}"),
      ("results/table2_rnr", lambda table: f"{min(_counter_strategies(table, 'exploitability')):.0f}"),
      ("results/table2_rnr", lambda table: f"{max(_counter_strategies(table, 'exploitability')):.0f}"),
      ("results/table2_rnr/summary/diagonal_mean", "{:.0f}"),
      ("results/table2_rnr/summary/off_diagonal_mean", "{:.0f}"),
      ("results/table2_rnr/summary/off_diagonal_negative", "{}"),
      ("results/table2_rnr/summary/off_diagonal_count", "{}"),
      ("results/table2_rnr/summary/off_diagonal_min", "{:.0f}"),
      ("results/table2_rnr", lambda table: f"{max(_against_equilibrium(table)):.0f}"),
      ("results/table2_rnr", lambda table: f"{min(_against_equilibrium(table)):.0f}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "**Figure 2 {} for the holdouts** (FBR experts {} [{}, {}], RNR experts {} [{}, {}], equilibrium {} "
    "[{}, {}] milli-chips per hand; {} match pairs of {} hands per seat",
    "johanson_tables.json",
    [
      ("results/figure2_averages", _figure2_label),
      *(
        (f"results/figure2_averages/{group}/holdout average/{key}", "{:.0f}")
        for group in ("FBR experts", "RNR experts", "Equilibrium")
        for key in ("mean", "low", "high")
      ),
      ("configuration/matches", "{}"),
      ("configuration/match_hands", "{:,}"),
    ],
  ),
  (
    "benchmarks/papers/README.md",
    "RNR experts also beat FBR experts on the training opponents ({} against {}), and within {} hands UCB1 spreads "
    "the hands almost evenly ({}% to {}% per expert)",
    "johanson_tables.json",
    [
      ("results/figure2_averages/RNR experts/training average/mean", "{:.0f}"),
      ("results/figure2_averages/FBR experts/training average/mean", "{:.0f}"),
      ("configuration/match_hands", "{:,}"),
      ("results/figure2", lambda figure2: _expert_pulls(figure2, min)),
      ("results/figure2", lambda figure2: _expert_pulls(figure2, max)),
    ],
  ),
  # README, the speed of the sampled solvers (ours[i]: K trajectories per update, B seeds, devices)
  (
    "benchmarks/README.md",
    "runs {}M trajectories/s, {}x OpenSpiel's C++ OutcomeSamplingMCCFRSolver ({}/s in that run); "
    "64 seeds {}x on one core "
    "and {}x over two (the goal is 30x); minibatches of K trajectories per update reach {}M/s on one core ({}x, "
    "K = {}) and {}M/s over two ({}x). External sampling on Leduc: {} ms per iteration, {}x OpenSpiel's C++ "
    "ExternalSamplingMCCFRSolver ({} ms in that run)",
    "mccfr_speed.json",
    [
      ("results/ours/0/trajectories_per_s", lambda x: f"{x / 1e6:.1f}"),
      ("results/ours/0/ratio_to_openspiel", "{:.1f}"),
      ("results/openspiel/trajectories_per_s", "{:,.0f}"),
      ("results/ours/1/ratio_to_openspiel", "{:.1f}"),
      ("results/ours/8/ratio_to_openspiel", "{:.1f}"),
      ("results/best_one_device/trajectories_per_s", lambda x: f"{x / 1e6:.1f}"),
      ("results/best_one_device/ratio_to_openspiel", "{:.1f}"),
      ("results/best_one_device/configuration/trajectories_per_update", "{:,}"),
      ("results/best/trajectories_per_s", lambda x: f"{x / 1e6:.1f}"),
      ("results/best/ratio_to_openspiel", "{:.1f}"),
      ("results/external_sampling/games/leduc_poker/ours/0/ms_per_iteration", "{:.4f}"),
      ("results/external_sampling/games/leduc_poker/es_speed_ratio_to_openspiel", "{:.1f}"),
      ("results/external_sampling/games/leduc_poker/openspiel/ms_per_iteration", "{:.4f}"),
    ],
  ),
  # docs/neural_cfr.md, Steinberger 2019's five-seed Leduc comparison
  (
    "docs/neural_cfr.md",
    "after {} iterations Deep CFR is at {} mbb/g [{}, {}] and SD-CFR at {} [{}, {}] (95% Student-t intervals over "
    "the seeds); the paired difference is {} [{}, {}], SD-CFR below in {} of 5 seeds",
    "neural_cfr_seeds.json",
    [
      ("results/evaluations/-1/iteration", "{}"),
      *(
        (f"results/evaluations/-1/{key}/{bound}", "{:.1f}")
        for key in ("deep_cfr_mbb", "sd_cfr_mbb")
        for bound in ("mean", "low", "high")
      ),
      *((f"results/evaluations/-1/deep_minus_sd_mbb/{bound}", "{:+.1f}") for bound in ("mean", "low", "high")),
      ("results/evaluations/-1/sd_cfr_below_in_seeds", "{}"),
    ],
  ),
  # docs/neural_cfr.md, the other games' table (three games, three methods each, in the file's order)
  (
    "docs/neural_cfr.md",
    " ".join(
      f"| {game} | `{method}` | {{}} | {{}} | {{}} | {{}} |"
      for game in ("liar's dice", "goofspiel(5)", "no-limit Leduc (stack 6)")
      for method in ("deep-cfr", "sd-cfr", "escher")
    ),
    "neural_cfr_games.json",
    [
      figure
      for row in range(9)
      for figure in (
        (f"results/curves/{row}/curve/-1/iteration", "{}"),
        (f"results/curves/{row}/seconds_per_iteration", "{:.2f}"),
        (f"results/curves/{row}/curve/-1/seconds", "{:.0f}"),
        (f"results/curves/{row}/final_mbb", "{:.1f}"),
      )
    ],
  ),
  # docs/neural_cfr.md, a batch of 8 seeds against one, with the fits and with the walks alone
  (
    "docs/neural_cfr.md",
    " ".join(
      f"| `{method}` | {{}} | {{}} | {{}}x | {{}} | {{}} | {{}}x | {{}} / {{}} |"
      for method in ("deep-cfr", "sd-cfr", "escher")
    ),
    "neural_cfr_batch.json",
    [
      figure
      for row in range(3)
      for figure in (
        *(
          (f"results/methods/{row}/{run}/{key}", fmt)
          for run in ("full", "walks_only")
          for key, fmt in (
            ("seconds_per_iteration_1_seeds", "{:.3f}"),
            ("seconds_per_iteration_8_seeds", "{:.3f}"),
            ("batch_over_one", "{:.2f}"),
          )
        ),
        (f"results/methods/{row}/fit_share_1_seeds", "{:.0%}"),
        (f"results/methods/{row}/fit_share_8_seeds", "{:.0%}"),
      )
    ],
  ),  # docs/neural_cfr.md, the longer Leduc runs' table (times to 100, 50 and 20 mbb/g; null: not reached)
  (
    "docs/neural_cfr.md",
    " ".join(
      f"| `{method}` | {{}} | {{}} | {{}} | {{}} | {{}} | {{}} | {{}} |"
      for method in ("deep-cfr", "sd-cfr", "cfr+", "escher")
    ),
    "neural_cfr_leduc.json",
    [
      figure
      for row in range(4)
      for figure in (
        (f"results/curves/{row}/curve/-1/iteration", "{}"),
        (f"results/curves/{row}/seconds_per_iteration", lambda x: f"{x:.3f}" if x >= 0.01 else _sci(x)),
        *((f"results/curves/{row}/seconds_to_{target}_mbb", _seconds_or_not_reached) for target in (100, 50, 20)),
        (f"results/curves/{row}/curve/-1/seconds", "{:.0f}"),
        (f"results/curves/{row}/final_mbb", "{:.1f}"),
      )
    ],
  ),
]


def _read(record: dict, path: str):
  value = record
  for key in path.split("/"):
    value = value[int(key)] if isinstance(value, list) else value[key]
  return value


def _normalised(text: str) -> str:
  return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("document, sentence, results, figures", QUOTES, ids=[q[1][:40] for q in QUOTES])
def test_a_quoted_figure_is_the_results_file_s(document, sentence, results, figures):
  record = json.loads(_results(results).read_text())
  values = [fmt(_read(record, path)) if callable(fmt) else fmt.format(_read(record, path)) for path, fmt in figures]
  want = _normalised(sentence.format(*values))
  text = _normalised((ROOT / document).read_text())
  assert want in text, f"{document} should say: {want!r} (from {_results(results)})"
