"""RDP of the Poisson-subsampled Gaussian mechanism, the privacy of one DP-SGD step.

Each record is included in the batch independently with probability q (the
sample rate), and the sum of the batch's clipped gradients gets N(0, σ²) noise
per coordinate (σ the noise multiplier, in units of the clipping norm). Its RDP
curve r_{q,σ}(α) = ln(A_α)/(α − 1) is computed exactly ([MTZ19]_ Sec. 3.3):

* integer α (Case I): a finite binomial sum, every term positive;
* fractional α (Case II): a convergent alternating series, summed until the
  tail is below float64 rounding;
* a closed form where float64 cannot tell it from the exact value (small σ).

Neighbouring relation: add/remove one record (the relation under which Poisson
subsampling amplifies privacy). :class:`~dpteach.accounting.rdp.RDPAccountant`
composes the curves.

References
----------
.. [MTZ19] I. Mironov, K. Talwar, L. Zhang. "Rényi Differential Privacy of the
   Sampled Gaussian Mechanism." arXiv:1908.10530, 2019, Sec. 3.3: Case I (integer α)
   and Case II (fractional α).
.. [ACG16] M. Abadi et al. "Deep Learning with Differential Privacy." CCS 2016
   (DP-SGD and the moments accountant).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

from .._validation import array, one_of, real, validate

__all__ = ["MAX_SUBSAMPLED_ORDER", "MAX_SUBSAMPLED_ORDERS", "SUBSAMPLED_ORDERS",
           "NOISE_MULTIPLIER", "SAMPLE_RATE", "subsampled_gaussian_rdp",
           "clear_subsampled_gaussian_cache"]

#: Largest Rényi order :func:`subsampled_gaussian_rdp` evaluates (its integer-order
#: sum has α terms, its fractional-order series at least α).
MAX_SUBSAMPLED_ORDER = 10_000
#: Largest number of orders :func:`subsampled_gaussian_rdp` evaluates in one call.
MAX_SUBSAMPLED_ORDERS = 256

#: the orders of a subsampled-Gaussian curve (each costs up to α terms of a series)
SUBSAMPLED_ORDERS = array(
    ndim=(0, 1), low=1.0001, high=MAX_SUBSAMPLED_ORDER, max_size=MAX_SUBSAMPLED_ORDERS,
    example=[2.0, 8.0], text="a number or 1-D array of Rényi orders α in [1.0001, 10000], "
    "at most 256 of them").flat()
#: σ in units of the clipping norm: up to 10⁶, and down to 10⁻¹² (the noise a planted-bug
#: audit hides inside DP-SGD, σ/10⁶, still has its RDP computed)
NOISE_MULTIPLIER = real(1e-12, 1e6)
#: Poisson sampling rate q: 0 (no step) or from one record in 10⁹ to every record
SAMPLE_RATE = one_of(real(0.0, 0.0), real(1e-9, 1.0, example=0.01),
                     text="0 or a number in [1e-9, 1]")


@validate(orders=SUBSAMPLED_ORDERS, noise_multiplier=NOISE_MULTIPLIER, sample_rate=SAMPLE_RATE)
def subsampled_gaussian_rdp(orders, noise_multiplier: float, sample_rate: float) -> np.ndarray:
    """RDP of one step of the Poisson-subsampled Gaussian mechanism (a read-only array).

    Under add/remove-one neighbours its RDP at order α is ``ln(A_α)/(α−1)`` with
    A_α = E_{z∼μ₀}[(μ(z)/μ₀(z))^α], μ₀ = N(0, σ²), μ = (1−q)N(0, σ²) + qN(1, σ²)
    ([MTZ19]_, Sec. 3), σ = ``noise_multiplier`` and q = ``sample_rate``.

    Integer orders use the finite sum of [MTZ19]_ Sec. 3.3 Case I (exact), fractional
    orders the two-sided series of Sec. 3.3 Case II with the signs of the generalized
    binomial coefficients kept and no early stopping (the truncation error is one-sided,
    upward, and below float64 resolution in A_α). q = 1 gives the plain Gaussian α/(2σ²);
    q = 0 gives 0. For small σ the closed form r(α) = α/(2σ²) + α ln q/(α−1), which
    float64 cannot tell from the exact value there, is used. Where r(α) is tiny the
    result carries an absolute error of a few float64 units of ln A_α, i.e. ~ 2⁻⁵³/(α − 1).
    """
    return _subsampled_gaussian_rdp_cached(sample_rate, noise_multiplier, tuple(orders.tolist()))


def clear_subsampled_gaussian_cache() -> None:
    """Forget the cached curves of :func:`subsampled_gaussian_rdp` (e.g. to time a cold start)."""
    _subsampled_gaussian_rdp_cached.cache_clear()


@functools.lru_cache(maxsize=256)
def _subsampled_gaussian_rdp_cached(q: float, sigma: float, orders: tuple) -> np.ndarray:
    """The curve, cached per (q, σ, orders): an accountant asks for the same step again
    and again."""
    alphas = np.asarray(orders, dtype=float)
    out = np.empty_like(alphas)
    s = (0.5 / sigma) / sigma                         # 1/(2σ²)
    if q == 0.0:
        out[:] = 0.0
    elif q == 1.0:                                    # the plain Gaussian α/(2σ²)
        out[:] = alphas / (2 * sigma**2)
    else:
        exact = np.ones(alphas.size, dtype=bool)
        for i, a in enumerate(alphas):
            r = _asymptotic(q, s, float(a))
            if r is not None:
                out[i], exact[i] = r, False
        is_int = exact & (alphas == np.round(alphas))
        if is_int.any():
            log_am1 = _log_a_minus_1_int(q, sigma, alphas[is_int])
            out[is_int] = np.logaddexp(0.0, log_am1) / (alphas[is_int] - 1)
        for j in np.flatnonzero(exact & ~is_int):
            a = alphas[j]
            out[j] = _log_a_frac(q, sigma, float(a)) / (a - 1)
        # A_α ≥ 1 (a Rényi divergence is ≥ 0); rounding can only push ln A a few
        # ulps below 0 when A − 1 is below float resolution.
        out = np.maximum(out, 0.0)
    out.setflags(write=False)
    return out


def _logsumexp(x: np.ndarray, axis=None):
    """ln Σ exp(x): a lean version of scipy.special.logsumexp (hot loop)."""
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out.item() if axis is None else np.squeeze(out, axis=axis)


@functools.lru_cache(maxsize=64)
def _int_tables_cached(alphas: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.asarray(alphas, dtype=float)[:, None]
    k = np.arange(2, int(a.max()) + 1, dtype=float)
    with np.errstate(invalid="ignore"):
        lb = special.gammaln(a + 1) - special.gammaln(k + 1) - special.gammaln(a - k + 1)
    lb = np.where(k[None, :] <= a, lb, -np.inf)
    return k, lb, a - k


def _int_tables(alphas: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Order-only parts of the integer-α sums: k = 2..max α, ln C(α,k) (−inf for k > α).

    Cached when small (the default orders need ~70 × 1023 entries); large custom
    orders are recomputed, so the cache never holds more than a few MB.
    """
    if len(alphas) * max(alphas) <= _TABLE_CACHE_ENTRIES:
        return _int_tables_cached(alphas)
    return _int_tables_cached.__wrapped__(alphas)


