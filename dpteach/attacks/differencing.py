"""Differencing attacks on aggregate queries, and what Laplace noise does to them.

A database is a vector of private bits, one per person. Aggregates such as the
sum or the mean look harmless, yet two exact answers, on the database and on
the same database without person ``i``, reveal that person's bit. This module
lets a notebook run that attack, the same attack by an adaptive attacker who
only sees a yes/no threshold query, and the attack against Laplace noise, with
its exact success probability next to the limit that ε-DP places on *any*
attack, ``e^ε / (1 + e^ε)``.

Setting and conventions
-----------------------
* A database ``db`` is a 1-D array of n bits; "person i" is row i.
* Neighbours for the sensitivity functions are the n databases with one row
  removed (unbounded DP; :func:`dpteach.datasets.make_parallel_databases`,
  [DR14]_ Def 2.4). The noisy attack distinguishes ``x_i = 0`` from
  ``x_i = 1`` (the same person with the other value); for a count of bits both
  neighbour notions give sensitivity 1.
* Noise is added by :func:`dpteach.mechanisms.noise.laplace_mechanism` with
  sensitivity 1 (a count), so each noisy answer is ε-DP.

References
----------
.. [DN03] I. Dinur and K. Nissim. Revealing information while preserving
   privacy. PODS 2003. (Exact or slightly perturbed subset-sum answers allow
   reconstruction of the whole database; the differencing attack is the
   simplest case, two subset sums differing in one row.)
.. [DDS79] D. E. Denning, P. J. Denning and M. D. Schwartz. The tracker: a
   threat to statistical database security. ACM TODS 4(1), 1979. (Restricting
   which queries are answered does not stop an adaptive attacker.)
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014. Def 2.4 (DP),
   Thm 3.6 (Laplace mechanism), Thm 3.16 (basic composition).
.. [KOV15] P. Kairouz, S. Oh and P. Viswanath. The composition theorem for
   differential privacy. ICML 2015, Thm 2.1 (an ε-DP mechanism forces every
   test to have false-alarm P_FA and miss P_MD with
   ``P_FA + e^ε P_MD ≥ 1`` and ``e^ε P_FA + P_MD ≥ 1``).
.. [WZ10] L. Wasserman and S. Zhou. A statistical framework for differential
   privacy. JASA 105(489), 2010 (the hypothesis-testing view of DP).
.. [NA] J. P. Near and C. Abuah. *Programming Differential Privacy*, chapters
   "De-identification" (aggregation and differencing attacks) and
   "Sensitivity" (global vs local sensitivity).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special, stats

from .._validation import (EPSILON, FLAG, RNG, SCALE, VALUE, Domain, array, choice, function,
                           integer, one_of, refuse, validate)
from ..mechanisms.noise import laplace_mechanism

__all__ = [
    "query_sum", "query_mean", "count_at_least",
    "LocalSensitivityReport", "local_sensitivity",
    "DifferencingResult", "differencing_attack", "reconstruct_by_differencing",
    "ThresholdAttackResult", "threshold_attack",
    "dp_success_bound", "laplace_sum_sf", "noisy_attack_success", "simulate_noisy_attack",
]

SCENARIOS = ("known_rest", "two_queries")
MAX_ROWS = 10 ** 4          # rows of a database (the n² loops stay well under a second)
MAX_THRESHOLD = 10 ** 6     # t of count_at_least and threshold_attack (t dummy rows)


#: the rows a query sees: numbers at most 10¹⁵ in size (a sum of 10⁴ of them stays finite)
NUMBERS = array(low=-1e15, high=1e15, min_size=0, example=[0, 1, 1, 0, 1])
_NUMBERS = array(ndim=(1, 2), low=-1e15, high=1e15)
#: a database: one row per person (a 1-D array of values or a 2-D array of records)
DATABASE = Domain(f"a 1-D or 2-D array of numbers in [-1e15, 1e15] with 2 to {MAX_ROWS} rows",
                  lambda name, value: _rows(name, value), example=[0, 1, 1, 0, 1],
                  edges=([-1e15, 1e15, 0.0],),
                  bad=["abc", None, [[1.0, 2.0], [3.0]], [1.0], [0.0, np.nan], [0, np.inf],
                       np.zeros((2, 2, 2)), [True, False]])
#: a database of bits, one per person
BITS = array(ndim=1, min_size=2, max_size=MAX_ROWS, low=0, high=1, integers=True,
             example=[0, 1, 1, 0, 1])
#: a row index (at most n − 1: checked against the database)
TARGET = integer(0, MAX_ROWS - 1, example=1)
THRESHOLD = integer(1, MAX_THRESHOLD)
REPEATS = integer(1, 1000)
SCENARIO = choice(*SCENARIOS)
_CALLABLE = function("a callable")
QUERY = one_of(choice("sum", "mean"), _CALLABLE, text="'sum', 'mean' or a callable taking the rows")


# ------------------------------------------------------------------- the queries
@validate(x=NUMBERS)
def query_sum(x) -> float:
    """Counting query: the number of 1s (the sum of the values). Global sensitivity 1 on
    bits ([DR14]_ Sec 3.3)."""
    return float(np.sum(x))


@validate(x=NUMBERS)
def query_mean(x) -> float:
    """Fraction of 1s. Its change when one row is removed depends on n and the data.

    On n rows with mean m, removing a row with value v changes the mean by
    ``|m − v| / (n − 1)``; over all databases of all sizes this is not
    bounded below 1 (from n = 2 to n = 1), so the global sensitivity of the
    mean under unbounded DP is 1 unless n is public ([NA]_, "Sensitivity").
    Returns 0 for an empty database.
    """
    return float(x.mean()) if x.size else 0.0


@validate(threshold=THRESHOLD)
def count_at_least(threshold: int) -> Callable[[np.ndarray], float]:
    """Threshold query ``1[sum(x) ≥ threshold]`` ("are there at least t cases?").

    Its global sensitivity is 1 (one row can move the count across t), while
    on most databases no single row flips it, so its *local* sensitivity is
    often 0 ([NA]_, "Sensitivity"). An adaptive attacker can still use it to
    learn any bit (:func:`threshold_attack`).
    """

    @validate(x=NUMBERS)
    def query(x) -> float:
        return float(np.sum(x) >= threshold)

    query.__name__ = f"count_at_least_{threshold}"
    return query


# ----------------------------------------------------------------- sensitivity
@dataclass(frozen=True)
class LocalSensitivityReport:
    """Result of :func:`local_sensitivity`.

    Attributes
    ----------
    sensitivity : float
        ``max_i ‖q(D) − q(D_{−i})‖`` over the n neighbours D₋ᵢ of D (absolute
        value for a scalar query, the chosen ℓ_p norm for a vector query).
    differences : numpy.ndarray
        ``q(D) − q(D_{−i})`` for every i (signed), shape (n,) or (n, d).
    worst_person : int
        An index i attaining the maximum.
    answer : float or numpy.ndarray
        ``q(D)``.
    norm : int
        The ℓ_p norm used (1 or 2).
    """

    sensitivity: float
    differences: np.ndarray
    worst_person: int
    answer: float | np.ndarray
    norm: int = 1


@validate(query=QUERY, db=DATABASE, parallel=array(ndim=2, low=-1e15, high=1e15).or_none(),
          norm=choice(1, 2))
def local_sensitivity(query, db, parallel=None, norm: int = 1) -> LocalSensitivityReport:
    """Largest change of a query over all neighbours of one database.

    Computes ``max_i ‖q(D) − q(D_{−i})‖_p`` where D₋ᵢ is D without row i: the
    *local* sensitivity of q at D under unbounded DP ([NA]_, "Sensitivity").
    The global ℓ_p sensitivity ([DR14]_ Def 3.1 for ℓ1, Def 3.8 for ℓ2) takes
    the maximum over all pairs of neighbouring databases and is at least this
    value. Local sensitivity depends on the data and cannot itself be used to
    calibrate noise.

    Cost: n evaluations of the query on n − 1 rows each.

    Parameters
    ----------
    query : {"sum", "mean"} or callable
        A callable maps the rows (a 1-D array, or a 2-D array with one row per
        person) to a number or a 1-D array (e.g. :func:`count_at_least`,
        a histogram, the column sums), each in [-1e15, 1e15].
    db : array_like
        A 1-D array of values (e.g. bits) or a 2-D array with one row per person.
    parallel : array_like, optional
        For a 1-D ``db`` only: its neighbours, shape (n, n−1), row i being db
        without person i, as returned by
        :func:`dpteach.datasets.make_parallel_databases`. Rebuilt from ``db``
        if omitted.
    norm : {1, 2}
        The ℓ_p norm used for vector-valued queries (irrelevant for scalars).
    """
    q = _NAMED[query] if isinstance(query, str) else query
    n = db.shape[0]
    if parallel is not None and not _are_neighbours(parallel, db):
        raise refuse("parallel", parallel, "make_parallel_databases(db) of a 1-D db")
    full = _answer(q(db))
    diffs = np.empty((n,) + full.shape)
    for i in range(n):
        value = _answer(q(np.delete(db, i, axis=0)))
        if value.shape != full.shape:
            raise refuse("query", q, f"of one shape on every neighbour (row {i}: {value.shape})")
        diffs[i] = full - value
    sizes = np.abs(diffs) if full.ndim == 0 else np.linalg.norm(diffs, ord=norm, axis=1)
    worst = int(np.argmax(sizes))
    answer = float(full) if full.ndim == 0 else full
    return LocalSensitivityReport(float(sizes[worst]), diffs, worst, answer, norm)


# ----------------------------------------------------------- exact differencing
@dataclass(frozen=True)
class DifferencingResult:
    """Result of :func:`differencing_attack`: the bit ``guess`` recovered only from the two
    answers ``answer_full = q(D)`` and ``answer_without = q(D_{−i})`` (and n for the mean)."""

    guess: int
    answer_full: float
    answer_without: float
    query: str


@validate(db=BITS, target=TARGET, query=choice("sum", "mean"))
def differencing_attack(db, target: int, query: str = "sum") -> DifferencingResult:
    """Recover person ``target``'s bit from two exact aggregate answers.

    The attacker asks the curator for ``q(D)`` and ``q(D_{−i})`` (e.g. "how
    many patients have the disease?" and "how many patients other than the one
    born on 1 May 1980 have it?"). With the sum, ``x_i = q(D) − q(D_{−i})``;
    with the mean over n rows, ``x_i = n·q(D) − (n−1)·q(D_{−i})``. No noise,
    so the attack always succeeds: the simplest instance of the reconstruction
    attacks of [DN03]_ (see also [NA]_, "De-identification").
    """
    _row_of(db, target)
    n = db.size
    full, without = _NAMED[query](db), _NAMED[query](np.delete(db, target))
    value = full - without if query == "sum" else n * full - (n - 1) * without
    return DifferencingResult(int(round(value)), full, without, query)


@validate(db=BITS)
def reconstruct_by_differencing(db) -> tuple[np.ndarray, int]:
    """Recover every bit of ``db`` from n + 1 exact sum queries.

    Asks ``sum(D)`` once and ``sum(D_{−i})`` for each i; ``x_i`` is the
    difference ([DN03]_: exact answers to O(n) subset sums reveal the whole
    database).

    Returns
    -------
    (numpy.ndarray, int)
        The reconstructed bits and the number of queries asked (n + 1).
    """
    full = _sum(db)
    guesses = [round(full - _sum(np.delete(db, i))) for i in range(db.size)]
    return np.array(guesses, dtype=np.int64), db.size + 1


# --------------------------------------------------------- adaptive threshold
@dataclass(frozen=True)
class ThresholdAttackResult:
    """Result of :func:`threshold_attack`.

    Attributes
    ----------
    guess : int or None
        The recovered bit, or None if the answers cannot determine it (only
        possible when dummies are not allowed and the other rows hold fewer
        than t ones).
    n_queries : int
        Threshold queries asked.
    transcript : list of (int, int, bool, bool)
        For each query: number of other real rows included, number of dummy
        rows, whether the target was included, and the yes/no answer.
    """

    guess: int | None
    n_queries: int
    transcript: list = field(default_factory=list)


@validate(db=BITS, target=TARGET, threshold=THRESHOLD, allow_dummies=FLAG)
def threshold_attack(db, target: int, threshold: int,
                     allow_dummies: bool = True) -> ThresholdAttackResult:
    """Learn a bit from yes/no answers to "do at least t of these rows have a 1?".

    The curator only answers the threshold query ``1[count(S) ≥ t]`` (see
    :func:`count_at_least`) on a set S of rows chosen by the attacker; the
    attacker may also add *dummy* rows whose bit is known to be 1 (accounts it
    created itself), which the curator cannot tell apart from real ones.

    Strategy (a tracker in the sense of [DDS79]_):

    1. Put the other rows in a fixed order r₁, …, r_{n−1}, then append dummies
       d₁, …, d_t. The sets ``S_k`` = first k items grow one item at a time,
       so ``count(S_k)`` grows by 0 or 1 per step, and ``count(S_{n−1+t}) ≥ t``.
    2. Binary-search the smallest k with answer "yes". Then
       ``count(S_k) = t`` and ``count(S_{k−1}) = t − 1`` exactly: the target is
       never included, so the search does not depend on its bit.
    3. Ask about ``S_{k−1} ∪ {target}``: the answer is "yes" iff the target's
       bit is 1.

    This needs at most ⌈log₂(n − 1 + t)⌉ + 2 queries. Without dummies the
    search needs the other rows to hold at least t ones; if they hold exactly
    t − 1 the final question still reveals a 1 but cannot tell a 0 from "too
    few ones", and with fewer the attack learns nothing (guess None).
    """
    _row_of(db, target)
    others = np.delete(db, target)
    m = others.size
    n_dummies = threshold if allow_dummies else 0
    transcript: list = []

    def ask(k: int, with_target: bool) -> bool:
        real = min(k, m)
        dummies = k - real
        rows = np.concatenate([others[:real], np.ones(dummies),
                               db[[target]] if with_target else np.zeros(0)])
        answer = bool(np.sum(rows) >= threshold)          # the curator's count_at_least(t)
        transcript.append((real, dummies, with_target, answer))
        return answer

    top = m + n_dummies
    if not ask(top, False):             # the others (+ dummies) never reach t
        if ask(top, True):              # only possible without dummies, count = t − 1
            return ThresholdAttackResult(1, len(transcript), transcript)
        # "no" again: the target's bit is 0 *or* the others hold fewer than
        # t − 1 ones; the answers cannot tell which, so the attack gives up.
        return ThresholdAttackResult(None, len(transcript), transcript)
    lo, hi = 0, top                      # answer(lo) is "no" (t ≥ 1), answer(hi) is "yes"
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ask(mid, False) else (mid, hi)
    guess = int(ask(hi - 1, True))
    return ThresholdAttackResult(guess, len(transcript), transcript)


# ---------------------------------------------------------- attacks under noise
@validate(epsilon=EPSILON)
def dp_success_bound(epsilon: float) -> float:
    """Largest success probability of any test between two neighbours under ε-DP.

    With a uniform prior on the two hypotheses ("x_i = 0" vs "x_i = 1"), an
    ε-DP mechanism forces ``P_FA + e^ε P_MD ≥ 1`` and ``e^ε P_FA + P_MD ≥ 1``
    ([KOV15]_ Thm 2.1, after [WZ10]_; both follow from [DR14]_ Def 2.4
    applied to the attacker's rejection region). Adding them gives
    ``P_FA + P_MD ≥ 2/(1 + e^ε)``, so the success probability
    ``1 − (P_FA + P_MD)/2`` is at most ``e^ε/(1 + e^ε)``. Randomized response
    attains it.
    """
    return float(special.expit(epsilon))


@validate(m=integer(1, 10**6, work=True), a=VALUE, scale=SCALE)
def laplace_sum_sf(m: int, a: float, scale: float = 1.0) -> float:
    """``P(L₁ + … + L_m > a)`` for i.i.d. Laplace(0, ``scale``) variables, exactly.

    Write the sum as ``G₁ − G₂`` with G₁, G₂ independent Gamma(m, scale)
    (a Laplace variable is the difference of two exponentials). For a ≥ 0,
    in units of the scale, conditioning on G₂ = g, using the Gamma(m)
    survival function ``e^{−u} Σ_{j<m} u^j/j!`` and integrating over g gives

    ``P = Σ_{l=0}^{m−1} NB(l; m, ½) · P(Poisson(a) ≤ m − 1 − l)``,

    where ``NB(l; m, ½) = C(m+l−1, l) 2^{−(m+l)}`` is the negative-binomial
    pmf. All terms are probabilities, so the sum is stable; it costs O(m).
    m = 1 gives ``½e^{−a}``, m = 2 gives ``½e^{−a}(1 + a/2)``. For a < 0,
    symmetry gives ``1 − P(sum > −a)``.
    """
    if a < 0:
        return 1.0 - laplace_sum_sf.__wrapped__(m, -a, scale)
    l = np.arange(m)
    terms = stats.nbinom.pmf(l, m, 0.5) * stats.poisson.cdf(m - 1 - l, a / scale)
    return float(min(1.0, np.sum(terms)))


@validate(epsilon=EPSILON, k=REPEATS, scenario=SCENARIO)
def noisy_attack_success(epsilon: float, k: int = 1, scenario: str = "known_rest") -> float:
    """Exact success probability of the noisy differencing attack.

    Every answer is a count plus independent ``Lap(1/ε)`` noise
    (:func:`dpteach.mechanisms.noise.laplace_mechanism`, ε-DP per answer,
    [DR14]_ Thm 3.6). The attacker averages what it gets into a statistic
    ``Z = x_i + noise`` and guesses ``x_i = 1`` iff ``Z > ½`` (half the
    sensitivity). Success is the same for both values of the bit, so
    ``P(success) = 1 − P(noise > ½)``.

    ``scenario="known_rest"``
        The worst-case adversary of the DP definition: it knows everyone
        else's bits, so ``Σ_{j≠i} x_j`` exactly, and asks the noisy count
        ``q(D)`` k times. ``Z`` is the mean of the k answers minus the known
        rest: ``noise = (L₁ + … + L_k)/k``. For k = 1 the ½-threshold is the
        likelihood-ratio (Bayes-optimal) test, with success
        ``1 − ½ e^{−ε/2}``.
    ``scenario="two_queries"``
        The attacker knows nothing else. It asks both ``q(D)`` and
        ``q(D_{−i})`` k times each, with fresh noise on *each* answer, and
        uses ``Z`` = mean of the first minus mean of the second:
        ``noise = (L₁ + … + L_k − L'₁ − … − L'_k)/k``, distributed as the sum
        of 2k Laplace variables over k. For k = 1 the success is
        ``1 − ½ e^{−ε/2}(1 + ε/4)``.

    Both use :func:`laplace_sum_sf`. Only the answers to ``q(D)`` depend on
    ``x_i``, so the attack faces k·ε of privacy loss (basic composition,
    [DR14]_ Thm 3.16) and its success is at most
    ``dp_success_bound(k·ε)``. For k > 1 averaging is not the optimal test
    (a likelihood-ratio test on all answers does slightly better); it is
    shown because it is what an analyst would do.
    """
    m = k if scenario == "known_rest" else 2 * k
    # noise = S_m / k > 1/2  ⇔  S_m > k/2, with Laplace scale 1/ε
    return 1.0 - laplace_sum_sf.__wrapped__(m, k / 2, 1.0 / epsilon)


@validate(db=BITS, target=TARGET, epsilon=EPSILON, k=integer(1, 100), scenario=SCENARIO,
          n_trials=integer(1, 10**5, work=True), rng=RNG)
def simulate_noisy_attack(db, target: int, epsilon: float, k: int = 1,
                          scenario: str = "known_rest", n_trials: int = 10_000,
                          rng=None) -> float:
    """Run the noisy differencing attack ``n_trials`` times; return its success rate.

    Answers come from :func:`dpteach.mechanisms.noise.laplace_mechanism` (sensitivity
    1, budget ``epsilon`` per answer), and the guess is made exactly as in
    :func:`noisy_attack_success`, whose value this estimates (the success
    rate over T trials has standard deviation ``√(s(1−s)/T)``). ``epsilon`` is the ε of
    each answer, ``k`` the repetitions of each query.
    """
    _row_of(db, target)
    full = _sum(db)
    rest = full - db[target]
    answers = laplace_mechanism(np.full((n_trials, k), full), 1.0, epsilon, rng=rng)
    if scenario == "known_rest":
        z = answers.mean(axis=1) - rest
    else:
        without = laplace_mechanism(np.full((n_trials, k), rest), 1.0, epsilon, rng=rng)
        z = answers.mean(axis=1) - without.mean(axis=1)
    return float(np.mean((z > 0.5) == db[target]))


# ------------------------------------------------------------------ helpers
_sum, _mean = query_sum.__wrapped__, query_mean.__wrapped__     # unchecked, for the loops
_NAMED = {"sum": _sum, "mean": _mean}
_ANSWER = array(ndim=(0, 1), low=-1e15, high=1e15)


def _are_neighbours(parallel: np.ndarray, db: np.ndarray) -> bool:
    """Whether row i of ``parallel`` is the 1-D ``db`` without row i, for every i."""
    n = db.shape[0]
    return db.ndim == 1 and parallel.shape == (n, n - 1) and all(
        np.array_equal(row, np.delete(db, i)) for i, row in enumerate(parallel))


def _row_of(db: np.ndarray, target: int) -> None:
    """Refuse a ``target`` that is not a row of ``db``."""
    if target >= db.size:
        raise refuse("target", target, f"a row of db, in [0, {db.size - 1}]")


def _answer(value: Any) -> np.ndarray:
    """A query's answer: a number or a 1-D array of numbers in [-1e15, 1e15] (True and
    False count as 1 and 0)."""
    if np.asarray(value).dtype == bool:
        value = np.asarray(value, dtype=float)
    return _ANSWER("query's answer", value)


def _rows(name: str, value: Any) -> np.ndarray:
    d = _NUMBERS(name, value)
    if not 2 <= d.shape[0] <= MAX_ROWS:
        raise DATABASE.refuse(f"{name}.shape", d.shape)
    raw_kind = value.dtype.kind if isinstance(value, np.ndarray) else np.asarray(value).dtype.kind
    if (raw_kind in "iu" and np.all(np.abs(d) <= 2**31)) or np.all((d == 0) | (d == 1)):
        return d.astype(np.int64)          # integer data (bits, category codes) stays integer
    return d


# Engineering notes: docs/library/attacks.md.
