"""Spots (games/spots.py) and bet trees in the solvers' notation (games/bet_trees.py): the sizes'
notation, lines and chip amounts computed by hand (percentages, 2.5x raises, the geometric
size, donk bets, the all-in thresholds, merging, the raise cap), the spot's checks and its file
(every error one line naming the file and the key), hunl_subgame(spot=PATH), and the Libratus
endgames as spots, whose public trees equal hunl_subgame(endgame=n)'s."""

import json

import numpy as np
import pytest

from jaxcfr.kits import public_tree as pt
from jaxcfr.games import GameError
from jaxcfr.games import hunl_subgame as hs
from jaxcfr.games.bet_trees import BetSize, BetTree, action_label, parse_bet_sizes
from jaxcfr.games.poker_ranges import hand_index
from jaxcfr.games.no_limit_rules import NoLimitRules
from jaxcfr.games.poker_rules import CHANCE, DECISION
from jaxcfr.games.spots import Spot

FLOP = "Td9d6h"


def spot(bets="33%,75%,a", raises="2.5x", board=FLOP, pot=100, stack=400, **tree) -> Spot:
  return Spot(board, pot, stack, "QQ+,AKs", "22+,AK", BetTree(bets=bets, raises=raises, **tree), big_blind=2)


def lines(rules, streets: int = 1) -> dict:
  """{line: the actions there} of every decision on the first ``streets`` streets, in
  postflop-solver's names; a line is its actions joined by "/", "|" after a deal (the first
  card of each deal stands for all: the betting does not depend on the cards)."""
  out = {}

  def walk(state, kind, line, street):
    while kind == CHANCE:
      kind, _, _, _, state = rules.children(state)[0]
      street, line = street + 1, line + "|"
    if kind != DECISION or street >= streets:
      return
    kids = rules.children(state)
    labels = [action_label(rules, state, action) for _, _, action, _, _ in kids]
    out[line] = " ".join(labels)
    for (child_kind, _, _, _, child), label in zip(kids, labels):
      walk(child, child_kind, f"{line}/{label}" if line and not line.endswith("|") else line + label, street)

  root = rules.root()
  walk(root, rules.kind_of(root)[0], "", 0)
  return out


# --- the notation --------------------------------------------------------------------------------


def test_bet_sizes_read_as_postflop_solver_reads_them():
  cases = {
    "0%": BetSize("%", 0.0),
    "75%": BetSize("%", 0.75),
    "112.5%": BetSize("%", 1.125),
    "1.001x": BetSize("x", 1.001),
    "3.5X": BetSize("x", 3.5),
    "0c": BetSize("c", 0),
    "123C": BetSize("c", 123),
    "0c1r": BetSize("c", 0, 1),
    "100C100R": BetSize("c", 100, 100),
    "e": BetSize("e", np.inf, 0),
    "2e": BetSize("e", np.inf, 2),
    "E37.5%": BetSize("e", 0.375, 0),
    "100e.5%": BetSize("e", 0.005, 100),
    "a": BetSize("a"),
    "A": BetSize("a"),
  }
  for text, size in cases.items():
    assert parse_bet_sizes(text, "raises") == (size,), text
  assert parse_bet_sizes(" 50%, 100c , e , a,") == (
    BetSize("%", 0.5),
    BetSize("c", 100),
    BetSize("e", np.inf),
    BetSize("a"),
  )
  assert parse_bet_sizes("") == ()


@pytest.mark.parametrize(
  "token",
  ["0", "1.23", "%", "+42%", "-30%", "nan%", "inf%", "x", "0x", "1x", "c", "12.3c", "10c10", "42cr", "c3r", "0c0r"]
  + ["123c101r", "1c2r3", "12c3.4r", "0e", "2.7e", "101e", "3e7", "E%", "1e2e3", "bet", "1a", "a1", "50%,,a", ","],
)
def test_malformed_bet_sizes_are_one_line_errors_naming_the_size(token):
  with pytest.raises(ValueError, match=r"^raises flop oop: (malformed )?bet size") as error:
    parse_bet_sizes(token, "raises", "raises flop oop")
  assert "\n" not in str(error.value) and (token in str(error.value) or token in (",", "50%,,a"))


