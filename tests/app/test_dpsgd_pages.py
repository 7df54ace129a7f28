"""AppTest tests of the "DP-SGD playground" page (dpapp.dpsgd_playground).

The metrics must be the accountant's; the five charts (Vega-Lite, drawn by the
browser: the cost of privacy (held-out accuracy against ε), decision boundary, gradient
norms, accuracy and ε per epoch) must show the data of dpteach.plots.dpsgd (the first, of
DPSGDClassifier runs scored on held-out points) and follow the sliders.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpapp.charts import sent_spec

from dpteach.accounting.rdp import RDPAccountant
from dpapp import dpsgd_playground as page
from dpteach.learning.dpsgd import steps_per_epoch

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60          # seconds per run on a shared machine; a rerun normally takes < 0.2 s
MODULE = "dpapp.dpsgd_playground"


def _page_script() -> None:
    from dpapp import dpsgd_playground

    dpsgd_playground.render()


@pytest.fixture
def at() -> AppTest:
    return AppTest.from_function(_page_script, default_timeout=TIMEOUT).run()


def metrics(at: AppTest) -> dict:
    return {m.label: m.value for m in at.metric}


def charts(at: AppTest) -> list[dict]:
    """The Vega-Lite specifications of the page's charts, in page order."""
    return [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]


def titles(at: AppTest) -> list[str]:
    return [c["title"]["text"] for c in charts(at)]


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def expected_epsilon(sigma: float, batch: int, epochs: int) -> float:
    acc = RDPAccountant()
    acc.step(noise_multiplier=sigma, sample_rate=batch / page.N_POINTS,
             steps=epochs * steps_per_epoch(page.N_POINTS, batch))
    return acc.get_epsilon(page.DELTA)


def test_default_view_shows_the_accountants_epsilon(at):
    assert_clean(at)
    m = metrics(at)
    eps = expected_epsilon(2.0, 32, 15)
    assert m[f"ε spent (δ = {page.DELTA:g})"] == f"{eps:.3g}"
    T = 15 * steps_per_epoch(200, 32)
    assert m["Steps"] == f"{T}"
    assert f"q = {32 / 200:.3f}" in next(t.help for t in at.metric if t.label == "Steps")
    cost, boundary, norms, accuracy, spent = titles(at)
    assert cost.startswith("Held-out accuracy against ε")
    assert f"ε = {eps:.3g}, δ = 1e-05" in boundary
    assert "clipped at C = 1" in norms
    assert "accuracy" in accuracy and "δ = 1e-05" in spent
    assert not at.warning and not at.info


@pytest.mark.parametrize("sigma,batch,epochs", [(3.0, 200, 5), (0.5, 16, 2)])
def test_sliders_change_training_and_epsilon(at, sigma, batch, epochs):
    at.select_slider(key="dps_sigma").set_value(sigma)
    at.select_slider(key="dps_batch").set_value(batch)
    at.slider(key="dps_epochs").set_value(epochs)
    at.run()
    assert_clean(at)
    m = metrics(at)
    assert m[f"ε spent (δ = {page.DELTA:g})"] == f"{expected_epsilon(sigma, batch, epochs):.3g}"
    assert m["Steps"] == f"{epochs * steps_per_epoch(200, batch)}"
    accuracy = charts(at)[3]
    epochs_drawn = {r["x"] for layer in accuracy["layer"] for r in layer["data"]["values"]}
    assert epochs_drawn == set(range(1, epochs + 1))


def test_the_charts_follow_the_sliders(at):
    before = charts(at)
    at.select_slider(key="dps_sigma").set_value(5.0)
    at.run()
    assert_clean(at)
    after = charts(at)
    assert len(after) == 5
    for old, new in zip(before[1:], after[1:]):       # new model, new data in every chart
        assert old["layer"][0]["data"]["values"] != new["layer"][0]["data"]["values"]
    eps = metrics(at)[f"ε spent (δ = {page.DELTA:g})"]
    assert f"ε = {eps}, δ = 1e-05" in after[1]["title"]["text"]
    assert json.dumps(before[0]) != json.dumps(after[0])   # the chosen σ's marker moved


def test_noise_without_clipping_is_a_friendly_warning(at):
    at.select_slider(key="dps_clip").set_value(page.NO_CLIP)
    at.run()
    assert_clean(at)
    assert len(at.warning) == 1 and "clipping" in at.warning[0].value
    assert not charts(at) and not at.metric


def test_no_noise_means_no_privacy(at):
    at.select_slider(key="dps_sigma").set_value(0.0)
    at.run()
    assert_clean(at)
    assert metrics(at)[f"ε spent (δ = {page.DELTA:g})"] == "∞"
    assert any("no privacy" in w.value for w in at.warning)
    # the non-private baseline: σ = 0 and no clipping
    at.select_slider(key="dps_clip").set_value(page.NO_CLIP)
    at.run()
    assert_clean(at)
    assert metrics(at)["Points clipped now"] == "–"
    assert len(charts(at)) == 3                       # no ε chart: ε = ∞ at every epoch
    assert any("ε = ∞" in c.value for c in at.caption)


def test_small_clipping_norm_clips_everything(at):
    at.select_slider(key="dps_clip").set_value(0.01)
    at.run()
    assert_clean(at)
    assert metrics(at)["Points clipped now"] == "100%"


def test_reseed_button(at):
    before = metrics(at)
    at.button(key="dps_reseed").click().run()
    assert_clean(at)
    after = metrics(at)
    assert after[f"ε spent (δ = {page.DELTA:g})"] == before[f"ε spent (δ = {page.DELTA:g})"]


