"""Private selection: the exponential mechanism, report-noisy-max and sparse vector.

The mechanisms in this module do not add noise to a number and release it:
they *choose* something (a candidate, an index, a yes/no answer) so that the
choice itself is differentially private.

* :func:`exponential_mechanism` — sample a candidate with probability
  proportional to ``exp(ε·u/(2Δu))`` ([MT07]_; [DR14]_ Def 3.4, Thm 3.10), with
  :func:`private_mode` and :func:`private_median` as worked instances.
* :func:`report_noisy_max` — add noise to every score and report only the
  index of the largest ([DR14]_ Claim 3.9; [DWZK19]_; [MS20]_, [DKS21]_).
* :class:`SparseVector` / :func:`sparse_vector` / :func:`above_threshold` —
  answer a long stream of "is this query above the threshold?" questions and
  pay only for the (few) "above" answers ([DR14]_ Alg. 1 and 2, Thms 3.23,
  3.25).
* :func:`sparse_vector_without_query_noise` — a **published, broken** variant
  kept as a lesson ([LSL17]_): it is not ε′-DP for any finite ε′.
  :func:`sparse_vector_pattern_probability` and
  :func:`no_query_noise_pattern_probability` compute the exact probability of
  any transcript so the violation can be shown exactly, and
  :func:`empirical_epsilon_lower_bound` certifies it from simulations.

Neighbouring datasets
---------------------
Unless a function says otherwise, neighbouring datasets differ by adding or
removing one record ([DR14]_ Defs 2.3-2.4: histograms at ℓ1 distance 1). A score
``u(D, r)`` has sensitivity ``Δu = max |u(D, r) − u(D′, r)|`` over neighbours
``D, D′`` and candidates ``r``; it is *monotone* if for every pair of
neighbours either ``u(D, r) ≤ u(D′, r)`` for all ``r`` or ``u(D, r) ≥ u(D′, r)``
for all ``r`` (counting queries are monotone under add/remove).

All sampling uses NumPy's floating-point generators: these are teaching
implementations and inherit the floating-point caveats of [Mir12]_.

References
----------
.. [MT07] F. McSherry and K. Talwar. Mechanism design via differential
   privacy. FOCS 2007.
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential
   Privacy*. Foundations and Trends in TCS 9(3-4), 2014.
.. [DWZK19] Z. Ding, Y. Wang, D. Zhang and D. Kifer. Free gap information from
   the differentially private sparse vector and noisy max mechanisms. PVLDB
   13(3): 293-306, 2019.
.. [MS20] R. McKenna and D. Sheldon. Permute-and-flip: a new mechanism for
   differentially private selection. NeurIPS 2020.
.. [DKS21] Z. Ding, D. Kifer, S. M. Saghaian N. E., T. Steinke, Y. Wang,
   Y. Xiao and D. Zhang. The permute-and-flip mechanism is identical to
   report-noisy-max with exponential noise. arXiv:2105.07260, 2021.
.. [DuR19] D. Durfee and R. Rogers. Practical differentially private top-k
   selection with pay-what-you-get composition. NeurIPS 2019.
.. [LSL17] M. Lyu, D. Su and N. Li. Understanding the sparse vector technique
   for differential privacy. PVLDB 10(6): 637-648, 2017.
.. [SCM14] B. Stoddard, Y. Chen and A. Machanavajjhala. Differentially private
   algorithms for empirical machine learning. arXiv:1411.5428, 2014.
.. [CP34] C. J. Clopper and E. S. Pearson. The use of confidence or fiducial
   limits illustrated in the case of the binomial. Biometrika 26(4), 1934.
.. [Mir12] I. Mironov. On significance of the least significant bits for
   differential privacy. CCS 2012.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from ._validation import (
    ParameterError,
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_finite,
    check_in_range,
    check_int,
    check_rng,
    check_sensitivity,
)

__all__ = [
    "exponential_mechanism_probabilities",
    "exponential_mechanism",
    "mode_utility",
    "median_utility",
    "private_mode_probabilities",
    "private_mode",
    "private_median_probabilities",
    "private_median",
    "report_noisy_max_scale",
    "report_noisy_max",
    "report_noisy_max_probabilities",
    "SparseVector",
    "SparseVectorResult",
    "sparse_vector_noise_scales",
    "sparse_vector",
    "above_threshold",
    "sparse_vector_without_query_noise",
    "sparse_vector_pattern_probability",
    "no_query_noise_pattern_probability",
    "svt_pattern_frequency",
    "empirical_epsilon_lower_bound",
]

_NEIGHBOURING = ("add_remove", "replace")
_NOISES = ("laplace", "exponential", "gumbel")
_CHUNK = 2_000_000   # max noise draws held in memory at once when sampling many


# ------------------------------------------------------------------ helpers
def _check_bool(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {name}={value!r} "
                        f"of type {type(value).__name__}")
    return bool(value)


def _check_scores(scores, name: str = "scores") -> np.ndarray:
    return check_array(name, scores, ndim=1, min_size=1)


def _check_size(size):
    return None if size is None else check_int("size", size, minimum=1)


def _em_rate(sensitivity: float, epsilon: float, monotonic: bool) -> float:
    """ε/(2Δu), or ε/Δu for a monotone score."""
    return epsilon / sensitivity if monotonic else epsilon / (2.0 * sensitivity)


def _centred_logits(u: np.ndarray, rate: float) -> np.ndarray:
    """``rate·(u − max u)``: every entry ≤ 0 and the best is 0, so nothing overflows."""
    with np.errstate(over="ignore", invalid="ignore"):
        z = rate * (u - u.max())
    return np.where(np.isnan(z), -np.inf, z)   # (−inf)·0 cannot occur; guard anyway


def _argmax_with_noise(logits: np.ndarray, draw, size, gen) -> int | np.ndarray:
    """``argmax(logits + noise)`` once (size None) or ``size`` times, in chunks."""
    k = logits.size
    if size is None:
        return int(np.argmax(logits + draw(gen, (k,))))
    out = np.empty(size, dtype=np.int64)
    rows = max(1, _CHUNK // k)
    for start in range(0, size, rows):
        stop = min(size, start + rows)
        out[start:stop] = np.argmax(logits[None, :] + draw(gen, (stop - start, k)), axis=1)
    return out


def _gumbel(gen, shape):
    return gen.gumbel(0.0, 1.0, size=shape)


# ----------------------------------------------------- exponential mechanism
def exponential_mechanism_probabilities(scores, sensitivity: float, epsilon: float,
                                        monotonic: bool = False) -> np.ndarray:
    """Exact output distribution of the exponential mechanism.

    ``Pr[r] = exp(ε·u(r)/(2Δu)) / Σ_s exp(ε·u(s)/(2Δu))`` ([DR14]_ Def 3.4;
    [MT07]_), ε-DP whenever ``Δu`` bounds the sensitivity of the scores
    ([DR14]_ Thm 3.10). With ``monotonic=True`` the exponent is ``ε·u/Δu``,
    which is still ε-DP *provided the score is monotone* (see the module
    docstring): for neighbours with ``0 ≤ u′(r) − u(r) ≤ Δu`` for all ``r``, the
    numerator ratio is at most ``e^ε`` and the normaliser only moves the other
    way, so each ratio ``Pr′[r]/Pr[r]`` and ``Pr[r]/Pr′[r]`` is at most ``e^ε``
    ([MT07]_; [DR14]_ Sec 3.4). For a non-monotone score ``monotonic=True`` can
    lose up to a factor 2 (ratios up to ``e^{2ε}``).

    Computed in log space (``softmax`` of ``rate·(u − max u)``), so scores such
    as 1e6 with ε = 100 do not overflow.

    Parameters
    ----------
    scores : array_like, shape (k,)
        Utilities ``u(D, r)`` of the k candidates on the dataset, finite.
    sensitivity : float
        Δu, finite and > 0.
    epsilon : float
        Finite and > 0.
    monotonic : bool
        Use ``ε/Δu`` instead of ``ε/(2Δu)``; only valid for monotone scores.

    Returns
    -------
    numpy.ndarray, shape (k,)
        Probabilities summing to 1.
    """
    u = _check_scores(scores)
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    epsilon = check_epsilon("epsilon", epsilon)
    monotonic = _check_bool("monotonic", monotonic)
    return special.softmax(_centred_logits(u, _em_rate(sensitivity, epsilon, monotonic)))


def exponential_mechanism(scores, sensitivity: float, epsilon: float, monotonic: bool = False,
                          size: int | None = None, rng=None):
    """Sample a candidate index from the exponential mechanism.

    Uses the Gumbel-max trick: ``argmax_r (ε·u(r)/(2Δu) + G_r)`` with ``G_r``
    i.i.d. standard Gumbel has exactly the distribution of
    :func:`exponential_mechanism_probabilities` (Gumbel 1954; [DuR19]_ note the
    same identity: the exponential mechanism *is* report-noisy-max with Gumbel
    noise). Scores are centred at their maximum first, so huge scores or ε do
    not overflow. ε-DP ([DR14]_ Thm 3.10); see
    :func:`exponential_mechanism_probabilities` for ``monotonic``.

    Parameters
    ----------
    scores, sensitivity, epsilon, monotonic
        See :func:`exponential_mechanism_probabilities`.
    size : int, optional
        Number of independent draws; ``None`` returns a single int. Each draw is
        a separate ε-DP release (k draws cost kε by composition).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    int or numpy.ndarray of int
    """
    u = _check_scores(scores)
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    epsilon = check_epsilon("epsilon", epsilon)
    monotonic = _check_bool("monotonic", monotonic)
    size = _check_size(size)
    gen = check_rng(rng)
    logits = _centred_logits(u, _em_rate(sensitivity, epsilon, monotonic))
    return _argmax_with_noise(logits, _gumbel, size, gen)


def _check_candidates(candidates, numeric: bool) -> np.ndarray:
    if numeric:
        cand = check_array("candidates", candidates, ndim=1, min_size=1)
    else:
        if isinstance(candidates, (str, bytes)) or candidates is None:
            raise TypeError(f"candidates must be a 1-D sequence of values; got "
                            f"candidates={candidates!r}")
        cand = np.asarray(candidates)
        if cand.ndim != 1 or cand.size == 0:
            raise ParameterError(f"candidates must be a non-empty 1-D sequence; got shape {cand.shape}")
        if cand.dtype.kind in "fc" and not np.all(np.isfinite(cand)):
            raise ParameterError("candidates must contain only finite values")
    import pandas as pd

    if not pd.Index(cand).is_unique:
        raise ParameterError("candidates must be distinct (each candidate listed once); "
                             f"got {cand.size} entries with repeats")
    return cand


def _check_data(data, numeric: bool) -> np.ndarray:
    if numeric:
        return check_array("data", data, ndim=1, min_size=0)
    if isinstance(data, (str, bytes)) or data is None:
        raise TypeError(f"data must be a 1-D sequence of values; got data={data!r}")
    arr = np.asarray(data)
    if arr.ndim != 1:
        raise ParameterError(f"data must be 1-D; got shape {arr.shape}")
    if arr.dtype.kind in "biufc":
        return check_array("data", arr, ndim=1, min_size=0)
    return arr


def _check_neighbouring(neighbouring: str) -> str:
    return check_choice("neighbouring", neighbouring, set(_NEIGHBOURING))


def mode_utility(data, candidates) -> np.ndarray:
    """Counting score for the mode: ``u(D, r) = #{i : x_i = r}``.

    Sensitivity 1 under add/remove *and* under replacement neighbours (one record
    changes at most one count, or two counts by one each); monotone under
    add/remove. Values of ``data`` that are not among the (public) ``candidates``
    count for none of them: they are ignored rather than rejected, because an
    error that depends on the data would itself leak information.

    Parameters
    ----------
    data : array_like, shape (n,)
        Numbers or labels (strings). Numeric data must be finite.
    candidates : array_like, shape (k,)
        The public, data-independent output range, distinct values.

    Returns
    -------
    numpy.ndarray of float, shape (k,)
    """
    cand = _check_candidates(candidates, numeric=False)
    arr = _check_data(data, numeric=False)
    import pandas as pd

    idx = pd.Index(cand).get_indexer(pd.Index(arr)) if arr.size else np.empty(0, dtype=int)
    idx = np.asarray(idx)
    return np.bincount(idx[idx >= 0], minlength=cand.size).astype(float)


def median_utility(data, candidates) -> np.ndarray:
    """Rank score for the median: ``u(D, r) = −|#{x_i < r} − #{x_i > r}|``.

    Maximal (≈ 0) at a median of ``data``. Adding or removing one record changes
    exactly one of the two counts by at most 1, so ``Δu = 1`` under add/remove;
    replacing a record can move one count down and the other up, so ``Δu = 2``
    under replacement. The score is not monotone. Data outside the candidate
    range need no clipping: they simply count as below or above every candidate.

    Parameters
    ----------
    data : array_like of float, shape (n,)
        Finite numbers (n = 0 is allowed: every candidate scores 0).
    candidates : array_like of float, shape (k,)
        Public grid of possible outputs, distinct and finite (any order).
    """
    cand = _check_candidates(candidates, numeric=True)
    x = np.sort(_check_data(data, numeric=True))
    below = np.searchsorted(x, cand, side="left")
    above = x.size - np.searchsorted(x, cand, side="right")
    return -np.abs(below - above).astype(float)


def _mode_rate_args(neighbouring: str) -> tuple[float, bool]:
    # count scores: Δu = 1 in both models; monotone only under add/remove
    return 1.0, neighbouring == "add_remove"


def private_mode_probabilities(data, candidates, epsilon: float,
                               neighbouring: str = "add_remove") -> np.ndarray:
    """Exact output distribution of :func:`private_mode` (one entry per candidate)."""
    epsilon = check_epsilon("epsilon", epsilon)
    neighbouring = _check_neighbouring(neighbouring)
    sens, mono = _mode_rate_args(neighbouring)
    return exponential_mechanism_probabilities(mode_utility(data, candidates), sens, epsilon,
                                               monotonic=mono)


def private_mode(data, candidates, epsilon: float, neighbouring: str = "add_remove", rng=None):
    """ε-DP most common value: the exponential mechanism with the count score.

    Score ``u(D, r)`` = number of records equal to ``r`` (:func:`mode_utility`),
    sensitivity 1. Under add/remove neighbours the counts are monotone, so the
    sharper exponent ``ε·u`` is used ([DR14]_ Sec 3.4; [MT07]_); under
    ``neighbouring="replace"`` the score is not monotone and the exponent is
    ``ε·u/2`` ([DR14]_ Def 3.4, Thm 3.10).

    Parameters
    ----------
    data : array_like, shape (n,)
        Records (numbers or labels).
    candidates : array_like, shape (k,)
        Public list of possible answers (e.g. all education levels).
    epsilon : float
    neighbouring : {"add_remove", "replace"}
    rng : None, int or numpy.random.Generator

    Returns
    -------
    object
        One element of ``candidates``.
    """
    epsilon = check_epsilon("epsilon", epsilon)
    neighbouring = _check_neighbouring(neighbouring)
    scores = mode_utility(data, candidates)
    cand = np.asarray(candidates)
    sens, mono = _mode_rate_args(neighbouring)
    idx = exponential_mechanism(scores, sens, epsilon, monotonic=mono, rng=rng)
    return cand[idx].item() if hasattr(cand[idx], "item") else cand[idx]


def _median_sensitivity(neighbouring: str) -> float:
    return 1.0 if neighbouring == "add_remove" else 2.0


def private_median_probabilities(data, candidates, epsilon: float,
                                 neighbouring: str = "add_remove") -> np.ndarray:
    """Exact output distribution of :func:`private_median` (one entry per candidate)."""
    epsilon = check_epsilon("epsilon", epsilon)
    neighbouring = _check_neighbouring(neighbouring)
    return exponential_mechanism_probabilities(median_utility(data, candidates),
                                               _median_sensitivity(neighbouring), epsilon)


def private_median(data, candidates, epsilon: float, neighbouring: str = "add_remove",
                   rng=None) -> float:
    """ε-DP median over a public, discretised domain via the exponential mechanism.

    Samples a candidate ``r`` with probability ∝ ``exp(ε·u(r)/(2Δu))`` where
    ``u(r) = −|#{x_i < r} − #{x_i > r}|`` (:func:`median_utility`), with
    ``Δu = 1`` under add/remove neighbours and ``Δu = 2`` under replacement
    ([DR14]_ Def 3.4, Thm 3.10; the rank score is the classic example of
    [MT07]_). Unlike adding Laplace noise to the median, whose global
    sensitivity is the whole domain width, the error here is measured in
    *ranks*: with probability ≥ 1 − β the output has score within
    ``(2Δu/ε)·ln(k/β)`` of the best ([DR14]_ Thm 3.11), k = number of
    candidates.

    Parameters
    ----------
    data : array_like of float, shape (n,)
    candidates : array_like of float, shape (k,)
        Public grid, e.g. ``np.arange(17, 91)`` for ages; must not depend on the data.
    epsilon : float
    neighbouring : {"add_remove", "replace"}
    rng : None, int or numpy.random.Generator

    Returns
    -------
    float
        One of the candidates.
    """
    epsilon = check_epsilon("epsilon", epsilon)
    neighbouring = _check_neighbouring(neighbouring)
    scores = median_utility(data, candidates)
    cand = np.asarray(candidates, dtype=float)
    idx = exponential_mechanism(scores, _median_sensitivity(neighbouring), epsilon, rng=rng)
    return float(cand[idx])


# --------------------------------------------------------- report noisy max
def report_noisy_max_scale(sensitivity: float, epsilon: float, monotonic: bool = False) -> float:
    """Noise scale of :func:`report_noisy_max`: ``2Δ/ε``, or ``Δ/ε`` for monotone scores.

    ``Δ/ε`` is [DR14]_ Claim 3.9 (counting queries, which are monotone and
    1-Lipschitz under add/remove). For general scores with sensitivity Δ the
    noise must be ``2Δ/ε`` ([DWZK19]_): fix the noise of every other candidate;
    ``r`` wins iff its noise exceeds ``max_{j≠r}(u_j + η_j) − u_r``, a threshold
    that moves by at most 2Δ between neighbours, and the Laplace, exponential
    and Gumbel survival functions change by at most ``e^{2Δ/b}`` under such a
    shift.
    """
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    epsilon = check_epsilon("epsilon", epsilon)
    monotonic = _check_bool("monotonic", monotonic)
    return (1.0 if monotonic else 2.0) * sensitivity / epsilon


def _rnm_draw(noise: str):
    if noise == "laplace":
        return lambda gen, shape: gen.laplace(0.0, 1.0, size=shape)
    if noise == "exponential":
        return lambda gen, shape: gen.exponential(1.0, size=shape)
    return _gumbel


def report_noisy_max(scores, sensitivity: float, epsilon: float, monotonic: bool = False,
                     noise: str = "laplace", size: int | None = None, rng=None):
    """Report-noisy-max: add independent noise to every score, report the arg-max.

    Only the *index* is released, never the noisy values. ε-DP with noise of
    scale ``b`` = :func:`report_noisy_max_scale` (``2Δ/ε``, or ``Δ/ε`` for
    monotone scores such as counts, [DR14]_ Claim 3.9):

    * ``noise="laplace"`` — the textbook version ([DR14]_ Sec 3.3).
    * ``noise="exponential"`` — one-sided Exponential(b) noise; identical in
      distribution to the permute-and-flip mechanism of [MS20]_ ([DKS21]_), and
      never less accurate than the exponential mechanism.
    * ``noise="gumbel"`` — identical in distribution to the exponential mechanism
      with the same ε (Gumbel-max trick; [DuR19]_).

    Parameters
    ----------
    scores : array_like, shape (k,)
        The exact scores, e.g. counts; finite.
    sensitivity : float
        Δ: each score changes by at most Δ between neighbours.
    epsilon : float
    monotonic : bool
        True only if the scores are monotone (see the module docstring).
    noise : {"laplace", "exponential", "gumbel"}
    size : int, optional
        Number of independent draws (each is a separate ε-DP release).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    int or numpy.ndarray of int
    """
    u = _check_scores(scores)
    b = report_noisy_max_scale(sensitivity, epsilon, monotonic)
    noise = check_choice("noise", noise, set(_NOISES))
    size = _check_size(size)
    gen = check_rng(rng)
    z = _centred_logits(u, 1.0 / b)   # scores in units of b, best = 0
    return _argmax_with_noise(z, _rnm_draw(noise), size, gen)


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(16)


def _noise_logs(noise: str):
    """(log density, log CDF) of the standard noise distribution."""
    if noise == "laplace":
        return stats.laplace.logpdf, stats.laplace.logcdf
    if noise == "exponential":
        return stats.expon.logpdf, stats.expon.logcdf
    return stats.gumbel_r.logpdf, stats.gumbel_r.logcdf


def _rnm_integral(z: np.ndarray, noise: str) -> np.ndarray:
    """Pr[z_i + η_i is the largest] for i.i.d. standard noise η.

    ``Pr[i] = ∫ f(x − z_i) Π_{j≠i} F(x − z_j) dx`` with ``max z = 0``. The
    integrand is analytic between the kinks ``x = z_j`` of the Laplace and
    exponential densities, so a composite 16-point Gauss–Legendre rule on
    unit-length pieces split at every kink is accurate to ~1e-13. Outside
    ``[−120, 40]`` the integrand is below ``e^{−40}`` (absolute) and is dropped.
    """
    logpdf, logcdf = _noise_logs(noise)
    zin = z[np.isfinite(z) & (z > -120.0)]
    edges = np.unique(np.concatenate([np.arange(-120.0, 41.0), zin]))
    a, b = edges[:-1], edges[1:]
    half = (b - a) / 2.0
    x = ((a + b) / 2.0)[:, None] + half[:, None] * _GL_NODES[None, :]
    w = (half[:, None] * _GL_WEIGHTS[None, :]).ravel()
    x = x.ravel()
    with np.errstate(divide="ignore", invalid="ignore"):
        t = x[:, None] - np.where(np.isfinite(z), z, -np.inf)[None, :]
        logF = logcdf(t)                          # (nodes, k)
        log_all = logF.sum(axis=1, keepdims=True)
        logf = logpdf(t)
        # exponential noise: f = F = 0 left of z_i; the integrand is 0 there
        expo = np.where(np.isneginf(logf), -np.inf, logf + log_all - logF)
    expo = np.where(np.isnan(expo), -np.inf, expo)
    return w @ np.exp(expo)


def report_noisy_max_probabilities(scores, sensitivity: float, epsilon: float,
                                   monotonic: bool = False, noise: str = "laplace") -> np.ndarray:
    """Exact output distribution of :func:`report_noisy_max`.

    For Gumbel noise this is the exponential-mechanism softmax. For Laplace and
    exponential noise it is ``Pr[i] = ∫ f(x − u_i/b) Π_{j≠i} F(x − u_j/b) dx``
    (f, F the standard density and CDF), evaluated by composite Gauss–Legendre
    quadrature split at every kink (absolute error ~1e-13); memory and time
    grow as k², meant for k up to a few hundred.
    """
    u = _check_scores(scores)
    b = report_noisy_max_scale(sensitivity, epsilon, monotonic)
    noise = check_choice("noise", noise, set(_NOISES))
    z = _centred_logits(u, 1.0 / b)
    if noise == "gumbel":
        return special.softmax(z)
    if u.size == 1:
        return np.ones(1)
    return _rnm_integral(z, noise)


# ------------------------------------------------------------ sparse vector
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

    Returns
    -------
    (float, float)
    """
    epsilon = check_epsilon("epsilon", epsilon)
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    c = check_int("max_above", max_above, minimum=1)
    delta = check_delta("delta", delta)
    if delta == 0:
        sigma = 2.0 * c * sensitivity / epsilon
    else:
        if epsilon >= 1:
            raise ParameterError(
                f"epsilon must be < 1 when delta > 0 (Dwork & Roth Cor 3.21, used by Thm 3.25); "
                f"got epsilon={epsilon!r}. Use delta=0 for the pure-DP allocation.")
        sigma = math.sqrt(32.0 * c * math.log(1.0 / delta)) * sensitivity / epsilon
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
    sensitivity : float
        Δ, a bound on every query's sensitivity.
    max_above : int
        c ≥ 1, the number of ⊤ answers after which the run halts.
    delta : float
        0 (default, pure ε-DP) or in (0, 1) with ε < 1 for the advanced-composition
        allocation.
    rng : None, int or numpy.random.Generator

    Attributes
    ----------
    n_answered : int
        Queries answered so far (⊤ and ⊥).
    n_above : int
        ⊤ answers so far.
    halted : bool
    threshold_noise_scale, query_noise_scale : float
        σ and 2σ.
    """

    def __init__(self, threshold: float, epsilon: float, sensitivity: float = 1.0,
                 max_above: int = 1, delta: float = 0.0, rng=None):
        self.threshold = check_finite("threshold", threshold)
        self.threshold_noise_scale, self.query_noise_scale = sparse_vector_noise_scales(
            epsilon, sensitivity, max_above, delta)
        self.epsilon = float(epsilon)
        self.delta = float(delta)
        self.sensitivity = float(sensitivity)
        self.max_above = int(max_above)
        self._gen = check_rng(rng)
        self._answers: list[bool] = []
        self._n_above = 0
        self._noisy_threshold = self._fresh_threshold()

    def _fresh_threshold(self) -> float:
        return self.threshold + float(self._gen.laplace(0.0, self.threshold_noise_scale))

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

    def query(self, answer: float) -> bool:
        """Answer one query: True (⊤, "above") or False (⊥, "below").

        Parameters
        ----------
        answer : float
            The query's exact value on the dataset, finite.
        """
        if self.halted:
            raise RuntimeError(
                f"this SparseVector has halted after max_above={self.max_above} 'above' answers "
                f"({self.n_answered} queries answered); its privacy budget is spent. "
                "Start a new one (and pay for it) to ask more.")
        a = check_finite("answer", answer)
        noisy = a + float(self._gen.laplace(0.0, self.query_noise_scale))
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

    def __repr__(self) -> str:
        return (f"SparseVector(threshold={self.threshold!r}, epsilon={self.epsilon!r}, "
                f"max_above={self.max_above}, answered={self.n_answered}, "
                f"above={self.n_above}, halted={self.halted})")


def _check_values(values) -> np.ndarray:
    return check_array("values", values, ndim=1, min_size=1)


def sparse_vector(values, threshold: float, epsilon: float, sensitivity: float = 1.0,
                  max_above: int = 1, delta: float = 0.0, rng=None) -> SparseVectorResult:
    """Run :class:`SparseVector` over a list of exact query answers until it halts.

    ([DR14]_ Alg. 2; with ``max_above=1``, Alg. 1.) The answers for queries
    after the halt are not consulted. The whole run is (ε, δ)-DP however many
    queries are offered.

    Parameters
    ----------
    values : array_like, shape (m,)
        Exact answers ``f_1(D), …, f_m(D)`` of queries with sensitivity ≤ Δ.
    threshold, epsilon, sensitivity, max_above, delta, rng
        See :class:`SparseVector`.

    Returns
    -------
    SparseVectorResult
    """
    vals = _check_values(values)
    sv = SparseVector(threshold, epsilon, sensitivity, max_above, delta, rng)
    for v in vals:
        sv.query(float(v))
        if sv.halted:
            break
    return sv.result()


def above_threshold(values, threshold: float, epsilon: float, sensitivity: float = 1.0,
                    rng=None) -> int | None:
    """AboveThreshold ([DR14]_ Alg. 1, Thm 3.23): index of the first ⊤, or None.

    Threshold noise ``Lap(2Δ/ε)``, query noise ``Lap(4Δ/ε)``; ε-DP. Releasing the
    index of the first ⊤ is the same information as the ⊥…⊥⊤ transcript.
    """
    res = sparse_vector(values, threshold, epsilon, sensitivity, max_above=1, rng=rng)
    return int(res.above_indices[0]) if res.n_above else None


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
    :func:`no_query_noise_pattern_probability` for the exact probabilities.

    Returns
    -------
    numpy.ndarray of bool, shape (m,)
        One ⊤/⊥ answer per query.
    """
    vals = _check_values(values)
    threshold = check_finite("threshold", threshold)
    epsilon = check_epsilon("epsilon", epsilon)
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    gen = check_rng(rng)
    noisy_threshold = threshold + gen.laplace(0.0, 2.0 * sensitivity / epsilon)
    return vals >= noisy_threshold


