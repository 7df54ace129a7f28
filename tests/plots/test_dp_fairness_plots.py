"""The figure of notebook 11 (dpteach.plots.dp_fairness): per-group accuracy against ε.

The lines are the given means in order of ε, the bands mean ± sd clipped to [0, 1], the dashed
lines each group's non-private accuracy (left out where NaN), the selected ε a vertical rule;
fed from ``dp_impact.accuracy_curves`` of the shipped sweep, the figure shows its numbers.
Both renderers draw it. A hypothesis bad-input test attacks every public function
(``_props.call_rejects``).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from _props import NON_FINITE_ARRAYS, NOT_NUMERIC, call_rejects
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from dpteach.fairness import dp_impact as di
from dpteach.plots import dp_fairness as P
from dpteach.plots.figure import to_matplotlib, to_vega_lite
from dpteach.tables import load_dp_fairness_sweep

VALID = dict(epsilons=[1.0, 0.1, 10.0], mean=[[0.8, 0.7, 0.85], [0.6, 0.3, 0.65]],
             groups=["men", "women"], sd=[[0.01, 0.02, 0.0], [0.05, 0.4, 0.01]],
             nonprivate=[0.86, math.nan], selected=1.0)


def test_series_are_the_given_numbers_in_order_of_epsilon():
    data = P.group_accuracy_data(**VALID)
    assert [s.key for s in data.series] == ["group-0-band", "group-0", "group-0-nonprivate",
                                            "group-1-band", "group-1"]
    line = data.series_by_key("group-1")
    np.testing.assert_array_equal(line.x, [0.1, 1.0, 10.0])
    np.testing.assert_array_equal(line.y, [0.3, 0.6, 0.65])
    band = data.series_by_key("group-1-band")
    np.testing.assert_allclose(band.y, [0.0, 0.55, 0.64])            # 0.3 − 0.4 clipped at 0
    np.testing.assert_allclose(band.y2, [0.7, 0.65, 0.66])
    base = data.series_by_key("group-0-nonprivate")
    assert base.dash == "dashed" and base.y.tolist() == [0.86, 0.86]
    assert base.x.tolist() == [0.1, 10.0] and base.colour == data.series_by_key("group-0").colour
    assert data.rules[0].key == "selected" and data.rules[0].value == 1.0
    assert "ε = 1" in data.title and data.log_x
    assert data.series_by_key("group-0").label == "men" and data.extra["groups"] == ["men", "women"]
    lo, hi = data.y_domain
    assert 0 <= lo <= 0.0 + 1e-12 and hi == pytest.approx(0.88)


def test_optional_parts_are_left_out():
    data = P.group_accuracy_data(epsilons=[0.5], mean=[[0.9]], groups=["all"])
    assert [s.key for s in data.series] == ["group-0"] and data.rules == ()
    lo, hi = data.y_domain
    assert lo == pytest.approx(0.88) and hi == pytest.approx(0.92)
    assert data.title == "Test accuracy per group against ε (dashed: without privacy)"
    named = P.group_accuracy_data(**VALID, title="DP-SGD, by sex and income")
    assert named.title.split("\n")[:2] == ["DP-SGD, by sex and income", data.title]
    # the sweep's learners and groupings, each with its name in words
    assert set(P.LEARNER_NAMES) == {"dpsgd", "objective"}
    assert set(P.GROUPING_NAMES) == {"all", *di.GROUPINGS}
    assert not any("_" in name for name in (*P.LEARNER_NAMES.values(),
                                            *P.GROUPING_NAMES.values()))


def test_both_renderers_draw_the_shipped_sweep():
    summary = di.summarize_sweep(load_dp_fairness_sweep())
    cur = di.accuracy_curves(summary, method="dpsgd", grouping="sex_income")
    fig = P.plot_group_accuracy(cur["epsilons"], cur["mean"], groups=cur["groups"],
                                sd=cur["sd"], nonprivate=cur["nonprivate"], selected=1.0)
    assert isinstance(fig, Figure)
    lines = {ln.get_gid(): ln for ln in fig.axes[0].lines}
    np.testing.assert_array_equal(lines["group-3"].get_ydata(), cur["mean"][3])
    assert fig.axes[0].get_xscale() == "log"
    spec = to_vega_lite(P.group_accuracy_data(cur["epsilons"], cur["mean"], groups=cur["groups"]))
    json.dumps(spec)
    assert len(spec["layer"]) == 4
    ax = Figure().add_subplot()
    assert P.plot_group_accuracy(**VALID, ax=ax) is ax.figure
    to_matplotlib(P.group_accuracy_data(**VALID))


# ------------------------------------------------------------------ bad input
BAD_EPS = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from(
    [[0.0, 1.0, 2.0], [-1.0, 1.0, 2.0], [1.0, 2.0], [1e201, 1.0, 2.0], [[1.0, 2.0, 3.0]], [],
     [True, False, True]]))
SOME_NOT_NUMERIC = NOT_NUMERIC.filter(lambda v: v is not None)      # None: optional parts
BAD_UNIT = st.one_of(NON_FINITE_ARRAYS, SOME_NOT_NUMERIC, st.sampled_from(
    [[[0.5, 0.5, 1.5], [0.5, 0.5, 0.5]], [[0.5, 0.5, 0.5]], [0.5, 0.5, 0.5],
     [[-0.1, 0.5, 0.5], [0.5, 0.5, 0.5]]]))
BAD_GROUPS = st.sampled_from(["men", None, ["men"], ["men", ""], ["men", 1], 3,
                              ["a", "b", "c", "d", "e", "f", "g", "h"]])
BAD_NONPRIVATE = st.one_of(SOME_NOT_NUMERIC, st.sampled_from(
    [[0.5], [1.5, 0.5], [-0.1, 0.5], [math.inf, 0.5], [[0.5, 0.5]]]))
BAD_SELECTED = st.sampled_from([0, -1.0, math.nan, math.inf, 1e201, "1", [1.0], True, 1j])
BAD_MEAN = st.one_of(BAD_UNIT, st.just(None))
NOT_AX = st.sampled_from([1, "ax", object(), [None], np.zeros(2), True])
CASES = [(P.group_accuracy_data, a, s) for a, s in (
    ("epsilons", BAD_EPS), ("mean", BAD_MEAN), ("groups", BAD_GROUPS), ("sd", BAD_UNIT),
    ("nonprivate", BAD_NONPRIVATE), ("selected", BAD_SELECTED),
    ("title", st.sampled_from([1, b"x", ["x"], True, object()])))]
CASES += [(P.plot_group_accuracy, a, s) for _, a, s in CASES] + [
    (P.plot_group_accuracy, "ax", NOT_AX)]


@pytest.mark.parametrize("func, arg, strategy", CASES,
                         ids=[f"{f.__name__}-{a}" for f, a, _ in CASES])
def test_rejects_bad_values(func, arg, strategy):
    @settings(max_examples=20, deadline=None)
    @given(bad=strategy)
    def run(bad):
        call_rejects(func, {**VALID, arg: bad}, arg)

    run()


def test_every_public_function_and_parameter_is_attacked():
    import inspect
    for name in ("group_accuracy_data", "plot_group_accuracy"):
        params = set(inspect.signature(getattr(P, name)).parameters)
        assert params == {a for f, a, _ in CASES if f.__name__ == name}, name
    assert {f.__name__ for f, _, _ in CASES} == {n for n in P.__all__ if n.islower()}
