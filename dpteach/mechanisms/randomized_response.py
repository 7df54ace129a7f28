"""Randomized response: local differential privacy for one bit (and for k categories).

Each respondent randomizes their own answer before it leaves their hands, so
no curator ever sees the truth (the *local* model). This module holds Warner's
protocol parametrised by γ or by ε, its unbiased estimator and standard error,
k-ary randomized response, a simulator of whole surveys, and the comparison of
local and central (Laplace) error for a proportion.

Numerical care (tested in ``tests/mechanisms/test_noise.py`` and
``tests/mechanisms/test_mechanisms_edges.py``): estimators divide by 2γ (never by
``2p − 1``, which rounds to 0 for tiny γ); k-RR estimates use ``expm1``;
results that overflow because γ or ε is astronomically small are refused with
a :class:`~dpteach._validation.ParameterError` naming the argument.

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

from .._validation import (
    ParameterError,
    check_array,
    check_choice,
    check_epsilon,
    check_in_range,
    check_int,
    check_rng,
    describe,
)
from .noise import laplace_scale

__all__ = [
    "rr_epsilon_from_gamma",
    "rr_gamma_from_epsilon",
    "randomized_response",
    "RREstimate",
    "rr_estimate",
    "rr_std_error",
    "k_randomized_response",
    "k_rr_estimate",
    "simulate_rr_estimates",
    "rr_local_std",
    "central_laplace_rate_std",
]


def rr_epsilon_from_gamma(gamma: float) -> float:
    """ε of randomized response that tells the truth with probability ½ + γ.

    The likelihood ratio of a report under the two possible true bits is at
    most ``(½ + γ)/(½ − γ)``, so the protocol is ε-DP (locally) with

    ``ε = ln((½ + γ)/(½ − γ)) = 2 artanh(2γ)``

    ([W65]_; [DR14]_ Sec 3.2 and Claim 3.5 for γ = ¼, ε = ln 3). The artanh
    form is used because it stays accurate for tiny γ.

    Parameters
    ----------
    gamma : float
        In (0, ½): γ = 0 reveals nothing (ε = 0), γ = ½ always tells the truth
        (ε = ∞), so both ends are refused.

    Returns
    -------
    float
    """
    gamma = check_in_range("gamma", gamma, 0.0, 0.5, low_inclusive=False, high_inclusive=False)
    return 2.0 * math.atanh(2.0 * gamma)


def rr_gamma_from_epsilon(epsilon: float) -> float:
    """Inverse of :func:`rr_epsilon_from_gamma`.

    Solving ``ε = ln((½+γ)/(½−γ))`` for γ gives
    ``γ = e^ε/(1+e^ε) − ½ = ½ tanh(ε/2)`` ([W65]_; [DR14]_ Sec 3.2). For very
    large ε the result rounds to ½ (the truth is always told).

    Parameters
    ----------
    epsilon : float
        Finite and > 0.

    Returns
    -------
    float
        γ in (0, ½].

    Raises
    ------
    ParameterError
        If ε is so small (below about 1e-323) that γ underflows to 0.
    """
    epsilon = check_epsilon("epsilon", epsilon)
    gamma = 0.5 * math.tanh(epsilon / 2)
    if gamma == 0:                          # ε below ~1e-323: ε/2 underflows
        raise ParameterError("epsilon is too small to represent gamma = tanh(epsilon/2)/2 > 0 in "
                             f"floating point; got epsilon={epsilon!r}")
    return gamma


def _finite_or_refuse(values, gamma, epsilon, what: str = "the unbiased estimate"):
    """Refuse results that overflow because γ (or ε) is astronomically small."""
    if not np.all(np.isfinite(values)):
        which = (f"gamma={gamma!r}" if gamma is not None else f"epsilon={epsilon!r}")
        raise ParameterError(f"the privacy parameter is so small that {what} "
                             f"overflows the floating-point range; got {which}")


def _rr_gamma(gamma, epsilon) -> float:
    """Validated γ from exactly one of ``gamma`` / ``epsilon``.

    Estimators divide by 2γ rather than by 2p − 1 (p = ½ + γ): for tiny γ the
    float ``0.5 + γ`` rounds to 0.5 and 2p − 1 would be 0.
    """
    if (gamma is None) == (epsilon is None):
        raise ParameterError("give exactly one of gamma (truth with probability 1/2 + gamma) or "
                             f"epsilon; got gamma={gamma!r}, epsilon={epsilon!r}")
    if gamma is not None:
        return check_in_range("gamma", gamma, 0.0, 0.5, low_inclusive=False,
                              high_inclusive=False)
    return rr_gamma_from_epsilon(epsilon)


def _check_bits(name: str, bits) -> np.ndarray:
    arr = check_array(name, bits, ndim=(0, 1), min_size=1)
    bad = (arr != 0) & (arr != 1)
    if np.any(bad):
        raise ParameterError(f"{name} must contain only 0s and 1s (or booleans); got "
                             f"{name} containing {np.unique(arr[bad])[:5]}")
    return arr.astype(np.int8)


def randomized_response(bits, gamma: float | None = None, epsilon: float | None = None,
                        rng=None):
    """Each respondent reports their true bit with probability ½ + γ, else its flip.

    Warner's randomized response ([W65]_). With γ given, ε = ln((½+γ)/(½−γ));
    with ε given, the truth probability is e^ε/(1+e^ε). The coin-flip protocol
    of the slides (heads: answer truthfully; tails: answer with a second coin)
    is γ = ¼, ε = ln 3 ([DR14]_ Sec 3.2, Claim 3.5). Local ε-DP for each
    respondent: ``P[report = r | bit = 1] / P[report = r | bit = 0] ≤ e^ε``.

    Parameters
    ----------
    bits : int, bool or 1-D array_like of 0/1
        The true answers.
    gamma, epsilon : float, optional
        Give exactly one. ``gamma`` in (0, ½); ``epsilon`` finite and > 0.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    int or numpy.ndarray of int8
        The reported bit(s): an ``int`` for a scalar ``bits``, else an array of
        the same length as ``bits``.
    """
    arr = _check_bits("bits", bits)
    p_truth = 0.5 + _rr_gamma(gamma, epsilon)
    gen = check_rng(rng)
    keep = gen.random(arr.shape) < p_truth
    out = np.where(keep, arr, 1 - arr).astype(np.int8)
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


_N_MAX = 10 ** 15   # respondents in a survey: far beyond any population, exact as a float


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
    only the first term remains.

    Parameters
    ----------
    rate : float
        π in [0, 1].
    n : int
        Number of respondents, in [1, 10**15].
    gamma, epsilon : float, optional
        Give exactly one (see :func:`randomized_response`).

    Returns
    -------
    float
    """
    rate = check_in_range("rate", rate, 0.0, 1.0)
    n = check_int("n", n, minimum=1, maximum=_N_MAX)
    g = _rr_gamma(gamma, epsilon)
    lam = 0.5 - g + 2 * g * rate          # = (½+γ)π + (½−γ)(1−π)
    se = math.sqrt(lam * (1 - lam) / n) / (2 * g)
    _finite_or_refuse(se, gamma, epsilon)
    return se


