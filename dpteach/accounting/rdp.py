"""Rényi differential privacy: RDP curves of basic mechanisms and an accountant.

A mechanism M is (α, r)-RDP if the Rényi divergence of order α between its
output distributions on any two neighbouring datasets is at most r ([M17]_,
Def. 4). RDP composes by *adding* the curves order by order ([M17]_, Prop. 1),
so k runs of a mechanism cost k·r(α); converting the total to (ε, δ)-DP at the
best order (see :mod:`dpteach.accounting.convert`) is where the gain over
classic composition theorems comes from.

Neighbouring relation: the plain Gaussian, Laplace and randomized-response
curves hold for any pair of inputs whose query values differ by at most the
sensitivity (one answer flipped, for randomized response); the accountant's
subsampled-Gaussian steps assume add/remove one record (the relation under which
Poisson subsampling amplifies privacy, as in DP-SGD).

References
----------
.. [M17] I. Mironov. "Rényi Differential Privacy." CSF 2017 (arXiv:1702.07476v3):
   Prop. 1 (composition), Prop. 3 (conversion), Prop. 5 (randomized response),
   Prop. 6 (Laplace), Prop. 7 (Gaussian); Table II.
.. [MTZ19] I. Mironov, K. Talwar, L. Zhang. "Rényi Differential Privacy of the
   Sampled Gaussian Mechanism." arXiv:1908.10530, 2019, Sec. 3.3: Case I (integer α)
   and Case II (fractional α).
.. [BBGHS20] B. Balle, G. Barthe, M. Gaboardi, J. Hsu, T. Sato. "Hypothesis
   testing interpretations and Rényi differential privacy." AISTATS 2020, Thm 21
   (numbering of arXiv:1905.09982); the conversion of :mod:`~dpteach.accounting.convert`.
.. [ACG16] M. Abadi et al. "Deep Learning with Differential Privacy." CCS 2016
   (the moments accountant, of which this is the RDP formulation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import (DELTA_POSITIVE, EPSILON_OR_ZERO, SCALE, SENSITIVITY, integer, real,
                           refuse, validate)
from .convert import CONVERSION, ORDERS, RDP_VALUES, rdp_to_delta, rdp_to_epsilon
from .sampled_gaussian import (NOISE_MULTIPLIER, SAMPLE_RATE, SUBSAMPLED_ORDERS,
                               subsampled_gaussian_rdp)

__all__ = ["DEFAULT_ORDERS", "MAX_STEPS", "STEPS", "gaussian_rdp", "laplace_rdp",
           "randomized_response_rdp", "Step", "RDPAccountant"]

#: Largest number of steps (or repetitions) one accountant call may compose.
MAX_STEPS = 10**9

#: Default Rényi orders: a fine grid (step 0.25) on (1, 10] where the best order
#: of most DP-SGD runs lies, every integer up to 64, then a few large orders so
#: that very small ε targets remain reachable.
DEFAULT_ORDERS: tuple[float, ...] = tuple(
    [1 + x / 4 for x in range(1, 37)] + list(range(11, 65)) + [80, 96, 128, 256, 512, 1024]
)

#: number of steps (or repetitions) composed by one call
STEPS = integer(1, MAX_STEPS, example=10)
#: randomized response's probability of the truth: at 10⁻¹² from 0 or 1 its pure-DP ε is
#: already 27.6
TRUTH_PROBABILITY = real(1e-12, 1 - 1e-12, example=0.75)


# ------------------------------------------------- closed-form curves of basic mechanisms

@validate(orders=ORDERS, sigma=SCALE, sensitivity=SENSITIVITY)
def gaussian_rdp(orders, sigma: float, sensitivity: float = 1.0) -> np.ndarray:
    """RDP of the Gaussian mechanism: ``r(α) = α Δ² / (2σ²)``.

    [M17]_, Prop. 7 (Table II). Assumes ℓ2 sensitivity Δ and noise N(0, σ²I).
    """
    ratio = sensitivity / sigma
    return orders * ratio * ratio / 2


@validate(orders=ORDERS, scale=SCALE, sensitivity=SENSITIVITY)
def laplace_rdp(orders, scale: float, sensitivity: float = 1.0) -> np.ndarray:
    """RDP of the Laplace mechanism with scale b and ℓ1 sensitivity Δ.

    [M17]_, Prop. 6 (Table II), with ε = Δ/b (the pure-DP ε of the mechanism)::

        r(α) = 1/(α−1) · ln S,   S = α/(2α−1) · e^{(α−1)ε} + (α−1)/(2α−1) · e^{−αε}.

    r(α) increases to the pure-DP value ε as α → ∞. Evaluated in two stable forms
    (the near one as ln1p of two non-negative terms, so that a tiny r ≈ αε²/2 keeps its
    digits; derivation: docs/library/accounting.md, accounting.rdp).
    """
    eps = sensitivity / scale
    a = orders
    am1 = a - 1
    x = am1 * eps
    out = np.empty_like(a)
    near = x <= 700
    if near.any():
        an, am1n = a[near], am1[near]
        w1 = 1.0 / (2.0 - 1.0 / an)                # α/(2α−1)
        w2 = 1.0 / (2.0 + 1.0 / am1n)              # (α−1)/(2α−1)
        s_minus_1 = w1 * _expm1_minus_x(x[near]) + w2 * _expm1_minus_x(-an * eps)
        out[near] = np.log1p(s_minus_1) / am1n
    far = ~near
    if far.any():
        af, am1f = a[far], am1[far]
        tail = np.log1p(am1f / af * np.exp(-(2 * af - 1) * eps))
        out[far] = eps + (tail - np.log(2.0 - 1.0 / af)) / am1f
    return out


@validate(orders=ORDERS, p=TRUTH_PROBABILITY)
def randomized_response_rdp(orders, p: float) -> np.ndarray:
    """RDP of binary randomized response that reports the truth with probability p.

    [M17]_, Prop. 5 (Table II)::

        r(α) = 1/(α−1) · ln( p^α (1−p)^{1−α} + (1−p)^α p^{1−α} ).

    Symmetric in p ↔ 1 − p; increases to the pure-DP value d = |ln(p/(1−p))|
    as α → ∞. With p_s = min(p, 1 − p), t = 1 − 2p_s = tanh(d/2) and h = (α−1)d
    the sum inside the logarithm is cosh(h) + t·sinh(h), so we evaluate
    ``r = ln1p(2 sinh²(h/2) + t sinh h)/(α − 1)`` (two non-negative terms, no
    cancellation even when p is within 1e-12 of 1/2 and r ≈ 2αt² is tiny) and,
    for h > 700, ``r = d + [ln(1 − p_s) + ln1p(p_s/(1−p_s) · e^{−2h})]/(α − 1)``.
    """
    ps = p if p <= 0.5 else 1.0 - p                  # exact (Sterbenz) for p ≥ 1/2
    t = 1.0 - 2.0 * ps
    d = 2.0 * math.atanh(t) if ps > 0.25 else math.log1p(-ps) - math.log(ps)
    am1 = orders - 1
    h = am1 * d
    out = np.empty_like(orders)
    near = h <= 700
    hn = h[near]
    out[near] = np.log1p(2.0 * np.sinh(hn / 2) ** 2 + t * np.sinh(hn)) / am1[near]
    far = ~near
    tail = np.log1p(ps / (1.0 - ps) * np.exp(-2.0 * h[far]))
    out[far] = d + (math.log1p(-ps) + tail) / am1[far]
    return out


# ------------------------------------------------------------------------------ accountant

@dataclass(frozen=True)
class Step:
    """One entry of an accountant's history."""

    noise_multiplier: float
    sample_rate: float
    steps: int


