"""AppTest tests of the Streamlit app: navigation and the first two pages.

Each page is run headless with ``streamlit.testing.v1.AppTest`` (``app.py``
for the navigation, ``AppTest.from_function`` for one page's ``render()``).
The numbers shown must be the ones :mod:`dpteach.mechanisms.noise` computes, and bad
combinations (δ = 0 with the Gaussian, the classic σ at ε ≥ 1) must give a
friendly message, never an exception. The charts are Vega-Lite specifications
(drawn by the browser): they must be the ones the ``*_data`` functions of
:mod:`dpteach.plots` give for the sliders' values, and follow the sliders.
"""

from __future__ import annotations

import ast
import importlib
import json
import math
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpapp.charts import sent_spec

from dpteach.mechanisms.noise import gaussian_sigma, laplace_scale
from dpteach.plots.calibration import (
    error_vs_epsilon_data,
    neighbouring_densities_data,
    privacy_loss_data,
    sigma_comparison_data,
)
from dpteach.plots.randomized_response import rr_estimator_data, rr_probabilities_data
from dpteach.mechanisms.randomized_response import (
    randomized_response,
    rr_epsilon_from_gamma,
    rr_estimate,
    rr_gamma_from_epsilon,
    rr_std_error,
)

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"
TIMEOUT = 60   # seconds per run: the machine is shared; a run normally takes < 2 s


def _page_script(module: str) -> None:
    """Body run by AppTest.from_function: import one page and render it."""
    import importlib

    importlib.import_module(module).render()


def page_app(module: str) -> AppTest:
    at = AppTest.from_function(_page_script, kwargs={"module": module},
                               default_timeout=TIMEOUT)
    return at.run()


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def sig4(x: float) -> str:
    """The 4-significant-digit form the app displays."""
    return f"{x:.4g}"


def assert_no_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def charts(at: AppTest) -> list[dict]:
    """The Vega-Lite specifications of the page's charts, in page order (as sent to the
    browser, less Streamlit's own ``autosize``)."""
    out = []
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        spec.pop("autosize", None)
        out.append(spec)
    return out


def as_sent(spec: dict) -> dict:
    """A specification as the browser receives it (through JSON)."""
    return json.loads(json.dumps(spec))


def titles(at: AppTest) -> list[str]:
    """The charts' titles, their lines joined by newlines."""
    out = []
    for chart in charts(at):
        text = chart["title"]["text"]
        out.append("\n".join(text) if isinstance(text, list) else text)
    return out


# ------------------------------------------------------------------ navigation
def _pages_list():
    """The literal ``PAGES`` list of app.py (read without running the app)."""
    for node in ast.parse(APP.read_text()).body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["PAGES"]:
            return ast.literal_eval(node.value)
    raise AssertionError("app.py has no PAGES = [...] list")


def test_pages_list_is_wellformed():
    pages = _pages_list()
    assert [p[0] for p in pages[:2]] == ["Noise calibration", "Randomized response"]
    titles = [p[0] for p in pages]
    modules = [p[1] for p in pages]
    assert len(set(titles)) == len(titles)
    assert len(set(modules)) == len(modules)
    for title, module, icon in pages:
        assert title and icon
        assert callable(importlib.import_module(module).render), module


def _parts():
    """The literal ``PARTS`` dict of app.py (course part → page titles)."""
    for node in ast.parse(APP.read_text()).body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["PARTS"]:
            return ast.literal_eval(node.value)
    raise AssertionError("app.py has no PARTS = {...} dict")


def test_presentation_menu_links_every_page_once():
    # the menu that replaces Streamlit's folded top bar in presentation mode: every page of
    # PAGES in exactly one course part, and drawn as a page link (the browser test checks
    # that each is on the first screen and opens its page in one click)
    titles = [p[0] for p in _pages_list()]
    in_parts = [t for part in _parts().values() for t in part]
    assert sorted(in_parts) == sorted(titles)
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["present"] = "true"
    at.run()
    assert_no_errors(at)
    assert sorted(link.proto.label or link.proto.page for link in at.get("page_link")) \
        == sorted(titles)
    plain = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert not plain.get("page_link")          # outside presentation mode: Streamlit's bar


