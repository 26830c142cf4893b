"""``jaxcfr spot``, ``boards``, ``show`` and ``export``: a poker spot solved into a solution file
(node locks too), solved on every next card as one batch, a node of a solution reported, and a
node's hands written out (jaxcfr.poker, docs/poker.md). Their settings are
declared once (jaxcfr.run.flags).

    jaxcfr spot --board Td9d6hQc --pot 200 --stack 900 --oop "66+,A8s+,AJo+" --ip "22+,AT+" \\
      --bets "50%,100%,a" --raises "100%,a" --target 0.5 --out spot.npz
    jaxcfr spot spot.json --lock "root -> check" --out locked.npz
    jaxcfr boards --board Td9d6h --pot 200 --stack 900 --oop "66+,A8s+" --ip "22+,AT+" --out turns.csv
    jaxcfr show spot.npz --line "bet 100%, call, river 2c"
    jaxcfr export spot.npz --line "check" --out check.csv
"""

from __future__ import annotations

import csv
import sys
import time

import numpy as np

from jaxcfr.base.params import Param
from jaxcfr.run import common_flags, outputs
from jaxcfr.run.flags import Command, Flag
from jaxcfr.solvers.cfr_schedule import ALGORITHMS, STORAGE
from jaxcfr.poker.solutions import POKER_DEFAULT

__all__ = ["commands", "spot_of", "hand_rows"]

_SPOT_FIELDS = ("board", "pot", "stack", "oop", "ip")


def spot_of(settings):
  """The Spot of ``spot``'s settings: the spot file, or the flags (board, pot, stack, both
  ranges, bet and raise sizes for every street and player, the big blind); not both."""
  from jaxcfr.games.bet_trees import BetTree  # pylint: disable=import-outside-toplevel
  from jaxcfr.games.spots import Spot  # pylint: disable=import-outside-toplevel

  given = [
    flag.spelled
    for flag in _SPOT_FLAGS
    if getattr(settings, flag.name) is not None and getattr(settings, flag.name) != flag.param.default
  ]
  if settings.spot is not None:
    if given:
      raise ValueError(f"give a spot file or the spot's flags, not both (got {', '.join(given)})")
    return Spot.load(settings.spot)
  missing = [name for name in _SPOT_FIELDS if getattr(settings, name) is None]
  if missing:
    raise ValueError(
      f"a spot needs a spot file or every one of --{', --'.join(_SPOT_FIELDS)}; missing --{', --'.join(missing)}"
    )
  try:
    tree = BetTree(bets=settings.bets, raises=settings.raises)
  except ValueError as error:
    raise ValueError(f"--bets/--raises: {error}") from None
  return Spot(
    board=settings.board,
    pot=settings.pot,
    effective_stack=settings.stack,
    oop_range=settings.oop,
    ip_range=settings.ip,
    bet_tree=tree,
    big_blind=settings.big_blind,
  )


def _spot(settings) -> int:
  started = time.perf_counter()
  spot = spot_of(settings)  # every check of the spot before any work
  if settings.lock and settings.storage != "float":
    raise ValueError("--storage 16bit is not available with --lock (the locked solve keeps its regrets in float)")
  common_flags.use_dtype("float32")
  from jaxcfr.poker import solutions  # pylint: disable=import-outside-toplevel

  def on_check(done: int, percent: float) -> None:
    print(f"iteration {done:>6}: exploitability {percent:.3f}% of the pot ({time.perf_counter() - started:.1f} s)")
    sys.stdout.flush()

  print(f"spot: board {spot.board}, pot {spot.pot}, effective stack {spot.effective_stack}; building its tree")
  game = solutions.game_of(spot)
  algorithm, extra = settings.algo, {"storage": settings.storage}
  if settings.lock:
    from jaxcfr.poker import locks  # pylint: disable=import-outside-toplevel

    algorithm, extra = "locked", {"lock": locks.parse(game, settings.lock), "base": settings.algo}
    print(f"locked: {settings.lock}")
  solved = solutions.solve(
    spot,
    algorithm,
    settings.iterations,
    target=settings.target,
    check_every=settings.check_every,
    on_check=on_check,
    settings=extra,
    game=game,
  )
  percent = solved.exploitability_pot_percent
  if settings.lock:
    print("(a locked solve's exploitability is its locked strategy's in the game without the lock)")
  reached = settings.target is not None and percent <= settings.target
  print(
    f"solved: {solved.iterations} iterations of {settings.algo}, exploitability {percent:.3f}% of the pot"
    + (
      ""
      if settings.target is None
      else (" (target reached)" if reached else f" (target {settings.target}% not reached)")
    )
    + f", {time.perf_counter() - started:.1f} s"
  )
  outputs.write_output(settings.out, "--out", lambda path: solutions.save(path, solved, compact=settings.compact))
  print(f"wrote {settings.out}")
  return 0


def _report(settings):
  from jaxcfr.poker import queries, solutions  # pylint: disable=import-outside-toplevel

  solved = solutions.load(settings.solution)
  node = queries.node_at(solved, settings.line)
  return solved, queries.report(solved, node, with_equity=not settings.no_equity)


