"""Losses, Adam and the gradient check: what a network is trained through.

Every loss returns ``(value, gradient with respect to its first argument)``: a weighted sum
of losses has the weighted sum of their gradients, and a player who maximises a loss (the
LAFTR encoder against its adversary) follows the negated gradient. The gradient is what
:meth:`~dpteach.learning.network.Network.backward` takes as ``grad_out``::

    opt = Adam(encoder.params + classifier.params)
    Z, enc_cache = encoder.forward(X)                     # X → Z
    logits, cls_cache = classifier.forward(Z)             # Z → logit
    value, g = binary_cross_entropy_with_logits(logits, y)
    cls_grads, g_Z = classifier.backward(cls_cache, g)
    enc_grads, _ = encoder.backward(enc_cache, g_Z)       # the chain rule, by hand
    opt.step(enc_grads + cls_grads)

:func:`gradient_check` compares any such gradient with central differences.

References
----------
.. [GBC16] I. Goodfellow, Y. Bengio and A. Courville. *Deep Learning*, MIT
   Press 2016, Sec. 6.2.2 (softmax, cross-entropy), 6.5 (back-propagation) and 11.5
   (gradient checking).
.. [KB15] D. P. Kingma and J. Ba. Adam: a method for stochastic optimization.
   ICLR 2015, Algorithm 1.
.. [MCPZ18] D. Madras, E. Creager, T. Pitassi and R. Zemel. Learning adversarially fair
   and transferable representations. ICML 2018.
"""

from __future__ import annotations

import numpy as np

from .._validation import RNG, Domain, array, function, integer, real, refuse, validate

__all__ = ["softmax", "binary_cross_entropy_with_logits", "squared_error", "group_normalized_l1", "Adam", "gradient_check",
           "MAX_INPUT", "MAX_GRADIENT", "MAX_PARAMS", "MAX_CHECKS", "MAX_LEARNING_RATE",
           "OUTPUTS", "CLASS_INDICES", "GRADS", "LEARNING_RATE"]

#: Largest magnitude of an entry of the data, the logits and the output gradients a loss or
#: a backward pass takes: squared norms (‖a_i‖² ~ d·x² in the per-example gradient norms)
#: stay inside the float32 range.
MAX_INPUT = 1e15
#: Largest magnitude of an entry of a parameter gradient (a privatised DP-SGD gradient is a
#: clipped sum of up to 10⁷ examples plus noise, divided by an expected batch size ≥ 10⁻⁶).
MAX_GRADIENT = 1e30
#: Largest number of parameters of a network, and of the arrays one :class:`Adam` updates
#: (80 MB of float64).
MAX_PARAMS = 10_000_000
#: Largest number of entries per parameter array :func:`gradient_check` perturbs.
MAX_CHECKS = 100_000
#: Largest learning rate: Adam's steps are about the learning rate [KB15]_ (Sec. 2.1), so
#: more would throw weights of order 1 out of any useful range.
MAX_LEARNING_RATE = 1e3

#: scores, one row per example (float32 stays float32)
LOGITS = array(ndim=2, dtype=np.floating, text="a 2-D array (n, k) of finite numbers")
#: predictions, targets or logits of a loss: (n,) or (n, k)
OUTPUTS = array(ndim=(1, 2), low=-MAX_INPUT, high=MAX_INPUT, dtype=np.floating)
#: labels or probabilities in [0, 1] (True/False are 1/0)
TARGETS = array(ndim=(1, 2), low=0, high=1, booleans=True)
#: class indices 0, 1, …, k − 1
CLASS_INDICES = array(ndim=1, low=0, high=100_000, integers=True, min_size=0)
#: group labels 0, 1, … (True/False are 1/0)
GROUPS = array(ndim=1, low=0, high=1_000_000, integers=True, booleans=True)
LEARNING_RATE = real(0.0, MAX_LEARNING_RATE, low_open=True, example=0.1)
BETA = real(0.0, 1.0, high_open=True, example=0.9)
_GRAD = array(low=-MAX_GRADIENT, high=MAX_GRADIENT, min_size=0, dtype=np.floating)


