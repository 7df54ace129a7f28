"""App page "Fair representations": LAFTR's fairness–accuracy trade-off on Adult, as γ moves.

LAFTR (Madras et al. 2018) learns a representation Z of a person from which an adversary
cannot recover the sensitive attribute A (``sex``); the weight γ of the adversary's loss sets
how hard the encoder hides it. The page reads the shipped γ sweep
(:func:`dpteach.tables.load_gamma_sweep`, made by ``benchmarks/laftr_adult.py``:
every objective × several γ × several seeds on Adult, and the unfair MLP): a choice of the
variant (DP / EO / EOpp) and a slider over the sweep's γ values select one model, and the
page shows its accuracy and every gap (mean ± sd over seeds, from
:func:`dpteach.plots.laftr.model_summary`), the adversary's accuracy at predicting A from Z,
the frontier (:func:`~dpteach.plots.laftr.frontier_data`) and the per-group rates
(:func:`~dpteach.plots.laftr.group_rates_data`).

Speed: nothing is fitted on a slider move; each position is a few pandas group-bys over the
sweep's few hundred rows (a few ms), cached per (variant, γ) with ``st.cache_data``, and the
charts are drawn by the browser (Vega-Lite).
"""

from __future__ import annotations

import streamlit as st

from dpteach.plots.laftr import (
    GAPS,
    OBJECTIVES,
    TARGET_GAP,
    VARIANTS,
    frontier_data,
    group_rates_data,
    model_summary,
    sweep_gammas,
)
from dpapp.charts import show_chart
from dpapp.frame import tiles, tradeoff
from dpapp.messages import friendly_errors
from dpapp.widgets import bound_radio, bound_select_slider

#: what each variant's adversary sees, and the gap it targets (the radio's labels)
VARIANT_LABELS = {
    "dp": "LAFTR-DP: the adversary sees Z (demographic parity)",
    "eo": "LAFTR-EO: the adversary sees Z and Y (equalized odds)",
    "eopp": "LAFTR-EOpp: Z and Y, on Y = 0 rows (equal opportunity)",
}
DEFAULT_OBJECTIVE = "dp"
#: chart height in pixels (two-line titles and two-row legends need room on a projector)
CHART_HEIGHT = 420
#: (variant, γ) positions cached: 3 variants × the sweep's γ values, with room to spare
CACHE_ENTRIES = 128

#: The lesson's prepared views (widget key → value), offered above the page.
PRESETS = {
    "No adversary: γ = 0": {"laftr_objective": "dp", "laftr_gamma": 0.0},
    "LAFTR-DP, γ = 1": {"laftr_objective": "dp", "laftr_gamma": 1.0},
    "LAFTR-DP, γ = 16": {"laftr_objective": "dp", "laftr_gamma": 16.0},
    "LAFTR-EO, γ = 4": {"laftr_objective": "eo", "laftr_gamma": 4.0},
}


@st.cache_data(show_spinner=False, max_entries=len(OBJECTIVES))
def gammas(objective: str) -> tuple[float, ...]:
    """The γ values of ``objective`` in the shipped sweep (the slider's positions)."""
    return sweep_gammas(objective)


def default_gamma(options: tuple[float, ...]) -> float:
    """The slider's start: the γ nearest 1 (the paper's usual weight), ties to the smaller."""
    return min(options, key=lambda g: (abs(g - 1.0), g))


@st.cache_data(show_spinner=False, max_entries=CACHE_ENTRIES)
def numbers(objective: str, gamma: float) -> dict:
    """Accuracy, gaps and adversary accuracy of the model and of the unfair MLP
    (:func:`model_summary`)."""
    return model_summary(objective, gamma)


@st.cache_data(show_spinner=False, max_entries=CACHE_ENTRIES)
def frontier_chart(objective: str, gamma: float):
    """Accuracy against the targeted gap over the sweep, γ highlighted, γ and seed of each
    point as tooltips (:func:`frontier_data`)."""
    return frontier_data(objective, gamma)


