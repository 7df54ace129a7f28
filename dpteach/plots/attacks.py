"""Figures for differencing attacks (notebook 01): sensitivity and attack success.

Each figure is a data function returning a :class:`~dpteach.plots.figure.FigureData`
(:func:`neighbour_differences_data`, :func:`noisy_difference_data`,
:func:`attack_success_data`, :func:`averaging_attack_data`), drawn with matplotlib by the
``plot_*`` function of the same name; each series' key is the ``gid`` of what it draws, so
tests can read the data back. The maths is in :mod:`dpteach.attacks.differencing`.

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
from ._style import PALETTE
from .figure import FigureData, Rule, Series, Text, to_matplotlib

__all__ = [
    "neighbour_differences_data",
    "plot_neighbour_differences",
    "noisy_difference_data",
    "plot_noisy_difference",
    "attack_success_data",
    "plot_attack_success",
    "averaging_attack_data",
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


def neighbour_differences_data(query, db, name: str | None = None) -> FigureData:
    """Bars of ``q(D) − q(D₋ᵢ)`` for every person i.

    The largest bar is the local sensitivity of the query at this database
    (:func:`dpteach.attacks.differencing.local_sensitivity`).

    Parameters
    ----------
    query : {"sum", "mean"} or callable
        Scalar-valued; differences up to 1e300 in size can be drawn.
    db : array_like
        1-D, 2 to 1000 rows; bars are coloured by bit when it holds only 0s and 1s.
    name : str, optional
        Query name for the title (default: the string, or the callable's name with its
        underscores read as spaces).

    Returns
    -------
    FigureData
        Bars ``"difference"`` at x = i (or, for a database of bits, ``"difference-bit-1"``
        and ``"difference-bit-0"``), rules ``"sensitivity"`` and ``"minus-sensitivity"`` at
        ± the empirical sensitivity and ``"zero"``; a text ``"nobody"`` when no single
        person changes the answer. ``extra["sensitivity"]`` is that sensitivity.
    """
    if name is None:
        name = query if isinstance(query, str) else \
            getattr(query, "__name__", "query").replace("_", " ")
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
    idx = np.arange(rep.differences.size, dtype=float)
    if is_bits:
        series = tuple(Series(f"difference-bit-{bit}", f"person whose bit is {bit}",
                              idx[values == bit], rep.differences[values == bit], kind="bars",
                              width=0.8, colour=colour)
                       for bit, colour in ((1, PALETTE["orange"]), (0, PALETTE["blue"])))
    else:
        series = (Series("difference", "", idx, rep.differences, kind="bars", width=0.8,
                         colour=PALETTE["blue"]),)
    top = rep.sensitivity if rep.sensitivity > 0 else 1.0
    rules = (Rule("sensitivity", "y", rep.sensitivity,
                  f"empirical sensitivity = {rep.sensitivity:.3g}", PALETTE["vermillion"],
                  "dashed"),
             Rule("minus-sensitivity", "y", -rep.sensitivity, "", PALETTE["vermillion"],
                  "dashed"),
             Rule("zero", "y", 0.0, "", "grey", "solid"))
    texts = () if rep.sensitivity > 0 else (
        Text("nobody", (idx.size - 1) / 2, 0.8, "no single person changes the answer",
             "grey", "center", large=True),)
    return FigureData(f"Query '{name}' on all {idx.size} neighbours of D\n"
                      f"max |q(D) − q(D without i)| = {rep.sensitivity:.3g}",
                      "person i removed", "q(D) − q(D without i)", series=series, rules=rules,
                      texts=texts, x_domain=(-0.7, idx.size - 0.3),
                      y_domain=(-1.25 * top, 1.25 * top), x_integer=True,
                      extra={"sensitivity": rep.sensitivity})


def plot_neighbour_differences(query, db, name: str | None = None, ax=None):
    """Bar chart of ``q(D) − q(D₋ᵢ)`` for every person i.

    Draws :func:`neighbour_differences_data` with matplotlib (arguments as there).

    Parameters
    ----------
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Bars have gid ``"difference"`` (``"difference-bit-1"``, ``"difference-bit-0"`` for a
        database of bits); the sensitivity lines ``"sensitivity"`` and
        ``"minus-sensitivity"``.
    """
    return to_matplotlib(neighbour_differences_data(query, db, name), ax=ax)


def _difference_pdf(z, b: float, scenario: str):
    """Density of the attacker's noise for one round (k = 1)."""
    if scenario == "known_rest":
        return stats.laplace.pdf(z, 0.0, b)
    u = np.abs(z) / b                   # difference of two Laplace(b): (1 + |u|) e^{−|u|} / (4b)
    return (1 + u) * np.exp(-u) / (4 * b)


