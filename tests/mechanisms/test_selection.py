"""Tests for dpteach.mechanisms.selection (exponential mechanism, report-noisy-max) and dpteach.mechanisms.sparse_vector.

Statistical tolerances
----------------------
A frequency p̂ = K/n of an event with exact probability p has standard error
SE = √(p(1−p)/n). We accept |p̂ − p| ≤ 5·SE (two-sided false-alarm rate
5.7e-7 per comparison under the normal approximation, so a handful of
comparisons per test keeps the family-wise rate below 1e-5). Every seed is
fixed, so the tests are deterministic; the tolerance says how unlucky a seed
would have to be to fail a correct implementation.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import special, stats

from dpteach.mechanisms import selection as S
from dpteach.mechanisms import sparse_vector as SV
from _props import (
    NON_FINITE_ARRAYS,
    NOT_A_NUMBER,
    NOT_POSITIVE_FINITE,
    BAD_DELTA,
    assert_rejects_bad_values,
    call_rejects,
)


def _se(p, n):
    return math.sqrt(p * (1 - p) / n)


def _assert_freqs_match(draws, probs, n):
    """Each category's frequency within 5 SE of its exact probability."""
    freq = np.bincount(draws, minlength=probs.size) / n
    for f, p in zip(freq, probs):
        assert abs(f - p) <= 5 * _se(p, n) + 1e-12, (freq, probs)


# ======================================================= exponential mechanism
def test_em_probabilities_closed_form():
    u = np.array([3.0, 1.0, 0.0, 2.5])
    eps, d = 1.0, 1.0
    w = np.exp(eps * u / (2 * d))
    np.testing.assert_allclose(S.exponential_mechanism_probabilities(u, d, eps), w / w.sum(),
                               rtol=1e-14)
    w = np.exp(eps * u / d)
    np.testing.assert_allclose(S.exponential_mechanism_probabilities(u, d, eps, monotonic=True),
                               w / w.sum(), rtol=1e-14)


def test_em_sampling_matches_exact_probabilities():
    u = np.array([3.0, 1.0, 0.0, 2.5, -1.0])
    p = S.exponential_mechanism_probabilities(u, 1.0, 1.5)
    n = 200_000
    draws = S.exponential_mechanism(u, 1.0, 1.5, size=n, rng=11)
    _assert_freqs_match(draws, p, n)
    # chi-square goodness of fit as a second, joint check (df = 4; p-value > 1e-6)
    counts = np.bincount(draws, minlength=u.size)
    assert stats.chisquare(counts, n * p).pvalue > 1e-6


def test_em_sampling_in_chunks_matches(monkeypatch):
    monkeypatch.setattr(S, "_CHUNK", 7)       # forces many chunks of one row each
    u = np.array([0.0, 1.0, 2.0])
    p = S.exponential_mechanism_probabilities(u, 1.0, 1.0)
    n = 20_000
    draws = S.exponential_mechanism(u, 1.0, 1.0, size=n, rng=5)
    assert draws.shape == (n,)
    _assert_freqs_match(draws, p, n)


def test_em_single_draw_is_int_and_reproducible():
    a = S.exponential_mechanism([1, 2, 3], 1, 1, rng=3)
    b = S.exponential_mechanism([1, 2, 3], 1, 1, rng=3)
    assert isinstance(a, int) and a == b


@pytest.mark.parametrize("eps", [0.1, 1.0, 5.0])
def test_em_privacy_ratio_on_neighbouring_scores(eps):
    """Exact ratio Pr[r|u]/Pr[r|u'] ≤ e^ε for all u' with |u − u'|∞ ≤ Δ."""
    gen = np.random.default_rng(0)
    delta_u = 2.0
    worst = 0.0
    for _ in range(300):
        k = gen.integers(2, 8)
        u = gen.normal(0, 5, size=k)
        up = u + gen.uniform(-delta_u, delta_u, size=k)
        p = S.exponential_mechanism_probabilities(u, delta_u, eps)
        pp = S.exponential_mechanism_probabilities(up, delta_u, eps)
        worst = max(worst, np.max(np.log(p / pp)), np.max(np.log(pp / p)))
    assert worst <= eps * (1 + 1e-12)
    # the bound is nearly attained: r loses Δ, every other candidate gains Δ
    u = np.array([0.0] + [100.0] * 200)
    up = u + delta_u
    up[0] = u[0] - delta_u
    r = np.log(S.exponential_mechanism_probabilities(u, delta_u, eps)[0]
               / S.exponential_mechanism_probabilities(up, delta_u, eps)[0])
    assert eps * 0.99 < r <= eps * (1 + 1e-12)


