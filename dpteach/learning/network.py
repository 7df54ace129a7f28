"""One dense network in NumPy, for DP-SGD and for learning representations.

Readable in one sitting, in the spirit of micrograd. Layer l computes z_l = A_l W_l + b_l
from its input A_l (A_0 = X); the hidden layers apply an activation, A_{l+1} = σ(z_l); the
output layer is linear (logits, a representation: whatever the loss wants).

**Forward and backward.** :meth:`Network.forward` keeps the layer inputs A_l;
:meth:`Network.backward` takes the gradient G = ∂L/∂out of any scalar loss L and sends it
down, layer by layer ([GBC16]_ Sec. 6.5):

    Δ_l = ∂L/∂z_l,      Δ_{l-1} = (Δ_l W_lᵀ) ⊙ σ'(z_{l-1}),
    ∂L/∂W_l = A_lᵀ Δ_l,  ∂L/∂b_l = Σ_rows Δ_l,  ∂L/∂X = Δ_0 W_0ᵀ.

Networks chain (an encoder under a classifier and an adversary, as LAFTR trains them):
the gradient with respect to the input of one is the ``grad_out`` of the network below.

**Per example.** Rows never mix in a dense network, so when L = Σ_i ℓ_i is a sum of
per-example losses, row i of Δ_l is δ_{l,i} = ∂ℓ_i/∂z_{l,i}: example i's *own* error. Its
gradient with respect to layer l is an outer product,

    ∂ℓ_i/∂W_l = a_{l,i} δ_{l,i}ᵀ,      ∂ℓ_i/∂b_l = δ_{l,i},

so everything DP-SGD needs follows from the per-layer pairs (A_l, Δ_l) of one backward pass,
without materialising the n per-example gradients [G15]_:

* the per-example norms ‖∇ℓ_i‖² = Σ_l (‖a_{l,i}‖² + 1) ‖δ_{l,i}‖² (the Frobenius norm of a
  rank-one matrix is the product of the norms);
* the clipped sum Σ_i c_i ∇ℓ_i, c_i = min(1, C/‖∇ℓ_i‖), as one matrix product per layer,
  A_lᵀ diag(c) Δ_l ("ghost clipping" [LK21]_ [LTLH22]_).

That costs about what the ordinary backward pass costs, which computes A_lᵀ Δ_l.
:meth:`Network.per_example_gradients` materialises the per-example gradients anyway
(memory n × #parameters) so that students, and the tests, can check the shortcut against
the definition.

The classifier of DP-SGD is this network with the softmax cross-entropy
ℓ_i = −log softmax(z_i)[y_i] on its logits (:meth:`Network.trace`, :meth:`Network.loss`).
Assumption of the norm identity: each example passes through each dense layer once (no
weight sharing, sequences or convolutions; there it becomes a sum over positions [LTLH22]_).

References
----------
.. [G15] I. Goodfellow. Efficient per-example gradient computations. arXiv:1510.01799, 2015.
.. [LK21] J. Lee and D. Kifer. Scaling up differentially private deep learning with fast
   per-example gradient clipping. PoPETs 2021(1).
.. [LTLH22] X. Li, F. Tramèr, P. Liang and T. Hashimoto. Large language models can be strong
   differentially private learners. ICLR 2022 (ghost clipping).
.. [ACG16] M. Abadi et al. Deep learning with differential privacy. CCS 2016, Algorithm 1.
.. [GBC16] I. Goodfellow, Y. Bengio and A. Courville. *Deep Learning*, MIT Press 2016,
   Sec. 6.5 (back-propagation) and 8.4 (initialisation).
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
from .optim import MAX_INPUT, MAX_PARAMS, softmax

__all__ = ["Network", "ForwardCache", "BackwardTrace", "clip_factors", "activation_functions",
           "check_layer_sizes", "init_dense_layers", "ACTIVATIONS", "LEAKY_SLOPE", "MAX_WIDTH",
           "MAX_LAYERS", "MAX_ACTIVATIONS", "MAX_PER_EXAMPLE_ENTRIES"]

#: The activations σ of the hidden layers.
ACTIVATIONS = ("relu", "tanh", "leaky_relu")
#: Slope of the leaky ReLU for z < 0.
LEAKY_SLOPE = 0.01
#: Largest width of one layer (inputs, hidden units or outputs).
MAX_WIDTH = 100_000
#: Largest number of entries of ``layer_sizes`` (inputs and outputs included).
MAX_LAYERS = 50
#: Largest rows × (sum of the layer widths) one forward pass keeps (160 MB of float64).
MAX_ACTIVATIONS = 20_000_000
#: Largest number of entries (examples × parameters) :meth:`Network.per_example_gradients`
#: materialises (400 MB of float64).
MAX_PER_EXAMPLE_ENTRIES = 50_000_000


@dataclass(frozen=True)
class ForwardCache:
    """What :meth:`Network.forward` keeps for :meth:`Network.backward`: ``inputs``, the
    input A_l of each layer l (A_0 = X, A_l = σ(z_{l-1}))."""

    inputs: list


@dataclass
class BackwardTrace:
    """The per-layer quantities of one forward and backward pass, l = 0 … L-1.

    Attributes
    ----------
    inputs : list of arrays (n, d_l)
        A_l, the input of layer l for each example (A_0 = X).
    errors : list of arrays (n, d_{l+1})
        Δ_l; row i is δ_{l,i} = ∂ℓ_i/∂z_l for example i's own loss ℓ_i (not divided by n).
    losses : array (n,)
        The per-example cross-entropies ℓ_i (without the L2 penalty).
    """

    inputs: list
    errors: list
    losses: np.ndarray


class Network:
    """A dense network: a backward pass from any loss, and per-example gradients for DP-SGD.

    ``layer_sizes = (d_0, …, d_L)``: d_0 inputs, hidden layers d_1 … d_{L-1} with
    activation ``activation``, d_L linear outputs. As a classifier (DP-SGD) the outputs are
    logits fed to a softmax, and the objective on n examples is

        J(θ) = (1/n) Σ_i ℓ_i(θ) + (l2/2) Σ_l ‖W_l‖_F²,

    with ℓ_i the cross-entropy of example i; biases are not penalised.

    Parameters
    ----------
    layer_sizes : sequence of int
        2 to :data:`MAX_LAYERS` sizes, each in [1, :data:`MAX_WIDTH`], at most
        :data:`~dpteach.learning.optim.MAX_PARAMS` weights and biases in all.
    activation : {"relu", "tanh", "leaky_relu"}
    l2 : float ≥ 0, default 0
        L2 penalty of the classifier's objective J.
    dtype : {"float64", "float32"}
        float64 for gradient checks, float32 for speed.
    rng : None, int or numpy.random.Generator
        Initialisation (:func:`init_dense_layers`).

    Attributes
    ----------
    params : list of arrays
        [W_0, b_0, W_1, b_1, …]: the arrays themselves, updated in place.
    """

    def __init__(self, layer_sizes, activation: str = "relu", l2: float = 0.0,
                 dtype: str = "float64", rng=None):
        self.layer_sizes = check_layer_sizes(layer_sizes)
        self._act, self._act_grad = activation_functions(activation)
        self.activation = activation
        self.l2 = check_nonnegative("l2", l2)
        weights, biases = init_dense_layers(self.layer_sizes, activation, dtype, check_rng(rng))
        self.dtype = weights[0].dtype
        self.params = [p for W, b in zip(weights, biases) for p in (W, b)]

    @property
    def weights(self) -> list:
        """[W_0, W_1, …] (the arrays of :attr:`params`)."""
        return self.params[0::2]

    @property
    def n_params(self) -> int:
        """Number of weights and biases."""
        return int(sum(p.size for p in self.params))

    # ---------------------------------------------------- forward and backward, any loss
    def forward(self, X, *, check_input: bool = True):
        """The outputs and what the backward pass needs: ``(out, cache)``.

        Parameters
        ----------
        X : array (n, d_0)
            Finite, magnitude ≤ :data:`~dpteach.learning.optim.MAX_INPUT`,
            n · Σ_l d_l ≤ :data:`MAX_ACTIVATIONS`.
        check_input : bool, default True
            ``False`` skips every check: ``X`` must then be a finite array of the
            network's dtype with d_0 columns.

        Returns
        -------
        out : array (n, d_L)
        cache : ForwardCache
        """
        if not check_bool("check_input", check_input):
            return self._forward(X)
        X = self._check_X(X, cached=True)
        with np.errstate(over="ignore", invalid="ignore"):     # reported below, by name
            out, cache = self._forward(X)
        if not np.all(np.isfinite(out)):
            raise ParameterError("the forward pass overflowed (have the parameters "
                                 f"diverged?); got X with max |x| = "
                                 f"{np.max(np.abs(X)) if X.size else 0:.3g}")
        return out, cache

    def _forward(self, X):
        inputs, h = [], X
        last = len(self.params) - 2
        for l in range(0, len(self.params), 2):
            inputs.append(h)
            z = h @ self.params[l]
            z += self.params[l + 1]
            h = z if l == last else self._act(z)
        return h, ForwardCache(inputs)

    def __call__(self, X) -> np.ndarray:
        """The outputs for ``X`` (checked), shape (n, d_L)."""
        return self.forward(X)[0]

    def backward(self, cache: ForwardCache, grad_out, *, check_input: bool = True,
                 input_grad: bool = True):
        """Back-propagate G = ∂L/∂out to the parameters and the input: ``(grads, grad_X)``.

        Parameters
        ----------
        cache : ForwardCache
            From :meth:`forward` of this network.
        grad_out : array (n, d_L)
            ∂L/∂out for whatever scalar loss L the caller has (e.g. the gradient a loss of
            :mod:`~dpteach.learning.optim` returned); finite, magnitude ≤ ``MAX_INPUT``.
        check_input : bool, default True
            ``False`` skips every check (``grad_out`` then has the output's shape).
        input_grad : bool, default True
            ``False`` skips the product for ∂L/∂X and returns None for it (an encoder
            whose input is data needs none).

        Returns
        -------
        grads : list of arrays
            ∂L/∂θ aligned with :attr:`params`: A_lᵀ Δ_l and Σ_rows Δ_l.
        grad_X : array (n, d_0) or None
            ∂L/∂X = Δ_0 W_0ᵀ, to pass on to the network that produced X.
        """
        if not check_bool("check_input", check_input):
            return self._backward(cache, grad_out, input_grad)
        grad_out = self._check_backward(cache, grad_out)
        input_grad = check_bool("input_grad", input_grad)
        with np.errstate(over="ignore", invalid="ignore"):     # reported below, by name
            grads, grad_X = self._backward(cache, grad_out, input_grad)
        if not all(np.all(np.isfinite(g)) for g in grads + [0.0 if grad_X is None else grad_X]):
            raise ParameterError("the backward pass overflowed (have the parameters "
                                 "diverged?); got grad_out with max |g| = "
                                 f"{np.max(np.abs(grad_out)) if grad_out.size else 0:.3g}")
        return grads, grad_X

    def _backward(self, cache, grad_out, input_grad):
        errors = self._errors(cache.inputs, grad_out)
        grads = _weighted_sum(cache.inputs, errors, None)
        return grads, (errors[0] @ self.params[0].T if input_grad else None)

    def _errors(self, inputs, G) -> list:
        """Δ_l = ∂L/∂z_l for every layer, from Δ_{L-1} = G down (the backward pass proper)."""
        errors = [G]
        for l in range(len(inputs) - 1, 0, -1):
            G = (G @ self.params[2 * l].T) * self._act_grad(inputs[l])   # A_l = σ(z_{l-1})
            errors.append(G)
        return errors[::-1]

    # ----------------------------------------------- the classifier: softmax cross-entropy
    def trace(self, X, y) -> BackwardTrace:
        """One forward and backward pass of the per-example cross-entropies ℓ_i.

        Back-propagates G = ∂ℓ_i/∂z_L = softmax(z_i) − onehot(y_i) row by row (not divided
        by n), so that the trace holds each example's own errors Δ_l.

        Parameters
        ----------
        X : array (n, d_0)
            Finite inputs, magnitude ≤ ``MAX_INPUT``, n · Σ_l d_l ≤ :data:`MAX_ACTIVATIONS`.
        y : array of int (n,)
            Class indices in [0, d_L − 1].

        Returns
        -------
        BackwardTrace
        """
        X = self._check_X(X, cached=True)
        return self._trace(X, self._check_y(y, X.shape[0]))

    def _trace(self, X, y) -> BackwardTrace:
        logits, cache = self._forward(X)
        losses, G = _cross_entropy_rows(logits, y)
        return BackwardTrace(cache.inputs, self._errors(cache.inputs, G), losses)

    def logits(self, X) -> np.ndarray:
        """The outputs z_L before the softmax, shape (n, d_L) (overflow is not checked)."""
        return self._forward(self._check_X(X))[0]

    def predict_proba(self, X) -> np.ndarray:
        """Softmax class probabilities, shape (n, d_L)."""
        return softmax(self.logits(X))

    def per_example_losses(self, X, y) -> np.ndarray:
        """The cross-entropy ℓ_i = −log softmax(z_i)[y_i] of each example (no penalty)."""
        X = self._check_X(X)
        y = self._check_y(y, X.shape[0])
        return _cross_entropy_rows(self._forward(X)[0], y)[0]

    def loss(self, X, y) -> float:
        """The objective J(θ): mean cross-entropy plus (l2/2) Σ‖W_l‖²."""
        penalty = 0.5 * self.l2 * sum(float(np.sum(W * W)) for W in self.weights)
        return float(np.mean(self.per_example_losses(X, y))) + penalty

    def gradient(self, X, y) -> list:
        """Gradient of the objective J(θ) (mean loss + L2 penalty), aligned with :attr:`params`."""
        trace = self.trace(X, y)
        n = trace.losses.shape[0]
        c = np.full(n, 1.0 / max(n, 1), dtype=self.dtype)
        return self.add_l2_gradient(_weighted_sum(trace.inputs, trace.errors, c))

    # --------------------------------------- per-example gradients from the pairs (A_l, Δ_l)
    @staticmethod
    def per_example_gradients_from(trace: BackwardTrace) -> list:
        """Materialise ∇ℓ_i for every example: [(n, *W_0.shape), (n, *b_0.shape), …].

        ∂ℓ_i/∂W_l = a_{l,i} δ_{l,i}ᵀ and ∂ℓ_i/∂b_l = δ_{l,i}. Memory n × #parameters:
        fine for teaching and tests, the thing DP libraries avoid; at most
        :data:`MAX_PER_EXAMPLE_ENTRIES` numbers.
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
        """Per-example gradients of the cross-entropies ℓ_i (without the L2 penalty).

        A list aligned with :attr:`params`; entry k has shape ``(n, *params[k].shape)``.
        """
        return self.per_example_gradients_from(self.trace(X, y))

    @staticmethod
    def per_example_grad_norms_from(trace: BackwardTrace) -> np.ndarray:
        """‖∇ℓ_i‖₂ over all parameters, from the pairs (A_l, Δ_l) alone [G15]_.

        ‖∇ℓ_i‖² = Σ_l ‖a_{l,i}‖² ‖δ_{l,i}‖² + ‖δ_{l,i}‖²: no gradient is materialised.
        """
        _check_trace(trace)
        return _ghost_norms(trace.inputs, trace.errors)

    def per_example_grad_norms(self, X, y) -> np.ndarray:
        """The norm ‖∇ℓ_i‖₂ of each example's gradient (all parameters), shape (n,)."""
        return self.per_example_grad_norms_from(self.trace(X, y))

    @staticmethod
    def weighted_gradient_sum(trace: BackwardTrace, weights) -> list:
        """Σ_i c_i ∇ℓ_i as one matrix product per layer: A_lᵀ diag(c) Δ_l and Δ_lᵀ c [LK21]_.

        With c_i the clipping factors this is the clipped sum of DP-SGD; with c_i = 1 the
        ordinary gradient sum. ``weights`` has shape (n,): one real number per example of
        ``trace``, magnitude ≤ 1e15 (clipping factors lie in [0, 1]).
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
        return _weighted_sum(trace.inputs, trace.errors,
                             c.astype(trace.errors[0].dtype, copy=False))

    @staticmethod
    def clipped_gradient_sum(trace: BackwardTrace, max_grad_norm: float | None):
        """The clipped gradient sum of DP-SGD from the pairs (A_l, Δ_l) of one backward pass.

        The per-example norms ‖∇ℓ_i‖ (:meth:`per_example_grad_norms_from`), the factors
        c_i = min(1, C/‖∇ℓ_i‖) (:func:`clip_factors`, [ACG16]_ Algorithm 1) and
        Σ_i c_i ∇ℓ_i = A_lᵀ diag(c) Δ_l per layer (:meth:`weighted_gradient_sum`), without
        materialising any per-example gradient [LK21]_.

        Parameters
        ----------
        trace : BackwardTrace
            From :meth:`trace`.
        max_grad_norm : float > 0 or None
            The clipping norm C; None for no clipping (c_i = 1: the ordinary gradient sum).

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
        C = None if max_grad_norm is None else check_positive("max_grad_norm", max_grad_norm)
        return _clipped_sum(trace, C)

    # ------------------------------------------------------------------------- updates
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

        ``grads`` is a list of real arrays aligned with :attr:`params`; ``learning_rate``
        is finite and > 0.
        """
        self._check_grads(grads)
        learning_rate = check_positive("learning_rate", learning_rate)
        for p, g in zip(self.params, grads):
            p -= (learning_rate * g).astype(self.dtype, copy=False)

    def copy(self) -> "Network":
        """A deep copy (parameters copied)."""
        new = object.__new__(Network)
        new.__dict__.update(self.__dict__)
        new.params = [p.copy() for p in self.params]
        return new

    def __repr__(self) -> str:
        return (f"Network(layer_sizes={self.layer_sizes}, activation={self.activation!r}, "
                f"l2={self.l2}, dtype={self.dtype.name!r})")

    # -------------------------------------------------------------------------- checks
    def _check_X(self, X, cached: bool = False) -> np.ndarray:
        if not (isinstance(X, np.ndarray) and X.dtype == self.dtype and X.ndim == 2):
            X = check_array("X", X, ndim=2, min_size=0).astype(self.dtype, copy=False)
        if X.shape[1] != self.layer_sizes[0]:
            raise ParameterError(f"X must have {self.layer_sizes[0]} columns; "
                                 f"got X with shape {X.shape}")
        if cached and X.shape[0] * sum(self.layer_sizes) > MAX_ACTIVATIONS:
            raise ParameterError(f"X may have at most {MAX_ACTIVATIONS // sum(self.layer_sizes)} "
                                 f"rows for this network (pass mini-batches); got X with "
                                 f"shape {X.shape}")
        _check_magnitude("X", X)
        return X

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

    def _check_backward(self, cache, grad_out) -> np.ndarray:
        if not isinstance(cache, ForwardCache):
            raise TypeError("cache must be the ForwardCache of Network.forward; got "
                            f"cache={describe(cache)} of type {type(cache).__name__}")
        sizes, inputs = self.layer_sizes, cache.inputs
        n = inputs[0].shape[0] if inputs and isinstance(inputs[0], np.ndarray) else -1
        if len(inputs) != len(sizes) - 1 or any(
                not isinstance(A, np.ndarray) or A.shape != (n, d) for A, d in zip(inputs, sizes)):
            raise ParameterError(f"cache must come from forward() of a network with "
                                 f"layer_sizes={sizes}; got a cache of another shape")
        g = grad_out
        if not (isinstance(g, np.ndarray) and g.dtype.kind == "f"):
            g = check_array("grad_out", grad_out, ndim=2, min_size=0)
        if g.shape != (n, sizes[-1]):
            raise ParameterError(f"grad_out must have the shape of the output ({n}, "
                                 f"{sizes[-1]}); got grad_out with shape {g.shape}")
        _check_magnitude("grad_out", g)
        return g.astype(self.dtype, copy=False)

    def _check_grads(self, grads) -> list:
        """A list of real arrays shaped like :attr:`params` (not scanned for finiteness)."""
        if not isinstance(grads, (list, tuple)) or len(grads) != len(self.params):
            raise TypeError(f"grads must be a list of {len(self.params)} arrays aligned with "
                            f"Network.params; got grads={describe(grads)}")
        for k, (g, p) in enumerate(zip(grads, self.params)):
            if not isinstance(g, np.ndarray) or g.dtype.kind not in "fiu":
                raise TypeError(f"grads[{k}] must be a real NumPy array (not complex); got "
                                f"grads[{k}]={describe(g)}")
            if g.shape != p.shape:
                raise ParameterError(f"grads[{k}] must have shape {p.shape}; got grads[{k}] with "
                                     f"shape {g.shape}")
        return grads


def clip_factors(norms, max_grad_norm: float) -> np.ndarray:
    """Per-example clipping factors c_i = min(1, C / ‖g_i‖).

    Multiplying g_i by c_i gives g_i / max(1, ‖g_i‖ / C), the clipping of [ACG16]_
    (Algorithm 1): gradients with norm ≤ C are kept, longer ones are scaled down to norm
    exactly C (a zero gradient keeps c_i = 1).

    Parameters
    ----------
    norms : array of shape (n,)
        Per-example gradient norms ‖g_i‖₂ (finite, ≥ 0).
    max_grad_norm : float
        Clipping norm C (finite, > 0).
    """
    C = check_positive("max_grad_norm", max_grad_norm)
    norms = check_array("norms", norms, ndim=1, min_size=0)
    if np.any(norms < 0):
        raise ParameterError("norms must be >= 0 (they are Euclidean norms); got a negative entry")
    return _clip(norms, C)


def activation_functions(activation: str) -> tuple:
    """The pair (σ, σ') of an activation, σ' written in terms of the OUTPUT h = σ(z).

    * ``"relu"``: σ(z) = max(z, 0), σ'(z) = 1[h > 0] (0 at the kink);
    * ``"tanh"``: σ(z) = tanh z, σ'(z) = 1 − h²;
    * ``"leaky_relu"``: σ(z) = z for z > 0 and :data:`LEAKY_SLOPE` · z otherwise,
      σ'(z) = 1[h > 0] + LEAKY_SLOPE · 1[h ≤ 0].

    Back-propagation only needs σ' at the layer's output, which the forward pass keeps
    anyway [GBC16]_. The two functions act elementwise on float arrays and do not check
    their argument (they are the inner loop of :class:`Network`).

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
        [1, :data:`MAX_WIDTH`], at most :data:`~dpteach.learning.optim.MAX_PARAMS` weights
        and biases in all.
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
    ([GBC16]_ Sec. 8.4); biases are zero. The draws are made in float64 layer by layer and
    then cast to ``dtype``, so a seed gives the same network in both dtypes.

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


# ------------------------------------------------------------------- private helpers
_DTYPES = {"float32": np.float32, "float64": np.float64}
_MAX_WEIGHT = 1e15      # largest |c_i| of Network.weighted_gradient_sum


def _cross_entropy_rows(z: np.ndarray, y: np.ndarray):
    """ℓ_i = −log softmax(z_i)[y_i] and ∂ℓ_i/∂z_i = softmax(z_i) − onehot(y_i) for each row
    ([GBC16]_ Sec. 6.2.2.3); log-softmax computed stably, z_i − max_j z_ij − log Σ_j e^(…)."""
    rows = np.arange(z.shape[0])
    with np.errstate(over="ignore"):               # max − min beyond the float range: exp → 0
        z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    G = np.exp(logp)
    G[rows, y] -= 1.0
    return -logp[rows, y], G


def _check_magnitude(name: str, a: np.ndarray) -> None:
    """Refuse a NaN, an infinity or an entry beyond MAX_INPUT (one pass over ``a``)."""
    if a.size and not np.max(np.abs(a)) <= MAX_INPUT:         # (False for NaN too)
        if not np.all(np.isfinite(a)):
            raise ParameterError(f"{name} must contain only finite values; got "
                                 f"{name}={describe(a)}")
        raise ParameterError(f"{name} must have entries of magnitude <= {MAX_INPUT:g}; got "
                             f"{name} with max |x| = {np.max(np.abs(a)):.3g}")


def _ghost_norms(inputs: list, errors: list) -> np.ndarray:
    """sqrt(Σ_l (‖a_{l,i}‖² + 1) ‖δ_{l,i}‖²) for every example i."""
    sq = 0.0
    for A, D in zip(inputs, errors):
        sq = sq + (np.einsum("ij,ij->i", A, A) + 1.0) * np.einsum("ij,ij->i", D, D)
    return np.sqrt(sq)


def _weighted_sum(inputs: list, errors: list, c) -> list:
    """[A_lᵀ diag(c) Δ_l, Δ_lᵀ c for each layer l] (c None: all ones)."""
    out = []
    for A, D in zip(inputs, errors):
        cD = D if c is None else D * c[:, None]
        out += [A.T @ cD, cD.sum(axis=0)]
    return out


def _clipped_sum(trace: BackwardTrace, C: float | None):
    """(Σ_i c_i ∇ℓ_i, norms, c) of :meth:`Network.clipped_gradient_sum`, unchecked."""
    if C is None:
        return _weighted_sum(trace.inputs, trace.errors, None), None, \
            np.ones(trace.losses.shape[0], dtype=trace.errors[0].dtype)
    norms = _ghost_norms(trace.inputs, trace.errors)
    c = _clip(norms.astype(np.float64), C).astype(norms.dtype, copy=False)
    return _weighted_sum(trace.inputs, trace.errors, c), norms, c


def _clip(norms: np.ndarray, C: float) -> np.ndarray:
    """min(1, C/‖g_i‖) for checked norms (C/‖g‖ below the float range is 0)."""
    return C / np.maximum(norms, C)


def _check_trace(trace) -> None:
    if not isinstance(trace, BackwardTrace):
        raise TypeError("trace must be the BackwardTrace of Network.trace; got "
                        f"trace={describe(trace)} of type {type(trace).__name__}")


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

# Engineering notes. One module for both uses (DP-SGD's classifier and the chained
# representation networks) because they share the forward pass and the backward recursion
# `_errors`; DP-SGD keeps the per-layer (A_l, Δ_l) instead of summing them at once. Tests:
# tests/learning/test_network.py (gradient checks, per-example references),
# tests/learning/test_learning_edges.py (extreme inputs). Timings: benchmarks/README.md.
