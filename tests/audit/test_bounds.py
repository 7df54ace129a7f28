"""Tests for dpteach.audit.bounds: Clopper–Pearson, the (ε, δ) and μ-GDP bounds, runs needed.

Exact checks against closed forms (a count of 0 or n has Clopper–Pearson bounds
α^{1/n}, 1 − α^{1/n}; the Gaussian's δ(ε) at the μ-GDP ε is δ) and against SciPy's
exact binomial tail (the bound's definition: P[Bin(n, p_lo) ≥ count] = α). Bad values of each
parameter are refused by the declared domains (``tests/test_domains.py``); here: the rules
that tie two arguments together, and exact answers at the domains' edges.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpteach.audit import bounds as B
from dpteach._validation import ParameterError
from dpteach.mechanisms.noise import gaussian_delta

# ------------------------------------------------------------------------ Clopper-Pearson
@pytest.mark.parametrize("count,n", [(0, 1), (3, 10), (10, 10), (500, 1000), (1, 10**6)])
def test_clopper_pearson_bounds_solve_the_binomial_tail_equations(count, n):
    a = 0.025
    lo, hi = B.clopper_pearson_bounds(count, n)                  # 95%: α = 0.025 per side
    assert type(lo) is float and type(hi) is float and 0 <= lo <= count / n <= hi <= 1
    if count > 0:      # the lower bound is the p at which ≥ count successes have probability α
        assert stats.binom.sf(count - 1, n, lo) == pytest.approx(a, rel=1e-6)
    else:
        assert lo == 0.0
    if count < n:
        assert stats.binom.cdf(count, n, hi) == pytest.approx(a, rel=1e-6)
    else:
        assert hi == 1.0


def test_clopper_pearson_extremes_are_closed_forms_and_arrays_work():
    n, a = 200, 0.025
    assert B.clopper_pearson_bounds(n, n)[0] == pytest.approx(a ** (1 / n), rel=1e-12)
    assert B.clopper_pearson_bounds(0, n)[1] == pytest.approx(1 - a ** (1 / n), rel=1e-9)
    lo, hi = B.clopper_pearson_bounds([0, 100, 200], 200)
    assert lo.shape == (3,) and lo[0] == 0 and hi[2] == 1
    assert lo[1] == pytest.approx(B.clopper_pearson_bounds(100, 200)[0], rel=1e-15)


# ------------------------------------------------------------------------ the (ε, δ) bound
def test_epsilon_lower_bound_is_the_log_ratio_of_the_bounds_minus_delta():
    lo, _ = B.clopper_pearson_bounds(600, 1000)
    _, hi = B.clopper_pearson_bounds(200, 1000)
    assert B.epsilon_lower_bound(600, 1000, 200, 1000) == pytest.approx(math.log(lo / hi))
    d = 0.05
    assert B.epsilon_lower_bound(600, 1000, 200, 1000, delta=d) == pytest.approx(
        math.log((lo - d) / hi))
    # δ above p_lo: no evidence at all; equal counts: none either
    assert B.epsilon_lower_bound(600, 1000, 200, 1000, delta=0.6) == 0.0
    assert B.epsilon_lower_bound(500, 1000, 500, 1000) == 0.0



def test_epsilon_from_probabilities_exact_and_certified():
    e = math.e
    assert B.epsilon_from_probabilities(e / (1 + e), 1 / (1 + e)) == pytest.approx(1.0)
    assert B.epsilon_from_probabilities(0.5, 0.0) == math.inf
    assert B.epsilon_from_probabilities(0.1, 0.2) == 0.0
    assert B.epsilon_from_probabilities(0.3, 0.1, delta=0.3) == 0.0
    out = B.epsilon_from_probabilities([0.5, 0.2], [0.25, 0.2])
    np.testing.assert_allclose(out, [math.log(2), 0.0])


# ------------------------------------------------------------------------------ μ-GDP
def test_mu_from_probabilities_is_exact_for_every_threshold_of_the_gaussian():
    # N(0, 1) vs N(μ, 1), S = {x > t}: Φ⁻¹(P′(S)) − Φ⁻¹(P(S)) = μ whatever t
    mu = 0.7
    for t in (-2.0, 0.0, 0.35, 3.0):
        p_prime, p = stats.norm.sf(t, loc=mu), stats.norm.sf(t)
        assert B.mu_from_probabilities(p_prime, p) == pytest.approx(mu, rel=1e-9)
    assert B.mu_from_probabilities(0.2, 0.5) == 0.0
    assert B.mu_from_probabilities(1.0, 0.5) == math.inf


def test_gdp_mu_lower_bound_uses_the_two_clopper_pearson_bounds():
    lo, _ = B.clopper_pearson_bounds(8000, 10_000)
    _, hi = B.clopper_pearson_bounds(2000, 10_000)
    expect = stats.norm.ppf(lo) - stats.norm.ppf(hi)
    assert B.gdp_mu_lower_bound(8000, 10_000, 2000, 10_000) == pytest.approx(expect, rel=1e-12)
    assert B.gdp_mu_lower_bound(10, 100, 10, 100) == 0.0


@pytest.mark.parametrize("mu,delta", [(0.25, 1e-5), (1.0, 1e-5), (3.0, 1e-3), (0.01, 0.1)])
def test_gdp_epsilon_solves_the_gaussian_delta_curve(mu, delta):
    eps = B.gdp_epsilon(mu, delta)
    # [DRS22] Corollary 1: δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), computed independently
    direct = stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)
    if eps > 0:
        assert direct == pytest.approx(delta, rel=1e-6)
        assert gaussian_delta(1.0, mu, eps) <= delta
    else:
        assert direct <= delta
    assert B.gdp_epsilon(0.0, 1e-5) == 0.0


# ---------------------------------------------------------------- what n runs can say
def test_max_certifiable_epsilon_closed_form():
    a = 0.025
    for n in (1, 10, 1000, 10**9):
        lo = a ** (1 / n)
        expect = max(0.0, math.log(lo / -math.expm1(math.log(a) / n)))
        assert B.max_certifiable_epsilon(n) == pytest.approx(expect, rel=1e-9)
        # it is what an all-versus-nothing outcome gives
        if n <= 1000:
            assert B.epsilon_lower_bound(n, n, 0, n) == pytest.approx(expect, rel=1e-6, abs=1e-12)
    assert B.max_certifiable_epsilon(100, delta=0.999) == 0.0


@pytest.mark.parametrize("eps,delta", [(0.0, 0.0), (0.5, 0.0), (1.0, 0.0), (3.0, 1e-5),
                                       (8.0, 0.0), (1.0, 0.5)])
def test_audit_trials_needed_is_the_first_count_that_can_refute(eps, delta):
    n = B.audit_trials_needed(eps, delta=delta)
    n_eval = n - n // 2
    assert B.max_certifiable_epsilon(n_eval, delta=delta) > eps
    assert n == 2 * n_eval - 1
    assert n_eval == 1 or B.max_certifiable_epsilon(n_eval - 1, delta=delta) <= eps
    # roughly 2·e^ε·ln(1/α)/(1 − δ)
    assert n <= 4 * math.exp(eps) * math.log(40) / (1 - delta) + 10


def test_audit_trials_needed_refuses_claims_beyond_any_budget():
    with pytest.raises(ParameterError, match="claimed_epsilon"):
        B.audit_trials_needed(40.0)


# ------------------------------------------------ the domains' edges and the rules
def test_gdp_epsilon_is_finite_on_its_whole_domain_and_refuses_beyond():
    # μ = 100 is the domain's end: ε ≈ μ²/2 + μ·√(2 ln(1/δ)) ≈ 5,480 at δ = 1e-5, finite and
    # tight (δ(ε) = δ); μ = 1e300 was an infinity returned silently, now refused by name
    eps = B.gdp_epsilon(100.0, 1e-5)
    assert 5_000 < eps < 6_000 and gaussian_delta(1.0, 100.0, eps) <= 1e-5
    assert gaussian_delta(1.0, 100.0, eps * (1 - 1e-9)) > 1e-5
    for bad in (1e300, 100.5, math.inf, -1.0):
        with pytest.raises(ParameterError, match=r"mu must be a number in \[0, 100\]"):
            B.gdp_epsilon(bad, 1e-5)


def test_the_edges_of_counts_and_confidence_are_answered_exactly():
    # 10**12 runs with the event on every run: p_lo = α^{1/n}, exactly as for small n
    n, a = 10**12, (1 - 0.999999) / 2
    lo, hi = B.clopper_pearson_bounds(n, n, confidence=0.999999)
    assert lo == pytest.approx(a ** (1 / n), rel=1e-12) and hi == 1.0
    assert B.clopper_pearson_bounds(0, 1, confidence=0.5) == (0.0, pytest.approx(0.75))
    assert 0 < B.max_certifiable_epsilon(10**12, confidence=0.999999) < 30


def test_rules_tying_counts_to_runs_name_both():
    with pytest.raises(ParameterError, match=r"count must be at most n=10; got count=11"):
        B.epsilon_lower_bound(11, 10, 1, 10)
    with pytest.raises(ParameterError, match=r"count_prime must be at most n_prime=10"):
        B.gdp_mu_lower_bound(5, 10, 11, 10)
    with pytest.raises(ParameterError, match="count must be at most n = .*, element by element"):
        B.clopper_pearson_bounds([1, 4], 3)
    with pytest.raises(ParameterError, match=r"n.shape must be count.shape"):
        B.clopper_pearson_bounds([1, 1], [3, 3, 3])
    with pytest.raises(ParameterError, match=r"p_prime.shape must be p.shape"):
        B.epsilon_from_probabilities([0.5, 0.2, 0.1], [0.1, 0.2])
    with pytest.raises(ParameterError, match=r"p_prime.shape must be p.shape"):
        B.mu_from_probabilities([0.5, 0.2, 0.1], [0.1, 0.2])