def hand_rows(report: dict) -> list[dict]:
  """One row a hand in the acting player's range at a node's ``report``: the hand, its weight
  (reach), its probability of each action, its EV (chips) and equity."""
  from jaxcfr.games.hunl_subgame import hand_names  # pylint: disable=import-outside-toplevel

  names = hand_names()
  rows = []
  for h in np.flatnonzero(report["range"] > 0):
    row = {"hand": names[h], "weight": float(report["range"][h])}
    row |= {action: float(report["strategy"][h, a]) for a, action in enumerate(report["actions"])}
    row["ev"] = float(report["ev"][h])
    if "equity" in report:
      row["equity"] = float(report["equity"][h])
    rows.append(row)
  return rows


def _show(settings) -> int:
  from jaxcfr.poker import grids  # pylint: disable=import-outside-toplevel

  solved, report = _report(settings)
  who = ("OOP", "IP")[report["player"]]
  print(
    f"{settings.solution}: board {solved.spot.board}, pot {solved.spot.pot}; solved by {solved.iterations} "
    f"iterations of {solved.algorithm}, exploitability {solved.exploitability_pot_percent:.3f}% of the pot"
  )
  print(f"line: {report['line'] or '(root)'}; {who} acts")
  for name, frequency in zip(report["actions"], report["frequencies"]):
    print(f"  {name:<14} {100 * frequency:6.2f}%")
  summary = f"range EV {report['range_ev']:.2f} chips"
  if "equity" in report:
    summary += f", range equity {100 * report['range_equity']:.2f}%"
  print(summary)
  for a, name in enumerate(report["actions"]):
    if settings.grids:
      print(f"\n{name}: probability per hand class (weighted by the range)")
      print(grids.text(np.nan_to_num(report["strategy"][:, a]), report["range"]))
  if settings.figure:
    figure = grids.figure(report, title=f"{who} at {report['line'] or 'the root'}")
    outputs.write_output(settings.figure, "--figure", lambda path: figure.savefig(path, dpi=120, bbox_inches="tight"))
    print(f"wrote {settings.figure}")
  return 0


def _export(settings) -> int:
  if not settings.out.lower().endswith((".csv", ".json")):
    raise ValueError(f"--out {settings.out}: name a .csv or a .json file")
  solved, report = _report(settings)
  rows = hand_rows(report)
  if settings.out.lower().endswith(".json"):
    record = {
      "solution": settings.solution,
      "line": report["line"],
      "player": report["player"],
      "actions": report["actions"],
      "frequencies": [float(f) for f in report["frequencies"]],
      "range_ev": report["range_ev"],
      **({"range_equity": report["range_equity"]} if "equity" in report else {}),
      "hands": rows,
    }
    outputs.write_json(settings.out, record, flag="--out")
  else:
    outputs.write_output(settings.out, "--out", lambda path: _write_csv(path, rows))
  print(f"wrote {settings.out}: {len(rows)} hands at {report['line'] or 'the root'}")
  return 0


def _boards(settings) -> int:
  if settings.out is not None and not settings.out.lower().endswith((".csv", ".json")):
    raise ValueError(f"--out {settings.out}: name a .csv or a .json file")
  spot = spot_of(settings)
  cards = None if settings.cards is None else [c.strip() for c in settings.cards.split(",") if c.strip()]
  common_flags.use_dtype("float32")
  from jaxcfr.poker import boards  # pylint: disable=import-outside-toplevel

  count = "every next card" if cards is None else f"{len(cards)} cards"
  print(f"spot: board {spot.board}, pot {spot.pot}; solving it on {count}, {settings.iterations} iterations each")
  report = boards.solve_boards(
    spot, cards, algorithm=settings.algo, iterations=settings.iterations, with_equity=not settings.no_equity
  )
  print(boards.table(report))
  print(f"{len(report['rows'])} boards in {report['seconds']:.1f} s (one batched program, compilation included)")
  rows = [
    {
      "board": row["board"],
      **dict(zip(report["actions"], row["frequencies"])),
      "ev": row["ev"],
      "equity": row["equity"],
      "exploitability_pot_percent": row["exploitability_pot_percent"],
    }
    for row in report["rows"]
  ]
  if settings.out is not None:
    if settings.out.lower().endswith(".json"):
      outputs.write_json(settings.out, {"spot": spot.to_dict(), "actions": report["actions"], "boards": rows}, "--out")
    else:
      outputs.write_output(settings.out, "--out", lambda path: _write_csv(path, rows))
    print(f"wrote {settings.out}")
  if settings.figure is not None:
    figure = boards.figure(report)
    outputs.write_output(settings.figure, "--figure", lambda path: figure.savefig(path, dpi=120, bbox_inches="tight"))
    print(f"wrote {settings.figure}")
  return 0


def _write_csv(path, rows: list[dict]) -> None:
  with open(path, "w", newline="", encoding="utf-8") as handle:
    writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else ["hand"])
    writer.writeheader()
    writer.writerows(rows)