#: the parameters an optimiser updates in place
PARAMS = Domain(f"a non-empty list of writable float NumPy arrays (changed in place), at most "
                f"{MAX_PARAMS:,} numbers in all", lambda name, value: _param_list(name, value),
                bad=[[], None, np.ones(2), [np.array([1, 2])], [[1.0, 2.0]], "params"])
#: gradients, one real array per parameter (float32 stays float32)
GRADS = Domain(f"a list of arrays of finite numbers in [-{MAX_GRADIENT:g}, {MAX_GRADIENT:g}], "
               "one per parameter", lambda name, value: _grad_list(name, value),
               bad=[None, np.ones(2), [np.array([np.nan])], [np.array([1j])], [["a"]], "grads"])


# ------------------------------------------------------------------ softmax
@validate(logits=LOGITS)
def softmax(logits) -> np.ndarray:
    """Row-wise softmax exp(z_j) / Σ_k exp(z_k) of logits (n, k), computed stably by
    subtracting each row's maximum (a float32 array keeps its dtype)."""
    with np.errstate(over="ignore"):               # max − min beyond the float range: exp → 0
        z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


# ------------------------------------------------------------------------ losses
@validate(logits=OUTPUTS, y=TARGETS)
def binary_cross_entropy_with_logits(logits, y):
    """Mean binary cross-entropy of labels y ∈ [0, 1] under P(y = 1) = σ(logit).

    ℓ_i = −y_i log σ(z_i) − (1 − y_i) log(1 − σ(z_i)) = max(z_i, 0) − z_i y_i +
    log(1 + e^{−|z_i|}), computed in the stable second form; ∂ℓ_i/∂z_i = σ(z_i) − y_i.

    ``logits`` and ``y`` (0/1 labels or soft labels) have shape (n,) or (n, 1). Returns
    ``(value, grad)``: (1/n) Σ_i ℓ_i and (σ(z) − y)/n, the shape and float dtype of
    ``logits``.
    """
    n = logits.shape[0]
    if logits.shape[1:] not in ((), (1,)) or y.shape not in ((n,), (n, 1)):
        raise refuse("logits, y shapes", (logits.shape, y.shape), "(n,) or (n, 1) each")
    z, t = logits.reshape(-1), y.reshape(-1)
    loss = np.maximum(z, 0) - z * t + np.log1p(np.exp(-np.abs(z)))
    sigma = 0.5 * (1.0 + np.tanh(0.5 * z))             # σ(z), no overflow for any z
    grad = ((sigma - t) / n).astype(logits.dtype, copy=False).reshape(logits.shape)
    return float(np.sum(loss) / n), grad


@validate(pred=OUTPUTS, target=OUTPUTS)
def squared_error(pred, target):
    """Mean over ROWS of the squared Euclidean norm of the row error, ‖pred_i − target_i‖².

    Not divided by the number of columns: a reconstruction of d features costs the sum of
    its d squared errors.

    ``pred`` and ``target`` have the same shape, (n,) or (n, d). Returns ``(value, grad)``:
    (1/n) Σ_i ‖pred_i − target_i‖² and 2 (pred − target)/n.
    """
    if target.shape != pred.shape:
        raise refuse("target.shape", target.shape, f"pred.shape {pred.shape}")
    n, diff = pred.shape[0], pred - target
    return float(np.sum(diff * diff) / n), (diff * (2.0 / n)).astype(pred.dtype, copy=False)


@validate(prob=OUTPUTS, target=OUTPUTS, groups=GROUPS,
          n_groups=integer(1, 1_000_000).or_none())
