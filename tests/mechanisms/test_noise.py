"""Tests of dpteach.mechanisms.noise and dpteach.mechanisms.randomized_response.

Against closed forms, SciPy, dp-accounting and simulation.

Statistical tests use fixed seeds. Each tolerance is a multiple (4 or 5) of the standard
error of the statistic being checked, derived in a comment next to it; with a fixed seed
the outcome is deterministic, and the multiple says how unlucky a correct implementation
would have to be to fail (5 SE two-sided: p ≈ 6e-7; 4 SE: p ≈ 6e-5).
"""

from __future__ import annotations

import math
import warnings

import dp_accounting
import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

from dpteach._validation import ParameterError
from dpteach.mechanisms import noise as m
from dpteach.mechanisms import randomized_response as rr

EPS_GRID = [0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0]
DELTA_GRID = [1e-12, 1e-8, 1e-5, 1e-3, 0.1, 0.5]


# ============================================================================ Laplace
@pytest.mark.parametrize("sensitivity, epsilon", [(1, 1), (1, 0.1), (2.5, 0.5), (1e-3, 7.0),
                                                  (100, 1e-4)])
def test_laplace_scale_closed_form(sensitivity, epsilon):
    # b = Δ₁/ε (Dwork & Roth Thm 3.6): exact division, so exact equality.
    assert m.laplace_scale(sensitivity, epsilon) == sensitivity / epsilon
    assert type(m.laplace_scale(sensitivity, epsilon)) is float


def test_noise_scales_beyond_the_teaching_domain_are_refused_by_name():
    # Δ/ε = 0 would release the exact answer and Δ/ε = inf only NaNs: the teaching domain
    # (ε in [1e-6, 1e3], Δ in [1e-6, 1e6]) keeps b in [1e-9, 1e12], and refuses the rest
    with pytest.raises(ParameterError, match=r"epsilon must be a number in \[1e-06, 1000\]; "
                                             r"got epsilon=5e-324"):
        m.laplace_scale(1.0, 5e-324)
    with pytest.raises(ParameterError, match=r"sensitivity must be .*got sensitivity=1e-300"):
        m.laplace_mechanism(1.0, 1e-300, 1.0, rng=0)
    assert m.laplace_scale(1e-6, 1e3) == pytest.approx(1e-9, rel=1e-15)
    assert m.laplace_scale(1e6, 1e-6) == pytest.approx(1e12, rel=1e-15)


def test_laplace_mechanism_moments_and_ks():
    n, sens, eps, centre = 200_000, 2.0, 0.5, 10.0
    b = m.laplace_scale(sens, eps)                         # 4.0
    noise = m.laplace_mechanism(np.full(n, centre), sens, eps, rng=20240601) - centre
    # Mean: Var(Lap(b)) = 2b², so SE(mean) = b·√2/√n; allow 5 SE.
    assert abs(noise.mean()) <= 5 * b * math.sqrt(2 / n)
    # Variance 2b²: for an estimator s² of a distribution with 4th central moment μ₄,
    # Var(s²) ≈ (μ₄ − σ⁴)/n; for Laplace μ₄ = 24b⁴, σ⁴ = 4b⁴, so SE(s²) = b²√(20/n). 5 SE.
    assert abs(noise.var(ddof=1) - 2 * b**2) <= 5 * b**2 * math.sqrt(20 / n)
    # Distribution: Kolmogorov–Smirnov against scipy.stats.laplace(scale=b). Under the
    # null the p-value is uniform; with this fixed seed we require p > 1e-3.
    assert stats.kstest(noise, stats.laplace(scale=b).cdf).pvalue > 1e-3
    # The same test has power: a 5% larger scale is rejected decisively. (KS critical
    # value at level 1e-3 is 1.95/√n ≈ 0.0044, the cdf gap of a 5% scale error ≈ 0.018.)
    assert stats.kstest(noise, stats.laplace(scale=1.05 * b).cdf).pvalue < 1e-3


