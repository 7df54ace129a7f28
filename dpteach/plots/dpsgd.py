"""Figures for DP-SGD and membership inference (notebook 07 and the DP-SGD playground).

Each ``plot_*`` function validates its arguments, draws on ``ax`` (or on a new
pyplot-free figure from :func:`dpteach.plots._style.new_axes`) and returns the
:class:`matplotlib.figure.Figure`. Curves carry a ``gid`` so tests can find
the plotted data.

The figures of the DP-SGD playground come in two renderings of one computation:
:func:`grad_norm_histogram_data` and :func:`training_history_data` return
:class:`~dpteach.plots.figure.FigureData` (drawn by matplotlib in
:func:`plot_grad_norm_histogram` and :func:`plot_training_history`, by the browser in
the app); the heat map of P(class 1), which a FigureData cannot hold, is
:func:`decision_grid` (the numbers) drawn by :func:`plot_decision_boundary`
(matplotlib) or :func:`decision_boundary_spec` (Vega-Lite), both in the one palette.

References
----------
.. [ACG16] M. Abadi et al. Deep learning with differential privacy. CCS 2016.
.. [CCN22] N. Carlini et al. Membership inference attacks from first
   principles. IEEE S&P 2022 (ROC curves on log-log axes).
.. [KOV15] P. Kairouz, S. Oh and P. Viswanath. The composition theorem for
   differential privacy. ICML 2015, Theorem 2.1 (the DP ROC region).
"""

from __future__ import annotations

import numpy as np

from .._validation import (
    ParameterError,
    check_array,
    check_bool,
    check_delta,
    check_epsilon,
    check_in_range,
    check_int,
)
from ..attacks.roc import AttackResult, dp_roc_bound
from ..learning.dpsgd import MAX_GRAD_NORM
from ._style import CYCLE, PALETTE, new_axes
from .figure import FONT_SIZES, FigureData, Rule, Series, to_matplotlib

__all__ = [
    "plot_mia_roc",
    "plot_privacy_utility",
    "grad_norm_histogram_data",
    "plot_grad_norm_histogram",
    "training_history_data",
    "plot_training_history",
    "plot_decision_boundary",
    "decision_grid",
    "decision_boundary_spec",
]

#: Colours of P(class 1) from 0 to 1 (heat maps of :func:`plot_decision_boundary` and
#: :func:`decision_boundary_spec`): class 0 blue, undecided white, class 1 vermillion.
PROBABILITY_COLOURS = (PALETTE["blue"], "#FFFFFF", PALETTE["vermillion"])
#: Colours of the training points of class 0 and class 1 on the heat maps.
CLASS_COLOURS = (PALETTE["blue"], PALETTE["vermillion"])

_LW = 2.0
_FLOAT_MAX = float(np.finfo(float).max)


def _fmt_eps(e: float) -> str:
    return "∞" if not np.isfinite(e) else f"{e:.3g}"


