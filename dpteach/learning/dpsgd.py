"""DP-SGD: differentially private stochastic gradient descent, step by step.

One iteration of DP-SGD (Abadi et al. [ACG16]_, Algorithm 1), written so that
each ingredient is a function students can call and test on its own:

1. :func:`poisson_sample` — every example joins the batch independently with
   probability q = batch_size / n, so the batch size varies from step to step
   (Binomial(n, q), mean qn). This is the sampling the privacy analysis of the
   subsampled Gaussian assumes [MTZ19]_ [ZDW22]_.
2. per-example gradients g_i, and their norms, from the per-layer inputs and errors of
   one backward pass (:mod:`dpteach.learning.network`, [G15]_);
3. clipping: ḡ_i = g_i / max(1, ‖g_i‖/C) (:func:`~dpteach.learning.network.clip_factors`,
   summed by :meth:`~dpteach.learning.network.Network.clipped_gradient_sum`), so each
   example moves the sum Σ_i ḡ_i by at most C;
4. :func:`privatize_gradient_sum` — add Gaussian noise N(0, σ²C² I) to the
   clipped sum and divide by the *expected* batch size qn (a public constant:
   dividing by the realised batch size would leak it). The noise is drawn by the
   Box–Muller transform [BM58]_;
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
.. [BM58] G. E. P. Box and M. E. Muller. A note on the generation of random normal
   deviates. Ann. Math. Statist. 29(2):610-611, 1958.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from .._validation import (
    ParameterError,
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_in_range,
    check_int,
    check_probability,
    check_rng,
    describe,
)
from ..accounting.pld import PLDAccountant
from ..accounting.rdp import RDPAccountant
from ..accounting.calibrate import get_noise_multiplier
from .network import MAX_LAYERS, MAX_WIDTH, Network
from .optim import MAX_INPUT, softmax

__all__ = [
    "MAX_EXAMPLES",
    "MAX_NOISE_MULTIPLIER",
    "MAX_GRAD_NORM",
    "MAX_STEPS",
    "poisson_sample",
    "steps_per_epoch",
    "privatize_gradient_sum",
    "DPGradient",
    "dp_sgd_gradient",
    "DPSGDClassifier",
]

#: Largest number of examples ``n`` (one random number per example and step: 80 MB).
MAX_EXAMPLES = 10_000_000
#: Largest noise multiplier σ (σ·C must stay far inside the float32 range).
MAX_NOISE_MULTIPLIER = 1e6
#: Largest clipping norm C.
MAX_GRAD_NORM = 1e15
#: Largest learning rate and L2 penalty of :class:`DPSGDClassifier`.
_MAX_RATE = 1e6
#: Largest number of training steps ``epochs · ⌈n / batch_size⌉`` of the classifier.
MAX_STEPS = 1_000_000
#: Range of the expected batch size qn that a gradient sum is divided by.
_BATCH_RANGE = (1e-6, 1e12)


def poisson_sample(n: int, sample_rate: float, rng=None) -> np.ndarray:
    """Poisson subsampling: indices of the examples that join this step's batch.

    Each of the n examples is included independently with probability
    q = ``sample_rate``; the batch size is Binomial(n, q) and may be 0.

    Parameters
    ----------
    n : int in [1, :data:`MAX_EXAMPLES`]
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
    n = check_int("n", n, minimum=1, maximum=MAX_EXAMPLES)
    q = check_probability("sample_rate", sample_rate)
    return np.flatnonzero(check_rng(rng).random(n) < q)


