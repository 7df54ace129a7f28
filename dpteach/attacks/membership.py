"""Membership inference: did this example take part in training?

Two attacks, from the simplest to the current standard, and the ceiling that
differential privacy puts on *any* attack:

* :func:`loss_threshold_attack` — Yeom et al. [YGFJ18]_: training examples
  tend to have lower loss, so guess "member" when the loss is below a
  threshold. Sweeping the threshold gives a ROC curve.
* :func:`lira_attack` — the likelihood-ratio attack (LiRA) of Carlini et al.
  [CCN22]_: train *shadow models* with and without each example, fit
  Gaussians to the example's logit-scaled confidence in both worlds, and test
  which world the target model looks like (online), or how far it is from the
  "out" world (offline).
* :func:`dp_roc_bound` — an (ε, δ)-DP training algorithm confines every
  membership test to the region TPR ≤ e^ε·FPR + δ and
  TPR ≤ 1 − e^{−ε}(1 − δ − FPR) (Kairouz, Oh and Viswanath [KOV15]_,
  Thm. 2.1; the hypothesis-testing view of Wasserman and Zhou [WZ10]_).

Attacks are reported the way [CCN22]_ recommends: the full ROC (best read on
log-log axes), the TPR at a low FPR (1e-2, 1e-3), and, for comparison with
older work, the AUC and the membership advantage max(TPR − FPR) [YGFJ18]_.

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

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from .._validation import (
    ParameterError,
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_rng,
)

__all__ = [
    "AttackResult",
    "roc_from_scores",
    "loss_threshold_attack",
    "logit_confidence",
    "cross_entropy_from_proba",
    "membership_matrix",
    "ShadowExperiment",
    "run_shadow_experiment",
    "lira_scores",
    "lira_attack",
    "loss_attack",
    "dp_roc_bound",
    "dp_advantage_bound",
    "dp_auc_bound",
]

DEFAULT_LOW_FPRS = (1e-2, 1e-3)


# ---------------------------------------------------------------- ROC tools
@dataclass
class AttackResult:
    """Outcome of a membership-inference attack.

    Attributes
    ----------
    fpr, tpr : arrays
        ROC curve, from (0, 0) to (1, 1), one point per distinct score.
    thresholds : array
        Score thresholds: "member" iff score ≥ threshold gives (fpr[k], tpr[k])
        (the first entry is +inf: nobody is called a member).
    auc : float
        Area under the ROC curve (ties count one half: the Mann–Whitney U / (PN)).
    advantage : float
        max_k (tpr[k] − fpr[k]), the membership advantage of the best threshold [YGFJ18]_.
    tpr_at_fpr : dict
        For each α in ``low_fprs``: the largest TPR among ROC points with
        FPR ≤ α (no interpolation). With N non-members FPR moves in steps of
        1/N, so values for α < 1/N only reflect FPR = 0.
    n_members, n_nonmembers : int
    name : str
    operating_point : tuple or None
        (FPR, TPR) at a fixed threshold, when the attack fixes one.
    """

    fpr: np.ndarray
    tpr: np.ndarray
    thresholds: np.ndarray
    auc: float
    advantage: float
    tpr_at_fpr: dict
    n_members: int
    n_nonmembers: int
    name: str = ""
    operating_point: tuple | None = field(default=None)

    def __repr__(self) -> str:
        low = ", ".join(f"TPR@{a:g}={v:.3f}" for a, v in self.tpr_at_fpr.items())
        return (f"AttackResult({self.name!r}: AUC={self.auc:.3f}, advantage={self.advantage:.3f}, "
                f"{low}, members={self.n_members}, non-members={self.n_nonmembers})")


def _check_membership_labels(name: str, value, n: int | None = None) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype != bool:
        if not (np.issubdtype(arr.dtype, np.number) and np.all(np.isin(arr, (0, 1)))):
            raise ParameterError(f"{name} must be booleans (or 0/1): True = member; "
                                 f"got {name}={arr[:5]!r}...")
        arr = arr.astype(bool)
    if n is not None and arr.shape != (n,):
        raise ParameterError(f"{name} must have shape ({n},); got {name} with shape {arr.shape}")
    return arr


def _check_low_fprs(low_fprs) -> tuple:
    arr = check_array("low_fprs", low_fprs, ndim=(0, 1))
    arr = np.atleast_1d(arr)
    if np.any(arr <= 0) or np.any(arr >= 1):
        raise ParameterError(f"low_fprs must lie in (0, 1); got low_fprs={low_fprs!r}")
    return tuple(float(a) for a in arr)


def _roc(scores: np.ndarray, labels: np.ndarray, low_fprs: tuple, name: str,
         weights: np.ndarray | None = None) -> AttackResult:
    order = np.argsort(-scores, kind="mergesort")
    s, lab = scores[order], labels[order]
    w = np.ones(s.size) if weights is None else weights[order]
    P, N = int(lab.sum()), int((~lab).sum())
    # the last index of each run of equal scores: thresholds between distinct scores
    last = np.r_[np.flatnonzero(np.diff(s) != 0), s.size - 1]
    tp = np.cumsum(np.where(lab, w, 0.0))
    fp = np.cumsum(np.where(lab, 0.0, w))
    tpr = np.r_[0.0, tp[last] / tp[-1]]
    fpr = np.r_[0.0, fp[last] / fp[-1]]
    thresholds = np.r_[np.inf, s[last]]
    auc = float(np.trapezoid(tpr, fpr))
    low = {a: float(tpr[fpr <= a + 1e-15].max()) for a in low_fprs}
    return AttackResult(fpr=fpr, tpr=tpr, thresholds=thresholds, auc=auc,
                        advantage=float(np.max(tpr - fpr)), tpr_at_fpr=low,
                        n_members=P, n_nonmembers=N, name=name)


def roc_from_scores(scores, is_member, *, sample_weight=None, low_fprs=DEFAULT_LOW_FPRS,
                    name: str = "") -> AttackResult:
    """ROC, AUC, advantage and TPR at low FPR of a score-based attack.

    The attack calls an example a member when its score is at least a
    threshold; every threshold gives one (FPR, TPR) point.

    Parameters
    ----------
    scores : array (n,)
        Higher = "more likely a member" (finite).
    is_member : array of bool (n,)
        The truth; both classes must occur.
    sample_weight : array (n,), optional
        Non-negative weights (TPR and FPR become weighted fractions), e.g. to
        give every target model the same weight when pooling attacks.
    low_fprs : sequence of float in (0, 1)
        FPR levels at which to report the TPR [CCN22]_.
    name : str
        Label used in plots.

    Returns
    -------
    AttackResult
    """
    scores = check_array("scores", scores, ndim=1)
    labels = _check_membership_labels("is_member", is_member, scores.size)
    if labels.all() or not labels.any():
        raise ParameterError("is_member must contain both members (True) and non-members (False)")
    w = None
    if sample_weight is not None:
        w = check_array("sample_weight", sample_weight, ndim=1)
        if w.shape != scores.shape or np.any(w < 0):
            raise ParameterError(f"sample_weight must be {scores.size} non-negative numbers; "
                                 f"got shape {w.shape}")
        if not (w[labels].sum() > 0 and w[~labels].sum() > 0):
            raise ParameterError("sample_weight must give positive total weight to members and "
                                 "to non-members")
    return _roc(scores, labels, _check_low_fprs(low_fprs), str(name), w)


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
        Per-example losses of training (member) and held-out examples (finite).
    threshold : float, optional
        If given (e.g. the mean training loss), ``operating_point`` holds the
        (FPR, TPR) of the rule loss ≤ threshold.
    low_fprs : sequence of float
    name : str

    Returns
    -------
    AttackResult
    """
    mem = check_array("member_losses", member_losses, ndim=1)
    non = check_array("nonmember_losses", nonmember_losses, ndim=1)
    scores = -np.concatenate([mem, non])
    labels = np.r_[np.ones(mem.size, bool), np.zeros(non.size, bool)]
    res = _roc(scores, labels, _check_low_fprs(low_fprs), str(name))
    if threshold is not None:
        from .._validation import check_finite
        t = check_finite("threshold", threshold)
        res.operating_point = (float(np.mean(non <= t)), float(np.mean(mem <= t)))
    return res


