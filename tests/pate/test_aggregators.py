"""PATE's aggregators (``dpteach.pate.aggregators``): sampled answers against their exact
law (``dpteach.pate.answers``), ties, seeds, and the ends of the teaching domain.

Statistical tests compare answer frequencies with the exact probabilities. For N i.i.d.
answers, the frequency p̂_j of class j is a mean of N Bernoulli(p_j) variables: sd
√(p_j(1 − p_j)/N). We allow 5 sd (plus 1e-12 where p_j is 0 or 1): a correct sampler fails
one comparison with probability 5.7e-7 (normal tail; with N = 10⁴ and p_j ≥ 10⁻², Np_j ≥ 100
so the normal approximation holds), and the seeds are fixed.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpteach.pate.aggregators import ConfidentAnswers, confident_gnmax, gnmax, lnmax
from dpteach.pate.answers import (
    confident_gnmax_answer_probabilities,
    gnmax_answer_probabilities,
    lnmax_answer_probabilities,
)
from dpteach.pate.teachers import MAX_QUERIES

N_MC = 100_000


def draw(sampler, v, *args, seed):
    """N_MC answers to the votes ``v``: calls of MAX_QUERIES on one Generator."""
    gen = np.random.default_rng(seed)
    out = [sampler(np.tile(v, (MAX_QUERIES, 1)), *args, rng=gen)
           for _ in range(N_MC // MAX_QUERIES)]
    if isinstance(out[0], ConfidentAnswers):
        return ConfidentAnswers(np.concatenate([o.labels for o in out]),
                                np.concatenate([o.answered for o in out]))
    return np.concatenate(out)


def within_binomial(freq, p, n=N_MC):
    sd = np.sqrt(p * (1 - p) / n)
    return np.all(np.abs(freq - p) <= 5 * sd + 1e-12), np.abs(freq - p) / np.maximum(sd, 1e-300)


VOTE_CASES = [np.array([10.0, 8.0, 3.0, 8.0]), np.array([250.0, 0.0]),
              np.array([120.0, 110.0, 20.0]), np.array([5.0, 5.0, 5.0])]


@pytest.mark.parametrize("v", VOTE_CASES, ids=lambda v: str(v.tolist()))
@pytest.mark.parametrize("name", ["gnmax", "lnmax"])
def test_aggregator_frequencies_match_exact_probabilities(v, name):
    sampler, exact = ((gnmax, gnmax_answer_probabilities) if name == "gnmax"
                      else (lnmax, lnmax_answer_probabilities))
    s = 3.0 if v.max() < 100 else 40.0
    labels = draw(sampler, v, s, seed=11)
    freq = np.bincount(labels, minlength=v.size) / N_MC
    ok, z = within_binomial(freq, exact(v, s))
    assert ok, z


@pytest.mark.parametrize("v", VOTE_CASES, ids=lambda v: str(v.tolist()))
def test_confident_frequencies_match_exact_probabilities(v):
    T, s1, s2 = (0.9 * v.max(), 3.0, 3.0) if v.max() < 100 else (200.0, 150.0, 40.0)
    ans = draw(confident_gnmax, v, T, s1, s2, seed=12)
    assert ans.n_answered == int(ans.answered.sum())
    assert np.all(ans.labels[~ans.answered] == -1) and np.all(ans.labels[ans.answered] >= 0)
    probs, none = confident_gnmax_answer_probabilities(v, T, s1, s2)
    freq = np.bincount(ans.labels[ans.answered], minlength=v.size) / N_MC
    ok, z = within_binomial(np.append(freq, 1 - ans.answered.mean()), np.append(probs, none))
    assert ok, z


def test_confident_threshold_extremes():
    v = np.array([[30, 2, 0], [1, 0, 0], [5, 5, 5]])
    none = confident_gnmax(v, 1e6, 10.0, 1.0, rng=0)
    assert not none.answered.any() and np.all(none.labels == -1)
    every = confident_gnmax(v, 0.0, 1e-9, 1e-9, rng=0)           # max n ≥ 1 > T = 0, σ₁ tiny
    assert every.answered.all()
    assert list(every.labels[:2]) == [0, 0] and 0 <= every.labels[2] <= 2
    one = confident_gnmax([3, 9], 0.0, 1e-9, 1e-9, rng=0)
    assert one == ConfidentAnswers(1, True)


def test_ties_are_broken_fairly_at_the_smallest_noise():
    # relative to the plurality and in units of the noise: ties are decided by the noise,
    # even at σ = 1e-12 next to counts of 2⁵³ − 1 (n + σZ would round σZ away)
    top = 2.0**53 - 1
    labels = gnmax(np.tile([top, top, 1.0], (4000, 1)), 1e-12, rng=0)
    # 4,000 fair coin flips: the mean has sd 0.0079; 0.05 is more than 6 sd
    assert set(np.unique(labels)) == {0, 1} and abs(labels.mean() - 0.5) < 0.05
    assert gnmax([5, 4], 1e-12, rng=1) == 0 and lnmax([4, 5], 1e-12, rng=1) == 1


def test_the_smallest_noise_answers_the_plurality():
    v = np.array([[9.0, 2.0, 2.0], [1.0, 1.0, 4.0]])
    np.testing.assert_array_equal(gnmax(v, 1e-12, rng=0), [0, 2])
    np.testing.assert_array_equal(lnmax(v, 1e-12, rng=0), [0, 2])
    assert not confident_gnmax(v, 1e15, 1e-12, 1.0, rng=0).answered.any()


def test_aggregators_are_seeded():
    v = np.tile([10.0, 9.0, 9.0], (50, 1))
    assert np.array_equal(gnmax(v, 2.0, rng=5), gnmax(v, 2.0, rng=5))
    assert np.array_equal(lnmax(v, 2.0, rng=5), lnmax(v, 2.0, rng=5))
    a, b = confident_gnmax(v, 9.0, 2.0, 2.0, rng=5), confident_gnmax(v, 9.0, 2.0, 2.0, rng=5)
    assert np.array_equal(a.labels, b.labels)


def test_one_histogram_gives_python_numbers():
    assert type(gnmax([3, 1], 1.0, rng=0)) is int
    assert type(lnmax([3, 1], 1.0, rng=0)) is int
    one = confident_gnmax([3, 1], 1.0, 1.0, 1.0, rng=0)
    assert type(one.labels) is int and type(one.answered) is bool
