"""Publishing PATE's data-dependent ε (``dpteach.pate.release``): local sensitivities by brute
force over every neighbouring vote histogram, smooth sensitivity and the GNSS RDP against
mpmath, the release's unbiasedness, and the rules that tie its arguments together."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from dpteach._validation import ParameterError
from dpteach.pate import analysis as P
from dpteach.pate import release as R

mp.mp.dps = 50


def pad(rows, k=10):
    return np.array([list(r) + [0] * (k - len(r)) for r in rows], dtype=float)


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
    lq0 = R._log_q0(40, 20)
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


def test_more_teachers_than_the_release_can_take_is_refused():
    votes = np.tile([50_000, 50_000], (1000, 1))
    with pytest.raises(ParameterError, match="n_teachers"):
        R.sanitised_epsilon(votes, sigma2=40, delta=1e-5, order=20)


# ------------------------------------------------------ exact answers at the domain's ends
def test_n_teachers_at_its_limits():
    w = [250, 0]
    assert R.gnmax_local_sensitivities(w, 40, 20, n_teachers=R.MAX_TEACHERS).shape == (100_001,)
    with pytest.raises(ParameterError, match="n_teachers"):
        R.gnmax_local_sensitivities(w, 40, 20, n_teachers=R.MAX_TEACHERS + 1)
    with pytest.raises(ParameterError, match="n_teachers"):
        R.gnmax_local_sensitivities(w, 40, 20, n_teachers=249)        # fewer than the votes
    one = R.gnmax_local_sensitivities([1, 0], 40, 20, n_teachers=1)
    assert one.shape == (2,) and np.all(one >= 0)
    with pytest.raises(ParameterError, match="n_teachers"):
        R.sanitised_epsilon([[2**53 - 1, 0]], sigma2=40, delta=1e-5, order=20)
    with pytest.raises(ParameterError, match="n_teachers"):           # all-zero votes: N ≥ 1
        R.gnmax_local_sensitivities([0, 0], 40, 20)
    assert R.gnmax_local_sensitivities([0, 0], 40, 20, n_teachers=5).shape == (6,)


V3 = [[200, 30, 20, 0, 0], [100, 90, 60, 0, 0], [250, 0, 0, 0, 0]]


def test_answered_nothing_releases_the_threshold_step_only():
    s = R.sanitised_epsilon(V3, np.zeros(3, bool), sigma2=40, delta=1e-5, order=20, rng=0,
                            sigma_ss=6.0)
    assert s.smooth_sensitivity == 0.0 and s.released == s.private_epsilon + s.release_cost


def test_the_smallest_delta_and_sigma1_release_finite_numbers():
    # δ = 1e-50 (the domain's end): the private ε is the RDP plus ln(1/δ)/(λ − 1), exactly
    s = R.sanitised_epsilon(V3, sigma2=40, delta=1e-50, order=20, rng=0, sigma_ss=6.0)
    expected = P.gnmax_rdp([20.0], V3, 40)[:, 0].sum() - math.log(1e-50) / 19
    assert s.private_epsilon == pytest.approx(expected, rel=1e-12)
    # σ₁ = 1e-12 with a top vote at T = 200: that query's threshold step costs the full
    # λ/(2σ₁²) = 1e25, finite; the local sensitivities are finite and at most that too
    s = R.sanitised_epsilon(V3, sigma2=40, delta=1e-5, order=20, rng=0, threshold=200,
                            sigma1=1e-12)
    assert math.isfinite(s.released) and s.private_epsilon == pytest.approx(1e25, rel=1e-12)
    ls = R.threshold_local_sensitivities(pad([[200, 30, 20]])[0], 200, 1e-12, 20)
    assert np.all(np.isfinite(ls)) and ls.min() >= 0 and ls.max() <= 1e25 * (1 + 1e-12)


def test_a_tiny_sigma_gets_its_smooth_sensitivity():
    # At σ = 1e-5 and λ = 20, Thm 6 beats λ/σ² only below ln q̃ ≈ −3.6e12 (it needs
    # λ ≤ μ₁ = σ√(ln 1/q̃) + 1). A unanimous query sits far below (cost 0), a split one
    # 124 teachers away costs the full 2e11: the cost depends on the votes, so the local
    # sensitivity must not be 0. (The search for q₀ used to stop at ln q̃ = −1e12 and
    # report "Thm 6 never helps": every local sensitivity 0, a release without noise.)
    lam, sigma = 20.0, 1e-5
    costs = P.gnmax_rdp([lam], [[250, 0], [126, 124]], sigma)[:, 0]
    assert costs[0] == 0.0 and costs[1] == pytest.approx(lam / sigma**2, rel=1e-12)
    assert -3.7e12 < R._log_q0(sigma, lam) < -3.6e12
    ls = R.gnmax_local_sensitivities([250, 0], sigma, lam)
    assert ls[-1] == pytest.approx(lam / sigma**2, rel=1e-9)
    assert R.smooth_sensitivity(ls, 0.02) > 0
    # the smallest σ of the domain: the search reaches ln q̃ ≈ −3.6e26
    assert -3.7e26 < R._log_q0(1e-12, lam) < -3.6e26


# ------------------------------------------------------ rules tying arguments together
@pytest.mark.parametrize("call, name", [
    (lambda: R.gnss_rdp([30.0], 1 / 40, 5.0), "orders"),                 # λ < 1/(2b)
    (lambda: R.sanitised_epsilon(V3, sigma2=40, delta=1e-5, order=20, beta=0.025), "beta"),
    (lambda: R.sanitised_epsilon(V3, sigma2=40, delta=1e-5, order=20, threshold=200),
     "sigma1"),
    (lambda: R.sanitised_epsilon(V3, [True, False], sigma2=40, delta=1e-5, order=20),
     "answered"),
    (lambda: R.threshold_local_sensitivities(V3, 200, 150, 20, n_teachers=10), "n_teachers"),
    (lambda: R.gnmax_local_sensitivities(np.tile([25, 25], (200, 1)), 40, 20,
                                         n_teachers=R.MAX_WORK // 200), "n_teachers"),
])
def test_rules_that_tie_arguments_are_refused_by_name(call, name):
    with pytest.raises(ParameterError, match=rf"\b{name}\b"):
        call()
