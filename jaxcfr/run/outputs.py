"""What the command line writes: output files that survive a failing disk (``write_output``),
the JSON record with the command line and its wall time (``write_json``, ``described``), and
the summary table of a record, laid out for names of any length (``print_summary``)."""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

__all__ = ["write_output", "write_json", "described", "print_summary", "table", "NOTES"]


def write_output(path: str, flag: str, write) -> None:
  """``write(path)``; if that fails (a full disk, a removed folder), ``write`` to a file of
  the same name in a new temporary folder and raise one line naming both, so that a
  finished run's results are not lost."""
  try:
    write(path)
  except OSError as error:
    fallback = os.path.join(tempfile.mkdtemp(prefix="jaxcfr-"), os.path.basename(path) or "output")
    write(fallback)
    raise ValueError(f"{flag} {path} could not be written ({error.strerror or error}); it is in {fallback}") from None


def write_json(path: str, record: dict, flag: str = "--json") -> None:
  """``record`` as indented JSON at ``path`` (``write_output``'s fallback on failure)."""
  text = json.dumps(record, indent=2)
  write_output(path, flag, lambda p: Path(p).write_text(text, encoding="utf-8"))


def described(record: dict, argv: list, *, started: float) -> dict:
  """``record`` with the command line and the wall time of the whole command."""
  return {"command": ["jaxcfr"] + list(argv), **record, "command_seconds": time.perf_counter() - started}


NOTES = {
  "exploitability": "(NashConv / 2, OpenSpiel's convention)",
  "value": "(player 0, average strategy)",
  "nodes_touched": "(Lanctot et al. 2009's count)",
  "squared_error": "(Kuhn poker, average strategy; docs/kuhn.md)",
  "dominated_error": "(Kuhn poker, average strategy, Ponsen et al. 2011's seven actions; docs/kuhn.md)",
  "sb_per_hand_vs_bot": "(small bets per hand against the rule bot; ci95 its 95% half-width)",
  "exploitability_mbb": "(milli-big-blinds per game, by the game's declared big blind)",
  "exploitability_pot_percent": "(percent of the pot at the subgame's root)",
}
"""How the summary annotates the metrics it knows; others print as they are."""


def table(rows: list[tuple[str, object, str]]) -> list[str]:
  """``(name, value, note)`` rows as lines whose values start in one column, two spaces
  past the longest name (at least column 25), whatever the names' lengths."""
  width = max([23] + [len(name) for name, _, _ in rows]) + 2
  return [f"{name:<{width}}{value}   {note}".rstrip() for name, value, note in rows]


def print_summary(summary: dict, result) -> None:
  """The summary table of a driver's record (``SolveResult.summary()``) on standard output."""
  options = ", ".join(f"{k}={v}" for k, v in summary["options"].items())
  rows = [
    ("game", f"{summary['game']} ({summary['representation']})", ""),
    ("algorithm", f"{summary['algo']} ({options + ', ' if options else ''}{summary['dtype']})", ""),
    ("iterations", summary["iters"], ""),
  ]
  if "job" in summary:
    rows.insert(1, ("job", summary["job"], ""))
  if result.batch_size:
    rows.append(("batch", f"{result.batch_size} runs: {result.hyperparameters}", ""))
  rows += [(k, v, NOTES.get(k, "")) for k, v in result.history[-1].items() if k not in ("iteration", "seconds")]
  if "relative_size" in summary:
    rows.append(("", "(regressor_size over the full regret table: relative_size)", ""))
  rows.append(("seconds", f"{summary['seconds']:.3f}", f"({summary['compile_seconds']:.3f} compiling)"))
  print("\n".join(table(rows)))
