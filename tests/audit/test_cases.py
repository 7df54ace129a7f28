"""The audit catalogue (dpteach.audit.cases): each case's exact true ε, and its arguments.

The true ε of a pair is computed from the mechanism's exact output distribution; here it is
checked against closed forms (Laplace and randomized response ε; the planted bugs 2ε; the
exponential mechanism e^{ε/2}(1 + 3e^{ε/2})/(e^{ε/2} + 3) for scores (1,0,0,0) vs (0,1,1,1);
the Gaussian's ε at δ is the claim, since the analytic σ is tight; the snapping mechanism's is
1/λ, below the ε Mironov's theorem proves, which it claims; the secure Gaussian's is the root
of the discrete Gaussian's exact δ(ε), below the claim because its zCDP calibration is loose).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpteach.audit import cases as C
from dpteach._validation import ParameterError
from dpteach.pate.analysis import DEFAULT_PATE_ORDERS
from dpteach.accounting.zcdp import rho_for_epsilon
from dpteach.pate.answers import gnmax_answer_probabilities
from dpteach.exact.secure import _secure_rho
from dpteach.mechanisms.noise import gaussian_sigma
from dpteach.exact.discrete import discrete_gaussian_delta, discrete_gaussian_variance
from dpteach.exact.snapping import snapping_epsilon


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_true_epsilons_match_closed_forms(eps):
    t = {name: C.audit_case(name, eps).true_epsilon for name in C.CORRECT + C.BUGS}
    for name in ("laplace", "laplace_secure", "randomized_response", "k_randomized_response"):
        assert t[name] == pytest.approx(eps, rel=1e-9), name
    assert t["gaussian"] == pytest.approx(eps, rel=1e-6)
    assert t["laplace_half_scale"] == pytest.approx(2 * eps, rel=1e-12)
    assert t["rr_wrong_epsilon"] == pytest.approx(2 * eps, rel=1e-9)
    h = math.exp(eps / 2)
    assert t["exponential_mechanism"] == pytest.approx(math.log(h * (1 + 3 * h) / (h + 3)),
                                                       rel=1e-9)
    assert 0 < t["report_noisy_max"] <= eps and 0 < t["sparse_vector"] <= eps
    assert t["snapping"] == pytest.approx(eps, rel=1e-12)
    assert 0 < t["gaussian_secure"] < eps
    assert t["svt_no_query_noise"] == math.inf
    assert C.audit_case("laplace_floating_point", eps).true_epsilon == math.inf
    assert t["mwem"] == eps / 2                    # one query: only the measurement shows
    assert 0 < t["gnmax"] < eps


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0, 10.0])
def test_the_gnmax_case_claims_pates_analysis_and_its_true_epsilon_is_exact(eps):
    # the claim, written out: one query is (λ, λ/σ²)-RDP ([PSMRTE18] Prop. 8), converted
    # at the best of PATE's orders with ε = r(λ) + ln(1/δ)/(λ − 1); σ is the smallest σ
    # (to 1e-12) whose claim is at most ε
    case, delta = C.audit_case("gnmax", eps), 1e-5
    sigma = float(case.description.split("σ = ")[1].split(":")[0])        # shown to 3 digits
    orders = np.asarray(DEFAULT_PATE_ORDERS)

    def claim(s):
        return float(np.min(orders / s**2 + math.log(1 / delta) / (orders - 1)))

    s_exact = case.mechanism.keywords["sigma"]
    assert s_exact == pytest.approx(sigma, rel=5e-3)
    assert case.claimed_epsilon == pytest.approx(claim(s_exact), rel=1e-12)
    assert claim(s_exact) <= eps < claim(s_exact * (1 - 1e-9)) * (1 + 1e-12)
    # the pair's true ε from the exact answer distributions (quadrature, pate_answers),
    # not from the closed form the case uses: the better event is {class 0} either way
    p = gnmax_answer_probabilities(C.GNMAX_D, s_exact)
    q = gnmax_answer_probabilities(C.GNMAX_D_PRIME, s_exact)
    assert p[0] == pytest.approx(q[1], rel=1e-9) and p.sum() == pytest.approx(1, rel=1e-12)
    assert case.true_epsilon == pytest.approx(math.log((p[0] - delta) / q[0]), rel=1e-7)


def test_the_gnmax_case_refuses_a_claim_pates_orders_cannot_reach():
    floor = math.log(1e5) / (max(DEFAULT_PATE_ORDERS) - 1)             # ≈ 0.02307
    for eps in (floor * 0.99, floor, floor * 1.009):
        with pytest.raises(ParameterError,
                           match=r"epsilon must be at least 0.0233 \(gnmax"):
            C.audit_case("gnmax", eps)
    case = C.audit_case("gnmax", floor * 1.01)                   # σ ≈ 1.5e4: still continuous
    assert floor < case.claimed_epsilon <= floor * 1.01


def test_every_case_has_what_an_audit_needs():
    for name in C.CORRECT + C.BUGS + C.FLOATING_POINT:
        c = C.audit_case(name, 0.5)
        out = c.mechanism(c.d, 7, np.random.default_rng(0))
        assert out.shape == (7,) and np.all(np.isfinite(out)), name
        assert c.planted_bug == (name in C.BUGS) and c.test in ("threshold", "histogram")
        assert c.delta == (1e-5 if name in ("gaussian", "gaussian_secure", "gnmax") else 0.0)
        assert c.title and c.description
    for good, bad in C.PLANTED_BUGS.items():
        assert C.audit_case(good, bug=True).name == bad


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0, 10.0])
def test_the_exact_sampler_cases(eps):
    # snapping ([M12] Sec. 5.2): λ = 1/ε, B = 100λ, outputs on the grid Λℤ (Λ the smallest
    # power of two ≥ λ); the claim is what the theorem proves, (1 + 12Bη)/λ + 2η, just above
    # ε and above the pair's exact-arithmetic ε = 1/λ
    snap = C.audit_case("snapping", eps)
    proven = snapping_epsilon(eps, sensitivity=1.0, bound=100.0 / eps)
    assert snap.claimed_epsilon == proven and 0 < proven - eps < 2e-13
    assert snap.true_epsilon <= snap.claimed_epsilon and (snap.delta, snap.bound) == (0.0, "dp")
    big_lam = 2.0 ** math.ceil(math.log2(1.0 / eps))
    out = snap.mechanism(1.0, 500, np.random.default_rng(0))
    assert np.all(out % big_lam == 0) and np.all(np.abs(out) <= 100.0 / eps)
    # secure Gaussian ([CKS20]): integer outputs; σ² = 1/(2ρ), ρ the largest zCDP budget
    # whose Cor. 13 conversion is ≤ ε; the true ε is where the exact δ(ε) of N_ℤ(0, σ²) at
    # shift 1 crosses the claimed δ
    gs = C.audit_case("gaussian_secure", eps, delta=1e-5)
    assert (gs.delta, gs.bound, gs.test) == (1e-5, "dp", "threshold")
    out = gs.mechanism(0.0, 300, np.random.default_rng(1))
    assert np.array_equal(out, np.round(out))
    sigma2 = 1.0 / (2.0 * rho_for_epsilon(eps, 1e-5))
    t = gs.true_epsilon
    assert discrete_gaussian_delta(sigma2, 1, t) <= 1e-5 < discrete_gaussian_delta(
        sigma2, 1, t * (1 - 1e-9))
    # the mechanism finds its ρ by its own root search: the same to ~1e-12, and so the pair's
    # true ε with the mechanism's σ² agrees to ~1e-12 too
    mech_sigma2 = 1.0 / (2.0 * _secure_rho(eps, 1e-5))
    assert mech_sigma2 == pytest.approx(sigma2, rel=1e-11)
    assert C._gaussian_secure_true(mech_sigma2, 1e-5, eps) == pytest.approx(t, rel=1e-11)
    # below the claim: the zCDP calibration gives 4-11% more noise than the analytic σ
    assert t < eps and math.sqrt(sigma2) > gaussian_sigma(1.0, eps, 1e-5)
    if sigma2 >= 1:      # near-Gaussian: the SE of a variance from 3,000 draws is ≈ √(2/n) = 2.6%
        assert np.var(gs.mechanism(0.0, 3_000, np.random.default_rng(2))) == pytest.approx(
            discrete_gaussian_variance(sigma2), rel=0.15)


def test_the_exact_sampler_cases_at_the_domains_edges():
    # the smallest claim (0.01) at the smallest δ: the secure Gaussian's σ² ≈ 2.1e6 grid
    # steps (its exact true ε sums ~80σ terms), the snapping mechanism's bound 10⁴; below
    # it (1e-4 once asked for σ² > 10⁸, 5e-324 for a bound beyond the doubles) is refused
    gs = C.audit_case("gaussian_secure", 0.01, delta=1e-50)
    assert 0 < gs.true_epsilon < 0.01
    snap = C.audit_case("snapping", 0.01)
    assert snap.true_epsilon == pytest.approx(0.01, rel=1e-12)
    for bad in (1e-4, 5e-324, 10.5):
        with pytest.raises(ParameterError, match=r"epsilon must be a number in \[0.01, 10\]"):
            C.audit_case("snapping", bad)


def test_convergence_of_a_case():
    b = C.audit_case("randomized_response", 1.0).convergence([100, 1_000, 10_000], rng=0)
    assert b.shape == (3,) and b[0] < b[-1] <= 1.0


def test_pair_epsilon():
    assert C.pair_epsilon([0.5, 0.5], [0.25, 0.75]) == pytest.approx(math.log(2))
    assert C.pair_epsilon([0.5, 0.5, 0.0], [0.5, 0.4, 0.1]) == math.inf
    assert C.pair_epsilon([0.0, 1.0], [0.0, 1.0]) == 0.0
    # vectors that are not distributions were once answered; now refused by name
    for bad in ([0.5, 0.6], [0.1, 0.1], [0.0, 0.0], [0.5, 1.5], [-0.1, 1.1]):
        with pytest.raises(ParameterError, match=r"\bp\b"):
            C.pair_epsilon(bad, [0.5, 0.5])
    with pytest.raises(ParameterError, match=r"p_prime.shape must be p.shape"):
        C.pair_epsilon([0.5, 0.5], [1.0])


def test_rules_tying_arguments_together_name_them():
    with pytest.raises(ParameterError, match="name must be one of .* with bug=True"):
        C.audit_case("gaussian", bug=True)
    with pytest.raises(ParameterError, match=r"epsilon must be at least 0.0233 \(gnmax"):
        C.audit_case("gnmax", 0.02)


# ============================================================== stable selection (issue 27)
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_the_stable_selection_case_true_epsilon_is_its_closed_form(eps):
    # m = 2(⌈t⌉ + 2) one-record blocks, t = ln(1/δ)/ε: all 0 has γ = ⌈t⌉ + 1, one record 1 has
    # γ = ⌈t⌉ ≥ t, so both refuse with Pr[⊥] = ½e^{−ε(γ − t)} (the Laplace tail), the second
    # e^ε times the first; at δ the pair's ε is ln((Pr′[⊥] − δ)/Pr[⊥]) (the event {0} is
    # less informative). Not in CORRECT: its own tuple, STABILITY.
    delta = 1e-5
    case = C.audit_case("stable_selection", eps, delta=delta)
    t = math.log(1 / delta) / eps
    m = 2 * (math.ceil(t) + 2)
    assert len(case.d) == len(case.d_prime) == m and sum(case.d_prime) == 1
    refuse = 0.5 * math.exp(-eps * (math.ceil(t) + 1 - t))
    assert case.true_epsilon == pytest.approx(
        math.log((refuse * math.exp(eps) - delta) / refuse), rel=1e-9)
    assert case.true_epsilon <= case.claimed_epsilon == eps and case.delta == delta
    assert "stable_selection" in C.STABILITY and "stable_selection" not in C.CORRECT
    out = case.mechanism(case.d, 7, np.random.default_rng(0))
    assert out.shape == (7,) and set(out) <= {0.0, -1.0}


def test_the_stable_selection_audit_stays_below_its_claim():
    # 20,000 runs a side at ε = 1, δ = 1e-5 (seeded): the event ⊥ has probabilities ≈ 0.11 and
    # 0.31, and the 95% Clopper–Pearson bound (half the runs pick the event, half certify)
    # lands at ≈ 0.92, below the claim 1 and above 0.75: the audit sees most of the ε.
    # The same audit of a twin that tests the lead g = c₁ − c₂ (which one record moves by 2)
    # with the same Lap(1/ε) certifies more than the claim: the audit can fail.
    case = C.audit_case("stable_selection", 1.0)
    result = case.audit(20_000, rng=27)
    assert 0.75 < result.epsilon_lower_bound <= case.claimed_epsilon
    assert result.event == "output = -1"

    t = math.log(1e5)

    def lead_twin(lead, size, rng):                   # releases 0 when lead + Lap(1) > t
        return np.where(lead + rng.laplace(0.0, 1.0, size) > t, 0.0, -1.0)
    lead = float(math.ceil(t) + 2)                    # all agree vs one block changed: −2
    from dpteach.audit.runs import audit_mechanism
    broken = audit_mechanism(lead_twin, lead, lead - 2, claimed_epsilon=1.0, delta=1e-5,
                             n_trials=20_000, test="histogram", rng=27)
    assert broken.epsilon_lower_bound > 1.0
