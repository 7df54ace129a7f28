"""Tests of the exact samplers of dpteach.exact.discrete ([CKS20]), the snapping mechanism ([M12])
and the secure mechanisms of dpteach.exact.secure.

Against exact values: the normalising constants and variances of the discrete Gaussian
(the issue's four values, and mpmath sums with 40 digits), the pmfs (mpmath), the exact δ
of the discrete Gaussian (mpmath), and against the pmf by chi-square tests on 10⁵ draws.

Statistical tests use fixed seeds, so their outcome is deterministic. Each chi-square test
rejects when its p-value is below 1e-4: over random seeds a correct sampler would fail it
with probability 1e-4 (the false-alarm probability), and the same test is shown to reject
a wrong pmf. Moment tests allow 5 standard errors (two-sided p ≈ 6e-7), derived next to
each.
"""

from __future__ import annotations

import math
import random
from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpteach.mechanisms import noise as m
from dpteach.exact import discrete as s
from dpteach.exact import snapping
from dpteach.exact import secure
from dpteach._validation import ParameterError
from dpteach.accounting.zcdp import zcdp_to_epsilon

P_MIN = 1e-4          # chi-square false-alarm probability per test


# ------------------------------------------------------------------------ helpers
def chi_square_pvalue(draws: np.ndarray, pmf) -> float:
    """Pearson's chi-square p-value of integer ``draws`` against ``pmf`` (a function on ℤ).

    Bins: every integer whose expected count is ≥ 5, plus one bin for each tail (so that
    the chi-square approximation holds); degrees of freedom = bins − 1.
    """
    n = draws.size
    k = 0
    while n * pmf(np.array([k + 1]))[0] >= 5 or n * pmf(np.array([-(k + 1)]))[0] >= 5:
        k += 1
    p_centre = pmf(np.arange(-k, k + 1))
    p_low = pmf(np.arange(-k - 3000, -k)).sum()            # P[X ≤ −k − 1]
    p_high = pmf(np.arange(k + 1, k + 3001)).sum()         # P[X ≥ k + 1]
    expected = n * np.concatenate([[p_low], p_centre, [p_high]])
    observed = np.bincount(np.clip(draws, -k - 1, k + 1) + k + 1, minlength=2 * k + 3)
    assert observed.sum() == n
    chi2 = float(np.sum((observed - expected) ** 2 / expected))
    return float(stats.chi2.sf(chi2, df=expected.size - 1))


def mp_theta(sigma2, dps=40):
    """(normaliser, variance) of N_ℤ(0, σ²) by direct summation in mpmath."""
    mpmath.mp.dps = dps
    s2 = mpmath.mpf(Fraction(sigma2).numerator) / Fraction(sigma2).denominator
    top = int(math.ceil(14 * math.sqrt(float(sigma2)))) + 12       # e^{-98} relative
    z = mpmath.mpf(1)
    m2 = mpmath.mpf(0)
    for x in range(1, top):
        w = mpmath.exp(-mpmath.mpf(x * x) / (2 * s2))
        z += 2 * w
        m2 += 2 * x * x * w
    return z, m2 / z


# ====================================================== normalisers, variances, pmfs
# The exact laws the draws are compared with (test oracles, on the library's _theta).
def gaussian_normalizer(sigma2) -> float:
    """Σ_{x∈ℤ} exp(-x²/(2σ²)), the normalising constant of N_ℤ(0, σ²)."""
    return s._theta(float(sigma2))[0]


def gaussian_pmf(x, sigma2):
    """P[X = x] for X ~ N_ℤ(0, σ²); a float for a scalar x."""
    x = np.asarray(x, dtype=float)
    p = np.exp(-0.5 * x * x / float(sigma2)) / gaussian_normalizer(sigma2)
    return float(p) if p.ndim == 0 else p


def laplace_pmf(x, scale):
    """P[X = x] = tanh(1/(2t))·exp(-|x|/t) of the discrete Laplace with scale t (the
    normaliser Σ_x e^{-|x|/t} = (1 + e^{-1/t})/(1 - e^{-1/t}) = 1/tanh(1/(2t)))."""
    t = float(scale)
    p = np.tanh(0.5 / t) * np.exp(-np.abs(np.asarray(x, dtype=float)) / t)
    return float(p) if p.ndim == 0 else p


