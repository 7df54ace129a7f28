"""The two renderers of dpteach.plots.figure draw the same data the same way: every feature
of a FigureData (series of each kind, rules, spans, text marks, a heat map, named and integer
ticks, log and symlog scales, legends outside the plot, panels) is drawn by both."""

import json
import math

import numpy as np
import pytest

from _props import NOT_AN_OBJECT, bad_int, call_rejects
from hypothesis import given

from dpteach._validation import ParameterError
from dpteach.plots import PALETTE
from matplotlib.figure import Figure

from dpteach.plots.figure import (
    MAX_POINTS,
    FigureData,
    HeatMap,
    Rule,
    Series,
    Span,
    Text,
    to_matplotlib,
    to_vega_lite,
)


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
    with pytest.raises(ParameterError, match=r"sizes \(y, tooltips, y2\).*2 each, one per x"):
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


# --------------------------------------------------- every feature, drawn by both renderers
def _everything() -> FigureData:
    x = np.array([1.0, 2.0, 3.0, 4.0])
    return FigureData(
        "every feature\nsecond line", "categories", "number of things",
        series=(Series("line", "a line", x, [1.0, np.nan, 3.0, 4.0]),
                Series("steps", "steps", x, [0.0, 1.0, 2.0, 3.0], kind="step", where="post",
                       colour=PALETTE["orange"]),
                Series("dots", "dots", x, x, kind="points", colour=PALETTE["green"],
                       tooltip=(("γ", [0.1, 0.2, 0.3, 0.4]), ("seed", ["a", "b", "c", "d"]))),
                Series("bars", "bars", x, x / 2, kind="bars", width=0.4)),
        rules=(Rule("rule", "y", 2.5, "a rule"),),
        spans=(Span("span", "x", 1.5, 2.5, "a span"),),
        texts=(Text("value", 2.0, 1.0, "1.0"), Text("infinity", 3.0, 2.0, "∞", large=True,
                                                   position="center")),
        x_ticks=((1.0, "one"), (2.0, "two"), (3.0, "three"), (4.0, "four")),
        y_integer=True, legend_title="what is drawn")


def test_every_feature_renders_in_matplotlib():
    from matplotlib.ticker import FixedLocator

    data = _everything()
    ax = to_matplotlib(data).axes[0]
    lines = {ln.get_gid(): ln for ln in ax.lines}
    assert np.isnan(lines["line"].get_ydata()[1])                 # the line breaks at the gap
    assert lines["steps"].get_drawstyle() == "steps-post"
    assert lines["dots"].get_linestyle() == "None" and lines["dots"].get_marker() == "o"
    assert [p.get_gid() for p in ax.patches].count("bars") == 4
    (span,) = [p for p in ax.patches if p.get_gid() == "span"]
    assert span.get_x() == 1.5 and span.get_width() == 1.0
    assert [(t.get_text(), t.get_gid()) for t in ax.texts] == [("1.0", "value"),
                                                                ("∞", "infinity")]
    assert isinstance(ax.xaxis.get_major_locator(), FixedLocator)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["one", "two", "three", "four"]
    ax.figure.canvas.draw()
    assert all(float(t.get_text().replace("−", "-")).is_integer()
               for t in ax.get_yticklabels() if t.get_text())
    legend = ax.get_legend()
    assert legend.get_title().get_text() == "what is drawn"
    assert [t.get_text() for t in legend.get_texts()] == [
        "a line", "steps", "dots", "bars", "a span", "a rule"]     # series, spans, rules
    # the legend hangs below the axes and their tick labels: it covers no data
    box, frame = legend.get_window_extent(), ax.get_window_extent()
    assert box.y1 < ax.xaxis.get_tightbbox().y0 <= frame.y0


def test_every_feature_renders_in_vega_lite():
    data = _everything()
    spec = json.loads(json.dumps(to_vega_lite(data), allow_nan=False))
    assert spec["title"]["text"] == ["every feature", "second line"]
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["rect", "line", "line", "circle", "bar", "rule", "text", "text"]
    span = spec["layer"][0]
    assert span["data"]["values"] == [{"lo": 1.5, "hi": 2.5, "series": "a span"}]
    assert "y" not in span["encoding"]                            # the full height
    line, steps, dots = spec["layer"][1:4]
    assert [r["part"] for r in line["data"]["values"]] == [0, 1, 1]   # broken at the gap
    assert line["encoding"]["detail"]["field"] == "part"
    assert line["encoding"]["order"]["field"] == "i"              # drawn in the given order
    assert steps["mark"]["interpolate"] == "step-after"
    assert [(r["t0"], r["t1"]) for r in dots["data"]["values"]] == [
        (0.1, "a"), (0.2, "b"), (0.3, "c"), (0.4, "d")]
    assert {t["title"] for t in dots["encoding"]["tooltip"]} >= {"γ", "seed"}
    texts = {layer["data"]["values"][0]["text"]: layer for layer in spec["layer"][6:]}
    assert texts["∞"]["mark"]["fontSize"] > texts["1.0"]["mark"]["fontSize"]
    x_axis = spec["layer"][1]["encoding"]["x"]["axis"]
    assert x_axis["values"] == [1, 2, 3, 4] and '"three"' in x_axis["labelExpr"]
    y_axis = spec["layer"][1]["encoding"]["y"]["axis"]
    assert y_axis == {"tickMinStep": 1, "format": ",d"}
    legend = spec["layer"][1]["encoding"]["color"]["legend"]
    assert legend["orient"] == "bottom" and legend["title"] == "what is drawn"
    assert spec["layer"][1]["encoding"]["color"]["scale"]["domain"] == [
        "a line", "steps", "dots", "bars", "a span", "a rule"]


