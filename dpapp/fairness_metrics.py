"""App page "Fairness metrics": a threshold per group on an Adult model, and every gap it has.

An unconstrained logistic regression on UCI Adult (no fairness constraint; ``sex`` is the
sensitive attribute A, 1 = female) scores the 15,060 people of the test split; the scores
are shipped (:func:`dpteach.tables.load_fairness_table`, made by
``scripts/precompute_app_tables.py``), so the page never trains. Two sliders set the
threshold of each group; the page shows the per-group rates
(:func:`~dpteach.plots.fairness.group_rates`), accuracy and every gap
(:func:`~dpteach.plots.fairness.fairness_gaps`, each one call of
:mod:`dpteach.fairness.metrics`), each group's ROC curve with its operating point, and the
trade-off between accuracy and a gap over every pair of thresholds
(:func:`~dpteach.plots.fairness.threshold_tradeoff_data`, from the shipped grid).

Speed: a slider move computes the current pair only (about ten metric calls on 15,060
people, a few ms); the 10,201 pairs of the trade-off charts are read from the table. Each
result is cached per slider position with ``st.cache_data`` and the charts are drawn by the
browser (Vega-Lite).

Every control is bound to the address (``?fair_t_women=0.19&fair_t_men=0.65``); ``PRESETS``
are the lesson's prepared views (pairs of thresholds that close one gap each); the second
chart's gap folds away in presentation mode.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from dpteach.plots.fairness import (
    GAPS,
    THRESHOLDS,
    fairness_gaps,
    group_rates,
    group_roc_data,
    threshold_tradeoff_data,
)
from dpapp.charts import show_chart
from dpapp.frame import secondary, tiles, tradeoff
from dpapp.messages import friendly_errors
from dpapp.widgets import bound_selectbox, bound_slider, fmt

#: the two threshold sliders: min, max, default, step (their values are THRESHOLDS)
SLIDER = (THRESHOLDS[0], THRESHOLDS[-1], 0.5, 0.01)
#: the gaps the second trade-off chart can show (the first shows demographic parity)
SECOND_GAPS = tuple(g for g in GAPS if g != "demographic_parity")
DEFAULT_SECOND_GAP = "equalized_odds_worst"
#: chart height in pixels (two-line titles and two-row legends need room on a projector)
CHART_HEIGHT = 460

#: The notebook this page goes with (a file stem of notebooks/), named under the bar.
NOTEBOOK = "15_fairness_definitions"

#: The lesson's prepared views (widget key → value), offered above the page: each pair of
#: thresholds is the most accurate on the 0.01 grid whose named gap is at most 0.01.
PRESETS = {
    "One threshold: 0.5": {"fair_t_women": 0.5, "fair_t_men": 0.5,
                           "fair_gap": "equalized_odds_worst"},
    "Equal selection rates": {"fair_t_women": 0.19, "fair_t_men": 0.65,
                              "fair_gap": "equal_opportunity"},
    "Equal opportunity": {"fair_t_women": 0.45, "fair_t_men": 0.58,
                          "fair_gap": "equal_opportunity"},
    "Equalized odds": {"fair_t_women": 0.71, "fair_t_men": 0.8,
                       "fair_gap": "equalized_odds_worst"},
}
#: The gap each preset closes (tests check it is at most 0.01 there).
PRESET_GAPS = {"Equal selection rates": "demographic_parity",
               "Equal opportunity": "equal_opportunity",
               "Equalized odds": "equalized_odds_worst"}

#: the per-group table's columns: group_table's name → what the page calls it
COLUMNS = {
    "threshold": "threshold",
    "count": "people",
    "base_rate": "base rate P(Y=1)",
    "selection_rate": "selection rate P(Ŷ=1)",
    "true_positive_rate": "TPR P(Ŷ=1 | Y=1)",
    "false_positive_rate": "FPR P(Ŷ=1 | Y=0)",
    "false_negative_rate": "FNR P(Ŷ=0 | Y=1)",
    "positive_predictive_value": "PPV P(Y=1 | Ŷ=1)",
    "accuracy": "accuracy",
}


@st.cache_data(show_spinner=False, max_entries=1024)
def numbers(female_threshold: float, male_threshold: float) -> tuple[dict, pd.DataFrame, list]:
    """Accuracy and every gap (:func:`fairness_gaps`); the per-group rates
    (:func:`group_rates`) as the page shows them (one row per rate, one column per group,
    as text: rates to 3 decimals, "undefined" for 0/0); the groups whose PPV is undefined."""
    gaps = fairness_gaps(female_threshold, male_threshold)
    rates = group_rates(female_threshold, male_threshold)
    values = rates[list(COLUMNS)].to_numpy(dtype=float)          # rows: women, men
    shown = pd.DataFrame({
        group: [_cell(col, v) for col, v in zip(COLUMNS, row)]
        for group, row in zip(rates.index, values)
    }, index=pd.Index(list(COLUMNS.values()), name="rate"))
    ppv = rates["positive_predictive_value"].to_numpy()
    undefined = [g for g, v in zip(rates.index, ppv) if math.isnan(v)]
    return gaps, shown, undefined


def _cell(column: str, value: float) -> str:
    if math.isnan(value):
        return "undefined"
    if column == "count":
        return f"{int(value):,}"
    return f"{value:.2f}" if column == "threshold" else f"{value:.3f}"


# the charts' data are 10-40 kB each: 256 positions of each stay cached (under 25 MB in all)
@st.cache_data(show_spinner=False, max_entries=256)
def roc_chart(female_threshold: float, male_threshold: float):
    """The groups' ROC curves and operating points (:func:`group_roc_data`)."""
    return group_roc_data(female_threshold, male_threshold)