def _check_pattern(answers, n_values: int) -> np.ndarray:
    if isinstance(answers, (str, bytes)) or answers is None:
        raise TypeError(f"answers must be a sequence of True/False; got answers={answers!r}")
    arr = np.asarray(answers)
    if arr.ndim != 1:
        raise ParameterError(f"answers must be 1-D; got shape {arr.shape}")
    if arr.size and arr.dtype != bool:
        if arr.dtype.kind not in "iu" or not np.all((arr == 0) | (arr == 1)):
            raise ParameterError("answers must contain only True/False (or 1/0); "
                                 f"got answers={answers!r}")
    if arr.size > n_values:
        raise ParameterError(f"answers must not be longer than values ({n_values}); "
                             f"got {arr.size} answers")
    return arr.astype(bool)


def _laplace_logcdf(x, scale: float):
    """log CDF of Lap(scale), accurate in both tails."""
    x = np.asarray(x, dtype=float) / scale
    return np.where(x < 0, x - math.log(2.0), np.log1p(-0.5 * np.exp(-np.abs(x))))


def _gl_nodes(edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of the composite 16-point Gauss–Legendre rule on ``edges``."""
    a, b = edges[:-1], edges[1:]
    half = (b - a) / 2.0
    x = ((a + b) / 2.0)[:, None] + half[:, None] * _GL_NODES[None, :]
    return x.ravel(), (half[:, None] * _GL_WEIGHTS[None, :]).ravel()


def _segment_probability(q: np.ndarray, ends_above: bool, threshold: float,
                         sigma: float) -> float:
    """One AboveThreshold segment: Pr[q_1..q_{m−1} all ⊥ (and q_m ⊤ if ends_above)].

    ``∫ f_ρ(z) Π_{i<m} F_ν(T + z − q_i) · [1 − F_ν(T + z − q_m)] dz`` with
    ρ ~ Lap(σ), ν ~ Lap(2σ); the last factor is omitted (and q_m counted as ⊥)
    when ``ends_above`` is False. The integrand is below ``f_ρ(z)``, so the
    window ``|z| ≤ 50σ`` loses less than ``e^{−50}``; inside it a composite
    Gauss–Legendre rule on pieces of length ≤ σ/2, split at every kink
    (z = 0 and z = q_i − T), is accurate to ~1e-13.
    """
    if q.size == 0:
        return 1.0
    below = q[:-1] if ends_above else q
    kinks = np.concatenate([[0.0], q - threshold])
    kinks = kinks[np.abs(kinks) < 50.0 * sigma]
    grid = np.linspace(-50.0 * sigma, 50.0 * sigma, 201)
    x, w = _gl_nodes(np.unique(np.concatenate([grid, kinks])))
    s = -np.abs(x) / sigma - math.log(2.0 * sigma)                 # log f_ρ
    t = threshold + x
    if below.size:
        s = s + _laplace_logcdf(t[:, None] - below[None, :], 2.0 * sigma).sum(axis=1)
    if ends_above:
        s = s + _laplace_logcdf(q[-1] - t, 2.0 * sigma)            # log Pr[ν ≥ T̂ − q_m]
    return float(w @ np.exp(s))


def sparse_vector_pattern_probability(values, answers, threshold: float, epsilon: float,
                                      sensitivity: float = 1.0, max_above: int = 1) -> float:
    """Exact probability that :class:`SparseVector` (δ = 0) starts with ``answers``.

    The event is "the first ``len(answers)`` answers equal ``answers``" when the
    queries have exact values ``values``. Because the threshold is redrawn after
    every ⊤ and query noise is fresh, the transcript splits into independent
    AboveThreshold segments (each ending at a ⊤), and

    ``Pr = Π_segments ∫ f_ρ(z) Π_{⊥ in segment} F_ν(T + z − q_i) · Pr[⊤ at the end] dz``

    with ρ ~ Lap(σ), ν ~ Lap(2σ), σ = 2cΔ/ε ([DR14]_ Alg. 2). Evaluated by
    Gauss–Legendre quadrature (absolute error ~1e-13). A transcript that continues after
    the c-th ⊤ is impossible (probability 0).

    Parameters
    ----------
    values : array_like, shape (m,)
        Exact query answers.
    answers : sequence of bool, length ≤ m
        The transcript prefix (True = ⊤).
    threshold, epsilon, sensitivity, max_above
        As for :class:`SparseVector` (pure ε-DP allocation).

    Returns
    -------
    float
    """
    vals = _check_values(values)
    pattern = _check_pattern(answers, vals.size)
    threshold = check_finite("threshold", threshold)
    sigma, _ = sparse_vector_noise_scales(epsilon, sensitivity, max_above, 0.0)
    c = int(max_above)
    tops = np.flatnonzero(pattern)
    if tops.size > c or (tops.size == c and tops[-1] != pattern.size - 1):
        return 0.0
    prob, start = 1.0, 0
    for t in tops:
        prob *= _segment_probability(vals[start:t + 1], True, threshold, sigma)
        start = t + 1
    if start < pattern.size:
        prob *= _segment_probability(vals[start:pattern.size], False, threshold, sigma)
    return float(prob)


def no_query_noise_pattern_probability(values, answers, threshold: float, epsilon: float,
                                       sensitivity: float = 1.0) -> float:
    """Exact probability that :func:`sparse_vector_without_query_noise` starts with ``answers``.

    With ``T̂ = T + ρ``, ρ ~ Lap(2Δ/ε) and no query noise, the transcript is ⊤
    exactly for the queries with ``q_i ≥ T̂``, so

    ``Pr = max(0, F_ρ(min_{⊤} q_i − T) − F_ρ(max_{⊥} q_i − T))``

    (empty min = +∞, empty max = −∞). Zero whenever some ⊥ query has an answer
    ≥ some ⊤ query's answer — the source of the infinite privacy loss ([LSL17]_).
    """
    vals = _check_values(values)
    pattern = _check_pattern(answers, vals.size)
    threshold = check_finite("threshold", threshold)
    epsilon = check_epsilon("epsilon", epsilon)
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    q = vals[:pattern.size]
    hi = q[pattern].min() if pattern.any() else math.inf
    lo = q[~pattern].max() if (~pattern).any() else -math.inf
    if not hi > lo:
        return 0.0
    scale = 2.0 * sensitivity / epsilon
    return float(max(0.0, stats.laplace.cdf(hi - threshold, scale=scale)
                     - stats.laplace.cdf(lo - threshold, scale=scale)))


def svt_pattern_frequency(values, answers, threshold: float, epsilon: float, n_trials: int,
                          sensitivity: float = 1.0, max_above: int = 1,
                          variant: str = "sparse", rng=None) -> int:
    """Monte Carlo: in how many of ``n_trials`` runs does the transcript start with ``answers``?

    Runs the real mechanism — :func:`sparse_vector` (``variant="sparse"``, δ = 0)
    or :func:`sparse_vector_without_query_noise` (``variant="no_query_noise"``,
    ``max_above`` ignored) — ``n_trials`` times on the first ``len(answers)``
    queries (later queries cannot affect the prefix). The count is
    Binomial(n_trials, p) with p given exactly by
    :func:`sparse_vector_pattern_probability` /
    :func:`no_query_noise_pattern_probability`.

    Returns
    -------
    int
    """
    vals = _check_values(values)
    pattern = _check_pattern(answers, vals.size)
    n_trials = check_int("n_trials", n_trials, minimum=1)
    variant = check_choice("variant", variant, {"sparse", "no_query_noise"})
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
        Occurrences of S and runs on D (0 ≤ count ≤ n, n ≥ 1).
    count_prime, n_prime : int
        The same on D′.
    alpha : float
        In (0, 0.5): each one-sided bound fails with probability ≤ α.
    """
    n = check_int("n", n, minimum=1)
    count = check_int("count", count, minimum=0, maximum=n)
    n_prime = check_int("n_prime", n_prime, minimum=1)
    count_prime = check_int("count_prime", count_prime, minimum=0, maximum=n_prime)
    alpha = check_in_range("alpha", alpha, 0.0, 0.5, low_inclusive=False, high_inclusive=False)
    if count == 0:
        return 0.0
    p_lo = float(stats.beta.ppf(alpha, count, n - count + 1))
    p_hi = 1.0 if count_prime == n_prime else float(
        stats.beta.ppf(1.0 - alpha, count_prime + 1, n_prime - count_prime))
    if p_lo <= 0 or p_hi <= 0:
        return 0.0
    return max(0.0, math.log(p_lo / p_hi))
