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

from .._validation import (
    ParameterError,
    check_array,
    check_bool,
    check_finite,
    check_in_range,
    check_int,
    check_positive,
    check_rng,
    describe,
)

__all__ = ["softmax", "log_softmax", "softmax_cross_entropy", "binary_cross_entropy_with_logits",
           "squared_error", "group_normalized_l1", "Adam", "gradient_check",
           "MAX_INPUT", "MAX_PARAMS", "MAX_CHECKS", "MAX_LEARNING_RATE"]

#: Largest magnitude of an entry of the data, logits and gradients: keeps squared norms
#: (‖a_i‖² ~ d·x² in the per-example gradient norms) inside the float32 range.
MAX_INPUT = 1e15
#: Largest number of parameters of a network, and of the arrays one :class:`Adam` updates
#: (80 MB of float64).
MAX_PARAMS = 10_000_000
#: Largest number of entries per parameter array :func:`gradient_check` perturbs.
MAX_CHECKS = 100_000
#: Largest learning rate of :class:`Adam`: its steps are about the learning rate [KB15]_
#: (Sec. 2.1), so more would throw weights of order 1 out of any useful range.
MAX_LEARNING_RATE = 1e3


# ------------------------------------------------------------------ softmax
def softmax(logits) -> np.ndarray:
    """Row-wise softmax exp(z_j) / Σ_k exp(z_k), computed stably by subtracting each row's maximum.

    Parameters
    ----------
    logits : array of shape (n, k), k ≥ 1
        Finite real numbers; a float array keeps its dtype.
    """
    return _softmax(_check_logits(logits))


def log_softmax(logits) -> np.ndarray:
    """Row-wise log-softmax z − log Σ_j exp(z_j), computed stably (no overflow, no log 0).

    Parameters
    ----------
    logits : array of shape (n, k), k ≥ 1
        Finite real numbers; a float array keeps its dtype.
    """
    return _log_softmax(_check_logits(logits))


# ------------------------------------------------------------------------ losses
def binary_cross_entropy_with_logits(logits, y):
    """Mean binary cross-entropy of labels y ∈ [0, 1] under P(y = 1) = σ(logit).

    ℓ_i = −y_i log σ(z_i) − (1 − y_i) log(1 − σ(z_i)) = max(z_i, 0) − z_i y_i +
    log(1 + e^{−|z_i|}), computed in the stable second form; ∂ℓ_i/∂z_i = σ(z_i) − y_i.

    Parameters
    ----------
    logits : array (n,) or (n, 1), n ≥ 1
        Finite, magnitude ≤ :data:`MAX_INPUT`.
    y : array (n,) or (n, 1)
        Targets in [0, 1] (0/1 labels or soft labels).

    Returns
    -------
    value : float
        (1/n) Σ_i ℓ_i.
    grad : array, the shape and float dtype of ``logits``
        (σ(z) − y)/n.
    """
    z = _column("logits", logits)
    t = _column("y", y, z.shape[0], "logits").reshape(-1)
    if t.min() < 0 or t.max() > 1:
        raise ParameterError(f"y must hold labels in [0, 1]; got y with range "
                             f"[{t.min():g}, {t.max():g}]")
    zf, n = z.reshape(-1), z.shape[0]
    loss = np.maximum(zf, 0) - zf * t + np.log1p(np.exp(-np.abs(zf)))
    sigma = 0.5 * (1.0 + np.tanh(0.5 * zf))             # σ(z), no overflow for any z
    return float(np.sum(loss) / n), ((sigma - t) / n).astype(z.dtype, copy=False).reshape(z.shape)


def softmax_cross_entropy(logits, y):
    """Mean cross-entropy −log softmax(z_i)[y_i] of integer class labels.

    Parameters
    ----------
    logits : array (n, k), n ≥ 1, k ≥ 1
        Finite, magnitude ≤ :data:`MAX_INPUT`.
    y : array of int (n,)
        Class indices in [0, k − 1].

    Returns
    -------
    value : float
    grad : array (n, k), the float dtype of ``logits``
        (softmax(z) − onehot(y))/n.
    """
    z = _values("logits", logits, ndim=(2,))
    n, k = z.shape
    t = _labels("y", y, n, "logits")
    if t.dtype.kind == "b":
        raise TypeError(f"y must hold integer class indices, not booleans; got y={describe(y)}")
    if t.min() < 0 or t.max() >= k:
        raise ParameterError(f"y must hold class indices in [0, {k - 1}]; got y with range "
                             f"[{t.min()}, {t.max()}]")
    logp = _log_softmax(z)
    rows = np.arange(n)
    grad = np.exp(logp)                                  # softmax(z) − onehot(y), over n
    grad[rows, t] -= 1.0
    grad /= n
    return float(-np.sum(logp[rows, t]) / n), grad


