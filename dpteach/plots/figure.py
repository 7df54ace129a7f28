"""One figure, two renderers: the data of a chart and how matplotlib and Vega-Lite draw it.

Every figure of dpteach has a *data function* (e.g.
:func:`dpteach.plots.calibration.sigma_comparison_data`) that computes what it shows, through
the math modules, and returns a :class:`FigureData`: named series of (x, y) points, shaded
bands, reference lines and spans, text marks, a heat map, axis titles with units, scales, ticks
and a title with ε and δ. Two renderers draw it:

* :func:`to_matplotlib` — a matplotlib ``Figure``, for the notebooks and for downloads (each
  line gets its series' ``key`` as ``gid``, so tests can find it);
* :func:`to_vega_lite` — a Vega-Lite specification (a plain ``dict``), which the browser
  draws: Streamlit's ``st.vega_lite_chart`` and JupyterLab both render it natively. The
  server sends a few kilobytes of numbers instead of a picture, so a slider move costs
  the computation and nothing else.

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

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import ParameterError, check_choice, check_int, describe
from ._style import PALETTE

__all__ = ["Series", "Rule", "Span", "Text", "HeatMap", "FigureData", "to_matplotlib",
           "to_vega_lite", "FONT_SIZES"]

KINDS = ("line", "points", "step", "band", "bars")
DASHES = {"solid": None, "dashed": [6, 3], "dotted": [2, 2], "dashdot": [6, 2, 2, 2]}
#: Where a legend goes: below the plot, to its right, or nowhere. Never inside it.
LEGENDS = ("bottom", "right", "none")
#: Where a step series steps: half-way between two points, after each point, before it.
STEPS = {"mid": "step", "post": "step-after", "pre": "step-before"}
_MPL_DASH = {"solid": "-", "dashed": "--", "dotted": ":", "dashdot": "-."}
#: Font sizes (px) of the browser charts: readable from the back of a lecture hall.
FONT_SIZES = {"title": 18, "axis_title": 15, "axis_label": 13, "legend": 14}
#: Points per line, band or bar series sent to the browser at most (longer ones are
#: thinned evenly; a curve needs no more at any screen width). Scatter series
#: (``kind="points"``) are sent whole: every point is a person the student should see.
MAX_POINTS = 300
#: A legend label longer than this puts the legend in one column (else two).
LEGEND_WIDE_LABEL = 38
#: Named tick labels are turned 45° when, each as long as the longest, together they would
#: be longer than this many characters (about the width of a plot in the tick font).
TICK_CHARS_FLAT = 72


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
    from ._style import new_axes

    _check_data(data)
    if not data.panels:
        if figsize is None:
            figsize = (6.4, 4.0 + _extra_height(data))
        fig, ax = new_axes(ax, figsize=figsize)
        _draw(data, ax)
        return fig
    axes = _panel_axes(data, ax, figsize)
    for panel, a in zip(data.panels, axes):
        _draw(panel, a)
    fig = axes[0].figure
    if data.title:
        title = fig.suptitle(data.title)
        title.set_text(_fitted(title, data.title, 0.95 * fig.bbox.width))
    return fig


def to_vega_lite(data: FigureData, *, height: int = 340) -> dict:
    """A Vega-Lite v5 specification (``dict``) of ``data``, for ``st.vega_lite_chart``.

    Every series, span and rule with a label gets a legend entry in its colour; the
    palette, dashes, ticks and fonts are the same as the matplotlib renderer's, and lines
    are drawn in the order of their points. Non-finite points (and non-positive ones on a
    log axis) are left out, since Vega-Lite cannot place them; a line breaks there.
    A figure of panels is a vertical concatenation, each panel ``height`` pixels high.
    """
    _check_data(data)
    height = check_int("height", height, minimum=50, maximum=2000)
    config = {
        "axis": {"titleFontSize": FONT_SIZES["axis_title"],
                 "labelFontSize": FONT_SIZES["axis_label"], "grid": True},
        "legend": {"labelFontSize": FONT_SIZES["legend"], "titleFontSize": FONT_SIZES["legend"],
                   "symbolStrokeWidth": 3},
        "view": {"stroke": None},
    }
    head = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json"}
    if not data.panels:
        return {**head, **_layers(data, height), "config": config}
    return {**head,
            "title": {"text": data.title.split("\n") if "\n" in data.title else data.title,
                      "fontSize": FONT_SIZES["title"], "anchor": "start"},
            "vconcat": [_layers(p, height) for p in data.panels],
            "resolve": {"scale": {"color": "independent"}, "legend": {"color": "independent"}},
            "config": config}


# ------------------------------------------------------------ shared by both renderers
def _check_data(data) -> None:
    if not isinstance(data, FigureData):
        raise TypeError(f"data must be a FigureData; got data={describe(data)} "
                        f"of type {type(data).__name__}")


def _legend_columns(data: FigureData) -> int:
    """Columns of the legend (both renderers): two below the plot, one for long labels."""
    labels = [label for label, _ in data.legend_entries()]
    if data.legend == "right" or len(labels) < 2:
        return 1
    return 1 if max(len(line) for label in labels for line in label.split("\n")) \
        > LEGEND_WIDE_LABEL else 2


def _tick_angle(ticks) -> int:
    """Angle (degrees) of named tick labels: flat, or 45° when many or long (both renderers)."""
    if not ticks:
        return 0
    return 45 if len(ticks) * max(len(label) for _, label in ticks) > TICK_CHARS_FLAT else 0


# ------------------------------------------------------------------- matplotlib helpers
def _extra_height(data: FigureData) -> float:
    """Inches a figure needs beyond 4 for its legend rows and title lines."""
    entries = len(data.legend_entries()) if data.legend == "bottom" else 0
    rows = math.ceil(entries / _legend_columns(data)) if entries else 0
    return 0.22 * rows + 0.22 * data.title.count("\n")


def _panel_axes(data: FigureData, ax, figsize):
    from matplotlib.axes import Axes

    n = len(data.panels)
    if ax is None:
        from ._style import new_axes

        if figsize is None:
            figsize = (6.4, 0.5 + sum(3.2 + _extra_height(p) for p in data.panels))
        fig, first = new_axes(None, figsize=figsize)
        first.remove()
        return list(fig.subplots(n, 1, squeeze=False)[:, 0])
    axes = list(ax) if isinstance(ax, (list, tuple, np.ndarray)) else [ax]
    if len(axes) != n or not all(isinstance(a, Axes) for a in axes):
        raise TypeError(f"ax must be a sequence of {n} matplotlib Axes (one per panel of this "
                        f"figure) or None; got ax={describe(ax)}")
    return axes


def _colormap(h: HeatMap):
    from matplotlib.colors import LinearSegmentedColormap

    low, high = h.stops[0], h.stops[-1]
    return LinearSegmentedColormap.from_list(
        h.key, [((s - low) / (high - low), c) for s, c in zip(h.stops, h.colours)])


def _draw(data: FigureData, ax) -> None:
    """Draw one panel of ``data`` on ``ax``."""
    from matplotlib.ticker import (FixedLocator, FuncFormatter, MaxNLocator,
                                   NullFormatter, NullLocator)

    handles = {}
    if data.heatmap is not None:
        h = data.heatmap
        mesh = ax.pcolormesh(h.x, h.y, h.z, shading="nearest", cmap=_colormap(h),
                             vmin=h.stops[0], vmax=h.stops[-1], alpha=h.opacity, lw=0,
                             gid=h.key, zorder=0)
        ax.figure.colorbar(mesh, ax=ax, label=h.label, fraction=0.05, pad=0.02)
    for sp in data.spans:
        span = ax.axvspan if sp.axis == "x" else ax.axhspan
        if math.isfinite(sp.low) and math.isfinite(sp.high):
            artist = span(sp.low, sp.high, color=sp.colour, alpha=sp.opacity, lw=0, gid=sp.key,
                          label=_label(sp.label), zorder=0.5)
            handles.setdefault(sp.label, artist)
    for s in data.series:
        style = dict(color=s.colour, alpha=s.opacity, gid=s.key, label=_label(s.label))
        if s.kind == "line":
            (artist,) = ax.plot(s.x, s.y, lw=s.width, ls=_MPL_DASH[s.dash], **style)
        elif s.kind == "step":
            (artist,) = ax.step(s.x, s.y, where=s.where, lw=s.width, ls=_MPL_DASH[s.dash],
                                **style)
        elif s.kind == "points":                   # a thin white rim: visible on any fill
            (artist,) = ax.plot(s.x, s.y, "o", ms=max(3.0, 2.5 * s.width), lw=0, mec="white",
                                mew=0.5, **style)
        elif s.kind == "band":
            artist = ax.fill_between(s.x, s.y, s.y2, lw=0, **style)
        else:                                                     # bars
            artist = ax.bar(s.x, s.y, width=s.width, **style)
        handles.setdefault(s.label, artist)
    for r in data.rules:
        line = ax.axvline if r.axis == "x" else ax.axhline
        if math.isfinite(r.value):
            artist = line(r.value, color=r.colour, lw=1.2, ls=_MPL_DASH[r.dash], gid=r.key,
                          label=_label(r.label))
            handles.setdefault(r.label, artist)
    for t in data.texts:
        if math.isfinite(t.x) and math.isfinite(t.y):
            ax.annotate(t.text, (t.x, t.y), xytext=(0, 3 if t.position == "above" else 0),
                        textcoords="offset points", ha="center",
                        va="bottom" if t.position == "above" else "center", color=t.colour,
                        fontsize="large" if t.large else "small", gid=t.key)
    if data.log_x:
        ax.set_xscale("log", nonpositive="mask")
    if data.log_y:
        ax.set_yscale("log", nonpositive="mask")
    elif data.symlog_y:
        ax.set_yscale("symlog", linthresh=1.0)
    if data.x_domain is not None:
        ax.set_xlim(*data.x_domain)
    if data.y_domain is not None:
        ax.set_ylim(*data.y_domain)
    for axis, ticks, integer, log in ((ax.xaxis, data.x_ticks, data.x_integer, data.log_x),
                                      (ax.yaxis, data.y_ticks, data.y_integer,
                                       data.log_y or data.symlog_y)):
        if ticks is not None:
            shown = [(v, t) for v, t in ticks if _placeable(v, log)]
            axis.set_major_locator(FixedLocator([v for v, _ in shown]))
            axis.set_major_formatter(FuncFormatter(
                lambda v, _, names=dict(shown): names.get(v, "")))
            axis.set_minor_locator(NullLocator())
            if axis is ax.xaxis and _tick_angle(shown):
                axis.set_tick_params(labelrotation=_tick_angle(shown))
                for label in axis.get_ticklabels():
                    label.set(ha="right", rotation_mode="anchor")
        elif integer:
            if not log:
                axis.set_major_locator(MaxNLocator(integer=True))
            axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
            axis.set_minor_formatter(NullFormatter())
        elif log:
            axis.set_major_formatter(_plain_log_formatter()(labelOnlyBase=True))
            axis.set_minor_formatter(_plain_log_formatter()(labelOnlyBase=False))
    ax.set_xlabel(data.x_title)
    ax.set_ylabel(data.y_title)
    ax.set_title(_fitted(ax.title, data.title, _room(ax)))
    if data.heatmap is None:
        ax.grid(True, alpha=0.3)
    entries = data.legend_entries()
    if entries and data.legend != "none":
        _legend(ax, [handles[label] for label, _ in entries], [label for label, _ in entries],
                data)


def _plain_number(v: float) -> str:
    """A tick label a student reads at once: 0.001, 0.5, 2, 1,000, 100,000 (powers of ten
    beyond that as 10⁷, 10⁻⁵)."""
    if v == 0 or not math.isfinite(v):
        return f"{v:g}"
    size = abs(v)
    if 1e-4 <= size < 1e7:
        return f"{v:,.0f}" if size >= 1 and v == round(v) else f"{v:,.4g}"
    power = math.log10(size)
    if abs(power - round(power)) < 1e-9:
        sign = "−" if v < 0 else ""
        return f"{sign}10{str(round(power)).translate(_SUPERSCRIPT)}"
    return f"{v:.2g}"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


@functools.cache
def _plain_log_formatter():
    from matplotlib.ticker import LogFormatter

    class PlainLog(LogFormatter):
        """Matplotlib's choice of which log ticks to label, with plain numbers."""

        def _num_to_string(self, x, vmin, vmax):
            return _plain_number(x)

    return PlainLog


