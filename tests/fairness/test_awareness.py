"""Fairness through awareness (``dpteach.fairness.awareness`` and ``awareness_parity``), Dwork
et al. 2012.

* tiny instances solved by hand (two or three individuals, closed-form optima), for both
  distances ``D_tv`` and ``D_∞``;
* the lazily generated LP against the *full* LP written independently here (every pair's
  constraint; total variation through auxiliary positive-part variables, and for two
  outcomes through the closed form ``|μ_x(1) − μ_y(1)|``): the same optimum;
* every constraint of the returned mapping holds to 1e-9, and its objective is no worse
  than the best constant mapping's (a feasible candidate) and no better than the
  unconstrained optimum;
* the Earthmover bound of Sec. 3 on random instances: the parity gap of every fair mapping
  is at most ``d_EM``, and for metrics with values ≤ 1 the worst case equals it;
* fixed outcomes and the parity cap, infeasibility diagnosed and named;
* the rules that tie arguments together (single bad values: tests/test_domains.py).

Solve times on this machine (random Euclidean metrics, ``min(1, 0.3‖x − y‖)``) are in the
report of the change; ``test_n_300_solves_quickly`` keeps the n = 300 case honest.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from dpteach._validation import ParameterError
from dpteach.fairness import awareness as aw
from dpteach.fairness.awareness import FairMapping, fair_mapping
from dpteach.fairness.awareness_parity import (
    adult_awareness_example,
    earthmover_distance,
    feature_metric,
    statistical_parity_gap,
    worst_case_parity_gap,
)

TOL = 1e-9


# ---------------------------------------------------------------------------- helpers
def euclidean(n, rng, *, scale=0.3, dim=2, cap=True):
    X = rng.normal(size=(n, dim))
    d = scale * np.linalg.norm(X[:, None] - X[None], axis=-1)
    return np.minimum(d, 1.0) if cap else d


def random_symmetric(n, rng, high=1.2):
    u = rng.uniform(0, high, size=(n, n))
    u = np.minimum(u, u.T)
    np.fill_diagonal(u, 0.0)
    return u


def tv_matrix(mu):
    return 0.5 * np.abs(mu[:, None, :] - mu[None, :, :]).sum(axis=-1)


def assert_feasible(res: FairMapping, d, *, metric="tv"):
    mu = res.mapping
    assert np.all(mu >= 0) and np.all(mu <= 1)
    np.testing.assert_allclose(mu.sum(axis=1), 1.0, atol=1e-12)
    if metric == "tv":
        assert np.all(tv_matrix(mu) <= d + TOL)
    else:
        e = np.exp(d)[:, :, None]
        assert np.all(mu[:, None, :] <= e * mu[None, :, :] + TOL)
    assert res.max_violation <= TOL


def full_lp_objective(L, d, *, form):
    """The fair-mapping LP with every pair's constraint, written independently."""
    n, m = L.shape
    i, j = np.triu_indices(n, 1)
    P = i.size
    r = np.arange(P)
    if form == "closed":                                     # m = 2: |p_i − p_j| ≤ d_ij
        A = sp.csr_matrix((np.r_[np.ones(P), -np.ones(P)], (np.r_[r, r], np.r_[i, j])),
                          shape=(P, n))
        res = linprog(L[:, 1] - L[:, 0], A_ub=sp.vstack([A, -A]), b_ub=np.r_[d[i, j], d[i, j]],
                      bounds=(0, 1), method="highs")
        assert res.status == 0
        return (res.fun + L[:, 0].sum()) / n
    if form == "aux":                                        # Σ_a s_a ≤ d, s_a ≥ μ_i(a) − μ_j(a)
        nv = n * m + P * m
        blocks = [sp.csr_matrix((np.r_[np.ones(P), -np.ones(P), -np.ones(P)],
                                 (np.r_[r, r, r], np.r_[i * m + a, j * m + a, n * m + r * m + a])),
                                shape=(P, nv)) for a in range(m)]
        blocks.append(sp.csr_matrix((np.ones(P * m), (np.repeat(r, m), n * m + np.arange(P * m))),
                                    shape=(P, nv)))
        b = np.r_[np.zeros(P * m), d[i, j]]
        A_eq = sp.hstack([sp.kron(sp.eye(n), np.ones((1, m))), sp.csr_matrix((n, P * m))])
        c = np.r_[L.ravel(), np.zeros(P * m)]
    elif form == "dinf":                                     # μ_i(a) ≤ e^d μ_j(a), both ways
        nv = n * m
        rows, cols, vals = [], [], []
        k = 0
        for (x, y) in zip(np.r_[i, j], np.r_[j, i]):
            for a in range(m):
                rows += [k, k]
                cols += [x * m + a, y * m + a]
                vals += [1.0, -math.exp(d[x, y])]
                k += 1
        blocks = [sp.csr_matrix((vals, (rows, cols)), shape=(k, nv))]
        b = np.zeros(k)
        A_eq = sp.kron(sp.eye(n), np.ones((1, m)))
        c = L.ravel()
    res = linprog(c, A_ub=sp.vstack(blocks), b_ub=b, A_eq=A_eq, b_eq=np.ones(n), bounds=(0, 1),
                  method="highs")
    assert res.status == 0
    return res.fun / n


