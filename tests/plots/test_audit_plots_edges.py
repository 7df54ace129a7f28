"""Legal-but-extreme inputs for the audit figures (``dpteach.plots.audit``).

Moved unchanged from ``tests/audit/test_audit_edges.py`` when the auditing modules declared
their teaching domains (their own edge cases are generated, ``tests/test_domains.py``); the
figures keep theirs until ``dpteach.plots`` is converted. Every numeric parameter of every
public function gets the strategies of ``tests/_props.py``; each call must answer without
NaN (figures with finite axes) or refuse with ``ParameterError``/``TypeError``
(``_props.run_edge_case``). ``test_every_public_parameter_is_in_the_table`` walks
``MODULES`` and fails when a parameter is missing from ``CASES`` or from the explicit list
of non-numeric parameters.
"""

from __future__ import annotations

import inspect
import math
from functools import cache

import numpy as np
import pytest
from _props import (
    EXTREME_POSITIVE_FLOATS,
    HUGE_INTS,
    TINY_FLOATS,
    EdgeCase,
    lazy_kwargs,
    run_edge_case,
)
from hypothesis import strategies as st

from dpteach.audit import one_run as O
from dpteach.audit import runs as R
from dpteach.plots import audit as P
from dpteach.plots.figure import FigureData

MODULES = [P]
FMAX = 1.7976931348623157e308

# ------------------------------------------------------------------ strategies
POS = st.one_of(EXTREME_POSITIVE_FLOATS, HUGE_INTS)
NONNEG = st.one_of(POS, st.just(0.0))
UNIT = st.one_of(TINY_FLOATS, st.sampled_from([1 - 2**-53, 0.5, 1 - 1e-12]),
                 st.floats(min_value=5e-324, max_value=1 - 2**-53))          # (0, 1)
DELTA = st.one_of(UNIT, st.just(0.0))                                         # [0, 1)
REAL = st.one_of(EXTREME_POSITIVE_FLOATS, EXTREME_POSITIVE_FLOATS.map(lambda x: -x),
                 st.just(0.0))


def ints(*legal):
    """Integers beyond any limit, plus the given legal (boundary) values."""
    return st.one_of(HUGE_INTS, st.sampled_from(list(legal))) if legal else HUGE_INTS


def wave(scale: float, n: int = 200) -> np.ndarray:
    """n finite outputs spread over [−scale, scale] (sin keeps them finite for any scale)."""
    return scale * np.sin(np.arange(n) * 0.7)


def figure_ok(r, kw=None):
    if not isinstance(r, FigureData):
        return False
    for s in r.series:
        if np.any(np.isnan(s.x)) or np.any(np.isnan(s.y)):
            return False
    return all(math.isfinite(rule.value) for rule in r.rules)


# ------------------------------------------------------------------ fixed inputs
@cache
def small_result():
    return R.audit_samples(wave(1.0), wave(1.0) + 0.5, claimed_epsilon=0.5)


@cache
def small_one_run():
    rng = np.random.default_rng(0)
    inc = rng.random(50) < 0.5
    return O.one_run_audit(inc + rng.normal(0, 1, 50), inc, k_plus=5, k_minus=5)


def _histograms_of(output_scale, bins=40):
    """audit_histograms_data of an audit of outputs spread over ±output_scale."""
    res = R.audit_samples(wave(output_scale), -wave(output_scale) + 0.0, claimed_epsilon=0.1)
    return P.audit_histograms_data(res, bins)


def _canary_figure_of(score_scale, bins=40, claimed_epsilon=None):
    rng = np.random.default_rng(1)
    inc = rng.random(50) < 0.5
    a = O.one_run_audit(wave(score_scale, 50), inc, k_plus=5, k_minus=5)
    return P.canary_scores_data(a, bins, claimed_epsilon)


