"""App page "Private logistic regression": output versus objective perturbation.

Chaudhuri, Monteleoni & Sarwate (2011): output perturbation (Algorithm 1) adds
noise with density ∝ exp(−β‖b‖), β = nΛε/2, to the trained weights;
objective perturbation (Algorithm 2) adds ``bᵀw/n`` to the objective. The
page shows, on a 2-D toy data set, the decision boundaries of eight private
fits over the non-private one for the chosen ε, Λ, n and norm bound R, and the
test accuracy against ε on Adult (computed once per server process,
``st.cache_data``).

Numbers come from :mod:`dpteach.learning.erm` and
:mod:`dpteach.learning.erm_experiments`, the charts' data from
:mod:`dpteach.plots.erm` (drawn by the browser, Vega-Lite).
Speed: the toy models are fitted once per slider position (:func:`toy_view`,
``st.cache_data``: 9 fits on at most 2,000 points, 13-20 ms cold), and both the
chart and the accuracy caption are made from them; the Adult curve is computed
once per server process behind a spinner (a few seconds, :func:`adult_curve`) and
its parameters are not sliders, so a slider move costs one toy fit at most.

Every control is bound to the address (``?erm_epsilon=0.1&erm_n=2000``); ``PRESETS`` are the
lesson's prepared views; Λ and R fold away in presentation mode.
"""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

from dpteach.datasets import TOY_DATA_NORM, adult_arrays
from dpteach.learning import erm
from dpteach.learning.erm_experiments import ToyFits, accuracy_vs_epsilon, toy_fits
from dpteach.plots.erm import accuracy_curve_data, toy_boundaries_data
from dpapp.charts import show_chart
from dpapp.frame import secondary, tiles, tradeoff
from dpapp.messages import friendly_errors
from dpapp.widgets import (
    bound_number_input,
    bound_radio,
    bound_select_slider,
    epsilon_slider,
    fmt,
    log_slider,
)

