"""Figures for private logistic regression (notebook 06 and the app page).

Each ``plot_*`` function validates its arguments, draws on ``ax`` (or on a new
pyplot-free figure from :func:`dpteach.plots._style.new_axes`) and returns the
:class:`matplotlib.figure.Figure`. Lines carry a ``gid`` so tests can find the
plotted data.

The two figures the app page shows have a data function returning a
:class:`~dpteach.plots.figure.FigureData` (:func:`toy_boundaries_data`,
:func:`accuracy_curve_data`); their ``plot_*`` functions draw that data with
:func:`~dpteach.plots.figure.to_matplotlib`, and the app draws it in the browser
with :func:`~dpteach.plots.figure.to_vega_lite`, so the numbers are computed once,
in one place.

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate. Differentially
   private empirical risk minimization. JMLR 12:1069-1109, 2011.
"""

from __future__ import annotations

import numpy as np

from .._validation import ParameterError, check_array, check_bool, check_choice, check_in_range
from ..learning.erm_experiments import AccuracyCurve, SensitivityResult, ToyFits
from ._style import PALETTE, new_axes
from .figure import FigureData, Rule, Series, to_matplotlib

__all__ = [
    "plot_decision_boundaries",
    "toy_boundaries_data",
    "plot_toy_boundaries",
    "accuracy_curve_data",
    "plot_accuracy_curve",
    "plot_sensitivity",
    "plot_excess_risk",
]

METHOD_COLOURS = {"objective": PALETTE["blue"], "output": PALETTE["vermillion"],
                  "none": PALETTE["black"]}
METHOD_LABELS = {"objective": "objective perturbation (Alg. 2)",
                 "output": "output perturbation (Alg. 1)",
                 "none": "non-private"}


def _line(model, name: str = "model"):
    """(coef (2,), intercept) of a fitted two-feature linear model or a pair.

    ``name`` is the argument named in error messages.
    """
    if hasattr(model, "coef_"):
        coef, b = model.coef_, np.ravel(model.intercept_)
        b = b[0] if b.size else b
    elif isinstance(model, (tuple, list)) and len(model) == 2:
        coef, b = model
    else:
        raise TypeError(f"{name} must be a fitted linear model (coef_, intercept_) or a pair "
                        f"(coef, intercept); got {name}={model!r:.60}")
    coef = check_array(f"{name} coef", coef, ndim=(1, 2)).ravel()
    b = check_array(f"{name} intercept", b, ndim=0).item()
    if coef.shape != (2,):
        raise ParameterError(f"decision boundaries need models with 2 features; got {name} with coef "
                             f"of shape {coef.shape}")
    if not np.any(coef):
        raise ParameterError(f"{name} has coef = 0: no decision boundary to draw")
    return coef, b


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


def _check_points(X, y):
    X = check_array("X", X, ndim=2)
    if X.shape[1] != 2:
        raise ParameterError(f"X must have 2 columns; got shape {X.shape}")
    y = check_array("y", y, ndim=1)
    if y.shape != (X.shape[0],) or np.unique(y).size > 2:
        raise ParameterError("y must hold one label per row of X, with at most two classes; got y "
                             f"of shape {y.shape} with {np.unique(y).size} classes")
    return X, y


