"""benchmarks/papers/chelarescu_figures.py (Chelarescu 2019 Figures 3.1-3.13): the runs start from the
even profile and end on the report's gray lines, and the committed results file holds the
report's full sizes."""

import functools
import sys
from pathlib import Path

import numpy as np

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
sys.path.insert(0, str(BENCHMARKS / "papers"))

import chelarescu_figures as figures  # noqa: E402  pylint: disable=wrong-import-position
import record  # noqa: E402  pylint: disable=wrong-import-position


@functools.cache
def small():
  return figures.compute(1000, seeds=2, log=lambda line: None)


def test_checkpoints_cover_every_figure_width():
  points = figures.checkpoints(10**6)
  assert list(points[:200]) == list(range(1, 201)) and points[-1] == 10**6
  assert np.all(np.diff(points) > 0)
  for n in (10**3, 10**4, 10**5, 10**6):  # 200 points per figure's width: 180 in its last 90 %
    assert n in points and np.sum((points > n // 10) & (points <= n)) >= 180
  assert list(figures.checkpoints(150)) == list(range(1, 151))


def test_runs_start_even_and_reach_the_equilibria():
  results = small()
  runs = results["runs"]
  assert results["iterations"][-1] == 1000
  # exact regret matching: RPS's even start is its equilibrium and never moves; RPS+ moves
  np.testing.assert_allclose(runs["rps"]["curves"]["rm"], 1 / 3, atol=1e-5)
  rps_plus = np.asarray(runs["rps_plus"]["curves"]["rm"])  # [actions, checkpoints]
  np.testing.assert_allclose(rps_plus[:, 0], 1 / 3, atol=1e-5)
  np.testing.assert_allclose(rps_plus[:, -1], (0.4, 0.4, 0.2), atol=0.03)
  # sampled regret matching leaves the even start on RPS and comes back
  sampled = np.asarray(runs["rps"]["curves"]["mccfr-es"])
  assert np.abs(sampled - 1 / 3).max() > 0.1
  assert max(runs["rps"]["at_figure_sizes"]["mccfr-es"]["1000"]["max_abs_deviation"]) < 0.06
  # Coin Toss: P2's guess, swapped when the sell outcomes are reversed (Figure 3.13)
  for name, equilibrium in (("coin_toss", (0.25, 0.75, 0.0)), ("coin_toss_reversed", (0.75, 0.25, 0.0))):
    run = runs[name]
    assert run["player"] == 1 and run["infoset"] == "play" and run["equilibrium"] == list(equilibrium)
    np.testing.assert_allclose(run["at_figure_sizes"]["cfr"]["1000"]["average"], equilibrium, atol=1e-3)


def test_the_results_file_holds_the_report_sizes():
  saved = record.read_record(BENCHMARKS / "papers" / "results" / "chelarescu_figures.json")
  assert saved["configuration"]["iterations"] == 10**6
  results = saved["results"]
  assert sorted(results["figures"], key=lambda k: int(k.split(".")[1])) == [f"3.{k}" for k in range(1, 14)]
  assert results["figures"]["3.13"] == {"run": "coin_toss_reversed", "iterations": 10**6}
  points = len(results["iterations"])
  for name, run in results["runs"].items():
    for algorithm, curve in run["curves"].items():
      assert np.shape(curve) == (3, points), (name, algorithm)
      assert sorted(run["at_figure_sizes"][algorithm], key=int) == ["1000", "10000", "100000", "1000000"]
      final = max(run["at_figure_sizes"][algorithm]["1000000"]["max_abs_deviation"])
      assert final < 2e-3, (name, algorithm, final)
