"""Helpers the fairness estimators share: rows that belong together, fitted group codes."""

from __future__ import annotations

import numpy as np

from .._validation import ParameterError, describe


def sigmoid(z):
    """The logistic function 1/(1 + e^{−z}), as ½(1 + tanh(z/2)): no overflow for any z."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def check_one_per_row(values, X, name: str = "y", rows_of: str = "X") -> None:
    """One entry of ``values`` per row of ``X``."""
    if len(values) != X.shape[0]:
        raise ParameterError(f"{name} must have one entry per row of {rows_of}: got "
                             f"len({name}) = {len(values)} and {rows_of} with {X.shape[0]} rows")


def fitted_group_codes(groups_, g) -> np.ndarray:
    """0/1 codes (1 for ``groups_[1]``) of group labels ``g`` (encoded by the metrics'
    domains), which must be among the two groups seen in fit."""
    unknown = [label for label in g.labels.tolist() if not np.any(groups_ == label)]
    if unknown:
        raise ParameterError(f"sensitive_features must hold the groups seen in fit "
                             f"{describe(groups_.tolist())}; got unknown group(s) "
                             f"{describe(unknown[:3])}")
    return (g.labels[g.codes] == groups_[1]).astype(np.intp)
