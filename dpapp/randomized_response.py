"""App page "Randomized response": a private survey and its estimator.

Numbers come from :mod:`dpteach.mechanisms.randomized_response` (``randomized_response``,
``rr_estimate``, ``rr_std_error``, ``rr_epsilon_from_gamma``,
``rr_gamma_from_epsilon``), the charts' data from
:mod:`dpteach.plots.randomized_response` (``rr_probabilities_data``,
``rr_estimator_data``), cached per slider position with ``st.cache_data`` and drawn
by the browser (Vega-Lite).

Speed: the histogram's 2,000 surveys are drawn as Binomial(n, λ) counts of "yes"
reports (``simulation="binomial"``, which gives exactly the distribution of simulating
every report, :func:`~dpteach.mechanisms.randomized_response.simulate_rr_estimates`), so every
slider position costs a few milliseconds from a cold cache, for every n.

Every control is bound to the address (``?rr_gamma=0.1&rr_n=10000``); ``PRESETS`` are the
lesson's prepared views; the parametrisation and the true rate fold away in presentation
mode.
"""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

from dpteach.plots.figure import FigureData
from dpteach.plots.randomized_response import rr_estimator_data, rr_probabilities_data
from dpteach.mechanisms.randomized_response import (
    randomized_response,
    rr_epsilon_from_gamma,
    rr_estimate,
    rr_gamma_from_epsilon,
    rr_std_error,
)
from dpapp.charts import show_chart
from dpapp.frame import secondary, tiles, tradeoff
from dpapp.messages import friendly_errors
from dpapp.widgets import (
    bound_radio,
    bound_slider,
    epsilon_slider,
    fmt,
    log_slider,
    PRIVACY_CAPTION,
)

GAMMAS = tuple(round(0.01 * i, 2) for i in range(1, 50))      # the γ slider's positions
RATES = tuple(round(0.01 * i, 2) for i in range(101))         # the true-rate slider's
SIZES = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000)
N_TRIALS = 2000          # simulated surveys in the histogram
HISTOGRAM_SEED = 0       # the histogram is the same picture each time for the same settings

BY_EPSILON = "ε (privacy loss)"
BY_GAMMA = "γ (truth bias)"

#: The lesson's prepared views (widget key → value), offered above the page.
PRESETS = {
    "Coin flips (γ = ¼)": {"rr_parametrisation": BY_GAMMA, "rr_gamma": 0.25, "rr_n": 1000,
                           "rr_rate": 0.3},
    "ε = 0.1, n = 1,000": {"rr_parametrisation": BY_EPSILON, "rr_epsilon": 0.1,
                           "rr_n": 1000, "rr_rate": 0.3},
    "ε = 0.1, n = 100,000": {"rr_parametrisation": BY_EPSILON, "rr_epsilon": 0.1,
                             "rr_n": 100_000, "rr_rate": 0.3},
    "ε = 10: barely private": {"rr_parametrisation": BY_EPSILON, "rr_epsilon": 10.0,
                               "rr_n": 1000, "rr_rate": 0.3},
}


def _privacy_controls() -> dict:
    """Radio + slider; returns {"gamma": γ} or {"epsilon": ε}."""
    with secondary("Privacy parameter"):
        how = bound_radio("Set the privacy level by", [BY_GAMMA, BY_EPSILON], horizontal=True,
                          key="rr_parametrisation",
                          help="Each respondent tells the truth with probability ½ + γ and "
                               "lies otherwise; this is ε-DP with ε = ln((½ + γ)/(½ − γ)).")
    if how == BY_EPSILON:
        return {"epsilon": epsilon_slider(key="rr_epsilon", value=1.0)}
    gamma = bound_slider("γ (truth told with probability ½ + γ)", GAMMAS[0], GAMMAS[-1], 0.25,
                         0.01, key="rr_gamma", format="%.2f", caption=PRIVACY_CAPTION,
                         help="γ = ¼ is the coin-flip protocol: flip a coin; heads, answer "
                              "truthfully; tails, flip again and answer 'yes' on heads.")
    return {"gamma": round(float(gamma), 2)}


def _simulate_survey(true_rate: float, n: int, privacy: dict, seed: int):
    """One survey of n fresh respondents (bits i.i.d. Bernoulli(true_rate))."""
    rng = np.random.default_rng(seed)
    bits = (rng.random(n) < true_rate).astype(np.int8)
    reports = randomized_response(bits, **privacy, rng=rng)
    return bits, reports, rr_estimate(reports, **privacy)


@st.cache_data(show_spinner=False, max_entries=128)
def probabilities_chart(gamma: float | None, epsilon: float | None) -> FigureData:
    """P(report | true answer) (:func:`rr_probabilities_data`)."""
    return rr_probabilities_data(gamma, epsilon)


@st.cache_data(show_spinner=False, max_entries=1024)
def estimator_chart(true_rate: float, n: int, gamma: float | None,
                    epsilon: float | None) -> FigureData:
    """The estimate over ``N_TRIALS`` surveys (:func:`rr_estimator_data`, ~8 kB)."""
    return rr_estimator_data(true_rate, n, gamma, epsilon, n_trials=N_TRIALS,
                             rng=HISTOGRAM_SEED, simulation="binomial")


