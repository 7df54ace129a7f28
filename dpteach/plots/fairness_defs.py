"""Figures of notebooks 15 and 16 (fairness definitions, awareness, fair representations).

The app page's figures (a threshold per group, ROC curves, the accuracy–gap trade-off) are
in :mod:`dpteach.plots.fairness`; this module draws the rest of the chapter: calibration
within groups, Learning Fair Representations' trade-off and fairness through awareness.

References
----------
.. [KMR17] J. Kleinberg, S. Mullainathan, M. Raghavan. "Inherent trade-offs in the fair
   determination of risk scores." ITCS 2017 (arXiv:1609.05807, 2016): calibration within
   groups and balance for the positive and negative class.
.. [C17] A. Chouldechova. "Fair prediction with disparate impact: a study of bias in
   recidivism prediction instruments." Big Data 5(2), 2017.
.. [DHP+12] C. Dwork, M. Hardt, T. Pitassi, O. Reingold, R. Zemel. "Fairness through
   awareness." ITCS 2012: the linear program (Sec. 2) and the Earthmover bound on the
   statistical-parity gap of a Lipschitz mapping (Sec. 3).
.. [ZWSPD13] R. Zemel, Y. Wu, K. Swersky, T. Pitassi, C. Dwork. "Learning fair
   representations." ICML 2013, PMLR 28(3):325-333: the objective A_x L_x + A_y L_y + A_z L_z
   and the measures yAcc, yDiscrim, yNN (Sec. 4).
"""

from __future__ import annotations

import numpy as np

from .._validation import Domain, anything, array, integer, real, refuse, validate
from ..fairness import metrics as M
from ..fairness.lfr import MAX_WEIGHT
from ._style import CYCLE, PALETTE
from .figure import FigureData, Series, drawn

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


def _names(name, value):
    if value is None:
        return {}
    if isinstance(value, dict) and all(isinstance(v, str) and v for v in value.values()):
        return value
    raise GROUP_NAMES.refuse(name, value)


#: legend names of the groups: None, or a dict group label → non-empty name
GROUP_NAMES = Domain("None or a dict of group label → non-empty name", _names,
                     edges=(None, {}), bad=["women", {0: ""}, {0: 1}, 3])
_CALIBRATION = dict(y_true=M.LABELS, y_prob=M.SCORES,
                    sensitive_features=anything("group labels: 2 to 7 groups, each with ≥ 2 "
                                                "members (checked by the metrics module)"),
                    n_bins=integer(1, M.MAX_BINS, example=10), group_names=GROUP_NAMES)
#: the fairness weights A_z of a sweep
AZ = array(ndim=1, low=0.0, high=MAX_WEIGHT, max_size=MAX_SWEEP_POINTS, example=[0.0, 1.0, 10.0])
#: a score of each A_z's model (yAcc, yDiscrim), in [0, 1]
UNIT_SCORES = array(ndim=1, low=0.0, high=1.0, max_size=MAX_SWEEP_POINTS,
                    example=[0.8, 0.75, 0.7])
def _text(name, value):
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise TEXT.refuse(name, value)


def _labels(name, value):
    if isinstance(value, (list, tuple)) and 1 <= len(value) <= MAX_GROUPS \
            and all(isinstance(w, str) and w.strip() for w in value):
        return tuple(w.strip() for w in value)
    raise LABELS.refuse(name, value)


#: a name in words (a data set's, for a title)
TEXT = Domain("a non-empty string", _text, example="German credit", bad=["", "  ", 3])
#: the names of 1 to MAX_GROUPS things on an axis, in words
LABELS = Domain(f"a list or tuple of 1 to {MAX_GROUPS} non-empty strings", _labels,
                example=("distance", "income only"), bad=[[], "ab", [1], [""]])
_LFR = dict(Az=AZ, y_acc=UNIT_SCORES, y_discrim=UNIT_SCORES,
            baseline=array(ndim=1, min_size=2, max_size=2, low=0.0, high=1.0,
                           text="a pair (y_acc, y_discrim) in [0, 1]").or_none(),
            selected=real(0.0, MAX_WEIGHT).or_none(), data_name=TEXT.or_none())
#: a share of the people per metric (loss, parity gap, bound), in [0, 1]
SHARES = array(ndim=1, low=0.0, high=1.0, max_size=MAX_GROUPS, example=[0.2, 0.1])
_AWARENESS = dict(loss=SHARES, gap=SHARES, bound=SHARES, labels=LABELS,
                  scale=real(1e-6, 1e6, example=1.0))


