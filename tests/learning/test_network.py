"""Tests for dpteach.learning.network: the backward pass from any loss (finite differences
for parameters and inputs, chained networks as LAFTR uses them) and the classifier's
per-example quantities (per-example gradients against finite differences of each example's
loss, ghost norms and the clipped sum against the materialised per-example gradients and
against a loop over single examples)."""

import numpy as np
import pytest
from _props import NOT_A_NUMBER, NON_FINITE_ARRAYS, assert_rejects_bad_values

from dpteach._validation import ParameterError
from dpteach.learning.network import (
    ForwardCache,
    Network,
    activation_functions,
    clip_factors,
    init_dense_layers,
)
from dpteach.learning.optim import (
    binary_cross_entropy_with_logits,
    gradient_check,
    group_normalized_l1,
    softmax,
)

# Central differences with h = 1e-6 in float64: truncation error O(h² f''') ≈ 1e-12 and
# rounding error ≈ ε_mach |f| / h ≈ 1e-10 relative to gradients of order 1, so a relative
# error below 1e-6 leaves four orders of magnitude of margin and still catches any real
# mistake (a wrong sign, factor or index gives errors of order 1).
TOL = 1e-6
ACTIVATIONS = ("relu", "tanh", "leaky_relu")


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _softmax_cross_entropy(logits, y):
    """Test oracle (moved here from dpteach.learning.optim, which only the tests used): the
    mean cross-entropy −log softmax(z_i)[y_i] of class indices y and its gradient
    (softmax(z) − onehot(y))/n with respect to the logits, the log-softmax computed stably."""
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    n, rows = len(y), np.arange(len(y))
    grad = np.exp(logp)
    grad[rows, y] -= 1.0
    return float(-np.sum(logp[rows, y]) / n), grad / n


def _preactivations(net, X):
    """The hidden pre-activations z_0 … z_{L-2} (recomputed by hand)."""
    out, h = [], X
    for l in range(0, len(net.params) - 2, 2):
        z = h @ net.params[l] + net.params[l + 1]
        out.append(z)
        h = activation_functions(net.activation)[0](z)
    return out


def _away_from_kinks(net, X, margin=1e-4):
    # ReLU/leaky ReLU are not differentiable at 0. A step h = 1e-6 in one parameter or
    # input moves a pre-activation by at most h·(|input| + downstream |weights|) ≈ 1e-5
    # here, so a margin of 1e-4 keeps every unit on the same side during the check.
    if net.activation == "tanh":
        return True
    return all(np.abs(z).min() > margin for z in _preactivations(net, X))


# -------------------------------------------------------------------- the network
@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("sizes", [(4, 3), (4, 6, 2), (4, 5, 6, 1)])
def test_backward_matches_finite_differences(activation, sizes):
    rng = np.random.default_rng(len(sizes))
    X = rng.standard_normal((6, sizes[0]))
    R = rng.standard_normal((6, sizes[-1]))
    net = Network(sizes, activation=activation, rng=3)
    assert _away_from_kinks(net, X)

    def loss():                                         # L = Σ R ⊙ out + ½ Σ out²
        out = net(X)
        return float(np.sum(R * out) + 0.5 * np.sum(out * out))

    out, cache = net.forward(X)
    grads, grad_X = net.backward(cache, R + out)
    assert [g.shape for g in grads] == [p.shape for p in net.params]
    assert grad_X.shape == X.shape
    assert gradient_check(loss, net.params, grads, n_checks=1000) < TOL
    assert gradient_check(loss, [X], [grad_X], n_checks=1000) < TOL
    # the fast path gives the same numbers; input_grad=False drops only grad_X
    out2, cache2 = net._forward(X)
    grads2, none = net._backward(cache2, R + out2, input_grad=False)
    assert none is None
    for g, g2 in zip(grads, grads2):
        np.testing.assert_array_equal(g, g2)


