"""Learning Fair Representations (dpteach.fairness.lfr): the analytic gradient against finite
differences, what a fit promises (the objective goes down, seeded fits repeat, parity
improves with A_z), the scikit-learn API, and the rules that tie arguments together (single
bad values: the generated tests of tests/test_domains.py)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from sklearn.base import clone

from dpteach._validation import ParameterError
from dpteach.fairness import lfr_grid
from dpteach.fairness.lfr import LFR, LFRLosses, _Problem, lfr_losses
from dpteach.fairness.metrics import zemel_discrimination


# ------------------------------------------------------------------------------ data
def make_data(n=300, seed=0):
    """Two groups; feature 0 is the group plus noise, the label depends on it and on x1."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    X = np.c_[a + rng.normal(0, 0.3, n), rng.normal(0, 1, n), rng.uniform(0, 1, (n, 2))]
    y = (X[:, 0] + X[:, 1] + rng.normal(0, 0.3, n) > 0.8).astype(np.int64)
    return X, y, a


@functools.cache
def small():
    return make_data(120, seed=1)


def fit_small(**kwargs):
    X, y, a = small()
    params = {"n_prototypes": 3, "Az": 1.0, "n_starts": 1, "max_iter": 30, "rng": 0, **kwargs}
    return LFR(**params).fit(X, y, sensitive_features=a)


@functools.cache
def fitted():
    return fit_small()


# ------------------------------------------------------------------- the gradient
def finite_difference(problem, theta, h=1e-6):
    grad = np.empty_like(theta)
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        grad[i] = (problem.losses_and_grad(theta + e, with_grad=False)[0]
                   - problem.losses_and_grad(theta - e, with_grad=False)[0]) / (2 * h)
    return grad


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("use_sparse", [False, True])
@pytest.mark.parametrize("mu", [0.0, 0.01])
def test_gradient_matches_finite_differences(shared, use_sparse, mu):
    X, y, a = make_data(80, seed=2)
    X[:, 2:] *= X[:, 2:] > 0.5                       # some zeros, for the sparse path
    problem = _Problem(X, y.astype(float), a, 3, 0.3, 1.0, 2.0, shared, use_sparse=use_sparse)
    problem.mu = mu
    theta = problem.start(np.random.default_rng(5), X)
    J, grad, _ = problem.losses_and_grad(theta)
    fd = finite_difference(problem, theta)
    # central differences with h = 1e-6 are accurate to ~1e-9 here; the kinks of |.| in L_z
    # are away from this random start (every group-mean difference is > 1e-3)
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-7)
    assert J == pytest.approx(problem.losses_and_grad(theta, with_grad=False)[0])


def test_objective_and_its_terms_agree_with_lfr_losses():
    X, y, a = small()
    for alpha in ("per_group", "shared"):
        m = fit_small(alpha=alpha, Ax=0.1, Ay=1.0, Az=2.0)
        losses = lfr_losses(X, y, m.transform(X, sensitive_features=a), m.prototypes_, m.w_,
                            sensitive_features=a)
        assert losses.L_x == pytest.approx(m.L_x_, rel=1e-9)
        assert losses.L_y == pytest.approx(m.L_y_, rel=1e-9)
        assert losses.L_z == pytest.approx(m.L_z_, rel=1e-6, abs=1e-12)
        assert losses.objective(0.1, 1.0, 2.0) == pytest.approx(m.objective_, rel=1e-9)
        assert m.losses(X, y, sensitive_features=a) == losses


def test_lfr_losses_by_hand():
    # two rows per group, one prototype at the origin and one at (1, 1)
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [1.0, 1.0]])
    y = np.array([0, 1, 0, 1])
    a = np.array([0, 0, 1, 1])
    M = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.5, 0.5]])
    V = np.array([[0.0, 0.0], [1.0, 1.0]])
    w = np.array([0.25, 0.75])
    out = lfr_losses(X, y, M, V, w, sensitive_features=a)
    assert out.L_x == pytest.approx((0 + 0 + 0.5 + 0.5) / 4)      # (.5,.5) misses by ‖.5,.5‖²
    assert out.L_y == pytest.approx(-(2 * np.log(0.75) + 2 * np.log(0.5)) / 4)
    assert out.L_z == pytest.approx(0.0)                             # both groups average .5/.5
    assert type(out.L_x) is float and type(out.objective(1, 1, 1)) is float


# ------------------------------------------------------------------ what a fit does
def test_fit_lowers_the_objective_from_its_start():
    X, y, a = small()
    m = fit_small(n_starts=2)
    problem = _Problem(X, y.astype(float), a, 3, 0.01, 1.0, 1.0, False)
    seeds = np.random.default_rng(0).integers(0, 2**63 - 1, size=2)
    for seed, final in zip(seeds, m.start_objectives_):
        start = problem.losses_and_grad(problem.start(np.random.default_rng(int(seed)), X),
                                        with_grad=False)[0]
        assert final < start
    assert m.objective_ == pytest.approx(min(m.start_objectives_))