def _held_out_accuracies(sigma, clip, batch, epochs):
    """The page's held-out accuracies recomputed from the library, one per seed."""
    from dpteach.learning.dpsgd import DPSGDClassifier

    X, y = page.toy_data()
    X_out, y_out = page.held_out_data()
    return np.array([np.mean(DPSGDClassifier(
        noise_multiplier=sigma, max_grad_norm=clip, batch_size=batch, epochs=epochs,
        learning_rate=page.LEARNING_RATE, hidden=page.HIDDEN, delta=page.DELTA,
        rng=seed).fit(X, y).predict(X_out) == y_out) for seed in range(page.N_RUNS)])


def test_held_out_accuracy_tiles_are_the_median_of_the_runs(at):
    # the tiles: the median of N_RUNS runs on points never trained on, with privacy and
    # without (σ = 0 and no clipping), recomputed here from DPSGDClassifier
    X, _ = page.toy_data()
    X_out, _ = page.held_out_data()
    assert len(X) == page.N_POINTS and len(X_out) == page.N_HELD_OUT
    assert not (X[:, None, :] == X_out[None, :, :]).all(axis=2).any()    # disjoint
    m = metrics(at)
    private = _held_out_accuracies(2.0, 1.0, 32, 15)
    plain = _held_out_accuracies(0.0, None, 32, 15)
    assert m["Held-out accuracy"] == f"{np.median(private):.1%}"
    assert m["Without privacy"] == f"{np.median(plain):.1%}"
    chart = page.cost_of_privacy(2.0, 1.0, 32, 15)["chart"]
    median, low, high = (chart.series_by_key("median").y, chart.series_by_key("range").y,
                         chart.series_by_key("range").y2)
    i = sorted({*page.SWEEP, 2.0}).index(2.0)              # the points are in σ order
    assert chart.series_by_key("median").x[i] == pytest.approx(expected_epsilon(2.0, 32, 15))
    assert (median[i], low[i], high[i]) == pytest.approx(
        (100 * np.median(private), 100 * private.min(), 100 * private.max()))
    assert chart.rules[0].value == pytest.approx(100 * np.median(plain))


def test_the_cost_of_privacy_shows_at_small_epsilon_and_fades_at_large():
    # the lesson (issue 24): on the page's data, privacy costs accuracy a class can see at
    # ε ≈ 1 and almost nothing at large ε. Fixed seeds, so these are exact numbers of the
    # page's setting (measured: σ = 10, ε = 0.65: 79.3% vs 94.5%; σ = 5, ε = 1.4: 83.3%;
    # σ = 1, ε = 13: 93.7%); the bounds leave room for BLAS rounding only. With the old
    # learning rate 1.0 the last check fails (90.4% at ε = 13: too few steps, not privacy).
    cost = page.cost_of_privacy(2.0, 1.0, 32, 15)
    plain = cost["plain"]["median"]
    strongest, near_one, weak = (cost["private"][s] for s in (10.0, 5.0, 1.0))
    assert strongest["epsilon"] < 1 < near_one["epsilon"] < 2 and weak["epsilon"] > 10
    assert plain - strongest["median"] > 0.10
    assert plain - near_one["median"] > 0.05
    assert abs(plain - weak["median"]) < 0.02


def test_train_and_charts_are_consistent():
    from dpteach.plots.dpsgd import grad_norm_histogram_data, probability_grid_data

    res = page.train(1.0, 0.5, 32, 3, 0)
    X, y = page.toy_data()
    assert res["p"].shape == (page.GRID, page.GRID) and np.all((res["p"] >= 0) & (res["p"] <= 1))
    assert res["norms"].shape == (page.N_POINTS,)
    norms = res["norms_chart"]
    expected = grad_norm_histogram_data(res["norms"], 0.5, bins=page.HIST_BINS)
    assert norms.title == expected.title and norms.rules == expected.rules
    for key in ("before", "after"):
        np.testing.assert_array_equal(norms.series_by_key(key).y, expected.series_by_key(key).y)
    assert norms.series_by_key("before").y.sum() == norms.series_by_key("after").y.sum() \
        == page.N_POINTS
    boundary = res["boundary"]
    assert boundary.heatmap.z.shape == (page.GRID, page.GRID)
    np.testing.assert_array_equal(boundary.heatmap.z, res["p"])
    assert sum(s.x.size for s in boundary.series if s.kind == "points") == page.N_POINTS
    spec = sent_spec(boundary)
    cells = spec["layer"][0]["data"]["values"]                  # the heat map, under
    points = [row for layer in spec["layer"][1]["layer"] if layer["mark"]["type"] == "circle"
              for row in layer["data"]["values"]]
    assert len(cells) == page.GRID ** 2 and len(points) == page.N_POINTS
    assert spec["layer"] == sent_spec(probability_grid_data(
        res["x0"], res["x1"], res["p"], X, y, title=res["boundary_title"]))["layer"]
    accuracy, spent = res["history_charts"]
    np.testing.assert_array_equal(accuracy.series[0].y, res["history"]["accuracy"])
    np.testing.assert_array_equal(spent.series[0].y, res["history"]["epsilon"])
    assert len(spent.series[0].x) == 3


def test_page_is_registered_in_app():
    tree = ast.parse((ROOT / "app.py").read_text())
    pages = next(ast.literal_eval(n.value) for n in tree.body
                 if isinstance(n, ast.Assign) and [t.id for t in n.targets] == ["PAGES"])
    assert any(module == MODULE for _, module, _ in pages)
