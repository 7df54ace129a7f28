"""Figures for the definition of differential privacy: events, beliefs and tests.

Three readings of (ε, δ)-DP ([DR14]_ Def. 2.4), one figure each: the probability of an
event, an observer's belief, and the rates of a test.

References
----------
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014.
.. [KS14] S. P. Kasiviswanathan and A. Smith. On the 'semantics' of differential
   privacy: a Bayesian formulation. Journal of Privacy and Confidentiality 6(1), 2014.
.. [WZ10] L. Wasserman and S. Zhou. A statistical framework for differential privacy.
   JASA 105(489), 2010.
.. [KOV15] P. Kairouz, S. Oh and P. Viswanath. The composition theorem for differential
   privacy. ICML 2015 (Theorem 2.1).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import DELTA, EPSILON, PROBABILITY, array, real, refuse, validate
from ..attacks.roc import dp_roc_bound
from ..mechanisms.definition import laplace_event_probability, posterior_bound
from ._style import PALETTE
from .figure import TEXT, FigureData, Series, drawn

__all__ = ["event_probabilities_data", "plot_event_probabilities", "posterior_bound_data",
           "plot_posterior_bound", "dp_test_region_data", "plot_dp_test_region"]

#: ε of a figure: from barely private to a release that hides little
FIGURE_EPSILON = real(0.01, 20.0, example=1.0)
#: counts, and the ends of the event, on the figure's axis
COUNT = real(-1e6, 1e6, example=4.0)
#: a ROC curve's rates (both or neither)
RATES = array(ndim=1, low=0.0, high=1.0, min_size=2, max_size=100_000,
              example=[0.0, 0.5, 1.0]).or_none()


@validate(epsilon=FIGURE_EPSILON, low=COUNT, high=COUNT, count=COUNT, count_prime=COUNT)
def event_probabilities_data(epsilon: float, low: float, high: float, count: float = 4.0,
                             count_prime: float = 3.0) -> FigureData:
    """The Laplace count on two neighbouring datasets, and the probability of one event.

    M releases a count plus Lap(1/ε) noise (sensitivity 1). On D the true count is
    ``count``, on its neighbour D′ ``count_prime``; the event is S = (low, high]. The title
    gives P[M(D) ∈ S], P[M(D′) ∈ S] and their ratio, at most e^{|count − count′|·ε}
    (:func:`dpteach.mechanisms.definition.laplace_event_probability`).

    Series ``density-d``, ``density-d-prime`` and the bands ``event-d``,
    ``event-d-prime`` (the event's area under each, when in view); ``extra``: ``p``,
    ``p_prime``, ``ratio`` (the larger over the smaller) and ``bound``.
    """
    if not low < high:
        raise refuse("low", low, f"below high={high!r} (the event (low, high])")
    if abs(count - count_prime) * epsilon > 700:            # e^{kε} beyond the float range
        raise refuse("count_prime", count_prime, f"within 700/ε of count={count!r} (e^(kε) finite)")
    scale = 1.0 / epsilon
    log_p = laplace_event_probability(low, high, count, 1.0, epsilon, log=True)
    log_q = laplace_event_probability(low, high, count_prime, 1.0, epsilon, log=True)
    ratio, bound = math.exp(abs(log_p - log_q)), math.exp(abs(count - count_prime) * epsilon)
    left, right = min(count, count_prime) - 6 * scale, max(count, count_prime) + 6 * scale
    x = np.union1d(np.linspace(left, right, 601), [v for v in (low, high) if left < v < right])
    series = []
    for key, centre, label, colour, dash in (
            ("d", count, f"M(D): true count {count:g}", PALETTE["blue"], "solid"),
            ("d-prime", count_prime, f"M(D′): true count {count_prime:g}", PALETTE["orange"],
             "dashed")):
        density = np.exp(-np.abs(x - centre) / scale) / (2 * scale)
        series.append(Series(f"density-{key}", label, x, density, colour=colour, dash=dash))
        inside = (x >= low) & (x <= high)
        if inside.sum() >= 2:
            series.append(Series(f"event-{key}", "the event S" if key == "d" else "", x[inside],
                                 np.zeros(inside.sum()), kind="band", y2=density[inside],
                                 colour=colour, opacity=0.25))
    p, q = math.exp(log_p), math.exp(log_q)
    k = abs(count - count_prime)
    power = "e^ε" if k == 1 else f"e^({k:g}ε)"
    title = (f"Laplace count, ε = {epsilon:g}: P[M(D) ∈ S] = {p:.3g}, P[M(D′) ∈ S] = {q:.3g}\n"
             f"one is {ratio:.3g}× the other; {power} = {bound:.3g}× is the most DP allows")
    return FigureData(title, "released count", "probability density", series=tuple(series),
                      x_domain=(float(left), float(right)),
                      extra={"p": p, "p_prime": q, "ratio": ratio, "bound": bound})


plot_event_probabilities = drawn(event_probabilities_data)


@validate(epsilon=FIGURE_EPSILON, prior=PROBABILITY)
def posterior_bound_data(epsilon: float, prior: float = 0.5) -> FigureData:
    """Where an observer's belief can land after one ε-DP output, for every prior.

    The largest posterior is :func:`~dpteach.mechanisms.definition.posterior_bound`, the
    smallest ``1 − posterior_bound(1 − prior)`` ([KS14]_); between them lies every belief
    an ε-DP output allows, whatever else the observer knows. The marked prior's range is in
    the title, with the price of that ε for one count (Laplace noise of scale 1/ε).

    Series ``upper``, ``lower``, ``range``, ``no-change`` and ``marked``; ``extra``:
    ``low`` and ``high`` at ``prior``.
    """
    priors = np.linspace(0.0, 1.0, 401)
    upper = posterior_bound(priors, epsilon)
    lower = 1.0 - posterior_bound(1.0 - priors, epsilon)
    high = posterior_bound(prior, epsilon)
    low = 1.0 - posterior_bound(1.0 - prior, epsilon)
    series = (
        Series("range", "where the belief can land", priors, lower, kind="band", y2=upper,
               colour=PALETTE["sky"], opacity=0.3),
        Series("upper", "largest belief: e^ε × the prior odds", priors, upper,
               colour=PALETTE["blue"]),
        Series("lower", "smallest belief: e^−ε × the prior odds", priors, lower,
               colour=PALETTE["vermillion"], dash="dashed"),
        Series("no-change", "belief unchanged (ε = 0)", priors, priors,
               colour=PALETTE["black"], dash="dotted", width=1.2),
        Series("marked", f"prior {prior:.0%}", np.array([prior, prior]), np.array([low, high]),
               kind="points",
               colour=PALETTE["black"]),
    )
    title = (f"ε = {epsilon:g}: a belief of {prior:.0%} can move to between {low:.1%} and "
             f"{high:.1%}\nthe price: a count needs Laplace noise of scale 1/ε = {1 / epsilon:.3g}")
    return FigureData(title, "belief before the output (prior)",
                      "belief after the output (posterior)", series=series,
                      x_domain=(0.0, 1.0), y_domain=(0.0, 1.0), extra={"low": low, "high": high})


plot_posterior_bound = drawn(posterior_bound_data)


@validate(epsilon=EPSILON, delta=DELTA, fpr=RATES, tpr=RATES, label=TEXT)
def dp_test_region_data(epsilon: float, delta: float = 0.0, fpr=None, tpr=None,
                        label: str = "an attack's ROC curve") -> FigureData:
    """The (FPR, TPR) pairs every test can reach against an (ε, δ)-DP output.

    A test decides between D and a neighbour D′ from the output; calling "D′" on an event
    S has FPR = P[M(D) ∈ S] and TPR = P[M(D′) ∈ S]. The definition, applied to S and to its
    complement, confines the pair to TPR ≤ e^ε FPR + δ and 1 − FPR ≤ e^ε (1 − TPR) + δ
    (and to the mirror image for the flipped test). Conversely, a mechanism all of whose
    tests stay in the region is (ε, δ)-DP: the region characterises the guarantee ([WZ10]_;
    [KOV15]_ Thm 2.1, :func:`dpteach.attacks.roc.dp_roc_bound`).

    ``fpr, tpr`` is a ROC curve to draw over the region (e.g. ``AttackResult.fpr`` and
    ``.tpr``), ``label`` its legend entry. Band ``region``, diagonal ``guessing`` and line
    ``roc``; ``extra["excess"]``, the largest amount by which the curve rises above the
    region (≤ 0 inside; None without a curve).
    """
    if (fpr is None) != (tpr is None) or (fpr is not None and fpr.shape != tpr.shape):
        raise refuse("fpr and tpr", (fpr, tpr), "both None or both given, of the same length")
    corner = (1 - delta) / (1 + math.exp(min(epsilon, 700.0)))
    grid = np.unique(np.r_[np.linspace(0.0, 1.0, 401), corner, 1 - corner, delta, 1 - delta])
    upper = dp_roc_bound(grid, epsilon, delta)
    lower = 1.0 - dp_roc_bound(1.0 - grid, epsilon, delta)
    series = [
        Series("region", f"every test allowed by ({epsilon:g}, {delta:g})-DP", grid, lower,
               kind="band", y2=upper, colour=PALETTE["sky"], opacity=0.35),
        Series("guessing", "guessing (TPR = FPR)", np.array([0.0, 1.0]), np.array([0.0, 1.0]),
               colour=PALETTE["black"], dash="dotted", width=1.2),
    ]
    excess = None
    title = f"Tests against a ({epsilon:g}, {delta:g})-DP output: every (FPR, TPR) pair is shaded"
    if fpr is not None:
        excess = float(np.max(tpr - dp_roc_bound(fpr, epsilon, delta)))
        series.append(Series("roc", label, fpr, tpr, colour=PALETTE["vermillion"]))
        title += ("\nthe curve stays inside: consistent with the guarantee" if excess <= 1e-12
                  else "\nthe curve leaves the region: the output is not "
                       f"({epsilon:g}, {delta:g})-DP")
    return FigureData(title, "false-positive rate (FPR)", "true-positive rate (TPR)",
                      series=tuple(series), x_domain=(0.0, 1.0), y_domain=(0.0, 1.0),
                      extra={"excess": excess})


plot_dp_test_region = drawn(dp_test_region_data)
