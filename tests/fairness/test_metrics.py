"""Tests of ``dpteach.fairness.metrics``: exact values, fairlearn cross-checks, bad input.

* the issue's test vector and small hand-worked cases give their exact values;
* hypothesis draws random labels, predictions and groups (2–4 groups, int or string labels)
  and checks every gap and rate against fairlearn 0.15 (``demographic_parity_difference``,
  ``equalized_odds_difference`` in both ``agg`` and both ``method``\\ s, ...), the per-group
  table against fairlearn's ``MetricFrame``, the calibration table against scikit-learn's
  ``calibration_curve``, and ``consistency_score`` against a brute-force neighbour search;
* the bad inputs of the issue (a group with one member or one class, labels that are not
  binary, mismatched lengths, NaN, ...) raise ``ParameterError``/``TypeError`` naming the
  argument (``_props.call_rejects``), never a NaN gap.
"""

from __future__ import annotations

import functools
import math

import fairlearn.metrics as fl
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.calibration import calibration_curve
from sklearn.metrics import accuracy_score, precision_score

from dpteach._validation import ParameterError
from dpteach.fairness import metrics as m

# The issue's test vector.
A = [0] * 8 + [1] * 8
Y = [1, 1, 1, 1, 0, 0, 0, 0] * 2
P = [1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0]
GAPS = (m.demographic_parity_difference, m.equalized_odds_difference, m.equalized_odds_sum,
        m.equal_opportunity_difference, m.laftr_equal_opportunity_difference)
RATES = (m.selection_rate, m.true_positive_rate, m.false_positive_rate,
         m.false_negative_rate, m.true_negative_rate, m.positive_predictive_value)
FAST = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))


# ------------------------------------------------------------------ exact values
def test_issue_test_vector_exact():
    kw = {"sensitive_features": A}
    assert m.demographic_parity_difference(Y, P, **kw) == 0.375
    assert m.equalized_odds_difference(Y, P, **kw) == 0.5
    assert m.equalized_odds_difference(Y, P, agg="worst_case", **kw) == 0.5
    assert m.equalized_odds_difference(Y, P, agg="mean", **kw) == 0.375
    assert m.equalized_odds_sum(Y, P, **kw) == 0.75
    assert m.equal_opportunity_difference(Y, P, **kw) == 0.5
    # LAFTR's ΔEOpp conditions on Y = 0: FPR 0 (group 0) vs 1/4 (group 1)
    assert m.laftr_equal_opportunity_difference(Y, P, **kw) == 0.25


def test_issue_test_vector_matches_fairlearn():
    kw = {"sensitive_features": A}
    assert fl.demographic_parity_difference(Y, P, **kw) == 0.375
    assert fl.equalized_odds_difference(Y, P, **kw) == 0.5
    assert fl.equalized_odds_difference(Y, P, agg="mean", **kw) == 0.375
    assert fl.equal_opportunity_difference(Y, P, **kw) == 0.5
    assert fl.false_positive_rate_difference(Y, P, **kw) == 0.25


def test_group_table_of_the_test_vector():
    t = m.group_table(Y, P, sensitive_features=A)
    assert list(t.index) == [0, 1] and t.index.name == "group"
    assert list(t.columns) == ["count", "base_rate", "selection_rate", "true_positive_rate",
                               "false_positive_rate", "false_negative_rate",
                               "positive_predictive_value", "accuracy"]
    expected = pd.DataFrame({
        "count": [8, 8], "base_rate": [0.5, 0.5], "selection_rate": [0.25, 0.625],
        "true_positive_rate": [0.5, 1.0], "false_positive_rate": [0.0, 0.25],
        "false_negative_rate": [0.5, 0.0], "positive_predictive_value": [1.0, 0.8],
        "accuracy": [0.75, 0.875]}, index=pd.Index([0, 1], name="group"))
    pd.testing.assert_frame_equal(t, expected)
    assert t["count"].dtype == np.int64
    t2 = m.group_table(Y, P, sensitive_features=A, y_prob=np.linspace(0, 1, 16))
    assert t2["mean_score"].tolist() == pytest.approx([7 / 30, 23 / 30])


