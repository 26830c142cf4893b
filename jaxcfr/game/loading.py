"""``jaxcfr.load``: game strings, the native registry, the OpenSpiel fallback and the disk cache.

Game strings follow OpenSpiel: ``name`` or ``name(key=value,...)``. A native name (see
``jaxcfr.games.GAMES``) builds from the rules in ``games/`` (with the vectorised builder,
jaxcfr/game/vectorized.py, when the rules offer it); any other name resolves through
OpenSpiel when it is installed; ``openspiel:NAME`` forces OpenSpiel. Built arrays are
cached as ``.npz`` under ``$JAXCFR_CACHE_DIR`` (default ``~/.cache/jaxcfr``), keyed by the
canonical game string and a hash of the rules and builder sources, so edited rules never
load stale arrays. Cache files are plain arrays (np.savez, uncompressed), read without
pickles and memory-mapped (``arrays.read_npz``): a loaded game's host arrays are page
cache backed by the file, so on a CPU they do not double the memory of the device copy.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import os
import re
import warnings
from pathlib import Path

import numpy as np

from jaxcfr.games import GAMES, GameError, GameInfo, OpenSpielVariant
from jaxcfr.game import arrays as arrays_module
from jaxcfr.game import build, integrity, memory, openspiel, vectorized
from jaxcfr.game.arrays import GameArrays
from jaxcfr.game.representation import Representation
from jaxcfr.game.statistics import statistics
from jaxcfr.game.tensors import GameTensors, device_bytes, to_tensors

__all__ = [
  "UnknownGameError",
  "parse_game_string",
  "split_game_list",
  "canonical_name",
  "Game",
  "cache_dir",
  "build_arrays",
  "load",
  "representations_of",
  "representation_of",
  "SAMPLED_GAMES",
]

_NAME = re.compile(r"^\s*([A-Za-z_][\w]*)\s*(?:\((.*)\))?\s*$", re.S)


class UnknownGameError(ValueError):
  pass


def _parse_value(text: str):
  text = text.strip()
  if text in ("True", "true"):
    return True
  if text in ("False", "false"):
    return False
  for cast in (int, float):
    try:
      return cast(text)
    except ValueError:
      pass
  return text


def parse_game_string(game_string: str) -> tuple[str, dict]:
  """``"goofspiel(num_cards=4,imp_info=True)"`` -> ``("goofspiel", {"num_cards": 4, "imp_info": True})``."""
  match = _NAME.match(game_string)
  if not match:
    raise UnknownGameError(f"cannot parse game string {game_string!r}; expected name or name(key=value,...)")
  name, body = match.group(1), match.group(2)
  params = {}
  for item in filter(None, (body or "").split(",")):
    key, sep, value = item.partition("=")
    if not sep or not key.strip():
      raise UnknownGameError(f"bad parameter {item.strip()!r} in {game_string!r}; expected key=value")
    if key.strip() in params:
      raise UnknownGameError(f"parameter {key.strip()!r} is given twice in {game_string!r}")
    params[key.strip()] = _parse_value(value)
  return name, params


def split_game_list(text: str) -> list[str]:
  """Game strings from a comma-separated list, splitting only at commas outside
  parentheses: ``"kuhn_poker,goofspiel(num_cards=4,imp_info=True)"`` -> two games."""
  games, depth, start = [], 0, 0
  for i, char in enumerate(text + ","):
    depth += {"(": 1, ")": -1}.get(char, 0)
    if char == "," and depth == 0:
      if text[start:i].strip():
        games.append(text[start:i].strip())
      start = i + 1
  if depth != 0:
    raise UnknownGameError(f"unbalanced parentheses in the game list {text!r}")
  return games


def canonical_name(name: str, params: dict) -> str:
  if not params:
    return name
  return f"{name}({','.join(f'{k}={params[k]}' for k in sorted(params))})"


@dataclasses.dataclass(frozen=True)
class Game:
  """A loaded game: NumPy arrays (host) and the tensors pytree (device).

  Attributes:
    name: the canonical game string.
    arrays: GameArrays, with infoset keys and action ids for conversions.
    tensors: GameTensors, what the solvers and evaluation functions take.
    info: (read-only) the GameInfo the game declares (``arrays.info``): payoff unit, poker
      or not, OpenSpiel twin, metrics and RCFR features.
    openspiel_name: (read-only) the OpenSpiel game string with the same histories and ids,
      or None (``info.openspiel_name``).
    representation: (read-only) ``Representation.SEQUENCE_FORM``.
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
  def representation(self) -> Representation:
    return Representation.SEQUENCE_FORM

  def statistics(self) -> dict:
    return statistics(self.arrays)

  def openspiel_game(self):
    if self.openspiel_name is None:
      raise ValueError(f"{self.name} has no OpenSpiel twin")
    return openspiel.load_openspiel_game(self.openspiel_name)


