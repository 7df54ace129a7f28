"""Exact samplers of the discrete Laplace and the discrete Gaussian ([CKS20]_).

They are safe against the floating-point attack of Mironov ([M12]_,
:mod:`dpteach.attacks.floating_point`): drawn with exact rational arithmetic, they back
the secure mechanisms of :mod:`dpteach.exact.secure`; Mironov's snapping mechanism, the
other fix, is :mod:`dpteach.exact.snapping`.

Exact samplers
--------------
The discrete Laplace ``P[X = x] ∝ exp(-|x|/t)`` and the discrete Gaussian
``P[X = x] ∝ exp(-x²/(2σ²))`` on the integers are sampled by [CKS20]_'s
Algorithms 1-3: a coin with heads probability ``exp(-γ)`` for rational γ
without ever evaluating ``exp`` (Algorithm 1: for γ ≤ 1 flip coins of bias
γ/1, γ/2, γ/3, ... until one shows tails; the number of heads is even with
probability exactly ``e^{-γ}``), a geometric variable built from such coins
(Algorithm 2, discrete Laplace) and rejection from a discrete Laplace with
``t = ⌊σ⌋ + 1`` (Algorithm 3, discrete Gaussian). Every probability is a ratio
of Python integers, so the output distribution is exactly the stated one: no
rounding, no floating point. Parameters are taken as exact rationals: an
``int``, a :class:`fractions.Fraction`, or a ``float`` converted exactly
(``Fraction(0.1)`` is the double nearest 0.1, not 1/10).

Randomness comes from the operating system (``os.urandom``, the source of
:mod:`secrets`) unless ``rng`` is given. An integer seed (or a NumPy Generator, which is
used to seed one) gives a reproducible ``random.Random`` stream for tests and
notebooks: reproducible means predictable, so it is **not** secure.

References
----------
.. [CKS20] C. Canonne, G. Kamath and T. Steinke. The discrete Gaussian for
   differential privacy. NeurIPS 2020 (arXiv:2004.00010): Algorithm 1
   (Bernoulli(exp(-γ))), Algorithm 2 (discrete Laplace), Algorithm 3
   (discrete Gaussian).
.. [M12] I. Mironov. On significance of the least significant bits for
   differential privacy. ACM CCS 2012, Section 5.2 (the snapping mechanism).
"""

from __future__ import annotations

import math
import numbers
import os
import random
import secrets

import numpy as np

from .._validation import EPSILON_OR_ZERO, Domain, integer, rational, validate

__all__ = [
    "sample_discrete_laplace",
    "sample_discrete_gaussian",
    "discrete_gaussian_variance",
    "discrete_gaussian_delta",
    "random_source",
]

EXACT_SIZE_MAX = 10 ** 5        #: largest ``size`` of the exact samplers (about 1 s of draws)
DLAPLACE_SCALE_MAX = 2 ** 50    #: largest discrete-Laplace scale (draws stay far inside int64)
DGAUSS_SIGMA2_MAX = 2 ** 100    #: largest discrete-Gaussian σ² (σ ≤ 2**50, same reason)
DELTA_SIGMA2_MAX = 10 ** 10     #: largest σ² of :func:`discrete_gaussian_delta` (a direct sum)
DELTA_SENSITIVITY_MAX = 10 ** 6  #: largest integer sensitivity of :func:`discrete_gaussian_delta`

#: the scale t of the discrete Laplace, taken exactly
SCALE = rational(1e-6, DLAPLACE_SCALE_MAX, example=2,
                 text="a number in [1e-06, 2**50] (an int, a Fraction or a float, used exactly)")
#: σ² of the discrete Gaussian (its parameter, not its variance), taken exactly
SIGMA2 = rational(1e-12, DGAUSS_SIGMA2_MAX, example=2,
                  text="a number in [1e-12, 2**100] (an int, a Fraction or a float, used exactly)")
#: σ² of :func:`discrete_gaussian_delta`: its sum has about 80σ terms
DELTA_SIGMA2 = rational(1e-12, DELTA_SIGMA2_MAX, example=2, work=True)
#: how many independent draws (None: one, as a Python int)
SIZE = integer(1, EXACT_SIZE_MAX, work=True).or_none()
#: where the random bits come from: None (the OS's CSPRNG), a seed, a random.Random or a
#: numpy.random.Generator (the last three reproducible, not secure)
EXACT_RNG = Domain("None (the operating system's CSPRNG), an int seed in [0, 2**63), a "
                   "random.Random or a numpy.random.Generator (reproducible, not secure)",
                   lambda name, value: _rng(name, value), example=0, edges=(None, 0),
                   bad=[-1, 1.5, "seed", True, 2**63])


