"""Exact sampling: noise that floating point cannot betray (Mironov's attack and its fixes).

* :mod:`~dpteach.exact.discrete` — exact samplers of the discrete Laplace and the discrete
  Gaussian (Canonne, Kamath & Steinke), and the discrete Gaussian's variance and exact δ;
* :mod:`~dpteach.exact.secure` — the Laplace and Gaussian mechanisms with that noise, on a
  grid;
* :mod:`~dpteach.exact.snapping` — Mironov's snapping mechanism.
"""

from .discrete import sample_discrete_gaussian, sample_discrete_laplace
from .secure import secure_gaussian_mechanism, secure_laplace_mechanism
from .snapping import snapping_mechanism

__all__ = [
    "sample_discrete_laplace", "sample_discrete_gaussian",
    "secure_laplace_mechanism", "secure_gaussian_mechanism", "snapping_mechanism",
]
