"""Mironov's snapping mechanism: Laplace noise made safe for floating point.

The textbook Laplace mechanism computed in double precision leaks: the set of
doubles ``value ⊕ noise`` can take depends on ``value``, so some outputs are
impossible under a neighbouring input and reveal it
(:mod:`dpteach.attacks.floating_point`). Mironov's fix ([M12]_, Sec. 5.2)
clamps the answer, adds Laplace noise drawn from a uniform double with a
correctly rounded logarithm, rounds the result to a coarse power-of-two grid
and clamps again: the low-order bits that betray the sampler are rounded away,
at a small, stated cost in ε (:func:`snapping_epsilon`).

The other fix, integer-valued noise drawn exactly, is the discrete Laplace and
discrete Gaussian of :mod:`dpteach.exact.discrete` (the secure mechanisms of
:mod:`dpteach.exact.secure`). Both take their random bits from
:func:`dpteach.exact.discrete.random_source`.

References
----------
.. [M12] I. Mironov. On significance of the least significant bits for
   differential privacy. ACM CCS 2012, Section 5.2 (the snapping mechanism).
"""

from __future__ import annotations

import math
from decimal import Context, Decimal
from fractions import Fraction

import numpy as np

from .._validation import EPSILON, SENSITIVITY, array, real, refuse, validate
from .discrete import EXACT_RNG, random_source

__all__ = ["snapping_mechanism", "snapping_epsilon", "ETA", "SNAPPING_SIZE_MAX"]

ETA = 2.0 ** -53                #: [M12]'s η: the largest double with 1 ⊕ η = 1
SNAPPING_SIZE_MAX = 10 ** 4     #: most answers snapped in one call (~110 µs each: ~1 s)

#: the answers: at most 10**4 of them (pure Python, a 50-digit logarithm each)
ANSWERS = array(low=-1e15, high=1e15, min_size=0, max_size=SNAPPING_SIZE_MAX,
                example=[0.0, 3.5])
#: the clamping bound B, in the units of the answers (also Δ/ε < B < 2**46·Δ/ε)
BOUND = real(1e-9, 1e18, example=100.0)


@validate(value=ANSWERS, sensitivity=SENSITIVITY, epsilon=EPSILON, bound=BOUND, rng=EXACT_RNG)
def snapping_mechanism(value, *, sensitivity: float, epsilon: float, bound: float,
                       rng=None):
    """Mironov's snapping mechanism: Laplace noise made safe for floating point.

    ``clamp_B(⌊clamp_B(f) ⊕ S ⊗ λ ⊗ LN(U*)⌉_Λ)`` ([M12]_, Sec. 5.2), applied to
    ``f = value/Δ`` (sensitivity 1) with λ = 1/ε and B = bound/Δ, and the result
    multiplied back by Δ. Here S is a fair sign, U* a uniform double in (0, 1)
    drawn with probability proportional to its ulp, LN a correctly rounded
    logarithm (computed with 50 digits by :mod:`decimal`), ⊕ ⊗ double-precision
    arithmetic, ⌊·⌉_Λ rounding to the nearest multiple of Λ, the smallest power
    of two ≥ λ (ties toward +∞), and clamp_B clipping to [-B, B]. The output
    lies on the grid ``Δ·Λ·ℤ`` (or is ±bound) whatever the input: the low-order
    bits that betray the textbook sampler are rounded away.

    Privacy, as [M12]_ states it for sensitivity 1: the mechanism is
    ``((1 + 12Bη)/λ + 2η)``-DP with η = 2**-53, which is at most
    ``1/λ + 2**-49·B/λ`` when ``λ < B < 2**46·λ`` (the range enforced here).
    :func:`snapping_epsilon` evaluates it: just above ε for moderate bounds.
    Dividing by Δ is exact when Δ is a power of two (e.g. 1); for other Δ the
    rounding of value/Δ can raise the sensitivity of f/Δ above 1 by a relative
    2**-52, which the theorem as stated does not cover.

    Parameters
    ----------
    sensitivity : float
        Δ (ℓ1 sensitivity of ``value``).
    bound : float
        B, the clamping bound in the units of ``value``, with ``Δ/ε < bound <
        2**46·Δ/ε``. Answers are clipped to [-bound, bound] (before and after the
        noise), so choose it above any plausible answer.
    rng : None, int, random.Random or numpy.random.Generator
        ``None``: the operating system's CSPRNG. A seed or Generator gives a
        reproducible, not secure, stream.

    Examples
    --------
    >>> out = snapping_mechanism([0.0, 1.0], sensitivity=1.0, epsilon=0.5, bound=100.0, rng=0)
    >>> bool(all(float(o) % 2.0 == 0.0 for o in out))      # Λ = 2: even integers only
    True
    """
    lam, big_lam, b = _snapping_setup(sensitivity, epsilon, bound)
    bits = random_source.__wrapped__(rng).bits
    scaled = value / sensitivity
    out = np.array([_snap(float(v), lam, big_lam, b, bits) for v in scaled.ravel()],
                   dtype=np.float64).reshape(value.shape) * sensitivity
    return float(out) if out.ndim == 0 else out


