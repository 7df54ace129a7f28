"""Tests for dpteach.learning.dpsgd: every step of DP-SGD, and the estimator."""

import math

import numpy as np
import pytest
from hypothesis import strategies as st
from scipy import stats
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from _props import (
    BAD_DELTA,
    BAD_PROBABILITY,
    NON_FINITE_ARRAYS,
    NOT_A_NUMBER,
    NOT_NUMERIC,
    NOT_POSITIVE_FINITE,
    assert_rejects_bad_values,
    bad_int,
)
from dpteach.accounting.pld import PLDAccountant
from dpteach.accounting.rdp import RDPAccountant
from dpteach.learning.dpsgd import (
    DPSGDClassifier,
    dp_sgd_gradient,
    poisson_sample,
    privatize_gradient_sum,
    steps_per_epoch,
)
from dpteach.learning.network import Network

P_FAIL = 1e-6  # two-sided false-alarm probability of each statistical test


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return (X / 16.0), y


def _toy(n=60, d=5, k=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)), rng.integers(0, k, size=n)


# ------------------------------------------------------------ 1. sampling
def test_poisson_sample_rate_and_variable_batch_size():
    n, q, reps = 2000, 0.05, 400
    rng = np.random.default_rng(1)
    sizes = np.array([poisson_sample(n, q, rng).size for _ in range(reps)])
    # the total count is Binomial(n·reps, q): mean n·reps·q, sd sqrt(n·reps·q(1-q))
    total_sd = math.sqrt(n * reps * q * (1 - q))
    z = stats.norm.isf(P_FAIL / 2)
    assert abs(sizes.sum() - n * reps * q) < z * total_sd
    # batch sizes vary like Binomial(n, q) (a fixed-size sampler would give variance 0):
    # (reps-1) s² / (n q (1-q)) ≈ χ²(reps-1) (normal approximation of the binomial, nq = 100)
    stat = (reps - 1) * sizes.var(ddof=1) / (n * q * (1 - q))
    assert stats.chi2.ppf(P_FAIL / 2, reps - 1) < stat < stats.chi2.isf(P_FAIL / 2, reps - 1)


def test_poisson_sample_includes_each_example_with_probability_q():
    n, q, reps = 50, 0.2, 4000
    rng = np.random.default_rng(2)
    counts = np.zeros(n)
    for _ in range(reps):
        counts[poisson_sample(n, q, rng)] += 1
    # each count ~ Binomial(reps, q); Pearson's statistic over the n examples ≈ χ²(n)
    stat = np.sum((counts - reps * q) ** 2 / (reps * q * (1 - q)))
    assert stat < stats.chi2.isf(P_FAIL, n)
    assert np.all(np.diff(poisson_sample(n, 0.5, 3)) > 0)      # sorted, no repeats


def test_poisson_sample_edge_rates():
    assert poisson_sample(10, 0.0, 0).size == 0
    np.testing.assert_array_equal(poisson_sample(10, 1.0, 0), np.arange(10))


def test_classifier_batches_are_poisson(digits):
    X, y = digits
    clf = DPSGDClassifier(noise_multiplier=1.0, batch_size=64, epochs=3, rng=0).fit(X, y)
    b = clf.batch_sizes_
    assert b.size == clf.n_steps_ == 3 * steps_per_epoch(len(X), 64)
    n, q = len(X), 64 / len(X)
    z = stats.norm.isf(P_FAIL / 2)
    assert abs(b.mean() - n * q) < z * math.sqrt(n * q * (1 - q) / b.size)
    assert np.unique(b).size > 5                               # variable batch size


# ------------------------------------------------- 2-3. gradients, clipping
def test_dp_gradient_without_noise_is_the_materialised_clipped_mean():
    X, y = _toy(n=40, seed=3)
    model = Network((5, 8, 3), rng=0)
    per = model.per_example_gradients(X, y)
    norms = np.sqrt(sum((g.reshape(len(X), -1) ** 2).sum(axis=1) for g in per))
    C, m = float(np.quantile(norms, 0.3)), 25.0
    out = dp_sgd_gradient(model, X, y, noise_multiplier=0.0, max_grad_norm=C,
                          expected_batch_size=m, rng=0)
    np.testing.assert_allclose(out.norms, norms, rtol=1e-12)
    c = np.minimum(1.0, C / norms)
    for g_dp, g in zip(out.grads, per):
        expected = (g * c.reshape((-1,) + (1,) * (g.ndim - 1))).sum(axis=0) / m
        np.testing.assert_allclose(g_dp, expected, rtol=1e-12, atol=1e-15)
    assert out.batch_size == 40 and np.sum(out.clip_factors < 1) == np.sum(norms > C)


def _flat(grads):
    return np.concatenate([g.ravel() for g in grads])


