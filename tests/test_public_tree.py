"""The public tree (vector-form CFR) against its definitions and the sequence form: the
builder's structure and its map onto the sequence form, every terminal evaluator against
the O(H^2) sum over pairs of hands (2-card hands included), expected and best-response
values, and the CFR family iterate by iterate against jaxcfr.solvers' sequence-form CFR."""

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcfr
from jaxcfr.kits.public_tree import values as ops
from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.base import regret
from jaxcfr.kits import public_tree as pt
from jaxcfr.kits.sequence_form.build import build_from_protocol
from jaxcfr.kits.sequence_form.tensors import to_tensors
from jaxcfr.games import CHANCE, GAMES as GAME_RULES, TERMINAL
from jaxcfr.solvers import cfr
from jaxcfr.solvers.cfr import INF
from tests import helpers

GAMES = {
  "kuhn_poker": pt.kuhn_rules(),
  "one_card_poker(num_cards=5)": pt.one_card_poker_rules(5),
  "leduc_poker": pt.leduc_rules(),
  # every betting rule replayed with hidden cards: full betting (double raises), fcpa, DeepStack-Leduc's tree
  "no_limit_leduc_poker(stack=5)": GAME_RULES["no_limit_leduc_poker"](stack=5).public_tree_rules(),
  "no_limit_leduc_poker(stack=30,ante=5,betting=deepstack,num_ranks=4)": GAME_RULES["no_limit_leduc_poker"](
    stack=30, ante=5, betting="deepstack", num_ranks=4
  ).public_tree_rules(),
  # private dice, no card removal, payoff terminals (a call's result per pair of dice)
  "liars_dice(dice_sides=4)": GAME_RULES["liars_dice"](dice_sides=4).public_tree_rules(),
}
# 2 suits x 4 ranks, 2-card hands, one public card: card removal over pairs of cards, and ties.
TWO_CARD = pt.PokerRules(ranks=4, suits=2, hand_size=2, board_cards=(0, 1), raise_sizes=(2, 4), max_raises=2)


@pytest.fixture(autouse=True, scope="module")
def float64():
  jax.config.update("jax_enable_x64", True)


@functools.cache
def public(rules: pt.PokerRules):
  tree = pt.build(rules)
  return tree, pt.to_device(tree, jnp.float64)


@functools.cache
def setup(name: str):
  """(sequence-form game, host tree, device tree, map, jitted conversion) of a game, once."""
  game = helpers.load(name)
  tree, device = public(GAMES[name])
  mapping = pt.sequence_form_map(tree, game.arrays)
  return game, tree, device, mapping, jax.jit(functools.partial(pt.to_sequence_form, mapping))


# Shared compiled functions: every test of a game with batch B = 3 reuses them.
_expected_value = jax.jit(ops.expected_value)
_best_response_values = jax.jit(ops.best_response_values)
_exploitability = jax.jit(ops.exploitability)
_sequence_average = jax.jit(lambda tensors, average: tuple(map(evaluation.normalise_rows, tensors.players, average)))


@jax.jit
def _average(tree, average):
  """The public tree's average profile from the accumulators (cfr.average_strategy)."""
  legal = [x.reshape(x.shape + (1,) * (a.ndim - 2)) for x, a in zip(tree.legal, average)]
  return tuple(map(regret.normalise, average, legal))


def random_profile(device, rng, batch=()):
  out = []
  for legal in device.legal:
    legal = np.asarray(legal).reshape(legal.shape + (1,) * (1 + len(batch)))
    x = rng.random(legal.shape[:2] + (device.num_hands,) + batch) * legal
    out.append(jnp.asarray(x / x.sum(1, keepdims=True)))
  return tuple(out)


# --- the builder ---------------------------------------------------------------------------------


