"""Differentially private logistic regression by empirical risk minimisation.

The two algorithms of Chaudhuri, Monteleoni & Sarwate (2011) [CMS11]_ for L2-regularised
logistic regression, built on the exact solver of :mod:`dpteach.learning.logistic`
(notation, the map into the unit ball and Λ versus scikit-learn's ``C`` are explained
there):

* **output perturbation** ([CMS11]_ Algorithm 1): solve the regularised ERM problem exactly,
  then add noise ``b`` with density ∝ ``exp(-β‖b‖)``, ``β = nΛε/2``. The minimiser has ℓ2
  sensitivity ``2/(nΛ)`` ([CMS11]_ Corollary 8), and the mechanism is ε-DP ([CMS11]_
  Theorem 6);
* **objective perturbation** ([CMS11]_ Algorithm 2): add a random linear term ``bᵀw/n``
  (and, if needed, an extra ridge term ``Δ/2·‖w‖²``) to the objective and solve the
  perturbed problem exactly. It is ε-DP by [CMS11]_ Theorem 9 (with ``c = 1/4`` for the
  logistic loss).

:class:`PrivateLogisticRegression` wraps both in a scikit-learn classifier.

Assumptions behind the guarantees (all are enforced here)
---------------------------------------------------------
1. **Bounded rows** by a fixed, data-independent map
   (:func:`~dpteach.learning.logistic.bound_rows`, the intercept a regularised constant
   feature inside the unit ball, so the guarantee covers it). Put only data-independent
   transformers in front of the estimator: a ``StandardScaler`` fitted on the private data
   would break the guarantee.
2. **Exact minimisation**, as both proofs assume: Newton's method to a gradient norm of
   ``1e-10`` (:meth:`~dpteach.learning.logistic.LogisticProblem.minimize`). For approximate
   solvers see Wu et al. (2017) and Iyengar et al. (2019).
3. **Neighbouring data sets** differ in one row (replacement), ``n`` is public, and the
   released model is ``w`` only: the noise vector must stay secret (``w`` and ``b`` together
   reveal ``w*`` or ``∇J``). The estimator never stores the noise; the low-level functions
   return it for teaching. The two class labels are public (``classes_``).

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
from dataclasses import dataclass

import numpy as np
from scipy import special
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import (EPSILON, FLAG, RNG, ParameterError, anything, choice, documented,
                           instance_of, one_of, real, refuse, validate, validate_params)
from ..mechanisms.l2_laplace import sample_l2_laplace
from .logistic import (
    C_INVERSE,
    DATA_NORM,
    FEATURE_ROWS,
    HESSIAN,
    LAM,
    LOGISTIC_C,
    N_ROWS,
    SIGNS,
    UNIT_ROWS,
    VECTOR,
    LogisticProblem,
    bound_rows,
    lam_from_C,
)

__all__ = ["DEFAULT_LAM", "MIN_NOISE_RATE", "MAX_DIM", "output_perturbation_beta",
           "ObjectivePerturbationConstants", "objective_perturbation_constants", "PrivateFit",
           "output_perturbation", "objective_perturbation", "PrivateLogisticRegression"]

#: Λ used when neither ``lam`` nor ``C`` is given.
DEFAULT_LAM = 1e-3
#: Smallest noise rate β the mechanisms sample with: inside the teaching domains β ≥ 5e-19
#: (output perturbation: nΛε/2 with n ≥ 1, Λ ≥ 1e-12, ε ≥ 1e-6), so the noise norm,
#: Gamma(d, 1/β) with mean d/β, stays far inside the float range.
MIN_NOISE_RATE = 1e-290
#: Largest dimension ``d`` of ``w`` the excess-risk bound accepts.
MAX_DIM = 10**7

#: c, the bound on the loss's second derivative (1/4 for the logistic loss)
CURVATURE = real(1e-6, 1e6, example=LOGISTIC_C)
#: the estimator's features: scikit-learn's validate_data checks them (with the messages its
#: estimator checks expect), then the teaching domain FEATURE_ROWS
SKLEARN_X = anything(f"features: {FEATURE_ROWS.text}")
#: rows in the unit ball, or a LogisticProblem built from them and the labels once
PROBLEM_OR_ROWS = one_of(instance_of(LogisticProblem, "a LogisticProblem"), UNIT_ROWS)


# ------------------------------------------------------- the two mechanisms
@validate(epsilon=EPSILON, n=N_ROWS, lam=LAM)
def output_perturbation_beta(epsilon: float, n: int, lam: float) -> float:
    """Noise rate ``β = nΛε/2`` of output perturbation ([CMS11]_ Algorithm 1).

    The regularised-ERM minimiser has ℓ2 sensitivity ``2/(nΛ)`` when
    ``‖x‖ ≤ 1``, ``|ℓ'| ≤ 1`` and the regulariser is ``(Λ/2)‖w‖²``
    ([CMS11]_ Corollary 8). Noise with density ∝ ``exp(-β‖b‖)`` makes the
    output ε-DP when ``β = ε / sensitivity = nΛε/2`` ([CMS11]_ Theorem 6,
    after [DMNS06]_). The noise norm is ``Gamma(d, 1/β)``: mean ``2d/(nΛε)``.
    """
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


@validate(epsilon=EPSILON, n=N_ROWS, lam=LAM, c=CURVATURE)
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
    """
    eps_prime = epsilon - 2.0 * math.log1p(c / (n * lam))   # log(1 + 2r + r²) = 2 log(1 + r)
    if eps_prime > 0:
        Delta = 0.0
    else:
        Delta = c / (n * math.expm1(epsilon / 4.0)) - lam    # expm1: exact for small ε
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