def test_clipping_bounds_the_sensitivity_of_the_sum():
    """Neighbouring batches B and B ∪ {x}: clipped sums differ by ≤ C (= C when ‖g_x‖ > C)."""
    X, y = _toy(n=80, d=5, seed=4)
    X[40:] *= 20.0                                    # large inputs → large gradients
    model = Network((5, 16, 3), rng=1)
    C = 0.5
    base = slice(0, 30)

    def clipped_sum(idx, max_grad_norm):
        return _flat(dp_sgd_gradient(model, X[idx], y[idx], noise_multiplier=0.0,
                                     max_grad_norm=max_grad_norm, expected_batch_size=1.0).grads)

    B = np.arange(30)
    s_B = clipped_sum(B, C)
    diffs = []
    for x in range(30, 80):
        diffs.append(np.linalg.norm(clipped_sum(np.r_[B, x], C) - s_B))
    diffs = np.array(diffs)
    norms = model.per_example_grad_norms(X[30:], y[30:])
    assert np.all(diffs <= C * (1 + 1e-9))
    big = norms > C
    assert big.sum() > 20
    np.testing.assert_allclose(diffs[big], C, rtol=1e-9)
    # (absolute slack: the difference of two sums of size ~1 is exact only to ~1e-15)
    np.testing.assert_allclose(diffs[~big], norms[~big], rtol=1e-9, atol=1e-12)
    # without clipping the same neighbours move the sum by far more than C
    unclipped = [np.linalg.norm(clipped_sum(np.r_[B, x], None) - clipped_sum(B, None))
                 for x in range(40, 45)]
    assert max(unclipped) > 10 * C
    del base


def test_noise_std_of_released_update():
    """Empty batches: the released update is pure noise N(0, (σC/qn)²) in every coordinate."""
    sigma, C, m = 1.3, 0.7, 32.0
    model = Network((20, 30, 5), dtype="float64", rng=0)
    rng = np.random.default_rng(5)
    X0, y0 = np.empty((0, 20)), np.empty(0, dtype=int)
    samples = np.concatenate([
        _flat(dp_sgd_gradient(model, X0, y0, noise_multiplier=sigma, max_grad_norm=C,
                              expected_batch_size=m, rng=rng).grads) for _ in range(40)])
    k = samples.size                                   # 40 × 785 = 31,400 coordinates
    target_sd = sigma * C / m
    # mean 0 known: k·(Σx²/k)/sd² ~ χ²(k)
    stat = np.sum(samples ** 2) / target_sd ** 2
    assert stats.chi2.ppf(P_FAIL / 2, k) < stat < stats.chi2.isf(P_FAIL / 2, k)
    # and the mean is 0 within z·sd/√k
    assert abs(samples.mean()) < stats.norm.isf(P_FAIL / 2) * target_sd / math.sqrt(k)
    # independence across coordinates: lag-1 correlation within z/√k of 0
    r = np.corrcoef(samples[:-1], samples[1:])[0, 1]
    assert abs(r) < stats.norm.isf(P_FAIL / 2) / math.sqrt(k)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_box_muller_noise_is_gaussian_in_both_dtypes(dtype):
    """The noise of privatize_gradient_sum (Box–Muller) is N(0, (σC/m)²) per coordinate.

    Two float32 blocks (float32 sines) and two float64 blocks, 60,001 coordinates (odd: the
    last pair is cut). Kolmogorov–Smirnov against the normal's CDF with the asymptotic
    critical value of √k·D (Kolmogorov distribution) at P_FAIL; the χ² test of the variance
    as above; the two halves of the Box–Muller pairs (cos and sin, coordinates i and
    i + k/2 of the concatenation) are uncorrelated within z/√(k/2).
    """
    sigma, C, m = 1.3, 0.7, 2.0
    blocks = [np.zeros((200, 150), dtype=dtype), np.zeros(30_001, dtype=dtype)]
    out = privatize_gradient_sum(blocks, noise_multiplier=sigma, max_grad_norm=C,
                                 expected_batch_size=m, rng=2016)
    assert all(g.dtype == dtype for g in out)
    samples = _flat(out).astype(np.float64) / (sigma * C / m)      # should be N(0, 1)
    k = samples.size
    d = stats.kstest(samples, "norm").statistic
    assert math.sqrt(k) * d < stats.kstwobign.isf(P_FAIL)
    stat = np.sum(samples ** 2)
    assert stats.chi2.ppf(P_FAIL / 2, k) < stat < stats.chi2.isf(P_FAIL / 2, k)
    half = (k + 1) // 2
    r = np.corrcoef(samples[:k - half], samples[half:])[0, 1]
    assert abs(r) < stats.norm.isf(P_FAIL / 2) / math.sqrt(k - half)
    # the largest |z| of k draws: P(max < t) = (1 − p)^k ≤ e^{−kp} and P(max > t) ≤ kp with
    # p = P(|Z| > t); each side at P_FAIL/2 gives about 3.7 < max < 6.8 here
    low = stats.norm.isf(-math.log(P_FAIL / 2) / k / 2)
    high = stats.norm.isf(P_FAIL / 2 / k / 2)
    assert low < np.max(np.abs(samples)) < high


