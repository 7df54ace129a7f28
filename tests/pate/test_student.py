"""PATE's student (``dpteach.pate.student``): trained on noisy answers, with the privacy it
spent recorded (the ε of the run, and the paper's expected cost), and the rules that tie its arguments together."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.tree import DecisionTreeClassifier

from dpteach._validation import ParameterError
from dpteach.datasets import make_toy_data
from dpteach.pate.analysis import threshold_log_pr_answered
from dpteach.pate.student import PATEStudent
from dpteach.pate.teachers import train_teachers


@pytest.fixture(scope="module")
def toy():
    X, y = make_toy_data(2000, rng=0)
    return X[:1400], y[:1400], X[1400:1700], y[1400:1700], X[1700:], y[1700:]


@pytest.fixture(scope="module")
def ensemble(toy):
    return train_teachers(toy[0], toy[1], 20, rng=0)


def test_student_end_to_end(ensemble, toy):
    _, _, Xq, _, Xe, ye = toy
    votes = ensemble.votes(Xq)
    st_ = PATEStudent(threshold=15.0, sigma1=3.0, sigma2=2.0, rng=0).fit(Xq, votes)
    assert st_.privacy_.answered == st_.n_answered_ == st_.answered_.sum()
    assert st_.privacy_.convention == "answered"
    assert st_.expected_cost_.expected_answered == pytest.approx(np.exp(
        threshold_log_pr_answered(votes, 15.0, 3.0)).sum(), rel=1e-12)
    assert 0 < st_.n_answered_ < len(Xq)
    assert np.all(st_.noisy_labels_[~st_.answered_] == -1)
    assert st_.epsilon_ == st_.privacy_.epsilon and st_.delta_ == 1e-5
    # data-dependent never above data-independent, for the ε and for the expected cost
    assert st_.privacy_.epsilon <= st_.privacy_data_independent_.epsilon
    assert st_.expected_cost_.expected_cost <= st_.expected_cost_data_independent_.expected_cost
    assert not st_.privacy_data_independent_.data_dependent and st_.privacy_.data_dependent
    assert st_.score(Xe, ye) > 0.85
    p = st_.predict_proba(Xe)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert np.array_equal(st_.classes_[np.argmax(p, axis=1)], st_.predict(Xe))
    again = PATEStudent(threshold=15.0, sigma1=3.0, sigma2=2.0, rng=0).fit(Xq, votes)
    assert np.array_equal(again.noisy_labels_, st_.noisy_labels_)
    assert type(st_.epsilon_) is float and type(st_.n_answered_) is int


@pytest.mark.parametrize("aggregator, params", [("gnmax", {"sigma2": 2.0}),
                                                 ("lnmax", {"scale": 1.0})])
def test_student_without_threshold_answers_everything(ensemble, toy, aggregator, params):
    _, _, Xq, _, Xe, ye = toy
    s = PATEStudent(aggregator=aggregator, rng=1, **params).fit(Xq, ensemble.votes(Xq))
    assert s.answered_.all() and s.n_answered_ == len(Xq)
    assert s.expected_cost_ is None and s.expected_cost_data_independent_ is None
    assert s.privacy_.convention == "all"
    assert s.privacy_.epsilon <= s.privacy_data_independent_.epsilon
    assert s.score(Xe, ye) > 0.85


def test_student_clone_and_get_params_round_trip(ensemble, toy):
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
    # fit checks the hyper-parameters without overwriting them: an int seed stays an int
    s.fit(toy[2], ensemble.votes(toy[2]))
    assert s.get_params(deep=False)["rng"] == 5 and s.get_params(deep=False)["classes"] == [3, 7]


def test_student_maps_classes_and_handles_one_answered_class():
    X = np.arange(6.0).reshape(-1, 1)
    votes = np.array([[9, 1]] * 6)
    s = PATEStudent(aggregator="gnmax", sigma2=0.01, classes=[3, 7], rng=0).fit(X, votes)
    assert np.all(s.noisy_labels_ == 3) and isinstance(s.model_, DummyClassifier)
    assert s.classes_.dtype == np.int64 and np.all(s.predict(X) == 3)
    np.testing.assert_allclose(s.predict_proba(X), [[1.0, 0.0]] * 6)


def test_student_refuses_when_nothing_is_answered(ensemble, toy):
    Xq = toy[2]
    with pytest.raises(ParameterError, match="threshold"):
        PATEStudent(threshold=1e9, sigma1=1.0, rng=0).fit(Xq, ensemble.votes(Xq))


# ------------------------------------------------------ rules tying arguments together
X4 = np.arange(8.0).reshape(-1, 2)
V4 = np.array([[9, 1], [1, 9], [8, 2], [2, 8]])


@pytest.mark.parametrize("params, X, votes, name", [
    ({}, X4, V4[:3], "votes"),                                   # one row of votes per row of X
    ({}, X4, V4[0], "votes"),                                    # a batch, not one histogram
    ({"classes": [1]}, X4, V4, "classes"),                       # one label per column
    ({"classes": [1, 1]}, X4, V4, "classes"),                    # distinct labels
])
def test_rules_that_tie_arguments_are_refused_by_name(params, X, votes, name):
    with pytest.raises(ParameterError, match=rf"\b{name}\b"):
        PATEStudent(**{"aggregator": "gnmax", "sigma2": 1.0, "rng": 0, **params}).fit(X, votes)


def test_predict_needs_the_columns_of_fit():
    s = PATEStudent(aggregator="gnmax", sigma2=1.0, rng=0).fit(X4, V4)
    for method in (s.predict, s.predict_proba):
        with pytest.raises(ParameterError, match=r"X must be of 2 columns"):
            method(np.zeros((2, 3)))
