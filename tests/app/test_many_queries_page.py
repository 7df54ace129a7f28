"""AppTest tests of the page "Many queries".

The numbers must be the crossover data's values at the sliders' (k, ε)
(:func:`dpteach.plots.many_queries.crossover_data`, shown with 3 significant digits), the
charts the Vega-Lite specifications of :func:`~dpteach.plots.many_queries.crossover_data` and
:func:`~dpteach.plots.many_queries.crossover_epsilon_data`; each slider moves the charts and
the numbers, the sliders offer exactly the grid's values, and the page names the winner.
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from dpapp.widgets import fmt
from dpteach.plots.figure import to_vega_lite
from dpteach.plots.many_queries import (
    CROSSOVER_EPSILONS,
    CROSSOVER_KS,
    crossover_data,
    crossover_epsilon_data,
)

TIMEOUT = 60
PAGE = "dpapp.many_queries"


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


def expected_charts(k: int, eps: float) -> list[dict]:
    from dpapp.many_queries import CHART_HEIGHT

    return [json.loads(json.dumps(to_vega_lite(f(k, eps), height=CHART_HEIGHT)))
            for f in (crossover_data, crossover_epsilon_data)]


def expected_metrics(k: int, eps: float) -> dict[str, str]:
    from dpapp.many_queries import LABELS

    at = crossover_data(k, eps).extra["at"]
    return {LABELS[key]: fmt(at[key], 3) for key in LABELS}


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_default_page_shows_the_grid_numbers_and_charts():
    at = page_app()
    assert_no_errors(at)
    assert at.title[0].value == "Many queries"
    assert metrics(at) == expected_metrics(1000, 1.0)
    assert metrics(at)["Independent Laplace (ε/k each)"] == "0.153"
    assert charts(at) == expected_charts(1000, 1.0)
    k_slider, eps_slider = at.select_slider(key="mq_k"), at.select_slider(key="mq_epsilon")
    assert k_slider.value == 1000 and eps_slider.value == 1.0
    assert [int(o) for o in k_slider.options] == list(CROSSOVER_KS)
    assert [float(o) for o in eps_slider.options] == list(CROSSOVER_EPSILONS)
    text = " ".join(m.value for m in at.markdown)
    assert "**MWEM synthetic data** wins" in text                  # k = 1,000 at ε = 1
    captions = " ".join(c.value for c in at.caption)
    assert "← more private | less private →" in captions and "noisy histogram" in captions


@pytest.mark.parametrize("key,value,k,eps", [("mq_k", 20, 20, 1.0),
                                             ("mq_epsilon", 0.05, 1000, 0.05)])
def test_each_slider_moves_both_charts_and_the_numbers(key, value, k, eps):
    at = page_app()
    before_charts, before_metrics = charts(at), metrics(at)
    at.select_slider(key=key).set_value(value).run()
    assert_no_errors(at)
    after = charts(at)
    assert all(a != b for a, b in zip(after, before_charts))
    assert after == expected_charts(k, eps)
    assert metrics(at) == expected_metrics(k, eps)
    changed = [name for name in before_metrics if metrics(at)[name] != before_metrics[name]]
    assert changed, "no number moved"


def test_few_queries_make_independent_laplace_the_winner():
    at = page_app()
    at.select_slider(key="mq_k").set_value(10).run()
    assert_no_errors(at)
    text = " ".join(m.value for m in at.markdown)
    assert "**Independent Laplace** wins" in text
