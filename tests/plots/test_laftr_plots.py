"""The LAFTR figures (dpteach.plots.laftr): the γ sweep's numbers, drawn as they are.

Every number a figure shows is a mean (or a sample standard deviation, or one row) of the
sweep's columns: checked against NumPy on the raw rows of a small in-memory sweep (built
here, with the shipped file's columns) and, for a few positions, of the shipped sweep
(:func:`dpteach.tables.load_gamma_sweep`). Titles and axes name the gap conventions;
both renderers draw every figure; a hypothesis bad-input test attacks every public function
(``_props.call_rejects``).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from _props import BAD_CHOICE, NOT_NUMERIC, call_rejects
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from dpteach._validation import ParameterError
from dpteach.plots import laftr as L
from dpteach.plots.figure import to_vega_lite

GAMMAS = (0.0, 0.5, 1.0, 2.0, 4.0)
SEEDS = 3


def make_sweep(seed: int = 0) -> pd.DataFrame:
    """A small sweep with the shipped file's columns: fairer and less accurate as γ grows."""
    rng = np.random.default_rng(seed)
    rows = []
    for obj in L.OBJECTIVES:
        for g in GAMMAS:
            k = g / max(GAMMAS)
            for s in range(SEEDS):
                row = {"objective": obj, "gamma": g, "seed": s,
                       "accuracy": 0.84 - 0.05 * k + rng.normal(0, 0.003),
                       "dp_gap": 0.19 * (1 - 0.8 * k) + abs(rng.normal(0, 0.01)),
                       "eo_gap": 0.2 * (1 - 0.7 * k) + abs(rng.normal(0, 0.01)),
                       "eopp_gap": 0.08 * (1 - 0.8 * k) + abs(rng.normal(0, 0.005)),
                       "eopp_gap_y1": 0.1 * (1 - 0.5 * k) + abs(rng.normal(0, 0.01)),
                       "adversary_balanced_accuracy": 0.8 - 0.25 * k + rng.normal(0, 0.01),
                       "fit_seconds": 20 + rng.normal()}
                for group, sel in (("female", 0.08 + 0.1 * k), ("male", 0.27 - 0.05 * k)):
                    sel += rng.normal(0, 0.005)
                    row.update({f"selection_rate_{group}": sel, f"tpr_{group}": 0.5 + sel,
                                f"fpr_{group}": sel / 3})
                rows.append(row)
    for s in range(SEEDS):
        row = dict(rows[s])
        row.update(objective=L.BASELINE, gamma=0.0, seed=s, accuracy=0.845 + 0.001 * s)
        rows.append(row)
    return pd.DataFrame(rows)


SWEEP = make_sweep()


def raw(objective, gamma=None, sweep=SWEEP):
    rows = sweep[sweep["objective"] == objective]
    return rows if gamma is None else rows[rows["gamma"] == gamma]


# ------------------------------------------------------------------------ the numbers
def test_gammas_and_summary_are_the_rows_means_and_spreads():
    for obj in L.OBJECTIVES:
        assert L.sweep_gammas(obj, sweep=SWEEP) == GAMMAS
        assert all(type(g) is float for g in L.sweep_gammas(obj, sweep=SWEEP))
        table = L.gamma_summary(obj, sweep=SWEEP)
        assert table.index.tolist() == list(GAMMAS)
        assert table["n_seeds"].tolist() == [SEEDS] * len(GAMMAS)
        for g in GAMMAS:
            rows = raw(obj, g)
            for col in ("accuracy", *L.GAPS, "selection_rate_female", "fpr_male",
                        "adversary_balanced_accuracy", "fit_seconds"):
                v = rows[col].to_numpy()
                assert table.loc[g, col] == pytest.approx(v.mean(), rel=1e-12)
                assert table.loc[g, f"{col}_sd"] == pytest.approx(v.std(ddof=1), rel=1e-12)