# =========================================================================== Gaussian
@pytest.mark.parametrize("epsilon", [0.05, 0.3, 0.9, 0.999])
@pytest.mark.parametrize("delta", [1e-10, 1e-5, 0.01, 0.3])
@pytest.mark.parametrize("sensitivity", [1.0, 0.25, 3.0])
def test_classic_sigma_closed_form(epsilon, delta, sensitivity):
    # Dwork & Roth Thm A.1: σ = Δ √(2 ln(1.25/δ)) / ε.
    expected = sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon
    got = m.gaussian_sigma(sensitivity, epsilon, delta, method="classic")
    assert got == pytest.approx(expected, rel=1e-14)


def test_classic_sigma_smallest_delta_is_finite():
    expected = math.sqrt(2 * math.log(1.25 / 1e-50)) / 0.5
    got = m.gaussian_sigma(1.0, 0.5, 1e-50, method="classic")
    assert got == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize("epsilon", [1.0, 1.5, 10.0])
def test_classic_sigma_refused_for_epsilon_at_least_one(epsilon):
    with pytest.raises(ValueError, match=r"epsilon must be < 1 for the classic Gaussian bound.*"
                                         r"method='analytic'"):
        m.gaussian_sigma(1.0, epsilon, 1e-5, method="classic")
    with pytest.raises(ValueError, match=r"method='analytic'"):
        m.gaussian_mechanism(0.0, 1.0, epsilon, 1e-5, method="classic", rng=0)


@pytest.mark.parametrize("method", ["analytic", "classic"])
def test_delta_zero_refused_with_friendly_message(method):
    pattern = r"delta must be .*Gaussian noise cannot give pure DP.*Laplace.*got delta=0"
    with pytest.raises(ValueError, match=pattern):
        m.gaussian_sigma(1.0, 0.5, 0.0, method=method)
    with pytest.raises(ValueError, match=pattern):
        m.gaussian_mechanism([1.0, 2.0], 1.0, 0.5, 0, method=method, rng=0)


@pytest.mark.parametrize("epsilon", EPS_GRID)
@pytest.mark.parametrize("delta", DELTA_GRID)
def test_analytic_sigma_matches_dp_accounting(epsilon, delta):
    # dp_accounting.get_sigma_gaussian assumes sensitivity 1; σ scales linearly with Δ.
    # Its brentq uses xtol=1e-12 (absolute); the smallest σ on this grid is ≈ 0.09, so
    # its own error is ≤ 1.1e-11 relative, well inside the 1e-9 asked for.
    ref = dp_accounting.get_sigma_gaussian(epsilon, delta)
    for sensitivity in (1.0, 0.2, 3.0):
        got = m.gaussian_sigma(sensitivity, epsilon, delta)
        assert got == pytest.approx(sensitivity * ref, rel=1e-9)


@pytest.mark.parametrize("epsilon", EPS_GRID)
@pytest.mark.parametrize("delta", DELTA_GRID)
def test_analytic_sigma_is_tight(epsilon, delta):
    # Balle & Wang Thm 8 holds with equality at the returned σ: private at σ, not private
    # at σ(1 − 1e-9).
    for sensitivity in (1.0, 3.0):
        sigma = m.gaussian_sigma(sensitivity, epsilon, delta)
        assert m.gaussian_delta(sigma, sensitivity, epsilon) <= delta
        assert m.gaussian_delta(sigma * (1 - 1e-9), sensitivity, epsilon) > delta


@pytest.mark.parametrize("epsilon", [0.01, 0.1, 0.5, 0.9, 0.999])
@pytest.mark.parametrize("delta", [1e-12, 1e-6, 1e-3, 0.1, 0.5])
def test_analytic_sigma_never_above_classic(epsilon, delta):
    analytic = m.gaussian_sigma(2.0, epsilon, delta, method="analytic")
    classic = m.gaussian_sigma(2.0, epsilon, delta, method="classic")
    assert analytic <= classic
    # and the classic σ is indeed private (Thm A.1), so the analytic δ at it is ≤ δ
    assert m.gaussian_delta(classic, 2.0, epsilon) <= delta


