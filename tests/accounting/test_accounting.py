"""Tests for dpteach.accounting: RDP curves, conversions, zCDP, PLD, calibration.

Reference values come from closed forms, from Google's dp_accounting, from
exact high-precision sums / numerical integrals (mpmath), and from the
Balle-Wang exact δ of the Gaussian mechanism.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from dp_accounting import GaussianDpEvent, PoissonSampledDpEvent, SelfComposedDpEvent
from dp_accounting.pld import pld_privacy_accountant
from dp_accounting.rdp import rdp_privacy_accountant as dpa_rdp
from hypothesis import strategies as st
from scipy import integrate, optimize

from _props import BAD_DELTA, NOT_A_NUMBER, assert_rejects_bad_values
from dpteach.accounting.rdp import (
    DEFAULT_ORDERS,
    RDPAccountant,
    gaussian_rdp,
    laplace_rdp,
    randomized_response_rdp,
)
from dpteach.accounting.pld import PLDAccountant
from dpteach.accounting.calibrate import epsilon_for_noise_multiplier, get_noise_multiplier
from dpteach.accounting.zcdp import gaussian_zcdp, pure_dp_to_zcdp, zcdp_to_epsilon
from dpteach.accounting.convert import rdp_to_delta, rdp_to_epsilon
from dpteach.accounting.sampled_gaussian import _log_a_frac, subsampled_gaussian_rdp
from dpteach.accounting.zcdp import rho_for_epsilon
from dpteach.accounting.compare import composition_epsilons, dpsgd_epsilons
from dpteach.accounting import sampled_gaussian as sgm
from dpteach._validation import ParameterError
from dpteach.mechanisms.noise import gaussian_delta

U = 2.0**-53  # float64 unit roundoff

INT_ORDERS = [2, 3, 4, 5, 8, 10, 16, 32, 50, 64, 128, 256]


def exact_gaussian_epsilon(sigma: float, delta: float) -> float:
    """ε of the Gaussian mechanism (sensitivity 1) from Balle-Wang's exact δ(ε)."""
    return optimize.brentq(lambda e: gaussian_delta(sigma, 1.0, e) - delta, 0.0, 500.0,
                           xtol=1e-14, rtol=1e-15)


def mp_log_a_int(q, sigma, alpha) -> mp.mpf:
    """ln A_α for integer α by the exact finite sum at 40 digits ([MTZ19] Sec. 3.3, Case I)."""
    with mp.workdps(40):
        q, s = mp.mpf(q), mp.mpf(sigma)
        a = sum(mp.binomial(alpha, k) * (1 - q) ** (alpha - k) * q**k
                * mp.exp(mp.mpf(k * k - k) / (2 * s**2)) for k in range(alpha + 1))
        return mp.log(a)


def mp_rdp_integral(q, sigma, alpha) -> float:
    """RDP of the sampled Gaussian from the DEFINITION, by numerical integration.

    ln E_{z~μ0}[(μ(z)/μ0(z))^α] / (α−1), μ0 = N(0,σ²), μ = (1−q)μ0 + qN(1,σ²),
    integrated with mpmath.quad at 30 digits (tanh-sinh), the line split at the
    points where the integrand changes shape (0, 1/2, 1, z0, ±10σ).
    """
    with mp.workdps(30):
        q, s, a = mp.mpf(q), mp.mpf(sigma), mp.mpf(alpha)
        z0 = s**2 * mp.log(1 / q - 1) + mp.mpf(1) / 2

        def f(z):
            l0 = -z**2 / (2 * s**2)
            ratio = (1 - q) + q * mp.exp((2 * z - 1) / (2 * s**2))
            return mp.exp(l0) / (mp.sqrt(2 * mp.pi) * s) * ratio**a

        pts = sorted({-mp.inf, -10 * s, mp.mpf(0), mp.mpf(1) / 2, mp.mpf(1), z0, z0 + 10 * s, mp.inf})
        return float(mp.log(mp.quad(f, pts)) / (a - 1))


# ---------------------------------------------------------------------------
# Subsampled Gaussian RDP
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("q", [1e-4, 0.004, 0.01, 0.1, 0.5, 0.9])
@pytest.mark.parametrize("sigma", [0.5, 1.1, 2.0, 5.0])
def test_integer_orders_exact_against_40_digit_sum(q, sigma):
    # Our integer-order sum is over A−1 with positive terms only, so it keeps
    # relative precision ~ (number of terms) · u even when A−1 is tiny.
    ours = subsampled_gaussian_rdp(INT_ORDERS, sigma, q)
    for a, r in zip(INT_ORDERS, ours):
        ref = float(mp_log_a_int(q, sigma, a) / (a - 1))
        assert r == pytest.approx(ref, rel=1e-12, abs=0), (q, sigma, a)


@pytest.mark.parametrize("q", [0.004, 0.01, 0.1, 0.5, 0.9])
@pytest.mark.parametrize("sigma", [0.5, 1.1, 2.0, 5.0])
def test_integer_orders_match_dp_accounting(q, sigma):
    """Compose PoissonSampledDpEvent(q, GaussianDpEvent(σ)) in dp_accounting's RdpAccountant."""
    acc = dpa_rdp.RdpAccountant(orders=INT_ORDERS)
    acc.compose(PoissonSampledDpEvent(q, GaussianDpEvent(sigma)))
    ref = np.asarray(acc._rdp)
    ours = subsampled_gaussian_rdp(INT_ORDERS, sigma, q)
    # dp_accounting sums A itself (not A−1), so its ln A carries an absolute
    # rounding error ~ α·u; compare at 1e-9 relative where that is negligible:
    # (α·u)/(α−1) / rdp < 1e-10 holds for every case kept here.
    keep = (INT_ORDERS_ARR * U) / (INT_ORDERS_ARR - 1) < 1e-10 * ref
    assert keep.sum() >= 6
    np.testing.assert_allclose(ours[keep], ref[keep], rtol=1e-9, atol=0)


INT_ORDERS_ARR = np.asarray(INT_ORDERS, dtype=float)


# Fractional orders against the defining integral. NUMERICAL-INTEGRATION TEST
# (mpmath.quad at 30 digits; ~1 s in total). Tolerance: our series result is
# exact up to float rounding of A (relative error a few u, each term being
# rounded once and the sum having at most ~1e5 terms of decreasing size), so
# |Δ rdp| ≤ 64u/(α−1) in absolute terms, or 1e-10 relative, whichever is larger.
FRACTIONAL_CASES = [
    (0.01, 2.5, 1.5), (0.01, 2.5, 2.5), (0.4, 12.0, 58.75), (0.1, 0.7, 1.25),
    (0.5, 0.5, 1.5), (0.01, 1.1, 1.25), (0.004, 1.1, 3.75), (0.9, 3.0, 7.5),
    (0.99, 0.3, 1.75), (0.2, 2.0, 9.75),
]


@pytest.mark.parametrize("q,sigma,alpha", FRACTIONAL_CASES)
def test_fractional_orders_match_numerical_integral(q, sigma, alpha):
    ours = subsampled_gaussian_rdp([alpha], sigma, q)[0]
    ref = mp_rdp_integral(q, sigma, alpha)
    assert abs(ours - ref) <= max(1e-10 * ref, 64 * U / (alpha - 1)), (ours, ref)


def test_no_early_stopping_regression_q04_sigma12_alpha5875():
    # At q=0.4, σ=12, α=58.75 the first series term is (1−q)^α Φ(z0/σ) ≈ e^{-30.0}:
    # a rule "stop when a term is below e^{-30}" stops at once and returns a
    # NEGATIVE RDP (as a published implementation did). Ours keeps summing.
    assert 58.75 * math.log(0.6) < -30
    ours = subsampled_gaussian_rdp([58.75], 12.0, 0.4)[0]
    assert ours > 0
    ref = mp_rdp_integral(0.4, 12.0, 58.75)
    assert ours == pytest.approx(ref, rel=1e-10)


