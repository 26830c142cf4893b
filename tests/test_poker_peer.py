"""benchmarks/poker_peer.py's own pieces, without the peer: our betting lines in the peer's
words (chips by hand on a small river spot; on a Libratus endgame, the counts the peer's tree
dump gives), and the peer's SPOT.json written from a Spot."""

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import poker_peer  # noqa: E402  pylint: disable=wrong-import-position
from jaxcfr.games.bet_trees import BetTree  # noqa: E402
from jaxcfr.games.spots import Spot  # noqa: E402
from jaxcfr.kits.public_tree import tree as pt  # noqa: E402


def test_our_lines_name_every_line_with_its_chips():
  """Pot 100 (50 each), 150 behind: a pot bet puts OOP's total at 150, the all-in at 200."""
  spot = Spot(
    board="AsKd7c2h3s", pot=100, effective_stack=150, oop_range="QQ", ip_range="JJ", bet_tree=BetTree("100%", "a")
  )
  lines = poker_peer.our_lines(pt.build(spot.rules()))
  assert sorted(lines) == sorted(
    [
      "Check/Check",
      "Check/Bet 150/Fold",
      "Check/Bet 150/Call",
      "Check/Bet 150/AllIn 200/Fold",
      "Check/Bet 150/AllIn 200/Call",
      "Bet 150/Fold",
      "Bet 150/Call",
      "Bet 150/AllIn 200/Fold",
      "Bet 150/AllIn 200/Call",
    ]
  )


def test_a_turn_endgame_has_the_peer_tree_dumps_counts():
  """Endgame 2 (a turn): postflop-solver's dump of the same bet tree has 136 lines and 7
  chance nodes (benchmarks/results/poker_peer.json, the peer's tree); our tree deals the river
  also after an all-in is called, where the peer's line ends at a terminal."""
  lines = poker_peer.our_lines(pt.build(Spot.from_endgame(2).rules()))
  assert len(lines) == 136
  assert sum(1 for line in lines if any(other.startswith(line + "/Deal/") for other in lines)) == 7
  assert all(line.count("Deal") <= 1 for line in lines)


def test_the_peer_spot_carries_the_spot():
  spot = Spot.from_endgame(4)
  peer = poker_peer.peer_spot(spot, "libratus_subgame4", max_iterations=100, max_seconds=None)
  assert peer["board"] == spot.board and peer["starting_pot"] == 3750 and peer["effective_stack"] == 20_000 - 1875
  assert peer["bet_sizes"]["river"] == ["50%,100%,a", "100%,a", "50%,100%,a", "100%,a"]
  np.testing.assert_array_equal(peer["ranges"], spot.ranges)
  assert "max_seconds" not in peer and peer["targets_pot_percent"] == [0.5, 0.3, 0.1]
  readme = poker_peer.peer_spot(
    poker_peer.load_spot("postflop_solver_readme_example"), "r", max_iterations=1, max_seconds=9
  )
  assert readme["range_strings"][0].startswith("66+") and readme["donk_sizes"] == {"turn": None, "river": "50%"}
  assert readme["add_allin_threshold"] == 1.5 and readme["max_seconds"] == 9
  capped = Spot(
    board="AsKd7c",
    pot=100,
    effective_stack=150,
    oop_range="QQ",
    ip_range="JJ",
    bet_tree=BetTree("100%", "a", max_raises=2),
  )
  with pytest.raises(ValueError, match="raise cap"):
    poker_peer.peer_spot(capped, "capped", max_iterations=1, max_seconds=None)


