"""Where privacy meets fairness: who pays for differential privacy?

Bagdasaryan, Poursaeed & Shmatikov [BPS19]_ found that the accuracy a model loses to DP-SGD
is not shared equally: underrepresented groups, and groups whose examples are harder to fit,
lose the most ("the poor become poorer"), because clipping caps exactly the large gradients
that rare, badly fitted examples produce, and the noise drowns the small total signal a small
group contributes. This module measures that on Adult, grouped by sex, race and sex ×
income, for both private learners of the course: DP-SGD [ACG16]_ (and its clipping-free
baseline) and objective perturbation [CMS11]_, across ε, overall and per group, over seeds.
The shipped sweep is :func:`dpteach.tables.load_dp_fairness_sweep`.

The mechanism — what clipping takes from whom, the noise objective perturbation puts on each
group's scores, membership inference per group — is in :mod:`~dpteach.fairness.dp_diagnostics`.

Privacy unit and assumptions are those of the learners (see
:mod:`dpteach.learning.dpsgd` and :mod:`dpteach.learning.erm`). Fits run with one BLAS
thread (threadpoolctl). Groups here are the data's own categories; the module asserts nothing
about the people in them.

References
----------
.. [BPS19] E. Bagdasaryan, O. Poursaeed and V. Shmatikov. Differential privacy has disparate
   impact on model accuracy. NeurIPS 2019, pp. 15479-15488 (arXiv:1905.12101).
.. [ACG16] M. Abadi, A. Chu, I. Goodfellow, H. B. McMahan, I. Mironov, K. Talwar and
   L. Zhang. Deep learning with differential privacy. CCS 2016, Algorithm 1.
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate. Differentially private empirical
   risk minimization. JMLR 12:1069-1109, 2011 (Algorithm 2, Theorem 9).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy import stats
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from .._validation import (FLAG, RNG, Domain, array, choice, instance_of, integer, one_of, real,
                           refuse, validate)
from ..learning.dpsgd import DPSGDClassifier
from ..learning.erm import PrivateLogisticRegression
from ._rows import check_same_length
from .metrics import BOTH_LABELS, GROUP_LABELS, LABELS

__all__ = [
    "MAX_ROWS", "MAX_FEATURES", "MAX_FITS", "EPSILON_RANGE",
    "GROUPINGS", "SWEEP_METHODS", "SWEEP_EPSILONS", "SWEEP_SEEDS",
    "DPSGD_SETTINGS", "OBJECTIVE_SETTINGS", "BASELINE", "ALPHA_CHECK",
    "EPSILON_OR_INF", "SEED", "SWEEP_TABLE", "SUMMARY",
    "GroupedData", "adult_group_data", "group_accuracy",
    "private_classifier", "fit_and_score", "dp_fairness_sweep",
    "summarize_sweep", "excess_drop", "accuracy_curves", "compare_with_sweep",
]

#: Most rows of a training or evaluation set (Adult has 30,162 and 15,060).
MAX_ROWS = 200_000
#: Most features (the Hessian of objective perturbation is features² float64s: 32 MB).
MAX_FEATURES = 2_000
#: Most fits in one :func:`dp_fairness_sweep` (a fit on Adult takes about 0.3 s).
MAX_FITS = 2_000
#: Finite ε a fit accepts (``math.inf`` means the non-private limit of the method).
EPSILON_RANGE = (1e-3, 1e3)
#: The groupings of :func:`adult_group_data`.
GROUPINGS = ("sex", "race", "sex_income")
#: ``"sgd"``: DP-SGD's code without clipping or noise (only at ε = ∞); ``"dpsgd"``: DP-SGD
#: (at ε = ∞: clipping at C without noise); ``"objective"``: objective perturbation (at ε = ∞:
#: the exact non-private minimiser of the same regularised problem).
SWEEP_METHODS = ("sgd", "dpsgd", "objective")
#: The finite ε of the shipped sweep (ε = ∞ is added for every method).
SWEEP_EPSILONS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
#: Seeds of the shipped sweep.
SWEEP_SEEDS = tuple(range(40))
#: DP-SGD settings of the sweep: multinomial logistic regression (no hidden layer), the same
#: model class as objective perturbation; the batch is ``min(batch_size, n)``.
DPSGD_SETTINGS: dict[str, Any] = {"hidden": (), "batch_size": 256, "epochs": 5,
                                  "learning_rate": 0.5, "max_grad_norm": 1.0, "delta": 1e-5}
#: Objective-perturbation settings (Λ and the public row bound R = √13 of notebook 10:
#: 5 numeric features in [0, 1] and one 1 in each of 8 one-hot groups; no intercept needed).
OBJECTIVE_SETTINGS = {"lam": 1e-4, "data_norm": math.sqrt(13.0), "fit_intercept": False}
#: The non-private baseline each method's accuracy drop is measured against.
BASELINE = {"sgd": "sgd", "dpsgd": "sgd", "objective": "objective"}
#: Two-sided level of each comparison of :func:`compare_with_sweep`.
ALPHA_CHECK = 1e-6
#: Range of that level (below 1e-12 the t quantiles stop meaning anything).
_ALPHA_RANGE = (1e-12, 0.5)
_COUNT, _CORRECT = "count:", "correct:"


# ------------------------------------------------------------------------ the data
@dataclass(frozen=True)
class GroupedData:
    """Training and test rows with several groupings of the people (:func:`adult_group_data`).

    Attributes
    ----------
    X_train, X_test : arrays (n, d)
        Features in [0, 1] (the fixed feature map of :func:`dpteach.datasets.adult_arrays`),
        1 ≤ n ≤ :data:`MAX_ROWS`, 1 ≤ d ≤ :data:`MAX_FEATURES`.
    y_train, y_test : arrays of 0/1
        Both classes among the training labels.
    groups_train, groups_test : mapping of str → array of labels
        The same groupings (names) for both parts, one label per row (stored as read-only
        mappings).
    feature_names : tuple of str
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    groups_train: dict
    groups_test: dict
    feature_names: tuple = ()

    def __post_init__(self):
        for part in ("train", "test"):
            X = _FEATURES01(f"X_{part}", getattr(self, f"X_{part}"))
            labels = BOTH_LABELS if part == "train" else LABELS      # a fit needs both classes
            y = labels(f"y_{part}", getattr(self, f"y_{part}")).astype(np.int64)
            groups = _GROUPINGS(f"groups_{part}", getattr(self, f"groups_{part}"))
            checked = {k: _labels(f"groups_{part}[{k!r}]", v) for k, v in groups.items()}
            named = {f"groups_{part}[{k!r}]": v for k, v in checked.items()}
            check_same_length(**{f"X_{part}": X, f"y_{part}": y}, **named)
            object.__setattr__(self, f"X_{part}", X)
            object.__setattr__(self, f"y_{part}", y)
            object.__setattr__(self, f"groups_{part}", MappingProxyType(checked))
        test = (self.X_test.shape[1], sorted(self.groups_test))
        if test != (self.X_train.shape[1], sorted(self.groups_train)):
            raise refuse("X_test, groups_test", test, "the training part's columns and groupings")