def test_fractional_is_between_neighbouring_integer_orders():
    # RDP is non-decreasing in α (van Erven & Harremoës 2014, Thm 3).
    orders = [2, 2.25, 2.5, 2.75, 3, 7.5, 8, 8.5]
    for q, sigma in [(0.01, 1.0), (0.3, 0.8), (0.05, 4.0)]:
        r = subsampled_gaussian_rdp(orders, sigma, q)
        assert np.all(np.diff(r) >= 0), (q, sigma, r)


def test_published_dp_accounting_values_q001_sigma25_50_steps():
    """dp_accounting's own test (rdp_privacy_accountant_test): Poisson q=0.01, σ=2.5, 50 steps.

    Published: [6.70579741e-4, 1.08548710e-3, 2.18075656e-3, 2.38460375e-2, 167.416308]
    at orders [1.5, 2.5, 5, 50, 100]. Integer orders agree to the 9 published
    digits. At the fractional orders dp_accounting adds the ABSOLUTE values of
    the series terms (it drops the negative signs of the generalized binomial
    coefficients C(α,k), k > α), so its values are upper bounds: ours are
    6.50070897e-4 (3.1 % lower) at α=1.5 and 1.08541806e-3 (0.0064 % lower) at
    α=2.5, and both agree with the numerical integral of the definition
    (test_fractional_orders_match_numerical_integral, first two cases).
    """
    orders = [1.5, 2.5, 5, 50, 100]
    published = np.array([6.70579741e-04, 1.08548710e-03, 2.18075656e-03, 2.38460375e-02, 167.416308])
    ours = 50 * subsampled_gaussian_rdp(orders, 2.5, 0.01)
    np.testing.assert_allclose(ours[2:], published[2:], rtol=1e-8)   # 9 significant digits
    assert ours[0] < published[0] and ours[1] < published[1]
    np.testing.assert_allclose(ours[:2], [6.50070897e-4, 1.08541806e-3], rtol=1e-8)
    for a, r in zip(orders[:2], ours[:2]):
        assert r / 50 == pytest.approx(mp_rdp_integral(0.01, 2.5, a), rel=1e-10)


def test_fractional_series_is_upper_bracket_of_partial_sums():
    # Loosening the stopping tolerance may only move the result UP (we stop after
    # a positive term of an alternating tail), never below the converged value.
    for q, sigma, a in [(0.1, 0.7, 1.25), (0.01, 1.1, 1.5), (0.5, 0.5, 2.5)]:
        tight = _log_a_frac(q, sigma, a)
        for tol in (1e-6, 1e-9, 1e-12):
            assert _log_a_frac(q, sigma, a, rel_tol=tol) >= tight - 4 * U


def test_sample_rate_edge_cases():
    orders = [1.5, 2, 10]
    np.testing.assert_array_equal(subsampled_gaussian_rdp(orders, 1.3, 0.0), 0.0)
    np.testing.assert_allclose(subsampled_gaussian_rdp(orders, 1.3, 1.0), gaussian_rdp(orders, 1.3))
    # q → 1 is continuous
    np.testing.assert_allclose(subsampled_gaussian_rdp(orders, 1.3, 1 - 1e-9),
                               gaussian_rdp(orders, 1.3), rtol=1e-6)


def test_subsampled_rdp_is_read_only_and_cached():
    r = subsampled_gaussian_rdp(DEFAULT_ORDERS, 1.0, 0.02)
    with pytest.raises(ValueError):
        r[0] = 1.0
    assert subsampled_gaussian_rdp(DEFAULT_ORDERS, 1.0, 0.02) is r


# ---------------------------------------------------------------------------
# Closed-form curves
# ---------------------------------------------------------------------------

def test_gaussian_rdp_closed_form():
    np.testing.assert_allclose(gaussian_rdp([2, 10.5], sigma=2.0, sensitivity=3.0),
                               [2 * 9 / 8, 10.5 * 9 / 8])


def _renyi_numeric(p, q_, alpha, lo, hi):
    val, _ = integrate.quad(lambda x: p(x) ** alpha * q_(x) ** (1 - alpha), lo, hi,
                            points=[0.0, 1.0], limit=200, epsabs=0, epsrel=1e-12)
    return math.log(val) / (alpha - 1)