#: Integer-order tables (orders × terms) are built in chunks of at most this many entries.
_INT_CHUNK_ENTRIES = 1 << 21
#: Tables up to this many entries are kept in the caches.
_TABLE_CACHE_ENTRIES = 1 << 17


def _log_a_minus_1_int(q: float, sigma: float, alphas: np.ndarray) -> np.ndarray:
    """ln(A_α − 1) for integer α ≥ 2 ([MTZ19]_, Sec. 3.3 Case I), all orders at once.

    A_α = Σ_{k=0}^{α} C(α,k) (1−q)^{α−k} q^k exp((k²−k)/(2σ²)). Because the
    binomial weights sum to 1, A_α − 1 = Σ_{k≥2} C(α,k)(1−q)^{α−k} q^k
    expm1((k²−k)/(2σ²)): every term is positive, so the sum is exact in log
    space and keeps full relative precision even when A_α − 1 is tiny. The
    orders are processed in chunks of at most 2²¹ table entries (16 MB per table).
    """
    alphas = np.asarray(alphas, dtype=float)
    order = np.argsort(alphas)
    out = np.empty_like(alphas)
    start = 0
    while start < alphas.size:                      # chunks of sorted orders: bounded tables
        stop = start + 1
        while stop < alphas.size and (stop + 1 - start) * alphas[order[stop]] <= _INT_CHUNK_ENTRIES:
            stop += 1
        idx = order[start:stop]
        k, log_binom, a_minus_k = _int_tables(tuple(alphas[idx].tolist()))
        c = (k * k - k) / (2 * sigma**2)
        log_expm1 = c + np.log(-np.expm1(-c))          # ln(e^c − 1) without overflow
        terms = log_binom + a_minus_k * math.log1p(-q) + (k * math.log(q) + log_expm1)
        out[idx] = _logsumexp(terms, axis=1)
        start = stop
    return out


@functools.lru_cache(maxsize=512)
def _frac_tables_cached(alpha: float, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                       np.ndarray]:
    k = np.arange(n, dtype=float)
    j = alpha - k
    log_binom = special.gammaln(alpha + 1) - special.gammaln(k + 1) - special.gammaln(j + 1)
    k0 = math.floor(alpha) + 1
    sign = np.where((k < k0) | ((k - k0) % 2 == 0), 1.0, -1.0)
    for arr in (k, j, log_binom, sign):
        arr.setflags(write=False)
    return k, j, log_binom, sign


