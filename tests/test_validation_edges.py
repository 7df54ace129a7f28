"""Legal-but-extreme inputs for the checkers of ``dpteach._validation``.

Each row of ``CASES`` names a function, valid keyword arguments, ONE numeric parameter and a
strategy of extreme values for it (subnormals, 1e-300, 1e300, the largest double, Python ints
beyond the float range and beyond Python's 4,300-digit ``str`` limit, probabilities within an
ulp of 0 or 1), and an exact ``check(kwargs, result)``: a checker returns exactly the value it
was given (as a Python ``float``/``int``) when, and only when, the value is allowed, compared
with exact integer/rational arithmetic, and refuses it otherwise with a message naming the
argument. (``dpteach.datasets`` declares its teaching domains: ``tests/test_domains.py``.)

``test_every_public_callable_and_numeric_parameter_is_covered`` walks ``MODULES`` and fails
when a public function (or one of its numeric parameters) has no row.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from _props import (
    EXTREME_POSITIVE_FLOATS,
    HUGE_INTS,
    TINY_FLOATS,
    assert_extreme_ok,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpteach import _validation as V
from dpteach._validation import ParameterError

MODULES = (V,)
FMAX = 1.7976931348623157e308
EXAMPLES = 25
GIANT = 10**5000                  # more digits than Python's int → str limit (4,300)

# ------------------------------------------------------------------------ strategies
POS = st.one_of(EXTREME_POSITIVE_FLOATS, HUGE_INTS, st.just(GIANT))
NEG = POS.map(lambda v: -v)
REAL = st.one_of(POS, NEG, st.sampled_from([0.0, -0.0, 0]))
UNIT = st.one_of(TINY_FLOATS, st.sampled_from([0.5, 1 - 1e-12, 1 - 2**-53]))   # (0, 1)
PROB = st.one_of(UNIT, st.sampled_from([0.0, 1.0, 0, 1]))                       # [0, 1]
NEAR_ONE = st.sampled_from([1 - 2**-53, 1.0, 1 + 2**-52, Fraction(10**20 + 1, 10**20),
                            Fraction(10**20 - 1, 10**20), 2**53 + 1])
REAL_FLOATS = st.one_of(EXTREME_POSITIVE_FLOATS, EXTREME_POSITIVE_FLOATS.map(lambda v: -v),
                        st.just(0.0))
ARRAYS = st.one_of(st.lists(REAL_FLOATS, min_size=1, max_size=5),
                   st.sampled_from([[FMAX, -FMAX], [5e-324, -5e-324, 0.0], [10**400], [GIANT],
                                    [2**64, -(2**64)], [2**53 + 1]]))
INTS = st.one_of(HUGE_INTS, HUGE_INTS.map(lambda v: -v),
                 st.sampled_from([GIANT, -GIANT, 0, 1, -1, 2**63 - 1, -(2**63)]))


def ints(*legal):
    """Integers beyond any limit, plus the given legal (boundary) values."""
    return st.one_of(HUGE_INTS, st.just(GIANT), st.sampled_from(list(legal)))


def _exact(v):
    """``v`` as an exact rational (ints and fractions stay exact)."""
    return Fraction(v) if not isinstance(v, float) else Fraction(v)


def _as_float(v) -> float:
    """The float a checker should return for ``v`` (±inf beyond the float range)."""
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


# ------------------------------------------------------------------------ checks
def same_float(kw, r):
    """The value itself, as a Python float."""
    return type(r) is float and (r == _as_float(kw["value"]) or (
        math.isnan(r) and math.isnan(_as_float(kw["value"]))))


def in_range_exact(kw, r):
    """Accepted only when low ≤ value ≤ high (exactly), and returned as a float."""
    v, lo, hi = _exact(kw["value"]), kw["low"], kw["high"]
    low_ok = v >= lo if kw.get("low_inclusive", True) else v > lo
    high_ok = v <= hi if kw.get("high_inclusive", True) else v < hi
    r_low = r >= lo if kw.get("low_inclusive", True) else r > lo
    r_high = r <= hi if kw.get("high_inclusive", True) else r < hi
    return same_float(kw, r) and low_ok and high_ok and r_low and r_high


def positive_exact(kw, r):
    return same_float(kw, r) and _exact(kw["value"]) > 0 and (
        kw.get("allow_inf", False) or math.isfinite(r))


def nonnegative_exact(kw, r):
    return same_float(kw, r) and _exact(kw["value"]) >= 0 and math.isfinite(r)


def delta_exact(kw, r):
    v = _exact(kw["value"])
    return (same_float(kw, r) and (v >= 0 if kw.get("allow_zero", True) else v > 0) and v < 1
            and 0 <= r < 1)


def probability_exact(kw, r):
    v = _exact(kw["value"])
    low = v > 0 if kw.get("open_low") else v >= 0
    high = v < 1 if kw.get("open_high") else v <= 1
    return same_float(kw, r) and low and high and 0 <= r <= 1


def int_exact(kw, r):
    v, lo, hi = kw["value"], kw.get("minimum"), kw.get("maximum")
    return (type(r) is int and r == v and (lo is None or v >= lo) and (hi is None or v <= hi))


def never(kw, r):
    """A value that must always be refused."""
    return False


def array_exact(kw, r):
    with np.errstate(over="ignore"):
        ref = np.asarray(kw["value"], dtype=float)
    return (isinstance(r, np.ndarray) and r.dtype == np.float64 and np.array_equal(r, ref)
            and bool(np.all(np.isfinite(r))) and r.size >= kw.get("min_size", 1))


def choice_exact(kw, r):
    return r is kw["value"] and any(kw["value"] == c and type(kw["value"]) is not bool
                                    for c in kw["choices"])


def short_text(kw, r):
    return type(r) is str and 0 < len(r) <= 60


def generator(kw, r):
    again = V.check_rng(kw["rng"])
    return isinstance(r, np.random.Generator) and r.random() == again.random()


# --------------------------------------------------------------------- the table
CASES = []        # (key, func, valid kwargs, argument, strategy, check(kwargs, result))


def add(key, func, valid, **strategies_and_checks):
    for arg, (strategy, check) in strategies_and_checks.items():
        CASES.append((key, func, valid, arg, strategy, check))


N = dict(name="the_arg")
add("_validation.describe", V.describe, dict(value=1.0),
    value=(st.one_of(REAL, ARRAYS, st.just(np.full(10**5, FMAX))), short_text))
add("_validation.check_finite", V.check_finite, {**N, "value": 1.0},
    value=(REAL, lambda kw, r: same_float(kw, r) and math.isfinite(r)))
for allow_inf in (False, True):
    add("_validation.check_positive", V.check_positive, {**N, "value": 1.0, "allow_inf": allow_inf},
        value=(REAL, positive_exact))
add("_validation.check_nonnegative", V.check_nonnegative, {**N, "value": 1.0},
    value=(REAL, nonnegative_exact))
IR = {**N, "value": 0.5, "low": 0.0, "high": 1.0}
for inclusive in (True, False):
    add("_validation.check_in_range", V.check_in_range,
        {**IR, "low_inclusive": inclusive, "high_inclusive": inclusive},
        value=(st.one_of(PROB, NEAR_ONE, REAL), in_range_exact))
add("_validation.check_in_range", V.check_in_range, IR,
    low=(st.one_of(NEG, TINY_FLOATS, st.sampled_from([0.5, 0.5 + 2**-53])), in_range_exact),
    high=(st.one_of(POS, st.sampled_from([0.5, 0.5 - 2**-54])), in_range_exact))
add("_validation.check_in_range", V.check_in_range, {**IR, "value": 2**53 + 1, "low": 0,
                                                      "high": 2**53 + 2},
    high=(st.sampled_from([2**53, 2**53 + 1, 10**400, GIANT, FMAX]), in_range_exact))
add("_validation.check_epsilon", V.check_epsilon, {**N, "value": 1.0},
    value=(REAL, positive_exact))
add("_validation.check_sensitivity", V.check_sensitivity, {**N, "value": 1.0},
    value=(REAL, positive_exact))
for allow_zero in (True, False):
    add("_validation.check_delta", V.check_delta, {**N, "value": 1e-5, "allow_zero": allow_zero},
        value=(st.one_of(PROB, NEAR_ONE, REAL), delta_exact))
for open_low, open_high in ((False, False), (True, True)):
    add("_validation.check_probability", V.check_probability,
        {**N, "value": 0.5, "open_low": open_low, "open_high": open_high},
        value=(st.one_of(PROB, NEAR_ONE, REAL), probability_exact))
add("_validation.check_int", V.check_int, {**N, "value": 5},
    value=(INTS, int_exact))
add("_validation.check_int", V.check_int, {**N, "value": 5, "minimum": 1, "maximum": 10**7},
    value=(INTS, int_exact), minimum=(INTS, int_exact), maximum=(INTS, int_exact))
add("_validation.check_bool", V.check_bool, {**N, "value": True}, value=(REAL, never))
add("_validation.check_array", V.check_array, {**N, "value": [1.0, 2.0]},
    value=(st.one_of(ARRAYS, REAL), array_exact))
add("_validation.check_array", V.check_array, {**N, "value": [1.0, 2.0], "ndim": 1},
    ndim=(st.one_of(INTS, st.sampled_from([(1, 2**64), (0, 1), (10**400,)])), array_exact),
    min_size=(INTS, array_exact))
add("_validation.check_choice", V.check_choice,
    {**N, "value": 1, "choices": (1, 2.5, 2**53, 10**30)},
    value=(st.one_of(REAL, st.sampled_from([2**53 + 1, 10**30, float(10**30), True])),
           choice_exact))
add("_validation.check_rng", V.check_rng, dict(rng=0),
    rng=(st.one_of(HUGE_INTS, st.just(GIANT)), generator))

# Parameters that are not numbers: a name, a flag, a dtype, a set of options.
NOT_NUMERIC = {"name", "allow_inf", "low_inclusive", "high_inclusive", "allow_zero",
               "open_low", "open_high", "finite", "dtype", "allow_bool", "choices", "rng"}
# the checker of seeds takes numbers: its one parameter has a row although ``rng`` is
# non-numeric elsewhere
NUMERIC_FOR = {("_validation.check_rng", "rng")}
# callables without a numeric parameter
WITHOUT_NUMBERS: set[str] = set()
# the declaration machinery (domains and validate): tests/test_domains.py
ELSEWHERE = {f"_validation.{n}": "test_domains.py" for n in (
    "Domain", "Domain.flat", "Domain.or_none", "Domain.refuse", "anything", "array", "choice", "function",
    "integer", "one_of", "rational", "real", "validate", "validate_params")}


def _case_id(case):
    key, _, valid, arg = case[:4]
    extra = "".join(f"-{k}={valid[k]}" for k in ("allow_inf", "low_inclusive", "allow_zero",
                                                  "open_low", "minimum")
                    if k in valid and k != arg)
    return f"{key}-{arg}{extra}"


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_extreme_values_answer_exactly_or_refuse_clearly(case):
    _, func, valid, arg, strategy, check = case

    @settings(max_examples=EXAMPLES, deadline=None,
              database=None, suppress_health_check=[HealthCheck.too_slow,
                                                    HealthCheck.filter_too_much])
    @given(value=strategy)
    def run(value):
        kwargs = {**valid, arg: value}
        out = assert_extreme_ok(func, kwargs, arg, check=lambda r: check(kwargs, r))
        if out is None:                          # refused: the message names the argument
            name = kwargs.get("name", arg)
            with pytest.raises((ParameterError, TypeError)) as info:
                func(**kwargs)
            assert re.search(rf"(?<![A-Za-z0-9_]){name}(?![A-Za-z0-9_])", str(info.value)), (
                f"{func.__name__}({arg}=...) refused without naming {name}: {info.value}")

    run()


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_valid_baseline_passes_its_check(case):
    _, func, valid, arg, _, check = case
    if check is never:
        assert func(**valid) is True
        return
    assert check(valid, func(**valid))


# ------------------------------------------------------------ the bugs, pinned one by one
def test_bounds_beyond_the_float_range_format_in_messages():
    # f"{low:g}" of an int beyond the float range raised OverflowError
    assert V.check_in_range("x", 0.5, 0.0, 10**400) == 0.5
    assert V.check_in_range("x", 0.5, -(10**400), 1.0) == 0.5
    with pytest.raises(ParameterError, match=r"x must be in \[0, 1000.*got x=-1"):
        V.check_in_range("x", -1, 0.0, 10**400)
    with pytest.raises(ParameterError, match=r"x must be in \(-1000"):
        V.check_in_range("x", -(10**401), -(10**400), 1.0, low_inclusive=False)
    # str() of an int of more than 4,300 digits raised ValueError
    with pytest.raises(ParameterError,
                       match=r"x must be an integer in \[<int of about 5001 digits>, inf\]"):
        V.check_int("x", 5, minimum=GIANT)
    with pytest.raises(ParameterError, match=r"x must be an integer in \[-inf, 1000.*\.\.\.\]"):
        V.check_int("x", 10**401, maximum=10**400)
    assert V.check_int("x", GIANT, minimum=1) == GIANT
    assert V.describe(-GIANT) == "<int>"


def test_integers_and_fractions_are_compared_exactly():
    # the float of 2**53 + 1 rounds onto the bound 2**53: it was accepted
    with pytest.raises(ParameterError, match="x"):
        V.check_in_range("x", 2**53 + 1, 0, 2**53)
    with pytest.raises(ParameterError, match="x"):
        V.check_probability("x", Fraction(10**20 + 1, 10**20))       # > 1, float(…) == 1.0
    with pytest.raises(ParameterError, match="x"):
        V.check_delta("x", Fraction(10**20 - 1, 10**20) + Fraction(1, 10**20))       # = 1
    # inside [0, 1) but its float is 1.0: refused, as the float returned would not be
    with pytest.raises(ParameterError, match="x"):
        V.check_delta("x", Fraction(10**20 - 1, 10**20))
    # ordinary values are unchanged
    assert V.check_in_range("x", 2**53, 0, 2**53) == 2.0**53
    assert V.check_probability("x", Fraction(1, 3)) == 1 / 3
    assert V.check_delta("x", 1 - 2**-53) == 1 - 2**-53
    assert V.check_positive("x", 5e-324) == 5e-324
    assert V.check_positive("x", 10**400, allow_inf=True) == math.inf


# --------------------------------------------------------------------------- coverage
def _public_callables():
    """{"module.name": parameters} for the public functions, classes and methods of MODULES."""
    found = {}
    for module in MODULES:
        short = module.__name__.rsplit(".", 1)[1]
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj):
                found[f"{short}.{name}"] = list(inspect.signature(obj).parameters)
            elif inspect.isclass(obj) and not issubclass(obj, BaseException):
                if not dataclasses.is_dataclass(obj):                 # containers: methods only
                    found[f"{short}.{name}"] = list(inspect.signature(obj).parameters)
                for meth, fn in vars(obj).items():
                    if not meth.startswith("_") and inspect.isfunction(fn):
                        found[f"{short}.{name}.{meth}"] = [
                            p for p in inspect.signature(fn).parameters if p != "self"]
    return found


def test_every_public_callable_and_numeric_parameter_is_covered():
    found = _public_callables()
    assert len(found) >= 20                    # the walk really found the modules
    covered = {}
    for key, _, _, arg, _, _ in CASES:
        covered.setdefault(key, set()).add(arg)
    missing = sorted(k for k in found
                     if k not in covered and k not in WITHOUT_NUMBERS and k not in ELSEWHERE)
    assert not missing, "public callables without an extreme-value case: " + ", ".join(missing)
    untested = sorted(f"{k}({p})" for k, ps in found.items() if k in covered for p in ps
                      if (p not in NOT_NUMERIC or (k, p) in NUMERIC_FOR)
                      and p not in covered[k])
    assert not untested, "numeric parameters without an extreme-value case: " + ", ".join(untested)
    stale = sorted((set(covered) | WITHOUT_NUMBERS | set(ELSEWHERE)) - set(found))
    assert not stale, "rows for callables that are not public any more: " + ", ".join(stale)
    for key, where in ELSEWHERE.items():       # really covered there
        assert key.split(".")[-1] in (Path(__file__).parent / where).read_text()
