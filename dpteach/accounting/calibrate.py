"""Calibrating the noise multiplier of DP-SGD to a target (ε, δ).

DP-SGD's privacy depends on the noise multiplier σ, the sampling rate q and the number of
steps T. :func:`epsilon_for_noise_multiplier` answers "what ε do these buy?", and
:func:`get_noise_multiplier` the planner's question "how much noise for this ε?": ε
decreases in σ, so a bisection finds the smallest σ that meets the target. Neighbouring
relation: add/remove one record, as for the accountants.

References
----------
.. [ACG16] M. Abadi et al. "Deep Learning with Differential Privacy." CCS 2016 (DP-SGD).
.. [MTZ19] I. Mironov, K. Talwar, L. Zhang. "Rényi Differential Privacy of the
   Sampled Gaussian Mechanism." arXiv:1908.10530, 2019.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import DELTA_POSITIVE, EPSILON, ParameterError, choice, real, refuse, validate
from .convert import rdp_to_epsilon
from .pld import INTERVAL, PLDAccountant
from .rdp import DEFAULT_ORDERS, STEPS
from .sampled_gaussian import (
    NOISE_MULTIPLIER,
    SAMPLE_RATE,
    SUBSAMPLED_ORDERS,
    subsampled_gaussian_rdp,
)

__all__ = ["RTOL_MIN", "MAX_NOISE_MULTIPLIER", "get_noise_multiplier",
           "epsilon_for_noise_multiplier"]

#: Smallest relative tolerance of :func:`get_noise_multiplier`: a few units of float64
#: resolution (2.2e-16); a narrower bracket than that cannot be represented.
RTOL_MIN = 1e-15
#: Largest ``max_noise_multiplier`` of :func:`get_noise_multiplier`.
MAX_NOISE_MULTIPLIER = 1e6
# Bisection on ln σ from a bracket of ratio ≤ 4 to ratio 1 + RTOL_MIN takes ~51 halvings.
_MAX_BISECTIONS = 200

ACCOUNTANT = choice("rdp", "pld")
#: a sampling rate that spends privacy (q > 0: the search needs ε to grow as σ shrinks)
POSITIVE_SAMPLE_RATE = real(1e-9, 1.0, example=0.01)
RTOL = real(RTOL_MIN, 1.0, high_open=True, example=1e-4)
#: the search's largest σ: from 10⁻⁶ (its smallest probe is then 2.5·10⁻⁷) to 10⁶
MAX_SIGMA = real(1e-6, MAX_NOISE_MULTIPLIER, example=1e4)


@validate(noise_multiplier=NOISE_MULTIPLIER, delta=DELTA_POSITIVE, sample_rate=SAMPLE_RATE,
          steps=STEPS, accountant=ACCOUNTANT, orders=SUBSAMPLED_ORDERS.or_none(),
          value_discretization_interval=INTERVAL)
def epsilon_for_noise_multiplier(*, noise_multiplier: float, delta: float, sample_rate: float,
                                 steps: int, accountant: str = "rdp", orders=None,
                                 value_discretization_interval: float = 1e-4) -> float:
    """ε after ``steps`` Poisson-subsampled Gaussian steps, by RDP or PLD.

    A one-call shortcut for ``RDPAccountant`` / ``PLDAccountant``:
    ``acc.step(noise_multiplier=σ, sample_rate=q, steps=T); acc.get_epsilon(δ)``, with
    ``orders`` for RDP (default :data:`~dpteach.accounting.rdp.DEFAULT_ORDERS`) or
    ``value_discretization_interval`` for PLD.
    """
    if accountant == "rdp":
        rdp_orders = np.asarray(DEFAULT_ORDERS, dtype=float) if orders is None else orders
        return _rdp_epsilon(noise_multiplier, delta, sample_rate, steps, rdp_orders)
    acc = PLDAccountant(value_discretization_interval)
    acc.step(noise_multiplier=noise_multiplier, sample_rate=sample_rate, steps=steps)
    return acc.get_epsilon(delta)


@validate(target_epsilon=EPSILON, target_delta=DELTA_POSITIVE, sample_rate=POSITIVE_SAMPLE_RATE,
          steps=STEPS, accountant=ACCOUNTANT, orders=SUBSAMPLED_ORDERS.or_none(),
          value_discretization_interval=INTERVAL, rtol=RTOL, max_noise_multiplier=MAX_SIGMA)
def get_noise_multiplier(*, target_epsilon: float, target_delta: float, sample_rate: float,
                         steps: int, accountant: str = "rdp", orders=None,
                         value_discretization_interval: float = 1e-4, rtol: float = 1e-4,
                         max_noise_multiplier: float = 1e4) -> float:
    """Smallest noise multiplier σ (to relative tolerance ``rtol``) meeting a privacy target.

    Finds σ such that ``steps`` Poisson-subsampled Gaussian steps at rate
    ``sample_rate`` are (ε, δ)-DP with ε ≤ ``target_epsilon`` by the chosen
    accountant. ε decreases in σ (more noise is a post-processing of less), so
    we bisect on ln σ, keeping a bracket [lo, hi] with ε(lo) > target ≥ ε(hi)
    where *both ends have been evaluated*, and return ``hi``. The returned σ
    therefore NEVER exceeds the target (its ε was computed, not interpolated),
    and is within a factor (1 + rtol) of the smallest such σ. Every search loop
    is bounded: at most ~10 factor-4 steps up to ``max_noise_multiplier``, ~20
    down to 1e-6, and at most 200 bisections.

    With ``accountant="pld"``, a σ whose PLD grid would be too large to compute
    (see :data:`~dpteach.accounting.pld.MAX_GRID_POINTS`; only very small σ)
    is treated as not meeting the target: the answer still meets it. If even σ ≈ 1e-6
    meets the target, that σ is returned without further search.

    Parameters
    ----------
    accountant : {"rdp", "pld"}
        RDP (fast, a few ms per evaluation) or PLD (tighter, ~0.3 s per
        evaluation for 15,000 steps at the default discretization).
    orders, value_discretization_interval
        RDP orders (default :data:`~dpteach.accounting.rdp.DEFAULT_ORDERS`), or the PLD
        grid width.
    rtol : float, default 1e-4
        Relative width of the final bracket, at least :data:`RTOL_MIN` (1e-15):
        float64 cannot resolve a narrower one.
    max_noise_multiplier : float, default 1e4
        Give up (ParameterError) if even this σ does not meet the target — e.g. a
        target ε below what the largest RDP order can certify.

    References
    ----------
    [ACG16]_ (DP-SGD); [MTZ19]_ (RDP of the sampled Gaussian).
    """
    q, interval = sample_rate, value_discretization_interval
    rdp_orders = np.asarray(DEFAULT_ORDERS, dtype=float) if orders is None else orders

    def eps(sigma: float) -> float:
        if accountant == "rdp":
            return _rdp_epsilon(sigma, target_delta, q, steps, rdp_orders)
        acc = PLDAccountant(interval)
        try:
            acc.step(noise_multiplier=sigma, sample_rate=q, steps=steps)
        except ParameterError:
            return math.inf             # grid too large (σ tiny): treat as not meeting it
        return acc.get_epsilon(target_delta)

    if accountant == "pld":
        # PLD evaluations are slow; start from the (cheap) RDP answer, which PLD
        # usually beats by a few per cent, and bracket with small factors.
        if _rdp_epsilon(max_noise_multiplier, target_delta, q, steps, rdp_orders) <= target_epsilon:
            start = get_noise_multiplier(
                target_epsilon=target_epsilon, target_delta=target_delta, sample_rate=q,
                steps=steps, accountant="rdp", orders=rdp_orders, rtol=1e-3,
                max_noise_multiplier=max_noise_multiplier)
            factor = 1.1
        else:
            start, factor = 1.0, 4.0    # RDP cannot certify the target: search from scratch
    else:
        start, factor = 1.0, 4.0
    hi = min(start, max_noise_multiplier)
    # both loops below move σ by a factor ≥ 1.1 between 1e-6·factor and max_noise_multiplier
    # (≤ 1e6): at most ~300 evaluations, ~20 with the factor 4
    while eps(hi) > target_epsilon:
        if hi >= max_noise_multiplier:
            raise refuse("target_epsilon", target_epsilon, f"larger (not reachable with σ ≤ "
                         f"{max_noise_multiplier:g}, δ={target_delta:g}, q={q:g}, T={steps})")
        hi = min(hi * factor, max_noise_multiplier)
    lo = hi / factor
    while eps(lo) <= target_epsilon:
        if lo < 1e-6:
            # even σ = 1e-6 meets the target (e.g. q tiny and few steps): no meaningful
            # minimum; return the smallest σ found to meet it
            return float(lo)
        hi, lo = lo, lo / factor
    # invariant: eps(lo) > target >= eps(hi), both evaluated
    for _ in range(_MAX_BISECTIONS):
        if hi / lo <= 1 + rtol:
            break
        mid = math.sqrt(lo * hi)               # 1e-6/4 < lo < hi ≤ 1e6: no over/underflow
        if not lo < mid < hi:                  # float64 cannot split the bracket further
            break
        if eps(mid) <= target_epsilon:
            hi = mid
        else:
            lo = mid
    return float(hi)


def _rdp_epsilon(sigma: float, delta: float, q: float, steps: int, orders: np.ndarray) -> float:
    """ε of T steps by RDP: the unchecked curve and conversion (the search calls it often)."""
    rdp = steps * subsampled_gaussian_rdp.__wrapped__(orders, sigma, q)
    return rdp_to_epsilon.__wrapped__(orders, rdp, delta, "improved")[0]


# Implementation notes: docs/library/accounting.md (accounting.calibrate).
