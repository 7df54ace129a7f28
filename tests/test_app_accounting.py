"""AppTest tests of the pages "Composition & budget" and "DP-SGD planner".

The numbers shown must be those of :mod:`dpteach.accounting` (formatted to 4
significant digits), and bad combinations must give a friendly message, never
an exception.
"""

from __future__ import annotations

import math

import pytest
from streamlit.testing.v1 import AppTest

from dpteach.accounting import (
    METHOD_LABELS,
    RDPAccountant,
    composition_epsilons,
    epsilon_for_noise_multiplier,
    get_noise_multiplier,
)

TIMEOUT = 60
COMP = "dpteach.app_pages.composition"
PLAN = "dpteach.app_pages.dpsgd_planner"


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


# ------------------------------------------------------------------ composition
def _expected(k, mechanism, delta, **kw):
    out = composition_epsilons([k], mechanism=mechanism, delta=delta, **kw)
    return {METHOD_LABELS[m]: sig4(v[0]) for m, v in out.items()}


def test_composition_default_laplace():
    at = page_app(COMP)
    assert_no_errors(at)
    assert metrics(at) == _expected(100, "laplace", 1e-5, epsilon=0.1)
    assert len(at.get("image")) == 1
    assert any("Smallest total ε" in c.value for c in at.caption)


def test_composition_sliders_update_numbers():
    at = page_app(COMP)
    at.select_slider(key="k").set_value(1000)
    at.select_slider(key="eps0").set_value(0.03)
    at.select_slider(key="delta").set_value(1e-8).run()
    assert_no_errors(at)
    assert metrics(at) == _expected(1000, "laplace", 1e-8, epsilon=0.03)


def test_composition_gaussian():
    at = page_app(COMP)
    at.radio(key="mechanism").set_value("Gaussian (σ per query)").run()
    at.select_slider(key="sigma").set_value(2.0).run()
    assert_no_errors(at)
    m = metrics(at)
    assert m == _expected(100, "gaussian", 1e-5, sigma=2.0)
    assert float(m["PLD"]) < float(m["Rényi DP"]) < float(m["optimal (KOV15)"])


def test_composition_without_pld_and_single_query():
    at = page_app(COMP)
    at.toggle(key="with_pld").set_value(False)
    at.select_slider(key="k").set_value(1).run()
    assert_no_errors(at)
    m = metrics(at)
    assert "PLD" not in m and len(m) == 4
    # one ε₀-DP mechanism with δ = 1e-5 allowed: ε' = ln(e^ε₀ − δ(1 + e^ε₀)) (KOV, k = 1)
    assert m["basic (ε's add)"] == "0.1"
    assert m["optimal (KOV15)"] == sig4(math.log(math.exp(0.1) - 1e-5 * (1 + math.exp(0.1)))) == "0.09998"


def test_composition_huge_total_is_friendly():
    # k = 300, ε₀ = 3 (k·ε₀ = 900): dp_accounting's PLD overflows to ∞; the page shows
    # the (valid) basic bound and explains, no traceback
    at = page_app(COMP)
    at.select_slider(key="k").set_value(300)
    at.select_slider(key="eps0").set_value(3.0).run()
    assert_no_errors(at)
    m = metrics(at)
    assert m["basic (ε's add)"] == m["PLD"] == sig4(900.0)
    assert any("overflows" in i.value for i in at.info)


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
    sigma = get_noise_multiplier(target_epsilon=3.0, target_delta=1e-5, sample_rate=q, steps=steps)
    assert m["σ needed (RDP)"] == sig4(sigma)
    assert "σ needed (PLD)" not in m                   # only after the button
    assert len(at.get("image")) == 1


def test_planner_pld_calibration_button():
    at = page_app(PLAN)
    at.select_slider(key="epochs").set_value(10)
    at.select_slider(key="target_epsilon").set_value(2.0).run()
    at.button(key="pld_sigma").click().run()
    assert_no_errors(at)
    m = metrics(at)
    q = 256 / 60_000
    steps = round(10 / q)
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
    at.select_slider(key="delta").set_value(1e-10)
    at.select_slider(key="target_epsilon").set_value(0.01).run()
    assert_no_errors(at)
    assert any("not reachable" in w.value for w in at.warning)


def test_planner_explains_when_the_run_is_too_long_to_draw():
    # n = 1,000,000, batch 16, 200 epochs → 12.5 M steps: numbers, no figure, an explanation
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_string(
        "from dpteach.app_pages.dpsgd_planner import render\nrender()", default_timeout=120)
    at.run()
    at.select_slider(key="n").set_value(1_000_000)
    at.select_slider(key="batch").set_value(16)
    at.select_slider(key="epochs").set_value(200).run()
    assert not at.exception
    assert any("up to 1,000,000 steps" in i.value for i in at.info)
    assert not any(m.label == "ε (PLD)" for m in at.metric)   # PLD waits for its button
    assert any(m.label == "Steps T" and m.value == "12,500,000" for m in at.metric)


def test_planner_says_when_pld_is_looser_than_rdp():
    # q = 16/60,000 over 200 epochs (750,000 steps): the 1e-3-grid PLD (≈1.55) is above
    # RDP (≈1.07), so the page must not call PLD tighter there and must say why.
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_string(
        "from dpteach.app_pages.dpsgd_planner import render\nrender()", default_timeout=120)
    at.run()
    at.select_slider(key="batch").set_value(16)
    at.select_slider(key="epochs").set_value(200).run()
    assert not at.exception
    values = {m.label: float(m.value) for m in at.metric if m.label in ("ε (RDP)", "ε (PLD)")}
    assert values["ε (PLD)"] > values["ε (RDP)"]
    assert any("looser than RDP" in c.value for c in at.caption)
