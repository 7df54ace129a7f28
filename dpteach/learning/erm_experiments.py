"""Experiments with private logistic regression: sensitivity, accuracy against ε, toy fits.

These functions *measure* the algorithms of :mod:`dpteach.learning.erm` (Chaudhuri,
Monteleoni & Sarwate 2011 [CMS11]_) for notebook 10 and the app. Each private fit in an
experiment spends its own ε: an experiment as a whole is not a private release.

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate. Differentially
   private empirical risk minimization. JMLR 12:1069-1109, 2011.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special
from tqdm.auto import tqdm

from .._validation import (
    EPSILON,
    FLAG,
    RNG,
    Domain,
    anything,
    array,
    choice,
    instance_of,
    integer,
    one_of,
    refuse,
    validate,
)
from ..datasets import TOY_DATA_NORM, TOY_SIZE, make_toy_data
from .erm import PrivateLogisticRegression, objective_perturbation, output_perturbation
from .logistic import DATA_NORM, FEATURE_ROWS, LAM, LogisticProblem, bound_rows

__all__ = ["MAX_NEIGHBOURS", "MAX_TRIALS", "MAX_EPSILONS", "MinimizerSensitivityResult",
           "minimizer_sensitivity", "AccuracyCurve", "accuracy_vs_epsilon", "ToyFits", "toy_fits"]

#: Largest ``n_random`` and ``n_adversarial`` of :func:`minimizer_sensitivity` (each is an
#: exact refit).
MAX_NEIGHBOURS = 10_000
#: Largest number of private fits per (method, ε) in :func:`accuracy_vs_epsilon`.
MAX_TRIALS = 10_000
#: Largest number of ε values in one accuracy curve.
MAX_EPSILONS = 1_000

LABELS = anything("class labels, one per row of the features (exactly two classes)")
NEIGHBOURS = integer(0, MAX_NEIGHBOURS, work=True, example=3)
METHOD = choice("objective", "output")
TRIAL_COUNT = integer(2, MAX_TRIALS, work=True, example=3)
_TRIAL_DICT = instance_of(dict, f"a dict method -> number of trials in [2, {MAX_TRIALS:,}]")
#: the private fits per (method, ε): a number, or a dict method → number
TRIALS = one_of(TRIAL_COUNT, Domain(_TRIAL_DICT.text, lambda name, value: {
    m: TRIAL_COUNT(f"{name}[{m!r}]", r) for m, r in _TRIAL_DICT(name, value).items()},
    bad=[{"objective": 1}, {"output": 2.5}, [3, 3], None, "10"]))


# ------------------------------------------------- sensitivity experiment
@dataclass(frozen=True)
class MinimizerSensitivityResult:
    """Outcome of :func:`minimizer_sensitivity`.

    ``distances`` holds ``‖w* − w*'‖₂`` for each neighbouring data set tried, ``kinds`` its
    kind (``"random"`` or ``"adversarial"``), ``bound`` the sensitivity bound ``2/(nΛ)`` of
    [CMS11]_ Corollary 8 and ``w_star`` the minimiser on the original data.
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


@validate(X=FEATURE_ROWS, y=LABELS, lam=LAM, n_random=NEIGHBOURS, n_adversarial=NEIGHBOURS,
          data_norm=DATA_NORM, fit_intercept=FLAG, rng=RNG)
