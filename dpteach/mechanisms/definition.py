"""The definition of differential privacy, computed: what (ε, δ) promises and what it allows.

A randomized algorithm M is (ε, δ)-differentially private if for every pair of neighbouring
datasets D, D′ and every set S of outputs (an *event*)

    P[M(D) ∈ S] ≤ e^ε · P[M(D′) ∈ S] + δ          ([DR14]_ Def. 2.4; [DMNS06]_ for δ = 0)

(the pair in both orders). This module checks the definition on output distributions and
states four of its consequences:

* :func:`laplace_event_probability` — P[M(D) ∈ S] for the Laplace mechanism and an
  interval S, the numbers the definition compares;
* :func:`smallest_delta` and :func:`smallest_epsilon` — for two output distributions over
  the same finite set of outcomes, the smallest δ at a given ε (the worst event is
  ``{o : p(o) > e^ε p′(o)}``: the *hockey-stick divergence*, [BBG18]_) and the smallest ε
  at a given δ, over every event at once;
* :func:`posterior_bound` — what an observer can learn: under ε-DP the odds that D (not D′)
  produced an output grow by at most e^ε, whatever the observer knew before ([KS14]_);
* :func:`group_privacy` — k people (a family) are protected as a group with kε
  ([DR14]_ Thm 2.2) and a δ that grows faster than k;
* :func:`publish_random_records` — why δ must be far below 1/n: a mechanism that is
  (0, δ)-DP and yet publishes each person's complete record with probability δ
  ([DR14]_ Sec. 2.3, after Def. 2.4).

References
----------
.. [DMNS06] C. Dwork, F. McSherry, K. Nissim and A. Smith. Calibrating noise to
   sensitivity in private data analysis. TCC 2006.
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014. Def. 2.4, Thm 2.1
   (post-processing), Thm 2.2 (group privacy).
.. [BBG18] B. Balle, G. Barthe and M. Gaboardi. Privacy amplification by subsampling:
   tight analyses via couplings and divergences. NeurIPS 2018 (the hockey-stick
   divergence characterises (ε, δ)-DP).
.. [KS14] S. P. Kasiviswanathan and A. Smith. On the 'semantics' of differential
   privacy: a Bayesian formulation. Journal of Privacy and Confidentiality 6(1), 2014.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from .._validation import (DELTA, EPSILON, EPSILON_OR_ZERO, FLAG, PROBABILITY, RNG, SENSITIVITY,
                           VALUE, Domain, array, describe, integer, one_of, refuse, validate)

__all__ = ["laplace_event_probability", "smallest_delta", "smallest_epsilon", "posterior_bound", "group_privacy",
           "publish_random_records"]

#: the ends of intervals: numbers or arrays of numbers, ±inf for half-lines (not NaN)
ENDS = Domain("a number or an array of numbers (-inf and inf allowed: half-lines)",
              lambda name, value: _ends(name, value), example=0.0,
              edges=(-math.inf, math.inf), bad=[math.nan, "1", None, [math.nan], 1j])
#: an output distribution over finitely many outcomes
_PROBABILITIES = array(ndim=1, low=0.0, high=1.0, max_size=10**6, example=[0.25, 0.75],
                       text="a probability vector: a 1-D array of at most 10**6 numbers in "
                            "[0, 1] summing to 1")
DISTRIBUTION = Domain(_PROBABILITIES.text, lambda name, value: _distribution(name, value),
                      example=[0.25, 0.75], edges=([1.0],),
                      bad=[*_PROBABILITIES.bad, [0.5, 0.25], [1.0, 1.0]])
#: prior probabilities: a number or an array of numbers in [0, 1]
PRIORS = one_of(PROBABILITY, array(low=0.0, high=1.0, min_size=0),
                text="a number or an array of numbers in [0, 1]")
#: how many people a group holds (a family, a household, a class)
GROUP_SIZE = integer(1, 10_000, example=3)
#: the records of a dataset, one per row
RECORDS = Domain("a table of records, one per row: a pandas DataFrame or Series, or an "
                 "array of at least one dimension", lambda name, value: _records(name, value),
                 example=[[1, 0], [0, 1], [1, 1]],
                 bad=[None, "abc", 3.0, {"a": 1}, [[1, 2], [3]]])


@validate(low=ENDS, high=ENDS, value=VALUE, sensitivity=SENSITIVITY, epsilon=EPSILON, log=FLAG)
def laplace_event_probability(low, high, value: float, sensitivity: float, epsilon: float, *,
                              log: bool = False):
    """P[M(D) ∈ S] for the Laplace mechanism M and the interval event S = (low, high].

    M(D) = value + Lap(b) with b = Δ/ε ([DR14]_ Thm 3.6), whose distribution function is
    ½e^{(y − value)/b} below ``value`` and 1 − ½e^{−(y − value)/b} above it ([DR14]_
    Def. 3.2). In standard units u = (low − value)/b, v = (high − value)/b:

        ½ e^v (1 − e^{u − v})          if v ≤ 0 (S left of the answer),
        ½ e^{−u} (1 − e^{u − v})       if u ≥ 0 (S right of it),
        1 − ½e^u − ½e^{−v}             otherwise,

    each evaluated without cancellation, so tail events keep their relative accuracy.

    ``low`` ≤ ``high`` are broadcast against each other (``-inf`` / ``inf`` for
    half-lines); ``value`` is the exact answer f(D); ``log=True`` returns the natural log
    of the probability (−inf for an empty interval).
    """
    low, high = np.broadcast_arrays(low, high)
    if np.any(low > high):
        raise refuse("low", low.tolist(), f"at most high={describe(high.tolist())}: (low, high]")
    scale = sensitivity / epsilon
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):  # empty: below
        u, v = (low - value) / scale, (high - value) / scale
        empty = low == high
        gap = np.where(empty, 0.0, u - v)                  # ≤ 0
        log_p = np.where(v <= 0, math.log(0.5) + v + np.log1p(-np.exp(gap)),
                         np.where(u >= 0, math.log(0.5) - u + np.log1p(-np.exp(gap)),
                                  np.log(-0.5 * np.expm1(np.minimum(u, 0.0))
                                         - 0.5 * np.expm1(-np.maximum(v, 0.0)))))
    log_p = np.where(empty, -np.inf, log_p)
    result = log_p if log else np.exp(log_p)
    return float(result) if result.ndim == 0 else result


@validate(p=DISTRIBUTION, p_prime=DISTRIBUTION, epsilon=EPSILON_OR_ZERO)
def smallest_delta(p, p_prime, epsilon: float) -> float:
    """The smallest δ for which two output distributions meet (ε, δ)-DP, over every event.

    For outcomes o with probabilities p(o) = P[M(D) = o] and p′(o) = P[M(D′) = o], the
    event that gains most from D over D′ is S = {o : p(o) > e^ε p′(o)}, so

        δ(ε) = max( Σ_o max(0, p(o) − e^ε p′(o)),  Σ_o max(0, p′(o) − e^ε p(o)) ),

    the larger of the two hockey-stick divergences ([BBG18]_); the pair satisfies the
    inequality of [DR14]_ Def. 2.4 for every event, in both orders, exactly when δ ≥ δ(ε).
    At ε = 0 it is the total-variation distance.
    """
    p, p_prime = _pair(p, p_prime)
    return max(_one_way(p, p_prime, epsilon), _one_way(p_prime, p, epsilon))


@validate(p=DISTRIBUTION, p_prime=DISTRIBUTION, delta=DELTA)
def smallest_epsilon(p, p_prime, delta: float = 0.0) -> float:
    """The smallest ε for which two output distributions meet (ε, δ)-DP, over every event.

    For δ = 0 it is the largest |ln(p(o)/p′(o))| over the outcomes ([DR14]_ Def. 2.4: for
    pure DP the worst event is a single outcome), and ``inf`` when an outcome is possible
    under one dataset only. For δ > 0 it is where :func:`smallest_delta` falls to δ
    (found by bisection: δ(ε) decreases in ε), 0 if the distributions are already within
    δ in total variation, and ``inf`` if the outcomes possible on one side only carry
    more than δ. "Within δ" allows a relative 1e-9 for the rounding of the probabilities
    (1 − 0.999 is not exactly 0.001 in floating point). ``p`` and ``p_prime`` are as in
    :func:`smallest_delta`.
    """
    p, p_prime = _pair(p, p_prime)
    both = (p > 0) & (p_prime > 0)
    lone = max(p[~both].sum(), p_prime[~both].sum())   # outcomes possible on one side only
    allowed = delta * (1 + _ROUNDING)
    if lone > allowed:
        return math.inf
    ratios = np.abs(np.log(p[both]) - np.log(p_prime[both]))
    high = float(ratios.max()) if ratios.size else 0.0  # there, δ(high) = lone ≤ δ
    if delta == 0:
        return high
    low = 0.0
    if smallest_delta.__wrapped__(p, p_prime, low) <= allowed:
        return 0.0
    while high - low > 1e-15 * max(1.0, high):        # keeps δ(high) ≤ δ < δ(low)
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if smallest_delta.__wrapped__(p, p_prime, middle) <= allowed:
            high = middle
        else:
            low = middle
    return high


@validate(prior=PRIORS, epsilon=EPSILON_OR_ZERO)
def posterior_bound(prior, epsilon: float):
    """The largest belief an observer can reach, from ``prior``, after one ε-DP output.

    An observer weighs "the data are D" (prior probability ``prior``) against "the data
    are D′" (a neighbour: the same people with one added, removed or changed). Seeing
    output o, Bayes' rule multiplies the prior odds by p(o)/p′(o), at most e^ε under ε-DP,
    so the posterior probability of D is at most

        e^ε · prior / (e^ε · prior + 1 − prior)

    whatever the observer knew before ([KS14]_). The smallest posterior
    is ``1 − posterior_bound(1 − prior, epsilon)``. The bound holds for δ = 0 only: with
    δ > 0 some outputs may settle the question (:func:`publish_random_records`). At ε = 0
    nothing is learned. The result has the shape of ``prior``.
    """
    # e^ε·prior odds, as a probability: expit(ε + logit(prior)) never overflows
    bound = special.expit(epsilon + special.logit(prior))
    return float(bound) if np.ndim(bound) == 0 else bound


@validate(epsilon=EPSILON, k=GROUP_SIZE, delta=DELTA)
def group_privacy(epsilon: float, k: int, delta: float = 0.0) -> tuple[float, float]:
    """The guarantee an (ε, δ)-DP mechanism gives a group of k people: (kε, δ_k).

    Datasets that differ in k people are joined by a path of k neighbours, D = D₀, D₁, …,
    D_k. Applying the definition along the path,
    P[M(D₀) ∈ S] ≤ e^ε P[M(D₁) ∈ S] + δ ≤ … ≤ e^{kε} P[M(D_k) ∈ S] + δ_k with

        δ_k = δ (1 + e^ε + … + e^{(k−1)ε}) = δ (e^{kε} − 1)/(e^ε − 1) ≤ k e^{(k−1)ε} δ

    ([DR14]_ Thm 2.2 for δ = 0; the same chain for δ > 0). For δ = 0 the bound kε is
    attained, e.g. by the Laplace mechanism on a count that k people move by k. δ_k is
    reported as 1.0 (no guarantee) once the sum reaches 1.
    """
    if delta == 0:
        return k * epsilon, 0.0
    # log δ_k = log δ + log(e^{kε} − 1) − log(e^ε − 1), without overflow
    log_delta_k = math.log(delta) + _log_expm1(k * epsilon) - _log_expm1(epsilon)
    return k * epsilon, (math.exp(log_delta_k) if log_delta_k < 0 else 1.0)


@validate(records=RECORDS, delta=DELTA, rng=RNG)
def publish_random_records(records, delta: float, rng=None):
    """Publish each record, whole, with probability δ: (0, δ)-DP, and not private at all.

    Adding, removing or replacing one person changes the output only when that person's
    coin comes up (probability δ), so for every event
    P[M(D) ∈ S] ≤ P[M(D′) ∈ S] + δ: the mechanism is (0, δ)-DP. Yet it prints complete
    records: each person's with probability δ, about n·δ of them in a dataset of n people.
    With δ near 1/n someone is exposed in a typical run; hence δ ≪ 1/n ([DR14]_ Sec. 2.3,
    after Def. 2.4). Returns the published rows (often none), in their original order and
    of the type of ``records``.
    """
    published = rng.random(len(records)) < delta
    return records[published]


# ------------------------------------------------------------------------ helpers
_ROUNDING = 1e-9   # relative slack on δ for probabilities given to about 1e-16 each


def _distribution(name: str, value: Any) -> np.ndarray:
    """A probability vector: numbers in [0, 1] adding up to 1 (to 1e-9)."""
    dist = _PROBABILITIES(name, value)
    if abs(float(dist.sum()) - 1.0) <= 1e-9:
        return dist
    raise refuse(name, dist.tolist(), f"a probability vector (sum {dist.sum():.12g})")


def _pair(p: np.ndarray, p_prime: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two probability vectors over the same outcomes (the rule that ties them)."""
    if p.shape != p_prime.shape:
        raise refuse("p_prime.shape", p_prime.shape, f"p.shape {p.shape}: the same outcomes")
    return p, p_prime


