"""AppTest tests of the page "PATE votes".

The histogram must be :func:`dpteach.plots.pate.agreement_votes` of the sliders, the charts
the Vega-Lite specifications of :mod:`dpteach.plots.pate` for those votes, the numbers those
of :mod:`dpteach.pate.answers` / :mod:`dpteach.pate.analysis` (4 significant digits); the
charts follow the sliders, every preset renders, and a histogram the sliders cannot build
gives a friendly message, never a traceback.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpapp.charts import sent_spec

from dpteach.pate.analysis import (gnmax_log_q, pate_epsilon, pate_expected_cost,
                                   threshold_log_pr_answered)
from dpteach.pate.answers import gnmax_answer_probabilities
from dpteach.plots.pate import (
    VOTE_PRESETS,
    agreement_votes,
    answer_distribution_data,
    pate_privacy_data,
    vote_histogram_data,
)

TIMEOUT = 60
PAGE = "dpapp.pate_votes"


def _page_script(module: str) -> None:
    import importlib

    importlib.import_module(module).render()


def page_app() -> AppTest:
    return AppTest.from_function(_page_script, kwargs={"module": PAGE},
                                 default_timeout=TIMEOUT).run()


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def sig4(x: float) -> str:
    return f"{x:.4g}"


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
    """A specification as the browser receives it (through JSON)."""
    return json.loads(json.dumps(spec))


def expected_charts(votes, threshold=300.0, sigma1=200.0, sigma2=40.0, delta=1e-5, k=1000):
    return [as_sent(sent_spec(vote_histogram_data(votes, threshold))),
            as_sent(sent_spec(answer_distribution_data(votes, threshold, sigma1, sigma2))),
            as_sent(sent_spec(pate_privacy_data(votes, threshold, sigma1, sigma2, delta,
                                                   k_max=10_000, mark_k=k)))]


def expected_metrics(votes, threshold=300.0, sigma1=200.0, sigma2=40.0, delta=1e-5, k=1000):
    p = math.exp(threshold_log_pr_answered(votes, threshold, sigma1))
    gn = gnmax_answer_probabilities(votes, sigma2)
    top = int(np.argmax(votes))

    def cost(queries, dd):
        return pate_expected_cost(np.tile(votes, (queries, 1)), sigma2=sigma2, delta=delta,
                                  threshold=threshold, sigma1=sigma1,
                                  data_dependent=dd).expected_cost

    bound = pate_epsilon(np.tile(votes, (k, 1)), sigma2=sigma2, delta=delta,
                         threshold=threshold, sigma1=sigma1, answered=np.ones(k, dtype=bool),
                         data_dependent=False).epsilon

    return {
        "P(threshold passes)": sig4(p),
        "Confident-GNMax: P(plurality)": sig4(p * gn[top]),
        "GNMax alone: P(plurality)": sig4(gn[top]),
        "Bound q̃ on P(GNMax ≠ plurality)": sig4(math.exp(gnmax_log_q(votes, sigma2))),
        "ε after k queries (data-independent bound)": sig4(bound),
        "Expected ε-cost, k queries (data-independent)": sig4(cost(k, False)),
        "Expected ε-cost, k queries (data-dependent)": sig4(cost(k, True)),
        "Expected ε-cost, one query (data-dependent)": sig4(cost(1, True)),
    }


def test_default_page_shows_the_library_numbers_and_charts():
    at = page_app()
    assert_no_errors(at)
    assert not at.warning, [w.value for w in at.warning]
    assert at.title[0].value == "PATE votes"
    votes = agreement_votes(250, 2, 0.8, "spread")
    assert metrics(at) == expected_metrics(votes)
    got = charts(at)
    assert got == expected_charts(votes)
    assert "δ = 1e-05" in got[2]["title"]["text"][1]          # the second line of the title


def _framed_script(module: str) -> None:
    """The page inside app.py's classroom bar (where its presets are offered)."""
    import importlib

    from dpapp.frame import classroom_frame

    page = importlib.import_module(module)
    classroom_frame(page.render, presets=page.PRESETS, url_path="pate-votes")


@pytest.mark.parametrize("preset", list(VOTE_PRESETS))
def test_every_preset_renders_its_histogram(preset):
    at = AppTest.from_function(_framed_script, kwargs={"module": PAGE},
                               default_timeout=TIMEOUT).run()
    at.slider(key="pate_agreement").set_value(0.3).run()         # somewhere else first
    at.pills[0].set_value(preset).run()                          # the presets above the page
    assert_no_errors(at)
    assert at.pills[0].value == preset
    assert not at.warning, [w.value for w in at.warning]
    agreement, rest = VOTE_PRESETS[preset]
    assert at.slider(key="pate_agreement").value == agreement
    votes = agreement_votes(250, 2, agreement, rest)
    assert charts(at) == expected_charts(votes)
    assert metrics(at) == expected_metrics(votes)


