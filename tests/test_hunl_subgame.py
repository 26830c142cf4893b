"""Heads-up no-limit hold'em subgames on the public tree: the endgame files and their parser,
the game's parameters, the no-limit betting against OpenSpiel's universal_poker, the terminal
evaluators on real 1,326-hand river boards against the O(H^2) definition (phevaluator's
ranking), and a small-deck hold'em subgame against OpenSpiel's universal_poker as a sequence
form: values, best responses and CFR+ step by step."""

import dataclasses
import functools
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcfr
from jaxcfr.games import poker_rules
from jaxcfr.kits.public_tree import values as ops
from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.kits import public_tree as pt
from jaxcfr.base.game_strings import parse_game_string
from jaxcfr.games import GAMES, GameError
from jaxcfr.games import hunl_subgame as hs
from jaxcfr.games.no_limit_rules import NoLimitRules
from jaxcfr.games.poker_rules import ALL_IN, CALL_ID, FOLD_ID
from jaxcfr.solvers import cfr

# Libratus endgames' README table: round, board, pot.
ENDGAMES = {1: (3, "7s9h9cTc", 500), 2: (3, "Ts6hAh7c", 4780), 3: (4, "4s8hTc9h2s", 500), 4: (4, "JsKs5cQs7d", 3750)}


@pytest.fixture(autouse=True, scope="module")
def float64():
  jax.config.update("jax_enable_x64", True)


@functools.cache
def endgame_tree(number: int):
  tree = pt.public_tree_of(hs.hunl_subgame(endgame=number))
  return tree, pt.to_device(tree, jnp.float64)


def endgame_text(number: int) -> str:
  return (hs.ENDGAMES / f"subgame{number}.txt").read_text()


# --- the endgame files ----------------------------------------------------------------------------


@pytest.mark.parametrize("number", sorted(ENDGAMES))
def test_the_libratus_endgames_read_as_their_readme_says(number):
  found = hs.libratus_endgame(number)
  round_, board, pot = ENDGAMES[number]
  assert (found.round, hs.format_cards(found.board), found.pot) == (round_, board, pot)
  assert found.reach.shape == (2, 1326) and np.all(found.reach >= 0) and np.all(found.reach.sum(1) > 0)
  blocked = np.isin(hs.deck_hands(52, 2), found.board).any(1)
  assert not found.reach[:, blocked].any()


def test_hand_order_is_the_files():
  names = hs.hand_names()
  assert names[:5] == ["2s2h", "2s2d", "2s2c", "2s3s", "2s3h"] and names[-1] == "AdAc" and len(names) == 1326
  assert hs.parse_cards("7s9h9cTc") == (20, 29, 31, 35) and hs.format_cards((20, 29, 31, 35)) == "7s9h9cTc"


def _mutate(text: str, field: str, value: str) -> str:
  """``text`` with the value of ``field`` replaced (``value`` None: the field removed)."""
  lines = text.split("\n")
  index = next(i for i, line in enumerate(lines) if line.startswith(field + " ") or line == field)
  lines[index] = f"{field} {value}" if value is not None else ""
  return "\n".join(lines)


def _reach_with(text: str, index: int, value: str) -> str:
  numbers = text.split("-reach", 1)[1].split()
  numbers[index] = value
  return text.split("-reach", 1)[0] + "-reach " + " ".join(numbers) + "\n"


