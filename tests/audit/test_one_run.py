"""The one-run audit of Steinke, Nasr & Jagielski (2023) (dpteach.audit.one_run) and the
planted bugs of dpteach.audit.bugs.

The bound is checked against the paper's worked example (m = 1000 canaries, r = 100 guesses,
v = 75 correct, δ = 1e-4, β = 0.05 → ε ≥ 0.673, their Appendix D) and, with δ = 0, against its
definition (P[Binomial(r, e^ε/(1+e^ε)) ≥ v] = β at the bound). The DP-SGD audit is run once on
a correct DPSGDClassifier (bound ≤ its reported ε, with probability ≥ 95% by the theorem; seed
fixed, so the test is deterministic) and once on the planted bug that forgets to clip (every
guess right: the bound is the largest 200 guesses allow, ≈ 4.2, above the claimed ≈ 1.8).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

from dpteach.audit import bugs as BUG
from dpteach.audit import one_run as O
from dpteach._validation import ParameterError
from dpteach.accounting.calibrate import epsilon_for_noise_multiplier
from dpteach.datasets import make_toy_data
from dpteach.learning.dpsgd import DPSGDClassifier
from dpteach.mechanisms.randomized_response import rr_gamma_from_epsilon

DPSGD = dict(noise_multiplier=3.0, max_grad_norm=1.0, batch_size=200, epochs=10,
             learning_rate=1.0, hidden=())


# ------------------------------------------------------------------------------ the bound
def test_the_papers_example():
    assert O.one_run_audit_bound(1000, 100, 75, delta=1e-4, beta=0.05) == pytest.approx(
        0.673, abs=5e-4)


def test_delta_zero_bound_is_the_binomial_tail_quantile():
    eps = O.one_run_audit_bound(1000, 100, 75, beta=0.05)
    assert eps == pytest.approx(0.7022, abs=1e-4)
    assert stats.binom.sf(74, 100, special.expit(eps)) == pytest.approx(0.05, rel=1e-8)
    # δ > 0 only ever lowers the bound
    assert O.one_run_audit_bound(1000, 100, 75, delta=1e-4) < eps


def test_p_value_grows_with_epsilon_and_has_the_delta_term():
    grid = np.linspace(0, 3, 61)
    p = [O.one_run_p_value(1000, 100, 75, e, 1e-4) for e in grid]
    assert np.all(np.diff(p) >= 0)
    # the δ term: 2mδ·max_i P[v − i ≤ W < v]/i, recomputed term by term
    m, r, v, e, d = 50, 20, 15, 0.5, 1e-3
    q = math.exp(e) / (1 + math.exp(e))
    alpha = max(sum(stats.binom.pmf(v - j, r, q) for j in range(1, i + 1)) / i
                for i in range(1, v + 1))
    assert O.one_run_p_value(m, r, v, e, d) == pytest.approx(
        stats.binom.sf(v - 1, r, q) + 2 * m * d * alpha, rel=1e-10)
    assert O.one_run_p_value(10, 10, 0, 1.0) == 1.0


def test_edge_counts():
    assert O.one_run_audit_bound(1000, 0, 0) == 0.0              # no guesses: nothing
    assert O.one_run_audit_bound(1000, 100, 50) == 0.0           # chance accuracy
    # all r right: P[Bin(r, q) ≥ r] = q^r = β → ε = logit(β^{1/r})
    eps = O.one_run_audit_bound(1000, 200, 200)
    assert eps == pytest.approx(special.logit(0.05 ** (1 / 200)), rel=1e-9)
    # the domain's far corner: 10**6 guesses all right at β = 1e-6 (δ = 0): the same closed
    # form, about 11.2, so the doubling search for an upper end stops by 16
    eps = O.one_run_audit_bound(10**9, 10**6, 10**6, beta=1e-6)
    assert eps == pytest.approx(special.logit(1e-6 ** (1 / 10**6)), rel=1e-9) and eps < 12


# ----------------------------------------------------------------------------- guesses
def test_guesses_and_counting():
    scores = [0.1, 5.0, -3.0, 2.0, 0.0, -1.0]
    g = O.one_run_guesses(scores, 2, 1)
    assert g.tolist() == [0, 1, -1, 1, 0, 0]
    res = O.one_run_audit(scores, [False, True, False, False, True, True], k_plus=2, k_minus=1)
    assert (res.m, res.r, res.v) == (6, 3, 2) and res.accuracy == pytest.approx(2 / 3)
    assert res.epsilon_lower_bound == O.one_run_audit_bound(6, 3, 2)


def test_randomized_response_canaries_are_audited_near_their_epsilon():
    # canary i's score is ε-DP randomized response of its bit: the bound should be below ε
    # (with probability ≥ 95%) and, with 10,000 guesses at accuracy e/(1+e) = 0.731, near it
    rng = np.random.default_rng(0)
    m, eps = 10_000, 1.0
    inc = rng.random(m) < 0.5
    truth = rng.random(m) < 0.5 + rr_gamma_from_epsilon(eps)
    reported = np.where(truth, inc, ~inc)
    scores = reported + 0.01 * rng.random(m)                # tie-break, independent of inc
    res = O.one_run_audit(scores, inc, k_plus=m // 2, k_minus=m // 2)
    # accuracy ~ 0.731 ± 0.0044 (binomial SE on 10,000): the bound ≈ logit(0.731 − 1.64·SE)
    assert 0.9 < res.epsilon_lower_bound <= eps


# ------------------------------------------------------------------ DP-SGD with canaries
@pytest.fixture(scope="module")
def toy():
    return make_toy_data(1000, rng=0)


def test_canaries_have_a_column_each(toy):
    X, y = toy
    Xt, yt, can, labels, inc = O.add_canaries(X, y, 50, scale=3.0, rng=1)
    assert Xt.shape == (1000 + inc.sum(), 52) and can.shape == (50, 52)
    assert np.all(Xt[:1000, 2:] == 0) and np.all(can[:, :2] == 0)
    assert np.array_equal(np.count_nonzero(can, axis=0)[2:], np.ones(50))
    assert set(np.unique(labels)) <= {0, 1} and 10 < inc.sum() < 40


def test_correct_dpsgd_run_stays_below_its_claim(toy):
    X, y = toy
    res = O.one_run_audit_dpsgd(DPSGDClassifier(**DPSGD, rng=1), X, y, n_canaries=1000,
                                canary_scale=100.0, k_plus=100, k_minus=100, rng=11)
    assert 1.5 < res.claimed_epsilon < 2.5 and res.delta == 1e-5
    assert res.audit.r == 200 and not res.refuted
    assert res.epsilon_lower_bound <= res.claimed_epsilon


def test_dpsgd_that_forgets_to_clip_is_caught_in_one_run(toy):
    X, y = toy
    bug = BUG.DPSGDClassifierWithoutClipping(**DPSGD, rng=1)
    res = O.one_run_audit_dpsgd(bug, X, y, n_canaries=1000, canary_scale=100.0,
                                k_plus=100, k_minus=100, rng=11)
    # the claim is the accountant's ε of a clipped run with the same σ, q and steps
    fitted = res.classifier
    assert res.claimed_epsilon == pytest.approx(epsilon_for_noise_multiplier(
        noise_multiplier=3.0, delta=1e-5, sample_rate=fitted.sample_rate_,
        steps=fitted.n_steps_), rel=1e-12)
    assert fitted.noise_multiplier_ == 3.0 and fitted.history_["epsilon"][-1] == fitted.epsilon_
    assert 1.5 < res.claimed_epsilon < 2.5
    assert res.audit.v >= 195 and res.refuted
    assert res.epsilon_lower_bound > 2 * res.claimed_epsilon


# ------------------------------------------------------------------------ the planted bugs
def test_laplace_half_scale_has_half_the_scale():
    x = BUG.laplace_half_scale(np.zeros(200_000), 1.0, 1.0, rng=0)
    # mean |Lap(b)| = b = 0.5; its SE is b/√n = 0.0011: 6 SE = 0.007
    assert abs(np.mean(np.abs(x)) - 0.5) < 0.007
    assert type(BUG.laplace_half_scale(3.0, 1.0, 1.0, rng=0)) is float


def test_rr_wrong_epsilon_tells_the_truth_too_often():
    r = BUG.randomized_response_wrong_epsilon(np.ones(200_000, dtype=int), 1.0, rng=0)
    p = math.exp(2) / (1 + math.exp(2))                      # the 2ε-DP truth rate, 0.881
    assert abs(r.mean() - p) < 6 * math.sqrt(p * (1 - p) / 200_000)
    # up to ε = 18 its truth probability e^{2ε}/(1 + e^{2ε}) is below 1 in floating point
    for bad in (19.0, 40.0):
        with pytest.raises(ParameterError, match=r"epsilon must be a number in \[1e-06, 18\]"):
            BUG.randomized_response_wrong_epsilon([1], bad)
    assert set(BUG.randomized_response_wrong_epsilon([0, 1] * 50, 18.0, rng=0)) <= {0, 1}


def test_dpsgd_bug_refuses_what_it_cannot_fake(toy):
    X, y = toy
    for kw, arg in ((dict(target_epsilon=1.0), "target_epsilon"),
                    (dict(max_grad_norm=None), "max_grad_norm"),
                    (dict(max_grad_norm=1e12), "max_grad_norm"),
                    (dict(noise_multiplier=0.0), "noise_multiplier")):
        with pytest.raises((ParameterError, TypeError), match=arg):
            BUG.DPSGDClassifierWithoutClipping(**{**DPSGD, **kw}).fit(X, y)


# ------------------------------------------------ the domains' edges and the rules
def test_canary_labels_are_the_datas_classes(toy):
    # a NaN label once became a class, and NaN canary labels came back; labels are checked
    X, y = toy
    bad_y = y.astype(float)
    bad_y[0] = math.nan
    with pytest.raises(ParameterError, match="y must be class labels"):
        O.add_canaries(X, bad_y, 10, rng=0)
    _, _, _, labels, _ = O.add_canaries(X, y, 200, rng=0)
    assert set(np.unique(labels)) == set(np.unique(y)) and labels.dtype == y.dtype


def test_rules_tying_arguments_together_name_them(toy):
    X, y = toy
    with pytest.raises(ParameterError, match="r must be at most m=10"):
        O.one_run_audit_bound(10, 11, 5)
    with pytest.raises(ParameterError, match="v must be at most r=100"):
        O.one_run_p_value(1000, 100, 101, 1.0)
    with pytest.raises(ParameterError, match="k_plus must be at most 3 canaries - k_minus=3"):
        O.one_run_guesses([1.0, 2.0, 3.0], 1, 3)
    with pytest.raises(ParameterError, match=r"included.shape must be \(3,\), one per canary"):
        O.one_run_audit([1.0, 2.0, 3.0], [True], k_plus=1, k_minus=1)
    with pytest.raises(ParameterError, match="included must be"):
        O.one_run_audit([1.0, 2.0, 3.0], [2, 0, 1], k_plus=1, k_minus=1)
    with pytest.raises(ParameterError, match=r"y.shape must be \(1000,\), one label per row of X"):
        O.add_canaries(X, y[:-1], 10, rng=0)
    with pytest.raises(ParameterError, match="y must be labels of at least 2 classes"):
        O.add_canaries(X, np.zeros(1000), 10, rng=0)
    with pytest.raises(ParameterError, match="n_canaries"):       # (1000 + 5000)·5002 entries
        O.add_canaries(X, y, 5000, rng=0)
    d = dict(classifier=DPSGDClassifier(**DPSGD), X=X, y=y, n_canaries=10, k_plus=2, k_minus=2)
    with pytest.raises(ParameterError, match="classifier must be a DPSGDClassifier"):
        O.one_run_audit_dpsgd(**{**d, "classifier": "dpsgd"})
    with pytest.raises(ParameterError, match="k_plus must be at most n_canaries=10 - k_minus=2"):
        O.one_run_audit_dpsgd(**{**d, "k_plus": 9})
    with pytest.raises(ParameterError, match="classifier must be a fitted DPSGDClassifier"):
        O.canary_scores(DPSGDClassifier(**DPSGD), np.eye(3), [0, 1, 0])
