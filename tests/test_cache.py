"""The on-disk cache of built arrays: hits, rebuilds of damaged files, no pickles."""

from __future__ import annotations

import dataclasses
import re

import jax
import numpy as np
import pytest

import jaxcfr
from jaxcfr import games
from jaxcfr.kits.sequence_form import build as build_module
from jaxcfr.base import integrity
from jaxcfr.kits.sequence_form import checks
from jaxcfr.kits.sequence_form import vectorized as vectorized_module
from jaxcfr.kits.sequence_form.arrays import GameArrays

GAME = "one_card_poker(num_cards=4)"


@pytest.fixture
def cache(tmp_path, monkeypatch):
  """A private cache directory, and a counter of the builders' calls (tree walk and
  vectorised)."""
  monkeypatch.setenv("JAXCFR_CACHE_DIR", str(tmp_path))
  calls = []
  for module, builder in ((build_module, "build_from_protocol"), (vectorized_module, "build_vectorized")):
    real = getattr(module, builder)

    def counting(*args, real=real, **kwargs):
      calls.append(args[1] if len(args) > 1 else kwargs.get("name"))
      return real(*args, **kwargs)

    monkeypatch.setattr(module, builder, counting)
  return tmp_path, calls


def assert_same_arrays(a: GameArrays, b: GameArrays):
  da, db = a.to_npz_dict(), b.to_npz_dict()
  assert da.keys() == db.keys()
  for key in da:
    assert da[key].dtype == db[key].dtype, key
    np.testing.assert_array_equal(da[key], db[key], err_msg=key)


def _cache_files(directory):
  return sorted(directory.glob("*.npz"))


def test_second_load_reads_the_cache(cache):
  directory, calls = cache
  first = jaxcfr.load(GAME)
  assert len(calls) == 1 and len(_cache_files(directory)) == 1
  second = jaxcfr.load(GAME)
  assert len(calls) == 1  # no second build
  assert_same_arrays(first.arrays, second.arrays)
  assert second.name == first.name == GAME
  assert first.statistics() == second.statistics()


def test_a_cache_hit_declares_the_rules_info_and_shares_programs(cache):
  """The GameInfo is the rules' (not stored in the file: the cache format is unchanged), and
  two loads of a game have equal static metadata (name, info, InfosetLabels and TreeStatics
  compare by value), so their tensors have one tree structure and reuse compiled programs."""
  directory, calls = cache
  first, second = jaxcfr.load("kuhn_poker"), jaxcfr.load("kuhn_poker")
  assert len(calls) == 1 and second.info == first.info == games.kuhn_poker().info
  assert "info" not in integrity.read_npz(_cache_files(directory)[0])
  assert second.tensors.labels == first.tensors.labels and hash(second.tensors.labels) == hash(first.tensors.labels)
  assert jax.tree_util.tree_structure(first.tensors) == jax.tree_util.tree_structure(second.tensors)
  assert jaxcfr.load("one_card_poker(num_cards=4)").tensors.labels != first.tensors.labels
  # Keys stored as codes of vectorised rules: equal codes of two games may decode differently,
  # so the labels also name the game whose rules decode them.
  assert first.arrays.players[0].key_data.dtype == np.int64
  assert jaxcfr.load("one_card_poker(num_cards=3)").tensors.labels != first.tensors.labels
  walked = [jaxcfr.load("openspiel:kuhn_poker", use_cache=False) for _ in range(2)]  # keys as strings
  assert walked[0].tensors.labels == walked[1].tensors.labels != first.tensors.labels


def test_use_cache_false_neither_reads_nor_writes(cache):
  directory, calls = cache
  jaxcfr.load(GAME, use_cache=False)
  assert not _cache_files(directory)
  jaxcfr.load(GAME)
  jaxcfr.load(GAME, use_cache=False)
  assert len(calls) == 3


def test_cache_files_are_plain_arrays(cache):
  directory, _ = cache
  for game in (GAME, "openspiel:kuhn_poker"):
    arrays = jaxcfr.load(game).arrays
  files = _cache_files(directory)
  assert len(files) == 2 and not list(directory.glob("*.tmp*"))
  for path in files:
    with np.load(path, allow_pickle=False) as data:  # raises on any object array
      loaded = {key: data[key] for key in data.files}
    assert all(value.dtype != object for value in loaded.values())
  assert_same_arrays(GameArrays.from_npz_dict(loaded), arrays)  # the last one, kuhn


def _corrupt_garbage(path):
  path.write_bytes(b"this is not an npz file" * 10)


def _corrupt_empty(path):
  path.write_bytes(b"")