def _frac_tables(alpha: float, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Order-only parts of the fractional-α series for k < n: k, α − k, ln|C(α,k)|, sign.

    Cached for n ≤ 4096 terms (what the default orders need); longer series are
    recomputed, so the cache stays small.
    """
    if n <= 4096:
        return _frac_tables_cached(alpha, n)
    return _frac_tables_cached.__wrapped__(alpha, n)


def _log_series_term(pre: np.ndarray, quad: np.ndarray, x: np.ndarray,
                     const: float | None) -> np.ndarray:
    """``pre + quad + ln Φ(x)``, where ``pre + quad − x²/2 = const`` whenever x < 0.

    Formed directly where x ≥ 0 (ln Φ(x) is small), and everywhere when
    ``const`` is None. Where x < 0 and σ is small, quad and ln Φ(x) are huge and
    of opposite sign, so there we use ln Φ(x) + x²/2 = ln(erfcx(−x/√2)/2) (the
    scaled complementary error function) and return ``const + ln(erfcx(−x/√2)/2)``:
    no cancellation.
    """
    if const is None:
        return pre + quad + special.log_ndtr(x)
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = pre[pos] + quad[pos] + special.log_ndtr(x[pos])
    neg = ~pos
    with np.errstate(divide="ignore"):
        out[neg] = const + np.log(0.5 * special.erfcx(-x[neg] / math.sqrt(2)))
    return out


#: Above this 1/(2σ²) (σ < 0.1) the fractional series uses the cancellation-free
#: form of its terms (``_log_series_term``); below it the direct form is as accurate.
_SMALL_SIGMA_S = 50.0


def _log_a_frac(q: float, sigma: float, alpha: float, rel_tol: float = 2.0**-53,
                max_terms: int = 1 << 19) -> float:
    """ln(A_α) for fractional α > 1 ([MTZ19]_, Sec. 3.3 Case II), exact series.

    Split the real line at z₀ = σ² ln(1/q − 1) + 1/2, where (1−q)μ₀ = qμ₁.
    Expanding ((1−q)μ₀ + qμ₁)^α binomially on each side gives
    A_α = Σ_{k≥0} C(α,k) [ (1−q)^{α−k} q^k e^{(k²−k)/(2σ²)} Φ((z₀−k)/σ)
                           + (1−q)^k q^{α−k} e^{(j²−j)/(2σ²)} Φ((j−z₀)/σ) ],  j = α − k.

    The generalized binomial coefficient C(α,k) has sign (−1)^{k−⌊α⌋−1} for k > α, and we
    keep it: from k₀ = ⌊α⌋ + 1 on the series alternates with decreasing magnitude, so we stop
    only past k₀, after a positive term, once the next term is below ``rel_tol`` times the
    sum. The truncated series is an upper bound on A_α (conservative for privacy), tight to
    float precision; why, and the small-σ form of the terms: docs/library/accounting.md.
    """
    log_q, log_1mq = math.log(q), math.log1p(-q)
    z0 = sigma**2 * (log_1mq - log_q) + 0.5
    u = z0 / sigma
    # the shared log of every term with x < 0 (used for small σ only)
    const = alpha * log_1mq - 0.5 * u * u if 0.5 / sigma**2 > _SMALL_SIGMA_S else None
    k0 = math.floor(alpha) + 1
    n = 32
    while n < k0 + 16:
        n *= 2
    two_s2 = 2 * sigma**2
    log_tol = math.log(rel_tol)
    while True:
        k, j, log_binom, sign = _frac_tables(alpha, n)
        s1 = _log_series_term(j * log_1mq + k * log_q, (k * k - k) / two_s2,
                              (z0 - k) / sigma, const)
        s2 = _log_series_term(k * log_1mq + j * log_q, (j * j - j) / two_s2,
                              (j - z0) / sigma, const)
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


def _asymptotic(q: float, s: float, alpha: float) -> float | None:
    """r(α) in closed form where float64 cannot tell it from the exact value, else None.

    With s = 1/(2σ²) large (σ small) a single term of A_α dominates. For integer α,
    A_α = q^α e^{α(α−1)s} (1 + ρ) with 0 ≤ ρ ≤ y/(1−y), y = α e^{−(α−1)s}/q (each other
    term k = α − m is at most y^m times it); for fractional α the other terms of the Case II
    series are likewise at most |C(α,k)| q^{−α−1} e^{−s/4} or q^{−α} e^{−(α−1)s} times it.
    When min(s/4, (α−1)s) exceeds 60 + (α+1)(ln(1/q) + ln 2) + ln α, ρ < e^{−60} and
    r(α) = α s + α ln q/(α−1) to far below float64 resolution.
    """
    log_inv_q = -math.log(q)
    need = 60 + (alpha + 1) * (log_inv_q + math.log(2)) + math.log(alpha)
    if s * min(0.25, alpha - 1) > need:
        return alpha * s - alpha * log_inv_q / (alpha - 1)
    return None


# Implementation notes: docs/library/accounting.md (accounting.sampled_gaussian).
