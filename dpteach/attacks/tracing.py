"""Membership tracing from released means: who was in the data?

A curator releases the means of d binary attributes over n people drawn from a
population (allele frequencies of a genome study, answers to a survey). The
means look harmless: each is an average over everybody. Yet given one person's
record and a *reference* (the population frequencies, or a sample of other
people), a test can tell whether the person was among the n ([HSR+08]_,
[DSSUV15]_): it is the *fundamental law of information recovery* (see
:mod:`dpteach.attacks.reconstruction`) in its membership form. Once d is large
compared with n the test tells members apart even when every mean is released with
noise of order 1/√n; the Gaussian noise that makes the d means (ε, δ)-DP caps its
power at e^ε·α + δ however large d grows ([KOV15]_ Thm 2.1).

Neighbouring databases differ in one person's row: each mean then moves by at
most 1/n.

References
----------
.. [HSR+08] N. Homer, S. Szelinger, M. Redman, D. Duggan, W. Tembe, J.
   Muehling, J. V. Pearson, D. A. Stephan, S. F. Nelson and D. W. Craig.
   Resolving individuals contributing trace amounts of DNA to highly complex
   mixtures using high-density SNP genotyping microarrays. PLoS Genetics 4(8),
   2008 (the statistic Σ_j |y_j − p_j| − |y_j − q_j|).
.. [DSSUV15] C. Dwork, A. Smith, T. Steinke, J. Ullman and S. Vadhan. Robust
   traceability from trace amounts. FOCS 2015 (the inner-product test with a
   reference sample, robust to noise in the released means).
.. [KOV15] P. Kairouz, S. Oh and P. Viswanath. The composition theorem for
   differential privacy. ICML 2015, Thm 2.1 (the testing region of an (ε, δ)-DP
   mechanism).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._validation import (DELTA_POSITIVE, EPSILON, RNG, array, choice, integer,
                           real, refuse, validate)
from ..mechanisms.noise import gaussian_sigma
from .roc import FPR_LEVEL, AttackResult, roc_from_scores

__all__ = [
    "MAX_TRACE_ENTRIES", "FREQUENCY_RANGE",
    "population_frequencies", "means_noise_std", "tracing_statistic", "TracingResult",
    "tracing_attack", "tracing_power",
]

#: Largest n·d of the tracing data (int8: 20 MB).
MAX_TRACE_ENTRIES = 20_000_000
#: Population frequencies of :func:`population_frequencies` are uniform on this interval.
FREQUENCY_RANGE = (0.1, 0.9)

#: people (members, targets, reference sample) and attributes of a simulation
PEOPLE = integer(2, 10**5, work=True)
ATTRIBUTES = integer(1, 10**5, work=True)
#: people and attributes of the closed forms
MANY_PEOPLE = integer(2, 10**6)
MANY_ATTRIBUTES = integer(1, 10**6)
#: the standard deviation of the noise on each released mean
NOISE_STD = real(0.0, 1e6)
METHOD = choice("inner_product", "homer")
#: records, released means and reference means: finite numbers, at most 10⁷ entries
MEANS = array(ndim=1, low=-1e15, high=1e15, example=[0.5, 0.5, 0.5, 0.5])


@validate(d=integer(1, 10**6, work=True), rng=RNG)
def population_frequencies(d: int, rng=None) -> np.ndarray:
    """d attribute frequencies p_j, independent and uniform on [0.1, 0.9].

    The population of the tracing experiments: a person's attribute j is 1 with
    probability p_j, independently (a stylised model of [HSR+08]_'s SNP data).
    """
    lo, hi = FREQUENCY_RANGE
    return rng.uniform(lo, hi, d)


@validate(n=integer(1, 10**6), d=MANY_ATTRIBUTES, epsilon=EPSILON, delta=DELTA_POSITIVE)
def means_noise_std(n: int, d: int, epsilon: float, delta: float) -> float:
    """σ that makes d means of n people (ε, δ)-DP with the Gaussian mechanism.

    Replacing one person's row moves each mean of 0/1 attributes by at most 1/n,
    the vector by at most √d/n in ℓ2; σ is :func:`dpteach.mechanisms.noise.gaussian_sigma`
    of that sensitivity (the analytic calibration). It grows like √d/(nε): the
    noise that stops tracing.
    """
    return gaussian_sigma(math.sqrt(d) / n, epsilon, delta)


@validate(targets=array(ndim=(1, 2), low=-1e15, high=1e15, example=[[1, 0, 1, 0]]),
          released_means=MEANS, reference_means=MEANS, method=METHOD)
def tracing_statistic(targets, released_means, reference_means, *,
                      method: str = "inner_product") -> float | np.ndarray:
    """Membership scores of target records from released attribute means.

    * ``"inner_product"`` ([DSSUV15]_): ``⟨y − p̂, q − p̂⟩``, with q the released
      means and p̂ the reference (population) means. A member's own record pulls
      q towards y by (y − p)/n, adding about Σ_j p_j(1 − p_j)/n in expectation;
      for a non-member the expectation is 0.
    * ``"homer"`` ([HSR+08]_): ``Σ_j |y_j − p̂_j| − |y_j − q_j|``, positive when y
      is closer to the mixture than to the reference.

    ``targets`` holds m records of d attributes (0/1 or any numbers), or one record;
    the result is one score per record (a float for one record).
    """
    y = np.atleast_2d(targets)
    q, p = released_means, reference_means
    for name, means in (("released_means", q), ("reference_means", p)):
        if means.shape != (y.shape[1],):
            raise refuse(f"{name}.shape", means.shape, f"({y.shape[1]},), one per attribute")
    if method == "inner_product":
        out = (y - p) @ (q - p)
    else:
        out = np.sum(np.abs(y - p) - np.abs(y - q), axis=1)
    return float(out[0]) if targets.ndim == 1 else out


@dataclass(frozen=True)
class TracingResult:
    """Result of :func:`tracing_attack`.

    Attributes
    ----------
    roc : AttackResult
        ROC of the scores (members positive), from :func:`dpteach.attacks.roc.roc_from_scores`.
    power : float
        TPR at FPR ≤ ``fpr`` (the attack's power at that level).
    noise_std : float
        Standard deviation of the noise on each released mean.
    predicted_power : float or None
        :func:`tracing_power` for the same setting (exact reference, inner product).
    """

    member_scores: np.ndarray
    nonmember_scores: np.ndarray
    roc: AttackResult
    power: float
    fpr: float
    n: int
    d: int
    noise_std: float
    predicted_power: float | None


@validate(n=PEOPLE, d=ATTRIBUTES, noise_std=NOISE_STD, epsilon=EPSILON.or_none(),
          delta=DELTA_POSITIVE, reference_size=integer(1, 10**5, work=True).or_none(),
          n_targets=integer(1, 10**5, work=True).or_none(), fpr=FPR_LEVEL, method=METHOD,
          rng=RNG)
def tracing_attack(n: int, d: int, *, noise_std: float = 0.0, epsilon: float | None = None,
                   delta: float = 1e-5, reference_size: int | None = None,
                   n_targets: int | None = None, fpr: float = 0.05,
                   method: str = "inner_product", rng=None) -> TracingResult:
    """Simulate membership tracing from the released means of d attributes.

    Draws the population frequencies (:func:`population_frequencies`), n members
    and, as many fresh non-members as members scored, releases the members' means
    with Gaussian noise (``noise_std``, or σ = :func:`means_noise_std` for a given
    ``epsilon``), and scores members and non-members with
    :func:`tracing_statistic` against the reference: the true frequencies
    (``reference_size=None``) or the means of ``reference_size`` other fresh
    people ([DSSUV15]_'s setting). All from ``rng``, in that order.

    Parameters
    ----------
    n, d : int
        Members and attributes; n·d ≤ 2·10⁷.
    noise_std : float
        Standard deviation of the noise added to each mean.
    epsilon, delta : float, optional
        Instead of ``noise_std``: the (ε, δ) of the Gaussian mechanism on the means.
    reference_size : int, optional
        Size m of the attacker's reference sample (m·d ≤ 2·10⁷); None: the
        attacker knows the population frequencies.
    n_targets : int, optional
        Members scored (the first n_targets; as many non-members), at most n;
        default min(n, 1000); n_targets·d ≤ 2·10⁷.
    fpr : float
        The false-positive rate at which the power is read.
    """
    m = min(n, 1000) if n_targets is None else n_targets
    if m > n:
        raise refuse("n_targets", m, f"at most n = {n} (members scored, as many non-members)")
    for name, rows in (("n", n), ("n_targets", m), ("reference_size", reference_size)):
        if rows is not None and rows * d > MAX_TRACE_ENTRIES:
            raise refuse("d", d, f"≤ {MAX_TRACE_ENTRIES // rows:,} with {name} = {rows:,}")
    sigma = _noise_std(n, d, noise_std, epsilon, delta)
    p = population_frequencies.__wrapped__(d, rng)
    members = _bernoulli_rows(p, n, rng)
    q = members.sum(axis=0, dtype=np.int64) / n + rng.normal(0.0, sigma, d)
    outsiders = _bernoulli_rows(p, m, rng)
    ref = p if reference_size is None else (
        _bernoulli_rows(p, reference_size, rng).sum(axis=0, dtype=np.int64) / reference_size)
    s_in = _scores(members[:m], q, ref, method)
    s_out = _scores(outsiders, q, ref, method)
    roc = roc_from_scores(np.r_[s_in, s_out], np.r_[np.ones(m, bool), np.zeros(m, bool)],
                          low_fprs=(fpr,), name=f"tracing ({method})")
    predicted = (tracing_power.__wrapped__(n, d, noise_std=sigma, fpr=fpr)
                 if reference_size is None and method == "inner_product" else None)
    return TracingResult(s_in, s_out, roc, roc.tpr_at_fpr[fpr], fpr, n, d, sigma, predicted)


@validate(n=MANY_PEOPLE, d=MANY_ATTRIBUTES, noise_std=NOISE_STD, epsilon=EPSILON.or_none(),
          delta=DELTA_POSITIVE, fpr=FPR_LEVEL)
def tracing_power(n: int, d: int, *, noise_std: float = 0.0, epsilon: float | None = None,
                  delta: float = 1e-5, fpr: float = 0.05) -> float:
    """Power of the inner-product test at a given FPR, by a normal approximation.

    Setting of :func:`tracing_attack` with the population frequencies known
    (p_j uniform on [0.1, 0.9], v_j = p_j(1 − p_j)) and noise N(0, σ²) on each
    mean. With T = Σ_j (y_j − p_j)(q_j − p_j), summing d independent terms:

    * non-member: mean 0, variance d·(E[v²]/n + σ²E[v]);
    * member: mean d·E[v]/n, variance
      d·(E[u⁴] − E[v²])/n² + d·(n − 1)E[v²]/n² + d·σ²E[v], with u = y − p
      (E[u⁴] = E[v((1−p)³ + p³)]);

    and the power is ``P(T_member > z_{1−α}·sd_non-member)`` for normal T. Without
    noise the mean-to-spread ratio is about √(d/n)·E[v]/√E[v²]: tracing needs d
    to be large compared with n. With the DP noise of :func:`means_noise_std`,
    σ ≈ c√d/n and the ratio stays bounded as d grows: DP caps the power at
    e^ε·α + δ whatever d ([KOV15]_ Thm 2.1). Arguments as in :func:`tracing_attack`.
    """
    sigma = _noise_std(n, d, noise_std, epsilon, delta)
    ev, ev2, eu4 = _frequency_moments()
    s2 = sigma * sigma
    sd0 = math.sqrt(d * (ev2 / n + s2 * ev))
    mu1 = d * ev / n
    sd1 = math.sqrt(d * ((eu4 - ev2) / n**2 + (n - 1) * ev2 / n**2 + s2 * ev))
    threshold = stats.norm.isf(fpr) * sd0
    return float(stats.norm.sf((threshold - mu1) / sd1))


# ------------------------------------------------------------------ helpers
_CHUNK = 1 << 20                     # entries per block when generating / scoring tracing data


def _noise_std(n: int, d: int, noise_std: float, epsilon: float | None, delta: float) -> float:
    if epsilon is None:
        return noise_std
    if noise_std != 0:
        raise refuse("noise_std", noise_std, "0 when epsilon is given (it calibrates the noise)")
    return means_noise_std.__wrapped__(n, d, epsilon, delta)


def _bernoulli_rows(p: np.ndarray, rows: int, gen: np.random.Generator) -> np.ndarray:
    """``rows`` records with attribute j ~ Bernoulli(p_j), int8, generated in blocks."""
    out = np.empty((rows, p.size), dtype=np.int8)
    step = max(1, _CHUNK // p.size)
    for start in range(0, rows, step):
        stop = min(rows, start + step)
        out[start:stop] = gen.random((stop - start, p.size)) < p
    return out


def _scores(y: np.ndarray, q: np.ndarray, p: np.ndarray, method: str) -> np.ndarray:
    out = np.empty(y.shape[0])
    step = max(1, _CHUNK // y.shape[1])
    for start in range(0, y.shape[0], step):
        stop = min(y.shape[0], start + step)
        out[start:stop] = tracing_statistic.__wrapped__(y[start:stop].astype(float), q, p,
                                                        method=method)
    return out


def _frequency_moments() -> tuple[float, float, float]:
    """E[v], E[v²] and E[v·((1−p)³ + p³)] for v = p(1 − p), p uniform on FREQUENCY_RANGE
    (polynomials of degree ≤ 5: Gauss–Legendre with 5 nodes is exact)."""
    lo, hi = FREQUENCY_RANGE
    t, w = np.polynomial.legendre.leggauss(5)
    p = lo + (hi - lo) * (t + 1) / 2
    w = w / 2
    v = p * (1 - p)
    return float(w @ v), float(w @ v**2), float(w @ (v * ((1 - p) ** 3 + p**3)))


# Engineering notes: docs/library/attacks.md.
