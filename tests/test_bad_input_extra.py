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

import numpy as np
import pytest
from _props import (
    BAD_CHOICE,
    BAD_POSITIVE,
    BAD_RNG,
    NON_FINITE_ARRAYS,
    NOT_NUMERIC,
    bad_int,
    call_rejects,
)
from hypothesis import given
from hypothesis import strategies as st

import dpteach
from dpteach import datasets as ds
from dpteach.learning import network, optim

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
    # ------------------------------------------------------------------ learning
    (optim.softmax, {"logits": [[1.0, 2.0]]}, "logits", st.one_of(BAD_ARRAY, st.sampled_from(
        [[1.0, 2.0], 1.0, np.ones((2, 0)), np.ones((1, 1, 2)), [[True, False]], [[1e400]]]))),
    (network.clip_factors, {"norms": [0.5, 2.0], "max_grad_norm": 1.0}, "norms",
     st.one_of(BAD_ARRAY, st.sampled_from([[-1.0], [0.5, -1e-9]]))),
    (network.clip_factors, {"norms": [0.5, 2.0], "max_grad_norm": 1.0}, "max_grad_norm",
     BAD_POSITIVE),
    (optim.log_softmax, {"logits": [[1.0, 2.0]]}, "logits", st.one_of(BAD_ARRAY, st.sampled_from(
        [[1.0, 2.0], 1.0, np.ones((2, 0)), np.ones((1, 1, 2)), [[True, False]], [[1e400]]]))),
    *[(f, {"layer_sizes": (3, 2)}, "layer_sizes", st.sampled_from(
        [(3,), (3, 0), (0, 2), (3, 2.0), "32", 3, None, (3, 10**6), (3,) * 51, (True, 2)]))
      for f in (network.check_layer_sizes, network.init_dense_layers)],
    (network.check_layer_sizes, {"layer_sizes": (3, 2)}, "min_outputs", bad_int(1, network.MAX_WIDTH)),
    *[(network.init_dense_layers, {"layer_sizes": (3, 2), "rng": 0}, arg, strat)
      for arg, strat in (("activation", BAD_CHOICE), ("dtype", BAD_CHOICE), ("rng", BAD_RNG))],
    (network.activation_functions, {"activation": "relu"}, "activation", BAD_CHOICE),
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


