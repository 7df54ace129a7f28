"""Figures of notebooks 15 and 16 (fairness definitions, awareness, fair representations).

The app page's figures (a threshold per group, ROC curves, the accuracy–gap trade-off) are
in :mod:`dpteach.plots.fairness`; this module draws the rest of the chapter:

* :func:`calibration_by_group_data` — a reliability diagram per group: in each score bin,
  the observed rate of Y = 1 against the mean score (calibration within groups, [KMR17]_,
  [C17]_), from :func:`dpteach.fairness.metrics.calibration_by_group`;
* :func:`lfr_tradeoff_data` — Learning Fair Representations as the fairness weight A_z
  grows: accuracy yAcc against discrimination yDiscrim ([ZWSPD13]_, Sec. 4), one point per
  A_z (e.g. of the shipped sweep :func:`dpteach.tables.load_lfr_grid`), with the
  unconstrained model for comparison;
* :func:`awareness_data` — fairness through awareness ([DHPRZ12]_) under a few task
  metrics: what the vendor's cheapest individually fair mapping costs it, its parity gap,
  and the Earthmover bound on the parity gap of every fair mapping (Sec. 3).

Each is a :class:`~dpteach.plots.figure.FigureData` drawn by the ``plot_*`` function of the
same name.

References
----------
.. [KMR17] J. Kleinberg, S. Mullainathan, M. Raghavan. "Inherent trade-offs in the fair
   determination of risk scores." ITCS 2017 (arXiv:1609.05807, 2016): calibration within
   groups and balance for the positive and negative class.
.. [C17] A. Chouldechova. "Fair prediction with disparate impact: a study of bias in
   recidivism prediction instruments." Big Data 5(2), 2017.
.. [DHPRZ12] C. Dwork, M. Hardt, T. Pitassi, O. Reingold, R. Zemel. "Fairness through
   awareness." ITCS 2012: the linear program (Sec. 2) and the Earthmover bound on the
   statistical-parity gap of a Lipschitz mapping (Sec. 3).
.. [ZWSPD13] R. Zemel, Y. Wu, K. Swersky, T. Pitassi, C. Dwork. "Learning fair
   representations." ICML 2013, PMLR 28(3):325-333: the objective A_x L_x + A_y L_y + A_z L_z
   and the measures yAcc, yDiscrim, yNN (Sec. 4).
"""

from __future__ import annotations

import numpy as np

from .._validation import (
    ParameterError,
    check_array,
    check_in_range,
    check_int,
    check_nonnegative,
    check_positive,
    describe,
)
from ..fairness import metrics as M
from ._style import CYCLE, PALETTE
from .figure import FigureData, Series, to_matplotlib

__all__ = [
    "MAX_GROUPS", "MAX_SWEEP_POINTS",
    "calibration_by_group_data", "plot_calibration_by_group",
    "lfr_tradeoff_data", "plot_lfr_tradeoff",
    "awareness_data", "plot_awareness",
]

#: Most groups a figure here draws (one palette colour each).
MAX_GROUPS = 7
#: Most A_z values of :func:`lfr_tradeoff_data`.
MAX_SWEEP_POINTS = 1000


def _group_names(group_names, labels) -> dict:
    """``group_names`` (None or a dict label → non-empty str) completed for ``labels``."""
    if group_names is None:
        group_names = {}
    if not isinstance(group_names, dict) or not all(
            isinstance(v, str) and v for v in group_names.values()):
        raise TypeError(f"group_names must be a dict of group label → non-empty name (or None); "
                        f"got group_names={describe(group_names)}")
    return {label: group_names.get(label, f"A = {label}") for label in labels}


