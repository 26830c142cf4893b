"""Our side of benchmarks/poker_peer.py, run as a script in a fresh process for each solve:
it loads the spot file with ``jaxcfr.load``, compiles the iterations and the exploitability
before its clock starts, solves to 0.1% of the pot (or ``--max-iterations`` or
``--max-seconds``, checked at each exploitability check, as the peer does) and prints one JSON
line; with ``--check`` it prints the equality checks instead (our betting lines, the uniform
strategy's exploitability and value), and with ``--score-peer-strategy PATH`` the exploitability
of the peer's average strategy that the peer-bench harness dumped at PATH (``peer_profile``).

    python benchmarks/poker_peer_ours.py SPOT.json --algorithm dcfr-pfs --max-iterations 1000 --max-seconds 60
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

TARGETS = (0.5, 0.3, 0.1)  # % of the pot
EVERY = 10  # iterations between exploitability checks, as the peer's solve


def _action_word(tree, node: int, child: int) -> str:
  """The peer's ``lines_total`` word of the action from decision ``node`` to ``child``: Check,
  Call, Fold, Bet/Raise/AllIn X (X the actor's contribution after the action, its half of the
  pot included)."""
  p, before, after = tree.player[node], tree.contribution[node], tree.contribution[child]
  if after[p] == before[p]:
    return "Check" if before[0] == before[1] else "Fold"
  if after[p] == before[1 - p] and before[0] != before[1]:
    return "Call"
  name = "AllIn" if after[p] == tree.rules.stack else ("Bet" if before[0] == before[1] else "Raise")
  return f"{name} {after[p]}"


def our_lines(tree) -> list:
  """Our public tree's betting lines in the peer's ``lines_total`` words (``_action_word``),
  Deal through a chance node (its first deal: the betting below is the same for every card); a
  line ends at every terminal and chance node, and a chance node that deals only to showdowns
  (all-ins called before the river) ends its line as the peer's terminal."""
  from jaxcfr.kits.public_tree import tree as pt  # pylint: disable=import-outside-toplevel

  lines = []

  def walk(node, line):
    if tree.kind[node] != pt.DECISION:
      lines.append("/".join(line))
      child = tree.first_child[node]
      if tree.kind[node] == pt.CHANCE and tree.kind[child] in (pt.DECISION, pt.CHANCE):
        walk(child, line + ["Deal"])
      return
    for child in range(tree.first_child[node], tree.first_child[node] + tree.num_children[node]):
      walk(child, line + [_action_word(tree, node, child)])

  walk(0, [])
  return lines


def decision_lines(tree) -> dict:
  """{decision node: its line}: the words of ``our_lines``, each dealt card named ``Deal C``
  (C our card id), as the peer-bench harness names the nodes of its dumped strategy."""
  import numpy as np  # pylint: disable=import-outside-toplevel

  from jaxcfr.kits.public_tree import tree as pt  # pylint: disable=import-outside-toplevel

  lines, stack = {}, [(0, "")]
  cards = lambda node: set(np.asarray(tree.boards[tree.board[node]]).tolist()) - {-1}
  while stack:
    node, line = stack.pop()
    children = range(tree.first_child[node], tree.first_child[node] + tree.num_children[node])
    join = lambda word: f"{line}/{word}" if line else word  # noqa: B023
    if tree.kind[node] == pt.DECISION:
      lines[node] = line
      stack += [(child, join(_action_word(tree, node, child))) for child in children]
    elif tree.kind[node] == pt.CHANCE:
      stack += [(child, join(f"Deal {(cards(child) - cards(node)).pop()}")) for child in children]
  return lines


def peer_profile(game, path: str) -> tuple:
  """([N_0, A, H], [N_1, A, H]) float32: the peer's average strategy that the peer-bench
  harness dumped (``dump_strategy``: ``path`` the rows, ``path.json`` the index), on our tree,
  each node found by its line (``decision_lines``) and each hand by its cards; uniform on the
  hands outside the player's range (no reach, no effect on any value). ValueError if a node of
  ours is missing or differs in its player or actions, or if the file is not the index's size."""
  import numpy as np  # pylint: disable=import-outside-toplevel

  from jaxcfr.kits.public_tree import values  # pylint: disable=import-outside-toplevel

  index = json.loads(Path(f"{path}.json").read_text())
  rows = np.fromfile(path, "<f4")
  if rows.size != index["floats"]:
    raise ValueError(f"{path}: {rows.size} floats, its index says {index['floats']}")
  tree, nodes = game.tree, {entry["line"]: entry for entry in index["nodes"]}
  # our deck order of the hand {lo < hi}: lo (101 - lo) / 2 + hi - 1 (2s2h, 2s2d, ..., AdAc)
  deck = {lo * (101 - lo) // 2 + hi - 1: h for h, (lo, hi) in enumerate(np.sort(np.asarray(tree.hands), 1).tolist())}
  lines, profile = decision_lines(tree), []
  for p, uniform in enumerate(values.uniform_profile(game.tensors)):
    strategy = np.array(uniform, np.float32)
    hands = [deck.get(h, -1) for h in index["hands"][p]]
    if min(hands, default=0) < 0:
      raise ValueError(f"{path}: player {p} holds a hand that our tree lacks")
    for k, node in enumerate(tree.decision_nodes(p)):
      entry = nodes.get(lines[node])
      if entry is None or entry["player"] != p or entry["actions"] != tree.num_children[node]:
        raise ValueError(f"{path}: our decision node {node} ({lines[node]!r}, player {p}) is not in the peer's")
      count = entry["actions"] * len(hands)
      strategy[k, : entry["actions"]][:, hands] = rows[entry["offset"] : entry["offset"] + count].reshape(
        -1, len(hands)
      )
    profile.append(strategy)
  return tuple(profile)


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
  spot_file: str,
  algorithm: str,
  max_iterations: int,
  max_seconds: float,
  check: bool,
  hands: str,
  storage: str,
  score: str | None = None,
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
  if score:
    profile = tuple(jax.numpy.asarray(x, tree.dtype) for x in peer_profile(game, score))
    peer = json.loads(Path(f"{score}.json").read_text())
    print(
      json.dumps(
        {
          "exploitability_chips": float(light_jit(values.exploitability)(tree, profile)),
          "peer_exploitability_chips": peer["exploitability_after_finalize_chips"],
          "decision_nodes": len(peer["nodes"]),
        }
      )
    )
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
  parser.add_argument("--score-peer-strategy", help="the peer's dumped average strategy, to score")
  args = parser.parse_args(argv)
  child(
    args.spot,
    args.algorithm,
    args.max_iterations,
    args.max_seconds,
    args.check,
    args.hands,
    args.storage,
    args.score_peer_strategy,
  )


if __name__ == "__main__":
  run_child()