def plot_mia_roc(results, *, epsilon=None, delta: float = 0.0, log: bool = True,
                 min_fpr: float | None = None, ax=None):
    """ROC curves of membership-inference attacks, with the (ε, δ)-DP ceiling.

    Parameters
    ----------
    results : AttackResult or sequence of AttackResult
        Curves to draw (labelled by ``name`` and AUC).
    epsilon : float or sequence of float, optional
        Draw the ceiling TPR ≤ min(e^ε FPR + δ, 1 − e^{−ε}(1 − δ − FPR))
        ([KOV15]_, Thm. 2.1) for each ε: no attack on an (ε, δ)-DP model can
        go above it.
    delta : float in [0, 1)
    log : bool, default True
        Log-log axes, as recommended by [CCN22]_: what matters is the TPR
        at low FPR. Points with FPR = 0 or TPR = 0 cannot be drawn on log
        axes and are left out.
    min_fpr : float in (0, 1), optional
        Left end of the FPR axis (default: 1 / largest number of non-members).
    ax : matplotlib Axes, optional
    """
    if isinstance(results, AttackResult):
        results = [results]
    if isinstance(results, (str, bytes)) or not hasattr(results, "__iter__"):
        raise TypeError("results must be an AttackResult or a sequence of AttackResult; "
                        f"got results={results!r:.60}")
    results = list(results)
    if not results or not all(isinstance(r, AttackResult) for r in results):
        raise TypeError("results must be an AttackResult or a sequence of AttackResult")
    eps_list = ([] if epsilon is None else
                [check_epsilon("epsilon", e) for e in check_array("epsilon", epsilon, ndim=(0, 1),
                                                       finite=False, allow_bool=False).ravel()])
    d = check_delta("delta", delta)
    log = check_bool("log", log)
    if min_fpr is None:
        min_fpr = 1.0 / max(r.n_nonmembers for r in results) if log else 0.0
    else:
        min_fpr = check_in_range("min_fpr", min_fpr, 0.0, 1.0, low_inclusive=False,
                                 high_inclusive=False)
    fig, ax = new_axes(ax, figsize=(5.6, 4.6))
    grid = np.geomspace(max(min_fpr, 1e-12), 1, 400) if log else np.linspace(0, 1, 401)
    ax.plot(grid, grid, ":", color="grey", lw=1, label="chance (TPR = FPR)", gid="chance")
    styles = ["--", "-.", (0, (6, 2, 1, 2, 1, 2)), (0, (1, 1))]
    for k, e in enumerate(eps_list):
        ax.plot(grid, dp_roc_bound(grid, e, d), linestyle=styles[k % len(styles)],
                color=("#000000", "#555555")[k % 2], lw=1.5, gid=f"dp-bound-{e:g}",
                label=f"DP ceiling ε = {e:g}")
    for k, r in enumerate(results):
        fpr, tpr = r.fpr, r.tpr
        if log:
            keep = (fpr > 0) & (tpr > 0)
            fpr, tpr = fpr[keep], tpr[keep]
        ax.plot(fpr, tpr, "-", color=CYCLE[k % len(CYCLE)], lw=_LW, gid=f"roc-{k}",
                label=f"{r.name} (AUC {r.auc:.2f})" if r.name else f"AUC {r.auc:.2f}")
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(min_fpr, 1)
        ax.set_ylim(min_fpr, 1.05)
    else:
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
    ax.set_xlabel("false-positive rate (non-members called members)")
    ax.set_ylabel("true-positive rate (members found)")
    title = "Membership inference ROC"
    if eps_list:
        title += f" vs the DP ceiling (δ = {d:g})"
    ax.set_title(title)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small", loc="lower right")
    return fig


def plot_privacy_utility(epsilons, accuracies, *, baseline: float | None = None,
                         label: str = "DP-SGD", ax=None):
    """Test accuracy versus ε (log axis), with the non-private model as a line.

    Parameters
    ----------
    epsilons : array of float > 0
    accuracies : array of float in [0, 1], same length
    baseline : float in [0, 1], optional
        Accuracy without privacy (drawn as a horizontal line).
    label : str
    ax : matplotlib Axes, optional
    """
    eps = check_array("epsilons", epsilons, ndim=1)
    acc = check_array("accuracies", accuracies, ndim=1)
    if eps.shape != acc.shape:
        raise ParameterError("epsilons and accuracies must have the same length; "
                             f"got {eps.size} and {acc.size}")
    if np.any(eps <= 0):
        raise ParameterError(f"epsilons must be > 0; got epsilons={epsilons!r:.60}")
    if np.any(acc < 0) or np.any(acc > 1):
        raise ParameterError(f"accuracies must lie in [0, 1]; got accuracies={accuracies!r:.60}")
    if baseline is not None:
        baseline = check_in_range("baseline", baseline, 0.0, 1.0)
    if not isinstance(label, str):
        raise TypeError(f"label must be a string; got label={label!r:.60}")
    fig, ax = new_axes(ax)
    order = np.argsort(eps)
    ax.plot(eps[order], acc[order], "o-", color=PALETTE["blue"], lw=_LW, label=label, gid="utility")
    if baseline is not None:
        ax.axhline(baseline, color=PALETTE["vermillion"], ls="--", lw=1.5,
                   label=f"non-private ({baseline:.3f})", gid="baseline")
    ax.set_xscale("log")
    ax.set_xlabel("ε (smaller = more private)")
    ax.set_ylabel("test accuracy")
    ax.set_title("Privacy–utility trade-off")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", loc="lower right")
    return fig


