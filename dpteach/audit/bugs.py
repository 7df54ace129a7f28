"""Planted bugs: small, deliberately WRONG mechanisms for an audit to catch.

**Never use anything in this module to protect data.** Each function looks like a correct
mechanism of dpteach and claims its privacy, but carries one mistake of the kind found in
real code; an audit (:mod:`dpteach.audit.runs`, :mod:`dpteach.audit.one_run`) should certify
an ε above the claim. The published sparse vector variant without query noise ([LSL17]_), not
ε′-DP for any ε′, lives with the correct sparse vector
(:func:`dpteach.mechanisms.sparse_vector.sparse_vector_without_query_noise`) and is
imported here with the other bugs.

References
----------
.. [LSL17] M. Lyu, D. Su and N. Li. Understanding the sparse vector technique
   for differential privacy. PVLDB 10(6): 637-648, 2017.
.. [ACG16] M. Abadi, A. Chu, I. Goodfellow, H. B. McMahan, I. Mironov,
   K. Talwar and L. Zhang. Deep learning with differential privacy. CCS 2016,
   Algorithm 1.
.. [W65] S. L. Warner. Randomized response: a survey technique for eliminating
   evasive answer bias. JASA 60(309), 1965.
"""

from __future__ import annotations

import inspect
import math
from typing import Any

import numpy as np

from .._validation import (EPSILON, RNG, SENSITIVITY, VALUES, anything, choice, documented, one_of,
                           real, validate, validate_params)
from ..accounting.pld import PLDAccountant
from ..accounting.rdp import RDPAccountant
from ..accounting.calibrate import epsilon_for_noise_multiplier
from ..learning.dpsgd import MAX_GRAD_NORM, MAX_NOISE_MULTIPLIER, DPSGDClassifier
from ..mechanisms.noise import laplace_scale
from ..mechanisms.randomized_response import randomized_response
from ..mechanisms.sparse_vector import sparse_vector_without_query_noise

__all__ = [
    "laplace_half_scale",
    "randomized_response_wrong_epsilon",
    "sparse_vector_without_query_noise",
    "DPSGDClassifierWithoutClipping",
    "NEVER_CLIPS",
]

#: :class:`DPSGDClassifierWithoutClipping` clips at ``NEVER_CLIPS × C``: no gradient gets there.
NEVER_CLIPS = 1e6
#: ε of the wrong randomized response: up to 18, where its truth probability e^{2ε}/(1 + e^{2ε})
#: is still below 1 in floating point
WRONG_RR_EPSILON = real(1e-6, 18.0)
BITS = anything("0/1 (or True/False), a number or a 1-D array: as for randomized_response, "
                "which checks it")


@validate(value=VALUES, sensitivity=SENSITIVITY, epsilon=EPSILON, rng=RNG)
def laplace_half_scale(value, sensitivity: float, epsilon: float, rng=None) -> Any:
    """PLANTED BUG — ``value + Lap(Δ/(2ε))``: half the scale the Laplace mechanism needs.

    Claims ε-DP like :func:`dpteach.mechanisms.noise.laplace_mechanism`, but the density ratio
    between neighbours reaches ``e^{Δ/b} = e^{2ε}``: it is 2ε-DP and no better. The bug:
    the scale is computed from a sensitivity of Δ/2 (e.g. "changing one person moves the
    mean by at most ½" when it moves it by 1). The result has the shape of ``value``.
    """
    b = laplace_scale.__wrapped__(sensitivity, epsilon) / 2.0   # BUG: should be Δ/ε
    return value + rng.laplace(0.0, b, size=np.shape(value) or None)