def test_raise_only_sizes_are_refused_for_bets_and_donks():
  for role in ("bets", "donks"):
    with pytest.raises(ValueError, match="'2.5x' is a multiple of the previous bet, for raises only"):
      parse_bet_sizes("2.5x", role)
    with pytest.raises(ValueError, match="a raise cap"):
      parse_bet_sizes("20c3r", role)
  with pytest.raises(ValueError, match=r"^bets turn ip: bet size '2.5x'"):
    BetTree(bets={"flop": "33%", "turn": ("33%", "2.5x"), "river": "a"})


def test_bet_tree_takes_sizes_per_street_and_player():
  tree = BetTree(bets={"flop": "33%", "turn": ("50%", "75%"), "river": "a"}, raises="2.5x", donks={"turn": "e"})
  assert tree.bets == (("33%", "33%"), ("50%", "75%"), ("a", "a")) and tree.donks == ("e", None)
  assert tree.sizes("bets", 1, 1) == (BetSize("%", 0.75),) and tree.sizes("bets", 1, 0, donk=True) == (
    BetSize("e", np.inf),
  )
  assert tree.sizes("bets", 2, 0, donk=True) == (BetSize("a"),)  # no river donk sizes: OOP's bets
  assert BetTree(bets=["1%", "2%", "3%"]).bets[2] == ("3%", "3%")
  for bad, message in [
    (dict(bets={"flop": "33%"}), "bets needs the keys flop, turn, river"),
    (dict(bets=["33%", "50%"]), "bets needs one value per street"),
    (dict(bets={"flop": 33, "turn": "", "river": ""}), r"bets\['flop'\] must be a string or an \(OOP, IP\) pair"),
    (dict(donks={"flop": "50%", "river": None}), "donks needs the keys turn, river, got flop, river, turn"),
    (dict(donks={"turn": 5, "river": None}), r"donks\['turn'\] must be a string or None"),
    (dict(merging_threshold=float("nan")), "merging_threshold must be a finite number >= 0"),
    (dict(add_allin_threshold=-1), "add_allin_threshold must be a finite number >= 0"),
    (dict(max_raises=-1), "max_raises must be an int >= 0 or None"),
  ]:
    with pytest.raises(ValueError, match=message):
      BetTree(**bad)


# --- lines and amounts, by hand ------------------------------------------------------------------

# Flop, pot 100, 400 behind, "33%,75%,a" bets and "2.5x" raises for both players: a bet of 33%
# is round(0.33 * 100) = 33, of 75% 75; 2.5x a bet of 33 is round(82.5) = 83 (halves away from
# zero), of 83 round(207.5) = 208, of 75 round(187.5) = 188; 2.5x 208 = 520 and 2.5x 188 = 470
# exceed the 400 behind: the all-in. No other all-in among the raises ("a" is a bet size only).
_FACING = {
  "": "Check Bet(33) Bet(75) AllIn(400)",
  "Bet(33)": "Fold Call Raise(83)",
  "Bet(33)/Raise(83)": "Fold Call Raise(208)",
  "Bet(33)/Raise(83)/Raise(208)": "Fold Call AllIn(400)",
  "Bet(33)/Raise(83)/Raise(208)/AllIn(400)": "Fold Call",
  "Bet(75)": "Fold Call Raise(188)",
  "Bet(75)/Raise(188)": "Fold Call AllIn(400)",
  "Bet(75)/Raise(188)/AllIn(400)": "Fold Call",
  "AllIn(400)": "Fold Call",
}


