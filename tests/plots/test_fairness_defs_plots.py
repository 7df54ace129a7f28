"""The figures of notebooks 15 and 16 (dpteach.plots.fairness_defs): their numbers against the metrics.

The reliability diagram's points are :func:`dpteach.fairness.metrics.calibration_by_group`'s
(each group's mean score and observed rate per bin) and its title the largest expected
calibration error; the LFR trade-off draws the given sweep in order of A_z, with the
baseline and the selected model; every figure has its series keys and labels, and both
renderers draw it.
A hypothesis bad-input test attacks every public function (``_props.call_rejects``).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from _props import NON_FINITE_ARRAYS, NOT_NUMERIC, bad_int, call_rejects
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from dpteach._validation import ParameterError
from dpteach.fairness import metrics as M
from dpteach.plots import fairness_defs as FD
from dpteach.plots.figure import to_matplotlib, to_vega_lite

# 2 groups of 6 people; scores in three bins of width 1/3
Y = np.array([0, 1, 1, 0, 1, 0, 1, 0, 0, 0, 1, 0])
PROB = np.array([0.1, 0.2, 0.5, 0.6, 0.9, 0.95, 0.05, 0.3, 0.4, 0.5, 0.8, 0.7])
A = np.array([0] * 6 + [1] * 6)
CAL = dict(y_true=Y, y_prob=PROB, sensitive_features=A, n_bins=3)


def _lines(fig):
    return {ln.get_gid(): ln for ln in fig.axes[0].lines}


# ------------------------------------------------------------------ the numbers
def test_points_are_the_metrics_modules_calibration_table():
    data = FD.calibration_by_group_data(**CAL, group_names={0: "men", 1: "women"})
    table = M.calibration_by_group(Y, PROB, sensitive_features=A, n_bins=3)
    assert [s.key for s in data.series] == ["diagonal", "group-0", "group-0-points", "group-1",
                                            "group-1-points"]
    for i, label in enumerate((0, 1)):
        rows = table[table["group"] == label]
        line = data.series_by_key(f"group-{i}")
        np.testing.assert_array_equal(line.x, rows["mean_predicted"])
        np.testing.assert_array_equal(line.y, rows["observed_rate"])
        np.testing.assert_array_equal(data.series_by_key(f"group-{i}-points").y, line.y)
    # by hand, group 0 (scores .1 .2 | .5 .6 | .9 .95; labels 0 1 | 1 0 | 1 0)
    g0 = data.series_by_key("group-0")
    np.testing.assert_allclose(g0.x, [0.15, 0.55, 0.925])
    np.testing.assert_allclose(g0.y, [0.5, 0.5, 0.5])
    assert g0.label == "men (6 people)" and data.series_by_key("group-1").label.startswith("women")
    error = M.calibration_within_groups_error(Y, PROB, sensitive_features=A, n_bins=3)
    assert data.extra["error"] == error and f"{error:.3f}" in data.title
    assert "3 equal-width score bins" in data.title
    assert data.x_domain == data.y_domain == (0.0, 1.0)
    assert data.extra["names"] == {0: "men", 1: "women"}
    assert data.extra["table"].equals(table)


def test_a_calibrated_score_lies_on_the_diagonal():
    # labels drawn as Bernoulli(score): every bin's observed rate is near its mean score
    gen = np.random.default_rng(9)
    a = gen.integers(0, 2, 200_000)
    s = np.where(a == 1, gen.beta(1, 6, a.size), gen.beta(2, 3, a.size))
    y = (gen.random(a.size) < s).astype(int)
    data = FD.calibration_by_group_data(y, s, sensitive_features=a)
    assert data.extra["error"] < 0.01
    counts = data.extra["table"].groupby("group")["count"]
    for key, label in (("group-0", 0), ("group-1", 1)):
        line = data.series_by_key(key)
        n = counts.get_group(label).to_numpy()
        # a bin's positives have variance Σ s(1 − s) ≤ n·x(1 − x): within 5 standard errors
        assert np.all(np.abs(line.y - line.x) <= 5 * np.sqrt(line.x * (1 - line.x) / n))


def test_default_names_and_string_groups():
    data = FD.calibration_by_group_data(Y, PROB, sensitive_features=np.where(A == 1, "F", "M"))
    assert data.series_by_key("group-0").label.startswith("A = F")
    assert data.series_by_key("group-1").label.startswith("A = M")
    data = FD.calibration_by_group_data(Y, PROB, sensitive_features=A, group_names={1: "women"})
    assert data.series_by_key("group-0").label.startswith("A = 0")
    assert data.series_by_key("group-1").label.startswith("women")


def test_renderers():
    fig = FD.plot_calibration_by_group(**CAL, group_names={0: "men", 1: "women"})
    assert isinstance(fig, Figure)
    lines = _lines(fig)
    assert {"diagonal", "group-0", "group-1", "group-0-points", "group-1-points"} <= set(lines)
    np.testing.assert_array_equal(lines["diagonal"].get_xdata(), [0.0, 1.0])
    assert fig.axes[0].get_xlabel() == "mean score in the bin"
    import matplotlib.pyplot as plt

    fig2, ax = plt.subplots()
    assert FD.plot_calibration_by_group(**CAL, ax=ax) is fig2
    plt.close(fig2)
    spec = to_vega_lite(FD.calibration_by_group_data(**CAL))
    json.dumps(spec)
    assert to_matplotlib(FD.calibration_by_group_data(**CAL)).axes[0].get_ylabel() == \
        "observed rate of Y = 1 in the bin"


def test_too_many_groups_are_refused_by_name():
    n = FD.MAX_GROUPS + 1
    a = np.repeat(np.arange(n), 4)
    y = np.tile([0, 1, 0, 1], n)
    with pytest.raises(ParameterError, match="sensitive_features"):
        FD.calibration_by_group_data(y, np.full(a.size, 0.5), sensitive_features=a)
    a = np.repeat(np.arange(FD.MAX_GROUPS), 4)
    data = FD.calibration_by_group_data(np.tile([0, 1, 0, 1], FD.MAX_GROUPS),
                                        np.full(a.size, 0.5), sensitive_features=a)
    assert len(data.series) == 1 + 2 * FD.MAX_GROUPS


# ------------------------------------------------------------------ LFR trade-off
SWEEP = dict(Az=[10.0, 0.0, 1.0], y_acc=[0.70, 0.80, 0.78], y_discrim=[0.01, 0.20, 0.10])


def test_lfr_tradeoff_draws_the_sweep_in_order_of_az():
    data = FD.lfr_tradeoff_data(**SWEEP, baseline=(0.81, 0.19), selected=1.0)
    assert [s.key for s in data.series] == ["lfr", "lfr-points", "baseline", "selected"]
    line = data.series_by_key("lfr")
    np.testing.assert_array_equal(line.x, [0.20, 0.10, 0.01])      # A_z = 0, 1, 10
    np.testing.assert_array_equal(line.y, [0.80, 0.78, 0.70])
    assert line.label == "LFR, fairness weight Az from 0 to 10"
    base = data.series_by_key("baseline")
    assert (base.x.tolist(), base.y.tolist()) == ([0.19], [0.81])
    assert base.label == "unconstrained: yAcc 0.810, yDiscrim 0.190"
    sel = data.series_by_key("selected")
    assert (sel.x.tolist(), sel.y.tolist()) == ([0.10], [0.78]) and sel.label == "Az = 1"
    assert data.title.endswith("Az = 1: yAcc 0.780, yDiscrim 0.100")
    assert data.extra["order"].tolist() == [1, 2, 0] and data.extra["selected_index"] == 2
    assert data.x_domain == (0.0, pytest.approx(0.23))
    assert data.y_domain == (pytest.approx(0.68), pytest.approx(0.83))
    # without the optional parts
    data = FD.lfr_tradeoff_data(**SWEEP)
    assert [s.key for s in data.series] == ["lfr", "lfr-points"]
    assert data.extra["selected_index"] is None and "\n" not in data.title


def test_lfr_tradeoff_selected_must_be_a_swept_value():
    with pytest.raises(ParameterError, match="selected.*one of the A_z"):
        FD.lfr_tradeoff_data(**SWEEP, selected=2.0)
    data = FD.lfr_tradeoff_data(**SWEEP, selected=10.0 * (1 + 1e-12))     # rounding is fine
    assert data.extra["selected_index"] == 0
    data = FD.lfr_tradeoff_data(**SWEEP, selected=0)
    assert data.extra["selected_index"] == 1


def test_lfr_tradeoff_renderers_and_a_flat_sweep():
    fig = FD.plot_lfr_tradeoff(**SWEEP, baseline=(0.81, 0.19), selected=0.0)
    assert {"lfr", "lfr-points", "baseline", "selected"} <= set(_lines(fig))
    assert fig.axes[0].get_ylabel() == "yAcc: 1 − mean |y − ŷ|"
    json.dumps(to_vega_lite(FD.lfr_tradeoff_data(**SWEEP, selected=0.0)))
    data = FD.lfr_tradeoff_data([0.0], [1.0], [0.0])            # one point at the corner
    assert data.y_domain[1] - data.y_domain[0] >= 0.02 - 1e-12 and data.y_domain[1] == 1.0
    assert data.x_domain == (0.0, 0.01)


# ------------------------------------------------------------------ bad values
BAD_BINARY = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from(
    [[0, 1], np.full(12, 2), np.full(12, 0.5), np.ones((12, 1)), "yes", 7, [],
     np.r_[np.zeros(11), np.nan]]))
BAD_PROBS = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from(
    [[0.5], np.full(12, 1.5), np.full(12, -0.1), np.ones((12, 1)), "0.5", 0.5, [],
     np.r_[np.full(11, 0.5), np.nan]]))
BAD_GROUPS = st.sampled_from([[0, 1], np.zeros(12), np.r_[np.zeros(11), 1], np.ones((12, 1)),
                              np.r_[np.zeros(11), np.nan], None, "ab", 3])
BAD_NAMES = st.sampled_from([["men", "women"], "men", {0: 1}, {0: ""}, {0: None}, 3, (0, "men")])
NOT_AX = st.sampled_from([1, "ax", object(), [None], np.zeros(2), True, Figure()])
CASES = []
for f in (FD.calibration_by_group_data, FD.plot_calibration_by_group):
    CASES += [(f, CAL, "y_true", BAD_BINARY), (f, CAL, "y_prob", BAD_PROBS),
              (f, CAL, "sensitive_features", BAD_GROUPS),
              (f, CAL, "n_bins", bad_int(1, M.MAX_BINS)), (f, CAL, "group_names", BAD_NAMES)]
CASES.append((FD.plot_calibration_by_group, CAL, "ax", NOT_AX))
BAD_AZ = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from(
    [[-1.0, 0.0, 1.0], [True, False, True], [], np.ones((3, 1)), "abc", np.zeros(3) - 5e-324,
     np.arange(FD.MAX_SWEEP_POINTS + 1.0)]))
BAD_SCORES = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from(
    [[0.5, 0.5], [0.5, 0.5, 1.5], [-0.1, 0.5, 0.5], np.ones((3, 1)), [True, False, True], "x",
     0.5, [0.5] * 4]))
BAD_BASELINE = st.sampled_from([0.8, "0.8", (0.8,), (0.8, 0.1, 0.0), (1.5, 0.1), (0.8, -0.1),
                                (math.nan, 0.1), {"a": 1}, ("a", "b")])   # an array pair is a pair
BAD_SELECTED = st.sampled_from([2.0, -1.0, math.nan, math.inf, "1", [1.0], 1e-5, 1e300, True])
SW = dict(SWEEP, baseline=(0.81, 0.19), selected=1.0)
for f in (FD.lfr_tradeoff_data, FD.plot_lfr_tradeoff):
    CASES += [(f, SW, "Az", BAD_AZ), (f, SW, "y_acc", BAD_SCORES),
              (f, SW, "y_discrim", BAD_SCORES), (f, SW, "baseline", BAD_BASELINE),
              (f, SW, "selected", BAD_SELECTED)]
CASES.append((FD.plot_lfr_tradeoff, SW, "ax", NOT_AX))


AW = dict(loss=[0.15, 0.14], gap=[0.10, 0.11], bound=[0.2, 1.0],
          labels=["tied together", "separated"], scale=0.1)
BAD_AW_VALUES = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from(
    [[0.5], [0.5, 1.5], [-0.1, 0.5], np.ones((2, 1)), [True, False], "x", 0.5, [0.5] * 3]))
BAD_LABELS = st.sampled_from([[], "ab", ("a", ""), ["a", ""], ["a", 3], None, 3,
                              ["m"] * (FD.MAX_GROUPS + 1)])
BAD_SCALE = st.sampled_from([0.0, -1.0, math.nan, math.inf, "1", [1.0], None])
BAD_DATA_NAME = st.sampled_from([3, "", "  ", ["Adult"], b"Adult"])
for f in (FD.awareness_data, FD.plot_awareness):
    CASES += [(f, AW, "loss", BAD_AW_VALUES), (f, AW, "gap", BAD_AW_VALUES),
              (f, AW, "bound", BAD_AW_VALUES), (f, AW, "labels", BAD_LABELS),
              (f, AW, "scale", BAD_SCALE)]
CASES.append((FD.plot_awareness, AW, "ax", NOT_AX))
for f in (FD.lfr_tradeoff_data, FD.plot_lfr_tradeoff):
    CASES.append((f, SW, "data_name", BAD_DATA_NAME))


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0].__name__}-{c[2]}" for c in CASES])
def test_bad_values_are_refused_by_name(case):
    func, valid, arg, strategy = case

    @settings(max_examples=15, deadline=None, database=None)
    @given(bad=strategy)
    def run(bad):
        call_rejects(func, {**valid, arg: bad}, arg)

    run()


def test_valid_baseline_calls_answer():
    for func in (FD.calibration_by_group_data, FD.plot_calibration_by_group):
        assert func(**CAL) is not None
    for func in (FD.lfr_tradeoff_data, FD.plot_lfr_tradeoff):
        assert func(**SW) is not None
    assert math.isfinite(FD.calibration_by_group_data(**CAL).extra["error"])


# ------------------------------------------------------------------ awareness; data names

def test_awareness_draws_three_bars_per_metric_at_the_given_heights():
    data = FD.awareness_data(**AW)
    assert [s.key for s in data.series] == ["loss", "gap", "bound"]
    for key in ("loss", "gap", "bound"):
        bars = data.series_by_key(key)
        assert bars.kind == "bars"
        np.testing.assert_array_equal(bars.y, AW[key])
    # the three bars of a metric sit side by side around its tick, loss left, bound right
    np.testing.assert_allclose(data.series_by_key("loss").x, [-0.27, 0.73])
    np.testing.assert_allclose(data.series_by_key("bound").x, [0.27, 1.27])
    assert data.x_ticks == ((0.0, "tied together"), (1.0, "separated"))
    assert "s = 0.1" in data.title and data.extra["scale"] == 0.1
    assert data.y_domain == (0.0, 1.05)
    fig = FD.plot_awareness(**AW)
    assert isinstance(fig, Figure)
    json.dumps(to_vega_lite(data))


def test_lfr_tradeoff_names_its_data_set_in_the_title():
    data = FD.lfr_tradeoff_data(**SWEEP, selected=1.0, data_name="German credit")
    assert data.title.startswith("German credit: accuracy against discrimination\n")
    assert FD.lfr_tradeoff_data(**SWEEP).title.startswith("Learning fair representations")