def test_softmax_validation_keeps_valid_results():
    # the validation added to softmax must not change what valid logits give
    z32 = np.array([[1.0, 2.0, -3.0], [1000.0, 0.0, 1000.0]], dtype=np.float32)
    p = optim.softmax(z32)
    assert p.dtype == np.float32
    e = np.exp(z32.astype(np.float64) - z32.max(axis=1, keepdims=True))
    np.testing.assert_allclose(p, e / e.sum(axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_array_equal(optim.softmax([[0, 0]]), [[0.5, 0.5]])
    assert optim.softmax(np.zeros((0, 3))).shape == (0, 3)


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
    "plots/test_figure.py": {"dpteach.plots.figure": ["to_matplotlib", "to_vega_lite"]},
    "accounting/test_accounting.py": {
        "dpteach.plots.accounting": [
            "composition_data", "dpsgd_epsilon_data", "planner_run",
            "planner_pld_steps"],
    },
    "learning/test_dpsgd.py": {
        "dpteach.learning.dpsgd": [
            "poisson_sample", "steps_per_epoch", "privatize_gradient_sum",
            "dp_sgd_gradient"],
        "dpteach.plots.dpsgd": [
            "grad_norm_histogram_data", "training_history_data",
            "probability_grid_data", "plot_probability_grid"],
    },
    "learning/test_erm.py": {
        "dpteach.learning.logistic": [
            "lam_from_C", "C_from_lam", "bound_rows", "logistic_objective",
            "loss_hessian", "fit_logistic_erm"],
        "dpteach.learning.erm": [
            "output_perturbation_beta", "objective_perturbation_constants",
            "output_perturbation", "objective_perturbation"],
        "dpteach.learning.erm_bounds": [
            "excess_risk_given_noise", "excess_risk_bound"],
        "dpteach.learning.erm_experiments": [
            "empirical_sensitivity", "accuracy_vs_epsilon", "toy_fits"],
        "dpteach.plots.erm": [
            "plot_toy_boundaries", "toy_boundaries_data", "accuracy_curve_data"],
    },
    "plots/test_basics_plots.py": {
        "dpteach.plots.calibration": [
            "plot_neighbouring_densities", "plot_privacy_loss",
            "plot_sigma_comparison", "plot_error_vs_epsilon",
            "plot_dimension_crossover", "error_vs_epsilon_data",
            "neighbouring_densities_data", "privacy_loss_data",
            "sigma_comparison_data", "dimension_crossover_data"],
        "dpteach.plots.randomized_response": [
            "plot_rr_estimator", "plot_local_vs_central", "rr_estimator_data",
            "local_vs_central_data"],
        "dpteach.plots.attacks": [
            "plot_noisy_difference", "noisy_difference_data"],
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
    "mechanisms/test_selection.py": {
        "dpteach.plots.selection": [
            "plot_selection_probabilities", "plot_exponential_mechanism",
            "plot_private_median", "plot_private_mode", "plot_noisy_max_comparison",
            "plot_svt_vs_composition", "plot_event_privacy_loss"],
    },
    "plots/test_audit_plots.py": {
        "dpteach.plots.audit": [
            "audit_histograms_data", "plot_audit_histograms",
            "bound_convergence_data", "plot_bound_convergence", "canary_scores_data",
            "plot_canary_scores", "one_run_bound_data", "plot_one_run_bound"],
    },
    "mechanisms/test_stability.py": {
        "dpteach.plots.selection": [
            "plot_block_estimates", "plot_ptr_distance"],
    },
    "fairness/test_metrics.py": {
        "dpteach.fairness.metrics": [
            "selection_rate", "true_positive_rate", "false_positive_rate",
            "false_negative_rate", "true_negative_rate", "positive_predictive_value",
            "group_table", "demographic_parity_difference",
            "equalized_odds_difference", "equalized_odds_sum",
            "equal_opportunity_difference", "laftr_equal_opportunity_difference",
            "calibration_by_group", "calibration_within_groups_error",
            "consistency_score", "zemel_accuracy", "zemel_discrimination"],
    },
    "fairness/test_lfr.py": {
        "dpteach.fairness.lfr": [
            "lfr_losses"],
        "dpteach.fairness.lfr_grid": [
            "lfr_grid_data", "lfr_grid_entry", "lfr_grid_baseline"],
    },
    "fairness/test_awareness.py": {
        "dpteach.fairness.awareness": [
            "fair_mapping", "statistical_parity_gap", "earthmover_distance",
            "worst_case_parity_gap", "feature_metric", "adult_awareness_example"],
    },
    "plots/test_many_queries_plots.py": {
        "dpteach.plots.many_queries": [
            "crossover_rng", "crossover_data", "plot_crossover",
            "crossover_epsilon_data", "plot_crossover_epsilon", "mwem_rounds_data",
            "plot_mwem_rounds", "pmw_errors_data", "plot_pmw_errors"],
    },
    "plots/test_anonymity.py": {
        "dpteach.plots.anonymity": [
            "uniqueness_curve_data", "plot_uniqueness_curve", "class_sizes_data",
            "plot_class_sizes"],
    },
    "plots/test_reconstruction_plots.py": {
        "dpteach.plots.reconstruction": [
            "recovery_vs_noise_data", "plot_recovery_vs_noise",
            "recovery_vs_epsilon_data", "plot_recovery_vs_epsilon",
            "tracing_power_data", "plot_tracing_power"],
    },
    "fairness/test_dp_impact.py": {
        "dpteach.fairness.dp_impact": [
            "check_group_labels", "check_zero_one_labels", "group_accuracy",
            "private_classifier", "fit_and_score", "dp_fairness_sweep",
            "summarize_sweep", "excess_drop", "accuracy_curves", "compare_with_sweep"],
        "dpteach.fairness.dp_diagnostics": [
            "gradient_stats_by_group", "objective_perturbation_noise_by_group",
            "membership_advantage_by_group"],
    },
    "plots/test_dp_fairness_plots.py": {
        "dpteach.plots.dp_fairness": [
            "group_accuracy_data", "plot_group_accuracy"],
    },
    "learning/test_network_edges.py": {
        "dpteach.learning.optim": [
            "binary_cross_entropy_with_logits", "softmax_cross_entropy",
            "squared_error", "group_normalized_l1", "gradient_check"],
    },
    "fairness/test_mmd.py": {
        "dpteach.fairness.mmd": [
            "gaussian_kernel", "mmd2", "mmd2_and_grad", "mmd_permutation_test"],
    },
    "fairness/test_laftr.py": {
        "dpteach.fairness.representation": [
            "check_features", "check_binary_labels", "encode_groups",
            "check_loss_weight", "check_hidden"],
        "dpteach.fairness.representation_eval": [
            "adversary_accuracy", "fair_transfer"],
        "dpteach.fairness.laftr": [
            "gamma_sweep_row"],
    },
}
# The plot functions below are attacked by tests/plots/test_plots_bad_input.py (another
# engineer's file, written in parallel with this one).
PLOTS_FILE = "plots/test_plots_bad_input.py"
PLOT_FUNCTIONS = {
    "dpteach.plots.accounting": ["plot_composition", "plot_dpsgd_epsilon", "plot_amplification",
                                 "amplification_data"],
    "dpteach.plots.attacks": ["plot_neighbour_differences", "plot_attack_success",
                              "plot_averaging_attack", "neighbour_differences_data",
                              "attack_success_data", "averaging_attack_data"],
    "dpteach.plots.dpsgd": ["plot_mia_roc", "plot_privacy_utility", "plot_grad_norm_histogram",
                            "plot_training_history", "decision_grid", "plot_decision_boundary",
                            "mia_roc_data", "privacy_utility_data", "decision_boundary_data"],
    "dpteach.plots.erm": ["plot_decision_boundaries", "plot_accuracy_curve", "plot_sensitivity",
                          "plot_excess_risk", "decision_boundaries_data", "sensitivity_data",
                          "excess_risk_data"],
    "dpteach.plots.randomized_response": ["plot_rr_std_error", "plot_rr_probabilities",
                                          "rr_std_error_data", "rr_probabilities_data"],
    "dpteach.plots.selection": [
        "selection_probabilities_data", "exponential_mechanism_data", "private_median_data",
        "private_mode_data", "noisy_max_comparison_data", "svt_vs_composition_data",
        "event_privacy_loss_data", "block_estimates_data", "ptr_distance_data"],
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
    assert len(functions) > 100        # the walk really found the library
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
