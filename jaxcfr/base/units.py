"""Results in the units poker players read, computed once for every game and kit from what
the game declares (``GameInfo.big_blind``, ``GameInfo.pot``)."""

from __future__ import annotations

from jaxcfr.games import GameInfo

__all__ = ["mbb_per_game", "pot_percent", "exploitability_units"]


def mbb_per_game(chips, info: GameInfo):
  """``chips`` per game in milli-big-blinds per game (mbb/g), or None when the game declares
  no big blind."""
  return None if not info.big_blind else chips * (1000.0 / info.big_blind)


def pot_percent(chips, info: GameInfo):
  """``chips`` as a percentage of the pot at the root of a subgame, or None when the game
  declares no pot."""
  return None if not info.pot else chips * (100.0 / info.pot)


def exploitability_units(exploitability, info: GameInfo) -> dict:
  """``exploitability_mbb`` and ``exploitability_pot_percent`` of an exploitability in chips,
  where the game declares a big blind and a pot."""
  out = {}
  if info.big_blind:
    out["exploitability_mbb"] = mbb_per_game(exploitability, info)
  if info.pot:
    out["exploitability_pot_percent"] = pot_percent(exploitability, info)
  return out
