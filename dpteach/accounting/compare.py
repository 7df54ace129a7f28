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
.. [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy."
   FnT-TCS 9(3-4), 2014, Thm 3.16, 3.20.
.. [KOV15] P. Kairouz, S. Oh, P. Viswanath. "The Composition Theorem for Differential
   Privacy." ICML 2015, Thm 3.3.
.. [M17] I. Mironov. "Rényi Differential Privacy." CSF 2017, Prop. 6.
.. [BW18] B. Balle, Y.-X. Wang. "Improving the Gaussian Mechanism for Differential Privacy:
   Analytical Calibration and Optimal Denoising." ICML 2018, Thm 8.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._validation import (
    ParameterError,
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_positive,
    check_probability,
    describe,
)
from .composition import MAX_OPTIMAL_K, advanced_composition, optimal_composition_epsilon
from ..mechanisms.noise import gaussian_epsilon
from .convert import rdp_to_epsilon
from .pld import PLDAccountant, check_discretization_interval
from .rdp import DEFAULT_ORDERS, MAX_STEPS, gaussian_rdp, laplace_rdp
from .sampled_gaussian import subsampled_gaussian_rdp

__all__ = ["METHODS", "METHOD_LABELS", "MAX_POINTS", "MAX_TOTAL_QUERIES", 
           "composition_epsilons", "dpsgd_epsilons"]

METHODS = ("basic", "advanced", "optimal", "rdp", "pld")
#: Each method's name in words, for legends, titles and the app's metrics (no citation
#: keys: the sources are in the module docstring).
METHOD_LABELS = {
    "basic": "basic (ε's add)",
    "advanced": "advanced (Dwork–Rothblum–Vadhan bound)",
    "optimal": "optimal (Kairouz–Oh–Viswanath bound)",
    "rdp": "Rényi DP",
    "pld": "privacy loss distribution (PLD)",
}

#: Largest number of entries of ``ks`` / ``steps`` (points of a curve).
MAX_POINTS = 1_000
#: Largest Σ k over ``ks`` in :func:`composition_epsilons` (the exact KOV bound costs O(k)).
MAX_TOTAL_QUERIES = 10**7

_FLOAT_MAX = np.finfo(float).max


def _check_counts(name: str, values, maximum: int, max_total: int | None = None) -> np.ndarray:
    """1 to MAX_POINTS integers in [1, maximum] (and summing to at most max_total)."""
    arr = check_array(name, values, ndim=(0, 1), allow_bool=False).reshape(-1)
    if arr.size > MAX_POINTS:
        raise ParameterError(f"{name} must have at most {MAX_POINTS} entries; got {name} with "
                             f"{arr.size} entries")
    if np.any(arr < 1) or np.any(arr > maximum) or np.any(arr != np.round(arr)):
        raise ParameterError(f"{name} must be integers in [1, {maximum}]; got "
                             f"{name}={describe(arr)}")
    out = arr.astype(np.int64)
    if max_total is not None and int(out.sum()) > max_total:
        raise ParameterError(f"{name} must sum to at most {max_total}; got a total of "
                             f"{int(out.sum())} in {name}")
    return out


