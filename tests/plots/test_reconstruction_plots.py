"""The reconstruction figures (dpteach.plots.reconstruction): their numbers and their refusals.

The curves are the fractions given; the DP ceiling is
:func:`~dpteach.attacks.reconstruction.dp_recovery_bound`; tracing figures carry the chance
and DP-ceiling rules. Both renderers draw every figure. A hypothesis bad-input test attacks
every public function (``_props.call_rejects``).
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

from dpteach.attacks import reconstruction as R
from dpteach.attacks import tracing as T
from dpteach.plots import reconstruction as PR
from dpteach.plots.figure import to_vega_lite


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt
    plt.close("all")


def test_recovery_vs_noise_figure():
    x = [0.0, 0.25, 0.5, 1.0]
    fr = {"least squares": [1.0, 1.0, 0.9, 0.7], "LP (l∞)": [1.0, 1.0, 0.98, 0.8]}
    data = PR.recovery_vs_noise_data(x, fr, n=100, highlight=(0.5, 0.9))
    np.testing.assert_array_equal(data.series_by_key("curve-1").y, fr["LP (l∞)"])
    assert data.series_by_key("highlight").x.tolist() == [0.5]
    assert {r.key: r.value for r in data.rules} == {"chance": 0.5, "sqrt-n": 1.0}
    assert "n = 100" in data.title
    fig = PR.plot_recovery_vs_noise(x, fr, n=100)
    assert isinstance(fig, Figure)
    json.dumps(to_vega_lite(data))


def test_recovery_vs_epsilon_figure_draws_the_dp_ceiling():
    eps = [0.1, 1.0, 10.0]
    data = PR.recovery_vs_epsilon_data(eps, {"LS": [0.5, 0.52, 0.7]}, delta=1e-6,
                                       highlight=(30.0, 0.9))
    b = data.series_by_key("dp-bound")
    assert b.x[0] == pytest.approx(0.1) and b.x[-1] == pytest.approx(30.0)
    np.testing.assert_allclose(b.y, [R.dp_recovery_bound(e, 1e-6) for e in b.x])
    assert data.log_x and "δ = 1e-06" in data.title
    assert isinstance(PR.plot_recovery_vs_epsilon(eps, {"LS": [0.5, 0.52, 0.7]}), Figure)
    json.dumps(to_vega_lite(data))


def test_tracing_power_figure():
    ds = [10.0, 100.0, 1000.0]
    pw = {"normal approximation": [T.tracing_power(100, int(d)) for d in ds]}
    data = PR.tracing_power_data(ds, pw, fpr=0.05, ceiling=math.e * 0.05)
    assert {r.key for r in data.rules} == {"chance", "dp-ceiling"}
    assert data.series_by_key("curve-0").y.tolist() == pw["normal approximation"]
    lin = PR.tracing_power_data([0.0, 0.1], {"p": [0.9, 0.2]}, fpr=0.05, log_x=False,
                                x_title="noise on each mean (sd)")
    assert not lin.log_x and lin.x_title == "noise on each mean (sd)"
    assert isinstance(PR.plot_tracing_power(ds, pw, fpr=0.05), Figure)
    json.dumps(to_vega_lite(data))


BAD_GRID = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC,
                     st.sampled_from([[], [-1.0], [[0.1]], None, np.zeros(1001), [True]]))
BAD_FRACTIONS = st.one_of(NOT_NUMERIC, st.sampled_from([
    None, [0.5, 0.5], {}, {"a": [1.5, 0.5]}, {"a": [0.5]}, {"": [0.5, 0.5]}, {2: [0.5, 0.5]},
    {"a": [float("nan"), 0.5]}, {f"c{i}": [0.5, 0.5] for i in range(8)}]))
BAD_POINT = st.sampled_from([[1.0], [1.0, 2.0], [float("nan"), 0.5], "x", [1, 2, 3],
                             [-1.0, 0.5]])
NOISE_OK = dict(relative_noise=[0.1, 0.2], fractions={"a": [0.5, 0.5]}, n=10)
EPS_OK = dict(epsilons=[0.1, 0.2], fractions={"a": [0.5, 0.5]})
TRACE_OK = dict(x=[10.0, 20.0], powers={"a": [0.5, 0.5]}, fpr=0.05)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_bad_input_is_named(data):
    cases = [
        (PR.recovery_vs_noise_data, PR.plot_recovery_vs_noise, NOISE_OK, "relative_noise",
         BAD_GRID),
        (PR.recovery_vs_noise_data, PR.plot_recovery_vs_noise, NOISE_OK, "fractions",
         BAD_FRACTIONS),
        (PR.recovery_vs_noise_data, PR.plot_recovery_vs_noise, NOISE_OK, "n",
         bad_int(1, 10**6)),
        (PR.recovery_vs_noise_data, PR.plot_recovery_vs_noise, NOISE_OK, "highlight", BAD_POINT),
        (PR.recovery_vs_epsilon_data, PR.plot_recovery_vs_epsilon, EPS_OK, "epsilons",
         st.one_of(BAD_GRID, st.just([0.0, 1.0]))),
        (PR.recovery_vs_epsilon_data, PR.plot_recovery_vs_epsilon, EPS_OK, "fractions",
         BAD_FRACTIONS),
        (PR.recovery_vs_epsilon_data, PR.plot_recovery_vs_epsilon, EPS_OK, "delta",
         st.sampled_from([1.0, -0.1, float("nan"), "0", None, [0.1]])),
        (PR.recovery_vs_epsilon_data, PR.plot_recovery_vs_epsilon, EPS_OK, "highlight",
         BAD_POINT),
        (PR.tracing_power_data, PR.plot_tracing_power, TRACE_OK, "x",
         st.one_of(BAD_GRID, st.just([0.0, 1.0]))),
        (PR.tracing_power_data, PR.plot_tracing_power, TRACE_OK, "powers", BAD_FRACTIONS),
        (PR.tracing_power_data, PR.plot_tracing_power, TRACE_OK, "fpr",
         st.sampled_from([0.0, 1.0, -0.1, float("nan"), "0.1", None])),
        (PR.tracing_power_data, PR.plot_tracing_power, TRACE_OK, "ceiling",
         st.sampled_from([1.5, -0.1, float("nan"), "0.1", [0.1]])),
        (PR.tracing_power_data, PR.plot_tracing_power, TRACE_OK, "log_x",
         st.sampled_from([0, 1, "yes", None])),
        (PR.tracing_power_data, PR.plot_tracing_power, TRACE_OK, "x_title",
         st.sampled_from([1, None, ["d"]])),
    ]
    data_f, plot_f, valid, arg, strat = data.draw(st.sampled_from(cases))
    bad = data.draw(strat)
    for f in (data_f, plot_f):
        call_rejects(f, {**valid, arg: bad}, arg)
