"""AppTest tests of the page "Fairness metrics".

The numbers must be :func:`dpteach.plots.fairness.fairness_gaps` of the two thresholds (each a
call of :mod:`dpteach.fairness.metrics`, shown with 4 significant digits), the table
:func:`~dpteach.plots.fairness.group_rates`, the charts the Vega-Lite specifications of
:mod:`dpteach.plots.fairness` for those thresholds; each slider moves the charts and the
numbers, the gap selector moves only its chart, a threshold that selects no one leaves PPV
undefined without an error, and a refusal of the library is a friendly message, never a
traceback.
"""

from __future__ import annotations

import json
import math

import pytest
from streamlit.testing.v1 import AppTest

from dpteach._validation import ParameterError
from dpapp.widgets import fmt
from dpteach.plots.fairness import (
    GAPS,
    THRESHOLDS,
    fairness_gaps,
    group_rates,
    group_roc_data,
    threshold_tradeoff_data,
)
from dpteach.plots.figure import to_vega_lite

TIMEOUT = 60
PAGE = "dpapp.fairness_metrics"
HEIGHT = 460


def _page_script(module: str) -> None:
    import importlib

    importlib.import_module(module).render()


def page_app() -> AppTest:
    return AppTest.from_function(_page_script, kwargs={"module": PAGE},
                                 default_timeout=TIMEOUT).run()


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def assert_no_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def charts(at: AppTest) -> list[dict]:
    """The Vega-Lite specifications of the page's charts, in page order."""
    out = []
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        spec.pop("autosize", None)
        out.append(spec)
    return out


def as_sent(spec: dict) -> dict:
    return json.loads(json.dumps(spec))


def expected_charts(tf=0.5, tm=0.5, gap="equalized_odds_worst") -> list[dict]:
    return [as_sent(to_vega_lite(threshold_tradeoff_data(tf, tm), height=HEIGHT)),
            as_sent(to_vega_lite(threshold_tradeoff_data(tf, tm, gap=gap), height=HEIGHT)),
            as_sent(to_vega_lite(group_roc_data(tf, tm), height=HEIGHT))]


def expected_metrics(tf=0.5, tm=0.5) -> dict[str, str]:
    gaps = fairness_gaps(tf, tm)
    out = {"accuracy": fmt(gaps["accuracy"])}                  # 4 significant digits
    out.update({GAPS[k][0]: fmt(gaps[k]) for k in GAPS})
    return out


def shown_table(at: AppTest):
    """The per-group table as the page passes it (one row per rate, one column per group)."""
    (frame,) = at.dataframe
    return frame.value


def assert_table_is_group_rates(at: AppTest, tf: float, tm: float) -> None:
    from dpapp.fairness_metrics import COLUMNS

    shown = shown_table(at)
    ref = group_rates(tf, tm)
    assert shown.columns.tolist() == ["women", "men"]
    assert shown.index.tolist() == list(COLUMNS.values())
    for col, label in COLUMNS.items():
        for group in ("women", "men"):
            value = ref.loc[group, col]
            text = ("undefined" if math.isnan(value) else f"{int(value):,}" if col == "count"
                    else f"{value:.2f}" if col == "threshold" else f"{value:.3f}")
            assert shown.loc[label, group] == text, (label, group)


def test_default_page_shows_the_library_numbers_and_charts():
    at = page_app()
    assert_no_errors(at)
    assert not at.warning, [w.value for w in at.warning]
    assert at.title[0].value == "Fairness metrics"
    assert metrics(at) == expected_metrics()
    assert metrics(at)["demographic-parity difference"] == "0.1892"
    assert charts(at) == expected_charts()
    assert_table_is_group_rates(at, 0.5, 0.5)
    text = " ".join(m.value for m in at.markdown)
    for name, meaning in GAPS.values():                     # one line per gap, on the page
        assert f"**{name}**: {meaning}" in text
    assert at.slider(key="fair_t_women").value == 0.5 and at.slider(key="fair_t_men").value == 0.5
    # the sliders' values are the table's grid
    assert (at.slider(key="fair_t_women").min, at.slider(key="fair_t_women").max) == (0.0, 1.0)
    assert at.slider(key="fair_t_women").step == 0.01 and len(THRESHOLDS) == 101