# ------------------------------------------------------- confidence scores
def _true_class_proba(proba, y):
    proba = check_array("proba", proba, ndim=2)
    if np.any(proba < 0) or np.any(proba > 1):
        raise ParameterError(f"proba must hold probabilities in [0, 1]; got proba with min "
                             f"{proba.min():g} and max {proba.max():g}")
    check_array("y", y, ndim=1, min_size=0, allow_bool=False)   # real, finite, 1-D
    y = np.asarray(y)
    if y.shape != (proba.shape[0],) or not np.issubdtype(y.dtype, np.integer):
        raise ParameterError(f"y must be integer column indices of shape ({proba.shape[0]},); "
                             f"got y with shape {y.shape} and dtype {y.dtype}")
    if y.size and (y.min() < 0 or y.max() >= proba.shape[1]):
        raise ParameterError(f"y must index a column of proba, in [0, {proba.shape[1] - 1}]; "
                             f"got y with min {y.min()} and max {y.max()}")
    rows = np.arange(proba.shape[0])
    p_true = proba[rows, y]
    # summing the other classes keeps 1 - p accurate when p is close to 1
    mask = np.ones_like(proba, dtype=bool)
    mask[rows, y] = False
    p_rest = np.where(mask, proba, 0.0).sum(axis=1)
    return p_true, p_rest


