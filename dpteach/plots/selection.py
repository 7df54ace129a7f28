"""Figures for private selection, sparse vector and stability-based release (notebook 05).

Every number is computed by :mod:`dpteach.mechanisms.selection`, :mod:`dpteach.mechanisms.sparse_vector`,
:mod:`dpteach.mechanisms.stability` or :mod:`dpteach.accounting.composition`; these functions only draw. Each returns the
:class:`matplotlib.figure.Figure` and tags its artists with a ``gid`` (bars:
every rectangle of a series carries the series' gid) so that tests and
notebooks can read the plotted data back.

References
----------
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014: Def 3.4 and Thm 3.10
   (exponential mechanism), Claim 3.9 (report-noisy-max), Alg. 1-2 (sparse
   vector), Thms 3.16 and 3.20 (composition), Sec 7 (stability).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from .._validation import (
    DELTA_POSITIVE,
    ParameterError,
    check_array,
    check_delta,
    check_epsilon,
    check_finite,
    check_int,
    check_sensitivity,
    describe,
)
from ..mechanisms import stability as robust, selection, sparse_vector
from ._style import LOG_AXIS_MAX, PALETTE, new_axes, refuse_undrawable, refuse_undrawable_log

__all__ = [
    "plot_selection_probabilities",
    "plot_exponential_mechanism",
    "plot_private_median",
    "plot_private_mode",
    "plot_noisy_max_comparison",
    "plot_svt_vs_composition",
    "plot_event_privacy_loss",
    "plot_block_estimates",
    "plot_ptr_distance",
]


BARS_MAX = 1_000               #: most bars (candidates) in one selection bar chart
BOUNDS_MAX_SIZE = 10_000       #: most proposed bounds b in plot_ptr_distance


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def _labels(labels, k: int) -> list[str]:
    if labels is None:
        return [str(i) for i in range(k)]
    out = [str(v) for v in labels]
    if len(out) != k:
        raise ParameterError(f"labels must have one entry per candidate ({k}); got {len(out)}")
    return out


def plot_selection_probabilities(probabilities, labels=None, truth=None, title: str = "",
                                 xlabel: str = "candidate", ax=None):
    """Bar chart of a selection mechanism's output distribution.

    Parameters
    ----------
    probabilities : array_like, shape (k,)
        Probabilities in [0, 1]; 1 ≤ k ≤ 1,000 (one bar each).
    labels : sequence of length k, optional
        Candidate names (tick labels; thinned when k is large).
    truth : int, optional
        Index of the non-private answer, drawn in a contrasting colour.
    title, xlabel : str
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Bars have gid ``"probabilities"``.
    """
    p = check_array("probabilities", probabilities, ndim=1)
    if np.any(p < 0) or np.any(p > 1):
        raise ParameterError("probabilities must lie in [0, 1]")
    if p.size > BARS_MAX:
        raise ParameterError(f"probabilities must have at most {BARS_MAX} entries (one bar "
                             f"each); got probabilities with {p.size} entries")
    names = _labels(labels, p.size)
    if truth is not None:
        truth = check_int("truth", truth, minimum=0, maximum=p.size - 1)
    fig, ax = new_axes(ax)
    colours = [PALETTE["blue"]] * p.size
    if truth is not None:
        colours[truth] = PALETTE["vermillion"]
    x = np.arange(p.size)
    ax.bar(x, p, color=colours, gid="probabilities")
    step = max(1, int(math.ceil(p.size / 20)))
    ax.set_xticks(x[::step], names[::step], rotation=45 if p.size > 8 else 0,
                  ha="right" if p.size > 8 else "center")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("probability of being released")
    ax.set_ylim(0, min(1.0, 1.15 * float(p.max())) if p.max() > 0 else 1.0)
    if truth is not None:
        from matplotlib.patches import Patch

        ax.legend(handles=[Patch(color=PALETTE["vermillion"], label="non-private answer"),
                           Patch(color=PALETTE["blue"], label="other candidates")],
                  fontsize="small", loc="upper right")
    ax.set_title(title)
    return fig


def plot_exponential_mechanism(scores, sensitivity: float, epsilon: float, labels=None,
                               monotonic: bool = False, ax=None):
    """Output distribution of the exponential mechanism for given scores.

    Probabilities from :func:`dpteach.mechanisms.selection.exponential_mechanism_probabilities`
    (∝ exp(ε·u/(2Δu)), [DR14]_ Def 3.4); the best-scoring candidate is highlighted.
    """
    p = selection.exponential_mechanism_probabilities(scores, sensitivity, epsilon, monotonic)
    u = np.asarray(scores, dtype=float)
    rate = "ε·u/Δu" if monotonic else "ε·u/(2Δu)"
    return plot_selection_probabilities(
        p, labels, truth=int(np.argmax(u)), ax=ax,
        title=f"Exponential mechanism, Pr ∝ exp({rate})\nε = {_fmt(epsilon)}, "
              f"Δu = {_fmt(sensitivity)}")


def plot_private_median(data, candidates, epsilon: float, neighbouring: str = "add_remove",
                        ax=None):
    """Distribution of :func:`dpteach.mechanisms.selection.private_median` over its candidates.

    The candidate closest to the (lower) sample median is highlighted.
    """
    p = selection.private_median_probabilities(data, candidates, epsilon, neighbouring)
    cand = np.asarray(candidates, dtype=float)
    x = np.sort(np.asarray(data, dtype=float))
    med = x[(x.size + 1) // 2 - 1] if x.size else float(np.median(cand))
    truth = int(np.argmin(np.abs(cand - med)))
    return plot_selection_probabilities(
        p, [_fmt(c) for c in cand], truth=truth, xlabel="candidate median", ax=ax,
        title=f"Private median (exponential mechanism, rank score)\nε = {_fmt(epsilon)}, "
              f"n = {x.size}, {cand.size} candidates")


def plot_private_mode(data, candidates, epsilon: float, neighbouring: str = "add_remove",
                      ax=None):
    """Distribution of :func:`dpteach.mechanisms.selection.private_mode` over its candidates."""
    p = selection.private_mode_probabilities(data, candidates, epsilon, neighbouring)
    counts = selection.mode_utility(data, candidates)
    return plot_selection_probabilities(
        p, [str(c) for c in candidates], truth=int(np.argmax(counts)), xlabel="candidate value",
        ax=ax, title=f"Private most common value (exponential mechanism, count score)\n"
                     f"ε = {_fmt(epsilon)}, {neighbouring.replace('_', '/')} neighbours")


def plot_noisy_max_comparison(scores, sensitivity: float, epsilon: float, labels=None,
                              monotonic: bool = False, ax=None):
    """Side-by-side output distributions of three ε-DP selection mechanisms.

    Exponential mechanism (= report-noisy-max with Gumbel noise), report-noisy-max
    with Laplace noise ([DR14]_ Claim 3.9) and with exponential noise
    (= permute-and-flip), all at the same ε, from
    :func:`dpteach.mechanisms.selection.report_noisy_max_probabilities`.

    Returns
    -------
    matplotlib.figure.Figure
        Bar gids ``"gumbel"``, ``"laplace"``, ``"exponential"``.
    """
    series = [("gumbel", "exponential mechanism (Gumbel noise)", PALETTE["blue"]),
              ("laplace", "report-noisy-max, Laplace noise", PALETTE["orange"]),
              ("exponential", "permute-and-flip (exponential noise)", PALETTE["green"])]
    probs = {name: selection.report_noisy_max_probabilities(scores, sensitivity, epsilon,
                                                            monotonic, noise=name)
             for name, _, _ in series}
    k = probs["gumbel"].size
    names = _labels(labels, k)
    fig, ax = new_axes(ax)
    x = np.arange(k)
    w = 0.27
    for j, (name, label, colour) in enumerate(series):
        ax.bar(x + (j - 1) * w, probs[name], width=w, color=colour, label=label, gid=name)
    ax.set_xticks(x, names, rotation=45 if k > 8 else 0, ha="right" if k > 8 else "center")
    ax.set_xlabel("candidate")
    ax.set_ylabel("probability of being selected")
    ax.legend(fontsize="small")
    scale = "Δ/ε" if monotonic else "2Δ/ε"
    ax.set_title(f"Three ε-DP ways to pick the best (noise scale {scale})\n"
                 f"ε = {_fmt(epsilon)}, Δ = {_fmt(sensitivity)}")
    return fig


def _advanced_per_query_epsilon(total: float, k: int, delta: float) -> float:
    """Largest ε₀ with min(kε₀, advanced(ε₀, k, δ)) ≤ total ([DR14]_ Thms 3.16, 3.20)."""
    from ..accounting.composition import advanced_composition

    def spent(e0: float) -> float:
        # from ε₀ = ln 2 on the advanced bound exceeds kε₀; below, its unchecked core (a
        # root search evaluates it many times)
        adv = (advanced_composition.__wrapped__(e0, 0.0, k, delta)[0] if e0 < math.log(2)
               else math.inf)
        return min(k * e0, adv) - total

    hi = total            # k·ε₀ with ε₀ = total already spends ≥ total
    lo = total / k / 10.0
    if spent(hi) <= 0:
        return hi
    return optimize.brentq(spent, lo, hi, xtol=1e-14, rtol=1e-12)


def plot_svt_vs_composition(epsilon: float, k_max: int = 1000, sensitivity: float = 1.0,
                            max_above: int = 1, delta: float | None = 1e-6, ax=None):
    """Noise per query when k threshold queries share a total budget ε.

    * Sparse vector (c = ``max_above`` ⊤ answers, δ = 0): every query gets
      ``Lap(4cΔ/ε)`` however many queries are asked ([DR14]_ Alg. 2).
    * Laplace on every query + basic composition: ``Lap(kΔ/ε)`` ([DR14]_ Thm 3.16).
    * Laplace + advanced composition with slack ``delta`` (if given): per-query
      ε₀ solving ``min(kε₀, √(2k ln(1/δ))ε₀ + kε₀(e^{ε₀} − 1)) = ε``
      ([DR14]_ Thm 3.20), noise ``Lap(Δ/ε₀)``.

    Parameters
    ----------
    epsilon : float
        The total budget, finite > 0.
    k_max : int
        The largest number of queries drawn, in [2, 100000].
    sensitivity : float
        Δ of each query, finite > 0.
    max_above : int
        c, the number of ⊤ answers before sparse vector halts, in [1, 10⁶].
    delta : float or None
        Slack of advanced composition, in (0, 1); None leaves that curve out.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Line gids ``"svt"``, ``"laplace-basic"``, ``"laplace-advanced"``.
    """
    epsilon = check_epsilon("epsilon", epsilon)
    kmax = check_int("k_max", k_max, minimum=2, maximum=100_000)
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    c = check_int("max_above", max_above, minimum=1, maximum=sparse_vector.MAX_ABOVE_MAX)
    if delta is not None:
        delta = DELTA_POSITIVE("delta", delta)          # advanced composition's slack δ'
    ks = np.unique(np.round(np.geomspace(1, kmax, 60)).astype(int))
    _, q_scale = sparse_vector.sparse_vector_noise_scales(epsilon, sensitivity, c)
    with np.errstate(over="ignore"):
        basic = ks * sensitivity / epsilon
    adv = None if delta is None else [
        sensitivity / _advanced_per_query_epsilon(epsilon, int(k), delta) for k in ks]
    refuse_undrawable_log("the noise scales", dict(epsilon=epsilon, k_max=k_max,
                                                   sensitivity=sensitivity, max_above=max_above,
                                                   delta=delta),
                          q_scale, basic, *(() if adv is None else (adv,)))
    fig, ax = new_axes(ax)
    ax.plot(ks, np.full(ks.size, q_scale), color=PALETTE["blue"], lw=2.2, gid="svt",
            label=f"sparse vector, c = {c}: Lap(4cΔ/ε)")
    ax.plot(ks, basic, color=PALETTE["black"], lw=2.2, ls=":",
            gid="laplace-basic", label="Laplace per query, basic composition: Lap(kΔ/ε)")
    if adv is not None:
        ax.plot(ks, adv, color=PALETTE["orange"], lw=2.2, ls="--", gid="laplace-advanced",
                label=f"Laplace per query, advanced composition (δ = {_fmt(delta)})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of threshold queries k")
    ax.set_ylabel("Laplace noise scale per query (larger = less accurate)")
    ax.legend(fontsize="small")
    ax.set_title(f"Answering k threshold queries with total budget ε = {_fmt(epsilon)}\n"
                 f"(Δ = {_fmt(sensitivity)}; sparse vector stops after c = {c} 'above' answers)")
    return fig


def plot_event_privacy_loss(event_probabilities: dict, epsilon: float, ax=None):
    """Privacy loss ``|ln(p/p′)|`` of one output event for several mechanisms.

    Parameters
    ----------
    event_probabilities : dict
        ``{mechanism name: (p, p′)}``: the probability of the same output event
        on neighbouring datasets D and D′ (exact, or estimated).
    epsilon : float
        The ε each mechanism claims; drawn as a horizontal line.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Bars have gid ``"loss"`` (an infinite loss is drawn at the top of the
        axes and labelled ∞), the claimed ε has gid ``"epsilon"``.
    """
    epsilon = check_epsilon("epsilon", epsilon)
    if not isinstance(event_probabilities, dict) or not event_probabilities:
        raise TypeError("event_probabilities must be a non-empty dict {name: (p, p')}; "
                        f"got {event_probabilities!r}")
    names, losses = [], []
    for name, pair in event_probabilities.items():
        p, pp = (float(v) for v in check_array("event_probabilities", pair, ndim=1,
                                                 min_size=2)[:2])
        if min(p, pp) < 0 or max(p, pp) > 1 or p + pp == 0:
            raise ParameterError("event_probabilities must hold probabilities in [0, 1], "
                                 f"not both 0; got {name!r}: {pair!r}")
        names.append(str(name))
        ratio = p / pp if pp > 0 else math.inf
        if min(p, pp) == 0:
            losses.append(math.inf)
        elif 0 < ratio < math.inf:
            losses.append(abs(math.log(ratio)))
        else:                                   # p/p′ overflows for a subnormal p′
            losses.append(abs(math.log(p) - math.log(pp)))
    finite = [v for v in losses if math.isfinite(v)]
    top = 3.0 * max(finite + [epsilon])
    refuse_undrawable("the privacy losses", dict(epsilon=epsilon), 1.15 * top)
    shown = [v if math.isfinite(v) else top for v in losses]
    fig, ax = new_axes(ax)
    colours = [PALETTE["vermillion"] if v > epsilon * (1 + 1e-9) else PALETTE["green"]
               for v in losses]
    x = np.arange(len(names))
    ax.bar(x, shown, color=colours, gid="loss")
    for xi, v, s in zip(x, losses, shown):
        ax.annotate("∞" if not math.isfinite(v) else f"{v:.3g}", (xi, s), ha="center",
                    va="bottom", fontsize="large" if not math.isfinite(v) else "medium")
    ax.axhline(epsilon, color=PALETTE["black"], ls="--", lw=1.5, gid="epsilon",
               label=f"claimed ε = {_fmt(epsilon)}")
    ax.set_ylim(0, 1.15 * top)
    ax.set_xticks(x, names)
    ax.set_ylabel("privacy loss |ln(Pr[S | D] / Pr[S | D′])|")
    ax.set_xlabel("mechanism")
    ax.legend(fontsize="small", loc="upper left")
    ax.set_title(f"Privacy loss of one output event S on neighbouring datasets\n"
                 f"(above the dashed line = the ε claim is false), ε = {_fmt(epsilon)}")
    return fig


def _hist_bins(values: np.ndarray, n: int):
    """``n`` equal bins over the values' range, or explicit edges where float64 cannot.

    NumPy refuses ``n`` bins over a range too narrow to split (equal values near 1e300,
    a spread of a few subnormals); then one bin holds them all.
    """
    lo, hi = float(values.min()), float(values.max())
    edges = np.linspace(lo - 0.5, hi + 0.5, n + 1) if lo == hi else np.linspace(lo, hi, n + 1)
    if np.all(np.diff(edges) > 0):
        return n                                        # NumPy's own bins
    if lo < hi:
        return np.array([lo, hi])
    return np.array([lo, np.nextafter(hi, math.inf)])


def plot_block_estimates(estimates, lower: float, upper: float, released: float | None = None,
                         truth: float | None = None, ax=None):
    """Histogram of subsample-and-aggregate block estimates (**non-private** view).

    Shades the public clipping range [a, b], and marks the private release and
    the non-private full-data statistic when given.

    Returns
    -------
    matplotlib.figure.Figure
        Histogram bars gid ``"blocks"``, lines ``"released"`` and ``"truth"``.
    """
    est = check_array("estimates", estimates, ndim=1)
    lower = check_finite("lower", lower)
    upper = check_finite("upper", upper)
    if not upper > lower:
        raise ParameterError(f"upper must be > lower; got lower={lower!r}, upper={upper!r}")
    if truth is not None:
        truth = check_finite("truth", truth)
    if released is not None:
        released = check_finite("released", released)
    refuse_undrawable("the block estimates", dict(estimates=estimates, lower=lower, upper=upper,
                                                   released=released, truth=truth),
                      est, lower, upper, *(v for v in (released, truth) if v is not None))
    fig, ax = new_axes(ax)
    ax.axvspan(lower, upper, color=PALETTE["sky"], alpha=0.15, label="public range [a, b]")
    ax.hist(est, bins=_hist_bins(est, min(40, max(5, est.size // 3))), color=PALETTE["blue"],
            alpha=0.8, gid="blocks", label=f"{est.size} block estimates (not private)")
    if truth is not None:
        ax.axvline(truth, color=PALETTE["black"], lw=2, ls=":",
                   gid="truth", label=f"full-data statistic {_fmt(truth)}")
    if released is not None:
        ax.axvline(released, color=PALETTE["vermillion"], lw=2.2,
                   gid="released", label=f"private release {_fmt(released)}")
    ax.set_xlabel("statistic value")
    ax.set_ylabel("number of blocks")
    ax.legend(fontsize="small")
    ax.set_title(f"Subsample-and-aggregate: m = {est.size} blocks, clipped to "
                 f"[{_fmt(lower)}, {_fmt(upper)}]\nsensitivity of their mean = (b − a)/m = "
                 f"{_fmt((upper - lower) / est.size)}")
    return fig


def plot_ptr_distance(data, lower: float, upper: float, epsilon: float, delta: float,
                      bounds=None, ax=None):
    """Distance to instability γ(b) of the median versus the proposed bound b.

    Computed by :func:`dpteach.mechanisms.stability.median_distance_to_instability`
    (**non-private**, for teaching). Propose-test-release passes with
    probability ≥ ½ exactly when γ(b) exceeds the threshold ``ln(1/δ)/(ε/2)``
    (dashed line, [DR14]_ Sec 7.2).

    Parameters
    ----------
    data : array_like
        The data set (see :func:`dpteach.mechanisms.stability.median_distance_to_instability`).
    lower, upper : float
        The public range [a, b] of the data, finite, ``lower < upper``.
    epsilon : float
        Finite > 0 (refused when so small that the threshold exceeds 1e200).
    delta : float
        In (0, 1).
    bounds : array_like, optional
        The proposed bounds b ≥ 0, at most 10,000 values; default 200 values
        from 0 to ``upper − lower``.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Step line gid ``"distance"``, threshold line ``"threshold"``.
    """
    lower = check_finite("lower", lower)
    upper = check_finite("upper", upper)
    if not upper > lower:
        raise ParameterError(f"upper must be > lower; got lower={lower!r}, upper={upper!r}")
    epsilon = check_epsilon("epsilon", epsilon)
    delta = check_delta("delta", delta, allow_zero=False)
    if bounds is None:
        bs = np.linspace(0.0, upper - lower, 200)
    else:
        bs = check_array("bounds", bounds, ndim=1)
        if np.any(bs < 0) or np.any((bs > 0) & (bs < 1e-9)) or np.any(bs > 2e15):
            raise ParameterError("bounds must all be 0 or in [1e-9, 2e15] (the domain of "
                                 f"median_distance_to_instability); got bounds={describe(bounds)}")
        if bs.size > BOUNDS_MAX_SIZE:
            raise ParameterError(f"bounds must have at most {BOUNDS_MAX_SIZE} values; got bounds "
                                 f"with {bs.size} values")
    refuse_undrawable("the distance to instability", dict(lower=lower, upper=upper, bounds=bounds),
                      bs)
    # ln(1/δ)/(ε/2), written so that neither a subnormal δ nor a subnormal ε divides by 0
    threshold = -math.log(delta) * 2 / epsilon
    if not threshold <= LOG_AXIS_MAX:                   # drawn on a symlog axis
        raise ParameterError("epsilon is so small that the test threshold ln(1/δ)/(ε/2) exceeds "
                             f"{LOG_AXIS_MAX:.0e}, the range a log axis can show; got "
                             f"epsilon={describe(epsilon)}, delta={describe(delta)}")
    n = np.asarray(data).size
    gam = np.array([robust.median_distance_to_instability(data, b, lower, upper) for b in bs])
    shown = np.where(np.isinf(gam), n + 1, gam)
    fig, ax = new_axes(ax)
    ax.step(bs, shown, where="post", color=PALETTE["blue"], lw=2.2, gid="distance",
            label="γ(b): records to change before LS(median) > b")
    ax.axhline(threshold, color=PALETTE["vermillion"], ls="--", lw=1.8, gid="threshold",
               label=f"test threshold ln(1/δ)/(ε/2) = {threshold:.3g}")
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_ylim(bottom=0.0)
    ax.set_xlabel("proposed bound b on the local sensitivity (data units)")
    ax.set_ylabel("distance to instability γ (records)")
    ax.legend(fontsize="small", loc="upper left")
    ax.set_title(f"Propose-test-release for the median (n = {n}, not private view)\n"
                 f"ε = {_fmt(epsilon)}, δ = {_fmt(delta)}; passes when γ clearly exceeds "
                 "the threshold")
    return fig
