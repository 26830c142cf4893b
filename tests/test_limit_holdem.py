"""Heads-up limit hold'em: the JAX hand evaluator against phevaluator, the betting rules on
hand-written hands, the card abstraction's monotonicity, and the sampled solver path."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxcfr import solvers
from jaxcfr.kits.card_abstraction import game as holdem
from jaxcfr.run import cli
from jaxcfr.kits.card_abstraction import hand_eval
from jaxcfr.games import limit_holdem as rules


def _cards(text: str) -> list[int]:
  """'As Kd' -> card ids (rank * 4 + suit, suits c d h s)."""
  ranks, suits = "23456789TJQKA", "cdhs"
  return [ranks.index(t[0]) * 4 + suits.index(t[1]) for t in text.split()]


def random_hands(rng: np.random.Generator, n: int) -> np.ndarray:
  """[n, 7] int32 uniformly random hands of distinct cards (redrawing rows with repeats)."""
  hands = rng.integers(0, 52, (n, 7))
  while True:
    ordered = np.sort(hands, 1)
    bad = (np.diff(ordered, axis=1) == 0).any(1)
    if not bad.any():
      return hands.astype(np.int32)
    hands[bad] = rng.integers(0, 52, (int(bad.sum()), 7))


def test_hand_rank_agrees_with_phevaluator_on_a_million_hands():
  phevaluator = pytest.importorskip("phevaluator")
  n = 1_000_000
  hands = random_hands(np.random.default_rng(0), n)
  ours = np.asarray(hand_eval.hand_rank(jnp.asarray(hands))).astype(np.int64)
  ref = np.fromiter((phevaluator.evaluate_cards(*h) for h in hands.tolist()), np.int64, n)  # lower is better
  pairs = np.unique(ours * 8192 + (8191 - ref))  # sorted by ours, then by the reference's strength
  # the same order and the same ties: along our order the reference's strength never drops,
  # and each of our ranks is one reference rank and vice versa
  assert (np.diff(pairs % 8192) >= 0).all()
  assert len(pairs) == len(np.unique(ours)) == len(np.unique(ref)) > 4000


def test_hand_rank_categories_and_ties():
  rank = lambda text: int(hand_eval.hand_rank(jnp.asarray([_cards(text)]))[0])
  assert hand_eval.CATEGORIES[rank("As Ks Qs Js Ts 2c 3d") >> 26] == "straight flush"
  assert hand_eval.CATEGORIES[rank("Ah 2d 3c 4s 5h 9c Kd") >> 26] == "straight"  # the wheel
  assert rank("Ah 2d 3c 4s 5h 9c Kd") < rank("2h 3d 4c 5s 6h 9c Kd")
  assert rank("Ah Ad Ac Kh Kd Qc Qd") == rank("As Ad Ac Ks Kd 2c 3d")  # full house, the board plays
  assert rank("Ah Ad Kc Kh Qd Qc 2d") > rank("Ah Ad Kc Kh Jd Jc Td")  # two pair, queen kicker
  assert hand_eval.CATEGORIES[rank("2h 4h 6h 8h Th Ah Ad") >> 26] == "flush"


def test_betting_tree_rules():
  tree = rules.betting_tree()
  assert tree.num_nodes == 16584 and (tree.terminal == rules.NOT_TERMINAL).sum() == 6378
  root = tree.node("")
  assert tree.player[root] == 0 and tuple(tree.contribution[root]) == (1, 2)  # the button acts first
  assert tuple(tree.child[root] >= 0) == (True, True, True)  # facing the big blind: fold, call, raise
  limp = tree.node("c")
  assert tree.player[limp] == 1 and tree.child[limp, rules.FOLD] == -1  # the big blind's option: no fold
  flop = tree.node("cc/")
  assert tree.player[flop] == 1 and tree.round[flop] == 1 and tuple(tree.contribution[flop]) == (2, 2)
  capped = tree.node("rrr")  # blind + three raises = four bets: no more raising
  assert tuple(tree.contribution[capped]) == (8, 6) and tree.child[capped, rules.RAISE] == -1
  turn_bet = tree.node("cc/cc/cr")  # big bets on the turn
  assert tuple(tree.contribution[turn_bet]) == (6, 2)
  river_cap = tree.node("cc/cc/cc/rrrr")
  assert tree.child[river_cap, rules.RAISE] == -1 and tuple(tree.contribution[river_cap]) == (2 + 16, 2 + 12)
  showdown = tree.node("rrrc/rrrrc/rrrrc/rrrrc")
  assert tree.terminal[showdown] == rules.SHOWDOWN and tuple(tree.contribution[showdown]) == (48, 48)
  fold = tree.node("cc/rf")
  assert tree.terminal[fold] == rules.FOLDED and tree.folder[fold] == 0 and tuple(tree.contribution[fold]) == (2, 4)


def test_preflop_classes():
  classes = np.array([[rules.preflop_class(np.array([a, b])) for b in range(52)] for a in range(52)])
  off = classes[~np.eye(52, dtype=bool)]
  assert set(off.tolist()) == set(range(169))
  assert np.bincount(off).tolist().count(12) == 13  # each pair: 6 combinations, both orders


# The sampled game: a small abstraction (3 buckets, 8 rollouts) built once for these tests.
@pytest.fixture(scope="module")
def game():
  from jaxcfr.kits.card_abstraction import game as limit_holdem

  return limit_holdem.make(buckets=3, rollouts=4)


def test_device_payoffs_on_hand_written_hands(game):
  from jaxcfr.kits.card_abstraction import game as limit_holdem

  deal = jnp.asarray([_cards("As Ah Kd Kc 2s 7h 9c Jd 3s")])  # aces beat kings
  sign = limit_holdem.showdown_sign(deal)
  assert int(sign[0]) == 1
  tree = game.tree
  for history, expected in (("rrrc/rrrrc/rrrrc/rrrrc", 48), ("f", -1), ("rf", 2), ("cc/rf", -2), ("cc/cc/cc/crrf", -6)):
    node = jnp.asarray([tree.node(history)])
    assert float(limit_holdem.terminal_utility(game.arrays, node, sign)[0]) == expected, history
  split = jnp.asarray([_cards("2c 3d 2h 3s As Ks Qd Jc Th")])  # both play the board's straight
  assert int(limit_holdem.showdown_sign(split)[0]) == 0


def test_buckets_are_monotone_in_strength(game):
  """A hand that beats or ties another on every completion never gets a lower bucket."""
  from jaxcfr.kits.card_abstraction import game as limit_holdem

  key = jax.random.PRNGKey(5)
  deals = limit_holdem.sample_deals(key, 600)
  a, b, board = deals[:, 0:2], deals[:, 2:4], deals[:, 4:]
  # on the river, against the same opponent hands (each other's cards dead): a better
  # seven-card hand has at least the strength and at least the bucket
  strength = jax.jit(lambda h, d: limit_holdem.expected_strength(h, board, 5, key, 16, dead=d, by_view=False))
  sa, sb = strength(a, b), strength(b, a)
  ra = hand_eval.hand_rank(jnp.concatenate([a, board], 1))
  rb = hand_eval.hand_rank(jnp.concatenate([b, board], 1))
  ba = limit_holdem._bucket_of(sa, game.cuts[3], "percentile", game.buckets)
  bb = limit_holdem._bucket_of(sb, game.cuts[3], "percentile", game.buckets)
  assert bool(jnp.all(jnp.where(ra > rb, (sa >= sb) & (ba >= bb), True)))
  assert bool(jnp.all(jnp.where(ra == rb, ba == bb, True)))
  assert int((ba > bb).sum()) > 30  # the test has teeth: buckets differ often
  # every round's buckets are monotone in E[HS]
  values = jnp.linspace(0, 1, 101)
  for r in range(4):
    buckets = limit_holdem._bucket_of(values, game.cuts[r], "percentile", game.buckets)
    assert bool(jnp.all(jnp.diff(buckets) >= 0)) and int(buckets[0]) == 0 and int(buckets[-1]) == game.buckets - 1
  pf = np.asarray(game.preflop_strength)
  aces, seven_deuce = (
    int(rules.preflop_class(np.array(_cards("As Ah")))),
    int(rules.preflop_class(np.array(_cards("7c 2d")))),
  )
  assert pf[aces] == pf.max() and pf[seven_deuce] < np.quantile(pf, 0.05)


def test_chance_sampled_cfr_improves_against_the_rule_bot(game):
  from jaxcfr.kits.card_abstraction import match as holdem_match

  solver = solvers.get("cfr-cs", "card_abstraction")
  bot = holdem_match.rule_bot(game)
  state = solver.init(game, seed=0)
  early = solver.run(game, state, 5)
  late = solver.run(game, early, 395)
  key = jax.random.PRNGKey(11)  # the same duplicate deals for both
  before = holdem_match.match(game, solver.average_strategy(game, early), bot, key, 256)
  after = holdem_match.match(game, solver.average_strategy(game, late), bot, key, 256)
  assert after["sb_per_hand"] - before["sb_per_hand"] > 0.3, (before, after)


def test_outcome_sampling_runs_batched_and_beats_uniform(game):
  from jaxcfr.kits.card_abstraction import match as holdem_match

  solver = solvers.get("mccfr-os", "card_abstraction")
  state = solver.run(game, solver.init(game, seed=jnp.array([0, 1])), 3000)
  assert state.regret[0].shape == (game.num_infosets[0], 3, 2) and state.iteration.tolist() == [3000, 3000]
  average = solver.average_strategy(game, state)
  assert not np.allclose(average[0][..., 0], average[0][..., 1])  # the seeds differ
  legal = np.asarray(game.arrays.legal)[np.flatnonzero(game.tree.player == 0)].repeat(game.buckets, 0)
  np.testing.assert_allclose(np.asarray(average[0][..., 0]).sum(1), 1, atol=1e-5)
  assert (np.asarray(average[0][..., 0])[~legal] == 0).all()
  run0 = tuple(t[..., 0] for t in average)
  result = holdem_match.match(game, run0, holdem_match.uniform(game), jax.random.PRNGKey(3), 256)
  assert result["sb_per_hand"] > 2 * result["ci95"] > 0, result


def test_algorithms_that_need_the_tree_are_refused(capsys):
  from jaxcfr.run import cli

  with pytest.raises(ValueError, match="does not run on the card_abstraction representation"):
    solvers.get("cfr+", "card_abstraction")
  assert cli.main(["solve", "limit_holdem(buckets=10)", "--algo", "cfr+", "--iters", "5"]) == 2
  assert (
    "does not run on the card_abstraction representation (it accepts: sequence_form, public_tree)"
    in capsys.readouterr().err
  )
  assert cli.main(["solve", "limit_holdem(buckets=10)", "--algo", "mccfr-os", "--trajectories", "2"]) == 2
  assert "--trajectories does not apply to --algo mccfr-os on card_abstraction games" in capsys.readouterr().err


def test_checkpoint_and_resume_through_the_driver(game, tmp_path):
  """A sampled game runs through the one driver: a run stopped at its checkpoint and resumed
  equals the uninterrupted run bit for bit (the PRNG key is part of the state)."""
  from jaxcfr.run import driver

  path = tmp_path / "holdem.npz"
  batch = {"seed": [0, 1]}
  straight = driver.solve(game, "mccfr-os", 20, eval_every=10, batch=batch, progress=False)
  driver.solve(game, "mccfr-os", 10, eval_every=10, batch=batch, checkpoint=path, progress=False)
  resumed = driver.solve(game, "mccfr-os", 20, eval_every=10, batch=batch, checkpoint=path, resume=True, progress=False)
  for a, b in zip(jax.tree_util.tree_leaves(straight.state), jax.tree_util.tree_leaves(resumed.state)):
    np.testing.assert_array_equal(a, b)
  assert resumed.history[-1]["sb_per_hand_vs_bot"] == straight.history[-1]["sb_per_hand_vs_bot"]
  assert resumed.summary()["representation"] == "card_abstraction"


def test_mcrnr_runs_from_the_command_line(game, tmp_path):
  """'jaxcfr solve limit_holdem(...) --algo mcrnr': the rule bot as the model, seeds batched,
  the counter-profile scored against the bot."""
  import json
  from jaxcfr.run import cli

  out = tmp_path / "mcrnr.json"
  assert (
    cli.main(
      [
        "solve",
        "limit_holdem(buckets=3,rollouts=4)",
        "--algo",
        "mcrnr",
        "--iters",
        "20",
        "--seed",
        "0,1",
        "--eval-every",
        "20",
        "--no-progress",
        "--json",
        str(out),
      ]
    )
    == 0
  )
  record = json.loads(out.read_text())
  assert record["scored"] == "counter-profile" and record["hyperparameters"]["p"] == pytest.approx(0.75)
  assert len(record["history"][-1]["sb_per_hand_vs_bot"]) == 2


def test_mcts_and_mcrnr_run_on_the_abstraction(game):
  from jaxcfr.kits.card_abstraction import match as holdem_match

  mcts = solvers.get("mcts", "card_abstraction")
  state = mcts.run(game, mcts.init(game, seed=0), 200)
  assert int(state.visits[0].sum() + state.visits[1].sum()) >= 200 * 2  # both players act in every hand
  policy = mcts.average_strategy(game, state)
  np.testing.assert_allclose(np.asarray(policy[1]).sum(1), 1, atol=1e-6)
  bot = holdem_match.rule_bot(game)
  mcrnr = solvers.get("mcrnr", "card_abstraction")
  state = mcrnr.run(game, mcrnr.init(game, model=bot, seed=0, p=0.75, restricted=1), 100)
  counter = mcrnr.counter_profile(game, state)
  np.testing.assert_array_equal(np.asarray(counter[1]), np.asarray(bot[1]))  # the restricted seat is the model
  mixed = mcrnr.average_strategy(game, state)[1]
  assert float(jnp.min(jnp.where(bot[1] > 0, mixed, 1.0))) >= 0.75 - 1e-6  # pConf of the model's action at least


def test_outcome_sampling_regrets_are_unbiased_against_chance_sampling(game):
  """On one deal, at uniform play, the mean of outcome sampling's regret estimates at an
  infoset equals the exact counterfactual regret that chance-sampled CFR computes over the
  whole betting tree (Lanctot et al. 2009, Lemma 1): the two solvers check each other."""
  from jaxcfr.kits.card_abstraction import game as limit_holdem
  from jaxcfr.solvers import holdem_cfr

  deal = limit_holdem.sample_deals(jax.random.PRNGKey(3), 1)
  regrets = tuple(jnp.zeros((n, 3), jnp.float32) for n in game.num_infosets)
  exact = jax.jit(holdem_cfr.chance_sampled_update, static_argnums=0)(game, regrets, deal)
  buckets, sign = limit_holdem.deal_buckets(game, deal)[0], jax.jit(limit_holdem.showdown_sign)(deal)[0]
  order = list(np.concatenate(limit_holdem.decision_levels(game)))
  for player, history in ((1, "r"),):  # the opponent's reach (1/3) enters the exact regret
    position = order.index(game.tree.node(history))
    rows, regret_exact, _ = exact[player]
    row = int(rows[position, 0])
    estimate = jax.jit(
      jax.vmap(lambda k: holdem_cfr.trajectory_update(game, regrets, buckets, sign, k, player=player, epsilon=0.6)[0])
    )
    keys = jax.random.split(jax.random.PRNGKey(0), 40_000)
    hit_rows, increments = estimate(keys)
    mean = jnp.where((hit_rows == row)[..., None], increments, 0).sum((0, 1)) / keys.shape[0]
    np.testing.assert_allclose(np.asarray(mean), np.asarray(regret_exact[position, 0]), atol=0.03)
    assert float(jnp.abs(regret_exact[position, 0]).max()) > 0.05  # not trivially zero


def test_table_building_bars_follow_the_progress_setting(monkeypatch, capsys):
  """Not in redirected logs (no terminal here), not with --no-progress, drawn when asked; the
  setting reaches the builds as an argument of the command (progress.bars), not through the
  environment."""
  from jaxcfr.base import progress

  assert not holdem.building_bars()  # pytest's stderr is no terminal
  with progress.bars(True):
    assert holdem.building_bars()
    during = []
    run = cli._run
    monkeypatch.setattr(cli, "_run", lambda args: during.append(holdem.building_bars()) or run(args))
    assert cli.main(["solve", "kuhn_poker", "--iters", "1", "--no-progress"]) == 0
    assert during == [False]  # --no-progress reaches the game builds
    assert holdem.building_bars()  # for that command only
    assert cli.main(["solve", "kuhn_poker", "--iters", "1", "--progress"]) == 0
    assert during == [False, True]


def test_table_builds_print_lines_in_a_log(monkeypatch, capsys):
  """No terminal (a log): a plain line every few seconds and at the end, not a bar; none
  with progress bars off (--no-progress)."""
  from jaxcfr.base import progress

  assert progress.mode() == "lines"
  capsys.readouterr()
  assert list(progress.steps(range(3), desc="turn E[HS]", every=0.0)) == [0, 1, 2]
  lines = capsys.readouterr().err.splitlines()
  assert len(lines) == 3 and lines[-1].startswith("turn E[HS]: 3/3 (100%), ") and "\r" not in "".join(lines)
  assert list(progress.steps(iter(range(40)), desc="flop E[HS]")) == list(range(40))  # every 5 s: no line yet
  assert capsys.readouterr().err == ""
  with progress.bars(False):
    assert progress.mode() == "off"
    assert list(progress.steps(range(3), desc="turn E[HS]", every=0.0)) == [0, 1, 2]
  assert capsys.readouterr().err == ""


def test_node_features_count_the_bets_and_raises_along_the_betting(game):
  from jaxcfr.evaluate import holdem_model

  tree = game.tree
  features = holdem_model.node_features(game)
  for history in ("rc/rrc/r", "cc/cr", "rrrc/rrrrc/c", "c"):
    node = tree.node(history)
    rounds = history.split("/")
    # who raised: replay the actions through the tree, reading the acting player at each node
    by_player, at = [0, 0], 0
    for letter in history.replace("/", ""):
      action = "fcr".index(letter)
      by_player[tree.player[at]] += letter == "r"
      at = tree.child[at, action]
    assert at == node
    in_round = rounds[-1].count("r") if tree.round[node] == len(rounds) - 1 else 0
    expected = [history.count("r"), in_round, *by_player]
    np.testing.assert_array_equal(features[node], expected, err_msg=history)


def test_a_learned_model_recovers_a_constant_player_exactly_and_the_rule_bot_mostly(game):
  from jaxcfr.kits.card_abstraction import match as holdem_match
  from jaxcfr.evaluate import holdem_model

  uniform = holdem_match.uniform(game)
  calls = []  # the player who always calls (checks when free): one row for every infoset
  for p in (0, 1):
    legal = np.asarray(uniform[p]) > 0
    calls.append(jnp.asarray(np.where(legal[:, 1:2], np.eye(3)[1], legal / legal.sum(1, keepdims=True)), jnp.float32))
  calls = tuple(calls)
  key = jax.random.PRNGKey(5)
  observed = [
    (0, holdem_model.observe(game, (calls[0], uniform[1]), key, 300)),
    (1, holdem_model.observe(game, (uniform[0], calls[1]), jax.random.fold_in(key, 1), 300)),
  ]
  model = holdem_model.learn(game, observed)
  for p in (0, 1):
    np.testing.assert_allclose(np.asarray(model[p]), np.asarray(calls[p]), atol=1e-6)
  bot = holdem_match.rule_bot(game)
  observed = [
    (0, holdem_model.observe(game, (bot[0], uniform[1]), key, 400)),
    (1, holdem_model.observe(game, (uniform[0], bot[1]), jax.random.fold_in(key, 1), 400)),
  ]
  fit = holdem_model.agreement(game, holdem_model.learn(game, observed), bot, observed)
  chance = holdem_model.agreement(game, uniform, bot, observed)
  assert fit["most_likely_action_agrees_on_observed_decisions"] > 0.8
  assert fit["mean_total_variation_on_observed_decisions"] < chance["mean_total_variation_on_observed_decisions"] / 2
  with pytest.raises(ValueError, match="num_games must be positive"):
    holdem_model.observe(game, bot, key, 0)
  with pytest.raises(ValueError, match="the profile's tables must have shapes"):
    holdem_model.observe(game, (bot[0], bot[1][:5]), key, 10)
  with pytest.raises(ValueError, match="threshold must be >= 0"):
    holdem_model.learn(game, observed, threshold=-1.0)
  with pytest.raises(ValueError, match="give a list of"):
    holdem_model.learn(game, [])
