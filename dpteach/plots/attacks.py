"""Figures for differencing attacks (notebook 01): sensitivity and attack success.

Every function validates its arguments, draws on ``ax`` or a new pyplot-free
figure (:func:`dpteach.plots._style.new_axes`), returns the ``Figure`` and
tags its curves with ``gid``\\ s so tests can read the data back. The maths is
in :mod:`dpteach.attacks.differencing`.

References
----------
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014. Thm 3.6, Thm 3.16.
.. [KOV15] P. Kairouz, S. Oh and P. Viswanath. The composition theorem for
   differential privacy. ICML 2015, Thm 2.1.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from .._validation import (
    ParameterError,
    check_array,
    check_choice,
    check_epsilon,
    check_in_range,
    check_int,
    describe,
)
from ..attacks.differencing import (
    SCENARIOS,
    dp_success_bound,
    local_sensitivity,
    noisy_attack_success,
)
from ._style import PALETTE, new_axes

__all__ = [
    "plot_neighbour_differences",
    "plot_noisy_difference",
    "plot_attack_success",
    "plot_averaging_attack",
]

_LW = 2.2
MAX_BARS = 1000             # plot_neighbour_differences: one bar per person
MAX_GRID = 1000             # plot_attack_success: ε values (two exact successes each)
MAX_DRAWN = 1e300           # largest |q(D) − q(D₋ᵢ)| whose axis limits stay finite
_SCENARIO_LABEL = {
    "known_rest": "attacker knows the others: one noisy count",
    "two_queries": "two noisy counts, q(D) − q(D without i)",
}


def plot_neighbour_differences(query, db, name: str | None = None, ax=None):
    """Bar chart of ``q(D) − q(D₋ᵢ)`` for every person i.

    The largest bar is the local sensitivity of the query at this database
    (:func:`dpteach.attacks.differencing.local_sensitivity`).

    Parameters
    ----------
    query : {"sum", "mean"} or callable
        Scalar-valued; differences up to 1e300 in size can be drawn.
    db : array_like
        1-D, 2 to 1000 rows; bars are coloured by bit when it holds only 0s and 1s.
    name : str, optional
        Query name for the title (default: the string or the callable's name).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Bars have gid ``"difference"``; the sensitivity lines ``"sensitivity"``.
    """
    if name is None:
        name = query if isinstance(query, str) else getattr(query, "__name__", "query")
    if not isinstance(name, str):
        raise TypeError(f"name must be a string; got name={describe(name)}")
    values = check_array("db", db, ndim=1)
    if values.shape[0] > MAX_BARS:
        raise ParameterError(f"db must have at most {MAX_BARS} rows to draw; got db with shape "
                             f"{values.shape}")
    rep = local_sensitivity(query, db)
    if rep.differences.ndim != 1:
        raise ParameterError(f"plot_neighbour_differences needs a scalar-valued query and a 1-D "
                             f"db; got differences of shape {rep.differences.shape}")
    if rep.sensitivity > MAX_DRAWN:
        raise ParameterError(f"query and db must give differences up to {MAX_DRAWN:g} to draw; "
                             f"got sensitivity {rep.sensitivity:g}")
    is_bits = bool(np.all((values == 0) | (values == 1)))
    fig, ax = new_axes(ax)
    idx = np.arange(rep.differences.size)
    colours = [PALETTE["orange"] if (is_bits and v) else PALETTE["blue"] for v in values]
    bars = ax.bar(idx, rep.differences, color=colours, width=0.8)
    for bar in bars:
        bar.set_gid("difference")
    ax.axhline(rep.sensitivity, color=PALETTE["vermillion"], ls="--", lw=1.5, gid="sensitivity",
               label=f"local sensitivity = {rep.sensitivity:.3g}")
    ax.axhline(-rep.sensitivity, color=PALETTE["vermillion"], ls="--", lw=1.5, gid="sensitivity")
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_xlabel("person i removed" + (" (orange: bit 1, blue: bit 0)" if is_bits else ""))
    ax.set_ylabel("q(D) − q(D without i)")
    top = rep.sensitivity if rep.sensitivity > 0 else 1.0
    ax.set_ylim(-1.25 * top, 1.6 * top)
    ax.xaxis.get_major_locator().set_params(integer=True)
    if rep.sensitivity == 0:
        ax.text(0.5, 0.3, "no single person changes the answer", transform=ax.transAxes,
                ha="center", va="center", fontsize="large", color="grey")
    ax.legend(fontsize="small", loc="upper right")
    ax.set_title(f"Query '{name}' on all {idx.size} neighbours of D\n"
                 f"max |q(D) − q(D without i)| = {rep.sensitivity:.3g}")
    return fig


def _difference_pdf(z, b: float, scenario: str):
    """Density of the attacker's noise for one round (k = 1)."""
    if scenario == "known_rest":
        return stats.laplace.pdf(z, 0.0, b)
    u = np.abs(z) / b                   # difference of two Laplace(b): (1 + |u|) e^{−|u|} / (4b)
    return (1 + u) * np.exp(-u) / (4 * b)


def plot_noisy_difference(epsilon: float, scenario: str = "known_rest", ax=None):
    """Densities of the attacker's statistic when the target's bit is 0 or 1.

    The attacker sees ``Z = x_i + noise`` (one round, see
    :func:`dpteach.attacks.differencing.noisy_attack_success`) and guesses 1
    iff ``Z > ½``. Shaded: the two error probabilities. The title compares the
    exact success with the ε-DP bound ``e^ε/(1+e^ε)`` ([KOV15]_ Thm 2.1).

    Parameters
    ----------
    epsilon : float
        ε of each noisy answer, in [1e-6, 1e3] (the teaching domain of
        :func:`dpteach.attacks.differencing.noisy_attack_success`).
    scenario : {"known_rest", "two_queries"}
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Curves have gids ``"bit=0"`` and ``"bit=1"``, the threshold ``"threshold"``.
    """
    epsilon = check_epsilon("epsilon", epsilon)
    epsilon = check_in_range("epsilon", epsilon, 1e-6, 1e3)
    b = 1.0 / epsilon                    # Laplace scale of a count (sensitivity 1)
    scenario = check_choice("scenario", scenario, set(SCENARIOS))
    success = noisy_attack_success(epsilon, 1, scenario)
    bound = dp_success_bound(epsilon)
    spread = max(2.0, (5 if scenario == "known_rest" else 7) * b)
    z = np.linspace(0.5 - spread, 0.5 + spread, 1201)
    f0, f1 = _difference_pdf(z, b, scenario), _difference_pdf(z - 1, b, scenario)

    fig, ax = new_axes(ax)
    ax.plot(z, f0, color=PALETTE["blue"], lw=_LW, gid="bit=0", label="target's bit is 0")
    ax.plot(z, f1, color=PALETTE["orange"], lw=_LW, ls="--", gid="bit=1",
            label="target's bit is 1")
    ax.fill_between(z, 0, f0, where=z > 0.5, color=PALETTE["blue"], alpha=0.25, lw=0,
                    label="wrong guess (bit 0 read as 1)")
    ax.fill_between(z, 0, f1, where=z <= 0.5, color=PALETTE["orange"], alpha=0.25, lw=0,
                    label="wrong guess (bit 1 read as 0)")
    ax.axvline(0.5, color="black", lw=1.2, ls=":", gid="threshold", label="guess 1 if Z > ½")
    ax.set_xlim(z[0], z[-1])
    ax.set_ylim(bottom=0, top=1.45 * max(f0.max(), f1.max()))
    ax.set_xlabel("attacker's statistic Z = noisy difference")
    ax.set_ylabel("probability density")
    ax.legend(fontsize="small", loc="upper left")
    ax.set_title(f"Noisy differencing attack, ε = {epsilon:.3g} per answer\n"
                 f"success {success:.3f} ≤ bound " + r"$e^{\varepsilon}/(1+e^{\varepsilon})$" + f" = {bound:.3f}")
    return fig


def plot_attack_success(epsilons=None, highlight: float | None = None, ax=None):
    """Exact success of the noisy differencing attack against ε, with the DP bound.

    Curves: both scenarios of
    :func:`dpteach.attacks.differencing.noisy_attack_success` (k = 1) and
    ``e^ε/(1+e^ε)`` (:func:`dpteach.attacks.differencing.dp_success_bound`).

    Parameters
    ----------
    epsilons : array_like, optional
        ε grid: 2 to 1000 values in [1e-6, 1e3] (the teaching domain of
        :func:`dpteach.attacks.differencing.noisy_attack_success`); default 100
        log-spaced values in [0.01, 10].
    highlight : float, optional
        An ε in [1e-6, 1e3] to mark on every curve.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Curves have gids ``"known_rest"``, ``"two_queries"``, ``"bound"`` and
        (with ``highlight``) ``"highlight"``.
    """
    if epsilons is None:
        eps = np.geomspace(0.01, 10.0, 100)
    else:
        eps = np.sort(check_array("epsilons", epsilons, ndim=1, min_size=2))
        if np.any(eps < 1e-6) or np.any(eps > 1e3) or eps.size > MAX_GRID:
            raise ParameterError(f"epsilons must be 2 to {MAX_GRID} values in [1e-6, 1e3]; "
                                 f"got epsilons={describe(epsilons)}")
    if highlight is not None:
        try:
            highlight = check_in_range("highlight", check_epsilon("highlight", highlight),
                                       1e-6, 1e3)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{exc} (highlight is the epsilon to mark)") from None
        bound_h = dp_success_bound(highlight)
    fig, ax = new_axes(ax)
    ax.set_xscale("log")
    ax.plot(eps, special.expit(eps), color="black", lw=_LW, gid="bound",
            label=r"bound for any attack: $e^{\varepsilon}/(1+e^{\varepsilon})$")
    styles = {"known_rest": (PALETTE["vermillion"], "--"), "two_queries": (PALETTE["blue"], "-.")}
    for scenario in SCENARIOS:
        colour, ls = styles[scenario]
        ax.plot(eps, [noisy_attack_success(e, 1, scenario) for e in eps], color=colour, lw=_LW,
                ls=ls, gid=scenario, label=_SCENARIO_LABEL[scenario])
    ax.axhline(0.5, color="grey", lw=0.8, ls=":")
    title = "Success of the differencing attack under Laplace noise"
    if highlight is not None:
        pts = [bound_h] + [noisy_attack_success(highlight, 1, s) for s in SCENARIOS]
        ax.plot([highlight] * 3, pts, "o", color="black", ms=7, gid="highlight")
        ax.axvline(highlight, color="grey", lw=1)
        title += f"\nε = {highlight:.3g}: success {pts[1]:.3f} (knows the others), bound {pts[0]:.3f}"
    else:
        title += "\nε per noisy answer, sensitivity 1"
    ax.set_ylim(0.45, 1.02)
    ax.set_xlabel("ε per answer (log scale; left = more private)")
    ax.set_ylabel("probability the guess is right")
    ax.legend(fontsize="small", loc="upper left")
    ax.set_title(title)
    return fig


def plot_averaging_attack(epsilon: float, k_max: int = 100, scenario: str = "known_rest",
                          simulated=None, ax=None):
    """Success of the averaging attack against the number k of repeated queries.

    Each repetition is a fresh ε-DP answer; averaging k of them shrinks the
    noise, and the success (exact, from
    :func:`dpteach.attacks.differencing.noisy_attack_success`) climbs towards
    1. It stays below the bound for the composed privacy loss kε,
    ``e^{kε}/(1+e^{kε})`` ([DR14]_ Thm 3.16), which is why a curator must
    account for every answer it gives.

    Parameters
    ----------
    epsilon : float
        ε of each answer, in [1e-6, 1e3].
    k_max : int
        Largest number of repetitions, in [2, 1000].
    scenario : {"known_rest", "two_queries"}
    simulated : dict, optional
        ``{k: success rate}`` from simulations, k in [1, 1000] (as
        :func:`~dpteach.attacks.differencing.simulate_noisy_attack` allows), drawn
        as markers.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Curves have gids ``"exact"``, ``"bound"`` and ``"simulated"``.
    """
    epsilon = check_epsilon("epsilon", epsilon)
    bound1 = dp_success_bound(epsilon)
    k_max = check_int("k_max", k_max, minimum=2, maximum=1000)
    scenario = check_choice("scenario", scenario, set(SCENARIOS))
    ks = np.unique(np.round(np.geomspace(1, k_max, 40)).astype(int))
    exact = np.array([noisy_attack_success(epsilon, int(k), scenario) for k in ks])
    with np.errstate(over="ignore"):               # kε may overflow to inf: bound 1
        bound = special.expit(ks * epsilon)        # dp_success_bound(kε)
    fig, ax = new_axes(ax)
    ax.plot(ks, bound, color="black", lw=_LW, gid="bound",
            label=r"bound for composed loss $k\varepsilon$: $e^{k\varepsilon}/(1+e^{k\varepsilon})$")
    ax.plot(ks, exact, color=PALETTE["vermillion"], lw=_LW, ls="--", gid="exact",
            label="averaging k noisy answers (exact)")
    if simulated is not None:
        if not isinstance(simulated, dict) or not simulated:
            raise TypeError(f"simulated must be a non-empty dict {{k: success rate}}; "
                            f"got simulated={describe(simulated)}")
        sk = check_array("simulated keys", list(simulated.keys()), ndim=1, allow_bool=False)
        sv = check_array("simulated values", list(simulated.values()), ndim=1, allow_bool=False)
        if np.any((sv < 0) | (sv > 1)) or np.any((sk < 1) | (sk > 1000)):
            raise ParameterError("simulated must map k in [1, 1000] to success rates in [0, 1]; "
                                 f"got simulated={describe(simulated)}")
        ax.plot(sk, sv, "o", color=PALETTE["blue"], ms=7, gid="simulated",
                label="simulated success rate")
    ax.axhline(0.5, color="grey", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_ylim(0.45, 1.02)
    ax.set_xlabel("number k of repeated noisy answers (log scale)")
    ax.set_ylabel("probability the guess is right")
    ax.legend(fontsize="small", loc="lower right")
    ax.set_title(f"Averaging repeated answers, ε = {epsilon:.3g} each\n"
                 f"one answer: bound {bound1:.3f}; {_SCENARIO_LABEL[scenario]}")
    return fig
