"""Privacy of PATE's noisy votes: data-independent and data-dependent RDP, and releasing ε.

PATE trains teachers on disjoint parts of the private data and answers a student's queries
with a noisy argmax of the teachers' votes (a vote histogram ``n`` over the classes). One
changed record changes one teacher, so it moves one vote: two counts change by one.

* **Data-independent.** GNMax (each count plus N(0, σ²)) is (λ, λ/σ²)-RDP ([PSMRTE18]_,
  Prop. 8); the threshold step of Confident-GNMax (max vote plus N(0, σ₁²), sensitivity 1)
  is (λ, λ/(2σ₁²))-RDP; LNMax (Laplace with scale b) is 2/b-DP ([PAEGT17]_).
* **Data-dependent.** When the teachers agree, the noisy answer is almost surely the
  plurality; if q̃ bounds Pr[answer ≠ plurality], Thm 6 of [PSMRTE18]_ (Thm 3 of [PAEGT17]_
  for LNMax) gives a much smaller RDP. That RDP is computed *from the private votes*: it is a
  statement about this dataset, and publishing it leaks. ``sanitised_epsilon`` releases a
  noisy version of it through its smooth sensitivity ([PSMRTE18]_, Sec. 4 and App. C):
  :mod:`dpteach.pate.release`.

What is private and what is not:

* the answers of the aggregators are differentially private (that is the point);
* data-independent ε: a function of σ, T, δ and the numbers of queries and of answers only —
  publishable (:attr:`PATEPrivacy.publishable`); but not in the expected convention, whose
  weights Pr[answered] come from the votes;
* data-dependent ε (:func:`gnmax_rdp`, :func:`pate_epsilon` with ``data_dependent=True``):
  a function of the votes — **not** publishable as is;
* the sanitised ε of :mod:`~dpteach.pate.release`: publishable (its own cost is
  charged in it).

Two conventions for a run of Confident-GNMax: the *answered* convention charges GNMax only on
the queries that passed the threshold (what a deployment spends, given the run); the
*expected* convention charges Pr[answered]·(GNMax cost) on every query, as the tables of
[PSMRTE18]_ do.

Differences from published code, and why:

* The 2017 analysis script (TensorFlow models, ``multiple_teachers/analysis.py``) and
  PySyft's copy apply Thm 3 of [PAEGT17]_ whenever q̃ < 1/2; the theorem needs
  q̃ < (e^{2γ} − 1)/(e^{4γ} − 1) = 1/(e^ε + 1). In between, 1 − e^ε·q̃ can be ≤ 0, which the
  script catches as an error and replaces by ε·l. :func:`lnmax_rdp` uses the theorem's
  condition.
* PySyft's ``perform_analysis(teacher_preds, indices, ...)`` reads ``counts[i] for i in
  indices`` as *row numbers* of the count matrix, while the PATE tutorials built on it pass
  the noisy *labels* as ``indices``: with 10 classes every query is then analysed as one of
  rows 0–9, not as itself, and the demo's ε describes the wrong queries. Here the votes of
  the answered queries are passed themselves (``answered`` is a mask over their rows).
* [PSMRTE18]_'s code rounds the largest vote in Pr[answered] (for its interactive variant,
  whose votes are not integers); the votes here are integers, so nothing is rounded. Its
  smooth-sensitivity script adds Pr[answered]·LS(GNMax) per query, see
  :mod:`~dpteach.pate.release`.

References
----------
.. [PAEGT17] N. Papernot, M. Abadi, Ú. Erlingsson, I. Goodfellow, K. Talwar. "Semi-supervised
   knowledge transfer for deep learning from private training data." ICLR 2017
   (arXiv:1610.05755): LNMax (Sec. 2.2), Thm 3 (data-dependent moments), Lemma 4 (q̃).
.. [PSMRTE18] N. Papernot, S. Song, I. Mironov, A. Raghunathan, K. Talwar, Ú. Erlingsson.
   "Scalable private learning with PATE." ICLR 2018 (arXiv:1802.08908): Alg. 1
   (Confident-GNMax), Thm 6, Prop. 7, 8, 10 and 13, App. C (smooth sensitivity, conditions
   C5–C6, Algorithms 3–5), Thm 23 (GNSS).
.. [BS16] M. Bun, T. Steinke. "Concentrated differential privacy: simplifications,
   extensions, and lower bounds." TCC 2016, Prop. 3.3 (ε-DP implies (ε²/2)-zCDP).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import log_ndtr, logsumexp

from .._validation import (
    ParameterError,
    check_array,
    check_bool,
    check_choice,
    check_delta,
    check_nonnegative,
    check_positive,
    describe,
)
from ..accounting.convert import check_orders, rdp_to_epsilon

__all__ = [
    "DEFAULT_PATE_ORDERS", "MAX_QUERIES", "MAX_CLASSES",
    "check_votes", "gnmax_log_q", "gnmax_rdp", "gnmax_rdp_from_log_q", "gnmax_rdp_data_independent",
    "threshold_log_pr_answered", "threshold_rdp", "threshold_rdp_data_independent",
    "lnmax_log_q", "lnmax_rdp", "lnmax_rdp_data_independent",
    "confident_gnmax_rdp", "PATEPrivacy", "pate_epsilon", "lnmax_epsilon",
]

#: Orders of the analysis in [PSMRTE18]_'s code: 2, 2.5, …, 100, then 100 orders spaced
#: evenly in log from 100 to 500 (296 distinct orders; 100 appears once).
DEFAULT_PATE_ORDERS: tuple[float, ...] = tuple(float(x) for x in np.unique(
    np.concatenate((np.arange(2.0, 100.5, 0.5), np.logspace(2.0, math.log10(500.0), 100)))))

#: Largest number of queries (rows of a vote array).
MAX_QUERIES = 100_000
#: Largest number of classes (columns of a vote array).
MAX_CLASSES = 10_000
_MAX_COUNT = 2.0**53          # counts are exact integers in float64 below this
_MAX_CELLS = 10_000_000       # values × orders in one call of gnmax_rdp_from_log_q


def check_votes(name: str, votes) -> np.ndarray:
    """Validate vote histograms: shape (classes,) or (queries, classes) of counts.

    Counts must be non-negative integer-valued numbers (below 2⁵³), with at least 2 and at
    most :data:`MAX_CLASSES` classes and at most :data:`MAX_QUERIES` queries. Returns a
    float64 array of the same shape; raises ParameterError/TypeError naming ``name``.
    """
    arr = check_array(name, votes, ndim=(1, 2), finite=False, allow_bool=False)
    if arr.size == 0:
        raise ParameterError(f"{name} must not be empty; got {name} of shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ParameterError(f"{name} must hold finite counts; got {name}={describe(arr)} "
                             "with a NaN or infinite value")
    if arr.shape[-1] < 2 or arr.shape[-1] > MAX_CLASSES:
        raise ParameterError(f"{name} must have between 2 and {MAX_CLASSES} classes (last axis); "
                             f"got {name} of shape {arr.shape}")
    if arr.ndim == 2 and arr.shape[0] > MAX_QUERIES:
        raise ParameterError(f"{name} must have at most {MAX_QUERIES} queries (rows); got {name} "
                             f"of shape {arr.shape}")
    if np.any(arr < 0) or np.any(arr >= _MAX_COUNT) or np.any(arr != np.floor(arr)):
        bad = arr[(arr < 0) | (arr >= _MAX_COUNT) | (arr != np.floor(arr))][0]
        raise ParameterError(f"{name} must hold non-negative whole-number counts below 2**53; "
                             f"got a count {describe(float(bad))} in {name}")
    return arr


def _shape_out(x: np.ndarray, votes: np.ndarray):
    """Drop the query axis again for a single (1-d) vote histogram."""
    if votes.ndim == 1:
        x = x[0]
        return float(x) if np.ndim(x) == 0 else x
    return x


def _log1mexp(x: np.ndarray) -> np.ndarray:
    """ln(1 − eˣ) for x ≤ 0, accurate at both ends (−inf at x = 0)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x < -math.log(2), np.log1p(-np.exp(x)), np.log(-np.expm1(x)))


