"""Auditing with one training run: canaries, guesses and abstention ([SNJ23]_).

Auditing DP-SGD the many-runs way (:mod:`dpteach.audit.runs`) needs hundreds of trained
models. Steinke, Nasr and Jagielski ([SNJ23]_) audit with **one**: put m *canaries* in the
training set, each independently with probability ½ (S_i = +1 in, −1 out); train once; score
every canary from the trained model (e.g. how well the model fits it); guess "in" (+1) for the
r₊ highest scores and "out" (−1) for the r₋ lowest, and **abstain** on the rest. If the
training run is (ε, δ)-DP with respect to each canary, the number W of correct guesses among
the r = r₊ + r₋ made is, up to a δ term, no more likely to be large than for r independent
coins that land right with probability e^ε/(1 + e^ε) — the accuracy of ε-DP randomized
response. Their bound (the p-value computed in their Appendix D):

``P[W ≥ v] ≤ P[Binomial(r, q) ≥ v] + 2mδ · max_{1≤i≤v} (1/i)·P[v − i ≤ Binomial(r, q) < v]``,
``q = e^ε/(1 + e^ε)``,

so observing v correct guesses rejects "(ε, δ)-DP" at level β whenever the right side is below
β; :func:`one_run_audit_bound` returns the largest such ε (for m = 1000, r = 100, v = 75,
δ = 1e-4, β = 0.05 it is 0.673, their example). Abstaining is what makes the audit sharp:
the auditor only bets on the canaries it is surest about.

The number of guesses must be fixed before the run is looked at (here: by ``k_plus`` and
``k_minus``); choosing it afterwards, as the one that gives the best bound, voids the
guarantee.

References
----------
.. [SNJ23] T. Steinke, M. Nasr and M. Jagielski. Privacy auditing with one (1) training run.
   NeurIPS 2023 (arXiv:2305.08846).
.. [ACG16] M. Abadi, A. Chu, I. Goodfellow, H. B. McMahan, I. Mironov,
   K. Talwar and L. Zhang. Deep learning with differential privacy. CCS 2016,
   Algorithm 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats
from sklearn.base import clone

from .._validation import (DELTA, EPSILON_OR_ZERO, RNG, Domain, array, instance_of, integer, real,
                           refuse, validate)
from ..learning.dpsgd import DPSGDClassifier

__all__ = ["CANARIES_MAX", "one_run_p_value", "one_run_audit_bound", "one_run_guesses",
           "OneRunAudit", "one_run_audit", "add_canaries", "canary_scores", "OneRunDPSGD",
           "one_run_audit_dpsgd"]

M_MAX = 10 ** 9            #: most canaries m in the bound (its terms are sums over ≤ r ≤ m)
GUESSES_MAX = 10 ** 6      #: most guesses r the bound sums over (and most scores)
CANARIES_MAX = 5_000       #: most canaries in a DP-SGD run (one feature column each)
ENTRIES_MAX = 2 * 10 ** 7  #: most entries (rows × columns) of the training matrix with canaries

#: canaries m, guesses r and correct guesses v of the bound (r ≤ m and v ≤ r)
CANARIES = integer(1, M_MAX, example=1_000)
GUESSES = integer(0, GUESSES_MAX, example=100)
CORRECT_GUESSES = integer(0, GUESSES_MAX, example=75)
#: the level β of the bound: 1 − confidence, from 10⁻⁶ to even odds
BETA = real(1e-6, 0.5, example=0.05)
SCORES = array(ndim=1, max_size=GUESSES_MAX, example=[0.1, 5.0, -3.0, 2.0])
INCLUDED = array(ndim=1, low=0, high=1, integers=True, booleans=True, max_size=GUESSES_MAX,
                 text="a 1-D array of True/False (or 1/0), one per canary",
                 example=[True, False, True, False])
#: guesses "in" (k_plus) and "out" (k_minus)
K_GUESSES = integer(0, GUESSES_MAX, example=1)
#: the real training data, and the canaries (the network computes in float32: |x| ≤ 1e15)
FEATURES = array(ndim=2, low=-1e15, high=1e15)
LABELS = array(ndim=1, dtype=None, text="class labels: a 1-D array of finite numbers")
N_CANARIES = integer(2, CANARIES_MAX, work=True, example=10)
#: the canary's feature value
CANARY_SCALE = real(1e-3, 1e6, example=1.0)
CLASSIFIER = instance_of(DPSGDClassifier, "a DPSGDClassifier, unfitted (cloned, then trained)")


FITTED_CLASSIFIER = Domain("a fitted DPSGDClassifier", lambda name, value: _fitted(name, value),
                           bad=[None, DPSGDClassifier()])


@validate(m=CANARIES, r=GUESSES, v=CORRECT_GUESSES, epsilon=EPSILON_OR_ZERO, delta=DELTA)
def one_run_p_value(m: int, r: int, v: int, epsilon: float, delta: float = 0.0) -> float:
    """How likely ≥ v correct guesses out of r are if the run is (ε, δ)-DP ([SNJ23]_, App. D).

    ``P[Bin(r, q) ≥ v] + 2mδ · max_{1≤i≤v} P[v − i ≤ Bin(r, q) < v]/i`` with
    q = e^ε/(1 + e^ε), capped at 1: their bound on the probability that an auditor guessing
    r of m canaries (each in the training set independently with probability ½) gets at least
    v right when the training run is (ε, δ)-DP. The r guesses are made among the m canaries
    (the auditor abstains on the rest), the v correct ones among the r: v ≤ r ≤ m.
    """
    if r > m:
        raise refuse("r", r, f"at most m={m}")
    if v > r:
        raise refuse("v", v, f"at most r={r}")
    return _p_value(m, r, v, epsilon, delta)


@validate(m=CANARIES, r=GUESSES, v=CORRECT_GUESSES, delta=DELTA, beta=BETA)
def one_run_audit_bound(m: int, r: int, v: int, *, delta: float = 0.0,
                        beta: float = 0.05) -> float:
    """The ε that v correct guesses out of r (of m canaries) refute at level β ([SNJ23]_).

    The largest ε at which :func:`one_run_p_value` is below β: with probability at least
    1 − β the run is not (ε′, δ)-DP for any ε′ below it. Found as their Appendix D does —
    bisection between an ε whose p-value is below β and one whose p-value is not — to 1e-12.
    For m = 1000, r = 100, v = 75, δ = 1e-4, β = 0.05 it is 0.6730 (0.7022 with δ = 0).
    Like theirs, the bisection assumes that the p-value grows with ε (it does on every grid
    of ε checked; with δ = 0 it is a binomial tail in q = e^ε/(1 + e^ε), which does).
    ``beta`` is 1 − confidence (0.05: a 95% lower bound); the bound is 0 when even ε = 0 is
    not rejected.
    """
    if one_run_p_value(m, r, v, 0.0, delta) >= beta:
        return 0.0
    lo, hi = 0.0, 1.0
    # v = r right guesses have p-value q^r: below β up to ε = logit(β^{1/r}) ≤ 12 for
    # r ≤ 10**6 and β ≥ 10⁻⁶, so the doubling stops by hi = 16
    while _p_value(m, r, v, hi, delta) < beta:
        lo, hi = hi, 2.0 * hi
    while hi - lo > 1e-12 * max(1.0, hi):
        mid = 0.5 * (lo + hi)
        if _p_value(m, r, v, mid, delta) < beta:
            lo = mid
        else:
            hi = mid
    return float(lo)


@validate(scores=SCORES, k_plus=K_GUESSES, k_minus=K_GUESSES)
def one_run_guesses(scores, k_plus: int, k_minus: int) -> np.ndarray:
    """Guesses from canary scores: +1 ("in") for the ``k_plus`` highest, −1 for the ``k_minus``
    lowest, 0 (abstain) for the rest ([SNJ23]_).

    Ties are broken by position (a stable sort), so the guesses depend on the scores only.

    Parameters
    ----------
    scores : 1-D array_like of float
        One score per canary, higher meaning "more likely in".
    k_plus, k_minus : int
        Guesses "in" and "out", with ``k_plus + k_minus ≤ len(scores)``.

    Returns
    -------
    numpy.ndarray of int8
        In {−1, 0, +1}, one per canary.
    """
    if k_plus + k_minus > scores.size:
        raise refuse("k_plus", k_plus, f"at most {scores.size} canaries - k_minus={k_minus}")
    order = np.argsort(scores, kind="stable")
    guesses = np.zeros(scores.size, dtype=np.int8)
    if k_minus:
        guesses[order[:k_minus]] = -1
    if k_plus:
        guesses[order[scores.size - k_plus:]] = 1
    return guesses


@dataclass(frozen=True, eq=False)
class OneRunAudit:
    """The outcome of a one-run audit (:func:`one_run_audit`).

    Attributes
    ----------
    m, r, v : int
        Canaries, guesses made, correct guesses.
    delta, beta : float
    epsilon_lower_bound : float
        :func:`one_run_audit_bound` (m, r, v).
    guesses : numpy.ndarray of int8
        +1 / −1 / 0 per canary.
    included : numpy.ndarray of bool
        Which canaries were in the training set.
    scores : numpy.ndarray
    """

    m: int
    r: int
    v: int
    delta: float
    beta: float
    epsilon_lower_bound: float
    guesses: np.ndarray
    included: np.ndarray
    scores: np.ndarray

    @property
    def accuracy(self) -> float:
        """v / r (0 without guesses)."""
        return self.v / self.r if self.r else 0.0


@validate(scores=SCORES, included=INCLUDED, k_plus=K_GUESSES, k_minus=K_GUESSES, delta=DELTA,
          beta=BETA)
def one_run_audit(scores, included, *, k_plus: int, k_minus: int, delta: float = 0.0,
                  beta: float = 0.05) -> OneRunAudit:
    """Guess from the scores, count the correct guesses, and bound ε ([SNJ23]_).

    Parameters
    ----------
    scores : 1-D array_like of float
        One score per canary, computed from the trained model only.
    included : 1-D array_like of bool
        Whether each canary was in the training set (each independently with probability ½,
        drawn before training).
    k_plus, k_minus : int
        Guesses "in" and "out" (:func:`one_run_guesses`), fixed in advance.
    """
    if included.size != scores.size:
        raise refuse("included.shape", included.shape, f"({scores.size},), one per canary")
    inc = included.astype(bool)
    guesses = one_run_guesses.__wrapped__(scores, k_plus, k_minus)
    made = guesses != 0
    r = int(made.sum())
    v = int(np.sum(made & ((guesses > 0) == inc)))
    eps = one_run_audit_bound.__wrapped__(scores.size, r, v, delta=delta, beta=beta)
    return OneRunAudit(m=scores.size, r=r, v=v, delta=delta, beta=beta,
                       epsilon_lower_bound=eps, guesses=guesses, included=inc, scores=scores)


# ------------------------------------------------------------------- DP-SGD with canaries
@validate(X=FEATURES, y=LABELS, n_canaries=N_CANARIES, scale=CANARY_SCALE, rng=RNG)
def add_canaries(X, y, n_canaries: int, *, scale: float = 1.0,
                 rng=None) -> tuple[np.ndarray, ...]:
    """Canaries for a one-run audit: each a new example with a feature of its own.

    Appends ``n_canaries`` zero columns to ``X``; canary i is the row that is 0 everywhere
    except ``scale`` in column d + i, with a label drawn uniformly from the labels of ``y``.
    No real example and no other canary touches canary i's column, so the weights on it move
    only when canary i is in the batch (plus the noise): like a rare word that only one
    document contains. Each canary is included independently with probability ½ ([SNJ23]_).

    Parameters
    ----------
    X : array (n, d), y : array (n,)
        The real training data (at least two classes in ``y``).
    n_canaries : int
        m, with (n + m)·(d + m) ≤ 2·10**7 entries.
    scale : float
        The canary's feature value.
    rng : None, int or numpy.random.Generator
        Draws the labels and the inclusions.

    Returns
    -------
    tuple
        ``(X_train, y_train, canaries, canary_labels, included)``: the training set (the
        real rows with the zero columns, then the included canaries), all m canary rows and
        labels, and the inclusion mask.
    """
    n, d = X.shape
    m = n_canaries
    if y.shape[0] != n:
        raise refuse("y.shape", y.shape, f"({n},), one label per row of X")
    if (n + m) * (d + m) > ENTRIES_MAX:
        raise refuse("n_canaries", m, f"with (n + it)·(d + it) ≤ 2e7 for X.shape={X.shape}")
    classes = np.unique(y)
    if classes.size < 2:
        raise refuse("y", y, "labels of at least 2 classes")
    labels = classes[rng.integers(0, classes.size, size=m)]
    included = rng.random(m) < 0.5
    canaries = np.zeros((m, d + m))
    canaries[np.arange(m), d + np.arange(m)] = scale
    X_train = np.vstack([np.hstack([X, np.zeros((n, m))]), canaries[included]])
    y_train = np.concatenate([y, labels[included]])
    return X_train, y_train, canaries, labels, included


@validate(classifier=FITTED_CLASSIFIER, canaries=FEATURES, labels=LABELS)
def canary_scores(classifier, canaries, labels) -> np.ndarray:
    """How well a trained classifier fits each canary: its label's logit minus the largest other.

    ``canaries`` and ``labels`` are those :func:`add_canaries` returns.

    Returns
    -------
    numpy.ndarray of float, shape (m,)
        Large when the model has learned the canary's label, as it can only if the canary was
        in the training set (or by the noise).
    """
    features = classifier.model_.layer_sizes[0]
    if canaries.shape[1] != features:
        raise refuse("canaries.shape", canaries.shape, f"(m, {features}): the model's features")
    if labels.shape != (canaries.shape[0],):
        raise refuse("labels.shape", labels.shape, f"({canaries.shape[0]},), one per canary")
    idx = np.minimum(np.searchsorted(classifier.classes_, labels), classifier.classes_.size - 1)
    if np.any(classifier.classes_[idx] != labels):
        raise refuse("labels", labels, f"classes the classifier knows, {classifier.classes_}")
    logits = classifier.logits(canaries)
    rows = np.arange(canaries.shape[0])
    own = logits[rows, idx]
    others = logits.copy()
    others[rows, idx] = -np.inf                  # the largest logit of the *other* classes
    return own - others.max(axis=1)


@dataclass(frozen=True, eq=False)
class OneRunDPSGD:
    """A DP-SGD run with canaries and its one-run audit (:func:`one_run_audit_dpsgd`).

    Attributes
    ----------
    audit : OneRunAudit
    claimed_epsilon, delta : float
        What the trained classifier reports (``epsilon_``, ``delta_``).
    classifier : the fitted classifier
    labels : numpy.ndarray
        The canaries' labels.
    """

    audit: OneRunAudit
    claimed_epsilon: float
    delta: float
    classifier: object
    labels: np.ndarray

    @property
    def epsilon_lower_bound(self) -> float:
        """The audit's bound."""
        return self.audit.epsilon_lower_bound

    @property
    def refuted(self) -> bool:
        """True when the bound exceeds the ε the classifier claims."""
        return self.audit.epsilon_lower_bound > self.claimed_epsilon


