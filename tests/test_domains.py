"""Every parameter of dpteach has a declared teaching domain, and the declarations hold.

Generated from the declarations themselves (``@validate(...)``: ``func.__domains__``;
estimators: ``_parameter_constraints``), as scikit-learn's common tests are generated from
its parameter constraints. For every public function, class and method of the library:

* every parameter has a domain (:func:`test_every_parameter_has_a_domain`);
* the example call answers, with no NaN and no infinity in what it returns (a baseline: a
  bad-value case cannot pass on a function that always raises);
* every *bad* value of each domain (NaN, ±inf, ±0.0 where 0 is excluded, numbers beyond the
  ends, huge integers, booleans, strings, None, ragged and empty arrays, ...) is refused
  with :class:`~dpteach._validation.ParameterError` naming the argument;
* every *edge* value (the ends of each domain; the lower end only for work sizes) gives an
  answer without NaN or infinity, or a ``ParameterError`` naming an argument (a rule that
  ties two arguments together).

A function is called with the valid arguments of :data:`EXAMPLES` (or, where it has no
entry, each parameter's default or its domain's example) with one argument replaced. A
method, an estimator (bad values are refused by ``fit``) or a function taking ``*args`` is
called through a factory in :data:`EXAMPLES` that makes the instance (fits it, loads it) and
returns the call and its valid arguments. Classes in :data:`RECORDS` hold results the library
makes; their public methods are covered like functions.
``benchmarks/bench_domains.py`` times the upper ends of the work sizes instead (a test does
not read the clock). Every module declares its domains.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import math
import pkgutil
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import pytest

import dpteach
from dpteach import exercises, tables
from dpteach._validation import Domain, ParameterError
from dpteach.audit import bugs as audit_bugs
from dpteach.audit import one_run as audit_one_run
from dpteach.audit import runs as audit_runs
from dpteach.audit import cases as audit_cases
from dpteach.datasets import make_toy_data
from dpteach.learning import dpsgd, erm_experiments
from dpteach.learning.dpsgd import DPSGDClassifier
from dpteach.pate.student import PATEStudent
from dpteach.pate.teachers import TeacherEnsemble
from dpteach.attacks.membership import ShadowExperiment


def _attacks_examples() -> dict[str, dict[str, Any]]:
    from sklearn.dummy import DummyClassifier

    class PrivateDummy(DummyClassifier):              # a fast classifier that reports ε
        def fit(self, X, y, sample_weight=None):
            super().fit(X, y, sample_weight)
            self.epsilon_ = 1.0
            return self

    member = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=bool)
    conf = np.array([[0.5, 0.0, 1.0, -1.0], [0.0, 1.5, -0.5, 2.0], [1.0, 2.0, 0.0, 0.5],
                     [-1.0, 0.5, 1.5, 2.5]])
    experiment = ShadowExperiment(membership=member, confidences=conf, losses=-conf,
                                  train_accuracy=np.ones(4), test_accuracy=np.ones(4),
                                  epsilons=np.ones(4))
    return {
        "dpteach.attacks.differencing:local_sensitivity": dict(query="sum", db=[0, 1, 1, 0, 1]),
        "dpteach.attacks.floating_point:floating_point_attack": dict(
            sampler="numpy", value=0.0, value_prime=1.0, scale=1.0, n_trials=20, rng=0),
        "dpteach.attacks.membership:lira_attack": dict(experiment=experiment),
        "dpteach.attacks.membership:loss_attack": dict(experiment=experiment),
        "dpteach.attacks.membership:run_shadow_experiment": dict(
            estimator=PrivateDummy(), X=np.arange(40.0).reshape(20, 2), y=np.arange(20) % 2,
            n_models=2, rng=0),
        "dpteach.attacks.linkage:adult_with_quasi_identifiers": dict(n_rows=50, rng=0),
    }


#: valid keyword arguments per callable ("module:qualname"), where the domains' examples do
#: not fit together (arrays of matching shapes, a batch no larger than the data, ...); or a
#: factory ``() -> (call, kwargs)`` for a method (``call``: the bound method), an estimator
#: (``call``: constructs with ``kwargs`` and fits) or a function with ``*args``
EXAMPLES: dict[str, dict[str, Any] | Callable[[], tuple[Callable, dict[str, Any]]]] = {
    "dpteach.mechanisms.noise:laplace_mechanism": dict(value=[3.0, 7.0], sensitivity=1.0,
                                                       epsilon=1.0, rng=0),
    "dpteach.mechanisms.noise:gaussian_mechanism": dict(value=[3.0, 7.0], sensitivity=1.0,
                                                        epsilon=0.5, delta=1e-5, rng=0),
    "dpteach.mechanisms.noise:gaussian_sigma": dict(sensitivity=1.0, epsilon=0.5, delta=1e-5),
    # randomized response: γ or ε, exactly one
    **{f"dpteach.mechanisms.randomized_response:{name}": [dict(base, gamma=0.25),
                                                          dict(base, epsilon=1.0)]
       for name, base in (("randomized_response", dict(bits=[0, 1, 1], rng=0)),
                          ("rr_estimate", dict(reports=[0, 1, 1])),
                          ("rr_std_error", dict(rate=0.3, n=100)),
                          ("simulate_rr_estimates", dict(true_rate=0.3, n=50, n_trials=10,
                                                         rng=0)))},
    # categories below k
    "dpteach.mechanisms.randomized_response:k_randomized_response": dict(
        values=[0, 1, 1], k=4, epsilon=1.0, rng=0),
    "dpteach.mechanisms.randomized_response:k_rr_estimate": dict(reports=[0, 1, 1], k=4,
                                                                  epsilon=1.0),
    # δ > 0 needs ε < 1 (advanced composition)
    **{f"dpteach.mechanisms.sparse_vector:{name}": [dict(threshold=2.0, epsilon=1.0, **extra),
                                                    dict(threshold=2.0, epsilon=0.5,
                                                         delta=1e-5, **extra)]
       for name, extra in (("SparseVector", dict(rng=0)),
                           ("sparse_vector", dict(values=[1.0, 3.0, 2.0], rng=0)))},
    "dpteach.mechanisms.sparse_vector:sparse_vector_noise_scales": [
        dict(epsilon=1.0), dict(epsilon=0.5, delta=1e-5)],
    "dpteach.mechanisms.sparse_vector:SparseVector.query": lambda: (
        __import__("dpteach.mechanisms.sparse_vector", fromlist=["x"]).SparseVector(
            2.0, 1.0, rng=0).query, dict(answer=1.0)),
    # transcripts no longer than the queries
    **{f"dpteach.mechanisms.sparse_vector:{name}": dict(
        values=[1.0, 3.0, 2.0], answers=[False, True], threshold=2.0, epsilon=1.0)
       for name in ("sparse_vector_pattern_probability", "no_query_noise_pattern_probability")},
    # a range [lower, upper] around the data, at most as many blocks as records
    "dpteach.mechanisms.stability:subsample_and_aggregate": dict(
        data=[1.0, 2.0, 2.0, 3.0, 5.0, 8.0], statistic="mean", n_blocks=3, lower=0.0,
        upper=10.0, epsilon=1.0, rng=0),
    "dpteach.mechanisms.stability:block_estimates": dict(data=[1.0, 2.0, 2.0, 3.0, 5.0, 8.0],
                                                         n_blocks=3, rng=0),
    "dpteach.mechanisms.stability:subsample_and_aggregate_sensitivity": dict(
        lower=0.0, upper=10.0, n_blocks=3),
    **{f"dpteach.mechanisms.stability:{name}": dict(
        data=[1.0, 2.0, 2.0, 3.0, 5.0, 8.0], lower=0.0, upper=10.0, **extra)
       for name, extra in (("median_local_sensitivity", {}),
                           ("median_distance_to_instability", dict(bound=1.0)),
                           ("propose_test_release_median", dict(bound=1.0, epsilon=1.0,
                                                                delta=1e-5, rng=0)))},
    # the secure mechanisms: the noise in grid units below the samplers' limits
    "dpteach.exact.secure:secure_laplace_mechanism": dict(value=[0.5, -1.25], sensitivity=1.0,
                                                          epsilon=1.0, rng=0, granularity=0.5),
    "dpteach.exact.secure:secure_gaussian_mechanism": dict(
        value=[0.5, -1.25], sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0, granularity=0.5),
    # λ = Δ/ε < bound < 2**46·λ
    "dpteach.exact.snapping:snapping_mechanism": dict(value=[0.0, 3.5], sensitivity=1.0,
                                                      epsilon=1.0, bound=100.0, rng=0),
    "dpteach.exact.snapping:snapping_epsilon": dict(epsilon=1.0, sensitivity=1.0, bound=100.0),
    "dpteach.datasets:adult_arrays": lambda: (
        __import__("dpteach.datasets", fromlist=["x"]).adult_arrays,
        dict(df=__import__("dpteach.datasets", fromlist=["x"]).load_adult().head(300))),
    **_attacks_examples(),
}

# ------------------------------------------------------------- PATE (dpteach.pate)
_X, _Y = make_toy_data(60, rng=0)
_V3 = [[7, 2, 1], [3, 5, 2]]


@functools.cache
def _pate_ensemble() -> TeacherEnsemble:
    return TeacherEnsemble(n_teachers=3, rng=0).fit(_X, _Y)


@functools.cache
def _pate_student() -> PATEStudent:
    return PATEStudent(aggregator="gnmax", sigma2=1.0, rng=0).fit(_X, _pate_ensemble().votes(_X))


EXAMPLES.update({
    "dpteach.pate.teachers:partition_indices": dict(n=10, n_teachers=3, rng=0),
    "dpteach.pate.teachers:train_teachers": dict(X=_X, y=_Y, n_teachers=3, rng=0),
    "dpteach.pate.teachers:vote_histograms": dict(predictions=[[0, 1, 2], [2, 2, 0]],
                                                  n_classes=3),
    # an estimator: its hyper-parameters are checked in fit
    "dpteach.pate.teachers:TeacherEnsemble": lambda: (
        lambda **kw: TeacherEnsemble(**kw).fit(_X, _Y), dict(n_teachers=3, rng=0)),
    "dpteach.pate.teachers:TeacherEnsemble.fit": lambda: (
        TeacherEnsemble(n_teachers=3, rng=0).fit, dict(X=_X, y=_Y)),
    **{f"dpteach.pate.teachers:TeacherEnsemble.{m}":
       (lambda m=m: (getattr(_pate_ensemble(), m), dict(X=_X[:5])))
       for m in ("predict_all", "votes", "predict")},
    "dpteach.pate.student:PATEStudent": lambda: (
        lambda **kw: PATEStudent(**kw).fit(_X[:10], _pate_ensemble().votes(_X[:10])),
        dict(threshold=1.0, sigma1=1.0, sigma2=1.0, rng=0)),
    "dpteach.pate.student:PATEStudent.fit": lambda: (
        PATEStudent(aggregator="gnmax", sigma2=1.0, rng=0).fit,
        dict(X=_X[:10], votes=_pate_ensemble().votes(_X[:10]))),
    **{f"dpteach.pate.student:PATEStudent.{m}":
       (lambda m=m: (getattr(_pate_student(), m), dict(X=_X[:5])))
       for m in ("predict", "predict_proba")},
    "dpteach.pate.aggregators:confident_gnmax": dict(votes=_V3, threshold=4.0, sigma1=2.0,
                                                     sigma2=1.0, rng=0),
    "dpteach.pate.answers:confident_gnmax_answer_probabilities": dict(
        votes=_V3, threshold=4.0, sigma1=2.0, sigma2=1.0),
    "dpteach.pate.analysis:confident_gnmax_rdp": dict(orders=[2.0, 20.0], votes=_V3,
                                                      threshold=4.0, sigma1=2.0, sigma2=5.0,
                                                      answered=[True] * len(_V3)),
    "dpteach.pate.analysis:pate_epsilon": dict(votes=_V3, sigma2=5.0, delta=1e-5,
                                               threshold=4.0, sigma1=2.0,
                                               answered=[True] * len(_V3)),
    "dpteach.pate.analysis:pate_expected_cost": dict(votes=_V3, sigma2=5.0, delta=1e-5,
                                                     threshold=4.0, sigma1=2.0),
    "dpteach.pate.analysis:PATEExpectedCost": dict(expected_cost=1.0, order=2.0, delta=1e-5,
                                                   expected_answered=3.0, data_dependent=True,
                                                   rdp=[0.1], orders=[2.0]),
    "dpteach.pate.analysis:PATEPrivacy": dict(epsilon=1.0, order=2.0, delta=1e-5, answered=3.0,
                                              convention="answered", data_dependent=True,
                                              rdp=[0.1], orders=[2.0]),
    "dpteach.pate.release:gnss_rdp": dict(orders=[2.0, 20.0], beta=0.02, sigma_ss=5.0),
    "dpteach.pate.release:sanitised_epsilon": dict(votes=_V3, sigma2=5.0, delta=1e-5,
                                                   order=20.0, threshold=4.0, sigma1=2.0,
                                                   rng=0),
    "dpteach.pate.release:SanitisedEpsilon": dict(
        released=1.0, private_epsilon=0.9, release_cost=0.05, smooth_sensitivity=0.01,
        beta=0.02, sigma_ss=5.0, sigma_ss_from_data=False, order=20.0, delta=1e-5),
})


# ------------------------------------------------------- accounting and queries
def _rdp_accountant():
    from dpteach.accounting.rdp import RDPAccountant

    acc = RDPAccountant(orders=[2.0, 8.0])
    acc.step(noise_multiplier=1.0, sample_rate=0.01, steps=100)
    return acc


def _pld_accountant():
    from dpteach.accounting.pld import PLDAccountant

    acc = PLDAccountant(value_discretization_interval=1e-2)
    acc.step(noise_multiplier=1.0, sample_rate=0.01, steps=100)
    return acc


def _budget():
    from dpteach.accounting.composition import BudgetAccountant

    return BudgetAccountant(epsilon=1.0, delta=1e-5)


def _universe():
    from dpteach.queries.linear import Universe

    return Universe(("a",), (("x", "y"),))


def _queries():
    from dpteach.queries.linear import LinearQueries

    return LinearQueries(np.ones((5, 4)))


def _adult_universe():
    from dpteach.queries.linear import adult_universe

    return adult_universe()


_Q = [[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0], [0.5, 0.0, 0.5, 0.0]]
_A, _C, _L, _M = ("dpteach.accounting.", "dpteach.accounting.composition:",
                  "dpteach.queries.linear:", "dpteach.queries.mwem:")
EXAMPLES.update({
    # methods: (bound to a fresh instance, kwargs)
    _A + "rdp:RDPAccountant.step": lambda: (
        _rdp_accountant().step, dict(noise_multiplier=1.0, sample_rate=0.01, steps=10)),
    _A + "rdp:RDPAccountant.compose_rdp": lambda: (
        _rdp_accountant().compose_rdp, dict(rdp=[0.1, 0.5], count=3)),
    _A + "rdp:RDPAccountant.get_epsilon": lambda: (
        _rdp_accountant().get_epsilon, dict(delta=1e-5)),
    _A + "rdp:RDPAccountant.get_epsilon_and_order": lambda: (
        _rdp_accountant().get_epsilon_and_order, dict(delta=1e-5)),
    _A + "rdp:RDPAccountant.get_delta": lambda: (_rdp_accountant().get_delta, dict(epsilon=1.0)),
    _A + "pld:PLDAccountant.step": lambda: (
        _pld_accountant().step, dict(noise_multiplier=1.0, sample_rate=0.01, steps=10)),
    _A + "pld:PLDAccountant.compose_laplace": lambda: (
        _pld_accountant().compose_laplace, dict(scale=1.0, sensitivity=1.0, count=3)),
    _A + "pld:PLDAccountant.get_epsilon": lambda: (_pld_accountant().get_epsilon,
                                                   dict(delta=1e-5)),
    _A + "pld:PLDAccountant.get_delta": lambda: (_pld_accountant().get_delta, dict(epsilon=1.0)),
    _C + "BudgetAccountant.spend": lambda: (_budget().spend, dict(epsilon=0.5, delta=1e-6)),
    _L + "Universe.decode": lambda: (_universe().decode, dict(indices=[0, 1, 1])),
    _L + "Universe.to_histogram": lambda: (_universe().to_histogram,
                                           dict(df=pd.DataFrame({"a": ["x", "y", "y"]}))),
    _L + "LinearQueries.answer": lambda: (_queries().answer, dict(hist=[3.0, 1.0, 0.0, 4.0])),
    _L + "LinearQueries.first": lambda: (_queries().first, dict(k=2)),
    # functions whose domains' examples do not fit together
    _A + "compare:composition_epsilons": dict(ks=[1, 10], epsilon=0.5,
                                              methods=("basic", "advanced", "optimal", "rdp")),
    _A + "calibrate:get_noise_multiplier": dict(        # PLD at a coarse grid: seconds less
        target_epsilon=1.0, target_delta=1e-5, sample_rate=0.01, steps=10,
        value_discretization_interval=1e-2, rtol=1e-2),
    _C + "optimal_composition_epsilon": dict(epsilon=0.1, delta=0.0, k=10, total_delta=1e-5),
    _L + "marginal_queries": dict(universe=_adult_universe(), ways=2),
    _L + "max_error": dict(queries=_Q, hist=[3.0, 1.0, 0.0, 4.0], answers=[4.0, 4.0, 3.5]),
})
#: parameters whose edge values are not tried, with the reason
NO_EDGES: dict[str, str] = {}

#: callables whose results may hold an infinity by design (a log-probability of 0, ...)
MAY_RETURN_INF: set[str] = {
    # an ROC's first threshold is +inf (nobody is called a member), as in sklearn's roc_curve
    "dpteach.attacks.roc:roc_from_scores", "dpteach.attacks.membership:loss_threshold_attack",
    "dpteach.attacks.membership:lira_attack", "dpteach.attacks.membership:loss_attack",
    "dpteach.attacks.tracing:tracing_attack",
    # γ, the distance to instability of the median, is ∞ (by definition, and documented)
    # when the proposed bound is at least b − a: no dataset's median can move more; PTR's
    # noisy distance γ + Lap(2/ε) is then ∞ too, and the test always passes
    "dpteach.mechanisms.stability:median_distance_to_instability",
    "dpteach.mechanisms.stability:propose_test_release_median",
    # ε = math.inf asks for the method's non-private limit, and its record says so
    "dpteach.fairness.dp_impact:fit_and_score",
}

#: callables whose results may hold NaN by design, with the reason
MAY_RETURN_NAN: dict[str, str] = {}

#: result containers ("module:qualname"): classes the library builds and returns, never called
#: with a student's values (their public methods are still walked); dataclasses are records
#: by themselves
RESULTS: set[str] = {
    "dpteach.mechanisms.randomized_response:RREstimate",
    "dpteach.mechanisms.sparse_vector:SparseVectorResult",
    "dpteach.mechanisms.stability:PTRResult",
    "dpteach.datasets:AdultArrays",
}

#: classes whose instances the library makes and returns (results, cases, loaded tables,
#: history entries), with the function that makes them or the reason: their fields are
#: documented, not checked
RECORDS: dict[str, str] = {}


# ------------------------------------------- audit/, tables.py and exercises.py: the entries
def _mechanism(value, size, rng):
    """A mechanism for the auditor: Laplace noise of scale 1 around ``value`` (ε = 1)."""
    return rng.laplace(float(value), 1.0, size)


def _honest(n, m):
    """A student's answer written without the library."""
    return (1 - 1 / m) ** (n - 1)


