"""App page "DP-SGD playground": train a small network on a 2-D toy problem, live.

Sliders set the noise multiplier σ, the clipping norm C, the expected batch
size and the number of epochs; the page trains
:class:`dpteach.learning.dpsgd.DPSGDClassifier` on 200 points ("two moons")
and shows the decision boundary, the per-example gradient norms before and
after clipping, the training curve and the ε spent (RDP accountant).

Speed: one training run takes 20-100 ms; results are cached per setting
(``st.cache_data``) and the charts are Vega-Lite specifications drawn by the
browser, so a rerun after a slider change stays well under 150 ms.
"""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

from .._validation import ParameterError
from ..datasets import make_two_moons
from ..learning.dpsgd import DPSGDClassifier
from ..plots.dpsgd import decision_grid
from ._common import fmt, friendly_errors

N_POINTS = 200
DELTA = 1e-5
HIDDEN = (16,)
LEARNING_RATE = 1.0
GRID = 36                      # decision-boundary grid points per axis
SIGMAS = (0.0, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0)
NO_CLIP = "off"
CLIPS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, NO_CLIP)
BATCHES = (16, 25, 32, 50, 64, 100, 200)
BLUE, VERMILLION, SKY, BLACK = "#0072B2", "#D55E00", "#56B4E9", "#000000"


def _clip_label(c) -> str:
    return "off (no clipping)" if c == NO_CLIP else f"{c:g}"


@st.cache_data(show_spinner=False)
def toy_data(seed: int = 0):
    """Two interleaving half-moons, standardised (:func:`dpteach.datasets.make_two_moons`)."""
    return make_two_moons(N_POINTS, noise=0.25, rng=seed)


@st.cache_data(show_spinner=False, max_entries=512)
def train(sigma: float, clip, batch_size: int, epochs: int, seed: int) -> dict:
    """Fit DP-SGD on the toy data; everything the page draws, as plain arrays."""
    X, y = toy_data()
    clf = DPSGDClassifier(noise_multiplier=sigma, max_grad_norm=clip, batch_size=batch_size,
                          epochs=epochs, learning_rate=LEARNING_RATE, hidden=HIDDEN,
                          delta=DELTA, rng=seed).fit(X, y)
    x0, x1, p = decision_grid(clf, X, GRID)
    norms = clf.model_.per_example_grad_norms(X.astype(np.float32), y).astype(float)
    return {
        "x0": x0, "x1": x1, "p": p, "norms": norms,
        "epsilon": clf.epsilon_, "steps": clf.n_steps_, "q": clf.sample_rate_,
        "accuracy": clf.history_["accuracy"][-1],
        "history": {k: list(v) for k, v in clf.history_.items()},
        "batch_min": int(clf.batch_sizes_.min()), "batch_max": int(clf.batch_sizes_.max()),
    }


def boundary_spec(res: dict, X, y) -> dict:
    """Vega-Lite: P(class 1) as a heat map, the training points on top."""
    x0, x1, p = res["x0"], res["x1"], res["p"]
    dx, dy = x0[1] - x0[0], x1[1] - x1[0]
    g0, g1 = np.meshgrid(x0, x1)
    cells = [{"a": float(a), "b": float(b), "a2": float(a + dx), "b2": float(b + dy),
              "p": round(float(v), 3)} for a, b, v in zip(g0.ravel(), g1.ravel(), p.ravel())]
    points = [{"a": float(a), "b": float(b), "cls": f"class {int(c)}"} for (a, b), c in zip(X, y)]
    axis_a = {"field": "a", "type": "quantitative", "title": "feature 1",
              "scale": {"domain": [float(x0[0]), float(x0[-1] + dx)], "nice": False}}
    axis_b = {"field": "b", "type": "quantitative", "title": "feature 2",
              "scale": {"domain": [float(x1[0]), float(x1[-1] + dy)], "nice": False}}
    return {
        "height": 330,
        "layer": [
            {"data": {"values": cells}, "mark": {"type": "rect", "opacity": 0.6},
             "encoding": {"x": axis_a, "x2": {"field": "a2"}, "y": axis_b, "y2": {"field": "b2"},
                          "color": {"field": "p", "type": "quantitative", "title": "P(class 1)",
                                    "scale": {"scheme": "redblue", "reverse": True,
                                              "domain": [0, 1]}}}},
            {"data": {"values": points}, "mark": {"type": "circle", "size": 28, "opacity": 0.9,
                                                  "stroke": "white", "strokeWidth": 0.5},
             "encoding": {"x": {"field": "a", "type": "quantitative"},
                          "y": {"field": "b", "type": "quantitative"},
                          "fill": {"field": "cls", "type": "nominal", "title": None,
                                   "scale": {"range": [BLUE, VERMILLION]}}}},
        ],
        "resolve": {"scale": {"color": "independent"}},
    }


