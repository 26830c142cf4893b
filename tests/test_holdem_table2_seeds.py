"""benchmarks/papers/holdem_table2_seeds.py (Ponsen et al. 2011 Table 2 over seeds): the statistics over
the seeds are the paired t test's and the t interval's."""

import sys
from pathlib import Path

import numpy as np
from scipy import stats

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
sys.path.insert(0, str(BENCHMARKS / "papers"))

import holdem_table2_seeds as table2  # noqa: E402  pylint: disable=wrong-import-position


def test_the_difference_over_seeds_is_the_paired_t_test():
  ten, hundred = [0.54, 0.47, 0.51, 0.60], [0.35, 0.41, 0.30, 0.44]
  runs = {
    str(seed): {"MCRNR10": {"sb_per_hand": a}, "MCRNR100": {"sb_per_hand": b}}
    for seed, (a, b) in enumerate(zip(ten, hundred))
  }
  summary = table2.summary(runs)
  paired = stats.ttest_rel(ten, hundred)
  difference = summary["MCRNR10_minus_MCRNR100"]
  np.testing.assert_allclose(difference["per_seed"], np.subtract(ten, hundred))
  np.testing.assert_allclose([difference["t"], difference["p_two_sided"]], [paired.statistic, paired.pvalue])
  assert difference["df"] == 3 and difference["seeds_positive"] == 4
  interval = stats.t.interval(0.95, 3, loc=np.mean(ten), scale=stats.sem(ten))
  np.testing.assert_allclose(summary["MCRNR10"]["ci95"], interval)
  assert summary["MCRNR100"]["per_seed"] == hundred


def test_equal_seeds_have_no_spread():
  same = table2.over_seeds([0.5, 0.5, 0.5])
  assert same["ci95"] == [0.5, 0.5] and same["t"] is None and same["p_two_sided"] == 0.0


def test_the_one_sided_test_and_the_interval_alone():
  """seed_statistics.over_seeds, shared by the papers' seed records: "greater" is the one-sided t
  test that the mean is positive (holdem_learning_seeds.py); no test, the interval alone
  (figure4_holdem_hypotheses.py); an unknown test is refused."""
  import pytest
  from seed_statistics import over_seeds

  values = [0.2, 0.5, 0.1, 0.4, 0.3]
  greater = over_seeds(values, "greater")
  np.testing.assert_allclose(
    greater["p_one_sided_positive"], stats.ttest_1samp(values, 0, alternative="greater").pvalue
  )
  assert "p_two_sided" not in greater
  alone = over_seeds(values, test=None)
  assert set(alone) == {"per_seed", "mean", "ci95"} and alone["ci95"] == greater["ci95"]
  with pytest.raises(ValueError, match="test must be one of"):
    over_seeds(values, "less")
