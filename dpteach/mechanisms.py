"""Noise-adding mechanisms and randomized response.

Teaching implementations: readable NumPy, every formula with its source. They
sample with NumPy's floating-point generators, so they inherit the
floating-point weakness described by Mironov ([M12]_); production systems use
discrete or snapping samplers.

Numerical care (tested in ``tests/test_mechanisms.py``): randomized-response
estimators divide by 2γ (never by ``2p − 1``, which rounds to 0 for tiny γ);
k-RR estimates use ``expm1``; noise scales that under- or overflow (a scale of
0 would release the exact answer) are refused with a ``ValueError``.

References
----------
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014.
.. [BW18] B. Balle and Y.-X. Wang. Improving the Gaussian Mechanism for
   Differential Privacy: Analytical Calibration and Optimal Denoising. ICML 2018.
.. [W65] S. L. Warner. Randomized response: a survey technique for eliminating
   evasive answer bias. JASA 60(309), 1965.
.. [KOV16] P. Kairouz, S. Oh and P. Viswanath. Extremal mechanisms for local
   differential privacy. JMLR 17, 2016.
.. [WBLJ17] T. Wang, J. Blocki, N. Li and S. Jha. Locally differentially
   private protocols for frequency estimation. USENIX Security 2017.
.. [M12] I. Mironov. On significance of the least significant bits for
   differential privacy. ACM CCS 2012.
.. [CSS12] T.-H. H. Chan, E. Shi and D. Song. Optimal lower bound for
   differentially private multi-party aggregation. ESA 2012 (local counts need
   error Ω(√n/ε)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from ._validation import (
    ParameterError,
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_finite,
    check_in_range,
    check_int,
    check_rng,
    check_sensitivity,
)

__all__ = [
    "laplace_scale",
    "laplace_mechanism",
    "gaussian_sigma",
    "gaussian_delta",
    "gaussian_mechanism",
    "rr_epsilon_from_gamma",
    "rr_gamma_from_epsilon",
    "randomized_response",
    "RREstimate",
    "rr_estimate",
    "k_randomized_response",
    "k_rr_estimate",
    "laplace_privacy_loss",
    "gaussian_privacy_loss",
    "simulate_rr_estimates",
    "rr_std_error",
    "rr_local_std",
    "central_laplace_rate_std",
    # re-exported from dpteach.selection and dpteach.robust (bottom of this module)
    "exponential_mechanism",
    "exponential_mechanism_probabilities",
    "private_mode",
    "private_median",
    "report_noisy_max",
    "above_threshold",
    "sparse_vector",
    "SparseVector",
    "subsample_and_aggregate",
    "propose_test_release_median",
    "PTRResult",
]


def _as_output(noisy: np.ndarray, original) -> float | np.ndarray:
    """Return a float for scalar input, an array otherwise."""
    return float(noisy) if np.ndim(original) == 0 else noisy


# --------------------------------------------------------------------- Laplace
def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Scale ``b = Δ₁ / ε`` of the Laplace mechanism.

    The Laplace mechanism ``f(x) + Lap(b)`` with ``b = Δ₁/ε`` is (ε, 0)-DP,
    where Δ₁ is the ℓ1 sensitivity of ``f`` ([DR14]_, Thm 3.6). Its expected
    absolute error per coordinate is ``b`` and its standard deviation ``√2·b``.

    Parameters
    ----------
    sensitivity : float
        ℓ1 sensitivity Δ₁ of the query, finite and > 0.
    epsilon : float
        Privacy parameter, finite and > 0.

    Returns
    -------
    float
        ``b``; the noise variance is ``2b²``.
    """
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    epsilon = check_epsilon("epsilon", epsilon)
    b = sensitivity / epsilon
    if not math.isfinite(b) or b == 0:
        # b = 0 would silently release the exact answer; b = inf only NaNs
        what = "overflows (no finite noise scale)" if b else "underflows to 0 (no noise)"
        raise ParameterError(f"sensitivity / epsilon {what}; got "
                             f"sensitivity={sensitivity!r}, epsilon={epsilon!r}")
    return b


def laplace_mechanism(value, sensitivity: float, epsilon: float, rng=None):
    """Release ``value + Lap(Δ₁/ε)`` independently in every coordinate.

    (ε, 0)-DP when ``sensitivity`` bounds the ℓ1 sensitivity of the whole
    vector ``value`` ([DR14]_, Def 3.3, Thm 3.6).

    Parameters
    ----------
    value : float or array_like
        The exact query answer(s), finite.
    sensitivity, epsilon : float
        See :func:`laplace_scale`.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    float or numpy.ndarray
        Same shape as ``value``.
    """
    arr = check_array("value", value, ndim=None, min_size=0, allow_bool=False)
    b = laplace_scale(sensitivity, epsilon)
    gen = check_rng(rng)
    return _as_output(arr + gen.laplace(0.0, b, size=arr.shape), value)