def adult_group_data() -> GroupedData:
    """Adult (:func:`dpteach.datasets.adult_arrays`, rows with a missing value dropped, the
    original split: 30,162 training and 15,060 test rows, 104 features in [0, 1] with ``sex``
    and ``race`` among them) with the groupings of :data:`GROUPINGS`:

    * ``"sex"``: ``"women"`` (about 32 % of the rows) / ``"men"``;
    * ``"race"``: the census categories ``"White"`` (86 %), ``"Black"`` (9 %),
      ``"Asian-Pac-Islander"`` (3 %), ``"Amer-Indian-Eskimo"`` (0.9 %), ``"Other"`` (0.8 %);
    * ``"sex_income"``: sex × label, e.g. ``"women >50K"`` (3.6 % of the rows) and
      ``"women <=50K"``; a group's accuracy is then its sex's true-positive (or true-negative)
      rate.

    The arrays are shared between calls (cached) and read-only.
    """
    return _adult()


# ---------------------------------------------------------- the declared domains
_FINITE = real(*EPSILON_RANGE)
#: ε of a fit: a number in EPSILON_RANGE, or math.inf (the method's non-private limit)
EPSILON_OR_INF = Domain(
    f"a number in [{EPSILON_RANGE[0]:g}, {EPSILON_RANGE[1]:g}] or math.inf (non-private)",
    one_of(real(math.inf, math.inf), _FINITE, text="math.inf or " + _FINITE.text).convert,
    example=1.0, edges=[EPSILON_RANGE[0], EPSILON_RANGE[1], math.inf],
    bad=[0.0, 1e-4, 1e4, 10**400, -math.inf, math.nan, "inf", None, True])