def test_scalar_rates_by_hand():
    y = [1, 1, 1, 0, 0, 0, 0, 1]
    p = [1, 0, 1, 1, 0, 0, 0, 0]
    # TP = 2, FN = 2, FP = 1, TN = 3
    assert m.selection_rate(y, p) == 3 / 8
    assert m.selection_rate(y, p, pos_label=0) == 5 / 8
    assert m.true_positive_rate(y, p) == 0.5
    assert m.false_negative_rate(y, p) == 0.5
    assert m.false_positive_rate(y, p) == 0.25
    assert m.true_negative_rate(y, p) == 0.75
    assert m.positive_predictive_value(y, p) == 2 / 3
    # pos_label=0 swaps the roles of the classes
    assert m.true_positive_rate(y, p, pos_label=0) == 0.75
    assert m.false_positive_rate(y, p, pos_label=0) == 0.5
    assert m.positive_predictive_value(y, p, pos_label=0) == 3 / 5
    # bools and 0.0/1.0 floats are binary labels too
    assert m.true_positive_rate(np.array(y, bool), np.array(p, float)) == 0.5


def test_three_groups_and_to_overall_by_hand():
    # selection rates: a 1/2, b 1/4, c 1 → between groups 3/4; overall 7/12
    groups = ["a"] * 4 + ["b"] * 4 + ["c"] * 4
    y_pred = [1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1]
    y_true = [1, 0] * 6
    kw = {"sensitive_features": groups}
    assert m.demographic_parity_difference(y_true, y_pred, **kw) == 0.75
    to_overall = m.demographic_parity_difference(y_true, y_pred, method="to_overall", **kw)
    assert to_overall == pytest.approx(max(abs(r - 7 / 12) for r in (0.5, 0.25, 1.0)))
    for method in ("between_groups", "to_overall"):
        assert to_overall == pytest.approx(fl.demographic_parity_difference(
            y_true, y_pred, method="to_overall", **kw))
        assert m.equalized_odds_sum(y_true, y_pred, method=method, **kw) == pytest.approx(
            fl.true_positive_rate_difference(y_true, y_pred, method=method, **kw)
            + fl.false_positive_rate_difference(y_true, y_pred, method=method, **kw))


def test_results_are_python_floats():
    kw = {"sensitive_features": A}
    for f in GAPS:
        assert type(f(Y, P, **kw)) is float
    for f in RATES:
        assert type(f(Y, P)) is float
    prob = np.linspace(0, 1, 16)
    assert type(m.calibration_within_groups_error(Y, prob, **kw)) is float
    assert type(m.zemel_accuracy(Y, prob)) is float
    assert type(m.zemel_discrimination(prob, **kw)) is float
    assert type(m.consistency_score(np.arange(16.0)[:, None], P)) is float


def test_group_labels_of_every_kind_give_the_same_gaps():
    expected = m.equalized_odds_sum(Y, P, sensitive_features=A)
    for groups in (np.array(A, bool), np.array(A, float), ["F"] * 8 + ["M"] * 8,
                   np.array(["F"] * 8 + ["M"] * 8, dtype=object),
                   pd.Series(["F"] * 8 + ["M"] * 8, dtype="category"),
                   pd.Series(["F"] * 8 + ["M"] * 8, dtype="string"),
                   [b"F"] * 8 + [b"M"] * 8, [2**70] * 8 + [-(2**70)] * 8):
        assert m.equalized_odds_sum(Y, P, sensitive_features=groups) == expected
    t = m.group_table(Y, P, sensitive_features=["M"] * 8 + ["F"] * 8)
    assert list(t.index) == ["F", "M"]                     # sorted like MetricFrame
    assert t.loc["M", "selection_rate"] == 0.25


def test_ppv_column_is_nan_only_where_nobody_is_predicted_positive():
    p = [0] * 8 + P[8:]
    t = m.group_table(Y, p, sensitive_features=A)
    assert math.isnan(t.loc[0, "positive_predictive_value"])
    assert t.loc[1, "positive_predictive_value"] == 0.8
    assert not t.drop(columns="positive_predictive_value").isna().any().any()
    with pytest.raises(ParameterError, match="y_pred"):
        m.positive_predictive_value(Y, [0] * 16)


