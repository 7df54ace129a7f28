"""Property-based bad-input tests for the public functions the other test files missed,
plus a coverage test over the WHOLE library.

The table ``CASES`` attacks, with hypothesis, the functions that only had example-based
``pytest.raises`` checks (or none): the differencing attack helpers, the membership-attack
helpers and ``softmax``/``clip_factors`` (the toy-data generators are attacked in
``mechanisms/test_mechanisms_bad_input.py`` with the rest of ``datasets``; the plot functions are attacked
in ``plots/test_plots_bad_input.py``). Each call must raise ValueError or TypeError whose message
names the argument as a word; any other exception, or no exception, fails
(``_props.call_rejects``). A baseline test calls each function once with the valid
arguments, so that the bad-value tests cannot pass on a function that always raises.

``test_every_public_function_has_a_bad_input_test`` walks every public module of dpteach
(except ``dpapp``) and checks that each public function
taking at least one parameter is listed in ``COVERED`` below. ``COVERED`` was built by
running every test file with ``_props.call_rejects`` instrumented (recording which public
dpteach function each bad-input call entered) and by reading the tests; every entry names
the test file whose property test attacks it, and a guard test checks that file exists,
uses the ``_props`` helpers and names the function. ``PENDING_PLOTS`` (tolerated) holds
plot functions whose tests are still being written. A NEW public function therefore fails this
test until someone writes a bad-input property test for it and lists it here.
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
    NOT_AN_OBJECT,
    NOT_A_NUMBER,
    NOT_BOOL,
    NOT_NUMERIC,
    WRONG_SHAPE,
    bad_int,
    call_rejects,
)
from hypothesis import given
from hypothesis import strategies as st

import dpteach
from dpteach import datasets as ds
from dpteach.attacks import differencing as D
from dpteach.attacks import membership as M
from dpteach.learning import nn

BAD_ARRAY = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from([math.nan, math.inf]))
# 0/1 databases: other values, wrong shapes, empty, non-numbers, non-finite
BAD_DB = st.one_of(
    NON_FINITE_ARRAYS, NOT_NUMERIC,
    st.sampled_from([[0, 1, 2], [0.5, 1], [-1, 0], [1], [], np.zeros((2, 2)), 1, None]),
    st.lists(st.integers(min_value=2, max_value=10**6), min_size=2, max_size=5))
# probability matrices for n = 2 rows (so that a bad ``proba`` is never blamed on a valid
# ``y`` of length 2), and labels that are wrong for a 2 × 2 ``proba``
BAD_PROBA = st.one_of(
    NON_FINITE_ARRAYS, NOT_NUMERIC,
    st.sampled_from([[[0.5, 1.5], [0.5, 0.5]], [[-0.1, 1.1], [0.5, 0.5]], [0.5, 0.5],
                     np.ones((2, 1, 2)), [[math.nan, 0.5], [0.5, 0.5]],
                     [[0.5, math.inf], [0.5, 0.5]], np.ones((2, 0)), 0.5, []]))
BAD_LABELS = st.one_of(NOT_NUMERIC, st.sampled_from([
    [2, 0], [0, -1], [0.5, 1], [1.0, 0.0], [[0], [1]], [], [0], [0, 1, 1], [math.nan, 0],
    [True, False], np.array([0, 1], dtype=np.uint8)[::-1] + 1, 1, None]))
# false-positive rates in (0, 1)
BAD_LOW_FPRS = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from(
    [[0.0], [1.0], [-0.1], 0.0, 1.5, [0.01, 2.0], [[0.1]], np.full((2, 2), 0.1)]))




# --------------------------------------------------- lazily built valid arguments
class Lazy:
    """Placeholder for a valid argument that is expensive to build (built once, on use)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"Lazy({self.name})"


@functools.cache
def _fixture(name):
    rng = np.random.default_rng(0)
    if name == "experiment":
        member = M.membership_matrix(8, 20, rng=0)
        conf = rng.standard_normal((8, 20)) + member
        return M.ShadowExperiment(membership=member, confidences=conf, losses=-conf,
                                  train_accuracy=np.ones(8), test_accuracy=np.ones(8),
                                  epsilons=np.full(8, np.inf))
    raise KeyError(name)


def _resolve(kwargs):
    return {k: _fixture(v.name) if isinstance(v, Lazy) else v for k, v in kwargs.items()}