def rr_estimate(reports, gamma: float | None = None, epsilon: float | None = None,
                confidence: float = 0.95) -> RREstimate:
    """Unbiased estimator of the true rate π from randomized-response reports.

    ``E[Ȳ] = (½+γ)π + (½−γ)(1−π) = ½ − γ + 2γπ``, so
    ``π̂ = (Ȳ − ½ + γ) / (2γ)`` is unbiased, with
    ``Var(π̂) = λ(1−λ)/(n·4γ²)``, λ = E[Ȳ] ([W65]_). The standard error
    plugs in λ̂ = Ȳ; the interval is the Wald interval (see :class:`RREstimate`).

    Parameters
    ----------
    reports : 1-D array_like of 0/1
        The randomized reports (output of :func:`randomized_response`).
    gamma, epsilon : float, optional
        Give exactly one: the parameter the reports were produced with.
    confidence : float
        In (0, 1).

    Returns
    -------
    RREstimate
    """
    y = _check_bits("reports", reports)
    confidence = check_in_range("confidence", confidence, 0.0, 1.0,
                                low_inclusive=False, high_inclusive=False)
    g = _rr_gamma(gamma, epsilon)
    n = int(y.size)
    lam = float(y.mean())
    est = (lam - 0.5 + g) / (2 * g)
    se = math.sqrt(lam * (1 - lam) / n) / (2 * g)
    z = float(special.ndtri(0.5 + confidence / 2))
    _finite_or_refuse([est, se, est - z * se, est + z * se], gamma, epsilon)
    return RREstimate(est, se, est - z * se, est + z * se, confidence, n)


_K_MAX = 1_000_000   # k-RR frequency vectors have k entries; keeps memory bounded