#: a fit's seed
SEED = integer(0, 2**32 - 1, example=0)
_GROUPED = instance_of(GroupedData, "a GroupedData (e.g. adult_group_data()) or None (Adult)")
#: the training and test rows (None: Adult, :func:`adult_group_data`)
DATA = Domain(_GROUPED.text, lambda name, value: (adult_group_data() if value is None
                                                  else _GROUPED(name, value)),
              example=None, bad=["adult", 3, {}])
#: a table of :func:`dp_fairness_sweep`'s format
SWEEP_TABLE: Domain = Domain(
    f"a non-empty DataFrame of dp_fairness_sweep's format (columns method, epsilon, seed, "
    f"count:<group>, correct:<group>, each once; integer counts in [1, {MAX_ROWS:,}], "
    f"0 <= correct <= count, ε > 0, methods of {SWEEP_METHODS})",
    lambda name, value: _sweep_table(name, value), bad=[None, "table", [1, 2]])
#: a summary of :func:`summarize_sweep`
SUMMARY: Domain = Domain(
    "the DataFrame of summarize_sweep (columns method, epsilon, grouping, group, count, mean, "
    "sd, baseline, each once)", lambda name, value: _summary(name, value),
    bad=[None, "summary", [1, 2]])
_METHOD = choice(*SWEEP_METHODS)
_EPSILON_ARRAY = array(ndim=(0, 1), max_size=100, low=EPSILON_RANGE[0], high=EPSILON_RANGE[1],
                       finite=False)
#: the ε of a sweep: 1 to 100 values of :data:`EPSILON_OR_INF`
EPSILONS = Domain(
    EPSILON_OR_INF.text.replace("a number", "1 to 100 numbers", 1) + " each",
    lambda name, value: list(dict.fromkeys(
        EPSILON_OR_INF(name, float(e)) for e in _EPSILON_ARRAY(name, value).ravel())),
    example=[1.0], bad=[[], [0.0], "1", None, [10**400]])
#: the methods of a sweep
METHODS = Domain(f"a non-empty list or tuple of methods among {SWEEP_METHODS}",
                 lambda name, value: _methods(name, value), example=("objective",),
                 bad=["dpsgd", [], ["svm"], None])
#: the seeds of a sweep: 1 to 1,000 of them
SEEDS = array(ndim=1, low=0, high=2**32 - 1, integers=True, max_size=1000, dtype=np.int64,
              example=[0])
PRIVATE_METHOD = choice("dpsgd", "objective")
_TEXT = instance_of(str, "a string")
#: a group key of a sweep table: "all" or "<grouping>=<group>"
GROUP_KEY = Domain("a group key of the table ('all' or '<grouping>=<group>')", _TEXT.convert,
                   example="all", bad=[None, 1, ["all"]])
#: a grouping of a summary: "all", "sex", ...
GROUPING = Domain("a grouping of the summary ('all', 'sex', ...)", _TEXT.convert,
                  example="all", bad=[None, 1, ["sex"]])


