"""Reconstruction from noisy subset sums (Dinur and Nissim).

The *fundamental law of information recovery*: answering too many questions
too accurately destroys privacy, whatever the questions look like. This module
makes it concrete with reconstruction; its membership form, tracing people from
released means, is :mod:`dpteach.attacks.tracing`.

**Reconstruction** ([DN03]_). A database is a secret vector x ∈ {0, 1}ⁿ (one
bit per person). The curator answers k random subset sums ``a_j = Σ_{i∈S_j} x_i
+ e_j`` with some error e. If every |e_j| ≤ E with E = o(√n), a decoder that
finds any x̂ ∈ [0, 1]ⁿ whose answers are within E of the released ones, and
rounds it, agrees with x on all but a vanishing fraction of the bits
([DN03]_: a linear program, polynomially many queries). Here the answers carry
noise of a given size, or noise calibrated to a **total** (ε, δ) over all k answers;
least squares or a linear program decodes them, and :func:`dp_recovery_bound` is the
ceiling that (ε, δ)-DP puts on what *any* attacker recovers.

Neighbouring databases differ in one person's record (one bit x_i): each
subset sum then moves by at most 1.

References
----------
.. [DN03] I. Dinur and K. Nissim. Revealing information while preserving
   privacy. PODS 2003 (reconstruction from subset sums with error o(√n) by
   linear programming; the "blatant non-privacy" of such curators).
.. [DMT07] C. Dwork, F. McSherry and K. Talwar. The price of privacy and the
   limits of LP decoding. STOC 2007 (ℓ1 decoding corrects any fraction below
   ρ* ≈ 0.239 of arbitrary errors, for random Gaussian query matrices).
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014. Thm 3.16 (basic
   composition), Sec. 8.1 (reconstruction attacks as lower bounds).
.. [BS16] M. Bun, T. Steinke. "Concentrated Differential Privacy:
   Simplifications, Extensions, and Lower Bounds." TCC 2016: Prop. 1.4 (pure
   DP ⇒ zCDP), Prop. 1.6 (Gaussian), Lemma 1.7 (composition).
.. [KOV15] P. Kairouz, S. Oh and P. Viswanath. The composition theorem for
   differential privacy. ICML 2015, Thm 2.1 (the testing region of an (ε, δ)-DP
   mechanism).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import linalg, optimize, sparse, special

from .._validation import (DELTA, RNG, Domain, array, choice, integer, one_of, real, refuse,
                           validate)
from ..accounting.zcdp import gaussian_zcdp, pure_dp_to_zcdp, rho_for_epsilon
from ..mechanisms.noise import gaussian_epsilon, gaussian_mechanism, gaussian_sigma, \
    laplace_mechanism

__all__ = [
    "MAX_N", "MAX_QUERIES", "MAX_ENTRIES", "MAX_LP_N", "MAX_LP_ENTRIES", "MAX_NOISE",
    "NOISE_KINDS", "DP_NOISE_KINDS", "DECODERS", "ACCOUNTINGS",
    "subset_sum_queries", "noisy_answers", "NoiseCalibration", "calibrate_noise",
    "private_answers", "reconstruct_least_squares", "reconstruct_lp", "fraction_recovered",
    "dp_recovery_bound", "ReconstructionResult", "reconstruction_attack",
]

#: Largest number of secret bits n.
MAX_N = 1_000
#: Largest number of queries k.
MAX_QUERIES = 20_000
#: Largest n·k (entries of the query matrix, float64: 16 MB).
MAX_ENTRIES = 2_000_000
#: Largest n for the LP decoders.
MAX_LP_N = 400
#: Largest n·k for the LP decoders (about a second).
MAX_LP_ENTRIES = 320_000
#: Largest noise size (bound, standard deviation or scale) of :func:`noisy_answers`.
MAX_NOISE = 1e9
#: Noise of given size (:func:`noisy_answers`).
NOISE_KINDS = ("none", "bounded", "gaussian", "laplace", "corrupt")
#: Noise calibrated to a total (ε, δ) (:func:`private_answers`).
DP_NOISE_KINDS = ("dp_laplace", "dp_gaussian")
DECODERS = ("least_squares", "lp_linf", "lp_l1")
ACCOUNTINGS = ("basic", "zcdp")
#: the sizes the LP decoders take
LP_SIZES = f"n ≤ {MAX_LP_N} and n·k ≤ {MAX_LP_ENTRIES}"


_ZERO_ONE_MATRIX = array(ndim=2, low=0, high=1, integers=True)
#: the n secret bits
BITS = array(ndim=1, max_size=MAX_N, low=0, high=1, integers=True, example=[0, 1, 1])
#: who is in each sum: row j is the j-th subset
QUERIES = Domain(f"a 0/1 matrix of shape (k, n), n ≤ {MAX_N}, k ≤ {MAX_QUERIES} and n·k ≤ "
                 f"{MAX_ENTRIES}", lambda name, value: _queries(name, value),
                 example=[[1, 0, 1], [0, 1, 1], [1, 1, 0], [1, 1, 1]],
                 bad=["abc", None, [[0, 2, 1]], [[0.5, 1, 0]], [0, 1, 1], [[math.nan]],
                      np.ones((1, MAX_N + 1))])
#: released answers, one per query
ANSWERS = array(ndim=1, low=-1e15, high=1e15, example=[1.0, 2.0, 1.0, 2.0])
N = integer(1, MAX_N, work=True)
K = integer(1, MAX_QUERIES, work=True)
#: the total ε of all k answers: the app's slider reaches 10⁴
TOTAL_EPSILON = real(1e-6, 1e4)
#: the total δ; δ/k stays above the Gaussian mechanism's 1e-50
TOTAL_DELTA = one_of(real(0.0, 0.0), real(1e-40, 1.0, high_open=True, example=1e-6),
                     text="0 or a number in [1e-40, 1)")
MECHANISM = choice("laplace", "gaussian")
ACCOUNTING = choice(*ACCOUNTINGS)


# ---------------------------------------------------------------- the queries
@validate(n=N, k=K, rng=RNG)
def subset_sum_queries(n: int, k: int, rng=None) -> np.ndarray:
    """k random subsets of n people, as a 0/1 matrix (row j: who is in the j-th sum).

    Each person is in each set independently with probability ½, the query
    distribution of [DN03]_'s polynomial-time attack. n people (bits), k queries,
    n·k ≤ 2·10⁶.
    """
    if n * k > MAX_ENTRIES:
        raise refuse("k", k, f"≤ {MAX_ENTRIES // n:,} with n = {n} (n·k ≤ {MAX_ENTRIES:,})")
    return rng.integers(0, 2, size=(k, n)).astype(float)


@validate(secret=BITS, queries=QUERIES, noise=choice(*NOISE_KINDS),
          size=real(0.0, MAX_NOISE), rng=RNG)
def noisy_answers(secret, queries, *, noise: str = "bounded", size: float = 0.0,
                  rng=None) -> np.ndarray:
    """The subset sums ``queries @ secret`` with errors of a given kind and size.

    * ``"none"``: exact answers (``size`` must be 0);
    * ``"bounded"``: independent uniform errors on [−size, size] (|e_j| ≤ size,
      the setting of [DN03]_; ``size`` = c·√n is "noise of order √n");
    * ``"gaussian"``: N(0, size²);
    * ``"laplace"``: Laplace with scale ``size`` (standard deviation √2·size);
    * ``"corrupt"``: a random fraction ``size`` of the answers replaced by
      uniform values on [0, |S_j|] (any value a sum of |S_j| bits could take),
      the others exact: the arbitrary errors of [DMT07]_.

    ``queries`` come from :func:`subset_sum_queries`; ``size`` is the bound, standard
    deviation or scale, and for ``"corrupt"`` the fraction, at most 1.
    """
    most = {"none": 0.0, "corrupt": 1.0}.get(noise, MAX_NOISE)     # "corrupt": a fraction
    if size > most:
        raise refuse("size", size, f"at most {most:g} with noise={noise!r}")
    exact = _subset_sums(secret, queries)
    k = exact.size
    if noise == "bounded":
        return exact + rng.uniform(-size, size, k)
    if noise == "gaussian":
        return exact + rng.normal(0.0, size, k)
    if noise == "laplace":
        return exact + rng.laplace(0.0, size, k)
    if noise == "corrupt":
        bad = rng.random(k) < size
        out = exact.copy()
        out[bad] = rng.random(int(bad.sum())) * queries[bad].sum(axis=1)
        return out
    return exact


# --------------------------------------------------------------- calibrations
@dataclass(frozen=True)
class NoiseCalibration:
    """How k answers share a total privacy budget (:func:`calibrate_noise`).

    Attributes
    ----------
    epsilon, delta : float
        The total (ε, δ) over all answers.
    scale : float
        Laplace scale b, or Gaussian σ, of each answer's noise.
    noise_std : float
        Standard deviation of each answer's noise (√2·b, or σ).
    per_query_epsilon : float
        ε of one answer: 1/b for Laplace (pure DP); for the Gaussian its exact
        ε at δ/k (:func:`dpteach.mechanisms.noise.gaussian_epsilon`).
    per_query_rho : float
        ρ of one answer in zCDP (ε₀²/2 for Laplace, 1/(2σ²) for the Gaussian).
    basic_total_epsilon : float
        k × ``per_query_epsilon``: what basic composition would charge for this
        same noise (equal to ``epsilon`` with ``accounting="basic"``).
    """

    mechanism: str
    accounting: str
    n_queries: int
    epsilon: float
    delta: float
    scale: float
    noise_std: float
    per_query_epsilon: float
    per_query_rho: float
    basic_total_epsilon: float


@validate(k=K, epsilon=TOTAL_EPSILON, delta=TOTAL_DELTA, mechanism=MECHANISM,
          accounting=ACCOUNTING)
def calibrate_noise(k: int, epsilon: float, *, delta: float = 0.0, mechanism: str = "laplace",
                    accounting: str = "basic") -> NoiseCalibration:
    """Noise per answer so that k subset-sum answers are (ε, δ)-DP in total.

    Each subset sum has sensitivity 1 (one person's bit moves it by at most 1).

    * Laplace, ``"basic"``: each answer ε₀ = ε/k, scale b = k/ε
      (:func:`dpteach.mechanisms.noise.laplace_mechanism`; basic composition
      [DR14]_ Thm 3.16; δ may be 0).
    * Laplace, ``"zcdp"``: each ε₀-DP answer is ε₀²/2-zCDP ([BS16]_ Prop. 1.4);
      k of them are kε₀²/2-zCDP ([BS16]_ Lemma 1.7), which is (ε, δ)-DP for the
      largest ρ = kε₀²/2 that :func:`dpteach.accounting.zcdp.zcdp_to_epsilon`
      converts to at most ε (:func:`dpteach.accounting.zcdp.rho_for_epsilon`;
      needs δ > 0). ε₀ then shrinks like 1/√k instead of
      1/k: for large k far less noise for the same (ε, δ); for small k basic
      composition is better (the conversion's ln(1/δ) term dominates).
    * Gaussian, ``"basic"``: each answer (ε/k, δ/k)-DP with the analytic σ of
      :func:`dpteach.mechanisms.noise.gaussian_sigma` (needs δ > 0).
    * Gaussian, ``"zcdp"``: σ = √(k/(2ρ)) with ρ as above: each answer is
      1/(2σ²)-zCDP ([BS16]_ Prop. 1.6), k of them ρ-zCDP.

    ``epsilon`` and ``delta`` are the totals; δ > 0 for the Gaussian and for
    ``"zcdp"``. The ε₀ of each Laplace answer, and ε/k for the Gaussian with basic
    composition, must be a usable ε: in [1e-6, 1000].
    """
    if delta == 0 and (mechanism == "gaussian" or accounting == "zcdp"):
        raise refuse("delta", delta, f"> 0 with mechanism={mechanism!r}, accounting={accounting!r}")
    if accounting == "zcdp":
        rho = rho_for_epsilon(epsilon, delta)     # the largest ρ that converts to (ε, δ)
        if mechanism == "gaussian":
            return _gaussian(k, epsilon, delta, accounting, math.sqrt(k / (2 * rho)))
    eps0 = epsilon / k if accounting == "basic" else math.sqrt(2 * rho / k)
    if not 1e-6 <= eps0 <= 1e3:
        raise refuse("epsilon", epsilon, f"such that each of k={k} answers has ε in [1e-6, 1e3]")
    if mechanism == "gaussian":
        return _gaussian(k, epsilon, delta, accounting, gaussian_sigma(1.0, eps0, delta / k))
    b = 1.0 / eps0
    return NoiseCalibration(mechanism, accounting, k, epsilon, delta, b, math.sqrt(2) * b, eps0,
                            pure_dp_to_zcdp(eps0), k * eps0)


@validate(secret=BITS, queries=QUERIES, epsilon=TOTAL_EPSILON, delta=TOTAL_DELTA,
          mechanism=MECHANISM, accounting=ACCOUNTING, rng=RNG)
def private_answers(secret, queries, *, epsilon: float, delta: float = 0.0,
                    mechanism: str = "laplace", accounting: str = "basic",
                    rng=None) -> tuple[np.ndarray, NoiseCalibration]:
    """Answer every subset sum with noise calibrated to a total (ε, δ) (:func:`calibrate_noise`).

    Laplace answers come from :func:`dpteach.mechanisms.noise.laplace_mechanism`
    (sensitivity 1, ε₀ each), Gaussian ones with basic composition from
    :func:`dpteach.mechanisms.noise.gaussian_mechanism` (sensitivity 1, (ε/k, δ/k)
    each), and with zCDP accounting as the exact answers plus N(0, σ²). Returns the k
    answers and the calibration used.
    """
    exact = _subset_sums(secret, queries)
    k = queries.shape[0]
    cal = calibrate_noise(k, epsilon, delta=delta, mechanism=mechanism, accounting=accounting)
    if cal.mechanism == "laplace":
        return laplace_mechanism(exact, 1.0, cal.per_query_epsilon, rng=rng), cal
    if cal.accounting == "basic":
        return gaussian_mechanism(exact, 1.0, cal.epsilon / k, cal.delta / k, rng=rng), cal
    return exact + rng.normal(0.0, cal.scale, exact.size), cal


# -------------------------------------------------------------------- decoders
@validate(queries=QUERIES, answers=ANSWERS)
def reconstruct_least_squares(queries, answers) -> np.ndarray:
    """Guess the secret bits by least squares, then rounding.

    Solves ``min_x ‖Q x − a‖₂`` (the minimum-norm solution when k < n; by the normal
    equations and a Cholesky factorisation when k ≥ 2n), after
    moving each answer into its possible range [0, |S_j|], and rounds each
    coordinate at ½. With k ≫ n random queries and independent errors of standard
    deviation s, each coordinate's error is about s·2/√k, so the bits come out
    right once s ≪ √k/4.
    """
    a = _clip_answers(queries, answers)
    k, n = queries.shape
    x = None
    if k >= 2 * n:
        # normal equations: QᵀQ ≈ (k/4)(I + J) is well conditioned for k ≥ 2n random rows,
        # and forming it is several times faster than an SVD- or QR-based solve
        try:
            x = linalg.cho_solve(linalg.cho_factor(queries.T @ queries, check_finite=False),
                                 queries.T @ a, check_finite=False)
        except linalg.LinAlgError:
            x = None
    if x is None:
        x = linalg.lstsq(queries, a, lapack_driver="gelsd", check_finite=False)[0]
    return (x > 0.5).astype(np.int64)


@validate(queries=QUERIES, answers=ANSWERS, norm=choice("l1", "linf"))
def reconstruct_lp(queries, answers, *, norm: str = "l1") -> np.ndarray:
    """Guess the secret bits by linear programming over x ∈ [0, 1]ⁿ, then rounding.

    * ``norm="linf"`` ([DN03]_): minimise the largest residual ``max_j |a_j − (Qx)_j|``.
      When every error is at most E this finds an x̂ within E of all answers, the
      program of Dinur and Nissim, without needing to know E.
    * ``norm="l1"`` (LP decoding, [DMT07]_): minimise ``Σ_j |a_j − (Qx)_j|``. It
      ignores a minority of wildly wrong answers: for Gaussian query matrices it
      corrects any fraction of arbitrary errors below ρ* ≈ 0.239 ([DMT07]_); our
      0/1 subset sums behave alike in the notebook's experiments. Against dense
      bounded noise ``"linf"`` does better.

    Answers are first moved into their possible range [0, |S_j|] (as in
    :func:`reconstruct_least_squares`). Solved with
    :func:`scipy.optimize.linprog` (HiGHS, interior point), for n ≤ 400 and
    n·k ≤ 320,000.
    """
    k, n = queries.shape
    if n > MAX_LP_N or n * k > MAX_LP_ENTRIES:
        raise refuse("queries.shape", queries.shape, f"(k, n) with {LP_SIZES}")
    a = _clip_answers(queries, answers)
    Q = sparse.csr_matrix(queries)
    eye = sparse.identity(k, format="csr")
    if norm == "l1":
        # x ∈ [0, 1]ⁿ, u, v ≥ 0 with Qx + u − v = a; minimise Σ(u + v)
        c = np.r_[np.zeros(n), np.ones(2 * k)]
        res = optimize.linprog(c, A_eq=sparse.hstack([Q, eye, -eye], format="csc"), b_eq=a,
                               bounds=[(0, 1)] * n + [(0, None)] * (2 * k), method="highs-ipm")
    else:
        # x ∈ [0, 1]ⁿ, t ≥ 0 with −t ≤ a − Qx ≤ t; minimise t
        c = np.r_[np.zeros(n), 1.0]
        one = sparse.csr_matrix(np.ones((k, 1)))
        A_ub = sparse.vstack([sparse.hstack([Q, -one]), sparse.hstack([-Q, -one])], format="csc")
        res = optimize.linprog(c, A_ub=A_ub, b_ub=np.r_[a, -a],
                               bounds=[(0, 1)] * n + [(0, None)], method="highs-ipm")
    return (res.x[:n] > 0.5).astype(np.int64)


@validate(guess=BITS, secret=BITS)
def fraction_recovered(guess, secret) -> float:
    """Fraction of the bits of ``guess`` equal to ``secret`` (two 0/1 vectors, same length)."""
    if guess.shape != secret.shape:
        raise refuse("guess", guess, f"{secret.size} bits, as many as secret")
    return float(np.mean(guess == secret))


@validate(epsilon=TOTAL_EPSILON, delta=DELTA)
def dp_recovery_bound(epsilon: float, delta: float = 0.0) -> float:
    """Most any attacker can expect to recover, as a fraction of uniformly random bits.

    If the answers are (ε, δ)-DP with respect to one person's bit, every test of
    "x_i = 0" against "x_i = 1" has false-alarm and miss probabilities with
    ``P_FA + e^ε P_MD ≥ 1 − δ`` and ``e^ε P_FA + P_MD ≥ 1 − δ`` ([KOV15]_ Thm 2.1).
    Adding the two bounds the error with a uniform prior by ``(1 − δ)/(1 + e^ε)``.
    With independent uniform bits the others say nothing about x_i, so each bit
    is guessed right with probability at most ``(e^ε + δ)/(1 + e^ε)``, and so is
    the expected fraction recovered. It is ½ + ε/4 + O(ε³) for small ε, δ = 0.
    ``epsilon`` and ``delta`` are the totals over all answers.
    """
    # (e^ε + δ)/(1 + e^ε) = expit(ε) + δ·expit(−ε), without overflow
    return float(min(1.0, special.expit(epsilon) + delta * special.expit(-epsilon)))


# ------------------------------------------------------------ the whole attack
@dataclass(frozen=True)
class ReconstructionResult:
    """Result of :func:`reconstruction_attack`.

    Attributes
    ----------
    fraction : float
        Fraction of the n bits recovered.
    noise_std : float or None
        Standard deviation of each answer's error (None for ``"corrupt"``, whose
        errors are arbitrary: ``size`` is the fraction corrupted).
    calibration : NoiseCalibration or None
        For the DP noise kinds.
    dp_bound : float or None
        :func:`dp_recovery_bound` of the total (ε, δ), for the DP noise kinds.
    """

    fraction: float
    n: int
    k: int
    noise: str
    decoder: str
    noise_std: float | None
    calibration: NoiseCalibration | None
    dp_bound: float | None


@validate(n=N, k=K, noise=choice(*NOISE_KINDS, *DP_NOISE_KINDS), size=real(0.0, MAX_NOISE),
          epsilon=TOTAL_EPSILON.or_none(), delta=TOTAL_DELTA, accounting=ACCOUNTING,
          decoder=choice(*DECODERS), rng=RNG)
def reconstruction_attack(n: int, k: int, *, noise: str = "bounded", size: float = 0.0,
                          epsilon: float | None = None, delta: float = 1e-6,
                          accounting: str = "basic", decoder: str = "least_squares",
                          rng=None) -> ReconstructionResult:
    """Draw n secret bits and k random subset sums, answer them noisily, decode, score.

    The one-call version of the attack for sliders: ``noise`` is one of
    :data:`NOISE_KINDS` with its ``size`` (see :func:`noisy_answers`), or
    ``"dp_laplace"`` / ``"dp_gaussian"`` with a total ``epsilon`` (and ``delta``,
    ``accounting``; see :func:`calibrate_noise`). The secret bits, the queries and
    the noise all come from ``rng``, in that order.

    Parameters
    ----------
    n, k : int
        Secret bits and queries, n·k ≤ 2·10⁶ (n ≤ 400 and n·k ≤ 320,000 for the LP
        decoders).
    size : float
        The noise size for the first five kinds; must be 0 for the DP kinds.
    epsilon : float, optional
        Total ε for the DP kinds (required there, refused otherwise).
    delta : float
        Total δ for the DP kinds (``"dp_laplace"`` with ``"basic"`` may use 0).
    """
    if decoder != "least_squares" and (n > MAX_LP_N or n * k > MAX_LP_ENTRIES):
        raise refuse("decoder", decoder, f"'least_squares' unless {LP_SIZES} (n={n}, k={k})")
    dp = noise in DP_NOISE_KINDS
    if dp != (epsilon is not None):
        raise refuse("epsilon", epsilon, f"given with noise in {DP_NOISE_KINDS}, else None")
    if dp and size != 0:
        raise refuse("size", size, f"0 with noise={noise!r} (epsilon sets the noise)")
    calibration = (calibrate_noise(k, epsilon, delta=delta, mechanism=noise[3:],
                                   accounting=accounting) if dp else None)
    secret = rng.integers(0, 2, n).astype(float)
    queries = subset_sum_queries(n, k, rng)          # refuses n·k > MAX_ENTRIES
    if calibration is None:
        answers = noisy_answers.__wrapped__(secret, queries, noise=noise, size=size, rng=rng)
        std = {"none": 0.0, "bounded": size / math.sqrt(3), "gaussian": size,
               "laplace": math.sqrt(2) * size, "corrupt": None}[noise]
    else:
        answers, _ = private_answers.__wrapped__(
            secret, queries, epsilon=calibration.epsilon, delta=calibration.delta,
            mechanism=calibration.mechanism, accounting=calibration.accounting, rng=rng)
        std = calibration.noise_std
    if decoder == "least_squares":
        guess = reconstruct_least_squares.__wrapped__(queries, answers)
    else:
        guess = reconstruct_lp.__wrapped__(queries, answers, norm=decoder[3:])
    bound = None if calibration is None else dp_recovery_bound.__wrapped__(epsilon, delta)
    return ReconstructionResult(float(np.mean(guess == secret)), n, k, noise, decoder, std,
                                calibration, bound)


# ------------------------------------------------------------------ helpers
def _subset_sums(secret: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """The exact answers ``queries @ secret``, with one secret bit per column of queries."""
    if secret.size != queries.shape[1]:
        raise refuse("secret", secret, f"one bit per column of queries ({queries.shape[1]})")
    return queries @ secret


def _clip_answers(q: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Each true answer lies in [0, |S_j|]; moving a noisy one into that range never
    increases its error, and keeps the decoders' numbers of the size of n."""
    if a.shape != (q.shape[0],):
        raise refuse("answers.shape", a.shape, f"({q.shape[0]},), one answer per query")
    return np.clip(a, 0.0, q.sum(axis=1))


def _gaussian(k: int, epsilon: float, delta: float, accounting: str,
              sigma: float) -> NoiseCalibration:
    """The calibration of Gaussian answers of noise σ: each is (ε₀, δ/k)-DP with its exact
    ε₀ (:func:`dpteach.mechanisms.noise.gaussian_epsilon`) and 1/(2σ²)-zCDP."""
    eps0 = gaussian_epsilon(sigma, delta / k)
    return NoiseCalibration("gaussian", accounting, k, epsilon, delta, sigma, sigma, eps0,
                            gaussian_zcdp(sigma), k * eps0)


def _queries(name: str, value: Any) -> np.ndarray:
    q = _ZERO_ONE_MATRIX(name, value)
    k, n = q.shape
    if n <= MAX_N and k <= MAX_QUERIES and n * k <= MAX_ENTRIES:
        return q
    raise QUERIES.refuse(f"{name}.shape", q.shape)


# Engineering notes: docs/library/attacks.md.