def _decision_boundaries_data(X, y, nonprivate, private=(), *, method: str = "objective",
                              label: str | None = None, title: str | None = None) -> FigureData:
    """What :func:`plot_decision_boundaries` draws (arguments as there), as a FigureData.

    Series: ``class-<c>`` (the points of each class), ``private-<i>`` (thin lines,
    only the first labelled) and ``nonprivate`` (thick, dashed), each line clipped to
    the plotted box: the data's range widened by 0.5 on each side.
    """
    X, y = _check_points(X, y)
    method = check_choice("method", method, ("objective", "output"))
    for arg, text in (("label", label), ("title", title)):
        if text is not None and not isinstance(text, str):
            raise TypeError(f"{arg} must be a string or None; got {arg}={text!r:.60}")
    if isinstance(private, (str, bytes)) or not hasattr(private, "__iter__"):
        raise TypeError("private must be a sequence of fitted models or (coef, intercept) "
                        f"pairs; got private={private!r:.60}")
    private = [_line(model, f"private[{i}]") for i, model in enumerate(private)]
    nonprivate = _line(nonprivate, "nonprivate")
    pad = 0.5
    xlim = (float(X[:, 0].min() - pad), float(X[:, 0].max() + pad))
    ylim = (float(X[:, 1].min() - pad), float(X[:, 1].max() + pad))
    series = []
    for k, c in enumerate(np.unique(y)[:2]):
        m = y == c
        series.append(Series(f"class-{c:g}", f"class {c:g}", X[m, 0], X[m, 1], kind="points",
                             colour=(PALETTE["sky"], PALETTE["orange"])[k], width=1.5))
    for i, (coef, b) in enumerate(private):
        series.append(Series(f"private-{i}",
                             (label or f"{len(private)} private fits") if i == 0 else "",
                             *_segment_in_box(coef, b, xlim, ylim),
                             colour=METHOD_COLOURS[method], width=1.2, opacity=0.75))
    series.append(Series("nonprivate", "non-private", *_segment_in_box(*nonprivate, xlim, ylim),
                         colour=PALETTE["black"], width=2.6, dash="dashed"))
    return FigureData(title or "Decision boundaries", "feature 1", "feature 2",
                      series=tuple(series), x_domain=xlim, y_domain=ylim)


def _log_eps_axis(ax, eps):
    """Log-scale ε axis with a tick at each ε of the grid, labelled plainly."""
    ax.set_xscale("log")
    ax.set_xticks(eps, [f"{e:g}" for e in eps])
    ax.minorticks_off()
    ax.set_xlabel("privacy loss ε (log scale; left = more private)")


def plot_decision_boundaries(X, y, nonprivate, private=(), *, method: str = "objective",
                             label: str | None = None, title: str | None = None, ax=None):
    """Data, the non-private decision boundary and several private ones.

    Parameters
    ----------
    X : array (n, 2)
    y : array (n,)
        Two classes.
    nonprivate : fitted model with ``coef_``/``intercept_`` or ``(coef, intercept)``
    private : sequence of such models
        Private fits (e.g. the same ε with different seeds); each drawn thin.
    method : {"objective", "output"}
        Colour of the private lines.
    label : str, optional
        Legend entry of the thin lines (default ``"k private fits"``).
    title : str, optional
    ax : matplotlib Axes, optional
    """
    data = _decision_boundaries_data(X, y, nonprivate, private, method=method, label=label,
                                     title=title)
    return _draw(data, ax, (5.0, 4.4), "lower right")[0]


def _draw(data: FigureData, ax, figsize, legend_loc: str):
    """``(fig, ax)``: ``data`` drawn by :func:`~dpteach.plots.figure.to_matplotlib`, the
    legend at ``legend_loc``."""
    fig, ax = new_axes(ax, figsize=figsize)
    to_matplotlib(data, ax=ax)
    ax.legend(fontsize="small", loc=legend_loc)
    return fig, ax


def toy_boundaries_data(fits) -> FigureData:
    """Private and non-private decision boundaries on the toy data, as a FigureData.

    The fits come from :func:`dpteach.learning.erm_experiments.toy_fits`. Each
    model was trained on the bounded rows ``z = [x/R, 1]/√2`` of
    :func:`~dpteach.learning.logistic.bound_rows`; its boundary ``wᵀz = 0`` is, in the
    raw features, the line ``coef_ᵀx + intercept_ = 0`` (``coef_ = w[:2]/(R√2)``,
    ``intercept_ = w[2]/√2``), which is what is drawn, clipped to the plotted box (the
    data's range widened by 0.5). The title states ε (the fits are pure ε-DP, δ = 0),
    Λ and n.

    Parameters
    ----------
    fits : dpteach.learning.erm_experiments.ToyFits

    Returns
    -------
    FigureData
        Series ``class-0`` and ``class-1`` (the points, ``points``), ``private-0`` …
        ``private-<k-1>`` (one thin line per private fit, in the method's colour) and
        ``nonprivate`` (thick, dashed, black: the highlighted reference).
    """
    if not isinstance(fits, ToyFits):
        raise TypeError(f"fits must be the ToyFits of toy_fits(); got fits={fits!r:.60} of type "
                        f"{type(fits).__name__}")
    title = (f"{METHOD_LABELS[fits.method]}: ε = {fits.epsilon:g} (δ = 0), Λ = {fits.lam:g}, "
             f"n = {fits.n}")
    return _decision_boundaries_data(fits.X, fits.y, fits.nonprivate, fits.private,
                                     method=fits.method, title=title)


