"""Pure array operations on the sequence-form tensors: realization plans, sequence and
counterfactual values, best responses, NashConv and exploitability (``evaluation``),
regret matching (``regret``) and sampling on the tree arrays (``sampling``)."""

from jaxcfr.core import evaluation, regret, sampling

__all__ = ["evaluation", "regret", "sampling"]
