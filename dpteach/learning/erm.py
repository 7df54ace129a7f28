"""Differentially private logistic regression by empirical risk minimisation.

This module reproduces the two algorithms of Chaudhuri, Monteleoni & Sarwate
(2011) [CMS11]_ for L2-regularised logistic regression:

* **output perturbation** ([CMS11]_ Algorithm 1): solve the regularised ERM
  problem exactly, then add noise ``b`` with density ∝ ``exp(-β‖b‖)``,
  ``β = nΛε/2``. The minimiser has ℓ2 sensitivity ``2/(nΛ)`` ([CMS11]_
  Corollary 8), and the mechanism is ε-DP ([CMS11]_ Theorem 6);
* **objective perturbation** ([CMS11]_ Algorithm 2): add a random linear
  term ``bᵀw/n`` (and, if needed, an extra ridge term ``Δ/2·‖w‖²``) to the
  objective and solve the perturbed problem exactly. It is ε-DP by
  [CMS11]_ Theorem 9 (with ``c = 1/4`` for the logistic loss).

Notation (the paper's)
----------------------
Data ``(x_i, y_i)``, ``i = 1..n``, ``y_i ∈ {-1, +1}``, ``‖x_i‖₂ ≤ 1``. The
logistic loss is ``ℓ(z) = log(1 + e^(-z))`` evaluated at ``z = y·wᵀx``; it is
convex with ``|ℓ'(z)| ≤ 1`` and ``0 < ℓ''(z) ≤ c = 1/4``. The regularised
empirical risk is

    J(w) = (1/n) Σ_i ℓ(y_i wᵀx_i) + (Λ/2)‖w‖².

**Λ versus scikit-learn's C.** scikit-learn's ``LogisticRegression`` minimises
``C·Σ_i ℓ(y_i wᵀx_i) + ½‖w‖²``; dividing by ``nC`` gives ``J`` with
``Λ = 1/(nC)``. :class:`PrivateLogisticRegression` accepts either ``lam``
(Λ) or ``C`` (never both); see :func:`lam_from_C`.

Assumptions behind the guarantees (all are enforced here)
---------------------------------------------------------
1. **Bounded rows.** Every training row is mapped into the unit ball by a
   fixed, data-independent rule (:func:`bound_rows`): a row with
   ``‖x‖ > data_norm`` is rescaled to norm ``data_norm``, then every row is
   divided by the public constant ``data_norm``. No statistic of the data
   (no mean, no standard deviation, no maximum) is used, so the map itself
   leaks nothing; put only data-independent transformers in front of the
   estimator (a ``StandardScaler`` fitted on the private data would break
   the guarantee).
2. **Intercept.** The paper's analysis has no unregularised intercept. With
   ``fit_intercept=True`` a constant feature is appended *before* the
   norm bound: ``z = [x̃, 1]/√2`` with ``‖x̃‖ ≤ 1``, so ``‖z‖ ≤ 1`` still holds
   and the intercept is an ordinary, regularised coordinate of ``w``. The
   guarantee therefore covers it.
3. **Exact minimisation.** Both proofs assume the exact minimiser. We solve
   the strongly convex problems with Newton's method to a gradient norm of
   ``1e-10`` (see :func:`fit_logistic_erm`). For approximate solvers see
   Wu et al. (2017) and Iyengar et al. (2019), who bound the extra error.
4. **Neighbouring data sets** differ in one row (replacement), ``n`` is
   public, and the released model is ``w`` only: the noise vector must stay
   secret (``w`` and ``b`` together reveal ``w*`` or ``∇J``). The estimator
   never stores the noise; the low-level functions return it for teaching.
   The two class labels are public (they are read off ``y`` into ``classes_``).

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate. Differentially
   private empirical risk minimization. JMLR 12:1069-1109, 2011.
.. [DMNS06] C. Dwork, F. McSherry, K. Nissim and A. Smith. Calibrating noise
   to sensitivity in private data analysis. TCC 2006.
.. [WLKCJN17] X. Wu, F. Li, A. Kumar, K. Chaudhuri, S. Jha and J. Naughton.
   Bolt-on differential privacy for scalable stochastic gradient
   descent-based analytics. SIGMOD 2017.
.. [IUTTW19] R. Iyengar, J. P. Near, D. Song, O. Thakkar, A. Thakurta and
   L. Wang. Towards practical differentially private convex optimization.
   IEEE S&P 2019.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import linalg, sparse, special
from scipy.linalg import blas
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import (
    ParameterError,
    check_array,
    check_choice,
    check_epsilon,
    check_int,
    check_positive,
    check_probability,
    check_rng,
)
from ..samplers import l2_laplace_norm_distribution, sample_l2_laplace

__all__ = [
    "LOGISTIC_C",
    "DEFAULT_LAM",
    "lam_from_C",
    "C_from_lam",
    "bound_rows",
    "logistic_objective",
    "loss_hessian",
    "fit_logistic_erm",
    "output_perturbation_beta",
    "ObjectivePerturbationConstants",
    "objective_perturbation_constants",
    "PrivateFit",
    "output_perturbation",
    "objective_perturbation",
    "PrivateLogisticRegression",
    "SensitivityResult",
    "empirical_sensitivity",
    "excess_risk_bound",
    "excess_risk_given_noise",
    "AccuracyCurve",
    "accuracy_vs_epsilon",
    "TOY_DATA_NORM",
    "make_toy_data",
]

#: Upper bound c on the second derivative of the logistic loss:
#: ℓ''(z) = σ(z)σ(-z) ≤ 1/4, with equality at z = 0 (the constant [CMS11] use for logistic
#: regression).
LOGISTIC_C = 0.25
#: Λ used when neither ``lam`` nor ``C`` is given.
DEFAULT_LAM = 1e-3
_NORM_TOL = 1e-9  # floating-point slack when checking ‖z‖ ≤ 1
_METHODS = ("objective", "output", "none")


# ----------------------------------------------------------------- helpers
def lam_from_C(C: float, n: int) -> float:
    """Λ of [CMS11]_ equivalent to scikit-learn's ``C``: ``Λ = 1/(nC)``.

    scikit-learn minimises ``C·Σℓ + ½‖w‖²``; divided by ``nC`` this is
    ``(1/n)Σℓ + (1/(2nC))‖w‖²`` = ``J(w)`` with ``Λ = 1/(nC)``.

    Parameters
    ----------
    C : float
        Inverse regularisation strength, finite and > 0.
    n : int
        Number of training rows, ≥ 1.
    """
    C = check_positive("C", C)
    n = check_int("n", n, minimum=1)
    return 1.0 / (n * C)


def C_from_lam(lam: float, n: int) -> float:
    """scikit-learn's ``C`` equivalent to Λ: ``C = 1/(nΛ)`` (inverse of :func:`lam_from_C`)."""
    lam = check_positive("lam", lam)
    n = check_int("n", n, minimum=1)
    return 1.0 / (n * lam)


