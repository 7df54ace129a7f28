"""Adding noise: the Laplace and Gaussian mechanisms, and their privacy loss.

To release a number f(D) privately, add noise scaled to how much one person can move it:
its *sensitivity* Δ. Laplace noise of scale Δ₁/ε gives ε-DP; Gaussian noise gives (ε, δ)-DP
at a σ that :func:`gaussian_sigma` calibrates (the classic bound, or the exact analytic
one), and :func:`gaussian_delta` / :func:`gaussian_epsilon` say exactly what a given σ
buys. The privacy-loss functions show why: the log-ratio of the output densities on two
neighbouring datasets is bounded by ε for Laplace noise and unbounded (but rarely large)
for Gaussian noise.

These mechanisms sample with NumPy's floating-point generators, so they inherit the
weakness Mironov found ([M12]_, :mod:`dpteach.attacks.floating_point`);
:mod:`dpteach.exact.secure` has the fixed versions. Randomized response is in
:mod:`dpteach.mechanisms.randomized_response`; mechanisms that *select* rather than add
noise in :mod:`dpteach.mechanisms.selection` and :mod:`dpteach.mechanisms.sparse_vector`.

References
----------
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014.
.. [BW18] B. Balle and Y.-X. Wang. Improving the Gaussian Mechanism for
   Differential Privacy: Analytical Calibration and Optimal Denoising. ICML 2018.
.. [M12] I. Mironov. On significance of the least significant bits for
   differential privacy. ACM CCS 2012.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

from .._validation import (DELTA_POSITIVE, EPSILON, RNG, SCALE, SENSITIVITY, VALUE, VALUES, choice,
                           one_of, real, refuse, validate)

__all__ = [
    "laplace_scale", "laplace_mechanism",
    "gaussian_sigma", "gaussian_delta", "gaussian_epsilon", "gaussian_mechanism",
    "laplace_privacy_loss", "gaussian_privacy_loss",
]

#: δ of the Gaussian mechanism: Gaussian noise never gives pure DP, so δ = 0 is refused
GAUSSIAN_DELTA = one_of(DELTA_POSITIVE, text="a number in [1e-50, 1) (Gaussian noise cannot "
                        "give pure DP: for δ = 0 use the Laplace mechanism)")
METHOD = choice("analytic", "classic")


# --------------------------------------------------------------------- Laplace
@validate(sensitivity=SENSITIVITY, epsilon=EPSILON)
def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Scale ``b = Δ₁/ε`` of the Laplace mechanism.

    ``f(x) + Lap(b)`` with ``b = Δ₁/ε`` is (ε, 0)-DP, where Δ₁ is the ℓ1 sensitivity of
    ``f`` ([DR14]_, Thm 3.6). Its expected absolute error per coordinate is ``b`` and its
    standard deviation ``√2·b``.
    """
    return sensitivity / epsilon


@validate(value=VALUES, sensitivity=SENSITIVITY, epsilon=EPSILON, rng=RNG)
def laplace_mechanism(value, sensitivity: float, epsilon: float, rng=None):
    """Release ``value + Lap(Δ₁/ε)``, independent noise in every coordinate.

    (ε, 0)-DP when ``sensitivity`` bounds the ℓ1 sensitivity of the whole vector
    ``value`` ([DR14]_, Def 3.3, Thm 3.6).

    Parameters
    ----------
    value : float or array_like
        The exact query answer(s).
    sensitivity : float
        ℓ1 sensitivity Δ₁ of the query.
    epsilon : float
        The privacy parameter ε.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    float or numpy.ndarray
        Same shape as ``value``.
    """
    noise = rng.laplace(0.0, sensitivity / epsilon, size=np.shape(value) or None)
    return value + noise


# -------------------------------------------------------------------- Gaussian
@validate(sensitivity=SENSITIVITY, epsilon=EPSILON, delta=GAUSSIAN_DELTA, method=METHOD)
def gaussian_sigma(sensitivity: float, epsilon: float, delta: float,
                   method: str = "analytic") -> float:
    """Noise standard deviation σ for an (ε, δ)-DP Gaussian mechanism.

    ``sensitivity`` is the ℓ2 sensitivity Δ₂ of the query; δ > 0 (no Gaussian noise level
    gives pure DP).

    * ``method="classic"``: ``σ = Δ₂ √(2 ln(1.25/δ)) / ε`` ([DR14]_, Thm A.1), proved only
      for ε < 1; ε ≥ 1 is refused.
    * ``method="analytic"``: the smallest σ with ``gaussian_delta(σ) ≤ δ`` ([BW18]_, Thm 8
      and Alg. 1), found by a bracketing root search to about 1e-12 relative; valid for
      every ε > 0 and never larger than the classic σ.
    """
    if method == "analytic":
        return _analytic_sigma(sensitivity, epsilon, delta)
    if epsilon >= 1:          # method='analytic' is valid for every epsilon > 0
        raise refuse("epsilon", epsilon, "< 1 with method='classic' (Dwork & Roth Thm A.1)")
    return sensitivity * math.sqrt(2 * (math.log(1.25) - math.log(delta))) / epsilon


