"""App page "DP-SGD planner": dataset, batch, epochs, σ, δ → ε by RDP and PLD; target ε → σ.

Numbers from :mod:`dpteach.accounting` (``RDPAccountant``, ``get_noise_multiplier``), the
figure (and the PLD ε of the run) from :func:`dpteach.plots.accounting.dpsgd_epsilon_data`,
drawn by the browser. PLD numbers take up to a second each: for every run the sliders
offer with at most 10⁶ steps they are read from the table that
``scripts/precompute_app_tables.py`` made over exactly these sliders; longer runs and the
calibration of σ (many evaluations) wait for a button.

Every control is bound to the address (``?epochs=10&sigma=2``); ``PRESETS`` are the lesson's
prepared views; δ and the target ε fold away in presentation mode.
"""

from __future__ import annotations

import streamlit as st

from dpteach._validation import ParameterError
from dpteach.accounting.rdp import RDPAccountant
from dpteach.accounting.calibrate import epsilon_for_noise_multiplier, get_noise_multiplier
from dpteach.plots.accounting import (
    PLANNER_BATCH_SIZES,
    PLANNER_DATASET_SIZES,
    PLANNER_DELTAS,
    PLANNER_EPOCHS,
    PLANNER_SIGMAS,
    PLANNER_TABLE_MAX_STEPS,
    STEPS_MAX_LIMIT,
    dpsgd_epsilon_data,
    planner_pld_steps,
    planner_run,
)
from dpteach.plots.figure import FigureData
from dpteach.tables import APP_PLD_INTERVAL
from dpapp.charts import show_chart
from dpapp.frame import secondary, tiles, tradeoff
from dpapp.messages import friendly_errors, show_error
from dpapp.widgets import delta_slider, epsilon_slider, fmt, log_slider

DATASET_SIZES = PLANNER_DATASET_SIZES
BATCH_SIZES = PLANNER_BATCH_SIZES
EPOCHS = PLANNER_EPOCHS
SIGMAS = PLANNER_SIGMAS
DELTAS = PLANNER_DELTAS
PLD_GRID = APP_PLD_INTERVAL      # PLD discretization of the page (and of its table)

#: The lesson's prepared views (widget key → value), offered above the page.
PRESETS = {
    "MNIST-like: 60,000 examples, σ = 1.1": {"n": 60_000, "batch": 256, "epochs": 64,
                                             "sigma": 1.1, "run_delta": 1e-5},
    "More noise: σ = 2": {"n": 60_000, "batch": 256, "epochs": 64, "sigma": 2.0,
                          "run_delta": 1e-5},
    "Fewer epochs: 5": {"n": 60_000, "batch": 256, "epochs": 5, "sigma": 1.1,
                        "run_delta": 1e-5},
    "Small data: 10,000 examples": {"n": 10_000, "batch": 256, "epochs": 64, "sigma": 1.1,
                                    "run_delta": 1e-5},
}


@st.cache_data(show_spinner=False, max_entries=1024)
def _rdp(sigma: float, q: float, steps: int, delta: float) -> tuple[float, float]:
    acc = RDPAccountant()
    acc.step(noise_multiplier=sigma, sample_rate=q, steps=steps)
    return acc.get_epsilon_and_order(delta)


@st.cache_data(show_spinner=False, max_entries=1024)
def _figure(n: int, batch: int, epochs: int, sigma: float,
            delta: float) -> tuple[FigureData, str | None]:
    """ε against steps up to the run's T, PLD at the runs of 1, 2, 3, … ≤ ``epochs`` epochs
    (all in the shipped table), marked at T; ``extra["at_mark"]["pld"]`` is the run's PLD ε.

    Where the PLD accountant refuses a run (its grid would be too large; the table marks
    such runs and the library refuses them in milliseconds), the figure shows RDP only
    and the refusal is returned too.
    """
    q, steps = planner_run(n, batch, epochs)
    kw = dict(noise_multiplier=sigma, sample_rate=q, delta=delta, mark_steps=steps)
    try:
        return dpsgd_epsilon_data(max(steps, 2), pld_steps=planner_pld_steps(n, batch, epochs),
                                  **kw), None
    except ParameterError as exc:
        return dpsgd_epsilon_data(max(steps, 2), pld_steps=(), **kw), str(exc)