def test_em_monotonic_needs_monotone_scores():
    eps, d = 1.0, 1.0
    gen = np.random.default_rng(1)
    for _ in range(300):      # monotone neighbours: every score moves the same way
        u = gen.normal(0, 3, size=5)
        up = u + gen.uniform(0, d, size=5)
        p = S.exponential_mechanism_probabilities(u, d, eps, monotonic=True)
        pp = S.exponential_mechanism_probabilities(up, d, eps, monotonic=True)
        assert np.max(np.abs(np.log(p / pp))) <= eps * (1 + 1e-12)
    # a non-monotone pair: the ε/Δ exponent leaks up to 2ε
    u = np.array([0.0] + [10.0] * 50)
    up = u + d
    up[0] = u[0] - d
    r = np.log(S.exponential_mechanism_probabilities(u, d, eps, monotonic=True)[0]
               / S.exponential_mechanism_probabilities(up, d, eps, monotonic=True)[0])
    assert r > 1.9 * eps


def test_em_huge_scores_are_stable():
    with np.errstate(over="raise", invalid="raise", divide="raise"):   # underflow to 0 is fine
        p = S.exponential_mechanism_probabilities([1e6, 1e6 - 1, 0.0], 1.0, 100.0)
        assert np.all(np.isfinite(p)) and abs(p.sum() - 1) < 1e-12
        assert p[0] == pytest.approx(1.0) and p[2] == 0.0
        # ratio of the two top candidates is exp(100·1/2) = e^50
        assert math.log(p[0] / p[1]) == pytest.approx(50.0, rel=1e-12)
        draws = S.exponential_mechanism([1e6, 1e6 - 1, 0.0], 1.0, 100.0, size=1000, rng=0)
        assert np.all(draws == 0)
    p = S.exponential_mechanism_probabilities([1e308, -1e308], 1.0, 1.0)
    assert np.array_equal(p, [1.0, 0.0])


# ---------------------------------------------------------- mode and median
def test_mode_utility_counts_labels_and_ignores_unknown():
    data = ["a", "b", "b", "c", "zzz", None, np.nan]
    np.testing.assert_array_equal(S.mode_utility(data, ["c", "b", "a", "d"]), [1, 2, 1, 0])
    np.testing.assert_array_equal(S.mode_utility([1, 1, 2.0, 7], [1, 2, 3]), [2, 1, 0])
    np.testing.assert_array_equal(S.mode_utility([], [1, 2]), [0, 0])


def test_private_mode_probabilities_use_the_right_exponent():
    data = ["x"] * 5 + ["y"] * 3 + ["z"]
    cand = ["x", "y", "z"]
    counts = np.array([5.0, 3.0, 1.0])
    np.testing.assert_allclose(S.private_mode_probabilities(data, cand, 0.7),
                               special.softmax(0.7 * counts), rtol=1e-13)
    p_replace = S.private_mode_probabilities(data, cand, 0.7, neighbouring="replace")
    np.testing.assert_allclose(p_replace, special.softmax(0.35 * counts), rtol=1e-13)


def test_private_mode_privacy_ratio_add_remove():
    eps = 0.8
    base = ["x"] * 4 + ["y"] * 4 + ["z"] * 2
    cand = ["x", "y", "z"]
    p = S.private_mode_probabilities(base, cand, eps)
    for extra in cand:
        pp = S.private_mode_probabilities(base + [extra], cand, eps)
        assert np.max(np.abs(np.log(p / pp))) <= eps * (1 + 1e-12)
    for i in range(len(base)):    # removal
        pp = S.private_mode_probabilities(base[:i] + base[i + 1:], cand, eps)
        assert np.max(np.abs(np.log(p / pp))) <= eps * (1 + 1e-12)


def test_private_mode_finds_the_mode_for_large_epsilon():
    data = ["HS-grad"] * 50 + ["Bachelors"] * 30 + ["Masters"] * 10
    assert S.private_mode(data, ["Bachelors", "HS-grad", "Masters"], 5.0, rng=0) == "HS-grad"
    assert S.private_mode([3, 3, 4], [3, 4], 20.0, rng=1) == 3


def test_median_utility_values():
    data = [1, 2, 2, 3, 10]
    # below/above counts at 0,1,2,3,4,10,11: (0,5) (0,4) (1,2) (3,1) (4,1) (4,0) (5,0)
    np.testing.assert_array_equal(S.median_utility(data, [0, 1, 2, 3, 4, 10, 11]),
                                  [-5, -4, -1, -2, -3, -4, -5])


