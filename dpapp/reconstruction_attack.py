"""App page "Reconstruction attack": the fundamental law of information recovery, live.

A database is n secret bits; the curator answers k random subset sums with noise — bounded
errors of size c·√n, or noise calibrated so that all k answers together are (ε, δ)-DP — and
an attacker decodes the bits (least squares or linear programming, Dinur & Nissim 2003;
Dwork, McSherry & Talwar 2007). The page shows the fraction of the bits recovered, against
the noise (:func:`dpteach.plots.reconstruction.recovery_vs_noise_data`) or the total ε under
the DP ceiling (:func:`~dpteach.plots.reconstruction.recovery_vs_epsilon_data`), and against
the number of queries, each with the current setting marked.

Speed: one attack takes 1-40 ms with least squares and 0.1-2 s with an LP, and a chart needs
a whole curve, so no slider move runs one. ``scripts/precompute_attack_tables.py`` runs
:func:`dpteach.attacks.reconstruction.reconstruction_attack` once for every slider position
(:data:`NS` × :data:`KS` × every noise level × :data:`DECODERS`; secret, queries and noise
from ``default_rng((SEED, n, k))``, so the noise of every level is the same draw, scaled)
and ships the bits recovered in ``dpteach/data/reconstruction_page.npz``, loaded lazily
once per process (:func:`dpteach.tables.load_reconstruction_table`). A decoder the library
refuses at (n, k) (the LP's size limits) is refused by the library itself, before any work,
and shown as a friendly message. The calibration
(:func:`~dpteach.attacks.reconstruction.calibrate_noise`, ~1-10 ms) is computed live.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np
import streamlit as st

from dpteach._validation import ParameterError
from dpteach.attacks.reconstruction import (
    DECODERS,
    calibrate_noise,
    dp_recovery_bound,
    reconstruction_attack,
)
from dpteach.plots import PALETTE
from dpteach.plots.figure import FigureData, Rule, Series
from dpteach.plots.reconstruction import recovery_vs_epsilon_data, recovery_vs_noise_data
from dpteach.tables import load_reconstruction_table
from dpapp.charts import show_chart
from dpapp.frame import chart_column, secondary, tradeoff
from dpapp.messages import friendly_errors
from dpapp.widgets import bound_radio, fmt, log_slider, PRIVACY_CAPTION

#: the sliders: secret bits n, queries k, bounded noise c (E = c·√n), total ε of DP answers
NS = (50, 100, 200, 400)
KS = (50, 100, 200, 400, 800, 1600)
RELATIVE_NOISE = (0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0)
TOTAL_EPSILONS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0,
                  1000.0, 2000.0, 5000.0, 10000.0)
DEFAULT_N, DEFAULT_K, DEFAULT_C, DEFAULT_EPSILON = 100, 400, 0.3, 10.0
#: the DP noise kinds: (accounting, total δ) of each
DP_SETTINGS = {"dp_laplace": ("basic", 0.0), "dp_gaussian": ("zcdp", 1e-6)}
NOISES = ("bounded",) + tuple(DP_SETTINGS)
NOISE_LABELS = {
    "bounded": "bounded errors, |e| ≤ c·√n",
    "dp_laplace": "DP: Laplace, total ε (basic composition)",
    "dp_gaussian": "DP: Gaussian, total ε, δ = 1e-6 (zCDP)",
}
DECODER_LABELS = {
    "least_squares": "least squares",
    "lp_linf": "LP, smallest largest error (Dinur–Nissim)",
    "lp_l1": "LP decoding, smallest total error",
}
#: one colour per decoder, in the order of the palette's cycle (as the plots module's curves)
COLOURS = (PALETTE["blue"], PALETTE["orange"], PALETTE["green"])
#: seed of the table's attacks: ``default_rng((SEED, n, k))``
SEED = 20031111
CHART_HEIGHT = 380

#: The notebook this page goes with (a file stem of notebooks/), named under the bar.
NOTEBOOK = "20_reconstruction_and_tracing"

#: The lesson's prepared views (widget key → value), offered above the page.
PRESETS = {
    "Accurate answers: c = 0.1": {"rec_n": 100, "rec_k": 400, "rec_noise": "bounded",
                                  "rec_c": 0.1, "rec_decoder": "least_squares"},
    "Noisy answers: c = 3": {"rec_n": 100, "rec_k": 400, "rec_noise": "bounded",
                             "rec_c": 3.0, "rec_decoder": "least_squares"},
    "DP answers, ε = 1 in total": {"rec_n": 100, "rec_k": 400, "rec_noise": "dp_laplace",
                                   "rec_epsilon": 1.0, "rec_decoder": "least_squares"},
    "DP answers, ε = 1,000 in total": {"rec_n": 100, "rec_k": 400,
                                       "rec_noise": "dp_laplace", "rec_epsilon": 1000.0,
                                       "rec_decoder": "least_squares"},
}


def attack_kwargs(n: int, k: int, noise: str, level: float, decoder: str) -> dict:
    """The arguments of :func:`reconstruction_attack` for one slider position (``level``
    is c for bounded noise, the total ε for DP noise) — the table's and the page's."""
    kw = dict(n=n, k=k, noise=noise, decoder=decoder)
    if noise == "bounded":
        kw["size"] = level * math.sqrt(n)
    else:
        accounting, delta = DP_SETTINGS[noise]
        kw.update(epsilon=level, delta=delta, accounting=accounting)
    return kw


def attack_rng(n: int, k: int) -> np.random.Generator:
    """The table's generator for (n, k): the same secret, queries and noise draw at every
    noise level and decoder."""
    return np.random.default_rng((SEED, n, k))


# ---------------------------------------------------------------------- the table
def _levels(noise: str) -> tuple[float, ...]:
    """The table's noise levels of ``noise``: c for bounded errors, the total ε for DP."""
    table = load_reconstruction_table()
    return table["relative_noise"] if noise == "bounded" else table["epsilons"]