def best_constant(L):
    """The best mapping that gives everyone the same distribution (always Lipschitz)."""
    return float(L.mean(axis=0).min())


# --------------------------------------------------------------- tiny instances by hand
def test_two_individuals_split_the_allowed_difference():
    # minimise 2 p0 + (1 − p1) subject to |p0 − p1| ≤ 0.2: p0 = 0, p1 = 0.2
    res = fair_mapping([[0.0, 2.0], [1.0, 0.0]], [[0.0, 0.2], [0.2, 0.0]])
    np.testing.assert_allclose(res.mapping, [[1.0, 0.0], [0.8, 0.2]], atol=1e-12)
    assert res.objective == pytest.approx(0.4, abs=1e-12)
    assert res.unconstrained_objective == 0.0
    assert res.n_tight == 1 and res.max_violation <= TOL
    np.testing.assert_allclose(res.slack, 0.0, atol=1e-12)
    assert type(res.objective) is float and type(res.n_tight) is int


def test_a_chain_binds_a_pair_its_distance_does_not():
    # d(0, 2) = 5 says nothing, but 0–1–2 at 0.3 + 0.3 forces |p0 − p2| ≤ 0.6; the larger
    # loss at 0 wins: p0 = 1, p1 = 0.7, p2 = 0.4 (unique)
    d = np.array([[0, 0.3, 5.0], [0.3, 0, 0.3], [5.0, 0.3, 0]])
    L = np.array([[5.0, 0.0], [0.0, 0.0], [0.0, 3.0]])
    res = fair_mapping(L, d)
    np.testing.assert_allclose(res.mapping[:, 1], [1.0, 0.7, 0.4], atol=1e-12)
    assert res.objective == pytest.approx(1.2 / 3, abs=1e-12)
    assert res.n_tight == 2                                 # (0, 1) and (1, 2)


def test_three_outcomes_closed_form():
    # x0 wants 0, x1 wants 2, TV ≤ 0.25: μ0(0) + μ1(2) ≤ 1.25, so the loss is 0.75 / 2
    res = fair_mapping([[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]], [[0, 0.25], [0.25, 0]])
    assert res.objective == pytest.approx(0.375, abs=1e-12)
    assert tv_matrix(res.mapping)[0, 1] == pytest.approx(0.25, abs=1e-12)
    np.testing.assert_allclose(res.mapping[:, 1], 0.0, atol=1e-12)   # nobody wants outcome 1


def test_dinf_closed_form():
    # D_∞ ≤ log 3: p1 ≤ 3 p0 and 1 − p0 ≤ 3 (1 − p1); minimising p0 + 2 (1 − p1) gives
    # p0 = 1/4, p1 = 3/4 (both ratio constraints tight), loss 0.75 / 2
    d = np.log(3.0)
    res = fair_mapping([[0.0, 1.0], [2.0, 0.0]], [[0, d], [d, 0]], metric="dinf")
    np.testing.assert_allclose(res.mapping[:, 1], [0.25, 0.75], atol=1e-12)
    assert res.objective == pytest.approx(0.375, abs=1e-12)
    assert res.distances_used[0, 1] == pytest.approx(d, abs=1e-12)
    assert res.metric == "dinf" and res.n_tight == 1


