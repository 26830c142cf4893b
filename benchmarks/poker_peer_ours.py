"""Our side of benchmarks/poker_peer.py, run as a script in a fresh process for each solve:
it loads the spot file with ``jaxcfr.load``, compiles the iterations and the exploitability
before its clock starts, solves to 0.1% of the pot (or ``--max-iterations`` or
``--max-seconds``, checked at each exploitability check, as the peer does) and prints one JSON
line; with ``--check`` it prints the equality checks instead (our betting lines, the uniform
strategy's exploitability and value).

    python benchmarks/poker_peer_ours.py SPOT.json --algorithm dcfr-pfs --max-iterations 1000 --max-seconds 60
"""

from __future__ import annotations

import argparse
import json
import os
import time

TARGETS = (0.5, 0.3, 0.1)  # % of the pot
EVERY = 10  # iterations between exploitability checks, as the peer's solve


def our_lines(tree) -> list:
  """Our public tree's betting lines in the peer's ``lines_total`` words: Check, Call, Fold,
  Bet/Raise/AllIn X (X the actor's contribution after the action, its half of the pot
  included), Deal through a chance node (its first deal: the betting below is the same for
  every card); a line ends at every terminal and chance node, and a chance node that deals
  only to showdowns (all-ins called before the river) ends its line as the peer's terminal."""
  import numpy as np  # pylint: disable=import-outside-toplevel

  from jaxcfr.kits.public_tree import tree as pt  # pylint: disable=import-outside-toplevel

  kind, contribution, stack = np.asarray(tree.kind), np.asarray(tree.contribution), tree.rules.stack
  first, count, player = np.asarray(tree.first_child), np.asarray(tree.num_children), np.asarray(tree.player)
  lines = []

  def walk(node, line):
    if kind[node] != pt.DECISION:
      lines.append("/".join(line))
      child = first[node]
      if kind[node] == pt.CHANCE and kind[child] in (pt.DECISION, pt.CHANCE):
        walk(child, line + ["Deal"])
      return
    p, before = player[node], contribution[node]
    for child in range(first[node], first[node] + count[node]):
      after = contribution[child]
      if after[p] == before[p]:
        word = "Check" if before[0] == before[1] else "Fold"
      elif after[p] == before[1 - p] and before[0] != before[1]:
        word = "Call"
      else:
        name = "AllIn" if after[p] == stack else ("Bet" if before[0] == before[1] else "Raise")
        word = f"{name} {after[p]}"
      walk(child, line + [word])

  walk(0, [])
  return lines


def root_strategy(game, strategy) -> dict:
  """OOP's root actions (the peer's words), its frequencies weighted as the peer's GUIs weigh
  them (each hand's range weight times the opponent's weight on compatible hands), and the
  strategy per hand [1326, A] (float32 lists)."""
  import numpy as np  # pylint: disable=import-outside-toplevel

  from jaxcfr.kits.public_tree import values  # pylint: disable=import-outside-toplevel

  tree = game.tensors
  first, count = int(game.tree.first_child[0]), int(game.tree.num_children[0])
  words = [line.split("/")[0] for line in our_lines(game.tree)]
  actions = list(dict.fromkeys(words))[:count]
  root = np.asarray(strategy[0])[:count].T  # [H, A]
  weights = np.asarray(tree.initial_range[0] * values.compatible_reach(tree, tree.initial_range[1][None])[0])
  del first
  return {
    "actions": actions,
    "frequencies": (weights @ root / weights.sum()).tolist(),
    "strategy": game.tree.on_deck(root).tolist(),  # [1326, A]: zero on the hands out of play
  }


