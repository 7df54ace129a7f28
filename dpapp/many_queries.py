"""App page "Many queries": k counting queries at total ε, answered independently or by MWEM.

Two sliders, the number of queries k and the total ε, set one point of the crossover of
notebook 14: the largest error over k random counting queries on Adult (age × sex × race,
60 cells, n = 48,842) when each query is answered independently (Laplace with ε/k each;
Gaussian with a zCDP budget at δ = 1e-6) and when all are answered from MWEM's synthetic
data (:func:`dpteach.queries.mwem.mwem`, T = 30).

Speed: the independent lines are closed forms (:func:`dpteach.queries.independent.independent_max_error`,
microseconds); MWEM's errors are read from the grid shipped in
``dpteach/data/many_queries_grid.npz`` (``scripts/precompute_many_queries.py``), which covers
exactly these sliders, so no slider move runs MWEM. Both charts come from
:mod:`dpteach.plots.many_queries`, cached per slider position and drawn by the browser.

Both sliders are bound to the address (``?mq_k=100&mq_epsilon=0.1``); ``PRESETS`` are the
lesson's prepared views.
"""

from __future__ import annotations

import streamlit as st

from dpteach.plots.figure import FigureData
from dpteach.plots.many_queries import (
    CROSSOVER_EPSILONS,
    CROSSOVER_KS,
    CROSSOVER_T,
    crossover_data,
    crossover_epsilon_data,
)
from dpapp.charts import show_chart
from dpapp.frame import tiles, tradeoff
from dpapp.messages import friendly_errors
from dpapp.widgets import epsilon_slider, fmt, log_slider

#: the k slider's values (the grid's) and its default
KS = CROSSOVER_KS
DEFAULT_K = 1000
#: the ε slider's values (the grid's, = widgets.EPSILONS) and its default
EPSILONS = CROSSOVER_EPSILONS
DEFAULT_EPSILON = 1.0
CHART_HEIGHT = 380

#: The lesson's prepared views (widget key → value), offered above the page.
PRESETS = {
    "Few queries: k = 20": {"mq_k": 20, "mq_epsilon": 1.0},
    "Many queries: k = 10,000": {"mq_k": 10_000, "mq_epsilon": 1.0},
    "Small budget: ε = 0.1": {"mq_k": 1000, "mq_epsilon": 0.1},
    "Large budget: ε = 10": {"mq_k": 1000, "mq_epsilon": 10.0},
}
LABELS = {
    "laplace": "Independent Laplace (ε/k each)",
    "gaussian": "Independent Gaussian (zCDP, δ = 1e-6)",
    "mwem": f"MWEM synthetic data (T = {CROSSOVER_T})",
    "mwem-last": "MWEM, last distribution",
}
HELP = {
    "laplace": "Each query gets ε/k and Laplace noise of scale k/ε (basic composition). "
               "Expected largest of the k errors: (k/ε)·(1 + ½ + … + 1/k), divided by n.",
    "gaussian": "A zCDP budget ρ with (ε, δ = 1e-6) split over the k queries: Gaussian noise "
                "σ = √(k/2ρ) per query, growing like √k. A weaker, (ε, δ) guarantee.",
    "mwem": "MWEM (Hardt, Ligett & McSherry 2012): 30 rounds of 'pick a badly answered query "
            "with the exponential mechanism, measure it with Laplace, multiplicative-weights "
            "update'; every query is answered from the average distribution. Mean of 5 runs.",
    "mwem-last": "The same runs, answered from MWEM's last distribution instead of the "
                 "average (also ε-DP: post-processing; often better in practice).",
}


@st.cache_data(show_spinner=False, max_entries=512)
def charts(k: int, epsilon: float) -> tuple[FigureData, FigureData]:
    """Error against k (at ε) and against ε (at k): :func:`crossover_data`,
    :func:`crossover_epsilon_data`."""
    return crossover_data(k, epsilon), crossover_epsilon_data(k, epsilon)


def _controls() -> tuple[int, float]:
    c_k, c_eps = st.columns(2)
    with c_k:
        k = int(log_slider("Number of queries k", KS, DEFAULT_K, key="mq_k", format_func=str,
                           caption="← fewer queries | more queries →",
                           help="The first k of 10,000 random counting queries: each counts "
                                "the people in a random half of the 60 cells."))
    with c_eps:
        eps = epsilon_slider("Total privacy budget ε", key="mq_epsilon", value=DEFAULT_EPSILON,
                             options=EPSILONS,
                             help="The budget for ALL k answers together. Smaller ε = "
                                  "stronger guarantee = more noise.")
    return k, eps


def render() -> None:
    st.title("Many queries")
    st.markdown(
        "Every answer costs privacy. Answer **k** counting queries (\"how many people are in "
        "this set of cells?\") on the Adult census data, with a **total** budget ε. "
        "Answering each query independently splits ε k ways, so the noise grows with k. "
        "**MWEM** instead learns a synthetic dataset from a few noisy measurements of the "
        "worst-answered queries and answers *every* query from it: its error hardly grows "
        "with k. Move k and ε and find the **crossover**."
    )
    k, eps = _controls()
    by_k = by_eps = None
    with friendly_errors("The comparison"):
        by_k, by_eps = charts(k, eps)
    if by_k is None:
        return
    at = by_k.extra["at"]
    tiles([(LABELS[key], fmt(at[key], 3), HELP[key]) for key in LABELS])
    pure = {key: at[key] for key in ("laplace", "mwem")}
    winner = min(pure, key=pure.get)
    ratio = max(pure.values()) / min(pure.values())
    st.markdown(
        f"Largest error as a **fraction of the {by_k.extra['n']:,.0f} people** "
        f"(0.01 = 1 %). At k = {k:,} and ε = {fmt(eps)}, among the two pure ε-DP methods "
        f"**{LABELS[winner].split(' (')[0]}** wins by a factor {ratio:.1f}.")
    tradeoff(f"One budget ε = {fmt(eps)} pays for all {k:,} answers. Answered one by one, each "
             f"gets ε/k = {fmt(eps / k, 3)}, so the noise grows with k (largest error "
             f"{fmt(at['laplace'], 3)} of n); MWEM spends the budget on a synthetic dataset "
             f"and answers every query from it (largest error {fmt(at['mwem'], 3)}).")
    left, right = st.columns(2)
    with left:
        show_chart(by_k, f"Largest error against the number of queries at ε = {fmt(eps)}, "
                         f"marked at k = {k}", height=CHART_HEIGHT)
    with right:
        show_chart(by_eps, f"Largest error against ε for k = {k} queries, marked at "
                           f"ε = {fmt(eps)}", height=CHART_HEIGHT)
    st.caption(
        "Independent lines: exact expectations. MWEM: the mean of 5 seeded runs per setting "
        "(band: their range), precomputed by scripts/precompute_many_queries.py. Laplace's "
        "error can exceed 1 (more than n): raw noisy counts; clipping them to [0, n] is free "
        "but does not make them useful. On a universe this small (60 cells) a noisy "
        "histogram, Lap(1/ε) per cell, would beat all of them; MWEM's advantage grows with "
        "the universe (notebook 14).")
    st.caption("M. Hardt, K. Ligett, F. McSherry, *A simple and practical algorithm for "
               "differentially private data release*, NeurIPS 2012; M. Hardt, G. N. "
               "Rothblum, *A multiplicative weights mechanism for privacy-preserving data "
               "analysis*, FOCS 2010; data: UCI Adult (Becker & Kohavi 1996).")