@validate(rng=EXACT_RNG)
def random_source(rng=None):
    """Where the exact samplers' random bits come from (see the module docstring).

    The seam the exact samplers here and :mod:`dpteach.exact.snapping` share: returns an
    object with ``below(n)`` (uniform on ``{0, ..., n-1}``, exact) and ``bits(k)``
    (k uniform random bits as an int).

    ``rng=None`` → the operating system's CSPRNG; a ``random.SystemRandom`` is used as
    given (also secure); a ``random.Random`` or an int seed → a reproducible, NOT
    secure stream; a NumPy Generator seeds a ``random.Random`` (and advances).
    """
    if rng is None:
        return _OSRandom()
    if isinstance(rng, random.Random):
        return _Seeded(rng)
    if isinstance(rng, np.random.Generator):
        return _Seeded(random.Random(int(rng.integers(0, 2 ** 63))))
    return _Seeded(random.Random(rng))


@validate(scale=SCALE, size=SIZE, rng=EXACT_RNG)
def sample_discrete_laplace(scale, size: int | None = None, rng=None):
    """Exact draws from the discrete Laplace distribution on the integers.

    ``P[X = x] = tanh(1/(2t))·exp(-|x|/t)`` for every integer x, with scale t
    ([CKS20]_, Algorithm 2; also called the two-sided geometric distribution).
    Adding it to an integer-valued query of ℓ1 sensitivity Δ gives (Δ/t)-DP,
    exactly: the ratio of the probabilities of x and x + k is e^{±k/t}. ``size=None``
    gives one draw (a Python ``int``); ``rng`` as in :func:`random_source` (a seed is
    reproducible, **not secure**).

    Examples
    --------
    >>> sample_discrete_laplace(2, size=5, rng=0).dtype
    dtype('int64')
    """
    src = random_source.__wrapped__(rng)
    inv = 1 / scale
    s, t = inv.numerator, inv.denominator
    below, bits = src.below, src.bits
    return _draw(lambda: _discrete_laplace(s, t, below, bits), size)


@validate(sigma2=SIGMA2, size=SIZE, rng=EXACT_RNG)
def sample_discrete_gaussian(sigma2, size: int | None = None, rng=None):
    """Exact draws from the discrete Gaussian N_ℤ(0, σ²).

    ``P[X = x] = exp(-x²/(2σ²)) / Σ_y exp(-y²/(2σ²))`` for every integer x
    ([CKS20]_, Algorithm 3: rejection sampling from a discrete Laplace, all
    arithmetic on integers). Its variance is slightly below σ² (see
    :func:`discrete_gaussian_variance`). ``size`` and ``rng`` as in
    :func:`sample_discrete_laplace`.

    Examples
    --------
    >>> x = sample_discrete_gaussian(1, size=1000, rng=1)
    >>> bool(abs(x.mean()) < 0.2)
    True
    """
    src = random_source.__wrapped__(rng)
    a, b = sigma2.numerator, sigma2.denominator
    below, bits = src.below, src.bits
    return _draw(lambda: _discrete_gaussian(a, b, below, bits), size)


# ------------------------------------------------------------------ moments and δ
@validate(sigma2=SIGMA2)
def discrete_gaussian_variance(sigma2) -> float:
    """Variance of N_ℤ(0, σ²): ``Σ x² e^{-x²/(2σ²)} / Σ e^{-x²/(2σ²)}``, less than σ².

    For σ² = 1 it is 0.999999788767728; for σ² = 0.5, 0.49897913083282. For large
    σ² the gap to σ² is about 8π²σ⁴ e^{-2π²σ²}, below double precision once
    σ² > 2 (the result then rounds to σ² itself).
    """
    return _theta(float(sigma2))[1]


@validate(sigma2=DELTA_SIGMA2, sensitivity=integer(1, DELTA_SENSITIVITY_MAX, example=1),
          epsilon=EPSILON_OR_ZERO)
