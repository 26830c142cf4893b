"""Game strings, as OpenSpiel writes them: ``name`` or ``name(key=value,...)``, parsed once.

>>> from jaxcfr.base.game_strings import parse_game_string, canonical_name
>>> parse_game_string("goofspiel(num_cards=4,imp_info=True)")
('goofspiel', {'num_cards': 4, 'imp_info': True})
>>> canonical_name("goofspiel", {"num_cards": 4, "imp_info": True})
'goofspiel(imp_info=True,num_cards=4)'
"""

from __future__ import annotations

import re

__all__ = ["UnknownGameError", "parse_game_string", "split_game_list", "canonical_name"]

_NAME = re.compile(r"^\s*([A-Za-z_][\w]*)\s*(?:\((.*)\))?\s*$", re.S)


class UnknownGameError(ValueError):
  """A game string that names no game, or cannot be parsed."""


def _parse_value(text: str):
  text = text.strip()
  if text in ("True", "true"):
    return True
  if text in ("False", "false"):
    return False
  for cast in (int, float):
    try:
      return cast(text)
    except ValueError:
      pass
  return text


def parse_game_string(game_string: str) -> tuple[str, dict]:
  """``"goofspiel(num_cards=4,imp_info=True)"`` -> ``("goofspiel", {"num_cards": 4, "imp_info": True})``."""
  match = _NAME.match(game_string)
  if not match:
    raise UnknownGameError(f"cannot parse game string {game_string!r}; expected name or name(key=value,...)")
  name, body = match.group(1), match.group(2)
  params = {}
  for item in filter(None, (body or "").split(",")):
    key, sep, value = item.partition("=")
    if not sep or not key.strip():
      raise UnknownGameError(f"bad parameter {item.strip()!r} in {game_string!r}; expected key=value")
    if key.strip() in params:
      raise UnknownGameError(f"parameter {key.strip()!r} is given twice in {game_string!r}")
    params[key.strip()] = _parse_value(value)
  return name, params


def split_game_list(text: str) -> list[str]:
  """Game strings from a comma-separated list, splitting only at commas outside
  parentheses: ``"kuhn_poker,goofspiel(num_cards=4,imp_info=True)"`` -> two games."""
  games, depth, start = [], 0, 0
  for i, char in enumerate(text + ","):
    depth += {"(": 1, ")": -1}.get(char, 0)
    if char == "," and depth == 0:
      if text[start:i].strip():
        games.append(text[start:i].strip())
      start = i + 1
  if depth != 0:
    raise UnknownGameError(f"unbalanced parentheses in the game list {text!r}")
  return games


def canonical_name(name: str, params: dict) -> str:
  """The game string with its parameters sorted by name (one string per game)."""
  if not params:
    return name
  return f"{name}({','.join(f'{k}={params[k]}' for k in sorted(params))})"