# --------------------------------------------------------------------- the table
CASES = [
    EdgeCase("audit_histograms_data", _histograms_of, lazy_kwargs(output_scale=1.0),
             {"output_scale": REAL, "bins": ints(2, 200)}, figure_ok),
    EdgeCase("bound_convergence_data", P.bound_convergence_data,
             lazy_kwargs(trials=[10, 100, 1000], bounds=[0.0, 0.5, 0.9], claimed_epsilon=1.0),
             {"trials": st.sampled_from([[2], [10**7], [2**70, 10], [10**400]]),
              "bounds": st.sampled_from([[0.0, 5e-324, 1e300], [FMAX] * 3, [0.0] * 3]),
              "claimed_epsilon": NONNEG, "true_epsilon": st.one_of(NONNEG, st.just(math.inf)),
              "delta": DELTA, "confidence": UNIT}, figure_ok),
    EdgeCase("canary_scores_data", _canary_figure_of, lazy_kwargs(score_scale=1.0),
             {"score_scale": REAL, "bins": ints(2, 200), "claimed_epsilon": NONNEG}, figure_ok),
    EdgeCase("one_run_bound_data", P.one_run_bound_data, lazy_kwargs(m=1000, r=100),
             {"m": ints(100, 10**9), "r": ints(1, 100), "delta": DELTA, "beta": UNIT,
              "claimed_epsilon": NONNEG, "points": ints(2, 100)}, figure_ok, examples=4),
]

#: the plot_* functions draw their *_data (one baseline call each below)
DRAWN_BY = {"plot_audit_histograms": "audit_histograms_data",
            "plot_bound_convergence": "bound_convergence_data",
            "plot_canary_scores": "canary_scores_data", "plot_one_run_bound": "one_run_bound_data"}
#: parameters that are not numbers
NOT_NUMERIC = {
    "result": "an AuditResult (extreme outputs: the _histograms_of row)",
    "audit": "a OneRunAudit (extreme scores: the _canary_figure_of row)",
    "ax": "matplotlib axes",
}
# wrapper rows drive these parameters through a numeric stand-in
VIA_WRAPPER = {("audit_histograms_data", "bins"): "bins",
               ("canary_scores_data", "bins"): "bins",
               ("canary_scores_data", "claimed_epsilon"): "claimed_epsilon"}


@pytest.mark.parametrize("case", CASES, ids=[f"{c.name}-{i}" for i, c in enumerate(CASES)])
def test_extreme_values_answer_or_refuse(case):
    run_edge_case(case)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.name}-{i}" for i, c in enumerate(CASES)])
def test_valid_baseline_passes_its_check(case):
    kwargs = case.base()
    out = case.func(**kwargs)
    assert case.check is None or case.check(out, kwargs), case.name


def test_the_plot_functions_draw():
    res, a = small_result(), small_one_run()
    figs = [P.plot_audit_histograms(res), P.plot_bound_convergence([10, 100], [0.1, 0.5],
                                                                    claimed_epsilon=1.0),
            P.plot_canary_scores(a), P.plot_one_run_bound(100, 10, delta=1e-3, points=5)]
    for fig in figs:
        fig.canvas.draw()
        for ax in fig.axes:
            assert all(math.isfinite(v) for v in ax.get_xlim() + ax.get_ylim())


# ------------------------------------------------------------------------- coverage
def _public_callables():
    """{"name": callable} of the public functions in MODULES."""
    out = {}
    for module in MODULES:
        for name in module.__all__:
            obj = getattr(module, name)
            if getattr(obj, "__module__", None) == module.__name__ and inspect.isfunction(obj):
                out[name] = obj
    return out


def test_every_public_parameter_is_in_the_table():
    covered = {}
    for case in CASES:
        covered.setdefault(case.name, set()).update(case.args)
        covered[case.name].update(case.fixed)
    missing = []
    found = _public_callables()
    for key, obj in sorted(found.items()):
        if key in DRAWN_BY:
            key = DRAWN_BY[key]
        for p in inspect.signature(obj).parameters:
            if p in NOT_NUMERIC or p in covered.get(key, set()):
                continue
            if (key, p) in VIA_WRAPPER and VIA_WRAPPER[(key, p)] in covered.get(key, set()):
                continue
            missing.append(f"{key}: {p}")
    assert not missing, "parameters without an extreme-value case: " + "; ".join(missing)
    assert len(found) >= 8
