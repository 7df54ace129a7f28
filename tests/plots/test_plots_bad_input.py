"""Property-based bad-input tests for the public plot functions of dpteach.plots.

Covered modules: accounting, attacks, dpsgd, erm and randomized_response (the
functions not already attacked elsewhere), the data function behind each of their figures
(:data:`DATA_FUNCTIONS`) and those of selection. Every (function, argument) pair gets a
hypothesis strategy of wrong values (NaN, ±inf, negatives, zero, out-of-range values,
wrong types and wrong shapes); the call must raise ValueError or TypeError whose
message names the argument (``tests/_props.call_rejects``). Any other exception, or
no exception, fails. ``ax`` is attacked for every function. A baseline test checks
that each valid call used here draws a Figure, so no case can pass vacuously.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from _props import (
    BAD_CHOICE,
    BAD_DELTA,
    BAD_POSITIVE,
    BAD_PROB,
    BAD_PROBABILITY,
    NON_FINITE_ARRAYS,
    NOT_AN_OBJECT,
    NOT_A_NUMBER,
    NOT_BOOL,
    NOT_NUMERIC,
    NOT_POSITIVE_FINITE,
    WRONG_SHAPE,
    bad_int,
    call_rejects,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from dpteach.attacks import membership as M
from dpteach.datasets import make_toy_data
from dpteach.learning import erm_experiments
from dpteach.plots import accounting as pacc
from dpteach.plots import attacks as patt
from dpteach.plots import dpsgd as pdp
from dpteach.plots import erm as perm
from dpteach.plots import randomized_response as prr
from dpteach.plots import selection as psel
from dpteach.plots.figure import FigureData

# an optional ε: None is allowed, so it is not among the bad values
BAD_OPT_POSITIVE = st.one_of(NOT_POSITIVE_FINITE, WRONG_SHAPE,
                             st.sampled_from(["1", b"1", {"x": 1}, 1j, True, object(), [1.0]]))
BAD_DELTA_ANY = st.one_of(BAD_DELTA, NOT_A_NUMBER, WRONG_SHAPE)
BAD_DELTA_POS = st.one_of(BAD_DELTA_ANY, st.sampled_from([0, 0.0]))        # δ in (0, 1)
BAD_OPT_PROB = st.one_of(BAD_PROBABILITY, WRONG_SHAPE,
                         st.sampled_from(["0.5", b"1", True, 1j, [0.5], object()]))
BAD_STR = st.sampled_from([1, 1.5, b"x", ["x"], ("t",), {"x": 1}, True, object()])
NOT_AX = st.sampled_from([1, "ax", object(), [None], np.zeros(2), (1, 2), True, Figure()])
BAD_ARRAY = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC)
# an ε grid: finite, > 0, 1-D
BAD_EPS_GRID = st.one_of(
    NON_FINITE_ARRAYS, NOT_NUMERIC,
    st.sampled_from([[0.0, 1.0], [-1.0, 1.0], [], [1.0, math.nan], np.ones((2, 2)),
                     [1e-3, -2.0], [[0.5, 1.0]]]),
    st.lists(st.floats(max_value=0.0, allow_nan=False), min_size=2, max_size=4))
BAD_X2 = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC,
                   st.sampled_from([np.ones((3, 3)), np.ones(3), np.ones((0, 2)),
                                    np.full((4, 2), np.nan)]))




def bad_opt_int(low, high=None):
    """As :func:`bad_int` for an optional integer (None is valid)."""
    return bad_int(low, high).filter(lambda v: v is not None)


# --------------------------------------------------- lazily built valid arguments
class Lazy:
    """Placeholder for a valid argument that is costly to build (built once, on use)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"Lazy({self.name})"