@pytest.mark.parametrize("b", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("alpha", [1.5, 2.0, 7.25])
def test_laplace_rdp_matches_numerical_divergence(b, alpha):
    # D_α(Lap(1, b) || Lap(0, b)) by quadrature; [M17] Prop. 6 says it equals laplace_rdp.
    def p(x):
        return math.exp(-abs(x - 1) / b) / (2 * b)

    def q_(x):
        return math.exp(-abs(x) / b) / (2 * b)

    ref = _renyi_numeric(p, q_, alpha, -60 * b, 60 * b)
    assert laplace_rdp([alpha], scale=b)[0] == pytest.approx(ref, rel=1e-8)


def test_laplace_rdp_large_orders_stable_and_increasing():
    orders = np.array([1.01, 2, 10, 1e3, 1e6, 1e9])
    r = laplace_rdp(orders, scale=0.1)            # ε = 10 per query
    assert np.all(np.isfinite(r))
    assert np.all(np.diff(r) > 0)
    assert r[-1] < 10 and r[-1] == pytest.approx(10, rel=1e-6)
    assert laplace_rdp([2], scale=2.0, sensitivity=4.0)[0] == pytest.approx(laplace_rdp([2], 0.5)[0])


@pytest.mark.parametrize("p", [0.6, 0.75, 0.95])
def test_randomized_response_rdp(p):
    for alpha in [1.5, 2, 20]:
        ref = math.log(p**alpha * (1 - p) ** (1 - alpha) + (1 - p) ** alpha * p ** (1 - alpha)) / (alpha - 1)
        assert randomized_response_rdp([alpha], p)[0] == pytest.approx(ref, rel=1e-13)
    # symmetric, and increases to the pure-DP ε = ln(p/(1-p))
    np.testing.assert_allclose(randomized_response_rdp([3], p), randomized_response_rdp([3], 1 - p))
    assert randomized_response_rdp([1e8], p)[0] == pytest.approx(math.log(p / (1 - p)), rel=1e-6)


# ---------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------

def test_classic_conversion_closed_form():
    orders = np.array([2.0, 5.0, 20.0])
    rdp = np.array([0.1, 0.3, 1.0])
    eps, order = rdp_to_epsilon(orders, rdp, 1e-5, conversion="classic")
    per_order = rdp + math.log(1e5) / (orders - 1)
    assert eps == pytest.approx(per_order.min()) and order == orders[per_order.argmin()]


def test_improved_conversion_matches_dp_accounting_and_beats_classic():
    rng = np.random.default_rng(0)
    orders = np.array(DEFAULT_ORDERS, dtype=float)
    for _ in range(20):
        sigma, q, steps = rng.uniform(0.6, 3), rng.uniform(0.001, 0.2), int(rng.integers(1, 5000))
        rdp = steps * subsampled_gaussian_rdp(orders, sigma, q)
        delta = 10 ** rng.uniform(-9, -3)
        ours, _ = rdp_to_epsilon(orders, rdp, delta)
        ref, _ = dpa_rdp.compute_epsilon(orders, rdp, delta)
        classic, _ = rdp_to_epsilon(orders, rdp, delta, conversion="classic")
        assert ours == pytest.approx(ref, rel=1e-12) and ours <= classic


def test_rdp_to_delta_inverts_rdp_to_epsilon():
    orders = np.array(DEFAULT_ORDERS, dtype=float)
    rdp = 1000 * subsampled_gaussian_rdp(orders, 1.0, 0.01)
    for conv in ("improved", "classic"):
        eps, order = rdp_to_epsilon(orders, rdp, 1e-6, conversion=conv)
        d, _ = rdp_to_delta(orders, rdp, eps, conversion=conv)
        assert d == pytest.approx(1e-6, rel=1e-9)


def test_gaussian_rdp_epsilon_is_at_least_exact_balle_wang():
    # Any valid conversion must give ε ≥ the exact ε of the mechanism.
    for sigma in [0.5, 1.0, 2.0, 8.0]:
        for delta in [1e-3, 1e-6, 1e-9]:
            exact = exact_gaussian_epsilon(sigma, delta)
            rdp_eps = rdp_to_epsilon(DEFAULT_ORDERS, gaussian_rdp(DEFAULT_ORDERS, sigma), delta)[0]
            assert exact <= rdp_eps <= 1.2 * exact + 0.05, (sigma, delta)


@pytest.mark.parametrize("sigma", [300.0, 1000.0, 3000.0])
@pytest.mark.parametrize("conversion", ["improved", "classic"])
def test_small_divergence_shortcut_is_sound_for_a_very_noisy_gaussian(sigma, conversion):
    # Regime of the (0, δ) shortcut: r(α) is tiny, but the Gaussian's total variation
    # TV = 2Φ(1/(2σ)) − 1 ≈ 0.4/σ is still far above δ = 1e-5, so (0, δ)-DP is FALSE and
    # every sound conversion must return ε > 0 (in fact ≥ the exact Balle–Wang ε), and a
    # δ at ε = 0 of at least TV. The shortcut may only fire when 1 − e^{−r} ≤ δ²
    # (TV ≤ √(1 − e^{−KL}) ≤ √(1 − e^{−r}) ≤ δ); with δ instead of δ² it fires here.
    delta = 1e-5
    tv = float(gaussian_delta(sigma, 1.0, 0.0))
    assert tv > 10 * delta
    rdp = gaussian_rdp(DEFAULT_ORDERS, sigma)
    eps = rdp_to_epsilon(DEFAULT_ORDERS, rdp, delta, conversion)[0]
    assert eps >= exact_gaussian_epsilon(sigma, delta) > 0
    d0 = rdp_to_delta(DEFAULT_ORDERS, rdp, 0.0, conversion)[0]
    assert d0 >= tv
    if conversion == "classic":
        # classic δ(α) = e^{(α−1) r(α)} ≥ 1 at ε = 0, so the Bretagnolle–Huber value
        # √(1 − e^{−r}) at the smallest order is what is returned
        assert d0 == pytest.approx(math.sqrt(-math.expm1(-rdp.min())), rel=1e-12)


# ---------------------------------------------------------------------------
# zCDP
# ---------------------------------------------------------------------------

def test_zcdp_gaussian_and_conversions():
    assert gaussian_zcdp(2.0, sensitivity=3.0) == pytest.approx(9 / 8)
    assert pure_dp_to_zcdp(0.5) == pytest.approx(0.125)
    rho = 0.3
    bs = zcdp_to_epsilon(rho, 1e-5, method="bun-steinke")
    assert bs == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1e5)))
    cks = zcdp_to_epsilon(rho, 1e-5)
    assert cks < bs
    # A Gaussian with σ = 1/√(2ρ) is exactly ρ-zCDP, so no valid conversion may
    # report less than its exact ε; and CKS (continuous α) beats the RDP order grid.
    sigma = 1 / math.sqrt(2 * rho)
    assert exact_gaussian_epsilon(sigma, 1e-5) <= cks
    grid = rdp_to_epsilon(DEFAULT_ORDERS, gaussian_rdp(DEFAULT_ORDERS, sigma), 1e-5)[0]
    assert cks <= grid + 1e-12
    assert zcdp_to_epsilon(0.0, 1e-5) == 0.0


@pytest.mark.parametrize("method", ["cks", "bun-steinke"])
def test_rho_for_epsilon_inverts_zcdp_to_epsilon(method):
    epsilons = [1e-4, 0.01, 0.1, 0.5, 1.0, 3.0, 10.0, 100.0, 1e4]
    by_delta = []
    for delta in (1e-12, 1e-6, 1e-3, 0.1):
        rhos = [rho_for_epsilon(eps, delta, method) for eps in epsilons]
        for eps, rho in zip(epsilons, rhos):
            got = zcdp_to_epsilon(rho, delta, method)
            assert type(rho) is float and rho > 0
            # feasible, and tight: ρ is found to a relative 1e-12 (CKS, Brent's method) or
            # to the last ulp (Bun–Steinke). The CKS conversion is a sum of terms of the
            # size of ρ that cancel down to ε when δ is large (δ = 0.1, ε = 1e-4: ρ ≈ 0.014),
            # so ε is resolved to ~1e-12 of ε + ρ, not of ε; 1e-9 of it leaves a wide margin
            assert eps - 1e-9 * (eps + rho) <= got <= eps, (eps, delta)
        assert np.all(np.diff(rhos) > 0)          # a larger ε allows a larger ρ
        by_delta.append(rhos)
    assert np.all(np.diff(by_delta, axis=0) > 0)  # ... and so does a larger δ
    # the round trip the other way: ε of a given ρ gives back that ρ
    for rho in (1e-6, 0.01, 0.3, 5.0):
        eps = zcdp_to_epsilon(rho, 1e-5, method)
        assert rho_for_epsilon(eps, 1e-5, method) == pytest.approx(rho, rel=1e-9)


def test_rho_for_epsilon_closed_form_and_cks_budget():
    # Bun–Steinke solved for ρ: (√(L + ε) − √L)², L = ln(1/δ); the last double with ε(ρ) ≤ ε
    eps, delta = 1.0, 1e-5
    L = math.log(1 / delta)
    bs = rho_for_epsilon(eps, delta, "bun-steinke")
    assert bs == pytest.approx((math.sqrt(L + eps) - math.sqrt(L)) ** 2, rel=1e-14)
    assert zcdp_to_epsilon(math.nextafter(bs, math.inf), delta, "bun-steinke") > eps
    # CKS converts every ρ to less than Bun–Steinke does, so it allows a larger budget
    assert rho_for_epsilon(eps, delta) > bs * 1.1


@pytest.mark.parametrize("method", ["cks", "bun-steinke"])
@pytest.mark.parametrize("eps", [1e-6, 1e4])
@pytest.mark.parametrize("delta", [1e-50, 0.5, 1 - 2**-53])
def test_rho_for_epsilon_at_the_domain_edges_is_feasible_and_largest(method, eps, delta):
    # feasible (its conversion is at most ε), and the largest up to a relative 1e-9: a ρ
    # larger by that much converts to more than ε. Bun–Steinke also against its closed form
    # (√(L + ε) − √L)² = (ε/(√(L + ε) + √L))², L = ln(1/δ), in 60-digit mpmath.
    rho = rho_for_epsilon(eps, delta, method)
    assert type(rho) is float and 0 < rho < math.inf
    assert zcdp_to_epsilon(rho, delta, method) <= eps
    assert zcdp_to_epsilon(rho * (1 + 1e-9), delta, method) > eps
    if method == "bun-steinke":
        with mp.workdps(60):
            L, e = -mp.log(mp.mpf(delta)), mp.mpf(eps)
            assert rho == pytest.approx(float((e / (mp.sqrt(L + e) + mp.sqrt(L))) ** 2),
                                        rel=1e-12)
    else:
        assert rho >= rho_for_epsilon(eps, delta, "bun-steinke")


