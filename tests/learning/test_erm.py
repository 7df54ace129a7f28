"""Tests for dpteach.exact.discrete and private logistic regression (Chaudhuri et al. 2011):
dpteach.learning.logistic (the problem and its solver), dpteach.learning.erm (the two
mechanisms, the estimator, the excess-risk bounds), dpteach.learning.erm_experiments and
the figures of dpteach.plots.erm.

Statistical tests use fixed seeds. KS tests are run at level 1e-3 on seeded
draws: a correct sampler fails with probability 1e-3 for a random seed, and a
wrong scale or shape (e.g. Gamma(d−1) or rate β instead of 1/β) moves the KS
statistic far beyond the critical value at these sample sizes. Moment checks
use 5 standard errors, derived in a comment next to each.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import strategies as st
from scipy import stats
from sklearn.datasets import make_blobs
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import check_estimator

from dpteach import datasets
from dpteach.mechanisms import l2_laplace as samplers
from dpteach.learning.erm import PrivateLogisticRegression
from dpteach.learning import erm, erm_bounds, erm_experiments, logistic
from _props import (
    NON_FINITE_ARRAYS,
    NOT_A_NUMBER,
    NOT_AN_OBJECT,
    NOT_BOOL,
    NOT_POSITIVE_FINITE,
    BAD_PROBABILITY,
    assert_rejects_bad_values,
)

KS_LEVEL = 1e-3


# ----------------------------------------------------------------- fixtures
def _blobs(n=300, seed=0, d=2):
    centers = [np.full(d, -1.0), np.full(d, 1.0)]
    X, y = make_blobs(n, centers=centers, cluster_std=1.2, random_state=seed)
    return X, y


@pytest.fixture(scope="module")
def blobs():
    return _blobs()


@pytest.fixture(scope="module")
def small_problem():
    """Bounded rows Z (‖z‖ ≤ 1, with intercept) and ±1 labels."""
    X, y = _blobs(n=200, seed=1, d=3)
    Z = logistic.bound_rows(X, data_norm=3.0, fit_intercept=True)
    s = np.where(y == 1, 1.0, -1.0)
    return Z, s


# ------------------------------------------------------------------ sampler
@pytest.mark.parametrize("dim,beta", [(1, 0.5), (3, 2.0), (50, 4.0), (105, 0.1)])
def test_l2_laplace_norm_is_gamma(dim, beta):
    b = samplers.sample_l2_laplace(dim, beta, size=4000, rng=1234 + dim)
    norms = np.linalg.norm(b, axis=1)
    p = stats.kstest(norms, stats.gamma(a=dim, scale=1 / beta).cdf).pvalue
    assert p > KS_LEVEL
    # the wrong shape d-1 (a classic mistake) is rejected at this sample size
    if dim > 1:
        assert stats.kstest(norms, stats.gamma(a=dim - 1, scale=1 / beta).cdf).pvalue < KS_LEVEL


def test_l2_laplace_in_one_dimension_is_laplace():
    # density ∝ exp(-β|b|) on ℝ is Laplace with scale 1/β
    b = samplers.sample_l2_laplace(1, 3.0, size=5000, rng=7)[:, 0]
    assert stats.kstest(b, stats.laplace(scale=1 / 3.0).cdf).pvalue > KS_LEVEL


def test_l2_laplace_direction_is_uniform_and_independent_of_norm():
    d, N = 3, 20000
    b = samplers.sample_l2_laplace(d, 1.0, size=N, rng=99)
    r = np.linalg.norm(b, axis=1)
    u = b / r[:, None]
    # E[u_j] = 0, Var(u_j) = 1/d  ->  SE = sqrt(1/(d N)); 5 SE per coordinate
    assert np.all(np.abs(u.mean(axis=0)) <= 5 * math.sqrt(1 / (d * N)))
    # E[u_j²] = 1/d, Var(u_j²) = E u_j⁴ − 1/d² = 3/(d(d+2)) − 1/d²  (moments of the sphere)
    se2 = math.sqrt((3 / (d * (d + 2)) - 1 / d**2) / N)
    assert np.all(np.abs((u**2).mean(axis=0) - 1 / d) <= 5 * se2)
    # off-diagonal E[u_i u_j] = 0 with Var = E[u_i² u_j²] = 1/(d(d+2))
    se_off = math.sqrt(1 / (d * (d + 2)) / N)
    assert abs(np.mean(u[:, 0] * u[:, 1])) <= 5 * se_off
    # in d = 3 each coordinate of a uniform unit vector is Uniform(-1, 1) (Archimedes)
    assert stats.kstest(u[:, 2], stats.uniform(loc=-1, scale=2).cdf).pvalue > KS_LEVEL
    # independence of norm and direction: correlation of r with u_0 and u_0² ~ 0,
    # SE of a sample correlation under independence = 1/sqrt(N)
    assert abs(np.corrcoef(r, u[:, 0])[0, 1]) <= 5 / math.sqrt(N)
    assert abs(np.corrcoef(r, u[:, 0] ** 2)[0, 1]) <= 5 / math.sqrt(N)


def test_l2_laplace_angle_uniform_in_2d():
    b = samplers.sample_l2_laplace(2, 1.0, size=5000, rng=3)
    ang = np.arctan2(b[:, 1], b[:, 0])
    assert stats.kstest(ang, stats.uniform(loc=-np.pi, scale=2 * np.pi).cdf).pvalue > KS_LEVEL


def test_sampler_shapes_and_reproducibility():
    assert samplers.sample_l2_laplace(4, 1.0, rng=0).shape == (4,)
    assert samplers.sample_l2_laplace(4, 1.0, size=3, rng=0).shape == (3, 4)
    np.testing.assert_array_equal(samplers.sample_l2_laplace(5, 2.0, size=2, rng=11),
                                  samplers.sample_l2_laplace(5, 2.0, size=2, rng=11))
    gen = np.random.default_rng(5)
    a = samplers.sample_l2_laplace(5, 2.0, rng=gen)
    b = samplers.sample_l2_laplace(5, 2.0, rng=gen)
    assert not np.allclose(a, b)
    dist = samplers.l2_laplace_norm_distribution(7, 0.5)
    assert dist.mean() == pytest.approx(14.0) and dist.std() == pytest.approx(math.sqrt(7) / 0.5)


def test_sampler_rejects_bad_input():
    assert_rejects_bad_values(samplers.sample_l2_laplace, {"dim": 3, "beta": 1.0}, "beta",
                              NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(samplers.sample_l2_laplace, {"dim": 3, "beta": 1.0}, "beta",
                              NOT_A_NUMBER)
    assert_rejects_bad_values(samplers.l2_laplace_norm_distribution, {"dim": 3, "beta": 1.0},
                              "beta", NOT_POSITIVE_FINITE)
    for bad in (0, -1, 2.5, "3", None, True):
        with pytest.raises((ValueError, TypeError), match="dim"):
            samplers.sample_l2_laplace(bad, 1.0)
        if bad is not None:                        # size=None means "one vector"
            with pytest.raises((ValueError, TypeError), match="size"):
                samplers.sample_l2_laplace(3, 1.0, size=bad)


# ---------------------------------------------------------------- constants
def test_output_perturbation_beta_is_n_lambda_eps_over_2():
    # sensitivity 2/(nΛ) (CMS11 Cor. 8) -> β = ε / sensitivity
    assert erm.output_perturbation_beta(0.5, 1000, 1e-3) == pytest.approx(0.25)
    assert erm.output_perturbation_beta(2.0, 30162, 1e-4) == pytest.approx(30162 * 1e-4)


def test_objective_constants_first_branch_hand_computed():
    # n = 100, Λ = 0.01, c = 1/4, ε = 1:  c/(nΛ) = 1/4
    # ε' = 1 − log(1 + 2/4 + 1/16) = 1 − log(1.5625)
    k = erm.objective_perturbation_constants(1.0, 100, 0.01)
    assert k.epsilon_prime == pytest.approx(1 - math.log(1.5625), rel=1e-14)
    assert k.epsilon_prime == pytest.approx(0.553713, abs=1e-6)
    assert k.Delta == 0.0
    assert k.beta == pytest.approx(k.epsilon_prime / 2, rel=1e-14)


def test_objective_constants_second_branch_hand_computed():
    # n = 100, Λ = 0.001, ε = 0.5:  c/(nΛ) = 2.5, log(1 + 5 + 6.25) = 2.5055 > ε -> ε' ≤ 0
    # so Δ = c/(n(e^{ε/4} − 1)) − Λ and ε' = ε/2
    k = erm.objective_perturbation_constants(0.5, 100, 0.001)
    assert 0.5 - math.log(1 + 2 * 2.5 + 2.5**2) < 0
    assert k.Delta == pytest.approx(0.25 / (100 * (math.exp(0.125) - 1)) - 0.001, rel=1e-12)
    assert k.Delta == pytest.approx(0.0177760, abs=1e-6)
    assert k.epsilon_prime == 0.25
    assert k.beta == 0.125


def test_objective_constants_boundary_goes_to_second_branch():
    # choose ε exactly equal to the log term: ε' = 0 is NOT > 0, so Δ-branch
    n, lam = 50, 0.02
    eps = 2 * math.log1p(0.25 / (n * lam))
    k = erm.objective_perturbation_constants(eps, n, lam)
    assert k.epsilon_prime == pytest.approx(eps / 2)
    assert k.Delta >= 0.0


@pytest.mark.parametrize("eps", [0.01, 0.1, 0.5, 1.0, 3.0, 10.0])
@pytest.mark.parametrize("n", [10, 100, 30162])
@pytest.mark.parametrize("lam", [1e-6, 1e-4, 1e-2, 1.0])
def test_objective_constants_spend_exactly_epsilon(eps, n, lam):
    k = erm.objective_perturbation_constants(eps, n, lam)
    assert k.Delta >= 0.0 and k.epsilon_prime > 0.0
    L = lam + k.Delta
    # paper's expression, written out (not via log1p)
    jac = math.log(1 + 2 * 0.25 / (n * L) + 0.25**2 / (n**2 * L**2))
    assert k.log_jacobian == pytest.approx(jac, rel=1e-12, abs=1e-15)
    assert k.epsilon_prime + k.log_jacobian == pytest.approx(eps, rel=1e-12)
    if k.Delta > 0:
        assert k.epsilon_prime == pytest.approx(eps / 2)


def test_lam_and_C_conversions():
    assert logistic.lam_from_C(0.5, 200) == pytest.approx(0.01)
    assert logistic.C_from_lam(logistic.lam_from_C(3.0, 77), 77) == pytest.approx(3.0)


def test_constants_reject_bad_input():
    valid = {"epsilon": 1.0, "n": 100, "lam": 0.01}
    for arg in ("epsilon", "lam"):
        assert_rejects_bad_values(erm.objective_perturbation_constants, valid, arg,
                                  NOT_POSITIVE_FINITE)
        assert_rejects_bad_values(erm.output_perturbation_beta, valid, arg, NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(erm.objective_perturbation_constants, {**valid, "c": 0.25}, "c",
                              NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(logistic.lam_from_C, {"C": 1.0, "n": 10}, "C", NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(logistic.C_from_lam, {"lam": 1.0, "n": 10}, "lam", NOT_A_NUMBER)
    for bad in (0, -3, 1.5, None):
        with pytest.raises((ValueError, TypeError), match="n"):
            erm.objective_perturbation_constants(1.0, bad, 0.01)


# ------------------------------------------------------------- row bounding
def test_bound_rows_rule():
    X = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0], [-6.0, 8.0]])
    Z = logistic.bound_rows(X, data_norm=2.0, fit_intercept=False)
    np.testing.assert_allclose(Z[0], [0.6, 0.8])           # norm 5 > 2: clipped to unit norm
    np.testing.assert_allclose(Z[1], [0.15, 0.2])          # inside: divided by R = 2
    np.testing.assert_allclose(Z[2], [0.0, 0.0])
    np.testing.assert_allclose(Z[3], [-0.6, 0.8])
    Zi = logistic.bound_rows(X, data_norm=2.0, fit_intercept=True)
    np.testing.assert_allclose(Zi[:, -1], 1 / math.sqrt(2))
    np.testing.assert_allclose(Zi[:, :2], Z / math.sqrt(2))
    assert np.all(np.linalg.norm(Zi, axis=1) <= 1 + 1e-12)


def test_bound_rows_is_row_wise_and_data_independent():
    # changing one row changes only that row of the output (no data-dependent scaling)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4)) * 3
    X2 = X.copy()
    X2[7] = [100.0, -50.0, 0.0, 1.0]
    Z, Z2 = logistic.bound_rows(X, 2.0), logistic.bound_rows(X2, 2.0)
    same = np.ones(50, bool)
    same[7] = False
    np.testing.assert_array_equal(Z[same], Z2[same])
    assert np.all(np.linalg.norm(Z2, axis=1) <= 1 + 1e-12)


def test_low_level_functions_refuse_rows_outside_the_ball(small_problem):
    Z, s = small_problem
    Zbad = Z.copy()
    Zbad[0] *= 3.0
    for func in (logistic.fit_logistic_erm, erm.output_perturbation, erm.objective_perturbation):
        kwargs = ({"lam": 0.01} if func is logistic.fit_logistic_erm
                  else {"epsilon": 1.0, "lam": 0.01})
        with pytest.raises(ValueError, match="norm <= 1"):
            func(Zbad, s, **kwargs)
    with pytest.raises(ValueError, match="-1 and \\+1"):
        logistic.fit_logistic_erm(Z, np.where(s > 0, 1.0, 0.0), 0.01)
    with pytest.raises(ValueError, match=r"c must be a number in \[0.25"):
        erm.objective_perturbation(Z, s, 1.0, 0.01, c=0.1)


# ------------------------------------------------------------------- solver
def test_solver_matches_sklearn_with_C_equal_1_over_n_lambda(small_problem):
    Z, s = small_problem
    n = Z.shape[0]
    for lam in (1e-3, 1e-1):
        w = logistic.fit_logistic_erm(Z, s, lam)
        sk = LogisticRegression(C=logistic.C_from_lam(lam, n), fit_intercept=False, tol=1e-12,
                                max_iter=100_000).fit(Z, s)
        np.testing.assert_allclose(w, sk.coef_[0], rtol=1e-5, atol=1e-6)


def test_solver_matches_sklearn_on_sparse_adult_rows():
    # Adult rows are one-hot (sparse): exercises the CSR code path
    from dpteach.datasets import adult_arrays

    A = adult_arrays()
    X, _, y, _ = A.train_test()
    X, y = X[:6000], y[:6000]
    Z = logistic.bound_rows(X, data_norm=math.sqrt(13), fit_intercept=False)
    s = np.where(y == 1, 1.0, -1.0)
    assert logistic.LogisticProblem(Z, s).sparse
    lam = 1e-3
    w = logistic.fit_logistic_erm(Z, s, lam)
    sk = LogisticRegression(C=logistic.C_from_lam(lam, len(s)), fit_intercept=False, tol=1e-12,
                            max_iter=100_000).fit(Z, s)
    np.testing.assert_allclose(w, sk.coef_[0], rtol=1e-4, atol=1e-5)
    # the dense path gives the same minimiser
    dense = logistic.LogisticProblem(Z, s, use_sparse=False)
    assert not dense.sparse
    np.testing.assert_allclose(w, dense.minimize(lam), atol=1e-9)


def test_solver_reaches_tight_gradient_and_warm_start_is_irrelevant(small_problem):
    Z, s = small_problem
    n = Z.shape[0]
    lam, lin, extra = 1e-3, np.linspace(-0.01, 0.02, Z.shape[1]), 0.05
    w = logistic.fit_logistic_erm(Z, s, lam, linear=lin, extra_reg=extra)
    p = 1 / (1 + np.exp(s * (Z @ w)))
    grad = -(Z.T @ (s * p)) / n + (lam + extra) * w + lin
    assert np.max(np.abs(grad)) <= 1e-10
    w2 = logistic.fit_logistic_erm(Z, s, lam, linear=lin, extra_reg=extra,
                                   w0=np.full(Z.shape[1], 5.0),
                                   hess0=logistic.loss_hessian(np.zeros(Z.shape[1]), Z, s))
    np.testing.assert_allclose(w, w2, atol=1e-9)


def test_logistic_objective_and_hessian(small_problem):
    Z, s = small_problem
    w = np.linspace(-1, 1, Z.shape[1])
    J = logistic.logistic_objective(w, Z, s, 0.1)
    assert J == pytest.approx(np.mean(np.log1p(np.exp(-s * (Z @ w)))) + 0.05 * w @ w, rel=1e-12)
    assert logistic.logistic_objective(np.zeros(Z.shape[1]), Z, s, 0.1) == \
        pytest.approx(math.log(2))
    H = logistic.loss_hessian(w, Z, s)
    np.testing.assert_allclose(H, H.T)
    ev = np.linalg.eigvalsh(H)
    assert ev.min() >= -1e-12 and ev.max() <= 0.25 + 1e-12     # ℓ'' ≤ 1/4, ‖z‖ ≤ 1


# ----------------------------------------------------------- the mechanisms
def test_output_perturbation_is_minimiser_plus_gamma_norm_noise(small_problem):
    Z, s = small_problem
    n, d = Z.shape
    lam, eps = 0.01, 0.8
    w_star = logistic.fit_logistic_erm(Z, s, lam)
    gen = np.random.default_rng(2024)
    norms = []
    for _ in range(1500):
        fit = erm.output_perturbation(Z, s, eps, lam, rng=gen, w_star=w_star)
        np.testing.assert_allclose(fit.w - w_star, fit.noise, atol=1e-12)
        norms.append(np.linalg.norm(fit.noise))
    beta = n * lam * eps / 2
    assert stats.kstest(norms, stats.gamma(a=d, scale=1 / beta).cdf).pvalue > KS_LEVEL
    # also without a precomputed minimiser
    fit = erm.output_perturbation(Z, s, eps, lam, rng=1)
    np.testing.assert_allclose(fit.w - fit.noise, w_star, atol=1e-8)


@pytest.mark.parametrize("eps,lam", [(1.0, 0.01), (0.1, 1e-3)])   # Δ = 0 and Δ > 0 branches
def test_objective_perturbation_minimises_the_perturbed_objective(small_problem, eps, lam):
    Z, s = small_problem
    n, d = Z.shape
    k = erm.objective_perturbation_constants(eps, n, lam)
    assert (k.Delta > 0) == (lam == 1e-3)
    gen = np.random.default_rng(77)
    norms = []
    for i in range(400):
        fit = erm.objective_perturbation(Z, s, eps, lam, rng=gen)
        assert fit.constants == k
        norms.append(np.linalg.norm(fit.noise))
        if i < 5:
            # stationarity of J(w) + bᵀw/n + (Δ/2)‖w‖² at the returned w
            w = fit.w
            p = 1 / (1 + np.exp(s * (Z @ w)))
            grad = -(Z.T @ (s * p)) / n + (lam + k.Delta) * w + fit.noise / n
            assert np.max(np.abs(grad)) <= 1e-10
    assert stats.kstest(norms, stats.gamma(a=d, scale=1 / k.beta).cdf).pvalue > KS_LEVEL


def test_minimizer_sensitivity_never_exceeds_the_bound():
    X, y = _blobs(n=150, seed=3, d=2)
    for lam in (1e-3, 1e-2, 1e-1):
        res = erm_experiments.minimizer_sensitivity(X, y, lam, data_norm=3.0, n_random=40,
                                                    n_adversarial=12, rng=5)
        assert res.bound == pytest.approx(2 / (150 * lam))
        assert res.distances.shape == (52,)
        assert np.all(res.distances <= res.bound)
        assert 0 < res.max_ratio <= 1
        # the adversarial neighbours move w* more than random ones on average
        adv = res.distances[res.kinds == "adversarial"].mean()
        rnd = res.distances[res.kinds == "random"].mean()
        assert adv > rnd


def test_minimizer_sensitivity_in_higher_dimension_without_intercept():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(120, 6))
    y = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)
    res = erm_experiments.minimizer_sensitivity(X, y, 0.05, data_norm=2.0, fit_intercept=False,
                                                n_random=20, n_adversarial=10, rng=1)
    assert np.all(res.distances <= res.bound)


# ------------------------------------------------------- excess-risk bounds
@pytest.mark.parametrize("method,eps,lam", [("output", 1.0, 0.05), ("objective", 1.0, 0.01),
                                            ("objective", 0.05, 1e-3)])
def test_excess_risk_deterministic_and_high_probability_bounds(small_problem, method, eps, lam):
    Z, s = small_problem
    n, d = Z.shape
    w_star = logistic.fit_logistic_erm(Z, s, lam)
    J_star = logistic.logistic_objective(w_star, Z, s, lam)
    gen = np.random.default_rng(31)
    N, prob = 300, 0.9
    bound = erm_bounds.excess_risk_bound(method, n, d, lam, eps, prob=prob)
    above = 0
    for _ in range(N):
        if method == "output":
            fit = erm.output_perturbation(Z, s, eps, lam, rng=gen, w_star=w_star)
            Delta = 0.0
        else:
            fit = erm.objective_perturbation(Z, s, eps, lam, rng=gen, w0=w_star)
            Delta = fit.constants.Delta
        excess = logistic.logistic_objective(fit.w, Z, s, lam) - J_star
        assert excess >= -1e-12
        # deterministic inequality given ‖b‖ (holds for every draw)
        det = erm_bounds.excess_risk_given_noise(method, np.linalg.norm(fit.noise), n, lam,
                                          Delta=Delta, w_star_norm=np.linalg.norm(w_star))
        assert excess <= det * (1 + 1e-9) + 1e-12
        above += excess > bound
    # P(excess > bound) ≤ P(‖b‖ > quantile) = 1 − prob; binomial SE sqrt(p(1−p)/N), 5 SE
    assert above / N <= (1 - prob) + 5 * math.sqrt(prob * (1 - prob) / N)


def test_excess_risk_bound_ordering():
    # objective perturbation's bound is smaller by about (c+Λ)/Λ for the same ε
    n, d, lam, eps = 30000, 105, 1e-3, 1.0
    out = erm_bounds.excess_risk_bound("output", n, d, lam, eps)
    obj = erm_bounds.excess_risk_bound("objective", n, d, lam, eps)
    assert out > 50 * obj


def test_excess_risk_bad_input():
    valid = {"method": "output", "n": 100, "dim": 3, "lam": 0.1, "epsilon": 1.0}
    assert_rejects_bad_values(erm_bounds.excess_risk_bound, valid, "epsilon", NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(erm_bounds.excess_risk_bound, valid, "lam", NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(erm_bounds.excess_risk_bound, {**valid, "prob": 0.9}, "prob",
                              BAD_PROBABILITY)
    with pytest.raises(ValueError, match="method"):
        erm_bounds.excess_risk_bound("exact", 100, 3, 0.1, 1.0)
    with pytest.raises(ValueError, match="noise_norm"):
        erm_bounds.excess_risk_given_noise("output", -1.0, 100, 0.1)


# ---------------------------------------------------------------- estimator
def test_estimator_records_privacy_spent(blobs):
    X, y = blobs
    obj = PrivateLogisticRegression(epsilon=0.7, lam=0.01, data_norm=4.0, rng=0).fit(X, y)
    assert obj.epsilon_ == 0.7 and obj.delta_ == 0.0
    k = erm.objective_perturbation_constants(0.7, len(y), 0.01)
    assert obj.epsilon_prime_ == k.epsilon_prime and obj.Delta_ == k.Delta
    out = PrivateLogisticRegression(epsilon=2.0, method="output", lam=0.01, rng=0).fit(X, y)
    assert out.epsilon_ == 2.0 and out.delta_ == 0.0
    none = PrivateLogisticRegression(method="none", lam=0.01).fit(X, y)
    assert math.isinf(none.epsilon_)
    for est in (obj, out, none):
        assert not hasattr(est, "noise_") and not hasattr(est, "b_")   # the noise stays secret


def test_estimator_reproducible_with_rng(blobs):
    X, y = blobs
    for method in ("objective", "output"):
        a = PrivateLogisticRegression(method=method, lam=0.01, rng=42).fit(X, y)
        b = PrivateLogisticRegression(method=method, lam=0.01, rng=42).fit(X, y)
        c = PrivateLogisticRegression(method=method, lam=0.01, rng=43).fit(X, y)
        np.testing.assert_array_equal(a.coef_, b.coef_)
        assert not np.allclose(a.coef_, c.coef_)
        gen = np.random.default_rng(1)
        est = PrivateLogisticRegression(method=method, lam=0.01, rng=gen)
        first = est.fit(X, y).coef_.copy()
        assert not np.allclose(first, est.fit(X, y).coef_)   # a Generator is advanced


def test_estimator_linear_model_matches_low_level_fit(blobs):
    X, y = blobs
    R, lam = 4.0, 0.02
    est = PrivateLogisticRegression(method="objective", lam=lam, data_norm=R, rng=9).fit(X, y)
    Z = logistic.bound_rows(X, R, True)
    s = np.where(y == est.classes_[1], 1.0, -1.0)
    fit = erm.objective_perturbation(Z, s, 1.0, lam, rng=9)
    np.testing.assert_allclose(est.coef_[0], fit.w[:2] / (R * math.sqrt(2)), atol=1e-9)
    np.testing.assert_allclose(est.intercept_[0], fit.w[2] / math.sqrt(2), atol=1e-9)
    inside = np.linalg.norm(X, axis=1) <= R
    np.testing.assert_allclose(est.decision_function(X[inside]), Z[inside] @ fit.w, atol=1e-9)
    np.testing.assert_allclose(est.decision_function(X), X @ est.coef_[0] + est.intercept_[0])
    proba = est.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(est.predict(X), est.classes_[(proba[:, 1] > 0.5).astype(int)])
    np.testing.assert_allclose(np.exp(est.predict_log_proba(X)), proba, atol=1e-12)


def test_nonprivate_baseline_matches_sklearn(blobs):
    X, y = blobs
    R, lam = 4.0, 0.005
    est = PrivateLogisticRegression(method="none", lam=lam, data_norm=R).fit(X, y)
    Z = logistic.bound_rows(X, R, True)
    sk = LogisticRegression(C=1 / (len(y) * lam), fit_intercept=False, tol=1e-12,
                            max_iter=100_000).fit(Z, y)
    np.testing.assert_allclose(est.coef_[0], sk.coef_[0][:2] / (R * math.sqrt(2)), rtol=1e-5)
    np.testing.assert_allclose(est.intercept_[0], sk.coef_[0][2] / math.sqrt(2), rtol=1e-5)
    assert est.score(X, y) == pytest.approx(sk.score(Z, y))
    # C given instead of lam: Λ = 1/(nC)
    est_c = PrivateLogisticRegression(method="none", C=1 / (len(y) * lam), data_norm=R).fit(X, y)
    assert est_c.lam_ == pytest.approx(lam)
    np.testing.assert_allclose(est_c.coef_, est.coef_, rtol=1e-8)


def test_string_labels_and_class_order():
    X, y = _blobs(n=100, seed=4)
    labels = np.where(y == 1, "yes", "no")
    est = PrivateLogisticRegression(method="none", lam=0.01, data_norm=4.0).fit(X, labels)
    assert list(est.classes_) == ["no", "yes"]
    assert set(est.predict(X)) <= {"no", "yes"}
    assert est.score(X, labels) > 0.8


def test_pipeline_and_cross_val_score(blobs):
    X, y = blobs
    # only a data-independent transformer in front (a fitted scaler would leak)
    pipe = make_pipeline(FunctionTransformer(np.tanh),
                         PrivateLogisticRegression(epsilon=5.0, lam=0.01, rng=0))
    scores = cross_val_score(pipe, X, y, cv=5)
    assert scores.shape == (5,) and np.all((scores >= 0) & (scores <= 1))
    base = cross_val_score(make_pipeline(FunctionTransformer(np.tanh),
                                         PrivateLogisticRegression(method="none", lam=0.01)),
                           X, y, cv=5)
    # blobs at ±(1,1) with sd 1.2 are ~88% separable; the non-private fit is close to that
    assert base.mean() > 0.8


@pytest.mark.parametrize("method", ["objective", "output", "none"])
def test_sklearn_check_estimator(method):
    results = check_estimator(PrivateLogisticRegression(method=method, rng=0), on_fail=None)
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in results
              if r["status"] == "failed"]
    assert failed == []
    assert sum(r["status"] == "passed" for r in results) >= 50


def test_estimator_rejects_bad_params(blobs):
    X, y = blobs

    def fit_with(**params):
        return PrivateLogisticRegression(**params).fit(X, y)

    for arg in ("epsilon", "lam", "C", "data_norm"):
        assert_rejects_bad_values(fit_with, {arg: 1.0}, arg, NOT_POSITIVE_FINITE)
        # lam=None / C=None mean "not given" and are valid
        strategy = NOT_A_NUMBER.filter(lambda v: v is not None) if arg in ("lam", "C") \
            else NOT_A_NUMBER
        assert_rejects_bad_values(fit_with, {arg: 1.0}, arg, strategy)
    with pytest.raises(ValueError, match="lam or C"):
        fit_with(lam=0.1, C=1.0)
    with pytest.raises(ValueError, match="method"):
        fit_with(method="exponential")
    with pytest.raises(TypeError, match="fit_intercept"):
        fit_with(fit_intercept="yes")
    with pytest.raises(TypeError, match="rng"):
        fit_with(rng="seed")
    with pytest.raises(ValueError, match="Only binary"):
        PrivateLogisticRegression().fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="X"):
        PrivateLogisticRegression().fit(np.where(X > 2, np.nan, X), y)
    # the constructor stores parameters unchanged and validates nothing
    est = PrivateLogisticRegression(epsilon=-1, lam="x")
    assert est.get_params()["epsilon"] == -1 and est.get_params()["lam"] == "x"


def test_low_level_bad_input(small_problem):
    Z, s = small_problem
    valid = {"Z": Z, "s": s, "epsilon": 1.0, "lam": 0.01}
    for func in (erm.output_perturbation, erm.objective_perturbation):
        for arg in ("epsilon", "lam"):
            assert_rejects_bad_values(func, valid, arg, NOT_POSITIVE_FINITE)
        assert_rejects_bad_values(func, valid, "Z", NON_FINITE_ARRAYS)
    assert_rejects_bad_values(logistic.bound_rows, {"X": Z, "data_norm": 1.0}, "data_norm",
                              NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(logistic.bound_rows, {"X": Z, "data_norm": 1.0}, "X",
                              NON_FINITE_ARRAYS)
    assert_rejects_bad_values(logistic.fit_logistic_erm, {"Z": Z, "s": s, "lam": 0.1}, "lam",
                              NOT_POSITIVE_FINITE)


# ------------------------------------------------------------ accuracy curve
def test_accuracy_curve_agrees_with_estimator(blobs):
    X, y = blobs
    Xtr, Xte, ytr, yte = X[:200], X[200:], y[:200], y[200:]
    kw = dict(lam=0.01, data_norm=4.0, fit_intercept=True)
    curve = erm_experiments.accuracy_vs_epsilon(Xtr, ytr, Xte, yte, [0.5, 2.0],
                                                methods=("objective",),
                                                n_trials=2, rng=np.random.default_rng(12), **kw)
    est = PrivateLogisticRegression(epsilon=0.5, rng=np.random.default_rng(12), **kw).fit(Xtr, ytr)
    assert curve.accuracy["objective"][0, 0] == pytest.approx(est.score(Xte, yte))
    base = PrivateLogisticRegression(method="none", **kw).fit(Xtr, ytr)
    assert curve.nonprivate_accuracy == pytest.approx(base.score(Xte, yte))
    assert curve.accuracy["objective"].shape == (2, 2)
    assert curve.mean("objective").shape == (2,) and curve.std("objective").shape == (2,)
    df = curve.to_frame()
    assert list(df.columns) == ["method", "epsilon", "trial", "accuracy"] and len(df) == 4


def test_accuracy_curve_output_method_uses_exact_minimiser(blobs):
    X, y = blobs
    curve = erm_experiments.accuracy_vs_epsilon(X, y, X, y, [1e3], methods="output", n_trials=3,
                                                lam=0.01, data_norm=4.0, rng=0)
    # with ε at the top of its domain (1e3) the noise nearly vanishes: every private fit
    # classifies like the non-private one
    np.testing.assert_allclose(curve.accuracy["output"], curve.nonprivate_accuracy)


def test_accuracy_curve_bad_input(blobs):
    X, y = blobs
    valid = {"X_train": X, "y_train": y, "X_test": X, "y_test": y, "epsilons": [1.0],
             "lam": 0.01, "n_trials": 2}
    assert_rejects_bad_values(erm_experiments.accuracy_vs_epsilon, valid, "lam",
                              NOT_POSITIVE_FINITE)
    for bad in ([0.0], [-1.0, 1.0], [np.inf], "1"):
        with pytest.raises((ValueError, TypeError), match="epsilons"):
            erm_experiments.accuracy_vs_epsilon(**{**valid, "epsilons": bad})
    with pytest.raises(ValueError, match="methods"):
        erm_experiments.accuracy_vs_epsilon(**valid, methods=("laplace",))
    with pytest.raises(ValueError, match="n_trials"):
        erm_experiments.accuracy_vs_epsilon(**{**valid, "n_trials": 1})
    with pytest.raises(ValueError, match="X_test"):
        erm_experiments.accuracy_vs_epsilon(**{**valid, "X_test": X[:, :1]})
    with pytest.raises(ValueError, match="2 classes"):
        erm_experiments.accuracy_vs_epsilon(**{**valid, "y_train": np.zeros(len(y))})


def test_minimizer_sensitivity_bad_input(blobs):
    X, y = blobs
    valid = {"X": X, "y": y, "lam": 0.1}
    assert_rejects_bad_values(erm_experiments.minimizer_sensitivity, valid, "lam",
                              NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(erm_experiments.minimizer_sensitivity, {**valid, "data_norm": 1.0},
                              "data_norm",
                              NOT_POSITIVE_FINITE)
    with pytest.raises(ValueError, match="n_random"):
        erm_experiments.minimizer_sensitivity(X, y, 0.1, n_random=0, n_adversarial=0)
    with pytest.raises(ValueError, match="2 classes"):
        erm_experiments.minimizer_sensitivity(X, np.zeros(len(y)), 0.1)


def test_accuracy_curve_repeats_per_method(blobs):
    X, y = blobs
    curve = erm_experiments.accuracy_vs_epsilon(X, y, X, y, [1.0, 3.0], 0.01, data_norm=4.0, rng=0,
                                                n_trials={"objective": 2, "output": 5})
    assert curve.accuracy["objective"].shape == (2, 2)
    assert curve.accuracy["output"].shape == (2, 5)
    with pytest.raises(ValueError, match="n_trials"):
        erm_experiments.accuracy_vs_epsilon(X, y, X, y, [1.0], 0.01, n_trials={"objective": 2})


# --------------------------------------------------------------------- plots
def _lines(fig, prefix):
    return [ln for ax in fig.axes for ln in ax.get_lines() if (ln.get_gid() or "").startswith(prefix)]


def test_toy_fits_and_plot_toy_boundaries_draw_private_and_nonprivate_lines():
    from dpteach.plots.erm import plot_toy_boundaries

    fits = erm_experiments.toy_fits(epsilon=1.0, lam=0.01, method="output", n_fits=5)
    assert len(fits.private) == 5 and fits.n == 200
    # the fits are the estimator's, with the documented seeds
    X, y = datasets.make_toy_data(200, rng=0)
    np.testing.assert_array_equal(fits.X, X)
    base = PrivateLogisticRegression(method="none", lam=0.01,
                                     data_norm=datasets.TOY_DATA_NORM).fit(X, y)
    np.testing.assert_array_equal(fits.nonprivate.coef_, base.coef_)
    second = PrivateLogisticRegression(method="output", epsilon=1.0, lam=0.01, rng=2,
                                       data_norm=datasets.TOY_DATA_NORM).fit(X, y)
    np.testing.assert_array_equal(fits.private[1].coef_, second.coef_)
    fig = plot_toy_boundaries(fits)
    assert len(_lines(fig, "private-")) == 5 and len(_lines(fig, "nonprivate")) == 1
    assert "ε = 1" in fig.axes[0].get_title()
    # the drawn non-private line is {x : coefᵀx + b = 0} of the non-private fit
    xs, ys = _lines(fig, "nonprivate")[0].get_data()
    np.testing.assert_allclose(base.decision_function(np.column_stack([xs, ys])), 0, atol=1e-9)
    assert_rejects_bad_values(erm_experiments.toy_fits, {"epsilon": 1.0}, "epsilon",
                              NOT_POSITIVE_FINITE)
    with pytest.raises(ValueError, match="method"):
        erm_experiments.toy_fits(method="none")
    with pytest.raises(TypeError, match="fits"):
        plot_toy_boundaries({"epsilon": 1.0})


def test_plot_decision_boundaries_vertical_line_and_bad_input():
    from dpteach.plots.erm import plot_decision_boundaries

    X, y = _blobs(n=40, seed=2)
    fig = plot_decision_boundaries(X, y, ([1.0, 0.0], -0.5), [([2.0, 0.1], 0.0)], label="x")
    xs, _ = _lines(fig, "nonprivate")[0].get_data()
    np.testing.assert_allclose(xs, 0.5)
    with pytest.raises(ValueError, match="2 features"):
        plot_decision_boundaries(X, y, ([1.0, 0.0, 1.0], 0.0))
    with pytest.raises(ValueError, match="X"):
        plot_decision_boundaries(np.c_[X, X], y, ([1.0, 0.0], 0.0))


def test_plot_accuracy_sensitivity_and_excess_risk(blobs):
    from dpteach.plots.erm import plot_accuracy_curve, plot_excess_risk, plot_sensitivity

    X, y = blobs
    curve = erm_experiments.accuracy_vs_epsilon(X, y, X, y, [0.5, 2.0], 0.01, data_norm=4.0, rng=0,
                                                n_trials=3)
    fig = plot_accuracy_curve(curve, baseline=0.5)
    np.testing.assert_allclose(_lines(fig, "mean-objective")[0].get_ydata(),
                               curve.mean("objective"))
    assert _lines(fig, "baseline")[0].get_ydata()[0] == 0.5
    with pytest.raises(TypeError, match="AccuracyCurve"):
        plot_accuracy_curve({"objective": 1})
    with pytest.raises(ValueError, match="baseline"):
        plot_accuracy_curve(curve, baseline=1.5)

    res = erm_experiments.minimizer_sensitivity(X, y, 0.1, data_norm=4.0, n_random=5,
                                                n_adversarial=3, rng=0)
    fig = plot_sensitivity(res)
    assert _lines(fig, "bound")[0].get_xdata()[0] == pytest.approx(res.bound)
    with pytest.raises(TypeError, match="MinimizerSensitivityResult"):
        plot_sensitivity(curve)

    eps = np.array([0.5, 1.0])
    fig = plot_excess_risk(eps, {"output": np.ones((2, 3))}, {"output": np.array([2.0, 2.0])})
    assert len(_lines(fig, "bound-output")) == 1
    with pytest.raises(ValueError, match=r"a row \(value\) per ε"):
        plot_excess_risk(eps, {"output": np.ones((3, 3))}, {})
    with pytest.raises(ValueError, match="method"):
        plot_excess_risk(eps, {"laplace": np.ones((2, 3))}, {})


def _rendered(data):
    """Both renderers accept ``data``: a matplotlib Figure and a JSON-able Vega-Lite spec."""
    import json

    from matplotlib.figure import Figure

    from dpteach.plots.figure import to_matplotlib, to_vega_lite

    assert isinstance(to_matplotlib(data), Figure)
    spec = to_vega_lite(data)
    json.dumps(spec)
    return spec


def test_toy_boundaries_data_is_the_fits_lines_clipped_to_the_box():
    from dpteach.plots.erm import plot_toy_boundaries, toy_boundaries_data

    fits = erm_experiments.toy_fits(epsilon=0.5, lam=0.01, method="objective", n_fits=3, n=60)
    data = toy_boundaries_data(fits)
    assert [s.key for s in data.series] == ["class-0", "class-1", "private-0", "private-1",
                                            "private-2", "nonprivate"]
    assert [s.label for s in data.series] == ["class 0", "class 1", "3 private fits", "", "",
                                              "non-private"]
    assert "ε = 0.5" in data.title and "δ = 0" in data.title and "n = 60" in data.title
    for k in (0, 1):                                   # the points are the data, per class
        pts = data.series_by_key(f"class-{k}")
        np.testing.assert_array_equal(np.column_stack([pts.x, pts.y]), fits.X[fits.y == k])
        assert pts.kind == "points"
    (x0, x1), (y0, y1) = data.x_domain, data.y_domain
    assert x0 == pytest.approx(fits.X[:, 0].min() - 0.5) and y1 == pytest.approx(
        fits.X[:, 1].max() + 0.5)
    models = {"nonprivate": fits.nonprivate,
              **{f"private-{i}": m for i, m in enumerate(fits.private)}}
    for key, model in models.items():
        line = data.series_by_key(key)
        # w·z = 0 in the bounded features is coef_·x + intercept_ = 0 in the raw ones
        pts = np.column_stack([line.x, line.y])
        np.testing.assert_allclose(model.decision_function(pts), 0, atol=1e-9)
        assert np.all((line.x >= x0 - 1e-12) & (line.x <= x1 + 1e-12))
        assert np.all((line.y >= y0 - 1e-12) & (line.y <= y1 + 1e-12))
    base = data.series_by_key("nonprivate")              # the highlighted reference
    assert base.dash == "dashed" and base.width > data.series_by_key("private-0").width
    spec = _rendered(data)
    assert spec["title"]["text"] == data.title
    fig = plot_toy_boundaries(fits)
    assert len(_lines(fig, "private-")) == 3 and fig.axes[0].get_title() == data.title


def test_boundary_lines_are_cut_at_the_box_or_left_out():
    from dpteach.plots.erm import plot_decision_boundaries

    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    y = np.array([0, 1, 0, 1])
    # y = 4x crosses the box [-0.5, 1.5]² between y = -0.5 and y = 1.5: x in [-1/8, 3/8]
    fig = plot_decision_boundaries(X, y, ([4.0, -1.0], 0.0), [([1.0, 1.0], -100.0)])
    xs, ys = _lines(fig, "nonprivate")[0].get_data()
    np.testing.assert_allclose(xs, [-0.125, 0.375])
    np.testing.assert_allclose(ys, [-0.5, 1.5])
    xs, _ = _lines(fig, "private-0")[0].get_data()       # x + y = 100 misses the box
    assert len(xs) == 0


def test_accuracy_curve_data_numbers_bands_and_rules(blobs):
    from dpteach.plots.erm import accuracy_curve_data

    X, y = blobs
    curve = erm_experiments.accuracy_vs_epsilon(X, y, X, y, [0.5, 2.0], 0.01, data_norm=4.0, rng=0,
                                                n_trials=3)
    data = accuracy_curve_data(curve, baseline=0.5)
    assert data.log_x and "ε" in data.x_title and "accuracy" in data.y_title
    for m in ("objective", "output"):
        mean, sd = curve.mean(m), curve.std(m)
        line = data.series_by_key(f"mean-{m}")
        np.testing.assert_array_equal(line.x, [0.5, 2.0])
        np.testing.assert_allclose(line.y, mean)
        band = data.series_by_key(f"sd-{m}")
        np.testing.assert_allclose(band.y, mean - sd)
        np.testing.assert_allclose(band.y2, np.minimum(mean + sd, 1.0))
        assert band.kind == "band" and band.label == ""
    rules = {r.key: r for r in data.rules}
    assert rules["nonprivate"].value == curve.nonprivate_accuracy
    assert rules["baseline"].value == 0.5 and "0.500" in rules["baseline"].label
    assert "Λ = 0.01" in data.title
    spec = _rendered(data)
    assert spec["layer"][0]["encoding"]["x"]["scale"]["type"] == "log"
    bare = accuracy_curve_data(curve, nonprivate=False, show_spread=False, title="t")
    assert bare.rules == () and not any(s.kind == "band" for s in bare.series)
    assert bare.title == "t"


@pytest.mark.parametrize("arg,strategy", [
    ("curve", NOT_AN_OBJECT),
    ("baseline", st.one_of(BAD_PROBABILITY, NOT_A_NUMBER).filter(lambda v: v is not None)),
    ("nonprivate", NOT_BOOL),
    ("show_spread", NOT_BOOL),
    ("title", st.sampled_from([1, 1.5, b"x", ["x"], True, object()])),
])
def test_accuracy_curve_data_rejects_bad_values(blobs, arg, strategy):
    from dpteach.plots.erm import accuracy_curve_data

    X, y = blobs
    curve = erm_experiments.accuracy_vs_epsilon(X[:40], y[:40], X[:40], y[:40], [1.0], 0.1,
                                                data_norm=4.0, rng=0, n_trials=2)
    assert_rejects_bad_values(accuracy_curve_data, {"curve": curve}, arg, strategy)


def test_toy_boundaries_data_rejects_bad_values():
    from dpteach.plots.erm import toy_boundaries_data

    assert_rejects_bad_values(toy_boundaries_data, {}, "fits", NOT_AN_OBJECT)


def test_objective_hessian_and_risk_bad_input(small_problem):
    Z, s = small_problem
    w = np.zeros(Z.shape[1])
    assert_rejects_bad_values(logistic.logistic_objective, {"w": w, "Z": Z, "s": s, "lam": 0.1},
                              "lam", NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(logistic.logistic_objective, {"w": w, "Z": Z, "s": s, "lam": 0.1},
                              "w", NON_FINITE_ARRAYS)
    assert_rejects_bad_values(logistic.loss_hessian, {"w": w, "Z": Z, "s": s}, "Z",
                              NON_FINITE_ARRAYS)
    with pytest.raises(ValueError, match=r"w\.shape must be"):
        logistic.loss_hessian(np.zeros(2), Z, s)
    valid = {"method": "objective", "noise_norm": 1.0, "n": 10, "lam": 0.1}
    assert_rejects_bad_values(erm_bounds.excess_risk_given_noise, valid, "lam", NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(erm_bounds.excess_risk_given_noise, valid, "noise_norm", NON_FINITE_ARRAYS)
    with pytest.raises(ValueError, match="Delta"):
        erm_bounds.excess_risk_given_noise("objective", 1.0, 10, 0.1, Delta=-1.0)


def test_tiny_rows_are_bounded_exactly():
    # (moved from the hand-written edge file) squares of 1e-200 underflow: the norms of rows
    # of tiny entries (inside X's domain) must still be exact
    X = np.array([[3e-200, 4e-200], [0.0, 0.0]])
    Zb = logistic.bound_rows(X, data_norm=1e-6, fit_intercept=False)
    np.testing.assert_allclose(Zb[0], [3e-194, 4e-194], rtol=1e-15)
    np.testing.assert_array_equal(Zb[1], [0.0, 0.0])


def test_returned_floats_are_python_floats():
    # (moved from the hand-written edge file) numbers come back as Python floats
    from dpteach.learning import dpsgd
    from dpteach.learning.network import Network
    X, y = datasets.make_toy_data(20, rng=0)
    Z = logistic.bound_rows(X, 3.0, True)
    s = np.where(y == 1, 1.0, -1.0)
    assert type(logistic.lam_from_C(1.0, 10)) is float
    assert type(logistic.C_from_lam(1.0, 10)) is float
    assert type(logistic.logistic_objective(np.zeros(3), Z, s, 0.1)) is float
    assert type(erm.output_perturbation_beta(1.0, 10, 0.1)) is float
    k = erm.objective_perturbation_constants(0.1, 10, 0.01)
    assert all(type(v) is float for v in dataclasses.astuple(k))
    assert type(erm_bounds.excess_risk_given_noise("output", 1.0, 10, 0.1)) is float
    assert type(erm_bounds.excess_risk_bound("output", 10, 3, 0.1, 1.0)) is float
    assert type(Network((2, 4, 3), rng=0).loss(X, y)) is float
    assert type(dpsgd.steps_per_epoch(10, 3)) is int
    res = erm_experiments.minimizer_sensitivity(X, y, 0.1, n_random=1, n_adversarial=0, rng=0)
    assert type(res.max_ratio) is float and type(res.bound) is float
    curve = erm_experiments.accuracy_vs_epsilon(X, y, X, y, [1.0], 0.1, n_trials=2, rng=0)
    assert type(curve.nonprivate_accuracy) is float
