"""Tests of dpteach.mechanisms.sparse_vector: AboveThreshold, Sparse, the broken variant
without query noise, and the exact probabilities of their transcripts.

The exact transcript probabilities (quadrature) are checked against closed forms and sums to
one; the privacy ratio is checked exactly on neighbouring answer vectors, and attained by an
adversarial pair. Sampling tests use fixed seeds.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dpteach._validation import ParameterError
from dpteach.mechanisms import sparse_vector as SV


def test_sparse_vector_noise_scales():
    assert SV.sparse_vector_noise_scales(1.0) == (2.0, 4.0)            # DR14 Alg. 1
    assert SV.sparse_vector_noise_scales(0.5, 2.0, 3) == (24.0, 48.0)  # σ = 2cΔ/ε
    s, q = SV.sparse_vector_noise_scales(0.5, 1.0, 4, delta=1e-5)
    assert s == pytest.approx(math.sqrt(32 * 4 * math.log(1e5)) / 0.5) and q == 2 * s
    with pytest.raises(ValueError, match="epsilon"):
        SV.sparse_vector_noise_scales(1.5, 1.0, 2, delta=1e-5)


def test_sparse_vector_object_halts_and_counts():
    sv = SV.SparseVector(threshold=50.0, epsilon=100.0, max_above=2, rng=0)
    answers = [sv.query(v) for v in [0, 0, 100, 0, 100]]
    assert answers == [False, False, True, False, True]
    assert sv.n_answered == 5 and sv.n_above == 2 and sv.halted
    with pytest.raises(RuntimeError, match="halted"):
        sv.query(0.0)
    res = sv.result()
    np.testing.assert_array_equal(res.above_indices, [2, 4])
    assert "SparseVector(" in repr(sv)


def test_sparse_vector_function_stops_at_cutoff():
    res = SV.sparse_vector([0, 100, 100, 100, 0], 50, 100.0, max_above=2, rng=1)
    assert res.n_answered == 3 and res.n_above == 2 and res.halted
    res = SV.sparse_vector([0, 0, 0], 50, 100.0, max_above=2, rng=1)
    assert res.n_answered == 3 and res.n_above == 0 and not res.halted


def test_above_threshold_finds_first_clearly_above_query():
    vals = [0.0] * 30 + [100.0] + [0.0] * 10
    # exact probability that the transcript is ⊥^30 ⊤ at ε = 5 (noise scales 0.4, 0.8)
    p = SV.sparse_vector_pattern_probability(vals, [False] * 30 + [True], 50.0, 5.0)
    assert p > 1 - 1e-12
    hits = sum(SV.above_threshold(vals, 50.0, 5.0, rng=s) == 30 for s in range(300))
    assert hits == 300
    assert SV.above_threshold([0.0, 0.0], 50.0, 5.0, rng=0) is None


def test_pattern_probabilities_sum_to_one():
    q = [1.0, 3.0, 2.0]
    for c in (1, 2, 3):
        total = 0.0
        for L in range(1, 4):
            for pat in itertools.product([False, True], repeat=L):
                complete = (sum(pat) == c and pat[-1]) or L == 3
                if complete:
                    total += SV.sparse_vector_pattern_probability(q, pat, 2.0, 1.0, max_above=c)
        assert total == pytest.approx(1.0, abs=1e-9)
    assert SV.sparse_vector_pattern_probability(q, [True, False], 2.0, 1.0) == 0.0
    assert SV.sparse_vector_pattern_probability(q, [], 2.0, 1.0) == 1.0


def test_sparse_vector_exact_privacy_ratio():
    """Every transcript's probability ratio ≤ e^ε on neighbouring answer vectors."""
    gen = np.random.default_rng(13)
    eps = 1.0
    worst = 0.0
    for _ in range(25):
        m = 3
        q = gen.integers(0, 4, size=m).astype(float)
        qp = q + gen.choice([-1.0, 0.0, 1.0], size=m)      # each query moves by ≤ Δ = 1
        for c in (1, 2):
            for L in range(1, m + 1):
                for pat in itertools.product([False, True], repeat=L):
                    a = SV.sparse_vector_pattern_probability(q, pat, 1.5, eps, max_above=c)
                    b = SV.sparse_vector_pattern_probability(qp, pat, 1.5, eps, max_above=c)
                    if a == 0.0 and b == 0.0:
                        continue
                    worst = max(worst, abs(math.log(a / b)))
    assert worst <= eps * (1 + 1e-9)
    assert worst > 0.3 * eps      # the check is not vacuous