# ---------------------------------------------------------------------------
# Bounds on q̃ = Pr[answer ≠ plurality]
# ---------------------------------------------------------------------------

def _gaps(v: np.ndarray) -> np.ndarray:
    """(queries, classes) gaps n_max − n_j, with +inf at one argmax per row (excluded)."""
    top = np.argmax(v, axis=1)
    gaps = v.max(axis=1, keepdims=True) - v
    gaps[np.arange(v.shape[0]), top] = np.inf
    return gaps


def gnmax_log_q(votes, sigma: float):
    """ln q̃, the bound on Pr[GNMax answer ≠ plurality] of [PSMRTE18]_, Prop. 7.

    q̃ = min(1 − 1/k, Σ_{j ≠ j*} Pr[N(0, 2σ²) ≥ n_{j*} − n_j]) (a union bound over the k − 1
    other classes, capped at 1 − 1/k, which a bound on a non-argmax probability may use).
    Computed in logs (``log_ndtr``), so q̃ as small as e^{−10⁶} is still exact.

    Parameters
    ----------
    votes : array-like, shape (classes,) or (queries, classes)
        Vote counts (:func:`check_votes`).
    sigma : float
        GNMax noise standard deviation σ > 0.

    Returns
    -------
    float or numpy.ndarray
        ln q̃ for one histogram, or one value per query.
    """
    votes = check_votes("votes", votes)
    sigma = check_positive("sigma", sigma)
    v = np.atleast_2d(votes)
    with np.errstate(divide="ignore", over="ignore"):
        terms = log_ndtr(-_gaps(v) / math.sqrt(2.0) / sigma)   # (√2·σ overflows near 1e308)
    log_q = np.minimum(logsumexp(terms, axis=1), math.log1p(-1.0 / v.shape[1]))
    return _shape_out(log_q, votes)