def test_rho_for_epsilon_search_is_bounded(monkeypatch):
    # A hang guard that counts conversions instead of reading the clock: ≤ 200 halvings,
    # 64 doublings then ≤ 11 bisections on the exponent, brentq ≤ 500, 65 ulp steps. Near
    # δ = 1 the CKS budget is ~10⁷ times the Bun–Steinke one (the doubling's hard case).
    import dpteach.accounting.zcdp as zcdp_module

    calls, inner = [], zcdp_module.zcdp_to_epsilon.__wrapped__
    monkeypatch.setattr(zcdp_module.zcdp_to_epsilon, "__wrapped__",
                        lambda *a: calls.append(a) or inner(*a))
    for eps, delta in [(1e-6, 1 - 2**-53), (1e-6, 0.5), (1e4, 1e-50)]:
        calls.clear()
        rho = rho_for_epsilon(eps, delta)
        assert 0 < len(calls) <= 200 + 64 + 11 + 500 + 65, (eps, delta, len(calls))
        assert zcdp_to_epsilon(rho, delta) <= eps


# ---------------------------------------------------------------------------
# Accountants
# ---------------------------------------------------------------------------

def test_rdp_accountant_composes_additively_and_matches_dp_accounting():
    acc = RDPAccountant(orders=INT_ORDERS)
    for _ in range(10):
        acc.step(noise_multiplier=1.1, sample_rate=0.01)
    acc.step(noise_multiplier=2.0, sample_rate=1.0, steps=3)
    one = RDPAccountant(orders=INT_ORDERS)
    one.step(noise_multiplier=1.1, sample_rate=0.01, steps=10)
    one.step(noise_multiplier=2.0, sample_rate=1.0, steps=3)
    np.testing.assert_allclose(acc.get_rdp(), one.get_rdp(), rtol=1e-14)
    assert len(acc.history) == 11 and acc.history[-1].steps == 3

    ref = dpa_rdp.RdpAccountant(orders=INT_ORDERS)
    ref.compose(SelfComposedDpEvent(PoissonSampledDpEvent(0.01, GaussianDpEvent(1.1)), 10))
    ref.compose(SelfComposedDpEvent(GaussianDpEvent(2.0), 3))
    eps, order = acc.get_epsilon_and_order(1e-5)
    ref_eps, ref_order = ref.get_epsilon_and_optimal_order(1e-5)
    assert eps == pytest.approx(ref_eps, rel=1e-9) and order == ref_order


def test_rdp_accountant_dpsgd_example_and_monotonicity():
    acc = RDPAccountant()
    acc.step(noise_multiplier=1.1, sample_rate=256 / 60_000, steps=15_000)
    eps, order = acc.get_epsilon_and_order(1e-5)
    assert 1 < order < 64
    assert eps == pytest.approx(acc.get_epsilon(1e-5))
    assert acc.get_epsilon(1e-5, conversion="classic") > eps
    assert acc.get_delta(eps) == pytest.approx(1e-5, rel=1e-6)
    more_noise = epsilon_for_noise_multiplier(noise_multiplier=1.3, delta=1e-5,
                                              sample_rate=256 / 60_000, steps=15_000)
    assert more_noise < eps
    assert RDPAccountant().get_epsilon(1e-5) == 0.0


def test_rdp_accountant_compose_rdp():
    acc = RDPAccountant()
    acc.compose_rdp(laplace_rdp(acc.orders, scale=10.0), count=5)
    ref = 5 * laplace_rdp(acc.orders, scale=10.0)
    np.testing.assert_allclose(acc.get_rdp(), ref)
    with pytest.raises(ValueError, match="one value per order"):
        acc.compose_rdp([0.1, 0.2])


def test_pld_accountant_equals_dp_accounting_directly():
    ours = PLDAccountant(value_discretization_interval=1e-3)
    ours.step(noise_multiplier=1.0, sample_rate=0.02, steps=500)
    ref = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-3)
    ref.compose(SelfComposedDpEvent(PoissonSampledDpEvent(0.02, GaussianDpEvent(1.0)), 500))
    assert ours.get_epsilon(1e-5) == ref.get_epsilon(1e-5)
    assert ours.get_delta(1.0) == ref.get_delta(1.0)


@pytest.mark.parametrize("sigma,k", [(1.0, 1), (0.5, 1), (3.0, 10)])
def test_gaussian_pld_close_to_exact_and_rdp_above(sigma, k):
    # k Gaussians with σ compose to one Gaussian with σ/√k; Balle-Wang gives its exact ε.
    exact = exact_gaussian_epsilon(sigma / math.sqrt(k), 1e-5)
    pld = PLDAccountant(value_discretization_interval=1e-4)
    pld.step(noise_multiplier=sigma, sample_rate=1.0, steps=k)
    rdp = RDPAccountant()
    rdp.step(noise_multiplier=sigma, sample_rate=1.0, steps=k)
    pe = pld.get_epsilon(1e-5)
    # pessimistic discretization: an upper bound, off by at most one grid step
    assert exact - 1e-10 <= pe <= exact + 1e-4
    assert rdp.get_epsilon(1e-5) > pe


def test_pld_tighter_than_rdp_for_dpsgd():
    kw = dict(noise_multiplier=1.1, sample_rate=256 / 60_000, steps=3000)
    pld = PLDAccountant(value_discretization_interval=1e-3)
    pld.step(**kw)
    rdp = RDPAccountant()
    rdp.step(**kw)
    assert pld.get_epsilon(1e-5) < rdp.get_epsilon(1e-5)


# ---------------------------------------------------------------------------
# get_noise_multiplier
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("target,q,steps", [(1.0, 0.004, 15_000), (3.0, 256 / 60_000, 15_000),
                                             (8.0, 0.01, 1000), (0.5, 1.0, 1), (2.0, 0.1, 100)])
def test_get_noise_multiplier_never_exceeds_and_is_nearly_minimal(target, q, steps):
    kw = dict(delta=1e-5, sample_rate=q, steps=steps)
    sigma = get_noise_multiplier(target_epsilon=target, target_delta=1e-5, sample_rate=q,
                                 steps=steps, rtol=1e-4)
    assert epsilon_for_noise_multiplier(noise_multiplier=sigma, **kw) <= target
    assert epsilon_for_noise_multiplier(noise_multiplier=sigma / (1 + 2e-4), **kw) > target


def test_get_noise_multiplier_pld():
    kw = dict(delta=1e-5, sample_rate=0.01, steps=500, accountant="pld",
              value_discretization_interval=1e-3)
    sigma = get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01,
                                 steps=500, accountant="pld", value_discretization_interval=1e-3,
                                 rtol=1e-3)
    assert epsilon_for_noise_multiplier(noise_multiplier=sigma, **kw) <= 2.0
    assert epsilon_for_noise_multiplier(noise_multiplier=sigma / (1 + 2e-3), **kw) > 2.0
    assert sigma < get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01,
                                        steps=500)


def test_get_noise_multiplier_unreachable_target():
    with pytest.raises(ValueError, match="not reachable"):
        get_noise_multiplier(target_epsilon=1e-3, target_delta=1e-5, sample_rate=0.5, steps=10_000)


# ---------------------------------------------------------------------------
# Side-by-side comparisons (dpteach.accounting.compare) and their plots
# ---------------------------------------------------------------------------