N_FITS = 8
TOY_DIM = 3                      # two features + the intercept coordinate
LAMS = (1e-3, 2e-3, 5e-3, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
NS = (50, 100, 200, 500, 1000, 2000)
METHODS = {"Objective perturbation (Alg. 2)": "objective",
           "Output perturbation (Alg. 1)": "output"}
ADULT_LAM = 1e-4
ADULT_EPSILONS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
ADULT_TRIALS = {"objective": 5, "output": 20}
ADULT_SEED = 2011
OBJECTIVE, OUTPUT = METHODS

#: The lesson's prepared views (widget key → value), offered above the page.
PRESETS = {
    "ε = 0.1: strong privacy": {"erm_method": OBJECTIVE, "erm_n": 200, "erm_epsilon": 0.1,
                                "erm_lam": 1e-3},
    "ε = 10: weak privacy": {"erm_method": OBJECTIVE, "erm_n": 200, "erm_epsilon": 10.0,
                             "erm_lam": 1e-3},
    "More data: n = 2,000": {"erm_method": OBJECTIVE, "erm_n": 2000, "erm_epsilon": 0.1,
                             "erm_lam": 1e-3},
    "Output perturbation, ε = 1": {"erm_method": OUTPUT, "erm_n": 200, "erm_epsilon": 1.0,
                                   "erm_lam": 1e-3},
}


@st.cache_data(show_spinner=False, max_entries=256)
def toy_view(epsilon: float, lam: float, method: str, n: int, data_norm: float) -> dict:
    """The toy chart and its caption's numbers for one slider position, fitted once.

    One call of :func:`~dpteach.learning.erm_experiments.toy_fits` (eight private
    fits and the non-private one); returns ``{"figure": FigureData of
    toy_boundaries_data, "summary": toy_summary}``, so the chart and the caption come
    from the same fits. Cached per position (at most 256 kept, at most ~40 kB each).
    """
    fits = toy_fits(epsilon=epsilon, lam=lam, method=method, n_fits=N_FITS, n=n,
                    data_norm=data_norm)
    return {"figure": toy_boundaries_data(fits), "summary": toy_summary(fits)}


def toy_summary(fits: ToyFits) -> dict:
    """Training accuracy of the non-private fit and of the private fits drawn."""
    X, y = fits.X, fits.y
    clipped = int(np.sum(np.linalg.norm(X, axis=1) > fits.data_norm))
    return {"base": fits.nonprivate.score(X, y),
            "private": [m.score(X, y) for m in fits.private], "clipped": clipped}


@st.cache_data(show_spinner=False, max_entries=1)
def adult_curve() -> dict:
    """Accuracy against ε on Adult's standard split (computed once, a few seconds)."""
    data = adult_arrays()
    X_train, X_test, y_train, y_test = data.train_test()
    curve = accuracy_vs_epsilon(X_train, y_train, X_test, y_test, ADULT_EPSILONS, ADULT_LAM,
                                n_trials=ADULT_TRIALS, data_norm=math.sqrt(13),
                                fit_intercept=False, rng=ADULT_SEED)
    majority = float(max(y_test.mean(), 1 - y_test.mean()))
    figure = accuracy_curve_data(curve, baseline=majority,
                                 title=f"Adult (n = {curve.n_train:,}, Λ = {ADULT_LAM:g}, "
                                       "pure ε-DP): test accuracy vs ε")
    return {"figure": figure, "epsilons": curve.epsilons,
            "mean": {m: curve.mean(m) for m in curve.accuracy},
            "std": {m: curve.std(m) for m in curve.accuracy},
            "nonprivate": curve.nonprivate_accuracy, "majority": majority,
            "n_train": curve.n_train}


def _noise_metrics(method: str, epsilon: float, lam: float, n: int) -> None:
    sensitivity = ("Sensitivity 2/(nΛ)", fmt(2 / (n * lam), 3),
                   "Largest move of the exact minimiser when one row changes, for rows in the "
                   "unit ball and |ℓ'| ≤ 1 (Chaudhuri, Monteleoni & Sarwate 2011, Corollary 8).")
    if method == "output":
        beta = erm.output_perturbation_beta(epsilon, n, lam)
        tiles([sensitivity,
               ("Noise rate β = nΛε/2", fmt(beta, 3),
                "Noise density ∝ exp(−β‖b‖) (Chaudhuri, Monteleoni & Sarwate 2011, Algorithm 1)."),
               ("Mean ‖b‖ added to w", fmt(TOY_DIM / beta, 3),
                "‖b‖ ~ Gamma(d, 1/β), mean d/β with d = 3 (2 features + intercept)."),
               ("ε spent per fit", fmt(epsilon, 3), None)], fold_label="The noise in numbers")
    else:
        k = erm.objective_perturbation_constants(epsilon, n, lam)
        tiles([sensitivity,
               ("ε′ left for the noise", fmt(k.epsilon_prime, 3),
                "ε′ = ε − log(1 + 2c/(nΛ) + c²/(nΛ)²), c = 1/4; if ε′ ≤ 0 the extra ridge Δ "
                "is used and ε′ = ε/2 (Chaudhuri, Monteleoni & Sarwate 2011, Algorithm 2)."),
               ("Extra ridge Δ", fmt(k.Delta, 3),
                "Δ = c/(n(e^(ε/4) − 1)) − Λ when needed, else 0."),
               ("Mean ‖b‖/n added to ∇J", fmt(TOY_DIM / k.beta / n, 3),
                "β = ε′/2; the objective gets + bᵀw/n + (Δ/2)‖w‖².")],
              fold_label="The noise in numbers")


def _toy_section(method: str, epsilon: float, lam: float, n: int, data_norm: float) -> None:
    with friendly_errors("The toy example"):
        view = toy_view(epsilon, lam, method, n, data_norm)
        summary = view["summary"]
        _noise_metrics(method, epsilon, lam, n)
        chart, notes = st.columns([3, 1])
        with chart:
            show_chart(view["figure"], f"Decision boundaries of {N_FITS} private fits and the "
                                       "non-private fit", height=460)
        acc = np.array(summary["private"])
        tradeoff(f"At ε = {fmt(epsilon)} the {N_FITS} private fits reach {acc.mean():.0%} "
                 f"training accuracy on average (worst {acc.min():.0%}), against "
                 f"{summary['base']:.0%} without privacy. Smaller ε, noisier boundaries; more "
                 f"data (n) shrinks the noise.")
        notes.caption(f"Training accuracy: non-private {summary['base']:.1%}; the {N_FITS} "
                      f"private fits {acc.min():.1%}–{acc.max():.1%} (mean {acc.mean():.1%}). "
                      f"{summary['clipped']} of {n} points lie beyond R = {data_norm:g} and are "
                      "clipped to norm R. Each private fit spends ε; drawing "
                      f"{N_FITS} of them on real data would spend {N_FITS}ε.")


def _adult_section(epsilon: float) -> None:
    st.subheader("Adult census data: accuracy against ε")
    with st.spinner("Training the Adult models once (a few seconds)…"):
        res = adult_curve()
    show_chart(res["figure"], "Test accuracy of output and objective perturbation on Adult "
                              "against epsilon")
    i = int(np.argmin(np.abs(np.log(res["epsilons"]) - math.log(epsilon))))
    e = float(res["epsilons"][i])
    tiles([(f"{label}, ε = {e:g}", f"{res['mean'][m][i]:.3f}",
            f"Mean test accuracy over {ADULT_TRIALS[m]} private fits "
            f"(sd {res['std'][m][i]:.3f}).")
           for m, label in (("objective", "Objective perturbation"),
                            ("output", "Output perturbation"))]
          + [("Non-private (same Λ)", f"{res['nonprivate']:.3f}",
              f"Always predicting ≤50K scores {res['majority']:.3f}.")],
          fold_label="Accuracy on Adult in numbers")
    st.caption(f"Standard UCI split: {res['n_train']:,} training and 15,060 test rows, 104 "
               f"features, rows scaled by the public bound R = √13, Λ = {ADULT_LAM:g} "
               "(C = 1/(nΛ) ≈ 0.33). Metrics at the grid value of ε nearest to the slider. "
               "Objective perturbation gains nothing from ε = 0.1 to 0.2 because of "
               "Algorithm 2's rule: at ε = 0.2, Δ = 0 leaves only ε′ ≈ 0.04 for the noise "
               "(at ε = 0.1 the extra ridge Δ is used and ε′ = 0.05).")


def render() -> None:
    st.title("Private logistic regression")
    st.markdown(
        "Two ways to make regularised logistic regression ε-differentially private "
        "(Chaudhuri, Monteleoni & Sarwate 2011): **output perturbation** trains exactly and "
        "adds noise to the weights, calibrated to the sensitivity 2/(nΛ) of the minimiser; "
        "**objective perturbation** adds a random linear term to the training objective and "
        "then trains exactly. Below: eight private fits (thin lines) over the non-private "
        "one (dashed) on 2-D toy data.")
    c1, c2, c3 = st.columns(3)
    with c1:
        method = METHODS[bound_radio("Algorithm", list(METHODS), key="erm_method")]
        n = int(bound_select_slider("Training points n", NS, 200, key="erm_n",
                                    help="The noise shrinks like 1/n (output perturbation: "
                                         "β = nΛε/2)."))
    with c2:
        epsilon = epsilon_slider(key="erm_epsilon")
    with c3, secondary("Regularisation Λ and norm bound R"):
        lam = log_slider("Regularisation Λ", LAMS, 1e-3, key="erm_lam",
                         caption="← less bias, more noise | more bias, less noise →",
                         help="J(w) = mean loss + (Λ/2)‖w‖². scikit-learn's C is 1/(nΛ).")
        data_norm = bound_number_input("Row-norm bound R", min_value=0.0, max_value=20.0,
                                       value=float(TOY_DATA_NORM), step=0.5, key="erm_R",
                                       help="Public bound on ‖x‖: rows are divided by R, longer "
                                            "rows clipped to norm R. Must be > 0.")
    _toy_section(method, epsilon, lam, n, float(data_norm))
    _adult_section(epsilon)
    st.caption("K. Chaudhuri, C. Monteleoni, A. D. Sarwate, *Differentially private empirical "
               "risk minimization*, JMLR 12, 2011: Algorithm 1 (Theorem 6, Corollary 8) and "
               "Algorithm 2 (Theorem 9).")
