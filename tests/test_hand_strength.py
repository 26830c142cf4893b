"""Exact E[HS] (jaxcfr.kits.card_abstraction.hand_strength) against its definition by enumeration, and the
suit-symmetric tables against tables filled with a known suit-invariant function."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxcfr.kits.card_abstraction import hand_eval
from jaxcfr.kits.card_abstraction import hand_strength as hs

RNG = np.random.default_rng(2011)
_rank = jax.jit(hand_eval.hand_rank)


def _brute_river(hand, board) -> float:
  """HS by its definition: every opponent hand of the 45 unseen cards, ranked one by one."""
  rest = [c for c in range(52) if c not in hand and c not in board]
  opponents = np.array(list(itertools.combinations(rest, 2)))
  mine = _rank(jnp.asarray([list(hand) + list(board)]))
  theirs = _rank(
    jnp.concatenate([jnp.asarray(opponents), jnp.broadcast_to(jnp.asarray(board), (len(opponents), 5))], 1)
  )
  return float(((mine > theirs) + 0.5 * (mine == theirs)).mean())


def _hand_apart(cards) -> tuple:
  while True:
    hand = tuple(sorted(int(c) for c in RNG.choice(52, 2, replace=False)))
    if not set(hand) & set(int(c) for c in cards):
      return hand


def test_river_strength_is_the_definition():
  boards = np.stack([RNG.permutation(52)[:5] for _ in range(4)]).astype(np.int32)
  boards[0] = [0, 4, 8, 12, 16]  # deuce to six of clubs: every hand plays the board's straight flush or better
  values = np.asarray(hs.river_strength(jnp.asarray(boards)))
  for b, board in enumerate(boards):
    held = np.isin(hs.HANDS, board).any(1)
    assert np.all(values[b][held] == 0)
    # over all 1,081 hands a board allows, wins and losses pair up: the mean strength is 1/2
    assert values[b][~held].mean() == pytest.approx(0.5, abs=1e-6)
    for _ in range(4):
      hand = _hand_apart(board)
      assert values[b, int(hs.hand_index(jnp.asarray(hand)))] == pytest.approx(_brute_river(hand, board), abs=1e-6)
  assert values[0].max() - values[0][values[0] > 0].min() > 0.5  # the test has teeth: strengths differ


def test_turn_strength_is_the_mean_over_rivers():
  board = RNG.permutation(52)[:4].astype(np.int32)
  values = np.asarray(hs.turn_strength(jnp.asarray(board[None])))[0]
  for _ in range(2):
    hand = _hand_apart(board)
    rivers = [r for r in range(52) if r not in board and r not in hand]
    expected = np.mean([_brute_river(hand, list(board) + [r]) for r in rivers])
    assert values[int(hs.hand_index(jnp.asarray(hand)))] == pytest.approx(expected, abs=1e-6)


def test_canonical_boards_are_the_suit_classes():
  assert hs.canonical_boards(3).shape == (1755, 3)  # the known counts of flops and turns up to suits
  assert hs.canonical_boards(4).shape == (16432, 4)
  turn_map = hs.board_map(4)
  boards = np.stack([RNG.permutation(52)[:4] for _ in range(50)]).astype(np.int32)
  rows = turn_map[hs.board_index(boards)] // 24
  for perm in RNG.permuted(np.tile(np.arange(4), (5, 1)), axis=1):
    moved = (boards // 4) * 4 + perm[boards % 4]
    assert np.array_equal(turn_map[hs.board_index(moved)] // 24, rows)  # one suit class, one row
  canonical = hs.canonical_boards(4)
  assert np.array_equal(turn_map[hs.board_index(canonical)] // 24, np.arange(len(canonical)))


def _invariant(boards: np.ndarray, hands: np.ndarray) -> np.ndarray:
  """[n, 1326] a suit-invariant function of (board, hand) with many distinct values: hand
  cards sharing a rank with the board, sharing a suit with it (weighted by rank), their
  ranks; 0 for hands holding a board card."""
  hr, hsuit = hands // 4, hands % 4  # [1326, 2]
  br, bsuit = boards // 4, boards % 4  # [n, k]
  rank_hits = (hr[None, :, :, None] == br[:, None, None, :]).sum((-1, -2))
  suit_hits = ((hsuit[None, :, :, None] == bsuit[:, None, None, :]) * (1 + br[:, None, None, :])).sum((-1, -2))
  value = 0.01 * rank_hits + 0.001 * suit_hits + 1e-5 * (hr[:, 0] * 13 + hr[:, 1])[None]
  held = (hands[None, :, :, None] == boards[:, None, None, :]).any((-1, -2))
  return np.where(held, 0.0, value).astype(np.float32)


@pytest.fixture(scope="module")
def invariant_tables():
  """StrengthTables whose turn and flop rows hold ``_invariant`` of the canonical boards."""
  turns, flops = hs.canonical_boards(4), hs.canonical_boards(3)
  turn = np.concatenate([_invariant(turns[i : i + 2048], hs.HANDS) for i in range(0, len(turns), 2048)])
  flop = _invariant(flops, hs.HANDS)
  return hs.StrengthTables(
    jnp.asarray(turn),
    jnp.asarray(flop),
    jnp.zeros(1326),
    jnp.asarray(hs.board_map(4)),
    jnp.asarray(hs.board_map(3)),
  )


def test_flop_and_preflop_averages_read_the_tables_through_the_suit_symmetry(invariant_tables):
  t = invariant_tables
  flops = np.stack([RNG.permutation(52)[:3] for _ in range(3)]).astype(np.int32)
  got = np.asarray(hs.flop_strength(t.turn, t.turn_map, jnp.asarray(flops)))
  for f, flop in enumerate(flops):
    turns = np.array([list(flop) + [c] for c in range(52) if c not in flop], np.int32)
    per_turn = _invariant(turns, hs.HANDS)  # [49, 1326]: 0 where the hand holds the turn card
    held = np.isin(hs.HANDS, flop).any(1)
    expected = np.where(held, 0.0, per_turn.sum(0) / 47)
    np.testing.assert_allclose(got[f], expected, atol=1e-6)
  preflop = np.asarray(hs.preflop_strength(t.flop, t.flop_map))
  all_flops = np.array(list(itertools.combinations(range(52), 3)), np.int32)
  for h in RNG.choice(1326, 3, replace=False):
    apart = all_flops[~np.isin(all_flops, hs.HANDS[h]).any(1)]
    assert preflop[h] == pytest.approx(_invariant(apart, hs.HANDS[h : h + 1])[:, 0].mean(), abs=1e-6)


def test_round_strengths_of_deals(invariant_tables):
  t = invariant_tables._replace(preflop=jnp.arange(1326, dtype=jnp.float32))
  deals = np.stack([RNG.permutation(52)[:9] for _ in range(6)]).astype(np.int32)
  holes, board = deals[:, :4].reshape(6, 2, 2), deals[:, 4:]
  got = np.asarray(hs.round_strengths(t, jnp.asarray(holes), jnp.asarray(board)))  # [6, 2, 4]
  rivers = np.asarray(hs.river_strength(jnp.asarray(board)))
  for n in range(6):
    for p in range(2):
      h = int(hs.hand_index(jnp.asarray(holes[n, p])))
      assert got[n, p, 0] == h
      assert got[n, p, 1] == pytest.approx(_invariant(board[n : n + 1, :3], hs.HANDS)[0, h], abs=1e-7)
      assert got[n, p, 2] == pytest.approx(_invariant(board[n : n + 1, :4], hs.HANDS)[0, h], abs=1e-7)
      assert got[n, p, 3] == pytest.approx(rivers[n, h], abs=1e-6)


def test_the_exact_game_reads_its_tables_as_arguments_and_verifies_its_cache(invariant_tables, monkeypatch, tmp_path):
  from jaxcfr.kits.card_abstraction import game as limit_holdem
  from jaxcfr.base import memory

  tables = invariant_tables._replace(preflop=jnp.linspace(0.3, 0.9, 1326, dtype=jnp.float32))
  builds = []
  monkeypatch.setattr(hs, "build_tables", lambda **_: builds.append(1) or tables)
  game = limit_holdem.make(buckets=5, cache=str(tmp_path))
  assert game.name == "limit_holdem(bucketing=width,buckets=5,rollouts=0)" and builds == [1]
  assert len(jax.tree_util.tree_leaves(game)) == len(hs.StrengthTables._fields)  # the tables, and nothing else
  deals = limit_holdem.sample_deals(jax.random.PRNGKey(0), 64)
  text = jax.jit(limit_holdem.deal_buckets).lower(game, deals).as_text()
  signature = text[text.index("@main(") : text.index("->", text.index("@main("))]
  assert "16432x1326xf32" in signature  # the turn table is an argument of the program, not a constant
  got = np.asarray(limit_holdem.deal_buckets(game, deals))
  holes = deals[:, :4].reshape(-1, 2, 2)
  expected = np.clip((np.asarray(hs.round_strengths(tables, holes, deals[:, 4:])) * 5).astype(int), 0, 4)
  np.testing.assert_array_equal(got, expected)
  # the cache: read back without a build; a damaged file is rebuilt
  (cached,) = tmp_path.glob("limit_holdem_strength-*.npz")
  limit_holdem.make.cache_clear()
  limit_holdem.make(buckets=5, cache=str(tmp_path))
  assert builds == [1]
  cached.write_bytes(cached.read_bytes()[:-1000])
  limit_holdem.make.cache_clear()
  limit_holdem.make(buckets=5, cache=str(tmp_path))
  assert builds == [1, 1]
  # too little memory for the tables: one clear error before any work
  limit_holdem.make.cache_clear()
  monkeypatch.setenv(memory.ENV, "64M")
  with pytest.raises(memory.GameTooLargeError, match="exact E\\[HS\\] tables"):
    limit_holdem.make(buckets=5, cache=str(tmp_path))
  limit_holdem.make.cache_clear()


def test_river_counts_are_twice_the_wins_plus_the_ties():
  boards = jnp.asarray(np.stack([RNG.permutation(52)[:5] for _ in range(3)]).astype(np.int32))
  counts = np.asarray(hs.river_counts(boards))
  assert counts.dtype == np.int32 and counts.max() <= 1980
  np.testing.assert_allclose(counts / 1980, np.asarray(hs.river_strength(boards)), atol=1e-7)


def test_the_turn_table_from_river_classes_is_the_mean_over_rivers():
  """turn_table ranks each suit class of river boards once and adds its counts into the turns
  it completes through the suit permutation: on some canonical turns (and a chunk smaller
  than their classes, so that several chunks add into one turn) it is turn_strength."""
  canonical = hs.canonical_boards(4)
  turns = canonical[np.concatenate([[0, 1, len(canonical) - 1], RNG.choice(len(canonical), 9, replace=False)])]
  turn_row, river_class, perm, boards = hs.river_classes(turns)
  assert len(turn_row) == 48 * len(turns) and 128 < len(boards) < len(turn_row)  # a class is ranked once
  assert np.all(np.diff(hs.board_index(boards)) > 0)  # canonical boards, in colex order
  river = np.nonzero(~(turns[:, :, None] == np.arange(52)).any(1))[1]
  for pair in RNG.choice(len(turn_row), 50, replace=False):
    board = np.append(turns[turn_row[pair]], river[pair])
    moved = (board // 4) * 4 + hs._PERMS[perm[pair]][board % 4]  # the pair's permutation of the suits
    assert np.array_equal(np.sort(moved), boards[river_class[pair]])
  chunks = []
  table = hs.turn_table(lambda iterable, **_: chunks.append(len(iterable)) or iterable, chunk=128, turns=turns)
  assert chunks == [-(-len(boards) // 128)]
  expected = np.asarray(hs.turn_strength(jnp.asarray(turns)))
  assert table.dtype == np.float32 and np.array_equal(table == 0, expected == 0)
  np.testing.assert_allclose(table, expected, atol=3e-7)
