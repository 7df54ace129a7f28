"""Figures for PATE: one query's votes, where its noisy answer falls, and what it costs.

The app page "PATE votes" and notebook 12 show one vote histogram ``n`` (one public query
answered by an ensemble of teachers, [PAEGT17]_) three ways: the votes, the exact
distribution of the aggregator's answer, and the expected ε-cost of k such queries. **The
data-dependent cost is a function of the votes, so of the private data: it may not be
published as is** (the sanitised ε of :mod:`dpteach.pate.release` may). The figures of a
whole run on many queries are in :mod:`dpteach.plots.pate_runs`.

References
----------
.. [PAEGT17] N. Papernot, M. Abadi, Ú. Erlingsson, I. Goodfellow, K. Talwar. "Semi-supervised
   knowledge transfer for deep learning from private training data." ICLR 2017
   (arXiv:1610.05755): teachers and their vote histograms (Sec. 2.1-2.2).
.. [PSMRTE18] N. Papernot, S. Song, I. Mironov, A. Raghunathan, K. Talwar, Ú. Erlingsson.
   "Scalable private learning with PATE." ICLR 2018 (arXiv:1802.08908): GNMax (Sec. 4.1),
   Confident-GNMax (Alg. 1), Thm 6 (data-dependent RDP), Prop. 7 (q̃), Prop. 8
   (data-independent GNMax RDP).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import (DELTA_POSITIVE, PROBABILITY, SCALE, array, choice, integer,
                           refuse, validate)
from ..accounting.convert import rdp_to_epsilon
from ..pate.aggregators import THRESHOLD
from ..pate.analysis import (DEFAULT_PATE_ORDERS, gnmax_log_q, pate_expected_cost,
                             threshold_log_pr_answered)
from ..pate.teachers import MAX_QUERIES, N_TEACHERS
from ..pate.answers import confident_gnmax_answer_probabilities, gnmax_answer_probabilities
from ._style import PALETTE, refuse_undrawable, refuse_undrawable_log
from .figure import FigureData, Rule, Series, drawn

__all__ = [
    "VOTE_PRESETS", "REST_CHOICES", "MAX_BAR_CLASSES", "K_MAX_LIMIT", "agreement_votes",
    "vote_histogram_data", "plot_vote_histogram",
    "answer_distribution_data", "plot_answer_distribution",
    "pate_privacy_data", "plot_pate_privacy",
]

#: How the teachers who do not vote for the plurality class vote (:func:`agreement_votes`).
REST_CHOICES = ("spread", "runner-up")
#: The page's presets: name → (agreement, rest) for :func:`agreement_votes`.
VOTE_PRESETS = {
    "unanimous": (1.0, "spread"),
    "clear winner": (0.8, "spread"),
    "split": (0.55, "runner-up"),
    "tie": (0.5, "runner-up"),
}
#: Most classes a bar chart of one histogram shows (beyond that the bars are unreadable).
MAX_BAR_CLASSES = 100
#: Largest number of queries k of :func:`pate_privacy_data` (and of ``mark_k``).
K_MAX_LIMIT = MAX_QUERIES
#: Points of the k grid of :func:`pate_privacy_data` (log-spaced; each costs one conversion).
_K_POINTS = 120
_BAR = 0.38                       # width of one of two bars side by side (x units)

#: one vote histogram, drawn as bars
HISTOGRAM = array(ndim=1, low=0, high=2**53 - 1, integers=True, min_size=2,
                  max_size=MAX_BAR_CLASSES, example=[7, 2, 1])
_ANSWER = dict(votes=HISTOGRAM, threshold=THRESHOLD, sigma1=SCALE, sigma2=SCALE)
_PRIVACY = dict(_ANSWER, delta=DELTA_POSITIVE, k_max=integer(2, K_MAX_LIMIT, example=10_000,
                                                               work=True),
                mark_k=integer(1, K_MAX_LIMIT, work=True).or_none())


# ------------------------------------------------------------------------- histograms
@validate(n_teachers=N_TEACHERS, n_classes=integer(2, MAX_BAR_CLASSES, example=3),
          agreement=PROBABILITY, rest=choice(*REST_CHOICES))
def agreement_votes(n_teachers: int, n_classes: int, agreement: float,
                    rest: str = "spread") -> np.ndarray:
    """An illustrative vote histogram: a share ``agreement`` of the teachers for class 0.

    Class 0 gets ``round(agreement × n_teachers)`` votes (halves rounded up); the other
    teachers vote

    * ``rest="spread"``: as evenly as possible for classes 1, …, k−1 (the first classes get
      the one vote more when the division is not exact);
    * ``rest="runner-up"``: all for class 1.

    Class 0 must stay a plurality (ties allowed: ``agreement = 0.5`` with ``"runner-up"`` is
    a tie between classes 0 and 1, ``agreement = 1/k`` with ``"spread"`` a k-way tie when
    k − 1 divides the rest), so ``agreement`` must be at least about ½ (runner-up) or 1/k
    (spread), else ParameterError. The presets of the app are :data:`VOTE_PRESETS`.

    Returns
    -------
    numpy.ndarray of int64, shape (n_classes,)
        The votes; they sum to ``n_teachers`` and class 0 has the most (or tied most).
    """
    top = min(n_teachers, int(math.floor(agreement * n_teachers + 0.5)))
    votes = np.zeros(n_classes, dtype=np.int64)
    votes[0] = top
    others = n_teachers - top
    if rest == "runner-up":
        votes[1] = others
    else:
        share, extra = divmod(others, n_classes - 1)
        votes[1:] = share
        votes[1:1 + extra] += 1
    if votes[1:].max() > top:
        need = "½" if rest == "runner-up" else f"1/{n_classes}"
        raise refuse("agreement", agreement, f"≳ {need} with rest={rest!r} (class 0 the plurality)")
    return votes


def _class_ticks(k: int) -> tuple:
    """Class j under its bar at x = j: every class up to 20, else every ⌈k/20⌉-th."""
    step = max(1, math.ceil(k / 20))
    return tuple((float(j), str(j)) for j in range(0, k, step))


def _count(x: float) -> str:
    return f"{x:,.0f}" if x < 1e15 else f"{x:.4g}"


@validate(votes=HISTOGRAM, threshold=THRESHOLD.or_none())
def vote_histogram_data(votes, threshold: float | None = None) -> FigureData:
    """The teachers' votes on one query, as bars, with the threshold T of Confident-GNMax
    (it answers only if max n + N(0, σ₁²) ≥ T, [PSMRTE18]_ Alg. 1).

    Bars ``plurality`` (the first class with the most votes) and ``votes`` (the others);
    rule ``threshold``. ``extra``: ``teachers`` (total votes), ``plurality`` (its class),
    ``top`` (its votes), ``runner_up`` (the second-highest count).
    """
    v = votes
    k = v.size
    top_class = int(np.argmax(v))
    top = float(v[top_class])
    runner_up = float(np.max(np.delete(v, top_class)))
    total = float(v.sum())
    high = max(top, threshold or 0.0, 1.0) * 1.1
    refuse_undrawable("the vote histogram", dict(votes=votes, threshold=threshold), high)
    x = np.arange(k, dtype=float)
    others = np.arange(k) != top_class
    series = (
        Series("plurality", f"plurality: class {top_class}", x[[top_class]], v[[top_class]],
               kind="bars", width=0.8, colour=PALETTE["blue"]),
        Series("votes", "other classes", x[others], v[others], kind="bars", width=0.8,
               colour=PALETTE["sky"]),
    )
    rules = () if threshold is None else (
        Rule("threshold", "y", threshold, f"threshold T = {threshold:g}", PALETTE["vermillion"],
             "dashed"),)
    share = top / total if total > 0 else 0.0
    return FigureData(
        f"Votes of {_count(total)} teachers on one query ({k} classes)\n"
        f"plurality class {top_class}: {_count(top)} votes ({share:.0%}), "
        f"runner-up {_count(runner_up)}",
        "class", "number of teachers' votes", series=series, rules=rules,
        x_domain=(-0.6, k - 0.4), y_domain=(0.0, high), x_ticks=_class_ticks(k),
        y_integer=True,
        extra={"teachers": total, "plurality": top_class, "top": top, "runner_up": runner_up})


plot_vote_histogram = drawn(vote_histogram_data)


# ------------------------------------------------------------------- the noisy answer
@validate(**_ANSWER)
def answer_distribution_data(votes, threshold: float, sigma1: float,
                             sigma2: float) -> FigureData:
    """The exact distribution of the answer to one query: Confident-GNMax and GNMax alone.

    Confident-GNMax ([PSMRTE18]_, Alg. 1) answers only if max n + N(0, σ₁²) ≥ T, and then
    with the argmax of n + N(0, σ₂²) (GNMax, Sec. 4.1); GNMax alone always answers. The
    probabilities are exact (one integral per class,
    :func:`dpteach.pate.answers.confident_gnmax_answer_probabilities` and
    :func:`dpteach.pate.answers.gnmax_answer_probabilities`); the probability that the
    threshold passes is :func:`dpteach.pate.analysis.threshold_log_pr_answered`, and q̃ the
    bound of Prop. 7 on Pr[GNMax ≠ plurality] that the privacy analysis uses
    (:func:`dpteach.pate.analysis.gnmax_log_q`).

    Bars ``confident`` (each class, left), ``no-answer`` (after the last class) and
    ``gnmax`` (right). ``extra``: ``confident``, ``gnmax`` (the probability arrays),
    ``no_answer``, ``p_answer`` (= 1 − no_answer), ``plurality`` (class), ``q_bound`` (q̃).
    """
    v = votes
    confident, no_answer = confident_gnmax_answer_probabilities(v, threshold, sigma1, sigma2)
    gn = gnmax_answer_probabilities(v, sigma2)
    p_answer = math.exp(threshold_log_pr_answered(v, threshold, sigma1))
    q_bound = math.exp(gnmax_log_q(v, sigma2))
    k = v.size
    top_class = int(np.argmax(v))
    x = np.arange(k, dtype=float)
    series = (
        Series("confident", f"Confident-GNMax (T = {threshold:g}, σ₁ = {sigma1:g}, "
               f"σ₂ = {sigma2:g})", x - 0.2, confident, kind="bars", width=_BAR,
               colour=PALETTE["blue"]),
        Series("no-answer", "Confident-GNMax: no answer", [k - 0.2], [no_answer], kind="bars",
               width=_BAR, colour=PALETTE["black"]),
        Series("gnmax", f"GNMax alone (σ₂ = {sigma2:g})", x + 0.2, gn, kind="bars", width=_BAR,
               colour=PALETTE["orange"]),
    )
    return FigureData(
        f"Where the noisy answer falls: P(threshold passes) = {p_answer:.3g}\n"
        f"GNMax alone: P(plurality, class {top_class}) = {gn[top_class]:.3g}",
        "the aggregator's answer (class, or no answer)", "probability", series=series,
        x_domain=(-0.6, k + 0.4), y_domain=(0.0, 1.05),
        x_ticks=_class_ticks(k) + ((float(k), "no answer"),),
        extra={"confident": np.asarray(confident), "gnmax": np.asarray(gn),
               "no_answer": float(no_answer), "p_answer": p_answer, "plurality": top_class,
               "q_bound": q_bound})


plot_answer_distribution = drawn(answer_distribution_data)


# ------------------------------------------------------------------------- the privacy
def _query_grid(k_max: int, mark_k: int | None) -> np.ndarray:
    ks = np.geomspace(1, k_max, _K_POINTS).round()
    extra = [k_max] + ([mark_k] if mark_k is not None else [])
    return np.unique(np.concatenate([ks, extra])).astype(np.int64)


def _epsilons(rdp: np.ndarray, ks: np.ndarray, delta: float) -> np.ndarray:
    """Expected ε-cost of k identical queries for every k: RDP adds up (k·r(λ) at each order
    λ), then the classic conversion at the best order
    (:func:`dpteach.accounting.convert.rdp_to_epsilon`, as
    :func:`dpteach.pate.analysis.pate_expected_cost`)."""
    with np.errstate(over="ignore"):
        return np.array([rdp_to_epsilon(DEFAULT_PATE_ORDERS, k * rdp, delta,
                                        conversion="classic")[0] for k in ks])


@validate(**_PRIVACY)
def pate_privacy_data(votes, threshold: float, sigma1: float, sigma2: float,
                      delta: float = 1e-5, k_max: int = 10_000,
                      mark_k: int | None = None) -> FigureData:
    """Expected ε-cost of k Confident-GNMax queries with these votes, against k (log–log),
    two ways: a forecast, not an ε.

    Each query pays the threshold step and, with the probability that it passes, GNMax
    (the expected cost of [PSMRTE18]_'s tables,
    :func:`dpteach.pate.analysis.pate_expected_cost`); k identical queries add their RDP
    curves, and the total is converted at the best of
    :data:`~dpteach.pate.analysis.DEFAULT_PATE_ORDERS` with the classic conversion, so the
    value at k equals ``pate_expected_cost(...).expected_cost`` of k copies of ``votes``.
    The guarantee of a run is its ε in the answered convention
    (:func:`dpteach.pate.analysis.pate_epsilon` with ``answered``).

    * data-independent: the curves λ/(2σ₁²) (threshold) and λ/σ₂² (GNMax, Prop. 8);
    * data-dependent: Thm 6 with the bound q̃ of Prop. 7 — much smaller when the teachers
      agree. It depends on the votes, so **it is not publishable as is**.

    Series ``data-independent`` and ``data-dependent`` (0 where the RDP is so small that
    (0, δ) holds — left out of the log axis), rule ``mark_k`` (the curves pass through it,
    beyond ``k_max`` too); about 120 log-spaced k's are computed. ``extra``: ``ks``,
    ``per_query`` and, with ``mark_k``, ``at_mark`` (each a dict way → ε), ``rdp`` (way →
    the per-query RDP curve), ``orders``, ``p_answer``.
    """
    v = votes
    args = dict(votes=votes, threshold=threshold, sigma1=sigma1, sigma2=sigma2, delta=delta,
                k_max=k_max, mark_k=mark_k)
    orders = np.asarray(DEFAULT_PATE_ORDERS)
    rdp = {way: pate_expected_cost(v, threshold=threshold, sigma1=sigma1, sigma2=sigma2,
                                   delta=delta, data_dependent=(way == "data-dependent")).rdp
           for way in ("data-independent", "data-dependent")}
    ks = _query_grid(k_max, mark_k)
    curves = {way: _epsilons(r, ks, delta) for way, r in rdp.items()}
    refuse_undrawable_log("the total expected ε-costs", args, *curves.values())
    p_answer = math.exp(threshold_log_pr_answered(v, threshold, sigma1))
    labels = {"data-independent": "expected ε-cost, data-independent: λ/(2σ₁²) + "
                                  "P(answer)·λ/σ₂² per query",
              "data-dependent": "expected ε-cost, data-dependent (Thm 6 on the votes: not "
                                "publishable)"}
    style = {"data-independent": (PALETTE["blue"], "dashed"),
             "data-dependent": (PALETTE["vermillion"], "solid")}
    series = tuple(Series(way, labels[way], ks, curves[way], colour=style[way][0],
                          dash=style[way][1], width=2.2) for way in curves)
    rules = () if mark_k is None else (
        Rule("mark_k", "x", mark_k, f"k = {mark_k:,} queries", PALETTE["black"], "dotted"),)
    extra = {"ks": ks, "per_query": {w: float(c[0]) for w, c in curves.items()},
             "rdp": rdp, "orders": orders, "p_answer": p_answer}
    if mark_k is not None:
        j = int(np.searchsorted(ks, mark_k))
        extra["at_mark"] = {w: float(c[j]) for w, c in curves.items()}
    return FigureData(
        f"Expected ε-cost of k such queries (a forecast, not an ε)\n"
        f"δ = {delta:g}; T = {threshold:g}, σ₁ = {sigma1:g}, σ₂ = {sigma2:g}; "
        f"P(threshold passes) = {p_answer:.3g}",
        "number of queries k (log scale)", "total expected ε-cost (log scale)", series=series,
        rules=rules,
        log_x=True, log_y=True, x_integer=True, extra=extra)


plot_pate_privacy = drawn(pate_privacy_data)
