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

from .._validation import RNG, integer, real, refuse, validate

__all__ = ["l2_laplace_norm_distribution", "sample_l2_laplace"]

DIM_MAX = 10 ** 7          #: largest dimension d
SIZE_MAX = 10 ** 7         #: largest number of vectors drawn at once
ENTRIES_MAX = 10 ** 7      #: largest ``size × dim`` (entries of the returned array, 80 MB)

#: the dimension d of the noise vector
DIM = integer(1, DIM_MAX, example=3)
#: the rate β of the density ∝ exp(−β‖b‖₂): wide enough for every β private ERM computes
#: (β = nΛε/2 and ε′/2 over the learners' domains); the mean norm d/β stays finite
BETA = real(1e-15, 1e15)


@validate(dim=DIM, beta=BETA)
def l2_laplace_norm_distribution(dim: int, beta: float):
    """Distribution of ‖b‖₂ when ``b`` has density ∝ ``exp(-β‖b‖₂)`` on ℝᵈ.

    It is ``Gamma(shape=dim, scale=1/beta)`` (see the module docstring for
    the derivation): mean ``dim/β``, standard deviation ``√dim/β``. Use its
    ``ppf`` for high-probability bounds on the noise norm, e.g.
    ``l2_laplace_norm_distribution(d, β).ppf(0.95)``. The noise density is that of
    Algorithms 1-2 of [CMS11]_.
    """
    return stats.gamma(a=dim, scale=1.0 / beta)


@validate(dim=integer(1, DIM_MAX, work=True, example=3), beta=BETA,
          size=integer(1, SIZE_MAX, work=True).or_none(), rng=RNG)
def sample_l2_laplace(dim: int, beta: float, size: int | None = None,
                      rng=None) -> np.ndarray:
    """Draw ``b ∈ ℝᵈ`` with density proportional to ``exp(-β‖b‖₂)``.

    Sampled as a uniform direction (normalised standard Gaussian vector)
    times an independent ``Gamma(shape=dim, scale=1/β)`` norm; this is the
    noise distribution ν(b) of [CMS11]_, used with
    ``β = nΛε/2`` by output perturbation (Algorithm 1) and with ``β = ε'/2``
    by objective perturbation (Algorithm 2); the uniform direction is Muller's [M59]_.
    Larger β means smaller noise (mean norm ``d/β``). ``size=None`` draws one vector of
    shape ``(dim,)``; an integer m draws m independent vectors, shape ``(m, dim)``, with
    ``m × dim ≤ 10**7`` (an 80 MB result).
    """
    if size is not None and size * dim > ENTRIES_MAX:
        raise refuse("size", size, f"≤ {ENTRIES_MAX // dim:,} with dim={dim} (size·dim ≤ 1e7)")
    m = 1 if size is None else size
    g = rng.standard_normal((m, dim))
    norms = np.linalg.norm(g, axis=1, keepdims=True)
    # A standard Gaussian vector is 0 with probability 0; redraw anyway so that a
    # (practically impossible) zero draw cannot produce NaN.
    while np.any(norms == 0.0):  # pragma: no cover
        bad = norms[:, 0] == 0.0
        g[bad] = rng.standard_normal((int(bad.sum()), dim))
        norms = np.linalg.norm(g, axis=1, keepdims=True)
    radius = rng.gamma(shape=dim, scale=1.0 / beta, size=(m, 1))
    out = g / norms * radius
    return out[0] if size is None else out


# Engineering notes. In the domain (β in [1e-15, 1e15], d ≤ 10**7) the Gamma scale 1/β and
# the noise norm, about d/β ≤ 1e22, are finite; no branch handles their overflow. Tests:
# tests/learning/test_erm.py (the l2-Laplace section), tests/mechanisms/test_l2_laplace.py
# (its domain's ends) and the generated cases of tests/test_domains.py.