def logit_confidence(proba, y) -> np.ndarray:
    """Logit-scaled confidence φ = log(p_y / (1 − p_y)) of the true class [CCN22]_.

    Carlini et al. observe that this statistic is close to Gaussian across
    retrainings of a model, which is what LiRA assumes. 1 − p_y is computed
    as the sum of the other classes' probabilities so it stays accurate when
    p_y is close to 1; probabilities are floored at the smallest positive
    double, so |φ| ≤ 1418.

    Parameters
    ----------
    proba : array (n, k)
        Predicted class probabilities (rows sum to 1).
    y : array of int (n,)
        Index of the true class of each row.
    """
    p_true, p_rest = _true_class_proba(proba, y)
    tiny = np.finfo(np.float64).tiny
    return np.log(np.maximum(p_true, tiny)) - np.log(np.maximum(p_rest, tiny))


def cross_entropy_from_proba(proba, y) -> np.ndarray:
    """Per-example loss −log p_y (floored at the smallest positive double)."""
    p_true, _ = _true_class_proba(proba, y)
    return -np.log(np.maximum(p_true, np.finfo(np.float64).tiny))


# ------------------------------------------------------------ shadow models
def membership_matrix(n_models: int, n_examples: int, rng=None) -> np.ndarray:
    """Random training-set memberships: entry (m, i) is True iff example i trains model m.

    Each entry is an independent fair coin, so whether example i is in model
    m's training set is independent of every other model's set: the attack on
    model m, which uses the other models as shadows, cannot learn the answer
    from the shadows' memberships. (Carlini et al. [CCN22]_ instead balance
    each example into exactly half of the models; that makes the target's
    membership a deterministic function of the shadows' and so slightly
    breaks the independence the DP bound needs.)
    """
    M = check_int("n_models", n_models, minimum=1)
    N = check_int("n_examples", n_examples, minimum=2)
    return check_rng(rng).random((M, N)) < 0.5


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


