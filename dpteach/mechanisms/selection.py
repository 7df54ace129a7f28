"""Private selection: the exponential mechanism and report-noisy-max.

The mechanisms in this module do not add noise to a number and release it:
they *choose* something (a candidate, an index) so that the choice itself is
differentially private.

* :func:`exponential_mechanism` — sample a candidate with probability
  proportional to ``exp(ε·u/(2Δu))`` ([MT07]_; [DR14]_ Def 3.4, Thm 3.10), with
  :func:`private_mode` and :func:`private_median` as worked instances.
* :func:`report_noisy_max` — add noise to every score and report only the
  index of the largest ([DR14]_ Claim 3.9; [DWZK19]_; [MS20]_, [DKS21]_).

They are one idea seen twice: noisy max with Gumbel noise *is* the exponential
mechanism, and with exponential noise it is permute-and-flip. The sparse vector
technique (a stream of "above the threshold?" answers) is in
:mod:`dpteach.mechanisms.sparse_vector`; testing a privacy claim from samples in
:mod:`dpteach.audit.bounds`.

Neighbouring datasets
---------------------
Unless a function says otherwise, neighbouring datasets differ by adding or
removing one record ([DR14]_ Defs 2.3-2.4: histograms at ℓ1 distance 1). A score
``u(D, r)`` has sensitivity ``Δu = max |u(D, r) − u(D′, r)|`` over neighbours
``D, D′`` and candidates ``r``; it is *monotone* if for every pair of
neighbours either ``u(D, r) ≤ u(D′, r)`` for all ``r`` or ``u(D, r) ≥ u(D′, r)``
for all ``r`` (counting queries are monotone under add/remove).

All sampling uses NumPy's floating-point generators: these are teaching
implementations and inherit the floating-point caveats of [M12]_.

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
.. [M12] I. Mironov. On significance of the least significant bits for
   differential privacy. CCS 2012.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from .._validation import (EPSILON, FLAG, RNG, SENSITIVITY, Domain, array, choice, integer, refuse,
                           validate)

__all__ = [
    "exponential_mechanism_probabilities", "exponential_mechanism", "mode_utility",
    "median_utility", "private_mode_probabilities", "private_mode",
    "private_median_probabilities", "private_median",
    "report_noisy_max_scale", "report_noisy_max", "report_noisy_max_probabilities",
]

SIZE_MAX = 10 ** 6            #: largest ``size`` (number of draws) of the samplers
DRAWS_MAX = 2 * 10 ** 7       #: largest ``size × number of candidates`` (noise values, ~1.3 s)
QUADRATURE_K_MAX = 1_000      #: most candidates for the Laplace/exponential exact probabilities

#: the scores u(D, r) of the k candidates (counts, ranks, utilities)
SCORES = array(ndim=1, low=-1e15, high=1e15, example=[1.0, 3.0, 2.0])
#: the number of independent draws (each one a separate ε-DP release), or None for one
SIZE = integer(1, SIZE_MAX, work=True).or_none()
#: which neighbouring datasets the guarantee compares
NEIGHBOURING = choice("add_remove", "replace")
#: the noise of report-noisy-max
NOISE = choice("laplace", "exponential", "gumbel")
#: records of the mode: labels (strings, ...) or numbers, kept as given; may be empty
RECORDS: Domain = Domain("a 1-D sequence of labels or of numbers in [-1e15, 1e15]",
                 lambda name, value: _labels(RECORDS, name, value, min_size=0),
                 example=[1.0, 2.0, 2.0, 3.0, 5.0, 8.0], edges=[[-1e15], [1e15], [], ["a"]],
                 bad=["abc", None, [[1.0, 2.0], [3.0]], [[1.0]], [float("nan")], [1e16]])
#: the public candidates of the mode, each listed once
CANDIDATES: Domain = Domain("a 1-D sequence of distinct labels or numbers in [-1e15, 1e15], not empty",
                    lambda name, value: _distinct(name, _labels(CANDIDATES, name, value,
                                                                min_size=1)),
                    example=[1.0, 2.0, 8.0], edges=[[-1e15], [1e15], ["a"]],
                    bad=["abc", None, [], [[1.0]], [float("inf")], [1.0, 1.0], ["a", "a"]])
#: the records of the median: numbers (may be none)
NUMERIC_RECORDS = array(ndim=1, min_size=0, low=-1e15, high=1e15,
                        example=[1.0, 2.0, 2.0, 3.0, 5.0, 8.0])
#: the median's public grid of candidates, each listed once (any order)
GRID = Domain("a 1-D array of distinct numbers in [-1e15, 1e15]",
              lambda name, value: _distinct(name, _NUMBERS(name, value)),
              example=[1.0, 2.0, 8.0], edges=[[-1e15], [1e15]],
              bad=["abc", None, [], [[1.0]], [True], [float("nan")], [1e16], [1.0, 1.0]])
_NUMBERS: Domain = array(ndim=1, low=-1e15, high=1e15)


# ----------------------------------------------------- exponential mechanism
@validate(scores=SCORES, sensitivity=SENSITIVITY, epsilon=EPSILON, monotonic=FLAG)
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

    Computed as the ``softmax`` of ``rate·(u − max u)``, so scores such as 1e6 with
    ε = 100 do not overflow. ``scores`` are the utilities ``u(D, r)`` of the k candidates
    on the dataset, ``sensitivity`` is Δu.
    """
    return special.softmax(_em_logits(scores, sensitivity, epsilon, monotonic))