def recovered_counts(n: int, k: int, noise: str) -> np.ndarray:
    """Bits recovered at (n, k) for every noise level (rows) and decoder (columns); −1
    where the decoder is refused."""
    table = load_reconstruction_table()
    try:
        i, j = table["ns"].index(n), table["ks"].index(k)
        if noise == "bounded":
            return table["bounded"][i, j]
        return table["dp"][i, j, table["dp_kinds"].index(noise)]
    except ValueError:
        raise ParameterError(f"the page's table holds n in {table['ns']}, k in {table['ks']} "
                             f"and noise in {NOISES}; got n={n!r}, k={k!r}, noise={noise!r}"
                             ) from None


def fraction_at(n: int, k: int, noise: str, level: float, decoder: str) -> float:
    """The tabled fraction of the n bits recovered; the library's own ParameterError where
    it refuses the decoder (asked again: it refuses before drawing anything)."""
    counts = recovered_counts(n, k, noise)
    levels = _levels(noise)
    if level not in levels or decoder not in DECODERS:
        raise ParameterError(f"the page's table holds the levels {levels} and the decoders "
                             f"{DECODERS}; got level={level!r}, decoder={decoder!r}")
    value = int(counts[levels.index(level), DECODERS.index(decoder)])
    if value < 0:
        reconstruction_attack(**attack_kwargs(n, k, noise, level, decoder), rng=0)
        raise ParameterError(f"the table has no attack for decoder={decoder!r} at n={n}, "
                             f"k={k}")                # stale table: rerun the script
    return value / n