def run_shadow_experiment(estimator, X, y, n_models: int = 8, rng=None,
                          verbose: bool = False) -> ShadowExperiment:
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
    y : array (N,)
        Class labels.
    n_models : int ≥ 2
    rng : None, int or numpy.random.Generator
    verbose : bool
        Show a progress bar over models.
    """
    from sklearn.base import clone
    from tqdm.auto import tqdm

    X = check_array("X", X, ndim=2)
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ParameterError(f"y must have shape ({X.shape[0]},); got y with shape {y.shape}")
    M = check_int("n_models", n_models, minimum=2)
    gen = check_rng(rng)
    N = X.shape[0]
    member = membership_matrix(M, N, gen)
    conf = np.empty((M, N))
    loss = np.empty((M, N))
    tr_acc, te_acc, eps = np.empty(M), np.empty(M), np.full(M, np.nan)
    params = estimator.get_params(deep=False)
    for m in tqdm(range(M), desc="shadow models", disable=not verbose):
        est = clone(estimator)
        seed = int(gen.integers(2**31))
        if "rng" in params:
            est.set_params(rng=seed)
        elif "random_state" in params:
            est.set_params(random_state=seed)
        est.fit(X[member[m]], y[member[m]])
        proba = np.asarray(est.predict_proba(X), dtype=np.float64)
        classes = list(est.classes_)
        col = np.array([classes.index(v) if v in classes else -1 for v in y])
        # a label the model never saw gets probability 0 via an appended zero column
        proba = np.column_stack([proba, np.zeros(N)])
        col = np.where(col < 0, proba.shape[1] - 1, col)
        conf[m] = logit_confidence(proba, col)
        loss[m] = cross_entropy_from_proba(proba, col)
        correct = np.asarray(est.predict(X)) == y
        tr_acc[m] = correct[member[m]].mean()
        te_acc[m] = correct[~member[m]].mean()
        eps[m] = float(getattr(est, "epsilon_", np.nan))
    return ShadowExperiment(membership=member, confidences=conf, losses=loss,
                            train_accuracy=tr_acc, test_accuracy=te_acc, epsilons=eps)


def _masked_mean_var(values: np.ndarray, mask: np.ndarray):
    """Per-column mean and (unbiased) variance over the rows where mask is True."""
    k = mask.sum(axis=0)
    total = np.where(mask, values, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / k
        sq = np.where(mask, (values - mean) ** 2, 0.0).sum(axis=0)
        var = sq / (k - 1)
    return mean, var, k


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
    target_confidences : array (N,)
    shadow_confidences : array (S, N)
    shadow_membership : bool array (S, N)
    mode : {"online", "offline"}
    fix_variance : bool, default True
        Use one variance per world, pooled over all examples, instead of one
        per example; [CCN22]_ recommend it with few shadow models,
        where per-example variances are too noisy.

    Notes
    -----
    Assumes φ is Gaussian in each world (checked empirically in [CCN22]_).
    An example with no "in" (or "out") shadow, or fewer than two for its own
    variance, falls back to the pooled mean / variance of all examples.
    Carlini et al. also query augmented copies of each example; this teaching
    version uses the example alone.
    """
    phi = check_array("target_confidences", target_confidences, ndim=1)
    shadows = check_array("shadow_confidences", shadow_confidences, ndim=2)
    if shadows.shape[1] != phi.size:
        raise ParameterError(f"shadow_confidences must have {phi.size} columns; "
                             f"got shape {shadows.shape}")
    member = np.asarray(shadow_membership)
    if member.shape != shadows.shape:
        raise ParameterError(f"shadow_membership must have shape {shadows.shape}; got {member.shape}")
    member = member.astype(bool)
    mode = check_choice("mode", mode, {"online", "offline"})
    if not isinstance(fix_variance, (bool, np.bool_)):
        raise TypeError(f"fix_variance must be True or False; got fix_variance={fix_variance!r}")

    def world(mask):
        mean, var, k = _masked_mean_var(shadows, mask)
        if not mask.any():
            raise ParameterError("every shadow model is on the same side for all examples; "
                                 "need shadows with and without the examples")
        pooled_mean = shadows[mask].mean()
        mean = np.where(k > 0, mean, pooled_mean)
        ok = k >= 2
        if ok.any():
            pooled_var = float(np.sum(np.where(ok, var * (k - 1), 0.0)) / np.sum(k[ok] - 1))
        else:
            pooled_var = float(shadows[mask].var())
        pooled_var = max(pooled_var, 1e-12)
        if fix_variance:
            var = np.full(phi.size, pooled_var)
        else:
            var = np.where(ok, np.maximum(var, 1e-12), pooled_var)
        return mean, np.sqrt(var)

    mu_out, sd_out = world(~member)
    if mode == "offline":
        return stats.norm.logcdf(phi, loc=mu_out, scale=sd_out)
    mu_in, sd_in = world(member)
    return (stats.norm.logpdf(phi, loc=mu_in, scale=sd_in)
            - stats.norm.logpdf(phi, loc=mu_out, scale=sd_out))


def _targets(experiment: ShadowExperiment, targets):
    if not isinstance(experiment, ShadowExperiment):
        raise TypeError(f"experiment must be a ShadowExperiment; got {type(experiment).__name__}")
    M = experiment.n_models
    if targets is None:
        return list(range(M))
    check_array("targets", targets, ndim=(0, 1), allow_bool=False)   # real, finite, ≤ 1-D
    t = np.atleast_1d(np.asarray(targets))
    if t.size == 0 or not np.issubdtype(t.dtype, np.integer) or t.min() < 0 or t.max() >= M:
        raise ParameterError(f"targets must be model indices in [0, {M - 1}]; got targets={targets!r}")
    return [int(v) for v in t]