def test_far_apart_individuals_get_what_the_vendor_wants():
    L = np.array([[0.0, 1.0], [1.0, 0.0], [0.3, 0.2]])
    d = np.full((3, 3), 1.0) - np.eye(3)                     # D_tv ≤ 1 always holds
    res = fair_mapping(L, d)
    np.testing.assert_array_equal(res.mapping, [[1, 0], [0, 1], [0, 1]])
    assert res.objective == res.unconstrained_objective == pytest.approx(0.2 / 3)
    assert res.n_tight == 0


def test_zero_distance_forces_equal_treatment():
    L = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 3.0]])
    res = fair_mapping(L, np.zeros((3, 3)))
    np.testing.assert_allclose(res.mapping, res.mapping[[0]].repeat(3, axis=0), atol=1e-12)
    assert res.objective == pytest.approx(best_constant(L), abs=1e-12)


def test_one_individual():
    res = fair_mapping([[0.5, 0.25, 1.0]], [[0.0]])
    np.testing.assert_array_equal(res.mapping, [[0, 1, 0]])
    assert res.objective == 0.25 and res.n_constraints == 0


# ------------------------------------------------- against the full LP, feasibility
@pytest.mark.parametrize("seed", range(6))
def test_matches_the_full_lp(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 30))
    d = euclidean(n, rng) if seed % 2 else random_symmetric(n, rng)
    for m in (2, 3, 4):
        L = rng.normal(size=(n, m))
        res = fair_mapping(L, d)
        assert_feasible(res, d)
        ref = full_lp_objective(L, d, form="aux")
        assert res.objective == pytest.approx(ref, abs=1e-9)
        if m == 2:                  # the auxiliary linearisation and the closed form agree
            assert full_lp_objective(L, d, form="closed") == pytest.approx(ref, abs=1e-9)
        assert res.unconstrained_objective - 1e-12 <= res.objective <= best_constant(L) + 1e-12
        # the objective is what the mapping costs
        assert res.objective == pytest.approx(float((res.mapping * L).sum(axis=1).mean()))


@pytest.mark.parametrize("seed", range(3))
def test_dinf_matches_the_full_lp(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(5, 15))
    d = euclidean(n, rng, scale=float(rng.uniform(0.2, 2.0)), cap=False)
    for m in (2, 3):
        L = rng.normal(size=(n, m))
        res = fair_mapping(L, d, metric="dinf")
        assert_feasible(res, d, metric="dinf")
        assert np.all(res.slack >= -1e-9)
        assert res.objective == pytest.approx(full_lp_objective(L, d, form="dinf"), abs=1e-9)
        assert res.objective <= best_constant(L) + 1e-12
        # D_∞ ≤ d implies D_tv ≤ 1 − e^{−d} ≤ d: the mapping is TV-Lipschitz as well
        assert np.all(tv_matrix(res.mapping) <= 1 - np.exp(-d) + TOL)


def test_extra_outcomes_that_are_never_better_change_nothing():
    # Outcomes 2 and 3 cost more than outcome 0 for everyone: mass on them can be moved to
    # outcome 0 (a post-processing, which keeps the mapping Lipschitz) at a lower loss, so
    # the four-outcome LP (event cuts over 4 outcomes) has the two-outcome (closed-form)
    # optimum and puts no mass on them.
    rng = np.random.default_rng(7)
    n = 40
    d = euclidean(n, rng)
    L2 = rng.normal(size=(n, 2))
    L4 = np.column_stack([L2, L2[:, 0] + 0.5, L2[:, 0] + rng.uniform(0.1, 1.0, n)])
    two, three, four = fair_mapping(L2, d), fair_mapping(L4[:, :3], d), fair_mapping(L4, d)
    assert three.objective == pytest.approx(two.objective, abs=1e-9)
    assert four.objective == pytest.approx(two.objective, abs=1e-9)
    np.testing.assert_allclose(four.mapping[:, 2:], 0.0, atol=1e-9)