def noisy_difference_data(epsilon: float, scenario: str = "known_rest") -> FigureData:
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

    Returns
    -------
    FigureData
        Lines ``"bit=0"`` and ``"bit=1"`` (dashed) at 1,201 values of Z, bands
        ``"wrong-0"`` and ``"wrong-1"`` (the two errors), the rule ``"threshold"`` at ½;
        ``extra`` holds ``"success"`` and ``"bound"``.
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
    right, left = z > 0.5, z <= 0.5
    series = (
        Series("wrong-0", "wrong guess (bit 0 read as 1)", z[right], np.zeros(right.sum()),
               kind="band", y2=f0[right], colour=PALETTE["blue"], opacity=0.25),
        Series("wrong-1", "wrong guess (bit 1 read as 0)", z[left], np.zeros(left.sum()),
               kind="band", y2=f1[left], colour=PALETTE["orange"], opacity=0.25),
        Series("bit=0", "target's bit is 0", z, f0, colour=PALETTE["blue"], width=_LW),
        Series("bit=1", "target's bit is 1", z, f1, colour=PALETTE["orange"], width=_LW,
               dash="dashed"),
    )
    return FigureData(f"Noisy differencing attack, ε = {epsilon:.3g} per answer\n"
                      f"success {success:.3f} ≤ bound e^ε/(1 + e^ε) = {bound:.3f}",
                      "attacker's statistic Z = noisy difference", "probability density",
                      series=series,
                      rules=(Rule("threshold", "x", 0.5, "guess 1 if Z > ½", PALETTE["black"],
                                  "dotted"),),
                      x_domain=(float(z[0]), float(z[-1])),
                      y_domain=(0.0, 1.08 * float(max(f0.max(), f1.max()))),
                      extra={"success": success, "bound": bound})


def plot_noisy_difference(epsilon: float, scenario: str = "known_rest", ax=None):
    """Densities of the attacker's statistic when the target's bit is 0 or 1.

    Draws :func:`noisy_difference_data` with matplotlib (arguments as there).

    Parameters
    ----------
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Curves have gids ``"bit=0"`` and ``"bit=1"``, the threshold ``"threshold"``.
    """
    return to_matplotlib(noisy_difference_data(epsilon, scenario), ax=ax)


def attack_success_data(epsilons=None, highlight: float | None = None) -> FigureData:
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

    Returns
    -------
    FigureData
        Lines ``"bound"``, ``"known_rest"``, ``"two_queries"`` over the sorted grid (log
        x axis); with ``highlight``, the points ``"highlight"`` (bound, then each scenario)
        and the rule ``"highlight-epsilon"``; the rule ``"chance"`` at ½.
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
    series = [Series("bound", "bound for any attack: e^ε/(1 + e^ε)", eps, special.expit(eps),
                     colour=PALETTE["black"], width=_LW)]
    styles = {"known_rest": (PALETTE["vermillion"], "dashed"),
              "two_queries": (PALETTE["blue"], "dashdot")}
    for scenario in SCENARIOS:
        colour, dash = styles[scenario]
        series.append(Series(scenario, _SCENARIO_LABEL[scenario], eps,
                             [noisy_attack_success(e, 1, scenario) for e in eps],
                             colour=colour, dash=dash, width=_LW))
    rules = [Rule("chance", "y", 0.5, "", "grey", "dotted")]
    title = "Success of the differencing attack under Laplace noise"
    if highlight is not None:
        pts = [dp_success_bound(highlight)] + [noisy_attack_success(highlight, 1, s)
                                               for s in SCENARIOS]
        series.append(Series("highlight", "", [highlight] * 3, pts, kind="points",
                             colour=PALETTE["black"], width=2.8))
        rules.append(Rule("highlight-epsilon", "x", highlight, "", "grey", "solid"))
        title += (f"\nε = {highlight:.3g}: success {pts[1]:.3f} (knows the others), "
                  f"bound {pts[0]:.3f}")
    else:
        title += "\nε per noisy answer, sensitivity 1"
    return FigureData(title, "ε per answer (log scale; left = more private)",
                      "probability the guess is right", series=tuple(series),
                      rules=tuple(rules), log_x=True, y_domain=(0.45, 1.02))


