"""App page "Composition & budget": k queries → total ε by each composition method.

Numbers come from :func:`dpteach.accounting.composition_epsilons` (basic,
advanced, optimal, Rényi DP, PLD); the figure from
:func:`dpteach.plots.accounting.plot_composition`.
"""

from __future__ import annotations

import math

import streamlit as st

from ..accounting import METHOD_LABELS, composition_epsilons
from ._common import (
    EPSILONS,
    FIGURES,
    Prefetcher,
    cached_figure,
    delta_slider,
    epsilon_slider,
    fmt,
    friendly_errors,
    log_slider,
    neighbours,
    show_figure,
)

KS = (1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1000, 2000, 5000)
SIGMAS = (0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0, 20.0, 50.0)
DELTAS = tuple(10.0 ** -k for k in range(10, 1, -1))     # δ > 0: every method but basic needs it
FIG_K_MAX = 1000
_PLOT = "dpteach.plots.accounting.plot_composition"

MECHANISMS = {"Laplace (ε₀ per query)": "laplace", "Gaussian (σ per query)": "gaussian"}


def _ahead(options, value, last) -> list:
    """Slider positions to prepare next: after a move, the next one in the same
    direction (an arrow key pressed again); otherwise both neighbours."""
    nb = neighbours(options, value)
    if last is None or last == value or last not in options:
        return nb
    options = list(options)
    i = options.index(value) + (1 if last < value else -1)
    return [options[i]] if 0 <= i < len(options) else []


def _compute_totals(k: int, mechanism: str, eps0: float | None, sigma: float | None,
                    delta: float, with_pld: bool) -> dict[str, float]:
    methods = ("basic", "advanced", "optimal", "rdp") + (("pld",) if with_pld else ())
    out = composition_epsilons([k], mechanism=mechanism, epsilon=eps0, sigma=sigma, delta=delta,
                               methods=methods)
    return {m: float(v[0]) for m, v in out.items()}


TOTALS = Prefetcher(_compute_totals)


def _figure_kwargs(mechanism: str, eps0: float | None, sigma: float | None, delta: float,
                   with_pld: bool) -> dict:
    methods = ("basic", "advanced", "optimal", "rdp") + (("pld",) if with_pld else ())
    return dict(k_max=FIG_K_MAX, mechanism=mechanism, epsilon=eps0, sigma=sigma, delta=delta,
                methods=methods)


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
    label = st.radio("Mechanism", list(MECHANISMS), horizontal=True, key="mechanism")
    mechanism = MECHANISMS[label]
    c_k, c_noise, c_delta = st.columns(3)
    with c_k:
        k = int(log_slider("Number of queries k", KS, 100, key="k", format_func=str,
                           caption="← fewer queries | more queries →"))
    with c_noise:
        if mechanism == "laplace":
            eps0 = epsilon_slider("Per-query ε₀", key="eps0", value=0.1,
                                  help="Each query is ε₀-DP (Laplace noise, scale 1/ε₀).")
            sigma = None
        else:
            eps0 = None
            sigma = log_slider("Per-query noise σ (ℓ2 sensitivity 1)", SIGMAS, 5.0, key="sigma",
                               caption="← less private | more private →",
                               help="Gaussian noise N(0, σ²) on each query.")
    with c_delta:
        delta = delta_slider("Total δ", key="delta", value=1e-5, options=DELTAS,
                             help="The total failure probability allowed for all k queries.")
    with_pld = st.toggle("Include PLD (numerical; can take a second for large k·ε₀)",
                         value=True, key="with_pld")

    totals = {}
    with friendly_errors("The composition"), st.spinner("Composing…"):
        totals = TOTALS.get(k, mechanism, eps0, sigma, delta, with_pld)
    if totals:
        cols = st.columns(len(totals))
        for col, (m, v) in zip(cols, totals.items()):
            col.metric(METHOD_LABELS[m], fmt(v) if math.isfinite(v) else "∞",
                       help=_help(m, mechanism))
        best = min(totals, key=totals.get)
        st.caption(f"Smallest total ε: **{METHOD_LABELS[best]}** ({fmt(totals[best])}) at total "
                   f"δ = {delta:g}. Basic composition would spend {fmt(totals['basic'])}.")
        if (mechanism == "laplace" and "pld" in totals
                and totals["pld"] >= totals["basic"] > totals["rdp"]):
            st.info("For k·ε₀ this large dp_accounting's PLD overflows; the value shown is "
                    "the basic bound kε₀, which is also valid.", icon=":material/info:")

    with friendly_errors("The figure"), st.spinner("Drawing…"):
        kw = _figure_kwargs(mechanism, eps0, sigma, delta, with_pld)
        show_figure(cached_figure(_PLOT, **kw), "Total ε against the number of queries k")
    # compute (and draw) the next likely positions in the background: along the
    # slider moved last, direction of the move first (a figure takes ~0.3 s)
    state = st.session_state
    last_k, last_noise = state.get("_last_k"), state.get("_last_noise")
    noise = eps0 if mechanism == "laplace" else sigma
    state["_last_k"], state["_last_noise"] = k, noise
    if last_k is not None and last_k != k:
        for kk in _ahead(KS, k, last_k):
            TOTALS.prefetch(int(kk), mechanism, eps0, sigma, delta, with_pld)
    elif mechanism == "laplace":
        for e in _ahead(EPSILONS, eps0, last_noise):
            TOTALS.prefetch(k, mechanism, e, None, delta, with_pld)
            FIGURES.prefetch(_PLOT, **_figure_kwargs(mechanism, e, None, delta, with_pld))
    else:
        for s in _ahead(SIGMAS, sigma, last_noise):
            TOTALS.prefetch(k, mechanism, None, s, delta, with_pld)
            FIGURES.prefetch(_PLOT, **_figure_kwargs(mechanism, None, s, delta, with_pld))
    st.caption(
        "Gaussian queries: the classic theorems (basic, advanced, optimal) need a per-query "
        "(ε₀, δ₀); half of δ goes to the queries (δ₀ = δ/2k) and half to the theorem. "
        "RDP and PLD need no split. The figure shows k up to 1000."
    )