def test_model_summary_of_one_model_and_the_baseline():
    s = L.model_summary("eo", 2.0, sweep=SWEEP)
    assert (s["objective"], s["variant"], s["gamma"], s["target"]) == ("eo", "LAFTR-EO", 2.0,
                                                                       "eo_gap")
    rows, base = raw("eo", 2.0), raw(L.BASELINE)
    assert s["model"]["n_seeds"] == s["baseline"]["n_seeds"] == SEEDS
    assert s["model"]["eo_gap"] == pytest.approx(rows["eo_gap"].mean(), rel=1e-12)
    assert s["baseline"]["accuracy"] == pytest.approx(base["accuracy"].mean(), rel=1e-12)
    assert s["baseline"]["accuracy_sd"] == pytest.approx(0.001, rel=1e-9)    # 0.845 + 0.001 s
    assert all(type(v) is float for k, v in s["model"].items() if k != "n_seeds")
    # γ given to a relative 1e-9 (a slider's float) is the fitted value; 0 only exactly
    assert L.model_summary("eo", 2.0 * (1 + 1e-12), sweep=SWEEP)["gamma"] == 2.0
    for bad in (1.5, 5e-324, 2.0 * (1 + 1e-6)):
        with pytest.raises(ParameterError, match="gamma.*fitted values"):
            L.model_summary("eo", bad, sweep=SWEEP)
    # one seed: a spread of 0, not NaN
    one = SWEEP[(SWEEP["seed"] == 0)]
    assert L.model_summary("dp", 1.0, sweep=one)["model"]["accuracy_sd"] == 0.0


def test_frontier_data_draws_every_fit_the_means_and_the_selected_model():
    for obj in L.OBJECTIVES:
        gap = L.TARGET_GAP[obj]
        data = L.frontier_data(obj, 1.0, sweep=SWEEP)
        assert [s.key for s in data.series] == ["fits", "means", "frontier", "baseline",
                                                "selected", "selected-sd-x", "selected-sd-y"]
        rows = raw(obj)
        fits = data.series_by_key("fits")
        np.testing.assert_array_equal(fits.x, rows[gap].to_numpy())
        np.testing.assert_array_equal(fits.y, rows["accuracy"].to_numpy())
        gammas, seeds = data.extra["fit_labels"]
        np.testing.assert_array_equal(gammas, rows["gamma"])
        np.testing.assert_array_equal(seeds, rows["seed"])
        # the means per γ, in order of γ
        table = L.gamma_summary(obj, sweep=SWEEP)
        means = data.series_by_key("means")
        np.testing.assert_allclose(means.x, [raw(obj, g)[gap].mean() for g in GAMMAS],
                                   rtol=1e-12)
        np.testing.assert_allclose(means.y, [raw(obj, g)["accuracy"].mean() for g in GAMMAS],
                                   rtol=1e-12)
        # the frontier: the means no other mean beats on both counts, left to right
        front = data.series_by_key("frontier")
        on = [i for i in range(len(GAMMAS))
              if not any(means.x[j] <= means.x[i] and means.y[j] > means.y[i]
                         or means.x[j] < means.x[i] and means.y[j] >= means.y[i]
                         for j in range(len(GAMMAS)))]
        assert sorted(zip(front.x, front.y)) == sorted(zip(means.x[on], means.y[on]))
        assert np.all(np.diff(front.x) > 0) and np.all(np.diff(front.y) > 0)
        assert sorted(data.extra["frontier_gammas"]) == sorted(table.index[on])
        # the selected γ with ± one sd over seeds, both ways
        sel = data.series_by_key("selected")
        r = raw(obj, 1.0)
        mx, my = r[gap].mean(), r["accuracy"].mean()
        sx, sy = r[gap].std(ddof=1), r["accuracy"].std(ddof=1)
        assert sel.x[0] == pytest.approx(mx, rel=1e-12) and sel.y[0] == pytest.approx(my,
                                                                                    rel=1e-12)
        np.testing.assert_allclose(data.series_by_key("selected-sd-x").x, [mx - sx, mx + sx],
                                   rtol=1e-12)
        np.testing.assert_allclose(data.series_by_key("selected-sd-y").y, [my - sy, my + sy],
                                   rtol=1e-12)
        # the unfair MLP: a point and its accuracy as a dotted line
        base = raw(L.BASELINE)
        b = data.series_by_key("baseline")
        assert (b.x[0], b.y[0]) == pytest.approx((base[gap].mean(), base["accuracy"].mean()))
        (rule,) = data.rules
        assert rule.key == "baseline-accuracy" and rule.axis == "y"
        assert rule.value == pytest.approx(base["accuracy"].mean(), rel=1e-12)
        # the axes show everything, and name the gap's convention
        x_all = np.r_[fits.x, b.x, sel.x + sx]
        y_all = np.r_[fits.y, b.y, sel.y + sy, sel.y - sy]
        assert data.x_domain[0] == 0 and data.x_domain[1] > x_all.max()
        assert data.y_domain[0] < y_all.min() and data.y_domain[1] > y_all.max()
        assert data.x_title.startswith(L.GAPS[gap][1])
        assert "accuracy" in data.y_title and "test split" in data.y_title
        assert data.title.startswith(f"{L.VARIANTS[obj]} on Adult")
        assert f"γ = 1: accuracy {my:.3f}" in data.title
        assert data.extra["gap"] == gap and data.extra["selected"]["n_seeds"] == SEEDS
    assert "ΔEO = |ΔTPR| + |ΔFPR|" in L.frontier_data("eo", sweep=SWEEP).x_title
    assert "Madras et al." in L.frontier_data("eo", sweep=SWEEP).x_title
    assert "on Y = 0" in L.frontier_data("eopp", sweep=SWEEP).x_title