@pytest.mark.parametrize("sigma2, norm, var", [
    (1, 2.50662828804291, 0.999999788767728),
    (0.5, 1.77263720482665, 0.49897913083282),
])
def test_the_issues_four_values(sigma2, norm, var):
    # the issue prints 15 significant digits: agree to half a unit of the last one
    assert abs(gaussian_normalizer(sigma2) - norm) <= 5e-15
    assert abs(s.discrete_gaussian_variance(sigma2) - var) <= 5e-15
    z, v = mp_theta(sigma2)
    assert float(z) == pytest.approx(norm, rel=1e-14)
    assert float(v) == pytest.approx(var, rel=1e-14)


@pytest.mark.parametrize("sigma2", [1e-3, 0.01, 0.1, 0.3, Fraction(1, 3), 0.999, 1.001, 2.0,
                                    7.5, 100, 1e4])
def test_normalizer_and_variance_against_mpmath(sigma2):
    # both branches (direct sums for σ² ≤ 1, Poisson summation above) to double precision
    z, v = mp_theta(sigma2)
    assert gaussian_normalizer(sigma2) == pytest.approx(float(z), rel=4e-15)
    assert s.discrete_gaussian_variance(sigma2) == pytest.approx(float(v), rel=4e-15)
    assert s.discrete_gaussian_variance(sigma2) <= float(Fraction(sigma2))
    if float(sigma2) <= 2:                    # beyond, the gap is below double precision
        assert s.discrete_gaussian_variance(sigma2) < float(Fraction(sigma2))


def test_normalizer_and_variance_at_the_ends_of_the_domain():
    # σ² = 1e-12: every term but x = 0 underflows to 0, exactly
    assert gaussian_normalizer(1e-12) == 1.0
    assert s.discrete_gaussian_variance(1e-12) == 0.0
    # σ² = 2**100: the Poisson sum is its first term, √(2πσ²), and the variance is σ²
    big = 2**100
    assert gaussian_normalizer(big) == pytest.approx(
        math.sqrt(2 * math.pi) * math.sqrt(big), rel=1e-15)
    assert s.discrete_gaussian_variance(big) == float(big)
    assert type(gaussian_normalizer(1)) is float


@pytest.mark.parametrize("sigma2", [0.2, 1, 3.7])
def test_gaussian_pmf_against_mpmath(sigma2):
    x = np.arange(-12, 13)
    z, _ = mp_theta(sigma2)
    ref = [float(mpmath.exp(-mpmath.mpf(int(k) ** 2) / (2 * mpmath.mpf(sigma2))) / z) for k in x]
    np.testing.assert_allclose(gaussian_pmf(x, sigma2), ref, rtol=1e-13)
    total = gaussian_pmf(np.arange(-200, 201), sigma2).sum()
    assert total == pytest.approx(1, abs=1e-14)
    assert type(gaussian_pmf(0, sigma2)) is float


@pytest.mark.parametrize("scale", [0.05, 0.7, 1, Fraction(5, 2), 40.0])
def test_laplace_pmf_is_normalised_and_geometric(scale):
    t = float(Fraction(scale))
    x = np.arange(-40 * int(math.ceil(t)) - 40, 40 * int(math.ceil(t)) + 41)
    p = laplace_pmf(x, scale)
    assert p.sum() == pytest.approx(1, abs=1e-13)
    # P[x+1]/P[x] = e^{-1/t} for x ≥ 0; P[0] = tanh(1/(2t))
    assert laplace_pmf(3, scale) / laplace_pmf(2, scale) == pytest.approx(
        math.exp(-1 / t), rel=1e-13)
    mpmath.mp.dps = 30
    assert laplace_pmf(0, scale) == pytest.approx(
        float(mpmath.tanh(1 / (2 * mpmath.mpf(t)))), rel=1e-14)