@st.cache_data(show_spinner=False, max_entries=256)
def tradeoff_chart(female_threshold: float, male_threshold: float, gap: str):
    """Accuracy against ``gap`` over every threshold pair (:func:`threshold_tradeoff_data`)."""
    return threshold_tradeoff_data(female_threshold, male_threshold, gap=gap)


def _threshold(label: str, key: str, group: str, person: str) -> float:
    value = bound_slider(label, SLIDER[0], SLIDER[1], SLIDER[2], SLIDER[3], key=key,
                         format="%.2f",
                         caption=f"← more {group} selected | fewer {group} selected →",
                         help=f"A {person} is predicted to earn more than $50K (Ŷ = 1) when "
                              f"the model's score reaches this threshold: 0 selects every "
                              f"{person}, 1 no one.")
    return round(float(value), 2)


def _controls() -> tuple[float, float, str]:
    c_women, c_men, c_gap = st.columns(3)
    with c_women:
        tf = _threshold("Threshold for women", "fair_t_women", "women", "woman")
    with c_men:
        tm = _threshold("Threshold for men", "fair_t_men", "men", "man")
    with c_gap, secondary("Gap of the second chart"):
        gap = bound_selectbox("Gap of the second trade-off chart", SECOND_GAPS,
                              index=SECOND_GAPS.index(DEFAULT_SECOND_GAP), key="fair_gap",
                              format_func=lambda g: GAPS[g][0],
                              help="The first trade-off chart shows the demographic-parity "
                                   "difference; choose the gap of the second.")
    return tf, tm, gap


def _metrics(gaps: dict) -> None:
    st.markdown("**0 = the groups are treated alike** by a definition; 1 (2 for the sum) = "
                "as unlike as possible. Hover a number's (?) for its formula.")
    keys = ("demographic_parity", "equal_opportunity", "equalized_odds_worst",
            "equal_opportunity_laftr", "equalized_odds_mean", "equalized_odds_sum")
    tiles([("accuracy", fmt(gaps["accuracy"]),
            "Share of the 15,060 test people whose income class is predicted correctly.")]
          + [(GAPS[key][0], fmt(gaps[key]), GAPS[key][1]) for key in keys],
          fold_label="The other gaps")


