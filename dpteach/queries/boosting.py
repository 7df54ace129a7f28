"""Boosting for queries: a synopsis good on every query from synopses good on most of them.

Boosting ([DRV10]_; [DR14]_ §6.1, Figure 6.1) keeps a distribution D_t over the *queries*,
starting uniform. Each round a **base synopsis generator** sees k queries sampled from D_t
and returns a synopsis A_t that only has to be accurate on most of D_t's weight; the
queries it answers badly gain weight, so the next round works on what is still wrong. The
answer released for a query is the **median** of the T synopses' answers.

The reweighting looks at the true answers, so it is damped (Figure 6.1, step 3): error ≤ λ
scores a = 1, error ≥ λ + μ scores a = −1, and in between a = 1 − 2(error − λ)/μ; a
query's weight is exp(−α Σ_j a_j), α = ½ ln((1 + 2η)/(1 − 2η)). One person moves a score
by at most 2ρ/μ, so each of the kT sampled queries is (4αTρ/μ)-DP ([DR14]_ Claim 6.4) and,
with an (ε_base, δ_base)-DP base generator, the run is (ε_sample + T·ε_base, δ_sample +
T·δ_base)-DP ([DR14]_ Theorem 6.1, part 2), ε_sample composing the kT samples.

Neighbouring datasets replace one person, so n is fixed and public, as in
:mod:`dpteach.queries.mwem` (the synopses are scaled to n).

Our base generator answers the k sampled counting queries (ρ = 1) with Lap(k/ε_base)
(ε_base-DP, basic composition) and fits a histogram to them by multiplicative weights
(post-processing). Unlike [DR14]_ §6.2's (a search over small databases) it has no proof
of accuracy on a ½ + η share of D_t: :class:`BoostingResult` lets you measure that share.

References
----------
.. [DRV10] C. Dwork, G. N. Rothblum and S. Vadhan. Boosting and differential privacy.
   FOCS 2010.
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential Privacy*.
   Foundations and Trends in TCS 9(3-4), 2014: §6.1, Figure 6.1, Claim 6.4, Theorem 6.1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import DELTA_POSITIVE, EPSILON, RNG, integer, real, refuse, validate
from ..accounting.composition import advanced_composition
from .linear import HISTOGRAM, QUERIES

__all__ = ["BoostingResult", "boosting_for_queries", "boosting_privacy"]

ROUNDS = integer(1, 1000, work=True, example=4)
SAMPLE = integer(1, 10_000, work=True, example=3)
PASSES = integer(0, 100, work=True, example=2)
PEOPLE, MARGIN = real(0.0, 1e9, example=2.0), real(1e-3, 1e9, example=4.0)  #: λ ≥ 0, μ > 0
ETA = real(1e-6, 0.49, example=0.25)               #: the base generator's edge η < ½


@dataclass(frozen=True)
class BoostingResult:
    """Output of :func:`boosting_for_queries`: ``answers``, the median over rounds of
    ``synopses`` (T × k, in people); ``weights`` D_1 … D_{T+1}; ``scores`` the a_{t,q};
    ``sampled`` each round's k queries; ``alpha`` = ½ ln((1 + 2η)/(1 − 2η)).

    :func:`boosting_privacy` covers ``answers``, ``synopses`` and ``sampled``. ``weights``
    and ``scores`` are computed from the true answers: they are for studying the run,
    never for release."""

    answers: np.ndarray
    synopses: np.ndarray
    weights: np.ndarray
    scores: np.ndarray
    sampled: np.ndarray
    alpha: float


@validate(queries=QUERIES, hist=HISTOGRAM, rounds=ROUNDS, sample_size=SAMPLE, lam=PEOPLE,
          mu=MARGIN, eta=ETA, epsilon_base=EPSILON, passes=PASSES, rng=RNG)
def boosting_for_queries(queries, hist, *, rounds: int, sample_size: int, lam: float,
                         mu: float, eta: float, epsilon_base: float, passes: int = 5,
                         rng=None) -> BoostingResult:
    """Boosting for queries ([DR14]_ §6.1, Figure 6.1) with a Laplace base generator.

    Parameters
    ----------
    queries : LinearQueries or array_like (k, |U|)
        The query set Q (counting queries: sensitivity ρ = 1).
    hist : array_like, shape (|U|,)
        The true histogram x of n people.
    rounds, sample_size : int
        T, and k: the queries the base generator sees each round (drawn from D_t).
    lam, mu : float
        λ and μ of the damped reweighting, in people.
    eta : float
        η, the edge the base generator is meant to have (sets α).
    epsilon_base : float
        The base generator's ε per round.
    passes : int
        Extra multiplicative-weights passes over the k noisy answers (fitting A_t).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    BoostingResult (its privacy: :func:`boosting_privacy`)
    """
    true, Q, n = queries.answer(hist), queries.matrix, float(hist.sum())
    if (work := rounds * (sample_size * (passes + 1) + queries.k) * hist.size) > 10**9:
        raise refuse("rounds, sample_size, passes", (rounds, sample_size, passes),
                     f"≤ 1e9 cell operations on k={queries.k}, |U|={hist.size} (got {work:.2g})")
    alpha = 0.5 * math.log((1 + 2 * eta) / (1 - 2 * eta))
    weights, total = [np.full(queries.k, 1.0 / queries.k)], np.zeros(queries.k)
    synopses, scores, sampled = [], [], []
    for _ in range(rounds):
        S = rng.choice(queries.k, size=sample_size, p=weights[-1])          # 1. sample
        noisy = true[S] + rng.laplace(0.0, sample_size / epsilon_base, size=sample_size)
        A = np.full(hist.size, n / hist.size)                               # 2. synopsis
        for i in np.tile(np.arange(sample_size), passes + 1):   # MW towards m in [0, n]
            A = A * np.exp(Q[S[i]] * (min(max(noisy[i], 0), n) - Q[S[i]] @ A) / (2 * n))
            A *= n / A.sum()
        answer = Q @ A
        a = _scores(np.abs(answer - true), lam, mu)                          # 3. reweight
        total += a
        u = np.exp(-alpha * (total - total.min()))       # the same D: a constant factor
        weights.append(u / u.sum())                                          # 4. normalise
        synopses.append(answer)
        scores.append(a)
        sampled.append(S)
    table = np.array(synopses)
    return BoostingResult(np.median(table, axis=0), table, np.array(weights),
                          np.array(scores), np.array(sampled), alpha)


@validate(rounds=ROUNDS, sample_size=SAMPLE, mu=MARGIN, eta=ETA, epsilon_base=EPSILON,
          delta_sample=DELTA_POSITIVE)
def boosting_privacy(rounds: int, sample_size: int, mu: float, eta: float,
                     epsilon_base: float, delta_sample: float) -> tuple[float, float]:
    """The (ε, δ) of :func:`boosting_for_queries` ([DR14]_ Theorem 6.1, part 2).

    Each of the kT sampled queries is ε₀-DP with ε₀ = 4αTρ/μ ([DR14]_ Claim 6.4; ρ = 1 for
    counting queries, μ in people); advanced composition of the kT samples gives
    ε_sample with slack δ_sample ([DR14]_ Theorem 3.20), and the T base generators add
    T·ε_base (pure DP here: δ_base = 0). Where basic composition of the samples (kT·ε₀,
    [DR14]_ Theorem 3.16) is smaller, it is used instead: both bounds hold.

    Returns
    -------
    (epsilon, delta) : tuple of float
        ``(ε_sample + T·ε_base, δ_sample)``.
    """
    alpha = 0.5 * math.log((1 + 2 * eta) / (1 - 2 * eta))
    eps_one, samples = 4 * alpha * rounds / mu, rounds * sample_size
    eps_sample = samples * eps_one                    # basic composition: also a bound
    if eps_one < 1:                                   # where advanced composition can help
        eps_sample = min(eps_sample, advanced_composition.__wrapped__(
            eps_one, 0.0, samples, delta_sample)[0])
    return eps_sample + rounds * epsilon_base, delta_sample


def _scores(errors: np.ndarray, lam: float, mu: float) -> np.ndarray:
    """a = 1 for an error ≤ λ, −1 for ≥ λ + μ, linear in between ([DR14]_ Figure 6.1)."""
    return np.clip(1.0 - 2.0 * (errors - lam) / mu, -1.0, 1.0)


# Engineering notes. Weights use Σ_j a_j minus its minimum (the same D, no overflow); work
# is bounded like mwem's. Tests: tests/queries/test_boosting.py, tests/test_domains.py.
