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
reproduces it to discretization accuracy).

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

from .._validation import (DELTA_POSITIVE, Domain, ParameterError, array, choice, real, refuse,
                           validate)
from ..mechanisms.noise import gaussian_epsilon
from .composition import MAX_OPTIMAL_K, advanced_composition, optimal_composition_epsilon
from .convert import rdp_to_epsilon
from .pld import INTERVAL, PLDAccountant
from .rdp import DEFAULT_ORDERS, MAX_STEPS, gaussian_rdp, laplace_rdp
from .sampled_gaussian import NOISE_MULTIPLIER, subsampled_gaussian_rdp

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


def _names(*options: str) -> Domain:
    """A non-empty list or tuple of names from ``options``, returned as a tuple."""
    def convert(name: str, value):
        if isinstance(value, (list, tuple)) and value and all(
                isinstance(v, str) and v in options for v in value):
            return tuple(value)
        raise domain.refuse(name, value)

    domain = Domain("a non-empty list or tuple of names from " + ", ".join(map(repr, options)),
                    convert, example=options, edges=(options[:1], options),
                    bad=[options[0], None, [], ["moments"], [1], 3])
    return domain


#: numbers of queries k: at most 1000 of them, each up to 10⁶
KS = array(ndim=(0, 1), low=1, high=MAX_OPTIMAL_K, integers=True, max_size=MAX_POINTS,
           example=[1, 10], text="a whole number or 1-D array of whole numbers in "
           "[1, 1000000], at most 1,000 of them").flat()
#: numbers of DP-SGD steps
STEP_COUNTS = array(ndim=(0, 1), low=1, high=MAX_STEPS, integers=True, max_size=MAX_POINTS,
                    example=[10, 100], text="a whole number or 1-D array of whole numbers in "
                    "[1, 1e9], at most 1,000 of them").flat()
#: ε₀ of one Laplace query (up to 500: the advanced bound kε₀e^ε₀ stays finite)
QUERY_EPSILON = real(1e-6, 500.0, example=0.5)
#: σ of one Gaussian query (from 0.1, where one query's ε₀ at δ/(2k) is still below 500)
QUERY_SIGMA = real(0.1, 1e6, example=2.0)


@validate(ks=KS, mechanism=choice("laplace", "gaussian"), epsilon=QUERY_EPSILON.or_none(),
          sigma=QUERY_SIGMA.or_none(), delta=DELTA_POSITIVE, methods=_names(*METHODS),
          value_discretization_interval=INTERVAL)
def composition_epsilons(ks, *, mechanism: str = "laplace", epsilon: float | None = None,
                         sigma: float | None = None, delta: float = 1e-5,
                         methods=METHODS, value_discretization_interval: float = 1e-3
                         ) -> dict[str, np.ndarray]:
    """Total ε of k identical queries, for each k in ``ks``, by each method.

    Each query is the Laplace mechanism with ε₀ = ``epsilon`` (scale 1/ε₀), or the Gaussian
    with noise ``sigma`` (ℓ2 sensitivity 1); ``delta`` is the total δ; the ``ks`` sum to at
    most :data:`MAX_TOTAL_QUERIES` (10⁷). Returns method → array of total ε, one per k; see
    the module docstring for exactly what each method assumes.
    """
    ks = ks.astype(np.int64)
    if int(ks.sum()) > MAX_TOTAL_QUERIES:
        raise refuse("ks", ks, f"of sum at most {MAX_TOTAL_QUERIES:,} (not {int(ks.sum()):,})")
    orders = np.asarray(DEFAULT_ORDERS, dtype=float)
    out = {m: np.empty(ks.size) for m in methods}
    # the loops call the unchecked functions: every argument is derived from checked ones
    # (a per-query δ₀ = δ/(2k) may lie below DELTA's 1e-50)
    if mechanism == "laplace":
        if epsilon is None:
            raise refuse("epsilon", epsilon, "ε₀ of each query (a number) with mechanism='laplace'")
        eps0 = epsilon
        # scale 1/ε₀ with sensitivity 1 is scale 1 with sensitivity ε₀ (no overflow of 1/ε₀)
        lap_rdp = laplace_rdp(orders, scale=1.0, sensitivity=eps0)
        for i, k in enumerate(ks):
            k = int(k)
            if "basic" in out:
                out["basic"][i] = k * eps0
            if "advanced" in out:
                out["advanced"][i] = advanced_composition.__wrapped__(eps0, 0.0, k, delta)[0]
            if "optimal" in out:
                out["optimal"][i] = optimal_composition_epsilon.__wrapped__(eps0, 0.0, k, delta)
            if "rdp" in out:
                out["rdp"][i] = rdp_to_epsilon.__wrapped__(orders, k * lap_rdp, delta,
                                                           "improved")[0]
            if "pld" in out:
                out["pld"][i] = _laplace_pld(eps0, k, delta, value_discretization_interval)
    else:
        if sigma is None:
            raise refuse("sigma", sigma, "each query's noise (a number) with mechanism='gaussian'")
        g_rdp = gaussian_rdp(orders, sigma)
        classic = {"basic", "advanced", "optimal"} & set(methods)
        for i, k in enumerate(ks):
            k = int(k)
            d0 = delta / (2 * k)
            eps0 = gaussian_epsilon.__wrapped__(sigma, d0, 1.0) if classic else 0.0
            if "basic" in out:
                out["basic"][i] = k * eps0
            if "advanced" in out:
                out["advanced"][i] = (advanced_composition.__wrapped__(eps0, d0, k, delta / 2)[0]
                                      if eps0 > 0 else eps0)
            if "optimal" in out:
                out["optimal"][i] = (optimal_composition_epsilon.__wrapped__(eps0, d0, k, delta)
                                     if eps0 > 0 else eps0)
            if "rdp" in out:
                out["rdp"][i] = rdp_to_epsilon.__wrapped__(orders, k * g_rdp, delta,
                                                           "improved")[0]
            if "pld" in out:
                out["pld"][i] = gaussian_epsilon(sigma / math.sqrt(k), delta)
    return out