def test_kuhn_public_tree_layout():
  tree, _ = public(pt.kuhn_rules())
  assert tree.kind.tolist() == [pt.DECISION, pt.DECISION, pt.DECISION, pt.SHOWDOWN, pt.DECISION] + [
    pt.FOLD,
    pt.SHOWDOWN,
    pt.FOLD,
    pt.SHOWDOWN,
  ]
  assert tree.parent.tolist() == [-1, 0, 0, 1, 1, 2, 2, 4, 4]
  assert tree.action.tolist() == [-1, 0, 1, 0, 1, 0, 1, 0, 1]  # pass 0, bet 1
  assert tree.player.tolist() == [0, 1, 1, -1, 0, 1, -1, 0, -1]  # the folder at folds
  assert tree.contribution[[3, 5, 6, 7, 8]].tolist() == [[1, 1], [2, 1], [2, 2], [1, 2], [2, 2]]
  assert tree.player_hands(1) == [(0,), (1,), (2,)]
  np.testing.assert_allclose(tree.initial_range, [[1 / 3] * 3, [1 / 2] * 3])


def test_leduc_public_tree_counts_and_map():
  game, tree, _, mapping, _ = setup("leduc_poker")
  assert np.bincount(tree.kind).tolist() == [186, 5, 124, 150]  # decisions, deals, folds, showdowns
  assert len(tree.boards) == 7 and tree.valid.sum(1).tolist() == [6] + [5] * 6
  np.testing.assert_allclose(tree.chance_prob[tree.kind[tree.parent.clip(0)] == pt.CHANCE], 1 / 4)
  for p in (0, 1):  # sequence_form_map checked the bijection; the keys agree with it
    keys = game.arrays.players[p].keys
    nodes = tree.decision_nodes(p)[mapping.node[p]]
    assert all(key.split(":")[0] == str(tree.hands[h, 0]) for key, h in zip(keys, mapping.hand[p]))
    assert all(key.split(":")[1] == "".join(map(str, tree.board_cards(n))) for key, n in zip(keys, nodes))


def test_liars_dice_public_tree_layout_and_payoffs():
  """Every sequence of increasing bids is a decision node and, called, a payoff terminal;
  each terminal's matrix is the game's returns for every pair of dice; no card removal."""
  sides = 4
  game = GAME_RULES["liars_dice"](dice_sides=sides)
  tree, device = public(game.public_tree_rules())
  bids = 2 * sides
  assert np.bincount(tree.kind, minlength=6).tolist() == [2**bids, 0, 0, 0, 0, 2**bids - 1]
  assert tree.members == () and np.all(tree.valid) and tree.num_hands == sides
  np.testing.assert_allclose(tree.initial_range, 1 / sides)
  for node in np.flatnonzero(tree.kind == pt.PAYOFF):
    state = game.new_initial_state()
    for action in (0, 0) + tree.path(node):  # any dice first; replaced below
      state = state.child(action)
    for d0, d1 in np.ndindex(sides, sides):
      state.dice = (d0, d1)
      assert tree.payoff_tables[tree.payoff_index[node], d0, d1] == state.returns()[0]
  # the same dice are compatible: a payoff terminal's values are the full matrix products
  reach = np.random.default_rng(0).random((len(device.payoff_nodes), sides))
  got = ops.payoff_values(device, 1, jnp.asarray(reach))
  want = -np.einsum("pgh,pg->ph", np.asarray(device.payoff_tables)[np.asarray(device.payoff_table)], reach)
  np.testing.assert_allclose(got, want, rtol=1e-14)
  with pytest.raises(ValueError, match="payoff tables"):
    pt.check(dataclasses.replace(tree, payoff_index=np.full_like(tree.payoff_index, -1)))
  with pytest.raises(ValueError, match="card game"):
    pt.Subgame(game.public_tree_rules())


def test_rules_are_checked():
  with pytest.raises(ValueError, match="max_raises=1"):
    pt.PokerRules(ranks=3, actions=pt.PASS_BET, max_raises=2)
  with pytest.raises(ValueError, match="cannot deal"):
    pt.PokerRules(ranks=2, hand_size=1, board_cards=(0, 1), raise_sizes=(1, 1))
  with pytest.raises(ValueError, match="one entry per round"):
    pt.PokerRules(ranks=3, board_cards=(0, 1))
  tree = pt.build(pt.kuhn_rules())
  with pytest.raises(ValueError, match="valid masks"):
    pt.check(dataclasses.replace(tree, valid=~tree.valid))


# --- terminal values against the O(H^2) definition ------------------------------------------------