def test_median_utility_sensitivity():
    gen = np.random.default_rng(2)
    cand = np.arange(0, 11)
    worst_add, worst_rep = 0.0, 0.0
    for _ in range(300):
        x = gen.integers(0, 11, size=gen.integers(1, 12)).astype(float)
        u = S.median_utility(x, cand)
        z = float(gen.integers(-2, 13))
        worst_add = max(worst_add, np.max(np.abs(S.median_utility(np.append(x, z), cand) - u)))
        x2 = x.copy()
        x2[gen.integers(x.size)] = z
        worst_rep = max(worst_rep, np.max(np.abs(S.median_utility(x2, cand) - u)))
    assert worst_add == 1.0
    assert worst_rep == 2.0


def test_private_median_accuracy_and_privacy():
    gen = np.random.default_rng(3)
    ages = gen.integers(20, 60, size=2001).astype(float)
    cand = np.arange(17, 91)
    true_med = float(np.median(ages))
    p = S.private_median_probabilities(ages, cand, 1.0)
    # Thm 3.11: Pr[u(out) ≤ OPT − (2Δu/ε)(ln k + t)] ≤ e^{-t}; with t = 10 the
    # chosen candidate is within 2(ln 74 + 10) ≈ 28.6 ranks of the best.
    u = S.median_utility(ages, cand)
    bad = u < u.max() - 2 * (math.log(cand.size) + 10)
    assert p[bad].sum() <= math.exp(-10)
    draws = [S.private_median(ages, cand, 1.0, rng=gen) for _ in range(50)]
    assert all(abs(d - true_med) <= 2 for d in draws)       # ranks are dense here
    # exact privacy ratio, add/remove a record anywhere in the domain (a small
    # dataset, so that no probability underflows to 0)
    small = ages[:61]
    p = S.private_median_probabilities(small, cand, 1.0)
    assert p.min() > 0
    neighbours = [np.append(small, z) for z in (17.0, true_med, 90.0)]
    neighbours += [np.delete(small, i) for i in range(small.size)]
    for nb in neighbours:
        pp = S.private_median_probabilities(nb, cand, 1.0)
        assert np.max(np.abs(np.log(p / pp))) <= 1.0 * (1 + 1e-12)


def test_private_median_replace_neighbours_use_sensitivity_two():
    # Under replace-one neighbours the rank score has Δu = 2 (test_median_utility_sensitivity),
    # so the exponent must be ε·u/4; with Δu = 1 a worst-case replacement breaks ε-DP.
    cand = np.arange(0.0, 11.0)
    x = np.array([1.0, 2.0, 5.0, 5.0, 9.0, 10.0, 3.0])
    eps = 1.0
    p = S.private_median_probabilities(x, cand, eps, neighbouring="replace")
    np.testing.assert_allclose(p, special.softmax(eps * S.median_utility(x, cand) / 4),
                               rtol=1e-12)
    # exact privacy ratio over every replace-one neighbour on this small domain
    worst = 0.0
    for i in range(x.size):
        for z in cand:
            x2 = x.copy()
            x2[i] = z
            p2 = S.private_median_probabilities(x2, cand, eps, neighbouring="replace")
            worst = max(worst, float(np.max(np.abs(np.log(p / p2)))))
    assert worst <= eps * (1 + 1e-12)
    # the score does move by 2 on this dataset, so Δu = 1 would not have been enough
    x2 = x.copy()
    x2[np.argmax(x)] = 0.0
    assert np.max(np.abs(S.median_utility(x2, cand) - S.median_utility(x, cand))) == 2.0


# ========================================================= report noisy max
def test_rnm_scale():
    assert S.report_noisy_max_scale(1.0, 0.5) == 4.0
    assert S.report_noisy_max_scale(3.0, 2.0, monotonic=True) == 1.5


def test_rnm_integrator_against_closed_forms():
    # Gumbel noise through the same quadrature must give the softmax exactly
    z = -np.random.default_rng(4).exponential(4.0, size=40)
    z[0] = 0.0
    np.testing.assert_allclose(S._rnm_integral(z, "gumbel"), special.softmax(z),
                               rtol=1e-11, atol=1e-15)
    # two candidates, gap d in noise units: Laplace 1 − e^{−d}(2+d)/4 (the
    # difference of two Laplace(1) has density (1+|t|)e^{−|t|}/4);
    # exponential 1 − e^{−d}/2 (difference of two Exp(1) is Laplace(1))
    for d in (0.0, 0.3, 2.0, 7.5):
        pl = S.report_noisy_max_probabilities([d, 0.0], 1.0, 1.0, monotonic=True)
        assert pl[0] == pytest.approx(1 - math.exp(-d) * (2 + d) / 4, abs=1e-13)
        pe = S.report_noisy_max_probabilities([d, 0.0], 1.0, 1.0, monotonic=True,
                                              noise="exponential")
        assert pe[0] == pytest.approx(1 - math.exp(-d) / 2, abs=1e-13)


