"""Figures for randomized response: the estimator, its error, local vs central.

Randomized response ([W65]_): each respondent reports their true bit with
probability ``p = ½ + γ`` and its flip otherwise; this is local ε-DP with
``ε = ln(p/(1−p))`` ([DR14]_ Sec 3.2). The survey's estimator
``π̂ = (Ȳ − (1−p))/(2p−1)`` is unbiased for the population rate π.

Every function validates its arguments, returns a matplotlib ``Figure`` built
with :func:`dpteach.plots._style.new_axes` and tags its artists with ``gid``\\ s
so tests can read the plotted data back.

References
----------
.. [W65] S. L. Warner. Randomized response: a survey technique for eliminating
   evasive answer bias. JASA 60(309), 1965.
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014. Sec 3.2 (randomized
   response), Thm 3.6 (Laplace).
.. [KLNRS11] S. P. Kasiviswanathan, H. K. Lee, K. Nissim, S. Raskhodnikova and
   A. Smith. What can we learn privately? SIAM J. Comput. 40(3), 2011 (local
   model).
.. [CSS12] T.-H. H. Chan, E. Shi and D. Song. Optimal lower bound for
   differentially private multi-party aggregation. ESA 2012 (local counts need
   error Ω(√n/ε)).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .._validation import (
    ParameterError,
    check_array,
    check_epsilon,
    check_in_range,
)
from ..randomized_response import (
    central_laplace_rate_std,
    rr_epsilon_from_gamma,
    rr_gamma_from_epsilon,
    rr_local_std,
    rr_std_error,
    simulate_rr_estimates,
)
from ._style import CYCLE, PALETTE, new_axes

__all__ = [
    "plot_rr_estimator",
    "plot_rr_std_error",
    "plot_rr_probabilities",
    "plot_local_vs_central",
]

_LW = 2.2
_EXACT_LIMIT = 2_000_000   # simulate individual reports up to this many in total


def _privacy_kwargs(gamma, epsilon) -> dict:
    """The one privacy argument given, to pass on to dpteach.randomized_response unchanged."""
    return {"gamma": gamma} if gamma is not None else {"epsilon": epsilon}


def _truth_prob(gamma, epsilon) -> tuple[float, float, float]:
    """Validate (gamma xor epsilon); return (p_truth, gamma, epsilon)."""
    if (gamma is None) == (epsilon is None):
        raise ParameterError("give exactly one of gamma (truth with probability 1/2 + gamma) or "
                             f"epsilon; got gamma={gamma!r}, epsilon={epsilon!r}")
    if gamma is not None:
        eps = rr_epsilon_from_gamma(gamma)   # validates gamma in (0, 1/2)
        gam = float(gamma)
    else:
        gam = rr_gamma_from_epsilon(epsilon)  # validates epsilon > 0
        eps = float(epsilon)
    return 0.5 + gam, gam, eps


def _privacy_label(gamma: float, epsilon: float) -> str:
    return f"γ = {gamma:.3g} (ε = {epsilon:.3g})"


def plot_rr_estimator(true_rate: float, n: int, gamma: float | None = None,
                      epsilon: float | None = None, n_trials: int = 2000, rng=None,
                      simulation: str = "auto", ax=None):
    """Histogram of the randomized-response estimate over simulated surveys.

    Overlays the true rate and the normal density with mean π and standard
    deviation :func:`dpteach.randomized_response.rr_std_error` (the estimator is
    unbiased and, by the central limit theorem, approximately normal).
    Simulation as in :func:`simulate_rr_estimates`.

    Parameters
    ----------
    true_rate : float
        Population rate π in [0, 1].
    n : int
        Respondents per survey, ≥ 1.
    gamma, epsilon : float
        Exactly one: γ in (0, ½) or ε > 0.
    n_trials : int
        Number of simulated surveys, in [2, 10**6].
    rng : None, int or numpy.random.Generator
    simulation : {"auto", "reports", "binomial"}
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Histogram bars have gid ``"estimates"``, the normal curve ``"normal"``,
        the true rate line ``"true-rate"``.
    """
    est = simulate_rr_estimates(true_rate, n, gamma=gamma, epsilon=epsilon, n_trials=n_trials,
                                rng=rng, simulation=simulation)
    _, gam, eps = _truth_prob(gamma, epsilon)
    se = rr_std_error(true_rate, n, **_privacy_kwargs(gamma, epsilon))

    fig, ax = new_axes(ax)
    # π̂ only takes values on the lattice origin + k·step (k = number of yes reports);
    # bins whose width is a whole number of lattice steps, centred between lattice
    # points, avoid the comb-like aliasing of arbitrary bins.
    p = 0.5 + gam
    step = 1.0 / (n * (2 * p - 1))
    origin = -(1 - p) / (2 * p - 1)
    lo, hi = min(est.min(), true_rate - 4 * se), max(est.max(), true_rate + 4 * se)
    if hi - lo < 4 * step:          # no spread at all (e.g. ε so large that p = 1, π = 0)
        lo, hi = lo - 2 * step, hi + 2 * step
    per_bin = max(1, math.ceil((hi - lo) / (40 * step)))
    k_lo = math.floor((lo - origin) / step) - 0.5
    k_hi = math.ceil((hi - origin) / step) + 0.5
    edges = origin + step * np.arange(k_lo, k_hi + per_bin, per_bin)
    _, _, patches = ax.hist(est, bins=edges, density=True,
                            color=PALETTE["sky"], edgecolor="white",
                            label=rf"$\hat\pi$ in {n_trials} simulated surveys (mean {est.mean():.3f})")
    for patch in patches:
        patch.set_gid("estimates")
    x = np.linspace(lo, hi, 400)
    ax.set_xlim(lo, hi)
    heights = [patch.get_height() for patch in patches]
    if se > 0:
        ax.plot(x, stats.norm.pdf(x, true_rate, se), color=PALETTE["blue"], lw=_LW,
                gid="normal", label=f"normal, sd = rr_std_error = {se:.3g}")
        heights.append(stats.norm.pdf(0, 0, se))
    ax.axvline(true_rate, color=PALETTE["vermillion"], lw=_LW, ls="--", gid="true-rate",
               label=f"true rate π = {true_rate:.3g}")
    ax.set_xlabel(r"estimated rate $\hat\pi$")
    ax.set_ylabel("density")
    ax.set_ylim(0, 1.45 * max(heights))
    ax.legend(fontsize="small", loc="upper right", framealpha=0.95)
    ax.set_title(f"Randomized-response estimate over simulated surveys\n"
                 f"{_privacy_label(gam, eps)}, n = {n}")
    return fig


def plot_rr_std_error(gammas=(0.05, 0.1, 0.25, 0.4), rate: float = 0.5, n_values=None,
                      ax=None):
    """Standard error of the RR estimator against n, one curve per γ (log-log).

    Uses :func:`dpteach.randomized_response.rr_std_error`, ``λ(1−λ)/(n(2γ)²)`` with
    λ the "yes" probability ([W65]_): it falls as 1/√n and grows like 1/γ as
    γ → 0 (more privacy).

    Parameters
    ----------
    gammas : sequence of float
        Each in (0, ½); 1 to 7 values.
    rate : float
        Population rate π in [0, 1].
    n_values : array_like of int, optional
        At least 2 sizes, each in [1, 10¹²]. Default 60 log-spaced sizes from
        10 to 10⁶.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Curves have gids ``"gamma=<γ>"``.
    """
    gam = check_array("gammas", gammas, ndim=1, min_size=1)
    if gam.size > len(CYCLE):
        raise ParameterError(f"gammas must have at most {len(CYCLE)} values; got {gam.size}")
    if np.any(gam <= 0) or np.any(gam >= 0.5):
        raise ParameterError(f"gammas must each be in (0, 0.5); got gammas={gammas!r:.60}")
    rate = check_in_range("rate", rate, 0.0, 1.0)
    if n_values is None:
        ns = np.unique(np.round(np.geomspace(10, 10 ** 6, 60))).astype(np.int64)
    else:
        ns = check_array("n_values", n_values, ndim=1, min_size=2)
        if np.any(ns < 1) or np.any(ns > 10**12) or np.any(ns != np.round(ns)):
            raise ParameterError("n_values must contain integers in [1, 10^12]; "
                                 f"got n_values={n_values!r:.60}")
        ns = np.unique(ns.astype(np.int64))

    fig, ax = new_axes(ax)
    for colour, g in zip(CYCLE, gam):
        se = np.array([rr_std_error(rate, int(k), gamma=float(g)) for k in ns])
        ax.plot(ns, se, color=colour, lw=_LW, gid=f"gamma={g:g}",
                label=_privacy_label(float(g), rr_epsilon_from_gamma(float(g))))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of respondents n (log scale)")
    ax.set_ylabel(r"standard error of $\hat\pi$")
    ax.legend(fontsize="small", title="truth w.p. ½ + γ")
    ax.set_title(f"Randomized response: error vs n and γ (true rate π = {rate:.3g})\n"
                 "smaller γ = smaller ε = more private")
    return fig


def plot_rr_probabilities(gamma: float | None = None, epsilon: float | None = None, ax=None):
    """Bar chart of P(report | true bit) for randomized response.

    The largest ratio between the two rows is ``(½+γ)/(½−γ) = e^ε``: the
    definition of ε-DP checked on every output ([DR14]_ Sec 3.2).

    Parameters
    ----------
    gamma, epsilon : float
        Exactly one: γ in (0, ½) or ε > 0.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Bars have gids ``"true=0"`` and ``"true=1"``.
    """
    p, gam, eps = _truth_prob(gamma, epsilon)
    probs = {0: np.array([p, 1 - p]), 1: np.array([1 - p, p])}   # P(report=0), P(report=1)
    fig, ax = new_axes(ax)
    x = np.arange(2)
    for shift, bit, colour in ((-0.2, 0, PALETTE["blue"]), (0.2, 1, PALETTE["orange"])):
        bars = ax.bar(x + shift, probs[bit], width=0.38, color=colour,
                      label=f"true answer {'yes' if bit else 'no'}")
        for bar, h in zip(bars, probs[bit]):
            bar.set_gid(f"true={bit}")
            ax.text(bar.get_x() + bar.get_width() / 2, h + 0.01, f"{h:.3f}", ha="center",
                    va="bottom", fontsize="small")
    ax.set_xticks(x, ["report 'no'", "report 'yes'"])
    ax.set_ylim(0, 1.1)
    ax.set_xlabel("what the respondent reports")
    ax.set_ylabel("probability of the report")
    ax.legend(fontsize="small", loc="upper center")
    ax.set_title(f"Randomized response, {_privacy_label(gam, eps)}\n"
                 f"largest ratio (½+γ)/(½−γ) = {p / (1 - p):.3g} = " + r"$e^\varepsilon$")
    return fig


def plot_local_vs_central(epsilon: float, n_values=None, ax=None):
    """Error of local (randomized response) vs central (Laplace) counting at one ε.

    Both estimate the fraction of 1s in a fixed dataset of n bits with ε-DP:
    locally every person randomizes (:func:`rr_local_std`, Θ(1/(ε√n))), centrally
    a curator adds ``Lap(1/ε)`` to the count (:func:`central_laplace_rate_std`,
    Θ(1/(εn))). The gap grows like √n ([KLNRS11]_; [CSS12]_).

    Parameters
    ----------
    epsilon : float
        Finite > 0.
    n_values : array_like of int, optional
        Default 60 log-spaced sizes from 10 to 10⁶.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Curves have gids ``"local"`` and ``"central"``.
    """
    epsilon = check_epsilon("epsilon", epsilon)
    if n_values is None:
        ns = np.unique(np.round(np.geomspace(10, 10 ** 6, 60)))
    else:
        ns = check_array("n_values", n_values, ndim=1, min_size=2)
        if np.any(ns < 1) or np.any(ns != np.round(ns)):
            raise ParameterError(f"n_values must contain integers >= 1; got n_values={n_values!r}")
        ns = np.unique(ns)
    fig, ax = new_axes(ax)
    ax.plot(ns, rr_local_std(ns, epsilon), color=PALETTE["vermillion"], lw=_LW, gid="local",
            label="local: randomized response, sd = " + r"$e^{\varepsilon/2}/((e^\varepsilon-1)\sqrt{n})$")
    ax.plot(ns, central_laplace_rate_std(ns, epsilon), color=PALETTE["blue"], lw=_LW,
            ls="--", gid="central", label="central: (count + Lap(1/ε)) / n, sd = " + r"$\sqrt{2}/(\varepsilon n)$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of people n (log scale)")
    ax.set_ylabel("standard deviation of the estimated rate")
    ax.legend(fontsize="small")
    ax.set_title(f"Local vs central DP for a proportion, ε = {epsilon:.3g}")
    return fig
