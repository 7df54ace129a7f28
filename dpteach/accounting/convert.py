"""RDP curves and their conversion to (ε, δ)-DP.

An *RDP curve* is a set of Rényi orders α > 1 with one RDP value r(α) ≥ 0 per order: what
every accountant and curve in :mod:`dpteach.accounting` produces and consumes. A mechanism
that is (α, r(α))-RDP at every order is (ε, δ)-DP for every δ > 0, with ε the best over
the orders of a conversion formula; :func:`rdp_to_epsilon` and :func:`rdp_to_delta` apply
the classic one ([M17]_) and the improved one ([BBGHS20]_, [CKS20]_).

The conversions are pure: they take RDP values and return an *upper bound* on the ε (or δ)
that holds for any mechanism with the given curve; none of them is specific to a mechanism.

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
import numbers

import numpy as np

from .._validation import DELTA_POSITIVE, EPSILON_OR_ZERO, Domain, array, choice, refuse, validate

__all__ = ["MAX_ORDERS", "ORDERS", "RDP_VALUES", "CONVERSION", "check_orders",
           "rdp_to_epsilon", "rdp_to_delta"]

#: Largest number of Rényi orders one curve may have.
MAX_ORDERS = 100_000


#: Rényi orders α > 1, from the double just above 1 (where RDP tends to the KL divergence;
#: PATE's analysis is accurate there) to 10⁹ (where it tends to the pure-DP ε)
ORDERS = array(ndim=(0, 1), low=math.nextafter(1.0, 2.0), high=1e9, max_size=MAX_ORDERS,
               example=[2.0, 8.0], text="a number or 1-D array of Rényi orders α in (1, 1e9], "
               "at most 100,000 of them").flat()
_RDP_TEXT = ("a number or 1-D array of RDP values r(α) ≥ 0 (inf: no bound at that order), "
             "one per order")
_FINITE_RDP = array(ndim=(0, 1), low=0.0, max_size=MAX_ORDERS, text=_RDP_TEXT)


#: RDP values r(α) ≥ 0, one per order; +inf says "no bound at this order" (the PATE curves
#: reach it at extreme noise), and the conversions then use the other orders
RDP_VALUES = Domain(_RDP_TEXT, lambda name, value: _rdp_values(name, value), example=[0.1, 0.5],
                    edges=([0.0], [1e300]),
                    bad=["abc", None, [[1.0, 2.0], [3.0]], [math.nan], [-math.inf], [True],
                         [1j], [-1.0], []])
CONVERSION = choice("improved", "classic")
#: :func:`check_orders` ``(name, orders)``: the orders as a 1-D array, or ParameterError
#: naming ``name`` (the modules of PATE check their orders with it)
check_orders = ORDERS


@validate(orders=ORDERS, rdp=RDP_VALUES, delta=DELTA_POSITIVE, conversion=CONVERSION)
def rdp_to_epsilon(orders, rdp, delta: float, conversion: str = "improved") -> tuple[float, float]:
    """Smallest ε over the given orders such that RDP implies (ε, δ)-DP.

    A mechanism that is (α, r(α))-RDP for every order α in ``orders`` is
    (ε, δ)-DP with ε = min over α of

    * ``"classic"`` ([M17]_, Prop. 3): ``ε(α) = r(α) + ln(1/δ)/(α − 1)``;
    * ``"improved"`` ([BBGHS20]_, Thm 21; [CKS20]_, Prop. 12):
      ``ε(α) = r(α) + ln((α − 1)/α) − (ln δ + ln α)/(α − 1)``, which is never
      larger than the classic bound (its extra terms are negative for α > 1).

    At every order we also use that a tiny divergence already gives (0, δ)-DP:
    ε(α) = 0 when 1 − e^{−r(α)} ≤ δ² ([BH79]_, [vEH14]_), as dp_accounting does.

    Returns ``(epsilon, order)``: the best ε (clipped below at 0: an (ε<0, δ) guarantee is
    a (0, δ) one) and the order that achieves it; ε is inf only if r(α) is inf at every
    order.
    """
    _one_per_order(orders, rdp)
    eps = _epsilons(orders, rdp, delta, conversion)
    i = int(np.argmin(eps))
    return max(float(eps[i]), 0.0), float(orders[i])


@validate(orders=ORDERS, rdp=RDP_VALUES, epsilon=EPSILON_OR_ZERO, conversion=CONVERSION)
def rdp_to_delta(orders, rdp, epsilon: float, conversion: str = "improved") -> tuple[float, float]:
    """Smallest δ over the given orders such that RDP implies (ε, δ)-DP.

    The inverse of :func:`rdp_to_epsilon` at each order: ``"classic"``
    ``δ(α) = exp((α − 1)(r(α) − ε))`` ([M17]_, Prop. 3); ``"improved"``
    ``δ(α) = exp((α − 1)(r(α) − ε + ln(1 − 1/α)) − ln α)`` ([CKS20]_, Prop. 12).
    At every order δ is also at most √(1 − e^{−r(α)}), which bounds the total-variation
    distance ([BH79]_). Returns ``(delta, order)``, δ capped at 1 (a trivial guarantee).
    """
    _one_per_order(orders, rdp)
    with np.errstate(over="ignore"):             # (α − 1)·r(α) beyond 1e308: δ(α) = 1
        if conversion == "classic":
            log_delta = (orders - 1) * (rdp - epsilon)
        else:
            log_delta = (orders - 1) * (rdp - epsilon + np.log1p(-1.0 / orders)) - np.log(orders)
    with np.errstate(divide="ignore"):            # r(α) = 0: ln 0 = −inf, δ = 0 there
        log_delta = np.minimum(log_delta, 0.5 * np.log(-np.expm1(-rdp)))
    i = int(np.argmin(log_delta))
    return min(math.exp(min(log_delta[i], 0.0)), 1.0), float(orders[i])


def _posinf(value):
    """The mask of +inf entries of a number, a float array or a list of numbers; None if
    there are none (everything else goes to the finite domain, which refuses infinities)."""
    if isinstance(value, float) or (isinstance(value, np.ndarray) and value.dtype.kind == "f"):
        mask = np.isposinf(value)
    elif isinstance(value, (list, tuple)) and value and all(
            isinstance(v, float) or (isinstance(v, numbers.Real) and not isinstance(
                v, (bool, np.bool_)) and abs(v) < 1e300) for v in value):
        mask = np.isposinf(np.array(value, dtype=float))
    else:
        return None
    return mask if mask.any() else None


def _one_per_order(orders: np.ndarray, rdp: np.ndarray) -> None:
    if rdp.shape != orders.shape:
        raise refuse("rdp.shape", rdp.shape, f"{orders.shape}, one value per order")


def _epsilons(orders: np.ndarray, rdp: np.ndarray, delta: float, conversion: str) -> np.ndarray:
    """ε at each order (before taking the minimum)."""
    log_delta = math.log(delta)
    if conversion == "classic":
        eps = rdp - log_delta / (orders - 1)
    else:
        eps = rdp + np.log1p(-1.0 / orders) - (log_delta + np.log(orders)) / (orders - 1)
    # Small divergence: (0, δ)-DP already. r(α) ≥ KL (Rényi divergences increase
    # with the order, [vEH14]_ Thm 3) and TV ≤ √(1 − e^{−KL}) ([BH79]_), and an
    # (0, δ) guarantee is exactly TV ≤ δ.
    return np.where(-np.expm1(-rdp) <= delta**2, 0.0, eps)


def _rdp_values(name: str, value) -> np.ndarray:
    inf = _posinf(value)
    if inf is None:
        return _FINITE_RDP(name, value).reshape(-1)
    finite = _FINITE_RDP(name, np.where(inf, 0.0, value)).reshape(-1)
    return np.where(inf.reshape(-1), np.inf, finite)


# Implementation notes: docs/library/accounting.md (accounting.convert).