def noise_figure(n: int, k: int, noise: str, level: float, decoder: str) -> FigureData:
    """Recovery against the noise level at (n, k), one curve per decoder the library allows
    there, the current setting marked (:func:`recovery_vs_noise_data` for bounded noise,
    :func:`recovery_vs_epsilon_data` for DP noise)."""
    counts = recovered_counts(n, k, noise)
    curves = {DECODER_LABELS[d]: counts[:, m] / n for m, d in enumerate(DECODERS)
              if (counts[:, m] >= 0).all()}
    point = None
    if level in _levels(noise) and decoder in DECODERS \
            and counts[_levels(noise).index(level), DECODERS.index(decoder)] >= 0:
        point = (level, fraction_at(n, k, noise, level, decoder))
    if noise == "bounded":
        return recovery_vs_noise_data(_levels(noise), curves, n=n, highlight=point)
    return recovery_vs_epsilon_data(_levels(noise), curves, delta=DP_SETTINGS[noise][1],
                                    highlight=point)


def queries_figure(n: int, k: int, noise: str, level: float, decoder: str) -> FigureData:
    """Recovery against the number of queries at n and this noise level, one curve per
    decoder (the k's it is allowed at), the current (k, decoder) marked where the library
    allows it; for DP answers the ceiling of their total (ε, δ), which no number of queries
    lifts."""
    table = load_reconstruction_table()
    levels = _levels(noise)
    if level not in levels:
        raise ParameterError(f"the page's table holds the levels {levels}; got level={level!r}")
    li = levels.index(level)
    ks = np.array(table["ks"], dtype=float)
    rows = np.array([recovered_counts(n, k, noise)[li] for k in table["ks"]])   # [k, decoder]
    series = []
    for m, d in enumerate(DECODERS):
        ok = rows[:, m] >= 0
        if ok.any():
            colour = COLOURS[m]
            series += [Series(f"curve-{m}", DECODER_LABELS[d], ks[ok], rows[ok, m] / n,
                              colour=colour),
                       Series(f"curve-{m}-points", "", ks[ok], rows[ok, m] / n, kind="points",
                              colour=colour, width=1.2)]
    if k not in table["ks"] or decoder not in DECODERS:
        raise ParameterError(f"the page's table holds k in {table['ks']} and the decoders "
                             f"{DECODERS}; got k={k!r}, decoder={decoder!r}")
    m = DECODERS.index(decoder)
    at = rows[table["ks"].index(k), m]
    if at >= 0:
        series.append(Series("highlight", "this setting", [float(k)], [at / n], kind="points",
                             colour=PALETTE["vermillion"], width=2.5))
    rules = [Rule("chance", "y", 0.5, "chance (coin flips)", PALETTE["black"], "dotted")]
    if noise == "bounded":
        setting = f"errors |e| ≤ {level:g}·√n"
    else:
        delta = DP_SETTINGS[noise][1]
        setting = f"total ε = {level:g}" + (f", δ = {delta:g}" if delta else "")
        rules.append(Rule("dp-bound", "y", dp_recovery_bound(level, delta),
                          "DP ceiling (e^ε + δ)/(1 + e^ε)", PALETTE["black"], "dashed"))
    return FigureData(
        f"Reconstruction of n = {n} bits against the number of queries\n{setting}",
        "number of subset-sum queries k (log scale)", "fraction of bits recovered",
        series=tuple(series), rules=tuple(rules), log_x=True,
        x_domain=(float(ks.min()) / 1.15, float(ks.max()) * 1.15), y_domain=(0.4, 1.02),
        extra={"ks": ks, "recovered": rows, "decoder": m, "at": None if at < 0 else at / n})


# ------------------------------------------------------------------------- the page
@st.cache_data(show_spinner=False, max_entries=1024)
def view(n: int, k: int, noise: str, level: float, decoder: str
         ) -> tuple[FigureData, FigureData]:
    """The two charts of a slider position (:func:`noise_figure`, :func:`queries_figure`)."""
    return (noise_figure(n, k, noise, level, decoder),
            queries_figure(n, k, noise, level, decoder))


@st.cache_data(show_spinner=False, max_entries=1024)
def calibration(k: int, noise: str, epsilon: float) -> dict:
    """Per-answer noise of DP answers (:func:`calibrate_noise`) as the page shows it."""
    accounting, delta = DP_SETTINGS[noise]
    cal = calibrate_noise(k, epsilon, delta=delta, mechanism=noise[3:], accounting=accounting)
    return {"scale": cal.scale, "noise_std": cal.noise_std,
            "per_query_epsilon": cal.per_query_epsilon,
            "basic_total_epsilon": cal.basic_total_epsilon,
            "ceiling": dp_recovery_bound(epsilon, delta)}