def test_float32_network_follows_float64():
    rng = np.random.default_rng(5)
    X, G = rng.standard_normal((10, 3)), rng.standard_normal((10, 2))
    n64 = Network((3, 4, 2), activation="tanh", rng=0)
    n32 = Network((3, 4, 2), activation="tanh", dtype="float32", rng=0)
    out32, c32 = n32.forward(X.astype(np.float32))
    grads32, gX32 = n32.backward(c32, G.astype(np.float32))
    assert out32.dtype == gX32.dtype == np.float32
    assert all(g.dtype == np.float32 for g in grads32)
    out64, c64 = n64.forward(X)
    grads64, gX64 = n64.backward(c64, G)
    # float32 rounding (2^-24 ≈ 6e-8) through a few dozen operations
    np.testing.assert_allclose(out32, out64, rtol=1e-5, atol=1e-6)
    for a, b in zip(grads32 + [gX32], grads64 + [gX64]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    # a float64 input and upstream gradient are cast to the network's dtype
    assert n32.forward(X)[0].dtype == np.float32
    assert n32.backward(c32, G)[1].dtype == np.float32


def test_copy_call_and_sizes():
    net = Network((3, 4, 1), rng=0)
    assert net.n_params == 3 * 4 + 4 + 4 + 1
    twin = net.copy()
    twin.params[0] += 1.0
    assert not np.allclose(twin.params[0], net.params[0])
    X = np.ones((2, 3))
    np.testing.assert_array_equal(net(X), net.forward(X)[0])
    assert net(np.zeros((0, 3))).shape == (0, 1)
    assert "Network(layer_sizes=(3, 4, 1)" in repr(net)
    assert isinstance(net.forward(X)[1], ForwardCache)


# ------------------------------------------------------ the classifier, per example
def _data(n=5, d=4, k=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)), rng.integers(0, k, size=n)


def _rel_err(a, b):
    a, b = np.ravel(a), np.ravel(b)
    denom = np.linalg.norm(a) + np.linalg.norm(b)
    return 0.0 if denom == 0 else np.linalg.norm(a - b) / denom


def _finite_difference_per_example(model, X, y, h=1e-5):
    """Central differences of each example's loss ℓ_i w.r.t. every parameter entry.

    Truncation error O(h² · ℓ''') ≈ 1e-10 and rounding error ≈ 1e-16 / h ≈ 1e-11,
    both far below the 1e-6 relative tolerance.
    """
    out = []
    for p in model.params:
        g = np.zeros((X.shape[0],) + p.shape)
        for idx in np.ndindex(p.shape):
            old = p[idx]
            p[idx] = old + h
            up = model.per_example_losses(X, y)
            p[idx] = old - h
            down = model.per_example_losses(X, y)
            p[idx] = old
            g[(slice(None),) + idx] = (up - down) / (2 * h)
        out.append(g)
    return out


@pytest.mark.parametrize("activation", ["relu", "tanh"])
@pytest.mark.parametrize("sizes", [(4, 3), (4, 6, 3), (4, 5, 6, 3)])
def test_per_example_gradients_match_finite_differences(activation, sizes):
    X, y = _data(n=5, d=sizes[0], k=sizes[-1], seed=len(sizes))
    model = Network(sizes, activation=activation, dtype="float64", rng=1)
    # ReLU is not differentiable at 0: make sure no pre-activation lies within
    # reach of a kink. A step h = 1e-5 in one parameter moves a pre-activation by
    # at most h·max(1, |input|)·(downstream |weights|) ≈ a few × 1e-5 here, so a
    # margin of 1e-4 keeps every ReLU on the same side during the check.
    assert _away_from_kinks(model, X)
    analytic = model.per_example_gradients(X, y)
    numeric = _finite_difference_per_example(model, X, y)
    assert len(analytic) == len(model.params) == 2 * (len(sizes) - 1)
    for g_a, g_n, p in zip(analytic, numeric, model.params):
        assert g_a.shape == (X.shape[0],) + p.shape
        for i in range(X.shape[0]):
            assert _rel_err(g_a[i], g_n[i]) < 1e-6


def test_objective_gradient_with_l2_matches_finite_differences():
    X, y = _data(n=7, d=4, k=3, seed=3)
    model = Network((4, 5, 3), activation="tanh", l2=0.3, dtype="float64", rng=2)
    grads = model.gradient(X, y)
    assert gradient_check(lambda: model.loss(X, y), model.params, grads, eps=1e-5,
                          n_checks=1000) < 1e-6


