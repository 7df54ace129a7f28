"""AppTest tests of the "Private logistic regression" page (dpapp.private_lr).

The numbers the page shows must be the ones dpteach.learning computes, the two
charts (Vega-Lite, drawn by the browser) must show the data of dpteach.plots.erm and
follow the sliders, and a bad value (a row-norm bound R = 0) must give a friendly
warning, never an exception. The Adult curve is computed once per test process
(st.cache_data).
"""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpapp import private_lr as page
from dpteach.datasets import TOY_DATA_NORM, adult_arrays, make_toy_data
from dpteach.learning import erm
from dpteach.learning.erm_experiments import toy_fits

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120        # the first run trains the Adult models (a few seconds, more under load)


def _page_script() -> None:
    from dpapp import private_lr

    private_lr.render()


@pytest.fixture(scope="module")
def first_run() -> AppTest:
    return AppTest.from_function(_page_script, default_timeout=TIMEOUT).run()


@pytest.fixture
def at(first_run) -> AppTest:
    # a fresh session; the caches (Adult curve, figures) are shared by the process
    return AppTest.from_function(_page_script, default_timeout=TIMEOUT).run()


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def charts(at: AppTest) -> list[dict]:
    """The Vega-Lite specifications of the page's charts, in page order."""
    return [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]


def rows(spec: dict, series: str) -> list[dict]:
    """The data rows of one series (by its legend label or key) of a chart."""
    return [r for layer in spec["layer"] for r in layer["data"]["values"]
            if r.get("series") == series]


def test_default_view_matches_the_library(first_run):
    at = first_run
    assert_clean(at)
    assert not at.warning
    m = metrics(at)
    n, lam, eps = 200, 1e-3, 1.0
    assert m["Sensitivity 2/(nΛ)"] == f"{2 / (n * lam):.3g}"
    k = erm.objective_perturbation_constants(eps, n, lam)
    assert m["ε′ left for the noise"] == f"{k.epsilon_prime:.3g}"
    assert m["Extra ridge Δ"] == f"{k.Delta:.3g}"
    toy, adult = charts(at)                           # toy boundaries + Adult curve
    assert "ε = 1 (δ = 0)" in toy["title"]["text"] and "n = 200" in toy["title"]["text"]
    assert "test accuracy vs ε" in adult["title"]["text"]
    # the chart shows the library's fits: the non-private line is coef_·x + b = 0
    fits = toy_fits(epsilon=eps, lam=lam, method="objective", n_fits=page.N_FITS, n=n,
                    data_norm=TOY_DATA_NORM)
    line = rows(toy, "non-private")
    assert len(line) == 2
    pts = [[r["x"], r["y"]] for r in line]
    assert abs(fits.nonprivate.decision_function(pts)).max() < 1e-4   # 6 significant digits
    assert len(rows(toy, "class 0")) + len(rows(toy, "class 1")) == n


def test_adult_numbers_are_the_library_s(first_run):
    m = metrics(first_run)
    X_train, X_test, y_train, y_test = adult_arrays().train_test()
    base = erm.PrivateLogisticRegression(method="none", lam=page.ADULT_LAM,
                                         data_norm=math.sqrt(13), fit_intercept=False)
    assert m["Non-private (same Λ)"] == f"{base.fit(X_train, y_train).score(X_test, y_test):.3f}"
    res = page.adult_curve()                           # the cached curve the page drew
    i = list(page.ADULT_EPSILONS).index(1.0)
    assert m["Objective perturbation, ε = 1"] == f"{res['mean']['objective'][i]:.3f}"
    assert m["Output perturbation, ε = 1"] == f"{res['mean']['output'][i]:.3f}"
    # the page's headline: objective above output perturbation at ε = 1
    assert res["mean"]["objective"][i] > res["mean"]["output"][i]


