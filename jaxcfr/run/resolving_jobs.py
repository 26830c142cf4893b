"""Depth-limited solving (DeepStack's method, docs/resolving.md) as jobs of the driver
(jaxcfr.run.jobs.run_job): each has the progress bar, the checkpoints and resume, and the one
record (``SolveResult``) that ``solve`` has.

- ``ContinualResolving``: the continual re-solving agent's strategy in both seats
  (``resolving.agent_strategy`` on the game's public tree, built once), scored exactly by the
  kit's best responses, in chips and in mbb/g where the game declares its big blind
  (jaxcfr.base.units). A part per seat.
- ``ValueData``: solved situations for a value network (jaxcfr.solvers.value_data). A part per
  chunk of situations solved as one program.
- ``ValueTrain``: a value network trained on them (``value_network.Trainer``). A part per
  chunk of ``value_network.CHUNK`` steps.

Each part is a function of the job's state before it, so a resumed job equals one that ran
through. A checkpoint stores the state (the strategies, the values solved so far, the weights
and the optimizer's state) and is refused by a job of other settings.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from jaxcfr import kits
from jaxcfr.base import integrity, units
from jaxcfr.solvers import lookahead, resolving, value_data, value_network

__all__ = ["ContinualResolving", "ValueData", "ValueTrain", "LEAVES", "leaf_values_of"]

LEAVES = ("exact", "warm")
"""The leaf values computed by solving (the others are value networks' files)."""


def _digest(*arrays) -> str:
  return integrity.digest({str(i): np.asarray(a) for i, a in enumerate(arrays)})


def _identity_of(job) -> dict:
  """What a checkpoint of ``job`` must match: the game, the algorithm, the iterations, the options."""
  return {"game": job.game, "algorithm": job.algorithm, "iterations": job.iterations, **job.options}


def leaf_values_of(leaf: str, networks: tuple, leaf_iters: int):
  """The ``resolving.LeafValuesOf`` of a leaf setting: "exact" (solved afresh at every call),
  "warm" (warm-started solves) with ``leaf_iters`` iterations, or the mean of ``networks``."""
  if leaf in LEAVES:
    values = lookahead.exact_leaf_values if leaf == "exact" else lookahead.warm_leaf_values
    return functools.partial(values, iterations=leaf_iters)
  fn = value_network.leaf_fn(networks)  # one function: re-solves of one shape share a compiled program
  return lambda tree: fn


class ContinualResolving:
  """The continual re-solving agent of ``game`` (loaded on the public tree) in both seats.

  Args:
    game: a PublicTreeGame; its host tree is the whole game the agent walks.
    iterations: iterations of ``algorithm`` (a CFR preset) per re-solve.
    leaf: "exact", "warm", or the network files (their mean), for the record; ``networks`` the
      loaded networks of the files.
    leaf_iters: iterations of each exact leaf solve or warm call.
    gadget: ``resolving.resolve``'s gadget.
    dtype: the float type of the re-solves ("float32" or "float64").
  """

  name = "resolve"
  unit = "re-solve"
  parts = 2
  evaluation = {"evaluation": "exact (best responses on the public tree)", "scored": "the agent in both seats"}

  def __init__(self, game, *, iterations, leaf, networks=(), leaf_iters, gadget, algorithm="cfr+", dtype="float32"):
    self.whole, self.tensors, self.info = game.tree, game.tensors, game.info
    self.game, self.representation, self.algorithm = game.name, str(game.representation), algorithm
    self.iterations, self.dtype, self.gadget = iterations, dtype, gadget
    self.options = {"leaf": leaf, "leaf_iters": leaf_iters, "gadget": gadget}
    self.total = sum(resolving.resolves(self.whole, p) for p in (0, 1))
    self._leaf_values_of = leaf_values_of(leaf, networks, leaf_iters)
    self._kit = kits.of_game(game)
    self._digest = _digest(*[w for layer in (n.weights for n in networks) for pair in layer for w in pair])

  def identity(self) -> dict:
    return {**_identity_of(self), "dtype": self.dtype, "networks": self._digest}

  def start(self) -> tuple:
    slots, hands = self.whole.action_ids.shape[1], self.whole.num_hands
    return tuple(np.zeros((len(self.whole.decision_nodes(p)), slots, hands)) for p in (0, 1))

  def part(self, state: tuple, seat: int, advance) -> tuple:
    """The agent's strategy as player ``seat``: one re-solve per decision node of the seat."""
    strategy = resolving.agent_strategy(
      self.whole,
      seat,
      iterations=self.iterations,
      leaf_values_of=self._leaf_values_of,
      algorithm=self.algorithm,
      gadget=self.gadget,
      dtype=self.dtype,
      progress=lambda done: advance(1),
    )
    return tuple(strategy if p == seat else state[p] for p in (0, 1))

  def strategy(self, state: tuple) -> tuple:
    return tuple(jnp.asarray(s, self.tensors.dtype) for s in state)

  def evaluate(self, state: tuple) -> dict:
    """Exact: the best responses to the agent in each seat, in chips (and mbb/g, pot %)."""
    profile = self.strategy(state)
    best = np.asarray(self._kit.best_response_values(self.tensors, profile))
    exploitability = float(best.sum() / 2)
    metrics = {"exploitability": exploitability, "nash_conv": float(best.sum())}
    metrics["value"] = float(self._kit.expected_value(self.tensors, profile))
    return metrics | {k: float(v) for k, v in units.exploitability_units(exploitability, self.info).items()}


class ValueData:
  """Solved situations at the second round's starts of ``game`` (a PublicTreeGame): ``count``
  random ones (DeepStack's range generator, ``seed``), or at most ``count`` of those the
  re-solving agent with ``network`` asks it about (drawn with ``seed``; the agent runs when the
  job is made, not in its parts), each solved by ``iterations`` of ``algorithm``, ``batch`` at
  a time."""

  name = "value-data"
  unit = "situation"
  dtype = "float64"
  evaluation = {"evaluation": "each situation solved to the end of the game"}

  def __init__(self, game, *, count, iterations, batch, seed, algorithm="cfr+", network=None, queries=None, **asked):
    rules = game.tree.rules
    self.game, self.representation, self.algorithm, self.iterations = (
      game.name,
      str(game.representation),
      algorithm,
      iterations,
    )
    self.options = {"count": count, "batch": batch, "seed": seed}
    self.starts = value_data.RoundStarts(rules)
    self.asked = None
    if network is None:
      which, ranges = value_data.draw(self.starts, count, seed=seed)
    else:
      self.options |= {"queries": queries, **asked}
      which, ranges = value_network.agent_queries(
        game.tree, network, iterations=asked["query_iters"], every=asked["every"]
      )
      self.asked = len(which)
      pick = np.sort(np.random.default_rng(seed).permutation(len(which))[:count])
      which, ranges = which[pick], ranges[..., pick]
    self.prepared = value_data.prepare(self.starts, which, ranges, batch=batch)
    self.parts, self.total = len(self.prepared.chunks), int(which.shape[0])
    self._digest = _digest(which, ranges)

  def identity(self) -> dict:
    return {**_identity_of(self), "situations": self._digest}

  def start(self) -> np.ndarray:
    """[2, H, S] the values of the situations, zero until solved."""
    return np.zeros_like(self.prepared.data.values)

  def part(self, values: np.ndarray, k: int, advance) -> np.ndarray:
    chunk = self.prepared.chunks[k][1]
    solved = value_data.solve_chunk(self.starts, self.prepared, k, iterations=self.iterations, algorithm=self.algorithm)
    values = values.copy()
    values[:, :, chunk] = solved
    advance(len(chunk))
    return values

  def data(self, values: np.ndarray) -> value_data.Situations:
    """The solved situations."""
    return self.prepared.data._replace(values=np.asarray(values))

  def evaluate(self, values) -> dict:
    del values
    return {"situations": self.total}

  def strategy(self, state) -> None:
    del state


class ValueTrain:
  """A value network of ``game`` (a PublicTreeGame) trained on ``data`` (Situations; the files'
  names ``files``, for the record), each suit relabelling added with ``suit_permutations``:
  ``value_network.Trainer``'s chunks, a part each."""

  name = "value-train"
  unit = "step"
  algorithm = "adam"

  def __init__(
    self,
    game,
    data,
    *,
    files,
    hidden,
    steps,
    batch_size,
    learning_rate,
    cosine,
    suit_permutations,
    seed,
    validation=None,
    validation_file=None,
  ):
    import optax  # pylint: disable=import-outside-toplevel

    rules = game.tree.rules
    self.game, self.representation, self.iterations = game.name, str(game.representation), steps
    if suit_permutations:
      data = value_data.with_suit_permutations(rules, data)
    network = value_network.init(rules, hidden=tuple(hidden), seed=seed)
    self.dtype = str(network.weights[0][0].dtype)
    schedule = optax.cosine_decay_schedule(learning_rate, steps) if cosine else learning_rate
    self.trainer = value_network.Trainer(
      network, data, steps=steps, batch_size=batch_size, learning_rate=schedule, seed=seed, validation=validation
    )
    self.situations = int(data.pot.shape[0])
    self.options = {"data": list(files), "validation": validation_file, "hidden": list(hidden)}
    self.options |= {"batch_size": batch_size, "learning_rate": learning_rate, "cosine": cosine}
    self.options |= {"suit_permutations": suit_permutations, "seed": seed}
    self.parts, self.total = self.trainer.chunks, steps
    self.evaluation = {"evaluation": "DeepStack's Huber loss" + (" and a held-out set's" if validation else "")}
    self._digest = _digest(*data)

  def identity(self) -> dict:
    return {**_identity_of(self), "data": self._digest}

  def start(self) -> dict:
    return {
      "carry": self.trainer.start(),
      "losses": np.zeros(self.iterations, self.dtype),
      "validation": np.full(self.trainer.chunks, np.nan),
    }

  def part(self, state: dict, k: int, advance) -> dict:
    carry, losses, check = self.trainer.chunk(state["carry"], k)
    done = {"losses": state["losses"].copy(), "validation": state["validation"].copy()}
    done["losses"][k * value_network.CHUNK : k * value_network.CHUNK + len(losses)] = losses
    if check is not None:
      done["validation"][k] = check
    advance(len(losses))
    return {"carry": carry, **done}

  def network(self, state: dict) -> value_network.ValueNetwork:
    """The trained network."""
    return self.trainer.network_of(state["carry"])

  def evaluate(self, state: dict) -> dict:
    held = state["validation"]
    return {
      "situations": self.situations,
      "loss_last_100": float(np.mean(state["losses"][-100:])),
      "validation_loss": None if np.isnan(held[-1]) else float(held[-1]),
    }

  def strategy(self, state) -> None:
    del state