# -------------------------------------------------------------------- Gaussian
def gaussian_delta(sigma: float, sensitivity: float, epsilon: float) -> float:
    """Exact δ(ε) of the Gaussian mechanism with noise N(0, σ²).

    ``δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)`` ([BW18]_, Thm 8),
    where Φ is the standard normal CDF and Δ the ℓ2 sensitivity. The mechanism
    ``f(x) + N(0, σ² I)`` is (ε, δ)-DP if and only if δ ≥ δ(ε): the bound is
    tight, not a tail estimate. The second term is evaluated as
    ``exp(ε + log Φ(·))`` so that large ε does not overflow.

    Parameters
    ----------
    sigma : float
        Noise standard deviation, finite and > 0.
    sensitivity : float
        ℓ2 sensitivity Δ, finite and > 0.
    epsilon : float
        Finite and ≥ 0 (ε = 0 gives the total-variation distance ``2Φ(Δ/2σ) − 1``).

    Returns
    -------
    float
        δ in [0, 1) (in floating point it rounds to 1.0 when σ ≪ Δ).
    """
    sigma = check_sensitivity("sigma", sigma)
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    epsilon = check_in_range("epsilon", epsilon, 0.0, np.inf, high_inclusive=False)
    a = sensitivity / (2 * sigma)
    b = epsilon * sigma / sensitivity
    # e^ε Φ(−a−b) ≤ Φ(a−b) ≤ 1 (δ is a hockey-stick divergence, so ≥ 0): the
    # exponent is ≤ 0 in exact arithmetic; clamp rounding error for huge ε.
    log_second = min(epsilon + float(special.log_ndtr(-a - b)), 0.0)
    d = float(special.ndtr(a - b)) - math.exp(log_second)
    return max(d, 0.0)


def _analytic_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    # δ(σ) decreases strictly in σ; find the σ where it equals the target.
    # Work with s = log σ so that brentq's tolerance is relative in σ.
    def excess(log_sigma: float) -> float:
        return gaussian_delta(math.exp(log_sigma), sensitivity, epsilon) - delta

    lo = math.log(sensitivity) - 1.0
    log_min = math.log(np.finfo(float).tiny)
    while excess(lo) <= 0:   # σ small enough that the mechanism is *not* private
        lo -= 2.0
        if lo < log_min:
            raise ParameterError("the noise level sigma for (epsilon, delta) underflows for this "
                                 f"sensitivity (epsilon too large); got sensitivity={sensitivity!r}, "
                                 f"epsilon={epsilon!r}, delta={delta!r}")
    hi = math.log(sensitivity) + 1.0
    log_max = math.log(np.finfo(float).max)
    while excess(hi) > 0:
        hi += 2.0
        if hi > log_max:
            raise ParameterError("no finite noise level sigma achieves (epsilon, delta) for this "
                                 f"sensitivity (epsilon too small); got sensitivity={sensitivity!r}, "
                                 f"epsilon={epsilon!r}, delta={delta!r}")
    root = optimize.brentq(excess, lo, hi, xtol=1e-13, rtol=4 * np.finfo(float).eps, maxiter=500)
    # brentq may land a hair below the true root; step up so δ(σ) ≤ target.
    sigma = math.exp(root)
    while gaussian_delta(sigma, sensitivity, epsilon) > delta:
        sigma = np.nextafter(sigma, np.inf) * (1 + 1e-15)
    return sigma


def gaussian_sigma(sensitivity: float, epsilon: float, delta: float,
                   method: str = "analytic") -> float:
    """Noise standard deviation σ for an (ε, δ)-DP Gaussian mechanism.

    Parameters
    ----------
    sensitivity : float
        ℓ2 sensitivity Δ₂ of the query, finite and > 0.
    epsilon : float
        Finite and > 0. The classic bound needs ε < 1.
    delta : float
        In (0, 1). With δ = 0 no Gaussian noise level gives privacy.
    method : {"analytic", "classic"}
        ``"classic"``: ``σ = Δ₂ √(2 ln(1.25/δ)) / ε`` ([DR14]_, Thm A.1), proved
        only for ε < 1; ε ≥ 1 is refused. ``"analytic"``: the smallest σ with
        ``gaussian_delta(σ) ≤ δ`` ([BW18]_, Thm 8 and Alg. 1), found by a
        bracketing root search to about 1e-12 relative; valid for every ε > 0
        and never larger than the classic σ.

    Returns
    -------
    float
    """
    method = check_choice("method", method, {"analytic", "classic"})
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    epsilon = check_epsilon("epsilon", epsilon)
    delta = check_delta("delta", delta)
    if delta == 0:
        raise ParameterError("delta must be in (0, 1) for the Gaussian mechanism; got delta=0. "
                             "Gaussian noise cannot give pure (epsilon, 0)-DP: use the Laplace "
                             "mechanism or choose delta > 0 (e.g. 1e-5, well below 1/n).")
    if method == "classic":
        if epsilon >= 1:
            raise ParameterError(
                f"epsilon must be < 1 for the classic Gaussian bound (Dwork & Roth Thm A.1); "
                f"got epsilon={epsilon!r}. Use method='analytic', which is valid for every "
                "epsilon > 0.")
        # log(1.25) − log(δ) rather than log(1.25/δ): no overflow for tiny δ
        sigma = sensitivity * math.sqrt(2 * (math.log(1.25) - math.log(delta))) / epsilon
        if not math.isfinite(sigma) or sigma == 0:
            raise ParameterError("no usable noise level sigma: it over- or underflows; got "
                                 f"sensitivity={sensitivity!r}, epsilon={epsilon!r}, delta={delta!r}")
        return sigma
    return _analytic_sigma(sensitivity, epsilon, delta)


