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

* :func:`one_run_p_value`, :func:`one_run_audit_bound` — the bound from (m, r, v);
* :func:`one_run_guesses`, :func:`one_run_audit` — guesses from canary scores, and the audit;
* :func:`add_canaries`, :func:`canary_scores`, :func:`one_run_audit_dpsgd` — a DP-SGD run
  (:class:`dpteach.learning.dpsgd.DPSGDClassifier`) with canaries.

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

import numpy as np
from scipy import special, stats
from sklearn.base import clone

from .._validation import (
    ParameterError,
    check_array,
    check_delta,
    check_in_range,
    check_int,
    check_nonnegative,
    check_rng,
    describe,
)
from ..learning.dpsgd import DPSGDClassifier
from ..learning.optim import MAX_INPUT

__all__ = [
    "CANARIES_MAX",
    "one_run_p_value",
    "one_run_audit_bound",
    "one_run_guesses",
    "OneRunAudit",
    "one_run_audit",
    "add_canaries",
    "canary_scores",
    "OneRunDPSGD",
    "one_run_audit_dpsgd",
]

M_MAX = 10 ** 9            #: most canaries m in the bound (its terms are sums over ≤ r ≤ m)
GUESSES_MAX = 10 ** 6      #: most guesses r the bound sums over
CANARIES_MAX = 5_000       #: most canaries in a DP-SGD run (one feature column each)
ENTRIES_MAX = 2 * 10 ** 7  #: most entries (rows × columns) of the training matrix with canaries
CANARY_SCALE_MAX = 1e6    #: largest canary feature value (the network computes in float32)
EPSILON_SEARCH_MAX = 700.0  #: the bound is searched in [0, 700] (e^ε overflows beyond ~709)


def _check_mrv(m, r, v) -> tuple[int, int, int]:
    m = check_int("m", m, minimum=1, maximum=M_MAX)
    r = check_int("r", r, minimum=0, maximum=min(m, GUESSES_MAX))
    v = check_int("v", v, minimum=0, maximum=r)
    return m, r, v


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


def one_run_p_value(m: int, r: int, v: int, epsilon: float, delta: float = 0.0) -> float:
    """How likely ≥ v correct guesses out of r are if the run is (ε, δ)-DP ([SNJ23]_, App. D).

    ``P[Bin(r, q) ≥ v] + 2mδ · max_{1≤i≤v} P[v − i ≤ Bin(r, q) < v]/i`` with
    q = e^ε/(1 + e^ε), capped at 1: their bound on the probability that an auditor guessing
    r of m canaries (each in the training set independently with probability ½) gets at least
    v right when the training run is (ε, δ)-DP.

    Parameters
    ----------
    m : int
        Canaries, in [1, 10**9].
    r : int
        Guesses made (the rest abstain), in [0, min(m, 10**6)].
    v : int
        Correct guesses, in [0, r].
    epsilon : float
        ε ≥ 0, finite.
    delta : float
        In [0, 1).

    Returns
    -------
    float
        In [0, 1].
    """
    m, r, v = _check_mrv(m, r, v)
    epsilon = check_nonnegative("epsilon", epsilon)
    delta = check_delta("delta", delta)
    return _p_value(m, r, v, epsilon, delta)