def test_privatize_gradient_sum_matches_dp_sgd_gradient_and_leaves_input():
    g = [np.zeros((3, 4)), np.ones(4)]
    out = privatize_gradient_sum(g, noise_multiplier=0.0, max_grad_norm=1.0,
                                 expected_batch_size=2.0)
    np.testing.assert_array_equal(out[1], 0.5)
    np.testing.assert_array_equal(g[1], 1.0)                  # input not modified
    a = privatize_gradient_sum(g, noise_multiplier=2.0, max_grad_norm=1.0,
                               expected_batch_size=2.0, rng=7)
    b = privatize_gradient_sum(g, noise_multiplier=2.0, max_grad_norm=1.0,
                               expected_batch_size=2.0, rng=7)
    np.testing.assert_array_equal(_flat(a), _flat(b))      # seeded → reproducible
    # no blocks: nothing to noise (the noise is drawn once for all blocks together)
    assert privatize_gradient_sum([], noise_multiplier=2.0, max_grad_norm=1.0,
                                  expected_batch_size=2.0, rng=7) == []


def test_classifier_runs_algorithm_1_step_by_step():
    """Replay fit() with the public building blocks and the same random stream: identical model."""
    X, y = _toy(n=50, d=4, k=3, seed=10)
    sigma, C, b, lr = 0.8, 0.5, 20, 0.3
    clf = DPSGDClassifier(noise_multiplier=sigma, max_grad_norm=C, batch_size=b, epochs=2,
                          learning_rate=lr, hidden=(6,), l2=0.01, rng=11).fit(X, y)
    gen = np.random.default_rng(11)
    model = Network((4, 6, 3), l2=0.01, dtype="float32", rng=gen)
    q = b / 50
    sizes = []
    for _ in range(2 * steps_per_epoch(50, b)):
        idx = poisson_sample(50, q, gen)
        g = dp_sgd_gradient(model, X[idx].astype(np.float32), y[idx], noise_multiplier=sigma,
                            max_grad_norm=C, expected_batch_size=q * 50, rng=gen)
        model.apply_update(model.add_l2_gradient(g.grads), lr)
        sizes.append(idx.size)
    np.testing.assert_array_equal(clf.batch_sizes_, sizes)
    for p, p_ref in zip(clf.model_.params, model.params):
        np.testing.assert_array_equal(p, p_ref)


