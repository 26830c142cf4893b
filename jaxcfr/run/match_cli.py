"""``jaxcfr match``: a head-to-head crosstable of strategy files, exact (seats alternated) on
any kit that declares an exact expected value (``Kit.expected_value``), and sampled games on
the sequence form. Its settings are declared once (jaxcfr.run.flags)."""

from __future__ import annotations

import functools
import time

from jaxcfr import kits
from jaxcfr.base.params import Param
from jaxcfr.run import common_flags, outputs
from jaxcfr.run.flags import Command, Flag

__all__ = ["commands", "crosstable", "MAX_SAMPLED_GAMES"]

MAX_SAMPLED_GAMES = 10**7  # match --games: the games of a pair are played at once, in memory


def _agents(game, spec: str) -> tuple[list, list]:
  """(names, profiles) of the comma-separated agent files (a batched file: one agent per run)."""
  import numpy as np  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits.strategy_files import load_runs  # pylint: disable=import-outside-toplevel

  names, profiles = [], []
  for item in (s.strip() for s in spec.split(",")):
    if item == "uniform":
      names.append(item)
      profiles.append(tuple(np.asarray(s) for s in kits.of_game(game).uniform_profile(game.tensors)))
      continue
    runs = load_runs(item, game)
    names.extend([item] if len(runs) == 1 else [f"{item}[{b}]" for b in range(len(runs))])
    profiles.extend(runs)
  if len(profiles) < 2:
    raise ValueError(f"--agents needs at least two agents, got {len(profiles)}")
  return names, profiles


@functools.cache
def _pairs(expected_value):
  """A jitted ``(tensors, stacked0, stacked1) -> [N, N]`` of ``expected_value`` (a kit's) over
  every pair of the N stacked agents (their last axis), seats alternated."""
  import jax  # pylint: disable=import-outside-toplevel
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel

  @jax.jit
  def pairs(tensors, stacked0, stacked1):
    num = stacked0.shape[-1]
    rows, cols = (x.reshape(-1) for x in jnp.meshgrid(jnp.arange(num), jnp.arange(num), indexing="ij"))
    a_first = expected_value(tensors, (stacked0[..., rows], stacked1[..., cols]))
    b_first = expected_value(tensors, (stacked0[..., cols], stacked1[..., rows]))
    return ((a_first - b_first) / 2).reshape(num, num)

  return pairs


def crosstable(game, agents):
  """[N, N] the row agent's exact expected value against the column agent, seats alternated
  (``(u0(a0, b1) - u0(b0, a1)) / 2``), by ``game``'s kit's ``expected_value``, all pairs in one
  batched evaluation. ``agents``: N profiles of the kit's strategies."""
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel
  import numpy as np  # pylint: disable=import-outside-toplevel

  tensors = game.tensors
  stacked = [jnp.stack([jnp.asarray(agent[p], tensors.dtype) for agent in agents], -1) for p in (0, 1)]
  return np.asarray(_pairs(kits.of_game(game).expected_value)(tensors, *stacked))


def _match(settings) -> int:
  started = time.perf_counter()
  representation = kits.representation_of(settings.game, settings.representation)
  kit = kits.get(representation)
  if kit.expected_value is None:
    raise ValueError(
      f"match plays exact crosstables; {settings.game}'s {representation} representation has no exact expected "
      "value (its strategies are scored by 'jaxcfr solve')"
    )
  if settings.games and representation != "sequence_form":
    raise ValueError(
      f"--games plays sampled games on the sequence form; {settings.game} is loaded on the {representation} "
      "(--representation sequence_form where the game has one: public-tree strategy files are read onto it)"
    )
  common_flags.use_dtype(settings.dtype)
  import jax  # pylint: disable=import-outside-toplevel

  from jaxcfr.evaluate import head_to_head  # pylint: disable=import-outside-toplevel

  game = kits.load(settings.game, dtype=settings.dtype, representation=representation)
  names, profiles = _agents(game, settings.agents)
  table = crosstable(game, profiles)
  poker = head_to_head.is_poker(game)
  unit, scale = head_to_head.table_unit(game)
  print(f"game {game.name}: row agent's exact expected value against the column agent, seats alternated ({unit})")
  corner = "row / column"
  width = max(len(corner), *(len(n) for n in names))
  column = max(10, *(len(n) for n in names))
  print(f"{corner:<{width}} " + " ".join(f"{n:>{column}}" for n in names))
  for i, name in enumerate(names):
    print(f"{name:<{width}} " + " ".join(f"{scale * v:>{column}.3f}" for v in table[i]))
  record = {"game": game.name, "representation": representation, "agents": names, "unit": unit}
  record["crosstable"] = table.tolist()
  if poker:  # e.g. crosstable_milli_chips_per_hand
    record[f"crosstable_{unit.replace('-', '_').replace(' ', '_')}"] = (scale * table).tolist()
  if settings.games:
    key = jax.random.PRNGKey(settings.seed)
    sampled = []
    for i in range(len(names)):
      for j in range(i + 1, len(names)):
        key, sub = jax.random.split(key)
        row = head_to_head.sampled_match(game.tensors, profiles[i], profiles[j], sub, settings.games)
        sampled.append({"row": names[i], "column": names[j], "exact": float(table[i, j]), **row})
        print(
          f"sampled {names[i]} vs {names[j]}: {scale * row['mean']:.3f} +- {scale * row['half_width']:.3f} "
          f"(95%, {row['games']} games; exact {scale * table[i, j]:.3f})"
        )
    record["sampled"] = sampled
  if settings.json:
    outputs.write_json(settings.json, outputs.described(record, settings.argv, started=started))
  return 0


def commands() -> tuple[Command, ...]:
  """``match``, with its declared settings and handler."""
  match = Command(
    "match",
    "head-to-head crosstable of strategy files (exact, seats alternated)",
    {
      "": (
        common_flags.game("kuhn_poker"),
        Flag(
          Param(
            "agents",
            str,
            None,
            "comma-separated strategy files written by 'solve --strategy-out' (a batched file gives "
            "one agent per run; FILE#K only its run K), or 'uniform'",
          ),
          required=True,
        ),
        common_flags.REPRESENTATION,
        Flag(
          Param(
            "games",
            int,
            0,
            "also play this many sampled games per pair (half in each seat, all at once in memory), with 95% "
            "intervals (the sequence form)",
            low=0,
            high=MAX_SAMPLED_GAMES,
          )
        ),
        Flag(Param("seed", int, 0, "PRNG seed of the sampled games", low=0, high=2**32 - 1)),
        common_flags.DTYPE,
        Flag(Param("json", str, None, "write the crosstable as JSON"), metavar="FILE", output=True),
      )
    },
    _match,
  )
  return (match,)
