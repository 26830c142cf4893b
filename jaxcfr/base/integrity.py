"""Integrity of everything read from disk: a digest of every array of a file, verified on
read (each kit adds the structural checks of its own arrays: e.g.
jaxcfr.kits.sequence_form.checks).

A damaged file must never load as a different game or a different run: cache entries,
checkpoints and strategy files carry a ``checksum`` member (a BLAKE2b digest of every
other member's name, dtype, shape and bytes) that is verified on read, and loaded game
arrays are checked for the invariants every builder guarantees (breadth-first numbering,
parents and children consistent, indices in range, chance distributions that sum to one,
finite utilities). Everything is read without pickles.
"""

from __future__ import annotations

import hashlib
import struct
import zipfile
from pathlib import Path

import numpy as np

__all__ = ["DamagedFileError", "digest", "with_checksum", "verify_checksum", "read_arrays", "read_npz"]

CHECKSUM = "checksum"
# Reading a damaged or foreign .npz file can fail anywhere in the parsers below it (the zip
# directory, a .npy header that numpy parses as Python literals, JSON metadata, ...): any
# error while reading means a damaged file, and becomes a DamagedFileError.
READ_ERRORS = (Exception,)


class DamagedFileError(ValueError):
  """A file that is not what it claims: unreadable, truncated, foreign, or whose checksum
  or structure does not hold."""


def digest(arrays: dict) -> str:
  """Hex BLAKE2b digest of named arrays (names sorted; name, dtype, shape and bytes)."""
  hasher = hashlib.blake2b(digest_size=16)
  for name in sorted(arrays):
    if name == CHECKSUM:
      continue
    value = np.asarray(arrays[name])
    hasher.update(f"{name}|{value.dtype.str}|{value.shape}|".encode())
    if value.dtype.kind in "US":
      hasher.update(np.ascontiguousarray(value).tobytes())
    else:
      flat = value.reshape(-1)
      for start in range(0, flat.shape[0], 1 << 24):  # memory-mapped members page in chunk by chunk
        hasher.update(np.ascontiguousarray(flat[start : start + (1 << 24)]).tobytes())
  return hasher.hexdigest()


def with_checksum(arrays: dict) -> dict:
  """``arrays`` with their ``checksum`` member added (to pass to ``np.savez``)."""
  return {**arrays, CHECKSUM: np.array(digest(arrays))}


def verify_checksum(arrays: dict, path) -> dict:
  """Raises DamagedFileError unless ``arrays`` (read from ``path``) carry a checksum that matches."""
  if CHECKSUM not in arrays:
    raise DamagedFileError(f"{path} has no checksum: it was not written by this version of jaxcfr, or is damaged")
  if str(arrays[CHECKSUM]) != digest(arrays):
    raise DamagedFileError(f"{path} is damaged: its checksum does not match its contents")
  return arrays


def read_arrays(path, what: str) -> dict:
  """The verified arrays of an .npz file written with ``with_checksum`` (read fully, no
  pickles). Raises DamagedFileError, one line naming ``what`` and the file, on any problem."""
  path = Path(path)
  if not path.is_file():
    raise DamagedFileError(f"{what} {path} does not exist or is not a file")
  try:
    with np.load(path, allow_pickle=False) as data:
      arrays = {name: data[name] for name in data.files}
  except READ_ERRORS as error:
    raise DamagedFileError(f"{what} {path} is not a readable jaxcfr .npz file ({type(error).__name__})") from None
  return verify_checksum(arrays, f"{what} {path}")


_MMAP_MIN_BYTES = 1 << 20  # smaller members are read into memory


def read_npz(path, *, mmap: bool = True) -> dict[str, np.ndarray]:
  """The arrays of an ``np.savez`` file (uncompressed), without pickles.

  With ``mmap``, members of 1 MiB and more are memory-mapped read-only from the file
  instead of read: they cost page cache (reclaimable), not process memory, and pages are
  read when first touched. Object arrays are refused (ValueError), as ``np.load`` does
  with ``allow_pickle=False``; a damaged file raises OSError, ValueError, KeyError or
  zipfile.BadZipFile.
  """
  out = {}
  with zipfile.ZipFile(path) as archive, open(path, "rb") as file:
    for info in archive.infolist():
      name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
      if info.compress_type != zipfile.ZIP_STORED or not mmap:
        with archive.open(info) as member:
          out[name] = np.lib.format.read_array(member, allow_pickle=False)
        continue
      file.seek(info.header_offset)
      local = file.read(30)  # the local file header; its name and extra field lengths
      if len(local) < 30 or local[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"{path}: bad local header of {info.filename}")
      name_length, extra_length = struct.unpack("<HH", local[26:30])
      file.seek(info.header_offset + 30 + name_length + extra_length)
      version = np.lib.format.read_magic(file)
      if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(file)
      elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(file)
      else:
        raise ValueError(f"{path}: unsupported .npy version {version} of {info.filename}")
      if dtype.hasobject:
        raise ValueError(f"{path}: {name} is an object array (it would need pickle)")
      offset = file.tell()
      size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
      if offset + size > info.header_offset + 30 + name_length + extra_length + info.file_size:
        raise ValueError(f"{path}: {name} is truncated")
      order = "F" if fortran else "C"
      if size < _MMAP_MIN_BYTES:
        data = np.frombuffer(file.read(size), dtype, count=int(np.prod(shape, dtype=np.int64)))
        out[name] = data.reshape(shape, order=order).copy()
      else:
        out[name] = np.memmap(path, dtype, "r", offset, shape, order).view(np.ndarray)
  return out
