"""A game in sequence form, built once and cached: ``load(source)`` (the kit's loader) and the
loaded ``Game``, its host arrays and device tensors side by side.

Rules with ``vectorized()`` build level by level (jaxcfr.kits.sequence_form.vectorized), other
rules of the small-game protocol (OpenSpiel's included) by a tree walk
(jaxcfr.kits.sequence_form.build). The arrays go through the one disk cache
(jaxcfr.base.cache), named by the canonical game string and a hash of the rules' and builders'
sources, identified inside the entry by the game string, and checked when read
(jaxcfr.kits.sequence_form.checks).
"""

from __future__ import annotations

import dataclasses

from jaxcfr.base import cache, integrity, memory
from jaxcfr.games import GameInfo
from jaxcfr.kits.registry import GameSource
from jaxcfr.kits.sequence_form import arrays as arrays_module
from jaxcfr.kits.sequence_form import build, checks, vectorized
from jaxcfr.kits.sequence_form.arrays import GameArrays
from jaxcfr.kits.sequence_form.statistics import statistics
from jaxcfr.kits.sequence_form.tensors import GameTensors, device_bytes, to_tensors

__all__ = ["NAME", "Game", "build_arrays", "load"]

NAME = "sequence_form"


@dataclasses.dataclass(frozen=True)
class Game:
  """A loaded game in sequence form: NumPy arrays (host) and the tensors pytree (device).

  Attributes:
    name: the canonical game string.
    arrays: GameArrays, with infoset keys and action ids for conversions.
    tensors: GameTensors, what the solvers and evaluation functions take.
    info: (read-only) the GameInfo the game declares (``arrays.info``).
    openspiel_name: (read-only) the OpenSpiel game string with the same histories and ids,
      or None (``info.openspiel_name``).
    representation: (read-only) "sequence_form".
  """

  name: str
  arrays: GameArrays
  tensors: GameTensors

  @property
  def info(self) -> GameInfo:
    return self.arrays.info

  @property
  def openspiel_name(self) -> str | None:
    return self.info.openspiel_name

  @property
  def representation(self) -> str:
    return NAME

  def statistics(self) -> dict:
    return statistics(self.arrays)

  def openspiel_game(self):
    from jaxcfr.base import openspiel  # pylint: disable=import-outside-toplevel

    if self.openspiel_name is None:
      raise ValueError(f"{self.name} has no OpenSpiel twin")
    return openspiel.load_openspiel_game(self.openspiel_name)


def _builder(source: GameSource):
  """(make, fingerprint, key decoders) of the arrays of ``source``."""
  rules = source.rules
  common = (build, arrays_module, checks, integrity)
  if hasattr(rules, "vectorized"):  # same arrays as the tree walk, built level by level
    vectorised = rules.vectorized()
    decoders = tuple(vectorized.key_decoder(vectorised, p) for p in range(2))
    fingerprint = cache.source_hash(type(rules), vectorized, type(vectorised), *common)
    return lambda: vectorized.build_vectorized(vectorised, source.name), fingerprint, decoders
  if hasattr(rules, "fingerprint"):  # OpenSpiel's rules: the library that plays them
    fingerprint = cache.source_hash(*common) + rules.fingerprint
  else:
    fingerprint = cache.source_hash(type(rules), type(rules.new_initial_state()), *common)
  return lambda: build.build_from_protocol(rules.new_initial_state(), source.name), fingerprint, (None, None)


def build_arrays(source: GameSource, *, use_cache: bool = True) -> GameArrays:
  """The arrays of ``source`` (read from the cache when intact, else built within the memory
  limit), declaring the rules' GameInfo (``arrays.info``)."""
  make, fingerprint, decoders = _builder(source)

  def guarded_make():
    with memory.guarded(source.name):
      return make()

  if not use_cache:
    return guarded_make().with_info(source.info)
  data = cache.cached(
    source.name,
    {"kit": NAME, "game": source.name},
    fingerprint,
    lambda: guarded_make().to_npz_dict(),
    check=lambda data: checks.check_game_arrays(GameArrays.from_npz_dict(data, decoders)),
  )
  return GameArrays.from_npz_dict(data, decoders).with_info(source.info)


def load(source: GameSource, *, dtype=None, use_cache: bool = True) -> Game:
  """The kit's loader: the game of ``source`` in sequence form, its tensors in ``dtype``
  (after checking that they fit the memory limit)."""
  arrays = build_arrays(source, use_cache=use_cache)
  memory.check(device_bytes(arrays, dtype), arrays.name, f"the device tensors of {arrays.num_histories:,} histories")
  return Game(name=arrays.name, arrays=arrays, tensors=to_tensors(arrays, dtype))