def gaussian_mechanism(value, sensitivity: float, epsilon: float, delta: float,
                       method: str = "analytic", rng=None):
    """Release ``value + N(0, σ² I)`` with σ from :func:`gaussian_sigma`.

    (ε, δ)-DP when ``sensitivity`` bounds the ℓ2 sensitivity of ``value``
    ([DR14]_ Thm A.1 for ``method="classic"``, ε < 1; [BW18]_ Thm 8 for
    ``method="analytic"``).

    Parameters
    ----------
    value : float or array_like
        The exact query answer(s), finite.
    sensitivity, epsilon, delta, method
        See :func:`gaussian_sigma`.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    float or numpy.ndarray
        Same shape as ``value``.
    """
    arr = check_array("value", value, ndim=None, min_size=0, allow_bool=False)
    sigma = gaussian_sigma(sensitivity, epsilon, delta, method=method)
    gen = check_rng(rng)
    return _as_output(arr + gen.normal(0.0, sigma, size=arr.shape), value)


# ---------------------------------------------------------------- privacy loss
def laplace_privacy_loss(y, sensitivity: float, epsilon: float, value: float = 0.0):
    """Privacy loss ``ln(p(y)/p'(y))`` of the Laplace mechanism at output ``y``.

    ``p`` is the density of ``value + Lap(b)`` (dataset D) and ``p'`` that of
    ``value + Δ + Lap(b)`` (its neighbour D'), ``b = Δ/ε``. Then
    ``ln(p/p') = (|y − value − Δ| − |y − value|)/b``, which by the triangle
    inequality lies in [−ε, ε] for every y ([DR14]_, proof of Thm 3.6).
    """
    b = laplace_scale(sensitivity, epsilon)
    value = check_finite("value", value)
    y = check_array("y", y, ndim=None, min_size=0, allow_bool=False)
    return (np.abs(y - value - sensitivity) - np.abs(y - value)) / b


def gaussian_privacy_loss(y, sensitivity: float, sigma: float, value: float = 0.0):
    """Privacy loss ``ln(p(y)/p'(y))`` of Gaussian noise N(0, σ²) at output ``y``.

    With ``p = N(value, σ²)`` and ``p' = N(value + Δ, σ²)``,
    ``ln(p/p') = (Δ² − 2Δ(y − value)) / (2σ²)``: linear and unbounded in y, so
    no σ gives pure ε-DP; it exceeds ε in absolute value with probability
    governed by δ ([DR14]_, proof of Thm A.1; [BW18]_ Sec 3). Under D the loss is
    distributed as ``N(μ, 2μ)`` with ``μ = Δ²/(2σ²)``.
    """
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    sigma = check_sensitivity("sigma", sigma)
    value = check_finite("value", value)
    y = check_array("y", y, ndim=None, min_size=0, allow_bool=False)
    return (sensitivity ** 2 - 2 * sensitivity * (y - value)) / (2 * sigma ** 2)