def test_gaussian_epsilon_inverts_balle_wang():
    from dpteach.mechanisms.noise import gaussian_epsilon

    for sigma, delta in [(1.0, 1e-5), (0.3, 1e-3), (20.0, 1e-9)]:
        e = gaussian_epsilon(sigma, delta)
        assert gaussian_delta(sigma, 1.0, e) <= delta
        assert gaussian_delta(sigma, 1.0, e * (1 - 1e-9)) > delta
    assert gaussian_epsilon(1000.0, 0.5) == 0.0        # δ(0) = TV already ≤ δ


def test_composition_epsilons_laplace_orderings():
    from dpteach.accounting.compare import composition_epsilons

    ks = [1, 2, 10, 100, 500]
    c = composition_epsilons(ks, mechanism="laplace", epsilon=0.1, delta=1e-5)
    np.testing.assert_allclose(c["basic"], 0.1 * np.array(ks))
    # KOV is optimal over all 0.1-DP mechanisms: never above basic or advanced.
    assert np.all(c["optimal"] <= c["basic"] + 1e-12)
    assert np.all(c["optimal"] <= c["advanced"] + 1e-12)
    # Laplace is one such mechanism, so its (pessimistic) PLD may not exceed KOV
    # beyond the discretization error (grid 1e-3 per composition: < 0.1 %).
    assert np.all(c["pld"] <= c["optimal"] * (1 + 1e-3))


def test_composition_epsilons_gaussian_uses_exact_pld():
    from dpteach.accounting.compare import composition_epsilons

    c = composition_epsilons([1, 10], mechanism="gaussian", sigma=3.0, delta=1e-5)
    for i, k in enumerate([1, 10]):
        acc = PLDAccountant(value_discretization_interval=1e-4)
        acc.step(noise_multiplier=3.0, sample_rate=1.0, steps=k)
        assert c["pld"][i] <= acc.get_epsilon(1e-5) <= c["pld"][i] + 1e-4
    assert np.all(c["rdp"] > c["pld"])
    assert np.all(c["optimal"] <= c["basic"] + 1e-12)
    # the classic methods spend exactly the total δ: δ₀ = δ/(2k) per query, slack δ' = δ/2
    from dpteach.mechanisms.noise import gaussian_epsilon
    from dpteach.accounting.composition import advanced_composition, optimal_composition_delta

    for i, k in enumerate([1, 10]):
        d0 = 1e-5 / (2 * k)
        eps0 = gaussian_epsilon(3.0, d0)
        assert c["basic"][i] == pytest.approx(k * eps0, rel=1e-12)
        e_adv, d_adv = advanced_composition(eps0, d0, k, 1e-5 / 2)
        assert c["advanced"][i] == pytest.approx(e_adv, rel=1e-12)
        assert d_adv == pytest.approx(1e-5, rel=1e-12)
        assert optimal_composition_delta(eps0, d0, k, c["optimal"][i]) <= 1e-5
    with pytest.raises(ValueError, match="sigma"):
        composition_epsilons([1], mechanism="gaussian")
    with pytest.raises(ValueError, match="ks"):
        composition_epsilons([0, 2], mechanism="laplace", epsilon=1.0)


def test_dpsgd_epsilons_match_accountants():
    from dpteach.accounting.compare import dpsgd_epsilons

    out = dpsgd_epsilons([10, 1000], noise_multiplier=1.0, sample_rate=0.01, delta=1e-6)
    for i, t in enumerate([10, 1000]):
        rdp = RDPAccountant()
        rdp.step(noise_multiplier=1.0, sample_rate=0.01, steps=t)
        assert out["rdp"][i] == pytest.approx(rdp.get_epsilon(1e-6), rel=1e-12)
        pld = PLDAccountant(value_discretization_interval=1e-3)
        pld.step(noise_multiplier=1.0, sample_rate=0.01, steps=t)
        assert out["pld"][i] == pld.get_epsilon(1e-6)


def test_accounting_plots_are_labelled():
    from matplotlib.figure import Figure

    from dpteach.plots.accounting import plot_amplification, plot_composition, plot_dpsgd_epsilon

    fig = plot_composition(200, epsilon=0.5, delta=1e-6, mark_k=50)
    ax = fig.axes[0]
    assert isinstance(fig, Figure) and len(ax.get_legend().get_texts()) == 5
    assert "δ" in ax.get_title() and ax.get_xlabel() and ax.get_ylabel()
    fig = plot_composition(50, mechanism="gaussian", epsilon=None, sigma=2.0, methods=("rdp", "pld"))
    assert len(fig.axes[0].get_legend().get_texts()) == 2
    fig = plot_dpsgd_epsilon(2000, noise_multiplier=1.0, sample_rate=0.01, pld_points=3)
    assert "σ" in fig.axes[0].get_title() and len(fig.axes[0].lines) == 2
    fig = plot_amplification((1.0,))
    assert fig.axes[0].get_xlabel() == "sampling rate q (log scale)"


def test_composition_data_numbers_labels_and_renderers():
    import json

    from dpteach.accounting.compare import METHOD_LABELS, composition_epsilons
    from dpteach.plots.accounting import composition_data
    from dpteach.plots.figure import to_matplotlib, to_vega_lite

    # off the app's grid (ε₀ = 0.4): everything computed by the library
    data = composition_data(300, epsilon=0.4, delta=1e-6, mark_k=2000)
    ks = data.extra["ks"]
    assert ks[0] == 1 and ks[-1] == 2000 and 300 in ks        # the curves reach the mark
    ref = composition_epsilons(ks, epsilon=0.4, delta=1e-6)
    for m in ("basic", "advanced", "optimal", "rdp", "pld"):
        s = data.series_by_key(m)
        assert s.label == METHOD_LABELS[m] and np.array_equal(s.x, ks)
        assert np.array_equal(s.y, ref[m])
        assert data.extra["at_mark"][m] == ref[m][-1]
    assert data.series[-1].key == "optimal"                     # drawn above RDP and PLD
    assert data.series_by_key("basic").y[-1] == 2000 * 0.4
    assert data.rules[0].key == "mark_k" and data.rules[0].value == 2000
    assert data.title == "Composition of k Laplace queries, ε₀ = 0.4 each; total δ = 1e-06"
    assert data.log_x and data.log_y and "k" in data.x_title and "ε" in data.y_title
    fig = to_matplotlib(data)
    assert [line.get_gid() for line in fig.axes[0].lines] == [
        "basic", "advanced", "rdp", "pld", "optimal", "mark_k"]
    spec = to_vega_lite(data)
    json.dumps(spec)
    assert spec["title"]["text"] == data.title
    # Gaussian queries, a subset of methods, no mark
    data = composition_data(50, mechanism="gaussian", epsilon=None, sigma=2.0,
                            methods=("rdp", "pld"))
    assert [s.key for s in data.series] == ["rdp", "pld"] and "at_mark" not in data.extra
    assert "σ = 2" in data.title and "δ = 1e-05" in data.title
    ref = composition_epsilons(data.extra["ks"], mechanism="gaussian", sigma=2.0,
                               methods=("rdp", "pld"))
    assert np.array_equal(data.series_by_key("pld").y, ref["pld"])