@functools.cache
def _fixture(name):
    rng = np.random.default_rng(0)
    if name in ("X2", "y2"):
        X2 = rng.standard_normal((30, 2))
        return X2 if name == "X2" else (X2[:, 0] > 0).astype(int)
    if name == "clf":
        from dpteach.learning.dpsgd import DPSGDClassifier
        return DPSGDClassifier(noise_multiplier=0.0, max_grad_norm=None, batch_size=15,
                               epochs=2, hidden=(), rng=0).fit(_fixture("X2"), _fixture("y2"))
    if name == "history":
        return {"σ = 0": _fixture("clf").history_}
    if name == "roc":
        lab = rng.random(60) < 0.5
        return M.roc_from_scores(rng.standard_normal(60) + lab, lab, name="toy")
    if name == "curve":
        X, y = make_toy_data(40, rng=0)
        return erm_experiments.accuracy_vs_epsilon(X, y, X, y, [0.5, 2.0], 0.1, data_norm=4.0,
                                                   rng=0, n_trials=2)
    if name == "sensitivity":
        X, y = make_toy_data(20, rng=0)
        return erm_experiments.empirical_sensitivity(X, y, 0.1, data_norm=4.0, n_random=2,
                                                     n_adversarial=1, rng=0)
    raise KeyError(name)


def _resolve(kwargs):
    return {k: _fixture(v.name) if isinstance(v, Lazy) else v for k, v in kwargs.items()}


CLF, X2, Y2, ROC = Lazy("clf"), Lazy("X2"), Lazy("y2"), Lazy("roc")
DB = [0, 1, 1, 0, 1]
# slow to draw: fewer examples (the sampled values are few anyway)
SLOW = {pacc.plot_dpsgd_epsilon, pacc.plot_composition, pdp.plot_decision_boundary,
        perm.plot_accuracy_curve, perm.plot_decision_boundaries, patt.plot_averaging_attack,
        patt.plot_attack_success}

# ----------------------------------------------------------------------- the table
# (function, valid keyword arguments, argument under attack, strategy of bad values)
_COMP = {"k_max": 20, "epsilon": 0.1, "methods": ("basic", "rdp")}
_DPSGD = {"steps_max": 50, "pld_points": 2}
_AVG = {"epsilon": 0.5, "k_max": 20}
_MIA = {"results": ROC, "epsilon": 1.0}
_PU = {"epsilons": [0.5, 1.0], "accuracies": [0.6, 0.8], "baseline": 0.9}
_HIST = {"norms": [0.1, 0.5, 2.0], "max_grad_norm": 1.0}
_GRID = {"clf": CLF, "X": X2, "grid_size": 10}
_DB = {"clf": CLF, "X": X2, "y": Y2, "grid_size": 10}
_BOUND = {"X": X2, "y": Y2, "nonprivate": ([1.0, 0.0], 0.0), "private": [([0.5, 0.5], 0.1)]}
_EXCESS = {"epsilons": [0.5, 1.0], "measured": {"output": np.ones((2, 3))},
           "bounds": {"output": [2.0, 2.0]}}
_RRSE = {"gammas": (0.1, 0.25), "rate": 0.4, "n_values": [10, 100]}