@st.cache_data(show_spinner=False, max_entries=CACHE_ENTRIES)
def rates_chart(objective: str, gamma: float):
    """The per-group rates of the model and the unfair MLP (:func:`group_rates_data`)."""
    return group_rates_data(objective, gamma)


def _pm(mean: float, sd: float) -> str:
    return f"{mean:.3f} ± {sd:.3f}"


def _controls() -> tuple[str, float | None]:
    c_variant, c_gamma = st.columns([1, 1.4])
    with c_variant:
        objective = bound_radio("LAFTR variant", OBJECTIVES, key="laftr_objective",
                                index=OBJECTIVES.index(DEFAULT_OBJECTIVE),
                                format_func=VARIANT_LABELS.get,
                                help="What the adversary sees decides which gap the encoder "
                                     "learns to close (Madras et al. 2018, Sec. 4).")
    options = None
    with c_gamma, friendly_errors("The γ sweep"):
        options = gammas(objective)
    if not options:
        return objective, None
    # another variant may have other γ values: keep the slider on one of this one's
    if st.session_state.get("laftr_gamma") not in options:
        st.session_state["laftr_gamma"] = default_gamma(options)
    with c_gamma:
        gamma = bound_select_slider("Adversary weight γ", options, default_gamma(options),
                                    key="laftr_gamma", format_func=lambda g: f"{g:g}",
                                    caption="← more accurate | fairer (A harder to recover "
                                            "from Z) →",
                                    help="L = α·L_class + β·L_dec − γ·L_adv: γ = 0 ignores the "
                                         "adversary; the larger γ, the harder the encoder "
                                         "hides sex from Z. Each position is a model of the "
                                         "shipped sweep (nothing is trained here).")
    return objective, float(gamma)


def _metrics(s: dict) -> None:
    model, base = s["model"], s["baseline"]
    target = s["target"]
    points = 100 * (model["accuracy"] - base["accuracy"])
    items = [("accuracy", _pm(model["accuracy"], model["accuracy_sd"]),
              f"Share of the Adult test split predicted correctly: mean ± sd over "
              f"{model['n_seeds']} seeds. The unfair MLP (same network, no adversary): "
              f"{base['accuracy']:.3f}.", f"{points:+.1f} points vs unfair MLP")]
    for gap in [target] + [g for g in ("dp_gap", "eo_gap", "eopp_gap") if g != target]:
        short, long = GAPS[gap]
        items.append((f"{short} (targeted)" if gap == target else short,
                      _pm(model[gap], model[f"{gap}_sd"]),
                      f"{long}; mean ± sd over seeds. 0 = women and men treated alike. "
                      f"Unfair MLP: {base[gap]:.3f}.",
                      f"{model[gap] - base[gap]:+.3f} vs unfair MLP", "inverse"))
    adversary = _adversary(model, base)
    if adversary is None:
        st.markdown("The sweep has no adversary accuracy.")
    tiles(items + ([adversary] if adversary else []))


def _adversary(model: dict, base: dict) -> tuple | None:
    """The adversary's tile: how well sex is predicted from the representation Z."""
    if "adversary_balanced_accuracy" not in model:
        return None
    after = model["adversary_balanced_accuracy"]
    help_text = ("A fresh adversary, trained after the fact on part of the test split, "
                 "predicts sex; balanced accuracy on the rest (0.5 = chance: Z hides sex).")
    if "adversary_balanced_accuracy_x" in model:
        before = model["adversary_balanced_accuracy_x"]
        change = f"{after - before:+.3f} vs from X ({before:.3f})"
    else:
        change = f"{after - base['adversary_balanced_accuracy']:+.3f} vs unfair MLP's Z"
    return ("adversary: sex from Z", f"{after:.3f}", help_text, change, "inverse")