def test_slack_and_tightness_are_consistent():
    rng = np.random.default_rng(3)
    d = euclidean(60, rng)
    res = fair_mapping(rng.normal(size=(60, 3)), d)
    np.testing.assert_allclose(res.distances_used, tv_matrix(res.mapping), atol=1e-15)
    np.testing.assert_allclose(res.slack, d - res.distances_used)
    iu = np.triu_indices(60, 1)
    tight = (res.slack[iu] <= TOL) & (d[iu] < 1)
    assert res.n_tight == int(tight.sum()) > 0
    assert 0 < res.n_constraints < 60 * 59 // 2 * 6              # far fewer than all rows
    assert res.n_rounds >= 1 and "Optimal" in res.status


def test_loss_is_only_compared_within_rows():
    # adding a per-individual constant or scaling the loss leaves the optimum in place
    rng = np.random.default_rng(4)
    d = euclidean(30, rng)
    L = rng.normal(size=(30, 3))
    base = fair_mapping(L, d)
    moved = fair_mapping(7.0 * L + rng.normal(size=(30, 1)) * 100, d)
    assert_feasible(moved, d)
    assert float((moved.mapping * L).sum(axis=1).mean()) == pytest.approx(base.objective,
                                                                          abs=1e-9)


def test_n_300_solves_quickly():
    rng = np.random.default_rng(0)
    d = euclidean(300, rng, dim=3)
    res = fair_mapping(rng.uniform(size=(300, 2)), d)
    # constraint generation: the LP never holds most of the 44,850 pairs' rows (3,577
    # after 3 rounds here, 0.1 s); all of them at once is what would make n = 300 slow
    assert res.n_constraints < 300 * 299 // 2 // 4 and res.n_rounds <= 10
    assert_feasible(res, d)


def test_size_limits():
    assert aw.MAX_INDIVIDUALS == 500 and aw.MAX_OUTCOMES == 4 and aw.MAX_VARIABLES == 1200
    for shape in ((501, 2), (401, 3), (301, 4), (3, 5), (3, 1)):
        n = shape[0]
        with pytest.raises(ParameterError, match="^loss must"):
            fair_mapping(np.zeros(shape), np.zeros((n, n)))
    with pytest.raises(ParameterError, match="distances"):
        earthmover_distance(np.zeros((501, 501)), np.arange(501) % 2)
    with pytest.raises(ParameterError, match="X"):
        feature_metric(np.zeros((501, 2)))


# --------------------------------------------------------- fixed outcomes, parity cap
def test_fixed_outcomes_are_met():
    rng = np.random.default_rng(5)
    d = euclidean(20, rng, scale=1.0)
    L = rng.normal(size=(20, 3))
    free = fair_mapping(L, d)
    fixed = {0: 2, 5: 2, 7: 2}                  # one outcome: always feasible
    res = fair_mapping(L, d, fixed_outcomes=fixed)
    for x, a in fixed.items():
        assert res.mapping[x, a] == pytest.approx(1.0, abs=1e-12)
    assert_feasible(res, d)
    assert res.objective >= free.objective - 1e-12


def test_parity_cap_is_met():
    rng = np.random.default_rng(6)
    n = 40
    g = np.array(["a", "b"])[rng.integers(0, 2, n)]
    d = euclidean(n, rng, scale=1.0)
    L = np.column_stack([np.zeros(n), np.where(g == "a", -1.0, 1.0)])   # favours group a
    free = fair_mapping(L, d)
    assert statistical_parity_gap(free, g) > 0.3
    for cap in (0.2, 0.05, 0.0):
        res = fair_mapping(L, d, groups=g, max_parity_gap=cap)
        assert statistical_parity_gap(res, g) <= cap + TOL
        assert res.objective >= free.objective - 1e-12
        assert_feasible(res, d)
    # a cap of 1 (or a cap the free optimum meets) changes nothing
    assert fair_mapping(L, d, groups=g, max_parity_gap=1.0).objective == pytest.approx(
        free.objective, abs=1e-12)


def test_parity_cap_with_three_groups_and_outcomes():
    rng = np.random.default_rng(8)
    n = 45
    g = np.repeat([0, 1, 2], 15)
    d = euclidean(n, rng, scale=0.8)
    L = rng.normal(size=(n, 3)) + np.eye(3)[g] * -2.0          # each group its own outcome
    res = fair_mapping(L, d, groups=g, max_parity_gap=0.1)
    assert statistical_parity_gap(res, g) <= 0.1 + TOL
    assert_feasible(res, d)


