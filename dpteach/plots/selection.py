"""Figures for private selection, sparse vector and stability-based release (notebooks 08 and 09).

Every number is computed by :mod:`dpteach.mechanisms.selection`,
:mod:`dpteach.mechanisms.sparse_vector`, :mod:`dpteach.mechanisms.stability` or
:mod:`dpteach.accounting.composition`; the functions here arrange them as figures.

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

from typing import Any

from .._validation import (DELTA_POSITIVE, EPSILON, SENSITIVITY, VALUE, Domain, ParameterError,
                           array, integer, refuse, validate)
from ..mechanisms import stability as robust, selection, sparse_vector
from ._style import PALETTE
from .figure import TEXT, FigureData, Rule, Series, Span, Text, drawn

__all__ = [
    "selection_probabilities_data", "plot_selection_probabilities",
    "exponential_mechanism_data", "plot_exponential_mechanism",
    "private_median_data", "plot_private_median",
    "private_mode_data", "plot_private_mode",
    "noisy_max_comparison_data", "plot_noisy_max_comparison",
    "svt_vs_composition_data", "plot_svt_vs_composition",
    "event_privacy_loss_data", "plot_event_privacy_loss",
    "block_estimates_data", "plot_block_estimates",
    "ptr_distance_data", "plot_ptr_distance",
]


BARS_MAX = 1_000               #: most bars (candidates) in one selection bar chart
BOUNDS_MAX_SIZE = 10_000       #: most proposed bounds b in plot_ptr_distance
#: The neighbouring relations, in words.
_NEIGHBOURS = {"add_remove": "add/remove", "replace": "replace-one"}

#: what the selection mechanisms take (their own domains), at most one bar per candidate
_EXP = selection.exponential_mechanism_probabilities.__domains__
_MEDIAN = selection.private_median_probabilities.__domains__
_MODE = selection.private_mode_probabilities.__domains__
SCORES = array(ndim=1, low=-1e15, high=1e15, max_size=BARS_MAX, example=[3.0, 1.0, 2.0])
PROBABILITIES = array(ndim=1, low=0.0, high=1.0, max_size=BARS_MAX, example=[0.2, 0.5, 0.3])
NAMES: Domain = Domain("None or a sequence of candidate names", lambda name, value: _names(name, value),
               example=None, edges=(None,), bad=[3, [["a", "b"]]])
SELECTION = dict(sensitivity=_EXP["sensitivity"], epsilon=_EXP["epsilon"],
                 monotonic=_EXP["monotonic"], labels=NAMES)
#: pairs (P[S | D], P[S | D′]) by mechanism
EVENTS: Domain = Domain("a non-empty dict {name: (p, p′)} of probabilities in [0, 1], not both 0",
                lambda name, value: _events(name, value), example={"Laplace": (0.5, 0.2)},
                bad=[{}, {"a": (0.0, 0.0)}, {"a": (1.5, 0.2)}, {"a": "ab"}, 3, None])
ESTIMATES = array(ndim=1, low=-1e15, high=1e15, example=[1.0, 2.0, 2.5])
BOUNDS = array(ndim=1, low=0.0, high=2e15, max_size=BOUNDS_MAX_SIZE, example=[0.0, 1.0, 2.0])


@validate(probabilities=PROBABILITIES, labels=NAMES,
          truth=integer(0, BARS_MAX - 1, example=0).or_none(), title=TEXT, xlabel=TEXT)
def selection_probabilities_data(probabilities, labels=None, truth=None, title: str = "",
                                 xlabel: str = "candidate") -> FigureData:
    """Bar chart of a selection mechanism's output distribution, one bar per candidate.

    Bars ``probabilities`` and, with ``truth`` (the index of the non-private answer),
    ``truth``: that bar again, on top, in a contrasting colour. ``labels`` name the
    candidates (every ⌈k/20⌉-th when k is large).
    """
    p = probabilities
    names = _labels(labels, p.size)
    if truth is not None and truth >= p.size:
        raise refuse("truth", truth, f"a candidate's index, below {p.size}")
    x = np.arange(p.size, dtype=float)
    series = [Series("probabilities", "other candidates" if truth is not None else "", x, p,
                     kind="bars", width=0.8, colour=PALETTE["blue"])]
    if truth is not None:
        series.append(Series("truth", "non-private answer", x[[truth]], p[[truth]],
                             kind="bars", width=0.8, colour=PALETTE["vermillion"]))
    return FigureData(title, xlabel, "probability of being released", series=tuple(series),
                      x_domain=(-0.6, p.size - 0.4),
                      y_domain=(0.0, min(1.0, 1.15 * float(p.max())) if p.max() > 0 else 1.0),
                      x_ticks=_candidate_ticks(names))


plot_selection_probabilities = drawn(selection_probabilities_data)


@validate(scores=SCORES, **SELECTION)
def exponential_mechanism_data(scores, sensitivity: float, epsilon: float, labels=None,
                               monotonic: bool = False) -> FigureData:
    """Output distribution of the exponential mechanism for given scores.

    Probabilities from :func:`dpteach.mechanisms.selection.exponential_mechanism_probabilities`
    (∝ exp(ε·u/(2Δu)), [DR14]_ Def 3.4); the best-scoring candidate is highlighted.
    Returns the :func:`selection_probabilities_data` of them.
    """
    p = selection.exponential_mechanism_probabilities(scores, sensitivity, epsilon, monotonic)
    u = np.asarray(scores, dtype=float)
    rate = "ε·u/Δu" if monotonic else "ε·u/(2Δu)"
    return selection_probabilities_data(
        p, labels, truth=int(np.argmax(u)),
        title=f"Exponential mechanism, Pr ∝ exp({rate})\nε = {_fmt(epsilon)}, "
              f"Δu = {_fmt(sensitivity)}")


plot_exponential_mechanism = drawn(exponential_mechanism_data)


@validate(**_MEDIAN)
def private_median_data(data, candidates, epsilon: float,
                        neighbouring: str = "add_remove") -> FigureData:
    """Distribution of :func:`dpteach.mechanisms.selection.private_median` over its candidates.

    The candidate closest to the (lower) sample median is highlighted. Returns the
    :func:`selection_probabilities_data` of the exact probabilities.
    """
    p = selection.private_median_probabilities(data, candidates, epsilon, neighbouring)
    cand = np.asarray(candidates, dtype=float)
    x = np.sort(np.asarray(data, dtype=float))
    med = x[(x.size + 1) // 2 - 1] if x.size else float(np.median(cand))
    truth = int(np.argmin(np.abs(cand - med)))
    return selection_probabilities_data(
        p, [_fmt(c) for c in cand], truth=truth, xlabel="candidate median",
        title=f"Private median (exponential mechanism, rank score)\nε = {_fmt(epsilon)}, "
              f"n = {x.size}, {cand.size} candidates")


plot_private_median = drawn(private_median_data)


@validate(**_MODE)
def private_mode_data(data, candidates, epsilon: float,
                      neighbouring: str = "add_remove") -> FigureData:
    """Distribution of :func:`dpteach.mechanisms.selection.private_mode` over its candidates.

    The most common candidate is highlighted. Returns the
    :func:`selection_probabilities_data` of the exact probabilities.
    """
    p = selection.private_mode_probabilities(data, candidates, epsilon, neighbouring)
    counts = selection.mode_utility(data, candidates)
    return selection_probabilities_data(
        p, [str(c) for c in candidates], truth=int(np.argmax(counts)),
        xlabel="candidate value",
        title=f"Private mode (exponential mechanism, count score)\n"
              f"ε = {_fmt(epsilon)}, {_NEIGHBOURS.get(neighbouring, neighbouring)} neighbours")


plot_private_mode = drawn(private_mode_data)


@validate(scores=SCORES, **SELECTION)
def noisy_max_comparison_data(scores, sensitivity: float, epsilon: float, labels=None,
                              monotonic: bool = False) -> FigureData:
    """Side-by-side output distributions of three ε-DP selection mechanisms.

    Exponential mechanism (= report-noisy-max with Gumbel noise), report-noisy-max
    with Laplace noise ([DR14]_ Claim 3.9) and with exponential noise
    (= permute-and-flip), all at the same ε, from
    :func:`dpteach.mechanisms.selection.report_noisy_max_probabilities`. Bars ``gumbel``,
    ``laplace`` and ``exponential``, three per candidate.
    """
    series = [("gumbel", "exponential mechanism (Gumbel noise)", PALETTE["blue"]),
              ("laplace", "report-noisy-max, Laplace noise", PALETTE["orange"]),
              ("exponential", "permute-and-flip (exponential noise)", PALETTE["green"])]
    probs = {name: selection.report_noisy_max_probabilities(scores, sensitivity, epsilon,
                                                            monotonic, noise=name)
             for name, _, _ in series}
    k = probs["gumbel"].size
    names = _labels(labels, k)
    x = np.arange(k, dtype=float)
    w = 0.27
    bars = tuple(Series(name, label, x + (j - 1) * w, probs[name], kind="bars", width=w,
                        colour=colour) for j, (name, label, colour) in enumerate(series))
    scale = "Δ/ε" if monotonic else "2Δ/ε"
    return FigureData(f"Three ε-DP ways to pick the best (noise scale {scale})\n"
                      f"ε = {_fmt(epsilon)}, Δ = {_fmt(sensitivity)}",
                      "candidate", "probability of being selected", series=bars,
                      x_domain=(-0.6, k - 0.4), x_ticks=_candidate_ticks(names))


plot_noisy_max_comparison = drawn(noisy_max_comparison_data)


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


@validate(epsilon=EPSILON, k_max=integer(2, 100_000, work=True, example=1000),
          sensitivity=SENSITIVITY, max_above=integer(1, sparse_vector.MAX_ABOVE_MAX, example=1),
          delta=DELTA_POSITIVE.or_none())
def svt_vs_composition_data(epsilon: float, k_max: int = 1000, sensitivity: float = 1.0,
                            max_above: int = 1, delta: float | None = 1e-6) -> FigureData:
    """Noise per query when k threshold queries share a total budget ε.

    * Sparse vector (c = ``max_above`` ⊤ answers, δ = 0): every query gets
      ``Lap(4cΔ/ε)`` however many queries are asked ([DR14]_ Alg. 2).
    * Laplace on every query + basic composition: ``Lap(kΔ/ε)`` ([DR14]_ Thm 3.16).
    * Laplace + advanced composition with slack ``delta`` (if given): per-query
      ε₀ solving ``min(kε₀, √(2k ln(1/δ))ε₀ + kε₀(e^{ε₀} − 1)) = ε``
      ([DR14]_ Thm 3.20), noise ``Lap(Δ/ε₀)``; ``delta=None`` leaves this curve out.

    Lines ``svt``, ``laplace-basic`` and ``laplace-advanced``, k up to ``k_max``.
    """
    kmax, c = k_max, max_above
    ks = np.unique(np.round(np.geomspace(1, kmax, 60)).astype(int))
    _, q_scale = sparse_vector.sparse_vector_noise_scales(epsilon, sensitivity, c)
    basic = ks * sensitivity / epsilon
    adv = None if delta is None else [
        sensitivity / _advanced_per_query_epsilon(epsilon, int(k), delta) for k in ks]
    series = [Series("svt", f"sparse vector, c = {c}: Lap(4cΔ/ε)", ks, np.full(ks.size, q_scale),
                     colour=PALETTE["blue"], width=2.2),
              Series("laplace-basic", "Laplace per query, basic composition: Lap(kΔ/ε)", ks,
                     basic, colour=PALETTE["black"], width=2.2, dash="dotted")]
    if delta is not None and adv is not None:   # adv is None exactly when delta is
        series.append(Series("laplace-advanced",
                             f"Laplace per query, advanced composition (δ = {_fmt(delta)})", ks,
                             adv, colour=PALETTE["orange"], width=2.2, dash="dashed"))
    return FigureData(f"Answering k threshold queries with total budget ε = {_fmt(epsilon)}\n"
                      f"Δ = {_fmt(sensitivity)}; sparse vector stops after c = {c} 'above' "
                      "answers",
                      "number of threshold queries k (log scale)",
                      "Laplace noise scale per query (larger = less accurate)",
                      series=tuple(series), log_x=True, log_y=True, x_integer=True)


plot_svt_vs_composition = drawn(svt_vs_composition_data)


@validate(event_probabilities=EVENTS, epsilon=EPSILON)
def event_privacy_loss_data(event_probabilities: dict, epsilon: float) -> FigureData:
    """Privacy loss ``|ln(p/p′)|`` of one output event for several mechanisms.

    ``event_probabilities`` is ``{mechanism name: (p, p′)}``, the probability of the same
    output event on neighbouring datasets D and D′; ``epsilon`` the ε each claims. Bars
    ``loss`` (an infinite loss drawn at the top, labelled ∞) and ``loss-exceeds`` (those
    above ε); rule ``epsilon``; ``extra["losses"]``.
    """
    names, losses = [], []
    for name, (p, pp) in event_probabilities.items():
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
    shown = np.array([v if math.isfinite(v) else top for v in losses])
    x = np.arange(len(names), dtype=float)
    over = np.array([v > epsilon * (1 + 1e-9) for v in losses])
    series = (Series("loss", "loss within the claim", x, shown, kind="bars", width=0.8,
                     colour=PALETTE["green"]),
              Series("loss-exceeds", "loss above ε: the claim is false", x[over], shown[over],
                     kind="bars", width=0.8, colour=PALETTE["vermillion"]))
    texts = tuple(Text(f"loss-{i}", xi, s, "∞" if not math.isfinite(v) else f"{v:.3g}",
                       large=not math.isfinite(v))
                  for i, (xi, v, s) in enumerate(zip(x, losses, shown)))
    return FigureData(f"Privacy loss of one output event S, claimed ε = {_fmt(epsilon)}\n"
                      "on neighbouring datasets (above the dashed line: the claim is false)",
                      "mechanism", "privacy loss |ln(Pr[S | D] / Pr[S | D′])|",
                      series=series, texts=texts,
                      rules=(Rule("epsilon", "y", epsilon, f"claimed ε = {_fmt(epsilon)}",
                                  PALETTE["black"], "dashed"),),
                      x_domain=(-0.6, len(names) - 0.4), y_domain=(0.0, 1.15 * top),
                      x_ticks=tuple(zip(x, names)), extra={"losses": losses})


plot_event_privacy_loss = drawn(event_privacy_loss_data)


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


@validate(estimates=ESTIMATES, lower=VALUE, upper=VALUE, released=VALUE.or_none(),
          truth=VALUE.or_none())
def block_estimates_data(estimates, lower: float, upper: float, released: float | None = None,
                         truth: float | None = None) -> FigureData:
    """Histogram of subsample-and-aggregate block estimates (**non-private** view).

    Shades the public clipping range [a, b], and marks the private release and
    the non-private full-data statistic when given. Bars ``blocks``, span ``range``,
    rules ``released`` and ``truth``.
    """
    est = estimates
    _public_range(lower, upper)
    counts, edges = np.histogram(est, bins=_hist_bins(est, min(40, max(5, est.size // 3))))
    width = np.diff(edges)
    rules = []
    if truth is not None:
        rules.append(Rule("truth", "x", truth, f"full-data statistic {_fmt(truth)}",
                          PALETTE["black"], "dotted"))
    if released is not None:
        rules.append(Rule("released", "x", released, f"private release {_fmt(released)}",
                          PALETTE["vermillion"], "solid"))
    return FigureData(f"Subsample-and-aggregate: m = {est.size} blocks, clipped to "
                      f"[{_fmt(lower)}, {_fmt(upper)}]\nsensitivity of their mean = (b − a)/m = "
                      f"{_fmt((upper - lower) / est.size)}",
                      "statistic value", "number of blocks",
                      series=(Series("blocks", f"{est.size} block estimates (not private)",
                                     edges[:-1] + width / 2, counts, kind="bars",
                                     width=float(width[0]), colour=PALETTE["blue"],
                                     opacity=0.8),),
                      rules=tuple(rules),
                      spans=(Span("range", "x", lower, upper, "public range [a, b]",
                                  PALETTE["sky"], 0.15),),
                      y_domain=(0.0, 1.1 * max(float(counts.max()), 1.0)), y_integer=True)


plot_block_estimates = drawn(block_estimates_data)


@validate(data=robust.median_distance_to_instability.__domains__["data"], lower=VALUE,
          upper=VALUE, epsilon=EPSILON, delta=DELTA_POSITIVE, bounds=BOUNDS.or_none())
def ptr_distance_data(data, lower: float, upper: float, epsilon: float, delta: float,
                      bounds=None) -> FigureData:
    """Distance to instability γ(b) of the median versus the proposed bound b.

    Computed by :func:`dpteach.mechanisms.stability.median_distance_to_instability`
    (**non-private**, for teaching). Propose-test-release passes with
    probability ≥ ½ exactly when γ(b) exceeds the threshold ``ln(1/δ)/(ε/2)``
    (dashed line, [DR14]_ Sec 7.2). ``[lower, upper]`` is the public range [a, b] of the
    data; ``bounds`` default to 200 values from 0 to b − a. Step line ``distance`` (an
    infinite γ drawn at n + 1) and rule ``threshold``.
    """
    _public_range(lower, upper)
    bs = np.linspace(0.0, upper - lower, 200) if bounds is None else bounds
    if np.any((bs > 0) & (bs < 1e-9)):
        raise refuse("bounds", bs, "0 or ≥ 1e-9 (median_distance_to_instability's bound)")
    threshold = -math.log(delta) * 2 / epsilon      # ln(1/δ)/(ε/2)
    n = np.asarray(data).size
    gam = np.array([robust.median_distance_to_instability.__wrapped__(data, b, lower, upper)
                    for b in bs])
    shown = np.where(np.isinf(gam), n + 1, gam)
    top = max(float(shown.max()), threshold, 1.0)
    return FigureData(f"Propose-test-release for the median (n = {n})\n"
                      f"ε = {_fmt(epsilon)}, δ = {_fmt(delta)}: passes when γ is well above "
                      "the threshold\nγ is read off the data: not a private view",
                      "proposed bound b on the local sensitivity (data units)",
                      "records to change, γ (distance to instability)",
                      series=(Series("distance", "γ(b): records to change before the median's "
                                     "local sensitivity exceeds b", bs, shown, kind="step",
                                     where="post", colour=PALETTE["blue"], width=2.2),),
                      rules=(Rule("threshold", "y", threshold,
                                  f"test threshold ln(1/δ)/(ε/2) = {threshold:.3g}",
                                  PALETTE["vermillion"], "dashed"),),
                      symlog_y=True, y_domain=(0.0, 2.0 * top), y_integer=True)


plot_ptr_distance = drawn(ptr_distance_data)


def _public_range(lower: float, upper: float) -> None:
    """The public range [a, b] of the data: a < b."""
    if not upper > lower:
        raise refuse("upper", upper, f"> lower = {lower!r}")


def _candidate_ticks(names: list[str]) -> tuple:
    """A tick under every candidate, or every ⌈k/20⌉-th when there are many (readable)."""
    step = max(1, math.ceil(len(names) / 20))
    return tuple((float(i), names[i]) for i in range(0, len(names), step))


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def _labels(labels, k: int) -> list[str]:
    if labels is None:
        return [str(i) for i in range(k)]
    out = [str(v) for v in labels]
    if len(out) != k:
        raise refuse("labels", out, f"one entry per candidate ({k})")
    return out


def _names(name: str, value: Any) -> list[str] | None:
    """None, or the names (a string: one name per character)."""
    if value is None or (isinstance(value, (str, list, tuple, np.ndarray)) and np.ndim(value) <= 1):
        return None if value is None else [str(v) for v in value]
    raise NAMES.refuse(name, value)


_PAIR: Domain = array(ndim=1, min_size=2, max_size=2, low=0.0, high=1.0)


def _events(name: str, value: Any) -> dict:
    """The pairs as floats; each in [0, 1], not both 0."""
    try:
        pairs = {key: tuple(map(float, _PAIR(name, pair))) for key, pair in value.items()}
    except (AttributeError, ParameterError):
        pairs = {}
    if not pairs or any(p + q == 0 for p, q in pairs.values()):
        raise EVENTS.refuse(name, value)
    return pairs
