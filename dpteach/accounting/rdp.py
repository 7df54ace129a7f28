"""Rényi differential privacy: RDP curves of basic mechanisms and an accountant.

A mechanism M is (α, r)-RDP if the Rényi divergence of order α between its
output distributions on any two neighbouring datasets is at most r ([M17]_,
Def. 4). RDP composes by *adding* the curves order by order ([M17]_, Prop. 1),
so k runs of a mechanism cost k·r(α); converting the total to (ε, δ)-DP at the
best order (see :mod:`dpteach.accounting._convert`) is where the gain over
classic composition theorems comes from.

Neighbouring relation: add/remove one record (the relation under which
Poisson subsampling amplifies privacy, as in DP-SGD). The plain Gaussian,
Laplace and randomized-response curves hold for any pair of inputs whose
query values differ by at most the sensitivity.

References
----------
.. [M17] I. Mironov. "Rényi Differential Privacy." CSF 2017 (arXiv:1702.07476v3):
   Prop. 1 (composition), Prop. 3 (conversion), Prop. 5 (randomized response),
   Prop. 6 (Laplace), Prop. 7 (Gaussian); Table II.
.. [MTZ19] I. Mironov, K. Talwar, L. Zhang. "Rényi Differential Privacy of the
   Sampled Gaussian Mechanism." arXiv:1908.10530, 2019, Sec. 3.3: Case I (integer α)
   and Case II (fractional α).
.. [ACG+16] M. Abadi et al. "Deep Learning with Differential Privacy." CCS 2016
   (the moments accountant, of which this is the RDP formulation).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .._validation import (
    check_choice,
    check_delta,
    check_int,
    check_positive,
    check_probability,
    check_sensitivity,
)
from ._convert import _check_rdp, check_orders, rdp_to_delta, rdp_to_epsilon

__all__ = [
    "DEFAULT_ORDERS",
    "gaussian_rdp",
    "laplace_rdp",
    "randomized_response_rdp",
    "subsampled_gaussian_rdp",
    "RDPAccountant",
]

#: Default Rényi orders: a fine grid (step 0.25) on (1, 10] where the best order
#: of most DP-SGD runs lies, every integer up to 64, then a few large orders so
#: that very small ε targets remain reachable.
DEFAULT_ORDERS: tuple[float, ...] = tuple(
    [1 + x / 4 for x in range(1, 37)] + list(range(11, 65)) + [80, 96, 128, 256, 512, 1024]
)


# ---------------------------------------------------------------------------
# Closed-form curves of basic mechanisms
# ---------------------------------------------------------------------------

def gaussian_rdp(orders, sigma: float, sensitivity: float = 1.0) -> np.ndarray:
    """RDP of the Gaussian mechanism: ``r(α) = α Δ² / (2σ²)``.

    [M17]_, Prop. 7 (Table II). Assumes ℓ2 sensitivity Δ and noise N(0, σ²I).

    Parameters
    ----------
    orders : array-like of float
        Orders α > 1.
    sigma : float
        Noise standard deviation, > 0.
    sensitivity : float, default 1
        ℓ2 sensitivity Δ, > 0.

    Returns
    -------
    numpy.ndarray
        r(α) at each order.
    """
    orders = check_orders(orders)
    sigma = check_positive("sigma", sigma)
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    return orders * sensitivity**2 / (2 * sigma**2)


def laplace_rdp(orders, scale: float, sensitivity: float = 1.0) -> np.ndarray:
    """RDP of the Laplace mechanism with scale b and ℓ1 sensitivity Δ.

    [M17]_, Prop. 6 (Table II), with λ = b/Δ::

        r(α) = 1/(α−1) · ln( α/(2α−1) · e^{(α−1)/λ} + (α−1)/(2α−1) · e^{−α/λ} )

    evaluated as ``(α−1)/λ + ln(α/(2α−1)) + ln1p((α−1)/α · e^{−(2α−1)/λ})``
    divided by (α − 1), which neither overflows for large α/λ nor loses the
    small terms. r(α) increases to the pure-DP value Δ/b as α → ∞.

    Parameters
    ----------
    orders : array-like of float
        Orders α > 1.
    scale : float
        Laplace scale b > 0.
    sensitivity : float, default 1
        ℓ1 sensitivity Δ > 0.
    """
    orders = check_orders(orders)
    scale = check_positive("scale", scale)
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    inv = sensitivity / scale                      # 1/λ = the pure-DP ε of the mechanism
    a = orders
    log_sum = ((a - 1) * inv + np.log(a / (2 * a - 1))
               + np.log1p((a - 1) / a * np.exp(-(2 * a - 1) * inv)))
    return log_sum / (a - 1)


def randomized_response_rdp(orders, p: float) -> np.ndarray:
    """RDP of binary randomized response that reports the truth with probability p.

    [M17]_, Prop. 5 (Table II)::

        r(α) = 1/(α−1) · ln( p^α (1−p)^{1−α} + (1−p)^α p^{1−α} )

    computed with a log-sum-exp. Symmetric in p ↔ 1 − p; increases to the
    pure-DP value |ln(p/(1−p))| as α → ∞.

    Parameters
    ----------
    orders : array-like of float
        Orders α > 1.
    p : float
        Probability of telling the truth, in (0, 1).
    """
    orders = check_orders(orders)
    p = check_probability("p", p, open_low=True, open_high=True)
    lp, lq = math.log(p), math.log1p(-p)
    a = orders
    return np.logaddexp(a * lp + (1 - a) * lq, a * lq + (1 - a) * lp) / (a - 1)


# ---------------------------------------------------------------------------
# Poisson-subsampled Gaussian
# ---------------------------------------------------------------------------

def _logsumexp(x: np.ndarray, axis=None):
    """ln Σ exp(x): a lean version of scipy.special.logsumexp (hot loop)."""
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out.item() if axis is None else np.squeeze(out, axis=axis)


@functools.lru_cache(maxsize=64)
def _int_tables(alphas: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Order-only parts of the integer-α sums: k = 2..max α, ln C(α,k) (−inf for k > α)."""
    a = np.asarray(alphas, dtype=float)[:, None]
    k = np.arange(2, int(a.max()) + 1, dtype=float)
    with np.errstate(invalid="ignore"):
        lb = special.gammaln(a + 1) - special.gammaln(k + 1) - special.gammaln(a - k + 1)
    lb = np.where(k[None, :] <= a, lb, -np.inf)
    return k, lb, a - k


