"""Figures for DP-SGD and membership inference (notebook 11 and the DP-SGD playground).

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

from typing import Any, cast

from .._validation import (DELTA, FLAG, PROBABILITY, Domain, array, integer, real, refuse, validate)
from ..attacks.roc import AttackResult, dp_roc_bound
from ..learning.dpsgd import MAX_GRAD_NORM
from ._style import CYCLE, PALETTE, refuse_unless_two_features
from .figure import TEXT, FigureData, HeatMap, Rule, Series, Text, drawn

__all__ = [
    "mia_roc_data", "plot_mia_roc",
    "privacy_utility_data", "plot_privacy_utility",
    "grad_norm_histogram_data", "plot_grad_norm_histogram",
    "training_history_data", "plot_training_history",
    "decision_grid",
    "probability_grid_data", "plot_probability_grid",
    "decision_boundary_data", "plot_decision_boundary",
]

#: Colours of P(class 1) from 0 to 1 (the heat map of :func:`probability_grid_data`):
#: class 0 blue, undecided white, class 1 vermillion.
PROBABILITY_COLOURS = (PALETTE["blue"], "#FFFFFF", PALETTE["vermillion"])
#: Colours of the training points of class 0 and class 1 on the heat maps.
CLASS_COLOURS = (PALETTE["blue"], PALETTE["vermillion"])

#: attack results: one AttackResult or a sequence of them
RESULTS: Domain = Domain("an AttackResult or a sequence of AttackResult",
                 lambda name, value: _results(name, value), bad=[None, 3, "roc", []])
#: the ε of DP ceilings: one or a few
EPSILONS = array(ndim=(0, 1), low=1e-6, high=1e3, max_size=20, example=[2.0, 8.0]).flat()
#: learning curves: ε and accuracies of a few models
CURVE_EPSILONS = array(ndim=1, low=1e-6, high=1e3, max_size=10_000, example=[0.5, 1.0, 8.0])
ACCURACIES = array(ndim=1, low=0.0, high=1.0, max_size=10_000, example=[0.6, 0.7, 0.8])
#: per-example gradient norms
NORMS = array(ndim=1, low=0.0, high=1e15, example=[0.5, 1.0, 3.0])
#: DPSGDClassifier.history_ dicts by label
HISTORIES: Domain = Domain("a non-empty dict label → history_ (a dict with 'epoch', 'accuracy' and "
                   "'epsilon', arrays of one length)", lambda name, value: _histories(name, value),
                   example={"DP-SGD": {"epoch": [1, 2], "accuracy": [0.6, 0.7],
                                       "epsilon": [0.5, 0.8]}},
                   bad=[None, {}, {"a": {"epoch": [1]}}, 3])
#: a fitted classifier
CLASSIFIER: Domain = Domain("a fitted classifier with a predict_proba method",
                    lambda name, value: _classifier(name, value), bad=[None, 3, "clf"])
#: two features per row, and a grid around them
POINTS_2D = array(ndim=2, low=-1e15, high=1e15, example=[[0.0, 0.0], [1.0, 1.0]])
LABELS = array(ndim=1, example=[0, 1])
GRID_AXIS = array(ndim=1, min_size=2, max_size=1000, low=-1e15, high=1e15, example=[0.0, 1.0])
GRID_SIZE = integer(10, 1000, example=60)

_LW = 2.0
_FLOAT_MAX = float(np.finfo(float).max)


@validate(results=RESULTS, epsilon=EPSILONS.or_none(), delta=DELTA, log=FLAG,
          min_fpr=real(0.0, 1.0, low_open=True, high_open=True, example=1e-3).or_none())
def mia_roc_data(results, *, epsilon=None, delta: float = 0.0, log: bool = True,
                 min_fpr: float | None = None) -> FigureData:
    """ROC curves of membership-inference attacks, with the (ε, δ)-DP ceiling.

    Lines ``chance`` (TPR = FPR), ``dp-bound-<ε>`` and ``roc-<k>`` (the k-th attack).

    Parameters
    ----------
    epsilon : float or sequence of float, optional
        Draw the ceiling TPR ≤ min(e^ε FPR + δ, 1 − e^{−ε}(1 − δ − FPR))
        ([KOV15]_, Thm. 2.1) for each ε: no attack on an (ε, δ)-DP model can
        go above it.
    log : bool
        Log-log axes, as recommended by [CCN22]_: what matters is the TPR
        at low FPR. Points with FPR = 0 or TPR = 0 are left out.
    min_fpr : float, optional
        Left end of the FPR axis (default: 1 / largest number of non-members).
    """
    eps_list = [] if epsilon is None else [float(e) for e in epsilon]
    d = delta
    if min_fpr is None:
        min_fpr = 1.0 / max(r.n_nonmembers for r in results) if log else 0.0
    grid = np.geomspace(max(min_fpr, 1e-12), 1, 400) if log else np.linspace(0, 1, 401)
    series = [Series("chance", "chance (TPR = FPR)", grid, grid, colour="grey", dash="dotted",
                     width=1.0)]
    dashes = ("dashed", "dashdot", "dotted", "solid")
    for k, e in enumerate(eps_list):
        series.append(Series(f"dp-bound-{e:g}", f"DP ceiling ε = {e:g}", grid,
                             dp_roc_bound(grid, e, d), colour=("#000000", "#555555")[k % 2],
                             dash=dashes[k % len(dashes)], width=1.5))
    for k, r in enumerate(results):
        fpr, tpr = r.fpr, r.tpr
        if log:
            keep = (fpr > 0) & (tpr > 0)
            fpr, tpr = fpr[keep], tpr[keep]
        series.append(Series(f"roc-{k}", f"{r.name} (AUC {r.auc:.2f})" if r.name
                             else f"AUC {r.auc:.2f}", fpr, tpr, colour=CYCLE[k % len(CYCLE)],
                             width=_LW))
    title = "Membership inference ROC"
    if eps_list:
        title += f" vs the DP ceiling (δ = {d:g})"
    return FigureData(title, "false-positive rate (non-members called members)",
                      "true-positive rate (members found)", series=tuple(series),
                      log_x=log, log_y=log,
                      x_domain=(min_fpr, 1.0) if log else (0.0, 1.0),
                      y_domain=(min_fpr, 1.05) if log else (0.0, 1.02))


plot_mia_roc = drawn(mia_roc_data)


@validate(epsilons=CURVE_EPSILONS, accuracies=ACCURACIES, baseline=PROBABILITY.or_none(),
          label=TEXT)
def privacy_utility_data(epsilons, accuracies, *, baseline: float | None = None,
                         label: str = "DP-SGD") -> FigureData:
    """Test accuracy versus ε (log axis), with the non-private model (``baseline``) as a line.

    Series ``utility`` and ``utility-points``; rule ``baseline``. ``label`` names the
    private learner in the legend.
    """
    eps, acc = epsilons, accuracies
    if eps.shape != acc.shape:
        raise refuse("accuracies", acc, f"one per ε ({eps.size})")
    order = np.argsort(eps)
    series = (Series("utility", label, eps[order], acc[order], colour=PALETTE["blue"],
                     width=_LW),
              Series("utility-points", "", eps[order], acc[order], kind="points",
                     colour=PALETTE["blue"], width=1.6))
    rules = () if baseline is None else (
        Rule("baseline", "y", baseline, f"non-private ({baseline:.3f})", PALETTE["vermillion"],
             "dashed"),)
    return FigureData("Privacy–utility trade-off", "ε (log scale; smaller = more private)",
                      "test accuracy", series=series, rules=rules, log_x=True)


plot_privacy_utility = drawn(privacy_utility_data)


@validate(norms=NORMS, max_grad_norm=real(0.0, MAX_GRAD_NORM, low_open=True).or_none(),
          bins=integer(2, 10_000, example=40))
def grad_norm_histogram_data(norms, max_grad_norm: float | None = None, *,
                             bins: int = 40) -> FigureData:
    """Histogram of per-example gradient norms, before and after clipping to C.

    Clipping maps ‖g_i‖ to min(‖g_i‖, C) ([ACG16]_ Alg. 1): everything to
    the right of C piles up at C. Bars ``before`` and, with C = ``max_grad_norm``,
    ``after`` (the counts of min(norms, C)) and the rule ``clip``.
    """
    C = max_grad_norm
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
                      y_domain=(0.0, max(1.0, highest * 1.05)), y_integer=True)


plot_grad_norm_histogram = drawn(grad_norm_histogram_data)


@validate(histories=HISTORIES, delta=DELTA.or_none())
def training_history_data(histories, *, delta: float | None = None) -> FigureData:
    """Training accuracy and ε spent after each epoch: two panels, one y axis each.

    Series ``accuracy-<k>`` and ``epsilon-<k>`` for the k-th history, each with
    ``…-points`` (so a one-epoch run shows too). A history whose ε is ∞ (no noise) has no ε
    series, and the ε panel says so.

    Parameters
    ----------
    histories : dict
        label → ``DPSGDClassifier.history_``.
    delta : float, optional
        The δ at which the ε of the histories was computed (``DPSGDClassifier.delta``).
    """
    checked = {label: (h["epoch"], h["accuracy"], h["epsilon"]) for label, h in histories.items()}
    d = delta
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
        eps_title += f"\nε = ∞ (no noise) for {', '.join(infinite)}"
    epochs = np.concatenate([ep for ep, _, _ in checked.values()])
    low, high = float(epochs.min()), float(epochs.max())
    x_domain = (low - 0.5, high + 0.5) if np.all(np.isfinite([low, high])) else None
    texts = () if eps_series else (
        Text("no-epsilon", (low + high) / 2, 0.5, "ε = ∞: no noise, no privacy guarantee",
             "grey", "center", large=True),)
    accuracy = FigureData("Training accuracy after each epoch", "epoch", "training accuracy",
                          series=tuple(acc_series), y_domain=(0.0, 1.0), x_domain=x_domain,
                          x_integer=True)
    spent = FigureData(eps_title, "epoch", f"ε spent{at_delta}", series=tuple(eps_series),
                       texts=texts, x_domain=x_domain, x_integer=True,
                       y_domain=None if eps_series else (0.0, 1.0))
    return FigureData("Training with DP-SGD: accuracy and privacy spent", "", "",
                      panels=(accuracy, spent))


plot_training_history = drawn(training_history_data)


@validate(clf=CLASSIFIER, X=POINTS_2D, grid_size=GRID_SIZE, pad=real(0.0, 1e6, example=0.5))
def decision_grid(clf, X, grid_size: int = 60, pad: float = 0.5):
    """P(class 1) of a fitted two-feature classifier on a regular grid around the data.

    Returns ``(x0, x1, p)``: grid coordinates (1-D, ``grid_size`` each, spanning the range
    of ``X`` widened by ``pad`` on each side) and the probabilities, shape
    (grid_size, grid_size), ``p[j, i]`` at (x0[i], x1[j]).
    """
    if X.shape[1] != 2:
        raise refuse("X", X, "of 2 columns")
    res = grid_size
    x0 = np.linspace(X[:, 0].min() - pad, X[:, 0].max() + pad, res)
    x1 = np.linspace(X[:, 1].min() - pad, X[:, 1].max() + pad, res)
    g0, g1 = np.meshgrid(x0, x1)
    p = np.asarray(clf.predict_proba(np.column_stack([g0.ravel(), g1.ravel()])))[:, 1]
    if not np.all(np.isfinite(p)):
        raise refuse("clf", clf, f"a model finite on the grid around X (pad={pad:g})")
    return x0, x1, p.reshape(g0.shape)


def _boundary(x0, x1, p) -> tuple[np.ndarray, np.ndarray]:
    """The line P = 0.5 through the grid (linear between grid points, as a contour plot
    draws it), its pieces separated by NaN."""
    import contourpy

    # the default line type (Separate) gives a list of (n, 2) arrays; contourpy's annotation
    # is the union over all its line types
    pieces = cast(list[np.ndarray], contourpy.contour_generator(x0, x1, p).lines(0.5))
    if not pieces:
        return np.array([]), np.array([])
    gap = np.array([[np.nan, np.nan]])
    line = np.concatenate([part for piece in pieces for part in (piece, gap)][:-1])
    return line[:, 0], line[:, 1]


@validate(x0=GRID_AXIS, x1=GRID_AXIS, p=array(ndim=2, min_size=4, low=0.0, high=1.0),
          X=POINTS_2D, y=LABELS, title=TEXT.or_none())
def probability_grid_data(x0, x1, p, X, y, *, title: str | None = None) -> FigureData:
    """P(class 1) on a grid as a heat map, the line P = 0.5, and the training points.

    The colours (:data:`PROBABILITY_COLOURS`, from the colour-blind-safe
    :data:`~dpteach.plots.PALETTE`: blue for class 0, white for undecided, vermillion for
    class 1) colour the cell centred on each grid point. ``x0, x1, p`` are as returned by
    :func:`decision_grid`; ``X, y`` the training points (two classes). Heat map
    ``probability``, line ``boundary`` (P = 0.5) and points ``class-<c>``.
    """
    if np.any(np.diff(x0) <= 0) or np.any(np.diff(x1) <= 0):
        raise refuse("x0, x1", (x0, x1), "increasing")
    if p.shape != (x1.size, x0.size):
        raise refuse("p", p, f"of shape (x1.size, x0.size) = {(x1.size, x0.size)}")
    refuse_unless_two_features(X, y)
    series = [Series("boundary", "P(class 1) = 0.5", *_boundary(x0, x1, p),
                     colour=PALETTE["black"], width=1.2)]
    for k, c in enumerate(np.unique(y)[:2]):
        m = y == c
        series.append(Series(f"class-{c:g}", f"class {c:g}", X[m, 0], X[m, 1], kind="points",
                             colour=CLASS_COLOURS[k], width=1.4))
    return FigureData(title or "Decision boundary (colour: P(class 1))", "feature 1",
                      "feature 2", series=tuple(series),
                      heatmap=HeatMap("probability", "P(class 1)", x0, x1, p,
                                      colours=PROBABILITY_COLOURS),
                      x_domain=(float(x0[0]), float(x0[-1])),
                      y_domain=(float(x1[0]), float(x1[-1])))


plot_probability_grid = drawn(probability_grid_data)


@validate(clf=CLASSIFIER, X=POINTS_2D, y=LABELS, grid_size=GRID_SIZE, title=TEXT.or_none())
def decision_boundary_data(clf, X, y, *, grid_size: int = 60,
                           title: str | None = None) -> FigureData:
    """P(class 1) of a fitted two-feature binary classifier around the data, with the data.

    :func:`probability_grid_data` of :func:`decision_grid` (``clf.predict_proba`` on a
    ``grid_size`` × ``grid_size`` grid around ``X``).
    """
    x0, x1, p = decision_grid.__wrapped__(clf, X, grid_size)
    return probability_grid_data(x0, x1, p, X, y, title=title)


plot_decision_boundary = drawn(decision_boundary_data)


def _results(name: str, value: Any) -> list:
    results = [value] if isinstance(value, AttackResult) else value
    if isinstance(results, (list, tuple)) and results \
            and all(isinstance(r, AttackResult) for r in results):
        return list(results)
    raise RESULTS.refuse(name, value)


def _classifier(name: str, value: Any) -> Any:
    if callable(getattr(value, "predict_proba", None)):
        return value
    raise CLASSIFIER.refuse(name, value)


_EPOCHS: Domain = array(ndim=1, max_size=100_000)


def _histories(name: str, value: Any) -> dict:
    """The histories with their arrays checked (ε may be ∞: no noise)."""
    checked = {}
    try:
        for label, h in value.items():
            where = f"{name}[{label!r}]"
            checked[label] = {"epoch": _EPOCHS(f"{where}['epoch']", h["epoch"]),
                              "accuracy": _ACCURACIES(f"{where}['accuracy']", h["accuracy"]),
                              "epsilon": _EPSILONS(f"{where}['epsilon']", h["epsilon"])}
    except (AttributeError, KeyError, TypeError):
        checked = {}                                  # not a dict of histories: refused below
    if not checked or any(not h["epoch"].shape == h["accuracy"].shape == h["epsilon"].shape
                          for h in checked.values()):
        raise HISTORIES.refuse(name, value)
    return checked


_ACCURACIES: Domain = array(ndim=1, low=0.0, high=1.0, max_size=100_000)
_EPSILONS: Domain = array(ndim=1, low=0.0, max_size=100_000, finite=False)