def test_output_perturbation_metrics(at):
    at.radio(key="erm_method").set_value("Output perturbation (Alg. 1)")
    at.run()
    assert_clean(at)
    m = metrics(at)
    beta = erm.output_perturbation_beta(1.0, 200, 1e-3)
    assert m["Noise rate β = nΛε/2"] == f"{beta:.3g}" == "0.1"
    assert m["Mean ‖b‖ added to w"] == f"{3 / beta:.3g}"


@pytest.mark.parametrize("eps,lam,n", [(0.1, 0.01, 500), (10.0, 1.0, 50), (0.01, 1e-3, 2000)])
def test_sliders_drive_the_constants(at, eps, lam, n):
    at.select_slider(key="erm_epsilon").set_value(eps)
    at.select_slider(key="erm_lam").set_value(lam)
    at.select_slider(key="erm_n").set_value(n)
    at.run()
    assert_clean(at)
    m = metrics(at)
    k = erm.objective_perturbation_constants(eps, n, lam)
    assert m["Sensitivity 2/(nΛ)"] == f"{2 / (n * lam):.3g}"
    assert m["ε′ left for the noise"] == f"{k.epsilon_prime:.3g}"
    nearest = min(page.ADULT_EPSILONS, key=lambda e: abs(math.log(e / eps)))
    assert f"Objective perturbation, ε = {nearest:g}" in m
    toy = charts(at)[0]
    assert f"ε = {eps:g} (δ = 0), Λ = {lam:g}, n = {n}" in toy["title"]["text"]


def test_the_toy_chart_follows_the_epsilon_slider(at):
    before = charts(at)
    at.select_slider(key="erm_epsilon").set_value(0.1)
    at.run()
    assert_clean(at)
    after = charts(at)
    # new private fits (the thin lines), the same data points and non-private line
    assert rows(after[0], "8 private fits") != rows(before[0], "8 private fits")
    assert rows(after[0], "class 0") == rows(before[0], "class 0")
    assert rows(after[0], "non-private") == rows(before[0], "non-private")
    assert after[1] == before[1]                      # the Adult curve does not depend on ε


def test_zero_norm_bound_is_a_friendly_warning(at):
    at.number_input(key="erm_R").set_value(0.0)
    at.run()
    assert_clean(at)
    assert len(at.warning) == 1 and "data_norm" in at.warning[0].value
    assert "Sensitivity 2/(nΛ)" not in metrics(at)
    assert len(charts(at)) == 1                       # the Adult section still renders


def test_small_norm_bound_clips_points(at):
    at.number_input(key="erm_R").set_value(1.0)
    at.run()
    assert_clean(at)
    X, _ = make_toy_data(200, rng=0)
    clipped = int((__import__("numpy").linalg.norm(X, axis=1) > 1.0).sum())
    assert any(f"{clipped} of 200 points lie beyond R = 1" in c.value for c in at.caption)


def test_toy_models_are_fitted_once_per_setting(monkeypatch):
    # the chart and the accuracy caption are made from the same fits (no second training),
    # and a slider position seen before is not fitted again (st.cache_data)
    calls = []
    fit = page.toy_fits

    def counting(**kwargs):
        calls.append(tuple(sorted(kwargs.items())))
        return fit(**kwargs)

    monkeypatch.setattr(page, "toy_fits", counting)
    page.toy_view.clear()
    at = AppTest.from_function(_page_script, default_timeout=TIMEOUT).run()
    for eps in (0.5, 1.0, 0.5):
        at.select_slider(key="erm_epsilon").set_value(eps)
        at.run()
        assert_clean(at)
    assert len(calls) == 2 and len(set(calls)) == 2          # ε = 1, then ε = 0.5: once each
    assert dict(calls[1])["epsilon"] == 0.5
    page.toy_view.clear()


def test_page_is_registered_in_app():
    tree = ast.parse((ROOT / "app.py").read_text())
    pages = next(ast.literal_eval(node.value) for node in tree.body
                 if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["PAGES"])
    assert ("Private logistic regression", "dpapp.private_lr") in \
        [(p[0], p[1]) for p in pages]
