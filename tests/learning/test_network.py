"""Tests for dpteach.learning.network: finite-difference checks of every loss and of the
backward pass (parameters and inputs), chained networks as LAFTR uses them, Adam against a
hand computation and on a quadratic, and agreement with nn.MLP."""

import numpy as np
import pytest

from dpteach._validation import ParameterError
from dpteach.learning import nn
from dpteach.learning.network import (
    Adam,
    ForwardCache,
    Network,
    binary_cross_entropy_with_logits,
    gradient_check,
    group_normalized_l1,
    softmax_cross_entropy,
    squared_error,
)

# Central differences with h = 1e-6 in float64: truncation error O(h² f''') ≈ 1e-12 and
# rounding error ≈ ε_mach |f| / h ≈ 1e-10 relative to gradients of order 1, so a relative
# error below 1e-6 leaves four orders of magnitude of margin and still catches any real
# mistake (a wrong sign, factor or index gives errors of order 1).
TOL = 1e-6
ACTIVATIONS = ("relu", "tanh", "leaky_relu")


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _preactivations(net, X):
    """The hidden pre-activations z_0 … z_{L-2} (recomputed by hand)."""
    out, h = [], X
    for l in range(0, len(net.params) - 2, 2):
        z = h @ net.params[l] + net.params[l + 1]
        out.append(z)
        h = nn.activation_functions(net.activation)[0](z)
    return out


def _away_from_kinks(net, X, margin=1e-4):
    # ReLU/leaky ReLU are not differentiable at 0. A step h = 1e-6 in one parameter or
    # input moves a pre-activation by at most h·(|input| + downstream |weights|) ≈ 1e-5
    # here, so a margin of 1e-4 keeps every unit on the same side during the check.
    if net.activation == "tanh":
        return True
    return all(np.abs(z).min() > margin for z in _preactivations(net, X))


# ------------------------------------------------------------------------------ losses
@pytest.mark.parametrize("shape", [(1,), (6,), (6, 1)])
def test_binary_cross_entropy_gradient_and_value(shape):
    rng = np.random.default_rng(0)
    z = rng.standard_normal(shape) * 3
    y = rng.integers(0, 2, size=shape[0]).astype(float)
    value, grad = binary_cross_entropy_with_logits(z, y)
    assert isinstance(value, float) and grad.shape == z.shape
    p = _sigmoid(z.reshape(-1))
    np.testing.assert_allclose(value, np.mean(-y * np.log(p) - (1 - y) * np.log(1 - p)),
                               rtol=1e-12)
    assert gradient_check(lambda: binary_cross_entropy_with_logits(z, y)[0], [z], [grad]) < TOL
    # soft labels too
    t = rng.random(shape[0])
    _, g = binary_cross_entropy_with_logits(z, t)
    assert gradient_check(lambda: binary_cross_entropy_with_logits(z, t)[0], [z], [g]) < TOL


def test_binary_cross_entropy_is_stable_for_huge_logits():
    z = np.array([1e15, -1e15, 40.0, -40.0])
    y = np.array([0.0, 1.0, 1.0, 0.0])
    value, grad = binary_cross_entropy_with_logits(z, y)
    # ℓ = max(z,0) − z y + log(1+e^{−|z|}): 1e15, 1e15, ~4e-18, ~4e-18
    np.testing.assert_allclose(value, (2e15 + 2 * np.log1p(np.exp(-40.0))) / 4, rtol=1e-15)
    np.testing.assert_allclose(grad, [0.25, -0.25, (_sigmoid(40.0) - 1) / 4,
                                      _sigmoid(-40.0) / 4], rtol=1e-12, atol=1e-30)
    assert binary_cross_entropy_with_logits([0.0], [1])[0] == pytest.approx(np.log(2.0))


