"""App page "Composition & budget": k queries → total ε by each composition method.

Numbers and figure come from :func:`dpteach.plots.accounting.composition_data` (basic,
advanced, optimal, Rényi DP, PLD, through :func:`dpteach.accounting.composition_epsilons`);
the browser draws the figure. The PLD of k Laplace queries, seconds at large k·ε₀, is
read from the table that ``scripts/precompute_app_tables.py`` made over exactly the
sliders below, so no slider move waits for it.

Every control is bound to the address (``?k=1000&eps0=0.05``); ``PRESETS`` are the lesson's
prepared views; δ and the PLD switch fold away in presentation mode.
"""

from __future__ import annotations

import math

import streamlit as st

from dpteach.accounting.compare import METHOD_LABELS
from dpteach.plots.accounting import (
    COMPOSITION_DELTAS,
    COMPOSITION_EPSILONS,
    COMPOSITION_K_MAX,
    COMPOSITION_KS,
    COMPOSITION_SIGMAS,
    composition_data,
)
from dpteach.plots.figure import FigureData
from dpapp.charts import show_chart
from dpapp.frame import secondary, tiles, tradeoff
from dpapp.messages import friendly_errors
from dpapp.widgets import bound_radio, bound_toggle, delta_slider, epsilon_slider, fmt, log_slider

KS = COMPOSITION_KS
SIGMAS = COMPOSITION_SIGMAS
DELTAS = COMPOSITION_DELTAS          # δ > 0: every method but basic needs it

MECHANISMS = {"Laplace (ε₀ per query)": "laplace", "Gaussian (σ per query)": "gaussian"}
LAPLACE, GAUSSIAN = MECHANISMS

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
        tiles([(METHOD_LABELS[m], fmt(v) if math.isfinite(v) else "∞", _help(m, mechanism))
               for m, v in totals.items()], border=False)
        best = min(totals, key=totals.get)
        tradeoff(f"Every answer spends privacy. These k = {k:,} answers cost a total ε of "
                 f"{fmt(totals[best])} by the best accounting ({METHOD_LABELS[best]}), "
                 f"{fmt(totals[best] / k)} per answer; basic composition would charge "
                 f"{fmt(totals['basic'])}. More answers or less noise per answer, more ε.")
        st.caption(f"Smallest total ε: **{METHOD_LABELS[best]}** ({fmt(totals[best])}) at total "
                   f"δ = {delta:g}. Basic composition would spend {fmt(totals['basic'])}.")
        if (mechanism == "laplace" and "pld" in totals
                and totals["pld"] >= totals["basic"] > totals["rdp"]):
            st.info("For k·ε₀ this large dp_accounting's PLD overflows; the value shown is "
                    "the basic bound kε₀, which is also valid.", icon=":material/info:")
        show_chart(data, f"Total ε against the number of queries k, marked at k = {k}")
    st.caption(
        "Gaussian queries: the classic theorems (basic, advanced, optimal) need a per-query "
        "(ε₀, δ₀); half of δ goes to the queries (δ₀ = δ/2k) and half to the theorem. "
        f"RDP and PLD need no split. The figure shows k up to {COMPOSITION_K_MAX} (and up to "
        "the chosen k beyond that)."
    )
