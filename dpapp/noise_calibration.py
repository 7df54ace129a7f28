"""App page "Noise calibration": how much Laplace or Gaussian noise for (ε, δ)?

Numbers come from :mod:`dpteach.mechanisms.noise` (``laplace_scale``,
``gaussian_sigma``), the charts' data from :mod:`dpteach.plots.calibration` (one
``*_data`` function per figure, cached per slider position with ``st.cache_data``),
drawn by the browser (Vega-Lite).

Speed: from a cold cache the slowest slider position costs about 15-20 ms of
computation on one idle core (the σ and error views, 80 analytic σ calibrations);
``benchmarks/bench_app.py`` times every position.

Every control is bound to the address (``?epsilon=0.1&delta=0&view=...``); ``PRESETS`` are
the lesson's prepared views; the sensitivity folds away in presentation mode.
"""

from __future__ import annotations

import math

import streamlit as st

from dpteach.mechanisms.noise import gaussian_sigma, laplace_scale
from dpteach.plots.calibration import (
    error_vs_epsilon_data,
    neighbouring_densities_data,
    privacy_loss_data,
    sigma_comparison_data,
)
from dpteach.plots.figure import FigureData
from dpapp.charts import show_chart
from dpapp.frame import presenting, secondary, tiles, tradeoff
from dpapp.messages import friendly_errors
from dpapp.widgets import bound_radio, delta_slider, epsilon_slider, fmt, log_slider

SENSITIVITIES = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)

VIEWS = {
    "Output densities": "densities",
    "Privacy loss": "loss",
    "σ: classic vs analytic": "sigma",
    "Error vs ε": "error",
}

#: The lesson's prepared views (widget key → value), offered above the page.
PRESETS = {
    "ε = 0.1: strong privacy": {"epsilon": 0.1, "delta": 1e-5, "sensitivity": 1.0,
                                "view": "Output densities"},
    "ε = 10: weak privacy": {"epsilon": 10.0, "delta": 1e-5, "sensitivity": 1.0,
                             "view": "Output densities"},
    "Pure DP: δ = 0": {"epsilon": 1.0, "delta": 0.0, "sensitivity": 1.0,
                       "view": "Privacy loss"},
    "Classic vs analytic σ": {"epsilon": 0.5, "delta": 1e-5, "sensitivity": 1.0,
                              "view": "σ: classic vs analytic"},
}

DELTA_ZERO_MESSAGE = (
    "**No Gaussian noise gives δ = 0.** The ratio of the two Gaussian densities "
    "(on D and on its neighbour D′) grows without bound in the tails, so for every σ "
    "there are outputs whose privacy loss exceeds ε. δ is the probability we allow "
    "for that. Pick δ > 0 (well below 1/n for n people, e.g. 10⁻⁵), or use the "
    "Laplace mechanism, which is pure ε-DP."
)

CLASSIC_EPSILON_MESSAGE = (
    "The classic bound σ = Δ·√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1) is "
    "proved only for **ε < 1**, so it is not shown for ε = {eps}. The analytic σ "
    "(Balle & Wang 2018) is exact and valid for every ε."
)


def _metrics(sensitivity: float, epsilon: float, delta: float) -> None:
    b = laplace_scale(sensitivity, epsilon)
    tile = {"Laplace b = Δ/ε": (fmt(b), "Noise Lap(b), density exp(−|y|/b)/(2b); standard "
                                        "deviation √2·b (Dwork & Roth 2014, Thm 3.6)."),
            "E|error| Laplace": (fmt(b), "E|Lap(b)| = b.")}
    notes = []
    if delta == 0:
        for label in ("σ analytic", "σ classic", "E|error| Gaussian"):
            tile[label] = ("n/a", "No Gaussian noise level gives δ = 0.")
        notes.append(DELTA_ZERO_MESSAGE)
    else:
        tile["σ analytic"] = tile["E|error| Gaussian"] = ("n/a", None)
        with friendly_errors("The analytic Gaussian σ"):
            sigma = gaussian_sigma(sensitivity, epsilon, delta, method="analytic")
            tile["σ analytic"] = (fmt(sigma), "Smallest σ whose exact δ(ε) is ≤ δ "
                                              "(Balle & Wang 2018, Thm 8 and Alg. 1).")
            tile["E|error| Gaussian"] = (fmt(sigma * math.sqrt(2 / math.pi)),
                                         "E|N(0, σ²)| = σ·√(2/π), with the analytic σ.")
        tile["σ classic"] = ("n/a", "The classic bound needs ε < 1.")
        if epsilon >= 1:
            notes.append(CLASSIC_EPSILON_MESSAGE.format(eps=fmt(epsilon)))
        else:
            with friendly_errors("The classic Gaussian σ"):
                tile["σ classic"] = (
                    fmt(gaussian_sigma(sensitivity, epsilon, delta, method="classic")),
                    "σ = Δ·√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1); ε < 1 only.")
    if presenting():      # the noise of each mechanism and its error first; σ classic folds
        tiles([(k, *tile[k]) for k in ("Laplace b = Δ/ε", "σ analytic", "E|error| Laplace",
                                       "E|error| Gaussian", "σ classic")])
    else:
        lap, gau = st.columns([2, 3], border=True)
        with lap:
            st.markdown("**Laplace mechanism**: (ε, 0)-DP")
            tiles([(k, *tile[k]) for k in ("Laplace b = Δ/ε", "E|error| Laplace")],
                  border=False)
        with gau:
            st.markdown("**Gaussian mechanism**: (ε, δ)-DP")
            tiles([(k, *tile[k]) for k in ("σ analytic", "σ classic", "E|error| Gaussian")],
                  border=False)
    for note in notes:
        st.info(note, icon=":material/info:")