def grad_norm_histogram_data(norms, max_grad_norm: float | None = None, *,
                             bins: int = 40) -> FigureData:
    """Histogram of per-example gradient norms, before and after clipping to C.

    Clipping maps ‖g_i‖ to min(‖g_i‖, C) ([ACG16]_ Alg. 1): everything to
    the right of C piles up at C.

    Parameters
    ----------
    norms : array of float ≥ 0
    max_grad_norm : float in (0, 1e15], optional
        C (:data:`~dpteach.learning.dpsgd.MAX_GRAD_NORM` at most); if given, add
        the histogram of the clipped norms and a rule at C.
    bins : int in [2, 10 000]

    Returns
    -------
    FigureData
        ``bars`` series ``before`` (the counts of ``norms`` in ``bins`` equal bins from
        0 to 1.02 × the largest norm) and, with C, ``after`` (the counts of
        min(norms, C) in bins from 0 to 1.02 × max(largest norm, C)), and the rule
        ``clip`` at C. The title gives n and the share clipped.
    """
    norms = check_array("norms", norms, ndim=1)
    if np.any(norms < 0):
        raise ParameterError(f"norms must be >= 0; got min(norms)={norms.min()!r}")
    bins = check_int("bins", bins, minimum=2, maximum=10_000)
    C = None if max_grad_norm is None else check_in_range("max_grad_norm", max_grad_norm, 0.0,
                                                          MAX_GRAD_NORM, low_inclusive=False)
    top = float(norms.max()) if norms.max() > 0 else 1.0

    def bars(key, label, values, right, colour, opacity):
        edges = np.linspace(0, min(right * 1.02, _FLOAT_MAX), bins + 1)
        counts, _ = np.histogram(values, bins=edges)
        width = float(edges[1] - edges[0])
        return Series(key, label, edges[:-1] + width / 2, counts, kind="bars", width=width,
                      colour=colour, opacity=opacity)

    series = [bars("before", "before clipping", norms, top, PALETTE["sky"], 0.8)]
    rules = []
    title = f"Per-example gradient norms (n = {norms.size})"
    if C is not None:
        series.append(bars("after", "after clipping", np.minimum(norms, C), max(top, C),
                           PALETTE["vermillion"], 0.55))
        rules.append(Rule("clip", "x", C, f"C = {C:g}", PALETTE["black"], "dashed"))
        title += f": {np.mean(norms > C):.0%} clipped at C = {C:g}"
    highest = max(float(s.y.max()) for s in series)
    return FigureData(title, "‖per-example gradient‖₂ (L2 norm)", "number of examples",
                      series=tuple(series), rules=tuple(rules),
                      y_domain=(0.0, max(1.0, highest * 1.05)))


def plot_grad_norm_histogram(norms, max_grad_norm: float | None = None, *, bins: int = 40,
                             ax=None):
    """Histogram of per-example gradient norms, before and after clipping to C.

    Draws :func:`grad_norm_histogram_data` (arguments as there): clipping maps
    ‖g_i‖ to min(‖g_i‖, C) ([ACG16]_ Alg. 1), so everything to the right of C
    piles up at C.

    Parameters
    ----------
    norms : array of float ≥ 0
    max_grad_norm : float in (0, 1e15], optional
        C (:data:`~dpteach.learning.dpsgd.MAX_GRAD_NORM` at most); if given, draw
        the clipped norms and a line at C.
    bins : int in [2, 10 000]
    ax : matplotlib Axes, optional
    """
    data = grad_norm_histogram_data(norms, max_grad_norm, bins=bins)
    fig, ax = new_axes(ax)
    return to_matplotlib(data, ax=ax)