def plot_toy_boundaries(fits, *, ax=None):
    """Private and non-private decision boundaries on the toy data (drawing only).

    Draws :func:`toy_boundaries_data`: the data, the non-private boundary and one
    thin line per private fit (as :func:`plot_decision_boundaries`); the fitting
    happens in :func:`dpteach.learning.erm_experiments.toy_fits`, e.g.
    ``plot_toy_boundaries(toy_fits(epsilon=1.0, lam=0.01))``.

    Parameters
    ----------
    fits : dpteach.learning.erm_experiments.ToyFits
    ax : matplotlib Axes, optional
    """
    return _draw(toy_boundaries_data(fits), ax, (5.0, 4.4), "lower right")[0]


def accuracy_curve_data(curve, *, baseline: float | None = None, nonprivate: bool = True,
                        title: str | None = None, show_spread: bool = True) -> FigureData:
    """Test accuracy against ε (log axis), mean ± one standard deviation per method.

    Parameters
    ----------
    curve : dpteach.learning.erm_experiments.AccuracyCurve
    baseline : float in [0, 1], optional
        Accuracy of always predicting the majority class (a dotted reference line).
    nonprivate : bool, default True
        Draw the test accuracy of the exact non-private minimiser of the same objective
        (``curve.nonprivate_accuracy``) as a dashed reference line.
    title : str, optional
        Default: ``"Accuracy vs ε (Λ = …, n = …; mean ± sd over private fits)"``.
    show_spread : bool
        Shade mean ± one standard deviation (ddof = 1) over the trials; the upper
        edge is capped at accuracy 1, and a method with one trial gets no spread.

    Returns
    -------
    FigureData
        Series ``mean-<method>`` (lines), ``marker-<method>`` (the measured ε, points)
        and ``sd-<method>`` (bands, if ``show_spread``); rules ``nonprivate`` and
        ``baseline``. Log ε axis spanning the curve's ε with a margin of a factor 1.25.
    """
    if not isinstance(curve, AccuracyCurve):
        raise TypeError(f"curve must be an AccuracyCurve; got {type(curve).__name__}")
    if baseline is not None:
        baseline = check_in_range("baseline", baseline, 0.0, 1.0)
    nonprivate = check_bool("nonprivate", nonprivate)
    show_spread = check_bool("show_spread", show_spread)
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a string or None; got title={title!r:.60}")
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
                      rules=tuple(rules), log_x=True,
                      x_domain=(float(eps.min()) / 1.25, float(eps.max()) * 1.25))


def plot_accuracy_curve(curve, *, baseline: float | None = None, title: str | None = None,
                        show_spread: bool = True, ax=None):
    """Test accuracy against ε (log axis): mean ± one standard deviation per method.

    Draws :func:`accuracy_curve_data`, with a tick at each ε of the curve.

    Parameters
    ----------
    curve : dpteach.learning.erm_experiments.AccuracyCurve
    baseline : float, optional
        Accuracy of always predicting the majority class (drawn dotted).
    title : str, optional
    show_spread : bool
        Shade mean ± one standard deviation over the trials.
    ax : matplotlib Axes, optional
    """
    data = accuracy_curve_data(curve, baseline=baseline, title=title, show_spread=show_spread)
    fig, ax = _draw(data, ax, (6.4, 4.0), "lower right")
    _log_eps_axis(ax, np.asarray(curve.epsilons, dtype=float))
    return fig


