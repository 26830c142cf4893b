"""Checkpoints of solver states as plain ``.npz`` arrays plus JSON metadata.

Nothing is unpickled: leaves are stored under their pytree key paths and read back into a
template state (built by the solver's ``init``), with shapes and dtypes checked.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import jax
import numpy as np


def _flat(state) -> dict[str, np.ndarray]:
  leaves, _ = jax.tree_util.tree_flatten_with_path(state)
  return {jax.tree_util.keystr(path): np.asarray(leaf) for path, leaf in leaves}


def save(path: str | Path, state, metadata: dict) -> None:
  """Writes ``state`` and ``metadata`` atomically to ``path`` (an .npz file)."""
  path = Path(path)
  path.parent.mkdir(parents=True, exist_ok=True)
  tmp = path.with_name(path.name + ".tmp.npz")
  arrays = _flat(state)
  np.savez(tmp, __metadata__=np.array(json.dumps(metadata)), **arrays)
  os.replace(tmp, path)


def load(path: str | Path, template):
  """Returns (state, metadata) read from ``path`` into the structure of ``template``."""
  with np.load(path, allow_pickle=False) as data:
    metadata = json.loads(str(data["__metadata__"]))
    leaves, treedef = jax.tree_util.tree_flatten_with_path(template)
    restored = []
    for key_path, leaf in leaves:
      key = jax.tree_util.keystr(key_path)
      if key not in data:
        raise ValueError(f"checkpoint {path} lacks {key}; it was written by another solver")
      value = data[key]
      if value.shape != np.shape(leaf) or value.dtype != np.asarray(leaf).dtype:
        raise ValueError(f"checkpoint {path}: {key} has shape {value.shape} {value.dtype}, "
                         f"expected {np.shape(leaf)} {np.asarray(leaf).dtype}")
      restored.append(jax.numpy.asarray(value))
  return jax.tree_util.tree_unflatten(treedef, restored), metadata