def test_a_flop_spot_has_the_lines_and_amounts_computed_by_hand():
  rules = spot().rules()
  want = {**_FACING, **{("Check/" + k).rstrip("/"): v for k, v in _FACING.items()}}
  assert lines(rules) == want
  # chips: Bet(33), Raise(83), Call puts 83 in each: 50 + 83 = 133 each, a pot of 266
  state = rules.root()
  for action in (2 + 33, 2 + 83, 1):
    state = next(child for _, _, a, _, child in rules.children(state) if a == action)
  assert state.chips == (133, 133) and rules.kind_of(state) == (CHANCE, -1)
  # the turn after Bet(33), Call: a pot of 166; 33% is round(54.78) = 55, 75% round(124.5) = 125; 400 - 33 behind
  assert lines(rules, 2)["Bet(33)/Call|"] == "Check Bet(55) Bet(125) AllIn(367)"


def test_the_geometric_size_by_hand():
  """ "e" with a pot of 100 and 400 behind on the flop: three bets of f pots, each called, put
  both all-in when (1 + 2 f)^3 = 1 + 2 * 400 / 100 = 9: f = (9^(1/3) - 1) / 2 = 0.54004, a bet
  of 54. The turn: pot 208, 346 behind, two streets: f = (sqrt(1 + 2 * 346 / 208) - 1) / 2 =
  0.54006, a bet of round(112.33) = 112. The river: pot 432, 234 behind, one street: f =
  234 / 432, the bet is the all-in. A raise "e" over the flop bet of 54: pot 208 after calling,
  346 behind, 3 - 1 + 1 = 3 streets: f = ((1 + 2 * 346 / 208)^(1/3) - 1) / 2 = 0.31476 of 208,
  65.47: a raise to 54 + 65 = 119."""
  rules = spot(bets="e", raises="e").rules()
  got = lines(rules, 3)
  assert got[""] == "Check Bet(54)" and got["Bet(54)"] == "Fold Call Raise(119)"
  assert got["Bet(54)/Call|"] == "Check Bet(112)" and got["Bet(54)/Call|Bet(112)/Call|"] == "Check AllIn(234)"
  # on a turn with a pot of 100 and 400 behind, "2e": (sqrt(9) - 1) / 2 = 1 pot; "3e50%": 0.54 capped at half a pot
  assert lines(spot(bets="2e,3e50%", board="Td9d6h2c").rules())[""] == "Check Bet(50) Bet(100)"
  assert 100 * (9 ** (1 / 3) - 1) / 2 == pytest.approx(54.004, abs=1e-3)


def test_donk_bets_take_their_own_sizes():
  """OOP's first turn action after calling IP's flop bet is a donk: "50%" of the 166 pot, 83."""
  got = lines(spot(donks={"turn": "50%", "river": None}).rules(), 2)
  assert got["Check/Bet(33)/Call|"] == "Check Bet(83)"  # OOP called: a donk
  assert got["Bet(33)/Call|"] == "Check Bet(55) Bet(125) AllIn(367)"  # IP called: OOP's bets
  assert got["Check/Check|"] == "Check Bet(33) Bet(75) AllIn(400)"
  assert got["Check/Bet(33)/Call|Check"] == "Check Bet(55) Bet(125) AllIn(367)"  # IP's bets


def test_the_all_in_thresholds_merging_and_the_raise_cap_by_hand():
  river = "Td9d6h2c3s"
  # add all-in at 1.5 pots: 140 behind <= round(1.5 * 100) = 150
  assert lines(spot("50%,75%,100%", board=river, stack=140, add_allin_threshold=1.5).rules())[""] == (
    "Check Bet(50) Bet(75) Bet(100) AllIn(140)"
  )
  # force all-in at 0.15: a pot bet leaves 40 behind against a pot of 300, 40 <= round(45); 75% leaves 65 > round(37.5)
  assert lines(spot("50%,75%,100%", board=river, stack=140, force_allin_threshold=0.15).rules())[""] == (
    "Check Bet(50) Bet(75) AllIn(140)"
  )
  # merging at 0.1 from the largest: 100% kept; 55%: 2 / 1.55 = 1.29 >= 1.1, kept; 50%: 1.55 / 1.5 = 1.03 < 1.1, merged
  assert lines(spot("50%,55%,100%", board=river, stack=1000, merging_threshold=0.1).rules())[""] == (
    "Check Bet(55) Bet(100)"
  )
  # chips sizes and a raise cap in "20c1r": a raise of 20 chips only while at most one bet is made
  capped = lines(spot("10c", "20c1r", board=river, stack=1000).rules())
  assert capped["Bet(10)"] == "Fold Call Raise(30)" and capped["Bet(10)/Raise(30)"] == "Fold Call"
  # a size below the least raise is raised to it: 1.5x a bet of 10 is 15 < 10 + 10
  assert lines(spot("10c", "1.5x", board=river, stack=1000).rules())["Bet(10)"] == "Fold Call Raise(20)"
  # max_raises (this library's): one bet or raise a street
  assert lines(spot(board=river, max_raises=1).rules())["Bet(33)"] == "Fold Call"