@validate(sigma=SCALE, sensitivity=SENSITIVITY, epsilon=real(0.0, 1e40))
def gaussian_delta(sigma: float, sensitivity: float, epsilon: float) -> float:
    """Exact δ(ε) of the Gaussian mechanism with noise N(0, σ²).

    ``δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)`` ([BW18]_, Thm 8), where Φ is
    the standard normal CDF and Δ the ℓ2 sensitivity. The mechanism ``f(x) + N(0, σ² I)``
    is (ε, δ)-DP if and only if δ ≥ δ(ε): the bound is tight, not a tail estimate.

    ε = 0 gives the total-variation distance ``2Φ(Δ/2σ) − 1``; ε goes up to 1e40, every ε
    that :func:`gaussian_epsilon` returns on the teaching domain. δ lies in [0, 1) (in
    floating point it rounds to 1.0 when σ ≪ Δ).
    """
    a, b = sensitivity / (2 * sigma), epsilon * sigma / sensitivity
    # e^ε Φ(−a−b) as exp(ε + log Φ(−a−b)): e^ε alone overflows for ε > 709. The term is
    # at most Φ(a−b) (δ is a hockey-stick divergence, ≥ 0): clamp its rounding error.
    second = math.exp(min(epsilon + float(special.log_ndtr(-a - b)), 0.0))
    return max(float(special.ndtr(a - b)) - second, 0.0)