CASES = [
    # ------------------------------------------------------------ plots.accounting
    *[(pacc.plot_composition, _COMP, arg, strat) for arg, strat in (
        ("k_max", bad_int(2, 100_000)), ("epsilon", BAD_POSITIVE), ("delta", BAD_DELTA_POS),
        ("mechanism", BAD_CHOICE),
        ("methods", st.sampled_from([["moments"], "basic", [1], None, [], 3, [None],
                                     ("rdp", "rdp ")])),
        ("mark_k", bad_opt_int(1, 100_000)), ("ax", NOT_AX))],
    (pacc.plot_composition, {**_COMP, "mechanism": "gaussian", "epsilon": None, "sigma": 2.0},
     "sigma", BAD_POSITIVE),
    *[(pacc.plot_dpsgd_epsilon, _DPSGD, arg, strat) for arg, strat in (
        ("steps_max", bad_int(2, 10**6)), ("noise_multiplier", BAD_POSITIVE),
        ("sample_rate", st.one_of(BAD_PROB, st.just(0.0))), ("delta", BAD_DELTA_POS),
        ("pld_points", bad_int(0, 100)), ("mark_steps", bad_opt_int(1, 10**6)),
        ("ax", NOT_AX))],
    (pacc.plot_amplification, {"epsilons": (0.5, 1.0)}, "epsilons", BAD_EPS_GRID),
    (pacc.plot_amplification, {"epsilons": (0.5, 1.0)}, "ax", NOT_AX),

    # --------------------------------------------------------------- plots.attacks
    *[(patt.plot_neighbour_differences, {"query": "sum", "db": DB}, arg, strat)
      for arg, strat in (("query", st.sampled_from(["median", None, 1, b"sum", ["sum"]])),
                         ("db", st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC,
                                          st.sampled_from([[1], [], np.ones((2, 2, 2))]))),
                         ("name", BAD_STR), ("ax", NOT_AX))],
    (patt.plot_attack_success, {"epsilons": [0.1, 1.0]}, "epsilons",
     BAD_EPS_GRID.filter(lambda v: v is not None)),          # None: the default grid
    (patt.plot_attack_success, {"epsilons": [0.1, 1.0], "highlight": 1.0}, "highlight",
     BAD_OPT_POSITIVE),
    (patt.plot_attack_success, {"epsilons": [0.1, 1.0]}, "ax", NOT_AX),
    *[(patt.plot_averaging_attack, _AVG, arg, strat) for arg, strat in (
        ("epsilon", BAD_POSITIVE), ("k_max", bad_int(2, 1000)), ("scenario", BAD_CHOICE),
        ("simulated", st.sampled_from([{1: 1.5}, {1: -0.1}, {0: 0.5}, {1: math.nan},
                                       {math.inf: 0.5}, {1: "0.5"}, {}, [0.5], "x", 3])),
        ("ax", NOT_AX))],

    # ----------------------------------------------------------------- plots.dpsgd
    *[(pdp.plot_mia_roc, _MIA, arg, strat) for arg, strat in (
        ("results", st.sampled_from([[1, 2], "x", 1, None, [None], []])),
        # a sequence of ε is allowed here (one ceiling each)
        ("epsilon", st.one_of(NOT_POSITIVE_FINITE, st.sampled_from(
            ["1", b"1", {"x": 1}, 1j, True, object(), [1.0, 0.0], [1.0, math.nan], [],
             np.ones((2, 2)), [[1.0]], ["1"]]))),
        ("delta", BAD_DELTA_ANY), ("log", NOT_BOOL),
        ("min_fpr", st.one_of(NOT_POSITIVE_FINITE, WRONG_SHAPE,
                              st.sampled_from([1.0, 2.0, "0.1", True]))),
        ("ax", NOT_AX))],
    *[(pdp.plot_privacy_utility, _PU, arg, strat) for arg, strat in (
        ("epsilons", BAD_EPS_GRID),
        ("accuracies", st.one_of(BAD_ARRAY, st.sampled_from(
            [[1.5, 0.5], [-0.1, 0.5], [0.5], [0.5, 0.5, 0.5], [[0.5, 0.5]]]))),
        ("baseline", BAD_OPT_PROB), ("label", BAD_STR), ("ax", NOT_AX))],
    *[(pdp.plot_grad_norm_histogram, _HIST, arg, strat) for arg, strat in (
        ("norms", st.one_of(BAD_ARRAY, st.sampled_from([[-1.0], [], [[0.5]]]))),
        ("max_grad_norm", BAD_OPT_POSITIVE), ("bins", bad_int(2, 10_000)), ("ax", NOT_AX))],
    *[(pdp.plot_training_history, {"histories": Lazy("history")}, arg, strat)
      for arg, strat in (
        ("histories", st.sampled_from([None, 1, "x", [1, 2], {"a": 1}, {"a": {"loss": [1]}},
                                       {}, {"a": {"epoch": [1], "accuracy": ["x"],
                                                  "epsilon": [1.0]}},
                                       {"a": {"epoch": [1, 2], "accuracy": [0.5],
                                              "epsilon": [1.0]}}])),
        ("ax", NOT_AX))],
    *[(pdp.decision_grid, _GRID, arg, strat) for arg, strat in (
        ("clf", st.sampled_from([None, "clf", 1, object()])), ("X", BAD_X2),
        ("grid_size", bad_int(10, 1000)),
        ("pad", st.one_of(NOT_A_NUMBER, WRONG_SHAPE,
                          st.sampled_from([-1.0, -1e-9, math.nan, math.inf, -math.inf]))))],
    *[(pdp.plot_decision_boundary, _DB, arg, strat) for arg, strat in (
        ("clf", st.sampled_from([None, "clf", 1, object()])), ("X", BAD_X2),
        ("y", st.one_of(NOT_NUMERIC, st.sampled_from(
            [[0, 1], np.full(30, np.nan), np.ones((30, 2)), np.arange(30)]))),
        ("grid_size", bad_int(10, 1000)), ("title", BAD_STR), ("ax", NOT_AX))],

    # ------------------------------------------------------------------- plots.erm
    *[(perm.plot_decision_boundaries, _BOUND, arg, strat) for arg, strat in (
        ("X", BAD_X2),
        ("y", st.one_of(NOT_NUMERIC, st.sampled_from([[0, 1], np.full(30, np.nan),
                                                      np.ones((30, 2)), np.arange(30)]))),
        ("nonprivate", st.sampled_from([None, 1, ([1.0, 0.0, 1.0], 0.0), ([math.nan, 0.0], 0.0),
                                        ([1.0, 0.0], math.inf), "w", ([0.0, 0.0], 0.0),
                                        ([1.0, 0.0],), (["a", "b"], 0.0)])),
        ("private", st.sampled_from([1, None, [None], [([1.0], 0.0)], [([math.inf, 1.0], 0.0)],
                                     "ab"])),
        ("method", BAD_CHOICE), ("label", BAD_STR), ("title", BAD_STR), ("ax", NOT_AX))],
    *[(perm.plot_accuracy_curve, {"curve": Lazy("curve")}, arg, strat) for arg, strat in (
        ("curve", NOT_AN_OBJECT), ("baseline", BAD_OPT_PROB), ("title", BAD_STR),
        ("show_spread", NOT_BOOL), ("ax", NOT_AX))],
    (perm.plot_sensitivity, {"result": Lazy("sensitivity")}, "result", NOT_AN_OBJECT),
    (perm.plot_sensitivity, {"result": Lazy("sensitivity")}, "ax", NOT_AX),
    *[(perm.plot_excess_risk, _EXCESS, arg, strat) for arg, strat in (
        ("epsilons", BAD_EPS_GRID),
        ("measured", st.sampled_from([{"output": np.ones((3, 3))}, {"laplace": np.ones((2, 3))},
                                      {"output": np.full((2, 3), np.nan)}, {"output": "x"},
                                      {"output": np.ones(2)}, {}, None, [1.0], "x"])),
        ("bounds", st.sampled_from([{"output": [1.0]}, {"nope": [1.0, 1.0]},
                                    {"output": [math.nan, 1.0]}, {"output": [[1.0, 1.0]]},
                                    None, [1.0], "x"])),
        ("ax", NOT_AX))],

    # ---------------------------------------------------- plots.randomized_response
    *[(prr.plot_rr_std_error, _RRSE, arg, strat) for arg, strat in (
        ("gammas", st.sampled_from([(0.1, 0.6), (0.0,), (-0.1,), (math.nan,), (0.5,), [],
                                    "x", None, [[0.1]], [0.1] * 8])),
        ("rate", BAD_PROB),
        ("n_values", st.sampled_from([[10, 0], [-1, 5], [2.5, 10], [math.nan, 10], [], [10],
                                      "x", [[10, 100]], [10, 1e300], [10, math.inf]])),
        ("ax", NOT_AX))],
    (prr.plot_rr_probabilities, {"gamma": 0.25}, "gamma",
     st.sampled_from([0.5, 0.75, -0.1, 0.0, math.nan, math.inf, "0.2", [0.2], True])),
    (prr.plot_rr_probabilities, {"epsilon": 1.0}, "epsilon", BAD_OPT_POSITIVE),
    (prr.plot_rr_probabilities, {"gamma": 0.25}, "ax", NOT_AX),
]
# Each plot_x draws its x_data: the data function gets the same bad values (all but ``ax``),
# as the app calls it directly.
DATA_FUNCTIONS = {
    pacc.plot_amplification: pacc.amplification_data,
    patt.plot_neighbour_differences: patt.neighbour_differences_data,
    patt.plot_attack_success: patt.attack_success_data,
    patt.plot_averaging_attack: patt.averaging_attack_data,
    pdp.plot_mia_roc: pdp.mia_roc_data,
    pdp.plot_privacy_utility: pdp.privacy_utility_data,
    pdp.plot_decision_boundary: pdp.decision_boundary_data,
    perm.plot_decision_boundaries: perm.decision_boundaries_data,
    perm.plot_sensitivity: perm.sensitivity_data,
    perm.plot_excess_risk: perm.excess_risk_data,
    prr.plot_rr_std_error: prr.rr_std_error_data,
    prr.plot_rr_probabilities: prr.rr_probabilities_data,
}
CASES += [(DATA_FUNCTIONS[func], valid, arg, strategy) for func, valid, arg, strategy in CASES
          if func in DATA_FUNCTIONS and arg != "ax"]