# ------------------------------------------------------ cross-checks against fairlearn
@st.composite
def grouped(draw, *, both_classes=True, max_groups=4):
    """(y_true, y_pred, groups): 2–``max_groups`` groups of ≥ 2 (≥ 4) rows, shuffled."""
    n_groups = draw(st.integers(2, max_groups))
    strings = draw(st.booleans())
    y_true, y_pred, groups = [], [], []
    for g in range(n_groups):
        size = draw(st.integers(4 if both_classes else 2, 12))
        yt = draw(st.lists(st.integers(0, 1), min_size=size, max_size=size))
        if both_classes:
            yt[0], yt[1] = 1, 0
        y_true += yt
        y_pred += draw(st.lists(st.integers(0, 1), min_size=size, max_size=size))
        groups += [f"g{g}" if strings else 10 * g - 7] * size
    order = draw(st.permutations(range(len(y_true))))
    pick = lambda v: np.array(v, dtype=object if strings and v is groups else None)[order]
    return pick(y_true), pick(y_pred), pick(groups)


@FAST
@given(data=grouped(), method=st.sampled_from(["between_groups", "to_overall"]))
def test_gaps_equal_fairlearns(data, method):
    y, p, a = data
    kw = {"sensitive_features": a, "method": method}
    assert m.demographic_parity_difference(y, p, **kw) == pytest.approx(
        fl.demographic_parity_difference(y, p, **kw), abs=1e-12)
    for agg in ("worst_case", "mean"):
        assert m.equalized_odds_difference(y, p, agg=agg, **kw) == pytest.approx(
            fl.equalized_odds_difference(y, p, agg=agg, **kw), abs=1e-12)
    assert m.equal_opportunity_difference(y, p, **kw) == pytest.approx(
        fl.equal_opportunity_difference(y, p, **kw), abs=1e-12)
    d_fpr = fl.false_positive_rate_difference(y, p, **kw)
    assert m.laftr_equal_opportunity_difference(y, p, **kw) == pytest.approx(d_fpr, abs=1e-12)
    assert m.equalized_odds_sum(y, p, **kw) == pytest.approx(
        fl.true_positive_rate_difference(y, p, **kw) + d_fpr, abs=1e-12)
    assert m.equalized_odds_sum(y, p, **kw) == pytest.approx(
        2 * m.equalized_odds_difference(y, p, agg="mean", **kw), abs=1e-12)


@FAST
@given(data=grouped())
def test_rates_equal_fairlearns(data):
    y, p, _ = data
    assert m.selection_rate(y, p) == pytest.approx(fl.selection_rate(y, p), abs=1e-12)
    assert m.selection_rate(y, p, pos_label=0) == pytest.approx(
        fl.selection_rate(y, p, pos_label=0), abs=1e-12)
    for ours, theirs in ((m.true_positive_rate, fl.true_positive_rate),
                         (m.false_positive_rate, fl.false_positive_rate),
                         (m.false_negative_rate, fl.false_negative_rate),
                         (m.true_negative_rate, fl.true_negative_rate)):
        assert ours(y, p) == pytest.approx(theirs(y, p), abs=1e-12)
    assert m.true_positive_rate(y, p, pos_label=0) == pytest.approx(
        m.true_negative_rate(y, p), abs=1e-12)
    if p.any():
        assert m.positive_predictive_value(y, p) == pytest.approx(precision_score(y, p))


def _metric_frame(y, p, a):
    return fl.MetricFrame(
        metrics={"count": fl.count,
                 "base_rate": lambda yt, yp: float(np.mean(yt)),
                 "selection_rate": fl.selection_rate,
                 "true_positive_rate": fl.true_positive_rate,
                 "false_positive_rate": fl.false_positive_rate,
                 "false_negative_rate": fl.false_negative_rate,
                 "positive_predictive_value": functools.partial(precision_score,
                                                                zero_division=np.nan),
                 "accuracy": accuracy_score},
        y_true=y, y_pred=p, sensitive_features=a)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=grouped())
def test_group_table_equals_metric_frame_by_group(data):
    y, p, a = data
    ours = m.group_table(y, p, sensitive_features=a)
    theirs = _metric_frame(y, p, a).by_group
    np.testing.assert_array_equal(ours.index.to_numpy(), theirs.index.to_numpy())
    assert list(ours.columns) == list(theirs.columns)
    np.testing.assert_allclose(ours.to_numpy(float), theirs.to_numpy(float), atol=1e-12)


