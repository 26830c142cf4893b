"""Range strings (games/poker_ranges.py): the combos of each form of entry, the overrides, the
errors, and the round trip weights -> string -> weights, exact for every one of the 1,326
combos (postflop-solver's range tests are the model for the equivalences)."""

import hypothesis
import hypothesis.strategies as st
import numpy as np
import pytest

from jaxcfr.games.hunl_subgame import hand_names
from jaxcfr.games.poker_ranges import NUM_HANDS, RANKS, format_range, hand_index, parse_range

NAMES = hand_names()


def combos(text: str) -> set:
  """The names of the hands with positive weight."""
  weights = parse_range(text)
  return {NAMES[i] for i in np.flatnonzero(weights)}


@pytest.mark.parametrize(
  "text, count",
  [
    ("AA", 6),
    ("AKs", 4),
    ("AKo", 12),
    ("AK", 16),
    ("22+", 78),
    ("A2s+", 48),
    ("66+", 54),
    ("22-55", 24),
    ("55-22", 24),
    ("A8s+", 24),
    ("A5s-A2s", 16),
    ("K9o+", 48),
    ("T9s+", 20),
    ("KQo-JTo", 36),
    ("AhKh", 1),
    ("8h8s+", 7),
    ("", 0),
    ("QQ+,AK,AQs", 18 + 16 + 4),
  ],
)
def test_known_ranges_have_known_combo_counts(text, count):
  assert len(combos(text)) == count


def test_the_hands_are_the_library_order():
  assert combos("AA") == {"AsAh", "AsAd", "AsAc", "AhAd", "AhAc", "AdAc"}
  assert combos("AKs") == {"KsAs", "KhAh", "KdAd", "KcAc"}  # hand_names: the lower card id first
  assert combos("AhKh") == {"KhAh"} and combos("8h8s") == {"8s8h"}
  assert parse_range("AsAh")[hand_index(48, 49)] == 1 and NAMES[hand_index(49, 48)] == "AsAh"
  offsuit = combos("AKo")
  assert len(offsuit) == 12 and all(name[1] != name[3] for name in offsuit)
  weights = parse_range("KQo:0.5,AA:.25")
  assert sorted(set(weights.tolist())) == [0.0, 0.25, 0.5] and np.count_nonzero(weights == 0.5) == 12


@pytest.mark.parametrize(
  "text, same",
  [
    ("88+", "AA,KK,QQ,JJ,TT,99,88"),
    ("8s8h+", "AhAs,KhKs,QhQs,JhJs,ThTs,9h9s,8h8s"),
    ("98s+", "AKs,KQs,QJs,JTs,T9s,98s"),
    ("A8o+", "AKo,AQo,AJo,ATo,A9o,A8o"),
    ("88-55", "88,77,66,55"),
    ("98s-65s", "98s,87s,76s,65s"),
    ("AQo-86o", "AQo,KJo,QTo,J9o,T8o,97o,86o"),
    ("K5-K2", "K5,K4,K3,K2"),
    ("K2-K5", "K5,K4,K3,K2"),
    ("AhAs-QhQs,JJ", "JJ,AhAs,KhKs,QhQs"),
    ("AKs-AKs", "AKs"),
    ("AK", "AKs,AKo"),
    ("ak,kqS,qJO", "AK,KQs,QJo"),
    ("  AK  ", "AK"),
    ("K9s: .67", "K9s:0.67"),
    ("88+, AQ+ ,\n A5s", "88+,AQ+,A5s"),
    ("98s - 65s: 0.25", "98s-65s:0.25"),
    ("AK,", "AK"),
  ],
)
def test_equivalent_ranges(text, same):
  np.testing.assert_array_equal(parse_range(text), parse_range(same))


def test_an_earlier_entry_holds_over_a_later_one():
  """postflop-solver applies the entries last to first: the first weight named holds."""
  aces = hand_index(48, 49)
  assert parse_range("AA:0.5,QQ+")[aces] == 0.5
  assert parse_range("QQ+,AA:0.5")[aces] == 1.0
  assert parse_range("AsAh:0.2,AA:0.7")[aces] == 0.2 and parse_range("AsAh:0.2,AA:0.7")[hand_index(48, 50)] == 0.7


@pytest.mark.parametrize(
  "text, message",
  [
    ("AKQ", "range entry 'AKQ': 'Q' is neither s"),
    ("AKQJT", "malformed range entry 'AKQJT'"),
    ("A", "malformed range entry 'A'"),
    ("AX", "unknown rank 'X' in range entry 'AX'"),
    ("1A", "unknown rank '1' in range entry '1A'"),
    ("AhKx", "unknown suit 'x' in range entry 'AhKx'"),
    ("AKx", "range entry 'AKx': 'x' is neither s"),
    ("AAs", "range entry 'AAs': a pair is neither suited nor offsuit"),
    ("AAo", "range entry 'AAo': a pair is neither suited nor offsuit"),
    ("89", "range entry '89': the higher rank comes first"),
    ("KhAh", "range entry 'KhAh': the higher rank comes first"),
    ("AsAs", "range entry 'AsAs' holds the card 'As' twice"),
    ("KQo:1.5", "range entry 'KQo:1.5': weight '1.5' is outside"),
    ("KQo:-0.5", "range entry 'KQo:-0.5': weight '-0.5' is outside"),
    ("KQo:abc", "range entry 'KQo:abc': weight 'abc' is not a number"),
    ("KQo:nan", "range entry 'KQo:nan': weight 'nan' is not a number"),
    ("KQo:", "range entry 'KQo:': weight '' is not a number"),
    ("KQo:0.5:0.5", "malformed range entry 'KQo:0.5:0.5'"),
    ("AQo-86s", "range entry 'AQo-86s': the ends differ in shape"),
    ("AQo-K9o", "range entry 'AQo-K9o': the ends differ in shape"),
    ("AA-AK", "range entry 'AA-AK': the ends differ in shape"),
    ("AhAs-QsQh", "range entry 'AhAs-QsQh': the ends differ in shape"),
    ("AhAs-KhQs", "range entry 'AhAs-KhQs': the ends differ in shape"),
    ("A5s-A3s-A2s", "malformed range entry 'A5s-A3s-A2s'"),
    ("AK,,QQ", "empty range entry"),
    (",", "empty range entry"),
  ],
)
def test_malformed_ranges_are_one_line_errors_naming_the_entry(text, message):
  with pytest.raises(ValueError, match="^" + message.replace("(", r"\(")) as error:
    parse_range(text)
  assert "\n" not in str(error.value)


