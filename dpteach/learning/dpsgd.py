"""DP-SGD: differentially private stochastic gradient descent, step by step.

One iteration of DP-SGD (Abadi et al. [ACG16]_, Algorithm 1), written so that
each ingredient is a function students can call and test on its own:

1. :func:`poisson_sample` — every example joins the batch independently with
   probability q = batch_size / n, so the batch size varies from step to step
   (Binomial(n, q), mean qn). This is the sampling the privacy analysis of the
   subsampled Gaussian assumes [MTZ19]_ [ZDW22]_.
2. per-example gradients g_i, and their norms, from one backward pass
   (:mod:`dpteach.learning.nn`, [G15]_);
3. clipping: ḡ_i = g_i / max(1, ‖g_i‖/C) (:func:`~dpteach.learning.nn.clip_factors`),
   so each example moves the sum Σ_i ḡ_i by at most C;
4. :func:`privatize_gradient_sum` — add Gaussian noise N(0, σ²C² I) to the
   clipped sum and divide by the *expected* batch size qn (a public constant:
   dividing by the realised batch size would leak it);
5. an accountant composes the privacy loss of every step
   (:mod:`dpteach.accounting`): the released update is the sampled Gaussian
   mechanism with noise multiplier σ and sampling rate q.

:class:`DPSGDClassifier` wraps these into a scikit-learn classifier. With
``noise_multiplier=0, max_grad_norm=None`` it runs the very same code without
clipping and noise: the non-private SGD baseline.

Privacy unit: one example (add/remove-one neighbouring data sets, as assumed
by the sampled Gaussian analysis of [MTZ19]_). Only the trained parameters are
covered by ε; the training-set ``history_`` is a diagnostic and is not private.
Floating-point noise sampling is not hardened (see Mironov 2012).

References
----------
.. [ACG16] M. Abadi, A. Chu, I. Goodfellow, H. B. McMahan, I. Mironov,
   K. Talwar and L. Zhang. Deep learning with differential privacy. CCS 2016,
   Algorithm 1.
.. [MTZ19] I. Mironov, K. Talwar and L. Zhang. Rényi differential privacy of
   the sampled Gaussian mechanism. arXiv:1908.10530, 2019.
.. [ZDW22] Y. Zhu, J. Dong and Y.-X. Wang. Optimal accounting of differential
   privacy via characteristic function. AISTATS 2022.
.. [G15] I. Goodfellow. Efficient per-example gradient computations.
   arXiv:1510.01799, 2015.
.. [LK21] J. Lee and D. Kifer. Scaling up differentially private deep learning
   with fast per-example gradient clipping. PoPETs 2021(1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from .._validation import (
    ParameterError,
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_nonnegative,
    check_positive,
    check_probability,
    check_rng,
)
from .nn import MLP, _clip_factors, _softmax

__all__ = [
    "poisson_sample",
    "steps_per_epoch",
    "privatize_gradient_sum",
    "DPGradient",
    "dp_sgd_gradient",
    "DPSGDClassifier",
]


def poisson_sample(n: int, sample_rate: float, rng=None) -> np.ndarray:
    """Poisson subsampling: indices of the examples that join this step's batch.

    Each of the n examples is included independently with probability
    q = ``sample_rate``; the batch size is Binomial(n, q) and may be 0.

    Parameters
    ----------
    n : int ≥ 1
    sample_rate : float in [0, 1]
    rng : None, int or numpy.random.Generator

    Returns
    -------
    numpy.ndarray of int
        Sorted indices.

    References
    ----------
    [ACG16]_ Sec. 3.1 ("lot" sampled with probability q); [MTZ19]_
    (the sampled Gaussian mechanism).
    """
    n = check_int("n", n, minimum=1)
    q = check_probability("sample_rate", sample_rate)
    return np.flatnonzero(check_rng(rng).random(n) < q)


def steps_per_epoch(n: int, batch_size: int) -> int:
    """⌈n / batch_size⌉: the number of Poisson-sampled steps that make one "epoch".

    Each step touches qn = batch_size examples on average, so one epoch sees
    about n examples (as Opacus's Poisson data loader does).
    """
    n = check_int("n", n, minimum=1)
    b = check_int("batch_size", batch_size, minimum=1, maximum=n)
    return -(-n // b)


def privatize_gradient_sum(grad_sum, *, noise_multiplier: float, max_grad_norm: float | None,
                           expected_batch_size: float, rng=None) -> list:
    """The Gaussian mechanism on a clipped gradient sum, normalised by the expected batch size.

    Returns (Σ_i ḡ_i + N(0, σ²C² I)) / (qn) for each parameter block, where
    σ = ``noise_multiplier``, C = ``max_grad_norm`` and qn =
    ``expected_batch_size`` ([ACG16]_ Algorithm 1, "add noise" step, with the
    normalisation of the Poisson-sampled version). Because every clipped
    ḡ_i has norm ≤ C, adding or removing one example changes the sum by at
    most C in L2 norm: the noise N(0, σ²C²) is the Gaussian mechanism with
    noise multiplier σ.

    Parameters
    ----------
    grad_sum : list of arrays
        Σ_i ḡ_i per parameter block (not modified).
    noise_multiplier : float ≥ 0
        σ. 0 releases the sum without noise (not private).
    max_grad_norm : float > 0 or None
        C; may be None only when σ = 0 (no clipping, no noise).
    expected_batch_size : float > 0
        qn, a public constant.
    rng : None, int or numpy.random.Generator
    """
    sigma = check_nonnegative("noise_multiplier", noise_multiplier)
    if max_grad_norm is None:
        if sigma > 0:
            raise ParameterError("max_grad_norm=None (no clipping) is only allowed with "
                                 f"noise_multiplier=0; got noise_multiplier={noise_multiplier}")
        C = 0.0
    else:
        C = check_positive("max_grad_norm", max_grad_norm)
    m = check_positive("expected_batch_size", expected_batch_size)
    gen = check_rng(rng)
    if not isinstance(grad_sum, (list, tuple)):
        raise TypeError(f"grad_sum must be a list of arrays; got {type(grad_sum).__name__}")
    return _privatize(list(grad_sum), sigma, C, m, gen, copy=True)


def _privatize(grads: list, sigma: float, C: float, m: float, gen, copy: bool) -> list:
    out = []
    for g in grads:
        g = np.array(g, copy=True) if copy else g
        if sigma > 0:
            if g.dtype in (np.float32, np.float64):
                noise = gen.standard_normal(g.shape, dtype=g.dtype)
            else:
                noise = gen.standard_normal(g.shape)
            noise *= sigma * C                              # N(0, σ²C²) per coordinate
            g += noise
        g /= m
        out.append(g)
    return out


@dataclass
class DPGradient:
    """One privatised gradient and what went into it (for teaching and plots).

    Attributes
    ----------
    grads : list of arrays
        (Σ_i ḡ_i + noise) / (qn), aligned with ``MLP.params``.
    norms : array (b,) or None
        Per-example gradient norms ‖g_i‖ before clipping (None without
        clipping, where they are not needed).
    clip_factors : array (b,)
        c_i = min(1, C/‖g_i‖) (all ones without clipping).
    batch_size : int
        The realised batch size b.
    """

    grads: list
    norms: np.ndarray
    clip_factors: np.ndarray
    batch_size: int


def _dp_gradient(model: MLP, Xb, yb, sigma: float, C: float | None, m: float, gen) -> DPGradient:
    trace = model._backward(Xb, yb)
    if C is None:                                          # no clipping: plain gradient sum
        norms, c = None, np.ones(Xb.shape[0], dtype=trace.errors[0].dtype)
    else:
        norms = model.per_example_grad_norms_from(trace)   # ‖g_i‖ without materialising g_i
        c = _clip_factors(norms, C)
    grads = model.weighted_gradient_sum(trace, c)          # Aᵀ diag(c) Δ per layer
    grads = _privatize(grads, sigma, 0.0 if C is None else C, m, gen, copy=False)
    return DPGradient(grads=grads, norms=norms, clip_factors=c, batch_size=int(Xb.shape[0]))


def dp_sgd_gradient(model: MLP, X_batch, y_batch, *, noise_multiplier: float,
                    max_grad_norm: float | None, expected_batch_size: float,
                    rng=None) -> DPGradient:
    """Steps 2–4 of DP-SGD on one (already sampled) batch [ACG16]_ Algorithm 1.

    Per-example gradient norms and the clipped sum come from one backward
    pass without materialising per-example gradients ([G15]_, [LK21]_); then
    Gaussian noise σC is added and the result divided by qn
    (:func:`privatize_gradient_sum`). An empty batch gives pure noise.
    The L2 penalty of ``model`` (if any) is *not* included: it does not
    depend on the data, so it can be added after privatisation.

    Parameters
    ----------
    model : MLP
    X_batch : array (b, d), y_batch : array of int (b,)
    noise_multiplier, max_grad_norm, expected_batch_size, rng :
        see :func:`privatize_gradient_sum`.

    Returns
    -------
    DPGradient

    References
    ----------
    [ACG16]_ Algorithm 1; [G15]_ and [LK21]_ for the per-example norms and the
    clipped sum; see the module docstring.
    """
    if not isinstance(model, MLP):
        raise TypeError(f"model must be a dpteach.learning.nn.MLP; got {type(model).__name__}")
    sigma = check_nonnegative("noise_multiplier", noise_multiplier)
    if max_grad_norm is None:
        if sigma > 0:
            raise ParameterError("max_grad_norm=None (no clipping) is only allowed with "
                                 f"noise_multiplier=0; got noise_multiplier={noise_multiplier}")
        C = None
    else:
        C = check_positive("max_grad_norm", max_grad_norm)
    m = check_positive("expected_batch_size", expected_batch_size)
    Xb = model._check_X(X_batch)
    yb = model._check_y(y_batch, Xb.shape[0])
    return _dp_gradient(model, Xb, yb, sigma, C, m, check_rng(rng))


def _make_accountant(name: str):
    from .. import accounting

    return accounting.RDPAccountant() if name == "rdp" else accounting.PLDAccountant()


class DPSGDClassifier(ClassifierMixin, BaseEstimator):
    """A small neural-network classifier trained with DP-SGD (Abadi et al. [ACG16]_, Alg. 1).

    Each of ``epochs × ⌈n / batch_size⌉`` steps: Poisson-sample a batch with
    rate q = batch_size / n, clip per-example gradients to ``max_grad_norm``,
    add N(0, σ²C²) noise to their sum, divide by qn, take a gradient step
    (plus the data-independent L2 term), and step the privacy accountant.

    Parameters
    ----------
    noise_multiplier : float ≥ 0, default 1.0
        σ (noise std in units of C). Ignored when ``target_epsilon`` is set.
        0 trains without noise (ε = ∞).
    max_grad_norm : float > 0 or None, default 1.0
        Clipping norm C. None = no clipping (only with ``noise_multiplier=0``):
        the non-private SGD baseline on the same code path.
    batch_size : int ≥ 1, default 256
        Expected batch size qn (must be ≤ n).
    epochs : int ≥ 1, default 5
    learning_rate : float > 0, default 0.5
    hidden : tuple of int, default (64,)
        Hidden layer widths (empty tuple: multinomial logistic regression).
    activation : {"relu", "tanh"}, default "relu"
    target_epsilon : float > 0, optional
        If set, σ is the smallest noise multiplier such that the planned
        number of steps is (target_epsilon, delta)-DP under ``accountant``
        (:func:`dpteach.accounting.get_noise_multiplier`).
    delta : float in (0, 1), default 1e-5
        δ at which ε is reported (choose δ ≪ 1/n).
    accountant : {"rdp", "pld"}, default "rdp"
    l2 : float ≥ 0, default 0
        L2 penalty (l2/2)‖W‖² on the weights, added after privatisation.
    rng : None, int or numpy.random.Generator
        Initialisation, sampling and noise. A fixed seed is for reproducing one
        release: fits on different data with the same seed share their noise,
        which composition theorems do not allow for.
    verbose : bool, default False
        Show a ``tqdm`` progress bar over epochs.

    Attributes
    ----------
    classes_ : array
    model_ : dpteach.learning.nn.MLP
    noise_multiplier_ : float
        σ actually used.
    sample_rate_ : float
        q = batch_size / n.
    n_steps_ : int
    epsilon_ : float
        ε spent (at ``delta``) according to the accountant; inf when σ = 0.
    delta_ : float
    accountant_ : the accountant object (None when σ = 0)
    batch_sizes_ : array of int
        Realised (Poisson) batch size of every step.
    history_ : dict of lists
        After each epoch: ``"epoch"``, ``"loss"`` (mean training
        cross-entropy), ``"accuracy"`` (training), ``"epsilon"`` (spent so
        far). Computed on the training data: a diagnostic, NOT private.

    Notes
    -----
    Assumptions of the guarantee: examples are the privacy unit (add/remove
    one); sampling is Poisson exactly as implemented; the hyper-parameters
    (including the choice of σ, C, epochs) are chosen without looking at the
    private data; the set of class labels is public (it fixes the output layer and
    ``classes_``; a label held by one person only would otherwise reveal them);
    only the final parameters are released; the training-set
    size n is public (q = batch_size / n and the number of steps depend on it,
    as in Opacus; under strict add/remove adjacency n itself changes by one,
    and a fully rigorous variant fixes q and the number of steps in advance).
    ε is computed by
    the RDP accountant of the sampled Gaussian mechanism ([MTZ19]_) or the
    PLD accountant (Google ``dp_accounting``); with ``accountant="pld"`` the
    identical steps of one epoch are composed in one call (the same
    composition; a PLD composition costs ~0.4 s per call).

    References
    ----------
    .. [ACG16] M. Abadi et al. Deep learning with differential privacy. CCS 2016, Algorithm 1.
    .. [MTZ19] I. Mironov, K. Talwar and L. Zhang. Rényi differential privacy of the
       sampled Gaussian mechanism. arXiv:1908.10530, 2019.
    .. [LK21] J. Lee and D. Kifer. Scaling up differentially private deep learning with
       fast per-example gradient clipping. PoPETs 2021(1).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = DPSGDClassifier(target_epsilon=2.0, batch_size=128, epochs=3, rng=0).fit(X / 16, y)
    >>> clf.epsilon_ <= 2.0
    True
    """

    def __init__(self, noise_multiplier=1.0, max_grad_norm=1.0, batch_size=256, epochs=5,
                 learning_rate=0.5, hidden=(64,), activation="relu", target_epsilon=None,
                 delta=1e-5, accountant="rdp", l2=0.0, rng=None, verbose=False):
        self.noise_multiplier = noise_multiplier
        self.max_grad_norm = max_grad_norm
        self.batch_size = batch_size
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.hidden = hidden
        self.activation = activation
        self.target_epsilon = target_epsilon
        self.delta = delta
        self.accountant = accountant
        self.l2 = l2
        self.rng = rng
        self.verbose = verbose

    # ---------------------------------------------------------------- checks
    def _check_params(self, n: int):
        sigma = check_nonnegative("noise_multiplier", self.noise_multiplier)
        C = (None if self.max_grad_norm is None
             else check_positive("max_grad_norm", self.max_grad_norm))
        b = check_int("batch_size", self.batch_size, minimum=1)
        if b > n:
            raise ParameterError(f"batch_size must be <= the number of training examples n={n}; "
                                 f"got batch_size={b}")
        epochs = check_int("epochs", self.epochs, minimum=1)
        lr = check_positive("learning_rate", self.learning_rate)
        hidden = self.hidden
        if isinstance(hidden, (str, bytes)) or not hasattr(hidden, "__len__"):
            raise TypeError(f"hidden must be a tuple of layer widths; got hidden={hidden!r}")
        hidden = tuple(check_int("hidden", h, minimum=1) for h in hidden)
        check_choice("activation", self.activation, {"relu", "tanh"})
        target = None if self.target_epsilon is None else check_epsilon("target_epsilon", self.target_epsilon)
        delta = check_delta("delta", self.delta, allow_zero=False)
        acc = check_choice("accountant", self.accountant, {"rdp", "pld"})
        l2 = check_nonnegative("l2", self.l2)
        if C is None and (sigma > 0 and target is None):
            raise ParameterError("max_grad_norm=None (no clipping) is only allowed with "
                                 f"noise_multiplier=0; got noise_multiplier={self.noise_multiplier}")
        if C is None and target is not None:
            raise ParameterError("target_epsilon needs clipping: set max_grad_norm to a number > 0; "
                                 "got max_grad_norm=None")
        if not isinstance(self.verbose, (bool, np.bool_, int)):
            raise TypeError(f"verbose must be True or False; got verbose={self.verbose!r}")
        return sigma, C, b, epochs, lr, hidden, target, delta, acc, l2

    # ------------------------------------------------------------------ fit
    def fit(self, X, y):
        """Train with DP-SGD on (X, y); returns self.

        BLAS runs single-threaded during training (threadpoolctl): for these
        small matrices thread start-up costs more than it gains, and on a
        busy shared machine two BLAS threads made each step ~15× slower in
        our measurements.
        """
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return self._fit(X, y)

    def _fit(self, X, y):
        from tqdm.auto import tqdm

        X = check_array("X", X, ndim=2)
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ParameterError(f"y must have shape ({X.shape[0]},); got y with shape {y.shape}")
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ParameterError(f"y must contain at least 2 classes; got classes {self.classes_!r}")
        n = X.shape[0]
        sigma, C, b, epochs, lr, hidden, target, delta, acc_name, l2 = self._check_params(n)
        gen = check_rng(self.rng)

        q = b / n
        per_epoch = steps_per_epoch(n, b)
        total = epochs * per_epoch
        if target is not None:
            from ..accounting import get_noise_multiplier

            sigma = float(get_noise_multiplier(target_epsilon=target, target_delta=delta,
                                               sample_rate=q, steps=total, accountant=acc_name))
        self.noise_multiplier_ = sigma
        self.sample_rate_ = q
        self.n_steps_ = total
        self.delta_ = delta
        self.accountant_ = _make_accountant(acc_name) if sigma > 0 else None

        Xf = X.astype(np.float32)
        self.model_ = model = MLP((X.shape[1], *hidden, self.classes_.size),
                                  activation=self.activation, l2=l2, dtype="float32", rng=gen)
        self.history_ = {"epoch": [], "loss": [], "accuracy": [], "epsilon": []}
        batch_sizes = np.empty(total, dtype=np.int64)
        step, pending = 0, 0
        bar = tqdm(range(1, epochs + 1), desc="DP-SGD" if sigma > 0 else "SGD",
                   disable=not self.verbose, leave=False)
        for epoch in bar:
            for _ in range(per_epoch):
                idx = np.flatnonzero(gen.random(n) < q)                # 1. Poisson sampling
                dpg = _dp_gradient(model, Xf[idx], y_idx[idx],         # 2-4. clip, sum, noise, /qn
                                   sigma, C, q * n, gen)
                model.apply_update(model.add_l2_gradient(dpg.grads), lr)
                if self.accountant_ is not None:                       # 5. accounting
                    if acc_name == "rdp":
                        self.accountant_.step(noise_multiplier=sigma, sample_rate=q, steps=1)
                    else:
                        pending += 1
                batch_sizes[step] = dpg.batch_size
                step += 1
            if pending:
                # PLD composition costs ~0.4 s per call (dp_accounting builds the
                # subsampled-Gaussian PLD each time), so the PLD accountant receives
                # the epoch's identical steps as one call: the same composition.
                self.accountant_.step(noise_multiplier=sigma, sample_rate=q, steps=pending)
                pending = 0
            eps = self.accountant_.get_epsilon(delta) if self.accountant_ is not None else math.inf
            logp = np.log(np.maximum(_softmax(model._forward(Xf)[0].astype(np.float64)), 1e-300))
            self.history_["epoch"].append(epoch)
            self.history_["loss"].append(float(-logp[np.arange(n), y_idx].mean()))
            self.history_["accuracy"].append(float(np.mean(logp.argmax(axis=1) == y_idx)))
            self.history_["epsilon"].append(float(eps))
            bar.set_postfix(loss=f"{self.history_['loss'][-1]:.3f}", eps=f"{eps:.2f}")
        self.batch_sizes_ = batch_sizes
        self.epsilon_ = float(self.history_["epsilon"][-1])
        return self

    # -------------------------------------------------------------- predict
    def _check_fitted_X(self, X):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "model_")
        X = check_array("X", X, ndim=2)
        if X.shape[1] != self.model_.layer_sizes[0]:
            raise ParameterError(f"X must have {self.model_.layer_sizes[0]} columns; "
                                 f"got shape {X.shape}")
        return X.astype(np.float32)

    def logits(self, X):
        """Logits (before the softmax), shape (n, n_classes), float64."""
        X = self._check_fitted_X(X)
        return self.model_._forward(X)[0].astype(np.float64)

    def predict_proba(self, X):
        """Class probabilities (softmax of the logits, in float64), shape (n, n_classes)."""
        return _softmax(self.logits(X))

    def predict(self, X):
        """Most probable class label."""
        scores = self.logits(X)                 # checks fitted first
        return self.classes_[np.argmax(scores, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags
