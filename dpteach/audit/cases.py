"""What to audit: dpteach's mechanisms and the planted bugs, each with neighbouring inputs.

An :class:`AuditCase` packs a mechanism in the form :func:`dpteach.audit.runs.audit_mechanism`
runs (``mechanism(data, size, rng)`` → one number per run), two neighbouring inputs d and d′
on which it is at its most revealing, the privacy it claims, the test that suits its outputs,
and the ε the pair *really* shows (computed exactly from the mechanism's output distribution,
so an audit's bound can be compared with the truth). :func:`audit_case` builds one by name.
Each case's ``description`` says what d and d′ are.

correct mechanisms (:data:`CORRECT`)
    ``"laplace"``, ``"gaussian"`` ((ε, δ) with the analytic σ; audited with the μ-GDP
    bound), ``"randomized_response"``, ``"k_randomized_response"``,
    ``"exponential_mechanism"``, ``"report_noisy_max"``, ``"sparse_vector"``
    (AboveThreshold); the exact mechanisms ``"laplace_secure"`` (discrete noise on the grid
    2**-20 ℤ), ``"snapping"`` (Mironov's, [M12]_ Sec. 5.2, claiming the ε his theorem
    proves, ε + ~1.3e-13) and ``"gaussian_secure"`` (exact discrete Gaussian noise,
    [CKS20]_, audited with the plain bound: its privacy is not exactly that of continuous
    Gaussian noise, which the μ-GDP bound assumes); ``"gnmax"`` (PATE's aggregator, (ε, δ)
    by its data-independent analysis, [PSMRTE18]_ Prop. 8) and ``"mwem"`` (T = 1, one
    query, [HLM12]_: the selection reveals nothing, so the pair shows only the measurement's
    ε/2 of the claim: an audit sees what the output reveals, not what the analysis pays);
stability-based selection (:data:`STABILITY`)
    ``"stable_selection"``: (ε, δ)-DP under replace-one neighbours; the pair shows its
    pure-ε part, the event ⊥ with ratio e^ε;
planted bugs (:data:`BUGS`, :mod:`dpteach.audit.bugs`)
    ``"laplace_half_scale"``, ``"rr_wrong_epsilon"``, ``"svt_no_query_noise"`` ([LSL17]_),
    each the broken twin of a correct case (:data:`PLANTED_BUGS`; ``audit_case(name,
    bug=True)``);
the floating-point leak (:data:`FLOATING_POINT`)
    ``"laplace_floating_point"``: NumPy's Laplace sampler, its output passed through
    Mironov's exact test (:func:`dpteach.attacks.floating_point.impossible_under`, [M12]_);
    ``"laplace_secure"`` is the fix.

For every correct case the pair's true ε is at most the claim, so an audit's 95% bound stays
at or below the claim with probability ≥ 95%; for every bug the true ε exceeds the claim (is
infinite, for the sparse vector without query noise), and enough runs catch it.

References
----------
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014.
.. [M12] I. Mironov. On significance of the least significant bits for
   differential privacy. ACM CCS 2012.
.. [LSL17] M. Lyu, D. Su and N. Li. Understanding the sparse vector technique
   for differential privacy. PVLDB 10(6): 637-648, 2017.
.. [PSMRTE18] N. Papernot, S. Song, I. Mironov, A. Raghunathan, K. Talwar and
   Ú. Erlingsson. Scalable private learning with PATE. ICLR 2018: Prop. 8 (GNMax is
   (λ, λ/σ²)-RDP whatever the votes: one teacher moves the histogram by √2 in ℓ2).
.. [HLM12] M. Hardt, K. Ligett and F. McSherry. A simple and practical algorithm for
   differentially private data release. NeurIPS 2012: Algorithm 1 (MWEM; T rounds of
   ε/(2T) for selection and ε/(2T) for measurement).
.. [CKS20] C. Canonne, G. Kamath and T. Steinke. The discrete Gaussian for
   differential privacy. NeurIPS 2020 (arXiv:2004.00010v3): Thm. 4 (adding N_ℤ(0, σ²) to
   an integer answer of sensitivity Δ is ρ-zCDP with ρ = Δ²/(2σ²)), Thm. 7 (its exact δ(ε),
   ``Σ_x max(0, P[x] − e^ε P[x + Δ])``) and Cor. 13 (zCDP to (ε, δ)).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from scipy import optimize, stats

from .._validation import FLAG, RNG, array, choice, real, refuse, validate
from ..mechanisms.definition import smallest_epsilon
from ..mechanisms.noise import gaussian_epsilon
from ..pate.analysis import DEFAULT_PATE_ORDERS, pate_epsilon
from ..accounting.zcdp import rho_for_epsilon
from ..attacks.floating_point import impossible_under
from .bugs import laplace_half_scale, randomized_response_wrong_epsilon
from .bounds import CONFIDENCE
from .runs import BOUND, N_TRIALS, TEST, TRIAL_COUNTS, AuditResult, audit_convergence, \
    audit_mechanism
from ..pate.aggregators import gnmax
from ..mechanisms.noise import gaussian_mechanism, gaussian_sigma, laplace_mechanism
from ..queries.mwem import mwem
from ..mechanisms.randomized_response import k_randomized_response, randomized_response
from ..exact.discrete import discrete_gaussian_delta
from ..exact.secure import secure_gaussian_mechanism, secure_laplace_mechanism
from ..mechanisms.selection import (
    exponential_mechanism,
    exponential_mechanism_probabilities,
    report_noisy_max,
    report_noisy_max_probabilities,
)
from ..exact.snapping import SNAPPING_SIZE_MAX, snapping_epsilon, snapping_mechanism
from ..mechanisms.stability import stable_selection, stable_selection_pass_probability
from ..mechanisms.sparse_vector import (
    above_threshold,
    no_query_noise_pattern_probability,
    sparse_vector_pattern_probability,
    sparse_vector_without_query_noise,
)

__all__ = ["CORRECT", "STABILITY", "BUGS", "FLOATING_POINT", "PLANTED_BUGS", "AuditCase",
           "audit_case", "pair_epsilon"]

#: every correct mechanism of dpteach (cases added later go last, so that the seeds of the
#: tests and the notebook that enumerate the others did not move when they were added)
CORRECT = ("laplace", "laplace_secure", "gaussian", "randomized_response",
           "k_randomized_response", "exponential_mechanism", "report_noisy_max", "sparse_vector",
           "snapping", "gaussian_secure", "gnmax", "mwem")
#: correct, (ε, δ)-DP by a private test of stability (not in CORRECT, whose twelve cases the
#: shipped audit table, the audit page and notebook 21 enumerate; notebook 09 audits it)
STABILITY = ("stable_selection",)
BUGS = ("laplace_half_scale", "rr_wrong_epsilon", "svt_no_query_noise")
#: not a planted bug but NumPy's own sampler, seen through Mironov's exact test
FLOATING_POINT = ("laplace_floating_point",)
#: the correct case each planted bug breaks
PLANTED_BUGS = {"laplace": "laplace_half_scale", "randomized_response": "rr_wrong_epsilon",
                "sparse_vector": "svt_no_query_noise"}
#: largest claimed ε of a case: the most 10**5 runs per side can certify is about 9.5
EPSILON_MAX = 10.0
K_RR = 4                 #: categories of the k-RR case
SCORES_D = (1.0, 0.0, 0.0, 0.0)           #: the selection cases' scores on d ...
SCORES_D_PRIME = (0.0, 1.0, 1.0, 1.0)     #: ... and on d′ (every score moves by Δ = 1)
SVT_D, SVT_D_PRIME, SVT_THRESHOLD = (1.0, 1.0), (1.0, 2.0), 1.5
#: the snapping case clamps at B = 100 noise scales (100/ε): clamping changes an output from
#: the inputs 0 or 1 only beyond 98 scales (probability below e^-98), and λ = 1/ε < B < 2⁴⁶λ
#: is the range of [M12]_'s theorem (Sec. 5.2)
SNAPPING_BOUND_SCALES = 100.0
SECURE_GRANULARITY = 1.0       #: grid of the secure Gaussian case: integer answers (counts)
GNMAX_D, GNMAX_D_PRIME = (2.0, 1.0), (1.0, 2.0)  #: the GNMax case's votes: one teacher moves
MWEM_QUERY = ((1.0, 0.0),)                        #: the MWEM case's one query: cell 0's count
MWEM_D, MWEM_D_PRIME = (1.0, 0.0), (0.0, 1.0)     #: ... on one person in cell 0 vs cell 1

#: the cases by name, the claimed ε (from the app's smallest claim, 0.01) and δ (PATE's
#: analysis claims no ε at all for δ > 1e-3 and small ε: its σ search ends at 10⁵)
NAME = choice(*CORRECT, *STABILITY, *BUGS, *FLOATING_POINT)
CLAIM = real(0.01, EPSILON_MAX, example=1.0)
CASE_DELTA = real(1e-50, 1e-3, example=1e-5)
#: an output distribution: probabilities summing to 1 (within 1e-9)
DISTRIBUTION = array(ndim=1, low=0.0, high=1.0, example=[0.5, 0.5],
                     text="a probability vector: a 1-D array of numbers in [0, 1] summing to 1")


@dataclass(frozen=True)
class AuditCase:
    """A mechanism to audit, on two neighbouring inputs, with its claim (:func:`audit_case`).

    Attributes
    ----------
    name, title, description : str
    mechanism : callable
        ``mechanism(data, size, rng)`` → 1-D array of ``size`` numbers.
    d, d_prime
        The neighbouring inputs.
    claimed_epsilon, delta : float
        The claim.
    test, bound : str
        The test and bound that suit the outputs (``audit_mechanism``'s arguments).
    true_epsilon : float
        The ε this pair shows at ``delta`` (exactly; ``inf`` when an output possible on one
        input is impossible on the other). At most the claim for a correct mechanism.
    planted_bug : bool
    """

    name: str
    title: str
    description: str
    mechanism: Callable
    d: object
    d_prime: object
    claimed_epsilon: float
    delta: float
    test: str
    bound: str
    true_epsilon: float
    planted_bug: bool

    @validate(n_trials=N_TRIALS, confidence=CONFIDENCE, test=TEST.or_none(),
              bound=BOUND.or_none(), rng=RNG)
    def audit(self, n_trials: int, *, confidence: float = 0.95, test: str | None = None,
              bound: str | None = None, rng=None) -> AuditResult:
        """:func:`~dpteach.audit.runs.audit_mechanism` on this case (its test unless given)."""
        return audit_mechanism.__wrapped__(self.mechanism, self.d, self.d_prime,
                                           claimed_epsilon=self.claimed_epsilon,
                                           delta=self.delta,
                                           n_trials=n_trials, confidence=confidence,
                                           test=self.test if test is None else test,
                                           bound=self.bound if bound is None else bound,
                                           rng=rng)

    @validate(trials=TRIAL_COUNTS, confidence=CONFIDENCE, rng=RNG)
    def convergence(self, trials, *, confidence: float = 0.95, rng=None) -> np.ndarray:
        """:func:`~dpteach.audit.runs.audit_convergence` on this case."""
        return audit_convergence.__wrapped__(self.mechanism, self.d, self.d_prime, trials,
                                             claimed_epsilon=self.claimed_epsilon,
                                             delta=self.delta, confidence=confidence,
                                             test=self.test, bound=self.bound,
                                             rng=rng)


@validate(p=DISTRIBUTION, p_prime=DISTRIBUTION)
def pair_epsilon(p, p_prime) -> float:
    """The pure ε two output distributions show: ``max_o |ln(p(o)/p′(o))|`` over outcomes.

    ``inf`` when an outcome has probability 0 on one side only ([DR14]_ Def. 2.4 with δ = 0:
    the largest ratio over events is attained at a single outcome).
    """
    for name, dist in (("p", p), ("p_prime", p_prime)):
        if abs(float(dist.sum()) - 1.0) > 1e-9:
            raise refuse(name, dist, f"a probability vector (sum {float(dist.sum()):.12g}, not 1)")
    if p.shape != p_prime.shape:
        raise refuse("p_prime.shape", p_prime.shape, f"p.shape {p.shape}")
    if np.any((p > 0) != (p_prime > 0)):
        return math.inf
    both = (p > 0) & (p_prime > 0)
    return float(np.max(np.abs(np.log(p[both]) - np.log(p_prime[both]))))


@validate(name=NAME, epsilon=CLAIM, delta=CASE_DELTA, bug=FLAG)
def audit_case(name: str, epsilon: float = 1.0, *, delta: float = 1e-5,
               bug: bool = False) -> AuditCase:
    """The audit case called ``name``, claiming ``epsilon`` (and ``delta``, where it applies).

    Parameters
    ----------
    name : str
        One of :data:`CORRECT`, :data:`STABILITY`, :data:`BUGS` or :data:`FLOATING_POINT`.
    epsilon : float
        The claimed ε; for ``"gnmax"`` at least 1.01·ln(1/δ)/499 (PATE's analysis claims no
        less: ≈ 0.0233 at δ = 1e-5).
    delta : float
        The claimed δ of the ``"gaussian"``, ``"gaussian_secure"``, ``"gnmax"`` and
        ``"stable_selection"`` cases; the other cases claim δ = 0.
    bug : bool
        With a correct ``name`` that has a planted twin (:data:`PLANTED_BUGS`): return the
        twin instead.
    """
    eps = epsilon
    if bug:
        if name not in PLANTED_BUGS:
            raise refuse("name", name, f"one of {sorted(PLANTED_BUGS)} with bug=True")
        name = PLANTED_BUGS[name]
    kw: dict[str, Any] = dict(claimed_epsilon=eps, delta=0.0, bound="dp",
                              planted_bug=name in BUGS)
    if name == "laplace":
        return AuditCase(name, "Laplace mechanism", "value + Lap(Δ/ε), value 0 vs 1, Δ = 1",
                         partial(_laplace, epsilon=eps), 0.0, 1.0, test="threshold",
                         true_epsilon=eps, **kw)
    if name == "laplace_secure":
        return AuditCase(name, "Laplace mechanism, secure (discrete Laplace on a grid)",
                         "grid 2**-20, value 0 vs 1, Δ = 1: exact integer noise",
                         partial(_laplace_secure, epsilon=eps), 0.0, 1.0, test="threshold",
                         true_epsilon=eps, **kw)
    if name == "laplace_floating_point":
        return AuditCase(name, "Laplace mechanism with NumPy's floating-point sampler",
                         "value 0 vs 1, Δ = 1; output: 1 if Mironov's exact test says the "
                         "output is impossible from input 1",
                         partial(_laplace_fp, epsilon=eps), 0.0, 1.0, test="histogram",
                         true_epsilon=math.inf, **kw)
    if name == "laplace_half_scale":
        return AuditCase(name, "Laplace with half the scale (planted bug)",
                         "value + Lap(Δ/(2ε)): claims ε, is 2ε-DP",
                         partial(_laplace_bug, epsilon=eps), 0.0, 1.0, test="threshold",
                         true_epsilon=2 * eps, **kw)
    if name == "gaussian":
        sigma = gaussian_sigma(1.0, eps, delta)
        return AuditCase(name, "Gaussian mechanism",
                         f"value + N(0, σ²), σ = {sigma:.3g} (analytic, Δ = 1), value 0 vs 1; "
                         "audited through the μ-GDP bound", partial(_gaussian, epsilon=eps,
                                                                     delta=delta),
                         0.0, 1.0, test="threshold",
                         true_epsilon=float(gaussian_epsilon(sigma, delta, 1.0)),
                         **{**kw, "delta": delta, "bound": "gdp"})
    if name == "gaussian_secure":
        sigma2 = _gaussian_secure_sigma2(eps, delta)
        return AuditCase(name, "Gaussian mechanism, secure (discrete Gaussian on integers)",
                         f"integer answers 0 vs 1 (granularity 1, Δ = 1) + N_ℤ(0, σ²), "
                         f"σ = {math.sqrt(sigma2):.3g} (zCDP calibration); audited with the "
                         "plain (ε, δ) bound", partial(_gaussian_secure, epsilon=eps,
                                                       delta=delta),
                         0.0, 1.0, test="threshold",
                         true_epsilon=_gaussian_secure_true(sigma2, delta, eps),
                         **{**kw, "delta": delta})
    if name == "snapping":
        # the claim is what [M12]'s theorem proves here: ε + 1202η ≈ ε + 1.3e-13 (B = 100λ)
        bound = SNAPPING_BOUND_SCALES / eps
        proven = snapping_epsilon(eps, sensitivity=1.0, bound=bound)
        return AuditCase(name, "Snapping mechanism (Mironov)",
                         f"value 0 vs 1, Δ = 1, Laplace noise rounded to multiples of a power "
                         f"of two, clamped at ±{bound:.3g}; claims the ε Mironov's theorem "
                         f"proves (ε + {proven - eps:.1g})",
                         partial(_snapping, epsilon=eps, bound=bound), 0.0, 1.0,
                         test="threshold", true_epsilon=_snapping_true(eps),
                         **{**kw, "claimed_epsilon": proven})
    if name == "gnmax":
        sigma = _gnmax_sigma(eps, delta)
        return AuditCase(name, "PATE's GNMax aggregator",
                         f"three teachers, votes (2, 1) vs (1, 2) (one changes its vote), "
                         f"N(0, σ²) on each count, σ = {sigma:.3g}: PATE's data-independent "
                         f"(ε, δ) (Prop. 8, classic conversion)",
                         partial(_gnmax, sigma=sigma), GNMAX_D, GNMAX_D_PRIME,
                         test="histogram", true_epsilon=_gnmax_true(sigma, delta),
                         **{**kw, "claimed_epsilon": _gnmax_claim(sigma, delta),
                            "delta": delta})
    if name == "mwem":
        return AuditCase(name, "MWEM (one round, one query)",
                         "T = 1, one counting query over two cells, one person in cell 0 vs "
                         "cell 1 (n = 1 public); output: the synthetic count of cell 0. The "
                         "selection has one query to choose, so the pair shows the "
                         "measurement's ε/2",
                         partial(_mwem, epsilon=eps), MWEM_D, MWEM_D_PRIME, test="threshold",
                         true_epsilon=eps / 2, **kw)
    if name == "stable_selection":
        m = _stable_blocks(eps, delta)
        d, d_prime = (0.0,) * m, (0.0,) * (m - 1) + (1.0,)
        return AuditCase(name, "Stable selection (the most common block answer)",
                         f"{m} records, one per block, all 0 vs one of them 1: distance to "
                         f"instability {m // 2 - 1} vs {m // 2 - 2}, the test's threshold "
                         f"ln(1/δ)/ε = {math.log(1 / delta) / eps:.3g}; output the released "
                         "answer, or −1 for ⊥",
                         partial(_stable, epsilon=eps, delta=delta), d, d_prime,
                         test="histogram", true_epsilon=_stable_true(m, eps, delta),
                         **{**kw, "delta": delta})
    if name == "randomized_response":
        return AuditCase(name, "Randomized response", "true bit 0 vs 1, truth with e^ε/(1+e^ε)",
                         partial(_rr, epsilon=eps), 0, 1, test="histogram",
                         true_epsilon=_rr_true(0.5 + 0.5 * math.tanh(eps / 2)), **kw)
    if name == "rr_wrong_epsilon":
        return AuditCase(name, "Randomized response with a mis-computed ε (planted bug)",
                         "truth with e^{2ε}/(1+e^{2ε}): claims ε, is 2ε-DP",
                         partial(_rr_bug, epsilon=eps), 0, 1, test="histogram",
                         true_epsilon=_rr_true(0.5 + 0.5 * math.tanh(eps)), **kw)
    if name == "k_randomized_response":
        return AuditCase(name, f"{K_RR}-ary randomized response", "value 0 vs 1 of 4 categories",
                         partial(_krr, epsilon=eps), 0, 1, test="histogram",
                         true_epsilon=eps, **kw)
    if name in ("exponential_mechanism", "report_noisy_max"):
        if name == "exponential_mechanism":
            p = exponential_mechanism_probabilities(SCORES_D, 1.0, eps)
            q = exponential_mechanism_probabilities(SCORES_D_PRIME, 1.0, eps)
            title, func = "Exponential mechanism", _em
        else:
            p = report_noisy_max_probabilities(SCORES_D, 1.0, eps)
            q = report_noisy_max_probabilities(SCORES_D_PRIME, 1.0, eps)
            title, func = "Report noisy max (Laplace noise)", _rnm
        return AuditCase(name, title, "scores (1, 0, 0, 0) vs (0, 1, 1, 1), Δ = 1",
                         partial(func, epsilon=eps), SCORES_D, SCORES_D_PRIME,
                         test="histogram", true_epsilon=pair_epsilon(p, q), **kw)
    if name == "sparse_vector":
        return AuditCase(name, "Sparse vector (AboveThreshold)",
                         "answers (1, 1) vs (1, 2), threshold 1.5: the index of the first ⊤",
                         partial(_svt, epsilon=eps), SVT_D, SVT_D_PRIME, test="histogram",
                         true_epsilon=_svt_true(eps), **kw)
    return AuditCase(name, "Sparse vector without query noise (planted bug)",
                     "answers (1, 1) vs (1, 2), threshold 1.5: (⊥, ⊤) is impossible on d",
                     partial(_svt_bug, epsilon=eps), SVT_D, SVT_D_PRIME, test="histogram",
                     true_epsilon=_svt_bug_true(eps), **kw)


# ------------------------------------------------------------------ the mechanisms
def _laplace(value, size, rng, *, epsilon):
    return laplace_mechanism(np.full(size, float(value)), 1.0, epsilon, rng=rng)


def _laplace_bug(value, size, rng, *, epsilon):
    return laplace_half_scale(np.full(size, float(value)), 1.0, epsilon, rng=rng)


def _laplace_secure(value, size, rng, *, epsilon):
    """Exact discrete Laplace on the 2**-20 grid, one call per run (a vector would be one
    d-dimensional release, with a sensitivity that grows with d)."""
    return np.array([secure_laplace_mechanism(float(value), 1.0, epsilon, rng=rng)
                     for _ in range(size)])


def _laplace_fp(value, size, rng, *, epsilon):
    """NumPy's Laplace sampler, then Mironov's exact test: 1 if the output is impossible
    from the input 1 (a post-processing of the output, so it cannot raise ε)."""
    out = laplace_mechanism(np.full(size, float(value)), 1.0, epsilon, rng=rng)
    return impossible_under(out, 1.0, 1.0 / epsilon).astype(float)


def _gaussian(value, size, rng, *, epsilon, delta):
    return gaussian_mechanism(np.full(size, float(value)), 1.0, epsilon, delta, rng=rng)


def _gaussian_secure(value, size, rng, *, epsilon, delta):
    """``secure_gaussian_mechanism(...)`` on integer answers (granularity 1), one call
    per run: exact discrete Gaussian noise N_ℤ(0, σ²) with the zCDP calibration ([CKS20]_
    Thm. 4 and Cor. 13). As for ``_laplace_secure``, a vector would be one d-dimensional
    release, whose σ grows with d."""
    return np.array([secure_gaussian_mechanism(float(value), 1.0, epsilon, delta, rng=rng,
                                               granularity=SECURE_GRANULARITY)
                     for _ in range(size)])


def _snapping(value, size, rng, *, epsilon, bound):
    """Mironov's snapping mechanism ([M12]_ Sec. 5.2), Δ = 1, noise parameter ``epsilon``.

    Vectorised: :func:`~dpteach.exact.snapping.snapping_mechanism` snaps each coordinate on its
    own with the same λ = 1/ε and bound, so the coordinates of ``np.full(size, value)`` are
    independent runs of the one-number mechanism (unlike the secure mechanisms, nothing is
    calibrated to the length of the vector). At most 10**4 coordinates per call.
    """
    out = np.empty(size)
    for lo in range(0, size, SNAPPING_SIZE_MAX):
        n = min(SNAPPING_SIZE_MAX, size - lo)
        out[lo:lo + n] = snapping_mechanism(np.full(n, float(value)), sensitivity=1.0,
                                            epsilon=epsilon, bound=bound, rng=rng)
    return out


def _rr(bit, size, rng, *, epsilon):
    return randomized_response(np.full(size, int(bit)), epsilon=epsilon, rng=rng).astype(float)


def _rr_bug(bit, size, rng, *, epsilon):
    return randomized_response_wrong_epsilon(np.full(size, int(bit)), epsilon,
                                             rng=rng).astype(float)


def _krr(value, size, rng, *, epsilon):
    return k_randomized_response(np.full(size, int(value)), K_RR, epsilon,
                                 rng=rng).astype(float)


def _em(scores, size, rng, *, epsilon):
    return exponential_mechanism(list(scores), 1.0, epsilon, size=size, rng=rng).astype(float)


def _rnm(scores, size, rng, *, epsilon):
    return report_noisy_max(list(scores), 1.0, epsilon, size=size, rng=rng).astype(float)


def _svt(values, size, rng, *, epsilon):
    """AboveThreshold, one run per output: the index of the first ⊤ (len(values) if none)."""
    out = np.empty(size)
    for i in range(size):
        idx = above_threshold(list(values), SVT_THRESHOLD, epsilon, rng=rng)
        out[i] = len(values) if idx is None else idx
    return out


def _svt_bug(values, size, rng, *, epsilon):
    """The variant without query noise: the transcript (every answer) coded as a binary number."""
    weights = 2.0 ** np.arange(len(values))
    out = np.empty(size)
    for i in range(size):
        out[i] = float(weights @ sparse_vector_without_query_noise(list(values), SVT_THRESHOLD,
                                                                    epsilon, rng=rng))
    return out


def _stable(records, size, rng, *, epsilon, delta):
    """One stable selection per output, each record a block whose answer is the record: the
    released answer, or −1 for ⊥ (the unchecked algorithm: an audit draws many runs)."""
    data = np.asarray(records, dtype=float)
    out = np.empty(size)
    for i in range(size):
        run = stable_selection.__wrapped__(data, _the_record, data.size, epsilon, delta, rng=rng)
        out[i] = run.answer if run.released else -1.0
    return out


def _the_record(block) -> float:
    return float(block[0])


def _gnmax(votes, size, rng, *, sigma):
    """PATE's GNMax on one vote histogram, ``size`` independent queries in one call (the
    unchecked algorithm: an audit draws more runs than one call of ``gnmax`` takes)."""
    return gnmax.__wrapped__(np.tile(np.asarray(votes, dtype=float), (size, 1)), sigma,
                             np.random.default_rng(rng)).astype(float)


def _mwem(hist, size, rng, *, epsilon):
    """One MWEM run (T = 1) per output: the synthetic count of cell 0."""
    return np.array([mwem(np.array(MWEM_QUERY), np.array(hist), epsilon=epsilon, T=1,
                          rng=rng).synthetic[0] for _ in range(size)])


# ------------------------------------------------------------- the exact true ε of each pair
def _svt_true(epsilon: float) -> float:
    def probs(vals):
        return [sparse_vector_pattern_probability(vals, pat, SVT_THRESHOLD, epsilon)
                for pat in ([True], [False, True], [False, False])]
    return pair_epsilon(probs(SVT_D), probs(SVT_D_PRIME))


def _svt_bug_true(epsilon: float) -> float:
    pats = [[bool(i & 1), bool(i & 2)] for i in range(4)]

    def probs(vals):
        return [no_query_noise_pattern_probability(vals, pat, SVT_THRESHOLD, epsilon)
                for pat in pats]
    return pair_epsilon(probs(SVT_D), probs(SVT_D_PRIME))


def _stable_blocks(epsilon: float, delta: float) -> int:
    """m = 2(⌈t⌉ + 2) records for t = ln(1/δ)/ε: all 0 gives the lead m, the distance
    m/2 − 1 = ⌈t⌉ + 1; one record 1 gives the lead m − 2, the distance ⌈t⌉ ≥ t."""
    return 2 * (math.ceil(math.log(1 / delta) / epsilon) + 2)


def _stable_true(m: int, epsilon: float, delta: float) -> float:
    """The pair's ε at δ: the outputs are the answer 0 and ⊥, released with the exact pass
    probabilities at distances m/2 − 1 and m/2 − 2 (:func:`smallest_epsilon` over both events)."""
    def law(distance):
        p = stable_selection_pass_probability(distance, epsilon, delta)
        return [p, 1.0 - p]
    return smallest_epsilon(law(m // 2 - 1), law(m // 2 - 2), delta)


def _rr_true(truth: float) -> float:
    return math.log(truth) - math.log1p(-truth)


def _snapping_true(epsilon: float) -> float:
    """The ε the pair 0 vs 1 shows under the snapping mechanism with λ = fl(1/ε).

    In exact arithmetic the output is ``clamp_B(⌊clamp_B(f) + Lap(λ)⌉_Λ)`` ([M12]_ Sec. 5.2):
    every grid cell left of 0 (and the clamped −B) has probability ratio exactly e^{1/λ}
    between the inputs 0 and 1 (the Laplace density's ratio at shift 1 in its left tail,
    [DR14]_ Thm. 3.6), no cell more, so the pair shows ε = 1/λ. The doubles the mechanism
    computes with can move this by at most what [M12]_'s theorem allows: the case claims
    :func:`~dpteach.exact.snapping.snapping_epsilon`, (1 + 12Bη)/λ + 2η ≥ 1/λ.
    """
    return 1.0 / (1.0 / epsilon)


def _gaussian_secure_sigma2(epsilon: float, delta: float) -> float:
    """σ² (in grid steps) of ``secure_gaussian_mechanism(x, 1, ε, δ, granularity=1)``.

    Δ₂ = 1 grid step, σ² = Δ₂²/(2ρ) with ρ the largest zCDP budget whose conversion
    ([CKS20]_ Cor. 13, :func:`~dpteach.accounting.zcdp.rho_for_epsilon`) is at most ε: the
    calibration of :func:`~dpteach.exact.secure.secure_gaussian_mechanism` (the mechanism
    finds the same ρ to about 1e-12 relative).
    """
    return 1.0 / (2.0 * rho_for_epsilon(epsilon, delta))


def _gaussian_secure_true(sigma2: float, delta: float, epsilon: float) -> float:
    """The smallest ε′ with δ(ε′) ≤ δ for N_ℤ(0, σ²) added to the integer answers 0 vs 1.

    δ(ε′) = Σ_x max(0, P[x] − e^{ε′} P[x + 1]) ([CKS20]_ Thm. 7,
    :func:`~dpteach.exact.discrete.discrete_gaussian_delta`), exact up to double rounding, and
    decreasing in ε′; its root is found by Brent's method and then stepped up until δ(ε′) ≤ δ,
    so the result is never below the root and above it by ~1e-13 relative at most (and the
    mechanism's own σ² agrees with this one to ~1e-12). It is at most the claim ε, since the
    mechanism is ρ-zCDP ([CKS20]_ Thm. 4) with ρ converted to (ε, δ) by Cor. 13.
    """
    def excess(e: float) -> float:
        return discrete_gaussian_delta(sigma2, 1, e) - delta

    if excess(0.0) <= 0:
        return 0.0
    hi = epsilon
    while excess(hi) > 0:                  # not expected (zCDP proves ε); widen to stay honest
        hi *= 2.0
    root = optimize.brentq(excess, 0.0, hi, xtol=1e-14, rtol=1e-13)
    while excess(root) > 0:
        root = math.nextafter(root, math.inf) * (1 + 1e-13)
    return root


def _gnmax_claim(sigma: float, delta: float) -> float:
    """ε of one GNMax query by PATE's data-independent analysis (classic conversion)."""
    return pate_epsilon([GNMAX_D], sigma2=sigma, delta=delta, data_dependent=False).epsilon


def _gnmax_sigma(epsilon: float, delta: float) -> float:
    """The smallest σ (to 1e-12 relative) whose data-independent claim is at most ε.

    The classic conversion cannot claim less than ln(1/δ)/(λ_max − 1) (λ_max = 500, the
    largest of PATE's orders) however large σ is, until σ is so large (≈ 1.4e5) that the
    conversion's (0, δ) shortcut makes the claim jump to 0; claims within 1% of that floor
    are refused, which keeps σ ≤ 1e5 and the claim continuous in σ.
    """
    floor = math.log(1 / delta) / (max(DEFAULT_PATE_ORDERS) - 1)
    if epsilon < 1.01 * floor:
        raise refuse("epsilon", epsilon, f"at least {1.01 * floor:.4g} (gnmax, delta={delta:g})")
    log_sigma = optimize.brentq(lambda t: _gnmax_claim(math.exp(t), delta) - epsilon,
                                math.log(1e-3), math.log(1e5), xtol=1e-13, rtol=1e-13)
    sigma = math.exp(log_sigma)
    while _gnmax_claim(sigma, delta) > epsilon:
        sigma *= 1 + 1e-12
    return sigma


def _gnmax_true(sigma: float, delta: float) -> float:
    """The pair's ε at δ: the answer is class 0 with p = Φ(1/(σ√2)) on d, 1 − p on d′ (the
    vote gap is +1 vs −1, the noise on the gap N(0, 2σ²)); the best event is {class 0}."""
    z = 1 / (sigma * math.sqrt(2))
    p, p_prime = stats.norm.sf(-z), stats.norm.sf(z)
    return max(0.0, math.log((p - delta) / p_prime)) if p > delta else 0.0


# Implementation notes: docs/library/audit.md.
