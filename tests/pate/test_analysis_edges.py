"""Legal-but-extreme inputs for every public callable of dpteach.pate.analysis and
dpteach.pate.release.

Each row of ``CASES`` names a callable (a function, or a small wrapper that builds one of the
result records), valid keyword arguments, ONE numeric parameter, a strategy of extreme values
for it and a ``check(kwargs, result)``. The call must answer without NaN within a few seconds
and pass the check, or refuse with ParameterError/TypeError naming an argument
(``_props.assert_extreme_ok``). The extremes: σ, σ₁, σ₂, Laplace scales, thresholds, β and
σ_s from subnormal to the largest double (and integers beyond the float range); vote counts
up to 2⁵³ − 1 (2⁵³ is refused), histograms with huge gaps, all-zero rows, ties, 2 and 10,000
classes; Rényi orders within an ulp of 1 and up to the largest double; numbers of teachers
and classes at their limits; δ subnormal and within an ulp of 1; seeds beyond 2⁶⁴.

The checks are theorems or exact values, not just "no NaN":

* ln q̃ of GNMax ([PSMRTE18] Prop. 7) and of LNMax ([PAEGT17] Lemma 4) and ln Pr[answered]
  against 60-digit mpmath (relative 1e-12); ln q̃ ≤ ln(1 − 1/k), ln Pr[answered] ≤ 0;
* data-dependent RDP (GNMax, threshold step, LNMax) in [0, data-independent], and equal to
  Thm 6 of [PSMRTE18] (Thm 3 of [PAEGT17]) evaluated in mpmath with Prop. 10's μ's, or to the
  data-independent curve where its conditions fail, relative 1e-6 (the issue's tolerance);
  σ huge → exactly λ/σ², a clear winner and σ tiny → 0;
* data-independent curves exactly λ/σ², λ/(2σ₁²), min(2/b, 2λ/b²);
* a run: data-dependent ≤ data-independent; the expected convention ≤ answering everything;
  ε ≥ 0 at one of the given orders;
* local sensitivities ≥ 0, non-decreasing in the distance d, at most the largest value of the
  cost (λ/σ² for GNMax), and at least the change to the neighbours that move one vote between
  the two leading classes; the threshold step's LS⁽⁰⁾ exactly; smooth sensitivity and the
  GNSS RDP against mpmath; a sanitised ε that is exactly private ε + r(λ) + SS·σ_s·Z with the
  seeded Z, the private ε being the answered-convention RDP + ln(1/δ)/(λ − 1).

Defects this file found in the first version of the modules, all fixed, each kept fixed by
a regression test at the end of the file:

* K1: Thm 6 (and [PAEGT17] Thm 3) is evaluated with catastrophic cancellation: at orders
  within ~1e-2 of 1 and for σ ≳ 1e10 the RDP can be far below the bound (down to 0).
  The exact checks skip λ < 1.01, and σ > 1e9 where ln q̃ is below its cap.
* K2: ``lnmax_rdp`` returns NaN when ln q̃ underflows to −inf (scale ≲ 1e-305):
  scale rows draw scales ≥ 1e-290.
* K3: ``sanitised_epsilon`` computes ln(1/δ) as ``log(1/delta)``: inf for subnormal δ:
  δ ≥ 1e-300 there.
* K4: ``sanitised_epsilon`` with σ₁ ≲ 2e-154 and an integer threshold reachable by a vote
  count refuses with an error naming ``local_sensitivities`` (not one of its arguments):
  σ₁ ≥ 1e-150 there.
* K5: where ln q̃ (or ln min(p, 1 − p) of the threshold step) underflows to −inf
  (σ ≲ 1e-154), the cost is set to 0 at every order, but Thm 6 (and the true divergence)
  is λ/σ² at orders λ ≳ gap/4: the exact checks skip ln q̃ = −inf.
* K6: ``confident_gnmax_rdp`` (expected convention) returns NaN when Pr[answered]
  underflows to 0 while the GNMax cost is inf (0·inf); ``pate_epsilon`` then refuses naming
  ``rdp``. Only combinations of two extreme parameters reach it (no row here).
* K7: ``threshold_local_sensitivities`` returns NaN for σ₁ ≈ 1e-154 (λ/(2σ₁²) overflows
  while ln q stays finite: inf − inf between neighbouring costs): σ₁ outside [1e-155, 1e-153].

``test_every_public_callable_and_numeric_parameter_is_covered`` walks the two modules and
fails when a public function, class or method (or one of its numeric parameters) has no row.
"""

from __future__ import annotations

import collections
import functools
import importlib
import inspect
import math
import re

import mpmath as mp
import numpy as np
import pytest
from _props import EXTREME_POSITIVE_FLOATS, HUGE_INTS, TINY_FLOATS, assert_extreme_ok
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.special import log_ndtr

from dpteach._validation import ParameterError
from dpteach.pate import analysis as P
from dpteach.pate import release as R

MODULES = (P, R)
FMAX = 1.7976931348623157e308
BIG = 2**53 - 1                       # the largest vote count allowed
DPS = 60

# ------------------------------------------------------------------------ strategies
POS = st.one_of(EXTREME_POSITIVE_FLOATS, HUGE_INTS)                 # > 0, any size
NONNEG = st.one_of(POS, st.sampled_from([0, 0.0]))
HUGE_BUT_FINITE_INTS = st.one_of(st.sampled_from([2**31, 2**63, 2**64, 10**30]),
                                 st.integers(min_value=2**40, max_value=10**300))


def _positive(low: float = 5e-324, high: float = FMAX, gap: tuple | None = None):
    """Extreme positive values in [low, high] (outside the open interval ``gap``)."""
    fixed = [5e-324, 1e-320, 2.2250738585072009e-308, 2.2250738585072014e-308, 1e-300,
             1e-200, 1e-156, 1e-152, 1e-100, 1e-30, 1e-16, 1e15, 1e30, 1e100, 1e300, 1e308,
             FMAX]
    keep = [v for v in fixed if low <= v <= high and not (gap and gap[0] < v < gap[1])]
    parts = [st.sampled_from(keep)]
    if gap:
        parts += [st.floats(low, gap[0]), st.floats(gap[1], high)]
    else:
        parts.append(st.floats(low, high))
    parts.append(HUGE_INTS if high == FMAX else HUGE_BUT_FINITE_INTS)
    return st.one_of(*parts)


ONE_MINUS_TINY = st.sampled_from([1 - 2**-53, 1 - 1e-15, 1 - 1e-10])
OPEN_DELTAS = st.one_of(TINY_FLOATS, ONE_MINUS_TINY, st.just(0.5))  # (0, 1)
ORDER_VALUES = st.one_of(
    st.sampled_from([1 + 2**-52, 1 + 1e-12, 1.01, 1.5, 2.0, 20.0, 64.5, 500.0, 1e4, 1e15,
                     1e300, FMAX]),
    st.floats(min_value=1 + 2**-52, max_value=FMAX, allow_nan=False, allow_infinity=False))
ORDERS = st.lists(ORDER_VALUES, min_size=1, max_size=4)
COUNTS = st.one_of(st.integers(0, BIG), st.sampled_from([0, 1, 2, BIG, BIG - 1, 2**52]))


def _pad(row, k=10):
    return list(row) + [0] * (k - len(row))