def _source_hash(*objects) -> str:
  digest = hashlib.sha256()
  for obj in objects:
    digest.update(Path(inspect.getsourcefile(obj)).read_bytes())
  return digest.hexdigest()[:16]


def cache_dir() -> Path:
  """``$JAXCFR_CACHE_DIR``, default ``~/.cache/jaxcfr``. Raises ValueError if the variable
  is set but empty (it would put cache files in the current directory)."""
  value = os.environ.get("JAXCFR_CACHE_DIR")
  if value is not None and not value.strip():
    raise ValueError("JAXCFR_CACHE_DIR is set but empty; unset it or name a directory")
  return Path(value) if value is not None else Path.home() / ".cache" / "jaxcfr"


def _read_cache(path: Path, key_decoders) -> GameArrays:
  """The verified arrays of a cache file: checksum, then the structure of the game."""
  try:
    data = integrity.verify_checksum(arrays_module.read_npz(path), path)
    arrays = GameArrays.from_npz_dict(data, key_decoders)
  except integrity.READ_ERRORS as error:
    if isinstance(error, integrity.DamagedFileError):
      raise
    raise integrity.DamagedFileError(f"{path} is not a readable cache file ({type(error).__name__}: {error})") from None
  integrity.check_game_arrays(arrays)
  return arrays


def _guarded(make, name: str):
  """``make`` within the memory limit (memory.guarded: an allocation failure is one line)."""

  def guarded_make():
    with memory.guarded(name):
      return make()

  return guarded_make


def _cached_build(name: str, fingerprint: str, make, use_cache: bool, key_decoders=(None, None)) -> GameArrays:
  """The arrays from the cache file if it is intact, else built by ``make()``. A damaged
  entry is rebuilt (with a warning); an unusable cache directory (read-only, a file, ...)
  gives a warning and a build without the cache. With the cache on, a fresh build is
  written and read back memory-mapped (arrays.read_npz), so that the loaded game holds its
  host arrays as page cache, not process memory."""
  make = _guarded(make, name)
  if not use_cache:
    return make()
  safe = re.sub(r"[^\w.=,-]+", "_", name)[:100]
  whole = hashlib.sha256(name.encode()).hexdigest()[:12]  # the whole name: long strings differ past the cut
  path = cache_dir() / f"{safe}-{whole}-{fingerprint}.npz"
  if path.exists():
    try:
      return _read_cache(path, key_decoders)
    except integrity.DamagedFileError as error:
      warnings.warn(f"rebuilding {name}: {error}", stacklevel=3)
  arrays = make()
  tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
  try:
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(tmp, **integrity.with_checksum(arrays.to_npz_dict()))
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
  return _read_cache(path, key_decoders)


