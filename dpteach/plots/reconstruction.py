"""Figures for reconstruction and tracing (notebook 20, the app's "Reconstruction attack").

The numbers come from :mod:`dpteach.attacks.reconstruction` and
:mod:`dpteach.attacks.tracing` (the figures compute nothing but the DP ceiling). Each curve
i of the dict of curves is drawn as series ``curve-i`` and ``curve-i-points``, one value
per x.

References
----------
.. [DN03] I. Dinur and K. Nissim. Revealing information while preserving privacy. PODS 2003.
.. [DSSUV15] C. Dwork, A. Smith, T. Steinke, J. Ullman and S. Vadhan. Robust traceability
   from trace amounts. FOCS 2015.
"""

from __future__ import annotations

import numpy as np

from typing import Any

from .._validation import DELTA, FLAG, PROBABILITY, Domain, array, integer, real, refuse, validate
from ..attacks.reconstruction import dp_recovery_bound
from ._style import CYCLE, PALETTE, labelled
from .figure import TEXT, FigureData, Rule, Series, drawn

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

#: error sizes E/√n, total ε (those of dp_recovery_bound), attributes or noise levels
NOISES = array(ndim=1, max_size=MAX_CURVE_POINTS, low=0.0, high=1e6, example=[0.1, 1.0, 3.0])
EPSILONS = array(ndim=1, max_size=MAX_CURVE_POINTS, low=1e-6, high=1e4, example=[0.1, 1.0, 3.0])
XS = array(ndim=1, max_size=MAX_CURVE_POINTS, low=0.0, high=1e15, example=[10.0, 100.0, 1000.0])
#: label → one value in [0, 1] per x
CURVES = labelled(array(ndim=1, max_size=MAX_CURVE_POINTS, low=0.0, high=1.0), MAX_CURVES,
                  f"a dict of 1 to {MAX_CURVES} curves, non-empty label → values in [0, 1]",
                  example={"decoder": [0.9, 0.7, 0.5]},
                  bad=[{}, {"": [0.5]}, {"a": [1.5]}, {"a": "ab"}, [0.5], None])
#: a point (x, fraction) to mark
NOISE_POINT: Domain = Domain("None or a point (E/√n, fraction) in [0, 1e6] × [0, 1]",
                     lambda name, value: _point(name, value, 0.0, 1e6, NOISE_POINT),
                     example=None, edges=(None,), bad=[(2e6, 0.5), (0.5, 1.5), (1.0,), "ab"])
EPSILON_POINT: Domain = Domain("None or a point (ε, fraction) in [1e-6, 1e4] × [0, 1]",
                       lambda name, value: _point(name, value, 1e-6, 1e4, EPSILON_POINT),
                       example=None, edges=(None,), bad=[(0.0, 0.5), (0.5, 1.5), (1.0,), "ab"])


def _lines(curves: dict, x: np.ndarray) -> list:
    order = np.argsort(x, kind="stable")
    series = []
    for i, (label, y) in enumerate(curves.items()):
        colour = CYCLE[i % len(CYCLE)]
        series += [Series(f"curve-{i}", label, x[order], y[order], colour=colour),
                   Series(f"curve-{i}-points", "", x[order], y[order], kind="points",
                          colour=colour, width=1.2)]
    return series


@validate(relative_noise=NOISES, fractions=CURVES, n=integer(1, 10**6, example=100),
          highlight=NOISE_POINT)
def recovery_vs_noise_data(relative_noise, fractions, *, n: int,
                           highlight=None) -> FigureData:
    """Fraction of the secret bits recovered against the error size E/√n, one curve per
    decoder ([DN03]_: errors o(√n) give the database away).

    ``relative_noise`` are the error sizes in units of √n (e.g. the bound E of bounded noise
    divided by √n), ``n`` the number of secret bits, ``highlight`` a point (E/√n, fraction)
    to mark. Points ``highlight``; rules ``chance`` (y = ½) and ``sqrt-n`` (x = 1).
    """
    x, curves, point = relative_noise, fractions, highlight
    _one_per_x("fractions", curves, "relative_noise", x)
    series = _lines(curves, x)
    if point is not None:
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


