"""The figures quoted from the results of Chelarescu, "Learning strategies in large
imperfect-information games" (2019): see quoted_figures.py."""

from fractions import Fraction


from quoted_figures import (
  _power_of_ten,
  _sci,
  quoted_test,
)


def _fraction(x: float) -> str:
  return str(Fraction(x).limit_denominator(100))


def _worst_of_seeds(deviations: list) -> str:
  return _sci(max(deviations))


def _order_share(reading: dict, order_at_end: list) -> str:
  """chelarescu_kuhn_readings.json: the share (%) of the evaluations at which the report's order
  holds, once the order at the end is the one the text names."""
  assert reading["order_at_end"] == order_at_end, reading["order_at_end"]
  return f"{100 * reading['report_order_share']:.0f}"


QUOTES = [
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
]

test_a_quoted_figure_is_the_results_file_s = quoted_test(QUOTES)