def _corrupt_truncated(path):
  path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _corrupt_missing_field(path):
  with np.load(path, allow_pickle=False) as data:
    arrays = {key: data[key] for key in data.files if key != "p1_key_data"}
  np.savez(path, **arrays)


def _corrupt_old_version(path):
  with np.load(path, allow_pickle=False) as data:
    arrays = {key: data[key] for key in data.files}
  arrays["format_version"] = np.array(0)
  np.savez(path, **arrays)


def _corrupt_pickled_object(path):
  """An object array needs pickle to load: it must be refused, not unpickled."""
  with np.load(path, allow_pickle=False) as data:
    arrays = {key: data[key] for key in data.files}
  arrays["p0_key_data"] = arrays["p0_key_data"].astype(object)
  np.savez(path, **arrays)


def _rewrite(path, change, *, keep_checksum: bool):
  """Rewrites the file's arrays after ``change(arrays)``; with ``keep_checksum`` the old
  checksum stays (damaged data under an intact zip), else a fresh one is computed (a
  consistent file whose game structure is broken)."""
  with np.load(path, allow_pickle=False) as data:
    arrays = {key: data[key].copy() for key in data.files}
  change(arrays)
  if not keep_checksum:
    arrays = integrity.with_checksum(arrays)
  np.savez(path, **arrays)


def _corrupt_flipped_payoff_signs(path):
  def flip(arrays):
    terminal = np.flatnonzero(arrays["kind"] == 3)[:10]
    arrays["utility"][terminal] *= -1

  _rewrite(path, flip, keep_checksum=True)


def _corrupt_bit_in_parent(path):
  """One flipped bit inside the parent array's bytes, the zip structure untouched."""
  raw = bytearray(path.read_bytes())
  with np.load(path, allow_pickle=False) as data:
    parent = data["parent"]
  needle = parent[5:9].tobytes()
  at = raw.find(needle)
  assert at > 0
  raw[at] ^= 0x04
  path.write_bytes(bytes(raw))


def _corrupt_npy_header(path):
  """A flipped bit in a member's .npy header (numpy parses it as Python literals; found by
  the fuzz test in tests/test_hostile.py)."""
  raw = bytearray(path.read_bytes())
  at = raw.rfind(b"'shape': (")
  raw[at + 9] ^= 0x08  # '(' becomes ' '
  path.write_bytes(bytes(raw))


def _corrupt_chance_with_fresh_checksum(path):
  def chance(arrays):
    children = np.flatnonzero(arrays["parent"] == 0)
    arrays["chance_prob"][children[0]] = 1.5

  _rewrite(path, chance, keep_checksum=False)


def _corrupt_parent_with_fresh_checksum(path):
  def parent(arrays):
    arrays["parent"][7] = 9

  _rewrite(path, parent, keep_checksum=False)


@pytest.mark.parametrize(
  "corrupt",
  [
    _corrupt_garbage,
    _corrupt_empty,
    _corrupt_truncated,
    _corrupt_missing_field,
    _corrupt_old_version,
    _corrupt_pickled_object,
    _corrupt_flipped_payoff_signs,
    _corrupt_bit_in_parent,
    _corrupt_npy_header,
    _corrupt_chance_with_fresh_checksum,
    _corrupt_parent_with_fresh_checksum,
  ],
)
def test_damaged_cache_file_is_rebuilt(cache, corrupt):
  directory, calls = cache
  first = jaxcfr.load(GAME)
  (path,) = _cache_files(directory)
  corrupt(path)
  with pytest.warns(UserWarning, match=f"rebuilding {re.escape(GAME)}"):
    second = jaxcfr.load(GAME)
  assert len(calls) == 2  # rebuilt
  assert_same_arrays(first.arrays, second.arrays)
  with np.load(path, allow_pickle=False) as data:  # and the file is whole again
    assert_same_arrays(GameArrays.from_npz_dict(data), first.arrays)
  jaxcfr.load(GAME)
  assert len(calls) == 2


def test_different_parameters_use_different_files(cache):
  directory, _ = cache
  a = jaxcfr.load("one_card_poker(num_cards=4)")
  b = jaxcfr.load("one_card_poker(num_cards=5)")
  assert len(_cache_files(directory)) == 2
  assert a.arrays.num_histories != b.arrays.num_histories
  # kuhn_poker and one_card_poker(num_cards=3) have the same rules but distinct names.
  assert jaxcfr.load("kuhn_poker").name == "kuhn_poker"
  assert jaxcfr.load("one_card_poker(num_cards=3)").name == "one_card_poker(num_cards=3)"


LEAN_GAMES = ["latent_tic_tac_toe(opening=eai)", "goofspiel(num_cards=4)", "leduc_poker"]


