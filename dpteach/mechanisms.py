"""Noise-adding mechanisms and randomized response.

Teaching implementations: readable NumPy, every formula with its source. They
sample with NumPy's floating-point generators, so they inherit the
floating-point weakness described by Mironov (2012); production systems use
discrete or snapping samplers.

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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

from ._validation import (
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
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
    """
    sensitivity = check_sensitivity(sensitivity)
    epsilon = check_epsilon(epsilon)
    return sensitivity / epsilon


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
    arr = check_array("value", value, ndim=None, min_size=0)
    b = laplace_scale(sensitivity, epsilon)
    gen = check_rng(rng)
    return _as_output(arr + gen.laplace(0.0, b, size=arr.shape), value)


# -------------------------------------------------------------------- Gaussian
def gaussian_delta(sigma: float, sensitivity: float, epsilon: float) -> float:
    """Exact δ(ε) of the Gaussian mechanism with noise N(0, σ²).

    ``δ = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)`` ([BW18]_, Thm 8), where
    Δ is the ℓ2 sensitivity. The mechanism is (ε, δ)-DP exactly for δ at least
    this value. The second term is evaluated as ``exp(ε + log Φ(·))`` so that
    large ε does not overflow.
    """
    sigma = check_sensitivity(sigma, "sigma")
    sensitivity = check_sensitivity(sensitivity)
    epsilon = check_in_range("epsilon", epsilon, 0.0, np.inf, high_inclusive=False)
    a = sensitivity / (2 * sigma)
    b = epsilon * sigma / sensitivity
    d = special.ndtr(a - b) - math.exp(epsilon + special.log_ndtr(-a - b))
    return float(max(d, 0.0))


def _analytic_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    # δ(σ) decreases strictly in σ; find the σ where it equals the target.
    # Work with s = log σ so that brentq's tolerance is relative in σ.
    def excess(log_sigma: float) -> float:
        return gaussian_delta(math.exp(log_sigma), sensitivity, epsilon) - delta

    lo = math.log(sensitivity) - 1.0
    while excess(lo) <= 0:   # σ small enough that the mechanism is *not* private
        lo -= 2.0
    hi = math.log(sensitivity) + 1.0
    while excess(hi) > 0:
        hi += 2.0
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
    sensitivity = check_sensitivity(sensitivity)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    if delta == 0:
        raise ValueError("delta must be in (0, 1) for the Gaussian mechanism; got delta=0. "
                         "Gaussian noise cannot give pure (epsilon, 0)-DP: use the Laplace "
                         "mechanism or choose delta > 0 (e.g. 1e-5, well below 1/n).")
    if method == "classic":
        if epsilon >= 1:
            raise ValueError(
                f"epsilon must be < 1 for the classic Gaussian bound (Dwork & Roth Thm A.1); "
                f"got epsilon={epsilon!r}. Use method='analytic', which is valid for every epsilon > 0.")
        return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon
    return _analytic_sigma(sensitivity, epsilon, delta)


def gaussian_mechanism(value, sensitivity: float, epsilon: float, delta: float,
                       method: str = "analytic", rng=None):
    """Release ``value + N(0, σ² I)`` with σ from :func:`gaussian_sigma`.

    (ε, δ)-DP when ``sensitivity`` bounds the ℓ2 sensitivity of ``value``
    ([DR14]_ Thm A.1; [BW18]_ Thm 8).
    """
    arr = check_array("value", value, ndim=None, min_size=0)
    sigma = gaussian_sigma(sensitivity, epsilon, delta, method=method)
    gen = check_rng(rng)
    return _as_output(arr + gen.normal(0.0, sigma, size=arr.shape), value)


# --------------------------------------------------------- randomized response
def rr_epsilon_from_gamma(gamma: float) -> float:
    """ε of randomized response that tells the truth with probability ½ + γ.

    ``ε = ln((½ + γ) / (½ − γ))`` ([W65]_; [DR14]_ Claim 3.5 for γ = ¼, ε = ln 3).
    ``gamma`` must be in (0, ½): γ = 0 reveals nothing (ε = 0), γ = ½ is the truth.
    """
    gamma = check_in_range("gamma", gamma, 0.0, 0.5, low_inclusive=False, high_inclusive=False)
    return math.log((0.5 + gamma) / (0.5 - gamma))


def rr_gamma_from_epsilon(epsilon: float) -> float:
    """Inverse of :func:`rr_epsilon_from_gamma`: ``γ = e^ε/(1+e^ε) − ½ = ½ tanh(ε/2)``."""
    epsilon = check_epsilon(epsilon)
    return 0.5 * math.tanh(epsilon / 2)


def _truth_probability(gamma, epsilon) -> float:
    if (gamma is None) == (epsilon is None):
        raise ValueError("give exactly one of gamma (truth with probability 1/2 + gamma) or "
                         f"epsilon; got gamma={gamma!r}, epsilon={epsilon!r}")
    if gamma is not None:
        rr_epsilon_from_gamma(gamma)          # validates gamma
        return 0.5 + float(gamma)
    return 0.5 + rr_gamma_from_epsilon(epsilon)


def _check_bits(name: str, bits) -> np.ndarray:
    arr = check_array(name, bits, ndim=(0, 1), min_size=1)
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name} must contain only 0s and 1s; got values {np.unique(arr)[:5]}")
    return arr.astype(np.int8)


