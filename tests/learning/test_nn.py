"""Tests for dpteach.learning.nn: gradient checks and the ghost-norm shortcuts."""

import numpy as np
import pytest

from dpteach.learning.nn import MLP, clip_factors, softmax
from _props import NOT_A_NUMBER, NON_FINITE_ARRAYS, assert_rejects_bad_values


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


def _min_abs_preactivation(model, X):
    h, low = X, np.inf
    for W, b in zip(model.weights[:-1], model.biases[:-1]):
        z = h @ W + b
        low = min(low, np.abs(z).min())
        h = model._act(z)
    return low


@pytest.mark.parametrize("activation", ["relu", "tanh"])
@pytest.mark.parametrize("sizes", [(4, 3), (4, 6, 3), (4, 5, 6, 3)])
def test_per_example_gradients_match_finite_differences(activation, sizes):
    X, y = _data(n=5, d=sizes[0], k=sizes[-1], seed=len(sizes))
    model = MLP(sizes, activation=activation, dtype="float64", rng=1)
    # ReLU is not differentiable at 0: make sure no pre-activation lies within
    # reach of a kink. A step h = 1e-5 in one parameter moves a pre-activation by
    # at most h·max(1, |input|)·(downstream |weights|) ≈ a few × 1e-5 here, so a
    # margin of 1e-4 keeps every ReLU on the same side during the check.
    if activation == "relu" and len(sizes) > 2:
        assert _min_abs_preactivation(model, X) > 1e-4
    analytic = model.per_example_gradients(X, y)
    numeric = _finite_difference_per_example(model, X, y)
    assert len(analytic) == len(model.params) == 2 * (len(sizes) - 1)
    for g_a, g_n, p in zip(analytic, numeric, model.params):
        assert g_a.shape == (X.shape[0],) + p.shape
        for i in range(X.shape[0]):
            assert _rel_err(g_a[i], g_n[i]) < 1e-6


def test_objective_gradient_with_l2_matches_finite_differences():
    X, y = _data(n=7, d=4, k=3, seed=3)
    model = MLP((4, 5, 3), activation="tanh", l2=0.3, dtype="float64", rng=2)
    grads = model.gradient(X, y)
    h = 1e-5
    for p, g in zip(model.params, grads):
        num = np.zeros_like(p)
        for idx in np.ndindex(p.shape):
            old = p[idx]
            p[idx] = old + h
            up = model.loss(X, y)
            p[idx] = old - h
            down = model.loss(X, y)
            p[idx] = old
            num[idx] = (up - down) / (2 * h)
        assert _rel_err(g, num) < 1e-6