@validate(Z=PROBLEM_OR_ROWS, s=SIGNS.or_none(), epsilon=EPSILON, lam=LAM, rng=RNG,
          w_star=VECTOR.or_none())
def output_perturbation(Z, s, epsilon: float, lam: float, rng=None, *, w_star=None) -> PrivateFit:
    """ε-DP logistic regression by output perturbation ([CMS11]_ Algorithm 1).

    Returns ``w* + b`` where ``w* = argmin J`` and ``b`` has density
    ∝ ``exp(-β‖b‖)`` with ``β = nΛε/2`` (:func:`output_perturbation_beta`).
    Private by [CMS11]_ Theorem 6 under ``‖z_i‖ ≤ 1`` (checked).

    Parameters
    ----------
    Z : array-like, shape (n, d), or LogisticProblem
        Rows with ‖z‖ ≤ 1 (see :func:`~dpteach.learning.logistic.bound_rows`), or a
        :class:`~dpteach.learning.logistic.LogisticProblem` built from them and the labels
        once (saves the checks when drawing many private outputs).
    s : array-like, shape (n,), or None
        Labels in {-1, +1}; None when ``Z`` is a ``LogisticProblem``.
    w_star : array-like, optional
        The exact non-private minimiser for these ``(Z, s, lam)``, if already computed
        (saves the solve when drawing many private outputs). It must be the exact
        minimiser; it is not re-checked beyond its shape.
    """
    problem = _problem(Z, s, w_star=w_star)
    beta = output_perturbation_beta(epsilon, problem.n, lam)            # nΛε/2
    if w_star is None:
        w_star = problem._minimize(lam)
    b = sample_l2_laplace.__wrapped__(problem.d, beta, rng=rng)         # density ∝ e^(−β‖b‖)
    return PrivateFit(w=w_star + b, noise=b, epsilon=epsilon, method="output")


@validate(Z=PROBLEM_OR_ROWS, s=SIGNS.or_none(), epsilon=EPSILON, lam=LAM, rng=RNG,
          c=real(LOGISTIC_C, 1e6, example=LOGISTIC_C), w0=VECTOR.or_none(),
          hess0=HESSIAN.or_none())