def plot_attack_success(epsilons=None, highlight: float | None = None, ax=None):
    """Exact success of the noisy differencing attack against ε, with the DP bound.

    Draws :func:`attack_success_data` with matplotlib (arguments as there).

    Parameters
    ----------
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Curves have gids ``"known_rest"``, ``"two_queries"``, ``"bound"`` and
        (with ``highlight``) ``"highlight"``.
    """
    return to_matplotlib(attack_success_data(epsilons, highlight), ax=ax)


def averaging_attack_data(epsilon: float, k_max: int = 100, scenario: str = "known_rest",
                          simulated=None) -> FigureData:
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
        as points.

    Returns
    -------
    FigureData
        Lines ``"bound"`` and ``"exact"`` at about 40 log-spaced k, points
        ``"simulated"``, the rule ``"chance"`` at ½.
    """
    epsilon = check_epsilon("epsilon", epsilon)
    bound1 = dp_success_bound(epsilon)
    k_max = check_int("k_max", k_max, minimum=2, maximum=1000)
    scenario = check_choice("scenario", scenario, set(SCENARIOS))
    ks = np.unique(np.round(np.geomspace(1, k_max, 40)).astype(int))
    exact = np.array([noisy_attack_success(epsilon, int(k), scenario) for k in ks])
    with np.errstate(over="ignore"):               # kε may overflow to inf: bound 1
        bound = special.expit(ks * epsilon)        # dp_success_bound(kε)
    series = [Series("bound", "bound for the composed loss kε: e^kε/(1 + e^kε)", ks, bound,
                     colour=PALETTE["black"], width=_LW),
              Series("exact", "averaging k noisy answers (exact)", ks, exact,
                     colour=PALETTE["vermillion"], width=_LW, dash="dashed")]
    if simulated is not None:
        if not isinstance(simulated, dict) or not simulated:
            raise TypeError(f"simulated must be a non-empty dict {{k: success rate}}; "
                            f"got simulated={describe(simulated)}")
        sk = check_array("simulated keys", list(simulated.keys()), ndim=1, allow_bool=False)
        sv = check_array("simulated values", list(simulated.values()), ndim=1, allow_bool=False)
        if np.any((sv < 0) | (sv > 1)) or np.any((sk < 1) | (sk > 1000)):
            raise ParameterError("simulated must map k in [1, 1000] to success rates in [0, 1]; "
                                 f"got simulated={describe(simulated)}")
        series.append(Series("simulated", "simulated success rate", sk, sv, kind="points",
                             colour=PALETTE["blue"], width=2.8))
    return FigureData(f"Averaging repeated answers, ε = {epsilon:.3g} each\n"
                      f"one answer: bound {bound1:.3f}; {_SCENARIO_LABEL[scenario]}",
                      "number k of repeated noisy answers (log scale)",
                      "probability the guess is right", series=tuple(series),
                      rules=(Rule("chance", "y", 0.5, "", "grey", "dotted"),), log_x=True,
                      x_integer=True, y_domain=(0.45, 1.02))


def plot_averaging_attack(epsilon: float, k_max: int = 100, scenario: str = "known_rest",
                          simulated=None, ax=None):
    """Success of the averaging attack against the number k of repeated queries.

    Draws :func:`averaging_attack_data` with matplotlib (arguments as there).

    Parameters
    ----------
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Curves have gids ``"exact"``, ``"bound"`` and ``"simulated"``.
    """
    return to_matplotlib(averaging_attack_data(epsilon, k_max, scenario, simulated), ax=ax)