@pytest.mark.parametrize(
  "change, message",
  [
    (lambda t: _mutate(t, "-pot", None), "missing field -pot"),
    (lambda t: _mutate(t, "-board", None), "missing field -board"),
    (lambda t: t.split("-reach")[0], "missing field -reach"),
    (lambda t: t.rstrip() + " 0.5\n", "-reach has 2653 numbers, expected 2652"),
    (lambda t: t.rstrip().rsplit(" ", 1)[0] + "\n", "-reach has 2651 numbers, expected 2652"),
    (lambda t: _reach_with(t, 0, "-0.25"), "negative or non-finite reach -0.25 of player 0 at hand 2s2h"),
    (lambda t: _reach_with(t, 1327, "nan"), "negative or non-finite reach nan of player 1 at hand 2s2d"),
    (lambda t: _reach_with(t, 1, "inf"), "negative or non-finite reach inf of player 0 at hand 2s2d"),
    (lambda t: _reach_with(t, 0, "one"), "-reach holds 'one', not a number"),
    (lambda t: _mutate(t, "-board", "Js Ks 5c Qs 7x"), "-board: malformed card '7x'"),
    (lambda t: _mutate(t, "-board", "JsKs5cQsJs"), "-board: card 'Js' appears twice"),
    (lambda t: _mutate(t, "-board", "JsKs5cQs"), "round 4 needs a board of 5 cards, got 4"),
    (lambda t: _mutate(t, "-pot", "3751"), "-pot must be a positive even number of chips"),
    (lambda t: _mutate(t, "-round", "5"), "-round must be 2 \\(flop\\), 3 \\(turn\\) or 4 \\(river\\)"),
    (lambda t: _mutate(t, "-round", "four"), "-round must be an integer"),
    (lambda t: t + "-pot 10\n", "field -pot is given twice"),
    (lambda t: t + "-stack 10\n", "unknown field '-stack'"),
    (lambda t: "500\n" + t, "'500' comes before any field"),
    # the board holds Js: hand 2sJs may not have positive reach
    (
      lambda t: _reach_with(t, hs.hand_names().index("2sJs"), "0.5"),
      "hand 2sJs holds a board card but player 0's reach is 0.5",
    ),
  ],
)
def test_the_parser_names_the_file_and_the_problem_in_one_line(tmp_path, change, message):
  path = tmp_path / "mine.txt"
  path.write_text(change(endgame_text(4)))
  with pytest.raises(ValueError, match=f"^{re.escape(str(path))}: {message}") as caught:
    hs.read_endgame(path)
  assert "\n" not in str(caught.value)


def test_a_users_file_is_a_game(tmp_path):
  path = tmp_path / "river.txt"
  path.write_text(endgame_text(3).replace("-pot 500", "-pot 800"))
  found = hs.read_endgame(path)
  assert found.pot == 800 and np.array_equal(found.reach, hs.libratus_endgame(3).reach)
  name, params = parse_game_string(f"hunl_subgame(ranges={path},first_bets=0.5;1;allin,raises=1x2xallin,max_raises=3)")
  game = hs.hunl_subgame(**params)
  assert name == "hunl_subgame" and game.pot == 800 and game.round == 4 and game.source == str(path)
  assert game.first_bets == (0.5, 1.0, ALL_IN) and game.raises == (1.0, 2.0, ALL_IN) and game.max_raises == 3
  assert game.info.is_poker and game.info.payoff_unit == "chips" and (game.info.big_blind, game.info.pot) == (100, 800)
  with pytest.raises(ValueError, match="cannot read the endgame file"):
    hs.read_endgame(tmp_path / "absent.txt")


@pytest.mark.parametrize(
  "params, message",
  [
    (dict(endgame=1, board="7s9h9cTc", pot=500), "give one of endgame=1..4"),
    (dict(), "give one of endgame=1..4"),
    (dict(board="7s9h9cTc"), "board=CARDS needs pot=CHIPS"),
    (dict(endgame=1, pot=500), "parameter pot goes with board=CARDS"),
    (dict(endgame=5), "parameter endgame must be in \\[1, 4\\]"),
    (dict(board="7s9h", pot=500), "parameter board needs 3, 4 or 5 cards"),
    (dict(board="7s9h9cTx", pot=500), "malformed card 'Tx'"),
    (dict(board="7s9h9cTc", pot=501), "parameter pot must be even"),
    (dict(endgame=1, stack=100), "parameter pot must be even and at most twice the stack"),
    (dict(endgame=1, first_bets="0.5;big"), "parameter first_bets must be pot fractions or allin"),
    (dict(endgame=1, raises="-1"), "parameter raises needs positive pot fractions"),
    (dict(endgame=1, raises=""), "parameter raises names no bet size"),
    (dict(endgame=1, max_raises=-1), "parameter max_raises must be >= 0"),
  ],
)
def test_the_game_parameters_are_checked(params, message):
  with pytest.raises(GameError, match=message):
    hs.hunl_subgame(**params)


# --- the public trees of the endgames ---------------------------------------------------------------