def lnmax_log_q(votes, scale: float):
    """ln q̃ for LNMax (each count plus Laplace(scale)), [PAEGT17]_, Lemma 4.

    For a gap Δ = n_{j*} − n_j, Pr[class j beats j*] = (2 + Δ/b)·e^{−Δ/b}/4 with b the scale;
    q̃ is the union bound over j ≠ j*, capped at 1 − 1/k.

    Parameters
    ----------
    votes : array-like, shape (classes,) or (queries, classes)
    scale : float
        Laplace scale b > 0 (the 2017 paper's 1/γ).

    Returns
    -------
    float or numpy.ndarray
    """
    votes = check_votes("votes", votes)
    scale = check_positive("scale", scale)
    v = np.atleast_2d(votes)
    with np.errstate(over="ignore", invalid="ignore"):
        g = _gaps(v) / scale
        terms = np.where(np.isinf(g), -np.inf, np.log(2.0 + g) - math.log(4.0) - g)
    log_q = np.minimum(logsumexp(terms, axis=1), math.log1p(-1.0 / v.shape[1]))
    return _shape_out(log_q, votes)


# ---------------------------------------------------------------------------
# RDP: data-independent curves and Thm 6
# ---------------------------------------------------------------------------

def gnmax_rdp_data_independent(orders, sigma: float) -> np.ndarray:
    """RDP of GNMax whatever the votes: λ/σ² ([PSMRTE18]_, Prop. 8; ℓ2 sensitivity √2)."""
    orders = check_orders("orders", orders)
    sigma = check_positive("sigma", sigma)
    with np.errstate(over="ignore", under="ignore"):
        return orders / sigma / sigma


def threshold_rdp_data_independent(orders, sigma1: float) -> np.ndarray:
    """RDP of the threshold step whatever the votes: λ/(2σ₁²) (max vote has sensitivity 1)."""
    orders = check_orders("orders", orders)
    sigma1 = check_positive("sigma1", sigma1)
    with np.errstate(over="ignore", under="ignore"):
        return orders / sigma1 / sigma1 / 2.0