def _checked_histories(histories) -> dict:
    if not isinstance(histories, dict) or not histories:
        raise TypeError("histories must be a non-empty dict label -> history_ dict; "
                        f"got histories={histories!r:.60}")
    checked = {}
    for name, h in histories.items():
        if not isinstance(h, dict) or not {"epoch", "accuracy", "epsilon"} <= set(h):
            raise TypeError(f"histories[{name!r}] must be a dict with keys 'epoch', 'accuracy' "
                            f"and 'epsilon'; got {h!r:.60}")
        ep = check_array(f"histories[{name!r}]['epoch']", h["epoch"], ndim=1)
        acc = check_array(f"histories[{name!r}]['accuracy']", h["accuracy"], ndim=1)
        eps = check_array(f"histories[{name!r}]['epsilon']", h["epsilon"], ndim=1, finite=False)
        if not ep.shape == acc.shape == eps.shape:
            raise ParameterError(f"histories[{name!r}]: 'epoch', 'accuracy' and 'epsilon' must have "
                                 f"the same length; got {ep.size}, {acc.size}, {eps.size}")
        checked[name] = (ep, acc, eps)
    return checked


def training_history_data(histories, *, delta: float | None = None):
    """Training accuracy and ε spent after each epoch: two charts, one per y scale.

    Parameters
    ----------
    histories : dict
        label → ``DPSGDClassifier.history_`` (dict with "epoch", "accuracy", "epsilon").
    delta : float in [0, 1), optional
        The δ at which the ε of the histories was computed (``DPSGDClassifier.delta``),
        stated in the title of the ε chart.

    Returns
    -------
    (FigureData, FigureData)
        Accuracy per epoch (series ``accuracy-<k>``, y in [0, 1]) and ε per epoch
        (series ``epsilon-<k>``, dashed), for the k-th history, in the colour
        ``CYCLE[k]``; each with markers (series ``accuracy-<k>-points``,
        ``epsilon-<k>-points``) so a one-epoch run shows too. A history whose ε is not
        finite everywhere (no noise: ε = ∞) has no ε series, and the ε chart's title
        says so.
    """
    checked = _checked_histories(histories)
    d = None if delta is None else check_delta("delta", delta)
    acc_series, eps_series, infinite = [], [], []
    for k, (name, (ep, acc, eps)) in enumerate(checked.items()):
        c = CYCLE[k % len(CYCLE)]
        acc_series += [Series(f"accuracy-{k}", f"{name}: accuracy", ep, acc, colour=c),
                       Series(f"accuracy-{k}-points", "", ep, acc, kind="points", colour=c,
                              width=1.2)]
        if np.all(np.isfinite(eps)):
            eps_series += [Series(f"epsilon-{k}", f"{name}: ε", ep, eps, colour=c, width=1.4,
                                  dash="dashed"),
                           Series(f"epsilon-{k}-points", "", ep, eps, kind="points", colour=c,
                                  width=1.2)]
        else:
            infinite.append(str(name))
    at_delta = "" if d is None else f" (δ = {d:g})"
    eps_title = f"Privacy spent: ε{at_delta} after each epoch"
    if infinite:
        eps_title += f"; ε = ∞ (no noise) for {', '.join(infinite)}"
    accuracy = FigureData("Training accuracy after each epoch", "epoch", "training accuracy",
                          series=tuple(acc_series), y_domain=(0.0, 1.0))
    spent = FigureData(eps_title, "epoch", f"ε spent{at_delta}", series=tuple(eps_series))
    return accuracy, spent


def plot_training_history(histories, ax=None):
    """Training accuracy (solid) and ε spent (dashed, right axis) after each epoch.

    Draws the two charts of :func:`training_history_data` on one axes with a second
    y axis on the right.

    Parameters
    ----------
    histories : dict
        label → ``DPSGDClassifier.history_`` (dict with "epoch", "accuracy", "epsilon").
    ax : matplotlib Axes, optional
    """
    accuracy, spent = training_history_data(histories)
    fig, ax = new_axes(ax)
    ax2 = ax.twinx()
    to_matplotlib(accuracy, ax=ax)
    to_matplotlib(spent, ax=ax2)
    for a in (ax, ax2):
        if a.get_legend() is not None:
            a.get_legend().remove()
    ax.set_xlabel("epoch")
    ax.set_ylabel("training accuracy (solid)")
    ax2.set_ylabel("ε spent (dashed)")
    ax2.set_title("")
    ax.set_title("Training with DP-SGD: accuracy and privacy spent")
    ax.grid(True, alpha=0.3)
    lines = ax.get_legend_handles_labels()
    lines2 = ax2.get_legend_handles_labels()
    ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], fontsize="x-small", loc="best")
    return fig