# ----------------------------------------------------------- 5. accounting
def test_epsilon_equals_the_accountants_epsilon(digits):
    X, y = digits
    clf = DPSGDClassifier(noise_multiplier=1.1, batch_size=128, epochs=3, delta=1e-5,
                          rng=0).fit(X, y)
    q, T = 128 / len(X), 3 * steps_per_epoch(len(X), 128)
    assert clf.sample_rate_ == q and clf.n_steps_ == T
    acc = RDPAccountant()
    acc.step(noise_multiplier=1.1, sample_rate=q, steps=T)
    assert clf.epsilon_ == pytest.approx(acc.get_epsilon(1e-5), rel=1e-12)
    assert clf.delta_ == 1e-5
    # ε grows every epoch; the history's last entry is ε_
    eps = clf.history_["epsilon"]
    assert len(eps) == 3 and np.all(np.diff(eps) > 0) and eps[-1] == clf.epsilon_
    # after epoch 1 it equals the accountant's ε for the steps of one epoch
    acc1 = RDPAccountant()
    acc1.step(noise_multiplier=1.1, sample_rate=q, steps=T // 3)
    assert eps[0] == pytest.approx(acc1.get_epsilon(1e-5), rel=1e-12)


def test_pld_accountant_is_used_when_asked(digits):
    X, y = digits
    clf = DPSGDClassifier(noise_multiplier=1.0, batch_size=256, epochs=2, accountant="pld",
                          rng=0).fit(X, y)
    acc = PLDAccountant()
    acc.step(noise_multiplier=1.0, sample_rate=clf.sample_rate_, steps=clf.n_steps_)
    assert clf.epsilon_ == pytest.approx(acc.get_epsilon(1e-5), rel=1e-6)
    assert isinstance(clf.accountant_, PLDAccountant)


@pytest.mark.parametrize("target", [0.5, 2.0])
def test_target_epsilon_calibration(digits, target):
    X, y = digits
    clf = DPSGDClassifier(target_epsilon=target, batch_size=128, epochs=2, rng=0).fit(X, y)
    assert clf.epsilon_ <= target
    # the calibrated σ is (near-)smallest: 1% less noise would overshoot the target
    acc = RDPAccountant()
    acc.step(noise_multiplier=0.99 * clf.noise_multiplier_, sample_rate=clf.sample_rate_,
             steps=clf.n_steps_)
    assert acc.get_epsilon(1e-5) > target


def test_non_private_baseline_is_the_same_code_path(digits):
    X, y = digits
    kw = dict(noise_multiplier=0.0, batch_size=64, epochs=2, learning_rate=0.5, rng=3)
    base = DPSGDClassifier(max_grad_norm=None, **kw).fit(X, y)
    huge_c = DPSGDClassifier(max_grad_norm=1e12, **kw).fit(X, y)   # clipping never active
    for p, q in zip(base.model_.params, huge_c.model_.params):
        np.testing.assert_array_equal(p, q)
    assert math.isinf(base.epsilon_) and base.accountant_ is None
    assert base.history_["accuracy"][-1] > 0.9


def test_noise_hurts_and_privacy_costs_accuracy(digits):
    X, y = digits
    Xtr, ytr, Xte, yte = X[:1200], y[:1200], X[1200:], y[1200:]
    kw = dict(batch_size=64, epochs=8, learning_rate=0.5, rng=0)
    base = DPSGDClassifier(noise_multiplier=0.0, max_grad_norm=None, **kw).fit(Xtr, ytr)
    dp = DPSGDClassifier(target_epsilon=1.0, **kw).fit(Xtr, ytr)
    assert base.score(Xte, yte) > 0.9
    assert 0.5 < dp.score(Xte, yte) < base.score(Xte, yte)     # learns something, at a cost


# ------------------------------------------------------------ sklearn API
def test_sklearn_api_pipeline_and_cross_val_score():
    X, y = load_digits(n_class=3, return_X_y=True)
    X, y = X[:150], y[:150]
    pipe = make_pipeline(StandardScaler(), DPSGDClassifier(noise_multiplier=0.5, batch_size=32,
                                                           epochs=3, hidden=(16,), rng=0))
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 1 / 3)
    clf = DPSGDClassifier(batch_size=32, hidden=(8,), rng=0)
    assert clone(clf).get_params() == clf.get_params()
    with pytest.raises(Exception, match="not fitted"):
        clf.predict(X)


def test_string_labels_and_probabilities():
    X, y = _toy(n=90, d=4, k=3, seed=8)
    labels = np.array(["cat", "dog", "emu"])[y]
    clf = DPSGDClassifier(noise_multiplier=0.0, max_grad_norm=None, batch_size=30, epochs=5,
                          hidden=(), rng=0).fit(X, labels)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert proba.dtype == np.float64
    assert set(clf.predict(X)) <= set(labels)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[proba.argmax(axis=1)])


def test_quiet_by_default(digits, capsys):
    X, y = digits
    DPSGDClassifier(batch_size=256, epochs=1, rng=0).fit(X[:300], y[:300])
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


# -------------------------------------------------------------- bad input
_X, _Y = _toy(n=20, d=3, k=2, seed=9)
BAD_POS_OR_TYPE = st.one_of(NOT_POSITIVE_FINITE, NOT_A_NUMBER)


def _fit(**params):
    base = dict(batch_size=10, epochs=1, hidden=(4,), rng=0)
    return DPSGDClassifier(**{**base, **params}).fit(_X, _Y)


@pytest.mark.parametrize("arg,strategy", [
    ("learning_rate", BAD_POS_OR_TYPE),
    ("max_grad_norm", st.one_of(NOT_POSITIVE_FINITE, st.sampled_from(["1", b"1", [1.0], True]))),
    ("target_epsilon", st.one_of(NOT_POSITIVE_FINITE, st.sampled_from(["1", [1.0], True]))),
    ("delta", st.one_of(BAD_DELTA, st.sampled_from([0, 0.0]))),
    ("noise_multiplier", st.one_of(st.sampled_from([-1, -1e-9, math.nan, math.inf]),
                                   NOT_A_NUMBER)),
    ("epochs", st.sampled_from([0, -1, 1.5, "3", None, True])),
    ("batch_size", st.sampled_from([0, -3, 21, 2.0, "8", None])),
    ("hidden", st.sampled_from([(0,), (4, -1), (2.5,), "64", 64])),
    ("accountant", st.sampled_from(["prv", "RDP", None, 1])),
    ("activation", st.sampled_from(["sigmoid", None])),
    ("l2", st.one_of(st.sampled_from([-1e-3, math.nan, math.inf]), NOT_A_NUMBER)),
])
def test_classifier_rejects_bad_params(arg, strategy):
    assert_rejects_bad_values(_fit, {}, arg, strategy)