def test_mean_of_per_example_gradients_is_the_gradient():
    X, y = _data(n=9, d=4, k=3, seed=4)
    model = MLP((4, 8, 3), rng=0)
    per = model.per_example_gradients(X, y)
    for g_mean, g in zip([p.mean(axis=0) for p in per], model.gradient(X, y)):
        np.testing.assert_allclose(g_mean, g, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_ghost_norms_equal_materialised_norms(activation):
    X, y = _data(n=20, d=6, k=4, seed=5)
    model = MLP((6, 7, 5, 4), activation=activation, rng=3)
    per = model.per_example_gradients(X, y)
    flat = np.concatenate([g.reshape(len(X), -1) for g in per], axis=1)
    np.testing.assert_allclose(model.per_example_grad_norms(X, y),
                               np.linalg.norm(flat, axis=1), rtol=1e-12)


def test_ghost_clipped_sum_equals_materialised_clipped_sum():
    X, y = _data(n=30, d=6, k=4, seed=6)
    model = MLP((6, 16, 4), rng=4)
    trace = model.backward(X, y)
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


def test_float32_model_agrees_with_float64():
    X, y = _data(n=10, d=5, k=3, seed=7)
    m64 = MLP((5, 8, 3), rng=5)
    m32 = m64.copy()
    m32.dtype = np.float32
    m32.weights = [W.astype(np.float32) for W in m64.weights]
    m32.biases = [b.astype(np.float32) for b in m64.biases]
    n32 = m32.per_example_grad_norms(X, y)
    assert n32.dtype == np.float32
    np.testing.assert_allclose(n32, m64.per_example_grad_norms(X, y), rtol=1e-5)


def test_softmax_rows_sum_to_one_and_are_stable():
    p = softmax(np.array([[1000.0, 0.0, -1000.0], [1.0, 1.0, 1.0]]))
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_allclose(p[1], 1 / 3)
    assert np.all(np.isfinite(p))


def test_loss_of_uniform_prediction_is_log_k():
    model = MLP((3, 4), rng=0)
    for W in model.weights:
        W[:] = 0
    X, y = _data(n=6, d=3, k=4)
    np.testing.assert_allclose(model.per_example_losses(X, y), np.log(4))


def test_update_moves_downhill():
    X, y = _data(n=50, d=4, k=3, seed=8)
    model = MLP((4, 10, 3), rng=0)
    before = model.loss(X, y)
    model.apply_update(model.gradient(X, y), 0.1)
    assert model.loss(X, y) < before


def test_clip_factors():
    c = clip_factors([0.0, 0.5, 1.0, 4.0], 1.0)
    np.testing.assert_allclose(c, [1.0, 1.0, 1.0, 0.25])


# ------------------------------------------------------------- bad input
def test_bad_layer_sizes():
    with pytest.raises(ValueError, match="layer_sizes"):
        MLP((3,))
    with pytest.raises(ValueError, match="layer_sizes"):
        MLP((3, 1))
    with pytest.raises(ValueError, match="layer_sizes"):
        MLP((3, 0, 2))
    with pytest.raises(TypeError, match="layer_sizes"):
        MLP("34")
    with pytest.raises(TypeError, match="layer_sizes"):
        MLP((3, 2.5, 2))


def test_bad_choices():
    with pytest.raises(ValueError, match="activation"):
        MLP((3, 2), activation="sigmoid")
    with pytest.raises(ValueError, match="dtype"):
        MLP((3, 2), dtype="float16")


def test_bad_l2_property():
    from _props import NOT_POSITIVE_FINITE
    import hypothesis.strategies as st
    bad = st.one_of(NOT_A_NUMBER, NOT_POSITIVE_FINITE.filter(lambda v: not v == 0))
    assert_rejects_bad_values(MLP, {"layer_sizes": (3, 2)}, "l2", bad)


def test_bad_X_and_y():
    model = MLP((3, 2), rng=0)
    assert_rejects_bad_values(lambda X: model.per_example_losses(X, [0]), {"X": [[1.0, 2, 3]]},
                              "X", NON_FINITE_ARRAYS)
    with pytest.raises(ValueError, match="X"):
        model.per_example_losses(np.ones((2, 4)), [0, 1])
    with pytest.raises(ValueError, match="y"):
        model.per_example_losses(np.ones((2, 3)), [0, 2])
    with pytest.raises(ValueError, match="y"):
        model.per_example_losses(np.ones((2, 3)), [0])
    with pytest.raises(ValueError, match="y"):
        model.per_example_losses(np.ones((2, 3)), [0.0, 1.0])


def test_bad_clip_inputs():
    with pytest.raises(ValueError, match="max_grad_norm"):
        clip_factors([1.0], 0.0)
    with pytest.raises(ValueError, match="norms"):
        clip_factors([-1.0], 1.0)


def test_backward_without_checks_is_the_same_pass():
    model = MLP((3, 4, 2), dtype="float32", rng=0)
    X = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    y = np.array([0, 1, 1, 0, 1])
    checked = model.backward(X, y)
    unchecked = model.backward(X, y, check_input=False)
    for a, b in zip(checked.errors + checked.inputs, unchecked.errors + unchecked.inputs):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(TypeError, match="check_input"):
        model.backward(X, y, check_input=0)


def test_gradient_lists_and_weights_are_checked():
    model = MLP((3, 2), rng=0)
    grads = model.gradient(np.ones((2, 3)), [0, 1])
    with pytest.raises(TypeError, match="grads"):
        model.apply_update([g.astype(complex) for g in grads], 0.1)
    with pytest.raises(ValueError, match="grads"):
        model.add_l2_gradient([g.T for g in grads])
    with pytest.raises(ValueError, match="learning_rate"):
        model.apply_update(grads, 0.0)
    trace = model.backward(np.ones((2, 3)), [0, 1])
    with pytest.raises(ValueError, match="weights"):
        model.weighted_gradient_sum(trace, [1.0])
    with pytest.raises(TypeError, match="trace"):
        MLP.per_example_grad_norms_from("trace")
    with pytest.raises(ValueError, match="layer_sizes"):
        MLP((100_000, 100_000, 2))                      # 10^10 parameters