def quadratic_terminal_values(tree, player, nodes, reach, showdown):
  """[T, H, *B] by the definition: a sum over every pair of hands that share no card."""
  hands = tree.hands
  disjoint = ~(hands[:, None, :, None] == hands[None, :, None, :]).any((2, 3))
  out = np.zeros_like(reach)
  for t, node in enumerate(nodes):
    board, chips = tree.board_cards(node), tree.contribution[node]
    possible = disjoint & tree.valid[tree.board[node]][:, None] & tree.valid[tree.board[node]][None, :]
    if showdown:
      keys = [tree.rules.strength(tuple(h) + board, tree.rules.suits) for h in hands.tolist()]
      rank = {key: r for r, key in enumerate(sorted(set(keys)))}
      strength = np.array([rank[key] for key in keys])
      payoff = np.where(
        strength[:, None] > strength[None, :],
        chips[1 - player],
        np.where(strength[:, None] < strength[None, :], -chips[player], (chips[1 - player] - chips[player]) / 2),
      )
    else:
      payoff = np.full(possible.shape, -chips[player] if tree.player[node] == player else chips[1 - player])
    out[t] = np.einsum("hg,g...->h...", possible * payoff, reach[t])
  return out


@pytest.mark.parametrize("rules", [TWO_CARD, pt.leduc_rules()], ids=["two_card_hands", "leduc"])
def test_terminal_values_match_the_quadratic_definition(rules):
  tree, device = public(rules)
  rng = np.random.default_rng(0)
  for showdown, kind in ((False, pt.FOLD), (True, pt.SHOWDOWN)):
    nodes = np.flatnonzero(tree.kind == kind)
    reach = rng.random((len(nodes), tree.num_hands, 2)) * (rng.random((len(nodes), tree.num_hands, 1)) > 0.2)
    reach *= tree.valid[tree.board[nodes]][:, :, None]
    evaluate = ops.showdown_values if showdown else ops.fold_values
    if showdown:  # unequal chips at some showdowns exercise the split pot's term
      chips = tree.contribution[nodes] + np.where(np.arange(len(nodes)) % 3 == 0, 1, 0)[:, None] * [2, 0]
      device = dataclasses.replace(device, showdown_chips=jnp.asarray(chips, jnp.float64))
      tree = dataclasses.replace(tree, contribution=tree.contribution.copy())
      tree.contribution[nodes] = chips
    for player in (0, 1):
      want = quadratic_terminal_values(tree, player, nodes, reach, showdown)
      for dense in (False, True):
        got = evaluate(device, player, jnp.asarray(reach), dense=dense)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=f"player {player} dense={dense}")


def _dot_precisions(jaxpr) -> list:
  """The precision of every dot_general in ``jaxpr`` and the jaxprs inside it (loops, conds)."""
  found = []
  for eqn in jaxpr.eqns:
    if eqn.primitive.name == "dot_general":
      found.append(eqn.params["precision"])
    for param in eqn.params.values():
      for sub in param if isinstance(param, (tuple, list)) else (param,):
        inner = getattr(sub, "jaxpr", sub)
        if hasattr(inner, "eqns"):
          found += _dot_precisions(inner)
  return found


def test_every_product_of_the_terminals_is_exact_on_any_device():
  """Sorted and dense folds and showdowns (the two-card tree: the card corrections' triangular
  products) and the payoff terminals (liar's dice) ask for HIGHEST precision in every product,
  so a GPU does not run them at TensorFloat-32."""
  _, device = public(TWO_CARD)
  _, dice = public(GAMES["liars_dice(dice_sides=4)"])
  cases = [
    (ops.fold_values, device, device.fold_nodes),
    (ops.showdown_values, device, device.showdown_nodes),
    (ops.payoff_values, dice, dice.payoff_nodes),
  ]
  for evaluate, tree, nodes in cases:
    for dense in (False, True) if evaluate is not ops.payoff_values else (False,):
      kwargs = {"dense": dense} if evaluate is not ops.payoff_values else {}
      reach = jnp.ones((nodes.shape[0], tree.num_hands), jnp.float32)
      jaxpr = jax.make_jaxpr(lambda r: evaluate(tree, 0, r, **kwargs))(reach).jaxpr
      precisions = _dot_precisions(jaxpr)
      if evaluate is not ops.fold_values or dense:  # sorted folds gather, with no product
        assert precisions, f"{evaluate.__name__} dense={dense}: no product found"
      highest = (jax.lax.Precision.HIGHEST, jax.lax.Precision.HIGHEST)
      assert all(p == highest for p in precisions), f"{evaluate.__name__} dense={dense}: {precisions}"


