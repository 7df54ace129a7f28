"""Tests of dpteach.mechanisms.randomized_response: Warner's randomized response, k-ary RR.

Against closed forms, mpmath (50-60 digits), the exact Binomial law of the reports and
simulation.

Statistical tests use fixed seeds. Each tolerance is a multiple (4 or 5) of the standard
error of the statistic being checked, derived in a comment next to it; with a fixed seed
the outcome is deterministic, and the multiple says how unlucky a correct implementation
would have to be to fail (5 SE two-sided: p ≈ 6e-7; 4 SE: p ≈ 6e-5).
"""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpteach._validation import ParameterError
from dpteach.mechanisms import randomized_response as rr


def test_rr_epsilon_of_quarter_is_ln3():
    # Dwork & Roth Claim 3.5: the two-coin protocol (γ = ¼) is (ln 3)-DP.
    assert rr.rr_epsilon_from_gamma(0.25) == pytest.approx(math.log(3), rel=1e-15)


@pytest.mark.parametrize("gamma", [2.5e-7, 1e-6, 0.01, 0.1, 0.25, 0.4, 0.49, 0.4999])
def test_rr_epsilon_formula_in_high_precision(gamma):
    # ε = ln((½+γ)/(½−γ)), evaluated with 50 significant digits by mpmath. The naive
    # float formula would lose ~6 digits at γ = 2.5e-7 (the domain's lower end); the library
    # must not.
    mpmath.mp.dps = 50
    g = mpmath.mpf(gamma)
    exact = float(mpmath.log((mpmath.mpf("0.5") + g) / (mpmath.mpf("0.5") - g)))
    assert rr.rr_epsilon_from_gamma(gamma) == pytest.approx(exact, rel=1e-14)


@pytest.mark.parametrize("gamma", [2.5e-7, 0.01, 0.1, 0.25, 0.4, 0.49])
def test_rr_gamma_epsilon_round_trip_from_gamma(gamma):
    back = rr.rr_gamma_from_epsilon(rr.rr_epsilon_from_gamma(gamma))
    assert back == pytest.approx(gamma, rel=1e-13)


@pytest.mark.parametrize("epsilon", [1e-6, 0.01, 0.5, math.log(3), 2.0, 5.0, 10.0])
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
    with pytest.raises(ValueError, match=r"gamma must be None exactly when epsilon is given "
                                         r"\(epsilon=None\); got gamma=None"):
        func(*args)
    with pytest.raises(ValueError, match=r"gamma must .* \(epsilon=1.0\); got gamma=0.25"):
        func(*args, gamma=0.25, epsilon=1)


def test_rr_small_gamma_or_epsilon_divides_by_two_gamma():
    # At the domain's lower end ε = 1e-6 (γ ≈ 2.5e-7) the float 2p − 1 = 2(½ + γ) − 1 keeps
    # only ~9 digits of 2γ; estimators must divide by 2γ itself. The naive estimate would be
    # off by ~1e-10 relative, far beyond the 1e-12 allowed here.
    gamma = 0.5 * math.tanh(0.5e-6)
    r = rr.rr_estimate([0, 1, 1], epsilon=1e-6)
    assert r.estimate == pytest.approx((2 / 3 - 0.5 + gamma) / (2 * gamma), rel=1e-12)
    assert math.isfinite(r.std_error) and math.isfinite(r.ci_high)
    assert rr.rr_std_error(0.5, 10, gamma=2.5e-7) == pytest.approx(
        math.sqrt(0.25 / 10) / 5e-7, rel=1e-12)


def test_rr_values_below_the_domain_are_refused_by_name():
    # tiny positive values (not among the generated bad values) are refused, not computed
    with pytest.raises(ParameterError, match=r"^epsilon must be a number in \[1e-06, 1000\]; "
                                             r"got epsilon=5e-324"):
        rr.rr_gamma_from_epsilon(5e-324)
    with pytest.raises(ParameterError, match=r"^epsilon must be None or a number in "
                                             r"\[1e-06, 1000\]; got epsilon=1e-320"):
        rr.rr_estimate([0, 1, 1], epsilon=1e-320)
    with pytest.raises(ParameterError, match=r"^gamma must be None or a number in "
                                             r"\[2.5e-07, 0.5\]; got gamma=1e-320"):
        rr.rr_std_error(0.5, 3, gamma=1e-320)
    with pytest.raises(ParameterError, match=r"^epsilon must be .*got epsilon=1e-320"):
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
    with pytest.raises(ParameterError,
                       match=r"^bits must be 0/1 \(or True/False\), or a 1-D array of them; "
                             r"got bits=\[0, 1, 2\]"):
        rr.randomized_response([0, 1, 2], gamma=0.25)
    with pytest.raises(ParameterError, match=r"^reports must be 0/1"):
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


def test_k_rr_small_epsilon_is_accurate_without_warnings():
    # p − q = (e^ε − 1)/(e^ε + k − 1) via expm1: at the domain's lower end ε = 1e-6 the float
    # e^ε − 1 keeps only ~10 digits.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = rr.k_rr_estimate([0, 1, 1], 3, 1e-6)
        assert np.all(np.isfinite(est))
        # k = 2 agrees with Warner's estimator, which divides by 2γ
        assert rr.k_rr_estimate([0, 1, 1], 2, 1e-6)[1] == pytest.approx(
            rr.rr_estimate([0, 1, 1], epsilon=1e-6).estimate, rel=1e-9)


