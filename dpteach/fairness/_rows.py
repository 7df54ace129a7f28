"""Helpers the fairness modules share: rows that belong together, fitted group codes."""

from __future__ import annotations

import numpy as np

from .._validation import refuse


def sigmoid(z):
    """The logistic function 1/(1 + e^{−z}), as ½(1 + tanh(z/2)): no overflow for any z."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def check_same_length(**arrays) -> int:
    """The common number of rows of ``arrays`` (by argument name); refuses different ones."""
    lengths = {name: len(a) for name, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        raise refuse(", ".join(lengths), lengths, "of one length (one entry per row)")
    return next(iter(lengths.values()))


def fitted_group_codes(groups_, g) -> np.ndarray:
    """0/1 codes (1 for ``groups_[1]``) of group labels ``g`` (encoded by the metrics'
    domains), which must be among the two groups seen in fit."""
    unknown = [label for label in g.labels.tolist() if not np.any(groups_ == label)]
    if unknown:
        raise refuse("sensitive_features", unknown[:3], "only groups seen in fit")
    return (g.labels[g.codes] == groups_[1]).astype(np.intp)