def plot_sensitivity(result, *, ax=None):
    """How far the minimiser moved for each neighbouring data set, against 2/(nΛ).

    Parameters
    ----------
    result : dpteach.learning.erm_experiments.SensitivityResult
    ax : matplotlib Axes, optional
    """
    if not isinstance(result, SensitivityResult):
        raise TypeError(f"result must be a SensitivityResult; got {type(result).__name__}")
    fig, ax = new_axes(ax)
    kinds = [k for k in ("random", "adversarial") if np.any(result.kinds == k)]
    colours = {"random": PALETTE["sky"], "adversarial": PALETTE["vermillion"]}
    gen = np.random.default_rng(0)            # jitter only
    for j, k in enumerate(kinds):
        d = result.distances[result.kinds == k]
        ax.scatter(d, j + 0.15 * gen.uniform(-1, 1, d.size), s=16, color=colours[k],
                   label=f"{k} neighbours (max {d.max():.3g})", gid=f"dist-{k}")
    right = result.bound
    if np.isfinite(result.bound):          # 2/(nΛ) overflows for a subnormal Λ: no line then
        ax.axvline(result.bound, color=PALETTE["black"], lw=2, gid="bound",
                   label=f"bound 2/(nΛ) = {result.bound:.3g}")
    else:
        right = float(result.distances.max())
    ax.set_yticks(range(len(kinds)), kinds)
    ax.set_ylim(-0.6, len(kinds) - 0.4)
    if np.isfinite(right * 1.08) and right > 0:
        ax.set_xlim(0, right * 1.08)
    ax.set_xlabel("‖w* − w*′‖₂ (distance between minimisers)")
    ax.set_title(f"Sensitivity of the minimiser (n = {result.n}, Λ = {result.lam:g})")
    ax.legend(fontsize="small", loc="center left")
    return fig


def plot_excess_risk(epsilons, measured: dict, bounds: dict, *, ax=None):
    """Measured excess regularised risk J(w_priv) − J(w*) against the bounds (log-log).

    Parameters
    ----------
    epsilons : array (k,)
        Finite, > 0.
    measured : dict
        ``method -> array (k, repeats)`` of measured excess risks (≥ 0);
        methods among "objective" and "output".
    bounds : dict
        ``method -> array (k,)`` of bounds (e.g.
        :func:`dpteach.learning.erm.excess_risk_bound`).
    ax : matplotlib Axes, optional
    """
    eps = check_array("epsilons", epsilons, ndim=1)
    if np.any(eps <= 0):
        raise ParameterError(f"epsilons must be > 0; got epsilons={epsilons!r:.60}")
    for arg, d in (("measured", measured), ("bounds", bounds)):
        if not isinstance(d, dict):
            raise TypeError(f"{arg} must be a dict method -> array; got {arg}={d!r:.60}")
    if not measured:
        raise ParameterError("measured must have at least one method; got measured={}")
    for arg, d in (("measured", measured), ("bounds", bounds)):
        for m in d:
            check_choice(f"{arg} key (method)", m, ("objective", "output"))
    checked = {}
    for m, vals in measured.items():
        vals = check_array(f"measured[{m!r}]", vals, ndim=2)
        if vals.shape[0] != eps.shape[0]:
            raise ParameterError(f"measured[{m!r}] must have one row per ε; got shape {vals.shape}")
        b = None
        if m in bounds:
            b = check_array(f"bounds[{m!r}]", bounds[m], ndim=1)
            if b.shape != eps.shape:
                raise ParameterError(f"bounds[{m!r}] must have one value per ε; got shape {b.shape}")
        checked[m] = (vals, b)
    fig, ax = new_axes(ax)
    for m, (vals, b) in checked.items():
        ax.plot(eps, np.median(vals, axis=1), "o-", color=METHOD_COLOURS[m], lw=2, ms=4,
                gid=f"measured-{m}", label=f"{METHOD_LABELS[m]}: median measured")
        ax.fill_between(eps, np.maximum(vals.min(axis=1), 1e-300), vals.max(axis=1),
                        color=METHOD_COLOURS[m], alpha=0.15, lw=0)
        if b is not None:
            ax.plot(eps, b, "--", color=METHOD_COLOURS[m], lw=1.5, gid=f"bound-{m}",
                    label=f"{m}: 95% bound")
    _log_eps_axis(ax, eps)
    ax.set_yscale("log")
    ax.set_ylabel("J(w_priv) − J(w*)")
    ax.set_title("Excess regularised empirical risk (shaded: min-max of runs)")
    ax.legend(fontsize="small", loc="upper right")
    return fig
