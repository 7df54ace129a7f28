"""The two renderers of dpteach.plots.figure draw the same data the same way."""

import json
import math

import numpy as np
import pytest

from _props import NOT_AN_OBJECT, bad_int, call_rejects
from hypothesis import given

from dpteach._validation import ParameterError
from dpteach.plots import PALETTE
from dpteach.plots.figure import MAX_POINTS, FigureData, Rule, Series, to_matplotlib, to_vega_lite


def _data(**kw):
    x = np.geomspace(0.01, 10, 50)
    series = (Series("analytic", "analytic σ", x, 1 / x),
              Series("classic", "classic σ", x, 2 / x, dash="dashed",
                     colour=PALETTE["vermillion"]),
              Series("spread", "", x, 0.5 / x, kind="band", y2=1 / x, opacity=0.2))
    rules = (Rule("mark", "x", 1.0, "ε = 1"),)
    return FigureData("σ against ε (δ = 1e-05)", "privacy loss ε", "noise σ", series=series,
                      rules=rules, log_x=True, log_y=True, **kw)


def _layers_by_series(spec):
    out = {}
    for layer in spec["layer"]:
        for row in layer["data"]["values"]:
            out.setdefault(row["series"], layer)
    return out


def test_matplotlib_lines_carry_their_keys_and_labels():
    fig = to_matplotlib(_data())
    ax = fig.axes[0]
    assert [line.get_gid() for line in ax.lines] == ["analytic", "classic", "mark"]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert ax.get_title() == "σ against ε (δ = 1e-05)"
    assert ax.get_xlabel() == "privacy loss ε" and ax.get_ylabel() == "noise σ"
    assert ax.lines[1].get_color() == PALETTE["vermillion"] and ax.lines[1].get_linestyle() == "--"
    assert len(ax.collections) == 1                        # the band


def test_vega_lite_has_the_same_series_titles_palette_and_scales():
    data = _data()
    spec = to_vega_lite(data)
    json.dumps(spec)                                       # plain JSON, as Streamlit sends it
    assert spec["title"]["text"] == data.title
    layers = _layers_by_series(spec)
    assert set(layers) == {"analytic σ", "classic σ", "spread", "ε = 1"}
    line = layers["analytic σ"]
    assert line["encoding"]["x"]["title"] == "privacy loss ε"
    assert line["encoding"]["y"]["title"] == "noise σ"
    assert line["encoding"]["x"]["scale"]["type"] == "log"
    colour = line["encoding"]["color"]["scale"]
    assert colour["domain"] == ["analytic σ", "classic σ", "ε = 1"]
    assert colour["range"] == [PALETTE["blue"], PALETTE["vermillion"], PALETTE["black"]]
    assert layers["classic σ"]["mark"]["strokeDash"] == [6, 3]
    assert layers["spread"]["mark"]["type"] == "area"
    assert layers["ε = 1"]["mark"]["type"] == "rule"
    rows = line["data"]["values"]
    assert len(rows) == 50
    assert rows[0]["x"] == pytest.approx(0.01, rel=1e-6) and rows[0]["y"] == pytest.approx(100)


def test_vega_lite_drops_points_it_cannot_place_and_thins_long_series():
    x = np.linspace(-1.0, 1.0, 5 * MAX_POINTS + 1)
    y = np.where(np.abs(x) < 0.1, np.nan, x)
    data = FigureData("t", "x", "y", series=(Series("s", "s", x, y),), log_x=True)
    rows = to_vega_lite(data)["layer"][0]["data"]["values"]
    assert len(rows) <= MAX_POINTS
    assert all(r["x"] > 0 and math.isfinite(r["y"]) for r in rows)
    # an infinite rule is left out instead of producing invalid JSON
    inf_rule = FigureData("t", "x", "y", rules=(Rule("r", "y", math.inf),))
    assert to_vega_lite(inf_rule)["layer"] == []


def test_bad_series_are_refused_naming_the_argument():
    with pytest.raises(ParameterError, match="same length"):
        Series("s", "s", [1, 2], [1])
    with pytest.raises(ParameterError, match="kind"):
        Series("s", "s", [1], [1], kind="pie")
    with pytest.raises(ParameterError, match="y2"):
        Series("s", "s", [1], [1], kind="band")
    with pytest.raises(ParameterError, match="axis"):
        Rule("r", "z", 1.0)


@given(bad=NOT_AN_OBJECT)
def test_renderers_refuse_what_is_not_figure_data(bad):
    call_rejects(to_matplotlib, {"data": bad}, "data")
    call_rejects(to_vega_lite, {"data": bad}, "data")


@given(bad=bad_int(50, 2000))
def test_vega_lite_height_is_checked(bad):
    call_rejects(to_vega_lite, {"data": _data(), "height": bad}, "height")


def test_scatter_points_are_never_thinned():
    x = np.arange(3 * MAX_POINTS, dtype=float)
    data = FigureData("t", "x", "y", series=(Series("p", "people", x, x, kind="points"),))
    assert len(to_vega_lite(data)["layer"][0]["data"]["values"]) == x.size