def steps_per_epoch(n: int, batch_size: int) -> int:
    """⌈n / batch_size⌉: the number of Poisson-sampled steps that make one "epoch".

    Each step touches qn = batch_size examples on average, so one epoch sees
    about n examples (as Opacus's Poisson data loader does).

    Parameters
    ----------
    n : int in [1, :data:`MAX_EXAMPLES`]
    batch_size : int in [1, n]

    Returns
    -------
    int
    """
    n = check_int("n", n, minimum=1, maximum=MAX_EXAMPLES)
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
    noise multiplier σ. The standard normals come from the Box–Muller transform
    [BM58]_.

    Parameters
    ----------
    grad_sum : list of arrays
        Σ_i ḡ_i per parameter block: finite real numbers (not modified; float32
        blocks stay float32, other blocks become float64).
    noise_multiplier : float in [0, :data:`MAX_NOISE_MULTIPLIER`]
        σ. 0 releases the sum without noise (not private).
    max_grad_norm : float in (0, :data:`MAX_GRAD_NORM`] or None
        C; may be None only when σ = 0 (no clipping, no noise).
    expected_batch_size : float in [1e-6, 1e12]
        qn, a public constant.
    rng : None, int or numpy.random.Generator
    """
    sigma, C = _check_noise(noise_multiplier, max_grad_norm)
    m = _check_expected_batch_size(expected_batch_size)
    gen = check_rng(rng)
    if not isinstance(grad_sum, (list, tuple)):
        raise TypeError(f"grad_sum must be a list of arrays; got {type(grad_sum).__name__}")
    blocks = []
    for k, g in enumerate(grad_sum):
        g = check_array(f"grad_sum[{k}]", g, min_size=0, dtype=None)
        blocks.append(g if g.dtype in (np.float32, np.float64) else g.astype(np.float64))
    return _privatize(blocks, sigma, 0.0 if C is None else C, m, gen, copy=True)


def _check_noise(noise_multiplier, max_grad_norm):
    """σ in [0, MAX_NOISE_MULTIPLIER] and C in (0, MAX_GRAD_NORM] or None (only with σ = 0)."""
    sigma = check_in_range("noise_multiplier", noise_multiplier, 0.0, MAX_NOISE_MULTIPLIER)
    if max_grad_norm is None:
        if sigma > 0:
            raise ParameterError("max_grad_norm=None (no clipping) is only allowed with "
                                 f"noise_multiplier=0; got noise_multiplier={noise_multiplier}")
        return sigma, None
    C = check_in_range("max_grad_norm", max_grad_norm, 0.0, MAX_GRAD_NORM, low_inclusive=False)
    return sigma, C


def _check_expected_batch_size(expected_batch_size) -> float:
    return check_in_range("expected_batch_size", expected_batch_size, *_BATCH_RANGE)


def _privatize(grads: list, sigma: float, C: float, m: float, gen, copy: bool) -> list:
    out = [np.array(g, copy=True) if copy else g for g in grads]
    if sigma > 0 and out:
        dtype = np.result_type(*out)                        # float32 unless a block is float64
        noise = _normal(sum(g.size for g in out), sigma * C, dtype, gen)   # N(0, σ²C²) each
        start = 0
        for g in out:
            g += noise[start:start + g.size].reshape(g.shape)
            start += g.size
    for g in out:
        g /= m
    return out


def _normal(size: int, scale: float, dtype, gen) -> np.ndarray:
    """``size`` independent N(0, scale²) draws by the Box–Muller transform [BM58]_.

    For independent U uniform on (0, 1] and V uniform on [0, 1), R = √(−2 ln U) and
    Θ = 2πV, the pair (R cos Θ, R sin Θ) is two independent standard normals; both are
    multiplied by ``scale``. U is a float64 uniform (1 − ``gen.random()``, a multiple of
    2⁻⁵³), so R ≤ √(106 ln 2) ≈ 8.57: the normal's tail beyond it, P(R > 8.57) = 2⁻⁵³ ≈ 1e-16
    per pair, is the only part left out. V, Θ and the sines are computed in ``dtype``
    (float32: V a multiple of 2⁻²⁴). The first half of the result holds the cosines, the
    second half the sines.
    """
    half = (size + 1) // 2
    r2 = gen.random(half)
    np.subtract(1.0, r2, out=r2)
    np.log(r2, out=r2)
    r2 *= -2.0 * scale * scale                          # (scale · R)², in float64
    radius = np.sqrt(r2.astype(dtype, copy=False))
    angle = gen.random(half, dtype=dtype)
    angle *= 2 * np.pi
    out = np.empty(2 * half, dtype=dtype)
    cos, sin = out[:half], out[half:]
    np.cos(angle, out=cos)
    np.sin(angle, out=sin)
    cos *= radius
    sin *= radius
    return out[:size]


@dataclass
class DPGradient:
    """One privatised gradient and what went into it (for teaching and plots).

    Attributes
    ----------
    grads : list of arrays
        (Σ_i ḡ_i + noise) / (qn), aligned with ``Network.params``.
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


