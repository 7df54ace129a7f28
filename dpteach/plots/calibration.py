"""Figures for calibrating Laplace and Gaussian noise to a query's sensitivity.

Each function validates its arguments (through :mod:`dpteach._validation` or the
:mod:`dpteach.mechanisms` functions it calls), draws on ``ax`` (or on a new
pyplot-free figure from :func:`dpteach.plots._style.new_axes`) and returns the
:class:`matplotlib.figure.Figure`.

For a single real-valued query the ℓ1 and ℓ2 sensitivities coincide, so one
``sensitivity`` argument serves both mechanisms: Laplace noise uses it as Δ₁,
Gaussian noise as Δ₂.

Every curve is tagged with a ``gid`` (e.g. ``"laplace-D"``) so tests and
notebooks can find the plotted data with ``[l for l in ax.lines if l.get_gid() == ...]``.

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

from .._validation import (
    ParameterError,
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_finite,
    check_int,
    check_sensitivity,
)
from ..mechanisms import gaussian_privacy_loss, gaussian_sigma, laplace_privacy_loss, laplace_scale
from ._style import PALETTE, new_axes

__all__ = [
    "plot_neighbouring_densities",
    "plot_privacy_loss",
    "plot_sigma_comparison",
    "plot_error_vs_epsilon",
    "plot_dimension_crossover",
]

_LW = 2.2  # line width readable on a projector


def _fmt(x: float) -> str:
    """Short human formatting: 1, 0.5, 1e-05, 0.333."""
    return f"{x:.3g}"


def _delta_for_gaussian(delta, mechanism: str) -> float | None:
    """Validate δ; the Gaussian needs δ in (0, 1), the Laplace ignores it."""
    if delta is None:
        if mechanism in ("gaussian", "both"):
            raise ParameterError("delta must be given (in (0, 1)) for the Gaussian mechanism; "
                                 "got delta=None")
        return None
    delta = check_delta("delta", delta)
    if delta == 0 and mechanism in ("gaussian", "both"):
        raise ParameterError("delta must be in (0, 1) for the Gaussian mechanism; got delta=0. "
                             "Gaussian noise cannot give pure (epsilon, 0)-DP.")
    return delta


def _epsilon_grid(epsilons) -> np.ndarray:
    if epsilons is None:
        return np.geomspace(0.05, 10.0, 80)
    eps = check_array("epsilons", epsilons, ndim=1, min_size=2)
    if np.any(eps <= 0):
        raise ParameterError(f"epsilons must all be finite and > 0; got min(epsilons)={eps.min()!r}")
    return np.sort(eps)


def _title(sensitivity: float, epsilon: float | None = None, delta: float | None = None,
           head: str = "") -> str:
    parts = [f"Δ = {_fmt(sensitivity)}"]
    if epsilon is not None:
        parts.append(f"ε = {_fmt(epsilon)}")
    if delta is not None:
        parts.append(f"δ = {_fmt(delta)}")
    return f"{head}\n" + ", ".join(parts) if head else ", ".join(parts)


# ----------------------------------------------------------------------- figures
def plot_neighbouring_densities(sensitivity: float, epsilon: float, delta: float | None = None,
                                mechanism: str = "laplace", value: float = 0.0,
                                method: str = "analytic", ax=None):
    """Output densities of a noisy query on a dataset D and on a neighbour D'.

    D has true answer ``value``, D' has ``value + sensitivity``. For the Laplace
    mechanism (scale ``b = Δ/ε``, [DR14]_ Thm 3.6) the two densities differ by
    a factor at most e^ε at every output; for the Gaussian (σ from
    :func:`dpteach.mechanisms.gaussian_sigma`, [DR14]_ Thm A.1 / [BW18]_ Thm 8)
    the ratio is unbounded in the tails, which δ pays for.

    Parameters
    ----------
    sensitivity : float
        Δ, finite > 0 (ℓ1 for Laplace, ℓ2 for Gaussian; equal for one number).
    epsilon : float
        Finite > 0.
    delta : float, optional
        In (0, 1); required when ``mechanism`` involves the Gaussian, ignored
        for the Laplace.
    mechanism : {"laplace", "gaussian", "both"}
    value : float
        True answer on D.
    method : {"analytic", "classic"}
        Gaussian calibration, see :func:`dpteach.mechanisms.gaussian_sigma`.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Curves have gids ``"laplace-D"``, ``"laplace-D'"``, ``"gaussian-D"``,
        ``"gaussian-D'"``.
    """
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    epsilon = check_epsilon("epsilon", epsilon)
    mechanism = check_choice("mechanism", mechanism, {"laplace", "gaussian", "both"})
    value = check_finite("value", value)
    method = check_choice("method", method, {"analytic", "classic"})
    delta = _delta_for_gaussian(delta, mechanism)

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
    y = np.linspace(value - spread, value + sensitivity + spread, 801)
    fig, ax = new_axes(ax)
    for name, scale, dist_d, dist_n, col_d, col_n, _ in curves:
        nice = "Laplace" if name == "laplace" else "Gaussian"
        ax.plot(y, dist_d.pdf(y), color=col_d, lw=_LW, gid=f"{name}-D",
                label=f"{nice} on D (answer {_fmt(value)}), {scale}")
        ax.plot(y, dist_n.pdf(y), color=col_n, lw=_LW, ls="--", gid=f"{name}-D'",
                label=f"{nice} on D′ (answer {_fmt(value + sensitivity)}), {scale}")
    for x in (value, value + sensitivity):
        ax.axvline(x, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("released value y")
    ax.set_ylabel("probability density")
    top = max(max(c[2].pdf(value), c[3].pdf(value + sensitivity)) for c in curves)
    ax.set_ylim(0, (1.35 + 0.12 * len(curves)) * top)     # room for the legend
    ax.legend(fontsize="small", loc="upper right")
    head = {"laplace": "Laplace mechanism", "gaussian": f"Gaussian mechanism ({method} σ)",
            "both": f"Laplace vs Gaussian ({method} σ)"}[mechanism]
    ax.set_title(_title(sensitivity, epsilon, delta if mechanism != "laplace" else None,
                        f"{head} on neighbouring datasets"))
    return fig


def plot_privacy_loss(sensitivity: float, epsilon: float, delta: float | None = None,
                      mechanism: str = "laplace", method: str = "analytic", ax=None):
    """Privacy-loss random variable ``ln(p(y)/p'(y))`` against the output y.

    Laplace: bounded by ±ε everywhere (:func:`laplace_privacy_loss`). Gaussian:
    a straight line, unbounded (:func:`gaussian_privacy_loss`); the outputs
    where ``|loss| > ε`` are shaded and the probability of landing there
    under D, ``P[L > ε] + P[L < −ε]`` with ``L ~ N(μ, 2μ)``, ``μ = Δ²/(2σ²)``,
    is printed ([DR14]_ Sec 3.5.1 and App. A; [BW18]_ Sec 3).

    Parameters
    ----------
    sensitivity, epsilon : float
        Finite > 0.
    delta : float, optional
        In (0, 1); required for the Gaussian.
    mechanism : {"laplace", "gaussian"}
    method : {"analytic", "classic"}
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        The loss curve has gid ``"loss"``; the shaded regions ``"loss-exceeds"``.
    """
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    epsilon = check_epsilon("epsilon", epsilon)
    mechanism = check_choice("mechanism", mechanism, {"laplace", "gaussian"})
    method = check_choice("method", method, {"analytic", "classic"})
    delta = _delta_for_gaussian(delta, mechanism)

    fig, ax = new_axes(ax)
    if mechanism == "laplace":
        b = laplace_scale(sensitivity, epsilon)
        y = np.linspace(-1.5 * sensitivity - b, 2.5 * sensitivity + b, 801)
        loss = laplace_privacy_loss(y, sensitivity, epsilon)
        label = f"Laplace, b = {_fmt(b)}: |loss| ≤ ε everywhere"
        head = "Privacy loss of the Laplace mechanism"
    else:
        sigma = gaussian_sigma(sensitivity, epsilon, delta, method=method)
        cut = epsilon * sigma ** 2 / sensitivity          # |loss| = ε at Δ/2 ± cut
        half = max(1.6 * cut, 3 * sigma, sensitivity)
        y = np.linspace(sensitivity / 2 - half, sensitivity / 2 + half, 801)
        loss = gaussian_privacy_loss(y, sensitivity, sigma)
        mu = sensitivity ** 2 / (2 * sigma ** 2)
        p_out = float(stats.norm.sf((epsilon - mu) / math.sqrt(2 * mu))
                      + stats.norm.cdf((-epsilon - mu) / math.sqrt(2 * mu)))
        ax.axvspan(y[0], sensitivity / 2 - cut, color=PALETTE["orange"], alpha=0.2, lw=0,
                   gid="loss-exceeds", label=f"|loss| > ε (probability {p_out:.2g} under D)")
        ax.axvspan(sensitivity / 2 + cut, y[-1], color=PALETTE["orange"], alpha=0.2, lw=0,
                   gid="loss-exceeds")
        label = f"Gaussian ({method}), σ = {_fmt(sigma)}: unbounded"
        head = f"Privacy loss of the Gaussian mechanism ({method} σ)"
    ax.plot(y, loss, color=PALETTE["blue"], lw=_LW, gid="loss", label=label)
    ax.axhline(epsilon, color=PALETTE["vermillion"], ls="--", lw=1.5, label="±ε")
    ax.axhline(-epsilon, color=PALETTE["vermillion"], ls="--", lw=1.5)
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_xlim(y[0], y[-1])
    ax.set_xlabel("released value y (D has answer 0, D′ has answer Δ)")
    ax.set_ylabel(r"privacy loss $\ln\,p_D(y)\,/\,p_{D'}(y)$")
    ax.legend(fontsize="small", loc="upper right")
    ax.set_title(_title(sensitivity, epsilon, delta if mechanism == "gaussian" else None, head))
    return fig


def plot_sigma_comparison(sensitivity: float, delta: float, epsilons=None, ax=None):
    """Classic versus analytic Gaussian σ as a function of ε (log-log).

    Classic: ``σ = Δ √(2 ln(1.25/δ))/ε``, proved only for ε < 1 ([DR14]_
    Thm A.1), so it is drawn only there. Analytic: the smallest σ whose exact
    δ(ε) is at most δ ([BW18]_ Thm 8), valid for every ε.

    Parameters
    ----------
    sensitivity : float
        ℓ2 sensitivity, finite > 0.
    delta : float
        In (0, 1).
    epsilons : array_like, optional
        ε grid (finite, > 0, at least 2 values); default 80 log-spaced values in
        [0.05, 10].
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Curves have gids ``"classic"`` and ``"analytic"``.
    """
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    delta = _delta_for_gaussian(delta, "gaussian")
    eps = _epsilon_grid(epsilons)
    analytic = np.array([gaussian_sigma(sensitivity, e, delta) for e in eps])
    small = eps[eps < 1]
    classic = np.array([gaussian_sigma(sensitivity, e, delta, method="classic") for e in small])

    fig, ax = new_axes(ax)
    if small.size:
        ax.plot(small, classic, color=PALETTE["orange"], lw=_LW, ls="--", gid="classic",
                label="classic σ = Δ√(2 ln(1.25/δ))/ε (only ε < 1)")
    ax.plot(eps, analytic, color=PALETTE["blue"], lw=_LW, gid="analytic",
            label="analytic σ (Balle & Wang 2018)")
    if eps[0] < 1 < eps[-1]:
        ax.axvline(1.0, color="grey", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("ε (log scale; left = more private)")
    ax.set_ylabel("noise standard deviation σ")
    ax.legend(fontsize="small")
    ax.set_title(_title(sensitivity, None, delta, "Gaussian noise: classic vs analytic σ"))
    return fig


def plot_error_vs_epsilon(sensitivity: float, delta: float, epsilons=None,
                          method: str = "analytic", ax=None):
    """Expected absolute error of Laplace and Gaussian noise against ε.

    ``E|Lap(b)| = b = Δ/ε`` and ``E|N(0, σ²)| = σ √(2/π)``, with σ from
    :func:`dpteach.mechanisms.gaussian_sigma` ([DR14]_ Thm 3.6, A.1; [BW18]_).
    For one real-valued query Δ₁ = Δ₂ = ``sensitivity``.

    Parameters
    ----------
    sensitivity : float
        Finite > 0.
    delta : float
        In (0, 1), for the Gaussian.
    epsilons : array_like, optional
        Default 80 log-spaced values in [0.05, 10]. With ``method="classic"``
        every ε must be < 1.
    method : {"analytic", "classic"}
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Curves have gids ``"laplace"`` and ``"gaussian"``.
    """
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    delta = _delta_for_gaussian(delta, "gaussian")
    method = check_choice("method", method, {"analytic", "classic"})
    eps = _epsilon_grid(epsilons)
    lap = np.array([laplace_scale(sensitivity, e) for e in eps])
    gau = np.array([gaussian_sigma(sensitivity, e, delta, method=method) for e in eps])
    gau = gau * math.sqrt(2 / math.pi)

    fig, ax = new_axes(ax)
    ax.plot(eps, lap, color=PALETTE["blue"], lw=_LW, gid="laplace",
            label="Laplace: E|noise| = b = Δ/ε")
    ax.plot(eps, gau, color=PALETTE["vermillion"], lw=_LW, ls="--", gid="gaussian",
            label=f"Gaussian ({method} σ): E|noise| = σ√(2/π)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("ε (log scale; left = more private)")
    ax.set_ylabel("expected absolute error")
    ax.legend(fontsize="small")
    ax.set_title(_title(sensitivity, None, delta, "Error of one noisy answer"))
    return fig


def plot_dimension_crossover(epsilon: float, delta: float, max_dimension: int = 1000,
                             ax=None):
    """Per-coordinate expected absolute error for d counting queries, against d.

    Releasing d counts, each changing by at most 1 between neighbours, has ℓ1
    sensitivity d and ℓ2 sensitivity √d. Laplace then adds ``Lap(d/ε)`` to
    each count (error ``d/ε``), the Gaussian ``N(0, σ(√d)²)`` with
    ``σ(√d) = √d·σ(1)`` (error ``√d·σ(1)·√(2/π)``), since the analytic σ is
    linear in the sensitivity ([BW18]_ Thm 8 depends on Δ/σ only). The curves
    cross at ``d* = (ε σ(1) √(2/π))²``; beyond it the Gaussian wins.

    Parameters
    ----------
    epsilon : float
        Finite > 0 (for the whole release of d counts).
    delta : float
        In (0, 1).
    max_dimension : int
        Largest d plotted, an integer in [2, 10**7].
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Curves have gids ``"laplace"`` and ``"gaussian"``; the crossover line
        ``"crossover"`` (when it lies in the plotted range).
    """
    epsilon = check_epsilon("epsilon", epsilon)
    delta = _delta_for_gaussian(delta, "gaussian")
    max_dimension = check_int("max_dimension", max_dimension, minimum=2, maximum=10 ** 7)
    d = np.unique(np.round(np.geomspace(1, max_dimension, 200)))
    sigma1 = gaussian_sigma(1.0, epsilon, delta)
    lap = d / epsilon
    gau = np.sqrt(d) * sigma1 * math.sqrt(2 / math.pi)
    d_star = (epsilon * sigma1 * math.sqrt(2 / math.pi)) ** 2

    fig, ax = new_axes(ax)
    ax.plot(d, lap, color=PALETTE["blue"], lw=_LW, gid="laplace",
            label="Laplace, ℓ1 sensitivity d: error d/ε")
    ax.plot(d, gau, color=PALETTE["vermillion"], lw=_LW, ls="--", gid="gaussian",
            label="Gaussian, ℓ2 sensitivity √d: error √d·σ(1)·√(2/π)")
    if 1 <= d_star <= max_dimension:
        ax.axvline(d_star, color="grey", lw=1, ls=":", gid="crossover",
                   label=f"crossover d* ≈ {d_star:.3g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of counting queries d (log scale)")
    ax.set_ylabel("expected absolute error per count")
    ax.legend(fontsize="small")
    ax.set_title(f"d counting queries released together\nε = {_fmt(epsilon)}, "
                 f"δ = {_fmt(delta)} (analytic σ)")
    return fig