def calibration_by_group_data(y_true, y_prob, *, sensitive_features, n_bins: int = 10,
                              group_names=None) -> FigureData:
    """Reliability diagram per group: observed rate of Y = 1 against the mean score, per bin.

    The points are :func:`dpteach.fairness.metrics.calibration_by_group` (equal-width score
    bins fixed in [0, 1]; empty bins left out); a group calibrated within its bins lies on
    the diagonal. The title gives :func:`~dpteach.fairness.metrics.calibration_within_groups_error`
    (the largest expected calibration error of a group). Calibration within groups and equal
    error rates cannot both hold when base rates differ, except for a perfect predictor
    ([KMR17]_, [C17]_).

    Parameters
    ----------
    y_true : array-like of 0/1, shape (n,)
    y_prob : array-like of float in [0, 1], shape (n,)
        Scores (predicted probabilities of Y = 1).
    sensitive_features : array-like, shape (n,)
        Group labels: 2 to :data:`MAX_GROUPS` groups, each with ≥ 2 members (the rules of
        the metrics module).
    n_bins : int in [1, :data:`dpteach.fairness.metrics.MAX_BINS`]
    group_names : dict, optional
        Group label → name for the legend (default ``"A = <label>"``).

    Returns
    -------
    FigureData
        Per group i (in sorted label order): a ``line`` series ``"group-i"`` through its
        bins' points and a ``points`` series ``"group-i-points"``; the dotted diagonal
        ``"diagonal"``. ``extra``: ``"table"`` (the calibration DataFrame), ``"error"``
        (the largest ECE) and ``"names"`` (label → name).
    """
    n_bins = check_int("n_bins", n_bins, minimum=1, maximum=M.MAX_BINS)
    table = M.calibration_by_group(y_true, y_prob, sensitive_features=sensitive_features,
                                   n_bins=n_bins)
    error = M.calibration_within_groups_error(y_true, y_prob,
                                              sensitive_features=sensitive_features,
                                              n_bins=n_bins)
    labels = list(dict.fromkeys(table["group"].tolist()))
    if len(labels) > MAX_GROUPS:
        raise ParameterError(f"sensitive_features may hold at most {MAX_GROUPS} groups for this "
                             f"figure (one colour each); got {len(labels)} groups")
    names = _group_names(group_names, labels)
    series = [Series("diagonal", "perfectly calibrated", [0.0, 1.0], [0.0, 1.0],
                     colour=PALETTE["black"], dash="dotted", width=1.0)]
    for i, label in enumerate(labels):
        rows = table[table["group"] == label]
        x = rows["mean_predicted"].to_numpy(dtype=float)
        y = rows["observed_rate"].to_numpy(dtype=float)
        colour = CYCLE[i]
        series += [Series(f"group-{i}", f"{names[label]} ({int(rows['count'].sum()):,} people)",
                          x, y, colour=colour),
                   Series(f"group-{i}-points", "", x, y, kind="points", colour=colour)]
    return FigureData(
        f"Calibration within groups: {n_bins} equal-width score bins\n"
        f"largest expected calibration error of a group: {error:.3f}",
        "mean score in the bin", "observed rate of Y = 1 in the bin",
        series=tuple(series), x_domain=(0.0, 1.0), y_domain=(0.0, 1.0),
        extra={"table": table, "error": error, "names": names})


def plot_calibration_by_group(y_true, y_prob, *, sensitive_features, n_bins: int = 10,
                              group_names=None, ax=None):
    """Reliability diagram per group (:func:`calibration_by_group_data`, arguments there).

    Returns
    -------
    matplotlib.figure.Figure
        Lines with gids ``"group-0"``, ``"group-1"``, … and ``"diagonal"``.
    """
    return to_matplotlib(calibration_by_group_data(y_true, y_prob,
                                                   sensitive_features=sensitive_features,
                                                   n_bins=n_bins, group_names=group_names),
                         ax=ax)


# ------------------------------------------------------------------ LFR: the A_z sweep
def _unit_interval(name: str, value, n: int) -> np.ndarray:
    arr = check_array(name, value, ndim=1, allow_bool=False)
    if arr.shape != (n,) or np.any(arr < 0) or np.any(arr > 1):
        raise ParameterError(f"{name} must hold {n} values in [0, 1] (one per point); got "
                             f"{name}={describe(value)}")
    return arr


