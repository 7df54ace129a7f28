"""Figures for private logistic regression (notebook 10 and the app page).

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate. Differentially
   private empirical risk minimization. JMLR 12:1069-1109, 2011.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import (FLAG, PROBABILITY, Domain, array, choice, instance_of,
                           integer, real, refuse, validate)
from ..learning.erm_experiments import AccuracyCurve, MinimizerSensitivityResult, ToyFits
from ._style import PALETTE, refuse_unless_two_features
from .figure import TEXT, FigureData, Rule, Series, drawn

#: what minimizer_sensitivity returns
SENSITIVITY_RESULT = instance_of(MinimizerSensitivityResult,
                                 "a MinimizerSensitivityResult from minimizer_sensitivity")

__all__ = [
    "decision_boundaries_data", "plot_decision_boundaries",
    "toy_boundaries_data", "plot_toy_boundaries",
    "accuracy_curve_data", "plot_accuracy_curve",
    "sensitivity_data", "plot_sensitivity",
    "excess_risk_data", "plot_excess_risk",
    "noise_norm_data", "plot_noise_norm",
    "lambda_scan_data", "plot_lambda_scan",
]

METHOD_COLOURS = {"objective": PALETTE["blue"], "output": PALETTE["vermillion"],
                  "none": PALETTE["black"]}
METHOD_LABELS = {"objective": "objective perturbation (Alg. 2)",
                 "output": "output perturbation (Alg. 1)",
                 "none": "non-private"}

#: the data: two features per row, two classes
POINTS_2D = array(ndim=2, low=-1e15, high=1e15, example=[[0.0, 0.0], [1.0, 1.0]])
LABELS = array(ndim=1, example=[0, 1])
#: a fitted two-feature linear model, or a pair (coef, intercept)
MODEL: Domain = Domain("a fitted linear model (coef_, intercept_) of two features, or a pair "
               "(coef, intercept)", lambda name, value: _line(value, name),
               example=([1.0, -1.0], 0.0), bad=[None, 3, "model", ([0.0, 0.0], 0.0), ([1.0], 0.0)])
MODELS: Domain = Domain("a sequence of such models", lambda name, value: _lines(name, value),
                example=(), bad=[3, "model", [None]])
METHOD = choice("objective", "output")
#: ε of measured curves
EPSILONS = array(ndim=1, low=1e-6, high=1e3, example=[0.5, 1.0, 2.0])
#: method → measured excess risks (one row per ε) or bounds (one per ε)
RISKS: Domain = Domain("a dict method ('objective' or 'output') → array", lambda name, value:
               _by_method(name, value, 2), example={"objective": [[0.1, 0.2]] * 3},
               bad=[3, {"other": [[0.1]]}, {"objective": "ab"}])
BOUNDS: Domain = Domain("a dict method ('objective' or 'output') → array", lambda name, value:
                _by_method(name, value, 1), example={"objective": [0.3, 0.2, 0.1]},
                bad=[3, {"other": [0.1]}, {"objective": "ab"}])


def _segment_in_box(coef, b, xlim, ylim):
    """The part of the line {x : coefᵀx + b = 0} inside the box ``xlim`` × ``ylim``.

    Returns ``(xs, ys)``, two points on the line (empty arrays if the line misses the
    box or its ends are not finite floats). The line is parametrised by its dominant
    coordinate, as in a drawing with axis limits, and then cut at the other two sides.
    """
    (x0, x1), (y0, y1) = xlim, ylim
    a, c = float(coef[0]), float(coef[1])
    empty = (np.array([]), np.array([]))
    with np.errstate(all="ignore"):
        if abs(c) >= abs(a):                     # y = -(b + a x)/c: cut x where y leaves [y0, y1]
            lo, hi = x0, x1
            if a != 0:
                xa, xb = -(b + c * y0) / a, -(b + c * y1) / a
                lo, hi = max(lo, min(xa, xb)), min(hi, max(xa, xb))
            xs = np.array([lo, hi])
            ys = -(b + a * xs) / c
        else:                                    # x = -(b + c y)/a: cut y where x leaves [x0, x1]
            lo, hi = y0, y1
            if c != 0:
                ya, yb = -(b + a * x0) / c, -(b + a * x1) / c
                lo, hi = max(lo, min(ya, yb)), min(hi, max(ya, yb))
            ys = np.array([lo, hi])
            xs = -(b + c * ys) / a
    if not (lo <= hi and np.all(np.isfinite(xs)) and np.all(np.isfinite(ys))):
        return empty
    return xs, ys


@validate(X=POINTS_2D, y=LABELS, nonprivate=MODEL, private=MODELS, method=METHOD,
          label=TEXT.or_none(), title=TEXT.or_none())
def decision_boundaries_data(X, y, nonprivate, private=(), *, method: str = "objective",
                             label: str | None = None, title: str | None = None) -> FigureData:
    """Data (two classes), the non-private decision boundary and several private ones.

    Series ``class-<c>``, ``private-<i>`` (thin, in the colour of ``method``; only the
    first labelled, by ``label`` or "k private fits") and ``nonprivate`` (thick, dashed);
    each line is clipped to the data's range widened by 0.5 on each side.

    Parameters
    ----------
    private : sequence of models
        Private fits (e.g. the same ε with different seeds).
    """
    refuse_unless_two_features(X, y)
    pad = 0.5
    xlim = (float(X[:, 0].min() - pad), float(X[:, 0].max() + pad))
    ylim = (float(X[:, 1].min() - pad), float(X[:, 1].max() + pad))
    series = []
    for k, c in enumerate(np.unique(y)[:2]):
        m = y == c
        series.append(Series(f"class-{c:g}", f"class {c:g}", X[m, 0], X[m, 1], kind="points",
                             colour=(PALETTE["sky"], PALETTE["orange"])[k], width=1.5))
    for i, (coef, b) in enumerate(private):
        xs, ys = _segment_in_box(coef, b, xlim, ylim)
        series.append(Series(f"private-{i}",
                             (label or f"{len(private)} private fits") if i == 0 else "",
                             xs, ys, colour=METHOD_COLOURS[method], width=1.2, opacity=0.75))
    coef, b = nonprivate
    xs, ys = _segment_in_box(coef, b, xlim, ylim)
    series.append(Series("nonprivate", "non-private", xs, ys,
                         colour=PALETTE["black"], width=2.6, dash="dashed"))
    return FigureData(title or "Decision boundaries", "feature 1", "feature 2",
                      series=tuple(series), x_domain=xlim, y_domain=ylim)


plot_decision_boundaries = drawn(decision_boundaries_data)


def _eps_ticks(eps) -> tuple:
    """A tick at each ε of a grid, labelled plainly (log axes label only powers of ten)."""
    return tuple((float(e), f"{e:g}") for e in np.unique(eps))


@validate(fits=instance_of(ToyFits, "the ToyFits of toy_fits()"))
def toy_boundaries_data(fits) -> FigureData:
    """:func:`decision_boundaries_data` of the fits of
    :func:`dpteach.learning.erm_experiments.toy_fits`, titled with ε (pure ε-DP), Λ and n.

    Each model was trained on the bounded rows ``z = [x/R, 1]/√2`` of
    :func:`~dpteach.learning.logistic.bound_rows`; its boundary ``wᵀz = 0`` is, in the
    raw features, the line ``coef_ᵀx + intercept_ = 0`` (``coef_ = w[:2]/(R√2)``,
    ``intercept_ = w[2]/√2``), which is what is drawn.
    """
    title = (f"{METHOD_LABELS[fits.method]}: ε = {fits.epsilon:g} (δ = 0), Λ = {fits.lam:g}, "
             f"n = {fits.n}")
    return decision_boundaries_data(fits.X, fits.y, fits.nonprivate, fits.private,
                                    method=fits.method, title=title)


plot_toy_boundaries = drawn(toy_boundaries_data)


@validate(curve=instance_of(AccuracyCurve, "an AccuracyCurve (accuracy_vs_epsilon)"),
          baseline=PROBABILITY.or_none(), nonprivate=FLAG, title=TEXT.or_none(), show_spread=FLAG)
def accuracy_curve_data(curve, *, baseline: float | None = None, nonprivate: bool = True,
                        title: str | None = None, show_spread: bool = True) -> FigureData:
    """Test accuracy against ε (log axis), mean ± one standard deviation per method.

    Series ``mean-<method>``, ``marker-<method>`` and ``sd-<method>``; rules
    ``nonprivate`` and ``baseline``.

    Parameters
    ----------
    baseline : float, optional
        Accuracy of always predicting the majority class (a dotted reference line).
    nonprivate : bool
        Draw the test accuracy of the exact non-private minimiser of the same objective
        (``curve.nonprivate_accuracy``) as a dashed reference line.
    show_spread : bool
        Shade mean ± one standard deviation (ddof = 1) over the trials, capped at
        accuracy 1 (a method with one trial gets no spread).
    """
    eps = np.asarray(curve.epsilons, dtype=float)
    bands, lines = [], []
    for m in curve.accuracy:
        mean, sd = curve.mean(m), curve.std(m)
        colour = METHOD_COLOURS[m]
        if show_spread:
            sd = np.where(np.isfinite(sd), sd, 0.0)          # one trial: no spread to show
            bands.append(Series(f"sd-{m}", "", eps, mean - sd, kind="band",
                                y2=np.minimum(mean + sd, 1.0), colour=colour, opacity=0.18))
        lines.append(Series(f"mean-{m}", METHOD_LABELS[m], eps, mean, colour=colour))
        lines.append(Series(f"marker-{m}", "", eps, mean, kind="points", colour=colour,
                            width=1.6))
    rules = []
    if nonprivate:
        rules.append(Rule("nonprivate", "y", float(curve.nonprivate_accuracy),
                          f"non-private ({curve.nonprivate_accuracy:.3f})", PALETTE["black"],
                          "dashed"))
    if baseline is not None:
        rules.append(Rule("baseline", "y", baseline, f"majority class ({baseline:.3f})", "grey",
                          "dotted"))
    return FigureData(title or f"Accuracy vs ε (Λ = {curve.lam:g}, n = {curve.n_train}; "
                               "mean ± sd over private fits)",
                      "privacy loss ε (log scale; left = more private)",
                      "test accuracy (fraction correct)", series=tuple(bands + lines),
                      rules=tuple(rules), log_x=True, x_ticks=_eps_ticks(eps),
                      x_domain=(float(eps.min()) / 1.25, float(eps.max()) * 1.25))


plot_accuracy_curve = drawn(accuracy_curve_data)


@validate(result=SENSITIVITY_RESULT)
def sensitivity_data(result) -> FigureData:
    """How far the minimiser moved for each neighbouring data set, against 2/(nΛ).

    One row of points per kind of neighbour (jittered up and down, with a fixed seed, so
    equal distances stay visible), and the bound 2/(nΛ) on the ℓ2 sensitivity of the
    regularised minimiser ([CMS11]_ Cor. 8) as a vertical line. Points ``dist-random``
    and ``dist-adversarial``, rule ``bound`` (when 2/(nΛ) is finite).
    """
    kinds = [k for k in ("random", "adversarial") if np.any(result.kinds == k)]
    colours = {"random": PALETTE["sky"], "adversarial": PALETTE["vermillion"]}
    gen = np.random.default_rng(0)            # jitter only
    series = []
    for j, k in enumerate(kinds):
        d = result.distances[result.kinds == k]
        series.append(Series(f"dist-{k}", f"{k} neighbours (max {d.max():.3g})", d,
                             j + 0.15 * gen.uniform(-1, 1, d.size), kind="points",
                             colour=colours[k], width=1.6))
    right = result.bound
    rules: tuple[Rule, ...] = ()
    if np.isfinite(result.bound):          # 2/(nΛ) overflows for a subnormal Λ: no line then
        rules = (Rule("bound", "x", result.bound, f"bound 2/(nΛ) = {result.bound:.3g}",
                      PALETTE["black"], "solid"),)
    else:
        right = float(result.distances.max())
    x_domain = (0.0, right * 1.08) if np.isfinite(right * 1.08) and right > 0 else None
    return FigureData(f"Sensitivity of the minimiser (n = {result.n}, Λ = {result.lam:g})",
                      "‖w* − w*′‖₂ (distance between minimisers)", "kind of neighbour",
                      series=tuple(series), rules=rules, x_domain=x_domain,
                      y_domain=(-0.6, len(kinds) - 0.4),
                      y_ticks=tuple((j, k) for j, k in enumerate(kinds)))


plot_sensitivity = drawn(sensitivity_data)


@validate(epsilons=EPSILONS, measured=RISKS, bounds=BOUNDS)
def excess_risk_data(epsilons, measured: dict, bounds: dict) -> FigureData:
    """Measured excess regularised risk J(w̃) − J(w*) against the bounds (log-log).

    J is the regularised empirical risk, w* its minimiser and w̃ a private minimiser; the
    bounds are e.g. :func:`dpteach.learning.erm_bounds.excess_risk_bound`. Per method m:
    series ``measured-m`` (the median over the runs), ``measured-m-points``, ``range-m``
    (min to max) and ``bound-m`` (dashed).

    Parameters
    ----------
    measured : dict
        ``method -> array (k, repeats)`` of measured excess risks, one row per ε.
    bounds : dict
        ``method -> array (k,)`` of bounds.
    """
    eps = epsilons
    checked = {m: (vals, bounds.get(m)) for m, vals in measured.items()}
    if not measured or any(vals.shape[0] != eps.size or (b is not None and b.shape != eps.shape)
                           for vals, b in checked.values()):
        raise refuse("measured, bounds", measured, f"≥ 1 method, a row (value) per ε ({eps.size})")
    series = []
    for m, (vals, b) in checked.items():
        colour = METHOD_COLOURS[m]
        median = np.median(vals, axis=1)
        series += [Series(f"range-{m}", "", eps, np.maximum(vals.min(axis=1), 1e-300),
                          kind="band", y2=vals.max(axis=1), colour=colour, opacity=0.15),
                   Series(f"measured-{m}", f"{METHOD_LABELS[m]}: median measured", eps, median,
                          colour=colour),
                   Series(f"measured-{m}-points", "", eps, median, kind="points", colour=colour,
                          width=1.6)]
        if b is not None:
            series.append(Series(f"bound-{m}", f"{METHOD_LABELS[m]}: 95% bound", eps, b,
                                 colour=colour, dash="dashed", width=1.5))
    return FigureData("Excess regularised risk (shaded: min to max of the runs)",
                      "privacy loss ε (log scale; left = more private)",
                      "excess risk J(w̃) − J(w*)", series=tuple(series), log_x=True,
                      log_y=True, x_ticks=_eps_ticks(eps))


plot_excess_risk = drawn(excess_risk_data)


#: lengths of noise vectors
NORMS = array(ndim=1, low=0.0, high=1e15, example=[1.0, 2.0, 3.0])
#: Λ of a scan
LAMBDAS = array(ndim=1, low=1e-12, high=1e6, example=[1e-4, 1e-3, 1e-2])
#: method ("objective", "output" or "none") → accuracy per Λ
ACCURACIES: Domain = Domain("a dict method ('objective', 'output' or 'none') → array of "
                            "accuracies in [0, 1]", lambda name, value: _accuracies(name, value),
                            example={"objective": [0.8, 0.8, 0.7]},
                            bad=[3, {"other": [0.5]}, {"output": [1.5]}, {"output": "ab"}])


@validate(norms=NORMS, d=integer(1, 100_000, example=3),
          beta=real(1e-12, 1e12, low_open=True, example=1.0), bins=integer(2, 10_000, example=60))
def noise_norm_data(norms, d: int, beta: float, *, bins: int = 60) -> FigureData:
    """Histogram of noise lengths ‖b‖ against the Gamma(d, 1/β) density.

    The noise of both algorithms of [CMS11]_ has density ∝ exp(−β‖b‖₂) in ℝ^d; its length
    then has density ∝ r^(d−1) e^(−βr), the Gamma(d, 1/β) distribution
    (:func:`dpteach.mechanisms.l2_laplace.l2_laplace_norm_distribution`). Series
    ``histogram`` (density-normalised bars of the sampled ``norms``) and ``density``.
    """
    from ..mechanisms.l2_laplace import l2_laplace_norm_distribution

    lo, hi = float(norms.min()), float(norms.max())
    hi = lo + max(hi - lo, 1e-3 * max(1.0, abs(lo)))          # all lengths equal: a narrow range
    edges = np.linspace(lo, hi, bins + 1)
    heights, _ = np.histogram(norms, bins=edges, density=True)
    width = float(edges[1] - edges[0])
    r = np.linspace(lo, hi, 300)
    density = l2_laplace_norm_distribution(d, beta).pdf(r)
    series = (Series("histogram", f"lengths of {norms.size:,} draws", edges[:-1] + width / 2,
                     heights, kind="bars", width=width, colour=PALETTE["sky"], opacity=0.8),
              Series("density", f"Gamma(d = {d}, 1/β) density", r, density,
                     colour=PALETTE["black"], width=2.0))
    return FigureData(f"Lengths of the noise vectors in d = {d} dimensions (β = {beta:.3g})",
                      "length of the noise vector ‖b‖₂", "density", series=series,
                      y_domain=(0.0, 1.05 * max(float(heights.max()), float(density.max()))))


plot_noise_norm = drawn(noise_norm_data)


@validate(lams=LAMBDAS, accuracy=ACCURACIES, baseline=PROBABILITY.or_none(),
          epsilon=real(1e-6, 1e3, low_open=True, example=1.0))
def lambda_scan_data(lams, accuracy: dict, *, epsilon: float, baseline: float | None = None
                     ) -> FigureData:
    """Test accuracy against the regularisation strength Λ (log axis), one line per method.

    Series ``accuracy-<method>`` and ``marker-<method>``; rule ``baseline``.

    Parameters
    ----------
    accuracy : dict
        ``method -> array (k,)`` of (mean) test accuracies, one per Λ of ``lams``;
        ``"none"`` (the non-private model) is drawn dashed.
    epsilon : float
        The ε of the private fits (in the title).
    baseline : float, optional
        Accuracy of always predicting the majority class (a dotted reference line).
    """
    if any(np.asarray(v).shape != lams.shape for v in accuracy.values()):
        raise refuse("accuracy", accuracy, f"one value per Λ ({lams.size}) per method")
    series = []
    for m, acc in accuracy.items():
        colour = METHOD_COLOURS[m]
        dash = "dashed" if m == "none" else "solid"
        series += [Series(f"accuracy-{m}", METHOD_LABELS[m], lams, np.asarray(acc, float),
                          colour=colour, dash=dash),
                   Series(f"marker-{m}", "", lams, np.asarray(acc, float), kind="points",
                          colour=colour, width=1.6)]
    rules: tuple[Rule, ...] = ()
    if baseline is not None:
        rules = (Rule("baseline", "y", baseline, f"majority class ({baseline:.3f})", "grey",
                      "dotted"),)
    return FigureData(f"Accuracy against the regularisation Λ at ε = {epsilon:g} "
                      "(mean over private fits)",
                      "regularisation strength Λ (log scale)", "test accuracy (fraction correct)",
                      series=tuple(series), rules=rules, log_x=True,
                      x_ticks=tuple((float(v), f"{v:g}") for v in lams),
                      x_domain=(float(lams.min()) / 1.5, float(lams.max()) * 1.5))


plot_lambda_scan = drawn(lambda_scan_data)


def _line(model, name: str = "model"):
    """(coef (2,), intercept) of a fitted two-feature linear model or a pair."""
    if hasattr(model, "coef_"):
        coef, b = model.coef_, np.ravel(model.intercept_)
        b = b[0] if b.size else b
    elif isinstance(model, (tuple, list)) and len(model) == 2:
        coef, b = model
    else:
        raise MODEL.refuse(name, model)
    coef, b = _COEF(f"{name} coef", coef), _INTERCEPT(f"{name} intercept", b)
    if not np.any(coef):
        raise refuse(f"{name} coef", coef, "other than 0 (a boundary to draw)")
    return coef, float(b[0])


_COEF: Domain = array(ndim=(1, 2), min_size=2, max_size=2, low=-1e15, high=1e15,
              text="the coefficients of a model of 2 features (2 finite numbers)").flat()
_INTERCEPT: Domain = array(ndim=(0, 1), max_size=1, low=-1e15, high=1e15).flat()


def _lines(name: str, value: Any) -> list:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise MODELS.refuse(name, value)
    return [_line(model, f"{name}[{i}]") for i, model in enumerate(value)]


def _by_method(name: str, value: Any, ndim: int) -> dict:
    """method → array of ``ndim`` dimensions (measured excess risks, or bounds)."""
    if not isinstance(value, dict):
        raise RISKS.refuse(name, value)
    values = array(ndim=ndim)
    return {METHOD(f"{name} key (method)", m): values(f"{name}[{m!r}]", v)
            for m, v in value.items()}


def _accuracies(name: str, value: Any) -> dict:
    if not isinstance(value, dict) or not value or not set(value) <= set(METHOD_LABELS):
        raise refuse(name, value, f"a non-empty dict with keys among {sorted(METHOD_LABELS)}")
    return {m: _ACCURACY(f"{name}[{m!r}]", v) for m, v in value.items()}


_ACCURACY = array(ndim=1, low=0, high=1)