def bound_rows(X, data_norm: float = 1.0, fit_intercept: bool = True) -> np.ndarray:
    """Map rows into the unit ℓ2 ball by a fixed, data-independent rule.

    Each row ``x`` becomes ``x̃ = x / max(data_norm, ‖x‖₂)``: rows with
    ``‖x‖ ≤ data_norm`` are divided by the public constant ``data_norm``;
    longer rows are first shrunk to norm ``data_norm`` (clipping). Then
    ``‖x̃‖ ≤ 1``. With ``fit_intercept`` a constant feature is appended and
    the result halved in squared norm, ``z = [x̃, 1]/√2``, so ``‖z‖ ≤ 1``.

    Every row is transformed using only itself and public constants, so
    the map is the same for neighbouring data sets except on the changed row,
    which is what the analysis of [CMS11]_ (assumption ``‖x_i‖ ≤ 1``) needs.

    Parameters
    ----------
    X : array-like, shape (n, d)
        Finite feature rows.
    data_norm : float
        Public bound ``R > 0`` on the row norm.
    fit_intercept : bool
        Append the constant feature.

    Returns
    -------
    numpy.ndarray, shape (n, d) or (n, d + 1)
    """
    X = check_array("X", X, ndim=2)
    data_norm = check_positive("data_norm", data_norm)
    fit_intercept = _check_bool("fit_intercept", fit_intercept)
    norms = np.linalg.norm(X, axis=1)
    Xt = X / np.maximum(norms, data_norm)[:, None]
    if fit_intercept:
        Xt = np.hstack([Xt, np.ones((Xt.shape[0], 1))]) / math.sqrt(2.0)
    return Xt


