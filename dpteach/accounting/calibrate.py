"""Calibrating the noise multiplier of DP-SGD to a target (ε, δ)."""

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
)
from ._convert import check_orders, rdp_to_epsilon
from .pld import PLDAccountant
from .rdp import DEFAULT_ORDERS, _subsampled_gaussian_rdp_cached

__all__ = ["get_noise_multiplier", "epsilon_for_noise_multiplier"]


def epsilon_for_noise_multiplier(*, noise_multiplier: float, delta: float, sample_rate: float,
                                 steps: int, accountant: str = "rdp", orders=None,
                                 value_discretization_interval: float = 1e-4) -> float:
    """ε after ``steps`` Poisson-subsampled Gaussian steps, by RDP or PLD.

    A one-call shortcut for ``RDPAccountant`` / ``PLDAccountant``:
    ``acc.step(noise_multiplier=σ, sample_rate=q, steps=T); acc.get_epsilon(δ)``.
    """
    sigma = check_positive("noise_multiplier", noise_multiplier)
    delta = check_delta("delta", delta, allow_zero=False)
    q = check_probability("sample_rate", sample_rate)
    steps = check_int("steps", steps, minimum=1)
    accountant = check_choice("accountant", accountant, {"rdp", "pld"})
    if accountant == "rdp":
        orders = check_orders(DEFAULT_ORDERS if orders is None else orders)
        rdp = steps * _subsampled_gaussian_rdp_cached(q, sigma, tuple(orders.tolist()))
        return rdp_to_epsilon(orders, rdp, delta)[0]
    acc = PLDAccountant(value_discretization_interval)
    acc.step(noise_multiplier=sigma, sample_rate=q, steps=steps)
    return acc.get_epsilon(delta)


def _rdp_reachable(target_epsilon, target_delta, q, steps, orders, max_sigma) -> bool:
    return epsilon_for_noise_multiplier(
        noise_multiplier=max_sigma, delta=target_delta, sample_rate=q, steps=steps,
        accountant="rdp", orders=orders) <= target_epsilon


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
    and is within a factor (1 + rtol) of the smallest such σ.

    Parameters
    ----------
    target_epsilon : float
        > 0.
    target_delta : float
        In (0, 1).
    sample_rate : float
        Poisson sampling rate q in (0, 1].
    steps : int
        Number of steps, ≥ 1.
    accountant : {"rdp", "pld"}
        RDP (fast, a few ms per evaluation) or PLD (tighter, ~0.3 s per
        evaluation for 15,000 steps at the default discretization).
    orders : array-like, optional
        RDP orders (default :data:`DEFAULT_ORDERS`).
    value_discretization_interval : float
        PLD grid width (PLD only).
    rtol : float, default 1e-4
        Relative width of the final bracket, in (0, 1).
    max_noise_multiplier : float, default 1e4
        Give up (ValueError) if even this σ does not meet the target — e.g.
        a target ε below what the largest RDP order can certify.

    Returns
    -------
    float
        σ with ε(σ) ≤ target_epsilon (if even σ ≈ 1e-6 meets the target, that
        σ is returned without further search).

    References
    ----------
    Abadi et al. "Deep Learning with Differential Privacy", CCS 2016 (DP-SGD);
    Mironov, Talwar, Zhang 2019 (RDP of the sampled Gaussian).
    """
    target_epsilon = check_epsilon("target_epsilon", target_epsilon)
    target_delta = check_delta("target_delta", target_delta, allow_zero=False)
    q = check_probability("sample_rate", sample_rate, open_low=True)
    steps = check_int("steps", steps, minimum=1)
    accountant = check_choice("accountant", accountant, {"rdp", "pld"})
    rtol = check_in_range("rtol", rtol, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    max_noise_multiplier = check_positive("max_noise_multiplier", max_noise_multiplier)
    if orders is not None:
        orders = check_orders(orders)

    def eps(sigma: float) -> float:
        return epsilon_for_noise_multiplier(
            noise_multiplier=sigma, delta=target_delta, sample_rate=q, steps=steps,
            accountant=accountant, orders=orders,
            value_discretization_interval=value_discretization_interval)

    if accountant == "pld":
        # PLD evaluations are slow; start from the (cheap) RDP answer, which PLD
        # usually beats by a few per cent, and bracket with small factors.
        start = get_noise_multiplier(
            target_epsilon=target_epsilon, target_delta=target_delta, sample_rate=q,
            steps=steps, accountant="rdp", orders=orders, rtol=1e-3,
            max_noise_multiplier=max_noise_multiplier) if _rdp_reachable(
                target_epsilon, target_delta, q, steps, orders, max_noise_multiplier) else 1.0
        factor = 1.1
    else:
        start, factor = 1.0, 4.0
    hi = min(start, max_noise_multiplier)
    while eps(hi) > target_epsilon:
        if hi >= max_noise_multiplier:
            raise ParameterError(
                f"target_epsilon={target_epsilon} is not reachable with noise_multiplier <= "
                f"max_noise_multiplier={max_noise_multiplier} (target_delta={target_delta}, "
                f"sample_rate={q}, steps={steps}); with RDP, very small targets may need larger "
                "orders")
        hi = min(hi * factor, max_noise_multiplier)
    lo = hi / factor
    while eps(lo) <= target_epsilon:
        if lo < 1e-6:
            # even σ = 1e-6 meets the target (e.g. q tiny and few steps): no meaningful
            # minimum; return the smallest σ found to meet it
            return lo
        hi, lo = lo, lo / factor
    # invariant: eps(lo) > target >= eps(hi), both evaluated
    while hi / lo > 1 + rtol:
        mid = math.sqrt(lo * hi)
        if eps(mid) <= target_epsilon:
            hi = mid
        else:
            lo = mid
    return hi