EXP = Lazy("experiment")
DB = [0, 1, 1, 0, 1]

# ------------------------------------------------------------------------- the table
# (function, valid keyword arguments, argument under attack, strategy of bad values)
CASES = [
    # ----------------------------------------------------------- attacks.differencing
    (D.query_sum, {"x": [0, 1, 1]}, "x", BAD_ARRAY),
    (D.query_mean, {"x": [0, 1, 1]}, "x", BAD_ARRAY),
    (D.count_at_least, {"threshold": 2}, "threshold", bad_int(1, 10**6)),
    *[(D.empirical_sensitivity, {"query": "sum", "db": DB}, arg, strat) for arg, strat in (
        ("query", st.sampled_from(["median", "", None, 1, b"sum", ["sum"]])),
        ("db", st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC,
                         st.sampled_from([[1], [], np.ones((2, 2, 2)), None]))),
        ("norm", st.sampled_from([0, 3, 1.5, -1, math.nan, "1", None, [1]])),
        ("parallel", st.sampled_from([np.zeros((5, 5)), np.zeros((4, 4)), [1, 2],
                                      np.full((5, 4), np.nan), "x"])))],
    (D.reconstruct_by_differencing, {"db": DB}, "db", BAD_DB),
    *[(D.threshold_attack, {"db": DB, "target": 1, "threshold": 2}, arg, strat)
      for arg, strat in (("db", BAD_DB), ("target", bad_int(0, 4)),
                         ("threshold", bad_int(1, 10**6)), ("allow_dummies", NOT_BOOL))],
    *[(D.differencing_attack, {"db": DB, "target": 1}, arg, strat)
      for arg, strat in (("db", BAD_DB), ("query", BAD_CHOICE))],
    *[(D.laplace_sum_sf, {"m": 3, "a": 1.0, "scale": 1.0}, arg, strat)
      for arg, strat in (("m", bad_int(1, 10**6)), ("scale", BAD_POSITIVE),
                         ("a", st.one_of(NOT_A_NUMBER, WRONG_SHAPE,
                                         st.sampled_from([math.nan, math.inf, -math.inf]))))],
    *[(D.simulate_noisy_attack, {"db": DB, "target": 1, "epsilon": 1.0, "n_trials": 10, "rng": 0},
       arg, strat)
      for arg, strat in (("db", BAD_DB), ("target", bad_int(0, 4)), ("k", bad_int(1, 1000)),
                         ("scenario", BAD_CHOICE), ("n_trials", bad_int(1, 10**6)),
                         ("rng", BAD_RNG))],

    # ------------------------------------------------------------- attacks.membership
    *[(f, {"proba": [[0.3, 0.7], [0.5, 0.5]], "y": [1, 0]}, arg, strat)
      for f in (M.logit_confidence, M.cross_entropy_from_proba)
      for arg, strat in (("proba", BAD_PROBA), ("y", BAD_LABELS))],
    *[(M.lira_attack, {"experiment": EXP, "mode": "offline"}, arg, strat) for arg, strat in (
        ("experiment", NOT_AN_OBJECT),
        ("targets", st.sampled_from([[99], [-1], [0.5], "0", [math.nan], [[0]], [], True,
                                     [True]])),
        ("mode", BAD_CHOICE), ("fix_variance", NOT_BOOL), ("low_fprs", BAD_LOW_FPRS))],
    *[(M.loss_attack, {"experiment": EXP}, arg, strat) for arg, strat in (
        ("experiment", NOT_AN_OBJECT),
        ("targets", st.sampled_from([[99], [-1], [0.5], "0", [math.nan], [[0]], [], True,
                                     [True]])),
        ("low_fprs", BAD_LOW_FPRS))],

    # ------------------------------------------------------------------ learning
    (nn.softmax, {"logits": [[1.0, 2.0]]}, "logits", st.one_of(BAD_ARRAY, st.sampled_from(
        [[1.0, 2.0], 1.0, np.ones((2, 0)), np.ones((1, 1, 2)), [[True, False]], [[1e400]]]))),
    (nn.clip_factors, {"norms": [0.5, 2.0], "max_grad_norm": 1.0}, "norms",
     st.one_of(BAD_ARRAY, st.sampled_from([[-1.0], [0.5, -1e-9]]))),
    (nn.clip_factors, {"norms": [0.5, 2.0], "max_grad_norm": 1.0}, "max_grad_norm",
     BAD_POSITIVE),
    (nn.log_softmax, {"logits": [[1.0, 2.0]]}, "logits", st.one_of(BAD_ARRAY, st.sampled_from(
        [[1.0, 2.0], 1.0, np.ones((2, 0)), np.ones((1, 1, 2)), [[True, False]], [[1e400]]]))),
    *[(f, {"layer_sizes": (3, 2)}, "layer_sizes", st.sampled_from(
        [(3,), (3, 0), (0, 2), (3, 2.0), "32", 3, None, (3, 10**6), (3,) * 51, (True, 2)]))
      for f in (nn.check_layer_sizes, nn.init_dense_layers)],
    (nn.check_layer_sizes, {"layer_sizes": (3, 2)}, "min_outputs", bad_int(1, nn.MAX_WIDTH)),
    *[(nn.init_dense_layers, {"layer_sizes": (3, 2), "rng": 0}, arg, strat)
      for arg, strat in (("activation", BAD_CHOICE), ("dtype", BAD_CHOICE), ("rng", BAD_RNG))],
    (nn.activation_functions, {"activation": "relu"}, "activation", BAD_CHOICE),
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
    p = nn.softmax(z32)
    assert p.dtype == np.float32
    e = np.exp(z32.astype(np.float64) - z32.max(axis=1, keepdims=True))
    np.testing.assert_allclose(p, e / e.sum(axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_array_equal(nn.softmax([[0, 0]]), [[0.5, 0.5]])
    assert nn.softmax(np.zeros((0, 3))).shape == (0, 3)


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
    "mechanisms/test_mechanisms_bad_input.py": {
        "dpteach.mechanisms.noise": [
            "laplace_scale", "laplace_mechanism", "gaussian_delta", "gaussian_sigma",
            "gaussian_mechanism", "laplace_privacy_loss", "gaussian_privacy_loss"],
        "dpteach.mechanisms.randomized_response": [
            "rr_epsilon_from_gamma", "rr_gamma_from_epsilon", "randomized_response",
            "rr_std_error", "rr_estimate", "k_randomized_response", "k_rr_estimate",
            "simulate_rr_estimates", "rr_local_std", "central_laplace_rate_std"],
        "dpteach.datasets": ["adult_arrays", "load_mnist_5k", "make_parallel_databases",
                             "make_toy_data", "make_two_moons"],
    },
    "accounting/test_accounting.py": {
        "dpteach.accounting.calibrate": ["epsilon_for_noise_multiplier", "get_noise_multiplier"],
        "dpteach.accounting.compare": ["composition_epsilons", "dpsgd_epsilons"],
        "dpteach.mechanisms.noise": ["gaussian_epsilon"],
        "dpteach.accounting.rdp": ["gaussian_rdp", "laplace_rdp", "randomized_response_rdp"],
        "dpteach.accounting.sampled_gaussian": ["subsampled_gaussian_rdp",
                                                "check_subsampled_orders"],
        "dpteach.accounting.pld": ["check_discretization_interval"],
        "dpteach.accounting.zcdp": ["gaussian_zcdp", "pure_dp_to_zcdp", "zcdp_to_epsilon",
                                    "rho_for_epsilon"],
        "dpteach.accounting.convert": ["rdp_to_epsilon", "rdp_to_delta", "check_orders",
                                       "check_rdp"],
        "dpteach.plots.accounting": ["composition_data", "dpsgd_epsilon_data", "planner_run",
                                     "planner_pld_steps"],
    },
    "attacks/test_differencing.py": {
        "dpteach.attacks.differencing": ["dp_success_bound", "noisy_attack_success"],
    },
    "attacks/test_membership.py": {
        "dpteach.attacks.membership": [
            "loss_threshold_attack", "membership_matrix", "run_shadow_experiment", "lira_scores"],
        "dpteach.attacks.roc": [
            "roc_from_scores", "dp_roc_bound", "dp_advantage_bound", "dp_auc_bound"],
    },
    "accounting/test_composition.py": {
        "dpteach.accounting.composition": ["basic_composition", "parallel_composition",
                                "advanced_composition", "optimal_composition_delta",
                                "optimal_composition_epsilon", "amplify_by_subsampling"],
    },
    "learning/test_dpsgd.py": {
        "dpteach.learning.dpsgd": ["poisson_sample", "steps_per_epoch",
                                   "privatize_gradient_sum", "dp_sgd_gradient"],
        "dpteach.plots.dpsgd": ["grad_norm_histogram_data", "training_history_data",
                                "probability_grid_data", "plot_probability_grid"],
    },
    "pate/test_teachers.py": {
        "dpteach.pate.teachers": ["partition_indices", "train_teachers", "vote_histograms"],
        "dpteach.pate.aggregators": ["lnmax", "gnmax", "confident_gnmax", "relative_votes"],
        "dpteach.pate.answers": [
            "gnmax_answer_probabilities", "lnmax_answer_probabilities",
            "confident_gnmax_answer_probabilities"],
    },
    "pate/test_analysis.py": {
        "dpteach.pate.analysis": [
            "check_votes", "gnmax_log_q", "lnmax_log_q", "gnmax_rdp_data_independent",
            "threshold_rdp_data_independent", "lnmax_rdp_data_independent",
            "gnmax_rdp_from_log_q", "gnmax_rdp", "threshold_log_pr_answered", "threshold_rdp",
            "lnmax_rdp", "confident_gnmax_rdp", "pate_epsilon", "lnmax_epsilon"],
        "dpteach.pate.release": [
            "gnmax_log_q0", "check_gnmax_conditions", "gnmax_local_sensitivities",
            "threshold_local_sensitivities", "smooth_sensitivity", "gnss_rdp",
            "sanitised_epsilon"],
    },
    "learning/test_erm.py": {
        "dpteach.learning.logistic": [
            "lam_from_C", "C_from_lam", "bound_rows", "logistic_objective", "loss_hessian",
            "fit_logistic_erm"],
        "dpteach.learning.erm": [
            "output_perturbation_beta", "objective_perturbation_constants",
            "output_perturbation", "objective_perturbation"],
        "dpteach.learning.erm_bounds": ["excess_risk_given_noise", "excess_risk_bound"],
        "dpteach.learning.erm_experiments": [
            "empirical_sensitivity", "accuracy_vs_epsilon", "toy_fits"],
        "dpteach.mechanisms.l2_laplace": ["l2_laplace_norm_distribution", "sample_l2_laplace"],
        "dpteach.plots.erm": ["plot_toy_boundaries", "toy_boundaries_data",
                              "accuracy_curve_data"],
    },
    "plots/test_basics_plots.py": {
        "dpteach.plots.calibration": ["plot_neighbouring_densities", "plot_privacy_loss",
                                      "plot_sigma_comparison", "plot_error_vs_epsilon",
                                      "plot_dimension_crossover", "error_vs_epsilon_data",
                                      "neighbouring_densities_data", "privacy_loss_data",
                                      "sigma_comparison_data", "dimension_crossover_data"],
        "dpteach.plots.randomized_response": ["plot_rr_estimator", "plot_local_vs_central",
                                              "rr_estimator_data", "local_vs_central_data"],
        "dpteach.plots.attacks": ["plot_noisy_difference", "noisy_difference_data"],
    },
    "plots/test_figure.py": {"dpteach.plots.figure": ["to_matplotlib", "to_vega_lite"]},
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
            "adult_predictions", "gap_values", "fairness_gaps", "group_rates", "group_roc_data",
            "plot_group_roc", "threshold_tradeoff_data", "plot_threshold_tradeoff"],
    },
    "plots/test_fairness_defs_plots.py": {
        "dpteach.plots.fairness_defs": ["calibration_by_group_data", "plot_calibration_by_group",
                                        "lfr_tradeoff_data", "plot_lfr_tradeoff"],
    },
    "plots/test_laftr_plots.py": {
        "dpteach.plots.laftr": [
            "sweep_gammas", "gamma_summary", "model_summary", "frontier_data",
            "plot_frontier", "group_rates_data", "plot_group_rates"],
    },
    "mechanisms/test_selection.py": {
        "dpteach.mechanisms.selection": [
            "exponential_mechanism_probabilities", "exponential_mechanism", "mode_utility",
            "median_utility", "private_mode_probabilities", "private_mode",
            "private_median_probabilities", "private_median", "report_noisy_max_scale",
            "report_noisy_max", "report_noisy_max_probabilities"],
        "dpteach.mechanisms.sparse_vector": [
            "sparse_vector_noise_scales", "sparse_vector", "above_threshold",
            "sparse_vector_without_query_noise", "as_transcript",
            "sparse_vector_pattern_probability", "no_query_noise_pattern_probability"],
        "dpteach.plots.selection": [
            "plot_selection_probabilities", "plot_exponential_mechanism", "plot_private_median",
            "plot_private_mode", "plot_noisy_max_comparison", "plot_svt_vs_composition",
            "plot_event_privacy_loss"],
    },
    "audit/test_svt_frequencies.py": {
        "dpteach.audit.runs": ["svt_pattern_frequency"],
    },
    "audit/test_bounds.py": {
        "dpteach.audit.bounds": [
            "check_confidence", "clopper_pearson_bounds", "epsilon_from_probabilities",
            "mu_from_probabilities", "epsilon_lower_bound", "gdp_mu_lower_bound", "gdp_epsilon",
            "max_certifiable_epsilon", "audit_trials_needed"],
    },
    "audit/test_runs.py": {
        "dpteach.audit.runs": ["batched", "audit_samples", "audit_mechanism",
                               "audit_convergence"],
    },
    "audit/test_one_run.py": {
        "dpteach.audit.one_run": [
            "one_run_p_value", "one_run_audit_bound", "one_run_guesses", "one_run_audit",
            "add_canaries", "canary_scores", "one_run_audit_dpsgd"],
        "dpteach.audit.bugs": ["laplace_half_scale", "randomized_response_wrong_epsilon"],
    },
    "audit/test_cases.py": {
        "dpteach.audit.cases": ["audit_case", "pair_epsilon"],
    },
    "test_exercises.py": {
        "dpteach.exercises": ["assert_own_work", "names_used"],
    },
    "plots/test_audit_plots.py": {
        "dpteach.plots.audit": [
            "audit_histograms_data", "plot_audit_histograms", "bound_convergence_data",
            "plot_bound_convergence", "canary_scores_data", "plot_canary_scores",
            "one_run_bound_data", "plot_one_run_bound"],
    },
    "exact/test_discrete.py": {
        "dpteach.exact.discrete": [
            "sample_discrete_laplace", "sample_discrete_gaussian", "discrete_laplace_pmf",
            "discrete_gaussian_pmf", "discrete_gaussian_normalizer", "discrete_gaussian_variance",
            "discrete_gaussian_delta", "random_source"],
        "dpteach.exact.snapping": ["snapping_mechanism", "snapping_epsilon"],
        "dpteach.exact.secure": ["secure_laplace_mechanism", "secure_gaussian_mechanism"],
    },
    "attacks/test_floating_point.py": {
        "dpteach.attacks.floating_point": [
            "textbook_laplace_noise", "impossible_under", "precision_test",
            "floating_point_attack"],
    },
    "mechanisms/test_stability.py": {
        "dpteach.mechanisms.stability": [
            "block_estimates", "subsample_and_aggregate_sensitivity", "subsample_and_aggregate",
            "median_local_sensitivity", "median_distance_to_instability",
            "ptr_pass_probability", "propose_test_release_median"],
        "dpteach.plots.selection": ["plot_block_estimates", "plot_ptr_distance"],
    },
    "fairness/test_metrics.py": {
        "dpteach.fairness.metrics": [
            "selection_rate", "true_positive_rate", "false_positive_rate",
            "false_negative_rate", "true_negative_rate", "positive_predictive_value",
            "group_table", "demographic_parity_difference", "equalized_odds_difference",
            "equalized_odds_sum", "equal_opportunity_difference",
            "laftr_equal_opportunity_difference", "calibration_by_group",
            "calibration_within_groups_error", "consistency_score", "zemel_accuracy",
            "zemel_discrimination"],
    },
    "fairness/test_lfr.py": {
        "dpteach.fairness.lfr": ["lfr_losses"],
        "dpteach.fairness.lfr_grid": ["lfr_grid_data", "lfr_grid_entry", "lfr_grid_baseline"],
    },
    "fairness/test_awareness.py": {
        "dpteach.fairness.awareness": [
            "fair_mapping", "statistical_parity_gap", "earthmover_distance",
            "worst_case_parity_gap", "feature_metric", "adult_awareness_example"],
    },
    "queries/test_many_queries.py": {
        "dpteach.queries.linear": ["adult_universe", "check_histogram", "as_queries",
                                   "marginal_queries", "random_queries", "max_error"],
        "dpteach.queries.independent": ["laplace_answers", "zcdp_budget", "gaussian_answers",
                                 "independent_noise_scale", "independent_max_error",
                                 "histogram_answers"],
        "dpteach.queries.mwem": ["private_multiplicative_weights", "mwem", "sample_rows",
                         "mwem_privacy", "compare_independent"],
    },
    "plots/test_many_queries_plots.py": {
        "dpteach.plots.many_queries": [
            "crossover_rng", "crossover_data", "plot_crossover", "crossover_epsilon_data",
            "plot_crossover_epsilon", "mwem_rounds_data", "plot_mwem_rounds", "pmw_errors_data",
            "plot_pmw_errors"],
    },
    "attacks/test_linkage.py": {
        "dpteach.attacks.linkage": [
            "check_table", "check_columns", "check_column", "equivalence_classes",
            "adult_with_quasi_identifiers", "class_sizes", "fraction_unique", "anonymity_level",
            "uniqueness_curve", "expected_fraction_unique", "deidentify", "linkage_attack"],
        "dpteach.attacks.kanonymity": [
            "coarsen", "suppress_small_classes", "mondrian_anonymize", "l_diversity",
            "homogeneity_attack", "background_knowledge_attack"],
    },
    "attacks/test_reconstruction.py": {
        "dpteach.attacks.reconstruction": [
            "subset_sum_queries", "noisy_answers", "calibrate_noise", "private_answers",
            "reconstruct_least_squares", "reconstruct_lp", "fraction_recovered",
            "dp_recovery_bound", "reconstruction_attack"],
        "dpteach.attacks.tracing": [
            "population_frequencies", "means_noise_std", "tracing_statistic", "tracing_attack",
            "tracing_power"],
    },
    "plots/test_anonymity.py": {
        "dpteach.plots.anonymity": ["uniqueness_curve_data", "plot_uniqueness_curve",
                                    "class_sizes_data", "plot_class_sizes"],
    },
    "plots/test_reconstruction_plots.py": {
        "dpteach.plots.reconstruction": [
            "recovery_vs_noise_data", "plot_recovery_vs_noise", "recovery_vs_epsilon_data",
            "plot_recovery_vs_epsilon", "tracing_power_data", "plot_tracing_power"],
    },
    "fairness/test_dp_impact.py": {
        "dpteach.fairness.dp_impact": [
            "check_group_labels", "check_zero_one_labels",
            "group_accuracy", "private_classifier", "fit_and_score", "dp_fairness_sweep",
            "summarize_sweep", "excess_drop", "accuracy_curves", "compare_with_sweep"],
        "dpteach.fairness.dp_diagnostics": [
            "gradient_stats_by_group", "objective_perturbation_noise_by_group",
            "membership_advantage_by_group"],
    },
    "plots/test_dp_fairness_plots.py": {
        "dpteach.plots.dp_fairness": ["group_accuracy_data", "plot_group_accuracy"],
    },
    "learning/test_network_edges.py": {
        "dpteach.learning.network": [
            "binary_cross_entropy_with_logits", "softmax_cross_entropy", "squared_error",
            "group_normalized_l1", "gradient_check"],
    },
    "fairness/test_mmd.py": {
        "dpteach.fairness.mmd": ["gaussian_kernel", "mmd2", "mmd2_and_grad",
                                 "mmd_permutation_test"],
    },
    "fairness/test_laftr.py": {
        "dpteach.fairness.representation": [
            "check_features", "check_binary_labels", "encode_groups", "check_loss_weight",
            "check_hidden"],
        "dpteach.fairness.representation_eval": ["adversary_accuracy", "fair_transfer"],
        "dpteach.fairness.laftr": ["gamma_sweep_row"],
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
            home = obj.__module__
            private_home = any(p.startswith("_") for p in home.split("."))
            if home == name or (attr in exported and private_home and home.startswith("dpteach")):
                if inspect.signature(obj).parameters:
                    found[(home, obj.__name__)] = obj
    return found


def test_every_public_function_has_a_bad_input_test():
    functions = _public_functions()
    assert len(functions) > 100        # the walk really found the library
    missing = sorted(f"{mod}.{name}" for mod, name in functions
                     if (mod, name) not in COVERED and (mod, name) not in PENDING_PLOTS)
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
