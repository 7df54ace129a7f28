"""Tests for dpteach.learning.optim: finite-difference checks of every loss, Adam against a
hand computation and on a quadratic, and the gradient check itself."""

import numpy as np
import pytest

from dpteach._validation import ParameterError
from dpteach.learning.network import Network
from dpteach.learning.optim import (
    Adam,
    binary_cross_entropy_with_logits,
    gradient_check,
    group_normalized_l1,
    softmax,
    squared_error,
)

# Central differences with h = 1e-6 in float64: truncation error O(h² f''') ≈ 1e-12 and
# rounding error ≈ ε_mach |f| / h ≈ 1e-10 relative to gradients of order 1, so a relative
# error below 1e-6 leaves four orders of magnitude of margin and still catches any real
# mistake (a wrong sign, factor or index gives errors of order 1).
TOL = 1e-6


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


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


def test_softmax_rows_sum_to_one_and_are_stable():
    p = softmax(np.array([[1000.0, 0.0, -1000.0], [1.0, 1.0, 1.0]]))
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_allclose(p[1], 1 / 3)
    assert np.all(np.isfinite(p))


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
        Z, ce = encoder._forward(X)
        logits, cc = classifier._forward(Z)
        value, g = binary_cross_entropy_with_logits(logits, y)
        cls_grads, g_Z = classifier._backward(cc, g)
        enc_grads, _ = encoder._backward(ce, g_Z, input_grad=False)
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


def test_softmax_keeps_float32_and_its_values():
    # (moved from tests/test_bad_input_extra.py) the declared check must not change what
    # valid logits give
    z32 = np.array([[1.0, 2.0, -3.0], [1000.0, 0.0, 1000.0]], dtype=np.float32)
    p = softmax(z32)
    assert p.dtype == np.float32
    e = np.exp(z32.astype(np.float64) - z32.max(axis=1, keepdims=True))
    np.testing.assert_allclose(p, e / e.sum(axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_array_equal(softmax([[0, 0]]), [[0.5, 0.5]])
