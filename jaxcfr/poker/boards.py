"""Reports over many boards as one batched program: a spot's subgame on every next card (each
turn of a flop spot, each river of a turn spot) or on a list of boards, solved together, with
each board's root frequencies, EV and equity as a table and a figure.

Subgames that differ only in their board share the tree's shape (the same pot, stacks and bet
tree), so their device trees stack along a leading axis and one compiled program (``jax.vmap``
of the solver's run) solves them all; ``solve_boards`` equals solving each board alone.

    >>> from jaxcfr.games.spots import Spot
    >>> from jaxcfr.poker import boards
    >>> spot = Spot.from_endgame(2)  # a turn
    >>> report = boards.solve_boards(spot, ["2c", "Ac"], iterations=20, with_equity=False)
    >>> [row["board"] for row in report["rows"]]
    ['Ts6hAh7c2c', 'Ts6hAh7cAc']
"""

from __future__ import annotations

import dataclasses
import functools
import time

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr import solvers
from jaxcfr.games.hunl_subgame import format_cards, parse_cards
from jaxcfr.games.spots import Spot
from jaxcfr.poker import queries, solutions

__all__ = ["next_boards", "subgame", "solve_boards", "table", "figure"]


def next_boards(spot: Spot) -> list[str]:
  """Each card that can come next on ``spot``'s board (not on it), as the new board's string."""
  if len(spot.cards) >= 5:
    raise ValueError(f"the board {spot.board} is a river: no card comes next")
  return [spot.board + format_cards((c,)) for c in range(52) if c not in spot.cards]


def subgame(spot: Spot, board: str) -> Spot:
  """``spot`` on ``board``: its board and one more card."""
  if not board.startswith(spot.board) or len(parse_cards(board)) != len(spot.cards) + 1:
    raise ValueError(f"board {board!r} is not {spot.board!r} and one more card")
  return dataclasses.replace(spot, board=board)


def _stack(trees: list) -> tuple:
  """(the batch of trees, its vmap axes): leaves equal on every board (the tree's shape, its
  indices) kept once and shared (axis None), the others (valid hands, strengths, ranges)
  stacked on a leading axis. Shared indices keep their gathers unbatched."""
  leaves = [jax.tree.leaves(tree) for tree in trees]
  treedef = jax.tree.structure(trees[0])
  shared = [all(np.array_equal(np.asarray(column[0]), np.asarray(x)) for x in column[1:]) for column in zip(*leaves)]
  stacked = [column[0] if same else jnp.stack(column) for same, column in zip(shared, zip(*leaves))]
  axes = [None if same else 0 for same in shared]
  return jax.tree.unflatten(treedef, stacked), jax.tree.unflatten(treedef, axes)


@functools.partial(jax.jit, static_argnums=(1, 2, 3))
def _solve_all(stacked, axes, solver, iterations: int) -> tuple:
  """Each board's average profile after ``iterations`` of ``solver``: one program for the batch
  (compiled once per solver, iteration count, shape and shared leaves)."""

  def one(tensors):
    return solver.average_strategy(tensors, solver.run(tensors, solver.init(tensors), iterations))

  return jax.vmap(one, in_axes=(axes.tree,))(stacked)


class _Hashable:
  """A pytree of vmap axes as a static argument (hashed and compared by its leaves)."""

  def __init__(self, tree):
    self.tree = tree
    self.key = (jax.tree.structure(tree), tuple(jax.tree.leaves(tree, is_leaf=lambda x: x is None)))

  def __hash__(self):
    return hash(self.key)

  def __eq__(self, other):
    return isinstance(other, _Hashable) and self.key == other.key


def solve_boards(
  spot: Spot,
  cards=None,
  *,
  algorithm: str = solutions.POKER_DEFAULT,
  iterations: int = 300,
  dtype=None,
  with_equity: bool = True,
) -> dict:
  """Solves ``spot`` on each next card (``cards``: a list such as ``["2c", "Ac"]``; default every
  card that can come) as one batched program and reports each board's root: the acting
  player's action frequencies, its range's EV (chips) and equity.

  Returns:
    ``{"actions", "rows": [{"board", "frequencies", "ev", "equity", "exploitability_pot_percent"}],
    "seconds", "solutions"}``; ``seconds`` is the batched solve's wall time (its compilation
    included on the first call of a shape).
  """
  boards = next_boards(spot) if cards is None else [spot.board + format_cards(parse_cards(c)) for c in cards]
  subs = [subgame(spot, board) for board in boards]
  games = [solutions.game_of(sub, dtype, hands_in_play=False) for sub in subs]  # one shape: every hand
  shapes = {tuple(x.shape for x in jax.tree.leaves(g.tensors)) for g in games}
  if len(shapes) != 1:
    raise ValueError("these boards' trees differ in shape (a card that changes the betting?): solve them apart")
  solver = solvers.get(algorithm, "public_tree")
  stacked, axes = _stack([g.tensors for g in games])
  start = time.perf_counter()
  profiles = jax.block_until_ready(_solve_all(stacked, _Hashable(axes), solver, iterations))
  seconds = time.perf_counter() - start
  rows, solved = [], []
  for b, (sub, game) in enumerate(zip(subs, games)):
    profile = tuple(np.asarray(s[b]) for s in profiles)
    solution = solutions.Solution(sub, game, profile, algorithm, iterations, solutions.exploitability_of(game, profile))
    root = queries.report(solution, 0, with_equity=with_equity)
    rows.append(
      {
        "board": sub.board,
        "frequencies": root["frequencies"].tolist(),
        "ev": root["range_ev"],
        "equity": root.get("range_equity"),
        "exploitability_pot_percent": solution.exploitability_pot_percent,
      }
    )
    solved.append(solution)
  return {"actions": queries.actions(solved[0], 0), "rows": rows, "seconds": seconds, "solutions": solved}


def table(report: dict) -> str:
  """The report as text: a row a board, the root's action frequencies, EV and equity."""
  head = ["board", *report["actions"], "EV", "equity"]
  lines = ["  ".join(f"{h:>12}" for h in head)]
  for row in report["rows"]:
    equity = "" if row["equity"] is None else f"{row['equity']:.3f}"
    cells = [row["board"], *(f"{f:.3f}" for f in row["frequencies"]), f"{row['ev']:.1f}", equity]
    lines.append("  ".join(f"{c:>12}" for c in cells))
  return "\n".join(lines)


def figure(report: dict, *, title: str = "root strategy by board"):
  """A matplotlib figure: each board's root action frequencies as a stacked bar (needs
  matplotlib: pip install 'jaxcfr[notebooks]')."""
  try:
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
  except ImportError as error:
    raise ImportError("the boards' figure needs matplotlib: pip install 'jaxcfr[notebooks]'") from error
  frequencies = np.array([row["frequencies"] for row in report["rows"]])
  labels = [row["board"][-2:] for row in report["rows"]]
  fig, ax = plt.subplots(figsize=(max(6, 0.25 * len(labels)), 3.2))
  bottom = np.zeros(len(labels))
  for a, name in enumerate(report["actions"]):
    ax.bar(labels, frequencies[:, a], bottom=bottom, label=name)
    bottom += frequencies[:, a]
  ax.set_ylabel("frequency")
  ax.set_title(title)
  ax.legend(fontsize=7, ncol=len(report["actions"]))
  ax.tick_params(axis="x", labelsize=6)
  fig.tight_layout()
  return fig