@validate(orders=SUBSAMPLED_ORDERS.or_none())
class RDPAccountant:
    """Rényi-DP accountant for (subsampled) Gaussian steps, as in DP-SGD.

    Keeps the running RDP curve (one value per order). ``step`` adds
    ``steps × r_q,σ(α)`` (RDP composes additively, [M17]_ Prop. 1);
    ``get_epsilon`` converts the total to (ε, δ) at the best order.
    Neighbouring relation: add/remove one record. ``orders`` defaults to
    :data:`DEFAULT_ORDERS`.

    Examples
    --------
    >>> acc = RDPAccountant()
    >>> acc.step(noise_multiplier=1.1, sample_rate=256 / 60_000, steps=15_000)
    >>> round(acc.get_epsilon(delta=1e-5), 2)
    2.69
    """

    def __init__(self, orders=None):
        orders = np.array(DEFAULT_ORDERS if orders is None else orders, dtype=float)  # a copy
        orders.setflags(write=False)
        self._orders = orders
        self._rdp = np.zeros_like(orders)
        self._history: list[Step] = []

    @property
    def orders(self) -> np.ndarray:
        """The Rényi orders (a read-only array)."""
        return self._orders

    @property
    def history(self) -> tuple[Step, ...]:
        """Every ``step`` call so far, in order."""
        return tuple(self._history)

    @validate(noise_multiplier=NOISE_MULTIPLIER, sample_rate=SAMPLE_RATE, steps=STEPS)
    def step(self, *, noise_multiplier: float, sample_rate: float, steps: int = 1) -> None:
        """Account for ``steps`` Poisson-subsampled Gaussian steps: noise σ
        (``noise_multiplier``, in units of the clipping norm), Poisson rate q (q = 1: the
        plain Gaussian)."""
        one = subsampled_gaussian_rdp.__wrapped__(self._orders, noise_multiplier, sample_rate)
        self._rdp = self._rdp + steps * one
        self._history.append(Step(noise_multiplier, sample_rate, steps))

    @validate(rdp=RDP_VALUES, count=STEPS)
    def compose_rdp(self, rdp, count: int = 1) -> None:
        """Add an RDP curve (one value ≥ 0 per order; inf: no bound there) ``count`` times.

        E.g. ``acc.compose_rdp(laplace_rdp(acc.orders, scale=1.0), count=10)``.
        """
        if rdp.shape != self._orders.shape:
            raise refuse("rdp.shape", rdp.shape, f"{self._orders.shape}, one value per order")
        with np.errstate(over="ignore"):          # beyond 1e308: no bound at that order
            self._rdp = self._rdp + count * rdp

    def get_rdp(self) -> np.ndarray:
        """The current total RDP curve (a copy), one value per order."""
        return self._rdp.copy()

    @validate(delta=DELTA_POSITIVE, conversion=CONVERSION)
    def get_epsilon_and_order(self, delta: float,
                              conversion: str = "improved") -> tuple[float, float]:
        """(ε, best order) such that everything composed so far is (ε, δ)-DP.

        ``conversion="improved"`` ([BBGHS20]_ Thm 21) or ``"classic"`` ([M17]_ Prop. 3).
        """
        return rdp_to_epsilon.__wrapped__(self._orders, self._rdp, delta, conversion)

    @validate(delta=DELTA_POSITIVE, conversion=CONVERSION)
    def get_epsilon(self, delta: float, conversion: str = "improved") -> float:
        """ε such that everything composed so far is (ε, δ)-DP (best order)."""
        return self.get_epsilon_and_order(delta, conversion)[0]

    @validate(epsilon=EPSILON_OR_ZERO, conversion=CONVERSION)
    def get_delta(self, epsilon: float, conversion: str = "improved") -> float:
        """Smallest δ (over orders) such that everything composed so far is (ε, δ)-DP."""
        return rdp_to_delta.__wrapped__(self._orders, self._rdp, epsilon, conversion)[0]

    def __repr__(self) -> str:
        return f"RDPAccountant({len(self._orders)} orders, {len(self._history)} step calls)"


# --------------------------------------------------------------------------------- helpers

def _expm1_minus_x(x: np.ndarray) -> np.ndarray:
    """e^x − 1 − x (≥ 0) to full relative precision for every finite x ≤ 709.

    For |x| < 1 a Taylor series (x²/2)(1 + x/3(1 + x/4(…))) with 27 terms
    (truncation error < 1/27! relative), elsewhere expm1(x) − x, which loses at
    most a factor ~3 of relative precision there.
    """
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    small = np.abs(x) < 1
    xs = x[small]
    acc = np.ones_like(xs)
    for n in range(28, 2, -1):
        acc = 1.0 + xs * acc / n
    out[small] = 0.5 * xs * xs * acc
    xl = x[~small]
    out[~small] = np.expm1(xl) - xl
    return out


# Implementation notes: docs/library/accounting.md (accounting.rdp).