@validate(**_CALIBRATION)
def calibration_by_group_data(y_true, y_prob, *, sensitive_features, n_bins: int = 10,
                              group_names=None) -> FigureData:
    """Reliability diagram per group: observed rate of Y = 1 against the mean score, per bin.

    The points are :func:`dpteach.fairness.metrics.calibration_by_group` (equal-width score
    bins fixed in [0, 1]; empty bins left out); a group calibrated within its bins lies on
    the diagonal. The title gives :func:`~dpteach.fairness.metrics.calibration_within_groups_error`
    (the largest expected calibration error of a group). Calibration within groups and equal
    error rates cannot both hold when base rates differ, except for a perfect predictor
    ([KMR17]_, [C17]_). ``y_prob`` are the scores (predicted probabilities of Y = 1);
    ``group_names`` map a group label to its legend name (default ``"A = <label>"``).

    Series ``group-i`` and ``group-i-points`` per group i (in sorted label order) and
    ``diagonal``. ``extra``: ``table`` (the calibration DataFrame), ``error`` (the largest
    ECE) and ``names`` (label → name).
    """
    table = M.calibration_by_group(y_true, y_prob, sensitive_features=sensitive_features,
                                   n_bins=n_bins)
    error = M.calibration_within_groups_error(y_true, y_prob,
                                              sensitive_features=sensitive_features,
                                              n_bins=n_bins)
    labels = list(dict.fromkeys(table["group"].tolist()))
    if len(labels) > MAX_GROUPS:
        raise refuse("sensitive_features", labels, f"≤ {MAX_GROUPS} groups (one colour each)")
    names = {label: group_names.get(label, f"A = {label}") for label in labels}
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


plot_calibration_by_group = drawn(calibration_by_group_data)


# ------------------------------------------------------------------ LFR: the A_z sweep
@validate(**_LFR)
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

    Series ``lfr``, ``lfr-points``, ``baseline`` (the unconstrained model's ``(y_acc,
    y_discrim)``, e.g. a logistic regression on the same features) and ``selected`` (the
    model of ``selected``, one of the values of ``Az``). ``extra``: ``order`` (the indices
    sorting ``Az``) and ``selected_index`` (or None).
    """
    az, acc, disc, base = Az, y_acc, y_discrim, baseline
    for name, arr in (("y_acc", acc), ("y_discrim", disc)):
        if arr.shape != az.shape:
            raise refuse(name, arr, f"one value per A_z ({az.size})")
    index = None
    if selected is not None:
        hit = np.flatnonzero(np.abs(az - selected) <= 1e-9 * np.maximum(np.abs(az), 1e-300))
        if hit.size == 0:
            raise refuse("selected", selected, "one of the A_z values")
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
    title = f"{data_name or 'Learning fair representations'}: accuracy against discrimination"
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


plot_lfr_tradeoff = drawn(lfr_tradeoff_data)


# ------------------------------------------------------- fairness through awareness
@validate(**_AWARENESS)
def awareness_data(loss, gap, bound, *, labels, scale) -> FigureData:
    """What individual fairness costs and what it guarantees, for each of a few task metrics.

    For each task metric d (Dwork et al. [DHP+12]_): the vendor's expected loss under its
    cheapest d-Lipschitz mapping (the linear program of Sec. 2,
    :func:`dpteach.fairness.awareness.fair_mapping`), that mapping's statistical-parity gap
    (:func:`~dpteach.fairness.awareness_parity.statistical_parity_gap`) and the Earthmover
    distance d_EM between the groups, the largest parity gap any Lipschitz mapping can have
    when d is a metric with values ≤ 1 (Sec. 3,
    :func:`~dpteach.fairness.awareness_parity.earthmover_distance`). Bars ``loss``, ``gap``
    and ``bound`` (d_EM) per metric, named by ``labels``; ``scale`` is the metrics' scale s
    (d = min(1, s·‖x − y‖₂)).
    """
    k = len(labels)
    for name, v in (("loss", loss), ("gap", gap), ("bound", bound)):
        if v.size != k:
            raise refuse(name, v, f"one value per label ({k})")
    x = np.arange(k, dtype=float)
    parts = (("loss", "the vendor's expected loss (what fairness costs it)", PALETTE["orange"]),
             ("gap", "parity gap of its fair mapping", PALETTE["blue"]),
             ("bound", "largest parity gap any fair mapping may have (Earthmover)",
              PALETTE["black"]))
    series = tuple(Series(key, label, x + 0.27 * (i - 1), v, kind="bars", width=0.25,
                          colour=colour) for i, ((key, label, colour), v)
                   in enumerate(zip(parts, (loss, gap, bound))))
    return FigureData(f"Individual fairness at metric scale s = {scale:.3g}: cost and guarantee",
                      "task metric", "share of the people (0 to 1)",
                      series=series, x_domain=(-0.6, k - 0.4), y_domain=(0.0, 1.05),
                      x_ticks=tuple((float(i), w) for i, w in enumerate(labels)),
                      extra={"scale": scale})


plot_awareness = drawn(awareness_data)
