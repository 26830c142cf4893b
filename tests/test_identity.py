"""What a file says it is, checked: a valid cache entry of another game copied over an entry's
name is rebuilt with a warning (the sequence form's arrays, limit hold'em's tables), and a
strategy file of another game or of a representation the game cannot take is refused, for
every kit. (Damaged files: tests/test_cache.py and tests/test_hostile.py.)"""

import re
import shutil

import numpy as np
import pytest

import jaxcfr
from jaxcfr import kits
from jaxcfr.base import integrity
from jaxcfr.kits.card_abstraction import game as holdem


@pytest.fixture
def cache(tmp_path, monkeypatch):
  monkeypatch.setenv("JAXCFR_CACHE_DIR", str(tmp_path))
  return tmp_path


def _entry(directory, prefix: str):
  (path,) = [p for p in directory.glob("*.npz") if p.name.startswith(prefix + "-")]
  return path


def test_the_sequence_form_entry_of_another_game_copied_over_is_rebuilt(cache):
  """Kuhn's entry, whole and with a valid checksum, under Leduc's name: the identity inside
  it says kuhn_poker, so Leduc is rebuilt (a warning naming both) and its entry is Leduc's again."""
  kuhn, leduc = jaxcfr.load("kuhn_poker"), jaxcfr.load("leduc_poker")
  kuhn_file, leduc_file = _entry(cache, "kuhn_poker"), _entry(cache, "leduc_poker")
  shutil.copyfile(kuhn_file, leduc_file)
  with pytest.warns(UserWarning, match=r"rebuilding leduc_poker: .* holds .*\"game\": \"kuhn_poker\".*, not "):
    again = jaxcfr.load("leduc_poker")
  assert again.arrays.num_histories == leduc.arrays.num_histories != kuhn.arrays.num_histories
  np.testing.assert_array_equal(again.arrays.utility, leduc.arrays.utility)
  assert "leduc_poker" in str(integrity.read_npz(leduc_file)["cache_identity"])
  with pytest.warns(UserWarning, match="rebuilding kuhn_poker"):  # and the other way round
    shutil.copyfile(leduc_file, kuhn_file)
    assert jaxcfr.load("kuhn_poker").arrays.num_histories == kuhn.arrays.num_histories


def test_a_holdem_table_of_other_settings_copied_over_is_rebuilt(cache):
  """Two percentile cuts of limit hold'em (3 and 4 buckets, 4 rollouts): the 3-bucket table
  under the 4-bucket name is valid and checksummed, but its identity names the other table,
  so it is rebuilt with a warning, and the game gets its own cuts."""
  holdem.make.cache_clear()
  try:
    three = holdem.make(buckets=3, bucketing="percentile", rollouts=4, cache=str(cache))
    four = holdem.make(buckets=4, bucketing="percentile", rollouts=4, cache=str(cache))
    assert three.cuts.shape == (4, 2) and four.cuts.shape == (4, 3)
    shutil.copyfile(_entry(cache, "limit_holdem_cuts-b3-r4"), _entry(cache, "limit_holdem_cuts-b4-r4"))
    holdem.make.cache_clear()
    with pytest.warns(UserWarning, match=r"rebuilding limit_holdem_cuts-b4-r4: .* holds .*b3-r4.*, not "):
      again = holdem.make(buckets=4, bucketing="percentile", rollouts=4, cache=str(cache))
    np.testing.assert_array_equal(again.cuts, four.cuts)
  finally:
    holdem.make.cache_clear()


def test_the_public_tree_is_built_not_cached(cache):
  """Nothing of the public tree goes to disk (it builds in seconds, priced as it grows), so no
  entry of it can be swapped."""
  jaxcfr.load("leduc_poker", representation="public_tree")
  assert not list(cache.glob("*.npz"))


def _save(path, game):
  jaxcfr.save_strategy(path, game, kits.of_game(game).uniform_profile(game.tensors))
  return path


def _rewrite(path, **changes):
  """The file with some members changed and a fresh checksum: a file that verifies."""
  data = {k: np.asarray(v) for k, v in integrity.read_arrays(path, "strategy file").items()}
  data = {k: v for k, v in data.items() if k != integrity.CHECKSUM}
  with open(path, "wb") as f:
    np.savez(f, **integrity.with_checksum({**data, **changes}))
  return path


@pytest.mark.parametrize(
  "written, read, message",
  [
    # another game, each kit
    (("kuhn_poker", "sequence_form"), ("leduc_poker", "sequence_form"), "holds a strategy for kuhn_poker, not leduc"),
    (("kuhn_poker", "public_tree"), ("leduc_poker", "public_tree"), "holds a strategy for kuhn_poker, not leduc"),
    (
      ("limit_holdem(buckets=3,rollouts=4)", None),
      ("limit_holdem(buckets=4,rollouts=4)", None),
      r"holds a strategy for limit_holdem\(bucketing=width,buckets=3,rollouts=4\), not limit_holdem\(bucketing="
      r"width,buckets=4",
    ),
    # the same game, a representation that cannot take it
    (("kuhn_poker", "sequence_form"), ("kuhn_poker", "public_tree"), "holds a sequence_form strategy, which kuhn"),
  ],
)
def test_a_strategy_file_of_another_game_or_representation_is_refused(tmp_path, written, read, message):
  game = jaxcfr.load(written[0], representation=written[1])
  path = _save(tmp_path / "s.npz", game)
  with pytest.raises(ValueError, match=f"^{re.escape(str(path))} {message}"):
    jaxcfr.load_strategy(path, jaxcfr.load(read[0], representation=read[1]))


@pytest.mark.parametrize(
  "written, read, message",
  [
    # renamed to the game read, but its rows are another game's: each kit's own checks
    (("kuhn_poker", "sequence_form"), ("leduc_poker", "sequence_form"), "infoset"),
    (("kuhn_poker", "public_tree"), ("leduc_poker", "public_tree"), "differ from leduc_poker's tree"),
    (("limit_holdem(buckets=3,rollouts=4)", None), ("limit_holdem(buckets=4,rollouts=4)", None), "has shape"),
    # a card-abstraction file that says it is kuhn_poker's
    (("limit_holdem(buckets=3,rollouts=4)", None), ("kuhn_poker", "sequence_form"), "holds a card_abstraction"),
  ],
)
def test_a_strategy_file_renamed_to_the_game_read_is_refused_by_its_kit(tmp_path, written, read, message):
  """A hostile file: its game member rewritten to the game read and its checksum made
  afresh, so that only the kit's own checks of the rows stand in the way."""
  game, target = jaxcfr.load(written[0], representation=written[1]), jaxcfr.load(read[0], representation=read[1])
  path = _rewrite(_save(tmp_path / "s.npz", game), game=np.array(target.name))
  with pytest.raises(ValueError, match=message):
    jaxcfr.load_strategy(path, target)
