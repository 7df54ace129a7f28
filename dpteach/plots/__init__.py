"""Plotting functions shared by the notebooks and the app.

One figure path: every figure has a ``*_data`` function returning a
:class:`~dpteach.plots.figure.FigureData` (the numbers, computed through the math modules,
and the words of the title, axes and legend), and its ``plot_*`` function is
``to_matplotlib(x_data(...), ax=ax)``: a matplotlib ``Figure`` for the notebooks. The app
draws the same data in the browser (:func:`~dpteach.plots.figure.to_vega_lite`). One
submodule per chapter.

The public names are re-exported here, but loaded on first use (PEP 562): ``import
dpteach.plots`` stays light, and a chapter (with matplotlib and SciPy) is imported
only when one of its names is asked for. Implementation notes: docs/library/plots.md.
"""

from __future__ import annotations

import importlib

#: submodule → the public names it contributes to ``dpteach.plots``
_EXPORTS = {
    "_style": ("PALETTE", "new_axes"),
    "calibration": (
        "plot_dimension_crossover", "plot_error_vs_epsilon", "plot_neighbouring_densities",
        "plot_privacy_loss", "plot_sigma_comparison",
    ),
    "definition": ("plot_dp_test_region", "plot_event_probabilities", "plot_posterior_bound"),
    "randomized_response": (
        "plot_local_vs_central", "plot_rr_estimator", "plot_rr_probabilities",
        "plot_rr_std_error",
    ),
    "attacks": (
        "plot_attack_success", "plot_averaging_attack", "plot_neighbour_differences",
        "plot_noisy_difference",
    ),
    "accounting": ("plot_amplification", "plot_composition", "plot_dpsgd_epsilon"),
    "budget": ("plot_composition_tradeoff", "plot_dpsgd_tradeoff", "plot_rdp_orders"),
    "dpsgd": (
        "plot_decision_boundary", "plot_grad_norm_histogram", "plot_mia_roc",
        "plot_privacy_utility", "plot_probability_grid", "plot_training_history",
    ),
    "selection": (
        "plot_block_estimates", "plot_event_privacy_loss", "plot_exponential_mechanism",
        "plot_noisy_max_comparison", "plot_private_median", "plot_private_mode",
        "plot_ptr_distance", "plot_selection_probabilities", "plot_svt_vs_composition",
    ),
    "stable_selection": ("plot_block_votes", "plot_stable_selection"),
    "erm": (
        "plot_accuracy_curve", "plot_decision_boundaries", "plot_excess_risk", "plot_lambda_scan",
        "plot_noise_norm", "plot_sensitivity", "plot_toy_boundaries",
    ),
    "pate": ("plot_answer_distribution", "plot_pate_privacy", "plot_vote_histogram"),
    "pate_runs": ("plot_accuracy_vs_epsilon", "plot_query_costs", "plot_teacher_agreement"),
    "fairness": ("plot_group_roc", "plot_threshold_tradeoff"),
    "fairness_defs": ("plot_calibration_by_group", "plot_lfr_tradeoff"),
    "audit": ("plot_audit_histograms", "plot_bound_convergence", "plot_canary_scores",
              "plot_one_run_bound"),
    "many_queries": ("plot_crossover", "plot_crossover_epsilon", "plot_mwem_rounds",
                     "plot_pmw_errors"),
    "dp_fairness": ("plot_group_accuracy",),
    "laftr": ("plot_frontier", "plot_group_rates"),
    "anonymity": ("plot_class_sizes", "plot_uniqueness_curve"),
    "reconstruction": ("plot_recovery_vs_epsilon", "plot_recovery_vs_noise", "plot_tracing_power"),
    "practice": ("plot_release_comparison",),
}
_HOME = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_HOME)


def __getattr__(name: str):
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'dpteach.plots' has no attribute {name!r}")
    # not cached in globals(): the face holds no functions of its own, whichever was asked for
    # first (a walk over the package's attributes finds the same ones in every order)
    return getattr(importlib.import_module("." + module, __name__), name)


def __dir__():
    return sorted(set(globals()) | set(__all__))