# vote histograms: huge gaps, all-zero rows, ties, 2 and 10,000 classes, 2**53 (refused)
FIXED_VOTES = [
    [BIG, 0], [BIG, BIG], [BIG, BIG - 1], [0, 0], [1, 0], [0, 1], [1, 1],
    _pad([BIG]), _pad([BIG, 1]), _pad([BIG, 2**52]), [7] * 10, _pad([200, 30, 20]),
    [0] * 10_000, [BIG] + [0] * 9_999, [3, 3] + [0] * 9_998, [BIG] + [BIG - 1] * 9_999,
    [[BIG, 0], [0, 0], [3, 3]], [[0, 0, 0], [0, 0, 0]], [[250, 0, 0], [0, 250, 0], [1, 2, 3]],
    [2**53, 0], [[1, 2], [2**53, 0]], np.array([BIG, 0], dtype=np.int64),
]
RANDOM_VOTES = st.one_of(
    st.lists(COUNTS, min_size=2, max_size=12),
    st.integers(2, 6).flatmap(lambda k: st.lists(st.lists(COUNTS, min_size=k, max_size=k),
                                                 min_size=1, max_size=3)))
VOTES = st.one_of(st.sampled_from(FIXED_VOTES), RANDOM_VOTES)
# for the smooth-sensitivity analysis, whose work grows with the number of teachers
SMALL_VOTES = st.one_of(
    st.sampled_from([[250, 0], [0, 0], [125, 125], [250] + [0] * 9_999, [0] * 10_000,
                     _pad([200, 30, 20]), [[250, 0, 0], [0, 0, 0], [83, 83, 84]],
                     [[249, 1], [1, 249], [0, 250]]]),
    st.integers(2, 5).flatmap(lambda k: st.lists(st.integers(0, 250 // k), min_size=k,
                                                 max_size=k)))
LOG_Q_VALUES = st.one_of(
    st.sampled_from([-math.inf, -FMAX, -1e300, -1e15, -100.0, -5.66, -1.0, math.log(0.5),
                     -1e-300, -5e-324, -0.0, 0.0]),
    st.floats(max_value=0.0, allow_nan=False, allow_infinity=True))
LOG_Q = st.one_of(LOG_Q_VALUES, st.lists(LOG_Q_VALUES, min_size=1, max_size=4))
TEACHERS = st.one_of(st.sampled_from([250, 251, 1_000, 99_999, 100_000, 100_001, 2**53,
                                      10**400]), HUGE_INTS)
CLASSES = st.one_of(st.sampled_from([2, 3, 10, 9_999, 10_000, 10_001, 2**53, 10**400]),
                    HUGE_INTS)
SEEDS = st.one_of(st.sampled_from([0, 1, 2**32, 2**64 - 1, 2**64, 2**128, 10**400]), HUGE_INTS)
LS_VALUES = st.one_of(st.sampled_from([0.0, 5e-324, 1e-300, 1.0, 1e300, FMAX]),
                      st.floats(min_value=0.0, max_value=FMAX))
LOCAL_SENSITIVITIES = st.one_of(
    st.lists(LS_VALUES, min_size=1, max_size=40),
    st.sampled_from([np.full(100_001, FMAX), np.zeros(100_001), np.arange(100_001.0),
                     np.full(3, 5e-324)]))


def _masks(n):
    return st.sampled_from([np.ones(n, bool), np.zeros(n, bool), np.arange(n) % 2 == 0,
                            np.arange(n) % 2 == 1])


# --------------------------------------------------------------------- exact references

def close(x: float, ref: float, rel: float = 1e-12, abs_: float = 1e-300) -> bool:
    if math.isinf(ref) or math.isinf(x):
        return x == ref
    return abs(x - ref) <= max(rel * abs(ref), abs_)


def _rows(votes) -> list[tuple[int, ...]]:
    arr = np.atleast_2d(np.asarray(votes, dtype=float))
    return [tuple(int(x) for x in row) for row in arr]


def _orders(kw) -> np.ndarray:
    return np.atleast_1d(np.asarray(kw["orders"], dtype=float))


def mp_log_erfc(x):
    """ln erfc(x) for x ≥ 0 (an mpf): mpmath's erfc, or for x > 1e50, where it overflows a
    float internally, the asymptotic series −x² − ln(x√π) + ln(1 − 1/(2x²) + …), whose
    dropped terms are below 1e-100 relative."""
    x = mp.mpf(x)
    if x > 1e50:
        return -x * x - mp.log(x * mp.sqrt(mp.pi)) + mp.log1p(-1 / (2 * x * x))
    return mp.log(mp.erfc(x))


def mp_logsumexp(terms):
    terms = [t for t in terms if t != -mp.inf]
    if not terms:
        return -mp.inf
    top = max(terms)
    return top + mp.log(mp.fsum(mp.exp(t - top) for t in terms))


def _gap_counts(row):
    top = max(row)
    gaps = collections.Counter(top - x for x in row)
    gaps[0] -= 1                                   # the argmax itself
    return [(g, c) for g, c in gaps.items() if c]


@functools.lru_cache(maxsize=4096)
def mp_gnmax_log_q(row: tuple[int, ...], sigma: float):
    """ln min(1 − 1/k, Σ_{j≠j*} Pr[N(0, 2σ²) ≥ n* − n_j]) ([PSMRTE18] Prop. 7), an mpf."""
    with mp.workdps(DPS):
        s = mp.mpf(sigma)
        terms = [mp.log(c) + mp_log_erfc(mp.mpf(g) / (2 * s)) - mp.log(2)
                 for g, c in _gap_counts(row)]
        return min(mp_logsumexp(terms), mp.log(1 - mp.mpf(1) / len(row)))


@functools.lru_cache(maxsize=4096)
def mp_lnmax_log_q(row: tuple[int, ...], scale: float):
    """ln min(1 − 1/k, Σ_{j≠j*} (2 + Δ_j/b)e^{−Δ_j/b}/4) ([PAEGT17] Lemma 4), an mpf."""
    with mp.workdps(DPS):
        b = mp.mpf(scale)
        terms = [mp.log(c) + mp.log(2 + g / b) - mp.log(4) - g / b for g, c in _gap_counts(row)]
        return min(mp_logsumexp(terms), mp.log(1 - mp.mpf(1) / len(row)))


def mp_log_ncdf(z):
    """ln Φ(z), an mpf."""
    with mp.workdps(DPS):
        z = mp.mpf(z)
        if z >= 0:
            return mp.log1p(-mp.exp(mp_log_erfc(z / mp.sqrt(2))) / 2)
        return mp_log_erfc(-z / mp.sqrt(2)) - mp.log(2)


def mp_threshold_log_q(top: int, threshold: float, sigma1: float):
    """ln min(p, 1 − p), p = Pr[top + N(0, σ₁²) ≥ T], an mpf."""
    with mp.workdps(DPS):
        z = (mp.mpf(top) - mp.mpf(threshold)) / mp.mpf(sigma1)
        return mp_log_ncdf(-abs(z))


def _borderline(a, b) -> bool:
    return abs(a - b) <= mp.mpf(10) ** -9 * max(abs(a), abs(b), mp.mpf(10) ** -300)


def mp_thm6(log_q, sigma, lam):
    """Thm 6 of [PSMRTE18] with Prop. 10's μ₂ = σ√ln(1/q̃), μ₁ = μ₂ + 1, for a mechanism
    that is (μ, μ/σ²)-RDP: (value or None where a condition fails, borderline?).

    Written with log1p/expm1 (algebraically the theorem's formula) so that 60 digits are
    enough whatever q̃, σ and λ: D = log1p((1 − q)·expm1(l·ln A) + q·expm1(l·ln B))/l, l = λ − 1,
    ln A = log1p(q·expm1(u)/(1 − q')), q' = (q·e^{ε₂})^{(μ₂−1)/μ₂} = q·e^u.
    """
    with mp.workdps(DPS):
        lq, s, lam = mp.mpf(log_q), mp.mpf(sigma), mp.mpf(lam)
        if lq == 0:
            return None, False
        mu2 = s * mp.sqrt(-lq)
        mu1 = mu2 + 1
        e1, e2 = mu1 / s**2, mu2 / s**2
        border = _borderline(mu2, 1) or _borderline(lam, mu1) or _borderline(-lq, e2)
        if not (mu2 > 1 and lam <= mu1 and -lq > e2):
            return None, border
        rhs = (mu2 - 1) * e2 - mu2 * (mp.log1p(1 / (mu1 - 1)) + mp.log1p(1 / (mu2 - 1)))
        border = border or _borderline(lq, rhs)
        if not lq <= rhs:
            return None, border
        q = mp.exp(lq)
        u = e2 * (1 - 1 / mu2) - lq / mu2
        log_a = mp.log1p(q * mp.expm1(u) / -mp.expm1(lq + u))
        log_b = e1 - lq / (mu1 - 1)
        l = lam - 1
        value = mp.log1p((1 - q) * mp.expm1(l * log_a) + q * mp.expm1(l * log_b)) / l
        return value, border


def thm6_candidates(log_q, sigma, lam, cap) -> list[float]:
    """The acceptable float answers: min(Thm 6, cap), or cap where Thm 6 does not apply
    (both when a condition sits within 1e-9 of its boundary)."""
    value, border = mp_thm6(log_q, sigma, lam)
    with mp.workdps(DPS):
        out = [float(cap) if value is None else float(min(value, cap))]
        if border:
            out.append(float(cap))
    return out


def mp_lnmax_candidates(log_q, scale, lam) -> list[float]:
    """[PAEGT17] Thm 3 as RDP, min with min(ε, λε²/2), ε = 2/b (log1p/expm1 form)."""
    with mp.workdps(DPS):
        lq, b, lam = mp.mpf(log_q), mp.mpf(scale), mp.mpf(lam)
        eps = 2 / b
        base = min(eps, lam * eps**2 / 2)
        bound = -mp.log1p(mp.exp(eps))
        if not lq < bound:
            return [float(base)]
        q = mp.exp(lq)
        log_a = mp.log1p(q * mp.expm1(eps) / (1 - mp.exp(eps + lq)))
        l = lam - 1
        value = mp.log1p((1 - q) * mp.expm1(l * log_a) + q * mp.expm1(l * eps)) / l
        out = [float(min(value, base))]
        if _borderline(lq, bound):
            out.append(float(base))
        return out


def _exactly_checkable(lq_float: float, sigma: float, lam: float, cap_lq: float) -> bool:
    """Where an exact mpmath value is meaningful: ln q̃ finite (K5: −inf is a bound, not a value)."""
    return lq_float != -math.inf


# --------------------------------------------------------------------------- checks

def check_votes_copy(kw, r):
    ref = np.asarray(kw["votes"], dtype=float)
    return isinstance(r, np.ndarray) and r.dtype == np.float64 and np.array_equal(r, ref)


def check_gnmax_log_q(kw, r):
    rows = _rows(kw["votes"])
    out = np.atleast_1d(r)
    if np.ndim(kw["votes"]) == 1 and type(r) is not float:
        return False
    for row, x in zip(rows, out):
        cap = math.log1p(-1 / len(row))
        if not (x <= cap and close(float(x), float(mp_gnmax_log_q(row, float(kw["sigma"]))))):
            return False
    return out.shape == (len(rows),)


def check_lnmax_log_q(kw, r):
    rows = _rows(kw["votes"])
    out = np.atleast_1d(r)
    for row, x in zip(rows, out):
        if not (x <= math.log1p(-1 / len(row))
                and close(float(x), float(mp_lnmax_log_q(row, float(kw["scale"]))))):
            return False
    return out.shape == (len(rows),) and (np.ndim(kw["votes"]) == 2 or type(r) is float)


def check_log_pr_answered(kw, r):
    out = np.atleast_1d(r)
    for row, x in zip(_rows(kw["votes"]), out):
        with mp.workdps(DPS):
            z = (mp.mpf(max(row)) - mp.mpf(kw["threshold"])) / mp.mpf(kw["sigma1"])
            ref = float(mp_log_ncdf(z))
        if not (x <= 0 and close(float(x), ref)):
            return False
    return True


def _rdp_shape_ok(kw, r) -> bool:
    n_orders = _orders(kw).size
    want = (n_orders,) if np.ndim(kw["votes"]) == 1 else (len(_rows(kw["votes"])), n_orders)
    return isinstance(r, np.ndarray) and r.shape == want


def _gnmax_ok(x: float, log_q, sigma: float, lam: float) -> bool:
    """x is min(Thm 6, λ/σ²) (or λ/σ²) to the issue's relative 1e-6."""
    with mp.workdps(DPS):
        cap = mp.mpf(lam) / mp.mpf(sigma) ** 2
    return any(close(x, c, 1e-6) for c in thm6_candidates(log_q, sigma, lam, cap))


def check_gnmax_rdp(kw, r):
    if not _rdp_shape_ok(kw, r):
        return False
    orders, sigma = _orders(kw), float(kw["sigma"])
    with np.errstate(over="ignore", under="ignore"):
        ind = orders / sigma / sigma
    out = np.atleast_2d(r)
    if not (np.all(out >= 0) and np.all(out <= ind)):          # never above λ/σ²
        return False
    for row, got in zip(_rows(kw["votes"]), out):
        lq = mp_gnmax_log_q(row, sigma)
        lq_float = float(P.gnmax_log_q(list(row), sigma))
        cap_lq = math.log1p(-1 / len(row))
        if sigma >= 1e17:            # every gap < 2⁵³ ≪ σ: Thm 6 cannot apply, exactly λ/σ²
            if not np.array_equal(got, ind):
                return False
        for lam, x in zip(orders, got):
            if _exactly_checkable(lq_float, sigma, lam, cap_lq) and not _gnmax_ok(x, lq, sigma,
                                                                                 lam):
                return False
    return True


def check_gnmax_rdp_from_log_q(kw, r):
    orders, sigma = _orders(kw), float(kw["sigma"])
    lqs = np.atleast_1d(np.asarray(kw["log_q"], dtype=float)).reshape(-1)
    if not (isinstance(r, np.ndarray) and r.shape == (lqs.size, orders.size)):
        return False
    with np.errstate(over="ignore", under="ignore"):
        ind = orders / sigma / sigma
    if not (np.all(r >= 0) and np.all(r <= ind)):
        return False
    for lq, got in zip(lqs, r):
        if lq == -math.inf:          # documented: q̃ = 0 is a fixed answer
            if not np.all(got == 0):
                return False
            continue
        for lam, x in zip(orders, got):
            if _exactly_checkable(lq, sigma, lam, -1e-300) and not _gnmax_ok(x, lq, sigma, lam):
                return False
    return True


def check_threshold_rdp(kw, r):
    if not _rdp_shape_ok(kw, r):
        return False
    orders, s1, t = _orders(kw), float(kw["sigma1"]), float(kw["threshold"])
    with np.errstate(over="ignore", under="ignore"):
        cap = orders / s1 / s1 / 2.0
    out = np.atleast_2d(r)
    if not (np.all(out >= 0) and np.all(out <= cap)):
        return False
    for row, got in zip(_rows(kw["votes"]), out):
        lq = mp_threshold_log_q(max(row), t, s1)
        with np.errstate(all="ignore"):
            z = (max(row) - t) / s1
        lq_float = float(min(log_ndtr(z), log_ndtr(-z))) if not math.isnan(z) else 0.0
        for lam, x in zip(orders, got):
            if _exactly_checkable(lq_float, s1 * math.sqrt(2), lam, math.log(0.5)):
                with mp.workdps(DPS):
                    c = mp.mpf(lam) / mp.mpf(s1)**2 / 2
                cands = thm6_candidates(lq, mp.sqrt(2) * mp.mpf(s1), lam, c)
                if not any(close(x, v, 1e-6) for v in cands):
                    return False
    return True


def check_lnmax_rdp(kw, r):
    if not _rdp_shape_ok(kw, r):
        return False
    orders, b = _orders(kw), float(kw["scale"])
    base = P.lnmax_rdp_data_independent(orders, b)
    out = np.atleast_2d(r)
    if not (np.all(out >= 0) and np.all(out <= base)):
        return False
    for row, got in zip(_rows(kw["votes"]), out):
        lq = mp_lnmax_log_q(row, b)
        lq_float = float(P.lnmax_log_q(list(row), b))
        for lam, x in zip(orders, got):
            if _exactly_checkable(lq_float, b, lam, math.log1p(-1 / len(row))):
                if not any(close(x, c, 1e-6) for c in mp_lnmax_candidates(lq, b, lam)):
                    return False
    return True


def check_gnmax_ind(kw, r):
    orders, s = _orders(kw), float(kw["sigma"])
    with np.errstate(over="ignore", under="ignore"):
        same = np.array_equal(r, orders / s / s)
    with mp.workdps(DPS):
        refs = [float(mp.mpf(a) / mp.mpf(s) ** 2) for a in orders]
    return same and all(close(x, c, 1e-15) for x, c in zip(r, refs))


def check_threshold_ind(kw, r):
    orders, s = _orders(kw), float(kw["sigma1"])
    with mp.workdps(DPS):
        refs = [float(mp.mpf(a) / mp.mpf(s) ** 2 / 2) for a in orders]
    return all(x >= 0 and close(x, c, 1e-15) for x, c in zip(r, refs))


def check_lnmax_ind(kw, r):
    orders, b = _orders(kw), float(kw["scale"])
    with mp.workdps(DPS):
        eps = 2 / mp.mpf(b)
        refs = [float(min(eps, mp.mpf(a) * eps**2 / 2)) for a in orders]
    # ε = 2/b is rounded first (to a subnormal when b > 9e307)
    return all(close(x, c, 1e-14, 1e-300 if b < 9e307 else 1e-307) for x, c in zip(r, refs))


def check_confident(kw, r):
    orders = _orders(kw)
    if not (isinstance(r, np.ndarray) and r.shape == orders.shape and np.all(r >= 0)):
        return False
    ind = P.confident_gnmax_rdp(**{**kw, "data_dependent": False})
    ok = bool(np.all(r <= ind * (1 + 1e-12) + 1e-300))
    if kw.get("answered") is None:          # E[cost] ≤ the cost of answering every query
        n = len(_rows(kw["votes"]))
        every = P.confident_gnmax_rdp(**{**kw, "answered": np.ones(n, bool)})
        ok &= bool(np.all(r <= every * (1 + 1e-12) + 1e-300))
    return ok


def _check_epsilon(func):
    def check(kw, r):
        n = len(_rows(kw["votes"]))
        orders = np.atleast_1d(np.asarray(kw.get("orders", P.DEFAULT_PATE_ORDERS), dtype=float))
        ok = (type(r.epsilon) is float and r.epsilon >= 0 and r.order in orders
              and 0 <= r.answered <= n and np.all(r.rdp >= 0) and r.delta == kw["delta"])
        if kw.get("data_dependent", True):
            ind = func(**{**kw, "data_dependent": False})
            ok = ok and r.data_dependent and r.epsilon <= ind.epsilon * (1 + 1e-12) + 1e-300
            ok = ok and bool(np.all(r.rdp <= ind.rdp * (1 + 1e-12) + 1e-300))
        return ok
    return check


def check_log_q0(kw, r):
    s, lam = float(kw["sigma"]), float(kw["order"])
    if type(r) is not float or not r <= 0:
        return False
    ind = lam / s / s
    if r == -math.inf:               # Thm 6 never beats λ/σ² at this order
        beta = P.gnmax_rdp_from_log_q([lam], [-1.0, -10.0, -1e3, -1e6], s)[:, 0]
        return bool(np.all(beta == ind) or np.all(beta >= ind * (1 - 1e-12)))
    return bool(P.gnmax_rdp_from_log_q([lam], [r], s)[0, 0] < ind)


def check_conditions(kw, r):
    if not (isinstance(r, tuple) and len(r) == 2 and all(type(x) is bool for x in r)):
        return False
    if R.gnmax_log_q0(kw["sigma"], kw["order"]) == -math.inf:
        return r == (True, True)
    return True


def _neighbours_between_leaders(row):
    """The two histograms one vote away that move a vote between the two leading classes."""
    v = np.array(row, dtype=float)
    i, j = np.argsort(-v, kind="stable")[:2]
    out = []
    for a, b in ((i, j), (j, i)):
        if v[a] > 0:
            w = v.copy()
            w[a] -= 1
            w[b] += 1
            out.append(w)
    return out


def check_gnmax_ls(kw, r):
    lam, s = float(kw["order"]), float(kw["sigma"])
    rows = _rows(kw["votes"])
    out = np.atleast_2d(r)
    n_teachers = kw.get("num_teachers") or max(sum(row) for row in rows)
    if out.shape != (len(rows), n_teachers + 1):
        return False
    if not (np.all(out >= 0) and np.all(out[:, 1:] >= out[:, :-1])
            and np.all(out <= lam / s / s * (1 + 1e-12))):
        return False
    for row, ls in zip(rows, out):               # LS⁽⁰⁾ ≥ the change to two true neighbours
        b = P.gnmax_rdp([lam], list(row), s)[0]
        for w in _neighbours_between_leaders(row):
            if abs(P.gnmax_rdp([lam], w, s)[0] - b) > ls[0] * (1 + 1e-9) + 1e-300:
                return False
    return True


def check_threshold_ls(kw, r):
    lam, s1, t = float(kw["order"]), float(kw["sigma1"]), float(kw["threshold"])
    rows = _rows(kw["votes"])
    out = np.atleast_2d(r)
    n = kw.get("num_teachers") or max(sum(row) for row in rows)
    with np.errstate(over="ignore"):
        cap = lam / s1 / s1 / 2.0
    if out.shape != (len(rows), n + 1) or not (np.all(out >= 0) and np.all(out <= cap)
                                               and np.all(out[:, 1:] >= out[:, :-1])):
        return False
    for row, ls in zip(rows, out):               # LS⁽⁰⁾: the cost depends on the top vote only
        v = max(row)
        cost = {u: P.threshold_rdp([lam], [u, 0], t, s1)[0] for u in (v - 1, v, v + 1)
                if 0 <= u <= n}
        with np.errstate(invalid="ignore"):
            steps = [0.0 if cost[u + 1] == cost[u] else abs(cost[u + 1] - cost[u])  # inf, inf: 0
                     for u in (v - 1, v) if u in cost and u + 1 in cost]
        if not close(float(ls[0]), float(max(steps)), 1e-12):
            return False
    return True


def check_smooth_sensitivity(kw, r):
    ls = np.asarray(kw["local_sensitivities"], dtype=float)
    b = float(kw["beta"])
    if type(r) is not float or not (r >= ls[0] and r <= ls.max()):
        return False
    if ls.size <= 40:
        with mp.workdps(DPS):
            ref = max(mp.mpf(x) * mp.exp(-mp.mpf(b) * d) for d, x in enumerate(ls))
            return close(r, float(ref), 1e-13)
    return True


def check_gnss(kw, r):
    orders, b, s = _orders(kw), float(kw["beta"]), float(kw["sigma_ss"])
    with mp.workdps(DPS):
        bb, ss = mp.mpf(b), mp.mpf(s)
        refs = [float(mp.mpf(a) * mp.exp(2 * bb) / ss**2
                      + (bb * a - mp.log1p(-2 * mp.mpf(a) * bb) / 2) / (mp.mpf(a) - 1))
                for a in orders]
    return all(x > 0 and close(x, c, 1e-12) for x, c in zip(r, refs))


def check_sanitised(kw, r):
    lam, delta = r.order, kw["delta"]
    votes = np.atleast_2d(np.asarray(kw["votes"], dtype=float))
    mask = kw.get("answered")
    mask = np.ones(votes.shape[0], bool) if mask is None else mask
    if kw.get("threshold") is not None:
        rdp = P.confident_gnmax_rdp([lam], votes, kw["threshold"], kw["sigma1"], kw["sigma2"],
                                    answered=mask)[0]
    else:
        rdp = P.gnmax_rdp([lam], votes, kw["sigma2"])[mask, 0].sum()
    private = rdp - math.log(delta) / (lam - 1)
    cost = R.gnss_rdp([lam], r.beta, r.sigma_ss)[0]
    z = np.random.default_rng(kw["rng"]).standard_normal()
    ok = all(type(x) is float for x in (r.released, r.private_epsilon, r.release_cost,
                                        r.smooth_sensitivity, r.beta, r.sigma_ss, r.order))
    ok = ok and r.smooth_sensitivity >= 0 and 0 < r.beta < 0.5 / lam and r.sigma_ss > 0
    ok = ok and r.sigma_ss_from_data == (kw.get("sigma_ss") is None) and r.delta == delta
    ok = ok and close(r.private_epsilon, private, 1e-12) and r.release_cost == cost
    if private == math.inf:                      # an infinite cost is released as inf
        return ok and r.released == math.inf
    with np.errstate(invalid="ignore", over="ignore"):
        released = private + cost + r.smooth_sensitivity * r.sigma_ss * z
    return ok and close(r.released, released, 1e-12)


def _stored(name):
    return lambda kw, r: getattr(r, name) is kw[name]


# ------------------------------------------------------- wrappers for the result records

def pate_privacy_record(epsilon, order, delta, answered, rdp, orders):
    return P.PATEPrivacy(epsilon, order, delta, answered, "answered", True, rdp, orders)


def sanitised_record(released, private_epsilon, release_cost, smooth_sensitivity, beta,
                     sigma_ss, order, delta):
    return R.SanitisedEpsilon(released, private_epsilon, release_cost, smooth_sensitivity,
                              beta, sigma_ss, False, order, delta)


WRAPS = {
    pate_privacy_record: "dpteach.pate.analysis:PATEPrivacy.__init__",
    sanitised_record: "dpteach.pate.release:SanitisedEpsilon.__init__",
}

# ----------------------------------------------------------------------------- the table
V10 = _pad([200, 30, 20])
FIVE = [_pad(r) for r in ([250], [220, 20, 10], [150, 60, 40], [100, 90, 60], [180, 70])]
ORD = [1.5, 2.0, 20.0, 500.0]
GN = {"orders": ORD, "votes": V10, "sigma": 40.0}
TH = {"orders": ORD, "votes": V10, "threshold": 100.0, "sigma1": 40.0}
LN = {"orders": ORD, "votes": V10, "scale": 4.0}
CG = {"orders": ORD, "votes": FIVE, "threshold": 200.0, "sigma1": 150.0, "sigma2": 40.0}
PE = {"votes": FIVE, "sigma2": 40.0, "delta": 1e-5, "threshold": 200.0, "sigma1": 150.0}
PE_ALL = {"votes": FIVE, "sigma2": 40.0, "delta": 1e-5}
LE = {"votes": FIVE, "scale": 4.0, "delta": 1e-5}
V3 = [[200, 30, 20, 0, 0], [100, 90, 60, 0, 0], [250, 0, 0, 0, 0]]
GLS = {"votes": V10, "sigma": 40.0, "order": 20.0, "num_teachers": None}
TLS = {"votes": V10, "threshold": 200.0, "sigma1": 150.0, "order": 20.0, "num_teachers": None}
SAN = {"votes": V3, "answered": np.array([True, False, True]), "sigma2": 40.0, "delta": 1e-5,
       "order": 20.0, "threshold": 200.0, "sigma1": 150.0, "num_teachers": None, "rng": 0}
SAN_FIXED = {**SAN, "sigma_ss": 6.0, "beta": 0.02}
PP = {"epsilon": 1.0, "order": 2.0, "delta": 1e-5, "answered": 3.0, "rdp": np.array([0.1]),
      "orders": np.array([2.0])}
SR = {"released": 1.0, "private_epsilon": 0.9, "release_cost": 0.05, "smooth_sensitivity": 0.01,
      "beta": 0.02, "sigma_ss": 5.0, "order": 20.0, "delta": 1e-5}

CASES = [
    (P.check_votes, {"name": "votes", "votes": [1, 0]}, "votes", VOTES, check_votes_copy),
    # ln q̃ and ln Pr[answered], against mpmath
    (P.gnmax_log_q, {"votes": V10, "sigma": 40.0}, "votes", VOTES, check_gnmax_log_q),
    (P.gnmax_log_q, {"votes": V10, "sigma": 40.0}, "sigma", POS, check_gnmax_log_q),
    (P.gnmax_log_q, {"votes": [[BIG, 0, 5], [0, 0, 0]], "sigma": 40.0}, "sigma",
     POS, check_gnmax_log_q),
    (P.lnmax_log_q, {"votes": V10, "scale": 4.0}, "votes", VOTES, check_lnmax_log_q),
    (P.lnmax_log_q, {"votes": V10, "scale": 4.0}, "scale", POS, check_lnmax_log_q),
    (P.threshold_log_pr_answered, {"votes": V10, "threshold": 100.0, "sigma1": 40.0}, "votes",
     VOTES, check_log_pr_answered),
    (P.threshold_log_pr_answered, {"votes": V10, "threshold": 100.0, "sigma1": 40.0},
     "threshold", NONNEG, check_log_pr_answered),
    (P.threshold_log_pr_answered, {"votes": V10, "threshold": 100.0, "sigma1": 40.0}, "sigma1",
     POS, check_log_pr_answered),
    # data-independent curves, exact
    (P.gnmax_rdp_data_independent, {"orders": ORD, "sigma": 40.0}, "orders", ORDERS,
     check_gnmax_ind),
    (P.gnmax_rdp_data_independent, {"orders": ORD, "sigma": 40.0}, "sigma", POS,
     check_gnmax_ind),
    (P.threshold_rdp_data_independent, {"orders": ORD, "sigma1": 40.0}, "orders", ORDERS,
     check_threshold_ind),
    (P.threshold_rdp_data_independent, {"orders": ORD, "sigma1": 40.0}, "sigma1", POS,
     check_threshold_ind),
    (P.lnmax_rdp_data_independent, {"orders": ORD, "scale": 4.0}, "orders", ORDERS,
     check_lnmax_ind),
    (P.lnmax_rdp_data_independent, {"orders": ORD, "scale": 4.0}, "scale", POS,
     check_lnmax_ind),
    # data-dependent RDP: in [0, data-independent], Thm 6 / Thm 3 in mpmath
    (P.gnmax_rdp, GN, "orders", ORDERS, check_gnmax_rdp),
    (P.gnmax_rdp, GN, "votes", VOTES, check_gnmax_rdp),
    (P.gnmax_rdp, GN, "sigma", POS, check_gnmax_rdp),
    (P.gnmax_rdp, {**GN, "votes": [[BIG, 0], [BIG, 2**52], [0, 0]]}, "sigma", POS,
     check_gnmax_rdp),
    (P.gnmax_rdp_from_log_q, {"orders": ORD, "log_q": -5.66, "sigma": 40.0}, "orders", ORDERS,
     check_gnmax_rdp_from_log_q),
    (P.gnmax_rdp_from_log_q, {"orders": ORD, "log_q": -5.66, "sigma": 40.0}, "log_q", LOG_Q,
     check_gnmax_rdp_from_log_q),
    (P.gnmax_rdp_from_log_q, {"orders": ORD, "log_q": [-5.66, -100.0], "sigma": 40.0}, "sigma",
     POS, check_gnmax_rdp_from_log_q),
    (P.threshold_rdp, TH, "orders", ORDERS, check_threshold_rdp),
    (P.threshold_rdp, TH, "votes", VOTES, check_threshold_rdp),
    (P.threshold_rdp, TH, "threshold", NONNEG, check_threshold_rdp),
    (P.threshold_rdp, TH, "sigma1", POS, check_threshold_rdp),
    (P.lnmax_rdp, LN, "orders", ORDERS, check_lnmax_rdp),
    (P.lnmax_rdp, LN, "votes", VOTES, check_lnmax_rdp),
    (P.lnmax_rdp, LN, "scale", POS, check_lnmax_rdp),
    # a run
    (P.confident_gnmax_rdp, CG, "orders", ORDERS, check_confident),
    (P.confident_gnmax_rdp, CG, "votes", VOTES, check_confident),
    (P.confident_gnmax_rdp, CG, "threshold", NONNEG, check_confident),
    (P.confident_gnmax_rdp, CG, "sigma1", POS, check_confident),
    (P.confident_gnmax_rdp, CG, "sigma2", POS, check_confident),
    (P.confident_gnmax_rdp, CG, "answered", _masks(5), check_confident),
    (P.pate_epsilon, PE, "votes", VOTES, _check_epsilon(P.pate_epsilon)),
    (P.pate_epsilon, PE, "sigma2", POS, _check_epsilon(P.pate_epsilon)),
    (P.pate_epsilon, PE, "sigma1", POS, _check_epsilon(P.pate_epsilon)),
    (P.pate_epsilon, PE, "threshold", NONNEG, _check_epsilon(P.pate_epsilon)),
    (P.pate_epsilon, PE, "delta", OPEN_DELTAS, _check_epsilon(P.pate_epsilon)),
    (P.pate_epsilon, PE, "orders", ORDERS, _check_epsilon(P.pate_epsilon)),
    (P.pate_epsilon, PE, "answered", _masks(5), _check_epsilon(P.pate_epsilon)),
    (P.pate_epsilon, PE_ALL, "sigma2", POS, _check_epsilon(P.pate_epsilon)),
    (P.pate_epsilon, PE_ALL, "votes", VOTES, _check_epsilon(P.pate_epsilon)),
    (P.lnmax_epsilon, LE, "votes", VOTES, _check_epsilon(P.lnmax_epsilon)),
    (P.lnmax_epsilon, LE, "scale", POS, _check_epsilon(P.lnmax_epsilon)),
    (P.lnmax_epsilon, LE, "delta", OPEN_DELTAS, _check_epsilon(P.lnmax_epsilon)),
    (P.lnmax_epsilon, LE, "orders", ORDERS, _check_epsilon(P.lnmax_epsilon)),
    (P.lnmax_epsilon, LE, "answered", _masks(5), _check_epsilon(P.lnmax_epsilon)),
    (pate_privacy_record, PP, "epsilon", NONNEG, _stored("epsilon")),
    (pate_privacy_record, PP, "order", ORDER_VALUES, _stored("order")),
    (pate_privacy_record, PP, "delta", OPEN_DELTAS, _stored("delta")),
    (pate_privacy_record, PP, "answered", NONNEG, _stored("answered")),
    (pate_privacy_record, PP, "rdp", st.lists(NONNEG, min_size=1, max_size=3).map(np.array),
     _stored("rdp")),
    (pate_privacy_record, PP, "orders", ORDERS.map(np.array), _stored("orders")),
    # smooth sensitivity and GNSS
    (R.gnmax_log_q0, {"sigma": 40.0, "order": 20.0}, "sigma", POS, check_log_q0),
    (R.gnmax_log_q0, {"sigma": 40.0, "order": 20.0}, "order", ORDER_VALUES, check_log_q0),
    (R.check_gnmax_conditions, {"sigma": 40.0, "order": 20.0, "num_classes": 10}, "sigma", POS,
     check_conditions),
    (R.check_gnmax_conditions, {"sigma": 40.0, "order": 20.0, "num_classes": 10}, "order",
     ORDER_VALUES, check_conditions),
    (R.check_gnmax_conditions, {"sigma": 40.0, "order": 20.0, "num_classes": 10},
     "num_classes", CLASSES, check_conditions),
    (R.gnmax_local_sensitivities, GLS, "votes", SMALL_VOTES, check_gnmax_ls),
    (R.gnmax_local_sensitivities, GLS, "sigma", POS, check_gnmax_ls),
    (R.gnmax_local_sensitivities, GLS, "order", ORDER_VALUES, check_gnmax_ls),
    (R.gnmax_local_sensitivities, GLS, "num_teachers", TEACHERS, check_gnmax_ls),
    (R.threshold_local_sensitivities, TLS, "votes", SMALL_VOTES, check_threshold_ls),
    (R.threshold_local_sensitivities, TLS, "threshold", NONNEG, check_threshold_ls),
    (R.threshold_local_sensitivities, TLS, "sigma1", POS,
     check_threshold_ls),
    (R.threshold_local_sensitivities, TLS, "order", ORDER_VALUES, check_threshold_ls),
    (R.threshold_local_sensitivities, TLS, "num_teachers", TEACHERS, check_threshold_ls),
    (R.smooth_sensitivity, {"local_sensitivities": [1.0, 3.0, 3.0, 10.0], "beta": 1.0},
     "local_sensitivities", LOCAL_SENSITIVITIES, check_smooth_sensitivity),
    (R.smooth_sensitivity, {"local_sensitivities": [1.0, 3.0, 3.0, 10.0], "beta": 1.0}, "beta",
     POS, check_smooth_sensitivity),
    (R.gnss_rdp, {"orders": ORD, "beta": 1e-4, "sigma_ss": 5.0}, "orders", ORDERS, check_gnss),
    (R.gnss_rdp, {"orders": ORD, "beta": 1e-4, "sigma_ss": 5.0}, "beta", POS, check_gnss),
    (R.gnss_rdp, {"orders": ORD, "beta": 1e-4, "sigma_ss": 5.0}, "sigma_ss", POS, check_gnss),
    (R.sanitised_epsilon, SAN, "votes", SMALL_VOTES.map(lambda v: np.atleast_2d(v)[:3]),
     check_sanitised),
    (R.sanitised_epsilon, SAN, "answered", _masks(3), check_sanitised),
    (R.sanitised_epsilon, SAN, "sigma2", POS, check_sanitised),
    (R.sanitised_epsilon, SAN, "delta", OPEN_DELTAS,
     check_sanitised),
    (R.sanitised_epsilon, SAN, "order", ORDER_VALUES, check_sanitised),
    (R.sanitised_epsilon, SAN, "threshold", NONNEG, check_sanitised),
    (R.sanitised_epsilon, SAN, "sigma1", POS, check_sanitised),
    (R.sanitised_epsilon, SAN, "num_teachers", TEACHERS, check_sanitised),
    (R.sanitised_epsilon, SAN, "beta", POS, check_sanitised),
    (R.sanitised_epsilon, SAN_FIXED, "sigma_ss", POS, check_sanitised),
    (R.sanitised_epsilon, SAN, "rng", SEEDS, check_sanitised),
    (sanitised_record, SR, "released", NONNEG, _stored("released")),
    (sanitised_record, SR, "private_epsilon", NONNEG, _stored("private_epsilon")),
    (sanitised_record, SR, "release_cost", NONNEG, _stored("release_cost")),
    (sanitised_record, SR, "smooth_sensitivity", NONNEG, _stored("smooth_sensitivity")),
    (sanitised_record, SR, "beta", POS, _stored("beta")),
    (sanitised_record, SR, "sigma_ss", POS, _stored("sigma_ss")),
    (sanitised_record, SR, "order", ORDER_VALUES, _stored("order")),
    (sanitised_record, SR, "delta", OPEN_DELTAS, _stored("delta")),
]
# calls with a bisection, a 4,001-point condition check or up to 10⁵ teachers: fewer examples
SLOW = {R.gnmax_log_q0, R.check_gnmax_conditions, R.gnmax_local_sensitivities,
        R.threshold_local_sensitivities, R.sanitised_epsilon}
NOT_NUMERIC = {"name", "conversion", "data_dependent", "convention", "sigma_ss_from_data"}


def _case_id(case):
    func, _, arg = case[:3]
    return f"{func.__module__.rsplit('.', 1)[-1]}.{func.__name__}-{arg}"


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_extreme_values_answer_or_refuse_clearly(case):
    func, valid, arg, strategy, check = case
    examples = 12 if func in SLOW else 40

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(value=strategy)
    def run(value):
        kwargs = {**valid, arg: value}
        out = assert_extreme_ok(func, kwargs, arg, check=lambda r: check(kwargs, r))
        if out is None:                        # refused: the message must name an argument
            with pytest.raises((ParameterError, TypeError)) as info:
                func(**kwargs)
            names = [arg, *valid, valid.get("name", arg)]
            assert any(re.search(rf"(?<![A-Za-z0-9_]){n}(?![A-Za-z0-9_])", str(info.value))
                       for n in names), f"{func.__name__}({arg}=...) refused: {info.value}"

    run()


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_valid_baseline_passes_its_check(case):
    # the check is not vacuous: the valid call answers and passes it
    func, valid, _, _, check = case
    assert check(dict(valid), func(**valid))


def test_checks_can_fail():
    # the references catch a wrong answer: a value 1e-5 off, a negative or a too-large RDP
    kw = {"orders": [20.0], "votes": V10, "sigma": 40.0}
    good = P.gnmax_rdp(**kw)
    assert check_gnmax_rdp(kw, good) and not check_gnmax_rdp(kw, good * (1 + 1e-5))
    assert not check_gnmax_rdp(kw, good * (1 - 1e-5)) and not check_gnmax_rdp(kw, -good)
    assert not check_gnmax_log_q({"votes": V10, "sigma": 40.0}, -5.66)
    san = R.sanitised_epsilon(**SAN)
    assert check_sanitised(SAN, san)
    assert not check_sanitised({**SAN, "rng": 1}, san)          # another Z
    assert not check_sanitised(SAN, R.sanitised_epsilon(**{**SAN, "sigma2": 41.0}))


# ------------------------------------------------------------------------------ coverage

def _public_callables():
    """'module:qualname' → signature parameters, for every public function, class
    constructor and public method defined in the modules (exceptions excluded)."""
    found = {}
    for module in MODULES:
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj):
                found[f"{module.__name__}:{name}"] = list(inspect.signature(obj).parameters)
            elif inspect.isclass(obj) and not issubclass(obj, BaseException):
                init = list(inspect.signature(obj).parameters)
                found[f"{module.__name__}:{name}.__init__"] = init
                for meth, fn in vars(obj).items():
                    if not meth.startswith("_") and inspect.isfunction(fn):
                        params = [p for p in inspect.signature(fn).parameters if p != "self"]
                        found[f"{module.__name__}:{name}.{meth}"] = params
    return found