_SPOT_FLAGS = (
  Flag(Param("board", str, None, "the board, e.g. Td9d6h (flop), Td9d6hQc (turn)")),
  Flag(Param("pot", int, None, "both players' chips in the middle (even)", low=2)),
  Flag(Param("stack", int, None, "the effective stack behind the pot", low=1)),
  Flag(Param("oop", str, None, "OOP's range, e.g. '66+,A8s+,A5s-A4s,AJo+,KQo:0.5'"), metavar="RANGE"),
  Flag(Param("ip", str, None, "IP's range"), metavar="RANGE"),
  Flag(
    Param(
      "bets",
      str,
      "50%,100%,a",
      "bet sizes of every street and player (% of the pot, e for geometric, a for all-in)",
    )
  ),
  Flag(Param("raises", str, "100%,a", "raise sizes (% of the pot, 2.5x of the bet faced, a)")),
  Flag(Param("big_blind", int, 100, "the big blind (the unit of mbb/g)", low=1)),
)
_SPOT_FILE = Flag(
  Param("spot", str, None, "a spot file (JSON, docs/poker.md); or give the spot by the flags below"),
  flag=None,
  nargs="?",
)
_ALGO = Flag(
  Param(
    "algo",
    str,
    POKER_DEFAULT,
    "the solver (a CFR preset of the public tree; default postflop-solver's DCFR, the fewest iterations on the Libratus endgames)",
    choices=ALGORITHMS,
  )
)
_SOLUTION = Flag(Param("solution", str, None, "a solution file written by 'jaxcfr spot --out'"), flag=None)
_LINE = Flag(
  Param("line", str, "", "the node: actions from the root, e.g. 'bet 75%, call, turn Kd' (default: the root)")
)
_NO_EQUITY = Flag(Param("no_equity", bool, False, "leave out each hand's equity (faster on big ranges)"))


def commands() -> tuple[Command, ...]:
  """``spot``, ``boards``, ``show`` and ``export``, with their declared settings and handlers."""
  spot = Command(
    "spot",
    "solve a heads-up no-limit hold'em spot (a spot file or flags) into a solution file",
    {
      "": (
        _SPOT_FILE,
        Flag(Param("out", str, None, "the solution file to write (.npz)"), metavar="FILE", output=True, required=True),
        _ALGO,
        Flag(Param("iterations", int, 1000, "the most iterations", low=1), flag="--iters", metavar="ITERS"),
        Flag(
          Param("target", float, None, "stop at this exploitability, in % of the pot (e.g. 0.5)", low=0.0),
          metavar="PERCENT",
        ),
        Flag(Param("check_every", int, 50, "iterations between exploitability checks", low=1), metavar="N"),
        Flag(Param("compact", bool, False, "store probabilities in 16 bits (half the file)")),
        Flag(STORAGE),
        Flag(
          Param(
            "lock",
            str,
            None,
            "node locks, 'LINE -> MIX [@ HANDS]' separated by ';', e.g. 'root -> check' or "
            "'check -> bet 100%: 0.7, check: 0.3 @ QQ+,AK' (one player's; jaxcfr.poker.locks)",
          ),
          metavar="LOCKS",
        ),
      ),
      "the spot by flags": _SPOT_FLAGS,
    },
    _spot,
  )
  boards = Command(
    "boards",
    "solve a spot on every next card (or the cards given) as one batched program and report each board's root",
    {
      "": (
        _SPOT_FILE,
        Flag(Param("cards", str, None, "the next cards, e.g. '2c,Ac,Kd' (default: every card that can come)")),
        _ALGO,
        Flag(Param("iterations", int, 300, "iterations of every board", low=1), flag="--iters", metavar="ITERS"),
        Flag(Param("out", str, None, "also write the report as .csv or .json"), metavar="FILE", output=True),
        Flag(
          Param("figure", str, None, "also draw the report to an image (needs matplotlib)"), metavar="FILE", output=True
        ),
        _NO_EQUITY,
      ),
      "the spot by flags": _SPOT_FLAGS,
    },
    _boards,
  )
  show = Command(
    "show",
    "report a node of a solution file: each action's frequency, range EV and equity, 13 x 13 grids",
    {
      "": (
        _SOLUTION,
        _LINE,
        Flag(Param("grids", bool, True, "print each action's 13 x 13 grid")),
        Flag(
          Param("figure", str, None, "also draw the grids to an image (needs matplotlib)"), metavar="FILE", output=True
        ),
        _NO_EQUITY,
      )
    },
    _show,
  )
  export = Command(
    "export",
    "write a node of a solution file hand by hand (strategy, EV, equity) as CSV or JSON",
    {
      "": (
        _SOLUTION,
        _LINE,
        Flag(Param("out", str, None, "the file to write: .csv or .json"), metavar="FILE", output=True, required=True),
        _NO_EQUITY,
      )
    },
    _export,
  )
  return spot, boards, show, export
