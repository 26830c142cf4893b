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
  batched = boards.solve_boards(spot, cards, algorithm="dcfr", iterations=20, dtype="float64", with_equity=False)
  assert [r["board"] for r in batched["rows"]] == [spot.board + c for c in cards]
  for card, row, together in zip(cards, batched["rows"], batched["solutions"]):
    board = dataclasses.replace(spot, board=spot.board + card)
    every_hand = solutions.game_of(board, "float64", hands_in_play=False)  # as the batch's trees
    alone = solutions.solve(board, "dcfr", 20, dtype="float64", game=every_hand)
    for a, b in zip(alone.profile, together.profile):
      np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(row["exploitability_pot_percent"], alone.exploitability_pot_percent, rtol=1e-9)
  assert "board" in boards.table(batched)


def test_the_command_line_solves_a_spot_to_a_target_shows_and_exports_it(tmp_path, capsys):
  """``jaxcfr spot`` by flags stops at its target (the file's exploitability is the one it
  printed); ``show`` and ``export`` report the node a line names, and the exported hands equal
  the library's report; bad input is one line before any work."""
  import csv
  import json

  from jaxcfr.run import cli

  out = tmp_path / "river.npz"
  argv = ["spot", "--board", "Td9d6hQc2s", "--pot", "200", "--stack", "900", "--oop", "QQ+,AK", "--ip", "TT+,AQ+"]
  assert cli.main(argv + ["--target", "1.0", "--check-every", "10", "--out", str(out)]) == 0
  printed = capsys.readouterr().out
  assert "(target reached)" in printed
  solved = solutions.load(out)
  assert solved.exploitability_pot_percent <= 1.0 and solved.iterations % 10 == 0
  assert f"{solved.exploitability_pot_percent:.3f}% of the pot (target reached)" in printed
  assert cli.main(["show", str(out), "--line", "check"]) == 0
  shown = capsys.readouterr().out
  report = queries.report(solved, queries.node_at(solved, "check"))
  for name, frequency in zip(report["actions"], report["frequencies"]):
    assert f"{name:<14} {100 * frequency:6.2f}%" in shown
  assert cli.main(["export", str(out), "--line", "check", "--out", str(tmp_path / "check.csv")]) == 0
  rows = list(csv.DictReader(open(tmp_path / "check.csv", encoding="utf-8")))
  names = hand_names()
  assert len(rows) == int((report["range"] > 0).sum())
  for row in rows[:5]:
    h = names.index(row["hand"])
    assert float(row[report["actions"][0]]) == pytest.approx(report["strategy"][h, 0], abs=1e-6)
    assert float(row["ev"]) == pytest.approx(report["ev"][h], rel=1e-5)
  assert cli.main(["export", str(out), "--out", str(tmp_path / "root.json"), "--no-equity"]) == 0
  root = json.loads((tmp_path / "root.json").read_text())
  assert root["player"] == 0 and abs(sum(root["frequencies"]) - 1) < 1e-5 and "equity" not in root["hands"][0]
  capsys.readouterr()
  for bad, words in (
    (["spot", "--board", "Td9d", "--pot", "200", "--out", str(tmp_path / "x.npz")], "missing --stack, --oop, --ip"),
    (argv[:-2] + ["--ip", "TT+,ZZ", "--out", str(tmp_path / "x.npz")], "ZZ"),
    (["show", str(out), "--line", "bet 33%, fold, call"], "the line has ended"),
    (["export", str(out), "--out", str(tmp_path / "x.txt")], "name a .csv or a .json file"),
    (["show", str(tmp_path / "missing.npz")], "missing.npz"),
  ):
    assert cli.main(bad) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err, (bad, err)


def test_the_command_line_locks_nodes_and_reports_boards(tmp_path, capsys):
  """``spot --lock`` holds the locked player to the lock (the whole range at the root, some
  hands deeper); ``boards`` writes one row a card with frequencies summing to one; malformed
  locks are one line."""
  import csv

  from jaxcfr.poker import locks
  from jaxcfr.run import cli

  spot_flags = ["--board", "Td9d6hQc2s", "--pot", "200", "--stack", "900", "--oop", "QQ+,AK", "--ip", "TT+,AQ+"]
  out = tmp_path / "locked.npz"
  lock = "root -> bet 100%: 0.25, check: 0.75; check, bet 100% -> fold @ AK"
  assert cli.main(["spot", *spot_flags, "--lock", lock, "--iters", "20", "--check-every", "20", "--out", str(out)]) == 0
  solved = solutions.load(out)
  oop = solved.spot.ranges[0][solved.game.tree.deck_rows] > 0  # the tree's hands: those in play
  root = solved.profile[0][0]  # [A, H]
  names = queries.actions(solved, 0)
  assert np.allclose(root[names.index("Check")][oop], 0.75, atol=1e-5)
  assert np.allclose(root[names.index("Bet(200)")][oop], 0.25, atol=1e-5)
  facing = queries.node_at(solved, "check, bet 100%")
  row = int(np.flatnonzero(solved.game.tree.decision_nodes(0) == facing)[0])
  ak = np.array([name[0] == "A" and name[2] == "K" or name[0] == "K" and name[2] == "A" for name in hand_names()])
  ak = ak[solved.game.tree.deck_rows] & oop
  assert np.allclose(solved.profile[0][row][0][ak], 1.0, atol=1e-5)  # fold, the first action
  game = solutions.game_of(solved.spot)
  for bad, words in (
    ("root bet", "LINE -> MIX"),
    ("root -> bet 100%: 0.5", "sum to 0.5"),
    ("root -> check; check -> check", "one player's strategy"),
    ("root -> raise 3x", "no raise"),
  ):
    with pytest.raises(ValueError, match=words):
      locks.parse(game, bad)
  capsys.readouterr()
  csv_out = tmp_path / "turns.csv"
  turn = ["--board", "Td9d6hQc", *spot_flags[2:]]
  assert cli.main(["boards", *turn, "--cards", "2c,Ah", "--iters", "10", "--out", str(csv_out), "--no-equity"]) == 0
  rows = list(csv.DictReader(open(csv_out, encoding="utf-8")))
  assert [r["board"] for r in rows] == ["Td9d6hQc2c", "Td9d6hQcAh"]
  for r in rows:
    assert abs(sum(float(v) for k, v in r.items() if k[0].isupper()) - 1) < 1e-5