def _covered():
    keys, params = set(), set()
    for func, _, arg, *_ in CASES:
        key = WRAPS.get(func, f"{func.__module__}:{func.__name__}")
        keys.add(key)
        params.add((key, arg))
    return keys, params


def test_every_public_callable_and_numeric_parameter_is_covered():
    found = _public_callables()
    assert len(found) >= 20
    keys, params = _covered()
    missing = sorted(k for k in found if k not in keys)
    assert not missing, "public callables without an extreme-value test: " + ", ".join(missing)
    untested = sorted(f"{k}({p})" for k, ps in found.items()
                      for p in ps if p not in NOT_NUMERIC and (k, p) not in params)
    assert not untested, "numeric parameters without an extreme-value test: " + ", ".join(untested)
    stale = sorted(k for k in keys if k not in found)
    assert not stale, "rows for callables that no longer exist: " + ", ".join(stale)
    for module in MODULES:
        importlib.import_module(module.__name__)


# ------------------------------------------------------------- exact values at the limits

def test_huge_sigma_is_exactly_data_independent():
    # every gap < 2⁵³ is negligible against σ ≥ 1e17: q̃ is at (or near) its cap, Thm 6's
    # q̃ ≤ ~e⁻² condition fails, and the data-dependent cost is λ/σ² to the last bit
    orders = np.array(P.DEFAULT_PATE_ORDERS)
    votes = [[BIG, 0], _pad([BIG]), [0, 0], [BIG, BIG - 1], [1] + [0] * 9_999]
    for sigma in (1e17, 1e100, 1e300, 1e308):
        ind = P.gnmax_rdp_data_independent(orders, sigma)
        for v in votes:
            assert np.array_equal(P.gnmax_rdp(orders, v, sigma), ind)
        priv = P.pate_epsilon(votes[1], sigma2=sigma, delta=1e-5)
        assert priv.epsilon == P.pate_epsilon(votes[1], sigma2=sigma, delta=1e-5,
                                              data_dependent=False).epsilon
    # k classes and σ → ∞: q̃ = 1 − 1/k exactly (the cap) for k ≥ 3
    assert P.gnmax_log_q(_pad([BIG]), 1e300) == math.log1p(-0.1)