@st.cache_data(show_spinner=False, max_entries=64)
def _pld_long(sigma: float, q: float, steps: int, delta: float) -> float:
    """PLD ε of a run longer than the table (behind a button: up to half a minute)."""
    return epsilon_for_noise_multiplier(noise_multiplier=sigma, delta=delta, sample_rate=q,
                                        steps=steps, accountant="pld",
                                        value_discretization_interval=PLD_GRID)


@st.cache_data(show_spinner=False, max_entries=256)
def _sigma_for(target: float, delta: float, q: float, steps: int, accountant: str) -> float:
    kw = dict(value_discretization_interval=PLD_GRID, rtol=1e-3) if accountant == "pld" else {}
    return get_noise_multiplier(target_epsilon=target, target_delta=delta, sample_rate=q,
                                steps=steps, accountant=accountant, **kw)


def render() -> None:
    st.title("DP-SGD planner")
    st.markdown(
        "DP-SGD samples each example with probability **q = batch / n** at every step, clips "
        "per-example gradients to norm 1 and adds Gaussian noise with standard deviation "
        "**σ** (the noise multiplier). How much privacy does a training run spend?"
    )
    c1, c2, c3 = st.columns(3)
    with c1:
        n = int(log_slider("Dataset size n", DATASET_SIZES, 60_000, key="n",
                           format_func=lambda v: f"{int(v):,}", caption=None))
        batch = int(log_slider("Expected batch size", BATCH_SIZES, 256, key="batch",
                               format_func=lambda v: str(int(v)),
                               caption="← more private (smaller q) | less private →"))
    with c2:
        epochs = int(log_slider("Epochs", EPOCHS, 64, key="epochs",
                                format_func=lambda v: str(int(v)),
                                caption="← more private | less private →"))
        sigma = log_slider("Noise multiplier σ", SIGMAS, 1.1, key="sigma",
                           caption="← less private | more private →")
    with c3, secondary("δ"):
        delta = delta_slider("δ", key="run_delta", value=1e-5, options=DELTAS)

    if batch > n:
        st.warning(f"The batch size ({batch}) cannot exceed the dataset size ({n:,}): "
                   "the sampling rate q = batch/n must be at most 1.", icon=":material/warning:")
        return
    q, steps = planner_run(n, batch, epochs)
    if delta >= 1 / n:
        st.warning(f"δ = {delta:g} is not below 1/n = {1 / n:.1e}: a mechanism that publishes "
                   "one random person's record in full would satisfy it. Choose δ ≪ 1/n.",
                   icon=":material/warning:")

    rate = [("Steps T", f"{steps:,}", "T = epochs / q."),
            ("Sampling rate q", fmt(q), "q = expected batch size / dataset size "
                                        "(Poisson sampling).")]
    eps_rdp = None
    rdp: list[tuple] = []
    with friendly_errors("The RDP accountant"):
        eps_rdp, order = _rdp(sigma, q, steps, delta)
        rdp = [("ε (RDP)", fmt(eps_rdp),
                "Rényi DP of the Poisson-subsampled Gaussian (Mironov, Talwar, Zhang 2019), "
                "converted at the best order (Balle et al. 2020, Thm 21)."),
               ("best RDP order α", fmt(order), None)]
    data = pld_refused = None
    if steps <= STEPS_MAX_LIMIT:
        with friendly_errors("The figure"):
            data, pld_refused = _figure(n, batch, epochs, sigma, delta)
    eps_pld = None
    pld_help = ("Privacy-loss distribution (Google's dp_accounting, grid 1e-3, pessimistic: "
                "an upper bound). Usually tighter than RDP.")
    press_for_pld = False
    if data is not None and "pld" in data.extra["at_mark"]:
        eps_pld = data.extra["at_mark"]["pld"]
    elif pld_refused is not None:
        show_error(ParameterError(pld_refused), "The PLD accountant")
    elif steps > PLANNER_TABLE_MAX_STEPS:    # (below it, the figure's warning says why not)
        press_for_pld = True
        if st.session_state.get("pld_long"):
            with friendly_errors("The PLD accountant"), st.spinner("PLD…"):
                eps_pld = _pld_long(sigma, q, steps, delta)
    pld = [("ε (PLD)", fmt(eps_pld), pld_help)] if eps_pld is not None else []
    # the ε's first (a projector shows four tiles), then what they are computed from
    tiles(rdp[:1] + pld + rate + rdp[1:], border=False, fold_label="How ε was computed")
    if press_for_pld and eps_pld is None:
        st.button("Compute ε (PLD)", key="pld_long")
        st.caption(f"PLD over {steps:,} steps can take half a minute: press the button.")
    if eps_rdp is not None:
        spent = min(eps_rdp, eps_pld) if eps_pld is not None else eps_rdp
        tradeoff(f"{epochs} epochs of {batch}-example batches are {steps:,} noisy steps, which "
                 f"spend ε = {fmt(spent, 3)} at δ = {delta:g}. More noise (σ > {fmt(sigma)}), "
                 f"fewer epochs or smaller batches spend less ε, and the model learns less "
                 f"from each step.")
    if eps_pld is not None and eps_rdp is not None and eps_pld > eps_rdp:
        st.caption(f"Here PLD ({fmt(eps_pld)}) is looser than RDP ({fmt(eps_rdp)}): both are "
                   "valid upper bounds, but the PLD is computed on a grid of width 1e-3 and "
                   "rounded pessimistically, and that rounding adds up over many steps with a "
                   "small q. A finer grid (slower) tightens it; use the smaller of the two.")

    if steps > STEPS_MAX_LIMIT:
        st.info(f"The ε-against-steps figure is drawn for runs of up to {STEPS_MAX_LIMIT:,} "
                f"steps; this run has {steps:,}. The numbers above are computed for the whole "
                "run.", icon=":material/info:")
    elif data is not None:
        show_chart(data, f"ε against the number of training steps, marked at T = {steps:,}")

    st.subheader("Inverse: how much noise for a target ε?")
    c_target, c_rdp, c_pld = st.columns([2, 1, 1])
    with c_target:
        with secondary("Target ε"):
            target = epsilon_slider("Target ε", key="target_epsilon", value=3.0)
        if st.button("Find σ", key="find_sigma",
                     help="Calibrates σ by bisection: by RDP (up to a second) and by PLD "
                          "(a few seconds)."):
            st.session_state["_sigma_for"] = (target, delta, q, steps)
    if st.session_state.get("_sigma_for") != (target, delta, q, steps):
        c_rdp.caption("Calibrating σ takes many accountant evaluations (up to a second by "
                      "RDP, seconds by PLD): press **Find σ**.")
    else:
        with c_rdp, friendly_errors("The RDP calibration"), st.spinner("Calibrating with RDP…"):
            st.metric("σ needed (RDP)", fmt(_sigma_for(target, delta, q, steps, "rdp")),
                      help="Smallest σ (to 1e-4 relative) whose RDP ε is ≤ the target; "
                           "never above it.")
        with c_pld, friendly_errors("The PLD calibration"), st.spinner("Calibrating with PLD…"):
            st.metric("σ needed (PLD)", fmt(_sigma_for(target, delta, q, steps, "pld")),
                      help="Smallest σ (to 1e-3 relative) whose PLD ε is ≤ the target.")

    st.caption(
        "Add/remove-one neighbouring datasets; Poisson sampling. DP-SGD: Abadi et al., CCS 2016. "
        "A tighter accountant needs less noise for the same guarantee."
    )