@validate(y_true=LABELS, y_pred=LABELS, sensitive_features=GROUP_LABELS)
def group_accuracy(y_true, y_pred, *, sensitive_features) -> pd.DataFrame:
    """Accuracy of 0/1 predictions in each group (the ``accuracy`` of
    :func:`dpteach.fairness.metrics.group_table`, also for a group holding one class only).

    Returns a DataFrame indexed by the sorted group labels (name ``"group"``): ``count``,
    ``correct`` (ints) and ``accuracy``.
    """
    labels, codes = sensitive_features.labels, sensitive_features.codes
    check_same_length(y_true=y_true, y_pred=y_pred, sensitive_features=codes)
    count = np.bincount(codes, minlength=labels.size)
    correct = np.bincount(codes, weights=(y_true == y_pred), minlength=labels.size).astype(
        np.int64)
    return pd.DataFrame({"count": count.astype(np.int64), "correct": correct,
                         "accuracy": correct / count}, index=pd.Index(labels, name="group"))


# ----------------------------------------------------------------- fitting across ε
@validate(method=choice(*SWEEP_METHODS), epsilon=EPSILON_OR_INF, rng=RNG,
          n=integer(1, MAX_ROWS, example=100).or_none())
def private_classifier(method: str, epsilon: float, *, rng=None, n: int | None = None):
    """The (unfitted) scikit-learn classifier of one sweep entry.

    * ``"dpsgd"``: :class:`~dpteach.learning.dpsgd.DPSGDClassifier` with
      :data:`DPSGD_SETTINGS` and ``target_epsilon=epsilon`` (σ calibrated by RDP at δ = 1e-5,
      [ACG16]_); at ε = ∞, clipping at C = 1 without noise;
    * ``"sgd"`` (ε = ∞ only): the same code without clipping or noise;
    * ``"objective"``: :class:`~dpteach.learning.erm.PrivateLogisticRegression` by objective
      perturbation [CMS11]_ with :data:`OBJECTIVE_SETTINGS`; at ε = ∞, ``method="none"`` (the
      exact regularised minimiser).

    ``n``, the number of training rows, makes DP-SGD's expected batch ``min(256, n)``.
    """
    eps = epsilon
    if method == "sgd" and math.isfinite(eps):
        raise refuse("epsilon", eps, "math.inf with method='sgd' (not private)")
    batch = DPSGD_SETTINGS["batch_size"] if n is None else min(DPSGD_SETTINGS["batch_size"], n)
    if method == "objective":
        return PrivateLogisticRegression(epsilon=1.0 if math.isinf(eps) else eps,
                                         method="none" if math.isinf(eps) else "objective",
                                         rng=rng, **OBJECTIVE_SETTINGS)
    kw = {**DPSGD_SETTINGS, "batch_size": batch}
    if method == "sgd":
        kw.update(noise_multiplier=0.0, max_grad_norm=None)
    elif math.isinf(eps):
        kw.update(noise_multiplier=0.0)
    else:
        kw.update(target_epsilon=eps)
    return DPSGDClassifier(rng=rng, **kw)


@validate(method=choice(*SWEEP_METHODS), epsilon=EPSILON_OR_INF, seed=SEED, data=DATA)
def fit_and_score(method: str, epsilon: float, *, seed: int, data=None) -> dict:
    """Fit one sweep entry (:func:`private_classifier`) on the training rows and count its
    correct test predictions, overall and in every group [BPS19]_.

    ``seed`` is the classifier's ``rng``; ``data`` defaults to :func:`adult_group_data`.
    Returns a dict: ``method, epsilon, seed``;
    ``noise_multiplier`` (DP-SGD's σ, None for objective perturbation), ``epsilon_spent``,
    ``fit_seconds``; and, for ``"all"`` and each ``"<grouping>=<group>"``, the keys
    ``"count:<key>"`` and ``"correct:<key>"`` (ints).
    """
    eps = epsilon
    model = private_classifier.__wrapped__(method, eps, rng=seed, n=data.X_train.shape[0])
    start = time.perf_counter()
    with threadpool_limits(limits=1, user_api="blas"):
        model.fit(data.X_train, data.y_train)
    seconds = time.perf_counter() - start
    pred = np.asarray(model.predict(data.X_test)).astype(np.int64)
    sigma = getattr(model, "noise_multiplier_", None)
    row = {"method": method, "epsilon": eps, "seed": seed,
           "noise_multiplier": None if sigma is None else float(sigma),
           "epsilon_spent": float(model.epsilon_), "fit_seconds": float(seconds),
           f"{_COUNT}all": int(pred.size), f"{_CORRECT}all": int(np.sum(pred == data.y_test))}
    for grouping, labels in data.groups_test.items():
        table = group_accuracy(data.y_test, pred, sensitive_features=labels)
        for group, r in table.iterrows():
            row[f"{_COUNT}{grouping}={group}"] = int(r["count"])
            row[f"{_CORRECT}{grouping}={group}"] = int(r["correct"])
    return row


