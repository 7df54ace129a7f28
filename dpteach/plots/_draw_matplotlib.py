"""Matplotlib's drawing of a :class:`~dpteach.plots.figure.FigureData`, for
:func:`dpteach.plots.figure.to_matplotlib`: each series, span, rule, text and heat map as its
artist (its key as ``gid``, its legend text as label), the scales and ticks, the title
wrapped to fit its panel, and the legend below the x-axis labels (or right of the plot).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from .._validation import refuse
from ._layout import legend_columns, placeable, tick_angle
from ._style import new_axes

_MPL_DASH = {"solid": "-", "dashed": "--", "dotted": ":", "dashdot": "-."}


def draw(data, ax=None, figsize=None):
    """``data`` (a checked FigureData) drawn with matplotlib: the ``Figure``
    (:func:`dpteach.plots.figure.to_matplotlib`)."""
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


def _extra_height(data) -> float:
    """Inches a figure needs beyond 4 for its legend rows and title lines."""
    entries = len(data.legend_entries()) if data.legend == "bottom" else 0
    rows = math.ceil(entries / legend_columns(data)) if entries else 0
    return 0.22 * rows + 0.22 * data.title.count("\n")


def _panel_axes(data, ax, figsize):
    from matplotlib.axes import Axes

    n = len(data.panels)
    if ax is None:
        if figsize is None:
            figsize = (6.4, 0.5 + sum(3.2 + _extra_height(p) for p in data.panels))
        fig, first = new_axes(None, figsize=figsize)
        first.remove()
        return list(fig.subplots(n, 1, squeeze=False)[:, 0])
    axes = list(ax) if isinstance(ax, (list, tuple, np.ndarray)) else [ax]
    if len(axes) != n or not all(isinstance(a, Axes) for a in axes):
        raise refuse("ax", ax, f"None or a sequence of {n} matplotlib Axes (one per panel)")
    return axes


def _colormap(h):
    from matplotlib.colors import LinearSegmentedColormap

    low, high = h.stops[0], h.stops[-1]
    return LinearSegmentedColormap.from_list(
        h.key, [((s - low) / (high - low), c) for s, c in zip(h.stops, h.colours)])


def _draw(data, ax) -> None:
    """Draw one panel of ``data`` on ``ax``."""
    from matplotlib.ticker import (FixedLocator, FuncFormatter, MaxNLocator,
                                   NullFormatter, NullLocator)

    handles: dict[str, Any] = {}   # legend label -> its first artist
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
            shown = [(v, t) for v, t in ticks if placeable(v, log)]
            axis.set_major_locator(FixedLocator([v for v, _ in shown]))
            axis.set_major_formatter(FuncFormatter(
                lambda v, _, names=dict(shown): names.get(v, "")))
            axis.set_minor_locator(NullLocator())
            if axis is ax.xaxis and tick_angle(shown):
                axis.set_tick_params(labelrotation=tick_angle(shown))
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
    labels = [label for label, _ in data.legend_entries() if label in handles]   # drawn ones
    if labels and data.legend != "none":
        _legend(ax, [handles[label] for label in labels], labels, data)


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


def _legend(ax, handles, labels, data) -> None:
    """The legend outside the axes: below the x-axis labels, or right of the plot."""
    from matplotlib.transforms import ScaledTranslation

    fig = ax.figure
    kw: dict[str, Any] = dict(fontsize="small", ncols=legend_columns(data), frameon=False,
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