def test_a_river_spot_builds_a_public_tree_whose_action_ids_are_the_amounts():
  rules = spot(board="Td9d6h2c3s").rules()
  tree = pt.build(rules)
  kids = np.arange(tree.first_child[0], tree.first_child[0] + tree.num_children[0])
  assert tree.action[kids].tolist() == [1, 2 + 33, 2 + 75, 2 + 400]
  assert tree.contribution[kids].tolist() == [[50, 50], [83, 50], [125, 50], [450, 50]]
  decisions = np.flatnonzero(tree.kind == pt.DECISION)
  assert len(decisions) == 18 and int((tree.kind == pt.FOLD).sum()) == 16  # the flop lines above, on the river
  showdowns = tree.contribution[tree.kind == pt.SHOWDOWN]
  assert np.all(showdowns[:, 0] == showdowns[:, 1]) and sorted(set(showdowns[:, 0].tolist())) == [
    50,
    83,
    125,
    133,
    238,
    258,
    450,
  ]


def test_a_bet_tree_needs_a_postflop_root():
  with pytest.raises(ValueError, match="a bet tree starts on the flop, turn or river, got a board of 0 cards"):
    NoLimitRules(board=(), pot=100, stack=500, bet_tree=BetTree(bets="50%"))


# --- the spot and its file ------------------------------------------------------------------------


@pytest.mark.parametrize(
  "change, message",
  [
    (dict(oop_range="QQ+,AKx"), "oop_range: range entry 'AKx'"),
    (dict(ip_range="22+,AKs:2"), "ip_range: range entry 'AKs:2': weight '2' is outside"),
    (dict(board="TdTd9d"), "board: card 'Td' appears twice"),
    (dict(board="Td9d"), "board: a spot's board has 3, 4 or 5 cards"),
    (dict(board="Td9d6h2c3s4s"), "board: a spot's board has 3, 4 or 5 cards"),
    (dict(board="Td9x6h"), "board: malformed card '9x'"),
    (dict(oop_range=[0.5] * 1325), "oop_range: weights must be 1326 numbers in"),
    (dict(oop_range=[1.5] * 1326), "oop_range: weights must be 1326 numbers in"),
    (dict(ip_range=[float("nan")] * 1326), "ip_range: weights must be 1326 numbers in"),
    (dict(oop_range="JdTd,9d9h"), "oop_range: no weight on a hand that the board Td9d6h leaves possible"),
    (dict(pot=0), "pot must be an integer >= 2"),
    (dict(pot=-100), "pot must be an integer >= 2"),
    (dict(pot=101), "pot must be even"),
    (dict(effective_stack=0), "effective_stack must be an integer >= 1"),
    (dict(big_blind=0), "big_blind must be an integer >= 1"),
    (dict(bet_tree="33%"), "bet_tree must be a BetTree"),
  ],
)
def test_a_spot_checks_its_fields_in_one_line(change, message):
  fields = dict(board=FLOP, pot=100, effective_stack=400, oop_range="QQ+", ip_range="22+", bet_tree=BetTree())
  with pytest.raises(ValueError, match="^" + message) as error:
    Spot(**{**fields, **change})
  assert "\n" not in str(error.value)


