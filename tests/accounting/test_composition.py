"""Tests for dpteach.accounting.composition: basic, parallel, advanced and optimal composition,
amplification by subsampling, and the budget accountant."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from dp_accounting.pld import accountant as dpa_pld_accountant
from dp_accounting.pld import common as dpa_common
from hypothesis import given
from hypothesis import strategies as st

from dpteach._validation import ParameterError
from dpteach.accounting.composition import (
    BudgetAccountant,
    BudgetExceeded,
    advanced_composition,
    amplify_by_subsampling,
    basic_composition,
    optimal_composition_delta,
    optimal_composition_epsilon,
    parallel_composition,
)


# ---------------------------------------------------------------------------
# basic / parallel / advanced
# ---------------------------------------------------------------------------

def test_basic_composition_adds_heterogeneous():
    assert basic_composition([0.1, 0.5, 1.0], [1e-6, 0.0, 2e-6]) == pytest.approx((1.6, 3e-6))
    assert basic_composition([0.1] * 10) == (1.0, 0.0)          # fsum: exactly 1.0
    assert basic_composition(0.3, 1e-5) == pytest.approx((0.3, 1e-5))
    assert basic_composition([0.2, 0.2], 1e-5) == pytest.approx((0.4, 2e-5))
    with pytest.raises(ValueError, match="deltas"):
        basic_composition([0.1, 0.2, 0.3], [1e-5, 1e-5])


def test_parallel_composition_takes_the_maximum():
    assert parallel_composition([0.1, 0.5, 0.3], [1e-6, 0.0, 2e-6]) == (0.5, 2e-6)


def test_advanced_composition_formula():
    eps, d, k, dp = 0.1, 1e-6, 100, 1e-5
    e_tot, d_tot = advanced_composition(eps, d, k, dp)
    assert e_tot == pytest.approx(math.sqrt(2 * k * math.log(1 / dp)) * eps + k * eps * (math.exp(eps) - 1))
    assert d_tot == pytest.approx(k * d + dp)
    # for many small-ε mechanisms it beats basic composition (kε = 10)
    assert e_tot < k * eps


@pytest.mark.parametrize("eps,dp", [(0.1, 1e-5), (0.01, 1e-6), (0.3, 1e-3), (0.6, 1e-5)])
def test_advanced_beats_basic_exactly_beyond_the_closed_form_crossover(eps, dp):
    # ε' < kε  ⇔  √(2k ln(1/δ')) < k(2 − e^ε)  ⇔  k > k* = 2 ln(1/δ')/(2 − e^ε)²  (e^ε < 2).
    # (The docstring once said k ≳ 2 ln(1/δ')/ε², a hundred times too many at ε = 0.1.)
    k_star = 2 * math.log(1 / dp) / (2 - math.exp(eps)) ** 2
    first = math.floor(k_star) + 1
    assert advanced_composition(eps, 0.0, first, dp)[0] < first * eps
    assert advanced_composition(eps, 0.0, first - 1, dp)[0] >= (first - 1) * eps
    if eps == 0.1 and dp == 1e-5:
        assert first == 29                                  # the number quoted in the docstring


def test_advanced_never_beats_basic_when_e_eps_at_least_2():
    for k in (1, 10, 1000, 10**6):
        assert advanced_composition(math.log(2), 0.0, k, 1e-5)[0] >= k * math.log(2)


@pytest.mark.parametrize("eps,k", [(0.01, 1000), (0.1, 100), (0.5, 20), (1.0, 5), (0.05, 3)])
def test_advanced_is_never_better_than_optimal(eps, k):
    # The optimal composition is tight, so no valid theorem may beat it at the same δ_total.
    e_adv, d_adv = advanced_composition(eps, 0.0, k, 1e-6)
    assert optimal_composition_epsilon(eps, 0.0, k, d_adv) <= e_adv
    assert optimal_composition_epsilon(eps, 0.0, k, d_adv) <= k * eps


# ---------------------------------------------------------------------------
# optimal composition (Kairouz-Oh-Viswanath)
# ---------------------------------------------------------------------------

def kov_corner_delta(eps, delta, k, i):
    """δ of KOV15 Thm 3.3 at ε_total = (k − 2i)ε, exactly as stated in the paper, 50 digits."""
    with mp.workdps(50):
        e = mp.mpf(eps)
        s = sum(mp.binomial(k, l) * (mp.exp(e * (k - l)) - mp.exp(e * (k - 2 * i + l))) for l in range(i))
        delta_i = s / (1 + mp.exp(e)) ** k
        return float(1 - (1 - mp.mpf(delta)) ** k * (1 - delta_i))


@pytest.mark.parametrize("eps,delta,k", [(0.1, 0.0, 10), (0.5, 1e-6, 30), (1.0, 0.0, 7), (0.2, 1e-4, 51)])
def test_optimal_delta_at_corners_is_theorem_3_3(eps, delta, k):
    for i in range(0, k // 2 + 1):
        ours = optimal_composition_delta(eps, delta, k, (k - 2 * i) * eps)
        assert ours == pytest.approx(kov_corner_delta(eps, delta, k, i), rel=1e-11, abs=1e-300)


def brute_force_delta(eps, delta, k, total_eps):
    """Hockey-stick divergence of the k-fold product of KOV's canonical mechanism,
    enumerating all 4^k outcomes with exact mpmath arithmetic (50 digits)."""
    with mp.workdps(50):
        e, d = mp.mpf(eps), mp.mpf(delta)
        ee = mp.exp(e)
        p = [d, (1 - d) * ee / (1 + ee), (1 - d) / (1 + ee), mp.mpf(0)]
        q = [mp.mpf(0), (1 - d) / (1 + ee), (1 - d) * ee / (1 + ee), d]
        thr = mp.exp(mp.mpf(total_eps))
        tot = mp.mpf(0)
        for o in itertools.product(range(4), repeat=k):
            po = mp.fprod(p[j] for j in o)
            qo = mp.fprod(q[j] for j in o)
            tot += max(po - thr * qo, 0)
        return float(tot)


@pytest.mark.parametrize("eps,delta,k", [(0.4, 0.0, 6), (0.3, 1e-3, 5), (1.2, 0.01, 4)])
def test_optimal_delta_matches_brute_force_everywhere(eps, delta, k):
    # including ε_total between corners, where Thm 3.3 is silent
    for total in [0.0, 0.05, 0.37 * eps, eps, 1.5 * eps, 2.9 * eps, (k - 0.5) * eps, k * eps, k * eps + 1]:
        ours = optimal_composition_delta(eps, delta, k, total)
        assert ours == pytest.approx(brute_force_delta(eps, delta, k, total), rel=1e-12, abs=1e-15)


def test_optimal_limiting_cases():
    # k = 1: an (ε, δ) mechanism is (ε, δ)-DP and, for ε' < ε, canonical RR gives
    # δ' = δ + (1 − δ)(e^ε − e^ε')/(1 + e^ε).
    eps, delta = 0.7, 1e-4
    assert optimal_composition_delta(eps, delta, 1, eps) == pytest.approx(delta, rel=1e-12)
    assert optimal_composition_epsilon(eps, delta, 1, delta) == pytest.approx(eps, rel=1e-12)
    e2 = 0.3
    expected = delta + (1 - delta) * (math.exp(eps) - math.exp(e2)) / (1 + math.exp(eps))
    assert optimal_composition_delta(eps, delta, 1, e2) == pytest.approx(expected, rel=1e-12)
    # δ = 0 and ε_total = kε: exactly (kε, 0), and nothing smaller has δ_total = 0
    assert optimal_composition_delta(0.2, 0.0, 9, 9 * 0.2) == 0.0
    assert optimal_composition_epsilon(0.2, 0.0, 9, 0.0) == pytest.approx(9 * 0.2, rel=1e-12)
    # impossible targets: δ_total < 1 − (1 − δ)^k (no finite ε_total reaches them)
    with pytest.raises(ParameterError, match="total_delta must be at least 1 − \\(1 − delta\\)\\^k"):
        optimal_composition_epsilon(0.1, 1e-6, 100, 5e-5)
    # ε_total ≥ kε leaves only the δ part
    assert optimal_composition_delta(0.1, 1e-6, 100, 10.0) == pytest.approx(1 - (1 - 1e-6) ** 100)
    assert optimal_composition_delta(0.1, 1e-6, 100, 1e9) == pytest.approx(1 - (1 - 1e-6) ** 100)


@pytest.mark.parametrize("eps,delta,k,target", [
    (0.1, 0.0, 10, 1e-5), (0.5, 1e-6, 30, 1e-4), (1.0, 0.0, 1, 0.1), (0.3, 0.0, 7, 0.2),
    (0.05, 1e-7, 200, 1e-4), (0.2, 0.0, 300, 1e-9),
])
def test_optimal_epsilon_against_dp_accounting(eps, delta, k, target):
    # dp_accounting.pld.accountant.advanced_composition implements KOV Thm 3.3 but
    # returns the smallest CORNER (k − 2i)ε whose δ meets the target; the exact ε
    # must lie in (that corner − 2ε, that corner].
    ref = dpa_pld_accountant.advanced_composition(
        dpa_common.DifferentialPrivacyParameters(eps, delta), k, target)
    ours = optimal_composition_epsilon(eps, delta, k, target)
    assert ref - 2 * eps < ours <= ref + 1e-12


@pytest.mark.parametrize("eps,delta,k,target", [
    (0.1, 0.0, 10, 1e-5), (0.5, 1e-6, 30, 1e-4), (0.01, 1e-9, 5000, 1e-5), (2.0, 0.0, 3, 0.3),
])
def test_optimal_epsilon_is_the_smallest_meeting_the_target(eps, delta, k, target):
    e = optimal_composition_epsilon(eps, delta, k, target)
    assert optimal_composition_delta(eps, delta, k, e) <= target
    assert optimal_composition_delta(eps, delta, k, e * (1 - 1e-9)) > target


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_optimal_large_k_is_stable():
    # dp_accounting's version overflows here ((1 + e^ε)^k); ours works in log space.
    with pytest.raises(OverflowError):
        dpa_pld_accountant.advanced_composition(dpa_common.DifferentialPrivacyParameters(0.01, 1e-9),
                                                5000, 1e-5)
    e = optimal_composition_epsilon(0.01, 1e-9, 5000, 1e-5)
    assert 0 < e < advanced_composition(0.01, 1e-9, 5000, 1e-5 - 5000e-9)[0] < 5000 * 0.01


# ---------------------------------------------------------------------------
# amplification by subsampling
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("q", [0.0, 0.01, 0.3, 1.0])
def test_amplification_is_tight_for_subsampled_randomized_response(eps, q):
    # M(S) = ε-randomized response of "is record x in the Poisson sample S?".
    # Without x it always answers about a 0; with x, the truth bit is 1 w.p. q.
    # The largest |privacy loss| over the two outputs equals ln(1 + q(e^ε − 1)).
    p1 = math.exp(eps) / (1 + math.exp(eps))                 # P(report 1 | bit 1)
    without = np.array([p1, 1 - p1])                          # P(report 0), P(report 1) for bit 0
    with_x = q * without[::-1] + (1 - q) * without
    worst = np.max(np.abs(np.log(with_x / without)))
    assert amplify_by_subsampling(eps, q) == pytest.approx(worst, rel=1e-12, abs=1e-15)


def test_amplification_small_eps_is_about_q_eps():
    assert amplify_by_subsampling(1e-4, 0.01) == pytest.approx(1e-6, rel=1e-3)
    assert amplify_by_subsampling(2.0, 0.5) < 2.0


# ---------------------------------------------------------------------------
# BudgetAccountant
# ---------------------------------------------------------------------------

def test_budget_spends_and_refuses_overrun_untouched():
    b = BudgetAccountant(epsilon=1.0, delta=1e-5)
    b.spend(0.4, label="mean")
    b.spend(0.3, 5e-6, label="histogram")
    assert b.spent == pytest.approx((0.7, 5e-6))
    with pytest.raises(BudgetExceeded, match="exceed"):
        b.spend(0.31, label="too much")
    with pytest.raises(BudgetExceeded):
        b.spend(0.1, 6e-6)                                    # δ overrun
    assert b.spent == pytest.approx((0.7, 5e-6))              # untouched
    assert [s.label for s in b.history] == ["mean", "histogram"]
    assert isinstance(BudgetExceeded("x"), ValueError)


def test_budget_exact_remainder_and_decimal_spends_succeed():
    b = BudgetAccountant(1.0)
    for _ in range(10):
        b.spend(0.1)                  # Σ Fraction(0.1) = 1.0000000000000000555 > 1
    assert b.remaining()[0] == 0.0
    with pytest.raises(BudgetExceeded):
        b.spend(1e-6)
    b2 = BudgetAccountant(0.9, 1e-6)
    b2.spend(0.35, 3e-7)
    e, d = b2.remaining()
    b2.spend(e, d)                    # spending exactly the remainder must work
    assert b2.spent == pytest.approx((0.9, 1e-6))


@given(st.lists(st.floats(min_value=1e-6, max_value=1.0), min_size=1, max_size=20))
def test_budget_never_overruns_beyond_tolerance(spends):
    # Property: whatever the sequence, the exact total accepted never exceeds the
    # budget by more than the documented relative tolerance, and every refusal
    # is a spend that would have gone over.
    b = BudgetAccountant(2.0)
    for s in spends:
        before = Fraction(0) + sum((Fraction(x.epsilon) for x in b.history), Fraction(0))
        try:
            b.spend(s)
        except BudgetExceeded:
            assert before + Fraction(s) > Fraction(2.0)
    total = sum((Fraction(x.epsilon) for x in b.history), Fraction(0))
    assert total <= Fraction(2.0) * (1 + Fraction(BudgetAccountant.RTOL))


# ---------------------------------------------------------------------------
# At the edges of the teaching domains
# ---------------------------------------------------------------------------

def test_basic_composition_at_the_edges_is_exact():
    # exact rational sums (math.fsum), also of a million mechanisms at ε = 1000
    eps = [1e3] * 10**6
    assert basic_composition(eps) == (1e9, 0.0)
    parts = [0.1, 1e-12, 1e3, 0.0]
    total = sum((Fraction(v) for v in parts), Fraction(0))
    assert basic_composition(parts, [1e-6, 0.0, 1 - 2**-53, 0.0])[0] == float(total)
    assert parallel_composition(parts) == (1e3, 0.0)


def test_advanced_composition_at_the_edges_against_mpmath():
    for eps, k, dp in [(500.0, 10**6, 1e-5), (1e-12, 1, 1e-50), (0.1, 10, 1 - 2**-53),
                       (1.0, 10, 1e-50)]:
        with mp.workdps(60):
            e = mp.mpf(eps)
            ref = float(mp.sqrt(2 * k * mp.log(1 / mp.mpf(dp))) * e + k * e * mp.expm1(e))
        got, d = advanced_composition(eps, 0.0, k, dp)
        assert got == pytest.approx(ref, rel=1e-13) and d == dp


def test_amplification_at_the_edges_against_mpmath():
    for eps, q in [(500.0, 0.5), (500.0, 1e-300), (1e-12, 0.5), (1.0, 2**-53), (30.0, 1.0)]:
        with mp.workdps(80):
            ref = float(mp.log1p(mp.mpf(q) * mp.expm1(mp.mpf(eps))))
        assert amplify_by_subsampling(eps, q) == pytest.approx(ref, rel=1e-13)
    assert amplify_by_subsampling(500.0, 0.0) == 0.0
    assert amplify_by_subsampling(500.0, 1.0) == pytest.approx(500.0, rel=1e-15)


def test_optimal_composition_at_large_epsilon():
    # k = 1, ε = 40, ε_total = 0: δ = (e^40 − 1)/(e^40 + 1) = tanh(20) (was a math domain error)
    assert optimal_composition_delta(40, 0, 1, 0) == float(mp.tanh(20))
    # canonical RR with ε ≫ 1: δ(ε_total) stays in [0, 1], exactly 0 at the last corner
    for eps in (50.0, 500.0):
        assert optimal_composition_delta(eps, 0.0, 3, 3 * eps) == 0.0
        assert 0.99 < optimal_composition_delta(eps, 0.0, 3, 0.0) <= 1.0
    e = optimal_composition_epsilon(40.0, 0.0, 5, 1e-5)
    assert optimal_composition_delta(40.0, 0.0, 5, e) <= 1e-5 and e <= 200


def test_optimal_composition_epsilon_search_is_bounded(monkeypatch):
    # a hang guard that counts δ evaluations: a binary search over the ⌊k/2⌋ + 1 corners
    # (⌈log2 k⌉ + 1 of them), then at most 1000 ulp steps, each one evaluation
    import dpteach.accounting.composition as comp

    calls, inner = [], comp._pure_delta
    monkeypatch.setattr(comp, "_pure_delta", lambda *a: calls.append(a) or inner(*a))
    for eps, delta, k, target in [(500.0, 0.0, 3, 1e-5), (0.01, 1e-9, 10**6, 0.01),
                                  (1e-12, 0.0, 10**6, 1e-5), (0.1, 0.0, 10, 0.0)]:
        calls.clear()
        e = optimal_composition_epsilon(eps, delta, k, target)
        assert len(calls) <= 2 + math.ceil(math.log2(k + 1)) + 1 + 1000, (eps, k, len(calls))
        assert optimal_composition_delta(eps, delta, k, e) <= target
    # canonical RR with ε ≫ 1 reveals everything with probability ≈ 1: δ_pure(e) =
    # P₀(1 − e^{e − 3ε}) with P₀ = 1 to float64 on [ε, 3ε], so e = 3ε + ln(1 − δ)
    assert optimal_composition_epsilon(500.0, 0.0, 3, 1e-5) == pytest.approx(
        1500 + math.log1p(-1e-5), rel=1e-15)


def test_budget_is_read_only_after_construction():
    b = BudgetAccountant(epsilon=1.0, delta=1e-6)
    b.spend(1.0, 1e-6, label="everything")
    for name, value in [("epsilon", 5.0), ("delta", 0.5), ("rtol", 1.0), ("RTOL", 1.0),
                        ("history", ()), ("_eps_spent", Fraction(0)), ("new_attribute", 1)]:
        with pytest.raises(AttributeError):
            setattr(b, name, value)
    with pytest.raises(AttributeError):
        del b.epsilon
    # the history cannot be changed from outside
    h = b.history
    assert isinstance(h, tuple) and len(h) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        h[0].epsilon = 0.0
    assert b.history == h
    # so an exhausted budget stays exhausted
    with pytest.raises(BudgetExceeded):
        b.spend(0.1)
    assert b.epsilon == 1.0 and b.spent == (1.0, 1e-6) and b.rtol == BudgetAccountant.RTOL
    # copies are independent ledgers
    c = copy.copy(b)
    d = copy.deepcopy(b)
    assert c.history == b.history == d.history
    with pytest.raises(BudgetExceeded):
        c.spend(0.5)
    assert b.remaining() == (0.0, 0.0)


def test_budget_at_the_domain_edges_and_its_python_floats():
    b = BudgetAccountant(1e3, 1 - 2**-53)
    b.spend(1e3, 0.5)
    b.spend(1e3 * 1e-10)                     # within RTOL of the budget: accepted
    assert b.remaining() == (0.0, 1 - 2**-53 - 0.5)
    assert BudgetAccountant(1e-6).remaining() == (1e-6, 0.0)
    values = [*basic_composition([0.1, 0.2]), *parallel_composition([0.1, 0.2]),
              *advanced_composition(0.1, 0.0, 10, 1e-5),
              optimal_composition_delta(0.1, 0.0, 10, 0.5),
              optimal_composition_epsilon(0.1, 0.0, 10, 1e-5),
              amplify_by_subsampling(1.0, 0.1), amplify_by_subsampling(500.0, 0.1),
              *b.spent, *b.remaining(), b.epsilon, b.rtol]
    assert all(type(v) is float for v in values), [type(v) for v in values]