def _toy():
    return make_toy_data(20, rng=0)


def _dpsgd():
    return DPSGDClassifier(noise_multiplier=1.0, batch_size=5, epochs=1, hidden=(), rng=0)


def _no_clipping(**kw):
    return audit_bugs.DPSGDClassifierWithoutClipping(**kw).fit(*_toy())


def _canary_scores():
    X_train, y_train, canaries, labels, _ = audit_one_run.add_canaries(*_toy(), 4, scale=2.0,
                                                                       rng=0)
    return audit_one_run.canary_scores, dict(classifier=_dpsgd().fit(X_train, y_train),
                                             canaries=canaries, labels=labels)


def _audit_result():
    x = np.arange(200.0) % 7
    return audit_runs.audit_samples(x, x + 1.0, claimed_epsilon=0.5)


def _lfr_grid(method: str):
    grid = tables.load_lfr_grid()
    refit = {**{k: 0.5 for k in grid.entry("german", 0.0).index}, "Az": 0.0}
    return getattr(grid, method), dict(dataset="german", entry=refit)


_AUDIT = dict(mechanism=_mechanism, d=0.0, d_prime=1.0, claimed_epsilon=0.5, rng=0)
def _a_figure(epsilon=1.0):
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    ax.plot([0.0, 1.0], [0.0, epsilon])
    return fig