def decision_grid(clf, X, grid_size: int = 60, pad: float = 0.5):
    """P(class 1) of a fitted two-feature classifier on a regular grid around the data.

    Returns ``(x0, x1, p)``: grid coordinates (1-D, ``grid_size`` each) and
    the probabilities, shape (grid_size, grid_size), ``p[j, i]`` at (x0[i], x1[j]).
    Shared by :func:`plot_decision_boundary` and the DP-SGD playground. The one
    computation is ``clf.predict_proba`` on the ``grid_size²`` grid points.

    Parameters
    ----------
    clf : fitted classifier with ``predict_proba`` (two input features)
    X : array (n, 2)
        Finite data; the grid spans its range widened by ``pad`` on each side.
    grid_size : int in [10, 1000]
        Grid points per axis.
    pad : float in [0, 1e6]
        Margin around the data.
    """
    if not callable(getattr(clf, "predict_proba", None)):
        raise TypeError("clf must be a fitted classifier with a predict_proba method; "
                        f"got clf={clf!r:.60}")
    X = check_array("X", X, ndim=2)
    if X.shape[1] != 2:
        raise ParameterError(f"X must have 2 columns; got shape {X.shape}")
    res = check_int("grid_size", grid_size, minimum=10, maximum=1000)
    pad = check_in_range("pad", pad, 0.0, 1e6)
    with np.errstate(over="ignore"):
        x0 = np.linspace(X[:, 0].min() - pad, X[:, 0].max() + pad, res)
        x1 = np.linspace(X[:, 1].min() - pad, X[:, 1].max() + pad, res)
    if not (np.all(np.isfinite(x0)) and np.all(np.isfinite(x1))):
        raise ParameterError("X is too large: the grid around it leaves the float range; got X "
                             f"with max |x| = {np.max(np.abs(X)):.3g}")
    g0, g1 = np.meshgrid(x0, x1)
    p = np.asarray(clf.predict_proba(np.column_stack([g0.ravel(), g1.ravel()])))[:, 1]
    if not np.all(np.isfinite(p)):
        raise ParameterError("clf gave non-finite probabilities on the grid around X (values "
                             f"beyond what it can score); got pad={pad:g} and X with max |x| = "
                             f"{np.max(np.abs(X)):.3g}")
    return x0, x1, p.reshape(g0.shape)


def _check_labels(X, y):
    """``y`` checked against ``X`` (one label per row, at most two classes)."""
    y = check_array("y", y, ndim=1)
    if y.shape != (X.shape[0],) or np.unique(y).size > 2:
        raise ParameterError("y must hold one label per row of X, with at most two classes; got y "
                             f"of shape {y.shape} with {np.unique(y).size} classes")
    return y


def plot_decision_boundary(clf, X, y, *, grid_size: int = 60, title: str | None = None, ax=None):
    """P(class 1) of a fitted two-feature binary classifier as a filled contour, with the data.

    Draws :func:`decision_grid` (the same numbers as :func:`decision_boundary_spec`,
    in the same colours: :data:`PROBABILITY_COLOURS`), with the line P = 0.5, by
    :func:`plot_probability_grid`.

    Parameters
    ----------
    clf : fitted classifier with ``predict_proba`` (two input features, two classes)
    X : array (n, 2)
    y : array (n,) of the two classes
    grid_size : int in [10, 1000]
        Grid points per axis.
    title : str, optional
    ax : matplotlib Axes, optional
    """
    x0, x1, p = decision_grid(clf, X, grid_size)
    return plot_probability_grid(x0, x1, p, X, y, title=title, ax=ax)


