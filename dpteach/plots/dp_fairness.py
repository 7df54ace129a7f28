"""Figures of notebook 18 (privacy meets fairness): per-group accuracy against ε.

References
----------
.. [BPS19] E. Bagdasaryan, O. Poursaeed and V. Shmatikov. Differential privacy has disparate
   impact on model accuracy. NeurIPS 2019, pp. 15479-15488 (arXiv:1905.12101).
"""

from __future__ import annotations

import numpy as np

from .._validation import array, real, refuse, validate
from ._style import CYCLE, names
from .figure import TEXT, FigureData, Rule, Series, drawn

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


#: the privacy budgets on the x axis (an accuracy sweep's ε's)
EPSILONS = array(ndim=1, max_size=MAX_EPSILONS, low=1e-6, high=1e3, example=[0.5, 1.0, 4.0])
#: accuracies in [0, 1] (NaN, "not drawn", allowed for a non-private baseline)
ACCURACIES = array(ndim=(1, 2), low=0.0, high=1.0, example=[[0.8, 0.82, 0.84]])
BASELINES = array(ndim=1, low=0.0, high=1.0, finite=False, example=[0.85])


#: the groups' names, one per row of the accuracies
GROUPS = names(MAX_GROUPS, f"a sequence of 1 to {MAX_GROUPS} non-empty names",
               example=["women"], bad=["women", [], [""], [3], None])


@validate(epsilons=EPSILONS, mean=ACCURACIES, groups=GROUPS, sd=ACCURACIES.or_none(),
          nonprivate=BASELINES.or_none(), selected=real(1e-6, 1e3).or_none(),
          title=TEXT.or_none())
def group_accuracy_data(epsilons, mean, *, groups, sd=None, nonprivate=None,
                        selected=None, title: str | None = None) -> FigureData:
    """Per-group test accuracy against ε (log scale), the mean over seeds with a band of ± one
    standard deviation, each group's non-private accuracy as a dashed line in its colour.

    Which group's line falls furthest from its dashed line is the question of Bagdasaryan,
    Poursaeed & Shmatikov [BPS19]_. The numbers come from
    :func:`dpteach.fairness.dp_impact.accuracy_curves` (e.g. of the shipped sweep); the
    figure fits nothing. Series ``group-i``, ``group-i-band`` and ``group-i-nonprivate`` for
    each group i; rule ``selected``. ``extra``: ``groups``, ``epsilons`` (sorted).

    Parameters
    ----------
    mean : array-like of float, shape (g, k)
        Mean accuracy of each group (the rows, in the order of ``groups``) at each ε.
    sd : array-like of float, shape (g, k), optional
        Standard deviation over seeds: a band mean ± sd (clipped to [0, 1]).
    nonprivate : array-like of float or NaN, shape (g,), optional
        Each group's non-private accuracy (none where NaN).
    selected : float, optional
        An ε marked by a vertical line and named in the title.
    title : str, optional
        What the curves are, in words (e.g. ``"DP-SGD, by sex and income"``).
    """
    eps, acc, spread, base, sel = epsilons, mean, sd, nonprivate, selected
    k, g = eps.size, len(groups)
    shapes = {"mean": acc.shape, "sd": None if sd is None else sd.shape}
    for name, shape in shapes.items():
        if shape is not None and shape != (g, k):
            raise refuse(f"{name}.shape", shape, f"{(g, k)} (rows: groups, columns: epsilons)")
    if base is not None and (base.shape != (g,) or np.isinf(base).any()):
        raise refuse("nonprivate", base, f"one accuracy in [0, 1] (or NaN) per group ({g})")
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
    rules: tuple[Rule, ...] = ()
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
                      x_domain=(x_low / 1.5, x_high * 1.5),
                      y_domain=(low, high), extra={"groups": list(groups), "epsilons": x})


plot_group_accuracy = drawn(group_accuracy_data)
