"""The exact law of PATE's answers (``dpteach.pate.answers``): closed forms with two classes,
adaptive quadrature, and exact values at the ends of the teaching domain."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import ndtr

from dpteach._validation import ParameterError
from dpteach.pate.answers import (
    confident_gnmax_answer_probabilities,
    gnmax_answer_probabilities,
    lnmax_answer_probabilities,
)

SIGMA_MIN, SIGMA_MAX = 1e-12, 1e15          # the ends of the noise scales' domain (SCALE)


@pytest.mark.parametrize("sigma", [1e-3, 0.3, 5.0, 40.0, 200.0, 1e5])
@pytest.mark.parametrize("n", [(0, 0), (1, 0), (3, 1), (250, 0), (130, 120)])
def test_two_classes_closed_forms(sigma, n):
    v = np.array(n, dtype=float)
    # GNMax: class 0 wins iff Z1 − Z0 < n0 − n1 with Z1 − Z0 ~ N(0, 2σ²)
    p = gnmax_answer_probabilities(v, sigma)
    assert p[0] == pytest.approx(ndtr((n[0] - n[1]) / (sigma * math.sqrt(2))), abs=1e-12)
    # LNMax: the difference of two Laplace(1) has CDF 1 − (2 + d)e^{−d}/4 for d ≥ 0
    d = (n[0] - n[1]) / sigma
    p = lnmax_answer_probabilities(v, sigma)
    assert p[0] == pytest.approx(1 - (2 + d) * math.exp(-d) / 4, abs=1e-12)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)


def _quad(v, s, j, laplace):
    if laplace:
        pdf = lambda z: 0.5 * math.exp(-abs(z))                         # noqa: E731
        cdf = lambda x: 0.5 * math.exp(x) if x < 0 else 1 - 0.5 * math.exp(-x)  # noqa: E731
    else:
        pdf, cdf = stats.norm.pdf, stats.norm.cdf
    others = [i for i in range(len(v)) if i != j]
    f = lambda z: pdf(z) * np.prod([cdf((v[j] - v[i]) / s + z) for i in others])  # noqa: E731
    kinks = sorted({0.0, *(-(v[j] - v[i]) / s for i in others)})
    kinks = [k for k in kinks if -150 < k < 150]
    return integrate.quad(f, -150, 150, points=kinks, epsabs=1e-14, epsrel=1e-13,
                          limit=1000)[0]


def test_probabilities_match_adaptive_quadrature():
    rng = np.random.default_rng(0)
    for _ in range(8):
        k = int(rng.integers(3, 6))
        v = rng.integers(0, 40, size=k).astype(float)
        s = float(rng.choice([0.7, 3.0, 12.0]))
        pg, pl = gnmax_answer_probabilities(v, s), lnmax_answer_probabilities(v, s)
        for j in range(k):
            assert pg[j] == pytest.approx(_quad(v, s, j, False), abs=1e-9)
            assert pl[j] == pytest.approx(_quad(v, s, j, True), abs=1e-9)


@pytest.mark.parametrize("k", [2, 10, 1000])
def test_equal_votes_give_a_uniform_answer(k):
    v = np.full(k, 5.0)
    np.testing.assert_allclose(gnmax_answer_probabilities(v, 1.0), 1 / k, atol=1e-9)
    np.testing.assert_allclose(lnmax_answer_probabilities(v, 1.0), 1 / k, atol=1e-9)


def test_probabilities_batch_equals_rows_and_sums_to_one():
    v = np.array([[200, 30, 20, 0], [100, 90, 60, 0], [0, 0, 0, 0], [1, 0, 0, 9]], float)
    for f, s in ((gnmax_answer_probabilities, 40.0), (lnmax_answer_probabilities, 20.0)):
        batch = f(v, s)
        assert batch.shape == v.shape
        np.testing.assert_allclose(batch.sum(axis=1), 1.0, atol=1e-12)
        for row, p in zip(v, batch):
            np.testing.assert_allclose(f(row, s), p, atol=1e-15)
        assert batch[0, 1] > batch[0, 2] > batch[0, 3] > 0       # monotone in the count


def test_confident_probabilities():
    v = np.array([250.0, 0.0])
    probs, none = confident_gnmax_answer_probabilities(v, 300.0, 200.0, 40.0)
    assert none == pytest.approx(ndtr(50 / 200))                 # ≈ 0.599: unanimous, T > 250
    assert probs.sum() + none == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(probs, ndtr(-50 / 200) * gnmax_answer_probabilities(v, 40.0))
    pb, nb = confident_gnmax_answer_probabilities(np.array([[250, 0], [10, 5]]), 0, SIGMA_MIN, 1)
    np.testing.assert_allclose(nb, 0.0)
    np.testing.assert_allclose(pb.sum(axis=1), 1.0, atol=1e-12)


# ------------------------------------------------------- exact answers at the domain's ends
def test_the_smallest_and_largest_noise_have_exact_answers():
    # σ = 1e-12: the plurality wins with probability 1; σ = 1e15 ≫ the counts: uniform
    v = np.array([[9.0, 2.0, 2.0], [1.0, 1.0, 4.0]])
    for f in (gnmax_answer_probabilities, lnmax_answer_probabilities):
        np.testing.assert_allclose(f(v, SIGMA_MIN), [[1, 0, 0], [0, 0, 1]], atol=1e-12)
        np.testing.assert_allclose(f(v, SIGMA_MAX), 1 / 3, atol=1e-12)
    # T = 1e15 cannot be reached; T = 0 with tiny σ₁ is always passed
    probs, none = confident_gnmax_answer_probabilities(v, 1e15, SIGMA_MIN, 1.0)
    np.testing.assert_array_equal(none, [1.0, 1.0])
    np.testing.assert_array_equal(probs, 0.0)
    probs, none = confident_gnmax_answer_probabilities(v, 0.0, SIGMA_MIN, SIGMA_MIN)
    np.testing.assert_array_equal(none, [0.0, 0.0])
    np.testing.assert_allclose(probs, [[1, 0, 0], [0, 0, 1]], atol=1e-12)


def test_huge_counts_keep_their_exact_gaps():
    # counts near 2^53 differ by 1: relative to the plurality the gap is exact
    v = np.array([2.0**53 - 1, 2.0**53 - 2])
    p = gnmax_answer_probabilities(v, 1.0)
    assert p[0] == pytest.approx(ndtr(1 / math.sqrt(2)), abs=1e-12)


def test_one_histogram_gives_python_numbers():
    no_answer = confident_gnmax_answer_probabilities([3, 1], 1.0, 1.0, 1.0)[1]
    assert type(no_answer) is float


@pytest.mark.parametrize("n", [2, 3])
def test_exact_work_bound_is_enforced(n):
    # thousands of distinct counts close to the top make Laplace quadrature too expensive
    with pytest.raises(ParameterError, match="votes"):
        lnmax_answer_probabilities(np.arange(10_000.0) * n, 1e5)