@validate(scores=SCORES, sensitivity=SENSITIVITY, epsilon=EPSILON, monotonic=FLAG, size=SIZE,
          rng=RNG)
def exponential_mechanism(scores, sensitivity: float, epsilon: float,
                          monotonic: bool = False, size: int | None = None, rng=None):
    """Sample a candidate index from the exponential mechanism.

    Uses the Gumbel-max trick: ``argmax_r (ε·u(r)/(2Δu) + G_r)`` with ``G_r``
    i.i.d. standard Gumbel has exactly the distribution of
    :func:`exponential_mechanism_probabilities` (Gumbel 1954; [DuR19]_ note the
    same identity: the exponential mechanism *is* report-noisy-max with Gumbel
    noise). Scores are centred at their maximum first, so large scores do not
    overflow. ε-DP ([DR14]_ Thm 3.10); see
    :func:`exponential_mechanism_probabilities` for ``monotonic``.

    ``size`` asks for that many independent draws (an array; ``None``: one int), with
    ``size × k ≤ 2·10**7``. Each draw is a separate ε-DP release (k draws cost kε by
    composition).
    """
    logits = _em_logits(scores, sensitivity, epsilon, monotonic)
    return _argmax_with_noise(logits, _gumbel, size, rng)


@validate(data=RECORDS, candidates=CANDIDATES)
def mode_utility(data, candidates) -> np.ndarray:
    """Counting score for the mode: ``u(D, r) = #{i : x_i = r}``.

    Sensitivity 1 under add/remove *and* under replacement neighbours (one record
    changes at most one count, or two counts by one each); monotone under
    add/remove. Values of ``data`` that are not among the (public) ``candidates``
    count for none of them: they are ignored rather than rejected, because an
    error that depends on the data would itself leak information.
    """
    import pandas as pd

    idx = pd.Index(candidates).get_indexer(pd.Index(data)) if data.size else np.empty(0, int)
    idx = np.asarray(idx)
    return np.bincount(idx[idx >= 0], minlength=candidates.size).astype(float)


@validate(data=NUMERIC_RECORDS, candidates=GRID)
def median_utility(data, candidates) -> np.ndarray:
    """Rank score for the median: ``u(D, r) = −|#{x_i < r} − #{x_i > r}|``.

    Maximal (≈ 0) at a median of ``data``. Adding or removing one record changes
    exactly one of the two counts by at most 1, so ``Δu = 1`` under add/remove;
    replacing a record can move one count down and the other up, so ``Δu = 2``
    under replacement. The score is not monotone. Data outside the candidate
    range need no clipping: they simply count as below or above every candidate (and
    with no data every candidate scores 0).
    """
    x = np.sort(data)
    below = np.searchsorted(x, candidates, side="left")
    above = x.size - np.searchsorted(x, candidates, side="right")
    return -np.abs(below - above).astype(float)


@validate(data=RECORDS, candidates=CANDIDATES, epsilon=EPSILON, neighbouring=NEIGHBOURING)
def private_mode_probabilities(data, candidates, epsilon: float,
                               neighbouring: str = "add_remove") -> np.ndarray:
    """Exact output distribution of :func:`private_mode` (one entry per candidate)."""
    sens, mono = _mode_rate_args(neighbouring)
    return exponential_mechanism_probabilities(mode_utility(data, candidates), sens, epsilon,
                                               monotonic=mono)


@validate(data=RECORDS, candidates=CANDIDATES, epsilon=EPSILON, neighbouring=NEIGHBOURING,
          rng=RNG)
def private_mode(data, candidates, epsilon: float,
                 neighbouring: str = "add_remove", rng=None):
    """ε-DP most common value: the exponential mechanism with the count score.

    Score ``u(D, r)`` = number of records equal to ``r`` (:func:`mode_utility`),
    sensitivity 1. Under add/remove neighbours the counts are monotone, so the
    sharper exponent ``ε·u`` is used ([DR14]_ Sec 3.4; [MT07]_); under
    ``neighbouring="replace"`` the score is not monotone and the exponent is
    ``ε·u/2`` ([DR14]_ Def 3.4, Thm 3.10). ``candidates`` is the public list of possible
    answers (e.g. all education levels); one of them is returned.
    """
    scores = mode_utility(data, candidates)
    sens, mono = _mode_rate_args(neighbouring)
    idx = exponential_mechanism(scores, sens, epsilon, monotonic=mono, rng=rng)
    return candidates[idx].item() if hasattr(candidates[idx], "item") else candidates[idx]


