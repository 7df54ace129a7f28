"""Property-based bad-input tests for the public functions the other test files missed,
plus a coverage test over the WHOLE library.

The table ``CASES`` attacks, with hypothesis, the functions that only had example-based
``pytest.raises`` checks (or none): ``softmax``/``clip_factors`` (the plot functions are
attacked in ``plots/test_plots_bad_input.py``). Each call must raise ValueError or TypeError whose message
names the argument as a word; any other exception, or no exception, fails
(``_props.call_rejects``). A baseline test calls each function once with the valid
arguments, so that the bad-value tests cannot pass on a function that always raises.

``test_every_public_function_has_a_bad_input_test`` walks every public module of dpteach
(except ``dpapp``) and checks that each public function
taking at least one parameter is listed in ``COVERED`` below, unless it declares its teaching
domains (``@validate``: ``tests/test_domains.py`` generates its bad-input tests). ``COVERED`` was built by
running every test file with ``_props.call_rejects`` instrumented (recording which public
dpteach function each bad-input call entered) and by reading the tests; every entry names
the test file whose property test attacks it, and a guard test checks that file exists,
uses the ``_props`` helpers and names the function. ``PENDING_PLOTS`` (tolerated) holds
plot functions whose tests are still being written. A NEW public function therefore fails this
test until someone writes a bad-input property test for it and lists it here — unless it
declares its teaching domains (``@validate``): then the generated tests of
``tests/test_domains.py`` attack it.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import math
import pkgutil
import re
from pathlib import Path

import pytest
from _props import (
    NON_FINITE_ARRAYS,
    NOT_NUMERIC,
    call_rejects,
)
from hypothesis import given
from hypothesis import strategies as st

import dpteach
from dpteach import datasets as ds

BAD_ARRAY = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from([math.nan, math.inf]))


# --------------------------------------------------- lazily built valid arguments
class Lazy:
    """Placeholder for a valid argument that is expensive to build (built once, on use)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"Lazy({self.name})"


@functools.cache
def _fixture(name):
    raise KeyError(name)


def _resolve(kwargs):
    return {k: _fixture(v.name) if isinstance(v, Lazy) else v for k, v in kwargs.items()}



# ------------------------------------------------------------------------- the table
# (function, valid keyword arguments, argument under attack, strategy of bad values)
CASES = [
]


def _case_id(case):
    func, _, arg, _ = case
    return f"{func.__module__.rsplit('.', 1)[-1]}.{func.__name__}-{arg}"


def _names_argument(arg: str, message: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(arg)}(?![A-Za-z0-9_])", message) is not None


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt
    plt.close("all")


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_rejects_bad_values(case):
    func, valid, arg, strategy = case
    valid = _resolve(valid)

    @given(bad=strategy)
    def run(bad):
        kwargs = {**valid, arg: bad}
        call_rejects(func, kwargs, arg)        # ValueError/TypeError naming arg, else fail
        try:
            func(**kwargs)
        except (ValueError, TypeError) as exc:
            assert _names_argument(arg, str(exc)), f"{func.__name__}: {arg!r} not a word in {exc}"

    run()


_BASELINES = {}
for _func, _valid, _arg, _ in CASES:
    _key = (_func, tuple(sorted((k, repr(v)) for k, v in _valid.items())))
    _BASELINES.setdefault(_key, (_func, _valid))


@pytest.mark.parametrize("func,valid", list(_BASELINES.values()),
                         ids=[f.__name__ for f, _ in _BASELINES.values()])
def test_valid_baseline_calls_succeed(func, valid):
    # Without this a bad-value test could pass vacuously on a function that always raises.
    func(**_resolve(valid))


def test_parameterless_loaders_reject_any_argument():
    for loader in (ds.load_german, ds.load_adult):
        assert not inspect.signature(loader).parameters

        @given(arg=st.one_of(st.integers(), st.floats(), st.text(max_size=3), st.none()))
        def run(arg):
            with pytest.raises(TypeError, match=loader.__name__):
                loader(arg)
            with pytest.raises(TypeError, match=loader.__name__):
                loader(x=arg)

        run()


