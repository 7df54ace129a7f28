"""Figures for calibrating Laplace and Gaussian noise to a query's sensitivity.

For a single real-valued query the ℓ1 and ℓ2 sensitivities coincide, so one
``sensitivity`` argument serves both mechanisms: Laplace noise uses it as Δ₁,
Gaussian noise as Δ₂. The Gaussian needs δ in (0, 1) (``delta``); the Laplace ignores it.
``method`` ("analytic" or "classic") is the Gaussian calibration of
:func:`dpteach.mechanisms.noise.gaussian_sigma`. A grid ``epsilons=None`` is 80
log-spaced values in [0.05, 10].

References
----------
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014. Thm 3.6 (Laplace),
   Thm A.1 (classic Gaussian), Sec 3.5.1 (privacy loss).
.. [BW18] B. Balle and Y.-X. Wang. Improving the Gaussian Mechanism for
   Differential Privacy: Analytical Calibration and Optimal Denoising. ICML 2018.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .._validation import (DELTA, DELTA_POSITIVE, EPSILON, SENSITIVITY, VALUE, ParameterError,
                           array, choice, integer, refuse, validate)
from ..mechanisms.noise import (gaussian_privacy_loss, gaussian_sigma, laplace_privacy_loss,
                                laplace_scale)
from ._style import PALETTE
from .figure import MAX_POINTS, FigureData, Rule, Series, Span, drawn

__all__ = [
    "neighbouring_densities_data", "plot_neighbouring_densities",
    "privacy_loss_data", "plot_privacy_loss",
    "sigma_comparison_data", "plot_sigma_comparison",
    "error_vs_epsilon_data", "plot_error_vs_epsilon",
    "dimension_crossover_data", "plot_dimension_crossover",
]

_LW = 2.2  # line width readable on a projector
EPSILONS_MAX_SIZE = 1_000   # largest ε grid (one σ calibration per value)

#: a grid of ε (default: 80 values from 0.05 to 10)
EPSILONS = array(ndim=1, min_size=2, max_size=EPSILONS_MAX_SIZE, low=1e-6, high=1e3,
                 example=[0.1, 0.5, 1.0, 4.0]).or_none()
METHOD = choice("analytic", "classic")
#: the densities' and the privacy loss's figures
DENSITIES = dict(sensitivity=SENSITIVITY, epsilon=EPSILON, delta=DELTA.or_none(),
                 mechanism=choice("laplace", "gaussian", "both"), value=VALUE, method=METHOD)
LOSS = dict(sensitivity=SENSITIVITY, epsilon=EPSILON, delta=DELTA.or_none(),
            mechanism=choice("laplace", "gaussian"), method=METHOD)
GRID = dict(sensitivity=SENSITIVITY, delta=DELTA_POSITIVE, epsilons=EPSILONS)
CROSSOVER = dict(epsilon=EPSILON, delta=DELTA_POSITIVE,
                 max_dimension=integer(2, 10**7, work=True, example=1000))


def _fmt(x: float) -> str:
    """Short human formatting: 1, 0.5, 1e-05, 0.333."""
    return f"{x:.3g}"


def _gaussian_delta(delta, mechanism: str) -> None:
    if mechanism != "laplace" and not delta:
        raise refuse("delta", delta, f"in (0, 1) with mechanism={mechanism!r} (no pure ε-DP)")


def _epsilon_grid(epsilons) -> np.ndarray:
    return np.geomspace(0.05, 10.0, 80) if epsilons is None else np.sort(epsilons)


def _per_epsilon(func, eps: np.ndarray) -> np.ndarray:
    """``[func(e) for e in eps]``, a refusal for one ε reported under the name ``epsilons``."""
    out = []
    for e in eps:
        try:
            out.append(func(float(e)))
        except ParameterError as exc:
            raise ParameterError(f"epsilons contains a value that cannot be used: {exc}") from None
    return np.array(out)


def _outputs(low: float, high: float, *corners: float) -> np.ndarray:
    """Outputs y to plot: evenly spaced from ``low`` to ``high`` plus the ``corners`` (where a
    curve has a cusp or a kink), :data:`~dpteach.plots.figure.MAX_POINTS` at most, so that the
    browser chart, which thins longer series, draws every corner exactly."""
    return np.union1d(np.linspace(low, high, MAX_POINTS - len(corners)), corners)


def _title(sensitivity: float, epsilon: float | None = None, delta: float | None = None,
           head: str = "") -> str:
    parts = [f"Δ = {_fmt(sensitivity)}"]
    if epsilon is not None:
        parts.append(f"ε = {_fmt(epsilon)}")
    if delta is not None:
        parts.append(f"δ = {_fmt(delta)}")
    return f"{head}\n" + ", ".join(parts) if head else ", ".join(parts)


# ----------------------------------------------------------------------- figures
@validate(**DENSITIES)
def neighbouring_densities_data(sensitivity: float, epsilon: float, delta: float | None = None,
                                mechanism: str = "laplace", value: float = 0.0,
                                method: str = "analytic") -> FigureData:
    """Output densities of a noisy query on a dataset D and on a neighbour D', as data.

    D has true answer ``value``, D' has ``value + sensitivity``. For the Laplace
    mechanism (scale ``b = Δ/ε``, [DR14]_ Thm 3.6) the two densities differ by
    a factor at most e^ε at every output; for the Gaussian (σ from
    :func:`dpteach.mechanisms.noise.gaussian_sigma`, [DR14]_ Thm A.1 / [BW18]_ Thm 8)
    the ratio is unbounded in the tails, which δ pays for.

    Series ``laplace-D``, ``laplace-D'``, ``gaussian-D``, ``gaussian-D'`` (the densities
    from ``value − s`` to ``value + Δ + s``, s = 5b or 3.5σ if larger); rules
    ``answer-D`` and ``answer-D'``; ``extra["peak"]``, the largest density.
    """
    _gaussian_delta(delta, mechanism)

    curves = []  # (name, scale label, frozen D, frozen D', colour D, colour D', spread)
    if mechanism in ("laplace", "both"):
        b = laplace_scale(sensitivity, epsilon)
        curves.append(("laplace", f"b = {_fmt(b)}", stats.laplace(value, b),
                       stats.laplace(value + sensitivity, b), PALETTE["blue"], PALETTE["sky"],
                       5 * b))
    if mechanism in ("gaussian", "both"):
        sigma = gaussian_sigma(sensitivity, epsilon, delta, method=method)
        curves.append(("gaussian", f"σ = {_fmt(sigma)}", stats.norm(value, sigma),
                       stats.norm(value + sensitivity, sigma), PALETTE["vermillion"],
                       PALETTE["orange"], 3.5 * sigma))

    spread = max(c[-1] for c in curves)
    y = _outputs(value - spread, value + sensitivity + spread, value, value + sensitivity)
    series = []
    for name, scale, dist_d, dist_n, col_d, col_n, _ in curves:
        nice = "Laplace" if name == "laplace" else "Gaussian"
        series.append(Series(f"{name}-D", f"{nice} on D (answer {_fmt(value)}), {scale}",
                             y, dist_d.pdf(y), colour=col_d, width=_LW))
        series.append(Series(f"{name}-D'", f"{nice} on D′ (answer {_fmt(value + sensitivity)}), "
                             f"{scale}", y, dist_n.pdf(y), colour=col_n, width=_LW,
                             dash="dashed"))
    top = float(max(max(c[2].pdf(value), c[3].pdf(value + sensitivity)) for c in curves))
    head = {"laplace": "Laplace mechanism", "gaussian": f"Gaussian mechanism ({method} σ)",
            "both": f"Laplace vs Gaussian ({method} σ)"}[mechanism]
    return FigureData(
        _title(sensitivity, epsilon, delta if mechanism != "laplace" else None,
               f"{head} on neighbouring datasets"),
        "released value y", "probability density", series=tuple(series),
        rules=(Rule("answer-D", "x", value), Rule("answer-D'", "x", value + sensitivity)),
        x_domain=(float(y[0]), float(y[-1])), y_domain=(0.0, 1.08 * top),
        extra={"peak": top})


plot_neighbouring_densities = drawn(neighbouring_densities_data)


@validate(**LOSS)
def privacy_loss_data(sensitivity: float, epsilon: float, delta: float | None = None,
                      mechanism: str = "laplace", method: str = "analytic") -> FigureData:
    """Privacy-loss random variable ``ln(p(y)/p'(y))`` against the output y, as data.

    Laplace: bounded by ±ε everywhere (:func:`laplace_privacy_loss`). Gaussian:
    a straight line, unbounded (:func:`gaussian_privacy_loss`); the outputs
    where ``|loss| > ε`` are shaded and the probability of landing there
    under D, ``P[L > ε] + P[L < −ε]`` with ``L ~ N(μ, 2μ)``, ``μ = Δ²/(2σ²)``,
    is given in the legend ([DR14]_ Sec 3.5.1 and App. A; [BW18]_ Sec 3).

    Series ``loss`` (D has answer 0, D′ has answer Δ); for the Gaussian, spans
    ``loss-exceeds-left`` and ``loss-exceeds-right`` and ``extra["p_exceeds"]``, their
    probability under D; rules ``plus-epsilon``, ``minus-epsilon`` and ``zero``.
    """
    _gaussian_delta(delta, mechanism)
    spans, extra = [], {}
    if mechanism == "laplace":
        b = laplace_scale(sensitivity, epsilon)
        y = _outputs(-1.5 * sensitivity - b, 2.5 * sensitivity + b, 0.0, sensitivity)
        loss = laplace_privacy_loss(y, sensitivity, epsilon)
        extent = epsilon
        label = f"Laplace, b = {_fmt(b)}: |loss| ≤ ε everywhere"
        head = "Privacy loss of the Laplace mechanism"
    else:
        sigma = gaussian_sigma(sensitivity, epsilon, delta, method=method)
        # Δ/σ depends on ε and δ only: the formulas below use it, not σ² (which over- or
        # underflows for σ beyond about 1e±154 although Δ/σ is ordinary)
        ratio = sensitivity / sigma
        cut = epsilon * sigma / ratio                     # = ε σ²/Δ: |loss| = ε at Δ/2 ± cut
        half = max(1.6 * cut, 3 * sigma, sensitivity)
        mu = ratio * ratio / 2                            # = Δ²/(2σ²)
        # the loss (Δ/σ²)(Δ/2 − y) is linear in y: its extent on the plotted range
        extent = max(epsilon, (half / sigma) * ratio)
        y = _outputs(sensitivity / 2 - half, sensitivity / 2 + half)
        # unchecked: the plotted outputs reach εσ²/Δ, beyond the outputs a student types
        loss = gaussian_privacy_loss.__wrapped__(y, sensitivity, sigma)
        # P[L > ε] + P[L < −ε] for L ~ N(μ, 2μ); √(2μ) = Δ/σ
        p_out = float(stats.norm.sf((epsilon - mu) / ratio)
                      + stats.norm.cdf((-epsilon - mu) / ratio))
        extra["p_exceeds"] = p_out
        for key, lo, hi, text in (
                ("loss-exceeds-left", y[0], sensitivity / 2 - cut,
                 f"|loss| > ε (probability {p_out:.2g} under D)"),
                ("loss-exceeds-right", sensitivity / 2 + cut, y[-1], "")):
            spans.append(Span(key, "x", lo, hi, text, PALETTE["orange"], 0.2))
        label = f"Gaussian ({method}), σ = {_fmt(sigma)}: unbounded"
        head = f"Privacy loss of the Gaussian mechanism ({method} σ)"
    series = (Series("loss", label, y, loss, colour=PALETTE["blue"], width=_LW),)
    rules = (Rule("plus-epsilon", "y", epsilon, "±ε", PALETTE["vermillion"], "dashed"),
             Rule("minus-epsilon", "y", -epsilon, "", PALETTE["vermillion"], "dashed"),
             Rule("zero", "y", 0.0, "", PALETTE["black"], "dotted"))
    return FigureData(
        _title(sensitivity, epsilon, delta if mechanism == "gaussian" else None, head),
        "released value y (D has answer 0, D′ has answer Δ)",
        "privacy loss ln(p(y | D) / p(y | D′))", series=series, rules=rules,
        spans=tuple(spans), x_domain=(float(y[0]), float(y[-1])),
        y_domain=(-1.1 * extent, 1.1 * extent), extra=extra)


plot_privacy_loss = drawn(privacy_loss_data)


@validate(**GRID)
def sigma_comparison_data(sensitivity: float, delta: float, epsilons=None) -> FigureData:
    """Classic versus analytic Gaussian σ as a function of ε (log-log), as data.

    Classic: ``σ = Δ √(2 ln(1.25/δ))/ε``, proved only for ε < 1 ([DR14]_
    Thm A.1), so it is given only there. Analytic: the smallest σ whose exact
    δ(ε) is at most δ ([BW18]_ Thm 8), valid for every ε. Series ``classic`` (absent if no
    ε < 1) and ``analytic``; rule ``epsilon-1`` when the grid straddles ε = 1.
    """
    eps = _epsilon_grid(epsilons)
    analytic = _per_epsilon(lambda e: gaussian_sigma(sensitivity, e, delta), eps)
    small = eps[eps < 1]
    classic = _per_epsilon(lambda e: gaussian_sigma(sensitivity, e, delta, method="classic"),
                           small) if small.size else np.array([])
    series = []
    if small.size:
        series.append(Series("classic", "classic σ = Δ√(2 ln(1.25/δ))/ε (only ε < 1)", small,
                             classic, colour=PALETTE["orange"], width=_LW, dash="dashed"))
    series.append(Series("analytic", "analytic σ (Balle & Wang 2018)", eps, analytic,
                         colour=PALETTE["blue"], width=_LW))
    rules = (Rule("epsilon-1", "x", 1.0),) if eps[0] < 1 < eps[-1] else ()
    return FigureData(_title(sensitivity, None, delta, "Gaussian noise: classic vs analytic σ"),
                      "ε (log scale; left = more private)", "noise standard deviation σ",
                      series=tuple(series), rules=rules, log_x=True, log_y=True)


plot_sigma_comparison = drawn(sigma_comparison_data)


@validate(**GRID, method=METHOD)
def error_vs_epsilon_data(sensitivity: float, delta: float, epsilons=None,
                          method: str = "analytic") -> FigureData:
    """Expected absolute error of Laplace and Gaussian noise against ε, as data.

    ``E|Lap(b)| = b = Δ/ε`` and ``E|N(0, σ²)| = σ √(2/π)``, with σ from
    :func:`dpteach.mechanisms.noise.gaussian_sigma` ([DR14]_ Thm 3.6, A.1; [BW18]_).
    With ``method="classic"`` every ε must be < 1. Series ``laplace`` and ``gaussian``.
    """
    eps = _epsilon_grid(epsilons)
    lap = _per_epsilon(lambda e: laplace_scale(sensitivity, e), eps)
    gau = _per_epsilon(lambda e: gaussian_sigma(sensitivity, e, delta, method=method), eps)
    gau = gau * math.sqrt(2 / math.pi)
    series = (Series("laplace", "Laplace: E|noise| = b = Δ/ε", eps, lap,
                     colour=PALETTE["blue"], width=_LW),
              Series("gaussian", f"Gaussian ({method} σ): E|noise| = σ√(2/π)", eps, gau,
                     colour=PALETTE["vermillion"], width=_LW, dash="dashed"))
    return FigureData(_title(sensitivity, None, delta, "Error of one noisy answer"),
                      "ε (log scale; left = more private)", "expected absolute error",
                      series=series, log_x=True, log_y=True)


plot_error_vs_epsilon = drawn(error_vs_epsilon_data)


@validate(**CROSSOVER)
def dimension_crossover_data(epsilon: float, delta: float,
                             max_dimension: int = 1000) -> FigureData:
    """Per-coordinate expected absolute error for d counting queries, against d.

    Releasing d counts, each changing by at most 1 between neighbours, has ℓ1
    sensitivity d and ℓ2 sensitivity √d. Laplace then adds ``Lap(d/ε)`` to
    each count (error ``d/ε``), the Gaussian ``N(0, σ(√d)²)`` with
    ``σ(√d) = √d·σ(1)`` (error ``√d·σ(1)·√(2/π)``), since the analytic σ is
    linear in the sensitivity ([BW18]_ Thm 8 depends on Δ/σ only). The curves
    cross at ``d* = (ε σ(1) √(2/π))²``; beyond it the Gaussian wins. ε is that of the
    whole release. Series ``laplace`` and ``gaussian``, rule ``crossover`` (when d* is in
    the plotted range), ``extra["d_star"]``.
    """
    d = np.unique(np.round(np.geomspace(1, max_dimension, 200)))
    sigma1 = gaussian_sigma(1.0, epsilon, delta)
    lap = d / epsilon
    gau = np.sqrt(d) * sigma1 * math.sqrt(2 / math.pi)
    d_star = (epsilon * sigma1 * math.sqrt(2 / math.pi)) ** 2
    series = (Series("laplace", "Laplace, ℓ1 sensitivity d: error d/ε", d, lap,
                     colour=PALETTE["blue"], width=_LW),
              Series("gaussian", "Gaussian, ℓ2 sensitivity √d: error √d·σ(1)·√(2/π)", d, gau,
                     colour=PALETTE["vermillion"], width=_LW, dash="dashed"))
    rules = ((Rule("crossover", "x", d_star, f"crossover d* ≈ {d_star:.3g}", PALETTE["black"],
                   "dotted"),) if 1 <= d_star <= max_dimension else ())
    return FigureData(f"d counting queries released together\nε = {_fmt(epsilon)}, "
                      f"δ = {_fmt(delta)} (analytic σ)",
                      "number of counting queries d (log scale)",
                      "expected absolute error per count", series=series, rules=rules,
                      log_x=True, log_y=True, x_integer=True, extra={"d_star": d_star})


plot_dimension_crossover = drawn(dimension_crossover_data)
