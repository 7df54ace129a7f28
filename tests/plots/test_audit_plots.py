"""The auditing figures (dpteach.plots.audit): their numbers against the math modules.

The histograms are the audit's own outputs (frequencies that sum to 1, densities that
integrate to the share of outputs inside the drawn range); the convergence figure's "most"
curve is ``max_certifiable_epsilon``; the canary histogram counts the canaries; the one-run
curve is ``one_run_audit_bound`` at each accuracy. Every figure has its keys, both renderers
draw it, and a hypothesis bad-input test attacks every public function (``_props.call_rejects``).
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from _props import (
    BAD_POSITIVE,
    NOT_A_NUMBER,
    NOT_AN_OBJECT,
    assert_rejects_bad_values,
    bad_int,
    call_rejects,
)
from hypothesis import strategies as st
from matplotlib.figure import Figure

from dpteach._validation import ParameterError
from dpteach.audit import cases as C
from dpteach.audit import one_run as O
from dpteach.audit import runs as R
from dpteach.audit.bounds import max_certifiable_epsilon
from dpteach.plots import audit as P
from dpteach.plots.figure import to_matplotlib, to_vega_lite


@pytest.fixture(scope="module")
def laplace_result():
    return C.audit_case("laplace", 1.0).audit(4_000, rng=0)


@pytest.fixture(scope="module")
def rr_result():
    return C.audit_case("randomized_response", 1.0).audit(4_000, rng=1)


@pytest.fixture(scope="module")
def one_run():
    rng = np.random.default_rng(2)
    inc = rng.random(300) < 0.5
    return O.one_run_audit(inc + rng.normal(0, 1, 300), inc, k_plus=30, k_minus=30)


def _both(data):
    fig = to_matplotlib(data)
    spec = to_vega_lite(data)
    json.dumps(spec)
    return fig, spec


def test_histograms_of_real_outputs(laplace_result):
    d = P.audit_histograms_data(laplace_result, bins=30)
    dx, dp = d.series_by_key("d"), d.series_by_key("d_prime")
    width = dx.x[1] - dx.x[0]
    # densities over the 0.1%–99.9% range: each integrates to ≈ 1 (outliers are clipped in)
    assert np.sum(dx.y) * width == pytest.approx(1.0, abs=1e-9)
    assert np.sum(dp.y) * width == pytest.approx(1.0, abs=1e-9)
    assert [r.key for r in d.rules] == ["threshold"]
    assert d.rules[0].value == laplace_result.threshold
    assert "ε = 1" in d.title and not d.extra["categorical"]
    _both(d)
    assert isinstance(P.plot_audit_histograms(laplace_result), Figure)


def test_histograms_of_categories_mark_the_event(rr_result):
    d = P.audit_histograms_data(rr_result)
    assert d.extra["categorical"] and d.series_by_key("d").kind == "bars"
    assert d.series_by_key("d").y.sum() == pytest.approx(1.0)
    assert d.series_by_key("d").y[0] == pytest.approx(np.mean(rr_result.outputs == 0))
    ev = d.series_by_key("event")
    assert ev.x.tolist() == [float(rr_result.bin_edges[i]) for i in rr_result.event_bins]
    assert len(ev.x) == 1 and rr_result.in_event(ev.x).all()
    assert not d.rules
    _both(d)


def test_convergence_figure():
    trials, bounds = [1000, 10, 100], [0.8, 0.0, 0.3]
    d = P.bound_convergence_data(trials, bounds, claimed_epsilon=1.0, true_epsilon=1.0)
    s = d.series_by_key("bound")
    assert s.x.tolist() == [10, 100, 1000] and s.y.tolist() == [0.0, 0.3, 0.8]   # sorted
    most = d.series_by_key("most")
    assert most.y[0] == pytest.approx(max_certifiable_epsilon(5))
    assert {r.key for r in d.rules} == {"claim", "truth"} and d.log_x
    d_inf = P.bound_convergence_data(trials, bounds, claimed_epsilon=1.0, true_epsilon=math.inf)
    assert "∞" in d_inf.title and {r.key for r in d_inf.rules} == {"claim"}
    _both(d)
    assert isinstance(P.plot_bound_convergence(trials, bounds, claimed_epsilon=1.0), Figure)


def test_canary_figure_counts_the_canaries(one_run):
    d = P.canary_scores_data(one_run, bins=20, claimed_epsilon=2.0)
    assert d.series_by_key("in").y.sum() == one_run.included.sum()
    assert d.series_by_key("out").y.sum() == (~one_run.included).sum()
    rules = {r.key: r.value for r in d.rules}
    assert rules["guess_in"] == one_run.scores[one_run.guesses > 0].min()
    assert rules["guess_out"] == one_run.scores[one_run.guesses < 0].max()
    assert f"{one_run.v} of {one_run.r}" in d.title and "claimed ε = 2" in d.title
    _both(d)
    assert isinstance(P.plot_canary_scores(one_run), Figure)


def test_one_run_bound_figure_is_the_bound():
    d = P.one_run_bound_data(1000, 100, delta=1e-4, claimed_epsilon=1.0, points=11)
    v = d.extra["v"]
    assert v[0] == 50 and v[-1] == 100
    k = int(np.flatnonzero(v == 75)[0])
    assert d.extra["bound"][k] == pytest.approx(0.673, abs=5e-4)        # the paper's example
    assert d.series_by_key("bound_delta0").y[k] == pytest.approx(
        O.one_run_audit_bound(1000, 100, 75), rel=1e-12)
    assert np.all(np.diff(d.series_by_key("bound").y) >= 0)
    d0 = P.one_run_bound_data(1000, 100)
    assert [s.key for s in d0.series] == ["bound"] and not d0.rules
    _both(d)
    assert isinstance(P.plot_one_run_bound(100, 10, points=3), Figure)


# ------------------------------------------------------------------------- bad input
def test_bad_input_is_refused_by_name(laplace_result, one_run):
    for f in (P.audit_histograms_data, P.plot_audit_histograms):
        assert_rejects_bad_values(f, dict(result=laplace_result), "result", NOT_AN_OBJECT)
        assert_rejects_bad_values(f, dict(result=laplace_result), "bins", bad_int(2, 200))
    conv = dict(trials=[10, 100], bounds=[0.1, 0.2], claimed_epsilon=1.0)
    for f in (P.bound_convergence_data, P.plot_bound_convergence):
        for bad in ([1], [2.5, 10], [], [10**8, 10], list(range(2, 200)), "x", None):
            call_rejects(f, {**conv, "trials": bad}, "trials")
        for bad in ([0.1], [-1.0, 0.2], [math.nan, 0.1], "x"):
            call_rejects(f, {**conv, "bounds": bad}, "bounds")
        assert_rejects_bad_values(f, conv, "claimed_epsilon",
                                  st.one_of(NOT_A_NUMBER, st.sampled_from([-1.0, math.nan])))
        call_rejects(f, {**conv, "true_epsilon": -1.0}, "true_epsilon")
        call_rejects(f, {**conv, "delta": 1.0}, "delta")
        call_rejects(f, {**conv, "confidence": 1.0}, "confidence")
    for f in (P.canary_scores_data, P.plot_canary_scores):
        assert_rejects_bad_values(f, dict(audit=one_run), "audit", NOT_AN_OBJECT)
        assert_rejects_bad_values(f, dict(audit=one_run), "bins", bad_int(2, 200))
        call_rejects(f, dict(audit=one_run, claimed_epsilon=-2.0), "claimed_epsilon")
    orb = dict(m=100, r=10, points=3)
    for f in (P.one_run_bound_data, P.plot_one_run_bound):
        assert_rejects_bad_values(f, orb, "m", bad_int(10, 10**9))
        assert_rejects_bad_values(f, orb, "r", bad_int(1, 100))
        assert_rejects_bad_values(f, orb, "points", bad_int(2, 100))
        assert_rejects_bad_values(f, orb, "beta", st.one_of(BAD_POSITIVE,
                                                            st.sampled_from([1.0, 2.0])))
        call_rejects(f, {**orb, "delta": 1.0}, "delta")
        call_rejects(f, {**orb, "claimed_epsilon": math.inf}, "claimed_epsilon")
        call_rejects(f, {**orb, "r": 200_000, "m": 10**6}, "r")


# ------------------------------------------------- results holding extreme numbers
# (moved from test_audit_plots_edges.py: the generated tests cannot build an AuditResult or a
# OneRunAudit of extreme outputs; the numeric parameters' edges are generated there)
def wave(scale: float, n: int = 200) -> np.ndarray:
    """n finite outputs spread over [−scale, scale] (sin keeps them finite for any scale)."""
    return scale * np.sin(np.arange(n) * 0.7)


def _drawn_or_refused(make, scale):
    try:
        data = make(scale)
    except ParameterError as exc:                   # beyond what a figure can draw: named
        assert re.search(r"\b(result|audit)\b", str(exc)), str(exc)
        return
    fig = to_matplotlib(data)
    fig.canvas.draw()
    assert all(math.isfinite(v) for ax in fig.axes for v in ax.get_xlim() + ax.get_ylim())
    assert json.dumps(to_vega_lite(data))


def _histograms_of(scale):
    res = R.audit_samples(wave(scale), -wave(scale), claimed_epsilon=0.1)
    return P.audit_histograms_data(res)


def _canary_scores_of(scale):
    inc = np.random.default_rng(1).random(50) < 0.5
    return P.canary_scores_data(O.one_run_audit(wave(scale, 50), inc, k_plus=5, k_minus=5))


# the audits take outputs up to 1e15 (their domain): from subnormal spreads to that
@pytest.mark.parametrize("scale", [5e-324, 1e-300, 1e-12, 1.0, 1e12, 1e15])
@pytest.mark.parametrize("make", [_histograms_of, _canary_scores_of], ids=["outputs", "scores"])
def test_results_of_extreme_outputs_draw_or_are_refused_by_name(make, scale):
    _drawn_or_refused(make, scale)


def test_the_plot_functions_draw():
    res = R.audit_samples(wave(1.0), wave(1.0) + 0.5, claimed_epsilon=0.5)
    rng = np.random.default_rng(0)
    inc = rng.random(50) < 0.5
    one = O.one_run_audit(inc + rng.normal(0, 1, 50), inc, k_plus=5, k_minus=5)
    figs = [P.plot_audit_histograms(res), P.plot_bound_convergence([10, 100], [0.1, 0.5],
                                                                    claimed_epsilon=1.0),
            P.plot_canary_scores(one), P.plot_one_run_bound(100, 10, delta=1e-3, points=5)]
    for fig in figs:
        fig.canvas.draw()
        for ax in fig.axes:
            assert all(math.isfinite(v) for v in ax.get_xlim() + ax.get_ylim())
