"""Legal-but-extreme inputs for every public function and method of dpteach.accounting and
dpteach.accounting.composition.

Each row of ``CASES`` names a callable (a function, or a small wrapper that calls one
method of an accountant), valid keyword arguments, ONE numeric parameter and a strategy of
extreme values for it (subnormals, 1e-300, 1e300, the largest double, Python ints beyond
the float range, probabilities within 1e-16 of 0 or 1, orders within an ulp of 1, ...),
and a ``check(kwargs, result)``. The call must answer without NaN, within a few seconds,
and pass the check, or refuse with ParameterError/TypeError naming the argument
(``_props.assert_extreme_ok``). Where a closed form is known the check is exact:
``laplace_rdp``, ``randomized_response_rdp`` and ``gaussian_rdp`` against 50-digit mpmath
(with as many more digits as the cancellation needs), the subsampled Gaussian at integer
orders against mpmath's exact finite sum, ``amplify_by_subsampling``,
``advanced_composition`` and ``gaussian_zcdp`` against mpmath, ``basic_composition``
against exact rational sums; elsewhere the check is a theorem (ε ≥ 0, δ ∈ [0, 1],
monotonicity, a calibrated σ meeting its target, ...).

``test_every_public_callable_and_numeric_parameter_is_covered`` walks the modules and fails
when a public function, class or method (or one of its numeric parameters) has no row.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import math
import re
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from _props import (
    EXTREME_POSITIVE_FLOATS,
    HUGE_INTS,
    SUBNORMALS,
    TINY_FLOATS,
    assert_extreme_ok,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpteach.accounting import composition as C
from dpteach._validation import ParameterError
from dpteach.accounting import calibrate as CAL
from dpteach.accounting import compare as CMP
from dpteach.accounting import convert as CONV
from dpteach.accounting import pld as PLD
from dpteach.accounting import rdp as RDP
from dpteach.accounting import sampled_gaussian as SGM
from dpteach.accounting import zcdp as Z
from dpteach.mechanisms import noise as NOISE
from dpteach.mechanisms.noise import gaussian_delta

MODULES = (CONV, RDP, SGM, Z, PLD, CAL, CMP, C)
FMAX = 1.7976931348623157e308
U = 2.0**-53

# ------------------------------------------------------------------------ strategies
POS = st.one_of(EXTREME_POSITIVE_FLOATS, HUGE_INTS)                 # > 0, any size
NONNEG = st.one_of(POS, st.just(0.0))
ONE_MINUS_TINY = st.sampled_from([1 - 2**-53, 1 - 1e-15, 1 - 1e-10])
DELTAS = st.one_of(TINY_FLOATS, ONE_MINUS_TINY, st.sampled_from([0.0, 0.5]))   # [0, 1)
OPEN_DELTAS = st.one_of(TINY_FLOATS, ONE_MINUS_TINY, st.just(0.5))             # (0, 1)
PROBS = st.one_of(TINY_FLOATS, ONE_MINUS_TINY, st.sampled_from([0.0, 1.0]))
HALF_PLUS = st.sampled_from([0.5, 0.5 + 2**-53, 0.5 - 2**-54, 0.5 + 1e-12])
INTS = st.one_of(HUGE_INTS, st.sampled_from([1, 2, 10**6, 10**6 + 1, 10**9, 10**9 + 1,
                                             10**12 + 1]))
ORDER_VALUES = st.one_of(
    st.sampled_from([1 + 2**-52, 1 + 1e-12, 1.5, 2.0, 64.0, 1e4, 1e15, 1e300, FMAX]),
    st.floats(min_value=1 + 2**-52, max_value=FMAX, allow_nan=False, allow_infinity=False))
ORDERS = st.lists(ORDER_VALUES, min_size=1, max_size=4)
SMALL_ORDERS = st.lists(st.one_of(st.sampled_from([1 + 2**-52, 1 + 1e-9, 1.25, 2.0, 3.0, 64.0,
                                                   1024.0, 9999.5, 1e4, 2e4]),
                                  st.floats(min_value=1 + 2**-52, max_value=1e4)),
                        min_size=1, max_size=3)
RDP_VALUES = st.lists(st.one_of(NONNEG.filter(lambda v: not isinstance(v, int)),
                                st.just(math.inf)), min_size=1, max_size=1)
INT_ORDERS = [2.0, 3.0, 8.0, 64.0]

# --------------------------------------------------------------------- exact references


def _digits_for(*tiny: float) -> int:
    """mpmath digits to resolve quantities as small as the product of ``tiny``."""
    need = 60
    for t in tiny:
        if 0 < t < 1:
            need += int(-math.log10(t)) + 5
    return need


def mp_laplace_rdp(alpha: float, eps: mp.mpf) -> float:
    if eps == 0:
        return 0.0
    with mp.workdps(_digits_for(float(eps), float(eps), 1 / alpha if alpha > 1 else 1)):
        a, e = mp.mpf(alpha), mp.mpf(eps)
        s = a / (2 * a - 1) * mp.exp((a - 1) * e) + (a - 1) / (2 * a - 1) * mp.exp(-a * e)
        return float(mp.log(s) / (a - 1))


def mp_rr_rdp(alpha: float, p: float) -> float:
    t = abs(2 * p - 1)
    with mp.workdps(_digits_for(t, t, min(p, 1 - p))):
        a, p = mp.mpf(alpha), mp.mpf(p)
        s = p**a * (1 - p) ** (1 - a) + (1 - p) ** a * p ** (1 - a)
        return float(mp.log(s) / (a - 1))


def mp_sg_int_rdp(alpha: int, sigma: float, q: float) -> float:
    """Subsampled Gaussian at integer α: the exact finite sum of [MTZ19] Case I, in mpmath."""
    # A − 1 ≈ α(α−1) q²/(2σ²): resolve it with 60 digits to spare
    digits = _digits_for(q, q) + max(0, int(2 * math.log10(sigma)) + 5)
    with mp.workdps(digits):
        q, sg = mp.mpf(q), mp.mpf(sigma)
        a = sum(mp.binomial(alpha, k) * (1 - q) ** (alpha - k) * q**k
                * mp.exp(mp.mpf(k * k - k) / (2 * sg**2)) for k in range(alpha + 1))
        return float(mp.log(a) / (alpha - 1))


def close(x: float, ref: float, rel: float = 1e-12, abs_: float = 1e-300) -> bool:
    if math.isinf(ref) or math.isinf(x):
        return x == ref
    return abs(x - ref) <= max(rel * abs(ref), abs_)


# --------------------------------------------------------------------------- checks

def _nonneg(_, r):
    arr = np.atleast_1d(np.asarray(r, dtype=float))
    return bool(np.all(arr >= 0))


def _float_nonneg(_, r):
    return type(r) is float and r >= 0


def _prob(_, r):
    return type(r) is float and 0.0 <= r <= 1.0


def check_gaussian_rdp(kw, r):
    orders = np.atleast_1d(np.asarray(kw["orders"], dtype=float))
    sens = kw.get("sensitivity", 1.0)
    with mp.workdps(60):
        refs = [float(mp.mpf(a) * (mp.mpf(sens) / mp.mpf(kw["sigma"])) ** 2 / 2) for a in orders]
    return all(close(x, ref, 1e-14) for x, ref in zip(r, refs))


def check_laplace_rdp(kw, r):
    orders = np.atleast_1d(np.asarray(kw["orders"], dtype=float))
    with mp.workdps(60):
        eps = mp.mpf(kw.get("sensitivity", 1.0)) / mp.mpf(kw["scale"])
    eps_float = float(kw.get("sensitivity", 1.0)) / float(kw["scale"])
    # below ~1e-290 the float ε = Δ/b (computed first, possibly subnormal) limits accuracy
    return all(x >= 0 and close(x, mp_laplace_rdp(a, eps), 1e-13, 1e-290 if eps_float < 1e-140
                                else 1e-300) for x, a in zip(r, orders))


def check_rr_rdp(kw, r):
    orders = np.atleast_1d(np.asarray(kw["orders"], dtype=float))
    return all(x >= 0 and close(x, mp_rr_rdp(a, kw["p"]), 1e-13) for x, a in zip(r, orders))


def check_subsampled(kw, r):
    orders = np.atleast_1d(np.asarray(kw["orders"], dtype=float))
    sigma = float(kw["noise_multiplier"])
    s = 0.5 / sigma / sigma
    for a, x in zip(orders, r):
        if not x >= 0:
            return False
        if not x <= a * s * (1 + 1e-12) + 64 * U / (a - 1):   # ≤ the unsampled Gaussian
            return False
    return True


def check_subsampled_int(kw, r):
    sigma, q = float(kw["noise_multiplier"]), float(kw["sample_rate"])
    for a, x in zip(INT_ORDERS, r):
        ref = mp_sg_int_rdp(int(a), sigma, q)
        if not close(x, ref, 1e-11, 1e-300):
            return False
    return True


def check_rdp_to_epsilon(kw, r):
    eps, order = r
    return type(eps) is float and eps >= 0 and order in np.atleast_1d(kw["orders"])


def check_rdp_to_delta(kw, r):
    d, order = r
    return type(d) is float and 0 <= d <= 1 and order in np.atleast_1d(kw["orders"])


def check_zcdp_epsilon(kw, r):
    bs = Z.zcdp_to_epsilon(kw["rho"], kw["delta"], "bun-steinke")
    return type(r) is float and 0 <= r <= bs * (1 + 1e-12) + 1e-300


def check_rho_for_epsilon(kw, r):
    # feasible (its conversion is at most ε), and the largest up to a relative 1e-9: a ρ
    # larger by that much (or by one ulp) converts to more than ε. Bun–Steinke has a closed
    # form, ρ = (√(L + ε) − √L)² = (ε/(√(L + ε) + √L))² with L = ln(1/δ), checked against
    # 60-digit mpmath (in the second form, which does not cancel).
    method = kw.get("method", "cks")
    eps, delta = float(kw["epsilon"]), float(kw["delta"])
    if type(r) is not float or not 0 <= r < math.inf:
        return False
    if Z.zcdp_to_epsilon(r, delta, method) > eps:
        return False
    up = min(max(r * (1 + 1e-9), math.nextafter(r, math.inf)), FMAX)
    if up > r and Z.zcdp_to_epsilon(up, delta, method) <= eps:
        return False
    if method == "bun-steinke":
        with mp.workdps(60):
            L, e = -mp.log(mp.mpf(delta)), mp.mpf(eps)
            ref = float((e / (mp.sqrt(L + e) + mp.sqrt(L))) ** 2)
        return close(r, ref, 1e-12, 1e-300)
    return True


def check_gaussian_zcdp(kw, r):
    with mp.workdps(60):
        ref = float((mp.mpf(kw.get("sensitivity", 1.0)) / mp.mpf(kw["sigma"])) ** 2 / 2)
    return type(r) is float and close(r, ref, 1e-15)


def check_pure_zcdp(kw, r):
    with mp.workdps(60):
        ref = float(mp.mpf(kw["epsilon"]) ** 2 / 2)
    return type(r) is float and close(r, ref, 1e-15)


def check_basic(kw, r):
    eps = np.atleast_1d(np.asarray(kw["epsilons"], dtype=float))
    dl = np.atleast_1d(np.asarray(kw.get("deltas", 0.0), dtype=float))
    if dl.size == 1:
        dl = np.full(eps.shape, dl[0])
    ref = [sum((Fraction(float(v)) for v in x), Fraction(0)) for x in (eps, dl)]
    out = []
    for x, f in zip(r, ref):
        out.append(type(x) is float and (x == float(f) if f <= Fraction(FMAX) else x == math.inf))
    return all(out)


def check_parallel(kw, r):
    eps = np.atleast_1d(np.asarray(kw["epsilons"], dtype=float))
    return r[0] == eps.max() and type(r[0]) is float


def check_advanced(kw, r):
    eps, d, k, dp = kw["epsilon"], kw["delta"], kw["k"], kw["delta_prime"]
    with mp.workdps(60):
        e = mp.mpf(eps)
        ref = mp.sqrt(2 * k * mp.log(1 / mp.mpf(dp))) * e + k * e * mp.expm1(e)
        ref = float(ref) if ref < FMAX else math.inf
    return type(r[0]) is float and close(r[0], ref, 1e-12) and r[1] == k * d + dp


def check_optimal_delta(kw, r):
    if not (type(r) is float and 0 <= r <= 1):
        return False
    # δ_total never below the δ part 1 − (1 − δ)^k, and non-increasing in ε_total
    floor = -math.expm1(kw["k"] * math.log1p(-kw["delta"]))
    more = C.optimal_composition_delta(kw["epsilon"], kw["delta"], kw["k"],
                                       min(2 * kw["total_epsilon"] + 1, FMAX))
    return r >= floor * (1 - 1e-12) and more <= r * (1 + 1e-12) + 1e-300


def check_optimal_epsilon(kw, r):
    if r == math.inf:
        return True
    if not (type(r) is float and 0 <= r <= kw["k"] * kw["epsilon"] * (1 + 1e-12)):
        return False
    return C.optimal_composition_delta(kw["epsilon"], kw["delta"], kw["k"], r) <= kw["total_delta"]


def check_amplify(kw, r):
    eps, q = kw["epsilon"], kw["sample_rate"]
    with mp.workdps(_digits_for(q, float(eps) if eps < 1 else 1)):
        ref = float(mp.log1p(mp.mpf(q) * mp.expm1(mp.mpf(eps))))
    return type(r) is float and 0 <= r <= eps and close(r, ref, 1e-13)


def check_gaussian_epsilon(kw, r):
    if r == math.inf:
        return True
    return type(r) is float and r >= 0 and gaussian_delta(
        kw["sigma"], kw.get("sensitivity", 1.0), r) <= kw["delta"]


def check_composition(kw, r):
    ok = all(np.all(v >= 0) for v in r.values())
    if "basic" in r and kw.get("mechanism", "laplace") == "laplace":
        ks = np.atleast_1d(kw["ks"])
        with np.errstate(over="ignore"):
            ok &= bool(np.all(r["basic"] == ks * float(kw["epsilon"])))
    return ok


def check_dpsgd(kw, r):
    """ε ≥ 0 and non-decreasing in the number of steps."""
    order = np.argsort(np.atleast_1d(kw["steps"]), kind="stable")
    ok = True
    for v in r.values():
        v = v[order]
        grows = (v[1:] >= v[:-1] * (1 - 1e-9)) | np.isinf(v[1:])
        ok &= bool(np.all(v >= 0) and np.all(grows))
    return ok


def check_sigma(kw, r):
    """The σ found meets the target (it was evaluated, not interpolated)."""
    if not (type(r) is float and r > 0):
        return False
    kw2 = {k: kw[k] for k in ("sample_rate", "steps", "accountant", "orders",
                              "value_discretization_interval") if k in kw}
    eps = CAL.epsilon_for_noise_multiplier(noise_multiplier=r, delta=kw["target_delta"], **kw2)
    return eps <= kw["target_epsilon"]


def _same(name):
    return lambda kw, r: np.array_equal(np.atleast_1d(r), np.atleast_1d(
        np.asarray(kw[name], dtype=float)).reshape(-1)) if name != "value" else r == float(kw[name])


# ------------------------------------------------------- wrappers for methods and classes

def rdp_accountant_init(orders):
    acc = RDP.RDPAccountant(orders=orders)
    return acc.orders


def rdp_accountant_step(noise_multiplier=1.0, sample_rate=0.01, steps=10):
    acc = RDP.RDPAccountant()
    acc.step(noise_multiplier=noise_multiplier, sample_rate=sample_rate, steps=steps)
    return acc.get_epsilon(1e-5)


def rdp_accountant_compose_rdp(rdp, count=1):
    acc = RDP.RDPAccountant(orders=[2.0])
    acc.compose_rdp(rdp, count=count)
    return acc.get_rdp()


def _busy_rdp():
    acc = RDP.RDPAccountant()
    acc.step(noise_multiplier=1.1, sample_rate=0.004, steps=1000)
    return acc


def rdp_accountant_get_epsilon(delta):
    return _busy_rdp().get_epsilon(delta)


def rdp_accountant_get_epsilon_and_order(delta):
    return _busy_rdp().get_epsilon_and_order(delta)


def rdp_accountant_get_delta(epsilon):
    return _busy_rdp().get_delta(epsilon)


def pld_accountant_init(value_discretization_interval):
    acc = PLD.PLDAccountant(value_discretization_interval)
    acc.step(noise_multiplier=1.0, sample_rate=0.1, steps=5)
    return acc.get_epsilon(1e-5)


def pld_accountant_step(noise_multiplier=1.0, sample_rate=0.1, steps=5):
    acc = PLD.PLDAccountant(1e-2)
    acc.step(noise_multiplier=noise_multiplier, sample_rate=sample_rate, steps=steps)
    return acc.get_epsilon(1e-5), acc.get_delta(0.5)


def pld_accountant_compose_laplace(scale=1.0, sensitivity=1.0, count=3):
    acc = PLD.PLDAccountant(1e-2)
    acc.compose_laplace(scale, sensitivity=sensitivity, count=count)
    return acc.get_epsilon(1e-5), acc.get_delta(0.5)


def _busy_pld():
    acc = PLD.PLDAccountant(1e-2)
    acc.step(noise_multiplier=1.0, sample_rate=0.1, steps=20)
    return acc


def pld_accountant_get_epsilon(delta):
    return _busy_pld().get_epsilon(delta)


def pld_accountant_get_delta(epsilon):
    return _busy_pld().get_delta(epsilon)


def budget_init(epsilon=1.0, delta=0.0):
    b = C.BudgetAccountant(epsilon, delta)
    b.spend(min(b.epsilon, 0.5), b.delta / 2)
    return b.spent + b.remaining()


def budget_spend(epsilon=0.1, delta=0.0):
    b = C.BudgetAccountant(1.0, 1e-6)
    b.spend(epsilon, delta)
    return b.spent + b.remaining()


def budget_spend_huge_budget(epsilon=0.1, delta=0.0):
    b = C.BudgetAccountant(FMAX, 0.5)
    b.spend(epsilon, delta)
    b.spend(epsilon, delta)
    return b.spent + b.remaining()


def _budget_ok(kw, r):
    e_spent, d_spent, e_rem, d_rem = r
    return min(r) >= 0 and all(type(x) is float for x in r)


def step_record(noise_multiplier=1.0, sample_rate=0.1, steps=1):
    return RDP.Step(noise_multiplier, sample_rate, steps)


def spend_record(epsilon=1.0, delta=0.0):
    return C.Spend(epsilon, delta, None)


# Which public callable each wrapper exercises (for the coverage test).
WRAPS = {
    rdp_accountant_init: "dpteach.accounting.rdp:RDPAccountant.__init__",
    rdp_accountant_step: "dpteach.accounting.rdp:RDPAccountant.step",
    rdp_accountant_compose_rdp: "dpteach.accounting.rdp:RDPAccountant.compose_rdp",
    rdp_accountant_get_epsilon: "dpteach.accounting.rdp:RDPAccountant.get_epsilon",
    rdp_accountant_get_epsilon_and_order:
        "dpteach.accounting.rdp:RDPAccountant.get_epsilon_and_order",
    rdp_accountant_get_delta: "dpteach.accounting.rdp:RDPAccountant.get_delta",
    pld_accountant_init: "dpteach.accounting.pld:PLDAccountant.__init__",
    pld_accountant_step: "dpteach.accounting.pld:PLDAccountant.step",
    pld_accountant_compose_laplace: "dpteach.accounting.pld:PLDAccountant.compose_laplace",
    pld_accountant_get_epsilon: "dpteach.accounting.pld:PLDAccountant.get_epsilon",
    pld_accountant_get_delta: "dpteach.accounting.pld:PLDAccountant.get_delta",
    budget_init: "dpteach.accounting.composition:BudgetAccountant.__init__",
    budget_spend: "dpteach.accounting.composition:BudgetAccountant.spend",
    budget_spend_huge_budget: "dpteach.accounting.composition:BudgetAccountant.spend",
    step_record: "dpteach.accounting.rdp:Step.__init__",
    spend_record: "dpteach.accounting.composition:Spend.__init__",
}

# ----------------------------------------------------------------------------- the table
SG = {"orders": [1.5, 2.0, 7.25, 64.0], "noise_multiplier": 1.0, "sample_rate": 0.01}
SGI = {"orders": INT_ORDERS, "noise_multiplier": 1.0, "sample_rate": 0.01}
R2E = {"orders": [2.0, 10.0], "rdp": [0.1, 0.5], "delta": 1e-5}
R2D = {"orders": [2.0, 10.0], "rdp": [0.1, 0.5], "epsilon": 1.0}
ADV = {"epsilon": 0.1, "delta": 0.0, "k": 10, "delta_prime": 1e-5}
OPT_D = {"epsilon": 0.1, "delta": 0.0, "k": 10, "total_epsilon": 0.5}
OPT_E = {"epsilon": 0.1, "delta": 0.0, "k": 10, "total_delta": 1e-5}
EFN = {"noise_multiplier": 1.0, "delta": 1e-5, "sample_rate": 0.01, "steps": 100}
GNM = {"target_epsilon": 2.0, "target_delta": 1e-5, "sample_rate": 0.01, "steps": 100}
CE = {"ks": [1, 10], "epsilon": 0.5, "delta": 1e-5, "methods": ("basic", "advanced",
                                                                   "optimal", "rdp")}
CEG = {"ks": [1, 10], "mechanism": "gaussian", "sigma": 2.0, "delta": 1e-5,
       "methods": ("basic", "advanced", "optimal", "rdp", "pld")}
DS = {"steps": [10, 100], "noise_multiplier": 1.0, "sample_rate": 0.01, "delta": 1e-5,
      "accountants": ("rdp",)}
DSP = {**DS, "accountants": ("rdp", "pld"), "value_discretization_interval": 1e-2}

CASES = [
    # convert
    (CONV.check_orders, {"name": "orders", "orders": [2.0]}, "orders", ORDERS, _same("orders")),
    (CONV.check_rdp, {"name": "rdp", "rdp": [0.1], "orders": np.array([2.0])}, "rdp",
     RDP_VALUES, _same("rdp")),
    (CONV.check_rdp, {"name": "rdp", "rdp": [0.1], "orders": np.array([2.0])}, "orders",
     st.lists(ORDER_VALUES, min_size=1, max_size=2).map(np.array), _same("rdp")),
    (CONV.rdp_to_epsilon, R2E, "orders", st.lists(ORDER_VALUES, min_size=2, max_size=2),
     check_rdp_to_epsilon),
    (CONV.rdp_to_epsilon, R2E, "rdp", st.lists(st.one_of(NONNEG, st.just(math.inf)),
                                               min_size=2, max_size=2), check_rdp_to_epsilon),
    (CONV.rdp_to_epsilon, R2E, "delta", OPEN_DELTAS, check_rdp_to_epsilon),
    (CONV.rdp_to_delta, R2D, "orders", st.lists(ORDER_VALUES, min_size=2, max_size=2),
     check_rdp_to_delta),
    (CONV.rdp_to_delta, R2D, "rdp", st.lists(st.one_of(NONNEG, st.just(math.inf)),
                                             min_size=2, max_size=2), check_rdp_to_delta),
    (CONV.rdp_to_delta, R2D, "epsilon", NONNEG, check_rdp_to_delta),
    # rdp: closed forms against mpmath
    (RDP.gaussian_rdp, {"orders": [2.0, 10.5], "sigma": 1.0}, "orders", ORDERS,
     check_gaussian_rdp),
    (RDP.gaussian_rdp, {"orders": [2.0, 10.5], "sigma": 1.0}, "sigma", POS, check_gaussian_rdp),
    (RDP.gaussian_rdp, {"orders": [2.0, 10.5], "sigma": 1.0}, "sensitivity", POS,
     check_gaussian_rdp),
    (RDP.laplace_rdp, {"orders": [1.01, 2.0, 1e3], "scale": 1.0}, "orders", ORDERS,
     check_laplace_rdp),
    (RDP.laplace_rdp, {"orders": [1.01, 2.0, 1e3], "scale": 1.0}, "scale", POS,
     check_laplace_rdp),
    (RDP.laplace_rdp, {"orders": [1.01, 2.0, 1e3], "scale": 1.0}, "sensitivity", POS,
     check_laplace_rdp),
    (RDP.randomized_response_rdp, {"orders": [1.01, 2.0, 1e3], "p": 0.7}, "orders", ORDERS,
     check_rr_rdp),
    (RDP.randomized_response_rdp, {"orders": [1.01, 2.0, 1e3], "p": 0.7}, "p",
     st.one_of(PROBS, HALF_PLUS), check_rr_rdp),
    (SGM.subsampled_gaussian_rdp, SG, "orders", SMALL_ORDERS, check_subsampled),
    (SGM.subsampled_gaussian_rdp, SG, "noise_multiplier", POS, check_subsampled),
    (SGM.subsampled_gaussian_rdp, SG, "sample_rate", PROBS, check_subsampled),
    (SGM.subsampled_gaussian_rdp, SGI, "noise_multiplier",
     st.one_of(st.sampled_from([1e-3, 0.05, 0.3, 30.0, 1e3, 1e10, 1e100, 1e300]), SUBNORMALS),
     check_subsampled_int),
    (SGM.subsampled_gaussian_rdp, SGI, "sample_rate", PROBS.filter(lambda v: 0 < v < 1),
     check_subsampled_int),
    (SGM.check_subsampled_orders, {"name": "orders", "orders": [2.0]}, "orders", SMALL_ORDERS,
     _same("orders")),
    (rdp_accountant_init, {"orders": [2.0]}, "orders", SMALL_ORDERS, _same("orders")),
    (rdp_accountant_step, {}, "noise_multiplier", POS, _float_nonneg),
    (rdp_accountant_step, {}, "sample_rate", PROBS, _float_nonneg),
    (rdp_accountant_step, {}, "steps", INTS, _float_nonneg),
    (rdp_accountant_compose_rdp, {"rdp": [0.1]}, "rdp", RDP_VALUES, _nonneg),
    (rdp_accountant_compose_rdp, {"rdp": [0.1]}, "count", INTS, _nonneg),
    (rdp_accountant_get_epsilon, {"delta": 1e-5}, "delta", OPEN_DELTAS, _float_nonneg),
    (rdp_accountant_get_epsilon_and_order, {"delta": 1e-5}, "delta", OPEN_DELTAS,
     lambda kw, r: r[0] >= 0 and r[1] > 1),
    (rdp_accountant_get_delta, {"epsilon": 1.0}, "epsilon", NONNEG, _prob),
    (step_record, {}, "noise_multiplier", POS, lambda kw, r: r.noise_multiplier is kw[
        "noise_multiplier"]),
    (step_record, {}, "sample_rate", PROBS, lambda kw, r: r.sample_rate == kw["sample_rate"]),
    (step_record, {}, "steps", INTS, lambda kw, r: r.steps == kw["steps"]),
    # zcdp
    (Z.gaussian_zcdp, {"sigma": 1.0}, "sigma", POS, check_gaussian_zcdp),
    (Z.gaussian_zcdp, {"sigma": 1.0}, "sensitivity", POS, check_gaussian_zcdp),
    (Z.pure_dp_to_zcdp, {"epsilon": 1.0}, "epsilon", POS, check_pure_zcdp),
    (Z.zcdp_to_epsilon, {"rho": 0.3, "delta": 1e-5}, "rho", NONNEG, check_zcdp_epsilon),
    (Z.zcdp_to_epsilon, {"rho": 0.3, "delta": 1e-5}, "delta", OPEN_DELTAS, check_zcdp_epsilon),
    *[(Z.rho_for_epsilon, {"epsilon": 1.0, "delta": 1e-5, "method": m}, arg, strat,
       check_rho_for_epsilon)
      for m in ("cks", "bun-steinke") for arg, strat in (("epsilon", POS),
                                                         ("delta", OPEN_DELTAS))],
    # pld
    (PLD.check_discretization_interval, {"name": "value_discretization_interval",
                                         "value": 1e-3}, "value", POS, _same("value")),
    (pld_accountant_init, {"value_discretization_interval": 1e-2},
     "value_discretization_interval", st.one_of(POS, st.sampled_from([1e-6, 1.0])),
     _float_nonneg),
    (pld_accountant_step, {}, "noise_multiplier", POS, lambda kw, r: r[0] >= 0 and 0 <= r[1] <= 1),
    (pld_accountant_step, {}, "sample_rate", PROBS, lambda kw, r: r[0] >= 0 and 0 <= r[1] <= 1),
    (pld_accountant_step, {}, "steps", INTS, lambda kw, r: r[0] >= 0 and 0 <= r[1] <= 1),
    (pld_accountant_compose_laplace, {}, "scale", POS, lambda kw, r: r[0] >= 0),
    (pld_accountant_compose_laplace, {}, "sensitivity", POS, lambda kw, r: r[0] >= 0),
    (pld_accountant_compose_laplace, {}, "count", INTS, lambda kw, r: r[0] >= 0),
    (pld_accountant_get_epsilon, {"delta": 1e-5}, "delta", OPEN_DELTAS, _float_nonneg),
    (pld_accountant_get_delta, {"epsilon": 1.0}, "epsilon", NONNEG, _prob),
    # calibrate
    (CAL.epsilon_for_noise_multiplier, EFN, "noise_multiplier", POS, _float_nonneg),
    (CAL.epsilon_for_noise_multiplier, EFN, "delta", OPEN_DELTAS, _float_nonneg),
    (CAL.epsilon_for_noise_multiplier, EFN, "sample_rate", PROBS, _float_nonneg),
    (CAL.epsilon_for_noise_multiplier, EFN, "steps", INTS, _float_nonneg),
    (CAL.epsilon_for_noise_multiplier, EFN, "orders", SMALL_ORDERS, _float_nonneg),
    (CAL.epsilon_for_noise_multiplier, {**EFN, "accountant": "pld", "steps": 5},
     "value_discretization_interval", st.one_of(POS, st.sampled_from([1e-2, 1.0])),
     _float_nonneg),
    (CAL.get_noise_multiplier, GNM, "target_epsilon", POS, check_sigma),
    (CAL.get_noise_multiplier, GNM, "target_delta", OPEN_DELTAS, check_sigma),
    (CAL.get_noise_multiplier, GNM, "sample_rate", PROBS, check_sigma),
    (CAL.get_noise_multiplier, GNM, "steps", INTS, check_sigma),
    (CAL.get_noise_multiplier, GNM, "orders", SMALL_ORDERS, check_sigma),
    (CAL.get_noise_multiplier, GNM, "rtol", st.one_of(TINY_FLOATS, ONE_MINUS_TINY,
                                                      st.just(1e-15)), check_sigma),
    (CAL.get_noise_multiplier, GNM, "max_noise_multiplier", st.one_of(POS, st.just(1e6)),
     check_sigma),
    (CAL.get_noise_multiplier, {**GNM, "accountant": "pld", "steps": 5,
                                "value_discretization_interval": 1e-2, "rtol": 1e-2},
     "value_discretization_interval", st.one_of(POS, st.sampled_from([1e-2, 1.0])), check_sigma),
    # compare
    (NOISE.gaussian_epsilon, {"sigma": 1.0, "delta": 1e-5}, "sigma", POS, check_gaussian_epsilon),
    (NOISE.gaussian_epsilon, {"sigma": 1.0, "delta": 1e-5}, "delta", OPEN_DELTAS,
     check_gaussian_epsilon),
    (NOISE.gaussian_epsilon, {"sigma": 1.0, "delta": 1e-5}, "sensitivity", POS,
     check_gaussian_epsilon),
    (CMP.composition_epsilons, CE, "ks", st.one_of(INTS, st.lists(INTS, min_size=1, max_size=3)),
     check_composition),
    (CMP.composition_epsilons, CE, "epsilon", POS, check_composition),
    (CMP.composition_epsilons, CE, "delta", OPEN_DELTAS, check_composition),
    (CMP.composition_epsilons, CEG, "sigma", POS, check_composition),
    (CMP.composition_epsilons, {**CE, "methods": ("pld",), "ks": [3]},
     "value_discretization_interval", st.one_of(POS, st.sampled_from([1e-2, 1.0])),
     check_composition),
    (CMP.dpsgd_epsilons, DS, "steps", st.one_of(INTS, st.lists(INTS, min_size=1, max_size=3)),
     check_dpsgd),
    (CMP.dpsgd_epsilons, DS, "noise_multiplier", POS, check_dpsgd),
    (CMP.dpsgd_epsilons, DS, "sample_rate", PROBS, check_dpsgd),
    (CMP.dpsgd_epsilons, DS, "delta", OPEN_DELTAS, check_dpsgd),
    (CMP.dpsgd_epsilons, DSP, "value_discretization_interval",
     st.one_of(POS, st.sampled_from([1e-2, 1.0])), check_dpsgd),
    # composition
    (C.basic_composition, {"epsilons": [0.1, 0.2]}, "epsilons",
     st.lists(NONNEG.filter(lambda v: v < 2**1024), min_size=1, max_size=4), check_basic),
    (C.basic_composition, {"epsilons": [0.1, 0.2]}, "deltas",
     st.one_of(DELTAS, st.lists(DELTAS, min_size=2, max_size=2)), check_basic),
    (C.parallel_composition, {"epsilons": [0.1, 0.2]}, "epsilons",
     st.lists(NONNEG.filter(lambda v: v < 2**1024), min_size=1, max_size=4), check_parallel),
    (C.parallel_composition, {"epsilons": [0.1, 0.2]}, "deltas", DELTAS,
     lambda kw, r: r[1] == float(kw.get("deltas", 0.0))),
    (C.advanced_composition, ADV, "epsilon", POS, check_advanced),
    (C.advanced_composition, ADV, "delta", DELTAS, check_advanced),
    (C.advanced_composition, ADV, "k", INTS, check_advanced),
    (C.advanced_composition, ADV, "delta_prime", OPEN_DELTAS, check_advanced),
    (C.optimal_composition_delta, OPT_D, "epsilon", POS, check_optimal_delta),
    (C.optimal_composition_delta, OPT_D, "delta", DELTAS, check_optimal_delta),
    (C.optimal_composition_delta, OPT_D, "k", INTS, check_optimal_delta),
    (C.optimal_composition_delta, OPT_D, "total_epsilon",
     st.one_of(NONNEG, st.just(math.inf)), check_optimal_delta),
    (C.optimal_composition_epsilon, OPT_E, "epsilon", POS, check_optimal_epsilon),
    (C.optimal_composition_epsilon, OPT_E, "delta", DELTAS, check_optimal_epsilon),
    (C.optimal_composition_epsilon, OPT_E, "k", INTS, check_optimal_epsilon),
    (C.optimal_composition_epsilon, OPT_E, "total_delta", DELTAS, check_optimal_epsilon),
    (C.amplify_by_subsampling, {"epsilon": 1.0, "sample_rate": 0.1}, "epsilon", POS,
     check_amplify),
    (C.amplify_by_subsampling, {"epsilon": 1.0, "sample_rate": 0.1}, "sample_rate", PROBS,
     check_amplify),
    (budget_init, {}, "epsilon", POS, _budget_ok),
    (budget_init, {}, "delta", DELTAS, _budget_ok),
    (budget_spend, {}, "epsilon", NONNEG, _budget_ok),
    (budget_spend, {}, "delta", DELTAS, _budget_ok),
    (budget_spend_huge_budget, {}, "epsilon", NONNEG, _budget_ok),
    (spend_record, {}, "epsilon", POS, lambda kw, r: r.epsilon is kw["epsilon"]),
    (spend_record, {}, "delta", DELTAS, lambda kw, r: r.delta == kw["delta"]),
]
# slow callables (a PLD or a calibration per call) get fewer examples
SLOW = {pld_accountant_init, pld_accountant_step, pld_accountant_compose_laplace,
        pld_accountant_get_epsilon, pld_accountant_get_delta, CAL.get_noise_multiplier,
        CMP.dpsgd_epsilons}
NOT_NUMERIC = {"name", "conversion", "method", "mechanism", "methods", "accountant",
               "accountants", "label", "self"}


def _case_id(case):
    func, _, arg = case[:3]
    return f"{func.__module__.rsplit('.', 1)[-1]}.{func.__name__}-{arg}"


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_extreme_values_answer_or_refuse_clearly(case):
    func, valid, arg, strategy, check = case
    examples = 5 if func in SLOW else 20

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(value=strategy)
    def run(value):
        kwargs = {**valid, arg: value}
        out = assert_extreme_ok(func, kwargs, arg, check=lambda r: check(kwargs, r))
        if out is None:                        # refused: the message must name an argument
            with pytest.raises((ParameterError, TypeError)) as info:
                func(**kwargs)
            names = [arg, *valid, valid.get("name", arg)]     # a checker names `name`
            assert any(re.search(rf"(?<![A-Za-z0-9_]){n}(?![A-Za-z0-9_])", str(info.value))
                       for n in names), f"{func.__name__}({arg}=...) refused: {info.value}"

    run()


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_valid_baseline_passes_its_check(case):
    # the check is not vacuous: the valid call answers and passes it
    func, valid, _, _, check = case
    kwargs = dict(valid)
    if func in (step_record, spend_record):
        return
    assert check(kwargs, func(**kwargs))


# ------------------------------------------------------------------------------ coverage

def _public_callables():
    """'module:qualname' → signature parameters, for every public function, class
    constructor and public method defined in the modules (exceptions excluded)."""
    found = {}
    for module in MODULES:
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj):
                found[f"{module.__name__}:{name}"] = list(inspect.signature(obj).parameters)
            elif inspect.isclass(obj) and not issubclass(obj, BaseException):
                init = inspect.signature(obj).parameters
                found[f"{module.__name__}:{name}.__init__"] = list(init)
                for meth, fn in vars(obj).items():
                    if not meth.startswith("_") and inspect.isfunction(fn):
                        params = [p for p in inspect.signature(fn).parameters if p != "self"]
                        found[f"{module.__name__}:{name}.{meth}"] = params
    return found


def _covered():
    keys, params = set(), set()
    for func, _, arg, *_ in CASES:
        key = WRAPS.get(func, f"{func.__module__}:{func.__name__}")
        keys.add(key)
        params.add((key, arg))
    return keys, params


# exercised by the dedicated tests below (no numeric parameters, or not a value)
ELSEWHERE = {
    "dpteach.accounting.sampled_gaussian:clear_subsampled_gaussian_cache",   # no parameters
    "dpteach.accounting.rdp:RDPAccountant.get_rdp",             # no parameters
    "dpteach.accounting.composition:BudgetAccountant.remaining",           # no parameters
}


def test_every_public_callable_and_numeric_parameter_is_covered():
    found = _public_callables()
    # gaussian_epsilon moved to dpteach.mechanisms.noise (beside gaussian_delta); its
    # extreme values are still driven here
    found["dpteach.mechanisms.noise:gaussian_epsilon"] = ["sigma", "delta", "sensitivity"]
    assert len(found) >= 35
    keys, params = _covered()
    missing = sorted(k for k in found if k not in keys and k not in ELSEWHERE)
    assert not missing, "public callables without an extreme-value test: " + ", ".join(missing)
    untested = sorted(f"{k}({p})" for k, ps in found.items() if k not in ELSEWHERE
                      for p in ps if p not in NOT_NUMERIC and (k, p) not in params)
    assert not untested, "numeric parameters without an extreme-value test: " + ", ".join(untested)
    stale = sorted(k for k in keys | ELSEWHERE if k not in found)
    assert not stale, "rows for callables that no longer exist: " + ", ".join(stale)
    for module in MODULES:
        importlib.import_module(module.__name__)


# ------------------------------------------------------------ hangs: loops and tolerances

def test_rtol_below_float_resolution_is_refused_with_the_minimum():
    for rtol in (1e-16, 2.2e-16, 5e-324):
        with pytest.raises(ParameterError, match=r"rtol must be in \[1e-15, 1\)"):
            CAL.get_noise_multiplier(target_epsilon=1.0, target_delta=1e-5, sample_rate=0.01,
                                     steps=100, rtol=rtol)


def counted(monkeypatch, module, name: str) -> list:
    """Replace ``module.name`` by a wrapper that records each call's arguments (a hang
    guard by the number of evaluations, not by the clock, which a busy machine moves)."""
    calls, inner = [], getattr(module, name)

    def wrapper(*args, **kwargs):
        calls.append(args)
        return inner(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls


def test_rtol_at_the_minimum_terminates_and_meets_the_target(monkeypatch):
    calls = counted(monkeypatch, CAL, "_rdp_epsilon")
    s = CAL.get_noise_multiplier(target_epsilon=1.0, target_delta=1e-5, sample_rate=0.01,
                                 steps=100, rtol=CAL.RTOL_MIN)
    # bracketing moves σ by 4 within [1e-6, 1e6]: ≤ 20 evaluations up and ≤ 20 down; then
    # bisection in log σ from a ratio of 4 to 1 + 1e-15: ⌈log2(ln 4 / 1e-15)⌉ = 51 more
    assert 0 < len(calls) <= 20 + 20 + 51
    assert CAL.epsilon_for_noise_multiplier(noise_multiplier=s, delta=1e-5, sample_rate=0.01,
                                            steps=100) <= 1.0
    # the bracket is as narrow as float64 allows: one ulp less than 1e-15 relative
    below = s * (1 - 4e-15)
    assert CAL.epsilon_for_noise_multiplier(noise_multiplier=below, delta=1e-5,
                                            sample_rate=0.01, steps=100) > 1.0 - 1e-12


def test_tiny_noise_multiplier_is_fast_and_exact(monkeypatch):
    orders = [1.5, 2.0, 10.5, 64.0]
    q = 0.01
    with monkeypatch.context() as m:                   # σ² underflows: r(α) beyond 1.8e308,
        for series in ("_log_a_minus_1_int", "_log_a_frac"):   # answered without the series
            m.setattr(SGM, series, lambda *a: pytest.fail(f"{series} was evaluated"))
        for sigma in (1e-160, 1e-200, 5e-324):
            SGM.clear_subsampled_gaussian_cache()
            assert np.all(SGM.subsampled_gaussian_rdp(orders, sigma, q) == math.inf)
    SGM.clear_subsampled_gaussian_cache()
    for sigma in (1e-100, 1e-20, 1e-5):                # one term dominates: α/(2σ²) + α ln q/(α−1)
        r = SGM.subsampled_gaussian_rdp(orders, sigma, q)
        for a, x in zip(orders, r):
            with mp.workdps(60):
                ref = float(mp.mpf(a) / (2 * mp.mpf(sigma) ** 2)
                            + mp.mpf(a) * mp.log(mp.mpf(q)) / (mp.mpf(a) - 1))
            assert x == pytest.approx(ref, rel=1e-15)
    # and at integer orders against the exact finite sum, also for moderate σ
    for sigma in (1e-3, 0.05, 0.2):
        r = SGM.subsampled_gaussian_rdp(INT_ORDERS, sigma, q)
        for a, x in zip(INT_ORDERS, r):
            assert x == pytest.approx(mp_sg_int_rdp(int(a), sigma, q), rel=1e-12)


def test_huge_noise_multiplier_first_order_is_exact():
    for sigma in (1e10, 1e100, 1e300):
        r = SGM.subsampled_gaussian_rdp(INT_ORDERS, sigma, 0.5)
        for a, x in zip(INT_ORDERS, r):
            assert x == pytest.approx(a * 0.25 * 0.5 / sigma / sigma, rel=1e-12, abs=1e-320)
            assert x == pytest.approx(mp_sg_int_rdp(int(a), sigma, 0.5), rel=1e-12, abs=1e-320)


def test_gaussian_epsilon_and_optimal_epsilon_loops_are_bounded(monkeypatch):
    calls = counted(monkeypatch, NOISE, "_delta_at")                    # δ in the root search
    nudges = counted(monkeypatch, NOISE.gaussian_delta, "__wrapped__")  # the final check
    # the teaching domain's corner: μ = Δ/σ = 1e18, so ε = μ²/2 + tμ with t ≈ 4.26 is μ²/2
    # to rounding (ulp(5e35) ≈ 7e19 > 4.3e18)
    e = NOISE.gaussian_epsilon(1e-12, 1e-5, sensitivity=1e6)
    assert e == pytest.approx(5e35, rel=1e-15) and gaussian_delta(1e-12, 1e6, e) <= 1e-5
    # μ = 1e12: ε − μ²/2 = tμ with t = 4.2649 (Φ(−t) ≈ 1e-5), resolved although ε ≈ 5e23
    e = NOISE.gaussian_epsilon(1e-6, 1e-5, sensitivity=1e6)
    assert (e - 5e23) / 1e12 == pytest.approx(4.2649, abs=1e-3)
    e = NOISE.gaussian_epsilon(1e-10, 1e-50)
    assert math.isfinite(e) and gaussian_delta(1e-10, 1.0, e) <= 1e-50
    assert NOISE.gaussian_epsilon(1e15, 1e-5) == 0.0
    # canonical RR with ε ≫ 1 reveals everything with probability ≈ 1: only kε works
    assert C.optimal_composition_epsilon(1e300, 0.0, 3, 1e-5) == 3e300
    assert C.optimal_composition_epsilon(FMAX, 0.0, 3, 1e-5) == math.inf     # kε overflows
    # gaussian_epsilon's loops: δ at ε = 0, brentq (≤ 100 iterations, SciPy's default), then
    # a few ulp steps; four calls above: a hang would show as more
    assert len(calls) <= 4 * (1 + 100 + 2) and len(nudges) <= 4 * 50


# ------------------------------------------------------- overflow and cancellation, exactly

@pytest.mark.parametrize("scale", [1e3, 1e6, 1e9, 1e15, 1e100, 1e300])
def test_laplace_rdp_large_scale_is_positive_and_exact(scale):
    orders = [1 + 1e-9, 1.01, 2.0, 10.0, 1e3, 1e9, 1e300]
    r = RDP.laplace_rdp(orders, scale=scale)
    assert np.all(r > 0) or scale >= 1e160                     # αε²/2 underflows for huge b
    for a, x in zip(orders, r):
        assert close(x, mp_laplace_rdp(a, mp.mpf(1) / mp.mpf(scale)), 1e-14)
    # and the accountant accepts it (it refused negative values before)
    acc = RDP.RDPAccountant(orders=[1.01, 2.0, 10.0])
    acc.compose_rdp(RDP.laplace_rdp(acc.orders, scale=scale), count=10**6)
    assert acc.get_epsilon(1e-5) >= 0


def test_randomized_response_rdp_near_one_half_is_exact():
    for p in (0.5 + 2**-53, 0.5 + 1e-12, 0.5 - 1e-9, 1e-300, 1 - 2**-53):
        r = RDP.randomized_response_rdp([1 + 1e-9, 2.0, 1e6], p)
        for a, x in zip([1 + 1e-9, 2.0, 1e6], r):
            assert x > 0 and close(x, mp_rr_rdp(a, p), 1e-13)


def test_amplification_overflow_and_known_values():
    with mp.workdps(60):
        ref = float(800 + mp.log(mp.mpf(0.5) + mp.mpf(0.5) * mp.exp(-800)))
    assert C.amplify_by_subsampling(800, 0.5) == ref
    assert C.amplify_by_subsampling(FMAX, 0.0) == 0.0
    assert C.amplify_by_subsampling(FMAX, 1.0) == FMAX
    assert C.amplify_by_subsampling(1e4, 5e-324) == pytest.approx(1e4 + math.log(5e-324))


def test_optimal_composition_domain_and_large_epsilon():
    # k = 1, ε = 40, ε_total = 0: δ = (e^40 − 1)/(e^40 + 1) = tanh(20) (was a math domain error)
    assert C.optimal_composition_delta(40, 0, 1, 0) == float(mp.tanh(20))
    # canonical RR with ε ≫ 1: δ(ε_total) = P(all k "flips" ...) stays in [0, 1], exact corners
    for eps in (50.0, 1e3, 1e300):
        assert C.optimal_composition_delta(eps, 0.0, 3, 3 * eps) == 0.0
        assert 0.99 < C.optimal_composition_delta(eps, 0.0, 3, 0.0) <= 1.0
    e = C.optimal_composition_epsilon(40.0, 0.0, 5, 1e-5)
    assert C.optimal_composition_delta(40.0, 0.0, 5, e) <= 1e-5 and e <= 200


def test_log_of_one_over_subnormal_delta_is_finite():
    e, d = C.advanced_composition(1.0, 0.0, 10, 5e-324)
    with mp.workdps(50):
        ref = float(mp.sqrt(20 * mp.log(1 / mp.mpf(5e-324))) + 10 * mp.expm1(1))
    assert e == pytest.approx(ref, rel=1e-14) and d == 5e-324
    assert math.isfinite(Z.zcdp_to_epsilon(0.5, 5e-324))
    assert math.isfinite(CONV.rdp_to_epsilon([2.0, 32.0], [0.1, 1.0], 5e-324)[0])
    assert NOISE.gaussian_epsilon(1.0, 1e-50) > 10


def test_overflowing_totals_are_inf_not_errors():
    assert C.basic_composition([FMAX, FMAX]) == (math.inf, 0.0)
    assert C.advanced_composition(800.0, 0.0, 2, 1e-5)[0] == math.inf
    assert Z.pure_dp_to_zcdp(1e200) == math.inf
    assert Z.gaussian_zcdp(1e-200, 1e200) == math.inf
    assert np.all(RDP.gaussian_rdp([2.0], sigma=1e200, sensitivity=1e200) == 2 / 2)   # no NaN
    b = C.BudgetAccountant(FMAX)
    b.spend(FMAX)
    b.spend(FMAX * 1e-10)                    # within RTOL of the budget: accepted
    assert b.spent[0] == math.inf and b.remaining()[0] == 0.0


# --------------------------------------------------------------- errors of the wrong kind

def test_sizes_beyond_their_bounds_are_refused_by_name():
    huge = 10**400
    for call, arg in [
        (lambda: RDP.RDPAccountant().step(noise_multiplier=1.0, sample_rate=0.1, steps=huge),
         "steps"),
        (lambda: RDP.RDPAccountant(orders=[2.0]).compose_rdp([0.1], count=huge), "count"),
        (lambda: PLD.PLDAccountant(1e-2).step(noise_multiplier=1.0, sample_rate=0.1, steps=huge),
         "steps"),
        (lambda: PLD.PLDAccountant(1e-2).compose_laplace(1.0, count=huge), "count"),
        (lambda: CAL.epsilon_for_noise_multiplier(noise_multiplier=1.0, delta=1e-5,
                                                  sample_rate=0.1, steps=huge), "steps"),
        (lambda: C.advanced_composition(0.1, 0.0, huge, 1e-5), "k"),
        (lambda: C.optimal_composition_delta(0.1, 0.0, 10**6 + 1, 1.0), "k"),
        (lambda: C.optimal_composition_epsilon(0.1, 0.0, huge, 1e-5), "k"),
        (lambda: CMP.composition_epsilons([huge], epsilon=1.0), "ks"),
        (lambda: CMP.composition_epsilons(np.arange(1, 1002), epsilon=1.0), "ks"),
        (lambda: CMP.composition_epsilons([10**6] * 11, epsilon=1.0), "ks"),
        (lambda: CMP.dpsgd_epsilons([huge], noise_multiplier=1.0, sample_rate=0.1), "steps"),
        (lambda: SGM.subsampled_gaussian_rdp(np.linspace(1.5, 100, 257), 1.0, 0.1), "orders"),
        (lambda: SGM.subsampled_gaussian_rdp([2.0, 1e5], 1.0, 0.1), "orders"),
        (lambda: CONV.rdp_to_epsilon(np.full(10**5 + 1, 2.0), np.zeros(10**5 + 1), 1e-5),
         "orders"),
    ]:
        with pytest.raises(ParameterError, match=arg):
            call()


def test_pld_grid_limit_refuses_quickly_instead_of_memory_error(monkeypatch):
    # refused from the estimate, before dp_accounting builds or composes anything
    monkeypatch.setattr(PLD.PLDAccountant, "_run",
                        lambda *a, **k: pytest.fail("dp_accounting was called"))
    for call in [lambda: PLD.PLDAccountant(1e-3).compose_laplace(1.0, count=10**9),
                 lambda: PLD.PLDAccountant(1e-4).step(noise_multiplier=1e-3, sample_rate=0.5,
                                                      steps=10),
                 lambda: PLD.PLDAccountant(1e-4).step(noise_multiplier=1.0, sample_rate=1.0,
                                                      steps=10**9),
                 lambda: PLD.PLDAccountant(1e-6).step(noise_multiplier=0.3, sample_rate=0.5,
                                                      steps=10**6)]:
        with pytest.raises(ParameterError, match="value_discretization_interval") as info:
            call()
        assert "grid" in str(info.value)


def test_pld_huge_count_of_a_sparse_pld_does_not_hang(monkeypatch):
    # dp_accounting computes size**count exactly for a sparse PMF (minutes at 10⁷):
    # we compose counts above 2^17 in two stages, the same composition.
    from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution

    counts = counted(monkeypatch, PrivacyLossDistribution, "self_compose")
    acc = PLD.PLDAccountant(1e-3)
    acc.step(noise_multiplier=10.0, sample_rate=1e-5, steps=10**7)
    assert 0 <= acc.get_epsilon(1e-5) < math.inf
    # each self-composition stays within 2^17 and together they make 10⁷ steps
    stages = [args[1] for args in counts]
    assert max(stages) <= 2**17 and stages[0] * stages[1] + stages[2] == 10**7, stages
    # two stages agree with dp_accounting's one-stage self-composition where that is fast
    from dp_accounting.pld import privacy_loss_distribution as lib

    single = lib.from_gaussian_mechanism(standard_deviation=3.0, sampling_prob=1e-3,
                                         value_discretization_interval=1e-3)
    direct = single.self_compose(500_000).get_epsilon_for_delta(1e-5)
    acc = PLD.PLDAccountant(1e-3)
    acc.step(noise_multiplier=3.0, sample_rate=1e-3, steps=500_000)
    assert acc.get_epsilon(1e-5) == pytest.approx(direct, rel=1e-6)


def test_dp_accounting_errors_are_reported_with_our_argument_names():
    with pytest.raises(ParameterError, match="noise_multiplier=1e\\+300") as info:
        PLD.PLDAccountant(1e-3).step(noise_multiplier=1e300, sample_rate=0.5, steps=10)
    assert "dp_accounting" in str(info.value)
    with pytest.raises(ParameterError, match="sample_rate"):
        PLD.PLDAccountant(1e-3).step(noise_multiplier=1e3, sample_rate=5e-324, steps=10)


def test_subnormal_epsilon_and_sigma_do_not_divide_by_zero():
    out = CMP.composition_epsilons([1, 10], epsilon=5e-324,
                                   methods=("basic", "advanced", "optimal", "rdp"))
    assert out["basic"][0] == 5e-324 and np.all(out["rdp"] >= 0)
    with pytest.raises(ParameterError, match="epsilon"):
        CMP.composition_epsilons([1, 10], epsilon=5e-324)     # dp_accounting's PLD cannot
    with pytest.raises(ParameterError, match="sigma"):     # beyond the noise scales' domain
        CMP.composition_epsilons([1, 10], mechanism="gaussian", sigma=5e-324,
                                 methods=("basic", "rdp", "pld"))
    assert Z.gaussian_zcdp(5e-324) == math.inf
    assert C.amplify_by_subsampling(5e-324, 0.5) == pytest.approx(2.5e-324, abs=5e-324)


@pytest.mark.parametrize("call", [
    lambda v: PLD.PLDAccountant(v),
    lambda v: CAL.epsilon_for_noise_multiplier(noise_multiplier=1.0, delta=1e-5,
                                               sample_rate=0.1, steps=10,
                                               value_discretization_interval=v),
    lambda v: CAL.get_noise_multiplier(target_epsilon=1.0, target_delta=1e-5, sample_rate=0.1,
                                       steps=10, value_discretization_interval=v),
    lambda v: CMP.composition_epsilons([1], mechanism="gaussian", sigma=1.0,
                                       value_discretization_interval=v),
    lambda v: CMP.dpsgd_epsilons([1], noise_multiplier=1.0, sample_rate=0.1,
                                 accountants=("rdp",), value_discretization_interval=v),
])
def test_value_discretization_interval_is_always_checked(call):
    with pytest.raises(TypeError, match="value_discretization_interval"):
        call("nonsense")
    for bad in (0.0, 1e-7, 10.0, math.nan, math.inf):
        with pytest.raises(ParameterError, match="value_discretization_interval"):
            call(bad)


# ----------------------------------------------------------------- read-only budgets

def test_budget_is_read_only_after_construction():
    b = C.BudgetAccountant(epsilon=1.0, delta=1e-6)
    b.spend(1.0, 1e-6, label="everything")
    for name, value in [("epsilon", 5.0), ("delta", 0.5), ("rtol", 1.0), ("RTOL", 1.0),
                        ("history", ()), ("_eps_spent", Fraction(0)), ("new_attribute", 1)]:
        with pytest.raises(AttributeError):
            setattr(b, name, value)
    with pytest.raises(AttributeError):
        del b.epsilon
    # the history cannot be changed from outside
    h = b.history
    assert isinstance(h, tuple) and len(h) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        h[0].epsilon = 0.0
    assert b.history == h
    # so an exhausted budget stays exhausted
    with pytest.raises(C.BudgetExceeded):
        b.spend(0.1)
    assert b.epsilon == 1.0 and b.spent == (1.0, 1e-6) and b.rtol == C.BudgetAccountant.RTOL
    # copies are independent ledgers
    c = copy.copy(b)
    d = copy.deepcopy(b)
    assert c.history == b.history == d.history
    with pytest.raises(C.BudgetExceeded):
        c.spend(0.5)
    assert b.remaining() == (0.0, 0.0)


def test_accountants_expose_read_only_state():
    acc = RDP.RDPAccountant()
    acc.step(noise_multiplier=1.0, sample_rate=0.1, steps=3)
    eps = acc.get_epsilon(1e-5)
    with pytest.raises(ValueError):
        acc.orders[0] = 100.0
    with pytest.raises(AttributeError):
        acc.orders = [2.0]
    with pytest.raises(AttributeError):
        acc.history = ()
    assert isinstance(acc.history, tuple) and acc.history[0].steps == 3
    r = acc.get_rdp()
    r[:] = 0
    assert acc.get_epsilon(1e-5) == eps
    user = np.array([2.0, 4.0])
    acc2 = RDP.RDPAccountant(orders=user)
    user[0] = 100.0                          # the caller's array is not shared
    assert acc2.orders[0] == 2.0
    pld = PLD.PLDAccountant(1e-2)
    with pytest.raises(AttributeError):
        pld.value_discretization_interval = 1.0
    pld.step(noise_multiplier=1.0, sample_rate=0.1)
    assert isinstance(pld.history, tuple) and len(pld.history) == 1


def test_parameterless_callables():
    SGM.clear_subsampled_gaussian_cache()
    a = SGM.subsampled_gaussian_rdp([2.0], 1.0, 0.1)
    SGM.clear_subsampled_gaussian_cache()
    b = SGM.subsampled_gaussian_rdp([2.0], 1.0, 0.1)
    assert a is not b and np.array_equal(a, b)
    acc = RDP.RDPAccountant(orders=[2.0, 3.0])
    assert np.array_equal(acc.get_rdp(), [0.0, 0.0])
    assert C.BudgetAccountant(FMAX, 0.5).remaining() == (FMAX, 0.5)


# --------------------------------------------------------------------- return types

def test_documented_floats_are_python_floats():
    acc = RDP.RDPAccountant()
    acc.step(noise_multiplier=1.0, sample_rate=0.01, steps=100)
    pld = PLD.PLDAccountant(1e-2)
    pld.step(noise_multiplier=1.0, sample_rate=0.01, steps=100)
    values = [
        acc.get_epsilon(1e-5), acc.get_delta(1.0), *acc.get_epsilon_and_order(1e-5),
        pld.get_epsilon(1e-5), pld.get_delta(1.0),
        *CONV.rdp_to_epsilon([2.0], [0.1], 1e-5), *CONV.rdp_to_delta([2.0], [0.1], 1.0),
        Z.gaussian_zcdp(2.0), Z.pure_dp_to_zcdp(1.0), Z.zcdp_to_epsilon(0.1, 1e-5),
        Z.zcdp_to_epsilon(1e-300, 1e-5), Z.zcdp_to_epsilon(0.1, 1e-5, "bun-steinke"),
        Z.rho_for_epsilon(1.0, 1e-5), Z.rho_for_epsilon(1.0, 1e-5, "bun-steinke"),
        Z.rho_for_epsilon(1e-300, 0.5),
        CAL.epsilon_for_noise_multiplier(noise_multiplier=1.0, delta=1e-5, sample_rate=0.01,
                                         steps=10),
        CAL.get_noise_multiplier(target_epsilon=1.0, target_delta=1e-5, sample_rate=0.01,
                                 steps=10),
        NOISE.gaussian_epsilon(1.0, 1e-5), NOISE.gaussian_epsilon(1e15, 1e-5),
        *C.basic_composition([0.1, 0.2]), *C.parallel_composition([0.1, 0.2]),
        *C.advanced_composition(0.1, 0.0, 10, 1e-5),
        C.optimal_composition_delta(0.1, 0.0, 10, 0.5),
        C.optimal_composition_epsilon(0.1, 0.0, 10, 1e-5),
        C.amplify_by_subsampling(1.0, 0.1), C.amplify_by_subsampling(800.0, 0.1),
        *C.BudgetAccountant(1.0).spent, *C.BudgetAccountant(1.0).remaining(),
        C.BudgetAccountant(1.0).epsilon, C.BudgetAccountant(1.0).rtol,
    ]
    assert all(type(v) is float for v in values), [type(v) for v in values]