EXAMPLES["dpteach.plots.sliders:show_with_sliders"] = dict(draw=_a_figure, epsilon=1.0)


# ---------------------------------------------------------------------------- plots/
def _figure_data():
    from dpteach.plots.figure import FigureData, Series

    return FigureData("t", "x", "y", series=(Series("s", "a line", [0.0, 1.0], [1.0, 2.0]),))


_F = "dpteach.plots.figure:"
EXAMPLES.update({
    _F + "Series": dict(key="s", label="a line", x=[0.0, 1.0, 2.0], y=[1.0, 0.5, 2.0],
                        y2=[2.0, 1.0, 3.0]),
    _F + "HeatMap": dict(key="h", label="P", x=[0.0, 1.0], y=[0.0, 1.0, 2.0],
                         z=[[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]]),
    _F + "FigureData.series_by_key": lambda: (_figure_data().series_by_key, dict(key="s")),
    **{_F + name: (lambda name=name: (getattr(importlib.import_module("dpteach.plots.figure"),
                                              name), dict(data=_figure_data())))
       for name in ("to_matplotlib", "to_vega_lite")},
})


@functools.cache
def _roc():
    from dpteach.attacks.roc import roc_from_scores

    return roc_from_scores([0.9, 0.8, 0.3, 0.1, 0.6, 0.2], [1, 1, 0, 0, 1, 0], name="loss")


@functools.cache
def _logistic():
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression().fit(_X, _Y)


_D = "dpteach.plots.dpsgd:"
_GRID = dict(x0=[0.0, 1.0], x1=[0.0, 1.0, 2.0], p=[[0.1, 0.6], [0.4, 0.9], [0.5, 0.5]],
             X=[[0.2, 0.5], [0.8, 1.5]], y=[0, 1])
EXAMPLES.update({
    **{_D + name: (lambda name=name: (getattr(importlib.import_module("dpteach.plots.dpsgd"),
                                              name), dict(results=[_roc()], epsilon=[1.0])))
       for name in ("mia_roc_data", "plot_mia_roc")},
    **{_D + name: (lambda name=name: (getattr(importlib.import_module("dpteach.plots.dpsgd"),
                                              name), dict(clf=_logistic(), X=_X, y=_Y,
                                                          grid_size=10)))
       for name in ("decision_boundary_data", "plot_decision_boundary")},
    _D + "decision_grid": lambda: (importlib.import_module("dpteach.plots.dpsgd").decision_grid,
                                   dict(clf=_logistic(), X=_X, grid_size=10)),
    _D + "probability_grid_data": _GRID,
    _D + "plot_probability_grid": _GRID,
})
_S = "dpteach.plots.selection:"
EXAMPLES.update({
    # a public range [lower, upper] around the data
    **{_S + name: dict(data=[1.0, 2.0, 2.0, 3.0, 5.0], lower=0.0, upper=10.0, epsilon=1.0,
                       delta=1e-5) for name in ("ptr_distance_data", "plot_ptr_distance")},
    **{_S + name: dict(estimates=[1.0, 2.0, 2.5], lower=0.0, upper=10.0)
       for name in ("block_estimates_data", "plot_block_estimates")},
})


@functools.cache
def _erm_result(kind: str):
    from dpteach.learning import erm_experiments as ex

    X, y = _X[:30], _Y[:30]
    if kind == "fits":
        return ex.toy_fits(epsilon=1.0, lam=0.01, n_fits=2, n=40, rng=0)
    if kind == "curve":
        return ex.accuracy_vs_epsilon(X, y, X, y, [0.5, 2.0], 0.1, n_trials=2, rng=0)
    return ex.minimizer_sensitivity(X, y, 0.1, n_random=3, n_adversarial=2, rng=0)


EXAMPLES.update({f"dpteach.plots.attacks:{name}": dict(query="sum", db=[0, 1, 1, 0, 1])
                 for name in ("neighbour_differences_data", "plot_neighbour_differences")})
