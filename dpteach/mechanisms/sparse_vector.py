"""The sparse vector technique: many threshold queries, paying only for the "above" answers.

* :class:`SparseVector` / :func:`sparse_vector` / :func:`above_threshold` —
  answer a long stream of "is this query above the threshold?" questions and
  pay only for the (few) "above" answers ([DR14]_ Alg. 1 and 2, Thms 3.23,
  3.25); :func:`sparse_vector_noise_scales` gives their Laplace scales.
* :func:`sparse_vector_without_query_noise` — a **published, broken** variant
  kept as a lesson ([LSL17]_): it is not ε′-DP for any finite ε′.
* :func:`sparse_vector_pattern_probability` and
  :func:`no_query_noise_pattern_probability` compute the exact probability of
  any transcript of the two variants — the analysis of each mechanism's own
  output distribution, which shows the violation exactly. Estimating such
  probabilities from runs, and certifying a lower bound on ε from them, is
  auditing: see :mod:`dpteach.audit.bounds`.

A *transcript* is the sequence of ⊤ (True, "above") / ⊥ (False, "below")
answers (:data:`TRANSCRIPT`, :func:`as_transcript`).

Neighbouring datasets differ by adding or removing one record; every query
has sensitivity at most Δ (``sensitivity``) between neighbours.

All sampling uses NumPy's floating-point generators: these are teaching
implementations and inherit the floating-point caveats of [M12]_.

References
----------
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014.
.. [LSL17] M. Lyu, D. Su and N. Li. Understanding the sparse vector technique
   for differential privacy. PVLDB 10(6): 637-648, 2017.
.. [SCM14] B. Stoddard, Y. Chen and A. Machanavajjhala. Differentially private
   algorithms for empirical machine learning. arXiv:1411.5428, 2014.
.. [M12] I. Mironov. On significance of the least significant bits for
   differential privacy. CCS 2012.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._validation import (COUNT, DELTA, EPSILON, RNG, SENSITIVITY, VALUE, array, integer, refuse,
                           validate)

__all__ = [
    "SparseVector", "SparseVectorResult", "sparse_vector_noise_scales", "sparse_vector",
    "above_threshold", "sparse_vector_without_query_noise", "as_transcript",
    "sparse_vector_pattern_probability", "no_query_noise_pattern_probability",
]

MAX_ABOVE_MAX = 10 ** 6        #: largest ``max_above`` (number of ⊤ answers before halting)
QUERIES_MAX = 10 ** 6          #: most queries offered in one run (a Python loop: ~1 s)
PATTERN_LENGTH_MAX = 1_000     #: longest transcript for :func:`sparse_vector_pattern_probability`

#: c, the number of ⊤ answers after which the run halts
MAX_ABOVE = integer(1, MAX_ABOVE_MAX, example=1)
#: exact answers f_1(D), …, f_m(D) of the queries
QUERY_ANSWERS = array(ndim=1, low=-1e15, high=1e15, max_size=QUERIES_MAX,
                      example=[1.0, 3.0, 2.0])
#: a transcript (prefix): ⊤/⊥ answers as True/False (or 1/0), possibly none
TRANSCRIPT = array(ndim=1, min_size=0, low=0, high=1, integers=True, booleans=True,
                   example=[False, True], text="a 1-D sequence of True/False (or 1/0)")
#: a transcript whose exact probability is computed (time grows as its length squared)
PATTERN = array(ndim=1, min_size=0, max_size=PATTERN_LENGTH_MAX, low=0, high=1, integers=True,
                booleans=True, example=[False, True],
                text=f"a 1-D sequence of at most {PATTERN_LENGTH_MAX} True/False (or 1/0)")


# ------------------------------------------------------------------ noise scales
@validate(epsilon=EPSILON, sensitivity=SENSITIVITY, max_above=MAX_ABOVE, delta=DELTA)
def sparse_vector_noise_scales(epsilon: float, sensitivity: float = 1.0, max_above: int = 1,
                               delta: float = 0.0) -> tuple[float, float]:
    """Laplace scales ``(threshold noise σ, query noise 2σ)`` of :class:`SparseVector`.

    [DR14]_ Alg. 2 (*Sparse*) with queries of sensitivity Δ and at most
    c = ``max_above`` "above" answers:

    * δ = 0: ``σ = 2cΔ/ε`` — Sparse is c runs of AboveThreshold ([DR14]_ Alg. 1)
      each with ε/c (threshold noise ``Lap(2Δ/(ε/c))``, query noise
      ``Lap(4Δ/(ε/c))``), composed with basic composition ([DR14]_ Thm 3.25).
    * δ > 0: ``σ = √(32·c·ln(1/δ))·Δ/ε`` — each run gets
      ``ε/√(8c ln(1/δ))`` and advanced composition gives (ε, δ) ([DR14]_
      Thm 3.25 via Cor 3.21, which assumes ε < 1; larger ε is refused).
    """
    sigma = _threshold_scale(epsilon, sensitivity, max_above, delta)
    return sigma, 2.0 * sigma


@dataclass(frozen=True)
class SparseVectorResult:
    """Transcript of a sparse-vector run.

    ``answers[i]`` is True for "above" (⊤) and False for "below" (⊥), one entry
    per *answered* query; ``n_answered`` may be smaller than the number of
    queries offered when the run halted after ``max_above`` ⊤ answers.
    """

    answers: np.ndarray
    n_answered: int
    n_above: int
    halted: bool
    above_indices: np.ndarray
    epsilon: float
    delta: float


@validate(threshold=VALUE, epsilon=EPSILON, sensitivity=SENSITIVITY, max_above=MAX_ABOVE,
          delta=DELTA, rng=RNG)
class SparseVector:
    """Interactive sparse vector technique: ⊤/⊥ answers to a stream of queries.

    Implements [DR14]_ Alg. 2 (*Sparse*); with ``max_above=1`` it is exactly
    [DR14]_ Alg. 1 (*AboveThreshold*: threshold noise ``Lap(2Δ/ε)``, query noise
    ``Lap(4Δ/ε)``, halt at the first ⊤). The noisy threshold ``T̂ = T + Lap(σ)``
    is drawn once and redrawn after every ⊤; each query answer ``a_i`` gets
    fresh ``Lap(2σ)`` noise and the answer is ⊤ iff ``a_i + ν_i ≥ T̂``. After
    ``c = max_above`` ⊤ answers the object halts. Scales: see
    :func:`sparse_vector_noise_scales`. (ε, δ)-DP for *any number* of ⊥
    answers, including adaptively chosen queries ([DR14]_ Thms 3.23, 3.25).

    The caller computes each query's exact answer on the data and passes it to
    :meth:`query`; every query must have sensitivity ≤ ``sensitivity``. Only the
    ⊤/⊥ bits may be published — the noisy threshold and noisy answers are
    internal state (printing them breaks the guarantee, see
    :func:`sparse_vector_without_query_noise` for a related failure).

    Parameters
    ----------
    threshold : float
        Public threshold T.
    epsilon : float
        Total privacy budget of the whole run.
    delta : float
        0 (default, pure ε-DP), or δ > 0 with ε < 1 for the advanced-composition
        allocation.

    Attributes
    ----------
    n_answered, n_above : int
        Queries answered so far (⊤ and ⊥), and the ⊤ answers among them.
    threshold_noise_scale, query_noise_scale : float
        σ and 2σ.
    """

    def __init__(self, threshold: float, epsilon: float, sensitivity: float = 1.0,
                 max_above: int = 1, delta: float = 0.0, rng=None):
        self.threshold, self.epsilon, self.sensitivity = threshold, epsilon, sensitivity
        self.max_above, self.delta = max_above, delta
        sigma = _threshold_scale(epsilon, sensitivity, max_above, delta)
        self.threshold_noise_scale, self.query_noise_scale = sigma, 2.0 * sigma
        self._gen = rng
        self._answers: list[bool] = []
        self._n_above = 0
        self._noisy_threshold = self._fresh_threshold()

    @validate(answer=VALUE)
    def query(self, answer: float) -> bool:
        """Answer one query, given its exact value on the dataset: True (⊤, "above") or
        False (⊥, "below")."""
        if self.halted:       # its budget is spent: start a new one (and pay for it) to ask more
            raise RuntimeError(f"halted after max_above={self.max_above} 'above' answers")
        noisy = answer + float(self._gen.laplace(0.0, self.query_noise_scale))
        above = noisy >= self._noisy_threshold
        self._answers.append(bool(above))
        if above:
            self._n_above += 1
            if not self.halted:
                self._noisy_threshold = self._fresh_threshold()
        return bool(above)

    def result(self) -> SparseVectorResult:
        """The transcript so far as a :class:`SparseVectorResult`."""
        ans = np.asarray(self._answers, dtype=bool)
        return SparseVectorResult(ans, ans.size, self._n_above, self.halted,
                                  np.flatnonzero(ans), self.epsilon, self.delta)

    @property
    def n_answered(self) -> int:
        return len(self._answers)

    @property
    def n_above(self) -> int:
        return self._n_above

    @property
    def halted(self) -> bool:
        return self._n_above >= self.max_above

    @property
    def answers(self) -> list[bool]:
        return list(self._answers)

    def _fresh_threshold(self) -> float:
        return self.threshold + float(self._gen.laplace(0.0, self.threshold_noise_scale))

    def __repr__(self) -> str:
        return (f"SparseVector(threshold={self.threshold!r}, epsilon={self.epsilon!r}, "
                f"max_above={self.max_above}, answered={self.n_answered}, "
                f"above={self.n_above}, halted={self.halted})")


@validate(values=QUERY_ANSWERS, threshold=VALUE, epsilon=EPSILON, sensitivity=SENSITIVITY,
          max_above=MAX_ABOVE, delta=DELTA, rng=RNG)
def sparse_vector(values, threshold: float, epsilon: float, sensitivity: float = 1.0,
                  max_above: int = 1, delta: float = 0.0, rng=None) -> SparseVectorResult:
    """Run :class:`SparseVector` over a list of exact query answers until it halts.

    ([DR14]_ Alg. 2; with ``max_above=1``, Alg. 1.) The answers for queries
    after the halt are not consulted. The whole run is (ε, δ)-DP however many
    queries are offered. ``values`` are the exact answers ``f_1(D), …, f_m(D)`` of queries
    with sensitivity ≤ Δ; the other parameters are those of :class:`SparseVector`.
    """
    sv = SparseVector(threshold, epsilon, sensitivity, max_above, delta, rng)
    query = SparseVector.query.__wrapped__            # sv.query(v) without re-checking v
    for v in values.tolist():
        query(sv, v)
        if sv.halted:
            break
    return sv.result()


@validate(values=QUERY_ANSWERS, threshold=VALUE, epsilon=EPSILON, sensitivity=SENSITIVITY,
          rng=RNG)
def above_threshold(values, threshold: float, epsilon: float,
                    sensitivity: float = 1.0, rng=None) -> int | None:
    """AboveThreshold ([DR14]_ Alg. 1, Thm 3.23): index of the first ⊤, or None.

    Threshold noise ``Lap(2Δ/ε)``, query noise ``Lap(4Δ/ε)``; ε-DP. Releasing the
    index of the first ⊤ is the same information as the ⊥…⊥⊤ transcript. The parameters
    are those of :func:`sparse_vector` (with ``max_above=1``, δ = 0).
    """
    res = sparse_vector(values, threshold, epsilon, sensitivity, max_above=1, rng=rng)
    return int(res.above_indices[0]) if res.n_above else None


@validate(values=QUERY_ANSWERS, threshold=VALUE, epsilon=EPSILON, sensitivity=SENSITIVITY,
          rng=RNG)
def sparse_vector_without_query_noise(values, threshold: float, epsilon: float,
                                      sensitivity: float = 1.0, rng=None) -> np.ndarray:
    """**NOT differentially private** — a published sparse-vector variant, kept as a lesson.

    The threshold gets the same noise as AboveThreshold (``T̂ = T + Lap(2Δ/ε)``),
    but the query answers get *no* noise, and every query is answered (no
    cutoff): answer i is ⊤ iff ``f_i(D) ≥ T̂``. This is the variant that
    [LSL17]_ list as Alg. 5 (from [SCM14]_), claimed ε-DP; [LSL17]_ show it is
    not ε′-DP for any finite ε′. Why: with exact answers, the transcript reveals
    the *order* of the answers relative to one random cut. If ``f_1(D) = f_2(D)``
    the transcript (⊥, ⊤) is impossible, but adding one person who affects only
    ``f_2`` makes it possible — an infinite probability ratio. See
    :func:`no_query_noise_pattern_probability` for the exact probabilities. Returns one
    ⊤/⊥ answer per query.
    """
    scale = _threshold_scale(epsilon, sensitivity, 1, 0.0)      # 2Δ/ε
    noisy_threshold = threshold + rng.laplace(0.0, scale)
    return values >= noisy_threshold


# ------------------------------------------------------ exact transcript probabilities
@validate(answers=TRANSCRIPT, n_queries=COUNT.or_none())
def as_transcript(answers, n_queries: int | None = None) -> np.ndarray:
    """A transcript (prefix) of ⊤/⊥ answers (True = ⊤, "above") as a boolean array, checked.

    At most ``n_queries`` long when given (a transcript cannot answer more queries than
    were asked). An empty transcript is allowed.
    """
    if n_queries is not None and answers.size > n_queries:
        raise refuse("answers", answers, f"at most as long as values ({n_queries})")
    return answers.astype(bool)


@validate(values=QUERY_ANSWERS, answers=PATTERN, threshold=VALUE, epsilon=EPSILON,
          sensitivity=SENSITIVITY, max_above=MAX_ABOVE)
def sparse_vector_pattern_probability(values, answers, threshold: float,
                                      epsilon: float, sensitivity: float = 1.0,
                                      max_above: int = 1) -> float:
    """Exact probability that :class:`SparseVector` (δ = 0) starts with ``answers``.

    The event is "the first ``len(answers)`` answers equal ``answers``" when the
    queries have exact values ``values``. Because the threshold is redrawn after
    every ⊤ and query noise is fresh, the transcript splits into independent
    AboveThreshold segments (each ending at a ⊤), and

    ``Pr = Π_segments ∫ f_ρ(z) Π_{⊥ in segment} F_ν(T + z − q_i) · Pr[⊤ at the end] dz``

    with ρ ~ Lap(σ), ν ~ Lap(2σ), σ = 2cΔ/ε ([DR14]_ Alg. 2). Evaluated by
    Gauss–Legendre quadrature in units of σ (absolute error ~1e-13). A
    transcript that continues after the c-th ⊤ is impossible (probability 0). Time grows
    as the square of the transcript's length.
    """
    pattern = as_transcript.__wrapped__(answers, values.size)
    sigma = _threshold_scale(epsilon, sensitivity, max_above, 0.0)
    tops = np.flatnonzero(pattern)
    if tops.size > max_above or (tops.size == max_above and tops[-1] != pattern.size - 1):
        return 0.0
    d = (values[:pattern.size] - threshold) / sigma          # in units of σ
    prob, start = 1.0, 0
    for t in tops.tolist():
        prob *= _segment_probability(d[start:t + 1], True)
        start = t + 1
    if start < pattern.size:
        prob *= _segment_probability(d[start:pattern.size], False)
    return float(prob)


@validate(values=QUERY_ANSWERS, answers=TRANSCRIPT, threshold=VALUE, epsilon=EPSILON,
          sensitivity=SENSITIVITY)
def no_query_noise_pattern_probability(values, answers, threshold: float,
                                       epsilon: float, sensitivity: float = 1.0) -> float:
    """Exact probability that :func:`sparse_vector_without_query_noise` starts with ``answers``.

    With ``T̂ = T + ρ``, ρ ~ Lap(2Δ/ε) and no query noise, the transcript is ⊤
    exactly for the queries with ``q_i ≥ T̂``, so

    ``Pr = max(0, F_ρ(min_{⊤} q_i − T) − F_ρ(max_{⊥} q_i − T))``

    (empty min = +∞, empty max = −∞). Zero whenever some ⊥ query has an answer
    ≥ some ⊤ query's answer — the source of the infinite privacy loss ([LSL17]_).
    Evaluated with survival functions when both ends lie above T (no
    cancellation of two numbers near 1).
    """
    pattern = as_transcript.__wrapped__(answers, values.size)
    scale = _threshold_scale(epsilon, sensitivity, 1, 0.0)      # 2Δ/ε
    q = values[:pattern.size]
    hi = q[pattern].min() if pattern.any() else math.inf
    lo = q[~pattern].max() if (~pattern).any() else -math.inf
    if not hi > lo:
        return 0.0
    z_hi, z_lo = (hi - threshold) / scale, (lo - threshold) / scale
    if z_lo >= 0:
        p = stats.laplace.sf(z_lo) - stats.laplace.sf(z_hi)
    else:
        p = stats.laplace.cdf(z_hi) - stats.laplace.cdf(z_lo)
    return float(max(0.0, p))


# ------------------------------------------------------------------------ helpers
_QUAD_CHUNK = 4_000_000        # quadrature nodes × queries evaluated at once
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(16)


def _threshold_scale(epsilon: float, sensitivity: float, max_above: int, delta: float) -> float:
    """σ of :func:`sparse_vector_noise_scales` (its arguments already checked)."""
    if delta == 0:
        return 2.0 * max_above * sensitivity / epsilon
    if epsilon >= 1:          # delta=0 gives the pure-DP allocation
        raise refuse("epsilon", epsilon, "< 1 when delta > 0 (Dwork & Roth Cor 3.21, Thm 3.25)")
    return math.sqrt(32.0 * max_above * -math.log(delta)) * sensitivity / epsilon


def _laplace_logcdf(x, scale: float):
    """log CDF of Lap(scale), accurate in both tails."""
    x = np.asarray(x, dtype=float) / scale
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(x < 0, x - math.log(2.0), np.log1p(-0.5 * np.exp(-np.abs(x))))


def _gl_nodes(edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of the composite 16-point Gauss–Legendre rule on ``edges``."""
    a, b = edges[:-1], edges[1:]
    half = (b - a) / 2.0
    x = ((a + b) / 2.0)[:, None] + half[:, None] * _GL_NODES[None, :]
    return x.ravel(), (half[:, None] * _GL_WEIGHTS[None, :]).ravel()


