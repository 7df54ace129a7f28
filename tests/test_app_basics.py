"""AppTest tests of the Streamlit app: navigation and the first two pages.

Each page is run headless with ``streamlit.testing.v1.AppTest`` (``app.py``
for the navigation, ``AppTest.from_function`` for one page's ``render()``).
The numbers shown must be the ones :mod:`dpteach.mechanisms` computes, and bad
combinations (δ = 0 with the Gaussian, the classic σ at ε ≥ 1) must give a
friendly message, never an exception.
"""

from __future__ import annotations

import ast
import importlib
import math
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpteach.mechanisms import gaussian_sigma, laplace_scale
from dpteach.randomized_response import (
    randomized_response,
    rr_epsilon_from_gamma,
    rr_estimate,
    rr_gamma_from_epsilon,
    rr_std_error,
)

ROOT = Path(__file__).resolve().parents[1]
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


def test_app_default_page_renders():
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert_no_errors(at)
    assert at.title[0].value == "Noise calibration"
    assert len(at.get("image")) == 2          # Laplace and Gaussian densities


# ------------------------------------------------------------- noise calibration
CAL = "dpteach.app_pages.noise_calibration"


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
    assert len(at.get("image")) == 2


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
    assert len(at.get("image")) == 1              # the Laplace densities only


@pytest.mark.parametrize("view", ["Privacy loss", "σ: classic vs analytic", "Error vs ε"])
@pytest.mark.parametrize("delta", [0.0, 1e-5])
def test_calibration_every_view_renders(view, delta):
    at = page_app(CAL)
    at.select_slider(key="delta").set_value(delta)
    at.radio(key="view").set_value(view).run()
    assert_no_errors(at)
    assert not at.warning, [w.value for w in at.warning]
    images = len(at.get("image"))
    if delta == 0:
        assert images == (1 if view == "Privacy loss" else 0)
        assert at.info
    else:
        assert images == (2 if view == "Privacy loss" else 1)


def test_epsilon_options_are_log_spaced():
    from dpteach.app_pages._common import DELTAS, EPSILONS

    assert EPSILONS[0] == 0.01 and EPSILONS[-1] == 10.0 and 1.0 in EPSILONS
    ratios = np.array(EPSILONS[1:]) / np.array(EPSILONS[:-1])
    assert np.all((ratios > 1.3) & (ratios < 1.7))        # roughly equal steps in log ε
    assert DELTAS[0] == 0.0 and 1e-5 in DELTAS and all(0 <= d < 1 for d in DELTAS)


def _friendly_script() -> None:
    from dpteach.app_pages._common import friendly_errors
    from dpteach.mechanisms import gaussian_sigma
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
RR = "dpteach.app_pages.randomized_response"


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
    assert len(at.get("image")) == 2


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
    at.button(key="rr_rerun").click().run()
    assert_no_errors(at)
    second = _survey(0.6, 5000, 1, epsilon=0.5)
    assert metrics(at)["Estimate π̂"] == f"{second.estimate:.3f}"


@pytest.mark.parametrize("rate", [0.0, 1.0])
def test_rr_extreme_rates(rate):
    at = page_app(RR)
    at.slider(key="rr_rate").set_value(rate)
    at.slider(key="rr_gamma").set_value(0.49)
    at.select_slider(key="rr_n").set_value(10).run()
    assert_no_errors(at)
    assert not at.warning, [w.value for w in at.warning]
    assert metrics(at)["γ"] == "0.49"


# --------------------------------------------------------------- figure store
DENSITIES = "dpteach.plots.calibration.plot_neighbouring_densities"


def test_figure_store_draws_once_and_prefetches(monkeypatch):
    from dpteach.app_pages._common import FigureStore

    monkeypatch.setenv("DPTEACH_APP_PREFETCH", "1")
    store = FigureStore(max_entries=3)
    png = store.get(DENSITIES, sensitivity=1.0, epsilon=1.0)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert store.get(DENSITIES, sensitivity=1.0, epsilon=1.0) is png      # not redrawn
    store.prefetch(DENSITIES, sensitivity=1.0, epsilon=2.0)
    prefetched = store.get(DENSITIES, sensitivity=1.0, epsilon=2.0)
    assert prefetched == FigureStore().get(DENSITIES, sensitivity=1.0, epsilon=2.0)
    assert prefetched != png
    for eps in (3.0, 5.0, 7.0):
        store.get(DENSITIES, sensitivity=1.0, epsilon=eps)
    assert len(store._items) == 3                                          # LRU bound


def test_figure_store_errors_propagate_and_prefetch_can_be_off(monkeypatch):
    from dpteach.app_pages._common import FigureStore

    store = FigureStore()
    with pytest.raises(ValueError, match="delta"):
        store.get(DENSITIES, sensitivity=1.0, epsilon=1.0, delta=0.0, mechanism="gaussian")
    assert not store._items
    monkeypatch.setenv("DPTEACH_APP_PREFETCH", "0")
    store.prefetch(DENSITIES, sensitivity=1.0, epsilon=1.0)
    assert not store._items


def _positions_script() -> None:
    import streamlit as st

    from dpteach.app_pages._common import next_positions

    a = st.select_slider("a", options=[1, 2, 3, 4], value=2, key="a")
    b = st.select_slider("b", options=[10, 20, 30], value=20, key="b")
    steps = next_positions({"a": ([1, 2, 3, 4], a), "b": ([10, 20, 30], b)}, state_key="_pos")
    st.text(repr(steps))


def test_next_positions_follows_the_slider_that_moved():
    at = AppTest.from_function(_positions_script, default_timeout=TIMEOUT).run()
    assert at.text[0].value == "[('a', 3), ('a', 1)]"        # nothing moved yet: first slider
    at.select_slider(key="b").set_value(10).run()
    assert at.text[0].value == "[('b', 20)]"                 # b moved left, at its end
    at.select_slider(key="a").set_value(3).run()
    assert at.text[0].value == "[('a', 4), ('a', 2)]"        # a moved right: right first
    at.select_slider(key="a").set_value(2).run()
    assert at.text[0].value == "[('a', 1), ('a', 3)]"        # a moved left: left first


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