def test_seeded_fit_is_reproducible_and_seeds_matter():
    a, b, c = fit_small(rng=7), fit_small(rng=7), fit_small(rng=8)
    np.testing.assert_array_equal(a.prototypes_, b.prototypes_)
    np.testing.assert_array_equal(a.alpha_, b.alpha_)
    assert a.objective_ == b.objective_
    assert not np.array_equal(a.prototypes_, c.prototypes_)


def test_large_Az_reduces_discrimination():
    X, y, a = make_data(400, seed=3)
    Xt, _, at = make_data(400, seed=4)
    scores = {}
    for Az in (0.0, 5.0):
        m = LFR(n_prototypes=4, Az=Az, n_starts=2, max_iter=60, rng=0).fit(
            X, y, sensitive_features=a)
        scores[Az] = (m.L_z_, zemel_discrimination(m.predict_proba(X, sensitive_features=a)[:, 1],
                                                   sensitive_features=a),
                      zemel_discrimination(m.predict_proba(Xt, sensitive_features=at)[:, 1],
                                           sensitive_features=at))
    (lz0, tr0, te0), (lz5, tr5, te5) = scores[0.0], scores[5.0]
    # the data: feature 0 is the group, and the label follows it (base rates .70 vs .24)
    assert tr0 > 0.25 and te0 > 0.25
    assert lz5 < 0.02 and lz5 < lz0 / 10
    assert tr5 < 0.02 and te5 < 0.1 and te5 < te0 / 3


def test_shapes_types_and_ranges():
    X, y, a = small()
    m = fitted()
    M = m.transform(X[:7], sensitive_features=a[:7])
    assert M.shape == (7, 3) and np.allclose(M.sum(axis=1), 1.0) and (M >= 0).all()
    proba = m.predict_proba(X, sensitive_features=a)
    assert proba.shape == (120, 2) and np.allclose(proba.sum(axis=1), 1.0)
    assert ((proba >= 0) & (proba <= 1)).all()
    pred = m.predict(X, sensitive_features=a)
    assert pred.shape == (120,) and set(np.unique(pred)) <= {0, 1}
    np.testing.assert_array_equal(pred, (proba[:, 1] > 0.5).astype(int))
    assert m.prototypes_.shape == (3, 4) and m.w_.shape == (3,) and m.alpha_.shape == (2, 4)
    assert ((m.w_ >= 0) & (m.w_ <= 1)).all() and (m.alpha_ >= 0).all()
    assert type(m.score(X, y, sensitive_features=a)) is float
    for attr in ("objective_", "L_x_", "L_y_", "L_z_"):
        assert type(getattr(m, attr)) is float
    assert type(m.n_iter_) is int and type(m.converged_) is bool
    np.testing.assert_array_equal(m.groups_, [0, 1])
    F = LFR(n_prototypes=3, n_starts=1, max_iter=10, rng=0).fit_transform(
        X, y, sensitive_features=a)
    assert F.shape == (120, 3)


def test_string_groups_and_shared_alpha():
    X, y, a = small()
    groups = np.where(a == 1, "F", "M")
    m = fit_small(alpha="shared")
    s = LFR(n_prototypes=3, Az=1.0, alpha="shared", n_starts=1, max_iter=30, rng=0).fit(
        X, y, sensitive_features=groups)
    assert m.alpha_.shape == (1, 4)
    np.testing.assert_array_equal(s.groups_, ["F", "M"])
    # with one shared α the map does not need A; given, it does not change the answer
    np.testing.assert_array_equal(s.transform(X), s.transform(X, sensitive_features=groups))
    # "F" sorts first, so "M" is group 1: the string fit is the 0/1 fit of 1 − a, exactly
    swapped = LFR(n_prototypes=3, Az=1.0, alpha="shared", n_starts=1, max_iter=30, rng=0).fit(
        X, y, sensitive_features=1 - a)
    np.testing.assert_array_equal(s.prototypes_, swapped.prototypes_)
    assert s.objective_ == swapped.objective_


def test_sklearn_clone_and_params():
    est = LFR(n_prototypes=4, Ax=0.5, Ay=2.0, Az=3.0, alpha="shared", n_starts=2,
              max_iter=7, rng=11)
    params = est.get_params()
    assert params == {"n_prototypes": 4, "Ax": 0.5, "Ay": 2.0, "Az": 3.0, "alpha": "shared",
                      "n_starts": 2, "max_iter": 7, "rng": 11}
    assert clone(est).get_params() == params
    odd = LFR(Az="lots")                                  # stored unchanged, refused at fit
    assert odd.Az == "lots"
    X, y, a = small()
    with pytest.raises(TypeError, match="Az"):
        odd.fit(X, y, sensitive_features=a)
    twin = clone(fitted())
    assert not hasattr(twin, "prototypes_")
    assert est.__sklearn_tags__().non_deterministic is False


