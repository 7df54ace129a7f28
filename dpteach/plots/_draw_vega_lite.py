"""Vega-Lite's drawing of a :class:`~dpteach.plots.figure.FigureData`, for
:func:`dpteach.plots.figure.to_vega_lite`: one layer per heat map, span, series, rule and group
of texts, their numbers inline (6 significant digits; long lines thinned), the named legend in
one colour scale, ticks and scales as the matplotlib drawing has them, panels concatenated.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from .._validation import refuse
from ._layout import DASHES, FONT_SIZES, MAX_POINTS, STEPS, legend_columns, placeable, tick_angle


def spec(data, height: int) -> dict:
    """``data`` (a checked FigureData) as a Vega-Lite v6 specification, ``height`` pixels a
    panel (:func:`dpteach.plots.figure.to_vega_lite`)."""
    config = {
        "axis": {"titleFontSize": FONT_SIZES["axis_title"],
                 "labelFontSize": FONT_SIZES["axis_label"], "grid": True},
        "legend": {"labelFontSize": FONT_SIZES["legend"], "titleFontSize": FONT_SIZES["legend"],
                   "symbolStrokeWidth": 3},
        "view": {"stroke": None},
    }
    head = {"$schema": "https://vega.github.io/schema/vega-lite/v6.json"}
    if not data.panels:
        return {**head, **_layers(data, height), "config": config}
    return {**head,
            "title": {"text": data.title.split("\n") if "\n" in data.title else data.title,
                      "fontSize": FONT_SIZES["title"], "anchor": "start"},
            "vconcat": [_layers(p, height) for p in data.panels],
            "resolve": {"scale": {"color": "independent"}, "legend": {"color": "independent"}},
            "config": config}


def _thin(n: int) -> np.ndarray:
    if n <= MAX_POINTS:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, MAX_POINTS).round().astype(int))


def _number(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


def _short(v: float) -> float:
    """``v`` to 6 significant digits (a chart needs no more, and the JSON gets shorter),
    unless rounding leaves the float range."""
    short = float(f"{v:.6g}")
    return short if math.isfinite(short) else float(v)


def _rows(s, log_x: bool, log_y: bool) -> list[dict]:
    """The rows of a series: ``x``, ``y`` (``y2``), ``series``, the point's index ``i`` (lines
    are drawn in this order, as given, not sorted by x), ``part`` (lines break at a point
    that cannot be placed) and the tooltip fields ``t0``, ``t1``, …"""
    idx = np.arange(s.x.size) if s.kind == "points" else _thin(s.x.size)
    ok = placeable(s.x[idx], log_x) & placeable(s.y[idx], log_y)
    if s.y2 is not None:
        ok &= placeable(s.y2[idx], log_y)
    part = np.cumsum(~ok)
    broken = s.kind in ("line", "step") and np.unique(part[ok]).size > 1
    rows = []
    for j in np.flatnonzero(ok):
        i = idx[j]
        row = {"x": _short(s.x[i]), "y": _short(s.y[i]), "series": s.label or s.key}
        if s.y2 is not None:
            row["y2"] = _short(s.y2[i])
        if s.kind == "line":
            row["i"] = int(i)
        if broken:
            row["part"] = int(part[j])
        for k, (_, values) in enumerate(s.tooltip):
            v = values[i]
            row[f"t{k}"] = (_short(float(v)) if isinstance(v, (int, float, np.number))
                            and math.isfinite(float(v)) else str(v))
        rows.append(row)
    return rows


def _scale(log: bool, domain, symlog: bool = False) -> dict:
    scale: dict = ({"type": "log"} if log else {"type": "symlog", "constant": 1} if symlog
                   else {"zero": False})
    if domain is not None:
        scale["domain"] = [_number(domain[0]), _number(domain[1])]
        scale["nice"] = False
    return scale


def _axis(ticks, integer: bool, log: bool, turn: bool) -> dict:
    if ticks is not None:
        shown = [(_short(v), t) for v, t in ticks if math.isfinite(v) and (v > 0 or not log)]
        values = [v for v, _ in shown]
        names = [t for _, t in shown]
        axis = {"values": values, "grid": False,
                "labelExpr": f"indexof({values}, datum.value) >= 0 ? "
                             f"{_js(names)}[indexof({values}, datum.value)] : ''"}
        if turn and tick_angle(shown):
            axis.update(labelAngle=-45, labelAlign="right", labelBaseline="middle")
        else:
            axis["labelAngle"] = 0
        return axis
    if integer:
        return {"tickMinStep": 1, "format": ",d"} if not log else {"format": ",d"}
    return {"format": ",~g"} if log else {}


def _js(strings) -> str:
    return json.dumps(list(strings), ensure_ascii=False)


def _layers(data, height: int) -> dict:
    """The Vega-Lite view of one panel (without ``$schema`` and ``config``)."""
    x_enc = {"field": "x", "type": "quantitative", "title": data.x_title,
             "scale": _scale(data.log_x, data.x_domain)}
    y_enc = {"field": "y", "type": "quantitative", "title": data.y_title,
             "scale": _scale(data.log_y, data.y_domain, data.symlog_y)}
    for enc, axis in ((x_enc, _axis(data.x_ticks, data.x_integer, data.log_x, True)),
                      (y_enc, _axis(data.y_ticks, data.y_integer,
                                    data.log_y or data.symlog_y, False))):
        if axis:
            enc["axis"] = axis
    entries = data.legend_entries()
    if data.legend == "none":
        legend = None
    else:
        # entries in the matplotlib legend's columns (a bottom legend would otherwise run in
        # one row, off the chart)
        legend = {"orient": data.legend, "labelLimit": 400, "title": data.legend_title or None,
                  "columns": legend_columns(data)}
    colour = {"field": "series", "type": "nominal", "title": None,
              "scale": {"domain": [label for label, _ in entries],
                        "range": [c for _, c in entries]},
              "legend": legend}
    layers = []
    for sp in data.spans:
        log = data.log_x if sp.axis == "x" else data.log_y
        if not (placeable(sp.low, log) and placeable(sp.high, log)):
            continue
        enc = {sp.axis: {**(x_enc if sp.axis == "x" else y_enc), "field": "lo"},
               f"{sp.axis}2": {"field": "hi"},
               "color": colour if sp.label else {"value": sp.colour}}
        layers.append({"data": {"values": [{"lo": _short(sp.low), "hi": _short(sp.high),
                                            "series": sp.label or sp.key}]},
                       "mark": {"type": "rect", "opacity": sp.opacity, "clip": True},
                       "encoding": enc})
    for s in data.series:
        rows = _rows(s, data.log_x, data.log_y)
        if not rows:
            continue
        enc = {"x": x_enc, "y": y_enc}
        enc["color"] = colour if s.label else {"value": s.colour}
        mark: dict = {"opacity": s.opacity, "clip": True}
        if s.kind in ("line", "step"):
            mark.update(type="line", strokeWidth=s.width * 1.25)
            if s.kind == "step":
                mark["interpolate"] = STEPS[s.where]
            else:
                enc["order"] = {"field": "i", "type": "quantitative"}
            if DASHES[s.dash]:
                mark["strokeDash"] = DASHES[s.dash]
            if "part" in rows[0]:
                enc["detail"] = {"field": "part", "type": "nominal"}
        elif s.kind == "points":
            mark.update(type="circle", size=30 * s.width, stroke="white", strokeWidth=0.5)
        elif s.kind == "band":
            mark.update(type="area")
            enc["y2"] = {"field": "y2"}
        else:
            mark.update(type="bar")
            half = s.width / 2
            for row in rows:
                row["xc"] = row["x"]
                row["x2"], row["x"] = _short(row["x"] + half), _short(row["x"] - half)
            enc["x2"] = {"field": "x2"}
            enc["y2"] = {"datum": 0}                             # bars rise from zero
        if s.kind != "band":
            enc["tooltip"] = _tooltip(s, data, "xc" if s.kind == "bars" else "x")
        layers.append({"data": {"values": rows}, "mark": mark, "encoding": enc})
    for r in data.rules:
        if not placeable(r.value, data.log_x if r.axis == "x" else data.log_y):
            continue
        enc = {r.axis: {"field": "v", "type": "quantitative"}}
        enc["color"] = colour if r.label else {"value": r.colour}
        row = {"v": _short(r.value), "series": r.label or r.key}
        mark = {"type": "rule", "strokeWidth": 1.5}
        if DASHES[r.dash]:
            mark["strokeDash"] = DASHES[r.dash]
        layers.append({"data": {"values": [row]}, "mark": mark, "encoding": enc})
    texts = [{"x": _short(t.x), "y": _short(t.y), "text": t.text, "c": t.colour,
              "large": t.large, "above": t.position == "above"} for t in data.texts
             if placeable(t.x, data.log_x) and placeable(t.y, data.log_y)]
    for above in (True, False):
        rows = [r for r in texts if r["above"] == above]
        for large in (False, True):
            group = [r for r in rows if r["large"] == large]
            if group:
                size = FONT_SIZES["legend" if large else "axis_label"] * (1.4 if large else 1)
                layers.append({
                    "data": {"values": group},
                    "mark": {"type": "text", "baseline": "bottom" if above else "middle",
                             "dy": -4 if above else 0, "fontSize": round(size, 1)},
                    "encoding": {"x": x_enc, "y": y_enc,
                                 "text": {"field": "text", "type": "nominal"},
                                 "color": {"field": "c", "type": "nominal", "scale": None}}})
    view = {"title": {"text": data.title.split("\n") if "\n" in data.title else data.title,
                      "fontSize": FONT_SIZES["title"], "anchor": "start"},
            "height": height, "layer": layers}
    if data.heatmap is not None:
        # the heat map's colour gradient and the named series are two colour scales, two
        # legends: the heat map under the other layers, which share their one scale
        heat = _heatmap_layer(data.heatmap, x_enc, y_enc)
        view["layer"] = [heat, {"layer": layers}] if layers else [heat]
        view["resolve"] = {"scale": {"color": "independent"},
                           "legend": {"color": "independent"}}
    return view


def _tooltip(s, data, x_field: str) -> list[dict]:
    tips = [{"field": "series", "type": "nominal", "title": "series"}] if s.label else []
    tips += [{"field": x_field, "type": "quantitative", "title": data.x_title or "x",
              "format": ".4~g"},
             {"field": "y", "type": "quantitative", "title": data.y_title or "y",
              "format": ".4~g"}]
    for k, (title, values) in enumerate(s.tooltip):
        numeric = values.dtype.kind in "iuf"
        tip = {"field": f"t{k}", "type": "quantitative" if numeric else "nominal",
               "title": title}
        if numeric:
            tip["format"] = ".4~g"
        tips.append(tip)
    return tips


def _heatmap_layer(h, x_enc: dict, y_enc: dict) -> dict:
    """Cells centred on the grid points; on a regular grid the browser adds the half-steps
    (half the numbers to send)."""
    with np.errstate(over="ignore", invalid="ignore"):
        dx, dy = np.diff(h.x) / 2, np.diff(h.y) / 2
        ex = np.concatenate([[h.x[0] - dx[0]], h.x[:-1] + dx, [h.x[-1] + dx[-1]]])
        ey = np.concatenate([[h.y[0] - dy[0]], h.y[:-1] + dy, [h.y[-1] + dy[-1]]])
    if not (np.all(np.isfinite(ex)) and np.all(np.isfinite(ey))):
        raise refuse(f"x, y of heat map {h.key!r}", (h.x, h.y), "cells within the float range")
    uniform = (np.allclose(np.diff(h.x), h.x[1] - h.x[0], rtol=1e-9, atol=0)
               and np.allclose(np.diff(h.y), h.y[1] - h.y[0], rtol=1e-9, atol=0))
    z = [[round(float(v), 4) if math.isfinite(v) else None for v in row] for row in h.z]
    if uniform:
        cells = [{"a": _short(h.x[i]), "b": _short(h.y[j]), "z": z[j][i]}
                 for j in range(h.y.size) for i in range(h.x.size) if z[j][i] is not None]
        hx, hy = float(dx[0]), float(dy[0])
        transform = [{"calculate": f"datum.a - {hx!r}", "as": "a1"},
                     {"calculate": f"datum.a + {hx!r}", "as": "a2"},
                     {"calculate": f"datum.b - {hy!r}", "as": "b1"},
                     {"calculate": f"datum.b + {hy!r}", "as": "b2"}]
    else:
        cells = [{"a1": _short(ex[i]), "a2": _short(ex[i + 1]), "b1": _short(ey[j]),
                  "b2": _short(ey[j + 1]), "z": z[j][i]}
                 for j in range(h.y.size) for i in range(h.x.size) if z[j][i] is not None]
        transform = []
    layer: dict[str, Any] = {"data": {"values": cells},
             "mark": {"type": "rect", "opacity": h.opacity},
             "encoding": {"x": {**x_enc, "field": "a1"}, "x2": {"field": "a2"},
                          "y": {**y_enc, "field": "b1"}, "y2": {"field": "b2"},
                          "color": {"field": "z", "type": "quantitative", "title": h.label,
                                    "scale": {"domain": [float(v) for v in h.stops],
                                              "range": list(h.colours)},
                                    "legend": {"orient": "right"}}}}
    if transform:
        layer["transform"] = transform
    return layer