def build_arrays(game_string: str, *, use_cache: bool = True) -> tuple[GameArrays, GameInfo]:
  """Builds (or reads from the cache) the arrays of a game string; returns them with the
  GameInfo the game declares (native rules: their ``info``, the defaults if they declare
  none; OpenSpiel's games: ``openspiel.game_info``), which the arrays also carry
  (``arrays.info``)."""
  force_openspiel = game_string.strip().startswith("openspiel:")
  body = game_string.strip()[len("openspiel:") :] if force_openspiel else game_string
  name, params = parse_game_string(body)
  builder_hash = _source_hash(build, arrays_module, integrity)
  if not force_openspiel and name in GAMES:
    factory = GAMES[name]
    try:
      rules = _native_rules(name, params)
    except OpenSpielVariant as error:
      if not openspiel.available():
        raise GameError(
          f"{body.strip()} is OpenSpiel's variant: {error}; it needs OpenSpiel (pip install 'jaxcfr[openspiel]')"
        ) from error
      return build_arrays(f"openspiel:{body.strip()}", use_cache=use_cache)
    canonical = canonical_name(rules.name, rules.params)
    decoders = (None, None)
    if hasattr(rules, "vectorized"):  # same arrays as the tree walk, built level by level
      make = lambda: vectorized.build_vectorized(rules.vectorized(), canonical)
      fingerprint = _source_hash(factory, build, vectorized, arrays_module, integrity, type(rules.vectorized()))
      decoders = tuple(vectorized.key_decoder(rules.vectorized(), p) for p in range(2))
    else:
      make = lambda: build.build_from_protocol(rules.new_initial_state(), canonical)
      fingerprint = _source_hash(factory, build, arrays_module, integrity, type(rules.new_initial_state()))
    info = getattr(rules, "info", None) or GameInfo()
    if not isinstance(info, GameInfo):
      raise GameError(f"the rules of {canonical} declare info of type {type(info).__name__}, not a GameInfo")
    return _cached_build(canonical, fingerprint, make, use_cache, decoders).with_info(info), info
  if force_openspiel and openspiel.available() and name not in openspiel.registered_names():
    raise UnknownGameError(f"unknown OpenSpiel game {name!r} in {game_string.strip()!r}")
  if force_openspiel or name in openspiel.registered_names():
    import pyspiel  # pylint: disable=import-outside-toplevel

    canonical = f"openspiel:{canonical_name(name, params)}"
    os_string = canonical_name(name, params)
    fingerprint = hashlib.sha256(
      f"{builder_hash}{pyspiel.__file__}{os.path.getmtime(pyspiel.__file__)}".encode()
    ).hexdigest()[:16]
    make = lambda: openspiel.build_openspiel(os_string, canonical)
    info = openspiel.game_info(os_string)
    return _cached_build(canonical, fingerprint, make, use_cache).with_info(info), info
  hint = "" if openspiel.available() else " (other names resolve through OpenSpiel: pip install 'jaxcfr[openspiel]')"
  raise UnknownGameError(f"unknown game {name!r}; native games: {sorted(GAMES)}{hint}")


def load(game_string: str, *, dtype=None, use_cache: bool = True, representation=None, runs: int | None = None):
  """Loads a game by its OpenSpiel-style string, e.g. ``load("one_card_poker(num_cards=13)")``.

  Args:
    game_string: ``name``, ``name(key=value,...)`` or ``openspiel:name(...)``.
    dtype: float dtype of the tensors (default: jax's default float, float32 unless
      ``jax_enable_x64`` is on).
    use_cache: read and write the on-disk cache of built arrays.
    representation: "sequence_form", "public_tree" or "sampled" (a Representation), or None
      for the game's default (``representation_of``).
    runs: the number of runs the game will be solved with as one batch, if known: with no
      ``representation`` given, a game that has both exact representations loads the one
      that is faster for that many runs (``representation_of``).
  Returns:
    a Game (sequence form), a PublicTreeGame (public tree) or a HoldemGame (sampled): each
    has ``name``, ``info``, ``representation`` and ``tensors`` (what its solvers take).
  """
  chosen = representation_of(game_string, representation, runs=runs)
  if chosen == Representation.SAMPLED:
    return _sampled_game(game_string, use_cache)
  if chosen == Representation.PUBLIC_TREE:
    return _public_tree_game(game_string, dtype)
  arrays, _ = build_arrays(game_string, use_cache=use_cache)
  memory.check(device_bytes(arrays, dtype), arrays.name, f"the device tensors of {arrays.num_histories:,} histories")
  return Game(name=arrays.name, arrays=arrays, tensors=to_tensors(arrays, dtype))