@pytest.mark.parametrize("sigma, sensitivity, epsilon", [
    (1.0, 1.0, 0.5), (0.4, 1.0, 3.0), (5.0, 2.0, 0.1), (2.0, 1.0, 0.0), (0.7, 0.3, 1.2),
])
def test_gaussian_delta_equals_hockey_stick_integral(sigma, sensitivity, epsilon):
    # First principles: δ(ε) = ∫ max(0, p₁(x) − e^ε p₀(x)) dx with p₀ = N(0, σ²),
    # p₁ = N(Δ, σ²); the integrand is positive exactly for x > x* = σ²ε/Δ + Δ/2.
    x_star = sigma**2 * epsilon / sensitivity + sensitivity / 2

    def integrand(x):
        return (stats.norm.pdf(x, loc=sensitivity, scale=sigma)
                - math.exp(epsilon) * stats.norm.pdf(x, scale=sigma))

    value, err = integrate.quad(integrand, x_star, np.inf, epsabs=1e-14, epsrel=1e-12)
    got = m.gaussian_delta(sigma, sensitivity, epsilon)
    assert got == pytest.approx(value, rel=1e-8, abs=1e-13)


def test_gaussian_delta_at_epsilon_zero_is_total_variation():
    # δ(0) = TV(N(0,σ²), N(Δ,σ²)) = 2Φ(Δ/(2σ)) − 1.
    for sigma in (0.3, 1.0, 4.0):
        assert m.gaussian_delta(sigma, 1.0, 0.0) == pytest.approx(
            2 * stats.norm.cdf(0.5 / sigma) - 1, rel=1e-13)


@pytest.mark.parametrize("sigma", [0.3, 0.8, 2.0, 10.0])
@pytest.mark.parametrize("delta", [1e-9, 1e-5, 0.01])
def test_gaussian_delta_inverts_dp_accounting_epsilon(sigma, delta):
    # dp_accounting.get_epsilon_gaussian(σ, δ) is the ε at which δ(ε) = δ (sensitivity 1),
    # found by brentq with xtol 1e-12 in ε. Since |dδ/dε| = e^ε Φ(−a−b), which on this
    # grid is below 60·δ, the induced error in δ is ≤ 1e-10 relative; 1e-6 is ample.
    eps = dp_accounting.get_epsilon_gaussian(sigma, delta)
    if eps == 0:
        pytest.skip("δ(0) ≤ δ already")
    assert m.gaussian_delta(sigma, 1.0, eps) == pytest.approx(delta, rel=1e-6)


def test_gaussian_delta_monotone_and_bounded():
    sig = np.geomspace(0.05, 50, 60)
    d = [m.gaussian_delta(s, 1.0, 1.0) for s in sig]
    assert all(0 <= x <= 1 for x in d)   # δ < 1 exactly; rounds to 1.0 when σ ≪ Δ
    assert all(a >= b for a, b in zip(d, d[1:]))
    e = [m.gaussian_delta(1.0, 1.0, eps) for eps in np.linspace(0, 8, 40)]
    assert all(a >= b for a, b in zip(e, e[1:]))
    # the largest ε (e^ε alone would overflow): no overflow, δ is 0 or tiny
    assert 0.0 <= m.gaussian_delta(1.0, 1.0, 1e3) <= 1e-300        # μ = 1 ≪ ε
    assert 0.0 <= m.gaussian_delta(1e-6, 1.0, 1e3) <= 1.0          # μ = 1e6 ≫ ε: δ ≈ 1


def test_gaussian_mechanism_moments_and_ks():
    n, sens, eps, delta = 100_000, 1.5, 0.8, 1e-6
    sigma = m.gaussian_sigma(sens, eps, delta)
    noise = m.gaussian_mechanism(np.zeros(n), sens, eps, delta, rng=777)
    # SE(mean) = σ/√n; SE(s²) = σ²√(2/n) for a normal sample (μ₄ = 3σ⁴). 5 SE each.
    assert abs(noise.mean()) <= 5 * sigma / math.sqrt(n)
    assert abs(noise.var(ddof=1) - sigma**2) <= 5 * sigma**2 * math.sqrt(2 / n)
    assert stats.kstest(noise, stats.norm(scale=sigma).cdf).pvalue > 1e-3
    classic = m.gaussian_mechanism(np.zeros(n), sens, eps, delta, method="classic", rng=777)
    sigma_c = m.gaussian_sigma(sens, eps, delta, method="classic")
    assert stats.kstest(classic, stats.norm(scale=sigma_c).cdf).pvalue > 1e-3


# ================================================================ randomized response
def test_rr_epsilon_of_quarter_is_ln3():
    # Dwork & Roth Claim 3.5: the two-coin protocol (γ = ¼) is (ln 3)-DP.
    assert rr.rr_epsilon_from_gamma(0.25) == pytest.approx(math.log(3), rel=1e-15)


