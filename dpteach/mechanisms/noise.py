"""Noise-adding mechanisms: Laplace and Gaussian, and their privacy loss.

Teaching implementations: readable NumPy, every formula with its source. They
sample with NumPy's floating-point generators, so they inherit the floating-point
weakness described by Mironov ([M12]_, demonstrated in
:mod:`dpteach.attacks.floating_point`); :mod:`dpteach.exact.secure` has the fixed versions
(exact discrete noise on a grid).
Randomized response (local DP) lives in
:mod:`dpteach.mechanisms.randomized_response`; mechanisms that *select* rather than add
noise in :mod:`dpteach.mechanisms.selection` and :mod:`dpteach.mechanisms.sparse_vector`.

Numerical care (tested in ``tests/mechanisms/test_noise.py`` and
``tests/mechanisms/test_mechanisms_edges.py``): noise scales that under- or overflow (a
scale of 0 would release the exact answer) are refused with a
:class:`~dpteach._validation.ParameterError` naming the argument; ``log(1/δ)``
is computed as ``−log δ`` (finite for subnormal δ); privacy losses are
evaluated in forms that neither cancel far from the data nor overflow.

References
----------
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014.
.. [BW18] B. Balle and Y.-X. Wang. Improving the Gaussian Mechanism for
   Differential Privacy: Analytical Calibration and Optimal Denoising. ICML 2018.
.. [M12] I. Mironov. On significance of the least significant bits for
   differential privacy. ACM CCS 2012.
.. [CKS20] C. Canonne, G. Kamath and T. Steinke. The discrete Gaussian for
   differential privacy. NeurIPS 2020 (arXiv:2004.00010): exact samplers
   (Algorithms 1-3), the zCDP of the discrete Gaussian, Cor. 13 (zCDP to
   (ε, δ)).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

from .._validation import (
    ParameterError,
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_finite,
    check_in_range,
    check_positive,
    check_rng,
    check_sensitivity,
)

__all__ = [
    "laplace_scale",
    "laplace_mechanism",
    "gaussian_sigma",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_mechanism",
    "laplace_privacy_loss",
    "gaussian_privacy_loss",
]


def _as_output(noisy: np.ndarray, original) -> float | np.ndarray:
    """Return a float for scalar input, an array otherwise."""
    return float(noisy) if np.ndim(original) == 0 else noisy


_FLOAT_MAX = np.finfo(float).max


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
    vector ``value`` ([DR14]_, Def 3.3, Thm 3.6). The noise is NumPy's
    floating-point Laplace sampler, which Mironov's attack breaks ([M12]_,
    :mod:`dpteach.attacks.floating_point`);
    :func:`dpteach.exact.secure.secure_laplace_mechanism` is the fix.

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
    a = 0.5 * (sensitivity / sigma)           # = Δ/(2σ); 2σ itself may overflow
    b = _product_ratio(epsilon, sigma, sensitivity)
    # e^ε Φ(−a−b) ≤ Φ(a−b) ≤ 1 (δ is a hockey-stick divergence, so ≥ 0): the
    # exponent is ≤ 0 in exact arithmetic; clamp rounding error for huge ε.
    log_second = min(epsilon + float(special.log_ndtr(-a - b)), 0.0)
    d = float(special.ndtr(a - b)) - math.exp(log_second)
    return max(d, 0.0)


def gaussian_epsilon(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """Exact ε of the Gaussian mechanism at δ: the root of Balle–Wang's δ(ε) ([BW18]_ Thm 8).

    δ(ε) decreases in ε, so the root is unique; returns 0 if already δ(0) ≤ δ.
    The root is bracketed (by doubling, at most ~1025 times) and refined to
    1e-13 relative, then nudged up so that δ(ε) ≤ δ holds exactly as computed.

    Parameters
    ----------
    sigma : float
        Noise standard deviation σ > 0.
    delta : float
        In (0, 1).
    sensitivity : float, default 1
        ℓ2 sensitivity Δ > 0.

    Returns
    -------
    float
        ε ≥ 0; ``inf`` when even ε = 1.8e308 leaves δ(ε) > δ (Δ/σ beyond ~1e154).
    """
    sigma = check_positive("sigma", sigma)
    delta = check_delta("delta", delta, allow_zero=False)
    sensitivity = check_positive("sensitivity", sensitivity)

    def d(e: float) -> float:
        return gaussian_delta(sigma, sensitivity, e)

    if d(0.0) <= delta:
        return 0.0
    hi = 1.0
    while d(hi) > delta:
        if hi >= _FLOAT_MAX:
            return math.inf
        hi = min(hi * 2, _FLOAT_MAX)
    # the root lies in (hi/2, hi] when hi > 1; a bracket from 0 is kept for hi ≤ 2^20
    lo = 0.0 if hi <= 2.0**20 else hi / 2
    try:
        eps = optimize.brentq(lambda e: d(e) - delta, lo, hi, xtol=1e-15, rtol=1e-13,
                              maxiter=400)
    except RuntimeError:                         # not converged: hi is a valid answer
        return float(hi)
    for _ in range(1000):
        if d(eps) <= delta:
            return float(eps)
        eps = np.nextafter(eps, math.inf) * (1 + 1e-14)
    return float(hi)


def _product_ratio(x: float, y: float, z: float) -> float:
    """``x·y/z`` for finite x ≥ 0 and y, z > 0, via logarithms if ``x·y`` over- or underflows."""
    r = x * y / z
    if x > 0 and (r == 0 or not math.isfinite(r)):
        try:
            r = math.exp(math.log(x) + math.log(y) - math.log(z))
        except OverflowError:
            r = math.inf
    return r


def _analytic_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    # δ(σ) decreases strictly in σ; find the σ where it equals the target.
    # Work with s = log σ so that brentq's tolerance is relative in σ.
    def excess(log_sigma: float) -> float:
        return gaussian_delta(math.exp(log_sigma), sensitivity, epsilon) - delta

    got = f"got sensitivity={sensitivity!r}, epsilon={epsilon!r}, delta={delta!r}"

    # brackets stay inside the positive floats: exp(log_min) = 5e-324 (subnormal), and
    # exp(log_max) ≤ the largest float
    log_min = math.log(5e-324)
    log_max = math.log(np.finfo(float).max)
    lo = max(math.log(sensitivity) - 1.0, log_min)
    while excess(lo) <= 0:   # σ small enough that the mechanism is *not* private
        if lo <= log_min:
            raise ParameterError("the noise level sigma for (epsilon, delta) underflows for this "
                                 f"sensitivity (epsilon too large); {got}")
        lo = max(lo - 2.0, log_min)
    hi = min(math.log(sensitivity) + 1.0, log_max)
    while excess(hi) > 0:
        if hi >= log_max:
            raise ParameterError("no finite noise level sigma achieves (epsilon, delta) for this "
                                 f"sensitivity (epsilon too small); {got}")
        hi = min(hi + 2.0, log_max)
    root = optimize.brentq(excess, lo, hi, xtol=1e-13, rtol=4 * np.finfo(float).eps, maxiter=500)
    # brentq may land a hair below the true root; step up so δ(σ) ≤ target.
    sigma = math.exp(root)
    while gaussian_delta(sigma, sensitivity, epsilon) > delta:
        sigma = float(np.nextafter(sigma, np.inf) * (1 + 1e-15))
        if not math.isfinite(sigma):
            raise ParameterError("no finite noise level sigma achieves (epsilon, delta) for this "
                                 f"sensitivity; {got}")
    return sigma


def delta_zero_error() -> ParameterError:
    """The error for δ = 0 with Gaussian noise (which never gives pure ε-DP)."""
    return ParameterError("delta must be in (0, 1) for the Gaussian mechanism; got delta=0. "
                          "Gaussian noise cannot give pure (epsilon, 0)-DP: use the Laplace "
                          "mechanism or choose delta > 0 (e.g. 1e-5, well below 1/n).")


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
        raise delta_zero_error()
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
    ``method="analytic"``). Floating-point noise, like :func:`laplace_mechanism`;
    :func:`dpteach.exact.secure.secure_gaussian_mechanism` is the exact version.

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

    Evaluated as ``ε·(1 − 2·clip(y − value, 0, Δ)/Δ)``, equal to the formula
    above: exactly ``ε`` left of ``value``, exactly ``−ε`` right of
    ``value + Δ`` (the difference of absolute values would cancel to 0 far
    from the data) and linear in between.

    Parameters
    ----------
    y : float or array_like
        Output(s) of the mechanism, finite.
    sensitivity, epsilon : float
        See :func:`laplace_scale`; ``Δ/ε`` must be a usable noise scale.
    value : float
        The exact answer on D, finite.

    Returns
    -------
    float or numpy.ndarray
        Same shape as ``y``, every entry in [−ε, ε].
    """
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    epsilon = check_epsilon("epsilon", epsilon)
    laplace_scale(sensitivity, epsilon)            # Δ/ε must be a usable noise scale
    value = check_finite("value", value)
    arr = check_array("y", y, ndim=None, min_size=0, allow_bool=False)
    with np.errstate(over="ignore"):
        t = arr - value                            # ±inf when it overflows: clipped below
    frac = np.clip(t, 0.0, sensitivity) / sensitivity
    return _as_output(epsilon * (1.0 - 2.0 * frac), y)


