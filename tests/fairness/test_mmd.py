"""The maximum mean discrepancy (dpteach.fairness.mmd): the issue's value, the closed forms of
both estimators, their symmetry and their means, the gradient against finite differences, the
permutation test's level and power, and the MMD-regularised representation."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from scipy.spatial.distance import pdist
from sklearn.base import clone
from sklearn.metrics.pairwise import rbf_kernel

from dpteach._validation import ParameterError
from dpteach.fairness import mmd
from dpteach.fairness.mmd import (
    MMDRepresentation,
    gaussian_kernel,
    mmd2,
    mmd2_and_grad,
    mmd_permutation_test,
)


def brute_mmd2(X, Y, sigma, unbiased):
    """The estimators written out as double loops over pairs (the module docstring's formulas)."""
    def k(a, b):
        return math.exp(-float(np.sum((a - b) ** 2)) / (2 * sigma**2))
    m, n = len(X), len(Y)
    if unbiased:
        sxx = sum(k(X[i], X[j]) for i in range(m) for j in range(m) if i != j) / (m * (m - 1))
        syy = sum(k(Y[i], Y[j]) for i in range(n) for j in range(n) if i != j) / (n * (n - 1))
    else:
        sxx = sum(k(a, b) for a in X for b in X) / m**2
        syy = sum(k(a, b) for a in Y for b in Y) / n**2
    sxy = sum(k(a, b) for a in X for b in Y) / (m * n)
    return sxx + syy - 2 * sxy


# ------------------------------------------------------------------- the statistic
def test_the_issue_value_and_the_unbiased_closed_form():
    X, Y = [[0.0], [1.0]], [[2.0], [3.0]]
    assert mmd2(X, Y, bandwidth=1.0) == pytest.approx(1.1623755484, abs=1e-10)
    # unbiased: the within-sample sums keep only the pair (0, 1) resp. (2, 3), at distance 1
    e = math.exp
    closed = 2 * e(-0.5) - 2 * (2 * e(-2.0) + e(-4.5) + e(-0.5)) / 4
    assert mmd2(X, Y, bandwidth=1.0, unbiased=True) == pytest.approx(closed, rel=1e-14)
    assert closed == pytest.approx(0.7689062081, abs=1e-10)
    assert type(mmd2(X, Y)) is float


@pytest.mark.parametrize("unbiased", [False, True])
def test_estimators_match_the_double_loops_and_are_symmetric(unbiased):
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(7, 3)), rng.normal(0.5, 1.0, size=(5, 3))
    for sigma in (0.3, 1.0, 4.0):
        value = mmd2(X, Y, bandwidth=sigma, unbiased=unbiased)
        assert value == pytest.approx(brute_mmd2(X, Y, sigma, unbiased), rel=1e-12, abs=1e-15)
        assert value == pytest.approx(mmd2(Y, X, bandwidth=sigma, unbiased=unbiased), rel=1e-12)


def test_same_sample_and_translation():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    assert mmd2(X, X) == 0.0                                  # biased: exactly 0
    # the unbiased estimate of X against itself is −(2/(m(m−1))) Σ_{i<j}... < 0: the
    # cross term keeps the diagonal, the within terms do not
    assert mmd2(X, X, unbiased=True) < 0
    shift = np.array([1e3, -2e3])
    assert mmd2(X + shift, X[::-1] * 0.5 + shift) == pytest.approx(mmd2(X, X[::-1] * 0.5),
                                                                  rel=1e-9)


def test_blocked_sum_matches_the_kernel_matrix():
    # 3,000 × 1,000 rows: mmd2 sums the cross term in blocks of 2,000 rows
    rng = np.random.default_rng(2)
    X, Y = rng.normal(size=(3000, 2)), rng.normal(0.2, 1.0, size=(1000, 2))
    Kxx, Kyy, Kxy = (gaussian_kernel(A, B, bandwidth=1.5) for A, B in ((X, X), (Y, Y), (X, Y)))
    expected = Kxx.mean() + Kyy.mean() - 2 * Kxy.mean()
    assert mmd2(X, Y, bandwidth=1.5) == pytest.approx(expected, rel=1e-10)


def test_gaussian_kernel_matches_scikit_learn():
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(6, 4)), rng.normal(size=(3, 4))
    for sigma in (0.5, 2.0):
        np.testing.assert_allclose(gaussian_kernel(X, Y, bandwidth=sigma),
                                   rbf_kernel(X, Y, gamma=1 / (2 * sigma**2)), rtol=1e-12)
    K = gaussian_kernel(X, X)
    np.testing.assert_allclose(np.diag(K), 1.0)
    np.testing.assert_allclose(K, K.T)


def test_unbiased_estimate_has_mean_zero_under_the_null():
    # 400 replicates of two samples of 20 from N(0, I_2): the U-statistic has mean exactly 0,
    # the V-statistic a positive bias. The replicates' sd is measured (about 0.02), so the
    # mean of 400 has sd ≈ 0.001: |mean| < 5 sd of the mean fails with probability < 1e-6.
    rng = np.random.default_rng(4)
    u, b = [], []
    for _ in range(400):
        X, Y = rng.normal(size=(20, 2)), rng.normal(size=(20, 2))
        u.append(mmd2(X, Y, unbiased=True))
        b.append(mmd2(X, Y))
    u, b = np.array(u), np.array(b)
    assert abs(u.mean()) < 5 * u.std(ddof=1) / math.sqrt(u.size)
    assert (b > 0).all() and b.mean() > 10 * b.std(ddof=1) / math.sqrt(b.size)


