"""Property-based checks that public functions reject bad input clearly.

``assert_rejects_bad_values(func, valid, arg)`` replaces one argument of an
otherwise valid call by values drawn from a hypothesis strategy and asserts
that the call raises dpteach's ``ParameterError`` (a ``ValueError``) or a
``TypeError`` whose message names the argument (and nothing else: a plain
``ValueError`` from NumPy or SciPy, any other exception, or no exception, fails).
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from dpteach._validation import ParameterError

# Values that are wrong for any "finite, > 0" parameter such as epsilon or a sensitivity.
NOT_POSITIVE_FINITE = st.one_of(
    st.sampled_from([0, 0.0, -0.0, -1, -1e-300, math.nan, math.inf, -math.inf]),
    st.floats(max_value=0.0, allow_nan=False, allow_infinity=True),
)
# Wrong types for a scalar parameter.
NOT_A_NUMBER = st.sampled_from(["1", b"1", None, [1.0], {"x": 1}, (1,), object(), 1j,
                                True, False])
# Wrong values for a delta in [0, 1).
BAD_DELTA = st.one_of(
    st.sampled_from([1, 1.0, 2.5, -1e-12, -1, math.nan, math.inf, -math.inf]),
    st.floats(min_value=1.0, allow_nan=False, allow_infinity=True),
    st.floats(max_value=-1e-300, allow_nan=False, allow_infinity=True),
)
# Wrong values for a probability in [0, 1].
BAD_PROBABILITY = st.one_of(
    st.sampled_from([1.0000001, -1e-9, 2, -1, math.nan, math.inf, -math.inf]),
    st.floats(min_value=1.0, exclude_min=True, allow_nan=False),
    st.floats(max_value=0.0, exclude_max=True, allow_nan=False),
)
# Arrays with a non-finite entry.
NON_FINITE_ARRAYS = st.sampled_from([
    np.array([1.0, np.nan]), np.array([np.inf]), [0.0, -np.inf, 1.0], np.array([[np.nan]]),
])


def call_rejects(func, kwargs: dict, arg: str) -> None:
    """Call ``func(**kwargs)`` and check it raises a clear error naming ``arg``."""
    try:
        func(**kwargs)
    except (ParameterError, TypeError) as exc:
        msg = str(exc)
        assert arg in msg, f"{func.__name__}: error for {arg}={kwargs[arg]!r} does not name it: {msg!r}"
        return
    except Exception as exc:  # any other exception type is a defect
        raise AssertionError(f"{func.__name__}({arg}={kwargs[arg]!r}) raised "
                             f"{type(exc).__name__}: {exc}") from exc
    raise AssertionError(f"{func.__name__} accepted {arg}={kwargs[arg]!r}")


def assert_rejects_bad_values(func, valid: dict, arg: str, strategy) -> None:
    """Run a hypothesis test: every value drawn for ``arg`` must be rejected."""

    @given(bad=strategy)
    def run(bad):
        call_rejects(func, {**valid, arg: bad}, arg)

    run()
