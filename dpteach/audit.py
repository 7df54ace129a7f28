"""Auditing: testing a privacy claim from samples of a mechanism's output.

A proof says "this mechanism is ε-DP"; an *audit* checks the claim
empirically. Run the mechanism many times on two neighbouring datasets D and
D′, count how often some output event S occurs, and turn the two counts into
a statistically certified **lower bound** on the ε the mechanism can have: if
the bound exceeds the claimed ε, the claim is false (with the stated
confidence). An audit can refute a claim, never prove one.

This module is where testing a privacy claim starts; the chapter is split
into small modules, whose main names are re-exported here:

* :func:`empirical_epsilon_lower_bound` — the Clopper–Pearson lower bound on ε
  from the two counts ([CP34]_; the approach of [DWWZK18]_ and [JUO20]_), with
  δ = 0 and a level α per side; :mod:`dpteach.audit_bounds` has the general
  bound for a claimed δ (:func:`~dpteach.audit_bounds.epsilon_lower_bound`), the
  μ-GDP bound for Gaussian noise and the number of runs an audit needs.
* :func:`svt_pattern_frequency` — the Monte-Carlo count for the sparse vector
  technique and its broken no-query-noise variant (:mod:`dpteach.sparse_vector`),
  whose exact probabilities are known, so an audit can be compared with the truth.
* :mod:`dpteach.audit_runs` — the auditor: :func:`~dpteach.audit_runs.audit_mechanism`
  runs a mechanism on D and D′, chooses a test (a threshold or a histogram
  event) on half the runs and certifies the bound on the other half; it refuses
  run counts too small to say anything.
* :mod:`dpteach.audit_one_run` — the one-run audit of Steinke, Nasr and
  Jagielski (2023): canaries, guesses and abstention, applied to DP-SGD.
* :mod:`dpteach.audit_cases` — every correct mechanism of dpteach, and each
  planted bug (:mod:`dpteach.audit_bugs`, never to be used on data), on
  neighbouring inputs with its claim and its exact true ε.

References
----------
.. [CP34] C. J. Clopper and E. S. Pearson. The use of confidence or fiducial
   limits illustrated in the case of the binomial. Biometrika 26(4), 1934.
.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer. Detecting
   violations of differential privacy. ACM CCS 2018.
.. [JUO20] M. Jagielski, J. Ullman and A. Oprea. Auditing differentially
   private machine learning: how private is private SGD? NeurIPS 2020.
.. [LSL17] M. Lyu, D. Su and N. Li. Understanding the sparse vector technique
   for differential privacy. PVLDB 10(6): 637-648, 2017.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ._validation import (
    ParameterError,
    check_array,
    check_choice,
    check_finite,
    check_in_range,
    check_int,
    check_rng,
)
from .audit_bounds import (
    audit_trials_needed,
    clopper_pearson_bounds,
    epsilon_lower_bound,
    gdp_epsilon,
    gdp_mu_lower_bound,
    max_certifiable_epsilon,
)
from .audit_cases import AuditCase, audit_case
from .audit_one_run import (
    OneRunAudit,
    OneRunDPSGD,
    one_run_audit,
    one_run_audit_bound,
    one_run_audit_dpsgd,
    one_run_p_value,
)
from .audit_runs import AuditResult, audit_convergence, audit_mechanism, audit_samples, batched
from .sparse_vector import (
    as_transcript,
    sparse_vector,
    sparse_vector_noise_scales,
    sparse_vector_without_query_noise,
)

__all__ = [
    "empirical_epsilon_lower_bound",
    "svt_pattern_frequency",
    # re-exported from the chapter's modules
    "clopper_pearson_bounds",
    "epsilon_lower_bound",
    "gdp_mu_lower_bound",
    "gdp_epsilon",
    "max_certifiable_epsilon",
    "audit_trials_needed",
    "AuditResult",
    "batched",
    "audit_samples",
    "audit_mechanism",
    "audit_convergence",
    "OneRunAudit",
    "OneRunDPSGD",
    "one_run_p_value",
    "one_run_audit_bound",
    "one_run_audit",
    "one_run_audit_dpsgd",
    "AuditCase",
    "audit_case",
]

RUNS_MAX = 10 ** 12            #: most runs ``n``, ``n_prime`` a count may come from
N_TRIALS_MAX = 10 ** 6         #: most runs of :func:`svt_pattern_frequency`
QUERY_RUNS_MAX = 10 ** 7       #: most ``n_trials × len(answers)`` queries it answers


def empirical_epsilon_lower_bound(count: int, n: int, count_prime: int, n_prime: int,
                                  alpha: float = 1e-6) -> float:
    """A lower bound on ε certified by two Monte Carlo frequencies of one output event.

    If a mechanism produced an event S in ``count`` of ``n`` runs on D and in
    ``count_prime`` of ``n_prime`` runs on a neighbour D′, then with
    probability ≥ 1 − 2α (over the simulation)

    ``p ≥ p_lo`` and ``p′ ≤ p′_hi``  (one-sided Clopper–Pearson bounds, [CP34]_),

    so any ε for which the mechanism is ε-DP satisfies
    ``ε ≥ ln(p_lo / p′_hi)``. Returns ``max(0, ln(p_lo/p′_hi))`` (0 means the
    simulation gives no evidence). With ``count_prime = 0`` the upper bound is
    ``1 − α^{1/n′}`` ≈ ``ln(1/α)/n′``.

    Parameters
    ----------
    count, n : int
        Occurrences of S and runs on D (0 ≤ count ≤ n, 1 ≤ n ≤ 10**12).
    count_prime, n_prime : int
        The same on D′.
    alpha : float
        In (0, 0.5): each one-sided bound fails with probability ≤ α.

    Returns
    -------
    float
        ≥ 0.
    """
    n = check_int("n", n, minimum=1, maximum=RUNS_MAX)
    count = check_int("count", count, minimum=0, maximum=n)
    n_prime = check_int("n_prime", n_prime, minimum=1, maximum=RUNS_MAX)
    count_prime = check_int("count_prime", count_prime, minimum=0, maximum=n_prime)
    alpha = check_in_range("alpha", alpha, 0.0, 0.5, low_inclusive=False, high_inclusive=False)
    if count == 0:
        return 0.0
    p_lo = float(stats.beta.ppf(alpha, count, n - count + 1))
    p_hi = 1.0 if count_prime == n_prime else float(
        stats.beta.ppf(1.0 - alpha, count_prime + 1, n_prime - count_prime))
    if not (p_lo > 0 and p_hi > 0):                # also catches a NaN from scipy
        return 0.0
    return max(0.0, math.log(p_lo / p_hi))


def svt_pattern_frequency(values, answers, threshold: float, epsilon: float, n_trials: int,
                          sensitivity: float = 1.0, max_above: int = 1,
                          variant: str = "sparse", rng=None) -> int:
    """Monte Carlo: in how many of ``n_trials`` runs does the transcript start with ``answers``?

    Runs the real mechanism — :func:`~dpteach.sparse_vector.sparse_vector`
    (``variant="sparse"``, δ = 0) or
    :func:`~dpteach.sparse_vector.sparse_vector_without_query_noise`
    (``variant="no_query_noise"``, ``max_above`` ignored) — ``n_trials`` times
    on the first ``len(answers)`` queries (later queries cannot affect the
    prefix). The count is Binomial(n_trials, p) with p given exactly by
    :func:`~dpteach.sparse_vector.sparse_vector_pattern_probability` /
    :func:`~dpteach.sparse_vector.no_query_noise_pattern_probability`; two such
    counts on neighbouring query answers feed
    :func:`empirical_epsilon_lower_bound` ([LSL17]_ for the broken variant).

    Parameters
    ----------
    values : array_like, shape (m,)
        Exact query answers, finite.
    answers : sequence of bool, length ≤ m
        The transcript prefix to count (see
        :func:`~dpteach.sparse_vector.as_transcript`).
    threshold, epsilon, sensitivity, max_above
        As for :class:`~dpteach.sparse_vector.SparseVector`.
    n_trials : int
        Number of runs, in [1, 10**6], with ``n_trials × len(answers) ≤ 10**7``
        (runs are simulated one query at a time, a few microseconds each).
    variant : {"sparse", "no_query_noise"}
    rng : None, int or numpy.random.Generator

    Returns
    -------
    int
        In [0, n_trials].
    """
    vals = check_array("values", values, ndim=1, min_size=1)
    pattern = as_transcript(answers, vals.size)
    n_trials = check_int("n_trials", n_trials, minimum=1, maximum=N_TRIALS_MAX)
    if n_trials * pattern.size > QUERY_RUNS_MAX:
        raise ParameterError(f"n_trials × len(answers) must be at most {QUERY_RUNS_MAX:.0e} "
                             f"(each run answers the queries one at a time); got "
                             f"n_trials={n_trials} with {pattern.size} answers")
    variant = check_choice("variant", variant, {"sparse", "no_query_noise"})
    threshold = check_finite("threshold", threshold)
    # validate ε, Δ (and c) now, even when no run is needed (empty transcript)
    sparse_vector_noise_scales(epsilon, sensitivity, max_above if variant == "sparse" else 1)
    gen = check_rng(rng)
    L = pattern.size
    if L == 0:
        return n_trials
    q = vals[:L]
    hits = 0
    if variant == "no_query_noise":
        for _ in range(n_trials):
            out = sparse_vector_without_query_noise(q, threshold, epsilon, sensitivity, rng=gen)
            hits += bool(np.array_equal(out, pattern))
        return hits
    for _ in range(n_trials):
        res = sparse_vector(q, threshold, epsilon, sensitivity, max_above, rng=gen)
        hits += bool(res.n_answered == L and np.array_equal(res.answers, pattern))
    return hits