def _room(ax) -> float:
    """Pixels of width a title over ``ax`` may take: its column(s) of the figure's grid."""
    fig = ax.figure
    spec = ax.get_subplotspec()
    if spec is None:
        return ax.get_window_extent().width
    columns = spec.get_gridspec().get_geometry()[1]
    return 0.85 * fig.bbox.width * len(spec.colspan) / columns     # the y axis takes the rest


def _fitted(text, title: str, room: float) -> str:
    """``title`` with every line wider than ``room`` pixels (in the font of the matplotlib
    ``text``) wrapped at a word: a narrow notebook panel shows all of it. The browser chart,
    as wide as the page, keeps the lines as they are."""
    import textwrap

    renderer = _renderer(text.figure)
    lines = []
    for line in title.split("\n"):
        width, _, _ = renderer.get_text_width_height_descent(line, text.get_fontproperties(),
                                                             ismath=False)
        if width <= room or len(line) < 20:
            lines.append(line)
        else:
            chars = max(20, int(len(line) * room / width))
            glued = line.replace(" = ", "\u00a0=\u00a0")          # "ε = 1" stays whole
            lines += [part.replace("\u00a0", " ")
                      for part in textwrap.wrap(glued, chars, break_long_words=False)]
    return "\n".join(lines)


def _label(text: str) -> str:
    """An artist's label: its legend text, so that ``ax.legend()`` finds it too (matplotlib
    leaves out labels starting with an underscore)."""
    return text or "_nolegend_"