def test_app_default_page_renders():
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert_no_errors(at)
    assert at.title[0].value == "Noise calibration"
    assert not at.get("image")                 # drawn by the browser, no PNG
    assert [t.split("\n")[0] for t in titles(at)] == [
        "Laplace mechanism on neighbouring datasets",
        "Gaussian mechanism (analytic σ) on neighbouring datasets"]


# ------------------------------------------------------------- noise calibration
CAL = "dpapp.noise_calibration"


def test_calibration_default_values():
    at = page_app(CAL)
    assert_no_errors(at)
    m = metrics(at)
    assert m["Laplace b = Δ/ε"] == sig4(laplace_scale(1.0, 1.0)) == "1"
    sigma = gaussian_sigma(1.0, 1.0, 1e-5)
    assert m["σ analytic"] == sig4(sigma)
    assert m["E|error| Gaussian"] == sig4(sigma * math.sqrt(2 / math.pi))
    # classic σ is only defined for ε < 1: at the default ε = 1 it is explained
    assert m["σ classic"] == "n/a"
    assert any("ε < 1" in i.value for i in at.info)
    # the charts are those of dpteach.plots.calibration for these values, ε and δ in the titles
    laplace, gauss = charts(at)
    assert laplace == as_sent(sent_spec(neighbouring_densities_data(1.0, 1.0)))
    assert gauss == as_sent(sent_spec(neighbouring_densities_data(1.0, 1.0, 1e-5,
                                                                     mechanism="gaussian")))
    laplace_title, gauss_title = titles(at)
    assert "ε = 1" in laplace_title and "δ" not in laplace_title
    assert "ε = 1, δ = 1e-05" in gauss_title


@pytest.mark.parametrize("epsilon", [0.01, 0.1, 0.3, 3.0, 10.0])
def test_calibration_epsilon_slider_updates_numbers(epsilon):
    at = page_app(CAL)
    at.select_slider(key="epsilon").set_value(epsilon).run()
    assert_no_errors(at)
    m = metrics(at)
    assert m["Laplace b = Δ/ε"] == sig4(laplace_scale(1.0, epsilon))
    assert m["E|error| Laplace"] == sig4(laplace_scale(1.0, epsilon))
    assert m["σ analytic"] == sig4(gaussian_sigma(1.0, epsilon, 1e-5))
    if epsilon < 1:
        assert m["σ classic"] == sig4(gaussian_sigma(1.0, epsilon, 1e-5, method="classic"))
        assert not any("ε < 1" in i.value for i in at.info)
    else:
        assert m["σ classic"] == "n/a"
    assert all(f"ε = {epsilon:.3g}" in t for t in titles(at))


def _series_rows(spec: dict, key_or_label: str) -> list[dict]:
    return [row for layer in spec["layer"] for row in layer["data"]["values"]
            if row.get("series") == key_or_label]


def test_calibration_charts_follow_the_sliders():
    at = page_app(CAL)
    before = charts(at)
    at.select_slider(key="epsilon").set_value(0.5).run()
    assert_no_errors(at)
    after = charts(at)
    assert after != before
    assert after[1] == as_sent(sent_spec(neighbouring_densities_data(
        1.0, 0.5, 1e-5, mechanism="gaussian")))
    # the wider Laplace b = Δ/ε = 2: the density on D peaks at 1/(2b) = 0.25
    label = next(s for s in after[0]["layer"][0]["encoding"]["color"]["scale"]["domain"]
                 if s.startswith("Laplace on D "))
    assert label.endswith("b = 2")
    assert max(r["y"] for r in _series_rows(after[0], label)) == pytest.approx(0.25, rel=1e-3)
    # δ moves the Gaussian chart only; Δ moves both
    at.select_slider(key="delta").set_value(1e-8).run()
    moved = charts(at)
    assert moved[0] == after[0] and moved[1] != after[1]
    assert "δ = 1e-08" in titles(at)[1]
    at.select_slider(key="sensitivity").set_value(2.0).run()
    assert all(a != b for a, b in zip(charts(at), moved))
    assert all("Δ = 2" in t for t in titles(at))


