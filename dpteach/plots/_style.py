"""Common style for dpteach figures: a colour-blind-safe palette (Okabe & Ito 2008)."""

from __future__ import annotations

import matplotlib.pyplot as plt

# Okabe-Ito colour-blind-safe palette
PALETTE = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "sky": "#56B4E9",
    "purple": "#CC79A7",
    "yellow": "#F0E442",
    "black": "#000000",
}
CYCLE = [PALETTE[c] for c in ("blue", "orange", "green", "vermillion", "sky", "purple", "black")]


def new_axes(ax=None, figsize=(6.4, 4.0)):
    """Return ``(fig, ax)``: the given axes and their figure, or a new pair.

    New figures are created with :class:`matplotlib.figure.Figure` directly
    (not ``pyplot``), so repeated calls from a slider or the app never pile up
    open figures in pyplot's global registry.
    """
    if ax is not None:
        from matplotlib.axes import Axes

        if not isinstance(ax, Axes):
            raise TypeError(f"ax must be a matplotlib Axes or None; got ax={ax!r:.60} "
                            f"of type {type(ax).__name__}")
        return ax.figure, ax
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    ax = fig.add_subplot()
    ax.set_prop_cycle(color=CYCLE)
    return fig, ax


__all__ = ["PALETTE", "CYCLE", "new_axes", "plt"]