plot_recovery_vs_noise = drawn(recovery_vs_noise_data)


@validate(epsilons=EPSILONS, fractions=CURVES, delta=DELTA, highlight=EPSILON_POINT)
def recovery_vs_epsilon_data(epsilons, fractions, *, delta: float = 0.0,
                             highlight=None) -> FigureData:
    """Fraction recovered from DP answers against their total ε, under the DP ceiling.

    The ceiling ``(e^ε + δ)/(1 + e^ε)`` (:func:`dpteach.attacks.reconstruction.dp_recovery_bound`)
    holds in expectation for every attacker; a single run may lie a little above it.
    Line ``dp-bound`` (the ceiling), points ``highlight`` (a point (ε, fraction) to mark),
    rule ``chance``.
    """
    eps, curves, point = epsilons, fractions, highlight
    _one_per_x("fractions", curves, "epsilons", eps)
    series = _lines(curves, eps)
    lo, hi = float(eps.min()), float(eps.max())
    if point is not None:
        lo, hi = min(lo, point[0]), max(hi, point[0])
    grid = np.geomspace(lo, hi, 200) if hi > lo else np.array([lo])
    bound = np.array([dp_recovery_bound.__wrapped__(e, delta) for e in grid])
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


plot_recovery_vs_epsilon = drawn(recovery_vs_epsilon_data)


@validate(x=XS, powers=CURVES, fpr=real(0.0, 1.0, low_open=True, high_open=True, example=0.05),
          x_title=TEXT, log_x=FLAG, ceiling=PROBABILITY.or_none())
def tracing_power_data(x, powers, *, fpr: float, x_title: str = "number of attributes d",
                       log_x: bool = True, ceiling: float | None = None) -> FigureData:
    """Power of a tracing test at false-positive rate ``fpr`` against x (attributes or noise),
    [DSSUV15]_.

    ``powers`` are from :func:`dpteach.attacks.tracing.tracing_attack` or
    :func:`~dpteach.attacks.tracing.tracing_power` (x > 0 with ``log_x``). Rules ``chance``
    (a blind guess has power α = ``fpr``) and ``dp-ceiling`` (``ceiling``, e.g. e^ε·α + δ for
    (ε, δ)-DP means).
    """
    xs, curves = x, powers
    _one_per_x("powers", curves, "x", xs)
    if log_x and np.any(xs <= 0):
        raise refuse("x", xs, "> 0 on a log axis (log_x=True)")
    rules = [Rule("chance", "y", fpr, f"chance: power = FPR = {fpr:g}", PALETTE["black"],
                  "dotted")]
    if ceiling is not None:
        rules.append(Rule("dp-ceiling", "y", ceiling, f"DP ceiling {ceiling:.3g}",
                          PALETTE["vermillion"], "dashed"))
    return FigureData(f"Tracing from released means: power at FPR {fpr:g}", x_title,
                      f"power (true-positive rate at FPR {fpr:g})",
                      series=tuple(_lines(curves, xs)), rules=tuple(rules), log_x=bool(log_x),
                      y_domain=(0.0, 1.02), x_integer=bool(np.all(xs == np.round(xs))))


plot_tracing_power = drawn(tracing_power_data)


def _one_per_x(name: str, curves: dict, x_name: str, x: np.ndarray) -> None:
    if any(y.shape != x.shape for y in curves.values()):
        raise refuse(name, curves, f"one value per {x_name} ({x.size}) in each curve")


_PAIR: Domain = array(ndim=1, min_size=2, max_size=2)


def _point(name: str, value: Any, low: float, high: float, domain: Domain):
    if value is None:
        return None
    x, fraction = (float(v) for v in _PAIR(name, value))
    if low <= x <= high and 0.0 <= fraction <= 1.0:
        return x, fraction
    raise domain.refuse(name, value)