def discrete_gaussian_delta(sigma2, sensitivity: int, epsilon: float) -> float:
    """Exact δ(ε) of adding N_ℤ(0, σ²) to an integer answer that moves by Δ.

    ``δ = Σ_x max(0, P[x] - e^ε P[x + Δ])`` with P the pmf of N_ℤ(0, σ²): the
    smallest δ for which the two neighbouring output distributions (answers 0
    and -Δ) are (ε, δ)-indistinguishable. Summed as ``Σ_{L(x) > ε} P[x](1 -
    e^{ε - L(x)})`` with the privacy loss ``L(x) = (2xΔ + Δ²)/(2σ²)``: positive
    terms only, no cancellation. This is the formula [CKS20]_ use to compare
    the discrete with the continuous Gaussian.

    It shows that the continuous calibration does **not** carry over: at the
    σ of :func:`dpteach.mechanisms.noise.gaussian_sigma` (ε = 5, δ = 1e-3, Δ = 1,
    σ ≈ 0.69) the discrete Gaussian's δ is 1.98e-3, and even at σ ≈ 70 it exceeds
    the target by about 1e-4 (relative). See
    :func:`dpteach.exact.secure.secure_gaussian_mechanism` for what dpteach does instead.
    """
    s2, d = float(sigma2), sensitivity
    reach = math.ceil(math.sqrt(1600.0 * s2)) + 1            # P[|X| > reach] < e^{-800}
    threshold = epsilon * s2 / d - d / 2                    # L(x) > ε  ⟺  x > threshold
    if threshold >= reach:
        return 0.0
    log_norm = math.log(_theta(s2)[0])
    start = max(math.floor(threshold) + 1, -reach)
    parts = []
    for lo in range(start, reach + 1, 10 ** 6):
        x = np.arange(lo, min(lo + 10 ** 6, reach + 1), dtype=np.float64)
        loss = (2.0 * x * d + float(d) * d) / (2.0 * s2)
        p = np.exp(-x * x / (2.0 * s2) - log_norm)
        parts.append(float(np.sum(p * -np.expm1(np.minimum(epsilon - loss, 0.0)))))
    return min(max(math.fsum(parts), 0.0), 1.0)


# ------------------------------------------------------------------------ helpers
_TWO64 = 1 << 64


class _OSRandom:
    """The operating system's CSPRNG (``os.urandom``, the source of :mod:`secrets`).

    Read 8 KiB at a time into 64-bit words, so that the many small draws of the
    exact samplers do not each cost a system call. ``below(n)`` is uniform on
    ``{0, ..., n-1}`` (rejection, exact); ``bits(k)`` gives k uniform bits.
    """

    __slots__ = ("_words",)

    def __init__(self):
        self._words: list[int] = []

    def _refill(self) -> None:
        self._words.extend(np.frombuffer(os.urandom(8192), dtype=np.uint64).tolist())

    def bits(self, k: int) -> int:
        if k > 64:
            return secrets.randbits(k)
        if not self._words:
            self._refill()
        return self._words.pop() >> (64 - k) if k else 0

    def below(self, n: int) -> int:
        if n > _TWO64:
            return secrets.randbelow(n)
        limit = _TWO64 - _TWO64 % n                 # accept x < limit: x % n is exactly uniform
        words = self._words
        while True:
            if not words:
                self._refill()
            x = words.pop()
            if x < limit:
                return x % n


class _Seeded:
    """``below``/``bits`` of a ``random.Random`` (reproducible, not secure)."""

    __slots__ = ("below", "bits")

    def __init__(self, r: random.Random):
        bits = r.getrandbits

        def below(n: int) -> int:                   # randrange(n) without its argument checks
            k = n.bit_length()
            x = bits(k)
            while x >= n:
                x = bits(k)
            return x

        self.below = below
        self.bits = bits


def _rng(name: str, value):
    """The rng as given (a seed as an int), after refusing what :func:`random_source`
    cannot use; a Generator is not drawn from here (that would move its stream)."""
    if value is None or isinstance(value, (random.Random, np.random.Generator)):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)) \
            and 0 <= int(value) < 2**63:
        return int(value)
    raise EXACT_RNG.refuse(name, value)


