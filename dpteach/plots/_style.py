"""Common style for dpteach figures: a colour-blind-safe palette (Okabe & Ito 2008)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validation import Domain, ParameterError, array, describe, refuse, validate

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

#: Largest magnitude a figure places on a linear axis. Matplotlib's 5 % margins, tick
#: formatter and transforms overflow for spans from about 1e306 to the largest double
#: (1.8e308); 1e300 leaves them room.
LINEAR_AXIS_MAX = 1e300
#: Largest value a figure places on a log axis. Matplotlib's log locator steps by up to
#: a hundred decades, and a tick beyond the largest double breaks its formatter.
LOG_AXIS_MAX = 1e200
#: Allowed width and height of a new figure, in inches (a 50 × 50 inch figure is a
#: 100 MB image at 100 dpi; below 0.1 inch nothing fits).
FIGSIZE_RANGE = (0.1, 50.0)
#: ``ax=`` of a figure: where to draw
AXES: Domain = Domain("a matplotlib Axes, or None for a new figure",
              lambda name, value: _axes(name, value), example=None, edges=(None,),
              bad=["axes", 3])
#: ``figsize=`` of a new figure: (width, height) in inches
FIGSIZE = array(ndim=1, min_size=2, max_size=2, low=FIGSIZE_RANGE[0], high=FIGSIZE_RANGE[1],
                example=(6.4, 4.0), text="(width, height) in inches, each in [0.1, 50]")


def _as_floats(values) -> np.ndarray:
    """``values`` as a float array; integers beyond the float range become ±inf."""
    try:
        return np.asarray(values, dtype=float)
    except OverflowError:
        items = np.asarray(values, dtype=object)
        return np.array([_as_float(v) for v in items.ravel()]).reshape(items.shape)


def _as_float(v) -> float:
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def refuse_undrawable(what: str, args: dict, *coordinates, limit: float = LINEAR_AXIS_MAX):
    """Raise ParameterError unless every coordinate is finite with magnitude ≤ ``limit``.

    A plot function passes the numbers it is about to place on a linear axis (the
    ends of a plotted range, a density's peak, an axis extent) and ``args``, the
    user's arguments that determine them; at the ends of the float range (a noise
    scale near 1e-308 or 1e308, an ε near the largest double) they overflow, and
    matplotlib cannot draw them. The message names every argument in ``args``.
    """
    bound = _as_floats(limit)
    if not all(np.all(np.isfinite(c)) and np.all(np.abs(c) <= bound)
               for c in map(_as_floats, coordinates)):
        raise _undrawable(what, f"cannot be drawn: a coordinate overflows or lies beyond "
                          f"±{float(bound):.0e}, the range a linear axis can show", args)


def refuse_undrawable_log(what: str, args: dict, *curves, limit: float = LOG_AXIS_MAX):
    """Raise ParameterError unless the curves can be drawn on a log-scale axis.

    A log axis shows the finite values > 0 of its curves (0 and ∞ are left out); it
    needs at least one, and matplotlib's log locator, which steps by up to a hundred
    decades, and its formatter fail on a tick beyond the largest double, so every
    such value must be at most ``limit``. ``curves`` are what the figure places on the
    axis (grids as well as results), ``args`` the user's arguments behind them.
    """
    bound = _as_floats(limit)
    shown = [c[np.isfinite(c) & (c > 0)] for c in map(_as_floats, curves)]
    if not any(c.size for c in shown):
        problem = ("are all 0 or infinite for these values (they under- or overflow), so the "
                   "log-scale figure would be empty")
    elif any(np.any(c > bound) for c in shown):
        problem = (f"cannot be drawn: a value lies beyond {float(bound):.0e}, the range a log "
                   "axis can show")
    else:
        return
    raise _undrawable(what, problem, args)


def refuse_unless_two_features(X: np.ndarray, y: np.ndarray) -> None:
    """The rule of the figures of a classifier in the plane: rows of two features, one label
    per row, at most two classes."""
    if X.shape[1] != 2 or y.shape != (X.shape[0],) or np.unique(y).size > 2:
        raise refuse("X, y shapes", (X.shape, y.shape), "(n, 2), (n,) with ≤ 2 classes")


def names(most: int, text: str, *, distinct: bool = False, **tests: Any) -> Domain:
    """The domain of 1 to ``most`` non-empty strings (``distinct``: no two equal), returned
    as a tuple; ``text`` says so, ``tests`` as :class:`Domain`."""
    def convert(name: str, value: Any) -> tuple[str, ...]:
        iterable = hasattr(value, "__iter__") and not isinstance(value, (str, bytes, dict))
        items = tuple(value) if iterable else ()
        if not (1 <= len(items) <= most and all(isinstance(s, str) and s for s in items)
                and (not distinct or len(set(items)) == len(items))):
            raise domain.refuse(name, value)
        return items

    domain = Domain(text, convert, **tests)
    return domain


def labelled(values: Domain, most: int, text: str, **tests: Any) -> Domain:
    """The domain of a dict of 1 to ``most`` entries, non-empty label (a string) → a value of
    ``values`` (curves or releases by name); ``text`` says so, ``tests`` as :class:`Domain`."""
    def convert(name: str, value: Any) -> dict:
        if not (isinstance(value, dict) and 1 <= len(value) <= most
                and all(isinstance(label, str) and label for label in value)):
            raise domain.refuse(name, value)
        return {label: values(f"{name}[{label!r}]", v) for label, v in value.items()}

    domain = Domain(text, convert, **tests)
    return domain


def _undrawable(what: str, problem: str, args: dict) -> ParameterError:
    """The error of a figure that cannot be drawn, naming the arguments behind it."""
    got = ", ".join(f"{k}={describe(v)}" for k, v in args.items())
    return ParameterError(f"{what} {problem}; got {got}")


def shipped_table(load, filename: str, script: str) -> dict:
    """The table ``dpteach/data/<filename>`` that ``load()`` reads, or FileNotFoundError
    naming the script that makes it."""
    table = load()
    if table is None:
        raise FileNotFoundError(f"dpteach/data/{filename} is missing: run {script}")
    return table


@validate(ax=AXES, figsize=FIGSIZE)
def new_axes(ax=None, figsize=(6.4, 4.0)):
    """Return ``(fig, ax)``: the given axes and their figure, or a new pair.

    New figures are created with :class:`matplotlib.figure.Figure` directly
    (not ``pyplot``), so repeated calls from a slider or the app never pile up
    open figures in pyplot's global registry.

    Parameters
    ----------
    ax : matplotlib Axes, optional
        Draw here (``figsize`` is then ignored).
    figsize : (float, float)
        Width and height of a new figure in inches, each in [0.1, 50].
    """
    if ax is not None:
        return ax.figure, ax
    from matplotlib.figure import Figure

    fig = Figure(figsize=(float(figsize[0]), float(figsize[1])), layout="constrained")
    ax = fig.add_subplot()
    ax.set_prop_cycle(color=CYCLE)
    return fig, ax


def _axes(name: str, value: Any) -> Any:
    """None, or a matplotlib Axes (matplotlib is imported only to check one)."""
    if value is None:
        return None
    from matplotlib.axes import Axes

    if isinstance(value, Axes):
        return value
    raise AXES.refuse(name, value)


__all__ = ["PALETTE", "CYCLE", "LINEAR_AXIS_MAX", "FIGSIZE_RANGE", "new_axes", "AXES", "FIGSIZE",
           "refuse_undrawable", "refuse_undrawable_log", "LOG_AXIS_MAX", "shipped_table",
           "labelled", "names", "refuse_unless_two_features"]