def squared_error(pred, target):
    """Mean over ROWS of the squared Euclidean norm of the row error, ‖pred_i − target_i‖².

    Not divided by the number of columns: a reconstruction of d features costs the sum of
    its d squared errors.

    Parameters
    ----------
    pred, target : arrays of the same shape (n,) or (n, d), n ≥ 1
        Finite, magnitude ≤ :data:`MAX_INPUT`.

    Returns
    -------
    value : float
        (1/n) Σ_i ‖pred_i − target_i‖².
    grad : array, the shape of ``pred``
        2 (pred − target)/n.
    """
    p, t = _values("pred", pred), _values("target", target)
    if t.shape != p.shape:
        raise ParameterError(f"target must have the shape of pred {p.shape}; got target with "
                             f"shape {t.shape}")
    n, diff = p.shape[0], p - t
    return float(np.sum(diff * diff) / n), (diff * (2.0 / n)).astype(p.dtype, copy=False)


def group_normalized_l1(prob, target, groups, *, n_groups: int | None = None):
    """Σ_g mean_{i in g} |prob_i − target_i|: the L1 error averaged WITHIN each group.

    The loss of the LAFTR adversary [MCPZ18]_, which predicts the sensitive attribute a
    from the representation; every group weighs the same however small it is. With h the
    adversary's probability the paper's objectives are constants minus this sum:

        L_Adv^DP = 1 − Σ_{a∈{0,1}} mean_{D_a} |h − a|             (groups = a),
        L_Adv^EO = 2 − Σ_{(a,y)∈{0,1}²} mean_{D_a^y} |h − a|      (groups = 2a + y),

    maximised by the adversary (which minimises this sum) and minimised by the encoder.

    Parameters
    ----------
    prob : array (n,) or (n, 1), n ≥ 1
        The predictions h_i (finite, magnitude ≤ :data:`MAX_INPUT`).
    target : array (n,) or (n, 1)
        The targets (a_i in LAFTR).
    groups : array of int (n,)
        Group labels; the sum runs over the labels that occur.
    n_groups : int in [1, n], optional
        Then ``groups`` must take every value 0, …, n_groups − 1 (an empty group has no
        mean: ParameterError naming ``groups``).

    Returns
    -------
    value : float
    grad : array, the shape of ``prob``
        sign(prob_i − target_i) / n_{g(i)} (the subgradient 0 where prob_i = target_i).
    """
    p = _column("prob", prob)
    n = p.shape[0]
    diff = p.reshape(-1) - _column("target", target, n, "prob").reshape(-1)
    g = _labels("groups", groups, n, "prob")
    if n_groups is None:
        _, index, counts = np.unique(g, return_inverse=True, return_counts=True)
    else:
        n_groups = check_int("n_groups", n_groups, minimum=1, maximum=n)
        index = g.astype(np.intp, copy=False)
        if g.min() < 0 or g.max() >= n_groups or not np.bincount(index, minlength=n_groups).all():
            raise ParameterError(f"groups must take each value 0..{n_groups - 1} at least once "
                                 f"(an empty group has no mean); got groups with values "
                                 f"{describe(np.unique(g).tolist())}")
        counts = np.bincount(index, minlength=n_groups)
    sums = np.bincount(index, weights=np.abs(diff), minlength=counts.size)
    grad = (np.sign(diff) / counts[index]).astype(p.dtype, copy=False).reshape(p.shape)
    return float(np.sum(sums / counts)), grad