# --------------------------------------------------------- randomized response
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
    ValueError
        If ε is so small (below about 1e-323) that γ underflows to 0.
    """
    epsilon = check_epsilon("epsilon", epsilon)
    gamma = 0.5 * math.tanh(epsilon / 2)
    if gamma == 0:                          # ε below ~1e-323: ε/2 underflows
        raise ParameterError("epsilon is too small to represent gamma = tanh(epsilon/2)/2 > 0 in "
                             f"floating point; got epsilon={epsilon!r}")
    return gamma


def _finite_or_refuse(values, gamma, epsilon):
    """Refuse results that overflow because γ (or ε) is astronomically small."""
    if not np.all(np.isfinite(values)):
        which = (f"gamma={gamma!r}" if gamma is not None else f"epsilon={epsilon!r}")
        raise ParameterError("the privacy parameter is so small that the unbiased estimate "
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
        rr_epsilon_from_gamma(gamma)          # validates gamma
        return float(gamma)
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
        Number of respondents, ≥ 1.
    gamma, epsilon : float, optional
        Give exactly one (see :func:`randomized_response`).

    Returns
    -------
    float
    """
    rate = check_in_range("rate", rate, 0.0, 1.0)
    n = check_int("n", n, minimum=1)
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
                          epsilon: float | None = None, trials: int = 2000, rng=None,
                          simulation: str = "auto") -> np.ndarray:
    """Estimates π̂ from ``trials`` independent simulated surveys.

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
    reports while ``n·trials ≤ 2·10⁶`` and uses the binomial beyond (to keep
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
    trials : int
        Number of surveys, in [2, 10**6].
    rng : None, int or numpy.random.Generator
    simulation : {"auto", "reports", "binomial"}

    Returns
    -------
    numpy.ndarray of shape (trials,)
    """
    true_rate = check_in_range("true_rate", true_rate, 0.0, 1.0)
    n = check_int("n", n, minimum=1, maximum=10 ** 9)
    p = 0.5 + _rr_gamma(gamma, epsilon)
    kw = {"gamma": gamma} if gamma is not None else {"epsilon": epsilon}
    trials = check_int("trials", trials, minimum=2, maximum=10 ** 6)
    simulation = check_choice("simulation", simulation, {"auto", "reports", "binomial"})
    gen = check_rng(rng)
    if simulation == "auto":
        simulation = "reports" if n * trials <= _RR_SIMULATION_LIMIT else "binomial"

    if simulation == "reports":
        counts = np.empty(trials, dtype=np.int64)
        per_chunk = max(1, _RR_SIMULATION_LIMIT // (4 * n))   # keep each chunk ≤ 0.5 M reports
        for start in range(0, trials, per_chunk):
            m = min(per_chunk, trials - start)
            bits = (gen.random((m, n)) < true_rate).astype(np.int8)
            reports = randomized_response(bits.ravel(), **kw, rng=gen)
            counts[start:start + m] = reports.reshape(m, n).sum(axis=1)
    else:
        lam = p * true_rate + (1 - p) * (1 - true_rate)
        counts = gen.binomial(n, lam, size=trials)

    at0 = rr_estimate([0], **kw).estimate
    at1 = rr_estimate([1], **kw).estimate
    return at0 + (at1 - at0) * (counts / n)


def rr_local_std(n, epsilon: float):
    """Standard deviation of the RR rate estimate for a *fixed* dataset.

    Conditionally on the n true bits, the reports are independent with
    ``Var(Y_i) = p(1−p)`` whatever the bit, so
    ``sd(π̂ | data) = √(p(1−p)) / ((2p−1)√n) = e^{ε/2} / ((e^ε − 1)√n)``
    with ``p = e^ε/(1+e^ε)`` ([W65]_; [DR14]_ Sec 3.2). This is the error
    caused by privacy alone, comparable with :func:`central_laplace_rate_std`.
    It is Θ(1/(ε√n)) for small ε, which is optimal for local protocols
    ([CSS12]_).

    Parameters
    ----------
    n : int or array_like of int
        Dataset size(s), ≥ 1.
    epsilon : float
        Finite > 0.
    """
    p = 0.5 + rr_gamma_from_epsilon(epsilon)
    n_arr = check_array("n", n, ndim=(0, 1))
    if np.any(n_arr < 1) or np.any(n_arr != np.round(n_arr)):
        raise ParameterError(f"n must contain integers >= 1; got n={n!r}")
    out = math.sqrt(p * (1 - p)) / ((2 * p - 1) * np.sqrt(n_arr))
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
        Finite > 0.
    """
    b = laplace_scale(1.0, epsilon)
    n_arr = check_array("n", n, ndim=(0, 1))
    if np.any(n_arr < 1) or np.any(n_arr != np.round(n_arr)):
        raise ParameterError(f"n must contain integers >= 1; got n={n!r}")
    out = math.sqrt(2) * b / n_arr
    return float(out) if np.ndim(n) == 0 else out


# Mechanisms beyond noise addition live in their own modules; re-exported here.
from .selection import (  # noqa: E402,F401
    SparseVector,
    above_threshold,
    exponential_mechanism,
    exponential_mechanism_probabilities,
    private_median,
    private_mode,
    report_noisy_max,
    sparse_vector,
)
from .robust import (  # noqa: E402,F401
    PTRResult,
    propose_test_release_median,
    subsample_and_aggregate,
)
