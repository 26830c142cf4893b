"""The one small multilayer perceptron of the solvers that learn, and its training loop.

Used by RCFR's regressor (``jaxcfr.solvers.regressors.mlp``: tanh, one output), Deep CFR and
SD-CFR (``jaxcfr.solvers.deep_cfr``: advantage and average-strategy networks) and ESCHER
(``jaxcfr.solvers.escher``: regret, average and history value networks)::

    net = MLP(widths=(F, 64, 64, A), activation="relu", layer_norm=True)
    params = net.init(key, dtype)              Glorot-uniform weights, zero biases
    y = net.apply(params, x)                   [N, F] -> [N, A]
    params, state, loss = minimise(objective, params, state, optimizer, steps, key)

``MLPParams.layers`` is the list of ``(w [F_in, F_out], b [F_out])`` that RCFR has always kept
(``glorot`` draws it with the same keys, so RCFR's weights are unchanged); a network with
``layer_norm`` also has the scale and offset of a layer normalisation of the last hidden layer
(OpenSpiel's Deep CFR normalises there; Steinberger's ``normalize_last_layer``). The
re-solving value networks (``jaxcfr.solvers.value_network``, PReLU) are the same computation
with ``activation="prelu"`` and their slopes as ``MLPParams.slopes``.

Output heads (``masked_values``, ``masked_policy``) put the legal-action mask on the output:
values are 0 at illegal actions, a policy is a softmax over the legal ones.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

__all__ = [
  "ACTIVATIONS",
  "MLP",
  "MLPParams",
  "glorot",
  "forward",
  "optimizer",
  "minimise",
  "masked_values",
  "masked_policy",
  "regret_matching_argmax",
]

ACTIVATIONS = ("tanh", "relu", "prelu")


class MLPParams(NamedTuple):
  """layers: list of (w [F_in, F_out], b [F_out]); norm: () or (scale [H], offset [H]) of the
  last hidden layer's normalisation; slopes: () or per hidden layer [F_out] PReLU slopes."""

  layers: list
  norm: tuple = ()
  slopes: tuple = ()


def glorot(key: jax.Array, widths: tuple, dtype) -> list:
  """[(w, b), ...] for ``widths`` (F_in, ..., F_out): Glorot-uniform weights (one key split per
  layer, in order), zero biases."""
  layers = []
  for n_in, n_out in zip(widths[:-1], widths[1:]):
    key, sub = jax.random.split(key)
    bound = np.sqrt(6.0 / (n_in + n_out))
    layers.append((jax.random.uniform(sub, (n_in, n_out), dtype, -bound, bound), jnp.zeros(n_out, dtype)))
  return layers


def _activate(x: jax.Array, activation: str, slope) -> jax.Array:
  if activation == "tanh":
    return jnp.tanh(x)
  if activation == "relu":
    return jax.nn.relu(x)
  return jnp.where(x >= 0, x, slope * x)


def forward(params: MLPParams, x: jax.Array, activation: str = "tanh") -> jax.Array:
  """[N, F_out] outputs of the layers on ``x`` [N, F_in]: hidden layers activated, the last
  hidden layer normalised (``params.norm``), a linear output."""
  layers = params.layers
  for i, (w, b) in enumerate(layers[:-1]):
    x = _activate(x @ w + b, activation, params.slopes[i] if params.slopes else None)
  if params.norm:
    scale, offset = params.norm
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    x = (x - mean) * jax.lax.rsqrt(var + 1e-6) * scale + offset
  w, b = layers[-1]
  return x @ w + b


