"""The ROC of a membership test, and the ceiling (ε, δ)-DP puts on it.

A membership-inference attack is a test of "x was not in the training set"
against "x was": every threshold on its score gives a false-positive rate
(FPR) and a true-positive rate (TPR). This module measures attacks that way and
states what differential privacy allows:

* :func:`roc_from_scores` — the ROC curve of any score-based attack, with the
  summaries [CCN22]_ recommends: the TPR at a low FPR (1e-2, 1e-3), and, for
  comparison with older work, the AUC and the membership advantage
  max(TPR − FPR) [YGFJ18]_.
* :func:`dp_roc_bound` — an (ε, δ)-DP training algorithm confines every
  membership test to the region TPR ≤ e^ε·FPR + δ and
  TPR ≤ 1 − e^{−ε}(1 − δ − FPR) (Kairouz, Oh and Viswanath [KOV15]_,
  Thm. 2.1; the hypothesis-testing view of Wasserman and Zhou [WZ10]_), with
  its best advantage (:func:`dp_advantage_bound`) and area (:func:`dp_auc_bound`).

The attacks themselves (loss threshold, shadow models, LiRA) are in
:mod:`dpteach.attacks.membership`, which re-exports this module's names.

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
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import (
    ParameterError,
    check_array,
    check_bool,
    check_delta,
    check_epsilon,
    describe,
)

__all__ = ["DEFAULT_LOW_FPRS", "AttackResult", "roc_from_scores",
           "dp_roc_bound", "dp_advantage_bound", "dp_auc_bound"]

#: FPR levels at which attacks report their TPR by default.
DEFAULT_LOW_FPRS = (1e-2, 1e-3)


# ---------------------------------------------------------------- the ROC
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


def _check_labels(name: str, value, shape: tuple) -> np.ndarray:
    """Membership labels of the given shape: booleans or 0/1 numbers, True = member."""
    arr = check_array(name, value, ndim=len(shape), min_size=0)
    if arr.shape != shape or not np.all((arr == 0) | (arr == 1)):
        raise ParameterError(f"{name} must be booleans (or 0/1), True = member, of shape "
                             f"{shape}; got {name}={describe(value)} with shape {arr.shape}")
    return arr == 1


def _check_low_fprs(low_fprs) -> tuple:
    arr = np.atleast_1d(check_array("low_fprs", low_fprs, ndim=(0, 1)))
    if np.any(arr <= 0) or np.any(arr >= 1) or arr.size > 100:
        raise ParameterError(f"low_fprs must be 1 to 100 levels in (0, 1); "
                             f"got low_fprs={describe(low_fprs)}")
    return tuple(float(a) for a in arr)


def _check_name(name):
    if not isinstance(name, str):
        raise TypeError(f"name must be a string; got name={describe(name)} of type "
                        f"{type(name).__name__}")
    return name


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
        Non-negative finite weights (TPR and FPR become weighted fractions), e.g.
        to give every target model the same weight when pooling attacks. Each
        class is rescaled by a power of two (exactly) so that sums never overflow.
    low_fprs : sequence of float in (0, 1)
        1 to 100 FPR levels at which to report the TPR [CCN22]_.
    name : str
        Label used in plots.

    Returns
    -------
    AttackResult
    """
    scores = check_array("scores", scores, ndim=1)
    labels = _check_labels("is_member", is_member, scores.shape)
    if labels.all() or not labels.any():
        raise ParameterError(f"is_member must contain both members (True) and non-members "
                             f"(False); got is_member={describe(is_member)}")
    low_fprs, name = _check_low_fprs(low_fprs), _check_name(name)
    weights = np.ones(scores.size)
    if sample_weight is not None:
        w = check_array("sample_weight", sample_weight, ndim=1)
        if w.shape != scores.shape or np.any(w < 0):
            raise ParameterError(f"sample_weight must be {scores.size} non-negative numbers; got "
                                 f"sample_weight={describe(sample_weight)} with shape {w.shape}")
        if not (w[labels].max() > 0 and w[~labels].max() > 0):
            raise ParameterError(f"sample_weight must give positive total weight to members and "
                                 f"to non-members; got sample_weight={describe(sample_weight)}")
        shift = [np.frexp(w[cls].max())[1] for cls in (labels, ~labels)]
        weights = np.ldexp(w, -np.where(labels, *shift))  # each class's max in [1/2, 1): exact
    order = np.argsort(-scores, kind="mergesort")
    s, lab, w = scores[order], labels[order], weights[order]
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


# ------------------------------------------------------------ the DP ceiling
def _check_eps_delta(epsilon, delta) -> tuple[float, float]:
    return check_epsilon("epsilon", epsilon), check_delta("delta", delta)


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
        raise ParameterError(f"fpr must lie in [0, 1]; got fpr={describe(fpr)}")
    eps, d = _check_eps_delta(epsilon, delta)
    symmetric = check_bool("symmetric", symmetric)
    if eps < 700:
        bound = np.minimum(1.0, math.exp(eps) * f + d)
    else:                                    # e^ε overflows: e^ε·FPR = e^(ε + log FPR)
        with np.errstate(divide="ignore", over="ignore"):
            bound = np.minimum(1.0, np.exp(eps + np.log(f)) + d)
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
    eps, d = _check_eps_delta(epsilon, delta)
    return float((math.expm1(eps) + 2 * d) / (math.exp(eps) + 1)) if eps < 700 else 1.0


def dp_auc_bound(epsilon: float, delta: float = 0.0) -> float:
    """Area under the (ε, δ)-DP ROC ceiling of :func:`dp_roc_bound` (symmetric version).

    The ceiling is piecewise linear with corners at FPR = 0,
    x* = (1 − δ)/(1 + e^ε), 1 − δ and 1, so the trapezoid rule on these
    points is exact.
    """
    eps, d = _check_eps_delta(epsilon, delta)
    xs = np.array([0.0, (1 - d) / (1 + math.exp(min(eps, 700))), 1 - d, 1.0])
    return float(np.trapezoid(dp_roc_bound(xs, eps, d), xs))
