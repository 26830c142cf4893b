"""Statistics over a benchmark's seeds, the replicates of a claim: the mean, its 95% t interval
and, if asked, a t test of the mean (holdem_learning_seeds.py, holdem_table2_seeds.py,
figure4_holdem_hypotheses.py)."""

from __future__ import annotations

import numpy as np
from scipy import stats

TESTS = (None, "two-sided", "greater")


def over_seeds(values, test: str | None = "two-sided") -> dict:
  """``values`` [seeds]: each seed's, their mean and its 95% t interval (``ci95``); with a
  ``test``, also the standard error, ``t``, the degrees of freedom, how many seeds are
  positive, and the p-value: ``p_two_sided`` (the mean is zero) for "two-sided",
  ``p_one_sided_positive`` (the mean is not positive) for "greater". Without spread (every
  seed alike) ``t`` is None and the p-value 1 or 0."""
  if test not in TESTS:
    raise ValueError(f"test must be one of {TESTS}, got {test!r}")
  values = np.asarray(values, dtype=float)
  n = len(values)
  mean = float(values.mean())
  se = float(values.std(ddof=1) / np.sqrt(n))
  half = float(stats.t.ppf(0.975, n - 1) * se)
  interval = {"per_seed": [float(v) for v in values], "mean": mean}
  if test is None:
    return interval | {"ci95": [mean - half, mean + half]}
  t = mean / se if se > 0 else None
  if test == "two-sided":
    p = ("p_two_sided", float(2 * stats.t.sf(abs(t), n - 1)) if se > 0 else float(mean == 0))
  else:
    p = ("p_one_sided_positive", float(stats.t.sf(t, n - 1)) if se > 0 else float(mean <= 0))
  return interval | {
    "standard_error": se,
    "ci95": [mean - half, mean + half],
    "t": t,
    "df": n - 1,
    p[0]: p[1],
    "seeds_positive": int((values > 0).sum()),
  }