def _renderer(fig):
    """A renderer for measuring text, attaching an Agg canvas to a figure that has none."""
    get = getattr(fig.canvas, "get_renderer", None)
    if get is None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
        get = fig.canvas.get_renderer
    return get()


def _legend(ax, handles, labels, data: FigureData) -> None:
    """The legend outside the axes: below the x-axis labels, or right of the plot."""
    from matplotlib.transforms import ScaledTranslation

    fig = ax.figure
    kw = dict(fontsize="small", ncols=_legend_columns(data), frameon=False,
              title=data.legend_title or None, title_fontsize="small")
    if data.legend == "right":
        ax.legend(handles, labels, loc="center left", bbox_to_anchor=(1.02, 0.5), **kw)
        return
    # below the tick labels and the axis title: their height is measured (it does not change
    # when a layout engine later moves the axes), and the legend hangs that far below
    renderer = _renderer(fig)
    decorations = ax.xaxis.get_tightbbox(renderer)
    below = 0.0 if decorations is None else ax.get_window_extent(renderer).y0 - decorations.y0
    shift = ScaledTranslation(0, -(max(below, 0.0) + 4) / fig.dpi, fig.dpi_scale_trans)
    legend = ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0),
                       bbox_transform=ax.transAxes + shift, **kw)
    if kw["ncols"] > 1 and legend.get_window_extent(renderer).width > _room(ax):
        kw["ncols"] = 1                  # two columns wider than a narrow panel: one column
        ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0),
                  bbox_transform=ax.transAxes + shift, **kw)


