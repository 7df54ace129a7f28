"""App page "Composition & budget": k queries → total ε by each composition method.

Numbers and figure come from :func:`dpteach.plots.accounting.composition_data` (basic,
advanced, optimal, Rényi DP, PLD, through :func:`dpteach.accounting.composition_epsilons`);
the browser draws the figure. The PLD of k Laplace queries, seconds at large k·ε₀, is
read from the table that ``scripts/precompute_app_tables.py`` made over exactly the
sliders below, so no slider move waits for it.

The **budget**: the instructor sets a total ε; :func:`queries_within_budget` finds, for
basic, advanced and Rényi-DP accounting, the most queries whose total ε (by
:func:`dpteach.accounting.composition_epsilons`, each total increasing in k) stays within
it, by bisection over k. The chart marks where each curve crosses the budget; a second
chart shows each accountant's total as a share of basic composition's, where the curves
that overlap on the first separate.

Every control is bound to the address (``?k=1000&eps0=0.05``); ``PRESETS`` are the lesson's
prepared views; δ and the PLD switch fold away in presentation mode.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import streamlit as st

from dpteach.accounting.compare import METHOD_LABELS, composition_epsilons
from dpteach.plots.accounting import (
    COMPOSITION_DELTAS,
    COMPOSITION_EPSILONS,
    COMPOSITION_K_MAX,
    COMPOSITION_KS,
    COMPOSITION_SIGMAS,
    composition_data,
)
from dpteach.plots import PALETTE
from dpteach.plots.figure import FigureData, Rule, Series
from dpapp.charts import show_chart
from dpapp.frame import presenting, secondary, tiles, tradeoff
from dpapp.messages import friendly_errors
from dpapp.widgets import (
    bound_radio,
    bound_toggle,
    delta_slider,
    epsilon_slider,
    fmt,
    log_slider,
)

KS = COMPOSITION_KS
SIGMAS = COMPOSITION_SIGMAS
DELTAS = COMPOSITION_DELTAS          # δ > 0: every method but basic needs it

#: The total budgets the instructor can set, and the default.
BUDGETS = (0.1, 0.2, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0, 100.0)
DEFAULT_BUDGET = 5.0
#: The accountants whose queries within the budget the page counts (RDP rather than PLD: the
#: PLD of Laplace queries takes seconds per k).
BUDGET_METHODS = ("basic", "advanced", "rdp")
#: The most queries counted (``composition_epsilons``' largest k).
K_LIMIT = 1_000_000

MECHANISMS = {"Laplace (ε₀ per query)": "laplace", "Gaussian (σ per query)": "gaussian"}
LAPLACE, GAUSSIAN = MECHANISMS

#: The notebook this page goes with (a file stem of notebooks/), named under the bar.
NOTEBOOK = "05_composition_and_budget"

#: The lesson's prepared views (widget key → value), offered above the page.
PRESETS = {
    "100 queries at ε₀ = 0.1": {"mechanism": LAPLACE, "k": 100, "eps0": 0.1,
                                "total_delta": 1e-5},
    "1,000 queries at ε₀ = 0.01": {"mechanism": LAPLACE, "k": 1000, "eps0": 0.01,
                                   "total_delta": 1e-5},
    "5 queries at ε₀ = 1": {"mechanism": LAPLACE, "k": 5, "eps0": 1.0, "total_delta": 1e-5},
    "Gaussian, σ = 5": {"mechanism": GAUSSIAN, "k": 100, "sigma0": 5.0, "total_delta": 1e-5},
}


@st.cache_data(show_spinner=False, max_entries=1024)
def _data(k: int, mechanism: str, eps0: float | None, sigma: float | None, delta: float,
          with_pld: bool) -> FigureData:
    """The figure (k = 1 … 1000, marked at k) and, in ``extra["at_mark"]``, the totals at k."""
    methods = ("basic", "advanced", "optimal", "rdp") + (("pld",) if with_pld else ())
    return composition_data(COMPOSITION_K_MAX, mechanism=mechanism, epsilon=eps0, sigma=sigma,
                            delta=delta, methods=methods, mark_k=k)


@st.cache_data(show_spinner=False, max_entries=1024)
def queries_within_budget(budget: float, mechanism: str, eps0: float | None,
                          sigma: float | None, delta: float, method: str) -> int:
    """The most queries k whose total ε by ``method`` is at most ``budget`` (0 if even one
    exceeds it; :data:`K_LIMIT` if that many fit): bisection over k, each total computed by
    :func:`~dpteach.accounting.composition_epsilons`, which increases with k for these
    accountants (more queries never cost less)."""
    def total(k: int) -> float:
        return float(composition_epsilons([k], mechanism=mechanism, epsilon=eps0, sigma=sigma,
                                          delta=delta, methods=(method,))[method][0])

    if total(1) > budget:
        return 0
    if total(K_LIMIT) <= budget:
        return K_LIMIT
    fits, over = 1, K_LIMIT                     # total(fits) ≤ budget < total(over)
    while over - fits > 1:
        middle = (fits + over) // 2
        if total(middle) <= budget:
            fits = middle
        else:
            over = middle
    return fits


def with_budget(data: FigureData, budget: float, within: dict[str, int], mechanism: str,
                eps0: float | None, sigma: float | None, delta: float) -> FigureData:
    """The composition figure with the budget as a line and, on each counted curve, a point
    at the most queries within it (where it is inside the figure's k range)."""
    k_max = float(data.extra["ks"][-1])
    marks = []
    for method, k in within.items():
        if 1 <= k <= k_max:
            y = composition_epsilons([k], mechanism=mechanism, epsilon=eps0, sigma=sigma,
                                     delta=delta, methods=(method,))[method][0]
            marks.append(Series(f"budget-{method}", "", [float(k)], [float(y)], kind="points",
                                colour=data.series_by_key(method).colour, width=3.0,
                                tooltip=(("queries within the budget", np.array([k])),)))
    rule = Rule("budget", "y", budget, f"your budget: total ε = {budget:g}",
                colour=PALETTE["purple"], dash="dashdot")
    return dataclasses.replace(data, series=data.series + tuple(marks),
                               rules=data.rules + (rule,))


def share_of_basic(data: FigureData) -> FigureData:
    """Each accountant's total ε divided by basic composition's (kε₀), against k: below 1,
    it saves privacy; the curves that overlap on the totals' chart separate here."""
    basic = data.series_by_key("basic").y
    series = tuple(dataclasses.replace(s, y=s.y / basic) for s in data.series
                   if s.key not in ("basic",) and s.x.size == basic.size)
    return FigureData(
        title="Each accountant's total ε as a share of basic composition's",
        x_title="number of queries k", y_title="share of the basic total",
        series=series, rules=(Rule("basic", "y", 1.0, "basic composition (ε's add)",
                                   colour=PALETTE["black"], dash="dotted"),),
        log_x=True, log_y=True, x_integer=True)


def _help(method: str, mechanism: str) -> str:
    if method == "basic":
        return ("kε₀: the ε's add (Dwork & Roth 2014, Thm 3.16)." if mechanism == "laplace" else
                "kε₀ with per-query δ₀ = δ/(2k) (total δ/2), ε₀ the exact Gaussian ε at δ₀.")
    if method == "advanced":
        return ("√(2k ln(1/δ'))·ε₀ + kε₀(e^ε₀ − 1) (Dwork, Rothblum, Vadhan 2010; "
                "Dwork & Roth Thm 3.20).")
    if method == "optimal":
        return ("Exact best bound for ANY k mechanisms that are (ε₀, δ₀)-DP "
                "(Kairouz, Oh, Viswanath 2015, Thm 3.3).")
    if method == "rdp":
        return ("Rényi-DP curves add; converted to (ε, δ) at the best order "
                "(Mironov 2017; Balle et al. 2020, Thm 21).")
    return ("Privacy-loss distribution composed numerically by Google's dp_accounting "
            "(pessimistic discretization: an upper bound)." if mechanism == "laplace" else
            "Exact: k Gaussians with σ are one Gaussian with σ/√k (Balle & Wang 2018).")


def render() -> None:
    st.title("Composition & budget")
    st.markdown(
        "Answer **k** queries on the same data, each with its own noise. How much privacy "
        "is spent **in total**? Each method below gives a valid (ε, δ) guarantee; the "
        "smaller the total ε, the better the accounting."
    )
    label = bound_radio("Mechanism", list(MECHANISMS), horizontal=True, key="mechanism")
    mechanism = MECHANISMS[label]
    c_k, c_noise, c_delta = st.columns(3)
    with c_k:
        k = int(log_slider("Number of queries k", KS, 100, key="k", format_func=str,
                           caption="← fewer queries | more queries →"))
        budget = log_slider("Your total budget ε", BUDGETS, DEFAULT_BUDGET, key="comp_budget",
                            format_func=lambda b: f"{b:g}", caption="← stricter | looser budget →",
                            help="The total ε you allow for all the queries together: how many "
                                 "queries fit depends on the accounting.")
    with c_noise:
        if mechanism == "laplace":
            eps0 = epsilon_slider("Per-query ε₀", key="eps0", value=0.1,
                                  options=COMPOSITION_EPSILONS,
                                  help="Each query is ε₀-DP (Laplace noise, scale 1/ε₀).")
            sigma = None
        else:
            eps0 = None
            sigma = log_slider("Per-query noise σ (ℓ2 sensitivity 1)", SIGMAS, 5.0, key="sigma0",
                               caption="← less private | more private →",
                               help="Gaussian noise N(0, σ²) on each query.")
    with c_delta, secondary("Total δ and accountants"):
        delta = delta_slider("Total δ", key="total_delta", value=1e-5, options=DELTAS,
                             help="The total failure probability allowed for all k queries.")
        with_pld = bound_toggle("Include PLD (numerical privacy-loss distribution)", value=True,
                                key="with_pld")

    with friendly_errors("The composition"):
        data = _data(k, mechanism, eps0, sigma, delta, with_pld)
        totals = data.extra["at_mark"]
        within = {m: queries_within_budget(budget, mechanism, eps0, sigma, delta, m)
                  for m in BUDGET_METHODS}
        per_query = (f"ε₀ = {eps0:g}" if mechanism == "laplace" else f"σ = {sigma:g}")
        st.markdown(f"**Queries within your budget ε = {budget:g}** ({per_query} each)")
        tiles([(METHOD_LABELS[m].split(" (")[0], f"{n:,}" if n < K_LIMIT else f"≥ {K_LIMIT:,}",
                f"The most queries ({per_query} each) whose total ε by {METHOD_LABELS[m]} "
                f"stays within your budget ε = {budget:g} (total δ = {delta:g}).")
               for m, n in within.items()])
        if not presenting():
            st.markdown(f"**Total ε of k = {k:,} queries**")
        tiles([(METHOD_LABELS[m], fmt(v) if math.isfinite(v) else "∞", _help(m, mechanism))
               for m, v in totals.items()], border=False, fold_all=True,
              fold_label=f"Total ε of k = {k:,} queries, by each accountant")
        best = min(totals, key=totals.get)
        counts = ", ".join(f"{within[m]:,} by {METHOD_LABELS[m].split(' (')[0]}"
                           for m in BUDGET_METHODS)
        tradeoff(f"Every answer spends privacy. These k = {k:,} answers cost a total ε of "
                 f"{fmt(totals[best])} by the best accounting ({METHOD_LABELS[best]}), "
                 f"{fmt(totals[best] / k)} per answer; basic composition would charge "
                 f"{fmt(totals['basic'])}. A budget of ε = {budget:g} buys {counts} "
                 f"accounting: better accounting, more answers for the same privacy.")
        st.caption(f"Smallest total ε: **{METHOD_LABELS[best]}** ({fmt(totals[best])}) at total "
                   f"δ = {delta:g}. Basic composition would spend {fmt(totals['basic'])}.")
        if (mechanism == "laplace" and "pld" in totals
                and totals["pld"] >= totals["basic"] > totals["rdp"]):
            st.info("For k·ε₀ this large dp_accounting's PLD overflows; the value shown is "
                    "the basic bound kε₀, which is also valid.", icon=":material/info:")
        show_chart(with_budget(data, budget, within, mechanism, eps0, sigma, delta),
                   f"Total ε against the number of queries k, marked at k = {k}, with the "
                   f"budget ε = {budget:g} and where each accountant's curve crosses it")
        show_chart(share_of_basic(data), "Each accountant's total ε as a share of basic "
                                         "composition's, against k")
    st.caption(
        "Gaussian queries: the classic theorems (basic, advanced, optimal) need a per-query "
        "(ε₀, δ₀); half of δ goes to the queries (δ₀ = δ/2k) and half to the theorem. "
        f"RDP and PLD need no split. The figure shows k up to {COMPOSITION_K_MAX} (and up to "
        "the chosen k beyond that)."
    )