def _dump(folder, tree, profile, name="spot"):
  """A strategy dump in the peer-bench harness's format (``dump_strategy``) of ``profile`` on
  ``tree``, each player's hands in a shuffled order (the peer's order is its own)."""
  import json

  import poker_peer_ours

  hands = np.sort(np.asarray(tree.hands), 1)
  deck = hands[:, 0] * (101 - hands[:, 0]) // 2 + hands[:, 1] - 1  # our deck order
  order = [np.random.default_rng(p).permutation(tree.num_hands) for p in (0, 1)]
  lines, rows, nodes, offset = poker_peer_ours.decision_lines(tree), [], [], 0
  for p in (0, 1):
    for k, node in enumerate(tree.decision_nodes(p)):
      actions = int(tree.num_children[node])
      rows.append(np.asarray(profile[p])[k, :actions][:, order[p]].astype("<f4").ravel())
      nodes.append({"line": lines[node], "player": p, "actions": actions, "offset": offset})
      offset += rows[-1].size
  path = folder / f"{name}.strategy"
  np.concatenate(rows).tofile(path)
  index = {"hands": [deck[o].tolist() for o in order], "nodes": nodes, "floats": offset}
  (folder / f"{name}.strategy.json").write_text(json.dumps(index))
  return str(path), index


def test_a_dumped_strategy_loads_into_our_tree_node_by_node_and_hand_by_hand(tmp_path):
  """``peer_profile`` puts each row of a dump back at its node and hands: a random profile on
  river endgame 4, dumped with the hands shuffled, comes back equal; a dump that lacks a node of
  ours or has the wrong size is refused."""
  import poker_peer_ours

  import jaxcfr

  spot_file = tmp_path / "river.json"
  Spot.from_endgame(4).save(spot_file)
  game = jaxcfr.load(f"hunl_subgame(spot={spot_file},hands=in_play)", representation="public_tree")
  rng = np.random.default_rng(0)
  profile = []
  for p in (0, 1):
    legal = np.asarray(game.tensors.legal[p])[:, :, None]
    weights = rng.random(legal.shape[:2] + (game.tree.num_hands,)) * legal
    profile.append((weights / weights.sum(1, keepdims=True)).astype(np.float32))
  path, index = _dump(tmp_path, game.tree, profile)
  loaded = poker_peer_ours.peer_profile(game, path)
  for p in (0, 1):
    np.testing.assert_array_equal(loaded[p], profile[p])
  index["nodes"] = index["nodes"][1:]
  Path(f"{path}.json").write_text(__import__("json").dumps(index))
  with pytest.raises(ValueError, match="is not in the peer's"):
    poker_peer_ours.peer_profile(game, path)
  np.zeros(3, "<f4").tofile(path)
  with pytest.raises(ValueError, match="floats, its index says"):
    poker_peer_ours.peer_profile(game, path)


def test_decision_lines_name_each_node_once_with_its_dealt_card():
  """Turn endgame 2: every decision node has its own line, and below each chance node that
  leads to decisions the dealt cards are the 48 the turn board leaves."""
  import poker_peer_ours

  tree = pt.build(Spot.from_endgame(2).rules())
  lines = poker_peer_ours.decision_lines(tree)
  assert len(set(lines.values())) == len(lines) == len(tree.decision_nodes(0)) + len(tree.decision_nodes(1))
  dealt = {line.split("/Deal ")[1].split("/")[0] for line in lines.values() if "/Deal " in line}
  assert len(dealt) == 48 and not dealt & {str(c) for c in tree.boards[0] if c >= 0}


def test_a_published_solution_is_set_beside_the_peers():
  """Desktop Postflop's benchmark flop has PioSOLVER's solution (postflop-solver's test); the
  peer's equity and EV are read from its OUT.json, ours as a pot share where we ran."""
  peer = {
    "final": {
      "players": {"oop": {"average_equity": 0.55, "average_ev_pot_share": 105.0}},
      "root_actions": ["Check", "Bet 94"],
      "root_action_frequencies_oop": [0.4, 0.6],
    },
    "final_exploitability_pot_percent": 0.1,
  }
  check = poker_peer.published_check("desktop_postflop_3betpotFAST", peer, None)
  assert check["published"]["oop_ev_pot_share"] == 105.11 and check["peer"]["oop_equity"] == 0.55
  assert check["peer_root"] == {"Check": 0.4, "Bet 94": 0.6} and "does not fit" in check["ours"]
  ours = poker_peer.published_check("desktop_postflop_3betpotFAST", peer, {"final_ev_oop": 15.0, "pot": 180})
  assert ours["ours"] == {"oop_ev_pot_share": 105.0}
  assert poker_peer.published_check("libratus_subgame4", peer, None) is None