@st.cache_data(show_spinner=False, max_entries=16)
def conditioning(n: int) -> dict[int, float]:
    """Condition number (largest over smallest singular value) of the page's query matrix
    at k = n and k = 2n (the table's draw, :func:`attack_rng`): why least squares dips at
    k = n. A random square 0/1 matrix is nearly singular, its smallest singular value of
    order n^(-1/2) (Rudelson & Vershynin 2008, Thm 1.2); with k = 2n rows it is of order
    √k − √n (Rudelson & Vershynin 2009, Thm 1.1), so the errors of the answers, divided by
    it, grow by the condition number's ratio."""
    out = {}
    for k in (n, 2 * n):
        rng = attack_rng(n, k)
        rng.integers(0, 2, n)                                  # the secret, drawn first
        out[k] = float(np.linalg.cond(rng.integers(0, 2, size=(k, n)).astype(float)))
    return out


def dip_note(n: int) -> str:
    """One sentence beside the queries chart: why least squares dips at k = n."""
    cond = conditioning(n)
    return (f"Why least squares dips at k = n = {n}: with as many queries as unknowns the "
            f"system is square, and a random square 0/1 matrix is nearly singular (condition "
            f"number {cond[n]:,.0f} here, against {cond[2 * n]:,.0f} at k = {2 * n}), so "
            f"solving it can magnify the answers' relative errors by up to that factor; more "
            f"queries than unknowns average the errors out instead.")


def _controls() -> tuple[int, int, str, float, str]:
    c_size, c_noise, c_decoder = st.columns(3)
    with c_size:
        n = int(log_slider("Secret bits n (people)", NS, DEFAULT_N, key="rec_n", format_func=str,
                           caption="← smaller | larger database →",
                           help="One secret bit per person, drawn at random."))
        k = int(log_slider("Number of queries k", KS, DEFAULT_K, key="rec_k", format_func=str,
                           caption="← fewer queries | more queries →",
                           help="Each query asks for the sum of the bits of a random half of "
                                "the people."))
    with c_noise:
        noise = bound_radio("Noise on each answer", NOISES, key="rec_noise",
                            format_func=NOISE_LABELS.get)
        if noise == "bounded":
            level = log_slider("Error size c (E = c·√n)", RELATIVE_NOISE, DEFAULT_C,
                               key="rec_c", format_func=lambda c: f"{c:g}",
                               caption="← more accurate | noisier →",
                               help="Each answer is off by a uniform error in [−E, E].")
        else:
            level = log_slider("Total ε of all k answers", TOTAL_EPSILONS, DEFAULT_EPSILON,
                               key="rec_epsilon", format_func=lambda e: f"{e:g}",
                               caption=PRIVACY_CAPTION,
                               help="The privacy budget for ALL answers together; each answer "
                                    "gets a share of it, so its noise grows with k.")
    with c_decoder, secondary("Attacker's decoder"):
        decoder = bound_radio("Attacker's decoder", DECODERS, key="rec_decoder",
                              format_func=DECODER_LABELS.get,
                              help="Least squares: the best fit to the answers. The LPs find "
                                   "bits in [0, 1] whose answers are closest in the largest or "
                                   "the total error, then round.")
    return n, k, noise, float(level), decoder


def _percent(x: float) -> str:
    """``x`` as a percentage with 5 significant digits (99.995%, not a rounded 100.0%)."""
    return f"{100 * x:.5g}%"


