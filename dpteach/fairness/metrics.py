"""Group-fairness metrics: per-group rates and the gaps of the common definitions.

A classifier's predictions ``y_pred`` (0/1) are compared with the true labels ``y_true``
(0/1) separately in each group of ``sensitive_features`` (the attribute *A*: sex, age
group, ...). Each fairness definition asks one per-group rate to be equal across groups;
its *gap* is how far apart the groups are:

===============================  ========================  ==================================
definition                       rate equal across groups  gap here
===============================  ========================  ==================================
demographic parity               P(Ŷ=1 | A)                demographic_parity_difference
equalized odds [HPS16]_          P(Ŷ=1 | A, Y=y), y=0, 1   equalized_odds_difference (worst
                                                           case or mean), equalized_odds_sum
                                                           (the sum of [MCPZ18]_)
equal opportunity [HPS16]_       P(Ŷ=1 | A, Y=1) (TPR)     equal_opportunity_difference
equal opportunity of [MCPZ18]_   P(Ŷ=1 | A, Y=0) (FPR)     laftr_equal_opportunity_difference
calibration within groups        P(Y=1 | A, score bin)     calibration_within_groups_error
[KMR17]_, [C17]_
===============================  ========================  ==================================

plus the per-group table (:func:`group_table`) and the three measures of Zemel et al.
[ZWSPD13]_: accuracy yAcc (:func:`zemel_accuracy`), discrimination yDiscrim
(:func:`zemel_discrimination`) and consistency yNN (:func:`consistency_score`).

**Names follow fairlearn** (https://fairlearn.org, version 0.15) wherever fairlearn has
the metric — ``demographic_parity_difference(y_true, y_pred, *, sensitive_features,
method=...)``, ``equalized_odds_difference(..., agg=...)``, ``equal_opportunity_difference``,
``selection_rate``, ``true_positive_rate``, ... — and the numbers are the same, so what
students learn here carries over to the tool they will use at work. For more than two groups
the gaps follow fairlearn's ``method="between_groups"``: the largest group rate minus the
smallest; ``method="to_overall"`` gives the largest distance of a group's rate from the
overall rate. Conventions fairlearn lacks have their own names (:func:`equalized_odds_sum`,
:func:`laftr_equal_opportunity_difference`, the calibration and Zemel measures). Not
supported here: ``sample_weight`` and several sensitive-feature columns (combine them into
one label per row first, e.g. ``"F/Black"``).

**A gap is never a silent NaN.** Where fairlearn answers NaN or 0 with a warning, these
functions raise :class:`~dpteach._validation.ParameterError` naming the argument: a group
with a single member, fewer than two groups, or a group without any row of the class a
conditional rate needs (no ``y_true == 1`` for a true positive rate, ...). Every function
returns Python ``float``\\ s.

References
----------
.. [HPS16] M. Hardt, E. Price and N. Srebro. Equality of opportunity in supervised
   learning. NeurIPS 2016, Sec. 2 (definitions of equalized odds and equal opportunity).
.. [ZWSPD13] R. Zemel, Y. Wu, K. Swersky, T. Pitassi and C. Dwork. Learning fair
   representations. ICML 2013: the measures yAcc, yDiscrim and yNN of its experiments
   (their section number could not be confirmed from the sources available here).
.. [MCPZ18] D. Madras, E. Creager, T. Pitassi and R. Zemel. Learning adversarially fair
   and transferable representations. ICML 2018 (the gaps ΔDP, ΔEO and ΔEOpp).
.. [KMR17] J. Kleinberg, S. Mullainathan and M. Raghavan. Inherent trade-offs in the fair
   determination of risk scores. ITCS 2017 (arXiv:1609.05807, 2016).
.. [C17] A. Chouldechova. Fair prediction with disparate impact: a study of bias in
   recidivism prediction instruments. Big Data 5(2), 2017.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ._rows import check_same_length
from .._validation import Domain, array, choice, integer, refuse, validate

__all__ = [
    "MAX_ROWS", "MAX_NEIGHBOUR_ROWS", "MAX_NEIGHBORS", "MAX_BINS",
    "LABELS", "BOTH_LABELS", "SCORES", "GROUP_LABELS", "SEVERAL_GROUPS", "COMPARED_GROUPS",
    "TWO_GROUPS",
    "selection_rate", "true_positive_rate", "false_positive_rate", "false_negative_rate",
    "true_negative_rate", "positive_predictive_value", "group_table",
    "demographic_parity_difference", "equalized_odds_difference", "equalized_odds_sum",
    "equal_opportunity_difference", "laftr_equal_opportunity_difference",
    "calibration_by_group", "calibration_within_groups_error",
    "consistency_score", "zemel_accuracy", "zemel_discrimination",
]

#: Most rows any metric here takes (a gap then needs about 85 MB beyond its inputs).
MAX_ROWS = 2_000_000
#: Most rows of :func:`consistency_score`, whose neighbour search is quadratic in the rows.
MAX_NEIGHBOUR_ROWS = 20_000
#: Largest ``n_neighbors`` of :func:`consistency_score` (the paper's k is 5).
MAX_NEIGHBORS = 100
#: Largest ``n_bins`` of the calibration functions.
MAX_BINS = 1_000

#: true labels or predictions: 0 and 1 (ints, bools or the floats 0.0/1.0)
LABELS = array(ndim=1, low=0, high=1, integers=True, booleans=True, max_size=MAX_ROWS,
               example=[1, 0, 1, 0], text="a 1-D array of 0/1 labels (ints, bools or 0.0/1.0), "
               "at most 2,000,000 of them")
#: training labels: 0/1 labels with both labels present
BOTH_LABELS: Domain = Domain(
    "a 1-D array of 0/1 labels with both labels present (ints, bools or 0.0/1.0), at most "
    "2,000,000 of them", lambda name, value: _both_labels(name, value), example=[1, 0, 1, 0],
    edges=[[0, 1]], bad=[*LABELS.bad, [1, 1, 1, 1], [0, 0, 0, 0]])
#: scores: predicted probabilities of Y = 1 (0/1 predictions are scores too)
SCORES = array(ndim=1, low=0, high=1, booleans=True, max_size=MAX_ROWS,
               example=[0.9, 0.2, 0.6, 0.4],
               text="a 1-D array of probabilities in [0, 1], at most 2,000,000 of them")
#: the group of each row (``sensitive_features``): ints, bools, finite floats or strings,
#: all of one kind; the body receives them encoded (sorted labels, each row's group, sizes)
GROUP_LABELS: Domain = Domain(
    "a 1-D array of group labels, one per row (ints, bools, finite floats or strings, all of "
    "one kind), at most 2,000,000", lambda name, value: _groups(name, value, GROUP_LABELS),
    example=["a", "a", "b", "b"], bad=["abc", None, 3, [[0, 1], [1, 0]], [math.nan] * 4,
                                       [1j] * 4, [], ["a", 1, "a", 1], [None] * 4])
#: the groups of individuals (fairness through awareness): at least 2, of any size
SEVERAL_GROUPS: Domain = Domain(
    GROUP_LABELS.text + "; at least 2 groups",
    lambda name, value: _groups(name, value, SEVERAL_GROUPS, min_groups=2),
    example=[0, 1], edges=[["F", "M"]], bad=[*GROUP_LABELS.bad, [0, 0]])
#: groups that a gap compares: at least 2, each with at least 2 members
COMPARED_GROUPS: Domain = Domain(
    GROUP_LABELS.text + "; at least 2 groups, each with at least 2 members",
    lambda name, value: _groups(name, value, COMPARED_GROUPS, min_groups=2, min_members=2),
    example=[0, 0, 1, 1], edges=[["F", "F", "M", "M"]],
    bad=[*GROUP_LABELS.bad, [0, 0, 0, 0], [0, 0, 0, 1]])
#: the sensitive attribute of a fair representation: exactly 2 groups of at least 2 members
TWO_GROUPS: Domain = Domain(
    GROUP_LABELS.text + "; exactly 2 groups, each with at least 2 members",
    lambda name, value: _groups(name, value, TWO_GROUPS, min_groups=2, max_groups=2,
                                min_members=2),
    example=[0, 0, 1, 1], edges=[["F", "F", "M", "M"]], bad=[*COMPARED_GROUPS.bad, [0, 0, 1, 2]])
METHOD = choice("between_groups", "to_overall")
POS_LABEL = choice(1, 0)


# ---------------------------------------------------------------- rates of one group
@validate(y_true=LABELS, y_pred=LABELS, pos_label=POS_LABEL)
def selection_rate(y_true, y_pred, *, pos_label=1) -> float:
    """Fraction of predictions equal to ``pos_label``: P(Ŷ = pos_label).

    fairlearn's ``selection_rate`` (without ``sample_weight``). ``y_true`` is not used in
    the number but is checked like everywhere else (binary, same length). ``pos_label`` is
    the label counted as a selection.
    """
    return _scalar_rate(y_true, y_pred, pos_label, "selection_rate")


@validate(y_true=LABELS, y_pred=LABELS, pos_label=POS_LABEL)
def true_positive_rate(y_true, y_pred, *, pos_label=1) -> float:
    """P(Ŷ = pos_label | Y = pos_label): recall, sensitivity (fairlearn's name).

    Parameters as :func:`selection_rate`. Raises ``ParameterError`` (naming ``y_true``)
    when ``y_true`` has no positive, instead of fairlearn's 0 or NaN.
    """
    return _scalar_rate(y_true, y_pred, pos_label, "true_positive_rate")


@validate(y_true=LABELS, y_pred=LABELS, pos_label=POS_LABEL)
def false_positive_rate(y_true, y_pred, *, pos_label=1) -> float:
    """P(Ŷ = pos_label | Y ≠ pos_label) (fairlearn's name). Needs a negative in ``y_true``."""
    return _scalar_rate(y_true, y_pred, pos_label, "false_positive_rate")


@validate(y_true=LABELS, y_pred=LABELS, pos_label=POS_LABEL)
def false_negative_rate(y_true, y_pred, *, pos_label=1) -> float:
    """P(Ŷ ≠ pos_label | Y = pos_label) = 1 − TPR (fairlearn's name). Needs a positive."""
    return _scalar_rate(y_true, y_pred, pos_label, "false_negative_rate")


@validate(y_true=LABELS, y_pred=LABELS, pos_label=POS_LABEL)
def true_negative_rate(y_true, y_pred, *, pos_label=1) -> float:
    """P(Ŷ ≠ pos_label | Y ≠ pos_label) = 1 − FPR (fairlearn's name). Needs a negative."""
    return _scalar_rate(y_true, y_pred, pos_label, "true_negative_rate")


@validate(y_true=LABELS, y_pred=LABELS, pos_label=POS_LABEL)
def positive_predictive_value(y_true, y_pred, *, pos_label=1) -> float:
    """P(Y = pos_label | Ŷ = pos_label): precision (scikit-learn's ``precision_score``).

    Raises ``ParameterError`` when no prediction equals ``pos_label`` (scikit-learn answers
    0 with a warning there).
    """
    return _scalar_rate(y_true, y_pred, pos_label, "positive_predictive_value")


# ---------------------------------------------------------------- the per-group table
@validate(y_true=LABELS, y_pred=LABELS, sensitive_features=COMPARED_GROUPS,
          y_prob=SCORES.or_none())
def group_table(y_true, y_pred, *, sensitive_features, y_prob=None) -> pd.DataFrame:
    """One row per group: its size, base rate, selection rate, error rates and accuracy.

    The rates are those of the scalar functions above (fairlearn's definitions), one per
    group, so the table equals fairlearn's ``MetricFrame(...).by_group`` for the same
    metrics. Every group needs both true classes (its TPR and FPR are in the table).

    Returns a DataFrame indexed by the sorted group labels (index name ``"group"``), with the
    columns ``count`` (int), ``base_rate`` P(Y=1), ``selection_rate`` P(Ŷ=1),
    ``true_positive_rate``, ``false_positive_rate``, ``false_negative_rate``,
    ``positive_predictive_value``, ``accuracy`` and, with the scores ``y_prob``,
    ``mean_score``. ``positive_predictive_value`` is the only column that can be NaN: for a
    group in which nobody is predicted positive, where precision is undefined (scikit-learn
    reports 0 with a warning). It is NaN rather than an error so that a table for a threshold
    that selects nobody in one group can still be shown.
    """
    c = _counts(y_true, y_pred, sensitive_features, y_prob=y_prob)
    tpr = _rate(c, "true_positive_rate")
    fpr = _rate(c, "false_positive_rate")
    fp = c.sel - c.tp
    tn = c.n - c.pos - fp
    with np.errstate(invalid="ignore", divide="ignore"):
        ppv = np.where(c.sel > 0, c.tp / np.where(c.sel > 0, c.sel, 1.0), np.nan)
    columns = {
        "count": c.n.astype(np.int64),
        "base_rate": c.pos / c.n,
        "selection_rate": c.sel / c.n,
        "true_positive_rate": tpr,
        "false_positive_rate": fpr,
        "false_negative_rate": (c.pos - c.tp) / c.pos,
        "positive_predictive_value": ppv,
        "accuracy": (c.tp + tn) / c.n,
    }
    if y_prob is not None:
        g = sensitive_features
        columns["mean_score"] = np.bincount(g.codes, weights=y_prob, minlength=c.n.size) / c.n
    return pd.DataFrame(columns, index=pd.Index(c.labels, name="group"))


# ---------------------------------------------------------------------------- the gaps
@validate(y_true=LABELS, y_pred=LABELS, sensitive_features=COMPARED_GROUPS, method=METHOD)
def demographic_parity_difference(y_true, y_pred, *, sensitive_features,
                                  method="between_groups") -> float:
    """Demographic-parity gap: the spread of the selection rates P(Ŷ = 1 | A = a).

    ``max_a P(Ŷ=1|A=a) − min_a P(Ŷ=1|A=a)`` (``method="between_groups"``, fairlearn's
    default; for two groups ``|P(Ŷ=1|A=0) − P(Ŷ=1|A=1)|``, the ΔDP of [MCPZ18]_), or
    ``max_a |P(Ŷ=1|A=a) − P(Ŷ=1)|`` (``method="to_overall"``). 0 means parity. Same name,
    signature (without ``sample_weight``) and numbers as fairlearn's; ``y_true`` is checked
    but not used in the number.
    """
    return _difference(_counts(y_true, y_pred, sensitive_features), "selection_rate", method)


@validate(y_true=LABELS, y_pred=LABELS, sensitive_features=COMPARED_GROUPS, method=METHOD,
          agg=choice("worst_case", "mean"))
def equalized_odds_difference(y_true, y_pred, *, sensitive_features, method="between_groups",
                              agg="worst_case") -> float:
    """Equalized-odds gap in fairlearn's two conventions: worst case or mean.

    Equalized odds [HPS16]_ (Sec. 2) asks P(Ŷ=1 | A=a, Y=y) to be the same for every group
    a, for y = 1 (true positive rate, TPR) and y = 0 (false positive rate, FPR). With
    ΔTPR and ΔFPR the two gaps (as in :func:`demographic_parity_difference`, per
    ``method``), this returns ``max(ΔTPR, ΔFPR)`` for ``agg="worst_case"`` (fairlearn's
    default) and ``(ΔTPR + ΔFPR) / 2`` for ``agg="mean"``. The LAFTR paper's sum is
    :func:`equalized_odds_sum`. Every group needs at least one ``y_true == 1`` and one
    ``y_true == 0`` (else the TPR or FPR of that group is undefined: ParameterError).
    """
    c = _counts(y_true, y_pred, sensitive_features)
    d_tpr = _difference(c, "true_positive_rate", method)
    d_fpr = _difference(c, "false_positive_rate", method)
    return float(max(d_tpr, d_fpr) if agg == "worst_case" else (d_tpr + d_fpr) / 2)


@validate(y_true=LABELS, y_pred=LABELS, sensitive_features=COMPARED_GROUPS, method=METHOD)
def equalized_odds_sum(y_true, y_pred, *, sensitive_features, method="between_groups") -> float:
    """Equalized-odds gap as the LAFTR paper reports it: ΔTPR + ΔFPR.

    [MCPZ18]_ measure equalized odds by the sum over y ∈ {0, 1} of the gaps in
    P(Ŷ=1 | A, Y=y), i.e. ``|ΔTPR| + |ΔFPR|`` (in [0, 2]) — twice fairlearn's
    ``agg="mean"``. For more than two groups each gap is ``max − min`` over the groups
    (``method="between_groups"``) or the largest distance to the overall rate
    (``"to_overall"``). The authors' evaluation code logs half this sum (its ``DI``
    metric, which is :func:`equalized_odds_difference` with ``agg="mean"``), so check
    which one a table reports. Errors as :func:`equalized_odds_difference`.
    """
    c = _counts(y_true, y_pred, sensitive_features)
    return float(_difference(c, "true_positive_rate", method)
                 + _difference(c, "false_positive_rate", method))


@validate(y_true=LABELS, y_pred=LABELS, sensitive_features=COMPARED_GROUPS, method=METHOD)
def equal_opportunity_difference(y_true, y_pred, *, sensitive_features,
                                 method="between_groups") -> float:
    """Equal-opportunity gap on the positive class: the spread of the TPRs.

    Equal opportunity [HPS16]_ (Sec. 2) relaxes equalized odds to the advantaged outcome
    Y = 1 only: P(Ŷ=1 | A=a, Y=1) equal across groups. The gap is ΔTPR (fairlearn's
    ``equal_opportunity_difference``, same numbers). For the LAFTR paper's version, which
    conditions on Y = 0, see :func:`laftr_equal_opportunity_difference`. Every group needs at
    least one ``y_true == 1``.
    """
    return _difference(_counts(y_true, y_pred, sensitive_features), "true_positive_rate",
                       method)


@validate(y_true=LABELS, y_pred=LABELS, sensitive_features=COMPARED_GROUPS, method=METHOD)
def laftr_equal_opportunity_difference(y_true, y_pred, *, sensitive_features,
                                       method="between_groups") -> float:
    """Equal-opportunity gap conditioned on Y = 0, the convention of the LAFTR paper.

    [MCPZ18]_ treat Y = 0 as the advantaged outcome in their equal-opportunity experiments
    (on the Heritage Health data Y = 1 means a high comorbidity index, i.e. falling ill),
    so their ΔEOpp compares the groups' error rates among the Y = 0 rows:
    ``|P(Ŷ≠Y | A=0, Y=0) − P(Ŷ≠Y | A=1, Y=0)|`` = ΔFPR, the gap in false positive rates
    (fairlearn calls the same number ``false_positive_rate_difference``). Hardt et al.'s
    equal opportunity on the positive class is :func:`equal_opportunity_difference`; the
    two coincide only when the roles of the labels are swapped (``1 - y``).

    Where this comes from: the authors' reference implementation
    (github.com/VectorInstitute/laftr) trains the equal-opportunity adversary "only using
    Y = 0 examples" (``src/codebase/models.py``, class ``EqoppUnweightedGan``) and, for the
    weighted objective, sets the Y = 1 weights to zero ("we only care about ppl with
    Y = 0", ``src/laftr.py``). The paper's own statement of ΔEOpp could not be checked
    against its text when this was written, so no section or equation number is given.
    Every group needs at least one ``y_true == 0``.
    """
    return _difference(_counts(y_true, y_pred, sensitive_features), "false_positive_rate",
                       method)


# ------------------------------------------------------------------------ calibration
@validate(y_true=LABELS, y_prob=SCORES, sensitive_features=COMPARED_GROUPS,
          n_bins=integer(1, MAX_BINS, example=10))
def calibration_by_group(y_true, y_prob, *, sensitive_features, n_bins=10) -> pd.DataFrame:
    """Reliability table per group: mean score against the observed rate in each score bin.

    Calibration within groups [KMR17]_ [C17]_: among the members of group a who receive a
    score near s, a fraction s should be positive, for every group. Scores are put into
    ``n_bins`` equal-width bins fixed in [0, 1] (edges ``numpy.linspace(0, 1, n_bins + 1)``;
    bin b covers (b/n_bins, (b+1)/n_bins], the first bin also holds 0 — the convention of
    scikit-learn's ``calibration_curve(strategy="uniform")``, which gives the same points
    for each group). A calibrated group lies on the diagonal ``observed_rate ==
    mean_predicted``. When base rates differ between groups, a score calibrated within groups
    cannot also be balanced for both classes (the same mean score among the Y = 1 members,
    and among the Y = 0 members, of every group) unless it predicts perfectly [KMR17]_; and
    a thresholded classifier with equal PPV in every group cannot have equal false positive
    and false negative rates [C17]_. A group may lack one class: its observed rate is then 0
    or 1 in every bin.

    Returns one row per group and non-empty bin (empty bins are left out, so there is no NaN),
    sorted by group then bin, with the columns ``group``, ``bin`` (0-based), ``bin_low``,
    ``bin_high``, ``count``, ``mean_predicted`` (mean score in the bin) and ``observed_rate``
    (fraction with ``y_true == 1``).
    """
    g, edges, grp, b, count, sum_y, sum_p = _calibration_cells(
        y_true, y_prob, sensitive_features, n_bins)
    return pd.DataFrame({
        "group": g.labels[grp],
        "bin": b.astype(np.int64),
        "bin_low": edges[b],
        "bin_high": edges[b + 1],
        "count": count.astype(np.int64),
        "mean_predicted": sum_p / count,
        "observed_rate": sum_y / count,
    })


@validate(y_true=LABELS, y_prob=SCORES, sensitive_features=COMPARED_GROUPS,
          n_bins=integer(1, MAX_BINS, example=10))
def calibration_within_groups_error(y_true, y_prob, *, sensitive_features,
                                    n_bins=10) -> float:
    """Largest expected calibration error of any group: one number for calibration within groups.

    For each group a, the expected calibration error over the bins of
    :func:`calibration_by_group` is ``ECE_a = Σ_b (n_ab / n_a) |observed_ab −
    mean_predicted_ab|`` (the count-weighted distance of its reliability points from the
    diagonal); this returns ``max_a ECE_a``. It is 0 exactly when every group is calibrated
    bin by bin (calibration within groups [KMR17]_, up to the binning) and at most 1. It
    measures each group against the diagonal, not the groups against each other: two
    groups miscalibrated in the same way both count.
    """
    g, _, grp, _, _, sum_y, sum_p = _calibration_cells(y_true, y_prob, sensitive_features,
                                                       n_bins)
    ece = np.bincount(grp, weights=np.abs(sum_y - sum_p), minlength=g.labels.size) / g.sizes
    return float(np.max(ece))


# ----------------------------------------------------------- Zemel et al. (2013) measures
@validate(y_true=LABELS, y_prob=SCORES)
def zemel_accuracy(y_true, y_prob) -> float:
    """yAcc of [ZWSPD13]_: ``1 − (1/N) Σ_n |y_n − ŷ_n|``.

    The accuracy of the predicted probabilities ŷ_n: with 0/1 predictions it is the usual
    accuracy; with probabilities it is one minus the mean absolute error, so hedged
    predictions score less than confident right ones.
    """
    check_same_length(y_prob=y_prob, y_true=y_true)
    return float(1.0 - np.mean(np.abs(y_true - y_prob)))


@validate(y_prob=SCORES, sensitive_features=COMPARED_GROUPS)
def zemel_discrimination(y_prob, *, sensitive_features) -> float:
    """yDiscrim of [ZWSPD13]_: the gap between the groups' mean predictions.

    For two groups ``|Σ_{n: s_n=1} ŷ_n / N_1 − Σ_{n: s_n=0} ŷ_n / N_0|``: demographic
    parity measured with the predicted probabilities. With 0/1 predictions it equals
    :func:`demographic_parity_difference`. For more than two groups this returns the largest
    minus the smallest group mean (fairlearn's ``between_groups`` convention; the paper has
    two groups only).
    """
    g = sensitive_features
    check_same_length(sensitive_features=g.codes, y_prob=y_prob)
    means = np.bincount(g.codes, weights=y_prob, minlength=g.labels.size) / g.sizes
    return float(np.max(means) - np.min(means))


@validate(X=array(ndim=2, low=-1e15, high=1e15, max_rows=MAX_NEIGHBOUR_ROWS,
                  example=[[0.0], [1.0], [3.0], [4.0]]),
          y_pred=SCORES, n_neighbors=integer(1, MAX_NEIGHBORS, example=1))
def consistency_score(X, y_pred, *, n_neighbors=5) -> float:
    """yNN of [ZWSPD13]_: do similar individuals get similar predictions?

    ``yNN = 1 − (1/N) Σ_n |ŷ_n − (1/k) Σ_{j ∈ kNN(x_n)} ŷ_j|``, with kNN(x_n) the k nearest
    *other* rows of ``X`` (Euclidean distance). 1 means every prediction agrees with the
    average of its neighbours'. As printed in the paper (and transcribed in AIF360's
    documentation) the sum inside the absolute value lacks the 1/k
    (``1 − 1/(Nk) Σ_n |ŷ_n − Σ_j ŷ_j|``), which would not give 1 for a constant predictor;
    the reading above (|k ŷ_n − Σ_j ŷ_j| / k) is the one AIF360's
    ``consistency`` computes, and for 0/1 predictions it also equals the mean of
    ``|ŷ_n − ŷ_j|`` over the pairs.

    Neighbours come from scikit-learn's ``NearestNeighbors(n_neighbors).kneighbors()``
    called without a query, which leaves each row out of its own neighbour list by its index
    (AIF360 queries with ``X`` itself and so counts each row as its own first neighbour,
    which inflates the score). Exact duplicates of a row are other individuals and do count
    as its neighbours. Ties at the k-th distance are broken by scikit-learn's search (a
    deterministic choice for a given ``X`` and row order, not specified further), so with
    many exactly tied distances — e.g. only one-hot features — the score can depend on the
    row order. The distance sees ``X`` as given: scale the columns first, and decide
    whether the sensitive attribute is among them (it changes who is "similar").
    ``n_neighbors`` is k, at most n − 1 (the paper uses k = 5); ``y_pred`` may be 0/1 labels
    or probabilities.
    """
    n = check_same_length(y_pred=y_pred, X=X)
    if n_neighbors > n - 1:
        raise refuse("n_neighbors", n_neighbors, f"at most n − 1 = {n - 1}")
    scale = float(np.max(np.abs(X)))
    if 0 < scale < 1e-150:
        X = X / scale                   # same neighbours; squared distances must not underflow
    from sklearn.neighbors import NearestNeighbors
    idx = NearestNeighbors(n_neighbors=n_neighbors).fit(X).kneighbors(return_distance=False)
    return float(1.0 - np.mean(np.abs(y_pred - y_pred[idx].mean(axis=1))))


# ----------------------------------------------------------------- group labels, encoded
class _Groups(NamedTuple):
    """``sensitive_features`` as the body receives it."""

    labels: np.ndarray        # the distinct labels, sorted
    codes: np.ndarray         # the group index of each row
    sizes: np.ndarray         # rows per group (float64)


def _groups(name: str, value: Any, domain: Domain, *, min_groups: int = 1,
            max_groups: int = MAX_ROWS, min_members: int = 1) -> _Groups:
    """Group labels, one per row, of one kind, encoded; the group counts of ``domain``."""
    try:
        raw = None if value is None or isinstance(value, (str, bytes, dict, set)) \
            else np.asarray(value)
    except (TypeError, ValueError):                  # ragged nested sequences
        raw = None
    if raw is None or raw.ndim != 1 or not 1 <= raw.size <= MAX_ROWS or not _one_kind(raw, value):
        raise domain.refuse(name, value)
    if raw.dtype.kind == "O":           # hashing is ~15x faster than sorting Python objects
        codes, labels = pd.factorize(raw, sort=True)
        labels = np.asarray(labels, dtype=object)
    else:
        labels, codes = np.unique(raw, return_inverse=True)
    codes = np.asarray(codes, dtype=np.intp).reshape(-1)
    sizes, k = np.bincount(codes, minlength=labels.size).astype(np.float64), labels.size
    if not min_groups <= k <= max_groups:
        raise refuse(name, f"{k} groups", f"labels of {_between(min_groups, max_groups)} groups")
    if sizes.min() < min_members:
        g = _label(labels[int(np.argmin(sizes))])
        raise refuse(f"{name} (members of group {g})", int(sizes.min()), f"≥ {min_members}")
    return _Groups(labels, codes, sizes)


def _both_labels(name: str, value: Any) -> np.ndarray:
    y = LABELS(name, value)
    if np.unique(y).size == 2:
        return y
    raise BOTH_LABELS.refuse(name, value)


def _one_kind(raw: np.ndarray, value: Any) -> bool:
    """Whether the labels are all strings, all bytes or all finite real numbers."""
    kind = raw.dtype.kind
    if kind in "US" and not isinstance(value, np.ndarray):
        raw, kind = np.asarray(value, dtype=object), "O"    # NumPy made "1" of a number
    if kind == "f":
        return bool(np.all(np.isfinite(raw)))
    if kind != "O":
        return kind in "biuUS"
    kinds = {"text" if isinstance(v, str) else "bytes" if isinstance(v, bytes)
             else "number" if isinstance(v, (numbers.Real, np.bool_)) and math.isfinite(v)
             else "other" for v in raw}
    return len(kinds) == 1 and "other" not in kinds


def _between(low: int, high: int) -> str:
    return f"exactly {low}" if low == high else f"at least {low}"


def _label(value: Any) -> Any:
    """A group label for a message (a NumPy scalar as the Python value)."""
    return value.item() if isinstance(value, np.generic) else value


# ----------------------------------------------------------------- per-group counting
class _Counts(NamedTuple):
    """Per-group counts (float64 arrays, one entry per group) and their overall sums."""

    labels: np.ndarray
    n: np.ndarray             # rows
    pos: np.ndarray           # rows with y_true == 1
    sel: np.ndarray           # rows with y_pred == 1
    tp: np.ndarray            # rows with y_true == y_pred == 1

    def total(self) -> "_Counts":
        return _Counts(self.labels[:1], *(np.array([a.sum()]) for a in self[1:]))


def _counts(y_true: np.ndarray, y_pred: np.ndarray, g: _Groups, y_prob=None) -> _Counts:
    check_same_length(y_pred=y_pred, y_true=y_true, sensitive_features=g.codes,
                       **({} if y_prob is None else {"y_prob": y_prob}))
    k = g.labels.size
    return _Counts(g.labels, g.sizes, np.bincount(g.codes, weights=y_true, minlength=k),
                   np.bincount(g.codes, weights=y_pred, minlength=k),
                   np.bincount(g.codes, weights=y_true * y_pred, minlength=k))


def _rate(c: _Counts, which: str) -> np.ndarray:
    """One rate per group; ``which`` names it as the public function does. A group without
    a row of the class the rate divides by is refused (its rate is undefined)."""
    neg = c.n - c.pos
    if which == "selection_rate":
        return c.sel / c.n
    positive = which in ("true_positive_rate", "false_negative_rate")
    available = c.pos if positive else neg
    if np.any(available == 0):
        g, rate = _label(c.labels[np.flatnonzero(available == 0)[0]]), which.replace("_", " ")
        name = f"sensitive_features (rows with y_true == {int(positive)} in group {g})"
        raise refuse(name, 0, f"≥ 1 for the {rate}")
    if positive:
        return (c.tp if which == "true_positive_rate" else c.pos - c.tp) / c.pos
    fp = c.sel - c.tp
    return (fp if which == "false_positive_rate" else neg - fp) / neg


def _difference(c: _Counts, which: str, method: str) -> float:
    rates = _rate(c, which)
    if method == "between_groups":
        return float(np.max(rates) - np.min(rates))
    overall = _rate(c.total(), which)[0]
    return float(np.max(np.abs(rates - overall)))


def _scalar_rate(y_true: np.ndarray, y_pred: np.ndarray, pos: int, which: str) -> float:
    check_same_length(y_pred=y_pred, y_true=y_true)
    t, p = y_true == pos, y_pred == pos
    if which == "selection_rate":
        return float(np.count_nonzero(p) / p.size)
    given = {"positive_predictive_value": p, "true_positive_rate": t,
             "false_negative_rate": t}.get(which, ~t)
    if not given.any():
        arg, label = ("y_pred", pos) if given is p else ("y_true", pos if given is t else 1 - pos)
        raise refuse(f"{arg} (entries {label})", 0, f"≥ 1 for the {which} (pos_label={pos})")
    hits = {"positive_predictive_value": t, "true_positive_rate": p,
            "false_positive_rate": p}.get(which, ~p)
    return float(np.count_nonzero(given & hits) / np.count_nonzero(given))


def _calibration_cells(y_true, y_prob, g: _Groups, n_bins: int):
    check_same_length(y_prob=y_prob, y_true=y_true, sensitive_features=g.codes)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    bins = np.searchsorted(edges[1:-1], y_prob)     # scikit-learn's calibration_curve
    cells, cell_of_row = np.unique(g.codes * n_bins + bins, return_inverse=True)
    cell_of_row = cell_of_row.reshape(-1)
    count = np.bincount(cell_of_row, minlength=cells.size)
    sum_y = np.bincount(cell_of_row, weights=y_true, minlength=cells.size)
    sum_p = np.bincount(cell_of_row, weights=y_prob, minlength=cells.size)
    return g, edges, cells // n_bins, cells % n_bins, count, sum_y, sum_p