def one_run_audit_bound(m: int, r: int, v: int, *, delta: float = 0.0,
                        beta: float = 0.05) -> float:
    """The ε that v correct guesses out of r (of m canaries) refute at level β ([SNJ23]_).

    The largest ε at which :func:`one_run_p_value` is below β: with probability at least
    1 − β the run is not (ε′, δ)-DP for any ε′ below it. Found as their Appendix D does —
    bisection between an ε whose p-value is below β and one whose p-value is not — to 1e-12.
    For m = 1000, r = 100, v = 75, δ = 1e-4, β = 0.05 it is 0.6730 (0.7022 with δ = 0).
    Like theirs, the bisection assumes that the p-value grows with ε (it does on a grid of ε
    in the tests; with δ = 0 it is a binomial tail in q = e^ε/(1 + e^ε), which does).

    Parameters
    ----------
    m, r, v : int
        As for :func:`one_run_p_value`.
    delta : float
        The δ of the claim, in [0, 1).
    beta : float
        In (0, 1): 1 − confidence (0.05 gives a 95% lower bound).

    Returns
    -------
    float
        ε_lo ≥ 0 (0 when even ε = 0 is not rejected).
    """
    m, r, v = _check_mrv(m, r, v)
    delta = check_delta("delta", delta)
    beta = check_in_range("beta", beta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    if _p_value(m, r, v, 0.0, delta) >= beta:
        return 0.0
    lo, hi = 0.0, 1.0
    while _p_value(m, r, v, hi, delta) < beta:
        lo, hi = hi, 2.0 * hi
        if hi > EPSILON_SEARCH_MAX:                    # v = r with a tiny β: beyond e^700
            return EPSILON_SEARCH_MAX
    while hi - lo > 1e-12 * max(1.0, hi):
        mid = 0.5 * (lo + hi)
        if _p_value(m, r, v, mid, delta) < beta:
            lo = mid
        else:
            hi = mid
    return float(lo)


def _check_scores(scores) -> np.ndarray:
    return check_array("scores", scores, ndim=1, min_size=1)


def _check_k(name: str, k, m: int) -> int:
    return check_int(name, k, minimum=0, maximum=m)


def one_run_guesses(scores, k_plus: int, k_minus: int) -> np.ndarray:
    """Guesses from canary scores: +1 ("in") for the ``k_plus`` highest, −1 for the ``k_minus``
    lowest, 0 (abstain) for the rest ([SNJ23]_).

    Ties are broken by position (a stable sort), so the guesses depend on the scores only.

    Parameters
    ----------
    scores : 1-D array_like of float
        One finite score per canary, higher meaning "more likely in".
    k_plus, k_minus : int
        ≥ 0 with ``k_plus + k_minus ≤ len(scores)``.

    Returns
    -------
    numpy.ndarray of int8
        In {−1, 0, +1}, one per canary.
    """
    s = _check_scores(scores)
    k_plus = _check_k("k_plus", k_plus, s.size)
    k_minus = _check_k("k_minus", k_minus, s.size)
    if k_plus + k_minus > s.size:
        raise ParameterError(f"k_plus + k_minus must be at most the number of canaries "
                             f"({s.size}); got k_plus={k_plus}, k_minus={k_minus}")
    order = np.argsort(s, kind="stable")
    guesses = np.zeros(s.size, dtype=np.int8)
    if k_minus:
        guesses[order[:k_minus]] = -1
    if k_plus:
        guesses[order[s.size - k_plus:]] = 1
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


def _check_included(included, m: int) -> np.ndarray:
    arr = check_array("included", included, ndim=1, min_size=1)
    if arr.size != m or np.any((arr != 0) & (arr != 1)):
        raise ParameterError(f"included must hold one True/False (or 0/1) per canary ({m}); "
                             f"got included={describe(included)}")
    return arr.astype(bool)


def one_run_audit(scores, included, *, k_plus: int, k_minus: int, delta: float = 0.0,
                  beta: float = 0.05) -> OneRunAudit:
    """Guess from the scores, count the correct guesses, and bound ε ([SNJ23]_).

    Parameters
    ----------
    scores : 1-D array_like of float
        One score per canary (m ≤ 10**6), computed from the trained model only.
    included : 1-D array_like of bool
        Whether each canary was in the training set (each independently with probability ½,
        drawn before training).
    k_plus, k_minus : int
        Guesses "in" and "out" (:func:`one_run_guesses`), fixed in advance.
    delta, beta
        As for :func:`one_run_audit_bound`.

    Returns
    -------
    OneRunAudit
    """
    s = _check_scores(scores)
    if s.size > GUESSES_MAX:
        raise ParameterError(f"scores must hold at most {GUESSES_MAX:,} canaries; got {s.size:,}")
    inc = _check_included(included, s.size)
    guesses = one_run_guesses(s, k_plus, k_minus)
    delta = check_delta("delta", delta)
    beta = check_in_range("beta", beta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    made = guesses != 0
    r = int(made.sum())
    v = int(np.sum(made & ((guesses > 0) == inc)))
    eps = one_run_audit_bound(s.size, r, v, delta=delta, beta=beta)
    return OneRunAudit(m=s.size, r=r, v=v, delta=delta, beta=beta, epsilon_lower_bound=eps,
                       guesses=guesses, included=inc, scores=s)


# ------------------------------------------------------------------- DP-SGD with canaries
def _check_data(X, y) -> tuple[np.ndarray, np.ndarray]:
    X = check_array("X", X, ndim=2)
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ParameterError(f"y must have one label per row of X ({X.shape[0]}); got y with "
                             f"shape {y.shape}")
    return X, y


def add_canaries(X, y, n_canaries: int, *, scale: float = 1.0, rng=None):
    """Canaries for a one-run audit: each a new example with a feature of its own.

    Appends ``n_canaries`` zero columns to ``X``; canary i is the row that is 0 everywhere
    except ``scale`` in column d + i, with a label drawn uniformly from the labels of ``y``.
    No real example and no other canary touches canary i's column, so the weights on it move
    only when canary i is in the batch (plus the noise): like a rare word that only one
    document contains. Each canary is included independently with probability ½ ([SNJ23]_).

    Parameters
    ----------
    X : array (n, d), y : array (n,)
        The real training data (finite features; at least two classes in ``y``).
    n_canaries : int
        m, in [2, 5000], with (n + m)·(d + m) ≤ 2·10**7 entries.
    scale : float
        The canary's feature value, > 0 and ≤ 1e6.
    rng : None, int or numpy.random.Generator
        Draws the labels and the inclusions.

    Returns
    -------
    tuple
        ``(X_train, y_train, canaries, canary_labels, included)``: the training set (the
        real rows with the zero columns, then the included canaries), all m canary rows and
        labels, and the inclusion mask.
    """
    X, y = _check_data(X, y)
    m = check_int("n_canaries", n_canaries, minimum=2, maximum=CANARIES_MAX)
    scale = check_in_range("scale", scale, 0.0, CANARY_SCALE_MAX, low_inclusive=False)
    n, d = X.shape
    if (n + m) * (d + m) > ENTRIES_MAX:
        raise ParameterError(f"(n + n_canaries)·(d + n_canaries) must be at most "
                             f"{ENTRIES_MAX:.0e} entries; got n={n}, d={d}, n_canaries={m}")
    classes = np.unique(y)
    if classes.size < 2:
        raise ParameterError(f"y must contain at least 2 classes; got classes {classes!r}")
    gen = check_rng(rng)
    labels = classes[gen.integers(0, classes.size, size=m)]
    included = gen.random(m) < 0.5
    canaries = np.zeros((m, d + m))
    canaries[np.arange(m), d + np.arange(m)] = scale
    X_train = np.vstack([np.hstack([X, np.zeros((n, m))]), canaries[included]])
    y_train = np.concatenate([y, labels[included]])
    return X_train, y_train, canaries, labels, included


def canary_scores(classifier, canaries, labels) -> np.ndarray:
    """How well a trained classifier fits each canary: its label's logit minus the largest other.

    Parameters
    ----------
    classifier : fitted DPSGDClassifier
    canaries : array (m, features), labels : array (m,)
        As returned by :func:`add_canaries`.

    Returns
    -------
    numpy.ndarray of float, shape (m,)
        Large when the model has learned the canary's label, as it can only if the canary was
        in the training set (or by the noise).
    """
    if not isinstance(classifier, DPSGDClassifier) or not hasattr(classifier, "model_"):
        raise TypeError(f"classifier must be a fitted DPSGDClassifier; got "
                        f"classifier={describe(classifier)}")
    Z = check_array("canaries", canaries, ndim=2)
    if Z.size and np.max(np.abs(Z)) > MAX_INPUT:
        raise ParameterError(f"canaries must have entries of magnitude <= {MAX_INPUT:g} (the "
                             f"network computes in float32); got canaries with max |x| = "
                             f"{np.max(np.abs(Z)):.3g}")
    features = classifier.model_.layer_sizes[0]
    if Z.shape[1] != features:
        raise ParameterError(f"canaries must have the classifier's {features} features; got "
                             f"canaries with shape {Z.shape}")
    labels = np.asarray(labels)
    if labels.shape != (Z.shape[0],):
        raise ParameterError(f"labels must hold one label per canary ({Z.shape[0]}); got labels "
                             f"with shape {labels.shape}")
    idx = np.searchsorted(classifier.classes_, labels)
    idx = np.minimum(idx, classifier.classes_.size - 1)
    if np.any(classifier.classes_[idx] != labels):
        raise ParameterError("labels must be classes the classifier knows; got labels with "
                             f"values outside {classifier.classes_!r}")
    logits = classifier.logits(Z)
    rows = np.arange(Z.shape[0])
    own = logits[rows, idx]
    others = logits.copy()
    others[rows, idx] = -np.inf
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
        Guesses, ≥ 0, with ``k_plus + k_minus ≤ n_canaries``.
    beta : float
        In (0, 1): 1 − confidence.
    rng : None, int or numpy.random.Generator
        Draws the canaries and their inclusion.

    Returns
    -------
    OneRunDPSGD
    """
    if not isinstance(classifier, DPSGDClassifier):
        raise TypeError(f"classifier must be a DPSGDClassifier (or a subclass); got "
                        f"classifier={describe(classifier)}")
    m = check_int("n_canaries", n_canaries, minimum=2, maximum=CANARIES_MAX)
    k_plus = _check_k("k_plus", k_plus, m)
    k_minus = _check_k("k_minus", k_minus, m)
    if k_plus + k_minus > m:
        raise ParameterError(f"k_plus + k_minus must be at most n_canaries ({m}); got "
                             f"k_plus={k_plus}, k_minus={k_minus}")
    beta = check_in_range("beta", beta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    canary_scale = check_in_range("canary_scale", canary_scale, 0.0, CANARY_SCALE_MAX,
                                  low_inclusive=False)
    X_train, y_train, canaries, labels, included = add_canaries(X, y, m, scale=canary_scale,
                                                                rng=rng)
    model = clone(classifier).fit(X_train, y_train)
    scores = canary_scores(model, canaries, labels)
    audit = one_run_audit(scores, included, k_plus=k_plus, k_minus=k_minus, delta=model.delta_,
                          beta=beta)
    claimed = float(model.epsilon_)
    return OneRunDPSGD(audit=audit, claimed_epsilon=claimed, delta=float(model.delta_),
                       classifier=model, labels=labels)