# plots.selection: its plot functions are attacked in tests/mechanisms/test_selection.py and
# test_stability.py; their data functions here, with the same values
_SCORES = {"scores": [1.0, 2.0], "sensitivity": 1.0, "epsilon": 1.0}
_CANDIDATES = {"data": [1.0, 2.0], "candidates": [1.0, 2.0], "epsilon": 1.0}
_PTR = {"data": [1.0, 2.0, 3.0], "lower": 0.0, "upper": 5.0, "epsilon": 1.0, "delta": 1e-5,
        "bounds": [0.0, 1.0]}
CASES += [
    (psel.selection_probabilities_data, {"probabilities": [0.5, 0.5]}, "probabilities",
     st.one_of(NON_FINITE_ARRAYS, st.sampled_from([[0.5, 1.5], [-0.1], []]))),
    (psel.selection_probabilities_data, {"probabilities": [0.5, 0.5]}, "truth",
     st.sampled_from([2, -1, 0.5, "0", math.nan])),
    (psel.selection_probabilities_data, {"probabilities": [0.5, 0.5]}, "title", BAD_STR),
    (psel.selection_probabilities_data, {"probabilities": [0.5, 0.5]}, "xlabel", BAD_STR),
    (psel.exponential_mechanism_data, _SCORES, "epsilon", NOT_POSITIVE_FINITE),
    (psel.exponential_mechanism_data, _SCORES, "sensitivity", NOT_POSITIVE_FINITE),
    (psel.noisy_max_comparison_data, _SCORES, "sensitivity", NOT_POSITIVE_FINITE),
    (psel.noisy_max_comparison_data, _SCORES, "scores", BAD_ARRAY),
    (psel.private_median_data, _CANDIDATES, "epsilon", NOT_POSITIVE_FINITE),
    (psel.private_mode_data, _CANDIDATES, "epsilon", NOT_A_NUMBER),
    (psel.svt_vs_composition_data, {"epsilon": 1.0}, "epsilon", NOT_POSITIVE_FINITE),
    (psel.svt_vs_composition_data, {"epsilon": 1.0}, "delta", BAD_DELTA_POS.filter(
        lambda v: v is not None)),
    (psel.svt_vs_composition_data, {"epsilon": 1.0}, "k_max", bad_int(2, 100_000)),
    (psel.svt_vs_composition_data, {"epsilon": 1.0}, "max_above", bad_int(1, 10**6)),
    (psel.event_privacy_loss_data, {"event_probabilities": {"a": (0.1, 0.2)}, "epsilon": 1.0},
     "epsilon", NOT_POSITIVE_FINITE),
    (psel.event_privacy_loss_data, {"event_probabilities": {"a": (0.1, 0.2)}, "epsilon": 1.0},
     "event_probabilities", st.sampled_from([{}, [(0.1, 0.2)], {"x": (0.0, 0.0)},
                                             {"x": (0.5, 1.5)}, None])),
    (psel.block_estimates_data, {"estimates": [0.1, 0.2], "lower": 0.0, "upper": 1.0},
     "estimates", NON_FINITE_ARRAYS),
    (psel.block_estimates_data, {"estimates": [0.1, 0.2], "lower": 0.0, "upper": 1.0},
     "lower", NOT_A_NUMBER),
    (psel.ptr_distance_data, _PTR, "epsilon", NOT_POSITIVE_FINITE),
    (psel.ptr_distance_data, _PTR, "delta", BAD_DELTA),
    (psel.ptr_distance_data, _PTR, "bounds", st.one_of(NON_FINITE_ARRAYS,
                                                      st.sampled_from([[-1.0]]))),
]
SLOW |= {DATA_FUNCTIONS[f] for f in SLOW if f in DATA_FUNCTIONS}