def test_above_threshold_worst_case_pair_attains_epsilon():
    """An adversarial neighbour pair on which AboveThreshold's ratio is e^ε exactly.

    30 ⊥ answers for queries sitting 4 above T, each raised by Δ on D′, then a ⊤
    for a query lowered by Δ: the threshold part and the ⊤ part each use ε/2.
    Halving the query noise (Lap(2Δ/ε) instead of Lap(4Δ/ε)) would give 1.5ε on
    this pair, so the check is sharp.
    """
    eps = 1.0
    q = np.array([4.0] * 30 + [-4.0])
    qp = q.copy()
    qp[:30] += 1.0
    qp[30] -= 1.0
    pat = [False] * 30 + [True]
    r = math.log(SV.sparse_vector_pattern_probability(q, pat, 0.0, eps)
                 / SV.sparse_vector_pattern_probability(qp, pat, 0.0, eps))
    assert 0.999 * eps < r <= eps * (1 + 1e-9)


Q_D, Q_DP = [1.0, 1.0], [1.0, 2.0]   # two counts; the added person is counted by query 2 only
THRESH, EPS, EVENT = 1.5, 1.0, [False, True]


def test_broken_variant_exact_probabilities():
    # (⊥, ⊤) needs q1 < T̂ ≤ q2: impossible when q1 = q2, probability
    # Pr[1 < 1.5 + Lap(2) ≤ 2] = 1 − e^{−1/4} when q2 = 2.
    assert SV.no_query_noise_pattern_probability(Q_D, EVENT, THRESH, EPS) == 0.0
    assert SV.no_query_noise_pattern_probability(Q_DP, EVENT, THRESH, EPS) == pytest.approx(
        1 - math.exp(-0.25), rel=1e-13)
    # all full transcripts of the broken variant sum to one
    total = sum(SV.no_query_noise_pattern_probability([0.0, 2.0, 1.0], pat, 1.0, 1.0)
                for pat in itertools.product([False, True], repeat=3))
    assert total == pytest.approx(1.0, abs=1e-14)


# ============================================================ rules and edges
def test_the_rules_tying_two_arguments():
    # advanced composition (δ > 0) is proved for ε < 1 (Dwork & Roth Cor 3.21)
    for call in (lambda: SV.sparse_vector_noise_scales(1.5, 1.0, 2, delta=1e-5),
                 lambda: SV.SparseVector(0.0, 1.0, delta=1e-5),
                 lambda: SV.sparse_vector([1.0], 0.0, 1.0, delta=1e-5)):
        with pytest.raises(ParameterError, match=r"epsilon must be < 1 when delta > 0"):
            call()
    # a transcript cannot answer more queries than were asked
    with pytest.raises(ParameterError, match=r"answers must be at most as long as values \(2\)"):
        SV.sparse_vector_pattern_probability([1.0, 2.0], [False, False, True], 0.0, 1.0)
    with pytest.raises(ParameterError, match=r"answers must be at most as long as values \(3\)"):
        SV.as_transcript([True, False, True, False], 3)


def test_as_transcript_converts():
    out = SV.as_transcript([1, 0, True], 3)
    assert out.dtype == bool and out.tolist() == [True, False, True]
    assert SV.as_transcript([]).shape == (0,)
    assert SV.as_transcript(np.array([0.0, 1.0])).tolist() == [False, True]
    for bad in ([0, 2], [0.5], "TF", [[True]]):
        with pytest.raises(ParameterError, match=r"^answers must be a 1-D sequence of True/False"):
            SV.as_transcript(bad)


def test_smallest_delta_and_largest_scales():
    # δ = 1e-50, the domain's smallest: σ = √(32·c·ln(1/δ))·Δ/ε with ln(1e50) = 115.13
    s, q = SV.sparse_vector_noise_scales(0.5, 1.0, 1, delta=1e-50)
    assert s == pytest.approx(math.sqrt(32 * 50 * math.log(10)) / 0.5, rel=1e-14)
    assert q == 2 * s
    # the largest σ = 2cΔ/ε = 2·10⁶·10⁶/10⁻⁶ = 2e18, and answers at ±1e15: still finite
    assert SV.sparse_vector_noise_scales(1e-6, 1e6, 10**6) == (2e18, 4e18)
    p = SV.sparse_vector_pattern_probability([1e15, -1e15], [False, True], 0.0, 1e-6, 1e6,
                                             10**6)
    assert 0.0 <= p <= 1.0


def test_documented_results_are_python_numbers():
    assert all(type(x) is float for x in SV.sparse_vector_noise_scales(1.0))
    assert type(SV.sparse_vector_pattern_probability([1.0], [True], 0.0, 1.0)) is float
    assert type(SV.no_query_noise_pattern_probability([1.0], [True], 0.0, 1.0)) is float
    assert type(SV.SparseVector(0.0, 1.0, rng=0).query(1.0)) is bool