def test_classifier_rejects_bad_combinations_and_data():
    with pytest.raises(ValueError, match="max_grad_norm"):
        _fit(noise_multiplier=1.0, max_grad_norm=None)
    with pytest.raises(ValueError, match="max_grad_norm"):
        _fit(target_epsilon=1.0, max_grad_norm=None)
    with pytest.raises(ValueError, match="y"):
        DPSGDClassifier().fit(_X, _Y[:5])
    with pytest.raises(ValueError, match="classes"):
        DPSGDClassifier(batch_size=5).fit(_X, np.zeros(20, int))
    with pytest.raises(ValueError, match="X"):
        DPSGDClassifier(batch_size=5).fit(np.full((20, 3), np.nan), _Y)
    clf = _fit()
    with pytest.raises(ValueError, match="X"):
        clf.predict(np.ones((2, 4)))


def test_functions_reject_bad_values():
    assert_rejects_bad_values(poisson_sample, {"n": 10, "rng": 0}, "sample_rate", BAD_PROBABILITY)
    assert_rejects_bad_values(poisson_sample, {"sample_rate": 0.5}, "n",
                              st.sampled_from([0, -1, 2.5, "3", None]))
    g = [np.zeros(3)]
    valid = dict(grad_sum=g, noise_multiplier=1.0, max_grad_norm=1.0, expected_batch_size=4.0)
    assert_rejects_bad_values(privatize_gradient_sum, valid, "expected_batch_size",
                              BAD_POS_OR_TYPE)
    assert_rejects_bad_values(privatize_gradient_sum, valid, "max_grad_norm", NOT_POSITIVE_FINITE)
    assert_rejects_bad_values(privatize_gradient_sum, valid, "noise_multiplier",
                              st.sampled_from([-1.0, math.nan, math.inf, "1", None]))
    with pytest.raises(ValueError, match="max_grad_norm"):
        privatize_gradient_sum(g, noise_multiplier=1.0, max_grad_norm=None, expected_batch_size=1.0)
    with pytest.raises(TypeError, match="model"):
        dp_sgd_gradient("net", np.ones((1, 2)), [0], noise_multiplier=1.0, max_grad_norm=1.0,
                        expected_batch_size=1.0)


# ------------------------------------------------------------------ plots
def test_dpsgd_plots(digits):
    from dpteach.plots.dpsgd import (
        decision_grid,
        plot_decision_boundary,
        plot_grad_norm_histogram,
        plot_privacy_utility,
        plot_training_history,
    )

    fig = plot_privacy_utility([4.0, 0.5, 1.0], [0.9, 0.6, 0.8], baseline=0.95)
    x, y = [ln for ln in fig.axes[0].lines if ln.get_gid() == "utility"][0].get_data()
    np.testing.assert_array_equal(x, [0.5, 1.0, 4.0])
    np.testing.assert_array_equal(y, [0.6, 0.8, 0.9])
    with pytest.raises(ValueError, match="epsilons"):
        plot_privacy_utility([0.0, 1.0], [0.5, 0.5])
    with pytest.raises(ValueError, match="accuracies"):
        plot_privacy_utility([1.0], [1.5])

    norms = np.array([0.1, 0.5, 2.0, 3.0])
    fig = plot_grad_norm_histogram(norms, 1.0)
    assert "50% clipped" in fig.axes[0].get_title()
    with pytest.raises(ValueError, match="norms"):
        plot_grad_norm_histogram([-1.0])

    X, yy = digits
    clf = DPSGDClassifier(noise_multiplier=1.0, batch_size=256, epochs=2, rng=0).fit(X, yy)
    fig = plot_training_history({"σ = 1": clf.history_})
    assert len(fig.axes) == 2

    rng = np.random.default_rng(0)
    X2 = rng.standard_normal((60, 2))
    y2 = (X2[:, 0] > 0).astype(int)
    clf2 = DPSGDClassifier(noise_multiplier=0.0, max_grad_norm=None, batch_size=20, epochs=20,
                           hidden=(), rng=0).fit(X2, y2)
    x0, x1, p = decision_grid(clf2, X2, 20)
    assert p.shape == (20, 20)
    assert p[:, 0].mean() < 0.5 < p[:, -1].mean()          # class 1 on the right
    assert plot_decision_boundary(clf2, X2, y2, grid_size=20).axes
    with pytest.raises(ValueError, match="X"):
        decision_grid(clf2, X, 20)


def _rendered(data):
    """Both renderers accept ``data``: a matplotlib Figure and a JSON-able Vega-Lite spec."""
    import json

    from matplotlib.figure import Figure

    from dpteach.plots.figure import to_matplotlib, to_vega_lite

    assert isinstance(to_matplotlib(data), Figure)
    spec = to_vega_lite(data)
    json.dumps(spec)
    return spec


