"""L2-regularised logistic regression on bounded rows: the problem and its exact solver.

The non-private half of private empirical risk minimisation: the objective that
Chaudhuri, Monteleoni & Sarwate (2011) [CMS11]_ perturb, its Hessian, the map of raw
features into the unit ball their analysis assumes, and a Newton solver that returns the
*exact* minimiser their proofs need. The two privacy mechanisms built on top of it are in
:mod:`dpteach.learning.erm`.

Notation (the paper's)
----------------------
Data ``(x_i, y_i)``, ``i = 1..n``, ``y_i ∈ {-1, +1}``, ``‖x_i‖₂ ≤ 1``. The logistic loss is
``ℓ(z) = log(1 + e^(-z))`` evaluated at ``z = y·wᵀx``; it is convex with ``|ℓ'(z)| ≤ 1`` and
``0 < ℓ''(z) ≤ c = 1/4``. The regularised empirical risk is

    J(w) = (1/n) Σ_i ℓ(y_i wᵀx_i) + (Λ/2)‖w‖².

scikit-learn's ``LogisticRegression`` minimises ``C·Σ_i ℓ(y_i wᵀx_i) + ½‖w‖²``; divided by
``nC`` this is ``J`` with ``Λ = 1/(nC)`` (:func:`lam_from_C`, :func:`C_from_lam`).

Rows are mapped into the unit ball by a fixed, data-independent rule (:func:`bound_rows`),
the intercept a constant feature appended *before* the norm bound. The problems are
strongly convex: :class:`LogisticProblem` solves them exactly by damped Newton's method.

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate. Differentially
   private empirical risk minimization. JMLR 12:1069-1109, 2011.
.. [NW06] J. Nocedal and S. J. Wright. *Numerical Optimization*, 2nd ed.,
   Springer 2006, Sec. 3.1 (backtracking line search) and 3.4 (Newton's method
   with Hessian modification).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import linalg, sparse, special
from scipy.linalg import blas
from sklearn.exceptions import ConvergenceWarning

from .._validation import FLAG, Domain, array, integer, real, refuse, validate

__all__ = ["LOGISTIC_C", "MAX_ROWS", "MAX_WEIGHT_NORM", "lam_from_C", "C_from_lam", "bound_rows",
           "LogisticProblem", "logistic_objective", "loss_hessian", "fit_logistic_erm"]

#: Upper bound c on the second derivative of the logistic loss:
#: ℓ''(z) = σ(z)σ(-z) ≤ 1/4, with equality at z = 0 (the constant [CMS11] use for logistic
#: regression).
LOGISTIC_C = 0.25
#: Largest number of training rows ``n`` the formulas accept (far beyond what fits in memory
#: as data; it keeps ``n`` a float-representable count).
MAX_ROWS = 10**9
#: Largest Euclidean norm of a weight vector the functions accept or may produce. Below it,
#: ``wᵀz`` and ``‖w‖²`` cannot overflow for rows in the unit ball.
MAX_WEIGHT_NORM = 1e150
_NORM_TOL = 1e-9        # floating-point slack when checking ‖z‖ ≤ 1


#: n, the number of training rows
N_ROWS = integer(1, MAX_ROWS, example=10)
#: Λ, the ridge coefficient of J (the course uses 1e-4 to 4)
LAM = real(1e-12, 1e12, example=0.1)
#: scikit-learn's inverse regularisation strength C = 1/(nΛ)
C_INVERSE = real(1e-12, 1e12, example=1.0)
#: raw feature rows, entries of magnitude ≤ 1e15
FEATURE_ROWS = array(ndim=2, low=-1e15, high=1e15, example=[[1.0, 2.0], [-3.0, 0.5]])
#: R, the public bound on a row's norm
DATA_NORM = real(1e-6, 1e15, example=1.0)
_UNIT_TEXT = "a 2-D array (n, d) of rows of Euclidean norm <= 1 (map raw rows with bound_rows())"
_ROWS = array(ndim=2, low=-1.0 - _NORM_TOL, high=1.0 + _NORM_TOL, text=_UNIT_TEXT)
_SIGNS = array(ndim=1, low=-1.0, high=1.0, integers=True, text="a 1-D array of labels -1 and +1")
#: rows z_i of Euclidean norm ≤ 1 ([CMS11]'s assumption; map raw rows with bound_rows)
UNIT_ROWS = Domain(_UNIT_TEXT, lambda name, value: _unit_rows(name, value),
                   example=[[0.6, 0.0], [0.0, -0.8], [0.3, 0.4]],
                   edges=[[[1.0, 0.0]], [[0.0, 0.0]]],
                   bad=[[[1.0, 1.0]], [[np.nan, 0.0]], [0.5, 0.5], "Z", None])
#: labels s_i ∈ {−1, +1}
SIGNS = Domain("a 1-D array of labels -1 and +1", lambda name, value: _signs(name, value),
               example=[1, -1, 1],
               bad=[[0, 1], [2, -1], [[1, -1]], "s", None, [np.nan]])
#: a weight vector or a linear term, entries of magnitude ≤ 1e15 (so its norm stays far
#: below MAX_WEIGHT_NORM)
VECTOR = array(ndim=1, low=-1e15, high=1e15, example=[0.5, -0.5])
#: a loss Hessian (its entries lie in [−1/4, 1/4])
HESSIAN = array(ndim=2, low=-1.0, high=1.0)
#: the tolerance on the gradient's max-norm
GTOL = real(1e-15, 1.0, example=1e-10)
#: Newton iterations
MAX_ITER = integer(1, 10_000, work=True, example=100)


@validate(C=C_INVERSE, n=N_ROWS)
def lam_from_C(C: float, n: int) -> float:
    """Λ of [CMS11]_ equivalent to scikit-learn's ``C`` on n rows: ``Λ = 1/(nC)``.

    scikit-learn minimises ``C·Σℓ + ½‖w‖²``; divided by ``nC`` this is
    ``(1/n)Σℓ + (1/(2nC))‖w‖²`` = ``J(w)`` with ``Λ = 1/(nC)``.
    """
    return 1.0 / (n * C)


@validate(lam=LAM, n=N_ROWS)
def C_from_lam(lam: float, n: int) -> float:
    """scikit-learn's ``C`` equivalent to Λ on n rows: ``C = 1/(nΛ)`` (:func:`lam_from_C`)."""
    return 1.0 / (n * lam)