def norms_spec(norms: np.ndarray, clip) -> dict:
    """Vega-Lite: histogram of per-example gradient norms before and after clipping."""
    top = float(max(norms.max(), clip or 0.0, 1e-12)) * 1.02
    edges = np.linspace(0.0, top, 31)
    rows = []
    series = [("before clipping", norms)]
    if clip is not None:
        series.append(("after clipping", np.minimum(norms, clip)))
    for name, values in series:
        counts, _ = np.histogram(values, bins=edges)
        rows += [{"lo": float(lo), "hi": float(hi), "n": int(c), "when": name}
                 for lo, hi, c in zip(edges[:-1], edges[1:], counts) if c > 0]
    x = {"field": "lo", "type": "quantitative", "bin": {"binned": True},
         "title": "‖per-example gradient‖₂"}
    y = {"field": "n", "type": "quantitative", "title": "training points"}
    colour = {"field": "when", "type": "nominal", "title": None,
              "scale": {"domain": ["before clipping", "after clipping"],
                        "range": [SKY, VERMILLION]}}
    # "before": filled bars; "after": outlined bars on top, so both stay visible
    layers = [
        {"data": {"values": [r for r in rows if r["when"] == "before clipping"]},
         "mark": {"type": "bar", "opacity": 0.8, "binSpacing": 0},
         "encoding": {"x": x, "x2": {"field": "hi"}, "y": y, "color": colour}},
        {"data": {"values": [r for r in rows if r["when"] == "after clipping"]},
         "mark": {"type": "bar", "fillOpacity": 0, "strokeWidth": 2, "binSpacing": 0},
         "encoding": {"x": x, "x2": {"field": "hi"}, "y": y, "stroke": colour}},
    ]
    if clip is not None:
        layers.append({"data": {"values": [{"C": float(clip)}]},
                       "mark": {"type": "rule", "color": BLACK, "strokeDash": [4, 3]},
                       "encoding": {"x": {"field": "C", "type": "quantitative"}}})
    return {"height": 330, "layer": layers}


def history_spec(history: dict) -> dict:
    """Vega-Lite: training accuracy and ε after each epoch (two y axes)."""
    rows = [{"epoch": e, "accuracy": a, "epsilon": (None if not math.isfinite(s) else s)}
            for e, a, s in zip(history["epoch"], history["accuracy"], history["epsilon"])]
    base = {"x": {"field": "epoch", "type": "quantitative", "axis": {"tickMinStep": 1}}}
    return {
        "height": 200, "data": {"values": rows},
        "layer": [
            {"mark": {"type": "line", "point": True, "color": BLUE},
             "encoding": {**base, "y": {"field": "accuracy", "type": "quantitative",
                                        "scale": {"domain": [0, 1]},
                                        "title": "training accuracy",
                                        "axis": {"titleColor": BLUE}}}},
            {"mark": {"type": "line", "strokeDash": [5, 3], "color": VERMILLION},
             "encoding": {**base, "y": {"field": "epsilon", "type": "quantitative",
                                        "title": "ε spent", "axis": {"titleColor": VERMILLION}}}},
        ],
        "resolve": {"scale": {"y": "independent"}},
    }


