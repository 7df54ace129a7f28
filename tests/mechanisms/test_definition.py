"""Tests of dpteach.mechanisms.definition: the definition of DP over every event, and what
follows from it (the posterior bound, group privacy, the (0, δ) mechanism that publishes
records).

References: brute force over every event (all subsets of a small outcome set), the exact δ
of the Gaussian mechanism (Balle & Wang 2018, dpteach.mechanisms.noise.gaussian_delta),
randomized response's ε = ln((½+γ)/(½−γ)), Bayes' rule, and simulation with fixed seeds
(each tolerance derived next to it).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpteach._validation import ParameterError
from dpteach.mechanisms import definition as d
from dpteach.mechanisms.noise import gaussian_delta
from dpteach.mechanisms.randomized_response import rr_epsilon_from_gamma


def _every_event_delta(p, q, epsilon):
    """max over every event S (every subset of outcomes) and both orders of
    P(S) − e^ε Q(S): the definition of (ε, δ)-DP read literally (Dwork & Roth Def. 2.4)."""
    worst = 0.0
    for size in range(len(p) + 1):
        for event in itertools.combinations(range(len(p)), size):
            s = list(event)
            worst = max(worst, p[s].sum() - math.exp(epsilon) * q[s].sum(),
                        q[s].sum() - math.exp(epsilon) * p[s].sum())
    return worst


def _random_distributions(rng, m, zeros=0):
    p, q = rng.dirichlet(np.ones(m)), rng.dirichlet(np.ones(m))
    if zeros:                                         # outcomes impossible on one side
        p[:zeros] = 0.0
        p /= p.sum()
    return p, q


# -------------------------------------------------------- laplace_event_probability
def test_laplace_event_probability_against_scipy():
    # differences of scipy's Laplace CDF (loc = value, scale = Δ/ε), where they do not cancel
    rng = np.random.default_rng(5)
    lows = rng.uniform(-8, 12, 500)
    highs = lows + rng.exponential(2.0, 500)
    for value, sens, eps in ((4.0, 1.0, 1.0), (3.0, 2.0, 0.5), (-1.0, 0.3, 3.0)):
        dist = stats.laplace(loc=value, scale=sens / eps)
        got = d.laplace_event_probability(lows, highs, value, sens, eps)
        assert got == pytest.approx(dist.cdf(highs) - dist.cdf(lows), abs=1e-15, rel=1e-12)
        assert d.laplace_event_probability(-np.inf, np.inf, value, sens, eps) == 1.0
        assert d.laplace_event_probability(-np.inf, value, value, sens, eps) == 0.5
        left = d.laplace_event_probability(-np.inf, 1.5, value, sens, eps)
        assert left == pytest.approx(dist.cdf(1.5), rel=1e-14)


def test_laplace_event_probability_in_the_far_tails():
    # (100, 101] for value 4, b = 1: ½e^{−96}(1 − e^{−1}), accurate in logs and as a number
    exact = math.log(0.5) - 96 + math.log1p(-math.exp(-1))
    assert d.laplace_event_probability(100, 101, 4, 1, 1, log=True) == pytest.approx(exact,
                                                                                    rel=1e-15)
    assert d.laplace_event_probability(100, 101, 4, 1, 1) == pytest.approx(math.exp(exact),
                                                                           rel=1e-13)
    # and where the probability underflows, the log does not
    far = d.laplace_event_probability(-np.inf, -2000.0, 0.0, 1.0, 1.0, log=True)
    assert far == pytest.approx(math.log(0.5) - 2000, rel=1e-15)
    # a tiny interval around the answer: P ≈ width/(2b), no cancellation
    assert d.laplace_event_probability(-1e-12, 1e-12, 0.0, 1.0, 1.0) == pytest.approx(1e-12,
                                                                                     rel=1e-9)


def test_laplace_event_ratios_never_exceed_e_to_the_epsilon():
    # the definition on a grid of interval events: counts 4 and 3, sensitivity 1; the
    # largest ratio is e^ε, reached by the half-lines left of 3 (the privacy loss is ε there)
    edges = np.r_[-np.inf, np.arange(-6.0, 14.0, 0.25), np.inf]
    a, b = np.meshgrid(edges, edges)
    keep = a < b
    for eps in (0.1, 1.0, 3.0):
        p = d.laplace_event_probability(a[keep], b[keep], 4.0, 1.0, eps, log=True)
        q = d.laplace_event_probability(a[keep], b[keep], 3.0, 1.0, eps, log=True)
        assert np.max(np.abs(p - q)) <= eps * (1 + 1e-12)
        assert np.max(np.abs(p - q)) == pytest.approx(eps, rel=1e-12)


def test_laplace_event_probability_refuses_reversed_intervals():
    with pytest.raises(ParameterError, match=r"low must be at most high"):
        d.laplace_event_probability(2.0, 1.0, 0.0, 1.0, 1.0)
    with pytest.raises(ParameterError, match=r"low must be"):
        d.laplace_event_probability(np.nan, 1.0, 0.0, 1.0, 1.0)
    assert d.laplace_event_probability(1.0, 1.0, 0.0, 1.0, 1.0) == 0.0


# ------------------------------------------------------------------ smallest_delta
@pytest.mark.parametrize("seed, zeros", [(0, 0), (1, 0), (2, 1), (3, 2)])
@pytest.mark.parametrize("epsilon", [0.0, 0.1, 0.5, 1.0, 3.0])
def test_smallest_delta_is_the_worst_event(seed, zeros, epsilon):
    # the closed form (the worst event {o: p > e^ε q}) equals the brute force over all
    # 2^7 events; the sums are of 7 terms in [0, 1], so rounding stays below 1e-15
    p, q = _random_distributions(np.random.default_rng(seed), 7, zeros)
    assert d.smallest_delta(p, q, epsilon) == pytest.approx(_every_event_delta(p, q, epsilon),
                                                            abs=1e-14)


def test_smallest_delta_of_randomized_response():
    # truth with probability 3/4: ε = ln 3 exactly, δ(ε) = max(0, 3/4 − e^ε/4), TV = 1/2
    p, q = np.array([0.75, 0.25]), np.array([0.25, 0.75])
    assert d.smallest_delta(p, q, 0.0) == pytest.approx(0.5, abs=1e-15)
    assert d.smallest_delta(p, q, math.log(3)) == pytest.approx(0.0, abs=1e-15)
    for eps in (0.2, 0.7, 1.0):
        assert d.smallest_delta(p, q, eps) == pytest.approx(0.75 - math.exp(eps) / 4, abs=1e-15)
    assert d.smallest_delta(p, q, 1000.0) == 0.0               # e^ε is never formed


def test_smallest_delta_of_the_binned_gaussian_mechanism():
    # Gaussian outputs N(0, 1) and N(1, 1) (Δ = σ = 1) cut into bins of width h are a
    # post-processing of the mechanism, so their δ(ε) is at most the exact
    # δ(ε) = Φ(1/2 − ε) − e^ε Φ(−1/2 − ε) of Balle & Wang (2018, Thm 8); the loss lost by
    # binning is at most the privacy-loss change across one bin (h·Δ/σ² = h) times the
    # mass, so with h = 1e-3 the two agree to about 1e-3
    h = 1e-3
    edges = np.r_[-np.inf, np.arange(-12.0, 13.0 + h / 2, h), np.inf]
    p = np.diff(stats.norm.cdf(edges, loc=0.0))
    q = np.diff(stats.norm.cdf(edges, loc=1.0))
    for eps in (0.1, 0.5, 1.0, 2.0):
        exact = gaussian_delta(1.0, 1.0, eps)
        binned = d.smallest_delta(p / p.sum(), q / q.sum(), eps)
        assert binned <= exact + 1e-12
        assert binned == pytest.approx(exact, abs=1e-3)


def test_smallest_delta_refuses_what_is_not_a_pair_of_distributions():
    with pytest.raises(ParameterError, match=r"p must be a probability vector \(sum 1.1\)"):
        d.smallest_delta([0.5, 0.6], [0.5, 0.5], 1.0)
    with pytest.raises(ParameterError, match=r"p_prime.shape must be p.shape .* same outcomes"):
        d.smallest_delta([0.5, 0.5], [0.25, 0.25, 0.5], 1.0)
    with pytest.raises(ParameterError, match=r"epsilon"):
        d.smallest_delta([0.5, 0.5], [0.5, 0.5], -1.0)


# ---------------------------------------------------------------- smallest_epsilon
def test_smallest_epsilon_pure():
    # randomized response with truth probability ½ + γ: ε = ln((½+γ)/(½−γ))
    for gamma in (0.05, 0.25, 0.45):
        p, q = np.array([0.5 + gamma, 0.5 - gamma]), np.array([0.5 - gamma, 0.5 + gamma])
        assert d.smallest_epsilon(p, q) == pytest.approx(rr_epsilon_from_gamma(gamma),
                                                         rel=1e-14)
    assert d.smallest_epsilon([0.5, 0.5], [0.5, 0.5]) == 0.0
    assert d.smallest_epsilon([1.0, 0.0], [0.5, 0.5]) == math.inf     # impossible under D


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("delta", [1e-3, 0.05, 0.2])
def test_smallest_epsilon_with_delta_is_tight(seed, delta):
    # the returned ε meets δ (over every event, by brute force) and no smaller ε does
    p, q = _random_distributions(np.random.default_rng(10 + seed), 6)
    eps = d.smallest_epsilon(p, q, delta)
    # (within the relative 1e-9 the function allows for rounded probabilities)
    assert _every_event_delta(p, q, eps) <= delta * (1 + 1e-9) + 1e-14
    if eps > 0:
        assert _every_event_delta(p, q, eps * (1 - 1e-6)) > delta
    assert eps <= d.smallest_epsilon(p, q)                           # δ > 0 never costs ε


def test_smallest_epsilon_of_the_record_publishing_mechanism():
    # "is Alice's record published?": yes with probability δ₀ when she is in, never when
    # she is out. (0, δ)-DP exactly for δ ≥ δ₀; no ε helps below it.
    d0 = 1e-3
    with_alice, without = np.array([d0, 1 - d0]), np.array([0.0, 1.0])
    assert d.smallest_epsilon(with_alice, without, d0) == 0.0
    assert d.smallest_epsilon(with_alice, without, d0 / 2) == math.inf
    assert d.smallest_epsilon(with_alice, without) == math.inf
    for eps in (0.0, 1.0, 10.0):
        assert d.smallest_delta(with_alice, without, eps) == pytest.approx(d0, rel=1e-12)


# ------------------------------------------------------------------ posterior_bound
def test_posterior_bound_is_bayes_rule_at_the_largest_likelihood_ratio():
    # an output with likelihood ratio e^ε: posterior = prior·e^ε / (prior·e^ε + 1 − prior)
    for prior in (0.01, 0.1, 0.5, 0.9):
        for eps in (0.1, 1.0, math.log(3), 5.0):
            ratio = math.exp(eps)
            bayes = prior * ratio / (prior * ratio + (1 - prior))
            assert d.posterior_bound(prior, eps) == pytest.approx(bayes, rel=1e-14)
    assert d.posterior_bound(0.5, math.log(3)) == pytest.approx(0.75, rel=1e-15)
    # the same bound as notebook 01's attack limit e^ε/(1 + e^ε) at prior ½
    assert d.posterior_bound(0.5, 2.0) == pytest.approx(math.exp(2) / (1 + math.exp(2)))


def test_posterior_bound_ends_and_arrays():
    assert d.posterior_bound(0.0, 5.0) == 0.0 and d.posterior_bound(1.0, 5.0) == 1.0
    assert d.posterior_bound(0.3, 0.0) == pytest.approx(0.3, rel=1e-15)   # ε = 0: nothing
    assert d.posterior_bound(1e-9, 1000.0) == 1.0                          # no overflow
    priors = np.linspace(0, 1, 11)
    bounds = d.posterior_bound(priors, 1.0)
    assert bounds.shape == priors.shape and np.all(np.diff(bounds) > 0)
    assert np.all(bounds >= priors) and type(d.posterior_bound(0.5, 1.0)) is float
    # the smallest posterior mirrors the largest
    assert 1 - d.posterior_bound(0.8, 1.0) == pytest.approx(
        0.2 / (0.2 + 0.8 * math.e), rel=1e-14)


def test_posterior_of_a_laplace_count_stays_within_the_bound():
    # an observer sees count + Lap(1/ε) and weighs count 4 (D) against 3 (D′): the exact
    # posterior lies within the bound everywhere and reaches it for outputs at or below 3
    eps, prior = 1.0, 0.3
    y = np.linspace(-5, 12, 341)
    like_d = stats.laplace.pdf(y, loc=4, scale=1 / eps)
    like_d2 = stats.laplace.pdf(y, loc=3, scale=1 / eps)
    posterior = prior * like_d / (prior * like_d + (1 - prior) * like_d2)
    low, high = 1 - d.posterior_bound(1 - prior, eps), d.posterior_bound(prior, eps)
    assert np.all(posterior <= high + 1e-12) and np.all(posterior >= low - 1e-12)
    assert posterior[y >= 4].min() == pytest.approx(high, rel=1e-12)
    assert posterior[y <= 3].max() == pytest.approx(low, rel=1e-12)


# -------------------------------------------------------------------- group_privacy
def test_group_privacy_pure_is_k_epsilon_and_tight():
    # k people answer by randomized response (truth with probability e^ε/(1+e^ε)); the
    # family all "yes" against all "no": the 2^k report vectors' largest ratio is e^{kε}
    eps = 0.7
    p_true = math.exp(eps) / (1 + math.exp(eps))
    for k in (1, 2, 3, 5):
        reports = np.array(list(itertools.product([0, 1], repeat=k)))
        all_yes = np.prod(np.where(reports == 1, p_true, 1 - p_true), axis=1)
        all_no = np.prod(np.where(reports == 0, p_true, 1 - p_true), axis=1)
        assert d.group_privacy(eps, k) == (pytest.approx(k * eps), 0.0)
        assert d.smallest_epsilon(all_yes, all_no) == pytest.approx(k * eps, rel=1e-12)


def test_group_privacy_delta_is_the_chain_sum():
    # δ_k = e^ε δ_{k−1} + δ, δ_1 = δ (the chain of Dwork & Roth's proof of Thm 2.2, with δ)
    for eps, delta in ((0.5, 1e-8), (1.0, 1e-5), (0.01, 1e-3)):
        chain = delta
        for k in range(1, 12):
            got = d.group_privacy(eps, k, delta)
            assert got[0] == pytest.approx(k * eps, rel=1e-15)
            assert got[1] == pytest.approx(chain, rel=1e-12)
            assert got[1] <= k * math.exp((k - 1) * eps) * delta * (1 + 1e-12)
            chain = math.exp(eps) * chain + delta
    assert d.group_privacy(0.5, 3, 1e-8)[1] == pytest.approx(1e-8 * (1 + math.e**0.5 + math.e),
                                                             rel=1e-12)


def test_group_privacy_of_the_record_publishing_mechanism_is_within_the_bound():
    # k people added: the output differs when any of their k coins comes up, with
    # probability 1 − (1 − δ)^k (the event "one of them is published"): the chain's δ_k
    # holds at ε = 0 (δ_k = kδ there would be the chain sum with e^0 = 1)
    delta = 1e-3
    for k in (1, 2, 5, 20):
        exposed = -math.expm1(k * math.log1p(-delta))
        assert exposed <= k * delta
        assert d.group_privacy(1e-6, k, delta)[1] >= exposed


def test_group_privacy_saturates_instead_of_overflowing():
    assert d.group_privacy(1000.0, 10_000, 1e-5) == (1e7, 1.0)
    assert d.group_privacy(1e-6, 1, 1e-50)[1] == pytest.approx(1e-50, rel=1e-9)


# ---------------------------------------------------------- publish_random_records
def test_publish_random_records_publishes_each_with_probability_delta():
    # n·δ records on average; the count is Binomial(n, δ), sd √(nδ(1−δ)) = 30 for n = 10⁴,
    # δ = 0.1: allow 5 sd. Over 2,000 runs on 100 people at δ = 0.01 the mean count is
    # 1 with sd √(0.99/2000) ≈ 0.022: allow 5 sd
    records = np.arange(10_000)
    published = d.publish_random_records(records, 0.1, rng=3)
    assert abs(published.size - 1_000) <= 5 * 30
    assert np.all(np.diff(published) > 0)                           # original order, no repeats
    gen = np.random.default_rng(4)
    counts = [d.publish_random_records(np.arange(100), 0.01, rng=gen).size for _ in range(2000)]
    assert abs(np.mean(counts) - 1.0) <= 5 * math.sqrt(0.99 / 2000)


def test_publish_random_records_keeps_the_table_type():
    table = pd.DataFrame({"age": [39, 50, 38], "income": ["<=50K", ">50K", "<=50K"]})
    assert d.publish_random_records(table, 1e-50, rng=0).empty
    whole = d.publish_random_records(table, 0.999999, rng=0)
    assert isinstance(whole, pd.DataFrame) and whole.equals(table)
    assert d.publish_random_records([[1, 2], [3, 4]], 0.0, rng=0).shape == (0, 2)
    with pytest.raises(ParameterError, match=r"records must be a table of records"):
        d.publish_random_records(5, 0.1)