# --------------------------------------------------------------------- the gradient
@pytest.mark.parametrize("unbiased", [False, True])
def test_gradient_matches_finite_differences(unbiased):
    rng = np.random.default_rng(5)
    Z = rng.normal(size=(9, 3))
    groups = np.array(["a", "b", "a", "a", "b", "b", "a", "b", "b"])
    value, grad = mmd2_and_grad(Z, groups, bandwidth=0.8, unbiased=unbiased)
    assert value == pytest.approx(mmd2(Z[groups == "a"], Z[groups == "b"], bandwidth=0.8,
                                       unbiased=unbiased), rel=1e-12)
    h = 1e-6
    fd = np.zeros_like(Z)
    for i in range(Z.shape[0]):
        for j in range(Z.shape[1]):
            E = np.zeros_like(Z)
            E[i, j] = h
            fd[i, j] = (mmd2_and_grad(Z + E, groups, bandwidth=0.8, unbiased=unbiased)[0]
                        - mmd2_and_grad(Z - E, groups, bandwidth=0.8,
                                        unbiased=unbiased)[0]) / (2 * h)
    # central differences: truncation O(h²·|f'''|) ~ 1e-12, rounding ~ 1e-16/h = 1e-10
    np.testing.assert_allclose(grad, fd, atol=1e-8)


def test_gradient_of_a_collapsed_representation_is_zero():
    # every row at one point: MMD² = 0 and no direction helps to first order
    value, grad = mmd2_and_grad(np.zeros((6, 2)), [0, 1, 0, 1, 0, 1])
    assert value == 0.0 and not grad.any()


# --------------------------------------------------------------- the permutation test
def test_permutation_test_level_and_power():
    # Level: 200 null replicates (n = 20 + 20, B = 99). A permutation p-value is
    # super-uniform, so P(p <= 0.05) <= 0.05 and the count of rejections is at most
    # Binomial(200, 0.05): mean 10, sd 3.1; more than 22 (mean + 4 sd) has probability < 1e-4.
    rng = np.random.default_rng(6)
    rejections = sum(mmd_permutation_test(rng.normal(size=(20, 2)), rng.normal(size=(20, 2)),
                                          n_permutations=99, rng=rng)[1] <= 0.05
                     for _ in range(200))
    assert rejections <= 22
    # Power: a shift of 1.5 sd between samples of 40 is found by every permutation
    X, Y = rng.normal(size=(40, 2)), rng.normal(1.5, 1.0, size=(40, 2))
    stat, p = mmd_permutation_test(X, Y, n_permutations=199, rng=0)
    assert stat == pytest.approx(mmd2(X, Y), rel=1e-12)
    assert p == pytest.approx(1 / 200)
    stat_u, p_u = mmd_permutation_test(X, Y, n_permutations=199, rng=0, unbiased=True)
    assert stat_u == pytest.approx(mmd2(X, Y, unbiased=True), rel=1e-12) and p_u == p


def test_permutation_test_is_seeded_and_bounded():
    rng = np.random.default_rng(7)
    X, Y = rng.normal(size=(15, 1)), rng.normal(size=(12, 1))
    a = mmd_permutation_test(X, Y, n_permutations=50, rng=3)
    assert a == mmd_permutation_test(X, Y, n_permutations=50, rng=3)
    assert 1 / 51 <= a[1] <= 1 and type(a[0]) is float and type(a[1]) is float
    # identical samples: every relabelling has a statistic at least the observed one? no:
    # the observed split of a sample against itself is the least different, so p = 1
    assert mmd_permutation_test(X, X, n_permutations=30, rng=0)[1] == 1.0


# ------------------------------------------------------------- the domain's edges
def test_far_apart_and_tiny_bandwidth_are_finite():
    # points 1 apart and 2e6 apart with σ = 1e-6 (the smallest): every kernel value off the
    # diagonal is exp(−(1 or more)/2e-12) = 0, so MMD²_b = 1/m + 1/n (the diagonals) = 1
    X = np.array([[0.0], [1e6]])
    assert mmd2(X, np.array([[1.0], [-1e6]]), bandwidth=1e-6) == 1.0
    np.testing.assert_array_equal(gaussian_kernel(X, X, bandwidth=1e-6), np.eye(2))
    # σ = 1e6 (the largest): ‖x − y‖²/(2σ²) = 1e12 / 2e12 = 0.5
    np.testing.assert_allclose(gaussian_kernel(X, X, bandwidth=1e6)[0, 1], math.exp(-0.5),
                               rtol=1e-14)
    value, grad = mmd2_and_grad(np.array([[0.0], [1e-13], [1.0], [2.0]]), [0, 0, 1, 1],
                                bandwidth=1e-6)
    # 0 and 1e-13 are one point at σ = 1e-6: (1 + 1 + 1 + 1)/4 + (1 + 1)/4 − 0
    assert value == pytest.approx(1.5) and np.all(np.isfinite(grad))
    with pytest.raises(ParameterError, match="bandwidth"):
        mmd2(X, X, bandwidth=1e-7)


