"""AppTest tests of the pages "Composition & budget" and "DP-SGD planner".

The numbers shown must be those of :mod:`dpteach.accounting` (formatted to 4
significant digits), the figures Vega-Lite charts of the same numbers that follow
the sliders, and bad combinations must give a friendly message, never an exception.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpapp import composition as comp_page
from dpteach.accounting.compare import METHOD_LABELS, composition_epsilons
from dpteach.accounting.rdp import RDPAccountant
from dpteach.accounting.calibrate import epsilon_for_noise_multiplier, get_noise_multiplier

TIMEOUT = 60
COMP = "dpapp.composition"
PLAN = "dpapp.dpsgd_planner"

#: the methods' names in the legends and metrics (words, no citation keys)
PLD, OPTIMAL = METHOD_LABELS["pld"], METHOD_LABELS["optimal"]


def _page_script(module: str) -> None:
    import importlib

    importlib.import_module(module).render()


def page_app(module: str) -> AppTest:
    return AppTest.from_function(_page_script, kwargs={"module": module},
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
    return [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]


def chart_rows(spec: dict) -> dict[str, list[tuple[float, float]]]:
    """Series name → its (x, y) points; rules → [(value, nan)]."""
    out: dict[str, list] = {}
    for layer in spec["layer"]:
        for row in layer["data"]["values"]:
            out.setdefault(row["series"], []).append(
                (row["x"], row["y"]) if "x" in row else (row["v"], math.nan))
    return out


# ------------------------------------------------------------------ composition
def budget_tiles(at: AppTest) -> list[tuple[str, str]]:
    """The page's first three tiles: queries within the budget (basic, advanced, RDP)."""
    return [(m.label, m.value) for m in at.metric][:3]


def totals(at: AppTest) -> dict[str, str]:
    """The tiles after the budget's: each accountant's total ε at k."""
    return {m.label: m.value for m in list(at.metric)[3:]}


def _expected(k, mechanism, delta, **kw):
    out = composition_epsilons([k], mechanism=mechanism, delta=delta, **kw)
    return {METHOD_LABELS[m]: sig4(v[0]) for m, v in out.items()}


def test_composition_default_laplace():
    at = page_app(COMP)
    assert_no_errors(at)
    assert totals(at) == _expected(100, "laplace", 1e-5, epsilon=0.1)
    assert not at.get("imgs") and not at.get("image")
    spec = charts(at)[0]
    assert spec["title"]["text"] == ("Composition of k Laplace queries, ε₀ = 0.1 each; "
                                     "total δ = 1e-05")
    rows = chart_rows(spec)
    assert set(METHOD_LABELS.values()) <= set(rows) and rows["mark_k"] == [(100, math.nan)]
    ks = [x for x, _ in rows[PLD]]
    assert ks[0] == 1 and ks[-1] == 1000 and 100 in ks
    pld = composition_epsilons(ks, mechanism="laplace", epsilon=0.1, delta=1e-5,
                               methods=("pld",))["pld"]
    assert [y for _, y in rows[PLD]] == pytest.approx(pld, rel=1e-5)   # 6 digits sent
    assert any("Smallest total ε" in c.value for c in at.caption)


def test_composition_sliders_update_numbers():
    at = page_app(COMP)
    before = chart_rows(charts(at)[0])
    at.select_slider(key="k").set_value(1000)
    at.select_slider(key="eps0").set_value(0.03)
    at.select_slider(key="total_delta").set_value(1e-8).run()
    assert_no_errors(at)
    assert totals(at) == _expected(1000, "laplace", 1e-8, epsilon=0.03)
    spec = charts(at)[0]
    after = chart_rows(spec)
    assert after["mark_k"] == [(1000, math.nan)] and after[PLD] != before[PLD]
    assert "ε₀ = 0.03" in spec["title"]["text"] and "δ = 1e-08" in spec["title"]["text"]


@pytest.mark.parametrize("key,value", [("k", 5000), ("eps0", 10.0), ("total_delta", 1e-2)])
def test_composition_chart_follows_each_slider(key, value):
    at = page_app(COMP)
    before = charts(at)[0]
    at.select_slider(key=key).set_value(value).run()
    assert_no_errors(at)
    after = charts(at)[0]
    assert after != before
    if key == "k":          # the curves reach the chosen k beyond the figure's 1000
        assert max(x for x, _ in chart_rows(after)["Rényi DP"]) == 5000