def test_rnm_gumbel_equals_exponential_mechanism():
    u = [4.0, 2.0, 3.5, 0.0]
    np.testing.assert_allclose(S.report_noisy_max_probabilities(u, 1.0, 1.3, noise="gumbel"),
                               S.exponential_mechanism_probabilities(u, 1.0, 1.3), rtol=1e-14)


@pytest.mark.parametrize("noise", ["laplace", "exponential", "gumbel"])
def test_rnm_sampling_matches_exact(noise):
    u = np.array([10.0, 9.0, 5.0, 9.5])
    p = S.report_noisy_max_probabilities(u, 1.0, 1.0, monotonic=True, noise=noise)
    assert abs(p.sum() - 1) < 1e-12
    n = 100_000
    draws = S.report_noisy_max(u, 1.0, 1.0, monotonic=True, noise=noise, size=n, rng=7)
    _assert_freqs_match(draws, p, n)


@pytest.mark.parametrize("noise", ["laplace", "exponential", "gumbel"])
def test_rnm_picks_argmax_as_epsilon_grows(noise):
    u = [10.0, 9.0, 5.0, 9.5]
    pmax = [S.report_noisy_max_probabilities(u, 1.0, e, noise=noise)[0]
            for e in (0.01, 0.1, 1.0, 10.0, 100.0)]
    assert all(a < b for a, b in zip(pmax, pmax[1:]))
    assert pmax[0] < 0.3 and pmax[-1] > 1 - 1e-9
    draws = S.report_noisy_max(u, 1.0, 100.0, noise=noise, size=2000, rng=8)
    assert np.all(draws == 0)


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_rnm_privacy_ratio_exact_and_empirical(noise):
    eps = 1.0
    # counting queries, add one record of class 1: monotone, Δ = 1
    cD, cP = np.array([10.0, 9.0, 5.0]), np.array([10.0, 10.0, 5.0])
    pD = S.report_noisy_max_probabilities(cD, 1.0, eps, monotonic=True, noise=noise)
    pP = S.report_noisy_max_probabilities(cP, 1.0, eps, monotonic=True, noise=noise)
    assert np.max(np.abs(np.log(pD / pP))) <= eps * (1 + 1e-9)
    # general (non-monotone) neighbours with the 2Δ/ε scale: scores swap by ≤ Δ
    gD, gP = np.array([1.0, 0.0, 0.5]), np.array([0.0, 1.0, 0.5])
    qD = S.report_noisy_max_probabilities(gD, 1.0, eps, noise=noise)
    qP = S.report_noisy_max_probabilities(gP, 1.0, eps, noise=noise)
    assert np.max(np.abs(np.log(qD / qP))) <= eps * (1 + 1e-9)
    # Empirical check on the counting pair: the DP inequality p_D ≤ e^ε p_D' must
    # hold for the frequencies up to Monte Carlo error. With n draws on each side,
    # SD(p̂_D − e^ε p̂_D') = √(p_D(1−p_D) + e^{2ε} p_D'(1−p_D'))/√n; allow 5 SD.
    n = 100_000
    fD = np.bincount(S.report_noisy_max(cD, 1.0, eps, monotonic=True, noise=noise, size=n,
                                        rng=9), minlength=3) / n
    fP = np.bincount(S.report_noisy_max(cP, 1.0, eps, monotonic=True, noise=noise, size=n,
                                        rng=10), minlength=3) / n
    for a, b, pa, pb in ((fD, fP, pD, pP), (fP, fD, pP, pD)):
        for i in range(3):
            var = pa[i] * (1 - pa[i]) + math.exp(2 * eps) * pb[i] * (1 - pb[i])
            sd = math.sqrt(var / n)
            assert a[i] - math.exp(eps) * b[i] <= 5 * sd


# ============================================================= sparse vector
def test_sparse_vector_noise_scales():
    assert SV.sparse_vector_noise_scales(1.0) == (2.0, 4.0)            # DR14 Alg. 1
    assert SV.sparse_vector_noise_scales(0.5, 2.0, 3) == (24.0, 48.0)  # σ = 2cΔ/ε
    s, q = SV.sparse_vector_noise_scales(0.5, 1.0, 4, delta=1e-5)
    assert s == pytest.approx(math.sqrt(32 * 4 * math.log(1e5)) / 0.5) and q == 2 * s
    with pytest.raises(ValueError, match="epsilon"):
        SV.sparse_vector_noise_scales(1.5, 1.0, 2, delta=1e-5)