def _dp_gradient(trace, sigma: float, C: float | None, m: float, gen) -> DPGradient:
    """Steps 2-4 on the backward pass ``trace`` of one batch (arguments already checked)."""
    # ‖g_i‖, c_i = min(1, C/‖g_i‖) and Aᵀ diag(c) Δ per layer, without materialising g_i
    grads, norms, c = Network.clipped_gradient_sum(trace, C)
    grads = _privatize(grads, sigma, 0.0 if C is None else C, m, gen, copy=False)
    return DPGradient(grads=grads, norms=norms, clip_factors=c, batch_size=int(c.shape[0]))


def dp_sgd_gradient(model: Network, X_batch, y_batch, *, noise_multiplier: float,
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
    model : Network
        A classifier: logits out, softmax cross-entropy (:meth:`Network.trace`).
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
    if not isinstance(model, Network):
        raise TypeError("model must be a dpteach.learning.network.Network; got "
                        f"{type(model).__name__}")
    sigma, C = _check_noise(noise_multiplier, max_grad_norm)
    m = _check_expected_batch_size(expected_batch_size)
    gen = check_rng(rng)
    trace = model.trace(X_batch, y_batch)
    return _dp_gradient(trace, sigma, C, m, gen)


def _check_features(name: str, X) -> np.ndarray:
    """A finite 2-D float64 array with entries of magnitude ≤ MAX_INPUT (the network's bound)."""
    X = check_array(name, X, ndim=2)
    if X.size and np.max(np.abs(X)) > MAX_INPUT:
        raise ParameterError(f"{name} must have entries of magnitude <= {MAX_INPUT:g} (the "
                             f"network computes in float32); got {name} with max |x| = "
                             f"{np.max(np.abs(X)):.3g}")
    return X


class DPSGDClassifier(ClassifierMixin, BaseEstimator):
    """A small neural-network classifier trained with DP-SGD (Abadi et al. [ACG16]_, Alg. 1).

    Each of ``epochs × ⌈n / batch_size⌉`` steps: Poisson-sample a batch with
    rate q = batch_size / n, clip per-example gradients to ``max_grad_norm``,
    add N(0, σ²C²) noise to their sum, divide by qn, take a gradient step
    (plus the data-independent L2 term), and step the privacy accountant.

    Parameters
    ----------
    noise_multiplier : float in [0, 1e6], default 1.0
        σ (noise std in units of C). Ignored when ``target_epsilon`` is set.
        0 trains without noise (ε = ∞).
    max_grad_norm : float in (0, 1e15] or None, default 1.0
        Clipping norm C. None = no clipping (only with ``noise_multiplier=0``):
        the non-private SGD baseline on the same code path.
    batch_size : int ≥ 1, default 256
        Expected batch size qn (must be ≤ n).
    epochs : int in [1, 10,000], default 5
        With at most :data:`MAX_STEPS` steps ``epochs · ⌈n / batch_size⌉`` in all.
    learning_rate : float in (0, 1e6], default 0.5
        A rate so large that the weights overflow stops the fit with a
        ``ParameterError`` naming it.
    hidden : tuple of int, default (64,)
        Hidden layer widths (empty tuple: multinomial logistic regression), at
        most 48 layers, widths and parameter count as in
        :class:`~dpteach.learning.network.Network`.
    activation : {"relu", "tanh"}, default "relu"
    target_epsilon : float > 0, optional
        If set, σ is the smallest noise multiplier such that the planned
        number of steps is (target_epsilon, delta)-DP under ``accountant``
        (:func:`dpteach.accounting.get_noise_multiplier`).
    delta : float in (0, 1), default 1e-5
        δ at which ε is reported (choose δ ≪ 1/n).
    accountant : {"rdp", "pld"}, default "rdp"
    l2 : float in [0, 1e6], default 0
        L2 penalty (l2/2)‖W‖² on the weights, added after privatisation.
    rng : None, int or numpy.random.Generator
        Initialisation, sampling and noise. A fixed seed is for reproducing one
        release: fits on different data with the same seed share their noise,
        which composition theorems do not allow for.
    progress : bool, default False
        Show a ``tqdm`` progress bar over epochs.

    Attributes
    ----------
    classes_ : array
    model_ : dpteach.learning.network.Network
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
                 delta=1e-5, accountant="rdp", l2=0.0, rng=None, progress=False):
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
        self.progress = progress

    # ---------------------------------------------------------------- checks
    def _check_params(self, n: int):
        sigma = check_in_range("noise_multiplier", self.noise_multiplier, 0.0,
                               MAX_NOISE_MULTIPLIER)
        C = (None if self.max_grad_norm is None
             else check_in_range("max_grad_norm", self.max_grad_norm, 0.0, MAX_GRAD_NORM,
                                 low_inclusive=False))
        b = check_int("batch_size", self.batch_size, minimum=1)
        if b > n:
            raise ParameterError(f"batch_size must be <= the number of training examples n={n}; "
                                 f"got batch_size={b}")
        epochs = check_int("epochs", self.epochs, minimum=1, maximum=10_000)
        if epochs * steps_per_epoch(n, b) > MAX_STEPS:
            raise ParameterError(f"epochs * ceil(n / batch_size) must be <= {MAX_STEPS:,} steps; "
                                 f"got epochs={epochs} with n={n}, batch_size={b}")
        lr = check_in_range("learning_rate", self.learning_rate, 0.0, _MAX_RATE,
                            low_inclusive=False)
        hidden = self.hidden
        if isinstance(hidden, (str, bytes)) or not hasattr(hidden, "__len__"):
            raise TypeError(f"hidden must be a tuple of layer widths; got hidden={hidden!r}")
        if len(hidden) > MAX_LAYERS - 2:
            raise ParameterError(f"hidden must have at most {MAX_LAYERS - 2} layers; got "
                                 f"hidden={describe(hidden)}")
        hidden = tuple(check_int("hidden", h, minimum=1, maximum=MAX_WIDTH) for h in hidden)
        check_choice("activation", self.activation, {"relu", "tanh"})
        target = None if self.target_epsilon is None else check_epsilon("target_epsilon", self.target_epsilon)
        delta = check_delta("delta", self.delta, allow_zero=False)
        acc = check_choice("accountant", self.accountant, {"rdp", "pld"})
        l2 = check_in_range("l2", self.l2, 0.0, _MAX_RATE)
        if C is None and (sigma > 0 and target is None):
            raise ParameterError("max_grad_norm=None (no clipping) is only allowed with "
                                 f"noise_multiplier=0; got noise_multiplier={self.noise_multiplier}")
        if C is None and target is not None:
            raise ParameterError("target_epsilon needs clipping: set max_grad_norm to a number > 0; "
                                 "got max_grad_norm=None")
        if not isinstance(self.progress, (bool, np.bool_, int)):
            raise TypeError(f"progress must be True or False; got progress={self.progress!r}")
        return sigma, C, b, epochs, lr, hidden, target, delta, acc, l2

    # ------------------------------------------------------------------ fit
    def fit(self, X, y):
        """Train with DP-SGD on (X, y); returns self.

        BLAS runs single-threaded during training (threadpoolctl): for these
        small matrices thread start-up costs more than it gains, and on a
        busy shared machine two BLAS threads made each step ~15× slower in
        our measurements.

        Parameters
        ----------
        X : array-like, shape (n, d)
            Finite features of magnitude ≤ 1e15 (:data:`~dpteach.learning.optim.MAX_INPUT`).
        y : array-like, shape (n,)
            At least two classes.
        """
        with threadpool_limits(limits=1, user_api="blas"):
            return self._fit(X, y)

    def _fit(self, X, y):
        X = _check_features("X", X)
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
            sigma = float(get_noise_multiplier(target_epsilon=target, target_delta=delta,
                                               sample_rate=q, steps=total, accountant=acc_name))
            if sigma > MAX_NOISE_MULTIPLIER:
                raise ParameterError(f"target_epsilon is too small for these settings: it needs "
                                     f"a noise multiplier {sigma:.3g} > {MAX_NOISE_MULTIPLIER:g}; "
                                     f"got target_epsilon={describe(self.target_epsilon)}")
        self.noise_multiplier_ = sigma
        self.sample_rate_ = q
        self.n_steps_ = total
        self.delta_ = delta
        if sigma > 0:
            self.accountant_ = RDPAccountant() if acc_name == "rdp" else PLDAccountant()
        else:
            self.accountant_ = None

        Xf = X.astype(np.float32)
        self.model_ = model = Network((X.shape[1], *hidden, self.classes_.size),
                                      activation=self.activation, l2=l2, dtype="float32",
                                      rng=gen)
        self.history_ = {"epoch": [], "loss": [], "accuracy": [], "epsilon": []}
        batch_sizes = np.empty(total, dtype=np.int64)
        step, pending = 0, 0
        bar = tqdm(range(1, epochs + 1), desc="DP-SGD" if sigma > 0 else "SGD",
                   disable=not self.progress, leave=False)
        for epoch in bar:
            with np.errstate(over="ignore", invalid="ignore"):   # divergence is checked below
                for _ in range(per_epoch):
                    idx = np.flatnonzero(gen.random(n) < q)            # 1. Poisson sampling
                    trace = model._trace(Xf[idx], y_idx[idx])        # checked once, above
                    dpg = _dp_gradient(trace, sigma, C, q * n, gen)   # 2-4. clip, noise
                    model.apply_update(model.add_l2_gradient(dpg.grads), lr)
                    if self.accountant_ is not None:                   # 5. accounting
                        if acc_name == "rdp":
                            self.accountant_.step(noise_multiplier=sigma, sample_rate=q, steps=1)
                        else:
                            pending += 1
                    batch_sizes[step] = dpg.batch_size
                    step += 1
                logits = model.logits(Xf).astype(np.float64)
            if not (np.all(np.isfinite(logits))
                    and all(np.all(np.isfinite(p)) for p in model.params)):
                raise ParameterError(
                    f"training diverged in epoch {epoch}: the weights or outputs overflowed. "
                    f"Lower learning_rate or l2, or scale the features; got "
                    f"learning_rate={describe(self.learning_rate)}, l2={describe(self.l2)}")
            if pending:
                # PLD composition costs ~0.4 s per call (dp_accounting builds the
                # subsampled-Gaussian PLD each time), so the PLD accountant receives
                # the epoch's identical steps as one call: the same composition.
                self.accountant_.step(noise_multiplier=sigma, sample_rate=q, steps=pending)
                pending = 0
            eps = self.accountant_.get_epsilon(delta) if self.accountant_ is not None else math.inf
            logp = np.log(np.maximum(softmax(logits), 1e-300))
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
        check_is_fitted(self, "model_")
        X = _check_features("X", X)
        if X.shape[1] != self.model_.layer_sizes[0]:
            raise ParameterError(f"X must have {self.model_.layer_sizes[0]} columns; "
                                 f"got shape {X.shape}")
        return X.astype(np.float32)

    def logits(self, X):
        """Logits (before the softmax), shape (n, n_classes), float64."""
        X = self._check_fitted_X(X)
        with np.errstate(over="ignore", invalid="ignore"):
            return self.model_.logits(X).astype(np.float64)

    def predict_proba(self, X):
        """Class probabilities (softmax of the logits, in float64), shape (n, n_classes)."""
        return softmax(self.logits(X))

    def predict(self, X):
        """Most probable class label."""
        scores = self.logits(X)                 # checks fitted first
        return self.classes_[np.argmax(scores, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags

# Engineering note: why Box–Muller and not Generator.standard_normal. NumPy's ziggurat
# costs ~0.8 ms for the 101,770 draws of one step of benchmarks/bench_dpsgd.py, more than
# half a non-private step; `_normal` (uniforms, a float64 log, float32 sines) ~0.25 ms,
# which keeps the DP step within 1.5× the non-private one (benchmarks/README.md). The
# draws differ from the ziggurat's for the same seed, not in distribution.