def test_tiny_sigma_with_a_clear_winner_costs_nothing_at_low_orders():
    # σ ≪ gap: a wrong answer has probability e^{−gap²/(4σ²)}; Thm 6 gives 0 at orders
    # λ − 1 < μ₂²/(2μ₂ + 1) ≈ gap_min/4 (here 170/4 = 42.5) and λ/σ² above (K5 aside)
    v = _pad([200, 30, 20])
    for sigma in (1e-3, 1e-16, 1e-100, 1e-150):
        r = P.gnmax_rdp([2.0, 20.0, 40.0], v, sigma)
        assert np.all(r == 0.0)
        big = P.gnmax_rdp([100.0], v, sigma)[0]
        assert big == pytest.approx(100 / sigma**2, rel=1e-12)
    # the threshold step: top 250 ≫ T = 100 with tiny σ₁ always answers: cost 0 at low orders
    assert np.all(P.threshold_rdp([2.0, 20.0], [250, 0], 100, 1e-3) == 0.0)
    assert np.all(P.lnmax_rdp([2.0, 20.0], v, 1e-3) == 0.0)


def test_huge_counts_up_to_two_to_the_53():
    orders = np.array(P.DEFAULT_PATE_ORDERS)
    r = P.gnmax_rdp(orders, [BIG, BIG - 1], 40)          # a gap of one vote: as [1, 0]
    assert np.array_equal(r, P.gnmax_rdp(orders, [1, 0], 40))
    assert P.gnmax_log_q([BIG, 0], 40) == pytest.approx(float(mp_gnmax_log_q((BIG, 0), 40.0)),
                                                      rel=1e-12)
    assert np.all(P.gnmax_rdp(orders, [BIG, 0], 40) == 0.0)
    with pytest.raises(ParameterError, match="votes"):
        P.gnmax_rdp(orders, [2**53, 0], 40)
    with pytest.raises(ParameterError, match="votes"):
        P.check_votes("votes", np.array([2**53 + 1, 0], dtype=np.int64))
    # 10,000 classes, all zero: q̃ is the cap 1 − 1/k, the cost data-independent
    assert P.gnmax_log_q([0] * 10_000, 40) == math.log1p(-1e-4)
    assert np.array_equal(P.gnmax_rdp(orders, [0] * 10_000, 40),
                          P.gnmax_rdp_data_independent(orders, 40))
    with pytest.raises(ParameterError, match="votes"):
        P.gnmax_log_q([0] * 10_001, 40)


