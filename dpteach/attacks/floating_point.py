"""Mironov's floating-point attack on the textbook Laplace sampler, and its fix.

The Laplace mechanism is ε-DP over the real numbers. A computer adds noise in
double precision, and the textbook sampler ([M12]_) turns a uniform u in
(-½, ½) into noise ``-b·sign(u)·ln(1 - 2|u|)``; NumPy's
``Generator.laplace`` (used by :func:`dpteach.mechanisms.noise.laplace_mechanism`)
computes the same map as

    u ≥ ½:  0 - b·log(2 - u - u)        u < ½:  0 + b·log(u + u)

with u uniform in (0, 1), a multiple of 2**-53 (:func:`textbook_laplace_noise`
reproduces it bit for bit). Only 2**53 noise values are possible, spread unevenly over the
doubles, and ``value ⊕ noise`` (⊕: double-precision addition) rounds
differently for different ``value``. So many doubles can come out of
``0 ⊕ noise`` but never out of ``1 ⊕ noise``: seeing one proves the input was
0. No ε survives that: the privacy loss of such an output is infinite.

Two tests decide whether an output x could have come from an input v:
:func:`impossible_under`, exact for NumPy's sampler (a bisection over the 2**53
uniforms), and :func:`precision_test`, valid for *any* sampler that outputs ``v ⊕ y``
for a double y (it only looks at the last bit of x). Both are *sound*: they never
declare an output impossible that the sampler can produce (tested).

:func:`floating_point_attack` runs a mechanism on a secret choice of two neighbouring
inputs, rules inputs out with a test, and guesses the closer input when neither is
ruled out. Against the NumPy sampler with inputs 0 and 1 the exact test rules one
input out in about 80% of the trials and the attack is right about 90% of the time
*whatever the noise scale*: at scale 100 (ε = 0.01, so no test should win more than
50.2%) just as at scale 1. The precision test is weaker: at ε = 1 its overall success
(70%) stays below the 73% that DP allows, yet about 36% of the outputs from input 0
are impossible from input 1 (81% with the exact test): an event of probability 0.36
under one input and 0 under the other, so the mechanism is not even (ε, 0.35)-DP for
any ε. Against the snapping mechanism (:func:`dpteach.exact.snapping.snapping_mechanism`)
and the exact discrete Laplace (``secure_laplace_mechanism(...)``) it rules nothing out
(their possible outputs form a grid that does not depend on the input) and its success
stays at what DP allows, ``e^ε/(1 + e^ε)``.

Examples
--------
>>> import numpy as np
>>> from dpteach.mechanisms.noise import laplace_mechanism
>>> out = laplace_mechanism(np.zeros(2000), 1.0, 1.0, rng=0)   # input 0, noise scale 1
>>> bool(impossible_under(out, 1.0, 1.0).mean() > 0.5)        # most rule out input 1
True
>>> bool(impossible_under(out, 0.0, 1.0).any())               # none rules out the truth
False
>>> res = floating_point_attack("numpy", 0.0, 1.0, scale=100.0, n_trials=500, rng=1)
>>> round(res.dp_bound, 3)                  # ε = 0.01: no test should beat 50.2%
0.502
>>> bool(res.success_rate > 0.85)          # the exact test wins about 90% of the time
True
>>> floating_point_attack("snapping", 0.0, 1.0, scale=1.0, n_trials=500, rng=1).ruled_out
0

References
----------
.. [M12] I. Mironov. On significance of the least significant bits for
   differential privacy. ACM CCS 2012: the textbook sampler's "porous"
   support and the attack on it; Sec. 5.2, the snapping mechanism.
.. [CKS20] C. Canonne, G. Kamath and T. Steinke. The discrete Gaussian for
   differential privacy. NeurIPS 2020 (exact discrete samplers, the second fix).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .._validation import RNG, SCALE, VALUE, array, choice, integer, real, refuse, validate
from ..exact.secure import DEFAULT_GRANULARITY, GRANULARITY, secure_laplace_mechanism
from ..exact.snapping import snapping_mechanism
from ..mechanisms.noise import laplace_mechanism

__all__ = [
    "SAMPLERS",
    "TESTS",
    "FloatingPointAttackResult",
    "textbook_laplace_noise",
    "impossible_under",
    "precision_test",
    "floating_point_attack",
]

SAMPLERS = ("numpy", "snapping", "discrete")   #: mechanisms :func:`floating_point_attack` runs
TESTS = ("exact", "precision")                 #: its tests
NOISE_SIZE_MAX = 10 ** 7       #: most uniforms :func:`textbook_laplace_noise` maps at once
EXACT_MAX = 10 ** 5            #: most outputs one call of :func:`impossible_under` examines (~1 s)
PRECISION_MAX = 10 ** 6        #: most outputs one call of :func:`precision_test` examines
TRIALS_MAX = 10 ** 4           #: most trials of :func:`floating_point_attack` (~1 s)

#: the doubles NumPy's uniform sampler draws (k·2⁻⁵³), 0 excepted
UNIFORMS = array(min_size=0, max_size=NOISE_SIZE_MAX, low=2.0**-53, high=1 - 2.0**-53,
                 example=[0.25, 0.75], text="a number or an array of at most 10,000,000 "
                 "uniform doubles in [2**-53, 1 - 2**-53]")
#: the noise scale of an attacked mechanism, run with Δ = scale and ε = 1
ATTACK_SCALE = real(1e-6, 1e6)


@validate(u=UNIFORMS, scale=SCALE)
def textbook_laplace_noise(u, scale: float) -> float | np.ndarray:
    """The textbook Laplace sampler's noise for uniform doubles ``u``, as NumPy computes it.

    ``0 - b·log(2 - u - u)`` for u ≥ ½ and ``0 + b·log(u + u)`` for u < ½, each
    operation rounded to double precision, log from the C library: bit for bit
    ``Generator.laplace(0, b)`` when u are the doubles ``Generator.random()``
    draws from the same state (tested). It is the inverse-CDF sampler of
    [M12]_: the noise for the uniform u, with Laplace scale b = ``scale``; same shape as ``u``.
    """
    out = _noise(u.ravel(), scale).reshape(u.shape)
    return float(out) if out.ndim == 0 else out


@validate(outputs=array(min_size=0, max_size=EXACT_MAX, example=[0.5, 1.5]),
          value_prime=VALUE, scale=SCALE)
def impossible_under(outputs, value_prime: float, scale: float) -> bool | np.ndarray:
    """Mironov's exact test: outputs NumPy's Laplace sampler cannot produce from ``value_prime``.

    True where no uniform double u (a multiple of 2**-53 in (0, 1)) gives
    ``value_prime ⊕ textbook_laplace_noise(u, scale) == output``, i.e. where
    ``laplace_mechanism(value_prime, Δ, ε)`` with ``Δ/ε = scale`` has
    probability 0 of answering ``output`` ([M12]_). Outputs below
    value_prime need negative noise (u < ½), outputs above it positive noise;
    on each branch the output is monotone in u, so a bisection over the 2**52
    candidate u decides it exactly (about 53 evaluations per output). Sound:
    an output the sampler can produce is never flagged. Same shape as ``outputs``.
    """
    x, v = outputs.ravel(), value_prime
    possible = x == v                                   # u = ½ gives noise +0
    below, above = x < v, x > v
    if np.any(below):
        possible[below] = _reachable(x[below], v, scale, 1, _HALF_BRANCH - 1)
    if np.any(above):
        possible[above] = _reachable(x[above], v, scale, _HALF_BRANCH, 2 * _HALF_BRANCH - 1)
    out = (~possible).reshape(outputs.shape)
    return bool(out) if out.ndim == 0 else out


@validate(outputs=array(min_size=0, max_size=PRECISION_MAX, example=[0.5, 1.5]),
          value_prime=VALUE)
def precision_test(outputs, value_prime: float) -> bool | np.ndarray:
    """The simple precision test: outputs that ``value_prime ⊕ y`` cannot be, for any double y.

    For doubles v and y, the exact sum v + y is a multiple of
    ``q = min(quantum(v), quantum(y))`` (both are), and rounding it to the
    nearest double keeps it a multiple of q. If ``x = v ⊕ y`` then
    ``|y| ≥ |x - v| - quantum(x)``, which bounds quantum(y) from below. So an
    output x that is not a multiple of ``min(quantum(v), quantum(that bound))``
    is impossible from v, whatever the noise sampler (as long as it outputs v ⊕
    a double). The bound is taken conservatively, so the test is sound; it is
    weaker than :func:`impossible_under` but needs no model of the sampler and
    is vectorised.

    Example: v = 1, x in [0.25, 0.5): |y| > 0.5, so quantum(y) ≥ 2**-53 and x
    must be a multiple of 2**-53; half of the doubles in [0.25, 0.5) (those
    with the 2**-54 bit set) are impossible from 1, but possible from 0.

    Returns True where the output is impossible from ``value_prime`` (same shape as
    ``outputs``).
    """
    x, v = outputs.ravel(), value_prime
    flagged = np.zeros(x.size, dtype=bool)
    q_x = np.where(x == 0, 2.0 ** -1074, _quantum(np.where(x == 0, 1.0, x)))
    bound = np.abs(x - v) * (1 - 2.0 ** -50) - q_x      # ≤ |y| for every y with v ⊕ y = x
    ok = bound > 0
    if np.any(ok):
        step = _quantum(bound[ok])
        if v != 0:
            step = np.minimum(step, _quantum(np.array([v]))[0])
        flagged[ok] = np.fmod(x[ok], step) != 0
    out = flagged.reshape(outputs.shape)
    return bool(out) if out.ndim == 0 else out


@dataclass
class FloatingPointAttackResult:
    """Outcome of :func:`floating_point_attack`.

    Attributes
    ----------
    n_trials : int
        Number of secret draws (each input with probability ½).
    success_rate : float
        Fraction of trials whose secret input was guessed right.
    ruled_out : int
        Trials in which the test ruled out exactly one input (a certain
        decision).
    wrong : int
        Of those, how many ruled out the true input: 0 for a sound test.
    epsilon : float
        ``|value - value_prime| / scale``, the ε the mechanism claims for these
        two inputs.
    dp_bound : float
        ``e^ε/(1 + e^ε)``: no test beats this success rate against an ε-DP
        mechanism.
    """

    sampler: str
    test: str
    n_trials: int
    success_rate: float
    ruled_out: int
    wrong: int
    epsilon: float
    dp_bound: float


@validate(sampler=choice(*SAMPLERS), value=VALUE, value_prime=VALUE, scale=ATTACK_SCALE,
          n_trials=integer(1, TRIALS_MAX, work=True), test=choice(*TESTS),
          bound=real(1e-6, 1e17).or_none(), granularity=GRANULARITY.or_none(), rng=RNG)
def floating_point_attack(sampler: str, value: float, value_prime: float, *, scale: float,
                          n_trials: int = 1000, test: str = "exact", bound: float | None = None,
                          granularity: float | None = None, rng=None) -> FloatingPointAttackResult:
    """Guess which of two neighbouring inputs produced each output, from its lowest bits.

    Each trial draws a secret input (``value`` or ``value_prime``, ½ each) and
    runs the mechanism once with Laplace noise of scale ``scale`` (i.e. ε =
    |value - value_prime|/scale for these two inputs):

    * ``"numpy"``: :func:`dpteach.mechanisms.noise.laplace_mechanism` (NumPy's
      floating-point sampler) with Δ = scale, ε = 1;
    * ``"snapping"``: :func:`dpteach.exact.snapping.snapping_mechanism` with Δ =
      scale, ε = 1 and ``bound`` (default ``max(|value|, |value_prime|) + 100·scale``);
    * ``"discrete"``: ``secure_laplace_mechanism(..., granularity=...)``,
      one call per trial (default granularity 2**-20).

    The test then rules inputs out. ``test="exact"`` asks, for the mechanism
    actually run, whether the output is possible from each input: for NumPy's
    sampler :func:`impossible_under`; for the secure ones, membership in their
    output grid, which is the same for both inputs, so nothing is ever ruled
    out. ``test="precision"`` applies :func:`precision_test` to every sampler.
    If exactly one input is ruled out the attacker names the other; otherwise
    it guesses the input closer to the output (the best guess for Laplace
    noise without the floating-point leak).

    Parameters
    ----------
    value, value_prime : float
        The two neighbouring answers, different.
    scale : float
        Noise scale Δ/ε, in the units of the answers.
    bound, granularity : float or None
        Clamping bound of ``"snapping"`` (None: the default above) and grid step of
        ``"discrete"`` (None: 2**-20); each must be None for the other samplers.
    rng : None, int or numpy.random.Generator
        Seeds everything (the secure samplers then run on a reproducible,
        not secure, stream: this is a simulation).

    Returns
    -------
    FloatingPointAttackResult
        ``success_rate`` near 1 (``ruled_out`` near ``n_trials``) for
        ``"numpy"``; ``ruled_out == 0`` and a success rate within sampling
        error of ``1 - e^{-ε/2}/2 ≤ dp_bound`` for the secure samplers.
    """
    v0, v1, b = value, value_prime, scale
    if v0 == v1:
        raise refuse("value_prime", value_prime, f"different from value = {value!r}")
    if sampler != "snapping" and bound is not None:
        raise refuse("bound", bound, f"None with sampler={sampler!r} (it is for 'snapping')")
    if sampler != "discrete" and granularity is not None:
        raise refuse("granularity", granularity, f"None with sampler={sampler!r} (for 'discrete')")
    clamp = max(abs(v0), abs(v1)) + 100.0 * b if bound is None else bound
    step = DEFAULT_GRANULARITY if granularity is None else granularity

    secret = rng.random(n_trials) < 0.5                # True: value_prime
    inputs = np.where(secret, v1, v0)
    if sampler == "numpy":
        out = laplace_mechanism(inputs, b, 1.0, rng=rng)
    elif sampler == "snapping":
        out = snapping_mechanism(inputs, sensitivity=b, epsilon=1.0, bound=clamp, rng=rng)
    else:
        out = np.array([secure_laplace_mechanism(float(x), b, 1.0, rng=rng, granularity=step)
                        for x in inputs])

    if test == "precision":
        not_v0, not_v1 = precision_test(out, v0), precision_test(out, v1)
    elif sampler == "numpy":
        not_v0, not_v1 = impossible_under(out, v0, b), impossible_under(out, v1, b)
    else:
        grid = (_snapping_grid(out, b, clamp) if sampler == "snapping"
                else _on_grid(out, Fraction(step)))
        not_v0 = not_v1 = ~grid                          # the grid does not depend on the input

    decided = not_v0 ^ not_v1
    closer_v1 = np.abs(out - v1) < np.abs(out - v0)
    guess_v1 = np.where(decided, not_v0, closer_v1)
    eps = abs(v1 - v0) / b
    return FloatingPointAttackResult(
        sampler=sampler, test=test, n_trials=n_trials,
        success_rate=float(np.mean(guess_v1 == secret)),
        ruled_out=int(decided.sum()),
        wrong=int(np.sum(decided & np.where(secret, not_v1, not_v0))),   # ruled out the truth
        epsilon=float(eps),
        dp_bound=float(1.0 / (1.0 + math.exp(-eps))),
    )


# ------------------------------------------------------------------ helpers
_LOG = np.frompyfunc(math.log, 1, 1)   # the C library's log, as NumPy's sampler calls it
_HALF_BRANCH = 1 << 52                 # u = k·2**-53 ≥ ½  ⟺  k ≥ 2**52


def _libm_log(x: np.ndarray) -> np.ndarray:
    # np.log uses its own SIMD code, which differs from the C library in the last bit
    # for about 0.1% of inputs; NumPy's random module calls the C library.
    return _LOG(x).astype(np.float64) if x.size else x.astype(np.float64)


def _noise(u: np.ndarray, scale: float) -> np.ndarray:
    upper = u >= 0.5
    out = np.empty_like(u)
    out[upper] = 0.0 - scale * _libm_log((2.0 - u[upper]) - u[upper])
    out[~upper] = 0.0 + scale * _libm_log(u[~upper] + u[~upper])
    return out


def _reachable(x: np.ndarray, v: float, b: float, lo: int, hi: int) -> np.ndarray:
    """For each x: is ``v ⊕ noise(k·2**-53) = x`` for some integer k in [lo, hi]?

    k ↦ v ⊕ noise(k·2**-53) is nondecreasing on each branch (every step rounds
    monotonically), so the smallest k with a value ≥ x is found by bisection and
    x is reachable iff that value equals x.
    """
    n = x.size
    left = np.full(n, lo, dtype=np.int64)
    right = np.full(n, hi + 1, dtype=np.int64)          # hi + 1: "no such k"
    active = left < right
    while np.any(active):
        idx = np.flatnonzero(active)
        mid = (left[idx] + right[idx]) // 2
        f = v + _noise(mid * 2.0 ** -53, b)
        up = f >= x[idx]
        right[idx[up]] = mid[up]
        left[idx[~up]] = mid[~up] + 1
        active = left < right
    found = left <= hi
    out = np.zeros(n, dtype=bool)
    if np.any(found):
        k = left[found]
        out[found] = (v + _noise(k * 2.0 ** -53, b)) == x[found]
    return out


def _quantum(z: np.ndarray) -> np.ndarray:
    """Value of the last mantissa bit of |z| (2**-1074 for subnormals; z ≠ 0, finite)."""
    _, e = np.frexp(z)                                  # |z| = m·2**e, m in [½, 1)
    return np.ldexp(1.0, np.maximum(e - 53, -1074))


def _on_grid(x: np.ndarray, step: Fraction) -> np.ndarray:
    """Whether each x is ``float(step·n)`` for an integer n (the secure outputs' grid)."""
    out = np.zeros(x.size, dtype=bool)
    for i, xi in enumerate(x.tolist()):
        if math.isfinite(xi):
            n = round(Fraction(xi) / step)
            out[i] = float(step * n) == xi
    return out


def _snapping_grid(x: np.ndarray, scale: float, bound: float) -> np.ndarray:
    """Whether each x is a possible output of the snapping mechanism run with ε = 1, Δ = scale.

    With ε = 1, λ = 1 and Λ = 1: the outputs are ``fl(j·Δ)`` for integers |j| ≤ B
    and ``fl(±B·Δ)`` with B = fl(bound/Δ), whatever the input.
    """
    b = bound / scale
    out = np.zeros(x.size, dtype=bool)
    for i, xi in enumerate(x.tolist()):
        j = round(xi / scale)
        out[i] = (abs(j) <= b and j * 1.0 * scale == xi) or xi in (b * scale, -b * scale)
    return out


# Engineering notes: docs/library/attacks.md.
