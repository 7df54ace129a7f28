"""Answering many counting queries independently, and why it does not scale.

"If every query costs budget, how can anyone answer thousands?" The baseline answer: give
each of the k queries (:class:`~dpteach.queries.linear.LinearQueries`, sensitivity 1) its
share of the budget and add noise to each.

* :func:`laplace_answers` — basic composition, each query at ε/k: noise ``Lap(k/ε)``
  ([DR14]_ Thms 3.6, 3.16); or the Laplace mechanism on the whole answer vector at its own
  ℓ1 sensitivity;
* :func:`gaussian_answers` — a ρ-zCDP budget split over the k queries, σ = √(k/(2ρ))
  ([BS16]_), with ρ = :func:`zcdp_budget` (ε, δ);
* :func:`independent_noise_scale` and :func:`independent_max_error` — their noise scale and
  the exact expected **maximum** error over the k queries: it grows like ``k·ln k/ε`` for
  Laplace and ``√(k ln k)/ε`` for the Gaussian;
* :func:`histogram_answers` — the noisy histogram (``Lap(1/ε)`` per cell) answers every
  query at once: the simplest *synthetic data*, whose error grows with the universe
  instead of k.

Neighbouring datasets differ by adding or removing one person (the histogram changes by 1
in one cell): every guarantee here is for that relation. (Under replace-one the histogram's
ℓ1 sensitivity, and the answer vector's, doubles; a single count's stays 1.) The number of
people n only scales the reported errors.

Answers correlated through one synthetic dataset that is *learned* from a few noisy
measurements — private multiplicative weights and MWEM — are in :mod:`dpteach.queries.mwem`.

References
----------
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014.
.. [BS16] M. Bun, T. Steinke. "Concentrated Differential Privacy:
   Simplifications, Extensions, and Lower Bounds." TCC 2016: Prop. 1.3
   (zCDP ⇒ (ε, δ)-DP), Prop. 1.6 (Gaussian), Lemma 1.7 (composition).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import integrate, special

from .._validation import (DELTA_POSITIVE, EPSILON, RNG, SENSITIVITY, choice, integer, real,
                           validate)
from .linear import COUNT_MAX, HISTOGRAM, QUERIES

__all__ = [
    "laplace_answers",
    "zcdp_budget",
    "gaussian_answers",
    "independent_noise_scale",
    "independent_max_error",
    "histogram_answers",
]

#: a number of queries answered independently (closed forms: no work to bound)
K = integer(1, 10**9, example=10)
MECHANISM = choice("laplace", "gaussian")
#: the number of people n (errors are reported as a fraction of n)
PEOPLE = real(1.0, COUNT_MAX, example=100.0)


@validate(k=K, epsilon=EPSILON, mechanism=MECHANISM, delta=DELTA_POSITIVE,
          sensitivity=SENSITIVITY.or_none())
def independent_noise_scale(k: int, epsilon: float, *, mechanism: str = "laplace",
                            delta: float = 1e-6, sensitivity: float | None = None) -> float:
    """Noise scale (counts) for answering k sensitivity-1 queries independently at total ε.

    * ``"laplace"``: ``b = k/ε`` — each query gets ε/k and basic composition adds them up
      ([DR14]_ Thm 3.16); equivalently the Laplace mechanism ([DR14]_ Thm 3.6) on the answer
      vector with its worst-case ℓ1 sensitivity k. With ``sensitivity=Δ₁`` (the workload's
      own ℓ1 sensitivity, :meth:`LinearQueries.l1_sensitivity`) it is ``Δ₁/ε``.
    * ``"gaussian"``: ``σ = √(k/(2ρ))`` — each query gets ρ/k of the ρ-zCDP budget
      ([BS16]_ Prop. 1.6, Lemma 1.7), ρ = :func:`zcdp_budget` (ε, δ); with
      ``sensitivity=Δ₂`` (ℓ2) it is ``Δ₂/√(2ρ)``. ``delta`` is unused for Laplace.
    """
    if mechanism == "laplace":
        return (k if sensitivity is None else sensitivity) / epsilon
    rho = zcdp_budget(epsilon, delta)
    return (math.sqrt(k) if sensitivity is None else sensitivity) / math.sqrt(2.0 * rho)


@validate(epsilon=EPSILON, delta=DELTA_POSITIVE)
def zcdp_budget(epsilon: float, delta: float) -> float:
    """The ρ whose zCDP guarantee converts to exactly (ε, δ)-DP by [BS16]_ Prop. 1.3.

    Inverts ``ε = ρ + 2√(ρ ln(1/δ))``: ``ρ = (√(ln(1/δ) + ε) − √(ln(1/δ)))²``, written as
    ``ε² / (√(L + ε) + √L)²`` (L = ln 1/δ) so that it keeps its digits for tiny ε.
    (:func:`dpteach.accounting.zcdp_to_epsilon` with ``method="bun-steinke"`` maps it back
    to ε; the tighter ``"cks"`` conversion gives a slightly smaller ε for the same ρ.)
    """
    log_inv = -math.log(delta)
    root = math.sqrt(log_inv + epsilon) + math.sqrt(log_inv)
    return epsilon * ((epsilon / root) / root)


@validate(queries=QUERIES, hist=HISTOGRAM, epsilon=EPSILON,
          calibration=choice("basic", "l1"), rng=RNG)
def laplace_answers(queries, hist, epsilon: float, *, calibration: str = "basic",
                    rng=None) -> np.ndarray:
    """Answer every query independently with Laplace noise; ε-DP in total.

    ``calibration="basic"``: each of the k queries gets ε/k and noise ``Lap(k/ε)`` (basic
    composition, [DR14]_ Thm 3.16). ``"l1"``: the Laplace mechanism on the whole answer
    vector with its own ℓ1 sensitivity Δ₁ = :meth:`LinearQueries.l1_sensitivity`
    ([DR14]_ Thm 3.6), noise ``Lap(Δ₁/ε)`` — never worse; much better when the queries are
    disjoint (the cells of one marginal: Δ₁ = 1), about half for random queries.
    Returns the k noisy counts; the expected largest error is ``b·H_k``
    (:func:`independent_max_error`).
    """
    b = (queries.k if calibration == "basic" else queries.l1_sensitivity()) / epsilon
    return queries.answer(hist) + rng.laplace(0.0, b, size=queries.k)


@validate(queries=QUERIES, hist=HISTOGRAM, epsilon=EPSILON, delta=DELTA_POSITIVE,
          calibration=choice("basic", "l2"), rng=RNG)
def gaussian_answers(queries, hist, epsilon: float, delta: float, *,
                     calibration: str = "basic", rng=None) -> np.ndarray:
    """Answer every query independently with Gaussian noise; (ε, δ)-DP in total via zCDP.

    The budget is ρ = :func:`zcdp_budget` (ε, δ); ``"basic"`` splits it evenly, ρ/k per
    query, so ``σ = √(k/(2ρ))`` ([BS16]_ Prop. 1.6 and Lemma 1.7: ρ's add up); ``"l2"``
    uses the answer vector's own ℓ2 sensitivity Δ₂ (:meth:`LinearQueries.l2_sensitivity`),
    ``σ = Δ₂/√(2ρ)``. The noise grows like √k, not k: composition of Gaussians in zCDP.
    """
    sens = math.sqrt(queries.k) if calibration == "basic" else queries.l2_sensitivity()
    sigma = sens / math.sqrt(2.0 * zcdp_budget(epsilon, delta))
    return queries.answer(hist) + rng.normal(0.0, sigma, size=queries.k)


@validate(k=K, epsilon=EPSILON, n=PEOPLE, mechanism=MECHANISM, delta=DELTA_POSITIVE)
def independent_max_error(k: int, epsilon: float, *, n: float = 1.0,
                          mechanism: str = "laplace", delta: float = 1e-6) -> float:
    """Expected largest error of k queries answered independently (:func:`laplace_answers`,
    :func:`gaussian_answers` with ``calibration="basic"``), divided by n.

    * Laplace, ``b = k/ε``: ``|Lap(b)|`` is exponential with mean b, and the maximum of k
      independent exponentials has mean ``b·H_k`` (``H_k = 1 + ½ + … + 1/k ≈ ln k + 0.577``,
      Rényi's representation of exponential order statistics): ``k·H_k/(nε)``.
    * Gaussian, ``σ = √(k/(2ρ))``: ``σ·E max_i |Z_i|``, the expectation evaluated by
      quadrature of ``∫₀^∞ 1 − (1 − 2Φ(−t))^k dt`` (≈ σ√(2 ln 2k)).
    """
    scale = independent_noise_scale(k, epsilon, mechanism=mechanism, delta=delta)
    if mechanism == "laplace":
        factor = float(special.digamma(k + 1) + np.euler_gamma)       # H_k
    else:
        factor = _expected_max_abs_normal(k)
    return float(scale * factor / n)


@validate(queries=QUERIES, hist=HISTOGRAM, epsilon=EPSILON, rng=RNG)
def histogram_answers(queries, hist, epsilon: float, *, rng=None) -> np.ndarray:
    """Release the whole histogram with ``Lap(1/ε)`` per cell, and answer every query from it.

    The histogram has ℓ1 sensitivity 1 under add/remove-one (one person is in one cell),
    so the noisy histogram is ε-DP ([DR14]_ Thm 3.6) however many queries are asked
    afterwards (post-processing): the simplest *synthetic data*. Query i then carries the
    noise of all the cells it counts, standard deviation ``√(2 Σ_u q_i(u)²)/ε`` — up to
    ``√(2|U|)/ε``, so this wins on small universes and loses on large ones, where MWEM's
    error grows only with log|U|.
    """
    queries.answer(hist)                                      # over the universe of hist
    return queries.matrix @ (hist + rng.laplace(0.0, 1 / epsilon, size=hist.size))


@functools.lru_cache(maxsize=1024)
def _expected_max_abs_normal(k: int) -> float:
    """E max_{i ≤ k} |Z_i| for i.i.d. standard normals: ∫₀^∞ 1 − (1 − 2Φ(−t))^k dt."""
    def tail(t):
        # 1 − (1 − 2Φ(−t))^k = −expm1(k·log1p(−2Φ(−t))), accurate in both tails
        return -math.expm1(k * math.log1p(-2.0 * special.ndtr(-t)))

    # the integrand falls from 1 to 0 around √(2 ln 2k); split there for the quadrature
    mid = math.sqrt(2.0 * math.log(2.0 * k))
    a, _ = integrate.quad(tail, 0.0, mid, limit=200)
    b, _ = integrate.quad(tail, mid, mid + 40.0, limit=200)
    return a + b


# Engineering notes. On the teaching domains every scale is finite and positive: k/ε ≤
# 1e15 and √k/√(2ρ) ≤ 1e12 (ρ ≥ 2e-15 for ε ≥ 1e-6), so no draw overflows; a workload's own
# sensitivity may be 0 (queries that count nobody), and then the answers are exact, which
# is 0-DP. Tests: tests/queries/test_many_queries.py (the expected maxima against simulation
# and closed forms) and tests/test_domains.py.
