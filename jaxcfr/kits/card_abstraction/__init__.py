"""The card-abstraction kit: limit hold'em with hand-strength buckets, played by sampling deals
(no tensors of the whole game exist: solvers sample it, and strategies are scored by
duplicate matches against a rule bot).

- ``hand_eval``: a vectorised 7-card evaluator; ``hand_strength``: exact E[HS] by
  enumeration with tables over the boards up to suit symmetry;
- ``game``: deals, betting, the abstraction and the one walk of the betting tree in JAX
  (``HoldemGame``, ``make``);
- ``match``, ``evaluator``, ``strategy_file``, ``checks``: matches and the rule bot, the
  kit's metrics, its files and its conformance check.
"""

from jaxcfr.base import cache
from jaxcfr.kits.card_abstraction import checks, evaluator, match, strategy_file
from jaxcfr.kits.card_abstraction.game import NAME, HoldemGame, make
from jaxcfr.kits.registry import GameSource, Kit

__all__ = ["NAME", "KIT", "HoldemGame", "make", "load"]


def load(source: GameSource, *, dtype=None, use_cache: bool = True) -> HoldemGame:
  """The kit's loader: the abstraction of ``source``'s rules (jaxcfr.games.limit_holdem), its
  tables read from the game cache when intact (``dtype``: the tables are float32)."""
  del dtype
  return make(**source.rules.params, cache=str(cache.cache_dir()) if use_cache else None)


KIT = Kit(
  name=NAME,
  summary="limit hold'em's card abstraction played by sampling deals: sampled solvers, scored by matches",
  load=load,
  tensors_type=HoldemGame,
  evaluator=evaluator.evaluator,
  save_strategy=strategy_file.save,
  load_strategy=strategy_file.load,
  check_game=checks.check_game,
  check_profile=strategy_file.check_profile,
  uniform_profile=match.uniform,
  example="limit_holdem(buckets=3,rollouts=4)",
  default_model=match.rule_bot,
)
