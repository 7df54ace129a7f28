"""DP-SGD: differentially private stochastic gradient descent, step by step.

One iteration of DP-SGD (Abadi et al. [ACG16]_, Algorithm 1), each ingredient a function
students can call and test on its own:

1. :func:`poisson_sample` — every example joins the batch independently with probability
   q = batch_size / n, the sampling the subsampled-Gaussian analysis assumes [MTZ19]_ [ZDW22]_;
2. per-example gradients g_i, and their norms, from the per-layer inputs and errors of one
   backward pass (:mod:`dpteach.learning.network`, [G15]_);
3. clipping ḡ_i = g_i / max(1, ‖g_i‖/C)
   (:meth:`~dpteach.learning.network.Network.clipped_gradient_sum`), so each example moves
   the sum Σ_i ḡ_i by at most C;
4. :func:`privatize_gradient_sum` — add Gaussian noise N(0, σ²C² I) to the clipped sum and
   divide by the *expected* batch size qn (a public constant: the realised size would leak);
5. an accountant (:mod:`dpteach.accounting`) composes the steps, each the sampled Gaussian
   mechanism with noise multiplier σ and sampling rate q.

:class:`DPSGDClassifier` wraps these into a scikit-learn classifier. With
``noise_multiplier=0, max_grad_norm=None`` it runs the very same code without clipping and
noise: the non-private SGD baseline.

Privacy unit: one example (add/remove-one neighbouring data sets, as the sampled Gaussian
analysis of [MTZ19]_ assumes). Only the trained parameters are covered by ε; the
training-set ``history_`` is a diagnostic and is not private.

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

from .._validation import (DELTA_POSITIVE, EPSILON, FLAG, PROBABILITY, RNG, anything, array, choice,
                           documented, instance_of, integer, real, refuse, validate,
                           validate_params)
from ..accounting.calibrate import get_noise_multiplier
from ..accounting.pld import PLDAccountant
from ..accounting.rdp import RDPAccountant
from .network import FEATURES, MAX_LAYERS, MAX_WIDTH, Network
from .optim import CLASS_INDICES, GRADS, MAX_INPUT, softmax

__all__ = ["MAX_EXAMPLES", "MAX_NOISE_MULTIPLIER", "MAX_GRAD_NORM", "MAX_STEPS", "poisson_sample",
           "steps_per_epoch", "privatize_gradient_sum", "DPGradient", "dp_sgd_gradient",
           "DPSGDClassifier"]

#: Largest number of examples ``n`` (one random number per example and step: 80 MB).
MAX_EXAMPLES = 10_000_000
#: Largest noise multiplier σ (σ·C must stay far inside the float32 range).
MAX_NOISE_MULTIPLIER = 1e6
#: Largest clipping norm C.
MAX_GRAD_NORM = 1e15
#: Largest number of training steps ``epochs · ⌈n / batch_size⌉`` of the classifier.
MAX_STEPS = 1_000_000

#: n, the number of examples (also a batch size, which is at most n)
N_EXAMPLES = integer(1, MAX_EXAMPLES, example=100)
#: σ, the noise standard deviation in units of C (0: no noise, not private)
NOISE_MULTIPLIER = real(0.0, MAX_NOISE_MULTIPLIER, example=1.0)
#: C, the clipping norm; None: no clipping (only without noise)
CLIP_NORM = real(1e-6, MAX_GRAD_NORM, example=1.0).or_none()
#: qn, the public constant a noisy sum is divided by
EXPECTED_BATCH_SIZE = real(1e-6, 1e12, example=10.0)
#: learning rate and L2 penalty of the classifier
RATE = real(0.0, 1e6, low_open=True, example=0.5)
#: training features (n, d), finite, magnitude ≤ MAX_INPUT (the network computes in float32)
TRAINING_FEATURES = array(ndim=2, low=-MAX_INPUT, high=MAX_INPUT)


@validate(n=N_EXAMPLES, sample_rate=PROBABILITY, rng=RNG)
def poisson_sample(n: int, sample_rate: float, rng=None) -> np.ndarray:
    """Poisson subsampling: indices of the examples that join this step's batch.

    Each of the n examples is included independently with probability q = ``sample_rate``
    ([ACG16]_ Sec. 3.1, the "lot"; [MTZ19]_): the batch size is Binomial(n, q), mean qn, and
    may be 0. Returns the sorted indices.
    """
    return np.flatnonzero(rng.random(n) < sample_rate)


@validate(n=N_EXAMPLES, batch_size=N_EXAMPLES)
def steps_per_epoch(n: int, batch_size: int) -> int:
    """⌈n / batch_size⌉: the number of Poisson-sampled steps that make one "epoch".

    Each step touches qn = batch_size ≤ n examples on average, so one epoch sees about n
    examples (as Opacus's Poisson data loader does).
    """
    if batch_size > n:
        raise refuse("batch_size", batch_size, f"<= n={n}")
    return -(-n // batch_size)


@validate(grad_sum=GRADS, noise_multiplier=NOISE_MULTIPLIER, max_grad_norm=CLIP_NORM,
          expected_batch_size=EXPECTED_BATCH_SIZE, rng=RNG)
def privatize_gradient_sum(grad_sum, *, noise_multiplier: float, max_grad_norm: float | None,
                           expected_batch_size: float, rng=None) -> list:
    """The Gaussian mechanism on a clipped gradient sum, normalised by the expected batch size.

    Returns (Σ_i ḡ_i + N(0, σ²C² I)) / (qn) for each parameter block ([ACG16]_ Algorithm 1,
    "add noise", normalised as in the Poisson-sampled version). Every clipped ḡ_i has norm
    ≤ C, so adding or removing one example moves the sum by at most C in L2 norm: the noise
    is the Gaussian mechanism with noise multiplier σ.

    The standard normals come in pairs from the Box–Muller transform [BM58]_, whose
    uniform U is at least 2⁻⁵³: the radius √(−2 ln U) stops at √(106 ln 2) ≈ 8.57, and
    the tail left out, P(R > 8.57) = e^(−53 ln 2) = 2⁻⁵³, is the total variation distance
    between a pair and two exact normals. Over T steps of d parameters the noise is within
    total variation η = T·⌈d/2⌉·2⁻⁵³ of exact Gaussian noise, so a run the accountant
    calls (ε, δ)-DP is (ε, δ + (1 + e^ε)·η)-DP with this noise (e.g. η ≈ 5.6e-8 for
    10⁴ steps and 10⁵ parameters: at ε = 1, δ grows by ≈ 2.1e-7). The rounding of
    floating-point noise is another matter (Mironov 2012), not addressed here.

    Parameters
    ----------
    grad_sum : list of arrays
        Σ_i ḡ_i per parameter block (not modified; float32 blocks stay float32).
    noise_multiplier : float
        σ; 0 releases the sum without noise (not private).
    max_grad_norm : float or None
        C; None only when σ = 0 (no clipping, no noise).
    expected_batch_size : float
        qn, a public constant.
    """
    return _privatize(grad_sum, noise_multiplier, max_grad_norm, expected_batch_size, rng,
                      copy=True)


@dataclass
class DPGradient:
    """One privatised gradient and what went into it (for teaching and plots).

    ``grads`` is (Σ_i ḡ_i + noise) / (qn), aligned with ``Network.params``; ``norms`` the
    per-example gradient norms ‖g_i‖ before clipping (None without clipping);
    ``clip_factors`` the c_i = min(1, C/‖g_i‖) (all ones without clipping); ``batch_size``
    the realised batch size b.
    """

    grads: list
    norms: np.ndarray
    clip_factors: np.ndarray
    batch_size: int


@validate(model=instance_of(Network, "a dpteach.learning.network.Network (a classifier)"),
          X_batch=FEATURES, y_batch=CLASS_INDICES, noise_multiplier=NOISE_MULTIPLIER,
          max_grad_norm=CLIP_NORM, expected_batch_size=EXPECTED_BATCH_SIZE, rng=RNG)
def dp_sgd_gradient(model: Network, X_batch, y_batch, *, noise_multiplier: float,
                    max_grad_norm: float | None, expected_batch_size: float,
                    rng=None) -> DPGradient:
    """Steps 2–4 of DP-SGD ([ACG16]_ Algorithm 1) on one sampled batch of a classifier.

    One backward pass of the per-example cross-entropies gives the per-example norms and the
    clipped sum without materialising per-example gradients ([G15]_, [LK21]_); Gaussian noise
    is then added and the sum divided by qn (:func:`privatize_gradient_sum`, whose arguments
    these are). An empty batch gives pure noise. The model's L2 penalty is *not* included:
    it does not depend on the data, so it is added after privatisation.
    """
    trace = model.trace(X_batch, y_batch)          # 2. the per-layer pairs of one backward pass
    return _dp_gradient(trace, noise_multiplier, max_grad_norm, expected_batch_size, rng)


@documented
class DPSGDClassifier(ClassifierMixin, BaseEstimator):
    """A small neural-network classifier trained with DP-SGD (Abadi et al. [ACG16]_, Alg. 1).

    Each of ``epochs × ⌈n / batch_size⌉`` steps: Poisson-sample a batch with
    rate q = batch_size / n, clip per-example gradients to ``max_grad_norm``,
    add N(0, σ²C²) noise to their sum, divide by qn, take a gradient step
    (plus the data-independent L2 term), and step the privacy accountant.

    Parameters
    ----------
    noise_multiplier : float, default 1.0
        σ, the noise std in units of C; 0 trains without noise (ε = ∞). Ignored when
        ``target_epsilon`` is set.
    max_grad_norm : float or None, default 1.0
        Clipping norm C. None = no clipping (only with ``noise_multiplier=0``): the
        non-private SGD baseline on the same code path.
    batch_size : int, default 256
        Expected batch size qn (at most n).
    epochs : int, default 5
        With at most :data:`MAX_STEPS` steps ``epochs · ⌈n / batch_size⌉`` in all.
    learning_rate : float, default 0.5
        A rate so large that the weights overflow stops the fit with a ``ParameterError``.
    hidden : tuple of int, default (64,)
        Hidden layer widths (empty: multinomial logistic regression).
    activation : {"relu", "tanh"}, default "relu"
    target_epsilon : float, optional
        If set, σ is the smallest noise multiplier that makes the planned steps
        (target_epsilon, delta)-DP under ``accountant``
        (:func:`dpteach.accounting.get_noise_multiplier`).
    delta : float, default 1e-5
        δ at which ε is reported (choose δ ≪ 1/n).
    accountant : {"rdp", "pld"}, default "rdp"
        The RDP accountant of the sampled Gaussian mechanism [MTZ19]_ or the PLD accountant
        (Google ``dp_accounting``).
    l2 : float, default 0
        L2 penalty (l2/2)‖W‖² on the weights, added after privatisation.
    rng : None, int or numpy.random.Generator
        Initialisation, sampling and noise. A fixed seed is for reproducing one release:
        fits on different data with the same seed share their noise, which composition
        theorems do not allow for.
    progress : bool, default False
        Show a ``tqdm`` progress bar over epochs.

    Attributes
    ----------
    model_ : dpteach.learning.network.Network
    noise_multiplier_ : float
        σ actually used.
    sample_rate_, n_steps_ : float, int
        q = batch_size / n and the number of steps.
    epsilon_, delta_ : float
        ε spent at δ = ``delta_`` according to the accountant (inf when σ = 0).
    accountant_ : the accountant object (None when σ = 0)
    batch_sizes_ : array of int
        Realised (Poisson) batch size of every step.
    history_ : dict of lists
        After each epoch: ``"epoch"``, ``"loss"`` (mean training cross-entropy),
        ``"accuracy"`` (training), ``"epsilon"`` (spent so far). Computed on the training
        data: a diagnostic, NOT private.

    Notes
    -----
    Assumptions of the guarantee: examples are the privacy unit (add/remove one); sampling
    is Poisson exactly as implemented; the hyper-parameters (σ, C, epochs, …) are chosen
    without looking at the private data; the set of class labels is public (it fixes the
    output layer and ``classes_``; a label held by one person would otherwise reveal them);
    only the final parameters are released; the training-set size n is public (q and the
    number of steps depend on it, as in Opacus; under strict add/remove adjacency n itself
    changes by one, and a fully rigorous variant fixes q and the number of steps in
    advance). With ``accountant="pld"`` the identical steps of one epoch are composed in one
    call (the same composition).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = DPSGDClassifier(target_epsilon=2.0, batch_size=128, epochs=3, rng=0).fit(X / 16, y)
    >>> clf.epsilon_ <= 2.0
    True
    """

    _parameter_constraints = {
        "noise_multiplier": NOISE_MULTIPLIER,
        "max_grad_norm": CLIP_NORM,
        "batch_size": N_EXAMPLES,
        "epochs": integer(1, 10_000, example=5),
        "learning_rate": RATE,
        "hidden": array(ndim=1, min_size=0, max_size=MAX_LAYERS - 2, low=1, high=MAX_WIDTH,
                        integers=True, example=(4,)),
        "activation": choice("relu", "tanh"),
        "target_epsilon": EPSILON.or_none(),
        "delta": DELTA_POSITIVE,
        "accountant": choice("rdp", "pld"),
        "l2": real(0.0, 1e6, example=0.0),
        "rng": RNG,
        "progress": FLAG,
    }

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

    @validate(X=TRAINING_FEATURES, y=anything("class labels, one per row of X"))
    def fit(self, X, y) -> DPSGDClassifier:
        """Train with DP-SGD on features X (n, d) and labels y (n,), two classes or more."""
        with threadpool_limits(limits=1, user_api="blas"):       # faster: docs/library/learning.md
            return self._fit(X, y)

    def _fit(self, X, y):
        p = validate_params(self, store=False)
        sigma, C, b, target, delta = (p["noise_multiplier"], p["max_grad_norm"],
                                      p["batch_size"], p["target_epsilon"], p["delta"])
        lr, l2, acc_name, gen = p["learning_rate"], p["l2"], p["accountant"], p["rng"]
        n = X.shape[0]
        y = np.asarray(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if y.shape != (n,) or self.classes_.size < 2:
            raise refuse("y", y, f"{n} labels (one per row of X) of at least 2 classes")
        if b > n:
            raise refuse("batch_size", b, f"<= n={n} (the training examples)")
        q = b / n
        per_epoch = -(-n // b)                                          # steps_per_epoch
        total = p["epochs"] * per_epoch
        if total > MAX_STEPS:
            raise refuse("epochs", p["epochs"], f"<= {MAX_STEPS // per_epoch:,} ({MAX_STEPS:,} steps)")
        if C is None and (sigma > 0 or target is not None):
            raise refuse("max_grad_norm", C, "a clipping norm with noise or a target_epsilon")
        if target is not None:
            sigma = float(get_noise_multiplier(target_epsilon=target, target_delta=delta,
                                               sample_rate=q, steps=total, accountant=acc_name))
            if sigma > MAX_NOISE_MULTIPLIER:
                raise refuse("target_epsilon", target, f"larger: it needs noise_multiplier {sigma:.3g}")
        self.noise_multiplier_ = sigma
        self.sample_rate_ = q
        self.n_steps_ = total
        self.delta_ = delta
        accountants = {"rdp": RDPAccountant, "pld": PLDAccountant}
        self.accountant_ = accountants[acc_name]() if sigma > 0 else None

        Xf = X.astype(np.float32)
        self.model_ = model = Network((X.shape[1], *p["hidden"].astype(int).tolist(),
                                       self.classes_.size),
                                      activation=p["activation"], l2=l2, dtype="float32",
                                      rng=gen)
        self.history_ = {"epoch": [], "loss": [], "accuracy": [], "epsilon": []}
        batch_sizes = np.empty(total, dtype=np.int64)
        step, pending = 0, 0
        bar = tqdm(range(1, p["epochs"] + 1), desc="DP-SGD" if sigma > 0 else "SGD",
                   disable=not p["progress"], leave=False)
        for epoch in bar:
            with np.errstate(over="ignore", invalid="ignore"):   # divergence is checked below
                for _ in range(per_epoch):
                    idx = np.flatnonzero(gen.random(n) < q)            # 1. Poisson sampling
                    trace = model._trace(Xf[idx], y_idx[idx])        # checked once, above
                    dpg = _dp_gradient(trace, sigma, C, q * n, gen)   # 2-4. clip, noise
                    model._apply(model._add_l2(dpg.grads), lr)
                    if self.accountant_ is not None:                   # 5. accounting
                        if acc_name == "rdp":
                            self.accountant_.step(noise_multiplier=sigma, sample_rate=q, steps=1)
                        else:
                            pending += 1
                    batch_sizes[step] = dpg.batch_size
                    step += 1
                logits = model._forward(Xf)[0].astype(np.float64)
            if not all(np.isfinite(a).all() for a in [logits, *model.params]):
                raise refuse("learning_rate", lr, f"smaller: the weights overflowed in epoch {epoch}")
            if pending:                     # the epoch's identical PLD steps in one call
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
    @validate(X=TRAINING_FEATURES)
    def logits(self, X) -> np.ndarray:
        """Logits (before the softmax), shape (n, n_classes), float64."""
        check_is_fitted(self, "model_")
        return self.model_.logits(X.astype(np.float32)).astype(np.float64)

    @validate(X=TRAINING_FEATURES)
    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities (softmax of the logits, in float64), shape (n, n_classes)."""
        return softmax.__wrapped__(self.logits.__wrapped__(self, X))

    @validate(X=TRAINING_FEATURES)
    def predict(self, X) -> np.ndarray:
        """Most probable class label."""
        scores = self.logits.__wrapped__(self, X)                 # checks fitted first
        return self.classes_[np.argmax(scores, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags


# ------------------------------------------------------------------- private helpers
def _dp_gradient(trace, sigma: float, C: float | None, m: float, gen) -> DPGradient:
    """Steps 2-4 on the backward pass ``trace`` of one batch (arguments already checked)."""
    grads, norms, c = Network.clipped_gradient_sum(trace, C)   # 3. ‖g_i‖, c_i, Σ_i c_i g_i
    grads = _privatize(grads, sigma, C, m, gen, copy=False)    # 4. + N(0, σ²C²), / qn
    return DPGradient(grads=grads, norms=norms, clip_factors=c, batch_size=int(c.shape[0]))


def _privatize(grads: list, sigma: float, C: float | None, m: float, gen, copy: bool) -> list:
    """(Σ_i ḡ_i + N(0, σ²C² I)) / m for each block of ``grads`` (in place unless ``copy``)."""
    if C is None and sigma > 0:
        raise refuse("max_grad_norm", C, "a clipping norm when noise_multiplier > 0")
    out = [np.array(g, copy=True) if copy else g for g in grads]
    if sigma > 0 and C is not None and out:
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

    For U uniform on (0, 1] and V uniform on [0, 1), R = √(−2 ln U) and Θ = 2πV, the pair
    (R cos Θ, R sin Θ) is two independent standard normals (the first half of the result
    holds the cosines, the second half the sines). U is a float64 uniform, a multiple of
    2⁻⁵³ (the tail this leaves out: :func:`privatize_gradient_sum`); V, Θ and the sines are
    computed in ``dtype``.
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


# Implementation notes (timings, why the code is shaped so): docs/library/learning.md.
