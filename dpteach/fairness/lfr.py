"""Learning Fair Representations (LFR): prototypes that forget the group but keep the label.

Zemel, Wu, Swersky, Pitassi and Dwork [ZWSPD13]_ map each person ``x_n`` to a probability
distribution over ``K`` prototypes ``v_1 … v_K`` (points in the input space) and ask three
things of that map at once:

* *keep the data* — the reconstruction ``x̂_n = Σ_k M_nk v_k`` is close to ``x_n`` (loss L_x);
* *keep the label* — the prediction ``ŷ_n = Σ_k M_nk w_k``, with one number ``w_k ∈ [0, 1]``
  per prototype, is close to ``y_n`` (cross-entropy L_y);
* *forget the group* — each prototype is used, on average, equally by both groups of the
  sensitive attribute A (statistical parity of the representation, L_z).

The memberships are a softmax of negative distances, ``M_nk ∝ exp(−d_α(x_n, v_k))`` with
the weighted squared distance ``d_α(x, v) = Σ_i α_i (x_i − v_i)²``; the weights α are learned
too, one vector per group as in the paper's model (``alpha="per_group"``) or one shared
vector (``alpha="shared"``). The objective

    A_x · L_x + A_y · L_y + A_z · L_z,
    L_x = (1/N) Σ_n ‖x_n − x̂_n‖²,
    L_y = (1/N) Σ_n −y_n log ŷ_n − (1 − y_n) log(1 − ŷ_n),
    L_z = Σ_k | M̄_k(A = a₁) − M̄_k(A = a₀) |,   M̄_k(A = a) = mean of M_nk over group a,

is minimised over (v, w, α) with SciPy's L-BFGS-B from several seeded starts, with the
gradient computed analytically, keeping the start with the lowest objective.
:func:`lfr_losses` evaluates the three terms for *any* prototype model given its
memberships; the shipped A_z sweep on Adult and German credit is in
:mod:`dpteach.fairness.lfr_grid`.

Where this differs from the paper
---------------------------------
* **L_x and L_y are means, not sums, over the N training rows**, so the weights mean the same
  thing whatever N is. A paper-style objective with weights (A_x, A_y, A_z) over sums is N
  times ours with (A_x, A_y, A_z / N): divide A_z by N to translate.
* α is kept ≥ 0 (a distance needs non-negative weights).
* Analytic gradients, several seeded starts, and a continuation in the smoothing of |·|
  (see ``max_iter``). How AIF360's and fairlearn's LFR differ, and what that does to their
  results: docs/library/fairness.md.

What is and is not fair about the result
----------------------------------------
A small L_z says the two groups are spread over the prototypes in the same proportions, so
*any* classifier that looks only at the memberships has (nearly) the same positive rate in
both groups on the training data: statistical parity, and only that. It is not equalized
odds: when the base rates differ (Adult: 31 % of men, 11 % of women earn > 50K) parity
forces errors to differ between the groups. It says nothing about subgroups or about a third
group, holds on the training distribution only (check it on held-out data, as the shipped
grid does), and with ``alpha="per_group"`` the map itself reads A (each group is measured with
its own α), so A must be known when the representation is used. Individual fairness is
encouraged only indirectly — similar people get similar memberships because the map is
smooth — which is why the paper reports the consistency yNN alongside.

References
----------
.. [ZWSPD13] R. Zemel, Y. Wu, K. Swersky, T. Pitassi and C. Dwork. "Learning fair
   representations." Proceedings of the 30th International Conference on Machine Learning
   (ICML 2013), PMLR 28(3):325-333: the model (prototypes, memberships, the objective
   A_x L_x + A_y L_y + A_z L_z with the parity term L_z), the measures yAcc, yDiscrim and
   yNN, and the experiments on German credit (A: age) and Adult (A: sex).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, minimize
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from .._validation import (RNG, Domain, array, choice, documented, integer, real, refuse, validate,
                           validate_params)
from ._rows import check_same_length, fitted_group_codes
from .metrics import BOTH_LABELS, GROUP_LABELS, LABELS, TWO_GROUPS
from .representation import FEATURES, MAX_ABS_FEATURE, MAX_CELLS

__all__ = [
    "LFR",
    "LFRLosses",
    "lfr_losses",
    "MAX_CELLS",
    "MAX_ABS_FEATURE",
    "MAX_WEIGHT",
    "SMOOTHING",
]

#: Most prototypes K.
MAX_PROTOTYPES = 100
#: Most seeded starts, and most L-BFGS-B iterations per stage, of one fit.
MAX_STARTS = 20
MAX_ITER = 1_000
#: Largest weight A_x, A_y or A_z.
MAX_WEIGHT = 1e6
_CLIP = 1e-12                      # ŷ is kept in [_CLIP, 1 − _CLIP] inside the log-loss
#: The smoothing of |d| in L_z, sqrt(d² + mu²) − mu, in the successive L-BFGS-B stages of
#: one start (0: the exact objective, always last).
SMOOTHING = (0.1, 0.01, 0.0)


#: the weight of one term of the objective
WEIGHT = real(0.0, MAX_WEIGHT, example=1.0)
_NON_NEGATIVE = array(ndim=2, low=0.0, high=1.0)
#: memberships M (n, K): non-negative, each row summing to 1 (to within 1e-6)
MEMBERSHIPS = Domain(
    "a 2-D array of memberships in [0, 1], each row summing to 1 (to within 1e-6)",
    lambda name, value: _stochastic(name, value), bad=[*_NON_NEGATIVE.bad, [[0.6, 0.6]]],
    example=[[0.5, 0.5], [1.0, 0.0], [0.25, 0.75], [0.0, 1.0]], edges=[[[1.0]]])
#: prototypes v_k (K, d), in the features' range
PROTOTYPES = array(ndim=2, low=-MAX_ABS_FEATURE, high=MAX_ABS_FEATURE,
                   example=[[0.0, 1.0], [1.0, 0.0]])
#: the prototypes' predictions w_k ∈ [0, 1]
PROTOTYPE_PREDICTIONS = array(ndim=1, low=0.0, high=1.0, example=[0.2, 0.9])


# ------------------------------------------------------------------ the mathematics
@dataclass(frozen=True)
class LFRLosses:
    """The three terms of the LFR objective (see the module docstring).

    Attributes
    ----------
    L_x : float
        Mean squared reconstruction error ``(1/N) Σ_n ‖x_n − Σ_k M_nk v_k‖²``.
    L_y : float
        Mean cross-entropy of ``ŷ_n = Σ_k M_nk w_k`` (clipped to [1e-12, 1 − 1e-12]).
    L_z : float
        ``Σ_k |M̄_k(group 1) − M̄_k(group 0)|``, in [0, 2].
    """

    L_x: float
    L_y: float
    L_z: float

    @validate(Ax=WEIGHT, Ay=WEIGHT, Az=WEIGHT)
    def objective(self, Ax: float, Ay: float, Az: float) -> float:
        """``Ax·L_x + Ay·L_y + Az·L_z``."""
        return float(Ax * self.L_x + Ay * self.L_y + Az * self.L_z)


@validate(X=FEATURES, y=LABELS, memberships=MEMBERSHIPS, prototypes=PROTOTYPES,
          w=PROTOTYPE_PREDICTIONS, sensitive_features=TWO_GROUPS)
def lfr_losses(X, y, memberships, prototypes, w, *, sensitive_features) -> LFRLosses:
    """L_x, L_y and L_z of a prototype representation [ZWSPD13]_, from its memberships.

    Works for any model of the LFR family however it computes its memberships (``LFR``'s
    :meth:`LFR.transform`, or ``transform`` of fairlearn's ``PrototypeRepresentationLearner``
    with its ``prototypes_`` and ``coef_``), so two implementations can be scored by one
    function. ``memberships`` is M (n, K), each row summing to 1 (to within 1e-6),
    ``prototypes`` the v_k (K, d), ``w`` the prototype predictions w_k (K,).
    """
    M, V, codes, n = memberships, prototypes, sensitive_features.codes, X.shape[0]
    check_same_length(X=X, y=y, sensitive_features=codes)
    if M.shape[0] != n or V.shape != (M.shape[1], X.shape[1]) or w.shape != (M.shape[1],):
        raise refuse("memberships, prototypes, w", (M.shape, V.shape, w.shape), "shapes fitting X")
    R = M @ V - X
    L_x = float(np.einsum("ij,ij->", R, R) / n)
    yhat = np.clip(M @ w, _CLIP, 1.0 - _CLIP)
    L_y = float(-np.mean(y * np.log(yhat) + (1.0 - y) * np.log1p(-yhat)))
    L_z = float(np.abs(M[codes == 1].mean(axis=0) - M[codes == 0].mean(axis=0)).sum())
    return LFRLosses(L_x, L_y, L_z)


def _stochastic(name, value):
    M = _NON_NEGATIVE(name, value)
    if np.allclose(M.sum(axis=1), 1.0, atol=1e-6):
        return M
    raise MEMBERSHIPS.refuse(name, value)


def _memberships(X, V, alpha):
    """Softmax over k of ``−d_α(x_n, v_k)``; the row constant ``Σ_i α_i x_ni²`` cancels, so
    the logits are ``2 x_n·(α∘v_k) − α·v_k²`` (no cancellation between large numbers)."""
    logits = 2.0 * (X @ (alpha * V).T) - (V * V) @ alpha
    logits -= logits.max(axis=1, keepdims=True)
    E = np.exp(logits)
    return E / E.sum(axis=1, keepdims=True)


class _Problem:
    """The data of one fit, grouped (rows of group 0, then of group 1), and the objective
    with its analytic gradient over θ = (V.ravel(), w, α.ravel()).

    No (n × d) array is formed per evaluation: with ``P = X Vᵀ``, ``C = V Vᵀ``,
    ``‖x_n − Σ_k M_nk v_k‖² = ‖x_n‖² − 2 Σ_k M_nk P_nk + m_nᵀ C m_n``, so each evaluation costs
    two products of a (2K × d) or (2K × n) matrix with X per group (``[α∘V; V] Xᵀ`` and
    ``[M; H] X``), done with a sparse X when at most a quarter of its entries are non-zero
    (one-hot data).
    """

    def __init__(self, X, y, codes, K, Ax, Ay, Az, shared, use_sparse=None):
        Xg = [np.ascontiguousarray(X[codes == g]) for g in (0, 1)]
        self.sq = [float(np.einsum("ij,ij->", x, x)) for x in Xg]
        if use_sparse is None:
            use_sparse = X.size >= 100_000 and np.count_nonzero(X) <= X.size // 4
        if use_sparse:
            self.X = [sparse.csr_array(x) for x in Xg]
            self.XT = [sparse.csr_array(x.T) for x in Xg]
        else:
            self.X = Xg
            self.XT = [np.ascontiguousarray(x.T) for x in Xg]
        self.y = [y[codes == g] for g in (0, 1)]
        self.N = X.shape[0]
        self.K, self.d = K, X.shape[1]
        self.Ax, self.Ay, self.Az = Ax, Ay, Az
        self.shared = shared
        self.n_alpha = 1 if shared else 2
        self.mu = 0.0               # > 0: |d| smoothed to sqrt(d² + mu²) − mu (first stage)

    def unpack(self, theta):
        K, d = self.K, self.d
        V = theta[:K * d].reshape(K, d)
        w = theta[K * d:K * d + K]
        alpha = theta[K * d + K:].reshape(self.n_alpha, d)
        return V, w, alpha

    def bounds(self):
        K, d = self.K, self.d
        lo = np.concatenate([np.full(K * d, -np.inf), np.zeros(K), np.zeros(self.n_alpha * d)])
        hi = np.concatenate([np.full(K * d, np.inf), np.ones(K), np.full(self.n_alpha * d,
                                                                          np.inf)])
        return Bounds(lo, hi)

    def losses_and_grad(self, theta, *, with_grad=True):
        """(objective, gradient, (L_x, L_y, L_z)). Arrays over rows are laid out (K, n), so
        the reductions over prototypes run along the long axis."""
        V, w, alpha = self.unpack(theta)
        N, K, Ax, Ay, Az = self.N, self.K, self.Ax, self.Ay, self.Az
        C = V @ V.T
        V2 = V * V
        parts = []
        L_x = L_y = 0.0
        for g in (0, 1):
            a = alpha[0 if self.shared else g]
            BX = np.vstack([a * V, V]) @ self.XT[g]         # [(α∘V) Xᵀ; V Xᵀ], (2K, n)
            logits = 2.0 * BX[:K] - (V2 @ a)[:, None]
            logits -= logits.max(axis=0)
            M = np.exp(logits)
            M /= M.sum(axis=0)
            P = BX[K:]
            CM = C @ M
            L_x += self.sq[g] - 2.0 * np.einsum("ij,ij->", M, P) + np.einsum("ij,ij->", M, CM)
            yhat = w @ M
            clipped = np.clip(yhat, _CLIP, 1.0 - _CLIP)
            yg = self.y[g]
            L_y -= np.sum(yg * np.log(clipped) + (1.0 - yg) * np.log1p(-clipped))
            # d(cross-entropy)/dŷ, zero where the clip is active
            e = np.where(clipped == yhat, (clipped - yg) / (clipped * (1.0 - clipped)), 0.0)
            parts.append((M, P, CM, e))
        L_x = max(L_x / N, 0.0)
        L_y /= N
        diff = parts[1][0].mean(axis=1) - parts[0][0].mean(axis=1)
        L_z = np.abs(diff).sum()
        if self.mu > 0:
            root = np.sqrt(diff * diff + self.mu * self.mu)
            J = Ax * L_x + Ay * L_y + Az * (root - self.mu).sum()
            sign = diff / root
        else:
            J = Ax * L_x + Ay * L_y + Az * L_z
            sign = np.sign(diff)
        if not with_grad:
            return J, None, (L_x, L_y, L_z)
        dV = np.zeros_like(V)
        dw = np.zeros_like(w)
        dalpha = np.zeros_like(alpha)
        for g in (0, 1):
            M, P, CM, e = parts[g]
            ag = 0 if self.shared else g
            a = alpha[ag]
            # ∂J/∂M: reconstruction ((2/N)·v_k·(x̂_n − x_n)), prediction, parity
            G = (2.0 * Ax / N) * (CM - P)
            G += (Ay / N) * w[:, None] * e[None, :]
            G += ((Az * (1.0 if g == 1 else -1.0) / M.shape[1]) * sign)[:, None]
            # through the softmax: ∂J/∂logit = M ∘ (G − Σ_j M_j G_j)
            H = M * (G - np.einsum("ij,ij->j", M, G))
            MHX = np.vstack([M, H]) @ self.X[g]              # [M X; H X], (2K, d)
            MX, HX = MHX[:K], MHX[K:]
            h = H.sum(axis=1)
            dV += (2.0 * Ax / N) * ((M @ M.T) @ V - MX)
            dV += 2.0 * (HX * a - V * (h[:, None] * a))
            dw += (Ay / N) * (M @ e)
            dalpha[ag] += 2.0 * np.einsum("kd,kd->d", HX, V) - h @ V2
        grad = np.concatenate([dV.ravel(), dw, dalpha.ravel()])
        return J, grad, (L_x, L_y, L_z)

    def fun(self, theta):
        J, grad, _ = self.losses_and_grad(theta)
        if not (math.isfinite(J) and np.all(np.isfinite(grad))):
            return math.inf, np.zeros_like(theta)         # L-BFGS-B backtracks
        return J, grad

    def start(self, gen, Xall):
        """θ₀: prototypes at K distinct random rows (plus a little noise, so that duplicate
        rows still give distinct prototypes), w uniform in [0, 1], α = 1."""
        n = Xall.shape[0]
        rows = gen.choice(n, size=self.K, replace=self.K > n)
        scale = 0.01 * (np.std(Xall, axis=0) + 1e-12)
        V = Xall[rows] + scale * gen.standard_normal((self.K, self.d))
        w = gen.uniform(0.0, 1.0, self.K)
        alpha = np.ones(self.n_alpha * self.d)
        return np.concatenate([V.ravel(), w, alpha])


# ---------------------------------------------------------------------- the estimator
@documented
class LFR(ClassifierMixin, TransformerMixin, BaseEstimator):
    """Learning Fair Representations [ZWSPD13]_: a transformer (memberships) and classifier.

    Parameters
    ----------
    n_prototypes : int, default 10
        K, the number of prototypes.
    Ax, Ay, Az : float, default 0.01, 1.0, 50.0
        Weights of reconstruction, prediction and parity, each in [0, 1e6]. L_x and L_y are
        means over rows (see the module docstring), L_z is in [0, 2].
    alpha : {"per_group", "shared"}, default "per_group"
        One vector of distance weights per group, as in the paper (the map then needs A at
        :meth:`transform` / :meth:`predict` time), or one shared vector (A is used only by
        the parity term during :meth:`fit`).
    n_starts : int, default 3
        Seeded random starts; the lowest objective is kept.
    max_iter : int, default 100
        L-BFGS-B iterations per stage. A start runs three stages when
        ``Az > 0`` — L_z smoothed to ``Σ_k sqrt(d_k² + μ²) − μ`` with μ = 0.1, then 0.01, then
        the exact objective, each from where the last stopped (:data:`SMOOTHING`; L-BFGS
        stalls at the kinks of |·| far from parity otherwise) — and one stage of
        ``3 · max_iter`` iterations when ``Az = 0``.
    rng : None, int or numpy.random.Generator
        Seeds the starts. An int makes :meth:`fit` reproducible.

    Attributes
    ----------
    prototypes_ : ndarray of shape (K, n_features)
    w_ : ndarray of shape (K,)
        Each prototype's probability of the positive label.
    alpha_ : ndarray of shape (2, n_features) or (1, n_features)
        Distance weights, per group in the order of ``groups_`` (or shared).
    groups_ : ndarray of shape (2,)
        The two values of ``sensitive_features`` (sorted); ``groups_[1]`` is "group 1" of L_z.
    classes_ : ndarray ``[0, 1]``
    objective_ : float
        Objective of the kept start.
    L_x_, L_y_, L_z_ : float
        Its three terms.
    start_objectives_ : ndarray of shape (n_starts,)
        Final objective of every start (how much the local optima differ).
    n_iter_ : int
        L-BFGS-B iterations of the kept start.
    converged_ : bool
        Whether the kept start stopped on SciPy's convergence test (not ``max_iter``).
    n_features_in_ : int

    Notes
    -----
    Features should be on comparable scales (e.g. in [0, 1], as :func:`dpteach.datasets.
    adult_arrays` gives them): α starts at 1 for every feature.

    Examples
    --------
    >>> import numpy as np
    >>> from dpteach.fairness.lfr import LFR
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 200); X = np.c_[a + rng.normal(0, .3, 200), rng.normal(0, 1, 200)]
    >>> y = (X[:, 0] + X[:, 1] > .5).astype(int)
    >>> model = LFR(n_prototypes=4, Az=5.0, rng=0).fit(X, y, sensitive_features=a)
    >>> model.transform(X[:3], sensitive_features=a[:3]).shape
    (3, 4)
    """

    _parameter_constraints = {
        "n_prototypes": integer(1, MAX_PROTOTYPES, example=3, work=True), "Ax": WEIGHT,
        "Ay": WEIGHT, "Az": WEIGHT, "alpha": choice("per_group", "shared"),
        "n_starts": integer(1, MAX_STARTS, example=1, work=True),
        "max_iter": integer(1, MAX_ITER, example=5, work=True), "rng": RNG,
    }

    def __init__(self, n_prototypes=10, Ax=0.01, Ay=1.0, Az=50.0, alpha="per_group",
                 n_starts=3, max_iter=100, rng=None):
        self.n_prototypes = n_prototypes
        self.Ax = Ax
        self.Ay = Ay
        self.Az = Az
        self.alpha = alpha
        self.n_starts = n_starts
        self.max_iter = max_iter
        self.rng = rng

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.non_deterministic = self.rng is None
        return tags

    @validate(X=FEATURES, y=BOTH_LABELS, sensitive_features=TWO_GROUPS)
    def fit(self, X, y, *, sensitive_features):
        """Learn prototypes, their predictions and the distance weights (features on
        comparable scales, e.g. in [0, 1])."""
        hp = validate_params(self, store=False)
        Az, max_iter = hp["Az"], hp["max_iter"]
        check_same_length(X=X, y=y, sensitive_features=sensitive_features.codes)
        problem = _Problem(X, y, sensitive_features.codes, hp["n_prototypes"], hp["Ax"],
                           hp["Ay"], Az, hp["alpha"] == "shared")
        seeds = hp["rng"].integers(0, 2**63 - 1, size=hp["n_starts"])
        # each start: L-BFGS-B on L_z smoothed with mu = 0.1, then 0.01, then on the exact
        # objective (a continuation: the kinks of |.| stall L-BFGS far from parity)
        stages = SMOOTHING if Az > 0 else (0.0,)
        best, objectives = None, []
        with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"), \
                threadpool_limits(limits=1, user_api="blas"):
            for seed in seeds:
                theta = problem.start(np.random.default_rng(int(seed)), X)
                nit = 0
                for mu in stages:
                    problem.mu = mu
                    res = minimize(problem.fun, theta, jac=True, method="L-BFGS-B",
                                   bounds=problem.bounds(),
                                   options={"maxiter": max_iter * len(SMOOTHING) // len(stages)})
                    theta, nit = res.x, nit + res.nit
                problem.mu = 0.0
                J = float(res.fun)
                objectives.append(J)
                if best is None or J < best[0]:       # finite: a start's objective is
                    best = (J, theta, nit, res.status == 0)   # finite in the domain
            J, _, (L_x, L_y, L_z) = problem.losses_and_grad(best[1], with_grad=False)
        V, w, alpha = problem.unpack(best[1])
        self.prototypes_ = V.copy()
        self.w_ = w.copy()
        self.alpha_ = alpha.copy()
        self.groups_ = sensitive_features.labels
        self.classes_ = np.array([0, 1])
        self.objective_ = float(J)
        self.L_x_, self.L_y_, self.L_z_ = float(L_x), float(L_y), float(L_z)
        self.start_objectives_ = np.array(objectives)
        self.n_iter_ = int(best[2])
        self.converged_ = bool(best[3])
        self.n_features_in_ = X.shape[1]
        return self

    # ------------------------------------------------------------------ using the map
    @validate(X=FEATURES, sensitive_features=GROUP_LABELS.or_none())
    def transform(self, X, *, sensitive_features=None):
        """The representation: memberships ``M`` of shape (n_samples, K), rows summing to 1.

        ``sensitive_features`` is required with ``alpha="per_group"`` (values among
        ``groups_``) and not used with ``alpha="shared"``.
        """
        return self._transform(X, sensitive_features)

    @validate(X=FEATURES, y=BOTH_LABELS, sensitive_features=TWO_GROUPS)
    def fit_transform(self, X, y, *, sensitive_features):
        """:meth:`fit`, then :meth:`transform` of the same rows."""
        self.fit.__wrapped__(self, X, y, sensitive_features=sensitive_features)
        return self._transform(X, sensitive_features)

    @validate(X=FEATURES, sensitive_features=GROUP_LABELS.or_none())
    def predict_proba(self, X, *, sensitive_features=None):
        """``[1 − ŷ, ŷ]`` with ``ŷ = Σ_k M_nk w_k``, shape (n_samples, 2)."""
        M = self._transform(X, sensitive_features)
        yhat = np.clip(M @ self.w_, 0.0, 1.0)
        return np.column_stack([1.0 - yhat, yhat])

    @validate(X=FEATURES, sensitive_features=GROUP_LABELS.or_none())
    def predict(self, X, *, sensitive_features=None):
        """Label 1 where ``ŷ > 1/2``, else 0."""
        p = self.predict_proba.__wrapped__(self, X, sensitive_features=sensitive_features)
        return (p[:, 1] > 0.5).astype(np.int64)

    @validate(X=FEATURES, y=LABELS, sensitive_features=GROUP_LABELS.or_none())
    def score(self, X, y, *, sensitive_features=None):
        """Accuracy of :meth:`predict` on ``(X, y)`` (a Python float)."""
        check_same_length(X=X, y=y)
        pred = self.predict.__wrapped__(self, X, sensitive_features=sensitive_features)
        return float(np.mean(pred == y))

    @validate(X=FEATURES, y=LABELS, sensitive_features=TWO_GROUPS)
    def losses(self, X, y, *, sensitive_features) -> LFRLosses:
        """L_x, L_y, L_z of this model on other rows (e.g. held-out data), via
        :func:`lfr_losses`."""
        M = self._transform(X, sensitive_features)
        return lfr_losses.__wrapped__(X, y, M, self.prototypes_, self.w_,
                                      sensitive_features=sensitive_features)

    def _transform(self, X, sensitive_features):
        """The memberships of checked rows (the body of :meth:`transform`)."""
        X, codes = self._rows(X, sensitive_features)
        M = np.empty((X.shape[0], self.prototypes_.shape[0]))
        with np.errstate(over="ignore", under="ignore"):
            for g in np.unique(codes):
                a = self.alpha_[0 if self.alpha_.shape[0] == 1 else g]
                M[codes == g] = _memberships(X[codes == g], self.prototypes_, a)
        return M

    def _rows(self, X, sensitive_features):
        """X (as many columns as in fit) and each row's group code (0 with a shared α)."""
        check_is_fitted(self)
        if X.shape[1] != self.n_features_in_:
            raise refuse("X", X.shape, f"of {self.n_features_in_} columns, as in fit (shape)")
        if self.alpha_.shape[0] == 1:
            return X, np.zeros(X.shape[0], dtype=np.intp)
        if sensitive_features is None:
            raise refuse("sensitive_features", None, "given with alpha='per_group'")
        check_same_length(X=X, sensitive_features=sensitive_features.codes)
        return X, fitted_group_codes(self.groups_, sensitive_features)