def minimizer_sensitivity(X, y, lam: float, *, n_random: int = 50, n_adversarial: int = 20,
                          data_norm: float = 1.0, fit_intercept: bool = True,
                          rng=None) -> MinimizerSensitivityResult:
    """How far the regularised-ERM minimiser moves when one row changes.

    Fits the non-private minimiser ``w*`` on ``(X, y)`` and on neighbouring data sets where
    one row ``i`` is replaced by ``(x', y')`` with ``‖x'‖ = data_norm`` (the edge of the
    allowed ball), and records ``‖w* − w*'‖₂`` in the space of the bounded rows
    (:func:`~dpteach.learning.logistic.bound_rows`). The largest distance found is a lower
    estimate of the ℓ2 sensitivity of the minimiser, which [CMS11]_ Corollary 8 bounds by
    ``2/(nΛ)``.

    Two kinds of neighbours are tried:

    * ``n_random`` random ones: ``i`` uniform, ``x'`` a uniform direction, ``y'``
      a fair coin;
    * ``n_adversarial`` chosen to move ``w*`` a lot: ``x'`` along a direction in
      which the objective is flattest (smallest-curvature eigenvectors of the
      Hessian of ``J`` at ``w*``, both signs), labelled so that ``w*``
      misclassifies it, replacing the rows whose first-order influence
      ``H⁻¹(∇ℓ_i − ∇ℓ')`` is largest.

    At least one neighbour in all; ``y`` has exactly two classes; ``data_norm`` and
    ``fit_intercept`` are as in :class:`~dpteach.learning.erm.PrivateLogisticRegression`.
    """
    if n_random + n_adversarial < 1:
        raise refuse("n_random", n_random, "≥ 1 when n_adversarial = 0")
    y, classes = _binary_labels("y", y, X.shape[0])
    n, d = X.shape
    Z = bound_rows(X, data_norm, fit_intercept)
    s = np.where(y == classes[1], 1.0, -1.0)
    problem = LogisticProblem(Z, s)
    w_star = problem.minimize(lam)
    hess_star = problem.loss_hessian(w_star)

    def refit(i, x_new, s_new):
        Z2 = Z.copy()
        s2 = s.copy()
        Z2[i] = bound_rows(x_new[None, :], data_norm, fit_intercept)[0]
        s2[i] = s_new
        w2 = LogisticProblem(Z2, s2).minimize(lam, w0=w_star, hess0=hess_star)
        return float(np.linalg.norm(w2 - w_star))

    dists, kinds = [], []
    for _ in range(n_random):
        i = int(rng.integers(n))
        u = rng.standard_normal(d)
        x_new = data_norm * u / np.linalg.norm(u)
        dists.append(refit(i, x_new, 1.0 if rng.random() < 0.5 else -1.0))
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
        try:
            Hinv = np.linalg.inv(H)
        except np.linalg.LinAlgError:                  # Λ at round-off level next to flat data
            Hinv = np.linalg.pinv(H)
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
    return MinimizerSensitivityResult(distances=np.array(dists), kinds=np.array(kinds),
                             bound=2.0 / (n * lam), w_star=w_star, n=n, lam=lam)


# --------------------------------------------------- accuracy vs epsilon
@dataclass(frozen=True)
class AccuracyCurve:
    """Test accuracy of private fits over a grid of ε (see :func:`accuracy_vs_epsilon`).

    ``accuracy`` maps a method to an array (number of ε, n_trials);
    ``nonprivate_accuracy`` is the test accuracy of the exact non-private minimiser of the
    same objective.
    """

    epsilons: np.ndarray
    accuracy: dict
    nonprivate_accuracy: float
    lam: float
    n_train: int
    dim: int

    @validate(method=METHOD)
    def mean(self, method: str) -> np.ndarray:
        """Mean accuracy over the trials, per ε (a method of the curve)."""
        return self._trials(method).mean(axis=1)

    @validate(method=METHOD)
    def std(self, method: str) -> np.ndarray:
        """Standard deviation over the trials (ddof=1), per ε (a method of the curve)."""
        return self._trials(method).std(axis=1, ddof=1)

    def to_frame(self) -> pd.DataFrame:
        """Long-format ``pandas.DataFrame`` with columns method, epsilon, trial, accuracy."""
        rows = [(m, float(e), r, float(a[i, r]))
                for m, a in self.accuracy.items()
                for i, e in enumerate(self.epsilons) for r in range(a.shape[1])]
        return pd.DataFrame(rows, columns=["method", "epsilon", "trial", "accuracy"])

    def _trials(self, method: str) -> np.ndarray:
        if method not in self.accuracy:
            raise refuse("method", method, f"one of the curve's {tuple(self.accuracy)}")
        return self.accuracy[method]


