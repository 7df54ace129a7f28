"""dpteach.fairness.dp_impact (per-group accuracy of private learners) and
dpteach.fairness.dp_diagnostics (the mechanism).

Every number is checked against an independent computation: per-group accuracy against
``metrics.group_table``; the sweep's counts against the fitted models' predictions; the
summary, ``excess_drop`` and ``compare_with_sweep`` against hand-made tables; the gradient
statistics against ``Network.per_example_grad_norms``; the objective-perturbation noise against
the spread of real draws of ``erm.objective_perturbation``; the membership advantage against
``attacks.membership.loss_attack`` and on experiments built to leak (or not) for one group.
The shipped sweep is checked for its documented content and against fits made now in
``tests/test_tables.py``.
Statistical tolerances are derived in comments. A hypothesis bad-input test attacks every
public function of both modules (``_props.call_rejects``), the shared checks
``check_group_labels`` and ``check_zero_one_labels`` included.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
import pytest
from _props import (
    BAD_CHOICE,
    BAD_RNG,
    NON_FINITE_ARRAYS,
    NOT_A_NUMBER,
    NOT_AN_OBJECT,
    NOT_BOOL,
    NOT_NUMERIC,
    WRONG_SHAPE,
    bad_int,
    call_rejects,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpteach.attacks.membership import ShadowExperiment, loss_attack
from dpteach.fairness import dp_diagnostics as dd
from dpteach.fairness import dp_impact as di
from dpteach.fairness.metrics import group_table
from dpteach.learning import erm
from dpteach.learning.dpsgd import DPSGDClassifier
from dpteach.learning.erm import PrivateLogisticRegression
from dpteach.learning.logistic import bound_rows
from dpteach.learning.network import Network

INF = math.inf
Z = stats.norm.isf(0.5e-6)            # ≈ 4.9: a two-sided 1e-6 tail for every statistical check


# --------------------------------------------------------------------------- data
@functools.cache
def small():
    """300 training and 200 test rows, 6 features in [0, 1]; a minority group "b" (10 %)
    whose label depends on a feature only it uses."""
    gen = np.random.default_rng(11)

    def part(n):
        g = np.where(gen.random(n) < 0.1, "b", "a")
        X = gen.random((n, 6))
        X[:, 5] = (g == "b") * 1.0
        logit = 3 * (X[:, 0] - 0.5) + np.where(g == "b", 4 * (X[:, 1] - 0.5), 0)
        y = (gen.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
        inc = np.char.add(g, np.where(y == 1, "+", "-"))
        return X, y, {"g": g, "g_y": inc}

    Xtr, ytr, gtr = part(300)
    Xte, yte, gte = part(200)
    return di.GroupedData(Xtr, ytr, Xte, yte, gtr, gte, tuple(f"x{i}" for i in range(6)))


def fake_table(rows):
    """A sweep table from (method, ε, seed, {key: (count, correct)}) tuples."""
    out = []
    for method, eps, seed, groups in rows:
        row = {"method": method, "epsilon": eps, "seed": seed}
        for key, (count, correct) in groups.items():
            row[f"count:{key}"], row[f"correct:{key}"] = count, correct
        out.append(row)
    return pd.DataFrame(out)


# ------------------------------------------------------------------- group accuracy
def test_group_accuracy_is_group_tables_accuracy_and_handles_one_class_groups():
    gen = np.random.default_rng(0)
    y, p = gen.integers(0, 2, 500), gen.integers(0, 2, 500)
    g = gen.choice(["x", "y", "z"], 500)
    ours = di.group_accuracy(y, p, sensitive_features=g)
    ref = group_table(y, p, sensitive_features=g)
    np.testing.assert_allclose(ours["accuracy"], ref["accuracy"], rtol=1e-15)
    assert ours["count"].tolist() == ref["count"].tolist()
    assert ours["correct"].sum() == int(np.sum(y == p))
    # a group with one class only: group_table refuses it, accuracy is that class's rate
    one = di.group_accuracy([1, 1, 0, 0], [1, 0, 0, 0], sensitive_features=["p", "p", "n", "n"])
    assert one.loc["p", "accuracy"] == 0.5 and one.loc["n", "accuracy"] == 1.0
    assert one.index.name == "group" and one["count"].dtype == np.int64


def test_adult_group_data_has_the_documented_groups():
    d = di.adult_group_data()
    assert d.X_train.shape == (30_162, 104) and d.X_test.shape == (15_060, 104)
    assert set(d.groups_train) == set(di.GROUPINGS)
    share = pd.Series(d.groups_train["sex"]).value_counts(normalize=True)
    assert 0.31 < share["women"] < 0.34
    race = pd.Series(d.groups_train["race"]).value_counts(normalize=True)
    assert race.index[0] == "White" and 0.85 < race["White"] < 0.87
    assert race["Other"] < 0.01 and race["Amer-Indian-Eskimo"] < 0.01
    rich_women = np.mean(d.groups_train["sex_income"] == "women >50K")
    assert 0.035 < rich_women < 0.038
    # sex_income is sex × label
    for part, y in (("train", d.y_train), ("test", d.y_test)):
        g = getattr(d, f"groups_{part}")
        assert np.array_equal(np.char.endswith(g["sex_income"], ">50K"), y == 1)
        assert np.array_equal(np.char.startswith(g["sex_income"], "women"), g["sex"] == "women")
    assert di.adult_group_data() is d and not d.X_train.flags.writeable


# ------------------------------------------------------------------------- fitting
def test_private_classifier_settings():
    sgd = di.private_classifier("sgd", INF, rng=3)
    assert sgd.max_grad_norm is None and sgd.noise_multiplier == 0.0
    clip = di.private_classifier("dpsgd", INF)
    assert clip.max_grad_norm == 1.0 and clip.noise_multiplier == 0.0
    dp = di.private_classifier("dpsgd", 0.5, n=100)
    assert dp.target_epsilon == 0.5 and dp.batch_size == 100 and dp.hidden == ()
    assert di.private_classifier("dpsgd", 0.5).batch_size == 256
    obj = di.private_classifier("objective", 2.0, rng=1)
    assert isinstance(obj, PrivateLogisticRegression) and obj.method == "objective"
    assert obj.epsilon == 2.0 and obj.lam == 1e-4 and obj.data_norm == math.sqrt(13)
    assert di.private_classifier("objective", INF).method == "none"
    with pytest.raises(di.ParameterError, match="epsilon=inf"):
        di.private_classifier("sgd", 1.0)


def test_fit_and_score_counts_the_models_predictions():
    d = small()
    row = di.fit_and_score("objective", 3.0, seed=4, data=d)
    model = di.private_classifier("objective", 3.0, rng=4).fit(d.X_train, d.y_train)
    pred = model.predict(d.X_test)
    assert row["count:all"] == 200 and row["correct:all"] == int(np.sum(pred == d.y_test))
    for grouping, labels in d.groups_test.items():
        table = di.group_accuracy(d.y_test, pred, sensitive_features=labels)
        for group, r in table.iterrows():
            assert row[f"correct:{grouping}={group}"] == r["correct"]
            assert row[f"count:{grouping}={group}"] == r["count"]
        assert sum(row[f"correct:{grouping}={g}"] for g in table.index) == row["correct:all"]
    assert row["epsilon_spent"] == 3.0 and row["noise_multiplier"] is None
    dp = di.fit_and_score("dpsgd", 1.0, seed=4, data=d)
    assert 0 < dp["epsilon_spent"] <= 1.0 and dp["noise_multiplier"] > 0
    again = di.fit_and_score("dpsgd", 1.0, seed=4, data=d)
    assert {k: v for k, v in dp.items() if k != "fit_seconds"} == \
        {k: v for k, v in again.items() if k != "fit_seconds"}              # seeded


def test_sweep_runs_every_fit_once():
    table = di.dp_fairness_sweep([1.0, 5.0], methods=("sgd", "dpsgd", "objective"),
                                 seeds=[0, 1], data=small())
    fits = table.groupby(["method", "epsilon"]).size().to_dict()
    assert fits == {("dpsgd", 1.0): 2, ("dpsgd", 5.0): 2, ("dpsgd", INF): 2,
                    ("objective", 1.0): 2, ("objective", 5.0): 2, ("objective", INF): 2,
                    ("sgd", INF): 2}
    only = di.dp_fairness_sweep([1.0], methods=["objective"], seeds=[7], data=small(),
                                include_nonprivate=False)
    assert len(only) == 1 and only["seed"].tolist() == [7]


# ------------------------------------------------------------------ reading a sweep
def hand_table():
    # sgd baseline: 2 seeds; dpsgd at ε = 1: 3 seeds. Groups: all (10 rows), g=a (6), g=b (4)
    rows = [("sgd", INF, 0, {"all": (10, 9), "g=a": (6, 6), "g=b": (4, 3)}),
            ("sgd", INF, 1, {"all": (10, 8), "g=a": (6, 5), "g=b": (4, 3)}),
            ("dpsgd", 1.0, 0, {"all": (10, 7), "g=a": (6, 6), "g=b": (4, 1)}),
            ("dpsgd", 1.0, 1, {"all": (10, 8), "g=a": (6, 6), "g=b": (4, 2)}),
            ("dpsgd", 1.0, 2, {"all": (10, 6), "g=a": (6, 5), "g=b": (4, 1)})]
    return fake_table(rows)


def test_summary_by_hand():
    s = di.summarize_sweep(hand_table()).set_index(["method", "epsilon", "group"])
    b = s.loc[("dpsgd", 1.0, "b")]
    acc = np.array([1, 2, 1]) / 4
    base = np.array([3, 3]) / 4
    assert b["count"] == 4 and b["share"] == 0.4 and b["n_seeds"] == 3 and b["grouping"] == "g"
    assert math.isclose(b["mean"], acc.mean()) and math.isclose(b["sd"], acc.std(ddof=1))
    assert b["min"] == 0.25 and b["max"] == 0.5
    assert math.isclose(b["baseline"], 0.75) and math.isclose(b["drop"], 0.75 - acc.mean())
    assert math.isclose(b["drop_se"], math.sqrt(acc.var(ddof=1) / 3 + base.var(ddof=1) / 2))
    top = s.loc[("sgd", INF, "all")]
    assert top["grouping"] == "all" and top["drop"] == 0 and top["share"] == 1
    # without a baseline the drops are NaN, not an error
    alone = di.summarize_sweep(hand_table().iloc[2:])
    assert alone["baseline"].isna().all() and alone["mean"].notna().all()


def test_excess_drop_by_hand():
    out = di.excess_drop(hand_table(), method="dpsgd", epsilon=1.0, group="g=b",
                         reference="g=a")
    d_priv = np.array([1 / 4 - 1, 2 / 4 - 1, 1 / 4 - 5 / 6])
    d_base = np.array([3 / 4 - 1, 3 / 4 - 5 / 6])
    assert math.isclose(out["excess"], d_base.mean() - d_priv.mean())
    assert math.isclose(out["se"], math.sqrt(d_priv.var(ddof=1) / 3 + d_base.var(ddof=1) / 2))
    assert math.isclose(out["drop"] - out["reference_drop"], out["excess"])
    assert (out["n_private"], out["n_baseline"]) == (3, 2)
    with pytest.raises(di.ParameterError, match="group"):
        di.excess_drop(hand_table(), method="dpsgd", epsilon=1.0, group="g=c")
    with pytest.raises(di.ParameterError, match="table"):
        di.excess_drop(hand_table(), method="objective", epsilon=1.0, group="g=a")


def test_accuracy_curves_by_hand():
    rows = [("objective", e, s, {"all": (10, a + b), "g=a": (6, a), "g=b": (4, b)})
            for e, a, b in ((1.0, 4, 4), (0.1, 2, 3), (INF, 5, 4)) for s in range(2)]
    s = di.summarize_sweep(fake_table(rows))
    cur = di.accuracy_curves(s, method="objective", grouping="g")
    assert cur["groups"] == ["a", "b"] and cur["epsilons"].tolist() == [0.1, 1.0]
    np.testing.assert_allclose(cur["mean"], [[2 / 6, 4 / 6], [3 / 4, 4 / 4]])
    np.testing.assert_array_equal(cur["sd"], 0.0)
    np.testing.assert_allclose(cur["nonprivate"], [5 / 6, 1.0])
    assert cur["counts"].tolist() == [6, 4]


def test_compare_with_sweep_tolerance_by_hand():
    ship = fake_table([("dpsgd", 1.0, s, {"all": (100, c)}) for s, c in enumerate([80, 82, 84])])
    live = fake_table([("dpsgd", 1.0, 9, {"all": (100, 83)}),
                       ("dpsgd", 1.0, 10, {"all": (100, 85)})])
    row = di.compare_with_sweep(live, ship, alpha=0.05).iloc[0]
    a, b = np.array([0.83, 0.85]), np.array([0.80, 0.82, 0.84])
    sp = math.sqrt((((a - a.mean()) ** 2).sum() + ((b - b.mean()) ** 2).sum()) / 3)
    tol = stats.t.isf(0.025, 3) * sp * math.sqrt(1 / 2 + 1 / 3) + 0.01
    assert math.isclose(row["pooled_sd"], sp) and math.isclose(row["tolerance"], tol)
    assert math.isclose(row["difference"], 0.02) and row["ok"]
    far = fake_table([("dpsgd", 1.0, 9, {"all": (100, 99)})])
    assert not di.compare_with_sweep(far, ship, alpha=0.05).iloc[0]["ok"]
    # with 2 degrees of freedom and α = 1e-6 the t quantile is about 1,400: nearly anything goes
    assert di.compare_with_sweep(far, ship).iloc[0]["tolerance"] > 1
    # one live fit: the shipped sd alone, with k_s − 1 degrees of freedom
    one = di.compare_with_sweep(far.assign(**{"correct:all": 83}), ship, alpha=0.05).iloc[0]
    assert math.isclose(one["pooled_sd"], b.std(ddof=1))


def test_compare_with_sweep_passes_identically_distributed_fits():
    # the same configuration, fresh seeds: every group within the tolerance
    d = small()
    ship = di.dp_fairness_sweep([2.0], methods=["objective"], seeds=range(8), data=d,
                                include_nonprivate=False)
    live = di.dp_fairness_sweep([2.0], methods=["objective"], seeds=[100, 101, 102], data=d,
                                include_nonprivate=False)
    assert di.compare_with_sweep(live, ship)["ok"].all()


# -------------------------------------------------------------------- the mechanism
def test_gradient_stats_are_the_networks_per_example_norms():
    d = small()
    net = Network((6, 4, 2), rng=0)
    g = d.groups_train["g"]
    out = dd.gradient_stats_by_group(net, d.X_train, d.y_train, sensitive_features=g,
                                     max_grad_norm=0.3)
    norms = net.per_example_grad_norms(d.X_train, d.y_train)
    c = np.minimum(1, 0.3 / norms)
    for group in ("a", "b"):
        k = g == group
        r = out.loc[group]
        assert r["count"] == k.sum() and math.isclose(r["share"], k.mean())
        assert math.isclose(r["mean_norm"], norms[k].mean(), rel_tol=1e-12)
        assert math.isclose(r["median_norm"], np.median(norms[k]), rel_tol=1e-12)
        assert math.isclose(r["fraction_clipped"], np.mean(norms[k] > 0.3))
        assert math.isclose(r["mean_clip_factor"], c[k].mean(), rel_tol=1e-12)
        assert math.isclose(r["gradient_share"], norms[k].sum() / norms.sum(), rel_tol=1e-12)
        assert math.isclose(r["clipped_share"], (c * norms)[k].sum() / (c * norms).sum(),
                            rel_tol=1e-12)
    assert math.isclose(out["gradient_share"].sum(), 1) and math.isclose(
        out["clipped_share"].sum(), 1)


def test_gradient_stats_of_a_classifier_map_its_labels():
    d = small()
    labels = np.where(d.y_train == 1, "yes", "no")
    clf = DPSGDClassifier(noise_multiplier=0.0, max_grad_norm=None, hidden=(), batch_size=50,
                          epochs=2, rng=0).fit(d.X_train, labels)
    out = dd.gradient_stats_by_group(clf, d.X_train, labels,
                                     sensitive_features=d.groups_train["g_y"])
    norms = clf.model_.per_example_grad_norms(d.X_train.astype(np.float32), d.y_train)
    k = d.groups_train["g_y"] == "b+"
    assert math.isclose(out.loc["b+", "mean_norm"], norms[k].mean(), rel_tol=1e-6)
    with pytest.raises(di.ParameterError, match="y must hold labels"):
        dd.gradient_stats_by_group(clf, d.X_train, d.y_train, sensitive_features=labels)


def _logit_shifts(X, y, Xq, eps, lam, R, draws):
    """Logit shifts of real objective-perturbation fits against the exact minimiser."""
    Z = bound_rows(X, R, False)
    s = np.where(y == 1, 1.0, -1.0)
    Zq = bound_rows(Xq, R, False)
    w = erm.objective_perturbation(Z, s, 1e300, lam, rng=0).w     # ε → ∞: no noise left
    return np.array([Zq @ erm.objective_perturbation(Z, s, eps, lam, rng=r).w - Zq @ w
                     for r in range(draws)])


@pytest.mark.parametrize("eps, lam", [(8.0, 1e-3), (3.0, 3e-5)])
def test_objective_noise_matches_real_draws(eps, lam):
    # (8, 1e-3): Δ = 0; (3, 3e-5) on 2,000 rows: Δ > 0 (ε < 2 log(1 + c/(nΛ)) = 3.28),
    # where the shrinkage term −H⁻¹Δw* moves the mean
    gen = np.random.default_rng(5)
    n = 2000
    X = gen.random((n, 4))
    y = (gen.random(n) < 1 / (1 + np.exp(-4 * (X[:, 0] - X[:, 1])))).astype(int)
    Xq = gen.random((6, 4))
    groups = np.array(["r0", "r1", "r2", "r3", "r4", "r5"])
    out = dd.objective_perturbation_noise_by_group(X, y, Xq, sensitive_features=groups,
                                                   epsilon=eps, lam=lam, data_norm=2.0)
    const = erm.objective_perturbation_constants(eps, n, lam)
    assert (const.Delta > 0) == (lam < 1e-4)
    draws = 300
    shifts = _logit_shifts(X, y, Xq, eps, lam, 2.0, draws)
    # the sample sd of k draws has relative standard error ≈ 1/√(2(k − 1)) ≈ 0.041; with Z of
    # them and 5 % for the linearisation (shifts here are ≤ 0.2 in logit)
    rel = Z / math.sqrt(2 * (draws - 1)) + 0.05
    emp = shifts.std(axis=0, ddof=1)
    np.testing.assert_allclose(emp, out["logit_noise_sd"].to_numpy(), rtol=rel)
    # the mean shift: its sample mean has standard error sd/√k
    Z2 = bound_rows(X, 2.0, False)
    w = erm.objective_perturbation(Z2, np.where(y == 1, 1.0, -1.0), 1e300, lam, rng=0).w
    m = bound_rows(Xq, 2.0, False) @ w
    np.testing.assert_allclose(out["margin"], np.abs(m), rtol=1e-6)
    pred_flip = out["flip_rate"].to_numpy()
    flips = ((m + shifts) * m < 0).mean(axis=0)
    # a flip frequency over k draws has standard error √(p(1 − p)/k) (p floored at 1e-4 so a
    # row that never flips still gets one), plus 0.03 for the Gaussian approximation of the
    # shift's distribution
    se = np.sqrt(np.maximum(pred_flip * (1 - pred_flip), 1e-4) / draws)
    assert np.all(np.abs(flips - pred_flip) <= Z * se + 0.03)


def test_objective_noise_is_larger_for_a_small_group():
    # the minority's own feature (x5) gets curvature from its rows only
    d = small()
    out = dd.objective_perturbation_noise_by_group(
        d.X_train, d.y_train, d.X_test, sensitive_features=d.groups_test["g"], epsilon=1.0)
    assert out.loc["b", "logit_noise_sd"] > 1.3 * out.loc["a", "logit_noise_sd"]
    assert out["count"].sum() == 200 and ((out["flip_rate"] >= 0) & (out["flip_rate"] <= 0.5)).all()


# ------------------------------------------------------------ membership inference
def leaky_experiment(M=8, N=400, leak=1.5, seed=0):
    """Losses: group "leaky" (first quarter) has members' losses lower by ``leak``; group
    "safe" has no signal at all."""
    gen = np.random.default_rng(seed)
    member = gen.random((M, N)) < 0.5
    loss = gen.exponential(1.0, (M, N))
    groups = np.where(np.arange(N) < N // 4, "leaky", "safe")
    loss = loss + np.where((groups == "leaky") & ~member, leak, 0.0)
    conf = -loss
    return ShadowExperiment(member, conf, loss, np.ones(M), np.ones(M), np.full(M, np.nan)), groups


def test_membership_advantage_pools_like_loss_attack():
    ex, _ = leaky_experiment()
    one = dd.membership_advantage_by_group(ex, sensitive_features=np.zeros(400, int),
                                           attack="loss", n_permutations=2, rng=0)
    ref = loss_attack(ex)
    assert math.isclose(one.loc[0, "advantage"], ref.advantage, rel_tol=1e-12)
    assert math.isclose(one.loc[0, "auc"], ref.auc, rel_tol=1e-12)


def test_membership_advantage_finds_the_leaky_group_only():
    ex, groups = leaky_experiment()
    for attack in ("loss", "lira", "lira_offline"):
        out = dd.membership_advantage_by_group(ex, sensitive_features=groups, attack=attack,
                                               n_permutations=200, rng=1)
        leaky, safe = out.loc["leaky"], out.loc["safe"]
        assert leaky["excess"] > Z * leaky["chance_sd"] and leaky["p_value"] == 1 / 201
        # no signal: the observed advantage is one more draw of the permutation distribution
        assert abs(safe["excess"]) <= Z * safe["chance_sd"]
        # chance shrinks with the group's size: 100 vs 300 examples per model
        assert leaky["chance"] > safe["chance"]
        assert out["count"].tolist() == [100, 300]


def test_membership_advantage_chance_level_of_pure_noise():
    # with no signal anywhere, p-values are (discrete) uniform: over 40 experiments, the mean
    # p-value of 40 independent U(0,1) has sd √(1/12/40) ≈ 0.046
    ps = []
    for seed in range(40):
        ex, groups = leaky_experiment(M=4, N=120, leak=0.0, seed=seed)
        out = dd.membership_advantage_by_group(ex, sensitive_features=groups, attack="loss",
                                               n_permutations=40, rng=seed)
        ps.append(out.loc["safe", "p_value"])
    assert abs(np.mean(ps) - 0.5) < Z * math.sqrt(1 / 12 / 40) + 1 / 41


def test_membership_group_without_members_is_refused():
    ex, _ = leaky_experiment(M=2, N=40)
    groups = np.array(["x"] * 39 + ["lonely"])
    with pytest.raises(di.ParameterError, match="sensitive_features"):
        dd.membership_advantage_by_group(ex, sensitive_features=groups, n_permutations=1)


# --------------------------------------------------------------- the shared checks
def test_shared_checks_return_the_documented_arrays():
    # group labels keep their kind (an object array of strings becomes a str array); 0/1
    # labels of any numeric kind become int64
    g = di.check_group_labels("g", np.array(["a", "b"], dtype=object), 2)
    assert g.dtype.kind == "U" and g.tolist() == ["a", "b"]
    assert di.check_group_labels("g", [True, False, True], 3).dtype == bool
    y = di.check_zero_one_labels("y", [True, False, 1.0])
    assert y.dtype == np.int64 and y.tolist() == [1, 0, 1]
    with pytest.raises(di.ParameterError, match=r"y must hold 0/1 labels of shape \(2,\), "
                                                r"one per row of X_train"):
        di.check_zero_one_labels("y", [0, 1, 1], 2, rows_of="X_train")
    with pytest.raises(TypeError, match="g must hold strings"):
        di.check_group_labels("g", [0.5, 1.5], 2)


# ------------------------------------------------------------------ bad input
BAD_EPS = st.one_of(st.sampled_from([0, 0.0, -1.0, math.nan, -math.inf, 1e-4, 1e4, 2e3]),
                    NOT_A_NUMBER, WRONG_SHAPE)
# a list of ε: one bad entry, or a wrong shape (a single valid ε is a valid list)
BAD_EPS_LIST = st.sampled_from([0, -1.0, math.nan, 1e-4, 1e4, [1.0, -1.0], [1.0, math.nan],
                                np.ones((2, 2)), np.array([]), "1", None, [1j], ["1.0"],
                                list(np.linspace(1, 2, 101))])
BAD_LABELS = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from(
    [np.array([0, 2, 1]), [0.5, 1, 0], np.array([[0, 1]]), np.array([]), [0, 1, 1, 0, 1]]))
BAD_GROUPS = st.sampled_from([None, "ab", np.array([0.5, 1.5, 2.5]), [1.0, 2.0, 3.0],
                              ["a", "b"], np.array([[1, 2, 3]]), [object()] * 3, [1j] * 3,
                              np.array([np.nan, 1, 2])])
NOT_DATA = st.sampled_from(["x", 1, [1, 2], {"fpr": [0, 1]}, np.zeros(3), 1.5])   # None: Adult
BAD_TABLE = st.one_of(NOT_AN_OBJECT, st.sampled_from([
    pd.DataFrame(), pd.DataFrame({"method": ["dpsgd"], "epsilon": [1.0], "seed": [0]}),
    fake_table([("dpsgd", 1.0, 0, {"all": (10, 11)})]),
    fake_table([("dpsgd", -1.0, 0, {"all": (10, 5)})]),
    fake_table([("nope", 1.0, 0, {"all": (10, 5)})]),
    fake_table([("dpsgd", "x", 0, {"all": (10, 5)})])]))
SETTINGS = settings(max_examples=15, deadline=None)
#: Parameters of the shared checks that are the calling function's bookkeeping (the name
#: for messages, the row count it already checked), not a user's input.
SEAM_BOOKKEEPING = {"name", "n", "rows_of"}


@functools.cache
def tiny_experiment():
    return leaky_experiment(M=3, N=60)


def cases():
    d = small()
    net = Network((6, 2), rng=0)
    y3 = [0, 1, 1]
    ex, groups = tiny_experiment()
    summary = di.summarize_sweep(hand_table())
    return [
        # the shared checks, called with name="values" so that a message naming the
        # argument names ``values``
        (di.check_group_labels, dict(name="values", values=["a", "b", "a"], n=3),
         {"values": BAD_GROUPS}),
        (di.check_zero_one_labels, dict(name="values", values=y3, n=3, rows_of="X"),
         {"values": BAD_LABELS}),
        (di.group_accuracy, dict(y_true=y3, y_pred=y3, sensitive_features=["a", "b", "a"]),
         {"y_true": BAD_LABELS, "y_pred": BAD_LABELS, "sensitive_features": BAD_GROUPS}),
        (di.private_classifier, dict(method="dpsgd", epsilon=1.0, rng=0, n=10),
         {"method": BAD_CHOICE, "epsilon": BAD_EPS, "n": bad_int(1, di.MAX_ROWS),
          "rng": BAD_RNG}),
        (di.fit_and_score, dict(method="objective", epsilon=1.0, seed=0, data=d),
         {"method": BAD_CHOICE, "epsilon": BAD_EPS, "seed": bad_int(0, 2**32 - 1),
          "data": NOT_DATA}),
        (di.dp_fairness_sweep, dict(epsilons=[1.0], methods=["objective"], seeds=[0], data=d,
                                    include_nonprivate=False, progress=False),
         {"epsilons": BAD_EPS_LIST,
          "methods": st.sampled_from(["objective", ["nope"], [None], [], 3, None]),
          "seeds": st.sampled_from([[-1], [1.5], "0", None, 3, [], [True], list(range(1001))]),
          "data": NOT_DATA, "include_nonprivate": NOT_BOOL, "progress": NOT_BOOL}),
        (di.summarize_sweep, dict(table=hand_table()), {"table": BAD_TABLE}),
        (di.excess_drop, dict(table=hand_table(), method="dpsgd", epsilon=1.0, group="g=b",
                              reference="all"),
         {"table": BAD_TABLE, "method": st.one_of(BAD_CHOICE, st.just("sgd")),
          "epsilon": BAD_EPS, "group": st.sampled_from(["g=c", None, 1, ["g=a"]]),
          "reference": st.sampled_from(["x", None, 2.0])}),
        (di.accuracy_curves, dict(summary=summary, method="dpsgd", grouping="g"),
         {"summary": NOT_AN_OBJECT, "method": BAD_CHOICE,
          "grouping": st.sampled_from(["nope", None, 1, ["g"]])}),
        (di.compare_with_sweep, dict(live=hand_table(), shipped=hand_table(), alpha=0.01),
         {"live": BAD_TABLE, "shipped": BAD_TABLE,
          "alpha": st.one_of(st.sampled_from([0, 0.0, 0.6, 1, -0.1, math.nan, math.inf]),
                             NOT_A_NUMBER, WRONG_SHAPE)}),
        (dd.gradient_stats_by_group, dict(model=net, X=d.X_train[:5], y=d.y_train[:5],
                                          sensitive_features=d.groups_train["g"][:5],
                                          max_grad_norm=1.0),
         {"model": NOT_AN_OBJECT, "X": st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, WRONG_SHAPE),
          "y": st.sampled_from([[0, 1], np.zeros((5, 1)), None]),
          "sensitive_features": BAD_GROUPS,
          "max_grad_norm": st.one_of(st.sampled_from([0, -1.0, math.nan, math.inf]),
                                     NOT_A_NUMBER, WRONG_SHAPE)}),
        (dd.objective_perturbation_noise_by_group,
         dict(X_train=d.X_train, y_train=d.y_train, X=d.X_test[:3],
              sensitive_features=["a", "b", "a"], epsilon=1.0, lam=1e-3, data_norm=2.0,
              fit_intercept=False),
         {"X_train": st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, WRONG_SHAPE),
          "y_train": BAD_LABELS, "X": st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, WRONG_SHAPE),
          "sensitive_features": BAD_GROUPS, "epsilon": st.one_of(BAD_EPS, st.just(INF)),
          "lam": st.one_of(st.sampled_from([0, -1.0, math.nan, math.inf]), NOT_A_NUMBER),
          "data_norm": st.one_of(st.sampled_from([0, -2.0, math.nan, math.inf]), NOT_A_NUMBER),
          "fit_intercept": NOT_BOOL}),
        (dd.membership_advantage_by_group,
         dict(experiment=ex, sensitive_features=groups, attack="loss", n_permutations=2, rng=0),
         {"experiment": NOT_AN_OBJECT, "sensitive_features": BAD_GROUPS,
          "attack": BAD_CHOICE, "n_permutations": bad_int(1, dd.MAX_PERMUTATIONS),
          "rng": BAD_RNG}),
    ]


CASES = [(f, valid, arg, strategy) for f, valid, args in cases()
         for arg, strategy in args.items()]


@pytest.mark.parametrize("func, valid, arg, strategy", CASES,
                         ids=[f"{f.__name__}-{a}" for f, _, a, _ in CASES])
def test_rejects_bad_values(func, valid, arg, strategy):
    @SETTINGS
    @given(bad=strategy)
    def run(bad):
        call_rejects(func, {**valid, arg: bad}, arg)

    run()


@pytest.mark.parametrize("func, valid", [(f, v) for f, v, _ in cases()],
                         ids=[f.__name__ for f, _, _ in cases()])
def test_valid_baseline_calls_succeed(func, valid):
    assert func(**valid) is not None


def test_every_public_function_is_attacked():
    import inspect
    public = {name for module in (di, dd) for name in module.__all__
              if inspect.isfunction(getattr(module, name))
              and inspect.signature(getattr(module, name)).parameters}
    attacked = {f.__name__ for f, _, _, _ in CASES}
    assert public == attacked, public ^ attacked
    for f, valid, args in cases():
        params = set(inspect.signature(f).parameters)
        skip = SEAM_BOOKKEEPING if f.__name__.startswith("check_") else set()
        assert params == set(valid) and params - skip == set(args), (f.__name__,
                                                                     params ^ set(args))
