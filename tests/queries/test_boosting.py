"""Boosting for queries (dpteach.queries.boosting): the reweighting of Dwork & Roth's Figure 6.1
by hand, the median, the privacy of Theorem 6.1 (part 2) with Claim 6.4, and determinism."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpteach.accounting.composition import advanced_composition
from dpteach.queries.boosting import _scores, boosting_for_queries, boosting_privacy

# three cells, four counting queries, n = 10 people
HIST = np.array([6.0, 3.0, 1.0])
Q = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]], dtype=float)
SETTINGS = dict(rounds=3, sample_size=2, lam=0.5, mu=2.0, eta=0.25, epsilon_base=1.0,
                passes=2)


def test_scores_are_the_damped_steps_of_figure_6_1():
    # error ≤ λ: +1; ≥ λ + μ: −1; in between 1 − 2(error − λ)/μ (λ = 1, μ = 4)
    errors = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 9.0])
    np.testing.assert_allclose(_scores(errors, 1.0, 4.0), [1, 1, 0.5, 0, -0.5, -1, -1])


def test_one_round_of_reweighting_by_hand():
    res = boosting_for_queries(Q, HIST, **SETTINGS, rng=7)
    true = Q @ HIST
    # D_1 uniform over the four queries
    np.testing.assert_allclose(res.weights[0], np.full(4, 0.25))
    # α = ½ ln((1 + 2η)/(1 − 2η)) = ½ ln 3 at η = ¼
    assert math.isclose(res.alpha, 0.5 * math.log(3.0), rel_tol=1e-15)
    # D_2[q] ∝ exp(−α a_{1,q}) with a_{1,q} from A_1's error on q, computed here by hand
    errors = np.abs(res.synopses[0] - true)
    a = np.array([1.0 if e <= 0.5 else -1.0 if e >= 2.5 else 1 - 2 * (e - 0.5) / 2.0
                  for e in errors])
    np.testing.assert_allclose(res.scores[0], a, rtol=0, atol=1e-12)
    u = np.exp(-res.alpha * a)
    np.testing.assert_allclose(res.weights[1], u / u.sum(), rtol=1e-12)
    # D_3 from the running sum a_1 + a_2
    u = np.exp(-res.alpha * (res.scores[0] + res.scores[1]))
    np.testing.assert_allclose(res.weights[2], u / u.sum(), rtol=1e-12)


def test_the_answer_is_the_median_of_the_synopses():
    res = boosting_for_queries(Q, HIST, **SETTINGS, rng=3)
    assert res.synopses.shape == (3, 4) and res.sampled.shape == (3, 2)
    np.testing.assert_array_equal(res.answers, np.median(res.synopses, axis=0))
    # each synopsis is a histogram of n = 10 people: its answer to every query in [0, 10]
    assert (res.synopses >= 0).all() and (res.synopses <= 10 + 1e-9).all()


def test_determinism_under_a_seed():
    one = boosting_for_queries(Q, HIST, **SETTINGS, rng=11)
    two = boosting_for_queries(Q, HIST, **SETTINGS, rng=11)
    other = boosting_for_queries(Q, HIST, **SETTINGS, rng=12)
    np.testing.assert_array_equal(one.synopses, two.synopses)
    np.testing.assert_array_equal(one.sampled, two.sampled)
    assert not np.array_equal(one.synopses, other.synopses)


def test_privacy_is_theorem_6_1_with_claim_6_4():
    # T = 10, k = 5, μ = 100 people, η = ¼: ε₀ = 4αTρ/μ = 4·(½ ln 3)·10/100 = 0.2 ln 3
    T, k, mu, eb, d = 10, 5, 100.0, 0.05, 1e-6
    eps0 = 0.2 * math.log(3.0)
    sample = math.sqrt(2 * k * T * math.log(1 / d)) * eps0 + k * T * eps0 * math.expm1(eps0)
    assert sample < k * T * eps0                  # advanced composition is the smaller here
    eps, delta = boosting_privacy(T, k, mu, 0.25, eb, d)
    assert math.isclose(eps, sample + T * eb, rel_tol=1e-12) and delta == d
    assert math.isclose(eps, advanced_composition(eps0, 0.0, k * T, d)[0] + T * eb,
                        rel_tol=1e-12)


def test_privacy_falls_back_to_basic_composition_when_it_is_smaller():
    # 2 samples of ε₀ = 4·(½ ln 3)·1/2 = ln 3 ≈ 1.1: basic composition, 2 ln 3, is the bound
    eps, _ = boosting_privacy(1, 2, 2.0, 0.25, 0.5, 1e-6)
    assert math.isclose(eps, 2 * math.log(3.0) + 0.5, rel_tol=1e-12)


def test_a_larger_margin_costs_less_privacy():
    # μ damps the reweighting: ε_sample falls like 1/μ for small ε₀
    small, large = (boosting_privacy(20, 10, mu, 0.2, 0.01, 1e-6)[0] for mu in (500, 5000))
    assert large < small


@pytest.mark.parametrize("passes", [0, 3])
def test_synopsis_counts_n_people(passes):
    res = boosting_for_queries(Q, HIST, **{**SETTINGS, "passes": passes}, rng=5)
    # the all-cells query is not in Q; the first two queries are disjoint cells of A_t
    assert np.all(res.synopses[:, 0] + res.synopses[:, 1] + res.synopses[:, 3] <= 10 + 1e-9)
