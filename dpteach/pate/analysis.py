"""Privacy of PATE's noisy votes: data-independent and data-dependent Rényi DP.

One changed record changes one teacher, so it moves one vote of each query's histogram ``n``
(:mod:`dpteach.pate.teachers`): two counts change by one.

* **Data-independent**: GNMax is (λ, λ/σ²)-RDP ([PSMRTE18]_, Prop. 8), LNMax 2/b-DP
  ([PAEGT17]_). A function of σ, T, δ and the numbers of queries and of answers only:
  publishable (:attr:`PATEPrivacy.publishable`).
* **Data-dependent**: when the teachers agree, the noisy answer is almost surely the
  plurality; if q̃ bounds Pr[answer ≠ plurality] (Prop. 7), Thm 6 of [PSMRTE18]_ (Thm 3 of
  [PAEGT17]_ for LNMax) gives a much smaller RDP. It is computed *from the private votes*:
  **not** publishable as is (:func:`dpteach.pate.release.sanitised_epsilon` releases a noisy
  version of it, whose own cost is charged in it).

The ε of a run of Confident-GNMax (:func:`pate_epsilon`) charges GNMax on the queries that
passed the threshold (the *answered* convention: what a deployment spent, given the run); RDP
composes by adding curves ([M17]_, Prop. 1), also adaptively. The tables of [PSMRTE18]_
report something else, an **expected cost** (:func:`pate_expected_cost`): every query is
charged Pr[answered]·(GNMax cost), with Pr[answered] computed from the votes. It forecasts
what running the queries will cost; it is not a guarantee and is never reported as ε.

References
----------
.. [PAEGT17] N. Papernot, M. Abadi, Ú. Erlingsson, I. Goodfellow, K. Talwar. "Semi-supervised
   knowledge transfer for deep learning from private training data." ICLR 2017
   (arXiv:1610.05755): LNMax (Sec. 2.2), Thm 3 (data-dependent moments), Lemma 4 (q̃).
.. [PSMRTE18] N. Papernot, S. Song, I. Mironov, A. Raghunathan, K. Talwar, Ú. Erlingsson.
   "Scalable private learning with PATE." ICLR 2018 (arXiv:1802.08908): Alg. 1
   (Confident-GNMax), Thm 6, Prop. 7, 8 and 10.
.. [M17] I. Mironov. "Rényi differential privacy." CSF 2017: Prop. 1 (composition), Prop. 3
   (conversion to (ε, δ)).
.. [BS16] M. Bun, T. Steinke. "Concentrated differential privacy: simplifications,
   extensions, and lower bounds." TCC 2016, Prop. 3.3 (ε-DP implies (ε²/2)-zCDP).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import log_ndtr, logsumexp

from .._validation import (DELTA_POSITIVE, FLAG, SCALE, Domain, array, choice, refuse,
                           real, validate)
from ..accounting.convert import rdp_to_epsilon
from .aggregators import THRESHOLD
from .teachers import MAX_QUERIES, VOTES

__all__ = [
    "DEFAULT_PATE_ORDERS", "ORDERS", "ORDER", "LOG_Q", "ANSWERED",
    "gnmax_log_q", "lnmax_log_q", "threshold_log_pr_answered",
    "gnmax_rdp_data_independent", "threshold_rdp_data_independent", "lnmax_rdp_data_independent",
    "gnmax_rdp", "gnmax_rdp_from_log_q", "threshold_rdp", "lnmax_rdp",
    "confident_gnmax_rdp", "PATEPrivacy", "pate_epsilon", "lnmax_epsilon",
    "PATEExpectedCost", "pate_expected_cost",
]

#: Orders of the analysis in [PSMRTE18]_'s code: 2, 2.5, …, 100, then 100 orders spaced
#: evenly in log from 100 to 500 (296 distinct orders; 100 appears once).
DEFAULT_PATE_ORDERS: tuple[float, ...] = tuple(float(x) for x in np.unique(
    np.concatenate((np.arange(2.0, 100.5, 0.5), np.logspace(2.0, math.log10(500.0), 100)))))

_ORDERS = array(ndim=(0, 1), low=1.01, high=10_000, max_size=300, example=[2.0, 20.0])
#: Rényi orders λ: a number or up to 300 of them (returned as a 1-D array)
ORDERS = Domain(_ORDERS.text, lambda name, value: _ORDERS(name, value).reshape(-1),
                example=_ORDERS.example, edges=_ORDERS.edges, bad=_ORDERS.bad)
#: one Rényi order λ
ORDER = real(1.01, 10_000, example=20.0)
#: ln q̃, a bound on a probability: ≤ 0, and not below what votes in [0, 2⁵³) produce
LOG_Q = array(ndim=(0, 1), low=-1e60, high=0.0, min_size=0, max_size=MAX_QUERIES,
              example=[-5.66])
#: which queries were answered: None, or a boolean mask, one entry per query
ANSWERED = Domain("None or a 1-D boolean mask (one entry per query)",
                  lambda name, value: _mask(name, value), example=None, edges=(None,),
                  bad=["yes", 1.0, [1, 0], [[True, False]], [[True], [False, True]],
                       [True, [False]], np.ones(3), [None]])
CONVERSION = choice("classic", "improved")
#: an ε, an RDP value or a count spent: a number ≥ 0
SPENT = real(0.0, math.inf)


# ---------------------------------------------------------------- bounds on q̃ (Prop. 7)
@validate(votes=VOTES, sigma=SCALE)
def gnmax_log_q(votes, sigma: float) -> float | np.ndarray:
    """ln q̃, a bound on Pr[GNMax answer ≠ plurality] ([PSMRTE18]_, Prop. 7).

    Class j beats the plurality j* only if its noise exceeds j*'s by the gap n_{j*} − n_j,
    which has probability Pr[N(0, 2σ²) ≥ n_{j*} − n_j]. A union bound over the k − 1 other
    classes, capped at 1 − 1/k (the cap a bound on a non-argmax probability may use):

        q̃ = min(1 − 1/k, Σ_{j ≠ j*} Φ(−(n_{j*} − n_j)/(σ√2))).

    Computed in logs (``log_ndtr``), so q̃ as small as e^{−10⁶} is still exact. Returns a
    float for one histogram, one value per query otherwise.
    """
    v = np.atleast_2d(votes)
    with np.errstate(divide="ignore"):                 # the plurality's own gap is +inf
        terms = log_ndtr(-_gaps(v) / math.sqrt(2.0) / sigma)
    log_q = np.minimum(logsumexp(terms, axis=1), math.log1p(-1.0 / v.shape[1]))
    return _per_query(log_q, votes)


@validate(votes=VOTES, scale=SCALE)
def lnmax_log_q(votes, scale: float) -> float | np.ndarray:
    """ln q̃ for LNMax (each count plus Laplace noise of scale b), [PAEGT17]_, Lemma 4.

    For a gap Δ = n_{j*} − n_j, Pr[class j beats j*] = (2 + Δ/b)·e^{−Δ/b}/4; q̃ is the union
    bound over j ≠ j*, capped at 1 − 1/k. b is the 2017 paper's 1/γ.
    """
    v = np.atleast_2d(votes)
    g = _gaps(v) / scale
    with np.errstate(invalid="ignore"):                # the plurality's own gap is +inf
        terms = np.where(np.isinf(g), -np.inf, np.log(2.0 + g) - math.log(4.0) - g)
    log_q = np.minimum(logsumexp(terms, axis=1), math.log1p(-1.0 / v.shape[1]))
    return _per_query(log_q, votes)


@validate(votes=VOTES, threshold=THRESHOLD, sigma1=SCALE)
def threshold_log_pr_answered(votes, threshold: float, sigma1: float) -> float | np.ndarray:
    """ln Pr[max_j n_j + N(0, σ₁²) ≥ T], the chance Confident-GNMax answers ([PSMRTE18]_,
    Alg. 1): ln Φ((max_j n_j − T)/σ₁).

    Returns a float for one histogram, one value per query otherwise.
    """
    top = np.atleast_2d(votes).max(axis=1)
    return _per_query(log_ndtr((top - threshold) / sigma1), votes)


# ----------------------------------------------------- RDP whatever the votes (Prop. 8)
@validate(orders=ORDERS, sigma=SCALE)
def gnmax_rdp_data_independent(orders, sigma: float) -> np.ndarray:
    """RDP of GNMax whatever the votes: λ/σ² ([PSMRTE18]_, Prop. 8).

    One vote moves two counts by one, an ℓ2 change of √2, and Gaussian noise N(0, σ²) on a
    query of ℓ2 sensitivity Δ is (λ, λΔ²/(2σ²))-RDP ([M17]_, Prop. 7).
    """
    return orders / sigma / sigma


@validate(orders=ORDERS, sigma1=SCALE)
def threshold_rdp_data_independent(orders, sigma1: float) -> np.ndarray:
    """RDP of the threshold step whatever the votes: λ/(2σ₁²) (the max vote has ℓ2
    sensitivity 1)."""
    return orders / sigma1 / sigma1 / 2.0


@validate(orders=ORDERS, scale=SCALE)
def lnmax_rdp_data_independent(orders, scale: float) -> np.ndarray:
    """RDP of LNMax whatever the votes: min(ε, λε²/2) with ε = 2/b.

    LNMax is ε-DP with ε = 2/b ([PAEGT17]_, Sec. 2.2: one vote moves two counts); ε-DP gives
    D_λ ≤ ε at every order and (ε²/2)-zCDP ([BS16]_, Prop. 3.3), i.e. λε²/2.
    """
    eps = 2.0 / scale
    return np.minimum(eps, orders * eps * eps / 2.0)


# ------------------------------------------------------ RDP given the votes (Thm 6)
@validate(orders=ORDERS, votes=VOTES, sigma=SCALE)
def gnmax_rdp(orders, votes, sigma: float) -> np.ndarray:
    """Data-dependent RDP of one GNMax answer ([PSMRTE18]_, Thm 6 with Prop. 7 and 10).

    GNMax is (μ, μ/σ²)-RDP at every order μ (Prop. 8). When the teachers agree, its answer
    is almost surely the plurality: with q̃ ≥ Pr[answer ≠ plurality] (:func:`gnmax_log_q`,
    Prop. 7), Thm 6 bounds the RDP of order λ by

        β(λ) = 1/(λ−1) · ln((1 − q̃)·A^{λ−1} + q̃·B^{λ−1}),
        A = (1 − q̃) / (1 − (q̃·e^{ε₂})^{(μ₂−1)/μ₂}),    B = e^{ε₁} / q̃^{1/(μ₁−1)},

    for any two orders μ₁, μ₂ with ε_i = μ_i/σ²; Prop. 10 chooses μ₂ = σ·√(ln 1/q̃) and
    μ₁ = μ₂ + 1. Thm 6 needs μ₂ > 1, λ ≤ μ₁, q̃·e^{ε₂} < 1 and
    q̃ ≤ e^{(μ₂−1)ε₂} / (μ₁/(μ₁−1) · μ₂/(μ₂−1))^{μ₂}; where one fails, and wherever β is
    larger, the data-independent λ/σ² is used, so the result never exceeds it.

    **Not private**: the value depends on the votes. Returns shape (orders,) for one
    histogram, (queries, orders) for several.
    """
    log_q = np.atleast_1d(gnmax_log_q(votes, sigma))
    return _per_query(_thm6_rdp(log_q, sigma, orders), votes)


@validate(orders=ORDERS, log_q=LOG_Q, sigma=SCALE)
def gnmax_rdp_from_log_q(orders, log_q, sigma: float) -> np.ndarray:
    """Thm 6 of [PSMRTE18]_ from a bound ln q̃, for any mechanism that is (μ, μ/σ²)-RDP at
    every μ (formula and conditions: :func:`gnmax_rdp`).

    :mod:`dpteach.pate.release` needs the bound as a function of q̃. Shape (len(log_q),
    orders); never above λ/σ².
    """
    return _thm6_rdp(log_q.reshape(-1), sigma, orders)


@validate(orders=ORDERS, votes=VOTES, threshold=THRESHOLD, sigma1=SCALE)
def threshold_rdp(orders, votes, threshold: float, sigma1: float) -> np.ndarray:
    """Data-dependent RDP of the threshold step: Thm 6 of [PSMRTE18]_ on a binary outcome.

    The likely outcome is whichever of "answer" / "no answer" is likelier, q̃ the chance of
    the other; the step is (μ, μ/(2σ₁²))-RDP, i.e. Thm 6 with σ√2. **Not private** (depends
    on the votes); never larger than :func:`threshold_rdp_data_independent`. Shapes as
    :func:`gnmax_rdp`.
    """
    z = (np.atleast_2d(votes).max(axis=1) - threshold) / sigma1
    log_q = np.minimum(log_ndtr(z), log_ndtr(-z))          # ln min(p, 1 − p)
    out = _thm6_rdp(log_q, math.sqrt(2.0) * sigma1, orders)
    # the same cap as threshold_rdp_data_independent, rounded the same way
    return _per_query(np.minimum(out, orders / sigma1 / sigma1 / 2.0), votes)


@validate(orders=ORDERS, votes=VOTES, scale=SCALE)
def lnmax_rdp(orders, votes, scale: float) -> np.ndarray:
    """Data-dependent RDP of one LNMax answer ([PAEGT17]_, Thm 3, written as RDP).

    With ε = 2/b and q̃ from :func:`lnmax_log_q`, if q̃ < 1/(e^ε + 1) the moments bound of
    order l = λ − 1 gives D_λ ≤ 1/(λ−1)·ln((1 − q̃)·((1 − q̃)/(1 − e^ε q̃))^{λ−1} +
    q̃·e^{ε(λ−1)}); the result is the minimum of that and
    :func:`lnmax_rdp_data_independent`. **Not private.** Shapes as :func:`gnmax_rdp`.
    """
    lq = np.atleast_1d(lnmax_log_q(votes, scale)).reshape(-1, 1)
    eps = 2.0 / scale
    lam = orders.reshape(1, -1)
    base = lnmax_rdp_data_independent(orders, scale).reshape(1, -1)
    valid = lq < -np.logaddexp(0.0, eps)                        # q̃ < 1/(e^ε + 1)
    with np.errstate(all="ignore"):                  # where not valid: replaced by the base
        # ln((1 − q̃)/(1 − e^ε q̃)) = log1p(q̃·(e^ε − 1)/(1 − e^ε q̃))
        log_a = np.log1p(_q_expm1(lq, eps) / np.abs(np.expm1(eps + lq)))
        dd = _log_mixture(lq, log_a, eps, lam)
    out = np.where(valid, np.minimum(dd, base), base)
    return _per_query(np.maximum(out, 0.0), votes)


# ------------------------------------------------------------------------- a whole run
@validate(orders=ORDERS, votes=VOTES, threshold=THRESHOLD, sigma1=SCALE, sigma2=SCALE,
          answered=ANSWERED, data_dependent=FLAG)
def confident_gnmax_rdp(orders, votes, threshold: float, sigma1: float, sigma2: float, *,
                        answered=None, data_dependent: bool = True) -> np.ndarray:
    """Total RDP of a run of Confident-GNMax ([PSMRTE18]_, Alg. 1) over the queries' votes.

    Every query pays the threshold step; GNMax is paid on the queries the run answered
    (``answered``, a boolean mask, required): Σ_i thr_i + Σ_{i answered} gn_i.
    ``data_dependent=False`` uses the data-independent curves of both steps. Returns one
    total RDP value per order.
    """
    v = np.atleast_2d(votes)
    _need_answered(answered)
    _one_per_query(answered, v)
    thr, gn = _confident_gnmax_parts(orders, v, threshold, sigma1, sigma2, data_dependent)
    return thr + gn[answered].sum(axis=0)


@validate(epsilon=SPENT, order=ORDER, delta=DELTA_POSITIVE,
          answered=real(0.0, MAX_QUERIES), convention=choice("answered", "all"),
          data_dependent=FLAG, rdp=array(ndim=1, low=0.0, max_size=300), orders=ORDERS)
@dataclass(frozen=True)
class PATEPrivacy:
    """The privacy spent by a PATE run (see :func:`pate_epsilon`): an (ε, δ) bound."""

    epsilon: float
    order: float
    delta: float
    answered: float           # number of answered queries
    convention: str           # "answered" (GNMax charged on those) or "all" (every query)
    data_dependent: bool      # True: a function of the votes, not publishable as is
    rdp: np.ndarray = field(repr=False)
    orders: np.ndarray = field(repr=False)

    @property
    def publishable(self) -> bool:
        """Whether ε is a function of public quantities only (σ's, T, δ, and the numbers of
        queries and of answers, themselves DP outputs): the data-independent curves."""
        return not self.data_dependent


@validate(votes=VOTES, sigma2=SCALE, delta=DELTA_POSITIVE, threshold=THRESHOLD.or_none(),
          sigma1=SCALE.or_none(), answered=ANSWERED, data_dependent=FLAG, orders=ORDERS,
          conversion=CONVERSION)
def pate_epsilon(votes, *, sigma2: float, delta: float, threshold: float | None = None,
                 sigma1: float | None = None, answered=None, data_dependent: bool = True,
                 orders=DEFAULT_PATE_ORDERS, conversion: str = "classic") -> PATEPrivacy:
    """(ε, δ) of GNMax or Confident-GNMax over a batch of queries: a bound.

    Without ``threshold``: plain GNMax on every query (or on the ``answered`` ones). With
    ``threshold`` and ``sigma1``: a run of Confident-GNMax, which needs ``answered`` (the
    queries it answered): the threshold step on every query, GNMax on the answered ones
    (:func:`confident_gnmax_rdp`). The RDP curve is converted at the best order
    ([PSMRTE18]_ use the classic conversion ε = r(λ) + ln(1/δ)/(λ−1), [M17]_ Prop. 3;
    ``conversion="improved"``: :func:`~dpteach.accounting.convert.rdp_to_epsilon`). With
    ``data_dependent=True`` the result is a function of the votes: not publishable as is.

    Examples
    --------
    Data-independent GNMax, σ = 40, 100 queries of 10 classes, δ = 10⁻⁵:

    >>> votes = [[250] + [0] * 9] * 100
    >>> round(pate_epsilon(votes, sigma2=40, delta=1e-5, data_dependent=False).epsilon, 3)
    1.759

    Five queries to Confident-GNMax with T = 200, σ₁ = 150, σ₂ = 40, of which the first
    two were answered (data-dependent):

    >>> five = [[250, 0, 0], [220, 20, 10], [150, 60, 40], [100, 90, 60], [180, 70, 0]]
    >>> five = [row + [0] * 7 for row in five]
    >>> run = pate_epsilon(five, sigma2=40, delta=1e-5, threshold=200, sigma1=150,
    ...                    answered=[True, True, False, False, False])
    >>> run.convention, run.answered, round(run.epsilon, 4)
    ('answered', 2.0, 0.224)
    """
    v = np.atleast_2d(votes)
    if (threshold is None) != (sigma1 is None):
        raise refuse("threshold", threshold, f"given with sigma1 or both omitted (sigma1={sigma1})")
    _one_per_query(answered, v)
    if threshold is not None and sigma1 is not None:
        _need_answered(answered)
        rdp = confident_gnmax_rdp(orders, v, threshold, sigma1, sigma2, answered=answered,
                                  data_dependent=data_dependent)
        return _to_privacy(rdp, orders, delta, conversion, answered.sum(), "answered",
                           data_dependent)
    return _every_answer((gnmax_rdp if data_dependent else gnmax_rdp_data_independent), sigma2,
                         v, answered, orders, delta, conversion, data_dependent)


@validate(votes=VOTES, scale=SCALE, delta=DELTA_POSITIVE, answered=ANSWERED,
          data_dependent=FLAG, orders=ORDERS, conversion=CONVERSION)
def lnmax_epsilon(votes, *, scale: float, delta: float, answered=None,
                  data_dependent: bool = True, orders=DEFAULT_PATE_ORDERS,
                  conversion: str = "classic") -> PATEPrivacy:
    """(ε, δ) of LNMax answers to a batch of queries (all of them, or the ``answered`` ones).

    Data-dependent: [PAEGT17]_, Thm 3 per query (:func:`lnmax_rdp`), composed and converted
    like :func:`pate_epsilon`; data-independent: :func:`lnmax_rdp_data_independent`.
    """
    v = np.atleast_2d(votes)
    _one_per_query(answered, v)
    return _every_answer((lnmax_rdp if data_dependent else lnmax_rdp_data_independent), scale,
                         v, answered, orders, delta, conversion, data_dependent)


# ------------------------------------------------------------ the paper's expected cost
@validate(expected_cost=SPENT, order=ORDER, delta=DELTA_POSITIVE,
          expected_answered=real(0.0, MAX_QUERIES), data_dependent=FLAG,
          rdp=array(ndim=1, low=0.0, max_size=300), orders=ORDERS)
@dataclass(frozen=True)
class PATEExpectedCost:
    """The expected ε-cost of Confident-GNMax queries (see :func:`pate_expected_cost`).

    A **forecast**, not a guarantee: the ε-cost of running the queries, with each query's
    GNMax cost weighed by its true Pr[answered] (computed from the votes). It is the quantity
    of [PSMRTE18]_'s tables; never report it as ε. The guarantee of a run is
    :func:`pate_epsilon` with the queries it answered.

    """

    expected_cost: float       # the expected RDP curve converted to (·, δ) at the best order
    order: float
    delta: float
    expected_answered: float   # Σ_i Pr[answered_i], the expected number of answers
    data_dependent: bool       # Thm 6 per query, or the data-independent curves (either way
                               # the weights Pr[answered_i] come from the votes)
    rdp: np.ndarray = field(repr=False)      # Σ_i [thr_i + Pr[answered_i]·gn_i] per order
    orders: np.ndarray = field(repr=False)


@validate(votes=VOTES, threshold=THRESHOLD, sigma1=SCALE, sigma2=SCALE, delta=DELTA_POSITIVE,
          data_dependent=FLAG, orders=ORDERS, conversion=CONVERSION)
def pate_expected_cost(votes, *, threshold: float, sigma1: float, sigma2: float, delta: float,
                       data_dependent: bool = True, orders=DEFAULT_PATE_ORDERS,
                       conversion: str = "classic") -> PATEExpectedCost:
    """Expected ε-cost of asking Confident-GNMax these queries: a forecast, not an ε.

    Every query pays the threshold step, and its GNMax cost weighed by the probability that
    it passes the threshold, Pr[answered_i] = Φ((max_j n_j − T)/σ₁) ([PSMRTE18]_, Alg. 1):

        r(λ) = Σ_i [thr_i(λ) + Pr[answered_i]·gn_i(λ)],

    converted at the best order as :func:`pate_epsilon` does. This is the quantity of the
    tables of [PSMRTE18]_ and of their code; ``data_dependent=False`` uses the
    data-independent curves of both steps, still weighed by the true Pr[answered], as that
    code does. The weights come from the votes, so the value depends on the private data
    whatever ``data_dependent`` says; and r is the mean over runs of a run's RDP curve
    (:func:`confident_gnmax_rdp`, by linearity), not a bound on any one run: a run that
    answers more queries spends more. Report the ε of the run (:func:`pate_epsilon` with
    ``answered``) as its guarantee.

    Examples
    --------
    Five queries with T = 200, σ₁ = 150, σ₂ = 40 (data-dependent):

    >>> five = [[250, 0, 0], [220, 20, 10], [150, 60, 40], [100, 90, 60], [180, 70, 0]]
    >>> five = [row + [0] * 7 for row in five]
    >>> cost = pate_expected_cost(five, threshold=200, sigma1=150, sigma2=40, delta=1e-5)
    >>> round(cost.expected_answered, 4), round(cost.expected_cost, 4)
    (2.2525, 0.2505)
    """
    v = np.atleast_2d(votes)
    thr, gn = _confident_gnmax_parts(orders, v, threshold, sigma1, sigma2, data_dependent)
    p = np.exp(threshold_log_pr_answered(v, threshold, sigma1)).reshape(-1, 1)
    rdp = thr + (p * gn).sum(axis=0)
    cost, order = rdp_to_epsilon(orders, rdp, delta, conversion=conversion)
    return PATEExpectedCost(cost, order, delta, float(p.sum()), data_dependent, rdp, orders)


# ------------------------------------------------------------------------------ helpers
def _thm6_rdp(log_q: np.ndarray, sigma: float, orders: np.ndarray) -> np.ndarray:
    """Thm 6 of [PSMRTE18]_ with Prop. 10's μ's (see :func:`gnmax_rdp`), capped at λ/σ²,
    for a mechanism that is (μ, μ/σ²)-RDP at every μ: shape (len(log_q), len(orders))."""
    lq, lam = log_q.reshape(-1, 1), orders.reshape(1, -1)
    data_independent = lam / sigma / sigma
    with np.errstate(all="ignore"):     # where a condition fails, the value is not used
        mu2 = sigma * np.sqrt(-lq)
        mu1 = mu2 + 1.0
        eps1, eps2 = mu1 / sigma / sigma, mu2 / sigma / sigma
        valid = ((mu2 > 1.0) & (lam <= mu1) & (-lq > eps2)          # q̃·e^{ε₂} < 1
                 & (lq <= (mu2 - 1.0) * eps2 - mu2 * (np.log1p(1.0 / (mu1 - 1.0))
                                                      + np.log1p(1.0 / (mu2 - 1.0)))))
        # ln A = ln((1 − q̃)/(1 − e^x)), x = (ln q̃ + ε₂)(1 − 1/μ₂) = ln q̃ + u, written as
        # log1p(q̃·(e^u − 1)/(1 − e^x)) so that A ≈ 1 keeps its digits
        u = eps2 * (1.0 - 1.0 / mu2) - lq / mu2
        log_a = np.log1p(_q_expm1(lq, u) / np.abs(np.expm1(lq + u)))   # A → ∞ as x → 0⁻
        log_b = eps1 - lq / (mu1 - 1.0)
        beta = _log_mixture(lq, log_a, log_b, lam)
        beta = np.where(np.isnan(beta), np.inf, beta)   # at a condition's edge: A or B → ∞
    out = np.where(valid, np.minimum(beta, data_independent), data_independent)
    return np.maximum(out, 0.0)


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


def _q_expm1(lq, u):
    """q̃·(e^u − 1) for q̃ = e^{ln q̃}, without 0·inf when q̃ underflows and u is large."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(u > 30.0, np.exp(lq + u) * -np.expm1(-u),
                        np.exp(lq) * np.expm1(np.minimum(u, 30.0)))


