"""The 13 x 13 grid poker players read: a value per hand class (pairs on the diagonal, suited
hands above it, offsuit below), averaged over the class's combos weighted by a range, as text
and as a matplotlib figure.

    >>> import numpy as np
    >>> from jaxcfr.poker import grids
    >>> print(grids.text(np.ones(1326), np.ones(1326), digits=0).splitlines()[1][:24])
       A    1    1    1    1
"""

from __future__ import annotations

import numpy as np

from jaxcfr.games.hunl_subgame import RANKS, hand_grid

__all__ = ["grid", "text", "figure", "strategy_grids"]


def grid(values, weights=None) -> tuple:
  """([13, 13] float64, [13, 13] labels): ``values`` [1326] averaged per class with ``weights``
  (NaN where a class has no weight); rows and columns from ace down to deuce."""
  return hand_grid(values, weights)


def text(values, weights=None, *, digits: int = 2) -> str:
  """The grid as text: one row a rank, ``.`` where a class has no weight."""
  values, _ = grid(values, weights)
  width = max(5, digits + 3)
  header = " " * 4 + "".join(f"{r:>{width}}" for r in RANKS[::-1])
  rows = [header]
  for i, rank in enumerate(RANKS[::-1]):
    cells = "".join(f"{'.':>{width}}" if np.isnan(v) else f"{v:>{width}.{digits}f}" for v in values[i])
    rows.append(f"{rank:>4}{cells}")
  return "\n".join(rows)


def strategy_grids(report: dict) -> dict:
  """{action: [13, 13] grid of its probability} of a node's report (jaxcfr.poker.queries),
  each class weighted by the acting player's range there."""
  strategy = np.nan_to_num(report["strategy"])
  return {name: grid(strategy[:, a], report["range"])[0] for a, name in enumerate(report["actions"])}


def figure(report: dict, *, title: str | None = None):
  """A matplotlib figure: one 13 x 13 panel per action of a node's report, each cell the
  action's probability with the class's label, gray outside the range (needs matplotlib:
  pip install 'jaxcfr[notebooks]')."""
  try:
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
  except ImportError as error:
    raise ImportError("the grids' figure needs matplotlib: pip install 'jaxcfr[notebooks]'") from error
  grids_ = strategy_grids(report)
  _, labels = grid(np.zeros(1326))
  fig, axes = plt.subplots(1, len(grids_), figsize=(3.2 * len(grids_), 3.4), squeeze=False)
  colours = plt.get_cmap("viridis").with_extremes(bad="#dddddd")  # gray: classes outside the range
  for ax, (name, values) in zip(axes[0], grids_.items()):
    ax.imshow(np.ma.masked_invalid(values), vmin=0, vmax=1, cmap=colours)
    for i in range(13):
      for j in range(13):
        ax.text(j, i, labels[i, j], ha="center", va="center", fontsize=4.5, color="white")
    ax.set_title(name, fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
  fig.suptitle(title or report.get("line") or "root", fontsize=10)
  fig.tight_layout()
  return fig