# ------------------------------------------------------------------------- Adam
class Adam:
    """Adam [KB15]_ (Algorithm 1): per-coordinate steps from bias-corrected moment estimates.

    For each parameter θ with gradient g, at step t = 1, 2, …::

        m ← β₁ m + (1 − β₁) g,        v ← β₂ v + (1 − β₂) g²,
        m̂ = m / (1 − β₁ᵗ),            v̂ = v / (1 − β₂ᵗ),
        θ ← θ − α m̂ / (√v̂ + ε).

    Parameters
    ----------
    params : list of float arrays
        The arrays to update IN PLACE (``net.params``, or several networks' lists joined
        with +); at most :data:`MAX_PARAMS` numbers in all.
    learning_rate : float in (0, :data:`MAX_LEARNING_RATE`], default 1e-3
        α, about the largest change of a coordinate per step [KB15]_ (Sec. 2.1).
    beta1, beta2 : float in [0, 1), defaults 0.9 and 0.999
    eps : float > 0, default 1e-8

    Attributes
    ----------
    t : int
        Steps taken.
    m, v : lists of arrays
        The moment estimates.
    """

    def __init__(self, params, learning_rate: float = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8):
        _check_params(params)
        if sum(p.size for p in params) > MAX_PARAMS:
            raise ParameterError(f"params may hold at most {MAX_PARAMS:,} numbers; got params "
                                 f"with {sum(p.size for p in params):,}")
        self.params = list(params)
        self.learning_rate = check_in_range("learning_rate", learning_rate, 0.0,
                                            MAX_LEARNING_RATE, low_inclusive=False)
        self.beta1 = check_in_range("beta1", beta1, 0.0, 1.0, high_inclusive=False)
        self.beta2 = check_in_range("beta2", beta2, 0.0, 1.0, high_inclusive=False)
        self.eps = check_positive("eps", eps)
        self.reset()

    def reset(self) -> None:
        """Forget the moments: t = 0, m = v = 0."""
        self.t = 0
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]

    def step(self, grads, *, check_input: bool = True) -> None:
        """Update every parameter with its gradient (in place).

        ``grads`` is a list of arrays aligned with ``params`` (same shapes; finite, magnitude
        ≤ :data:`MAX_INPUT`); ``check_input=False`` skips the checks.
        """
        if check_bool("check_input", check_input):
            _check_grads(grads, self.params)
            for k, g in enumerate(grads):
                _check_magnitude(f"grads[{k}]", g)
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
def gradient_check(f, params, grads, *, eps: float = 1e-6, n_checks: int = 20,
                   rng=None) -> float:
    """Largest relative error between ``grads`` and central differences of ``f``.

    For up to ``n_checks`` entries θ_j of each array (at random; all of a small array) the
    numerical derivative is (f(θ + h e_j) − f(θ − h e_j)) / (2h) [GBC16]_ (Sec. 11.5), with
    error O(h²) + O(ε_mach |f| / h), about 1e-10 in float64 with h = 1e-6. Per array the
    relative error is ‖a − n‖₂ / (‖a‖₂ + ‖n‖₂) over the checked entries (0 when both
    vanish); the result is the largest over the arrays. ``params`` are restored afterwards,
    also when ``f`` raises.

    Parameters
    ----------
    f : callable
        ``f()`` returns the loss (a finite real number) at the CURRENT ``params``.
    params : list of float arrays
        Perturbed in place one entry at a time (float64: float32 rounding swamps h).
    grads : list of arrays
        The analytic gradient, aligned with ``params``.
    eps : float in (0, 1], default 1e-6
        The step h.
    n_checks : int in [1, :data:`MAX_CHECKS`], default 20
        Entries checked per array.
    rng : None, int or numpy.random.Generator
        Which entries are checked.
    """
    if not callable(f):
        raise TypeError(f"f must be a callable returning the loss; got f={describe(f)}")
    _check_params(params)
    _check_grads(grads, params)
    for k, g in enumerate(grads):
        if not np.all(np.isfinite(g)):
            raise ParameterError(f"grads[{k}] must contain only finite values; got "
                                 f"grads[{k}]={describe(g)}")
    h = check_in_range("eps", eps, 0.0, 1.0, low_inclusive=False)
    n_checks = check_int("n_checks", n_checks, minimum=1, maximum=MAX_CHECKS)
    gen = check_rng(rng)

    def loss() -> float:
        try:
            return check_finite("f()", f())
        except (TypeError, ParameterError) as exc:
            raise type(exc)(f"f must return the loss, a finite real number: {exc}") from None

    worst = 0.0
    for p, g in zip(params, grads):
        idx = np.arange(p.size) if p.size <= n_checks else gen.choice(p.size, n_checks,
                                                                       replace=False)
        numeric = np.empty(idx.size)
        for j, i in enumerate(idx):
            pos = np.unravel_index(i, p.shape)
            old = p[pos]
            try:
                p[pos] = old + h
                up, theta_up = loss(), float(p[pos])
                p[pos] = old - h
                down, theta_down = loss(), float(p[pos])
            finally:
                p[pos] = old
            if theta_up == theta_down:
                raise ParameterError(f"eps is too small to move params of magnitude "
                                     f"{abs(float(old)):.3g}; got eps={describe(eps)}")
            # divide by the step actually taken (θ ± h is rounded to the array's dtype)
            numeric[j] = (up - down) / (theta_up - theta_down)
        if not np.all(np.isfinite(numeric)):
            raise ParameterError("f must return losses whose differences are finite; got "
                                 f"f()={describe(up)} and {describe(down)}")
        a = g.reshape(-1)[idx].astype(np.float64)
        denom = np.linalg.norm(a) + np.linalg.norm(numeric)
        if denom > 0:
            worst = max(worst, float(np.linalg.norm(a - numeric) / denom))
    return worst


