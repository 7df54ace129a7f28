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

The chapter's ``plot_x`` function is ``to_matplotlib(x_data(...), ax=ax)``, made by
:func:`drawn`; the app draws the same ``x_data(...)`` with ``to_vega_lite``. Both renderers use one colour-blind-safe
palette (:data:`dpteach.plots.PALETTE`, Okabe & Ito 2008), the same labels, one y axis per
panel and a legend outside the plotting area (below it, or to its right), so that it never
covers a curve: a student sees the same picture in the notebook and on the projector.
Matplotlib's artists, tickers and layout are imported only when :func:`to_matplotlib` draws;
:func:`to_vega_lite` draws nothing (the browser does).

Tooltips are the one thing only the browser shows (a printed figure has no pointer); every
other feature of a FigureData is drawn by both renderers.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import FLAG, PROBABILITY, ArrayLike, Domain, anything, array, choice, \
    function, instance_of, integer, real, refuse, validate
from ._draw_matplotlib import draw as draw_matplotlib
from ._draw_vega_lite import spec as vega_lite_spec
from ._layout import DASHES, FONT_SIZES, KINDS, LEGENDS, MAX_POINTS, STEPS
from ._style import AXES, FIGSIZE, LINEAR_AXIS_MAX, PALETTE

__all__ = ["Series", "Rule", "Span", "Text", "HeatMap", "FigureData", "to_matplotlib",
           "to_vega_lite", "drawn", "FONT_SIZES", "MAX_POINTS"]

#: words: a key, a label, a title, a colour
TEXT: Domain = Domain("a string", lambda name, value: _text(name, value), example="a label",
              bad=[None, 3, b"bytes"])
#: the points of a series (raveled): numbers; NaN or ±inf leaves a gap in a line
POINTS = array(min_size=0, booleans=True, finite=False, example=[0.0, 1.0, 2.0],
               text="an array of numbers (NaN or ±inf for a gap)").flat()
#: a place on an axis (not NaN; ±inf is not drawn), and a width (a line's, or a bar's in x units)
PLACE = real(-math.inf, math.inf, example=1.0)
WIDTH = real(0.0, LINEAR_AXIS_MAX, example=2.0)
#: an axis range (low, high), a pair of finite numbers
RANGE: Domain = Domain("None or a pair (low, high) of finite numbers",
               lambda name, value: _pair(name, value), example=(0.0, 1.0),
               edges=(None,), bad=[(0.0, float("nan")), (0.0, float("inf")), (1.0,), "ab", 3])
#: named ticks: pairs (value, label)
TICKS: Domain = Domain("None or a sequence of (finite number, label) pairs",
               lambda name, value: _ticks(name, value), example=((0.0, "none"), (1.0, "all")),
               edges=(None,), bad=[((float("nan"), "a"),), (1.0,), "ab", 3])
#: a series' tooltips: (title, one value per point) pairs
TOOLTIP: Domain = Domain("a sequence of (title, values) pairs", lambda name, value: _tooltip(name, value),
                 example=(), bad=[3, "ab", (("title",),)])
EXTRA: Domain = Domain("a dict (None: an empty one)", lambda name, value: _dict(name, value), example={},
               bad=[3, "ab"])
#: a heat map's grid: increasing coordinates
GRID = array(ndim=1, min_size=2, example=[0.0, 1.0])
STOPS: Domain = Domain("2 to 100 increasing numbers", lambda name, value: tuple(map(float, _STOPS(name, value))),
               example=(0.0, 0.5, 1.0), bad=["abc", None, [1.0], [0.0, float("nan")]])
COLOURS: Domain = Domain("a sequence of colours (strings)", lambda name, value: _colours(name, value),
                 example=("#0072B2", "#FFFFFF", "#D55E00"), bad=[3, "ab", None, (1, 2)])
#: the parts of a figure, each a sequence of its kind (a tuple)
SERIES: Domain = Domain("a sequence of Series", lambda name, value: _items(name, value, Series, SERIES),
                example=(), bad=[3, "ab", None, ("a series",)])
RULES: Domain = Domain("a sequence of Rule", lambda name, value: _items(name, value, Rule, RULES),
               example=(), bad=[3, "ab", None, ("a rule",)])
SPANS: Domain = Domain("a sequence of Span", lambda name, value: _items(name, value, Span, SPANS),
               example=(), bad=[3, "ab", None, ("a span",)])
TEXTS: Domain = Domain("a sequence of Text", lambda name, value: _items(name, value, Text, TEXTS),
               example=(), bad=[3, "ab", None, ("a text",)])
PANELS: Domain = Domain("a sequence of FigureData",
                lambda name, value: _items(name, value, FigureData, PANELS),
                example=(), bad=[3, "ab", None, ("a panel",)])


@validate(key=TEXT, label=TEXT, x=POINTS, y=POINTS, kind=choice(*KINDS), y2=POINTS.or_none(),
          colour=TEXT, dash=choice(*DASHES), width=WIDTH, opacity=PROBABILITY,
          where=choice(*STEPS), tooltip=TOOLTIP)
