"""Figures for private logistic regression (notebook 06 and the app page).

Each function validates its arguments, draws on ``ax`` (or on a new
pyplot-free figure from :func:`dpteach.plots._style.new_axes`) and returns the
:class:`matplotlib.figure.Figure`. Lines carry a ``gid`` so tests can find the
plotted data.

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate. Differentially
   private empirical risk minimization. JMLR 12:1069-1109, 2011.
"""

from __future__ import annotations

import numpy as np

from .._validation import (
    ParameterError,
    check_array,
    check_bool,
    check_choice,
    check_in_range,
)
from ..learning.erm_experiments import AccuracyCurve, SensitivityResult, ToyFits
from ._style import PALETTE, new_axes

__all__ = [
    "plot_decision_boundaries",
    "plot_toy_boundaries",
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


def _draw_line(ax, coef, b, xlim, ylim, **kw):
    """Draw {x : coefᵀx + b = 0} clipped to the box."""
    (x0, x1), (y0, y1) = xlim, ylim
    if abs(coef[1]) >= abs(coef[0]):
        if coef[1] == 0:
            return
        xs = np.array([x0, x1])
        ys = -(b + coef[0] * xs) / coef[1]
    else:
        ys = np.array([y0, y1])
        xs = -(b + coef[1] * ys) / coef[0]
    ax.plot(xs, ys, **kw)


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
    X = check_array("X", X, ndim=2)
    if X.shape[1] != 2:
        raise ParameterError(f"X must have 2 columns; got shape {X.shape}")
    y = check_array("y", y, ndim=1)
    if y.shape != (X.shape[0],) or np.unique(y).size > 2:
        raise ParameterError("y must hold one label per row of X, with at most two classes; got y "
                             f"of shape {y.shape} with {np.unique(y).size} classes")
    method = check_choice("method", method, ("objective", "output"))
    for arg, text in (("label", label), ("title", title)):
        if text is not None and not isinstance(text, str):
            raise TypeError(f"{arg} must be a string or None; got {arg}={text!r:.60}")
    if isinstance(private, (str, bytes)) or not hasattr(private, "__iter__"):
        raise TypeError("private must be a sequence of fitted models or (coef, intercept) "
                        f"pairs; got private={private!r:.60}")
    private = [_line(model, f"private[{i}]") for i, model in enumerate(private)]
    nonprivate = _line(nonprivate, "nonprivate")
    fig, ax = new_axes(ax, figsize=(5.0, 4.4))
    pad = 0.5
    xlim = (X[:, 0].min() - pad, X[:, 0].max() + pad)
    ylim = (X[:, 1].min() - pad, X[:, 1].max() + pad)
    classes = np.unique(y)
    for k, c in enumerate(classes[:2]):
        m = y == c
        ax.scatter(X[m, 0], X[m, 1], s=14, marker="os"[k],
                   color=(PALETTE["sky"], PALETTE["orange"])[k], edgecolor="white",
                   linewidth=0.4, label=f"class {c}", zorder=1)
    for i, (coef, b) in enumerate(private):
        _draw_line(ax, coef, b, xlim, ylim, color=METHOD_COLOURS[method], lw=1.2, alpha=0.75,
                   gid=f"private-{i}",
                   label=(label or f"{len(private)} private fits") if i == 0 else None,
                   zorder=2)
    coef, b = nonprivate
    _draw_line(ax, coef, b, xlim, ylim, color=PALETTE["black"], lw=2.6, ls="--",
               gid="nonprivate", label="non-private", zorder=3)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_xlabel("feature 1")
    ax.set_ylabel("feature 2")
    ax.set_title(title or "Decision boundaries")
    ax.legend(fontsize="small", loc="lower right")
    return fig


def plot_toy_boundaries(fits, *, ax=None):
    """Private and non-private decision boundaries on the toy data (drawing only).

    Draws the data, the non-private boundary and one thin line per private fit
    with :func:`plot_decision_boundaries`; the fitting happens in
    :func:`dpteach.learning.erm_experiments.toy_fits`, e.g.
    ``plot_toy_boundaries(toy_fits(epsilon=1.0, lam=0.01))``.

    Parameters
    ----------
    fits : dpteach.learning.erm_experiments.ToyFits
    ax : matplotlib Axes, optional
    """
    if not isinstance(fits, ToyFits):
        raise TypeError(f"fits must be the ToyFits of toy_fits(); got fits={fits!r:.60} of type "
                        f"{type(fits).__name__}")
    title = (f"{METHOD_LABELS[fits.method]}: ε = {fits.epsilon:g}, Λ = {fits.lam:g}, "
             f"n = {fits.n}")
    return plot_decision_boundaries(fits.X, fits.y, fits.nonprivate, fits.private,
                                    method=fits.method, title=title, ax=ax)


def plot_accuracy_curve(curve, *, baseline: float | None = None, title: str | None = None,
                        show_spread: bool = True, ax=None):
    """Test accuracy against ε (log axis): mean ± one standard deviation per method.

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
    if not isinstance(curve, AccuracyCurve):
        raise TypeError(f"curve must be an AccuracyCurve; got {type(curve).__name__}")
    if baseline is not None:
        baseline = check_in_range("baseline", baseline, 0.0, 1.0)
    show_spread = check_bool("show_spread", show_spread)
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a string or None; got title={title!r:.60}")
    fig, ax = new_axes(ax)
    eps = curve.epsilons
    for m in curve.accuracy:
        mean, sd = curve.mean(m), curve.std(m)
        ax.plot(eps, mean, "o-", color=METHOD_COLOURS[m], lw=2, ms=4, gid=f"mean-{m}",
                label=METHOD_LABELS[m])
        if show_spread:
            ax.fill_between(eps, mean - sd, np.minimum(mean + sd, 1.0), color=METHOD_COLOURS[m],
                            alpha=0.18, lw=0)
    ax.axhline(curve.nonprivate_accuracy, color=PALETTE["black"], ls="--", lw=1.5,
               gid="nonprivate", label=f"non-private ({curve.nonprivate_accuracy:.3f})")
    if baseline is not None:
        ax.axhline(baseline, color="grey", ls=":", lw=1.5, gid="baseline",
                   label=f"majority class ({baseline:.3f})")
    _log_eps_axis(ax, eps)
    ax.set_ylabel("test accuracy")
    ax.set_title(title or f"Accuracy vs ε (Λ = {curve.lam:g}, n = {curve.n_train}; "
                          "mean ± sd over private fits)")
    ax.legend(fontsize="small", loc="lower right")
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