# ====================================================================== samplers
def test_bernoulli_exp_is_exact_in_distribution():
    # the core of [CKS20] Algorithm 1: P[1] = e^{-γ}. 2·10⁵ coins, SE √(p(1−p)/n); 5 SE.
    rnd = random.Random(2024)
    n = 200_000
    for num, den in ((1, 3), (1, 1), (7, 2), (0, 5)):
        hits = sum(s._bernoulli_exp(num, den, rnd.randrange) for _ in range(n // 4))
        p = math.exp(-num / den)
        assert abs(hits / (n // 4) - p) <= 5 * math.sqrt(p * (1 - p) / (n // 4)) + 1e-12


def test_discrete_gaussian_chi_square_on_1e5_draws():
    draws = s.sample_discrete_gaussian(1, size=100_000, rng=13)   # timed in benchmarks/
    assert draws.dtype == np.int64 and draws.shape == (100_000,)
    assert chi_square_pvalue(draws, lambda x: gaussian_pmf(x, 1)) > P_MIN
    # power: the same test rejects a 10% larger σ² and the rounded continuous Gaussian
    assert chi_square_pvalue(draws, lambda x: gaussian_pmf(x, 1.1)) < P_MIN
    rounded = lambda x: stats.norm.cdf(x + 0.5) - stats.norm.cdf(x - 0.5)  # noqa: E731
    assert chi_square_pvalue(draws, rounded) < P_MIN
    # variance: SE(s²) = √((μ₄ − σ⁴)/n), μ₄ ≈ 3σ⁴ for σ² = 1 (the discrete Gaussian's μ₄ is
    # within 1e-6 of it); 5 SE
    var = s.discrete_gaussian_variance(1)
    assert abs(draws.var() - var) <= 5 * math.sqrt(2 * var**2 / draws.size)


def test_discrete_laplace_chi_square_on_1e5_draws():
    draws = s.sample_discrete_laplace(Fraction(5, 2), size=100_000, rng=7)
    assert chi_square_pvalue(draws, lambda x: laplace_pmf(x, 2.5)) > P_MIN
    assert chi_square_pvalue(draws, lambda x: laplace_pmf(x, 2.6)) < P_MIN


@pytest.mark.parametrize("sigma2", [Fraction(1, 3), 0.1, 6.25, 1e6])
def test_discrete_gaussian_other_sigmas(sigma2):
    # 2·10⁴ draws each; the mean has SE √(Var/n), 5 SE; the chi-square test as above.
    draws = s.sample_discrete_gaussian(sigma2, size=20_000, rng=5)
    var = s.discrete_gaussian_variance(sigma2)
    assert abs(draws.mean()) <= 5 * math.sqrt(var / draws.size)
    if float(sigma2) < 100:
        assert chi_square_pvalue(draws, lambda x: gaussian_pmf(x, sigma2)) > P_MIN
    else:      # SE(s²)/σ² = √(2/n) for a near-normal sample: 5 SE
        assert abs(draws.var() / var - 1) <= 5 * math.sqrt(2 / draws.size)


def test_discrete_laplace_scales_at_the_ends():
    # the smallest scale and σ²: P[X ≠ 0] = 1 − tanh(5e5) < e^{-1e6}, 0 to any precision
    assert np.all(s.sample_discrete_laplace(1e-6, size=50, rng=0) == 0)
    assert np.all(s.sample_discrete_gaussian(1e-12, size=50, rng=0) == 0)
    big = s.sample_discrete_laplace(2**50, size=200, rng=1)
    # |X| has mean ≈ t: the sample mean of |X| within 5 SE (SD of |X| ≈ t)
    assert abs(np.abs(big).mean() / 2**50 - 1) <= 5 / math.sqrt(200)
    assert abs(s.sample_discrete_gaussian(2**100, rng=2)) < 2**50 * 40


def test_exact_parameters_are_exact():
    # a float is taken as the exact double, a Fraction as itself: different samplers
    assert s.SCALE("scale", 0.1) == Fraction(0.1) != Fraction(1, 10)
    assert s.SCALE("scale", Fraction(1, 10)) == Fraction(1, 10)
    assert s.SCALE("scale", np.float32(0.1)) == Fraction(float(np.float32(0.1)))
    assert s.SCALE("scale", np.int64(3)) == 3
    assert s.SIGMA2("sigma2", Fraction(1, 3)) == Fraction(1, 3)


def test_randomness_sources():
    a = s.sample_discrete_gaussian(2, size=30, rng=5)
    assert np.array_equal(a, s.sample_discrete_gaussian(2, size=30, rng=5))      # seed: same
    assert np.array_equal(a, s.sample_discrete_gaussian(2, size=30, rng=random.Random(5)))
    assert not np.array_equal(a, s.sample_discrete_gaussian(2, size=30, rng=6))
    r = random.Random(1)                                   # a Random is consumed
    assert not np.array_equal(s.sample_discrete_laplace(3, size=30, rng=r),
                              s.sample_discrete_laplace(3, size=30, rng=r))
    g = np.random.default_rng(4)                            # a Generator seeds one, advances
    first = s.sample_discrete_laplace(3, size=30, rng=g)
    assert np.array_equal(first, s.sample_discrete_laplace(3, size=30,
                                                           rng=np.random.default_rng(4)))
    assert not np.array_equal(first, s.sample_discrete_laplace(3, size=30, rng=g))
    # None: the OS CSPRNG (two calls differ) and no global state is touched
    random.seed(9)
    np.random.seed(9)
    py_state, np_state = random.getstate(), np.random.get_state()
    assert not np.array_equal(s.sample_discrete_gaussian(1e6, size=20),
                              s.sample_discrete_gaussian(1e6, size=20))
    snapping.snapping_mechanism(0.0, sensitivity=1.0, epsilon=1.0, bound=10.0)
    secure.secure_laplace_mechanism(0.0, 1.0, 1.0)
    assert random.getstate() == py_state
    after = np.random.get_state()
    assert np.array_equal(np_state[1], after[1]) and np_state[2:] == after[2:]
    assert s.sample_discrete_gaussian(1, size=10, rng=random.SystemRandom()).shape == (10,)


def test_os_random_source_is_uniform():
    src = s._OSRandom()
    n = 60_000
    counts = np.bincount([src.below(3) for _ in range(n)], minlength=3)
    assert stats.chisquare(counts).pvalue > P_MIN
    assert 0 <= src.below(2**70) < 2**70 and src.bits(0) == 0 and src.bits(100) < 2**100
    bits = np.array([src.bits(1) for _ in range(n)])
    assert abs(bits.mean() - 0.5) <= 5 * math.sqrt(0.25 / n)


def test_output_types():
    assert type(s.sample_discrete_laplace(1.5, rng=0)) is int
    assert type(s.sample_discrete_gaussian(Fraction(2, 3), rng=0)) is int
    assert s.sample_discrete_gaussian(1, size=1, rng=0).shape == (1,)


# ================================================================ discrete Gaussian δ
def mp_delta(sigma2, d, eps):
    mpmath.mp.dps = 40
    s2 = mpmath.mpf(sigma2)
    z, _ = mp_theta(sigma2)
    total = mpmath.mpf(0)
    top = int(14 * math.sqrt(sigma2)) + 12 + d
    for x in range(-top, top + 1):
        p = mpmath.exp(-mpmath.mpf(x * x) / (2 * s2)) / z
        q = mpmath.exp(-mpmath.mpf((x + d) ** 2) / (2 * s2)) / z
        total += max(mpmath.mpf(0), p - mpmath.exp(eps) * q)
    return float(total)


@pytest.mark.parametrize("sigma2, d, eps", [(1.0, 1, 0.5), (0.3, 1, 0.0), (4.0, 2, 1.5),
                                            (0.47589, 1, 5.0), (25.0, 3, 0.2)])
def test_discrete_gaussian_delta_against_mpmath(sigma2, d, eps):
    assert s.discrete_gaussian_delta(sigma2, d, eps) == pytest.approx(
        mp_delta(sigma2, d, eps), rel=1e-11, abs=1e-300)


def test_continuous_calibration_is_not_valid_for_the_discrete_gaussian():
    # the example in the docstrings: ε = 5, δ = 1e-3, Δ = 1 gives σ ≈ 0.69, δ_disc ≈ 1.98e-3
    sigma = m.gaussian_sigma(1.0, 5.0, 1e-3)
    assert s.discrete_gaussian_delta(sigma**2, 1, 5.0) == pytest.approx(1.9765e-3, rel=1e-4)
    # at large σ the two agree closely, but the discrete δ still exceeds the target
    sigma = m.gaussian_sigma(1.0, 0.05, 1e-6)
    assert 1.0 < s.discrete_gaussian_delta(sigma**2, 1, 0.05) / 1e-6 < 1.001
    # δ(ε) is 0 once the threshold is beyond the support, and the TV distance at ε = 0
    assert s.discrete_gaussian_delta(1.0, 1, 1e3) == 0.0
    tv = 0.5 * np.abs(gaussian_pmf(np.arange(-60, 61), 4.0)
                      - gaussian_pmf(np.arange(-60, 61) + 1, 4.0)).sum()
    assert s.discrete_gaussian_delta(4.0, 1, 0.0) == pytest.approx(tv, rel=1e-12)


# ============================================================================ snapping
def test_snapping_outputs_lie_on_the_grid_and_in_bounds():
    # in units of Δ = 1.5: λ = 1/ε = 2 = Λ, B = 50/1.5; outputs are multiples of Λ·Δ = 3,
    # or ±B·Δ (≈ ±50, up to the rounding of 50/1.5 and back)
    out = snapping.snapping_mechanism(np.linspace(-80, 80, 2001), sensitivity=1.5, epsilon=0.5,
                               bound=50.0, rng=3)
    edge = (50.0 / 1.5) * 1.5
    assert np.all(np.abs(out) <= edge)
    inner = out[np.abs(out) < edge]
    assert inner.size > 1000 and np.all(np.fmod(inner, 3.0) == 0)
    # ε = 1/3, Δ = 1: λ = 3, Λ = 4
    out = snapping.snapping_mechanism(np.zeros(500), sensitivity=1.0, epsilon=1 / 3, bound=99.0, rng=2)
    assert np.all(np.fmod(out[np.abs(out) < 99.0], 4.0) == 0)
    # λ a power of two: Λ = λ
    out = snapping.snapping_mechanism(np.zeros(500), sensitivity=1.0, epsilon=4.0, bound=9.0, rng=1)
    assert np.all(np.fmod(out, 0.25) == 0) and np.any(np.fmod(out, 0.5) != 0)


def test_snapping_distribution_is_the_rounded_laplace():
    # ε = 1, Δ = 1: λ = Λ = 1, outputs are integers; away from the bound P[j] is the Laplace
    # mass of [j − ½, j + ½) (up to double rounding, ~1e-16). 2·10⁴ draws; chi-square.
    # (two calls of 10⁴, the most one call snaps, continue one stream: the draws of rng=11)
    n, stream = 20_000, random.Random(11)
    out = np.concatenate([snapping.snapping_mechanism(np.zeros(n // 2), sensitivity=1.0,
                                                      epsilon=1.0, bound=1000.0, rng=stream)
                          for _ in range(2)])
    assert np.all(out == np.round(out))
    pmf = lambda x: (stats.laplace.cdf(x + 0.5) - stats.laplace.cdf(x - 0.5))  # noqa: E731
    assert chi_square_pvalue(out.astype(np.int64), pmf) > P_MIN
    assert chi_square_pvalue(out.astype(np.int64),
                             lambda x: stats.laplace.cdf(x + 0.5, scale=1.2)
                             - stats.laplace.cdf(x - 0.5, scale=1.2)) < P_MIN


def test_snapping_clamps_far_answers():
    out = snapping.snapping_mechanism([1e6, -1e6], sensitivity=1.0, epsilon=1.0, bound=10.0, rng=0)
    assert np.all(np.abs(out) <= 10.0)
    assert snapping.snapping_mechanism(1e15, sensitivity=1.0, epsilon=1.0, bound=10.0, rng=0) == 10.0


def test_snapping_epsilon_is_mironovs_formula():
    eta = Fraction(1, 2**53)
    for eps, sens, bound in ((1.0, 1.0, 100.0), (0.3, 2.0, 1e6), (2.0, 0.5, 7.0)):
        lam, b = 1.0 / eps, bound / sens
        exact = (1 + 12 * Fraction(b) * eta) / Fraction(lam) + 2 * eta
        got = snapping.snapping_epsilon(eps, sensitivity=sens, bound=bound)
        assert Fraction(got) >= exact and got == pytest.approx(float(exact), rel=1e-15)
        # at most 1/λ + 2^-49·B/λ, the simplified bound [M12] states for λ < B < 2^46·λ
        assert Fraction(got) <= (1 + Fraction(b) / 2**49) / Fraction(lam) + Fraction(1, 2**50)
    assert snapping.snapping_epsilon(1.0, sensitivity=1.0, bound=100.0) - 1.0 < 1e-12


@pytest.mark.parametrize("bound", [1.0, 0.5, 2.0**46, 1e18])
def test_snapping_refuses_bounds_outside_mironovs_range(bound):
    with pytest.raises(ParameterError, match=r"bound must be in \(Δ/ε, 2\*\*46·Δ/ε\) = "):
        snapping.snapping_mechanism(0.0, sensitivity=1.0, epsilon=1.0, bound=bound)
    with pytest.raises(ParameterError, match="bound"):
        snapping.snapping_epsilon(1.0, sensitivity=1.0, bound=bound)


def test_snapping_logarithm_is_correctly_rounded():
    # LN(U*) via 50-digit decimal arithmetic equals the double nearest the true log
    # (checked with mpmath at 60 digits) on awkward inputs
    mpmath.mp.dps = 60
    for u in (0.5, 1 - 2**-53, 2**-1022, 0.3, 0.7071067811865476, 1e-300):
        got = float(Decimal(u).ln(snapping._LN_CONTEXT))
        assert got == float(mpmath.log(mpmath.mpf(u)))


# ======================================================== the secure mechanisms
def test_floating_point_mechanisms_are_numpy_noise():
    x = np.arange(6.0)
    np.testing.assert_array_equal(m.laplace_mechanism(x, 2.0, 0.5, rng=7),
                                  x + np.random.default_rng(7).laplace(0.0, 4.0, 6))
    sigma = m.gaussian_sigma(1.0, 1.0, 1e-5)
    np.testing.assert_array_equal(m.gaussian_mechanism(x, 1.0, 1.0, 1e-5, rng=7),
                                  x + np.random.default_rng(7).normal(0.0, sigma, 6))
    assert m.laplace_mechanism(1.5, 1.0, 1.0, rng=3) == \
        m.laplace_mechanism(1.5, 1.0, 1.0, rng=3)


def test_secure_laplace_outputs_on_the_grid_with_the_right_scale():
    g = 0.25
    value = np.array([0.1, 0.13, 7.0])               # rounded to 0, 0.25 (0.52 up), 7
    out = secure.secure_laplace_mechanism(np.tile(value, (1, 1)), 1.0, 2.0, rng=0,
                              granularity=g)
    assert out.shape == (1, 3) and np.all(np.fmod(out, g) == 0)
    # scalar: Δ₁ = ⌈Δ/g⌉ = 4 grid steps, scale 4/ε = 2; the noise (out − k·g)/g is DLap(2)
    n = 20_000
    noise = np.array([secure.secure_laplace_mechanism(7.0, 1.0, 2.0, rng=i, granularity=g)
                      for i in range(n)]) / g - 28
    assert np.all(noise == np.round(noise))
    assert chi_square_pvalue(noise.astype(np.int64),
                             lambda x: laplace_pmf(x, 2)) > P_MIN


def test_secure_laplace_vector_sensitivity_includes_rounding():
    # d = 4 coordinates, g = 1, Δ = 1: Δ₁ = 1 + 3 = 4 grid steps, scale 4/ε. The sample
    # variance of 4·5000 noise values vs the discrete Laplace variance 2e^{-1/t}/(1-e^{-1/t})²
    # with t = 8 (ε = 0.5): SE(s²) = √((μ₄ − σ⁴)/n), μ₄ ≈ 6σ⁴ for a Laplace; 5 SE.
    t = 8.0
    noise = secure.secure_laplace_mechanism(np.zeros((5000, 4)), 1.0, 0.5, rng=1,
                                granularity=1.0)
    # (5000 × 4 = 20000 coordinates in one call: then Δ₁ = 1 + 19999; draw row by row)
    assert np.all(noise == np.round(noise))
    rows = np.concatenate([secure.secure_laplace_mechanism(np.zeros(4), 1.0, 0.5, rng=i,
                                               granularity=1.0) for i in range(5000)])
    var = 2 * math.exp(-1 / t) / (1 - math.exp(-1 / t)) ** 2
    assert abs(rows.var() / var - 1) <= 5 * math.sqrt(5 / rows.size)
    assert noise.var() > 1000 * var              # the one big call used Δ₁ = 20000


def _zcdp_sigma2(steps, eps, delta):
    """Largest ρ with zcdp_to_epsilon(ρ, δ) ≤ ε, by an independent bisection; σ² = Δ²/(2ρ)."""
    lo, hi = 1e-8, 100.0
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if zcdp_to_epsilon(mid, delta) <= eps else (lo, mid)
    return steps**2 / (2 * lo)


@pytest.mark.parametrize("eps, delta", [(1.0, 1e-5), (0.3, 1e-8), (4.0, 1e-3)])
def test_secure_gaussian_calibration_is_zcdp_and_private(eps, delta):
    rho = secure._secure_rho(eps, delta)
    assert zcdp_to_epsilon(rho, delta) <= eps                          # private ...
    assert zcdp_to_epsilon(rho * (1 + 1e-6), delta) > eps              # ... and tight
    assert 1 / (2 * rho) == pytest.approx(_zcdp_sigma2(1, eps, delta), rel=1e-8)
    # in one dimension the exact δ of the discrete Gaussian at this σ is below the target
    for steps in (1, 3):
        assert s.discrete_gaussian_delta(steps**2 / (2 * rho), steps, eps) <= delta


def test_secure_gaussian_noise_distribution():
    # scalar, g = 1, Δ = 1: Δ₂ = 1, σ² = 1/(2ρ); 10⁴ draws against N_ℤ(0, σ²)
    eps, delta = 1.0, 1e-5
    sigma2 = 1 / (2 * secure._secure_rho(eps, delta))
    noise = np.array([secure.secure_gaussian_mechanism(0.0, 1.0, eps, delta, rng=i,
                                           granularity=1.0) for i in range(10_000)])
    assert chi_square_pvalue(noise.astype(np.int64),
                             lambda x: gaussian_pmf(x, Fraction(sigma2))) > P_MIN
    # vectors: Δ₂ = Δ/g + √d grid steps (d = 9: 1 + 3 = 4), same ρ
    out = secure.secure_gaussian_mechanism(np.zeros(9), 1.0, eps, delta, rng=0,
                               granularity=1.0)
    assert out.shape == (9,) and np.all(out == np.round(out))
    vec = np.concatenate([secure.secure_gaussian_mechanism(np.zeros(9), 1.0, eps, delta, rng=i, granularity=1.0)
                          for i in range(1500)])
    # SE(s²)/σ² = √(2/n) for a near-normal sample: 5 SE
    assert abs(vec.var() / (16 * sigma2) - 1) <= 5 * math.sqrt(2 / vec.size)


def test_secure_default_granularity_and_rounding():
    out = secure.secure_laplace_mechanism(np.full(200, 1 / 3), 1.0, 1.0, rng=0)
    assert np.all(np.fmod(out, secure.DEFAULT_GRANULARITY) == 0)
    # the noise is about Δ/ε = 1 in size: the mean of 200 draws within 5 SE (SD √2)
    assert abs(out.mean() - 1 / 3) <= 5 * math.sqrt(2 / 200)
    # ties round up; huge answers stay on the grid; empty input keeps its shape
    # (ε = 1000, g = 1: discrete Laplace of scale 1/1000 steps, P[noise ≠ 0] ≈ 2e^-1000 = 0)
    assert secure.secure_laplace_mechanism(0.5, 1.0, 1e3, rng=0, granularity=1.0) == 1.0
    assert secure.secure_laplace_mechanism(-0.5, 1.0, 1e3, rng=0, granularity=1.0) == 0.0
    assert secure.secure_laplace_mechanism(1e15, 1.0, 1e3, rng=0, granularity=1.0) == 1e15
    assert secure.secure_gaussian_mechanism(np.zeros((0, 3)), 1.0, 1.0, 1e-5).shape == (0, 3)
    assert type(secure.secure_gaussian_mechanism(2, 1.0, 1.0, 1e-5, rng=0)) is float


def test_secure_mode_refusals():
    with pytest.raises(ParameterError, match=r"delta must be .*pure DP.*got delta=0"):
        secure.secure_gaussian_mechanism(0.0, 1.0, 0.5, 0.0)
    # inside the teaching domain, a grid fine against a large sensitivity and a small ε
    # needs more grid steps of noise than the exact samplers draw: refused, naming both
    with pytest.raises(ParameterError, match=r"granularity must be coarser: the discrete Laplace "
                                             r"scale .*epsilon=.*got granularity="):
        secure.secure_laplace_mechanism(0.0, 1e6, 1e-6, granularity=2.0**-40)
    with pytest.raises(ParameterError, match=r"σ² .*2\*\*100.*granularity"):
        secure.secure_gaussian_mechanism(0.0, 1e6, 1e-6, 1e-5, granularity=2.0**-40)
    with pytest.raises(ParameterError, match=r"value must be .*100,000 of them"):
        secure.secure_laplace_mechanism(np.zeros(10**5 + 1), 1.0, 1.0)


# ============================================================== the ends of the domain
def test_known_answers_at_the_ends_of_the_domain():
    assert s.sample_discrete_laplace(1e-6, rng=1) == 0
    assert s.sample_discrete_gaussian(1e-12, rng=1) == 0
    assert laplace_pmf(0, 1e-6) == 1.0 and laplace_pmf(1, 1e-6) == 0.0
    assert gaussian_pmf(0, 1e-12) == 1.0
    assert gaussian_pmf([1e15, -1e15], 1.0).tolist() == [0.0, 0.0]
    # P[0] = tanh(1/(2t)) ≈ 1/(2t) for the largest scale t = 2**50
    assert laplace_pmf(0, 2**50) == pytest.approx(0.5 / 2**50, rel=1e-12)
    # δ(ε) = 0 once the threshold ε·σ²/Δ − Δ/2 is beyond the support
    assert s.discrete_gaussian_delta(1.0, 1, 1e3) == 0.0
    assert s.discrete_gaussian_delta(1e-12, 10**6, 0.0) == 1.0
    # the largest ε makes the secure mechanisms release the rounded answer itself
    assert secure.secure_laplace_mechanism(2.6, 1.0, 1e3, rng=0, granularity=0.5) == 2.5
    assert secure.secure_gaussian_mechanism(2.6, 1.0, 1e3, 0.5, rng=0, granularity=0.5) == 2.5
    # the most noise: answers at ±1e15 on a grid of 1e6 with ε = 1e-6, still finite
    out = secure.secure_laplace_mechanism([1e15, -1e15], 1e6, 1e-6, rng=0, granularity=1e6)
    assert np.all(np.isfinite(out)) and np.all(np.fmod(out, 1e6) == 0)


def test_returned_numbers_have_python_types():
    assert type(gaussian_normalizer(Fraction(1, 2))) is float
    assert type(s.discrete_gaussian_variance(3)) is float
    assert type(s.discrete_gaussian_delta(2, 1, 0.5)) is float
    assert type(laplace_pmf(0, 2)) is float
    assert type(snapping.snapping_epsilon(1.0, sensitivity=1.0, bound=10.0)) is float
    assert type(snapping.snapping_mechanism(1.0, sensitivity=1.0, epsilon=1.0, bound=10.0,
                                            rng=0)) is float