def test_composition_gaussian():
    at = page_app(COMP)
    at.radio(key="mechanism").set_value("Gaussian (σ per query)").run()
    at.select_slider(key="sigma0").set_value(2.0).run()
    assert_no_errors(at)
    m = totals(at)
    assert m == _expected(100, "gaussian", 1e-5, sigma=2.0)
    assert float(m[PLD]) < float(m["Rényi DP"]) < float(m[OPTIMAL])
    spec = charts(at)[0]
    assert "Gaussian queries, σ = 2" in spec["title"]["text"]


def test_composition_without_pld_and_single_query():
    at = page_app(COMP)
    at.toggle(key="with_pld").set_value(False)
    at.select_slider(key="k").set_value(1).run()
    assert_no_errors(at)
    m = totals(at)
    assert PLD not in m and len(m) == 4
    assert PLD not in chart_rows(charts(at)[0])
    # one ε₀-DP mechanism with δ = 1e-5 allowed: ε' = ln(e^ε₀ − δ(1 + e^ε₀)) (KOV, k = 1)
    assert m["basic (ε's add)"] == "0.1"
    assert m[OPTIMAL] == sig4(math.log(math.exp(0.1) - 1e-5 * (1 + math.exp(0.1)))) == "0.09998"


def test_composition_huge_total_is_friendly():
    # k = 300, ε₀ = 3 (k·ε₀ = 900): dp_accounting's PLD overflows to ∞; the page shows
    # the (valid) basic bound and explains, no traceback
    at = page_app(COMP)
    at.select_slider(key="k").set_value(300)
    at.select_slider(key="eps0").set_value(3.0).run()
    assert_no_errors(at)
    m = totals(at)
    assert m["basic (ε's add)"] == m[PLD] == sig4(900.0)
    assert any("overflows" in i.value for i in at.info)


def _within(budget, mechanism, delta, **kw):
    """Queries within ``budget`` by a scan of k = 1 … 1000 with the library (each total
    increasing in k, checked), for the three accountants the page counts."""
    ks = np.arange(1, 1001)
    out = composition_epsilons(ks, mechanism=mechanism, delta=delta,
                               methods=("basic", "advanced", "rdp"), **kw)
    counts = {}
    for m, total in out.items():
        assert np.all(np.diff(total) >= 0), m
        counts[m] = int(np.sum(total <= budget))
        assert counts[m] < 1000, "the scan must reach past the crossing"
    return counts


@pytest.mark.parametrize("mechanism,kw,budget,measured", [
    ("laplace", {"epsilon": 0.1}, 5.0, (50, 76, 117)),
    ("gaussian", {"sigma": 5.0}, 10.0, (11, 3, 89))])
def test_composition_queries_within_the_budget_are_the_libraries(mechanism, kw, budget,
                                                                 measured):
    at = AppTest.from_function(_page_script, kwargs={"module": COMP}, default_timeout=TIMEOUT)
    at.query_params.update({"comp_budget": f"{budget:g}"})
    at.run()
    if mechanism == "gaussian":
        at.radio(key="mechanism").set_value("Gaussian (σ per query)").run()
    assert_no_errors(at)
    expected = _within(budget, mechanism, 1e-5, **kw)
    assert tuple(expected.values()) == measured        # the figures quoted in the report
    assert budget_tiles(at) == [("basic", f"{expected['basic']:,}"),
                                ("advanced", f"{expected['advanced']:,}"),
                                ("Rényi DP", f"{expected['rdp']:,}")]
    assert any(f"budget of ε = {budget:g} buys {expected['basic']:,} by basic"
               in md.value for md in at.markdown)
    # the chart: the budget line, and each curve's last k within it marked on the curve
    data = comp_page.with_budget(
        comp_page._data(100, mechanism, kw.get("epsilon"), kw.get("sigma"), 1e-5, True),
        budget, expected, mechanism, kw.get("epsilon"), kw.get("sigma"), 1e-5)
    assert data.rules[-1].key == "budget" and data.rules[-1].value == budget
    for m, n in expected.items():
        if n == 0:
            continue
        mark = data.series_by_key(f"budget-{m}")
        at_n, after = composition_epsilons([n, n + 1], mechanism=mechanism, delta=1e-5,
                                           methods=(m,), **kw)[m]
        assert (mark.x[0], mark.y[0]) == (n, pytest.approx(at_n))
        assert at_n <= budget < after