@FAST
@given(data=grouped(both_classes=False), method=st.sampled_from(["between_groups",
                                                                   "to_overall"]))
def test_dp_gap_is_the_metric_frame_difference_of_selection_rates(data, method):
    # what the notebook shows students: MetricFrame(metrics=selection_rate).difference()
    y, p, a = data
    frame = fl.MetricFrame(metrics=fl.selection_rate, y_true=y, y_pred=p, sensitive_features=a)
    ours = m.demographic_parity_difference(y, p, sensitive_features=a, method=method)
    assert ours == pytest.approx(frame.difference(method=method), abs=1e-12)
    rates = frame.by_group.to_numpy(float)
    assert ours == pytest.approx(rates.max() - rates.min() if method == "between_groups"
                                 else np.abs(rates - frame.overall).max(), abs=1e-12)


# ------------------------------------------------------------------------ calibration
@FAST
@given(data=grouped(both_classes=False), n_bins=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_calibration_table_equals_sklearn_per_group(data, n_bins, seed):
    y, _, a = data
    rng = np.random.default_rng(seed)
    edges = np.linspace(0, 1, n_bins + 1)             # values on the bin edges test the sides
    prob = np.where(rng.random(y.size) < 0.3, rng.choice(edges, y.size), rng.random(y.size))
    table = m.calibration_by_group(y, prob, sensitive_features=a, n_bins=n_bins)
    ece = []
    for g in np.unique(a):
        rows = table[table["group"] == g]
        sel = a == g
        prob_true, prob_pred = calibration_curve(y[sel], prob[sel], n_bins=n_bins)
        np.testing.assert_allclose(rows["observed_rate"], prob_true, atol=1e-12)
        np.testing.assert_allclose(rows["mean_predicted"], prob_pred, atol=1e-12)
        assert rows["count"].sum() == sel.sum()
        assert np.all(rows["bin_low"] <= rows["mean_predicted"] + 1e-12)
        assert np.all(rows["mean_predicted"] <= rows["bin_high"] + 1e-12)
        ece.append(np.sum(rows["count"] * np.abs(rows["observed_rate"] - rows["mean_predicted"]))
                   / sel.sum())
    assert not table.isna().any().any()
    assert m.calibration_within_groups_error(y, prob, sensitive_features=a, n_bins=n_bins) \
        == pytest.approx(max(ece), abs=1e-12)


def test_calibration_by_hand_and_the_kleinberg_chouldechova_conflict():
    # Both groups calibrated (score 0.8 → 80 % positive, 0.2 → 20 %), base rates 0.5 and
    # 0.32: thresholding at 0.5 cannot give equal error rates.
    y = [1] * 8 + [0] * 2 + [1] * 2 + [0] * 8 + [1] * 4 + [0] * 1 + [1] * 4 + [0] * 16
    s = [0.8] * 10 + [0.2] * 10 + [0.8] * 5 + [0.2] * 20
    a = ["a"] * 20 + ["b"] * 25
    assert m.calibration_within_groups_error(y, s, sensitive_features=a) == pytest.approx(
        0, abs=1e-12)
    t = m.calibration_by_group(y, s, sensitive_features=a, n_bins=5)
    # 0.2 and 0.8 lie on bin edges: each goes to the bin below (scikit-learn's convention)
    assert t[["group", "bin", "count"]].values.tolist() == [["a", 0, 10], ["a", 3, 10],
                                                            ["b", 0, 20], ["b", 3, 5]]
    assert t["observed_rate"].tolist() == pytest.approx([0.2, 0.8, 0.2, 0.8])
    pred = (np.array(s) >= 0.5).astype(int)
    table = m.group_table(y, pred, sensitive_features=a)
    assert table["base_rate"].tolist() == [0.5, 0.32]
    assert table["true_positive_rate"].tolist() == [0.8, 0.5]
    assert table["false_positive_rate"].tolist() == pytest.approx([0.2, 1 / 17])
    assert m.equalized_odds_difference(y, pred, sensitive_features=a) == pytest.approx(0.3)
    # a miscalibrated group: scores 0.9 with half positive → ECE 0.4
    y2 = [1, 0] * 4 + [1, 0] * 4
    s2 = [0.9] * 8 + [0.5] * 8
    assert m.calibration_within_groups_error(y2, s2, sensitive_features=A) == pytest.approx(0.4)


def test_calibration_bins_follow_sklearn_at_the_edges():
    # a score exactly on an inner edge belongs to the bin below it; 0 and 1 to the end bins
    y = [0, 1, 0, 1, 0, 1]
    s = [0.0, 0.5, 1.0, 0.0, 0.5, 1.0]
    t = m.calibration_by_group(y, s, sensitive_features=[0, 0, 0, 1, 1, 1], n_bins=2)
    assert t["bin"].tolist() == [0, 1, 0, 1]
    assert t["count"].tolist() == [2, 1, 2, 1]
    assert t[["bin_low", "bin_high"]].values.tolist() == [[0, 0.5], [0.5, 1]] * 2


# ---------------------------------------------------------------- Zemel et al. (2013)
def test_zemel_accuracy_and_discrimination_by_hand():
    assert m.zemel_accuracy([1, 0, 1, 0], [0.9, 0.2, 0.6, 0.0]) == pytest.approx(
        1 - (0.1 + 0.2 + 0.4 + 0.0) / 4)
    assert m.zemel_accuracy(Y, P) == accuracy_score(Y, P)
    assert m.zemel_discrimination([0.9, 0.7, 0.2, 0.4], sensitive_features=[1, 1, 0, 0]) \
        == pytest.approx(0.5)
    assert m.zemel_discrimination([0.9, 0.7, 0.2, 0.4, 0.5, 0.5],
                                  sensitive_features=[1, 1, 0, 0, 2, 2]) == pytest.approx(0.5)


@FAST
@given(data=grouped(both_classes=False))
def test_zemel_discrimination_of_hard_predictions_is_the_dp_gap(data):
    y, p, a = data
    assert m.zemel_discrimination(p, sensitive_features=a) == pytest.approx(
        m.demographic_parity_difference(y, p, sensitive_features=a), abs=1e-12)


def _brute_consistency(X, y, k):
    d = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    np.fill_diagonal(d, np.inf)
    nn = np.argsort(d, axis=1, kind="stable")[:, :k]
    return 1 - np.mean(np.abs(y - y[nn].mean(axis=1)))


@FAST
@given(n=st.integers(2, 30), d=st.integers(1, 3), seed=st.integers(0, 2**32 - 1),
       k=st.integers(1, 29), soft=st.booleans())
def test_consistency_equals_brute_force(n, d, seed, k, soft):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))                       # no tied distances (a.s.)
    y = rng.random(n) if soft else rng.integers(0, 2, n)
    k = min(k, n - 1)
    assert m.consistency_score(X, y, n_neighbors=k) == pytest.approx(
        _brute_consistency(X, y, k), abs=1e-12)
    if not soft:                         # for 0/1 predictions: the mean pairwise disagreement
        dist = ((X[:, None] - X[None]) ** 2).sum(axis=2)
        np.fill_diagonal(dist, np.inf)
        nn = np.argsort(dist, axis=1)[:, :k]
        assert m.consistency_score(X, y, n_neighbors=k) == pytest.approx(
            1 - np.mean(np.abs(y[:, None] - y[nn])), abs=1e-12)


