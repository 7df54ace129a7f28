"""App page "PATE votes": one query's vote histogram, its noisy answer, and its privacy cost.

The histogram is :func:`dpteach.plots.pate.agreement_votes` (presets
:data:`~dpteach.plots.pate.VOTE_PRESETS`, or the agreement slider); the charts' data come
from :mod:`dpteach.plots.pate` (``vote_histogram_data``, ``answer_distribution_data``,
``pate_privacy_data``), which take the exact answer distributions from
:mod:`dpteach.pate.answers` and the expected ε-cost of k queries (data-independent and
data-dependent RDP weighed by the chance of an answer: a forecast, not an ε) from
:mod:`dpteach.pate.analysis`; the guarantee after k queries (the data-independent bound, every
query answered) is :func:`dpteach.pate.analysis.pate_epsilon`. Each chart is cached per slider
position with ``st.cache_data`` and drawn by the browser (Vega-Lite).

Speed: the exact answer probabilities are one quadrature per class (about 1 ms for 10
classes), the expected cost after k queries is one RDP curve per way, scaled by k and
converted for about 120 k's (about 10 ms), and the bound one sum over k ≤ 10,000 queries, so
every slider position costs well under 100 ms from a cold cache.

Every control is bound to the address (``?pate_agreement=0.55&pate_k=100``); ``PRESETS`` are
the vote histograms of :data:`~dpteach.plots.pate.VOTE_PRESETS` (offered above the page); the
ensemble's size, the classes, the other teachers' votes and δ fold away in presentation mode.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from dpteach.pate.analysis import pate_epsilon
from dpteach.plots.figure import FigureData
from dpteach.plots.pate import (
    VOTE_PRESETS,
    agreement_votes,
    answer_distribution_data,
    pate_privacy_data,
    vote_histogram_data,
)
from dpapp.charts import show_chart
from dpapp.frame import secondary, tiles, tradeoff
from dpapp.messages import friendly_errors
from dpapp.widgets import bound_radio, bound_slider, DELTAS, fmt, fmt_delta, log_slider

TEACHERS = (50, 500, 250, 10)            # the teachers slider: min, max, default, step
CLASSES = (2, 10, 2)                     # the classes slider: min, max, default (Adult: 2)
AGREEMENTS = (0.1, 1.0, 0.01)            # the agreement slider: min, max, step
THRESHOLDS = (0, 600, 300, 10)           # the T slider: min, max, default, step
SIGMA1S = (10.0, 15.0, 20.0, 30.0, 50.0, 70.0, 100.0, 150.0, 200.0, 300.0, 500.0)
SIGMA2S = (5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 70.0, 100.0, 150.0, 200.0)
QUERIES = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000)
PATE_DELTAS = tuple(d for d in DELTAS if d > 0)
K_MAX = 10_000                           # the privacy chart shows k = 1 … K_MAX
DEFAULT_PRESET = "clear winner"

REST_LABELS = {"spread": "spread evenly over the other classes",
               "runner-up": "all for one runner-up class"}

#: The notebook this page goes with (a file stem of notebooks/), named under the bar.
NOTEBOOK = "12_pate_votes_and_privacy"

#: The lesson's prepared views: the preset histograms (the agreement slider and the
#: "other teachers" choice; the other sliders stay as they are).
PRESETS = {name: {"pate_agreement": agreement, "pate_rest": REST_LABELS[rest]}
           for name, (agreement, rest) in VOTE_PRESETS.items()}


@st.cache_data(show_spinner=False, max_entries=1024)
def histogram_chart(votes: tuple[int, ...], threshold: float) -> FigureData:
    """The votes with the threshold T (:func:`vote_histogram_data`)."""
    return vote_histogram_data(np.array(votes), threshold)


@st.cache_data(show_spinner=False, max_entries=1024)
def answer_chart(votes: tuple[int, ...], threshold: float, sigma1: float,
                 sigma2: float) -> tuple[FigureData, dict]:
    """The answer's exact distribution (:func:`answer_distribution_data`) and the numbers
    the page shows (from its ``extra``)."""
    v = np.array(votes)
    data = answer_distribution_data(v, threshold, sigma1, sigma2)
    extra = data.extra
    top = extra["plurality"]
    numbers = {"p_answer": extra["p_answer"], "q_bound": extra["q_bound"],
               "confident_plurality": float(extra["confident"][top]),
               "gnmax_plurality": float(extra["gnmax"][top])}
    return data, numbers


@st.cache_data(show_spinner=False, max_entries=1024)
def privacy_chart(votes: tuple[int, ...], threshold: float, sigma1: float, sigma2: float,
                  delta: float, k: int) -> FigureData:
    """Expected ε-cost of k = 1 … K_MAX such queries, both ways, marked at k
    (:func:`pate_privacy_data`)."""
    return pate_privacy_data(np.array(votes), threshold, sigma1, sigma2, delta,
                             k_max=K_MAX, mark_k=k)


@st.cache_data(show_spinner=False, max_entries=1024)
def epsilon_bound(votes: tuple[int, ...], threshold: float, sigma1: float, sigma2: float,
                  delta: float, k: int) -> float:
    """The ε guaranteed after k such queries whatever the run: data-independent curves, every
    query charged the threshold step and GNMax (:func:`pate_epsilon`, all answered)."""
    return pate_epsilon(np.tile(np.array(votes), (k, 1)), sigma2=sigma2, delta=delta,
                        threshold=threshold, sigma1=sigma1, answered=np.ones(k, dtype=bool),
                        data_dependent=False).epsilon


def _controls() -> dict:
    default_agreement, default_rest = VOTE_PRESETS[DEFAULT_PRESET]
    rests = list(REST_LABELS.values())
    c_votes, c_ensemble, c_noise = st.columns(3)
    with c_votes:
        agreement = bound_slider("Agreement: share of teachers voting for class 0",
                                 AGREEMENTS[0], AGREEMENTS[1], default_agreement, AGREEMENTS[2],
                                 key="pate_agreement", format="%.2f",
                                 caption="← teachers disagree | teachers agree →",
                                 help="Class 0 gets this share of the votes (rounded to whole "
                                      "teachers); it must stay the plurality.")
        with secondary("The other teachers' votes"):
            rest_label = bound_radio("The other teachers vote", rests, key="pate_rest",
                                     index=rests.index(REST_LABELS[default_rest]),
                                     horizontal=True)
    with c_ensemble:
        with secondary("Teachers and classes"):
            teachers = bound_slider("Number of teachers", TEACHERS[0], TEACHERS[1],
                                    TEACHERS[2], TEACHERS[3], key="pate_teachers",
                                    help="Each teacher is trained on its own part of the "
                                         "private data and casts one vote per query.")
            classes = bound_slider("Number of classes", CLASSES[0], CLASSES[1], CLASSES[2], 1,
                                   key="pate_classes")
        threshold = bound_slider("Threshold T", THRESHOLDS[0], THRESHOLDS[1], THRESHOLDS[2],
                                 THRESHOLDS[3], key="pate_threshold",
                                 caption="higher T → fewer answers, each more likely to be the "
                                         "plurality",
                                 help="Confident-GNMax answers only if the largest count plus "
                                      "N(0, σ₁²) noise reaches T.")
    with c_noise:
        sigma1 = log_slider("Threshold noise σ₁", SIGMA1S, 200.0, key="pate_sigma1",
                            format_func=lambda s: f"{s:g}",
                            caption="← less private | more private →",
                            help="Gaussian noise added to the largest count before the "
                                 "comparison with T.")
        sigma2 = log_slider("Answer noise σ₂ (GNMax)", SIGMA2S, 40.0, key="pate_sigma2",
                            format_func=lambda s: f"{s:g}",
                            caption="← less private | more private →",
                            help="Gaussian noise added to every count before the argmax.")
    rest = next(r for r, label in REST_LABELS.items() if label == rest_label)
    return dict(agreement=round(float(agreement), 2), rest=rest, teachers=int(teachers),
                classes=int(classes), threshold=float(threshold), sigma1=sigma1, sigma2=sigma2)


def render() -> None:
    st.title("PATE votes")
    st.markdown(
        "PATE (Papernot et al. 2017, 2018) trains an ensemble of **teachers** on disjoint "
        "parts of the private data. A student's query is answered by a **noisy vote**: "
        "Confident-GNMax first checks, with noise σ₁, that the teachers agree enough (the "
        "largest count reaches the threshold T), then answers the class with the largest "
        "count plus Gaussian noise σ₂. One person's data changes one teacher, so one vote. "
        "When the teachers agree, the answer is almost certain, and the "
        "**data-dependent** analysis charges far less privacy than the "
        "**data-independent** one."
    )
    c = _controls()
    votes = None
    with friendly_errors("The vote histogram"):
        votes = agreement_votes(c["teachers"], c["classes"], c["agreement"], c["rest"])
    if votes is None:                     # not a histogram: the warning says why
        return
    key = tuple(int(x) for x in votes)
    args = (key, c["threshold"], c["sigma1"], c["sigma2"])

    left, right = st.columns(2)
    with left:
        st.subheader("The teachers' votes")
        with friendly_errors("The vote histogram"):
            show_chart(histogram_chart(key, c["threshold"]),
                       "Bar chart of the votes per class with the threshold T")
    extra = None
    with right:
        st.subheader("The aggregator's answer")
        with friendly_errors("The answer's distribution"):
            data, extra = answer_chart(*args)
            show_chart(data, "Probability of each answer of Confident-GNMax and GNMax")
    if extra is not None:
        tiles([("P(threshold passes)", fmt(extra["p_answer"]),
                "Pr[max count + N(0, σ₁²) ≥ T]: the chance the query is answered."),
               ("Confident-GNMax: P(plurality)", fmt(extra["confident_plurality"]),
                "Answered, and with the plurality class."),
               ("GNMax alone: P(plurality)", fmt(extra["gnmax_plurality"]),
                "argmax of the counts plus N(0, σ₂²) noise, always answering."),
               ("Bound q̃ on P(GNMax ≠ plurality)", fmt(extra["q_bound"]),
                "Papernot et al. 2018, Prop. 7: the union bound the data-dependent privacy "
                f"analysis uses; exact value {fmt(1 - extra['gnmax_plurality'])}.")],
              fold_label="The answer's probabilities")

    st.subheader("The privacy cost of such queries")
    c_delta, c_k = st.columns(2)
    with c_delta, secondary("δ"):
        delta = log_slider("δ", PATE_DELTAS, 1e-5, key="pate_delta", format_func=fmt_delta,
                           help="The failure probability of the (ε, δ) guarantee.")
    with c_k:
        k = int(log_slider("Number of such queries k", QUERIES, 1000, key="pate_k",
                           format_func=lambda q: f"{q:,}",
                           caption="← fewer queries | more queries →"))
    with friendly_errors("The privacy cost"):
        data = privacy_chart(*args, delta, k)
        bound = epsilon_bound(*args, delta, k)
        per, at = data.extra["per_query"], data.extra["at_mark"]
        tiles([("ε after k queries (data-independent bound)", fmt(bound),
                "A guarantee whatever the run: every query charged the threshold step and "
                "GNMax, λ/(2σ₁²) + λ/σ₂², converted at the best order."),
               ("Expected ε-cost, k queries (data-independent)",
                fmt(at["data-independent"]),
                "A forecast, not an ε: λ/(2σ₁²) + P(answer)·λ/σ₂² per query, the expected "
                "cost of the paper's tables."),
               ("Expected ε-cost, k queries (data-dependent)", fmt(at["data-dependent"]),
                "A forecast from Thm 6 of Papernot et al. 2018 on these votes: NOT "
                "publishable."),
               ("Expected ε-cost, one query (data-dependent)", fmt(per["data-dependent"]),
                "The same forecast for k = 1.")],
              fold_label="The privacy cost in numbers")
        answered = f", answered with the plurality {fmt(extra['confident_plurality'], 3)} of " \
                   "the time" if extra is not None else ""
        tradeoff(f"More noise (σ₁ = {fmt(c['sigma1'])}, σ₂ = {fmt(c['sigma2'])}) makes each "
                 f"answer cheaper in privacy and less reliable{answered}. After k = {k:,} "
                 f"such queries: ε ≤ {fmt(bound)} guaranteed (data-independent bound); "
                 f"expected cost {fmt(at['data-independent'])}, or "
                 f"{fmt(at['data-dependent'])} if the teachers' agreement may be used.")
        show_chart(data, f"Total expected ε-cost against the number of queries k, marked at "
                         f"k = {k:,}")
        st.caption(
            "The curves are a forecast, the expected cost used in the paper's tables: every "
            "query is charged the threshold step and GNMax weighed by the probability that "
            "the threshold passes. It is an average over runs, not an ε. A run's guarantee "
            "is its ε in the answered convention (GNMax charged on the queries it answered); "
            "before the run, the data-independent bound charges GNMax on every query. For "
            "one query the conversion picks a high Rényi order, where Thm 6 does not apply, "
            "so the two curves often agree; the saving of the data-dependent analysis "
            "appears as queries add up. The data-dependent cost is computed from the votes, "
            "i.e. from the private data: publishing it leaks. Release the data-independent "
            "ε, or a sanitised ε (smooth sensitivity, notebook 13).")
    st.caption("N. Papernot et al., *Semi-supervised knowledge transfer for deep learning from "
               "private training data*, ICLR 2017; N. Papernot et al., *Scalable private "
               "learning with PATE*, ICLR 2018 (Alg. 1, Thm 6, Prop. 7 and 8).")

