"""A description of the machine and the software versions, written into every result file."""

from __future__ import annotations

import importlib.metadata
import os
import platform

from jaxcfr import xla_setup

__all__ = ["package_version", "git_commit", "hardware", "provenance"]


def _read_field(path: str, field: str) -> str | None:
  try:
    with open(path, encoding="utf-8") as f:
      for line in f:
        if line.startswith(field):
          return line.split(":", 1)[1].strip()
  except OSError:
    pass
  return None


def package_version(distribution: str) -> str | None:
  """The installed version of a distribution, or None."""
  try:
    return importlib.metadata.version(distribution)
  except importlib.metadata.PackageNotFoundError:
    return None


def git_commit() -> str | None:
  """The commit of the jaxcfr checkout, with ``-dirty`` appended when the library, the games
  or the benchmarks differ from it (results files aside): what ran was then not that
  commit. None outside a git checkout."""
  import subprocess  # pylint: disable=import-outside-toplevel

  here = os.path.dirname(__file__)
  try:
    commit = subprocess.run(
      ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, check=True
    ).stdout.strip()
    changed = subprocess.run(
      [
        "git",
        "diff",
        "--quiet",
        "HEAD",
        "--",
        ":/jaxcfr",
        ":/games",
        ":/benchmarks",
        ":(top,exclude)benchmarks/results",
      ],
      cwd=here,
      capture_output=True,
    )
  except (OSError, subprocess.CalledProcessError):
    return None
  return commit + ("-dirty" if changed.returncode == 1 else "")


def hardware() -> dict:
  import jax  # pylint: disable=import-outside-toplevel

  memory_kib = _read_field("/proc/meminfo", "MemTotal")
  return {
    "cpu_model": _read_field("/proc/cpuinfo", "model name") or platform.processor() or platform.machine(),
    "cpu_count": os.cpu_count(),
    "cpus_usable": xla_setup.usable_cores(),
    "memory_gib": round(int(memory_kib.split()[0]) / 2**20, 1) if memory_kib else None,
    "os": platform.platform(),
    "python": platform.python_version(),
    "backend": jax.default_backend(),
    "jax_devices": [str(d) for d in jax.devices()],
    "xla_flags": os.environ.get("XLA_FLAGS"),  # jaxcfr.xla_setup adds its own
    **{name: package_version(name) for name in ("jaxcfr", "jax", "jaxlib", "numpy", "open_spiel", "liteefg")},
  }


def provenance() -> dict:
  """When, on what and from which commit a result was made: ``timestamp`` (UTC, ISO 8601),
  ``git_commit`` and ``hardware``: the fields every JSON record of the command line carries."""
  import datetime  # pylint: disable=import-outside-toplevel

  return {
    "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "git_commit": git_commit(),
    "hardware": hardware(),
  }