# The charts' data, once per slider position (bounded: the largest is ~10 kB, and the
# Gaussian views have 7 Δ × 19 ε × 9 δ = 1,197 positions).
@st.cache_data(show_spinner=False, max_entries=512)
def densities_chart(mechanism: str, sensitivity: float, epsilon: float,
                    delta: float | None) -> FigureData:
    """:func:`~dpteach.plots.calibration.neighbouring_densities_data` of one mechanism."""
    return neighbouring_densities_data(sensitivity, epsilon, delta, mechanism=mechanism)


@st.cache_data(show_spinner=False, max_entries=512)
def loss_chart(mechanism: str, sensitivity: float, epsilon: float,
               delta: float | None) -> FigureData:
    """:func:`~dpteach.plots.calibration.privacy_loss_data` of one mechanism."""
    return privacy_loss_data(sensitivity, epsilon, delta, mechanism=mechanism)


@st.cache_data(show_spinner=False, max_entries=128)
def sigma_chart(sensitivity: float, delta: float) -> FigureData:
    """:func:`~dpteach.plots.calibration.sigma_comparison_data` (σ against ε: no ε argument)."""
    return sigma_comparison_data(sensitivity, delta)


@st.cache_data(show_spinner=False, max_entries=128)
def error_chart(sensitivity: float, delta: float) -> FigureData:
    """:func:`~dpteach.plots.calibration.error_vs_epsilon_data` (against ε: no ε argument)."""
    return error_vs_epsilon_data(sensitivity, delta)


def _figures(view: str, sensitivity: float, epsilon: float, delta: float) -> list[tuple]:
    """(cached data function, its arguments, alt text) of the charts this view shows."""
    gaussian_ok = delta > 0
    if view == "densities":
        out = [(densities_chart, ("laplace", sensitivity, epsilon, None),
                "Laplace output densities on neighbouring datasets")]
        if gaussian_ok:
            out.append((densities_chart, ("gaussian", sensitivity, epsilon, delta),
                        "Gaussian output densities on neighbouring datasets"))
        return out
    if view == "loss":
        out = [(loss_chart, ("laplace", sensitivity, epsilon, None),
                "Privacy loss of the Laplace mechanism")]
        if gaussian_ok:
            out.append((loss_chart, ("gaussian", sensitivity, epsilon, delta),
                        "Privacy loss of the Gaussian mechanism"))
        return out
    if not gaussian_ok:
        return []
    if view == "sigma":
        return [(sigma_chart, (sensitivity, delta), "Classic and analytic Gaussian σ against ε")]
    return [(error_chart, (sensitivity, delta),
             "Expected absolute error of Laplace and Gaussian noise against ε")]