def test_grad_norm_histogram_data_counts_before_and_after_clipping():
    from dpteach.plots.dpsgd import grad_norm_histogram_data, plot_grad_norm_histogram

    norms = np.array([0.1, 0.5, 2.0, 3.0, 0.9])
    data = grad_norm_histogram_data(norms, 1.0, bins=5)
    before, after = data.series_by_key("before"), data.series_by_key("after")
    assert before.kind == after.kind == "bars"
    edges = np.linspace(0, 3.0 * 1.02, 6)
    np.testing.assert_array_equal(before.y, np.histogram(norms, bins=edges)[0])
    np.testing.assert_allclose(before.x, (edges[:-1] + edges[1:]) / 2)
    assert before.width == pytest.approx(edges[1] - edges[0])
    np.testing.assert_array_equal(after.y, np.histogram(np.minimum(norms, 1.0), bins=edges)[0])
    assert before.y.sum() == after.y.sum() == norms.size
    assert [(r.key, r.axis, r.value) for r in data.rules] == [("clip", "x", 1.0)]
    assert "40% clipped at C = 1" in data.title and "n = 5" in data.title
    spec = _rendered(data)
    bars = [layer for layer in spec["layer"] if layer["mark"]["type"] == "bar"]
    assert len(bars) == 2 and all("x2" in layer["encoding"] for layer in bars)
    # a C beyond every norm: the clipped histogram spans [0, 1.02 C]
    wide = grad_norm_histogram_data(norms, 10.0, bins=5).series_by_key("after")
    assert wide.width == pytest.approx(10.0 * 1.02 / 5) and wide.y.sum() == norms.size
    plain = grad_norm_histogram_data(norms)
    assert [s.key for s in plain.series] == ["before"] and not plain.rules
    fig = plot_grad_norm_histogram(norms, 1.0, bins=5)
    ax = fig.axes[0]
    assert ax.get_title() == data.title
    heights = [p.get_height() for p in ax.patches if p.get_gid() == "after"]
    np.testing.assert_array_equal(heights, after.y)


def test_training_history_data_two_charts_with_delta(digits):
    from dpteach.plots.dpsgd import plot_training_history, training_history_data

    X, y = digits
    clf = DPSGDClassifier(noise_multiplier=1.0, batch_size=256, epochs=2, rng=0).fit(X, y)
    base = DPSGDClassifier(noise_multiplier=0.0, max_grad_norm=None, batch_size=256, epochs=2,
                           rng=0).fit(X, y)
    data = training_history_data({"σ = 1": clf.history_}, delta=1e-5)
    acc, spent = data.panels                     # two panels, one y axis each
    assert data.title == "Training with DP-SGD: accuracy and privacy spent"
    line = acc.series_by_key("accuracy-0")
    np.testing.assert_array_equal(line.x, clf.history_["epoch"])
    np.testing.assert_array_equal(line.y, clf.history_["accuracy"])
    assert line.label == "σ = 1: accuracy" and acc.y_domain == (0.0, 1.0)
    assert acc.x_integer and spent.x_integer                     # epochs are whole numbers
    eps = spent.series_by_key("epsilon-0")
    np.testing.assert_array_equal(eps.y, clf.history_["epsilon"])
    assert eps.dash == "dashed" and "δ = 1e-05" in spent.title and "δ = 1e-05" in spent.y_title
    _rendered(acc)
    _rendered(spent)
    spec = _rendered(data)
    assert [view["title"]["text"] for view in spec["vconcat"]] == [acc.title, spent.title]
    # no noise: ε = ∞ at every epoch, so no ε curve, and the title says why
    acc2, spent2 = training_history_data({"σ = 1": clf.history_,
                                          "plain SGD": base.history_}).panels
    assert [s.key for s in acc2.series if s.kind == "line"] == ["accuracy-0", "accuracy-1"]
    assert [s.key for s in spent2.series if s.kind == "line"] == ["epsilon-0"]
    assert "∞" in spent2.title and "plain SGD" in spent2.title
    only_sgd = training_history_data({"plain SGD": base.history_}).panels[1]
    assert not only_sgd.series and "no privacy" in only_sgd.texts[0].text
    fig = plot_training_history({"σ = 1": clf.history_})
    assert len(fig.axes) == 2                                    # stacked, not twins
    assert fig.axes[0].get_position().y0 > fig.axes[1].get_position().y1
    assert fig._suptitle.get_text() == "Training with DP-SGD: accuracy and privacy spent"
    drawn = training_history_data({"σ = 1": clf.history_}).panels      # no δ given here
    assert [" ".join(ax.get_title().split()) for ax in fig.axes] == [
        " ".join(panel.title.split()) for panel in drawn]


