"""Bad input gets a clear error that names the problem."""

from __future__ import annotations

import math

import pytest

from jaxcfr import games
import jaxcfr
from jaxcfr.games._base import CHANCE, TERMINAL, State
from jaxcfr.base.game_strings import parse_game_string
from jaxcfr.kits.sequence_form.build import GameBuildError, build_from_protocol


# --- game strings and parameters ------------------------------------------------------------


@pytest.mark.parametrize("game_string", ["no_such_game", "no_such_game(num_cards=3)", "openspiel:no_such_game"])
def test_unknown_game(game_string):
  with pytest.raises(jaxcfr.UnknownGameError, match="'no_such_game'"):
    jaxcfr.load(game_string)


def test_unknown_game_lists_the_native_games():
  with pytest.raises(jaxcfr.UnknownGameError, match="leduc_poker"):
    jaxcfr.load("leduk_poker")


@pytest.mark.parametrize(
  "game_string, message",
  [
    ("one_card_poker(num_cards=1)", "parameter num_cards must be >= 2, got 1"),
    ("one_card_poker(num_cards=x)", "parameter num_cards must be an integer, got 'x'"),
    ("one_card_poker(num_cards=2.5)", "parameter num_cards must be an integer, got 2.5"),
    ("one_card_poker(num_cards=True)", "parameter num_cards must be an integer, got True"),
    ("coin_toss(sell_value=nan)", "parameter sell_value must be a finite number, got nan"),
    ("coin_toss(sell_value=abc)", "parameter sell_value must be a finite number, got 'abc'"),
  ],
)
def test_bad_parameter_value(game_string, message):
  with pytest.raises(games.GameError) as info:
    jaxcfr.load(game_string, use_cache=False)
  assert message in str(info.value)


@pytest.mark.parametrize(
  "game_string, unknown, allowed",
  [
    ("one_card_poker(foo=1)", "['foo']", "['num_cards']"),
    ("kuhn_poker(num_cards=4)", "['num_cards']", "[]"),
    ("leduc_poker(players=3)", "['players']", "[]"),
  ],
)
def test_unknown_parameter(game_string, unknown, allowed):
  with pytest.raises(games.GameError) as info:
    jaxcfr.load(game_string, use_cache=False)
  name = game_string.split("(")[0]
  assert f"unknown parameter for {name}: {unknown}; its parameters are {allowed}" == str(info.value)


@pytest.mark.parametrize(
  "game_string, message",
  [
    ("kuhn_poker(", "cannot parse game string 'kuhn_poker('"),
    ("3card", "cannot parse game string '3card'"),
    ("one_card_poker(num_cards)", "bad parameter 'num_cards' in 'one_card_poker(num_cards)'; expected key=value"),
  ],
)
def test_unparseable_game_string(game_string, message):
  with pytest.raises(jaxcfr.UnknownGameError) as info:
    jaxcfr.load(game_string)
  assert message in str(info.value)


def test_parse_game_string():
  assert parse_game_string("goofspiel(num_cards=4,imp_info=True,points_order=descending)") == (
    "goofspiel",
    {"num_cards": 4, "imp_info": True, "points_order": "descending"},
  )
  assert parse_game_string(" coin_toss( sell_value = -0.5 ) ") == ("coin_toss", {"sell_value": -0.5})
  assert parse_game_string("rps") == ("rps", {})


def test_split_game_list():
  from jaxcfr.base.game_strings import split_game_list  # pylint: disable=import-outside-toplevel

  assert split_game_list("kuhn_poker, princess_and_monster(rows=3,cols=3,horizon=5),rps,") == [
    "kuhn_poker",
    "princess_and_monster(rows=3,cols=3,horizon=5)",
    "rps",
  ]
  with pytest.raises(jaxcfr.UnknownGameError, match="unbalanced"):
    split_game_list("goofspiel(num_cards=4,rps")


# --- OpenSpiel games jaxcfr cannot solve ----------------------------------------------------


@pytest.mark.parametrize(
  "game_string, message",
  [
    ("openspiel:kuhn_poker(players=3)", "kuhn_poker(players=3) has 3 players; jaxcfr solves two-player games"),
    ("openspiel:matrix_pd", "matrix_pd is not zero-sum"),
    ("openspiel:tiny_hanabi", "tiny_hanabi is not zero-sum"),
  ],
)
def test_openspiel_game_rejected(game_string, message):
  with pytest.raises(GameBuildError) as info:
    jaxcfr.load(game_string, use_cache=False)
  assert message in str(info.value)


def test_openspiel_bad_parameter():
  with pytest.raises(ValueError, match="Unknown parameter 'foo'"):
    jaxcfr.load("openspiel:kuhn_poker(foo=1)", use_cache=False)


# --- rules that break the sequence form, as tiny protocol games -----------------------------


class TinyState(State):
  """A protocol state driven by a rules object with functions of the move tuple."""

  def __init__(self, rules, moves=()):
    self.rules, self.moves = rules, moves

  def current_player(self):
    return self.rules.player(self.moves)

  def legal_actions(self):
    return self.rules.actions(self.moves)

  def chance_outcomes(self):
    return self.rules.chance(self.moves)

  def child(self, action):
    return TinyState(self.rules, self.moves + (action,))

  def returns(self):
    return self.rules.returns(self.moves)

  def information_state_string(self, player):
    return self.rules.key(self.moves, player)