def _native_rules(name: str, params: dict):
  """The rules object of a native game (GameError naming the parameters on a bad one)."""
  factory = GAMES[name]
  try:
    return factory(**params)
  except TypeError as error:
    allowed = list(inspect.signature(factory).parameters)
    raise GameError(f"unknown parameter for {name}: {sorted(params)}; its parameters are {allowed}") from error


def representations_of(game_string: str) -> tuple[Representation, ...]:
  """The representations ``game_string`` can be loaded in, its default first (nothing is
  built): a sampled game's own; a native game's sequence form when its rules can be walked
  and its public tree when they declare one (a game too large for the sequence form has only
  the public tree); OpenSpiel games the sequence form."""
  body = game_string.strip()
  if body.startswith("openspiel:"):
    return (Representation.SEQUENCE_FORM,)
  name, params = parse_game_string(body)
  if name in SAMPLED_GAMES:
    return (Representation.SAMPLED,)
  if name not in GAMES:
    return (Representation.SEQUENCE_FORM,)
  try:
    rules = _native_rules(name, params)
  except OpenSpielVariant:
    return (Representation.SEQUENCE_FORM,)
  found = []
  if hasattr(rules, "new_initial_state") or hasattr(rules, "vectorized"):
    found.append(Representation.SEQUENCE_FORM)
  if hasattr(rules, "public_tree_rules"):
    found.append(Representation.PUBLIC_TREE)
  return tuple(found)


def representation_of(game_string: str, requested=None, *, runs: int | None = None) -> Representation:
  """The representation ``load(game_string, representation=requested, runs=runs)`` returns
  (nothing is built); GameError naming the game's representations when it has not the one
  requested. With none requested: the first of ``representations_of``, or the public tree
  where the game has both exact representations and declares that the public tree is the
  faster for batches of ``runs`` (``GameInfo.public_tree_runs``)."""
  available = representations_of(game_string)
  if requested is None:
    if runs is not None and {Representation.SEQUENCE_FORM, Representation.PUBLIC_TREE} <= set(available):
      threshold = _native_rules(*parse_game_string(game_string.strip())).info.public_tree_runs
      if threshold is not None and runs >= threshold:
        return Representation.PUBLIC_TREE
    return available[0]
  try:
    requested = Representation(requested)
  except ValueError:
    choices = ", ".join(r.value for r in Representation)
    raise GameError(f"unknown representation {requested!r}; choose one of {choices}") from None
  if requested not in available:
    raise GameError(
      f"{game_string.strip()} has no {requested} representation; it has: {', '.join(map(str, available))}"
    )
  return requested


def _public_tree_game(game_string: str, dtype):
  from jaxcfr.game import public_tree  # pylint: disable=import-outside-toplevel
  from jaxcfr.game.public_game import PublicTreeGame  # pylint: disable=import-outside-toplevel

  name, params = parse_game_string(game_string)
  rules = _native_rules(name, params)
  tree = public_tree.public_tree_of(rules)  # priced as it grows; not under memory.guarded (it ranks hands in JAX)
  return PublicTreeGame(
    name=canonical_name(rules.name, rules.params),
    info=rules.info,
    tree=tree,
    tensors=public_tree.to_device(tree, dtype),
  )


# Games played by sampling, without sequence-form tensors (too big to build): their loader
# returns the sampled game (jaxcfr.game.limit_holdem.HoldemGame) in place of a Game.
SAMPLED_GAMES = ("limit_holdem",)


def _sampled_game(game_string: str, use_cache: bool):
  if game_string.strip().startswith("openspiel:"):
    return None
  name, params = parse_game_string(game_string)
  if name not in SAMPLED_GAMES:
    return None
  from jaxcfr.game import limit_holdem  # pylint: disable=import-outside-toplevel

  allowed = [k for k in inspect.signature(limit_holdem.make).parameters if k != "cache"]
  unknown = sorted(set(params) - set(allowed))
  if unknown:
    raise GameError(f"unknown parameter for {name}: {unknown}; its parameters are {allowed}")
  # Not under memory.guarded (the tables are computed in JAX); make bounds every parameter.
  return limit_holdem.make(**params, cache=str(cache_dir()) if use_cache else None)