def test_infeasible_fixed_outcomes_are_named_with_the_pair():
    d = [[0, 0.5], [0.5, 0]]
    with pytest.raises(ParameterError, match=r"fixed_outcomes.*individuals 0 and 1.*0\.5"):
        fair_mapping(np.zeros((2, 2)), d, fixed_outcomes={0: 0, 1: 1})
    # through a chain: d(0, 2) = 5 but 0–1–2 is 0.8 < 1
    d = np.array([[0, 0.4, 5.0], [0.4, 0, 0.4], [5.0, 0.4, 0]])
    with pytest.raises(ParameterError, match="fixed_outcomes.*chain"):
        fair_mapping(np.zeros((3, 3)), d, fixed_outcomes={0: 0, 2: 2})
    # with D_∞, two different certain outcomes are never allowed
    with pytest.raises(ParameterError, match="fixed_outcomes.*dinf"):
        fair_mapping(np.zeros((2, 2)), [[0, 20.0], [20.0, 0]], metric="dinf",
                     fixed_outcomes={0: 0, 1: 1})
    # far enough apart, they are fine
    res = fair_mapping(np.zeros((2, 2)), [[0, 1.0], [1.0, 0]], fixed_outcomes={0: 0, 1: 1})
    np.testing.assert_array_equal(res.mapping, [[1, 0], [0, 1]])


def test_infeasible_parity_cap_is_named():
    d = [[0, 2.0], [2.0, 0]]
    with pytest.raises(ParameterError, match="max_parity_gap must be a gap that fixed_outcomes"):
        fair_mapping(np.zeros((2, 2)), d, fixed_outcomes={0: 0, 1: 1}, groups=[0, 1],
                     max_parity_gap=0.5)
    # both families at fault: the fixed outcomes alone are already infeasible
    with pytest.raises(ParameterError, match="fixed_outcomes must be outcomes that distances allow"):
        fair_mapping(np.zeros((2, 2)), [[0, 0.5], [0.5, 0]], fixed_outcomes={0: 0, 1: 1},
                     groups=[0, 1], max_parity_gap=0.5)


# ---------------------------------------------------- statistical parity, Earthmover
def test_statistical_parity_gap_values():
    mu = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.5, 0.5]])
    assert statistical_parity_gap(mu, [0, 1, 0, 1]) == pytest.approx(0.5)
    assert statistical_parity_gap(mu, ["x", "x", "y", "y"]) == 0.0
    assert statistical_parity_gap(mu, [0, 1, 2, 2]) == 1.0          # worst pair of groups
    three = np.array([[1, 0, 0], [0, 0.5, 0.5]])
    assert statistical_parity_gap(three, [True, False]) == 1.0
    assert type(statistical_parity_gap(mu, [0, 1, 0, 1])) is float


def test_earthmover_distance_values():
    # S = {s1, s2}, T = {t1, t2} with cross distances [[.1, .9], [.8, .2]]: match s1–t1 and
    # s2–t2 at cost (0.1 + 0.2) / 2
    cross = np.array([[0.1, 0.9], [0.8, 0.2]])
    d = np.block([[np.array([[0, 0.5], [0.5, 0]]), cross], [cross.T, np.array([[0, 0.5],
                                                                               [0.5, 0]])]])
    assert earthmover_distance(d, [0, 0, 1, 1]) == pytest.approx(0.15, abs=1e-12)
    # one against two: the single member's mass splits evenly
    d3 = np.array([[0, 0.2, 0.6], [0.2, 0, 0.3], [0.6, 0.3, 0]])
    assert earthmover_distance(d3, ["s", "t", "t"]) == pytest.approx(0.4, abs=1e-12)
    assert earthmover_distance(np.zeros((4, 4)), [0, 1, 0, 1]) == 0.0
    # three groups: the largest pairwise distance
    assert earthmover_distance(d3, [0, 1, 2]) == pytest.approx(0.6, abs=1e-12)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10**6), n=st.integers(2, 14), m=st.integers(2, 4),
       kind=st.sampled_from(["euclidean", "uncapped", "random", "dinf"]))
