"""Tests for answering many queries: dpteach.queries.linear, dpteach.queries.independent, dpteach.queries.mwem.

Statistical tolerances
----------------------
Every seed is fixed, so the tests are deterministic; each tolerance says how unlucky a seed
would have to be to fail a correct implementation. A mean of N independent draws is
compared with its exact expectation within 5 standard errors (SE = sd/√N, two-sided
false-alarm rate 5.7e-7 under the normal approximation), where sd is either known exactly
(stated at the test) or bounded; a difference of two means of independent runs is compared
with 5 SE of the difference, √(SE₁² + SE₂²), from the runs' sample standard deviations.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, special, stats

from dpteach.mechanisms import selection
from dpteach._validation import ParameterError
from dpteach.accounting.zcdp import zcdp_to_epsilon
from dpteach.accounting.composition import advanced_composition, basic_composition
from dpteach.datasets import load_adult
from dpteach.queries.linear import (
    ADULT_LEVELS,
    LinearQueries,
    Universe,
    adult_universe,
    conjunction_queries,
    marginal_queries,
    max_error,
    random_queries,
)
from dpteach.queries.independent import (
    gaussian_answers,
    histogram_answers,
    independent_max_error,
    independent_noise_scale,
    laplace_answers,
    zcdp_budget,
)
from dpteach.queries.mwem import (
    compare_independent,
    mwem,
    mwem_privacy,
    private_multiplicative_weights,
    sample_rows,
)

Z = 5.0                                       # standard errors allowed everywhere


@pytest.fixture(scope="module")
def adult():
    universe = adult_universe()
    return universe, universe.to_histogram(load_adult())


def _se_mean(draws) -> float:
    draws = np.asarray(draws, dtype=float)
    return float(draws.std(ddof=1) / math.sqrt(draws.size))


# ================================================================ universe and queries
def test_adult_universe_is_the_documented_one(adult):
    universe, hist = adult
    assert universe.columns == ("age", "sex", "race")
    assert universe.shape == (6, 2, 5) and universe.size == 60
    assert universe.levels[0] == ("17-24", "25-34", "35-44", "45-54", "55-64", "65-90")
    assert hist.shape == (60,) and hist.sum() == 48_842
    df = load_adult()
    # one cell by hand: women aged 25-34 of race "Black"
    cell = universe.cells()
    j = cell.index[(cell.age == "25-34") & (cell.sex == "Female") & (cell.race == "Black")][0]
    by_hand = ((df.age >= 25) & (df.age < 35) & (df.sex == "Female") & (df.race == "Black")).sum()
    assert hist[j] == by_hand
    big = adult_universe(("age", "education", "race"))
    assert big.size == 6 * 16 * 5 and big.levels[1] == ADULT_LEVELS["education"]


def test_to_histogram_cells_and_decode_round_trip():
    universe = Universe(("a", "b"), (("x", "y"), ("0", "1", "2")))
    df = pd.DataFrame({"a": ["x", "y", "y", "x", "y"], "b": ["2", "0", "0", "1", "2"]})
    hist = universe.to_histogram(df)
    np.testing.assert_array_equal(hist, [0, 1, 1, 2, 0, 1])        # C order: b fastest
    assert universe.cells().to_dict("list") == {"a": ["x"] * 3 + ["y"] * 3,
                                                "b": ["0", "1", "2"] * 2}
    back = universe.decode(np.repeat(np.arange(6), hist.astype(int)))
    assert sorted(map(tuple, back.to_numpy())) == sorted(map(tuple, df.to_numpy()))
    binned = Universe(("age",), (("young", "old"),), ((0.0, 30.0, 100.0),))
    np.testing.assert_array_equal(binned.to_histogram(pd.DataFrame({"age": [5, 29.9, 30, 99]})),
                                  [2, 2])
    with pytest.raises(ParameterError, match="df"):
        binned.to_histogram(pd.DataFrame({"age": [100]}))           # outside the edges
    with pytest.raises(ParameterError, match="df"):
        universe.to_histogram(pd.DataFrame({"a": ["z"], "b": ["0"]}))


def test_marginal_queries_partition_the_universe_per_marginal(adult):
    universe, hist = adult
    q = marginal_queries(universe, ways=2)
    assert q.k == 6 * 2 + 6 * 5 + 2 * 5 == 52
    assert q.names[0] == "age=17-24 & sex=Female"
    # each of the 3 marginals' cells partition the universe: its answers sum to n
    answers = q.answer(hist)
    assert [answers[:12].sum(), answers[12:42].sum(), answers[42:].sum()] == [48_842.0] * 3
    assert q.l1_sensitivity() == 3.0 and q.l2_sensitivity() == math.sqrt(3.0)
    one = marginal_queries(universe, ways=1)
    np.testing.assert_array_equal(one.answer(hist)[:6], hist.reshape(6, 10).sum(axis=1))
    full = marginal_queries(universe, ways=3)
    np.testing.assert_array_equal(full.matrix, np.eye(60))          # the 3-way marginal: cells


def test_random_queries_prefix_and_density():
    a = random_queries(20, 50, rng=3)
    b = random_queries(20, 10, rng=3)
    np.testing.assert_array_equal(a.first(10).matrix, b.matrix)    # a workload grows by rows
    big = random_queries(100, 2000, density=0.25, rng=0)
    # 200,000 Bernoulli(1/4) entries: SE of the mean √(3/16/200000) ≈ 9.7e-4
    assert abs(big.matrix.mean() - 0.25) <= Z * math.sqrt(0.25 * 0.75 / big.matrix.size)
    assert set(np.unique(big.matrix)) <= {0.0, 1.0}


def test_conjunction_queries_are_products_of_level_sets():
    u = Universe(("a", "b", "c"), (("x", "y"), ("p", "q", "r"), ("s", "t")))
    Q = conjunction_queries(u, 200, keep=0.5, rng=4)
    cube = Q.matrix.reshape(200, 2, 3, 2)
    for row in cube:
        # a conjunction is the outer product of one 0/1 vector per column, none of them empty
        sets = [row.any(axis=tuple(j for j in range(3) if j != c)) for c in range(3)]
        assert all(s.any() for s in sets)
        np.testing.assert_array_equal(row, np.einsum("i,j,k->ijk", *sets))
    np.testing.assert_array_equal(conjunction_queries(u, 200, keep=0.5, rng=4).matrix, Q.matrix)
    assert (conjunction_queries(u, 5, keep=1.0, rng=1).matrix == 1).all()
    # keep = 0 still keeps one level per column: every query counts exactly one cell
    assert (conjunction_queries(u, 5, keep=0.0, rng=1).matrix.sum(axis=1) == 1).all()
    with pytest.raises(ParameterError, match="k must be at most"):
        conjunction_queries(adult_universe(("age", "sex", "race", "education", "marital-status",
                                            "relationship")), 249, rng=0)


def test_queries_that_are_not_linear_over_the_universe_are_refused():
    x = np.array([3.0, 1.0, 0.0, 4.0])
    with pytest.raises(TypeError, match="queries.*function"):
        laplace_answers(lambda row: row.sum(), x, 1.0)
    with pytest.raises(ParameterError, match="queries.*universe"):
        laplace_answers(np.ones((2, 5)), x, 1.0)                     # 5 columns for 4 cells
    with pytest.raises(ParameterError, match=r"queries.*\[0, 1\]"):
        mwem(np.array([[2.0, 0, 0, 0]]), x, epsilon=1.0, T=1)
    with pytest.raises(ParameterError, match="queries"):
        max_error([[0.5, -0.1, 0, 0]], x, answers=[1.0])
    with pytest.raises(ParameterError, match="levels"):
        Universe(("a", "b"), (("x",), ()))                           # an empty universe
    with pytest.raises(ParameterError, match="hist"):
        laplace_answers(np.eye(2), [], 1.0)
    with pytest.raises(ParameterError, match="hist"):
        laplace_answers(np.eye(2), [0.0, 0.0], 1.0)                  # nobody to count
    with pytest.raises(ParameterError, match="matrix"):
        LinearQueries(np.ones((10**5 + 1, 1)))                       # k beyond its bound
    with pytest.raises(ParameterError, match="k"):
        random_queries(10, 10**5 + 1)
    with pytest.raises(ParameterError, match="T"):
        mwem(np.eye(4), x, epsilon=1.0, T=1001)
    with pytest.raises(ParameterError, match="levels"):
        Universe(("a", "b", "c"), (tuple(map(str, range(101))),) * 3)   # > 10**6 cells


def test_max_error_is_the_largest_normalised_gap():
    x = np.array([3.0, 1.0, 0.0, 4.0])                               # n = 8
    q = np.array([[1.0, 1, 0, 0], [0, 0, 0, 1], [0.5, 0.5, 0.5, 0.5]])
    assert max_error(q, x, answers=[4.0, 4.0, 4.0]) == 0.0
    assert max_error(q, x, answers=[6.0, 4.0, 3.0]) == 2.0 / 8
    assert max_error(q, x, synthetic=[2.0, 2.0, 2.0, 2.0]) == 2.0 / 8  # answers 4, 2, 4
    with pytest.raises(TypeError, match="exactly one"):
        max_error(q, x)


# ====================================================== independent answers (baseline)
@pytest.mark.parametrize("k,epsilon", [(1, 1.0), (50, 0.5), (400, 2.0)])
def test_laplace_expected_max_error_is_b_times_harmonic_number(k, epsilon):
    # max of k |Lap(b)| = max of k Exp(mean b): mean b·H_k, variance b²·Σ 1/i² (Rényi);
    # so the mean of R maxima has SE b·√(Σ 1/i²)/√R exactly
    x = np.full(20, 100.0)
    q = random_queries(20, k, rng=1)
    b = k / epsilon
    R = 2000
    gen = np.random.default_rng(7)
    maxima = [max_error(q, x, answers=laplace_answers(q, x, epsilon, rng=gen)) * x.sum()
              for _ in range(R)]
    harmonic = math.fsum(1 / i for i in range(1, k + 1))
    se = b * math.sqrt(math.fsum(1 / i**2 for i in range(1, k + 1))) / math.sqrt(R)
    assert abs(np.mean(maxima) - b * harmonic) <= Z * se
    assert math.isclose(independent_max_error(k, epsilon, n=x.sum()) * x.sum(), b * harmonic,
                        rel_tol=1e-12)
    assert independent_noise_scale(k, epsilon) == b


def test_gaussian_expected_max_error_and_zcdp_budget():
    for eps, delta in ((0.1, 1e-6), (1.0, 1e-5), (10.0, 1e-9), (1e-6, 0.5)):
        rho = zcdp_budget(eps, delta)
        assert math.isclose(zcdp_to_epsilon(rho, delta, method="bun-steinke"), eps,
                            rel_tol=1e-10)
        assert zcdp_to_epsilon(rho, delta) <= eps * (1 + 1e-12)   # CKS: never worse
    # max_i |σ Z_i| is σ-Lipschitz in (Z_1..Z_k), so its variance is ≤ σ² (Gaussian
    # Poincaré inequality): the mean of R maxima has SE ≤ σ/√R
    k, eps, delta = 300, 1.0, 1e-6
    x = np.full(10, 50.0)
    q = random_queries(10, k, rng=2)
    sigma = independent_noise_scale(k, eps, mechanism="gaussian", delta=delta)
    assert math.isclose(sigma, math.sqrt(k / (2 * zcdp_budget(eps, delta))), rel_tol=1e-14)
    R = 2000
    gen = np.random.default_rng(8)
    maxima = [max_error(q, x, answers=gaussian_answers(q, x, eps, delta, rng=gen)) * x.sum()
              for _ in range(R)]
    expected = independent_max_error(k, eps, n=1.0, mechanism="gaussian", delta=delta)
    assert abs(np.mean(maxima) - expected) <= Z * sigma / math.sqrt(R)
    # the quadrature against a direct one: E max|Z| = ∫ 1 − (2Φ(t) − 1)^k dt
    direct, _ = integrate.quad(lambda t: 1 - (2 * special.ndtr(t) - 1) ** k, 0, 50, limit=200)
    assert math.isclose(expected / sigma, direct, rel_tol=1e-8)


def test_laplace_l1_calibration_and_histogram_answers_use_the_workload_sensitivity(adult):
    universe, hist = adult
    q = marginal_queries(universe)
    # l1: the 52 cells of 3 marginals have ℓ1 sensitivity 3, not 52: noise Lap(3/ε);
    # the sample sd of 52·R draws of Lap(b) is √2·b (to ~1 % at R = 200)
    R = 200
    gen = np.random.default_rng(4)
    noise = np.concatenate([laplace_answers(q, hist, 0.5, calibration="l1", rng=gen)
                            - q.answer(hist) for _ in range(R)])
    b = 3 / 0.5
    # mean |Lap(b)| = b with sd b: 5 SE of the mean over 52·R draws
    assert abs(np.abs(noise).mean() - b) <= Z * b / math.sqrt(noise.size)
    # the noisy histogram: one Lap(1/ε) per cell, every query answered from it
    one = histogram_answers(np.eye(60), hist, 2.0, rng=5) - hist
    assert np.all(np.abs(one) < 1 / 2.0 * math.log(60 / 1e-6))   # P(any > b ln(60/1e-6)) ≤ 1e-6
    sums = histogram_answers(q, hist, 2.0, rng=6) - q.answer(hist)
    assert sums.shape == (52,)


# =========================================================================== MWEM
TINY_X = np.array([6.0, 3.0, 1.0])                                     # n = 10
TINY_Q = np.array([[1.0, 0, 0], [0, 1, 1], [1, 1, 0]])


def _mw(A, q, m, n):
    """The published update, A(u) ∝ A(u)·exp(q(u)(m − q·A)/(2n)), m clipped to [0, n]."""
    m = min(max(m, 0.0), n)
    out = A * np.exp(q * (m - q @ A) / (2 * n))
    return out * (n / out.sum())


def test_mwem_one_round_matches_the_exact_expectation_on_a_tiny_universe():
    # T = 1, ε = 2: selection by the exponential mechanism with ε/2 = 1 on the scores
    # |q·A₀ − q·x|, measurement Lap(2T/ε) = Lap(1), clipped to [0, n]. E[A₁] exactly:
    # Σ_i P(i) ∫ f_Lap(l) A₁(i, q_i·x + l) dl, by quadrature split at the kinks.
    n = TINY_X.sum()
    A0 = np.full(3, n / 3)
    true = TINY_Q @ TINY_X
    p_select = selection.exponential_mechanism_probabilities(np.abs(TINY_Q @ A0 - true), 1.0, 1.0)
    exact = np.zeros(3)
    for i in range(3):
        for u in range(3):
            kinks = sorted({-true[i], 0.0, n - true[i]})
            val, _ = integrate.quad(lambda l: 0.5 * math.exp(-abs(l))
                                    * _mw(A0, TINY_Q[i], true[i] + l, n)[u], -60, 60,
                                    points=kinks, limit=200)
            exact[u] += p_select[i] * val
    R = 4000
    gen = np.random.default_rng(11)
    runs = [mwem(TINY_Q, TINY_X, epsilon=2.0, T=1, rng=gen) for _ in range(R)]
    synth = np.array([r.synthetic for r in runs])
    np.testing.assert_array_equal(synth, np.array([r.last for r in runs]))  # T = 1: avg = last
    for u in range(3):                                      # each cell within 5 SE (sample sd)
        assert abs(synth[:, u].mean() - exact[u]) <= Z * _se_mean(synth[:, u]), u
    # the selection frequencies are the exponential mechanism's probabilities
    freq = np.bincount([r.selected[0] for r in runs], minlength=3) / R
    assert np.all(np.abs(freq - p_select) <= Z * np.sqrt(p_select * (1 - p_select) / R))
    # and each run's output is the update with its own measurement, exactly
    for r in runs[:50]:
        np.testing.assert_allclose(r.last, _mw(A0, TINY_Q[r.selected[0]], r.measurements[0], n),
                                   rtol=1e-12)


def test_mwem_with_negligible_noise_recovers_the_exact_answers():
    # ε = 1e3 (the domain's top): the measurements carry Lap(2T/ε) = Lap(0.08) noise, 8e-8
    # of n = 10⁶ (it was 1e-6 of n with ε = 1e6 and counts 10, 20, 30, 40); with the point
    # queries of a 4-cell universe and repeated passes MW converges to the histogram itself
    x = np.array([10.0, 20.0, 30.0, 40.0]) * 1e4
    res = mwem(np.eye(4), x, epsilon=1e3, T=40, passes=20, rng=0)
    assert max_error(np.eye(4), x, synthetic=res.last) < 1e-3
    # and the exact answers of any other query follow (the synthetic data *is* x)
    q = random_queries(4, 20, rng=1)
    assert max_error(q, x, synthetic=res.last) < 4e-3


def test_mwem_measurements_are_laplace_with_scale_2T_over_epsilon():
    # counts of 10⁶ in every cell, far from 0 and n = 4·10⁶: no clipping; ε = 0.1, T = 5:
    # Lap(100). |Lap(b)| has mean b and sd b: the mean over N draws within 5·b/√N
    x = np.full(4, 1e6)
    gen = np.random.default_rng(5)
    noise = []
    for _ in range(400):
        r = mwem(np.eye(4), x, epsilon=0.1, T=5, rng=gen)
        assert r.laplace_scale == 100.0 and r.select_epsilon == r.measure_epsilon == 0.01
        noise.extend(r.measurements - 1e6)
    noise = np.asarray(noise)
    assert abs(np.abs(noise).mean() - 100.0) <= Z * 100.0 / math.sqrt(noise.size)
    assert abs(noise.mean()) <= Z * math.sqrt(2) * 100.0 / math.sqrt(noise.size)
    # a Kolmogorov–Smirnov test against Lap(100) at level 1e-6
    assert stats.kstest(noise, stats.laplace(scale=100.0).cdf).pvalue > 1e-6


def test_mwem_error_decreases_with_T_until_the_noise_dominates():
    # 16 cells, 32 random queries, n = 5,314, ε = 0.3, Algorithm 1 (no extra passes); 20 runs
    # per T. More rounds first fit the data (T = 1 → 64), then each round's ε/(2T) gets so
    # small that the measurements are noise (T = 1,000): the error rises again.
    x = np.floor(np.random.default_rng(3).pareto(1.0, 16) * 100) + 1
    q = random_queries(16, 32, rng=5)
    errors = {T: np.array([max_error(q, x, synthetic=mwem(q, x, epsilon=0.3, T=T, rng=s).synthetic)
                           for s in range(20)]) for T in (1, 16, 64, 1000)}
    mean = {T: e.mean() for T, e in errors.items()}

    def se_diff(a, b):
        return math.sqrt(_se_mean(errors[a]) ** 2 + _se_mean(errors[b]) ** 2)

    assert mean[1] - mean[16] > Z * se_diff(1, 16)
    assert mean[16] - mean[64] > Z * se_diff(16, 64)
    assert mean[1000] - mean[64] > Z * se_diff(1000, 64)


def test_mwem_beats_independent_laplace_beyond_the_crossover(adult):
    # Adult, k = 2,000 random queries at ε = 1: Laplace's expected largest error is
    # k·H_k/(nε) ≈ 0.34; MWEM's (T = 30, 10 passes) about 0.05 in every one of 3 runs
    universe, hist = adult
    q = random_queries(universe, 2000, rng=9)
    out = compare_independent(q, hist, 1.0, T=30, passes=10, repeats=3, rng=1)
    assert math.isclose(out["laplace"], independent_max_error(2000, 1.0, n=hist.sum()))
    assert out["laplace"] > 0.3 and np.all(out["mwem"] < out["laplace"] / 3)
    assert np.all(out["mwem_last"] < out["mwem"])
    # ... and loses to it for a handful of queries: k = 10, Laplace ≈ 6e-4
    out = compare_independent(q.first(10), hist, 1.0, T=30, passes=10, repeats=3, rng=1)
    assert np.all(out["mwem"] > 5 * out["laplace"])


def test_mwem_accounting_matches_the_papers_formula():
    for eps, T in ((1.0, 30), (0.1, 1), (3.0, 200)):
        r = mwem(np.eye(3), TINY_X, epsilon=eps, T=T, rng=0)
        # [HLM12]: each round ε/(2T) for the exponential mechanism and ε/(2T) for Laplace
        assert r.select_epsilon == r.measure_epsilon == eps / (2 * T)
        assert math.isclose(r.laplace_scale, 2 * T / eps, rel_tol=1e-15)
        total, delta = basic_composition([r.select_epsilon, r.measure_epsilon] * T)
        assert math.isclose(total, eps, rel_tol=1e-12) and delta == 0.0
        acc = mwem_privacy(eps, T, delta=1e-6)
        assert math.isclose(acc.epsilon, eps, rel_tol=1e-12)
        assert math.isclose(acc.rho, eps**2 / (4 * T), rel_tol=1e-12)       # 2T·(ε₀²/2)
        assert acc.zcdp_epsilon == zcdp_to_epsilon(acc.rho, 1e-6)
        assert acc.advanced_epsilon == advanced_composition(eps / (2 * T), 0.0, 2 * T, 1e-6)[0]
        # the RDP curve of each step is below the zCDP line αε₀²/2 (Laplace: exactly
        # below; selection: min(ε₀, ·)), so RDP can only improve on zCDP's conversion
        bs = zcdp_to_epsilon(acc.rho, 1e-6, method="bun-steinke")
        assert acc.rdp_epsilon <= bs * (1 + 1e-9)
    # for many rounds zCDP/RDP say the same noise is (ε′, δ)-DP with ε′ well below ε
    acc = mwem_privacy(1.0, 30)
    assert acc.rdp_epsilon < 0.6 and acc.zcdp_epsilon < 0.6
    # a split that does not add up to the budget is refused by name
    with pytest.raises(ParameterError, match="split"):
        mwem(np.eye(3), TINY_X, epsilon=1.0, T=3, split=(0.5, 0.6))
    r = mwem(np.eye(3), TINY_X, epsilon=1.0, T=4, split=(0.2, 0.8), rng=0)
    assert math.isclose(r.select_epsilon, 0.05) and math.isclose(r.measure_epsilon, 0.2)


def test_sample_rows_follow_the_synthetic_histogram(adult):
    universe, hist = adult
    res = mwem(marginal_queries(universe), hist, epsilon=1.0, T=10, passes=5, rng=3)
    rows = sample_rows(universe, res.synthetic, 20_000, rng=4)
    assert list(rows.columns) == list(universe.columns) and len(rows) == 20_000
    counts = universe.to_histogram(rows)
    p = res.synthetic / res.synthetic.sum()
    # multinomial counts: each within 5 SE √(N p(1−p)) of N p
    assert np.all(np.abs(counts - 20_000 * p) <= Z * np.sqrt(20_000 * p * (1 - p)) + 1e-9)
    assert math.isclose(res.synthetic.sum(), hist.sum(), rel_tol=1e-12)


# ===================================================== private multiplicative weights
def test_pmw_privacy_is_sparse_vector_plus_laplace_answers(adult):
    universe, hist = adult
    q = random_queries(universe, 2000, rng=2024)
    r = private_multiplicative_weights(q, hist, epsilon=1.0, threshold=0.05, max_updates=50,
                                       passes=10, rng=0)
    # basic composition: sparse vector (ε₁, at most c ⊤) + c Laplace answers of ε₂/c each
    assert r.sparse_vector_epsilon == r.laplace_epsilon == 0.5
    assert r.epsilon == r.sparse_vector_epsilon + r.laplace_epsilon == 1.0
    assert r.laplace_scale == 50 / 0.5
    assert r.n_updates == r.updated.sum() <= 50 and r.answers.size == r.n_answered
    assert r.n_answered == 2000 and not r.halted            # all answered, < 50 updates
    # PMW answers 2,000 queries with error near α; independent Laplace: about 0.33
    err = max_error(q, hist, answers=r.answers)
    assert err < 0.1 < independent_max_error(2000, 1.0, n=hist.sum()) / 3
    with pytest.raises(ParameterError, match="split"):
        private_multiplicative_weights(q, hist, epsilon=1.0, threshold=0.05, max_updates=5,
                                       split=(0.9, 0.2))
    r = private_multiplicative_weights(q, hist, epsilon=1.0, threshold=0.01, max_updates=3,
                                       split=(0.25, 0.75), rng=1)
    assert r.halted and r.n_updates == 3 and r.updated[-1]   # stops at the c-th update
    assert r.laplace_scale == 3 / 0.75


def test_pmw_releases_are_a_function_of_released_values():
    # the free answers are the synthetic distribution's, and that distribution can be
    # replayed from the released answers alone: the ⊥ answers cost nothing
    x = np.floor(np.random.default_rng(3).pareto(1.0, 16) * 100) + 1
    n = x.sum()
    q = random_queries(16, 300, rng=5)
    r = private_multiplicative_weights(q, x, epsilon=2.0, threshold=0.05, max_updates=20,
                                       passes=2, rng=7)
    A, past = np.full(16, n / 16), []
    for i in range(r.n_answered):
        row = q.matrix[i]
        if not r.updated[i]:
            assert math.isclose(r.answers[i], row @ A, rel_tol=1e-9, abs_tol=1e-9)
            continue
        past.append((row, r.answers[i]))
        A = _mw(A, row, r.answers[i], n)
        for _ in range(2):
            for pr, pa in past:
                A = _mw(A, pr, pa, n)
    np.testing.assert_allclose(A, r.synthetic, rtol=1e-9)
    assert r.n_updates >= 1


def test_pmw_laplace_answers_have_scale_c_over_epsilon2():
    # each paid answer is q·x + Lap(c/ε₂), drawn after sparse vector's decision (so no
    # selection bias): |noise| has mean and sd b; 5 SE over all paid answers of 60 runs
    x = np.array([400.0, 0, 0, 0, 0, 0, 0, 0])                       # far from uniform
    q = np.eye(8)
    noise = []
    for s in range(60):
        r = private_multiplicative_weights(q, x, epsilon=4.0, threshold=0.02, max_updates=8,
                                           rng=s)
        noise.extend(r.answers[r.updated] - (q @ x)[:r.n_answered][r.updated])
    noise = np.asarray(noise)
    b = 8 / 2.0
    assert noise.size > 200
    assert abs(np.abs(noise).mean() - b) <= Z * b / math.sqrt(noise.size)


def test_pmw_fixed_learning_rate_moves_towards_the_answer():
    x = np.array([90.0, 10.0])
    r = private_multiplicative_weights(np.array([[1.0, 0.0]]), x, epsilon=100.0, threshold=0.05,
                                       max_updates=1, learning_rate=0.5, rng=0)
    assert r.updated[0]
    ratio = math.exp(0.5)                                           # cell 0 up by e^η
    np.testing.assert_allclose(r.synthetic, [100 * ratio / (ratio + 1), 100 / (ratio + 1)])



# ================================================ rules, edges and types of the API
X4 = np.array([3.0, 1.0, 0.0, 4.0])
Q4 = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0], [0.5, 0.0, 0.5, 0.0]])


def test_rules_that_tie_arguments_are_refused_by_name():
    u = Universe(("a",), (("x", "y"),))
    for call, arg in [
        (lambda: max_error(Q4, X4), "answers"),                               # neither
        (lambda: max_error(Q4, X4, answers=[1.0] * 3, synthetic=X4), "answers"),   # both
        (lambda: max_error(Q4, X4, answers=[1.0, 2.0]), "answers"),
        (lambda: max_error(Q4, X4, synthetic=[1.0, 2.0]), "synthetic"),
        (lambda: LinearQueries(Q4).answer([1.0, 2.0]), "hist"),
        (lambda: LinearQueries(Q4).first(4), "k"),
        (lambda: LinearQueries(Q4, names=("a", "b")), "names"),
        (lambda: u.decode([0, 2]), "indices"),
        (lambda: u.to_histogram(pd.DataFrame({"b": ["x"]})), "df"),
        (lambda: Universe(("a", "b"), (("x",),)), "levels"),
        (lambda: Universe(("a",), (("x",),), ((0.0,),)), "edges"),
        (lambda: marginal_queries(u, ways=2), "ways"),
        (lambda: random_queries(10**6, 11), "k"),                    # k·|U| > 10⁷
        (lambda: sample_rows(u, [1.0, 1.0, 1.0], 5), "synthetic"),
        (lambda: sample_rows(u, [0.0, 0.0], 5), "synthetic"),
        (lambda: mwem(Q4, X4, epsilon=1.0, T=3, split=(0.5, 0.6)), "split"),
        (lambda: mwem(Q4, X4, epsilon=1.0, T=1000, passes=1), "passes"),  # 5·10⁵ updates
        (lambda: private_multiplicative_weights(Q4, X4, epsilon=1.0, threshold=0.1,
                                                max_updates=10_000, passes=1), "passes"),
    ]:
        with pytest.raises(ParameterError, match=arg):
            call()


def test_to_histogram_refuses_a_column_given_twice():
    # pandas selects both columns and crashed with a bare error; now the refusal names df
    u = Universe(("a",), (("x", "y"),))
    df = pd.DataFrame([["x", "y"], ["y", "x"]], columns=["a", "a"])
    with pytest.raises(ParameterError, match=r"df must be a frame with each of the columns "
                                             r"\['a'\] once.*\['a'\] twice"):
        u.to_histogram(df)


def test_the_largest_epsilon_gives_nearly_exact_answers_and_best_queries():
    # ε = 1e3: Lap(b) with b = k/ε; P(|Lap(b)| > 40b) = e⁻⁴⁰ per draw, so the fixed seed
    # fails a correct implementation with probability below 1e-16
    truth = Q4 @ X4
    b = 3 / 1e3
    assert np.all(np.abs(laplace_answers(Q4, X4, 1e3, rng=0) - truth) <= 40 * b)
    assert np.all(np.abs(histogram_answers(Q4, X4, 1e3, rng=0) - truth) <= 40 * 1e-3 * 2)
    # MWEM, one round at ε = 1e3: the exponential mechanism (ε/2 = 500, scores differing
    # by 1) picks a worst-answered cell with probability 1 − O(e⁻²⁵⁰), and the measurement
    # is within 40 scales of its count (clipped at 0 for the empty cell)
    res = mwem(np.eye(4), X4, epsilon=1e3, T=1, rng=0)
    i = res.selected[0]
    assert abs(X4[i] - 2.0) == np.abs(X4 - 2.0).max()                       # A₀ = 2 per cell
    assert abs(res.measurements[0] - X4[i]) <= 40 * res.laplace_scale


def test_returned_numbers_have_python_types():
    assert type(max_error(Q4, X4, answers=[4.0, 4.0, 3.5])) is float
    assert type(zcdp_budget(1.0, 1e-5)) is float
    assert type(independent_noise_scale(10, 1.0)) is float
    assert type(independent_max_error(10, 1.0)) is float
    r = private_multiplicative_weights(Q4, X4, epsilon=1.0, threshold=0.1, max_updates=2,
                                       rng=0)
    assert type(r.n_answered) is int and type(r.n_updates) is int and type(r.epsilon) is float
    acc = mwem_privacy(1.0, 30)
    assert all(type(getattr(acc, f.name)) is float for f in dataclasses.fields(acc))
    assert type(LinearQueries(Q4).l1_sensitivity()) is float
    assert type(adult_universe().size) is int


def test_queries_without_sensitivity_are_answered_exactly():
    # all-zero queries count nobody: ℓ1 sensitivity 0, no noise needed, 0-DP
    zero = np.zeros((2, 4))
    np.testing.assert_array_equal(laplace_answers(zero, X4, 1.0, calibration="l1", rng=0), 0.0)
    np.testing.assert_array_equal(gaussian_answers(zero, X4, 1.0, 1e-5, calibration="l2",
                                                   rng=0), 0.0)
