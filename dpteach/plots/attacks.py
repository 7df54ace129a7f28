"""Figures for differencing attacks (notebook 01): sensitivity and attack success.

The maths is in :mod:`dpteach.attacks.differencing`.

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

from typing import Any

from .._validation import EPSILON, Domain, array, choice, integer, refuse, validate
from ..attacks.differencing import (SCENARIOS, dp_success_bound, local_sensitivity,
                                    noisy_attack_success)
from ._style import PALETTE
from .figure import TEXT, FigureData, Rule, Series, Text, drawn

__all__ = [
    "neighbour_differences_data", "plot_neighbour_differences",
    "noisy_difference_data", "plot_noisy_difference",
    "attack_success_data", "plot_attack_success",
    "averaging_attack_data", "plot_averaging_attack",
]

_LW = 2.2
MAX_BARS = 1000             # plot_neighbour_differences: one bar per person
MAX_GRID = 1000             # plot_attack_success: ε values (two exact successes each)
MAX_DRAWN = 1e300           # largest |q(D) − q(D₋ᵢ)| whose axis limits stay finite
#: a query on one column and that column (local_sensitivity's), at most one bar per person
QUERY = local_sensitivity.__domains__["query"]
DB = array(ndim=1, low=-1e15, high=1e15, max_size=MAX_BARS, example=[0, 1, 1, 0, 1])
SCENARIO = choice(*SCENARIOS)
EPSILONS = array(ndim=1, min_size=2, max_size=MAX_GRID, low=1e-6, high=1e3,
                 example=[0.1, 1.0, 5.0])
#: k → success rate measured by simulation
SIMULATED: Domain = Domain("None or a non-empty dict {k in [1, 1000]: success rate in [0, 1]}",
                   lambda name, value: _simulated(name, value), example=None, edges=(None,),
                   bad=[{}, {0: 0.5}, {2: 1.5}, {"a": 0.5}, 3, "ab"])
_SCENARIO_LABEL = {
    "known_rest": "attacker knows the others: one noisy count",
    "two_queries": "two noisy counts, q(D) − q(D without i)",
}


@validate(query=QUERY, db=DB, name=TEXT.or_none())
def neighbour_differences_data(query, db, name: str | None = None) -> FigureData:
    """Bars of ``q(D) − q(D₋ᵢ)`` for every person i.

    The largest bar is the local sensitivity of the query at this database
    (:func:`dpteach.attacks.differencing.local_sensitivity`). ``name`` names the query in
    the title (default: the string, or the callable's name).

    Bars ``difference`` (for a database of bits, ``difference-bit-1`` and
    ``difference-bit-0``), rules ``sensitivity``, ``minus-sensitivity`` and ``zero``; a
    text ``nobody`` when no single person changes the answer; ``extra["sensitivity"]``.
    """
    if name is None:
        name = query if isinstance(query, str) else \
            getattr(query, "__name__", "query").replace("_", " ")
    values = db
    rep = local_sensitivity(query, db)
    if rep.differences.ndim != 1 or rep.sensitivity > MAX_DRAWN:
        raise refuse("query", query, f"one number per database, differences ≤ {MAX_DRAWN:g}")
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


plot_neighbour_differences = drawn(neighbour_differences_data)


def _difference_pdf(z, b: float, scenario: str):
    """Density of the attacker's noise for one round (k = 1)."""
    if scenario == "known_rest":
        return stats.laplace.pdf(z, 0.0, b)
    u = np.abs(z) / b                   # difference of two Laplace(b): (1 + |u|) e^{−|u|} / (4b)
    return (1 + u) * np.exp(-u) / (4 * b)


@validate(epsilon=EPSILON, scenario=SCENARIO)
def noisy_difference_data(epsilon: float, scenario: str = "known_rest") -> FigureData:
    """Densities of the attacker's statistic when the target's bit is 0 or 1.

    The attacker sees ``Z = x_i + noise`` (one round, see
    :func:`dpteach.attacks.differencing.noisy_attack_success`) and guesses 1
    iff ``Z > ½``. Shaded: the two error probabilities. The title compares the
    exact success with the ε-DP bound ``e^ε/(1+e^ε)`` ([KOV15]_ Thm 2.1).

    Lines ``bit=0`` and ``bit=1``, bands ``wrong-0`` and ``wrong-1``, rule ``threshold``;
    ``extra``: ``success`` and ``bound``.
    """
    b = 1.0 / epsilon                    # Laplace scale of a count (sensitivity 1)
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


plot_noisy_difference = drawn(noisy_difference_data)


@validate(epsilons=EPSILONS.or_none(), highlight=EPSILON.or_none())
def attack_success_data(epsilons=None, highlight: float | None = None) -> FigureData:
    """Exact success of the noisy differencing attack against ε, with the DP bound.

    Curves: both scenarios of
    :func:`dpteach.attacks.differencing.noisy_attack_success` (k = 1) and
    ``e^ε/(1+e^ε)`` (:func:`dpteach.attacks.differencing.dp_success_bound`), over
    ``epsilons`` (default 100 log-spaced values in [0.01, 10]).

    Lines ``bound``, ``known_rest`` and ``two_queries``; with ``highlight`` (an ε to mark),
    points ``highlight`` and the rule ``highlight-epsilon``; rule ``chance``.
    """
    if epsilons is None:
        eps = np.geomspace(0.01, 10.0, 100)
    else:
        eps = np.sort(epsilons)
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


plot_attack_success = drawn(attack_success_data)


@validate(epsilon=EPSILON, k_max=integer(2, 1000, work=True, example=100), scenario=SCENARIO,
          simulated=SIMULATED)
def averaging_attack_data(epsilon: float, k_max: int = 100, scenario: str = "known_rest",
                          simulated=None) -> FigureData:
    """Success of the averaging attack against the number k of repeated queries.

    Each repetition is a fresh ε-DP answer; averaging k of them shrinks the
    noise, and the success (exact, from
    :func:`dpteach.attacks.differencing.noisy_attack_success`) climbs towards
    1. It stays below the bound for the composed privacy loss kε,
    ``e^{kε}/(1+e^{kε})`` ([DR14]_ Thm 3.16), which is why a curator must
    account for every answer it gives. ``simulated`` holds ``{k: success rate}`` from
    :func:`~dpteach.attacks.differencing.simulate_noisy_attack`.

    Lines ``bound`` and ``exact``, points ``simulated``, rule ``chance``.
    """
    bound1 = dp_success_bound(epsilon)
    ks = np.unique(np.round(np.geomspace(1, k_max, 40)).astype(int))
    exact = np.array([noisy_attack_success(epsilon, int(k), scenario) for k in ks])
    bound = special.expit(ks * epsilon)            # dp_success_bound(kε)
    series = [Series("bound", "bound for the composed loss kε: e^kε/(1 + e^kε)", ks, bound,
                     colour=PALETTE["black"], width=_LW),
              Series("exact", "averaging k noisy answers (exact)", ks, exact,
                     colour=PALETTE["vermillion"], width=_LW, dash="dashed")]
    if simulated is not None:
        sk, sv = np.array(list(simulated), dtype=float), np.array(list(simulated.values()))
        series.append(Series("simulated", "simulated success rate", sk, sv, kind="points",
                             colour=PALETTE["blue"], width=2.8))
    return FigureData(f"Averaging repeated answers, ε = {epsilon:.3g} each\n"
                      f"one answer: bound {bound1:.3f}; {_SCENARIO_LABEL[scenario]}",
                      "number k of repeated noisy answers (log scale)",
                      "probability the guess is right", series=tuple(series),
                      rules=(Rule("chance", "y", 0.5, "", "grey", "dotted"),), log_x=True,
                      x_integer=True, y_domain=(0.45, 1.02))


plot_averaging_attack = drawn(averaging_attack_data)


_KS: Domain = array(ndim=1, low=1, high=1000)
_RATES: Domain = array(ndim=1, low=0.0, high=1.0)


def _simulated(name: str, value: Any) -> dict | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not value:
        raise SIMULATED.refuse(name, value)
    ks, rates = _KS(name, list(value)), _RATES(name, list(value.values()))
    return dict(zip(ks.tolist(), rates.tolist()))