@pytest.mark.parametrize("n,k", [(1, 2), (5, 3), (8, 1)])
def test_softmax_cross_entropy_gradient_and_value(n, k):
    rng = np.random.default_rng(k)
    z = rng.standard_normal((n, k)) * 2
    y = rng.integers(0, k, size=n)
    value, grad = softmax_cross_entropy(z, y)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(value, -np.mean(np.log(p[np.arange(n), y])), rtol=1e-12)
    assert gradient_check(lambda: softmax_cross_entropy(z, y)[0], [z], [grad]) < TOL
    z32 = z.astype(np.float32)
    assert softmax_cross_entropy(z32, y)[1].dtype == np.float32


@pytest.mark.parametrize("shape", [(1,), (7,), (7, 1), (7, 4)])
def test_squared_error_gradient_and_value(shape):
    rng = np.random.default_rng(1)
    p, t = rng.standard_normal(shape), rng.standard_normal(shape)
    value, grad = squared_error(p, t)
    # the mean over ROWS of the squared norm of each row's error
    d = (p - t).reshape(shape[0], -1)
    np.testing.assert_allclose(value, np.mean(np.sum(d * d, axis=1)), rtol=1e-12)
    assert gradient_check(lambda: squared_error(p, t)[0], [p], [grad]) < TOL
    assert squared_error([[1.0, 2.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 3.0]])[0] == 7.0


def test_group_normalized_l1_by_hand():
    prob = np.array([0.9, 0.2, 0.6, 0.1, 0.5])
    a = np.array([1, 0, 1, 0, 0])
    value, grad = group_normalized_l1(prob, a, a)
    # group a=1: |0.9−1|, |0.6−1| → mean 0.25; group a=0: 0.2, 0.1, 0.5 → mean 0.8/3
    assert value == pytest.approx(0.25 + 0.8 / 3, rel=1e-15)
    np.testing.assert_allclose(grad, [-0.5, 1 / 3, -0.5, 1 / 3, 1 / 3])
    # the adversary's objective [MCPZ18]: L_Adv^DP = 1 − value; a perfect adversary (h = a)
    # has value 0, the worst (h = 1 − a) has value 2 (one per group), a constant 1/2 has 1
    assert group_normalized_l1(a.astype(float), a, a)[0] == 0.0
    assert group_normalized_l1(1.0 - a, a, a)[0] == 2.0
    assert group_normalized_l1(np.full(5, 0.5), a, a)[0] == pytest.approx(1.0)
    # the subgradient of |·| at 0 is 0
    np.testing.assert_array_equal(group_normalized_l1(a.astype(float), a, a)[1], 0.0)
    # shape (n, 1) in, (n, 1) out; n_groups demands every group
    v2, g2 = group_normalized_l1(prob[:, None], a, a, n_groups=2)
    assert v2 == value and g2.shape == (5, 1)
    with pytest.raises(ParameterError, match="groups"):
        group_normalized_l1(prob, a, np.zeros(5, dtype=int), n_groups=2)
    with pytest.raises(ParameterError, match="groups"):
        group_normalized_l1(prob, a, np.array([0, 1, 3, 0, 1]), n_groups=3)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_group_normalized_l1_gradient_with_equalized_odds_cells(seed):
    rng = np.random.default_rng(seed)
    n = 20
    a, y = rng.integers(0, 2, n), rng.integers(0, 2, n)
    cells = 2 * a + y                                   # the four (a, y) cells of L_Adv^EO
    h = rng.random(n)                                   # never exactly a: no kink
    value, grad = group_normalized_l1(h, a, cells)
    direct = sum(np.mean(np.abs(h[cells == c] - a[cells == c])) for c in np.unique(cells))
    assert value == pytest.approx(direct, rel=1e-14)
    assert gradient_check(lambda: group_normalized_l1(h, a, cells)[0], [h], [grad]) < TOL


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
    out2, cache2 = net.forward(X, check_input=False)
    grads2, none = net.backward(cache2, R + out2, check_input=False, input_grad=False)
    assert none is None
    for g, g2 in zip(grads, grads2):
        np.testing.assert_array_equal(g, g2)