def test_sparse_vector_object_halts_and_counts():
    sv = SV.SparseVector(threshold=50.0, epsilon=100.0, max_above=2, rng=0)
    answers = [sv.query(v) for v in [0, 0, 100, 0, 100]]
    assert answers == [False, False, True, False, True]
    assert sv.n_answered == 5 and sv.n_above == 2 and sv.halted
    with pytest.raises(RuntimeError, match="halted"):
        sv.query(0.0)
    res = sv.result()
    np.testing.assert_array_equal(res.above_indices, [2, 4])
    assert "SparseVector(" in repr(sv)


def test_sparse_vector_function_stops_at_cutoff():
    res = SV.sparse_vector([0, 100, 100, 100, 0], 50, 100.0, max_above=2, rng=1)
    assert res.n_answered == 3 and res.n_above == 2 and res.halted
    res = SV.sparse_vector([0, 0, 0], 50, 100.0, max_above=2, rng=1)
    assert res.n_answered == 3 and res.n_above == 0 and not res.halted


def test_above_threshold_finds_first_clearly_above_query():
    vals = [0.0] * 30 + [100.0] + [0.0] * 10
    # exact probability that the transcript is ⊥^30 ⊤ at ε = 5 (noise scales 0.4, 0.8)
    p = SV.sparse_vector_pattern_probability(vals, [False] * 30 + [True], 50.0, 5.0)
    assert p > 1 - 1e-12
    hits = sum(SV.above_threshold(vals, 50.0, 5.0, rng=s) == 30 for s in range(300))
    assert hits == 300
    assert SV.above_threshold([0.0, 0.0], 50.0, 5.0, rng=0) is None


def test_pattern_probabilities_sum_to_one():
    q = [1.0, 3.0, 2.0]
    for c in (1, 2, 3):
        total = 0.0
        for L in range(1, 4):
            for pat in itertools.product([False, True], repeat=L):
                complete = (sum(pat) == c and pat[-1]) or L == 3
                if complete:
                    total += SV.sparse_vector_pattern_probability(q, pat, 2.0, 1.0, max_above=c)
        assert total == pytest.approx(1.0, abs=1e-9)
    assert SV.sparse_vector_pattern_probability(q, [True, False], 2.0, 1.0) == 0.0
    assert SV.sparse_vector_pattern_probability(q, [], 2.0, 1.0) == 1.0


def test_sparse_vector_exact_privacy_ratio():
    """Every transcript's probability ratio ≤ e^ε on neighbouring answer vectors."""
    gen = np.random.default_rng(13)
    eps = 1.0
    worst = 0.0
    for _ in range(25):
        m = 3
        q = gen.integers(0, 4, size=m).astype(float)
        qp = q + gen.choice([-1.0, 0.0, 1.0], size=m)      # each query moves by ≤ Δ = 1
        for c in (1, 2):
            for L in range(1, m + 1):
                for pat in itertools.product([False, True], repeat=L):
                    a = SV.sparse_vector_pattern_probability(q, pat, 1.5, eps, max_above=c)
                    b = SV.sparse_vector_pattern_probability(qp, pat, 1.5, eps, max_above=c)
                    if a == 0.0 and b == 0.0:
                        continue
                    worst = max(worst, abs(math.log(a / b)))
    assert worst <= eps * (1 + 1e-9)
    assert worst > 0.3 * eps      # the check is not vacuous


def test_above_threshold_worst_case_pair_attains_epsilon():
    """An adversarial neighbour pair on which AboveThreshold's ratio is e^ε exactly.

    30 ⊥ answers for queries sitting 4 above T, each raised by Δ on D′, then a ⊤
    for a query lowered by Δ: the threshold part and the ⊤ part each use ε/2.
    Halving the query noise (Lap(2Δ/ε) instead of Lap(4Δ/ε)) would give 1.5ε on
    this pair, so the check is sharp.
    """
    eps = 1.0
    q = np.array([4.0] * 30 + [-4.0])
    qp = q.copy()
    qp[:30] += 1.0
    qp[30] -= 1.0
    pat = [False] * 30 + [True]
    r = math.log(SV.sparse_vector_pattern_probability(q, pat, 0.0, eps)
                 / SV.sparse_vector_pattern_probability(qp, pat, 0.0, eps))
    assert 0.999 * eps < r <= eps * (1 + 1e-9)


