"""Figures of notebook 11 (privacy meets fairness): per-group accuracy against ε.

* :func:`group_accuracy_data` — the test accuracy of each group of people against the
  privacy budget ε (log scale), the mean over seeds with a band of ± one standard deviation,
  each group's non-private accuracy as a dashed line in its colour, and optionally the
  selected ε. Which group's line falls furthest from its dashed line is the question of
  Bagdasaryan, Poursaeed & Shmatikov [BPS19]_. The numbers come from
  :func:`dpteach.fairness.dp_impact.accuracy_curves` (e.g. of the shipped sweep); the figure
  fits nothing.

The :class:`~dpteach.plots.figure.FigureData` is drawn by :func:`plot_group_accuracy`
(matplotlib) or :func:`~dpteach.plots.figure.to_vega_lite` (the browser).

References
----------
.. [BPS19] E. Bagdasaryan, O. Poursaeed and V. Shmatikov. Differential privacy has disparate
   impact on model accuracy. NeurIPS 2019, pp. 15479-15488 (arXiv:1905.12101).
"""

from __future__ import annotations

import numpy as np

from .._validation import ParameterError, check_array, check_positive, describe
from ._style import CYCLE, LOG_AXIS_MAX
from .figure import FigureData, Rule, Series, to_matplotlib

__all__ = ["MAX_GROUPS", "MAX_EPSILONS", "LEARNER_NAMES", "GROUPING_NAMES", "group_accuracy_data",
           "plot_group_accuracy"]

#: Most groups one figure draws (one palette colour each).
MAX_GROUPS = len(CYCLE)
#: Most values of ε on the x-axis.
MAX_EPSILONS = 1000
#: The learners of :func:`dpteach.fairness.dp_impact.dp_fairness_sweep` (its ``method``), and
#: the groupings of its summary (``grouping``), in words for a figure's ``title``.
LEARNER_NAMES = {"dpsgd": "DP-SGD", "objective": "objective perturbation"}
GROUPING_NAMES = {"all": "everyone", "sex": "sex", "race": "race",
                  "sex_income": "sex and income"}


def _check_unit(name: str, value, shape: tuple, *, allow_nan: bool = False) -> np.ndarray:
    """Numbers in [0, 1] of the given shape (NaN allowed, meaning "not drawn", if asked)."""
    arr = check_array(name, value, ndim=len(shape), finite=not allow_nan, allow_bool=False)
    with np.errstate(invalid="ignore"):
        ok = (arr >= 0) & (arr <= 1)
    if allow_nan:
        ok |= np.isnan(arr)
    if arr.shape != shape or not np.all(ok):
        where = "one row per entry of groups, one column per entry of epsilons" if len(
            shape) == 2 else "one per entry of groups"
        raise ParameterError(f"{name} must hold accuracies in [0, 1] of shape {shape} ({where});"
                             f" got {name}={describe(value)} with shape {arr.shape}")
    return arr


