"""Randomized response: local differential privacy for one bit (and for k categories).

Each respondent randomizes their own answer before it leaves their hands, so no curator
ever sees the truth (the *local* model). Warner's protocol tells the truth with
probability ½ + γ, which is ε-DP for ε = ln((½ + γ)/(½ − γ)); its unbiased estimator
undoes the coin on average, at a standard error that grows like 1/(ε√n), against 1/(εn)
for a central (Laplace) count.

References
----------
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014.
.. [W65] S. L. Warner. Randomized response: a survey technique for eliminating
   evasive answer bias. JASA 60(309), 1965.
.. [KOV16] P. Kairouz, S. Oh and P. Viswanath. Extremal mechanisms for local
   differential privacy. JMLR 17, 2016.
.. [WBLJ17] T. Wang, J. Blocki, N. Li and S. Jha. Locally differentially
   private protocols for frequency estimation. USENIX Security 2017.
.. [CSS12] T.-H. H. Chan, E. Shi and D. Song. Optimal lower bound for
   differentially private multi-party aggregation. ESA 2012 (local counts need
   error Ω(√n/ε)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .._validation import (EPSILON, POSITIVE_COUNT, PROBABILITY, RNG, array, choice, integer, real,
                           refuse, validate)

__all__ = [
    "rr_epsilon_from_gamma", "rr_gamma_from_epsilon", "randomized_response", "RREstimate",
    "rr_estimate", "rr_std_error", "k_randomized_response", "k_rr_estimate",
    "simulate_rr_estimates", "rr_local_std", "central_laplace_rate_std",
]

#: γ: the truth is told with probability ½ + γ. From γ(ε = 1e-6) ≈ 2.5e-7, so that γ and ε
#: convert into each other's domains, to ½ (the truth always told: what
#: rr_gamma_from_epsilon returns from ε ≈ 38 on)
GAMMA = real(0.5 * math.tanh(0.5e-6), 0.5, example=0.25)
#: γ with a finite ε: below ½
GAMMA_BELOW_HALF = real(0.5 * math.tanh(0.5e-6), 0.5, high_open=True, example=0.25)
#: true bits, or randomized reports of them: 0/1 (or True/False), one or a 1-D array
BITS = array(ndim=(0, 1), low=0, high=1, integers=True, booleans=True, example=[0, 1, 1],
             text="0/1 (or True/False), or a 1-D array of them")
#: a confidence level, such as 0.95
CONFIDENCE = real(1e-6, 1 - 1e-6, example=0.95)
#: k, the number of categories of k-ary randomized response (vectors of k frequencies)
CATEGORIES = integer(2, 10**6, example=4)
#: a category label 0, 1, …, k − 1, or a 1-D array of them (checked against k in the body)
LABELS = array(ndim=(0, 1), low=0, high=10**6 - 1, integers=True, example=[0, 1, 3])
#: k-RR reports: a 1-D array of category labels
REPORTED_LABELS = array(ndim=1, low=0, high=10**6 - 1, integers=True, example=[0, 1, 3])
#: dataset size(s) n ≥ 1: a whole number or a 1-D array of them
SIZES = array(ndim=(0, 1), low=1, high=1e15, integers=True, example=[10, 100],
              text="a whole number in [1, 1e15] or a 1-D array of them")
#: respondents per simulated survey
RESPONDENTS = integer(1, 10**9, example=50)
#: simulated surveys (a work size: 10**6 binomial draws take about 0.1 s)
SURVEYS = integer(2, 10**6, work=True, example=10)
#: individual reports simulated at most (n × n_trials with ``simulation="reports"``: about
#: 0.2 s, and at most 40 MB for one survey's reports)
REPORTS_MAX = 10**7


@validate(gamma=GAMMA_BELOW_HALF)
def rr_epsilon_from_gamma(gamma: float) -> float:
    """ε of randomized response that tells the truth with probability ½ + γ.

    The likelihood ratio of a report under the two possible true bits is at
    most ``(½ + γ)/(½ − γ)``, so the protocol is ε-DP (locally) with

    ``ε = ln((½ + γ)/(½ − γ)) = 2 artanh(2γ)``

    ([W65]_; [DR14]_ Sec 3.2 and Claim 3.5 for γ = ¼, ε = ln 3). The artanh
    form stays accurate for small γ. γ = 0 would reveal nothing (ε = 0), γ = ½ always
    tells the truth (ε = ∞).
    """
    return 2.0 * math.atanh(2.0 * gamma)


@validate(epsilon=EPSILON)
def rr_gamma_from_epsilon(epsilon: float) -> float:
    """Inverse of :func:`rr_epsilon_from_gamma`.

    Solving ``ε = ln((½+γ)/(½−γ))`` for γ gives
    ``γ = e^ε/(1+e^ε) − ½ = ½ tanh(ε/2)`` ([W65]_; [DR14]_ Sec 3.2). From ε ≈ 38 on the
    result rounds to ½ (the truth is always told).
    """
    return 0.5 * math.tanh(epsilon / 2)


@validate(bits=BITS, gamma=GAMMA.or_none(), epsilon=EPSILON.or_none(), rng=RNG)
def randomized_response(bits, gamma: float | None = None,
                        epsilon: float | None = None, rng=None):
    """Each respondent reports their true bit with probability ½ + γ, else its flip.

    Warner's randomized response ([W65]_). With γ given, ε = ln((½+γ)/(½−γ));
    with ε given, the truth probability is e^ε/(1+e^ε). The coin-flip protocol
    of the slides (heads: answer truthfully; tails: answer with a second coin)
    is γ = ¼, ε = ln 3 ([DR14]_ Sec 3.2, Claim 3.5). Local ε-DP for each
    respondent: ``P[report = r | bit = 1] / P[report = r | bit = 0] ≤ e^ε``.

    Give exactly one of ``gamma`` and ``epsilon`` (γ = ½ always tells the truth: no
    privacy). Returns the reported bit(s): an ``int`` for a scalar ``bits``, else an int8
    array of the same length.
    """
    p_truth = 0.5 + _gamma(gamma, epsilon)
    bits = bits.astype(np.int8)
    keep = rng.random(bits.shape) < p_truth
    out = np.where(keep, bits, 1 - bits).astype(np.int8)
    return int(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class RREstimate:
    """Unbiased estimate of a population rate from randomized responses.

    ``estimate`` is not clipped to [0, 1]: clipping would bias it. ``ci_low`` /
    ``ci_high`` form a normal-approximation (Wald) interval
    ``estimate ± z·std_error`` with z the ½ + confidence/2 normal quantile and
    ``std_error`` the plug-in estimate of :func:`rr_std_error`; its coverage is
    close to ``confidence`` for large n and poor when few reports are 1 (or 0).
    """

    estimate: float
    std_error: float
    ci_low: float
    ci_high: float
    confidence: float
    n: int


@validate(rate=PROBABILITY, n=POSITIVE_COUNT, gamma=GAMMA.or_none(),
          epsilon=EPSILON.or_none())
def rr_std_error(rate: float, n: int, gamma: float | None = None,
                 epsilon: float | None = None) -> float:
    """True standard error of :func:`rr_estimate` for a population rate ``rate``.

    Model: ``n`` respondents drawn independently from a population in which a
    fraction ``rate`` = π has bit 1. Each report is then Bernoulli(λ) with
    ``λ = (½+γ)π + (½−γ)(1−π)``, and since ``π̂ = (Ȳ − ½ + γ)/(2γ)``,

    ``Var(π̂) = λ(1−λ) / (n (2γ)²)``  ([W65]_).

    Since ``λ(1−λ) = (¼ − γ²) + 4γ²π(1−π)`` this splits into the noise of the
    coins, ``(¼ − γ²)/(4nγ²)``, plus the ordinary sampling variance
    ``π(1−π)/n``. For a *fixed* group of people (a census, not a random sample)
    only the first term remains. Give exactly one of ``gamma`` and ``epsilon``.
    """
    g = _gamma(gamma, epsilon)
    lam = 0.5 - g + 2 * g * rate          # = (½+γ)π + (½−γ)(1−π)
    return math.sqrt(lam * (1 - lam) / n) / (2 * g)


@validate(reports=BITS, gamma=GAMMA.or_none(), epsilon=EPSILON.or_none(),
          confidence=CONFIDENCE)
def rr_estimate(reports, gamma: float | None = None, epsilon: float | None = None,
                confidence: float = 0.95) -> RREstimate:
    """Unbiased estimator of the true rate π from randomized-response reports.

    ``E[Ȳ] = (½+γ)π + (½−γ)(1−π) = ½ − γ + 2γπ``, so
    ``π̂ = (Ȳ − ½ + γ) / (2γ)`` is unbiased, with
    ``Var(π̂) = λ(1−λ)/(n·4γ²)``, λ = E[Ȳ] ([W65]_). The standard error
    plugs in λ̂ = Ȳ; the interval is the Wald interval (see :class:`RREstimate`). Give
    exactly one of ``gamma`` and ``epsilon``: the parameter the reports were produced with.
    """
    g = _gamma(gamma, epsilon)
    n = int(reports.size)
    lam = float(reports.mean())
    est = (lam - 0.5 + g) / (2 * g)       # divide by 2γ, not by 2p − 1 (see the notes)
    se = math.sqrt(lam * (1 - lam) / n) / (2 * g)
    z = float(special.ndtri(0.5 + confidence / 2))
    return RREstimate(est, se, est - z * se, est + z * se, confidence, n)


@validate(values=LABELS, k=CATEGORIES, epsilon=EPSILON, rng=RNG)
def k_randomized_response(values, k: int, epsilon: float, rng=None):
    """k-ary randomized response (generalised RR / "direct encoding").

    Each value in {0, …, k−1} is reported truthfully with probability
    ``p = e^ε/(e^ε + k − 1)`` and as each other value with probability
    ``q = 1/(e^ε + k − 1)``; p/q = e^ε so this is local ε-DP ([KOV16]_;
    [WBLJ17]_ Sec 4.1). For k = 2 it is Warner's protocol with
    γ = ½ tanh(ε/2). Returns an ``int`` for a scalar ``values``, else an array of the
    same length.
    """
    values = _below_k("values", values, k)
    p, _ = _k_rr_probs(k, epsilon)
    keep = rng.random(values.shape) < p
    # a uniformly chosen *other* value: shift by 1..k-1 modulo k
    other = (values + rng.integers(1, k, size=values.shape)) % k
    out = np.where(keep, values, other)
    return int(out) if out.ndim == 0 else out


@validate(reports=REPORTED_LABELS, k=CATEGORIES, epsilon=EPSILON)
def k_rr_estimate(reports, k: int, epsilon: float) -> np.ndarray:
    """Unbiased frequency estimates from k-ary RR reports.

    A report equals v with probability ``λ_v = π_v p + (1 − π_v) q``, so
    ``π̂_v = (c_v/n − q) / (p − q)`` is unbiased, with
    ``Var(π̂_v) = λ_v(1 − λ_v) / (n (p − q)²)`` ([WBLJ17]_, Sec 3, Thm 2,
    here divided by n² to give frequencies instead of counts), p, q as in
    :func:`k_randomized_response`. Not clipped or renormalised (that would add
    bias), so entries may be negative or above 1; they always sum to 1.

    Computed in the algebraically equal form
    ``π̂_v = c_v/n + (k·c_v − n)/(n (e^ε − 1))`` with ``expm1``: the textbook
    form subtracts nearly equal numbers and divides by p − q, which loses all
    digits for small ε.
    """
    reports = _below_k("reports", reports, k)
    counts = np.bincount(reports, minlength=k).astype(float)
    n = float(reports.size)
    freq = counts / n
    if epsilon >= 700:                      # p = 1, q = 0 to double precision; e^ε overflows
        return freq
    return freq + (k * counts - n) / (n * math.expm1(epsilon))


# ------------------------------------------- randomized response: error analysis
@validate(true_rate=PROBABILITY, n=RESPONDENTS, gamma=GAMMA.or_none(),
          epsilon=EPSILON.or_none(), n_trials=SURVEYS, rng=RNG,
          simulation=choice("auto", "reports", "binomial"))
def simulate_rr_estimates(true_rate: float, n: int, gamma: float | None = None,
                          epsilon: float | None = None, n_trials: int = 2000, rng=None,
                          simulation: str = "auto") -> np.ndarray:
    """Estimates π̂ from ``n_trials`` independent simulated surveys.

    Each survey draws ``n`` fresh respondents whose bits are i.i.d.
    Bernoulli(``true_rate``), passes them through
    :func:`randomized_response` and estimates the rate. This
    is the sampling model behind :func:`rr_std_error`, whose
    value is the standard deviation of the returned estimates.

    ``simulation="reports"`` simulates every report (at most 10**7 of them,
    ``n × n_trials``). ``"binomial"`` draws the number of "yes" reports directly as
    ``Binomial(n, λ)`` with ``λ = p·π + (1−p)(1−π)``: each report is an independent
    Bernoulli(λ) variable (a fresh respondent says yes with probability π, then the
    coin keeps or flips it), so their sum has exactly this distribution and the
    two options give identically distributed estimates. ``"auto"`` simulates
    reports while ``n·n_trials ≤ 2·10⁶`` and uses the binomial beyond.

    Each survey's estimate is the one :func:`rr_estimate` returns (implementation notes:
    docs/library/mechanisms.md). Give exactly one of ``gamma`` and ``epsilon``.
    """
    p = 0.5 + _gamma(gamma, epsilon)
    if simulation == "reports" and n * n_trials > REPORTS_MAX:   # 'binomial': same law
        raise refuse("n_trials", n_trials, f"≤ {REPORTS_MAX // n:,} (n={n}, simulation='reports')")
    if simulation == "auto":
        simulation = "reports" if n * n_trials <= _AUTO_REPORTS else "binomial"
    kw = {"gamma": gamma} if gamma is not None else {"epsilon": epsilon}

    if simulation == "reports":
        counts = np.empty(n_trials, dtype=np.int64)
        per_chunk = max(1, _AUTO_REPORTS // (4 * n))   # keep each chunk ≤ 0.5 M reports
        for start in range(0, n_trials, per_chunk):
            m = min(per_chunk, n_trials - start)
            bits = (rng.random((m, n)) < true_rate).astype(np.int8)
            reports = randomized_response.__wrapped__(bits.ravel(), rng=rng, **kw)
            counts[start:start + m] = reports.reshape(m, n).sum(axis=1)
    else:
        lam = p * true_rate + (1 - p) * (1 - true_rate)
        counts = rng.binomial(n, lam, size=n_trials)

    at0 = rr_estimate([0], **kw).estimate
    at1 = rr_estimate([1], **kw).estimate
    return at0 + (at1 - at0) * (counts / n)


@validate(n=SIZES, epsilon=EPSILON)
def rr_local_std(n, epsilon: float):
    """Standard deviation of the RR rate estimate for a *fixed* dataset.

    Conditionally on the n true bits, the reports are independent with
    ``Var(Y_i) = p(1−p)`` whatever the bit, so
    ``sd(π̂ | data) = √(p(1−p)) / ((2p−1)√n) = e^{ε/2} / ((e^ε − 1)√n)``
    with ``p = e^ε/(1+e^ε)`` ([W65]_; [DR14]_ Sec 3.2). This is the error
    caused by privacy alone, comparable with :func:`central_laplace_rate_std`.
    It is Θ(1/(ε√n)) for small ε, which is optimal for local protocols
    ([CSS12]_). Evaluated in the equal form ``1 / (2 sinh(ε/2) √n)``, accurate to
    rounding for every ε (``p`` and ``2p − 1`` lose digits for small and large ε).
    Returns a ``float`` for a scalar ``n``, else an array of the same length.
    """
    half = epsilon / 2
    # 1/(2 sinh x) = e^{−x}/(1 − e^{−2x}), which is e^{−x} to double precision for x ≥ 40
    inv = 0.5 / math.sinh(half) if half < 40 else math.exp(-half)
    out = inv / np.sqrt(n)
    return float(out) if out.ndim == 0 else out


@validate(n=SIZES, epsilon=EPSILON)
def central_laplace_rate_std(n, epsilon: float):
    """Standard deviation of the central estimate ``(count + Lap(1/ε)) / n``.

    A trusted curator adds Laplace noise of scale ``1/ε`` to the count
    (sensitivity 1, [DR14]_ Thm 3.6), so the rate has standard deviation
    ``√2 / (ε n)``, a ``float`` for a scalar ``n``, else an array of the same length.
    """
    b = 1.0 / epsilon                       # the Laplace scale Δ/ε of a count (Δ = 1)
    out = math.sqrt(2) * b / n
    return float(out) if out.ndim == 0 else out


# ------------------------------------------------------------------------ helpers
_AUTO_REPORTS = 2_000_000   # "auto" simulates individual reports up to this many in total


def _gamma(gamma: float | None, epsilon: float | None) -> float:
    """γ from exactly one of ``gamma`` / ``epsilon`` (both already checked)."""
    if (gamma is None) == (epsilon is None):
        raise refuse("gamma", gamma, f"None exactly when epsilon is given (epsilon={epsilon})")
    return gamma if gamma is not None else rr_gamma_from_epsilon.__wrapped__(epsilon)


def _k_rr_probs(k: int, epsilon: float) -> tuple[float, float]:
    """``(p, q)`` of k-ary RR: ``p = e^ε/(e^ε + k − 1)``, ``q = 1/(e^ε + k − 1)``."""
    if epsilon >= 700:                      # e^ε/(e^ε + k − 1) is 1 to double precision
        return 1.0, 0.0
    e = math.exp(epsilon)
    return e / (e + k - 1), 1.0 / (e + k - 1)


def _below_k(name: str, values: np.ndarray, k: int) -> np.ndarray:
    """Category labels as int64, each below k (the rule tying ``values`` to ``k``)."""
    if values.size and values.max() >= k:
        raise refuse(name, values, f"integers in [0, {k - 1}] for k={k}")
    return values.astype(np.int64)


# Engineering notes. Estimators divide by 2γ, never by 2p − 1 = 2(½ + γ) − 1: for small γ
# the float ½ + γ loses the digits of γ. In the teaching domain (γ ≥ 2.5e-7, ε in [1e-6,
# 1e3], k ≤ 10**6, n < 2**53) every estimate, standard error and interval is finite, so no
# branch handles overflow; the one branch on ε ≥ 700 is where e^ε itself overflows. The
# report simulation is chunked to about 0.5 M reports at a time (memory on Binder).
# Tests: tests/mechanisms/test_randomized_response.py and the generated cases of
# tests/test_domains.py.