@validate(X_train=FEATURE_ROWS, y_train=LABELS, X_test=FEATURE_ROWS, y_test=LABELS,
          epsilons=array(ndim=1, max_size=MAX_EPSILONS, low=1e-6, high=1e3, example=[0.5, 1.0]),
          lam=LAM, methods=one_of(METHOD, anything("a sequence of those methods")),
          n_trials=TRIALS, data_norm=DATA_NORM, fit_intercept=FLAG, rng=RNG, progress=FLAG)
def accuracy_vs_epsilon(X_train, y_train, X_test, y_test, epsilons, lam: float, *,
                        methods=("objective", "output"), n_trials: int = 10,
                        data_norm: float = 1.0, fit_intercept: bool = True, rng=None,
                        progress: bool = False) -> AccuracyCurve:
    """Test accuracy of output and objective perturbation for each ε.

    Equivalent to fitting ``PrivateLogisticRegression(epsilon=ε, method=m,
    lam=lam, data_norm=data_norm, fit_intercept=fit_intercept)`` ``n_trials``
    times per ε and scoring on the test set, but faster: the rows are bounded
    and checked once (one :class:`~dpteach.learning.logistic.LogisticProblem`),
    output perturbation reuses the exact minimiser ``w*`` (only the noise is
    redrawn) and objective perturbation warm-starts Newton at ``w*``. The result
    is the same as the estimator's (up to solver round-off).

    Each fit spends its own ε: the curve as a whole is an *experiment*, not a
    private release (running it on real private data would compose to
    ``n_trials·Σε`` per method).

    Parameters
    ----------
    X_train, y_train, X_test, y_test : array-like
        Two classes in ``y_train``; ``y_test`` uses the same labels.
    n_trials : int or dict
        Private fits per (method, ε); a dict ``method -> int`` gives each method its own
        number (output perturbation is cheap to repeat: it only redraws the noise).
    data_norm, fit_intercept
        As in :class:`~dpteach.learning.erm.PrivateLogisticRegression`.
    progress : bool
        Show a ``tqdm`` progress bar.
    """
    methods = (methods,) if isinstance(methods, str) else tuple(methods)
    trials = n_trials if isinstance(n_trials, dict) else {m: n_trials for m in methods}
    if set(methods) - {"objective", "output"} or set(trials) != set(methods):
        raise refuse("methods, n_trials", (methods, n_trials),
                     "the same methods, of 'objective' and 'output'")
    if X_test.shape[1] != X_train.shape[1]:
        raise refuse("X_test.shape", X_test.shape, f"(m, {X_train.shape[1]}), as X_train")
    y_train, classes = _binary_labels("y_train", y_train, X_train.shape[0])
    y_test = np.asarray(y_test)
    if y_test.shape != X_test.shape[:1]:
        raise refuse("y_test.shape", y_test.shape, f"{X_test.shape[:1]}, one label per row")
    problem = LogisticProblem(bound_rows(X_train, data_norm, fit_intercept),
                              np.where(y_train == classes[1], 1.0, -1.0))
    # the test rows are scored with the linear model on *unclipped* features,
    # as PrivateLogisticRegression.decision_function does
    Zt_lin = X_test / data_norm
    if fit_intercept:
        Zt_lin = np.hstack([Zt_lin, np.ones((X_test.shape[0], 1))]) / math.sqrt(2.0)
    st = np.where(y_test == classes[1], 1.0, -1.0)

    def acc(w):
        return float(np.mean(np.where(Zt_lin @ w > 0, 1.0, -1.0) == st))

    w_star = problem.minimize(lam)
    hess_star = problem.loss_hessian(w_star)
    out = {m: np.empty((epsilons.shape[0], trials[m])) for m in methods}
    total = epsilons.shape[0] * sum(trials.values())
    bar = tqdm(total=total, desc="private fits", disable=not progress)
    for m in methods:
        for i, e in enumerate(epsilons):
            for r in range(trials[m]):
                if m == "output":
                    w = output_perturbation(problem, None, e, lam, rng, w_star=w_star).w
                else:
                    w = objective_perturbation(problem, None, e, lam, rng, w0=w_star,
                                               hess0=hess_star).w
                out[m][i, r] = acc(w)
                bar.update(1)
    bar.close()
    return AccuracyCurve(epsilons=epsilons, accuracy=out, nonprivate_accuracy=acc(w_star),
                         lam=lam, n_train=problem.n, dim=problem.d)