def group_normalized_l1(prob, target, groups, *, n_groups: int | None = None):
    """Σ_g mean_{i in g} |prob_i − target_i|: the L1 error averaged WITHIN each group.

    The loss of the LAFTR adversary [MCPZ18]_, which predicts the sensitive attribute a
    from the representation; every group weighs the same however small it is. With h the
    adversary's probability the paper's objectives are constants minus this sum:

        L_Adv^DP = 1 − Σ_{a∈{0,1}} mean_{D_a} |h − a|             (groups = a),
        L_Adv^EO = 2 − Σ_{(a,y)∈{0,1}²} mean_{D_a^y} |h − a|      (groups = 2a + y),

    maximised by the adversary (which minimises this sum) and minimised by the encoder.

    ``prob`` (the predictions h_i) and ``target`` (a_i in LAFTR) have shape (n,) or (n, 1);
    the sum runs over the group labels that occur in ``groups``, or, with ``n_groups``, over
    0, …, n_groups − 1, each of which must occur (an empty group has no mean). Returns
    ``(value, grad)``, grad = sign(prob_i − target_i) / n_{g(i)} (the subgradient 0 where
    prob_i = target_i).
    """
    n = prob.shape[0]
    shapes = (prob.shape, target.shape, groups.shape)
    if shapes[0][1:] not in ((), (1,)) or shapes[1] not in ((n,), (n, 1)) or shapes[2] != (n,):
        raise refuse("prob, target, groups shapes", shapes, "(n,) each (or (n, 1))")
    diff = prob.reshape(-1) - target.reshape(-1)
    if n_groups is None:
        _, index, counts = np.unique(groups, return_inverse=True, return_counts=True)
    else:
        index = groups.astype(np.intp)
        counts = np.bincount(index, minlength=n_groups)
        if counts.size > n_groups or not counts.all():       # an empty group has no mean
            raise refuse("groups", groups, f"each of 0..{n_groups - 1} at least once")
    sums = np.bincount(index, weights=np.abs(diff), minlength=counts.size)
    grad = (np.sign(diff) / counts[index]).astype(prob.dtype, copy=False).reshape(prob.shape)
    return float(np.sum(sums / counts)), grad


# ------------------------------------------------------------------------- Adam
@validate(params=PARAMS, learning_rate=LEARNING_RATE, beta1=BETA, beta2=BETA,
          eps=real(1e-15, 1.0))
class Adam:
    """Adam [KB15]_ (Algorithm 1): per-coordinate steps from bias-corrected moment estimates.

    For each parameter θ with gradient g, at step t = 1, 2, …::

        m ← β₁ m + (1 − β₁) g,        v ← β₂ v + (1 − β₂) g²,
        m̂ = m / (1 − β₁ᵗ),            v̂ = v / (1 − β₂ᵗ),
        θ ← θ − α m̂ / (√v̂ + ε).

    ``params`` are the arrays to update IN PLACE (``net.params``, or several networks'
    lists joined with +); ``learning_rate`` is α, about the largest change of a coordinate
    per step [KB15]_ (Sec. 2.1). The attributes ``t``, ``m`` and ``v`` are the steps taken
    and the moment estimates.
    """

    def __init__(self, params, learning_rate: float = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8):
        self.params = params
        self.learning_rate, self.beta1, self.beta2, self.eps = learning_rate, beta1, beta2, eps
        self.reset()

    def reset(self) -> None:
        """Forget the moments: t = 0, m = v = 0."""
        self.t = 0
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]

    @validate(grads=GRADS)
    def step(self, grads) -> None:
        """Update every parameter with its gradient ``grads`` (aligned with ``params``)."""
        self._step(_aligned(grads, self.params))

    def _step(self, grads) -> None:
        """:meth:`step` without the checks (the training loops of the library call it)."""
        self.t += 1
        b1, b2 = self.beta1, self.beta2
        c1, c2 = 1.0 - b1 ** self.t, 1.0 - b2 ** self.t        # bias corrections
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= b1
            m += (1.0 - b1) * g
            v *= b2
            v += (1.0 - b2) * (g * g)
            p -= (self.learning_rate / c1) * m / (np.sqrt(v / c2) + self.eps)