def _bernoulli_exp_small(num: int, den: int, below) -> int:
    """1 with probability exp(-num/den), for 0 ≤ num ≤ den ([CKS20]_, Algorithm 1).

    Flip coins of bias γ/1, γ/2, γ/3, ... (γ = num/den) until one shows tails;
    P[at least k heads] = γ^k/k!, so the number of the first tails, K, is odd with
    probability Σ_k (-γ)^k/k! = e^{-γ}. ``below(m)`` is a uniform integer in [0, m).
    """
    k = 1
    while below(den * k) < num:
        k += 1
    return k & 1


def _bernoulli_exp(num: int, den: int, below) -> int:
    """1 with probability exp(-num/den) for any num ≥ 0: e^{-γ} = (e^{-1})^⌊γ⌋ e^{-(γ-⌊γ⌋)}."""
    while num > den:
        if not _bernoulli_exp_small(1, 1, below):
            return 0
        num -= den
    return _bernoulli_exp_small(num, den, below)


def _discrete_laplace(s: int, t: int, below, bits) -> int:
    """P[x] ∝ exp(-|x|·s/t) ([CKS20]_, Algorithm 2; the scale is t/s)."""
    while True:
        u = below(t) if t > 1 else 0
        if u and not _bernoulli_exp(u, t, below):    # U is now ∝ e^{-U/t} on {0..t-1}
            continue
        v = 0
        while _bernoulli_exp_small(1, 1, below):     # V ~ geometric: P[V = v] ∝ e^{-v}
            v += 1
        y = (u + t * v) // s                         # U + tV ∝ e^{-x/t}; ⌊·/s⌋ ∝ e^{-ys/t}
        if bits(1):
            if y == 0:                                # reject -0 so that 0 is not counted twice
                continue
            return -y
        return y


def _discrete_gaussian(a: int, b: int, below, bits) -> int:
    """P[x] ∝ exp(-x²/(2σ²)) with σ² = a/b ([CKS20]_, Algorithm 3).

    Propose Y from the discrete Laplace with t = ⌊σ⌋ + 1 and accept with probability
    exp(-(|Y| - σ²/t)²/(2σ²)) = exp(-(|Y|bt - a)²/(2abt²)), exactly.
    """
    t = math.isqrt(a // b) + 1                      # ⌊√(a/b)⌋ = ⌊√⌊a/b⌋⌋
    den = 2 * a * b * t * t
    bt = b * t
    while True:
        y = _discrete_laplace(1, t, below, bits)
        if _bernoulli_exp((abs(y) * bt - a) ** 2, den, below):
            return y


def _draw(one, size):
    if size is None:
        return one()
    return np.array([one() for _ in range(size)], dtype=np.int64)


def _theta(s2: float) -> tuple[float, float]:
    """(normaliser, variance) of N_ℤ(0, s2), in double precision.

    For s2 ≤ 1 the sums Σ e^{-x²/(2s2)} and Σ x² e^{-x²/(2s2)} converge within a
    few dozen terms. For s2 > 1 Poisson summation turns them into sums that converge
    faster still: Σ_x e^{-x²/(2s2)} = √(2π s2)·Σ_k e^{-2π² s2 k²} and
    Σ_x x² e^{-x²/(2s2)} = √(2π) s2^{3/2}·Σ_k (1 - 4π² s2 k²) e^{-2π² s2 k²}.
    Terms below e^{-800} (0 in double precision) are dropped.
    """
    if s2 <= 1.0:
        z, m2 = [1.0], []
        x = 1
        while x * x <= 1600.0 * s2:
            w = math.exp(-x * x / (2.0 * s2))
            z.append(2.0 * w)
            m2.append(2.0 * x * x * w)
            x += 1
        norm = math.fsum(z)
        return norm, math.fsum(m2) / norm
    c = 2.0 * math.pi ** 2 * s2
    z, m2 = [1.0], [1.0]
    k = 1
    while c * k * k <= 800.0:
        w = math.exp(-c * k * k)
        z.append(2.0 * w)
        m2.append(2.0 * (1.0 - 2.0 * c * k * k) * w)          # 4π² s2 k² = 2ck²
        k += 1
    zsum = math.fsum(z)
    return math.sqrt(2.0 * math.pi) * math.sqrt(s2) * zsum, s2 * (math.fsum(m2) / zsum)


# Engineering notes: docs/library/attacks.md.
