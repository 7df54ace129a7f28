"""Unit and property tests of dpteach._validation (the single place arguments are checked).

Every checker must return the converted value for good input and, for bad input, raise
ValueError/TypeError whose message names the argument, shows the value and states the
allowed range.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpteach import _validation as v
from _props import (
    BAD_DELTA,
    BAD_PROBABILITY,
    NON_FINITE_ARRAYS,
    NOT_A_NUMBER,
    NOT_POSITIVE_FINITE,
)

# Wrong shapes for a scalar parameter (arrays with more than one element, or none).
WRONG_SHAPE = st.sampled_from([np.array([1.0, 2.0]), np.ones((2, 2)), np.array([]),
                               np.array([0.5]), [0.5, 0.5]])


# ------------------------------------------------------------------ good values pass
@pytest.mark.parametrize("value, expected", [
    (1, 1.0), (0.5, 0.5), (np.float32(2.0), 2.0), (np.int64(3), 3.0), (np.array(0.25), 0.25),
    (Fraction(1, 4), 0.25), (1e-300, 1e-300), (1e300, 1e300),
])
def test_check_epsilon_accepts_and_converts(value, expected):
    out = v.check_epsilon("epsilon", value)
    assert type(out) is float and out == expected


@pytest.mark.parametrize("value", [0, 0.0, 1e-12, 0.5, 0.999999])
def test_check_delta_accepts_half_open_interval(value):
    assert v.check_delta("delta", value) == value


def test_check_delta_allow_zero_false():
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\); got delta=0"):
        v.check_delta("delta", 0.0, allow_zero=False)
    assert v.check_delta("delta", 1e-9, allow_zero=False) == 1e-9


@pytest.mark.parametrize("value", [0, 0.0, 0.5, 1, 1.0])
def test_check_probability_closed_interval(value):
    assert v.check_probability("p", value) == float(value)


def test_check_probability_open_ends():
    with pytest.raises(ValueError, match=r"p must be in \(0, 1\]; got p=0"):
        v.check_probability("p", 0, open_low=True)
    with pytest.raises(ValueError, match=r"p must be in \[0, 1\); got p=1"):
        v.check_probability("p", 1, open_high=True)


def test_check_int_accepts_numpy_ints_and_bounds():
    assert v.check_int("n", np.int32(5), minimum=1) == 5
    assert type(v.check_int("n", np.int64(5))) is int
    assert v.check_int("n", np.array(7), minimum=7, maximum=7) == 7


def test_check_bool():
    assert v.check_bool("flag", True) is True
    assert v.check_bool("flag", np.bool_(False)) is False
    for bad in (0, 1, "True", None, 1.0, [True]):
        with pytest.raises(TypeError, match=r"flag must be True or False; got flag="):
            v.check_bool("flag", bad)


def test_check_nonnegative_and_finite():
    assert v.check_nonnegative("x", 0) == 0.0
    assert v.check_finite("x", -3) == -3.0
    with pytest.raises(ValueError, match=r"x must be a finite number >= 0; got x=-1"):
        v.check_nonnegative("x", -1)
    with pytest.raises(ValueError, match=r"x must be a finite number; got x=inf"):
        v.check_finite("x", math.inf)


def test_check_positive_allow_inf():
    assert v.check_positive("x", math.inf, allow_inf=True) == math.inf
    with pytest.raises(ValueError, match=r"x must be a finite number > 0; got x=inf"):
        v.check_positive("x", math.inf)


# ---------------------------------------------- messages: argument, value and range
@pytest.mark.parametrize("func, bad, pattern", [
    (v.check_epsilon, -1.0, r"^epsilon must be a finite number > 0; got epsilon=-1\.0$"),
    (v.check_epsilon, math.nan, r"^epsilon must be a finite number > 0; got epsilon=nan$"),
    (v.check_epsilon, "1", r"^epsilon must be a finite number > 0; got epsilon='1' of type str$"),
    (v.check_delta, 1.0, r"^delta must be in \[0, 1\); got delta=1\.0$"),
    (v.check_delta, None, r"^delta must be a number in \[0, 1\); got delta=None of type NoneType$"),
    (v.check_sensitivity, 0, r"^sensitivity must be a finite number > 0; got sensitivity=0$"),
    (v.check_probability, 1.5, r"^p must be in \[0, 1\]; got p=1\.5$"),
])
def test_messages_name_argument_value_and_range(func, bad, pattern):
    name = pattern[1:].split(" ")[0]
    with pytest.raises((ValueError, TypeError), match=pattern):
        func(name, bad)


def test_check_int_messages():
    with pytest.raises(TypeError,
                       match=r"^n must be an integer in \[2, 10\]; got n=2\.0 of type float$"):
        v.check_int("n", 2.0, minimum=2, maximum=10)
    with pytest.raises(ValueError, match=r"^n must be an integer in \[2, 10\]; got n=11$"):
        v.check_int("n", 11, minimum=2, maximum=10)
    with pytest.raises(TypeError, match=r"n must be an integer"):
        v.check_int("n", True)


def test_huge_python_int_is_not_finite_and_no_overflow_error():
    # float(10**400) raises OverflowError; the checker must turn that into ValueError.
    with pytest.raises(ValueError, match=r"^epsilon must be a finite number > 0; got epsilon=1000"):
        v.check_epsilon("epsilon", 10 ** 400)
    with pytest.raises(ValueError, match=r"epsilon must be a finite number > 0; got epsilon=<int>"):
        v.check_epsilon("epsilon", 10 ** 5000)    # repr() itself fails beyond Python's digit limit
    with pytest.raises(ValueError, match=r"x must contain only finite values"):
        v.check_array("x", [1, 10 ** 400])


def test_long_values_are_abbreviated_in_messages():
    with pytest.raises(TypeError) as info:
        v.check_epsilon("epsilon", "x" * 500)
    assert len(str(info.value)) < 200 and "..." in str(info.value)


# ------------------------------------------------------------------------ check_array
def test_check_array_converts_and_keeps_shape():
    out = v.check_array("x", [[1, 2], [3, 4]], ndim=2)
    assert out.dtype == np.float64 and out.shape == (2, 2)
    assert v.check_array("x", 3).shape == ()
    assert v.check_array("x", [True, False]).tolist() == [1.0, 0.0]
    assert v.check_array("x", [], min_size=0).shape == (0,)
    assert v.check_array("x", [1.0, math.inf], finite=False)[1] == math.inf


@pytest.mark.parametrize("bad", [
    "12", b"12", None, ["1", "2"], [1j], np.array([1 + 0j]), [1, None], {"a": 1}, object(),
    [[1.0], [1.0, 2.0]], np.array(["2020-01-01"], dtype="datetime64[D]"),
])
def test_check_array_refuses_non_numbers(bad):
    with pytest.raises(TypeError, match=r"^x must be a number or array of numbers.*; got x="):
        v.check_array("x", bad)


def test_check_array_refuses_bools_when_asked():
    with pytest.raises(TypeError, match=r"x must be .* \(not booleans\)"):
        v.check_array("x", [True, False], allow_bool=False)
    with pytest.raises(TypeError, match=r"x must be .* \(not booleans\)"):
        v.check_array("x", np.bool_(True), allow_bool=False)


def test_check_array_shape_size_and_finiteness_messages():
    with pytest.raises(ValueError,
                       match=r"^x must have ndim in \(1,\); got x with shape \(2, 2\)$"):
        v.check_array("x", np.ones((2, 2)), ndim=1)
    with pytest.raises(ValueError,
                       match=r"^x must have at least 1 element\(s\); got x with shape \(0,\)$"):
        v.check_array("x", [])
    with pytest.raises(ValueError, match=r"^x must contain only finite values; got x="):
        v.check_array("x", [1.0, math.nan])


@given(bad=NON_FINITE_ARRAYS)
def test_check_array_property_non_finite(bad):
    with pytest.raises(ValueError, match=r"x must contain only finite values"):
        v.check_array("x", bad)


# ----------------------------------------------------------------------- check_choice
def test_check_choice():
    assert v.check_choice("method", "classic", {"classic", "analytic"}) == "classic"
    assert v.check_choice("method", np.str_("classic"), {"classic", "analytic"}) == "classic"
    for bad in ("Classic", "", None, ["classic"], np.array(["classic", "x"]), {"a": 1}, 1):
        with pytest.raises(ValueError, match=r"^method must be one of \['analytic', 'classic'\]; "
                                             r"got method="):
            v.check_choice("method", bad, {"classic", "analytic"})
    with pytest.raises(ValueError, match=r"flag must be one of"):
        v.check_choice("flag", True, {1, 2})   # True == 1 in Python, but is not the option 1


# -------------------------------------------------------------------------- check_rng
def test_check_rng():
    g = np.random.default_rng(1)
    assert v.check_rng(g) is g
    assert isinstance(v.check_rng(None), np.random.Generator)
    a = v.check_rng(7).random(3)
    b = v.check_rng(np.int64(7)).random(3)
    assert np.array_equal(a, b)
    with pytest.raises(ValueError, match=r"rng seed must be an integer >= 0; got rng=-1"):
        v.check_rng(-1)
    for bad in (True, 1.5, "0", [0], np.random.RandomState(0)):
        with pytest.raises(TypeError, match=r"^rng must be None, an int seed or a "
                                            r"numpy.random.Generator; got rng="):
            v.check_rng(bad)


def test_check_rng_leaves_global_state_alone():
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    v.check_rng(None).random(10)
    v.check_rng(5).random(10)
    assert np.array_equal(np.random.get_state()[1], before)


# -------------------------------------------------------- property-based bad values
@pytest.mark.parametrize("checker, arg", [
    (v.check_epsilon, "epsilon"), (v.check_sensitivity, "sensitivity"), (v.check_epsilon, "eps0"),
])
@given(bad=st.one_of(NOT_POSITIVE_FINITE, NOT_A_NUMBER, WRONG_SHAPE))
def test_positive_checkers_reject(checker, arg, bad):
    # the message names the parameter name passed in, the value and the range
    with pytest.raises((ValueError, TypeError),
                       match=rf"^{arg} must be a finite number > 0; got {arg}="):
        checker(arg, bad)


@given(bad=st.one_of(BAD_DELTA, NOT_A_NUMBER, WRONG_SHAPE))
def test_check_delta_rejects(bad):
    with pytest.raises((ValueError, TypeError), match=r"^delta must be (a number )?in \[0, 1\)"):
        v.check_delta("delta", bad)


@given(bad=st.one_of(BAD_PROBABILITY, NOT_A_NUMBER, WRONG_SHAPE))
def test_check_probability_rejects(bad):
    with pytest.raises((ValueError, TypeError), match=r"^p must be (a number )?in \[0, 1\]"):
        v.check_probability("p", bad)


@given(bad=st.one_of(st.floats(), st.integers(max_value=0), st.integers(min_value=11),
                     NOT_A_NUMBER))
def test_check_int_rejects(bad):
    with pytest.raises((ValueError, TypeError),
                       match=r"^n must be an integer in \[1, 10\]; got n="):
        v.check_int("n", bad, minimum=1, maximum=10)


@given(x=st.floats(min_value=5e-324, max_value=1e308))
def test_check_epsilon_accepts_every_positive_float(x):
    assert v.check_epsilon("epsilon", x) == x


# ------------------------------------------------------------------ the one error type
def test_out_of_range_values_raise_parameter_error():
    # The app shows ParameterError, and only it, as a friendly message: every range check of
    # the validation module must raise exactly this type (a ValueError subclass).
    assert issubclass(v.ParameterError, ValueError)
    for call in (lambda: v.check_epsilon("epsilon", -1.0),
                 lambda: v.check_delta("delta", 1.0),
                 lambda: v.check_probability("p", 2.0),
                 lambda: v.check_int("n", 0, minimum=1),
                 lambda: v.check_array("x", [np.nan]),
                 lambda: v.check_choice("m", "z", {"a"}),
                 lambda: v.check_rng(-1)):
        with pytest.raises(v.ParameterError):
            call()


def test_every_checker_takes_name_then_value():
    import inspect
    for name in v.__all__:
        obj = getattr(v, name)
        if name.startswith("check_") and name != "check_rng":
            params = list(inspect.signature(obj).parameters)
            assert params[:2] == ["name", "value"], (name, params)