def test_composition_budget_limits():
    # none fit (one query already over the budget) and all fit (up to the page's limit)
    within = comp_page.queries_within_budget
    assert within(0.1, "gaussian", None, 0.5, 1e-5, "rdp") == 0
    assert within(100.0, "laplace", 1e-5, None, 1e-5, "basic") == comp_page.K_LIMIT
    assert within(2.0, "laplace", 0.1, None, 1e-5, "basic") == 20      # kε₀ ≤ 2


def test_composition_share_of_basic_is_the_ratio_of_the_totals():
    at = page_app(COMP)
    share = chart_rows(charts(at)[1])
    ks = [x for x, _ in share["Rényi DP"]]
    out = composition_epsilons(ks, mechanism="laplace", epsilon=0.1, delta=1e-5,
                               methods=("basic", "advanced", "rdp"))
    for m in ("advanced", "rdp"):
        assert [y for _, y in share[METHOD_LABELS[m]]] == pytest.approx(
            out[m] / out["basic"], rel=1e-5)
    assert share["basic composition (ε's add)"] == [(1.0, math.nan)]


# ------------------------------------------------------------------ DP-SGD planner
def test_planner_default_matches_accountants():
    at = page_app(PLAN)
    assert_no_errors(at)
    m = metrics(at)
    q, steps = 256 / 60_000, round(64 / (256 / 60_000))
    acc = RDPAccountant()
    acc.step(noise_multiplier=1.1, sample_rate=q, steps=steps)
    eps, order = acc.get_epsilon_and_order(1e-5)
    assert m["Sampling rate q"] == sig4(q)
    assert m["Steps T"] == f"{steps:,}" == "15,000"
    assert m["ε (RDP)"] == sig4(eps) and m["best RDP order α"] == sig4(order)
    pld = epsilon_for_noise_multiplier(noise_multiplier=1.1, delta=1e-5, sample_rate=q,
                                       steps=steps, accountant="pld",
                                       value_discretization_interval=1e-3)
    assert m["ε (PLD)"] == sig4(pld)
    assert float(m["ε (PLD)"]) < float(m["ε (RDP)"])
    # calibration (many accountant evaluations) waits for its button
    assert "σ needed (RDP)" not in m and "σ needed (PLD)" not in m
    assert not at.get("imgs") and not at.get("image")
    (spec,) = charts(at)
    assert spec["title"]["text"] == f"DP-SGD accounting: q = {q:.3g}, σ = 1.1, δ = 1e-05"
    rows = chart_rows(spec)
    assert rows["mark_steps"] == [(15_000, math.nan)]
    assert rows["Rényi DP"][-1] == (15_000, pytest.approx(eps, rel=1e-5))
    # PLD points at the runs of 1, 2, 3, 5, …, 64 epochs (read from the shipped table)
    pts = [x for x, _ in rows[PLD]]
    assert pts == [round(e / q) for e in (1, 2, 3, 5, 10, 20, 30, 50, 64)]
    assert rows[PLD][-1][1] == pytest.approx(pld, rel=1e-5)


def test_planner_chart_follows_the_sliders():
    at = page_app(PLAN)
    before = chart_rows(charts(at)[0])
    for key, value in (("sigma", 2.0), ("epochs", 10), ("run_delta", 1e-8), ("batch", 512),
                       ("n", 10_000)):
        at.select_slider(key=key).set_value(value).run()
        assert_no_errors(at)
        after = chart_rows(charts(at)[0])
        assert after != before, key
        before = after
    q = 512 / 10_000
    assert before["mark_steps"] == [(round(10 / q), math.nan)]


def test_planner_calibration_button():
    at = page_app(PLAN)
    at.select_slider(key="epochs").set_value(10)
    at.select_slider(key="target_epsilon").set_value(2.0).run()
    at.button(key="find_sigma").click().run()
    assert_no_errors(at)
    m = metrics(at)
    q = 256 / 60_000
    steps = round(10 / q)
    assert m["σ needed (RDP)"] == sig4(get_noise_multiplier(
        target_epsilon=2.0, target_delta=1e-5, sample_rate=q, steps=steps))
    sigma_pld = get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=q,
                                     steps=steps, accountant="pld",
                                     value_discretization_interval=1e-3, rtol=1e-3)
    assert m["σ needed (PLD)"] == sig4(sigma_pld)
    assert float(m["σ needed (PLD)"]) < float(m["σ needed (RDP)"])