def _reading(view: str, sensitivity: float, epsilon: float, delta: float) -> str:
    """What to read off a figure shown alone, with the current numbers (from dpteach)."""
    b = laplace_scale(sensitivity, epsilon)
    if view == "densities":
        return (f"**Pure ε-DP.** At every output y the two Laplace densities differ by a "
                f"factor of at most e^ε = {fmt(math.exp(epsilon))}: whatever is released, "
                f"it is almost as likely on D as on D′. The scale b = Δ/ε = {fmt(b)} grows "
                f"as ε shrinks.")
    if view == "loss":
        return (f"**The privacy loss** ln p_D(y)/p_D′(y) of the Laplace mechanism stays "
                f"between −ε and ε = {fmt(epsilon)} for every output y (Dwork & Roth 2014, "
                f"proof of Thm 3.6). Choose δ > 0 to compare with the Gaussian, whose loss "
                f"is unbounded.")
    classic = (gaussian_sigma(sensitivity, epsilon, delta, method="classic")
               if epsilon < 1 else None)
    analytic = gaussian_sigma(sensitivity, epsilon, delta)
    if view == "sigma":
        text = (f"The **classic** σ (Dwork & Roth 2014, Thm A.1) is a sufficient condition, "
                f"proved for ε < 1 only; the **analytic** σ (Balle & Wang 2018) is the "
                f"smallest σ whose exact δ(ε) meets the target, for every ε. "
                f"At ε = {fmt(epsilon)}, δ = {delta:.0e}: analytic σ = {fmt(analytic)}")
        if classic is not None:
            text += (f", classic σ = {fmt(classic)}, {fmt(classic / analytic, 3)} times "
                     f"more noise than needed.")
        else:
            text += "; the classic bound does not apply."
        return text
    gauss_error = analytic * math.sqrt(2 / math.pi)
    winner = "Laplace" if b < gauss_error else "Gaussian"
    return (f"**Expected absolute error** of one noisy answer: E|Lap(b)| = b = Δ/ε and "
            f"E|N(0, σ²)| = σ·√(2/π). At ε = {fmt(epsilon)}, δ = {delta:.0e}: Laplace "
            f"{fmt(b)}, Gaussian (analytic σ) {fmt(gauss_error)}, so the **{winner}** "
            f"mechanism adds less noise to this single number. The Gaussian pays off for "
            f"many numbers at once, whose ℓ2 sensitivity is much smaller than their ℓ1 "
            f"sensitivity (notebook 04).")


def render() -> None:
    st.title("Noise calibration")
    st.markdown(
        "How much noise does a query with **sensitivity Δ** (how much one person can "
        "change the answer) need for **(ε, δ)-differential privacy**? For a single "
        "number, such as a count or a sum, the ℓ1 and ℓ2 sensitivities are both Δ."
    )
    c_eps, c_delta, c_sens = st.columns(3)
    with c_eps:
        epsilon = epsilon_slider()
    with c_delta:
        delta = delta_slider(help="Only the Gaussian mechanism uses δ. δ = 0 is pure ε-DP. "
                                  "Keep δ well below 1/n for a dataset of n people.")
    with c_sens, secondary("Sensitivity Δ"):
        sensitivity = log_slider("Sensitivity Δ", SENSITIVITIES, 1.0, key="sensitivity",
                                 caption="← a person changes the answer less | more →",
                                 help="Largest change of the query's answer when one "
                                      "person's data is added or removed.")

    _metrics(sensitivity, epsilon, delta)
    b = laplace_scale(sensitivity, epsilon)
    tradeoff(f"Smaller ε is more private and noisier. At ε = {fmt(epsilon)} a Laplace answer "
             f"is off by Δ/ε = {fmt(b)} on average; ten times more private (ε = "
             f"{fmt(epsilon / 10)}) means ten times that error, {fmt(10 * b)}.")

    label = bound_radio("Show", list(VIEWS), horizontal=True, key="view")
    view = VIEWS[label]
    figures = _figures(view, sensitivity, epsilon, delta)
    if not figures:
        st.info("This view compares Gaussian noise levels: choose δ > 0 to see it.",
                icon=":material/info:")
    columns = st.columns(2)          # one figure: half the width, its reading beside it
    for column, (chart, args, alt) in zip(columns, figures):
        with column, friendly_errors(alt):
            show_chart(chart(*args), alt)
    if len(figures) == 1:
        with columns[1], friendly_errors("The explanation"):
            st.markdown(_reading(view, sensitivity, epsilon, delta))

    st.caption(
        "Laplace: b = Δ/ε (Dwork & Roth 2014, Thm 3.6). Gaussian: classic σ from "
        "Dwork & Roth 2014, Thm A.1 (ε < 1 only); analytic σ from Balle & Wang, "
        "*Improving the Gaussian Mechanism for Differential Privacy*, ICML 2018 (Thm 8)."
        + (" Dashed curves: the neighbouring dataset D′, whose answer is larger by Δ."
           if view == "densities" else "")
    )