def child(
  spot_file: str, algorithm: str, max_iterations: int, max_seconds: float, check: bool, hands: str, storage: str
) -> None:
  """One solve in this process (``--child``): prints one JSON line with absolute event times
  (time.time(): the parent subtracts the process's start), the trajectory and the targets."""
  import jax  # pylint: disable=import-outside-toplevel

  import jaxcfr  # pylint: disable=import-outside-toplevel
  from jaxcfr import solvers  # pylint: disable=import-outside-toplevel
  from jaxcfr.base.light_jit import light_jit  # pylint: disable=import-outside-toplevel
  from jaxcfr.kits.public_tree import values  # pylint: disable=import-outside-toplevel

  events = {"imported": time.time()}
  game = jaxcfr.load(f"hunl_subgame(spot={spot_file},hands={hands})", representation="public_tree")
  tree = jax.block_until_ready(game.tensors)
  pot = float(game.info.pot) if getattr(game.info, "pot", None) else float(game.tree.rules.pot)
  events["built"] = time.time()
  if check:
    print(json.dumps(checks(game, pot)))
    return
  solver = solvers.get(algorithm, "public_tree", storage=storage)
  state = solver.init(tree)
  # compiled as the library compiles its evaluations (light_jit), by a first call
  exploitability = light_jit(lambda t, s: values.exploitability(t, solver.average_strategy(t, s)))
  jax.block_until_ready(exploitability(tree, state))
  state = jax.block_until_ready(solver.run(tree, state, 0))  # compiles the iterations (a traced count)
  events["solve_started"] = time.time()
  clock = time.perf_counter()
  trajectory, reached, iterating = [], {}, 0.0
  done, value = 0, float(exploitability(tree, state))
  while True:
    seconds = time.perf_counter() - clock
    trajectory.append([done, seconds, value])
    for target in TARGETS:
      if target not in reached and value <= pot * target / 100:
        reached[target] = {"pot_percent": target, "seconds": seconds, "iterations": done, "exploitability_chips": value}
    if value <= pot * min(TARGETS) / 100 or done >= max_iterations or (done and seconds >= max_seconds):
      break
    if not done:
      events["first_iteration"] = time.time()
    start = time.perf_counter()
    state = jax.block_until_ready(solver.run(tree, state, EVERY))
    iterating += time.perf_counter() - start
    done += EVERY
    value = float(exploitability(tree, state))
  average = jax.block_until_ready(solver.average_strategy(tree, state))
  events["answer"] = time.time()
  peak_at_answer = _high_water_mark()
  print(
    json.dumps(
      {
        "algorithm": algorithm,
        "events": events,
        "pot": pot,
        "iterations": done,
        "seconds_solve": time.perf_counter() - clock,
        "seconds_per_iteration": iterating / done if done else None,
        "targets": [reached.get(t) for t in TARGETS],
        "final_exploitability_chips": value,
        "trajectory": trajectory,
        "statistics": game.statistics(),
        "final_ev_oop": float(values.expected_value(tree, average)),
        "root": root_strategy(game, average[0]),
        "peak_rss_at_answer_bytes": peak_at_answer,
        "load_average": os.getloadavg()[0],
      }
    )
  )


def _high_water_mark() -> int | None:
  """This process's peak resident memory so far (bytes; /proc's VmHWM), or None."""
  try:
    with open("/proc/self/status", encoding="ascii") as status:
      fields = dict(line.split(":", 1) for line in status)
    return int(fields["VmHWM"].split()[0]) * 1024
  except (OSError, KeyError, ValueError):
    return None


def checks(game, pot: float) -> dict:
  """Our side of the equality checks: the betting lines, and the uniform strategy's
  exploitability (chips) and player 0's expected value (chips won per deal, zero-sum)."""
  import jax  # pylint: disable=import-outside-toplevel

  from jaxcfr.kits.public_tree import values  # pylint: disable=import-outside-toplevel

  tree = game.tensors
  uniform = values.uniform_profile(tree)
  return {
    "lines_total": our_lines(game.tree),
    "uniform_exploitability_chips": float(jax.jit(values.exploitability)(tree, uniform)),
    "uniform_ev_oop": float(jax.jit(values.expected_value)(tree, uniform)),
    "pot": pot,
    "statistics": game.statistics(),
  }


def run_child(argv: list[str] | None = None) -> None:
  """The command line above."""
  parser = argparse.ArgumentParser(prog="poker_peer_ours.py", description=__doc__.splitlines()[0])
  parser.add_argument("spot")
  parser.add_argument("--algorithm", required=True)
  parser.add_argument("--max-iterations", type=int, required=True)
  parser.add_argument("--max-seconds", type=float, required=True)
  parser.add_argument("--check", action="store_true")
  parser.add_argument("--hands", default="in_play")
  parser.add_argument("--storage", default="float")
  args = parser.parse_args(argv)
  child(args.spot, args.algorithm, args.max_iterations, args.max_seconds, args.check, args.hands, args.storage)


if __name__ == "__main__":
  run_child()