def composition_epsilons(ks, *, mechanism: str = "laplace", epsilon: float | None = None,
                         sigma: float | None = None, delta: float = 1e-5,
                         methods=METHODS, value_discretization_interval: float = 1e-3
                         ) -> dict[str, np.ndarray]:
    """Total ε of k identical queries, for each k in ``ks``, by each method.

    Parameters
    ----------
    ks : int or array-like of int
        Numbers of queries: at most :data:`MAX_POINTS` (1000) entries, each in
        [1, 10⁶] (:data:`~dpteach.accounting.composition.MAX_OPTIMAL_K`), summing to at
        most :data:`MAX_TOTAL_QUERIES` (10⁷).
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
        PLD grid width in [1e-6, 1] (Laplace PLD only, but always checked).

    Returns
    -------
    dict
        method → array of total ε, one per k. See the module docstring for
        exactly what each method assumes. ``inf`` where a total exceeds the
        float range.
    """
    ks = _check_counts("ks", ks, MAX_OPTIMAL_K, MAX_TOTAL_QUERIES)
    mechanism = check_choice("mechanism", mechanism, {"laplace", "gaussian"})
    delta = check_delta("delta", delta, allow_zero=False)
    if methods is None or isinstance(methods, (str, bytes)) or not hasattr(methods, "__iter__"):
        raise TypeError(f"methods must be a sequence of method names; got "
                        f"methods={describe(methods)}")
    methods = tuple(methods)
    for m in methods:
        check_choice("methods", m, set(METHODS))
    interval = check_discretization_interval("value_discretization_interval",
                                             value_discretization_interval)
    if epsilon is not None:
        epsilon = check_epsilon("epsilon", epsilon)
    if sigma is not None:
        sigma = check_positive("sigma", sigma)
    orders = np.asarray(DEFAULT_ORDERS, dtype=float)
    out = {m: np.empty(ks.size) for m in methods}
    if mechanism == "laplace":
        if epsilon is None:
            raise ParameterError("epsilon (the per-query ε of the Laplace mechanism) is required "
                                 "for mechanism='laplace'; got epsilon=None")
        eps0 = epsilon
        # scale 1/ε₀ with sensitivity 1 is scale 1 with sensitivity ε₀ (no overflow of 1/ε₀)
        lap_rdp = laplace_rdp(orders, scale=1.0, sensitivity=eps0)
        for i, k in enumerate(ks):
            k = int(k)
            if "basic" in out:
                out["basic"][i] = k * eps0
            if "advanced" in out:
                out["advanced"][i] = advanced_composition(eps0, 0.0, k, delta)[0]
            if "optimal" in out:
                out["optimal"][i] = optimal_composition_epsilon(eps0, 0.0, k, delta)
            if "rdp" in out:
                with np.errstate(over="ignore"):
                    out["rdp"][i] = rdp_to_epsilon(orders, k * lap_rdp, delta)[0]
            if "pld" in out:
                acc = PLDAccountant(interval)
                try:
                    acc.compose_laplace(1.0, sensitivity=eps0, count=k)
                    with warnings.catch_warnings():
                        # dp_accounting overflows (→ inf, with a warning) for kε₀ in the hundreds
                        warnings.simplefilter("ignore", RuntimeWarning)
                        pld = acc.get_epsilon(delta)
                except ParameterError as exc:
                    raise ParameterError(
                        f"the PLD of k={k} Laplace queries cannot be computed for "
                        f"epsilon={describe(eps0)}, ks and value_discretization_interval="
                        f"{describe(interval)} (leave 'pld' out of methods): {exc}") from exc
                # k ε₀-DP mechanisms are (kε₀, 0)-DP: both are valid bounds, report the smaller
                out["pld"][i] = min(pld, k * eps0)
    else:
        if sigma is None:
            raise ParameterError("sigma (the noise of the Gaussian mechanism) is required for "
                                 "mechanism='gaussian'; got sigma=None")
        g_rdp = gaussian_rdp(orders, sigma)
        for i, k in enumerate(ks):
            k = int(k)
            d0 = delta / (2 * k)
            classic = {"basic", "advanced", "optimal"} & set(methods)
            if classic and d0 == 0:
                raise ParameterError(f"delta/(2k) underflows to 0 for delta={describe(delta)} and "
                                     f"k={k} in ks: the classic theorems need a per-query δ > 0")
            eps0 = gaussian_epsilon(sigma, d0) if classic else 0.0
            if "basic" in out:
                out["basic"][i] = k * eps0
            if "advanced" in out:
                out["advanced"][i] = (advanced_composition(eps0, d0, k, delta / 2)[0]
                                      if 0 < eps0 < math.inf else eps0)
            if "optimal" in out:
                out["optimal"][i] = (optimal_composition_epsilon(eps0, d0, k, delta)
                                     if 0 < eps0 < math.inf else eps0)
            if "rdp" in out:
                with np.errstate(over="ignore"):
                    out["rdp"][i] = rdp_to_epsilon(orders, k * g_rdp, delta)[0]
            if "pld" in out:
                sigma_k = sigma / math.sqrt(k)           # underflows to 0 only for subnormal σ
                out["pld"][i] = gaussian_epsilon(sigma_k, delta) if sigma_k > 0 else math.inf
    return out


def dpsgd_epsilons(steps, *, noise_multiplier: float, sample_rate: float, delta: float = 1e-5,
                   accountants=("rdp", "pld"), value_discretization_interval: float = 1e-3
                   ) -> dict[str, np.ndarray]:
    """ε after each number of DP-SGD steps in ``steps``, by RDP and/or PLD.

    Poisson-subsampled Gaussian steps (rate q, noise multiplier σ), add/remove
    neighbours; see :class:`RDPAccountant` and :class:`PLDAccountant`. The RDP
    curve of one step is computed once; PLD composes afresh for each entry of
    ``steps`` (≈ 35 ms for 15,000 steps at the default grid of 1e-3).

    Parameters
    ----------
    steps : int or array-like of int
        At most :data:`MAX_POINTS` (1000) entries, each in
        [1, :data:`~dpteach.accounting.rdp.MAX_STEPS`] (10⁹).
    noise_multiplier : float
        σ > 0.
    sample_rate : float
        q in (0, 1].
    delta : float
        In (0, 1).
    accountants : iterable of {"rdp", "pld"}
    value_discretization_interval : float
        PLD grid width in [1e-6, 1] (always checked).

    Returns
    -------
    dict
        accountant → array of ε, one per entry of ``steps``.
    """
    steps = _check_counts("steps", steps, MAX_STEPS)
    sigma = check_positive("noise_multiplier", noise_multiplier)
    q = check_probability("sample_rate", sample_rate, open_low=True)
    delta = check_delta("delta", delta, allow_zero=False)
    if accountants is None or isinstance(accountants, (str, bytes)) or not hasattr(
            accountants, "__iter__"):
        raise TypeError(f"accountants must be a sequence of accountant names; got "
                        f"accountants={describe(accountants)}")
    accountants = tuple(accountants)
    for a in accountants:
        check_choice("accountants", a, {"rdp", "pld"})
    interval = check_discretization_interval("value_discretization_interval",
                                             value_discretization_interval)
    out = {}
    if "rdp" in accountants:
        orders = np.asarray(DEFAULT_ORDERS, dtype=float)
        per_step = subsampled_gaussian_rdp(orders, sigma, q)
        with np.errstate(over="ignore"):
            out["rdp"] = np.array([rdp_to_epsilon(orders, t * per_step, delta)[0] for t in steps])
    if "pld" in accountants:
        vals = []
        for t in steps:
            acc = PLDAccountant(interval)
            acc.step(noise_multiplier=sigma, sample_rate=q, steps=int(t))
            vals.append(acc.get_epsilon(delta))
        out["pld"] = np.array(vals)
    return out