def test_a_river_endgame_bets_and_raises_as_declared():
  """Endgame 3 (pot 500, stacks 20,000): first bets of 1/2 pot, a pot and all-in; raises of
  a pot (of the pot after calling) and all-in; ids fold 0, call 1, 1/2 pot 2, pot 3, all-in 4."""
  tree, _ = endgame_tree(3)
  kids = lambda node: range(tree.first_child[node], tree.first_child[node] + tree.num_children[node])
  assert tree.kind[0] == pt.DECISION and tree.player[0] == 0 and tree.action_ids[0].tolist() == [1, 2, 3, 4]
  assert [tree.contribution[c].tolist() for c in kids(0)] == [[250, 250], [500, 250], [750, 250], [20000, 250]]
  half = tree.first_child[0] + 1  # player 1 facing a half-pot bet: fold, call, pot (to 500 + 1000), all-in
  assert tree.action_ids[half].tolist() == [FOLD_ID, CALL_ID, 3, 4]
  assert [tree.contribution[c].tolist() for c in kids(half)] == [[500, 250], [500, 500], [500, 1500], [500, 20000]]
  call = tree.first_child[half] + 1
  assert tree.kind[call] == pt.SHOWDOWN and tree.kind[tree.first_child[half]] == pt.FOLD
  assert np.all(tree.contribution <= 20000) and np.all(tree.kind[tree.contribution.min(1) == 20000] == pt.SHOWDOWN)
  found = hs.libratus_endgame(3)
  np.testing.assert_allclose(
    tree.initial_range / tree.initial_range.sum(1, keepdims=True), found.reach / found.reach.sum(1, keepdims=True)
  )
  np.testing.assert_allclose(poker_rules.disjoint_pairs(tree.hands, *tree.initial_range), 1.0)


def test_a_turn_endgame_deals_the_river_with_card_removal():
  tree, _ = endgame_tree(2)
  chance = np.flatnonzero(tree.kind == pt.CHANCE)
  assert len(chance) and np.all(tree.num_children[chance] == 48)
  dealt = np.isin(tree.parent, chance)
  np.testing.assert_allclose(tree.chance_prob[dealt], 1 / 44)  # given both hands: 52 - 4 - 4 cards
  assert tree.valid[tree.board[0]].sum() == 1128 and np.all(tree.valid[tree.board[dealt]].sum(1) == 1081)
  assert set(tree.round[tree.kind == pt.SHOWDOWN].tolist()) == {3}
  all_in = chance[np.asarray(tree.contribution[chance].min(1) == 20000)]  # an all-in called on the turn
  assert len(all_in) and np.all(tree.kind[tree.first_child[all_in]] == pt.SHOWDOWN)