def test_nan_and_negative_bet_sizes_are_refused_before_any_spot():
  for size in ("nan%", "-30%", "-2e"):
    with pytest.raises(ValueError, match=f"^bets flop oop: bet size '{size}'"):
      BetTree(bets=size)


def test_a_board_card_in_a_range_weighs_zero():
  """A combo holding a board card given weight is zeroed, silently (postflop-solver's rule)."""
  found = Spot(FLOP, 100, 400, "QQ+,JdTd,AhKh", "22+", BetTree())
  assert found.ranges[0, hand_index(34, 38)] == 0 and found.ranges[0, hand_index(45, 49)] == 1
  assert found.ranges[1, hs.hand_names().index("TsTd")] == 0 and found.ranges[1, hs.hand_names().index("TsTh")] == 1
  assert found.oop_range == "QQ+,JdTd,AhKh"  # as written


def test_spot_files_round_trip(tmp_path):
  rng = np.random.default_rng(3)
  weights = tuple((rng.random(1326) * (rng.random(1326) < 0.5)).tolist())
  tree = BetTree(
    bets={"flop": ("33%,75%", "50%"), "turn": "e,a", "river": "2e150%"},
    raises="2.5x,20c3r",
    donks={"turn": None, "river": "50%"},
    add_allin_threshold=1.5,
    force_allin_threshold=0.15,
    merging_threshold=0.1,
    max_raises=3,
  )
  original = Spot(FLOP, 200, 900, "66+,A8s+,A5s-A4s:0.5", weights, tree, big_blind=10)
  path = tmp_path / "spot.json"
  original.save(path)
  data = json.loads(path.read_text())
  assert data["format"] == "jaxcfr-spot" and data["version"] == 1 and data["bet_tree"]["flop"]["ip"]["bets"] == "50%"
  loaded = Spot.load(path)
  assert loaded == original and loaded.ip_range == weights and Spot.from_dict(original.to_dict()) == original
  np.testing.assert_array_equal(loaded.ranges, original.ranges)
  assert lines(loaded.rules(), 2) == lines(original.rules(), 2)


def _file_error(tmp_path, edit, message):
  data = spot().to_dict()
  edit(data)
  path = tmp_path / "bad.json"
  path.write_text(json.dumps(data) if not isinstance(data, str) else data)
  with pytest.raises(ValueError, match=f"^{path}: {message}") as error:
    Spot.load(path)
  assert "\n" not in str(error.value)


@pytest.mark.parametrize(
  "edit, message",
  [
    (lambda d: d.update(stakes=2), "unknown key 'stakes'"),
    (lambda d: d["bet_tree"].update(rake=0.05), "unknown key 'bet_tree.rake'"),
    (lambda d: d["bet_tree"]["flop"]["oop"].update(bet="33%"), "unknown key 'bet_tree.flop.oop.bet'"),
    (lambda d: d.pop("pot"), "missing key 'pot'"),
    (lambda d: d["bet_tree"].pop("river_donks"), "missing key 'bet_tree.river_donks'"),
    (lambda d: d["bet_tree"]["turn"].pop("ip"), "missing key 'bet_tree.turn.ip'"),
    (lambda d: d.update(pot="100"), "key 'pot' must be an integer, got str"),
    (lambda d: d.update(pot=100.0), "key 'pot' must be an integer, got float"),
    (lambda d: d.update(effective_stack=True), "key 'effective_stack' must be an integer, got bool"),
    (lambda d: d.update(oop_range=["1"] * 1326), "key 'oop_range' must be a range string or a list"),
    (lambda d: d["bet_tree"]["river"]["ip"].update(raises=2.5), "key 'bet_tree.river.ip.raises' must be a string"),
    (lambda d: d["bet_tree"].update(max_raises="3"), "key 'bet_tree.max_raises' must be an integer or null"),
    (lambda d: d["bet_tree"].update(merging_threshold=None), "key 'bet_tree.merging_threshold' must be a number"),
    (lambda d: d["bet_tree"].update(flop="33%"), "key 'bet_tree.flop' must be an object, got str"),
    (lambda d: d.update(format="pio"), "key 'format' must be 'jaxcfr-spot'"),
    (lambda d: d.update(version=2), "key 'version' is 2; this reader knows version 1"),
    (lambda d: d.update(oop_range="QQ+,AKx"), "oop_range: range entry 'AKx'"),
    (lambda d: d.update(board="TdTd9d"), "board: card 'Td' appears twice"),
    (lambda d: d.update(pot=0), "pot must be an integer >= 2"),
    (lambda d: d["bet_tree"]["flop"]["oop"].update(bets="-30%"), "bet_tree: bets flop oop: bet size '-30%'"),
    (lambda d: d["bet_tree"].update(add_allin_threshold=float("nan")), "bet_tree: add_allin_threshold must be"),
  ],
)
def test_spot_file_errors_name_the_file_and_the_key(tmp_path, edit, message):
  _file_error(tmp_path, edit, message.replace("(", r"\(").replace("[", r"\["))


