"""PATE's privacy analysis: dpteach.pate.analysis and dpteach.pate.release.

Checked against (i) the values quoted in the issue from [PSMRTE18] and its analysis code,
(ii) the paper's formulas re-evaluated independently in 50-digit mpmath (Prop. 7, Thm 6 with
Prop. 10, [PAEGT17] Thm 3 and Lemma 4, Thm 23), (iii) brute force over every neighbouring vote
histogram (local sensitivities) and (iv) properties the theory promises.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from _props import BAD_RNG, NOT_BOOL, NOT_NUMERIC, assert_rejects_bad_values, call_rejects
from hypothesis import given, settings
from hypothesis import strategies as st

from dpteach._validation import ParameterError
from dpteach.pate import analysis as P
from dpteach.pate import release as R
from dpteach.accounting.convert import rdp_to_epsilon

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


def test_five_queries_expected_cost_convention():
    priv = P.pate_epsilon(FIVE, sigma2=40, delta=1e-5, threshold=200, sigma1=150)
    assert priv.answered == pytest.approx(2.252493, rel=1e-6)
    assert priv.epsilon == pytest.approx(0.2505, abs=5e-5)
    assert priv.convention == "expected" and priv.data_dependent


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
        l = mp.mpf(lam) - 1
        alpha = mp.log((1 - q) * ((1 - q) / (1 - mp.e**eps * q)) ** l + q * mp.e ** (eps * l))
        expected = min(float(alpha / l), eps, lam * eps**2 / 2)
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
    expected = P.confident_gnmax_rdp(ORDERS, votes, 200, 150, 40)
    assert np.allclose(expected, thr + (p[:, None] * gn).sum(axis=0), rtol=1e-13)
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


# ----------------------------------------------------------------- smooth sensitivity

def _neighbours(w):
    """Every histogram one changed vote away from w, as rows of an array."""
    rows = []
    for i in range(w.size):
        for j in range(w.size):
            if i != j and w[i] > 0:
                x = w.copy()
                x[i] -= 1
                x[j] += 1
                rows.append(x)
    return np.array(rows)


@pytest.mark.parametrize("sigma,order,k,n", [(40, 20, 10, 250), (40, 60, 10, 250),
                                             (10, 8, 5, 60), (40, 20, 2, 250), (5, 3, 3, 60)])
def test_local_sensitivity_bounds_hold_by_brute_force(sigma, order, k, n):
    # LS⁽⁰⁾ and LS⁽¹⁾ by enumerating every neighbour (and every neighbour of a neighbour).
    rng = np.random.default_rng(sigma + order + k)
    beta = lambda x: P.gnmax_rdp([order], x, sigma)[..., 0]           # noqa: E731
    tight = 0.0
    fixed = [np.eye(k)[0] * n, np.eye(k)[0] * (n - n // 10) + np.eye(k)[1] * (n // 10)]
    random = [rng.multinomial(n, rng.dirichlet(np.full(k, 0.3))).astype(float) for _ in range(8)]
    for w in fixed + random:
        near = _neighbours(w)
        b_near = beta(near)
        ls0 = np.abs(b_near - beta(w)).max()
        ls1 = max(np.abs(beta(_neighbours(x)) - bx).max() for x, bx in zip(near, b_near))
        bound = R.gnmax_local_sensitivities(w, sigma, order, n)
        assert ls0 <= bound[0] * (1 + 1e-9) + 1e-15
        assert max(ls0, ls1) <= bound[1] * (1 + 1e-9) + 1e-15
        assert np.all(np.diff(bound) >= -1e-15)          # LS⁽ᵈ⁾ is a max over a growing set
        tight = max(tight, ls0 / bound[0] if bound[0] else 0)
    assert tight > 0.3                                    # and not vacuous


def test_two_class_bound_is_exact_at_distance_zero():
    # With two classes q̃ is one Gaussian tail, so Prop. 13's BU/BL are attained.
    w = np.array([190.0, 60.0])
    ls0 = np.abs(P.gnmax_rdp([20], _neighbours(w), 40)[:, 0] - P.gnmax_rdp([20], w, 40)[0]).max()
    assert R.gnmax_local_sensitivities(w, 40, 20)[0] == pytest.approx(ls0, rel=1e-9)


def test_conditions_and_q0():
    assert R.check_gnmax_conditions(40, 20, 10) == (True, True)
    assert R.check_gnmax_conditions(40, 60, 10) == (True, False)   # C6 fails: looser bound used
    lq0 = R.gnmax_log_q0(40, 20)
    below = P.gnmax_rdp_from_log_q([20], [lq0 - 1e-6], 40)[0, 0]
    above = P.gnmax_rdp_from_log_q([20], [lq0 + 1e-6], 40)[0, 0]
    assert below < 20 / 1600 and above == pytest.approx(20 / 1600, rel=1e-12)


def test_threshold_local_sensitivities_by_brute_force():
    n, T, s1, lam = 60, 45, 8.0, 10
    b = lambda top: P.threshold_rdp([lam], [top, n - top], T, s1)[0]   # noqa: E731
    table = [b(t) for t in range(n + 1)]
    for top in (0, 30, 44, 52, 60):
        w = np.array([top, n - top], dtype=float) if top >= n / 2 else np.array([n - top, top],
                                                                                dtype=float)
        ls = R.threshold_local_sensitivities(w, T, s1, lam, n)
        v = int(w.max())
        for d in (0, 1, 5):
            exact = max(abs(table[u + 1] - table[u]) for u in range(n)
                        if u + 1 >= v - d and u <= v + d)
            assert ls[d] == pytest.approx(exact, rel=1e-12, abs=1e-300)


def test_smooth_sensitivity_and_gnss():
    # max(1, 3/e, 3/e², 10/e³) = 3/e
    assert R.smooth_sensitivity([1.0, 3.0, 3.0, 10.0], 1.0) == pytest.approx(3 * math.exp(-1))
    assert R.smooth_sensitivity([1.0, 3.0, 3.0, 30.0], 1.0) == pytest.approx(30 * math.exp(-3))
    assert R.smooth_sensitivity([2.0, 2.0], 0.5) == 2.0
    lam, b, s = 20.0, 0.02, 5.0
    exact = lam * mp.e ** (2 * b) / s**2 + (b * lam - mp.log(1 - 2 * lam * b) / 2) / (lam - 1)
    assert R.gnss_rdp([lam], b, s)[0] == pytest.approx(float(exact), rel=1e-12)
    with pytest.raises(ParameterError, match="orders"):
        R.gnss_rdp([30.0], 1 / 40, 5.0)


def test_sanitised_release_is_unbiased_and_labelled():
    rng = np.random.default_rng(0)
    votes = rng.multinomial(250, [0.9, 0.1], size=300).astype(float)
    answered = rng.random(300) < 0.5
    kw = dict(sigma2=40, delta=1e-5, order=20, threshold=300, sigma1=200, sigma_ss=6.0)
    runs = [R.sanitised_epsilon(votes, answered, rng=seed, **kw) for seed in range(400)]
    first = runs[0]
    assert not first.sigma_ss_from_data and first.sigma_ss == 6.0
    expected_private = (P.confident_gnmax_rdp([20], votes, 300, 200, 40, answered=answered)[0]
                        + math.log(1e5) / 19)
    assert first.private_epsilon == pytest.approx(expected_private, rel=1e-12)
    assert first.release_cost == pytest.approx(R.gnss_rdp([20], 0.02, 6.0)[0])
    z = np.array([(r.released - r.private_epsilon - r.release_cost)
                  / (r.smooth_sensitivity * r.sigma_ss) for r in runs])
    # z should be 400 draws of N(0, 1): the mean has sd 1/√400 = 0.05 (4 sd: 0.2) and the
    # variance's estimator sd √(2/399) ≈ 0.071 (4 sd: 0.28).
    assert abs(z.mean()) < 0.2 and abs(z.var(ddof=1) - 1) < 0.28
    assert R.sanitised_epsilon(votes, answered, rng=1, **kw) == runs[1]   # seeded
    tuned = R.sanitised_epsilon(votes, answered, **{**kw, "sigma_ss": None}, rng=0)
    assert tuned.sigma_ss_from_data


# ----------------------------------------------------------------- bad input

GOOD = pad([[200, 30, 20]])


@pytest.mark.parametrize("bad", [[[]], [-1, 3], [1.5, 3], [3], [[np.nan, 1]], [[1, np.inf]],
                                 np.zeros((2, 0))])
def test_bad_votes_are_named(bad):
    for func, kw in [(P.gnmax_log_q, {"sigma": 1.0}), (P.gnmax_rdp, {"orders": [2], "sigma": 1}),
                     (P.threshold_log_pr_answered, {"threshold": 1, "sigma1": 1}),
                     (P.lnmax_rdp, {"orders": [2], "scale": 1}),
                     (P.pate_epsilon, {"sigma2": 1, "delta": 1e-5}),
                     (R.gnmax_local_sensitivities, {"sigma": 1, "order": 2})]:
        call_rejects(func, {**kw, "votes": bad}, "votes")


NOT_POSITIVE = st.sampled_from([0, -1.0, -1e-300, float("nan"), float("inf")])


def test_bad_parameters_are_named():
    v = GOOD
    assert_rejects_bad_values(P.gnmax_log_q, {"votes": v}, "sigma", NOT_POSITIVE)
    assert_rejects_bad_values(P.lnmax_log_q, {"votes": v}, "scale", NOT_POSITIVE)
    assert_rejects_bad_values(P.gnmax_rdp, {"orders": [2], "votes": v}, "sigma", NOT_POSITIVE)
    assert_rejects_bad_values(P.gnmax_rdp_from_log_q, {"orders": [2], "log_q": -3}, "sigma",
                              NOT_POSITIVE)
    assert_rejects_bad_values(P.gnmax_rdp_from_log_q, {"orders": [2], "sigma": 3}, "log_q",
                              st.sampled_from([0.5, float("nan"), "x", [[1.0]]]))
    assert_rejects_bad_values(P.gnmax_rdp_data_independent, {"orders": [2]}, "sigma", NOT_POSITIVE)
    assert_rejects_bad_values(P.threshold_rdp_data_independent, {"orders": [2]}, "sigma1",
                              NOT_POSITIVE)
    assert_rejects_bad_values(P.lnmax_rdp_data_independent, {"orders": [2]}, "scale", NOT_POSITIVE)
    assert_rejects_bad_values(P.lnmax_rdp, {"orders": [2], "votes": v}, "scale", NOT_POSITIVE)
    assert_rejects_bad_values(P.gnmax_rdp, {"votes": v, "sigma": 1}, "orders",
                              st.sampled_from([1, 0.5, [2, 1], "2"]))
    assert_rejects_bad_values(P.threshold_log_pr_answered, {"votes": v, "sigma1": 1}, "threshold",
                              st.one_of(st.sampled_from([-1, -1e-9, float("nan")]), NOT_NUMERIC))
    assert_rejects_bad_values(P.threshold_rdp, {"orders": [2], "votes": v, "sigma1": 1},
                              "threshold", st.sampled_from([-1, float("nan")]))
    assert_rejects_bad_values(P.threshold_rdp, {"orders": [2], "votes": v, "threshold": 1},
                              "sigma1", NOT_POSITIVE)
    base = {"orders": [2], "votes": v, "threshold": 1, "sigma1": 1, "sigma2": 1}
    for arg in ("sigma1", "sigma2"):
        assert_rejects_bad_values(P.confident_gnmax_rdp, {k: x for k, x in base.items()
                                                          if k != arg}, arg, NOT_POSITIVE)
    assert_rejects_bad_values(P.confident_gnmax_rdp, base, "answered",
                              st.sampled_from([[True, False], [1], np.ones(3, bool), "yes"]))
    assert_rejects_bad_values(P.confident_gnmax_rdp, base, "data_dependent", NOT_BOOL)
    pe = {"votes": v, "sigma2": 1, "delta": 1e-5}
    assert_rejects_bad_values(P.pate_epsilon, pe, "delta", st.sampled_from([0, 1, -0.1, 2]))
    assert_rejects_bad_values(P.pate_epsilon, pe, "conversion", st.sampled_from(["x", 1]))
    assert_rejects_bad_values(P.pate_epsilon, {**pe, "threshold": 1}, "sigma1",
                              st.sampled_from([None]))
    assert_rejects_bad_values(P.lnmax_epsilon, {"votes": v, "delta": 1e-5}, "scale", NOT_POSITIVE)
    assert_rejects_bad_values(P.lnmax_epsilon, {"votes": v, "scale": 1}, "delta",
                              st.sampled_from([0, 1]))
    assert_rejects_bad_values(P.check_votes, {"name": "votes"}, "votes",
                              st.sampled_from([[1], [-1, 2], [0.5, 1], "ab", None]))
    assert_rejects_bad_values(R.gnmax_log_q0, {"order": 2}, "sigma", NOT_POSITIVE)
    assert_rejects_bad_values(R.gnmax_log_q0, {"sigma": 2}, "order", st.sampled_from([1, 0, "2"]))
    assert_rejects_bad_values(R.check_gnmax_conditions, {"sigma": 2, "order": 3}, "num_classes",
                              st.sampled_from([1, 2.0, 10**6]))
    assert_rejects_bad_values(R.gnmax_local_sensitivities, {"votes": v, "sigma": 1, "order": 2},
                              "num_teachers", st.sampled_from([10, 0, 2.5, 10**9]))
    assert_rejects_bad_values(R.threshold_local_sensitivities,
                              {"votes": v, "sigma1": 1, "order": 2}, "threshold",
                              st.sampled_from([-1, float("nan")]))
    assert_rejects_bad_values(R.smooth_sensitivity, {"beta": 1}, "local_sensitivities",
                              st.sampled_from([[-1.0], [], [[1.0]], [float("nan")]]))
    assert_rejects_bad_values(R.smooth_sensitivity, {"local_sensitivities": [1.0]}, "beta",
                              NOT_POSITIVE)
    assert_rejects_bad_values(R.gnss_rdp, {"orders": [2], "beta": 0.1}, "sigma_ss", NOT_POSITIVE)
    sa = {"votes": v, "sigma2": 1, "delta": 1e-5, "order": 2}
    assert_rejects_bad_values(R.sanitised_epsilon, sa, "beta",
                              st.sampled_from([0, 0.25, 1, -1]))
    assert_rejects_bad_values(R.sanitised_epsilon, sa, "rng", BAD_RNG)
    assert_rejects_bad_values(R.sanitised_epsilon, sa, "order", st.sampled_from([1, 0.5]))


def test_more_teachers_than_the_release_can_take_is_refused():
    votes = np.tile([50_000, 50_000], (1000, 1))
    with pytest.raises(ParameterError, match="num_teachers"):
        R.sanitised_epsilon(votes, sigma2=40, delta=1e-5, order=20)