def _tradeoff_caption(s: dict) -> str:
    model, base, target = s["model"], s["baseline"], s["target"]
    short = GAPS[target][0]
    moved = "lowers" if model[target] < base[target] else "does not lower"
    points = 100 * (base["accuracy"] - model["accuracy"])
    cost = (f"costs {points:.1f} points of accuracy" if points >= 0.05
            else "costs no accuracy" if points > -0.05
            else f"gains {-points:.1f} points of accuracy")
    text = (f"At γ = {s['gamma']:g}, {s['variant']} {moved} {short}, the gap "
            f"its adversary targets, from {base[target]:.3f} (unfair MLP) to "
            f"{model[target]:.3f} (mean of {model['n_seeds']} seeds), and {cost} "
            f"({base['accuracy']:.3f} → {model['accuracy']:.3f}).")
    if "adversary_balanced_accuracy" in model:
        text += (f" A fresh adversary recovers sex from Z with balanced accuracy "
                 f"{model['adversary_balanced_accuracy']:.3f} (0.5 = chance).")
    return text + (" Move γ up to hide sex harder; switch the variant to compare which gaps "
                   "each one lowers, and at what cost.")


def render() -> None:
    st.title("Fair representations")
    st.markdown(
        "**LAFTR** (Madras, Creager, Pitassi & Zemel 2018) learns a representation Z of each "
        "person with an **encoder**; a **classifier** predicts income > $50K from Z, and an "
        "**adversary** tries to recover the sensitive attribute A (**sex**) from it. The "
        "encoder is trained to help the classifier and to fool the adversary: "
        "L = α·L_class + β·L_dec − γ·L_adv. What the adversary sees decides which gap closes: "
        "Z alone for demographic parity, Z and the label Y for equalized odds. Each position "
        "of the slider is a model trained on the UCI Adult training split and scored on its "
        "test split (several seeds each; shipped, nothing is trained here)."
    )
    objective, gamma = _controls()
    if gamma is None:
        return
    s = None
    with friendly_errors("The selected model"):
        s = numbers(objective, gamma)
    if s is not None:
        _metrics(s)
        tradeoff(_tradeoff_caption(s))

    left, right = st.columns(2)
    with left:
        st.subheader("Fairness against accuracy, over γ")
        with friendly_errors("The frontier"):
            show_chart(frontier_chart(objective, gamma), height=CHART_HEIGHT,
                       alt=f"Accuracy against {GAPS[TARGET_GAP[objective]][0]} for "
                           f"every fit of {VARIANTS[objective]}, the mean over seeds "
                           f"per γ, γ = {gamma:g} highlighted and the unfair MLP")
        st.caption("Light dots: single fits (each γ, each seed); blue dots: the mean over "
                   "seeds per γ, the line joining those no other γ beats on both counts; red: "
                   "the selected γ with ± one standard deviation over seeds; black: the "
                   "unfair MLP (dotted: its accuracy). Further left is fairer; hover a point "
                   "for its γ.")
    with right:
        st.subheader("Per-group rates of the selected model")
        with friendly_errors("The per-group rates"):
            show_chart(rates_chart(objective, gamma), height=CHART_HEIGHT,
                       alt=f"Selection rate, TPR and FPR of women and men under "
                           f"{VARIANTS[objective]} with γ = {gamma:g} and under the "
                           f"unfair MLP")
        st.caption("Demographic parity asks equal selection rates; equalized odds equal TPRs "
                   "and equal FPRs; LAFTR's equal opportunity equal FPRs (on Y = 0). The "
                   "lighter bars are the unfair MLP; the dots single seeds.")
    st.caption("D. Madras, E. Creager, T. Pitassi, R. Zemel, *Learning adversarially fair and "
               "transferable representations*, ICML 2018; data: UCI Adult (Becker & Kohavi "
               "1996). Gaps: ΔDP = |ΔP(Ŷ=1)|, ΔEO = |ΔTPR| + |ΔFPR| (the paper's sum), "
               "ΔEOpp = |ΔFPR| on Y = 0 (the paper's convention).")