@pytest.mark.parametrize("sigma,batch,epochs", [(0.5, 1024, 200), (5.0, 16, 1), (1.0, 4096, 3)])
def test_planner_sliders_update(sigma, batch, epochs):
    at = page_app(PLAN)
    at.select_slider(key="sigma").set_value(sigma)
    at.select_slider(key="batch").set_value(batch)
    at.select_slider(key="epochs").set_value(epochs).run()
    assert_no_errors(at)
    q = batch / 60_000
    steps = max(1, round(epochs / q))
    acc = RDPAccountant()
    acc.step(noise_multiplier=sigma, sample_rate=q, steps=steps)
    assert metrics(at)["ε (RDP)"] == sig4(acc.get_epsilon(1e-5))


def test_planner_bad_combinations_are_friendly():
    at = page_app(PLAN)
    at.select_slider(key="n").set_value(1_000)
    at.select_slider(key="batch").set_value(2048).run()
    assert_no_errors(at)
    assert any("cannot exceed the dataset size" in w.value for w in at.warning)
    assert not at.metric

    at = page_app(PLAN)
    at.select_slider(key="n").set_value(1_000_000).run()       # δ = 1e-5 ≥ 1/n
    assert_no_errors(at)
    assert any("1/n" in w.value for w in at.warning)
    assert at.metric                                            # numbers still shown

    # unreachable target: with δ = 1e-10 even σ → ∞ leaves RDP's ε at
    # (ln(1/δ) − ln α)/(α − 1) + ln(1 − 1/α) ≈ 0.015 at the largest order α = 1024
    at = page_app(PLAN)
    at.select_slider(key="run_delta").set_value(1e-10)
    at.select_slider(key="target_epsilon").set_value(0.01).run()
    assert not any("not reachable" in w.value for w in at.warning)   # not computed yet
    at.button(key="find_sigma").click().run()
    assert_no_errors(at)
    assert any("not reachable" in w.value for w in at.warning)


def test_planner_explains_when_the_run_is_too_long_to_draw():
    # n = 1,000,000, batch 16, 200 epochs → 12.5 M steps: numbers, no figure, an explanation
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_string(
        "from dpapp.dpsgd_planner import render\nrender()", default_timeout=120)
    at.run()
    at.select_slider(key="n").set_value(1_000_000)
    at.select_slider(key="batch").set_value(16)
    at.select_slider(key="epochs").set_value(200).run()
    assert not at.exception
    assert any("up to 1,000,000 steps" in i.value for i in at.info)
    assert not any(m.label == "ε (PLD)" for m in at.metric)   # PLD waits for its button
    assert not charts(at)
    assert any(m.label == "Steps T" and m.value == "12,500,000" for m in at.metric)


def test_planner_says_when_pld_is_looser_than_rdp():
    # q = 16/60,000 over 200 epochs (750,000 steps): the 1e-3-grid PLD (≈1.55) is above
    # RDP (≈1.07), so the page must not call PLD tighter there and must say why.
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_string(
        "from dpapp.dpsgd_planner import render\nrender()", default_timeout=120)
    at.run()
    at.select_slider(key="batch").set_value(16)
    at.select_slider(key="epochs").set_value(200).run()
    assert not at.exception
    values = {m.label: float(m.value) for m in at.metric if m.label in ("ε (RDP)", "ε (PLD)")}
    assert values["ε (PLD)"] > values["ε (RDP)"]
    assert any("looser than RDP" in c.value for c in at.caption)


def test_planner_when_the_pld_accountant_refuses_the_run():
    # q = 16/10⁶ over 5 epochs (312,500 steps) at σ = 1.5: the 1e-3 PLD grid would need
    # ~4 M points, which the library refuses (in milliseconds): a friendly message, and
    # the figure with RDP only
    at = page_app(PLAN)
    at.select_slider(key="n").set_value(1_000_000)
    at.select_slider(key="batch").set_value(16)
    at.select_slider(key="epochs").set_value(5)
    at.select_slider(key="sigma").set_value(1.5)
    at.select_slider(key="run_delta").set_value(1e-7).run()
    assert_no_errors(at)
    assert any("PLD grid" in w.value for w in at.warning)
    assert "ε (PLD)" not in metrics(at) and "ε (RDP)" in metrics(at)
    (spec,) = charts(at)
    rows = chart_rows(spec)
    assert "Rényi DP" in rows and PLD not in rows