def test_parity_gap_is_at_most_the_earthmover_distance(seed, n, m, kind):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    g[:2] = [0, 1]                                           # both groups present
    scale = float(rng.uniform(0.05, 1.5))
    d = (random_symmetric(n, rng) if kind == "random"
         else euclidean(n, rng, scale=scale, cap=kind == "euclidean"))
    L = rng.normal(size=(n, m)) + rng.normal(size=m) * g[:, None]     # group-dependent
    res = fair_mapping(L, d, metric="dinf" if kind == "dinf" else "tv")
    bound = earthmover_distance(d, g)
    worst = worst_case_parity_gap(d, g)
    assert statistical_parity_gap(res, g) <= bound + TOL
    assert statistical_parity_gap(res, g) <= worst + TOL
    assert worst <= bound + TOL
    if kind == "euclidean":                     # a metric with values ≤ 1: the bound is tight
        assert worst == pytest.approx(bound, abs=1e-8)


def test_worst_case_gap_separated_and_tied():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(30, 2))
    g = np.arange(30) % 2
    tied = feature_metric(X, scale=0.3)
    apart = feature_metric(X, scale=0.3, groups=g, group_distance=1.0)
    assert worst_case_parity_gap(apart, g) == pytest.approx(1.0, abs=1e-9)
    assert earthmover_distance(apart, g) == pytest.approx(1.0, abs=1e-12)
    assert worst_case_parity_gap(tied, g) == pytest.approx(earthmover_distance(tied, g),
                                                           abs=1e-9)
    assert earthmover_distance(tied, g) < 0.5


# ----------------------------------------------------------------- the demo helpers
def test_feature_metric_is_a_metric_in_the_unit_interval():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(25, 3))
    g = rng.integers(0, 3, 25)
    for kwargs in ({}, {"scale": 0.2}, {"scale": 0.4, "groups": g, "group_distance": 0.3}):
        d = feature_metric(X, **kwargs)
        assert d.shape == (25, 25) and np.all((d >= 0) & (d <= 1))
        np.testing.assert_array_equal(d, d.T)
        assert np.all(np.diag(d) == 0)
        # the triangle inequality: d(x, z) ≤ d(x, y) + d(y, z)
        assert np.all(d[:, None, :] <= d[:, :, None] + d[None, :, :] + 1e-12)
    d = feature_metric(X, scale=0.1)
    expected = np.minimum(1, 0.1 * np.linalg.norm(X[:, None] - X[None], axis=-1))
    np.testing.assert_allclose(d, expected, rtol=1e-12, atol=1e-15)
    plus = feature_metric(X, scale=0.1, groups=g, group_distance=0.25)
    np.testing.assert_allclose(plus, np.minimum(1, expected + 0.25 * (g[:, None] != g)),
                               atol=1e-12)


@functools.cache
def _example():
    return adult_awareness_example(120, rng=0)


def test_adult_example_ties_and_separates():
    ex = _example()
    assert ex.features.shape == (120, 102)
    assert np.all((ex.features >= 0) & (ex.features <= 1))
    assert np.sum(ex.groups == 1) == np.sum(ex.groups == 0) == 60
    np.testing.assert_array_equal(ex.loss, np.column_stack([ex.labels, 1 - ex.labels]))
    np.testing.assert_array_equal(ex.separated >= ex.tied, True)
    bound_tied = earthmover_distance(ex.tied, ex.groups)
    assert bound_tied < 0.4
    assert earthmover_distance(ex.separated, ex.groups) == pytest.approx(1.0)
    tied = fair_mapping(ex.loss, ex.tied)
    apart = fair_mapping(ex.loss, ex.separated)
    assert statistical_parity_gap(tied, ex.groups) <= bound_tied + TOL
    # the separated metric constrains less: the vendor loses less and may treat the
    # groups more differently
    assert apart.objective <= tied.objective + 1e-12
    assert worst_case_parity_gap(ex.separated, ex.groups) == pytest.approx(1.0, abs=1e-9)
    again = adult_awareness_example(120, rng=0)
    np.testing.assert_array_equal(again.tied, ex.tied)