# randomized response: γ or ε, exactly one
EXAMPLES.update({
    **{f"dpteach.plots.randomized_response:{name}": [
        dict(true_rate=0.3, n=50, n_trials=10, rng=0, gamma=0.25),
        dict(true_rate=0.3, n=50, n_trials=10, rng=0, epsilon=1.0)]
       for name in ("rr_estimator_data", "plot_rr_estimator")},
    **{f"dpteach.plots.randomized_response:{name}": [dict(gamma=0.25), dict(epsilon=1.0)]
       for name in ("rr_probabilities_data", "plot_rr_probabilities")},
})
_E = "dpteach.plots.erm:"
EXAMPLES.update({
    **{_E + name: (lambda name=name, arg=arg, kind=kind: (
        getattr(importlib.import_module("dpteach.plots.erm"), name), {arg: _erm_result(kind)}))
       for name, arg, kind in (("toy_boundaries_data", "fits", "fits"),
                               ("plot_toy_boundaries", "fits", "fits"),
                               ("accuracy_curve_data", "curve", "curve"),
                               ("plot_accuracy_curve", "curve", "curve"),
                               ("sensitivity_data", "result", "sensitivity"),
                               ("plot_sensitivity", "result", "sensitivity"))},
    **{_E + name: dict(X=[[0.0, 0.0], [1.0, 1.0], [0.0, 1.0]], y=[0, 1, 1],
                       nonprivate=([1.0, -1.0], 0.2), private=[([1.0, -0.5], 0.0)])
       for name in ("decision_boundaries_data", "plot_decision_boundaries")},
})
# the events of the definition are intervals (low < high)
EXAMPLES.update({f"dpteach.plots.definition:{name}": dict(epsilon=1.0, low=2.0, high=5.0)
                 for name in ("event_probabilities_data", "plot_event_probabilities")})
EXAMPLES["dpteach.mechanisms.definition:laplace_event_probability"] = dict(
    low=2.0, high=5.0, value=4.0, sensitivity=1.0, epsilon=1.0)

EXAMPLES.update({
    "dpteach.audit.runs:audit_samples": dict(outputs=np.arange(200.0) % 7,
                                             outputs_prime=np.arange(200.0) % 7 + 1.0,
                                             claimed_epsilon=0.5),
    "dpteach.audit.runs:audit_mechanism": dict(_AUDIT, n_trials=200),
    "dpteach.audit.runs:audit_convergence": dict(_AUDIT, trials=[100, 1_000]),
    "dpteach.audit.runs:batched": dict(func=lambda data, rng: 0.0),
    "dpteach.audit.runs:AuditResult.in_event": lambda: (_audit_result().in_event,
                                                        dict(outputs=[0.0, 1.0])),
    "dpteach.audit.cases:AuditCase.audit": lambda: (
        audit_cases.audit_case("randomized_response").audit, dict(n_trials=200, rng=0)),
    "dpteach.audit.cases:AuditCase.convergence": lambda: (
        audit_cases.audit_case("randomized_response").convergence,
        dict(trials=[100, 200], rng=0)),
    "dpteach.audit.one_run:add_canaries": lambda: (
        audit_one_run.add_canaries, dict(zip(("X", "y"), _toy()), n_canaries=5, rng=0)),
    "dpteach.audit.one_run:canary_scores": _canary_scores,
    "dpteach.audit.one_run:one_run_audit_dpsgd": lambda: (
        audit_one_run.one_run_audit_dpsgd,
        dict(zip(("X", "y"), _toy()), classifier=_dpsgd(), n_canaries=10, k_plus=2,
             k_minus=2, rng=0)),
    "dpteach.audit.bugs:randomized_response_wrong_epsilon": dict(bits=[0, 1, 1], epsilon=1.0,
                                                                 rng=0),
    "dpteach.audit.bugs:DPSGDClassifierWithoutClipping": lambda: (
        _no_clipping, dict(noise_multiplier=1.0, batch_size=5, epochs=1, hidden=(), rng=0)),
    "dpteach.audit.bugs:DPSGDClassifierWithoutClipping.fit": lambda: (
        _no_clipping(noise_multiplier=1.0, batch_size=5, epochs=1, hidden=(), rng=0).fit,
        dict(zip(("X", "y"), _toy()))),
    "dpteach.exercises:assert_own_work": lambda: (
        lambda func, exercise="this exercise": exercises.assert_own_work(
            func, "fairlearn", exercise=exercise), dict(func=_honest)),
    "dpteach.exercises:names_used": dict(func=_honest),
    "dpteach.tables:LFRGrid.entry": lambda: (_lfr_grid("entry")[0],
                                             dict(dataset="german", Az=0.0)),
    "dpteach.tables:LFRGrid.deviation": lambda: _lfr_grid("deviation"),
    "dpteach.tables:LFRGrid.matches": lambda: _lfr_grid("matches"),
})
# the exact ε or μ of an event impossible on one side, and the true ε of a case whose pair
# shows such an event (the floating-point leak, the sparse vector without query noise)
MAY_RETURN_INF |= {"dpteach.audit.bounds:epsilon_from_probabilities",
                   "dpteach.audit.bounds:mu_from_probabilities",
                   "dpteach.audit.cases:pair_epsilon", "dpteach.audit.cases:audit_case"}
MAY_RETURN_NAN.update({
    key: "a shipped table marks with NaN each cell where the library refuses (too few runs, "
         "a PLD grid it will not build); the page then shows the refusal"
    for key in ("dpteach.tables:load_planner_table", "dpteach.tables:load_audit_table")})
RECORDS.update({
    "dpteach.audit.runs:AuditResult": "dpteach.audit.runs:audit_samples",
    "dpteach.audit.cases:AuditCase": "dpteach.audit.cases:audit_case",
    "dpteach.audit.one_run:OneRunAudit": "dpteach.audit.one_run:one_run_audit",
    "dpteach.audit.one_run:OneRunDPSGD": "dpteach.audit.one_run:one_run_audit_dpsgd",
    "dpteach.tables:LFRGrid": "dpteach.tables:load_lfr_grid",
    _A + "rdp:Step": "a history entry of the accountants",
    _C + "Spend": "a history entry of BudgetAccountant",
    _M + "PMWResult": "what private_multiplicative_weights returns",
    _M + "MWEMResult": "what mwem returns",
    _M + "MWEMPrivacy": "what mwem_privacy returns",
})


# ------------------------------------------------------------- learning (dpteach.learning)
_N = "dpteach.learning.network:Network."
_O = "dpteach.learning.optim:"
_X3 = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5], [-2.0, 1.5, 0.25], [0.0, 0.5, 1.0]])
_Y3 = np.array([0, 1, 1, 0])


def _net():
    from dpteach.learning.network import Network
    return Network((3, 4, 2), l2=0.01, rng=0)


def _net_method(name: str, **kwargs):
    """A factory for the method ``name`` of a fresh network (methods may update it)."""
    return lambda: (getattr(_net(), name), dict(kwargs))


def _net_grads():
    return _net().gradient(_X3, _Y3)


def _backward():
    net = _net()
    return net.backward, dict(cache=net.forward(_X3)[1], grad_out=np.ones((4, 2)))


def _adam_step():
    from dpteach.learning.optim import Adam
    return Adam([np.zeros(3), np.zeros((2, 2))]).step, dict(grads=[np.ones(3), np.ones((2, 2))])


def _gradient_check():
    w = np.array([1.0, -2.0, 0.5])
    return _optim_gradient_check, dict(f=lambda: float(np.sum(w ** 3)), params=[w],
                                       grads=[3 * w ** 2], rng=0)


def _optim_gradient_check(**kwargs):
    from dpteach.learning.optim import gradient_check
    return gradient_check(**kwargs)


EXAMPLES.update({
    **{_N + m: _net_method(m, X=_X3, y=_Y3)
       for m in ("trace", "per_example_losses", "loss", "gradient", "per_example_gradients",
                 "per_example_grad_norms")},
    **{_N + m: _net_method(m, X=_X3) for m in ("forward", "logits", "predict_proba")},
    _N + "backward": _backward,
    _N + "add_l2_gradient": lambda: (_net().add_l2_gradient, dict(grads=_net_grads())),
    _N + "apply_update": lambda: (_net().apply_update,
                                  dict(grads=_net_grads(), learning_rate=0.1)),
    _O + "Adam": dict(params=[np.zeros(3)]),
    _O + "Adam.step": _adam_step,
    _O + "gradient_check": _gradient_check,
    _O + "softmax": dict(logits=[[1.0, 2.0, 0.5], [0.0, 0.0, 3.0]]),
    _O + "binary_cross_entropy_with_logits": dict(logits=[0.5, -1.0, 2.0], y=[1, 0, 1]),
    _O + "squared_error": dict(pred=[[0.5, 1.0], [2.0, 0.0]], target=[[0.0, 1.0], [1.0, 1.0]]),
    _O + "group_normalized_l1": dict(prob=[0.2, 0.9, 0.4, 0.7], target=[0, 1, 1, 0],
                                     groups=[0, 0, 1, 1]),
})