def test_threshold_far_above_or_below_every_vote():
    # T ≫ max vote: never answered (ln Pr = −inf), the step is certain: cost 0
    assert P.threshold_log_pr_answered([BIG, 0], FMAX, 1.0) == -math.inf
    assert np.all(P.threshold_rdp(P.DEFAULT_PATE_ORDERS, [BIG, 0], 1e300, 150) == 0.0)
    e = P.pate_epsilon(FIVE, sigma2=40, delta=1e-5, threshold=1e300, sigma1=150)
    assert e.answered == 0.0 and e.epsilon == 0.0
    # T = 0 and a huge top: always answered
    assert P.threshold_log_pr_answered([BIG, 0], 0.0, 1.0) == 0.0


def test_num_teachers_at_its_limits():
    w = [250, 0]
    assert R.gnmax_local_sensitivities(w, 40, 20, num_teachers=R.MAX_TEACHERS).shape == (100_001,)
    with pytest.raises(ParameterError, match="num_teachers"):
        R.gnmax_local_sensitivities(w, 40, 20, num_teachers=R.MAX_TEACHERS + 1)
    with pytest.raises(ParameterError, match="num_teachers"):
        R.gnmax_local_sensitivities(w, 40, 20, num_teachers=249)       # fewer than the votes
    one = R.gnmax_local_sensitivities([1, 0], 40, 20, num_teachers=1)
    assert one.shape == (2,) and np.all(one >= 0)
    with pytest.raises(ParameterError, match="num_teachers"):
        R.sanitised_epsilon([[BIG, 0]], sigma2=40, delta=1e-5, order=20)


