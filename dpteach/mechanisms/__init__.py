"""Mechanisms: how a differentially private answer is made.

* :mod:`~dpteach.mechanisms.definition` — the definition itself, computed: the smallest ε
  and δ two output distributions allow, what an observer can learn, group privacy, and why
  δ must be small;
* :mod:`~dpteach.mechanisms.noise` — the Laplace and Gaussian mechanisms: noise
  calibration, δ(ε) and ε(δ) of the Gaussian, the privacy loss;
* :mod:`~dpteach.mechanisms.randomized_response` — randomized response (local DP);
* :mod:`~dpteach.mechanisms.selection` — choosing privately: the exponential mechanism,
  report-noisy-max, private mode and median;
* :mod:`~dpteach.mechanisms.sparse_vector` — the sparse vector technique (AboveThreshold);
* :mod:`~dpteach.mechanisms.stability` — subsample-and-aggregate and propose-test-release;
* :mod:`~dpteach.mechanisms.l2_laplace` — the ℓ2-Laplace noise of private ERM.
"""

from .noise import gaussian_mechanism, gaussian_sigma, laplace_mechanism, laplace_scale
from .randomized_response import k_randomized_response, rr_estimate
from .selection import exponential_mechanism, report_noisy_max
from .sparse_vector import SparseVector, above_threshold
from .stability import propose_test_release_median, subsample_and_aggregate

__all__ = [
    "laplace_scale", "laplace_mechanism", "gaussian_sigma", "gaussian_mechanism",
    "rr_estimate", "k_randomized_response",
    "exponential_mechanism", "report_noisy_max",
    "SparseVector", "above_threshold",
    "subsample_and_aggregate", "propose_test_release_median",
]
