"""Side-by-side accounting: total ε of k queries (or T DP-SGD steps) by each method.

Used by the composition notebook, its plots and the app pages, so that they
all show the same numbers.

For **k Laplace queries** (sensitivity 1, each ε₀-DP, i.e. scale 1/ε₀) at a
total δ:

* ``basic``: kε₀ ([DR14]_ Thm 3.16; the total δ is 0);
* ``advanced``: √(2k ln(1/δ)) ε₀ + kε₀(e^{ε₀} − 1) ([DR14]_ Thm 3.20, δ' = δ);
* ``optimal``: the exact KOV bound for k ε₀-DP mechanisms ([KOV15]_ Thm 3.3) —
  optimal over *all* ε₀-DP mechanisms, so a method that knows the mechanism
  is Laplace may beat it;
* ``rdp``: k × the Laplace RDP curve ([M17]_ Prop. 6), converted at the best order;
* ``pld``: dp_accounting's PLD of the Laplace mechanism composed k times
  (capped at kε₀, also a valid bound: dp_accounting overflows to ∞ once kε₀
  is in the hundreds).

For **k Gaussian queries** (ℓ2 sensitivity 1, noise σ): the classic theorems
need a per-query (ε₀, δ₀). We give half of the δ budget to the queries,
δ₀ = δ/(2k), and half to the theorem's slack δ' = δ/2, and take ε₀ exact
(the Balle–Wang ε of one Gaussian at δ₀). Then ``basic`` = kε₀ (total δ/2 ≤ δ),
``advanced`` uses δ₀ and δ' (total δ), ``optimal`` is KOV at total δ,
``rdp`` = k·α/(2σ²) converted at δ, and ``pld`` is exact: k Gaussians with σ
are one Gaussian with σ/√k, whose exact ε is Balle–Wang's (the PLD accountant
reproduces it to discretization accuracy; tests check that).

References
----------
.. [DR14] Dwork & Roth 2014, Thm 3.16, 3.20. .. [KOV15] Kairouz, Oh, Viswanath
   2015, Thm 3.3. .. [M17] Mironov 2017, Prop. 6. .. [BW18] Balle & Wang 2018, Thm 8.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import optimize

from .._validation import (
    ParameterError,
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_positive,
    check_probability,
)
from ..composition import advanced_composition, optimal_composition_epsilon
from ..mechanisms import gaussian_delta
from ._convert import rdp_to_epsilon
from .pld import PLDAccountant
from .rdp import DEFAULT_ORDERS, _subsampled_gaussian_rdp_cached, gaussian_rdp, laplace_rdp

__all__ = ["METHODS", "METHOD_LABELS", "gaussian_epsilon", "composition_epsilons", "dpsgd_epsilons"]

METHODS = ("basic", "advanced", "optimal", "rdp", "pld")
METHOD_LABELS = {
    "basic": "basic (ε's add)",
    "advanced": "advanced (DRV10)",
    "optimal": "optimal (KOV15)",
    "rdp": "Rényi DP",
    "pld": "PLD",
}


def gaussian_epsilon(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """Exact ε of the Gaussian mechanism at δ: the root of Balle–Wang's δ(ε) ([BW18]_ Thm 8).

    δ(ε) decreases in ε, so the root is unique; returns 0 if already δ(0) ≤ δ.
    The root is bracketed and refined to 1e-13 relative, then nudged up so
    that δ(ε) ≤ δ holds exactly as computed.
    """
    sigma = check_positive("sigma", sigma)
    delta = check_delta("delta", delta, allow_zero=False)
    sensitivity = check_positive("sensitivity", sensitivity)
    if gaussian_delta(sigma, sensitivity, 0.0) <= delta:
        return 0.0
    hi = 1.0
    while gaussian_delta(sigma, sensitivity, hi) > delta:
        hi *= 2
    eps = optimize.brentq(lambda e: gaussian_delta(sigma, sensitivity, e) - delta, 0.0, hi,
                          xtol=1e-15, rtol=1e-13)
    while gaussian_delta(sigma, sensitivity, eps) > delta:
        eps = np.nextafter(eps, math.inf) * (1 + 1e-14)
    return float(eps)


def _check_ks(ks, name: str = "ks") -> np.ndarray:
    arr = check_array(name, ks, ndim=(0, 1)).reshape(-1)
    if np.any(arr < 1) or np.any(arr != np.round(arr)):
        raise ParameterError(f"{name} must be integers >= 1; got {name}={arr!r}")
    return arr.astype(int)


def composition_epsilons(ks, *, mechanism: str = "laplace", epsilon: float | None = None,
                         sigma: float | None = None, delta: float = 1e-5,
                         methods=METHODS, value_discretization_interval: float = 1e-3
                         ) -> dict[str, np.ndarray]:
    """Total ε of k identical queries, for each k in ``ks``, by each method.

    Parameters
    ----------
    ks : int or array-like of int
        Numbers of queries, each ≥ 1.
    mechanism : {"laplace", "gaussian"}
    epsilon : float
        Per-query ε₀ of the Laplace mechanism (scale 1/ε₀); Laplace only.
    sigma : float
        Noise σ of the Gaussian mechanism (ℓ2 sensitivity 1); Gaussian only.
    delta : float
        Total δ in (0, 1).
    methods : iterable of str
        A subset of :data:`METHODS`.
    value_discretization_interval : float
        PLD grid width (Laplace PLD only).

    Returns
    -------
    dict
        method → array of total ε, one per k. See the module docstring for
        exactly what each method assumes.
    """
    ks = _check_ks(ks)
    mechanism = check_choice("mechanism", mechanism, {"laplace", "gaussian"})
    delta = check_delta("delta", delta, allow_zero=False)
    methods = tuple(methods)
    for m in methods:
        check_choice("methods", m, set(METHODS))
    orders = np.asarray(DEFAULT_ORDERS, dtype=float)
    out = {m: np.empty(ks.size) for m in methods}
    if mechanism == "laplace":
        if epsilon is None:
            raise ParameterError("epsilon (the per-query ε of the Laplace mechanism) is required "
                                 "for mechanism='laplace'; got epsilon=None")
        eps0 = check_epsilon("epsilon", epsilon)
        lap_rdp = laplace_rdp(orders, scale=1 / eps0)
        for i, k in enumerate(ks):
            k = int(k)
            if "basic" in out:
                out["basic"][i] = k * eps0
            if "advanced" in out:
                out["advanced"][i] = advanced_composition(eps0, 0.0, k, delta)[0]
            if "optimal" in out:
                out["optimal"][i] = optimal_composition_epsilon(eps0, 0.0, k, delta)
            if "rdp" in out:
                out["rdp"][i] = rdp_to_epsilon(orders, k * lap_rdp, delta)[0]
            if "pld" in out:
                acc = PLDAccountant(value_discretization_interval)
                acc.compose_laplace(1 / eps0, count=k)
                with warnings.catch_warnings():
                    # dp_accounting overflows (→ inf, with a warning) when kε₀ is in the hundreds
                    warnings.simplefilter("ignore", RuntimeWarning)
                    pld = acc.get_epsilon(delta)
                # k ε₀-DP mechanisms are (kε₀, 0)-DP: both are valid bounds, report the smaller
                out["pld"][i] = min(pld, k * eps0)
    else:
        if sigma is None:
            raise ParameterError("sigma (the noise of the Gaussian mechanism) is required for "
                                 "mechanism='gaussian'; got sigma=None")
        sigma = check_positive("sigma", sigma)
        g_rdp = gaussian_rdp(orders, sigma)
        for i, k in enumerate(ks):
            k = int(k)
            d0 = delta / (2 * k)
            classic = {"basic", "advanced", "optimal"} & set(methods)
            eps0 = gaussian_epsilon(sigma, d0) if classic else 0.0
            if "basic" in out:
                out["basic"][i] = k * eps0
            if "advanced" in out:
                out["advanced"][i] = (advanced_composition(eps0, d0, k, delta / 2)[0]
                                      if eps0 > 0 else 0.0)
            if "optimal" in out:
                out["optimal"][i] = (optimal_composition_epsilon(eps0, d0, k, delta)
                                     if eps0 > 0 else 0.0)
            if "rdp" in out:
                out["rdp"][i] = rdp_to_epsilon(orders, k * g_rdp, delta)[0]
            if "pld" in out:
                out["pld"][i] = gaussian_epsilon(sigma / math.sqrt(k), delta)
    return out


def dpsgd_epsilons(steps, *, noise_multiplier: float, sample_rate: float, delta: float = 1e-5,
                   accountants=("rdp", "pld"), value_discretization_interval: float = 1e-3
                   ) -> dict[str, np.ndarray]:
    """ε after each number of DP-SGD steps in ``steps``, by RDP and/or PLD.

    Poisson-subsampled Gaussian steps (rate q, noise multiplier σ), add/remove
    neighbours; see :class:`RDPAccountant` and :class:`PLDAccountant`. The RDP
    curve of one step is computed once; PLD composes afresh for each entry of
    ``steps`` (≈ 35 ms for 15,000 steps at the default grid of 1e-3).
    """
    steps = _check_ks(steps, "steps")
    sigma = check_positive("noise_multiplier", noise_multiplier)
    q = check_probability("sample_rate", sample_rate, open_low=True)
    delta = check_delta("delta", delta, allow_zero=False)
    accountants = tuple(accountants)
    for a in accountants:
        check_choice("accountants", a, {"rdp", "pld"})
    out = {}
    if "rdp" in accountants:
        orders = np.asarray(DEFAULT_ORDERS, dtype=float)
        per_step = _subsampled_gaussian_rdp_cached(q, sigma, tuple(DEFAULT_ORDERS))
        out["rdp"] = np.array([rdp_to_epsilon(orders, t * per_step, delta)[0] for t in steps])
    if "pld" in accountants:
        vals = []
        for t in steps:
            acc = PLDAccountant(value_discretization_interval)
            acc.step(noise_multiplier=sigma, sample_rate=q, steps=int(t))
            vals.append(acc.get_epsilon(delta))
        out["pld"] = np.array(vals)
    return out
