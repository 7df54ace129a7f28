"""Tests of dpteach.mechanisms.noise.

Against closed forms, SciPy, dp-accounting and simulation.

Statistical tests use fixed seeds. Each tolerance is a multiple (4 or 5) of the standard
error of the statistic being checked, derived in a comment next to it; with a fixed seed
the outcome is deterministic, and the multiple says how unlucky a correct implementation
would have to be to fail (5 SE two-sided: p ≈ 6e-7; 4 SE: p ≈ 6e-5).
"""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, stats

from dpteach._validation import ParameterError
from dpteach.mechanisms import noise as m

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
    with pytest.raises(ValueError, match=r"epsilon must be < 1 with method='classic'"):
        m.gaussian_sigma(1.0, epsilon, 1e-5, method="classic")
    with pytest.raises(ValueError, match=r"method='classic'"):
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


def test_noise_output_types():
    assert type(m.gaussian_sigma(1, 1, 1e-5)) is float
    assert type(m.gaussian_delta(1, 1, 1)) is float
    assert type(m.laplace_privacy_loss(0.3, 1, 1)) is float
    assert type(m.gaussian_privacy_loss(0.3, 1, 1)) is float


# ============================================================ the teaching domain
@given(sensitivity=st.floats(min_value=1e-6, max_value=1e6),
       epsilon=st.floats(min_value=1e-6, max_value=1e3))
def test_laplace_scale_is_a_usable_noise_scale_on_the_teaching_domain(sensitivity, epsilon):
    # b = Δ/ε must be a positive finite float: 0 would mean *no noise* (a privacy failure),
    # inf would mean NaN outputs; the teaching domain keeps it in [1e-9, 1e12]
    b = m.laplace_scale(sensitivity, epsilon)
    assert math.isfinite(b) and 1e-9 * (1 - 1e-15) <= b <= 1e12 * (1 + 1e-15)


@given(sensitivity=st.floats(min_value=1e-6, max_value=1e6),
       epsilon=st.floats(min_value=1e-6, max_value=1e3),
       delta=st.floats(min_value=1e-50, max_value=0.999999))
def test_analytic_sigma_valid_on_the_whole_domain(sensitivity, epsilon, delta):
    sigma = m.gaussian_sigma(sensitivity, epsilon, delta)
    assert math.isfinite(sigma) and sigma > 0
    assert m.gaussian_delta(sigma, sensitivity, epsilon) <= delta


@given(value=st.one_of(st.floats(min_value=-1e15, max_value=1e15),
                       st.lists(st.floats(min_value=-1e6, max_value=1e6), max_size=5)))
def test_mechanisms_accept_any_value_of_the_domain(value):
    out = m.laplace_mechanism(value, 1.0, 1.0, rng=0)
    assert np.shape(out) == np.shape(value)
    out = m.gaussian_mechanism(value, 1.0, 1.0, 1e-5, rng=0)
    assert np.shape(out) == np.shape(value)


@pytest.mark.parametrize("eps", [1e-6, 0.3, 1.0, 1e3])
def test_laplace_privacy_loss_far_from_the_data_is_exactly_epsilon(eps):
    y = np.array([-1e15, -1e10, 0.0, 1e10, 1e15])
    loss = m.laplace_privacy_loss(y, 1.0, eps, value=-1e-300)
    # exactly ±ε, no cancellation of |y − a − Δ| − |y − a| far from the data
    assert loss[:2].tolist() == [eps, eps] and loss[3:].tolist() == [-eps, -eps]
    assert abs(loss[2]) <= eps
    assert type(m.laplace_privacy_loss(1e10, 1.0, eps)) is float


def test_laplace_mechanism_does_not_modify_input():
    x = np.arange(5.0)
    m.laplace_mechanism(x, 1.0, 1.0, rng=0)
    m.gaussian_mechanism(x, 1.0, 1.0, 1e-5, rng=0)
    assert np.array_equal(x, np.arange(5.0))


# ====================================================================== randomness
RANDOM_CALLS = {
    "laplace_mechanism": lambda rng: m.laplace_mechanism(np.zeros(50), 1.0, 1.0, rng=rng),
    "gaussian_mechanism": lambda rng: m.gaussian_mechanism(np.zeros(50), 1.0, 1.0, 1e-5, rng=rng),
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
