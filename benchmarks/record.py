"""The one record schema of benchmark results: every file of ``benchmarks/results/`` is a JSON
object with exactly the keys of ``KEYS``.

  benchmark      the script's name (``python -m benchmarks NAME``)
  description    what was measured and how, in words (shared CPU, peers, units)
  date           UTC time of the measurement (ISO 8601), added by ``write_record``
  git_commit     the commit measured, added by ``write_record`` ("-dirty" appended when the
                 code differed from it; null: not known)
  hardware       jaxcfr.run.hardware.hardware(), added by ``write_record``
  configuration  what was run: games, algorithms, iterations, dtype, seeds, repeats...
  results        what was measured
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

__all__ = ["KEYS", "read_record", "stamp", "validate", "write_record"]

KEYS = ("benchmark", "description", "date", "git_commit", "hardware", "configuration", "results")


def validate(record, where: str = "record") -> dict:
  """``record`` if it follows the schema; else ValueError naming ``where`` and the problem."""
  if not isinstance(record, dict):
    raise ValueError(f"{where}: a benchmark record is a JSON object, got {type(record).__name__}")
  missing, extra = [k for k in KEYS if k not in record], sorted(set(record) - set(KEYS))
  if missing or extra:
    raise ValueError(
      f"{where}: a benchmark record has exactly the keys {list(KEYS)}; missing {missing}, unexpected {extra}"
    )
  for key in ("benchmark", "description"):
    if not isinstance(record[key], str) or not record[key].strip():
      raise ValueError(f"{where}: {key!r} must be a non-empty string, got {record[key]!r}")
  for key in ("date", "git_commit"):
    if record[key] is not None and not isinstance(record[key], str):
      raise ValueError(f"{where}: {key!r} must be a string or null, got {record[key]!r}")
  for key in ("hardware", "configuration"):
    if not isinstance(record[key], dict):
      raise ValueError(f"{where}: {key!r} must be an object, got {type(record[key]).__name__}")
  if not isinstance(record["results"], (dict, list)) or not record["results"]:
    raise ValueError(f"{where}: 'results' must be a non-empty object or list, got {record['results']!r:.80}")
  return record


def read_record(path: str | Path) -> dict:
  """The record of the results file ``path``, checked against the schema."""
  path = Path(path)
  try:
    record = json.loads(path.read_text())
  except json.JSONDecodeError as error:
    raise ValueError(f"{path}: not JSON ({error})") from None
  return validate(record, str(path))


def write_record(
  out: str | Path, *, benchmark: str, description: str, configuration: dict, results, **unexpected
) -> Path:
  """Writes one record to ``out`` (JSON), adding ``date``, ``git_commit`` and ``hardware``.

  Only the keywords ``benchmark``, ``description``, ``configuration`` (what was run) and
  ``results`` (what was measured) are accepted; anything else is a TypeError. The record is
  validated before anything is written. Returns ``out`` as a Path.
  """
  from jaxcfr.run import hardware  # pylint: disable=import-outside-toplevel

  out = Path(out)
  if unexpected:
    raise TypeError(
      f"write_record: unexpected keywords {sorted(unexpected)}; a record has only benchmark, "
      "description, configuration (what was run) and results (what was measured)"
    )
  record = {
    "benchmark": benchmark,
    "description": description,
    **stamp(),
    "hardware": hardware.hardware(),
    "configuration": configuration,
    "results": results,
  }
  validate(record, f"write_record({str(out)!r})")
  text = json.dumps(record, indent=2) + "\n"  # fails before the file is touched if not JSON
  out.parent.mkdir(parents=True, exist_ok=True)
  out.write_text(text)
  return out


def stamp() -> dict:
  """{"date", "git_commit"} of now: a record's own, or a row's when a partial run merges its
  rows into a file measured earlier."""
  from jaxcfr.run import hardware  # pylint: disable=import-outside-toplevel

  return {"date": _now(), "git_commit": hardware.git_commit()}


def _now() -> str:
  return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
