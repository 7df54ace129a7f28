"""Figures for reconstruction and tracing (notebook 12, the app's "Reconstruction attack").

* :func:`recovery_vs_noise_data` — fraction of secret bits recovered against the size of the
  answers' errors in units of √n, one curve per decoder ([DN03]_: errors o(√n) give the
  database away);
* :func:`recovery_vs_epsilon_data` — the same against the total ε of DP answers, under the
  ceiling ``(e^ε + δ)/(1 + e^ε)`` that no attacker can beat
  (:func:`dpteach.attacks.reconstruction.dp_recovery_bound`);
* :func:`tracing_power_data` — the power of a tracing test at a fixed false-positive rate
  against the number of attributes or the noise ([DSSUV15]_).

The numbers come from :mod:`dpteach.attacks.reconstruction` and
:mod:`dpteach.attacks.tracing` (the figures compute nothing but the DP ceiling). Each is a
:class:`~dpteach.plots.figure.FigureData` drawn by the ``plot_*`` function of the same name.

References
----------
.. [DN03] I. Dinur and K. Nissim. Revealing information while preserving privacy. PODS 2003.
.. [DSSUV15] C. Dwork, A. Smith, T. Steinke, J. Ullman and S. Vadhan. Robust traceability
   from trace amounts. FOCS 2015.
"""

from __future__ import annotations

import numpy as np

from .._validation import (
    ParameterError,
    check_array,
    check_delta,
    check_in_range,
    check_int,
    check_probability,
    describe,
)
from ..attacks.reconstruction import dp_recovery_bound
from ._style import CYCLE, PALETTE, refuse_undrawable, refuse_undrawable_log
from .figure import FigureData, Rule, Series, to_matplotlib

__all__ = [
    "MAX_CURVES", "MAX_CURVE_POINTS",
    "recovery_vs_noise_data", "plot_recovery_vs_noise",
    "recovery_vs_epsilon_data", "plot_recovery_vs_epsilon",
    "tracing_power_data", "plot_tracing_power",
]

#: Most curves in one figure (one palette colour each).
MAX_CURVES = 7
#: Most points of one curve.
MAX_CURVE_POINTS = 1000


def _grid(name: str, value, *, positive: bool = False) -> np.ndarray:
    x = check_array(name, value, ndim=1, allow_bool=False)
    if not 1 <= x.size <= MAX_CURVE_POINTS or np.any(x < 0) or (positive and np.any(x <= 0)):
        sign = "> 0" if positive else "≥ 0"
        raise ParameterError(f"{name} must hold 1 to {MAX_CURVE_POINTS} values {sign}; got "
                             f"{name}={describe(value)}")
    return x


def _curves(name: str, curves, size: int, *, low: float = 0.0, high: float = 1.0) -> dict:
    """label → array of ``size`` values in [low, high]; 1 to MAX_CURVES curves."""
    if not isinstance(curves, dict) or not 1 <= len(curves) <= MAX_CURVES:
        raise TypeError(f"{name} must be a dict of 1 to {MAX_CURVES} label → values; got "
                        f"{name}={describe(curves)} of type {type(curves).__name__}")
    out = {}
    for label, values in curves.items():
        if not isinstance(label, str) or not label:
            raise TypeError(f"{name} must have non-empty string labels; got the label "
                            f"{describe(label)} in {name}")
        y = check_array(name, values, ndim=1, allow_bool=False)
        if y.shape != (size,) or np.any(y < low) or np.any(y > high):
            raise ParameterError(f"{name}[{label!r}] must hold {size} values in [{low:g}, "
                                 f"{high:g}], one per x; got {name}[{label!r}]={describe(values)}")
        out[label] = y
    return out


def _highlight(value, what: str):
    if value is None:
        return None
    point = check_array("highlight", value, ndim=1, allow_bool=False)
    if point.size != 2:
        raise ParameterError(f"highlight must be a point ({what}, fraction); got "
                             f"highlight={describe(value)}")
    return float(point[0]), float(point[1])


def _lines(curves: dict, x: np.ndarray) -> list:
    order = np.argsort(x, kind="stable")
    series = []
    for i, (label, y) in enumerate(curves.items()):
        colour = CYCLE[i % len(CYCLE)]
        series += [Series(f"curve-{i}", label, x[order], y[order], colour=colour),
                   Series(f"curve-{i}-points", "", x[order], y[order], kind="points",
                          colour=colour, width=1.2)]
    return series