# ------------------------------------------------------ rules between arguments
def test_size_limits_and_unbiased_needs_pairs():
    rows = r"X, Y must be of 1 \(unbiased: 2\) to 20,000 rows each; got X, Y="
    with pytest.raises(ParameterError, match=rows + r"\(2, 1\)"):
        mmd2([[0.0], [1.0]], [[2.0]], unbiased=True)
    assert mmd2([[0.0]], [[2.0]]) == pytest.approx(2 - 2 * math.exp(-2))
    big = np.zeros((mmd.MAX_SAMPLE_ROWS + 1, 1))
    with pytest.raises(ParameterError, match=rows + r"\(20001, 1\)"):
        mmd2(big, [[0.0]])
    with pytest.raises(ParameterError, match="kernel entries"):
        gaussian_kernel(np.zeros((5001, 1)), np.zeros((5001, 1)))
    with pytest.raises(ParameterError, match="Z must be .* at most 4,000 rows; got Z with 4,001 rows"):
        mmd2_and_grad(np.zeros((mmd.MAX_GRAD_ROWS + 1, 1)), np.arange(mmd.MAX_GRAD_ROWS + 1) % 2)


# ------------------------------------------------------------ the MMD representation
def make_data(n, seed):
    """A leaks into X (feature 0 is A plus noise); the label depends on feature 2 and A."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    X = np.c_[a + rng.normal(0, 0.4, n), 0.5 * a + rng.normal(0, 0.5, n),
              rng.normal(0, 1, (n, 2))]
    y = (X[:, 2] + 0.8 * a + rng.normal(0, 0.5, n) > 0.4).astype(np.int64)
    return X, y, a


@functools.cache
def mmd_fit(lam, beta=0.0, seed=0):
    X, y, a = make_data(600, 0)
    return MMDRepresentation(lam=lam, beta=beta, epochs=30, batch_size=64, rng=seed).fit(
        X, y, sensitive_features=a)


def test_penalty_shrinks_the_groups_discrepancy():
    # MMD²_b between the groups' codes on 1,000 held-out rows, σ = the median distance
    # between each model's codes. Seeds 0-5 of the fit gave 0.066-0.164 at λ = 0 and
    # 0.007-0.024 at λ = 3, a factor of 4.2-10 (6.9 for seed 0; on the training sample of
    # history_ 5.7-11.4): "at least 3 times smaller" holds for every one of them.
    Xt, _, at = make_data(1000, 1)
    Z0, Z3 = mmd_fit(0.0).transform(Xt), mmd_fit(3.0).transform(Xt)
    d0 = mmd2(Z0[at == 0], Z0[at == 1], bandwidth=float(np.median(pdist(Z0))))
    d3 = mmd2(Z3[at == 0], Z3[at == 1], bandwidth=float(np.median(pdist(Z3))))
    assert d3 < d0 / 3
    assert mmd_fit(3.0).history_["mmd2"].iloc[-1] < mmd_fit(0.0).history_["mmd2"].iloc[-1] / 3


def test_history_decomposes():
    X, y, a = make_data(600, 0)
    m = MMDRepresentation(alpha=0.5, beta=0.1, lam=2.0, epochs=4, batch_size=64, rng=1).fit(
        X, y, sensitive_features=a)
    h = m.history_
    np.testing.assert_allclose(h["objective"], 0.5 * h["class_loss"] + 0.1 * h["recon_loss"]
                               + 2.0 * h["mmd2"], rtol=1e-12)
    p = m.predict_proba(X)[:, 1]
    assert h["class_loss"].iloc[-1] == pytest.approx(
        -np.mean(y * np.log(p) + (1 - y) * np.log1p(-p)), rel=1e-9)
    assert (h["recon_loss"] > 0).all() and (h["mmd2"] >= 0).all()
    assert m.transform(X).shape == (600, 8) and type(m.score(X, y)) is float


def test_mmd_representation_is_seeded_and_clonable():
    X, y, a = make_data(200, 2)
    fits = [MMDRepresentation(epochs=2, rng=4).fit(X, y, sensitive_features=a)
            for _ in range(2)]
    np.testing.assert_array_equal(fits[0].transform(X), fits[1].transform(X))
    est = MMDRepresentation(lam=0.5, bandwidth=2.0, hidden=(4,), rng=3)
    assert clone(est).get_params() == est.get_params()
    fixed = MMDRepresentation(bandwidth=2.0, epochs=2, rng=0).fit(X, y, sensitive_features=a)
    assert np.isfinite(fixed.history_["mmd2"]).all()


def test_a_collapsed_sample_at_the_smallest_bandwidth():
    value, grad = mmd2_and_grad(np.zeros((4, 2)), [0, 0, 1, 1], bandwidth=1e-6)
    assert value == 0.0 and not grad.any()