def gaussian_privacy_loss(y, sensitivity: float, sigma: float, value: float = 0.0):
    """Privacy loss ``ln(p(y)/p'(y))`` of Gaussian noise N(0, σ²) at output ``y``.

    With ``p = N(value, σ²)`` and ``p' = N(value + Δ, σ²)``,
    ``ln(p/p') = (Δ² − 2Δ(y − value)) / (2σ²)``: linear and unbounded in y, so
    no σ gives pure ε-DP; it exceeds ε in absolute value with probability
    governed by δ ([DR14]_, proof of Thm A.1; [BW18]_ Sec 3). Under D the loss is
    distributed as ``N(μ, 2μ)`` with ``μ = Δ²/(2σ²)``.

    Evaluated as ``r·(r/2 − (y − value)/σ)`` with ``r = Δ/σ``, so that Δ² and
    σ² never over- or underflow on their own; a loss beyond the float range is
    ±inf.

    Parameters
    ----------
    y : float or array_like
        Output(s), finite.
    sensitivity : float
        ℓ2 sensitivity Δ, finite and > 0.
    sigma : float
        Noise standard deviation σ, finite and > 0; ``Δ/σ`` must be a finite
        number > 0 (not over- or underflow).
    value : float
        The exact answer on D, finite.

    Returns
    -------
    float or numpy.ndarray
        Same shape as ``y``.
    """
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    sigma = check_sensitivity("sigma", sigma)
    value = check_finite("value", value)
    arr = check_array("y", y, ndim=None, min_size=0, allow_bool=False)
    r = sensitivity / sigma
    if r == 0 or not math.isfinite(r):
        raise ParameterError(f"sensitivity / sigma {'overflows' if r else 'underflows to 0'}; "
                             f"got sensitivity={sensitivity!r}, sigma={sigma!r}")
    with np.errstate(over="ignore"):
        shift = arr - value                       # ±inf when it overflows
        u = shift / sigma
        loss = r * (0.5 * r - u)
    # r is finite and > 0, so r/2 − u and r·(r/2 − u) are never NaN, even for u = ±inf
    return _as_output(loss, y)