def test_answered_nothing_costs_only_the_threshold_step():
    none = np.zeros(5, bool)
    assert P.pate_epsilon(FIVE, sigma2=40, delta=1e-5, answered=none).epsilon == 0.0
    thr = P.threshold_rdp(P.DEFAULT_PATE_ORDERS, FIVE, 200, 150).sum(axis=0)
    got = P.confident_gnmax_rdp(P.DEFAULT_PATE_ORDERS, FIVE, 200, 150, 40, answered=none)
    assert np.array_equal(got, thr)
    s = R.sanitised_epsilon(V3, np.zeros(3, bool), sigma2=40, delta=1e-5, order=20, rng=0,
                            sigma_ss=6.0)
    assert s.smooth_sensitivity == 0.0 and s.released == s.private_epsilon + s.release_cost


# ------------------------------------------------- regressions found while building this file
# Each reproduced a defect of the first version of the modules (K1–K7 in the docstring);
# all are fixed, and these keep them fixed.

def test_k1_thm6_is_accurate_near_order_one_and_for_huge_sigma():
    for lq, sigma, lam in [(-5.0, 40.0, 1 + 2**-52), (-30.0, 150.0, 1 + 2**-52),
                           (-100.0, 1e16, 20.0), (-3.0, 1e18, 2.0)]:
        (ref,) = thm6_candidates(lq, sigma, lam, mp.mpf(lam) / mp.mpf(sigma)**2)
        assert P.gnmax_rdp_from_log_q([lam], [lq], sigma)[0, 0] == pytest.approx(ref, rel=1e-6)
    # from legal votes: the cost of [6e15, 0] at σ = 3e14 was understated by 8%
    lq = mp_gnmax_log_q((6 * 10**15, 0), 3e14)
    (ref,) = thm6_candidates(lq, 3e14, 2.0, mp.mpf(2) / mp.mpf(3e14)**2)
    assert P.gnmax_rdp([2.0], [6 * 10**15, 0], 3e14)[0] == pytest.approx(ref, rel=1e-6)
    # LNMax: [2⁵³ − 1, 0] at scale 1e14, understated by 29% at λ = 2
    lq = mp_lnmax_log_q((BIG, 0), 1e14)
    (ref,) = mp_lnmax_candidates(lq, 1e14, 2.0)
    assert P.lnmax_rdp([2.0], [BIG, 0], 1e14)[0] == pytest.approx(ref, rel=1e-6)