# -------------------------------------------------------------------- Vega-Lite helpers
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


def _placeable(v, log: bool) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    ok = np.isfinite(v)
    return ok & (v > 0) if log else ok


def _rows(s: Series, log_x: bool, log_y: bool) -> list[dict]:
    """The rows of a series: ``x``, ``y`` (``y2``), ``series``, the point's index ``i`` (lines
    are drawn in this order, as given, not sorted by x), ``part`` (lines break at a point
    that cannot be placed) and the tooltip fields ``t0``, ``t1``, …"""
    idx = np.arange(s.x.size) if s.kind == "points" else _thin(s.x.size)
    ok = _placeable(s.x[idx], log_x) & _placeable(s.y[idx], log_y)
    if s.y2 is not None:
        ok &= _placeable(s.y2[idx], log_y)
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
        if turn and _tick_angle(shown):
            axis.update(labelAngle=-45, labelAlign="right", labelBaseline="middle")
        else:
            axis["labelAngle"] = 0
        return axis
    if integer:
        return {"tickMinStep": 1, "format": ",d"} if not log else {"format": ",d"}
    return {"format": ",~g"} if log else {}


def _js(strings) -> str:
    import json

    return json.dumps(list(strings), ensure_ascii=False)


def _layers(data: FigureData, height: int) -> dict:
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
        legend = {"orient": data.legend, "labelLimit": 400, "title": data.legend_title or None}
        if _legend_columns(data) > 1:
            legend["columns"] = _legend_columns(data)
    colour = {"field": "series", "type": "nominal", "title": None,
              "scale": {"domain": [label for label, _ in entries],
                        "range": [c for _, c in entries]},
              "legend": legend}
    layers = []
    if data.heatmap is not None:
        layers.append(_heatmap_layer(data.heatmap, x_enc, y_enc))
    for sp in data.spans:
        log = data.log_x if sp.axis == "x" else data.log_y
        if not (_placeable(sp.low, log) and _placeable(sp.high, log)):
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
        if not _placeable(r.value, data.log_x if r.axis == "x" else data.log_y):
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
             if _placeable(t.x, data.log_x) and _placeable(t.y, data.log_y)]
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
    if data.heatmap is not None:             # a colour gradient and named series: two legends
        view["resolve"] = {"scale": {"color": "independent"},
                           "legend": {"color": "independent"}}
    return view


def _tooltip(s: Series, data: FigureData, x_field: str) -> list[dict]:
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


def _heatmap_layer(h: HeatMap, x_enc: dict, y_enc: dict) -> dict:
    """Cells centred on the grid points; on a regular grid the browser adds the half-steps
    (half the numbers to send)."""
    with np.errstate(over="ignore", invalid="ignore"):
        dx, dy = np.diff(h.x) / 2, np.diff(h.y) / 2
        ex = np.concatenate([[h.x[0] - dx[0]], h.x[:-1] + dx, [h.x[-1] + dx[-1]]])
        ey = np.concatenate([[h.y[0] - dy[0]], h.y[:-1] + dy, [h.y[-1] + dy[-1]]])
    if not (np.all(np.isfinite(ex)) and np.all(np.isfinite(ey))):
        raise ParameterError(f"the cells of heat map {h.key!r} reach beyond the float range; "
                             f"got x in [{h.x[0]:.3g}, {h.x[-1]:.3g}], y in "
                             f"[{h.y[0]:.3g}, {h.y[-1]:.3g}]")
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
    layer = {"data": {"values": cells},
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
