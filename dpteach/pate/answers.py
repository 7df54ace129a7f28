"""The exact distribution of a PATE aggregator's answer, for one query's votes.

For votes n and independent noise Z_j per class, the aggregator answers argmax_j (n_j + Z_j).
Class j wins with probability

    P[j] = ∫ f(z) Π_{i ≠ j} F(n_j − n_i + z) dz,

with f, F the density and distribution function of the noise (Gaussian for GNMax, Laplace
for LNMax): a one-dimensional integral, computed by Gauss–Legendre quadrature (accurate to
about 1e-12), for a work (queries × distinct counts near the top × ~10³ nodes) up to
:data:`MAX_EXACT_WORK`. The probabilities have the shape of ``votes``.

References
----------
.. [PAEGT17] N. Papernot, M. Abadi, Ú. Erlingsson, I. Goodfellow, K. Talwar. "Semi-supervised
   knowledge transfer for deep learning from private training data." ICLR 2017
   (arXiv:1610.05755): LNMax (Sec. 2.2).
.. [PSMRTE18] N. Papernot, S. Song, I. Mironov, A. Raghunathan, K. Talwar, Ú. Erlingsson.
   "Scalable private learning with PATE." ICLR 2018 (arXiv:1802.08908): GNMax (Sec. 4.1),
   Confident-GNMax (Alg. 1).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import log_ndtr, ndtr

from .._validation import SCALE, refuse, validate
from .aggregators import THRESHOLD
from .teachers import VOTES

__all__ = ["MAX_EXACT_WORK", "gnmax_answer_probabilities", "lnmax_answer_probabilities",
           "confident_gnmax_answer_probabilities"]

#: Largest number of quadrature evaluations (queries × distinct counts near the top × nodes,
#: about 10³ nodes for GNMax) of one call.
MAX_EXACT_WORK = 2 * 10**8


@validate(votes=VOTES, sigma=SCALE)
def gnmax_answer_probabilities(votes, sigma: float) -> np.ndarray:
    """Exact distribution of the GNMax answer ([PSMRTE18]_, Sec. 4.1).

    P[answer = j] = ∫ φ(z) Π_{i≠j} Φ((n_j − n_i)/σ + z) dz (a class more than 60σ below the
    plurality wins with probability below 1e-16 and gets 0). With two classes, class 0 wins
    with probability Φ((n₀ − n₁)/(σ√2)). Rows sum to 1.
    """
    p = _win_probabilities(_relative(votes, sigma), "gauss")
    return p[0] if votes.ndim == 1 else p


@validate(votes=VOTES, scale=SCALE)
def lnmax_answer_probabilities(votes, scale: float) -> np.ndarray:
    """Exact distribution of the LNMax answer ([PAEGT17]_, Sec. 2.2).

    P[answer = j] = ∫ f(z) Π_{i≠j} F((n_j − n_i)/b + z) dz with the Laplace density
    f(z) = e^{−|z|}/2 and CDF F. F has a kink at 0, so the integral is split at every kink
    (one more segment per distinct count). With two classes, class 0 wins with probability
    1 − (2 + d)e^{−d}/4, d = (n₀ − n₁)/b ≥ 0. Rows sum to 1.
    """
    p = _win_probabilities(_relative(votes, scale), "laplace")
    return p[0] if votes.ndim == 1 else p


@validate(votes=VOTES, threshold=THRESHOLD, sigma1=SCALE, sigma2=SCALE)
def confident_gnmax_answer_probabilities(votes, threshold: float, sigma1: float,
                                         sigma2: float) -> tuple[np.ndarray, float | np.ndarray]:
    """Exact distribution of the Confident-GNMax answer ([PSMRTE18]_, Alg. 1).

    The two steps use independent noise: P[answer = j] = Φ((max n − T)/σ₁)·P_GNMax(σ₂)[j]
    and P[no answer] = Φ((T − max n)/σ₁). Returns ``(probabilities, no_answer)``, which sum
    to 1 per query (``no_answer`` a float for one histogram).
    """
    z = (np.atleast_2d(votes).max(axis=1) - threshold) / sigma1
    probs = ndtr(z)[:, None] * _win_probabilities(_relative(votes, sigma2), "gauss")
    if votes.ndim == 1:
        return probs[0], float(ndtr(-z[0]))
    return probs, ndtr(-z)


# ------------------------------------------------------------------------------ helpers
_GL_X, _GL_W = np.polynomial.legendre.leggauss(12)     # 12-point Gauss-Legendre on [-1, 1]
_CHUNK = 1_000_000                                      # elements of one quadrature block (8 MB)


def _relative(votes: np.ndarray, noise: float) -> np.ndarray:
    """t = (n − max n)/noise per row, shape (queries, classes): the votes relative to the
    plurality in units of the noise, so that argmax(t + Z) is the aggregator's answer at every
    scale (ties among the top counts are broken by Z alone)."""
    v = np.atleast_2d(votes)
    return (v - v.max(axis=1, keepdims=True)) / noise


def _win_probabilities(t: np.ndarray, noise: str) -> np.ndarray:
    """P[argmax_j (t_j + Z_j) = j] for rows of t (max 0), Z i.i.d. from ``noise``.

    P[j wins] = ∫ f(w − t_j) Π_{i≠j} F(w − t_i) dw, with f, F the noise's density and CDF
    (w is the winning noisy value). Equal t are grouped (multiplicity c_u) and the product
    is exp(Σ_u c_u ln F(w − t_u) − ln F(w − t_j)), so a row costs O(distinct values × nodes).
    The integral is split into unit segments of the grid (and, for Laplace, at every kink
    w = t_u of F), each integrated by 12-point Gauss-Legendre: the integrand is analytic on
    every segment, so the rule is accurate to about 1e-13.
    """
    logpdf, logcdf, cut, lo, hi, kinks = _NOISES[noise]
    U, C, index = _distinct(np.where(t >= cut, t, -np.inf))    # below the cut: cannot win
    q, m = U.shape
    grid = np.arange(lo, hi + 0.5)
    n_nodes = (grid.size - 1 + (m if kinks else 0)) * _GL_X.size
    if q * m * n_nodes > MAX_EXACT_WORK:
        raise refuse("votes", t, f"≤ {MAX_EXACT_WORK:.0e} quadrature evaluations (queries × "
                     f"distinct top counts × nodes), not {q * m * n_nodes:.2g}")
    out = np.zeros((q, m))
    rows_per = max(1, _CHUNK // (m * n_nodes))
    block = max(1, min(m, _CHUNK // n_nodes))
    for r0 in range(0, q, rows_per):
        u, c = U[r0:r0 + rows_per], C[r0:r0 + rows_per]
        b = np.broadcast_to(grid, (u.shape[0], grid.size))
        if kinks:
            b = np.sort(np.concatenate([b, np.clip(u, lo, hi)], axis=1), axis=1)
        a, length = b[:, :-1, None], np.diff(b, axis=1)[:, :, None]
        w = (a + 0.5 * length * (_GL_X + 1.0)).reshape(u.shape[0], -1)
        wt = (0.5 * length * _GL_W).reshape(u.shape[0], -1)
        blocks = [slice(j, j + block) for j in range(0, m, block)]
        with np.errstate(over="ignore", invalid="ignore"):
            total = sum((c[:, j, None] * logcdf(w[:, None, :] - u[:, j, None])).sum(axis=1)
                        for j in blocks)                # padding: c = 0 and ln F(+inf) = 0
            for j in blocks:
                d = w[:, None, :] - u[:, j, None]
                f = np.exp(logpdf(d) + total[:, None, :] - logcdf(d))
                f = np.where(np.isfinite(u[:, j, None]), f, 0.0)
                out[r0:r0 + rows_per, j] = np.einsum("qkn,qn->qk", f, wt)
    return np.clip(np.take_along_axis(out, index, axis=1), 0.0, 1.0)


def _gauss_logpdf(x):
    return -0.5 * x * x - 0.5 * math.log(2.0 * math.pi)


def _laplace_logpdf(x):
    return -np.abs(x) - math.log(2.0)


def _laplace_logcdf(x):
    return np.where(x < 0, x - math.log(2.0), np.log1p(-0.5 * np.exp(-np.abs(x))))


#: Per noise: (log density, log CDF, lowest t that can still win, grid low, grid high, kink
#: at 0). A class with t below the cut wins with probability below 1e-16 (Gauss: Φ(−60/√2);
#: Laplace: (2 + 45)e^{−45}/4) and is dropped; the grid covers [t_j − 10, t_j + 10] (Gauss)
#: or [t_j − 40, t_j + 40] (Laplace) for every class kept, outside of which its noise density
#: is below 1e-17.
_NOISES = {
    "gauss": (_gauss_logpdf, log_ndtr, -60.0, -70.0, 10.0, False),
    "laplace": (_laplace_logpdf, _laplace_logcdf, -45.0, -85.0, 40.0, True),
}


def _distinct(t: np.ndarray):
    """Per row: distinct values U (descending, padded with −inf), their multiplicities C,
    and the index into U of each entry of t."""
    q, k = t.shape
    order = np.argsort(-t, axis=1, kind="stable")
    ts = np.take_along_axis(t, order, axis=1)
    new = np.ones((q, k), dtype=bool)
    new[:, 1:] = ts[:, 1:] != ts[:, :-1]
    group = np.cumsum(new, axis=1) - 1
    m = int(group[:, -1].max()) + 1
    U, C = np.full((q, m), -np.inf), np.zeros((q, m))
    rows = np.repeat(np.arange(q), k).reshape(q, k)
    np.add.at(C, (rows, group), 1.0)
    U[rows[new], group[new]] = ts[new]
    index = np.empty_like(group)
    np.put_along_axis(index, order, group, axis=1)
    return U, C, index


# Implementation notes: docs/library/accounting.md (pate.answers).
