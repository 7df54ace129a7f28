"""The fairness figures (dpteach.plots.fairness): their numbers against the metrics module.

Every gap is :mod:`dpteach.fairness.metrics` called on the shipped model's decisions (and the
issue's test vector gives its stated values); the per-group rates are ``group_table``'s; the
ROC curves and operating points are the metrics module's TPR and FPR; the trade-off chart's
grid is the metrics module at every threshold pair, its frontier is the best accuracy at each
gap, its single-threshold curve the diagonal, its current point :func:`fairness_gaps`. Both
renderers draw every figure. A hypothesis bad-input test attacks every public function
(``_props.call_rejects``).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from _props import BAD_CHOICE, BAD_PROB, NON_FINITE_ARRAYS, NOT_NUMERIC, call_rejects
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from dpteach.fairness import metrics as M
from dpteach.plots import fairness as F
from dpteach.plots.figure import to_vega_lite
from dpteach.tables import load_fairness_table

# the issue's test vector
A = [0] * 8 + [1] * 8
Y = [1, 1, 1, 1, 0, 0, 0, 0] * 2
P = [1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0]


@pytest.fixture(scope="module")
def table() -> dict:
    t = load_fairness_table()
    assert t is not None, "run scripts/precompute_app_tables.py --only fairness"
    return t


def _index(t: float) -> int:
    return F.THRESHOLDS.index(t)


# ------------------------------------------------------------------------ the numbers
def test_gap_values_on_the_issue_test_vector():
    got = F.gap_values(Y, P, sensitive_features=A)
    assert list(got) == list(F.GRID_NAMES)
    assert got["demographic_parity"] == 0.375
    assert got["equalized_odds_worst"] == 0.5
    assert got["equalized_odds_mean"] == 0.375
    assert got["equalized_odds_sum"] == 0.75
    assert got["equal_opportunity"] == 0.5
    assert got["equal_opportunity_laftr"] == 0.25          # |ΔFPR| = |0 − 1/4|
    assert got["accuracy"] == 13 / 16
    assert all(type(v) is float for v in got.values())


def test_gap_values_are_the_metrics_modules(table):
    y, y_pred, sex = F.adult_predictions(0.37, 0.61)
    kw = {"sensitive_features": sex}
    assert F.gap_values(y, y_pred, **kw) == {
        "accuracy": float(np.mean(y == y_pred)),
        "demographic_parity": M.demographic_parity_difference(y, y_pred, **kw),
        "equalized_odds_worst": M.equalized_odds_difference(y, y_pred, agg="worst_case", **kw),
        "equalized_odds_mean": M.equalized_odds_difference(y, y_pred, agg="mean", **kw),
        "equalized_odds_sum": M.equalized_odds_sum(y, y_pred, **kw),
        "equal_opportunity": M.equal_opportunity_difference(y, y_pred, **kw),
        "equal_opportunity_laftr": M.laftr_equal_opportunity_difference(y, y_pred, **kw),
    }
    assert F.fairness_gaps(0.37, 0.61) == F.gap_values(y, y_pred, **kw)


def test_adult_predictions_apply_each_groups_threshold(table):
    y, y_pred, sex = F.adult_predictions(0.3, 0.7)
    assert y.size == y_pred.size == sex.size == 15_060
    assert int(sex.sum()) == 4913                                  # women in the test split
    score = table["score"]
    np.testing.assert_array_equal(y_pred[sex == 1], score[sex == 1] >= 0.3)
    np.testing.assert_array_equal(y_pred[sex == 0], score[sex == 0] >= 0.7)
    assert F.adult_predictions(0.0, 0.0)[1].all()                 # 0 selects everyone
    assert not F.adult_predictions(1.0, 1.0)[1].any()             # every score is below 1
    np.testing.assert_array_equal(y, table["y"])


def test_the_grid_is_the_metrics_module_at_every_pair(table):
    grid = table["grid"]
    assert grid.shape == (len(F.GRID_NAMES), 101, 101)
    for tf, tm in ((0.5, 0.5), (0.0, 1.0), (0.23, 0.71), (1.0, 0.05)):
        now = F.fairness_gaps(tf, tm)
        stored = grid[:, _index(tf), _index(tm)]
        assert stored.tolist() == [float(np.float32(now[n])) for n in F.GRID_NAMES]
    # only the classifiers that select everyone or no one close every gap at once (the
    # page's claim): with different base rates, the gaps cannot all be 0 otherwise
    all_gaps = grid[1:].max(axis=0)
    closed = {(F.THRESHOLDS[i], F.THRESHOLDS[j]) for i, j in np.argwhere(all_gaps == 0)}
    assert closed == {(0.0, 0.0), (1.0, 1.0)}
    # and one threshold for both groups is not the most accurate pair
    diag = np.diag(grid[0])
    assert grid[0].max() > diag.max()


def test_group_rates_are_group_table(table):
    got = F.group_rates(0.4, 0.55)
    y, y_pred, sex = F.adult_predictions(0.4, 0.55)
    ref = M.group_table(y, y_pred, sensitive_features=sex)
    assert got.index.tolist() == ["women", "men"]
    assert got["threshold"].tolist() == [0.4, 0.55]
    for name, a in (("women", 1), ("men", 0)):
        for col in ref.columns:
            assert got.loc[name, col] == ref.loc[a, col], (name, col)
    assert got.loc["women", "count"] == 4913 and got.loc["men", "count"] == 10_147
    # a threshold that selects no one: PPV 0/0 is NaN, the rest is defined
    nobody = F.group_rates(1.0, 0.5)
    assert math.isnan(nobody.loc["women", "positive_predictive_value"])
    assert nobody.loc["women", "selection_rate"] == 0.0
    assert not nobody.drop(columns="positive_predictive_value").isna().any().any()


def test_group_roc_data_marks_each_groups_point_on_its_curve(table):
    data = F.group_roc_data(0.3, 0.6)
    assert [s.key for s in data.series] == ["roc-women", "roc-men", "point-women", "point-men",
                                            "chance"]
    y, y_pred, sex = F.adult_predictions(0.3, 0.6)
    for name, a, t in (("women", 1, 0.3), ("men", 0, 0.6)):
        mine = sex == a
        tpr = M.true_positive_rate(y[mine], y_pred[mine])
        fpr = M.false_positive_rate(y[mine], y_pred[mine])
        point = data.series_by_key(f"point-{name}")
        assert (point.x.tolist(), point.y.tolist()) == ([fpr], [tpr])
        assert data.extra["tpr"][name] == tpr and data.extra["fpr"][name] == fpr
        curve = data.series_by_key(f"roc-{name}")
        i = _index(t)                          # the point lies on its curve (float32 table)
        assert curve.x[i] == pytest.approx(fpr, abs=1e-7)
        assert curve.y[i] == pytest.approx(tpr, abs=1e-7)
        assert curve.x[0] == curve.y[0] == 1.0 and curve.x[-1] == curve.y[-1] == 0.0
        assert np.all(np.diff(curve.x) <= 0) and np.all(np.diff(curve.y) <= 0)
        g = 0 if name == "women" else 1
        k = _index(0.45)
        yg, pg = y[mine], (table["score"][mine] >= 0.45).astype(int)
        assert table["group_rates"][g, :, k].tolist() == [
            float(np.float32(v)) for v in (M.selection_rate(yg, pg), M.true_positive_rate(yg, pg),
                                           M.false_positive_rate(yg, pg))]
    assert data.x_domain == data.y_domain == (0.0, 1.0)
    d_tpr = abs(data.extra["tpr"]["women"] - data.extra["tpr"]["men"])
    assert f"|ΔTPR| = {d_tpr:.3f}" in data.title
    assert "TPR" in data.y_title and "FPR" in data.x_title and "share" in data.x_title


def test_tradeoff_data_draws_the_grid_the_frontier_and_the_current_pair(table):
    grid = table["grid"]
    for gap in F.GAPS:
        data = F.threshold_tradeoff_data(0.42, 0.58, gap=gap)
        assert [s.key for s in data.series] == ["pairs", "frontier", "single", "current"]
        now = F.fairness_gaps(0.42, 0.58)
        cur = data.series_by_key("current")
        assert (cur.x.tolist(), cur.y.tolist()) == ([now[gap]], [now["accuracy"]])
        assert data.extra["gaps"] == now
        acc, values = grid[0], grid[F.GRID_NAMES.index(gap)]
        # the single-threshold curve is the diagonal of the grid
        single = data.series_by_key("single")
        np.testing.assert_array_equal(single.x, np.diag(values))
        np.testing.assert_array_equal(single.y, np.diag(acc))
        # the frontier never falls, and no pair of the grid beats it at its gap
        front = data.series_by_key("frontier")
        assert np.all(np.diff(front.x) >= 0) and np.all(np.diff(front.y) >= 0)
        assert front.y[-1] == acc.max() == data.extra["best_accuracy"]
        at = np.searchsorted(front.x, values.ravel(), side="right") - 1
        assert np.all(acc.ravel() <= front.y[at] + 1e-12)
        # the cloud: pairs of thresholds 0.05 apart, each at its grid value
        tf, tm = data.extra["cloud_thresholds"]
        pairs = data.series_by_key("pairs")
        assert set(tf.tolist()) <= set(F.THRESHOLDS[::5]) and pairs.x.size == tf.size > 50
        i, j = [np.array([_index(round(float(t), 2)) for t in ts]) for ts in (tf, tm)]
        np.testing.assert_array_equal(pairs.x, values[i, j])
        np.testing.assert_array_equal(pairs.y, acc[i, j])
        # the axes show the current pair and the frontier
        assert data.x_domain[0] == 0.0 and data.x_domain[1] >= max(front.x.max(), now[gap])
        assert data.y_domain[0] <= now["accuracy"] <= data.y_domain[1]
        assert data.y_domain[1] > acc.max()
        assert F.GAPS[gap][0] in data.x_title and "accuracy" in data.y_title
        assert "women t = 0.42, men t = 0.58" in data.title
    # a pair far from the best: the y axis reaches down to it
    low = F.threshold_tradeoff_data(0.0, 0.5)
    assert low.y_domain[0] <= low.extra["gaps"]["accuracy"] < 0.7


def test_renderers_draw_the_same_data():
    roc = F.plot_group_roc(0.5, 0.5)
    assert isinstance(roc, Figure)
    assert [ln.get_gid() for ln in roc.axes[0].lines] == ["roc-women", "roc-men", "point-women",
                                                          "point-men", "chance"]
    fig = F.plot_threshold_tradeoff(0.5, 0.5, gap="equalized_odds_sum")
    assert [ln.get_gid() for ln in fig.axes[0].lines] == ["pairs", "frontier", "single",
                                                          "current"]
    assert fig.axes[0].get_xlabel().startswith("equalized odds, sum (LAFTR)")
    # the browser's charts: the same numbers; the parametric curves drawn in threshold order
    # (the order of their points), each point naming its threshold(s) when hovered
    for data in (F.group_roc_data(0.5, 0.5), F.threshold_tradeoff_data(0.5, 0.5)):
        spec = json.loads(json.dumps(to_vega_lite(data, height=300)))
        assert spec["height"] == 300
        lines = [la for la in spec["layer"] if la["mark"]["type"] == "line"]
        assert all(la["encoding"]["order"]["field"] == "i" for la in lines)
    data = F.threshold_tradeoff_data(0.5, 0.5)
    single = data.series_by_key("single")
    assert single.tooltip[0][0] == "threshold (both groups)"
    np.testing.assert_array_equal(single.tooltip[0][1], F.THRESHOLDS)
    spec = to_vega_lite(data)
    (layer,) = [la for la in spec["layer"] if la["data"]["values"][0].get("series") == single.label]
    rows = layer["data"]["values"]
    assert [r["i"] for r in rows] == list(range(len(F.THRESHOLDS)))
    assert [r["t0"] for r in rows] == list(F.THRESHOLDS)
    pairs = data.series_by_key("pairs")
    assert [t for t, _ in pairs.tooltip] == ["women's threshold", "men's threshold"]
    ctf, ctm = data.extra["cloud_thresholds"]
    np.testing.assert_array_equal(pairs.tooltip[0][1], ctf)
    np.testing.assert_array_equal(pairs.tooltip[1][1], ctm)
    (layer,) = [la for la in spec["layer"] if la["data"]["values"][0].get("series") == pairs.label]
    assert {t["title"] for t in layer["encoding"]["tooltip"]} >= {"women's threshold",
                                                                  "men's threshold"}
    roc = F.group_roc_data(0.5, 0.5)
    for name in ("women", "men"):
        curve = roc.series_by_key(f"roc-{name}")
        assert curve.tooltip[0][0] == f"{name}'s threshold"
        np.testing.assert_array_equal(curve.tooltip[0][1], F.THRESHOLDS)


def test_the_table_loader_is_cached_and_read_only(table):
    assert load_fairness_table() is table
    assert not table["score"].flags.writeable and not table["grid"].flags.writeable
    assert table["meta"]["model"]["LogisticRegression"] == F.ADULT_MODEL
    assert table["thresholds"].tolist() == list(F.THRESHOLDS)


# ------------------------------------------------------------- bad input (hypothesis)
BAD_THRESHOLD = st.one_of(BAD_PROB, st.sampled_from([1.01, -0.01, 2, -1]))
BAD_BINARY = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC,
                       st.sampled_from([[2] * 16, [0.5] * 16, [-1] * 16, [1, 0], [],
                                        np.ones((16, 2)), [[1, 0]] * 8]))
BAD_GROUPS = st.sampled_from([[0] * 16, [0, 1], [0] * 15 + [1], [np.nan] * 16, [None] * 16,
                              np.ones((16, 2)), [], [0.0] * 8 + [math.inf] * 8])
BAD_GAP = st.one_of(BAD_CHOICE, st.sampled_from(["accuracy", "equalized_odds", "dp"]))
NOT_AX = st.sampled_from([1, "ax", object(), [None], np.zeros(2), True, Figure()])
TH = dict(female_threshold=0.5, male_threshold=0.5)
GV = dict(y_true=Y, y_pred=P, sensitive_features=A)
CASES = []
for f in (F.adult_predictions, F.fairness_gaps, F.group_rates, F.group_roc_data,
          F.plot_group_roc, F.threshold_tradeoff_data, F.plot_threshold_tradeoff):
    CASES += [(f, TH, "female_threshold", BAD_THRESHOLD), (f, TH, "male_threshold",
                                                            BAD_THRESHOLD)]
for f in (F.threshold_tradeoff_data, F.plot_threshold_tradeoff):
    CASES.append((f, TH, "gap", BAD_GAP))
for f in (F.plot_group_roc, F.plot_threshold_tradeoff):
    CASES.append((f, TH, "ax", NOT_AX))
CASES += [(F.gap_values, GV, "y_true", BAD_BINARY), (F.gap_values, GV, "y_pred", BAD_BINARY),
          (F.gap_values, GV, "sensitive_features", BAD_GROUPS)]
SLOW = {F.plot_group_roc, F.plot_threshold_tradeoff}


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0].__name__}-{c[2]}" for c in CASES])
def test_bad_values_are_refused_by_name(case):
    func, valid, arg, strategy = case

    @settings(max_examples=8 if func in SLOW else 20, deadline=None, database=None)
    @given(bad=strategy)
    def run(bad):
        call_rejects(func, {**valid, arg: bad}, arg)

    run()


@pytest.mark.parametrize("func,valid", sorted({(c[0], id(c[1])): (c[0], c[1])
                                               for c in CASES}.values(),
                                              key=lambda fv: fv[0].__name__),
                         ids=lambda v: getattr(v, "__name__", ""))
def test_valid_baseline_calls_answer(func, valid):
    assert func(**valid) is not None
