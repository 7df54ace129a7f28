"""What privacy costs private ERM, in theory: bounds on the excess regularised risk.

For the two algorithms of Chaudhuri, Monteleoni & Sarwate (2011) [CMS11]_ in
:mod:`dpteach.learning.erm`, the excess risk ``J(w_priv) − J(w*)`` of the private minimiser
over the exact one: given the norm of the noise vector drawn, or with a chosen probability.
Notebook 10 checks both against measured excess risks on Adult.

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate. Differentially
   private empirical risk minimization. JMLR 12:1069-1109, 2011.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import EPSILON, array, choice, integer, real, validate
from ..mechanisms.l2_laplace import l2_laplace_norm_distribution
from .erm import CURVATURE, MAX_DIM, objective_perturbation_constants, output_perturbation_beta
from .logistic import LAM, LOGISTIC_C, N_ROWS

__all__ = ["excess_risk_given_noise", "excess_risk_bound"]

METHOD = choice("output", "objective")
#: ‖b‖, one norm or several (the quantiles of excess_risk_bound stay far below 1e100)
NOISE_NORM = array(ndim=(0, 1), low=0.0, high=1e100, example=1.0)


@validate(method=METHOD, noise_norm=NOISE_NORM, n=N_ROWS, lam=LAM, Delta=real(0.0, 1e15),
          w_star_norm=real(0.0, 1e15).or_none(), c=CURVATURE)
def excess_risk_given_noise(method: str, noise_norm, n: int, lam: float, *, Delta: float = 0.0,
                            w_star_norm: float | None = None, c: float = LOGISTIC_C):
    """Deterministic bound on ``J(w_priv) − J(w*)`` given the noise norm ``‖b‖``.

    Derivations (rows with ‖z‖ ≤ 1, logistic loss with ``ℓ'' ≤ c``):

    * **output** (``w_priv = w* + b``): ``J`` is ``(c+Λ)``-smooth and
      ``∇J(w*) = 0``, so ``J(w*+b) − J(w*) ≤ (c+Λ)/2 · ‖b‖²``.
    * **objective**: ``w_priv`` minimises ``J_Δ(w) + bᵀw/n`` with
      ``J_Δ = J + (Δ/2)‖·‖²``, which is ``(Λ+Δ)``-strongly convex; at
      ``w_priv`` we have ``∇J_Δ = −b/n``, so by strong convexity
      ``J_Δ(w_priv) − min J_Δ ≤ ‖b‖²/(2n²(Λ+Δ))``. Subtracting the ridge
      terms, ``J(w_priv) − J(w*) ≤ ‖b‖²/(2n²(Λ+Δ)) + (Δ/2)‖w*‖²``, and
      ``(Λ/2)‖w*‖² ≤ J(w*) ≤ J(0) = log 2`` bounds ``‖w*‖²`` by ``2 log 2 / Λ``
      when ``w_star_norm`` is not given.

    These are the arguments of [CMS11]_'s learning-performance analysis (of
    Algorithms 1 and 2), written with explicit constants. ``noise_norm`` is ‖b‖ (a number,
    or an array of norms for an array of bounds), ``Delta`` the Δ of Algorithm 2 (objective
    perturbation only), ``w_star_norm`` ‖w*‖ if known and ``c`` the bound on ℓ''.
    """
    r = noise_norm
    if method == "output":
        out = 0.5 * (c + lam) * r ** 2
    else:
        out = r ** 2 / (2.0 * float(n) ** 2 * (lam + Delta))
        if Delta > 0:                           # the ridge term
            w2 = 2.0 * math.log(2.0) / lam if w_star_norm is None else w_star_norm ** 2
            out = out + 0.5 * Delta * w2
    return float(out) if np.ndim(out) == 0 else out


@validate(method=METHOD, n=N_ROWS, dim=integer(1, MAX_DIM, example=3), lam=LAM, epsilon=EPSILON,
          prob=real(0.0, 1.0, low_open=True, high_open=True, example=0.95), c=CURVATURE)
def excess_risk_bound(method: str, n: int, dim: int, lam: float, epsilon: float,
                      prob: float = 0.95, c: float = LOGISTIC_C) -> float:
    """Bound on ``J(w_priv) − J(w*)`` holding with probability ≥ ``prob``.

    Plugs the ``prob``-quantile of the noise norm (exactly
    ``Gamma(dim, 1/β)``, :func:`dpteach.mechanisms.l2_laplace.l2_laplace_norm_distribution`)
    into :func:`excess_risk_given_noise`. Roughly, with ``‖b‖ ≈ 2·dim/(·)``:

    * output perturbation: ``≈ 2(c+Λ)·dim²/(n²Λ²ε²)``;
    * objective perturbation (``Δ = 0``): ``≈ 2·dim²/(n²Λε'²)``;

    so objective perturbation's bound is smaller by a factor of order
    ``(c+Λ)/Λ``, the comparison made in [CMS11]_ (their bounds use
    ``log(dim/δ)`` tail factors instead of the exact quantile). ``dim`` is the dimension of
    ``w``, the intercept coordinate included.
    """
    if method == "output":
        beta, Delta = output_perturbation_beta(epsilon, n, lam), 0.0
    else:
        const = objective_perturbation_constants(epsilon, n, lam, c)
        beta, Delta = const.beta, const.Delta
    q = float(l2_laplace_norm_distribution(dim, beta).ppf(prob))     # ‖b‖ ~ Gamma(dim, 1/β)
    return excess_risk_given_noise(method, q, n, lam, Delta=Delta, c=c)