@dataclass(frozen=True)
class Series:
    """One named series of a figure.

    Parameters
    ----------
    key : str
        Stable identifier (the matplotlib ``gid``; not shown).
    label : str
        Legend text; an empty label keeps the series out of the legend.
    x, y : array_like of float
        The points (same length; stored as arrays). A non-finite point breaks a line in two (both renderers);
        it is not drawn.
    kind : {"line", "points", "step", "band", "bars"}
        ``band`` shades between ``y`` and ``y2``; ``bars`` draws bars of width ``width``
        centred on ``x``, rising from 0.
    y2 : array_like of float, optional
        Upper edge of a band.
    colour : str
        A colour of :data:`~dpteach.plots.PALETTE` (or any CSS colour).
    width : float
        Line width (points), or the bar width in x units for ``bars``.
    where : {"mid", "post", "pre"}
        Where a ``step`` series steps (half-way, after or before each point).
    tooltip : tuple of (str, array)
        Extra numbers or words per point, shown when the pointer rests on it in the browser
        (a static picture has no pointer: matplotlib ignores them).
    """

    key: str
    label: str
    x: ArrayLike
    y: ArrayLike
    kind: str = "line"
    y2: ArrayLike | None = None
    colour: str = PALETTE["blue"]
    dash: str = "solid"
    width: float = 2.0
    opacity: float = 1.0
    where: str = "mid"
    tooltip: tuple = ()

    def __post_init__(self):
        n = self.x.size
        sizes = [self.y.size, *(v.size for _, v in self.tooltip)]
        if self.kind == "band":
            sizes.append(-1 if self.y2 is None else self.y2.size)
        if any(size != n for size in sizes):
            raise refuse(f"sizes (y, tooltips, y2) of {self.key!r}", sizes, f"{n} each, one per x")


@validate(key=TEXT, axis=choice("x", "y"), value=PLACE, label=TEXT, colour=TEXT,
          dash=choice(*DASHES))
@dataclass(frozen=True)
class Rule:
    """A reference line across the plot: ``axis="x"`` is vertical at ``x = value``."""

    key: str
    axis: str
    value: float
    label: str = ""
    colour: str = PALETTE["black"]
    dash: str = "dotted"


@validate(key=TEXT, axis=choice("x", "y"), low=PLACE, high=PLACE, label=TEXT, colour=TEXT,
          opacity=PROBABILITY)
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


@validate(key=TEXT, x=PLACE, y=PLACE, text=TEXT, colour=TEXT, position=choice("above", "center"),
          large=FLAG)
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


@validate(key=TEXT, label=TEXT, x=GRID, y=GRID, z=array(ndim=2, min_size=4),
          stops=STOPS,
          colours=COLOURS, opacity=PROBABILITY)
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
        if np.any(np.diff(self.x) <= 0) or np.any(np.diff(self.y) <= 0):
            raise refuse(f"x, y of heat map {self.key!r}", (self.x, self.y), "increasing")
        if self.z.shape != (self.y.size, self.x.size):
            raise refuse(f"z of heat map {self.key!r}", self.z, "of shape (y.size, x.size)")
        if len(self.stops) != len(self.colours) or np.any(np.diff(self.stops) <= 0):
            raise refuse(f"stops of heat map {self.key!r}", self.stops, "increasing, 1 per colour")


HEATMAP = instance_of(HeatMap, "a HeatMap").or_none()


@validate(title=TEXT, x_title=TEXT, y_title=TEXT, series=SERIES, rules=RULES, log_x=FLAG,
          log_y=FLAG, x_domain=RANGE, y_domain=RANGE, legend=choice(*LEGENDS), extra=EXTRA,
          spans=SPANS, texts=TEXTS, heatmap=HEATMAP, x_ticks=TICKS, y_ticks=TICKS,
          x_integer=FLAG, y_integer=FLAG, symlog_y=FLAG, legend_title=TEXT, panels=PANELS)
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
    x_ticks, y_ticks : tuple of (float, str), optional
        Ticks at these values with these labels (e.g. named categories).
    x_integer, y_integer : bool
        Counts: ticks only at whole numbers.
    symlog_y : bool
        A y scale linear around 0 (within ±1) and logarithmic beyond.
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
    extra: dict = None  # type: ignore[assignment]   # a new {} for each figure (EXTRA)
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
        if self.panels and (self.series or self.rules or self.spans or self.texts
                            or self.heatmap is not None or any(p.panels for p in self.panels)):
            raise refuse("panels", self.panels, "without panels, in a figure without series, "
                                                "rules, spans, texts or heat map")

    @validate(key=TEXT)
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


FIGURE = instance_of(FigureData, "a FigureData")


# ------------------------------------------------------------------------ the renderers
@validate(data=FIGURE, ax=anything("None, a matplotlib Axes, or one Axes per panel"),
          figsize=FIGSIZE.or_none())
