"""The card abstraction's conformance check of a loaded game: its betting tree and tables agree,
the uniform profile and the rule bot are valid profiles, and a match between them gives a
finite result."""

from __future__ import annotations

import jax
import numpy as np

from jaxcfr.kits.card_abstraction import match
from jaxcfr.kits.card_abstraction.strategy_file import check_profile

__all__ = ["check_game"]


def check_game(game) -> None:
  """AssertionError (or ValueError) naming what failed."""
  tree = game.tree
  decisions = [int((tree.player == p).sum()) for p in (0, 1)]
  assert tuple(game.num_infosets) == tuple(d * game.buckets for d in decisions), f"{game.name}: infoset counts"
  assert game.cuts.shape == (4, game.buckets - 1), f"{game.name}: cuts {game.cuts.shape}"
  uniform, bot = match.uniform(game), match.rule_bot(game)
  check_profile(game, uniform)
  check_profile(game, bot)
  result = match.match(game, uniform, bot, jax.random.PRNGKey(0), 16)
  assert np.isfinite(result["sb_per_hand"]), f"{game.name}: a match gave {result}"