@pytest.mark.parametrize("gamma", [1e-12, 1e-6, 0.01, 0.1, 0.25, 0.4, 0.49, 0.4999])
def test_rr_epsilon_formula_in_high_precision(gamma):
    # ε = ln((½+γ)/(½−γ)), evaluated with 50 significant digits by mpmath. The naive
    # float formula would lose ~7 digits at γ = 1e-10; the library must not.
    mpmath.mp.dps = 50
    g = mpmath.mpf(gamma)
    exact = float(mpmath.log((mpmath.mpf("0.5") + g) / (mpmath.mpf("0.5") - g)))
    assert rr.rr_epsilon_from_gamma(gamma) == pytest.approx(exact, rel=1e-14)


@pytest.mark.parametrize("gamma", [1e-9, 0.01, 0.1, 0.25, 0.4, 0.49])
def test_rr_gamma_epsilon_round_trip_from_gamma(gamma):
    back = rr.rr_gamma_from_epsilon(rr.rr_epsilon_from_gamma(gamma))
    assert back == pytest.approx(gamma, rel=1e-13)


@pytest.mark.parametrize("epsilon", [1e-8, 0.01, 0.5, math.log(3), 2.0, 5.0, 10.0])
def test_rr_gamma_epsilon_round_trip_from_epsilon(epsilon):
    gamma = rr.rr_gamma_from_epsilon(epsilon)
    assert gamma == pytest.approx(math.exp(epsilon) / (1 + math.exp(epsilon)) - 0.5, rel=1e-12,
                                  abs=1e-16)
    # At ε = 10, ½ − γ ≈ 4.5e-5 carries absolute rounding 1e-16, i.e. 2e-12 relative,
    # which is what limits the round trip; 1e-10 leaves room.
    assert rr.rr_epsilon_from_gamma(gamma) == pytest.approx(epsilon, rel=1e-10)


@pytest.mark.parametrize("kwargs, eps", [({"gamma": 0.25}, math.log(3)),
                                         ({"epsilon": 0.5}, 0.5),
                                         ({"epsilon": 2.0}, 2.0)])
def test_rr_privacy_ratio_empirically(kwargs, eps):
    n = 200_000
    rng = np.random.default_rng(31337)
    ones = rr.randomized_response(np.ones(n, dtype=int), rng=rng, **kwargs)
    zeros = rr.randomized_response(np.zeros(n, dtype=int), rng=rng, **kwargs)
    p1 = ones.mean()             # P[report = 1 | bit = 1], expected ½ + γ
    p0 = zeros.mean()            # P[report = 1 | bit = 0], expected ½ − γ
    # log(p̂₁/p̂₀) by the delta method: Var(log p̂) ≈ (1 − p)/(n p) for a binomial
    # proportion p̂; the two samples are independent, so the variances add. 5 SE.
    se = math.sqrt((1 - p1) / (n * p1) + (1 - p0) / (n * p0))
    assert abs(math.log(p1 / p0) - eps) <= 5 * se
    # and the other report value: P[0 | bit 0] / P[0 | bit 1] = e^ε too
    se0 = math.sqrt(p0 / (n * (1 - p0)) + p1 / (n * (1 - p1)))
    assert abs(math.log((1 - p0) / (1 - p1)) - eps) <= 5 * se0


def _rr_survey_stats(pi, n, epsilon, trials, seed):
    rng = np.random.default_rng(seed)
    est = np.empty(trials)
    covered = np.empty(trials, dtype=bool)
    for t in range(trials):
        bits = (rng.random(n) < pi).astype(int)   # n people sampled from the population
        r = rr.rr_estimate(rr.randomized_response(bits, epsilon=epsilon, rng=rng), epsilon=epsilon)
        est[t] = r.estimate
        covered[t] = r.ci_low <= pi <= r.ci_high
    return est, covered


