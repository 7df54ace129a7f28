"""AppTest tests of the page "Reconstruction attack".

The fraction shown must be the shipped attack at the sliders' (n, k, noise, level, decoder)
(:func:`dpapp.reconstruction_attack.fraction_at`, which
``tests/test_tables.py`` checks against
:func:`dpteach.attacks.reconstruction.reconstruction_attack`), the DP numbers those of
:func:`~dpteach.attacks.reconstruction.calibrate_noise`, the charts the Vega-Lite
specifications of :func:`~dpapp.reconstruction_attack.noise_figure` (the plots
module's ``recovery_vs_noise_data`` / ``recovery_vs_epsilon_data``) and
:func:`~dpapp.reconstruction_attack.queries_figure`; every widget moves the
charts, and a decoder the library refuses at that size is a friendly message.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpapp.charts import sent_spec

from dpapp import reconstruction_attack as page
from dpapp.widgets import fmt
from dpteach.attacks.reconstruction import calibrate_noise, dp_recovery_bound, subset_sum_queries

TIMEOUT = 60
PAGE = "dpapp.reconstruction_attack"
DEFAULT = dict(n=page.DEFAULT_N, k=page.DEFAULT_K, noise="bounded", level=page.DEFAULT_C,
               decoder="least_squares")


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


def expected_charts(n, k, noise, level, decoder) -> list[dict]:
    return [json.loads(json.dumps(sent_spec(f, height=page.CHART_HEIGHT)))
            for f in (page.noise_figure(n, k, noise, level, decoder),
                      page.queries_figure(n, k, noise, level, decoder))]


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def expected_metrics(n, k, noise, level, decoder) -> dict[str, str]:
    out = {"Bits recovered": f"{page.fraction_at(n, k, noise, level, decoder):.1%}"}
    if noise == "bounded":
        out.update({"Error bound E = c·√n": fmt(level * math.sqrt(n), 3),
                    "√n": fmt(math.sqrt(n), 3), "Chance": "50%"})
    else:
        accounting, delta = page.DP_SETTINGS[noise]
        cal = calibrate_noise(k, level, delta=delta, mechanism=noise[3:], accounting=accounting)
        out.update({"ε of each answer": fmt(cal.per_query_epsilon, 3),
                    "Noise std of each answer": fmt(cal.noise_std, 3),
                    "DP ceiling": f"{100 * dp_recovery_bound(level, delta):.5g}%"})
    return out


def assert_shows(at: AppTest, **state) -> None:
    assert_no_errors(at)
    assert not at.warning, [w.value for w in at.warning]
    assert metrics(at) == expected_metrics(**state)
    assert charts(at) == expected_charts(**state)


def test_default_page_shows_the_tabled_attack():
    at = page_app()
    assert at.title[0].value == "Reconstruction attack"
    assert_shows(at, **DEFAULT)
    # errors 0.3·√n with k = 4n: least squares recovers (nearly) everything
    assert page.fraction_at(**DEFAULT) >= 0.95
    assert at.select_slider(key="rec_n").options == [str(n) for n in page.NS]
    assert at.select_slider(key="rec_k").options == [str(k) for k in page.KS]
    assert at.select_slider(key="rec_c").options == [f"{c:g}" for c in page.RELATIVE_NOISE]
    noise_chart, k_chart = charts(at)
    assert "√n" in " ".join(noise_chart["title"]["text"])
    # the current setting is marked on both charts, at its fraction
    frac = page.fraction_at(**DEFAULT)
    for chart, x in ((noise_chart, page.DEFAULT_C), (k_chart, page.DEFAULT_K)):
        marks = [row for layer in chart["layer"] for row in layer["data"]["values"]
                 if row.get("series") == "this setting"]
        assert marks == [{"x": x, "y": frac, "series": "this setting"}]


@pytest.mark.parametrize("key,value,change", [
    ("rec_n", 200, dict(n=200)),
    ("rec_k", 100, dict(k=100)),
    ("rec_c", 3.0, dict(level=3.0)),
])
def test_each_slider_moves_the_charts(key, value, change):
    at = page_app()
    before = charts(at)
    at.select_slider(key=key).set_value(value).run()
    state = {**DEFAULT, **change}
    assert_shows(at, **state)
    after = charts(at)
    assert after != before
    assert after[0] != before[0] or key == "rec_k" and after[1] != before[1]


def test_dp_noise_and_its_epsilon_slider():
    at = page_app()
    before = charts(at)
    for noise in ("dp_laplace", "dp_gaussian"):
        at.radio(key="rec_noise").set_value(noise).run()
        state = {**DEFAULT, "noise": noise, "level": page.DEFAULT_EPSILON}
        assert_shows(at, **state)
        assert charts(at) != before
        first = charts(at)
        at.select_slider(key="rec_epsilon").set_value(0.1).run()
        assert_shows(at, **{**state, "level": 0.1})
        assert charts(at) != first
        # small total ε: near a coin flip, under the DP ceiling's neighbourhood
        assert page.fraction_at(**{**state, "level": 0.1}) < 0.65
        text = json.dumps(charts(at)[0], ensure_ascii=False)
        assert "DP ceiling" in text
        at.select_slider(key="rec_epsilon").set_value(page.DEFAULT_EPSILON).run()


def test_the_decoder_radio_moves_the_mark():
    at = page_app()
    before = charts(at)
    for decoder in page.DECODERS[1:]:
        at.radio(key="rec_decoder").set_value(decoder).run()
        assert_shows(at, **{**DEFAULT, "decoder": decoder})
    assert charts(at) != before


def test_a_decoder_the_library_refuses_is_a_friendly_message():
    at = page_app()
    at.select_slider(key="rec_n").set_value(400)
    at.select_slider(key="rec_k").set_value(1600)
    at.radio(key="rec_decoder").set_value("lp_l1").run()
    assert_no_errors(at)
    assert len(at.warning) == 1
    text = at.warning[0].value
    assert "This decoder" in text and "n·k ≤ 320000" in text and "Traceback" not in text
    assert metrics(at)["Bits recovered"] == "—"
    state = dict(n=400, k=1600, noise="bounded", level=page.DEFAULT_C, decoder="lp_l1")
    assert charts(at) == expected_charts(**state)       # the allowed decoders still draw
    for chart in charts(at):
        assert "this setting" not in json.dumps(chart, ensure_ascii=False)


def test_the_slider_ends_render():
    at = page_app()
    for n in (page.NS[0], page.NS[-1]):
        for k in (page.KS[0], page.KS[-1]):
            for c in (page.RELATIVE_NOISE[0], page.RELATIVE_NOISE[-1]):
                at.select_slider(key="rec_n").set_value(n)
                at.select_slider(key="rec_k").set_value(k)
                at.select_slider(key="rec_c").set_value(c).run()
                assert_no_errors(at)
                assert not at.warning
                assert charts(at) == expected_charts(n, k, "bounded", c, "least_squares")


# ------------------------------------------------------------ the dip at k = n, explained
def _query_matrix(n: int, k: int) -> np.ndarray:
    """The table's query matrix at (n, k), drawn by the library from the page's generator
    (the secret is drawn first, as reconstruction_attack does)."""
    rng = page.attack_rng(n, k)
    rng.integers(0, 2, n)
    return subset_sum_queries(n, k, rng=rng)


def test_the_dip_at_k_equal_n_is_explained_beside_the_chart():
    at = page_app()                               # least squares, n = 100
    assert_no_errors(at)
    notes = [c.value for c in at.caption if c.value.startswith("Why least squares dips")]
    assert len(notes) == 1
    cond_n, cond_2n = (np.linalg.cond(_query_matrix(100, k)) for k in (100, 200))
    assert "k = n = 100" in notes[0]
    assert f"condition number {cond_n:,.0f} here, against {cond_2n:,.0f} at k = 200" \
        in notes[0]
    at.radio(key="rec_decoder").set_value("lp_l1").run()          # the LPs do not dip so
    assert not [c for c in at.caption if c.value.startswith("Why least squares dips")]


def test_a_square_random_query_matrix_is_ill_conditioned():
    # the note's claim. A random square matrix's smallest singular value is of order n^(-1/2)
    # (Rudelson & Vershynin 2008), a 2n × n one's of order √(2n) − √n (Rudelson & Vershynin
    # 2009): the condition number at k = n is far above k = 2n's. Over 20 seeded draws at
    # n = 100 the medians measured 2,265 and 33 (a ratio of 69; the least of the 20 square
    # ones, 528, is above the largest tall one, 36).
    rng = np.random.default_rng(24)
    square = [np.linalg.cond(subset_sum_queries(100, 100, rng=rng)) for _ in range(20)]
    tall = [np.linalg.cond(subset_sum_queries(100, 200, rng=rng)) for _ in range(20)]
    assert np.median(square) > 10 * np.median(tall)
    assert min(square) > max(tall)
    for n in page.NS:                             # the page's own draws (7,182 vs 31 at 100)
        assert page.conditioning(n)[n] > 10 * page.conditioning(n)[2 * n]


def test_the_dip_is_the_noise_amplified_not_a_failure_of_the_decoder():
    # without errors the square system is solved exactly (every bit); with errors of 0.1·√n
    # it is a coin flip, while twice as many queries recover nearly every bit at 0.3·√n
    fraction = lambda k, c: page.fraction_at(100, k, "bounded", c, "least_squares")  # noqa: E731
    assert fraction(100, 0.0) == 1.0
    assert fraction(100, 0.1) < 0.6 and fraction(100, 0.3) < 0.6
    assert fraction(200, 0.3) > 0.9