@validate(steps=STEP_COUNTS, noise_multiplier=NOISE_MULTIPLIER,
          sample_rate=real(1e-9, 1.0, example=0.01), delta=DELTA_POSITIVE,
          accountants=_names("rdp", "pld"), value_discretization_interval=INTERVAL)
def dpsgd_epsilons(steps, *, noise_multiplier: float, sample_rate: float, delta: float = 1e-5,
                   accountants=("rdp", "pld"), value_discretization_interval: float = 1e-3
                   ) -> dict[str, np.ndarray]:
    """ε after each number of DP-SGD steps in ``steps``, by RDP and/or PLD.

    Poisson-subsampled Gaussian steps (rate q, noise multiplier σ), add/remove
    neighbours; see :class:`RDPAccountant` and :class:`PLDAccountant`. The RDP
    curve of one step is computed once; PLD composes afresh for each entry of
    ``steps``. Returns accountant → array of ε, one per entry of ``steps``.
    """
    out = {}
    if "rdp" in accountants:
        orders = np.asarray(DEFAULT_ORDERS, dtype=float)
        per_step = subsampled_gaussian_rdp(orders, noise_multiplier, sample_rate)
        out["rdp"] = np.array([rdp_to_epsilon.__wrapped__(orders, t * per_step, delta,
                                                          "improved")[0] for t in steps])
    if "pld" in accountants:
        vals = []
        for t in steps:
            acc = PLDAccountant(value_discretization_interval)
            acc.step(noise_multiplier=noise_multiplier, sample_rate=sample_rate, steps=int(t))
            vals.append(acc.get_epsilon(delta))
        out["pld"] = np.array(vals)
    return out


def _laplace_pld(eps0: float, k: int, delta: float, interval: float) -> float:
    """ε of k Laplace queries of ε₀ by dp_accounting's PLD, capped at kε₀ (also a valid
    bound: dp_accounting overflows to ∞ once kε₀ is in the hundreds)."""
    acc = PLDAccountant(interval)
    try:
        acc.compose_laplace(1.0, sensitivity=eps0, count=k)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            pld = acc.get_epsilon(delta)
    except ParameterError as exc:             # leave 'pld' out of methods
        raise refuse("methods", "pld", f"without 'pld' here (the PLD fails: {exc})") from exc
    # k ε₀-DP mechanisms are (kε₀, 0)-DP: both are valid bounds, report the smaller
    return min(pld, k * eps0)


# Implementation notes: docs/library/accounting.md (accounting.compare).
