"""L2-regularised logistic regression on bounded rows: the problem and its exact solver.

The non-private half of private empirical risk minimisation: the objective that
Chaudhuri, Monteleoni & Sarwate (2011) [CMS11]_ perturb, its Hessian, the map of
raw features into the unit ball their analysis assumes, and a Newton solver that
returns the *exact* minimiser their proofs need. The two privacy mechanisms
built on top of it are in :mod:`dpteach.learning.erm`. (The file is a little
over 600 lines because the solver and the problem it solves are read together:
the Newton step is the Hessian of the objective above it.)

Notation (the paper's)
----------------------
Data ``(x_i, y_i)``, ``i = 1..n``, ``y_i ∈ {-1, +1}``, ``‖x_i‖₂ ≤ 1``. The
logistic loss is ``ℓ(z) = log(1 + e^(-z))`` evaluated at ``z = y·wᵀx``; it is
convex with ``|ℓ'(z)| ≤ 1`` and ``0 < ℓ''(z) ≤ c = 1/4``. The regularised
empirical risk is

    J(w) = (1/n) Σ_i ℓ(y_i wᵀx_i) + (Λ/2)‖w‖².

**Λ versus scikit-learn's C.** scikit-learn's ``LogisticRegression`` minimises
``C·Σ_i ℓ(y_i wᵀx_i) + ½‖w‖²``; dividing by ``nC`` gives ``J`` with
``Λ = 1/(nC)`` (:func:`lam_from_C`, :func:`C_from_lam`).

Bounded rows and the intercept
------------------------------
Every row is mapped into the unit ball by a fixed, data-independent rule
(:func:`bound_rows`): a row with ``‖x‖ > data_norm`` is rescaled to norm
``data_norm``, then every row is divided by the public constant ``data_norm``.
No statistic of the data is used, so the map itself leaks nothing. With an
intercept a constant feature is appended *before* the norm bound:
``z = [x̃, 1]/√2`` with ``‖x̃‖ ≤ 1``, so ``‖z‖ ≤ 1`` still holds and the
intercept is an ordinary, regularised coordinate of ``w``.

Exact minimisation
------------------
The problems are strongly convex; :class:`LogisticProblem` solves them with
damped Newton's method to a gradient max-norm of ``1e-10``. Build a
:class:`LogisticProblem` once to solve several related problems on the same
rows (the rows are checked once, and one-hot data are stored sparsely).

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

from .._validation import (
    ParameterError,
    check_array,
    check_bool,
    check_int,
    check_nonnegative,
    check_positive,
    describe,
)

__all__ = [
    "LOGISTIC_C",
    "MAX_ROWS",
    "MAX_WEIGHT_NORM",
    "lam_from_C",
    "C_from_lam",
    "bound_rows",
    "LogisticProblem",
    "logistic_objective",
    "loss_hessian",
    "fit_logistic_erm",
]

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
_MAX_ITER = 10_000      # upper bound on the solver's iterations
_RESCALE = 1e-150       # row norms below it (or overflowing) are recomputed with scaling


# ----------------------------------------------------------------- helpers
def _check_n(n) -> int:
    return check_int("n", n, minimum=1, maximum=MAX_ROWS)


def lam_from_C(C: float, n: int) -> float:
    """Λ of [CMS11]_ equivalent to scikit-learn's ``C``: ``Λ = 1/(nC)``.

    scikit-learn minimises ``C·Σℓ + ½‖w‖²``; divided by ``nC`` this is
    ``(1/n)Σℓ + (1/(2nC))‖w‖²`` = ``J(w)`` with ``Λ = 1/(nC)``.

    Parameters
    ----------
    C : float
        Inverse regularisation strength, finite and > 0.
    n : int
        Number of training rows, in [1, :data:`MAX_ROWS`].

    Returns
    -------
    float
        Λ, finite and > 0 (a ``C`` so small or large that Λ overflows or
        underflows is refused).
    """
    C = check_positive("C", C)
    n = _check_n(n)
    lam = 1.0 / (n * C)
    if not 0.0 < lam < math.inf:
        raise ParameterError(f"C must give a finite Λ = 1/(nC) > 0; got C={describe(C)} with "
                             f"n={n} (Λ = {lam!r})")
    return lam


def C_from_lam(lam: float, n: int) -> float:
    """scikit-learn's ``C`` equivalent to Λ: ``C = 1/(nΛ)`` (inverse of :func:`lam_from_C`).

    Parameters
    ----------
    lam : float
        Λ, finite and > 0.
    n : int
        Number of training rows, in [1, :data:`MAX_ROWS`].

    Returns
    -------
    float
        C, finite and > 0.
    """
    lam = check_positive("lam", lam)
    n = _check_n(n)
    C = 1.0 / (n * lam)
    if not 0.0 < C < math.inf:
        raise ParameterError(f"lam must give a finite C = 1/(nΛ) > 0; got lam={describe(lam)} "
                             f"with n={n} (C = {C!r})")
    return C


def _row_norms(X: np.ndarray) -> np.ndarray:
    """Euclidean row norms, exact also where the squares overflow or underflow."""
    with np.errstate(over="ignore", under="ignore"):
        norms = np.linalg.norm(X, axis=1)
    redo = ~np.isfinite(norms) | (norms < _RESCALE)
    if np.any(redo):
        rows = X[redo]
        m = np.abs(rows).max(axis=1)
        m[m == 0] = 1.0
        with np.errstate(over="ignore"):          # a norm beyond the float range is inf
            norms[redo] = m * np.linalg.norm(rows / m[:, None], axis=1)
    return norms


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
        Finite real feature rows (entries anywhere in the float range).
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
    fit_intercept = check_bool("fit_intercept", fit_intercept)
    norms = _row_norms(X)
    with np.errstate(over="ignore", under="ignore"):
        Xt = X / np.maximum(norms, data_norm)[:, None]
    long_rows = ~np.isfinite(norms)                # ‖x‖ beyond the float range: clip in scale
    if np.any(long_rows):
        rows = X[long_rows] / np.abs(X[long_rows]).max(axis=1)[:, None]
        Xt[long_rows] = rows / np.linalg.norm(rows, axis=1)[:, None]
    if fit_intercept:
        Xt = np.hstack([Xt, np.ones((Xt.shape[0], 1))]) / math.sqrt(2.0)
    return Xt


# ----------------------------------------------------------- the problem
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
        Finite rows with ‖z‖₂ ≤ 1 (up to a round-off slack of 1e-9).
    s : array-like, shape (n,)
        Labels in {−1, +1}.
    use_sparse : bool or None, default None
        Store ``Z`` as a CSR matrix (None: when fewer than 30 % of the entries
        are non-zero and ``Z`` has more than 50,000 entries). A speed device
        only: both storages give the same minimiser up to round-off.

    Attributes
    ----------
    Z : numpy.ndarray, shape (n, d)
        The checked rows (float64).
    s : numpy.ndarray, shape (n,)
        The checked labels (float64).
    n, d : int
        Number of rows and of columns.
    sparse : bool
        Whether the CSR storage is used.

    Notes
    -----
    The logistic loss has ``|ℓ'| ≤ 1`` and ``0 < ℓ'' ≤ 1/4`` (:data:`LOGISTIC_C`),
    so with rows in the unit ball ``J`` is ``Λ``-strongly convex and
    ``(1/4 + Λ)``-smooth: the assumptions of [CMS11]_ Corollary 8 and Theorem 9.
    """

    def __init__(self, Z, s, *, use_sparse: bool | None = None):
        Z = check_array("Z", Z, ndim=2)
        s = check_array("s", s, ndim=1)
        if s.shape[0] != Z.shape[0]:
            raise ParameterError(f"s must have one label per row of Z; got len(s)={s.shape[0]} "
                                 f"and Z with {Z.shape[0]} rows")
        if not np.all(np.abs(s) == 1.0):
            raise ParameterError("s must contain only the labels -1 and +1; "
                                 f"got values {np.unique(s)[:5]!r}")
        norms = _row_norms(Z)
        if norms.max() > 1.0 + _NORM_TOL:
            raise ParameterError("Z must have rows of l2 norm <= 1 (the assumption of [CMS11]); "
                                 f"got a row of norm {norms.max():.6g}. Map rows with "
                                 "bound_rows().")
        if use_sparse is not None:
            use_sparse = check_bool("use_sparse", use_sparse)
        self.Z, self.s = Z, s
        self.n, self.d = Z.shape
        self._design = _Design(Z, use_sparse)
        self.sparse = self._design.sparse

    def __repr__(self) -> str:
        return f"LogisticProblem(n={self.n}, d={self.d}, sparse={self.sparse})"

    # ------------------------------------------------------------ checks
    def _check_vector(self, name: str, v, *, max_norm: float = math.inf) -> np.ndarray:
        v = check_array(name, v, ndim=1)
        if v.shape[0] != self.d:
            raise ParameterError(f"{name} must have {self.d} entries (columns of Z); "
                                 f"got {name} with {v.shape[0]}")
        if _norm(v) > max_norm:
            raise ParameterError(f"{name} must have Euclidean norm <= {max_norm:g}; "
                                 f"got {name} of norm {_norm(v):.3g}")
        return v

    # ----------------------------------------------------------- values
    def objective(self, w, lam: float, *, linear=None) -> float:
        """``J(w) + linearᵀw`` with ``J(w) = (1/n)Σ log(1+exp(−s_i wᵀz_i)) + (Λ/2)‖w‖²``.

        Parameters
        ----------
        w : array-like, shape (d,)
            Weights of norm ≤ :data:`MAX_WEIGHT_NORM`.
        lam : float
            Λ > 0 (finite).
        linear : array-like, shape (d,), optional
            Linear term (finite).

        Returns
        -------
        float
            The value (``inf`` only if the exact value exceeds the float range).
        """
        w = self._check_vector("w", w, max_norm=MAX_WEIGHT_NORM)
        lam = check_positive("lam", lam)
        if linear is not None:
            linear = self._check_vector("linear", linear)
        with np.errstate(over="ignore"):
            return _risk(w, self._design, self.s, lam, linear)

    def loss_hessian(self, w) -> np.ndarray:
        """Hessian of the average loss, ``(1/n) Σ ℓ''(s_i wᵀz_i) z_i z_iᵀ``, shape (d, d).

        The Hessian of ``J`` is this plus ``Λ·I``. Its eigenvalues lie in
        ``[0, c·max‖z‖²] ⊆ [0, 1/4]``.

        Parameters
        ----------
        w : array-like, shape (d,)
            Weights of norm ≤ :data:`MAX_WEIGHT_NORM`.
        """
        w = self._check_vector("w", w, max_norm=MAX_WEIGHT_NORM)
        return self._loss_hessian(w)

    def _loss_hessian(self, w):
        p = special.expit(-self._design.margins(w, self.s))
        return self._design.hessian(p * (1.0 - p))

    # ------------------------------------------------------- minimiser
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
            Ridge coefficient > 0 (finite): Λ, or Λ + Δ for objective perturbation.
        linear : array-like, shape (d,), optional
            Linear term, e.g. ``b/n`` of objective perturbation. It must keep
            the minimiser's norm bound ``(‖linear‖ + √(‖linear‖² + 2Λ·log 2))/Λ``
            below :data:`MAX_WEIGHT_NORM`.
        w0 : array-like, shape (d,), optional
            Starting point (warm start), norm ≤ :data:`MAX_WEIGHT_NORM`; zeros by default.
        hess0 : array-like, shape (d, d), optional
            Loss Hessian ``(1/n)Σℓ''·z zᵀ`` to start from (e.g. :meth:`loss_hessian`
            at ``w0``), entries in [−1, 1]. Like ``w0`` it changes the running
            time, not the result.
        gtol : float
            Tolerance on the gradient's max-norm, > 0 (finite).
        max_iter : int
            Maximum Newton iterations, in [1, 10,000].

        Returns
        -------
        numpy.ndarray, shape (d,)
        """
        reg = check_positive("lam", lam)
        if linear is not None:
            linear = self._check_vector("linear", linear)
            bound = _minimiser_norm_bound(_norm(linear), reg)
            if not bound <= MAX_WEIGHT_NORM:
                raise ParameterError(
                    f"linear is too large for the ridge coefficient lam={describe(lam)}: the "
                    f"minimiser's norm could reach {bound:.3g} > {MAX_WEIGHT_NORM:g}; got linear "
                    f"of norm {_norm(linear):.3g}")
        if w0 is not None:
            w0 = self._check_vector("w0", w0, max_norm=MAX_WEIGHT_NORM)
        if hess0 is not None:
            hess0 = check_array("hess0", hess0, ndim=2)
            if hess0.shape != (self.d, self.d):
                raise ParameterError(f"hess0 must have shape ({self.d}, {self.d}); "
                                     f"got hess0 with shape {hess0.shape}")
            if np.max(np.abs(hess0)) > 1.0:
                raise ParameterError("hess0 must be a loss Hessian, with entries in [-1, 1] "
                                     f"(they lie in [-1/4, 1/4]); got an entry "
                                     f"{np.max(np.abs(hess0)):.3g}")
        gtol = check_positive("gtol", gtol)
        max_iter = check_int("max_iter", max_iter, minimum=1, maximum=_MAX_ITER)
        return self._minimize(reg, linear, w0, hess0, gtol, max_iter)

    def _minimize(self, reg, linear=None, w0=None, hess0=None, gtol=1e-10, max_iter=100):
        with np.errstate(over="ignore", under="ignore"):
            w, n_iter, gnorm = _solve_newton(self._design, self.s, reg, linear, w0, gtol,
                                             max_iter, hess0)
        if gnorm > gtol:
            warnings.warn(f"Newton's method stopped after {n_iter} iterations with gradient "
                          f"norm {gnorm:.3g} > gtol={gtol:g}; the privacy proofs assume the "
                          "exact minimiser.", ConvergenceWarning, stacklevel=3)
        return w


def _norm(v: np.ndarray) -> float:
    """Euclidean norm without overflow in the squares."""
    m = float(np.max(np.abs(v))) if v.size else 0.0
    return 0.0 if m == 0.0 else m * float(np.linalg.norm(v / m))


def _minimiser_norm_bound(lin_norm: float, reg: float) -> float:
    """Bound on ‖w*‖ for ``J + linᵀw`` with ridge ``reg``: from J_lin(w*) ≤ J_lin(0) = log 2,
    ``(reg/2)‖w*‖² − ‖lin‖‖w*‖ ≤ log 2``; computed without overflow."""
    with np.errstate(over="ignore"):
        a = lin_norm / reg
        return float(a + math.sqrt(a * a + 2.0 * math.log(2.0) / reg))


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
def logistic_objective(w, Z, s, lam: float) -> float:
    """Regularised empirical risk ``J(w) = (1/n)Σ log(1+exp(-s_i wᵀz_i)) + (Λ/2)‖w‖²``.

    The regularised objective of [CMS11]_ with the logistic loss and
    ``N(w) = ½‖w‖²`` (:meth:`LogisticProblem.objective`).

    Parameters
    ----------
    w : array-like, shape (d,)
        Weights of norm ≤ :data:`MAX_WEIGHT_NORM`.
    Z : array-like, shape (n, d)
        Rows with ‖z‖ ≤ 1 (see :func:`bound_rows`).
    s : array-like, shape (n,)
        Labels in {-1, +1}.
    lam : float
        Λ > 0 (finite).

    Returns
    -------
    float
    """
    return LogisticProblem(Z, s).objective(w, lam)


def loss_hessian(w, Z, s) -> np.ndarray:
    """Hessian of the average logistic loss, ``(1/n) Σ ℓ''(s_i wᵀz_i) z_i z_iᵀ``.

    The Hessian of ``J`` is this plus ``Λ·I``. Its eigenvalues lie in
    ``[0, c·max‖z‖²] ⊆ [0, 1/4]`` for unit-ball rows
    (:meth:`LogisticProblem.loss_hessian`).

    Parameters
    ----------
    w : array-like, shape (d,)
        Weights of norm ≤ :data:`MAX_WEIGHT_NORM`.
    Z : array-like, shape (n, d)
        Rows with ‖z‖ ≤ 1.
    s : array-like, shape (n,)
        Labels in {-1, +1}.
    """
    return LogisticProblem(Z, s).loss_hessian(w)


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
    floating-point accuracy, as the privacy proofs assume
    (:meth:`LogisticProblem.minimize`).

    Parameters
    ----------
    Z : array-like, shape (n, d)
        Rows with ‖z‖ ≤ 1 (see :func:`bound_rows`).
    s : array-like, shape (n,)
        Labels in {-1, +1}.
    lam : float
        Λ > 0 (finite).
    linear : array-like, shape (d,), optional
        Linear term added to the objective (see :meth:`LogisticProblem.minimize`
        for its size limit).
    extra_reg : float
        Extra ridge coefficient ≥ 0 (finite; ``lam + extra_reg`` must be finite).
    w0 : array-like, shape (d,), optional
        Starting point (warm start); zeros by default.
    hess0 : array-like, shape (d, d), optional
        Loss Hessian ``(1/n)Σℓ''·z zᵀ`` to start from (e.g. the one at ``w0``,
        see :func:`loss_hessian`). Like ``w0`` it changes the running time,
        not the result.
    gtol : float
        Tolerance on the gradient's max-norm, > 0.
    max_iter : int
        Maximum Newton iterations, in [1, 10,000]; a
        :class:`~sklearn.exceptions.ConvergenceWarning` is issued if it is reached.

    Returns
    -------
    numpy.ndarray, shape (d,)
    """
    problem = LogisticProblem(Z, s)
    lam = check_positive("lam", lam)
    extra_reg = check_nonnegative("extra_reg", extra_reg)
    if not math.isfinite(lam + extra_reg):
        raise ParameterError(f"lam + extra_reg must be finite; got lam={describe(lam)} and "
                             f"extra_reg={describe(extra_reg)}")
    return problem.minimize(lam + extra_reg, linear=linear, w0=w0, hess0=hess0, gtol=gtol,
                            max_iter=max_iter)
