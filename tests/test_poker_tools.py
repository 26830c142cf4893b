"""The poker tools (jaxcfr.poker): solutions saved with their spot and read back bit-exact (or
within 16 bits), damaged or foreign files refused; nodes found by their betting line; a node's
report (frequencies summing to one, the root's range EV the game value, the nuts' equity one);
grids; and a report over boards as one batched program equal to the boards solved one by one."""

import dataclasses

import jax
import numpy as np
import pytest

from jaxcfr.games.hunl_subgame import hand_names
from jaxcfr.games.spots import Spot
from jaxcfr.kits.public_tree import values as ops
from jaxcfr.poker import boards, grids, queries, solutions


@pytest.fixture(scope="module")
def solved():
  return solutions.solve(Spot.from_endgame(4), "dcfr", 100, dtype="float64")


def test_a_saved_solution_reads_back_bit_exact_and_compact_within_16_bits(solved, tmp_path):
  solutions.save(tmp_path / "full.npz", solved)
  back = solutions.load(tmp_path / "full.npz", dtype="float64")
  assert back.spot == solved.spot and back.algorithm == "dcfr" and back.iterations == 100
  for a, b in zip(solved.profile, back.profile):
    np.testing.assert_array_equal(np.asarray(a, np.float32), np.asarray(b, np.float32))
  solutions.save(tmp_path / "small.npz", solved, compact=True)
  small = solutions.load(tmp_path / "small.npz")
  assert (tmp_path / "small.npz").stat().st_size < (tmp_path / "full.npz").stat().st_size
  for a, b in zip(solved.profile, small.profile):
    np.testing.assert_allclose(b, a, atol=2 / 65535)


def test_damaged_and_foreign_solution_files_are_refused(solved, tmp_path):
  path = tmp_path / "s.npz"
  solutions.save(path, solved)
  path.write_bytes(path.read_bytes()[:-500])
  with pytest.raises(ValueError, match="solution file"):
    solutions.load(path)
  np.savez(tmp_path / "other.npz", x=np.zeros(3))
  with pytest.raises(ValueError):
    solutions.load(tmp_path / "other.npz")


def test_lines_find_nodes_and_bad_tokens_name_the_actions(solved):
  node = queries.node_at(solved, "check, bet 100%")
  assert queries.line_of(solved, node) == "Check, Bet(3750)"
  assert queries.node_at(solved, "bet 1875") == queries.node_at(solved, "bet 50%")
  assert queries.line_of(solved, queries.node_at(solved, "allin")).startswith("AllIn")
  with pytest.raises(ValueError, match="no raise: nothing to raise; the actions are Check, Bet"):
    queries.node_at(solved, "raise 3x")
  with pytest.raises(ValueError, match="which size"):
    queries.node_at(solved, "bet")
  with pytest.raises(ValueError, match="'jump' is not an action here"):
    queries.node_at(solved, "check, jump")


def test_a_nodes_report_adds_up(solved):
  root = queries.report(solved, 0)
  assert root["player"] == 0 and root["actions"][0] == "Check"
  np.testing.assert_allclose(sum(root["frequencies"]), 1.0, atol=1e-9)
  value = float(jax.jit(ops.expected_value)(solved.game.tensors, solved.profile))
  np.testing.assert_allclose(root["range_ev"], value, rtol=1e-6)  # the range's EV is the game's value here
  held = root["range"] > 0
  assert np.all((root["equity"][held] >= 0) & (root["equity"][held] <= 1))
  royal = hand_names().index("TsAs")  # the nuts on JsKs5cQs7d
  assert root["equity"][royal] == 1.0


def test_grids_as_text_and_figure(solved):
  root = queries.report(solved, 0, with_equity=False)
  panels = grids.strategy_grids(root)
  assert set(panels) == set(root["actions"]) and all(g.shape == (13, 13) for g in panels.values())
  assert "A" in grids.text(root["ev"], root["range"])
  pytest.importorskip("matplotlib")
  grids.figure(root)


def test_a_batch_of_boards_equals_each_board_alone():
  spot = dataclasses.replace(Spot.from_endgame(2))
  cards = ["2c", "Kd", "9s"]
  batched = boards.solve_boards(spot, cards, iterations=20, dtype="float64", with_equity=False)
  assert [r["board"] for r in batched["rows"]] == [spot.board + c for c in cards]
  for card, row, together in zip(cards, batched["rows"], batched["solutions"]):
    alone = solutions.solve(dataclasses.replace(spot, board=spot.board + card), "dcfr", 20, dtype="float64")
    for a, b in zip(alone.profile, together.profile):
      np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(row["exploitability_pot_percent"], alone.exploitability_pot_percent, rtol=1e-9)
  assert "board" in boards.table(batched)