_D = "dpteach.learning.dpsgd:"


def _dpsgd_fit(**kwargs):
    return DPSGDClassifier(**{"batch_size": 5, "epochs": 1, "hidden": (), "rng": 0,
                              **kwargs}).fit(*_toy())


def _fitted_dpsgd(method: str):
    return lambda: (getattr(_dpsgd_fit(), method), dict(X=_toy()[0][:6]))


EXAMPLES.update({
    _D + "steps_per_epoch": dict(n=100, batch_size=7),
    _D + "privatize_gradient_sum": dict(grad_sum=[np.ones(3), np.ones((2, 2))],
                                        noise_multiplier=1.0, max_grad_norm=1.0,
                                        expected_batch_size=10.0, rng=0),
    _D + "dp_sgd_gradient": lambda: (dpsgd.dp_sgd_gradient, dict(
        model=_net(), X_batch=_X3, y_batch=_Y3, noise_multiplier=1.0, max_grad_norm=1.0,
        expected_batch_size=4.0, rng=0)),
    _D + "DPSGDClassifier": lambda: (_dpsgd_fit, {}),
    _D + "DPSGDClassifier.fit": lambda: (DPSGDClassifier(batch_size=5, epochs=1, hidden=(),
                                                         rng=0).fit, dict(zip("Xy", _toy()))),
    **{_D + f"DPSGDClassifier.{m}": _fitted_dpsgd(m) for m in ("logits", "predict_proba",
                                                              "predict")},
})
# the edges of a class index (0 and 100,000) against a network of two outputs: the network
# refuses the class it does not have (its message names y, the name it knows the batch by)
NO_EDGES[_D + "dp_sgd_gradient(y_batch)"] = "class indices beyond the example network's 2"

_L = "dpteach.learning.logistic:LogisticProblem."


def _problem():
    from dpteach.learning.logistic import LogisticProblem
    return LogisticProblem([[0.6, 0.0], [0.0, -0.8], [0.3, 0.4]], [1, -1, 1])


EXAMPLES.update({
    _L + "objective": lambda: (_problem().objective, dict(w=[0.5, -0.5], lam=0.1)),
    _L + "loss_hessian": lambda: (_problem().loss_hessian, dict(w=[0.5, -0.5])),
    _L + "minimize": lambda: (_problem().minimize, dict(lam=0.1)),
})

_E = "dpteach.learning.erm:PrivateLogisticRegression"


def _plr(**kwargs):
    from dpteach.learning.erm import PrivateLogisticRegression
    return PrivateLogisticRegression(**{"lam": 0.1, "rng": 0, **kwargs})


def _plr_fit(**kwargs):
    return _plr(**kwargs).fit(*_toy())


EXAMPLES.update({
    _E: lambda: (_plr_fit, {}),
    _E + ".fit": lambda: (_plr().fit, dict(zip("Xy", _toy()))),
    **{f"{_E}.{m}": (lambda m=m: (getattr(_plr_fit(), m), dict(X=_toy()[0][:6])))
       for m in ("decision_function", "predict_proba", "predict_log_proba", "predict")},
})

_LX = "dpteach.learning.erm_experiments:"


def _curve():
    X, y = _toy()
    return erm_experiments.accuracy_vs_epsilon(X, y, X, y, [1.0], 0.1, n_trials=2, rng=0)


EXAMPLES.update({
    _LX + "minimizer_sensitivity": lambda: (erm_experiments.minimizer_sensitivity, dict(
        zip("Xy", _toy()), lam=0.1, n_random=2, n_adversarial=1, rng=0)),
    _LX + "accuracy_vs_epsilon": lambda: (erm_experiments.accuracy_vs_epsilon, dict(
        zip(("X_train", "y_train"), _toy()), **dict(zip(("X_test", "y_test"), _toy())),
        epsilons=[1.0], lam=0.1, n_trials=2, rng=0)),
    _LX + "toy_fits": dict(n_fits=1, n=20),
    _LX + "AccuracyCurve.mean": lambda: (_curve().mean, dict(method="objective")),
    _LX + "AccuracyCurve.std": lambda: (_curve().std, dict(method="objective")),
})


# ------------------------------------------------------------- fairness (dpteach.fairness)
_FX = np.random.default_rng(0).uniform(0.0, 1.0, (24, 3))
_FY = np.array([0, 1] * 12)
_FA = np.array([0, 0, 1, 1] * 6)
_FAIR = "dpteach.fairness."


@functools.cache
def _fair_fitted(name: str):
    from dpteach.fairness.laftr import LAFTR
    from dpteach.fairness.lfr import LFR
    from dpteach.fairness.mmd import MMDRepresentation

    model = {"laftr": lambda: LAFTR(epochs=1, rng=0), "mmd": lambda: MMDRepresentation(
        epochs=1, rng=0), "lfr": lambda: LFR(n_prototypes=2, n_starts=1, max_iter=5, rng=0),
             "lfr_shared": lambda: LFR(n_prototypes=2, n_starts=1, max_iter=5, alpha="shared",
                                       rng=0)}[name]()
    return model.fit(_FX, _FY, sensitive_features=_FA)


def _fair_estimator(cls_name: str, **kw):
    def factory():
        module = importlib.import_module(_FAIR + {"LAFTR": "laftr", "LFR": "lfr",
                                                  "MMDRepresentation": "mmd"}[cls_name])
        cls = getattr(module, cls_name)
        return (lambda **k: cls(**k).fit(_FX, _FY, sensitive_features=_FA)), dict(kw, rng=0)
    return factory


_FXYA = dict(X=_FX, y=_FY, sensitive_features=_FA)
EXAMPLES.update({
    # estimators: constructed with the values, fitted on 24 rows
    _FAIR + "laftr:LAFTR": _fair_estimator("LAFTR", epochs=1),
    _FAIR + "mmd:MMDRepresentation": _fair_estimator("MMDRepresentation", epochs=1),
    _FAIR + "lfr:LFR": _fair_estimator("LFR", n_prototypes=2, n_starts=1, max_iter=5),
    _FAIR + "laftr:LAFTR.fit": lambda: (__import__(_FAIR + "laftr", fromlist=["x"]).LAFTR(
        epochs=1, rng=0).fit, _FXYA),
    _FAIR + "mmd:MMDRepresentation.fit": lambda: (__import__(_FAIR + "mmd", fromlist=["x"])
                                                  .MMDRepresentation(epochs=1, rng=0).fit, _FXYA),
    _FAIR + "lfr:LFR.fit": lambda: (__import__(_FAIR + "lfr", fromlist=["x"]).LFR(
        n_prototypes=2, n_starts=1, max_iter=5, rng=0).fit, _FXYA),
    _FAIR + "lfr:LFR.fit_transform": lambda: (__import__(_FAIR + "lfr", fromlist=["x"]).LFR(
        n_prototypes=2, n_starts=1, max_iter=5, rng=0).fit_transform, _FXYA),
    _FAIR + "laftr:LAFTR.adv_loss": lambda: (_fair_fitted("laftr").adv_loss, _FXYA),
    _FAIR + "lfr:LFR.score": lambda: (_fair_fitted("lfr").score, _FXYA),
    _FAIR + "lfr:LFR.losses": lambda: (_fair_fitted("lfr").losses, _FXYA),
    **{_FAIR + f"lfr:LFR.{m}": (lambda m=m: (getattr(_fair_fitted("lfr"), m),
                                             dict(X=_FX, sensitive_features=_FA)))
       for m in ("transform", "predict_proba", "predict")},
    # the base class's methods, on a fitted subclass
    **{_FAIR + f"representation:RepresentationClassifier.{m}":
       (lambda m=m: (getattr(_fair_fitted("mmd"), m), dict(X=_FX)))
       for m in ("transform", "decision_function", "predict_proba", "predict")},
    _FAIR + "representation:RepresentationClassifier.score": lambda: (
        _fair_fitted("mmd").score, dict(X=_FX, y=_FY)),
    _FAIR + "lfr:LFRLosses.objective": lambda: (
        __import__(_FAIR + "lfr", fromlist=["x"]).LFRLosses(1.0, 0.5, 0.1).objective,
        dict(Ax=0.01, Ay=1.0, Az=1.0)),
    _FAIR + "lfr:lfr_losses": dict(X=_FX[:4], y=_FY[:4], memberships=[[0.5, 0.5], [1.0, 0.0],
                                                                      [0.25, 0.75], [0.0, 1.0]],
                                   prototypes=[[0.0, 1.0, 0.5], [1.0, 0.0, 0.5]], w=[0.2, 0.9],
                                   sensitive_features=_FA[:4]),
    # LAFTR's sweep refits on Adult (seconds): the unfair baseline, one call
    _FAIR + "laftr:gamma_sweep_row": dict(objective="unfair", gamma=0.0, seed=0),
    _FAIR + "lfr_grid:lfr_grid_entry": dict(dataset="german", Az=0.0),
    _FAIR + "lfr_grid:lfr_grid_start": dict(dataset="german", Az=0.0, start=0),
    _FAIR + "mmd:mmd2_and_grad": dict(Z=_FX, groups=_FA),
    _FAIR + "metrics:consistency_score": dict(X=_FX, y_pred=_FY, n_neighbors=5),
    _FAIR + "representation_eval:adversary_accuracy": dict(Z=_FX, sensitive_features=_FA,
                                                           epochs=1, rng=0),
    _FAIR + "representation_eval:fair_transfer": lambda: (
        __import__(_FAIR + "representation_eval", fromlist=["x"]).fair_transfer,
        dict(encoder_model=_fair_fitted("mmd"), X_train=_FX, y_train=_FY, X_test=_FX,
             y_test=_FY, sensitive_features_test=_FA)),
})