def _ends(name: str, value: Any) -> Any:
    """Interval ends: a float, or a float array; infinities allowed, NaN refused."""
    try:                          # numbers only: not booleans, strings, None or NaN
        arr = np.asarray(value, dtype=float)
        ok = np.asarray(value).dtype.kind in "iuf" and not np.any(np.isnan(arr))
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise ENDS.refuse(name, value)
    return float(arr) if arr.ndim == 0 else arr


def _records(name: str, value: Any) -> Any:
    """The records as given (a pandas object) or as an array of at least one dimension."""
    if hasattr(value, "iloc") and hasattr(value, "__len__"):       # a pandas table or column
        return value
    try:
        arr = None if value is None or isinstance(value, (str, bytes, dict)) else np.asarray(value)
    except (TypeError, ValueError):                                  # ragged nested lists
        arr = None
    if arr is None or arr.ndim == 0:
        raise RECORDS.refuse(name, value)
    return arr


def _one_way(p: np.ndarray, q: np.ndarray, epsilon: float) -> float:
    """Σ_o max(0, p(o) − e^ε q(o)), in logs where q > 0 so that e^ε never overflows."""
    gains = p > 0
    with np.errstate(divide="ignore"):                 # log 0 = -inf: q(o) = 0 gains all of p(o)
        log_p, log_q = np.log(p[gains]), np.log(q[gains])
    worst = log_p - log_q > epsilon                    # the event {o : p(o) > e^ε q(o)}
    excess = p[gains][worst] - np.exp(epsilon + log_q[worst])
    return float(min(max(excess.sum(), 0.0), 1.0))


def _log_expm1(x: float) -> float:
    """log(e^x − 1) for x > 0, accurate for tiny x and without overflow for large x."""
    return x + math.log(-math.expm1(-x))


# Engineering notes. smallest_delta works in logs (e^ε q(o) is never formed when it would
# exceed p(o) ≤ 1), so ε up to the domain's 1e3 is exact. smallest_epsilon's bisection keeps
# δ(high) ≤ δ as an invariant and stops at a relative width of 1e-15 (at most about 60
# halvings from the largest log-ratio), so the returned ε meets δ as computed. group_privacy
# sums the geometric series in logs: kε reaches 1e7 inside the domain. Tests:
# tests/mechanisms/test_definition.py (every event by brute force, the Gaussian mechanism's
# exact δ, randomized response, simulation) and the generated cases of tests/test_domains.py.