# ------------------------------------------------------------------------ bad input
def test_bad_input_names_the_argument():
    X, y, a = small()
    fit = LFR(n_starts=1, max_iter=5, n_prototypes=2, rng=0)
    cases = [
        ({"sensitive_features": np.r_[np.zeros(119), 1]}, "sensitive_features",
         "(members of group 1.0) must be ≥ 2"),                    # a group of one
        ({"sensitive_features": np.r_[np.zeros(60), np.ones(59), 2]}, "sensitive_features",
         "exactly 2 groups"),
        ({"sensitive_features": np.zeros(120)}, "sensitive_features", "exactly 2 groups"),
        ({"sensitive_features": a[:-1]}, "sensitive_features", "119"),
        ({"y": np.zeros(120, dtype=int)}, "y", "both labels"),       # one class
        ({"y": y[:-2]}, "y", "118"),
        ({"X": X * 1e10}, "X", "rescale"),
    ]
    for change, name, words in cases:
        kwargs = {"X": X, "y": y, "sensitive_features": a, **change}
        with pytest.raises(ParameterError, match=name) as info:
            fit.fit(kwargs["X"], kwargs["y"], sensitive_features=kwargs["sensitive_features"])
        assert words in str(info.value), (change, str(info.value))


def test_prediction_time_errors():
    X, _, a = small()
    m = fitted()
    with pytest.raises(ParameterError, match="sensitive_features must be given with alpha="):
        m.transform(X)
    with pytest.raises(ParameterError, match="only groups seen in fit"):
        m.predict(X[:3], sensitive_features=[0, 1, 5])
    with pytest.raises(ParameterError, match="X must be of 4 columns, as in fit"):
        m.predict_proba(X[:, :3], sensitive_features=a)
    with pytest.raises(ParameterError, match="sensitive_features"):
        m.predict(X, sensitive_features=a[:5])
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        LFR().transform(X)


def _valid_losses():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [1.0, 1.0]])
    return {"X": X, "y": np.array([0, 1, 0, 1]),
            "memberships": np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.5, 0.5]]),
            "prototypes": np.array([[0.0, 0.0], [1.0, 1.0]]), "w": np.array([0.25, 0.75]),
            "sensitive_features": np.array([0, 0, 1, 1])}


def test_lfr_losses_shape_and_sum_rules():
    valid = _valid_losses()
    lfr_losses(**valid)
    for change in ({"memberships": np.full((4, 2), 0.6)}, {"prototypes": np.zeros((3, 2))},
                   {"w": [0.5]}, {"memberships": np.ones((3, 2)) / 2}):
        with pytest.raises(ParameterError, match="memberships"):
            lfr_losses(**{**valid, **change})


def test_loss_objective():
    losses = LFRLosses(1.0, 0.5, 0.1)
    assert losses.objective(1.0, 2.0, 3.0) == pytest.approx(1.0 + 1.0 + 0.3)


# ---------------------------------------------------------- the grid's small functions
def test_german_grid_data():
    d = lfr_grid.lfr_grid_data("german")
    assert d.X_train.shape == (700, 60) and d.X_test.shape == (300, 60)
    assert len(d.feature_names) == 60 and "age" not in d.feature_names
    assert set(np.unique(d.y_train)) == {0, 1} and set(np.unique(d.a_test)) == {0, 1}
    assert d.X_train.min() == 0.0 and d.X_train.max() == 1.0
    assert d.a_train.mean() == pytest.approx(0.81, abs=0.02)       # 81 % are older than 25


def test_one_start_of_a_grid_entry_replays_that_start_of_the_full_fit():
    # lfr_grid_start(k) must be start k of LFR(**GRID_SETTINGS) on the grid's rows, alone
    d = lfr_grid.lfr_grid_data("german")
    full = LFR(**lfr_grid.GRID_SETTINGS, Az=1.0).fit(d.X_train, d.y_train,
                                                     sensitive_features=d.a_train)
    for k in (0, 2):
        one = lfr_grid.lfr_grid_start("german", 1.0, k)
        assert one.objective_ == pytest.approx(full.start_objectives_[k], rel=1e-12), k
    with pytest.raises(ParameterError, match="start"):
        lfr_grid.lfr_grid_start("german", 1.0, 3)


def test_zero_weights_answer():
    X, y, a = small()
    m = LFR(Ax=0.0, Ay=0.0, Az=0.0, n_prototypes=2, n_starts=1, max_iter=5, rng=0).fit(
        X, y, sensitive_features=a)
    assert m.objective_ == 0.0           # nothing to minimise: the start is kept
