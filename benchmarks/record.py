"""Writing benchmark results: every file records when, on what hardware and at which commit."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from jaxcfr.run import hardware


def write_record(out: str | Path, record: dict) -> Path:
  """Writes ``record`` as JSON to ``out``, with ``date``, ``hardware`` and ``git_commit`` added."""
  out = Path(out)
  record = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "hardware": hardware.hardware(), "git_commit": hardware.git_commit(), **record}
  out.parent.mkdir(parents=True, exist_ok=True)
  out.write_text(json.dumps(record, indent=2) + "\n")
  return out