def group_accuracy_data(epsilons, mean, *, groups, sd=None, nonprivate=None,
                        selected=None, title: str | None = None) -> FigureData:
    """Per-group test accuracy against ε, mean ± sd over seeds (see the module docstring).

    Parameters
    ----------
    epsilons : array-like of float, shape (k,)
        The privacy budgets, finite, > 0 and ≤ 1e200, 1 ≤ k ≤ :data:`MAX_EPSILONS` (drawn
        in increasing order on a log axis).
    mean : array-like of float in [0, 1], shape (g, k)
        Mean accuracy of each group at each ε.
    groups : sequence of str, length g
        The groups' names (1 ≤ g ≤ :data:`MAX_GROUPS`), in the order of the rows of ``mean``.
    sd : array-like of float in [0, 1], shape (g, k), optional
        Standard deviation over seeds: a band mean ± sd (clipped to [0, 1]).
    nonprivate : array-like of float in [0, 1] or NaN, shape (g,), optional
        Each group's non-private accuracy: a dashed line (none where NaN).
    selected : float, optional
        An ε in (0, 1e200] marked by a vertical line and named in the title.
    title : str, optional
        What the curves are, in words (e.g. ``"DP-SGD, by sex and income"``): the title's
        first line.

    Returns
    -------
    FigureData
        Series ``"group-i"`` (line), ``"group-i-band"`` (with ``sd``) and
        ``"group-i-nonprivate"`` (dashed, with ``nonprivate``) for each group i; rule
        ``"selected"``. Log x-axis. ``extra``: ``"groups"``, ``"epsilons"`` (sorted).
    """
    eps = check_array("epsilons", epsilons, ndim=1, allow_bool=False)
    k = eps.size
    if not 1 <= k <= MAX_EPSILONS or np.any(eps <= 0) or np.any(eps > LOG_AXIS_MAX):
        raise ParameterError(f"epsilons must hold 1 to {MAX_EPSILONS} values in (0, "
                             f"{LOG_AXIS_MAX:g}]; got epsilons={describe(epsilons)}")
    if isinstance(groups, (str, bytes)) or not hasattr(groups, "__len__") or not all(
            isinstance(g, str) and g for g in groups):
        raise TypeError(f"groups must be a sequence of non-empty names; got "
                        f"groups={describe(groups)}")
    g = len(groups)
    if not 1 <= g <= MAX_GROUPS:
        raise ParameterError(f"groups must name 1 to {MAX_GROUPS} groups; got {g}")
    acc = _check_unit("mean", mean, (g, k))
    spread = None if sd is None else _check_unit("sd", sd, (g, k))
    base = None if nonprivate is None else _check_unit("nonprivate", nonprivate, (g,),
                                                       allow_nan=True)
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a string or None; got title={describe(title)}")
    sel = None
    if selected is not None:
        sel = check_positive("selected", selected)
        if sel > LOG_AXIS_MAX:
            raise ParameterError(f"selected must be in (0, {LOG_AXIS_MAX:g}]; got "
                                 f"selected={describe(selected)}")
    order = np.argsort(eps, kind="stable")
    x = eps[order]
    series, ys = [], [acc]
    for i, name in enumerate(groups):
        colour = CYCLE[i]
        y = acc[i, order]
        if spread is not None:
            lo, hi = np.clip(y - spread[i, order], 0, 1), np.clip(y + spread[i, order], 0, 1)
            series.append(Series(f"group-{i}-band", "", x, lo, kind="band", y2=hi,
                                 colour=colour, opacity=0.2))
            ys += [lo, hi]
        series.append(Series(f"group-{i}", name, x, y, colour=colour))
        if base is not None and np.isfinite(base[i]):
            series.append(Series(f"group-{i}-nonprivate", "", [x[0], x[-1]], [base[i]] * 2,
                                 colour=colour, dash="dashed", width=1.5))
            ys.append(np.array([base[i]]))
    rules = ()
    head = "Test accuracy per group against ε (dashed: without privacy)"
    if title:
        head = f"{title}\n{head}"
    if sel is not None:
        rules = (Rule("selected", "x", sel, label=f"ε = {sel:g}"),)
        head += f"\nselected ε = {sel:g}"
    values = np.concatenate([np.ravel(v) for v in ys])
    values = values[np.isfinite(values)]
    low = max(0.0, float(values.min()) - 0.02)
    high = min(1.0, float(values.max()) + 0.02)
    x_low = min(float(x[0]), sel) if sel is not None else float(x[0])
    x_high = max(float(x[-1]), sel) if sel is not None else float(x[-1])
    return FigureData(head, "privacy budget ε (log scale; left = more private)",
                      "test accuracy", series=tuple(series), rules=rules, log_x=True,
                      x_domain=(x_low / 1.5, min(x_high * 1.5, LOG_AXIS_MAX)),
                      y_domain=(low, high), extra={"groups": list(groups), "epsilons": x})


def plot_group_accuracy(epsilons, mean, *, groups, sd=None, nonprivate=None, selected=None,
                        title: str | None = None, ax=None):
    """Per-group accuracy against ε (:func:`group_accuracy_data`, arguments there).

    Returns
    -------
    matplotlib.figure.Figure
        Lines with gids ``"group-i"``, ``"group-i-nonprivate"`` and ``"selected"``.
    """
    return to_matplotlib(group_accuracy_data(epsilons, mean, groups=groups, sd=sd,
                                             nonprivate=nonprivate, selected=selected,
                                             title=title), ax=ax)
