"""Legal-but-extreme inputs for ``dpteach.pate.teachers``: every public function, class and
method, in the style of ``tests/learning/test_learning_edges.py``.

For each numeric parameter the table ``CASES`` draws values from the strategies of
``tests/_props.py`` (subnormal, tiny and huge floats, huge integers; vote arrays with counts
up to 2⁵³ − 1) and calls the function with a time bound (``_props.assert_extreme_ok``): it
must answer without NaN, and where the answer is known the ``check`` asserts it (a tiny σ
answers the plurality, a huge σ answers uniformly, a huge threshold answers nothing), or
refuse with ``ParameterError``/``TypeError``. ``test_every_public_callable_is_in_the_table``
fails when a public callable of the module is missing from ``CASES``.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math

import numpy as np
import pytest
from _props import (
    EXTREME_POSITIVE_FLOATS,
    HUGE_INTS,
    TINY_FLOATS,
    EdgeCase,
    lazy_kwargs,
    run_edge_case,
)
from hypothesis import strategies as st

from dpteach.datasets import make_toy_data
from dpteach.pate import aggregators, teachers as pate, answers as pate_answers

MODULES = {"dpteach.pate.teachers": pate, "dpteach.pate.aggregators": aggregators,
           "dpteach.pate.answers": pate_answers}

POS = EXTREME_POSITIVE_FLOATS
INTS = st.one_of(HUGE_INTS, st.sampled_from([1, 2, 10**6]))
TOP = 2**53 - 1                                                   # largest count allowed
VOTES = np.array([[7.0, 3.0, 3.0], [0.0, 9.0, 1.0]])              # unique plurality: 0, 1
HUGE_VOTES = st.sampled_from([
    np.array([[TOP, 0.0, 0.0], [0.0, TOP, 1.0]]),
    np.array([[TOP, TOP - 1, 0.0], [2.0**52, 2.0**52 + 1, 2.0**52]]),
    np.array([[TOP, TOP, TOP], [0.0, 0.0, 0.0]]),                 # ties: any class may win
    np.array([[2.0**53, 0.0, 0.0]]),                              # beyond the counts: refused
    np.array([[1e15, 3.0, 0.0], [1.0, 1e15, 1e15]])])


# ---------------------------------------------------------------------------- data
@functools.cache
def _toy():
    X, y = make_toy_data(200, rng=0)
    return X[:120], y[:120], X[120:]


@functools.cache
def _ensemble():
    X, y, _ = _toy()
    return pate.train_teachers(X, y, 6, rng=0)


@functools.cache
def _student():
    _, _, Xq = _toy()
    return pate.PATEStudent(aggregator="gnmax", sigma2=1.0, rng=0).fit(
        Xq, _ensemble().votes(Xq))


def _scaled(a, factor):
    a = np.asarray(a, dtype=float)
    return a / np.max(np.abs(a)) * factor


def scaled_rows():
    return st.one_of(TINY_FLOATS, st.sampled_from([1e15, 1e100, 1e300])).map(
        lambda f: _scaled(_toy()[2][:10], f))


# ---------------------------------------------------------------------- the checks
def _plurality(votes):
    v = np.atleast_2d(votes)
    top = v.max(axis=1, keepdims=True)
    return v, (v == top).sum(axis=1) == 1, np.argmax(v, axis=1)


def answers(out, kw):
    """Valid class indices; the plurality when the noise is far below the gap to the next."""
    v, unique, top = _plurality(kw["votes"])
    labels = np.atleast_1d(out)
    ok = np.all((labels >= 0) & (labels < v.shape[1]))
    noise = kw.get("sigma", kw.get("scale"))
    gaps = np.sort(v, axis=1)[:, -1] - np.sort(v, axis=1)[:, -2]
    sure = unique & (gaps > 60 * noise)           # wrong with probability below e^-60
    return ok and np.array_equal(labels[sure], top[sure])


def confident(out, kw):
    v, unique, top = _plurality(kw["votes"])
    lab, ans = np.atleast_1d(out.labels), np.atleast_1d(out.answered)
    ok = np.all(lab[~ans] == -1) and np.all((lab[ans] >= 0) & (lab[ans] < v.shape[1]))
    if (kw["threshold"] - v.max()) / kw["sigma1"] > 60:            # cannot pass
        ok = ok and not ans.any()
    if (v.max(axis=1) - kw["threshold"]).min() / kw["sigma1"] > 60:  # always passes
        ok = ok and ans.all()
    return ok


def distribution(out, kw):
    """Rows sum to 1; one-hot at a unique plurality for tiny noise, uniform for huge noise."""
    p = np.atleast_2d(out[0] if isinstance(out, tuple) else out)
    v, unique, top = _plurality(kw["votes"])
    ok = np.all((p >= 0) & (p <= 1))
    if isinstance(out, tuple):
        none = np.atleast_1d(out[1])
        return ok and np.allclose(p.sum(axis=1) + none, 1.0, atol=1e-9)
    ok = ok and np.allclose(p.sum(axis=1), 1.0, atol=1e-9)
    noise = kw.get("sigma", kw.get("scale"))
    gaps = np.sort(v, axis=1)[:, -1] - np.sort(v, axis=1)[:, -2]
    sure = unique & (gaps > 60 * noise)
    ok = ok and np.allclose(p[sure, top[sure]], 1.0, atol=1e-9)
    if noise > 1e20 * max(v.max(), 1.0):                             # differences vanish
        ok = ok and np.allclose(p, 1.0 / v.shape[1], atol=1e-9)
    return ok


def partition(out, kw):
    idx = np.concatenate(out)
    sizes = [p.size for p in out]
    return np.array_equal(np.sort(idx), np.arange(kw["n"])) and max(sizes) - min(sizes) <= 1


def histograms(out, kw):
    return np.all(out.sum(axis=1) == np.asarray(kw["predictions"]).shape[0])


def fitted(ens, kw):
    return np.all(ens.votes(_toy()[2]).sum(axis=1) == len(ens.teachers_))


def student_ok(s, kw):
    dd, di = s.privacy_.epsilon, s.privacy_data_independent_.epsilon
    return dd <= di * (1 + 1e-9) + 1e-12 and s.n_answered_ == s.answered_.sum() > 0


def probabilities(out, kw):
    return np.allclose(out.sum(axis=1), 1.0)


# --------------------------------------------------------------------------- cases
Case = EdgeCase
kw = lazy_kwargs


M, AG = "dpteach.pate.teachers", "dpteach.pate.aggregators"
MA = "dpteach.pate.answers"


def _ensemble_fit(**kwargs):
    X = kwargs.pop("X", _toy()[0])
    return pate.TeacherEnsemble(**{"num_teachers": 6, "rng": 0, **kwargs}).fit(X, _toy()[1])


def _ensemble_method(method):
    def call(X):
        return getattr(_ensemble(), method)(X)
    return call


def _student_fit(**kwargs):
    X = kwargs.pop("X", _toy()[2])
    votes = kwargs.pop("votes", None)
    votes = _ensemble().votes(_toy()[2]) if votes is None else votes
    params = {"threshold": 4.0, "sigma1": 1.0, "sigma2": 1.0, "rng": 0, **kwargs}
    n = min(len(X), len(votes))
    return pate.PATEStudent(**params).fit(X[:n], votes[:n])


def _student_method(method):
    def call(X):
        return getattr(_student(), method)(X)
    return call


CASES = [
    Case(f"{M}.partition_indices", pate.partition_indices, kw(n=100, num_teachers=7, rng=0),
         {"n": st.one_of(INTS, st.sampled_from([1, 7, 10**6])), "num_teachers": INTS,
          "rng": HUGE_INTS},
         check=partition),
    Case(f"{M}.train_teachers", pate.train_teachers,
         kw(X=lambda: _toy()[0], y=lambda: _toy()[1], num_teachers=6, rng=0),
         {"num_teachers": st.one_of(INTS, st.sampled_from([1, 120])),
          "X": scaled_rows().map(lambda X: np.resize(X, (120, 2))), "rng": HUGE_INTS},
         check=fitted, fixed=("y", "model"), examples=4),
    Case(f"{M}.TeacherEnsemble", _ensemble_fit, kw(),
         {"num_teachers": st.one_of(INTS, st.sampled_from([1, 120])),
          "X": scaled_rows().map(lambda X: np.resize(X, (120, 2)))},
         check=fitted, examples=4),
    *[Case(f"{M}.TeacherEnsemble.{m}", _ensemble_method(m), kw(X=lambda: _toy()[2]),
           {"X": scaled_rows()}, examples=4) for m in ("predict_all", "votes", "predict")],
    Case(f"{M}.vote_histograms", pate.vote_histograms,
         kw(predictions=lambda: np.array([[0, 1, 2], [2, 2, 0]]), num_classes=3),
         {"num_classes": st.one_of(INTS, st.sampled_from([3, 10_000])),
          "predictions": st.sampled_from([np.zeros((10_000, 2)), np.full((1, 5000), 2.0)])},
         check=histograms),
    Case(f"{AG}.relative_votes", aggregators.relative_votes, kw(votes=VOTES, noise=1.0),
         {"noise": POS, "votes": HUGE_VOTES}, check=lambda out, kw: bool(np.all(out[1] <= 0))),
    Case(f"{AG}.lnmax", aggregators.lnmax, kw(votes=VOTES, scale=1.0, rng=0),
         {"scale": POS, "votes": HUGE_VOTES, "rng": HUGE_INTS}, check=answers, examples=10),
    Case(f"{AG}.gnmax", aggregators.gnmax, kw(votes=VOTES, sigma=1.0, rng=0),
         {"sigma": POS, "votes": HUGE_VOTES, "rng": HUGE_INTS}, check=answers, examples=10),
    Case(f"{AG}.confident_gnmax", aggregators.confident_gnmax,
         kw(votes=VOTES, threshold=5.0, sigma1=1.0, sigma2=1.0, rng=0),
         {"threshold": st.one_of(POS, st.just(0.0)), "sigma1": POS, "sigma2": POS,
          "votes": HUGE_VOTES, "rng": HUGE_INTS}, check=confident, examples=10),
    Case(f"{MA}.gnmax_answer_probabilities", pate_answers.gnmax_answer_probabilities,
         kw(votes=VOTES, sigma=1.0), {"sigma": POS, "votes": HUGE_VOTES},
         check=distribution, examples=10),
    Case(f"{MA}.lnmax_answer_probabilities", pate_answers.lnmax_answer_probabilities,
         kw(votes=VOTES, scale=1.0), {"scale": POS, "votes": HUGE_VOTES},
         check=distribution, examples=10),
    Case(f"{MA}.confident_gnmax_answer_probabilities",
         pate_answers.confident_gnmax_answer_probabilities,
         kw(votes=VOTES, threshold=5.0, sigma1=1.0, sigma2=1.0),
         {"threshold": st.one_of(POS, st.just(0.0)), "sigma1": POS, "sigma2": POS,
          "votes": HUGE_VOTES}, check=distribution, examples=10),
    Case(f"{M}.PATEStudent", _student_fit, kw(),
         {"threshold": st.one_of(TINY_FLOATS, st.just(0.0)), "sigma1": POS, "sigma2": POS,
          "scale": POS, "delta": st.sampled_from([5e-324, 1e-300, 0.5, 1 - 1e-16]),
          "X": scaled_rows(),
          "votes": HUGE_VOTES.map(lambda v: np.resize(v, (10, 3))[:, :2])},
         check=student_ok, examples=5),
    *[Case(f"{M}.PATEStudent.{m}", _student_method(m), kw(X=lambda: _toy()[2]),
           {"X": scaled_rows()}, examples=4,
           check=probabilities if m == "predict_proba" else None)
      for m in ("predict", "predict_proba")],
]


@pytest.mark.parametrize("case", CASES, ids=[c.name.rsplit("pate.", 1)[1] for c in CASES])
def test_extreme_values(case):
    run_edge_case(case)


# ------------------------------------------------------------- known exact answers
def test_tiny_and_huge_noise_have_exact_answers():
    v = np.array([[9.0, 2.0, 2.0], [1.0, 1.0, 4.0]])
    for f in (pate_answers.gnmax_answer_probabilities, pate_answers.lnmax_answer_probabilities):
        np.testing.assert_allclose(f(v, 5e-324), [[1, 0, 0], [0, 0, 1]], atol=1e-12)
        np.testing.assert_allclose(f(v, 1.7976931348623157e308), 1 / 3, atol=1e-12)
        np.testing.assert_array_equal(aggregators.gnmax(v, 5e-324, rng=0), [0, 2])
        np.testing.assert_array_equal(aggregators.lnmax(v, 5e-324, rng=0), [0, 2])
    probs, none = pate_answers.confident_gnmax_answer_probabilities(v, 1e308, 5e-324, 1.0)
    np.testing.assert_array_equal(none, [1.0, 1.0])
    np.testing.assert_array_equal(probs, 0.0)
    probs, none = pate_answers.confident_gnmax_answer_probabilities(v, 0.0, 5e-324, 5e-324)
    np.testing.assert_array_equal(none, [0.0, 0.0])
    np.testing.assert_allclose(probs, [[1, 0, 0], [0, 0, 1]], atol=1e-12)


def test_huge_counts_keep_their_exact_gaps():
    # counts near 2^53 differ by 1: relative to the plurality the gap is exact
    v = np.array([2.0**53 - 1, 2.0**53 - 2])
    p = pate_answers.gnmax_answer_probabilities(v, 1.0)
    from scipy.special import ndtr
    assert p[0] == pytest.approx(ndtr(1 / math.sqrt(2)), abs=1e-12)


def test_returned_numbers_have_python_types():
    assert type(aggregators.gnmax([3, 1], 1.0, rng=0)) is int
    assert type(aggregators.lnmax([3, 1], 1.0, rng=0)) is int
    one = aggregators.confident_gnmax([3, 1], 1.0, 1.0, 1.0, rng=0)
    assert type(one.labels) is int and type(one.answered) is bool
    assert type(pate_answers.confident_gnmax_answer_probabilities([3, 1], 1.0, 1.0, 1.0)[1]) is float
    assert type(_student().epsilon_) is float and type(_student().n_answered_) is int


# ------------------------------------------------------------------------ coverage
def _public_callables():
    names = set()
    for modname, module in MODULES.items():
        for attr, obj in vars(module).items():
            if attr.startswith("_") or getattr(obj, "__module__", None) != modname:
                continue
            if inspect.isfunction(obj) and inspect.signature(obj).parameters:
                names.add(f"{modname}.{attr}")
            elif inspect.isclass(obj) and not dataclasses.is_dataclass(obj):
                names.add(f"{modname}.{attr}")
                for meth, fn in vars(obj).items():
                    if meth.startswith("_") or meth == "fit" or not inspect.isfunction(fn):
                        continue
                    if [p for p in inspect.signature(fn).parameters if p != "self"]:
                        names.add(f"{modname}.{attr}.{meth}")
    return names


def test_every_public_callable_is_in_the_table():
    found = _public_callables()
    listed = {c.name for c in CASES}
    assert len(found) >= 15
    assert not sorted(found - listed), sorted(found - listed)
    assert not sorted(listed - found), sorted(listed - found)


def test_every_numeric_parameter_is_varied():
    non_numeric = {"rng", "model", "y", "classes", "aggregator"}
    for case in CASES:
        if case.func in (_ensemble_fit, _student_fit) or case.func.__name__ == "call":
            continue                                    # wrappers: their parameters by hand
        params = set(inspect.signature(case.func).parameters)
        left = params - set(case.args) - set(case.fixed) - non_numeric
        assert not left, (case.name, sorted(left))
