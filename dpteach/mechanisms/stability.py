"""Privacy from stability: subsample-and-aggregate, propose-test-release, stable selection.

These techniques release a statistic whose *global* sensitivity is useless
(the median of ages can jump from 20 to 60 when one person is added) but which
is *stable* on the dataset at hand.

* :func:`subsample_and_aggregate` ([NRS07]_; [DR14]_ Sec 7.1): split the data
  into m disjoint blocks, compute any statistic on each block, clip the m
  estimates to a public range [a, b] and aggregate them privately. One person
  is in one block, so changes one clipped estimate: the mean of the estimates
  has sensitivity (b − a)/m.
* :func:`propose_test_release_median` ([DL09]_; [DR14]_ Sec 7.2): propose a
  bound on the median's local sensitivity, privately test how far the dataset
  is from any dataset violating it, and either release the median with noise
  scaled to the proposed bound or refuse (⊥).
* :func:`stable_selection` (the two combined, [ST13]_ Sec 3; [DR14]_ Sec 7.3):
  run any selector — a feature selector, a model-selection procedure, code
  nobody has analysed — on m disjoint blocks, privately test how many block
  answers would have to change before the most common one could lose its lead,
  and release that answer exactly, or refuse (⊥).

Neighbouring datasets
---------------------
In this module neighbours differ by **replacing** one record (the dataset size
n is public). That is the model in which a fixed partition into blocks changes
in exactly one block, and in which the median's local sensitivity at distance k
has the closed form of [NRS07]_ used here. (Under adding or removing one record
the split into m nearly equal consecutive pieces of a shuffled table moves
every block boundary; a split that puts each record in a block of its own
choosing, by a random hash of an identifier say, would change one block again.)

References
----------
.. [NRS07] K. Nissim, S. Raskhodnikova and A. Smith. Smooth sensitivity and
   sampling in private data analysis. STOC 2007 (full version 2011).
.. [DL09] C. Dwork and J. Lei. Differential privacy and robust statistics.
   STOC 2009.
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014.
.. [ST13] A. Smith and A. Thakurta. Differentially private feature selection
   via stability arguments, and the robustness of the Lasso. COLT 2013, JMLR
   W&CP 30: 819-850 (Sec 3: releasing a function's value by its distance to
   instability, and the most common answer of a selector run on subsamples).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from .._validation import (COUNT, DELTA_POSITIVE, EPSILON, RNG, VALUE, Domain, array, choice,
                           function, integer, one_of, real, refuse, validate)
from .definition import RECORDS as TABLE
from .noise import laplace_mechanism
from .selection import private_median

__all__ = [
    "block_estimates", "subsample_and_aggregate_sensitivity", "subsample_and_aggregate",
    "median_local_sensitivity", "median_distance_to_instability", "ptr_pass_probability",
    "PTRResult", "propose_test_release_median",
    "block_answers", "mode_distance_to_instability", "stable_selection_pass_probability",
    "StableSelection", "stable_selection",
]

N_BLOCKS_MAX = 10 ** 9         #: largest number of blocks m in the sensitivity (m) formula
BLOCKS_MAX = 10 ** 5           #: most blocks the statistic is computed on (a loop: ~1 s)
GRID_SIZE_MAX = 10 ** 6        #: largest candidate grid of the median aggregator
MIN_WIDTH = 1e-6               #: upper − lower must be at least this (a noise scale > 0)

#: the records (rows)
RECORDS = array(ndim=(1, 2), low=-1e15, high=1e15, example=[1.0, 2.0, 2.0, 3.0, 5.0, 8.0])
#: the records of the median: numbers
NUMBERS = array(ndim=1, low=-1e15, high=1e15, example=[1.0, 2.0, 2.0, 3.0, 5.0, 8.0])
#: the statistic computed on each block
STATISTIC = Domain("'mean', 'median' or a callable block -> number",
                   lambda name, value: _statistic(name, value), example="mean",
                   edges=("mean", "median", np.max), bad=["mode", None, 1.5, ["mean"]])
#: m, the number of blocks (at most the number of records: checked in the function)
BLOCKS = integer(1, BLOCKS_MAX, work=True, example=3)
#: a proposed bound on the median's local sensitivity, in the units of the data
BOUND = one_of(real(0.0, 0.0), real(1e-9, 2e15), text="0 or a number in [1e-9, 2e15]")
#: γ, the number of records to change (or inf: never unstable)
DISTANCE = real(0.0, math.inf, example=3.0)
#: the selector of stable selection
SELECTOR = function("a callable block -> answer, the answer hashable (a name, a number, a "
                    "tuple of names)", example=len)
#: the selector's answers, one per block
ANSWERS = Domain("a non-empty list of hashable answers of one type, one per block",
                 lambda name, value: _answers(name, value), example=["a", "b", "a"],
                 bad=[None, "abc", [], [["a"], ["b"]], ["a", ("a",)], [float("nan")], 3])


# -------------------------------------------------------- subsample & aggregate
@validate(data=RECORDS, statistic=STATISTIC, n_blocks=BLOCKS, rng=RNG)
def block_estimates(data, statistic="mean", n_blocks: int = 10,
                    rng=None) -> np.ndarray:
    """The statistic on each of ``n_blocks`` disjoint random blocks — **not private**.

    The records are put in a uniformly random order (a permutation drawn from
    ``rng``, independent of the data) and split into ``n_blocks`` contiguous
    blocks of sizes differing by at most one (:func:`numpy.array_split`).
    Replacing one record changes exactly one block. This is the first step of
    :func:`subsample_and_aggregate`, exposed so that students can see the
    spread of the block estimates; publishing them is *not* differentially
    private. A callable ``statistic`` receives one block (an array of rows) and returns a
    number; the m estimates are returned raw (not yet clipped).
    """
    _at_most_rows(n_blocks, data)
    blocks = np.array_split(data[rng.permutation(data.shape[0])], n_blocks)
    out = np.empty(n_blocks)
    for j, block in enumerate(blocks):
        value = statistic(block)
        try:
            out[j] = float(value)
        except (TypeError, ValueError) as exc:
            raise refuse("statistic(block)", value, "one number per block") from exc
    return out


@validate(lower=VALUE, upper=VALUE, n_blocks=integer(1, N_BLOCKS_MAX, example=3))
def subsample_and_aggregate_sensitivity(lower: float, upper: float, n_blocks: int) -> float:
    """Sensitivity ``(b − a)/m`` of the mean of m block estimates clipped to [a, b].

    Replacing one record changes one block, hence one clipped estimate, by at
    most ``b − a``; the mean of m estimates moves by at most ``(b − a)/m``
    ([NRS07]_; [DR14]_ Sec 7.1). The public range needs b − a ≥ 1e-6.
    """
    _check_range(lower, upper)
    return (upper - lower) / n_blocks


@validate(data=RECORDS, statistic=STATISTIC, n_blocks=BLOCKS, lower=VALUE, upper=VALUE,
          epsilon=EPSILON, aggregator=choice("mean", "median"),
          grid_size=integer(2, GRID_SIZE_MAX, work=True, example=201), rng=RNG)
def subsample_and_aggregate(data, statistic, n_blocks: int, lower: float,
                            upper: float, epsilon: float, aggregator: str = "mean",
                            grid_size: int = 201, rng=None) -> float:
    """ε-DP release of any statistic by subsample-and-aggregate.

    1. Randomly partition the n records into m = ``n_blocks`` disjoint blocks
       (:func:`block_estimates`) and compute ``statistic`` on each block.
    2. Clip each estimate to the public range [a, b] = [``lower``, ``upper``]
       (undefined estimates → (a+b)/2, ±inf → b / a).
    3. Aggregate privately:

       * ``aggregator="mean"``: mean of the clipped estimates plus
         ``Lap((b − a)/(m ε))`` — sensitivity (b − a)/m, [DR14]_ Thm 3.6.
       * ``aggregator="median"``: the exponential-mechanism median of the
         clipped estimates over ``grid_size`` equally spaced candidates in
         [a, b] (:func:`dpteach.mechanisms.selection.private_median` with
         ``neighbouring="replace"``, Δu = 2), robust to a few wild blocks.

    ε-DP under replacement neighbours ([NRS07]_ sample-and-aggregate;
    [DR14]_ Sec 7.1). The statistic can be anything — a black box — but the
    answer is only good when the statistic is accurate on blocks of size n/m:
    the privacy noise shrinks like 1/m while each block's sampling error grows
    like √(m/n). ``statistic`` is as in :func:`block_estimates`; m is at most n and the
    public range needs b − a ≥ 1e-6.
    """
    sens = subsample_and_aggregate_sensitivity.__wrapped__(lower, upper, n_blocks)
    est = _clip_estimates(block_estimates(data, statistic, n_blocks, rng=rng), lower, upper)
    if aggregator == "median":
        # np.unique: near ±1e15 neighbouring grid points can round to the same double
        grid = np.unique(np.linspace(lower, upper, grid_size))
        return private_median(est, grid, epsilon, neighbouring="replace", rng=rng)
    return laplace_mechanism.__wrapped__(float(est.mean()), sens, epsilon, rng=rng)


# ---------------------------------------------------- propose-test-release
@validate(data=NUMBERS, lower=VALUE, upper=VALUE, distance=COUNT)
def median_local_sensitivity(data, lower: float, upper: float,
                             distance: int = 0) -> float:
    """Largest local sensitivity of the median within ``distance`` of ``data`` (**not private**).

    The median is the order statistic ``x_(m)``, ``m = ⌈n/2⌉`` (the lower median
    when n is even), of the data clipped to the public domain [a, b]. Its local
    sensitivity under replacement is
    ``LS(x) = max(x_(m+1) − x_(m), x_(m) − x_(m−1))`` with ``x_(0) = a``,
    ``x_(n+1) = b``, and the largest local sensitivity among datasets at
    Hamming distance ≤ k is

    ``A^(k)(x) = max_{0 ≤ t ≤ k+1} (x_(m+t) − x_(m+t−k−1))``

    (padding ``x_(i) = a`` for i ≤ 0, ``b`` for i ≥ n+1) — [NRS07]_, the
    computation behind the smooth sensitivity of the median. ``distance=0``
    gives LS(x) itself.
    """
    _check_range(lower, upper)
    xp, m = _padded_sorted(data, lower, upper)
    return _ls_at_distance(xp, m, min(distance, xp.size))


@validate(data=NUMBERS, bound=BOUND, lower=VALUE, upper=VALUE)
def median_distance_to_instability(data, bound: float, lower: float,
                                   upper: float) -> float:
    """γ(x): changes needed before the median's local sensitivity exceeds ``bound`` (not private).

    ``γ(x) = min{k ≥ 0 : A^(k)(x) > bound}`` with ``A^(k)`` from
    :func:`median_local_sensitivity` (non-decreasing in k, so found by
    bisection in O(n log n)). γ = 0 means the local sensitivity already exceeds
    the bound; ``inf`` when ``bound ≥ b − a`` (no dataset can exceed it).
    Replacing one record changes γ by at most 1, which is what lets
    :func:`propose_test_release_median` test it with Laplace noise. [a, b] is the public
    data domain; γ is returned as a float (a whole number or ``inf``).
    """
    _check_range(lower, upper)
    xp, m = _padded_sorted(data, lower, upper)
    if bound >= upper - lower:
        return math.inf
    n = xp.size - 2
    if _ls_at_distance(xp, m, 0) > bound:
        return 0.0
    lo, hi = 0, n          # A^(lo) ≤ bound < A^(hi) = b − a
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _ls_at_distance(xp, m, mid) > bound:
            hi = mid
        else:
            lo = mid
    return float(hi)


@validate(distance=DISTANCE, epsilon=EPSILON, delta=DELTA_POSITIVE)
def ptr_pass_probability(distance: float, epsilon: float, delta: float) -> float:
    """Probability that PTR's test passes when the true distance is ``distance``.

    ``Pr[γ + Lap(2/ε) > t]`` with ``t = ln(1/δ)/(ε/2)`` (see
    :func:`propose_test_release_median`). At γ = 0 it equals δ/2: the chance of
    releasing when the proposed bound is already violated. γ may be ``inf``
    (:func:`median_distance_to_instability`).
    """
    if math.isinf(distance):
        return 1.0
    exponent = (_ptr_threshold(epsilon, delta) - distance) / (2.0 / epsilon)   # (t − γ)·ε/2
    if exponent >= 0:
        return 0.5 * math.exp(-exponent)
    return 1.0 - 0.5 * math.exp(exponent)


@dataclass(frozen=True)
class PTRResult:
    """Outcome of :func:`propose_test_release_median`.

    ``value`` is the noisy median, or ``None`` (⊥) when the test refused.
    ``noisy_distance`` is part of the private output (it is the Laplace-noised
    distance the test used); the exact distance is not reported.
    """

    value: float | None
    released: bool
    reason: str
    noisy_distance: float
    threshold: float
    bound: float
    epsilon: float
    delta: float


@validate(data=NUMBERS, bound=BOUND, lower=VALUE, upper=VALUE, epsilon=EPSILON,
          delta=DELTA_POSITIVE, rng=RNG)
def propose_test_release_median(data, bound: float, lower: float, upper: float,
                                epsilon: float, delta: float, rng=None) -> PTRResult:
    """Propose-test-release for the median ([DL09]_; [DR14]_ Sec 7.2).

    Setting: n records in a public bounded domain [a, b] = [``lower``,
    ``upper``] — for instance integer ages 17…90; values outside are clipped to
    it (a per-record map, so privacy is unaffected). Discrete domains have many
    ties, which is exactly what makes the median's local sensitivity small. The
    median is the lower median ``x_(⌈n/2⌉)``; neighbours differ in one record
    (n public).

    1. **Propose** a bound b = ``bound`` on the local sensitivity of the median.
    2. **Test**: γ = :func:`median_distance_to_instability` (how many records
       must change before some dataset has local sensitivity > b; γ has
       sensitivity 1). Draw ``γ̂ = γ + Lap(1/ε₀)`` with ε₀ = ε/2. If
       ``γ̂ ≤ ln(1/δ)/ε₀`` refuse: return ``value=None``.
    3. **Release** ``median + Lap(b/ε₀)``.

    Privacy: (ε, δ)-DP — in fact (ε, δ/2). For neighbours x, x′: if either has
    local sensitivity ≤ b then ``|med(x) − med(x′)| ≤ b``, the test outcome
    (an ε₀-DP function of γ) and the release (ε₀-DP given the median moves by
    ≤ b) compose to ε. If both have local sensitivity > b then γ(x) = γ(x′) = 0,
    the test behaves identically on both, and it passes with probability
    ``½·e^{−ln(1/δ)} = δ/2`` — the only place where the output may differ.
    """
    gamma = median_distance_to_instability(data, bound, lower, upper)
    eps0 = epsilon / 2.0
    threshold = _ptr_threshold(epsilon, delta)
    noisy = gamma + float(rng.laplace(0.0, 1.0 / eps0))
    if noisy <= threshold:
        reason = (f"refused (⊥): noisy distance to a dataset whose median has local "
                  f"sensitivity > {bound:g} is {noisy:.2f} ≤ threshold ln(1/δ)/(ε/2) = "
                  f"{threshold:.2f}; the median is not stable enough for this bound")
        return PTRResult(None, False, reason, noisy, threshold, bound, epsilon, delta)
    xp, m = _padded_sorted(data, lower, upper)
    median = float(xp[m])
    if bound == 0:
        value = median        # Lap(0): the median is locally constant up to distance γ
    else:
        value = median + float(rng.laplace(0.0, bound / eps0))
    reason = (f"released: noisy distance {noisy:.2f} > threshold ln(1/δ)/(ε/2) = "
              f"{threshold:.2f}; median + Lap({bound:g}/(ε/2))")
    return PTRResult(value, True, reason, noisy, threshold, bound, epsilon, delta)


# ------------------------------------------------------ private selection by stability
@validate(data=TABLE, selector=SELECTOR, n_blocks=BLOCKS, rng=RNG)
def block_answers(data, selector, n_blocks: int, rng=None) -> list:
    """The selector's answer on each of ``n_blocks`` disjoint random blocks — **not private**.

    The rows are put in a uniformly random order (drawn from ``rng``, independent of the
    data) and cut into ``n_blocks`` consecutive blocks of sizes differing by at most one,
    as in :func:`block_estimates`; replacing one record changes one block, hence at most
    one answer. This is the first step of :func:`stable_selection`, exposed so that
    students can see how the blocks vote; publishing the answers is *not* private.

    ``selector`` receives one block (rows of ``data``, of the same type: an array or a
    DataFrame) and returns an answer: a name, a number or a tuple of names (anything
    hashable; every block an answer of the same type). m is at most the number of rows.
    """
    _at_most_rows(n_blocks, data)
    rows = np.array_split(rng.permutation(data.shape[0]), n_blocks)
    answers = [selector(data.iloc[r] if hasattr(data, "iloc") else data[r]) for r in rows]
    return ANSWERS("selector's answers", answers)


@validate(answers=ANSWERS)
def mode_distance_to_instability(answers) -> int:
    """γ: block answers that can change before one more change could alter the most common.

    Let c₁ ≥ c₂ be the two largest counts among the answers (c₂ = 0 when all agree)
    and g = c₁ − c₂ the lead of the most common answer. Changing one answer moves
    each of c₁, c₂ by at most one, so g by at most 2. The answer is *unstable* when one
    change can alter it, i.e. g ≤ 2 (moving one block from the leader to the runner-up
    leaves a tie or a new leader); reaching g ≤ 2 from g takes ⌈(g − 2)/2⌉ changes, so

    ``γ = max(0, ⌈g/2⌉ − 1)``,

    the distance to instability of the most common answer ([DR14]_ Sec 7.3; [ST13]_
    Sec 3). One changed answer moves γ by at most 1. **Not private**: it is computed
    from the answers (:func:`block_answers`).
    """
    lead = _lead(Counter(answers))[1]
    return max(0, math.ceil(lead / 2) - 1)


@validate(distance=DISTANCE, epsilon=EPSILON, delta=DELTA_POSITIVE)
def stable_selection_pass_probability(distance: float, epsilon: float, delta: float) -> float:
    """The probability that :func:`stable_selection` releases, at distance γ = ``distance``.

    The test passes when ``γ + Lap(1/ε) > t`` with ``t = ln(1/δ)/ε``; from the Laplace
    tails,

    ``Pr[pass] = ½·δ·e^{εγ}`` if εγ ≤ ln(1/δ), and ``1 − e^{−εγ}/(2δ)`` otherwise.

    At γ = 0 it is δ/2: the chance of releasing an answer one change could alter. It
    exceeds 1 − β once γ ≥ (ln(1/δ) + ln(1/(2β)))/ε (the accuracy statement of
    [DR14]_ Sec 7.3, there with ln(1/β)).
    """
    if math.isinf(distance):
        return 1.0
    excess = epsilon * distance + math.log(delta)          # εγ − ln(1/δ) = ε(γ − t)
    if excess <= 0:
        return 0.5 * math.exp(excess)
    return 1.0 - 0.5 * math.exp(-excess)


@dataclass(frozen=True)
class StableSelection:
    """Outcome of :func:`stable_selection`: its private output only.

    ``answer`` is the most common block answer, or ``None`` (⊥) when the test refused;
    ``noisy_distance`` is the Laplace-noised distance the test compared with
    ``threshold`` = ln(1/δ)/ε (releasing it with the answer keeps the guarantee). The
    block answers and the exact distance are not reported: :func:`block_answers` and
    :func:`mode_distance_to_instability` show them, for teaching.
    """

    answer: object
    released: bool
    reason: str
    noisy_distance: float
    threshold: float
    n_blocks: int
    epsilon: float
    delta: float


@validate(data=TABLE, selector=SELECTOR, n_blocks=BLOCKS, epsilon=EPSILON,
          delta=DELTA_POSITIVE, rng=RNG)
def stable_selection(data, selector, n_blocks: int, epsilon: float, delta: float,
                     rng=None) -> StableSelection:
    """Release a selector's most common answer over disjoint blocks, if it is stable.

    Subsample-and-aggregate and propose-test-release combined ([ST13]_ Sec 3;
    [DR14]_ Sec 7.3; Dwork & Lei 2009 for the test):

    1. split the rows into m = ``n_blocks`` disjoint random blocks and run ``selector``
       on each (:func:`block_answers`);
    2. compute γ, how many answers can change before one more change could alter the
       most common answer (:func:`mode_distance_to_instability`);
    3. draw ``γ̂ = γ + Lap(1/ε)``; if ``γ̂ > ln(1/δ)/ε`` release the most common
       answer, exactly; otherwise refuse (⊥).

    Privacy: (ε, δ)-DP — in fact (ε, δ/2) — under replace-one neighbours (n public).
    Fix the split (drawn independently of the data). Replacing one record changes one
    block, hence one answer, so γ by at most 1. If γ ≥ 1 on either dataset, that
    dataset's most common answer survives any one change, so both datasets have the
    same one, and the output is a function of γ̂ alone: ε-DP ([DR14]_ Thm 3.6). If
    γ = 0 on both, each releases with probability ``Pr[Lap(1/ε) > ln(1/δ)/ε] = δ/2``
    and outputs ⊥ otherwise, so every event's probability differs by at most δ/2.
    The selector needs no analysis at all: the test pays for it (all of ε).

    A release is likely only when γ > ln(1/δ)/ε, which needs m > 2 ln(1/δ)/ε + 2 blocks
    even when all agree. ``rng`` draws the split, then the noise.
    """
    answers = block_answers.__wrapped__(data, selector, n_blocks, rng=rng)
    gamma = mode_distance_to_instability.__wrapped__(answers)
    threshold = -math.log(delta) / epsilon
    noisy = gamma + float(rng.laplace(0.0, 1.0 / epsilon))
    answer, lead = _lead(Counter(answers))
    if noisy <= threshold or lead == 0:           # lead 0: a tie, no answer to release
        reason = (f"refused (⊥): noisy distance {noisy:.2f} ≤ threshold ln(1/δ)/ε = "
                  f"{threshold:.2f}; the blocks do not agree enough")
        return StableSelection(None, False, reason, noisy, threshold, n_blocks, epsilon, delta)
    reason = (f"released: noisy distance {noisy:.2f} > threshold ln(1/δ)/ε = "
              f"{threshold:.2f}; the most common of {n_blocks} block answers")
    return StableSelection(answer, True, reason, noisy, threshold, n_blocks, epsilon, delta)


# ------------------------------------------------------------------------ helpers
_STATISTICS = {"mean": np.mean, "median": np.median}


def _statistic(name: str, value):
    """The block statistic: a callable, or the function named "mean" / "median"."""
    if callable(value):
        return value
    if isinstance(value, str) and value in _STATISTICS:
        return _STATISTICS[value]
    raise STATISTIC.refuse(name, value)


def _check_range(lower: float, upper: float) -> None:
    """The rule tying the two ends of the public range: b − a ≥ 1e-6."""
    if not upper - lower >= MIN_WIDTH:
        raise refuse("upper", upper, f"at least lower + {MIN_WIDTH:g} (lower={lower!r})")


def _at_most_rows(n_blocks: int, data: np.ndarray) -> None:
    """The rule tying the number of blocks to the data: m ≤ n."""
    if n_blocks > data.shape[0]:
        raise refuse("n_blocks", n_blocks, f"at most the number of records ({data.shape[0]})")


def _clip_estimates(est: np.ndarray, lower: float, upper: float) -> np.ndarray:
    # A block statistic may be undefined (nan) or infinite; map it to a fixed
    # value inside [a, b] — a per-block, data-independent rule, so the
    # sensitivity argument is unchanged.
    est = np.nan_to_num(est, nan=lower / 2.0 + upper / 2.0, posinf=upper, neginf=lower)
    return np.clip(est, lower, upper)


def _padded_sorted(x: np.ndarray, lower: float, upper: float) -> tuple[np.ndarray, int]:
    """``[a, x_(1), …, x_(n), b]`` (clipped to [a, b]) and the median rank m = ⌈n/2⌉."""
    xs = np.sort(np.clip(x, lower, upper))
    return np.concatenate([[lower], xs, [upper]]), (xs.size + 1) // 2


def _ls_at_distance(xp: np.ndarray, m: int, k: int) -> float:
    """``A^(k) = max_{0≤t≤k+1} (x_(m+t) − x_(m+t−k−1))`` with x_(i≤0) = a, x_(i≥n+1) = b."""
    n1 = xp.size - 1                       # index of the upper pad, n + 1
    t = np.arange(k + 2)
    hi = np.minimum(m + t, n1)
    lo = np.maximum(m + t - k - 1, 0)
    return float(np.max(xp[hi] - xp[lo]))


def _lead(counts: Counter) -> tuple:
    """The most common answer and its lead g = c₁ − c₂ over the runner-up (0: a tie)."""
    (first, c1), *rest = counts.most_common(2)
    return first, c1 - (rest[0][1] if rest else 0)


def _answers(name: str, value):
    """A selector's answers: a non-empty list of hashable values of one type, each equal to
    itself (NaN is not: it would never be counted with another NaN)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)) or not value:
        raise ANSWERS.refuse(name, value)
    kinds = {type(a) for a in value}
    for j, a in enumerate(value):
        try:
            hash(a)
        except TypeError:
            raise refuse(name, a, f"hashable, a tuple not {type(a).__name__} (block {j})") from None
        if a is None or a != a:
            raise refuse(name, a, f"equal to themselves, not None or NaN (block {j})")
    if len(kinds) > 1:                # answers of different types never count together
        raise refuse(f"{name}' types", sorted(k.__name__ for k in kinds), "one type")
    return list(value)


def _ptr_threshold(epsilon: float, delta: float) -> float:
    """``t = ln(1/δ)/(ε/2)``, with ``−log δ`` for ``log(1/δ)``."""
    return -math.log(delta) / (epsilon / 2.0)


# Engineering notes. In the teaching domain (|a|, |b| ≤ 1e15 with b − a ≥ 1e-6, m ≤ 10**9,
# ε in [1e-6, 1e3], δ ≥ 1e-50) the sensitivity (b − a)/m lies in [1e-12, 2e15], the PTR
# threshold below 3e8 and the noise scales are finite and > 0, so no branch handles their
# over- or underflow. The mean aggregator adds the Laplace noise of
# mechanisms.noise.laplace_mechanism (its unchecked body: (b − a)/m is a library-made
# sensitivity, beyond that function's teaching domain when m is large). Tests:
# tests/mechanisms/test_stability.py and the generated cases of tests/test_domains.py.
