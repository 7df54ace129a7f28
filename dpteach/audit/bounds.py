"""Auditing, the statistics: from counts of an output event to certified lower bounds on ε.

An audit runs a mechanism n times on a dataset D and n′ times on a neighbour D′ and counts
how often an output event S happens: ``count`` times on D, ``count_prime`` times on D′. If the
mechanism is (ε, δ)-DP then p = P[M(D) ∈ S] and p′ = P[M(D′) ∈ S] satisfy
``p ≤ e^ε p′ + δ`` ([DR14]_ Def. 2.4), so

``ε ≥ ln((p − δ) / p′)``.

The simulation only estimates p and p′. One-sided Clopper–Pearson bounds ([CP34]_) give
``p ≥ p_lo`` and ``p′ ≤ p′_hi``, each failing with probability at most α = (1 − confidence)/2;
by the union bound both hold with probability ≥ ``confidence``, and then

``ε ≥ ln((p_lo − δ) / p′_hi)``

(the approach of [DWWZK18]_ and [JUO20]_, with δ as in [NST+21]_). The same two bounds give a
lower bound on μ for a mechanism claimed μ-GDP ([DRS22]_): every test of M(D) against M(D′)
must have a type-II error β ≥ Φ(Φ⁻¹(1 − α) − μ) at type-I error α, that is
``μ ≥ Φ⁻¹(p) − Φ⁻¹(p′)``; Gaussian noise meets this with equality, which makes the μ bound
the sharp tool for auditing it.

References
----------
.. [CP34] C. J. Clopper and E. S. Pearson. The use of confidence or fiducial
   limits illustrated in the case of the binomial. Biometrika 26(4), 1934.
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014.
.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer. Detecting
   violations of differential privacy. ACM CCS 2018.
.. [JUO20] M. Jagielski, J. Ullman and A. Oprea. Auditing differentially
   private machine learning: how private is private SGD? NeurIPS 2020.
.. [NST+21] M. Nasr, S. Song, A. Thakurta, N. Papernot and N. Carlini. Adversary
   instantiation: lower bounds for differentially private machine learning. IEEE S&P 2021.
.. [DRS22] J. Dong, A. Roth and W. J. Su. Gaussian differential privacy. Journal of the Royal
   Statistical Society, Series B 84(1), 2022.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special, stats

from .._validation import (DELTA, DELTA_POSITIVE, EPSILON_OR_ZERO, PROBABILITY, array, integer,
                           one_of, real, refuse, validate)
from ..mechanisms.noise import gaussian_epsilon

__all__ = [
    "RUNS_MAX", "clopper_pearson_bounds", "epsilon_from_probabilities", "mu_from_probabilities",
    "epsilon_lower_bound", "gdp_mu_lower_bound", "gdp_epsilon", "max_certifiable_epsilon",
    "audit_trials_needed",
]

RUNS_MAX = 10 ** 12            #: most runs a count may come from (exact in a float)
#: runs on one side, and how often the event happened in them (at most the runs)
RUNS = integer(1, RUNS_MAX, example=10)
OCCURRENCES = integer(0, RUNS_MAX, example=5)
#: the same, or 1-D arrays of them (element by element)
RUNS_OR_ARRAY = one_of(array(ndim=1, low=1, high=RUNS_MAX, integers=True, example=[10, 10]),
                       RUNS)
OCCURRENCES_OR_ARRAY = one_of(array(ndim=1, low=0, high=RUNS_MAX, integers=True,
                                    example=[0, 5]), OCCURRENCES)
#: confidence of a bound: from even odds to 1 − 10⁻⁶ (α = (1 − confidence)/2 per side)
CONFIDENCE = real(0.5, 0.999999, example=0.95)
#: the probabilities of one event: numbers, or 1-D arrays broadcast against each other
PROBABILITIES = one_of(array(ndim=1, low=0.0, high=1.0), PROBABILITY)
#: the GDP parameter μ (μ = 100 already means ε ≈ 5,000; an audit certifies μ ≲ 15)
MU = real(0.0, 100.0)
#: largest number of trials per side :func:`audit_trials_needed` searches (beyond it: refused)
TRIALS_SEARCH_MAX = 10 ** 12


@validate(count=OCCURRENCES_OR_ARRAY, n=RUNS_OR_ARRAY, confidence=CONFIDENCE)
def clopper_pearson_bounds(count, n, *, confidence: float = 0.95) -> tuple[Any, Any]:
    """One-sided Clopper–Pearson bounds ``(p_lo, p_hi)`` on a binomial probability ([CP34]_).

    ``p_lo`` is the α-quantile of Beta(count, n − count + 1) (0 when count = 0) and ``p_hi``
    the (1 − α)-quantile of Beta(count + 1, n − count) (1 when count = n), with
    α = (1 − confidence)/2: each bound fails with probability at most α, so the interval
    [p_lo, p_hi] covers p with probability at least ``confidence``.

    Parameters
    ----------
    count, n : int or 1-D array of int
        Successes and trials, 0 ≤ count ≤ n (arrays: element by element, broadcast
        against each other).
    confidence : float
        The probability that both bounds hold.

    Returns
    -------
    tuple
        ``(p_lo, p_hi)`` with ``0 ≤ p_lo ≤ count/n ≤ p_hi ≤ 1``: Python floats for integer
        arguments, arrays otherwise.
    """
    scalar = np.ndim(count) == 0 and np.ndim(n) == 0
    c, m = _same_length("count", count, "n", n)
    if np.any(c > m):
        raise refuse("count", count, f"at most n = {_shown(n)}, element by element")
    alpha = _alpha(confidence)
    lo, hi = _cp_lower(c, m, alpha), _cp_upper(c, m, alpha)
    return (float(lo), float(hi)) if scalar else (lo, hi)


@validate(p=PROBABILITIES, p_prime=PROBABILITIES, delta=DELTA)
def epsilon_from_probabilities(p, p_prime, *, delta: float = 0.0) -> Any:
    """The ε that two probabilities of one event force: ``max(0, ln((p − δ)/p′))``.

    If ``p = P[M(D) ∈ S]`` and ``p′ = P[M(D′) ∈ S]``, (ε, δ)-DP requires p ≤ e^ε p′ + δ
    ([DR14]_ Def. 2.4), so ε ≥ ln((p − δ)/p′). With exact probabilities this is the privacy
    the event shows (``inf`` when p > δ and p′ = 0: no ε allows it); with Clopper–Pearson
    bounds p_lo and p′_hi in their places it is the audit's certified bound. ``p`` and
    ``p_prime`` broadcast against each other.

    Returns
    -------
    float or numpy.ndarray
        ≥ 0 (0 where p ≤ δ); a Python float for scalar arguments.
    """
    a, b = _same_length("p", p, "p_prime", p_prime)
    eps = _epsilon(a, b, delta)
    return float(eps) if np.ndim(p) == 0 and np.ndim(p_prime) == 0 else eps


@validate(p=PROBABILITIES, p_prime=PROBABILITIES)
def mu_from_probabilities(p, p_prime) -> Any:
    """The μ that two probabilities of one event force on a μ-GDP mechanism.

    ``max(0, Φ⁻¹(p) − Φ⁻¹(p′))`` for ``p = P[M(D) ∈ S] ≥ p′ = P[M(D′) ∈ S]``
    (see :func:`gdp_mu_lower_bound`; ``inf`` when p = 1 > p′ or p > p′ = 0: no μ allows it).

    Returns
    -------
    float or numpy.ndarray
        ≥ 0; a Python float for scalar arguments.
    """
    a, b = _same_length("p", p, "p_prime", p_prime)
    mu = _mu(a, b)
    return float(mu) if np.ndim(p) == 0 and np.ndim(p_prime) == 0 else mu


@validate(count=OCCURRENCES, n=RUNS, count_prime=OCCURRENCES, n_prime=RUNS, delta=DELTA,
          confidence=CONFIDENCE)
def epsilon_lower_bound(count: int, n: int, count_prime: int, n_prime: int, *,
                        delta: float = 0.0, confidence: float = 0.95) -> float:
    """A lower bound on ε certified, at ``confidence``, by the counts of one output event.

    The event happened ``count`` times in ``n`` runs on D and ``count_prime`` times in
    ``n_prime`` runs on D′. With α = (1 − confidence)/2 per side (Clopper–Pearson, [CP34]_)
    the bound is ``max(0, ln((p_lo − δ)/p′_hi))``: if the mechanism is (ε, δ)-DP, the
    returned value exceeds ε with probability at most 1 − ``confidence`` over the runs
    ([DWWZK18]_, [JUO20]_; δ enters through p ≤ e^ε p′ + δ, [NST+21]_). The event and the
    order (D, D′) must be fixed before these runs are looked at (:mod:`dpteach.audit.runs`
    chooses them on other runs).

    Parameters
    ----------
    count, n : int
        Occurrences and runs on D (count ≤ n).
    count_prime, n_prime : int
        The same on D′.

    Returns
    -------
    float
        ≥ 0 (0: no evidence against any ε).
    """
    p_lo, p_hi = _count_bounds(count, n, count_prime, n_prime, confidence)
    return float(_epsilon(p_lo, p_hi, delta))


@validate(count=OCCURRENCES, n=RUNS, count_prime=OCCURRENCES, n_prime=RUNS,
          confidence=CONFIDENCE)
def gdp_mu_lower_bound(count: int, n: int, count_prime: int, n_prime: int, *,
                       confidence: float = 0.95) -> float:
    """A lower bound on μ for a mechanism claimed μ-GDP, from the counts of one event.

    μ-GDP ([DRS22]_) says every test between M(D) and M(D′) has type-II error
    β ≥ G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) at type-I error α. Rejecting "D" when the output lies in
    S has α = p′ = P[M(D′) ∈ S] and β = 1 − p with p = P[M(D) ∈ S] (D here is the side
    where S is more likely), so ``μ ≥ Φ⁻¹(p) − Φ⁻¹(p′)``. With Clopper–Pearson bounds
    p ≥ p_lo and p′ ≤ p′_hi (each failing with probability ≤ (1 − confidence)/2):
    ``μ ≥ Φ⁻¹(p_lo) − Φ⁻¹(p′_hi)``. For the Gaussian mechanism (N(0, 1) against N(μ, 1))
    every threshold test meets the inequality with equality, so the bound converges to the
    true μ as the runs grow — unlike the (ε, δ) bound, which rests on one tail.

    The bound holds for any mechanism that is μ-GDP for some μ; turning it into a bound on ε
    (:func:`gdp_epsilon`) assumes the mechanism's privacy is *exactly* that of Gaussian
    noise (its trade-off curve is some G_μ). The arguments are those of
    :func:`epsilon_lower_bound`.
    """
    p_lo, p_hi = _count_bounds(count, n, count_prime, n_prime, confidence)
    return float(_mu(p_lo, p_hi))


@validate(mu=MU, delta=DELTA_POSITIVE)
def gdp_epsilon(mu: float, delta: float) -> float:
    """The ε at δ of a μ-GDP mechanism: the root of δ_μ(ε) = δ ([DRS22]_ Corollary 1).

    A mechanism is μ-GDP if and only if it is (ε, δ_μ(ε))-DP for every ε ≥ 0, with
    ``δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)`` — the exact δ(ε) of the Gaussian
    mechanism with Δ/σ = μ, so the root is
    :func:`dpteach.mechanisms.noise.gaussian_epsilon` with σ = 1 and Δ = μ (μ = 0 gives
    ε = 0). δ must be positive: a μ-GDP mechanism with μ > 0 is (ε, 0)-DP for no finite ε.
    """
    return _gdp_epsilon(mu, delta)


@validate(n_eval=RUNS, delta=DELTA, confidence=CONFIDENCE)
def max_certifiable_epsilon(n_eval: int, *, delta: float = 0.0,
                            confidence: float = 0.95) -> float:
    """The largest ε lower bound that ``n_eval`` runs per side can certify.

    Reached when the event happens on every run on one side and on none on the other:
    ``p_lo = α^{1/n}`` and ``p′_hi = 1 − α^{1/n}`` (α = (1 − confidence)/2), so the bound
    is ``ln((α^{1/n} − δ)/(1 − α^{1/n})) ≈ ln((1 − δ)·n / ln(1/α))``. A claim at or above it
    can never be refuted by ``n_eval`` runs, whatever the mechanism does. ``delta`` and
    ``confidence`` are those of :func:`epsilon_lower_bound`.
    """
    return _max_bound(n_eval, delta, _alpha(confidence))


@validate(claimed_epsilon=EPSILON_OR_ZERO, delta=DELTA, confidence=CONFIDENCE)
def audit_trials_needed(claimed_epsilon: float, *, delta: float = 0.0,
                        confidence: float = 0.95) -> int:
    """The fewest trials per side with which an audit could refute ``claimed_epsilon`` at all.

    An audit of :func:`dpteach.audit.runs.audit_mechanism` with ``n_trials`` runs per side
    chooses its test on ``n_trials // 2`` of them and evaluates it on the other
    ``n_eval = n_trials − n_trials // 2``; its bound is at most
    :func:`max_certifiable_epsilon` (n_eval). This returns the smallest ``n_trials`` for
    which that maximum exceeds the claim — fewer runs cannot say anything about it. Roughly
    ``2·e^ε·ln(1/α)/(1 − δ)``: each unit of ε multiplies the runs needed by e.

    Raises
    ------
    ParameterError
        If more than 10**12 trials per side would be needed (ε beyond about 24).
    """
    alpha = _alpha(confidence)
    limit = TRIALS_SEARCH_MAX // 2
    most = _max_bound(limit, delta, alpha)
    if most <= claimed_epsilon:
        raise refuse("claimed_epsilon", claimed_epsilon, f"< {most:.3g} for 1e12 trials per side")
    lo, hi = 0, 1                                 # invariant: _max_bound(hi) > eps ≥ (at lo)
    while _max_bound(hi, delta, alpha) <= claimed_epsilon:
        lo, hi = hi, min(2 * hi, limit)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _max_bound(mid, delta, alpha) > claimed_epsilon:
            hi = mid
        else:
            lo = mid
    return 2 * hi - 1                              # n − n // 2 = hi for n = 2·hi − 1


# ---------------------------------------------------------------------------- helpers
def _alpha(confidence: float) -> float:
    return (1.0 - confidence) / 2.0


def _cp_lower(count: np.ndarray, n: np.ndarray, alpha: float) -> np.ndarray:
    """The one-sided lower Clopper–Pearson bound (0 where count = 0), element by element."""
    with np.errstate(invalid="ignore", divide="ignore", under="ignore"):
        lo = stats.beta.ppf(alpha, np.maximum(count, 1.0), n - count + 1.0)
    return np.where(count > 0, lo, 0.0)


def _cp_upper(count: np.ndarray, n: np.ndarray, alpha: float) -> np.ndarray:
    """The one-sided upper Clopper–Pearson bound (1 where count = n), element by element."""
    with np.errstate(invalid="ignore", divide="ignore", under="ignore"):
        hi = stats.beta.ppf(1.0 - alpha, count + 1.0, np.maximum(n - count, 1.0))
    return np.where(count < n, hi, 1.0)


def _count_bounds(count: int, n: int, count_prime: int, n_prime: int,
                  confidence: float) -> tuple[float, float]:
    """p_lo of (count, n) and p′_hi of (count_prime, n_prime), after checking count ≤ n."""
    for name, c, n_name, m in (("count", count, "n", n), ("count_prime", count_prime,
                                                         "n_prime", n_prime)):
        if c > m:
            raise refuse(name, c, f"at most {n_name}={m}")
    alpha = _alpha(confidence)
    p_lo = _cp_lower(np.array(float(count)), np.array(float(n)), alpha)
    p_hi = _cp_upper(np.array(float(count_prime)), np.array(float(n_prime)), alpha)
    return float(p_lo), float(p_hi)


def _epsilon(p, p_prime, delta: float):
    """max(0, ln((p − δ)/p′)), 0 where p ≤ δ and inf where p > δ, p′ = 0 (unchecked)."""
    num = np.subtract(p, delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log(np.where(num > 0, num, 1.0)) - np.log(p_prime)
    return np.where(num > 0, np.maximum(eps, 0.0), 0.0)


def _mu(p, p_prime):
    """max(0, Φ⁻¹(p) − Φ⁻¹(p′)) (unchecked); 0 where p = p′ ∈ {0, 1} (inf − inf)."""
    with np.errstate(invalid="ignore"):
        mu = special.ndtri(p) - special.ndtri(p_prime)
    return np.where(np.isnan(mu), 0.0, np.maximum(mu, 0.0))


def _gdp_epsilon(mu: float, delta: float) -> float:
    return 0.0 if mu == 0.0 else float(gaussian_epsilon.__wrapped__(1.0, delta, mu))


def _max_bound(n_eval: int, delta: float, alpha: float) -> float:
    log_lo = math.log(alpha) / n_eval                       # ln α^{1/n} < 0
    lo = math.exp(log_lo)
    hi = -math.expm1(log_lo)                                # 1 − α^{1/n}, accurate for large n
    if lo - delta <= 0:
        return 0.0
    return max(0.0, math.log(lo - delta) - math.log(hi))


def _same_length(name: str, a, name_prime: str, b) -> tuple[np.ndarray, np.ndarray]:
    """``a`` and ``b`` as float arrays broadcast against each other (a number or 1-D each)."""
    try:
        a2, b2 = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    except ValueError:
        raise refuse(f"{name_prime}.shape", np.shape(b), f"{name}.shape {np.shape(a)}") from None
    return a2, b2


def _shown(x) -> str:
    return repr(x) if np.ndim(x) == 0 else f"array of shape {np.shape(x)}"


# Implementation notes: docs/library/audit.md.
