"""One figure, two renderers: the data of a chart and how matplotlib and Vega-Lite draw it.

Every figure of dpteach has a *data function* (e.g.
:func:`dpteach.plots.calibration.sigma_comparison_data`) that computes what it shows, through
the math modules, and returns a :class:`FigureData`: named series of (x, y) points, shaded
bands, reference lines and spans, text marks, a heat map, axis titles with units, scales, ticks
and a title with ε and δ. Two renderers draw it:

* :func:`to_matplotlib` — a matplotlib ``Figure``, for the notebooks and for downloads (each
  line gets its series' ``key`` as ``gid``, so tests can find it);
* :func:`to_vega_lite` — a Vega-Lite specification (a plain ``dict``), which the browser
  draws (Streamlit's ``st.vega_lite_chart``). The server sends a few kilobytes of numbers
  instead of a picture, so a slider move costs the computation and nothing else.

The chapter's ``plot_x`` function is ``to_matplotlib(x_data(...), ax=ax)``; the app draws
the same ``x_data(...)`` with ``to_vega_lite``. Both renderers use one colour-blind-safe
palette (:data:`dpteach.plots.PALETTE`, Okabe & Ito 2008), the same labels, one y axis per
panel and a legend outside the plotting area (below it, or to its right), so that it never
covers a curve: a student sees the same picture in the notebook and on the projector.
Matplotlib's artists, tickers and layout are imported only when :func:`to_matplotlib` draws;
:func:`to_vega_lite` draws nothing (the browser does).

Tooltips are the one thing only the browser shows (a printed figure has no pointer); every
other feature of a FigureData is drawn by both renderers (``tests/plots/test_figure.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validation import ParameterError, check_choice, check_int, describe
from . import _draw_matplotlib, _draw_vega_lite
from ._layout import DASHES, FONT_SIZES, KINDS, LEGENDS, MAX_POINTS, STEPS
from ._style import PALETTE

__all__ = ["Series", "Rule", "Span", "Text", "HeatMap", "FigureData", "to_matplotlib",
           "to_vega_lite", "FONT_SIZES", "MAX_POINTS"]


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
        The points (same length). A non-finite point breaks a line in two (both renderers);
        it is not drawn.
    kind : {"line", "points", "step", "band", "bars"}
        ``band`` shades between ``y`` and ``y2``; ``bars`` draws bars of width ``width``
        centred on ``x``, rising from 0.
    y2 : array of float, optional
        Upper edge of a band.
    colour : str
        A colour of :data:`~dpteach.plots.PALETTE` (or any CSS colour).
    dash : {"solid", "dashed", "dotted", "dashdot"}
    width : float
        Line width (points), or the bar width in x units for ``bars``.
    opacity : float
    where : {"mid", "post", "pre"}
        Where a ``step`` series steps (half-way, after or before each point).
    tooltip : tuple of (str, array)
        Extra numbers or words per point, shown when the pointer rests on it in the browser
        (a static picture has no pointer: matplotlib ignores them).
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
    where: str = "mid"
    tooltip: tuple = ()

    def __post_init__(self):
        check_choice("kind", self.kind, KINDS)
        check_choice("dash", self.dash, tuple(DASHES))
        check_choice("where", self.where, tuple(STEPS))
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
        tips = []
        for title, values in self.tooltip:
            values = np.asarray(values).ravel()
            if values.shape != x.shape:
                raise ParameterError(f"tooltip {title!r} of series {self.key!r} must have one "
                                     f"value per point; got {values.size} for {x.size}")
            tips.append((str(title), values))
        object.__setattr__(self, "tooltip", tuple(tips))


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
class Span:
    """A shaded stripe across the whole plot: ``axis="x"`` shades ``low ≤ x ≤ high`` over the
    full height (e.g. a public range, or where a privacy loss exceeds ε)."""

    key: str
    axis: str
    low: float
    high: float
    label: str = ""
    colour: str = PALETTE["sky"]
    opacity: float = 0.2

    def __post_init__(self):
        check_choice("axis", self.axis, ("x", "y"))


@dataclass(frozen=True)
class Text:
    """Words at a point of the plot (data coordinates), e.g. a bar's value above it.

    ``position="above"`` puts the text's bottom just above the point, ``"center"`` centres
    it there; ``large`` makes it larger (a symbol such as ∞, or a message over an empty
    plot).
    """

    key: str
    x: float
    y: float
    text: str
    colour: str = PALETTE["black"]
    position: str = "above"
    large: bool = False

    def __post_init__(self):
        check_choice("position", self.position, ("above", "center"))


@dataclass(frozen=True)
class HeatMap:
    """Values on a grid, drawn as coloured cells under the series (e.g. P(class 1)).

    ``z[j, i]`` colours the cell centred on ``(x[i], y[j])``, whose edges lie half-way to the
    neighbouring grid points. ``stops`` are values mapped to ``colours`` (linearly in
    between); the colour bar (matplotlib) or gradient legend (browser) is titled ``label``.
    """

    key: str
    label: str
    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    stops: tuple = (0.0, 0.5, 1.0)
    colours: tuple = (PALETTE["blue"], "#FFFFFF", PALETTE["vermillion"])
    opacity: float = 0.55

    def __post_init__(self):
        x = np.asarray(self.x, dtype=float).ravel()
        y = np.asarray(self.y, dtype=float).ravel()
        z = np.asarray(self.z, dtype=float)
        if (x.size < 2 or y.size < 2 or np.any(np.diff(x) <= 0) or np.any(np.diff(y) <= 0)
                or z.shape != (y.size, x.size)):
            raise ParameterError(f"heat map {self.key!r} needs increasing x and y (2 values or "
                                 f"more) and z of shape (y.size, x.size); got x of size "
                                 f"{x.size}, y of size {y.size}, z of shape {z.shape}")
        if len(self.stops) != len(self.colours) or len(self.stops) < 2:
            raise ParameterError(f"heat map {self.key!r} needs one colour per stop; got "
                                 f"{len(self.stops)} stops and {len(self.colours)} colours")
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "z", z)


@dataclass(frozen=True)
class FigureData:
    """Everything a chart shows, in plain numbers and words (no drawing library).

    Parameters
    ----------
    title, x_title, y_title : str
        Lines of a title are separated by ``"\\n"``.
    series, rules : tuple of Series, tuple of Rule
    log_x, log_y : bool
        Log scales (non-positive values are not drawn).
    x_domain, y_domain : (float, float), optional
        Axis ranges (default: the data's).
    legend : {"bottom", "right", "none"}
        Where the legend goes: outside the plot, so that it covers no data.
    extra : dict
        Numbers the figure was drawn from, for pages and tests (not drawn).
    spans : tuple of Span
    texts : tuple of Text
    heatmap : HeatMap, optional
    x_ticks, y_ticks : tuple of (float, str), optional
        Ticks at these values with these labels (e.g. named categories).
    x_integer, y_integer : bool
        Counts: ticks only at whole numbers.
    symlog_y : bool
        A y scale linear around 0 (within ±1) and logarithmic beyond.
    legend_title : str
    panels : tuple of FigureData
        A figure of several charts stacked top to bottom (each panel its own axes, with
        its own y axis and legend): then ``series`` etc. are empty and ``title`` is the
        title over all of them.
    """

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
    spans: tuple = ()
    texts: tuple = ()
    heatmap: HeatMap | None = None
    x_ticks: tuple | None = None
    y_ticks: tuple | None = None
    x_integer: bool = False
    y_integer: bool = False
    symlog_y: bool = False
    legend_title: str = ""
    panels: tuple = ()

    def __post_init__(self):
        check_choice("legend", self.legend, LEGENDS)
        for name in ("x_ticks", "y_ticks"):
            ticks = getattr(self, name)
            if ticks is not None:
                object.__setattr__(self, name, tuple((float(v), str(t)) for v, t in ticks))
        if self.panels and (self.series or self.rules or self.spans or self.texts
                            or self.heatmap is not None):
            raise ParameterError("a figure of panels draws only its panels; got series, rules, "
                                 "spans, texts or a heat map besides panels")
        if any(not isinstance(p, FigureData) or p.panels for p in self.panels):
            raise ParameterError("panels must be FigureData without panels of their own")

    def series_by_key(self, key: str) -> Series:
        """The series with this ``key`` (KeyError if none)."""
        for s in self.series:
            if s.key == key:
                return s
        raise KeyError(key)

    def legend_entries(self) -> list[tuple[str, str]]:
        """``(label, colour)`` of every legend entry, in order: series, spans, rules (each
        label once)."""
        seen, out = set(), []
        for item in (*self.series, *self.spans, *self.rules):
            if item.label and item.label not in seen:
                seen.add(item.label)
                out.append((item.label, item.colour))
        return out


# ------------------------------------------------------------------------ the renderers
def to_matplotlib(data: FigureData, ax=None, figsize=None):
    """Draw ``data`` with matplotlib; returns the ``Figure``.

    Lines carry their series' ``key`` as ``gid``, and so do bars, bands, reference lines,
    spans, texts and the heat map. The legend goes below (or right of) the axes, outside
    them. A figure of panels needs one axes per panel: ``ax`` is then None or a sequence of
    that many Axes.

    Parameters
    ----------
    data : FigureData
    ax : matplotlib Axes (or a sequence of Axes, one per panel), optional
        Draw here (``figsize`` is then ignored); default: a new figure.
    figsize : (float, float), optional
        Width and height of a new figure in inches; default 6.4 wide, tall enough for the
        title, the legend and the panels.
    """
    _check_data(data)
    return _draw_matplotlib.draw(data, ax, figsize)


def to_vega_lite(data: FigureData, *, height: int = 340) -> dict:
    """A Vega-Lite v6 specification (``dict``) of ``data``, for ``st.vega_lite_chart`` (the
    Vega-Lite version Streamlit draws with, and the schema the tests validate against).

    Every series, span and rule with a label gets a legend entry in its colour; the
    palette, dashes, ticks and fonts are the same as the matplotlib renderer's, and lines
    are drawn in the order of their points. Non-finite points (and non-positive ones on a
    log axis) are left out, since Vega-Lite cannot place them; a line breaks there.
    A figure of panels is a vertical concatenation, each panel ``height`` pixels high.
    """
    _check_data(data)
    height = check_int("height", height, minimum=50, maximum=2000)
    return _draw_vega_lite.spec(data, height)


def _check_data(data) -> None:
    if not isinstance(data, FigureData):
        raise TypeError(f"data must be a FigureData; got data={describe(data)} "
                        f"of type {type(data).__name__}")