# ---------------------------------------------------------------- private helpers
def _check_logits(logits) -> np.ndarray:
    z = check_array("logits", logits, ndim=2, min_size=0, allow_bool=False)
    if z.shape[1] < 1:
        raise ParameterError("logits must have at least one column; got logits with shape "
                             f"{z.shape}")
    if isinstance(logits, np.ndarray) and logits.dtype.kind == "f":
        z = logits                                 # e.g. float32 logits stay float32
    return z


def _softmax(z: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):               # max − min beyond the float range: exp → 0
        z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _log_softmax(z: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def _check_magnitude(name: str, a: np.ndarray) -> None:
    """Refuse a NaN, an infinity or an entry beyond MAX_INPUT (one pass over ``a``)."""
    if a.size and not np.max(np.abs(a)) <= MAX_INPUT:         # (False for NaN too)
        if not np.all(np.isfinite(a)):
            raise ParameterError(f"{name} must contain only finite values; got "
                                 f"{name}={describe(a)}")
        raise ParameterError(f"{name} must have entries of magnitude <= {MAX_INPUT:g}; got "
                             f"{name} with max |x| = {np.max(np.abs(a)):.3g}")


def _values(name: str, value, ndim=(1, 2), allow_bool: bool = False) -> np.ndarray:
    """A finite float array with ≥ 1 row, |entries| ≤ MAX_INPUT (a float array keeps dtype)."""
    if not (isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.ndim in ndim):
        value = check_array(name, value, ndim=ndim, min_size=0, allow_bool=allow_bool)
    if value.size < 1:
        raise ParameterError(f"{name} must have at least one row; got {name} with shape "
                             f"{value.shape}")
    _check_magnitude(name, value)
    return value


def _column(name: str, value, n: int | None = None, like: str = "") -> np.ndarray:
    """:func:`_values` of shape (n,) or (n, 1) (any n ≥ 1 when ``n`` is None)."""
    v = _values(name, value, allow_bool=n is not None)
    if (v.ndim == 2 and v.shape[1] != 1) or (n is not None and v.shape[0] != n):
        want = "(n,) or (n, 1)" if n is None else f"({n},) or ({n}, 1) like {like}"
        raise ParameterError(f"{name} must have shape {want}; got {name} with shape {v.shape}")
    return v


def _labels(name: str, value, n: int, like: str) -> np.ndarray:
    """An integer (or boolean) array of shape (n,)."""
    v = value if isinstance(value, np.ndarray) else check_array(name, value, ndim=1,
                                                                min_size=0, dtype=None)
    if v.dtype.kind not in "biu":
        raise TypeError(f"{name} must hold integer labels; got {name}={describe(value)}")
    if v.shape != (n,):
        raise ParameterError(f"{name} must have shape ({n},) like {like}; got {name} with "
                             f"shape {v.shape}")
    return v


def _check_params(params) -> None:
    if not isinstance(params, (list, tuple)) or not params:
        raise TypeError(f"params must be a non-empty list of float arrays; got "
                        f"params={describe(params)}")
    for k, p in enumerate(params):
        if not isinstance(p, np.ndarray) or p.dtype.kind != "f" or not p.flags.writeable:
            raise TypeError(f"params[{k}] must be a writable float NumPy array (changed in "
                            f"place); got params[{k}]={describe(p)}")


def _check_grads(grads, params) -> None:
    if not isinstance(grads, (list, tuple)) or len(grads) != len(params):
        raise TypeError(f"grads must be a list of {len(params)} arrays aligned with params; "
                        f"got grads={describe(grads)}")
    for k, (g, p) in enumerate(zip(grads, params)):
        if not isinstance(g, np.ndarray) or g.dtype.kind not in "fiu":
            raise TypeError(f"grads[{k}] must be a real NumPy array; got grads[{k}]={describe(g)}")
        if g.shape != p.shape:
            raise ParameterError(f"grads[{k}] must have shape {p.shape}; got grads[{k}] with "
                                 f"shape {g.shape}")