def to_matplotlib(data: FigureData, ax=None, figsize=None):
    """Draw ``data`` with matplotlib; returns the ``Figure``.

    Lines carry their series' ``key`` as ``gid``, and so do bars, bands, reference lines,
    spans, texts and the heat map. The legend goes below (or right of) the axes, outside
    them. A figure of panels needs one axes per panel: ``ax`` is then None or a sequence of
    that many Axes.

    Parameters
    ----------
    ax : matplotlib Axes (or a sequence of Axes, one per panel), optional
        Draw here (``figsize`` is then ignored); default: a new figure.
    figsize : (float, float), optional
        Width and height of a new figure in inches; default 6.4 wide, tall enough for the
        title, the legend and the panels.
    """
    return draw_matplotlib(data, ax, figsize)


@validate(data=function("a data function x_data(...) that returns a FigureData"),
          figsize=FIGSIZE.or_none())
def drawn(data: Callable[..., FigureData], figsize=None) -> Callable[..., Any]:
    """The chapter's ``plot_x``: ``x_data``'s figure drawn with matplotlib.

    ``plot_x`` takes the arguments of ``x_data`` (the same names, defaults and teaching
    domains) and ``ax``, the matplotlib Axes to draw on (None: a new figure of ``figsize``),
    and returns the ``Figure``; its lines, bars and rules carry the keys of ``x_data``'s
    series and rules as gids.
    """
    core = getattr(data, "__wrapped__", data)
    signature = inspect.signature(core)
    params = list(signature.parameters.values())
    kind = (inspect.Parameter.KEYWORD_ONLY if any(p.kind == p.KEYWORD_ONLY for p in params)
            else inspect.Parameter.POSITIONAL_OR_KEYWORD)
    signature = signature.replace(parameters=[*params, inspect.Parameter("ax", kind, default=None)],
                                  return_annotation="matplotlib.figure.Figure")

    def plot(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        ax = bound.arguments.pop("ax", None)
        return to_matplotlib(core(*bound.args, **bound.kwargs), ax=ax, figsize=figsize)

    name = "plot_" + data.__name__.removesuffix("_data")
    plot.__name__ = plot.__qualname__ = name
    plot.__module__ = data.__module__
    plot.__signature__ = signature                          # type: ignore[attr-defined]
    plot.__doc__ = (f"Draw :func:`{data.__name__}` with matplotlib; returns the ``Figure``.\n\n"
                    f"    Arguments as :func:`{data.__name__}`, and ``ax``: the matplotlib Axes "
                    "to draw on\n    (None: a new figure). Lines, bars and rules carry the keys "
                    "of its series and\n    rules as gids.\n    ")
    return validate(**getattr(data, "__domains__", {}), ax=AXES)(plot)


@validate(data=FIGURE, height=integer(50, 2000, example=340))
def to_vega_lite(data: FigureData, *, height: int = 340) -> dict:
    """A Vega-Lite v6 specification (``dict``) of ``data``, for ``st.vega_lite_chart`` (the
    Vega-Lite version Streamlit draws with, and the schema the tests validate against).

    Every series, span and rule with a label gets a legend entry in its colour; the
    palette, dashes, ticks and fonts are the same as the matplotlib renderer's, and lines
    are drawn in the order of their points. Non-finite points (and non-positive ones on a
    log axis) are left out, since Vega-Lite cannot place them; a line breaks there.
    A figure of panels is a vertical concatenation, each panel ``height`` pixels high.
    """
    return vega_lite_spec(data, height)


# ------------------------------------------------------------------------------ helpers
def _text(name: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    raise TEXT.refuse(name, value)


def _pair(name: str, value: Any) -> tuple[float, float] | None:
    if value is None:
        return None
    low, high = _PAIR(name, value)
    return float(low), float(high)


def _ticks(name: str, value: Any) -> tuple | None:
    if value is None:
        return None
    try:
        pairs = [(PLACE(name, v), str(t)) for v, t in value]
    except (TypeError, ValueError):
        raise TICKS.refuse(name, value) from None
    return tuple(pairs)


def _tooltip(name: str, value: Any) -> tuple:
    try:
        return tuple((str(title), np.asarray(values).ravel()) for title, values in value)
    except (TypeError, ValueError):
        raise TOOLTIP.refuse(name, value) from None


def _colours(name: str, value: Any) -> tuple:
    if isinstance(value, (list, tuple)) and all(isinstance(c, str) for c in value):
        return tuple(value)
    raise COLOURS.refuse(name, value)


def _dict(name: str, value: Any) -> dict:
    if value is None or isinstance(value, dict):
        return {} if value is None else value
    raise EXTRA.refuse(name, value)


def _items(name: str, value: Any, cls: type, domain: Domain) -> tuple:
    """A sequence of ``cls`` instances, as a tuple."""
    if isinstance(value, (list, tuple)) and all(isinstance(item, cls) for item in value):
        return tuple(value)
    raise domain.refuse(name, value)


_STOPS: Domain = array(ndim=1, min_size=2, max_size=100)
_PAIR: Domain = array(ndim=1, min_size=2, max_size=2, low=-LINEAR_AXIS_MAX, high=LINEAR_AXIS_MAX,
              text="None or a pair (low, high) of finite numbers")