def test_dpsgd_epsilon_data_numbers_labels_and_renderers():
    import json

    from dpteach._validation import ParameterError
    from dpteach.accounting.compare import dpsgd_epsilons
    from dpteach.plots.accounting import dpsgd_epsilon_data
    from dpteach.plots.figure import to_matplotlib, to_vega_lite

    data = dpsgd_epsilon_data(3000, noise_multiplier=1.3, sample_rate=0.02, delta=1e-6,
                              pld_steps=[10, 777], mark_steps=777)
    rdp, pld = data.series_by_key("rdp"), data.series_by_key("pld")
    assert rdp.x[0] == 1 and rdp.x[-1] == 3000 and 777 in rdp.x
    ref = dpsgd_epsilons(rdp.x, noise_multiplier=1.3, sample_rate=0.02, delta=1e-6,
                         accountants=("rdp",))["rdp"]
    assert np.array_equal(rdp.y, ref)
    assert pld.kind == "points" and pld.x.tolist() == [10, 777]
    ref = dpsgd_epsilons([10, 777], noise_multiplier=1.3, sample_rate=0.02, delta=1e-6,
                         accountants=("pld",))["pld"]
    assert np.array_equal(pld.y, ref)
    acc = RDPAccountant()
    acc.step(noise_multiplier=1.3, sample_rate=0.02, steps=777)
    assert data.extra["at_mark"] == {"rdp": acc.get_epsilon(1e-6), "pld": ref[1]}
    assert data.title == "DP-SGD accounting: q = 0.02, σ = 1.3, δ = 1e-06"
    assert data.log_x and not data.log_y and data.rules[0].key == "mark_steps"
    assert [line.get_gid() for line in to_matplotlib(data).axes[0].lines] == [
        "rdp", "pld", "mark_steps"]
    assert json.dumps(to_vega_lite(data))
    # pld_points (the notebook's way): log-spaced; 0 for RDP only
    data = dpsgd_epsilon_data(1000, noise_multiplier=1.0, sample_rate=0.01, pld_points=3)
    assert data.series_by_key("pld").x.tolist() == [1, 32, 1000]
    data = dpsgd_epsilon_data(1000, noise_multiplier=1.0, sample_rate=0.01, pld_points=0)
    assert [s.key for s in data.series] == ["rdp"] and not data.rules
    with pytest.raises(ParameterError, match="pld_steps"):
        dpsgd_epsilon_data(100, pld_steps=[0, 5])
    with pytest.raises(ParameterError, match="pld_steps"):
        dpsgd_epsilon_data(100, pld_steps=[1.5])
    with pytest.raises(TypeError):
        dpsgd_epsilon_data(100, pld_steps="10")


def test_accounting_data_functions_reject_bad_input():
    from _props import BAD_CHOICE, BAD_POSITIVE, BAD_PROB, bad_int
    from dpteach.plots.accounting import (
        composition_data,
        dpsgd_epsilon_data,
        planner_pld_steps,
        planner_run,
    )

    bad_delta = st.one_of(BAD_DELTA, NOT_A_NUMBER, st.just(0.0))
    opt_int = lambda lo, hi: bad_int(lo, hi).filter(lambda v: v is not None)  # noqa: E731
    comp = dict(k_max=20, epsilon=0.1, methods=("basic", "rdp"))
    cases = [
        (composition_data, comp, "k_max", bad_int(2, 100_000)),
        (composition_data, comp, "mechanism", BAD_CHOICE),
        (composition_data, comp, "epsilon", BAD_POSITIVE),
        (composition_data, {**comp, "methods": ("pld",)}, "epsilon", BAD_POSITIVE),
        (composition_data, {**comp, "mechanism": "gaussian", "epsilon": None, "sigma": 2.0},
         "sigma", BAD_POSITIVE),
        (composition_data, comp, "delta", bad_delta),
        (composition_data, {**comp, "methods": ("pld",)}, "delta", bad_delta),
        (composition_data, comp, "methods",
         st.sampled_from([["moments"], "basic", [1], None, [], 3, [None]])),
        (composition_data, comp, "mark_k", opt_int(1, 100_000)),
    ]
    dp = dict(steps_max=50, pld_points=2)
    cases += [(dpsgd_epsilon_data, dp, arg, strat) for arg, strat in (
        ("steps_max", bad_int(2, 10**6)), ("noise_multiplier", BAD_POSITIVE),
        ("sample_rate", st.one_of(BAD_PROB, st.just(0.0))), ("delta", bad_delta),
        ("pld_points", bad_int(0, 100)), ("mark_steps", opt_int(1, 10**6)),
        ("pld_steps", st.sampled_from([[0], [1.5], [10**6 + 1], "10", [[1, 2]], [None],
                                       [math.nan], list(range(1, 103)), True, {"a": 1}])))]
    run = dict(n=1000, batch=10, epochs=3)
    for func in (planner_run, planner_pld_steps):
        cases += [(func, run, "n", bad_int(1, 10**9)),
                  (func, run, "batch", bad_int(1, 1000)),
                  (func, run, "epochs", bad_int(1, 10**6))]
    for func, valid, arg, strat in cases:
        func(**valid)                                      # the baseline call works
        assert_rejects_bad_values(func, valid, arg, strat)


# ---------------------------------------------------------------------------
# At the edges of the teaching domains: exact answers, bounded loops, read-only state
# ---------------------------------------------------------------------------

def _mp_laplace_rdp(alpha: float, eps: float) -> float:
    """[M17] Prop. 6 at 60 digits plus as many as the cancellation of S − 1 needs."""
    with mp.workdps(60 + max(0, int(-2 * math.log10(eps))) + 10):
        a, e = mp.mpf(alpha), mp.mpf(eps)
        s = a / (2 * a - 1) * mp.exp((a - 1) * e) + (a - 1) / (2 * a - 1) * mp.exp(-a * e)
        return float(mp.log(s) / (a - 1))


def _mp_rr_rdp(alpha: float, p: float) -> float:
    t = abs(2 * p - 1)
    with mp.workdps(60 + max(0, int(-2 * math.log10(t))) + max(0, int(-math.log10(min(p, 1 - p))))):
        a, p = mp.mpf(alpha), mp.mpf(p)
        s = p**a * (1 - p) ** (1 - a) + (1 - p) ** a * p ** (1 - a)
        return float(mp.log(s) / (a - 1))


def _mp_sg_int_rdp(alpha: int, sigma: float, q: float) -> float:
    """Subsampled Gaussian at integer α: [MTZ19] Case I's finite sum, with the digits that
    A − 1 ≈ α(α−1)q²/(2σ²) needs."""
    with mp.workdps(60 + max(0, int(4 * math.log10(max(sigma, 1.0))) + 2 * int(-math.log10(q)))):
        q, sg = mp.mpf(q), mp.mpf(sigma)
        a = sum(mp.binomial(alpha, k) * (1 - q) ** (alpha - k) * q**k
                * mp.exp(mp.mpf(k * k - k) / (2 * sg**2)) for k in range(alpha + 1))
        return float(mp.log(a) / (alpha - 1))


EDGE_ORDERS = [1 + 2**-52, 1.0001, 1.01, 2.0, 10.0, 1e3, 1e9]


@pytest.mark.parametrize("scale", [1e-12, 1.0, 1e3, 1e9, 1e15])
def test_laplace_rdp_at_the_domain_edges_is_exact(scale):
    # both forms (S − 1 without cancellation; the far form for (α−1)ε > 700) against mpmath,
    # from ε = Δ/b = 1e-21 (r ≈ αε²/2 ≈ 5e-43) to ε = 1e18; positive everywhere
    for sens in (1e-6, 1e6):
        eps = sens / scale
        r = laplace_rdp(EDGE_ORDERS, scale=scale, sensitivity=sens)
        assert np.all(r > 0)
        for a, x in zip(EDGE_ORDERS, r):
            assert x == pytest.approx(_mp_laplace_rdp(a, eps), rel=1e-13)
    # and the accountant composes such a curve a million times
    acc = RDPAccountant(orders=[1.01, 2.0, 10.0])
    acc.compose_rdp(laplace_rdp(acc.orders, scale=scale), count=10**6)
    assert acc.get_epsilon(1e-5) >= 0


