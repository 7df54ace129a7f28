"""Tests for dpteach.attacks.differencing."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpteach.attacks import differencing as D
from dpteach.datasets import make_parallel_databases
from dpteach.mechanisms.randomized_response import randomized_response, rr_gamma_from_epsilon

SEEDS = range(6)


# ----------------------------------------------------------------- sensitivity
@pytest.mark.parametrize("seed", SEEDS)
def test_local_sensitivity_sum_and_mean_closed_forms(seed):
    db, par = make_parallel_databases(25, 0.3, rng=seed)
    rep = D.local_sensitivity("sum", db, par)
    # q(D) − q(D₋ᵢ) = x_i for the sum
    np.testing.assert_array_equal(rep.differences, db)
    assert rep.sensitivity == (1.0 if db.any() else 0.0)
    assert rep.answer == db.sum()
    rep = D.local_sensitivity("mean", db)          # parallel rebuilt from db
    m = db.mean()
    # mean(D) − mean(D₋ᵢ) = (x_i − m)/(n − 1)
    np.testing.assert_allclose(rep.differences, (db - m) / 24, atol=1e-15)
    assert math.isclose(rep.sensitivity, max(abs(1 - m), abs(m)) / 24 if 0 < m < 1 else 0.0,
                        abs_tol=1e-15)
    assert abs(rep.differences[rep.worst_person]) == rep.sensitivity


def test_local_sensitivity_threshold_is_local():
    db = np.array([1, 0, 1, 1, 0, 0, 1, 0])           # four 1s
    for t, expected in ((3, 0.0), (4, 1.0), (5, 0.0), (1, 0.0)):
        rep = D.local_sensitivity(D.count_at_least(t), db)
        assert rep.sensitivity == expected, t
    rep = D.local_sensitivity(D.count_at_least(4), db)
    np.testing.assert_array_equal(rep.differences, db)   # removing any 1 flips the answer
    # global sensitivity is 1: some database (here one with exactly t ones) attains it
    assert D.local_sensitivity(D.count_at_least(3), db[:5]).sensitivity == 1.0


def test_local_sensitivity_real_values_and_vector_queries():
    # clipped sum: removing person i changes it by their clipped value
    rng = np.random.default_rng(3)
    hours = rng.integers(1, 100, size=60).astype(float)
    clip = 40.0
    rep = D.local_sensitivity(lambda x: np.clip(x, 0, clip).sum(), hours)
    np.testing.assert_allclose(rep.differences, np.clip(hours, 0, clip))
    assert rep.sensitivity == min(hours.max(), clip)
    # histogram of categories: each removal changes one bin by one (ℓ1 = ℓ2 = 1)
    cats = rng.integers(0, 5, size=50)
    hist = lambda x: np.bincount(x, minlength=5)   # noqa: E731  (integer codes stay integer)
    for norm in (1, 2):
        rep = D.local_sensitivity(hist, cats, norm=norm)
        assert rep.sensitivity == 1.0 and rep.norm == norm
        np.testing.assert_array_equal(rep.differences, np.eye(5)[cats])
    # d counting queries on 2-D rows: ℓ1 = max row sum, ℓ2 = its square root
    rows = (rng.random((40, 6)) < 0.5).astype(int)
    col_sums = lambda x: x.sum(axis=0)                        # noqa: E731
    r1 = D.local_sensitivity(col_sums, rows, norm=1)
    r2 = D.local_sensitivity(col_sums, rows, norm=2)
    np.testing.assert_array_equal(r1.differences, rows)
    assert r1.sensitivity == rows.sum(axis=1).max()
    assert math.isclose(r2.sensitivity, math.sqrt(r1.sensitivity))
    np.testing.assert_array_equal(r1.answer, rows.sum(axis=0))


def test_local_sensitivity_bad_args():
    db, par = make_parallel_databases(6, 0.5, rng=0)
    with pytest.raises(ValueError, match="parallel"):
        D.local_sensitivity("sum", db, par[:, :-1])
    bad = par.copy()
    bad[0, 0] = 1 - bad[0, 0]
    with pytest.raises(ValueError, match="parallel"):
        D.local_sensitivity("sum", db, bad)
    with pytest.raises(ValueError, match="query"):
        D.local_sensitivity("median", db)
    with pytest.raises(TypeError, match="query"):
        D.local_sensitivity(3, db)
    with pytest.raises(TypeError, match="query"):
        D.local_sensitivity(lambda x: "many", db)
    with pytest.raises(ValueError, match="query"):
        D.local_sensitivity(lambda x: math.inf, db)
    with pytest.raises(ValueError, match="db"):
        D.local_sensitivity("sum", [0, 1, np.inf])
    with pytest.raises(ValueError, match="db"):
        D.local_sensitivity("sum", [1])
    with pytest.raises(ValueError, match="db"):
        D.local_sensitivity("sum", np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="norm"):
        D.local_sensitivity("sum", db, norm=3)
    with pytest.raises(ValueError, match="parallel"):
        D.local_sensitivity("sum", np.zeros((6, 2)), parallel=par)
    with pytest.raises(ValueError, match="query"):
        D.local_sensitivity(lambda x: np.ones((2, 2)), db)
    with pytest.raises(ValueError, match="shape"):
        D.local_sensitivity(lambda x: np.ones(len(x)), db)      # length changes with n
    with pytest.raises(ValueError, match="db"):
        D.differencing_attack([0, 1, 2], 0)     # attacks need bits
    with pytest.raises(ValueError, match="threshold"):
        D.count_at_least(0)
    with pytest.raises(TypeError, match="threshold"):
        D.count_at_least(2.5)


# ----------------------------------------------------------- exact differencing
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("query", ["sum", "mean"])
def test_differencing_attack_recovers_every_bit(seed, query):
    db, _ = make_parallel_databases(30, 0.5, rng=seed)
    guesses = [D.differencing_attack(db, i, query).guess for i in range(db.size)]
    np.testing.assert_array_equal(guesses, db)


def test_reconstruct_by_differencing():
    db, _ = make_parallel_databases(40, 0.2, rng=9)
    rec, n_queries = D.reconstruct_by_differencing(db)
    np.testing.assert_array_equal(rec, db)
    assert n_queries == 41


def test_differencing_attack_bad_args():
    with pytest.raises(ValueError, match="target"):
        D.differencing_attack([0, 1, 1], 3)
    with pytest.raises(ValueError, match="target"):
        D.differencing_attack([0, 1, 1], -1)
    with pytest.raises(ValueError, match="query"):
        D.differencing_attack([0, 1, 1], 0, "max")


# --------------------------------------------------------- adaptive threshold
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("threshold", [1, 3, 10, 50])
def test_threshold_attack_with_dummies_always_succeeds(seed, threshold):
    db, _ = make_parallel_databases(20, 0.4, rng=seed)
    bound = math.ceil(math.log2(19 + threshold)) + 2
    for i in range(db.size):
        res = D.threshold_attack(db, i, threshold)
        assert res.guess == db[i]
        assert res.n_queries == len(res.transcript) <= bound
        # the target is included only in the last question
        assert [row[2] for row in res.transcript] == [False] * (res.n_queries - 1) + [True]


@pytest.mark.parametrize("seed", SEEDS)
def test_threshold_attack_without_dummies(seed):
    db, _ = make_parallel_databases(15, 0.5, rng=seed)
    for t in range(1, 18):
        for i in range(db.size):
            res = D.threshold_attack(db, i, t, allow_dummies=False)
            others = db.sum() - db[i]
            assert all(row[1] == 0 for row in res.transcript)     # no dummy used
            if others >= t or (others == t - 1 and db[i] == 1):
                assert res.guess == db[i]
            else:
                assert res.guess is None                            # never a wrong bit


def test_threshold_attack_bad_args():
    with pytest.raises(ValueError, match="threshold"):
        D.threshold_attack([0, 1, 1], 0, 0)
    with pytest.raises(TypeError, match="allow_dummies"):
        D.threshold_attack([0, 1, 1], 0, 2, allow_dummies="yes")
    with pytest.raises(ValueError, match="target"):
        D.threshold_attack([0, 1, 1], 5, 2)


# ---------------------------------------------------------------- noisy attack
def test_dp_success_bound_closed_form_and_rr_attains_it():
    for eps in (0.01, 0.5, math.log(3), 4.0):
        assert math.isclose(D.dp_success_bound(eps), math.exp(eps) / (1 + math.exp(eps)))
        assert math.isclose(D.dp_success_bound(eps), 0.5 + rr_gamma_from_epsilon(eps))
    # guessing the bit as the RR report succeeds with probability e^ε/(1+e^ε):
    # T reports, success rate sd √(s(1−s)/T); allow 5 sd
    T, eps = 200_000, 1.0
    rep = randomized_response(np.ones(T), epsilon=eps, rng=4)
    s = D.dp_success_bound(eps)
    assert abs(rep.mean() - s) < 5 * math.sqrt(s * (1 - s) / T)
    # the ends of the teaching domain: e^ε/(1 + e^ε) is ½ + ε/4 at ε = 1e-6, and rounds
    # to 1 from ε ≈ 37 on (the sigmoid never overflows)
    assert D.dp_success_bound(1e-6) == pytest.approx(0.5 + 2.5e-7, rel=1e-12)
    for eps in (40.0, 700.0, 800.0, 1000.0):
        assert D.dp_success_bound(eps) == 1.0


def test_laplace_sum_sf_closed_forms_and_quadrature():
    for a in (0.0, 0.3, 1.7, 6.0):
        assert math.isclose(D.laplace_sum_sf(1, a), 0.5 * math.exp(-a), rel_tol=1e-12)
        assert math.isclose(D.laplace_sum_sf(2, a), 0.5 * math.exp(-a) * (1 + a / 2), rel_tol=1e-12)
        assert math.isclose(D.laplace_sum_sf(1, a, 2.0), 0.5 * math.exp(-a / 2), rel_tol=1e-12)
    # sum of m Laplace(1) = Gamma(m) − Gamma(m): P(S > a) = ∫ f_G(g) P(G > a + g) dg
    for m, a in ((3, 0.4), (7, 2.3), (20, 5.0)):
        val, err = integrate.quad(lambda g: stats.gamma.pdf(g, m) * stats.gamma.sf(a + g, m),
                                  0, np.inf, epsabs=1e-13)
        assert math.isclose(D.laplace_sum_sf(m, a), val, rel_tol=1e-8, abs_tol=1e-12)
    # symmetry, P(S > 0) = 1/2, monotone in a, large m against the CLT
    assert math.isclose(D.laplace_sum_sf(5, -1.2), 1 - D.laplace_sum_sf(5, 1.2), rel_tol=1e-12)
    assert math.isclose(D.laplace_sum_sf(9, 0.0), 0.5, rel_tol=1e-12)
    vals = [D.laplace_sum_sf(10, a) for a in np.linspace(0, 20, 30)]
    assert np.all(np.diff(vals) < 0)
    # m = 2000, a = 2 sd. Berry–Esseen (constant 0.4748, Shevtsova 2011):
    # |P(S > a) − Φ̄(a/(σ√m))| ≤ 0.4748·E|L|³/(σ³√m), with E|L|³ = 6 and σ² = 2 for Laplace(1)
    m = 2000
    be = 0.4748 * 6 / (2 ** 1.5 * math.sqrt(m))          # ≈ 0.0225
    assert abs(D.laplace_sum_sf(m, 2 * math.sqrt(2 * m)) - stats.norm.sf(2)) < be
    with pytest.raises(ValueError, match="m"):
        D.laplace_sum_sf(0, 1.0)
    with pytest.raises(ValueError, match="scale"):
        D.laplace_sum_sf(2, 1.0, 0.0)
    with pytest.raises(ValueError, match="a"):
        D.laplace_sum_sf(2, math.nan)


def test_noisy_attack_success_closed_forms_and_bound():
    for eps in (0.05, 0.5, 1.0, 2.0, 5.0):
        one = D.noisy_attack_success(eps)
        assert math.isclose(one, 1 - 0.5 * math.exp(-eps / 2), rel_tol=1e-12)
        two = D.noisy_attack_success(eps, scenario="two_queries")
        assert math.isclose(two, 1 - 0.5 * math.exp(-eps / 2) * (1 + eps / 4), rel_tol=1e-12)
        # averaging two answers: P(L1 + L2 > 1) = ½e^{−ε}(1 + ε/2)
        assert math.isclose(D.noisy_attack_success(eps, 2),
                            1 - 0.5 * math.exp(-eps) * (1 + eps / 2), rel_tol=1e-12)
        assert two < one
        prev = 0.5
        for k in (1, 2, 5, 20, 100):
            s = D.noisy_attack_success(eps, k)
            assert prev <= s <= D.dp_success_bound(k * eps) + 1e-12
            prev = s
    # averaging eventually wins: 1000 answers at ε = 0.1 each
    assert D.noisy_attack_success(0.1, 1000) > 0.85


@pytest.mark.parametrize("scenario", D.SCENARIOS)
@pytest.mark.parametrize("eps,k", [(0.5, 1), (1.0, 4), (0.2, 25)])
def test_simulated_attack_matches_exact(scenario, eps, k):
    # success rate over T trials has sd √(s(1−s)/T); allow 5 sd
    db, _ = make_parallel_databases(12, 0.5, rng=2)
    T = 40_000
    for target in (int(np.argmax(db)), int(np.argmin(db))):    # a 1 and a 0
        s = D.noisy_attack_success(eps, k, scenario)
        sim = D.simulate_noisy_attack(db, target, eps, k, scenario, n_trials=T, rng=7 + target)
        assert abs(sim - s) < 5 * math.sqrt(s * (1 - s) / T)


def test_answers_at_the_ends_of_the_domain():
    # values up to 1e15: sums and means stay exact-ish and finite
    assert D.query_sum([1e15, 1e15]) == 2e15 and D.query_mean([1e15] * 3) == 1e15
    assert D.query_mean([]) == 0.0
    rep = D.local_sensitivity("sum", [-1e15, 1e15, 0.0])
    assert rep.sensitivity == 1e15 and rep.answer == 0.0
    # ½e^{−a/b} at a/b = 1e27 is exactly 0, and its complement exactly 1
    assert D.laplace_sum_sf(1, 1e15, 1e-12) == 0.0 and D.laplace_sum_sf(1, -1e15, 1e-12) == 1.0
    assert D.noisy_attack_success(1e3) == 1.0
    assert D.noisy_attack_success(1e-6) == pytest.approx(1 - 0.5 * math.exp(-5e-7), rel=1e-15)
    assert 0.5 < D.noisy_attack_success(1e-6, 1000, "two_queries") < 0.5 + 1e-3


def test_noisy_bad_args():
    with pytest.raises(TypeError, match="rng"):
        D.simulate_noisy_attack([0, 1], 0, 1.0, rng=1.5)