@pytest.mark.parametrize("key,value", [("fair_t_women", 0.3), ("fair_t_men", 0.72)])
def test_each_threshold_slider_moves_every_chart_and_number(key, value):
    at = page_app()
    before_charts, before_metrics = charts(at), metrics(at)
    at.slider(key=key).set_value(value).run()
    assert_no_errors(at)
    assert not at.warning, [w.value for w in at.warning]
    tf, tm = (value, 0.5) if key == "fair_t_women" else (0.5, value)
    after = charts(at)
    assert all(a != b for a, b in zip(after, before_charts))
    assert after == expected_charts(tf, tm)
    assert metrics(at) == expected_metrics(tf, tm)
    assert all(metrics(at)[k] != before_metrics[k] for k in before_metrics)
    assert_table_is_group_rates(at, tf, tm)


def test_the_gap_selector_moves_only_its_chart():
    at = page_app()
    before = charts(at)
    at.selectbox(key="fair_gap").set_value("equal_opportunity_laftr").run()
    assert_no_errors(at)
    after = charts(at)
    assert [i for i in range(3) if after[i] != before[i]] == [1]
    assert after == expected_charts(gap="equal_opportunity_laftr")
    assert "equal opportunity (LAFTR, class Y=0)" in after[1]["title"]["text"][0]


def test_a_threshold_that_selects_no_one_leaves_ppv_undefined():
    at = page_app()
    at.slider(key="fair_t_women").set_value(1.0).run()
    assert_no_errors(at)
    assert not at.warning, [w.value for w in at.warning]
    assert shown_table(at).loc["PPV P(Y=1 | Ŷ=1)", "women"] == "undefined"
    assert_table_is_group_rates(at, 1.0, 0.5)
    assert any("PPV is undefined (0/0) for women" in c.value for c in at.caption)
    assert metrics(at) == expected_metrics(1.0, 0.5)
    assert charts(at) == expected_charts(1.0, 0.5)


def test_slider_ends_together_render():
    at = page_app()
    for tf, tm in ((0.0, 0.0), (1.0, 1.0), (0.0, 1.0), (1.0, 0.0), (0.01, 0.99)):
        at.slider(key="fair_t_women").set_value(tf)
        at.slider(key="fair_t_men").set_value(tm).run()
        assert_no_errors(at)
        assert not at.warning, (tf, tm, [w.value for w in at.warning])
        assert charts(at) == expected_charts(tf, tm)
        assert metrics(at) == expected_metrics(tf, tm)
    # selecting everyone or no one closes every gap (and predicts nothing)
    at.slider(key="fair_t_women").set_value(0.0)
    at.slider(key="fair_t_men").set_value(0.0).run()
    assert all(float(v) == 0.0 for k, v in metrics(at).items() if k != "accuracy")


def test_a_refusal_of_the_library_is_a_friendly_message(monkeypatch):
    from dpapp import fairness_metrics as page

    def refuse(female_threshold, male_threshold):
        raise ParameterError(f"sensitive_features must contain at least 2 groups; got "
                             f"female_threshold={female_threshold}")

    monkeypatch.setattr(page, "fairness_gaps", refuse)
    page.numbers.clear()
    try:
        at = page_app()
        assert_no_errors(at)
        assert len(at.warning) == 1
        text = at.warning[0].value
        assert "The rates and gaps" in text and "sensitive_features" in text
        assert "Traceback" not in text
        assert metrics(at) == {} and not at.dataframe
        assert charts(at) == expected_charts()          # the charts still draw
    finally:
        page.numbers.clear()


def test_each_preset_closes_the_gap_it_is_named_after():
    # The presets offered above the page ("Equal selection rates", ...) are pairs of
    # thresholds at which the named gap is at most 0.01, the most accurate such pair on
    # the sliders' 0.01 grid.
    from dpapp import fairness_metrics as page

    assert set(page.PRESET_GAPS) < set(page.PRESETS)
    for name, gap in page.PRESET_GAPS.items():
        values = page.PRESETS[name]
        tf, tm = values["fair_t_women"], values["fair_t_men"]
        assert tf in THRESHOLDS and tm in THRESHOLDS
        assert fairness_gaps(tf, tm)[gap] <= 0.01, (name, gap)
    one = page.PRESETS["One threshold: 0.5"]
    assert one["fair_t_women"] == one["fair_t_men"] == 0.5