@validate(data=NUMERIC_RECORDS, candidates=GRID, epsilon=EPSILON, neighbouring=NEIGHBOURING)
def private_median_probabilities(data, candidates, epsilon: float,
                                 neighbouring: str = "add_remove") -> np.ndarray:
    """Exact output distribution of :func:`private_median` (one entry per candidate)."""
    return exponential_mechanism_probabilities(median_utility(data, candidates),
                                               _median_sensitivity(neighbouring), epsilon)


@validate(data=NUMERIC_RECORDS, candidates=GRID, epsilon=EPSILON, neighbouring=NEIGHBOURING, rng=RNG)
def private_median(data, candidates, epsilon: float,
                   neighbouring: str = "add_remove", rng=None) -> float:
    """ε-DP median over a public, discretised domain via the exponential mechanism.

    Samples a candidate ``r`` with probability ∝ ``exp(ε·u(r)/(2Δu))`` where
    ``u(r) = −|#{x_i < r} − #{x_i > r}|`` (:func:`median_utility`), with
    ``Δu = 1`` under add/remove neighbours and ``Δu = 2`` under replacement
    ([DR14]_ Def 3.4, Thm 3.10; the rank score is the classic example of
    [MT07]_). Unlike adding Laplace noise to the median, whose global
    sensitivity is the whole domain width, the error here is measured in
    *ranks*: with probability ≥ 1 − β the output has score within
    ``(2Δu/ε)·ln(k/β)`` of the best ([DR14]_ Thm 3.11), k = number of
    candidates. The grid is public, e.g. ``np.arange(17, 91)`` for ages: it must not depend
    on the data.
    """
    scores = median_utility(data, candidates)
    idx = exponential_mechanism(scores, _median_sensitivity(neighbouring), epsilon, rng=rng)
    return float(candidates[idx])


# --------------------------------------------------------- report noisy max
@validate(sensitivity=SENSITIVITY, epsilon=EPSILON, monotonic=FLAG)
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
    return _rnm_factor(monotonic) * sensitivity / epsilon


@validate(scores=SCORES, sensitivity=SENSITIVITY, epsilon=EPSILON, monotonic=FLAG, noise=NOISE,
          size=SIZE, rng=RNG)