def test_rr_estimate_unbiased_and_std_error_by_simulation():
    pi, n, eps, trials = 0.3, 400, 1.0, 2000
    est, _ = _rr_survey_stats(pi, n, eps, trials, seed=2024)
    se = rr.rr_std_error(pi, n, epsilon=eps)
    # The mean of T independent estimates has SE se/√T; allow 4 SE.
    assert abs(est.mean() - pi) <= 4 * se / math.sqrt(trials)
    # Their spread matches rr_std_error: for a near-normal sample, s²/σ² has SE √(2/(T−1)).
    # (π̂ is affine in a Binomial(400, λ) count, whose excess kurtosis ≈ 0.005 is negligible.)
    assert abs(est.var(ddof=1) / se**2 - 1) <= 5 * math.sqrt(2 / (trials - 1))


def _exact_rr_moments(pi, n, epsilon, confidence=0.95):
    """Exact E[π̂] and CI coverage: the number of 1-reports is Binomial(n, λ)."""
    gamma = rr.rr_gamma_from_epsilon(epsilon)
    lam = 0.5 - gamma + 2 * gamma * pi
    counts = np.arange(n + 1)
    pmf = stats.binom.pmf(counts, n, lam)
    mean = cover = 0.0
    for c, w in zip(counts, pmf):
        r = rr.rr_estimate(np.r_[np.ones(c, int), np.zeros(n - c, int)], epsilon=epsilon,
                          confidence=confidence)
        mean += w * r.estimate
        cover += w * (r.ci_low <= pi <= r.ci_high)
    return mean, cover


def test_rr_estimate_exactly_unbiased():
    # Summing over the exact Binomial distribution of the count: E[π̂] = π to rounding.
    for pi in (0.0, 0.05, 0.3, 0.5, 1.0):
        mean, _ = _exact_rr_moments(pi, 60, 0.7)
        assert mean == pytest.approx(pi, abs=1e-12)


def test_rr_confidence_interval_coverage():
    pi, n, eps, trials = 0.3, 400, 1.0, 2000
    _, covered = _rr_survey_stats(pi, n, eps, trials, seed=99)
    # The Wald interval is approximate; its exact coverage for this (π, n, ε) follows from
    # the Binomial(n, λ) count and must be close to 0.95 ...
    _, exact_cover = _exact_rr_moments(pi, n, eps)
    assert abs(exact_cover - 0.95) <= 0.01
    # ... and the simulated coverage is a binomial proportion over T surveys with SE
    # √(c(1−c)/T) ≈ 0.0049; allow 4 SE around the exact coverage c.
    tol = 4 * math.sqrt(exact_cover * (1 - exact_cover) / trials)
    assert abs(covered.mean() - exact_cover) <= tol


def test_rr_estimate_interval_fields():
    r = rr.rr_estimate([1, 0, 1, 1, 0, 1, 1, 1], gamma=0.25, confidence=0.9)
    lam = 6 / 8
    assert r.estimate == pytest.approx((lam - 0.25) / 0.5)
    assert r.std_error == pytest.approx(math.sqrt(lam * (1 - lam) / 8) / 0.5)
    z = stats.norm.ppf(0.95)
    assert (r.ci_low, r.ci_high) == pytest.approx((r.estimate - z * r.std_error,
                                                   r.estimate + z * r.std_error))
    assert r.n == 8 and r.confidence == 0.9
    assert isinstance(r.estimate, float) and isinstance(r.n, int)


def test_rr_std_error_closed_form_and_decomposition():
    # λ(1−λ) = (¼ − γ²) + 4γ²π(1−π): coin noise plus sampling noise.
    for gamma, pi, n in [(0.25, 0.3, 100), (0.1, 0.9, 7), (0.4, 0.0, 1000)]:
        lam = (0.5 + gamma) * pi + (0.5 - gamma) * (1 - pi)
        se = rr.rr_std_error(pi, n, gamma=gamma)
        assert se == pytest.approx(math.sqrt(lam * (1 - lam) / n) / (2 * gamma), rel=1e-14)
        assert se**2 == pytest.approx((0.25 - gamma**2) / (4 * n * gamma**2)
                                      + pi * (1 - pi) / n, rel=1e-12)


@pytest.mark.parametrize("func, args", [
    (rr.randomized_response, ([0, 1],)),
    (rr.rr_estimate, ([0, 1],)),
    (rr.rr_std_error, (0.5, 10)),
])
def test_rr_exactly_one_of_gamma_or_epsilon(func, args):
    with pytest.raises(ValueError, match=r"give exactly one of gamma .* or epsilon; "
                                         r"got gamma=None, epsilon=None"):
        func(*args)
    with pytest.raises(ValueError, match=r"give exactly one of gamma .* got gamma=0.25, epsilon=1"):
        func(*args, gamma=0.25, epsilon=1)


