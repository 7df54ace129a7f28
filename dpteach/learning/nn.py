"""A small dense neural network in NumPy with per-example gradients.

Readable in one sitting, in the spirit of micrograd: a multi-layer perceptron
(dense layers, ReLU or tanh, softmax cross-entropy, optional L2 penalty) whose
backward pass returns, for every layer, the two matrices that *all* gradient
information is made of:

* ``A`` (n × d_in): the input each example fed into the layer, and
* ``Δ`` (n × d_out): the error δ_i = ∂ℓ_i/∂z_i each example's *own* loss
  back-propagates to the layer's pre-activation z = A W + b.

For one example, the gradient of its loss ℓ_i with respect to the layer is
an outer product,

    ∂ℓ_i/∂W = a_i δ_iᵀ,      ∂ℓ_i/∂b = δ_i,

so everything differential privacy needs follows from (A, Δ) without ever
materialising the n per-example gradient matrices [G15]_:

* per-example norms  ‖∂ℓ_i/∂W‖_F² = ‖a_i‖² ‖δ_i‖²  and  ‖∂ℓ_i/∂b‖² = ‖δ_i‖²
  (the Frobenius norm of a rank-one matrix is the product of the norms);
* the sum of per-example gradients scaled by c_i (e.g. clipping factors)
  as ONE matrix product,  Σ_i c_i a_i δ_iᵀ = Aᵀ diag(c) Δ  — "ghost clipping"
  [LK21]_ [LTLH22]_.

This costs about the same as an ordinary (non-private) backward pass, which
computes Aᵀ Δ. :meth:`MLP.per_example_gradients` materialises the per-example
gradients anyway (memory n × #parameters) so students, and the tests, can
check the shortcut against the definition.

Assumptions: each example passes through a dense layer once (no weight
sharing, sequences or convolutions; there the norm identity becomes a sum
over positions [LTLH22]_).

Why one file (about 630 lines, most of them docstrings): the per-example-gradient MLP and the
seams it shares with :mod:`dpteach.learning.network` (activations, initialisation, layer
sizes). Those seams are the piece to move out first if it grows.

References
----------
.. [G15] I. Goodfellow. Efficient per-example gradient computations.
   arXiv:1510.01799, 2015.
.. [LK21] J. Lee and D. Kifer. Scaling up differentially private deep learning
   with fast per-example gradient clipping. PoPETs 2021(1).
.. [LTLH22] X. Li, F. Tramèr, P. Liang and T. Hashimoto. Large language models
   can be strong differentially private learners. ICLR 2022 (ghost clipping).
.. [GBC16] I. Goodfellow, Y. Bengio and A. Courville. *Deep Learning*, MIT
   Press 2016, Sec. 6.5 (back-propagation) and 11.5 (gradient checking).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import (
    ParameterError,
    check_array,
    check_bool,
    check_choice,
    check_int,
    check_nonnegative,
    check_positive,
    check_rng,
    describe,
)

__all__ = ["MLP", "BackwardTrace", "softmax", "log_softmax", "clip_factors",
           "check_layer_sizes", "init_dense_layers", "activation_functions", "ACTIVATIONS",
           "LEAKY_SLOPE", "MAX_WIDTH", "MAX_LAYERS", "MAX_PARAMS", "MAX_INPUT",
           "MAX_PER_EXAMPLE_ENTRIES"]

_DTYPES = {"float32": np.float32, "float64": np.float64}
#: Largest width of one layer (inputs, hidden units or classes).
MAX_WIDTH = 100_000
#: Largest number of entries of ``layer_sizes`` (inputs and outputs included).
MAX_LAYERS = 50
#: Largest number of parameters of a network (80 MB of float64 weights).
MAX_PARAMS = 10_000_000
#: Largest magnitude of an input feature: keeps the squared norms of the per-example
#: gradients (‖a_i‖² ~ d·x²) inside the float32 range.
MAX_INPUT = 1e15
#: Largest number of entries (examples × parameters) :meth:`MLP.per_example_gradients`
#: materialises (400 MB of float64).
MAX_PER_EXAMPLE_ENTRIES = 50_000_000
_MAX_WEIGHT = 1e15      # largest |c_i| of MLP.weighted_gradient_sum


def softmax(logits) -> np.ndarray:
    """Row-wise softmax, computed stably by subtracting each row's maximum.

    Parameters
    ----------
    logits : array of shape (n, k), k ≥ 1
        Finite real numbers; a float array keeps its dtype.
    """
    return _softmax(_check_logits(logits))


def _check_logits(logits) -> np.ndarray:
    z = check_array("logits", logits, ndim=2, min_size=0, allow_bool=False)
    if z.shape[1] < 1:
        raise ParameterError("logits must have at least one column; got logits with shape "
                             f"{z.shape}")
    if isinstance(logits, np.ndarray) and logits.dtype.kind == "f":
        z = logits                                 # e.g. float32 logits stay float32
    return z


def log_softmax(logits) -> np.ndarray:
    """Row-wise log-softmax z − log Σ_j exp(z_j), computed stably (no overflow, no log 0).

    Parameters
    ----------
    logits : array of shape (n, k), k ≥ 1
        Finite real numbers; a float array keeps its dtype.
    """
    return _log_softmax(_check_logits(logits))


def _softmax(z: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):               # max − min beyond the float range: exp → 0
        z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _log_softmax(z: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def clip_factors(norms, max_grad_norm: float) -> np.ndarray:
    """Per-example clipping factors c_i = min(1, C / ‖g_i‖).

    Multiplying g_i by c_i gives g_i / max(1, ‖g_i‖ / C), the clipping of
    Abadi et al. (2016), Algorithm 1: gradients with norm ≤ C are kept, longer
    ones are scaled down to norm exactly C (a zero gradient keeps c_i = 1).

    Parameters
    ----------
    norms : array of shape (n,)
        Per-example gradient norms ‖g_i‖₂ (finite, ≥ 0).
    max_grad_norm : float
        Clipping norm C (finite, > 0).

    References
    ----------
    .. [ACG16] M. Abadi et al. Deep learning with differential privacy.
       CCS 2016, Algorithm 1.
    """
    C = check_positive("max_grad_norm", max_grad_norm)
    norms = check_array("norms", norms, ndim=1, min_size=0)
    if np.any(norms < 0):
        raise ParameterError("norms must be >= 0 (they are Euclidean norms); got a negative entry")
    return _clip(norms, C)


def _clip(norms: np.ndarray, C: float) -> np.ndarray:
    """min(1, C/‖g_i‖) for checked float64 norms (C/‖g‖ below the float range is 0)."""
    return C / np.maximum(norms, C)


# ------------------------------------------------- layers shared with learning.network
#: The activations :func:`activation_functions` knows (:class:`MLP` uses relu and tanh).
ACTIVATIONS = ("relu", "tanh", "leaky_relu")
#: Slope of the leaky ReLU for z < 0.
LEAKY_SLOPE = 0.01


def _relu(z):
    return np.maximum(z, 0)


def _relu_grad(h):
    return (h > 0).astype(h.dtype)


def _tanh_grad(h):
    return 1 - h * h


def _leaky_relu(z):
    return np.where(z > 0, z, LEAKY_SLOPE * z)


def _leaky_relu_grad(h):
    return np.where(h > 0, 1.0, LEAKY_SLOPE).astype(h.dtype, copy=False)


_ACTIVATION_FUNCTIONS = {"relu": (_relu, _relu_grad), "tanh": (np.tanh, _tanh_grad),
                         "leaky_relu": (_leaky_relu, _leaky_relu_grad)}


def activation_functions(activation: str) -> tuple:
    """The pair (σ, σ') of an activation, σ' written in terms of the OUTPUT h = σ(z).

    * ``"relu"``: σ(z) = max(z, 0), σ'(z) = 1[h > 0] (0 at the kink);
    * ``"tanh"``: σ(z) = tanh z, σ'(z) = 1 − h²;
    * ``"leaky_relu"``: σ(z) = z for z > 0 and :data:`LEAKY_SLOPE` · z otherwise,
      σ'(z) = 1[h > 0] + LEAKY_SLOPE · 1[h ≤ 0].

    Back-propagation only needs σ' at the layer's output, which the forward pass keeps
    anyway [GBC16]_. The two functions act elementwise on float arrays and do not check
    their argument: they are the inner loop of :class:`MLP` and
    :class:`dpteach.learning.network.Network`, called with arrays those have checked.

    Parameters
    ----------
    activation : {"relu", "tanh", "leaky_relu"}
    """
    return _ACTIVATION_FUNCTIONS[check_choice("activation", activation, ACTIVATIONS)]


def check_layer_sizes(layer_sizes, *, min_outputs: int = 1) -> tuple:
    """Check the sizes (d_0, d_1, …, d_L) of a dense network and return them as ints.

    Parameters
    ----------
    layer_sizes : sequence of int
        2 to :data:`MAX_LAYERS` sizes (inputs, hidden layers, outputs), each in
        [1, :data:`MAX_WIDTH`], at most :data:`MAX_PARAMS` weights and biases in all.
    min_outputs : int in [1, MAX_WIDTH], default 1
        Smallest allowed d_L (2 for a softmax classifier).
    """
    min_outputs = check_int("min_outputs", min_outputs, minimum=1, maximum=MAX_WIDTH)
    if isinstance(layer_sizes, (str, bytes)) or not hasattr(layer_sizes, "__len__"):
        raise TypeError("layer_sizes must be a sequence of integers; "
                        f"got layer_sizes={describe(layer_sizes)}")
    if not 2 <= len(layer_sizes) <= MAX_LAYERS:
        raise ParameterError(f"layer_sizes needs 2 to {MAX_LAYERS} entries (inputs, "
                             f"outputs); got layer_sizes={describe(tuple(layer_sizes))}")
    sizes = [check_int("layer_sizes", s, minimum=1, maximum=MAX_WIDTH) for s in layer_sizes]
    if sizes[-1] < min_outputs:
        what = "output classes" if min_outputs > 1 else "outputs"
        raise ParameterError(f"layer_sizes must end with >= {min_outputs} {what}; "
                             f"got layer_sizes={tuple(sizes)}")
    n_params = sum(a * b + b for a, b in zip(sizes[:-1], sizes[1:]))
    if n_params > MAX_PARAMS:
        raise ParameterError(f"layer_sizes must give at most {MAX_PARAMS:,} parameters; got "
                             f"layer_sizes={tuple(sizes)} with {n_params:,}")
    return tuple(sizes)


def init_dense_layers(layer_sizes, activation: str = "relu", dtype: str = "float64",
                      rng=None) -> tuple:
    """Initial weights and biases of a dense network: ``(weights, biases)``, two lists.

    W_l has shape (d_l, d_{l+1}) with independent N(0, var) entries, He-normal
    var = 2/d_l for (leaky) ReLU and Glorot-normal var = 2/(d_l + d_{l+1}) for tanh
    (initialisation strategies: [GBC16]_, Sec. 8.4); biases are zero. The draws are made
    in float64 layer by layer and then cast to ``dtype``, so a seed gives the same network
    in both dtypes (and :class:`MLP` and ``network.Network`` the same weights).

    Parameters
    ----------
    layer_sizes : sequence of int
        As :func:`check_layer_sizes` (outputs ≥ 1).
    activation : {"relu", "tanh", "leaky_relu"}
    dtype : {"float64", "float32"}
    rng : None, int or numpy.random.Generator
    """
    sizes = check_layer_sizes(layer_sizes)
    activation = check_choice("activation", activation, ACTIVATIONS)
    dtype = _DTYPES[check_choice("dtype", dtype, set(_DTYPES))]
    gen = check_rng(rng)
    weights, biases = [], []
    for d_in, d_out in zip(sizes[:-1], sizes[1:]):
        var = 2.0 / (d_in + d_out) if activation == "tanh" else 2.0 / d_in
        W = gen.standard_normal((d_in, d_out)) * np.sqrt(var)
        weights.append(W.astype(dtype))
        biases.append(np.zeros(d_out, dtype=dtype))
    return weights, biases


@dataclass
class BackwardTrace:
    """What one backward pass leaves behind, per layer l = 0 … L-1.

    Attributes
    ----------
    inputs : list of arrays (n, d_in_l)
        A_l, the input of layer l for each example (A_0 = X).
    errors : list of arrays (n, d_out_l)
        Δ_l, row i is δ_i = ∂ℓ_i/∂z_l for example i's own loss ℓ_i
        (not divided by n).
    losses : array (n,)
        The per-example cross-entropy losses ℓ_i (without the L2 penalty).
    """

    inputs: list
    errors: list
    losses: np.ndarray


def _grad_norms(trace: BackwardTrace) -> np.ndarray:
    sq = 0.0
    for A, D in zip(trace.inputs, trace.errors):
        a2 = np.einsum("ij,ij->i", A, A)
        d2 = np.einsum("ij,ij->i", D, D)
        sq = sq + (a2 + 1.0) * d2
    return np.sqrt(sq)


def _weighted_sum(trace: BackwardTrace, c: np.ndarray) -> list:
    out = []
    for A, D in zip(trace.inputs, trace.errors):
        cD = D * c[:, None]
        out += [A.T @ cD, cD.sum(axis=0)]
    return out


def _check_trace(trace) -> None:
    if not isinstance(trace, BackwardTrace):
        raise TypeError("trace must be the BackwardTrace of MLP.backward; got "
                        f"trace={describe(trace)} of type {type(trace).__name__}")


class MLP:
    """Multi-layer perceptron for classification, with per-example gradients.

    ``layer_sizes = (d_0, d_1, …, d_L)``: d_0 inputs, hidden layers
    d_1 … d_{L-1} with activation ``activation``, and d_L output logits fed
    to a softmax. The objective on a data set of n examples is

        J(θ) = (1/n) Σ_i ℓ_i(θ) + (l2/2) Σ_l ‖W_l‖_F²,

    with ℓ_i the cross-entropy of example i; biases are not penalised.

    Parameters
    ----------
    layer_sizes : sequence of int
        2 to :data:`MAX_LAYERS` sizes (inputs, hidden layers, outputs), each in
        [1, :data:`MAX_WIDTH`], outputs ≥ 2, at most :data:`MAX_PARAMS`
        parameters in all.
    activation : {"relu", "tanh"}
    l2 : float, default 0
        L2 penalty strength (≥ 0).
    dtype : {"float64", "float32"}
        float64 for gradient checks, float32 for fast training.
    rng : None, int or numpy.random.Generator
        Initialisation: He-normal weights for ReLU (variance 2/d_in) and
        Glorot-normal for tanh (variance 2/(d_in + d_out)); zero biases.

    Notes
    -----
    Back-propagation [GBC16]_ with the softmax/cross-entropy shortcut
    ∂ℓ_i/∂z_L = softmax(z_L)_i − onehot(y_i). See the module docstring for
    the per-example gradient structure [G15]_ [LK21]_.
    """

    def __init__(self, layer_sizes, activation: str = "relu", l2: float = 0.0,
                 dtype: str = "float64", rng=None):
        self.layer_sizes = check_layer_sizes(layer_sizes, min_outputs=2)
        self.activation = check_choice("activation", activation, {"relu", "tanh"})
        self.l2 = check_nonnegative("l2", l2)
        dtype = check_choice("dtype", dtype, set(_DTYPES))
        self.dtype = _DTYPES[dtype]
        self.weights, self.biases = init_dense_layers(self.layer_sizes, self.activation,
                                                      dtype, check_rng(rng))

    # ------------------------------------------------------------------ basics
    @property
    def params(self) -> list:
        """Parameters in a fixed order: [W_0, b_0, W_1, b_1, …] (the arrays themselves)."""
        out = []
        for W, b in zip(self.weights, self.biases):
            out += [W, b]
        return out

    @property
    def n_params(self) -> int:
        return int(sum(p.size for p in self.params))

    def _act(self, z):
        return _ACTIVATION_FUNCTIONS[self.activation][0](z)

    def _act_grad_from_output(self, h):
        # derivative of the activation written in terms of its output h = act(z)
        return _ACTIVATION_FUNCTIONS[self.activation][1](h)

    def _check_X(self, X) -> np.ndarray:
        if not (isinstance(X, np.ndarray) and X.dtype == self.dtype and X.ndim == 2
                and np.all(np.isfinite(X))):
            X = check_array("X", X, ndim=2, min_size=0)   # (an array of our dtype: as is)
        if X.shape[1] != self.layer_sizes[0]:
            raise ParameterError(f"X must have {self.layer_sizes[0]} columns; "
                                 f"got X with shape {X.shape}")
        if X.size and np.max(np.abs(X)) > MAX_INPUT:
            raise ParameterError(f"X must have entries of magnitude <= {MAX_INPUT:g}; got X with "
                                 f"max |x| = {np.max(np.abs(X)):.3g}")
        return X.astype(self.dtype, copy=False)

    def _check_y(self, y, n: int) -> np.ndarray:
        y = np.asarray(y)
        if y.dtype.kind not in "biuf":
            raise TypeError(f"y must hold integer class indices; got y={describe(y)} of dtype "
                            f"{y.dtype}")
        if y.ndim != 1 or y.shape[0] != n:
            raise ParameterError(f"y must have shape ({n},); got y with shape {y.shape}")
        if y.size and (not np.issubdtype(y.dtype, np.integer) or y.min() < 0
                       or y.max() >= self.layer_sizes[-1]):
            k = self.layer_sizes[-1]
            raise ParameterError(f"y must hold integer class indices in [0, {k - 1}]; "
                                 f"got y={y[:5]!r}...")
        return y.astype(np.intp, copy=False)

    # ---------------------------------------------------------------- forward
    def _forward(self, X):
        """Return logits and the list of layer inputs A_0 … A_{L-1}."""
        inputs = []
        h = X
        last = len(self.weights) - 1
        for l, (W, b) in enumerate(zip(self.weights, self.biases)):
            inputs.append(h)
            z = h @ W + b
            h = z if l == last else self._act(z)
        return h, inputs

    def logits(self, X) -> np.ndarray:
        """Output scores z_L (before the softmax), shape (n, d_L)."""
        return self._forward(self._check_X(X))[0]

    def predict_proba(self, X) -> np.ndarray:
        """Softmax class probabilities, shape (n, d_L)."""
        return _softmax(self.logits(X))

    def per_example_losses(self, X, y) -> np.ndarray:
        """Cross-entropy ℓ_i = −log softmax(z_i)[y_i] of each example (no penalty)."""
        X = self._check_X(X)
        y = self._check_y(y, X.shape[0])
        logp = _log_softmax(self._forward(X)[0])
        return -logp[np.arange(X.shape[0]), y]

    def loss(self, X, y) -> float:
        """The objective J(θ): mean cross-entropy plus (l2/2) Σ‖W‖²."""
        penalty = 0.5 * self.l2 * sum(float(np.sum(W * W)) for W in self.weights)
        return float(np.mean(self.per_example_losses(X, y))) + penalty

    # --------------------------------------------------------------- backward
    def _backward(self, X, y) -> BackwardTrace:
        logits, inputs = self._forward(X)
        n = X.shape[0]
        logp = _log_softmax(logits)
        losses = -logp[np.arange(n), y]
        delta = np.exp(logp)                       # softmax(z_L)
        delta[np.arange(n), y] -= 1.0              # δ_L = softmax − onehot
        errors = [None] * len(self.weights)
        for l in range(len(self.weights) - 1, -1, -1):
            errors[l] = delta
            if l > 0:                              # propagate to the previous layer
                delta = (delta @ self.weights[l].T) * self._act_grad_from_output(inputs[l])
        return BackwardTrace(inputs=inputs, errors=errors, losses=losses)

    def backward(self, X, y, *, check_input: bool = True) -> BackwardTrace:
        """One forward and backward pass; see :class:`BackwardTrace`.

        Parameters
        ----------
        X : array (n, d_0)
            Finite inputs.
        y : array of int (n,)
            Class indices in [0, d_L − 1].
        check_input : bool, default True
            Check ``X`` and ``y``. ``False`` skips the checks (as scikit-learn's
            ``check_input``) for a caller that already checked them, e.g. rows of
            a training set checked once: then ``X`` must be an array of the
            model's dtype with ``d_0`` columns and ``y`` an integer array of valid
            class indices.
        """
        if check_bool("check_input", check_input):
            X = self._check_X(X)
            y = self._check_y(y, X.shape[0])
        return self._backward(X, y)

    # ------------------------------------------------ per-example quantities
    @staticmethod
    def per_example_gradients_from(trace: BackwardTrace) -> list:
        """Materialise ∇ℓ_i for every example: list [(n, *W_0.shape), (n, *b_0.shape), …].

        Memory n × #parameters: fine for teaching and tests, the thing DP
        libraries try to avoid. At most :data:`MAX_PER_EXAMPLE_ENTRIES` numbers
        (n × #parameters) are materialised; use fewer examples, or the norms
        (:meth:`per_example_grad_norms_from`), beyond that.
        """
        _check_trace(trace)
        n = trace.errors[0].shape[0]
        size = n * sum(A.shape[1] * D.shape[1] + D.shape[1]
                       for A, D in zip(trace.inputs, trace.errors))
        if size > MAX_PER_EXAMPLE_ENTRIES:
            raise ParameterError(f"per-example gradients of {n} examples would hold {size:,} "
                                 f"numbers, more than {MAX_PER_EXAMPLE_ENTRIES:,}: pass fewer "
                                 f"rows; got X with {n} rows")
        out = []
        for A, D in zip(trace.inputs, trace.errors):
            out += [np.einsum("ni,nj->nij", A, D), D.copy()]
        return out

    def per_example_gradients(self, X, y) -> list:
        """Per-example gradients of the cross-entropy ℓ_i (the L2 penalty is not included).

        Returns a list aligned with :attr:`params`; entry k has shape
        ``(n, *params[k].shape)``.
        """
        return self.per_example_gradients_from(self.backward(X, y))

    @staticmethod
    def per_example_grad_norms_from(trace: BackwardTrace) -> np.ndarray:
        """‖∇ℓ_i‖₂ over all parameters, without materialising gradients.

        ‖∇ℓ_i‖² = Σ_l ‖a_{l,i}‖² ‖δ_{l,i}‖² + ‖δ_{l,i}‖²  [G15]_.
        """
        _check_trace(trace)
        return _grad_norms(trace)

    def per_example_grad_norms(self, X, y) -> np.ndarray:
        """Euclidean norm of each example's gradient ∇ℓ_i (all parameters), shape (n,)."""
        return self.per_example_grad_norms_from(self.backward(X, y))

    @staticmethod
    def weighted_gradient_sum(trace: BackwardTrace, weights) -> list:
        """Σ_i c_i ∇ℓ_i as one matrix product per layer: Aᵀ diag(c) Δ and Δᵀ c [LK21]_.

        With c_i the clipping factors this is the clipped gradient sum of
        DP-SGD ("ghost clipping"); with c_i = 1 it is the ordinary gradient
        sum. ``weights`` has shape (n,): one real number per example of
        ``trace``, of magnitude ≤ 1e15 (clipping factors lie in [0, 1]).
        """
        _check_trace(trace)
        n = trace.errors[0].shape[0]
        c = check_array("weights", weights, ndim=1, min_size=0)
        if c.shape[0] != n:
            raise ParameterError(f"weights must have one entry per example of the trace ({n}); "
                                 f"got weights with shape {c.shape}")
        if c.size and np.max(np.abs(c)) > _MAX_WEIGHT:
            raise ParameterError(f"weights must have magnitude <= {_MAX_WEIGHT:g}; got weights "
                                 f"with max |c| = {np.max(np.abs(c)):.3g}")
        return _weighted_sum(trace, c.astype(trace.errors[0].dtype, copy=False))

    @staticmethod
    def clipped_gradient_sum(trace: BackwardTrace, max_grad_norm: float | None):
        """The clipped gradient sum of DP-SGD from one backward pass ("ghost clipping").

        Computes the per-example norms ‖∇ℓ_i‖ (:meth:`per_example_grad_norms_from`),
        the clipping factors c_i = min(1, C/‖∇ℓ_i‖) (:func:`clip_factors`) and
        Σ_i c_i ∇ℓ_i (:meth:`weighted_gradient_sum`) without materialising any
        per-example gradient [LK21]_; the step DP-SGD repeats, so the intermediate
        results are not checked again.

        Parameters
        ----------
        trace : BackwardTrace
            From :meth:`backward`.
        max_grad_norm : float > 0 or None
            The clipping norm C (finite); None for no clipping (c_i = 1: the
            ordinary gradient sum).

        Returns
        -------
        grads : list of arrays
            Σ_i c_i ∇ℓ_i, aligned with :attr:`params`.
        norms : array (n,) or None
            The norms before clipping (None without clipping).
        factors : array (n,)
            The c_i, in the dtype of the trace.
        """
        _check_trace(trace)
        errors = trace.errors[0]
        if max_grad_norm is None:
            norms, c = None, np.ones(errors.shape[0], dtype=errors.dtype)
        else:
            C = check_positive("max_grad_norm", max_grad_norm)
            norms = _grad_norms(trace)
            c = _clip(norms.astype(np.float64), C).astype(norms.dtype, copy=False)
        return _weighted_sum(trace, c), norms, c

    def gradient(self, X, y) -> list:
        """Gradient of the objective J(θ) (mean loss + L2 penalty), aligned with :attr:`params`."""
        X = self._check_X(X)
        trace = self._backward(X, self._check_y(y, X.shape[0]))
        n = max(X.shape[0], 1)
        grads = self.weighted_gradient_sum(trace, np.full(X.shape[0], 1.0 / n))
        return self.add_l2_gradient(grads)

    def _check_grads(self, grads) -> list:
        """A list of real arrays shaped like :attr:`params` (not scanned for finiteness)."""
        if not isinstance(grads, (list, tuple)) or len(grads) != 2 * len(self.weights):
            raise TypeError(f"grads must be a list of {2 * len(self.weights)} arrays aligned with "
                            f"MLP.params; got grads={describe(grads)}")
        for k, (g, p) in enumerate(zip(grads, self.params)):
            if not isinstance(g, np.ndarray) or g.dtype.kind not in "fiu":
                raise TypeError(f"grads[{k}] must be a real NumPy array (not complex); got "
                                f"grads[{k}]={describe(g)}")
            if g.shape != p.shape:
                raise ParameterError(f"grads[{k}] must have shape {p.shape}; got grads[{k}] with "
                                     f"shape {g.shape}")
        return grads

    def add_l2_gradient(self, grads: list) -> list:
        """Add the penalty's gradient l2·W_l to the weight entries of ``grads`` (in place).

        ``grads`` is a list of real float arrays aligned with :attr:`params`.
        """
        self._check_grads(grads)
        if self.l2:
            for l, W in enumerate(self.weights):
                grads[2 * l] += self.l2 * W
        return grads

    def apply_update(self, grads: list, learning_rate: float) -> None:
        """θ ← θ − learning_rate · grads (in place).

        ``grads`` is a list of real arrays aligned with :attr:`params`;
        ``learning_rate`` is finite and > 0.
        """
        self._check_grads(grads)
        learning_rate = check_positive("learning_rate", learning_rate)
        for p, g in zip(self.params, grads):
            p -= (learning_rate * g).astype(self.dtype, copy=False)

    def copy(self) -> "MLP":
        """A deep copy (parameters copied)."""
        new = object.__new__(MLP)
        new.__dict__.update(self.__dict__)
        new.weights = [W.copy() for W in self.weights]
        new.biases = [b.copy() for b in self.biases]
        return new

    def __repr__(self) -> str:
        return (f"MLP(layer_sizes={self.layer_sizes}, activation={self.activation!r}, "
                f"l2={self.l2}, dtype={np.dtype(self.dtype).name!r})")
