"""The figures quoted from the tests of causes for Ponsen, de Jong and Lanctot, "Computing Approximate
Nash Equilibria and Robust Best-Responses Using Sampling" (JAIR 2011), Figure 4 (right) in limit
hold'em (figure4_holdem_hypotheses.json): see quoted_figures.py."""

import math

from quoted_figures import _word, quoted_test

# Ponsen et al. 2011 Figure 4 (right), tests of causes (figure4_holdem_hypotheses.json)
HYPOTHESES = "figure4_holdem_hypotheses.json"
FIGURE_REFERENCE = "CFR-CS10 after 300,000"


def _iterations(n: int) -> str:
  """10^4 for 10000, 3x10^5 for 300000."""
  exponent = math.floor(math.log10(n))
  mantissa = n // 10**exponent
  assert mantissa * 10**exponent == n, n
  return f"10^{exponent}" if mantissa == 1 else f"{mantissa}x10^{exponent}"


def _listed(items: list) -> str:
  """'a, b and c'."""
  return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _constant(label: str) -> str:
  """'17' for 'MCTS10 (C = 17)'."""
  return label.removeprefix("MCTS10 (C = ").removesuffix(")")


def _leads_by_mean(reference: str):
  """The (C, point) pairs at which MCTS10's mean over the seeds leads MCCFR10's against ``reference``,
  as 'none of the 25 (C, point) pairs' or '5 of the 25 (C, point) pairs: C = 5 at 10^4 and 3x10^4; C = 10 at 10^4'."""

  def text(hypotheses: dict) -> str:
    rows = hypotheses[reference]
    by_constant = {}
    for row in rows:
      for label in row["mcts_constants_leading_by_mean"]:
        by_constant.setdefault(_constant(label), []).append(_iterations(row["iteration"]))
    found = sum(len(points) for points in by_constant.values())
    total = f"the {len(rows) * len(rows[0]['seeds_mcts_leads'])} (C, point) pairs"
    if not found:
      return f"none of {total}"
    return f"{found} of {total}: " + "; ".join(f"C = {c} at {_listed(p)}" for c, p in by_constant.items())

  return text


def _seeds_agree(reference: str):
  """The (C, point) pairs at which every seed orders MCTS10 and MCCFR10 of the same seed alike, as '21 of the 25'."""

  def text(results: dict) -> str:
    rows = results["hypotheses"][reference]
    seeds = len(results["summary"][reference]["MCCFR10"][0]["per_seed"])
    counts = [n for row in rows for n in row["seeds_mcts_leads"].values()]
    return f"{sum(n in (0, seeds) for n in counts)} of the {len(counts)}"

  return text


def _seeds_leading(reference: str, constant: str | None):
  """The (seed, point) pairs at which MCTS10 (at ``constant``, or any C when None) leads MCCFR10 of
  the same seed against ``reference``, as '0 of the 20'."""

  def text(results: dict) -> str:
    rows = results["hypotheses"][reference]
    seeds = len(results["summary"][reference]["MCCFR10"][0]["per_seed"])
    labels = [f"MCTS10 (C = {constant})"] if constant else list(rows[0]["seeds_mcts_leads"])
    count = sum(row["seeds_mcts_leads"][label] for row in rows for label in labels)
    return f"{count} of the {seeds * len(rows) * len(labels)}"

  return text


def _margin(reference: str, k: int):
  """The best C at point ``k`` and its mean's margin over MCCFR10's, as 'C = 5, 0.123 sb/h behind'."""

  def text(hypotheses: dict) -> str:
    row = hypotheses[reference][k]
    margin = row["best_mcts_minus_mccfr"]
    return f"C = {_constant(row['best_mcts'])}, {abs(margin):.3f} sb/h {'ahead' if margin > 0 else 'behind'}"

  return text


def _loss(reference: str, label: str, k: int):
  """An agent's mean loss to ``reference`` at point ``k`` with its interval over the seeds, as
  '0.260 (0.241 to 0.280)'."""

  def text(summary: dict) -> str:
    row = summary[reference][label][k]
    low, high = row["ci95"]
    return f"{-row['mean']:.3f} ({-high:.3f} to {-low:.3f})"

  return text


