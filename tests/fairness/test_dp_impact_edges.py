"""Legal-but-extreme inputs for ``dpteach.fairness.dp_impact``, ``dpteach.fairness.dp_diagnostics``
and ``dpteach.plots.dp_fairness``: every public function, in the style of
``tests/fairness/test_lfr_edges.py``.

Each case draws values from the strategies of ``tests/_props.py`` (subnormal, tiny and huge
floats, huge integers; feature rows scaled to tiny magnitudes) and calls with a time bound
(``_props.assert_extreme_ok``): the call must answer without NaN — accuracies and shares in
[0, 1], norms ≥ 0, flip rates in [0, 1] — or refuse with ``ParameterError``/``TypeError``.
ε outside [1e-3, 1e3] (other than ∞), more than 2,000 fits and a test level α below 1e-12
are refused by design. ``test_every_public_callable_is_in_the_table`` fails when a public
callable of the three modules is missing from ``CASES``.
"""

from __future__ import annotations

import functools
import inspect
import math

import numpy as np
import pandas as pd
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

from dpteach.attacks.membership import ShadowExperiment
from dpteach.fairness import dp_diagnostics as dd
from dpteach.fairness import dp_impact as di
from dpteach.learning.network import Network
from dpteach.plots import dp_fairness as pdf

MODULES = {"dpteach.fairness.dp_impact": di, "dpteach.fairness.dp_diagnostics": dd,
           "dpteach.plots.dp_fairness": pdf}

EPS = st.one_of(EXTREME_POSITIVE_FLOATS, st.just(math.inf), st.sampled_from([1e-3, 1e3]))
SEEDS = st.one_of(HUGE_INTS, st.sampled_from([0, 2**32 - 1]))


# ---------------------------------------------------------------------------- data
def _rows(n, gen, scale=1.0):
    g = np.where(np.arange(n) % 4 == 0, "b", "a")
    X = gen.random((n, 3)) * scale
    y = (X[:, 0] + gen.normal(0, 0.3 * max(scale, 1e-300), n) > 0.5 * scale).astype(int)
    y[:2] = [0, 1]
    return X, y, {"g": g}


@functools.cache
def _data(scale=1.0):
    gen = np.random.default_rng(3)
    Xtr, ytr, gtr = _rows(80, gen, scale)
    Xte, yte, gte = _rows(40, gen, scale)
    return di.GroupedData(Xtr, ytr, Xte, yte, gtr, gte)


def scaled_data():
    return st.one_of(TINY_FLOATS, st.sampled_from([0.5, 1.0])).map(_data)


@functools.cache
def _table():
    return di.dp_fairness_sweep([1.0], methods=("dpsgd", "objective"), seeds=[0, 1],
                                data=_data())


def _huge_counts(factor):
    """The table with every count and correct count multiplied by ``factor`` (an int)."""
    t = _table().copy()
    for c in t.columns:
        if c.startswith(("count:", "correct:")):
            t[c] = t[c].astype(object) * factor
    return t


@functools.cache
def _experiment():
    gen = np.random.default_rng(0)
    member = gen.random((3, 40)) < 0.5
    loss = gen.exponential(1.0, (3, 40))
    return ShadowExperiment(member, -loss, loss, np.ones(3), np.ones(3), np.full(3, np.nan))


def _groups40():
    return np.where(np.arange(40) % 3 == 0, "x", "y")


# ---------------------------------------------------------------------- the checks
def unit(out, kw):
    return bool(((out["accuracy"] >= 0) & (out["accuracy"] <= 1)).all())


def row_ok(out, kw):
    return 0 <= out["correct:all"] <= out["count:all"] and out["fit_seconds"] >= 0


def table_ok(out, kw):
    return bool((out["correct:all"] <= out["count:all"]).all())


def summary_ok(out, kw):
    return bool(((out["mean"] >= 0) & (out["mean"] <= 1)).all())


def grads_ok(out, kw):
    return bool((out["mean_norm"] >= 0).all() and math.isclose(out["share"].sum(), 1)
                and ((out["fraction_clipped"] >= 0) & (out["fraction_clipped"] <= 1)).all())


def noise_ok(out, kw):
    return bool((out["logit_noise_sd"] >= 0).all()
                and ((out["flip_rate"] >= 0) & (out["flip_rate"] <= 1)).all())


def mia_ok(out, kw):
    return bool(((out["advantage"] >= 0) & (out["advantage"] <= 1)).all()
                and ((out["p_value"] > 0) & (out["p_value"] <= 1)).all())


def figure_ok(out, kw):
    lo, hi = out.y_domain
    return 0 <= lo < hi <= 1 and all(np.isfinite(s.y).all() for s in out.series)


# --------------------------------------------------------------------------- cases
Case = functools.partial(EdgeCase, examples=4)
kw = lazy_kwargs
M, D, P = ("dpteach.fairness.dp_impact", "dpteach.fairness.dp_diagnostics",
           "dpteach.plots.dp_fairness")


