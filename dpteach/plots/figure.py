"""One figure, two renderers: the data of a chart and how matplotlib and Vega-Lite draw it.

A *data function* of a chapter (e.g. :func:`dpteach.plots.calibration.sigma_comparison_data`)
computes what a figure shows, through the math modules, and returns a :class:`FigureData`:
named series of (x, y) points, shaded bands, vertical or horizontal reference lines, axis
titles with units, log scales and a title with ε and δ. Two renderers draw it:

* :func:`to_matplotlib` — a matplotlib ``Figure``, for the notebooks (each line gets its
  series' ``key`` as ``gid``, so tests can find it);
* :func:`to_vega_lite` — a Vega-Lite specification (a plain ``dict``), which the browser
  draws: Streamlit's ``st.vega_lite_chart`` and JupyterLab both render it natively. The
  server sends a few kilobytes of numbers instead of a picture, so a slider move costs
  the computation and nothing else.

Both use one colour-blind-safe palette (:data:`dpteach.plots.PALETTE`, Okabe & Ito 2008)
and the same labels, so a student sees the same picture in the notebook and on the
projector. Nothing here imports matplotlib until :func:`to_matplotlib` is called.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import ParameterError, check_choice, check_int, describe
from ._style import PALETTE

__all__ = ["Series", "Rule", "FigureData", "to_matplotlib", "to_vega_lite", "FONT_SIZES"]

KINDS = ("line", "points", "step", "band", "bars")
DASHES = {"solid": None, "dashed": [6, 3], "dotted": [2, 2], "dashdot": [6, 2, 2, 2]}
_MPL_DASH = {"solid": "-", "dashed": "--", "dotted": ":", "dashdot": "-."}
#: Font sizes (px) of the browser charts: readable from the back of a lecture hall.
FONT_SIZES = {"title": 18, "axis_title": 15, "axis_label": 13, "legend": 14}
#: Points per line, band or bar series sent to the browser at most (longer ones are
#: thinned evenly; a curve needs no more at any screen width). Scatter series
#: (``kind="points"``) are sent whole: every point is a person the student should see.
MAX_POINTS = 300


@dataclass(frozen=True)
class Series:
    """One named series of a figure.

    Parameters
    ----------
    key : str
        Stable identifier (the matplotlib ``gid``; not shown).
    label : str
        Legend text; an empty label keeps the series out of the legend.
    x, y : array of float
        The points (same length). Non-finite points are left out of the browser chart.
    kind : {"line", "points", "step", "band", "bars"}
        ``band`` shades between ``y`` and ``y2``; ``bars`` draws bars of width ``width``.
    y2 : array of float, optional
        Upper edge of a band.
    colour : str
        A colour of :data:`~dpteach.plots.PALETTE` (or any CSS colour).
    dash : {"solid", "dashed", "dotted", "dashdot"}
    width : float
        Line width (points), or the bar width in x units for ``bars``.
    opacity : float
    """

    key: str
    label: str
    x: np.ndarray
    y: np.ndarray
    kind: str = "line"
    y2: np.ndarray | None = None
    colour: str = PALETTE["blue"]
    dash: str = "solid"
    width: float = 2.0
    opacity: float = 1.0

    def __post_init__(self):
        check_choice("kind", self.kind, KINDS)
        check_choice("dash", self.dash, tuple(DASHES))
        x = np.asarray(self.x, dtype=float).ravel()
        y = np.asarray(self.y, dtype=float).ravel()
        if x.shape != y.shape:
            raise ParameterError(f"x and y of series {self.key!r} must have the same length; "
                                 f"got {x.size} and {y.size}")
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)
        if self.kind == "band":
            if self.y2 is None:
                raise ParameterError(f"a band needs y2; got y2=None for series {self.key!r}")
            y2 = np.asarray(self.y2, dtype=float).ravel()
            if y2.shape != x.shape:
                raise ParameterError(f"y2 of series {self.key!r} must match x; got {y2.size} "
                                     f"values for {x.size}")
            object.__setattr__(self, "y2", y2)


@dataclass(frozen=True)
class Rule:
    """A reference line across the plot: ``axis="x"`` is vertical at ``x = value``."""

    key: str
    axis: str
    value: float
    label: str = ""
    colour: str = PALETTE["black"]
    dash: str = "dotted"

    def __post_init__(self):
        check_choice("axis", self.axis, ("x", "y"))
        check_choice("dash", self.dash, tuple(DASHES))


@dataclass(frozen=True)
class FigureData:
    """Everything a chart shows, in plain numbers and words (no drawing library)."""

    title: str
    x_title: str
    y_title: str
    series: tuple = ()
    rules: tuple = ()
    log_x: bool = False
    log_y: bool = False
    x_domain: tuple | None = None
    y_domain: tuple | None = None
    legend: str = "bottom"
    extra: dict = field(default_factory=dict)

    def series_by_key(self, key: str) -> Series:
        """The series with this ``key`` (KeyError if none)."""
        for s in self.series:
            if s.key == key:
                return s
        raise KeyError(key)


def _check_data(data) -> None:
    if not isinstance(data, FigureData):
        raise TypeError(f"data must be a FigureData; got data={describe(data)} "
                        f"of type {type(data).__name__}")


# ------------------------------------------------------------------------ matplotlib
def to_matplotlib(data: FigureData, ax=None, figsize=(6.4, 4.0)):
    """Draw ``data`` with matplotlib; returns the ``Figure``.

    Lines carry their series' ``key`` as ``gid``; reference lines their rule's ``key``.
    """
    from ._style import new_axes

    _check_data(data)
    fig, ax = new_axes(ax, figsize=figsize)
    for s in data.series:
        label = s.label or None
        style = dict(color=s.colour, alpha=s.opacity, gid=s.key, label=label)
        if s.kind == "line":
            ax.plot(s.x, s.y, lw=s.width, ls=_MPL_DASH[s.dash], **style)
        elif s.kind == "step":
            ax.step(s.x, s.y, where="mid", lw=s.width, ls=_MPL_DASH[s.dash], **style)
        elif s.kind == "points":
            ax.plot(s.x, s.y, "o", ms=max(3.0, 2.5 * s.width), **style)
        elif s.kind == "band":
            ax.fill_between(s.x, s.y, s.y2, lw=0, **style)
        else:                                                     # bars
            ax.bar(s.x, s.y, width=s.width, **style)
    for r in data.rules:
        line = ax.axvline if r.axis == "x" else ax.axhline
        line(r.value, color=r.colour, lw=1.2, ls=_MPL_DASH[r.dash], gid=r.key,
             label=r.label or None)
    if data.log_x:
        ax.set_xscale("log")
    if data.log_y:
        ax.set_yscale("log")
    if data.x_domain is not None:
        ax.set_xlim(*data.x_domain)
    if data.y_domain is not None:
        ax.set_ylim(*data.y_domain)
    ax.set_xlabel(data.x_title)
    ax.set_ylabel(data.y_title)
    ax.set_title(data.title)
    if any(s.label for s in data.series) or any(r.label for r in data.rules):
        ax.legend(fontsize="small")
    return fig


# ------------------------------------------------------------------------- Vega-Lite
def _thin(n: int) -> np.ndarray:
    if n <= MAX_POINTS:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, MAX_POINTS).round().astype(int))


def _number(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


def _short(v: float) -> float:
    """``v`` to 6 significant digits (a chart needs no more, and the JSON gets shorter)."""
    return float(f"{v:.6g}")


def _rows(s: Series, log_x: bool, log_y: bool) -> list[dict]:
    idx = np.arange(s.x.size) if s.kind == "points" else _thin(s.x.size)
    x, y = s.x[idx], s.y[idx]
    y2 = s.y2[idx] if s.y2 is not None else None
    ok = np.isfinite(x) & np.isfinite(y)
    if y2 is not None:
        ok &= np.isfinite(y2)
    if log_x:
        ok &= x > 0
    if log_y:
        ok &= (y > 0) & ((y2 > 0) if y2 is not None else True)
    rows = []
    for i in np.flatnonzero(ok):
        row = {"x": _short(x[i]), "y": _short(y[i]), "series": s.label or s.key}
        if y2 is not None:
            row["y2"] = _short(y2[i])
        rows.append(row)
    return rows


def _scale(log: bool, domain) -> dict:
    scale: dict = {"type": "log"} if log else {"zero": False}
    if domain is not None:
        scale["domain"] = [_number(domain[0]), _number(domain[1])]
        scale["nice"] = False
    return scale


def to_vega_lite(data: FigureData, *, height: int = 340) -> dict:
    """A Vega-Lite v5 specification (``dict``) of ``data``, for ``st.vega_lite_chart``.

    Every series and rule with a label gets a legend entry in the series' colour; the
    palette, dashes and fonts are the same as the matplotlib renderer's. Non-finite
    points (and non-positive ones on a log axis) are left out, since Vega-Lite cannot
    place them.
    """
    _check_data(data)
    height = check_int("height", height, minimum=50, maximum=2000)
    x_enc = {"field": "x", "type": "quantitative", "title": data.x_title,
             "scale": _scale(data.log_x, data.x_domain)}
    y_enc = {"field": "y", "type": "quantitative", "title": data.y_title,
             "scale": _scale(data.log_y, data.y_domain)}
    named = [s for s in data.series if s.label] + [r for r in data.rules if r.label]
    colour = {"field": "series", "type": "nominal", "title": None,
              "scale": {"domain": [n.label for n in named], "range": [n.colour for n in named]},
              "legend": {"orient": data.legend, "labelLimit": 400, "columns": 2}
              if data.legend == "bottom" else {"orient": data.legend, "labelLimit": 400}}
    layers = []
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
                mark["interpolate"] = "step"
            if DASHES[s.dash]:
                mark["strokeDash"] = DASHES[s.dash]
        elif s.kind == "points":
            mark.update(type="circle", size=30 * s.width)
        elif s.kind == "band":
            mark.update(type="area")
            enc["y2"] = {"field": "y2"}
        else:
            mark.update(type="bar", width={"band": 0.9} if not math.isfinite(s.width) else None)
            mark = {k: v for k, v in mark.items() if v is not None}
            half = s.width / 2
            for row in rows:
                row["x2"], row["x"] = row["x"] + half, row["x"] - half
            enc["x2"] = {"field": "x2"}
            enc["y2"] = {"datum": 0}                             # bars rise from zero
        layers.append({"data": {"values": rows}, "mark": mark, "encoding": enc})
    for r in data.rules:
        if not math.isfinite(r.value) or ((data.log_x if r.axis == "x" else data.log_y)
                                          and r.value <= 0):
            continue
        enc = {r.axis: {"field": "v", "type": "quantitative"}}
        enc["color"] = colour if r.label else {"value": r.colour}
        row = {"v": float(r.value), "series": r.label or r.key}
        mark = {"type": "rule", "strokeWidth": 1.5}
        if DASHES[r.dash]:
            mark["strokeDash"] = DASHES[r.dash]
        layers.append({"data": {"values": [row]}, "mark": mark, "encoding": enc})
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        # a list of lines is how Vega-Lite writes a title over several lines
        "title": {"text": data.title.split("\n") if "\n" in data.title else data.title,
                  "fontSize": FONT_SIZES["title"], "anchor": "start"},
        "height": height,
        "layer": layers,
        "config": {
            "axis": {"titleFontSize": FONT_SIZES["axis_title"],
                     "labelFontSize": FONT_SIZES["axis_label"], "grid": True},
            "legend": {"labelFontSize": FONT_SIZES["legend"], "symbolStrokeWidth": 3},
            "view": {"stroke": None},
        },
    }
