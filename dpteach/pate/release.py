"""Publishing PATE's data-dependent ε: smooth sensitivity and the GNSS mechanism.

The data-dependent RDP of a PATE run (:mod:`dpteach.pate.analysis`) is a function of the
private votes: when the teachers agree, it is small, and so its value says that they agreed.
[PSMRTE18]_ (Sec. 4, App. C) release it with *Gaussian noise scaled to its smooth
sensitivity* (GNSS, after Nissim, Raskhodnikova and Smith [NRS07]_):

1. the total RDP at one order λ, f(x) = Σ_i β_i(x), with β_i the cost of query i;
2. its local sensitivity at distance d, LS⁽ᵈ⁾(x): the largest change of f between two
   neighbouring vote sets, over all vote sets within d changed teachers of x. One changed
   teacher moves one vote *in every query*, so LS⁽ᵈ⁾ of the sum is at most the sum of the
   queries' LS⁽ᵈ⁾;
3. the smooth sensitivity SS_b(x) = max_d e^{−b·d}·LS⁽ᵈ⁾(x), for a smoothness b (called β in
   the paper; ``beta`` here);
4. the release f(x) + SS_b(x)·σ_s·Z, Z ~ N(0, 1), which is (λ, r)-RDP with
   r = λe^{2b}/σ_s² + (bλ − ½ ln(1 − 2λb))/(λ − 1) for 1 < λ < 1/(2b) ([PSMRTE18]_, Thm 23).

**What is private.** :attr:`SanitisedEpsilon.released` is the only number here that may be
published: it is f plus GNSS noise, shifted by public constants (the δ term and the release's
own cost r). ``private_epsilon``, ``smooth_sensitivity`` and (when chosen from the data)
``sigma_ss`` are functions of the votes and are kept for teaching only. The released value is
a noisy *estimate* of the run's ε, not an upper bound: it can fall below the truth.

**GNMax.** β(q̃) is Thm 6 of [PSMRTE18]_ as a function of the bound q̃ (Prop. 7). By their
Prop. 13, q̃ of a neighbour lies in [BL(q̃), BU(q̃)], with, writing q̃/(k−1) = Φ̄(u),
BU = (k−1)·Φ̄(u − √2/σ) and BL = (k−1)·Φ̄(u + √2/σ) (each gap moves by at most 2); d changed
teachers shift u by at most d·√2/σ. If β is non-decreasing on (0, q₀] (condition C5; q₀ is
where Thm 6 stops beating λ/σ²) and β(BU(q)) − β(q) is non-decreasing on (0, q₁], q₁ = BL(q₀)
(C6), the local sensitivity LS(q) = max(β(BU(q)) − β(q), β(q) − β(BL(q))) rises up to q₁,
stays at most LS(q₁) on [q₁, q₀] and falls after q₀ ([PSMRTE18]_, App. C, Algorithms 3–5).
So the largest LS over the reachable interval [q_lo, q_hi] is LS(q_hi) if q_hi ≤ q₁, LS(q_lo)
if q_lo ≥ q₀, and LS(q₁) otherwise. :func:`check_gnmax_conditions` checks C5 and C6 on a
dense grid, for every analysis. Where C6 fails (e.g. at σ = 40, λ = 60), the looser bound
β(q_hi') − β(q_lo') over the interval one step wider is used, which needs C5 only; where C5
fails, the order is refused. This bound walks q̃ rather than the histogram (the paper's
Algorithm 4 walks the votes), so it is never smaller than the paper's.

**Threshold step.** Its data-dependent cost depends only on the largest vote v (an integer
in 0…N), so LS⁽ᵈ⁾ is the largest change between v' and v' ± 1 for |v' − v| ≤ d: exact.

The release is of the *answered* convention (the threshold step on every query, GNMax on the
answered ones), whose sensitivity is a plain sum.

References
----------
.. [PSMRTE18] N. Papernot, S. Song, I. Mironov, A. Raghunathan, K. Talwar, Ú. Erlingsson.
   "Scalable private learning with PATE." ICLR 2018 (arXiv:1802.08908): Thm 6, Prop. 7, 10, 13,
   App. C (conditions C5–C6, Algorithms 3–5), Thm 23 (GNSS).
.. [NRS07] K. Nissim, S. Raskhodnikova, A. Smith. "Smooth sensitivity and sampling in private
   data analysis." STOC 2007 (smooth sensitivity; Def. 2.1 and Lemma 2.3).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr, ndtri_exp

from .._validation import (DELTA_POSITIVE, FLAG, RNG, SCALE, array, integer, refuse,
                           real, validate)
from .aggregators import THRESHOLD
from .analysis import (ANSWERED, ORDER, ORDERS, SPENT, gnmax_log_q, gnmax_rdp_from_log_q,
                       threshold_rdp)
from .teachers import MAX_CLASSES, VOTES

__all__ = ["MAX_TEACHERS", "MAX_WORK", "check_gnmax_conditions",
           "gnmax_local_sensitivities", "threshold_local_sensitivities",
           "smooth_sensitivity", "gnss_rdp", "SanitisedEpsilon", "sanitised_epsilon"]

#: Largest number of teachers N the smooth-sensitivity analysis takes.
MAX_TEACHERS = 100_000
#: Largest queries × (N + 1) of one analysis or release.
MAX_WORK = 2_000_000

#: N, the number of teachers (None: the largest row total of the votes)
N_TEACHERS = integer(1, MAX_TEACHERS, example=250).or_none()
#: the smoothness b of the smooth sensitivity (``beta``)
BETA = real(1e-6, 100.0, example=0.02)
LOCAL_SENSITIVITIES = array(ndim=1, low=0.0, max_size=MAX_TEACHERS + 1,
                            example=[1.0, 3.0, 3.0, 10.0])


@validate(sigma=SCALE, order=ORDER, n_classes=integer(2, MAX_CLASSES, example=10))
def check_gnmax_conditions(sigma: float, order: float, n_classes: int) -> tuple[bool, bool]:
    """Conditions C5 and C6 of [PSMRTE18]_ (App. C), checked on a grid of 4,001 values of ln q̃.

    C5: β(q̃) is non-decreasing on (0, q₀]. C6: β(BU(q̃)) − β(q̃) is non-decreasing on (0, q₁].
    The grid spans ln q̃ from min(8·ln q₀, ln q₀ − 200) to ln q₀; a step down larger than 10⁻¹⁰
    of λ/σ² fails. Returns ``(c5, c6)``.
    """
    return _conditions(sigma, order, n_classes)


@validate(votes=VOTES, sigma=SCALE, order=ORDER, n_teachers=N_TEACHERS)
def gnmax_local_sensitivities(votes, sigma: float, order: float,
                              n_teachers: int | None = None) -> np.ndarray:
    """Upper bounds on LS⁽ᵈ⁾ of one GNMax query's data-dependent RDP at ``order``, d = 0…N.

    See the module docstring (q̃ walked by Prop. 13 of [PSMRTE18]_; valid under C5–C6, which are
    checked). **Not private.** ``n_teachers`` N defaults to the largest row total of
    ``votes``; queries × (N + 1) at most :data:`MAX_WORK`. Shape (N + 1,) for one histogram,
    (queries, N + 1) for several.
    """
    v = np.atleast_2d(votes)
    teachers = _teachers(v, n_teachers)
    out = _gnmax_ls(np.atleast_1d(gnmax_log_q(v, sigma)), v.shape[1], sigma, order, teachers)
    return out[0] if votes.ndim == 1 else out


@validate(votes=VOTES, threshold=THRESHOLD, sigma1=SCALE, order=ORDER, n_teachers=N_TEACHERS)
def threshold_local_sensitivities(votes, threshold: float, sigma1: float, order: float,
                                  n_teachers: int | None = None) -> np.ndarray:
    """LS⁽ᵈ⁾ of the threshold step's data-dependent RDP, d = 0…N.

    Exact: the cost (:func:`~dpteach.pate.analysis.threshold_rdp`) depends only on the largest
    vote v, and LS⁽ᵈ⁾ is the largest change between v' and v' ± 1 over |v' − v| ≤ d,
    0 ≤ v' ≤ N ([PSMRTE18]_, App. C). **Not private.** Shapes and limits as
    :func:`gnmax_local_sensitivities`.
    """
    v = np.atleast_2d(votes)
    teachers = _teachers(v, n_teachers)
    table = _threshold_table(teachers, threshold, sigma1, order)
    out = _threshold_ls(v.max(axis=1), table)
    return out[0] if votes.ndim == 1 else out


@validate(local_sensitivities=LOCAL_SENSITIVITIES, beta=BETA)
def smooth_sensitivity(local_sensitivities, beta: float) -> float:
    """SS_b = max_d e^{−b·d}·LS⁽ᵈ⁾ ([NRS07]_, Def. 2.1 with Lemma 2.3's bound).

    ``local_sensitivities`` is LS⁽ᵈ⁾ for d = 0, 1, …, N (non-decreasing in d when it is the
    maximum over a growing set, as the functions here return; beyond N it no longer grows).
    """
    d = np.arange(local_sensitivities.size)
    return float(np.max(local_sensitivities * np.exp(-beta * d)))


@validate(orders=ORDERS, beta=BETA, sigma_ss=SCALE)
def gnss_rdp(orders, beta: float, sigma_ss: float) -> np.ndarray:
    """RDP of releasing f(x) + SS_b(x)·σ_s·N(0, 1) ([PSMRTE18]_, Thm 23).

    r(λ) = λe^{2b}/σ_s² + (bλ − ½ ln(1 − 2λb))/(λ − 1), for orders 1 < λ < 1/(2b).
    """
    if np.any(orders * beta >= 0.5):
        raise refuse("orders", orders, f"below 1/(2·beta) = {1 / (2 * beta):.6g} for GNSS")
    return (orders * math.exp(2.0 * beta) / sigma_ss / sigma_ss
            + (beta * orders - 0.5 * np.log1p(-2.0 * (orders * beta))) / (orders - 1.0))


@validate(released=real(-math.inf, math.inf), private_epsilon=SPENT, release_cost=SPENT,
          smooth_sensitivity=SPENT, beta=BETA, sigma_ss=real(0.0, math.inf, low_open=True),
          sigma_ss_from_data=FLAG,
          order=ORDER, delta=DELTA_POSITIVE)
@dataclass(frozen=True)
class SanitisedEpsilon:
    """A release of PATE's data-dependent ε (see :func:`sanitised_epsilon`).

    Only ``released`` may be published. The other numbers depend on the private votes.
    """

    released: float            # publishable: private_epsilon + release_cost + SS·σ_s·Z
    private_epsilon: float     # NOT publishable: data-dependent ε of the answers at `order`
    release_cost: float        # r(λ) of the GNSS release (public given beta, sigma_ss)
    smooth_sensitivity: float  # NOT publishable
    beta: float
    sigma_ss: float
    sigma_ss_from_data: bool   # True: sigma_ss was tuned on the votes (a demonstration only)
    order: float
    delta: float


@validate(votes=VOTES, answered=ANSWERED, sigma2=SCALE, delta=DELTA_POSITIVE, order=ORDER,
          threshold=THRESHOLD.or_none(), sigma1=SCALE.or_none(), n_teachers=N_TEACHERS,
          beta=BETA.or_none(), sigma_ss=SCALE.or_none(), rng=RNG)
def sanitised_epsilon(votes, answered=None, *, sigma2: float, delta: float, order: float,
                      threshold: float | None = None, sigma1: float | None = None,
                      n_teachers: int | None = None, beta: float | None = None,
                      sigma_ss: float | None = None, rng=None) -> SanitisedEpsilon:
    """Release the data-dependent ε of a (Confident-)GNMax run with GNSS ([PSMRTE18]_, Sec. 4).

    The analysed quantity is the answered-convention RDP at ``order`` λ: the threshold step's
    data-dependent cost on every query (if ``threshold``/``sigma1`` are given) plus GNMax's on
    the ``answered`` ones (all when ``answered`` is None). ``private_epsilon`` converts it with
    ln(1/δ)/(λ − 1); ``released`` adds the GNSS cost r(λ) (:func:`gnss_rdp`) and the noise
    SS_b·σ_s·Z. The whole (answers and release) is then a data-dependent (λ, f + r)-RDP
    guarantee of which ``released`` is a private, unbiased estimate.

    Choose λ without looking at the data (e.g. the best order of the data-independent
    analysis): the order is public. ``n_teachers`` N defaults to the largest row total, with
    queries × (N + 1) at most :data:`MAX_WORK`. ``beta`` defaults to 0.4/λ (it must be
    below 1/(2λ)). ``sigma_ss`` defaults to the minimiser of r(λ) + 2·SS·σ_s, as in the
    reference code — a choice that looks at the votes, flagged by ``sigma_ss_from_data``;
    pass a fixed σ_s for a release whose every parameter is public.
    """
    v = np.atleast_2d(votes)
    if (threshold is None) != (sigma1 is None):
        raise refuse("threshold", threshold, f"given with sigma1 or both omitted (sigma1={sigma1})")
    if answered is not None and answered.shape != (v.shape[0],):
        raise refuse("answered", answered, f"one entry per query ({v.shape[0]})")
    mask = np.ones(v.shape[0], dtype=bool) if answered is None else answered
    if beta is None:
        beta = 0.4 / order
    elif beta >= 0.5 / order:
        raise refuse("beta", beta, f"below 1/(2·order) = {0.5 / order:.6g} (order={order})")
    teachers = _teachers(v, n_teachers)

    lq = np.atleast_1d(gnmax_log_q(v, sigma2))
    total = float(_beta(lq[mask], sigma2, order).sum())
    ls = np.zeros(teachers + 1)
    rows = np.flatnonzero(mask)
    step = max(1, _CHUNK_CELLS // (teachers + 1))
    for start in range(0, rows.size, step):
        idx = rows[start:start + step]
        ls += _gnmax_ls(lq[idx], v.shape[1], sigma2, order, teachers, "sigma2").sum(axis=0)
    if threshold is not None and sigma1 is not None:
        total += float(threshold_rdp([order], v, threshold, sigma1)[:, 0].sum())
        table = _threshold_table(teachers, threshold, sigma1, order)
        tops = v.max(axis=1)
        for start in range(0, tops.size, step):
            ls += _threshold_ls(tops[start:start + step], table).sum(axis=0)
    private = total - math.log(delta) / (order - 1)
    ss = smooth_sensitivity(ls, beta)
    from_data = sigma_ss is None
    if sigma_ss is None:
        # argmin over σ of λe^{2b}/σ² + 2·SS·σ: σ³ = λe^{2b}/SS
        sigma_ss = (order * math.exp(2 * beta) / ss) ** (1 / 3) if ss > 0 else 1.0
    cost = float(gnss_rdp.__wrapped__(np.array([order]), beta, sigma_ss)[0])
    released = private + cost + ss * sigma_ss * float(rng.standard_normal())
    return SanitisedEpsilon(float(released), float(private), cost, ss, float(beta),
                            float(sigma_ss), from_data, order, delta)


# ------------------------------------------------------------------------------ helpers
_CHUNK_CELLS = 500_000         # cells per chunk while summing over queries


def _beta(log_q: np.ndarray, sigma: float, order: float) -> np.ndarray:
    """β(q̃) at one order for an array of ln q̃ of any shape."""
    lq = np.asarray(log_q, dtype=float)
    return gnmax_rdp_from_log_q.__wrapped__(np.array([order]), lq.reshape(-1),
                                            sigma)[:, 0].reshape(lq.shape)


@functools.lru_cache(maxsize=256)
def _log_q0(sigma: float, order: float) -> float:
    """ln q₀: below it Thm 6 of [PSMRTE18]_ beats λ/σ², above it not (bisection to a relative
    10⁻¹³; −inf if it beats λ/σ² for no vote histogram at this order)."""
    ind = order / sigma / sigma

    def below(lq: float) -> bool:
        return bool(_beta(np.array([lq]), sigma, order)[0] < ind * (1.0 - 1e-12))

    # Votes below 2⁵³ give ln q̃ ≥ ln Φ(−2⁵³/(σ√2)) > −(2⁵³/σ)² − 2 (Prop. 7): if Thm 6 does
    # not beat λ/σ² above that, it beats it for no vote histogram.
    floor = -((2.0**53 / sigma) ** 2) - 2.0
    lo = -1.0
    while not below(lo):
        lo *= 2.0
        if lo < floor:
            return -math.inf
    hi = 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if below(mid):
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * abs(lo):
            break
    return lo


def _bounds(log_q: np.ndarray, k: int, shift: np.ndarray | float):
    """ln BL and ln BU of [PSMRTE18]_ Prop. 13, with u moved by ``shift`` (= d·√2/σ)."""
    log_k1 = math.log(k - 1)
    cap = math.log1p(-1.0 / k)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        u = -ndtri_exp(np.minimum(log_q, cap) - log_k1)
        hi = np.minimum(log_k1 + log_ndtr(shift - u), cap)
        lo = log_k1 + log_ndtr(-u - shift)
    return lo, hi


def _ls_at(log_q: np.ndarray, sigma: float, order: float, k: int) -> np.ndarray:
    """LS(q) = max(β(BU(q)) − β(q), β(q) − β(BL(q)))."""
    lo, hi = _bounds(log_q, k, math.sqrt(2.0) / sigma)
    b = _beta(log_q, sigma, order)
    return np.maximum(_beta(hi, sigma, order) - b, b - _beta(lo, sigma, order))


@functools.lru_cache(maxsize=256)
def _conditions(sigma: float, order: float, k: int) -> tuple[bool, bool]:
    lq0 = _log_q0(sigma, order)
    if not math.isfinite(lq0):
        return True, True
    top = min(lq0, math.log1p(-1.0 / k))
    grid = np.linspace(min(8.0 * top, top - 200.0), top, 4001)
    tol = 1e-10 * order / sigma / sigma
    b = _beta(grid, sigma, order)
    c5 = bool(np.all(np.diff(b) >= -tol))
    lq1 = float(_bounds(np.array([top]), k, math.sqrt(2.0) / sigma)[0][0])
    g = grid[grid <= lq1]
    if g.size < 2:
        return c5, True
    _, hi = _bounds(g, k, math.sqrt(2.0) / sigma)
    c6 = bool(np.all(np.diff(_beta(hi, sigma, order) - _beta(g, sigma, order)) >= -tol))
    return c5, c6


def _require_c5(sigma: float, order: float, k: int, name: str = "sigma") -> bool:
    """Raise unless C5 holds; return whether C6 holds too."""
    c5, c6 = _conditions(sigma, order, k)
    if not c5:
        raise refuse(name, sigma, f"such that condition C5 ([PSMRTE18], App. C) holds at "
                                  f"order={order}, {k} classes; choose another order")
    return c6


def _gnmax_ls(log_q: np.ndarray, k: int, sigma: float, order: float, teachers: int,
              name: str = "sigma") -> np.ndarray:
    lq0 = _log_q0(sigma, order)
    d = np.arange(teachers + 1, dtype=float)
    if not math.isfinite(lq0):
        return np.zeros((log_q.size, d.size))
    if not _require_c5(sigma, order, k, name):
        # Without C6: every vote set within d of x has q̃ in [lo_d, hi_d], its neighbours in
        # [lo_{d+1}, hi_{d+1}], and β is monotone (C5), so β(hi_{d+1}) − β(lo_{d+1}) bounds LS⁽ᵈ⁾.
        lo, hi = _bounds(log_q.reshape(-1, 1), k, (d.reshape(1, -1) + 1) * math.sqrt(2.0) / sigma)
        return np.maximum(_beta(hi, sigma, order) - _beta(lo, sigma, order), 0.0)
    top = min(lq0, math.log1p(-1.0 / k))
    lq1 = float(_bounds(np.array([top]), k, math.sqrt(2.0) / sigma)[0][0])
    plateau = float(_ls_at(np.array([lq1]), sigma, order, k)[0])
    lo, hi = _bounds(log_q.reshape(-1, 1), k, d.reshape(1, -1) * math.sqrt(2.0) / sigma)
    out = np.full(lo.shape, plateau)
    left = hi <= lq1
    right = ~left & (lo >= lq0)
    out[left] = _ls_at(hi[left], sigma, order, k)
    out[right] = _ls_at(lo[right], sigma, order, k)
    return out


def _teachers(votes: np.ndarray, n_teachers: int | None) -> int:
    """N: at least the largest row total of ``votes``, and queries × (N + 1) ≤ MAX_WORK."""
    top = int(votes.sum(axis=-1).max())
    teachers = top if n_teachers is None else n_teachers
    most = min(MAX_TEACHERS, MAX_WORK // votes.shape[0] - 1)
    if not max(top, 1) <= teachers <= most:
        raise refuse("n_teachers", teachers, f"in [{max(top, 1)}, {most}] (≥ the votes; "
                     f"queries × (N + 1) ≤ {MAX_WORK:,})")
    return teachers


def _threshold_table(teachers: int, threshold: float, sigma1: float, order: float) -> np.ndarray:
    """LS of the threshold step's RDP at each largest vote v = 0…N (neighbours v ± 1)."""
    two = np.zeros((teachers + 1, 2))
    two[:, 0] = np.arange(teachers + 1, dtype=float)
    b = threshold_rdp.__wrapped__(np.array([order]), two, threshold, sigma1)[:, 0]
    step = np.abs(np.diff(b))
    ls = np.zeros(teachers + 1)
    ls[:-1] = step
    ls[1:] = np.maximum(ls[1:], step)
    return ls


def _threshold_ls(tops: np.ndarray, table: np.ndarray) -> np.ndarray:
    n = table.size
    d = np.arange(n)
    idx_lo = np.clip(tops.reshape(-1, 1) - d, 0, n - 1).astype(int)
    idx_hi = np.clip(tops.reshape(-1, 1) + d, 0, n - 1).astype(int)
    # The window [top − d, top + d] grows with d: its maximum is the running maximum along d
    # of the values at its two ends.
    left = np.maximum.accumulate(table[idx_lo], axis=1)
    right = np.maximum.accumulate(table[idx_hi], axis=1)
    return np.maximum(left, right)


# Implementation notes: docs/library/accounting.md (pate.release).