def test_gaussian_rdp_and_zcdp_at_the_domain_edges_are_exact():
    for sigma, sens in [(1e-12, 1e6), (1e15, 1e-6), (1.0, 1.0)]:
        with mp.workdps(60):
            ratio2 = (mp.mpf(sens) / mp.mpf(sigma)) ** 2
            rho = float(ratio2 / 2)
            refs = [float(mp.mpf(a) * ratio2 / 2) for a in EDGE_ORDERS]
        assert gaussian_rdp(EDGE_ORDERS, sigma, sens) == pytest.approx(refs, rel=1e-15)
        assert gaussian_zcdp(sigma, sens) == pytest.approx(rho, rel=1e-15)
    assert pure_dp_to_zcdp(1e-12) == pytest.approx(5e-25, rel=1e-15)
    assert pure_dp_to_zcdp(1e4) == 5e7


def test_randomized_response_rdp_at_the_domain_edges_is_exact():
    # p within 2⁻⁵³ of ½ (r ≈ 2αt² with t = 1 − 2p tiny) and at 1e-12 from 0 or 1
    orders = [1 + 2**-52, 1.0001, 2.0, 1e6, 1e9]
    for p in (0.5 + 2**-53, 0.5 + 1e-12, 0.5 - 1e-9, 1e-12, 1 - 1e-12):
        r = randomized_response_rdp(orders, p)
        for a, x in zip(orders, r):
            assert x > 0 and x == pytest.approx(_mp_rr_rdp(a, p), rel=1e-13)


def test_subsampled_gaussian_at_the_noise_edges_is_exact(monkeypatch):
    # σ = 1e-12, the domain's lower end: one term of A_α dominates and the closed form
    # α/(2σ²) + α ln q/(α − 1) is exact to float64: the series are not even evaluated
    orders = [1.5, 2.0, 10.5, 64.0]
    with monkeypatch.context() as m:
        for series in ("_log_a_minus_1_int", "_log_a_frac"):
            m.setattr(sgm, series, lambda *a, s=series: pytest.fail(f"{s} was evaluated"))
        sgm.clear_subsampled_gaussian_cache()
        for sigma in (1e-12, 1e-6):
            r = subsampled_gaussian_rdp(orders, sigma, 0.01)
            for a, x in zip(orders, r):
                with mp.workdps(60):
                    ref = float(mp.mpf(a) / (2 * mp.mpf(sigma) ** 2)
                                + mp.mpf(a) * mp.log(mp.mpf(0.01)) / (mp.mpf(a) - 1))
                assert x == pytest.approx(ref, rel=1e-15)
    sgm.clear_subsampled_gaussian_cache()
    # at integer orders against the exact finite sum, from small σ to σ = 1e6 (the upper
    # end, where r(α) ≈ αq²/(2σ²) ≈ 1e-13 must keep its digits)
    for sigma in (1e-3, 0.05, 0.2, 30.0, 1e3, 1e6):
        for q in (1e-9, 0.01, 0.5):
            r = subsampled_gaussian_rdp([2.0, 3.0, 8.0, 64.0], sigma, q)
            for a, x in zip([2, 3, 8, 64], r):
                assert x == pytest.approx(_mp_sg_int_rdp(a, sigma, q), rel=1e-11, abs=1e-300)


def test_conversions_at_the_smallest_delta_are_finite():
    assert math.isfinite(zcdp_to_epsilon(0.5, 1e-50))
    assert math.isfinite(rdp_to_epsilon([2.0, 32.0], [0.1, 1.0], 1e-50)[0])
    acc = RDPAccountant()
    acc.step(noise_multiplier=1.0, sample_rate=0.01, steps=1000)
    assert 0 < acc.get_epsilon(1e-50) < math.inf


def counted(monkeypatch, owner, name: str) -> list:
    """Replace ``owner.name`` by a wrapper that records each call's arguments: a hang guard
    counts evaluations (against a bound derived from the loop), never the clock."""
    calls, inner = [], getattr(owner, name)

    def wrapper(*args, **kwargs):
        calls.append(args)
        return inner(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)
    return calls


def test_get_noise_multiplier_at_the_smallest_rtol_terminates_and_meets_the_target(monkeypatch):
    import dpteach.accounting.calibrate as cal

    with pytest.raises(ValueError, match=r"rtol must be a number in \[1e-15, 1\)"):
        get_noise_multiplier(target_epsilon=1.0, target_delta=1e-5, sample_rate=0.01,
                             steps=100, rtol=1e-16)
    calls = counted(monkeypatch, cal, "_rdp_epsilon")
    s = get_noise_multiplier(target_epsilon=1.0, target_delta=1e-5, sample_rate=0.01,
                             steps=100, rtol=cal.RTOL_MIN)
    # bracketing moves σ by 4 within [1e-6, 1e6]: ≤ 20 evaluations up and ≤ 20 down; then
    # bisection in log σ from a ratio of 4 to 1 + 1e-15: ⌈log2(ln 4 / 1e-15)⌉ = 51 more
    assert 0 < len(calls) <= 20 + 20 + 51
    kw = dict(delta=1e-5, sample_rate=0.01, steps=100)
    assert epsilon_for_noise_multiplier(noise_multiplier=s, **kw) <= 1.0
    # the bracket is as narrow as float64 allows: one ulp less than 1e-15 relative
    assert epsilon_for_noise_multiplier(noise_multiplier=s * (1 - 4e-15), **kw) > 1.0 - 1e-12


def test_gaussian_epsilon_loops_are_bounded(monkeypatch):
    # mechanisms.noise.gaussian_epsilon, which compare.composition_epsilons calls for every k
    from dpteach.mechanisms import noise

    calls = counted(monkeypatch, noise, "_delta_at")                    # δ in the root search
    nudges = counted(monkeypatch, noise.gaussian_delta, "__wrapped__")  # the final check
    # the teaching domain's corner: μ = Δ/σ = 1e18, so ε = μ²/2 + tμ with t ≈ 4.26 is μ²/2
    # to rounding (ulp(5e35) ≈ 7e19 > 4.3e18)
    e = noise.gaussian_epsilon(1e-12, 1e-5, sensitivity=1e6)
    assert e == pytest.approx(5e35, rel=1e-15) and gaussian_delta(1e-12, 1e6, e) <= 1e-5
    # μ = 1e12: ε − μ²/2 = tμ with t = 4.2649 (Φ(−t) ≈ 1e-5), resolved although ε ≈ 5e23
    e = noise.gaussian_epsilon(1e-6, 1e-5, sensitivity=1e6)
    assert (e - 5e23) / 1e12 == pytest.approx(4.2649, abs=1e-3)
    e = noise.gaussian_epsilon(1e-10, 1e-50)
    assert math.isfinite(e) and gaussian_delta(1e-10, 1.0, e) <= 1e-50
    assert noise.gaussian_epsilon(1e15, 1e-5) == 0.0
    # δ at ε = 0, brentq (≤ 100 iterations, SciPy's default), then a few ulp steps; four
    # calls above: a hang would show as more
    assert len(calls) <= 4 * (1 + 100 + 2) and len(nudges) <= 4 * 50


def test_sizes_beyond_their_bounds_are_refused_by_name():
    # the array sizes and the sum of ks (the generated tests try the integer bounds)
    for call, arg in [
        (lambda: composition_epsilons(np.arange(1, 1002), epsilon=1.0), "ks"),
        (lambda: composition_epsilons([10**6] * 11, epsilon=1.0), "ks"),
        (lambda: subsampled_gaussian_rdp(np.linspace(1.5, 100, 257), 1.0, 0.1), "orders"),
        (lambda: subsampled_gaussian_rdp([2.0, 1e5], 1.0, 0.1), "orders"),
        (lambda: RDPAccountant(orders=np.linspace(1.5, 100, 257)), "orders"),
        (lambda: rdp_to_epsilon(np.full(10**5 + 1, 2.0), np.zeros(10**5 + 1), 1e-5), "orders"),
        (lambda: dpsgd_epsilons(np.arange(1, 1002), noise_multiplier=1.0, sample_rate=0.1),
         "steps"),
    ]:
        with pytest.raises(ParameterError, match=arg):
            call()


