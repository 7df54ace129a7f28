"""Plotting functions shared by the notebooks and the app.

Each function takes the parameters (and optionally ``ax=``) and returns a
matplotlib ``Figure``. One submodule per topic; the public names are
re-exported here.
"""

from ._style import PALETTE, new_axes  # noqa: F401
from .calibration import (  # noqa: F401
    plot_dimension_crossover,
    plot_error_vs_epsilon,
    plot_neighbouring_densities,
    plot_privacy_loss,
    plot_sigma_comparison,
)
from .randomized_response import (  # noqa: F401
    plot_local_vs_central,
    plot_rr_estimator,
    plot_rr_probabilities,
    plot_rr_std_error,
)
from .attacks import (  # noqa: F401
    plot_attack_success,
    plot_averaging_attack,
    plot_neighbour_differences,
    plot_noisy_difference,
)
from .accounting import (  # noqa: F401
    plot_amplification,
    plot_composition,
    plot_dpsgd_epsilon,
)
from .dpsgd import (  # noqa: F401
    plot_decision_boundary,
    plot_grad_norm_histogram,
    plot_mia_roc,
    plot_privacy_utility,
    plot_training_history,
)
from .selection import (  # noqa: F401
    plot_block_estimates,
    plot_event_privacy_loss,
    plot_exponential_mechanism,
    plot_noisy_max_comparison,
    plot_private_median,
    plot_private_mode,
    plot_ptr_distance,
    plot_selection_probabilities,
    plot_svt_vs_composition,
)
from .erm import (  # noqa: F401
    plot_accuracy_curve,
    plot_decision_boundaries,
    plot_excess_risk,
    plot_sensitivity,
    plot_toy_boundaries,
)
