"""The anonymity figures (dpteach.plots.anonymity): their numbers against dpteach.attacks.linkage.

The uniqueness curve is :func:`~dpteach.attacks.linkage.uniqueness_curve`; the class-size
bars are the shares of rows per class size. Both renderers draw every figure. A hypothesis
bad-input test attacks every public function (``_props.call_rejects``).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from _props import NON_FINITE_ARRAYS, NOT_NUMERIC, bad_int, call_rejects
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from dpteach.attacks import linkage as L
from dpteach.plots import anonymity as PA
from dpteach.plots.figure import to_vega_lite


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt
    plt.close("all")


def test_uniqueness_curve_figure_shows_the_curves():
    t = L.adult_with_quasi_identifiers(2000, rng=0)
    attrs = ["sex", "race", "age", "zip", "birth_date"]
    curve = L.uniqueness_curve(t, attrs)
    data = PA.uniqueness_curve_data({"Adult (synthetic ZIP, birth date)": curve}, attrs)
    s = data.series_by_key("curve-0")
    np.testing.assert_array_equal(s.x, np.arange(1, 6))
    np.testing.assert_array_equal(s.y, curve)
    assert s.label == "Adult (synthetic ZIP, birth date)"
    assert "sex + race + age + zip + birth date" in data.title      # the column, in words
    fig = PA.plot_uniqueness_curve({"a": curve}, attrs)
    assert isinstance(fig, Figure)
    line = [ln for ln in fig.axes[0].lines if ln.get_gid() == "curve-0"][0]
    np.testing.assert_array_equal(line.get_ydata(), curve)
    json.dumps(to_vega_lite(data))


def test_class_sizes_figure_shares():
    sizes = L.class_sizes(pd.DataFrame({"a": [1, 2, 2, 3, 3, 3] + [4] * 30}), "a")
    data = PA.class_sizes_data(sizes, k=5, max_size=10)
    bars = data.series_by_key("rows")
    shares = bars.y
    assert shares.sum() == pytest.approx(1.0)
    assert shares[0] == pytest.approx(1 / 36) and shares[1] == pytest.approx(2 / 36)
    assert shares[2] == pytest.approx(3 / 36) and shares[-1] == pytest.approx(30 / 36)  # pooled
    assert data.extra["unique"] == pytest.approx(1 / 36)
    assert "2.8% of the rows are unique" in data.title
    assert [r.key for r in data.rules] == ["k"] and data.rules[0].value == 4.5
    fig = PA.plot_class_sizes(sizes, k=5)
    assert isinstance(fig, Figure)
    json.dumps(to_vega_lite(data))


def test_class_sizes_title_names_the_quasi_identifier():
    # notebook 00 draws two quasi-identifiers side by side: each title says which, in words
    sizes = [1, 2, 2, 3, 3, 3]
    data = PA.class_sizes_data(sizes, name="ZIP code, birth date, sex")
    assert data.title == "Equivalence classes on ZIP code, birth date, sex\n" \
                         "16.7% of the rows are unique"
    fig = PA.plot_class_sizes(sizes, name="age, sex, race")
    assert fig.axes[0].get_title().startswith("Equivalence classes on age, sex, race")
    for bad in ("", "  ", 3, ["zip"]):
        with pytest.raises(TypeError, match="name"):
            PA.class_sizes_data(sizes, name=bad)


def test_uniqueness_curve_title_reads_column_names_as_words():
    data = PA.uniqueness_curve_data({"Adult": [0.1, 0.2]}, ["marital-status", "birth_date"])
    assert "marital status + birth date" in data.title


BAD_CURVES = st.one_of(NOT_NUMERIC, st.sampled_from([
    None, [0.1, 0.2], {}, {"a": [1.5]}, {"a": [-0.1]}, {"": [0.1]}, {1: [0.1]},
    {"a": [float("nan")]}, {"a": []}, {"a": [[0.1]]}, {"a": np.full(51, 0.1)},
    {f"c{i}": [0.1] for i in range(8)}, {"a": "0.1"}]))


@settings(max_examples=40, deadline=None)
@given(bad=BAD_CURVES)
def test_uniqueness_curve_rejects_bad_curves(bad):
    for f in (PA.uniqueness_curve_data, PA.plot_uniqueness_curve):
        call_rejects(f, {"curves": bad}, "curves")


@settings(max_examples=30, deadline=None)
@given(bad=st.sampled_from(["abc", ["a"], ["a", "b", "c"], [1, 2], None.__class__, 3,
                            ("a",)]))
def test_uniqueness_curve_rejects_bad_attributes(bad):
    for f in (PA.uniqueness_curve_data, PA.plot_uniqueness_curve):
        call_rejects(f, {"curves": {"a": [0.1, 0.2]}, "attributes": bad}, "attributes")


@settings(max_examples=40, deadline=None)
@given(bad=st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC,
                     st.sampled_from([[0, 1], [1.5], [], [[1, 2]], None, [-1], [True, False]])))
def test_class_sizes_rejects_bad_sizes(bad):
    for f in (PA.class_sizes_data, PA.plot_class_sizes):
        call_rejects(f, {"sizes": bad}, "sizes")


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_class_sizes_rejects_bad_k_and_max_size(data):
    arg, strat = data.draw(st.sampled_from([("k", bad_int(1, 10**6).filter(
        lambda v: v is not None)), ("max_size", bad_int(1, PA.MAX_CLASS_SIZE))]))
    for f in (PA.class_sizes_data, PA.plot_class_sizes):
        call_rejects(f, {"sizes": [1, 2, 2], arg: data.draw(strat)}, arg)