@validate(epsilon=EPSILON, sensitivity=SENSITIVITY, bound=BOUND)
def snapping_epsilon(epsilon: float, *, sensitivity: float, bound: float) -> float:
    """The ε that [M12]_ proves for :func:`snapping_mechanism` with these settings.

    ``(1 + 12·B·η)/λ + 2η`` with λ = fl(1/ε), B = fl(bound/Δ) (the doubles the
    mechanism uses) and η = 2**-53 ([M12]_, Sec. 5.2), evaluated exactly and
    rounded up: ε_snap ≥ ε·(1 - 2**-53), and for bound = 100·Δ/ε it exceeds ε by about
    1e-13 relative. The arguments are those of :func:`snapping_mechanism`, tied by the
    same rule.
    """
    lam, _, b = _snapping_setup(sensitivity, epsilon, bound)
    eta = Fraction(ETA)
    exact = (1 + 12 * Fraction(b) * eta) / Fraction(lam) + 2 * eta
    out = float(exact)
    return out if Fraction(out) >= exact else math.nextafter(out, math.inf)


# ------------------------------------------------------------------------ helpers
_LN_CONTEXT = Context(prec=50)  # 50 digits ≈ 166 bits: LN(U*) is then correctly rounded


def _snapping_setup(sensitivity: float, epsilon: float, bound: float):
    """(λ, Λ, B) for the snapping mechanism applied to f/Δ (sensitivity 1), after the rule
    that ties the bound to the noise scale: λ < B < 2**46·λ."""
    lam = 1.0 / epsilon                       # noise scale λ for f/Δ
    b = bound / sensitivity                   # clamping bound B for f/Δ
    if not lam < b < 2.0 ** 46 * lam:       # the range of [M12]'s theorem: λ < B < 2**46·λ
        low = sensitivity / epsilon
        raise refuse("bound", bound, f"in (Δ/ε, 2**46·Δ/ε) = ({low:g}, {2.0 ** 46 * low:g})")
    mant, exp = math.frexp(lam)
    big_lam = lam if mant == 0.5 else math.ldexp(1.0, exp)   # smallest power of 2 ≥ λ
    return lam, big_lam, b


def _snap(x: float, lam: float, big_lam: float, b: float, bits) -> float:
    # U*: a uniform double in (0, 1), each with probability equal to its ulp: the binade
    # [2^-e, 2^(1-e)) has probability 2^-e (e ~ geometric(1/2)), the 52 mantissa bits are
    # uniform. (e is capped at 1022: the cap has probability 2^-1022.)
    e = 1
    while e <= 1022:
        w = bits(64)
        if w:
            e += (w & -w).bit_length() - 1
            break
        e += 64
    u = math.ldexp((1 << 52) | bits(52), -52 - min(e, 1022))
    ln = float(Decimal(u).ln(_LN_CONTEXT))           # LN(U*), correctly rounded
    noise = (lam if bits(1) else -lam) * ln           # S ⊗ λ ⊗ LN(U*)
    y = min(max(x, -b), b) + noise                    # clamp_B(f) ⊕ noise
    q = y / big_lam                                   # exact: Λ is a power of two
    j = math.floor(q)
    if q - j >= 0.5:                                  # nearest multiple, ties toward +∞
        j += 1
    return min(max(j * big_lam, -b), b)               # clamp_B(⌊·⌉_Λ)


# Engineering notes: docs/library/attacks.md.