def test_rr_tiny_gamma_or_epsilon_does_not_divide_by_zero():
    # 0.5 + 1e-300 == 0.5 in floating point; estimators must divide by 2γ, not 2p − 1.
    r = rr.rr_estimate([0, 1, 1], epsilon=1e-300)
    assert math.isfinite(r.estimate) and math.isfinite(r.std_error)
    # (2/3 − ½ + γ)/(2γ) with γ = ½ tanh(5e-301) = 2.5e-301
    assert r.estimate == pytest.approx((2 / 3 - 0.5) / 5e-301, rel=1e-12)
    assert math.isfinite(rr.rr_std_error(0.5, 10, gamma=1e-300))


def test_rr_astronomically_small_epsilon_is_refused_not_inf():
    with pytest.raises(ValueError, match=r"epsilon is too small .* got epsilon=5e-324"):
        rr.rr_gamma_from_epsilon(5e-324)
    with pytest.raises(ValueError, match=r"estimate overflows .* got epsilon=1e-320"):
        rr.rr_estimate([0, 1, 1], epsilon=1e-320)
    with pytest.raises(ValueError, match=r"estimate overflows .* got gamma=1e-320"):
        rr.rr_std_error(0.5, 3, gamma=1e-320)
    with pytest.raises(ValueError, match=r"estimate overflows .* got epsilon=1e-320"):
        rr.k_rr_estimate([0, 1, 1], 3, 1e-320)


def test_rr_equals_gamma_and_epsilon_parametrisations():
    bits = np.random.default_rng(5).integers(0, 2, 500)
    g = 0.3
    a = rr.randomized_response(bits, gamma=g, rng=11)
    b = rr.randomized_response(bits, epsilon=rr.rr_epsilon_from_gamma(g), rng=11)
    assert np.array_equal(a, b)


def test_rr_accepts_bools_and_rejects_other_values():
    out = rr.randomized_response(np.array([True, False, True]), gamma=0.25, rng=0)
    assert out.dtype == np.int8 and set(out.tolist()) <= {0, 1}
    with pytest.raises(ValueError,
                       match=r"bits must contain only 0s and 1s.*got bits containing \[2\.\]"):
        rr.randomized_response([0, 1, 2], gamma=0.25)
    with pytest.raises(ValueError, match=r"reports must contain only 0s and 1s"):
        rr.rr_estimate([0, 0.5], gamma=0.25)


# ==================================================================== k-ary RR
def _k_probs(k, eps):
    e = math.exp(eps)
    return e / (e + k - 1), 1 / (e + k - 1)


@pytest.mark.parametrize("k, eps", [(5, 1.0), (3, 0.2), (10, 3.0)])
def test_k_rr_probabilities_and_ratio(k, eps):
    n, true_value = 200_000, 2
    reports = rr.k_randomized_response(np.full(n, true_value), k, eps, rng=4242)
    p, q = _k_probs(k, eps)
    assert p / q == pytest.approx(math.exp(eps), rel=1e-13)
    counts = np.bincount(reports, minlength=k)
    p_hat = counts[true_value] / n
    # Each report frequency is a binomial proportion: SE √(x(1−x)/n). 5 SE each.
    assert abs(p_hat - p) <= 5 * math.sqrt(p * (1 - p) / n)
    others = np.delete(counts, true_value) / n
    assert np.all(np.abs(others - q) <= 5 * math.sqrt(q * (1 - q) / n))
    # Empirical ratio p̂/q̂ with q̂ = (1 − p̂)/(k − 1): log(p̂/q̂) = log p̂ − log(1 − p̂) + const,
    # so by the delta method Var = Var(p̂)/(p(1−p))² = 1/(n p (1−p)). 5 SE.
    q_hat = (1 - p_hat) / (k - 1)
    assert abs(math.log(p_hat / q_hat) - eps) <= 5 / math.sqrt(n * p * (1 - p))