@dataclasses.dataclass(frozen=True)
class MLP:
  """A multilayer perceptron ``widths[0] -> hidden -> widths[-1]``.

  Attributes:
    widths: (F_in, hidden widths..., F_out).
    activation: of the hidden layers, one of ACTIVATIONS.
    layer_norm: normalise the last hidden layer (a learned scale and offset).
  """

  widths: tuple
  activation: str = "relu"
  layer_norm: bool = False

  def __post_init__(self):
    if self.activation not in ACTIVATIONS:
      raise ValueError(f"activation must be one of {ACTIVATIONS}, got {self.activation!r}")
    if len(self.widths) < 2 or min(self.widths) < 1:
      raise ValueError(f"an MLP needs widths >= 1 from input to output, got {self.widths}")

  def init(self, key: jax.Array, dtype) -> MLPParams:
    """Fresh parameters (layer-norm scale 1, offset 0; PReLU slopes 0.25)."""
    hidden = self.widths[1:-1]
    norm = (jnp.ones(hidden[-1], dtype), jnp.zeros(hidden[-1], dtype)) if self.layer_norm and hidden else ()
    slopes = tuple(jnp.full(n, 0.25, dtype) for n in hidden) if self.activation == "prelu" else ()
    return MLPParams(glorot(key, self.widths, dtype), norm, slopes)

  def apply(self, params: MLPParams, x: jax.Array) -> jax.Array:
    """[N, F_out] from ``x`` [N, F_in]."""
    return forward(params, x.astype(params.layers[0][0].dtype), self.activation)

  @property
  def size(self) -> int:
    """The number of parameters."""
    hidden = self.widths[1:-1]
    extra = (2 * hidden[-1] if self.layer_norm and hidden else 0) + (sum(hidden) if self.activation == "prelu" else 0)
    return sum(a * b + b for a, b in zip(self.widths[:-1], self.widths[1:])) + extra


def optimizer(learning_rate, *, clip: float = 0.0, name: str = "adam"):
  """An optax optimiser: Adam (or SGD) at ``learning_rate`` (a traced scalar is fine), after
  clipping the gradient's global norm at ``clip`` when it is positive."""
  import optax  # pylint: disable=import-outside-toplevel

  base = optax.adam(learning_rate) if name == "adam" else optax.sgd(learning_rate)
  return optax.chain(optax.clip_by_global_norm(clip), base) if clip > 0 else base


def minimise(objective: Callable, params, state, opt, steps: int, key: jax.Array | None = None):
  """``steps`` optimiser steps on ``objective(params, key) -> []`` (the step's key folded from
  ``key``; None when the objective draws nothing) as one ``fori_loop``.

  Returns:
    (params, optimiser state, [] the objective at the last step)."""
  import optax  # pylint: disable=import-outside-toplevel

  def one(i, carry):
    params, state, _ = carry
    step_key = None if key is None else jax.random.fold_in(key, i)
    value, grads = jax.value_and_grad(objective)(params, step_key)
    updates, state = opt.update(grads, state, params)
    return optax.apply_updates(params, updates), state, value.astype(carry[2].dtype)

  zero = jnp.zeros((), jax.tree_util.tree_leaves(params)[0].dtype)
  return jax.lax.fori_loop(0, steps, one, (params, state, zero))


def masked_values(outputs: jax.Array, legal: jax.Array) -> jax.Array:
  """[N, A] values, 0 at illegal actions (``legal`` [N, A] bool)."""
  return jnp.where(legal, outputs, 0)


def masked_policy(outputs: jax.Array, legal: jax.Array) -> jax.Array:
  """[N, A] softmax of the logits ``outputs`` over the legal actions (0 at illegal ones)."""
  logits = jnp.where(legal, outputs, -jnp.inf)
  logits = logits - jnp.max(jnp.where(legal, logits, -jnp.inf), -1, keepdims=True)
  weights = jnp.where(legal, jnp.exp(jnp.where(legal, logits, 0)), 0)
  return weights / jnp.maximum(weights.sum(-1, keepdims=True), 1e-30)


def regret_matching_argmax(advantages: jax.Array, legal: jax.Array) -> jax.Array:
  """[N, A] regret matching on predicted advantages; where no legal advantage is positive,
  all mass on the legal action of the largest advantage (Brown, Lerer, Gross and Sandholm,
  "Deep Counterfactual Regret Minimization", 2019, section 3; OpenSpiel does the same)."""
  positive = jnp.where(legal, jnp.maximum(advantages, 0), 0)
  total = positive.sum(-1, keepdims=True)
  best = jnp.argmax(jnp.where(legal, advantages, -jnp.inf), -1)
  greedy = jax.nn.one_hot(best, advantages.shape[-1], dtype=advantages.dtype)
  return jnp.where(total > 0, positive / jnp.where(total > 0, total, 1), greedy)