def _case_id(case):
    func, _, arg, _ = case
    return f"{func.__module__.rsplit('.', 1)[-1]}.{func.__name__}-{arg}"


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_rejects_bad_values(case):
    func, valid, arg, strategy = case
    valid = _resolve(valid)

    @settings(max_examples=25 if func in SLOW else 60)
    @given(bad=strategy)
    def run(bad):
        call_rejects(func, {**valid, arg: bad}, arg)

    run()


_BASELINES = {}
for _func, _valid, _arg, _ in CASES:
    _key = (_func, tuple(sorted((k, repr(v)) for k, v in _valid.items())))
    _BASELINES.setdefault(_key, (_func, _valid))


@pytest.mark.parametrize("func,valid", list(_BASELINES.values()),
                         ids=[f.__name__ for f, _ in _BASELINES.values()])
def test_valid_baseline_call_succeeds(func, valid):
    # without this a bad-value case could pass vacuously on a function that always raises
    out = func(**_resolve(valid))
    if func is pdp.decision_grid:
        x0, x1, p = out
        assert p.shape == (x1.size, x0.size) == (10, 10)
    elif func in DATA_FUNCTIONS.values() or func.__module__ == psel.__name__:
        assert isinstance(out, FigureData)
    else:
        assert isinstance(out, Figure)


