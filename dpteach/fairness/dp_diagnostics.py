"""Why privacy costs some groups more: the mechanism behind :mod:`~dpteach.fairness.dp_impact`.

:mod:`~dpteach.fairness.dp_impact` measures *who* pays for differential privacy: the
per-group accuracy drops that Bagdasaryan, Poursaeed & Shmatikov [BPS19]_ found ("the poor
become poorer"). This module measures *why*, group by group, for both private learners of the
course — what DP-SGD's clipping takes from whom, the noise objective perturbation puts on
each group's scores — and who is exposed when there is no privacy at all (membership
inference per group, against the one DP ceiling that covers every group alike).

Rows and features are bounded as in :mod:`~dpteach.fairness.dp_impact`. Privacy unit and
assumptions are those of the learners (see :mod:`dpteach.learning.dpsgd` and
:mod:`dpteach.learning.erm`). Groups here are the data's own categories; the module asserts
nothing about the people in them.

References
----------
.. [BPS19] E. Bagdasaryan, O. Poursaeed and V. Shmatikov. Differential privacy has disparate
   impact on model accuracy. NeurIPS 2019, pp. 15479-15488 (arXiv:1905.12101).
.. [ACG16] M. Abadi, A. Chu, I. Goodfellow, H. B. McMahan, I. Mironov, K. Talwar and
   L. Zhang. Deep learning with differential privacy. CCS 2016, Algorithm 1.
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate. Differentially private empirical
   risk minimization. JMLR 12:1069-1109, 2011 (Algorithm 2, Theorem 9).
.. [YGFJ18] S. Yeom, I. Giacomelli, M. Fredrikson and S. Jha. Privacy risk in machine
   learning: analyzing the connection to overfitting. CSF 2018.
.. [CCN22] N. Carlini, S. Chien, M. Nasr, S. Song, A. Terzis and F. Tramèr. Membership
   inference attacks from first principles. IEEE S&P 2022.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import linalg, stats
from threadpoolctl import threadpool_limits

from .._validation import FLAG, RNG, Domain, array, choice, integer, real, refuse, validate
from ..attacks.membership import ShadowExperiment, lira_scores
from ..attacks.roc import roc_from_scores
from ..learning.dpsgd import DPSGDClassifier
from ..learning.erm import objective_perturbation_constants
from ..learning.logistic import LogisticProblem, bound_rows
from ..learning.network import Network
from .dp_impact import EPSILON_RANGE, MAX_FEATURES, MAX_ROWS, OBJECTIVE_SETTINGS
from ._rows import check_same_length
from .metrics import BOTH_LABELS, GROUP_LABELS

__all__ = [
    "MAX_PERMUTATIONS", "MODEL", "EXPERIMENT",
    "gradient_stats_by_group", "objective_perturbation_noise_by_group",
    "membership_advantage_by_group",
]

#: Most permutations of :func:`membership_advantage_by_group`.
MAX_PERMUTATIONS = 10_000

#: a fitted DPSGDClassifier, or a Network
MODEL: Domain = Domain("a fitted DPSGDClassifier or a dpteach.learning.network.Network",
               lambda name, value: _model(name, value), bad=[None, "model", DPSGDClassifier()])
#: a shadow experiment of at least 2 models with boolean memberships
EXPERIMENT: Domain = Domain("a ShadowExperiment of at least 2 models with boolean memberships",
                    lambda name, value: _experiment(name, value), bad=[None, "experiment"])
#: labels: values of model.classes_ (a classifier) or class indices (a Network)
CLASS_LABELS: Domain = Domain(
    "a 1-D array of labels (values of model.classes_, or class indices for a Network)",
    lambda name, value: _class_labels(name, value), example=[0, 1], bad=[None, "y", [[0, 1]]])
#: the rows of a data set
ROWS = array(ndim=2, low=-1e6, high=1e6, max_rows=MAX_ROWS, max_size=MAX_ROWS * MAX_FEATURES,
             example=[[0.0, 1.0], [1.0, 0.0]])


# ------------------------------------------------------------------------ the mechanism
@validate(model=MODEL, X=ROWS, y=CLASS_LABELS, sensitive_features=GROUP_LABELS,
          max_grad_norm=real(1e-6, 1e6, example=1.0))
def gradient_stats_by_group(model, X, y, *, sensitive_features,
                            max_grad_norm: float = 1.0) -> pd.DataFrame:
    """Per-example gradient norms of a model, and what clipping at C takes, per group.

    DP-SGD clips each example's gradient g_i to norm C, ḡ_i = g_i·min(1, C/‖g_i‖) ([ACG16]_
    Algorithm 1), so an example moves the model by at most C however wrong the model is
    about it. [BPS19]_ explain DP-SGD's disparate impact this way: the examples of a small or
    hard group are fitted worse, so they have the larger gradients, so clipping cuts *their*
    contribution most, and the noise σC, the same for everyone, is large against the small
    clipped total they still send.

    ``X`` are the rows to evaluate (e.g. the training rows); ``max_grad_norm`` is C. Returns a
    DataFrame indexed by group: ``count``, ``share`` of the rows, ``mean_norm`` and
    ``median_norm`` of ‖g_i‖, ``fraction_clipped`` (‖g_i‖ > C), ``mean_clip_factor`` (mean of
    min(1, C/‖g_i‖): the part of its gradient an example keeps), ``gradient_share`` (the
    group's share of Σ‖g_i‖) and ``clipped_share`` (its share of Σ‖ḡ_i‖, what it still
    contributes after clipping).
    """
    C, n = max_grad_norm, X.shape[0]
    net, classes = (model, None) if isinstance(model, Network) else (model.model_, model.classes_)
    labels = sensitive_features.labels[sensitive_features.codes]
    check_same_length(X=X, y=y, sensitive_features=labels)
    if X.shape[1] != net.layer_sizes[0]:
        raise refuse("X", X.shape, f"of the model's {net.layer_sizes[0]} columns (shape)")
    if classes is not None:
        try:
            idx = np.clip(np.searchsorted(classes, y), 0, classes.size - 1)
            known = np.array_equal(classes[idx], y)
        except (TypeError, ValueError):                  # labels of another kind
            known = False
        if not known:
            raise refuse("y", y, "labels of model.classes_")
        y = idx
    Xc = X.astype(net.dtype)
    norms = np.empty(n)
    with threadpool_limits(limits=1, user_api="blas"), np.errstate(over="ignore",
                                                                    invalid="ignore"):
        for start in range(0, n, 10_000):                  # bounded memory per chunk
            sl = slice(start, start + 10_000)
            norms[sl] = net.per_example_grad_norms(Xc[sl], y[sl])
    if not np.all(np.isfinite(norms)):
        raise refuse("X", X.max(), "rows whose gradient norms are finite (largest entry)")
    factor = C / np.maximum(norms, C)
    clipped = factor * norms
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        g_share = norms / norms.sum() if norms.sum() > 0 else np.full(n, 1.0 / n)
        c_share = clipped / clipped.sum() if clipped.sum() > 0 else np.full(n, 1.0 / n)
    out = _group_frame(labels, {"mean_norm": norms, "fraction_clipped": (norms > C) * 1.0,
                                "mean_clip_factor": factor})
    frame = pd.DataFrame({"group": labels, "norm": norms, "g": g_share, "c": c_share})
    grouped = frame.groupby("group", sort=True)
    out.insert(1, "share", out["count"] / n)
    out.insert(3, "median_norm", grouped["norm"].median())
    out["gradient_share"] = grouped["g"].sum()
    out["clipped_share"] = grouped["c"].sum()
    return out


@validate(X_train=ROWS, y_train=BOTH_LABELS, X=ROWS, sensitive_features=GROUP_LABELS,
          epsilon=real(*EPSILON_RANGE), lam=real(1e-8, 1e3, example=1e-4),
          data_norm=real(1e-6, 1e6, example=2.0), fit_intercept=FLAG)
def objective_perturbation_noise_by_group(X_train, y_train, X, *, sensitive_features,
                                          epsilon: float, lam: float = OBJECTIVE_SETTINGS["lam"],
                                          data_norm: float = OBJECTIVE_SETTINGS["data_norm"],
                                          fit_intercept: bool = False) -> pd.DataFrame:
    """How much objective perturbation moves each person's score, against their margin.

    Objective perturbation [CMS11]_ (Algorithm 2) minimises J(w) + bᵀw/n + (Δ/2)‖w‖² with
    noise b of density ∝ exp(−β‖b‖). To first order around the non-private minimiser w*,

        w_priv − w* ≈ −H⁻¹(b/n + Δw*),   H = ∇²J(w*) + Δ·I,

    so the logit of a row z moves by a Gaussian-like amount with mean −zᵀH⁻¹Δw* and standard
    deviation √(d+1)/(βn)·‖H⁻¹z‖ (E[bbᵀ] = (d+1)/β²·I, since ‖b‖ ~ Gamma(d, 1/β) with a uniform
    direction). The curvature H in the directions only a group's rows use (e.g. its one-hot
    feature) comes from that group's rows alone, so the smaller the group, the less its
    weights are damped and the larger the noise on its scores. A prediction flips when the
    shift crosses its margin |w*ᵀz|; ``flip_rate`` is the mean of
    Φ(−(|m| + sign(m)·mean shift)/sd). The approximation needs shifts small against the
    curvature's scale: on Adult the predicted sd matches fits within about 10 % from ε = 1
    up (checked in the tests), and underestimates it below.

    ``X_train, y_train`` are the training rows (at most
    :data:`~dpteach.fairness.dp_impact.MAX_FEATURES` columns, both classes), ``X`` the rows
    whose scores to assess (e.g. the test rows); ``lam`` is Λ and ``data_norm`` the public row
    bound R (:func:`dpteach.learning.logistic.bound_rows`), defaults
    :data:`~dpteach.fairness.dp_impact.OBJECTIVE_SETTINGS`. Returns a DataFrame indexed by
    group: ``count``, ``logit_noise_sd`` (mean over the group's rows), ``margin`` (mean
    |w*ᵀz|) and ``flip_rate`` (the predicted fraction of the group's predictions that the
    noise flips; for a row with no noise, 0 or 1 as the mean shift decides, ½ on the
    boundary).
    """
    eps, Xt, yt, Xq = epsilon, X_train, y_train.astype(np.int64), X
    (n, d), labels = Xt.shape, sensitive_features.labels[sensitive_features.codes]
    check_same_length(X_train=Xt, y_train=yt)
    check_same_length(X=Xq, sensitive_features=labels)
    if d > MAX_FEATURES or Xq.shape[1] != d:
        raise refuse("X_train, X", (d, Xq.shape[1]), "of one number of columns, ≤ 2,000")
    with threadpool_limits(limits=1, user_api="blas"):
        Z = bound_rows(Xt, data_norm, fit_intercept)
        problem = LogisticProblem(Z, np.where(yt == 1, 1.0, -1.0))
        const = objective_perturbation_constants(eps, n, lam)
        w = problem.minimize(lam)
        H = problem.loss_hessian(w) + (lam + const.Delta) * np.eye(Z.shape[1])
        Zq = bound_rows(Xq, data_norm, fit_intercept)
        A = linalg.solve(H, Zq.T, assume_a="pos")               # columns H⁻¹z (H ≻ 0)
        Hw = linalg.solve(H, const.Delta * w, assume_a="pos")
    dim = Z.shape[1]
    with np.errstate(over="ignore", divide="ignore", invalid="ignore", under="ignore"):
        top = np.max(np.abs(A), axis=0)                       # column norms without underflow
        norms = top * np.linalg.norm(A / np.where(top > 0, top, 1.0), axis=0)
        sd = math.sqrt(dim + 1) / (const.beta * n) * norms
        m = Zq @ w
        shift = -(Zq @ Hw)
        toward = np.abs(m) + np.sign(m) * shift               # distance left to the boundary
        # no noise at all (sd = 0): the deterministic shift alone decides
        ratio = np.where(sd > 0, toward / np.where(sd > 0, sd, 1.0), np.sign(toward) * np.inf)
        flip = stats.norm.sf(ratio)
    return _group_frame(labels, {"logit_noise_sd": sd, "margin": np.abs(m), "flip_rate": flip})


# ---------------------------------------------------------------- membership inference
def _weighted_advantage(scores: list, labels: list) -> tuple:
    """(advantage, auc) of the ROC pooling several targets with equal weight (each target's
    members weigh 1/#members, its non-members 1/#non-members, as attacks.membership does)."""
    weights = [np.where(lab, 1.0 / lab.sum(), 1.0 / (~lab).sum()) for lab in labels]
    res = roc_from_scores(np.concatenate(scores), np.concatenate(labels),
                          sample_weight=np.concatenate(weights))
    return res.advantage, res.auc


def _permuted_advantages(scores: list, labels: list, n_perm: int, gen) -> np.ndarray:
    """The advantages :func:`_weighted_advantage` gives after permuting each target's labels,
    ``n_perm`` times, from the same draws in the same order; computed for blocks of
    permutations at once (the pooled scores are sorted once; only the labels move, and every
    target keeps its counts, so every example keeps its class weight)."""
    s = np.concatenate(scores)
    order = np.argsort(-s, kind="mergesort")
    last = np.r_[np.flatnonzero(np.diff(s[order]) != 0), s.size - 1]
    w_member = np.concatenate([np.full(lab.size, 1.0 / lab.sum()) for lab in labels])[order]
    w_non = np.concatenate([np.full(lab.size, 1.0 / (~lab).sum()) for lab in labels])[order]
    out = np.empty(n_perm)
    block = max(1, 2_000_000 // s.size)              # at most 2e6 labels (16 MB) at a time
    for start in range(0, n_perm, block):
        stop = min(n_perm, start + block)
        lab = np.array([np.concatenate([gen.permutation(x) for x in labels])
                        for _ in range(start, stop)])[:, order]
        tp = np.cumsum(np.where(lab, w_member, 0.0), axis=1)
        fp = np.cumsum(np.where(lab, 0.0, w_non), axis=1)
        gap = tp[:, last] / tp[:, -1:] - fp[:, last] / fp[:, -1:]
        out[start:stop] = np.maximum(gap.max(axis=1), 0.0)   # the ROC starts at (0, 0)
    return out


@validate(experiment=EXPERIMENT, sensitive_features=GROUP_LABELS,
          attack=choice("lira", "lira_offline", "loss"),
          n_permutations=integer(1, MAX_PERMUTATIONS, example=20, work=True), rng=RNG)
def membership_advantage_by_group(experiment, *, sensitive_features, attack: str = "lira",
                                  n_permutations: int = 200, rng=None) -> pd.DataFrame:
    """Membership-inference advantage against each group, with its chance level.

    Every model of a shadow experiment (:func:`dpteach.attacks.membership.run_shadow_experiment`)
    is attacked in turn, the others acting as shadows (LiRA, [CCN22]_) or not needed (loss
    threshold, [YGFJ18]_); the scores of one group's examples are pooled over targets with
    equal weight and summarised by the advantage max(TPR − FPR) and the AUC. A maximum over
    thresholds is biased upwards, the more the fewer examples a group has, so the chance level
    is measured too: the same statistic after permuting each target's membership labels
    among the group's examples (which keeps every count), ``n_permutations`` times. An (ε, δ)-DP
    training algorithm bounds every group's advantage by the same
    :func:`~dpteach.attacks.roc.dp_advantage_bound`; [BPS19]_'s question is who comes
    closest to it.

    ``n_permutations`` is at most 10**8 / (n_models · n_examples) (each permutation re-sorts
    the pooled scores of a group). Returns a DataFrame indexed by group: ``count``
    (examples), ``advantage``, ``auc``, ``chance`` and ``chance_sd`` (mean and sd of the
    permuted advantages; sd 0 for one permutation), ``excess`` (advantage − chance) and
    ``p_value`` ((1 + #permuted ≥ observed)/(1 + n_permutations)). Targets with no member (or
    no non-member) of a group are left out for that group; a group with none left is refused.
    """
    member = np.asarray(experiment.membership)
    (M, N), labels = member.shape, sensitive_features.labels[sensitive_features.codes]
    n_perm, gen = n_permutations, rng
    check_same_length(membership_columns=member.T, sensitive_features=labels)
    if n_perm * M * N > max(10**8, M * N):
        raise refuse("n_permutations", n_perm, "≤ 1e8/(models·examples)")
    scores = []
    for t in range(M):
        if attack == "loss":
            scores.append(-np.asarray(experiment.losses[t], dtype=float))
        else:
            others = np.arange(M) != t
            scores.append(lira_scores(experiment.confidences[t], experiment.confidences[others],
                                      member[others],
                                      mode="online" if attack == "lira" else "offline"))
    rows = {}
    for g in np.unique(labels):
        idx = np.flatnonzero(labels == g)
        used = [t for t in range(M) if 0 < member[t, idx].sum() < idx.size]
        if not used:
            raise refuse("sensitive_features group", g, "one with members and non-members")
        sc = [scores[t][idx] for t in used]
        labs = [member[t, idx] for t in used]
        adv, auc = _weighted_advantage(sc, labs)
        null = _permuted_advantages(sc, labs, n_perm, gen)
        rows[g] = {"count": int(idx.size), "advantage": float(adv), "auc": float(auc),
                   "chance": float(null.mean()),
                   "chance_sd": float(null.std(ddof=1)) if n_perm > 1 else 0.0,
                   "excess": float(adv - null.mean()),
                   "p_value": float((1 + np.sum(null >= adv)) / (1 + n_perm))}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "group"
    return out


# ------------------------------------------------------------------------------ helpers
def _group_frame(labels, columns: dict) -> pd.DataFrame:
    """Per-group means of ``columns`` (arrays aligned with ``labels``) and counts."""
    frame = pd.DataFrame({"group": labels, **columns})
    out = frame.groupby("group", sort=True).mean()
    out.insert(0, "count", frame.groupby("group", sort=True).size().astype(np.int64))
    return out


def _model(name: str, value):
    if isinstance(value, Network) or (isinstance(value, DPSGDClassifier)
                                      and hasattr(value, "model_")):
        return value
    raise MODEL.refuse(name, value)


def _experiment(name: str, value):
    if isinstance(value, ShadowExperiment):
        member = np.asarray(value.membership)
        if member.ndim == 2 and member.shape[0] >= 2 and member.dtype == bool \
                and np.shape(value.losses) == member.shape:
            return value
    raise EXPERIMENT.refuse(name, value)


def _class_labels(name: str, value) -> np.ndarray:
    y = None if value is None or isinstance(value, (str, bytes)) else np.asarray(value)
    if y is None or y.ndim != 1 or y.dtype.kind not in "biuUf":
        raise CLASS_LABELS.refuse(name, value)
    return y
