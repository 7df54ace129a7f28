"""Calibrating the noise multiplier of DP-SGD to a target (ε, δ).

References
----------
.. [ACG16] M. Abadi et al. "Deep Learning with Differential Privacy." CCS 2016 (DP-SGD).
.. [MTZ19] I. Mironov, K. Talwar, L. Zhang. "Rényi Differential Privacy of the
   Sampled Gaussian Mechanism." arXiv:1908.10530, 2019.
"""

from __future__ import annotations

import math

from .._validation import (
    ParameterError,
    check_choice,
    check_delta,
    check_epsilon,
    check_in_range,
    check_int,
    check_positive,
    check_probability,
    describe,
)
from .convert import rdp_to_epsilon
from .pld import PLDAccountant, check_discretization_interval
from .rdp import DEFAULT_ORDERS, MAX_STEPS
from .sampled_gaussian import check_subsampled_orders, subsampled_gaussian_rdp

__all__ = ["RTOL_MIN", "MAX_NOISE_MULTIPLIER", "get_noise_multiplier",
           "epsilon_for_noise_multiplier"]

#: Smallest relative tolerance of :func:`get_noise_multiplier`: a few units of float64
#: resolution (2.2e-16); a narrower bracket than that cannot be represented.
RTOL_MIN = 1e-15
#: Largest ``max_noise_multiplier`` of :func:`get_noise_multiplier`.
MAX_NOISE_MULTIPLIER = 1e6
# Bisection on ln σ from a bracket of ratio ≤ 4 to ratio 1 + RTOL_MIN takes ~51 halvings.
_MAX_BISECTIONS = 200


def epsilon_for_noise_multiplier(*, noise_multiplier: float, delta: float, sample_rate: float,
                                 steps: int, accountant: str = "rdp", orders=None,
                                 value_discretization_interval: float = 1e-4) -> float:
    """ε after ``steps`` Poisson-subsampled Gaussian steps, by RDP or PLD.

    A one-call shortcut for ``RDPAccountant`` / ``PLDAccountant``:
    ``acc.step(noise_multiplier=σ, sample_rate=q, steps=T); acc.get_epsilon(δ)``.

    Parameters
    ----------
    noise_multiplier : float
        σ > 0.
    delta : float
        In (0, 1).
    sample_rate : float
        Poisson rate q in [0, 1].
    steps : int
        Number of steps, in [1, :data:`~dpteach.accounting.rdp.MAX_STEPS`] (10⁹).
    accountant : {"rdp", "pld"}
    orders : array-like of float, optional
        RDP orders (default :data:`~dpteach.accounting.rdp.DEFAULT_ORDERS`; at most
        256 orders, each ≤ 10 000). Checked for either accountant, used by RDP.
    value_discretization_interval : float, default 1e-4
        PLD grid width in [1e-6, 1]. Checked for either accountant, used by PLD.

    Returns
    -------
    float
        ε ≥ 0 (``inf`` when σ is so small that the RDP exceeds the float range).
    """
    sigma = check_positive("noise_multiplier", noise_multiplier)
    delta = check_delta("delta", delta, allow_zero=False)
    q = check_probability("sample_rate", sample_rate)
    steps = check_int("steps", steps, minimum=1, maximum=MAX_STEPS)
    accountant = check_choice("accountant", accountant, {"rdp", "pld"})
    orders = check_subsampled_orders("orders", DEFAULT_ORDERS if orders is None else orders)
    interval = check_discretization_interval("value_discretization_interval",
                                             value_discretization_interval)
    if accountant == "rdp":
        return _rdp_epsilon(sigma, delta, q, steps, orders)
    acc = PLDAccountant(interval)
    acc.step(noise_multiplier=sigma, sample_rate=q, steps=steps)
    return acc.get_epsilon(delta)


def _rdp_epsilon(sigma: float, delta: float, q: float, steps: int, orders) -> float:
    rdp = steps * subsampled_gaussian_rdp(orders, sigma, q)
    return rdp_to_epsilon(orders, rdp, delta)[0]


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
    is treated as not meeting the target: the answer still meets it.

    Parameters
    ----------
    target_epsilon : float
        > 0.
    target_delta : float
        In (0, 1).
    sample_rate : float
        Poisson sampling rate q in (0, 1].
    steps : int
        Number of steps, in [1, :data:`~dpteach.accounting.rdp.MAX_STEPS`] (10⁹).
    accountant : {"rdp", "pld"}
        RDP (fast, a few ms per evaluation) or PLD (tighter, ~0.3 s per
        evaluation for 15,000 steps at the default discretization).
    orders : array-like, optional
        RDP orders (default :data:`~dpteach.accounting.rdp.DEFAULT_ORDERS`).
    value_discretization_interval : float
        PLD grid width in [1e-6, 1] (PLD only, but always checked).
    rtol : float, default 1e-4
        Relative width of the final bracket, in [:data:`RTOL_MIN`, 1) = [1e-15, 1):
        float64 cannot resolve a narrower one.
    max_noise_multiplier : float, default 1e4
        In (0, :data:`MAX_NOISE_MULTIPLIER`] = (0, 1e6]. Give up (ParameterError)
        if even this σ does not meet the target — e.g. a target ε below what the
        largest RDP order can certify.

    Returns
    -------
    float
        σ with ε(σ) ≤ target_epsilon (if even σ ≈ 1e-6 meets the target, that
        σ is returned without further search).

    References
    ----------
    [ACG16]_ (DP-SGD); [MTZ19]_ (RDP of the sampled Gaussian).
    """
    target_epsilon = check_epsilon("target_epsilon", target_epsilon)
    target_delta = check_delta("target_delta", target_delta, allow_zero=False)
    q = check_probability("sample_rate", sample_rate, open_low=True)
    steps = check_int("steps", steps, minimum=1, maximum=MAX_STEPS)
    accountant = check_choice("accountant", accountant, {"rdp", "pld"})
    rtol = check_in_range("rtol", rtol, RTOL_MIN, 1.0, high_inclusive=False)
    max_noise_multiplier = check_in_range("max_noise_multiplier", max_noise_multiplier, 0.0,
                                          MAX_NOISE_MULTIPLIER, low_inclusive=False)
    rdp_orders = check_subsampled_orders("orders", DEFAULT_ORDERS if orders is None else orders)
    interval = check_discretization_interval("value_discretization_interval",
                                             value_discretization_interval)

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
            raise ParameterError(
                f"target_epsilon={describe(target_epsilon)} is not reachable with "
                f"noise_multiplier <= max_noise_multiplier={describe(max_noise_multiplier)} "
                f"(target_delta={describe(target_delta)}, sample_rate={describe(q)}, "
                f"steps={steps}); with RDP, very small targets may need larger orders")
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