def _rates_table(shown: pd.DataFrame, undefined: list) -> None:
    """The per-group rates, one row per rate and one column per group (fits half a page).

    Text cells (formatted once, in :func:`numbers`): a pandas Styler would cost ~8 ms of
    every rerun."""
    right = {g: st.column_config.TextColumn(g, alignment="right") for g in shown.columns}
    st.dataframe(shown, width="stretch", column_config=right)
    if undefined:
        st.caption(f"PPV is undefined (0/0) for {' and '.join(undefined)}: the threshold "
                   f"selects no one.")


def render() -> None:
    st.title("Fairness metrics")
    st.markdown(
        "An **unconstrained logistic regression** (no fairness constraint; sex is one of its "
        "features) trained on the UCI Adult training split predicts whether a person earns "
        "more than $50K. It scores the 15,060 people of the test split; the sensitive "
        "attribute A is **sex**. A threshold per group turns the scores into decisions Ŷ: "
        "move them and watch the per-group rates, every gap and the accuracy. Women and men "
        "have different **base rates** P(Y=1), so the definitions pull in different "
        "directions: only the thresholds that select everyone or no one (and so predict "
        "nothing) close every gap at once."
    )
    tf, tm, gap = _controls()

    gaps = table = undefined = None
    with friendly_errors("The rates and gaps"):
        gaps, table, undefined = numbers(tf, tm)
    if gaps is not None:
        _metrics(gaps)
        tradeoff(f"With thresholds {tf:.2f} for women and {tm:.2f} for men, accuracy is "
                 f"{fmt(gaps['accuracy'], 3)}, the selection rates differ by "
                 f"{fmt(gaps['demographic_parity'], 2)} and the true-positive rates by "
                 f"{fmt(gaps['equal_opportunity'], 2)}. Closing one gap opens another and "
                 f"costs accuracy: no pair closes them all.")

    st.subheader("The trade-off: accuracy against a gap, over every pair of thresholds")
    left, right = st.columns(2)
    for col, g in ((left, "demographic_parity"), (right, gap)):
        with col, friendly_errors("The trade-off chart"):
            show_chart(tradeoff_chart(tf, tm, g),
                       f"Accuracy against the {GAPS[g][0]} for every pair of thresholds, the "
                       f"best accuracy at each gap, one threshold for both groups, and the "
                       f"current pair", height=CHART_HEIGHT)
    st.caption(
        "Each light dot is one pair of thresholds (every 0.05); the solid line is the best "
        "accuracy any of the 101 × 101 pairs reaches at that gap or below; the dashed curve "
        "uses one threshold for both groups. Closing a gap costs accuracy, and each "
        "definition asks for a different pair. fairlearn's `ThresholdOptimizer` finds such "
        "pairs (with randomisation) for a chosen constraint (notebook 15).")

    left, right = st.columns(2)
    with left:
        st.subheader("Each group's ROC curve")
        with friendly_errors("The ROC curves"):
            show_chart(roc_chart(tf, tm), "True-positive rate against false-positive rate of "
                                          "women and men, with the point of each group's "
                                          "threshold", height=CHART_HEIGHT)
    with right:
        st.subheader("Per-group rates")
        if table is not None:
            _rates_table(table, undefined)
        st.markdown("**What each gap means** (0 = the groups are treated alike):\n\n"
                    + "\n".join(f"- **{name}**: {meaning}" for name, meaning in GAPS.values()))
    st.caption("M. Hardt, E. Price, N. Srebro, *Equality of opportunity in supervised "
               "learning*, NeurIPS 2016; D. Madras, E. Creager, T. Pitassi, R. Zemel, "
               "*Learning adversarially fair and transferable representations*, ICML 2018; "
               "data: UCI Adult (Becker & Kohavi 1996).")