def _check_bool(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {name}={value!r}")
    return bool(value)


def _check_Zs(Z, s):
    """Validate bounded rows ``Z`` (‖z‖ ≤ 1) and labels ``s`` in {-1, +1}."""
    Z = check_array("Z", Z, ndim=2)
    s = check_array("s", s, ndim=1)
    if s.shape[0] != Z.shape[0]:
        raise ParameterError(f"s must have one label per row of Z; got len(s)={s.shape[0]} "
                             f"and Z with {Z.shape[0]} rows")
    if not np.all(np.abs(s) == 1.0):
        raise ParameterError("s must contain only the labels -1 and +1; "
                             f"got values {np.unique(s)[:5]!r}")
    norms = np.linalg.norm(Z, axis=1)
    if norms.max() > 1.0 + _NORM_TOL:
        raise ParameterError("Z must have rows of l2 norm <= 1 (the assumption of [CMS11]); "
                             f"got a row of norm {norms.max():.6g}. Map rows with bound_rows().")
    return Z, s


def logistic_objective(w, Z, s, lam: float) -> float:
    """Regularised empirical risk ``J(w) = (1/n)Σ log(1+exp(-s_i wᵀz_i)) + (Λ/2)‖w‖²``.

    The regularised objective of [CMS11]_ with the logistic loss and
    ``N(w) = ½‖w‖²``.

    Parameters
    ----------
    w : array-like, shape (d,)
    Z : array-like, shape (n, d)
        Rows with ‖z‖ ≤ 1 (see :func:`bound_rows`).
    s : array-like, shape (n,)
        Labels in {-1, +1}.
    lam : float
        Λ > 0.
    """
    Z, s = _check_Zs(Z, s)
    lam = check_positive("lam", lam)
    w = check_array("w", w, ndim=1)
    if w.shape[0] != Z.shape[1]:
        raise ParameterError(f"w must have {Z.shape[1]} entries (columns of Z); got {w.shape[0]}")
    return _risk(w, _Design(Z), s, lam, None)


class _Design:
    """Bounded rows ``Z`` with fast products: CSR storage when ``Z`` is sparse
    (one-hot data such as Adult), a symmetric rank-k update for the Hessian
    otherwise. Purely a speed device: the numbers are the same."""

    def __init__(self, Z):
        self.n, self.d = Z.shape
        density = np.count_nonzero(Z) / Z.size
        self.sparse = density < 0.3 and Z.size > 50_000
        if self.sparse:
            self.Z = sparse.csr_matrix(Z)
            self.ZT = self.Z.T.tocsr()
        else:
            self.Z = np.ascontiguousarray(Z)

    def margins(self, w, s):
        return s * (self.Z @ w)

    def rmatvec(self, v):
        return self.ZT @ v if self.sparse else self.Z.T @ v

    def hessian(self, h):
        """``(1/n) Σ h_i z_i z_iᵀ`` (upper triangle and symmetric part filled)."""
        if self.sparse:
            Zh = self.Z.copy()
            Zh.data *= np.repeat(h / self.n, np.diff(self.Z.indptr))
            return (self.ZT @ Zh).toarray()
        B = np.asfortranarray(self.Z * np.sqrt(h / self.n)[:, None])
        upper = blas.dsyrk(1.0, B, trans=1)
        return np.triu(upper) + np.triu(upper, 1).T


def _data_hessian(Z, s, w):
    p = special.expit(-s * (Z @ w))
    return _Design(Z).hessian(p * (1.0 - p))


def loss_hessian(w, Z, s) -> np.ndarray:
    """Hessian of the average logistic loss, ``(1/n) Σ ℓ''(s_i wᵀz_i) z_i z_iᵀ``.

    The Hessian of ``J`` is this plus ``Λ·I``. Its eigenvalues lie in
    ``[0, c·max‖z‖²] ⊆ [0, 1/4]`` for unit-ball rows.

    Parameters
    ----------
    w : array-like, shape (d,)
    Z : array-like, shape (n, d)
        Rows with ‖z‖ ≤ 1.
    s : array-like, shape (n,)
        Labels in {-1, +1}.
    """
    Z, s = _check_Zs(Z, s)
    w = check_array("w", w, ndim=1)
    if w.shape[0] != Z.shape[1]:
        raise ParameterError(f"w must have {Z.shape[1]} entries (columns of Z); got {w.shape[0]}")
    return _data_hessian(Z, s, w)


def _risk(w, D, s, reg, lin):
    val = np.mean(np.logaddexp(0.0, -D.margins(w, s))) + 0.5 * reg * (w @ w)
    if lin is not None:
        val += lin @ w
    return float(val)


def _solve_newton(D, s, reg, lin, w0, gtol, max_iter, hess0=None):
    """Damped Newton's method for ``(1/n)Σℓ + (reg/2)‖w‖² + linᵀw``.

    The objective is ``reg``-strongly convex and ``(1/4 + reg)``-smooth on
    unit-ball data. Each step solves ``H d = ∇`` by Cholesky and backtracks
    (Armijo) along ``-d``, so the method converges globally and quadratically
    near the optimum. ``hess0`` is an optional loss Hessian used for the first
    step instead of the one at ``w0`` (a warm start). Once the Newton
    decrement ``∇ᵀH⁻¹∇`` is at round-off level the full step is taken (the
    objective can no longer resolve the decrease). Returns
    ``(w, n_iter, grad_norm)``.
    """
    n, d = D.n, D.d
    w = np.zeros(d) if w0 is None else np.array(w0, dtype=float, copy=True)
    eye = np.eye(d)
    f = _risk(w, D, s, reg, lin)
    gnorm = np.inf
    for it in range(max_iter + 1):
        p = special.expit(-D.margins(w, s))         # = -ℓ'(margin) ∈ (0, 1)
        grad = -D.rmatvec(s * p) / n + reg * w
        if lin is not None:
            grad = grad + lin
        gnorm = float(np.max(np.abs(grad)))
        if gnorm <= gtol or it == max_iter:
            return w, it, gnorm
        hess = hess0 if (it == 0 and hess0 is not None) else D.hessian(p * (1.0 - p))
        step = linalg.cho_solve(linalg.cho_factor(hess + reg * eye), grad)
        decrement = float(grad @ step)
        if decrement < 1e-13:
            w = w - step
            f = _risk(w, D, s, reg, lin)
            continue
        t = 1.0
        while True:
            w_new = w - t * step
            f_new = _risk(w_new, D, s, reg, lin)
            if f_new <= f - 1e-4 * t * decrement or t < 1e-10:
                break
            t *= 0.5
        w, f = w_new, f_new
    return w, max_iter, gnorm  # pragma: no cover


def fit_logistic_erm(Z, s, lam: float, *, linear=None, extra_reg: float = 0.0, w0=None,
                     hess0=None, gtol: float = 1e-10, max_iter: int = 100) -> np.ndarray:
    """Exact minimiser of the (possibly perturbed) regularised logistic risk.

    Minimises ``J(w) + linearᵀw + (extra_reg/2)‖w‖²`` where
    ``J(w) = (1/n)Σ log(1+exp(-s_i wᵀz_i)) + (Λ/2)‖w‖²`` ([CMS11]_).
    With ``linear = b/n`` and ``extra_reg = Δ`` this is the perturbed
    objective of [CMS11]_ Algorithm 2. The problem is ``(Λ+extra_reg)``-
    strongly convex; damped Newton's method (Cholesky solves, Armijo
    backtracking) runs until the largest gradient entry is ``≤ gtol``
    (``1e-10`` by default), so the result is the exact minimiser to
    floating-point accuracy, as the privacy proofs assume.

    Parameters
    ----------
    Z : array-like, shape (n, d)
        Rows with ‖z‖ ≤ 1 (see :func:`bound_rows`).
    s : array-like, shape (n,)
        Labels in {-1, +1}.
    lam : float
        Λ > 0.
    linear : array-like, shape (d,), optional
        Linear term added to the objective.
    extra_reg : float
        Extra ridge coefficient ≥ 0.
    w0 : array-like, shape (d,), optional
        Starting point (warm start); zeros by default.
    hess0 : array-like, shape (d, d), optional
        Loss Hessian ``(1/n)Σℓ''·z zᵀ`` to start from (e.g. the one at ``w0``,
        see :func:`loss_hessian`). Like ``w0`` it changes the running time,
        not the result.
    gtol : float
        Tolerance on the gradient's max-norm, > 0.
    max_iter : int
        Maximum (quasi-)Newton iterations; a :class:`~sklearn.exceptions.ConvergenceWarning`
        is issued if it is reached.

    Returns
    -------
    numpy.ndarray, shape (d,)
    """
    Z, s = _check_Zs(Z, s)
    lam = check_positive("lam", lam)
    extra_reg = float(extra_reg)
    if not np.isfinite(extra_reg) or extra_reg < 0:
        raise ParameterError(f"extra_reg must be a finite number >= 0; got extra_reg={extra_reg!r}")
    gtol = check_positive("gtol", gtol)
    max_iter = check_int("max_iter", max_iter, minimum=1)
    d = Z.shape[1]
    if linear is not None:
        linear = check_array("linear", linear, ndim=1)
        if linear.shape[0] != d:
            raise ParameterError(f"linear must have {d} entries; got {linear.shape[0]}")
    if w0 is not None:
        w0 = check_array("w0", w0, ndim=1)
        if w0.shape[0] != d:
            raise ParameterError(f"w0 must have {d} entries; got {w0.shape[0]}")
    if hess0 is not None:
        hess0 = check_array("hess0", hess0, ndim=2)
        if hess0.shape != (d, d):
            raise ParameterError(f"hess0 must have shape ({d}, {d}); got {hess0.shape}")
    return _fit(_Design(Z), s, lam + extra_reg, linear, w0, hess0, gtol, max_iter)


def _fit(D, s, reg, lin, w0=None, hess0=None, gtol=1e-10, max_iter=100):
    w, n_iter, gnorm = _solve_newton(D, s, reg, lin, w0, gtol, max_iter, hess0)
    if gnorm > gtol:
        warnings.warn(f"Newton's method stopped after {n_iter} iterations with gradient norm "
                      f"{gnorm:.3g} > gtol={gtol:g}; the privacy proofs assume the exact "
                      "minimiser.", ConvergenceWarning, stacklevel=3)
    return w


# ------------------------------------------------------- the two mechanisms
def output_perturbation_beta(epsilon: float, n: int, lam: float) -> float:
    """Noise rate ``β = nΛε/2`` of output perturbation ([CMS11]_ Algorithm 1).

    The regularised-ERM minimiser has ℓ2 sensitivity ``2/(nΛ)`` when
    ``‖x‖ ≤ 1``, ``|ℓ'| ≤ 1`` and the regulariser is ``(Λ/2)‖w‖²``
    ([CMS11]_ Corollary 8). Noise with density ∝ ``exp(-β‖b‖)`` makes the
    output ε-DP when ``β = ε / sensitivity = nΛε/2`` ([CMS11]_ Theorem 6,
    after [DMNS06]_). The noise norm is ``Gamma(d, 1/β)``: mean ``2d/(nΛε)``.

    Parameters
    ----------
    epsilon : float
        ε > 0.
    n : int
        Number of training rows (public), ≥ 1.
    lam : float
        Λ > 0.
    """
    epsilon = check_epsilon("epsilon", epsilon)
    n = check_int("n", n, minimum=1)
    lam = check_positive("lam", lam)
    return n * lam * epsilon / 2.0


@dataclass(frozen=True)
class ObjectivePerturbationConstants:
    """Constants of [CMS11]_ Algorithm 2 for one ``(ε, n, Λ, c)``.

    Attributes
    ----------
    epsilon : float
        Total privacy budget ε.
    epsilon_prime : float
        Budget left for the noise, ε'.
    Delta : float
        Extra ridge coefficient Δ ≥ 0 added to the objective.
    beta : float
        Noise rate β = ε'/2 (noise norm ~ Gamma(d, 1/β)).
    log_jacobian : float
        The part of ε paid for the change of variables,
        ``log(1 + 2c/(n(Λ+Δ)) + c²/(n²(Λ+Δ)²))``; ``epsilon_prime +
        log_jacobian = epsilon``.
    """

    epsilon: float
    epsilon_prime: float
    Delta: float
    beta: float
    log_jacobian: float


def objective_perturbation_constants(epsilon: float, n: int, lam: float,
                                     c: float = LOGISTIC_C) -> ObjectivePerturbationConstants:
    """ε', Δ and β of objective perturbation ([CMS11]_ Algorithm 2).

    ``ε' = ε − log(1 + 2c/(nΛ) + c²/(n²Λ²))``. If ``ε' > 0`` then ``Δ = 0``;
    otherwise ``Δ = c/(n(e^(ε/4) − 1)) − Λ`` and ``ε' = ε/2``. The noise rate is
    ``β = ε'/2``. Algorithm 2 is then ε-DP ([CMS11]_ Theorem 9) provided
    ``‖x_i‖ ≤ 1``, the loss is convex and twice differentiable with
    ``|ℓ'| ≤ 1`` and ``|ℓ''| ≤ c`` (``c = 1/4`` for the logistic loss), and
    the regulariser is ``(Λ/2)‖w‖²``.

    Why the two pieces add up to ε: the noise is paid ``ε'`` (changing one row
    moves the required ``b`` by at most 2 in norm, and the density ratio is
    ``e^(β·2) = e^(ε')``), and the Jacobian of the map ``b ↦ w`` changes by a
    factor at most ``(1 + c/(n(Λ+Δ)))²``. In the second branch
    ``c/(n(Λ+Δ)) = e^(ε/4) − 1``, so the Jacobian costs exactly ``ε/2``.

    Parameters
    ----------
    epsilon : float
        ε > 0.
    n : int
        Number of training rows (public), ≥ 1.
    lam : float
        Λ > 0.
    c : float
        Bound on ``|ℓ''|`` (> 0); 1/4 for logistic regression.
    """
    epsilon = check_epsilon("epsilon", epsilon)
    n = check_int("n", n, minimum=1)
    lam = check_positive("lam", lam)
    c = check_positive("c", c)
    ratio = c / (n * lam)
    eps_prime = epsilon - 2.0 * math.log1p(ratio)     # log(1 + 2r + r²) = 2 log(1 + r)
    if eps_prime > 0:
        Delta = 0.0
    else:
        Delta = c / (n * math.expm1(epsilon / 4.0)) - lam
        eps_prime = epsilon / 2.0
    log_jac = 2.0 * math.log1p(c / (n * (lam + Delta)))
    return ObjectivePerturbationConstants(epsilon=epsilon, epsilon_prime=eps_prime,
                                          Delta=Delta, beta=eps_prime / 2.0,
                                          log_jacobian=log_jac)


@dataclass(frozen=True)
class PrivateFit:
    """Result of a low-level private fit (for teaching and tests).

    ``noise`` is the secret vector ``b``: a real deployment releases ``w``
    only. ``constants`` is set for objective perturbation.
    """

    w: np.ndarray
    noise: np.ndarray
    epsilon: float
    method: str
    constants: ObjectivePerturbationConstants | None = None


def output_perturbation(Z, s, epsilon: float, lam: float, rng=None, *, w_star=None) -> PrivateFit:
    """ε-DP logistic regression by output perturbation ([CMS11]_ Algorithm 1).

    Returns ``w* + b`` where ``w* = argmin J`` and ``b`` has density
    ∝ ``exp(-β‖b‖)`` with ``β = nΛε/2`` (:func:`output_perturbation_beta`).
    Private by [CMS11]_ Theorem 6 under ``‖z_i‖ ≤ 1`` (checked).

    Parameters
    ----------
    Z : array-like, shape (n, d)
        Rows with ‖z‖ ≤ 1 (see :func:`bound_rows`).
    s : array-like, shape (n,)
        Labels in {-1, +1}.
    epsilon, lam : float
        ε > 0 and Λ > 0.
    rng : None, int or numpy.random.Generator
    w_star : array-like, optional
        The exact non-private minimiser for these ``(Z, s, lam)``, if already
        computed (saves the solve when drawing many private outputs). It must
        be the exact minimiser; it is not re-checked beyond its shape.
    """
    Z, s = _check_Zs(Z, s)
    epsilon = check_epsilon("epsilon", epsilon)
    lam = check_positive("lam", lam)
    gen = check_rng(rng)
    if w_star is not None:
        w_star = check_array("w_star", w_star, ndim=1)
        if w_star.shape[0] != Z.shape[1]:
            raise ParameterError(f"w_star must have {Z.shape[1]} entries; got {w_star.shape[0]}")
    return _output_fit(_Design(Z), s, epsilon, lam, gen, w_star)


def _output_fit(D, s, epsilon, lam, gen, w_star=None):
    if w_star is None:
        w_star = _fit(D, s, lam, None)
    b = sample_l2_laplace(D.d, output_perturbation_beta(epsilon, D.n, lam), rng=gen)
    return PrivateFit(w=w_star + b, noise=b, epsilon=epsilon, method="output")


def objective_perturbation(Z, s, epsilon: float, lam: float, rng=None, *,
                           c: float = LOGISTIC_C, w0=None, hess0=None) -> PrivateFit:
    """ε-DP logistic regression by objective perturbation ([CMS11]_ Algorithm 2).

    With ``(ε', Δ, β)`` from :func:`objective_perturbation_constants`, draws
    ``b`` with density ∝ ``exp(-β‖b‖)`` and returns the exact minimiser of

        J(w) + bᵀw/n + (Δ/2)‖w‖².

    Private by [CMS11]_ Theorem 9 under ``‖z_i‖ ≤ 1`` (checked) and the loss
    conditions stated there (met by the logistic loss with ``c = 1/4``).

    Parameters
    ----------
    Z : array-like, shape (n, d)
        Rows with ‖z‖ ≤ 1 (see :func:`bound_rows`).
    s : array-like, shape (n,)
        Labels in {-1, +1}.
    epsilon, lam : float
        ε > 0 and Λ > 0.
    rng : None, int or numpy.random.Generator
    c : float
        Bound on the loss's second derivative; keep 1/4 for the logistic loss.
    w0, hess0 : array-like, optional
        Warm start for the solver (see :func:`fit_logistic_erm`); they change
        the running time, not the result.
    """
    Z, s = _check_Zs(Z, s)
    epsilon = check_epsilon("epsilon", epsilon)
    lam = check_positive("lam", lam)
    c = check_positive("c", c)
    if c < LOGISTIC_C:
        raise ParameterError(f"c must be >= {LOGISTIC_C} (the logistic loss has l''(0) = 1/4; a "
                             f"smaller c voids the guarantee); got c={c!r}")
    gen = check_rng(rng)
    d = Z.shape[1]
    start = {}
    for name, arr, shape in (("w0", w0, (d,)), ("hess0", hess0, (d, d))):
        if arr is not None:
            arr = check_array(name, arr, ndim=len(shape))
            if arr.shape != shape:
                raise ParameterError(f"{name} must have shape {shape}; got {arr.shape}")
        start[name] = arr
    return _objective_fit(_Design(Z), s, epsilon, lam, gen, c, start["w0"], start["hess0"])


def _objective_fit(D, s, epsilon, lam, gen, c=LOGISTIC_C, w0=None, hess0=None):
    const = objective_perturbation_constants(epsilon, D.n, lam, c)
    b = sample_l2_laplace(D.d, const.beta, rng=gen)
    w = _fit(D, s, lam + const.Delta, b / D.n, w0, hess0)
    return PrivateFit(w=w, noise=b, epsilon=epsilon, method="objective", constants=const)


# --------------------------------------------------------------- estimator
class PrivateLogisticRegression(ClassifierMixin, BaseEstimator):
    """ε-differentially private L2-regularised logistic regression [CMS11]_.

    A scikit-learn classifier (binary labels) that trains by objective
    perturbation ([CMS11]_ Algorithm 2, Theorem 9) or output perturbation
    ([CMS11]_ Algorithm 1, Theorem 6), or, with ``method="none"``, solves
    the same regularised problem without privacy (the baseline).

    Training rows are mapped into the unit ball by :func:`bound_rows`: rows
    longer than ``data_norm`` are shrunk to norm ``data_norm`` and all rows
    are divided by ``data_norm`` (a public constant; **no data-dependent
    scaling happens inside the estimator**). With ``fit_intercept`` the
    constant feature is appended inside that ball (``z = [x/R, 1]/√2``), so the
    intercept is regularised like every other weight and covered by the
    guarantee. Prediction uses the resulting linear model on the raw
    features: ``decision_function(X) = X @ coef_.T + intercept_``.

    Parameters
    ----------
    epsilon : float, default 1.0
        Privacy budget ε > 0 of one call to :meth:`fit` (δ = 0).
    method : {"objective", "output", "none"}, default "objective"
        Objective perturbation, output perturbation, or the non-private
        regularised baseline (``epsilon_`` is then ``inf``).
    lam : float, optional
        Λ > 0 in ``J(w) = (1/n)Σℓ(y wᵀz) + (Λ/2)‖w‖²``. Give ``lam`` or ``C``,
        not both; if neither is given Λ = :data:`DEFAULT_LAM`.
    C : float, optional
        scikit-learn's inverse regularisation strength; Λ = 1/(nC).
    data_norm : float, default 1.0
        Public bound R on the ℓ2 norm of a feature row (rows beyond it are
        clipped to it). Choose it from the feature map, never from the data.
    fit_intercept : bool, default True
        Learn an intercept (as a regularised constant feature, see above).
    rng : None, int or numpy.random.Generator
        Randomness of the noise. An int makes :meth:`fit` reproducible (the
        same noise on every call); a Generator is advanced by each call
        (note that :func:`sklearn.base.clone` copies it, so clones start from
        the same state). Use a fixed seed for one release only: two fits on
        different data with the same seed share their noise, which cancels in
        the difference of the two models (composition assumes independent noise).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    n_features_in_ : int
    lam_ : float
        The Λ used.
    epsilon_ : float
        Privacy spent by the fit (``inf`` for ``method="none"``).
    delta_ : float
        Always 0 (pure ε-DP).
    epsilon_prime_, Delta_ : float or None
        For objective perturbation: the constants ε' and Δ of Algorithm 2
        (``None`` for the other methods).

    References
    ----------
    .. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate. Differentially
       private empirical risk minimization. JMLR 12:1069-1109, 2011.

    Examples
    --------
    >>> from dpteach.learning import PrivateLogisticRegression
    >>> clf = PrivateLogisticRegression(epsilon=1.0, lam=1e-3, rng=0)
    """

    def __init__(self, epsilon=1.0, method="objective", lam=None, C=None, data_norm=1.0,
                 fit_intercept=True, rng=None):
        self.epsilon = epsilon
        self.method = method
        self.lam = lam
        self.C = C
        self.data_norm = data_norm
        self.fit_intercept = fit_intercept
        self.rng = rng

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.non_deterministic = self.rng is None and self.method != "none"
        # a private classifier may legitimately score poorly on tiny data sets
        tags.classifier_tags.poor_score = self.method != "none"
        return tags

    def _resolve_lam(self, n):
        if self.lam is not None and self.C is not None:
            raise ParameterError("give lam or C, not both; got "
                                 f"lam={self.lam!r} and C={self.C!r} (Λ = 1/(n·C))")
        if self.C is not None:
            return lam_from_C(self.C, n)
        if self.lam is not None:
            return check_positive("lam", self.lam)
        return DEFAULT_LAM

    def fit(self, X, y):
        """Train on ``(X, y)``; spends ``epsilon`` (see ``epsilon_``).

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
        y : array-like, shape (n_samples,)
            Exactly two classes.
        """
        method = check_choice("method", self.method, _METHODS)
        epsilon = check_epsilon("epsilon", self.epsilon)
        data_norm = check_positive("data_norm", self.data_norm)
        fit_intercept = _check_bool("fit_intercept", self.fit_intercept)
        if self.lam is not None and self.C is not None:
            self._resolve_lam(1)                      # raises the both-given error
        if self.C is not None:
            check_positive("C", self.C)
        if self.lam is not None:
            check_positive("lam", self.lam)
        gen = check_rng(self.rng)
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        check_classification_targets(y)
        y_type = type_of_target(y, input_name="y")
        classes = np.unique(y)
        if y_type != "binary" or classes.shape[0] != 2:
            raise ParameterError("Only binary classification is supported. The type of the target "
                                 f"is {y_type}: y must contain exactly 2 classes; got "
                                 f"{classes.shape[0]} class(es)")
        n = X.shape[0]
        lam = self._resolve_lam(n)
        D = _Design(bound_rows(X, data_norm, fit_intercept))
        s = np.where(y == classes[1], 1.0, -1.0)
        self.epsilon_prime_ = None
        self.Delta_ = None
        if method == "none":
            w = _fit(D, s, lam, None)
            self.epsilon_ = math.inf
        elif method == "output":
            w = _output_fit(D, s, epsilon, lam, gen).w
            self.epsilon_ = epsilon
        else:
            fit = _objective_fit(D, s, epsilon, lam, gen)
            w = fit.w
            self.epsilon_ = epsilon
            self.epsilon_prime_ = fit.constants.epsilon_prime
            self.Delta_ = fit.constants.Delta
        self.delta_ = 0.0
        self.classes_ = classes
        self.lam_ = lam
        d = X.shape[1]
        if fit_intercept:
            self.coef_ = (w[:d] / (data_norm * math.sqrt(2.0)))[None, :]
            self.intercept_ = np.array([w[d] / math.sqrt(2.0)])
        else:
            self.coef_ = (w / data_norm)[None, :]
            self.intercept_ = np.zeros(1)
        return self

    def decision_function(self, X):
        """Signed score ``X @ coef_.T + intercept_`` (> 0 predicts ``classes_[1]``)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_[0] + self.intercept_[0]

    def predict_proba(self, X):
        """Class probabilities ``[1 − σ(score), σ(score)]`` in the order of ``classes_``."""
        score = self.decision_function(X)
        return np.column_stack([special.expit(-score), special.expit(score)])

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))

    def predict(self, X):
        """Predicted class labels."""
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]


# ------------------------------------------------- sensitivity experiment
@dataclass(frozen=True)
class SensitivityResult:
    """Outcome of :func:`empirical_sensitivity`.

    Attributes
    ----------
    distances : ndarray
        ``‖w* − w*'‖₂`` for each neighbouring data set tried.
    kinds : ndarray of str
        ``"random"`` or ``"adversarial"`` for each neighbour.
    bound : float
        The sensitivity bound ``2/(nΛ)`` of [CMS11]_ Corollary 8.
    w_star : ndarray
        The minimiser on the original data.
    n, lam : int, float
    """

    distances: np.ndarray
    kinds: np.ndarray
    bound: float
    w_star: np.ndarray
    n: int
    lam: float

    @property
    def max_ratio(self) -> float:
        """Largest ``‖w* − w*'‖ / (2/(nΛ))`` seen (never above 1 if the bound holds)."""
        return float(self.distances.max() / self.bound)


def empirical_sensitivity(X, y, lam: float, *, n_random: int = 50, n_adversarial: int = 20,
                          data_norm: float = 1.0, fit_intercept: bool = True,
                          rng=None) -> SensitivityResult:
    """Measure how far the regularised-ERM minimiser moves when one row changes.

    Fits the non-private minimiser ``w*`` on ``(X, y)`` and on neighbouring
    data sets where one row ``i`` is replaced by ``(x', y')`` with
    ``‖x'‖ = data_norm`` (the edge of the allowed ball), and records
    ``‖w* − w*'‖₂`` in the space of the bounded rows (:func:`bound_rows`).
    [CMS11]_ Corollary 8 says this never exceeds ``2/(nΛ)``.

    Two kinds of neighbours are tried:

    * ``n_random`` random ones: ``i`` uniform, ``x'`` a uniform direction, ``y'``
      a fair coin;
    * ``n_adversarial`` chosen to move ``w*`` a lot: ``x'`` along a direction in
      which the objective is flattest (smallest-curvature eigenvectors of the
      Hessian of ``J`` at ``w*``, both signs), labelled so that ``w*``
      misclassifies it, replacing the rows whose first-order influence
      ``H⁻¹(∇ℓ_i − ∇ℓ')`` is largest.

    Parameters
    ----------
    X : array-like, shape (n, d)
    y : array-like, shape (n,)
        Exactly two classes.
    lam : float
        Λ > 0.
    n_random, n_adversarial : int
        Numbers of neighbours of each kind (≥ 0, at least one in total).
    data_norm, fit_intercept
        As in :class:`PrivateLogisticRegression`.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    SensitivityResult
    """
    X = check_array("X", X, ndim=2)
    lam = check_positive("lam", lam)
    n_random = check_int("n_random", n_random, minimum=0, maximum=100_000)
    n_adversarial = check_int("n_adversarial", n_adversarial, minimum=0, maximum=100_000)
    if n_random + n_adversarial < 1:
        raise ParameterError("n_random + n_adversarial must be >= 1; got "
                             f"n_random={n_random}, n_adversarial={n_adversarial}")
    data_norm = check_positive("data_norm", data_norm)
    fit_intercept = _check_bool("fit_intercept", fit_intercept)
    gen = check_rng(rng)
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ParameterError(f"y must be 1-D with one label per row of X; got shape {y.shape}")
    classes = np.unique(y)
    if classes.shape[0] != 2:
        raise ParameterError(f"y must contain exactly 2 classes; got {classes.shape[0]}")
    n, d = X.shape
    Z = bound_rows(X, data_norm, fit_intercept)
    s = np.where(y == classes[1], 1.0, -1.0)
    w_star = _fit(_Design(Z), s, lam, None)
    hess_star = _data_hessian(Z, s, w_star)

    def refit(i, x_new, s_new):
        Z2 = Z.copy()
        s2 = s.copy()
        Z2[i] = bound_rows(x_new[None, :], data_norm, fit_intercept)[0]
        s2[i] = s_new
        w2 = _fit(_Design(Z2), s2, lam, None, w0=w_star, hess0=hess_star)
        return float(np.linalg.norm(w2 - w_star))

    dists, kinds = [], []
    for _ in range(n_random):
        i = int(gen.integers(n))
        u = gen.standard_normal(d)
        x_new = data_norm * u / np.linalg.norm(u)
        dists.append(refit(i, x_new, 1.0 if gen.random() < 0.5 else -1.0))
        kinds.append("random")
    if n_adversarial:
        m = s * (Z @ w_star)
        p = special.expit(-m)
        h = p * (1 - p)
        H = (Z.T * (h / n)) @ Z + lam * np.eye(Z.shape[1])
        # curvature of J restricted to the feature coordinates (the intercept
        # coordinate of z is fixed at 1/√2 and cannot be chosen)
        Hx = H[:d, :d]
        evals, evecs = np.linalg.eigh(Hx)
        Hinv = np.linalg.inv(H)
        grads = (-(p * s))[:, None] * Z                     # ∇ℓ_i at w*
        trials = []
        n_dirs = max(1, min(d, (n_adversarial + 3) // 4))
        per = -(-n_adversarial // (2 * n_dirs)) + 1        # rows tried per direction and sign
        for k in range(n_dirs):
            for sign in (1.0, -1.0):
                x_new = sign * data_norm * evecs[:, k]
                z_new = bound_rows(x_new[None, :], data_norm, fit_intercept)[0]
                margin_dir = float(z_new @ w_star)
                s_new = -1.0 if margin_dir >= 0 else 1.0      # make w* misclassify it
                g_new = -special.expit(-s_new * margin_dir) * s_new * z_new
                infl = np.linalg.norm((grads - g_new) @ Hinv, axis=1)
                for i in np.argsort(infl)[::-1][:per]:
                    trials.append((float(infl[i]), int(i), x_new, s_new))
        trials.sort(key=lambda t: -t[0])
        for _, i, x_new, s_new in trials[:n_adversarial]:
            dists.append(refit(i, x_new, s_new))
            kinds.append("adversarial")
    return SensitivityResult(distances=np.array(dists), kinds=np.array(kinds),
                             bound=2.0 / (n * lam), w_star=w_star, n=n, lam=lam)


# ------------------------------------------------------ excess-risk bounds
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
    Algorithms 1 and 2), written with explicit constants.

    Parameters
    ----------
    method : {"output", "objective"}
    noise_norm : float or array
        ‖b‖ (≥ 0).
    n : int
    lam : float
    Delta : float
        Δ of Algorithm 2 (objective perturbation only).
    w_star_norm : float, optional
        ‖w*‖ if known.
    c : float
        Bound on ℓ''.
    """
    method = check_choice("method", method, ("output", "objective"))
    r = check_array("noise_norm", noise_norm, ndim=(0, 1))
    if np.any(r < 0):
        raise ParameterError(f"noise_norm must be >= 0; got noise_norm={noise_norm!r}")
    n = check_int("n", n, minimum=1)
    lam = check_positive("lam", lam)
    c = check_positive("c", c)
    Delta = float(Delta)
    if not np.isfinite(Delta) or Delta < 0:
        raise ParameterError(f"Delta must be a finite number >= 0; got Delta={Delta!r}")
    if method == "output":
        out = 0.5 * (c + lam) * r ** 2
    else:
        w2 = 2.0 * math.log(2.0) / lam if w_star_norm is None else float(w_star_norm) ** 2
        out = r ** 2 / (2.0 * n ** 2 * (lam + Delta)) + 0.5 * Delta * w2
    return float(out) if np.ndim(out) == 0 else out


def excess_risk_bound(method: str, n: int, dim: int, lam: float, epsilon: float,
                      prob: float = 0.95, c: float = LOGISTIC_C) -> float:
    """Bound on ``J(w_priv) − J(w*)`` holding with probability ≥ ``prob``.

    Plugs the ``prob``-quantile of the noise norm (exactly
    ``Gamma(dim, 1/β)``, :func:`dpteach.samplers.l2_laplace_norm_distribution`)
    into :func:`excess_risk_given_noise`. Roughly, with ``‖b‖ ≈ 2·dim/(·)``:

    * output perturbation: ``≈ 2(c+Λ)·dim²/(n²Λ²ε²)``;
    * objective perturbation (``Δ = 0``): ``≈ 2·dim²/(n²Λε'²)``;

    so objective perturbation's bound is smaller by a factor of order
    ``(c+Λ)/Λ``, the comparison made in [CMS11]_ (their bounds use
    ``log(dim/δ)`` tail factors instead of the exact quantile).

    Parameters
    ----------
    method : {"output", "objective"}
    n : int
        Number of training rows.
    dim : int
        Dimension of ``w`` (including the intercept coordinate).
    lam, epsilon : float
    prob : float
        Confidence level in (0, 1).
    c : float
        Bound on ℓ''.
    """
    method = check_choice("method", method, ("output", "objective"))
    n = check_int("n", n, minimum=1)
    dim = check_int("dim", dim, minimum=1)
    lam = check_positive("lam", lam)
    epsilon = check_epsilon("epsilon", epsilon)
    prob = check_probability("prob", prob, open_low=True, open_high=True)
    c = check_positive("c", c)
    if method == "output":
        beta, Delta = output_perturbation_beta(epsilon, n, lam), 0.0
    else:
        const = objective_perturbation_constants(epsilon, n, lam, c)
        beta, Delta = const.beta, const.Delta
    q = float(l2_laplace_norm_distribution(dim, beta).ppf(prob))
    return excess_risk_given_noise(method, q, n, lam, Delta=Delta, c=c)


# --------------------------------------------------- accuracy vs epsilon
@dataclass(frozen=True)
class AccuracyCurve:
    """Test accuracy of private fits over a grid of ε (see :func:`accuracy_vs_epsilon`).

    Attributes
    ----------
    epsilons : ndarray, shape (k,)
    accuracy : dict
        ``method -> ndarray of shape (k, n_repeats)``.
    nonprivate_accuracy : float
        Test accuracy of the exact non-private minimiser of the same objective.
    lam : float
    n_train, dim : int
    """

    epsilons: np.ndarray
    accuracy: dict
    nonprivate_accuracy: float
    lam: float
    n_train: int
    dim: int

    def mean(self, method: str) -> np.ndarray:
        """Mean accuracy over repeats, per ε."""
        return self.accuracy[method].mean(axis=1)

    def std(self, method: str) -> np.ndarray:
        """Standard deviation over repeats (ddof=1), per ε."""
        return self.accuracy[method].std(axis=1, ddof=1)

    def to_frame(self):
        """Long-format ``pandas.DataFrame`` with columns method, epsilon, repeat, accuracy."""
        import pandas as pd

        rows = [(m, float(e), r, float(a[i, r]))
                for m, a in self.accuracy.items()
                for i, e in enumerate(self.epsilons) for r in range(a.shape[1])]
        return pd.DataFrame(rows, columns=["method", "epsilon", "repeat", "accuracy"])


def accuracy_vs_epsilon(X_train, y_train, X_test, y_test, epsilons, lam: float, *,
                        methods=("objective", "output"), n_repeats: int = 10,
                        data_norm: float = 1.0, fit_intercept: bool = True, rng=None,
                        progress: bool = False) -> AccuracyCurve:
    """Test accuracy of output and objective perturbation for each ε.

    Equivalent to fitting ``PrivateLogisticRegression(epsilon=ε, method=m,
    lam=lam, data_norm=data_norm, fit_intercept=fit_intercept)`` ``n_repeats``
    times per ε and scoring on the test set, but faster: the rows are bounded
    once, output perturbation reuses the exact minimiser ``w*`` (only the
    noise is redrawn) and objective perturbation warm-starts Newton at ``w*``.
    The result is the same as the estimator's (up to solver round-off).

    Each fit spends its own ε: the curve as a whole is an *experiment*, not a
    private release (running it on real private data would compose to
    ``n_repeats·Σε`` per method).

    Parameters
    ----------
    X_train, y_train, X_test, y_test : array-like
        Two classes in ``y_train``; ``y_test`` uses the same labels.
    epsilons : array-like of float
        ε values (> 0).
    lam : float
        Λ > 0.
    methods : sequence of {"objective", "output"}
    n_repeats : int or dict
        Private fits per (method, ε), ≥ 2; a dict ``method -> int`` gives each
        method its own number (output perturbation is cheap to repeat: it
        only redraws the noise).
    data_norm, fit_intercept
        As in :class:`PrivateLogisticRegression`.
    rng : None, int or numpy.random.Generator
    progress : bool
        Show a ``tqdm`` progress bar.
    """
    X_train = check_array("X_train", X_train, ndim=2)
    X_test = check_array("X_test", X_test, ndim=2)
    if X_test.shape[1] != X_train.shape[1]:
        raise ParameterError(f"X_test must have {X_train.shape[1]} columns like X_train; "
                             f"got {X_test.shape[1]}")
    eps_arr = check_array("epsilons", epsilons, ndim=1)
    for e in eps_arr:
        check_epsilon("epsilons", float(e))
    lam = check_positive("lam", lam)
    if isinstance(methods, str):
        methods = (methods,)
    methods = tuple(check_choice("methods", m, ("objective", "output")) for m in methods)
    if isinstance(n_repeats, dict):
        if set(n_repeats) != set(methods):
            raise ParameterError(f"n_repeats must give a number for each of the methods {methods}; "
                                 f"got n_repeats={n_repeats!r}")
        reps = {m: check_int("n_repeats", n_repeats[m], minimum=2, maximum=10_000)
                for m in methods}
    else:
        r = check_int("n_repeats", n_repeats, minimum=2, maximum=10_000)
        reps = {m: r for m in methods}
    data_norm = check_positive("data_norm", data_norm)
    fit_intercept = _check_bool("fit_intercept", fit_intercept)
    gen = check_rng(rng)
    y_train = np.asarray(y_train)
    y_test = np.asarray(y_test)
    classes = np.unique(y_train)
    if classes.shape[0] != 2:
        raise ParameterError(f"y_train must contain exactly 2 classes; got {classes.shape[0]}")
    if y_train.shape[0] != X_train.shape[0] or y_test.shape[0] != X_test.shape[0]:
        raise ParameterError("y_train / y_test must have one label per row of X_train / X_test")
    Z = bound_rows(X_train, data_norm, fit_intercept)
    # the test rows are scored with the linear model on *unclipped* features,
    # as PrivateLogisticRegression.decision_function does
    Zt_lin = X_test / data_norm
    if fit_intercept:
        Zt_lin = np.hstack([Zt_lin, np.ones((X_test.shape[0], 1))]) / math.sqrt(2.0)
    s = np.where(y_train == classes[1], 1.0, -1.0)
    st = np.where(y_test == classes[1], 1.0, -1.0)
    n, d = Z.shape

    def acc(w):
        return float(np.mean(np.where(Zt_lin @ w > 0, 1.0, -1.0) == st))

    D = _Design(Z)
    w_star = _fit(D, s, lam, None)
    p_star = special.expit(-D.margins(w_star, s))
    hess_star = D.hessian(p_star * (1.0 - p_star))
    out = {m: np.empty((eps_arr.shape[0], reps[m])) for m in methods}
    total = eps_arr.shape[0] * sum(reps.values())
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc="private fits")
    for m in methods:
        for i, e in enumerate(eps_arr):
            for r in range(reps[m]):
                if m == "output":
                    w = _output_fit(D, s, float(e), lam, gen, w_star).w
                else:
                    w = _objective_fit(D, s, float(e), lam, gen, w0=w_star, hess0=hess_star).w
                out[m][i, r] = acc(w)
                if bar is not None:
                    bar.update(1)
    if bar is not None:
        bar.close()
    return AccuracyCurve(epsilons=eps_arr, accuracy=out, nonprivate_accuracy=acc(w_star),
                         lam=lam, n_train=n, dim=d)



# ---------------------------------------------------------- toy data set
#: Public norm bound used with :func:`make_toy_data` (rows beyond it are clipped).
TOY_DATA_NORM = 3.0


def make_toy_data(n: int = 200, rng=0):
    """A 2-D, two-class toy data set for decision-boundary pictures.

    ``n // 2`` points per class from isotropic Gaussians with standard
    deviation 0.8 around ``(-0.6, -0.2)`` (class 0) and ``(1.2, 0.9)`` (class 1);
    the Bayes boundary does not pass through the origin, so the intercept
    matters. Use it with ``data_norm=TOY_DATA_NORM`` (= 3: a handful of
    points lie outside and are clipped).

    Parameters
    ----------
    n : int
        Number of points (even, 4 ≤ n ≤ 100,000).
    rng : None, int or numpy.random.Generator
        Seed; 0 by default so that pictures are reproducible.

    Returns
    -------
    X : ndarray, shape (n, 2)
    y : ndarray of int, shape (n,)
    """
    n = check_int("n", n, minimum=4, maximum=100_000)
    if n % 2:
        raise ParameterError(f"n must be even (n/2 points per class); got n={n}")
    gen = check_rng(rng)
    centres = np.array([[-0.6, -0.2], [1.2, 0.9]])
    y = np.repeat([0, 1], n // 2)
    X = centres[y] + 0.8 * gen.standard_normal((n, 2))
    order = gen.permutation(n)
    return X[order], y[order]