def _grouped():
    from dpteach.fairness.dp_impact import GroupedData

    X = np.random.default_rng(1).uniform(0.0, 1.0, (40, 3))
    y, g = np.arange(40) % 2, np.array(["a", "b", "b", "a"] * 10)
    return GroupedData(X[:24], y[:24], X[24:], y[24:], {"g": g[:24]}, {"g": g[24:]})


def _sweep_table():
    rows = [("sgd", math.inf, 0, 9, 5), ("sgd", math.inf, 1, 8, 4), ("dpsgd", 1.0, 0, 7, 4),
            ("dpsgd", 1.0, 1, 8, 5), ("dpsgd", 1.0, 2, 6, 3)]
    return pd.DataFrame([{"method": m, "epsilon": e, "seed": s, "count:all": 10,
                          "correct:all": c, "count:g=a": 6, "correct:g=a": a}
                         for m, e, s, c, a in rows])


def _dp_impact(name):
    from dpteach.fairness import dp_impact as di

    return {"summarize_sweep": lambda: (di.summarize_sweep, dict(table=_sweep_table())),
            "excess_drop": lambda: (di.excess_drop, dict(
                table=_sweep_table(), method="dpsgd", epsilon=1.0, group="g=a")),
            "accuracy_curves": lambda: (di.accuracy_curves, dict(
                summary=di.summarize_sweep(_sweep_table()), method="dpsgd", grouping="g")),
            "compare_with_sweep": lambda: (di.compare_with_sweep, dict(
                live=_sweep_table(), shipped=_sweep_table(), alpha=0.01)),
            "fit_and_score": lambda: (di.fit_and_score, dict(
                method="objective", epsilon=1.0, seed=0, data=_grouped())),
            "dp_fairness_sweep": lambda: (di.dp_fairness_sweep, dict(
                epsilons=[1.0], methods=["objective"], seeds=[0], data=_grouped(),
                include_nonprivate=False)),
            }[name]


def _dp_diagnostics(name):
    from dpteach.fairness import dp_diagnostics as dd
    from dpteach.learning.network import Network

    X, g = _grouped().X_train, _grouped().groups_train["g"]
    member = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=bool)
    loss = np.arange(16.0).reshape(4, 4) % 5
    experiment = ShadowExperiment(membership=member, confidences=-loss, losses=loss,
                                  train_accuracy=np.ones(4), test_accuracy=np.ones(4),
                                  epsilons=np.ones(4))
    return {"gradient_stats_by_group": lambda: (dd.gradient_stats_by_group, dict(
                model=Network((3, 2), rng=0), X=X[:6], y=np.arange(6) % 2,
                sensitive_features=g[:6])),
            "objective_perturbation_noise_by_group": lambda: (
                dd.objective_perturbation_noise_by_group, dict(
                    X_train=X, y_train=_grouped().y_train, X=X[:4], sensitive_features=g[:4],
                    epsilon=1.0, lam=1e-3, data_norm=2.0)),
            "membership_advantage_by_group": lambda: (dd.membership_advantage_by_group, dict(
                experiment=experiment, sensitive_features=["a", "a", "b", "b"], attack="loss",
                n_permutations=2, rng=0)),
            }[name]


EXAMPLES.update({
    _FAIR + "dp_impact:private_classifier": dict(method="dpsgd", epsilon=1.0, rng=0, n=10),
    **{_FAIR + f"dp_impact:{name}": _dp_impact(name)
       for name in ("summarize_sweep", "excess_drop", "accuracy_curves", "compare_with_sweep",
                    "fit_and_score", "dp_fairness_sweep")},
    **{_FAIR + f"dp_diagnostics:{name}": _dp_diagnostics(name)
       for name in ("gradient_stats_by_group", "objective_perturbation_noise_by_group",
                    "membership_advantage_by_group")},
})
RESULTS.add(_FAIR + "dp_impact:GroupedData")          # a dataclass: a record of rows
NO_EDGES.update({
    _FAIR + "laftr:gamma_sweep_row(gamma)": "each call fits LAFTR on Adult (about 7 s); the "
                                            "shipped sweep's rows are refitted in test_tables",
    _FAIR + "laftr:gamma_sweep_row(seed)": "as gamma: a fit on Adult per call",
    _FAIR + "laftr:gamma_sweep_row(objective)": "as gamma: a fit on Adult per call",
    _FAIR + "lfr_grid:lfr_grid_entry(dataset)": "Adult's entry is a 13 s fit; German's is the "
                                                "example, and test_tables refits two of its",
    _FAIR + "lfr_grid:lfr_grid_start(dataset)": "as lfr_grid_entry: Adult's start is a fit of "
                                                "seconds; German's is the example",
})


# ------------------------------------------------- plots: accounting, audit, fairness, PATE
_PA = "dpteach.plots.accounting:"
EXAMPLES.update({
    **{_PA + name: dict(k_max=20, epsilon=0.1, methods=("basic", "rdp"))
       for name in ("composition_data", "plot_composition")},
    **{_PA + name: dict(steps_max=50, pld_points=0)
       for name in ("dpsgd_epsilon_data", "plot_dpsgd_epsilon")},
})


def _one_run_audit():
    return audit_one_run.one_run_audit([3.0, -1.0, 2.0, -2.0, 0.5, 1.0], [1, 0, 1, 0, 0, 1],
                                       k_plus=2, k_minus=2)


_PU = "dpteach.plots.audit:"
EXAMPLES.update({
    **{_PU + name: lambda name=name: (getattr(importlib.import_module("dpteach.plots.audit"),
                                              name), dict(result=_audit_result()))
       for name in ("audit_histograms_data", "plot_audit_histograms")},
    **{_PU + name: lambda name=name: (getattr(importlib.import_module("dpteach.plots.audit"),
                                              name), dict(audit=_one_run_audit()))
       for name in ("canary_scores_data", "plot_canary_scores")},
    **{_PU + name: dict(trials=[10, 100, 1000], bounds=[0.1, 0.3, 0.4], claimed_epsilon=0.5)
       for name in ("bound_convergence_data", "plot_bound_convergence")},
    **{_PU + name: dict(m=1000, r=100, points=5)
       for name in ("one_run_bound_data", "plot_one_run_bound")},
})
EXAMPLES["dpteach.plots.figure:drawn"] = lambda: (
    importlib.import_module("dpteach.plots.figure").drawn,
    dict(data=importlib.import_module("dpteach.plots.accounting").amplification_data))
