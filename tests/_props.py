"""Property-based checks that public functions reject bad input clearly.

``assert_rejects_bad_values(func, valid, arg)`` replaces one argument of an
otherwise valid call by values drawn from a hypothesis strategy and asserts
that the call raises dpteach's ``ParameterError`` (a ``ValueError``) or a
``TypeError`` whose message names the argument (and nothing else: a plain
``ValueError`` from NumPy or SciPy, any other exception, or no exception, fails).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from hypothesis import HealthCheck, given, settings
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


# ---------------------------------------------------------------- legal-but-extreme values
# The edge classes of the renovation issue: values that are legal (or nearly so) but sit at
# the ends of what float64 and Python integers can hold. A public function must, for each of
# them, either answer (finite where finite is documented, never NaN) or refuse with
# ParameterError/TypeError naming the argument, and do so quickly: no hang, no OverflowError,
# ZeroDivisionError, IndexError, MemoryError or a library's own error passed through.
SUBNORMALS = st.sampled_from([5e-324, 1e-320, 2.2250738585072009e-308])
TINY_FLOATS = st.one_of(SUBNORMALS, st.sampled_from([2.2250738585072014e-308, 1e-300, 1e-200,
                                                     1e-100, 1e-30, 1e-16]))
HUGE_FLOATS = st.sampled_from([1e15, 1e30, 1e100, 1e200, 1e300, 1.7976931348623157e308])
EXTREME_POSITIVE_FLOATS = st.one_of(TINY_FLOATS, HUGE_FLOATS,
                                    st.floats(min_value=5e-324, max_value=1.7976931348623157e308,
                                              allow_nan=False, allow_infinity=False))
HUGE_INTS = st.one_of(st.sampled_from([2**31, 2**53 + 1, 2**63, 2**64, 10**18, 10**30, 10**400]),
                      st.integers(min_value=2**40))

#: Seconds one call may take before it counts as a hang.
CALL_SECONDS = 5.0


class Hang(AssertionError):
    """A call that did not return within :data:`CALL_SECONDS`."""


def call_bounded(func, kwargs: dict, seconds: float = CALL_SECONDS):
    """Call ``func(**kwargs)``; fail with :class:`Hang` if it runs longer than ``seconds``.

    Uses ``SIGALRM`` (the test runs in a worker's main thread), so a pure-Python loop is
    interrupted; a call stuck inside one C routine is interrupted when it returns to Python.
    """
    import signal

    def on_alarm(signum, frame):
        raise Hang(f"{getattr(func, '__name__', func)}(**{_short(kwargs)}) took more than "
                   f"{seconds:g} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return func(**kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _short(kwargs: dict) -> str:
    parts = []
    for k, v in kwargs.items():
        r = (repr(v) if not isinstance(v, int) or abs(v) < 10**30
             else f"<int of about {int(abs(v).bit_length() * 0.30103) + 1} digits>")
        parts.append(f"{k}={r[:40]}")
    return "{" + ", ".join(parts) + "}"


def _has_nan(obj, depth: int = 0) -> bool:
    """True if ``obj`` (a number, array, sequence, mapping or dataclass) holds a NaN."""
    import dataclasses
    if depth > 4:
        return False
    if isinstance(obj, (bool, np.bool_, str, bytes)) or obj is None:
        return False
    if isinstance(obj, (float, np.floating)):
        return math.isnan(obj)
    if isinstance(obj, (complex, np.complexfloating)):
        return True                                           # a complex result is wrong too
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind == "c":
            return True
        return obj.dtype.kind == "f" and bool(np.isnan(obj).any())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return any(_has_nan(getattr(obj, f.name), depth + 1) for f in dataclasses.fields(obj))
    if isinstance(obj, dict):
        return any(_has_nan(v, depth + 1) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return any(_has_nan(v, depth + 1) for v in obj[:10_000])
    return False


def assert_extreme_ok(func, kwargs: dict, arg: str, *, seconds: float = CALL_SECONDS,
                      check=None):
    """``func(**kwargs)`` with an extreme but legal ``kwargs[arg]``: answer or refuse clearly.

    Passes when the call, within ``seconds``, either returns a result without NaN (and
    ``check(result)`` holds, if given) or raises ``ParameterError``/``TypeError`` whose
    message names an argument and shows a value ("got"). Any other exception fails.
    Returns the result (None when refused).
    """
    try:
        out = call_bounded(func, kwargs, seconds)
    except Hang:
        raise
    except (ParameterError, TypeError) as exc:
        msg = str(exc)
        assert "got" in msg or "=" in msg, (
            f"{func.__name__}({arg}={kwargs[arg]!r}): refusal does not show a value: {msg!r}")
        return None
    except Exception as exc:                                  # noqa: BLE001 - any other is a defect
        raise AssertionError(f"{func.__name__}({arg}={_short({arg: kwargs[arg]})}) raised "
                             f"{type(exc).__name__}: {exc}") from exc
    assert not _has_nan(out), f"{func.__name__}({_short({arg: kwargs[arg]})}) returned NaN: {out!r}"
    if check is not None:
        assert check(out), f"{func.__name__}({_short({arg: kwargs[arg]})}) gave a wrong answer: {out!r}"
    return out


# ------------------------------------------------------ wrong values shared by the tables
# (tests/mechanisms/test_mechanisms_bad_input.py, _extra.py and _plots.py attack every public parameter
# with these; a value added here is tried everywhere)
# Wrong shapes for a scalar parameter.
WRONG_SHAPE = st.sampled_from([np.array([1.0, 2.0]), np.ones((2, 2)), np.array([]),
                               np.array([0.5]), [0.5, 0.5], (0.25,)])
BAD_POSITIVE = st.one_of(NOT_POSITIVE_FINITE, NOT_A_NUMBER, WRONG_SHAPE)
BAD_PROB = st.one_of(BAD_PROBABILITY, NOT_A_NUMBER, WRONG_SHAPE)
NOT_BOOL = st.sampled_from([0, 1, 1.0, "True", "False", "yes", None, [True], (False,),
                            np.array([True]), b"1", 1j])
BAD_CHOICE = st.sampled_from(["", "Analytic", "CLASSIC", "LAPLACE", "exact", "nope", None, 1,
                              0.5, True, ["analytic"], ["laplace"], ("classic",), b"classic", b"sum",
                              {"analytic": 1}, np.array(["analytic", "classic"])])
BAD_RNG = st.sampled_from([-1, -(2**70), 1.5, np.float64(3.0), "0", b"0", True, False, [0],
                           (1, 2), {"seed": 0}, 1j, object(), np.random.RandomState(0)])
# Wrong things to pass where an array of numbers is expected (any shape allowed).
NOT_NUMERIC = st.sampled_from(["1.0", b"1", None, {"x": 1}, object(), 1j, [1j, 2.0],
                               np.array([1 + 1j]), ["1", "2"], [1.0, None], [[1.0], [1.0, 2.0]],
                               np.array(["2020-01-01"], dtype="datetime64[D]")])
# Where a result object (an experiment, an AttackResult) is expected.
NOT_AN_OBJECT = st.sampled_from(["x", 1, None, [1, 2], {"fpr": [0, 1]}, np.zeros(3), 1.5])


def bad_int(low, high=None):
    """Wrong values for an integer parameter allowed in [low, high] (``high=None``: no cap)."""
    out = [low - 1, low - 10, -(2**70)] + ([] if high is None else [high + 1, 2**70])
    return st.one_of(
        st.sampled_from(out + [float(low), low + 0.5, math.nan, math.inf, -math.inf, "3", None,
                               [low], 3j, True, False, np.float64(low), np.array([low, low])]),
        st.integers(max_value=low - 1),
        *([st.integers(min_value=high + 1)] if high is not None else []),
        st.floats(allow_nan=True, allow_infinity=True))


# ------------------------------------------------------- the edges tables' shared runner
@dataclass
class EdgeCase:
    """One row of an edges table: ``func(**base(), arg=value)`` for each ``arg`` with values
    drawn from ``args[arg]``, each result checked by ``check(out, kwargs)``
    (:func:`run_edge_case`). ``fixed`` names non-numeric parameters the row holds fixed."""

    name: str
    func: Callable
    base: Callable[[], dict]
    args: dict
    check: Callable | None = None
    examples: int = 6
    fixed: tuple = field(default_factory=tuple)


def lazy_kwargs(**kwargs):
    """A ``base`` for :class:`EdgeCase`: the keyword arguments, calling those that are callables
    (so that fitted models and data are built when the row runs, not at import)."""
    return lambda: {k: (v() if callable(v) else v) for k, v in kwargs.items()}


def run_edge_case(case: EdgeCase, *, seconds: float = CALL_SECONDS,
                  warning_filter: str = "ignore") -> None:
    """Drive every argument of ``case`` with its strategy through :func:`assert_extreme_ok`.

    ``warning_filter`` is applied around each call (``"ignore"``: e.g. ConvergenceWarning on
    extreme rows; ``"error"``: no overflow/invalid warning may escape either)."""
    def drive(arg, strategy):
        @settings(max_examples=case.examples, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(value=strategy)
        def run(value):
            kwargs = {**case.base(), arg: value}
            check = None if case.check is None else (lambda out: case.check(out, kwargs))
            with warnings.catch_warnings():
                warnings.simplefilter(warning_filter)
                assert_extreme_ok(case.func, kwargs, arg, seconds=seconds, check=check)

        run()

    for arg, strategy in case.args.items():
        drive(arg, strategy)
