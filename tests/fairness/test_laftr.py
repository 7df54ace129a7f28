"""LAFTR (dpteach.fairness.laftr), the shared representation plumbing
(dpteach.fairness.representation) and the checks of a representation
(dpteach.fairness.representation_eval): the adversary hides the group on a synthetic problem where
A leaks into X, the losses in ``history_`` add up, each objective's adversary sees what it
should, fair transfer reports the metrics' gaps, and bad input gets named errors. (The shipped γ
sweep, and the refit of one of its rows: ``tests/test_tables.py``.)"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from dpteach._validation import ParameterError
from dpteach.fairness import laftr as L
from dpteach.fairness import metrics
from dpteach.fairness.laftr import LAFTR, adversary_accuracy, fair_transfer


# ------------------------------------------------------------------------------ data
def make_data(n, seed):
    """A leaks into X: feature 0 is A plus noise, feature 1 half of A plus noise; the label
    depends on feature 2 and on A (base rates about .36 and .69)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    X = np.c_[a + rng.normal(0, 0.4, n), 0.5 * a + rng.normal(0, 0.5, n),
              rng.normal(0, 1, (n, 2))]
    y = (X[:, 2] + 0.8 * a + rng.normal(0, 0.5, n) > 0.4).astype(np.int64)
    return X, y, a


@functools.cache
def train():
    return make_data(600, 0)


@functools.cache
def held_out():
    return make_data(2000, 1)


SMALL = {"epochs": 40, "batch_size": 64}


def fit(**kwargs):
    X, y, a = train()
    return LAFTR(**{**SMALL, "rng": 0, **kwargs}).fit(X, y, sensitive_features=a)


@functools.cache
def fitted(objective="dp", gamma=1.0, beta=0.0):
    return fit(objective=objective, gamma=gamma, beta=beta, epochs=20)


# --------------------------------------------------------------- hiding the group
HIDE_SEEDS = range(12)                 # seeds of the fits and of their fresh adversaries
HIDE_LEVEL = 1e-3                      # one-sided level of the lower confidence bounds


def lower_bound(values):
    """The one-sided (1 − HIDE_LEVEL) lower confidence bound of the mean of ``values``:
    mean − t(k − 1) · s / √k, with s the sample sd over the k seeds (Student's t)."""
    v = np.asarray(values, dtype=float)
    k = v.size
    return v.mean() - stats.t.isf(HIDE_LEVEL, k - 1) * v.std(ddof=1) / math.sqrt(k)


def test_gamma_hides_the_group_from_a_fresh_adversary():
    # A fresh MLP adversary, trained on half of 2,000 held-out rows' Z and scored on the other
    # half, at γ = 0 and γ = 5 with the same seed k (fit and adversary), for k = 0 … 11. No
    # seed is picked: one seed's values vary with the training path (measured over these 12:
    # balanced accuracy 0.78-0.90 at γ = 0, mean 0.864, sd 0.036; drop 0.09-0.30, mean 0.198,
    # sd 0.054), so the asserts are on the means over the 12 seeds, each through its lower
    # confidence bound mean − t₁₁ · s/√12 (t₁₁ = 4.02 at one-sided level 1e-3, s the sd over
    # the seeds): the margin comes from the seed-to-seed spread measured in the test itself.
    # The thresholds are the former single-seed test's: A well visible in the unfair Z (0.78)
    # and a drop of at least 0.10. Measured bounds: 0.822 and 0.135. If γ stopped hiding the
    # group — the adversary's gradient no longer reaching the encoder — the γ = 5 fits would be
    # the γ = 0 ones (the streams are independent) and every drop 0: the bound is 0 and the
    # test fails (checked by mutating laftr.py, as also with the sign of γ flipped).
    Xt, _, at = held_out()
    before, drops = [], []
    for k in HIDE_SEEDS:
        b = adversary_accuracy(fit(gamma=0.0, rng=k).transform(Xt), at, rng=k)
        a = adversary_accuracy(fit(gamma=5.0, rng=k).transform(Xt), at, rng=k)
        assert a.n_train + a.n_test == 2000
        before.append(b.balanced_accuracy)
        drops.append(b.balanced_accuracy - a.balanced_accuracy)
    on_x = adversary_accuracy(Xt, at, rng=0)
    assert on_x.balanced_accuracy > 0.8            # A is visible in X ...
    assert lower_bound(before) > 0.78, before      # ... and in the unfair Z
    assert lower_bound(drops) > 0.10, drops        # γ hides it