def plot_probability_grid(x0, x1, p, X, y, *, title: str | None = None, ax=None):
    """Draw P(class 1) on a grid (``p[j, i]`` at ``(x0[i], x1[j])``, as returned by
    :func:`decision_grid`) as a filled contour with the line P = 0.5 and the points
    ``X`` coloured by ``y``: the matplotlib twin of :func:`decision_boundary_spec`
    (whose docstring gives the parameters), e.g. for a PNG of the app's chart.
    """
    x0, x1, p, X, y = _checked_grid(x0, x1, p, X, y, title)
    from matplotlib.colors import LinearSegmentedColormap

    fig, ax = new_axes(ax, figsize=(4.6, 4.0))
    g0, g1 = np.meshgrid(x0, x1)
    cmap = LinearSegmentedColormap.from_list("dpteach-probability", PROBABILITY_COLOURS)
    ax.contourf(g0, g1, p, levels=np.linspace(0, 1, 11), cmap=cmap, alpha=0.55)
    ax.contour(g0, g1, p, levels=[0.5], colors="k", linewidths=1.2)
    classes = np.unique(y)
    for k, c in enumerate(classes[:2]):
        m = np.asarray(y) == c
        ax.scatter(X[m, 0], X[m, 1], s=12, color=CLASS_COLOURS[k],
                   edgecolor="white", linewidth=0.4, label=f"class {c}")
    ax.set_xlabel("feature 1")
    ax.set_ylabel("feature 2")
    ax.set_title(title or "Decision boundary (colour: P(class 1))")
    ax.legend(fontsize="small", loc="upper right")
    return fig


def _short(v: float) -> float:
    """``v`` to 5 significant digits (shorter JSON), unless rounding leaves the float range."""
    short = float(f"{v:.5g}")
    return short if np.isfinite(short) else float(v)


def _checked_grid(x0, x1, p, X, y, title):
    """The arguments of :func:`decision_boundary_spec` checked (by name) and as arrays."""
    grid = []
    for name, v in (("x0", x0), ("x1", x1)):
        v = check_array(name, v, ndim=1, min_size=2)
        if np.any(np.diff(v) <= 0):
            raise ParameterError(f"{name} must be increasing; got {name} with "
                                 f"min step {np.diff(v).min():.3g}")
        grid.append(v)
    x0, x1 = grid
    p = check_array("p", p, ndim=2)
    if p.shape != (x1.size, x0.size):
        raise ParameterError(f"p must have shape (x1.size, x0.size) = {(x1.size, x0.size)}; got "
                             f"p of shape {p.shape}")
    if np.any((p < 0) | (p > 1)):
        raise ParameterError(f"p must hold probabilities in [0, 1]; got p with min {p.min():.3g} "
                             f"and max {p.max():.3g}")
    X = check_array("X", X, ndim=2)
    if X.shape[1] != 2:
        raise ParameterError(f"X must have 2 columns; got shape {X.shape}")
    y = _check_labels(X, y)
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a string or None; got title={title!r:.60}")
    return x0, x1, p, X, y