class CoinThenGuess:
  """Chance flips a coin (0/1); player 0 sees it and passes or bets; player 1 guesses the
  coin after a bet. A well-formed game that each test below breaks in one place."""

  def player(self, moves):
    if not moves:
      return CHANCE
    if len(moves) == 1:
      return 0
    if moves[1] == 0 or len(moves) == 3:
      return TERMINAL
    return 1

  def actions(self, moves):
    return [0, 1]

  def chance(self, moves):
    return [(0, 0.5), (1, 0.5)]

  def returns(self, moves):
    u0 = 1.0 if moves[1] == 0 else (2.0 if moves[2] != moves[0] else -2.0)
    return [u0, -u0]

  def key(self, moves, player):
    return f"coin{moves[0]}" if player == 0 else "bet"


def build(rules, name="tiny"):
  return build_from_protocol(TinyState(rules), name)


def test_tiny_game_builds():
  arrays = build(CoinThenGuess())
  assert arrays.num_histories == 1 + 2 + 4 + 4
  assert [p.num_infosets for p in arrays.players] == [2, 1]


def test_chance_probabilities_not_summing_to_one():
  class Rules(CoinThenGuess):
    def chance(self, moves):
      return [(0, 0.5), (1, 0.4)]

  with pytest.raises(GameBuildError) as info:
    build(Rules())
  message = str(info.value)
  assert "chance probabilities" in message and "sum to 0.9" in message and "not 1" in message
  assert "tiny" in message


@pytest.mark.parametrize("probs", [(1.5, -0.5), (1.0, 0.0), (math.nan, 0.5)])
def test_chance_probability_not_positive(probs):
  class Rules(CoinThenGuess):
    def chance(self, moves):
      return list(zip((0, 1), probs))

  with pytest.raises(GameBuildError, match="not positive and finite"):
    build(Rules())


def test_chance_node_without_outcomes():
  class Rules(CoinThenGuess):
    def chance(self, moves):
      return []

  with pytest.raises(GameBuildError, match="has no outcomes"):
    build(Rules())


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_non_finite_utility(bad):
  class Rules(CoinThenGuess):
    def returns(self, moves):
      if moves == (1, 1, 0):
        return [bad, -bad]
      return super().returns(moves)

  with pytest.raises(GameBuildError) as info:
    build(Rules())
  message = str(info.value)
  assert "not finite (NaN or inf)" in message
  assert "[1 1 0]" in message  # the path of the offending terminal


def test_not_zero_sum():
  class Rules(CoinThenGuess):
    def returns(self, moves):
      u0, _ = super().returns(moves)
      return [u0, 0.0]

  with pytest.raises(GameBuildError, match="is not zero-sum"):
    build(Rules())


def test_three_players():
  class Rules(CoinThenGuess):
    def returns(self, moves):
      return [0.0, 0.0, 0.0]

  with pytest.raises(GameBuildError, match="returns 3 utilities; jaxcfr needs two players"):
    build(Rules())

  class ThirdPlayer(CoinThenGuess):
    def player(self, moves):
      return 2 if len(moves) == 2 and moves[1] == 1 else super().player(moves)

  with pytest.raises(GameBuildError, match="current_player\\(\\) returned 2"):
    build(ThirdPlayer())


def test_imperfect_recall_forgetting_own_action():
  """Player 1 guesses, then guesses again without remembering the first guess."""

  class Rules(CoinThenGuess):
    def player(self, moves):
      if len(moves) == 3:
        return 1
      if len(moves) == 4:
        return TERMINAL
      return super().player(moves)

    def returns(self, moves):
      return [1.0, -1.0] if moves[1] == 0 else [float(moves[3] - moves[2]), float(moves[2] - moves[3])]

    def key(self, moves, player):
      return "again" if len(moves) == 3 else super().key(moves, player)

  with pytest.raises(GameBuildError) as info:
    build(Rules())
  message = str(info.value)
  assert "imperfect recall" in message and "'again'" in message and "player 1" in message


def test_imperfect_recall_forgetting_an_observation():
  """Player 0 sees the coin, bets, then acts again in one infoset for both coins: the same
  own action labels, but after different own infosets (coin0 vs coin1)."""

  class Rules(CoinThenGuess):
    def player(self, moves):
      if len(moves) == 2 and moves[1] == 1:
        return 0
      if len(moves) == 3:
        return TERMINAL
      return super().player(moves)

    def returns(self, moves):
      u0 = float(moves[0] == moves[-1])
      return [u0, -u0]

    def key(self, moves, player):
      return "forgot the coin" if len(moves) == 2 else super().key(moves, player)

  with pytest.raises(GameBuildError) as info:
    build(Rules())
  assert "imperfect recall" in str(info.value) and "'forgot the coin'" in str(info.value)


def test_infoset_with_different_legal_actions():
  class Rules(CoinThenGuess):
    def actions(self, moves):
      return [0, 1, 2] if moves == (1,) else [0, 1]

    def key(self, moves, player):
      return "same" if player == 0 else "bet"

    def returns(self, moves):
      return [1.0, -1.0] if moves[1] != 1 else super().returns(moves)

    def player(self, moves):
      if len(moves) == 2 and moves[1] == 2:
        return TERMINAL
      return super().player(moves)

  with pytest.raises(GameBuildError) as info:
    build(Rules())
  assert "'same'" in str(info.value) and "different legal actions" in str(info.value)


def test_too_many_histories():
  with pytest.raises(GameBuildError, match="more than 5 histories"):
    build_from_protocol(TinyState(CoinThenGuess()), "tiny", max_histories=5)
