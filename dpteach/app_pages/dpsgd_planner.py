"""App page "DP-SGD planner": dataset, batch, epochs, σ, δ → ε by RDP and PLD; target ε → σ.

Numbers from :mod:`dpteach.accounting` (``epsilon_for_noise_multiplier``,
``get_noise_multiplier``), the figure from
:func:`dpteach.plots.accounting.plot_dpsgd_epsilon`.
"""

from __future__ import annotations

import streamlit as st

from ..accounting import RDPAccountant, epsilon_for_noise_multiplier, get_noise_multiplier
from ..plots.accounting import STEPS_MAX_LIMIT
from ._common import (
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

DATASET_SIZES = (1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 60_000, 100_000, 200_000,
                 500_000, 1_000_000)
BATCH_SIZES = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
EPOCHS = (1, 2, 3, 5, 10, 20, 30, 50, 64, 100, 200)
SIGMAS = (0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.5, 2.0, 3.0, 5.0, 10.0)
DELTAS = tuple(10.0 ** -k for k in range(10, 1, -1))
PLD_GRID = 1e-3          # PLD discretization used by the page: ~35 ms for 15,000 steps
_PLOT = "dpteach.plots.accounting.plot_dpsgd_epsilon"


def _steps(n: int, batch: int, epochs: int) -> tuple[float, int]:
    q = batch / n
    return q, max(1, round(epochs / q))


@st.cache_data(show_spinner=False, max_entries=1024)
def _rdp(sigma: float, q: float, steps: int, delta: float) -> tuple[float, float]:
    acc = RDPAccountant()
    acc.step(noise_multiplier=sigma, sample_rate=q, steps=steps)
    return acc.get_epsilon_and_order(delta)


def _pld_value(sigma: float, q: float, steps: int, delta: float) -> float:
    return epsilon_for_noise_multiplier(noise_multiplier=sigma, delta=delta, sample_rate=q,
                                        steps=steps, accountant="pld",
                                        value_discretization_interval=PLD_GRID)


PLD = Prefetcher(_pld_value)


def _sigma_value(target: float, delta: float, q: float, steps: int, accountant: str) -> float:
    kw = dict(value_discretization_interval=PLD_GRID, rtol=1e-3) if accountant == "pld" else {}
    return get_noise_multiplier(target_epsilon=target, target_delta=delta, sample_rate=q,
                                steps=steps, accountant=accountant, **kw)


SIGMA_FOR = Prefetcher(_sigma_value, max_entries=256)


def _ahead(options, value, last) -> list:
    """Slider positions to prepare next: after a move, the next one in the same
    direction (an arrow key pressed again); otherwise both neighbours."""
    nb = neighbours(options, value)
    if last is None or last == value or last not in options:
        return nb
    options = list(options)
    i = options.index(value) + (1 if last < value else -1)
    return [options[i]] if 0 <= i < len(options) else []


def _prefetch(n, batch, epochs, sigma, delta, target, q, steps, kw) -> None:
    """Compute the numbers and the figure of the next likely slider positions in the
    background: along the slider moved last (σ by default), direction of the move first.
    A figure takes ~0.3 s, so only one slider's neighbours are queued per rerun."""
    state = st.session_state
    last_sigma, last_epochs = state.get("_last_sigma"), state.get("_last_epochs")
    state["_last_sigma"], state["_last_epochs"] = sigma, epochs
    if last_epochs is not None and last_epochs != epochs:
        for e in _ahead(EPOCHS, epochs, last_epochs):
            _, t = _steps(n, batch, int(e))
            PLD.prefetch(sigma, q, t, delta)
            SIGMA_FOR.prefetch(target, delta, q, t, "rdp")
            if t <= STEPS_MAX_LIMIT:
                FIGURES.prefetch(_PLOT, **{**kw, "steps_max": max(t, 2), "mark_steps": t})
    else:
        for s in _ahead(SIGMAS, sigma, last_sigma):
            PLD.prefetch(s, q, steps, delta)
            if steps <= STEPS_MAX_LIMIT:
                FIGURES.prefetch(_PLOT, **{**kw, "noise_multiplier": s})


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
    with c3:
        delta = delta_slider("δ", key="delta", value=1e-5, options=DELTAS)

    if batch > n:
        st.warning(f"The batch size ({batch}) cannot exceed the dataset size ({n:,}): "
                   "the sampling rate q = batch/n must be at most 1.", icon=":material/warning:")
        return
    q, steps = _steps(n, batch, epochs)
    if delta >= 1 / n:
        st.warning(f"δ = {delta:g} is not below 1/n = {1 / n:.1e}: a mechanism that publishes "
                   "one random person's record in full would satisfy it. Choose δ ≪ 1/n.",
                   icon=":material/warning:")

    m = st.columns(5)
    m[0].metric("Sampling rate q", fmt(q), help="q = expected batch size / dataset size "
                "(Poisson sampling).")
    m[1].metric("Steps T", f"{steps:,}", help="T = epochs / q.")
    eps_rdp = None
    with friendly_errors("The RDP accountant"):
        eps_rdp, order = _rdp(sigma, q, steps, delta)
        m[2].metric("ε (RDP)", fmt(eps_rdp),
                    help="Rényi DP of the Poisson-subsampled Gaussian (Mironov, Talwar, Zhang "
                         "2019), converted at the best order (Balle et al. 2020, Thm 21).")
        m[3].metric("best RDP order α", fmt(order))
    eps_pld = None
    if steps > STEPS_MAX_LIMIT and not m[4].button("Compute ε (PLD)", key="pld_long"):
        m[4].caption(f"PLD over {steps:,} steps can take half a minute: press the button.")
    else:
        with friendly_errors("The PLD accountant"), st.spinner("PLD…"):
            eps_pld = PLD.get(sigma, q, steps, delta)
            m[4].metric("ε (PLD)", fmt(eps_pld),
                        help="Privacy-loss distribution (Google's dp_accounting, grid 1e-3, "
                             "pessimistic: an upper bound). Usually tighter than RDP.")
    if eps_pld is not None and eps_rdp is not None and eps_pld > eps_rdp:
        st.caption(f"Here PLD ({fmt(eps_pld)}) is looser than RDP ({fmt(eps_rdp)}): both are "
                   "valid upper bounds, but the PLD is computed on a grid of width 1e-3 and "
                   "rounded pessimistically, and that rounding adds up over many steps with a "
                   "small q. A finer grid (slower) tightens it; use the smaller of the two.")

    kw = dict(steps_max=max(steps, 2), noise_multiplier=sigma, sample_rate=q, delta=delta,
              pld_points=6, mark_steps=steps)
    if steps > STEPS_MAX_LIMIT:
        st.info(f"The ε-against-steps figure is drawn for runs of up to {STEPS_MAX_LIMIT:,} "
                f"steps; this run has {steps:,}. The numbers above are computed for the whole "
                "run.", icon=":material/info:")
    else:
        with friendly_errors("The figure"), st.spinner("Drawing…"):
            show_figure(cached_figure(_PLOT, **kw), "ε against the number of training steps")

    st.subheader("Inverse: how much noise for a target ε?")
    c_target, c_rdp, c_pld = st.columns([2, 1, 1])
    with c_target:
        target = epsilon_slider("Target ε", key="target_epsilon", value=3.0)
    with c_rdp, friendly_errors("The RDP calibration"):
        st.metric("σ needed (RDP)", fmt(SIGMA_FOR.get(target, delta, q, steps, "rdp")),
                  help="Smallest σ (to 1e-4 relative) whose RDP ε is ≤ the target; "
                       "never above it.")
    with c_pld:
        if st.button("Compute σ with PLD", key="pld_sigma"):
            st.session_state["_pld_sigma_for"] = (target, delta, q, steps)
        if st.session_state.get("_pld_sigma_for") == (target, delta, q, steps):
            with friendly_errors("The PLD calibration"), st.spinner("Calibrating with PLD…"):
                st.metric("σ needed (PLD)", fmt(SIGMA_FOR.get(target, delta, q, steps, "pld")),
                          help="Smallest σ (to 1e-3 relative) whose PLD ε is ≤ the target.")
        else:
            st.caption("PLD calibration takes about a second: press the button.")
    _prefetch(n, batch, epochs, sigma, delta, target, q, steps, kw)

    st.caption(
        "Add/remove-one neighbouring datasets; Poisson sampling. DP-SGD: Abadi et al., CCS 2016. "
        "A tighter accountant needs less noise for the same guarantee."
    )
