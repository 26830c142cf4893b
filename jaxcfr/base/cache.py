"""The one disk cache of every kit: arrays built once per game (sequence-form arrays, hold'em
strength tables, ...), stored as checksummed ``.npz`` files under ``$JAXCFR_CACHE_DIR``
(default ``~/.cache/jaxcfr``) and verified when read.

An entry is found by its ``name`` and a ``fingerprint`` (a hash of the sources that built it,
so that edited rules or builders never load stale arrays), and it holds its ``identity`` (the
canonical game string, its parameters, the kit, the fingerprint: whatever says what it is)
inside the checksummed content. A read checks the checksum, then that the identity is the one
asked for, then the kit's own structural ``check``; an entry that fails any of them (damaged,
or a valid entry of another game copied over this one's name) is rebuilt with a warning.
Files are plain arrays (``np.savez``, uncompressed), read without pickles and memory-mapped
(``integrity.read_npz``): the caller's host arrays are page cache backed by the file.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from jaxcfr.base import integrity

__all__ = ["IDENTITY", "cache_dir", "source_hash", "cached"]

IDENTITY = "cache_identity"  # the member that holds an entry's identity (JSON)


def cache_dir() -> Path:
  """``$JAXCFR_CACHE_DIR``, default ``~/.cache/jaxcfr``. Raises ValueError if the variable
  is set but empty (it would put cache files in the current directory)."""
  value = os.environ.get("JAXCFR_CACHE_DIR")
  if value is not None and not value.strip():
    raise ValueError("JAXCFR_CACHE_DIR is set but empty; unset it or name a directory")
  return Path(value) if value is not None else Path.home() / ".cache" / "jaxcfr"


def source_hash(*objects) -> str:
  """16 hex digits of a hash of the source files that define ``objects`` (modules, classes,
  functions): the fingerprint of whatever they build."""
  digest = hashlib.sha256()
  for obj in objects:
    digest.update(Path(inspect.getsourcefile(obj)).read_bytes())
  return digest.hexdigest()[:16]


def _identity_text(identity: dict) -> str:
  return json.dumps(identity, sort_keys=True, default=str)


def _read(path: Path, identity: str, check: Callable[[dict], None] | None) -> dict:
  """The verified arrays of an entry (DamagedFileError on any problem)."""
  try:
    data = integrity.verify_checksum(integrity.read_npz(path), path)
  except integrity.READ_ERRORS as error:
    if isinstance(error, integrity.DamagedFileError):
      raise
    raise integrity.DamagedFileError(f"{path} is not a readable cache file ({type(error).__name__}: {error})") from None
  found = str(data[IDENTITY]) if IDENTITY in data else None
  if found != identity:
    raise integrity.DamagedFileError(f"{path} holds {found or 'no identity'}, not {identity}")
  data = {k: v for k, v in data.items() if k not in (integrity.CHECKSUM, IDENTITY)}
  if check is not None:
    try:
      check(data)
    except integrity.READ_ERRORS as error:
      if isinstance(error, integrity.DamagedFileError):
        raise
      raise integrity.DamagedFileError(f"{path} fails its checks ({type(error).__name__}: {error})") from None
  return data


def cached(
  name: str,
  identity: dict,
  fingerprint: str,
  make: Callable[[], dict],
  *,
  use_cache: bool = True,
  check: Callable[[dict], None] | None = None,
  directory: str | Path | None = None,
) -> dict:
  """The arrays ``make()`` returns (a dict of NumPy arrays), through the cache.

  Args:
    name: what the entry is named by (e.g. the canonical game string; sanitised, with a hash
      of the whole name, so long names differ past the cut).
    identity: what the entry must be (JSON-able): stored inside its checksummed content and
      compared on every read.
    fingerprint: the hash of the sources that build it (``source_hash``): part of the file name.
    make: builds the arrays when the entry is missing or damaged.
    use_cache: False: neither read nor write, just ``make()``.
    check: the kit's structural check of the arrays read, raising on a broken invariant.
    directory: the cache folder (default ``cache_dir()``).
  Returns:
    the arrays: read back memory-mapped from the entry when the cache is usable (an entry
    just written too), else those ``make()`` returned. A damaged or foreign entry is rebuilt
    with a warning; an unusable cache directory (read-only, a file, ...) gives a warning and
    the arrays without the cache; Ctrl-C while writing leaves no partial file.
  """
  if not use_cache:
    return make()
  identity_text = _identity_text({**identity, "fingerprint": fingerprint})
  safe = re.sub(r"[^\w.=,-]+", "_", name)[:100]
  whole = hashlib.sha256(name.encode()).hexdigest()[:12]
  path = Path(directory if directory is not None else cache_dir()) / f"{safe}-{whole}-{fingerprint}.npz"
  if path.exists():
    try:
      return _read(path, identity_text, check)
    except integrity.DamagedFileError as error:
      warnings.warn(f"rebuilding {name}: {error}", stacklevel=3)
  arrays = make()
  tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
  try:
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(tmp, **integrity.with_checksum({**arrays, IDENTITY: np.array(identity_text)}))
    os.replace(tmp, path)
  except OSError as error:
    warnings.warn(
      f"the game cache {path.parent} is unusable ({error.strerror or error}); "
      f"{name} is used without it (set JAXCFR_CACHE_DIR to a writable directory)",
      stacklevel=3,
    )
    if tmp.parent.is_dir():
      tmp.unlink(missing_ok=True)
    return arrays
  except BaseException:  # Ctrl-C while writing: no partial file is left in the cache
    if tmp.parent.is_dir():
      tmp.unlink(missing_ok=True)
    raise
  del arrays
  return _read(path, identity_text, check)