@validate(X=FEATURE_ROWS, data_norm=DATA_NORM, fit_intercept=FLAG)
def bound_rows(X, data_norm: float = 1.0, fit_intercept: bool = True) -> np.ndarray:
    """Map rows into the unit ℓ2 ball by a fixed, data-independent rule.

    Each row ``x`` becomes ``x̃ = x / max(data_norm, ‖x‖₂)``: rows with
    ``‖x‖ ≤ data_norm`` are divided by the public constant ``data_norm``;
    longer rows are first shrunk to norm ``data_norm`` (clipping). Then
    ``‖x̃‖ ≤ 1``. With ``fit_intercept`` a constant feature is appended and
    the result halved in squared norm, ``z = [x̃, 1]/√2``, so ``‖z‖ ≤ 1``.

    Every row is transformed using only itself and public constants, so
    the map is the same for neighbouring data sets except on the changed row,
    which is what the analysis of [CMS11]_ (assumption ``‖x_i‖ ≤ 1``) needs. The result
    has shape (n, d), or (n, d + 1) with the intercept.
    """
    norms = _row_norms(X)
    with np.errstate(under="ignore"):
        Xt = X / np.maximum(norms, data_norm)[:, None]
    if fit_intercept:
        Xt = np.hstack([Xt, np.ones((Xt.shape[0], 1))]) / math.sqrt(2.0)
    return Xt


