"""PATE's teachers (``dpteach.pate.teachers``): partitions, ensembles, vote histograms, and
the rules that tie their arguments together. The refusal of every bad value of a declared
domain is generated from the declarations (``tests/test_domains.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.tree import DecisionTreeClassifier

from dpteach._validation import ParameterError
from dpteach.datasets import make_toy_data
from dpteach.pate.teachers import (
    MAX_CELLS,
    MAX_CLASSES,
    MAX_QUERIES,
    MAX_TEACHERS,
    VOTES,
    TeacherEnsemble,
    default_model,
    partition_indices,
    train_teachers,
    vote_histograms,
)


@pytest.fixture(scope="module")
def toy():
    X, y = make_toy_data(2000, rng=0)
    return X[:1400], y[:1400], X[1400:1700], y[1400:1700]


@pytest.fixture(scope="module")
def ensemble(toy):
    return train_teachers(toy[0], toy[1], 20, rng=0)


# ------------------------------------------------------------------------- partitions
@pytest.mark.parametrize("n, t", [(10, 3), (1000, 250), (7, 7), (5, 1), (30162, 250),
                                  (10**4, MAX_TEACHERS)])
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
    with pytest.raises(ParameterError, match="n_teachers.*more teachers than rows"):
        partition_indices(5, 6)
    X, y = make_toy_data(10, rng=0)
    with pytest.raises(ParameterError, match="n_teachers"):
        train_teachers(X, y, 11)
    with pytest.raises(ParameterError, match="n_teachers"):
        partition_indices(10**6, MAX_TEACHERS + 1)


# --------------------------------------------------------------------------- teachers
def test_votes_sum_to_the_number_of_teachers(ensemble, toy):
    Xq = toy[2]
    v = ensemble.votes(Xq)
    assert v.shape == (len(Xq), 2) and v.dtype == np.int64
    assert ensemble.n_teachers == len(ensemble.teachers_) == 20
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
    ens = TeacherEnsemble(n_teachers=10, rng=0).fit(X[:1500], labels[:1500])
    assert list(ens.classes_) == [3, 7] and ens.classes_.dtype == np.int64
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


def test_ensemble_clone_and_params_are_left_as_given(toy):
    ens = TeacherEnsemble(n_teachers=7, model=None, rng=3)
    assert clone(ens).get_params() == ens.get_params() == {"n_teachers": 7, "model": None,
                                                          "rng": 3}
    ens.fit(toy[0], toy[1])                                      # fit converts, not stores
    assert ens.get_params() == {"n_teachers": 7, "model": None, "rng": 3}
    again = TeacherEnsemble(n_teachers=7, rng=3).fit(toy[0], toy[1])
    assert all(np.array_equal(a, b) for a, b in zip(ens.partitions_, again.partitions_))


def test_default_model_is_a_fresh_logistic_regression():
    a, b = default_model(), default_model()
    assert a is not b and a.get_params()["C"] == 10.0


# ----------------------------------------------------------------------- vote arrays
def test_vote_histograms_count_each_teachers_prediction():
    p = np.array([[0, 1, 2, 2], [2, 1, 2, 0], [2, 2, 2, 0]])     # 3 teachers, 4 queries
    assert vote_histograms(p, 3).tolist() == [[1, 0, 2], [0, 2, 1], [0, 0, 3], [2, 0, 1]]
    assert vote_histograms(p, 4).tolist() == [[1, 0, 2, 0], [0, 2, 1, 0], [0, 0, 3, 0],
                                              [2, 0, 1, 0]]


def test_the_votes_domain_holds_counts_below_two_to_the_53():
    # counts are exact integers in float64 below 2**53; 2 to MAX_CLASSES classes; at most
    # MAX_QUERIES queries. The domain's ends are accepted, one past each refused.
    assert VOTES("votes", [2**53 - 1, 0]).tolist() == [2**53 - 1, 0]
    assert VOTES("votes", np.zeros((MAX_QUERIES, 2))).shape == (MAX_QUERIES, 2)
    assert VOTES("votes", np.zeros(MAX_CLASSES)).shape == (MAX_CLASSES,)
    for bad in ([2**53, 0], np.zeros((MAX_QUERIES + 1, 2)), np.zeros(MAX_CLASSES + 1), [3],
                [[4]], [-1, 2], [0.5, 1], np.array([2**53 + 1, 0], np.int64)):
        with pytest.raises(ParameterError, match="votes"):
            VOTES("votes", bad)


# ------------------------------------------------------ rules tying arguments together
@pytest.mark.parametrize("call, name", [
    (lambda X, y: TeacherEnsemble(n_teachers=2).fit(X, y[:-1]), "y"),              # lengths
    (lambda X, y: TeacherEnsemble(n_teachers=2).fit(X, np.zeros(len(y))), "y"),   # one class
    (lambda X, y: train_teachers(X, y, 3, rng=0).votes(X[:, :1]), "X"),           # columns
    (lambda X, y: train_teachers(X, y, 3, rng=0).predict_all(np.c_[X, X]), "X"),
    (lambda X, y: vote_histograms([[0, 3], [1, 1]], 3), "predictions"),           # index ≥ k
    (lambda X, y: vote_histograms(np.zeros((1, MAX_CELLS // 4 + 1)), 4), "predictions"),
])
def test_rules_that_tie_arguments_are_refused_by_name(call, name):
    X, y = make_toy_data(30, rng=0)
    with pytest.raises(ParameterError, match=rf"\b{name}\b"):
        call(X, y)


def test_rows_times_teachers_is_bounded():
    X, y = make_toy_data(400, rng=0)
    ens = train_teachers(X, y, 200, rng=0)                      # 200 teachers: 50,000 rows
    assert ens.predict_all(np.zeros((MAX_CELLS // 200, 2))).shape == (200, MAX_CELLS // 200)
    with pytest.raises(ParameterError, match=r"X must be of at most 50000 rows for 200 "):
        ens.predict_all(np.zeros((MAX_CELLS // 200 + 1, 2)))


def test_returned_numbers_have_python_and_numpy_types(ensemble, toy):
    assert ensemble.votes(toy[2]).dtype == np.int64
    assert ensemble.predict_all(toy[2]).dtype == np.int64
    assert isinstance(partition_indices(10, 3, rng=0), list)