def test_the_frontier_skips_dominated_means():
    # γ = 1 is both less fair and less accurate than γ = 2: off the frontier
    sweep = SWEEP.copy()
    mine = (sweep["objective"] == "dp") & (sweep["gamma"] == 1.0)
    sweep.loc[mine, "dp_gap"] = 0.3
    data = L.frontier_data("dp", sweep=sweep)
    assert 1.0 not in data.extra["frontier_gammas"] and 2.0 in data.extra["frontier_gammas"]
    assert data.series_by_key("frontier").x.size == len(GAMMAS) - 1


def test_frontier_without_a_selection_and_with_another_gap():
    data = L.frontier_data("dp", sweep=SWEEP)
    assert [s.key for s in data.series] == ["fits", "means", "frontier", "baseline"]
    assert data.extra["selected"] is None and "\n" not in data.title
    other = L.frontier_data("dp", 4.0, gap="eo_gap", sweep=SWEEP)
    np.testing.assert_array_equal(other.series_by_key("fits").x, raw("dp")["eo_gap"])
    assert other.x_title.startswith("ΔEO") and "ΔEO" in other.title
    assert "|ΔTPR|, on Y = 1" in L.frontier_data("dp", gap="eopp_gap_y1", sweep=SWEEP).x_title


def test_group_rates_data_bars_are_the_means_dots_the_seeds():
    data = L.group_rates_data("eopp", 0.5, sweep=SWEEP)
    assert [s.key for s in data.series] == ["baseline-women", "model-women", "seeds-women",
                                            "baseline-men", "model-men", "seeds-men"]
    assert data.extra["categories"] == tuple(L.RATES.values())
    rows, base = raw("eopp", 0.5), raw(L.BASELINE)
    centres = np.arange(3.0)
    for suffix, group in L.GROUPS.items():
        cols = [f"{r}_{suffix}" for r in L.RATES]
        model = data.series_by_key(f"model-{group}")
        np.testing.assert_allclose(model.y, rows[cols].mean().to_numpy(), rtol=1e-12)
        np.testing.assert_allclose(data.series_by_key(f"baseline-{group}").y,
                                   base[cols].mean().to_numpy(), rtol=1e-12)
        assert model.kind == "bars" and model.width == pytest.approx(0.2)
        dots = data.series_by_key(f"seeds-{group}")
        np.testing.assert_array_equal(dots.y, rows[cols].to_numpy().ravel())
        np.testing.assert_allclose(dots.x, np.tile(model.x, SEEDS))    # on their group's bar
        assert np.all(np.abs(model.x - centres) < 0.5)                # within the rate's slot
    # the four bars of one rate do not overlap
    lefts = sorted(s.x[0] - s.width / 2 for s in data.series if s.kind == "bars")
    assert np.all(np.diff(lefts) >= 0.2 - 1e-12)
    assert "LAFTR-EOpp, γ = 0.5" in data.title
    for short in ("ΔDP", "ΔEO", "ΔEOpp"):
        assert short in data.title
    assert data.y_domain[0] == 0 and data.y_domain[1] >= rows[[f"tpr_{g}" for g in
                                                               L.GROUPS]].to_numpy().max()


