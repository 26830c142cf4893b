"""Lanctot et al. 2009's Figure 1 drawn from figure1_nodes_touched.json, against nodes touched
and against wall time, and the order of the paper's four algorithms on each axis.

The paper says that nodes touched and wall time give "nearly identical" results (section 5).
Each curve's ``seconds`` are the wall time of the run that drew it (evaluations left out), on
this 2-core CPU, for its batch of seeds (a sampled curve's first run; seeds added later by
``--more-seeds`` keep the first run's seconds): ``per_seed_seconds`` divides them by that
batch's seeds. CFR with pruning follows CFR's iterates at CFR's cost per iteration (our dense
iteration does not skip the pruned subtrees; only its node count is smaller).

``orders`` ranks CFR, CFR with pruning, outcome and external sampling by NashConv (log-log
interpolation) at the largest number of nodes and at the longest time that all four curves
reach.

    python benchmarks/papers/figure1_plot.py  # redraws figure1_nodes_touched.png and figure1_wall_time.png
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"
FOUR = ("cfr", "cfr-pruning", "mccfr-os", "mccfr-es")  # the paper's algorithms
LABELS = {
  "cfr": "CFR",
  "cfr-pruning": "CFR with pruning",
  "cfr-simultaneous": "CFR, simultaneous",
  "cfr-pruning-simultaneous": "CFR with pruning, simultaneous",
  "mccfr-os": "MCCFR-outcome",
  "mccfr-es": "MCCFR-external",
  "cfr-cs": "CFR chance-sampled",
  "mccfr-os-optimistic": "MCCFR-outcome, optimistic averaging",
  "mccfr-os-both": "MCCFR-outcome, both players exploring",
  "mccfr-os-simultaneous": "MCCFR-outcome, one walk updates both players",
}
# one colour per algorithm in every panel; the simultaneous-update curves dotted in CFR's colours
COLORS = {
  "cfr": "C0",
  "cfr-pruning": "C1",
  "mccfr-os": "C2",
  "mccfr-es": "C3",
  "cfr-cs": "C4",
  "mccfr-os-optimistic": "C5",
  "mccfr-os-both": "C6",
  "mccfr-os-simultaneous": "C8",
}


def batch_seeds(entry: dict, algorithm: str) -> int:
  """The seeds of the run whose seconds a curve records (1 for CFR)."""
  rows = entry["algorithms"][algorithm]
  seeds = len(rows[-1].get("nash_conv_per_seed", [0]))
  added = entry.get("measured_per_algorithm", {}).get(algorithm, {}).get("seeds_added", [])
  return seeds - sum(a["seeds"] for a in added)


def compile_seconds(rows: list) -> float:
  """CFR's compilation in its first checkpoint's seconds: those seconds less the iterations to it
  at the rate of the second checkpoint (0 for a curve of one checkpoint or a sampled curve,
  whose compilation is an untimed probe)."""
  if len(rows) < 2 or "nash_conv_per_seed" in rows[-1]:
    return 0.0
  (i1, t1), (i2, t2) = ((r["iteration"], r["seconds"]) for r in rows[:2])
  return max(t1 - i1 * (t2 - t1) / (i2 - i1), 0.0)


def curve_x(entry: dict, algorithm: str, axis: str) -> list:
  """The curve's x: nodes touched, "seconds" (without CFR's compilation, over the batch's
  seeds) or "batch_seconds" (without CFR's compilation, for the whole batch)."""
  rows = entry["algorithms"][algorithm]
  if axis == "nodes_touched":
    return [r["nodes_touched"] for r in rows]
  compiling = compile_seconds(rows)
  seeds = batch_seeds(entry, algorithm) if axis == "seconds" else 1
  return [(r["seconds"] - compiling) / seeds for r in rows]


def value_at(xs: list, ys: list, x: float) -> float | None:
  """NashConv at ``x`` by log-log interpolation between checkpoints; None outside the curve."""
  if not xs or x < xs[0] * (1 - 1e-9) or x > xs[-1] * (1 + 1e-9):
    return None
  return float(np.exp(np.interp(np.log(x), np.log(xs), np.log(ys))))


def order(entry: dict, axis: str, algorithms=FOUR) -> dict:
  """{"at": the largest x every curve reaches, "values": {algorithm: NashConv there}, "order": the
  algorithms least exploitable first, equal values (CFR and CFR with pruning at equal time)
  as one group}."""
  present = [a for a in algorithms if a in entry["algorithms"]]
  at = min(curve_x(entry, a, axis)[-1] for a in present)
  values = {a: value_at(curve_x(entry, a, axis), [r["nash_conv"] for r in entry["algorithms"][a]], at) for a in present}
  groups = []
  for a in sorted(present, key=lambda a: (values[a] is None, values[a] or 0.0)):
    if groups and values[a] is not None and np.isclose(values[a], values[groups[-1][0]], rtol=1e-9):
      groups[-1].append(a)
    else:
      groups.append([a])
  return {"at": at, "values": values, "order": groups}


def swapped(first: list, second: list) -> list:
  """The pairs of algorithms that ``first`` and ``second`` (orders: lists of groups) rank the
  opposite way (a tie in one is no swap)."""
  rank = lambda groups: {a: i for i, g in enumerate(groups) for a in g}
  one, two = rank(first), rank(second)
  names = [a for a in one if a in two]
  return [(a, b) for i, a in enumerate(names) for b in names[i + 1 :] if (one[a] - one[b]) * (two[a] - two[b]) < 0]


def orders(result: dict) -> dict:
  """{game: {axis: order for nodes_touched, seconds and batch_seconds, "swapped": the pairs that
  nodes and seconds rank the opposite way, "batch_swapped": those of seconds and batch_seconds}}."""
  out = {}
  for name, entry in result["games"].items():
    row = {axis: order(entry, axis) for axis in ("nodes_touched", "seconds", "batch_seconds")}
    row["swapped"] = swapped(row["nodes_touched"]["order"], row["seconds"]["order"])
    row["batch_swapped"] = swapped(row["seconds"]["order"], row["batch_seconds"]["order"])
    out[name] = row
  return out


def order_text(groups: list) -> str:
  """An order as the ledger writes it: 'external sampling, outcome sampling, CFR with pruning, CFR'."""
  return ", ".join(" = ".join(NAMES[a] for a in group) for group in groups)


NAMES = {
  "cfr": "CFR",
  "cfr-pruning": "CFR with pruning",
  "mccfr-os": "outcome sampling",
  "mccfr-es": "external sampling",
}


def plot(result: dict, path: Path, axis: str = "nodes_touched") -> bool:
  """The figure of a record's ``results`` ({"games": {name: entry}}) against ``axis``: nodes
  touched, or ``seconds`` per seed (see ``per_seed_seconds``)."""
  try:
    import matplotlib  # pylint: disable=import-outside-toplevel

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
  except ImportError:
    print("matplotlib is not installed (pip install 'jaxcfr[notebooks]'); skipped the PNG")
    return False
  games = result["games"]
  columns = min(len(games), 4)
  rows_of_panels = -(-len(games) // columns)
  fig, axes = plt.subplots(rows_of_panels, columns, figsize=(5 * columns, 4 * rows_of_panels), squeeze=False)
  for ax in axes.flat[len(games) :]:
    ax.set_visible(False)
  for ax, (name, entry) in zip(axes.flat, games.items()):
    other_dtype = False
    for algorithm, rows in entry["algorithms"].items():
      dtype = entry.get("dtype_per_algorithm", {}).get(algorithm, entry.get("dtype"))
      differs = dtype != entry.get("dtype")
      other_dtype |= differs
      label = LABELS[algorithm] + (f" ({dtype})" if differs else "")
      xs = curve_x(entry, algorithm, axis)
      (line,) = ax.plot(
        xs,
        [r["nash_conv"] for r in rows],
        label=label,
        color=COLORS[algorithm.removesuffix("-simultaneous")],
        linestyle="--"
        if algorithm.startswith("mccfr-os-") or algorithm == "cfr-cs"
        else ":"
        if algorithm.endswith("simultaneous")
        else "-",
      )
      per_seed = [r.get("nash_conv_per_seed", []) for r in rows]
      if all(len(v) > 1 for v in per_seed):  # the band: the lowest and highest seed at each checkpoint
        ax.fill_between(
          xs,
          [min(v) for v in per_seed],
          [max(v) for v in per_seed],
          color=line.get_color(),
          alpha=0.2,
          linewidth=0,
        )
    if other_dtype:  # the first panel's legend does not name the dtypes of this one's curves
      ax.legend(fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("Nodes Touched" if axis == "nodes_touched" else "wall time per seed (s)")
    ax.set_ylabel("exploitability (NashConv)")
    ax.set_title(
      f"{name}\n|H| = {entry['histories']:,}" + (f", {entry['dtype']}" if entry.get("dtype") else ""), fontsize=9
    )
    ax.grid(True, which="both", alpha=0.3)
  axes[0][0].legend()
  fig.suptitle(
    "Lanctot et al. 2009 Figure 1: exploitability against "
    + (
      "nodes touched"
      if axis == "nodes_touched"
      else "wall time (each run's seconds over its seeds, CFR's compilation left out; CFR with pruning runs CFR's iterates)"
    )
  )
  fig.tight_layout()
  fig.savefig(path, dpi=120)
  return True


def redraw() -> None:
  """Redraws both PNGs from the results file and prints the orders."""
  record = json.loads((RESULTS / "figure1_nodes_touched.json").read_text())
  for axis, stem in (("nodes_touched", "figure1_nodes_touched"), ("seconds", "figure1_wall_time")):
    plot(record["results"], RESULTS / f"{stem}.png", axis)
  for name, entry in orders(record["results"]).items():
    print(name, "swapped", entry["swapped"], "batch swapped", entry["batch_swapped"])
    for axis in ("nodes_touched", "seconds", "batch_seconds"):
      print(f"  {axis:13} at {entry[axis]['at']:.3g}: {order_text(entry[axis]['order'])}")


if __name__ == "__main__":
  redraw()
