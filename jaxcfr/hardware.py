"""A description of the machine, written into every result file."""

from __future__ import annotations

import os
import platform


def _cpu_model() -> str:
  try:
    with open("/proc/cpuinfo", encoding="utf-8") as f:
      for line in f:
        if line.startswith("model name"):
          return line.split(":", 1)[1].strip()
  except OSError:
    pass
  return platform.processor() or platform.machine()


def _memory_gib() -> float | None:
  try:
    with open("/proc/meminfo", encoding="utf-8") as f:
      for line in f:
        if line.startswith("MemTotal"):
          return round(int(line.split()[1]) / 2**20, 1)
  except OSError:
    pass
  return None


def hardware() -> dict:
  import jax  # pylint: disable=import-outside-toplevel
  return {
      "cpu": _cpu_model(),
      "cpu_count": os.cpu_count(),
      "affinity_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
      "memory_gib": _memory_gib(),
      "platform": platform.platform(),
      "python": platform.python_version(),
      "jax": jax.__version__,
      "backend": jax.default_backend(),
      "devices": [str(d) for d in jax.devices()],
  }