# ------------------------------------------------------------- the losses add up
@pytest.mark.parametrize("objective", L.OBJECTIVES)
def test_history_decomposes_and_matches_the_model(objective):
    X, y, a = train()
    m = fit(objective=objective, alpha=0.7, beta=0.2, gamma=1.3, epochs=6)
    h = m.history_
    assert list(h["epoch"]) == list(range(1, 7))
    np.testing.assert_allclose(h["objective"], 0.7 * h["class_loss"] + 0.2 * h["recon_loss"]
                               - 1.3 * h["adv_loss"], rtol=1e-12)
    assert (h["recon_loss"] > 0).all() and m.decoder_ is not None
    # the last row is the fitted model's losses on the training rows
    p = m.predict_proba(X)[:, 1]
    bce = -np.mean(y * np.log(p) + (1 - y) * np.log1p(-p))
    assert h["class_loss"].iloc[-1] == pytest.approx(bce, rel=1e-9)
    assert h["adv_loss"].iloc[-1] == pytest.approx(
        m.adv_loss(X, y, sensitive_features=a), rel=1e-12)
    Xr = m.decoder_(np.c_[m.transform(X), a])
    assert h["recon_loss"].iloc[-1] == pytest.approx(np.mean(np.sum((Xr - X) ** 2, axis=1)),
                                                     rel=1e-9)


def test_adversary_loss_is_the_group_normalised_l1():
    X, y, a = train()
    for objective in L.OBJECTIVES:
        m = fitted(objective)
        H = m.transform(X) if objective == "dp" else np.c_[m.transform(X), y]
        h = 1 / (1 + np.exp(-m.adversary_(H)[:, 0]))
        cells = [(a == g) for g in (0, 1)] if objective == "dp" else \
            [(a == g) & (y == v) for g in (0, 1) for v in ((0,) if objective == "eopp"
                                                              else (0, 1))]
        by_hand = sum(np.mean(np.abs(h[c] - a[c])) for c in cells)
        assert m.adv_loss(X, y, sensitive_features=a) == pytest.approx(by_hand,
                                                                           rel=1e-12)


# ------------------------------------------------- what each objective's adversary sees
def test_adversary_inputs():
    assert fitted("dp").adversary_.layer_sizes[0] == 8                  # Z
    assert fitted("eo").adversary_.layer_sizes[0] == 9                  # Z and Y
    assert fitted("eopp").adversary_.layer_sizes[0] == 9
    X, y, a = train()
    m = fitted("eo")
    H = np.c_[m.transform(X), y]
    # the EO adversary reads Y: flipping it changes its outputs
    assert not np.allclose(m.adversary_(H), m.adversary_(np.c_[H[:, :-1], 1 - y]))


def test_eopp_ignores_the_group_of_the_y1_rows_and_eo_does_not():
    X, y, a = train()
    b = a.copy()
    ones = np.flatnonzero(y == 1)
    b[ones] = np.random.default_rng(3).permutation(a[ones])   # reshuffle A among Y = 1 rows
    assert not np.array_equal(a, b)
    kwargs = {"gamma": 2.0, "epochs": 3, "rng": 5}
    for objective, same in (("eopp", True), ("eo", False)):
        m1 = LAFTR(objective=objective, **kwargs).fit(X, y, sensitive_features=a)
        m2 = LAFTR(objective=objective, **kwargs).fit(X, y, sensitive_features=b)
        equal = all(np.array_equal(p, q) for p, q in zip(m1.encoder_.params, m2.encoder_.params))
        assert equal is same, objective