def render() -> None:
    st.title("DP-SGD playground")
    st.markdown(
        "Train a small neural network (2 → 16 → 2) on 200 points with **DP-SGD** "
        "(Abadi et al. 2016): every step samples each point with probability q, clips each "
        "point's gradient to norm **C**, adds Gaussian noise **σ·C** to the sum and divides by "
        "the expected batch size. The RDP accountant adds up the privacy loss of every step.")
    c1, c2, c3, c4 = st.columns(4)
    with c1:
        sigma = float(st.select_slider("Noise multiplier σ", SIGMAS, value=2.0, key="dps_sigma",
                                       help="Noise std on the gradient sum is σ·C."))
        st.caption("← less private | more private →")
    with c2:
        clip = st.select_slider("Clipping norm C", CLIPS, value=1.0, key="dps_clip",
                                format_func=_clip_label,
                                help="Each point's gradient is scaled down to norm ≤ C.")
        st.caption("small C: less noise, more bias")
        clip = None if clip == NO_CLIP else float(clip)
    with c3:
        batch = int(st.select_slider("Expected batch size qn", BATCHES, value=32, key="dps_batch",
                                     help=f"q = batch / {N_POINTS}; realised batches vary."))
        st.caption("larger batch: noise averages out, less amplification")
    with c4:
        epochs = int(st.slider("Epochs", 1, 30, 15, key="dps_epochs"))
        st.caption("more epochs: more steps, more ε")
    if st.button("Retrain with another seed", icon=":material/replay:", key="dps_reseed"):
        st.session_state["dps_seed"] = st.session_state.get("dps_seed", 0) + 1
    seed = st.session_state.get("dps_seed", 0)

    X, y = toy_data()
    with friendly_errors("DP-SGD training"):
        if clip is None and sigma > 0:
            raise ParameterError("Noise is calibrated to the clipping norm (std σ·C): without "
                                 "clipping one point can move the sum arbitrarily far and no "
                                 "amount of noise gives a guarantee. Choose a clipping norm C, "
                                 "or set σ = 0 for the non-private baseline.")
        res = train(sigma, clip, batch, epochs, seed)
        eps = res["epsilon"]
        m1, m2, m3, m4 = st.columns(4, border=True)
        m1.metric(f"ε spent (δ = {DELTA:g})", "∞" if not math.isfinite(eps) else fmt(eps, 3),
                  help="RDP accountant for the Poisson-subsampled Gaussian mechanism "
                       "(Mironov, Talwar & Zhang 2019).")
        m2.metric("Steps T (q)", f"{res['steps']} ({res['q']:.3f})",
                  help=f"Realised batch sizes ranged {res['batch_min']}–{res['batch_max']}.")
        m3.metric("Training accuracy", f"{res['accuracy']:.1%}")
        clipped = "–" if clip is None else f"{np.mean(res['norms'] > clip):.0%}"
        m4.metric("Points clipped now", clipped,
                  help="Share of training points whose gradient norm at the final model exceeds C.")
        if not math.isfinite(eps):
            st.warning("σ = 0: no noise, so no privacy guarantee (ε = ∞). This is plain SGD"
                       + (" with clipping." if clip is not None else "."),
                       icon=":material/warning:")
        elif eps > 10:
            st.info(f"ε = {eps:.3g} is a weak guarantee: with only {N_POINTS} points each one "
                    "is sampled often. Raise σ, or train for fewer epochs.")
        left, right = st.columns(2)
        with left:
            st.subheader("Decision boundary")
            st.vega_lite_chart(spec=boundary_spec(res, X, y), width="stretch",
                               alt="Decision boundary of the DP-SGD model on the toy data")
        with right:
            st.subheader("Per-example gradient norms")
            st.vega_lite_chart(spec=norms_spec(res["norms"], clip), width="stretch",
                               alt="Histogram of per-example gradient norms before and after "
                                   "clipping")
            st.caption("At the final model, on all 200 training points. Clipping maps each norm "
                       "to min(norm, C): everything right of the dashed line piles up at C.")
        st.subheader("Accuracy and privacy, epoch by epoch")
        st.vega_lite_chart(spec=history_spec(res["history"]), width="stretch",
                           alt="Training accuracy and epsilon after each epoch")
    st.caption("M. Abadi et al., *Deep learning with differential privacy*, CCS 2016 (Alg. 1); "
               "I. Mironov, K. Talwar, L. Zhang, *Rényi DP of the sampled Gaussian mechanism*, "
               "2019.")
