"""RDP curves and their conversion to (ε, δ)-DP.

This module owns the notion of an *RDP curve*: a set of Rényi orders α > 1
(:func:`check_orders`) with one RDP value r(α) ≥ 0 per order (:func:`check_rdp`),
as every accountant and curve in :mod:`dpteach.accounting` produces and consumes
them, and the conversions of such a curve to an (ε, δ) guarantee.

All conversions are pure: they take RDP values and return (ε, δ) guarantees.
Every conversion returns an *upper bound* on the ε (or δ) that holds for any
mechanism with the given RDP curve; none of them is specific to a mechanism.

References
----------
.. [M17] I. Mironov. "Rényi Differential Privacy." CSF 2017, Prop. 3.
.. [BBGHS20] B. Balle, G. Barthe, M. Gaboardi, J. Hsu, T. Sato. "Hypothesis
   testing interpretations and Rényi differential privacy." AISTATS 2020, Thm 21
   (numbering of arXiv:1905.09982).
.. [CKS20] C. Canonne, G. Kamath, T. Steinke. "The Discrete Gaussian for
   Differential Privacy." NeurIPS 2020, Prop. 12 and Cor. 13 (numbering of arXiv:2004.00010v4).
.. [vEH14] T. van Erven, P. Harremoës. "Rényi divergence and Kullback-Leibler
   divergence." IEEE Trans. Inf. Theory 60(7), 2014, Thm 3.
.. [BH79] J. Bretagnolle, C. Huber. "Estimation des densités: risque minimax."
   Z. Wahrscheinlichkeitstheorie verw. Gebiete 47, 1979 (TV ≤ √(1 − e^{−KL})).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import (
    ParameterError,
    check_array,
    check_choice,
    check_delta,
    check_in_range,
    describe,
)

__all__ = ["MAX_ORDERS", "check_orders", "check_rdp", "rdp_to_epsilon", "rdp_to_delta"]

_CONVERSIONS = {"improved", "classic"}

#: Largest number of Rényi orders one curve may have.
MAX_ORDERS = 100_000


def check_orders(name: str, orders) -> np.ndarray:
    """Validate Rényi orders: a number or 1-d array of 1 to :data:`MAX_ORDERS` finite numbers > 1.

    Returns them as a 1-d float array; raises ParameterError/TypeError naming ``name``.
    """
    arr = check_array(name, orders, ndim=(0, 1), allow_bool=False).reshape(-1)
    if arr.size > MAX_ORDERS:
        raise ParameterError(f"{name} must have at most {MAX_ORDERS} orders; got {name} with "
                             f"{arr.size} orders")
    if np.any(arr <= 1):
        bad = arr[arr <= 1][0]
        raise ParameterError(f"{name} must all be finite numbers > 1; got an order {bad!r} "
                             f"in {name}")
    return arr


def check_rdp(name: str, rdp, orders: np.ndarray) -> np.ndarray:
    """Validate an RDP curve: one value r(α) ≥ 0 (``inf`` allowed) per order of ``orders``.

    ``orders`` must already be validated (:func:`check_orders`). Returns a 1-d
    float array; raises ParameterError/TypeError naming ``name``.
    """
    arr = check_array(name, rdp, ndim=(0, 1), finite=False, allow_bool=False).reshape(-1)
    if np.any(np.isnan(arr)) or np.any(arr < 0):
        raise ParameterError(f"{name} must contain numbers >= 0 (inf allowed); got "
                             f"{name}={describe(arr)}")
    if arr.shape != orders.shape:
        raise ParameterError(f"{name} must have one value per order: got {arr.size} values "
                             f"for {orders.size} orders")
    return arr


def _epsilons(orders: np.ndarray, rdp: np.ndarray, delta: float, conversion: str) -> np.ndarray:
    """ε at each order (before taking the minimum); inf where the RDP is inf."""
    log_delta = math.log(delta)
    with np.errstate(invalid="ignore", over="ignore"):
        if conversion == "classic":
            eps = rdp - log_delta / (orders - 1)
        else:
            eps = rdp + np.log1p(-1.0 / orders) - (log_delta + np.log(orders)) / (orders - 1)
    # Small divergence: (0, δ)-DP already. r(α) ≥ KL (Rényi divergences increase
    # with the order, [vEH14]_ Thm 3) and TV ≤ √(1 − e^{−KL}) ([BH79]_), and an
    # (0, δ) guarantee is exactly TV ≤ δ.
    eps = np.where(-np.expm1(-rdp) <= delta**2, 0.0, eps)
    return np.where(np.isinf(rdp), np.inf, eps)


def rdp_to_epsilon(orders, rdp, delta: float, conversion: str = "improved") -> tuple[float, float]:
    """Smallest ε over the given orders such that RDP implies (ε, δ)-DP.

    A mechanism that is (α, r(α))-RDP for every order α in ``orders`` is
    (ε, δ)-DP with ε = min over α of

    * ``"classic"`` ([M17]_, Prop. 3): ``ε(α) = r(α) + ln(1/δ)/(α − 1)``;
    * ``"improved"`` ([BBGHS20]_, Thm 21; [CKS20]_, Prop. 12):
      ``ε(α) = r(α) + ln((α − 1)/α) − (ln δ + ln α)/(α − 1)``, which is never
      larger than the classic bound (its extra terms are negative for α > 1).

    Parameters
    ----------
    orders : array-like of float
        Rényi orders α > 1 (at most :data:`MAX_ORDERS`).
    rdp : array-like of float
        The RDP ε-value r(α) at each order, ≥ 0 (``inf`` allowed).
    delta : float
        In (0, 1).
    conversion : {"improved", "classic"}

    At every order we also use that a tiny divergence already gives (0, δ)-DP:
    ε(α) = 0 when 1 − e^{−r(α)} ≤ δ² ([BH79]_, [vEH14]_), as dp_accounting does.

    Returns
    -------
    (epsilon, order) : tuple of float
        The best ε (clipped below at 0: an (ε<0, δ) guarantee is a (0, δ) one)
        and the order that achieves it. ε is ``inf`` if every order has infinite RDP.
    """
    orders = check_orders("orders", orders)
    rdp = check_rdp("rdp", rdp, orders)
    delta = check_delta("delta", delta, allow_zero=False)
    conversion = check_choice("conversion", conversion, _CONVERSIONS)
    eps = _epsilons(orders, rdp, delta, conversion)
    i = int(np.argmin(eps))
    return max(float(eps[i]), 0.0), float(orders[i])


def rdp_to_delta(orders, rdp, epsilon: float, conversion: str = "improved") -> tuple[float, float]:
    """Smallest δ over the given orders such that RDP implies (ε, δ)-DP.

    The inverse of :func:`rdp_to_epsilon` at each order: ``"classic"``
    ``δ(α) = exp((α − 1)(r(α) − ε))`` ([M17]_, Prop. 3); ``"improved"``
    ``δ(α) = exp((α − 1)(r(α) − ε + ln(1 − 1/α)) − ln α)`` ([CKS20]_, Prop. 12).

    Parameters
    ----------
    orders, rdp : array-like of float
        As in :func:`rdp_to_epsilon`.
    epsilon : float
        ε ≥ 0.
    conversion : {"improved", "classic"}

    Returns
    -------
    (delta, order) : tuple of float
        δ is capped at 1 (a trivial guarantee).
    """
    orders = check_orders("orders", orders)
    rdp = check_rdp("rdp", rdp, orders)
    epsilon = check_in_range("epsilon", epsilon, 0.0, np.inf, high_inclusive=False)
    conversion = check_choice("conversion", conversion, _CONVERSIONS)
    with np.errstate(invalid="ignore", over="ignore"):
        if conversion == "classic":
            log_delta = (orders - 1) * (rdp - epsilon)
        else:
            log_delta = (orders - 1) * (rdp - epsilon + np.log1p(-1.0 / orders)) - np.log(orders)
    # TV ≤ √(1 − e^{−KL}) ≤ √(1 − e^{−r(α)}) also bounds δ at every ε ≥ 0 ([BH79]_).
    with np.errstate(divide="ignore"):
        log_delta = np.minimum(log_delta, 0.5 * np.log(-np.expm1(-rdp)))
    log_delta = np.where(np.isinf(rdp), np.inf, log_delta)
    i = int(np.argmin(log_delta))
    return min(math.exp(min(log_delta[i], 0.0)), 1.0), float(orders[i])
