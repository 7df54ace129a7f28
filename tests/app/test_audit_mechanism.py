"""AppTest tests of the page "Audit a mechanism".

The numbers must be the shipped audit of the sliders' (case, claimed ε, runs)
(:func:`dpapp.audit_mechanism.audit_cell`, which ``tests/test_tables.py``
checks against the auditor), the charts the Vega-Lite specifications of its histogram figure
and of :func:`dpteach.plots.audit.bound_convergence_data` over the run counts; every widget
moves the charts; the planted bugs are caught with enough runs; a claim the runs cannot
refute is the auditor's own friendly message, never a traceback.
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from dpapp import audit_mechanism as page
from dpapp.widgets import fmt
from dpteach.plots.figure import to_vega_lite

TIMEOUT = 60
PAGE = "dpapp.audit_mechanism"


def _page_script(module: str) -> None:
    import importlib

    importlib.import_module(module).render()


def page_app() -> AppTest:
    return AppTest.from_function(_page_script, kwargs={"module": PAGE},
                                 default_timeout=TIMEOUT).run()


def assert_no_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def charts(at: AppTest) -> list[dict]:
    out = []
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        spec.pop("autosize", None)
        out.append(spec)
    return out


def as_sent(data) -> dict:
    return json.loads(json.dumps(to_vega_lite(data, height=page.CHART_HEIGHT)))


def expected_charts(name: str, claim: float, n: int) -> list[dict]:
    out = []
    try:
        _, hist = page.audit_cell(name, claim, n)
        out.append(as_sent(hist))
    except ValueError:                    # refused: no histogram
        pass
    conv = page.convergence_figure(name, claim, n)
    if conv is not None:
        out.append(as_sent(conv))
    return out


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def expected_metrics(name: str, claim: float, n: int) -> dict[str, str]:
    result, _ = page.audit_cell(name, claim, n)
    info = page.case_info(name, claim)
    bound = result["epsilon_lower_bound"]
    claim_text = f"{claim:g}" + (f" (δ = {info['delta']:g})" if info["delta"] else "")
    true = "∞" if info["true_epsilon"] == float("inf") else fmt(info["true_epsilon"], 3)
    return {"95% lower bound on ε": fmt(bound, 3), "Claimed ε": claim_text,
            "Verdict": "refuted" if bound > claim else "not refuted",
            "True ε of this pair": true}


def assert_shows(at: AppTest, name: str, claim: float, n: int) -> None:
    assert_no_errors(at)
    assert not at.warning, [w.value for w in at.warning]
    assert metrics(at) == expected_metrics(name, claim, n)
    assert charts(at) == expected_charts(name, claim, n)


def test_default_page_shows_the_tabled_audit():
    at = page_app()
    assert at.title[0].value == "Audit a mechanism"
    assert_shows(at, "laplace", 1.0, 10_000)
    # the selector offers the tabled mechanisms only (not the untabled correct cases)
    assert at.selectbox(key="audit_mechanism").options == [
        page.case_info(n, 1.0)["title"] for n in page.MECHANISMS]
    # the sliders offer exactly the table's grid, on a log scale with the privacy caption
    assert at.select_slider(key="audit_claim").options == [page.fmt(e) for e in page.CLAIMS]
    assert at.select_slider(key="audit_runs").options == [f"{t:,}" for t in page.TRIALS]
    captions = " ".join(c.value for c in at.caption)
    assert "← more private | less private →" in captions
    text = " ".join(m.value for m in at.markdown)
    res, _ = page.audit_cell("laplace", 1.0, 10_000)
    assert f'S = "{res["event"]}"' in text and "not refuted" in text
    # the histogram shows both sides and the chosen threshold
    hist = charts(at)[0]
    assert "runs per side" in json.dumps(hist["title"])
    names = {row["series"] for layer in hist["layer"] for row in layer.get("data", {})
             .get("values", [])}
    assert {"on D", "on D′"} <= names


@pytest.mark.parametrize("key,value,state", [
    ("audit_claim", 3.0, ("laplace", 3.0, 10_000)),
    ("audit_runs", 100_000, ("laplace", 1.0, 100_000)),
    ("audit_runs", 1_000, ("laplace", 1.0, 1_000)),
])
def test_each_slider_moves_the_charts_and_numbers(key, value, state):
    at = page_app()
    before = charts(at)
    at.select_slider(key=key).set_value(value).run()
    assert_shows(at, *state)
    after = charts(at)
    assert after[0] != before[0]                        # a different audit, histogram
    if key == "audit_claim":
        assert after[1] != before[1]                    # the claim line moves
    else:
        assert after[1]["layer"] != before[1]["layer"]  # the "this audit" mark moves


def test_the_mechanism_selector_and_each_planted_bug():
    at = page_app()
    for name in page.MECHANISMS:
        at.selectbox(key="audit_mechanism").set_value(name).run()
        assert_shows(at, name, 1.0, 10_000)
        for bug in page.BUG_CHOICES[name]:
            at.radio(key=f"audit_bug_{name}").set_value(page.case_info(bug, 1.0)["title"]).run()
            assert_shows(at, bug, 1.0, 10_000)
            fix = any("The fix is exact noise" in c.value for c in at.caption)
            assert fix == (bug in page.FLOATING_POINT)
            at.radio(key=f"audit_bug_{name}").set_value(page.NO_BUG).run()
            assert_shows(at, name, 1.0, 10_000)


def test_enough_runs_catch_every_planted_bug_and_never_refute_its_correct_twin():
    at = page_app()
    at.select_slider(key="audit_runs").set_value(100_000).run()
    for name, bugs in page.BUG_CHOICES.items():
        if not bugs:
            continue
        at.selectbox(key="audit_mechanism").set_value(name).run()
        assert metrics(at)["Verdict"] == "not refuted", name
        for bug in bugs:
            at.radio(key=f"audit_bug_{name}").set_value(page.case_info(bug, 1.0)["title"]).run()
            assert_shows(at, bug, 1.0, 100_000)
            assert metrics(at)["Verdict"] == "refuted", bug
            assert "is refuted" in " ".join(m.value for m in at.markdown)
        at.radio(key=f"audit_bug_{name}").set_value(page.NO_BUG).run()


def test_too_few_runs_for_the_claim_is_the_auditors_friendly_message():
    at = page_app()
    at.select_slider(key="audit_claim").set_value(7.0)
    at.select_slider(key="audit_runs").set_value(1_000).run()
    assert_no_errors(at)
    assert len(at.warning) == 1
    text = at.warning[0].value
    assert "The audit" in text and "too few" in text and "needs n_trials" in text
    assert "Traceback" not in text
    assert metrics(at) == {}
    assert charts(at) == expected_charts("laplace", 7.0, 1_000)       # the bound vs runs
    assert len(charts(at)) == 1
    # a claim no run count of the slider can refute: no chart, a caption says why
    at.select_slider(key="audit_claim").set_value(10.0).run()
    assert_no_errors(at)
    assert len(at.warning) == 1 and charts(at) == []
    assert any("No number of runs" in c.value for c in at.caption)


def test_the_slider_ends_render():
    at = page_app()
    for claim in (page.CLAIMS[0], page.CLAIMS[-1]):
        for n in (page.TRIALS[0], page.TRIALS[-1]):
            at.select_slider(key="audit_claim").set_value(claim)
            at.select_slider(key="audit_runs").set_value(n).run()
            assert_no_errors(at)
            assert charts(at) == expected_charts("laplace", claim, n)
