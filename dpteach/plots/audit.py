"""Figures of auditing (notebook 21, the app page "Audit a mechanism").

They draw results; the audits are run by the math modules (a page caches those).

References
----------
.. [SNJ23] T. Steinke, M. Nasr and M. Jagielski. Privacy auditing with one (1) training run.
   NeurIPS 2023 (arXiv:2305.08846).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import (DELTA, EPSILON_OR_ZERO, array, instance_of, integer, real, refuse,
                           validate)
from ..audit.bounds import CONFIDENCE, max_certifiable_epsilon
from ..audit.one_run import BETA, CANARIES, OneRunAudit, one_run_audit_bound
from ..audit.runs import TRIALS_MAX, AuditResult
from ._style import PALETTE, refuse_undrawable
from .figure import FigureData, Rule, Series, drawn

__all__ = [
    "MAX_CATEGORIES", "MAX_CURVE_POINTS", "PLOT_GUESSES_MAX",
    "audit_histograms_data", "plot_audit_histograms",
    "bound_convergence_data", "plot_bound_convergence",
    "canary_scores_data", "plot_canary_scores",
    "one_run_bound_data", "plot_one_run_bound",
]

#: Outputs with at most this many distinct values are drawn as categories (one bar pair each).
MAX_CATEGORIES = 20
#: Most points of a curve (trial counts of the convergence figure, accuracies of the one-run one).
MAX_CURVE_POINTS = 100
#: Most guesses r of :func:`one_run_bound_data` (each point is a bisection over p-values that
#: cost O(√r); 10⁵ keeps 100 points near a second).
PLOT_GUESSES_MAX = 10 ** 5

RESULT = instance_of(AuditResult, "an AuditResult (audit_mechanism, audit_samples)")
ONE_RUN = instance_of(OneRunAudit, "a OneRunAudit (one_run_audit)")
BINS = integer(2, 200, example=40)
#: runs per side of each point of the convergence figure
TRIALS = array(ndim=1, low=2, high=TRIALS_MAX, integers=True, max_size=MAX_CURVE_POINTS,
               example=[10, 100, 1000])
#: the certified bound at each: an ε, ≥ 0
BOUNDS = array(ndim=1, low=0.0, high=1e3, max_size=MAX_CURVE_POINTS, example=[0.1, 0.3, 0.4])
#: the true ε of the audited mechanism (∞ for one that is not DP)
TRUE_EPSILON = real(0.0, math.inf).or_none()
CLAIM = EPSILON_OR_ZERO.or_none()


def _fmt(x: float) -> str:
    return "∞" if x == math.inf else f"{x:.3g}"


@validate(result=RESULT, bins=BINS)
def audit_histograms_data(result, bins: int = 40) -> FigureData:
    """The two output distributions of an audit (on D and D′), the event it chose, and its
    bound, from :func:`dpteach.audit.runs.audit_mechanism`.

    Series ``d`` and ``d_prime`` (bars for outputs with at most 20 distinct values, else
    steps over ``bins`` bins) and, for categories, ``event``; rule ``threshold`` for the
    threshold test. ``extra``: ``categorical``, ``bound``, ``claim``.
    """
    res = result
    x, y = res.outputs, res.outputs_prime
    values = np.unique(np.concatenate([x, y]))
    rules = []
    categorical = values.size <= MAX_CATEGORIES
    if categorical:
        refuse_undrawable("the output categories", dict(result=result), values)
        fx = np.array([np.mean(x == v) for v in values])
        fy = np.array([np.mean(y == v) for v in values])
        step = float(np.min(np.diff(values))) if values.size > 1 else 1.0
        w = 0.4 * step
        series = [Series("d", "on D", values - w / 2, fx, kind="bars", width=w,
                         colour=PALETTE["blue"]),
                  Series("d_prime", "on D′", values + w / 2, fy, kind="bars", width=w,
                         colour=PALETTE["orange"])]
        chosen = res.in_event(values)
        if chosen.any():
            top = np.maximum(fx, fy)[chosen]
            series.append(Series("event", "in the chosen event", values[chosen],
                                 top + 0.03 * float(max(fx.max(), fy.max())), kind="points",
                                 colour=PALETTE["black"], width=2.0))
        x_title, y_title = "output", "fraction of runs"
    else:
        lo, hi = np.quantile(np.concatenate([x, y]), [0.001, 0.999])
        if hi <= lo:
            lo, hi = float(values[0]), float(values[-1])
        refuse_undrawable("the output histogram", dict(result=result), lo, hi)
        edges = np.linspace(lo, hi, bins + 1)
        width = edges[1] - edges[0]
        cx = np.histogram(np.clip(x, lo, hi), edges)[0] / (x.size * width)
        cy = np.histogram(np.clip(y, lo, hi), edges)[0] / (y.size * width)
        mids = 0.5 * (edges[1:] + edges[:-1])
        series = [Series("d", "on D", mids, cx, kind="step", colour=PALETTE["blue"]),
                  Series("d_prime", "on D′", mids, cy, kind="step", colour=PALETTE["orange"])]
        x_title, y_title = "output (0.1%–99.9% quantiles)", "density"
    if res.test == "threshold":
        rules.append(Rule("threshold", "x", float(res.threshold),
                          f"chosen test: {res.event}", PALETTE["black"], "dashed"))
    verdict = "claim refuted" if res.refuted else "claim not refuted"
    title = (f"{res.n_trials:,} runs per side · {res.event}\n{res.confidence:.0%} bound "
             f"ε ≥ {res.epsilon_lower_bound:.3f} vs claimed ε = {res.claimed_epsilon:g}"
             + (f", δ = {res.delta:g}" if res.delta else "") + f": {verdict}")
    return FigureData(title, x_title, y_title, tuple(series), tuple(rules),
                      extra={"categorical": categorical, "bound": res.epsilon_lower_bound,
                             "claim": res.claimed_epsilon})


plot_audit_histograms = drawn(audit_histograms_data)


_CONVERGENCE = dict(trials=TRIALS, bounds=BOUNDS, claimed_epsilon=EPSILON_OR_ZERO,
                    true_epsilon=TRUE_EPSILON, delta=DELTA, confidence=CONFIDENCE)


@validate(**_CONVERGENCE)
def bound_convergence_data(trials, bounds, *, claimed_epsilon: float,
                           true_epsilon: float | None = None, delta: float = 0.0,
                           confidence: float = 0.95) -> FigureData:
    """The certified bound against the number of runs per side (log scale).

    ``bounds`` holds the bound at each number of ``trials`` (e.g.
    :func:`dpteach.audit.runs.audit_convergence`); ``true_epsilon`` is the ε the mechanism
    really has (``inf``: a note in the title); ``delta`` and ``confidence`` those of the
    audits. Series ``bound`` and ``most`` (the largest bound n runs could certify,
    :func:`~dpteach.audit.bounds.max_certifiable_epsilon` of the n − n//2 certifying runs);
    rules ``claim`` and ``truth``.
    """
    t, b, claim, truth = trials, bounds, claimed_epsilon, true_epsilon
    if b.shape != t.shape:
        raise refuse("bounds", bounds, f"one number per entry of trials ({t.size})")
    order = np.argsort(t)
    t, b = t[order], b[order]
    most = np.array([max_certifiable_epsilon(int(n) - int(n) // 2, delta=delta,
                                             confidence=confidence) for n in t])
    top = max(float(b.max()), claim, truth if truth is not None and math.isfinite(truth) else 0)
    refuse_undrawable("the convergence figure", dict(bounds=bounds, claimed_epsilon=claim,
                                                     true_epsilon=true_epsilon), top)
    series = [Series("bound", f"{confidence:.0%} lower bound", t, b, kind="line",
                     colour=PALETTE["blue"], width=2.2),
              Series("bound-points", "", t, b, kind="points", colour=PALETTE["blue"]),
              Series("most", "the most these runs can show", t, np.minimum(most, 1.5 * top + 1),
                     kind="line", colour=PALETTE["sky"], dash="dotted")]
    rules = [Rule("claim", "y", claim, f"claimed ε = {claim:g}", PALETTE["vermillion"], "dashed")]
    note = ""
    if truth is not None:
        if math.isfinite(truth):
            rules.append(Rule("truth", "y", truth, f"true ε = {truth:.3g}", PALETTE["black"],
                              "dotted"))
        else:
            note = " · true ε = ∞"
    return FigureData(f"The audit's bound as the runs grow{note}", "runs per side (log scale)",
                      "ε lower bound", tuple(series), tuple(rules), log_x=True,
                      y_domain=(0.0, 1.15 * top + 0.05), x_integer=True)


plot_bound_convergence = drawn(bound_convergence_data)


@validate(audit=ONE_RUN, bins=BINS, claimed_epsilon=CLAIM)
def canary_scores_data(audit, bins: int = 40, claimed_epsilon: float | None = None) -> FigureData:
    """The scores of the canaries in and out of the training set, and the guesses ([SNJ23]_).

    Steps ``in`` and ``out`` (canaries per bin); rules ``guess_in`` (scores at or above it
    were guessed "in") and ``guess_out`` (at or below: "out").
    """
    a, claim = audit, claimed_epsilon
    s = a.scores
    lo, hi = float(s.min()), float(s.max())
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    refuse_undrawable("the canary scores", dict(audit=audit), lo, hi)
    edges = np.linspace(lo, hi, bins + 1)
    mids = 0.5 * (edges[1:] + edges[:-1])
    c_in = np.histogram(s[a.included], edges)[0]
    c_out = np.histogram(s[~a.included], edges)[0]
    series = (Series("in", f"in the training set ({int(a.included.sum())})", mids, c_in,
                     kind="step", colour=PALETTE["blue"]),
              Series("out", f"not in it ({int((~a.included).sum())})", mids, c_out,
                     kind="step", colour=PALETTE["orange"]))
    rules = []
    if np.any(a.guesses > 0):
        rules.append(Rule("guess_in", "x", float(s[a.guesses > 0].min()),
                          f"guess 'in' ({int(np.sum(a.guesses > 0))})", PALETTE["blue"],
                          "dashed"))
    if np.any(a.guesses < 0):
        rules.append(Rule("guess_out", "x", float(s[a.guesses < 0].max()),
                          f"guess 'out' ({int(np.sum(a.guesses < 0))})", PALETTE["orange"],
                          "dashed"))
    claim_text = "" if claim is None else f" vs claimed ε = {_fmt(claim)}"
    title = (f"{a.m:,} canaries: {a.v} of {a.r} guesses right\n{1 - a.beta:.0%} bound "
             f"ε ≥ {a.epsilon_lower_bound:.3f}{claim_text} (δ = {a.delta:g})")
    return FigureData(title, "canary score (higher: more likely in)", "number of canaries",
                      series, tuple(rules), y_integer=True)


plot_canary_scores = drawn(canary_scores_data)


_ONE_RUN_BOUND = dict(m=CANARIES, r=integer(1, PLOT_GUESSES_MAX, example=100, work=True),
                      delta=DELTA, beta=BETA, claimed_epsilon=CLAIM,
                      points=integer(2, MAX_CURVE_POINTS, example=40, work=True))


@validate(**_ONE_RUN_BOUND)
def one_run_bound_data(m: int, r: int, *, delta: float = 0.0, beta: float = 0.05,
                       claimed_epsilon: float | None = None, points: int = 40) -> FigureData:
    """The one-run bound against the guessing accuracy v/r, with and without δ ([SNJ23]_).

    :func:`dpteach.audit.one_run.one_run_audit_bound` for m canaries and r ≤ m guesses,
    at ``points`` accuracies from ½ to 1; ``beta`` is 1 − confidence. Series ``bound`` and,
    when δ > 0, ``bound_delta0``; rule ``claim``. ``extra``: ``v`` (the correct-guess
    counts), ``bound``, ``bound_delta0``.
    """
    if r > m:
        raise refuse("r", r, f"at most m={m}")
    claim = claimed_epsilon
    v = np.unique(np.round(np.linspace(r / 2, r, points)).astype(int))
    at = np.array([one_run_audit_bound(m, r, int(k), delta=delta, beta=beta) for k in v])
    at0 = np.array([one_run_audit_bound(m, r, int(k), beta=beta) for k in v])
    top = max(float(at0.max()), claim or 0.0)
    refuse_undrawable("the one-run bound", dict(m=m, r=r, claimed_epsilon=claimed_epsilon), top)
    series = [Series("bound", f"δ = {delta:g}", v / r, at, colour=PALETTE["blue"])]
    if delta > 0:
        series.append(Series("bound_delta0", "δ = 0", v / r, at0, colour=PALETTE["sky"],
                             dash="dashed"))
    rules = () if claim is None else (Rule("claim", "y", claim, f"claimed ε = {claim:g}",
                                           PALETTE["vermillion"], "dashed"),)
    return FigureData(f"One-run audit: {r:,} guesses on {m:,} canaries, "
                      f"{1 - beta:.0%} confidence", "fraction of the guesses that are right",
                      "ε lower bound", tuple(series), rules,
                      extra={"v": v, "bound": at, "bound_delta0": at0})


plot_one_run_bound = drawn(one_run_bound_data)