def _pool(experiment: ShadowExperiment, ts, scores, low_fprs, name) -> AttackResult:
    """One ROC for several target models, each target weighing the same.

    Member i of target m gets weight 1/(#members of m), non-member 1/(#non-members
    of m), so at each threshold TPR = mean_m TPR_m and FPR = mean_m FPR_m: the
    pooled curve is an average of per-target tests and, like each of them,
    obeys the DP bound (the region of :func:`dp_roc_bound` is convex).
    """
    labels = [experiment.membership[t] for t in ts]
    if any(lab.all() or not lab.any() for lab in labels):
        raise ParameterError("a target model has no members or no non-members; use more examples")
    weights = [np.where(lab, 1.0 / lab.sum(), 1.0 / (~lab).sum()) for lab in labels]
    return roc_from_scores(np.concatenate(scores), np.concatenate(labels),
                           sample_weight=np.concatenate(weights), low_fprs=low_fprs, name=name)


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
    targets : int or sequence of int, optional
        Which models to attack (default: all).
    mode, fix_variance : see :func:`lira_scores`.
    low_fprs : sequence of float
    name : str, optional
    """
    ts = _targets(experiment, targets)
    if experiment.n_models < 2:
        raise ParameterError("LiRA needs at least one shadow model besides the target")
    scores = []
    for t in ts:
        others = np.arange(experiment.n_models) != t
        scores.append(lira_scores(experiment.confidences[t], experiment.confidences[others],
                                  experiment.membership[others], mode=mode,
                                  fix_variance=fix_variance))
    return _pool(experiment, ts, scores, low_fprs, name if name is not None else f"LiRA ({mode})")


def loss_attack(experiment: ShadowExperiment, targets=None, *, low_fprs=DEFAULT_LOW_FPRS,
                name: str = "loss threshold") -> AttackResult:
    """The loss-threshold attack [YGFJ18]_ on each target model of ``experiment``.

    ROC pooled over targets with equal weights, as in :func:`lira_attack`.

    Needs no shadow models: the score is minus the target's loss.
    """
    ts = _targets(experiment, targets)
    return _pool(experiment, ts, [-experiment.losses[t] for t in ts], low_fprs, name)


# ------------------------------------------------------------ the DP ceiling
def dp_roc_bound(fpr, epsilon: float, delta: float = 0.0, *, symmetric: bool = True):
    """Highest TPR any membership test can reach at a given FPR against an (ε, δ)-DP algorithm.

    For neighbouring data sets D (without x) and D' (with x), an
    (ε, δ)-DP algorithm M satisfies, for every test with false-positive rate
    FPR = P[reject "out" | D] and true-positive rate TPR = P[reject | D']
    (Kairouz, Oh and Viswanath [KOV15]_, Theorem 2.1):

        TPR ≤ e^ε · FPR + δ                      and
        TPR ≤ 1 − e^{−ε} (1 − δ − FPR)           (the symmetric condition),

    so TPR ≤ min(1, e^ε FPR + δ, 1 − e^{−ε}(1 − δ − FPR)).

    Parameters
    ----------
    fpr : float or array in [0, 1]
    epsilon : float > 0
    delta : float in [0, 1)
    symmetric : bool, default True
        Include the second (tighter for FPR > 1/(1+e^ε)) condition.

    Notes
    -----
    Both conditions hold because DP is symmetric in D, D' (for add/remove
    neighbours: x may be the one added or removed). The region is convex, so
    an attack that averages over examples, or randomises its threshold,
    stays inside it.
    """
    f = check_array("fpr", fpr, ndim=(0, 1))
    if np.any(f < 0) or np.any(f > 1):
        raise ParameterError(f"fpr must lie in [0, 1]; got fpr={fpr!r}")
    eps = check_epsilon("epsilon", epsilon)
    d = check_delta("delta", delta)
    if eps < 700:
        bound = np.minimum(1.0, math.exp(eps) * f + d)
    else:                                    # e^ε overflows: any FPR > 0 allows TPR = 1
        bound = np.where(f > 0, 1.0, min(1.0, d))
    if symmetric:
        bound = np.minimum(bound, 1.0 - math.exp(-eps) * (1.0 - d - f))
    return float(bound) if np.ndim(fpr) == 0 else bound


def dp_advantage_bound(epsilon: float, delta: float = 0.0) -> float:
    """max (TPR − FPR) over the (ε, δ)-DP region: (e^ε − 1 + 2δ) / (e^ε + 1).

    Attained at FPR = (1 − δ)/(1 + e^ε), where the two lines of
    :func:`dp_roc_bound` cross ([KOV15]_, Thm. 2.1). For δ = 0 this is
    tanh(ε/2), tighter than the bound e^ε − 1 of Yeom et al. [YGFJ18]_
    (Theorem 1), which uses only the first condition.
    """
    eps = check_epsilon("epsilon", epsilon)
    d = check_delta("delta", delta)
    return float((math.expm1(eps) + 2 * d) / (math.exp(eps) + 1)) if eps < 700 else 1.0


def dp_auc_bound(epsilon: float, delta: float = 0.0) -> float:
    """Area under the (ε, δ)-DP ROC ceiling of :func:`dp_roc_bound` (symmetric version).

    The ceiling is piecewise linear with corners at FPR = 0,
    x* = (1 − δ)/(1 + e^ε), 1 − δ and 1, so the trapezoid rule on these
    points is exact.
    """
    eps = check_epsilon("epsilon", epsilon)
    d = check_delta("delta", delta)
    xs = np.array([0.0, (1 - d) / (1 + math.exp(min(eps, 700))), 1 - d, 1.0])
    return float(np.trapezoid(dp_roc_bound(xs, eps, d), xs))