# ----------------------------------------------------------------- gradient check
@validate(f=function("f() returns the loss (a finite real number) at the current params"),
          params=PARAMS, grads=GRADS, eps=real(1e-12, 1.0, example=1e-6),
          n_checks=integer(1, MAX_CHECKS, work=True, example=20), rng=RNG)
def gradient_check(f, params, grads, *, eps: float = 1e-6, n_checks: int = 20,
                   rng=None) -> float:
    """Largest relative error between ``grads`` and central differences of ``f``.

    For up to ``n_checks`` entries θ_j of each array (at random; all of a small array) the
    numerical derivative is (f(θ + h e_j) − f(θ − h e_j)) / (2h) [GBC16]_ (Sec. 11.5), with
    error O(h²) + O(ε_mach |f| / h), about 1e-10 in float64 with h = 1e-6. Per array the
    relative error is ‖a − n‖₂ / (‖a‖₂ + ‖n‖₂) over the checked entries (0 when both
    vanish); the result is the largest over the arrays. ``params`` are restored afterwards,
    also when ``f`` raises.

    ``f()`` returns the loss at the CURRENT ``params``, which are perturbed in place one
    entry at a time (use float64: float32 rounding swamps h); ``grads`` is the analytic
    gradient aligned with ``params``; ``eps`` is the step h; ``rng`` picks the entries.
    """
    worst = 0.0
    for p, g in zip(params, _aligned(grads, params)):
        idx = np.arange(p.size) if p.size <= n_checks else rng.choice(p.size, n_checks,
                                                                       replace=False)
        numeric = np.empty(idx.size)
        for j, i in enumerate(idx):
            pos = np.unravel_index(i, p.shape)
            old = p[pos]
            try:
                p[pos] = old + eps
                up, theta_up = _loss(f), float(p[pos])
                p[pos] = old - eps
                down, theta_down = _loss(f), float(p[pos])
            finally:
                p[pos] = old
            if theta_up == theta_down:
                raise refuse("eps", eps, f"large enough to move params[{pos}]={old:.3g}")
            # divide by the step actually taken (θ ± h is rounded to the array's dtype)
            numeric[j] = (up - down) / (theta_up - theta_down)
        a = g.reshape(-1)[idx].astype(np.float64)
        denom = np.linalg.norm(a) + np.linalg.norm(numeric)
        if denom > 0:
            worst = max(worst, float(np.linalg.norm(a - numeric) / denom))
    return worst


# ---------------------------------------------------------------- private helpers
def _writable_floats(p) -> bool:
    return isinstance(p, np.ndarray) and p.dtype.kind == "f" and p.flags.writeable


def _shapes(arrays) -> list:
    return [a.shape for a in arrays]


def _aligned(grads: list, params: list) -> list:
    """``grads``, once their shapes are those of ``params`` (one gradient per parameter)."""
    if _shapes(grads) != _shapes(params):
        raise refuse("grads' shapes", _shapes(grads), f"those of params, {_shapes(params)}")
    return grads


_LOSS = real(-1e300, 1e300)


def _loss(f) -> float:
    """f() as a float, refused by name unless it is a real number of magnitude ≤ 1e300
    (then the difference of two losses is finite too)."""
    return _LOSS("f() (the loss)", f())


def _param_list(name, value):
    params = list(value) if isinstance(value, (list, tuple)) else []
    if not (all(map(_writable_floats, params)) and 0 < sum(p.size for p in params) <= MAX_PARAMS):
        raise PARAMS.refuse(name, value)
    return params


def _grad_list(name, value):
    if not isinstance(value, (list, tuple)):
        raise GRADS.refuse(name, value)
    return [_GRAD(f"{name}[{k}]", g) for k, g in enumerate(value)]