def test_probability_grid_data_is_the_grid_in_the_palette():
    import json

    from dpteach.plots import PALETTE
    from dpteach.plots.dpsgd import (
        PROBABILITY_COLOURS,
        decision_boundary_data,
        decision_grid,
        plot_probability_grid,
        probability_grid_data,
    )
    from dpteach.plots.figure import FONT_SIZES, to_vega_lite

    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 2))
    y = (X[:, 0] > 0).astype(int)
    clf = DPSGDClassifier(noise_multiplier=0.0, max_grad_norm=None, batch_size=15, epochs=5,
                          hidden=(), rng=0).fit(X, y)
    x0, x1, p = decision_grid(clf, X, 12)
    data = probability_grid_data(x0, x1, p, X, y, title="P(class 1) (ε = 2, δ = 1e-05)")
    assert data.title == "P(class 1) (ε = 2, δ = 1e-05)"
    np.testing.assert_array_equal(data.heatmap.z, p)
    np.testing.assert_array_equal(data.heatmap.x, x0)
    assert data.heatmap.colours == PROBABILITY_COLOURS and data.heatmap.stops == (0, 0.5, 1)
    assert data.x_domain == (x0[0], x0[-1]) and data.y_domain == (x1[0], x1[-1])
    classes = [s for s in data.series if s.kind == "points"]
    assert [s.label for s in classes] == ["class 0", "class 1"]
    assert sum(s.x.size for s in classes) == 30
    # the line P = 0.5: every point of it is where the grid, linearly interpolated, is 0.5
    line = data.series_by_key("boundary")
    ok = np.isfinite(line.x)
    assert ok.sum() >= 2
    from scipy.interpolate import RegularGridInterpolator
    at = RegularGridInterpolator((x1, x0), p)(np.column_stack([line.y[ok], line.x[ok]]))
    np.testing.assert_allclose(at, 0.5, atol=1e-9)
    assert decision_boundary_data(clf, X, y, grid_size=12).heatmap.z.tolist() == p.tolist()
    spec = json.loads(json.dumps(to_vega_lite(data)))
    assert spec["title"] == {"text": "P(class 1) (ε = 2, δ = 1e-05)",
                             "fontSize": FONT_SIZES["title"], "anchor": "start"}
    # the heat map, then the other layers sharing one colour scale (the classes' legend)
    heat, (others,) = spec["layer"][0], spec["layer"][1:]
    cells = heat["data"]["values"]
    points = [row for layer in others["layer"] if layer["mark"]["type"] == "circle"
              for row in layer["data"]["values"]]
    assert len(cells) == 144 and len(points) == 30
    # p[j, i] colours the cell centred on (x0[i], x1[j]); the browser adds the half-steps
    for k, cell in enumerate(cells):
        j, i = divmod(k, 12)
        assert (cell["a"], cell["b"]) == pytest.approx((x0[i], x1[j]), rel=1e-4)
        assert cell["z"] == pytest.approx(p[j, i], abs=5e-5)
    steps = {t["as"]: t["calculate"] for t in spec["layer"][0]["transform"]}
    assert steps["a2"] == f"datum.a + {float(x0[1] - x0[0]) / 2!r}"
    assert steps["b1"] == f"datum.b - {float(x1[1] - x1[0]) / 2!r}"
    # an irregular grid: explicit cell edges halfway between the grid points
    uneven = np.array([0.0, 1.0, 3.0])
    irregular = to_vega_lite(probability_grid_data(uneven, uneven, np.full((3, 3), 0.25), X, y))
    cells = irregular["layer"][0]["data"]["values"]
    assert [(c["a1"], c["a2"]) for c in cells[:3]] == [(-0.5, 0.5), (0.5, 2.0), (2.0, 4.0)]
    assert "transform" not in irregular["layer"][0]
    colour = spec["layer"][0]["encoding"]["color"]["scale"]
    assert colour["range"] == list(PROBABILITY_COLOURS) and colour["domain"] == [0, 0.5, 1]
    assert spec["resolve"]["scale"]["color"] == "independent"   # the classes' own legend
    named = [layer["encoding"]["color"]["scale"] for layer in others["layer"]
             if layer["mark"]["type"] == "circle"][0]
    assert named["domain"][-2:] == ["class 0", "class 1"]
    assert named["range"][-2:] == [PALETTE["blue"], PALETTE["vermillion"]]
    assert spec["config"]["axis"]["titleFontSize"] == FONT_SIZES["axis_title"]
    x_scale = spec["layer"][0]["encoding"]["x"]["scale"]["domain"]
    assert x_scale == pytest.approx([x0[0], x0[-1]], rel=1e-4)
    # matplotlib: the same cells (centred on the grid points) under the same colours
    fig = plot_probability_grid(x0, x1, p, X, y)
    (mesh,) = [c for c in fig.axes[0].collections if c.get_gid() == "probability"]
    np.testing.assert_array_equal(np.asarray(mesh.get_array()).reshape(p.shape), p)
    assert fig.axes[1].get_ylabel() == "P(class 1)"                 # its colour bar