# ----------------------------------------------------------- the problem
@validate(Z=UNIT_ROWS, s=SIGNS, use_sparse=FLAG.or_none())
class LogisticProblem:
    """Rows in the unit ball and ±1 labels, ready for exact regularised logistic fits.

    The data ``(Z, s)`` of [CMS11]_'s regularised logistic ERM, checked once:
    ``Z`` has rows of ℓ2 norm ≤ 1 (map raw features with :func:`bound_rows`)
    and ``s`` holds the labels −1 and +1. Its methods evaluate and minimise

        J(w) + linearᵀw,   J(w) = (1/n) Σ_i log(1 + exp(−s_i wᵀz_i)) + (Λ/2)‖w‖²,

    so that many related problems on the same rows (e.g. one per noise draw
    of objective perturbation) reuse the checks and the storage.

    Parameters
    ----------
    Z : array-like, shape (n, d)
        Rows with ‖z‖₂ ≤ 1 (up to a round-off slack of 1e-9).
    s : array-like, shape (n,)
        Labels in {−1, +1}, one per row of Z.
    use_sparse : bool or None, default None
        Store ``Z`` as a CSR matrix (None: when fewer than 30 % of the entries are non-zero
        and ``Z`` has more than 50,000 entries; stored as ``sparse``). A speed device only:
        both storages give the same minimiser up to round-off.

    Notes
    -----
    The logistic loss has ``|ℓ'| ≤ 1`` and ``0 < ℓ'' ≤ 1/4`` (:data:`LOGISTIC_C`),
    so with rows in the unit ball ``J`` is ``Λ``-strongly convex and
    ``(1/4 + Λ)``-smooth: the assumptions of [CMS11]_ Corollary 8 and Theorem 9.
    """

    def __init__(self, Z, s, *, use_sparse: bool | None = None):
        if s.shape[0] != Z.shape[0]:
            raise refuse("s", s, f"one label per row of Z ({Z.shape[0]})")
        self.Z, self.s = Z, s
        self.n, self.d = Z.shape
        self._design = _Design(Z, use_sparse)
        self.sparse = self._design.sparse

    def __repr__(self) -> str:
        return f"LogisticProblem(n={self.n}, d={self.d}, sparse={self.sparse})"

    # ----------------------------------------------------------- values
    @validate(w=VECTOR, lam=LAM, linear=VECTOR.or_none())
    def objective(self, w, lam: float, *, linear=None) -> float:
        """``J(w) + linearᵀw`` with ``J(w) = (1/n)Σ log(1+exp(−s_i wᵀz_i)) + (Λ/2)‖w‖²``."""
        self._check_shapes(w=w, linear=linear)
        return _risk(w, self._design, self.s, lam, linear)

    @validate(w=VECTOR)
    def loss_hessian(self, w) -> np.ndarray:
        """Hessian of the average loss, ``(1/n) Σ ℓ''(s_i wᵀz_i) z_i z_iᵀ``, shape (d, d).

        The Hessian of ``J`` is this plus ``Λ·I``. Its eigenvalues lie in
        ``[0, c·max‖z‖²] ⊆ [0, 1/4]``.
        """
        self._check_shapes(w=w)
        return self._loss_hessian(w)

    def _loss_hessian(self, w):
        p = special.expit(-self._design.margins(w, self.s))
        return self._design.hessian(p * (1.0 - p))

    # ------------------------------------------------------- minimiser
    @validate(lam=LAM, linear=VECTOR.or_none(), w0=VECTOR.or_none(), hess0=HESSIAN.or_none(),
              gtol=GTOL, max_iter=MAX_ITER)
    def minimize(self, lam: float, *, linear=None, w0=None, hess0=None, gtol: float = 1e-10,
                 max_iter: int = 100) -> np.ndarray:
        """Exact minimiser of ``J(w) + linearᵀw`` (``J`` with ridge coefficient ``lam``).

        The problem is ``lam``-strongly convex; damped Newton's method
        (Cholesky solves, Armijo backtracking [NW06]_) runs until the largest
        gradient entry is ``≤ gtol``, so the result is the exact minimiser to
        floating-point accuracy, as the privacy proofs of [CMS11]_ assume. A
        :class:`~sklearn.exceptions.ConvergenceWarning` is issued if
        ``max_iter`` iterations do not reach ``gtol``.

        Parameters
        ----------
        lam : float
            Ridge coefficient: Λ, or Λ + Δ for objective perturbation.
        linear : array-like, shape (d,), optional
            Linear term, e.g. ``b/n`` of objective perturbation.
        w0 : array-like, shape (d,), optional
            Starting point (warm start); zeros by default.
        hess0 : array-like, shape (d, d), optional
            Loss Hessian ``(1/n)Σℓ''·z zᵀ`` to start from (e.g. :meth:`loss_hessian` at
            ``w0``). Like ``w0`` it changes the running time, not the result.
        """
        self._check_shapes(linear=linear, w0=w0, hess0=hess0)
        return self._minimize(lam, linear, w0, hess0, gtol, max_iter)

    def _minimize(self, reg, linear=None, w0=None, hess0=None, gtol=1e-10, max_iter=100):
        """:meth:`minimize` without the checks (the library's private fits call it)."""
        with np.errstate(over="ignore", under="ignore"):
            w, n_iter, gnorm = _solve_newton(self._design, self.s, reg, linear, w0, gtol,
                                             max_iter, hess0)
        if gnorm > gtol:
            warnings.warn(f"Newton's method stopped after {n_iter} iterations with gradient "
                          f"norm {gnorm:.3g} > gtol={gtol:g}; the privacy proofs assume the "
                          "exact minimiser.", ConvergenceWarning, stacklevel=3)
        return w

    def _check_shapes(self, **arrays) -> None:
        """Vectors of length d and matrices (d, d), d the number of columns of Z."""
        for name, a in arrays.items():
            if a is not None and a.shape != (self.d,) * a.ndim:
                raise refuse(f"{name}.shape", a.shape, f"{(self.d,) * a.ndim}")


def _risk(w, D, s, reg, lin):
    val = np.mean(np.logaddexp(0.0, -D.margins(w, s))) + 0.5 * reg * (w @ w)
    if lin is not None:
        val += lin @ w
    return float(val)


