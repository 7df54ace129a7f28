"""PATE's privacy analysis (``dpteach.pate.analysis``).

Checked against (i) the values quoted in the issue from [PSMRTE18] and its analysis code,
(ii) the paper's formulas re-evaluated independently in 50- and 60-digit mpmath (Prop. 7,
Thm 6 with Prop. 10, [PAEGT17] Thm 3 and Lemma 4), also at the ends of the teaching domain,
and (iii) properties the theory promises. The refusal of every bad value of a declared domain
is generated from the declarations (``tests/test_domains.py``); the rules that tie two
arguments together are tested here.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpteach._validation import ParameterError
from dpteach.accounting.convert import rdp_to_epsilon
from dpteach.pate import analysis as P
from dpteach.pate.teachers import VOTES as VOTES_DOMAIN

mp.mp.dps = 50
ORDERS = np.array(P.DEFAULT_PATE_ORDERS)


def pad(rows, k=10):
    return np.array([list(r) + [0] * (k - len(r)) for r in rows], dtype=float)


FIVE = pad([[250], [220, 20, 10], [150, 60, 40], [100, 90, 60], [180, 70]])


# ----------------------------------------------------------------- values quoted in the issue

def test_orders_are_the_papers_grid():
    assert ORDERS[0] == 2.0 and ORDERS[-1] == pytest.approx(500.0, rel=1e-12)
    assert np.all(np.diff(ORDERS) > 0) and 14.5 in ORDERS and ORDERS.size == 296


def test_data_independent_gnmax_100_queries_sigma_40():
    votes = np.tile(pad([[1]]), (100, 1))
    priv = P.pate_epsilon(votes, sigma2=40, delta=1e-5, data_dependent=False)
    # min over the grid of 100λ/1600 + ln(1e5)/(λ−1): at λ = 14.5 (the continuous optimum is
    # 1 + √(16 ln 1e5) ≈ 14.57), 0.90625 + 11.512925/13.5 = 1.7590593.
    assert priv.epsilon == pytest.approx(0.90625 + math.log(1e5) / 13.5, rel=1e-12)
    assert round(priv.epsilon, 3) == 1.759 and priv.order == 14.5
    assert priv.convention == "all" and priv.answered == 100 and not priv.data_dependent


def test_log_q_and_rdp_of_the_issue_histogram():
    votes = pad([[200, 30, 20]])[0]
    assert P.gnmax_log_q(votes, 40) == pytest.approx(-5.659945978, abs=5e-10)
    assert P.gnmax_rdp([20], votes, 40)[0] == pytest.approx(1.9955508e-3, rel=1e-6)


def test_five_queries_expected_cost():
    cost = P.pate_expected_cost(FIVE, sigma2=40, delta=1e-5, threshold=200, sigma1=150)
    assert cost.expected_answered == pytest.approx(2.252493, rel=1e-6)
    assert cost.expected_cost == pytest.approx(0.2505, abs=5e-5)
    assert cost.data_dependent


# ----------------------------------------------------------------- formulas, in mpmath

def _mp_log_q(votes, sigma):
    v = [mp.mpf(int(x)) for x in votes]
    top = max(range(len(v)), key=lambda i: v[i])
    s = sum(mp.erfc((v[top] - v[j]) / (2 * sigma)) / 2 for j in range(len(v)) if j != top)
    return mp.log(min(s, 1 - mp.mpf(1) / len(v)))


def _mp_thm6(log_q, sigma, lam):
    """Thm 6 with Prop. 10's μ's, straight from the paper (no logs), or None if it fails."""
    q, sigma, lam = mp.e ** mp.mpf(log_q), mp.mpf(sigma), mp.mpf(lam)
    mu2 = sigma * mp.sqrt(mp.log(1 / q))
    mu1 = mu2 + 1
    e1, e2 = mu1 / sigma**2, mu2 / sigma**2
    if not (mu2 > 1 and lam <= mu1 and q * mp.e**e2 < 1
            and q <= mp.e ** ((mu2 - 1) * e2) / (mu1 / (mu1 - 1) * mu2 / (mu2 - 1)) ** mu2):
        return None
    a = (1 - q) / (1 - (q * mp.e**e2) ** ((mu2 - 1) / mu2))
    b = mp.e**e1 / q ** (1 / (mu1 - 1))
    return mp.log((1 - q) * a ** (lam - 1) + q * b ** (lam - 1)) / (lam - 1)


@pytest.mark.parametrize("votes,sigma", [
    ([200, 30, 20, 0, 0, 0, 0, 0, 0, 0], 40), ([9, 1], 3), ([250, 0], 40), ([60, 59, 1], 10),
    ([500, 10, 10, 10], 25), ([0, 0, 0], 5)])
def test_log_q_matches_prop7_in_mpmath(votes, sigma):
    assert P.gnmax_log_q(votes, sigma) == pytest.approx(float(_mp_log_q(votes, sigma)), rel=1e-12)


@pytest.mark.parametrize("votes,sigma", [
    ([200, 30, 20, 0, 0, 0, 0, 0, 0, 0], 40), ([250, 0], 40), ([500, 10, 10, 10], 25),
    ([120, 3], 10), ([250, 0, 0, 0, 0], 60), ([1000, 0], 100)])
def test_thm6_matches_mpmath_where_it_applies(votes, sigma):
    lq = float(_mp_log_q(votes, sigma))
    got = P.gnmax_rdp(ORDERS, votes, sigma)
    applied = 0
    for lam, value in zip(ORDERS, got):
        exact = _mp_thm6(lq, sigma, lam)
        if exact is None or exact >= lam / sigma**2:
            assert value == pytest.approx(lam / sigma**2, rel=1e-12)
        else:
            applied += 1
            assert value == pytest.approx(float(exact), rel=1e-6)
    assert applied > 0


def test_lnmax_log_q_is_exact_for_two_classes():
    # P[n1 + L1 > n0 + L0] for i.i.d. Laplace(b): the difference L1 − L0 has tail
    # (2 + Δ/b)e^{−Δ/b}/4 (Lemma 4 of [PAEGT17] is exact with two classes); check by quadrature.
    b, gap = 2.0, 5.0
    f = lambda x: mp.e ** (-abs(x) / b) / (2 * b)                     # noqa: E731
    sf = lambda y: mp.e ** (-y / b) / 2 if y >= 0 else 1 - mp.e ** (y / b) / 2  # noqa: E731
    tail = mp.quad(lambda x: f(x) * sf(x + gap), [-mp.inf, -gap, 0, mp.inf])
    assert math.exp(P.lnmax_log_q([gap, 0], b)) == pytest.approx(float(tail), rel=1e-10)


def test_lnmax_rdp_matches_thm3_in_mpmath():
    votes, b = [40, 2, 1], 2.0
    eps = 2 / b
    q = mp.e ** mp.mpf(P.lnmax_log_q(votes, b))
    assert q < 1 / (mp.e**eps + 1)
    for lam in (2, 5.5, 20, 100):
        m = mp.mpf(lam) - 1
        alpha = mp.log((1 - q) * ((1 - q) / (1 - mp.e**eps * q)) ** m + q * mp.e ** (eps * m))
        expected = min(float(alpha / m), eps, lam * eps**2 / 2)
        assert P.lnmax_rdp([lam], votes, b)[0] == pytest.approx(expected, rel=1e-9)
    assert np.all(P.lnmax_rdp_data_independent(ORDERS, b) == np.minimum(eps, ORDERS * eps**2 / 2))


def test_threshold_probability_and_data_independent_curves():
    # Pr[250 + N(0, 150²) ≥ 200] = Φ(50/150)
    assert math.exp(P.threshold_log_pr_answered(FIVE[0], 200, 150)) == pytest.approx(
        float(mp.ncdf(mp.mpf(50) / 150)), rel=1e-12)
    assert np.allclose(P.threshold_rdp_data_independent(ORDERS, 150), ORDERS / (2 * 150**2),
                       rtol=1e-15)
    assert np.allclose(P.gnmax_rdp_data_independent(ORDERS, 40), ORDERS / 1600, rtol=1e-15)


# ----------------------------------------------------------------- properties

VOTES = st.integers(2, 10).flatmap(lambda k: st.lists(st.integers(0, 400), min_size=k,
                                                      max_size=k))


@settings(max_examples=60, deadline=None)
@given(votes=VOTES, sigma=st.floats(1, 200))
def test_data_dependent_never_above_data_independent(votes, sigma):
    assert np.all(P.gnmax_rdp(ORDERS, votes, sigma) <= P.gnmax_rdp_data_independent(ORDERS, sigma))
    assert np.all(P.threshold_rdp(ORDERS, votes, 100, sigma)
                  <= P.threshold_rdp_data_independent(ORDERS, sigma))
    assert np.all(P.lnmax_rdp(ORDERS, votes, sigma) <= P.lnmax_rdp_data_independent(ORDERS, sigma))


@settings(max_examples=60, deadline=None)
@given(votes=VOTES, sigma=st.floats(2, 100), data=st.data())
def test_more_agreement_never_costs_more(votes, sigma, data):
    # Moving one vote from another class to the plurality raises every gap, lowers q̃ (Prop. 7)
    # and, β being non-decreasing in q̃ (condition C5), cannot raise the cost.
    v = np.array(votes, dtype=float)
    top = int(np.argmax(v))
    others = [j for j in range(v.size) if j != top and v[j] > 0]
    if not others:
        return
    j = data.draw(st.sampled_from(others))
    w = v.copy()
    w[j] -= 1
    w[top] += 1
    assert P.gnmax_log_q(w, sigma) <= P.gnmax_log_q(v, sigma)
    assert np.all(P.gnmax_rdp(ORDERS, w, sigma) <= P.gnmax_rdp(ORDERS, v, sigma) * (1 + 1e-9))


def test_unanimous_votes_cost_far_less():
    # 250 of 250 teachers agree: at orders ≤ 50 the data-dependent RDP is under 7% of λ/σ²
    # (≈ 6.7% at λ = 50), and 100 such answers cost ε ≈ 0.351 where an even split (130 vs
    # 120, for which Thm 6 does not apply) costs the data-independent 1.759.
    unanimous, split = pad([[250]])[0], pad([[130, 120]])[0]
    dd_u = P.gnmax_rdp(ORDERS, unanimous, 40)
    assert np.all(dd_u[ORDERS <= 50] < 0.07 * ORDERS[ORDERS <= 50] / 1600)
    assert np.allclose(P.gnmax_rdp(ORDERS, split, 40), ORDERS / 1600, rtol=1e-14)
    e_u = P.pate_epsilon(np.tile(unanimous, (100, 1)), sigma2=40, delta=1e-5).epsilon
    e_s = P.pate_epsilon(np.tile(split, (100, 1)), sigma2=40, delta=1e-5).epsilon
    assert e_u == pytest.approx(0.3513, abs=1e-4) and e_s == pytest.approx(1.7591, abs=1e-4)


def test_monotone_in_sigma_data_independent_but_not_data_dependent():
    # Data-independent costs fall as σ grows. The data-dependent one need not: with strong
    # agreement and little noise a wrong answer is all but impossible (cost ≈ 0); more noise
    # makes it possible, so the cost first *rises* with σ before λ/σ² takes over.
    sigmas = np.linspace(5, 200, 40)
    ind = np.array([P.gnmax_rdp_data_independent(ORDERS, s) for s in sigmas])
    assert np.all(np.diff(ind, axis=0) < 0)
    votes = pad([[250]])[0]
    dd = np.array([P.gnmax_rdp([20], votes, s)[0] for s in sigmas])
    assert dd[1] > dd[0] and dd[-1] < dd.max()
    eps_ind = [P.pate_epsilon(np.tile(votes, (10, 1)), sigma2=s, delta=1e-5,
                              data_dependent=False).epsilon for s in sigmas]
    assert np.all(np.diff(eps_ind) < 0)


def test_conventions_of_a_confident_gnmax_run():
    rng = np.random.default_rng(3)
    votes = rng.multinomial(250, [0.8, 0.15, 0.05], size=200).astype(float)
    answered = rng.random(200) < 0.5
    thr = P.threshold_rdp(ORDERS, votes, 200, 150).sum(axis=0)
    gn = P.gnmax_rdp(ORDERS, votes, 40)
    got = P.confident_gnmax_rdp(ORDERS, votes, 200, 150, 40, answered=answered)
    assert np.allclose(got, thr + gn[answered].sum(axis=0), rtol=1e-13)
    p = np.exp(P.threshold_log_pr_answered(votes, 200, 150))
    cost = P.pate_expected_cost(votes, sigma2=40, delta=1e-5, threshold=200, sigma1=150,
                                orders=ORDERS)
    assert np.allclose(cost.rdp, thr + (p[:, None] * gn).sum(axis=0), rtol=1e-13)
    assert cost.expected_answered == pytest.approx(p.sum(), rel=1e-13)
    assert cost.expected_cost == rdp_to_epsilon(ORDERS, cost.rdp, 1e-5, "classic")[0]
    priv = P.pate_epsilon(votes, sigma2=40, delta=1e-5, threshold=200, sigma1=150,
                          answered=answered)
    assert priv.convention == "answered" and priv.answered == answered.sum()
    assert priv.epsilon == pytest.approx(rdp_to_epsilon(ORDERS, got, 1e-5, "classic")[0])
    ind = P.pate_epsilon(votes, sigma2=40, delta=1e-5, threshold=200, sigma1=150,
                         answered=answered, data_dependent=False)
    assert ind.epsilon > priv.epsilon
    improved = P.pate_epsilon(votes, sigma2=40, delta=1e-5, threshold=200, sigma1=150,
                              answered=answered, conversion="improved")
    assert improved.epsilon < priv.epsilon


def test_vectorised_over_queries_equals_one_by_one():
    rng = np.random.default_rng(0)
    votes = rng.multinomial(100, [0.6, 0.3, 0.1], size=30).astype(float)
    many = P.gnmax_rdp(ORDERS, votes, 20)
    assert many.shape == (30, ORDERS.size)
    for i in (0, 7, 29):
        assert np.array_equal(many[i], P.gnmax_rdp(ORDERS, votes[i], 20))
    assert np.array_equal(P.gnmax_log_q(votes, 20)[[3]], [P.gnmax_log_q(votes[3], 20)])


# ------------------------------------------------------ exact answers at the domain's ends
# The teaching domain: counts below 2⁵³, σ (and σ₁, b) in [1e-12, 1e15], T in [0, 1e15],
# orders in [1.01, 1e4]. At its ends the results are still exact: checked against 60-digit
# mpmath, written with log1p/expm1 (algebraically the paper's formulas) so that 60 digits
# suffice whatever q̃, σ and λ.
BIG = 2**53 - 1                       # the largest vote count
SIGMA_MIN, SIGMA_MAX = 1e-12, 1e15
DPS = 60


def mp_log_erfc(x):
    """ln erfc(x) for x ≥ 0 (an mpf)."""
    return mp.log(mp.erfc(mp.mpf(x)))


def mp_gnmax_log_q(row, sigma):
    """ln min(1 − 1/k, Σ_{j≠j*} Pr[N(0, 2σ²) ≥ n* − n_j]) ([PSMRTE18] Prop. 7), an mpf."""
    with mp.workdps(DPS):
        top, s = max(row), mp.mpf(sigma)
        others = list(row)
        others.remove(top)
        terms = [mp_log_erfc(mp.mpf(top - x) / (2 * s)) - mp.log(2) for x in others]
        peak = max(terms)
        total = peak + mp.log(mp.fsum(mp.exp(t - peak) for t in terms))
        return min(total, mp.log(1 - mp.mpf(1) / len(row)))


def mp_thm6(log_q, sigma, lam):
    """Thm 6 with Prop. 10's μ's, log1p/expm1 form: (value, or None where a condition fails;
    whether a condition sits within 1e-9 of its boundary)."""
    with mp.workdps(DPS):
        lq, s, lam = mp.mpf(log_q), mp.mpf(sigma), mp.mpf(lam)
        mu2 = s * mp.sqrt(-lq)
        mu1 = mu2 + 1
        e1, e2 = mu1 / s**2, mu2 / s**2

        def near(a, b):
            return abs(a - b) <= mp.mpf(10) ** -9 * max(abs(a), abs(b), mp.mpf(10) ** -300)

        border = near(mu2, 1) or near(lam, mu1) or near(-lq, e2)
        if lq == 0 or not (mu2 > 1 and lam <= mu1 and -lq > e2):
            return None, border
        rhs = (mu2 - 1) * e2 - mu2 * (mp.log1p(1 / (mu1 - 1)) + mp.log1p(1 / (mu2 - 1)))
        border = border or near(lq, rhs)
        if not lq <= rhs:
            return None, border
        q = mp.exp(lq)
        u = e2 * (1 - 1 / mu2) - lq / mu2
        log_a = mp.log1p(q * mp.expm1(u) / -mp.expm1(lq + u))
        log_b = e1 - lq / (mu1 - 1)
        m = lam - 1
        return mp.log1p((1 - q) * mp.expm1(m * log_a) + q * mp.expm1(m * log_b)) / m, border


def thm6_candidates(log_q, sigma, lam):
    """The acceptable float answers: min(Thm 6, λ/σ²), or λ/σ² where Thm 6 does not apply
    (both when a condition sits within 1e-9 of its boundary)."""
    value, border = mp_thm6(log_q, sigma, lam)
    with mp.workdps(DPS):
        cap = mp.mpf(lam) / mp.mpf(sigma) ** 2
        out = [float(cap) if value is None else float(min(value, cap))]
    return out + [float(cap)] if border else out


EDGE_ORDERS = [1.01, 2.0, 20.0, 500.0, 1e4]


@pytest.mark.parametrize("row, sigma", [
    ((BIG, 0), SIGMA_MAX), ((BIG, 0), SIGMA_MIN), ((BIG, BIG - 1), 40.0), ((BIG, 2**52), 1e15),
    ((200, 30, 20, 0, 0), SIGMA_MIN), ((200, 30, 20, 0, 0), SIGMA_MAX), ((6 * 10**15, 0), 3e14),
    ((1, 0), 0.3), ((0, 0, 0), SIGMA_MIN)])
def test_log_q_and_thm6_match_mpmath_at_the_domains_ends(row, sigma):
    lq = P.gnmax_log_q(list(row), sigma)
    ref = mp_gnmax_log_q(row, sigma)
    assert lq == pytest.approx(float(ref), rel=1e-12) and lq <= math.log1p(-1 / len(row))
    got = P.gnmax_rdp(EDGE_ORDERS, list(row), sigma)
    for lam, x in zip(EDGE_ORDERS, got):
        assert 0 <= x <= lam / sigma / sigma
        assert any(x == pytest.approx(c, rel=1e-6, abs=1e-300)
                   for c in thm6_candidates(ref, sigma, lam)), (lam, x)


@pytest.mark.parametrize("lq, sigma, lam", [
    (-5.0, 40.0, 1.01), (-30.0, 150.0, 1.01), (-100.0, SIGMA_MAX, 20.0), (-3.0, SIGMA_MAX, 2.0),
    (-1e60, SIGMA_MIN, 1e4), (-1e60, SIGMA_MAX, 1.01), (0.0, 40.0, 2.0), (-5.66, SIGMA_MIN, 20.0)])
def test_thm6_from_log_q_is_accurate_near_order_one_and_for_huge_sigma(lq, sigma, lam):
    # the log1p/expm1 forms keep the digits of costs far below λ/σ²
    got = P.gnmax_rdp_from_log_q([lam], [lq], sigma)[0, 0]
    assert any(got == pytest.approx(c, rel=1e-6, abs=1e-300)
               for c in thm6_candidates(lq, sigma, lam))


def test_lnmax_rdp_is_accurate_for_huge_counts():
    # [2⁵³ − 1, 0] at scale 1e14 (understated by 29% at λ = 2 before the log1p forms)
    b, lam = 1e14, 2.0
    with mp.workdps(DPS):
        g = mp.mpf(BIG) / b
        lq = mp.log(2 + g) - mp.log(4) - g
        eps = 2 / mp.mpf(b)
        q = mp.exp(lq)
        log_a = mp.log1p(q * mp.expm1(eps) / (1 - mp.exp(eps + lq)))
        ref = mp.log1p((1 - q) * mp.expm1(log_a) + q * mp.expm1(eps))
        ref = float(min(ref, eps, lam * eps**2 / 2))
    assert P.lnmax_log_q([BIG, 0], b) == pytest.approx(float(lq), rel=1e-12)
    assert P.lnmax_rdp([lam], [BIG, 0], b)[0] == pytest.approx(ref, rel=1e-6)


def test_huge_sigma_is_exactly_data_independent():
    # gaps ≤ 10¹² are negligible against σ = 1e15: q̃ is at (or near) its cap, Thm 6's
    # q̃ ≤ ~e⁻² condition fails, and the data-dependent cost is λ/σ² to the last bit
    ind = P.gnmax_rdp_data_independent(ORDERS, SIGMA_MAX)
    for v in ([10**12, 0], pad([[10**12]])[0], [0, 0], [BIG, BIG - 1], [1] + [0] * 9_999):
        assert np.array_equal(P.gnmax_rdp(ORDERS, v, SIGMA_MAX), ind)
    v = pad([[10**12]])[0]
    assert P.pate_epsilon(v, sigma2=SIGMA_MAX, delta=1e-5).epsilon == P.pate_epsilon(
        v, sigma2=SIGMA_MAX, delta=1e-5, data_dependent=False).epsilon
    # k classes and σ ≫ the gaps: q̃ = 1 − 1/k exactly (the cap) for k ≥ 3
    assert P.gnmax_log_q(pad([[10**6]])[0], SIGMA_MAX) == math.log1p(-0.1)


def test_tiny_sigma_with_a_clear_winner_costs_nothing_at_low_orders():
    # σ ≪ gap: a wrong answer has probability e^{−gap²/(4σ²)}; Thm 6 gives 0 at orders
    # λ − 1 < μ₂²/(2μ₂ + 1) ≈ gap_min/4 (here 170/4 = 42.5) and λ/σ² above
    v = pad([[200, 30, 20]])[0]
    for sigma in (1e-3, 1e-6, SIGMA_MIN):
        assert np.all(P.gnmax_rdp([2.0, 20.0, 40.0], v, sigma) == 0.0)
        assert P.gnmax_rdp([100.0], v, sigma)[0] == pytest.approx(100 / sigma**2, rel=1e-12)
    # the threshold step, top 250 ≫ T = 100 with tiny σ₁: always answers, cost 0 at low
    # orders; top = T + 1: the neighbour with top = T answers with probability ½, so the cost
    # is the full λ/(2σ₁²), finite at the domain's end
    assert np.all(P.threshold_rdp([2.0, 20.0], [250, 0], 100, SIGMA_MIN) == 0.0)
    assert P.threshold_rdp([2.0], [201, 0], 200, SIGMA_MIN)[0] == pytest.approx(1e24, rel=1e-12)
    assert np.all(P.lnmax_rdp([2.0, 20.0], v, 1e-3) == 0.0)
    assert np.all(np.isfinite(P.lnmax_rdp([2.0, 20.0, 500.0], v, SIGMA_MIN)))


def test_huge_counts_up_to_two_to_the_53():
    r = P.gnmax_rdp(ORDERS, [BIG, BIG - 1], 40)          # a gap of one vote: as [1, 0]
    assert np.array_equal(r, P.gnmax_rdp(ORDERS, [1, 0], 40))
    assert np.all(P.gnmax_rdp(ORDERS, [BIG, 0], 40) == 0.0)
    with pytest.raises(ParameterError, match="votes"):
        P.gnmax_rdp(ORDERS, [2**53, 0], 40)
    with pytest.raises(ParameterError, match="votes"):
        VOTES_DOMAIN("votes", np.array([2**53 + 1, 0], dtype=np.int64))
    # 10,000 classes, all zero: q̃ is the cap 1 − 1/k, the cost data-independent
    assert P.gnmax_log_q([0] * 10_000, 40) == math.log1p(-1e-4)
    assert np.array_equal(P.gnmax_rdp(ORDERS, [0] * 10_000, 40),
                          P.gnmax_rdp_data_independent(ORDERS, 40))
    with pytest.raises(ParameterError, match="votes"):
        P.gnmax_log_q([0] * 10_001, 40)


def test_threshold_far_above_or_below_every_vote():
    # T = 1e15 ≫ every vote: never answered, the step is certain and costs nothing
    assert P.threshold_log_pr_answered([0, 0], 1e15, 1.0) < -4.9e29      # ln Φ(−1e15)
    assert np.all(P.threshold_rdp(P.DEFAULT_PATE_ORDERS, [250, 0], 1e15, 150) == 0.0)
    e = P.pate_expected_cost(FIVE, sigma2=40, delta=1e-5, threshold=1e15, sigma1=150)
    assert e.expected_answered == 0.0 and e.expected_cost == 0.0
    # T = 0 and a huge top: always answered
    assert P.threshold_log_pr_answered([BIG, 0], 0.0, 1.0) == 0.0
    # never answered, GNMax at the smallest σ: only the threshold step is paid
    r = P.pate_expected_cost([1, 0], threshold=1e15, sigma1=150.0, sigma2=SIGMA_MIN,
                             delta=1e-5, data_dependent=False, orders=[2.0, 20.0]).rdp
    assert np.array_equal(r, P.threshold_rdp_data_independent([2.0, 20.0], 150.0))


def test_answered_nothing_costs_only_the_threshold_step():
    none = np.zeros(5, bool)
    assert P.pate_epsilon(FIVE, sigma2=40, delta=1e-5, answered=none).epsilon == 0.0
    thr = P.threshold_rdp(P.DEFAULT_PATE_ORDERS, FIVE, 200, 150).sum(axis=0)
    got = P.confident_gnmax_rdp(P.DEFAULT_PATE_ORDERS, FIVE, 200, 150, 40, answered=none)
    assert np.array_equal(got, thr)


def test_data_independent_curves_are_exact_at_the_domains_ends():
    with mp.workdps(DPS):
        for s in (SIGMA_MIN, 40.0, SIGMA_MAX):
            for lam, x in zip(EDGE_ORDERS, P.gnmax_rdp_data_independent(EDGE_ORDERS, s)):
                assert x == pytest.approx(float(mp.mpf(lam) / mp.mpf(s) ** 2), rel=1e-15)
            for lam, x in zip(EDGE_ORDERS, P.threshold_rdp_data_independent(EDGE_ORDERS, s)):
                assert x == pytest.approx(float(mp.mpf(lam) / mp.mpf(s) ** 2 / 2), rel=1e-15)
            eps = 2 / mp.mpf(s)
            for lam, x in zip(EDGE_ORDERS, P.lnmax_rdp_data_independent(EDGE_ORDERS, s)):
                assert x == pytest.approx(float(min(eps, lam * eps**2 / 2)), rel=1e-14)


# ------------------------------------------------------ rules tying arguments together
@pytest.mark.parametrize("call, name", [
    (lambda: P.pate_epsilon(FIVE, sigma2=40, delta=1e-5, threshold=200), "sigma1"),
    (lambda: P.pate_epsilon(FIVE, sigma2=40, delta=1e-5, sigma1=150), "threshold"),
    (lambda: P.pate_epsilon(FIVE, sigma2=40, delta=1e-5, answered=[True] * 4), "answered"),
    (lambda: P.lnmax_epsilon(FIVE, scale=4, delta=1e-5, answered=[True] * 6), "answered"),
    (lambda: P.confident_gnmax_rdp([2], FIVE, 200, 150, 40, answered=[True]), "answered"),
])
def test_rules_that_tie_arguments_are_refused_by_name(call, name):
    with pytest.raises(ParameterError, match=rf"\b{name}\b"):
        call()


def test_a_scalar_order_is_one_order():
    assert P.gnmax_rdp(20.0, FIVE[0], 40).shape == (1,)
    assert P.gnmax_rdp_data_independent(20.0, 40).tolist() == [20 / 1600]
