"""Zero-concentrated differential privacy (zCDP).

A mechanism is ρ-zCDP if its Rényi divergence of every order α > 1 is at
most ρα ([BS16]_, Def. 1.1): a linear RDP curve. zCDP composes by adding the
ρ's ([BS16]_, Lemma 1.7), so k Gaussian queries cost kρ.

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

from scipy import optimize

from .._validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_nonnegative,
    check_positive,
    check_sensitivity,
)

__all__ = ["gaussian_zcdp", "pure_dp_to_zcdp", "zcdp_to_epsilon"]


def gaussian_zcdp(sigma: float, sensitivity: float = 1.0) -> float:
    """ρ of the Gaussian mechanism: ``ρ = Δ²/(2σ²)`` ([BS16]_, Prop. 1.6).

    Assumes ℓ2 sensitivity Δ and noise N(0, σ²I). Tight: the Gaussian's RDP
    curve is exactly ρα. Evaluated as (Δ/σ)²/2, so Δ² or σ² over- or
    underflowing on its own does not matter.

    Returns
    -------
    float
        ρ ≥ 0 (``inf`` only where Δ²/(2σ²) exceeds the float range).
    """
    sigma = check_positive("sigma", sigma)
    sensitivity = check_sensitivity("sensitivity", sensitivity)
    ratio = sensitivity / sigma                   # Python floats: inf, never OverflowError
    return ratio * ratio / 2


def pure_dp_to_zcdp(epsilon: float) -> float:
    """ε-DP implies (ε²/2)-zCDP ([BS16]_, Prop. 1.4).

    Returns
    -------
    float
        ρ = ε²/2 (``inf`` for ε > 1.3e154, where ε² exceeds the float range).
    """
    epsilon = check_epsilon("epsilon", epsilon)
    return epsilon * epsilon / 2


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

    Parameters
    ----------
    rho : float
        ρ ≥ 0.
    delta : float
        In (0, 1).
    method : {"cks", "bun-steinke"}

    Returns
    -------
    float
        ε ≥ 0.
    """
    rho = check_nonnegative("rho", rho)
    delta = check_delta("delta", delta, allow_zero=False)
    method = check_choice("method", method, {"cks", "bun-steinke"})
    log_inv_delta = -math.log(delta)
    prod = rho * log_inv_delta
    if rho == 0 or (1e-300 < prod < math.inf):
        bs = rho + 2 * math.sqrt(prod)
    else:                                          # ρ·ln(1/δ) under- or overflows
        bs = rho + 2 * math.sqrt(rho) * math.sqrt(log_inv_delta)
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
