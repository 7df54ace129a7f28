"""Tests of dpteach.mechanisms.selection: the exponential mechanism, report-noisy-max, the
private mode and median.

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

import math

import numpy as np
import pytest
from scipy import special, stats

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
    # the ends of the domain: |u| = 1e15, ε/Δ = 1e9; the logits reach −1e24, no overflow
    p = S.exponential_mechanism_probabilities([1e15, -1e15], 1e-6, 1e3)
    assert np.array_equal(p, [1.0, 0.0])


@pytest.mark.parametrize("sens, eps", [(1.0, 1e3), (1e-6, 1e3), (1e-6, 1.0)])
def test_large_epsilon_over_sensitivity_selects_the_best(sens, eps):
    # ε/(2Δ)·gap ≥ 500·2 = 1000: the best score gets all the mass, exactly (e^{−1000} is 0
    # in double); ties share it equally
    scores = [3.0, 7.0, -1e15, 5.0, 1e-3]
    for mono in (False, True):
        p = S.exponential_mechanism_probabilities(scores, sens, eps, monotonic=mono)
        assert p.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0]
        assert S.exponential_mechanism(scores, sens, eps, monotonic=mono, rng=0) == 1
        assert np.all(S.exponential_mechanism(scores, sens, eps, monotonic=mono, size=50,
                                              rng=1) == 1)
    for noise in ("laplace", "exponential", "gumbel"):
        p = S.report_noisy_max_probabilities(scores, sens, eps, noise=noise)
        assert p[1] == pytest.approx(1.0, abs=1e-12) and p.sum() == pytest.approx(1.0, abs=1e-12)
        assert np.all(S.report_noisy_max(scores, sens, eps, noise=noise, size=50, rng=2) == 1)
    assert S.exponential_mechanism_probabilities([2.0, 5.0, 5.0], sens, eps).tolist() == \
        [0.0, 0.5, 0.5]


def test_small_epsilon_over_sensitivity_is_nearly_uniform():
    # ε/(2Δ) = 5e-13 at the other end: scores 1 apart differ in probability by 5e-13
    p = S.exponential_mechanism_probabilities([0.0, 1.0, -1.0, 2.0], 1e6, 1e-6)
    assert p.sum() == pytest.approx(1.0, abs=1e-15)
    np.testing.assert_allclose(p, 0.25, rtol=1e-11)


def test_the_rules_tying_two_arguments():
    # each draw needs one noise value per candidate: size × k ≤ 2·10**7 (about 1.3 s)
    with pytest.raises(ParameterError, match=r"size must be ≤ 952,380 with 21 candidates "
                                             r"\(size·k ≤ 2e7\); got size=1000000"):
        S.exponential_mechanism(np.zeros(21), 1.0, 1.0, size=10**6)
    # the exact probabilities of Laplace and exponential noise: k ≤ 1,000 (time grows as k²)
    with pytest.raises(ParameterError, match=r"len\(scores\) must be ≤ 1,000 with noise="):
        S.report_noisy_max_probabilities(np.zeros(1001), 1.0, 1.0)
    assert S.report_noisy_max_probabilities(np.zeros(1001), 1.0, 1.0, noise="gumbel").size == 1001
    # candidates are listed once
    for func in (S.mode_utility, S.median_utility):
        with pytest.raises(ParameterError, match=r"candidates must be distinct"):
            func([1.0], [1.0, 2.0, 1.0])
    with pytest.raises(ParameterError, match=r"candidates must be distinct"):
        S.private_mode(["a"], ["a", "b", "a"], 1.0)


def test_documented_results_are_python_numbers():
    assert type(S.report_noisy_max_scale(1, 1)) is float
    assert type(S.private_median([1, 2], [1, 2], 1.0, rng=0)) is float
    assert type(S.exponential_mechanism([1.0, 2.0], 1.0, 1.0, rng=0)) is int
    assert type(S.private_mode([1, 2, 2], [1, 2], 1.0, rng=0)) is int   # a candidate as given
    assert S.private_mode(["a", "b"], ["a", "b"], 1e3, rng=0) in ("a", "b")


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
