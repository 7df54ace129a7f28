"""Extreme-value tests for dpteach.plots.figure: both renderers take any data a chapter
can produce (subnormal, huge and non-finite values; huge sizes) and either draw it or
refuse it by name, and the browser's chart is always valid JSON (no NaN, no inf)."""

from __future__ import annotations

import json
import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
from _props import HUGE_INTS, assert_extreme_ok
from hypothesis import given, settings
from hypothesis import strategies as st

from dpteach.plots import figure
from dpteach.plots.figure import (
    FigureData,
    HeatMap,
    Rule,
    Series,
    Span,
    Text,
    to_matplotlib,
    to_vega_lite,
)

MODULES = (figure,)

VALUES = st.sampled_from([5e-324, 1e-300, 1.0, 1e300, 1.7976931348623157e308, -1e300,
                          math.inf, -math.inf, math.nan, 0.0])


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _data(v: float, log: bool) -> FigureData:
    x = np.array([1.0, 2.0, 3.0, v])
    y = np.array([v, 1.0, v, 2.0])
    return FigureData("t", "x", "y", log_x=log, log_y=log,
                      series=(Series("l", "line", x, y), Series("p", "", x, y, kind="points"),
                              Series("b", "", x, y, kind="band", y2=y + 1),
                              Series("bars", "bars", x, y, kind="bars", width=0.5),
                              Series("s", "steps", x, y, kind="step", where="post",
                                     tooltip=(("value", y),))),
                      rules=(Rule("r", "x", v, "rule"), Rule("h", "y", v)),
                      spans=(Span("sp", "x", 1.0, v, "span"),),
                      texts=(Text("tx", v, 1.0, "here"), Text("ty", 1.0, v, "∞", large=True)),
                      x_ticks=((1.0, "one"), (v, "v")), y_integer=True)


def _heat(v: float) -> FigureData:
    g = np.array([0.0, 1.0, 2.0])
    z = np.array([[0.0, v, 1.0], [0.5, 0.5, 0.5], [1.0, 0.0, v]])
    return FigureData("t", "x", "y", heatmap=HeatMap("h", "P", g, g, z))


@settings(max_examples=20, deadline=None)
@given(v=VALUES, log=st.booleans())
def test_vega_lite_is_valid_json_for_any_values(v, log):
    spec = assert_extreme_ok(lambda data: to_vega_lite(data), {"data": _data(v, log)}, "data")
    json.dumps(spec, allow_nan=False)


@settings(max_examples=10, deadline=None)
@given(v=VALUES)
def test_heat_maps_are_valid_json_for_any_values(v):
    spec = assert_extreme_ok(lambda data: to_vega_lite(data), {"data": _heat(v)}, "data")
    json.dumps(spec, allow_nan=False)


@settings(max_examples=10, deadline=None)
@given(v=VALUES.filter(math.isfinite).filter(lambda v: abs(v) < 1e300))
def test_matplotlib_draws_finite_values(v):
    fig = assert_extreme_ok(lambda data: to_matplotlib(data), {"data": _data(v, False)}, "data")
    assert [line.get_gid() for line in fig.axes[0].lines][:2] == ["l", "p"]


@settings(max_examples=10, deadline=None)
@given(h=HUGE_INTS)
def test_huge_heights_are_refused(h):
    assert_extreme_ok(to_vega_lite, {"data": _data(1.0, False), "height": h}, "height")
    with pytest.raises(ValueError, match="height"):
        to_vega_lite(_data(1.0, False), height=h)


def test_every_public_callable_is_exercised():
    public = {n for n in figure.__all__ if callable(getattr(figure, n))}
    assert public == {"Series", "Rule", "Span", "Text", "HeatMap", "FigureData", "to_matplotlib",
                      "to_vega_lite"}