_SPEC_BAD_ARRAY = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC)


_SPEC_BAD = [
    ("x0", st.one_of(_SPEC_BAD_ARRAY, st.sampled_from([[1.0], [2.0, 1.0, 3.0], [[0.0, 1.0]],
                                                       [0.0, 0.0, 1.0], [0.0, 1.0]]))),
    ("x1", st.one_of(_SPEC_BAD_ARRAY, st.sampled_from([[1.0], [3.0, 2.0, 1.0], [0.0, 1.0]]))),
    ("p", st.one_of(_SPEC_BAD_ARRAY, st.sampled_from([np.full((3, 3), 1.5), -np.ones((3, 3)),
                                                      np.ones((2, 3)), np.ones(9)]))),
    ("X", st.one_of(_SPEC_BAD_ARRAY, st.sampled_from([np.ones((4, 3)), np.ones(4)]))),
    ("y", st.one_of(NOT_NUMERIC, st.sampled_from([[0, 1], [0, 1, 2, 0], np.full(4, np.nan)]))),
    ("title", st.sampled_from([1, b"x", ["x"], True, object()])),
]


@pytest.mark.parametrize("name,arg,strategy", [
    (name, arg, strategy) for name in ("probability_grid_data", "plot_probability_grid")
    for arg, strategy in _SPEC_BAD])
def test_probability_grid_data_rejects_bad_values(name, arg, strategy):
    # plot_probability_grid draws probability_grid_data (the app's chart): the same checks
    from dpteach.plots import dpsgd

    grid = np.linspace(-1.0, 1.0, 3)
    valid = {"x0": grid, "x1": grid, "p": np.full((3, 3), 0.5),
             "X": np.array([[0.0, 0.0], [1.0, 1.0], [0.5, -0.5], [-1.0, 0.2]]),
             "y": np.array([0, 1, 1, 0])}
    assert_rejects_bad_values(getattr(dpsgd, name), valid, arg, strategy)


@pytest.mark.parametrize("arg,strategy", [
    ("norms", st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from([[-1.0], [], [[0.5]]]))),
    ("max_grad_norm", st.one_of(NOT_POSITIVE_FINITE, st.sampled_from(["1", True, [1.0], 1e16]))),
    ("bins", bad_int(2, 10_000)),
])
def test_grad_norm_histogram_data_rejects_bad_values(arg, strategy):
    from dpteach.plots.dpsgd import grad_norm_histogram_data

    valid = {"norms": [0.1, 0.5, 2.0], "max_grad_norm": 1.0}
    assert_rejects_bad_values(grad_norm_histogram_data, valid, arg, strategy)


@pytest.mark.parametrize("arg,strategy", [
    ("histories", st.sampled_from([None, 1, "x", [1, 2], {"a": 1}, {"a": {"loss": [1]}}, {},
                                   {"a": {"epoch": [1], "accuracy": ["x"], "epsilon": [1.0]}},
                                   {"a": {"epoch": [1, 2], "accuracy": [0.5],
                                          "epsilon": [1.0]}}])),
    ("delta", st.one_of(BAD_DELTA, NOT_A_NUMBER).filter(lambda v: v is not None)),
])
def test_training_history_data_rejects_bad_values(arg, strategy):
    from dpteach.plots.dpsgd import training_history_data

    valid = {"histories": {"a": {"epoch": [1, 2], "accuracy": [0.5, 0.7],
                                 "epsilon": [0.5, 1.0]}}, "delta": 1e-5}
    assert_rejects_bad_values(training_history_data, valid, arg, strategy)


def test_more_functions_reject_bad_values():
    assert_rejects_bad_values(steps_per_epoch, {"n": 100}, "batch_size",
                              st.sampled_from([0, -1, 101, 2.5, "8", None, True]))
    assert_rejects_bad_values(steps_per_epoch, {"batch_size": 1}, "n",
                              st.sampled_from([0, -5, 1.0, "10", None]))
    model = Network((2, 3), rng=0)
    valid = dict(model=model, X_batch=np.ones((2, 2)), y_batch=[0, 1], noise_multiplier=1.0,
                 max_grad_norm=1.0, expected_batch_size=2.0)
    assert_rejects_bad_values(dp_sgd_gradient, valid, "noise_multiplier",
                              st.sampled_from([-0.5, math.nan, math.inf, "1", None, [1.0]]))
    assert_rejects_bad_values(dp_sgd_gradient, valid, "expected_batch_size", BAD_POS_OR_TYPE)
    assert_rejects_bad_values(dp_sgd_gradient, valid, "max_grad_norm", NOT_POSITIVE_FINITE)
    with pytest.raises(ValueError, match="X"):
        dp_sgd_gradient(**{**valid, "X_batch": np.array([[np.nan, 1.0]])})