# ------------------------------------------------ rules between arguments, messages
LOSS2 = [[0.0, 1.0], [1.0, 0.0]]
D2 = np.array([[0.0, 0.5], [0.5, 0.0]])


def test_fair_mapping_rejects_combinations():
    with pytest.raises(ParameterError, match="distances must be at most 30 with metric='dinf'"):
        fair_mapping(LOSS2, [[0, 31.0], [31.0, 0]], metric="dinf")
    with pytest.raises(ParameterError, match="groups must be given with max_parity_gap"):
        fair_mapping(LOSS2, D2, max_parity_gap=0.1)
    for kwargs in ({"loss": np.zeros((3, 2))}, {"groups": [0, 1, 1]}):
        with pytest.raises(ParameterError, match=r"loss, distances.* must be of one length"):
            fair_mapping(**{"loss": LOSS2, "distances": D2, **kwargs})
    with pytest.raises(ParameterError, match=r"fixed_outcomes must be a map of .* \[0, 2\)"):
        fair_mapping(LOSS2, D2, fixed_outcomes={2: 0})
    with pytest.raises(ParameterError, match="groups must be given with group_distance=.* > 0"):
        feature_metric(np.eye(2), group_distance=0.5)
    with pytest.raises(ParameterError, match=r"mapping, groups must be of one length \(one entry"):
        statistical_parity_gap(np.eye(2), [0, 1, 1])


def test_messages_name_the_problem():
    for d in ([[0, 0.5], [0.4, 0]], [[0, -0.5], [-0.5, 0]], [[0.5, 0.5], [0.5, 0]]):
        with pytest.raises(ParameterError, match="distances must be a square .* symmetric "
                                                 "with a zero diagonal"):
            fair_mapping(LOSS2, d)
    with pytest.raises(ParameterError, match="groups must be labels of at least 2 groups"):
        statistical_parity_gap(np.eye(2), [1, 1])
    # rounding in a computed metric is tolerated (and the smaller value used)
    res = fair_mapping(LOSS2, [[1e-17, 0.5], [0.5 + 1e-12, 0]])
    assert res.mapping[1, 1] - res.mapping[0, 1] == pytest.approx(0.5, abs=1e-12)


# ----------------------------------------------- exact answers at the domain's edges
def test_zero_and_largest_distances_have_exact_answers():
    rng = np.random.default_rng(3)
    L, d = rng.normal(size=(12, 3)), euclidean(12, rng)
    zero = fair_mapping(L, 0.0 * d)
    assert zero.objective == pytest.approx(best_constant(L), abs=1e-12)
    np.testing.assert_allclose(zero.mapping, zero.mapping[[0]].repeat(12, axis=0), atol=1e-12)
    far = np.full((12, 12), 1e6)
    np.fill_diagonal(far, 0.0)
    huge = fair_mapping(L, far)
    assert huge.objective == huge.unconstrained_objective
    np.testing.assert_array_equal(huge.mapping, np.eye(3)[np.argmin(L, axis=1)])
    assert huge.n_constraints == 0 and huge.n_tight == 0
    g = np.arange(12) % 2
    assert earthmover_distance(far, g) == pytest.approx(1e6, rel=1e-9)
    assert worst_case_parity_gap(far, g) == 1.0


def test_losses_at_the_ends_of_the_domain():
    # L = 1e15·[[−1, 1], [1, −1]]: the optimum p1 − p0 = 0.2 costs −0.2·1e15
    res = fair_mapping([[-1e15, 1e15], [1e15, -1e15]], D2 * 0.4)
    assert res.objective == pytest.approx(-0.2e15, rel=1e-12)
    assert res.mapping[1, 1] - res.mapping[0, 1] == pytest.approx(0.2, abs=1e-12)


def test_returned_numbers_have_python_types():
    res = fair_mapping(LOSS2, D2)
    assert type(res.objective) is float and type(res.unconstrained_objective) is float
    assert type(res.n_tight) is int and type(res.max_violation) is float
    assert type(res.n_constraints) is int and type(res.n_rounds) is int
    for value in (statistical_parity_gap(res, [0, 1]), earthmover_distance(D2, [0, 1]),
                  worst_case_parity_gap(D2, [0, 1])):
        assert type(value) is float
