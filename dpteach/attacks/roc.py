"""The ROC of a membership test, and the ceiling (ε, δ)-DP puts on it.

A membership-inference attack is a test of "x was not in the training set"
against "x was": every threshold on its score gives a false-positive rate
(FPR) and a true-positive rate (TPR). This module measures attacks that way, with
the summaries [CCN22]_ recommends (the full ROC, best read on log-log axes, and the
TPR at a low FPR such as 1e-2 or 1e-3) and, for comparison with older work, the AUC
and the membership advantage max(TPR − FPR) [YGFJ18]_. It also states what
differential privacy allows: an (ε, δ)-DP training algorithm confines every
membership test to a region of the ROC plane (Kairouz, Oh and Viswanath [KOV15]_,
Thm. 2.1; the hypothesis-testing view of Wasserman and Zhou [WZ10]_). The attacks
themselves are in :mod:`dpteach.attacks.membership`.

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
from typing import Any

import numpy as np

from .._validation import DELTA, EPSILON, FLAG, Domain, array, real, refuse, validate

__all__ = ["DEFAULT_LOW_FPRS", "AttackResult", "roc_from_scores",
           "dp_roc_bound", "dp_advantage_bound", "dp_auc_bound"]

#: FPR levels at which attacks report their TPR by default.
DEFAULT_LOW_FPRS = (1e-2, 1e-3)


def _flags(ndim: int, example: list) -> Domain:
    """Membership labels: booleans, or 0s and 1s, as a boolean array (True = member)."""
    numbers = array(ndim=ndim, low=0, high=1, integers=True)

    def convert(name: str, value: Any) -> np.ndarray:
        try:
            raw = np.asarray(value)
        except (TypeError, ValueError):              # ragged nested lists
            raw = None
        if raw is not None and raw.dtype == bool and raw.ndim == ndim and raw.size:
            return raw
        return numbers(name, value) == 1

    return Domain(f"a {ndim}-D array of booleans (or 0s and 1s), True = member", convert,
                  example=example, bad=["abc", None, [2, 0], [0.5, 1.0], [math.nan], []])


#: a label for plots and summaries
NAME = Domain("a string", lambda name, value: _string(name, value), example="",
              bad=[3, None, b"x", ["a"], 1.5])
#: a false-positive rate at which an attack is read
FPR_LEVEL = real(1e-6, 1 - 1e-6, example=0.05)
#: the FPR levels of the TPR summaries: 1 to 100 of them
LOW_FPRS = array(ndim=(0, 1), max_size=100, low=1e-6, high=1 - 1e-6, example=DEFAULT_LOW_FPRS)
#: scores of a test: higher means "more likely a member"
SCORES = array(ndim=1, min_size=2, example=[0.1, 0.4, 0.35, 0.8])
#: who is a member, one label per score (or per model and example)
IS_MEMBER = _flags(1, [0, 0, 1, 1])
MEMBERSHIP = _flags(2, [[1, 0], [0, 1], [1, 1], [0, 0]])
#: non-negative weights (each class needs some weight)
WEIGHTS = array(ndim=1, low=0.0, high=1e15, example=[1.0, 1.0, 1.0, 1.0])
#: false-positive rates, a number or an array
FPRS = array(ndim=(0, 1), min_size=1, low=0.0, high=1.0, example=0.1)


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


@validate(scores=SCORES, is_member=IS_MEMBER, sample_weight=WEIGHTS.or_none(),
          low_fprs=LOW_FPRS, name=NAME)
def roc_from_scores(scores, is_member, *, sample_weight=None, low_fprs=DEFAULT_LOW_FPRS,
                    name: str = "") -> AttackResult:
    """ROC, AUC, advantage and TPR at low FPR of a score-based attack.

    The attack calls an example a member when its score is at least a
    threshold; every threshold gives one (FPR, TPR) point.

    Parameters
    ----------
    scores : array (n,)
        Higher = "more likely a member".
    is_member : array of bool (n,)
        The truth; both classes must occur.
    sample_weight : array (n,), optional
        Non-negative weights (TPR and FPR become weighted fractions), e.g. to give
        every target model the same weight when pooling attacks; each class needs
        a positive total weight.
    low_fprs : float or sequence of float
        The FPR levels at which to report the TPR [CCN22]_.
    name : str
        Label used in plots.
    """
    if is_member.shape != scores.shape or is_member.all() or not is_member.any():
        raise refuse("is_member", is_member, f"{scores.size} labels (one per score), both "
                     "members (True) and non-members (False)")
    weights = np.ones(scores.size) if sample_weight is None else sample_weight
    if weights.shape != scores.shape or 0 in (weights[is_member].max(), weights[~is_member].max()):
        raise refuse("sample_weight", sample_weight, f"{scores.size} weights, > 0 in each class")
    order = np.argsort(-scores, kind="mergesort")
    s, lab, w = scores[order], is_member[order], weights[order]
    # the last index of each run of equal scores: thresholds between distinct scores
    last = np.r_[np.flatnonzero(np.diff(s) != 0), s.size - 1]
    tp = np.cumsum(np.where(lab, w, 0.0))
    fp = np.cumsum(np.where(lab, 0.0, w))
    tpr = np.r_[0.0, tp[last] / tp[-1]]
    fpr = np.r_[0.0, fp[last] / fp[-1]]
    thresholds = np.r_[np.inf, s[last]]
    auc = float(np.trapezoid(tpr, fpr))
    low = {float(a): float(tpr[fpr <= a + 1e-15].max()) for a in np.atleast_1d(low_fprs)}
    return AttackResult(fpr=fpr, tpr=tpr, thresholds=thresholds, auc=auc,
                        advantage=float(np.max(tpr - fpr)), tpr_at_fpr=low,
                        n_members=int(lab.sum()), n_nonmembers=int((~lab).sum()), name=name)


# ------------------------------------------------------------ the DP ceiling
@validate(fpr=FPRS, epsilon=EPSILON, delta=DELTA, symmetric=FLAG)
def dp_roc_bound(fpr, epsilon: float, delta: float = 0.0, *,
                 symmetric: bool = True) -> float | np.ndarray:
    """Highest TPR any membership test can reach at a given FPR against an (ε, δ)-DP algorithm.

    For neighbouring data sets D (without x) and D' (with x), an
    (ε, δ)-DP algorithm M satisfies, for every test with false-positive rate
    FPR = P[reject "out" | D] and true-positive rate TPR = P[reject | D']
    (Kairouz, Oh and Viswanath [KOV15]_, Theorem 2.1):

        TPR ≤ e^ε · FPR + δ                      and
        TPR ≤ 1 − e^{−ε} (1 − δ − FPR)           (the symmetric condition),

    so TPR ≤ min(1, e^ε FPR + δ, 1 − e^{−ε}(1 − δ − FPR)), of the shape of ``fpr``.
    ``symmetric=False`` drops the second condition (tighter for FPR > 1/(1+e^ε)).

    Both conditions hold because DP is symmetric in D, D' (for add/remove
    neighbours: x may be the one added or removed). The region is convex, so
    an attack that averages over examples, or randomises its threshold,
    stays inside it.
    """
    if epsilon < 700:
        bound = np.minimum(1.0, math.exp(epsilon) * fpr + delta)
    else:                 # e^ε overflows: e^ε·FPR = e^(ε + log FPR), which may too (then 1)
        with np.errstate(divide="ignore", over="ignore"):
            bound = np.minimum(1.0, np.exp(epsilon + np.log(fpr)) + delta)
    if symmetric:
        bound = np.minimum(bound, 1.0 - math.exp(-epsilon) * (1.0 - delta - fpr))
    return float(bound) if bound.ndim == 0 else bound


@validate(epsilon=EPSILON, delta=DELTA)
def dp_advantage_bound(epsilon: float, delta: float = 0.0) -> float:
    """max (TPR − FPR) over the (ε, δ)-DP region: (e^ε − 1 + 2δ) / (e^ε + 1).

    Attained at FPR = (1 − δ)/(1 + e^ε), where the two lines of
    :func:`dp_roc_bound` cross ([KOV15]_, Thm. 2.1). For δ = 0 this is
    tanh(ε/2), tighter than the bound e^ε − 1 of Yeom et al. [YGFJ18]_
    (Theorem 1), which uses only the first condition. From ε = 700 on it rounds
    to 1.
    """
    if epsilon >= 700:
        return 1.0
    return float((math.expm1(epsilon) + 2 * delta) / (math.exp(epsilon) + 1))


@validate(epsilon=EPSILON, delta=DELTA)
def dp_auc_bound(epsilon: float, delta: float = 0.0) -> float:
    """Area under the (ε, δ)-DP ROC ceiling of :func:`dp_roc_bound` (symmetric version).

    The ceiling is piecewise linear with corners at FPR = 0,
    x* = (1 − δ)/(1 + e^ε), 1 − δ and 1, so the trapezoid rule on these
    points is exact.
    """
    xs = np.array([0.0, (1 - delta) / (1 + math.exp(min(epsilon, 700))), 1 - delta, 1.0])
    return float(np.trapezoid(dp_roc_bound.__wrapped__(xs, epsilon, delta), xs))


def _string(name: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    raise NAME.refuse(name, value)


# Engineering notes: docs/library/attacks.md.
