"""Checkpoints of solver states as plain ``.npz`` arrays plus JSON metadata.

Nothing is unpickled: leaves are stored under their pytree key paths with a checksum
(jaxcfr.base.integrity), and read back into a template state (built by the solver's
``init``), with shapes and dtypes checked. A damaged, truncated or foreign file raises a
one-line ValueError naming the file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import jax
import numpy as np

from jaxcfr.base import integrity

__all__ = ["save", "load", "check_writable"]


def _flat(state) -> dict[str, np.ndarray]:
  leaves, _ = jax.tree_util.tree_flatten_with_path(state)
  return {jax.tree_util.keystr(path): np.asarray(leaf) for path, leaf in leaves}


def check_writable(path: str | Path, what: str) -> None:
  """Raises ValueError naming ``what`` unless a file can be written at ``path`` (its folder
  exists and a file there can be created); call it before long work."""
  path = Path(path)
  if path.is_dir():
    raise ValueError(f"{what} {path} is a directory")
  if not path.parent.is_dir():
    raise ValueError(f"{what} {path}: {path.parent} is not an existing folder")
  try:
    probe = path.with_name(f".{path.name}.{os.getpid()}.probe")
    probe.write_bytes(b"")
    probe.unlink()
  except OSError as error:
    raise ValueError(f"{what} {path} is not writable ({error.strerror or error})") from None


def save(path: str | Path, state, metadata: dict) -> None:
  """Writes ``state`` and ``metadata`` atomically to ``path`` (an .npz file)."""
  path = Path(path)
  tmp = path.with_name(path.name + ".tmp.npz")
  arrays = {"__metadata__": np.array(json.dumps(metadata)), **_flat(state)}
  np.savez(tmp, **integrity.with_checksum(arrays))
  os.replace(tmp, path)


def load(path: str | Path, template, *, host: bool = False):
  """Returns (state, metadata) read from ``path`` into the structure of ``template``: device
  arrays, or with ``host`` NumPy arrays (float64 stays float64 without ``jax_enable_x64``)."""
  data = integrity.read_arrays(path, "checkpoint")
  try:
    metadata = json.loads(str(data["__metadata__"]))
  except (KeyError, ValueError):
    raise ValueError(f"checkpoint {path} has no readable metadata; it is not a jaxcfr checkpoint") from None
  leaves, treedef = jax.tree_util.tree_flatten_with_path(template)
  restored = []
  for key_path, leaf in leaves:
    key = jax.tree_util.keystr(key_path)
    if key not in data:
      raise ValueError(f"checkpoint {path} lacks {key}; it was written by another solver")
    value = data[key]
    if value.shape != np.shape(leaf) or value.dtype != np.asarray(leaf).dtype:
      raise ValueError(
        f"checkpoint {path}: {key} has shape {value.shape} {value.dtype}, "
        f"expected {np.shape(leaf)} {np.asarray(leaf).dtype}"
      )
    restored.append(value if host else jax.numpy.asarray(value))
  return jax.tree_util.tree_unflatten(treedef, restored), metadata
