"""Tests for dpteach.audit.runs.svt_pattern_frequency (Monte-Carlo transcript frequencies)
and the lower bounds on ε they certify (dpteach.audit.bounds.epsilon_lower_bound).

Statistical tolerances as in ``tests/mechanisms/test_selection.py``: a frequency p̂ = K/n of
an event with exact probability p has standard error √(p(1−p)/n), and we accept
|p̂ − p| ≤ 5·SE (two-sided false-alarm rate 5.7e-7 per comparison). Seeds are fixed.
"""

from __future__ import annotations

import math

import pytest

from dpteach._validation import ParameterError
from dpteach.audit import bounds as B
from dpteach.audit import runs as A
from dpteach.mechanisms import sparse_vector as SV


def _se(p, n):
    return math.sqrt(p * (1 - p) / n)


def test_module_docstring_says_what_it_is_for():
    assert "svt_pattern_frequency" in A.__doc__


# ------------------------------------------------- Monte-Carlo transcript frequencies
@pytest.mark.parametrize("c", [1, 3])
def test_pattern_probability_matches_simulation(c):
    q = [0.0, 5.0, 0.0, 6.0, 0.0, 0.0, 7.0]
    pat = [False, True, False, True, False, False, True][: 7 if c == 3 else 2]
    p = SV.sparse_vector_pattern_probability(q, pat, 3.0, 2.0, max_above=c)
    n = 20_000
    k = A.svt_pattern_frequency(q, pat, 3.0, 2.0, n, max_above=c, rng=12)
    assert abs(k / n - p) <= 5 * _se(p, n)


# --------------------------------------------- the broken variant, as a lesson
Q_D, Q_DP = [1.0, 1.0], [1.0, 2.0]   # two counts; the added person is counted by query 2 only
THRESH, EPS, EVENT = 1.5, 1.0, [False, True]


def test_broken_variant_violates_epsilon_empirically():
    """Seeded simulation certifies ε ≥ ln(p_lo/p′_hi) ≫ ε_claimed = 1.

    Error bound: Clopper–Pearson one-sided bounds at α = 1e-6 each. On D the
    event never occurs, so p_D ≤ 1 − α^{1/n} ≈ 13.8/n = 6.9e-4 (n = 20 000);
    on D′ the frequency is ≈ 0.221, whose lower bound is ≈ 0.221 − 4.8·SE ≈ 0.207
    (SE = 2.9e-3). Hence ε ≥ ln(0.207/6.9e-4) ≈ 5.7 with probability ≥ 1 − 2e-6.
    """
    n = 20_000
    kD = A.svt_pattern_frequency(Q_D, EVENT, THRESH, EPS, n, variant="no_query_noise", rng=14)
    kP = A.svt_pattern_frequency(Q_DP, EVENT, THRESH, EPS, n, variant="no_query_noise", rng=15)
    assert kD == 0
    p = 1 - math.exp(-0.25)
    assert abs(kP / n - p) <= 5 * _se(p, n)
    lb = B.epsilon_lower_bound(kP, n, kD, n, confidence=1 - 2e-6)
    assert lb > 5.0 * EPS


def test_correct_above_threshold_respects_epsilon_on_the_same_pair():
    pD = SV.sparse_vector_pattern_probability(Q_D, EVENT, THRESH, EPS)
    pP = SV.sparse_vector_pattern_probability(Q_DP, EVENT, THRESH, EPS)
    assert 0 < pD and abs(math.log(pP / pD)) <= EPS
    n = 20_000
    kD = A.svt_pattern_frequency(Q_D, EVENT, THRESH, EPS, n, rng=16)
    kP = A.svt_pattern_frequency(Q_DP, EVENT, THRESH, EPS, n, rng=17)
    assert abs(kD / n - pD) <= 5 * _se(pD, n) and abs(kP / n - pP) <= 5 * _se(pP, n)
    # DP inequality for the frequencies, both directions, within 5 SD of p̂ − e^ε p̂′
    for a, b, pa, pb in ((kP / n, kD / n, pP, pD), (kD / n, kP / n, pD, pP)):
        sd = math.sqrt(pa * (1 - pa) + math.exp(2 * EPS) * pb * (1 - pb)) / math.sqrt(n)
        assert a - math.exp(EPS) * b <= 5 * sd
    # and the simulation certifies no violation: its lower bound stays below ε
    assert B.epsilon_lower_bound(kP, n, kD, n, confidence=1 - 2e-6) < EPS


# ------------------------------------------------------ the Clopper-Pearson bound
def test_epsilon_lower_bound_values():
    # count' = 0: upper bound 1 − α^{1/n'}; count = n: lower bound α^{1/n}
    n, a = 1000, 1e-3
    expect = math.log(a ** (1 / n) / (1 - a ** (1 / n)))
    assert B.epsilon_lower_bound(n, n, 0, n, confidence=1 - 2 * a) == pytest.approx(expect,
                                                                                   rel=1e-9)
    assert B.epsilon_lower_bound(0, 10, 3, 10) == 0.0
    assert B.epsilon_lower_bound(500, 1000, 500, 1000) == 0.0


def test_empty_transcript():
    # every run starts with the empty transcript; the arguments are still checked
    assert A.svt_pattern_frequency([1.0], [], 0.0, 1.0, 7) == 7
    with pytest.raises(ParameterError, match="epsilon"):
        A.svt_pattern_frequency([1.0], [], 0.0, -1.0, 7)
    assert type(A.svt_pattern_frequency([1.0], [True], 0.0, 1.0, 3, rng=0)) is int


def test_frequency_refuses_more_work_than_a_lesson_needs_and_a_too_long_transcript():
    # 2·10**5 query-runs (about 4 s): notebook 09 uses 20,000 runs of 2 queries, the tests
    # above 20,000 of 7
    valid = dict(values=[0.0] * 20, answers=[False] * 20, threshold=1.0, epsilon=1.0)
    with pytest.raises(ParameterError, match=r"n_trials must be ≤ .* / len\(answers\)"):
        A.svt_pattern_frequency(**valid, n_trials=20_000)
    with pytest.raises(ParameterError, match="n_trials must be an integer in"):
        A.svt_pattern_frequency(**valid, n_trials=10**6)
    with pytest.raises(ParameterError, match="answers must be at most as long as values"):
        A.svt_pattern_frequency([0.0, 1.0], [False, True, True], 1.0, 1.0, 10)
