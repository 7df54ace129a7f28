"""Legal-but-extreme inputs for ``dpteach.exact`` (discrete, snapping, secure) and
``dpteach.mechanisms.l2_laplace`` (``dpteach.attacks.floating_point`` declares its domains:
``tests/test_domains.py``).

For each numeric parameter the table ``CASES`` draws values from the strategies of
``tests/_props.py`` (subnormal, tiny and huge floats, Python integers beyond the float
range, exact Fractions) and calls the function with a time bound
(``_props.run_edge_case``): it must answer without NaN, and where the answer is known the
``check`` asserts it, or refuse with ``ParameterError``/``TypeError``. Known answers at the
edges: the exact samplers return 0 when the scale or σ² is tiny; pmfs lie in [0, 1] with
P[0] = tanh(1/(2t)) for the discrete Laplace; the normaliser is ≥ 1 and the variance in
[0, σ²]; the snapping mechanism never leaves [-bound, bound]; secure outputs lie on their
grid.

``test_every_public_callable_is_in_the_table`` and ``test_every_numeric_parameter_is_varied``
fail when a public function or numeric parameter of these modules is missing.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from fractions import Fraction

import numpy as np
import pytest
from _props import (
    EXTREME_POSITIVE_FLOATS,
    HUGE_INTS,
    TINY_FLOATS,
    EdgeCase,
    lazy_kwargs,
    run_edge_case,
)
from hypothesis import strategies as st

from dpteach.exact import discrete as samplers, secure, snapping
from dpteach.mechanisms import l2_laplace

MODULES = {"dpteach.exact.discrete": samplers, "dpteach.exact.snapping": snapping,
           "dpteach.exact.secure": secure, "dpteach.mechanisms.l2_laplace": l2_laplace}

FLOAT_MAX = 1.7976931348623157e308
POS = st.one_of(EXTREME_POSITIVE_FLOATS, HUGE_INTS)
EXACT = st.one_of(POS, st.sampled_from([Fraction(1, 3), Fraction(1, 10**400), Fraction(10**30, 7),
                                        Fraction(2**100), 2**50, 2**50 + 1]))
SIGNED = st.one_of(EXTREME_POSITIVE_FLOATS, EXTREME_POSITIVE_FLOATS.map(lambda v: -v),
                   st.just(0.0))
INTS = st.one_of(HUGE_INTS, st.sampled_from([1, 2, 10**4, 10**5, 10**5 + 1, 10**6 + 1]))
INTEGER_POINTS = st.one_of(
    st.lists(st.integers(min_value=-(2**70), max_value=2**70), min_size=1, max_size=5),
    st.sampled_from([[0.0, 1e300, -1e300], [2.0**53, -(2.0**63)], [FLOAT_MAX], [10**400]]))
REAL_ARRAYS = st.one_of(st.lists(SIGNED, min_size=1, max_size=5),
                        st.sampled_from([[FLOAT_MAX, -FLOAT_MAX], [5e-324, 0.0], [10**400]]))
DELTAS = st.one_of(TINY_FLOATS, st.sampled_from([0.5, 1 - 2**-53]))


def kw(**kwargs):
    return lazy_kwargs(**kwargs)


# ---------------------------------------------------------------------- the checks
def _f(x):
    try:
        return float(Fraction(x))
    except (OverflowError, TypeError, ValueError):
        return float("inf")


def one_int(out, kw):
    return type(out) is int and (_f(kw.get("scale", kw.get("sigma2"))) > 1e-3 or out == 0)


def int_array(out, kw):
    return out.dtype == np.int64 and out.shape == (kw["size"],)


def unit_array(out, kw):
    p = np.atleast_1d(out)
    return bool(np.all((p >= 0) & (p <= 1)))


def laplace_pmf_ok(out, kw):
    p = np.atleast_1d(out)
    x = np.atleast_1d(np.asarray(kw["x"], dtype=float))
    t = _f(kw["scale"])
    at0 = p[x == 0]
    with np.errstate(over="ignore"):
        top = np.tanh(0.5 / np.float64(max(t, 5e-324)))
    return unit_array(out, kw) and bool(np.all(at0 == top))


def normaliser_ok(out, kw):
    return type(out) is float and 1.0 <= out < math.inf


def variance_ok(out, kw):
    return type(out) is float and 0.0 <= out <= _f(kw["sigma2"])


def delta_ok(out, kw):
    return type(out) is float and 0.0 <= out <= 1.0


def within_bound(out, kw):
    b = _f(kw["bound"])
    return bool(np.all(np.abs(np.atleast_1d(out)) <= b * (1 + 2**-50)))


def snap_eps_ok(out, kw):
    return type(out) is float and out >= _f(kw["epsilon"]) * (1 - 2**-52)


def on_grid(out, kw):
    """Secure outputs lie on the grid g·ℤ (checked exactly for power-of-two g)."""
    g = kw.get("granularity") or secure.DEFAULT_GRANULARITY
    arr = np.atleast_1d(out)
    if math.frexp(_f(g))[0] != 0.5:
        return True
    finite = arr[np.isfinite(arr)]
    return bool(np.all(np.fmod(finite, _f(g)) == 0)) and (type(out) is float
                                                           or isinstance(out, np.ndarray))


# ------------------------------------------------------------------------ the table
S, M = "dpteach.exact.discrete", "dpteach.exact.secure"
SN, L2 = "dpteach.exact.snapping", "dpteach.mechanisms.l2_laplace"
LAP = dict(value=[0.5, -1.25], sensitivity=1.0, epsilon=1.0, rng=0)
GAU = dict(value=[0.5, -1.25], sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0)

CASES = [
    EdgeCase(f"{S}.sample_discrete_laplace", samplers.sample_discrete_laplace,
             kw(scale=2, rng=0), {"scale": EXACT, "rng": HUGE_INTS}, check=one_int),
    EdgeCase(f"{S}.sample_discrete_laplace", samplers.sample_discrete_laplace,
             kw(scale=2, size=3, rng=0), {"size": INTS}, check=int_array),
    EdgeCase(f"{S}.sample_discrete_gaussian", samplers.sample_discrete_gaussian,
             kw(sigma2=2, rng=0), {"sigma2": EXACT, "rng": HUGE_INTS}, check=one_int),
    EdgeCase(f"{S}.sample_discrete_gaussian", samplers.sample_discrete_gaussian,
             kw(sigma2=2, size=3, rng=0), {"size": INTS}, check=int_array),
    EdgeCase(f"{S}.discrete_laplace_pmf", samplers.discrete_laplace_pmf,
             kw(x=[0, 1, -5], scale=2), {"x": INTEGER_POINTS, "scale": EXACT},
             check=laplace_pmf_ok),
    EdgeCase(f"{S}.discrete_gaussian_pmf", samplers.discrete_gaussian_pmf,
             kw(x=[0, 1, -5], sigma2=2), {"x": INTEGER_POINTS, "sigma2": EXACT},
             check=unit_array),
    EdgeCase(f"{S}.discrete_gaussian_normalizer", samplers.discrete_gaussian_normalizer,
             kw(sigma2=2), {"sigma2": EXACT}, check=normaliser_ok),
    EdgeCase(f"{S}.discrete_gaussian_variance", samplers.discrete_gaussian_variance,
             kw(sigma2=2), {"sigma2": EXACT}, check=variance_ok),
    EdgeCase(f"{S}.discrete_gaussian_delta", samplers.discrete_gaussian_delta,
             kw(sigma2=2, sensitivity=1, epsilon=1.0),
             {"sigma2": st.one_of(EXACT, st.sampled_from([10**10, 10**10 + 1])),
              "sensitivity": INTS, "epsilon": st.one_of(POS, st.just(0.0))}, check=delta_ok),
    EdgeCase(f"{SN}.snapping_mechanism", snapping.snapping_mechanism,
             kw(value=[0.0, 3.5], sensitivity=1.0, epsilon=1.0, bound=100.0, rng=0),
             {"value": REAL_ARRAYS, "sensitivity": POS, "epsilon": POS, "bound": POS,
              "rng": HUGE_INTS}, check=within_bound),
    EdgeCase(f"{SN}.snapping_epsilon", snapping.snapping_epsilon,
             kw(epsilon=1.0, sensitivity=1.0, bound=100.0),
             {"epsilon": POS, "sensitivity": POS, "bound": POS}, check=snap_eps_ok),
    EdgeCase(f"{S}.random_source", samplers.random_source, kw(rng=0), {"rng": HUGE_INTS},
             check=lambda out, k: 0 <= out.below(7) < 7 and 0 <= out.bits(3) < 8),
    EdgeCase(f"{L2}.l2_laplace_norm_distribution", l2_laplace.l2_laplace_norm_distribution,
             kw(dim=3, beta=1.0), {"dim": INTS, "beta": POS}),
    EdgeCase(f"{L2}.sample_l2_laplace", l2_laplace.sample_l2_laplace,
             kw(dim=3, beta=1.0, rng=0),
             {"dim": INTS, "beta": POS, "rng": HUGE_INTS}),
    EdgeCase(f"{L2}.sample_l2_laplace", l2_laplace.sample_l2_laplace,
             kw(dim=1, beta=1.0, size=2, rng=0), {"size": INTS},
             check=lambda out, kw: out.shape == (kw["size"], 1)),

    # the secure mechanisms
    EdgeCase(f"{M}.secure_laplace_mechanism", secure.secure_laplace_mechanism, kw(**LAP),
             {"value": REAL_ARRAYS, "sensitivity": POS, "epsilon": POS, "granularity": POS,
              "rng": HUGE_INTS}, check=on_grid),
    EdgeCase(f"{M}.secure_gaussian_mechanism", secure.secure_gaussian_mechanism, kw(**GAU),
             {"value": REAL_ARRAYS, "sensitivity": POS, "epsilon": POS, "delta": DELTAS,
              "granularity": POS, "rng": HUGE_INTS}, check=on_grid),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c.name.rsplit('.', 1)[1]}-{'-'.join(c.args)}"
                                             for c in CASES])
def test_extreme_values(case):
    run_edge_case(case, warning_filter="error")


# ------------------------------------------------------------- known exact answers
def test_tiny_and_huge_parameters_have_exact_answers():
    for tiny in (5e-324, Fraction(1, 10**400), 1e-300):
        assert samplers.sample_discrete_laplace(tiny, rng=1) == 0
        assert samplers.sample_discrete_gaussian(tiny, rng=1) == 0
        assert samplers.discrete_laplace_pmf(0, tiny) == 1.0
        assert samplers.discrete_laplace_pmf(1, tiny) == 0.0
    assert samplers.discrete_gaussian_pmf(0, 5e-324) == 1.0
    assert samplers.discrete_gaussian_pmf([1e300, -(2**70)], 1.0).tolist() == [0.0, 0.0]
    assert samplers.discrete_laplace_pmf(0, FLOAT_MAX) == pytest.approx(0.5 / FLOAT_MAX,
                                                                      rel=1e-12)
    assert samplers.discrete_gaussian_delta(1.0, 1, FLOAT_MAX) == 0.0
    # the largest ε makes the secure mechanisms release the rounded answer itself
    assert secure.secure_laplace_mechanism(2.6, 1.0, 1e3, rng=0, granularity=0.5) == 2.5
    assert secure.secure_gaussian_mechanism(2.6, 1.0, 1e3, 0.5, rng=0, granularity=0.5) == 2.5


def test_overflowing_outputs_are_refused_or_infinite_never_nan():
    out = secure.secure_laplace_mechanism([1e15, -1e15], 1e6, 1e-6, rng=0, granularity=1e6)
    assert np.all(np.isfinite(out))


def test_returned_numbers_have_python_types():
    assert type(samplers.discrete_gaussian_normalizer(Fraction(1, 2))) is float
    assert type(samplers.discrete_gaussian_variance(3)) is float
    assert type(samplers.discrete_gaussian_delta(2, 1, 0.5)) is float
    assert type(snapping.snapping_epsilon(1.0, sensitivity=1.0, bound=10.0)) is float
    assert type(snapping.snapping_mechanism(1.0, sensitivity=1.0, epsilon=1.0, bound=10.0,
                                            rng=0)) is float


# ------------------------------------------------------------------------ coverage
NON_NUMERIC = {"rng", "sampler", "test", "method"}


def _public_callables():
    names = {}
    for modname, module in MODULES.items():
        for attr, obj in vars(module).items():
            if attr.startswith("_") or getattr(obj, "__module__", None) != modname:
                continue
            if inspect.isfunction(obj) and inspect.signature(obj).parameters:
                names[f"{modname}.{attr}"] = obj
            elif inspect.isclass(obj) and not dataclasses.is_dataclass(obj):
                names[f"{modname}.{attr}"] = obj
    return names


def test_every_public_callable_is_in_the_table():
    found = set(_public_callables())
    listed = {c.name for c in CASES}
    assert len(found) >= 14
    assert not sorted(found - listed), sorted(found - listed)
    assert not sorted(listed - found), sorted(listed - found)


def test_every_numeric_parameter_is_varied():
    varied = {}
    for case in CASES:
        varied.setdefault(case.name, set()).update(case.args)
    for name, func in _public_callables().items():
        left = set(inspect.signature(func).parameters) - varied[name] - NON_NUMERIC
        assert not left, (name, sorted(left))