def test_valid_ax_is_used():
    fig = Figure()
    ax = fig.add_subplot()
    assert pacc.plot_amplification(epsilons=(1.0,), ax=ax) is fig


@pytest.mark.parametrize("module", [pacc, patt, pdp, perm, prr])
def test_every_public_function_is_covered(module):
    import inspect
    covered = {f.__name__ for f, *_ in CASES if f.__module__ == module.__name__}
    elsewhere = {"plot_noisy_difference", "plot_toy_boundaries", "plot_rr_estimator",
                 "plot_local_vs_central",     # attacked in other test files
                 "noisy_difference_data", "local_vs_central_data",    # test_basics_plots.py
                 "toy_boundaries_data", "accuracy_curve_data",                # test_erm.py
                 "grad_norm_histogram_data", "training_history_data",         # test_dpsgd.py
                 "probability_grid_data", "plot_probability_grid",
                 "rr_estimator_data",                                  # test_basics_plots.py
                 "composition_data", "dpsgd_epsilon_data", "planner_run",     # test_accounting.py
                 "planner_pld_steps"}
    missing = set(module.__all__) - covered - elsewhere
    assert not missing, f"{module.__name__}: no bad-input test for {sorted(missing)}"
    for name in covered:                      # every parameter is attacked
        params = set(inspect.signature(getattr(module, name)).parameters)
        attacked = {a for f, _, a, _ in CASES if f.__name__ == name
                    and f.__module__ == module.__name__}
        skipped = {"value_discretization_interval"}
        assert params - attacked - skipped == set(), (name, params - attacked)