def recovery_vs_noise_data(relative_noise, fractions, *, n: int,
                           highlight=None) -> FigureData:
    """Fraction of the secret bits recovered against the error size E/√n.

    Parameters
    ----------
    relative_noise : array-like
        The error sizes in units of √n (e.g. the bound E of bounded noise divided by √n),
        1 to 1000 values in [0, 1e6].
    fractions : dict
        Decoder label → fractions recovered in [0, 1], one per error size; 1 to 7 curves.
    n : int
        Number of secret bits (for the title), in [1, 10**6].
    highlight : (float, float), optional
        A point (E/√n, fraction) to mark, e.g. a slider's setting.

    Returns
    -------
    FigureData
        Per curve i: ``line`` ``"curve-i"`` and ``points`` ``"curve-i-points"``; ``points``
        ``"highlight"``; rules ``"chance"`` (y = ½) and ``"sqrt-n"`` (x = 1).
    """
    x = _grid("relative_noise", relative_noise)
    refuse_undrawable("the error sizes", dict(relative_noise=relative_noise), x, limit=1e6)
    curves = _curves("fractions", fractions, x.size)
    n = check_int("n", n, minimum=1, maximum=10**6)
    point = _highlight(highlight, "E/√n")
    series = _lines(curves, x)
    if point is not None:
        check_in_range("highlight", point[0], 0.0, 1e6)
        check_in_range("highlight", point[1], 0.0, 1.0)
        series.append(Series("highlight", "this setting", [point[0]], [point[1]],
                             kind="points", colour=PALETTE["vermillion"], width=2.5))
    top = max(float(x.max()), 1.0, point[0] if point else 0.0)
    return FigureData(
        f"Reconstruction of n = {n} secret bits from noisy subset sums\n"
        "errors well below √n give the database away",
        "error size E / √n", "fraction of bits recovered", series=tuple(series),
        rules=(Rule("chance", "y", 0.5, "chance (coin flips)", PALETTE["black"], "dotted"),
               Rule("sqrt-n", "x", 1.0, "E = √n", PALETTE["black"], "dashed")),
        x_domain=(0.0, 1.05 * top), y_domain=(0.4, 1.02))


def plot_recovery_vs_noise(relative_noise, fractions, *, n: int, highlight=None, ax=None):
    """Fraction recovered against the error size (:func:`recovery_vs_noise_data`).

    Returns
    -------
    matplotlib.figure.Figure
        Lines with gids ``"curve-0"``, …; rules ``"chance"`` and ``"sqrt-n"``.
    """
    return to_matplotlib(recovery_vs_noise_data(relative_noise, fractions, n=n,
                                                highlight=highlight), ax=ax)


def recovery_vs_epsilon_data(epsilons, fractions, *, delta: float = 0.0,
                             highlight=None) -> FigureData:
    """Fraction recovered from DP answers against their total ε, under the DP ceiling.

    The ceiling ``(e^ε + δ)/(1 + e^ε)`` (:func:`dpteach.attacks.reconstruction.dp_recovery_bound`)
    holds in expectation for every attacker; a single run may lie a little above it.

    Parameters
    ----------
    epsilons : array-like
        Total ε, 1 to 1000 values in [1e-6, 1e4] (those of
        :func:`dpteach.attacks.reconstruction.dp_recovery_bound`).
    fractions : dict
        Label (decoder, accounting) → fractions recovered in [0, 1], one per ε; 1 to 7 curves.
    delta : float
        The total δ of the answers, in [0, 1).
    highlight : (float, float), optional
        A point (ε, fraction) to mark.

    Returns
    -------
    FigureData
        Per curve i: ``"curve-i"`` and ``"curve-i-points"``; ``line`` ``"dp-bound"`` (the
        ceiling on 200 ε's spanning the data); ``"highlight"``; rule ``"chance"``.
    """
    eps = _grid("epsilons", epsilons, positive=True)
    if eps.min() < 1e-6 or eps.max() > 1e4:                # dp_recovery_bound's total ε
        raise ParameterError(f"epsilons must lie in [1e-6, 1e4]; got epsilons={describe(epsilons)}")
    curves = _curves("fractions", fractions, eps.size)
    delta = check_delta("delta", delta)
    point = _highlight(highlight, "ε")
    series = _lines(curves, eps)
    lo, hi = float(eps.min()), float(eps.max())
    if point is not None:
        if not 1e-6 <= point[0] <= 1e4:
            raise ParameterError(f"highlight must have ε in [1e-6, 1e4]; got "
                                 f"highlight={describe(highlight)}")
        check_in_range("highlight", point[1], 0.0, 1.0)
        lo, hi = min(lo, point[0]), max(hi, point[0])
    grid = np.geomspace(lo, hi, 200) if hi > lo else np.array([lo])
    bound = np.array([dp_recovery_bound(e, delta) for e in grid])
    series.insert(0, Series("dp-bound", "DP ceiling (e^ε + δ)/(1 + e^ε)", grid, bound,
                            colour=PALETTE["black"], dash="dashed"))
    if point is not None:
        series.append(Series("highlight", "this setting", [point[0]], [point[1]],
                             kind="points", colour=PALETTE["vermillion"], width=2.5))
    note = "" if delta == 0 else f", δ = {delta:g}"
    return FigureData(
        f"Reconstruction from differentially private answers{note}\n"
        "no attack beats the ceiling (in expectation)",
        "total ε of all answers (log scale)", "fraction of bits recovered",
        series=tuple(series),
        rules=(Rule("chance", "y", 0.5, "chance (coin flips)", PALETTE["black"], "dotted"),),
        log_x=True, y_domain=(0.4, 1.02))


