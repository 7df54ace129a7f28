"""Zero-concentrated differential privacy (zCDP).

A mechanism is ρ-zCDP if its Rényi divergence of every order α > 1 is at
most ρα ([BS16]_, Def. 1.1): a linear RDP curve. zCDP composes by adding the
ρ's ([BS16]_, Lemma 1.7), so k Gaussian queries cost kρ.
:func:`zcdp_to_epsilon` converts a ρ to (ε, δ)-DP; :func:`rho_for_epsilon`
inverts it: the budget ρ that a target (ε, δ) allows, to be shared among
the queries. The neighbouring relation is the mechanisms' own (any two inputs whose
query values differ by at most the sensitivity).

References
----------
.. [BS16] M. Bun, T. Steinke. "Concentrated Differential Privacy:
   Simplifications, Extensions, and Lower Bounds." TCC 2016: Prop. 1.3
   (zCDP ⇒ (ε, δ)-DP), Prop. 1.4 (pure DP ⇒ zCDP), Prop. 1.6 (Gaussian).
.. [CKS20] C. Canonne, G. Kamath, T. Steinke. "The Discrete Gaussian for
   Differential Privacy." NeurIPS 2020, Cor. 13 (numbering of arXiv:2004.00010v4).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from .._validation import DELTA_POSITIVE, SCALE, SENSITIVITY, choice, one_of, real, validate

__all__ = ["RHO", "gaussian_zcdp", "pure_dp_to_zcdp", "zcdp_to_epsilon", "rho_for_epsilon"]

#: ρ: 0, or from 10⁻⁵⁰ to 10⁴⁰ (the ρ = (Δ/σ)²/2 of every Gaussian on the teaching domains)
RHO = one_of(real(0.0, 0.0), real(1e-50, 1e40, example=0.5),
             text="0 or a number in [1e-50, 1e40]")
#: a total ε to turn into a zCDP budget: the reconstruction attack's page offers budgets up to
#: 10⁴, shared by up to 20,000 answers
TOTAL_EPSILON = real(1e-6, 1e4)
#: ε of one pure-DP mechanism: down to 10⁻¹² (a budget of 10⁻⁶ shared by a million answers),
#: up to a whole total budget
PURE_EPSILON = real(1e-12, 1e4)
METHOD = choice("cks", "bun-steinke")


@validate(sigma=SCALE, sensitivity=SENSITIVITY)
def gaussian_zcdp(sigma: float, sensitivity: float = 1.0) -> float:
    """ρ of the Gaussian mechanism: ``ρ = Δ²/(2σ²)`` ([BS16]_, Prop. 1.6).

    Assumes ℓ2 sensitivity Δ and noise N(0, σ²I). Tight: the Gaussian's RDP
    curve is exactly ρα.
    """
    ratio = sensitivity / sigma
    return ratio * ratio / 2


@validate(epsilon=PURE_EPSILON)
def pure_dp_to_zcdp(epsilon: float) -> float:
    """ε-DP implies (ε²/2)-zCDP ([BS16]_, Prop. 1.4): returns ρ = ε²/2."""
    return epsilon * epsilon / 2


@validate(rho=RHO, delta=DELTA_POSITIVE, method=METHOD)
def zcdp_to_epsilon(rho: float, delta: float, method: str = "cks") -> float:
    """ε such that ρ-zCDP implies (ε, δ)-DP.

    * ``"bun-steinke"``: ``ε = ρ + 2√(ρ ln(1/δ))`` ([BS16]_, Prop. 1.3).
    * ``"cks"``: ``ε = min_{α>1} αρ + ln(1 − 1/α) − (ln δ + ln α)/(α − 1)``
      ([CKS20]_, Cor. 13), minimized numerically over α; every α gives a valid
      bound, and we also evaluate the α that is optimal for the Bun–Steinke
      form, so the result is never larger than Bun–Steinke's. For extreme ρ or δ
      (ln(1/δ)/ρ outside [1e-4, 1e100], or a search that reaches α − 1 below float
      resolution) the search runs on ln(α − 1) with every term in a form that
      cannot overflow or cancel.
    """
    log_inv_delta = -math.log(delta)
    bs = rho + 2 * math.sqrt(rho * log_inv_delta)
    if method == "bun-steinke" or rho == 0:
        return bs if method == "bun-steinke" else 0.0
    ratio = log_inv_delta / rho
    if 1e-4 <= ratio <= 1e100:
        try:
            alpha_bs = 1 + math.sqrt(ratio)
            candidates = [_cks_epsilon(rho, -log_inv_delta, alpha_bs)]
            res = optimize.minimize_scalar(
                lambda t: _cks_epsilon(rho, -log_inv_delta, 1 + math.exp(t)),
                bracket=(math.log(alpha_bs - 1) - 1, math.log(alpha_bs - 1) + 1))
            if res.success and math.isfinite(res.fun):
                candidates.append(_cks_epsilon(rho, -log_inv_delta, 1 + math.exp(res.x)))
            return max(min(candidates), 0.0)
        except (ValueError, ArithmeticError):
            pass            # the search left the range where α − 1 is representable
    # extreme ρ: t = ln(α − 1) = ln √(ln(1/δ)/ρ) at the Bun–Steinke order, searched near it
    t_bs = 0.5 * (math.log(log_inv_delta) - math.log(rho))

    def f(t: float) -> float:
        return _cks_epsilon_t(rho, log_inv_delta, float(t))

    candidates = [f(t_bs), bs]
    res = optimize.minimize_scalar(f, bounds=(t_bs - 30, t_bs + 30), method="bounded",
                                   options={"xatol": 1e-10})
    if res.success and math.isfinite(res.fun):
        candidates.append(f(res.x))
    return float(max(min(candidates), 0.0))


@validate(epsilon=TOTAL_EPSILON, delta=DELTA_POSITIVE, method=METHOD)
def rho_for_epsilon(epsilon: float, delta: float, method: str = "cks") -> float:
    """The largest ρ such that ρ-zCDP implies (ε, δ)-DP: :func:`zcdp_to_epsilon` inverted.

    Returns the largest ρ ≥ 0 with ``zcdp_to_epsilon(ρ, δ, method) ≤ ε``: the zCDP
    budget that a target (ε, δ) allows (k Gaussian answers of sensitivity 1 then get
    σ = √(k/(2ρ)), [BS16]_ Prop. 1.6 and Lemma 1.7). Both conversions never
    decrease as ρ grows, so the largest feasible ρ is where the conversion meets ε.

    * ``"bun-steinke"``: ε = ρ + 2√(ρ ln(1/δ)) ([BS16]_, Prop. 1.3) solved for ρ:
      ``ρ = (ε/(√(ln(1/δ) + ε) + √ln(1/δ)))²``;
    * ``"cks"`` ([CKS20]_, Cor. 13): no closed form. From the Bun–Steinke ρ (the CKS
      conversion is never larger), doubled until the conversion exceeds ε, Brent's
      method finds the root to a relative 1e-12 in ρ.

    Either answer is then moved by a few ulps to a feasible ρ (its conversion, as computed by
    :func:`zcdp_to_epsilon`, at most ε): for Bun–Steinke the largest such double, for CKS
    one within a relative ~1e-12 of the largest ρ.
    """
    log_inv = -math.log(delta)

    def excess(r: float) -> float:
        return zcdp_to_epsilon.__wrapped__(r, delta, method) - epsilon

    # Bun–Steinke: ε = ρ + 2√(ρL) ⇔ √ρ = √(L + ε) − √L = ε/(√(L + ε) + √L); the
    # CKS conversion is never larger, so this ρ is feasible: a lower end of the bracket
    lo = (epsilon / (math.sqrt(log_inv + epsilon) + math.sqrt(log_inv))) ** 2
    lo = _largest_feasible_at_or_below(lo, excess)
    if method == "bun-steinke":
        for _ in range(64):               # the closed form is within a few ulps
            up = math.nextafter(lo, math.inf)
            if excess(up) > 0:
                break
            lo = up
        return float(lo)
    hi = _first_infeasible_doubling(lo, excess)
    rho = optimize.brentq(excess, lo, hi, xtol=1e-300, rtol=1e-12, maxiter=500)
    for _ in range(65):                   # brentq lands within ~1e-12: a few steps down
        if rho <= lo or excess(rho) <= 0:
            break
        rho = float(np.nextafter(rho, 0.0) * (1 - 1e-12))
    else:
        rho = lo                          # (a hang guard) the feasible lower end
    return float(max(rho, lo))


def _cks_epsilon(rho: float, log_delta: float, alpha: float) -> float:
    # [CKS20] Cor. 13 solved for ε at a fixed order α:
    #   ε = αρ + ln(1 − 1/α) − (ln δ + ln α)/(α − 1)
    return alpha * rho + math.log1p(-1 / alpha) - (log_delta + math.log(alpha)) / (alpha - 1)


def _cks_epsilon_t(rho: float, log_inv_delta: float, t: float) -> float:
    """The same ε at α = 1 + e^t, in a form that neither overflows nor cancels for any t.

    αρ = ρ + e^{t + ln ρ}; ln(1 − 1/α) = t − ln(1 + e^t); (ln(1/δ) − ln α)/(α − 1)
    = (ln(1/δ) − ln(1 + e^t))·e^{−t}; ``inf`` where a term exceeds the float range.
    """
    log1pexp = t + math.log1p(math.exp(-t)) if t > 0 else math.log1p(math.exp(t))
    e_t_rho = t + math.log(rho)
    term1 = rho + (math.exp(e_t_rho) if e_t_rho < 709 else math.inf)
    term2 = t - log1pexp
    num = log_inv_delta - log1pexp
    if -t > 709:
        term3 = math.inf if num > 0 else (-math.inf if num < 0 else 0.0)
    else:
        term3 = num * math.exp(-t)
    return term1 + term2 + term3


def _largest_feasible_at_or_below(rho: float, excess) -> float:
    """``rho`` or, if its conversion exceeds ε (rounding), the nearest smaller ρ whose
    conversion does not: a few ulps down, then halvings; 0.0 (ε = 0 ≤ ε) at worst."""
    for i in range(200):
        if rho <= 0 or excess(rho) <= 0:
            return max(rho, 0.0)
        rho = math.nextafter(rho, 0.0) if i < 64 else rho / 2
    return 0.0


def _first_infeasible_doubling(lo: float, excess, most: int = 2000) -> float:
    """lo·2^k for the smallest k in [1, most] whose conversion exceeds ε (or that overflows
    to ``inf``); ``lo·2^most`` if none. k ≤ 64 are tried in turn; beyond (δ near 1, where the
    CKS ρ can exceed the Bun–Steinke one by a factor > 2⁶⁴) the same k is found by bisection
    on k, which the conversion's monotonicity in ρ makes equivalent and ~100 times faster."""
    def scaled(k: int) -> float:
        try:
            return math.ldexp(lo, k)            # exact, like k doublings
        except OverflowError:
            return math.inf

    def infeasible(k: int) -> bool:
        r = scaled(k)
        return not math.isfinite(r) or excess(r) > 0

    for k in range(1, 65):
        if infeasible(k):
            return scaled(k)
    a, b = 64, most                             # infeasible(a) is False
    if not infeasible(b):
        return scaled(b)
    while b - a > 1:                            # invariant: not infeasible(a), infeasible(b)
        mid = (a + b) // 2
        if infeasible(mid):
            b = mid
        else:
            a = mid
    return scaled(b)


# Implementation notes: docs/library/accounting.md (accounting.zcdp).