@validate(classifier=CLASSIFIER, X=FEATURES, y=LABELS, n_canaries=N_CANARIES,
          canary_scale=CANARY_SCALE, k_plus=K_GUESSES, k_minus=K_GUESSES, beta=BETA, rng=RNG)
def one_run_audit_dpsgd(classifier, X, y, *, n_canaries: int = 1000, canary_scale: float = 1.0,
                        k_plus: int = 100, k_minus: int = 100, beta: float = 0.05,
                        rng=None) -> OneRunDPSGD:
    """Audit one DP-SGD training run with canaries ([SNJ23]_ with [ACG16]_).

    Adds ``n_canaries`` canaries to (X, y) (:func:`add_canaries`, each in with probability
    ½), trains a clone of ``classifier`` once, scores every canary by how well the model fits
    it (:func:`canary_scores`), guesses "in" for the ``k_plus`` best-fitted and "out" for the
    ``k_minus`` worst, abstains on the rest, and bounds ε at the classifier's own δ
    (:func:`one_run_audit`). A correct DP-SGD run's bound exceeds its reported ε with
    probability at most β; a run whose reported ε is wrong — e.g.
    :class:`dpteach.audit.bugs.DPSGDClassifierWithoutClipping` — can be caught by one run.

    Each canary is one example, the privacy unit of DP-SGD (add/remove one). The training-set
    size depends on the inclusions; like DPSGDClassifier this treats n as public.

    Parameters
    ----------
    classifier : DPSGDClassifier (unfitted; cloned, its ``rng`` drives the training)
    X, y : the real training data
    n_canaries, canary_scale
        As ``n_canaries`` and ``scale`` of :func:`add_canaries`.
    k_plus, k_minus : int
        Guesses, with ``k_plus + k_minus ≤ n_canaries``.
    beta : float
        1 − confidence.
    rng : None, int or numpy.random.Generator
        Draws the canaries and their inclusion.
    """
    if k_plus + k_minus > n_canaries:
        raise refuse("k_plus", k_plus, f"at most n_canaries={n_canaries} - k_minus={k_minus}")
    X_train, y_train, canaries, labels, included = add_canaries.__wrapped__(
        X, y, n_canaries, scale=canary_scale, rng=rng)
    model = clone(classifier).fit(X_train, y_train)
    scores = canary_scores.__wrapped__(model, canaries, labels)
    audit = one_run_audit(scores, included, k_plus=k_plus, k_minus=k_minus, delta=model.delta_,
                          beta=beta)
    return OneRunDPSGD(audit=audit, claimed_epsilon=float(model.epsilon_),
                       delta=float(model.delta_), classifier=model, labels=labels)