def test_consistency_by_hand_excludes_self_and_counts_duplicates():
    # two rows: each one's only neighbour is the other
    assert m.consistency_score([[0.0], [1.0]], [0, 1], n_neighbors=1) == 0.0
    assert m.consistency_score([[0.0], [1.0]], [1, 1], n_neighbors=1) == 1.0
    # rows 0 and 1 are duplicates: each is the other's neighbour (not its own)
    X = [[0.0], [0.0], [5.0], [5.1]]
    assert m.consistency_score(X, [1, 0, 1, 1], n_neighbors=1) == 0.5
    # a constant predictor is perfectly consistent
    assert m.consistency_score(np.random.default_rng(0).random((20, 3)), [0.3] * 20) == 1.0


# ------------------------------------------------------------------------------ speed
def _python_calls(f, *args, **kwargs) -> int:
    """How many Python-level function calls ``f(*args, **kwargs)`` makes (work, not time)."""
    import sys

    count = 0

    def profile(frame, event, arg):
        nonlocal count
        count += event == "call"

    sys.setprofile(profile)
    try:
        f(*args, **kwargs)
    finally:
        sys.setprofile(None)
    return count


def test_app_calls_do_work_independent_of_the_number_of_rows():
    # the app page calls these on every slider move on 15,060 rows: each must be vectorised,
    # its Python-level work the same for 150 rows as for 15,060 (a loop over rows would make
    # it grow a hundredfold). Counted, not timed: no wall clock decides.
    rng = np.random.default_rng(0)
    for f in (m.group_table, *GAPS):
        calls = []
        for n in (150, 15_060):
            y, p, a = rng.integers(0, 2, n), rng.integers(0, 2, n), rng.integers(0, 2, n)
            calls.append(_python_calls(f, y, p, sensitive_features=a))
        assert calls[1] <= calls[0] + 5, (f.__name__, calls)