def decision_boundary_spec(x0, x1, p, X, y, *, title: str | None = None,
                           height: int = 340) -> dict:
    """Vega-Lite heat map of P(class 1) on a grid, with the training points on top.

    The browser rendering of :func:`plot_decision_boundary`: the same numbers
    (:func:`decision_grid`), the same colours (:data:`PROBABILITY_COLOURS`, from
    the colour-blind-safe :data:`~dpteach.plots.PALETTE`: blue for class 0, white
    for undecided, vermillion for class 1) and the fonts of
    :data:`dpteach.plots.figure.FONT_SIZES`. Each grid value colours the cell
    centred on its grid point; the axes span the grid.

    Parameters
    ----------
    x0, x1 : array of float
        Increasing grid coordinates (at least 2 each), as returned by
        :func:`decision_grid`.
    p : array (x1.size, x0.size) of float in [0, 1]
        ``p[j, i]`` = P(class 1) at ``(x0[i], x1[j])``.
    X : array (n, 2)
        Training points (finite).
    y : array (n,)
        Their labels, at most two classes.
    title : str, optional
        Default ``"Decision boundary (colour: P(class 1))"``.
    height : int in [50, 2000]
        Height of the chart in pixels (the width follows the page).

    Returns
    -------
    dict
        A Vega-Lite v5 specification for ``st.vega_lite_chart`` (each layer has its
        data inline: ``p`` rounded to 3 decimals, coordinates to 5 significant digits;
        on a regular grid each cell row holds its grid point, the browser computes the
        cell's edges).
    """
    x0, x1, p, X, y = _checked_grid(x0, x1, p, X, y, title)
    height = check_int("height", height, minimum=50, maximum=2000)
    with np.errstate(over="ignore"):
        dx, dy = np.diff(x0) / 2, np.diff(x1) / 2
        # cell edges halfway between grid points; the outer edges one half-step outside
        ex = np.concatenate([[x0[0] - dx[0]], x0[:-1] + dx, [x0[-1] + dx[-1]]])
        ey = np.concatenate([[x1[0] - dy[0]], x1[:-1] + dy, [x1[-1] + dy[-1]]])
    if not (np.all(np.isfinite(ex)) and np.all(np.isfinite(ey))):
        raise ParameterError("x0 and x1 reach the end of the float range: the cells around them "
                             f"cannot be placed; got x0 in [{x0[0]:.3g}, {x0[-1]:.3g}], "
                             f"x1 in [{x1[0]:.3g}, {x1[-1]:.3g}]")
    uniform = (np.allclose(np.diff(x0), x0[1] - x0[0], rtol=1e-9, atol=0)
               and np.allclose(np.diff(x1), x1[1] - x1[0], rtol=1e-9, atol=0))
    if uniform:     # a regular grid (as decision_grid's): the browser adds the half-steps
        cells = [{"a": _short(x0[i]), "b": _short(x1[j]), "p": round(float(p[j, i]), 3)}
                 for j in range(x1.size) for i in range(x0.size)]
        hx, hy = float(dx[0]), float(dy[0])
        transform = [{"calculate": f"datum.a - {hx!r}", "as": "a1"},
                     {"calculate": f"datum.a + {hx!r}", "as": "a2"},
                     {"calculate": f"datum.b - {hy!r}", "as": "b1"},
                     {"calculate": f"datum.b + {hy!r}", "as": "b2"}]
    else:
        cells = [{"a1": _short(ex[i]), "a2": _short(ex[i + 1]), "b1": _short(ey[j]),
                  "b2": _short(ey[j + 1]), "p": round(float(p[j, i]), 3)}
                 for j in range(x1.size) for i in range(x0.size)]
        transform = []
    classes = np.unique(y)[:2]
    names = [f"class {c:g}" for c in classes]
    points = [{"a": _short(a), "b": _short(b), "cls": f"class {c:g}"}
              for (a, b), c in zip(X, y)]
    x_scale = {"domain": [_short(x0[0]), _short(x0[-1])], "nice": False, "zero": False}
    y_scale = {"domain": [_short(x1[0]), _short(x1[-1])], "nice": False, "zero": False}
    x_enc = {"field": "a", "type": "quantitative", "title": "feature 1", "scale": x_scale}
    y_enc = {"field": "b", "type": "quantitative", "title": "feature 2", "scale": y_scale}
    legend = {"titleFontSize": FONT_SIZES["legend"], "labelFontSize": FONT_SIZES["legend"]}
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "title": {"text": title or "Decision boundary (colour: P(class 1))",
                  "fontSize": FONT_SIZES["title"], "anchor": "start"},
        "height": height,
        "layer": [
            {"data": {"values": cells}, "transform": transform,
             "mark": {"type": "rect", "opacity": 0.55, "clip": True},
             "encoding": {"x": {**x_enc, "field": "a1"}, "x2": {"field": "a2"},
                          "y": {**y_enc, "field": "b1"}, "y2": {"field": "b2"},
                          "color": {"field": "p", "type": "quantitative", "title": "P(class 1)",
                                    "scale": {"domain": [0, 0.5, 1],
                                              "range": list(PROBABILITY_COLOURS)},
                                    "legend": {**legend, "orient": "right"}}}},
            {"data": {"values": points},
             "mark": {"type": "circle", "size": 36, "opacity": 0.95, "stroke": "white",
                      "strokeWidth": 0.6, "clip": True},
             "encoding": {"x": x_enc, "y": y_enc,
                          "fill": {"field": "cls", "type": "nominal", "title": None,
                                   "scale": {"domain": names,
                                             "range": list(CLASS_COLOURS[:len(names)])},
                                   "legend": {**legend, "orient": "bottom"}}}},
        ],
        "config": {
            "axis": {"titleFontSize": FONT_SIZES["axis_title"],
                     "labelFontSize": FONT_SIZES["axis_label"], "grid": False},
            "view": {"stroke": None},
        },
    }