def test_k_rr_estimate_unbiased_by_simulation():
    k, eps, n, trials = 4, 1.0, 2000, 300
    pi = np.array([0.1, 0.2, 0.3, 0.4])
    p, q = _k_probs(k, eps)
    rng = np.random.default_rng(8)
    est = np.array([rr.k_rr_estimate(rr.k_randomized_response(rng.choice(k, size=n, p=pi), k, eps,
                                                            rng=rng), k, eps)
                    for _ in range(trials)])
    # Reports are i.i.d. with P[v] = λ_v = π_v p + (1 − π_v) q, so c_v/n has variance
    # λ_v(1−λ_v)/n and π̂_v = (c_v/n − q)/(p − q) has SE √(λ_v(1−λ_v)/n)/(p − q);
    # the mean of T runs has SE that /√T. 4 SE per category.
    lam = pi * p + (1 - pi) * q
    se = np.sqrt(lam * (1 - lam) / n) / (p - q) / math.sqrt(trials)
    assert np.all(np.abs(est.mean(axis=0) - pi) <= 4 * se)
    assert np.allclose(est.sum(axis=1), 1.0, atol=1e-12)


def test_k_rr_estimate_exact_expectation():
    # E[π̂] is linear in the counts, so plugging the expected counts n·λ gives π exactly.
    k, eps, n = 6, 0.8, 1_000_000
    pi = np.array([0.05, 0.15, 0.2, 0.1, 0.3, 0.2])
    p, q = _k_probs(k, eps)
    counts = np.round((pi * p + (1 - pi) * q) * n).astype(int)
    reports = np.repeat(np.arange(k), counts)
    # rounding the expected counts changes each frequency by ≤ 0.5/n
    assert np.allclose(rr.k_rr_estimate(reports, k, eps), pi,
                       atol=0.5 / reports.size / (p - q) + 1e-12)


def test_k_rr_with_k_2_is_warner():
    eps = 1.3
    bits = np.random.default_rng(0).integers(0, 2, 1000)
    # Same probabilities: p = e^ε/(e^ε + 1) = ½ + γ.
    assert _k_probs(2, eps)[0] == pytest.approx(0.5 + rr.rr_gamma_from_epsilon(eps), rel=1e-15)
    # Same sampler: one uniform per person decides truth vs flip, so same seed → same reports.
    k_reports = rr.k_randomized_response(bits, 2, eps, rng=123)
    w_reports = rr.randomized_response(bits, epsilon=eps, rng=123)
    assert np.array_equal(k_reports, w_reports)
    assert rr.k_rr_estimate(k_reports, 2, eps)[1] == pytest.approx(
        rr.rr_estimate(w_reports, epsilon=eps).estimate, rel=1e-12)


def test_k_rr_tiny_epsilon_is_finite_without_warnings():
    # p − q = (e^ε − 1)/(e^ε + k − 1) via expm1; e^1e-20 − 1 == 0 in floating point.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = rr.k_rr_estimate([0, 1, 1], 3, 1e-20)
        assert np.all(np.isfinite(est))
        # k = 2 agrees with Warner's estimator, which divides by 2γ
        assert rr.k_rr_estimate([0, 1, 1], 2, 1e-20)[1] == pytest.approx(
            rr.rr_estimate([0, 1, 1], epsilon=1e-20).estimate, rel=1e-9)


@pytest.mark.parametrize("eps", [1e-20, 1e-6, 0.3, 4.0, 30.0])
def test_k_rr_estimate_against_high_precision_textbook_formula(eps):
    # π̂_v = (c_v/n − q)/(p − q) evaluated with 60 significant digits by mpmath.
    reports = [0, 1, 1, 3, 3, 3, 2]
    k = 5
    mpmath.mp.dps = 60
    e = mpmath.exp(mpmath.mpf(eps))
    p, q = e / (e + k - 1), 1 / (e + k - 1)
    counts = np.bincount(reports, minlength=k)
    exact = [float((mpmath.mpf(int(c)) / len(reports) - q) / (p - q)) for c in counts]
    assert rr.k_rr_estimate(reports, k, eps) == pytest.approx(exact, rel=1e-12, abs=1e-15)


def test_k_rr_large_epsilon_tells_the_truth():
    values = np.arange(7)
    assert np.array_equal(rr.k_randomized_response(values, 7, 800.0, rng=0), values)
    assert np.array_equal(rr.k_rr_estimate(values, 7, 800.0), np.full(7, 1 / 7))