def test_renderers_name_the_rates_and_the_points():
    fig = L.plot_frontier("dp", 1.0, sweep=SWEEP)
    assert isinstance(fig, Figure)
    assert [ln.get_gid() for ln in fig.axes[0].lines] == [
        "fits", "means", "frontier", "baseline", "selected", "selected-sd-x", "selected-sd-y",
        "baseline-accuracy"]
    assert fig.axes[0].get_xlabel().startswith("ΔDP")
    fig = L.plot_group_rates("eo", 2.0, sweep=SWEEP)
    gids = {p.get_gid() for p in fig.axes[0].patches}
    assert gids == {"baseline-women", "model-women", "baseline-men", "model-men"}
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == list(L.RATES.values())
    data = L.group_rates_data("eo", 2.0, sweep=SWEEP)
    assert data.x_ticks == tuple(enumerate(L.RATES.values()))
    spec = json.loads(json.dumps(to_vega_lite(data, height=300)))
    assert spec["height"] == 300
    axis = spec["layer"][0]["encoding"]["x"]["axis"]
    assert axis["values"] == [0, 1, 2] and "TPR P(Ŷ=1 | Y=1)" in axis["labelExpr"]
    data = L.frontier_data("eo", 2.0, sweep=SWEEP)
    spec = json.loads(json.dumps(to_vega_lite(data, height=300)))
    # every fit and every mean names its γ (and the fit its seed) when hovered
    fits = data.series_by_key("fits")
    assert [t for t, _ in fits.tooltip] == ["γ", "seed"]
    assert list(zip(fits.tooltip[0][1], fits.tooltip[1][1])) == [
        (float(g), str(s)) for g, s in zip(raw("eo")["gamma"], raw("eo")["seed"])]
    (layer,) = [la for la in spec["layer"]
                if la["data"]["values"][0]["series"] == fits.label]
    assert [(r["t0"], r["t1"]) for r in layer["data"]["values"]] == [
        (float(g), str(s)) for g, s in zip(raw("eo")["gamma"], raw("eo")["seed"])]
    assert {t["title"] for t in layer["encoding"]["tooltip"]} >= {"γ", "seed"}
    means = data.series_by_key("means")
    assert list(means.tooltip[0][1]) == list(GAMMAS)


def test_sweeps_that_are_not_the_shipped_kind_are_refused_by_name():
    with pytest.raises(TypeError, match="sweep"):
        L.sweep_gammas("dp", sweep=SWEEP.to_dict())
    with pytest.raises(ParameterError, match="sweep's columns must.*lacks.*tpr_female"):
        L.sweep_gammas("dp", sweep=SWEEP.drop(columns="tpr_female"))
    with pytest.raises(ParameterError, match="sweep's objectives must be with 'unfair'"):
        L.sweep_gammas("dp", sweep=SWEEP[SWEEP["objective"] != L.BASELINE])
    with pytest.raises(ParameterError, match="sweep's objectives must be .*all in"):
        L.sweep_gammas("dp", sweep=SWEEP.replace({"objective": {"eo": "EO"}}))
    with pytest.raises(ParameterError, match="objective='eopp'"):
        L.sweep_gammas("eopp", sweep=SWEEP[SWEEP["objective"] != "eopp"])
    for col, value in (("accuracy", 1.5), ("dp_gap", -0.1), ("eo_gap", 2.5), ("gamma", -1.0),
                       ("gamma", math.nan), ("fpr_male", math.inf)):
        bad = SWEEP.copy()
        bad.loc[4, col] = value
        with pytest.raises(ParameterError, match=f"sweep's columns.*{col}"):
            L.frontier_data("dp", sweep=bad)
    bad = SWEEP.copy().astype({"accuracy": object})
    bad.loc[0, "accuracy"] = "high"
    with pytest.raises(ParameterError, match="sweep's columns.*real numbers"):
        L.frontier_data("dp", sweep=bad)
    with pytest.raises(ParameterError, match=r"len\(sweep\) must be 1 to"):
        L.frontier_data("dp", sweep=SWEEP.iloc[:0])
    # ΔEO is a sum of two differences: up to 2 is legal
    legal = SWEEP.copy()
    legal.loc[0, "eo_gap"] = 1.9
    assert L.frontier_data("dp", 0.0, gap="eo_gap", sweep=legal).x_domain[1] > 1.9