@validate(epsilons=EPSILONS, methods=METHODS, seeds=SEEDS, data=DATA, include_nonprivate=FLAG,
          progress=FLAG)
def dp_fairness_sweep(epsilons=SWEEP_EPSILONS, *, methods=SWEEP_METHODS, seeds=SWEEP_SEEDS,
                      data=None, include_nonprivate: bool = True,
                      progress: bool = False) -> pd.DataFrame:
    """Per-group test accuracy of private learners across ε and seeds ([BPS19]_'s experiment).

    Runs :func:`fit_and_score` for every method × ε × seed (``"sgd"`` only at ε = ∞).

    ``include_nonprivate`` also fits every method at ε = ∞ (the baselines of
    :func:`summarize_sweep`); ``progress`` shows a ``tqdm`` bar over fits. Returns one row
    per fit, the keys of :func:`fit_and_score` as columns (the format of the shipped
    :func:`dpteach.tables.load_dp_fairness_sweep`); at most :data:`MAX_FITS` fits.
    """
    eps_list, method_list, seed_list = epsilons, methods, [int(s) for s in seeds]
    if include_nonprivate and math.inf not in eps_list:
        eps_list.append(math.inf)
    jobs = [(m, e, s) for m in method_list for e in eps_list for s in seed_list
            if not (m == "sgd" and math.isfinite(e))]
    if not jobs or len(jobs) > MAX_FITS:
        raise refuse("methods × epsilons × seeds", len(jobs), f"1 to {MAX_FITS} fits")
    rows = [fit_and_score.__wrapped__(m, e, seed=s, data=data)
            for m, e, s in tqdm(jobs, desc="fits", disable=not progress)]
    return pd.DataFrame(rows)


# ------------------------------------------------------------------- reading a sweep
@validate(table=SWEEP_TABLE)
def summarize_sweep(table) -> pd.DataFrame:
    """Mean and spread over seeds of every group's accuracy, and its drop against the baseline.

    ``table`` holds rows of :func:`dp_fairness_sweep` (or
    :func:`dpteach.tables.load_dp_fairness_sweep`). Returns one row per (method, ε, grouping,
    group), with ``count`` (test rows of the group), ``share`` (count / all test rows),
    ``n_seeds``, ``mean``, ``sd`` (over seeds, ``ddof=1``; 0 for one seed), ``min``, ``max``;
    ``baseline`` (the mean accuracy of the method's non-private baseline :data:`BASELINE` at
    ε = ∞), ``drop`` = baseline − mean and ``drop_se`` (the standard error of that difference
    of two means over independent seeds, √(sd²/k + sd_b²/k_b)); the last three are NaN when
    ``table`` holds no baseline fit. Grouping ``"all"`` is the whole test set.
    """
    keys = _group_keys(table)
    total = table[f"{_COUNT}all"].to_numpy(dtype=float) if "all" in keys else None
    records = []
    for (method, eps), part in table.groupby(["method", "epsilon"], sort=True):
        for key in keys:
            acc = part[f"{_CORRECT}{key}"].to_numpy(dtype=float) / part[f"{_COUNT}{key}"]
            count = int(part[f"{_COUNT}{key}"].iloc[0])
            grouping, group = _split_key(key)
            records.append({"method": method, "epsilon": float(eps), "grouping": grouping,
                            "group": group, "count": count,
                            "share": count / total[0] if total is not None else math.nan,
                            "n_seeds": int(acc.size), "mean": float(acc.mean()),
                            "sd": float(acc.std(ddof=1)) if acc.size > 1 else 0.0,
                            "min": float(acc.min()), "max": float(acc.max())})
    out = pd.DataFrame(records)
    base = out[np.isinf(out["epsilon"])].set_index(["method", "grouping", "group"])
    keys3 = list(zip(out["method"].map(BASELINE), out["grouping"], out["group"]))

    def pick(col):
        return np.array([base.loc[k, col] if k in base.index else np.nan for k in keys3],
                        dtype=float)

    b_mean, b_sd, b_k = pick("mean"), pick("sd"), pick("n_seeds")
    out["baseline"] = b_mean
    out["drop"] = b_mean - out["mean"]
    out["drop_se"] = np.sqrt(out["sd"] ** 2 / out["n_seeds"] + b_sd ** 2 / b_k)
    return out