def test_showdown_strength_orders_ties():
  tree, _ = public(TWO_CARD)
  # board: card 7 (rank 3); cards 2r and 2r + 1 have rank r
  b = int(np.flatnonzero([tree.boards[r].tolist() == [7] for r in tree.showdown_boards])[0])
  strength = {tuple(h): s for h, s in zip(tree.hands.tolist(), tree.strength[b].tolist())}
  assert strength[(6, 7)] == -1 and strength[(0, 7)] == -1  # the board holds card 7
  assert strength[(0, 1)] < strength[(2, 3)] < strength[(4, 5)]  # pocket pairs by rank
  assert strength[(0, 6)] > strength[(4, 5)] and strength[(0, 6)] == strength[(1, 6)]  # pair of 3s with the board
  assert strength[(0, 2)] == strength[(1, 3)] < strength[(0, 4)]  # high cards, suits do not matter


# --- values against the sequence form -------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(GAMES))
def test_values_match_the_sequence_form(name):
  game, _, device, _, to_sequence_form = setup(name)
  profile = random_profile(device, np.random.default_rng(1), batch=(3,))
  sequence = to_sequence_form(profile)
  np.testing.assert_allclose(
    _expected_value(device, profile), helpers.expected_value(game.tensors, sequence), rtol=1e-12, atol=1e-13
  )
  np.testing.assert_allclose(
    _best_response_values(device, profile), helpers.best_response_values(game.tensors, sequence), rtol=1e-12
  )


# --- the CFR family, iterate by iterate -----------------------------------------------------------

ITERATIONS = 20
# Three runs in one batch per compiled step: the presets and variants that share a step.
BATCHES = {
  "cfr": ("cfr", "cfr+", "dcfr"),  # alternating, not predictive
  "pcfr+": ("pcfr+", dict(alpha=INF, beta=-INF, gamma=1.0), dict(alpha=INF, beta=-INF, gamma=0.0)),
  "rm+": ("rm+", "rm", dict(alpha=1.5, beta=0.0, gamma=2.0)),  # simultaneous
}


def _hyperparameters(runs):
  runs = [dataclasses.asdict(cfr.PRESETS[r]) if isinstance(r, str) else r for r in runs]
  return {k: jnp.array([r[k] for r in runs]) for k in ("alpha", "beta", "gamma")}


# Exact ties at a uniform start: in no-limit Leduc with full betting, folding and calling an
# all-in with a jack are worth exactly the same on the first iteration. The sequence form sums
# that zero regret exactly, the public tree's fold and showdown by totals minus blocked hands to
# ~1e-17, which regret matching turns into a pure strategy. These games start both solvers from
# one random positive regret (and its regret-matching strategy) instead, away from ties.
# Liar's dice has such ties too: with the payoffs +-1, calling and raising are worth exactly
# the same to some dice at t = 1 (sequence form: regret 0; public tree: +-5e-20).
RANDOM_START = {name for name in GAMES if name.startswith(("no_limit", "liars_dice"))}


def _random_start(tree, device, to_sequence_form, state, vector):
  """Both states with the same random regrets ``[N_p, A, H, B]`` and their strategies. A
  public-tree value leaves out the player's own deal and the public deals on the way to its
  node, so the sequence form's regrets are the public tree's times both."""
  batch = vector.regrets[0].shape[3:]
  regrets = random_profile(device, np.random.default_rng(2), batch)
  chance = np.ones(tree.num_nodes)
  for node in range(1, tree.num_nodes):  # breadth-first: a parent comes first
    chance[node] = chance[tree.parent[node]] * tree.chance_prob[node]
  scale = [chance[tree.decision_nodes(p), None, None, None] * tree.initial_range[p][:, None] for p in (0, 1)]
  scaled = tuple(x * s for x, s in zip(regrets, scale))
  vector = vector._replace(regrets=regrets, strategy=regrets)  # random_profile's rows sum to one
  return state._replace(regrets=to_sequence_form(scaled), strategy=to_sequence_form(regrets)), vector


