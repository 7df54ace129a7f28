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
from _props import (
    BAD_PROBABILITY,
    NOT_A_NUMBER,
    NOT_POSITIVE_FINITE,
    assert_rejects_bad_values,
    bad_int,
    call_rejects,
)
from hypothesis import strategies as st
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
    assert O.one_run_audit_bound(10**9, 10**6, 10**6, beta=1e-300) <= O.EPSILON_SEARCH_MAX


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
    call_rejects(BUG.randomized_response_wrong_epsilon, dict(bits=[1], epsilon=40.0), "epsilon")
    assert_rejects_bad_values(BUG.randomized_response_wrong_epsilon, dict(bits=[1], epsilon=1.0),
                              "epsilon", NOT_POSITIVE_FINITE)


def test_laplace_half_scale_refuses_bad_input():
    valid = dict(value=0.0, sensitivity=1.0, epsilon=1.0)
    for arg in ("sensitivity", "epsilon"):
        assert_rejects_bad_values(BUG.laplace_half_scale, valid, arg,
                                  st.one_of(NOT_POSITIVE_FINITE, NOT_A_NUMBER))
    for bad in ([math.nan], "1", None, True):
        call_rejects(BUG.laplace_half_scale, {**valid, "value": bad}, "value")
    # Δ/(2ε) underflows for a subnormal sensitivity: refused by name, not zero noise
    call_rejects(BUG.laplace_half_scale, {**valid, "sensitivity": 5e-324}, "sensitivity")


def test_dpsgd_bug_refuses_what_it_cannot_fake(toy):
    X, y = toy
    for kw, arg in ((dict(target_epsilon=1.0), "target_epsilon"),
                    (dict(max_grad_norm=None), "max_grad_norm"),
                    (dict(max_grad_norm=1e12), "max_grad_norm"),
                    (dict(noise_multiplier=0.0), "noise_multiplier")):
        with pytest.raises((ParameterError, TypeError), match=arg):
            BUG.DPSGDClassifierWithoutClipping(**{**DPSGD, **kw}).fit(X, y)


# ------------------------------------------------------------------------- bad input
def test_bad_input_is_refused_by_name(toy):
    X, y = toy
    mrv = dict(m=1000, r=100, v=75)
    for arg, (lo, hi) in (("m", (1, 10**9)), ("r", (0, 1000)), ("v", (0, 100))):
        assert_rejects_bad_values(O.one_run_audit_bound, mrv, arg, bad_int(lo, hi))
    assert_rejects_bad_values(O.one_run_audit_bound, mrv, "beta",
                              st.one_of(BAD_PROBABILITY, NOT_A_NUMBER, st.sampled_from([0.0, 1.0])))
    assert_rejects_bad_values(O.one_run_audit_bound, mrv, "delta",
                              st.sampled_from([1.0, -1e-3, math.nan, "0", None]))
    assert_rejects_bad_values(O.one_run_p_value, {**mrv, "epsilon": 1.0}, "epsilon",
                              st.one_of(NOT_A_NUMBER, st.sampled_from([-1.0, math.nan, math.inf])))
    call_rejects(O.one_run_p_value, {**mrv, "epsilon": 1.0, "delta": 2.0}, "delta")
    g = dict(scores=[1.0, 2.0, 3.0], k_plus=1, k_minus=1)
    for bad in ([1.0, math.nan], "x", [], [[1.0]]):
        call_rejects(O.one_run_guesses, {**g, "scores": bad}, "scores")
    assert_rejects_bad_values(O.one_run_guesses, g, "k_plus", bad_int(0, 3))
    call_rejects(O.one_run_guesses, {**g, "k_minus": 3}, "k_minus")
    a = dict(scores=[1.0, 2.0, 3.0], included=[True, False, True], k_plus=1, k_minus=1)
    for bad in ([True], [2, 0, 1], "yes", None):
        call_rejects(O.one_run_audit, {**a, "included": bad}, "included")
    call_rejects(O.one_run_audit, {**a, "beta": 0.0}, "beta")
    call_rejects(O.one_run_audit, {**a, "delta": -1.0}, "delta")
    c = dict(X=X, y=y, n_canaries=10, scale=1.0, rng=0)
    assert_rejects_bad_values(O.add_canaries, c, "n_canaries", bad_int(2, O.CANARIES_MAX))
    assert_rejects_bad_values(O.add_canaries, c, "scale",
                              st.sampled_from([0.0, -1.0, 1e7, math.nan, "1", None]))
    call_rejects(O.add_canaries, {**c, "y": y[:-1]}, "y")
    call_rejects(O.add_canaries, {**c, "y": np.zeros(1000)}, "y")
    call_rejects(O.add_canaries, {**c, "X": [[math.nan, 1.0]] * 1000}, "X")
    call_rejects(O.add_canaries, {**c, "n_canaries": 5000}, "n_canaries")   # 3e7 entries
    d = dict(classifier=DPSGDClassifier(**DPSGD), X=X, y=y, n_canaries=10, k_plus=2, k_minus=2)
    call_rejects(O.one_run_audit_dpsgd, {**d, "classifier": "dpsgd"}, "classifier")
    call_rejects(O.one_run_audit_dpsgd, {**d, "k_plus": 9}, "k_plus")
    call_rejects(O.one_run_audit_dpsgd, {**d, "canary_scale": -1.0}, "canary_scale")
    call_rejects(O.one_run_audit_dpsgd, {**d, "beta": 1.5}, "beta")
    s = dict(classifier=DPSGDClassifier(**DPSGD), canaries=np.eye(3), labels=[0, 1, 0])
    call_rejects(O.canary_scores, s, "classifier")                          # not fitted
