"""Legal-but-extreme inputs for ``dpteach.fairness.metrics``: every public function.

The data sets in :func:`dataset` sit at the ends of what is legal: a million rows, one
prediction for everybody (all 1, all 0), thousands of groups of two, the smallest legal
input (two groups of two), string labels (long, non-ASCII, object arrays), bools
everywhere, group labels that are huge Python integers or the extreme floats, scores that
are subnormal or one ulp below 1. Each public function is called on them through
``_props.assert_extreme_ok`` (answer without NaN within the time bound, or refuse with
ParameterError/TypeError) and its answer is checked against an independent reference
computed with a pandas group-by, so an extreme input must give the exact answer, not just
some number. ``test_every_public_function_is_in_the_table`` fails when a public function
of the module is missing from ``CASES``.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd
import pytest
from _props import TINY_FLOATS, assert_extreme_ok
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpteach._validation import ParameterError
from dpteach.fairness import metrics

MODULES = {"dpteach.fairness.metrics": metrics}

HUGE_N = 1_000_000
NAMES = ("huge", "all_ones", "all_zeros", "many_groups", "smallest", "strings", "bools",
         "huge_int_labels", "extreme_float_labels", "float_01_labels")


# ------------------------------------------------------------------------ the data
@functools.cache
def dataset(name: str) -> dict:
    """y_true, y_pred (0/1), groups and y_prob of one extreme-but-legal data set."""
    rng = np.random.default_rng(NAMES.index(name))
    if name == "huge":
        n = HUGE_N
        groups = rng.integers(0, 3, n)
    elif name == "many_groups":
        groups = np.repeat(np.arange(5_000), 2)       # 5,000 groups of two
        n = groups.size
    elif name == "smallest":
        groups = np.array([0, 0, 1, 1])
        n = 4
    else:
        n = 400
        groups = np.repeat([0, 1, 2, 3], 100)
    y_true = rng.integers(0, 2, n)
    if name in ("many_groups", "smallest"):
        y_true = np.tile([1, 0], n // 2)               # each group has both classes
    else:
        y_true[:8] = [1, 0] * 4                        # ... and so do the others
        groups[:8] = np.repeat(np.unique(groups)[:4], 2) if name != "huge" else \
            [0, 0, 1, 1, 2, 2, 0, 0]
    y_pred = rng.integers(0, 2, n)
    if name == "all_ones":
        y_pred = np.ones(n, int)
    if name == "all_zeros":
        y_pred = np.zeros(n, int)
    y_prob = rng.random(n)
    labels = {
        "strings": np.array(["Ünïcode ✓ " + "x" * 200, "", "b", "日本"], dtype=object),
        "huge_int_labels": np.array([2**64, -(10**400), 10**30, 0], dtype=object),
        "extreme_float_labels": np.array([5e-324, 1.7976931348623157e308, -1e-300, 1.0]),
        "float_01_labels": np.array([0.0, 1.0, 2.0, 3.0]),
    }
    if name in labels:
        groups = labels[name][groups]
    if name == "bools":
        y_true, y_pred, groups = y_true.astype(bool), y_pred.astype(bool), groups % 2 == 1
    return {"y_true": y_true, "y_pred": y_pred, "groups": groups, "y_prob": y_prob}


@functools.cache
def reference(name: str) -> pd.DataFrame:
    """Per-group rates by a pandas group-by: an implementation independent of the module."""
    d = dataset(name)
    df = pd.DataFrame({"y": np.asarray(d["y_true"], float), "p": np.asarray(d["y_pred"], float),
                       "g": pd.Series(list(d["groups"]), dtype=object), "s": d["y_prob"]})
    df["g"] = pd.factorize(df["g"], sort=True)[0]       # rows in sorted label order
    df["tp"] = df.y * df.p
    grouped = df.groupby("g")
    out = pd.DataFrame({
        "count": grouped.size(),
        "base_rate": grouped.y.mean(),
        "selection_rate": grouped.p.mean(),
        "true_positive_rate": grouped.tp.sum() / grouped.y.sum(),
        "false_positive_rate": (grouped.p.sum() - grouped.tp.sum()) / (grouped.size()
                                                                        - grouped.y.sum()),
        "mean_score": grouped.s.mean(),
    })
    out["false_negative_rate"] = 1 - out.true_positive_rate
    out.attrs["overall"] = {"selection_rate": df.p.mean(),
                            "true_positive_rate": df.tp.sum() / df.y.sum(),
                            "false_positive_rate": (df.p.sum() - df.tp.sum())
                            / (len(df) - df.y.sum())}
    return out


def _gap(name, rate, method):
    r = reference(name)[rate].to_numpy()
    if method == "between_groups":
        return r.max() - r.min()
    return np.abs(r - reference(name).attrs["overall"][rate]).max()


def _close(a, b):
    return abs(a - b) <= 1e-9


# ---------------------------------------------------------------------- the checks
def gap_check(rate_names, combine=max):
    def check(out, kw, name):
        expected = combine([_gap(name, r, kw.get("method", "between_groups"))
                            for r in rate_names])
        return isinstance(out, float) and _close(out, expected)
    return check


def eo_check(out, kw, name):
    gaps = [_gap(name, r, kw.get("method", "between_groups"))
            for r in ("true_positive_rate", "false_positive_rate")]
    expected = max(gaps) if kw.get("agg", "worst_case") == "worst_case" else sum(gaps) / 2
    return _close(out, expected)


def table_check(out, kw, name):
    ref = reference(name)
    cols = ["count", "base_rate", "selection_rate", "true_positive_rate",
            "false_positive_rate", "false_negative_rate", "mean_score"]
    same = np.allclose(out[cols].to_numpy(float), ref[cols].to_numpy(float), atol=1e-9)
    ppv_nan_iff_nobody_selected = np.array_equal(
        out["positive_predictive_value"].isna().to_numpy(), out["selection_rate"].to_numpy() == 0)
    return len(out) == len(ref) and same and ppv_nan_iff_nobody_selected


def rate_check(which):
    def check(out, kw, name):
        d = dataset(name)
        y = np.asarray(d["y_true"], int) == kw.get("pos_label", 1)
        p = np.asarray(d["y_pred"], int) == kw.get("pos_label", 1)
        expected = {"selection_rate": p.mean(), "true_positive_rate": p[y].mean(),
                    "false_positive_rate": p[~y].mean(), "false_negative_rate": 1 - p[y].mean(),
                    "true_negative_rate": 1 - p[~y].mean(),
                    "positive_predictive_value": y[p].mean() if p.any() else np.nan}[which]
        return _close(out, expected)
    return check


def calibration_table_check(out, kw, name):
    n = len(dataset(name)["y_true"])
    return (int(out["count"].sum()) == n and out["observed_rate"].between(0, 1).all()
            and (out["bin_low"] <= out["mean_predicted"] + 1e-12).all()
            and (out["mean_predicted"] <= out["bin_high"] + 1e-12).all())


def ece_check(out, kw, name):
    perfect = np.array_equal(np.asarray(kw["y_prob"], float), np.asarray(kw["y_true"], float))
    return 0.0 <= out <= 1.0 and (out == 0.0 if perfect else True)


def zemel_accuracy_check(out, kw, name):
    y = np.asarray(kw["y_true"], float)
    return _close(out, 1 - np.mean(np.abs(y - np.asarray(kw["y_prob"], float))))


def zemel_discrimination_check(out, kw, name):
    if kw["y_prob"] is dataset(name)["y_prob"]:
        means = reference(name)["mean_score"]
        return _close(out, means.max() - means.min())
    return 0.0 <= out <= 1.0


# ------------------------------------------------------------------- the table
@dataclass
class Case:
    """``func(**build(name, value))`` for data set ``name`` and a drawn ``value``."""

    func: Callable
    build: Callable[[str, object], dict]
    arg: str                               # the argument the drawn value goes to
    values: object                         # a hypothesis strategy
    check: Callable
    names: tuple = NAMES
    examples: int = 8


def xy(name, value, *, prob=False):
    d = dataset(name)
    return {"y_true": d["y_true"], ("y_prob" if prob else "y_pred"):
            d["y_prob"] if prob else d["y_pred"], "sensitive_features": d["groups"]}


METHODS = st.sampled_from(["between_groups", "to_overall"])
SCORES = st.sampled_from(["data", "perfect", "subnormal", "below_one", "edges"])


def scored(name, value):
    d = dataset(name)
    y = np.asarray(d["y_true"], float)
    n = y.size
    prob = {"data": d["y_prob"], "perfect": y, "subnormal": np.full(n, 5e-324),
            "below_one": np.full(n, 1 - 2**-53),
            "edges": np.resize(np.linspace(0, 1, 11), n)}[value]
    return {"y_true": d["y_true"], "y_prob": prob, "sensitive_features": d["groups"]}


CASES = [
    Case(metrics.demographic_parity_difference, lambda n, v: {**xy(n, v), "method": v},
         "method", METHODS, gap_check(["selection_rate"])),
    Case(metrics.equalized_odds_difference,
         lambda n, v: {**xy(n, v), "method": v[0], "agg": v[1]}, "agg",
         st.tuples(METHODS, st.sampled_from(["worst_case", "mean"])), eo_check),
    Case(metrics.equalized_odds_sum, lambda n, v: {**xy(n, v), "method": v}, "method",
         METHODS, gap_check(["true_positive_rate", "false_positive_rate"], sum)),
    Case(metrics.equal_opportunity_difference, lambda n, v: {**xy(n, v), "method": v},
         "method", METHODS, gap_check(["true_positive_rate"])),
    Case(metrics.laftr_equal_opportunity_difference, lambda n, v: {**xy(n, v), "method": v},
         "method", METHODS, gap_check(["false_positive_rate"])),
    Case(metrics.group_table,
         lambda n, v: {**xy(n, v), "y_prob": dataset(n)["y_prob"]}, "sensitive_features",
         st.just(None), table_check),
    *[Case(getattr(metrics, which),
           lambda n, v: {"y_true": dataset(n)["y_true"], "y_pred": dataset(n)["y_pred"],
                         "pos_label": v},
           "pos_label", st.sampled_from([0, 1]), rate_check(which))
      for which in ("selection_rate", "true_positive_rate", "false_positive_rate",
                    "false_negative_rate", "true_negative_rate", "positive_predictive_value")],
    Case(metrics.calibration_by_group, lambda n, v: {**scored(n, v[0]), "n_bins": v[1]},
         "n_bins", st.tuples(SCORES, st.sampled_from([1, 10, metrics.MAX_BINS])),
         calibration_table_check),
    Case(metrics.calibration_within_groups_error,
         lambda n, v: {**scored(n, v[0]), "n_bins": v[1]}, "n_bins",
         st.tuples(SCORES, st.sampled_from([1, 10, metrics.MAX_BINS])), ece_check),
    Case(metrics.zemel_accuracy,
         lambda n, v: {k: scored(n, v)[k] for k in ("y_true", "y_prob")}, "y_prob", SCORES,
         zemel_accuracy_check),
    Case(metrics.zemel_discrimination,
         lambda n, v: {k: scored(n, v)[k] for k in ("y_prob", "sensitive_features")},
         "y_prob", SCORES, zemel_discrimination_check),
]


@pytest.mark.parametrize("case", CASES, ids=[c.func.__name__ for c in CASES])
def test_extreme_data(case):
    @settings(max_examples=case.examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(name=st.sampled_from(case.names), value=case.values)
    def run(name, value):
        kwargs = case.build(name, value)
        assert_extreme_ok(case.func, kwargs, case.arg,
                          check=lambda out: case.check(out, kwargs, name))

    run()


def test_every_data_set_is_drawn_for_the_gaps():
    # the examples above are drawn; make sure each extreme data set is met at least once
    for name in NAMES:
        kw = xy(name, None)
        assert gap_check(["selection_rate"])(
            metrics.demographic_parity_difference(**kw), {}, name)
        assert eo_check(metrics.equalized_odds_difference(**kw), {}, name)
        assert table_check(metrics.group_table(**kw, y_prob=dataset(name)["y_prob"]), {}, name)


# ------------------------------------------------------------- known exact answers
def test_one_prediction_for_everybody_has_no_gap():
    for name in ("all_ones", "all_zeros"):
        kw = xy(name, None)
        for f in (metrics.demographic_parity_difference, metrics.equalized_odds_difference,
                  metrics.equalized_odds_sum, metrics.equal_opportunity_difference,
                  metrics.laftr_equal_opportunity_difference):
            assert f(**kw) == 0.0
    t = metrics.group_table(**xy("all_zeros", None))
    assert t["positive_predictive_value"].isna().all()
    assert (metrics.group_table(**xy("all_ones", None))["positive_predictive_value"]
            == reference("all_ones")["base_rate"].to_numpy()).all()
    with pytest.raises(ParameterError, match="y_pred"):
        metrics.positive_predictive_value(**{k: v for k, v in xy("all_zeros", None).items()
                                             if k != "sensitive_features"})


def test_many_groups_of_two():
    kw = xy("many_groups", None)
    t = metrics.group_table(**kw)
    assert len(t) == 5_000 and (t["count"] == 2).all()
    # each group has one positive and one negative: rates are 0 or 1
    assert metrics.equal_opportunity_difference(**kw) == 1.0
    assert metrics.zemel_discrimination(np.tile([0.0, 1.0], 5_000),
                                        sensitive_features=kw["sensitive_features"]) == 0.0


def test_consistency_is_scale_free_and_exact_at_the_ends():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    y = rng.integers(0, 2, 60)
    base = metrics.consistency_score(X, y, n_neighbors=4)

    @settings(max_examples=8, deadline=None, database=None)
    @given(scale=st.one_of(TINY_FLOATS, st.sampled_from([1e150, 1e300, 1.7976931348623157e308])))
    def run(scale):
        Xs = X / np.abs(X).max() * scale
        out = assert_extreme_ok(metrics.consistency_score, {"X": Xs, "y_pred": y,
                                                            "n_neighbors": 4}, "X")
        if out is not None and np.unique(Xs, axis=0).shape[0] == 60:   # no rows collapsed
            assert out == pytest.approx(base, abs=1e-12)

    run()
    # all others as neighbours: 1 − mean |ŷ_n − mean of the other ŷ|
    others = (y.sum() - y) / 59
    assert metrics.consistency_score(X, y, n_neighbors=59) == pytest.approx(
        1 - np.mean(np.abs(y - others)), abs=1e-12)
    # the largest k allowed
    Xb = rng.standard_normal((metrics.MAX_NEIGHBORS + 1, 2))
    yb = rng.random(metrics.MAX_NEIGHBORS + 1)
    out = metrics.consistency_score(Xb, yb, n_neighbors=metrics.MAX_NEIGHBORS)
    assert out == pytest.approx(1 - np.mean(np.abs(yb - (yb.sum() - yb) / (yb.size - 1))))
    # subnormal predictions: nearly constant, so nearly perfectly consistent
    assert metrics.consistency_score(X, np.full(60, 5e-324), n_neighbors=4) == 1.0
    # identical rows everywhere: every other row is an (exact-duplicate) neighbour
    assert metrics.consistency_score(np.zeros((10, 2)), [1] * 10, n_neighbors=9) == 1.0


def test_row_limits_are_enforced_cheaply():
    too_many = np.zeros(metrics.MAX_ROWS + 1, dtype=bool)
    with pytest.raises(ParameterError, match="y_true"):
        metrics.selection_rate(too_many, too_many)
    X = np.zeros((metrics.MAX_NEIGHBOUR_ROWS + 1, 1))
    with pytest.raises(ParameterError, match=r"\bX\b"):
        metrics.consistency_score(X, np.zeros(X.shape[0]))


# ------------------------------------------------------------------------ coverage
def test_every_public_function_is_in_the_table():
    found = {name for name, obj in vars(metrics).items()
             if not name.startswith("_") and inspect.isfunction(obj)
             and obj.__module__ == metrics.__name__}
    listed = {c.func.__name__ for c in CASES} | {"consistency_score"}   # its own test above
    assert len(found) >= 17
    assert found == listed, (sorted(found - listed), sorted(listed - found))
