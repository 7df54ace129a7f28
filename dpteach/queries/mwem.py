"""Multiplicative weights for private query release: online PMW and offline MWEM.

Answering each of k counting queries independently costs noise growing with k
(:mod:`dpteach.queries.independent`). The way out is to keep a **synthetic distribution** over
the universe, answer from it, and spend budget only where it is wrong — correcting it
with a **multiplicative-weights** step each time:

* :func:`private_multiplicative_weights` — online, queries arriving one by one
  ([HR10]_; [DR14]_ Ch. 4): sparse vector asks "is the synthetic answer off by more than
  the threshold?"; if not, the synthetic answer is free; if so, a Laplace answer is paid
  for and the distribution updated — at most c times, whatever the number of queries.
* :func:`mwem` — offline ([HLM12]_ Algorithm 1): T rounds of select (exponential
  mechanism), measure (Laplace), update; the output is a synthetic histogram, and
  :func:`sample_rows` draws synthetic people from it.
* :func:`mwem_privacy` — MWEM's budget by basic composition, and what zCDP and RDP give
  for the same run: the same noise is also (ε′, δ)-DP with ε′ < ε once T is large.
* :func:`compare_independent` — MWEM against independent Laplace and Gaussian answers on
  one workload at the same total ε (the crossover of notebook 22 and the app page).

Why it works — boosting for queries ([DRV10]_): the multiplicative-weights update is a
boosting algorithm over the universe; each round fixes the query the current distribution
answers worst, and after about ``log|U|/α²`` such corrections every query is within α.
The privacy cost grows with the number of corrections, not with the number of queries.

Neighbouring datasets differ by **replacing one person**: the number of people n is fixed
and public (MWEM's input n, [HLM12]_), since both algorithms use it (the synthetic
distribution has total n; the update divides by 2n; PMW's threshold is α·n). Every counting
query then has sensitivity 1, and so has every score and error the algorithms compare.
Under add/remove-one the same guarantees need n public, e.g. released first with its own
budget. Counts are the currency inside; thresholds and errors are fractions of n.

References
----------
.. [HR10] M. Hardt and G. N. Rothblum. A multiplicative weights mechanism for
   privacy-preserving data analysis. FOCS 2010.
.. [HLM12] M. Hardt, K. Ligett and F. McSherry. A simple and practical algorithm for
   differentially private data release. NeurIPS 2012.
.. [DRV10] C. Dwork, G. N. Rothblum, S. Vadhan. "Boosting and Differential
   Privacy." FOCS 2010.
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014.
.. [BS16] M. Bun, T. Steinke. "Concentrated Differential Privacy:
   Simplifications, Extensions, and Lower Bounds." TCC 2016: Prop. 1.3, Prop. 1.4,
   Lemma 1.7.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import (DELTA_POSITIVE, EPSILON, RNG, ParameterError, array, integer, real,
                           refuse, validate)
from ..accounting.composition import advanced_composition, basic_composition
from ..accounting.convert import rdp_to_epsilon
from ..accounting.rdp import DEFAULT_ORDERS, laplace_rdp
from ..accounting.zcdp import zcdp_to_epsilon
from ..mechanisms.selection import exponential_mechanism
from ..mechanisms.sparse_vector import SparseVector
from .independent import independent_max_error
from .linear import HISTOGRAM, QUERIES, UNIVERSE, Universe, max_error

__all__ = [
    "T_MAX", "PASSES_MAX", "WORK_MAX", "UPDATES_MAX",
    "PMWResult", "private_multiplicative_weights", "MWEMResult", "mwem", "sample_rows",
    "MWEMPrivacy", "mwem_privacy", "compare_independent",
]

T_MAX = 1_000            #: most MWEM rounds T
PASSES_MAX = 100         #: most extra passes over past measurements per MWEM round
WORK_MAX = 10**9         #: most cell operations of one run (a few seconds); see :func:`mwem`
UPDATES_MAX = 2 * 10**5  #: most multiplicative-weights updates of one run (a few seconds)
C_MAX = 10**4            #: most paid updates c of one PMW run
SAMPLE_MAX = 10**7       #: most synthetic rows drawn at once

ROUNDS = integer(1, T_MAX, work=True, example=5)
PASSES = integer(0, PASSES_MAX, work=True, example=1)
#: (ε₁, ε₂): two positive parts of the budget, adding up to ε
SPLIT = array(ndim=1, min_size=2, max_size=2, low=1e-9, high=1e3, example=[0.5, 0.5],
              text="a pair (ε₁, ε₂) of numbers in [1e-9, 1000]").or_none()
#: a threshold or step as a fraction of n
FRACTION = real(1e-6, 1.0, example=0.1)


# ----------------------------------------------------------------------------- online
@dataclass(frozen=True)
class PMWResult:
    """Transcript of :func:`private_multiplicative_weights`.

    ``answers[i]`` is the released answer (a count) to query i, for the ``n_answered``
    queries answered before the run halted; ``updated[i]`` is True where sparse vector said
    ⊤ — a Laplace answer was released and the distribution updated — and False where the
    synthetic answer was released. ``synthetic`` is the final distribution (total n).
    ``epsilon = sparse_vector_epsilon + laplace_epsilon`` by basic composition.
    """

    answers: np.ndarray
    updated: np.ndarray
    synthetic: np.ndarray
    n_answered: int
    n_updates: int
    halted: bool
    epsilon: float
    sparse_vector_epsilon: float
    laplace_epsilon: float
    threshold: float
    max_updates: int
    laplace_scale: float


@validate(queries=QUERIES, hist=HISTOGRAM, epsilon=EPSILON, threshold=FRACTION,
          max_updates=integer(1, C_MAX, work=True), split=SPLIT,
          learning_rate=FRACTION.or_none(), passes=PASSES, rng=RNG)
def private_multiplicative_weights(queries, hist, *, epsilon: float, threshold: float,
                                   max_updates: int, split=None, learning_rate=None,
                                   passes: int = 0, rng=None) -> PMWResult:
    """Online private multiplicative weights ([HR10]_; [DR14]_ Ch. 4), on sparse vector.

    The queries are answered in order. A synthetic distribution A (total n) starts uniform.
    For query q:

    1. sparse vector (:class:`~dpteach.mechanisms.sparse_vector.SparseVector`, budget ε₁, at most
       c = ``max_updates`` ⊤ answers, queries of sensitivity 1) is asked whether the error
       of the synthetic answer, ``|q·x − q·A|``, is above ``threshold·n``. That error has
       sensitivity 1: A depends only on earlier *released* answers;
    2. ⊥: release ``q·A`` (free: it is computed from public values);
    3. ⊤: release ``a = q·x + Lap(c/ε₂)`` (each of the at most c Laplace answers gets
       ε₂/c) and update A with it by multiplicative weights. With ``learning_rate=None``
       the step is MWEM's, ``A(u) ∝ A(u)·exp(q(u)(a − q·A)/(2n))``; with a number η it is
       the fixed step of [HR10]_, ``A(u) ∝ A(u)·exp(±η·q(u))`` towards a. With
       ``passes > 0`` each update is followed by ``passes`` cycles through all the Laplace
       answers released so far (MWEM's practical improvement; post-processing);
    4. after the c-th update sparse vector halts: the remaining queries are not answered.

    Privacy: ε₁ + c·(ε₂/c) = ε₁ + ε₂ = ε by basic composition ([DR14]_ Thm 3.16; sparse
    vector's own guarantee: [DR14]_ Thm 3.25), for any number of queries and adaptively
    chosen ones, between neighbours that replace one person (n is public).

    Parameters
    ----------
    epsilon : float
        Total ε, split into (ε₁ for sparse vector, ε₂ for the Laplace answers) by ``split``;
        default (ε/2, ε/2).
    threshold : float
        α: an update is triggered by an error above about α·n people.
    max_updates : int
        c, the most paid answers.
    passes : int
        At most ``c + passes·c(c+1)/2 ≤ 2·10⁵`` updates and 10⁹ cell operations in all.
    """
    true = queries.answer(hist)
    c = max_updates
    _bounded_work(queries.k, hist.size, c + passes * c * (c + 1) // 2, 0,
                  f"passes={passes} over up to max_updates={c} answers")
    eps_sv, eps_lap = _split(epsilon, split)
    n = float(hist.sum())
    scale = c / eps_lap                 # each of the at most c Laplace answers gets ε₂/c
    sv = SparseVector(threshold * n, eps_sv, sensitivity=1.0, max_above=c, rng=rng)
    synth = np.full(hist.size, n / hist.size)
    answers, updated, past = [], [], []
    for i in range(queries.k):
        row = queries.matrix[i]
        estimate = float(row @ synth)
        if not sv.query(abs(true[i] - estimate)):
            answers.append(estimate)
            updated.append(False)
            continue
        noisy = float(true[i] + rng.laplace(0.0, scale))
        answers.append(noisy)
        updated.append(True)
        past.append((i, noisy))
        synth = _pmw_step(synth, row, noisy, n, learning_rate)
        for _ in range(passes):
            for j, a in past:
                synth = _pmw_step(synth, queries.matrix[j], a, n, learning_rate)
        if sv.halted:
            break
    return PMWResult(np.asarray(answers), np.asarray(updated, dtype=bool), synth,
                     len(answers), int(sum(updated)), sv.halted, epsilon, eps_sv, eps_lap,
                     threshold, c, float(scale))


# ---------------------------------------------------------------------------- offline
@dataclass(frozen=True)
class MWEMResult:
    """Output of :func:`mwem`.

    ``synthetic`` is MWEM's output, the average of the T distributions A₁ … A_T ([HLM12]_
    Algorithm 1), and ``last`` the final one A_T (also private: post-processing), both
    histograms over the universe with total n. ``selected[t]`` is the query measured in
    round t, ``measurements[t]`` its noisy count (clipped to [0, n]).
    ``select_epsilon`` and ``measure_epsilon`` are the per-round ε of the exponential
    mechanism and of the Laplace measurement: ``T·(select_epsilon + measure_epsilon) =
    epsilon`` (basic composition).
    """

    synthetic: np.ndarray
    last: np.ndarray
    selected: np.ndarray
    measurements: np.ndarray
    epsilon: float
    rounds: int
    passes: int
    select_epsilon: float
    measure_epsilon: float
    laplace_scale: float
    n: float


@validate(queries=QUERIES, hist=HISTOGRAM, epsilon=EPSILON, T=ROUNDS, passes=PASSES,
          split=SPLIT, rng=RNG)
def mwem(queries, hist, *, epsilon: float, T: int, passes: int = 0, split=None,
         rng=None) -> MWEMResult:
    """MWEM: multiplicative weights with the exponential mechanism ([HLM12]_ Algorithm 1).

    Start from A₀ = n × uniform; in round t = 1 … T:

    1. **select** q_t by the exponential mechanism with ε/(2T) on the score
       ``|q·A_{t−1} − q·x|`` (sensitivity 1: A_{t−1} is computed from released values);
    2. **measure** ``m_t = q_t·x + Lap(2T/ε)``;
    3. **update** ``A_t(u) ∝ A_{t−1}(u)·exp(q_t(u)(m_t − q_t·A_{t−1})/(2n))``, total n.

    Output: the average of A₁ … A_T. Privacy: 2T mechanisms of ε/(2T), ε-DP by basic
    composition ([DR14]_ Thm 3.16), for neighbours that replace one person (n is public);
    see :func:`mwem_privacy`. Accuracy ([HLM12]_ Thm 2.2): with probability ≥ 1 − 2T/k the
    largest error is at most ``2n√(ln|U|/T) + 10T ln k/ε``: more rounds fit better, but
    each measurement is noisier.

    ``passes`` is the paper's practical improvement: after each measurement, cycle
    ``passes`` more times through all measurements so far (post-processing: the same
    privacy, faster); at most 2·10⁵ updates and 10⁹ cell operations in all. ``split``
    gives the total ε of the T selections and of the T measurements (default (ε/2, ε/2)).
    """
    true = queries.answer(hist)
    _bounded_work(queries.k, hist.size, T + passes * T * (T + 1) // 2, T,
                  f"T={T} rounds with passes={passes}")
    eps_select, eps_measure = _split(epsilon, split)
    eps_s, eps_m = eps_select / T, eps_measure / T            # per round: ε/(2T) each
    Q, n = queries.matrix, float(hist.sum())
    A = np.full(hist.size, n / hist.size)                     # A₀ = n × uniform
    total, selected, measured = np.zeros(hist.size), np.empty(T, dtype=np.int64), np.empty(T)
    for t in range(T):
        # 1. select (the unchecked mechanism: ε/(2T) may lie below the ε a student types)
        i = exponential_mechanism.__wrapped__(np.abs(Q @ A - true), 1.0, eps_s, rng=rng)
        m = min(max(float(true[i] + rng.laplace(0.0, 1.0 / eps_m)), 0.0), n)   # 2. measure
        selected[t], measured[t] = i, m
        A = _mw_step(A, Q[i], m, n)                                            # 3. update
        for _ in range(passes):
            for j in range(t + 1):
                A = _mw_step(A, Q[selected[j]], measured[j], n)
        total += A
    return MWEMResult(total / T, A, selected, measured, epsilon, T, passes, eps_s, eps_m,
                      1.0 / eps_m, n)


@validate(universe=UNIVERSE, synthetic=array(ndim=1, low=0.0, high=1e18, example=[1.0, 1.0]),
          n_rows=integer(0, SAMPLE_MAX, work=True), rng=RNG)
def sample_rows(universe: Universe, synthetic, n_rows: int, rng=None) -> pd.DataFrame:
    """Draw synthetic people from a synthetic histogram (e.g. :attr:`MWEMResult.synthetic`).

    Each row is a cell drawn with probability ``synthetic[u] / Σ synthetic``, written with
    the universe's level labels. Post-processing of a private histogram: no extra budget.
    """
    if synthetic.size != universe.size or synthetic.max() == 0:
        raise refuse("synthetic", synthetic, f"{universe.size} weights (one per cell), not all 0")
    p = synthetic / synthetic.max()
    idx = rng.choice(universe.size, size=n_rows, p=p / p.sum())
    return universe.decode(idx)


# ------------------------------------------------------------------------- accounting
@dataclass(frozen=True)
class MWEMPrivacy:
    """What the accountants say about one MWEM run (:func:`mwem_privacy`).

    * ``epsilon`` — basic composition of the 2T pure-DP steps ([HLM12]_): the run is
      (ε, 0)-DP; this is the budget MWEM is given.
    * ``rho`` — zCDP: each ε₀-DP step is (ε₀²/2)-zCDP ([BS16]_ Prop. 1.4) and ρ's add up
      (Lemma 1.7): ``ρ = 2T·(ε/(2T))²/2 = ε²/(4T)``.
    * ``zcdp_epsilon`` — that ρ as (ε′, δ)-DP (:func:`dpteach.accounting.zcdp_to_epsilon`).
    * ``rdp_epsilon`` — Rényi DP: the exact RDP curve of the T Laplace measurements
      (:func:`dpteach.accounting.laplace_rdp`) plus ``min(ε₀, αε₀²/2)`` for each selection,
      converted at δ (:func:`dpteach.accounting.rdp_to_epsilon`).
    * ``advanced_epsilon`` — advanced composition of the 2T steps with slack δ
      (:func:`dpteach.accounting.composition.advanced_composition`).

    The last three are (ε′, δ) guarantees, weaker in kind than pure ε-DP but with ε′ < ε
    once T is large: the same noise buys more.
    """

    epsilon: float
    rho: float
    delta: float
    zcdp_epsilon: float
    rdp_epsilon: float
    advanced_epsilon: float


@validate(epsilon=EPSILON, T=ROUNDS, delta=DELTA_POSITIVE)
def mwem_privacy(epsilon: float, T: int, delta: float = 1e-6) -> MWEMPrivacy:
    """The privacy of :func:`mwem` with budget ε and T rounds (default split), four ways.

    See :class:`MWEMPrivacy`. Basic composition returns exactly the ε MWEM was given
    ([HLM12]_: T rounds of ε/(2T) + ε/(2T)); ``delta`` is the δ of the (ε′, δ) conversions.
    """
    eps0 = epsilon / (2 * T)
    basic, _ = basic_composition([eps0] * (2 * T))
    rho = 2 * T * (eps0 * eps0 / 2)
    zcdp = zcdp_to_epsilon(rho, delta)
    orders = np.asarray(DEFAULT_ORDERS, dtype=float)
    select = np.minimum(eps0, orders * (eps0 * eps0 / 2))
    measure = laplace_rdp(orders, 1.0 / eps0)
    rdp, _ = rdp_to_epsilon(orders, T * (select + measure), delta)
    advanced, _ = advanced_composition(eps0, 0.0, 2 * T, delta)
    return MWEMPrivacy(float(basic), float(rho), delta, float(zcdp), float(rdp),
                       float(advanced))


# ------------------------------------------------------------------------- comparison
@validate(queries=QUERIES, hist=HISTOGRAM, epsilon=EPSILON, T=ROUNDS, passes=PASSES,
          repeats=integer(1, 100, work=True), delta=DELTA_POSITIVE, rng=RNG)
def compare_independent(queries, hist, epsilon: float, *, T: int = 30, passes: int = 10,
                        repeats: int = 5, delta: float = 1e-6, rng=None) -> dict:
    """MWEM against answering each query independently, at the same total ε.

    Returns the maximum error over the k queries, as a fraction of n:

    * ``"laplace"``, ``"gaussian"`` — the exact expectations for independent Laplace (ε/k
      per query) and Gaussian (zCDP at (ε, δ)) answers
      (:func:`dpteach.queries.independent.independent_max_error`);
    * ``"mwem"``, ``"mwem_last"`` — arrays of ``repeats`` independent runs of :func:`mwem`
      (T, passes; they draw from ``rng`` in turn), the error of its output (average) and of
      its last distribution.
    """
    queries.answer(hist)                                      # over the universe of hist
    n = float(hist.sum())
    out = {"laplace": independent_max_error(queries.k, epsilon, n=n),
           "gaussian": independent_max_error(queries.k, epsilon, n=n, mechanism="gaussian",
                                             delta=delta)}
    avg, last = np.empty(repeats), np.empty(repeats)
    for r in range(repeats):
        res = mwem(queries, hist, epsilon=epsilon, T=T, passes=passes, rng=rng)
        avg[r] = max_error(queries, hist, synthetic=res.synthetic)
        last[r] = max_error(queries, hist, synthetic=res.last)
    out["mwem"], out["mwem_last"] = avg, last
    return out


# ------------------------------------------------------------------------- helpers
def _split(epsilon: float, split) -> tuple[float, float]:
    """``split`` = (ε₁, ε₂) adding up to ε (relative 1e-9); None → (ε/2, ε/2)."""
    if split is None:
        return epsilon / 2.0, epsilon / 2.0
    if not math.isclose(math.fsum(split), epsilon, rel_tol=1e-9):
        raise refuse("split", split, f"adding up to the budget epsilon={epsilon!r}")
    return float(split[0]), float(split[1])


def _bounded_work(k: int, size: int, updates: int, rounds: int, what: str) -> None:
    """At most UPDATES_MAX updates and WORK_MAX cell operations: what finishes in seconds."""
    work = max(rounds, 1) * k * size + updates * size
    if updates > UPDATES_MAX or work > WORK_MAX:
        raise ParameterError(f"{what} must make ≤ {UPDATES_MAX:.0e} updates, ≤ {WORK_MAX:.0e} cell"
                             f" operations; got {updates:,}, {work:.2g} (k={k}, |U|={size})")


def _mw_step(synthetic: np.ndarray, query: np.ndarray, measured: float, n: float) -> np.ndarray:
    """``A(u) ∝ A(u)·exp(q(u)·(m − q·A)/(2n))``, total n ([HLM12]_ Algorithm 1), with m
    clipped to [0, n] (post-processing: every count lies there)."""
    m = min(max(measured, 0.0), n)
    step = (m - float(query @ synthetic)) / (2.0 * n)
    out = synthetic * np.exp(step * query)
    return out * (n / out.sum())


def _pmw_step(synthetic: np.ndarray, query: np.ndarray, answer: float, n: float,
              eta: float | None) -> np.ndarray:
    """PMW's update towards a released answer: MWEM's step, or the fixed step ±η."""
    if eta is None:
        return _mw_step(synthetic, query, answer, n)
    out = synthetic * np.exp((eta if answer > float(query @ synthetic) else -eta) * query)
    return out * (n / out.sum())


# Engineering notes. Work bounds: T ≤ 1000 rounds, passes ≤ 100, c ≤ 10⁴ paid updates, and
# at most 2·10⁵ multiplicative-weights updates or 10⁹ cell operations per run (a few
# seconds on one core), refused by _bounded_work naming the arguments that set them. A
# split's parts are at least 1e-9, so the per-round and per-answer Laplace scales (2T/ε,
# c/ε₂) stay below 1e13 and no draw overflows. The measurement is clipped to [0, n]
# (post-processing of a released value), so every update's exponent lies in [−½, ½].
# Tests: tests/queries/test_many_queries.py (one round against its exact expectation, the
# Laplace scales, the privacy accounting) and tests/test_domains.py.