@pytest.mark.parametrize("game_string", LEAN_GAMES)
def test_cached_arrays_are_memory_mapped_and_give_identical_tensors(cache, game_string):
  """A load from the cache reads the file memory-mapped (arrays.read_npz) and gives the
  arrays, decoded infoset keys, tensors and values of a fresh build."""
  directory, _ = cache
  fresh = jaxcfr.load(game_string, use_cache=False)
  jaxcfr.load(game_string)  # builds and writes the file
  (path,) = _cache_files(directory)
  cached = jaxcfr.load(game_string)  # reads it
  assert_same_arrays(fresh.arrays, cached.arrays)
  for a, b in zip(fresh.arrays.players, cached.arrays.players):
    np.testing.assert_array_equal(a.keys, b.keys)
  np.testing.assert_array_equal(fresh.arrays.first_child, cached.arrays.first_child)
  big = [v for v in (cached.arrays.parent, cached.arrays.sequence) if v.nbytes >= integrity._MMAP_MIN_BYTES]
  assert all(not v.flags.writeable for v in big)  # mapped read-only, not copied
  for x, y in zip(jax.tree_util.tree_leaves(fresh.tensors), jax.tree_util.tree_leaves(cached.tensors)):
    assert x.dtype == y.dtype
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
  with np.load(path, allow_pickle=False) as data:  # read_npz reads what np.load reads
    mapped = integrity.read_npz(path)
    assert sorted(data.files) == sorted(mapped)
    for key in data.files:
      assert data[key].dtype == mapped[key].dtype and data[key].shape == mapped[key].shape
      np.testing.assert_array_equal(data[key], mapped[key])


def test_read_npz_maps_large_members(tmp_path, monkeypatch):
  monkeypatch.setattr(integrity, "_MMAP_MIN_BYTES", 64)
  path = tmp_path / "a.npz"
  values = {
    "small": np.arange(3, dtype=np.int8),
    "big": np.arange(1000, dtype=np.int32).reshape(10, 100),
    "fortran": np.asfortranarray(np.arange(200.0).reshape(10, 20)),
    "text": np.array(["ab", "c"]),
    "scalar": np.array(7),
  }
  np.savez(path, **values)
  mapped = integrity.read_npz(path)
  for key, value in values.items():
    assert mapped[key].dtype == value.dtype
    np.testing.assert_array_equal(mapped[key], value)
  assert not mapped["big"].flags.writeable and mapped["small"].flags.writeable


def test_vectorised_keys_need_their_decoder():
  arrays = jaxcfr.load("goofspiel(num_cards=3)").arrays
  assert arrays.players[0].key_data.dtype == np.int64
  undecodable = dataclasses.replace(arrays.players[0], key_decoder=None)
  with pytest.raises(ValueError, match="no decoder"):
    undecodable.keys  # pylint: disable=pointless-statement
  assert arrays.players[0].keys[0] == ""  # the first infoset: no bids yet


@pytest.mark.parametrize("setting", ["a file", "under a file"])
def test_unusable_cache_directory_builds_without_the_cache(tmp_path, monkeypatch, setting):
  blocker = tmp_path / "blocker"
  blocker.write_text("not a directory")
  monkeypatch.setenv("JAXCFR_CACHE_DIR", str(blocker if setting == "a file" else blocker / "cache"))
  with pytest.warns(UserWarning, match="unusable"):
    game = jaxcfr.load(GAME)
  assert game.arrays.num_histories > 0 and blocker.read_text() == "not a directory"


def test_empty_cache_directory_variable_is_an_error(monkeypatch):
  monkeypatch.setenv("JAXCFR_CACHE_DIR", "")
  with pytest.raises(ValueError, match="JAXCFR_CACHE_DIR is set but empty"):
    jaxcfr.load(GAME)


def test_structural_check_accepts_every_fresh_build():
  for game in ("kuhn_poker", "leduc_poker", "liars_dice(dice_sides=3)", "goofspiel(num_cards=3)", "rps"):
    checks.check_game_arrays(jaxcfr.load(game, use_cache=False).arrays)


def test_ctrl_c_while_writing_an_entry_leaves_no_partial_file(cache, monkeypatch):
  directory, _ = cache
  real_savez = np.savez

  def interrupted(file, **arrays):
    real_savez(file, **arrays)  # the temporary file exists, then Ctrl-C arrives
    raise KeyboardInterrupt

  monkeypatch.setattr(np, "savez", interrupted)
  with pytest.raises(KeyboardInterrupt):
    jaxcfr.load(GAME)
  assert not list(directory.iterdir())
  monkeypatch.setattr(np, "savez", real_savez)
  jaxcfr.load(GAME)
  assert len(_cache_files(directory)) == 1