def plot_recovery_vs_epsilon(epsilons, fractions, *, delta: float = 0.0, highlight=None,
                             ax=None):
    """Fraction recovered against the total ε (:func:`recovery_vs_epsilon_data`).

    Returns
    -------
    matplotlib.figure.Figure
        Lines with gids ``"curve-0"``, …, ``"dp-bound"``; the rule ``"chance"``.
    """
    return to_matplotlib(recovery_vs_epsilon_data(epsilons, fractions, delta=delta,
                                                  highlight=highlight), ax=ax)


def tracing_power_data(x, powers, *, fpr: float, x_title: str = "number of attributes d",
                       log_x: bool = True, ceiling: float | None = None) -> FigureData:
    """Power of a tracing test at false-positive rate ``fpr`` against x (attributes or noise).

    Parameters
    ----------
    x : array-like
        1 to 1000 values ≥ 0 (> 0 and up to 1e200 with ``log_x``).
    powers : dict
        Label (simulated, normal approximation, with or without noise) → powers in [0, 1],
        one per x; 1 to 7 curves (from :func:`dpteach.attacks.tracing.tracing_attack` or
        :func:`~dpteach.attacks.tracing.tracing_power`).
    fpr : float
        The false-positive rate α in (0, 1): a blind guess has power α (rule ``"chance"``).
    x_title : str
        Axis title, e.g. "number of attributes d" or "noise on each mean (sd)".
    log_x : bool
    ceiling : float, optional
        A ceiling on the power in [0, 1], e.g. e^ε·α + δ for (ε, δ)-DP means (rule
        ``"dp-ceiling"``).

    Returns
    -------
    FigureData
        Per curve i: ``"curve-i"`` and ``"curve-i-points"``; rules ``"chance"`` and
        ``"dp-ceiling"``.
    """
    xs = _grid("x", x, positive=bool(log_x))
    if not isinstance(log_x, (bool, np.bool_)):
        raise TypeError(f"log_x must be True or False; got log_x={describe(log_x)}")
    if log_x:
        refuse_undrawable_log("x", dict(x=x), xs)
    else:
        refuse_undrawable("x", dict(x=x), xs)
    curves = _curves("powers", powers, xs.size)
    fpr = check_probability("fpr", fpr, open_low=True, open_high=True)
    if not isinstance(x_title, str):
        raise TypeError(f"x_title must be a string; got x_title={describe(x_title)}")
    rules = [Rule("chance", "y", fpr, f"chance: power = FPR = {fpr:g}", PALETTE["black"],
                  "dotted")]
    if ceiling is not None:
        ceiling = check_probability("ceiling", ceiling)
        rules.append(Rule("dp-ceiling", "y", ceiling, f"DP ceiling {ceiling:.3g}",
                          PALETTE["vermillion"], "dashed"))
    return FigureData(f"Tracing from released means: power at FPR {fpr:g}", x_title,
                      f"power (true-positive rate at FPR {fpr:g})",
                      series=tuple(_lines(curves, xs)), rules=tuple(rules), log_x=bool(log_x),
                      y_domain=(0.0, 1.02), x_integer=bool(np.all(xs == np.round(xs))))


def plot_tracing_power(x, powers, *, fpr: float, x_title: str = "number of attributes d",
                       log_x: bool = True, ceiling: float | None = None, ax=None):
    """Tracing power against attributes or noise (:func:`tracing_power_data`).

    Returns
    -------
    matplotlib.figure.Figure
        Lines with gids ``"curve-0"``, …; rules ``"chance"`` and ``"dp-ceiling"``.
    """
    return to_matplotlib(tracing_power_data(x, powers, fpr=fpr, x_title=x_title, log_x=log_x,
                                            ceiling=ceiling), ax=ax)