def _newton_step(hess, grad):
    """Solve ``hess · step = grad`` for the strongly convex model Hessian by Cholesky.

    If round-off (a tiny ridge next to a singular data Hessian) or a supplied
    starting Hessian makes the matrix not numerically positive definite, the
    eigenvalues are floored instead (the Hessian modification of [NW06]_ Sec. 3.4),
    which keeps ``step`` a descent direction.
    """
    try:
        return linalg.cho_solve(linalg.cho_factor(hess), grad)
    except linalg.LinAlgError:
        sym = 0.5 * (hess + hess.T)
        vals, vecs = np.linalg.eigh(sym)
        floor = max(float(np.max(np.abs(vals))) * 1e-12, np.finfo(float).tiny)
        return vecs @ ((vecs.T @ grad) / np.maximum(vals, floor))


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
        step = _newton_step(hess + reg * eye, grad)
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


# ------------------------------------------------- functional interface
@validate(w=VECTOR, Z=UNIT_ROWS, s=SIGNS, lam=LAM)
def logistic_objective(w, Z, s, lam: float) -> float:
    """Regularised empirical risk ``J(w) = (1/n)Σ log(1+exp(-s_i wᵀz_i)) + (Λ/2)‖w‖²``.

    The regularised objective of [CMS11]_ with the logistic loss and ``N(w) = ½‖w‖²``
    (:meth:`LogisticProblem.objective`), for rows Z in the unit ball and labels s ∈ {±1}.
    """
    return LogisticProblem(Z, s).objective(w, lam)


@validate(w=VECTOR, Z=UNIT_ROWS, s=SIGNS)
def loss_hessian(w, Z, s) -> np.ndarray:
    """Hessian of the average logistic loss, ``(1/n) Σ ℓ''(s_i wᵀz_i) z_i z_iᵀ``.

    The Hessian of ``J`` is this plus ``Λ·I``. Its eigenvalues lie in
    ``[0, c·max‖z‖²] ⊆ [0, 1/4]`` for unit-ball rows
    (:meth:`LogisticProblem.loss_hessian`).
    """
    return LogisticProblem(Z, s).loss_hessian(w)


@validate(Z=UNIT_ROWS, s=SIGNS, lam=LAM, linear=VECTOR.or_none(), extra_reg=real(0.0, 1e15),
          w0=VECTOR.or_none(), hess0=HESSIAN.or_none(), gtol=GTOL, max_iter=MAX_ITER)
def fit_logistic_erm(Z, s, lam: float, *, linear=None, extra_reg: float = 0.0, w0=None,
                     hess0=None, gtol: float = 1e-10, max_iter: int = 100) -> np.ndarray:
    """Exact minimiser of the (possibly perturbed) regularised logistic risk.

    Minimises ``J(w) + linearᵀw + (extra_reg/2)‖w‖²`` for rows Z in the unit ball
    (:func:`bound_rows`) and labels s ∈ {±1}, ``J(w) = (1/n)Σ log(1+exp(-s_i wᵀz_i)) +
    (Λ/2)‖w‖²`` ([CMS11]_). With ``linear = b/n`` and ``extra_reg = Δ`` this is the perturbed
    objective of [CMS11]_ Algorithm 2. The solver, its tolerance and its warm starts ``w0``,
    ``hess0`` are those of :meth:`LogisticProblem.minimize`.
    """
    problem = LogisticProblem(Z, s)
    problem._check_shapes(linear=linear, w0=w0, hess0=hess0)
    return problem._minimize(lam + extra_reg, linear, w0, hess0, gtol, max_iter)


# ------------------------------------------------------------------- private helpers
def _row_norms(X: np.ndarray) -> np.ndarray:
    """Euclidean row norms (a norm below 1e-154 may underflow: it is compared with
    data_norm ≥ 1e-6 or with 1 only)."""
    with np.errstate(under="ignore"):
        return np.linalg.norm(X, axis=1)


class _Design:
    """Rows ``Z`` with fast products: CSR storage when ``Z`` is sparse (one-hot
    data such as Adult), a symmetric rank-k update for the Hessian otherwise.
    Purely a speed device: the numbers are the same."""

    def __init__(self, Z, use_sparse=None):
        self.n, self.d = Z.shape
        if use_sparse is None:
            density = np.count_nonzero(Z) / Z.size
            use_sparse = density < 0.3 and Z.size > 50_000
        self.sparse = bool(use_sparse)
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


def _unit_rows(name, value):
    Z = _ROWS(name, value)
    if _row_norms(Z).max() > 1.0 + _NORM_TOL:
        raise UNIT_ROWS.refuse(name, value)
    return Z


def _signs(name, value):
    s = _SIGNS(name, value)
    if not np.all(np.abs(s) == 1.0):
        raise SIGNS.refuse(name, value)
    return s