def test_mean_of_per_example_gradients_is_the_gradient():
    X, y = _data(n=9, d=4, k=3, seed=4)
    model = Network((4, 8, 3), rng=0)
    per = model.per_example_gradients(X, y)
    for g_mean, g in zip([p.mean(axis=0) for p in per], model.gradient(X, y)):
        np.testing.assert_allclose(g_mean, g, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("n,k", [(1, 2), (5, 3), (8, 1)])
def test_softmax_cross_entropy_gradient_and_value(n, k):
    rng = np.random.default_rng(k)
    z = rng.standard_normal((n, k)) * 2
    y = rng.integers(0, k, size=n)
    value, grad = _softmax_cross_entropy(z, y)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(value, -np.mean(np.log(p[np.arange(n), y])), rtol=1e-12)
    assert gradient_check(lambda: _softmax_cross_entropy(z, y)[0], [z], [grad]) < TOL
    z32 = z.astype(np.float32)
    assert _softmax_cross_entropy(z32, y)[1].dtype == np.float32


def test_the_oracle_log_softmax_is_stable():
    z = np.array([[1.0, -2.0, 0.5], [1000.0, 0.0, -1000.0]])
    value, grad = _softmax_cross_entropy(z, np.array([0, 2]))
    np.testing.assert_allclose(grad * 2 + np.array([[1.0, 0, 0], [0, 0, 1.0]]), softmax(z),
                               rtol=1e-14)
    assert value == pytest.approx((-np.log(softmax(z)[0, 0]) + 2000.0) / 2, rel=1e-14)


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_classifier_trace_is_the_backward_pass_of_the_mean_cross_entropy(activation):
    # one backward recursion for both uses: the per-example trace summed with weights 1/n
    # (Network.gradient) is backward(cache, ∂ mean CE/∂ logits) of the general pass
    rng = np.random.default_rng(4)
    X, y = rng.standard_normal((9, 4)), rng.integers(0, 3, 9)
    net = Network((4, 5, 3), activation=activation, rng=7)
    logits, cache = net.forward(X)
    np.testing.assert_array_equal(logits, net.logits(X))
    value, g = _softmax_cross_entropy(logits, y)
    assert value == pytest.approx(net.loss(X, y), rel=1e-14)
    for a, b in zip(net.backward(cache, g)[0], net.gradient(X, y)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
    trace = net.trace(X, y)
    np.testing.assert_allclose(trace.losses.mean(), value, rtol=1e-14)
    for A, B in zip(trace.inputs, cache.inputs):
        np.testing.assert_array_equal(A, B)


@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_ghost_norms_equal_materialised_norms(activation):
    X, y = _data(n=20, d=6, k=4, seed=5)
    model = Network((6, 7, 5, 4), activation=activation, rng=3)
    per = model.per_example_gradients(X, y)
    flat = np.concatenate([g.reshape(len(X), -1) for g in per], axis=1)
    np.testing.assert_allclose(model.per_example_grad_norms(X, y),
                               np.linalg.norm(flat, axis=1), rtol=1e-12)


def test_ghost_clipped_sum_equals_materialised_clipped_sum():
    X, y = _data(n=30, d=6, k=4, seed=6)
    model = Network((6, 16, 4), rng=4)
    trace = model.trace(X, y)
    norms = model.per_example_grad_norms_from(trace)
    C = float(np.median(norms))           # clip about half the examples
    c = clip_factors(norms, C)
    assert 0 < np.sum(c < 1) < len(X)
    ghost = model.weighted_gradient_sum(trace, c)
    per = model.per_example_gradients_from(trace)
    for g_ghost, g_per in zip(ghost, per):
        clipped = g_per * c.reshape((-1,) + (1,) * (g_per.ndim - 1))
        np.testing.assert_allclose(g_ghost, clipped.sum(axis=0), rtol=1e-12, atol=1e-14)
    # each clipped per-example gradient has norm min(‖g_i‖, C)
    flat = np.concatenate([(g * c.reshape((-1,) + (1,) * (g.ndim - 1))).reshape(len(X), -1)
                           for g in per], axis=1)
    np.testing.assert_allclose(np.linalg.norm(flat, axis=1), np.minimum(norms, C), rtol=1e-12)


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_one_pass_norms_and_clipped_sum_equal_a_loop_over_single_examples(activation):
    # clipped_gradient_sum, DP-SGD's step, computes the norms and the clipped sum from the
    # same per-layer pairs (A_l, Δ_l) of ONE backward pass. The reference knows nothing of
    # that structure: the gradient of each example's own loss, one example at a time
    # (Network.gradient of a batch of one is ∇ℓ_i when l2 = 0), then its norm, its factor
    # min(1, C/‖∇ℓ_i‖) and the sum. float64: both sides agree to rounding (~1e-15).
    X, y = _data(n=25, d=5, k=3, seed=11)
    X[::4] *= 6.0                                   # some long gradients, some short
    net = Network((5, 9, 6, 3), activation=activation, rng=12)
    loop = [net.gradient(X[i:i + 1], y[i:i + 1]) for i in range(len(X))]
    ref_norms = np.array([np.sqrt(sum(np.sum(g * g) for g in gi)) for gi in loop])
    C = float(np.quantile(ref_norms, 0.6))
    ref_c = np.minimum(1.0, C / ref_norms)
    ref_sum = [sum(c * gi[k] for c, gi in zip(ref_c, loop)) for k in range(len(net.params))]
    assert 0 < np.sum(ref_norms > C) < len(X)
    grads, norms, c = Network.clipped_gradient_sum(net.trace(X, y), C)
    np.testing.assert_allclose(norms, ref_norms, rtol=1e-12)
    np.testing.assert_allclose(c, ref_c, rtol=1e-12)
    for g, r in zip(grads, ref_sum):
        np.testing.assert_allclose(g, r, rtol=1e-11, atol=1e-14)
    # without clipping: the plain gradient sum, factors 1 and no norms
    grads, norms, c = Network.clipped_gradient_sum(net.trace(X, y), None)
    assert norms is None and np.all(c == 1)
    for g, gi in zip(grads, zip(*loop)):
        np.testing.assert_allclose(g, sum(gi), rtol=1e-11, atol=1e-14)


def test_float32_model_agrees_with_float64():
    X, y = _data(n=10, d=5, k=3, seed=7)
    m64 = Network((5, 8, 3), rng=5)
    m32 = Network((5, 8, 3), dtype="float32", rng=5)      # the same draws, rounded
    n32 = m32.per_example_grad_norms(X, y)
    assert n32.dtype == np.float32
    np.testing.assert_allclose(n32, m64.per_example_grad_norms(X, y), rtol=1e-5)
    grads, norms, c = Network.clipped_gradient_sum(m32.trace(X, y), 1.0)
    assert all(g.dtype == np.float32 for g in grads) and c.dtype == np.float32


def test_loss_of_uniform_prediction_is_log_k():
    model = Network((3, 4), rng=0)
    for W in model.weights:
        W[:] = 0
    X, y = _data(n=6, d=3, k=4)
    np.testing.assert_allclose(model.per_example_losses(X, y), np.log(4))


def test_update_moves_downhill():
    X, y = _data(n=50, d=4, k=3, seed=8)
    model = Network((4, 10, 3), rng=0)
    before = model.loss(X, y)
    model.apply_update(model.gradient(X, y), 0.1)
    assert model.loss(X, y) < before


def test_clip_factors():
    c = clip_factors([0.0, 0.5, 1.0, 4.0], 1.0)
    np.testing.assert_allclose(c, [1.0, 1.0, 1.0, 0.25])


def test_unchecked_trace_is_the_same_pass():
    model = Network((3, 4, 2), dtype="float32", rng=0)
    X = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    y = np.array([0, 1, 1, 0, 1])
    checked, unchecked = model.trace(X, y), model._trace(X, y)
    for a, b in zip(checked.errors + checked.inputs + [checked.losses],
                    unchecked.errors + unchecked.inputs + [unchecked.losses]):
        np.testing.assert_array_equal(a, b)


# ------------------------------------------------------------------- LAFTR-style chains
def _laftr_setup(seed=0, n=12, d=5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = rng.integers(0, 2, n)
    a = np.tile([0, 1], n // 2)
    encoder = Network((d, 6, 3), activation="tanh", rng=seed + 1)
    classifier = Network((3, 4, 1), activation="tanh", rng=seed + 2)
    adversary = Network((4, 4, 1), activation="tanh", rng=seed + 3)   # sees (Z, y): EO
    return X, y, a, encoder, classifier, adversary


def test_encoder_classifier_chain_matches_finite_differences():
    X, y, _, encoder, classifier, _ = _laftr_setup()

    def loss():
        return binary_cross_entropy_with_logits(classifier(encoder(X)), y)[0]

    Z, enc_cache = encoder.forward(X)
    logits, cls_cache = classifier.forward(Z)
    _, g = binary_cross_entropy_with_logits(logits, y)
    cls_grads, g_Z = classifier.backward(cls_cache, g)
    enc_grads, _ = encoder.backward(enc_cache, g_Z, input_grad=False)
    assert gradient_check(loss, encoder.params, enc_grads, n_checks=1000) < TOL
    assert gradient_check(loss, classifier.params, cls_grads, n_checks=1000) < TOL


@pytest.mark.parametrize("gamma", [0.0, 1.0, 3.0])
def test_adversarial_objective_chain_matches_finite_differences(gamma):
    # L = CE(g(f(X)), y) − γ·(2 − Σ_cells mean |h(f(X), y) − a|), the LAFTR-EO objective
    # the encoder minimises; the adversary's input is the concatenation (Z, y).
    X, y, a, encoder, classifier, adversary = _laftr_setup(seed=3)
    cells = 2 * a + y

    def objective():
        Z = encoder(X)
        ce = binary_cross_entropy_with_logits(classifier(Z), y)[0]
        h = _sigmoid(adversary(np.c_[Z, y]))
        return ce - gamma * (2.0 - group_normalized_l1(h, a, cells)[0])

    Z, enc_cache = encoder.forward(X)
    logits, cls_cache = classifier.forward(Z)
    _, g_logits = binary_cross_entropy_with_logits(logits, y)
    _, g_Z_cls = classifier.backward(cls_cache, g_logits)
    adv_logits, adv_cache = adversary.forward(np.c_[Z, y])
    h = _sigmoid(adv_logits)
    _, g_h = group_normalized_l1(h, a, cells)
    # ∂L/∂h = +γ ∂(Σ mean|h − a|)/∂h; through the sigmoid: · h(1 − h)
    adv_grads, g_in = adversary.backward(adv_cache, gamma * g_h * h * (1 - h))
    enc_grads, _ = encoder.backward(enc_cache, g_Z_cls + g_in[:, :3])
    assert gradient_check(objective, encoder.params, enc_grads, n_checks=1000) < TOL
    if gamma:
        assert gradient_check(objective, adversary.params, adv_grads, n_checks=1000) < TOL


# ------------------------------------------------------ activations, initialisation
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_activation_derivative_from_output_matches_finite_differences(activation):
    act, act_grad = activation_functions(activation)
    z = np.array([-2.0, -0.3, 0.2, 1.5])               # away from the kink at 0
    h = 1e-6
    numeric = (act(z + h) - act(z - h)) / (2 * h)
    np.testing.assert_allclose(act_grad(act(z)), numeric, rtol=1e-8)
    assert act_grad(act(z.astype(np.float32))).dtype == np.float32


def test_init_and_layer_sizes():
    weights, biases = init_dense_layers((3, 4, 2), "leaky_relu", "float32", rng=0)
    relu_w, _ = init_dense_layers((3, 4, 2), "relu", "float64", rng=0)
    # leaky ReLU uses the He scale as ReLU; float32 is the float64 draw rounded
    for W, V in zip(weights, relu_w):
        assert W.dtype == np.float32
        np.testing.assert_array_equal(W, V.astype(np.float32))
    assert all(not b.any() for b in biases)
    assert Network([3, np.int64(4), 1]).layer_sizes == (3, 4, 1)


def test_network_pickles_with_its_activation():
    import pickle
    X = np.linspace(-1, 1, 6).reshape(2, 3)
    for activation in ACTIVATIONS:
        net = Network((3, 4, 1), activation, rng=0)
        np.testing.assert_array_equal(pickle.loads(pickle.dumps(net))(X), net(X))


# ------------------------------------------------------------------------- bad input
def test_bad_layer_sizes():
    with pytest.raises(ValueError, match="layer_sizes"):
        Network((3,))
    with pytest.raises(ValueError, match="layer_sizes"):
        Network((3, 0, 2))
    with pytest.raises(TypeError, match="layer_sizes"):
        Network("34")
    with pytest.raises(TypeError, match="layer_sizes"):
        Network((3, 2.5, 2))
    with pytest.raises(ValueError, match="layer_sizes"):
        Network((100_000, 100_000, 2))                      # 10^10 parameters


def test_bad_choices():
    with pytest.raises(ValueError, match="activation"):
        Network((3, 2), activation="sigmoid")
    with pytest.raises(ValueError, match="dtype"):
        Network((3, 2), dtype="float16")


def test_bad_l2_property():
    from _props import NOT_POSITIVE_FINITE
    import hypothesis.strategies as st
    bad = st.one_of(NOT_A_NUMBER, NOT_POSITIVE_FINITE.filter(lambda v: not v == 0))
    assert_rejects_bad_values(Network, {"layer_sizes": (3, 2)}, "l2", bad)


def test_bad_X_and_y():
    model = Network((3, 2), rng=0)
    assert_rejects_bad_values(lambda X: model.per_example_losses(X, [0]), {"X": [[1.0, 2, 3]]},
                              "X", NON_FINITE_ARRAYS)
    with pytest.raises(ValueError, match="X"):
        model.per_example_losses(np.ones((2, 4)), [0, 1])
    with pytest.raises(ValueError, match="y"):
        model.per_example_losses(np.ones((2, 3)), [0, 2])
    with pytest.raises(ValueError, match="y"):
        model.per_example_losses(np.ones((2, 3)), [0])
    with pytest.raises(ValueError, match="y"):
        model.per_example_losses(np.ones((2, 3)), [0.5, 1.0])


def test_bad_clip_inputs():
    with pytest.raises(ValueError, match="max_grad_norm"):
        clip_factors([1.0], 0.0)
    with pytest.raises(ValueError, match="norms"):
        clip_factors([-1.0], 1.0)


def test_gradient_lists_and_weights_are_checked():
    model = Network((3, 2), rng=0)
    grads = model.gradient(np.ones((2, 3)), [0, 1])
    with pytest.raises(TypeError, match="grads"):
        model.apply_update([g.astype(complex) for g in grads], 0.1)
    with pytest.raises(ValueError, match="grads"):
        model.add_l2_gradient([g.T for g in grads])
    with pytest.raises(ValueError, match="learning_rate"):
        model.apply_update(grads, 0.0)
    trace = model.trace(np.ones((2, 3)), [0, 1])
    with pytest.raises(ValueError, match="weights"):
        model.weighted_gradient_sum(trace, [1.0])
    with pytest.raises(TypeError, match="trace"):
        Network.per_example_grad_norms_from("trace")
    with pytest.raises(ValueError, match="max_grad_norm"):
        Network.clipped_gradient_sum(trace, 0.0)


def test_huge_inputs_and_too_many_rows_are_refused_by_name():
    # (moved from the hand-written edge file) the edges of X's domain, and the cap on the
    # rows whose activations a forward pass caches
    net = Network((3, 4, 2), activation="tanh", rng=0)
    with pytest.raises(ParameterError, match="X"):
        net.forward(np.full((2, 3), 1e16))
    with pytest.raises(ParameterError, match="logits"):
        binary_cross_entropy_with_logits([1e300], [1.0])
    from dpteach.learning.network import MAX_ACTIVATIONS
    with pytest.raises(ParameterError, match="X"):
        net.forward(np.zeros((MAX_ACTIVATIONS // 9 + 1, 3)))


def test_a_diverged_network_is_reported_not_propagated():
    net = Network((3, 4, 2), activation="tanh", rng=0)
    net.params[0][:] = 1e3                      # as if training had blown up: the hidden
    net.params[2][:] = 1e308                    # units saturate at 1, the output is 4e308
    with pytest.raises(ParameterError, match="overflowed"):
        net.forward(np.ones((2, 3)))