def lnmax_rdp_data_independent(orders, scale: float) -> np.ndarray:
    """RDP of LNMax whatever the votes: min(ε, λε²/2) with ε = 2/b.

    LNMax is ε-DP with ε = 2/b ([PAEGT17]_, Sec. 2.2: one vote moves two counts); ε-DP gives
    D_λ ≤ ε at every order and (ε²/2)-zCDP ([BS16]_, Prop. 3.3), i.e. λε²/2.
    """
    orders = check_orders("orders", orders)
    scale = check_positive("scale", scale)
    eps = 2.0 / scale
    with np.errstate(over="ignore"):
        return np.minimum(eps, orders * eps * eps / 2.0)


def _q_expm1(lq, u):
    """q̃·(e^u − 1) for q̃ = e^{ln q̃}, without 0·inf when q̃ underflows and u is large."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(u > 30.0, np.exp(lq + u) * -np.expm1(-u),
                        np.exp(lq) * np.expm1(np.minimum(u, 30.0)))


def _log_mixture(lq, log_a, log_b, lam):
    """ln((1 − q)·A^{λ−1} + q·B^{λ−1}) / (λ − 1), accurate when the result is tiny.

    Written as log1p((1 − q)·expm1(a) + q·expm1(b)) with a = (λ−1)·ln A, b = (λ−1)·ln B
    (the weights add up to one), which keeps its digits at orders near 1 and for huge σ;
    where a or b is large the plain log-sum-exp is exact enough and cannot overflow.
    """
    a = (lam - 1.0) * log_a
    b = (lam - 1.0) * log_b
    q = np.exp(lq)
    small = (a <= 1.0) & (b <= 1.0)
    near = np.log1p((1.0 - q) * np.expm1(np.where(small, a, 0.0))
                    + q * np.expm1(np.where(small, b, 0.0)))
    far = np.logaddexp(_log1mexp(lq) + a, lq + b)
    return np.where(small, near, far) / (lam - 1.0)


def _underflow_rdp(sigma: float, lam: np.ndarray, data_independent: np.ndarray) -> np.ndarray:
    """The bound where ln q̃ underflowed to −inf (q̃ < e^{−1.8·10³⁰⁸}; or a fixed answer).

    Then μ₂ = σ√(ln 1/q̃) exceeds m = σ·√FMAX, and the q̃·B^{λ−1} term of Thm 6 is
    exp(((λ−1)(2μ₂+1) − μ₂²)/σ²): it vanishes for λ − 1 < m²/(2m + 1), where the bound is 0;
    beyond, the data-independent λ/σ² is kept.
    """
    m = sigma * math.sqrt(np.finfo(float).max)
    limit = m / (2.0 + 1.0 / m) if math.isfinite(m) else math.inf     # m²/(2m + 1)
    return np.where(lam - 1.0 < limit, 0.0, data_independent)


def _thm6_rdp(log_q: np.ndarray, sigma: float, orders: np.ndarray) -> np.ndarray:
    """Thm 6 of [PSMRTE18]_ for a mechanism that is (μ, μ/σ²)-RDP at every μ, shape (Q, O).

    With the choice of Prop. 10, μ₂ = σ·√(ln 1/q̃), μ₁ = μ₂ + 1, ε_i = μ_i/σ²:

        D_λ ≤ 1/(λ−1) · ln((1 − q̃)·A^{λ−1} + q̃·B^{λ−1}),
        A = (1 − q̃)/(1 − (q̃·e^{ε₂})^{(μ₂−1)/μ₂}),  B = e^{ε₁}/q̃^{1/(μ₁−1)},

    where its conditions hold (each named below); elsewhere, and wherever it is larger, the
    data-independent λ/σ². So the result never exceeds λ/σ².
    """
    lq = np.asarray(log_q, dtype=float).reshape(-1, 1)
    lam = orders.reshape(1, -1)
    with np.errstate(all="ignore"):
        data_independent = np.broadcast_to(lam / sigma / sigma, (lq.shape[0], lam.shape[1]))
        mu2 = sigma * np.sqrt(-lq)
        mu1 = mu2 + 1.0
        eps1, eps2 = mu1 / sigma / sigma, mu2 / sigma / sigma
        mu2_above_one = mu2 > 1.0                                  # Thm 6 needs μ₂ > 1
        order_at_most_mu1 = lam <= mu1                             # λ ≤ μ₁
        a_positive = -lq > eps2                                    # q̃·e^{ε₂} < 1
        q_small = lq <= (mu2 - 1.0) * eps2 - mu2 * (np.log1p(1.0 / (mu1 - 1.0))
                                                     + np.log1p(1.0 / (mu2 - 1.0)))
        valid = mu2_above_one & order_at_most_mu1 & a_positive & q_small & np.isfinite(lq)
        # ln A = ln((1 − q̃)/(1 − e^x)), x = (ln q̃ + ε₂)(1 − 1/μ₂) = ln q̃ + u, written as
        # log1p(q̃·(e^u − 1)/(1 − e^x)) so that A ≈ 1 keeps its digits
        u = eps2 * (1.0 - 1.0 / mu2) - lq / mu2
        log_a = np.log1p(_q_expm1(lq, u) / np.abs(np.expm1(lq + u)))   # A → ∞ as x → 0⁻
        log_b = eps1 - lq / (mu1 - 1.0)
        dd = _log_mixture(lq, log_a, log_b, lam)
        dd = np.where(np.isnan(dd), np.inf, dd)      # only at the conditions' edges: A or B → ∞
        out = np.where(valid, np.minimum(dd, data_independent), data_independent)
        out = np.where(np.isneginf(lq), _underflow_rdp(sigma, lam, data_independent), out)
    return np.maximum(out, 0.0)


def gnmax_rdp_from_log_q(orders, log_q, sigma: float) -> np.ndarray:
    """Thm 6 of [PSMRTE18]_ from a bound ln q̃ (any mechanism that is (μ, μ/σ²)-RDP at all μ).

    The seam between the per-query bound (:func:`gnmax_rdp`) and the smooth-sensitivity
    analysis (:mod:`dpteach.pate.release`), which needs the bound as a function of
    q̃. ``log_q`` is a number or 1-d array of values ≤ 0 (−inf allowed: a fixed answer, RDP 0).

    Returns
    -------
    numpy.ndarray
        Shape (len(log_q), orders); never above λ/σ².
    """
    orders = check_orders("orders", orders)
    lq = check_array("log_q", log_q, ndim=(0, 1), finite=False, allow_bool=False,
                     min_size=0).reshape(-1)
    if np.any(np.isnan(lq)) or np.any(lq > 0):
        raise ParameterError(f"log_q must hold logs of probabilities (≤ 0, -inf allowed); "
                             f"got log_q={describe(lq)}")
    if lq.size * orders.size > _MAX_CELLS:
        raise ParameterError(f"len(log_q) × len(orders) must be at most {_MAX_CELLS:,}; got "
                             f"{lq.size} values of log_q and {orders.size} orders")
    sigma = check_positive("sigma", sigma)
    return _thm6_rdp(lq, sigma, orders)


def gnmax_rdp(orders, votes, sigma: float) -> np.ndarray:
    """Data-dependent RDP of one GNMax answer ([PSMRTE18]_, Thm 6 with Prop. 7 and 10).

    **Not private**: the value depends on the votes (see
    :func:`dpteach.pate.release.sanitised_epsilon`).
    Never larger than :func:`gnmax_rdp_data_independent`.

    Parameters
    ----------
    orders : array-like of float
        Rényi orders λ > 1.
    votes : array-like, shape (classes,) or (queries, classes)
    sigma : float
        σ > 0.

    Returns
    -------
    numpy.ndarray
        Shape (orders,) for one histogram, (queries, orders) for several.
    """
    orders = check_orders("orders", orders)
    log_q = np.atleast_1d(gnmax_log_q(votes, sigma))
    out = _thm6_rdp(log_q, float(sigma), orders)
    return out[0] if np.ndim(votes) == 1 else out


def threshold_log_pr_answered(votes, threshold: float, sigma1: float):
    """ln Pr[max_j n_j + N(0, σ₁²) ≥ T], the chance Confident-GNMax answers ([PSMRTE18]_, Alg. 1).

    Returns a float for one histogram, one value per query otherwise.
    """
    votes = check_votes("votes", votes)
    threshold = check_nonnegative("threshold", threshold)
    sigma1 = check_positive("sigma1", sigma1)
    top = np.atleast_2d(votes).max(axis=1)
    with np.errstate(over="ignore", invalid="ignore"):
        out = log_ndtr((top - threshold) / sigma1)
    return _shape_out(out, votes)


def _threshold_log_q(top: np.ndarray, threshold: float, sigma1: float) -> np.ndarray:
    """ln min(p, 1 − p) with p = Pr[answered], both tails from ``log_ndtr``."""
    with np.errstate(over="ignore", invalid="ignore"):
        z = (top - threshold) / sigma1
        return np.minimum(log_ndtr(z), log_ndtr(-z))


def threshold_rdp(orders, votes, threshold: float, sigma1: float) -> np.ndarray:
    """Data-dependent RDP of the threshold step: Thm 6 of [PSMRTE18]_ on a binary outcome.

    The likely outcome is whichever of "answer" / "no answer" is likelier, q̃ the chance of the
    other; the step is (μ, μ/(2σ₁²))-RDP, i.e. Thm 6 with σ√2. **Not private** (depends on the
    votes); never larger than :func:`threshold_rdp_data_independent`. Shapes as
    :func:`gnmax_rdp`.
    """
    orders = check_orders("orders", orders)
    votes = check_votes("votes", votes)
    threshold = check_nonnegative("threshold", threshold)
    sigma1 = check_positive("sigma1", sigma1)
    log_q = _threshold_log_q(np.atleast_2d(votes).max(axis=1), threshold, sigma1)
    out = _thm6_rdp(log_q, math.sqrt(2.0) * sigma1, orders)
    # the same cap as threshold_rdp_data_independent, rounded the same way
    with np.errstate(over="ignore", under="ignore"):
        out = np.minimum(out, orders / sigma1 / sigma1 / 2.0)
    return out[0] if votes.ndim == 1 else out


def lnmax_rdp(orders, votes, scale: float) -> np.ndarray:
    """Data-dependent RDP of one LNMax answer ([PAEGT17]_, Thm 3, written as RDP).

    With ε = 2/b and q̃ from :func:`lnmax_log_q`, if q̃ < 1/(e^ε + 1) the moments bound of order
    l = λ − 1 gives D_λ ≤ 1/(λ−1)·ln((1 − q̃)·((1 − q̃)/(1 − e^ε q̃))^{λ−1} + q̃·e^{ε(λ−1)}); the
    result is the minimum of that and :func:`lnmax_rdp_data_independent`. **Not private.**
    Shapes as :func:`gnmax_rdp`.
    """
    orders = check_orders("orders", orders)
    votes = check_votes("votes", votes)
    scale = check_positive("scale", scale)
    lq = np.atleast_1d(lnmax_log_q(votes, scale)).reshape(-1, 1)
    eps = 2.0 / scale
    lam = orders.reshape(1, -1)
    base = np.broadcast_to(lnmax_rdp_data_independent(orders, scale).reshape(1, -1),
                           (lq.shape[0], lam.shape[1]))
    with np.errstate(all="ignore"):
        valid = lq < -np.logaddexp(0.0, eps)                       # q̃ < 1/(e^ε + 1)
        # ln((1 − q̃)/(1 − e^ε q̃)) = log1p(q̃·(e^ε − 1)/(1 − e^ε q̃))
        log_a = np.log1p(_q_expm1(lq, eps) / np.abs(np.expm1(eps + lq)))
        dd = _log_mixture(lq, log_a, eps, lam)
        out = np.where(valid, np.minimum(dd, base), base)
        # q̃ underflowed: the answer is the plurality but for a chance below e^{−1.8e308};
        # the q̃·e^{ε(λ−1)} term vanishes while ε(λ−1) is finite
        out = np.where(np.isneginf(lq), np.where(np.isfinite(eps * (lam - 1.0)), 0.0, base), out)
    out = np.maximum(out, 0.0)
    return out[0] if votes.ndim == 1 else out


# ---------------------------------------------------------------------------
# A whole run
# ---------------------------------------------------------------------------

def _check_answered(answered, n_queries: int):
    if answered is None:
        return None
    arr = np.asarray(answered)
    if arr.dtype != bool or arr.shape != (n_queries,):
        raise ParameterError(f"answered must be a boolean mask with one entry per query "
                             f"({n_queries}); got answered={describe(answered)}")
    return arr


def confident_gnmax_rdp(orders, votes, threshold: float, sigma1: float, sigma2: float, *,
                        answered=None, data_dependent: bool = True) -> np.ndarray:
    """Total RDP of a run of Confident-GNMax ([PSMRTE18]_, Alg. 1) over the queries' votes.

    Every query pays the threshold step; GNMax is paid on the answered ones (``answered``, a
    boolean mask: the deployment convention), or, with ``answered=None``, in expectation:
    Σ_i [thr_i + Pr[answered_i]·gn_i] (the convention of [PSMRTE18]_'s tables).
    ``data_dependent=False`` uses the data-independent curves of both steps (and, in the
    expected convention, the true Pr[answered], as the paper's code does). RDP composes by
    adding curves (Mironov 2017, Prop. 1), also adaptively.

    Returns
    -------
    numpy.ndarray
        One total RDP value per order.
    """
    orders = check_orders("orders", orders)
    v = np.atleast_2d(check_votes("votes", votes))
    threshold = check_nonnegative("threshold", threshold)
    sigma1 = check_positive("sigma1", sigma1)
    sigma2 = check_positive("sigma2", sigma2)
    data_dependent = check_bool("data_dependent", data_dependent)
    mask = _check_answered(answered, v.shape[0])
    if data_dependent:
        thr = threshold_rdp(orders, v, threshold, sigma1).sum(axis=0)
        gn = gnmax_rdp(orders, v, sigma2)
    else:
        thr = v.shape[0] * threshold_rdp_data_independent(orders, sigma1)
        gn = np.broadcast_to(gnmax_rdp_data_independent(orders, sigma2), (v.shape[0], orders.size))
    if mask is None:
        p = np.exp(threshold_log_pr_answered(v, threshold, sigma1)).reshape(-1, 1)
        with np.errstate(invalid="ignore"):
            return thr + np.where(p > 0, p * gn, 0.0).sum(axis=0)    # never answered: 0, not 0·inf
    return thr + gn[mask].sum(axis=0)


@dataclass(frozen=True)
class PATEPrivacy:
    """The privacy spent by a PATE run (see :func:`pate_epsilon`)."""

    epsilon: float
    order: float
    delta: float
    answered: float           # answered queries (expected number in the "expected" convention)
    convention: str           # "answered", "expected" or "all" (no threshold step)
    data_dependent: bool      # True: a function of the votes, not publishable as is
    rdp: np.ndarray = field(repr=False)
    orders: np.ndarray = field(repr=False)

    @property
    def publishable(self) -> bool:
        """Whether ε is a function of public quantities only (σ's, T, δ, and the numbers of
        queries and of answers, themselves DP outputs): data-independent curves, and not the
        expected convention, which weighs GNMax by the true Pr[answered] (from the votes)."""
        return not self.data_dependent and self.convention != "expected"


def _to_privacy(rdp, orders, delta, conversion, answered, convention, data_dependent):
    eps, order = rdp_to_epsilon(orders, rdp, delta, conversion=conversion)
    return PATEPrivacy(eps, order, delta, float(answered), convention, data_dependent, rdp, orders)


def pate_epsilon(votes, *, sigma2: float, delta: float, threshold: float | None = None,
                 sigma1: float | None = None, answered=None, data_dependent: bool = True,
                 orders=DEFAULT_PATE_ORDERS, conversion: str = "classic") -> PATEPrivacy:
    """(ε, δ) of GNMax or Confident-GNMax over a batch of queries.

    Without ``threshold``: plain GNMax on every query (or on the ``answered`` ones). With
    ``threshold`` and ``sigma1``: Confident-GNMax, in the answered convention if ``answered``
    is given and in the expected convention otherwise (:func:`confident_gnmax_rdp`). The RDP
    curve is converted at the best order ([PSMRTE18]_ use the classic conversion
    ε = r(λ) + ln(1/δ)/(λ−1); ``conversion="improved"`` is also available, see
    :func:`~dpteach.accounting.convert.rdp_to_epsilon`).

    With ``data_dependent=True`` the result is a function of the votes and must not be
    published as is; see :func:`dpteach.pate.release.sanitised_epsilon`.

    Examples (10 classes): data-independent GNMax, σ = 40, 100 queries, δ = 10⁻⁵ gives
    ε ≈ 1.759; the five queries [[250], [220, 20, 10], [150, 60, 40], [100, 90, 60],
    [180, 70]] with T = 200, σ₁ = 150, σ₂ = 40 give E[answered] ≈ 2.2525 and ε ≈ 0.2505.
    """
    v = np.atleast_2d(check_votes("votes", votes))
    sigma2 = check_positive("sigma2", sigma2)
    delta = check_delta("delta", delta, allow_zero=False)
    data_dependent = check_bool("data_dependent", data_dependent)
    orders = check_orders("orders", orders)
    conversion = check_choice("conversion", conversion, {"classic", "improved"})
    if (threshold is None) != (sigma1 is None):
        raise ParameterError("threshold and sigma1 must be given together (Confident-GNMax) or "
                             f"both omitted (GNMax); got threshold={describe(threshold)}, "
                             f"sigma1={describe(sigma1)}")
    mask = _check_answered(answered, v.shape[0])
    if threshold is not None:
        rdp = confident_gnmax_rdp(orders, v, threshold, sigma1, sigma2, answered=mask,
                                  data_dependent=data_dependent)
        if mask is None:
            n = float(np.exp(threshold_log_pr_answered(v, threshold, sigma1)).sum())
            return _to_privacy(rdp, orders, delta, conversion, n, "expected", data_dependent)
        return _to_privacy(rdp, orders, delta, conversion, mask.sum(), "answered", data_dependent)
    rows = v if mask is None else v[mask]
    if rows.shape[0] == 0:
        rdp = np.zeros(orders.size)
    elif data_dependent:
        rdp = gnmax_rdp(orders, rows, sigma2).sum(axis=0)
    else:
        rdp = rows.shape[0] * gnmax_rdp_data_independent(orders, sigma2)
    return _to_privacy(rdp, orders, delta, conversion, rows.shape[0],
                       "all" if mask is None else "answered", data_dependent)


def lnmax_epsilon(votes, *, scale: float, delta: float, answered=None,
                  data_dependent: bool = True, orders=DEFAULT_PATE_ORDERS,
                  conversion: str = "classic") -> PATEPrivacy:
    """(ε, δ) of LNMax answers to a batch of queries (all of them, or the ``answered`` ones).

    Data-dependent: [PAEGT17]_, Thm 3 per query (:func:`lnmax_rdp`), composed and converted
    like :func:`pate_epsilon`; data-independent: :func:`lnmax_rdp_data_independent`.
    """
    v = np.atleast_2d(check_votes("votes", votes))
    scale = check_positive("scale", scale)
    delta = check_delta("delta", delta, allow_zero=False)
    data_dependent = check_bool("data_dependent", data_dependent)
    orders = check_orders("orders", orders)
    conversion = check_choice("conversion", conversion, {"classic", "improved"})
    mask = _check_answered(answered, v.shape[0])
    rows = v if mask is None else v[mask]
    if rows.shape[0] == 0:
        rdp = np.zeros(orders.size)
    elif data_dependent:
        rdp = lnmax_rdp(orders, rows, scale).sum(axis=0)
    else:
        rdp = rows.shape[0] * lnmax_rdp_data_independent(orders, scale)
    return _to_privacy(rdp, orders, delta, conversion, rows.shape[0],
                       "all" if mask is None else "answered", data_dependent)