SHORT_REFERENCE = "CFR-CS10 after 30,000"
MCCFR_REFERENCE = "MCCFR10 after 10,000,000"
# the record's exploration constants and its number of seeds, as the prose lists them
UCT_CONSTANTS = ("configuration/uct_c", lambda constants: _listed([f"{c:g}" for c in constants]))
SEED_COUNT = ("configuration/seeds", lambda seeds: _word(len(seeds)))
HYPOTHESES_QUOTES = [
  (
    "docs/limit_holdem.md",
    "MCCFR10 and MCTS10 at C = {}, each run with {} seeds, evaluated at {} iterations on {} duplicate deals against "
    "three references: the figure's (CFR-CS10 after {} iterations), a shorter run of it (after {}) and outcome-sampling "
    "MCCFR10 after {} (the paper's kind of reference)",
    HYPOTHESES,
    [
      UCT_CONSTANTS,
      SEED_COUNT,
      ("configuration/points", lambda points: _listed([_iterations(p) for p in points])),
      ("configuration/deals", "{:,}"),
      ("configuration/reference_iters", "{:,}"),
      ("configuration/short_reference_iters", "{:,}"),
      ("configuration/mccfr_reference_iters", "{:,}"),
    ],
  ),
]


def _lead_at(reference: str, k: int):
  """Whether some C's mean leads MCCFR10's at point ``k``: 'no C leads' or 'C = 5 leads'."""

  def text(hypotheses: dict) -> str:
    leading = [f"C = {_constant(label)}" for label in hypotheses[reference][k]["mcts_constants_leading_by_mean"]]
    return f"{_listed(leading)} {'leads' if len(leading) == 1 else 'lead'}" if leading else "no C leads"

  return text


LAST = -1
HYPOTHESES_QUOTES += [
  (
    "docs/limit_holdem.md",
    "Against the figure's reference, MCTS10's mean over the seeds leads MCCFR10's at {}.",
    HYPOTHESES,
    [("results/hypotheses", _leads_by_mean(FIGURE_REFERENCE))],
  ),
  (
    "docs/limit_holdem.md",
    "At {} iterations, the paper's first evaluation and figure4_holdem.json's, {}: the best is {}; MCCFR10 loses {} "
    "sb/h to the reference, MCTS10 at C = 5 {}, at C = 17 {}",
    HYPOTHESES,
    [
      ("configuration/points", lambda points: _iterations(points[LAST])),
      ("results/hypotheses", _lead_at(FIGURE_REFERENCE, LAST)),
      ("results/hypotheses", _margin(FIGURE_REFERENCE, LAST)),
      ("results/summary", _loss(FIGURE_REFERENCE, "MCCFR10", LAST)),
      ("results/summary", _loss(FIGURE_REFERENCE, "MCTS10 (C = 5)", LAST)),
      ("results/summary", _loss(FIGURE_REFERENCE, "MCTS10 (C = 17)", LAST)),
    ],
  ),
  (
    "docs/limit_holdem.md",
    "At {} iterations the best is {}",
    HYPOTHESES,
    [
      ("configuration/points", lambda points: _iterations(points[0])),
      ("results/hypotheses", _margin(FIGURE_REFERENCE, 0)),
    ],
  ),
  (
    "docs/limit_holdem.md",
    "The seeds order MCTS10 and MCCFR10 of the same seed alike at {} (C, point) pairs; MCTS10 at C = 17 leads at {} "
    "(seed, point) pairs, at C = 5 at {} and at C = 3 at {}.",
    HYPOTHESES,
    [
      ("results", _seeds_agree(FIGURE_REFERENCE)),
      ("results", _seeds_leading(FIGURE_REFERENCE, "17")),
      ("results", _seeds_leading(FIGURE_REFERENCE, "5")),
      ("results", _seeds_leading(FIGURE_REFERENCE, "3")),
    ],
  ),
  (
    "docs/limit_holdem.md",
    "Against the shorter reference MCTS10's mean leads at {}; against MCCFR10 after {} iterations at {}.",
    HYPOTHESES,
    [
      ("results/hypotheses", _leads_by_mean(SHORT_REFERENCE)),
      ("configuration/mccfr_reference_iters", "{:,}"),
      ("results/hypotheses", _leads_by_mean(MCCFR_REFERENCE)),
    ],
  ),
]