@pytest.mark.parametrize("view,data", [
    ("Privacy loss", lambda: [privacy_loss_data(2.0, 0.3),
                              privacy_loss_data(2.0, 0.3, 1e-6, mechanism="gaussian")]),
    ("σ: classic vs analytic", lambda: [sigma_comparison_data(2.0, 1e-6)]),
    ("Error vs ε", lambda: [error_vs_epsilon_data(2.0, 1e-6)]),
])
def test_calibration_views_show_the_data_functions(view, data):
    at = page_app(CAL)
    at.select_slider(key="epsilon").set_value(0.3)
    at.select_slider(key="delta").set_value(1e-6)
    at.select_slider(key="sensitivity").set_value(2.0)
    at.radio(key="view").set_value(view).run()
    assert_no_errors(at)
    assert charts(at) == [as_sent(sent_spec(d)) for d in data()]
    assert all("δ = 1e-06" in t for t in titles(at)[-1:])


def test_calibration_sigma_view_follows_delta_and_shows_classic_only_below_one():
    at = page_app(CAL)
    at.radio(key="view").set_value("σ: classic vs analytic").run()
    (chart,) = charts(at)
    classic = _series_rows(chart, "classic σ = Δ√(2 ln(1.25/δ))/ε (only ε < 1)")
    assert classic and max(r["x"] for r in classic) < 1
    analytic = _series_rows(chart, "analytic σ (Balle & Wang 2018)")
    row = analytic[len(analytic) // 2]
    assert row["y"] == pytest.approx(gaussian_sigma(1.0, row["x"], 1e-5), rel=1e-5)
    at.select_slider(key="delta").set_value(1e-2).run()
    (moved,) = charts(at)
    assert moved != chart and "δ = 0.01" in titles(at)[0]


def test_calibration_sensitivity_and_delta():
    at = page_app(CAL)
    at.select_slider(key="epsilon").set_value(0.5)
    at.select_slider(key="sensitivity").set_value(5.0)
    at.select_slider(key="delta").set_value(1e-8).run()
    assert_no_errors(at)
    m = metrics(at)
    assert m["Laplace b = Δ/ε"] == sig4(laplace_scale(5.0, 0.5)) == "10"
    assert m["σ analytic"] == sig4(gaussian_sigma(5.0, 0.5, 1e-8))
    assert m["σ classic"] == sig4(gaussian_sigma(5.0, 0.5, 1e-8, method="classic"))
    # the analytic σ is never larger than the classic one (Balle & Wang 2018)
    assert float(m["σ analytic"]) < float(m["σ classic"])


def test_calibration_delta_zero_is_friendly():
    at = page_app(CAL)
    at.select_slider(key="delta").set_value(0.0).run()
    assert_no_errors(at)
    assert any("No Gaussian noise gives δ = 0" in i.value for i in at.info)
    m = metrics(at)
    assert m["Laplace b = Δ/ε"] == "1"            # the Laplace part still shows
    assert m["σ analytic"] == m["σ classic"] == "n/a"
    assert len(charts(at)) == 1                   # the Laplace densities only
    assert titles(at)[0].startswith("Laplace mechanism")


@pytest.mark.parametrize("view", ["Privacy loss", "σ: classic vs analytic", "Error vs ε"])
@pytest.mark.parametrize("delta", [0.0, 1e-5])
def test_calibration_every_view_renders(view, delta):
    at = page_app(CAL)
    at.select_slider(key="delta").set_value(delta)
    at.radio(key="view").set_value(view).run()
    assert_no_errors(at)
    assert not at.warning, [w.value for w in at.warning]
    shown = len(charts(at))
    if delta == 0:
        assert shown == (1 if view == "Privacy loss" else 0)
        assert at.info
    else:
        assert shown == (2 if view == "Privacy loss" else 1)


def test_epsilon_options_are_log_spaced():
    from dpapp.widgets import DELTAS, EPSILONS

    assert EPSILONS[0] == 0.01 and EPSILONS[-1] == 10.0 and 1.0 in EPSILONS
    ratios = np.array(EPSILONS[1:]) / np.array(EPSILONS[:-1])
    assert np.all((ratios > 1.3) & (ratios < 1.7))        # roughly equal steps in log ε
    assert DELTAS[0] == 0.0 and 1e-5 in DELTAS and all(0 <= d < 1 for d in DELTAS)


def _friendly_script() -> None:
    from dpapp.messages import friendly_errors
    from dpteach.mechanisms.noise import gaussian_sigma
    import streamlit as st

    with friendly_errors("The classic Gaussian σ"):
        st.write(gaussian_sigma(1.0, 2.0, 1e-5, method="classic"))
    st.write("the rest of the page")


def test_friendly_errors_shows_warning_not_traceback():
    at = AppTest.from_function(_friendly_script, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert len(at.warning) == 1
    text = at.warning[0].value
    assert "The classic Gaussian σ" in text and "epsilon must be < 1" in text
    assert "Traceback" not in text
    assert at.markdown[-1].value == "the rest of the page"


# ----------------------------------------------------------- randomized response
RR = "dpapp.randomized_response"


def _survey(true_rate, n, seed, **privacy):
    """The survey the page simulates, recomputed here from dpteach."""
    rng = np.random.default_rng(seed)
    bits = (rng.random(n) < true_rate).astype(np.int8)
    return rr_estimate(randomized_response(bits, **privacy, rng=rng), **privacy)


def test_rr_default_values():
    at = page_app(RR)
    assert_no_errors(at)
    m = metrics(at)
    # default: γ = 1/4 (the coin-flip protocol), ε = ln 3
    assert m["ε = ln((½+γ)/(½−γ))"] == sig4(math.log(3)) == sig4(rr_epsilon_from_gamma(0.25))
    assert m["γ"] == "0.25"
    assert m["P(truthful answer) = ½ + γ"] == "0.75"
    assert m["Standard error of π̂"] == f"{rr_std_error(0.3, 1000, gamma=0.25):.3g}"
    est = _survey(0.3, 1000, 0, gamma=0.25)
    assert m["Estimate π̂"] == f"{est.estimate:.3f}"
    assert m["95% confidence interval"] == f"[{est.ci_low:.3f}, {est.ci_high:.3f}]"
    probabilities, histogram = charts(at)
    assert probabilities == as_sent(sent_spec(rr_probabilities_data(gamma=0.25)))
    assert histogram == as_sent(sent_spec(rr_estimator_data(
        0.3, 1000, gamma=0.25, n_trials=2000, rng=0, simulation="binomial")))
    assert "γ = 0.25 (ε = 1.1)" in titles(at)[0]
    assert "γ = 0.25 (ε = 1.1), n = 1000" in titles(at)[1]


def _rule(spec: dict, label: str) -> float:
    (value,) = [row["v"] for layer in spec["layer"] for row in layer["data"]["values"]
                if row.get("series") == label and "v" in row]
    return value


def test_rr_charts_follow_the_sliders():
    at = page_app(RR)
    probabilities, histogram = charts(at)
    # n: the histogram narrows (π ± 1.96 SE), the probabilities stay
    at.select_slider(key="rr_n").set_value(10_000).run()
    assert_no_errors(at)
    p2, h2 = charts(at)
    assert p2 == probabilities and h2 != histogram and "n = 10000" in titles(at)[1]
    se = rr_std_error(0.3, 10_000, gamma=0.25)
    assert _rule(h2, "π ± 1.96 SE (about 95% of surveys)") == pytest.approx(0.3 - 1.96 * se,
                                                                            rel=1e-5)
    # π: the true-rate rule moves
    at.slider(key="rr_rate").set_value(0.6).run()
    p3, h3 = charts(at)
    assert p3 == p2 and _rule(h3, "true rate π = 0.6") == 0.6
    # γ: both charts change, with the bars of P(report | truth) = ½ ± γ
    at.slider(key="rr_gamma").set_value(0.4).run()
    p4, h4 = charts(at)
    assert p4 != p3 and h4 != h3 and "γ = 0.4" in titles(at)[0]
    heights = sorted(row["y"] for layer in p4["layer"] for row in layer["data"]["values"]
                     if row.get("series") == "true answer no")
    assert heights == pytest.approx([0.1, 0.9])
    # the reports are named on the x axis, not numbered
    assert "report 'yes'" in p4["layer"][0]["encoding"]["x"]["axis"]["labelExpr"]


def test_rr_epsilon_mode_and_new_survey():
    at = page_app(RR)
    at.radio(key="rr_parametrisation").set_value("ε (privacy loss)").run()
    at.select_slider(key="rr_epsilon").set_value(0.5)
    at.select_slider(key="rr_n").set_value(5000)
    at.slider(key="rr_rate").set_value(0.6).run()
    assert_no_errors(at)
    m = metrics(at)
    assert m["ε = ln((½+γ)/(½−γ))"] == "0.5"
    assert m["γ"] == sig4(rr_gamma_from_epsilon(0.5))
    assert m["Standard error of π̂"] == f"{rr_std_error(0.6, 5000, epsilon=0.5):.3g}"
    first = _survey(0.6, 5000, 0, epsilon=0.5)
    assert m["Estimate π̂"] == f"{first.estimate:.3f}"
    assert all("ε = 0.5" in t for t in titles(at))
    assert charts(at)[1] == as_sent(sent_spec(rr_estimator_data(
        0.6, 5000, epsilon=0.5, n_trials=2000, rng=0, simulation="binomial")))
    histogram = charts(at)[1]
    at.button(key="rr_rerun").click().run()
    assert_no_errors(at)
    second = _survey(0.6, 5000, 1, epsilon=0.5)
    assert metrics(at)["Estimate π̂"] == f"{second.estimate:.3f}"
    assert charts(at)[1] == histogram          # a new survey; the 2,000 surveys stay


@pytest.mark.parametrize("rate", [0.0, 1.0])
def test_rr_extreme_rates(rate):
    at = page_app(RR)
    at.slider(key="rr_rate").set_value(rate)
    at.slider(key="rr_gamma").set_value(0.49)
    at.select_slider(key="rr_n").set_value(10).run()
    assert_no_errors(at)
    assert not at.warning, [w.value for w in at.warning]
    assert metrics(at)["γ"] == "0.49"


# ------------------------------------------------------------------ corners
def test_calibration_extreme_corners_render():
    """The slider ends together, in every view: numbers from dpteach, no warning."""
    at = page_app(CAL)
    for eps, delta, sens in [(0.01, 1e-10, 10.0), (0.01, 1e-2, 0.1), (10.0, 1e-10, 0.1),
                             (10.0, 1e-2, 10.0)]:
        for view in ["Output densities", "Privacy loss", "σ: classic vs analytic", "Error vs ε"]:
            at.select_slider(key="epsilon").set_value(eps)
            at.select_slider(key="delta").set_value(delta)
            at.select_slider(key="sensitivity").set_value(sens)
            at.radio(key="view").set_value(view).run()
            assert_no_errors(at)
            assert not at.warning, (eps, delta, sens, view, [w.value for w in at.warning])
            m = metrics(at)
            assert m["Laplace b = Δ/ε"] == sig4(laplace_scale(sens, eps))
            assert m["σ analytic"] == sig4(gaussian_sigma(sens, eps, delta))


def test_calibration_single_figure_views_explain_with_dpteach_numbers():
    at = page_app(CAL)
    at.select_slider(key="epsilon").set_value(0.5)
    at.radio(key="view").set_value("σ: classic vs analytic").run()
    assert_no_errors(at)
    classic = gaussian_sigma(1.0, 0.5, 1e-5, method="classic")
    analytic = gaussian_sigma(1.0, 0.5, 1e-5)
    text = " ".join(m.value for m in at.markdown)
    assert f"analytic σ = {sig4(analytic)}" in text and f"classic σ = {sig4(classic)}" in text
    assert f"{classic / analytic:.3g} times more noise" in text

    at.select_slider(key="epsilon").set_value(1.0)
    at.radio(key="view").set_value("Error vs ε").run()
    text = " ".join(m.value for m in at.markdown)
    gauss = gaussian_sigma(1.0, 1.0, 1e-5) * math.sqrt(2 / math.pi)
    assert f"Laplace 1, Gaussian (analytic σ) {sig4(gauss)}" in text
    assert ("**Laplace**" if 1.0 < gauss else "**Gaussian**") in text

    at.select_slider(key="delta").set_value(0.0)
    at.radio(key="view").set_value("Output densities").run()
    text = " ".join(m.value for m in at.markdown)
    assert f"e^ε = {sig4(math.e)}" in text
