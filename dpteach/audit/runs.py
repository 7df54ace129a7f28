"""Auditing a mechanism from many runs: choose a test on half the runs, certify ε on the rest.

:func:`audit_mechanism` runs a mechanism ``n_trials`` times on a dataset D and ``n_trials``
times on a neighbour D′ and turns the outputs into a lower bound on ε that holds with the
stated confidence ([DWWZK18]_, [JUO20]_):

1. **choose a test** on the first half of each side's runs: an output event S (a threshold,
   "output > t" or "output ≤ t", or a set of histogram bins ordered by their likelihood
   ratio, as Neyman and Pearson would) and the side on which S is more likely, whichever gives
   the largest bound on these runs (scored with stricter Clopper–Pearson bounds, at α/100,
   so that an event with small counts that looks best by luck is not preferred);
2. **evaluate it** on the other half: count S on each side and turn the counts into
   ``ε ≥ ln((p_lo − δ)/p′_hi)`` with one-sided Clopper–Pearson bounds
   (:func:`dpteach.audit.bounds.epsilon_lower_bound`), or, for Gaussian noise, into a bound
   on the GDP parameter μ and the ε at δ it implies (``bound="gdp"``,
   :func:`dpteach.audit.bounds.gdp_mu_lower_bound`).

The split is what makes the confidence honest: the test is fixed before the runs that
certify the bound are looked at, so no multiple-testing correction is needed, and a correct
mechanism's bound exceeds its true ε with probability at most 1 − confidence. (Choosing the
best of many events on the *same* runs would not have that guarantee.) An audit can refute a
claim (bound > claim) but never prove one: a bound below the claim only says that this test,
with these runs, found nothing.

Too few runs can say nothing: n_eval runs per side certify at most
:func:`dpteach.audit.bounds.max_certifiable_epsilon`, so the auditor refuses an
``n_trials`` whose maximum is below the claim and says how many it needs
(:func:`dpteach.audit.bounds.audit_trials_needed`).

A *mechanism* here is a callable ``mechanism(data, size, rng)`` returning ``size``
independent outputs on ``data`` as a 1-D array of numbers (a scalar release, or a number
computed from a bigger one, e.g. an indicator of an event: post-processing cannot increase
ε). :func:`batched` turns a one-output function ``func(data, rng)`` into one.
:func:`svt_pattern_frequency` counts, by simulation, how often the sparse vector technique
(and its broken variant without query noise) outputs a given transcript, whose exact
probability is known, so an audit can be compared with the truth.

References
----------
.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer. Detecting
   violations of differential privacy. ACM CCS 2018.
.. [JUO20] M. Jagielski, J. Ullman and A. Oprea. Auditing differentially
   private machine learning: how private is private SGD? NeurIPS 2020.
.. [DRS22] J. Dong, A. Roth and W. J. Su. Gaussian differential privacy. Journal of the Royal
   Statistical Society, Series B 84(1), 2022.
.. [LSL17] M. Lyu, D. Su and N. Li. Understanding the sparse vector technique
   for differential privacy. PVLDB 10(6): 637-648, 2017.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import (DELTA, EPSILON, EPSILON_OR_ZERO, RNG, SENSITIVITY, VALUE,
                           ParameterError, anything, array, choice, function, integer, refuse,
                           validate)
from .bounds import (
    CONFIDENCE,
    audit_trials_needed,
    clopper_pearson_bounds,
    epsilon_from_probabilities,
    gdp_epsilon,
    max_certifiable_epsilon,
    mu_from_probabilities,
)
from ..mechanisms.sparse_vector import (
    sparse_vector,
    sparse_vector_without_query_noise,
)

__all__ = ["TRIALS_MAX", "AuditResult", "batched", "audit_samples", "audit_mechanism",
           "audit_convergence", "svt_pattern_frequency"]

#: most runs per side: the largest audit of notebook 21 and of the app's page (about 0.1 s
#: for NumPy's samplers; 10-20 s for a mechanism that runs a Python loop per output)
TRIALS_MAX = 10 ** 5
BINS_MAX = 1_000              #: most histogram bins
CONVERGENCE_POINTS_MAX = 20   #: most trial counts :func:`audit_convergence` evaluates
THRESHOLDS_MAX = 1_024        #: candidate thresholds tried on the selection runs
SELECTION_STRICTNESS = 100    #: the selection scores events at level α / 100 (see _objective)
SVT_RUNS_MAX = 10 ** 5        #: most runs of :func:`svt_pattern_frequency` ...
QUERY_RUNS_MAX = 2 * 10 ** 5  #: ... and most ``n_trials × len(answers)`` queries it answers


MECHANISM = function("a callable mechanism(data, size, rng) returning size numbers")
DATA = anything("an input of the mechanism (passed to it unchanged)")
N_TRIALS = integer(2, TRIALS_MAX, work=True, example=2_000)
OUTPUTS = array(ndim=1, low=-1e15, high=1e15, max_size=TRIALS_MAX, example=[0.0, 1.0, 2.0])
TRIAL_COUNTS = array(ndim=1, low=2, high=TRIALS_MAX, integers=True,
                     max_size=CONVERGENCE_POINTS_MAX, example=[100, 1_000])
TEST = choice("threshold", "histogram")
BOUND = choice("dp", "gdp")
BINS = integer(2, BINS_MAX, example=20)
QUERY_ANSWERS = array(ndim=1, low=-1e15, high=1e15, example=[1.0, 2.0])
TRANSCRIPT = array(ndim=1, min_size=0, low=0, high=1, integers=True, booleans=True,
                   text="a 1-D sequence of True/False (or 1/0)", example=[False, True])
SVT_RUNS = integer(1, SVT_RUNS_MAX, work=True, example=10)
MAX_ABOVE = integer(1, 10 ** 6)                   #: as for SparseVector
VARIANT = choice("sparse", "no_query_noise")


@dataclass(frozen=True, eq=False)
class AuditResult:
    """The outcome of one audit (:func:`audit_mechanism`, :func:`audit_samples`).

    Attributes
    ----------
    claimed_epsilon, delta, confidence : float
        The claim under test and the confidence of the bound.
    test, bound : str
        ``"threshold"`` or ``"histogram"``; ``"dp"`` or ``"gdp"``.
    n_trials, n_select, n_eval : int
        Runs per side; the first ``n_select`` chose the test, the other ``n_eval`` certify.
    event : str
        The chosen event S in words (e.g. ``"output > 1.02"``).
    threshold, above : float or None, bool or None
        For the threshold test: t, and whether S is "output > t" (True) or "output ≤ t".
    bin_edges : numpy.ndarray or None
        For the histogram test: the interior bin edges (real outputs) or the categories
        (outputs with few distinct values; other values form one more bin).
    event_bins : tuple of int or None
        The bins that make up S (indices into the bins of ``bin_edges``).
    categorical : bool or None
        For the histogram test: whether ``bin_edges`` are categories.
    numerator : str
        ``"d"`` or ``"d_prime"``: the side on which S is more likely (p).
    count, count_prime : int
        S on the evaluation runs of the numerator side, and of the other side.
    p_lo, p_prime_hi : float
        Clopper–Pearson bounds, each failing with probability ≤ (1 − confidence)/2.
    epsilon_lower_bound : float
        The audit's answer: ``ln((p_lo − δ)/p′_hi)`` (``bound="dp"``) or the ε at δ of a
        μ_lo-GDP mechanism (``bound="gdp"``, valid for mechanisms whose privacy is exactly
        that of Gaussian noise).
    mu_lower_bound : float
        μ_lo = Φ⁻¹(p_lo) − Φ⁻¹(p′_hi) (≥ 0) of the chosen event.
    max_certifiable : float
        The largest bound ``n_eval`` runs could have given (at this δ and confidence).
    outputs, outputs_prime : numpy.ndarray
        Every output on D and on D′ (selection runs first).
    """

    claimed_epsilon: float
    delta: float
    confidence: float
    test: str
    bound: str
    n_trials: int
    n_select: int
    n_eval: int
    event: str
    threshold: float | None
    above: bool | None
    bin_edges: np.ndarray | None
    event_bins: tuple | None
    categorical: bool | None
    numerator: str
    count: int
    count_prime: int
    p_lo: float
    p_prime_hi: float
    epsilon_lower_bound: float
    mu_lower_bound: float
    max_certifiable: float
    outputs: np.ndarray
    outputs_prime: np.ndarray

    @property
    def refuted(self) -> bool:
        """True when the certified bound exceeds the claimed ε: the claim is false."""
        return self.epsilon_lower_bound > self.claimed_epsilon

    @validate(outputs=array(ndim=(0, 1), min_size=0))
    def in_event(self, outputs) -> np.ndarray:
        """Whether each of ``outputs`` lies in the chosen event S (a 1-D boolean array)."""
        return _in_event(np.atleast_1d(outputs), self)

    def summary(self) -> str:
        """One line: the bound, the claim and the verdict."""
        verdict = "REFUTED" if self.refuted else "not refuted"
        return (f"{self.confidence:.0%} lower bound ε ≥ {self.epsilon_lower_bound:.3f} "
                f"({self.bound}, {self.test} test: {self.event}; counts {self.count} vs "
                f"{self.count_prime} of {self.n_eval}); claim ε = {self.claimed_epsilon:g}, "
                f"δ = {self.delta:g}: {verdict}")


@validate(func=function("a callable func(data, rng) returning one number"))
def batched(func: Callable) -> Callable:
    """Turn a one-output mechanism ``func(data, rng)`` into ``mechanism(data, size, rng)``.

    The result calls ``func`` ``size`` times with the same Generator and stacks the outputs
    (each must be one number). Slow for large ``size`` — a few microseconds per call plus
    ``func`` itself — but any mechanism can be audited this way.

    Returns
    -------
    callable
        ``mechanism(data, size, rng)``, with ``size`` a whole number of runs from 1 to
        10**5 (the most an audit draws) and ``rng`` None, a seed or a Generator.
    """
    @validate(size=integer(1, TRIALS_MAX, work=True), rng=RNG)
    def mechanism(data: Any, size: int, rng) -> np.ndarray:
        return np.array([func(data, rng) for _ in range(size)], dtype=float)

    mechanism.__name__ = f"batched({getattr(func, '__name__', 'func')})"
    return mechanism


@validate(outputs=OUTPUTS, outputs_prime=OUTPUTS, claimed_epsilon=EPSILON_OR_ZERO, delta=DELTA,
          confidence=CONFIDENCE, test=TEST, bound=BOUND, bins=BINS)
def audit_samples(outputs, outputs_prime, *, claimed_epsilon: float, delta: float = 0.0,
                  confidence: float = 0.95, test: str = "threshold", bound: str = "dp",
                  bins: int = 20) -> AuditResult:
    """Audit a claim from outputs already drawn: ``outputs`` on D, ``outputs_prime`` on D′.

    The first half of each array (``n // 2`` runs) chooses the test, the rest certifies the
    bound (see the module docstring); the runs must be independent and in the order drawn.

    Parameters
    ----------
    outputs, outputs_prime : 1-D array_like of float
        One number per run, the same number n of runs on each side; n must be large enough
        that the bound could exceed the claim (else refused, with the number needed).
    confidence : float
        A correct mechanism's bound exceeds its ε with probability ≤ 1 − confidence.
    test : {"threshold", "histogram"}
        ``"threshold"``: S = "output > t" or "output ≤ t", for outputs on a line.
        ``"histogram"``: S = a union of bins, chosen in order of their likelihood ratio; each
        distinct value its own bin when there are at most ``bins`` of them (categories),
        else ``bins`` quantile bins of the selection runs. It finds events a threshold
        cannot, e.g. outputs that only one side can produce.
    bound : {"dp", "gdp"}
        ``"dp"``: ε ≥ ln((p_lo − δ)/p′_hi), valid for every mechanism. ``"gdp"``: the
        μ-GDP bound μ ≥ Φ⁻¹(p_lo) − Φ⁻¹(p′_hi) and the ε at δ it implies ([DRS22]_), valid when
        the mechanism's privacy is exactly that of Gaussian noise (needs δ > 0).
    """
    if outputs_prime.size != outputs.size:
        raise refuse("outputs_prime.shape", outputs_prime.shape, f"({outputs.size},), as outputs")
    _check_claim(outputs.size, claimed_epsilon, delta, confidence, bound)
    return _audit(outputs, outputs_prime, claimed_epsilon, delta, confidence, test, bound, bins)


@validate(mechanism=MECHANISM, d=DATA, d_prime=DATA, claimed_epsilon=EPSILON_OR_ZERO,
          delta=DELTA, n_trials=N_TRIALS, confidence=CONFIDENCE, test=TEST, bound=BOUND,
          bins=BINS, rng=RNG)
def audit_mechanism(mechanism: Callable, d: Any, d_prime: Any, *, claimed_epsilon: float,
                    delta: float = 0.0, n_trials: int, confidence: float = 0.95,
                    test: str = "threshold", bound: str = "dp", bins: int = 20,
                    rng=None) -> AuditResult:
    """Run ``mechanism`` ``n_trials`` times on ``d`` and on ``d_prime``; certify a bound on ε.

    Draws ``mechanism(d, n_trials, rng)`` then ``mechanism(d_prime, n_trials, rng)`` and
    audits them with :func:`audit_samples`: the test is chosen on half the runs and the
    Clopper–Pearson bound certified on the other half ([DWWZK18]_, [JUO20]_). If the claim
    (ε, δ) is true, the returned bound exceeds ``claimed_epsilon`` with probability at most
    1 − ``confidence``.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, size, rng)`` → 1-D array of ``size`` numbers, independent runs on
        ``data`` (:func:`batched` adapts a one-output function).
    d, d_prime
        Neighbouring inputs, passed to ``mechanism`` unchanged.
    claimed_epsilon, delta, confidence, test, bound, bins
        As for :func:`audit_samples`.
    n_trials : int
        Runs per side; too few to be able to refute the claim are refused with the number
        needed (:func:`~dpteach.audit.bounds.audit_trials_needed`).
    """
    _check_claim(n_trials, claimed_epsilon, delta, confidence, bound)
    x = _draw(mechanism, d, "d", n_trials, rng)
    y = _draw(mechanism, d_prime, "d_prime", n_trials, rng)
    return _audit(x, y, claimed_epsilon, delta, confidence, test, bound, bins)


@validate(mechanism=MECHANISM, d=DATA, d_prime=DATA, trials=TRIAL_COUNTS,
          claimed_epsilon=EPSILON_OR_ZERO, delta=DELTA, confidence=CONFIDENCE, test=TEST,
          bound=BOUND, bins=BINS, rng=RNG)
def audit_convergence(mechanism: Callable, d: Any, d_prime: Any, trials, *,
                      claimed_epsilon: float, delta: float = 0.0, confidence: float = 0.95,
                      test: str = "threshold", bound: str = "dp", bins: int = 20,
                      rng=None) -> np.ndarray:
    """The audit's bound as the number of runs grows: one audit per entry of ``trials``.

    Draws ``max(trials)`` runs per side once and audits the first ``n`` of them for each
    ``n`` in ``trials`` (each audit is valid on its own; together they show the bound
    climbing toward the mechanism's true ε as the runs grow, roughly like
    ε − O(1/√n) for a tail event). Trial counts too small to say anything give 0.

    Parameters
    ----------
    mechanism, d, d_prime, claimed_epsilon, delta, confidence, test, bound, bins, rng
        As for :func:`audit_mechanism`.
    trials : 1-D array_like of int
        Runs per side of each audit.
    """
    _check_claim(None, claimed_epsilon, delta, confidence, bound)
    n = int(trials.max())
    x = _draw(mechanism, d, "d", n, rng)
    y = _draw(mechanism, d_prime, "d_prime", n, rng)
    out = np.zeros(trials.size)
    for i, m in enumerate(trials.astype(np.int64)):
        m = int(m)
        if max_certifiable_epsilon.__wrapped__(m - m // 2, delta=delta,
                                               confidence=confidence) > 0:
            out[i] = _audit(x[:m], y[:m], claimed_epsilon, delta, confidence, test, bound,
                            bins).epsilon_lower_bound
    return out


@validate(values=QUERY_ANSWERS, answers=TRANSCRIPT, threshold=VALUE, epsilon=EPSILON,
          n_trials=SVT_RUNS, sensitivity=SENSITIVITY, max_above=MAX_ABOVE, variant=VARIANT,
          rng=RNG)
def svt_pattern_frequency(values, answers, threshold: float, epsilon: float, n_trials: int,
                          sensitivity: float = 1.0, max_above: int = 1,
                          variant: str = "sparse", rng=None) -> int:
    """Monte Carlo: in how many of ``n_trials`` runs does the transcript start with ``answers``?

    Runs the real mechanism — :func:`~dpteach.mechanisms.sparse_vector.sparse_vector`
    (``variant="sparse"``, δ = 0) or
    :func:`~dpteach.mechanisms.sparse_vector.sparse_vector_without_query_noise`
    (``variant="no_query_noise"``, ``max_above`` ignored) — ``n_trials`` times
    on the first ``len(answers)`` queries (later queries cannot affect the
    prefix). The count is Binomial(n_trials, p) with p given exactly by
    :func:`~dpteach.mechanisms.sparse_vector.sparse_vector_pattern_probability` /
    :func:`~dpteach.mechanisms.sparse_vector.no_query_noise_pattern_probability`; two such
    counts on neighbouring query answers feed
    :func:`dpteach.audit.bounds.epsilon_lower_bound` ([LSL17]_ for the broken variant).

    Parameters
    ----------
    values : array_like, shape (m,)
        Exact query answers.
    answers : sequence of bool, length ≤ m
        The transcript prefix to count (True = ⊤).
    threshold, epsilon, sensitivity, max_above
        As for :class:`~dpteach.mechanisms.sparse_vector.SparseVector`.
    n_trials : int
        Number of runs, with ``n_trials × len(answers) ≤ 2·10**5`` (runs are simulated one
        query at a time).
    """
    pattern = answers.astype(bool)
    if pattern.size > values.size:
        raise refuse("answers", answers, f"at most as long as values ({values.size})")
    if n_trials * pattern.size > QUERY_RUNS_MAX:      # each run answers the queries one by one
        raise refuse("n_trials", n_trials, f"≤ {QUERY_RUNS_MAX:,} / len(answers) = {pattern.size}")
    if pattern.size == 0:
        return n_trials
    q = values[:pattern.size]
    hits = 0
    if variant == "no_query_noise":
        for _ in range(n_trials):
            out = sparse_vector_without_query_noise(q, threshold, epsilon, sensitivity, rng=rng)
            hits += bool(np.array_equal(out, pattern))
        return hits
    for _ in range(n_trials):
        res = sparse_vector(q, threshold, epsilon, sensitivity, max_above, rng=rng)
        hits += bool(res.n_answered == pattern.size and np.array_equal(res.answers, pattern))
    return hits


# ------------------------------------------------------------------ choosing the test
def _objective(c_num, c_den, n: int, delta: float, confidence: float, bound: str):
    """The bound each candidate event would give with these counts (vectorised).

    Scored with Clopper–Pearson bounds at a stricter level (α/100) than the evaluation's:
    among many candidate events, one with small counts often looks best on the selection
    runs by luck (the winner's curse); the stricter level prefers events with large counts,
    which hold up on the evaluation runs. This only decides which test is chosen; the
    certified bound is computed on other runs at the stated confidence.
    """
    confidence = 1.0 - (1.0 - confidence) / SELECTION_STRICTNESS
    runs = np.full(np.shape(c_num), n)
    lo, _ = clopper_pearson_bounds.__wrapped__(c_num, runs, confidence=confidence)
    _, hi = clopper_pearson_bounds.__wrapped__(c_den, runs, confidence=confidence)
    if bound == "gdp":
        return mu_from_probabilities.__wrapped__(lo, hi)
    return epsilon_from_probabilities.__wrapped__(lo, hi, delta=delta)


def _choose_threshold(x, y, delta, confidence, bound):
    """Best (t, above, numerator) on the selection runs x (on D) and y (on D′)."""
    k = x.size
    xs, ys = np.sort(x), np.sort(y)
    pooled = np.unique(np.concatenate([xs, ys]))
    if pooled.size > THRESHOLDS_MAX:
        pooled = pooled[np.unique(np.linspace(0, pooled.size - 1, THRESHOLDS_MAX).round()
                                  .astype(int))]
    a = k - np.searchsorted(xs, pooled, side="right")          # #{x > t}
    b = k - np.searchsorted(ys, pooled, side="right")          # #{y > t}
    # the four families: S = {> t} or {≤ t}, more likely on D or on D′
    fams = [(a, b, True, "d"), (b, a, True, "d_prime"),
            (k - a, k - b, False, "d"), (k - b, k - a, False, "d_prime")]
    best, choice = -1.0, (float(pooled[0]), True, "d")
    for num, den, above, side in fams:
        score = _objective(num, den, k, delta, confidence, bound)
        j = int(np.argmax(score))
        if score[j] > best:
            best, choice = float(score[j]), (float(pooled[j]), above, side)
    return choice


def _bins_of(values: np.ndarray, edges: np.ndarray, categorical: bool) -> np.ndarray:
    """Bin index of each value: categories (unseen values → the extra last bin) or edges."""
    if categorical:
        pos = np.searchsorted(edges, values)
        pos_c = np.minimum(pos, edges.size - 1)
        return np.where(edges[pos_c] == values, pos_c, edges.size)
    return np.searchsorted(edges, values, side="right")


def _choose_bins(x, y, bins, delta, confidence, bound):
    """Best (edges, categorical, event bins, numerator) on the selection runs."""
    k = x.size
    pooled = np.concatenate([x, y])
    values = np.unique(pooled)
    categorical = values.size <= bins
    edges = values if categorical else np.unique(np.quantile(pooled, np.arange(1, bins) / bins))
    n_bins = edges.size + 1
    cx = np.bincount(_bins_of(x, edges, categorical), minlength=n_bins)
    cy = np.bincount(_bins_of(y, edges, categorical), minlength=n_bins)
    ratio = (cx + 0.5) / (cy + 0.5)                   # smoothed likelihood ratio per bin
    best, choice = -1.0, (edges, categorical, (int(np.argmax(ratio)),), "d")
    for side, order in (("d", np.argsort(-ratio, kind="stable")),
                        ("d_prime", np.argsort(ratio, kind="stable"))):
        num = np.cumsum((cx if side == "d" else cy)[order])
        den = np.cumsum((cy if side == "d" else cx)[order])
        score = _objective(num, den, k, delta, confidence, bound)
        j = int(np.argmax(score))
        if score[j] > best:
            best = float(score[j])
            choice = (edges, categorical, tuple(sorted(int(i) for i in order[:j + 1])), side)
    return choice


def _in_event(values: np.ndarray, res) -> np.ndarray:
    if res.test == "threshold":
        return values > res.threshold if res.above else values <= res.threshold
    idx = _bins_of(values, res.bin_edges, res.categorical)
    return np.isin(idx, np.asarray(res.event_bins))


def _describe_bins(edges, categorical, chosen, n_bins) -> str:
    if categorical:
        vals = [edges[i] for i in chosen if i < edges.size]
        shown = ", ".join(f"{v:g}" for v in vals[:6]) + (", …" if len(vals) > 6 else "")
        other = " or unseen" if any(i >= edges.size for i in chosen) else ""
        return (f"output = {shown}{other}" if len(vals) == 1 and not other
                else f"output in {{{shown}}}{other}")
    return f"output in {len(chosen)} of {n_bins} quantile bins"


# ---------------------------------------------------------------------------- the audit
def _check_claim(n_trials: int | None, eps: float, delta: float, confidence: float,
                 bound: str) -> None:
    """The rules tying the claim to the bound and to the runs: the μ-GDP bound needs δ > 0,
    and ``n_trials`` runs must be able to certify more than the claim."""
    if bound == "gdp" and delta == 0:        # μ-GDP with μ > 0 is (ε, 0)-DP for no finite ε
        raise refuse("delta", delta, "> 0 with bound='gdp'")
    if n_trials is None:
        return
    n_eval = n_trials - n_trials // 2
    most = max_certifiable_epsilon.__wrapped__(n_eval, delta=delta, confidence=confidence)
    if n_trials < 2 or most <= eps:
        try:
            needed = audit_trials_needed.__wrapped__(eps, delta=delta, confidence=confidence)
            need = f"needs n_trials >= {needed:,}"
            need += f" (over the {TRIALS_MAX:,} allowed)" if needed > TRIALS_MAX else ""
        except ParameterError:
            need = "needs over 10**12 runs"
        allowed = (f"larger: too few to refute claimed_epsilon={eps:g} (they certify ≤ "
                   f"{most:.3g}); refuting it {need}")
        raise refuse("n_trials", n_trials, allowed)


def _draw(mechanism, data, name: str, n: int, gen) -> np.ndarray:
    what = f"the outputs of mechanism({name}, size, rng)"
    out = OUTPUTS.convert(what, mechanism(data, n, gen))
    if out.size != n:
        raise refuse(f"len({what})", out.size, f"{n}, one per run")
    return out


def _audit(x, y, eps, delta, confidence, test, bound, bins) -> AuditResult:
    """The audit itself on checked outputs x (D) and y (D′) of equal length ≥ 2."""
    n = x.size
    n_select = n // 2
    xs, ys, xe, ye = x[:n_select], y[:n_select], x[n_select:], y[n_select:]
    n_eval = n - n_select
    threshold = above = edges = event_bins = categorical = None
    if test == "threshold":
        threshold, above, numerator = _choose_threshold(xs, ys, delta, confidence, bound)
        event = f"output {'>' if above else '≤'} {threshold:.4g}"
        in_x = xe > threshold if above else xe <= threshold
        in_y = ye > threshold if above else ye <= threshold
    else:
        edges, categorical, event_bins, numerator = _choose_bins(xs, ys, bins, delta,
                                                                 confidence, bound)
        n_bins = edges.size + 1
        event = _describe_bins(edges, categorical, event_bins, n_bins)
        in_x = np.isin(_bins_of(xe, edges, categorical), event_bins)
        in_y = np.isin(_bins_of(ye, edges, categorical), event_bins)
    cx, cy = int(in_x.sum()), int(in_y.sum())
    count, count_prime = (cx, cy) if numerator == "d" else (cy, cx)
    p_lo, _ = clopper_pearson_bounds.__wrapped__(count, n_eval, confidence=confidence)
    _, p_hi = clopper_pearson_bounds.__wrapped__(count_prime, n_eval, confidence=confidence)
    # the bounds of counts from at most 10**5 runs lie strictly inside (0, 1): μ is finite
    mu = float(mu_from_probabilities.__wrapped__(p_lo, p_hi))
    if bound == "gdp":
        eps_lo = gdp_epsilon.__wrapped__(mu, delta)
    else:
        eps_lo = float(epsilon_from_probabilities.__wrapped__(p_lo, p_hi, delta=delta))
    return AuditResult(
        claimed_epsilon=eps, delta=delta, confidence=confidence, test=test, bound=bound,
        n_trials=n, n_select=n_select, n_eval=n_eval, event=event, threshold=threshold,
        above=above, bin_edges=edges, event_bins=event_bins, categorical=categorical,
        numerator=numerator,
        count=count, count_prime=count_prime, p_lo=float(p_lo), p_prime_hi=float(p_hi),
        epsilon_lower_bound=float(eps_lo), mu_lower_bound=mu,
        max_certifiable=max_certifiable_epsilon.__wrapped__(n_eval, delta=delta,
                                                            confidence=confidence),
        outputs=x, outputs_prime=y)


# Implementation notes: docs/library/audit.md.