def test_the_work_count_sees_a_loop_over_rows():
    # the check can fail: a gap computed row by row in Python is caught
    def looped(y_true, y_pred, *, sensitive_features):
        return sum(float(v) for v in y_pred) / len(y_pred)

    small = _python_calls(looped, [0] * 150, [1] * 150, sensitive_features=[0] * 150)
    large = _python_calls(looped, [0] * 15_060, [1] * 15_060, sensitive_features=[0] * 15_060)
    assert large > small + 5


# ------------------------------------------------- rules between arguments, clear messages
def test_the_issues_bad_inputs_give_clear_messages():
    kw = {"y_true": Y, "y_pred": P}
    with pytest.raises(ParameterError,
                       match=r"sensitive_features \(members of group 1\) must be ≥ 2; got .*=1"):
        m.demographic_parity_difference(**kw, sensitive_features=[0] * 15 + [1])
    with pytest.raises(ParameterError, match=r"sensitive_features must be labels of at least 2 "
                                             r"groups; got .*'1 groups'"):
        m.demographic_parity_difference(**kw, sensitive_features=[0] * 16)
    # group 1 has no positive: its TPR is undefined (fairlearn answers a number here)
    y = Y[:8] + [0] * 8
    with pytest.raises(ParameterError, match=r"sensitive_features \(rows with y_true == 1 in "
                                             r"group 1\) must be ≥ 1 for the true positive rate"):
        m.equal_opportunity_difference(y, P, sensitive_features=A)
    with pytest.raises(ParameterError, match=r"sensitive_features \(rows with y_true == 0 in "
                                             r"group 1\) must be ≥ 1 for the false positive rate"):
        m.laftr_equal_opportunity_difference(Y[:8] + [1] * 8, P, sensitive_features=A)
    for f in (m.equalized_odds_difference, m.equalized_odds_sum, m.group_table):
        with pytest.raises(ParameterError, match=r"y_true == . in group 1\) must be ≥ 1"):
            f(y, P, sensitive_features=A)
    # ... but the DP gap does not need both classes
    assert m.demographic_parity_difference(y, P, sensitive_features=A) == 0.375
    with pytest.raises(ParameterError, match=r"y_pred must be a 1-D array of 0/1 labels"):
        m.demographic_parity_difference(Y, P[:3] + [2] + P[4:], sensitive_features=A)
    with pytest.raises(ParameterError, match=r"'y_pred': 15, 'y_true': 16"):
        m.equalized_odds_difference(Y, P[:15], sensitive_features=A)
    with pytest.raises(ParameterError, match=r"'sensitive_features': 17"):
        m.equalized_odds_difference(Y, P, sensitive_features=A + [0])
    with pytest.raises(ParameterError, match=r"sensitive_features must be .*finite floats"):
        m.group_table(Y, P, sensitive_features=[0.0] * 8 + [math.nan] * 8)
    with pytest.raises(ParameterError, match=r"y_true must be a 1-D array of 0/1"):
        m.equalized_odds_sum(Y[:15] + [math.nan], P, sensitive_features=A)
    with pytest.raises(ParameterError, match=r"sensitive_features.*all of one kind"):
        m.group_table(Y, P, sensitive_features=["a"] * 8 + [1] * 8)
    with pytest.raises(ParameterError, match=r"y_true \(entries 1\) must be ≥ 1 for the "
                                             r"true_positive_rate \(pos_label=1\)"):
        m.true_positive_rate([0, 0], [0, 1])
    with pytest.raises(ParameterError, match="n_neighbors"):
        m.consistency_score(np.arange(16.0)[:, None], P, n_neighbors=16)