def _log1mexp(x: np.ndarray) -> np.ndarray:
    """ln(1 − eˣ) for x ≤ 0, accurate at both ends (−inf at x = 0)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x < -math.log(2), np.log1p(-np.exp(x)), np.log(-np.expm1(x)))


def _gaps(v: np.ndarray) -> np.ndarray:
    """(queries, classes) gaps n_max − n_j, with +inf at one argmax per row (excluded)."""
    top = np.argmax(v, axis=1)
    gaps = v.max(axis=1, keepdims=True) - v
    gaps[np.arange(v.shape[0]), top] = np.inf
    return gaps


def _per_query(x: np.ndarray, votes: np.ndarray):
    """One value (a float) or row per query, as ``votes`` is one histogram or a batch."""
    if votes.ndim == 1:
        x = x[0]
        return float(x) if np.ndim(x) == 0 else x
    return x


def _confident_gnmax_parts(orders, v, threshold, sigma1, sigma2, data_dependent):
    """Per-order RDP of the threshold steps summed over the queries, and GNMax's per query
    (shape (queries, orders)), data-dependent or not."""
    if data_dependent:
        thr = threshold_rdp(orders, v, threshold, sigma1).sum(axis=0)
        gn = gnmax_rdp(orders, v, sigma2)
    else:
        thr = v.shape[0] * threshold_rdp_data_independent(orders, sigma1)
        gn = np.broadcast_to(gnmax_rdp_data_independent(orders, sigma2), (v.shape[0], orders.size))
    return thr, gn


def _need_answered(answered) -> None:
    if answered is None:
        raise refuse("answered", None, "the run's answered mask (a forecast: pate_expected_cost)")


def _one_per_query(answered: np.ndarray | None, votes: np.ndarray) -> None:
    if answered is not None and answered.shape != (votes.shape[0],):
        raise refuse("answered", answered, f"one entry per query ({votes.shape[0]})")


def _every_answer(curve, noise, v, answered, orders, delta, conversion, data_dependent):
    """The privacy of one aggregator's answers to every query, or to the ``answered`` ones:
    ``curve`` is its data-dependent RDP (orders, votes, noise) or its data-independent RDP
    (orders, noise), composed over those queries."""
    rows = v if answered is None else v[answered]
    if rows.shape[0] == 0:
        rdp = np.zeros(orders.size)
    elif data_dependent:
        rdp = curve(orders, rows, noise).sum(axis=0)
    else:
        rdp = rows.shape[0] * curve(orders, noise)
    return _to_privacy(rdp, orders, delta, conversion, rows.shape[0],
                       "all" if answered is None else "answered", data_dependent)


def _to_privacy(rdp, orders, delta, conversion, answered, convention, data_dependent):
    eps, order = rdp_to_epsilon(orders, rdp, delta, conversion=conversion)
    return PATEPrivacy(eps, order, delta, float(answered), convention, data_dependent, rdp, orders)


def _mask(name: str, value: Any) -> np.ndarray | None:
    """:data:`ANSWERED`: None or a 1-D boolean array (booleans only: not 0/1)."""
    if value is None:
        return None
    try:
        arr = np.asarray(value) if isinstance(value, (list, tuple, np.ndarray)) else None
    except ValueError:                                     # ragged nested lists
        arr = None
    if arr is not None and arr.dtype == bool and arr.ndim == 1 and arr.size <= MAX_QUERIES:
        return arr
    raise ANSWERED.refuse(name, value)


# Implementation notes: docs/library/accounting.md (pate.analysis).