# --------------------------------------------- the broken variant, as a lesson
Q_D, Q_DP = [1.0, 1.0], [1.0, 2.0]   # two counts; the added person is counted by query 2 only
THRESH, EPS, EVENT = 1.5, 1.0, [False, True]


def test_broken_variant_exact_probabilities():
    # (⊥, ⊤) needs q1 < T̂ ≤ q2: impossible when q1 = q2, probability
    # Pr[1 < 1.5 + Lap(2) ≤ 2] = 1 − e^{−1/4} when q2 = 2.
    assert SV.no_query_noise_pattern_probability(Q_D, EVENT, THRESH, EPS) == 0.0
    assert SV.no_query_noise_pattern_probability(Q_DP, EVENT, THRESH, EPS) == pytest.approx(
        1 - math.exp(-0.25), rel=1e-13)
    # all full transcripts of the broken variant sum to one
    total = sum(SV.no_query_noise_pattern_probability([0.0, 2.0, 1.0], pat, 1.0, 1.0)
                for pat in itertools.product([False, True], repeat=3))
    assert total == pytest.approx(1.0, abs=1e-14)


# ====================================================== bad-input properties
def _valid_em():
    return dict(scores=[1.0, 2.0], sensitivity=1.0, epsilon=1.0)


@pytest.mark.parametrize("func", [S.exponential_mechanism_probabilities, S.exponential_mechanism,
                                  S.report_noisy_max, S.report_noisy_max_probabilities])
