"""Tests for dpteach.mechanisms.stability: subsample-and-aggregate, propose-test-release and
stable selection (the two combined).

Tolerances: a mean of R i.i.d. draws with standard deviation s is accepted
within 5·s/√R of its expectation (false-alarm rate 5.7e-7 under the normal
approximation); a single Laplace(s) draw within s·ln(1/β) of its centre with
β = 1e-6 (tail probability exactly β).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpteach.mechanisms import stability as R
from dpteach.mechanisms import selection as S
from _props import (
    BAD_DELTA,
    NON_FINITE_ARRAYS,
    NOT_A_NUMBER,
    NOT_POSITIVE_FINITE,
    assert_rejects_bad_values,
    call_rejects,
)

from dpteach._validation import ParameterError

BETA_LOG = math.log(1e6)     # |Lap(s)| > s·ln(1e6) has probability 1e-6


# ================================================== subsample and aggregate
def test_block_estimates_partition_the_data():
    x = np.arange(100.0)
    est = R.block_estimates(x, "mean", 10, rng=0)
    assert est.shape == (10,)
    assert est.mean() == pytest.approx(x.mean(), rel=1e-14)   # equal blocks: mean of means
    np.testing.assert_array_equal(est, R.block_estimates(x, "mean", 10, rng=0))
    # blocks of sizes 34, 33, 33 with a callable statistic: the sizes add up to n
    sizes = R.block_estimates(np.ones(100), lambda b: b.size, 3, rng=1)
    np.testing.assert_array_equal(sizes, [34, 33, 33])
    # 2-D records and a custom statistic
    X = np.column_stack([np.arange(10.0), np.ones(10)])
    est2 = R.block_estimates(X, lambda b: b[:, 1].sum(), 5, rng=2)
    np.testing.assert_array_equal(est2, [2, 2, 2, 2, 2])


def test_blocks_are_a_random_partition_not_contiguous_slices():
    # Sorted data 0..999 in 10 blocks: contiguous slices would give block means 49.5, 149.5, …
    # A uniformly random partition gives means 499.5 ± SE with SE ≤ sd/√100 ≈ 28.9 (sampling
    # without replacement only shrinks it); allow 5 SE.
    x = np.arange(1000.0)
    est = R.block_estimates(x, "mean", 10, rng=4)
    assert np.all(np.abs(est - x.mean()) <= 5 * x.std() / math.sqrt(100))
    assert not np.array_equal(est, R.block_estimates(x, "mean", 10, rng=5))


def test_replacing_one_record_changes_one_block():
    gen = np.random.default_rng(3)
    for _ in range(50):
        x = gen.normal(size=60)
        x2 = x.copy()
        x2[gen.integers(60)] = 99.0
        a = R.block_estimates(x, "median", 6, rng=7)
        b = R.block_estimates(x2, "median", 6, rng=7)
        assert np.count_nonzero(a != b) <= 1


def test_subsample_and_aggregate_sensitivity_is_attained_and_respected():
    assert R.subsample_and_aggregate_sensitivity(0.0, 100.0, 20) == 5.0
    # with the same seed (same partition, same Laplace draw) neighbouring outputs
    # differ by the change of the clipped mean, which is at most (b − a)/m ...
    gen = np.random.default_rng(4)
    a, b, m = 0.0, 10.0, 8
    worst = 0.0
    for _ in range(200):
        x = gen.uniform(-5, 15, size=40)
        x2 = x.copy()
        x2[gen.integers(40)] = gen.choice([-1e6, 1e6, 5.0])
        o1 = R.subsample_and_aggregate(x, "mean", m, a, b, 1.0, rng=11)
        o2 = R.subsample_and_aggregate(x2, "mean", m, a, b, 1.0, rng=11)
        worst = max(worst, abs(o1 - o2))
    assert worst <= (b - a) / m * (1 + 1e-12)
    # ... and the bound is attained: blocks of one record moved from a to b
    x = np.zeros(8)
    x2 = x.copy()
    x2[3] = 10.0
    o1 = R.subsample_and_aggregate(x, "mean", 8, a, b, 1.0, rng=5)
    o2 = R.subsample_and_aggregate(x2, "mean", 8, a, b, 1.0, rng=5)
    assert abs(o1 - o2) == pytest.approx((b - a) / 8, rel=1e-12)


def test_subsample_and_aggregate_is_unbiased_for_the_mean():
    """Equal blocks, no clipping: E[output] = sample mean exactly.

    Output = x̄ + Lap(s), s = (b − a)/(mε) = 100/(20·1) = 5, SD √2·s; R = 400 runs,
    tolerance 5·√2·s/√R ≈ 1.77.
    """
    x = np.random.default_rng(5).normal(50, 10, size=2000)
    outs = [R.subsample_and_aggregate(x, "mean", 20, 0.0, 100.0, 1.0, rng=s) for s in range(400)]
    s = 100.0 / 20
    assert abs(np.mean(outs) - x.mean()) <= 5 * math.sqrt(2) * s / math.sqrt(400)
    # the spread is the Laplace noise: sample SD within 5 SE of √2·s (SE of a SD
    # estimate ≈ σ·√((κ−1)/(4R)) with kurtosis κ = 6 for the Laplace)
    sd = np.std(outs, ddof=1)
    assert abs(sd - math.sqrt(2) * s) <= 5 * math.sqrt(2) * s * math.sqrt(5 / (4 * 400))


def test_subsample_and_aggregate_accuracy_and_clipping():
    x = np.random.default_rng(6).normal(40, 10, size=10_000)
    out = R.subsample_and_aggregate(x, "mean", 100, 0.0, 100.0, 1.0, rng=1)
    assert abs(out - x.mean()) <= 1.0 * BETA_LOG        # Laplace scale 100/(100·1) = 1
    # a public range that excludes the truth clips every block estimate to it
    out = R.subsample_and_aggregate(x, "mean", 100, 0.0, 10.0, 50.0, rng=2)
    assert abs(out - 10.0) <= (10.0 / (100 * 50.0)) * BETA_LOG
    # undefined block statistics go to the midpoint
    out = R.subsample_and_aggregate(x, lambda b: np.nan, 10, 0.0, 10.0, 1e3, rng=3)
    assert abs(out - 5.0) <= (10.0 / (10 * 1e3)) * BETA_LOG    # Laplace scale 1e-3


def test_subsample_and_aggregate_median_aggregator():
    x = np.random.default_rng(7).normal(40, 10, size=20_000)
    m, a, b, eps = 200, 0.0, 100.0, 1.0
    grid = np.linspace(a, b, 201)
    est = np.clip(R.block_estimates(x, "mean", m, rng=8), a, b)
    probs = S.private_median_probabilities(est, grid, eps, neighbouring="replace")
    far = np.abs(grid - np.median(est)) > 1.5
    assert probs[far].sum() < 1e-6         # the exact distribution is concentrated ...
    out = R.subsample_and_aggregate(x, "mean", m, a, b, eps, aggregator="median", rng=8)
    assert out in grid and abs(out - np.median(est)) <= 1.5   # ... and the draw is from it
    # privacy of the aggregation: one block estimate moved to an end of the range
    for j, v in ((0, a), (5, b)):
        est2 = est.copy()
        est2[j] = v
        p2 = S.private_median_probabilities(est2, grid, eps, neighbouring="replace")
        ok = (probs > 1e-300) & (p2 > 1e-300)
        assert np.max(np.abs(np.log(probs[ok] / p2[ok]))) <= eps * (1 + 1e-12)


# ===================================================== propose-test-release
def _brute_median(y):
    ys = sorted(y)
    return ys[(len(ys) + 1) // 2 - 1]


_LS_CACHE: dict = {}


def _brute_ls(y, dom):
    if y not in _LS_CACHE:
        _LS_CACHE[y] = _brute_ls_uncached(y, dom)
    return _LS_CACHE[y]


def _brute_ls_uncached(y, dom):
    return max(abs(_brute_median(y[:i] + (v,) + y[i + 1:]) - _brute_median(y))
               for i in range(len(y)) for v in dom)


def test_local_sensitivity_formula_matches_brute_force():
    """A^(k) of [NRS07] equals the max of LS over all datasets within distance k."""
    dom = (0, 1, 3, 5)           # lower = 0, upper = 5 are in the domain
    for n in (1, 2, 3, 4):
        for x in itertools.product(dom, repeat=n):
            seen, frontier = {x}, {x}
            for k in range(n + 1):
                brute = max(_brute_ls(y, dom) for y in seen)
                assert R.median_local_sensitivity(list(x), 0, 5, distance=k) == brute, (x, k)
                frontier = {y[:i] + (v,) + y[i + 1:] for y in frontier
                            for i in range(n) for v in dom} - seen
                seen |= frontier


def test_distance_to_instability():
    gen = np.random.default_rng(9)
    for _ in range(200):
        n = int(gen.integers(1, 40))
        x = gen.integers(0, 11, size=n).astype(float)
        bnd = float(gen.choice([0.0, 0.5, 1.0, 2.0, 3.0]))
        g = R.median_distance_to_instability(x, bnd, 0.0, 10.0)
        # linear scan of the non-decreasing A^(k)
        ks = [k for k in range(n + 2) if R.median_local_sensitivity(x, 0.0, 10.0, k) > bnd]
        assert g == ks[0]
        # γ changes by at most 1 between neighbours (what makes the test private)
        x2 = x.copy()
        x2[gen.integers(n)] = float(gen.integers(0, 11))
        assert abs(R.median_distance_to_instability(x2, bnd, 0.0, 10.0) - g) <= 1
    assert R.median_distance_to_instability([1.0, 2.0], 10.0, 0.0, 10.0) == math.inf
    assert R.median_distance_to_instability([0.0, 10.0, 10.0], 1.0, 0.0, 10.0) == 0


def test_ptr_pass_probability():
    eps, delta = 1.0, 1e-5
    assert R.ptr_pass_probability(0, eps, delta) == pytest.approx(delta / 2, rel=1e-12)
    assert R.ptr_pass_probability(math.inf, eps, delta) == 1.0
    t = math.log(1 / delta) / (eps / 2)
    assert R.ptr_pass_probability(t, eps, delta) == pytest.approx(0.5)
    probs = [R.ptr_pass_probability(g, eps, delta) for g in range(0, 60)]
    assert all(a < b for a, b in zip(probs, probs[1:]))
    # neighbouring distances differ by ≤ 1, so pass and fail odds move by ≤ e^{ε/2}
    for g in range(0, 60):
        p, q = probs[g], R.ptr_pass_probability(g + 1, eps, delta)
        assert q / p <= math.exp(eps / 2) * (1 + 1e-12)
        # 1 − p loses digits when p ≈ 1 (cancellation, relative error ≲ 1e-16/(1−p)
        # ≤ 1e-11 here), hence the looser relative tolerance 1e-6
        assert (1 - p) / (1 - q) <= math.exp(eps / 2) * (1 + 1e-6)


def test_ptr_refuses_on_bimodal_data():
    x = np.array([20.0] * 500 + [60.0] * 501)        # the median sits on the gap
    assert R.median_local_sensitivity(x, 17, 90) == 40.0
    assert R.median_distance_to_instability(x, 1.0, 17, 90) == 0
    # release probability δ/2 = 5e-6 per run; 200 runs all refuse with prob ≥ 0.999
    results = [R.propose_test_release_median(x, 1.0, 17, 90, 1.0, 1e-5, rng=s)
               for s in range(200)]
    assert all(r.value is None and not r.released for r in results)
    assert "refused" in results[0].reason and "1" in results[0].reason


def test_ptr_releases_near_the_median_on_concentrated_data():
    gen = np.random.default_rng(10)
    x = np.round(gen.normal(50, 5, size=5001))       # integer data: many ties
    b, eps, delta = 1.0, 2.0, 1e-6
    med = float(np.sort(x)[(x.size + 1) // 2 - 1])
    gamma = R.median_distance_to_instability(x, b, 0, 100)
    assert R.ptr_pass_probability(gamma, eps, delta) > 1 - 1e-12
    results = [R.propose_test_release_median(x, b, 0, 100, eps, delta, rng=s) for s in range(400)]
    assert all(r.released for r in results)
    # value − median ~ Lap(b/(ε/2)) = Lap(1): mean |·| = 1 and SD of |·| = 1,
    # R = 400 runs, tolerance 5/√400 = 0.25
    dev = np.array([r.value - med for r in results])
    assert abs(np.mean(np.abs(dev)) - b / (eps / 2)) <= 5 / math.sqrt(400)
    assert abs(np.mean(dev)) <= 5 * math.sqrt(2) / math.sqrt(400)
    assert "released" in results[0].reason
    # the exact median when the proposed bound is 0 (the median is locally constant)
    r0 = R.propose_test_release_median(x, 0.0, 0, 100, eps, delta, rng=1)
    assert r0.released and r0.value == med


def test_ptr_test_noise_is_laplace_two_over_epsilon():
    # The test adds Lap(1/ε₀) = Lap(2/ε) to γ. With γ = ∞ excluded, take data whose γ is
    # known and finite; noisy_distance − γ is then one Lap(2/ε) draw per run. Over R = 2000
    # seeded runs, mean |·| estimates the scale s = 2/ε with SD s/√R, tolerance 5·s/√R
    # (≈ 11 % here); Lap(1/ε), a factor 2 off, is far outside.
    x = np.round(np.random.default_rng(12).normal(50, 5, size=301))
    b, eps, delta = 1.0, 1.0, 1e-6
    gamma = R.median_distance_to_instability(x, b, 0, 100)
    assert gamma == 24      # threshold ln(1e6)/0.5 ≈ 27.6: pass probability ≈ 0.08
    runs = 2000
    dev = np.array([R.propose_test_release_median(x, b, 0, 100, eps, delta, rng=s).noisy_distance
                    for s in range(runs)]) - gamma
    s_true = 2 / eps
    assert abs(np.mean(np.abs(dev)) - s_true) <= 5 * s_true / math.sqrt(runs)
    assert abs(np.mean(dev)) <= 5 * math.sqrt(2) * s_true / math.sqrt(runs)   # SD of Lap(s) = √2 s
    # and the empirical pass rate matches ptr_pass_probability (5 binomial SEs)
    p = R.ptr_pass_probability(gamma, eps, delta)
    passed = np.mean(dev + gamma > math.log(1 / delta) / (eps / 2))
    assert abs(passed - p) <= 5 * math.sqrt(max(p * (1 - p), 1 / runs) / runs)


def test_ptr_ingredients_on_random_neighbours():
    """Case analysis of the proof: if either neighbour has LS ≤ b, medians differ ≤ b."""
    gen = np.random.default_rng(11)
    for _ in range(300):
        n = int(gen.integers(1, 15))
        x = gen.integers(0, 8, size=n).astype(float)
        x2 = x.copy()
        x2[gen.integers(n)] = float(gen.integers(0, 8))
        b = float(gen.choice([0.0, 1.0, 2.0]))
        if min(R.median_local_sensitivity(x, 0, 7), R.median_local_sensitivity(x2, 0, 7)) <= b:
            assert abs(_brute_median(tuple(x)) - _brute_median(tuple(x2))) <= b


# ============================================================ rules and edges
def test_the_rules_tying_two_arguments():
    valid = dict(data=np.arange(20.0), statistic="mean", n_blocks=4, lower=0.0, upper=20.0,
                 epsilon=1.0)
    # the public range: upper − lower ≥ 1e-6, so that the noise scale (b − a)/(mε) is > 0
    for lower, upper in ((0.0, 0.0), (1.0, 0.0), (0.0, 5e-324), (0.0, 5e-7)):
        with pytest.raises(ParameterError, match=r"upper must be at least lower \+ 1e-06 "
                                                 r"\(lower=.*\); got upper="):
            R.subsample_and_aggregate(**{**valid, "lower": lower, "upper": upper})
    with pytest.raises(ParameterError, match="upper must be at least lower"):
        R.subsample_and_aggregate_sensitivity(1.0, 0.0, 2)
    with pytest.raises(ParameterError, match="upper must be at least lower"):
        R.propose_test_release_median([1.0, 2.0], 1.0, 0.0, -1.0, 1.0, 1e-5)
    # at most one block per record
    with pytest.raises(ParameterError, match=r"n_blocks must be at most the number of records "
                                             r"\(20\); got n_blocks=21"):
        R.subsample_and_aggregate(**{**valid, "n_blocks": 21})
    with pytest.raises(ParameterError, match=r"n_blocks must be at most .*\(2\)"):
        R.block_estimates([1.0, 2.0], n_blocks=3)
    # a statistic must return one number per block
    with pytest.raises(ParameterError, match=r"statistic\(block\) must be one number per block"):
        R.subsample_and_aggregate(**{**valid, "statistic": lambda b: "x"})


def test_ends_of_the_domain():
    # the widest range and the most blocks the sensitivity formula takes: (b − a)/m
    assert R.subsample_and_aggregate_sensitivity(-1e15, 1e15, 10**9) == 2e6
    assert R.subsample_and_aggregate_sensitivity(0.0, 1e-6, 10**9) == pytest.approx(1e-15)
    # a grid near ±1e15 whose neighbouring points round to the same double is de-duplicated
    out = R.subsample_and_aggregate(np.full(10, 1e15), "mean", 2, 1e15 - 1, 1e15, 1.0,
                                    aggregator="median", grid_size=1001, rng=0)
    assert 1e15 - 1 <= out <= 1e15
    # PTR: γ = ∞ when the bound is at least b − a (every dataset's median is that stable)
    assert R.median_distance_to_instability([1.0, 2.0], 10.0, 0.0, 10.0) == math.inf
    assert R.ptr_pass_probability(math.inf, 1.0, 1e-5) == 1.0
    assert R.ptr_pass_probability(0.0, 1.0, 1e-50) == pytest.approx(0.5e-50, rel=1e-12)
    assert R.ptr_pass_probability(5.0, 1e-6, 1e-5) == pytest.approx(0.5e-5, rel=1e-5)


def test_documented_results_are_python_floats():
    data = [1.0, 2.0, 2.0, 3.0, 5.0, 8.0]
    for value in (R.subsample_and_aggregate_sensitivity(0, 1, 2),
                  R.subsample_and_aggregate(data, "mean", 2, 0, 10, 1.0, rng=0),
                  R.subsample_and_aggregate(data, "mean", 2, 0, 10, 1.0, "median", rng=0),
                  R.median_local_sensitivity(data, 0, 10),
                  R.median_distance_to_instability(data, 1, 0, 10),
                  R.ptr_pass_probability(3, 1.0, 1e-5)):
        assert type(value) is float, value


# ==================================================================== stable selection
def _unique_mode(z):
    """The unique most common value of z, or None for a tie."""
    top = Counter(z).most_common(2)
    return None if len(top) == 2 and top[0][1] == top[1][1] else top[0][0]


def _changes(z, alphabet):
    return {z[:i] + (v,) + z[i + 1:] for i in range(len(z)) for v in alphabet if v != z[i]}


def test_mode_distance_matches_brute_force():
    # γ = max(0, ⌈g/2⌉ − 1) against its definition: the fewest changes that reach an answer
    # vector one more change can alter (a tie, or a neighbour with another unique mode),
    # found by breadth-first search over every vector of up to 6 answers from 3 values
    alphabet = ("a", "b", "c")
    for m in range(1, 7):
        vectors = list(itertools.product(alphabet, repeat=m))
        unstable = {z for z in vectors if _unique_mode(z) is None
                    or any(_unique_mode(y) != _unique_mode(z) for y in _changes(z, alphabet))}
        for z in vectors:
            seen, frontier, k = {z}, {z}, 0
            while not frontier & unstable:
                frontier = {y for x in frontier for y in _changes(x, alphabet)} - seen
                seen |= frontier
                k += 1
            assert R.mode_distance_to_instability(list(z)) == k, z
            # one changed answer moves γ by at most 1 (what lets Lap(1/ε) test it)
            for y in _changes(z, alphabet):
                assert abs(R.mode_distance_to_instability(list(y)) - k) <= 1


def test_stable_selection_pass_probability_closed_form():
    # Pr[γ + Lap(1/ε) > ln(1/δ)/ε] from SciPy's Laplace tail, and PTR's test (noise Lap(2/ε′),
    # threshold ln(1/δ)/(ε′/2)) at ε′ = 2ε is the same test
    for eps, delta in ((1.0, 1e-6), (0.3, 1e-3), (5.0, 1e-10)):
        t = math.log(1 / delta) / eps
        for g in (0.0, 1.0, t / 2, t - 0.5, t, t + 0.5, 2 * t, 10 * t):
            p = R.stable_selection_pass_probability(g, eps, delta)
            assert p == pytest.approx(stats.laplace.sf(t - g, scale=1 / eps), rel=1e-12)
            assert p == pytest.approx(R.ptr_pass_probability(g, 2 * eps, delta), rel=1e-12)
        assert R.stable_selection_pass_probability(0, eps, delta) == pytest.approx(delta / 2)
        assert R.stable_selection_pass_probability(t, eps, delta) == pytest.approx(0.5)
    assert R.stable_selection_pass_probability(math.inf, 1.0, 1e-6) == 1.0
    # the accuracy statement: at γ = (ln(1/δ) + ln(1/(2β)))/ε the test passes with 1 − β
    eps, delta, beta = 0.5, 1e-6, 0.01
    g = (math.log(1 / delta) + math.log(1 / (2 * beta))) / eps
    assert R.stable_selection_pass_probability(g, eps, delta) == pytest.approx(1 - beta)


def test_stable_selection_pass_probability_by_simulation():
    # R = 200,000 draws of γ + Lap(1/ε) > t: the frequency has SD √(p(1−p)/R) ≤ 0.0012;
    # allow 5 SD. δ = 0.05 makes even γ = 0 (p = δ/2 = 0.025) measurable.
    gen = np.random.default_rng(27)
    eps, delta, runs = 0.7, 0.05, 200_000
    t = math.log(1 / delta) / eps
    noise = gen.laplace(0.0, 1 / eps, runs)
    for g in (0, 2, 4, 6, 9):
        p = R.stable_selection_pass_probability(g, eps, delta)
        freq = np.mean(g + noise > t)
        assert abs(freq - p) <= 5 * math.sqrt(p * (1 - p) / runs), (g, freq, p)


def _one_per_block(values):
    """Records = block answers: the selector reads the one record of its block."""
    return np.asarray(values, dtype=float), (lambda block: float(block[0]))


def test_stable_selection_release_law():
    # Each record is a block, so the answers are the records and γ is known. Over R = 3,000
    # runs the release frequency has SD √(p(1−p)/R) ≤ 0.0092; allow 5 SD. Released answers
    # are always the most common record, and a tie is never released.
    eps, delta, runs = 1.0, 0.02, 3_000                   # threshold ln 50 ≈ 3.9
    for values, gamma in (([0] * 12, 5), ([0] * 9 + [1] * 3, 2), ([0] * 6 + [1] * 5, 0),
                          ([0] * 5 + [1] * 3 + [2] * 2, 0)):
        data, selector = _one_per_block(values)
        assert R.mode_distance_to_instability(R.block_answers(data, selector, data.size,
                                                              rng=0)) == gamma
        p = R.stable_selection_pass_probability(gamma, eps, delta)
        gen = np.random.default_rng(gamma)
        outs = [R.stable_selection(data, selector, data.size, eps, delta, rng=gen)
                for _ in range(runs)]
        released = np.array([o.released for o in outs])
        assert abs(released.mean() - p) <= 5 * math.sqrt(p * (1 - p) / runs), (values, p)
        assert all(o.answer == 0.0 for o in outs if o.released)
        assert all(o.answer is None and "refused" in o.reason for o in outs if not o.released)
        assert all(o.threshold == pytest.approx(math.log(1 / delta) / eps) for o in outs)
    data, selector = _one_per_block([0] * 5 + [1] * 5)                      # a tie
    assert not any(R.stable_selection(data, selector, 10, eps, 0.9, rng=s).released
                   for s in range(300))


def _law(values, eps, delta):
    """The exact output distribution over (answers..., ⊥) of stable selection on answers."""
    values = list(values)
    top = Counter(values).most_common(2)
    out = dict.fromkeys(("a", "b", "c", None), 0.0)
    if len(top) == 2 and top[0][1] == top[1][1]:
        out[None] = 1.0
        return list(out.values())
    p = R.stable_selection_pass_probability(R.mode_distance_to_instability(values), eps, delta)
    out[top[0][0]], out[None] = p, 1.0 - p
    return list(out.values())


def test_stable_selection_is_epsilon_delta_over_two_dp_exactly():
    # Over every pair of answer vectors at Hamming distance 1 (m = 5 and 6 answers from 3
    # values), the exact output laws satisfy (ε, δ/2)-DP: the smallest δ at ε over every
    # event (dpteach.mechanisms.definition.smallest_delta) is ≤ δ/2. The twin that tests the
    # lead g itself (sensitivity 2) with Lap(1/ε) is not: the check can fail.
    from dpteach.mechanisms.definition import smallest_delta
    eps, delta, alphabet = 0.5, 0.1, ("a", "b", "c")
    for m in (5, 6):
        for z in itertools.product(alphabet, repeat=m):
            pz = _law(z, eps, delta)
            for y in _changes(z, alphabet):
                assert smallest_delta(pz, _law(y, eps, delta), eps) <= delta / 2 * (1 + 1e-9)

    def lead_law(values):                   # the broken twin: γ replaced by the lead
        top = Counter(values).most_common(2)
        lead = top[0][1] - (top[1][1] if len(top) > 1 else 0)
        p = R.stable_selection_pass_probability(lead, eps, delta)
        return [p, 1 - p]
    worst = max(smallest_delta(lead_law(("a",) * 6), lead_law(("a",) * 5 + ("b",)), eps),
                smallest_delta(lead_law(("a",) * 5 + ("b",)), lead_law(("a",) * 6), eps))
    assert worst > delta / 2


def test_one_changed_record_changes_one_answer():
    # the same split (same seed) on neighbours: block answers differ in at most one block,
    # so γ moves by at most 1, whatever the selector
    gen = np.random.default_rng(31)
    for _ in range(100):
        x = gen.integers(0, 4, size=(40, 2)).astype(float)
        x2 = x.copy()
        x2[gen.integers(40)] = gen.integers(0, 4, size=2)
        selector = lambda block: int(np.argmax(np.bincount(block[:, 0].astype(int),
                                                           minlength=4)))
        a = R.block_answers(x, selector, 8, rng=5)
        b = R.block_answers(x2, selector, 8, rng=5)
        assert sum(u != v for u, v in zip(a, b)) <= 1
        assert abs(R.mode_distance_to_instability(a) - R.mode_distance_to_instability(b)) <= 1


def test_block_answers_on_tables():
    df = pd.DataFrame({"x": np.arange(30.0), "y": np.arange(30) % 3})
    answers = R.block_answers(df, lambda block: int(block["y"].mode()[0]), 3, rng=0)
    assert len(answers) == 3 and all(isinstance(a, int) for a in answers)
    sizes = R.block_answers(df, len, 4, rng=0)                         # 8, 8, 7, 7 rows
    assert sorted(sizes) == [7, 7, 8, 8]
    assert R.block_answers(df["x"], len, 5, rng=0) == [6] * 5          # a Series
    run = R.stable_selection(df, lambda block: "same", 30, 1.0, 1e-6, rng=0)
    assert run.released and run.answer == "same"       # γ = 14 > ln(1e6) ≈ 13.8: p ≈ 0.82


def test_stable_selection_refuses_bad_selectors_by_name():
    data = np.arange(20.0)
    calls = itertools.count()
    for selector, message in (
            (lambda block: list(block), r"selector's answers must be hashable, a tuple not list "
                                        r"\(block 0\); got selector's answers=\["),
            (lambda block: block, r"selector's answers must be hashable, .*not ndarray"),
            (lambda block: None, r"selector's answers must be equal to themselves, not None or "
                                 r"NaN \(block 0\); got selector's answers=None"),
            (lambda block: float("nan"), r"equal to themselves.*block 0.*=nan"),
            (lambda block: "age" if next(calls) % 2 else ("age",),
             r"selector's answers' types must be one type; .*\['str', 'tuple'\]"),
    ):
        with pytest.raises(ParameterError, match=message):
            R.stable_selection(data, selector, 4, 1.0, 1e-6, rng=0)
    with pytest.raises(ParameterError, match=r"n_blocks must be at most the number of records "
                                             r"\(20\); got n_blocks=21"):
        R.stable_selection(data, len, 21, 1.0, 1e-6)
    with pytest.raises(ParameterError, match=r"selector must be a callable"):
        R.block_answers(data, "len", 2)
    with pytest.raises(ParameterError, match=r"^answers must be"):
        R.mode_distance_to_instability([])


def test_stable_selection_results():
    data, selector = _one_per_block([0] * 40)
    run = R.stable_selection(data, selector, 40, 1.0, 1e-6, rng=0)
    assert run.released and run.answer == 0.0 and run.n_blocks == 40
    assert (run.epsilon, run.delta) == (1.0, 1e-6)
    assert type(run.noisy_distance) is float and run.threshold == pytest.approx(math.log(1e6))
    assert type(R.mode_distance_to_instability(["a", "a", "b"])) is int
    assert type(R.stable_selection_pass_probability(3, 1.0, 1e-5)) is float


# ================================================================== figures
def test_plot_block_estimates_and_ptr_distance():
    from matplotlib.figure import Figure

    from dpteach.plots import selection as P

    est = np.random.default_rng(12).normal(38, 3, size=60)
    fig = P.plot_block_estimates(est, 17.0, 90.0, released=38.4, truth=38.6)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_xlabel() and ax.get_ylabel() and "m = 60" in ax.get_title()
    assert sum(p.get_height() for p in ax.patches if p.get_gid() == "blocks") == 60
    assert {ln.get_gid() for ln in ax.lines} >= {"released", "truth"}
    with pytest.raises(ValueError, match="upper"):
        P.plot_block_estimates(est, 5.0, 5.0)

    x = np.round(np.random.default_rng(13).normal(50, 5, size=501))
    bounds = np.array([0.0, 0.5, 1.0, 2.0, 100.0])
    fig = P.plot_ptr_distance(x, 0.0, 100.0, 1.0, 1e-6, bounds=bounds)
    ax = fig.axes[0]
    assert "ε = 1" in ax.get_title() and "δ = 1e-06" in ax.get_title()
    lines = {ln.get_gid(): ln for ln in ax.lines}
    gam = lines["distance"].get_ydata()
    expect = [R.median_distance_to_instability(x, b, 0.0, 100.0) for b in bounds]
    np.testing.assert_array_equal(gam[:-1], expect[:-1])
    assert expect[-1] == math.inf and gam[-1] == x.size + 1    # ∞ drawn above n
    assert lines["threshold"].get_ydata()[0] == pytest.approx(math.log(1e6) / 0.5)
    with pytest.raises(ValueError, match="delta"):
        P.plot_ptr_distance(x, 0.0, 100.0, 1.0, 0.0)




def test_robust_plots_reject_bad_values_property_based():
    from dpteach.plots import selection as P

    assert_rejects_bad_values(P.plot_block_estimates,
                              dict(estimates=[0.1, 0.2], lower=0.0, upper=1.0), "estimates",
                              NON_FINITE_ARRAYS)
    assert_rejects_bad_values(P.plot_block_estimates,
                              dict(estimates=[0.1, 0.2], lower=0.0, upper=1.0), "lower",
                              NOT_A_NUMBER)
    valid = dict(data=[1.0, 2.0, 3.0], lower=0.0, upper=5.0, epsilon=1.0, delta=1e-5,
                 bounds=[0.0, 1.0])
    assert_rejects_bad_values(P.plot_ptr_distance, valid, "epsilon", NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(P.plot_ptr_distance, valid, "delta", BAD_DELTA)
    assert_rejects_bad_values(P.plot_ptr_distance, valid, "bounds", NON_FINITE_ARRAYS)
    call_rejects(P.plot_ptr_distance, {**valid, "bounds": [-1.0]}, "bounds")