@validate(sigma=SCALE, delta=DELTA_POSITIVE, sensitivity=SENSITIVITY)
def gaussian_epsilon(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """Exact ε of the Gaussian mechanism at δ: the root of Balle–Wang's δ(ε) ([BW18]_ Thm 8).

    δ(ε) decreases in ε, so the root is unique; 0 if already δ(0) ≤ δ. ε is accurate to
    about 1e-13 relative even when σ ≪ Δ, and ``gaussian_delta(σ, Δ, ε) ≤ δ`` holds
    exactly as computed. The result may exceed the ε of the teaching domain when σ ≪ Δ (a
    result, not a parameter).
    """
    # Solve for t = ε/μ − μ/2 (μ = Δ/σ) to about 1e-14, where δ is a smooth function of t
    # alone and μ; then ε = μt + μ²/2 is accurate to rounding even when ε ≈ μ²/2 is huge.
    mu = sensitivity / sigma
    if _delta_at(-mu / 2, mu) <= delta:                       # already at ε = 0
        return 0.0
    hi = -float(special.ndtri(delta)) + 1.0                   # δ(t) ≤ Φ(−t) < δ there
    t = optimize.brentq(lambda t: _delta_at(t, mu) - delta, -mu / 2, hi, xtol=1e-14, rtol=1e-15)
    eps = max(mu * t + mu * mu / 2, 0.0)
    while gaussian_delta.__wrapped__(sigma, sensitivity, eps) > delta:
        eps = math.nextafter(eps, math.inf)                   # brentq may land a hair low
    return eps


@validate(value=VALUES, sensitivity=SENSITIVITY, epsilon=EPSILON, delta=GAUSSIAN_DELTA,
          method=METHOD, rng=RNG)
def gaussian_mechanism(value, sensitivity: float, epsilon: float, delta: float,
                       method: str = "analytic", rng=None):
    """Release ``value + N(0, σ² I)`` with σ from :func:`gaussian_sigma`.

    (ε, δ)-DP when ``sensitivity`` bounds the ℓ2 sensitivity of ``value`` ([DR14]_ Thm
    A.1 for ``method="classic"``, ε < 1; [BW18]_ Thm 8 for ``method="analytic"``). The
    result has the shape of ``value``.
    """
    sigma = gaussian_sigma(sensitivity, epsilon, delta, method)
    return value + rng.normal(0.0, sigma, size=np.shape(value) or None)


# ---------------------------------------------------------------- privacy loss
@validate(y=VALUES, sensitivity=SENSITIVITY, epsilon=EPSILON, value=VALUE)
def laplace_privacy_loss(y, sensitivity: float, epsilon: float, value: float = 0.0):
    """Privacy loss ``ln(p(y)/p'(y))`` of the Laplace mechanism at output ``y``.

    ``p`` is the density of ``value + Lap(b)`` (dataset D) and ``p'`` that of
    ``value + Δ + Lap(b)`` (its neighbour D′), ``b = Δ/ε``. Then
    ``ln(p/p') = (|y − value − Δ| − |y − value|)/b``, which by the triangle inequality
    lies in [−ε, ε] for every y ([DR14]_, proof of Thm 3.6): exactly ε left of ``value``,
    exactly −ε right of ``value + Δ``, and linear in between. The result has the shape of
    ``y``.
    """
    # the clipped form equals the difference of absolute values, which would cancel to 0
    # in floating point far from the data
    frac = np.clip(y - value, 0.0, sensitivity) / sensitivity
    return _plain(epsilon * (1.0 - 2.0 * frac))


@validate(y=VALUES, sensitivity=SENSITIVITY, sigma=SCALE, value=VALUE)
def gaussian_privacy_loss(y, sensitivity: float, sigma: float, value: float = 0.0):
    """Privacy loss ``ln(p(y)/p'(y))`` of Gaussian noise N(0, σ²) at output ``y``.

    With ``p = N(value, σ²)`` and ``p' = N(value + Δ, σ²)``,
    ``ln(p/p') = (Δ² − 2Δ(y − value)) / (2σ²)``: linear and unbounded in y, so no σ
    gives pure ε-DP; it exceeds ε in absolute value with a probability governed by δ
    ([DR14]_, proof of Thm A.1; [BW18]_ Sec 3). Under D the loss is distributed as
    ``N(μ, 2μ)`` with ``μ = Δ²/(2σ²)``. The result has the shape of ``y``.
    """
    r = sensitivity / sigma
    return _plain(r * (0.5 * r - (y - value) / sigma))


# ------------------------------------------------------------------------ helpers
def _analytic_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """The smallest σ with δ(σ) ≤ δ: δ(σ) decreases strictly in σ, so bracket the root
    on log σ (brentq's tolerance is then relative in σ) and refine it."""
    def excess(log_sigma: float) -> float:
        return gaussian_delta.__wrapped__(math.exp(log_sigma), sensitivity, epsilon) - delta

    lo, hi = math.log(sensitivity) - 1.0, math.log(sensitivity) + 1.0
    while excess(lo) <= 0:                # σ small enough that the mechanism is not private
        lo -= 2.0
    while excess(hi) > 0:
        hi += 2.0
    root = optimize.brentq(excess, lo, hi, xtol=1e-13, rtol=4 * np.finfo(float).eps, maxiter=500)
    sigma = math.exp(root)
    while gaussian_delta.__wrapped__(sigma, sensitivity, epsilon) > delta:
        sigma = float(np.nextafter(sigma, np.inf) * (1 + 1e-15))   # brentq may land a hair low
    return sigma


def _delta_at(t: float, mu: float) -> float:
    """δ of the Gaussian mechanism with μ = Δ/σ at ε = μ²/2 + tμ, without overflow or
    cancellation of huge terms: with Φ(−x) = φ(x)·R(x) (R the Mills ratio, computed as
    √(π/2)·erfcx(x/√2)), Balle–Wang's e^ε Φ(−μ/2 − ε/μ) = e^ε Φ(−(μ + t)) is exactly
    φ(t)·R(μ + t), since μ²/2 + tμ − (μ + t)²/2 = −t²/2."""
    second = math.exp(-t * t / 2) / math.sqrt(2 * math.pi) * (
        math.sqrt(math.pi / 2) * float(special.erfcx((mu + t) / math.sqrt(2))))
    return max(float(special.ndtr(-t)) - second, 0.0)


def _plain(x):
    """A Python float for a scalar result, the array otherwise."""
    return float(x) if np.ndim(x) == 0 else x


# Engineering notes. In the teaching domain (ε in [1e-6, 1e3], Δ in [1e-6, 1e6], σ in
# [1e-12, 1e15], δ ≥ 1e-50) no noise scale under- or overflows, so no branch handles it:
# Δ/ε lies in [1e-9, 1e12], σ/Δ in [1e-18, 1e21], the root searches' brackets stay within a
# few hundred steps, and the privacy losses stay below 1e50. Tests:
# tests/mechanisms/test_noise.py (closed forms, dp_accounting, mpmath) and the generated
# edge and bad-input cases of tests/test_domains.py.
