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
Statistical tolerances are derived in comments. Single bad values are refused by the
generated tests of ``tests/test_domains.py``; here are the issue's edges and the rules that tie
arguments together.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpteach._validation import ParameterError
from dpteach.attacks.membership import ShadowExperiment, loss_attack
from dpteach.fairness import dp_diagnostics as dd
from dpteach.fairness import dp_impact as di
from dpteach.fairness.metrics import group_table
from dpteach.learning import erm
from dpteach.learning.dpsgd import DPSGDClassifier
from dpteach.learning.erm import PrivateLogisticRegression
from dpteach.learning.logistic import bound_rows, fit_logistic_erm
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
    with pytest.raises(ParameterError, match="epsilon must be math.inf with method='sgd'"):
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
    with pytest.raises(ParameterError, match="group"):
        di.excess_drop(hand_table(), method="dpsgd", epsilon=1.0, group="g=c")
    with pytest.raises(ParameterError, match="table"):
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
    with pytest.raises(ParameterError, match="y must be labels of model.classes_"):
        dd.gradient_stats_by_group(clf, d.X_train, d.y_train, sensitive_features=labels)


def _logit_shifts(X, y, Xq, eps, lam, R, draws):
    """Logit shifts of real objective-perturbation fits against the exact minimiser."""
    Z = bound_rows(X, R, False)
    s = np.where(y == 1, 1.0, -1.0)
    Zq = bound_rows(Xq, R, False)
    w = fit_logistic_erm(Z, s, lam)                    # the exact minimiser (ε → ∞, Δ = 0)
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
    w = fit_logistic_erm(Z2, np.where(y == 1, 1.0, -1.0), lam)           # the exact minimiser
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
    with pytest.raises(ParameterError, match="sensitive_features"):
        dd.membership_advantage_by_group(ex, sensitive_features=groups, n_permutations=1)


# ------------------------------------------------- the edges, rules between arguments
def test_epsilon_beyond_the_float_range_is_refused_like_1e4():
    # the issue: epsilon=10**400 was read as ε = ∞ (non-private) while 1e4 was refused
    for eps in (10**400, 1e4, 1e308):
        with pytest.raises(ParameterError, match="epsilon must be math.inf or a number"):
            di.private_classifier("dpsgd", eps)
    assert di.private_classifier("objective", math.inf).method == "none"


def test_accuracy_curves_refuse_a_duplicated_column():
    # the issue: a summary with a column twice gave a bare pandas error
    summary = di.summarize_sweep(hand_table())
    twice = pd.concat([summary, summary[["mean"]]], axis=1)
    with pytest.raises(ParameterError, match="^summary must be the DataFrame of "
                                                "summarize_sweep"):
        di.accuracy_curves(twice, method="dpsgd", grouping="g")
    table = hand_table()
    with pytest.raises(ParameterError, match="^table must be a non-empty DataFrame"):
        di.summarize_sweep(pd.concat([table, table[["seed"]]], axis=1))


def test_rules_between_arguments():
    d = small()
    with pytest.raises(ParameterError, match="epsilon must be math.inf with method='sgd'"):
        di.fit_and_score("sgd", 1.0, seed=0, data=d)
    with pytest.raises(ParameterError, match="one entry per row"):
        di.group_accuracy([0, 1, 1], [0, 1], sensitive_features=["a", "b", "a"])
    with pytest.raises(ParameterError, match="group, reference must be keys of table"):
        di.excess_drop(hand_table(), method="dpsgd", epsilon=1.0, group="g=c")
    with pytest.raises(ParameterError, match="X_train, X must be of one number of columns"):
        dd.objective_perturbation_noise_by_group(d.X_train, d.y_train, d.X_test[:3, :5],
                                                 sensitive_features=["a", "b", "a"],
                                                 epsilon=1.0)
    ex, groups = leaky_experiment(M=2, N=60_000)        # 1.2e5 scores × 1e4 > 1e8
    with pytest.raises(ParameterError, match=r"n_permutations must be ≤ 1e8/\(models"):
        dd.membership_advantage_by_group(ex, sensitive_features=groups, n_permutations=10_000)
    with pytest.raises(ParameterError, match=r"X_train, y_train, groups_train\['g'\], .* must "
                                             r"be of one length .*'y_train': 299"):
        di.GroupedData(d.X_train, d.y_train[:-1], d.X_test, d.y_test, d.groups_train,
                       d.groups_test)
    one_class = np.zeros_like(d.y_train)               # a fit needs both training classes
    with pytest.raises(ParameterError, match="^y_train must be .*with both labels"):
        di.GroupedData(d.X_train, one_class, d.X_test, d.y_test, d.groups_train, d.groups_test)
    di.GroupedData(d.X_train, d.y_train, d.X_test, np.zeros_like(d.y_test), d.groups_train,
                   d.groups_test)                     # one class among the test rows is fine


@functools.cache
def tiny_experiment():
    return leaky_experiment(M=3, N=60)


# ----------------------------------------------- exact answers at the domain's edges
def test_clipping_norm_extremes_have_known_answers():
    # C at its smallest: every example is clipped; at its largest: nothing is
    d = small()
    kw = dict(model=Network((6, 2), rng=0), X=d.X_train, y=d.y_train,
              sensitive_features=d.groups_train["g"])
    tiny = dd.gradient_stats_by_group(**kw, max_grad_norm=1e-6)
    assert (tiny["fraction_clipped"] == 1).all()
    huge = dd.gradient_stats_by_group(**kw, max_grad_norm=1e6)
    assert (huge["fraction_clipped"] == 0).all() and (huge["mean_clip_factor"] == 1).all()
    pd.testing.assert_series_equal(huge["gradient_share"], huge["clipped_share"],
                                   check_names=False)


def test_counts_and_features_beyond_the_domain_are_refused_by_name():
    table = hand_table()
    for count in (2**60, 10**400):                 # never an OverflowError
        big = table.astype(object)
        big["count:all"] = count
        with pytest.raises(ParameterError, match="^table must"):
            di.summarize_sweep(big)
    d = small()
    with pytest.raises(ParameterError, match="^X_train must"):
        di.GroupedData(d.X_train * 2, d.y_train, d.X_test, d.y_test, d.groups_train,
                       d.groups_test)