def test_showdown_strengths_rank_each_boards_valid_hands_in_chunks(monkeypatch):
  """The strengths of all river boards from one hand_eval call per chunk equal each board's own
  ranking: hand_rank of its valid hands alone, as dense ranks (small chunks, so that several
  chunks and a padded last one are used)."""
  from jaxcfr.kits.card_abstraction import hand_eval  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits.public_tree import tree as tree_module  # pylint: disable=import-outside-toplevel

  tree, _ = endgame_tree(2)
  boards, valid = tree.boards[tree.showdown_boards[:5]], tree.valid[tree.showdown_boards[:5]]
  monkeypatch.setattr(tree_module, "_RANK_CHUNK", 1000)
  got = tree_module.strengths(tree.rules, tree.hands, boards, valid)
  for b, row in enumerate(boards):
    which = np.flatnonzero(valid[b])
    cards = np.concatenate([tree.hands[which], np.broadcast_to(row[row >= 0], (len(which), 5))], 1)
    ranks = np.asarray(hand_eval.hand_rank((cards // 4) * 4 + cards % 4))
    np.testing.assert_array_equal(got[b, which], np.unique(ranks, return_inverse=True)[1].ravel())
    assert np.all(got[b, ~valid[b]] == -1) and got[b, which].max() > 20
  np.testing.assert_array_equal(got, tree.strength[:5])


def test_no_limit_rules_drop_small_raises_cap_raises_and_merge_sizes():
  """ACPC's least raise (the big blind, then the last raise's increment), the raise cap, a
  size above the stack as the all-in, two sizes to one amount as one action."""
  root = lambda **kw: NoLimitRules(ranks=5, suits=2, board=(0, 1, 2, 3, 4), pot=100, **kw)
  rules = root(stack=1000, big_blind=100, first_bets=(0.5, 1.0, ALL_IN), raises=(0.25, 1.0, ALL_IN))
  children = lambda r, s: {a: child.chips for _, _, a, _, child in r.children(s)}
  assert children(rules, rules.root()) == {CALL_ID: (50, 50), 4: (150, 50), 5: (1000, 50)}  # 1/2 pot: 50 < 100
  facing = rules.children(rules.root())[1][4]  # bet to 150: a raise must reach 250; 1/4 pot reaches 225
  assert children(rules, facing) == {FOLD_ID: (150, 50), CALL_ID: (150, 150), 4: (150, 450), 5: (150, 1000)}
  capped = root(stack=1000, big_blind=10, max_raises=1)
  bet = capped.children(capped.root())[1][4]
  assert set(children(capped, bet)) == {FOLD_ID, CALL_ID}
  short = root(stack=150, big_blind=10, first_bets=(0.5, 1.0, 2.0))  # a pot: the stack; 2 pots: the all-in, merged
  assert children(short, short.root()) == {CALL_ID: (50, 50), 2: (100, 50), 3: (150, 50)}
  with pytest.raises(ValueError, match="starts no round"):
    NoLimitRules(ranks=5, suits=2, board=(0, 1), pot=100)
  with pytest.raises(ValueError, match="pot must be even and at most twice the stack"):
    NoLimitRules(ranks=5, suits=2, board=(0, 1, 2), pot=100, stack=40)


def test_every_declared_public_tree_builds_through_public_tree_of():
  for name, rules in (("kuhn_poker", pt.kuhn_rules()), ("leduc_poker", pt.leduc_rules())):
    got, want = pt.public_tree_of(GAMES[name]()), pt.build(rules)
    assert np.array_equal(got.kind, want.kind) and np.array_equal(got.contribution, want.contribution)
  with pytest.raises(ValueError, match="declares no public tree"):
    pt.public_tree_of(GAMES["goofspiel"]())


# --- terminal values on 1,326-hand river boards -----------------------------------------------------


def quadratic_values(tree, player, nodes, reach, showdown, chips):
  """[T, H, *B] by the definition: a sum over every pair of hands that share no card, with
  phevaluator's seven-card ranking (lower is better)."""
  phevaluator = pytest.importorskip("phevaluator")
  hands = tree.hands
  disjoint = ~(hands[:, None, :, None] == hands[None, :, None, :]).any((2, 3))
  out = np.zeros_like(reach)
  for t, node in enumerate(nodes):
    valid = tree.valid[tree.board[node]]
    possible = disjoint & valid[:, None] & valid[None, :]
    mine, other = chips[t, player], chips[t, 1 - player]
    if showdown:
      board = tree.board_cards(node)
      rank = np.array([-phevaluator.evaluate_cards(*h, *board) if v else 0 for h, v in zip(hands.tolist(), valid)])
      payoff = np.where(
        rank[:, None] > rank[None, :], other, np.where(rank[:, None] < rank[None, :], -mine, (other - mine) / 2)
      )
    else:
      payoff = np.full(possible.shape, -mine if tree.player[node] == player else other, np.float64)
    out[t] = np.einsum("hg,g...->h...", possible * payoff, reach[t])
  return out


@pytest.mark.parametrize("board", ["JsKs5cQs7d", "Ts9s8s7s6s"], ids=["endgame4_board", "board_plays"])
def test_terminal_values_on_river_boards_match_the_quadratic_definition(board):
  """Random ranges (a fifth of the hands at zero) on every fold and a subset of showdowns of
  a river subgame, 1,326 hands; some showdowns with unequal chips (a split pot's term). The
  second board is a straight flush that every hand plays (ties everywhere)."""
  rules = NoLimitRules(board=hs.parse_cards(board), pot=500, stack=2000, first_bets=(1.0, ALL_IN), raises=(ALL_IN,))
  tree = pt.build(rules)
  device = pt.to_device(tree, jnp.float64)
  rng = np.random.default_rng(5)
  for showdown, kind in ((False, pt.FOLD), (True, pt.SHOWDOWN)):
    rows = np.arange(int((tree.kind == kind).sum()))[:4]
    nodes = np.flatnonzero(tree.kind == kind)[rows]
    reach = rng.random((len(nodes), tree.num_hands, 2)) * (rng.random((len(nodes), tree.num_hands, 1)) > 0.2)
    reach *= tree.valid[tree.board[nodes]][:, :, None]
    chips = tree.contribution[nodes].astype(np.float64)
    if showdown:
      chips[::2, 0] += 300.0
      full = np.asarray(device.showdown_chips).copy()
      full[rows] = chips
      device = dataclasses.replace(device, showdown_chips=jnp.asarray(full))
    pick = lambda values: np.asarray(values)
    for player in (0, 1):
      want = quadratic_values(tree, player, nodes, reach, showdown, chips)
      for dense in (False, True):
        if showdown:
          every = np.zeros((len(device.showdown_nodes), tree.num_hands, 2))
          every[rows] = reach
          got = pick(ops.showdown_values(device, player, jnp.asarray(every), dense=dense))[rows]
        else:
          every = np.zeros((len(device.fold_nodes), tree.num_hands, 2))
          every[rows] = reach
          got = pick(ops.fold_values(device, player, jnp.asarray(every), dense=dense))[rows]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9, err_msg=f"player {player} dense={dense}")


# --- a small-deck hold'em subgame against OpenSpiel ---------------------------------------------------

# fcpa: fold, call, pot and all-in, every round; OpenSpiel's cards are rank * suits + suit, suits c d h s.
SMALL = {
  "turn": (5, 2, "2c3d4c5d", 2000),  # a chance node deals the river: 2 cards open to any two hands
  "river": (5, 3, "2c3d4h5c6d", 2000),
}


def _openspiel_string(ranks, suits, board, stack):
  return (
    "openspiel:universal_poker(betting=nolimit,numPlayers=2,numRounds=4,numBoardCards=0 3 1 1,numHoleCards=2,"
    f"numRanks={ranks},numSuits={suits},stack={stack} {stack},blind=100 50,firstPlayer=2 1 1 1,"
    f"bettingAbstraction=fcpa,potSize=200,boardCards={board})"
  )


def _small_rules(ranks, suits, board, stack, **kw):
  cards = tuple("23456789TJQKA".index(board[i]) * suits + "cdhs".index(board[i + 1]) for i in range(0, len(board), 2))
  sizes = dict(first_bets=(1.0, ALL_IN), raises=(1.0, ALL_IN))
  return NoLimitRules(ranks=ranks, suits=suits, board=cards, pot=200, stack=stack, big_blind=100, **sizes, **kw)


def _betting(state, out, path=()):
  """{decision path: (legal actions, contributions)} of OpenSpiel's tree after the first deals."""
  if state.is_terminal():
    return out
  if state.is_chance_node():
    return _betting(state.child(state.chance_outcomes()[0][0]), out, path)
  chips = tuple(int(x) for x in state.observation_tensor(0)[-2:])
  out[path] = (tuple(state.legal_actions()), chips)
  for action in state.legal_actions():
    _betting(state.child(action), out, path + (action,))
  return out


def _rules_betting(rules, state, out, path=()):
  kind, _ = rules.kind_of(state)
  if kind == pt.CHANCE:
    return _rules_betting(rules, rules.children(state)[0][4], out, path)
  if kind == pt.DECISION:
    children = rules.children(state)
    out[path] = (tuple(c[2] for c in children), state.chips)
    for child_kind, _, action, _, child in children:
      if child_kind in (pt.DECISION, pt.CHANCE):
        _rules_betting(rules, child, out, path + (action,))
  return out


@pytest.mark.parametrize("stack, bets", [(700, None), (5000, None), (20000, None), (20000, 2)])
def test_no_limit_betting_is_openspiels_fcpa(stack, bets):
  """Every decision's legal actions and contributions, from a turn board (pot twice the big
  blind: OpenSpiel 2.0.2 keeps the largest contribution at the big blind under potSize)."""
  pyspiel = pytest.importorskip("pyspiel")
  string = _openspiel_string(5, 2, "2c3d4c5d", stack).removeprefix("openspiel:")
  if bets is not None:
    string = string[:-1] + f",maxRaises={bets} {bets} {bets} {bets})"
  state = pyspiel.load_game(string).new_initial_state()
  want = _betting(state, {})
  rules = _small_rules(5, 2, "2c3d4c5d", stack, max_raises=bets)
  assert _rules_betting(rules, rules.root(), {}) == want


@functools.cache
def small_game(which: str):
  """(OpenSpiel's sequence form, host tree, device tree, map, jitted conversion)."""
  ranks, suits, board, stack = SMALL[which]
  game = jaxcfr.load(_openspiel_string(ranks, suits, board, stack), dtype=jnp.float64, use_cache=False)
  tree = pt.build(_small_rules(ranks, suits, board, stack))
  mapping = pt.sequence_form_map(tree, game.arrays)
  return game, tree, pt.to_device(tree, jnp.float64), mapping, jax.jit(functools.partial(pt.to_sequence_form, mapping))


def _random_profile(device, rng, batch=()):
  out = []
  for legal in device.legal:
    legal = np.asarray(legal).reshape(legal.shape + (1,) * (1 + len(batch)))
    x = rng.random(legal.shape[:2] + (device.num_hands,) + batch) * legal
    out.append(jnp.asarray(x / x.sum(1, keepdims=True)))
  return tuple(out)


@pytest.mark.parametrize("which", sorted(SMALL))
def test_small_deck_holdem_values_equal_openspiels_sequence_form(which):
  pytest.importorskip("pyspiel")
  game, _, device, _, to_sequence_form = small_game(which)
  uniform = tuple(x[..., None] for x in ops.uniform_profile(device))
  profile = tuple(
    jnp.concatenate([u, r], -1) for u, r in zip(uniform, _random_profile(device, np.random.default_rng(3), (2,)))
  )
  sequence = to_sequence_form(profile)
  ev = jax.jit(jaxcfr.expected_value)(game.tensors, sequence)
  np.testing.assert_allclose(jax.jit(ops.expected_value)(device, profile), ev, rtol=1e-12, atol=1e-10)
  br = jax.jit(jaxcfr.best_response_values)(game.tensors, sequence)
  np.testing.assert_allclose(jax.jit(ops.best_response_values)(device, profile), br, rtol=1e-12)


def _to_public_state(state, vector, tree, device, mapping):
  """The public tree's CFR state of a sequence-form CFR state: regrets divided by each
  infoset's chance weight (its hand's share of the deal times its board's probability),
  average accumulators times the hand's share (the player's own reach at the root),
  strategies as they are; zero regrets and averages (uniform strategies) where the board
  blocks the hand."""
  board_prob = tree.chance_prob.copy()
  for d in range(1, len(tree.depth_offsets) - 1):
    level = slice(tree.depth_offsets[d], tree.depth_offsets[d + 1])
    board_prob[level] *= board_prob[tree.parent[level]]
  fields = {"regrets": [], "strategy": [], "average": []}
  for p in (0, 1):
    share = tree.initial_range[p, mapping.hand[p]]
    scale = {
      "regrets": 1 / (share * board_prob[tree.decision_nodes(p)[mapping.node[p]]]),
      "strategy": 1,
      "average": share,
    }
    infoset, slot = np.nonzero(mapping.slot[p] >= 0)
    where = (mapping.node[p][infoset], mapping.slot[p][infoset, slot], mapping.hand[p][infoset])
    for field, out in fields.items():
      table = (
        np.array(ops.uniform_strategy(device, p))
        if field == "strategy"
        else np.zeros(device.legal[p].shape + (tree.num_hands,))
      )
      factor = scale[field] if np.isscalar(scale[field]) else scale[field][infoset]
      table[where] = np.asarray(getattr(state, field)[p])[infoset, slot] * factor
      out.append(jnp.asarray(table))
  return vector._replace(
    **{k: tuple(v) for k, v in fields.items()}, iteration=state.iteration, weight_ratio=state.weight_ratio
  )


def test_small_deck_holdem_cfr_plus_steps_equal_openspiels_sequence_form():
  """The turn subgame (a chance node, showdowns on every river). CFR+ for 10 iterations on
  OpenSpiel's sequence form; before each iteration the public
  tree takes the sequence form's state (converted) and makes the same step: regrets (scaled
  back) to 1e-12 relative, and the exploitability of the average to 1e-9. The two forms are
  not run apart: no-limit hold'em has exact ties (a nut hand's check and bet when the
  opponent always folds) whose regrets come out 0 in one summation order and +-1e-16 in the
  other, and regret matching tells them apart (a free run's current strategies part within
  the first two iterations, measured)."""
  pytest.importorskip("pyspiel")
  which = "turn"
  game, tree, device, mapping, _ = small_game(which)
  solver = jaxcfr.solvers.get("cfr+")
  sequence_step, vector_step = jax.jit(solver.step), jax.jit(cfr.preset_step("cfr+"))
  average = jax.jit(lambda tensors, acc: tuple(map(evaluation.normalise_rows, tensors.players, acc)))
  exploitability = jax.jit(ops.exploitability)
  state = solver.init(game.tensors)
  vector = cfr.init(device, **cfr.preset_hyperparameters("cfr+"))
  for t in range(1, 11):
    vector = vector_step(device, _to_public_state(state, vector, tree, device, mapping))
    state = sequence_step(game.tensors, state)
    want = _to_public_state(state, vector, tree, device, mapping)
    for got, expected in zip(vector.regrets, want.regrets):
      scale = float(jnp.abs(expected).max())
      np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * scale, err_msg=f"{which} t={t}")
    for got, expected in zip(vector.average, want.average):
      np.testing.assert_allclose(got, expected, rtol=0, atol=1e-13, err_msg=f"{which} t={t}")
    np.testing.assert_allclose(
      exploitability(device, cfr.average_strategy(device, vector)),
      jaxcfr.exploitability(game.tensors, average(game.tensors, state.average)),
      rtol=0,
      atol=1e-9,
      err_msg=f"{which} t={t}",
    )
  assert int(vector.iteration) == 10


# --- a batch of subgames that differ in their ranges ----------------------------------------------


@functools.cache
def uniform_small_tree(which: str):
  """The device tree of a small-deck subgame with uniform ranges (no OpenSpiel)."""
  return pt.to_device(pt.build(_small_rules(*SMALL[which])), jnp.float64)


def test_with_initial_ranges_normalises_as_the_builder_does():
  """A subgame built from given ranges has the initial ranges that ``with_initial_ranges``
  gives the uniform subgame on the device, one and three at a time (trailing axis)."""
  ranks, suits, board, stack = SMALL["turn"]
  uniform = uniform_small_tree("turn")
  weights = np.random.default_rng(0).random((2, uniform.num_hands, 3))
  for b in range(3):
    built = pt.build(_small_rules(ranks, suits, board, stack, ranges=weights[..., b]))
    np.testing.assert_allclose(
      ops.with_initial_ranges(uniform, weights[..., b]).initial_range, built.initial_range, rtol=1e-13
    )
    np.testing.assert_allclose(
      ops.with_initial_ranges(uniform, weights).initial_range[..., b], built.initial_range, rtol=1e-13
    )
  np.testing.assert_allclose(
    ops.with_initial_ranges(uniform, uniform.initial_range).initial_range, uniform.initial_range, rtol=1e-13
  )


@pytest.mark.parametrize(
  "ranges, message",
  [
    (np.ones((2, 7)), r"ranges must be \[2, 45, \*B\]"),
    (-np.ones((2, 45)), "ranges must be >= 0"),
    (np.stack([np.ones((45, 2)), np.zeros((45, 2))]), "subgame 0 of the batch: the ranges have no pair"),
  ],
)
def test_with_initial_ranges_rejects_bad_ranges(ranges, message):
  with pytest.raises(ValueError, match=message):
    ops.with_initial_ranges(uniform_small_tree("turn"), ranges)


def test_a_batch_of_ranges_is_one_program_equal_to_each_subgame_alone():
  """CFR+ and DCFR on three subgames with random ranges as one batch (the ranges' trailing
  axis, crossed with a batch of two alphas): the average strategies and exploitabilities of
  each equal a run on that subgame alone, built with its ranges, to 1e-12."""
  ranks, suits, board, stack = SMALL["river"]
  rules = functools.partial(_small_rules, ranks, suits, board, stack)
  uniform = uniform_small_tree("river")
  weights = np.random.default_rng(1).random((2, uniform.num_hands, 3, 1))
  batched = ops.with_initial_ranges(uniform, weights)
  step = cfr.preset_step("dcfr")
  state = cfr.init(batched, **{**cfr.preset_hyperparameters("dcfr"), "alpha": jnp.array([1.5, 3.0])})
  assert state.iteration.shape == (3, 2)
  state = cfr.run(batched, state, 12, step)
  average_of, exploitability_of = jax.jit(cfr.average_strategy), jax.jit(ops.exploitability)
  average = average_of(batched, state)
  exploitability = exploitability_of(batched, average)
  assert exploitability.shape == (3, 2)
  for b in range(3):
    alone = pt.to_device(pt.build(rules(ranges=weights[..., b, 0])), jnp.float64)
    for k, alpha in enumerate((1.5, 3.0)):
      single = cfr.init(alone, **{**cfr.preset_hyperparameters("dcfr"), "alpha": alpha})
      single = cfr.run(alone, single, 12, step)
      want = average_of(alone, single)
      for got, expected in zip(average, want):
        np.testing.assert_allclose(got[..., b, k], expected, rtol=0, atol=1e-12)
      np.testing.assert_allclose(exploitability[b, k], exploitability_of(alone, want), rtol=0, atol=1e-12)
  assert float(exploitability.max()) > 0


@pytest.mark.parametrize("boards_per_step", [4, 10**6])
def test_showdown_boards_side_by_side_give_the_same_values(boards_per_step):
  """The loop over showdown boards taking several boards a step (an accelerator's setting,
  ``showdown_step_bytes``; 4 of the turn's boards pad the last step, 10**6 take all in one)
  gives the one-board-a-step values, for both players and a trailing batch of ranges."""
  one = uniform_small_tree("turn")
  count, groups = one.showdown_groups.shape
  assert count > 4 and count % 4, "the turn's showdown boards should need a padded last step"
  rng = np.random.default_rng(2)
  reach = jnp.asarray(rng.random((one.showdown_nodes.shape[0], one.num_hands, 3)))
  per_board = 16 * groups * one.num_hands * 3 * reach.dtype.itemsize
  wide = dataclasses.replace(one, showdown_step_bytes=boards_per_step * per_board)
  for player in (0, 1):
    want = ops.showdown_values(one, player, reach)
    got = jax.jit(functools.partial(ops.showdown_values, player=player))(wide, opponent_reach=reach)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * float(jnp.abs(want).max()))