# ------------------------------------------------------------------- the shipped sweep
@pytest.fixture(scope="module")
def shipped():
    from dpteach.tables import load_gamma_sweep

    return load_gamma_sweep()


def test_the_shipped_sweep_draws_its_own_numbers(shipped):
    for obj in L.OBJECTIVES:
        gammas = L.sweep_gammas(obj)
        assert len(gammas) >= 3 and gammas[0] == 0.0
        assert gammas == tuple(sorted(set(shipped.loc[shipped["objective"] == obj, "gamma"])))
        g = gammas[len(gammas) // 2]
        data = L.frontier_data(obj, g)
        rows = shipped[(shipped["objective"] == obj) & (shipped["gamma"] == g)]
        gap = L.TARGET_GAP[obj]
        assert len(rows) >= 3                                      # several seeds per γ
        assert data.series_by_key("selected").x[0] == pytest.approx(rows[gap].mean(), rel=1e-12)
        s = L.model_summary(obj, g)
        assert s["model"]["accuracy"] == pytest.approx(rows["accuracy"].mean(), rel=1e-12)
        base = shipped[shipped["objective"] == L.BASELINE]
        assert s["baseline"]["accuracy"] == pytest.approx(base["accuracy"].mean(), rel=1e-12)
        to_vega_lite(L.group_rates_data(obj, g))


# ------------------------------------------------------------- bad input (hypothesis)
BAD_GAMMA = st.one_of(st.sampled_from([-1.0, -5e-324, math.nan, math.inf, 0.25, 3.0, 1e300,
                                       10**400, True]), NOT_NUMERIC)
BAD_GAP = st.one_of(BAD_CHOICE, st.sampled_from(["accuracy", "dp", "ΔDP", "eo"]))
BAD_OBJECTIVE = st.one_of(BAD_CHOICE, st.sampled_from(["DP", "unfair", "baseline", "eqodds"]))
BAD_SWEEP = st.sampled_from([SWEEP.to_dict(), SWEEP.to_numpy(), "sweep.csv", 1,
                             SWEEP.drop(columns="accuracy"), SWEEP.iloc[:0],
                             SWEEP.assign(accuracy=-1.0), SWEEP.assign(gamma=math.nan),
                             SWEEP[SWEEP["objective"] != L.BASELINE],
                             SWEEP.assign(objective="dp")])
NOT_AX = st.sampled_from([1, "ax", object(), [None], np.zeros(2), True, Figure()])
KW = dict(objective="dp", gamma=1.0, sweep=SWEEP)
FUNCS = (L.model_summary, L.frontier_data, L.plot_frontier, L.group_rates_data,
         L.plot_group_rates)
CASES = []
for f in FUNCS:
    # the frontier may select no model: gamma=None is legal there
    gammas = BAD_GAMMA.filter(lambda v: v is not None) if "frontier" in f.__name__ else BAD_GAMMA
    CASES += [(f, KW, "objective", BAD_OBJECTIVE), (f, KW, "gamma", gammas),
              (f, KW, "sweep", BAD_SWEEP)]
for f in (L.sweep_gammas, L.gamma_summary):
    CASES += [(f, dict(objective="eo", sweep=SWEEP), "objective", BAD_OBJECTIVE),
              (f, dict(objective="eo", sweep=SWEEP), "sweep",
               BAD_SWEEP)]
for f in (L.frontier_data, L.plot_frontier):
    CASES.append((f, KW, "gap", BAD_GAP))
for f in (L.plot_frontier, L.plot_group_rates):
    CASES.append((f, KW, "ax", NOT_AX))
SLOW = {L.plot_frontier, L.plot_group_rates}


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
