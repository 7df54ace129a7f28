"""Figures for group fairness: one Adult model, a decision threshold per group, and its gaps.

The app page "Fairness metrics" (and notebook 15) show an *unconstrained* logistic regression
on UCI Adult (Becker & Kohavi 1996; :func:`dpteach.datasets.adult_arrays`, trained on the
training split with no fairness constraint: scikit-learn's ``LogisticRegression`` with
:data:`ADULT_MODEL`) that scores the 15,060 people of the test split. The sensitive
attribute A is ``sex`` (1 = female). A person is predicted to earn more than $50K (Ŷ = 1)
when their score reaches their group's threshold (``female_threshold``, ``male_threshold``
in [0, 1]: 0 selects everyone, 1 almost no one), so two thresholds give one classifier.
Every rate and gap is computed by :mod:`dpteach.fairness.metrics` (nothing is
re-implemented here). The scores and the metrics of every threshold pair of the grid are
shipped (:func:`dpteach.tables.load_fairness_table`): a slider move computes only the
current pair.

References
----------
.. [HPS16] M. Hardt, E. Price, N. Srebro. "Equality of opportunity in supervised
   learning." NeurIPS 2016 (arXiv:1610.02413): equalized odds and equal opportunity (Sec. 2),
   and their picture in ROC space (the groups' operating points).
.. [MCPZ18] D. Madras, E. Creager, T. Pitassi, R. Zemel. "Learning adversarially fair and
   transferable representations." ICML 2018 (arXiv:1802.06309): the summed equalized-odds
   gap and the equal-opportunity gap on Y = 0 (see :mod:`dpteach.fairness.metrics`).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from sklearn.metrics import accuracy_score

from .. import tables
from .._validation import anything, choice, real, validate
from ..fairness import metrics as M
from ._style import PALETTE, shipped_table
from .figure import FigureData, Series, drawn

__all__ = [
    "THRESHOLDS", "ADULT_MODEL", "GROUPS", "GAPS", "GRID_NAMES",
    "adult_predictions", "gap_values", "fairness_gaps", "group_rates",
    "group_roc_data", "plot_group_roc", "threshold_tradeoff_data", "plot_threshold_tradeoff",
]

#: The thresholds of the page's sliders and of the table's grid: 0.00, 0.01, …, 1.00.
THRESHOLDS: tuple[float, ...] = tuple(round(i / 100, 2) for i in range(101))
#: The model: ``sklearn.linear_model.LogisticRegression(**ADULT_MODEL)`` fitted on the
#: training split of :func:`dpteach.datasets.adult_arrays` (sex among the features, no
#: fairness constraint). Newton's method to a gradient of 1e-10: the exact minimiser, so a
#: refit gives the shipped scores (stored as float32) to within their rounding, 3e-8.
ADULT_MODEL = {"C": 1.0, "solver": "newton-cholesky", "tol": 1e-10, "max_iter": 100}
#: The groups, in the table's order: value of ``sex`` (A) → name.
GROUPS = {1: "women", 0: "men"}
#: Every gap the page shows: key → (name, one-line meaning). Each is computed by the
#: metrics module (:func:`fairness_gaps`).
GAPS = {
    "demographic_parity": (
        "demographic-parity difference",
        "|P(Ŷ=1 | women) − P(Ŷ=1 | men)|: are both groups selected at the same rate?"),
    "equalized_odds_worst": (
        "equalized odds, worst case",
        "max(|ΔTPR|, |ΔFPR|) (fairlearn's default): do both groups get the same TPR and "
        "the same FPR? The larger of the two gaps."),
    "equalized_odds_mean": (
        "equalized odds, mean",
        "(|ΔTPR| + |ΔFPR|) / 2 (fairlearn's agg=\"mean\")."),
    "equalized_odds_sum": (
        "equalized odds, sum (LAFTR)",
        "|ΔTPR| + |ΔFPR|: the ΔEO of Madras et al. 2018 (LAFTR), twice the mean."),
    "equal_opportunity": (
        "equal opportunity (positive class)",
        "|ΔTPR| = |P(Ŷ=1 | Y=1, women) − P(Ŷ=1 | Y=1, men)| (Hardt et al. 2016): "
        "are the people who do earn > $50K recognised equally often?"),
    "equal_opportunity_laftr": (
        "equal opportunity (LAFTR, class Y=0)",
        "|ΔFPR| = |P(Ŷ=1 | Y=0, women) − P(Ŷ=1 | Y=0, men)|: the variant of Madras et al. "
        "2018 (LAFTR), who condition on Y = 0."),
}
#: The arrays of the table's grid, each indexed [women's threshold, men's threshold].
GRID_NAMES = ("accuracy",) + tuple(GAPS)
_CLOUD_STEP = 5                   # the cloud shows every 5th threshold of each group (21²)
_ACCURACY_FLOOR = 0.70            # the trade-off chart's y axis starts here (or lower)
#: a group's threshold: 0 selects everyone, 1 (almost) no one
THRESHOLD = real(0.0, 1.0, example=0.5)
_PAIR = dict(female_threshold=THRESHOLD, male_threshold=THRESHOLD)


# ------------------------------------------------------------------ the shipped table
def _table() -> dict:
    return shipped_table(tables.load_fairness_table, tables.FAIRNESS_TABLE,
                         "scripts/precompute_app_tables.py --only fairness")


def _predict(score: np.ndarray, sex: np.ndarray, tf: float, tm: float) -> np.ndarray:
    return np.where(sex == 1, score >= tf, score >= tm).astype(np.int64)


@validate(**_PAIR)
def adult_predictions(female_threshold: float, male_threshold: float):
    """The shipped model's decisions on the Adult test split with a threshold per group.

    Returns ``(y_true, y_pred, sex)``, three int64 arrays of length 15,060.
    """
    tf, tm = female_threshold, male_threshold
    table = _table()
    return table["y"], _predict(table["score"], table["sex"], tf, tm), table["sex"]


@validate(y_true=M.LABELS, y_pred=M.LABELS,
          sensitive_features=anything("group labels, as the metrics module takes them "
                                      "(checked there)"))
def gap_values(y_true, y_pred, *, sensitive_features) -> dict[str, float]:
    """Accuracy and every gap of :data:`GAPS`, each one call of :mod:`dpteach.fairness.metrics`.

    The one place that says which function gives which number: ``accuracy`` is
    scikit-learn's ``accuracy_score``; ``demographic_parity`` is
    ``demographic_parity_difference``; ``equalized_odds_worst`` and ``equalized_odds_mean``
    are ``equalized_odds_difference`` with ``agg="worst_case"`` and ``agg="mean"``;
    ``equalized_odds_sum`` is ``equalized_odds_sum`` ([MCPZ18]_); ``equal_opportunity`` is
    ``equal_opportunity_difference`` (TPR, [HPS16]_) and ``equal_opportunity_laftr`` is
    ``laftr_equal_opportunity_difference`` (FPR, [MCPZ18]_). The shipped grid
    (``scripts/precompute_app_tables.py``) and :func:`fairness_gaps` both call it. Every
    group of ``sensitive_features`` needs both true classes. Returns a dict, the keys of
    :data:`GRID_NAMES` in that order → float.
    """
    kw = {"sensitive_features": sensitive_features}
    gaps = {
        "demographic_parity": M.demographic_parity_difference(y_true, y_pred, **kw),
        "equalized_odds_worst": M.equalized_odds_difference(y_true, y_pred, agg="worst_case",
                                                            **kw),
        "equalized_odds_mean": M.equalized_odds_difference(y_true, y_pred, agg="mean", **kw),
        "equalized_odds_sum": M.equalized_odds_sum(y_true, y_pred, **kw),
        "equal_opportunity": M.equal_opportunity_difference(y_true, y_pred, **kw),
        "equal_opportunity_laftr": M.laftr_equal_opportunity_difference(y_true, y_pred, **kw),
    }
    # the metrics module has checked the arrays: accuracy_score gets 0/1 of equal length
    return {"accuracy": float(accuracy_score(np.asarray(y_true, dtype=float),
                                             np.asarray(y_pred, dtype=float))), **gaps}


@validate(**_PAIR)
def fairness_gaps(female_threshold: float, male_threshold: float) -> dict[str, float]:
    """Accuracy and every gap of :data:`GAPS` of the shipped Adult model at these thresholds.

    :func:`gap_values` of the 15,060 test people's decisions (:func:`adult_predictions`):
    each gap is one call of :mod:`dpteach.fairness.metrics` ([HPS16]_, [MCPZ18]_).
    """
    return dict(_gaps_at(female_threshold, male_threshold))


@functools.lru_cache(maxsize=1024)
def _gaps_at(tf: float, tm: float) -> tuple:
    """:func:`gap_values` at checked thresholds, as items (the page asks three times per
    slider move: the numbers and the two trade-off charts; about 5 ms each)."""
    y, y_pred, sex = adult_predictions.__wrapped__(tf, tm)
    return tuple(gap_values(y, y_pred, sensitive_features=sex).items())


@validate(**_PAIR)
def group_rates(female_threshold: float, male_threshold: float):
    """Per-group rates of the shipped Adult model: :func:`dpteach.fairness.metrics.group_table`.

    Returns
    -------
    pandas.DataFrame
        One row per group, ``"women"`` then ``"men"``: the group's ``threshold`` and the
        columns of ``group_table``. The PPV P(Y=1 | Ŷ=1) is NaN for a group whose
        threshold selects no one (0/0).
    """
    tf, tm = female_threshold, male_threshold
    y, y_pred, sex = adult_predictions.__wrapped__(tf, tm)
    table = M.group_table(y, y_pred, sensitive_features=sex)
    table = table.rename(index=GROUPS).loc[[GROUPS[1], GROUPS[0]]]
    table.insert(0, "threshold", [tf, tm])
    return table


# --------------------------------------------------------------------------- ROC
@validate(**_PAIR)
def group_roc_data(female_threshold: float, male_threshold: float) -> FigureData:
    """Each group's ROC curve (threshold 0 … 1) and the operating point of its threshold.

    The curves are the TPR and FPR of each group at every threshold of :data:`THRESHOLDS`
    (shipped, from :func:`dpteach.fairness.metrics.true_positive_rate` and
    ``false_positive_rate``); the points are those of the current thresholds, computed.
    Equalized odds holds where the two points coincide; equal opportunity (positive class)
    where they are at the same height ([HPS16]_).

    Series ``roc-women``, ``roc-men``, ``point-women``, ``point-men`` and ``chance``.
    ``extra``: ``tpr``, ``fpr`` (group → rate at its threshold) and ``curves`` (group →
    (FPR, TPR) arrays over the thresholds).
    """
    tf, tm = female_threshold, male_threshold
    table = _table()
    y, y_pred, sex = table["y"], _predict(table["score"], table["sex"], tf, tm), table["sex"]
    colours = {"women": PALETTE["vermillion"], "men": PALETTE["blue"]}
    series, tpr, fpr, curves = [], {}, {}, {}
    for row, (a, name) in enumerate(GROUPS.items()):       # table rows: women, then men
        mine = sex == a
        tpr[name] = M.true_positive_rate(y[mine], y_pred[mine])
        fpr[name] = M.false_positive_rate(y[mine], y_pred[mine])
        _, curve_tpr, curve_fpr = table["group_rates"][row]
        curves[name] = (curve_fpr, curve_tpr)
        series.append(Series(f"roc-{name}", f"{name}: thresholds 0 to 1", curve_fpr,
                             curve_tpr, colour=colours[name], width=2.0,
                             tooltip=((f"{name}'s threshold", np.asarray(THRESHOLDS)),)))
    for name, t in ((GROUPS[1], tf), (GROUPS[0], tm)):
        series.append(Series(f"point-{name}", f"{name} at t = {t:.2f}: TPR {tpr[name]:.3f}, "
                             f"FPR {fpr[name]:.3f}", [fpr[name]], [tpr[name]], kind="points",
                             colour=colours[name], width=5.0))
    series.append(Series("chance", "", [0.0, 1.0], [0.0, 1.0], colour=PALETTE["black"],
                         dash="dotted", width=1.0, opacity=0.6))
    d_tpr = abs(tpr["women"] - tpr["men"])
    d_fpr = abs(fpr["women"] - fpr["men"])
    return FigureData(
        f"Each group's ROC curve and its operating point\n"
        f"|ΔTPR| = {d_tpr:.3f}, |ΔFPR| = {d_fpr:.3f} (0 when the points meet)",
        "FPR P(Ŷ=1 | Y=0) (share of the ≤ $50K earners selected)",
        "TPR P(Ŷ=1 | Y=1) (share)",
        series=tuple(series), x_domain=(0.0, 1.0), y_domain=(0.0, 1.0),
        extra={"tpr": tpr, "fpr": fpr, "curves": curves})


plot_group_roc = drawn(group_roc_data)


# ------------------------------------------------------------------- the trade-off
@functools.lru_cache(maxsize=len(GAPS))
def _static_tradeoff(gap: str):
    """The parts of the trade-off chart that do not depend on the sliders (per gap)."""
    table = _table()
    grid = table["grid"]
    acc, values = grid[0], grid[GRID_NAMES.index(gap)]
    # the cloud: every _CLOUD_STEP-th threshold of each group
    idx = np.arange(0, len(THRESHOLDS), _CLOUD_STEP)
    cloud_f, cloud_m = np.meshgrid(idx, idx, indexing="ij")
    cloud = (values[cloud_f, cloud_m].ravel(), acc[cloud_f, cloud_m].ravel(),
             np.asarray(THRESHOLDS)[cloud_f.ravel()], np.asarray(THRESHOLDS)[cloud_m.ravel()])
    # the frontier: the best accuracy over all pairs whose gap is at most x (a staircase)
    order = np.lexsort((-acc.ravel(), values.ravel()))
    x, a = values.ravel()[order], acc.ravel()[order]
    best = np.maximum.accumulate(a)
    keep = np.r_[True, best[1:] > best[:-1]]
    px, py = x[keep], best[keep]
    stair_x = np.repeat(px, 2)[1:]                # up at each Pareto pair, flat between
    stair_y = np.repeat(py, 2)[:-1]
    # one threshold for both groups: the diagonal
    diag = np.arange(len(THRESHOLDS))
    single = (values[diag, diag], acc[diag, diag])
    return cloud, (stair_x, stair_y), single, float(acc.max())


@validate(**_PAIR, gap=choice(*GAPS))
def threshold_tradeoff_data(female_threshold: float, male_threshold: float, *,
                            gap: str = "demographic_parity") -> FigureData:
    """Accuracy against a fairness gap for every pair of group thresholds; the current pair.

    From the shipped grid (:func:`dpteach.tables.load_fairness_table`: the metrics module at
    each of the 101 × 101 pairs of :data:`THRESHOLDS`):

    * a cloud of pairs (every 0.05 of each group's threshold);
    * the frontier: the best accuracy of any pair of the grid whose gap is at most x;
    * the single-threshold curve: the same threshold for both groups, from 0 to 1;
    * the current pair, computed (:func:`fairness_gaps`).

    The x axis is the ``gap`` (a key of :data:`GAPS`). Series ``pairs``, ``frontier``,
    ``single`` and ``current``. ``extra``: ``gaps`` (:func:`fairness_gaps` of the pair),
    ``gap``, ``cloud_thresholds`` (women's and men's threshold of each cloud point),
    ``best_accuracy`` (over the grid).
    """
    tf, tm = female_threshold, male_threshold
    now = fairness_gaps.__wrapped__(tf, tm)
    (cx, cy, ctf, ctm), (fx, fy), (sx, sy), best = _static_tradeoff(gap)
    acc, g = now["accuracy"], now[gap]
    low = min(_ACCURACY_FLOOR, math.floor((acc - 0.01) * 50) / 50)
    high = math.ceil(best * 100) / 100 + 0.01
    # x up to the frontier's end, the visible part of the single-threshold curve and the
    # current pair (pairs further right are never the best choice: left out)
    reach = np.concatenate([fx, sx[sy >= low], [g]])
    x_high = max(0.05, math.ceil((reach.max() + 0.01) * 20) / 20)
    shown = (cy >= low) & (cx <= x_high)
    name = GAPS[gap][0]
    series = (
        Series("pairs", "threshold pairs (every 0.05)", cx[shown], cy[shown],
               kind="points", colour=PALETTE["sky"], width=1.2, opacity=0.45,
               tooltip=(("women's threshold", ctf[shown]), ("men's threshold", ctm[shown]))),
        Series("frontier", "best accuracy at this gap or below (all pairs)", fx, fy,
               colour=PALETTE["blue"], width=2.2),
        Series("single", "one threshold for both groups", sx, sy,
               colour=PALETTE["orange"], dash="dashed", width=2.0,
               tooltip=(("threshold (both groups)", np.asarray(THRESHOLDS)),)),
        Series("current", f"women t = {tf:.2f}, men t = {tm:.2f}", [g], [acc], kind="points",
               colour=PALETTE["vermillion"], width=6.0),
    )
    return FigureData(
        f"Accuracy against {name}\n"
        f"women t = {tf:.2f}, men t = {tm:.2f}: accuracy {acc:.3f}, gap {g:.3f}",
        f"{name} (difference of two rates, 0 = equal)",
        "accuracy (share correct)",
        series=series, x_domain=(0.0, x_high), y_domain=(low, high),
        extra={"gaps": now, "gap": gap, "cloud_thresholds": (ctf[shown], ctm[shown]),
               "best_accuracy": best})


plot_threshold_tradeoff = drawn(threshold_tradeoff_data)
