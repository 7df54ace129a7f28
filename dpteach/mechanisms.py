"""Noise-adding mechanisms: Laplace and Gaussian, and their privacy loss.

Teaching implementations: readable NumPy, every formula with its source. By
default they sample with NumPy's floating-point generators, so they inherit the
floating-point weakness described by Mironov ([M12]_, demonstrated in
:mod:`dpteach.attacks.floating_point`). ``secure=True`` instead adds exact
discrete Laplace / discrete Gaussian noise ([CKS20]_, :mod:`dpteach.samplers`)
on a fixed grid of multiples of ``granularity``; see "Secure mode" below.
Randomized response (local DP) lives in
:mod:`dpteach.randomized_response`; mechanisms that *select* rather than add
noise in :mod:`dpteach.selection` and :mod:`dpteach.sparse_vector`.

Numerical care (tested in ``tests/test_mechanisms.py`` and
``tests/test_edges_mechanisms.py``): noise scales that under- or overflow (a
scale of 0 would release the exact answer) are refused with a
:class:`~dpteach._validation.ParameterError` naming the argument; ``log(1/δ)``
is computed as ``−log δ`` (finite for subnormal δ); privacy losses are
evaluated in forms that neither cancel far from the data nor overflow.

Secure mode (``secure=True``)
-----------------------------
The answer is rounded to the grid ``g·ℤ`` (``g = granularity``, default
2**-20), exactly: ``k = ⌊value/g + ½⌋`` computed with fractions. Integer noise
``n`` from an exact sampler is added and ``g·(k + n)`` is released. The noise
never touches a floating-point operation that depends on the data, so the
output reveals nothing beyond ``k + n``: the possible outputs are the same grid
points for every input, and Mironov's attack has nothing to find.

What changes for the sensitivity: the noise is calibrated to the sensitivity
of the *rounded* answers, in grid units. Rounding moves each coordinate by at
most g/2, so two neighbouring answers at ℓ1 distance ≤ Δ round to integer
vectors at ℓ1 distance ≤ ``Δ₁ = ⌈Δ/g⌉ + d − 1`` (d coordinates; for one
number ``⌈Δ/g⌉``, which is Δ/g itself when Δ is a multiple of g, e.g. counts
with g = 1), and at ℓ2 distance ≤ ``Δ₂ = ⌈Δ/g⌉`` (d = 1) or ``Δ/g + √d``
(d > 1). With the default fine grid the extra is negligible (Δ + d·2**-20 in
the answer's units); with a coarse grid on a long vector it is not.

* Laplace: discrete Laplace noise with scale ``t = Δ₁/ε`` grid steps. This is
  exactly ε-DP: the pmf ratio of two integer vectors at ℓ1 distance ≤ Δ₁ is at
  most ``e^{Δ₁/t} = e^ε`` ([CKS20]_; the geometric mechanism).
* Gaussian: discrete Gaussian noise N_ℤ(0, σ²) per coordinate, in grid units.
  The continuous calibration of :func:`gaussian_sigma` is **not** valid for it:
  the exact δ of the discrete Gaussian at that σ
  (:func:`dpteach.samplers.discrete_gaussian_delta`) exceeds the target, by up
  to a factor 2 when σ is about one grid step (ε = 5, δ = 1e-3, Δ = 1: δ =
  1.98e-3) and by about 1e-4 relative even at σ = 70. What does hold is zCDP:
  for integer shifts μ, the Rényi divergence of order α between N_ℤ(μ, σ²) and
  N_ℤ(0, σ²) is at most ``αμ²/(2σ²)`` (complete the square and use that
  ``Σ_x e^{−(x−c)²/(2σ²)}`` is largest at c = 0, by Poisson summation), exactly
  as for the continuous Gaussian ([CKS20]_). So ``secure=True`` takes the
  largest ρ whose zCDP → (ε, δ) conversion of [CKS20]_ (Cor. 13, as in
  :func:`dpteach.accounting.zcdp.zcdp_to_epsilon`) is ≤ ε and sets
  ``σ² = Δ₂²/(2ρ)``: (ε, δ)-DP, at the price of somewhat more noise than the
  analytic continuous σ (4-11% larger σ for ε from 0.1 to 10 and δ from
  1e-10 to 1e-3; 8% for ε = 1, δ = 1e-5).

The grid and the noise are exact; the final ``float(g·(k + n))`` is a
post-processing of the released integer. Randomness: ``rng=None`` uses the
operating system's CSPRNG; an int seed or a Generator gives a reproducible,
**not secure** stream (for tests and notebooks). Pure Python: about 6-10 µs
per coordinate on a 2-core machine (more when it is busy), so at most 10**5
coordinates per call.

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

import functools
import math
from fractions import Fraction

import numpy as np
from scipy import optimize, special

from ._validation import (
    ParameterError,
    check_array,
    check_bool,
    check_choice,
    check_delta,
    check_epsilon,
    check_finite,
    check_in_range,
    check_positive,
    check_rng,
    check_sensitivity,
)
from .samplers import sample_discrete_gaussian, sample_discrete_laplace

__all__ = [
    "laplace_scale",
    "laplace_mechanism",
    "gaussian_sigma",
    "gaussian_delta",
    "gaussian_mechanism",
    "laplace_privacy_loss",
    "gaussian_privacy_loss",
]


def _as_output(noisy: np.ndarray, original) -> float | np.ndarray:
    """Return a float for scalar input, an array otherwise."""
    return float(noisy) if np.ndim(original) == 0 else noisy


# ---------------------------------------------------------------- secure mode
DEFAULT_GRANULARITY = 2.0 ** -20   #: grid step of ``secure=True`` unless ``granularity`` is given
SECURE_SIZE_MAX = 10 ** 5          #: most coordinates ``secure=True`` adds noise to in one call


def _check_granularity(granularity, secure: bool) -> Fraction | None:
    """The grid step as an exact Fraction (``None`` without secure mode)."""
    if not secure:
        if granularity is not None:
            raise ParameterError("granularity applies only with secure=True; got "
                                 f"granularity={granularity!r}, secure=False")
        return None
    if granularity is None:
        return Fraction(DEFAULT_GRANULARITY)
    return Fraction(check_positive("granularity", granularity))


def _grid(arr: np.ndarray, g: Fraction) -> list[int]:
    """``⌊value/g + ½⌋`` for every coordinate, exactly (nearest grid point, ties up)."""
    if arr.size > SECURE_SIZE_MAX:
        raise ParameterError(f"value must have at most {SECURE_SIZE_MAX:.0e} coordinates with "
                             f"secure=True; got value with shape {arr.shape}")
    half = Fraction(1, 2)
    return [math.floor(Fraction(float(v)) / g + half) for v in arr.ravel()]


def _release(k: list[int], noise, g: Fraction, shape) -> np.ndarray:
    """``g·(k + n)`` as floats (±inf beyond the float range: a post-processing)."""
    out = np.empty(len(k), dtype=np.float64)
    for i, (ki, ni) in enumerate(zip(k, np.atleast_1d(noise).tolist())):
        exact = g * (ki + ni)
        try:
            out[i] = float(exact)
        except OverflowError:
            out[i] = math.inf if exact > 0 else -math.inf
    return out.reshape(shape)


def _too_much_noise(what: str, limit: str, g: Fraction, epsilon: float):
    return ParameterError(f"the {what} in grid units exceeds {limit}: choose a coarser "
                          f"granularity or a larger epsilon; got granularity={float(g)!r}, "
                          f"epsilon={epsilon!r}")


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


def laplace_mechanism(value, sensitivity: float, epsilon: float, rng=None, *,
                      secure: bool = False, granularity: float | None = None):
    """Release ``value + Lap(Δ₁/ε)`` independently in every coordinate.

    (ε, 0)-DP when ``sensitivity`` bounds the ℓ1 sensitivity of the whole
    vector ``value`` ([DR14]_, Def 3.3, Thm 3.6).

    With ``secure=False`` (the default) the noise is NumPy's floating-point
    Laplace sampler, which Mironov's attack breaks ([M12]_,
    :mod:`dpteach.attacks.floating_point`). With ``secure=True`` the answer is
    rounded to the grid of multiples of ``granularity`` and exact discrete
    Laplace noise with scale ``(⌈Δ/g⌉ + d − 1)/ε`` grid steps is added
    ([CKS20]_; the module docstring, "Secure mode", derives the sensitivity):
    exactly ε-DP, outputs on the grid.

    Parameters
    ----------
    value : float or array_like
        The exact query answer(s), finite (at most 10**5 of them with
        ``secure=True``).
    sensitivity, epsilon : float
        See :func:`laplace_scale`.
    rng : None, int or numpy.random.Generator
        With ``secure=True``: ``None`` is the operating system's CSPRNG, a seed
        or Generator a reproducible (not secure) stream.
    secure : bool
        Use the exact discrete sampler on a grid (default False).
    granularity : float or None
        Grid step g > 0 of ``secure=True`` (default 2**-20; a power of two
        keeps the outputs exact doubles). Must be None when ``secure=False``.
        The discrete scale ``(⌈Δ/g⌉ + d − 1)/ε`` must be at most 2**50.

    Returns
    -------
    float or numpy.ndarray
        Same shape as ``value``.

    Examples
    --------
    >>> out = laplace_mechanism([3.0, 7.0], 1.0, 1.0, rng=0, secure=True, granularity=1.0)
    >>> bool(all(float(x).is_integer() for x in out))
    True
    """
    secure = check_bool("secure", secure)
    arr = check_array("value", value, ndim=None, min_size=0, allow_bool=False)
    b = laplace_scale(sensitivity, epsilon)
    g = _check_granularity(granularity, secure)
    if not secure:
        gen = check_rng(rng)
        return _as_output(arr + gen.laplace(0.0, b, size=arr.shape), value)
    sensitivity = check_sensitivity("sensitivity", sensitivity)    # as floats, used exactly
    epsilon = check_epsilon("epsilon", epsilon)
    k = _grid(arr, g)
    steps = math.ceil(Fraction(sensitivity) / g) + max(arr.size, 1) - 1   # Δ₁ in grid units
    scale = Fraction(steps) / Fraction(epsilon)
    if scale > 2 ** 50:
        raise _too_much_noise("discrete Laplace scale (⌈Δ/g⌉ + d − 1)/ε", "2**50", g, epsilon)
    noise = sample_discrete_laplace(scale, size=max(arr.size, 1), rng=rng)
    return _as_output(_release(k, noise[:arr.size], g, arr.shape), value)


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


def _delta_zero_error() -> ParameterError:
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
        raise _delta_zero_error()
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
                       method: str = "analytic", rng=None, *, secure: bool = False,
                       granularity: float | None = None):
    """Release ``value + N(0, σ² I)`` with σ from :func:`gaussian_sigma`.

    (ε, δ)-DP when ``sensitivity`` bounds the ℓ2 sensitivity of ``value``
    ([DR14]_ Thm A.1 for ``method="classic"``, ε < 1; [BW18]_ Thm 8 for
    ``method="analytic"``).

    With ``secure=True`` the answer is rounded to the grid of multiples of
    ``granularity`` and exact discrete Gaussian noise N_ℤ(0, σ²) (in grid
    units) is added to every coordinate, with σ² = Δ₂²/(2ρ) from the zCDP
    calibration of the module docstring ("Secure mode"): the continuous σ is
    not valid for the discrete Gaussian, so it is not reused. (ε, δ)-DP,
    outputs on the grid.

    Parameters
    ----------
    value : float or array_like
        The exact query answer(s), finite (at most 10**5 of them with
        ``secure=True``).
    sensitivity, epsilon, delta, method
        See :func:`gaussian_sigma`. With ``secure=True`` only
        ``method="analytic"`` (the default) is accepted, and the noise level
        comes from the zCDP calibration instead.
    rng : None, int or numpy.random.Generator
        With ``secure=True``: ``None`` is the operating system's CSPRNG, a seed
        or Generator a reproducible (not secure) stream.
    secure : bool
        Use the exact discrete sampler on a grid (default False).
    granularity : float or None
        Grid step g > 0 of ``secure=True`` (default 2**-20). Must be None when
        ``secure=False``. σ² in grid units must be at most 2**100.

    Returns
    -------
    float or numpy.ndarray
        Same shape as ``value``.
    """
    secure = check_bool("secure", secure)
    arr = check_array("value", value, ndim=None, min_size=0, allow_bool=False)
    if not secure:
        _check_granularity(granularity, secure)
        sigma = gaussian_sigma(sensitivity, epsilon, delta, method=method)
        gen = check_rng(rng)
        return _as_output(arr + gen.normal(0.0, sigma, size=arr.shape), value)
    method = check_choice("method", method, {"analytic", "classic"})
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    epsilon = check_epsilon("epsilon", epsilon)
    delta = check_delta("delta", delta)
    if delta == 0:
        raise _delta_zero_error()
    if method != "analytic":
        raise ParameterError("method must be 'analytic' with secure=True (the discrete "
                             "Gaussian is calibrated through zCDP, not by the classic bound); "
                             f"got method={method!r}")
    g = _check_granularity(granularity, secure)
    k = _grid(arr, g)
    d = max(arr.size, 1)
    ratio = Fraction(sensitivity) / g
    if d == 1:
        steps = Fraction(math.ceil(ratio))                      # Δ₂ in grid units
    else:                                                       # Δ/g + √d, rounded up
        root = math.isqrt(d)
        steps = ratio + (root if root * root == d
                         else Fraction(math.nextafter(math.sqrt(d), math.inf)))
    rho = _secure_rho(epsilon, delta)
    sigma2 = steps * steps / (2 * Fraction(rho))
    if sigma2 > 2 ** 100:
        raise _too_much_noise("discrete Gaussian σ² = Δ₂²/(2ρ)", "2**100", g, epsilon)
    noise = sample_discrete_gaussian(sigma2, size=d, rng=rng)
    return _as_output(_release(k, noise[:arr.size], g, arr.shape), value)


@functools.lru_cache(maxsize=256)
def _secure_rho(epsilon: float, delta: float) -> float:
    """The largest ρ (to ~1e-12) whose zCDP → (ε, δ) conversion ([CKS20]_ Cor. 13) is ≤ ε.

    Bun–Steinke's ε = ρ + 2√(ρ ln(1/δ)) is never below the [CKS20]_ conversion, so
    its exact solution ρ_BS = ε²/(√(L + ε) + √L)² (L = ln(1/δ)) is always valid;
    a root search on ln ρ improves it to the [CKS20]_ one when ρ is in a sane range.
    """
    from .accounting.zcdp import zcdp_to_epsilon   # lazy: the accounting package imports us

    log_inv_delta = -math.log(delta)
    log_rho_bs = 2 * (math.log(epsilon)
                      - math.log(math.sqrt(log_inv_delta + epsilon) + math.sqrt(log_inv_delta)))
    log_rho_bs += math.log1p(-1e-12)                # a margin for the rounding of the formula
    if not -690.0 < log_rho_bs < 690.0:
        if log_rho_bs <= -690.0:
            raise ParameterError("epsilon is too small: the discrete Gaussian's noise level "
                                 f"overflows; got epsilon={epsilon!r}, delta={delta!r}")
        return math.exp(min(log_rho_bs, 700.0))

    def excess(log_rho: float) -> float:
        return zcdp_to_epsilon(math.exp(log_rho), delta) - epsilon

    lo, hi = log_rho_bs, log_rho_bs + 1.0
    while excess(hi) <= 0 and hi < 700.0:
        lo, hi = hi, hi + 1.0
    if excess(lo) > 0 or excess(hi) <= 0:          # numerical trouble: keep the safe ρ_BS
        return math.exp(log_rho_bs)
    root = optimize.brentq(excess, lo, hi, xtol=1e-13)
    rho = math.exp(root)
    while zcdp_to_epsilon(rho, delta) > epsilon:
        rho *= 1 - 1e-12
    return max(rho, math.exp(log_rho_bs))


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