def test_k_rr_value_checks():
    with pytest.raises(ValueError, match=r"values must be integers in \[0, 2\] for k=3; got values "
                                         r"containing \[3\.5\]"):
        rr.k_randomized_response([0, 3.5], 3, 1.0)
    with pytest.raises(ValueError, match=r"reports must be integers in \[0, 1\]"):
        rr.k_rr_estimate([0, 2], 2, 1.0)
    with pytest.raises(ValueError, match=r"k must be an integer in \[2, 1000000\]"):
        rr.k_rr_estimate([0], 10**7, 1.0)


# ============================================================ output types and shapes
@pytest.mark.parametrize("mech, extra", [(m.laplace_mechanism, (1.0, 1.0)),
                                         (m.gaussian_mechanism, (1.0, 1.0, 1e-5))])
def test_scalars_return_float_arrays_keep_shape(mech, extra):
    for scalar in (3, 3.0, np.float64(3.0), np.array(3.0), np.int32(3)):
        out = mech(scalar, *extra, rng=0)
        assert type(out) is float
    for arr in ([1.0, 2.0], np.zeros((2, 3)), np.zeros((2, 1, 4)), np.zeros(0), [[1, 2]]):
        out = mech(arr, *extra, rng=0)
        assert isinstance(out, np.ndarray) and out.shape == np.shape(arr)
        assert out.dtype == np.float64


def test_rr_output_types():
    assert type(rr.randomized_response(1, gamma=0.25, rng=0)) is int
    assert type(rr.k_randomized_response(2, 3, 1.0, rng=0)) is int
    out = rr.randomized_response([1, 0, 1], gamma=0.25, rng=0)
    assert out.shape == (3,) and out.dtype == np.int8
    out = rr.k_randomized_response([1, 0, 2], 3, 1.0, rng=0)
    assert out.shape == (3,) and out.dtype == np.int64
    assert type(rr.rr_epsilon_from_gamma(0.1)) is float
    assert type(rr.rr_gamma_from_epsilon(1)) is float
    assert type(rr.rr_std_error(0.5, 10, epsilon=1)) is float
    assert type(m.gaussian_sigma(1, 1, 1e-5)) is float
    assert type(m.gaussian_delta(1, 1, 1)) is float
    assert rr.k_rr_estimate([0, 1], 3, 1.0).shape == (3,)


def test_laplace_mechanism_does_not_modify_input():
    x = np.arange(5.0)
    m.laplace_mechanism(x, 1.0, 1.0, rng=0)
    m.gaussian_mechanism(x, 1.0, 1.0, 1e-5, rng=0)
    assert np.array_equal(x, np.arange(5.0))


# ====================================================================== randomness
RANDOM_CALLS = {
    "laplace_mechanism": lambda rng: m.laplace_mechanism(np.zeros(50), 1.0, 1.0, rng=rng),
    "gaussian_mechanism": lambda rng: m.gaussian_mechanism(np.zeros(50), 1.0, 1.0, 1e-5, rng=rng),
    "randomized_response": lambda rng: rr.randomized_response(np.zeros(200, int), gamma=0.1,
                                                             rng=rng),
    "k_randomized_response": lambda rng: rr.k_randomized_response(np.zeros(200), 5, 0.5, rng=rng),
}


@pytest.mark.parametrize("name", sorted(RANDOM_CALLS))
def test_rng_seed_generator_and_global_state(name):
    call = RANDOM_CALLS[name]
    # same int seed → same output; and a seed means default_rng(seed)
    assert np.array_equal(call(17), call(17))
    assert np.array_equal(call(17), call(np.random.default_rng(17)))
    assert not np.array_equal(call(17), call(18))
    # a Generator is consumed: two calls differ and its state moved
    g = np.random.default_rng(3)
    state = g.bit_generator.state
    first, second = call(g), call(g)
    assert not np.array_equal(first, second)
    assert g.bit_generator.state != state
    # NumPy's global random state is never touched
    np.random.seed(2024)
    before = np.random.get_state()
    call(None)
    call(5)
    after = np.random.get_state()
    assert before[0] == after[0] and np.array_equal(before[1], after[1]) and before[2:] == after[2:]