def render() -> None:
    st.title("Randomized response")
    st.markdown(
        "Warner's survey technique (1965): each respondent answers a sensitive yes/no "
        "question truthfully with probability **½ + γ**, and otherwise gives the opposite "
        "answer. No single answer can be trusted, yet the rate of 'yes' in the population "
        "can still be estimated, with more error the more private the survey."
    )
    c_priv, c_n, c_rate = st.columns(3)
    with c_priv:
        privacy = _privacy_controls()
    with c_n:
        n = int(log_slider("Respondents n", SIZES, 1000, key="rr_n", format_func=str,
                           caption="more respondents → smaller error"))
    with c_rate, secondary("True rate π"):
        true_rate = float(bound_slider("True rate π of 'yes' in the population", 0.0, 1.0, 0.3,
                                       0.01, key="rr_rate"))
        true_rate = round(true_rate, 2)

    if "gamma" in privacy:
        gamma = privacy["gamma"]
        epsilon = rr_epsilon_from_gamma(gamma)
    else:
        epsilon = privacy["epsilon"]
        gamma = rr_gamma_from_epsilon(epsilon)

    se = rr_std_error(true_rate, n, **privacy)
    plain = math.sqrt(true_rate * (1 - true_rate) / n)
    tiles([("ε = ln((½+γ)/(½−γ))", fmt(epsilon), None),
           ("Standard error of π̂", fmt(se, 3),
            "√(λ(1−λ)/n)/(2γ), λ = P(report 'yes') = (½+γ)π + (½−γ)(1−π)."),
           ("γ", fmt(gamma), None),
           ("P(truthful answer) = ½ + γ", fmt(0.5 + gamma), None)])
    if plain > 0:
        equivalent = max(1, round(n * (plain / se) ** 2))
        st.markdown(
            f"Without randomization the standard error would be √(π(1−π)/n) = "
            f"**{fmt(plain, 3)}**: privacy multiplies it by **{fmt(se / plain, 3)}**, so this "
            f"survey is as accurate as a non-private one with about "
            f"**{equivalent:,}** respondents.")
        tradeoff(f"The more private the answers (smaller ε), the more respondents the same "
                 f"accuracy needs. At ε = {fmt(epsilon, 3)}, these {n:,} private answers are "
                 f"worth about {equivalent:,} honest ones.")
    else:
        tradeoff(f"The more private the answers (smaller ε = {fmt(epsilon, 3)}), the larger the "
                 f"error of the estimate: here its standard error is {fmt(se, 3)}.")

    left, right = st.columns(2)
    with left:
        st.subheader("One simulated survey")
        if st.button("Run another survey", icon=":material/replay:", key="rr_rerun"):
            st.session_state["rr_seed"] = st.session_state.get("rr_seed", 0) + 1
        seed = st.session_state.get("rr_seed", 0)
        with friendly_errors("The survey"):
            bits, reports, est = _simulate_survey(true_rate, n, privacy, seed)
            tiles([("Estimate π̂", f"{est.estimate:.3f}", None),
                   ("95% confidence interval", f"[{est.ci_low:.3f}, {est.ci_high:.3f}]", None)],
                  border=False, fold_label="The survey's estimate")
            covered = est.ci_low <= true_rate <= est.ci_high
            st.markdown(
                f"Survey #{seed + 1}: {int(bits.sum())} of the {n} respondents have the "
                f"answer 'yes'; **{int(reports.sum())}** *reported* 'yes' "
                f"({reports.mean():.3f}). The estimator π̂ = (Ȳ − (½ − γ))/(2γ) "
                f"gives {est.estimate:.3f}. The interval "
                f"{'**contains**' if covered else '**misses**'} the true rate π = "
                f"{true_rate:.2f}. A 95% interval should miss in about 1 survey in 20 (roughly: "
                f"for small n the normal approximation is crude).")
            st.caption("π̂ is unbiased and not clipped, so it can fall below 0 or above 1. "
                       "The interval is the normal approximation π̂ ± 1.96 · (estimated SE).")
        gamma_arg, epsilon_arg = privacy.get("gamma"), privacy.get("epsilon")
        with friendly_errors("The response probabilities"):
            show_chart(probabilities_chart(gamma_arg, epsilon_arg),
                       "Probability of each report given the true answer")
    with right:
        st.subheader(f"The estimate over {N_TRIALS:,} surveys")
        with friendly_errors("The histogram"):
            show_chart(estimator_chart(true_rate, n, gamma_arg, epsilon_arg),
                       "Histogram of the randomized-response estimate")
            st.caption("Each survey draws n fresh respondents from a population with rate π; "
                       "the curve is the normal density with the standard error above. "
                       "Dotted lines: π ± 1.96 standard errors, where about 95% of the "
                       "estimates fall.")
    st.caption("S. L. Warner, *Randomized response*, JASA 60(309), 1965; "
               "Dwork & Roth 2014, Sec 3.2.")