@pytest.mark.parametrize("eps", [1e-6, 0.3, 4.0, 30.0, 1e3])
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
    with pytest.raises(ParameterError, match=r"values must be integers in \[0, 2\] for k=3; got "
                                             r"values=array\(\[0., 3.\]\)"):
        rr.k_randomized_response([0, 3], 3, 1.0)
    with pytest.raises(ParameterError, match=r"^values must be .*whole numbers"):
        rr.k_randomized_response([0, 3.5], 3, 1.0)
    with pytest.raises(ValueError, match=r"reports must be integers in \[0, 1\]"):
        rr.k_rr_estimate([0, 2], 2, 1.0)
    with pytest.raises(ValueError, match=r"k must be an integer in \[2, 1000000\]"):
        rr.k_rr_estimate([0], 10**7, 1.0)



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
    assert rr.k_rr_estimate([0, 1], 3, 1.0).shape == (3,)
    assert type(rr.rr_local_std(10, 1.0)) is float
    assert type(rr.central_laplace_rate_std(10, 1.0)) is float
    assert rr.rr_local_std([10, 100], 1.0).shape == (2,)


def test_rr_large_epsilon_tells_the_truth():
    # γ = ½ tanh(ε/2) rounds to ½ from ε ≈ 38 on: every report is the true bit
    bits = np.arange(200) % 2
    for eps in (40.0, 1e3):
        assert np.array_equal(rr.randomized_response(bits, epsilon=eps, rng=0), bits)
        assert rr.rr_gamma_from_epsilon(eps) == 0.5
    # the library's γ = ½ is a valid input of the protocol and its estimators (ε = ∞)
    gamma = rr.rr_gamma_from_epsilon(40.0)
    assert np.array_equal(rr.randomized_response(bits, gamma=gamma, rng=0), bits)
    assert rr.rr_estimate(bits, gamma=gamma).estimate == 0.5


# ==================================================== inside the domain, always finite
@given(epsilon=st.floats(min_value=1e-6, max_value=1e3), p=st.floats(min_value=0, max_value=1))
def test_rr_estimate_finite_on_the_teaching_domain(epsilon, p):
    reports = (np.arange(20) < round(20 * p)).astype(int)
    r = rr.rr_estimate(reports, epsilon=epsilon)
    assert all(math.isfinite(x) for x in (r.estimate, r.std_error, r.ci_low, r.ci_high))
    assert math.isfinite(rr.rr_std_error(p, 20, epsilon=epsilon))


@given(gamma=st.floats(min_value=2.5e-7, max_value=0.5))
def test_rr_estimate_finite_for_every_gamma_of_the_domain(gamma):
    r = rr.rr_estimate([0, 1, 1], gamma=gamma)
    assert math.isfinite(r.ci_low) and math.isfinite(r.ci_high)


@given(epsilon=st.floats(min_value=1e-6, max_value=1e3), k=st.integers(min_value=2, max_value=50))
def test_k_rr_estimate_finite_and_summing_to_one_on_the_domain(epsilon, k):
    reports = np.r_[np.arange(k), 0, 0]          # uneven counts: k·c_v − n ≠ 0
    est = rr.k_rr_estimate(reports, k, epsilon)
    assert np.all(np.isfinite(est))
    # Σ π̂_v = 1 exactly; in floating point the large entries for small ε cancel only up to
    # their rounding, ~1e-16·max|π̂_v| ≈ 1e-16·k/ε.
    assert est.sum() == pytest.approx(1.0, abs=1e-9 + 1e-14 * k / epsilon)


# ====================================================================== randomness
RANDOM_CALLS = {
    "randomized_response": lambda rng: rr.randomized_response(np.zeros(200, int), gamma=0.1,
                                                             rng=rng),
    "k_randomized_response": lambda rng: rr.k_randomized_response(np.zeros(200), 5, 0.5, rng=rng),
    "simulate_rr_estimates": lambda rng: rr.simulate_rr_estimates(0.3, 50, gamma=0.1,
                                                                 n_trials=20, rng=rng),
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


# ============================================================ simulated surveys
def test_simulated_reports_and_binomial_counts_agree():
    # The two simulations draw the same Binomial(n, λ) count law: their estimates have the
    # sd of rr_std_error. 4000 surveys each: SE(s²)/σ² = √(2/(T−1)); 5 SE.
    se = rr.rr_std_error(0.3, 100, gamma=0.2)
    for simulation in ("reports", "binomial"):
        est = rr.simulate_rr_estimates(0.3, 100, gamma=0.2, n_trials=4000, rng=7,
                                       simulation=simulation)
        assert abs(est.mean() - 0.3) <= 5 * se / math.sqrt(4000)
        assert abs(est.var(ddof=1) / se**2 - 1) <= 5 * math.sqrt(2 / 3999)


def test_simulating_too_many_reports_is_refused():
    # simulation="reports" draws n × n_trials uniforms: at most 10**7 (about 0.2 s)
    with pytest.raises(ParameterError,
                       match=r"n_trials must be ≤ 10 \(n=1000000, simulation='reports'\)"):
        rr.simulate_rr_estimates(0.3, 10**6, gamma=0.2, n_trials=11, simulation="reports")
    assert rr.simulate_rr_estimates(0.3, 10**6, gamma=0.2, n_trials=10, rng=0,
                                    simulation="reports").shape == (10,)