# ---------------------------------------------------------------------------- helpers
def _fitted(name: str, value: Any) -> DPSGDClassifier:
    if isinstance(value, DPSGDClassifier) and hasattr(value, "model_"):
        return value
    raise FITTED_CLASSIFIER.refuse(name, value)


def _p_value(m: int, r: int, v: int, eps: float, delta: float) -> float:
    q = special.expit(eps)                                  # e^ε/(1 + e^ε), no overflow
    tail = float(stats.binom.sf(v - 1, r, q))              # P[Binomial(r, q) ≥ v]
    if delta == 0.0 or v == 0:
        return min(tail, 1.0)
    # max over i of P[v − i ≤ W < v]/i. Values of W more than 40 standard deviations below the
    # mean have probability < e^-800 (0 in double precision): adding them to the window
    # cannot raise it, and dividing by a larger i only lowers it, so the window is cut there
    # (the same maximum, in O(√r) instead of O(v) work).
    low = max(0, math.floor(r * q - 40.0 * math.sqrt(r * q * (1.0 - q))) - 1)
    i = np.arange(1, v - low + 1) if v > low else np.arange(1, 2)
    window = np.cumsum(stats.binom.pmf(v - i, r, q))        # P[v − i ≤ W < v]
    alpha = float(np.max(window / i))
    return min(tail + 2.0 * m * delta * alpha, 1.0)


# Implementation notes: docs/library/audit.md.