def test_unreadable_spot_files(tmp_path):
  with pytest.raises(ValueError, match=f"^{tmp_path / 'none.json'}: cannot read the spot file"):
    Spot.load(tmp_path / "none.json")
  (tmp_path / "bad.json").write_text("{'board': 1}")
  with pytest.raises(ValueError, match=f"^{tmp_path / 'bad.json'}: not JSON"):
    Spot.load(tmp_path / "bad.json")
  (tmp_path / "list.json").write_text("[]")
  with pytest.raises(ValueError, match=f"^{tmp_path / 'list.json'}: a spot file holds a JSON object, got list"):
    Spot.load(tmp_path / "list.json")


def test_hunl_subgame_loads_a_spot_file(tmp_path):
  path = tmp_path / "river.json"
  spot(board="Td9d6h2c3s").save(path)
  game = hs.hunl_subgame(spot=str(path))
  assert (game.pot, game.stack, game.big_blind, game.round, game.spot.board) == (100, 450, 2, 4, "Td9d6h2c3s")
  got, want = pt.public_tree_of(game), pt.build(spot(board="Td9d6h2c3s").rules())
  assert np.array_equal(got.contribution, want.contribution) and np.array_equal(got.initial_range, want.initial_range)
  with pytest.raises(GameError, match="parameter spot=PATH gives the whole subgame; drop stack"):
    hs.hunl_subgame(spot=str(path), stack=500)
  with pytest.raises(GameError, match="cannot read the spot file"):
    hs.hunl_subgame(spot=str(tmp_path / "none.json"))
  assert hs.hunl_subgame(endgame=4).spot is None  # the Libratus endgames as before


# --- the Libratus endgames as spots ---------------------------------------------------------------


def _amounts(tree) -> np.ndarray:
  """[N] the chips put in by the action into each node after a decision (0 elsewhere)."""
  parent = np.maximum(tree.parent, 0)
  after = (tree.parent >= 0) & (tree.kind[parent] == pt.DECISION)
  mover = tree.player[parent].clip(0)
  rows = np.arange(tree.num_nodes)
  return np.where(after, tree.contribution[rows, mover] - tree.contribution[parent, mover], 0)


@pytest.mark.parametrize("number", [1, 2, 3, 4])
def test_an_endgame_as_a_spot_has_the_endgames_public_tree(number):
  found = Spot.from_endgame(number)
  ours, theirs = pt.build(found.rules()), pt.build(hs.hunl_subgame(endgame=number).public_tree_rules())
  assert ours.num_nodes == theirs.num_nodes
  for field in ("kind", "player", "parent", "num_children", "contribution", "round", "board", "chance_prob"):
    np.testing.assert_array_equal(getattr(ours, field), getattr(theirs, field), err_msg=field)
  np.testing.assert_array_equal(_amounts(ours), _amounts(theirs))
  np.testing.assert_array_equal(ours.initial_range, theirs.initial_range)
  assert found.bet_tree.bets[0] == ("50%,100%,a", "50%,100%,a") and found.effective_stack + found.pot // 2 == 20_000