@validate(table=SWEEP_TABLE, method=PRIVATE_METHOD, epsilon=EPSILON_OR_INF, group=GROUP_KEY,
          reference=GROUP_KEY)
def excess_drop(table, *, method: str, epsilon: float, group: str,
                reference: str = "all") -> dict:
    """How much more accuracy ``group`` loses than ``reference`` under one private setting.

    [BPS19]_'s comparison: the drop of a group's accuracy from the non-private baseline
    (:data:`BASELINE`) to the private model, minus the same drop of a reference group. Both
    groups are scored on the same fits, so the difference is taken per fit first, d = acc(group)
    − acc(reference) (which removes what moves both together, e.g. a shifted threshold), and

        excess = mean(d | baseline) − mean(d | private),
        se = √(var(d | private)/k_p + var(d | baseline)/k_b),

    the standard error of a difference of two means over independent fits (seeds).

    ``table`` (rows of :func:`dp_fairness_sweep`) needs at least 2 fits of (method, ε) and 1 of
    the baseline; ``group`` and ``reference`` are its group keys, ``"all"`` or
    ``"<grouping>=<group>"`` (e.g. ``"sex_income=women >50K"``). Returns a dict: ``drop`` and
    ``reference_drop`` (baseline mean − private mean of each), ``excess`` (their difference),
    ``se``, ``n_private``, ``n_baseline``.
    """
    keys, eps = _group_keys(table), epsilon
    if group not in keys or reference not in keys:
        raise refuse("group, reference", (group, reference), "keys of table")
    priv = table[(table["method"] == method) & (table["epsilon"] == eps)]
    base = table[(table["method"] == BASELINE[method]) & np.isinf(table["epsilon"])]
    if len(priv) < 2 or len(base) < 1:
        raise refuse("table", (len(priv), len(base)), "≥ 2 private and ≥ 1 baseline fits")

    def acc(part, key):
        return part[f"{_CORRECT}{key}"].to_numpy(float) / part[f"{_COUNT}{key}"].to_numpy(float)

    d_priv = acc(priv, group) - acc(priv, reference)
    d_base = acc(base, group) - acc(base, reference)
    var_b = float(d_base.var(ddof=1)) if d_base.size > 1 else 0.0
    return {"drop": float(acc(base, group).mean() - acc(priv, group).mean()),
            "reference_drop": float(acc(base, reference).mean() - acc(priv, reference).mean()),
            "excess": float(d_base.mean() - d_priv.mean()),
            "se": math.sqrt(float(d_priv.var(ddof=1)) / d_priv.size + var_b / d_base.size),
            "n_private": int(d_priv.size), "n_baseline": int(d_base.size)}