@validate(bits=BITS, epsilon=WRONG_RR_EPSILON, rng=RNG)
def randomized_response_wrong_epsilon(bits, epsilon: float, rng=None) -> Any:
    """PLANTED BUG — randomized response with a mis-computed truth probability.

    Correct: tell the truth with probability ½ + γ, γ = ½·tanh(ε/2), so that the likelihood
    ratio (½ + γ)/(½ − γ) is e^ε ([W65]_;
    :func:`dpteach.mechanisms.randomized_response.rr_gamma_from_epsilon`).
    This one uses γ = ½·tanh(ε) — the "/2" inside the tanh forgotten — so it tells the truth
    with probability e^{2ε}/(1 + e^{2ε}) and is 2ε-DP while claiming ε.
    """
    gamma = 0.5 * math.tanh(epsilon)                       # BUG: should be tanh(epsilon / 2)
    return randomized_response(bits, gamma=gamma, rng=rng)


@documented
class DPSGDClassifierWithoutClipping(DPSGDClassifier):
    """PLANTED BUG — DP-SGD that forgets to clip, and still reports the ε of a clipped run.

    Trains exactly like :class:`~dpteach.learning.dpsgd.DPSGDClassifier` (Poisson sampling,
    noise N(0, σ²C²) on the gradient sum, [ACG16]_ Algorithm 1) except that the per-example
    gradients are **not clipped**: clipping happens at :data:`NEVER_CLIPS` × C, which no
    gradient reaches, while the noise keeps the standard deviation σ·C of a run clipped at C.
    The privacy analysis needs every example's gradient norm ≤ C; without clipping one example
    (a canary with a large feature, say) moves the model by as much as its gradient, and the
    ε reported in ``epsilon_`` — the accountant's ε for σ, q and the steps, what the buggy code
    believes — is false. (``history_["epsilon"]`` holds the claimed ε after each epoch, by
    RDP for all but the last.)

    Parameters are those of :class:`~dpteach.learning.dpsgd.DPSGDClassifier`, except that
    ``noise_multiplier`` must be a number (σ > 0), ``max_grad_norm`` a number and
    ``target_epsilon`` None (see the teaching domains below); the others are checked by
    DPSGDClassifier's own ``fit``. ``epsilon_`` and ``history_["epsilon"]`` hold the claimed
    ε.
    """

    _parameter_constraints = {
        **{name: anything("as for DPSGDClassifier (checked by its fit)")
           for name in inspect.signature(DPSGDClassifier.__init__).parameters if name != "self"},
        "noise_multiplier": real(1e-2, MAX_NOISE_MULTIPLIER),
        "max_grad_norm": real(1e-6, MAX_GRAD_NORM / NEVER_CLIPS),
        "target_epsilon": one_of(choice(None), text="None (the planted bug takes "
                                                    "noise_multiplier, not a target ε)"),
    }

    @validate(X=anything("training features, as for DPSGDClassifier.fit"),
              y=anything("class labels, as for DPSGDClassifier.fit"))
    def fit(self, X, y) -> DPSGDClassifierWithoutClipping:
        """Train without clipping (see the class docstring); returns self."""
        validate_params(self)
        sigma, C = self.noise_multiplier, self.max_grad_norm
        inner = DPSGDClassifier(**{**self.get_params(),
                                   "max_grad_norm": C * NEVER_CLIPS,        # BUG: never clips
                                   "noise_multiplier": sigma / NEVER_CLIPS})  # noise std σ·C
        inner.fit(X, y)
        for name, value in vars(inner).items():
            if name.endswith("_") and not name.startswith("_"):
                setattr(self, name, value)
        # what the buggy code reports: the accountant's ε for σ — the ε of a *clipped* run
        acc = RDPAccountant() if self.accountant == "rdp" else PLDAccountant()
        acc.step(noise_multiplier=sigma, sample_rate=self.sample_rate_, steps=self.n_steps_)
        epochs = len(self.history_["epoch"])
        per_epoch = self.n_steps_ // epochs
        history = [float(epsilon_for_noise_multiplier(
            noise_multiplier=sigma, delta=self.delta_, sample_rate=self.sample_rate_,
            steps=per_epoch * e, accountant="rdp")) for e in self.history_["epoch"][:-1]]
        self.accountant_ = acc
        self.noise_multiplier_ = sigma
        self.epsilon_ = float(acc.get_epsilon(self.delta_))
        self.history_ = {**self.history_, "epsilon": history + [self.epsilon_]}
        return self