def test_network_matches_mlp_initialisation_and_gradient():
    # the shared init (nn.init_dense_layers): same seed, same weights; the softmax loss on
    # the network's logits back-propagates to MLP.gradient
    rng = np.random.default_rng(4)
    X, y = rng.standard_normal((9, 4)), rng.integers(0, 3, 9)
    for activation in ("relu", "tanh"):
        mlp = nn.MLP((4, 5, 3), activation=activation, rng=7)
        net = Network((4, 5, 3), activation=activation, rng=7)
        for p, q in zip(mlp.params, net.params):
            np.testing.assert_array_equal(p, q)
        logits, cache = net.forward(X)
        np.testing.assert_array_equal(logits, mlp.logits(X))
        value, g = softmax_cross_entropy(logits, y)
        assert value == pytest.approx(mlp.loss(X, y), rel=1e-14)
        for a, b in zip(net.backward(cache, g)[0], mlp.gradient(X, y)):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


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


# --------------------------------------------------------------------------- Adam
def test_adam_two_steps_by_hand():
    theta = np.array([1.0, -2.0])
    opt = Adam([theta], learning_rate=0.1)             # β1 = 0.9, β2 = 0.999, ε = 1e-8
    opt.step([np.array([0.5, -1.0])])
    # t = 1: m = 0.1 g = (0.05, −0.1), v = 0.001 g² = (0.00025, 0.001); bias-corrected
    # m̂ = g, v̂ = g², so each coordinate moves by 0.1 · sign(g) · |g| / (|g| + 1e-8)
    np.testing.assert_allclose(opt.m[0], [0.05, -0.1], rtol=1e-15)
    np.testing.assert_allclose(opt.v[0], [0.00025, 0.001], rtol=1e-15)
    np.testing.assert_allclose(theta, [1 - 0.1 * 0.5 / (0.5 + 1e-8),
                                       -2 + 0.1 * 1.0 / (1.0 + 1e-8)], rtol=1e-15)
    opt.step([np.array([0.1, 0.2])])
    # t = 2: m = 0.9 m + 0.1 g = (0.055, −0.07); v = 0.999 v + 0.001 g² =
    # (0.00025975, 0.001039); m̂ = m / 0.19, v̂ = v / 0.001999; computed in exact rational
    # arithmetic (Python fractions, the square root in float64):
    assert opt.t == 2
    np.testing.assert_allclose(opt.m[0], [0.055, -0.07], rtol=1e-14)
    np.testing.assert_allclose(opt.v[0], [0.00025975, 0.001039], rtol=1e-14)
    np.testing.assert_allclose(theta, [0.8196959063846512, -1.8488973939904942], rtol=1e-14)
    opt.reset()
    assert opt.t == 0 and not opt.m[0].any() and not opt.v[0].any()


def test_adam_converges_on_an_ill_conditioned_quadratic():
    # f(θ) = ½ Σ c_i (θ_i − θ*_i)², condition number 1e4. Adam's step is invariant to the
    # scale of each coordinate's gradient [KB15], so both coordinates approach θ* at the
    # same pace although plain gradient descent with a stable step (< 2/c_max) would need
    # ~1e4 steps for the flat one.
    c = np.array([1e-2, 1.0, 1e2])
    target = np.array([3.0, -1.0, 0.5])
    theta = np.zeros(3)
    opt = Adam([theta], learning_rate=0.05)
    for _ in range(3000):
        opt.step([c * (theta - target)])
    np.testing.assert_allclose(theta, target, atol=1e-3)
    # float32 parameters stay float32
    t32 = np.zeros(3, dtype=np.float32)
    opt32 = Adam([t32], learning_rate=0.05)
    for _ in range(3000):
        opt32.step([(c * (t32 - target)).astype(np.float32)])
    assert t32.dtype == np.float32
    np.testing.assert_allclose(t32, target, atol=1e-3)


def test_adam_trains_a_network_chain():
    # a smoke test of the whole kit: encoder → classifier trained on separable data
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 4))
    y = (X[:, 0] - X[:, 1] > 0).astype(float)
    encoder, classifier = Network((4, 8, 3), rng=1), Network((3, 1), rng=2)
    opt = Adam(encoder.params + classifier.params, learning_rate=0.01)
    for _ in range(300):
        Z, ce = encoder.forward(X, check_input=False)
        logits, cc = classifier.forward(Z, check_input=False)
        value, g = binary_cross_entropy_with_logits(logits, y)
        cls_grads, g_Z = classifier.backward(cc, g, check_input=False)
        enc_grads, _ = encoder.backward(ce, g_Z, check_input=False, input_grad=False)
        opt.step(enc_grads + cls_grads)
    accuracy = np.mean((classifier(encoder(X))[:, 0] > 0) == y)
    assert value < 0.15 and accuracy > 0.95