@validate(summary=SUMMARY, method=PRIVATE_METHOD, grouping=GROUPING)
def accuracy_curves(summary, *, method: str, grouping: str) -> dict:
    """Per-group accuracy against finite ε, from :func:`summarize_sweep`, ready to plot.

    Returns a dict: ``epsilons`` (k,) sorted; ``groups`` (list of g labels, largest group
    first); ``mean`` and ``sd`` (g, k); ``nonprivate`` (g,) (the baseline's mean accuracy,
    NaN where absent); ``counts`` (g,).
    """
    part = summary[(summary["method"] == method) & (summary["grouping"] == grouping)
                   & np.isfinite(summary["epsilon"].to_numpy(dtype=float))]
    if part.empty:
        raise refuse("grouping", grouping, f"a grouping with finite-ε rows of {method!r}")
    mean = part.pivot(index="group", columns="epsilon", values="mean")
    order = part.groupby("group")["count"].first().sort_values(ascending=False).index
    mean = mean.loc[order]
    sd = part.pivot(index="group", columns="epsilon", values="sd").loc[order, mean.columns]
    base = part.groupby("group")["baseline"].first().loc[order]
    return {"epsilons": mean.columns.to_numpy(dtype=float), "groups": [str(g) for g in order],
            "mean": mean.to_numpy(dtype=float), "sd": sd.to_numpy(dtype=float),
            "nonprivate": base.to_numpy(dtype=float),
            "counts": part.groupby("group")["count"].first().loc[order].to_numpy()}


@validate(live=SWEEP_TABLE, shipped=SWEEP_TABLE, alpha=real(*_ALPHA_RANGE, example=1e-6))
def compare_with_sweep(live, shipped, *, alpha: float = ALPHA_CHECK) -> pd.DataFrame:
    """Check fits run now against the shipped sweep: same (method, ε), fresh seeds.

    For each (method, ε) of ``live`` and each group, the live mean accuracy over k_l seeds is
    compared with the shipped mean over k_s seeds by a two-sample t-test: both are means of
    independent fits with the same distribution, so their difference has standard deviation
    σ·√(1/k_l + 1/k_s); σ is estimated by the pooled sd s_p of both samples (k_l + k_s − 2
    degrees of freedom; the shipped sd alone when k_l = 1). The check passes when

        |live − shipped| ≤ t_{1−α/2, df}·s_p·√(1/k_l + 1/k_s) + 1/count,

    the last term one test row of slack (for a deterministic fit whose last digits differ
    between BLAS builds, where s_p = 0).

    Every (method, ε) of ``live`` must be in ``shipped`` with at least 2 seeds, and the same
    groups. Returns one row per (method, ε, grouping, group): ``live``, ``shipped``,
    ``pooled_sd``, ``difference`` (absolute), ``tolerance`` and ``ok`` (bool).
    """
    live_keys, ship_keys = _group_keys(live), _group_keys(shipped)
    if set(live_keys) - set(ship_keys):
        raise refuse("live", sorted(set(live_keys) - set(ship_keys)), "of shipped's groups")
    rows = []
    for (method, eps), part in live.groupby(["method", "epsilon"], sort=True):
        ref = shipped[(shipped["method"] == method) & (shipped["epsilon"] == eps)]
        if len(ref) < 2:
            raise refuse("shipped", f"{len(ref)} seeds at ε={eps}", "≥ 2 seeds at each ε of live")
        k_l, k_s = len(part), len(ref)
        df = k_l + k_s - 2 if k_l > 1 else k_s - 1
        t = float(stats.t.isf(alpha / 2, df))
        for key in live_keys:
            a = part[f"{_CORRECT}{key}"].to_numpy(float) / part[f"{_COUNT}{key}"].to_numpy(float)
            b = ref[f"{_CORRECT}{key}"].to_numpy(float) / ref[f"{_COUNT}{key}"].to_numpy(float)
            ss = float(np.sum((b - b.mean()) ** 2)) + (
                float(np.sum((a - a.mean()) ** 2)) if k_l > 1 else 0.0)
            sp = math.sqrt(ss / df)
            tol = t * sp * math.sqrt(1 / k_l + 1 / k_s) + 1.0 / float(
                part[f"{_COUNT}{key}"].iloc[0])
            grouping, group = _split_key(key)
            diff = abs(float(a.mean()) - float(b.mean()))
            rows.append({"method": method, "epsilon": float(eps), "grouping": grouping,
                         "group": group, "live": float(a.mean()), "shipped": float(b.mean()),
                         "pooled_sd": sp, "difference": diff, "tolerance": tol,
                         "ok": bool(diff <= tol)})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ helpers