def _bar_heights(spec: dict) -> list[float]:
    return sorted(row["y"] for layer in spec["layer"] if layer["mark"]["type"] == "bar"
                  for row in layer["data"]["values"])


def test_the_agreement_slider_moves_every_chart():
    at = page_app()
    before = charts(at)
    at.slider(key="pate_agreement").set_value(0.95).run()
    assert_no_errors(at)
    after = charts(at)
    assert all(a != b for a, b in zip(after, before))
    votes = agreement_votes(250, 2, 0.95, "spread")
    assert _bar_heights(after[0]) == sorted(votes.tolist())
    assert after == expected_charts(votes)


@pytest.mark.parametrize("key,value,moved", [
    ("pate_teachers", 500, (0, 1, 2)),
    ("pate_classes", 3, (0, 1, 2)),
    ("pate_threshold", 200, (0, 1, 2)),
])
def test_the_ensemble_sliders_move_the_charts(key, value, moved):
    at = page_app()
    before = charts(at)
    at.slider(key=key).set_value(value).run()
    assert_no_errors(at)
    after = charts(at)
    assert [i for i in range(3) if after[i] != before[i]] == list(moved)
    kw = dict(teachers=250, classes=2, threshold=300.0)
    kw[key.removeprefix("pate_")] = value
    votes = agreement_votes(kw["teachers"], kw["classes"], 0.8, "spread")
    assert after == expected_charts(votes, threshold=float(kw["threshold"]))


@pytest.mark.parametrize("key,value,moved", [
    ("pate_sigma1", 50.0, (1, 2)),
    ("pate_sigma2", 10.0, (1, 2)),
    ("pate_delta", 1e-8, (2,)),
    ("pate_k", 10_000, (2,)),
])
def test_the_noise_and_accounting_sliders_move_only_their_charts(key, value, moved):
    at = page_app()
    before = charts(at)
    at.select_slider(key=key).set_value(value).run()
    assert_no_errors(at)
    after = charts(at)
    assert [i for i in range(3) if after[i] != before[i]] == list(moved)
    kw = dict(sigma1=200.0, sigma2=40.0, delta=1e-5, k=1000)
    kw[key.removeprefix("pate_")] = value
    votes = agreement_votes(250, 2, 0.8, "spread")
    assert after == expected_charts(votes, **kw)
    assert metrics(at) == expected_metrics(votes, **kw)


def test_a_histogram_the_sliders_cannot_build_is_a_friendly_message():
    # all other teachers for one runner-up with only 30% for class 0: class 1 would win
    at = page_app()
    at.radio(key="pate_rest").set_value("all for one runner-up class")
    at.slider(key="pate_agreement").set_value(0.3).run()
    assert_no_errors(at)
    assert len(at.warning) == 1
    text = at.warning[0].value
    assert "The vote histogram" in text and "agreement" in text and "Traceback" not in text
    assert charts(at) == [] and metrics(at) == {}
    # back to a valid agreement: everything shows again
    at.slider(key="pate_agreement").set_value(0.6).run()
    assert_no_errors(at)
    assert not at.warning
    assert charts(at) == expected_charts(agreement_votes(250, 2, 0.6, "runner-up"))


def test_slider_ends_together_render():
    at = page_app()
    for agreement, teachers, classes, threshold, s1, s2 in [
            (1.0, 50, 2, 0, 10.0, 5.0), (0.5, 500, 2, 600, 500.0, 200.0),
            (0.1, 500, 10, 600, 10.0, 200.0), (1.0, 500, 10, 0, 500.0, 5.0)]:
        at.slider(key="pate_agreement").set_value(agreement)
        at.slider(key="pate_teachers").set_value(teachers)
        at.slider(key="pate_classes").set_value(classes)
        at.slider(key="pate_threshold").set_value(threshold)
        at.select_slider(key="pate_sigma1").set_value(s1)
        at.select_slider(key="pate_sigma2").set_value(s2)
        at.select_slider(key="pate_delta").set_value(1e-10)
        at.select_slider(key="pate_k").set_value(10_000).run()
        assert_no_errors(at)
        assert not at.warning, (agreement, teachers, [w.value for w in at.warning])
        votes = agreement_votes(teachers, classes, agreement, "spread")
        assert charts(at) == expected_charts(votes, float(threshold), s1, s2, 1e-10, 10_000)