def lfr_tradeoff_data(Az, y_acc, y_discrim, *, baseline=None, selected=None,
                      data_name=None) -> FigureData:
    """LFR's trade-off as the fairness weight grows: yAcc against yDiscrim, one point per A_z.

    Each point is one model of Learning Fair Representations ([ZWSPD13]_) fitted with the
    fairness weight A_z, scored on held-out rows by the paper's measures (Sec. 4): the
    accuracy of its probabilities yAcc = 1 − mean |y − ŷ| (:func:`dpteach.fairness.metrics.
    zemel_accuracy`) against the gap between the groups' mean predictions yDiscrim
    (:func:`~dpteach.fairness.metrics.zemel_discrimination`); the line joins them in order
    of A_z. The figure draws given numbers (e.g. a row of the shipped sweep,
    :func:`dpteach.tables.load_lfr_grid`); it fits nothing.

    Parameters
    ----------
    Az : array-like of float, shape (k,)
        The fairness weights, finite and ≥ 0, 1 ≤ k ≤ :data:`MAX_SWEEP_POINTS`.
    y_acc, y_discrim : array-like of float in [0, 1], shape (k,)
        yAcc and yDiscrim of the model fitted with each A_z.
    baseline : (float, float), optional
        ``(y_acc, y_discrim)`` of the unconstrained model (e.g. a logistic regression on
        the same features), each in [0, 1]: one point.
    selected : float, optional
        One of the values of ``Az`` (to a relative 1e-9): that model is highlighted and
        named in the title.
    data_name : str, optional
        The data set's name, put in the title (e.g. ``"German credit"``).

    Returns
    -------
    FigureData
        Series ``"lfr"`` (line, in order of A_z), ``"lfr-points"``, ``"baseline"`` (one
        point, with ``baseline``) and ``"selected"`` (one point, with ``selected``).
        ``extra``: ``"order"`` (the indices sorting ``Az``) and ``"selected_index"`` (or
        None).
    """
    az = check_array("Az", Az, ndim=1, allow_bool=False)
    k = az.shape[0]
    if not 1 <= k <= MAX_SWEEP_POINTS or np.any(az < 0):
        raise ParameterError(f"Az must hold 1 to {MAX_SWEEP_POINTS} weights ≥ 0; got "
                             f"Az={describe(Az)}")
    acc = _unit_interval("y_acc", y_acc, k)
    disc = _unit_interval("y_discrim", y_discrim, k)
    base = None
    if baseline is not None:
        if not isinstance(baseline, (tuple, list)) or len(baseline) != 2:
            raise TypeError(f"baseline must be a pair (y_acc, y_discrim) or None; got "
                            f"baseline={describe(baseline)}")
        base = (check_in_range("baseline", baseline[0], 0.0, 1.0),
                check_in_range("baseline", baseline[1], 0.0, 1.0))
    index = None
    if selected is not None:
        sel = check_nonnegative("selected", selected)
        hit = np.flatnonzero(np.abs(az - sel) <= 1e-9 * np.maximum(np.abs(az), 1e-300))
        if hit.size == 0:
            raise ParameterError(f"selected must be one of the A_z values; got "
                                 f"selected={describe(selected)}")
        index = int(hit[0])
    order = np.argsort(az, kind="stable")
    series = [Series("lfr", "LFR, fairness weight Az from {:g} to {:g}".format(az.min(),
                                                                           az.max()),
                     disc[order], acc[order], colour=PALETTE["blue"]),
              Series("lfr-points", "", disc[order], acc[order], kind="points",
                     colour=PALETTE["blue"])]
    xs, ys = [disc], [acc]
    if base is not None:
        series.append(Series("baseline", f"unconstrained: yAcc {base[0]:.3f}, yDiscrim "
                             f"{base[1]:.3f}", [base[1]], [base[0]], kind="points",
                             colour=PALETTE["black"], width=4.0))
        xs.append(np.array([base[1]]))
        ys.append(np.array([base[0]]))
    title = "Learning fair representations: accuracy against discrimination"
    if data_name is not None:
        if not isinstance(data_name, str) or not data_name.strip():
            raise TypeError(f"data_name must be a non-empty string or None; got "
                            f"data_name={describe(data_name)}")
        title = f"{data_name.strip()}: accuracy against discrimination"
    if index is not None:
        series.append(Series("selected", f"Az = {az[index]:g}", [disc[index]], [acc[index]],
                             kind="points", colour=PALETTE["vermillion"], width=6.0))
        title += (f"\nAz = {az[index]:g}: yAcc {acc[index]:.3f}, yDiscrim "
                  f"{disc[index]:.3f}")
    x_all, y_all = np.concatenate(xs), np.concatenate(ys)
    x_high = min(1.0, float(x_all.max()) * 1.1 + 0.01)
    y_low = max(0.0, float(y_all.min()) - 0.02)
    y_high = min(1.0, float(y_all.max()) + 0.02)
    if y_high - y_low < 0.02:
        y_low, y_high = max(0.0, y_low - 0.01), min(1.0, y_high + 0.01)
    return FigureData(title, "yDiscrim: |mean ŷ of group 1 − mean ŷ of group 0| (0 = parity)",
                      "yAcc: 1 − mean |y − ŷ|", series=tuple(series),
                      x_domain=(0.0, x_high), y_domain=(y_low, y_high),
                      extra={"order": order, "selected_index": index})