def _split_key(key: str) -> tuple:
    grouping, _, group = key.partition("=")
    return (grouping, group) if group else ("all", "all")


def _group_keys(table: pd.DataFrame) -> list:
    """The group keys ("all", "<grouping>=<group>") of a sweep table."""
    return [c[len(_COUNT):] for c in table.columns if str(c).startswith(_COUNT)]


@lru_cache(maxsize=1)
def _adult() -> GroupedData:
    from ..datasets import ADULT_COLUMNS, adult_arrays, load_adult
    df = load_adult().dropna(subset=ADULT_COLUMNS)
    arr = adult_arrays(df)
    sex = np.where(arr.sex == 1, "women", "men")
    race = df["race"].to_numpy().astype(str)
    income = np.where(arr.y == 1, ">50K", "<=50K")
    groups = {"sex": sex, "race": race, "sex_income": np.char.add(np.char.add(sex, " "), income)}
    tr = arr.split == "train"
    data = GroupedData(arr.X[tr], arr.y[tr], arr.X[~tr], arr.y[~tr],
                       {k: v[tr] for k, v in groups.items()},
                       {k: v[~tr] for k, v in groups.items()}, tuple(arr.feature_names))
    for a in (data.X_train, data.X_test, data.y_train, data.y_test, *data.groups_train.values(),
              *data.groups_test.values()):
        a.setflags(write=False)                # shared by every caller: read-only
    return data


def _labels(name: str, value) -> np.ndarray:
    groups = GROUP_LABELS(name, value)
    return groups.labels[groups.codes]


_FEATURES01 = array(ndim=2, low=0.0, high=1.0, max_rows=MAX_ROWS, max_size=MAX_ROWS * MAX_FEATURES,
                    text=f"a 2-D array of features in [0, 1], 1 to {MAX_ROWS:,} rows and 1 to "
                         f"{MAX_FEATURES:,} columns")
_GROUPINGS: Domain = Domain("a non-empty dict of grouping name (str) → labels",
                    lambda name, value: _groupings(name, value))


def _groupings(name: str, value) -> Mapping:
    if isinstance(value, Mapping) and value and all(isinstance(k, str) for k in value):
        return value
    raise _GROUPINGS.refuse(name, value)


def _methods(name: str, value) -> list:
    if not (isinstance(value, (list, tuple)) and value):
        raise METHODS.refuse(name, value)
    return list(dict.fromkeys(_METHOD(name, m) for m in value))


def _sweep_table(name: str, table) -> pd.DataFrame:
    """A sweep table: the columns of dp_fairness_sweep, each once, and values in range."""
    try:
        keys = _group_keys(table)
        need = ["method", "epsilon", "seed", *(f"{_CORRECT}{k}" for k in keys)]
        counts = table[[f"{_COUNT}{k}" for k in keys]].to_numpy(dtype=float)
        correct = table[[f"{_CORRECT}{k}" for k in keys]].to_numpy(dtype=float)
        eps = table["epsilon"].to_numpy(dtype=float)
        ok = (table.columns.is_unique and bool(keys) and all(c in table.columns for c in need)
              and 0 < len(table) <= 100 * MAX_FITS
              and np.all((counts > 0) & (counts <= MAX_ROWS) & (counts == np.floor(counts)))
              and np.all((correct >= 0) & (correct <= counts) & (correct == np.floor(correct)))
              and not np.isnan(eps).any() and np.all(eps > 0)
              and set(table["method"]) <= set(SWEEP_METHODS))
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise SWEEP_TABLE.refuse(name, table)
    return table


def _summary(name: str, summary) -> pd.DataFrame:
    need = {"method", "epsilon", "grouping", "group", "count", "mean", "sd", "baseline"}
    columns = summary.columns if isinstance(summary, pd.DataFrame) else pd.Index([])
    if not (columns.is_unique and need <= set(columns)):
        raise SUMMARY.refuse(name, summary)
    return summary