def objective_perturbation(Z, s, epsilon: float, lam: float, rng=None, *,
                           c: float = LOGISTIC_C, w0=None, hess0=None) -> PrivateFit:
    """ε-DP logistic regression by objective perturbation ([CMS11]_ Algorithm 2).

    With ``(ε', Δ, β)`` from :func:`objective_perturbation_constants`, draws
    ``b`` with density ∝ ``exp(-β‖b‖)`` and returns the exact minimiser of

        J(w) + bᵀw/n + (Δ/2)‖w‖².

    Private by [CMS11]_ Theorem 9 under ``‖z_i‖ ≤ 1`` (checked) and the loss
    conditions stated there (met by the logistic loss with ``c = 1/4``).

    ``Z`` and ``s`` are as in :func:`output_perturbation`. ``c`` bounds the loss's second
    derivative: at least 1/4 (the logistic loss has ℓ''(0) = 1/4; a smaller c voids the
    guarantee), so keep 1/4. ``w0, hess0`` warm-start the solver
    (:meth:`~dpteach.learning.logistic.LogisticProblem.minimize`): they change the running
    time, not the result.
    """
    problem = _problem(Z, s, w0=w0, hess0=hess0)
    const = objective_perturbation_constants(epsilon, problem.n, lam, c)    # ε', Δ, β
    b = sample_l2_laplace.__wrapped__(problem.d, const.beta, rng=rng)       # ∝ e^(−β‖b‖)
    w = problem._minimize(lam + const.Delta, b / problem.n, w0, hess0)   # J + bᵀw/n + Δ‖w‖²/2
    return PrivateFit(w=w, noise=b, epsilon=epsilon, method="objective", constants=const)