def report_noisy_max(scores, sensitivity: float, epsilon: float,
                     monotonic: bool = False, noise: str = "laplace", size: int | None = None,
                     rng=None):
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

    Each score changes by at most Δ = ``sensitivity`` between neighbours; ``monotonic`` only
    if the scores are monotone (see the module docstring). ``size`` as in
    :func:`exponential_mechanism`.
    """
    z = _rnm_logits(scores, sensitivity, epsilon, monotonic)   # in units of b, best = 0
    return _argmax_with_noise(z, _rnm_draw(noise), size, rng)


@validate(scores=SCORES, sensitivity=SENSITIVITY, epsilon=EPSILON, monotonic=FLAG, noise=NOISE)
def report_noisy_max_probabilities(scores, sensitivity: float, epsilon: float,
                                   monotonic: bool = False, noise: str = "laplace") -> np.ndarray:
    """Exact output distribution of :func:`report_noisy_max`.

    For Gumbel noise this is the exponential-mechanism softmax. For Laplace and
    exponential noise it is ``Pr[i] = ∫ f(x − u_i/b) Π_{j≠i} F(x − u_j/b) dx``
    (f, F the standard density and CDF), evaluated by composite Gauss–Legendre
    quadrature split at every kink (absolute error ~1e-13; the sum is 1 to ~1e-12). Time
    grows as k², so Laplace and exponential noise take at most 1,000 candidates (a few
    seconds); Gumbel noise any number.
    """
    if noise != "gumbel" and scores.size > QUADRATURE_K_MAX:     # time grows as k²
        raise refuse("len(scores)", scores.size, f"≤ {QUADRATURE_K_MAX:,} with noise={noise!r}")
    z = _rnm_logits(scores, sensitivity, epsilon, monotonic)
    if noise == "gumbel":
        return special.softmax(z)
    if scores.size == 1:
        return np.ones(1)
    return _rnm_integral(z, noise)


# ------------------------------------------------------------------------ helpers
_CHUNK = 2_000_000            # max noise draws held in memory at once when sampling many
_QUAD_CHUNK = 4_000_000       # quadrature nodes × candidates evaluated at once
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(16)


def _labels(domain: Domain, name: str, value, min_size: int) -> np.ndarray:
    """A 1-D sequence of labels, or of real numbers in [-1e15, 1e15], kept as given (the
    mode returns one of them)."""
    try:
        arr = None if isinstance(value, (str, bytes)) or value is None else np.asarray(value)
    except (TypeError, ValueError):                   # ragged nested lists
        arr = None
    if arr is None or arr.ndim != 1 or arr.size < min_size:
        raise domain.refuse(name, value)
    if arr.dtype.kind in "biufc":
        _NUMERIC_LABELS(name, arr)                    # finite real numbers
    return arr


_NUMERIC_LABELS = array(ndim=1, min_size=0, low=-1e15, high=1e15, booleans=True)


def _distinct(name: str, arr: np.ndarray) -> np.ndarray:
    import pandas as pd

    if not pd.Index(arr).is_unique:
        raise refuse(name, arr, "distinct (each candidate listed once)")
    return arr


def _em_logits(u: np.ndarray, sensitivity: float, epsilon: float, monotonic: bool) -> np.ndarray:
    """``ε(u − max u)/(2Δu)``, or ``ε(u − max u)/Δu`` for a monotone score: every entry
    ≤ 0, exactly 0 at the best score(s), so ``exp`` cannot overflow."""
    rate = epsilon / sensitivity if monotonic else epsilon / (2.0 * sensitivity)
    return rate * (u - u.max())


def _rnm_factor(monotonic: bool) -> float:
    return 1.0 if monotonic else 2.0


def _rnm_logits(u: np.ndarray, sensitivity: float, epsilon: float, monotonic: bool) -> np.ndarray:
    """Scores in units of the noise scale b, best = 0: ``(u − max u)/b``."""
    b = _rnm_factor(monotonic) * sensitivity / epsilon
    return (1.0 / b) * (u - u.max())


def _mode_rate_args(neighbouring: str) -> tuple[float, bool]:
    # count scores: Δu = 1 in both models; monotone only under add/remove
    return 1.0, neighbouring == "add_remove"


def _median_sensitivity(neighbouring: str) -> float:
    return 1.0 if neighbouring == "add_remove" else 2.0


def _argmax_with_noise(logits: np.ndarray, draw, size, gen) -> int | np.ndarray:
    """``argmax(logits + noise)`` once (size None) or ``size`` times, in chunks; the rule
    tying ``size`` to the number of candidates: ``size·k ≤ DRAWS_MAX`` noise values."""
    k = logits.size
    if size is not None and size * k > DRAWS_MAX:
        raise refuse("size", size, f"≤ {DRAWS_MAX // k:,} with {k} candidates (size·k ≤ 2e7)")
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


def _rnm_draw(noise: str):
    if noise == "laplace":
        return lambda gen, shape: gen.laplace(0.0, 1.0, size=shape)
    if noise == "exponential":
        return lambda gen, shape: gen.exponential(1.0, size=shape)
    return _gumbel


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
    The nodes are processed in blocks so memory stays bounded.
    """
    logpdf, logcdf = _noise_logs(noise)
    edges = np.unique(np.concatenate([np.arange(-120.0, 41.0), z[z > -120.0]]))
    a, b = edges[:-1], edges[1:]
    half = (b - a) / 2.0
    x = ((a + b) / 2.0)[:, None] + half[:, None] * _GL_NODES[None, :]
    w = (half[:, None] * _GL_WEIGHTS[None, :]).ravel()
    x = x.ravel()
    rows = max(1, _QUAD_CHUNK // z.size)
    total = np.zeros(z.size)
    for start in range(0, x.size, rows):
        xs = x[start:start + rows]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = xs[:, None] - z[None, :]
            logF = logcdf(t)                          # (nodes, k)
            log_all = logF.sum(axis=1, keepdims=True)
            logf = logpdf(t)
            # exponential noise: f = F = 0 left of z_i; the integrand is 0 there
            expo = np.where(np.isneginf(logf), -np.inf, logf + log_all - logF)
        expo = np.where(np.isnan(expo), -np.inf, expo)
        total = total + w[start:start + rows] @ np.exp(expo)
    return total


# Engineering notes. The exponential mechanism and report-noisy-max share one file: they are
# compared against each other in notebook 08 and in the tests, and share their logits. In
# the teaching domain (|u| ≤ 1e15, ε/Δ in [1e-12, 1e9]) the logits rate·(u − max u) are
# finite (|·| ≤ 2e24) and the rate is a normal float, so no log-space fallback is needed;
# exp of a logit below −745 is 0, the exact limit. Sampling many draws is chunked to at most
# 2 M noise values in memory, the quadrature to 4 M nodes × candidates. Tests:
# tests/mechanisms/test_selection.py (closed forms, exact vs sampled, privacy ratios) and
# the generated cases of tests/test_domains.py.