# ----------------------------------------------- exact answers at the domain's edges
def test_one_prediction_for_everybody_has_no_gap():
    for pred in ([1] * 16, [0] * 16):
        for f in GAPS:
            assert f(Y, pred, sensitive_features=A) == 0.0
    assert m.group_table(Y, [0] * 16, sensitive_features=A)["positive_predictive_value"] \
        .isna().all()
    with pytest.raises(ParameterError, match="y_pred"):
        m.positive_predictive_value(Y, [0] * 16)


def test_many_groups_of_two():
    groups = np.repeat(np.arange(5_000), 2)
    y = np.tile([0, 1], 5_000)
    t = m.group_table(y, y, sensitive_features=groups)
    assert len(t) == 5_000 and (t["count"] == 2).all()
    assert m.equal_opportunity_difference(y, 1 - y, sensitive_features=groups) == 0.0
    assert m.zemel_discrimination(np.tile([0.0, 1.0], 5_000), sensitive_features=groups) == 0.0


def test_consistency_exact_at_the_ends():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((60, 3)), rng.integers(0, 2, 60)
    # all others as neighbours: 1 − mean |ŷ_n − mean of the other ŷ|
    others = (y.sum() - y) / 59
    assert m.consistency_score(X, y, n_neighbors=59) == pytest.approx(
        1 - np.mean(np.abs(y - others)), abs=1e-12)
    # the largest k allowed
    Xb, yb = rng.standard_normal((m.MAX_NEIGHBORS + 1, 2)), rng.random(m.MAX_NEIGHBORS + 1)
    assert m.consistency_score(Xb, yb, n_neighbors=m.MAX_NEIGHBORS) == pytest.approx(
        1 - np.mean(np.abs(yb - (yb.sum() - yb) / (yb.size - 1))))
    # identical rows everywhere: every other row is an (exact-duplicate) neighbour
    assert m.consistency_score(np.zeros((10, 2)), [1] * 10, n_neighbors=9) == 1.0


def test_row_limits():
    too_many = np.zeros(m.MAX_ROWS + 1, dtype=bool)
    with pytest.raises(ParameterError, match="y_true"):
        m.selection_rate(too_many, too_many)
    X = np.zeros((m.MAX_NEIGHBOUR_ROWS + 1, 1))
    with pytest.raises(ParameterError, match=r"^X must"):
        m.consistency_score(X, np.zeros(X.shape[0]))


def test_training_labels_need_both_classes():
    # BOTH_LABELS, declared by every learner's fit (and fair_transfer, the objective-
    # perturbation diagnostic): one class only is refused by the argument's name, with rows
    # that otherwise fit together
    from dpteach.fairness.dp_diagnostics import objective_perturbation_noise_by_group
    from dpteach.fairness.laftr import LAFTR
    from dpteach.fairness.lfr import LFR
    from dpteach.fairness.mmd import MMDRepresentation
    from dpteach.fairness.representation_eval import fair_transfer

    X, a = np.random.default_rng(0).uniform(size=(8, 2)), np.array([0, 1] * 4)
    fitted = MMDRepresentation(epochs=1, rng=0).fit(X, a, sensitive_features=a)
    calls = {"y": [lambda y: LFR(n_starts=1, max_iter=2).fit(X, y, sensitive_features=a),
                   lambda y: LAFTR(epochs=1).fit(X, y, sensitive_features=a),
                   lambda y: MMDRepresentation(epochs=1).fit(X, y, sensitive_features=a)],
             "y_train": [lambda y: fair_transfer(fitted, X, y, X, a, sensitive_features_test=a),
                         lambda y: objective_perturbation_noise_by_group(
                             X, y, X, sensitive_features=a, epsilon=1.0)]}
    for name, fits in calls.items():
        for fit in fits:
            for one_class in (np.zeros(8, dtype=int), np.ones(8, dtype=int)):
                with pytest.raises(ParameterError, match=rf"^{name} must be .*with both labels"):
                    fit(one_class)
