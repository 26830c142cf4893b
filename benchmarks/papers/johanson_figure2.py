"""Johanson, Zinkevich and Bowling, "Computing Robust Counter-Strategies" (NIPS 2007), Figure 2 on
Leduc poker (johanson_tables.py runs it): UCB1 hand by hand over FBR experts, over RNR experts,
or the equilibrium, against training and holdout opponents; the group averages over match
pairs; what each expert wins exactly; the bar chart."""

from __future__ import annotations

import jax
import numpy as np


def figure2(tensors, expert_sets: dict, opponents_: dict, config: dict, key) -> dict:
  """UCB1 matches of each expert set against each opponent, both seats.

  Returns:
    {set: {opponent: {"mean", "low", "high", "per_match": [M] milli-chips per hand, "pulls": [E]
    mean share of hands per expert}}}
  """
  from jaxcfr.evaluate import experts  # pylint: disable=import-outside-toplevel
  from jaxcfr.evaluate.head_to_head import Z95  # pylint: disable=import-outside-toplevel

  out = {}
  for s, (set_name, agents) in enumerate(expert_sets.items()):
    per_set = {}
    for o, (name, profile) in enumerate(opponents_.items()):
      seat_means, pulls = [], []
      for seat in (0, 1):
        stack = np.stack([np.asarray(a[seat]) for a in agents])
        match_key = jax.random.fold_in(jax.random.fold_in(jax.random.fold_in(key, s), o), seat)
        pull, _, payoffs = experts.ucb1_matches(
          tensors,
          seat,
          stack,
          profile[1 - seat],
          match_key,
          num_hands=config["match_hands"],
          num_matches=config["matches"],
        )
        seat_means.append(np.asarray(payoffs).mean(1))
        pulls.append(np.asarray(pull) / config["match_hands"])
      per_match = 1000 * (seat_means[0] + seat_means[1]) / 2
      half = Z95 * per_match.std(ddof=1) / np.sqrt(len(per_match))
      per_set[name] = {
        "mean": float(per_match.mean()),
        "low": float(per_match.mean() - half),
        "high": float(per_match.mean() + half),
        "per_match": per_match.tolist(),
        "pulls": np.mean(pulls, axis=(0, 1)).tolist(),
      }
    out[set_name] = per_set
  return out


def averages(figure: dict, groups: dict) -> dict:
  """{set: {group: {mean, low, high}}}: per match pair, the mean over a group's opponents, then
  the 95% interval over the match pairs."""
  from jaxcfr.evaluate.head_to_head import Z95  # pylint: disable=import-outside-toplevel

  out = {}
  for set_name, per_set in figure.items():
    out[set_name] = {}
    for group, names in groups.items():
      per_match = np.mean([per_set[n]["per_match"] for n in names], axis=0)
      half = Z95 * per_match.std(ddof=1) / np.sqrt(len(per_match))
      out[set_name][group] = {
        "mean": float(per_match.mean()),
        "low": float(per_match.mean() - half),
        "high": float(per_match.mean() + half),
      }
  return out


def exact_expert_values(tables, training, faced) -> dict:
  """{set: {opponent: {"experts": {training opponent: exact value}, "mean", "best"}}}: what each
  expert of Figure 2 wins against each opponent faced (from the tables, milli-chips per hand),
  their mean (a uniform choice among the experts) and the best expert."""
  out = {}
  for kind, result in zip(("FBR", "RNR"), tables):
    per_set = {}
    for name in faced:
      column = result["columns"].index(name)
      values = {t: result["values"][result["rows"].index(f"{kind}-{t}")][column] for t in training}
      per_set[name] = {"experts": values, "mean": float(np.mean(list(values.values()))), "best": max(values.values())}
    out[f"{kind} experts"] = per_set
  return out


def plot(results: dict, path, training=None) -> None:
  """Figure 2: mean winnings per hand with 95% intervals, per opponent and group average
  (``training``: the training opponents, by default those of the results' experts)."""
  try:
    import matplotlib  # pylint: disable=import-outside-toplevel

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
  except ImportError:
    return
  figure, groups = results["figure2"], results["figure2_averages"]
  if training is None:
    training = list(next(iter(results["figure2_exact_expert_values"]["FBR experts"].values()))["experts"])
  holdouts = [name for name in next(iter(figure.values())) if name not in training]
  labels = [*training, "training average", *holdouts, "holdout average"]
  sets = list(figure)
  fig, ax = plt.subplots(figsize=(11, 4))
  width = 0.8 / len(sets)
  for k, set_name in enumerate(sets):
    cells = [groups[set_name][g] if g in groups[set_name] else figure[set_name][g] for g in labels]
    means = np.array([c["mean"] for c in cells])
    errors = np.array([[c["mean"] - c["low"] for c in cells], [c["high"] - c["mean"] for c in cells]])
    x = np.arange(len(labels)) + (k - (len(sets) - 1) / 2) * width
    ax.bar(x, means, width, yerr=errors, capsize=2, label=set_name)
  ax.axhline(0, color="black", linewidth=0.6)
  ax.axvline(len(training) + 0.5, color="grey", linewidth=0.6, linestyle=":")
  ax.set_xticks(np.arange(len(labels)), labels, rotation=20, fontsize=8)
  ax.set_ylabel("milli-chips per hand")
  ax.set_title("UCB1 over FBR experts, RNR experts, and the equilibrium (Leduc; 95% intervals over match pairs)")
  ax.legend(fontsize=8)
  fig.tight_layout()
  fig.savefig(path, dpi=120)
  plt.close(fig)
