"""Magnetic mirror descent (MMD) with dilated entropy: logit QREs and, annealed, Nash equilibria.

Sokota, Lanctot, Mavadat, Weaver, McAleer, Oren and Kroer (Sokota et al.), "A Unified Approach
to Reinforcement Learning, Quantal Response Equilibria, and Two-Player Zero-Sum Games" (ICLR
2023). Each player takes, simultaneously, the mirror-descent step on the sequence form with
the dilated entropy ``psi`` as the mirror map and a pull of weight ``eta alpha`` towards a
magnet ``rho``:

    x_{t+1} = argmax_x  eta g_t^T x - eta alpha KL_dil(x || rho) - B_psi(x; x_t)

with ``g_t`` the player's sequence values (``A y_t`` or ``-A^T x_t``), ``eta`` the step size
and ``alpha`` the temperature. The argmax has a closed form, one bottom-up pass of
``jaxcfr.kits.sequence_form.evaluation.soft_best_response`` on the local values

    u(I,a) = (eta g_t(I,a) + log sigma_t(I,a) + eta alpha log rho(I,a)) / (1 + eta alpha)

(the constants of the dilated entropy's gradient cancel between an infoset and its
children's log-partition functions). With a fixed temperature the last iterate converges
linearly to the logit quantal response equilibrium of temperature ``alpha`` (Gambit's agent
logit QRE with lambda = 1/alpha; McKelvey and Palfrey, "Quantal Response Equilibria for
Extensive Form Games", 1998), the fixed point of the same map. With ``anneal=True`` the
temperature at iteration ``t`` is ``alpha / sqrt(t)``, and the last iterate approaches a Nash
equilibrium along the QRE path.

Without a magnet the regulariser is the dilated entropy ``psi`` itself (``log rho = 0``),
as in OpenSpiel's ``mmd_dilated.py``, whose fixed point its tests check against Gambit's
logit QRE of Kuhn poker. The default step size is OpenSpiel's, ``eta = alpha / max |A|^2`` (``mmd_dilated.py``; the
payoff ``A`` includes chance), computed from the initial temperature; a positive
``step_size`` replaces it. The state keeps the log of the current strategies (exact at
small temperatures) and a reach-weighted average of the current strategies, as CFR's.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcfr.kits.sequence_form import evaluation
from jaxcfr.base import regret
from jaxcfr.kits.sequence_form.tensors import GameTensors
from jaxcfr.solvers import registry

__all__ = ["MMDState", "init", "step", "mmd_map", "automatic_step_size", "solver", "HYPERPARAMETERS"]

HYPERPARAMETERS = {"temperature": 0.1, "step_size": 0.0}


class MMDState(NamedTuple):
  """One run, or a batch with trailing axes ``B``.

  Attributes:
    log_strategy: ([I0, A0, *B], [I1, A1, *B]) log of the current strategies (0 at illegal slots).
    log_magnet: ([I0, A0, *B], [I1, A1, *B]) log of the magnet strategies (0 at illegal slots;
      all 0 for the plain dilated entropy).
    average: ([I0, A0, *B], [I1, A1, *B]) reach-weighted running mean of the current strategies.
    iteration: [*B] int32.
    temperature: [*B] the initial temperature alpha.
    step_size: [*B] eta.
  """

  log_strategy: tuple
  log_magnet: tuple
  average: tuple
  iteration: jax.Array
  temperature: jax.Array
  step_size: jax.Array


def automatic_step_size(tensors: GameTensors, temperature: jax.Array) -> jax.Array:
  """OpenSpiel's default step size ``alpha / max |A|^2`` ([*B] like ``temperature``); 1 for a
  game whose payoffs are all zero (any step reaches its fixed point, the magnet), and at most
  ``finfo.max ** (1/4)`` so that ``eta * alpha`` stays finite for payoffs near underflow."""
  square = evaluation.payoff_scale(tensors.payoff) ** 2
  largest = jnp.finfo(tensors.dtype).max ** 0.25
  step = jnp.minimum(temperature / jnp.where(square > 0, square, 1), largest)
  return jnp.where(square > 0, step, jnp.ones_like(step))


def _log_uniform(tensors: GameTensors) -> tuple:
  """([I0, A0], [I1, A1]) log of the uniform profile, 0 at illegal slots."""
  return tuple(
    jnp.where(tp.legal, jnp.log(jnp.where(tp.legal, u, 1)), 0)
    for tp, u in zip(tensors.players, evaluation.uniform_profile(tensors))
  )


def _strategies(tensors: GameTensors, log_strategy: tuple) -> tuple:
  """([I0, A0, *B], [I1, A1, *B]) the strategies of log strategies (0 at illegal slots)."""
  return tuple(
    jnp.where(evaluation.expand_to(tp.legal, ls.ndim), jnp.exp(ls), 0) for tp, ls in zip(tensors.players, log_strategy)
  )


def init(tensors: GameTensors, *, temperature=0.1, step_size=0.0, magnet=None) -> MMDState:
  """A fresh state.

  Args:
    temperature: alpha > 0 (batchable, [*B]); the QRE's temperature (1 / Gambit's lambda).
    step_size: eta (batchable, [*B]); 0 for OpenSpiel's ``alpha / max |A|^2``.
    magnet: a profile ([I, A] per player, or [I, A, *B]) with positive legal entries: the
      regulariser is then the dilated KL divergence to it. None (default): the dilated
      entropy itself, ``psi(x) = sum x(I,a) log sigma(I,a)``, whose QRE is OpenSpiel's and
      Gambit's (this is not the uniform magnet: ``KL_dil(x || uniform) = psi(x) + sum_I
      x(parent(I)) log |A(I)|`` weighs infosets by their number of actions). Runs start at the
      magnet, or at the uniform profile when there is none.
  """
  dtype = tensors.dtype
  for name, value in (("temperature", temperature), ("step_size", step_size)):
    value = registry.concrete(value)
    if value is not None and (
      np.any(np.isnan(value)) or np.any(value < 0) or (name == "temperature" and np.any(value <= 0))
    ):
      raise ValueError(f"mmd's {name} must be {'> 0' if name == 'temperature' else '>= 0'}, got {value}")
  temperature, step_size = jnp.asarray(temperature, dtype), jnp.asarray(step_size, dtype)
  batch = jnp.broadcast_shapes(temperature.shape, step_size.shape)
  temperature = jnp.broadcast_to(temperature, batch)
  step_size = jnp.broadcast_to(jnp.where(step_size > 0, step_size, automatic_step_size(tensors, temperature)), batch)
  if magnet is None:  # the dilated entropy itself: log rho = 0 (OpenSpiel's and Gambit's QRE)
    log_magnet = tuple(jnp.zeros(tp.legal.shape, dtype) for tp in tensors.players)
  else:
    log_magnet = tuple(
      jnp.where(evaluation.expand_to(tp.legal, jnp.ndim(m)), jnp.log(jnp.asarray(m, dtype)), 0)
      for tp, m in zip(tensors.players, magnet)
    )
  log_magnet = tuple(
    jnp.broadcast_to(evaluation.expand_to(m, 2 + len(batch)), tp.legal.shape + batch)
    for tp, m in zip(tensors.players, log_magnet)
  )
  zeros = tuple(jnp.zeros(tp.legal.shape + batch, dtype) for tp in tensors.players)
  start = (
    log_magnet
    if magnet is not None
    else tuple(
      jnp.broadcast_to(evaluation.expand_to(u, 2 + len(batch)), tp.legal.shape + batch)
      for tp, u in zip(tensors.players, _log_uniform(tensors))
    )
  )
  return MMDState(
    log_strategy=start,
    log_magnet=log_magnet,
    average=zeros,
    iteration=jnp.zeros(batch, jnp.int32),
    temperature=temperature,
    step_size=step_size,
  )


def mmd_map(
  tensors: GameTensors, log_strategy: tuple, log_magnet: tuple, temperature: jax.Array, step_size: jax.Array
) -> tuple:
  """One simultaneous MMD step on log strategies: ``(log sigma0, log sigma1) -> (log sigma0', log sigma1')``
  ([I, A, *B] each; ``temperature`` and ``step_size`` [*B]). Its fixed point is the logit QRE
  of temperature ``alpha`` with magnet ``rho``, whatever the step size."""
  strategy = _strategies(tensors, log_strategy)
  plans = evaluation.plans(tensors, strategy)
  eta_alpha = step_size * temperature
  new = []
  for player, treeplex in enumerate(tensors.players):
    g = evaluation.sequence_values_for(tensors.payoff, player, plans[1 - player])
    local = (log_strategy[player] + eta_alpha * log_magnet[player]) / (1 + eta_alpha)
    g = step_size * g / (1 + eta_alpha)
    g = g.at[1:].add(local.reshape((-1,) + g.shape[1:]))
    new.append(evaluation.soft_best_response(treeplex, g)[2])
  return tuple(new)


def step(tensors: GameTensors, state: MMDState, *, anneal: bool = False) -> MMDState:
  """One iteration of every run: the MMD map (with temperature and step size divided by
  ``sqrt(t)`` when annealed) and the running average of the new strategies."""
  t = (state.iteration + 1).astype(state.temperature.dtype)
  temperature, step_size = state.temperature, state.step_size
  if anneal:
    temperature, step_size = temperature / jnp.sqrt(t), step_size / jnp.sqrt(t)
  log_strategy = mmd_map(tensors, state.log_strategy, state.log_magnet, temperature, step_size)
  strategy = current_strategy(tensors, state._replace(log_strategy=log_strategy))
  average = []
  for treeplex, s, a in zip(tensors.players, strategy, state.average):
    reach = jnp.expand_dims(evaluation.realization_plan(treeplex, s)[treeplex.parent_seq], 1)
    average.append(a + (reach * s - a) / t)
  return state._replace(log_strategy=log_strategy, average=tuple(average), iteration=state.iteration + 1)


def current_strategy(tensors: GameTensors, state: MMDState):
  """The current profile ([I, A, *B] each), the iterate that converges to the QRE."""
  return _strategies(tensors, state.log_strategy)


def average_strategy(tensors: GameTensors, state: MMDState):
  """The reach-weighted average of the current strategies ([I, A, *B] each)."""
  return tuple(
    regret.normalise(a, evaluation.expand_to(tp.legal, a.ndim)) for tp, a in zip(tensors.players, state.average)
  )


def solver(*, anneal: bool = False) -> registry.Solver:
  """The registered ``mmd`` solver.

  Options:
    anneal: False for the logit QRE of the temperature (use the current strategy); True for
      the temperature ``alpha / sqrt(t)`` and step ``eta / sqrt(t)``, towards a Nash equilibrium.

  Hyperparameters of ``init`` (batchable): temperature (alpha, default 0.1), step_size (eta,
  default 0: OpenSpiel's ``alpha / max |A|^2``); ``magnet`` (a profile) is a further keyword.
  """
  anneal = bool(anneal)

  def init_checked(tensors, **kwargs):
    return init(tensors, **{**HYPERPARAMETERS, **kwargs})

  def step_fn(tensors, state):
    return step(tensors, state, anneal=anneal)

  return registry.Solver(
    name="mmd",
    init=init_checked,
    step=step_fn,
    average_strategy=average_strategy,
    current_strategy=current_strategy,
    hyperparameters=dict(HYPERPARAMETERS),
    options={"anneal": anneal},
  )


registry.register(
  "mmd",
  solver,
  summary="magnetic mirror descent (Sokota et al. 2023): the logit QRE, or a Nash equilibrium with anneal",
  options=(registry.Param("anneal", bool, False, "temperature alpha / sqrt(t), towards a Nash equilibrium"),),
  hyperparameters=(
    registry.Param(
      "temperature", float, HYPERPARAMETERS["temperature"], "the QRE temperature alpha", batchable=True, low=0.0
    ),
    registry.Param(
      "step_size",
      float,
      HYPERPARAMETERS["step_size"],
      "eta (0: OpenSpiel's alpha / max |A|^2)",
      batchable=True,
      low=0.0,
    ),
    registry.Param("magnet", object, None, "the magnet profile (default uniform)", batchable=True, cli=False),
  ),
)