def _metrics(n: int, k: int, noise: str, level: float, fraction: float | None) -> None:
    cols = st.columns(4, border=True)
    cols[0].metric("Bits recovered", "—" if fraction is None else f"{fraction:.1%}",
                   help="Share of the n secret bits the attacker guesses right (chance: 50%).")
    if noise == "bounded":
        cols[1].metric("Error bound E = c·√n", fmt(level * math.sqrt(n), 3))
        cols[2].metric("√n", fmt(math.sqrt(n), 3),
                       help="Dinur & Nissim: errors well below √n give the database away.")
        cols[3].metric("Chance", "50%")
        return
    with friendly_errors("The calibration"):
        cal = calibration(k, noise, level)
        cols[1].metric("ε of each answer", fmt(cal["per_query_epsilon"], 3),
                       help="Laplace with basic composition: ε/k. Gaussian with zCDP: the "
                            "exact ε of one answer at δ/k.")
        cols[2].metric("Noise std of each answer", fmt(cal["noise_std"], 3))
        cols[3].metric("DP ceiling", _percent(cal["ceiling"]),
                       help="(e^ε + δ)/(1 + e^ε): no attacker recovers more in expectation.")


def render() -> None:
    st.title("Reconstruction attack")
    st.markdown(
        "A database holds one secret bit per person. The curator answers **k** questions of "
        "the form *\"how many of these people have bit 1?\"* with some noise, and the "
        "attacker solves for the bits. **The fundamental law of information recovery**: "
        "answering too many questions too accurately destroys privacy, whatever the "
        "questions. Errors well below √n give almost every bit away (Dinur & Nissim 2003); "
        "answers that are (ε, δ)-DP *in total* keep every attacker near a coin flip when ε "
        "is small, however many questions are asked."
    )
    n, k, noise, level, decoder = _controls()
    fraction = None
    with friendly_errors("This decoder"):
        fraction = fraction_at(n, k, noise, level, decoder)
    _metrics(n, k, noise, level, fraction)
    if fraction is not None:
        how = (f"answers off by up to c·√n = {fmt(level * math.sqrt(n), 3)}"
               if noise == "bounded" else f"answers that are ε = {level:g}-DP in total")
        tradeoff(f"From k = {k:,} {how}, the attacker recovers {fraction:.0%} of the {n} "
                 f"secret bits (a coin flip gets 50%). More accurate answers or more of them "
                 f"give the database away; a small total ε keeps it near a coin flip.")
    by_noise, by_k = view(n, k, noise, level, decoder)
    left, right = st.columns(2)
    what = "error size c" if noise == "bounded" else "total ε"
    with left:
        show_chart(by_noise, f"Fraction of bits recovered against the {what}, n = {n}, k = {k}, "
                             f"this setting marked", height=CHART_HEIGHT)
    with right:
        show_chart(by_k, f"Fraction of bits recovered against the number of queries, n = {n}, "
                         f"marked at k = {k}", height=CHART_HEIGHT)
        if decoder == "least_squares":
            with chart_column() or contextlib.nullcontext():
                st.caption(dip_note(n))
    if noise == "bounded":
        st.caption(
            "With errors of size c·√n, c well below 1, and about as many queries as people, "
            "the attacker recovers nearly every bit: the answers were too accurate. Larger "
            "errors protect only if the number of queries stays small — with random errors, "
            "more queries average them away. Noise that must hold against *any* number of "
            "queries has to grow with k: that is what a total privacy budget does.")
    else:
        st.caption(
            "With a total budget ε for all k answers, each answer gets only a share of it, so "
            "more queries bring more noise, not more information: the attack stays under the "
            "DP ceiling (e^ε + δ)/(1 + e^ε) — for small ε, a coin flip — at every k. Only a "
            "large total ε (hundreds, for these sizes) lets the bits out.")
    st.caption("Each point is one seeded attack (secret, queries and noise drawn once per "
               "(n, k) and scaled to each level), computed in advance. I. Dinur, K. Nissim, *Revealing "
               "information while preserving privacy*, PODS 2003; C. Dwork, F. McSherry, "
               "K. Talwar, *The price of privacy and the limits of LP decoding*, STOC 2007; "
               "C. Dwork, A. Roth, *The algorithmic foundations of differential privacy*, "
               "Sec. 8.1.")
