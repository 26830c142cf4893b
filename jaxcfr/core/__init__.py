"""Pure array operations on the sequence-form tensors: realization plans, sequence and
counterfactual values, best responses, NashConv and exploitability (``evaluation``),
regret matching (``regret``), sampling on the tree arrays (``sampling``), the row
updates that end a sampled step (``row_updates``) and the one step of every walk down the
tree arrays (``walk``)."""

from jaxcfr.core import evaluation, regret, row_updates, sampling, walk

__all__ = ["evaluation", "regret", "row_updates", "sampling", "walk"]