def _grad_stats(X=None, **kwargs):
    net = Network((3, 2), rng=0)
    d = _data()
    X = d.X_train if X is None else X
    return dd.gradient_stats_by_group(net, X, d.y_train, sensitive_features=d.groups_train["g"],
                                      **kwargs)


def _noise(scale=1.0, **kwargs):
    d = _data(scale)
    base = {"epsilon": 1.0, "lam": 1e-3, "data_norm": 2.0}
    return dd.objective_perturbation_noise_by_group(
        d.X_train, d.y_train, d.X_test, sensitive_features=d.groups_test["g"],
        **{**base, **kwargs})


def _curves(**kwargs):
    return di.accuracy_curves(di.summarize_sweep(_table()), method="dpsgd", grouping="g",
                              **kwargs)


CURVE = dict(epsilons=[0.1, 1.0], mean=[[0.8, 0.9], [0.5, 0.7]], groups=["a", "b"],
             sd=[[0.01, 0.0], [0.1, 0.05]], nonprivate=[0.92, 0.75], selected=1.0)
UNIT_EXTREMES = st.one_of(TINY_FLOATS, st.sampled_from([0.0, 1.0, 1 - 2**-53]))

CASES = [
    # the shared checks: huge integer labels are labels like any other (or refused when
    # NumPy can only hold them as objects); tiny floats are not 0/1
    Case(f"{M}.check_group_labels", di.check_group_labels, kw(name="values", values=[1, 2, 1], n=3),
         {"values": HUGE_INTS.map(lambda v: [v, -v, v])},
         check=lambda out, kw: out.shape == (3,) and out[0] == kw["values"][0]),
    Case(f"{M}.check_zero_one_labels", di.check_zero_one_labels,
         kw(name="values", values=[0, 1, 1], n=3, rows_of="X"),
         {"values": TINY_FLOATS.map(lambda v: [0.0, 1.0, v])},
         check=lambda out, kw: False),                  # must be refused: v is not 0 or 1
    Case(f"{M}.adult_group_data", di.adult_group_data, kw(), {}),
    Case(f"{M}.group_accuracy", di.group_accuracy,
         kw(y_true=[0, 1, 1, 0], y_pred=[0, 1, 0, 0], sensitive_features=[1, 2, 1, 2]),
         {"sensitive_features": HUGE_INTS.map(lambda v: [v, -v, v, -v])}, check=unit),
    Case(f"{M}.private_classifier", di.private_classifier, kw(method="dpsgd", epsilon=1.0),
         {"epsilon": EPS, "n": HUGE_INTS, "rng": SEEDS}, fixed=("method",)),
    Case(f"{M}.fit_and_score", di.fit_and_score,
         kw(method="objective", epsilon=1.0, seed=0, data=_data),
         {"epsilon": EPS, "seed": SEEDS, "data": scaled_data()}, check=row_ok,
         fixed=("method",)),
    Case(f"{M}.fit_and_score", di.fit_and_score,           # DP-SGD: σ from the accountant
         kw(method="dpsgd", epsilon=1.0, seed=0, data=_data),
         {"epsilon": EPS, "data": scaled_data()}, check=row_ok, fixed=("method",)),
    Case(f"{M}.dp_fairness_sweep", di.dp_fairness_sweep,
         kw(epsilons=[1.0], methods=["objective"], seeds=[0], data=_data,
            include_nonprivate=False),
         {"epsilons": EPS.map(lambda e: [e]), "seeds": SEEDS.map(lambda s: [s])},
         check=table_ok, fixed=("methods", "progress")),
    Case(f"{M}.summarize_sweep", di.summarize_sweep, kw(table=_table),
         {"table": st.one_of(HUGE_INTS, st.sampled_from([1, 2**60])).map(_huge_counts)},
         check=summary_ok),
    Case(f"{M}.excess_drop", di.excess_drop,
         kw(table=_table, method="dpsgd", epsilon=1.0, group="g=b", reference="all"),
         {"epsilon": EPS}, fixed=("method", "group", "reference")),
    Case(f"{M}.accuracy_curves", _curves, kw(), {}, fixed=("summary", "method", "grouping")),
    Case(f"{M}.compare_with_sweep", di.compare_with_sweep,
         kw(live=_table, shipped=_table, alpha=0.01),
         {"alpha": st.one_of(TINY_FLOATS, st.sampled_from([1e-12, 0.5, 1e-6]))},
         check=lambda out, kw: bool((out["tolerance"] >= 0).all())),
    Case(f"{D}.gradient_stats_by_group", _grad_stats, kw(),
         {"max_grad_norm": EXTREME_POSITIVE_FLOATS,
          "X": st.one_of(TINY_FLOATS, st.sampled_from([1.0, 1e8])).map(
              lambda f: _data().X_train * f)}, check=grads_ok),
    Case(f"{D}.objective_perturbation_noise_by_group", _noise, kw(),
         {"epsilon": st.one_of(EXTREME_POSITIVE_FLOATS, st.sampled_from([1e-3, 1e3])),
          "lam": EXTREME_POSITIVE_FLOATS, "data_norm": EXTREME_POSITIVE_FLOATS,
          "scale": st.one_of(TINY_FLOATS, st.just(1.0))}, check=noise_ok),
    Case(f"{D}.membership_advantage_by_group", dd.membership_advantage_by_group,
         kw(experiment=_experiment, sensitive_features=_groups40, attack="loss",
            n_permutations=3, rng=0),
         {"n_permutations": st.one_of(HUGE_INTS, st.sampled_from([1, 10_000])),
          "rng": SEEDS}, check=mia_ok, fixed=("attack",)),
    Case(f"{P}.group_accuracy_data", pdf.group_accuracy_data, kw(**CURVE),
         {"epsilons": st.one_of(EXTREME_POSITIVE_FLOATS, st.just(1e200)).map(
             lambda e: [e, min(2 * e, 1.7e308)]),
          "selected": EXTREME_POSITIVE_FLOATS,
          "mean": UNIT_EXTREMES.map(lambda v: [[v, v], [v, 1 - v]]),
          "sd": UNIT_EXTREMES.map(lambda v: [[v, v], [v, v]]),
          "nonprivate": UNIT_EXTREMES.map(lambda v: [v, math.nan])}, check=figure_ok),
    Case(f"{P}.plot_group_accuracy", pdf.plot_group_accuracy, kw(**CURVE),
         {"epsilons": st.sampled_from([[5e-324, 1e-300], [1e100, 1e200], [0.1, 1.0]]),
          "selected": st.sampled_from([5e-324, 1e200, 1.7e308])}, examples=3),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name.split(".", 2)[2] for c in CASES])