EXAMPLES.update({f"dpteach.plots.fairness_defs:{name}": dict(
    y_true=[0, 1, 0, 1, 1, 0], y_prob=[0.2, 0.9, 0.4, 0.6, 0.7, 0.1],
    sensitive_features=[0, 0, 0, 1, 1, 1]) for name in ("calibration_by_group_data",
                                                        "plot_calibration_by_group")})
EXAMPLES["dpteach.plots.fairness:gap_values"] = dict(
    y_true=[0, 1, 0, 1], y_pred=[0, 1, 1, 1], sensitive_features=[0, 0, 1, 1])
NO_EDGES.update({
    _PA + "dpsgd_epsilon_data(pld_steps)": "PLD at 10⁶ steps takes tens of seconds "
                                           "(benchmarks/bench_domains.py times it)",
})


# ------------------------------------------------------------------------- the walk
def library_modules() -> dict[str, Any]:
    found = {}
    for info in pkgutil.walk_packages(dpteach.__path__, "dpteach."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        found[info.name] = importlib.import_module(info.name)
    return found


def public_callables() -> dict[str, Callable]:
    """"module:qualname" → callable, for the public functions, classes and their public
    methods defined in the library's modules. A dataclass is a record of results (its
    fields are documented, not declared): only its methods are listed."""
    out = {}
    for name, module in library_modules().items():
        for attr, obj in vars(module).items():
            if attr.startswith("_") or getattr(obj, "__module__", None) != name:
                continue
            if inspect.isfunction(inspect.unwrap(obj)):          # lru_cache'd loaders too
                out[f"{name}:{attr}"] = obj
            elif inspect.isclass(obj) and not issubclass(obj, BaseException):
                # a dataclass that declares its fields (built by students too) is called
                declared = hasattr(obj, "__domains__")
                if (declared or not dataclasses.is_dataclass(obj)) \
                        and f"{name}:{attr}" not in RESULTS:
                    out[f"{name}:{attr}"] = obj
                for meth, fn in vars(obj).items():
                    if not meth.startswith("_") and inspect.isfunction(fn):
                        out[f"{name}:{attr}.{meth}"] = fn
    return out


CALLABLES = public_callables()


def _parameters(obj: Callable) -> list[str]:
    target = obj.__init__ if inspect.isclass(obj) else obj
    sig = inspect.signature(inspect.unwrap(target))
    return [p.name for p in sig.parameters.values()
            if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _domains(obj: Callable) -> Mapping[str, Domain]:
    if inspect.isclass(obj) and hasattr(obj, "_parameter_constraints"):
        return obj._parameter_constraints
    return getattr(obj, "__domains__", {})


def _is_method(key: str) -> bool:
    return "." in key.split(":")[1]


def _example(key: str, obj: Callable, name: str | None = None) -> tuple[Callable, dict[str, Any]]:
    """The call and its valid keyword arguments (to vary ``name``: of alternative examples,
    the one that has it, e.g. γ or ε for randomized response)."""
    given = EXAMPLES.get(key)
    if callable(given):
        call, kwargs = given()
        return call, dict(kwargs)
    if isinstance(given, list):
        given = next((d for d in given if d.get(name) is not None), given[0])
    if given is not None:
        return obj, dict(given)
    if _is_method(key) or (inspect.isclass(obj) and hasattr(obj, "_parameter_constraints")):
        pytest.fail(f"{key}: add an EXAMPLES factory that makes the instance (fits the "
                    "estimator) and returns the call and its arguments")
    target = obj.__init__ if inspect.isclass(obj) else obj
    sig = inspect.signature(inspect.unwrap(target))
    doms = _domains(obj)
    kwargs = {}
    for p in sig.parameters.values():
        if p.name in ("self", "cls") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.default is not p.empty:
            continue
        kwargs[p.name] = doms[p.name].example
    return obj, kwargs


def _non_finite(value: Any, depth: int = 0) -> str | None:
    """Where ``value`` holds a NaN or an infinity (None if nowhere)."""
    if depth > 6:
        return None
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (float, np.floating)):
        return None if math.isfinite(value) else repr(value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc" and not np.all(np.isfinite(value)):
            return f"array with {int(np.sum(~np.isfinite(value)))} non-finite entries"
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            where = _non_finite(getattr(value, f.name), depth + 1)
            if where:
                return f"{f.name}: {where}"
        return None
    if isinstance(value, Mapping):
        for k, v in value.items():
            where = _non_finite(v, depth + 1)
            if where:
                return f"[{k!r}]: {where}"
        return None
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            where = _non_finite(v, depth + 1)
            if where:
                return f"[{i}]: {where}"
    return None


def _called(key: str) -> bool:
    """Whether the generated calls reach ``key``: every function and class, and the methods
    that take arguments (through their EXAMPLES factory)."""
    return not _is_method(key) or bool(_parameters(CALLABLES[key]))


def _non_finite_by_design(key: str) -> bool:
    return key in MAY_RETURN_INF or key in MAY_RETURN_NAN


def _cases(kind: str) -> list:
    out = []
    for key, obj in CALLABLES.items():
        if not _called(key):
            continue
        doms = _domains(obj)
        for name, dom in doms.items():
            values = dom.bad if kind == "bad" else dom.edges
            if kind == "edge" and f"{key}({name})" in NO_EDGES:
                continue
            for i, v in enumerate(values):
                out.append(pytest.param(key, name, v, id=f"{key.split(':')[1]}-{name}-{i}"))
    return out


# -------------------------------------------------------------------------- tests
def test_the_walk_finds_the_library_modules():
    assert "dpteach.mechanisms.noise:laplace_mechanism" in CALLABLES


@pytest.mark.parametrize("key", sorted(k for k in CALLABLES if k not in RECORDS))
def test_every_parameter_has_a_domain(key):
    obj = CALLABLES[key]
    missing = sorted(set(_parameters(obj)) - set(_domains(obj)))
    assert not missing, f"{key}: parameters without a declared domain: {missing}"


def test_every_domain_is_documented_where_help_shows_it():
    # @validate (functions, classes) and @documented (estimators) append a "Teaching domains"
    # section listing each declared parameter; a class's own docstring must carry it, since
    # help(DPSGDClassifier) shows the class's (27 classes lacked it before @documented)
    undocumented = []
    for key, obj in CALLABLES.items():
        domains = _domains(obj)
        section = (obj.__doc__ or "").partition("Teaching domains")[2]
        if domains and not all(f"{name} : {dom.text}" in section for name, dom in domains.items()):
            undocumented.append(key)
    assert not undocumented, f"no Teaching domains section listing every parameter: {undocumented}"


def test_records_are_classes_the_library_makes():
    # a record that is a dataclass is not among CALLABLES at all (its fields are documented);
    # a plain class listed here is skipped by the generated calls
    for key, maker in RECORDS.items():
        module, name = key.split(":")
        cls = getattr(importlib.import_module(module), name, None)
        assert inspect.isclass(cls), f"RECORDS names {key}, not a public class"
        assert maker, f"RECORDS gives no maker or reason for {key}"


@pytest.mark.parametrize("key", sorted(k for k in CALLABLES if _called(k) and k not in RECORDS))
def test_the_example_call_answers(key):
    call, kwargs = _example(key, CALLABLES[key])
    result = call(**kwargs)
    if not _non_finite_by_design(key):
        assert _non_finite(result) is None, f"{key} returned {_non_finite(result)}"


@pytest.mark.parametrize("key, name, bad", _cases("bad"))
def test_bad_values_are_refused_by_name(key, name, bad):
    call, kwargs = _example(key, CALLABLES[key], name)
    with pytest.raises(ParameterError, match=rf"\b{re.escape(name)}\b"):
        call(**{**kwargs, name: bad})


@pytest.mark.parametrize("key, name, edge", _cases("edge"))
def test_edge_values_answer_without_nan_or_inf(key, name, edge):
    call, kwargs = _example(key, CALLABLES[key], name)
    kwargs[name] = edge
    try:
        result = call(**kwargs)
    except ParameterError as err:          # a rule tying two arguments: it names them
        assert any(re.search(rf"\b{re.escape(p)}\b", str(err)) for p in kwargs), str(err)
        return
    if not _non_finite_by_design(key):
        assert _non_finite(result) is None, f"{key}({name}={edge!r}) returned {_non_finite(result)}"


# ------------------------------------------------------------- the machinery itself
def test_validate_converts_positional_keyword_and_default_arguments():
    from dpteach._validation import EPSILON, RNG, validate

    @validate(epsilon=EPSILON, rng=RNG)
    def f(x, epsilon, rng=None):
        return x, epsilon, rng

    x, eps, gen = f("anything", 2)
    assert eps == 2.0 and type(eps) is float and isinstance(gen, np.random.Generator)
    assert f(1, epsilon=3)[1] == 3.0
    assert f.__wrapped__(1, 2)[2] is None                  # the unchecked algorithm
    assert set(f.__domains__) == {"epsilon", "rng"}
    with pytest.raises(ParameterError, match=r"epsilon must be a number in \[1e-06, 1000\]; "
                                             r"got epsilon=-1"):
        f(1, -1)


def test_domains_combine_and_refuse_by_name():
    from dpteach._validation import FLAG, array, choice, integer, one_of, real

    maybe = array(ndim=1).or_none()
    assert maybe("x", None) is None and maybe("x", [1, 2]).tolist() == [1.0, 2.0]
    either = one_of(choice("auto"), real(0.0, 1.0))
    assert either("x", "auto") == "auto" and either("x", 0.5) == 0.5
    for dom, bad in ((integer(1, 5), 2.0), (integer(1, 5), True), (FLAG, 1),
                     (choice("a", "b"), "c"), (array(ndim=1), [[1.0]]), (maybe, "abc")):
        with pytest.raises(ParameterError, match=r"^arg must be .*; got arg"):
            dom("arg", bad)


def test_masks_and_callables():
    from dpteach._validation import array, function

    mask = array(ndim=1, low=0, high=1, integers=True, booleans=True)
    assert mask("m", [True, False, 1]).tolist() == [1.0, 0.0, 1.0]
    assert [True] not in mask.bad and [True] in array(ndim=1).bad
    func = function("a callable f(x)")
    assert func("f", len) is len
    for dom, bad in ((mask, [2, 0]), (mask, [0.5]), (mask, "TF"), (array(ndim=1), [True]),
                     (func, 3), (func, None)):
        with pytest.raises(ParameterError, match=r"^arg must be .*; got arg"):
            dom("arg", bad)


def test_flat_returns_a_number_or_an_array_as_one_dimension():
    from dpteach._validation import VALUES

    flat = VALUES.flat()
    assert flat("v", 3.0).tolist() == [3.0] and flat("v", [[1, 2], [3, 4]]).shape == (4,)
    with pytest.raises(ParameterError, match="^v must be"):
        flat("v", "abc")


def test_rational_takes_numbers_exactly():
    from fractions import Fraction

    from dpteach._validation import rational

    dom = rational(1e-6, 2**50)
    assert dom("t", 0.1) == Fraction(0.1) != Fraction(1, 10)       # the double, exactly
    assert dom("t", Fraction(1, 3)) == Fraction(1, 3) and dom("t", np.int64(3)) == 3
    assert dom("t", 2**50) == 2**50 and dom("t", 1e-6) == Fraction(1e-6)
    for bad in (Fraction(1, 10**7), 2**50 + 1, math.inf, True, "1", None):
        with pytest.raises(ParameterError, match=r"^t must be a number in \[1e-06, "):
            dom("t", bad)


def test_arrays_of_booleans_and_negative_zero():
    from dpteach._validation import array, real

    bits = array(low=0, high=1, integers=True, booleans=True)
    assert bits("b", [True, False, 1]).tolist() == [1.0, 0.0, 1.0]
    with pytest.raises(ParameterError, match="^b must be"):
        array()("b", [True, False])                                  # not by default
    # -0.0 passes "≥ 0" and comes out as 0.0: NumPy refuses a scale of -0.0
    zero = real(0.0, 1.0)("s", -0.0)
    assert zero == 0.0 and math.copysign(1.0, zero) == 1.0
    assert -0.0 in real(0.0, 1.0).edges                             # the generated tests try it


def test_validate_params_checks_an_estimators_hyper_parameters():
    from dpteach._validation import EPSILON, validate_params

    class Estimator:
        _parameter_constraints = {"epsilon": EPSILON}

        def __init__(self, epsilon=1.0):
            self.epsilon = epsilon

    est = Estimator(epsilon=2)
    validate_params(est)
    assert est.epsilon == 2.0 and type(est.epsilon) is float
    with pytest.raises(ParameterError, match="epsilon"):
        validate_params(Estimator(epsilon="high"))


def test_declaring_an_unknown_parameter_fails_at_import():
    from dpteach._validation import EPSILON, validate

    with pytest.raises(TypeError, match="unknown parameters"):
        validate(epsilon=EPSILON, eps=EPSILON)(lambda epsilon: epsilon)


def test_parameter_error_is_both_value_and_type_error():
    assert issubclass(ParameterError, ValueError) and issubclass(ParameterError, TypeError)


def test_the_generated_checks_can_fail(monkeypatch):
    # A function whose declaration is too wide is caught: it answers a bad value (no
    # error) and returns NaN at an edge.
    from dpteach._validation import real, validate

    loose = real(-1.0, 1.0)

    @validate(p=loose)
    def sqrt_p(p):
        return math.sqrt(p) if p >= 0 else math.nan

    with pytest.raises(AssertionError):
        assert _non_finite(sqrt_p(-1.0)) is None
    bad_ok = validate(p=real(-math.inf, math.inf))(lambda p: p)
    with pytest.raises(pytest.fail.Exception):
        with pytest.raises(ParameterError):
            bad_ok(math.inf)
    key = "dpteach.mechanisms.noise:laplace_scale"
    monkeypatch.setitem(CALLABLES, key, validate(sensitivity=real(0.0, 1.0),
                                                 epsilon=real(0.0, 1.0))(lambda sensitivity,
                                                                         epsilon: sensitivity / epsilon))
    with pytest.raises((AssertionError, ZeroDivisionError)):
        test_edge_values_answer_without_nan_or_inf(key, "epsilon", 0.0)


def test_every_method_has_an_example_factory():
    # a method is called on a built (fitted) instance: its EXAMPLES entry makes one
    missing = sorted(k for k, obj in CALLABLES.items()
                     if _is_method(k) and _parameters(obj) and not callable(EXAMPLES.get(k)))
    assert not missing, f"methods without an EXAMPLES factory: {missing}"


def test_the_method_and_estimator_checks_can_fail(monkeypatch):
    # A method or an estimator whose declaration is too wide is caught: the bad value
    # reaches the body (an AttributeError there, not a ParameterError naming the argument).
    from dpteach._validation import anything, validate

    loose = validate(X=anything("anything"))(TeacherEnsemble.votes.__wrapped__)
    monkeypatch.setattr(TeacherEnsemble, "votes", loose)
    with pytest.raises(AttributeError):
        test_bad_values_are_refused_by_name("dpteach.pate.teachers:TeacherEnsemble.votes",
                                            "X", "abc")
    monkeypatch.setitem(PATEStudent._parameter_constraints, "classes", anything("anything"))
    with pytest.raises(AttributeError):
        test_bad_values_are_refused_by_name("dpteach.pate.student:PATEStudent", "classes",
                                            "abc")
    # a method without a factory is reported
    monkeypatch.delitem(EXAMPLES, "dpteach.pate.student:PATEStudent.predict")
    with pytest.raises(AssertionError, match="without an EXAMPLES factory"):
        test_every_method_has_an_example_factory()


# ------------------------------------------------------------ the README's domain table
def test_the_readme_lists_the_named_domains_as_declared():
    # README's "Teaching domains" table is made by scripts/domain_table.py from
    # _validation; a domain changed without the table (or the reverse) fails here
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("domain_table",
                                                  root / "scripts" / "domain_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    readme = (root / "README.md").read_text()
    shown = readme.split(module.START, 1)[1].split(module.END, 1)[0].strip()
    assert shown == module.table(), "run: python scripts/domain_table.py --write"


def test_instance_of_takes_only_what_the_library_made():
    from dpteach._validation import ParameterError, instance_of

    class Result:
        pass

    made = Result()
    domain = instance_of(Result, "a Result from make_result()")
    assert domain("result", made) is made
    for bad in (None, "made by hand", 1.0, object()):
        with pytest.raises(ParameterError, match=r"result must be a Result from make_result"):
            domain("result", bad)
