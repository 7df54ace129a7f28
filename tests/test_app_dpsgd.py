"""AppTest tests of the "DP-SGD playground" page (dpteach.app_pages.dpsgd_playground)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpteach.accounting import RDPAccountant
from dpteach.app_pages import dpsgd_playground as page
from dpteach.learning.dpsgd import steps_per_epoch

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 60          # seconds per run on a shared machine; a rerun normally takes < 0.2 s
MODULE = "dpteach.app_pages.dpsgd_playground"


def _page_script() -> None:
    from dpteach.app_pages import dpsgd_playground

    dpsgd_playground.render()


@pytest.fixture
def at() -> AppTest:
    return AppTest.from_function(_page_script, default_timeout=TIMEOUT).run()


def metrics(at: AppTest) -> dict:
    return {m.label: m.value for m in at.metric}


def charts(at: AppTest) -> list:
    return at.get("vega_lite_chart")


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
    assert m["Steps T (q)"] == f"{T} ({32 / 200:.3f})"
    assert len(charts(at)) == 3
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
    assert m["Steps T (q)"].startswith(f"{epochs * steps_per_epoch(200, batch)} (")


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
    assert len(charts(at)) == 3


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


def test_train_and_specs_are_consistent():
    res = page.train(1.0, 1.0, 32, 3, 0)
    X, y = page.toy_data()
    assert res["p"].shape == (page.GRID, page.GRID) and np.all((res["p"] >= 0) & (res["p"] <= 1))
    assert res["norms"].shape == (page.N_POINTS,)
    spec = page.norms_spec(res["norms"], 0.5)
    before = [r["n"] for r in spec["layer"][0]["data"]["values"]]
    after = [r["n"] for r in spec["layer"][1]["data"]["values"]]
    assert {r["when"] for r in spec["layer"][1]["data"]["values"]} == {"after clipping"}
    assert sum(before) == sum(after) == page.N_POINTS
    assert len(page.boundary_spec(res, X, y)["layer"][1]["data"]["values"]) == page.N_POINTS
    assert len(page.history_spec(res["history"])["data"]["values"]) == 3


def test_page_is_registered_in_app():
    tree = ast.parse((ROOT / "app.py").read_text())
    pages = next(ast.literal_eval(n.value) for n in tree.body
                 if isinstance(n, ast.Assign) and [t.id for t in n.targets] == ["PAGES"])
    assert any(module == MODULE for _, module, _ in pages)
