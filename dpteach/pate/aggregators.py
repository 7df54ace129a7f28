"""PATE's aggregators: the noisy argmax of the teachers' votes.

Each answers a query from its vote histogram ``n`` (one count per class, from the teachers
of :mod:`dpteach.pate.teachers`) with the class that has the most votes after adding noise:
LNMax adds Laplace noise ([PAEGT17]_), GNMax Gaussian noise, and Confident-GNMax answers only
when a noisy check says the teachers agree enough ([PSMRTE18]_). The exact law of each
answer is in :mod:`dpteach.pate.answers`, the privacy of the answers in
:mod:`dpteach.pate.analysis`.

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

from .._validation import RNG, SCALE, anything, real, validate
from .teachers import VOTES

__all__ = ["THRESHOLD", "lnmax", "gnmax", "ConfidentAnswers", "confident_gnmax"]

#: Confident-GNMax's threshold T on the largest vote count
THRESHOLD = real(0.0, 1e15, example=5.0)


@validate(votes=VOTES, scale=SCALE, rng=RNG)
def lnmax(votes, scale: float, rng=None) -> int | np.ndarray:
    """LNMax ([PAEGT17]_, Sec. 2.2): the class with the most votes after Laplace noise.

    Each answer is ``argmax_j (n_j + Lap(b))``, independent noise per class. One private row
    moves two counts by one, so each answer is ε-DP with ε = 2/b ([PAEGT17]_ write γ = 1/b;
    their MNIST runs use γ = 0.05, i.e. b = 20). Returns the class index (column of
    ``votes``): an int for one histogram, an int64 array with one per query otherwise.
    """
    # relative to the plurality and in units of b: the same argmax, with ties among the top
    # counts broken by the noise alone however small b is next to the counts
    t = (votes - votes.max(axis=-1, keepdims=True)) / scale
    labels = np.argmax(t + rng.laplace(size=t.shape), axis=-1)
    return int(labels) if votes.ndim == 1 else labels


@validate(votes=VOTES, sigma=SCALE, rng=RNG)
def gnmax(votes, sigma: float, rng=None) -> int | np.ndarray:
    """GNMax ([PSMRTE18]_, Sec. 4.1): the class with the most votes after Gaussian noise.

    ``M_σ(n) = argmax_j (n_j + N(0, σ²))``, independent noise per class. One private row
    moves one vote, which changes the vector of counts by √2 in ℓ2, so each answer is
    (λ, λ/σ²)-RDP at every order λ (Prop. 8) whatever the votes, and much less when the
    teachers agree (Thm 6: :func:`dpteach.pate.analysis.gnmax_rdp`). Returns the class
    index as :func:`lnmax` does.
    """
    # (n_j − max n)/σ + N(0, 1): the same argmax as n_j + N(0, σ²), with ties among the top
    # counts broken by the noise alone however small σ is next to the counts
    t = (votes - votes.max(axis=-1, keepdims=True)) / sigma
    labels = np.argmax(t + rng.standard_normal(t.shape), axis=-1)
    return int(labels) if votes.ndim == 1 else labels


@validate(labels=anything("class indices, −1 where not answered: an int or an int64 array"),
          answered=anything("whether each query was answered: a bool or a bool array"))
@dataclass(frozen=True)
class ConfidentAnswers:
    """Answers of :func:`confident_gnmax`: ``labels`` (−1 where not answered), ``answered``."""

    labels: int | np.ndarray       # int64, shape (queries,); an int for one histogram
    answered: bool | np.ndarray    # bool, shape (queries,); a bool for one histogram

    @property
    def n_answered(self) -> int:
        """Number of answered queries."""
        return int(np.count_nonzero(self.answered))


@validate(votes=VOTES, threshold=THRESHOLD, sigma1=SCALE, sigma2=SCALE, rng=RNG)
def confident_gnmax(votes, threshold: float, sigma1: float, sigma2: float,
                    rng=None) -> ConfidentAnswers:
    """Confident-GNMax ([PSMRTE18]_, Alg. 1): answer only when the teachers agree.

    For each query: if ``max_j n_j + N(0, σ₁²) ≥ T``, answer ``argmax_j (n_j + N(0, σ₂²))``
    (GNMax with fresh noise); otherwise give no answer. The threshold step is private too
    (its noise hides the max count); queries without consensus, which would cost most under
    the data-dependent analysis and are most often wrong, are not answered.
    """
    v = np.atleast_2d(votes)
    answered = (v.max(axis=1) - threshold) / sigma1 + rng.standard_normal(v.shape[0]) >= 0.0
    labels = np.full(v.shape[0], -1, dtype=np.int64)
    if np.any(answered):
        labels[answered] = gnmax.__wrapped__(v[answered], sigma2, rng)
    if votes.ndim == 1:
        return ConfidentAnswers(int(labels[0]), bool(answered[0]))
    return ConfidentAnswers(labels, answered)