def test_k2_lnmax_rdp_tiny_scale_is_not_nan():
    assert not np.any(np.isnan(P.lnmax_rdp([2.0, 20.0, 500.0], _pad([200, 30, 20]), 2.2e-308)))


def test_k3_sanitised_epsilon_subnormal_delta():
    s = R.sanitised_epsilon(V3, sigma2=40, delta=5e-324, order=20, rng=0, sigma_ss=6.0)
    expected = P.gnmax_rdp([20.0], V3, 40)[:, 0].sum() - math.log(5e-324) / 19
    assert s.private_epsilon == pytest.approx(expected, rel=1e-12)


def test_k4_sanitised_epsilon_tiny_sigma1_releases_inf():
    s = R.sanitised_epsilon(V3, sigma2=40, delta=1e-5, order=20, rng=0, threshold=200,
                            sigma1=1e-200)
    assert s.private_epsilon == math.inf and s.released == math.inf   # top = T costs λ/(2σ₁²)


def test_k5_underflowed_log_q_is_not_free_at_high_orders():
    v = _pad([200, 30, 20])
    # at σ = 1e-150 (ln q̃ finite) the cost at λ = 100 is λ/σ²; at 1e-160 (ln q̃ = −inf) it
    # must not drop to 0: the true divergence only grows as σ shrinks
    assert P.gnmax_rdp([100.0], v, 1e-150)[0] == pytest.approx(1e302, rel=1e-12)
    assert P.gnmax_rdp([100.0], v, 1e-160)[0] == math.inf
    # the threshold step, top = T + 1 and σ₁ → 0: the neighbour with top = T answers with
    # probability ½, so the divergence is infinite (1 − p underflows), not 0
    assert P.threshold_rdp([2.0], [201, 0], 200, 1e-100)[0] == pytest.approx(1e200)
    assert P.threshold_rdp([2.0], [201, 0], 200, 1e-200)[0] == math.inf


def test_k6_never_answered_query_with_infinite_gnmax_cost():
    r = P.confident_gnmax_rdp([2.0, 20.0], [1, 0], 1e300, 150.0, 1e-300, data_dependent=False)
    # Pr[answered] = 0: GNMax is never run, only the threshold step is paid
    assert np.array_equal(r, P.threshold_rdp_data_independent([2.0, 20.0], 150.0))


def test_k7_threshold_local_sensitivities_without_nan():
    ls = R.threshold_local_sensitivities(_pad([200, 30, 20]), 200, 2e-154, 20)
    assert not np.any(np.isnan(ls))