def test_format_writes_short_strings():
  for text, written in [
    ("AA,KK", "KK+"),
    ("KK,QQ", "KK-QQ"),
    ("66-22,TT+", "TT+,66-22"),
    ("AA:0.5, KK:1.0, QQ:1.0, JJ:0.5", "AA:0.5,KK-QQ,JJ:0.5"),
    ("AA,AK,AQ", "AA,AQ+"),
    ("AK,AQ,AJs", "AQ+,AJs"),
    ("KQ,KT,K9,K8,K6,K5", "KQ,KT-K8,K6-K5"),
    ("KJs+,KQo,KsJh", "KQ,KJs,KsJh"),
    ("A2s+,A9o+", "A2s+,A9o+"),  # shorter than A9+,A8s-A2s
    ("A2s+,A9o+,KQ", "A2s+,A9o+,KQ"),
    ("AKs,AQs,AJs,AKo,AJo", "AK,AJ,AQs"),  # shorter than AJs+,AKo,AJo
    ("AK,AQ,AJ,AT:0.5,A9s", "AJ+,AT:0.5,A9s"),
    ("KcQh,KJ", "KJ,KcQh"),
    ("", ""),
  ]:
    assert format_range(parse_range(text)) == written, text


def test_format_rejects_bad_weights():
  for bad in (np.zeros(1325), np.full(NUM_HANDS, 1.5), np.full(NUM_HANDS, np.nan), -np.ones(NUM_HANDS)):
    with pytest.raises(ValueError, match=r"format_range takes \[1326\] weights in \[0, 1\]"):
      format_range(bad)
  with pytest.raises(ValueError, match="a range is a string"):
    parse_range(["AA"])


def structured_weights(seed: int) -> np.ndarray:
  """[1326] random weights with the shapes the format writes compactly: whole classes at one
  weight (zero, one, or a random float, runs of them), classes with one random weight per combo."""
  rng = np.random.default_rng(seed)
  weights = np.zeros(NUM_HANDS)
  pick = lambda: rng.choice([0.0, 1.0, 0.5, rng.random(), rng.random() ** 8, 2.0**-40])
  level = pick()
  for high in range(13):
    for low in range(high + 1):
      for shape in ("",) if high == low else ("s", "o"):
        if rng.random() < 0.3:
          level = pick()  # else the run goes on at the same weight
        name = RANKS[high] + RANKS[low] + shape
        indices = np.flatnonzero(parse_range(name))
        weights[indices] = level if rng.random() < 0.85 else rng.random(len(indices)) * (rng.random(len(indices)) < 0.7)
  return weights


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(seed=st.integers(0, 2**32 - 1), dense=st.booleans())
def test_round_trip_weights_string_weights_is_exact(seed, dense):
  """string -> weights -> string -> weights: every combo's weight back bit for bit."""
  if dense:  # every combo its own random weight, some zeros and ones
    rng = np.random.default_rng(seed)
    weights = rng.random(NUM_HANDS) * (rng.random(NUM_HANDS) < 0.8)
    weights[rng.random(NUM_HANDS) < 0.1] = 1.0
  else:
    weights = structured_weights(seed)
  text = format_range(weights)
  again = parse_range(text)
  np.testing.assert_array_equal(again, weights)
  assert format_range(again) == text
  np.testing.assert_array_equal(parse_range(format_range(again)), weights)


_ENTRIES = st.one_of(
  st.sampled_from(["AA", "QQ+", "22-55", "AKs", "AKo", "AK", "A8s+", "A5s-A2s", "K9o+", "AhKh", "8h8s+", "T9s+"]),
  st.tuples(st.sampled_from(RANKS), st.sampled_from(RANKS), st.sampled_from(["s", "o", ""])).map(
    lambda t: max(t[:2], key=RANKS.index) + min(t[:2], key=RANKS.index) + (t[2] if t[0] != t[1] else "")
  ),
)


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(
  entries=st.lists(st.tuples(_ENTRIES, st.one_of(st.none(), st.floats(0, 1))), max_size=12),
)
def test_round_trip_from_range_strings(entries):
  text = ", ".join(entry + ("" if weight is None else f":{weight!r}") for entry, weight in entries)
  weights = parse_range(text)
  written = format_range(weights)
  np.testing.assert_array_equal(parse_range(written), weights)
  assert format_range(parse_range(written)) == written
