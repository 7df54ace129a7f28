"""The shipped LFR sweep: A_z from 0 to 30 on Adult and German credit, against logistic regression.

:class:`~dpteach.fairness.lfr.LFR` trades accuracy for parity through one weight, A_z. That
trade-off ships precomputed, so a notebook or an app can move A_z along a slider without
fitting; this module says how it was made. ``scripts/precompute_lfr_grid.py`` fits one model
per value of :data:`GRID_AZ` with the fixed :data:`GRID_SETTINGS` on each data set of
:data:`GRID_DATASETS` and writes ``dpteach/data/lfr_grid.npz``;
:func:`dpteach.tables.load_lfr_grid` reads it (offline).

:func:`lfr_grid_data` rebuilds the exact rows (features, labels, sensitive attribute,
training and held-out split) and :func:`lfr_grid_entry` refits and scores one entry exactly
as the script did, so a shipped number can be checked live. :func:`lfr_grid_baseline` is the
unconstrained comparison: a logistic regression on the same features.

Scores are the measures of [ZWSPD13]_ on the held-out rows: yAcc, yDiscrim (both of the
probabilities ŷ) and the consistency yNN (:mod:`dpteach.fairness.metrics`), plus the
accuracy and demographic-parity gap of the 0/1 predictions ŷ > 1/2, and yAcc, yDiscrim,
accuracy and the gap on the training rows (where L_z is what the fit controls).

References
----------
.. [ZWSPD13] R. Zemel, Y. Wu, K. Swersky, T. Pitassi and C. Dwork. "Learning fair
   representations." ICML 2013, PMLR 28(3):325-333: German credit with age as the sensitive
   attribute, Adult with sex; the measures yAcc, yDiscrim and yNN.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import choice, integer, validate
from .lfr import LFR, WEIGHT

__all__ = [
    "GRID_DATASETS",
    "GRID_SETTINGS",
    "GRID_AZ",
    "GRID_NEIGHBORS",
    "LFRData",
    "lfr_grid_data",
    "lfr_grid_entry",
    "lfr_grid_start",
    "lfr_grid_baseline",
    "GRID_TOLERANCE",
]

#: The data sets of the grid.
GRID_DATASETS = ("adult", "german")
#: Settings shared by every entry of the grid (A_z varies; see :data:`GRID_AZ`).
GRID_SETTINGS: dict[str, Any] = {"n_prototypes": 10, "Ax": 0.01, "Ay": 1.0,
                                  "alpha": "per_group", "n_starts": 3, "max_iter": 100,
                                  "rng": 0}
#: The A_z values of the grid: 0 (no parity term) and 11 values from 0.01 to 30, log-spaced.
GRID_AZ = (0.0, *np.round(np.geomspace(0.01, 30.0, 11), 6).tolist())
#: k of the consistency yNN.
GRID_NEIGHBORS = 5
#: How closely a refitted entry (:func:`lfr_grid_entry`) must match the shipped one
#: (:meth:`dpteach.tables.LFRGrid.matches`): every number to the relative ``"same_build"`` on
#: the script's library versions and BLAS kernels (:func:`dpteach.tables.build_info`);
#: elsewhere, where L-BFGS-B may take another path, only the training objective and the
#: training yAcc and yDiscrim, absolutely (how these were measured: docs/library/fairness.md).
GRID_TOLERANCE = {"same_build": 1e-9, "objective": 0.006, "train_scores": 0.02}
#: a data set of the grid
DATASET = choice(*GRID_DATASETS)
_GERMAN_NUMERIC = ("duration_months", "credit_amount", "installment_rate", "residence_since",
                   "existing_credits", "num_dependents")
_GERMAN_TRAIN = 700


@dataclass(frozen=True)
class LFRData:
    """One data set of the grid, split into training and held-out rows (see
    :func:`lfr_grid_data`). ``a_*`` is the sensitive attribute A (0/1)."""

    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    a_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    a_test: np.ndarray
    feature_names: list = field(repr=False)
    sensitive: str = ""


@validate(dataset=DATASET)
def lfr_grid_data(dataset: str) -> LFRData:
    """The rows of one data set of the shipped grid, as its script used them.

    * ``"adult"``: :func:`dpteach.datasets.adult_arrays` without ``sex`` among the features
      (102 features in [0, 1]), rows with a missing value dropped; the original UCI split,
      30,162 training and 15,060 held-out rows; y = 1 for income > 50K, A = 1 for Female.
    * ``"german"``: the 19 attributes of :func:`dpteach.datasets.load_german` other than age
      (the 6 numeric ones scaled to [0, 1] by the training rows' minimum and maximum, the 13
      coded ones one-hot over the codes present in the file: 60 features); y = 1 for good
      credit, A = 1 for age > 25 (as in [ZWSPD13]_); a seeded permutation
      (``default_rng(0)``) puts 700 rows in training and 300 held out.

    The sensitive attribute is not among the features in either data set.
    """
    return _adult() if dataset == "adult" else _german()


@validate(dataset=DATASET, Az=WEIGHT)
def lfr_grid_entry(dataset: str, Az: float) -> dict:
    """Fit the LFR of one grid entry and score it, exactly as the shipped grid was made.

    ``LFR(**GRID_SETTINGS, Az=Az)`` is fitted on the training rows of
    :func:`lfr_grid_data` ``(dataset)`` and scored on the held-out rows (and, for yAcc,
    yDiscrim, accuracy and the parity gap, on the training rows too). A notebook can refit
    one entry to check it against :func:`dpteach.tables.load_lfr_grid` (German: about a
    second; Adult: about 13 s on the development machine, more when it is busy).

    Returns a dict: ``Az``; the training objective and its terms ``objective, L_x, L_y,
    L_z``; ``n_iter``; ``y_acc_train, y_discrim_train, accuracy_train, dp_gap_train``; the
    same with ``_test``; ``y_nn_test`` (k = :data:`GRID_NEIGHBORS`); ``fit_seconds``. yAcc,
    yDiscrim and yNN use the probabilities ŷ, accuracy and ``dp_gap`` the 0/1 predictions
    ŷ > 1/2 (:func:`dpteach.fairness.metrics.demographic_parity_difference`).
    """
    data = lfr_grid_data.__wrapped__(dataset)
    start = time.perf_counter()
    model = LFR(**GRID_SETTINGS, Az=Az).fit(data.X_train, data.y_train,
                                             sensitive_features=data.a_train)
    seconds = time.perf_counter() - start
    p_train = model.predict_proba(data.X_train, sensitive_features=data.a_train)[:, 1]
    p_test = model.predict_proba(data.X_test, sensitive_features=data.a_test)[:, 1]
    return {"Az": Az, "objective": model.objective_, "L_x": model.L_x_, "L_y": model.L_y_,
            "L_z": model.L_z_, "n_iter": model.n_iter_,
            **_grid_scores(data, p_train, p_test), "fit_seconds": float(seconds)}


@validate(dataset=DATASET, Az=WEIGHT, start=integer(0, GRID_SETTINGS["n_starts"] - 1))
def lfr_grid_start(dataset: str, Az: float, start: int) -> LFR:
    """One start of a grid entry's fit, alone: the fitted :class:`~dpteach.fairness.lfr.LFR`.

    ``LFR(**GRID_SETTINGS, Az=Az)`` draws one seed per start from its generator, in order,
    and keeps the start with the lowest objective. Moving a generator seeded like the grid's
    past the seeds of the starts before ``start`` and fitting with ``n_starts=1`` replays
    start number ``start`` (0-based) on the training rows of :func:`lfr_grid_data` alone:
    the same arithmetic, a third of the work of :func:`lfr_grid_entry`.
    """
    data = lfr_grid_data.__wrapped__(dataset)
    rng = np.random.default_rng(GRID_SETTINGS["rng"])
    rng.integers(0, 2**63 - 1, size=start)                # the earlier starts' seeds
    return LFR(**{**GRID_SETTINGS, "n_starts": 1, "rng": rng}, Az=Az).fit(
        data.X_train, data.y_train, sensitive_features=data.a_train)


@validate(dataset=DATASET)
def lfr_grid_baseline(dataset: str) -> dict:
    """The unconstrained model the grid is compared with: scikit-learn's
    ``LogisticRegression(C=1.0, max_iter=1000)`` on the same features (without A), scored
    like :func:`lfr_grid_entry` (the same keys from ``y_acc_train`` to ``y_nn_test``).
    """
    from sklearn.linear_model import LogisticRegression
    data = lfr_grid_data.__wrapped__(dataset)
    model = LogisticRegression(C=1.0, max_iter=1000).fit(data.X_train, data.y_train)
    return _grid_scores(data, model.predict_proba(data.X_train)[:, 1],
                        model.predict_proba(data.X_test)[:, 1])


def _grid_scores(data: LFRData, p_train, p_test) -> dict:
    """yAcc, yDiscrim (training and held-out rows), yNN (held-out), and the accuracy and
    demographic-parity gap of the 0/1 predictions ŷ > 1/2."""
    from .metrics import (
        consistency_score,
        demographic_parity_difference,
        zemel_accuracy,
        zemel_discrimination,
    )
    out = {}
    for part, p, y, a in (("train", p_train, data.y_train, data.a_train),
                          ("test", p_test, data.y_test, data.a_test)):
        pred = (p > 0.5).astype(np.int64)
        out[f"y_acc_{part}"] = zemel_accuracy(y, p)
        out[f"y_discrim_{part}"] = zemel_discrimination(p, sensitive_features=a)
        out[f"accuracy_{part}"] = float(np.mean(pred == y))
        out[f"dp_gap_{part}"] = demographic_parity_difference(y, pred, sensitive_features=a)
    out["y_nn_test"] = consistency_score(data.X_test, p_test, n_neighbors=GRID_NEIGHBORS)
    return out


def _german() -> LFRData:
    from ..datasets import load_german
    df = load_german()
    order = np.random.default_rng(0).permutation(len(df))
    train, test = order[:_GERMAN_TRAIN], order[_GERMAN_TRAIN:]
    columns, names = [], []
    for col in df.columns:
        if col in ("age", "credit_risk"):
            continue
        values = df[col].to_numpy()
        if col in _GERMAN_NUMERIC:
            lo, hi = values[train].min(), values[train].max()
            columns.append(((values - lo) / (hi - lo))[:, None])
            names.append(col)
        else:
            cats = np.unique(values)
            columns.append((values[:, None] == cats[None, :]).astype(np.float64))
            names += [f"{col}={c}" for c in cats]
    X = np.hstack(columns)
    y = (df["credit_risk"].to_numpy() == 1).astype(np.int64)
    a = (df["age"].to_numpy() > 25).astype(np.int64)
    return LFRData("german", X[train], y[train], a[train], X[test], y[test], a[test], names,
                   "age > 25 (1 = older than 25)")


def _adult() -> LFRData:
    from ..datasets import adult_arrays
    arr = adult_arrays(include_sex=False)
    tr = arr.split == "train"
    return LFRData("adult", arr.X[tr], arr.y[tr], arr.sex[tr], arr.X[~tr], arr.y[~tr],
                   arr.sex[~tr], list(arr.feature_names), "sex (1 = Female)")
