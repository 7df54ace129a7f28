"""Membership inference: did this example take part in training?

Two attacks, from the simplest to the current standard:

* :func:`loss_threshold_attack` — Yeom et al. [YGFJ18]_: training examples
  tend to have lower loss, so guess "member" when the loss is below a
  threshold. Sweeping the threshold gives a ROC curve.
* :func:`lira_attack` — the likelihood-ratio attack (LiRA) of Carlini et al.
  [CCN22]_: train *shadow models* ([SSSS17]_) with and without each example, fit
  Gaussians to the example's logit-scaled confidence in both worlds, and test
  which world the target model looks like (online), or how far it is from the
  "out" world (offline).

Attacks are reported the way [CCN22]_ recommends (the full ROC, the TPR at a low
FPR); measuring a test and the ceiling (ε, δ)-DP puts on *any* attack ([KOV15]_
Thm. 2.1, [WZ10]_) are in :mod:`dpteach.attacks.roc`.

References
----------
.. [YGFJ18] S. Yeom, I. Giacomelli, M. Fredrikson and S. Jha. Privacy risk in
   machine learning: analyzing the connection to overfitting. CSF 2018.
.. [CCN22] N. Carlini, S. Chien, M. Nasr, S. Song, A. Terzis and F. Tramèr.
   Membership inference attacks from first principles. IEEE S&P 2022.
.. [KOV15] P. Kairouz, S. Oh and P. Viswanath. The composition theorem for
   differential privacy. ICML 2015 (Theorem 2.1).
.. [WZ10] L. Wasserman and S. Zhou. A statistical framework for differential
   privacy. JASA 105(489), 2010.
.. [SSSS17] R. Shokri, M. Stronati, C. Song and V. Shmatikov. Membership
   inference attacks against machine learning models. IEEE S&P 2017.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats
from sklearn.base import clone
from tqdm.auto import tqdm

from .._validation import (FLAG, RNG, Domain, anything, array, choice, integer, real, refuse,
                           validate)
from .roc import DEFAULT_LOW_FPRS, LOW_FPRS, MEMBERSHIP, NAME, AttackResult, roc_from_scores

__all__ = [
    "loss_threshold_attack",
    "logit_confidence", "cross_entropy_from_proba",
    "membership_matrix", "ShadowExperiment", "run_shadow_experiment",
    "lira_scores", "lira_attack", "loss_attack",
]

MAX_MODELS = 64                  # shadow/target models in one experiment
MAX_MEMBERSHIPS = 200_000        # n_models · n_examples
MAX_STATISTIC = 1e4              # |φ| and losses: logit_confidence gives at most 1418
SIZES = f"M ≤ {MAX_MODELS} models and M·N ≤ {MAX_MEMBERSHIPS:,}"


#: per-example losses of a model (finite)
LOSSES = array(ndim=1, low=-1e15, high=1e15, example=[0.1, 0.2, 0.9])
#: predicted class probabilities, one row per example
PROBA = array(ndim=2, low=0.0, high=1.0, example=[[0.3, 0.7], [0.5, 0.5]])
#: the index of each row's true class
CLASS_INDEX = array(ndim=1, min_size=0, low=0, high=10**6, integers=True, example=[1, 0])
#: a model's confidences (or losses) on the examples, one row per model
STATISTICS = array(ndim=2, low=-MAX_STATISTIC, high=MAX_STATISTIC,
                   example=[[0.5, 0.0], [0.0, 1.5], [-1.0, 2.0], [1.0, 2.5]])
#: a scikit-learn classifier (cloned and fitted once per shadow model)
ESTIMATOR = Domain("a scikit-learn classifier with get_params, fit, predict and predict_proba",
                   lambda name, value: _classifier(name, value), bad=[None, "classifier", 3])
EXPERIMENT = Domain("a ShadowExperiment (see run_shadow_experiment)",
                    lambda name, value: _experiment(name, value),
                    bad=[None, "experiment", 3])
#: which models to attack: distinct model indices
TARGETS = array(ndim=(0, 1), low=0, high=MAX_MODELS - 1, integers=True, example=[0, 1])
MODE = choice("online", "offline")
_SPENT = real(0.0, math.inf)     # a fitted model's epsilon_ (inf: not private)


# ------------------------------------------------------- the loss threshold
@validate(member_losses=LOSSES, nonmember_losses=LOSSES, threshold=real(-1e15, 1e15).or_none(),
          low_fprs=LOW_FPRS, name=NAME)
def loss_threshold_attack(member_losses, nonmember_losses, *, threshold: float | None = None,
                          low_fprs=DEFAULT_LOW_FPRS, name: str = "loss threshold") -> AttackResult:
    """The loss-threshold attack of Yeom et al. [YGFJ18]_: one global threshold on the loss.

    Guess "member" iff the target model's loss on the example is ≤ τ. The
    natural single choice is the mean training loss; sweeping τ gives the ROC
    curve returned here. Assumes only black-box access to the loss (the
    example's label is known).

    Parameters
    ----------
    member_losses, nonmember_losses : arrays
        Per-example losses of training (member) and held-out examples.
    threshold : float, optional
        If given (e.g. the mean training loss), ``operating_point`` holds the
        (FPR, TPR) of the rule loss ≤ threshold.
    low_fprs : sequence of float
        As in :func:`~dpteach.attacks.roc.roc_from_scores`.
    """
    scores = -np.concatenate([member_losses, nonmember_losses])
    labels = np.r_[np.ones(member_losses.size, bool), np.zeros(nonmember_losses.size, bool)]
    res = roc_from_scores(scores, labels, low_fprs=low_fprs, name=name)
    if threshold is not None:
        res.operating_point = (float(np.mean(nonmember_losses <= threshold)),
                               float(np.mean(member_losses <= threshold)))
    return res


# ------------------------------------------------------- confidence scores
@validate(proba=PROBA, y=CLASS_INDEX)
def logit_confidence(proba, y) -> np.ndarray:
    """Logit-scaled confidence φ = log(p_y / (1 − p_y)) of the true class [CCN22]_.

    Carlini et al. observe that this statistic is close to Gaussian across
    retrainings of a model, which is what LiRA assumes. 1 − p_y is computed
    as the sum of the other classes' probabilities so it stays accurate when
    p_y is close to 1; probabilities are floored at the smallest positive
    double, so |φ| ≤ 1418. ``proba`` holds the predicted class probabilities (rows
    sum to 1), ``y`` the index of each row's true class.
    """
    p_true, p_rest = _true_class_proba(proba, y)
    tiny = np.finfo(np.float64).tiny
    return np.log(np.maximum(p_true, tiny)) - np.log(np.maximum(p_rest, tiny))


@validate(proba=PROBA, y=CLASS_INDEX)
def cross_entropy_from_proba(proba, y) -> np.ndarray:
    """Per-example loss −log p_y (floored at the smallest positive double)."""
    p_true, _ = _true_class_proba(proba, y)
    return -np.log(np.maximum(p_true, np.finfo(np.float64).tiny))


# ------------------------------------------------------------ shadow models
@validate(n_models=integer(1, MAX_MODELS, work=True),
          n_examples=integer(2, MAX_MEMBERSHIPS, work=True), rng=RNG)
def membership_matrix(n_models: int, n_examples: int, rng=None) -> np.ndarray:
    """Random training-set memberships: entry (m, i) is True iff example i trains model m.

    Each entry is an independent fair coin, so whether example i is in model
    m's training set is independent of every other model's set: the attack on
    model m, which uses the other models as shadows, cannot learn the answer
    from the shadows' memberships. (Carlini et al. [CCN22]_ instead balance
    each example into exactly half of the models; that makes the target's
    membership a deterministic function of the shadows' and so slightly
    breaks the independence the DP bound needs.) ``n_models·n_examples`` is at most
    200,000.
    """
    if n_models * n_examples > MAX_MEMBERSHIPS:
        raise refuse("n_examples", n_examples, f"≤ {MAX_MEMBERSHIPS // n_models:,} ({SIZES})")
    return rng.random((n_models, n_examples)) < 0.5


@dataclass
class ShadowExperiment:
    """Models trained on random halves of one population.

    Attributes
    ----------
    membership : bool array (M, N)
        membership[m, i] is True iff example i was in model m's training set.
    confidences : array (M, N)
        Logit-scaled confidence φ of model m on example i (:func:`logit_confidence`).
    losses : array (M, N)
        Cross-entropy of model m on example i.
    train_accuracy, test_accuracy : arrays (M,)
        Accuracy of model m on its members and on its non-members.
    epsilons : array (M,)
        ``epsilon_`` of each fitted model (inf for a non-private model,
        NaN if the estimator has no such attribute).
    """

    membership: np.ndarray
    confidences: np.ndarray
    losses: np.ndarray
    train_accuracy: np.ndarray
    test_accuracy: np.ndarray
    epsilons: np.ndarray

    @property
    def n_models(self) -> int:
        return self.membership.shape[0]


@validate(estimator=ESTIMATOR, X=array(ndim=2, low=-1e15, high=1e15),
          y=anything("class labels, one per row of X"),
          n_models=integer(2, MAX_MODELS, work=True), rng=RNG, progress=FLAG)
def run_shadow_experiment(estimator, X, y, n_models: int = 8, rng=None,
                          progress: bool = False) -> ShadowExperiment:
    """Train ``n_models`` clones of ``estimator``, each on a random half of (X, y).

    Every model is then queried on the whole population, giving each
    example's confidence in models that did and did not train on it. Any
    model can be the *target* and the others its *shadows* (the leave-one-out
    evaluation of [CCN22]_).

    Parameters
    ----------
    estimator : scikit-learn classifier
        Cloned for each model (``sklearn.base.clone``); must have
        ``predict_proba`` and ``classes_``. If it has an ``rng`` or
        ``random_state`` parameter, each clone gets its own seed drawn from ``rng``.
    X : array (N, d)
        N ≥ 2 rows with ``n_models·N`` at most 200,000.
    progress : bool
        Show a progress bar over models.

    Raises
    ------
    ParameterError
        Also when a model's random half is empty or holds every example (only
        likely for tiny N), or when ``estimator.fit`` refuses its half with a
        ``ValueError`` (e.g. a half with one class only).
    """
    y = np.asarray(y)
    M, N = n_models, X.shape[0]
    most = MAX_MEMBERSHIPS // M
    if y.shape != (N,):
        raise refuse("y.shape", y.shape, f"({N},), one label per row of X")
    if not 2 <= N <= most:
        raise refuse("X.shape", X.shape, f"(N, d), 2 ≤ N ≤ {most:,} (n_models={M})")
    member = membership_matrix.__wrapped__(M, N, rng)
    sizes = member.sum(axis=1)
    if np.any((sizes == 0) | (sizes == N)):     # likely only for tiny N
        raise refuse("X.shape", X.shape, "more rows: a model's random half is empty or all")
    conf, loss = np.empty((M, N)), np.empty((M, N))
    tr_acc, te_acc, eps = np.empty(M), np.empty(M), np.full(M, np.nan)
    params = estimator.get_params(deep=False)
    for m in tqdm(range(M), desc="shadow models", disable=not progress):
        est = clone(estimator)
        seed = int(rng.integers(2**31))
        if "rng" in params:
            est.set_params(rng=seed)
        elif "random_state" in params:
            est.set_params(random_state=seed)
        try:
            est.fit(X[member[m]], y[member[m]])
        except ValueError as exc:                 # e.g. a half with one class
            raise refuse("estimator", estimator, f"fittable on model {m}'s half: {exc}") from exc
        proba = PROBA("estimator.predict_proba(X)", est.predict_proba(X))
        classes = list(est.classes_)
        col = np.array([classes.index(v) if v in classes else -1 for v in y])
        # a label the model never saw gets probability 0 via an appended zero column
        proba = np.column_stack([proba, np.zeros(N)])
        col = np.where(col < 0, proba.shape[1] - 1, col)
        conf[m] = logit_confidence.__wrapped__(proba, col)
        loss[m] = cross_entropy_from_proba.__wrapped__(proba, col)
        correct = np.asarray(est.predict(X)) == y
        tr_acc[m] = correct[member[m]].mean()
        te_acc[m] = correct[~member[m]].mean()
        e = getattr(est, "epsilon_", None)
        eps[m] = np.nan if e is None else _SPENT("estimator.epsilon_", e)
    return ShadowExperiment(membership=member, confidences=conf, losses=loss,
                            train_accuracy=tr_acc, test_accuracy=te_acc, epsilons=eps)


# -------------------------------------------------------------------- LiRA
@validate(target_confidences=array(ndim=1, low=-MAX_STATISTIC, high=MAX_STATISTIC,
                                   example=[0.0, 1.0]),
          shadow_confidences=STATISTICS, shadow_membership=MEMBERSHIP, mode=MODE,
          fix_variance=FLAG)
def lira_scores(target_confidences, shadow_confidences, shadow_membership, *,
                mode: str = "online", fix_variance: bool = True) -> np.ndarray:
    """Likelihood-ratio membership scores (LiRA), Carlini et al. [CCN22]_, Algorithm 1.

    For each example x with target confidence φ (see :func:`logit_confidence`),
    fit Gaussians to the shadow models' confidences on x: N(μ_in, σ_in²) from
    shadows trained on x and N(μ_out, σ_out²) from the others. Then

    * online:  score = log N(φ; μ_in, σ_in²) − log N(φ; μ_out, σ_out²)
      (the log likelihood ratio of "member" vs "non-member");
    * offline: score = log Pr[Z ≤ φ], Z ~ N(μ_out, σ_out²): a one-sided
      test that only needs "out" shadows, so they can be trained once,
      before the examples to attack are known.

    Higher score = more likely a member.

    Parameters
    ----------
    shadow_confidences, shadow_membership : arrays (S, N)
        Confidences and memberships of S shadow models on the N target examples.
    fix_variance : bool, default True
        Use one variance per world, pooled over all examples, instead of one
        per example; [CCN22]_ recommend it with few shadow models,
        where per-example variances are too noisy.

    Notes
    -----
    Assumes φ is Gaussian in each world (checked empirically in [CCN22]_).
    An example with no "in" (or "out") shadow, or fewer than two for its own
    variance, falls back to the pooled mean / variance of all examples; every
    variance is floored at 1e-12. Carlini et al. also query augmented copies of
    each example; this teaching version uses the example alone.
    """
    phi, shadows, member = target_confidences, shadow_confidences, shadow_membership
    for name, m in (("shadow_confidences", shadows), ("shadow_membership", member)):
        if m.shape != (shadows.shape[0], phi.size):
            raise refuse(f"{name}.shape", m.shape, f"(S, {phi.size}), one column per target")
    if member.all() or (mode == "online" and not member.any()):
        raise refuse("shadow_membership", member, "not all True (and online, not all False)")
    mu_out, sd_out = _world(shadows, ~member, fix_variance)
    if mode == "offline":
        return stats.norm.logcdf(phi, loc=mu_out, scale=sd_out)
    mu_in, sd_in = _world(shadows, member, fix_variance)
    return (stats.norm.logpdf(phi, loc=mu_in, scale=sd_in)
            - stats.norm.logpdf(phi, loc=mu_out, scale=sd_out))


@validate(experiment=EXPERIMENT, targets=TARGETS.or_none(), mode=MODE, fix_variance=FLAG,
          low_fprs=LOW_FPRS, name=NAME.or_none())
def lira_attack(experiment: ShadowExperiment, targets=None, *, mode: str = "online",
                fix_variance: bool = True, low_fprs=DEFAULT_LOW_FPRS,
                name: str | None = None) -> AttackResult:
    """Run LiRA [CCN22]_ against each target model, the other models acting as shadows.

    Scores of all targets are pooled into one ROC, as in [CCN22]_'s
    leave-one-out evaluation, with every target model weighing the same
    (TPR and FPR at each threshold are averages over targets).

    Parameters
    ----------
    experiment : ShadowExperiment
        At least 2 models, at most 64, and n_models·n_examples ≤ 200,000.
    targets : int or sequence of int, optional
        Which models to attack (distinct indices; default: all). Each target
        costs one pass over the other models' confidences.
    mode, fix_variance : see :func:`lira_scores`.
    """
    member, conf = experiment.membership, experiment.confidences
    if member.shape[0] < 2:
        raise refuse("experiment.n_models", member.shape[0], "≥ 2: a target and a shadow")
    ts = _target_list(targets, member.shape[0])
    scores = []
    for t in ts:
        others = np.arange(member.shape[0]) != t
        scores.append(lira_scores.__wrapped__(conf[t], conf[others], member[others], mode=mode,
                                              fix_variance=fix_variance))
    return _pool(member, ts, scores, low_fprs, f"LiRA ({mode})" if name is None else name)


@validate(experiment=EXPERIMENT, targets=TARGETS.or_none(), low_fprs=LOW_FPRS, name=NAME)
def loss_attack(experiment: ShadowExperiment, targets=None, *, low_fprs=DEFAULT_LOW_FPRS,
                name: str = "loss threshold") -> AttackResult:
    """The loss-threshold attack [YGFJ18]_ on each target model of ``experiment``.

    ROC pooled over targets with equal weights, as in :func:`lira_attack`.

    Needs no shadow models: the score is minus the target's loss. ``experiment``
    and ``targets`` as in :func:`lira_attack`.
    """
    ts = _target_list(targets, experiment.membership.shape[0])
    return _pool(experiment.membership, ts, [-experiment.losses[t] for t in ts], low_fprs, name)


# ------------------------------------------------------------------ helpers
def _true_class_proba(proba: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if y.shape != (proba.shape[0],) or (y.size and y.max() >= proba.shape[1]):
        raise refuse("y", y, f"a column of proba in [0, {proba.shape[1] - 1}] per row")
    rows, y = np.arange(proba.shape[0]), y.astype(np.intp)
    p_true = proba[rows, y]
    # summing the other classes keeps 1 - p accurate when p is close to 1
    mask = np.ones_like(proba, dtype=bool)
    mask[rows, y] = False
    return p_true, np.where(mask, proba, 0.0).sum(axis=1)


def _world(shadows: np.ndarray, mask: np.ndarray, fix_variance: bool):
    """Mean and standard deviation of one world ("in" or "out") for every example."""
    k = mask.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):      # examples without shadows
        mean = np.where(mask, shadows, 0.0).sum(axis=0) / k
        var = np.where(mask, (shadows - mean) ** 2, 0.0).sum(axis=0) / (k - 1)
    mean = np.where(k > 0, mean, shadows[mask].mean())
    ok = k >= 2
    if ok.any():
        pooled_var = float(np.sum(np.where(ok, var * (k - 1), 0.0)) / np.sum(k[ok] - 1))
    else:
        pooled_var = float(shadows[mask].var())
    pooled_var = max(pooled_var, 1e-12)
    var = (np.full(shadows.shape[1], pooled_var) if fix_variance
           else np.where(ok, np.maximum(var, 1e-12), pooled_var))
    return mean, np.sqrt(var)


def _target_list(targets, n_models: int) -> list[int]:
    if targets is None:
        return list(range(n_models))
    t = np.atleast_1d(targets).astype(np.int64)
    if t.max() >= n_models or np.unique(t).size != t.size:
        raise refuse("targets", targets, f"distinct model indices in [0, {n_models - 1}]")
    return [int(v) for v in t]


def _pool(member: np.ndarray, ts: list[int], scores: list, low_fprs, name: str) -> AttackResult:
    """One ROC for several target models, each target weighing the same.

    Member i of target m gets weight 1/(#members of m), non-member 1/(#non-members
    of m), so at each threshold TPR = mean_m TPR_m and FPR = mean_m FPR_m: the
    pooled curve is an average of per-target tests and, like each of them,
    obeys the DP bound (the region of :func:`~dpteach.attacks.roc.dp_roc_bound` is convex).
    """
    labels = [member[t] for t in ts]
    if any(lab.all() or not lab.any() for lab in labels):
        raise refuse("targets", ts, "models with members and non-members")
    weights = [np.where(lab, 1.0 / lab.sum(), 1.0 / (~lab).sum()) for lab in labels]
    return roc_from_scores.__wrapped__(np.concatenate(scores), np.concatenate(labels),
                                       sample_weight=np.concatenate(weights),
                                       low_fprs=low_fprs, name=name)


def _classifier(name: str, value: Any) -> Any:
    if all(hasattr(value, m) for m in ("get_params", "fit", "predict", "predict_proba")):
        return value
    raise ESTIMATOR.refuse(name, value)


def _experiment(name: str, value: Any) -> ShadowExperiment:
    if not isinstance(value, ShadowExperiment):
        raise EXPERIMENT.refuse(name, value)
    member = MEMBERSHIP(f"{name}.membership", value.membership)
    conf = STATISTICS(f"{name}.confidences", value.confidences)
    loss = STATISTICS(f"{name}.losses", value.losses)
    M, N = member.shape
    shapes = (member.shape, conf.shape, loss.shape)
    if len(set(shapes)) > 1 or M > MAX_MODELS or M * N > MAX_MEMBERSHIPS:
        raise refuse(f"{name} shapes", shapes, f"one (M, N) with {SIZES}")
    return dataclasses.replace(value, membership=member, confidences=conf, losses=loss)


# Engineering notes: docs/library/attacks.md.