def _tolerance(name, step):
  """DCFR amplifies rounding on Leduc (tests/test_cfr.py: regrets that cancel to ~1e-3 or
  to zero, computed in another summation order): its current strategies drift to ~1e-12 at
  t = 10 and ~6e-12 at t = 20 (measured), so Leduc's first batch is held to 1e-12 for 10
  iterations and to 2e-11 after. The no-limit games' random starts drift alike (measured:
  ~1.04e-12 at t = 12-13 in both batches, 2.1e-11 at t = 18 with PCFR+, on a strategy entry
  of 0.93 whose positive regrets nearly cancel): 1e-12 for 10 iterations, 1e-10 after."""
  if name.startswith("no_limit"):
    return lambda t: 1e-12 if t <= 10 else 1e-10
  if name == "leduc_poker" and step == "cfr":
    return lambda t: 1e-12 if t <= 10 else 2e-11
  return lambda t: 1e-12


@pytest.mark.parametrize(
  "name, step",
  # simultaneous updates (rm+) on Kuhn poker only: the update order is the same code on every game
  [(name, step) for name in sorted(GAMES) for step in sorted(BATCHES) if step != "rm+" or name == "kuhn_poker"],
)
def test_the_cfr_family_equals_the_sequence_form_iterate_by_iterate(name, step):
  """After each iteration: the average and current strategies (converted) to 1e-12 and the
  exploitability of the average to 1e-12; at the end, the best-response values."""
  game, tree, device, _, to_sequence_form = setup(name)
  solver = jaxcfr.solvers.get(step)
  sequence_step, vector_step = jax.jit(solver.step), jax.jit(cfr.preset_step(step))
  hyperparameters = _hyperparameters(BATCHES[step])
  state = solver.init(game.tensors, **hyperparameters)
  vector = cfr.init(device, **hyperparameters, predictive=cfr.PRESETS[step].predictive)
  if name in RANDOM_START:
    state, vector = _random_start(tree, device, to_sequence_form, state, vector)
  tolerance = _tolerance(name, step)
  for t in range(1, ITERATIONS + 1):
    state, vector = sequence_step(game.tensors, state), vector_step(device, vector)
    want_average = _sequence_average(game.tensors, state.average)
    got_average = _average(device, vector.average)
    for got, want in ((got_average, want_average), (vector.strategy, state.strategy)):
      for g, w in zip(to_sequence_form(got), want):
        np.testing.assert_allclose(g, w, rtol=0, atol=tolerance(t), err_msg=f"{name} {step} t={t}")
    want = helpers.exploitability(game.tensors, want_average)
    np.testing.assert_allclose(_exploitability(device, got_average), want, rtol=0, atol=1e-12)
  np.testing.assert_allclose(
    _best_response_values(device, got_average),
    helpers.best_response_values(game.tensors, to_sequence_form(got_average)),
    rtol=0,
    atol=1e-12,
  )
  assert np.all(np.asarray(vector.iteration) == ITERATIONS)


def test_run_and_dense_terminals_give_the_same_iterates():
  _, _, device, _, _ = setup("kuhn_poker")
  init = cfr.init(device, **cfr.preset_hyperparameters("cfr+"))
  state = cfr.run(device, init, 5, cfr.preset_step("cfr+"))
  dense = cfr.run(device, init, 5, cfr.preset_step("cfr+", operations=pt.operations("dense")))
  for a, b in zip(jax.tree.leaves(state), jax.tree.leaves(dense)):
    np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
  assert int(state.iteration) == 5


TIES = "no_limit_leduc_poker(stack=4)"


@functools.cache
def _ties_setup():
  """The sequence form and the public tree of TIES in float64 (the fixture's jax_enable_x64),
  and the jitted conversion of public-tree profiles."""
  game = jaxcfr.load(TIES, dtype=jnp.float64)
  tree = jaxcfr.load(TIES, representation="public_tree", dtype=jnp.float64)
  mapping = pt.sequence_form_map(tree.tree, game.arrays)
  return game, tree, jax.jit(functools.partial(pt.to_sequence_form, mapping))


