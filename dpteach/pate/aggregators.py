"""PATE's aggregators: the noisy argmax of the teachers' votes.

Each answers a query from its vote histogram ``n`` (one count per class): LNMax adds
Laplace noise ([PAEGT17]_), GNMax Gaussian noise, and Confident-GNMax answers only when a
noisy check says the teachers agree enough ([PSMRTE18]_). The teachers that cast the votes
are in :mod:`dpteach.pate.teachers`; the exact law of each answer in
:mod:`dpteach.pate.answers`; the privacy of the answers in :mod:`dpteach.pate.analysis`.

References
----------
.. [PAEGT17] N. Papernot, M. Abadi, Ú. Erlingsson, I. Goodfellow, K. Talwar. "Semi-supervised
   knowledge transfer for deep learning from private training data." ICLR 2017
   (arXiv:1610.05755): teachers on disjoint data and LNMax (Sec. 2.1-2.2).
.. [PSMRTE18] N. Papernot, S. Song, I. Mironov, A. Raghunathan, K. Talwar, Ú. Erlingsson.
   "Scalable private learning with PATE." ICLR 2018 (arXiv:1802.08908): GNMax (Sec. 4.1),
   Confident-GNMax (Alg. 1), the Adult experiment (Table 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import (
    check_nonnegative,
    check_positive,
    check_rng,
)
from .analysis import check_votes

__all__ = ["relative_votes", "lnmax", "gnmax", "ConfidentAnswers", "confident_gnmax"]


def relative_votes(votes, noise: float) -> tuple[np.ndarray, np.ndarray]:
    """Votes as rows, and t = (n − max n)/noise per row (≤ 0; −inf where it overflows).

    The seam between the aggregators here and their exact answer distributions
    (:mod:`dpteach.pate.answers`). Relative to the plurality and in units of the
    noise, ``argmax(t + Z)`` is exact at every scale: ties among the top counts are broken by
    Z alone, and counts far below the top (t = −inf at a subnormal scale) never win.

    Parameters
    ----------
    votes : array-like, shape (classes,) or (queries, classes)
        Checked by :func:`dpteach.pate.analysis.check_votes`.
    noise : float
        The noise scale (σ or b), > 0.

    Returns
    -------
    (v, t) : two float arrays of shape (queries, classes)
    """
    v = np.atleast_2d(check_votes("votes", votes))
    noise = check_positive("noise", noise)
    with np.errstate(over="ignore"):
        return v, (v - v.max(axis=1, keepdims=True)) / noise


def lnmax(votes, scale: float, rng=None):
    """LNMax: the argmax of the counts plus Laplace noise ([PAEGT17]_, Sec. 2.2).

    Each answer is ``argmax_j (n_j + Lap(b))``, independent noise per class. One private row
    moves two counts by one, so each answer is ε-DP with ε = 2/b ([PAEGT17]_ write γ = 1/b;
    their MNIST runs use γ = 0.05, i.e. b = 20).

    Parameters
    ----------
    votes : array-like, shape (classes,) or (queries, classes)
    scale : float
        b > 0.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    int or numpy.ndarray of int64, shape (queries,)
        The answer's class index (column of ``votes``).
    """
    votes = check_votes("votes", votes)
    scale = check_positive("scale", scale)
    _, t = relative_votes(votes, scale)
    labels = np.argmax(t + check_rng(rng).laplace(size=t.shape), axis=1)
    return int(labels[0]) if votes.ndim == 1 else labels


def gnmax(votes, sigma: float, rng=None):
    """GNMax: the argmax of the counts plus N(0, σ²) noise ([PSMRTE18]_, Sec. 4.1).

    ``argmax_j (n_j + N(0, σ²))``, independent noise per class: (λ, λ/σ²)-RDP per answer
    whatever the votes, much less when the teachers agree
    (:func:`dpteach.pate.analysis.gnmax_rdp`).

    Parameters
    ----------
    votes : array-like, shape (classes,) or (queries, classes)
    sigma : float
        σ > 0.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    int or numpy.ndarray of int64, shape (queries,)
    """
    votes = check_votes("votes", votes)
    sigma = check_positive("sigma", sigma)
    _, t = relative_votes(votes, sigma)
    labels = np.argmax(t + check_rng(rng).standard_normal(t.shape), axis=1)
    return int(labels[0]) if votes.ndim == 1 else labels


@dataclass(frozen=True)
class ConfidentAnswers:
    """Answers of :func:`confident_gnmax`: ``labels`` (−1 where not answered), ``answered``."""

    labels: np.ndarray        # int64, shape (queries,); an int for one histogram
    answered: np.ndarray      # bool, shape (queries,); a bool for one histogram

    @property
    def n_answered(self) -> int:
        """Number of answered queries."""
        return int(np.count_nonzero(self.answered))


def confident_gnmax(votes, threshold: float, sigma1: float, sigma2: float, rng=None):
    """Confident-GNMax ([PSMRTE18]_, Alg. 1): answer only when the teachers agree.

    For each query: if ``max_j n_j + N(0, σ₁²) ≥ T``, answer ``argmax_j (n_j + N(0, σ₂²))``
    (GNMax with fresh noise); otherwise give no answer. The threshold step is private too
    (its noise hides the max count); queries without consensus, which would cost most under
    the data-dependent analysis and are most often wrong, are not answered.

    Parameters
    ----------
    votes : array-like, shape (classes,) or (queries, classes)
    threshold : float
        T ≥ 0 (finite).
    sigma1, sigma2 : float
        σ₁ > 0 (threshold step) and σ₂ > 0 (GNMax).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ConfidentAnswers
    """
    votes = check_votes("votes", votes)
    threshold = check_nonnegative("threshold", threshold)
    sigma1 = check_positive("sigma1", sigma1)
    sigma2 = check_positive("sigma2", sigma2)
    gen = check_rng(rng)
    v = np.atleast_2d(votes)
    with np.errstate(over="ignore"):
        z = (v.max(axis=1) - threshold) / sigma1          # ±inf where the ratio overflows
    answered = z + gen.standard_normal(v.shape[0]) >= 0.0
    labels = np.full(v.shape[0], -1, dtype=np.int64)
    if np.any(answered):
        _, t = relative_votes(v[answered], sigma2)
        labels[answered] = np.argmax(t + gen.standard_normal(t.shape), axis=1)
    if votes.ndim == 1:
        return ConfidentAnswers(int(labels[0]), bool(answered[0]))
    return ConfidentAnswers(labels, answered)
