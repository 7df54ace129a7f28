"""Unit tests of dpteach._validation's building blocks: what a domain converts and refuses.

The generated tests (``tests/test_domains.py``) try every declared domain's bad and edge
values on every public function; these check the builders themselves at the places a
float cannot be trusted: integers beyond the float range and beyond Python's digit limit,
exact integer bounds, subnormals, -0.0, and the seed (never NumPy's global state).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpteach import _validation as v
from dpteach._validation import ParameterError


@pytest.mark.parametrize("value, expected", [(1, 1.0), (np.float32(0.5), 0.5), (np.int64(3), 3.0),
                                             (np.array(2.0), 2.0), (1e3, 1e3), (1e-6, 1e-6)])
def test_real_converts_to_a_python_float(value, expected):
    x = v.EPSILON("epsilon", value)
    assert x == expected and type(x) is float


@pytest.mark.parametrize("bad", [10**400, -10**400, 5e-324, 1e3 * (1 + 2**-52), math.nan,
                                 math.inf, "1", True, np.bool_(True), 1j, [1.0], None])
def test_real_refuses_by_name_value_and_range(bad):
    with pytest.raises(ParameterError, match=r"^epsilon must be a number in \[1e-06, 1000\]; "
                                             r"got epsilon="):
        v.EPSILON("epsilon", bad)


def test_integer_bounds_are_exact_beyond_two_to_the_53():
    # 2**53 + 1 rounds onto 2**53 as a float: the bound is compared as an int
    dom = v.integer(0, 2**53)
    assert dom("n", 2**53) == 2**53 and type(dom("n", np.int64(7))) is int
    for bad in (2**53 + 1, -1, 2.0, True, "3", 10**5000):
        with pytest.raises(ParameterError, match=r"^n must be an integer in \[0, 9.0072e\+15\]; "
                                                 r"got n="):
            dom("n", bad)


def test_huge_and_long_values_are_shortened_in_messages():
    # repr() of 10**5000 fails beyond Python's int-to-str digit limit; a long string is cut
    for bad in (10**5000, "x" * 500):
        with pytest.raises(ParameterError) as info:
            v.EPSILON("epsilon", bad)
        assert len(str(info.value)) < 200
    assert v.describe(10**5000) == "<int>" and v.describe("x" * 500).endswith("...")


def test_arrays_refuse_non_numbers_and_keep_the_shape():
    dom = v.array(ndim=(1, 2), low=0.0, high=10.0)
    assert dom("x", [[1, 2], [3, 4]]).shape == (2, 2) and dom("x", [1]).dtype == float
    for bad in ([1, 10**400], [[1.0], [2.0, 3.0]], ["1"], [1j], [math.nan], [11.0], [[[1.0]]],
                np.array(["a"]), [None], [], [True]):
        with pytest.raises(ParameterError, match=r"^x must be a 1-D or 2-D array"):
            dom("x", bad)
    keep = v.array(dtype=np.floating)
    assert keep("x", np.ones(2, dtype=np.float32)).dtype == np.float32
    assert keep("x", [1, 2]).dtype == np.float64


def test_choice_compares_by_type_and_value():
    dom = v.choice("laplace", 1)
    assert dom("m", "laplace") == "laplace" and dom("m", 1) == 1
    for bad in (True, 1.0, "Laplace", None, ["laplace"]):
        with pytest.raises(ParameterError, match=r"^m must be one of 'laplace', 1; got m="):
            dom("m", bad)


def test_rng_seeds_and_generators():
    g = np.random.default_rng(1)
    assert v.RNG("rng", g) is g and isinstance(v.RNG("rng", None), np.random.Generator)
    assert np.array_equal(v.RNG("rng", 7).random(3), v.RNG("rng", np.int64(7)).random(3))
    for bad in (-1, True, 1.5, "0", [0], np.random.RandomState(0), 2**63):
        with pytest.raises(ParameterError, match=r"^rng must be None, an int seed in "):
            v.RNG("rng", bad)


def test_rng_leaves_numpy_global_state_alone():
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    v.RNG("rng", None).random(10)
    v.RNG("rng", 5).random(10)
    assert np.array_equal(np.random.get_state()[1], before)