def _segment_probability(d: np.ndarray, ends_above: bool) -> float:
    """One AboveThreshold segment: Pr[q_1..q_{m−1} all ⊥ (and q_m ⊤ if ends_above)].

    In units of the threshold noise scale σ (``d_i = (q_i − T)/σ``), with ρ ~ Lap(1)
    and ν ~ Lap(2): ``∫ f_ρ(v) Π_{i<m} F_ν(v − d_i) · [1 − F_ν(v − d_m)] dv``; the last
    factor is omitted (and q_m counted as ⊥) when ``ends_above`` is False. The integrand
    is below ``f_ρ(v)``, so the window ``|v| ≤ 50`` loses less than ``e^{−50}``;
    inside it a composite Gauss–Legendre rule on pieces of length ≤ ½, split at
    every kink (v = 0 and v = d_i), is accurate to ~1e-13.
    """
    if d.size == 0:
        return 1.0
    below = d[:-1] if ends_above else d
    kinks = np.concatenate([[0.0], d])
    kinks = kinks[np.abs(kinks) < 50.0]
    grid = np.linspace(-50.0, 50.0, 201)
    v, w = _gl_nodes(np.unique(np.concatenate([grid, kinks])))
    s = -np.abs(v) - math.log(2.0)                                  # log f_ρ
    if below.size:
        rows = max(1, _QUAD_CHUNK // below.size)
        for start in range(0, v.size, rows):
            vs = v[start:start + rows]
            s[start:start + rows] += _laplace_logcdf(vs[:, None] - below[None, :],
                                                     2.0).sum(axis=1)
    if ends_above:
        s = s + _laplace_logcdf(d[-1] - v, 2.0)                    # log Pr[ν ≥ T̂ − q_m]
    return float(w @ np.exp(s))


# Engineering notes. In the teaching domain (ε in [1e-6, 1e3], Δ in [1e-6, 1e6], c ≤ 10**6,
# δ ≥ 1e-50, |answers| ≤ 1e15) the scales σ lie in [2e-9, 2e18] and the answers in units of
# σ, d_i, below 1e24: nothing overflows, so no branch handles it. The quadrature of a
# segment evaluates at most 4 M (node, query) pairs at a time. A run over values is a
# Python loop (about 1.4 µs per query, 2.4 µs with the check of each answer), hence
# QUERIES_MAX. Tests:
# tests/mechanisms/test_sparse_vector.py (closed forms, exact vs sampled transcripts,
# privacy ratios) and the generated cases of tests/test_domains.py.
