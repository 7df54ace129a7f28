"""Figures of a PATE run on many queries: teacher agreement, per-query costs, accuracy vs ε.

Notebook 12 trains teachers on Adult and answers a student's queries; these figures show the
run as a whole (one query at a time is :mod:`dpteach.plots.pate`, the app page's figures).
``votes`` is a batch of vote histograms, shape (queries, classes)
(:data:`dpteach.pate.teachers.VOTES`).

References
----------
.. [PSMRTE18] N. Papernot, S. Song, I. Mironov, A. Raghunathan, K. Talwar, Ú. Erlingsson.
   "Scalable private learning with PATE." ICLR 2018 (arXiv:1802.08908): Thm 6 (data-dependent
   RDP), Prop. 8 (data-independent GNMax RDP).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import PROBABILITY, SCALE, Domain, array, integer, refuse, validate
from ..pate.aggregators import THRESHOLD
from ..pate.analysis import ANSWERED, ORDER, gnmax_rdp, gnmax_rdp_data_independent
from ..pate.teachers import MAX_QUERIES, VOTES
from ._style import CYCLE, PALETTE, refuse_undrawable, refuse_undrawable_log
from .figure import FigureData, Rule, Series, drawn

__all__ = [
    "MAX_CURVES", "MAX_CURVE_POINTS",
    "teacher_agreement_data", "plot_teacher_agreement", "query_costs_data", "plot_query_costs",
    "accuracy_vs_epsilon_data", "plot_accuracy_vs_epsilon",
]

#: Most curves of :func:`accuracy_vs_epsilon_data` (one palette colour each).
MAX_CURVES = 7
#: Most points of one curve of :func:`accuracy_vs_epsilon_data`.
MAX_CURVE_POINTS = 1000


def _batch(name, value):
    votes = VOTES(name, value)
    if votes.ndim == 2:
        return votes
    raise BATCH.refuse(name, value)


#: a batch of vote histograms, one row per query
BATCH = Domain("a batch of vote histograms, shape (queries, classes), " + VOTES.text[
    VOTES.text.index("of whole-number"):], _batch, example=[[7, 2, 1], [3, 5, 2]],
    edges=[e for e in VOTES.edges if np.ndim(e) == 2], bad=[*VOTES.bad, [7, 2, 1]])
BINS = integer(1, 200, example=25)


def _mask(name, value):
    try:
        arr = None if value is None or isinstance(value, (str, bytes, dict)) else np.asarray(value)
    except (TypeError, ValueError):                       # ragged nested lists
        arr = None
    if value is None or (arr is not None and arr.dtype == bool and arr.ndim == 1
                         and arr.size <= MAX_QUERIES):
        return arr
    raise MASK.refuse(name, value)


#: which queries: None, or True/False per query (a list, an array or a pandas Series)
MASK = Domain("None or a 1-D boolean mask, one entry per query (a list, array or pandas "
              "Series of True/False)", _mask, edges=(None,), bad=ANSWERED.bad)


def _per_query(name: str, mask, votes) -> None:
    if mask is not None and mask.shape[0] != votes.shape[0]:
        raise refuse(name, mask, f"one entry per query ({votes.shape[0]})")


#: ε of a learner's run (a log axis)
_EPSILONS = array(ndim=1, low=1e-6, high=1e6, max_size=MAX_CURVE_POINTS)
_ACCURACIES = array(ndim=1, low=0.0, high=1.0, max_size=MAX_CURVE_POINTS)


def _curves(name, value):
    if isinstance(value, dict) and 1 <= len(value) <= MAX_CURVES:
        out = {}
        for label, pair in value.items():
            if not (isinstance(label, str) and label and isinstance(pair, (tuple, list))
                    and len(pair) == 2):
                break
            eps, acc = _EPSILONS(name, pair[0]), _ACCURACIES(name, pair[1])
            if eps.shape != acc.shape:
                break
            out[label] = (eps, acc)
        else:
            return out
    raise CURVES.refuse(name, value)


#: learners' curves: label → (ε's, accuracies)
CURVES = Domain(f"a dict of 1 to {MAX_CURVES} curves, non-empty label → (epsilons, accuracies): "
                f"1 to {MAX_CURVE_POINTS} ε's in [1e-06, 1000000] and as many accuracies in "
                "[0, 1]", _curves, example={"PATE": ([1.0, 2.0], [0.8, 0.9])},
                bad=[None, {}, [([1.0], [0.5])], {"": ([1.0], [0.5])}, {"a": ([1.0], [1.5])},
                     {"a": ([0.0], [0.5])}, {"a": ([1.0, 2.0], [0.5])}, {"a": [1.0]}])
_AGREEMENT = dict(votes=BATCH, correct=MASK, threshold=THRESHOLD.or_none(), bins=BINS)
_COSTS = dict(votes=BATCH, sigma2=SCALE, order=ORDER, answered=MASK,
              bins=integer(1, 200, example=30))


@validate(**_AGREEMENT)
def teacher_agreement_data(votes, correct=None, threshold: float | None = None,
                           bins: int = 25) -> FigureData:
    """How much the teachers agree: a histogram of the plurality's votes over many queries.

    A query's plurality count max_j n_j is what Confident-GNMax's threshold step compares with
    T ([PSMRTE18]_, Alg. 1), and what makes its data-dependent cost small (Prop. 7, Thm 6).
    With ``correct`` (whether the plurality is the query's true label, which a deployment does
    not know but a teaching data set does) the wrong pluralities are drawn in front of the
    bars, so each bar shows how many of its queries the plurality gets wrong. **The votes are
    not private**: the figure is for teaching, not for release.

    Bars ``queries`` and ``wrong``; rule ``threshold`` (T). ``extra``: ``top`` (the
    plurality counts), ``share`` (top / row total), ``edges``, ``counts``, ``wrong`` (per
    bin, or None), ``accuracy`` (of the plurality, or None), ``teachers`` (the largest row
    total).
    """
    v, mask = votes, correct
    _per_query("correct", mask, v)
    top, total = v.max(axis=1), v.sum(axis=1)
    lo, hi = float(top.min()), float(top.max())
    if hi - lo < 1.0:
        lo, hi = lo - 0.5, hi + 0.5
    ends = (lo, hi) if threshold is None else (min(lo, threshold), max(hi, threshold))
    pad = 0.04 * (ends[1] - ends[0])
    refuse_undrawable("the agreement histogram", dict(votes=votes, threshold=threshold),
                      ends[0] - pad, ends[1] + pad, v.shape[0] * 1.1)
    edges = np.linspace(lo, hi, bins + 1)
    counts = np.histogram(top, edges)[0]
    centres, width = 0.5 * (edges[1:] + edges[:-1]), 0.9 * (edges[1] - edges[0])
    series = [Series("queries", "all queries" if mask is None else "plurality right",
                     centres, counts, kind="bars", width=width, colour=PALETTE["blue"])]
    wrong = accuracy = None
    if mask is not None:
        wrong = np.histogram(top[~mask], edges)[0]
        accuracy = float(mask.mean())
        series.append(Series("wrong", "plurality wrong", centres, wrong, kind="bars",
                             width=width, colour=PALETTE["vermillion"]))
    rules = () if threshold is None else (
        Rule("threshold", "x", threshold, f"threshold T = {threshold:g}", PALETTE["black"],
             "dashed"),)
    teachers = float(total.max())
    share = np.divide(top, total, out=np.zeros_like(top), where=total > 0)
    note = "" if accuracy is None else f"\nthe plurality is right on {accuracy:.1%} of them"
    return FigureData(
        f"Agreement of {teachers:,.0f} teachers on {v.shape[0]:,} queries\n"
        f"median plurality: {np.median(share):.0%} of the votes{note}",
        "votes for the plurality class", "number of queries", series=tuple(series),
        rules=rules, x_domain=(ends[0] - pad, ends[1] + pad),
        y_domain=(0.0, 1.1 * max(float(counts.max()), 1.0)), x_integer=True, y_integer=True,
        extra={"top": top, "share": share, "edges": edges, "counts": counts, "wrong": wrong,
               "accuracy": accuracy, "teachers": teachers})


plot_teacher_agreement = drawn(teacher_agreement_data)


@validate(**_COSTS)
def query_costs_data(votes, sigma2: float, order: float, answered=None,
                     bins: int = 30) -> FigureData:
    """What each query's GNMax answer costs, data-dependent, against the data-independent cost.

    For each query, the data-dependent RDP of its GNMax answer at order λ
    (:func:`dpteach.pate.analysis.gnmax_rdp`: Thm 6 of [PSMRTE18]_ with the bound q̃ of
    Prop. 7) divided by the data-independent λ/σ₂² (Prop. 8), as a histogram of log₁₀ of that
    ratio (≤ 0: the bound never exceeds λ/σ₂²). Queries on which the teachers agree cost a tiny
    fraction. With ``answered`` (Confident-GNMax's answered queries) the two groups are drawn
    side by side; unanswered queries show what GNMax *would* have cost. A cost of exactly 0
    (q̃ = 0) is counted in the first bin. **Data-dependent, so not publishable.**

    Bars ``answered`` and ``not answered`` (or ``queries``); rule ``data-independent``.
    ``extra``: ``ratio`` and ``rdp`` (per query), ``data_independent`` (λ/σ₂²), ``edges``,
    ``counts`` (series key → counts), ``order``.
    """
    v, mask = votes, answered
    _per_query("answered", mask, v)
    rdp = gnmax_rdp([order], v, sigma2)[:, 0]
    independent = float(gnmax_rdp_data_independent([order], sigma2)[0])
    refuse_undrawable_log("the data-independent cost λ/σ₂²",
                          dict(sigma2=sigma2, order=order), independent, limit=math.inf)
    with np.errstate(divide="ignore", over="ignore", under="ignore"):
        ratio = np.minimum(rdp / independent, 1.0)
        logs = np.log10(ratio)
    finite = logs[np.isfinite(logs)]
    low = min(float(finite.min()), -1.0) if finite.size else -1.0
    edges = np.linspace(low, 0.0, bins + 1)
    logs = np.clip(np.where(np.isfinite(logs), logs, low), low, 0.0)
    groups = {"queries": np.ones(v.shape[0], dtype=bool)} if mask is None else \
        {"answered": mask, "not answered": ~mask}
    step = edges[1] - edges[0]
    centres = 0.5 * (edges[1:] + edges[:-1])
    colours = {"queries": PALETTE["blue"], "answered": PALETTE["blue"],
               "not answered": PALETTE["orange"]}
    counts, series = {}, []
    for i, (key, rows) in enumerate(groups.items()):
        counts[key] = np.histogram(logs[rows], edges)[0]
        shift = 0.0 if mask is None else (i - 0.5) * 0.45 * step
        series.append(Series(key, key, centres + shift, counts[key], kind="bars",
                             width=(0.9 if mask is None else 0.45) * step,
                             colour=colours[key]))
    some = mask is not None and bool(mask.any())
    median = float(np.median(ratio[mask] if some else ratio))
    which = " answered" if some else ""
    return FigureData(
        f"Each query's GNMax cost at λ = {order:g}, σ₂ = {sigma2:g}\n"
        f"median{which} query: {median:.2g} × λ/σ₂²\n(data-dependent: not publishable)",
        "log₁₀(data-dependent RDP / data-independent λ/σ₂²)", "number of queries",
        series=tuple(series),
        rules=(Rule("data-independent", "x", 0.0, "data-independent: λ/σ₂²", PALETTE["black"],
                    "dashed"),),
        x_domain=(low - step, float(step)), y_domain=(0.0, 1.1 * max(max(c.max() for c in
                                                                  counts.values()), 1)),
        y_integer=True,
        extra={"ratio": ratio, "rdp": rdp, "data_independent": independent, "edges": edges,
               "counts": counts, "order": order})


plot_query_costs = drawn(query_costs_data)


@validate(curves=CURVES, baseline=PROBABILITY.or_none())
def accuracy_vs_epsilon_data(curves, baseline: float | None = None) -> FigureData:
    """Test accuracy against ε (log axis) for several learners, with a non-private line.

    ``curves`` maps a label to ``(epsilons, accuracies)``: say in the label which ε it is
    (e.g. data-dependent PATE ε, which is not publishable, or (ε, δ) vs pure ε). Series
    ``curve-i`` and ``curve-i-points`` per curve i; rule ``baseline``.
    """
    series, shown = [], []
    for i, (label, (eps, acc)) in enumerate(curves.items()):
        order = np.argsort(eps, kind="stable")
        colour = CYCLE[i % len(CYCLE)]
        series += [Series(f"curve-{i}", label, eps[order], acc[order], colour=colour),
                   Series(f"curve-{i}-points", "", eps[order], acc[order], kind="points",
                          colour=colour)]
        shown.append(eps)
    refuse_undrawable_log("the ε values", dict(curves=curves), *shown)
    rules = () if baseline is None else (
        Rule("baseline", "y", baseline, f"non-private: {baseline:.3f}", PALETTE["black"],
             "dashed"),)
    return FigureData("Test accuracy against the privacy spent", "ε (log scale)",
                      "test accuracy", series=tuple(series), rules=rules, log_x=True)


plot_accuracy_vs_epsilon = drawn(accuracy_vs_epsilon_data)