def plot_lfr_tradeoff(Az, y_acc, y_discrim, *, baseline=None, selected=None, data_name=None,
                      ax=None):
    """yAcc against yDiscrim over an A_z sweep (:func:`lfr_tradeoff_data`, arguments there).

    Returns
    -------
    matplotlib.figure.Figure
        Lines with gids ``"lfr"``, ``"lfr-points"``, ``"baseline"`` and ``"selected"``.
    """
    return to_matplotlib(lfr_tradeoff_data(Az, y_acc, y_discrim, baseline=baseline,
                                           selected=selected, data_name=data_name), ax=ax)


# ------------------------------------------------------- fairness through awareness
def awareness_data(loss, gap, bound, *, labels, scale) -> FigureData:
    """What individual fairness costs and what it guarantees, for each of a few task metrics.

    For each task metric d (Dwork et al. [DHPRZ12]_): the vendor's expected loss under its
    cheapest d-Lipschitz mapping (the linear program of Sec. 2,
    :func:`dpteach.fairness.awareness.fair_mapping`), that mapping's statistical-parity gap
    (:func:`~dpteach.fairness.awareness_parity.statistical_parity_gap`) and the Earthmover
    distance d_EM between the groups, the largest parity gap any Lipschitz mapping can have
    when d is a metric with values ≤ 1 (Sec. 3,
    :func:`~dpteach.fairness.awareness_parity.earthmover_distance`). Three bars per metric.

    Parameters
    ----------
    loss, gap, bound : array-like of float in [0, 1], shape (k,)
        Per metric: the vendor's loss, its mapping's parity gap, d_EM; 1 ≤ k ≤ MAX_GROUPS.
    labels : sequence of str, length k
        The metrics' names, in words (the x axis).
    scale : float > 0
        The metrics' scale s (d = min(1, s·‖x − y‖₂)), named in the title.

    Returns
    -------
    FigureData
        ``bars`` series ``"loss"``, ``"gap"`` and ``"bound"``; ``extra["scale"]``.
    """
    k = len(labels) if isinstance(labels, (list, tuple)) else -1
    if not 1 <= k <= MAX_GROUPS or not all(isinstance(w, str) and w.strip() for w in labels):
        raise TypeError(f"labels must be 1 to {MAX_GROUPS} names (strings); got "
                        f"labels={describe(labels)}")
    values = [_unit_interval(name, v, k) for name, v in
              (("loss", loss), ("gap", gap), ("bound", bound))]
    s = check_positive("scale", scale)
    x = np.arange(k, dtype=float)
    parts = (("loss", "the vendor's expected loss (what fairness costs it)", PALETTE["orange"]),
             ("gap", "parity gap of its fair mapping", PALETTE["blue"]),
             ("bound", "largest parity gap any fair mapping may have (Earthmover)",
              PALETTE["black"]))
    series = tuple(Series(key, label, x + 0.27 * (i - 1), v, kind="bars", width=0.25,
                          colour=colour) for i, ((key, label, colour), v)
                   in enumerate(zip(parts, values)))
    return FigureData(f"Individual fairness at metric scale s = {s:.3g}: cost and guarantee",
                      "task metric", "share of the people (0 to 1)",
                      series=series, x_domain=(-0.6, k - 0.4), y_domain=(0.0, 1.05),
                      x_ticks=tuple((float(i), w.strip()) for i, w in enumerate(labels)),
                      extra={"scale": s})


def plot_awareness(loss, gap, bound, *, labels, scale, ax=None):
    """The cost and guarantee of individual fairness per metric (:func:`awareness_data`).

    Returns
    -------
    matplotlib.figure.Figure
        Bars with gids ``"loss"``, ``"gap"`` and ``"bound"``.
    """
    return to_matplotlib(awareness_data(loss, gap, bound, labels=labels, scale=scale), ax=ax)