def _log_a_minus_1_int(q: float, sigma: float, alphas: np.ndarray) -> np.ndarray:
    """ln(A_α − 1) for integer α ≥ 2 ([MTZ19]_, Sec. 3.3 Case I), all orders at once.

    A_α = Σ_{k=0}^{α} C(α,k) (1−q)^{α−k} q^k exp((k²−k)/(2σ²)). Because the
    binomial weights sum to 1, A_α − 1 = Σ_{k≥2} C(α,k)(1−q)^{α−k} q^k
    expm1((k²−k)/(2σ²)): every term is positive, so the sum is exact in log
    space and keeps full relative precision even when A_α − 1 is tiny.
    """
    k, log_binom, a_minus_k = _int_tables(tuple(alphas.tolist()))
    c = (k * k - k) / (2 * sigma**2)
    log_expm1 = c + np.log(-np.expm1(-c))          # ln(e^c − 1) without overflow
    terms = log_binom + a_minus_k * math.log1p(-q) + (k * math.log(q) + log_expm1)
    return _logsumexp(terms, axis=1)


@functools.lru_cache(maxsize=512)
def _frac_tables(alpha: float, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Order-only parts of the fractional-α series for k < n: k, α − k, ln|C(α,k)|, sign."""
    k = np.arange(n, dtype=float)
    j = alpha - k
    log_binom = special.gammaln(alpha + 1) - special.gammaln(k + 1) - special.gammaln(j + 1)
    k0 = math.floor(alpha) + 1
    sign = np.where((k < k0) | ((k - k0) % 2 == 0), 1.0, -1.0)
    for arr in (k, j, log_binom, sign):
        arr.setflags(write=False)
    return k, j, log_binom, sign


def _log_a_frac(q: float, sigma: float, alpha: float, rel_tol: float = 2.0**-53,
                max_terms: int = 1 << 22) -> float:
    """ln(A_α) for fractional α > 1 ([MTZ19]_, Sec. 3.3 Case II), exact series.

    Split the real line at z₀ = σ² ln(1/q − 1) + 1/2, where (1−q)μ₀ = qμ₁.
    Expanding ((1−q)μ₀ + qμ₁)^α binomially on each side gives
    A_α = Σ_{k≥0} C(α,k) [ (1−q)^{α−k} q^k e^{(k²−k)/(2σ²)} Φ((z₀−k)/σ)
                           + (1−q)^k q^{α−k} e^{(j²−j)/(2σ²)} Φ((j−z₀)/σ) ],  j = α − k.

    The generalized binomial coefficient C(α,k) has sign (−1)^{k−⌊α⌋−1} for
    k > α, and we keep it. Both bracketed factors decrease in k (the inverse
    Mills ratio exceeds its argument), and so does |C(α,k)| for k > α; hence
    from k₀ = ⌊α⌋ + 1 on the series alternates with decreasing magnitude and
    its tail lies between consecutive partial sums. We do **not** stop at the
    first small term (terms can start tiny and grow, e.g. (1−q)^α at large α):
    we stop only past k₀, after a positive term, once the next term is below
    ``rel_tol`` (default 2⁻⁵³, the float64 resolution) times the sum. The
    truncated series is therefore an upper bound on A_α (conservative for
    privacy), and it is tight to float precision: the computed ln A_α agrees
    with a 30-digit numerical integral of the definition to a few units of
    float64 rounding (tests/test_accounting.py). The series converges only polynomially
    (terms ~ k^{−α−2}), so q ≳ 0.1 with σ ≲ 1 at α < 2 may need 10⁴–10⁵ terms.
    """
    log_q, log_1mq = math.log(q), math.log1p(-q)
    z0 = sigma**2 * (log_1mq - log_q) + 0.5
    k0 = math.floor(alpha) + 1
    n = 32
    while n < k0 + 16:
        n *= 2
    two_s2 = 2 * sigma**2
    log_tol = math.log(rel_tol)
    while True:
        k, j, log_binom, sign = _frac_tables(alpha, n)
        s1 = (j * log_1mq + k * log_q) + (k * k - k) / two_s2 + special.log_ndtr((z0 - k) / sigma)
        s2 = (k * log_1mq + j * log_q) + (j * j - j) / two_s2 + special.log_ndtr((j - z0) / sigma)
        log_mag = log_binom + np.logaddexp(s1, s2)
        head = _logsumexp(log_mag[:k0])      # the positive terms k < k0: a lower bound on ln A
        # candidate stopping points m (keep terms k < m): m − 1 − k0 even, so the
        # last kept term is positive (upper bracket), and |term m| ≤ rel_tol · head.
        cand = log_mag[k0 + 1::2] <= head + log_tol
        if cand.any() or n >= max_terms:
            m = k0 + 1 + 2 * (int(np.argmax(cand)) if cand.any() else cand.size - 1)
            break
        n *= 2
    lm, sg = log_mag[:m], sign[:m]
    log_pos = _logsumexp(lm[sg > 0])
    neg = lm[sg < 0]
    if neg.size == 0:
        return log_pos
    return log_pos + math.log1p(-math.exp(_logsumexp(neg) - log_pos))


@functools.lru_cache(maxsize=256)
def _subsampled_gaussian_rdp_cached(q: float, sigma: float, orders: tuple) -> np.ndarray:
    alphas = np.asarray(orders, dtype=float)
    out = np.empty_like(alphas)
    if q == 0.0:
        out[:] = 0.0
    elif q == 1.0:
        out[:] = alphas / (2 * sigma**2)
    else:
        is_int = alphas == np.round(alphas)
        if is_int.any():
            log_am1 = _log_a_minus_1_int(q, sigma, alphas[is_int])
            out[is_int] = np.logaddexp(0.0, log_am1) / (alphas[is_int] - 1)
        for i in np.flatnonzero(~is_int):
            a = alphas[i]
            out[i] = _log_a_frac(q, sigma, float(a)) / (a - 1)
        # A_α ≥ 1 (a Rényi divergence is ≥ 0); rounding can only push ln A a few
        # ulps below 0 when A − 1 is below float resolution.
        out = np.maximum(out, 0.0)
    out.setflags(write=False)
    return out


def subsampled_gaussian_rdp(orders, noise_multiplier: float, sample_rate: float) -> np.ndarray:
    """RDP of one step of the Poisson-subsampled Gaussian mechanism.

    Each record enters the batch independently with probability q
    (``sample_rate``); the batch sum of per-record contributions, each of ℓ2
    norm at most 1 (clipping), receives N(0, σ²I) noise (σ =
    ``noise_multiplier``). Under add/remove-one neighbours its RDP at order α
    is ``ln(A_α)/(α−1)`` with A_α = E_{z∼μ₀}[(μ(z)/μ₀(z))^α], μ₀ = N(0, σ²),
    μ = (1−q)N(0, σ²) + qN(1, σ²) ([MTZ19]_, Sec. 3).

    Integer orders use the finite sum of [MTZ19]_ Sec. 3.3 Case I (exact), fractional
    orders the two-sided series of Sec. 3.3 Case II with the signs of the generalized
    binomial coefficients kept and no early stopping; see ``_log_a_frac``
    for the error control (the truncation error is one-sided, upward, and below
    float64 resolution in A_α). q = 1 gives the plain Gaussian α/(2σ²); q = 0 gives 0.
    Results are cached per (q, σ, orders).

    Parameters
    ----------
    orders : array-like of float
        Orders α > 1.
    noise_multiplier : float
        σ, the noise standard deviation in units of the clipping norm, > 0.
    sample_rate : float
        Poisson sampling probability q in [0, 1].

    Returns
    -------
    numpy.ndarray
        r(α) at each order for ONE step (read-only; multiply by the number of steps).
    """
    orders = check_orders(orders)
    sigma = check_positive("noise_multiplier", noise_multiplier)
    q = check_probability("sample_rate", sample_rate)
    return _subsampled_gaussian_rdp_cached(q, sigma, tuple(orders.tolist()))


# ---------------------------------------------------------------------------
# Accountant
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Step:
    """One entry of an accountant's history."""

    noise_multiplier: float
    sample_rate: float
    steps: int


class RDPAccountant:
    """Rényi-DP accountant for (subsampled) Gaussian steps, as in DP-SGD.

    Keeps the running RDP curve (one value per order). ``step`` adds
    ``steps × r_q,σ(α)`` (RDP composes additively, [M17]_ Prop. 1);
    ``get_epsilon`` converts the total to (ε, δ) at the best order.

    Parameters
    ----------
    orders : array-like of float, optional
        Rényi orders α > 1; default :data:`DEFAULT_ORDERS`.

    Attributes
    ----------
    orders : numpy.ndarray
    history : list of Step
        (noise_multiplier, sample_rate, steps) for every ``step`` call.

    Examples
    --------
    >>> acc = RDPAccountant()
    >>> acc.step(noise_multiplier=1.1, sample_rate=256 / 60_000, steps=15_000)
    >>> round(acc.get_epsilon(delta=1e-5), 2)
    2.69

    References
    ----------
    See the module docstring: [M17]_, [MTZ19]_, [BBGHS20]_ for the conversion.
    """

    def __init__(self, orders=None):
        self.orders = check_orders(DEFAULT_ORDERS if orders is None else orders)
        self._orders_key = tuple(self.orders.tolist())
        self._rdp = np.zeros_like(self.orders)
        self.history: list[Step] = []

    def step(self, *, noise_multiplier: float, sample_rate: float, steps: int = 1) -> None:
        """Account for ``steps`` Poisson-subsampled Gaussian steps (q = 1: plain Gaussian)."""
        sigma = check_positive("noise_multiplier", noise_multiplier)
        q = check_probability("sample_rate", sample_rate)
        steps = check_int("steps", steps, minimum=1)
        self._rdp = self._rdp + steps * _subsampled_gaussian_rdp_cached(q, sigma, self._orders_key)
        self.history.append(Step(sigma, q, steps))

    def compose_rdp(self, rdp, count: int = 1) -> None:
        """Add an arbitrary RDP curve (one value per order) ``count`` times.

        E.g. ``acc.compose_rdp(laplace_rdp(acc.orders, scale=1.0), count=10)``.
        """
        rdp = _check_rdp(self.orders, rdp)
        count = check_int("count", count, minimum=1)
        self._rdp = self._rdp + count * rdp

    def get_rdp(self) -> np.ndarray:
        """The current total RDP curve (a copy), one value per order."""
        return self._rdp.copy()

    def get_epsilon_and_order(self, delta: float,
                              conversion: str = "improved") -> tuple[float, float]:
        """(ε, best order) such that everything composed so far is (ε, δ)-DP.

        ``conversion="improved"`` ([BBGHS20]_ Thm 21) or ``"classic"`` ([M17]_ Prop. 3).
        """
        delta = check_delta("delta", delta, allow_zero=False)
        conversion = check_choice("conversion", conversion, {"improved", "classic"})
        return rdp_to_epsilon(self.orders, self._rdp, delta, conversion)

    def get_epsilon(self, delta: float, conversion: str = "improved") -> float:
        """ε such that everything composed so far is (ε, δ)-DP (best order)."""
        return self.get_epsilon_and_order(delta, conversion)[0]

    def get_delta(self, epsilon: float, conversion: str = "improved") -> float:
        """Smallest δ (over orders) such that everything composed so far is (ε, δ)-DP."""
        return rdp_to_delta(self.orders, self._rdp, epsilon, conversion)[0]

    def __repr__(self) -> str:
        return f"RDPAccountant({len(self.orders)} orders, {len(self.history)} step calls)"