def test_gamma_zero_is_one_model_for_every_objective():
    # independent random streams: at γ = 0 the adversary never feeds back, so encoder and
    # classifier are the same whatever it is (and whether it trains at all)
    X, y, a = train()
    models = [fit(objective=o, gamma=0.0, epochs=3) for o in L.OBJECTIVES]
    models.append(fit(objective="dp", gamma=0.0, epochs=3, adversary_steps=0))
    for m in models[1:]:
        for p, q in zip(models[0].encoder_.params + models[0].classifier_.params,
                        m.encoder_.params + m.classifier_.params):
            np.testing.assert_array_equal(p, q)
    assert not np.array_equal(models[0].adversary_.params[0], models[1].adversary_.params[0])


# ---------------------------------------------------------------- scikit-learn API
def test_shapes_types_and_api():
    X, y, a = train()
    m = fitted()
    Z = m.transform(X[:7])
    assert Z.shape == (7, 8)
    proba = m.predict_proba(X)
    assert proba.shape == (600, 2) and np.allclose(proba.sum(axis=1), 1)
    np.testing.assert_array_equal(m.predict(X), (proba[:, 1] > 0.5).astype(int))
    assert type(m.score(X, y)) is float and 0.5 < m.score(X, y) <= 1
    assert type(m.adv_loss(X, y, sensitive_features=a)) is float
    assert type(m.fit_seconds_) is float
    np.testing.assert_array_equal(m.classes_, [0, 1])
    groups = np.where(a == 1, "F", "M")
    s = fit(gamma=1.0, epochs=2, rng=3)
    t = LAFTR(batch_size=64, gamma=1.0, epochs=2, rng=3).fit(X, y, sensitive_features=1 - a)
    u = LAFTR(batch_size=64, gamma=1.0, epochs=2, rng=3).fit(X, y, sensitive_features=groups)
    np.testing.assert_array_equal(u.groups_, ["F", "M"])          # "M" (a = 0) is A = 1
    np.testing.assert_array_equal(u.transform(X), t.transform(X))
    assert not np.array_equal(s.transform(X), t.transform(X))
    F = LAFTR(epochs=1, rng=0).fit_transform(X, y, sensitive_features=a)
    assert F.shape == (600, 8)


def test_seeded_fits_repeat_and_clone():
    a1, a2 = fit(gamma=1.0, epochs=2, rng=9), fit(gamma=1.0, epochs=2, rng=9)
    np.testing.assert_array_equal(a1.transform(train()[0]), a2.transform(train()[0]))
    est = LAFTR(objective="eo", alpha=0.5, gamma=3.0, hidden=(4, 4), rng=2)
    params = est.get_params()
    assert params["objective"] == "eo" and params["hidden"] == (4, 4)
    assert clone(est).get_params() == params
    assert LAFTR(gamma="lots").gamma == "lots"                   # stored unchanged
    assert est.__sklearn_tags__().non_deterministic is False


# ----------------------------------------------------- adversary_accuracy, transfer
def test_adversary_accuracy_extremes():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 2000)
    perfect = adversary_accuracy(np.c_[a, rng.normal(size=2000)], a, rng=0)
    assert perfect.balanced_accuracy == 1.0 and perfect.accuracy == 1.0
    # pure noise: each held-out recall is a binomial proportion of ~500 rows (sd ≤ 0.023),
    # so the balanced accuracy has sd ≤ 0.016; 0.5 ± 0.08 is 5 sd
    for model in ("mlp", "logistic"):
        noise = adversary_accuracy(rng.normal(size=(2000, 3)), a, model=model, rng=1)
        assert abs(noise.balanced_accuracy - 0.5) < 0.08
        assert noise.majority_rate == pytest.approx(max(np.mean(a), 1 - np.mean(a)), abs=0.01)


def test_adversary_accuracy_is_seeded():
    X, _, a = held_out()
    assert adversary_accuracy(X, a, rng=3) == adversary_accuracy(X, a, rng=3)


