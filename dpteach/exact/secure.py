"""Floating-point-safe Laplace and Gaussian mechanisms: exact discrete noise on a grid.

:func:`dpteach.mechanisms.noise.laplace_mechanism` and
:func:`~dpteach.mechanisms.noise.gaussian_mechanism` add NumPy's floating-point noise,
which Mironov's attack breaks ([M12]_, :mod:`dpteach.attacks.floating_point`). The two
mechanisms here add exact discrete Laplace / discrete Gaussian noise ([CKS20]_,
:mod:`dpteach.exact.discrete`) on a fixed grid of multiples of ``granularity``.

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
  The continuous calibration of :func:`dpteach.mechanisms.noise.gaussian_sigma` is **not** valid for it:
  the exact δ of the discrete Gaussian at that σ
  (:func:`dpteach.exact.discrete.discrete_gaussian_delta`) exceeds the target, by up
  to a factor 2 when σ is about one grid step (ε = 5, δ = 1e-3, Δ = 1: δ =
  1.98e-3) and by about 1e-4 relative even at σ = 70. What does hold is zCDP:
  for integer shifts μ, the Rényi divergence of order α between N_ℤ(μ, σ²) and
  N_ℤ(0, σ²) is at most ``αμ²/(2σ²)`` (complete the square and use that
  ``Σ_x e^{−(x−c)²/(2σ²)}`` is largest at c = 0, by Poisson summation), exactly
  as for the continuous Gaussian ([CKS20]_). So :func:`secure_gaussian_mechanism` takes the
  largest ρ whose zCDP → (ε, δ) conversion of [CKS20]_ (Cor. 13, as in
  :func:`dpteach.accounting.zcdp.zcdp_to_epsilon`) is ≤ ε and sets
  ``σ² = Δ₂²/(2ρ)``: (ε, δ)-DP, at the price of somewhat more noise than the
  analytic continuous σ (4-11% larger σ for ε from 0.1 to 10 and δ from
  1e-10 to 1e-3; 8% for ε = 1, δ = 1e-5).

The grid and the noise are exact; the final ``float(g·(k + n))`` is a
post-processing of the released integer. Randomness: ``rng=None`` uses the
operating system's CSPRNG; an int seed or a Generator gives a reproducible,
**not secure** stream (for tests and notebooks).

References
----------
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014.
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
from scipy import optimize

from .._validation import EPSILON, SENSITIVITY, array, real, refuse, validate
from ..accounting.zcdp import zcdp_to_epsilon
from ..mechanisms.noise import GAUSSIAN_DELTA
from .discrete import EXACT_RNG, sample_discrete_gaussian, sample_discrete_laplace

__all__ = ["DEFAULT_GRANULARITY", "secure_laplace_mechanism", "secure_gaussian_mechanism"]

DEFAULT_GRANULARITY = 2.0 ** -20   #: grid step unless ``granularity`` is given
SECURE_SIZE_MAX = 10 ** 5          #: most coordinates noise is added to in one call

#: the answers: at most 10**5 of them (pure Python draws, 6-10 µs each)
SECURE_VALUES = array(low=-1e15, high=1e15, min_size=0, max_size=SECURE_SIZE_MAX)
#: the grid step g
GRANULARITY = real(2.0 ** -40, 1e6, example=DEFAULT_GRANULARITY)


@validate(value=SECURE_VALUES, sensitivity=SENSITIVITY, epsilon=EPSILON, rng=EXACT_RNG,
          granularity=GRANULARITY)
def secure_laplace_mechanism(value, sensitivity: float, epsilon: float, rng=None, *,
                             granularity: float = DEFAULT_GRANULARITY):
    """The Laplace mechanism without floating-point noise: exact discrete Laplace on a grid.

    The answer is rounded to the grid of multiples of ``granularity`` and exact discrete
    Laplace noise with scale ``(⌈Δ/g⌉ + d − 1)/ε`` grid steps is added ([CKS20]_; the
    module docstring derives the sensitivity): exactly ε-DP when ``sensitivity`` bounds the
    ℓ1 sensitivity of the whole vector ``value`` ([DR14]_, Thm 3.6), outputs on the grid
    (same shape as ``value``).

    Parameters
    ----------
    rng : None, int or numpy.random.Generator
        ``None`` is the operating system's CSPRNG, a seed or Generator a reproducible
        (not secure) stream.
    granularity : float
        Grid step g > 0 (default 2**-20; a power of two keeps the outputs exact doubles).
        The discrete scale ``(⌈Δ/g⌉ + d − 1)/ε`` must be at most 2**50.

    Examples
    --------
    >>> out = secure_laplace_mechanism([3.0, 7.0], 1.0, 1.0, rng=0, granularity=1.0)
    >>> bool(all(float(x).is_integer() for x in out))
    True
    """
    g = Fraction(granularity)
    k = _grid(value, g)
    steps = math.ceil(Fraction(sensitivity) / g) + max(value.size, 1) - 1  # Δ₁ in grid units
    scale = Fraction(steps) / Fraction(epsilon)
    if scale > 2 ** 50:       # or a larger epsilon
        raise refuse("granularity", granularity, f"coarser: the discrete Laplace scale (⌈Δ/g⌉ "
                     f"+ d − 1)/ε ≤ 2**50 grid units (epsilon={epsilon!r})")
    noise = sample_discrete_laplace(scale, size=max(value.size, 1), rng=rng)
    return _release(k, noise[:value.size], g, value.shape)


@validate(value=SECURE_VALUES, sensitivity=SENSITIVITY, epsilon=EPSILON, delta=GAUSSIAN_DELTA,
          rng=EXACT_RNG, granularity=GRANULARITY)
def secure_gaussian_mechanism(value, sensitivity: float, epsilon: float, delta: float,
                              rng=None, *, granularity: float = DEFAULT_GRANULARITY):
    """The Gaussian mechanism without floating-point noise: exact discrete Gaussian on a grid.

    The answer is rounded to the grid of multiples of ``granularity`` and exact discrete
    Gaussian noise N_ℤ(0, σ²) (in grid units) is added to every coordinate, with
    σ² = Δ₂²/(2ρ) from the zCDP calibration of the module docstring: the continuous σ of
    :func:`dpteach.mechanisms.noise.gaussian_sigma` is not valid for the discrete Gaussian,
    so it is not reused. (ε, δ)-DP when ``sensitivity`` bounds the ℓ2 sensitivity of
    ``value`` ([CKS20]_ Thm. 4 and Cor. 13), outputs on the grid (same shape as ``value``).
    ``rng`` and ``granularity`` as in :func:`secure_laplace_mechanism`; σ² in grid units
    must be at most 2**100.
    """
    g = Fraction(granularity)
    k = _grid(value, g)
    d = max(value.size, 1)
    ratio = Fraction(sensitivity) / g
    if d == 1:
        steps = Fraction(math.ceil(ratio))                      # Δ₂ in grid units
    else:                                                       # Δ/g + √d, rounded up
        root = math.isqrt(d)
        steps = ratio + (root if root * root == d
                         else Fraction(math.nextafter(math.sqrt(d), math.inf)))
    rho = _secure_rho(epsilon, delta)
    sigma2 = steps * steps / (2 * Fraction(rho))
    if sigma2 > 2 ** 100:     # or a larger epsilon
        raise refuse("granularity", granularity, f"coarser: the discrete Gaussian σ² = Δ₂²/(2ρ) "
                     f"≤ 2**100 grid units (epsilon={epsilon!r})")
    noise = sample_discrete_gaussian(sigma2, size=d, rng=rng)
    return _release(k, noise[:value.size], g, value.shape)


@functools.lru_cache(maxsize=256)
def _secure_rho(epsilon: float, delta: float) -> float:
    """The largest ρ (to ~1e-12) whose zCDP → (ε, δ) conversion ([CKS20]_ Cor. 13) is ≤ ε.

    Bun–Steinke's ε = ρ + 2√(ρ ln(1/δ)) is never below the [CKS20]_ conversion, so
    its exact solution ρ_BS = ε²/(√(L + ε) + √L)² (L = ln(1/δ)) is always valid;
    a root search on ln ρ improves it to the [CKS20]_ one when ρ is in a sane range.
    """
    log_inv_delta = -math.log(delta)
    log_rho_bs = 2 * (math.log(epsilon)
                      - math.log(math.sqrt(log_inv_delta + epsilon) + math.sqrt(log_inv_delta)))
    log_rho_bs += math.log1p(-1e-12)                # a margin for the rounding of the formula

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


def _grid(arr: np.ndarray, g: Fraction) -> list[int]:
    """``⌊value/g + ½⌋`` for every coordinate, exactly (nearest grid point, ties up)."""
    half = Fraction(1, 2)
    return [math.floor(Fraction(float(v)) / g + half) for v in arr.ravel()]


def _release(k: list[int], noise, g: Fraction, shape):
    """``g·(k + n)`` as floats: a Python float for a scalar answer, else an array."""
    out = np.array([float(g * (ki + ni)) for ki, ni in zip(k, np.atleast_1d(noise).tolist())],
                   dtype=np.float64).reshape(shape)
    return float(out) if out.ndim == 0 else out


# Engineering notes: docs/library/attacks.md.