def test_a_heat_map_renders_in_both():
    g = np.linspace(-1.0, 1.0, 5)
    z = np.add.outer(g, g) / 4 + 0.5
    data = FigureData("h", "x", "y", heatmap=HeatMap("p", "P(class 1)", g, g, z),
                      series=(Series("dots", "class 0", [0.0], [0.0], kind="points"),))
    fig = to_matplotlib(data)
    (mesh,) = [c for c in fig.axes[0].collections if c.get_gid() == "p"]
    np.testing.assert_array_equal(np.asarray(mesh.get_array()).reshape(z.shape), z)
    assert fig.axes[1].get_ylabel() == "P(class 1)"               # its colour bar
    spec = to_vega_lite(data)
    cells = spec["layer"][0]
    assert len(cells["data"]["values"]) == 25
    assert cells["encoding"]["color"]["title"] == "P(class 1)"
    assert cells["encoding"]["color"]["scale"]["domain"] == [0.0, 0.5, 1.0]
    assert spec["resolve"]["scale"]["color"] == "independent"
    with pytest.raises(ParameterError, match="heat map"):
        HeatMap("p", "", g, g, z[:, :3])
    with pytest.raises(ParameterError, match="heat map"):
        HeatMap("p", "", g[::-1], g, z)


def test_a_symlog_axis_and_a_right_legend_render_in_both():
    data = FigureData("t", "x", "y", series=(Series("s", "s", [0.0, 1.0], [0.0, 1e4]),),
                      symlog_y=True, legend="right")
    ax = to_matplotlib(data).axes[0]
    assert ax.get_yscale() == "symlog"
    ax.figure.canvas.draw()
    assert ax.get_legend().get_window_extent().x0 > ax.get_window_extent().x1
    spec = to_vega_lite(data)
    assert spec["layer"][0]["encoding"]["y"]["scale"]["type"] == "symlog"
    assert spec["layer"][0]["encoding"]["color"]["legend"]["orient"] == "right"
    quiet = FigureData("t", "x", "y", series=(Series("s", "s", [0.0, 1.0], [0.0, 1.0]),),
                       legend="none")
    assert to_matplotlib(quiet).axes[0].get_legend() is None
    assert to_vega_lite(quiet)["layer"][0]["encoding"]["color"]["legend"] is None


def test_panels_are_stacked_charts_in_both():
    top, bottom = _data(), FigureData("lower", "x", "count",
                                      series=(Series("c", "c", [1, 2], [3, 4]),))
    data = FigureData("two panels", "", "", panels=(top, bottom))
    fig = to_matplotlib(data)
    assert [ax.get_title() for ax in fig.axes] == [top.title, "lower"]
    assert fig._suptitle.get_text() == "two panels"
    assert fig.axes[0].get_position().y0 > fig.axes[1].get_position().y1   # one above the other
    spec = to_vega_lite(data, height=200)
    assert [v["title"]["text"] for v in spec["vconcat"]] == [top.title, "lower"]
    assert [v["height"] for v in spec["vconcat"]] == [200, 200]
    # given axes: one per panel
    other = Figure()
    axes = other.subplots(1, 2)
    assert to_matplotlib(data, ax=axes) is other
    for bad in (axes[0], [axes[0]], [1, 2]):
        with pytest.raises(TypeError, match="ax"):
            to_matplotlib(data, ax=bad)
    with pytest.raises(ParameterError, match="panels"):
        FigureData("t", "x", "y", series=top.series, panels=(bottom,))


def test_a_long_title_wraps_in_a_narrow_matplotlib_figure_only():
    long = "a title with many words that a narrow panel cannot show on one line, ε = 1"
    data = FigureData(long, "x", "y", series=(Series("s", "s", [0, 1], [0, 1]),))
    fig = to_matplotlib(data, figsize=(3.0, 3.0))
    title = fig.axes[0].get_title()
    assert "\n" in title and " ".join(title.split()) == long
    assert "ε = 1" in title                                       # "ε = 1" is never split
    assert to_vega_lite(data)["title"]["text"] == long             # the page is wide


def test_bad_features_are_refused_naming_the_argument():
    with pytest.raises(ParameterError, match="where"):
        Series("s", "s", [1], [1], kind="step", where="after")
    with pytest.raises(ParameterError, match="tooltip"):
        Series("s", "s", [1, 2], [1, 2], tooltip=(("γ", [1.0]),))
    with pytest.raises(ParameterError, match="legend"):
        FigureData("t", "x", "y", legend="upper left")         # never inside the plot
    with pytest.raises(ParameterError, match="position"):
        Text("t", 0.0, 0.0, "x", position="left")
    with pytest.raises(ParameterError, match="axis"):
        Span("s", "z", 0.0, 1.0)
