"""What a privacy budget buys: privacy against accuracy, and how an RDP curve becomes an ε.

Three figures for the composition notebooks (05 and 06). In the two trade-offs both sides
are on the axes: moving along a curve buys accuracy with privacy, and a better accountant
moves the whole curve down. In the third, the conversion's cost falls as the order α grows
while r(α) rises, and the accountant reports the best order.

References
----------
.. [ACG16] M. Abadi, A. Chu, I. Goodfellow, H. B. McMahan, I. Mironov, K. Talwar, L. Zhang.
   "Deep Learning with Differential Privacy." CCS 2016 (Algorithm 1: the noisy average of
   clipped gradients).
.. [BBGHS20] B. Balle, G. Barthe, M. Gaboardi, J. Hsu, T. Sato. "Hypothesis testing
   interpretations and Rényi differential privacy." AISTATS 2020, Thm 21 (numbering of
   arXiv:1905.09982).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validation import DELTA_POSITIVE, array, choice, integer, real, refuse, validate
from ..accounting.compare import METHOD_LABELS, composition_epsilons, dpsgd_epsilons
from ..accounting.convert import CONVERSION, ORDERS, RDP_VALUES, rdp_to_epsilon
from ._style import PALETTE, refuse_undrawable, refuse_undrawable_log
from .accounting import (ACCOUNTING_METHODS, COMPOSITION_EPSILONS, COMPOSITION_SIGMAS,
                         METHOD_COLOURS, METHOD_DASHES, PLANNER_SIGMAS)
from .figure import FigureData, Rule, Series, drawn

__all__ = ["composition_tradeoff_data", "plot_composition_tradeoff", "dpsgd_tradeoff_data",
           "plot_dpsgd_tradeoff", "rdp_orders_data", "plot_rdp_orders"]

#: the ε₀ of one Laplace answer the figure draws (the app's grid from 0.01 to 2: beyond,
#: the advanced bound's k·ε₀(e^ε₀ − 1) dwarfs every other curve)
LAPLACE_EPSILONS = tuple(e for e in COMPOSITION_EPSILONS if e <= 2)
#: the σ of one Gaussian answer the figure draws (the app's grid, 0.5 to 50)
GAUSSIAN_SIGMAS = COMPOSITION_SIGMAS
#: the noise multipliers σ of the DP-SGD figure (the planner's, from 0.5: below, ε is in the
#: hundreds for every batch)
DPSGD_SIGMAS = tuple(s for s in PLANNER_SIGMAS if s >= 0.5)

#: number of answers k (work: the optimal bound costs O(k) per point)
ANSWERS = integer(1, 5000, example=100, work=True)
#: ε₀ of one Laplace answer, within the drawn grid
ANSWER_EPSILON = real(LAPLACE_EPSILONS[0], LAPLACE_EPSILONS[-1], example=0.1)
#: σ of one Gaussian answer, within the drawn grid
ANSWER_SIGMA = real(GAUSSIAN_SIGMAS[0], GAUSSIAN_SIGMAS[-1], example=5.0)
#: dataset size of a DP-SGD run
DATASET_SIZE = integer(100, 10**6, example=60_000, work=True)
#: epochs of a DP-SGD run
EPOCHS = integer(1, 200, example=64, work=True)
#: expected batch sizes: one curve each
BATCH_SIZES = array(ndim=1, low=1, high=10**6, integers=True, max_size=8,
                    example=[64, 256, 1024], text="a 1-D array of 1 to 8 whole numbers in "
                    "[1, 1000000] (expected batch sizes)")
#: the marked run's expected batch size
BATCH = integer(1, 10**6, example=256)
#: the marked run's noise multiplier, within the drawn grid
NOISE_MULTIPLIER = real(DPSGD_SIGMAS[0], DPSGD_SIGMAS[-1], example=1.1)


@validate(k=ANSWERS, mechanism=choice("laplace", "gaussian"),
          epsilon=ANSWER_EPSILON.or_none(), sigma=ANSWER_SIGMA.or_none(),
          delta=DELTA_POSITIVE, methods=ACCOUNTING_METHODS)
def composition_tradeoff_data(k: int = 100, *, mechanism: str = "laplace",
                              epsilon: float | None = 0.1, sigma: float | None = None,
                              delta: float = 1e-5,
                              methods=("basic", "advanced", "optimal")) -> FigureData:
    """k noisy answers: the noise of each answer against the total ε of all k, per method.

    Each answer has sensitivity 1. Laplace: each answer is ε₀-DP (scale 1/ε₀), its noise has
    standard deviation √2/ε₀, for ε₀ on :data:`LAPLACE_EPSILONS`. Gaussian: noise N(0, σ²),
    σ on :data:`GAUSSIAN_SIGMAS`. The total ε at total δ of k such answers is
    :func:`~dpteach.accounting.compare.composition_epsilons`' (see there what each method
    assumes, and the per-answer δ₀ = δ/(2k) of the classic theorems for Gaussian noise).
    ``epsilon`` (Laplace) or ``sigma`` (Gaussian) marks your answers.

    One line per method (keyed by the method), points ``mark-<method>`` and the rule
    ``mark``; ``extra``: ``noise`` (the standard deviations drawn, increasing), ``totals``
    (method → total ε at each) and, with a mark, ``mark_noise`` and ``at_mark``.
    """
    laplace = mechanism == "laplace"
    wrong, mark = ("sigma", sigma) if laplace else ("epsilon", epsilon)
    if mark is not None:
        raise refuse(wrong, mark, f"None with mechanism={mechanism!r} (it marks the other one)")
    values = np.array(LAPLACE_EPSILONS if laplace else GAUSSIAN_SIGMAS)
    marked = epsilon if laplace else sigma

    def totals(value: float) -> dict:
        kw = dict(epsilon=value) if laplace else dict(sigma=value)
        out = composition_epsilons.__wrapped__(np.array([k]), mechanism=mechanism, delta=delta,
                                               methods=methods, **kw)
        return {m: float(out[m][0]) for m in methods}

    def noise(value: float) -> float:
        return math.sqrt(2) / value if laplace else value

    by_value = [totals(v) for v in values]
    order = np.argsort([noise(v) for v in values])
    xs = np.array([noise(values[i]) for i in order])
    curves = {m: np.array([by_value[i][m] for i in order]) for m in methods}
    at_mark = totals(marked) if marked is not None else None
    plot_args = dict(k=k, mechanism=mechanism, delta=delta, methods=methods)
    refuse_undrawable_log("the total ε values", plot_args, *curves.values(),
                          *([list(at_mark.values())] if at_mark else []))
    series = [Series(m, METHOD_LABELS[m], xs, curves[m], colour=METHOD_COLOURS[m], dash=METHOD_DASHES[m],
                     width=2.0 if m in ("rdp", "pld") else 1.6) for m in methods]
    rules: tuple[Rule, ...] = ()
    extra: dict[str, Any] = {"noise": xs, "totals": curves}
    if marked is not None and at_mark is not None:
        x_mark = noise(marked)
        series += [Series(f"mark-{m}", "", [x_mark], [at_mark[m]], kind="points",
                          colour=METHOD_COLOURS[m], width=2.8) for m in methods]
        what = f"ε₀ = {marked:g}" if laplace else f"σ = {marked:g}"
        rules = (Rule("mark", "x", x_mark, label=f"your answers: {what}", colour="grey",
                      dash="solid"),)
        extra.update(mark_noise=x_mark, at_mark=at_mark)
    noun = "Laplace" if laplace else "Gaussian"
    return FigureData(
        title=f"{k:,} {noun} answers, total δ = {delta:g}: privacy against accuracy",
        x_title="noise of each answer (standard deviation; lower is more accurate)",
        y_title="total ε (lower is more private)",
        series=tuple(series), rules=rules, log_x=True, log_y=True, extra=extra)


plot_composition_tradeoff = drawn(composition_tradeoff_data)


@validate(n=DATASET_SIZE, epochs=EPOCHS, batch_sizes=BATCH_SIZES, delta=DELTA_POSITIVE,
          batch=BATCH.or_none(), noise_multiplier=NOISE_MULTIPLIER.or_none())
def dpsgd_tradeoff_data(n: int = 60_000, epochs: int = 64, *,
                        batch_sizes=(64, 256, 1024, 4096), delta: float = 1e-5,
                        batch: int | None = 256,
                        noise_multiplier: float | None = 1.1) -> FigureData:
    """DP-SGD for a fixed number of epochs: noise in each averaged gradient against ε.

    A run samples each of the n examples with probability q = B/n per step (an expected
    batch of B) for T = round(epochs/q) steps, clips each gradient to norm 1 and adds
    N(0, σ²) noise to their sum ([ACG16]_): the average over B examples carries noise of
    standard deviation σ/B in every coordinate (the accuracy side), and the run is (ε, δ)-DP
    with ε by Rényi DP (:func:`~dpteach.accounting.compare.dpsgd_epsilons`; the privacy
    side). One curve per batch size B of ``batch_sizes``, over σ in :data:`DPSGD_SIGMAS`;
    ``batch`` and ``noise_multiplier`` (both or neither) mark your run.

    Series ``batch-<B>`` and, with a mark, the point ``mark`` and the rule ``mark-noise``;
    ``extra``: ``runs`` (B → (q, T)), ``noise`` (B → σ/B), ``epsilon`` (B → ε per σ) and,
    with a mark, ``mark`` = (σ/B, ε).
    """
    sizes = [int(b) for b in np.unique(batch_sizes)]
    if sizes[-1] > n:
        raise refuse("batch_sizes", batch_sizes, f"at most n = {n} (the expected batch)")
    if (batch is None) != (noise_multiplier is None):
        raise refuse("noise_multiplier", noise_multiplier, f"given iff batch is (batch={batch})")
    if batch is not None and batch > n:
        raise refuse("batch", batch, f"at most n = {n}")
    sigmas = np.array(DPSGD_SIGMAS)

    def run(b: int) -> tuple[float, int]:
        q = b / n
        return q, max(1, round(epochs / q))

    def epsilon(b: int, sigma: float) -> float:
        q, steps = run(b)
        return float(dpsgd_epsilons.__wrapped__(np.array([steps]), noise_multiplier=sigma,
                                                sample_rate=q, delta=delta,
                                                accountants=("rdp",))["rdp"][0])

    runs = {b: run(b) for b in sizes}
    noise = {b: sigmas / b for b in sizes}
    eps = {b: np.array([epsilon(b, s) for s in sigmas]) for b in sizes}
    plot_args = dict(n=n, epochs=epochs, batch_sizes=sizes, delta=delta)
    refuse_undrawable_log("the ε values", plot_args, *eps.values(), *noise.values())
    colours = (PALETTE["blue"], PALETTE["orange"], PALETTE["green"], PALETTE["vermillion"],
               PALETTE["sky"], PALETTE["purple"], PALETTE["black"], PALETTE["yellow"])
    series = [Series(f"batch-{b}", f"expected batch of {b:,}", noise[b], eps[b],
                     colour=colours[i]) for i, b in enumerate(sizes)]
    rules: tuple[Rule, ...] = ()
    extra: dict[str, Any] = {"runs": runs, "noise": noise, "epsilon": eps}
    if batch is not None and noise_multiplier is not None:   # both or neither (above)
        mark = (noise_multiplier / batch, epsilon(batch, noise_multiplier))
        refuse_undrawable_log("the marked run's ε", plot_args, [mark[1]])
        series.append(Series("mark", f"your run: batch {batch:,}, σ = {noise_multiplier:g}, "
                             f"ε = {mark[1]:.2f}", [mark[0]], [mark[1]], kind="points",
                             colour=PALETTE["black"], width=3.2))
        rules = (Rule("mark-noise", "x", mark[0], colour="grey", dash="dotted"),)
        extra["mark"] = mark
    return FigureData(
        title=f"DP-SGD, {n:,} examples, {epochs} epochs, δ = {delta:g}:\n"
              "privacy (Rényi DP) against the noise in each step",
        x_title="noise in each averaged gradient (standard deviation, clipping norm 1)",
        y_title="ε after training (lower is more private)",
        series=tuple(series), rules=rules, log_x=True, log_y=True, extra=extra)


plot_dpsgd_tradeoff = drawn(dpsgd_tradeoff_data)


@validate(orders=ORDERS, rdp=RDP_VALUES, delta=DELTA_POSITIVE, conversion=CONVERSION)
def rdp_orders_data(orders, rdp, delta: float, conversion: str = "improved") -> FigureData:
    """A composed RDP curve r(α) and the ε each order α gives, with the best order marked.

    At each order, :func:`~dpteach.accounting.convert.rdp_to_epsilon` of that order alone:
    ``r(α) + ln((α − 1)/α) − (ln δ + ln α)/(α − 1)`` with the improved conversion
    ([BBGHS20]_ Thm 21), ``r(α) + ln(1/δ)/(α − 1)`` with the classic one. The gap between
    the two lines is the conversion's cost; the accountant reports the smallest ε.

    ``rdp`` is the composed r(α), one finite value per order. Series ``rdp``, ``epsilon``
    and ``best``; ``extra``: ``epsilons`` (ε at each order, by increasing α), ``best_order``
    and ``best_epsilon``.
    """
    if orders.size < 2 or rdp.shape != orders.shape:
        raise refuse("orders", orders, f"≥ 2 orders, each with a value of rdp ({rdp.size})")
    if not np.all(np.isfinite(rdp)):
        raise refuse("rdp", rdp, "finite at every order (to be drawn)")
    order = np.argsort(orders)
    alphas, r = orders[order], rdp[order]
    eps = np.array([rdp_to_epsilon.__wrapped__(alphas[i:i + 1], r[i:i + 1], delta,
                                               conversion)[0] for i in range(alphas.size)])
    best = int(np.argmin(eps))
    refuse_undrawable("the ε values", dict(orders=orders, rdp=rdp, delta=delta), eps, r)
    top = max(3 * float(eps[best]), 1.5 * float(r[best]), 1e-12)
    series = (Series("rdp", "the composed Rényi DP curve r(α)", alphas, r, colour=PALETTE["blue"]),
              Series("epsilon", "ε this order gives: r(α) plus the conversion's cost", alphas,
                     eps, colour=PALETTE["vermillion"], dash="dashed"),
              Series("best", f"the best order, α = {alphas[best]:g}: ε = {eps[best]:.3g}",
                     [alphas[best]], [eps[best]], kind="points", colour=PALETTE["black"],
                     width=3.2))
    return FigureData(
        title=f"From a Rényi DP curve to (ε, δ), δ = {delta:g}: every order gives a bound",
        x_title="Rényi order α (log scale)", y_title="ε (lower is more private)",
        series=series, log_x=True, y_domain=(0.0, top),
        extra={"epsilons": eps, "best_order": float(alphas[best]),
               "best_epsilon": float(eps[best])})


plot_rdp_orders = drawn(rdp_orders_data)