def randomized_response(bits, gamma: float | None = None, epsilon: float | None = None,
                        rng=None) -> np.ndarray:
    """Each respondent reports their true bit with probability ½ + γ, else its flip.

    Warner's randomized response ([W65]_). With γ given, ε = ln((½+γ)/(½−γ));
    with ε given, the truth probability is e^ε/(1+e^ε). The coin-flip protocol
    of the slides (heads: answer truthfully; tails: answer with a second coin)
    is γ = ¼, ε = ln 3 ([DR14]_ Sec 3.2). Local ε-DP for each respondent.

    Returns
    -------
    numpy.ndarray of int8
        The reported bits, same length as ``bits``.
    """
    arr = _check_bits("bits", bits)
    p_truth = _truth_probability(gamma, epsilon)
    gen = check_rng(rng)
    keep = gen.random(arr.shape) < p_truth
    return np.where(keep, arr, 1 - arr).astype(np.int8)


@dataclass(frozen=True)
class RREstimate:
    """Unbiased estimate of a population rate from randomized responses.

    ``estimate`` is not clipped to [0, 1]: clipping would bias it. ``ci_low`` /
    ``ci_high`` form a normal-approximation (Wald) interval from the estimated
    standard error.
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

    With λ = (½+γ)π + (½−γ)(1−π) the probability of a "yes",
    ``Var(π̂) = λ(1−λ) / (n (2γ)²)`` since ``π̂ = (Ȳ − (½ − γ)) / (2γ)``.
    """
    rate = check_in_range("rate", rate, 0.0, 1.0)
    n = check_int("n", n, minimum=1)
    p = _truth_probability(gamma, epsilon)
    lam = p * rate + (1 - p) * (1 - rate)
    return math.sqrt(lam * (1 - lam) / n) / (2 * p - 1)


def rr_estimate(reports, gamma: float | None = None, epsilon: float | None = None,
                confidence: float = 0.95) -> RREstimate:
    """Unbiased estimator of the true rate π from randomized-response reports.

    ``E[Ȳ] = (½+γ)π + (½−γ)(1−π)``, so ``π̂ = (Ȳ − ½ + γ) / (2γ)`` is unbiased,
    with ``Var(π̂) = λ(1−λ)/(n·4γ²)``, λ = E[Ȳ] ([W65]_). The standard error
    plugs in λ̂ = Ȳ.
    """
    y = _check_bits("reports", reports)
    confidence = check_in_range("confidence", confidence, 0.0, 1.0,
                                low_inclusive=False, high_inclusive=False)
    p = _truth_probability(gamma, epsilon)
    n = y.size
    lam = float(y.mean())
    est = (lam - (1 - p)) / (2 * p - 1)
    se = math.sqrt(lam * (1 - lam) / n) / (2 * p - 1)
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    return RREstimate(est, se, est - z * se, est + z * se, confidence, n)


def _k_rr_probs(k: int, epsilon: float) -> tuple[float, float]:
    e = math.exp(epsilon) if epsilon < 700 else math.inf
    if math.isinf(e):
        return 1.0, 0.0
    return e / (e + k - 1), 1.0 / (e + k - 1)


def k_randomized_response(values, k: int, epsilon: float, rng=None) -> np.ndarray:
    """k-ary randomized response (generalised RR / "direct encoding").

    Each value in {0, …, k−1} is reported truthfully with probability
    ``p = e^ε/(e^ε + k − 1)`` and as each other value with probability
    ``q = 1/(e^ε + k − 1)``; p/q = e^ε so this is local ε-DP ([KOV16]_;
    [WBLJ17]_ Sec 4.1). For k = 2 it is Warner's protocol.
    """
    k = check_int("k", k, minimum=2)
    epsilon = check_epsilon(epsilon)
    arr = check_array("values", values, ndim=1)
    if not np.all((arr == np.round(arr)) & (arr >= 0) & (arr < k)):
        raise ValueError(f"values must be integers in [0, {k - 1}] for k={k}")
    arr = arr.astype(np.int64)
    gen = check_rng(rng)
    p, _ = _k_rr_probs(k, epsilon)
    keep = gen.random(arr.shape) < p
    # a uniformly chosen *other* value: shift by 1..k-1 modulo k
    other = (arr + gen.integers(1, k, size=arr.shape)) % k
    return np.where(keep, arr, other)


def k_rr_estimate(reports, k: int, epsilon: float) -> np.ndarray:
    """Unbiased frequency estimates from k-ary RR reports.

    ``π̂_v = (c_v/n − q) / (p − q)`` with p, q as in :func:`k_randomized_response`
    ([WBLJ17]_, Thm 2). Not clipped or renormalised (that would add bias).
    """
    k = check_int("k", k, minimum=2)
    epsilon = check_epsilon(epsilon)
    arr = check_array("reports", reports, ndim=1)
    if not np.all((arr == np.round(arr)) & (arr >= 0) & (arr < k)):
        raise ValueError(f"reports must be integers in [0, {k - 1}] for k={k}")
    p, q = _k_rr_probs(k, epsilon)
    freq = np.bincount(arr.astype(np.int64), minlength=k) / arr.size
    return (freq - q) / (p - q)
