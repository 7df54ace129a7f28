"""The rules both renderers of :mod:`dpteach.plots.figure` follow, so that a figure looks the
same in a notebook (matplotlib) and in the browser (Vega-Lite): the dashes, the steps, the
fonts of the browser charts, how many points a series sends, when a legend takes one column
and when named ticks are turned.
"""

from __future__ import annotations

import numpy as np

KINDS = ("line", "points", "step", "band", "bars")
DASHES = {"solid": None, "dashed": [6, 3], "dotted": [2, 2], "dashdot": [6, 2, 2, 2]}
#: Where a legend goes: below the plot, to its right, or nowhere. Never inside it.
LEGENDS = ("bottom", "right", "none")
#: Where a step series steps: half-way between two points, after each point, before it.
STEPS = {"mid": "step", "post": "step-after", "pre": "step-before"}
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


def legend_columns(data) -> int:
    """Columns of the legend (both renderers): two below the plot, one for long labels."""
    labels = [label for label, _ in data.legend_entries()]
    if data.legend == "right" or len(labels) < 2:
        return 1
    return 1 if max(len(line) for label in labels for line in label.split("\n")) \
        > LEGEND_WIDE_LABEL else 2


def tick_angle(ticks) -> int:
    """Angle (degrees) of named tick labels: flat, or 45° when many or long (both renderers)."""
    if not ticks:
        return 0
    return 45 if len(ticks) * max(len(label) for _, label in ticks) > TICK_CHARS_FLAT else 0


def placeable(v, log: bool) -> np.ndarray:
    """Whether each value can be placed on an axis: finite, and > 0 on a log axis."""
    v = np.asarray(v, dtype=float)
    ok = np.isfinite(v)
    return ok & (v > 0) if log else ok