@pytest.mark.parametrize("algorithm", ["rm+", "cfr+", "dcfr"])
def test_regret_tolerance_keeps_the_ties_of_the_two_representations(algorithm):
  """From the uniform start (no random regrets), no-limit Leduc's exact ties (fold and call
  worth the same) come out as 0 in one summation order and +-1e-17 in the other, and the two
  representations part by up to the whole strategy within 10 iterations. With
  ``regret_tolerance=1e-9`` the ties stay exact: after 100 iterations RM+'s and CFR+'s
  average and current strategies agree to 1e-9 (measured 1e-11) and every exploitability to
  1e-9 (measured: 1e-14), DCFR's to 1e-8 (measured: 5e-10, and 1.3e-9 with LLVM's
  optimisation off, as tests/conftest.py compiles). DCFR's strategies agree to 1e-5 only (measured:
  1.7e-7 for the average, 2.3e-6 for the current): its regrets, discounted towards zero, are small differences of large values (1e-4
  of 1e-1 at t = 6) whose 1e-16 rounding it amplifies step after step (2e-13 at t = 6, 1e-9
  by t = 55), the sensitivity tests/test_cfr.py describes, which no rule about zero removes."""
  game, tree, to_sequence_form = _ties_setup()
  results = {}
  for tolerance in (0.0, 1e-9):
    pair = [jaxcfr.solvers.get(algorithm, kit, regret_tolerance=tolerance) for kit in ("sequence_form", "public_tree")]
    states = [s.run(g.tensors, s.init(g.tensors), 100) for s, g in zip(pair, (game, tree))]
    average = [s.average_strategy(g.tensors, x) for s, g, x in zip(pair, (game, tree), states)]
    strategies = (
      (average[0], to_sequence_form(average[1])),
      (states[0].strategy, to_sequence_form(states[1].strategy)),
    )
    results[tolerance] = (
      max(float(jnp.abs(a - b).max()) for want, got in strategies for a, b in zip(want, got)),
      abs(float(helpers.exploitability(game.tensors, average[0])) - float(_exploitability(tree.tensors, average[1]))),
    )
  assert results[0.0][0] > 0.1  # the test has teeth: without the option the ties part the runs
  strategy_gap, exploitability_gap = results[1e-9]
  assert strategy_gap < (1e-5 if algorithm == "dcfr" else 1e-9), results
  assert exploitability_gap < (1e-8 if algorithm == "dcfr" else 1e-9), results
  assert jaxcfr.solvers.get(algorithm, "public_tree").options["regret_tolerance"] == 0.0  # off by default


def test_snap_to_zero_is_relative_to_the_scale_given():
  values = jnp.array([1e-17, -2e-10, 3e-9, -0.5])
  np.testing.assert_array_equal(regret.snap_to_zero(values, jnp.float64(1.0), 1e-9), [0, 0, 3e-9, -0.5])
  assert regret.snap_to_zero(values, jnp.float64(1.0), 0.0) is values  # off: untouched
  strategy = regret.regret_matching(
    regret.snap_to_zero(jnp.array([[1e-17, 0.0]]), 1.0, 1e-9), jnp.array([[True, True]]), -1
  )
  np.testing.assert_array_equal(strategy, [[0.5, 0.5]])  # a tie again: uniform, not pure


# --- 2-card hands end to end: a sequence form built from the same rules ---------------------------


