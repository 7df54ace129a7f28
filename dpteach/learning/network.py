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
per-example losses, row i of Δ_l is example i's *own* error δ_{l,i} = ∂ℓ_i/∂z_{l,i}, and its
gradient with respect to layer l is an outer product,

    ∂ℓ_i/∂W_l = a_{l,i} δ_{l,i}ᵀ,      ∂ℓ_i/∂b_l = δ_{l,i}.

So everything DP-SGD needs follows from the per-layer pairs (A_l, Δ_l) of one backward pass
of the softmax cross-entropies ℓ_i = −log softmax(z_i)[y_i] (:meth:`Network.trace`), without
materialising the n per-example gradients [G15]_:

* the per-example norms ‖∇ℓ_i‖² = Σ_l (‖a_{l,i}‖² + 1) ‖δ_{l,i}‖² (the Frobenius norm of a
  rank-one matrix is the product of the norms);
* the clipped sum Σ_i c_i ∇ℓ_i, c_i = min(1, C/‖∇ℓ_i‖), as one matrix product per layer,
  A_lᵀ diag(c) Δ_l ("ghost clipping" [LK21]_ [LTLH22]_),

at about the cost of the ordinary backward pass, which computes A_lᵀ Δ_l.
:meth:`Network.per_example_gradients` materialises the per-example gradients anyway (memory
n × #parameters) so that students, and the tests, can check the shortcut against the
definition. The norm identity assumes that each example passes through each dense layer once
(no weight sharing, sequences or convolutions; there it becomes a sum over positions
[LTLH22]_).

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

from .._validation import FLAG, RNG, Domain, array, choice, instance_of, real, refuse, validate
from .optim import CLASS_INDICES, GRADS, LEARNING_RATE, MAX_INPUT, MAX_PARAMS, softmax

__all__ = ["Network", "ForwardCache", "BackwardTrace", "clip_factors", "activation_functions",
           "init_dense_layers", "ACTIVATIONS", "LEAKY_SLOPE", "MAX_WIDTH", "MAX_LAYERS",
           "MAX_ACTIVATIONS", "MAX_PER_EXAMPLE_ENTRIES", "MAX_GRAD_NORM", "FEATURES",
           "CLIP_NORM", "L2"]

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
#: Largest clipping norm C.
MAX_GRAD_NORM = 1e15

ACTIVATION = choice(*ACTIVATIONS)
#: rows of features, one per example (float32 stays float32)
FEATURES = array(ndim=2, low=-MAX_INPUT, high=MAX_INPUT, min_size=0, dtype=np.floating,
                 text=f"a 2-D array (n, d) of finite numbers in [-{MAX_INPUT:g}, {MAX_INPUT:g}]")
#: the gradient of a loss with respect to the outputs, one row per example
OUTPUT_GRADIENT = FEATURES
#: the clipping norm C of DP-SGD
CLIP_NORM = real(1e-6, MAX_GRAD_NORM)
#: the coefficient of an L2 penalty (l2/2)‖W‖²
L2 = real(0.0, 1e3, example=0.01)
_SIZES = array(ndim=1, min_size=2, max_size=MAX_LAYERS, low=1, high=MAX_WIDTH, integers=True)


#: (d_0, d_1, …, d_L): inputs, hidden layers, outputs
LAYER_SIZES = Domain(f"2 to {MAX_LAYERS} layer widths (inputs, hidden layers, outputs), each "
                     f"an integer in [1, {MAX_WIDTH}], at most {MAX_PARAMS:,} weights and biases "
                     "in all", lambda name, value: _layer_sizes(name, value), example=(3, 2),
                     edges=[(1, 1), (MAX_WIDTH, 1), (1,) * MAX_LAYERS],
                     bad=[(3,), (3, 0), (0, 2), (3, 2.5), "32", 3, None, (3,) * (MAX_LAYERS + 1),
                          (MAX_WIDTH, MAX_WIDTH)])


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


CACHE = instance_of(ForwardCache, "the ForwardCache of this network's forward()")
TRACE = instance_of(BackwardTrace, "the BackwardTrace of a Network's trace()")


@validate(layer_sizes=LAYER_SIZES, activation=ACTIVATION, l2=L2,
          dtype=choice("float64", "float32"), rng=RNG)
class Network:
    """A dense network: a backward pass from any loss, and per-example gradients for DP-SGD.

    ``layer_sizes = (d_0, …, d_L)``: d_0 inputs, hidden layers d_1 … d_{L-1} with
    activation ``activation``, d_L linear outputs. As a classifier (DP-SGD) the outputs are
    logits fed to a softmax, and the objective on n examples is

        J(θ) = (1/n) Σ_i ℓ_i(θ) + (l2/2) Σ_l ‖W_l‖_F²,

    with ℓ_i the cross-entropy of example i; biases are not penalised. ``dtype`` is float64
    for gradient checks, float32 for speed; ``rng`` draws the initial weights
    (:func:`init_dense_layers`).

    Attributes
    ----------
    params : list of arrays
        [W_0, b_0, W_1, b_1, …]: the arrays themselves, updated in place.
    """

    def __init__(self, layer_sizes, activation: str = "relu", l2: float = 0.0,
                 dtype: str = "float64", rng=None):
        self.layer_sizes, self.activation, self.l2 = layer_sizes, activation, l2
        self._act, self._act_grad = _ACTIVATION_FUNCTIONS[activation]
        weights, biases = init_dense_layers.__wrapped__(layer_sizes, activation, dtype, rng)
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
    @validate(X=FEATURES)
    def forward(self, X):
        """The outputs (n, d_L) of X (n, d_0) and what :meth:`backward` needs: ``(out, cache)``.

        At most :data:`MAX_ACTIVATIONS` / Σ_l d_l rows (pass mini-batches).
        """
        return self._outputs(X, cached=True)

    def __call__(self, X) -> np.ndarray:
        """The outputs for ``X`` (checked), shape (n, d_L)."""
        return self.logits(X)

    @validate(cache=CACHE, grad_out=OUTPUT_GRADIENT, input_grad=FLAG)
    def backward(self, cache: ForwardCache, grad_out, *, input_grad: bool = True):
        """Back-propagate G = ∂L/∂out to the parameters and the input: ``(grads, grad_X)``.

        ``cache`` comes from :meth:`forward`; ``grad_out`` (n, d_L) is ∂L/∂out for whatever
        scalar loss L the caller has (e.g. a loss of :mod:`~dpteach.learning.optim`).
        ``grads`` = [A_lᵀ Δ_l, Σ_rows Δ_l, …] is aligned with :attr:`params`; ``grad_X`` =
        Δ_0 W_0ᵀ goes on to the network that produced X (None with ``input_grad=False``).
        """
        shapes = [(grad_out.shape[0], d) for d in self.layer_sizes]
        if _shapes(cache.inputs) + [grad_out.shape] != shapes:
            raise refuse("cache, grad_out", grad_out.shape, f"of shapes {shapes}")
        with np.errstate(over="ignore", invalid="ignore"):     # refused below, by name
            grads, grad_X = self._backward(cache, grad_out.astype(self.dtype, copy=False),
                                           input_grad)
        _refuse_overflow("backward", grads + [grad_X], "grad_out")
        return grads, grad_X

    def _forward(self, X):
        """:meth:`forward` without the checks (the library's training loops call it)."""
        inputs, h = [], X
        last = len(self.params) - 2
        for l in range(0, len(self.params), 2):
            inputs.append(h)
            z = h @ self.params[l]
            z += self.params[l + 1]
            h = z if l == last else self._act(z)
        return h, ForwardCache(inputs)

    def _backward(self, cache, grad_out, input_grad=True):
        """:meth:`backward` without the checks (the library's training loops call it)."""
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
    @validate(X=FEATURES, y=CLASS_INDICES)
    def trace(self, X, y) -> BackwardTrace:
        """One forward and backward pass of the per-example cross-entropies ℓ_i.

        Back-propagates G = ∂ℓ_i/∂z_L = softmax(z_i) − onehot(y_i) row by row (not divided
        by n), so that the trace holds each example's own errors Δ_l. ``y`` holds class
        indices in [0, d_L − 1]; at most :data:`MAX_ACTIVATIONS` / Σ_l d_l rows.
        """
        return self._trace(*self._batch(X, y, cached=True))

    def _trace(self, X, y) -> BackwardTrace:
        """:meth:`trace` without the checks (DP-SGD's training loop calls it)."""
        logits, cache = self._forward(X)
        losses, G = _cross_entropy_rows(logits, y)
        return BackwardTrace(cache.inputs, self._errors(cache.inputs, G), losses)

    @validate(X=FEATURES)
    def logits(self, X) -> np.ndarray:
        """The outputs z_L before the softmax, shape (n, d_L)."""
        return self._outputs(X, cached=False)[0]

    @validate(X=FEATURES)
    def predict_proba(self, X) -> np.ndarray:
        """Softmax class probabilities, shape (n, d_L)."""
        return softmax.__wrapped__(self._outputs(X, cached=False)[0])

    @validate(X=FEATURES, y=CLASS_INDICES)
    def per_example_losses(self, X, y) -> np.ndarray:
        """The cross-entropy ℓ_i = −log softmax(z_i)[y_i] of each example (no penalty)."""
        X, y = self._batch(X, y)
        return _cross_entropy_rows(self._forward(X)[0], y)[0]

    @validate(X=FEATURES, y=CLASS_INDICES)
    def loss(self, X, y) -> float:
        """The objective J(θ): mean cross-entropy plus (l2/2) Σ‖W_l‖² (0 examples: the penalty)."""
        penalty = 0.5 * self.l2 * sum(float(np.sum(W * W)) for W in self.weights)
        losses = self.per_example_losses(X, y)
        return float(np.sum(losses) / max(losses.size, 1)) + penalty

    @validate(X=FEATURES, y=CLASS_INDICES)
    def gradient(self, X, y) -> list:
        """Gradient of the objective J(θ) (mean loss + L2 penalty), aligned with :attr:`params`."""
        trace = self.trace(X, y)
        n = trace.losses.shape[0]
        c = np.full(n, 1.0 / max(n, 1), dtype=self.dtype)
        return self._add_l2(_weighted_sum(trace.inputs, trace.errors, c))

    # --------------------------------------- per-example gradients from the pairs (A_l, Δ_l)
    @staticmethod
    @validate(trace=TRACE)
    def per_example_gradients_from(trace: BackwardTrace) -> list:
        """Materialise ∇ℓ_i for every example: [(n, *W_0.shape), (n, *b_0.shape), …].

        ∂ℓ_i/∂W_l = a_{l,i} δ_{l,i}ᵀ and ∂ℓ_i/∂b_l = δ_{l,i}. Memory n × #parameters:
        fine for teaching and tests, the thing DP libraries avoid; at most
        :data:`MAX_PER_EXAMPLE_ENTRIES` numbers (pass fewer rows).
        """
        n, cap = trace.losses.shape[0], MAX_PER_EXAMPLE_ENTRIES
        size = n * sum(A.shape[1] * D.shape[1] + D.shape[1]
                       for A, D in zip(trace.inputs, trace.errors))
        if size > cap:
            raise refuse("trace size", size, f"≤ {cap:,} numbers (pass fewer rows)")
        out = []
        for A, D in zip(trace.inputs, trace.errors):
            out += [np.einsum("ni,nj->nij", A, D), D.copy()]
        return out

    @validate(X=FEATURES, y=CLASS_INDICES)
    def per_example_gradients(self, X, y) -> list:
        """Per-example gradients of the cross-entropies ℓ_i (without the L2 penalty).

        A list aligned with :attr:`params`; entry k has shape ``(n, *params[k].shape)``.
        """
        return self.per_example_gradients_from(self.trace(X, y))

    @staticmethod
    @validate(trace=TRACE)
    def per_example_grad_norms_from(trace: BackwardTrace) -> np.ndarray:
        """‖∇ℓ_i‖₂ over all parameters, from the pairs (A_l, Δ_l) alone [G15]_.

        ‖∇ℓ_i‖² = Σ_l ‖a_{l,i}‖² ‖δ_{l,i}‖² + ‖δ_{l,i}‖²: no gradient is materialised.
        """
        return _ghost_norms(trace.inputs, trace.errors)

    @validate(X=FEATURES, y=CLASS_INDICES)
    def per_example_grad_norms(self, X, y) -> np.ndarray:
        """The norm ‖∇ℓ_i‖₂ of each example's gradient (all parameters), shape (n,)."""
        return self.per_example_grad_norms_from(self.trace(X, y))

    @staticmethod
    @validate(trace=TRACE, weights=array(ndim=1, low=-1e15, high=1e15, min_size=0))
    def weighted_gradient_sum(trace: BackwardTrace, weights) -> list:
        """Σ_i c_i ∇ℓ_i as one matrix product per layer: A_lᵀ diag(c) Δ_l and Δ_lᵀ c [LK21]_.

        With c_i the clipping factors this is the clipped sum of DP-SGD; with c_i = 1 the
        ordinary gradient sum. ``weights`` holds one number c_i per example of ``trace``.
        """
        if weights.shape != trace.losses.shape:
            raise refuse("weights.shape", weights.shape, f"{trace.losses.shape}, one per example")
        c = weights.astype(trace.errors[0].dtype, copy=False)
        return _weighted_sum(trace.inputs, trace.errors, c)

    @staticmethod
    @validate(trace=TRACE, max_grad_norm=CLIP_NORM.or_none())
    def clipped_gradient_sum(trace: BackwardTrace, max_grad_norm: float | None):
        """The clipped gradient sum of DP-SGD from the pairs (A_l, Δ_l) of one backward pass.

        Returns ``(grads, norms, factors)``: the per-example norms ‖∇ℓ_i‖, the factors
        c_i = min(1, C/‖∇ℓ_i‖) ([ACG16]_ Algorithm 1) and Σ_i c_i ∇ℓ_i = A_lᵀ diag(c) Δ_l per
        layer, aligned with :attr:`params`, without materialising any per-example gradient
        [LK21]_. With ``max_grad_norm=None`` there is no clipping: c_i = 1, norms None.
        """
        A, D = trace.inputs, trace.errors
        if max_grad_norm is None:
            return _weighted_sum(A, D, None), None, np.ones(D[0].shape[0], dtype=D[0].dtype)
        norms = _ghost_norms(A, D)                                        # ‖∇ℓ_i‖
        c = _clip(norms.astype(np.float64), max_grad_norm).astype(norms.dtype, copy=False)
        return _weighted_sum(A, D, c), norms, c                           # Σ_i c_i ∇ℓ_i

    # ------------------------------------------------------------------------- updates
    @validate(grads=GRADS)
    def add_l2_gradient(self, grads: list) -> list:
        """Add the penalty's gradient l2·W_l to the weight entries of ``grads`` (in place).

        ``grads`` is a list of arrays aligned with :attr:`params`.
        """
        return self._add_l2(self._aligned(grads))

    @validate(grads=GRADS, learning_rate=LEARNING_RATE)
    def apply_update(self, grads: list, learning_rate: float) -> None:
        """θ ← θ − learning_rate · grads (in place); ``grads`` aligned with :attr:`params`."""
        self._apply(self._aligned(grads), learning_rate)

    def _add_l2(self, grads: list) -> list:
        """:meth:`add_l2_gradient` without the checks."""
        if self.l2:
            for l, W in enumerate(self.weights):
                grads[2 * l] += self.l2 * W
        return grads

    def _apply(self, grads: list, learning_rate: float) -> None:
        """:meth:`apply_update` without the checks (DP-SGD's training loop calls it)."""
        for p, g in zip(self.params, grads):
            p -= (learning_rate * g).astype(self.dtype, copy=False)

    def copy(self) -> Network:
        """A deep copy (parameters copied)."""
        new = object.__new__(Network)
        new.__dict__.update(self.__dict__)
        new.params = [p.copy() for p in self.params]
        return new

    def __repr__(self) -> str:
        return (f"Network(layer_sizes={self.layer_sizes}, activation={self.activation!r}, "
                f"l2={self.l2}, dtype={self.dtype.name!r})")

    # --------------------------------------------------- rules tying inputs to this network
    def _batch(self, X, y=None, cached=False):
        """X in this network's dtype and y as indices, once their shapes fit the network."""
        d, k, n = self.layer_sizes[0], self.layer_sizes[-1], X.shape[0]
        rows = MAX_ACTIVATIONS // sum(self.layer_sizes) if cached else n
        if X.shape[1] != d or n > rows:
            raise refuse("X.shape", X.shape, f"(n ≤ {rows:,}, {d}) (pass batches)")
        if y is not None and (y.shape != (n,) or y.max(initial=0) >= k):
            raise refuse("y", y, f"{n} classes in [0, {k}), one per row of X")
        return X.astype(self.dtype, copy=False), None if y is None else y.astype(np.intp)

    def _outputs(self, X, cached):
        X = self._batch(X, cached=cached)[0]
        with np.errstate(over="ignore", invalid="ignore"):     # refused below, by name
            out, cache = self._forward(X)
        _refuse_overflow("forward", [out], "X")
        return out, cache

    def _aligned(self, grads: list) -> list:
        if _shapes(grads) != _shapes(self.params):
            raise refuse("grads' shapes", _shapes(grads), f"those of params {_shapes(self.params)}")
        return grads


@validate(norms=array(ndim=1, low=0, min_size=0), max_grad_norm=CLIP_NORM)
def clip_factors(norms, max_grad_norm: float) -> np.ndarray:
    """Per-example clipping factors c_i = min(1, C / ‖g_i‖).

    Multiplying g_i by c_i gives g_i / max(1, ‖g_i‖ / C), the clipping of [ACG16]_
    (Algorithm 1): gradients with norm ≤ C are kept, longer ones are scaled down to norm
    exactly C (a zero gradient keeps c_i = 1).
    """
    return _clip(norms, max_grad_norm)


@validate(activation=ACTIVATION)
def activation_functions(activation: str) -> tuple:
    """The pair (σ, σ') of an activation, σ' written in terms of the OUTPUT h = σ(z).

    * ``"relu"``: σ(z) = max(z, 0), σ'(z) = 1[h > 0] (0 at the kink);
    * ``"tanh"``: σ(z) = tanh z, σ'(z) = 1 − h²;
    * ``"leaky_relu"``: σ(z) = z for z > 0 and :data:`LEAKY_SLOPE` · z otherwise,
      σ'(z) = 1[h > 0] + LEAKY_SLOPE · 1[h ≤ 0].

    Back-propagation only needs σ' at the layer's output, which the forward pass keeps
    anyway [GBC16]_. The two functions act elementwise on float arrays and do not check
    their argument (they are the inner loop of :class:`Network`).
    """
    return _ACTIVATION_FUNCTIONS[activation]


@validate(layer_sizes=LAYER_SIZES, activation=ACTIVATION, dtype=choice("float64", "float32"),
          rng=RNG)
def init_dense_layers(layer_sizes, activation: str = "relu", dtype: str = "float64",
                      rng=None) -> tuple:
    """Initial weights and biases of a dense network: ``(weights, biases)``, two lists.

    W_l has shape (d_l, d_{l+1}) with independent N(0, var) entries, He-normal
    var = 2/d_l for (leaky) ReLU and Glorot-normal var = 2/(d_l + d_{l+1}) for tanh
    ([GBC16]_ Sec. 8.4); biases are zero. The draws are made in float64 layer by layer and
    then cast to ``dtype``, so a seed gives the same network in both dtypes.
    """
    weights, biases = [], []
    for d_in, d_out in zip(layer_sizes[:-1], layer_sizes[1:]):
        var = 2.0 / (d_in + d_out) if activation == "tanh" else 2.0 / d_in
        W = rng.standard_normal((d_in, d_out)) * np.sqrt(var)
        weights.append(W.astype(dtype))
        biases.append(np.zeros(d_out, dtype=dtype))
    return weights, biases


# ------------------------------------------------------------------- private helpers
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


def _clip(norms: np.ndarray, C: float) -> np.ndarray:
    """min(1, C/‖g_i‖) (C/‖g‖ below the float range is 0)."""
    return C / np.maximum(norms, C)


def _refuse_overflow(what: str, arrays: list, name: str) -> None:
    if not all(np.isfinite(a).all() for a in arrays if a is not None):
        raise refuse(f"{name} ({what} pass)", "overflowed", "finite (did the parameters diverge?)")


def _shapes(arrays: list) -> list:
    return [getattr(a, "shape", None) for a in arrays]


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


def _layer_sizes(name, value) -> tuple:
    sizes = tuple(int(s) for s in _SIZES(name, value))
    if sum(a * b + b for a, b in zip(sizes[:-1], sizes[1:])) > MAX_PARAMS:
        raise LAYER_SIZES.refuse(name, value)
    return sizes


# Implementation notes (timings, why the code is shaped so): docs/library/learning.md.