# --------------------------------------------------------------- estimator
@documented
class PrivateLogisticRegression(ClassifierMixin, BaseEstimator):
    """ε-differentially private L2-regularised logistic regression [CMS11]_.

    A scikit-learn classifier (binary labels) that trains by objective perturbation
    ([CMS11]_ Algorithm 2, Theorem 9) or output perturbation ([CMS11]_ Algorithm 1,
    Theorem 6), or, with ``method="none"``, solves the same regularised problem without
    privacy (the baseline).

    Training rows are mapped into the unit ball by :func:`bound_rows` (**no data-dependent
    scaling happens inside the estimator**), with the intercept a constant feature inside
    that ball (``z = [x/R, 1]/√2``): it is regularised like every other weight and covered
    by the guarantee. Prediction uses the resulting linear model on the raw features:
    ``decision_function(X) = X @ coef_.T + intercept_``.

    Parameters
    ----------
    epsilon : float, default 1.0
        Privacy budget ε > 0 of one call to :meth:`fit` (δ = 0).
    method : {"objective", "output", "none"}, default "objective"
        Objective perturbation, output perturbation, or the non-private regularised
        baseline (``epsilon_`` is then ``inf``).
    lam : float, optional
        Λ > 0 in ``J(w) = (1/n)Σℓ(y wᵀz) + (Λ/2)‖w‖²``. Give ``lam`` or ``C``, not both; if
        neither is given Λ = :data:`DEFAULT_LAM`.
    C : float, optional
        scikit-learn's inverse regularisation strength; Λ = 1/(nC).
    data_norm : float, default 1.0
        Public bound R on the ℓ2 norm of a feature row (rows beyond it are clipped to it).
        Choose it from the feature map, never from the data.
    fit_intercept : bool, default True
    rng : None, int or numpy.random.Generator
        Randomness of the noise. An int makes :meth:`fit` reproducible (the same noise on
        every call); a Generator is advanced by each call (:func:`sklearn.base.clone` copies
        it, so clones start from the same state). Use a fixed seed for one release only: two
        fits on different data with the same seed share their noise, which cancels in the
        difference of the two models (composition assumes independent noise).

    Attributes
    ----------
    classes_, coef_, intercept_, n_features_in_
        As in scikit-learn's ``LogisticRegression`` (binary).
    lam_ : float
        The Λ used.
    epsilon_, delta_ : float
        Privacy spent by the fit (``inf`` for ``method="none"``) and δ = 0 (pure ε-DP).
    epsilon_prime_, Delta_ : float or None
        For objective perturbation: the constants ε' and Δ of Algorithm 2 (``None`` for the
        other methods).

    Examples
    --------
    >>> from dpteach.learning import PrivateLogisticRegression
    >>> clf = PrivateLogisticRegression(epsilon=1.0, lam=1e-3, rng=0)
    """

    _parameter_constraints = {
        "epsilon": EPSILON,
        "method": choice("objective", "output", "none"),
        "lam": LAM.or_none(),
        "C": C_INVERSE.or_none(),
        "data_norm": DATA_NORM,
        "fit_intercept": FLAG,
        "rng": RNG,
    }

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

    @validate(X=SKLEARN_X, y=anything("binary class labels, one per row of X"))
    def fit(self, X, y) -> PrivateLogisticRegression:
        """Train on features X (n, d) and labels y (n,) of exactly two classes; spends
        ``epsilon`` (see ``epsilon_``)."""
        p = validate_params(self, store=False)
        method, epsilon, data_norm = p["method"], p["epsilon"], p["data_norm"]
        fit_intercept, gen = p["fit_intercept"], p["rng"]
        if p["lam"] is not None and p["C"] is not None:
            raise refuse("C", self.C, f"None when lam is given (lam={self.lam!r}): lam or C")
        X, y = _validated(lambda: validate_data(self, X, y, dtype=np.float64, y_numeric=False),
                          "X and y must be real, finite arrays with one label per row of X")
        _validated(lambda: check_classification_targets(y), "y must hold class labels")
        y_type = type_of_target(y, input_name="y")
        classes = np.unique(y)
        if y_type != "binary" or classes.shape[0] != 2:     # scikit-learn's check_estimator's words
            raise ParameterError(f"Only binary classification is supported. The type of the "
                                 f"target is {y_type}: y must hold exactly 2 classes; got "
                                 f"{classes.shape[0]} class(es)")
        n = X.shape[0]
        lam = (lam_from_C(p["C"], n) if p["C"] is not None
               else p["lam"] if p["lam"] is not None else DEFAULT_LAM)
        problem = LogisticProblem(bound_rows(X, data_norm, fit_intercept),
                                  np.where(y == classes[1], 1.0, -1.0))
        self.epsilon_prime_ = None
        self.Delta_ = None
        if method == "none":
            w = problem._minimize(lam)
            self.epsilon_ = math.inf
        elif method == "output":
            w = output_perturbation(problem, None, epsilon, lam, gen).w
            self.epsilon_ = epsilon
        else:
            fit = objective_perturbation(problem, None, epsilon, lam, gen)
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

    @validate(X=SKLEARN_X)
    def decision_function(self, X) -> np.ndarray:
        """Signed score ``X @ coef_.T + intercept_`` (> 0 predicts ``classes_[1]``)."""
        check_is_fitted(self)
        X = _validated(lambda: validate_data(self, X, dtype=np.float64, reset=False),
                       f"X must be a real, finite array with {self.n_features_in_} columns")
        return FEATURE_ROWS("X", X) @ self.coef_[0] + self.intercept_[0]     # |x| ≤ 1e15

    @validate(X=SKLEARN_X)
    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities ``[1 − σ(score), σ(score)]`` in the order of ``classes_``."""
        score = self.decision_function(X)
        return np.column_stack([special.expit(-score), special.expit(score)])

    @validate(X=SKLEARN_X)
    def predict_log_proba(self, X) -> np.ndarray:
        """Logarithm of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))

    @validate(X=SKLEARN_X)
    def predict(self, X) -> np.ndarray:
        """Predicted class labels."""
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]


# ------------------------------------------------------------------- private helpers
def _problem(Z, s, **vectors) -> LogisticProblem:
    """``Z`` itself if it is a :class:`LogisticProblem` (then ``s`` is None), else the problem
    built from ``(Z, s)``; the ``vectors`` (warm starts) checked against its dimension d."""
    if isinstance(Z, LogisticProblem) != (s is None):
        raise refuse("s", s, "None exactly when Z is a LogisticProblem")
    problem = Z if s is None else LogisticProblem(Z, s)
    problem._check_shapes(**vectors)
    return problem


def _validated(call, what: str):
    """Run scikit-learn's input validation; its ValueError becomes our ParameterError (same
    message, prefixed by ``what``), so the one error type holds and sklearn's checks still
    see a ValueError."""
    try:
        return call()
    except ParameterError:
        raise
    except (ValueError, TypeError) as exc:
        kind = ParameterError if isinstance(exc, ValueError) else TypeError
        raise kind(f"{what}; got: {exc}") from exc
