"""Composition and privacy accounting: Rényi DP, zCDP and privacy-loss distributions.

* :mod:`~dpteach.accounting.composition` — sequential, parallel, advanced and optimal
  composition, amplification by subsampling, and a privacy budget;

One module per accountant, as in Opacus:

* :mod:`~dpteach.accounting.rdp` — RDP curves (Gaussian, Laplace, randomized
  response) and :class:`RDPAccountant`;
* :mod:`~dpteach.accounting.sampled_gaussian` — the exact RDP of the
  Poisson-subsampled Gaussian (one DP-SGD step);
* :mod:`~dpteach.accounting.zcdp` — zero-concentrated DP;
* :mod:`~dpteach.accounting.pld` — :class:`PLDAccountant` (wraps Google's dp_accounting);
* :mod:`~dpteach.accounting.convert` — RDP curves (orders, values) and their
  conversion to (ε, δ);
* :mod:`~dpteach.accounting.calibrate` — :func:`get_noise_multiplier`;
* :mod:`~dpteach.accounting.compare` — every method side by side (notebook, app).

Example
-------
>>> from dpteach.accounting import RDPAccountant, get_noise_multiplier
>>> acc = RDPAccountant()
>>> acc.step(noise_multiplier=1.1, sample_rate=0.01, steps=1000)
>>> eps = acc.get_epsilon(delta=1e-5)
"""

from .convert import rdp_to_delta, rdp_to_epsilon
from .compare import METHOD_LABELS, METHODS, composition_epsilons, dpsgd_epsilons
from .composition import BudgetAccountant, advanced_composition, basic_composition
from .calibrate import epsilon_for_noise_multiplier, get_noise_multiplier
from .pld import PLDAccountant
from .rdp import (DEFAULT_ORDERS, RDPAccountant, Step, gaussian_rdp, laplace_rdp,
                  randomized_response_rdp)
from .sampled_gaussian import subsampled_gaussian_rdp
from .zcdp import gaussian_zcdp, pure_dp_to_zcdp, zcdp_to_epsilon

__all__ = [
    "DEFAULT_ORDERS", "RDPAccountant", "PLDAccountant", "Step", "get_noise_multiplier",
    "epsilon_for_noise_multiplier", "gaussian_rdp", "laplace_rdp", "randomized_response_rdp",
    "subsampled_gaussian_rdp", "rdp_to_epsilon", "rdp_to_delta", "gaussian_zcdp",
    "pure_dp_to_zcdp", "zcdp_to_epsilon", "METHODS", "METHOD_LABELS", "composition_epsilons",
    "dpsgd_epsilons", "basic_composition", "advanced_composition", "BudgetAccountant",
]