def test_extreme_values(case):
    if not case.args:
        out = case.func(**case.base())                 # no numeric argument: one plain call
        assert out is not None
    run_edge_case(case, seconds=10)


# ------------------------------------------------------------- known exact answers
def test_counts_beyond_a_test_set_are_refused_by_name():
    # a count is a number of test rows: at most MAX_ROWS (Python ints beyond the float range
    # included), never an OverflowError
    for factor in (2**60, 10**400):
        with pytest.raises(di.ParameterError, match="table"):
            di.summarize_sweep(_huge_counts(factor))
    ok = di.summarize_sweep(_huge_counts(1))
    np.testing.assert_array_equal(ok["mean"], di.summarize_sweep(_table())["mean"])


def test_clipping_norm_extremes_have_known_answers():
    # C tiny: every example is clipped and keeps C/‖g‖; C huge: nothing is clipped
    tiny = _grad_stats(max_grad_norm=5e-324)
    assert (tiny["fraction_clipped"] == 1).all()
    huge = _grad_stats(max_grad_norm=1e308)
    assert (huge["fraction_clipped"] == 0).all() and (huge["mean_clip_factor"] == 1).all()
    pd.testing.assert_series_equal(huge["gradient_share"], huge["clipped_share"],
                                   check_names=False)


def test_tiny_features_give_the_same_noise_for_every_row():
    # every row ≈ 0: the scores are all ≈ 0 and H ≈ Λ + (1/n)Σ ℓ''(0)·0: noise ≈ 0, flip ½
    out = _noise(scale=1e-300)
    assert np.allclose(out["logit_noise_sd"], 0.0, atol=1e-250)
    assert np.allclose(out["margin"], 0.0, atol=1e-250)


# ------------------------------------------------------------------------ coverage
def _public_callables():
    names = set()
    for modname, module in MODULES.items():
        for attr, obj in vars(module).items():
            if attr.startswith("_") or getattr(obj, "__module__", None) != modname:
                continue
            if inspect.isfunction(obj):
                names.add(f"{modname}.{attr}")
            elif inspect.isclass(obj):
                names.add(f"{modname}.{attr}")
    return names


def test_every_public_callable_is_in_the_table():
    found = _public_callables() - {f"{M}.GroupedData"}     # built by adult_group_data / _data
    listed = {c.name for c in CASES}
    assert len(found) >= 15
    assert not sorted(found - listed), sorted(found - listed)
    assert not sorted(listed - found), sorted(listed - found)


def test_grouped_data_refuses_features_outside_the_unit_interval():
    d = _data()
    with pytest.raises(di.ParameterError, match="X_train"):
        di.GroupedData(d.X_train * 1e300, d.y_train, d.X_test, d.y_test, d.groups_train,
                       d.groups_test)
    with pytest.raises(di.ParameterError, match="y_test"):
        di.GroupedData(d.X_train, d.y_train, d.X_test, d.y_test[:-1], d.groups_train,
                       d.groups_test)