# ------------------------------------------------------------- toy fits
@dataclass(frozen=True)
class ToyFits:
    """Private and non-private fits on the toy data (see :func:`toy_fits`).

    What :func:`dpteach.plots.erm.plot_toy_boundaries` draws: the data ``X, y`` of
    :func:`dpteach.datasets.make_toy_data`, the ``nonprivate`` fit (``method="none"``) and the
    ``private`` fits, one per seed; ``seed`` is the integer seed the data were drawn with (the
    noise used seed + 1 onwards).
    """

    X: np.ndarray
    y: np.ndarray
    nonprivate: PrivateLogisticRegression
    private: tuple
    epsilon: float
    lam: float
    method: str
    data_norm: float
    seed: int

    @property
    def n(self) -> int:
        """Number of toy points."""
        return int(self.X.shape[0])


@validate(epsilon=EPSILON, lam=LAM, method=METHOD, n_fits=integer(1, 50, work=True, example=2),
          n=TOY_SIZE, rng=one_of(integer(0, 2**62, example=0), RNG), data_norm=DATA_NORM)
def toy_fits(epsilon: float = 1.0, lam: float = 0.01, method: str = "objective",
             n_fits: int = 8, n: int = 200, rng=0,
             data_norm: float = TOY_DATA_NORM) -> ToyFits:
    """Fit ``n_fits`` private models and the non-private one on the 2-D toy data.

    With an integer seed ``s`` (``rng=s``), draws ``X, y = make_toy_data(n, rng=s)``
    and fits ``PrivateLogisticRegression(method=method, epsilon=epsilon, lam=lam,
    data_norm=data_norm)`` with seeds ``s+1 … s+n_fits``, and the
    non-private ``method="none"`` fit of the same objective ([CMS11]_
    Algorithms 1 and 2). All arguments are plain values, so a page can cache the
    result per slider position and draw it with
    :func:`dpteach.plots.erm.plot_toy_boundaries`.

    An integer seed makes the result a plain function of hashable arguments, as a cache
    wants; a Generator or None draws ``s`` from it. ``data_norm`` is the public row-norm
    bound R (rows beyond it are clipped).
    """
    seed = rng if isinstance(rng, int) else int(rng.integers(2**62))
    X, y = make_toy_data(n, rng=seed)
    kw = dict(lam=lam, data_norm=data_norm)
    base = PrivateLogisticRegression(method="none", **kw).fit(X, y)
    fits = tuple(PrivateLogisticRegression(method=method, epsilon=epsilon, rng=seed + 1 + i,
                                           **kw).fit(X, y) for i in range(n_fits))
    return ToyFits(X=X, y=y, nonprivate=base, private=fits, epsilon=epsilon, lam=lam,
                   method=method, data_norm=data_norm, seed=seed)


def _binary_labels(name: str, y, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """``y`` as an array of one label per row, and its two classes."""
    y = np.asarray(y)
    classes = np.unique(y)
    if y.shape != (rows,) or classes.shape[0] != 2:
        raise refuse(name, y, f"{rows} labels (one per row) of exactly 2 classes")
    return y, classes