def test_rules_that_tie_arguments_are_refused_by_name():
    for call, arg in [
        (lambda: rdp_to_epsilon([2.0, 3.0], [0.1], 1e-5), "rdp"),
        (lambda: rdp_to_delta([2.0], [0.1, 0.2], 1.0), "rdp"),
        (lambda: RDPAccountant(orders=[2.0, 4.0]).compose_rdp([0.1]), "rdp"),
        (lambda: composition_epsilons([1], mechanism="gaussian"), "sigma"),
        (lambda: composition_epsilons([1], mechanism="laplace"), "epsilon"),
    ]:
        with pytest.raises(ParameterError, match=arg):
            call()


def test_pld_grid_limit_refuses_quickly_instead_of_memory_error(monkeypatch):
    # refused from the estimate, before dp_accounting builds or composes anything
    monkeypatch.setattr(PLDAccountant, "_run",
                        lambda *a, **k: pytest.fail("dp_accounting was called"))
    for call in [lambda: PLDAccountant(1e-3).compose_laplace(1.0, count=10**9),
                 lambda: PLDAccountant(1e-4).step(noise_multiplier=1e-3, sample_rate=0.5,
                                                  steps=10),
                 lambda: PLDAccountant(1e-4).step(noise_multiplier=1.0, sample_rate=1.0,
                                                  steps=10**9),
                 lambda: PLDAccountant(1e-6).step(noise_multiplier=0.3, sample_rate=0.5,
                                                  steps=10**6),
                 lambda: PLDAccountant(1e-2).step(noise_multiplier=1e-12, sample_rate=1e-9)]:
        with pytest.raises(ParameterError, match="value_discretization_interval") as info:
            call()
        assert "grid" in str(info.value)


def test_pld_huge_count_of_a_sparse_pld_does_not_hang(monkeypatch):
    # dp_accounting computes size**count exactly for a sparse PMF (minutes at 10⁷):
    # we compose counts above 2^17 in two stages, the same composition.
    from dp_accounting.pld import privacy_loss_distribution as lib
    from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution

    counts = counted(monkeypatch, PrivacyLossDistribution, "self_compose")
    acc = PLDAccountant(1e-3)
    acc.step(noise_multiplier=10.0, sample_rate=1e-5, steps=10**7)
    assert 0 <= acc.get_epsilon(1e-5) < math.inf
    # each self-composition stays within 2^17 and together they make 10⁷ steps
    stages = [args[1] for args in counts]
    assert max(stages) <= 2**17 and stages[0] * stages[1] + stages[2] == 10**7, stages
    # two stages agree with dp_accounting's one-stage self-composition where that is fast
    single = lib.from_gaussian_mechanism(standard_deviation=3.0, sampling_prob=1e-3,
                                         value_discretization_interval=1e-3)
    direct = single.self_compose(500_000).get_epsilon_for_delta(1e-5)
    acc = PLDAccountant(1e-3)
    acc.step(noise_multiplier=3.0, sample_rate=1e-3, steps=500_000)
    assert acc.get_epsilon(1e-5) == pytest.approx(direct, rel=1e-6)


def test_pld_epsilon_below_its_infinite_mass_is_refused_and_laplace_keeps_its_pure_bound():
    # the discretized PLD leaves mass ~1e-15 at an infinite loss: no finite ε below it
    acc = PLDAccountant(1e-2)
    acc.step(noise_multiplier=1.0, sample_rate=0.01, steps=100)
    assert math.isfinite(acc.get_epsilon(1e-10))
    with pytest.raises(ParameterError, match="delta"):
        acc.get_epsilon(1e-50)
    # Laplace alone: dp_accounting overflows to ∞ for Σ count·Δ/b in the thousands, and the
    # pure-DP bound Σ count·Δ/b is what is valid then
    lap = PLDAccountant(1e-3)
    lap.compose_laplace(1.0, sensitivity=5.0, count=1000)
    assert lap.get_epsilon(1e-5) <= 5000.0


def test_accountants_expose_read_only_state():
    acc = RDPAccountant()
    acc.step(noise_multiplier=1.0, sample_rate=0.1, steps=3)
    eps = acc.get_epsilon(1e-5)
    with pytest.raises(ValueError):
        acc.orders[0] = 100.0
    with pytest.raises(AttributeError):
        acc.orders = [2.0]
    with pytest.raises(AttributeError):
        acc.history = ()
    assert isinstance(acc.history, tuple) and acc.history[0].steps == 3
    r = acc.get_rdp()
    r[:] = 0
    assert acc.get_epsilon(1e-5) == eps
    user = np.array([2.0, 4.0])
    acc2 = RDPAccountant(orders=user)
    user[0] = 100.0                          # the caller's array is not shared
    assert acc2.orders[0] == 2.0
    pld = PLDAccountant(1e-2)
    with pytest.raises(AttributeError):
        pld.value_discretization_interval = 1.0
    assert pld.get_epsilon(1e-5) == 0.0 and pld.get_delta(0.5) == 0.0   # nothing composed
    pld.step(noise_multiplier=1.0, sample_rate=0.1)
    assert isinstance(pld.history, tuple) and len(pld.history) == 1


def test_parameterless_callables():
    sgm.clear_subsampled_gaussian_cache()
    a = subsampled_gaussian_rdp([2.0], 1.0, 0.1)
    sgm.clear_subsampled_gaussian_cache()
    b = subsampled_gaussian_rdp([2.0], 1.0, 0.1)
    assert a is not b and np.array_equal(a, b)
    acc = RDPAccountant(orders=[2.0, 3.0])
    assert np.array_equal(acc.get_rdp(), [0.0, 0.0])


def test_documented_floats_are_python_floats():
    from dpteach.mechanisms.noise import gaussian_epsilon

    acc = RDPAccountant()
    acc.step(noise_multiplier=1.0, sample_rate=0.01, steps=100)
    pld = PLDAccountant(1e-2)
    pld.step(noise_multiplier=1.0, sample_rate=0.01, steps=100)
    values = [
        acc.get_epsilon(1e-5), acc.get_delta(1.0), *acc.get_epsilon_and_order(1e-5),
        pld.get_epsilon(1e-5), pld.get_delta(1.0),
        *rdp_to_epsilon([2.0], [0.1], 1e-5), *rdp_to_delta([2.0], [0.1], 1.0),
        gaussian_zcdp(2.0), pure_dp_to_zcdp(1.0), zcdp_to_epsilon(0.1, 1e-5),
        zcdp_to_epsilon(1e-50, 1e-5), zcdp_to_epsilon(0.1, 1e-5, "bun-steinke"),
        rho_for_epsilon(1.0, 1e-5), rho_for_epsilon(1.0, 1e-5, "bun-steinke"),
        rho_for_epsilon(1e-6, 0.5),
        epsilon_for_noise_multiplier(noise_multiplier=1.0, delta=1e-5, sample_rate=0.01,
                                     steps=10),
        get_noise_multiplier(target_epsilon=1.0, target_delta=1e-5, sample_rate=0.01, steps=10),
        gaussian_epsilon(1.0, 1e-5), gaussian_epsilon(1e15, 1e-5),
    ]
    assert all(type(v) is float for v in values), [type(v) for v in values]