def _behind_at(reference: str, constant: str):
  """'every' when MCTS10 at ``constant`` trails MCCFR10 by its mean at every point against ``reference``."""

  def text(hypotheses: dict) -> str:
    label = f"MCTS10 (C = {constant})"
    return (
      "not every" if any(label in row["mcts_constants_leading_by_mean"] for row in hypotheses[reference]) else "every"
    )

  return text


def _same_pairs(hypotheses: dict) -> str:
  """'the same pairs' when the three references' (C, point) pairs at which MCTS10 leads are the same,
  else 'the same pairs except at C = 1 and 2' (the constants whose pairs differ)."""
  labels = list(next(iter(hypotheses.values()))[0]["seeds_mcts_leads"])
  differ = [
    _constant(label)
    for label in labels
    if len(
      {
        tuple(row["iteration"] for row in rows if label in row["mcts_constants_leading_by_mean"])
        for rows in hypotheses.values()
      }
    )
    > 1
  ]
  return f"the same pairs except at C = {_listed(differ)}" if differ else "the same pairs"


def _best_by_point(reference: str):
  """The best C by the mean at each point, as 'C = 3 at 10^4 and 3x10^4; C = 5 at 10^5'."""

  def text(hypotheses: dict) -> str:
    by_constant = {}
    for row in hypotheses[reference]:
      by_constant.setdefault(_constant(row["best_mcts"]), []).append(_iterations(row["iteration"]))
    return "; ".join(f"C = {c} at {_listed(p)}" for c, p in by_constant.items())

  return text


def _differences(reference: str, constants: list, points: list):
  """MCTS10's mean minus MCCFR10's at ``points`` (indices) for each of ``constants``, as
  '+0.025 and -0.056 at C = 1; +0.010 and -0.029 at C = 2'."""

  def text(summary: dict) -> str:
    mccfr = summary[reference]["MCCFR10"]
    parts = []
    for c in constants:
      rows = summary[reference][f"MCTS10 (C = {c})"]
      differences = [f"{rows[k]['mean'] - mccfr[k]['mean']:+.3f}" for k in points]
      parts.append(f"{_listed(differences)} at C = {c}")
    return "; ".join(parts)

  return text


HYPOTHESES_QUOTES += [
  (
    "benchmarks/papers/README.md",
    "C = {}, {} seeds, {} to {} iterations, three references): against the figure's reference MCTS10's mean leads "
    "MCCFR10's at {}, and at {} iterations {}; the two other references give {}. The best C by the mean is {}. The "
    "difference is the paper's C = 17 (behind at {} point here)",
    HYPOTHESES,
    [
      UCT_CONSTANTS,
      SEED_COUNT,
      ("configuration/points", lambda points: _iterations(points[0])),
      ("configuration/points", lambda points: _iterations(points[LAST])),
      ("results/hypotheses", _leads_by_mean(FIGURE_REFERENCE)),
      ("configuration/points", lambda points: _iterations(points[LAST])),
      ("results/hypotheses", _lead_at(FIGURE_REFERENCE, LAST)),
      ("results/hypotheses", _same_pairs),
      ("results/hypotheses", _best_by_point(FIGURE_REFERENCE)),
      ("results/hypotheses", _behind_at(FIGURE_REFERENCE, "17")),
    ],
  ),
]


HYPOTHESES_QUOTES += [
  (
    "docs/limit_holdem.md",
    "Below C = 5 the lead does not keep growing: against the figure's reference the best C by the mean is {}. "
    "MCTS10's mean minus MCCFR10's at {} and {} iterations, in sb/h: {}.",
    HYPOTHESES,
    [
      ("results/hypotheses", _best_by_point(FIGURE_REFERENCE)),
      ("configuration/points", lambda points: _iterations(points[0])),
      ("configuration/points", lambda points: _iterations(points[1])),
      ("results/summary", _differences(FIGURE_REFERENCE, ["1", "2", "3", "5"], [0, 1])),
    ],
  ),
]


QUOTES = HYPOTHESES_QUOTES

test_a_quoted_figure_is_the_results_file_s = quoted_test(QUOTES)
