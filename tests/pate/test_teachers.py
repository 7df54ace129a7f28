"""PATE in ``dpteach.pate.teachers``: partitions, teachers, aggregators, exact answer
distributions, the student, and bad input.

Statistical tests compare answer frequencies with the exact probabilities. For N i.i.d.
answers, the frequency p̂_j of class j is a mean of N Bernoulli(p_j) variables: sd
√(p_j(1 − p_j)/N). We allow 5 sd (plus 1e-12 where p_j is 0 or 1): a correct sampler fails
one comparison with probability 5.7e-7 (normal tail; with N = 10⁵ and p_j ≥ 10⁻³, Np_j ≥ 100
so the normal approximation holds), and the seeds are fixed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _props import (
    BAD_DELTA,
    BAD_POSITIVE,
    BAD_RNG,
    NON_FINITE_ARRAYS,
    NOT_A_NUMBER,
    NOT_NUMERIC,
    WRONG_SHAPE,
    assert_rejects_bad_values,
    bad_int,
    call_rejects,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats
from scipy.special import ndtr
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.tree import DecisionTreeClassifier

from dpteach._validation import ParameterError
from dpteach.datasets import make_toy_data
from dpteach.pate import teachers as P
from dpteach.pate.teachers import (
    MAX_ROWS,
    MAX_TEACHERS,
    PATEStudent,
    TeacherEnsemble,
    partition_indices,
    train_teachers,
    vote_histograms,
)
from dpteach.pate.aggregators import (
    ConfidentAnswers,
    confident_gnmax,
    gnmax,
    lnmax,
    relative_votes,
)
from dpteach.pate.answers import (
    confident_gnmax_answer_probabilities,
    gnmax_answer_probabilities,
    lnmax_answer_probabilities,
)

N_MC = 100_000


def within_binomial(freq, p, n=N_MC):
    sd = np.sqrt(p * (1 - p) / n)
    return np.all(np.abs(freq - p) <= 5 * sd + 1e-12), np.abs(freq - p) / np.maximum(sd, 1e-300)


@pytest.fixture(scope="module")
def toy():
    X, y = make_toy_data(2000, rng=0)
    return X[:1400], y[:1400], X[1400:1700], y[1400:1700], X[1700:], y[1700:]


@pytest.fixture(scope="module")
def ensemble(toy):
    Xp, yp = toy[0], toy[1]
    return train_teachers(Xp, yp, 20, rng=0)


# ------------------------------------------------------------------------- partitions
@pytest.mark.parametrize("n, t", [(10, 3), (1000, 250), (7, 7), (5, 1), (30162, 250)])
def test_partitions_are_disjoint_cover_and_balanced(n, t):
    parts = partition_indices(n, t, rng=1)
    assert len(parts) == t
    allidx = np.concatenate(parts)
    assert np.array_equal(np.sort(allidx), np.arange(n))        # disjoint and covering
    sizes = np.array([p.size for p in parts])
    assert sizes.max() - sizes.min() <= 1 and sizes.min() >= 1
    assert all(np.all(np.diff(p) > 0) for p in parts)           # sorted


def test_partitions_are_seeded():
    a = partition_indices(100, 7, rng=3)
    b = partition_indices(100, 7, rng=3)
    c = partition_indices(100, 7, rng=4)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))
    gen = np.random.default_rng(3)
    assert all(np.array_equal(x, y) for x, y in zip(a, partition_indices(100, 7, rng=gen)))


def test_more_teachers_than_rows_is_refused():
    with pytest.raises(ParameterError, match="num_teachers.*more teachers than rows"):
        partition_indices(5, 6)
    X, y = make_toy_data(10, rng=0)
    with pytest.raises(ParameterError, match="num_teachers"):
        train_teachers(X, y, 11)
    with pytest.raises(ParameterError, match="num_teachers"):
        partition_indices(10**6, MAX_TEACHERS + 1)


# --------------------------------------------------------------------------- teachers
def test_votes_sum_to_the_number_of_teachers(ensemble, toy):
    Xq = toy[2]
    v = ensemble.votes(Xq)
    assert v.shape == (len(Xq), 2) and v.dtype == np.int64
    assert ensemble.num_teachers == len(ensemble.teachers_) == 20
    assert np.all(v.sum(axis=1) == 20)
    preds = ensemble.predict_all(Xq)
    assert preds.shape == (20, len(Xq))
    assert np.array_equal(vote_histograms(preds, 2), v)
    assert np.array_equal(ensemble.predict(Xq), np.argmax(v, axis=1))
    # the partitions are the ones of partition_indices with the same seed
    parts = partition_indices(len(toy[0]), 20, rng=np.random.default_rng(0))
    assert all(np.array_equal(a, b) for a, b in zip(parts, ensemble.partitions_))


def test_teachers_are_accurate_and_labels_are_mapped():
    X, y = make_toy_data(2000, rng=1)
    labels = np.where(y == 1, 7, 3)                              # classes 3 and 7
    ens = TeacherEnsemble(num_teachers=10, rng=0).fit(X[:1500], labels[:1500])
    assert list(ens.classes_) == [3, 7]
    assert ens.score(X[1500:], labels[1500:]) > 0.85             # plurality (not private)
    v = ens.votes(X[1500:])
    assert np.all(v.sum(axis=1) == 10)


def test_a_one_class_partition_gets_a_constant_teacher():
    X = np.arange(20.0).reshape(-1, 1)
    y = np.array([0] * 19 + [1])
    ens = train_teachers(X, y, 10, rng=0)
    kinds = [isinstance(t, DummyClassifier) for t in ens.teachers_]
    assert sum(kinds) == 9                                       # only one part holds class 1
    const = [t for t in ens.teachers_ if isinstance(t, DummyClassifier)]
    assert all(np.all(t.predict(X) == 0) for t in const)
    assert np.all(ens.votes(X).sum(axis=1) == 10)


def test_teacher_models_are_cloned_and_seeded(toy):
    Xp, yp = toy[0], toy[1]
    tree = DecisionTreeClassifier(max_features=1)               # random_state None: seeded
    a = train_teachers(Xp, yp, 5, model=tree, rng=2)
    b = train_teachers(Xp, yp, 5, model=tree, rng=2)
    assert np.array_equal(a.predict_all(toy[2]), b.predict_all(toy[2]))
    assert tree.get_params()["random_state"] is None             # the template is untouched
    assert not hasattr(tree, "tree_")
    assert len({id(t) for t in a.teachers_}) == 5


def test_ensemble_clone_and_params():
    ens = TeacherEnsemble(num_teachers=7, model=None, rng=3)
    assert clone(ens).get_params() == ens.get_params() == {"num_teachers": 7, "model": None,
                                                          "rng": 3}


# --------------------------------------------------------------- exact probabilities
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
        assert np.all(batch[:, 1] == batch[:, 1])
        assert batch[0, 1] > batch[0, 2] > batch[0, 3] > 0       # monotone in the count


def test_confident_probabilities():
    v = np.array([250.0, 0.0])
    probs, none = confident_gnmax_answer_probabilities(v, 300.0, 200.0, 40.0)
    assert none == pytest.approx(ndtr(50 / 200))                 # ≈ 0.599: unanimous, T > 250
    assert probs.sum() + none == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(probs, ndtr(-50 / 200) * gnmax_answer_probabilities(v, 40.0))
    pb, nb = confident_gnmax_answer_probabilities(np.array([[250, 0], [10, 5]]), 0, 5e-324, 1)
    np.testing.assert_allclose(nb, 0.0)
    np.testing.assert_allclose(pb.sum(axis=1), 1.0, atol=1e-12)


# -------------------------------------------------------------- sampled vs exact
VOTE_CASES = [np.array([10.0, 8.0, 3.0, 8.0]), np.array([250.0, 0.0]),
              np.array([120.0, 110.0, 20.0]), np.array([5.0, 5.0, 5.0])]


@pytest.mark.parametrize("v", VOTE_CASES, ids=lambda v: str(v.tolist()))
@pytest.mark.parametrize("name", ["gnmax", "lnmax"])
def test_aggregator_frequencies_match_exact_probabilities(v, name):
    sampler, exact = ((gnmax, gnmax_answer_probabilities) if name == "gnmax"
                      else (lnmax, lnmax_answer_probabilities))
    s = 3.0 if v.max() < 100 else 40.0
    labels = sampler(np.tile(v, (N_MC, 1)), s, rng=11)
    freq = np.bincount(labels, minlength=v.size) / N_MC
    ok, z = within_binomial(freq, exact(v, s))
    assert ok, z


@pytest.mark.parametrize("v", VOTE_CASES, ids=lambda v: str(v.tolist()))
def test_confident_frequencies_match_exact_probabilities(v):
    T, s1, s2 = (0.9 * v.max(), 3.0, 3.0) if v.max() < 100 else (200.0, 150.0, 40.0)
    ans = confident_gnmax(np.tile(v, (N_MC, 1)), T, s1, s2, rng=12)
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


def test_ties_are_broken_fairly_even_at_subnormal_noise():
    # relative to the plurality and in units of the noise: ties are decided by the noise
    labels = gnmax(np.tile([5.0, 5.0, 1.0], (4000, 1)), 5e-324, rng=0)
    assert set(np.unique(labels)) == {0, 1} and abs(labels.mean() - 0.5) < 0.05
    assert gnmax([5, 4], 5e-324, rng=1) == 0 and lnmax([4, 5], 5e-324, rng=1) == 1


def test_aggregators_are_seeded():
    v = np.tile([10.0, 9.0, 9.0], (50, 1))
    assert np.array_equal(gnmax(v, 2.0, rng=5), gnmax(v, 2.0, rng=5))
    assert np.array_equal(lnmax(v, 2.0, rng=5), lnmax(v, 2.0, rng=5))
    a, b = confident_gnmax(v, 9.0, 2.0, 2.0, rng=5), confident_gnmax(v, 9.0, 2.0, 2.0, rng=5)
    assert np.array_equal(a.labels, b.labels)


# ---------------------------------------------------------------------------- student
def test_student_end_to_end(ensemble, toy):
    _, _, Xq, _, Xe, ye = toy
    votes = ensemble.votes(Xq)
    st_ = PATEStudent(threshold=15.0, sigma1=3.0, sigma2=2.0, rng=0).fit(Xq, votes)
    assert st_.privacy_.answered == st_.n_answered_ == st_.answered_.sum()
    assert st_.privacy_.convention == "answered" and st_.privacy_expected_.convention == "expected"
    assert 0 < st_.n_answered_ < len(Xq)
    assert np.all(st_.noisy_labels_[~st_.answered_] == -1)
    assert st_.epsilon_ == st_.privacy_.epsilon and st_.delta_ == 1e-5
    # data-dependent never above data-independent, in both conventions
    assert st_.privacy_.epsilon <= st_.privacy_data_independent_.epsilon
    assert st_.privacy_expected_.epsilon <= st_.privacy_expected_data_independent_.epsilon
    assert not st_.privacy_data_independent_.data_dependent and st_.privacy_.data_dependent
    assert st_.score(Xe, ye) > 0.85
    p = st_.predict_proba(Xe)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert np.array_equal(st_.classes_[np.argmax(p, axis=1)], st_.predict(Xe))
    again = PATEStudent(threshold=15.0, sigma1=3.0, sigma2=2.0, rng=0).fit(Xq, votes)
    assert np.array_equal(again.noisy_labels_, st_.noisy_labels_)


@pytest.mark.parametrize("aggregator, params", [("gnmax", {"sigma2": 2.0}),
                                                 ("lnmax", {"scale": 1.0})])
def test_student_without_threshold_answers_everything(ensemble, toy, aggregator, params):
    _, _, Xq, _, Xe, ye = toy
    s = PATEStudent(aggregator=aggregator, rng=1, **params).fit(Xq, ensemble.votes(Xq))
    assert s.answered_.all() and s.n_answered_ == len(Xq)
    assert s.privacy_expected_ is s.privacy_ and s.privacy_.convention == "all"
    assert s.privacy_.epsilon <= s.privacy_data_independent_.epsilon
    assert s.score(Xe, ye) > 0.85


def test_student_clone_and_get_params_round_trip():
    s = PATEStudent(aggregator="gnmax", threshold=1.0, sigma1=2.0, sigma2=3.0, scale=4.0,
                    delta=1e-6, model=DecisionTreeClassifier(max_depth=2), classes=[3, 7],
                    rng=5)
    c = clone(s)
    params = s.get_params(deep=False)
    assert set(params) == {"aggregator", "threshold", "sigma1", "sigma2", "scale", "delta",
                           "model", "classes", "rng"}
    for name, value in c.get_params(deep=False).items():
        if name == "model":
            assert value is not s.model and value.get_params() == s.model.get_params()
        else:
            assert value == params[name]
    assert PATEStudent(**params).get_params(deep=False) == params


def test_student_maps_classes_and_handles_one_answered_class():
    X = np.arange(6.0).reshape(-1, 1)
    votes = np.array([[9, 1]] * 6)
    s = PATEStudent(aggregator="gnmax", sigma2=0.01, classes=[3, 7], rng=0).fit(X, votes)
    assert np.all(s.noisy_labels_ == 3) and isinstance(s.model_, DummyClassifier)
    assert np.all(s.predict(X) == 3)
    np.testing.assert_allclose(s.predict_proba(X), [[1.0, 0.0]] * 6)


def test_student_refuses_when_nothing_is_answered(ensemble, toy):
    Xq = toy[2]
    with pytest.raises(ParameterError, match="threshold"):
        PATEStudent(threshold=1e9, sigma1=1.0, rng=0).fit(Xq, ensemble.votes(Xq))


def test_default_model_is_a_fresh_logistic_regression():
    a, b = P.default_model(), P.default_model()
    assert a is not b and a.get_params()["C"] == 10.0


# ------------------------------------------------------------------------- bad input
# The issue's classes: votes negative, non-integer-valued, empty, with fewer than 2 classes
# or NaN; σ ≤ 0; thresholds below 0; more teachers than rows.
BAD_VOTES = st.one_of(NOT_NUMERIC, NON_FINITE_ARRAYS, st.sampled_from([
    [[-1, 2]], [[0.5, 1]], [], [[]], [[3]], [5], [[math.nan, 1]], [[math.inf, 1]],
    [1, -2, 3], np.zeros((2, 1)), np.zeros((2, 2, 2)), [[1, 2], [3]], [[2.0**53, 1]],
    [[True, False]], 3, "[1, 2]", None]))
BAD_NONNEG = st.one_of(st.sampled_from([-1e-300, -1, -0.5, math.nan, math.inf, -math.inf]),
                       st.floats(max_value=-1e-300, allow_nan=False), NOT_A_NUMBER, WRONG_SHAPE)
V = np.array([[5.0, 1.0, 0.0], [2.0, 2.0, 2.0]])

AGGREGATOR_CALLS = [
    (relative_votes, {"votes": V, "noise": 1.0}, {"noise": BAD_POSITIVE}),
    (lnmax, {"votes": V, "scale": 1.0}, {"scale": BAD_POSITIVE}),
    (gnmax, {"votes": V, "sigma": 1.0}, {"sigma": BAD_POSITIVE}),
    (confident_gnmax, {"votes": V, "threshold": 3.0, "sigma1": 1.0, "sigma2": 1.0},
     {"threshold": BAD_NONNEG, "sigma1": BAD_POSITIVE, "sigma2": BAD_POSITIVE}),
    (gnmax_answer_probabilities, {"votes": V, "sigma": 1.0}, {"sigma": BAD_POSITIVE}),
    (lnmax_answer_probabilities, {"votes": V, "scale": 1.0}, {"scale": BAD_POSITIVE}),
    (confident_gnmax_answer_probabilities,
     {"votes": V, "threshold": 3.0, "sigma1": 1.0, "sigma2": 1.0},
     {"threshold": BAD_NONNEG, "sigma1": BAD_POSITIVE, "sigma2": BAD_POSITIVE}),
]


@pytest.mark.parametrize("func, valid, bad", AGGREGATOR_CALLS,
                         ids=[c[0].__name__ for c in AGGREGATOR_CALLS])
def test_aggregators_reject_bad_values(func, valid, bad):
    func(**valid)                                                # the valid call works
    for arg, strategy in {"votes": BAD_VOTES, **bad}.items():
        assert_rejects_bad_values(func, valid, arg, strategy)
    if "rng" in func.__code__.co_varnames:
        assert_rejects_bad_values(func, valid, "rng", BAD_RNG)


@pytest.mark.parametrize("bad", [[[-1, 2]], [[0.5, 1]], [], np.zeros((3, 0)), [[3]], [4],
                                 [[math.nan, 1]]])
@pytest.mark.parametrize("func", [gnmax, lnmax, gnmax_answer_probabilities,
                                  lnmax_answer_probabilities])
def test_the_issues_bad_votes_raise_parameter_error(func, bad):
    with pytest.raises(ParameterError, match="votes"):
        func(bad, 1.0)
    for sigma in (0.0, -1.0):
        with pytest.raises(ParameterError, match="sigma|scale"):
            func([3, 1], sigma)


def test_the_issues_bad_thresholds_raise_parameter_error():
    for func in (confident_gnmax, confident_gnmax_answer_probabilities):
        with pytest.raises(ParameterError, match="threshold"):
            func([3, 1], -1.0, 1.0, 1.0)
        with pytest.raises(ParameterError, match="votes"):
            func([[1, math.nan]], 1.0, 1.0, 1.0)
    with pytest.raises(ParameterError, match="threshold"):
        PATEStudent(threshold=-0.5).fit(np.zeros((2, 1)), [[1, 0], [0, 1]])


@settings(max_examples=40, deadline=None)
@given(bad=bad_int(1, MAX_ROWS))
def test_partition_indices_rejects_bad_n(bad):
    call_rejects(partition_indices, {"n": bad, "num_teachers": 1}, "n")


@settings(max_examples=40, deadline=None)
@given(bad=st.one_of(bad_int(1, MAX_TEACHERS), st.integers(min_value=11, max_value=10**4)))
def test_partition_indices_rejects_bad_num_teachers(bad):
    call_rejects(partition_indices, {"n": 10, "num_teachers": bad}, "num_teachers")


@settings(max_examples=30, deadline=None)
@given(bad=BAD_RNG)
def test_partition_indices_rejects_bad_rng(bad):
    call_rejects(partition_indices, {"n": 10, "num_teachers": 2, "rng": bad}, "rng")


BAD_X = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from([np.zeros(20), np.zeros(
    (20, 2, 1)), 3.0, [[]]]))
BAD_Y = st.one_of(NOT_NUMERIC, st.sampled_from([
    np.zeros(20), np.full(20, 0.5), np.r_[np.zeros(10), np.ones(9)], np.zeros((20, 1)),
    np.r_[np.zeros(19), math.nan], np.r_[np.zeros(10), np.full(10, 2.0**60)],
    np.array([True, False] * 10)]))


def _X20():
    return make_toy_data(20, rng=0)[0]


def _y20():
    return make_toy_data(20, rng=0)[1]


@settings(max_examples=40, deadline=None)
@given(arg=st.sampled_from(["X", "y", "num_teachers", "model", "rng"]), data=st.data())
def test_train_teachers_rejects_bad_values(arg, data):
    strategies = {"X": BAD_X, "y": BAD_Y, "num_teachers": st.one_of(bad_int(1, 20),
                                                                    st.just(21)),
                  "model": st.sampled_from([1, "lr", object(), [DecisionTreeClassifier()]]),
                  "rng": BAD_RNG}
    kwargs = {"X": _X20(), "y": _y20(), "num_teachers": 4, "model": None, "rng": 0}
    kwargs[arg] = data.draw(strategies[arg])
    call_rejects(train_teachers, kwargs, arg)


def _ensemble_votes(**kw):
    return train_teachers(_X20(), _y20(), 4, rng=0).votes(**kw)


def _ensemble_predict_all(**kw):
    return train_teachers(_X20(), _y20(), 4, rng=0).predict_all(**kw)


def test_ensemble_methods_reject_bad_rows():
    for bad in (np.zeros((3, 3)), np.array([[np.nan, 1.0]]), "x", np.zeros(2)):
        call_rejects(_ensemble_votes, {"X": bad}, "X")
        call_rejects(_ensemble_predict_all, {"X": bad}, "X")


@settings(max_examples=60, deadline=None)
@given(arg=st.sampled_from(["predictions", "num_classes"]), data=st.data())
def test_vote_histograms_rejects_bad_values(arg, data):
    strategies = {
        "predictions": st.one_of(NOT_NUMERIC, NON_FINITE_ARRAYS, st.sampled_from([
            [[-1, 0]], [[0, 3]], [[0.5, 1]], [], [[]], [0, 1], np.zeros((2, 2, 2)),
            [[True, False]]])),
        "num_classes": bad_int(2, P.MAX_CLASSES)}
    kwargs = {"predictions": [[0, 1, 2], [2, 2, 0]], "num_classes": 3}
    kwargs[arg] = data.draw(strategies[arg])
    call_rejects(vote_histograms, kwargs, arg)


def _student_fit(X=None, votes=None, **params):
    X = np.arange(8.0).reshape(-1, 2) if X is None else X
    votes = np.array([[9, 1], [1, 9], [8, 2], [2, 8]]) if votes is None else votes
    return PATEStudent(**{"aggregator": "gnmax", "sigma2": 1.0, "rng": 0, **params}).fit(
        X, votes)


@settings(max_examples=60, deadline=None)
@given(arg=st.sampled_from(["aggregator", "threshold", "sigma1", "sigma2", "scale", "delta",
                            "model", "classes", "rng", "X", "votes"]), data=st.data())
def test_student_rejects_bad_values(arg, data):
    strategies = {
        "aggregator": st.sampled_from(["", "GNMax", "noisy_max", None, 1, ["gnmax"]]),
        "threshold": BAD_NONNEG, "sigma1": BAD_POSITIVE, "sigma2": BAD_POSITIVE,
        "scale": BAD_POSITIVE, "delta": st.one_of(BAD_DELTA, st.just(0.0)),
        "model": st.sampled_from([1, "lr", object()]),
        "classes": st.sampled_from([[1], [1, 1], [0.5, 1], ["a", "b"], [[0, 1]], 3]),
        "rng": BAD_RNG,
        "X": st.sampled_from([np.zeros((3, 2)), np.full((4, 2), np.nan), "x", np.zeros(4)]),
        "votes": BAD_VOTES}
    call_rejects(_student_fit, {arg: data.draw(strategies[arg])}, arg)


def test_student_predict_rejects_bad_rows():
    s = _student_fit()
    for bad in (np.zeros((2, 3)), np.array([[np.nan, 1.0]]), "x"):
        with pytest.raises((ParameterError, TypeError), match="X"):
            s.predict(bad)
        with pytest.raises((ParameterError, TypeError), match="X"):
            s.predict_proba(bad)


@pytest.mark.parametrize("n", [2, 3])
def test_exact_work_bound_is_enforced(n):
    # thousands of distinct counts close to the top make Laplace quadrature too expensive
    with pytest.raises(ParameterError, match="votes"):
        lnmax_answer_probabilities(np.arange(10_000.0) * n, 1e5)
