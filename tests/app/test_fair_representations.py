"""AppTest tests of the page "Fair representations".

The page reads the shipped γ sweep only: its numbers must be
:func:`dpteach.plots.laftr.model_summary` of the chosen variant and γ, its charts the
Vega-Lite specifications of :func:`~dpteach.plots.laftr.frontier_data` and
:func:`~dpteach.plots.laftr.group_rates_data`; the γ slider offers exactly the sweep's γ
values; moving it or the variant changes the charts and the numbers; no model is trained on
a rerun; a refusal of the library is a friendly message, never a traceback.
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from dpteach._validation import ParameterError
from dpteach.plots.figure import to_vega_lite
from dpteach.plots.laftr import (
    GAPS,
    OBJECTIVES,
    VARIANTS,
    frontier_data,
    group_rates_data,
    model_summary,
    sweep_gammas,
)

TIMEOUT = 60
PAGE = "dpapp.fair_representations"
HEIGHT = 420


def _page_script(module: str) -> None:
    import importlib

    importlib.import_module(module).render()


def page_app() -> AppTest:
    return AppTest.from_function(_page_script, kwargs={"module": PAGE},
                                 default_timeout=TIMEOUT).run()


def assert_no_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert not at.warning, [w.value for w in at.warning]


def charts(at: AppTest) -> list[dict]:
    out = []
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        spec.pop("autosize", None)
        out.append(spec)
    return out


def as_sent(spec: dict) -> dict:
    return json.loads(json.dumps(spec))


def expected_charts(objective: str, gamma: float) -> list[dict]:
    return [as_sent(to_vega_lite(frontier_data(objective, gamma), height=HEIGHT)),
            as_sent(to_vega_lite(group_rates_data(objective, gamma), height=HEIGHT))]


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def expected_metrics(objective: str, gamma: float) -> dict[str, str]:
    s = model_summary(objective, gamma)
    m = s["model"]
    out = {"accuracy": f"{m['accuracy']:.3f} ± {m['accuracy_sd']:.3f}"}
    for gap in ("dp_gap", "eo_gap", "eopp_gap"):
        label = GAPS[gap][0] + (" (targeted)" if gap == s["target"] else "")
        out[label] = f"{m[gap]:.3f} ± {m[f'{gap}_sd']:.3f}"
    if "adversary_balanced_accuracy" in m:
        out["adversary: sex from Z"] = f"{m['adversary_balanced_accuracy']:.3f}"
    return out


def shown(at: AppTest) -> tuple[str, float]:
    return at.radio(key="laftr_objective").value, float(at.select_slider(key="laftr_gamma").value)


def test_default_page_shows_the_sweeps_numbers_and_charts():
    from dpapp.fair_representations import DEFAULT_OBJECTIVE, default_gamma

    at = page_app()
    assert_no_errors(at)
    assert at.title[0].value == "Fair representations"
    objective, gamma = shown(at)
    assert objective == DEFAULT_OBJECTIVE
    assert gamma == default_gamma(sweep_gammas(objective))
    slider = at.select_slider(key="laftr_gamma")
    assert [float(o) for o in slider.options] == list(sweep_gammas(objective))
    assert charts(at) == expected_charts(objective, gamma)
    assert metrics(at) == expected_metrics(objective, gamma)
    assert list(at.radio(key="laftr_objective").options) == [
        "LAFTR-DP: the adversary sees Z (demographic parity)",
        "LAFTR-EO: the adversary sees Z and Y (equalized odds)",
        "LAFTR-EOpp: Z and Y, on Y = 0 rows (equal opportunity)"]
    text = " ".join(m.value for m in at.markdown)
    assert "**The trade-off.**" in text and VARIANTS[objective] in text
    s = model_summary(objective, gamma)
    assert f"from {s['baseline']['dp_gap']:.3f} (unfair MLP) to {s['model']['dp_gap']:.3f}" in text


def test_moving_gamma_changes_the_charts_and_the_numbers():
    at = page_app()
    objective, gamma = shown(at)
    before_charts, before_metrics = charts(at), metrics(at)
    for other in sweep_gammas(objective):
        if other == gamma:
            continue
        at.select_slider(key="laftr_gamma").set_value(other).run()
        assert_no_errors(at)
        assert shown(at) == (objective, other)
        after = charts(at)
        assert all(a != b for a, b in zip(after, before_charts))
        assert after == expected_charts(objective, other)
        assert metrics(at) == expected_metrics(objective, other)
        assert metrics(at) != before_metrics


@pytest.mark.parametrize("objective", [o for o in OBJECTIVES if o != "dp"])
def test_the_variant_changes_the_charts_and_keeps_gamma(objective):
    from dpapp.fair_representations import default_gamma

    at = page_app()
    _, gamma = shown(at)
    before = charts(at)
    at.radio(key="laftr_objective").set_value(objective).run()
    assert_no_errors(at)
    now, g = shown(at)
    assert now == objective
    # the same γ if this variant was fitted with it, else the slider's start
    options = sweep_gammas(objective)
    assert g == (gamma if gamma in options else default_gamma(options))
    after = charts(at)
    assert all(a != b for a, b in zip(after, before))
    assert after == expected_charts(objective, g)
    assert metrics(at) == expected_metrics(objective, g)
    assert f"{GAPS['eo_gap' if objective == 'eo' else 'eopp_gap'][0]} (targeted)" in metrics(at)
    assert after[0]["title"]["text"][0].startswith(VARIANTS[objective])


def test_every_position_renders():
    at = page_app()
    for objective in OBJECTIVES:
        at.radio(key="laftr_objective").set_value(objective).run()
        for gamma in (sweep_gammas(objective)[0], sweep_gammas(objective)[-1]):
            at.select_slider(key="laftr_gamma").set_value(gamma).run()
            assert_no_errors(at)
            assert charts(at) == expected_charts(objective, gamma)


def test_no_model_is_trained_on_a_rerun(monkeypatch):
    from dpteach.fairness import laftr

    def refuse(*args, **kwargs):
        raise AssertionError("the page trained a model")

    monkeypatch.setattr(laftr.LAFTR, "fit", refuse)
    at = page_app()
    at.select_slider(key="laftr_gamma").set_value(sweep_gammas("dp")[-1]).run()
    at.radio(key="laftr_objective").set_value("eo").run()
    assert_no_errors(at)


def test_a_refusal_of_the_library_is_a_friendly_message(monkeypatch):
    from dpapp import fair_representations as page

    def refuse(objective, gamma):
        raise ParameterError(f"gamma must be one of the fitted values; got gamma={gamma}")

    monkeypatch.setattr(page, "model_summary", refuse)
    page.numbers.clear()
    try:
        at = page_app()
        assert not at.exception
        assert len(at.warning) == 1
        text = at.warning[0].value
        assert "The selected model" in text and "gamma" in text and "Traceback" not in text
        assert metrics(at) == {}
        objective, gamma = shown(at)
        assert charts(at) == expected_charts(objective, gamma)      # the charts still draw
    finally:
        page.numbers.clear()


def test_a_variant_with_other_gammas_moves_the_slider_to_one_of_them(monkeypatch):
    # the shipped sweep fits every variant at the same γ values; should one differ, switching
    # to it puts the slider on one of its own values instead of failing
    from dpapp import fair_representations as page
    from dpteach.tables import load_gamma_sweep
    from dpteach.plots import laftr as plots

    sweep = load_gamma_sweep()
    sweep.loc[sweep["objective"] == "eo", "gamma"] *= 10
    checked = plots._checked(sweep)
    monkeypatch.setattr(plots, "_shipped", lambda: checked)
    caches = (page.gammas, page.numbers, page.frontier_chart, page.rates_chart)
    for cache in caches:
        cache.clear()
    try:
        at = page_app()
        assert shown(at)[1] not in sweep_gammas("eo")
        at.radio(key="laftr_objective").set_value("eo").run()
        assert_no_errors(at)
        objective, gamma = shown(at)
        assert objective == "eo" and gamma == page.default_gamma(sweep_gammas("eo"))
        assert charts(at) == expected_charts("eo", gamma)
    finally:
        for cache in caches:
            cache.clear()