def test_fair_transfer_reports_the_metrics_gaps():
    X, y, a = train()
    Xt, yt, at = held_out()
    m = fitted(gamma=2.0)
    # a task the encoder never saw: is feature 3 positive?
    y2, yt2 = (X[:, 3] > 0).astype(int), (Xt[:, 3] > 0).astype(int)
    out = fair_transfer(m, X, y2, Xt, yt2, sensitive_features_test=at)
    pred = LogisticRegression(max_iter=1000).fit(m.transform(X), y2).predict(m.transform(Xt))
    np.testing.assert_array_equal(out.predictions, pred)
    kw = {"sensitive_features": at}
    assert out.accuracy == np.mean(pred == yt2)
    assert out.dp_gap == metrics.demographic_parity_difference(yt2, pred, **kw)
    assert out.eo_gap == metrics.equalized_odds_sum(yt2, pred, **kw)
    assert out.eopp_gap == metrics.laftr_equal_opportunity_difference(yt2, pred, **kw)
    assert out.eopp_gap_y1 == metrics.equal_opportunity_difference(yt2, pred, **kw)
    for name in ("accuracy", "dp_gap", "eo_gap", "eopp_gap", "eopp_gap_y1"):
        assert type(getattr(out, name)) is float


# ----------------------------------------------------------------------- bad input
def test_bad_input_names_the_argument():
    X, y, a = train()
    cases = [
        # the rules that tie arguments together (single values: tests/test_domains.py)
        ({"sensitive_features": np.zeros(600)}, "sensitive_features"),      # one group
        ({"sensitive_features": a[:-1]}, "sensitive_features"),            # shape
        ({"y": y[:-3]}, "y"),
        ({"y": np.zeros(600)}, "y"),                                        # one label
    ]
    for change, name in cases:
        kw = {"X": X, "y": y, "sensitive_features": a, **change}
        params = {k: v for k, v in change.items() if k in ("alpha", "beta", "gamma")}
        with pytest.raises(ParameterError, match=name):
            LAFTR(epochs=1, **params).fit(kw["X"], kw["y"],
                                          sensitive_features=kw["sensitive_features"])


def test_objectives_need_their_cells():
    X, y, a = train()
    a2 = np.where(y == 1, 0, a)                 # no A = 1 row with Y = 1
    LAFTR(objective="dp", epochs=1).fit(X, y, sensitive_features=a2)
    LAFTR(objective="eopp", epochs=1).fit(X, y, sensitive_features=a2)
    with pytest.raises(ParameterError, match="sensitive_features.*A=1, Y=1"):
        LAFTR(objective="eo", epochs=1).fit(X, y, sensitive_features=a2)
    a3 = np.where(y == 0, 0, a)                 # no A = 1 row with Y = 0
    with pytest.raises(ParameterError, match="A=1, Y=0"):
        LAFTR(objective="eopp", epochs=1).fit(X, y, sensitive_features=a3)


def test_prediction_time_errors():
    X, y, a = train()
    m = fitted()
    with pytest.raises(ParameterError, match="X must be of 4 columns"):
        m.predict(X[:, :3])
    with pytest.raises(ParameterError, match="only groups seen in fit"):
        m.adv_loss(X[:3], y[:3], sensitive_features=[0, 1, 5])
    with pytest.raises(ParameterError, match="sensitive_features"):
        m.adv_loss(X, y, sensitive_features=np.zeros(600))
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        LAFTR().transform(X)


def test_string_groups_are_coded_as_in_fit():
    # the crash: group labels given as a list of strings (not an ndarray) reached
    # an ndarray method (AttributeError); now they are coded against groups_ of the fit
    X, y, a = train()
    labels = np.where(a == 1, "M", "F")
    m = LAFTR(epochs=1, rng=0).fit(X, y, sensitive_features=labels.tolist())
    assert m.groups_.tolist() == ["F", "M"]
    assert m.adv_loss(X, y, sensitive_features=labels.tolist()) == \
        LAFTR(epochs=1, rng=0).fit(X, y, sensitive_features=a).adv_loss(X, y, sensitive_features=a)
    with pytest.raises(ParameterError, match="only groups seen in fit"):
        m.adv_loss(X[:4], y[:4], sensitive_features=["F", "M", "X", "F"])


def test_zero_weights_answer():
    X, y, a = train()
    m = LAFTR(alpha=0.0, beta=0.0, gamma=0.0, epochs=1, rng=0).fit(X, y, sensitive_features=a)
    assert (m.history_["objective"] == 0.0).all()
