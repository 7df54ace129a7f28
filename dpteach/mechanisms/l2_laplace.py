"""The ℓ2-Laplace (or "Gamma-norm") distribution on ℝᵈ: density ∝ ``exp(-β‖b‖₂)``.

It is the noise of both private ERM algorithms of Chaudhuri, Monteleoni & Sarwate
(2011) [CMS11]_ (:mod:`dpteach.learning.erm`). It uses NumPy's floating-point generators
(a teaching implementation); the exact, floating-point-safe samplers are in
:mod:`dpteach.exact.discrete`.

The ℓ2-Laplace distribution
---------------------------
Write ``b = r·u`` with ``r = ‖b‖₂`` and ``u = b/‖b‖₂``. The density depends on
``b`` only through ``r``, so ``u`` is uniform on the unit sphere and
independent of ``r``. In polar coordinates the volume element is
``r^(d-1) dr dσ(u)``, hence ``r`` has density proportional to
``r^(d-1)·exp(-βr)`` on ``(0, ∞)``: a Gamma distribution with shape ``d`` and
scale ``1/β`` (mean ``d/β``). A uniform direction is a standard Gaussian
vector divided by its norm (Muller 1959).

Note that the coordinates of ``b`` are *not* independent Laplace variables
(that would be density ∝ ``exp(-β‖b‖₁)``); for large ``d`` the ℓ2-Laplace
vector is much longer than a one-dimensional intuition suggests: its norm
concentrates around ``d/β``.

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate. Differentially
   private empirical risk minimization. JMLR 12:1069-1109, 2011.
.. [M59] M. E. Muller. A note on a method for generating points uniformly on
   n-dimensional spheres. Communications of the ACM 2(4):19-20, 1959.
"""

from __future__ import annotations


import numpy as np
from scipy import stats

from .._validation import (
    ParameterError,
    check_int,
    check_positive,
    check_rng,
)

__all__ = ["l2_laplace_norm_distribution", "sample_l2_laplace"]


DIM_MAX = 10 ** 7          #: largest dimension d
SIZE_MAX = 10 ** 7         #: largest number of vectors drawn at once
ENTRIES_MAX = 10 ** 7      #: largest ``size × dim`` (entries of the returned array, 80 MB)


def _check_beta(beta) -> float:
    """β > 0 finite, with a finite Gamma scale 1/β (a subnormal β would give scale inf)."""
    beta = check_positive("beta", beta)
    if not np.isfinite(1.0 / beta):
        raise ParameterError(f"beta is so small that the noise scale 1/beta overflows; "
                             f"got beta={beta!r}")
    return beta


def l2_laplace_norm_distribution(dim: int, beta: float):
    """Distribution of ‖b‖₂ when ``b`` has density ∝ ``exp(-β‖b‖₂)`` on ℝᵈ.

    It is ``Gamma(shape=dim, scale=1/beta)`` (see the module docstring for
    the derivation): mean ``dim/β``, standard deviation ``√dim/β``. Use its
    ``ppf`` for high-probability bounds on the noise norm, e.g.
    ``l2_laplace_norm_distribution(d, β).ppf(0.95)``.

    Parameters
    ----------
    dim : int
        Dimension d, in [1, 10**7].
    beta : float
        Rate β > 0 (finite, with 1/β finite).

    Returns
    -------
    scipy.stats frozen distribution
        ``scipy.stats.gamma(a=dim, scale=1/beta)``.

    References
    ----------
    .. [CMS11] Chaudhuri, Monteleoni & Sarwate (2011), the noise density of Algorithms 1-2.
    """
    dim = check_int("dim", dim, minimum=1, maximum=DIM_MAX)
    beta = _check_beta(beta)
    return stats.gamma(a=dim, scale=1.0 / beta)


def sample_l2_laplace(dim: int, beta: float, size: int | None = None, rng=None) -> np.ndarray:
    """Draw ``b ∈ ℝᵈ`` with density proportional to ``exp(-β‖b‖₂)``.

    Sampled as a uniform direction (normalised standard Gaussian vector)
    times an independent ``Gamma(shape=dim, scale=1/β)`` norm; this is the
    noise distribution ν(b) of [CMS11]_, used with
    ``β = nΛε/2`` by output perturbation (Algorithm 1) and with ``β = ε'/2``
    by objective perturbation (Algorithm 2).

    Parameters
    ----------
    dim : int
        Dimension d, in [1, 10**7].
    beta : float
        Rate β > 0 (finite, with 1/β finite). Larger β means smaller noise
        (mean norm ``d/β``).
    size : int or None
        ``None`` for one vector of shape ``(dim,)``; an integer m in
        [1, 10**7] for m independent vectors, shape ``(m, dim)``, with
        ``m × dim ≤ 10**7`` (an 80 MB result).
    rng : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray
        Shape ``(dim,)`` or ``(size, dim)``.

    References
    ----------
    .. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate. Differentially
       private empirical risk minimization. JMLR 12, 2011, Algorithms 1 and 2.
    .. [M59] M. E. Muller. A note on a method for generating points uniformly
       on n-dimensional spheres. CACM 2(4), 1959.
    """
    dim = check_int("dim", dim, minimum=1, maximum=DIM_MAX)
    beta = _check_beta(beta)
    if size is not None:
        size = check_int("size", size, minimum=1, maximum=SIZE_MAX)
        if size * dim > ENTRIES_MAX:
            raise ParameterError(f"size × dim must be at most {ENTRIES_MAX:.0e} entries; got "
                                 f"size={size}, dim={dim}")
    gen = check_rng(rng)
    m = 1 if size is None else size
    g = gen.standard_normal((m, dim))
    norms = np.linalg.norm(g, axis=1, keepdims=True)
    # A standard Gaussian vector is 0 with probability 0; guard anyway so that
    # a (practically impossible) zero draw cannot produce NaN.
    while np.any(norms == 0.0):  # pragma: no cover
        bad = norms[:, 0] == 0.0
        g[bad] = gen.standard_normal((int(bad.sum()), dim))
        norms = np.linalg.norm(g, axis=1, keepdims=True)
    radius = gen.gamma(shape=dim, scale=1.0 / beta, size=(m, 1))
    out = g / norms * radius
    return out[0] if size is None else out