# ----------------------------------------------------------------------- coverage
# (module, function) pairs attacked by a hypothesis bad-input test, and where.
_ELSEWHERE = {
    "accounting/test_accounting.py": {
        "dpteach.plots.accounting": [
            "composition_data", "dpsgd_epsilon_data", "planner_run",
            "planner_pld_steps"],
    },
    "plots/test_pate_plots.py": {
        "dpteach.plots.pate": [
            "agreement_votes", "vote_histogram_data", "plot_vote_histogram",
            "answer_distribution_data", "plot_answer_distribution",
            "pate_privacy_data", "plot_pate_privacy"],
        "dpteach.plots.pate_runs": [
            "teacher_agreement_data", "plot_teacher_agreement", "query_costs_data",
            "plot_query_costs", "accuracy_vs_epsilon_data", "plot_accuracy_vs_epsilon"],
    },
    "plots/test_fairness_plots.py": {
        "dpteach.plots.fairness": [
            "adult_predictions", "gap_values", "fairness_gaps", "group_rates",
            "group_roc_data", "plot_group_roc", "threshold_tradeoff_data",
            "plot_threshold_tradeoff"],
    },
    "plots/test_fairness_defs_plots.py": {
        "dpteach.plots.fairness_defs": [
            "calibration_by_group_data", "plot_calibration_by_group",
            "lfr_tradeoff_data", "plot_lfr_tradeoff"],
    },
    "plots/test_laftr_plots.py": {
        "dpteach.plots.laftr": [
            "sweep_gammas", "gamma_summary", "model_summary", "frontier_data",
            "plot_frontier", "group_rates_data", "plot_group_rates"],
    },
    "plots/test_audit_plots.py": {
        "dpteach.plots.audit": [
            "audit_histograms_data", "plot_audit_histograms",
            "bound_convergence_data", "plot_bound_convergence", "canary_scores_data",
            "plot_canary_scores", "one_run_bound_data", "plot_one_run_bound"],
    },
}
# The plot functions below are attacked by tests/plots/test_plots_bad_input.py (another
# engineer's file, written in parallel with this one).
PLOTS_FILE = "plots/test_plots_bad_input.py"
PLOT_FUNCTIONS = {
    "dpteach.plots.accounting": ["plot_composition", "plot_dpsgd_epsilon", "plot_amplification",
                                 "amplification_data"],
}
_ELSEWHERE[PLOTS_FILE] = PLOT_FUNCTIONS
# PENDING_PLOTS: plot functions whose bad-input tests are still being written; the coverage
# test tolerates them. Empty: every one of them is attacked in PLOTS_FILE (checked with
# grep when this file was written, and by test_listed_test_files_attack_their_functions).
PENDING_PLOTS: set = set()

COVERED = {(mod, name): file for file, mods in _ELSEWHERE.items()
           for mod, names in mods.items() for name in names}
COVERED.update({(f.__module__, f.__name__): Path(__file__).name for f, _, _, _ in CASES})

EXCLUDED_PACKAGES = ("dpapp",)


def _public_functions():
    """{(module, name): function} for every public function taking ≥ 1 parameter.

    Walks every public module of dpteach except ``dpapp`` (Streamlit pages,
    tested through AppTest); includes functions defined there and functions a public
    module re-exports (in ``__all__``) from a private module, e.g. ``rdp_to_epsilon``.
    An import error of any module fails the test instead of hiding its functions.
    """
    found = {}
    for info in pkgutil.walk_packages(dpteach.__path__, "dpteach.",
                                      onerror=lambda name: pytest.fail(f"cannot import {name}")):
        name = info.name
        if name.startswith(EXCLUDED_PACKAGES) or any(p.startswith("_") for p in name.split(".")):
            continue
        module = importlib.import_module(name)
        exported = set(getattr(module, "__all__", ()))
        for attr, obj in vars(module).items():
            if attr.startswith("_") or not inspect.isfunction(obj):
                continue
            if hasattr(obj, "__domains__"):
                continue     # declared: tests/test_domains.py generates its bad values
            home = obj.__module__
            private_home = any(p.startswith("_") for p in home.split("."))
            if home == name or (attr in exported and private_home and home.startswith("dpteach")):
                if inspect.signature(obj).parameters:
                    found[(home, obj.__name__)] = obj
    return found


def test_every_public_function_has_a_bad_input_test():
    functions = _public_functions()
    assert len(functions) > 40         # the walk really found the library's undeclared part
    # a function that declares its domains (@validate) gets its bad-input tests generated
    # from the declarations (tests/test_domains.py)
    missing = sorted(f"{mod}.{name}" for mod, name in functions
                     if (mod, name) not in COVERED and (mod, name) not in PENDING_PLOTS
                     and not hasattr(functions[(mod, name)], "__domains__"))
    assert not missing, ("public functions without a hypothesis bad-input test (add one, "
                         "e.g. to CASES in tests/test_bad_input_extra.py): " + ", ".join(missing))
    stale = sorted(f"{mod}.{name}" for mod, name in set(COVERED) | PENDING_PLOTS
                   if (mod, name) not in functions)
    assert not stale, "COVERED/PENDING_PLOTS list functions that no longer exist: " + \
        ", ".join(stale)
    both = sorted(f"{mod}.{name}" for mod, name in PENDING_PLOTS if (mod, name) in COVERED)
    assert not both, "covered now, remove from PENDING_PLOTS: " + ", ".join(both)


def test_listed_test_files_attack_their_functions():
    # A cheap guard against COVERED drifting from the test files it cites: each cited file
    # exists, runs the property helpers of tests/_props.py, and names the function.
    here = Path(__file__).parent
    for (_, name), file in COVERED.items():
        path = here / file
        assert path.exists(), f"COVERED credits {name} to {file}, which does not exist"
        text = path.read_text()
        assert re.search(r"\b(call_rejects|assert_rejects_bad_values)\b", text), file
        assert re.search(rf"\b{re.escape(name)}\b", text), (name, file)
