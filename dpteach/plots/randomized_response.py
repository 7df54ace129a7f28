"""Figures for randomized response: the estimator, its error, local vs central.

Randomized response ([W65]_): each respondent reports their true bit with
probability ``p = ½ + γ`` and its flip otherwise; this is local ε-DP with
``ε = ln(p/(1−p))`` ([DR14]_ Sec 3.2). The survey's estimator
``π̂ = (Ȳ − (1−p))/(2p−1)`` is unbiased for the population rate π. The figures take
exactly one of ``gamma`` (γ) and ``epsilon`` (ε); sizes ``n_values=None`` are 60
log-spaced sizes from 10 to 10⁶.

References
----------
.. [W65] S. L. Warner. Randomized response: a survey technique for eliminating
   evasive answer bias. JASA 60(309), 1965.
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014. Sec 3.2 (randomized
   response), Thm 3.6 (Laplace).
.. [KLNRS11] S. P. Kasiviswanathan, H. K. Lee, K. Nissim, S. Raskhodnikova and
   A. Smith. What can we learn privately? SIAM J. Comput. 40(3), 2011 (local
   model).
.. [CSS12] T.-H. H. Chan, E. Shi and D. Song. Optimal lower bound for
   differentially private multi-party aggregation. ESA 2012 (local counts need
   error Ω(√n/ε)).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from typing import Any

from .._validation import EPSILON, PROBABILITY, Domain, array, refuse, validate
from ..mechanisms.randomized_response import (central_laplace_rate_std, rr_epsilon_from_gamma,
                                              rr_gamma_from_epsilon, rr_local_std, rr_std_error,
                                              simulate_rr_estimates)
from ._style import CYCLE, PALETTE
from .figure import MAX_POINTS, FigureData, Rule, Series, Text, drawn

__all__ = [
    "rr_estimator_data", "plot_rr_estimator",
    "rr_std_error_data", "plot_rr_std_error",
    "rr_probabilities_data", "plot_rr_probabilities",
    "local_vs_central_data", "plot_local_vs_central",
]

_LW = 2.2
#: The two reports of a respondent, as the probability chart labels them (x = 0 and 1).
REPORTS = ("report 'no'", "report 'yes'")
N_VALUES_MAX_SIZE = 10_000   # largest n grid of plot_rr_std_error / plot_local_vs_central

#: γ: the truth with probability ½ + γ (rr_epsilon_from_gamma's domain)
GAMMA = rr_epsilon_from_gamma.__domains__["gamma"]
GAMMAS: Domain = Domain(f"1 to {len(CYCLE)} values of γ, each {GAMMA.text}",
                lambda name, value: _gammas(name, value), example=[0.05, 0.1, 0.25, 0.4],
                bad=[[], [0.5], [0.0], "ab", None, [0.1] * (len(CYCLE) + 1)])
#: the sizes n to draw (default 60 from 10 to 10⁶)
N_VALUES = array(ndim=1, min_size=2, max_size=N_VALUES_MAX_SIZE, low=1, high=10**12,
                 integers=True, example=[10, 100, 1000]).or_none()
N_VALUES_LOCAL = array(ndim=1, min_size=2, max_size=N_VALUES_MAX_SIZE, low=1, high=10**15,
                       integers=True, example=[10, 100, 1000]).or_none()


def _privacy_kwargs(gamma, epsilon) -> dict:
    """The one privacy argument given, to pass on to dpteach.mechanisms.randomized_response unchanged."""
    return {"gamma": gamma} if gamma is not None else {"epsilon": epsilon}


def _truth_prob(gamma, epsilon) -> tuple[float, float, float]:
    """Validate (gamma xor epsilon); return (p_truth, gamma, epsilon)."""
    if (gamma is None) == (epsilon is None):
        raise refuse("gamma", gamma, f"given iff epsilon is not (epsilon={epsilon!r})")
    if gamma is not None:
        eps = rr_epsilon_from_gamma(gamma)   # validates gamma in (0, 1/2)
        gam = float(gamma)
    else:
        gam = rr_gamma_from_epsilon(epsilon)  # validates epsilon > 0
        eps = float(epsilon)
    return 0.5 + gam, gam, eps


def _privacy_label(gamma: float, epsilon: float) -> str:
    return f"γ = {gamma:.3g} (ε = {epsilon:.3g})"


def _ratio_text(gamma: float, epsilon: float) -> str:
    """(½+γ)/(½−γ) = e^ε, formatted; as a power of ten once it overflows the float range."""
    p = 0.5 + gamma
    if 1 - p > 0 and epsilon < 700:
        return f"{p / (1 - p):.3g}"
    return f"10^{epsilon / math.log(10):.4g}"


def _n_grid(n_values) -> np.ndarray:
    """The sorted distinct sizes to plot (float)."""
    return np.unique(np.round(np.geomspace(10, 10 ** 6, 60)) if n_values is None else n_values)


@validate(**simulate_rr_estimates.__domains__)
def rr_estimator_data(true_rate: float, n: int, gamma: float | None = None,
                      epsilon: float | None = None, n_trials: int = 2000, rng=None,
                      simulation: str = "auto") -> FigureData:
    """Distribution of the randomized-response estimate over simulated surveys, as data.

    Simulates ``n_trials`` surveys of ``n`` fresh respondents
    (:func:`dpteach.mechanisms.randomized_response.simulate_rr_estimates`, arguments as there) and
    gives the density histogram of their estimates π̂, the normal density with mean π
    and standard deviation :func:`dpteach.mechanisms.randomized_response.rr_std_error` (the
    estimator is unbiased and, by the central limit theorem, approximately normal,
    [W65]_), the true rate and the interval π ± 1.96 SE that holds about 95% of the
    estimates.

    The estimator only takes values on the lattice ``origin + k·step`` (k the number of
    "yes" reports, ``step = 1/(n·2γ)``): each bin holds a whole number of lattice points
    and its edges fall half-way between two of them, which avoids the comb-like aliasing
    of arbitrary bins.

    Series ``estimates`` (the density histogram) and ``normal`` (when the standard error
    is > 0); rules ``true-rate``, ``ci-low`` and ``ci-high``. ``extra``: ``mean`` (of the
    simulated π̂), ``std_error`` and ``highest`` (the tallest bar or density peak).
    """
    est = simulate_rr_estimates(true_rate, n, gamma=gamma, epsilon=epsilon, n_trials=n_trials,
                                rng=rng, simulation=simulation)
    _, gam, eps = _truth_prob(gamma, epsilon)
    se = rr_std_error(true_rate, n, **_privacy_kwargs(gamma, epsilon))

    # 2γ rather than 2p − 1: for tiny γ the float 0.5 + γ rounds to 0.5
    step = 1.0 / (n * (2 * gam))
    origin = -(0.5 - gam) / (2 * gam)
    lo, hi = min(est.min(), true_rate - 4 * se), max(est.max(), true_rate + 4 * se)
    if hi - lo < 4 * step:          # no spread at all (e.g. ε so large that p = 1, π = 0)
        lo, hi = lo - 2 * step, hi + 2 * step
    per_bin = max(1, math.ceil((hi - lo) / (40 * step)))
    k_lo = math.floor((lo - origin) / step) - 0.5
    k_hi = math.ceil((hi - origin) / step) + 0.5
    edges = origin + step * np.arange(k_lo, k_hi + per_bin, per_bin)
    density, _ = np.histogram(est, bins=edges, density=True)
    series = [Series("estimates", f"π̂ in {n_trials} simulated surveys (mean {est.mean():.3f})",
                     (edges[:-1] + edges[1:]) / 2, density, kind="bars",
                     width=float(per_bin * step), colour=PALETTE["sky"])]
    highest = float(density.max())
    rules = [Rule("true-rate", "x", true_rate, f"true rate π = {true_rate:.3g}",
                  PALETTE["vermillion"], "dashed")]
    if se > 0:
        x = np.linspace(lo, hi, MAX_POINTS)
        series.append(Series("normal", f"normal curve, sd = standard error {se:.3g}", x,
                             stats.norm.pdf(x, true_rate, se), colour=PALETTE["blue"],
                             width=_LW))
        highest = max(highest, float(stats.norm.pdf(0, 0, se)))
        rules += [Rule("ci-low", "x", true_rate - 1.96 * se, "π ± 1.96 SE (about 95% of surveys)",
                       PALETTE["black"], "dotted"),
                  Rule("ci-high", "x", true_rate + 1.96 * se, "", PALETTE["black"], "dotted")]
    return FigureData(f"Estimates from {n_trials} simulated surveys\n"
                      f"{_privacy_label(gam, eps)}, n = {n}",
                      "estimated rate π̂", "density", series=tuple(series), rules=tuple(rules),
                      x_domain=(float(lo), float(hi)), y_domain=(0.0, 1.1 * highest),
                      extra={"mean": float(est.mean()), "std_error": se, "highest": highest})


plot_rr_estimator = drawn(rr_estimator_data)


@validate(gammas=GAMMAS, rate=PROBABILITY, n_values=N_VALUES)
def rr_std_error_data(gammas=(0.05, 0.1, 0.25, 0.4), rate: float = 0.5,
                      n_values=None) -> FigureData:
    """Standard error of the RR estimator against n, one curve per γ (log-log).

    Uses :func:`dpteach.mechanisms.randomized_response.rr_std_error`, ``λ(1−λ)/(n(2γ)²)`` with
    λ the "yes" probability ([W65]_): it falls as 1/√n and grows like 1/γ as
    γ → 0 (more privacy). Lines ``gamma=<γ>``, one per γ; ``rate`` is the population rate π.
    """
    gam = gammas
    ns = _n_grid(n_values).astype(np.int64)
    curves = [np.array([rr_std_error.__wrapped__(rate, int(k), gamma=float(g)) for k in ns])
              for g in gam]
    series = tuple(Series(f"gamma={g:g}", _privacy_label(float(g), rr_epsilon_from_gamma(float(g))),
                          ns, se, colour=colour, width=_LW)
                   for colour, g, se in zip(CYCLE, gam, curves))
    return FigureData(f"Randomized response: error against n and γ (true rate π = {rate:.3g})\n"
                      "smaller γ = smaller ε = more private",
                      "number of respondents n (log scale)", "standard error of π̂",
                      series=series, log_x=True, log_y=True, x_integer=True,
                      legend_title="truth with probability ½ + γ")


plot_rr_std_error = drawn(rr_std_error_data)


@validate(gamma=GAMMA.or_none(), epsilon=EPSILON.or_none())
def rr_probabilities_data(gamma: float | None = None,
                          epsilon: float | None = None) -> FigureData:
    """P(report | true bit) for randomized response, as grouped bars.

    The largest ratio between the two rows is ``(½+γ)/(½−γ) = e^ε``: the
    definition of ε-DP checked on every output ([DR14]_ Sec 3.2). Bars ``true=0`` and
    ``true=1``: x near 0 is the report 'no', near 1 the report 'yes' (:data:`REPORTS`).
    """
    p, gam, eps = _truth_prob(gamma, epsilon)
    probs = {0: np.array([p, 1 - p]), 1: np.array([1 - p, p])}   # P(report=0), P(report=1)
    series = tuple(
        Series(f"true={bit}", f"true answer {'yes' if bit else 'no'}", np.arange(2) + shift,
               probs[bit], kind="bars", width=0.38, colour=colour)
        for shift, bit, colour in ((-0.2, 0, PALETTE["blue"]), (0.2, 1, PALETTE["orange"])))
    texts = tuple(Text(f"value-{s.key}-{j}", float(x), float(h), f"{h:.3f}")
                  for s in series for j, (x, h) in enumerate(zip(np.asarray(s.x), np.asarray(s.y))))
    return FigureData(f"Randomized response, {_privacy_label(gam, eps)}\n"
                      f"largest ratio (½+γ)/(½−γ) = {_ratio_text(gam, eps)} = e^ε",
                      "what the respondent reports", "probability of the report",
                      series=series, texts=texts, x_domain=(-0.5, 1.5), y_domain=(0.0, 1.15),
                      x_ticks=tuple(enumerate(REPORTS)))


plot_rr_probabilities = drawn(rr_probabilities_data)


@validate(epsilon=EPSILON, n_values=N_VALUES_LOCAL)
def local_vs_central_data(epsilon: float, n_values=None) -> FigureData:
    """Error of local (randomized response) vs central (Laplace) counting at one ε.

    Both estimate the fraction of 1s in a fixed dataset of n bits with ε-DP:
    locally every person randomizes (:func:`rr_local_std`, Θ(1/(ε√n))), centrally
    a curator adds ``Lap(1/ε)`` to the count (:func:`central_laplace_rate_std`,
    Θ(1/(εn))). The gap grows like √n ([KLNRS11]_; [CSS12]_). Lines ``local`` and
    ``central``.
    """
    ns = _n_grid(n_values)
    local = rr_local_std(ns, epsilon)
    central = central_laplace_rate_std(ns, epsilon)
    series = (Series("local", "local: randomized response, sd = e^(ε/2) / ((e^ε − 1)√n)", ns,
                     local, colour=PALETTE["vermillion"], width=_LW),
              Series("central", "central: (count + Lap(1/ε)) / n, sd = √2 / (εn)", ns, central,
                     colour=PALETTE["blue"], width=_LW, dash="dashed"))
    return FigureData(f"Local vs central DP for a proportion, ε = {epsilon:.3g}",
                      "number of people n (log scale)",
                      "standard deviation of the estimated rate", series=series, log_x=True,
                      log_y=True, x_integer=True)


plot_local_vs_central = drawn(local_vs_central_data)


def _gammas(name: str, value: Any) -> list[float]:
    iterable = hasattr(value, "__iter__") and not isinstance(value, (str, bytes))
    items = list(value) if iterable else []
    if not 1 <= len(items) <= len(CYCLE):
        raise GAMMAS.refuse(name, value)
    return [GAMMA(name, g) for g in items]