def _k_rr_probs(k: int, epsilon: float) -> tuple[float, float]:
    """``(p, q)`` of k-ary RR: ``p = e^ε/(e^ε + k − 1)``, ``q = 1/(e^ε + k − 1)``."""
    if epsilon >= 700:                      # e^ε/(e^ε + k − 1) is 1 to double precision
        return 1.0, 0.0
    e = math.exp(epsilon)
    return e / (e + k - 1), 1.0 / (e + k - 1)


def _check_categories(name: str, values, k: int, ndim) -> np.ndarray:
    arr = check_array(name, values, ndim=ndim, allow_bool=False)
    bad = (arr != np.round(arr)) | (arr < 0) | (arr >= k)
    if np.any(bad):
        raise ParameterError(f"{name} must be integers in [0, {k - 1}] for k={k}; got {name} "
                             f"containing {np.unique(arr[bad])[:5]}")
    return arr.astype(np.int64)


def k_randomized_response(values, k: int, epsilon: float, rng=None):
    """k-ary randomized response (generalised RR / "direct encoding").

    Each value in {0, …, k−1} is reported truthfully with probability
    ``p = e^ε/(e^ε + k − 1)`` and as each other value with probability
    ``q = 1/(e^ε + k − 1)``; p/q = e^ε so this is local ε-DP ([KOV16]_;
    [WBLJ17]_ Sec 4.1). For k = 2 it is Warner's protocol with
    γ = ½ tanh(ε/2).

    Parameters
    ----------
    values : int or 1-D array_like of ints in [0, k−1]
    k : int
        Number of categories, in [2, 1,000,000].
    epsilon : float
        Finite and > 0.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    int or numpy.ndarray of int64
        An ``int`` for a scalar ``values``, else an array of the same length.
    """
    k = check_int("k", k, minimum=2, maximum=_K_MAX)
    epsilon = check_epsilon("epsilon", epsilon)
    arr = _check_categories("values", values, k, ndim=(0, 1))
    gen = check_rng(rng)
    p, _ = _k_rr_probs(k, epsilon)
    keep = gen.random(arr.shape) < p
    # a uniformly chosen *other* value: shift by 1..k-1 modulo k
    other = (arr + gen.integers(1, k, size=arr.shape)) % k
    out = np.where(keep, arr, other)
    return int(out) if out.ndim == 0 else out


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
    digits (or divides by 0) for small ε.

    Parameters
    ----------
    reports : 1-D array_like of ints in [0, k−1]
    k : int
        In [2, 1,000,000].
    epsilon : float
        Finite and > 0: the ε the reports were produced with.

    Returns
    -------
    numpy.ndarray of shape (k,)
    """
    k = check_int("k", k, minimum=2, maximum=_K_MAX)
    epsilon = check_epsilon("epsilon", epsilon)
    arr = _check_categories("reports", reports, k, ndim=1)
    counts = np.bincount(arr, minlength=k).astype(float)
    n = float(arr.size)
    freq = counts / n
    if epsilon >= 700:                      # p = 1, q = 0 to double precision
        return freq
    with np.errstate(over="ignore"):      # overflow is reported as a ValueError below
        est = freq + (k * counts - n) / (n * math.expm1(epsilon))
    _finite_or_refuse(est, None, epsilon)
    return est


# ------------------------------------------- randomized response: error analysis
_RR_SIMULATION_LIMIT = 2_000_000   # simulate individual reports up to this many in total


def simulate_rr_estimates(true_rate: float, n: int, gamma: float | None = None,
                          epsilon: float | None = None, n_trials: int = 2000, rng=None,
                          simulation: str = "auto") -> np.ndarray:
    """Estimates π̂ from ``n_trials`` independent simulated surveys.

    Each survey draws ``n`` fresh respondents whose bits are i.i.d.
    Bernoulli(``true_rate``), passes them through
    :func:`randomized_response` and estimates the rate. This
    is the sampling model behind :func:`rr_std_error`, whose
    value is the standard deviation of the returned estimates.

    ``simulation="reports"`` simulates every report. ``"binomial"`` draws
    the number of "yes" reports directly as ``Binomial(n, λ)`` with
    ``λ = p·π + (1−p)(1−π)``: each report is an independent Bernoulli(λ)
    variable (a fresh respondent says yes with probability π, then the coin
    keeps or flips it), so their sum has exactly this distribution and the
    two options give identically distributed estimates. ``"auto"`` simulates
    reports while ``n·n_trials ≤ 2·10⁶`` and uses the binomial beyond (to keep
    memory and time small on Binder).

    The estimate of each survey is the one :func:`rr_estimate`
    returns. That estimator is affine in the fraction of "yes" reports
    ``Ȳ`` (``π̂ = (Ȳ − (1−p))/(2p−1)``, [W65]_), so it is evaluated for all
    surveys at once from its values at ``Ȳ = 0`` and ``Ȳ = 1``.

    Parameters
    ----------
    true_rate : float
        Population rate π in [0, 1].
    n : int
        Respondents per survey, in [1, 10**9].
    gamma, epsilon : float
        Exactly one: γ in (0, ½) or ε > 0.
    n_trials : int
        Number of surveys, in [2, 10**6].
    rng : None, int or numpy.random.Generator
    simulation : {"auto", "reports", "binomial"}

    Returns
    -------
    numpy.ndarray of shape (n_trials,)
    """
    true_rate = check_in_range("true_rate", true_rate, 0.0, 1.0)
    n = check_int("n", n, minimum=1, maximum=10 ** 9)
    p = 0.5 + _rr_gamma(gamma, epsilon)
    kw = {"gamma": gamma} if gamma is not None else {"epsilon": epsilon}
    n_trials = check_int("n_trials", n_trials, minimum=2, maximum=10 ** 6)
    simulation = check_choice("simulation", simulation, {"auto", "reports", "binomial"})
    gen = check_rng(rng)
    if simulation == "auto":
        simulation = "reports" if n * n_trials <= _RR_SIMULATION_LIMIT else "binomial"

    if simulation == "reports":
        counts = np.empty(n_trials, dtype=np.int64)
        per_chunk = max(1, _RR_SIMULATION_LIMIT // (4 * n))   # keep each chunk ≤ 0.5 M reports
        for start in range(0, n_trials, per_chunk):
            m = min(per_chunk, n_trials - start)
            bits = (gen.random((m, n)) < true_rate).astype(np.int8)
            reports = randomized_response(bits.ravel(), **kw, rng=gen)
            counts[start:start + m] = reports.reshape(m, n).sum(axis=1)
    else:
        lam = p * true_rate + (1 - p) * (1 - true_rate)
        counts = gen.binomial(n, lam, size=n_trials)

    at0 = rr_estimate([0], **kw).estimate
    at1 = rr_estimate([1], **kw).estimate
    return at0 + (at1 - at0) * (counts / n)


def _check_sizes(n) -> np.ndarray:
    """Dataset size(s) n: a whole number ≥ 1 or a 1-D array of them (as floats)."""
    n_arr = check_array("n", n, ndim=(0, 1))
    if np.any(n_arr < 1) or np.any(n_arr != np.round(n_arr)):
        raise ParameterError(f"n must contain integers >= 1; got n={describe(n)}")
    return n_arr


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

    Parameters
    ----------
    n : int or array_like of int
        Dataset size(s), ≥ 1.
    epsilon : float
        Finite > 0; refused when so small (below about 1e-308) that the
        standard deviation overflows.

    Returns
    -------
    float or numpy.ndarray
        A ``float`` for a scalar ``n``, else an array of the same length.
    """
    rr_gamma_from_epsilon(epsilon)          # validates ε (γ > 0 implies ε/2 > 0)
    n_arr = _check_sizes(n)
    half = epsilon / 2
    # 1/(2 sinh x) = e^{−x}/(1 − e^{−2x}), which is e^{−x} to double precision for x ≥ 40
    inv = 0.5 / math.sinh(half) if half < 40 else math.exp(-half)
    with np.errstate(over="ignore"):
        out = inv / np.sqrt(n_arr)
    _finite_or_refuse(out, None, epsilon, "the standard deviation")
    return float(out) if np.ndim(n) == 0 else out


def central_laplace_rate_std(n, epsilon: float):
    """Standard deviation of the central estimate ``(count + Lap(1/ε)) / n``.

    A trusted curator adds Laplace noise of scale ``1/ε`` to the count
    (sensitivity 1, [DR14]_ Thm 3.6), so the rate has standard deviation
    ``√2 / (ε n)``.

    Parameters
    ----------
    n : int or array_like of int
        Dataset size(s), ≥ 1.
    epsilon : float
        Finite > 0; refused when so small that ``1/ε`` or the standard
        deviation overflows.

    Returns
    -------
    float or numpy.ndarray
        A ``float`` for a scalar ``n``, else an array of the same length.
    """
    b = laplace_scale(1.0, epsilon)
    n_arr = _check_sizes(n)
    with np.errstate(over="ignore"):
        out = math.sqrt(2) * b / n_arr
    _finite_or_refuse(out, None, epsilon, "the standard deviation")
    return float(out) if np.ndim(n) == 0 else out
