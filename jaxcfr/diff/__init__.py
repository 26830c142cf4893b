"""Differentiable solving (docs/differentiable.md): gradients through solver runs
(``unrolled``), of the equilibrium value (``equilibrium_value``, Danskin's theorem) and of
logit quantal response equilibria (``qre``, implicit differentiation of the MMD fixed point).
A layer above the solvers and below evaluate."""

from jaxcfr.diff.qre import qre, qre_gap
from jaxcfr.diff.unrolled import unrolled
from jaxcfr.diff.value import equilibrium_value, zero_cotangent

__all__ = ["equilibrium_value", "qre", "qre_gap", "unrolled", "zero_cotangent"]