class _PokerState:
  """The small-game protocol (games/_base.py) of PokerRules with FOLD_CALL_RAISE ids: each
  player's cards dealt one at a time (player 0's first), then the rounds. The reference
  for the public tree's 2-card hands."""

  def __init__(self, rules, cards=(), rounds=((),)):
    self.rules, self.cards, self.rounds = rules, cards, rounds

  def _dealt(self):
    k = self.rules.hand_size
    return 2 * k + sum(self.rules.board_cards[: len(self.rounds)])

  def _chips(self):
    chips, raises = [self.rules.ante] * 2, []
    for r, actions in enumerate(self.rounds):
      owed = 0
      for turn, action in enumerate(actions):
        if action == 1:
          chips[turn % 2] += owed
          owed = 0
        elif action == 2:
          chips[turn % 2] += owed + self.rules.raise_sizes[r]
          owed = self.rules.raise_sizes[r]
      raises.append(owed)
    return chips, raises[-1]

  def current_player(self):
    actions = self.rounds[-1]
    if len(self.cards) < self._dealt():
      return CHANCE
    if actions and actions[-1] == 0:
      return TERMINAL
    if len(actions) >= 2 and actions[-1] == 1:
      return CHANCE if len(self.rounds) < len(self.rules.board_cards) else TERMINAL
    return len(actions) % 2

  def legal_actions(self):
    actions, (_, owed) = self.rounds[-1], self._chips()
    return ([0] if owed else []) + [1] + ([2] if actions.count(2) < self.rules.max_raises else [])

  def chance_outcomes(self):
    remaining = [c for c in range(self.rules.num_cards) if c not in self.cards]
    return [(c, 1 / len(remaining)) for c in remaining]

  def child(self, action):
    if self.current_player() == CHANCE:
      if len(self.cards) == self._dealt():  # a round is over: the next round's deal
        return _PokerState(self.rules, self.cards + (action,), self.rounds + ((),))
      return _PokerState(self.rules, self.cards + (action,), self.rounds)
    return _PokerState(self.rules, self.cards, self.rounds[:-1] + (self.rounds[-1] + (action,),))

  def returns(self):
    chips, _ = self._chips()
    actions = self.rounds[-1]
    if actions[-1] == 0:
      u0 = -chips[0] if (len(actions) - 1) % 2 == 0 else chips[1]
    else:
      k, board = self.rules.hand_size, self.cards[2 * self.rules.hand_size :]
      key = [
        self.rules.strength(tuple(sorted(self.cards[p * k : (p + 1) * k])) + board, self.rules.suits) for p in (0, 1)
      ]
      u0 = 0 if key[0] == key[1] else (chips[1] if key[0] > key[1] else -chips[0])
    return [float(u0), float(-u0)]

  def information_state_string(self, player):
    k = self.rules.hand_size
    return f"{sorted(self.cards[player * k : (player + 1) * k])}:{self.cards[2 * k :]}:{self.rounds}"


def test_two_card_hands_equal_a_sequence_form_of_the_same_rules():
  """A public card dealt before the only round (the root is a chance node) and 2-card hands
  from a 6-card deck: values, best responses, and CFR+'s first regrets, which are the
  sequence form's divided by the infoset's chance weight (its hand's share of the deal
  times its board's probability). Strategies are not compared: this game has exact ties
  (actions of equal value) from the first iteration on, whose regrets are 0 in one
  summation order and +-5e-18 in the other, and regret matching tells them apart."""
  rules = pt.PokerRules(ranks=3, suits=2, hand_size=2, board_cards=(1,), raise_sizes=(2,), max_raises=2)
  arrays = build_from_protocol(_PokerState(rules), "two_card_poker")
  tensors = to_tensors(arrays, dtype=jnp.float64)
  tree, device = public(rules)
  assert tree.kind[0] == pt.CHANCE
  mapping = pt.sequence_form_map(tree, arrays)
  to_sequence_form = jax.jit(functools.partial(pt.to_sequence_form, mapping))
  profile = random_profile(device, np.random.default_rng(2), batch=(3,))
  sequence = to_sequence_form(profile)
  np.testing.assert_allclose(_expected_value(device, profile), helpers.expected_value(tensors, sequence), rtol=1e-12)
  np.testing.assert_allclose(
    _best_response_values(device, profile), helpers.best_response_values(tensors, sequence), rtol=1e-12
  )
  solver = jaxcfr.solvers.get("cfr+")
  state = jax.jit(solver.step)(tensors, solver.init(tensors))
  init = cfr.init(device, **cfr.preset_hyperparameters("cfr+"))
  vector = jax.jit(cfr.preset_step("cfr+"))(device, init)
  board_prob = tree.chance_prob.copy()  # each node's probability of its public cards
  for d in range(1, len(tree.depth_offsets) - 1):
    level = slice(tree.depth_offsets[d], tree.depth_offsets[d + 1])
    board_prob[level] *= board_prob[tree.parent[level]]
  for p in (0, 1):
    node, hand = tree.decision_nodes(p)[mapping.node[p]], mapping.hand[p]
    scale = tree.initial_range[p, hand] * board_prob[node]
    got = to_sequence_form(tuple(r for r in vector.regrets))[p] * scale[:, None]
    np.testing.assert_allclose(got, state.regrets[p], rtol=0, atol=1e-15)
