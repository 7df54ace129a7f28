"""Composition theorems for (ε, δ)-differential privacy, and a privacy budget.

Running several DP analyses on the same data spends privacy: this module
answers "how much in total?" with the classic theorems, from the loosest (ε's add) to
the exact one ([KOV15]_), and keeps a budget that refuses to be overspent.
All results hold under *adaptive* composition (each mechanism may be chosen
after seeing the previous outputs), for whatever neighbouring relation the mechanisms'
own guarantees use (amplification by subsampling names its own).

References
----------
.. [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential
   Privacy." FnT-TCS 9(3-4), 2014: Thm 3.16 (basic), Thm 3.20 (advanced).
.. [DRV10] C. Dwork, G. N. Rothblum, S. Vadhan. "Boosting and Differential
   Privacy." FOCS 2010, Thm III.3.
.. [KOV15] P. Kairouz, S. Oh, P. Viswanath. "The Composition Theorem for
   Differential Privacy." ICML 2015 (arXiv:1311.0776), Thm 3.3.
.. [McS09] F. McSherry. "Privacy Integrated Queries." SIGMOD 2009, Thm 4.
.. [LQS12] N. Li, W. Qardaji, D. Su. "On sampling, anonymization, and
   differential privacy." ASIACCS 2012, Thm 1.
.. [BBG18] B. Balle, G. Barthe, M. Gaboardi. "Privacy Amplification by
   Subsampling: Tight Analyses via Couplings and Divergences." NeurIPS 2018,
   Thm 8 (Poisson) and Thm 9 (without replacement).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import special

from .._validation import (DELTA, DELTA_POSITIVE, EPSILON, EPSILON_OR_ZERO, PROBABILITY, Domain,
                           ParameterError, array, integer, real, refuse, validate)

__all__ = ["MAX_OPTIMAL_K", "EPSILON_EACH", "basic_composition", "parallel_composition",
           "advanced_composition", "optimal_composition_delta", "optimal_composition_epsilon",
           "amplify_by_subsampling", "BudgetAccountant", "BudgetExceeded", "Spend"]

#: Largest number of mechanisms k (the exact composition builds arrays of k + 1 numbers).
MAX_OPTIMAL_K = 10**6

#: ε of one mechanism among many: down to 10⁻¹² (a budget of 10⁻⁶ shared by a million
#: mechanisms), up to 500, where kε·e^ε is still finite for every k
EPSILON_EACH = real(1e-12, 500.0, example=0.1)
#: the ε's of a list of mechanisms (0 allowed: a free step)
EPSILONS = array(ndim=(0, 1), low=0.0, high=1e3, max_size=MAX_OPTIMAL_K, example=[0.1, 0.2],
                 text="a number or 1-D array of ε's in [0, 1000], at most 1,000,000 of "
                      "them").flat()
#: the δ's of a list of mechanisms: one for all, or one per ε
DELTAS = array(ndim=(0, 1), low=0.0, high=math.nextafter(1.0, 0.0), max_size=MAX_OPTIMAL_K,
               example=[1e-6, 0.0], text="a number or 1-D array of δ's in [0, 1)").flat()
#: the number of composed mechanisms
K = integer(1, MAX_OPTIMAL_K, example=10)
#: a total ε: up to a million mechanisms of ε ≤ 500 each
TOTAL_EPSILON = real(0.0, 1e9, example=0.5)
#: a spend's name in the history
LABEL = Domain("a string or None", lambda name, value: _label(name, value), example="mean age",
               edges=(None, ""),
               bad=[1, 1.5, True, b"x", ["a"]])


@validate(epsilons=EPSILONS, deltas=DELTAS)
def basic_composition(epsilons, deltas=0.0) -> tuple[float, float]:
    """Total (ε, δ) of running mechanisms one after another: the sums.

    If mechanism i is (εᵢ, δᵢ)-DP, their (adaptive) composition is
    (Σεᵢ, Σδᵢ)-DP ([DR14]_, Thm 3.16). Heterogeneous lists are fine; ``deltas`` is one δ
    for all or one per ε. The sums are exact (``math.fsum``); a total δ ≥ 1 (possible for
    many mechanisms) is a vacuous guarantee, returned as computed, not capped.
    """
    deltas = _one_per_epsilon(epsilons, deltas)
    return math.fsum(epsilons), math.fsum(deltas)


@validate(epsilons=EPSILONS, deltas=DELTAS)
def parallel_composition(epsilons, deltas=0.0) -> tuple[float, float]:
    """Total (ε, δ) of mechanisms run on DISJOINT parts of the data: the maxima.

    If each record can affect only one mechanism's input (a partition fixed
    independently of the data), the combination is (max εᵢ, max δᵢ)-DP
    ([McS09]_, Thm 4). Arguments as in :func:`basic_composition`.
    """
    deltas = _one_per_epsilon(epsilons, deltas)
    return float(epsilons.max()), float(deltas.max())


@validate(epsilon=EPSILON_EACH, delta=DELTA, k=K, delta_prime=DELTA_POSITIVE)
def advanced_composition(epsilon: float, delta: float, k: int,
                         delta_prime: float) -> tuple[float, float]:
    """Advanced composition of k (ε, δ)-DP mechanisms.

    The k-fold adaptive composition is (ε', kδ + δ')-DP with
    ``ε' = √(2k ln(1/δ')) ε + k ε (e^ε − 1)`` ([DRV10]_, Thm III.3;
    [DR14]_, Thm 3.20). Its ε' is below basic composition's kε exactly when
    √(2k ln(1/δ')) < k(2 − e^ε), i.e. when e^ε < 2 and
    k > 2 ln(1/δ')/(2 − e^ε)² (≈ 2 ln(1/δ') for small ε: about 29 mechanisms
    at ε = 0.1, δ' = 1e-5); for fewer mechanisms, or ε ≥ ln 2, basic is better.
    The two can be combined by taking the minimum. ``epsilon`` and ``delta`` are each
    mechanism's, ``delta_prime`` the slack δ'; returns ``(epsilon_total, delta_total)``.
    """
    # ln(1/δ'), as −ln1p(δ' − 1) near 1, where 1/δ' rounds (δ' − 1 is exact there)
    log_inv = -math.log1p(delta_prime - 1) if delta_prime > 0.5 else math.log(1 / delta_prime)
    eps_total = math.sqrt(2 * k * log_inv) * epsilon + k * epsilon * math.expm1(epsilon)
    return eps_total, k * delta + delta_prime


# --- optimal composition (Kairouz, Oh, Viswanath 2015) ----------------------------

@validate(epsilon=EPSILON_EACH, delta=DELTA, k=K, total_epsilon=TOTAL_EPSILON)
def optimal_composition_delta(epsilon: float, delta: float, k: int, total_epsilon: float) -> float:
    """Exact smallest δ_total such that k (ε, δ)-DP mechanisms are (ε_total, δ_total)-DP.

    Kairouz, Oh and Viswanath ([KOV15]_, Thm 3.3) show that the k-fold
    adaptive composition of (ε, δ)-DP mechanisms is dominated by that of one
    canonical mechanism (randomized response with an extra δ), and that this
    is tight. Its hockey-stick divergence gives, for every ε_total ≥ 0,

        δ_total = 1 − (1 − δ)^k (1 − δ_pure),
        δ_pure  = Σ_{l : (k−2l)ε > ε_total} C(k,l) (e^{ε(k−l)} − e^{ε_total} e^{εl}) / (1 + e^ε)^k.

    At ε_total = (k − 2i)ε this is exactly the δ of Thm 3.3 (between those
    points it is linear in e^{ε_total}). Evaluated in log space term by term
    (each term is positive), so k in the thousands and large ε are fine.
    Homogeneous mechanisms only (for heterogeneous ones the exact problem is
    #P-hard, Murtagh & Vadhan 2016). From ε_total = kε on, δ_total = 1 − (1 − δ)^k.
    """
    pure = _pure_delta(epsilon, k, total_epsilon)
    return _total_delta(delta, k, pure, epsilon, total_epsilon)


@validate(epsilon=EPSILON_EACH, delta=DELTA, k=K, total_delta=DELTA)
def optimal_composition_epsilon(epsilon: float, delta: float, k: int, total_delta: float) -> float:
    """Exact smallest ε_total such that k (ε, δ)-DP mechanisms are (ε_total, δ_total)-DP.

    Inverts :func:`optimal_composition_delta` ([KOV15]_, Thm 3.3), which is
    continuous and decreasing in ε_total: a binary search over the corner
    points ε_total = (k − 2i)ε finds the segment, on which δ_pure is
    A − e^{ε_total} B and is solved in closed form; a final check steps ε_total
    up by a few ulps if rounding left δ_total above the target. ``total_delta`` must be at
    least 1 − (1 − δ)^k: with that probability some mechanism may reveal everything, and
    no finite ε_total helps.
    """
    # δ_total ≤ target  ⇔  δ_pure ≤ t := 1 − (1 − target)/(1 − δ)^k
    log_ratio = math.log1p(-total_delta) - k * math.log1p(-delta)
    if log_ratio > 0:
        least = -math.expm1(k * math.log1p(-delta))
        raise refuse("total_delta", total_delta, f"at least 1 − (1 − delta)^k = {least:.3g}")
    t = -math.expm1(log_ratio)

    def ok(e):
        return _total_delta(delta, k, _pure_delta(epsilon, k, e), epsilon, e) <= total_delta

    if _pure_delta(epsilon, k, 0.0) <= t and ok(0.0):
        return 0.0
    # corners c_i = (k − 2i)ε, i = 0..⌊k/2⌋; δ_pure(c_0) = 0 ≤ t. Find the largest i with
    # δ_pure(c_i) ≤ t (δ_pure increases with i).
    lo, hi = 0, k // 2
    if _pure_delta(epsilon, k, (k - 2 * hi) * epsilon) <= t:
        lo = hi
    else:
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if _pure_delta(epsilon, k, (k - 2 * mid) * epsilon) <= t:
                lo = mid
            else:
                hi = mid
    i = lo
    # On [max(c_{i+1}, 0), c_i], δ_pure(e) = A − e^e B with A = Σ_{l≤i} P_l, B = Σ_{l≤i} Q_l.
    _, log_p, log_q = _kov_logs(epsilon, k)
    log_a = special.logsumexp(log_p[: i + 1])
    log_b = special.logsumexp(log_q[: i + 1])
    if t > 0:
        log_ratio_t = math.log(t) - log_a
        ratio = math.exp(log_ratio_t) if log_ratio_t < 0 else 1.0
        log_a_minus_t = log_a + math.log1p(-min(ratio, 1.0)) if ratio < 1 else -math.inf
    else:
        log_a_minus_t = log_a
    upper = (k - 2 * i) * epsilon
    lower = max((k - 2 * i - 2) * epsilon, 0.0)
    e = min(max(log_a_minus_t - log_b, lower), upper)
    for _ in range(1000):                              # rounding guard: never under-report
        if ok(e):
            return float(e)
        e = max(np.nextafter(e, math.inf), e * (1 + 1e-15))
    # kε is always valid: δ_pure(kε) = 0 and (1 − δ)^k ≥ 1 − total_delta (log_ratio ≤ 0)
    return float(k * epsilon)


@validate(epsilon=EPSILON_EACH, sample_rate=PROBABILITY)
def amplify_by_subsampling(epsilon: float, sample_rate: float) -> float:
    """ε of an ε-DP mechanism run on a random subsample: ``ln(1 + q(e^ε − 1))``.

    Holds when each record is included independently with probability q
    (Poisson sampling) under add/remove-one neighbours ([LQS12]_, Thm 1;
    [BBG18]_, Thm 8), and for a uniformly random subset of fixed size m = qn
    under replace-one neighbours ([BBG18]_, Thm 9). For small ε it is about qε.
    The subsample must stay secret: only the mechanism's output is released.
    """
    return float(math.log1p(sample_rate * math.expm1(epsilon)))


# --- budget -----------------------------------------------------------------------------

class BudgetExceeded(ParameterError):
    """Raised when a spend would take a :class:`BudgetAccountant` over its total."""


@dataclass(frozen=True)
class Spend:
    """One entry of a :class:`BudgetAccountant` history."""

    epsilon: float
    delta: float
    label: str | None


@validate(epsilon=EPSILON, delta=DELTA)
class BudgetAccountant:
    """A privacy budget (ε, δ) that analyses spend from, by basic composition.

    Each ``spend(ε, δ)`` is refused with :class:`BudgetExceeded` (leaving the
    budget untouched) if it would take the total over the budget; otherwise it
    is recorded. The composition used is basic ([DR14]_, Thm 3.16): spent ε's
    and δ's add — always valid, even for heterogeneous and adaptively chosen
    analyses.

    The budget is fixed at construction: ``epsilon``, ``delta``, ``rtol`` and
    ``history`` are read-only (assigning to them, or to any attribute, raises
    ``AttributeError``; ``history`` is a tuple of frozen :class:`Spend`), so the
    only way to change the ledger is ``spend``, which never goes over the budget.
    (As in trusted DP libraries: a budget that can be raised after it is
    exhausted enforces nothing.)

    Floating point: the ledger is kept with exact rational arithmetic
    (``fractions.Fraction`` of the floats given), so no rounding accumulates.
    Because decimal inputs like 0.1 are not exact in binary (ten spends of
    0.1 add up to 1.0000000000000000555…), a spend is accepted when the new
    total is at most the budget times (1 + 1e-9) — ``RTOL``. Spending
    exactly ``remaining()`` therefore always succeeds, and the guarantee
    actually enforced is (ε(1 + 1e-9), δ(1 + 1e-9)): an overrun of at most a
    billionth of the budget, far below any meaningful privacy difference.

    Examples
    --------
    >>> budget = BudgetAccountant(epsilon=1.0, delta=1e-6)
    >>> budget.spend(0.5, label="mean age")
    >>> budget.remaining()
    (0.5, 1e-06)
    """

    RTOL = 1e-9

    __slots__ = ("_epsilon", "_delta", "_rtol", "_eps_spent", "_delta_spent", "_history")
    _epsilon: float
    _delta: float
    _rtol: float
    _eps_spent: Fraction
    _delta_spent: Fraction
    _history: list[Spend]

    def __init__(self, epsilon: float, delta: float = 0.0):
        init = object.__setattr__
        init(self, "_epsilon", epsilon)
        init(self, "_delta", delta)
        init(self, "_rtol", float(type(self).RTOL))
        init(self, "_eps_spent", Fraction(0))
        init(self, "_delta_spent", Fraction(0))
        init(self, "_history", [])

    def __setattr__(self, name, value):
        raise AttributeError(f"BudgetAccountant is read-only (use spend()): cannot set {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"BudgetAccountant is read-only: cannot delete {name!r}")

    def __getstate__(self):
        state = {name: getattr(self, name) for name in self.__slots__}
        state["_history"] = list(self._history)         # a copy never shares the ledger
        return state

    def __setstate__(self, state):              # copy / pickle
        for name, value in state.items():
            object.__setattr__(self, name, value)

    @property
    def epsilon(self) -> float:
        """The total ε budget (read-only)."""
        return self._epsilon

    @property
    def delta(self) -> float:
        """The total δ budget (read-only)."""
        return self._delta

    @property
    def rtol(self) -> float:
        """The relative tolerance of the ledger (read-only)."""
        return self._rtol

    @property
    def history(self) -> tuple[Spend, ...]:
        """Accepted spends, in order (a tuple: not changeable from outside)."""
        return tuple(self._history)

    def _fits(self, spent: Fraction, total: float) -> bool:
        return spent <= Fraction(total) * (1 + Fraction(self._rtol))

    @validate(epsilon=EPSILON_OR_ZERO, delta=DELTA, label=LABEL)
    def spend(self, epsilon: float, delta: float = 0.0, label: str | None = None) -> None:
        """Record an analysis that costs (ε, δ) under ``label`` in the history, or raise
        :class:`BudgetExceeded` (recording nothing) if it does not fit."""
        new_eps = self._eps_spent + Fraction(epsilon)
        new_delta = self._delta_spent + Fraction(delta)
        if not (self._fits(new_eps, self._epsilon) and self._fits(new_delta, self._delta)):
            rem_e, rem_d = self.remaining()
            what = f" ({label})" if label else ""
            raise BudgetExceeded(f"spending epsilon={epsilon}, delta={delta}{what} would exceed "
                                 f"the budget; remaining: epsilon={rem_e}, delta={rem_d}")
        object.__setattr__(self, "_eps_spent", new_eps)
        object.__setattr__(self, "_delta_spent", new_delta)
        self._history.append(Spend(epsilon, delta, label))

    @property
    def spent(self) -> tuple[float, float]:
        """(ε, δ) spent so far (exact sums, rounded to float)."""
        return float(self._eps_spent), float(self._delta_spent)

    def remaining(self) -> tuple[float, float]:
        """(ε, δ) still available (never negative)."""
        return (max(float(Fraction(self._epsilon) - self._eps_spent), 0.0),
                max(float(Fraction(self._delta) - self._delta_spent), 0.0))

    def __repr__(self) -> str:
        e, d = self.spent
        return (f"BudgetAccountant(epsilon={self._epsilon}, delta={self._delta}; spent "
                f"epsilon={e:g}, delta={d:g} in {len(self._history)} spends)")


# --- helpers ----------------------------------------------------------------------------
def _one_per_epsilon(epsilons: np.ndarray, deltas: np.ndarray) -> np.ndarray:
    """``deltas`` as one δ per ε (a single δ applies to all)."""
    if deltas.size == 1:
        return np.full(epsilons.shape, deltas[0])
    if deltas.size != epsilons.size:
        raise refuse("deltas", deltas, f"one number, or one per epsilon ({epsilons.size})")
    return deltas


@functools.lru_cache(maxsize=4)
def _kov_logs(epsilon: float, k: int):
    """``flips`` l = 0..k, ln P_l and ln Q_l: the law of the number l of 'flips' in k runs of
    the canonical ε-DP randomized response under the two hypotheses.

    P_l = C(k,l) e^{ε(k−l)}/(1 + e^ε)^k = C(k,l) e^{−εl}/(1 + e^{−ε})^k, and Q_l likewise
    with l ↔ k − l. Cached (read-only arrays): the searches of
    :func:`optimal_composition_epsilon` evaluate δ at ~log2(k) points with the same (ε, k).
    """
    flips = np.arange(k + 1, dtype=float)
    log_binom = (special.gammaln(k + 1) - special.gammaln(flips + 1)
                 - special.gammaln(k - flips + 1))
    log_norm = k * np.logaddexp(0.0, epsilon)                    # ln (1 + e^ε)^k
    log_p = log_binom + epsilon * (k - flips) - log_norm
    log_q = log_binom + epsilon * flips - log_norm
    for arr in (flips, log_p, log_q):
        arr.flags.writeable = False
    return flips, log_p, log_q


def _pure_delta(epsilon: float, k: int, total_epsilon: float) -> float:
    """δ_pure(ε') = Σ_l [P_l − e^{ε'} Q_l]_+ for the δ = 0 part (log space, no cancellation)."""
    flips, log_p, _ = _kov_logs(epsilon, k)
    loss = epsilon * (k - 2 * flips)                         # privacy loss of l flips
    keep = loss > total_epsilon
    if not keep.any():
        return 0.0
    # P_l − e^{ε'}Q_l = P_l (1 − e^{ε' − loss_l}), both factors positive on `keep`
    terms = log_p[keep] + np.log(-np.expm1(total_epsilon - loss[keep]))
    return float(min(math.exp(special.logsumexp(terms)), 1.0))


def _log_one_minus_pure(epsilon: float, k: int, total_epsilon: float) -> float:
    """ln(1 − δ_pure(ε')) computed directly: 1 − δ_pure = Σ_l min(P_l, e^{ε'} Q_l).

    Accurate when δ_pure is close to 1, where ln1p(−δ_pure) would lose every digit
    (or, with δ_pure rounded to 1, be undefined).
    """
    flips, log_p, log_q = _kov_logs(epsilon, k)
    loss = epsilon * (k - 2 * flips)
    terms = np.where(loss > total_epsilon, total_epsilon + log_q, log_p)
    return float(special.logsumexp(terms))


def _total_delta(delta: float, k: int, pure: float, epsilon: float,
                 total_epsilon: float) -> float:
    # 1 − (1 − δ)^k (1 − δ_pure), without cancellation
    if pure < 0.5:
        log_keep = math.log1p(-pure)
    else:
        log_keep = _log_one_minus_pure(epsilon, k, total_epsilon)
    return float(min(-math.expm1(k * math.log1p(-delta) + log_keep), 1.0))


def _label(name: str, value):
    if value is None or isinstance(value, str):
        return value
    raise LABEL.refuse(name, value)


# Implementation notes: docs/library/accounting.md (accounting.composition).