# ----------------------------------------------------------------- gradient_check
def test_gradient_check_catches_a_wrong_gradient_and_restores_params():
    p = np.array([[1.0, 2.0], [3.0, -1.0]])
    before = p.copy()

    def f():
        return float(np.sum(p ** 3))

    right = 3 * p ** 2
    assert gradient_check(f, [p], [right]) < TOL
    wrong = right.copy()
    wrong[1, 0] *= 1.1
    assert gradient_check(f, [p], [wrong]) > 1e-2
    np.testing.assert_array_equal(p, before)

    def boom():
        raise RuntimeError("user loss failed")

    with pytest.raises(RuntimeError):
        gradient_check(boom, [p], [right])
    np.testing.assert_array_equal(p, before)
    with pytest.raises(ParameterError, match="f"):
        gradient_check(lambda: float("nan"), [p], [right])


def test_gradient_check_samples_entries_and_handles_float32():
    rng = np.random.default_rng(0)
    p = rng.standard_normal(500)
    f = lambda: float(np.sum(np.sin(p)))           # noqa: E731
    assert gradient_check(f, [p], [np.cos(p)], n_checks=10, rng=0) < TOL
    # float32: θ ± h is rounded, and the check divides by the step actually taken;
    # f is evaluated in float64, so the error is that of the rounded step (≈ 6e-8/1e-3)
    p32 = rng.standard_normal(20).astype(np.float32)
    f32 = lambda: float(np.sum(np.sin(p32.astype(np.float64))))   # noqa: E731
    assert gradient_check(f32, [p32], [np.cos(p32.astype(np.float64))], eps=1e-3) < 1e-6


# ------------------------------------------------ the pieces shared with nn.MLP
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_activation_derivative_from_output_matches_finite_differences(activation):
    act, act_grad = nn.activation_functions(activation)
    z = np.array([-2.0, -0.3, 0.2, 1.5])               # away from the kink at 0
    h = 1e-6
    numeric = (act(z + h) - act(z - h)) / (2 * h)
    np.testing.assert_allclose(act_grad(act(z)), numeric, rtol=1e-8)
    assert act_grad(act(z.astype(np.float32))).dtype == np.float32


def test_shared_init_log_softmax_and_layer_sizes():
    weights, biases = nn.init_dense_layers((3, 4, 2), "leaky_relu", "float32", rng=0)
    relu_w, _ = nn.init_dense_layers((3, 4, 2), "relu", "float64", rng=0)
    # leaky ReLU uses the He scale as ReLU; float32 is the float64 draw rounded
    for W, V in zip(weights, relu_w):
        assert W.dtype == np.float32
        np.testing.assert_array_equal(W, V.astype(np.float32))
    assert all(not b.any() for b in biases)
    z = np.array([[1.0, -2.0, 0.5], [1000.0, 0.0, -1000.0]])
    np.testing.assert_allclose(np.exp(nn.log_softmax(z)), nn.softmax(z), rtol=1e-14)
    assert nn.log_softmax(z)[1, 2] == -2000.0           # no log(0) = −inf
    assert nn.check_layer_sizes([3, np.int64(4), 1]) == (3, 4, 1)
    with pytest.raises(ParameterError, match="output classes"):
        nn.check_layer_sizes((3, 1), min_outputs=2)


def test_network_pickles_with_its_activation():
    import pickle
    X = np.linspace(-1, 1, 6).reshape(2, 3)
    for activation in ACTIVATIONS:
        net = Network((3, 4, 1), activation, rng=0)
        np.testing.assert_array_equal(pickle.loads(pickle.dumps(net))(X), net(X))
