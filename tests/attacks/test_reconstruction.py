"""Tests for dpteach.attacks.reconstruction (Dinur–Nissim reconstruction) and
dpteach.attacks.tracing (membership tracing from released means)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats
from threadpoolctl import threadpool_limits

from dpteach._validation import ParameterError
from dpteach.accounting.zcdp import gaussian_zcdp, zcdp_to_epsilon
from dpteach.attacks import reconstruction as R
from dpteach.attacks import tracing as T
from dpteach.mechanisms.noise import gaussian_sigma

Z = stats.norm.isf(1e-6 / 2)          # ≈ 4.9 standard errors for every statistical check


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    # least squares on a shared 2-core machine: extra BLAS threads only contend
    with threadpool_limits(1):
        yield


# ---------------------------------------------------------------- the queries
def test_queries_and_exact_answers_give_the_database_away():
    q = R.subset_sum_queries(60, 120, rng=0)
    assert q.shape == (120, 60) and set(np.unique(q)) == {0.0, 1.0}
    np.testing.assert_array_equal(q, R.subset_sum_queries(60, 120, rng=0))
    # each entry is Bernoulli(½): the share of ones over 7,200 entries is within Z·√(¼/7200)
    assert abs(q.mean() - 0.5) <= Z * math.sqrt(0.25 / q.size)
    x = np.random.default_rng(1).integers(0, 2, 60)
    a = R.noisy_answers(x, q, noise="none")
    np.testing.assert_array_equal(a, q @ x)
    for guess in (R.reconstruct_least_squares(q, a), R.reconstruct_lp(q, a, norm="l1"),
                  R.reconstruct_lp(q, a, norm="linf")):
        assert R.fraction_recovered(guess, x) == 1.0


def test_noise_kinds():
    rng = np.random.default_rng(2)
    x = rng.integers(0, 2, 20)
    q = R.subset_sum_queries(20, 4000, rng=rng)
    exact = q @ x
    e = R.noisy_answers(x, q, noise="bounded", size=3.0, rng=3) - exact
    assert np.all(np.abs(e) <= 3.0)
    # sample variances: relative standard error √((κ − 1)/k), κ the kurtosis (uniform 1.8,
    # Gaussian 3, Laplace 6)
    for noise, var, kurt in (("bounded", 9.0 / 3, 1.8), ("gaussian", 4.0, 3.0),
                             ("laplace", 2 * 4.0, 6.0)):
        size = 3.0 if noise == "bounded" else 2.0
        e = R.noisy_answers(x, q, noise=noise, size=size, rng=4) - exact
        assert abs(e.var() / var - 1) <= Z * math.sqrt((kurt - 1) / e.size), noise
    a = R.noisy_answers(x, q, noise="corrupt", size=0.2, rng=5)
    bad = a != exact
    # corrupted: a Bernoulli(0.2) share (a corrupted answer equals the true one with prob. 0)
    assert abs(bad.mean() - 0.2) <= Z * math.sqrt(0.16 / bad.size)
    assert np.all((a >= 0) & (a <= q.sum(axis=1)))
    with pytest.raises(ParameterError, match="size"):
        R.noisy_answers(x, q, noise="none", size=1.0)


# ------------------------------------------------------ reconstruction succeeds
@pytest.mark.parametrize("decoder", R.DECODERS)
@pytest.mark.parametrize("n", [100, 150, 200])
def test_noise_well_below_sqrt_n_gives_the_database_away(decoder, n):
    # bounded errors |e_j| ≤ E = 0.25·√n, k = 4n queries. For least squares each coordinate's
    # error has sd ≈ (E/√3)·2/√k = 0.25·√n/√3 · 1/√n = 0.144 (QᵀQ ≈ (k/4)(I + J)), so a bit is
    # wrong with probability 2Φ(−0.5/0.144) ≈ 5e-4: about 0.1 wrong bits expected, and 5% of
    # n (≥ 5 bits) has probability below 1e-9. The LP decoders do at least as well in [DN03]'s
    # analysis (l∞) and in practice (l1); the same ≥ 95% is asserted for them.
    res = R.reconstruction_attack(n, 4 * n, noise="bounded", size=0.25 * math.sqrt(n),
                                  decoder=decoder, rng=n)
    assert res.fraction >= 0.95
    assert res.noise_std == pytest.approx(0.25 * math.sqrt(n) / math.sqrt(3))
    assert res.calibration is None and res.dp_bound is None


def test_lp_beats_least_squares_on_bounded_noise_and_l1_on_gross_errors():
    seeds = range(8)
    n, k, bound = 100, 400, 0.5 * 10

    def run(noise, size, decoder):
        return np.array([R.reconstruction_attack(n, k, noise=noise, size=size, decoder=decoder,
                                                 rng=s).fraction for s in seeds])

    ls, linf, l1 = (run("bounded", bound, d) for d in ("least_squares", "lp_linf", "lp_l1"))
    # paired over the same secrets, queries and noise: the mean difference exceeds Z standard
    # errors of the mean (sample sd of the 8 differences / √8)
    diff = linf - ls
    assert diff.mean() > Z * diff.std(ddof=1) / math.sqrt(len(seeds))
    # observed, not a theorem: against dense bounded noise l1 does not beat least squares
    assert l1.mean() <= ls.mean() + 0.02
    # 15% of the answers replaced by arbitrary values: LP decoding ([DMT07]) is untroubled
    ls, l1 = run("corrupt", 0.15, "least_squares"), run("corrupt", 0.15, "lp_l1")
    assert l1.min() >= 0.98 and ls.max() < 0.9


# ---------------------------------------------------------- DP stops it
def test_dp_answers_leave_the_attacker_near_chance():
    # (ε, δ)-DP answers: each bit is guessed right with probability ≤ (e^ε + δ)/(1 + e^ε)
    # (dp_recovery_bound), so the expected fraction recovered is at most that: 0.550 at
    # ε = 0.2. The mean of R independent runs has standard error s/√R (s: the sample sd of
    # the runs); one-sided, the mean may exceed the bound by at most Z of them. And all stay
    # near chance, below 0.6.
    eps = 0.2
    bound = R.dp_recovery_bound(eps, 0.0)
    assert bound == pytest.approx(special.expit(0.2)) and bound < 0.551
    cases = [("dp_laplace", "basic", 0.0, "least_squares", 20, 400),
             ("dp_gaussian", "zcdp", 1e-6, "least_squares", 20, 400),
             ("dp_laplace", "zcdp", 1e-6, "least_squares", 20, 400),
             ("dp_laplace", "basic", 0.0, "lp_l1", 6, 200),
             ("dp_gaussian", "basic", 1e-6, "lp_linf", 6, 200)]
    for noise, accounting, delta, decoder, runs, k in cases:
        res = [R.reconstruction_attack(100, k, noise=noise, epsilon=eps, delta=delta,
                                       accounting=accounting, decoder=decoder, rng=s)
               for s in range(runs)]
        f = np.array([r.fraction for r in res])
        ceiling = R.dp_recovery_bound(eps, delta)
        assert all(r.dp_bound == ceiling for r in res)
        assert f.mean() - Z * f.std(ddof=1) / math.sqrt(runs) <= ceiling, (noise, decoder)
        assert f.mean() <= 0.6, (noise, accounting, decoder)


def test_recovery_bound_values():
    for eps in (1e-3, 0.5, 2.0, 50.0):
        assert R.dp_recovery_bound(eps) == pytest.approx(math.exp(eps) / (1 + math.exp(eps)))
        assert R.dp_recovery_bound(eps, 0.01) == pytest.approx(
            (math.exp(eps) + 0.01) / (1 + math.exp(eps)))
    # the ends of the teaching domain: chance plus ε/4 at ε = 1e-6, certainty at 1e4
    assert R.dp_recovery_bound(1e-6) == pytest.approx(0.5 + 2.5e-7, rel=1e-12)
    assert R.dp_recovery_bound(40.0) == 1.0 and R.dp_recovery_bound(1e4) == 1.0


def test_answers_far_out_of_range_still_decode_to_bits():
    # answers are moved into [0, |S_j|]: the decoders still return bits at the domain's ends
    q = R.subset_sum_queries(4, 8, rng=0)
    for a in (np.full(8, 1e15), np.full(8, -1e15)):
        for guess in (R.reconstruct_least_squares(q, a), R.reconstruct_lp(q, a)):
            np.testing.assert_array_equal(guess, np.ones(4) if a[0] > 0 else np.zeros(4))


def test_negative_zero_noise_is_no_noise():
    # -0.0 passes "≥ 0"; NumPy's samplers refused it as a negative scale ("scale < 0")
    x, q = [0, 1, 1], R.subset_sum_queries(3, 5, rng=1)
    for noise in ("bounded", "gaussian", "laplace"):
        np.testing.assert_array_equal(R.noisy_answers(x, q, noise=noise, size=-0.0, rng=0),
                                      q @ np.array(x))
    assert R.reconstruction_attack(4, 8, noise="gaussian", size=-0.0, rng=0).fraction == 1.0
    assert T.tracing_attack(4, 3, noise_std=-0.0, rng=0).noise_std == 0.0


def test_each_answer_gets_an_epsilon_of_the_mechanisms_domain():
    # the total ε reaches 1e4 (the app's slider), but each answer's ε must be one the
    # mechanisms accept, [1e-6, 1e3]; the refusal names the total ε and k, not ε/k
    assert R.calibrate_noise(50, 1e4).per_query_epsilon == 200.0
    for k, eps, mechanism in ((2, 1e4, "laplace"), (20_000, 1e-3, "laplace"),
                              (20_000, 1e-3, "gaussian")):
        with pytest.raises(ParameterError, match=r"epsilon must be .* k=\d+ .* got epsilon="):
            R.calibrate_noise(k, eps, delta=1e-6, mechanism=mechanism)


# ---------------------------------------------------------- calibration
def test_calibrations_follow_their_accountants():
    k, eps, delta = 400, 1.0, 1e-6
    lap = R.calibrate_noise(k, eps, mechanism="laplace", accounting="basic")
    assert lap.scale == pytest.approx(k / eps) and lap.per_query_epsilon == pytest.approx(eps / k)
    assert lap.basic_total_epsilon == pytest.approx(eps) and lap.delta == 0.0
    assert lap.noise_std == pytest.approx(math.sqrt(2) * k / eps)
    # zCDP: k answers of ε₀²/2 each compose to ρ = kε₀²/2, which converts to (ε, δ)
    lz = R.calibrate_noise(k, eps, delta=delta, mechanism="laplace", accounting="zcdp")
    rho = k * lz.per_query_epsilon**2 / 2
    assert lz.per_query_rho == pytest.approx(lz.per_query_epsilon**2 / 2)
    assert zcdp_to_epsilon(rho, delta) <= eps and zcdp_to_epsilon(rho, delta) == pytest.approx(eps)
    assert lz.noise_std < lap.noise_std / 4             # far less noise for many queries
    assert lz.basic_total_epsilon > eps                 # basic composition would charge more
    # ... but for one query basic composition is the better accountant
    one_b = R.calibrate_noise(1, eps, mechanism="laplace")
    one_z = R.calibrate_noise(1, eps, delta=delta, mechanism="laplace", accounting="zcdp")
    assert one_b.noise_std < one_z.noise_std
    gb = R.calibrate_noise(k, eps, delta=delta, mechanism="gaussian", accounting="basic")
    assert gb.scale == pytest.approx(gaussian_sigma(1.0, eps / k, delta / k))
    assert gb.per_query_epsilon == pytest.approx(eps / k, rel=1e-6)
    gz = R.calibrate_noise(k, eps, delta=delta, mechanism="gaussian", accounting="zcdp")
    rho = k * gaussian_zcdp(gz.scale)
    assert rho == pytest.approx(k * gz.per_query_rho)
    assert zcdp_to_epsilon(rho, delta) == pytest.approx(eps) and zcdp_to_epsilon(rho, delta) <= eps
    assert gz.noise_std < gb.noise_std / 5
    with pytest.raises(ParameterError, match="delta"):
        R.calibrate_noise(k, eps, mechanism="gaussian")
    with pytest.raises(ParameterError, match="delta"):
        R.calibrate_noise(k, eps, accounting="zcdp")


@pytest.mark.parametrize("mechanism,accounting", [("laplace", "basic"), ("laplace", "zcdp"),
                                                  ("gaussian", "basic"), ("gaussian", "zcdp")])
def test_private_answers_carry_the_calibrated_noise(mechanism, accounting):
    rng = np.random.default_rng(7)
    x = rng.integers(0, 2, 10)
    q = R.subset_sum_queries(10, 20_000, rng=rng)
    a, cal = R.private_answers(x, q, epsilon=2000.0, delta=1e-6, mechanism=mechanism,
                               accounting=accounting, rng=8)
    e = a - q @ x
    kurt = 6.0 if mechanism == "laplace" else 3.0
    # sample variance: relative standard error √((κ − 1)/k)
    assert abs(e.var() / cal.noise_std**2 - 1) <= Z * math.sqrt((kurt - 1) / e.size)
    assert abs(e.mean()) <= Z * cal.noise_std / math.sqrt(e.size)


# ------------------------------------------------------------------ tracing
def test_tracing_statistic_exact_values():
    y, q, p = [1, 0], [0.6, 0.4], [0.5, 0.5]
    assert T.tracing_statistic(y, q, p) == pytest.approx(0.5 * 0.1 + 0.5 * 0.1)
    assert T.tracing_statistic(y, q, p, method="homer") == pytest.approx(0.2)
    out = T.tracing_statistic([[1, 0], [0, 1]], q, p)
    assert out.shape == (2,) and out[0] == pytest.approx(0.1) and out[1] == pytest.approx(-0.1)


def _power_tolerance(power, fpr, m):
    # The simulated power is the TPR at the empirical (1 − α)-quantile of m non-member scores:
    # var ≈ P(1 − P)/m (members) + (f₁/f₀)² α(1 − α)/m (the threshold), with f₁/f₀ at the
    # threshold = exp(δz − δ²/2) for two unit normals δ = z_α + Φ⁻¹(P) apart. Z of those.
    z = stats.norm.isf(fpr)
    shift = z + stats.norm.ppf(min(max(power, 1e-6), 1 - 1e-6))
    ratio = math.exp(shift * z - shift**2 / 2)
    return Z * math.sqrt(power * (1 - power) / m + ratio**2 * fpr * (1 - fpr) / m)


def test_tracing_power_matches_its_normal_approximation():
    for n, d, sigma in ((1000, 5000, 0.0), (1000, 1000, 0.0), (500, 2000, 0.02)):
        res = T.tracing_attack(n, d, noise_std=sigma, n_targets=min(n, 1000), rng=3)
        assert res.predicted_power == T.tracing_power(n, d, noise_std=sigma, fpr=0.05)
        # a sum of d independent terms: the normal approximation errs by a few 1/√d; 0.02
        # allows for it on top of the sampling tolerance
        tol = _power_tolerance(res.predicted_power, 0.05, min(n, 1000)) + 0.02
        assert abs(res.power - res.predicted_power) <= tol, (n, d, sigma)


def test_tracing_power_grows_with_attributes_and_falls_with_noise():
    ds = [10, 100, 1000, 10_000, 100_000]
    powers = [T.tracing_power(500, d) for d in ds]
    assert np.all(np.diff(powers) > 0) and powers[0] < 0.1 and powers[-1] > 0.999
    noisy = [T.tracing_power(500, 10_000, noise_std=s) for s in (0.0, 0.01, 0.03, 0.1)]
    assert np.all(np.diff(noisy) < 0)
    few = T.tracing_attack(200, 50, rng=4, n_targets=200)
    many = T.tracing_attack(200, 20_000, rng=4, n_targets=200)
    assert few.power < 0.3 and many.power == 1.0 and many.roc.auc > 0.999
    ref = T.tracing_attack(200, 20_000, reference_size=1000, rng=4, n_targets=200)
    homer = T.tracing_attack(200, 20_000, method="homer", rng=4, n_targets=200)
    assert ref.power > 0.99 and homer.roc.auc > 0.99 and ref.predicted_power is None


def test_dp_means_cap_the_tracing_power():
    n, d, fpr, delta, m = 1000, 10_000, 0.05, 1e-5, 1000
    for eps in (0.5, 1.0):
        res = T.tracing_attack(n, d, epsilon=eps, delta=delta, fpr=fpr, n_targets=m, rng=5)
        assert res.noise_std == T.means_noise_std(n, d, eps, delta)
        assert res.noise_std == gaussian_sigma(math.sqrt(d) / n, eps, delta)
        ceiling = math.exp(eps) * fpr + delta
        # the ceiling holds at the true FPR; the threshold comes from m non-members, whose
        # FPR errs by √(α(1 − α)/m), moving the ceiling by e^ε times that; Z of each
        tol = Z * (math.sqrt(ceiling * (1 - ceiling) / m) + math.exp(eps) * math.sqrt(
            fpr * (1 - fpr) / m))
        assert res.power <= ceiling + tol
        # and d no longer helps: the predicted power stays put as d grows 100-fold
        p = [T.tracing_power(n, dd, epsilon=eps, delta=delta, fpr=fpr) for dd in (100, 10_000)]
        assert abs(p[0] - p[1]) < 0.02 and max(p) <= ceiling


# ------------------------------------------------------- rules between arguments
# Each argument alone is checked against its declared domain by tests/test_domains.py;
# these rules tie two arguments together.
X3 = [0, 1, 1]
Q3 = [[1, 0, 1], [0, 1, 1], [1, 1, 0], [1, 1, 1]]
A3 = [1.0, 2.0, 1.0, 2.0]


def test_rules_between_arguments_are_refused_by_name():
    for noise, size in (("none", 1.0), ("corrupt", 1.5)):
        with pytest.raises(ParameterError, match="size"):
            R.noisy_answers(X3, Q3, noise=noise, size=size)
    for f in (R.noisy_answers, R.private_answers):
        with pytest.raises(ParameterError, match="secret"):
            f([0, 1], Q3, **({"epsilon": 1.0} if f is R.private_answers else {}))
    for f in (R.reconstruct_least_squares, R.reconstruct_lp):
        with pytest.raises(ParameterError, match="answers"):
            f(Q3, [1.0, 2.0])
    with pytest.raises(ParameterError, match="guess"):
        R.fraction_recovered([0, 1], X3)
    with pytest.raises(ParameterError, match="delta"):
        R.calibrate_noise(10, 1.0, mechanism="gaussian")
    ra = dict(n=10, k=20)
    with pytest.raises(ParameterError, match="epsilon"):                  # not with "bounded"
        R.reconstruction_attack(**ra, noise="bounded", epsilon=1.0)
    with pytest.raises(ParameterError, match="epsilon"):                  # required for DP
        R.reconstruction_attack(**ra, noise="dp_laplace")
    with pytest.raises(ParameterError, match="size"):                     # ε sets the noise
        R.reconstruction_attack(**ra, noise="dp_laplace", size=1.0, epsilon=1.0)
    with pytest.raises(ParameterError, match="noise_std"):
        T.tracing_attack(20, 10, noise_std=0.1, epsilon=1.0)
    with pytest.raises(ParameterError, match="n_targets"):
        T.tracing_attack(20, 10, n_targets=21)
    with pytest.raises(ParameterError, match="released_means"):
        T.tracing_statistic([[1, 0]], [0.5], [0.4, 0.6])


def test_sizes_have_upper_bounds():
    with pytest.raises(ParameterError, match="n"):
        R.subset_sum_queries(R.MAX_N + 1, 1)
    with pytest.raises(ParameterError, match=r"k must be ≤ 2,000 with n = 1000"):
        R.subset_sum_queries(1000, 2001)
    with pytest.raises(ParameterError, match=r"k must be ≤ 2,000 with n = 1000"):
        R.reconstruction_attack(1000, 2001)
    with pytest.raises(ParameterError, match="queries"):
        R.reconstruct_lp(np.ones((10, R.MAX_LP_N + 1)), np.ones(10))
    with pytest.raises(ParameterError, match="decoder"):
        R.reconstruction_attack(500, 1000, decoder="lp_l1")
    with pytest.raises(ParameterError, match=r"d must be ≤ 200 with n = 100,000"):
        T.tracing_attack(10**5, 10**5)