def test_selection_rejects_bad_parameters(func):
    valid = _valid_em()
    assert_rejects_bad_values(func, valid, "epsilon", NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(func, valid, "epsilon", NOT_A_NUMBER)
    assert_rejects_bad_values(func, valid, "sensitivity", NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(func, valid, "scores", NON_FINITE_ARRAYS)
    for bad in ([], [[1.0, 2.0]], "ab", None):
        call_rejects(func, {**valid, "scores": bad}, "scores")
    for bad in (1, "yes", None):
        call_rejects(func, {**valid, "monotonic": bad}, "monotonic")


def test_sampling_functions_reject_bad_size_and_rng():
    for func in (S.exponential_mechanism, S.report_noisy_max):
        for bad in (0, -3, 2.5, "10", True):
            call_rejects(func, {**_valid_em(), "size": bad}, "size")
        for bad in ("seed", -1, 1.5):
            call_rejects(func, {**_valid_em(), "rng": bad}, "rng")
    for bad in ("normal", None, 1):
        call_rejects(S.report_noisy_max, {**_valid_em(), "noise": bad}, "noise")
    call_rejects(S.report_noisy_max_scale, dict(sensitivity=1.0, epsilon=1.0, monotonic="no"),
                 "monotonic")
    assert_rejects_bad_values(S.report_noisy_max_scale, dict(sensitivity=1.0, epsilon=1.0),
                              "sensitivity", NOT_POSITIVE_FINITE)


@pytest.mark.parametrize("func", [S.private_mode, S.private_mode_probabilities,
                                  S.private_median, S.private_median_probabilities])
def test_mode_median_reject_bad_input(func):
    valid = dict(data=[1.0, 2.0, 2.0], candidates=[1.0, 2.0, 3.0], epsilon=1.0)
    assert_rejects_bad_values(func, valid, "epsilon", NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(func, valid, "data", NON_FINITE_ARRAYS.filter(
        lambda a: np.ndim(a) == 1))
    for bad in ([], [1.0, 1.0], [[1.0, 2.0]], "abc", None):
        call_rejects(func, {**valid, "candidates": bad}, "candidates")
    for bad in ("add", None, 1):
        call_rejects(func, {**valid, "neighbouring": bad}, "neighbouring")
    call_rejects(func, {**valid, "data": [[1.0, 2.0]]}, "data")


def test_utilities_reject_bad_input():
    call_rejects(S.median_utility, dict(data=[1.0], candidates=[1.0, np.nan]), "candidates")
    call_rejects(S.median_utility, dict(data=["a"], candidates=[1.0]), "data")
    call_rejects(S.mode_utility, dict(data="abc", candidates=["a"]), "data")
    call_rejects(S.mode_utility, dict(data=[1.0], candidates=["a", "a"]), "candidates")


def _valid_svt():
    return dict(values=[0.0, 1.0, 2.0], threshold=1.0, epsilon=1.0)


@pytest.mark.parametrize("func", [SV.sparse_vector, SV.above_threshold,
                                  SV.sparse_vector_without_query_noise])
def test_svt_functions_reject_bad_input(func):
    valid = _valid_svt()
    assert_rejects_bad_values(func, valid, "epsilon", NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(func, valid, "sensitivity", NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(func, valid, "threshold", NOT_A_NUMBER)
    assert_rejects_bad_values(func, valid, "values", NON_FINITE_ARRAYS)
    for bad in (math.nan, math.inf):
        call_rejects(func, {**valid, "threshold": bad}, "threshold")
    for bad in ([], [[1.0]], None):
        call_rejects(func, {**valid, "values": bad}, "values")


def test_sparse_vector_rejects_bad_cutoff_and_delta():
    valid = _valid_svt()
    for bad in (0, -1, 1.5, "2"):
        call_rejects(SV.sparse_vector, {**valid, "max_above": bad}, "max_above")
    assert_rejects_bad_values(SV.sparse_vector, valid, "delta", BAD_DELTA)
    assert_rejects_bad_values(SV.SparseVector, dict(threshold=1.0, epsilon=1.0), "epsilon",
                              NOT_POSITIVE_FINITE)
    sv = SV.SparseVector(1.0, 1.0, rng=0)
    for bad in (math.nan, "1", None):
        call_rejects(sv.query, {"answer": bad}, "answer")


def test_as_transcript_checks_and_converts():
    out = SV.as_transcript([1, 0, True], 3)
    assert out.dtype == bool and out.tolist() == [True, False, True]
    assert SV.as_transcript([]).shape == (0,)
    for bad in ([True, False, True, False], [0, 2], "TF", None, [[True]], [0.5], [[1], [1, 2]]):
        call_rejects(SV.as_transcript, {"answers": bad, "n_queries": 3}, "answers")
    for bad in (-1, 1.5, "3", True):
        call_rejects(SV.as_transcript, {"answers": [True], "n_queries": bad}, "n_queries")


def test_pattern_functions_reject_bad_input():
    valid = dict(values=[0.0, 1.0], answers=[False, True], threshold=1.0, epsilon=1.0)
    for func in (SV.sparse_vector_pattern_probability, SV.no_query_noise_pattern_probability):
        assert_rejects_bad_values(func, valid, "epsilon", NOT_POSITIVE_FINITE)
        assert_rejects_bad_values(func, valid, "values", NON_FINITE_ARRAYS)
        for bad in ([True, False, True], [0, 2], "TF", None, [[True]]):
            call_rejects(func, {**valid, "answers": bad}, "answers")


# ================================================================== figures
def _bars(fig, gid):
    return [p for p in fig.axes[0].patches if p.get_gid() == gid]


def _check_fig(fig, *needles):
    from matplotlib.figure import Figure

    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_xlabel() and ax.get_ylabel()
    for needle in needles:
        assert needle in ax.get_title(), (needle, ax.get_title())


def test_plot_exponential_mechanism_draws_the_exact_probabilities():
    from dpteach.plots import selection as P

    u = [3.0, 1.0, 0.0, 2.5]
    fig = P.plot_exponential_mechanism(u, 1.0, 0.7, labels="abcd")
    _check_fig(fig, "ε = 0.7")
    heights = [b.get_height() for b in _bars(fig, "probabilities")]
    np.testing.assert_allclose(heights, S.exponential_mechanism_probabilities(u, 1.0, 0.7))
    with pytest.raises(ValueError, match="labels"):
        P.plot_exponential_mechanism(u, 1.0, 0.7, labels="ab")


def test_plot_mode_median_and_noisy_max():
    from dpteach.plots import selection as P

    data = [20.0, 21.0, 21.0, 22.0, 40.0]
    cand = np.arange(18.0, 45.0)
    fig = P.plot_private_median(data, cand, 0.5)
    _check_fig(fig, "ε = 0.5")
    np.testing.assert_allclose([b.get_height() for b in _bars(fig, "probabilities")],
                               S.private_median_probabilities(data, cand, 0.5))
    fig = P.plot_private_mode(["a", "b", "b"], ["a", "b", "c"], 1.0)
    _check_fig(fig, "ε = 1")
    fig = P.plot_noisy_max_comparison([10.0, 9.0, 5.0], 1.0, 1.0, monotonic=True)
    _check_fig(fig, "ε = 1", "Δ/ε")
    for noise in ("gumbel", "laplace", "exponential"):
        np.testing.assert_allclose(
            [b.get_height() for b in _bars(fig, noise)],
            S.report_noisy_max_probabilities([10.0, 9.0, 5.0], 1.0, 1.0, True, noise))


def test_plot_svt_vs_composition_lines():
    from dpteach.accounting.composition import advanced_composition
    from dpteach.plots import selection as P

    fig = P.plot_svt_vs_composition(0.5, 500, max_above=2, delta=1e-6)
    _check_fig(fig, "ε = 0.5")
    lines = {ln.get_gid(): ln for ln in fig.axes[0].lines}
    k, svt = lines["svt"].get_xdata(), lines["svt"].get_ydata()
    assert np.all(svt == 4 * 2 / 0.5)
    np.testing.assert_allclose(lines["laplace-basic"].get_ydata(), k / 0.5)
    adv = lines["laplace-advanced"].get_ydata()
    # at the plotted noise scale the per-query ε₀ = 1/scale spends exactly the budget
    for kk, s in zip(k[-5:], adv[-5:]):
        e0 = 1.0 / s
        spent = min(kk * e0, advanced_composition(e0, 0.0, int(kk), 1e-6)[0])
        assert spent == pytest.approx(0.5, rel=1e-9)
    assert adv[-1] < k[-1] / 0.5           # advanced beats basic for many queries
    fig = P.plot_svt_vs_composition(1.0, 10, delta=None)
    assert {ln.get_gid() for ln in fig.axes[0].lines} == {"svt", "laplace-basic"}


def test_plot_event_privacy_loss():
    from dpteach.plots import selection as P

    fig = P.plot_event_privacy_loss({"AT": (0.2, 0.25), "broken": (0.0, 0.22)}, 1.0)
    _check_fig(fig, "ε = 1")
    bars = _bars(fig, "loss")
    assert bars[0].get_height() == pytest.approx(abs(math.log(0.2 / 0.25)))
    assert bars[1].get_height() > 1.0
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "∞" in texts
    for bad in ({}, [(0.1, 0.2)], {"x": (0.0, 0.0)}, {"x": (0.5, 1.5)}):
        with pytest.raises((ValueError, TypeError)):
            P.plot_event_privacy_loss(bad, 1.0)


def test_remaining_functions_reject_bad_values_property_based():
    assert_rejects_bad_values(SV.sparse_vector_noise_scales, dict(epsilon=1.0), "epsilon",
                              NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(SV.sparse_vector_noise_scales, dict(epsilon=0.5), "delta",
                              BAD_DELTA)
    assert_rejects_bad_values(SV.sparse_vector_noise_scales, dict(epsilon=1.0), "sensitivity",
                              NOT_A_NUMBER)
    one_d = NON_FINITE_ARRAYS.filter(lambda a: np.ndim(a) == 1)
    assert_rejects_bad_values(S.mode_utility, dict(data=[1.0], candidates=[1.0, 2.0]), "data",
                              one_d)
    assert_rejects_bad_values(S.median_utility, dict(data=[1.0], candidates=[1.0, 2.0]),
                              "candidates", NON_FINITE_ARRAYS)


def test_plots_reject_bad_values_property_based():
    from dpteach.plots import selection as P

    assert_rejects_bad_values(P.plot_exponential_mechanism,
                              dict(scores=[1.0, 2.0], sensitivity=1.0, epsilon=1.0), "epsilon",
                              NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(P.plot_svt_vs_composition, dict(epsilon=1.0), "epsilon",
                              NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(P.plot_svt_vs_composition, dict(epsilon=1.0), "delta",
                              BAD_DELTA)
    assert_rejects_bad_values(P.plot_event_privacy_loss,
                              dict(event_probabilities={"a": (0.1, 0.2)}, epsilon=1.0),
                              "epsilon", NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(P.plot_selection_probabilities, dict(probabilities=[0.5, 0.5]),
                              "probabilities", NON_FINITE_ARRAYS)
    assert_rejects_bad_values(P.plot_private_median,
                              dict(data=[1.0, 2.0], candidates=[1.0, 2.0], epsilon=1.0),
                              "epsilon", NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(P.plot_private_mode,
                              dict(data=[1.0, 2.0], candidates=[1.0, 2.0], epsilon=1.0),
                              "epsilon", NOT_A_NUMBER)
    assert_rejects_bad_values(P.plot_noisy_max_comparison,
                              dict(scores=[1.0, 2.0], sensitivity=1.0, epsilon=1.0),
                              "sensitivity", NOT_POSITIVE_FINITE)
    call_rejects(P.plot_selection_probabilities, dict(probabilities=[0.5, 1.5]), "probabilities")
    call_rejects(P.plot_selection_probabilities, dict(probabilities=[0.5, 0.5], truth=2), "truth")
    call_rejects(P.plot_svt_vs_composition, dict(epsilon=1.0, k_max=1), "k_max")
    call_rejects(P.plot_svt_vs_composition, dict(epsilon=1.0, k_max=10**400), "k_max")
    call_rejects(P.plot_svt_vs_composition, dict(epsilon=1.0, k_max=100_001), "k_max")