def test_hand_grid_places_pairs_suited_and_offsuit_hands_as_players_read_them():
  """Aces on the first row and column; AKs above the diagonal (4 hands), AKo below (12),
  pairs on it (6); a cell averages its hands by weight, NaN where no weight."""
  names = hs.hand_names()
  index = {name: i for i, name in enumerate(names)}
  values = np.zeros(hs.NUM_HANDS)
  weights = np.ones(hs.NUM_HANDS)
  values[index["KsAs"]] = 4.0  # one of AKs's four hands
  values[index["KsAh"]] = 12.0  # one of AKo's twelve
  weights[index["2s2h"]] = 3.0
  values[index["2s2h"]] = 1.0  # 22: 3 / (3 + 5 ones)
  weights[[i for i, n in enumerate(names) if n[0] == "7" and n[2] == "7"]] = 0  # 77 out of the range
  grid, labels = hs.hand_grid(values, weights)
  assert labels[0, 0] == "AA" and labels[0, 1] == "AKs" and labels[1, 0] == "AKo" and labels[12, 12] == "22"
  assert grid[0, 1] == 1.0 and grid[1, 0] == 1.0 and grid[0, 0] == 0.0
  assert grid[12, 12] == pytest.approx(3 / 8)
  assert np.isnan(grid[7, 7]) and labels[7, 7] == "77"
  assert np.isnan(grid).sum() == 1
  with pytest.raises(ValueError, match=r"hand_grid takes \[1326\] values"):
    hs.hand_grid(np.zeros(5))
