"""Argument checks shared by every public function in :mod:`dpteach`.

Every checker takes ``(name, value, ...)`` in that order, returns the validated
value (converted to a Python ``float`` / ``int`` / ``bool`` or a
``numpy.ndarray``) or raises

* :class:`ParameterError` (a :class:`ValueError`) when the value has the right
  kind but is not allowed: out of range, non-finite, the wrong shape; or
* :class:`TypeError` when it is not the kind of thing asked for (a string
  where a number belongs, a float where an integer belongs, ...),

with a message that names the argument, shows the value received and states
the allowed range, e.g.::

    ParameterError: epsilon must be a finite number > 0; got epsilon=-1.0

``ParameterError`` is *the* error type of dpteach for "these parameters are not
allowed": every module raises it (never a bare ``ValueError``) for settings the
mathematics or a documented bound rules out, and the app shows exactly this
type as a friendly message. Anything else escaping dpteach is a bug.

Nothing is ever clipped silently: a value outside its range is an error.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = [
    "ParameterError",
    "describe",
    "check_epsilon",
    "check_delta",
    "check_sensitivity",
    "check_probability",
    "check_positive",
    "check_nonnegative",
    "check_int",
    "check_bool",
    "check_finite",
    "check_in_range",
    "check_array",
    "check_choice",
    "check_rng",
]


class ParameterError(ValueError):
    """Parameters that dpteach does not allow (out of range, non-finite, too large, ...).

    A subclass of :class:`ValueError`, so ``except ValueError`` keeps working. The
    message names the argument, the value received and the allowed range.
    """


def describe(value: Any) -> str:
    """A short ``repr`` of ``value`` for an error message (at most 60 characters)."""
    try:
        text = repr(value)
    except Exception:                    # noqa: BLE001 - e.g. ints beyond str() digit limit
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


def _real(name: str, value: Any, expected: str = "a real number") -> float:
    """Convert ``value`` to a Python float, refusing bools, strings, complex and arrays.

    ``expected`` describes the allowed values for the error message. An integer
    too large for a float becomes ±inf (and is then refused by the range checks).
    """
    if isinstance(value, np.ndarray) and value.ndim == 0 and (
            np.issubdtype(value.dtype, np.integer) or np.issubdtype(value.dtype, np.floating)):
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {expected}; got {name}={describe(value)} "
                        f"of type {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:               # e.g. the Python int 10**400
        return math.inf if value > 0 else -math.inf


def check_finite(name: str, value: Any) -> float:
    """A finite real number."""
    x = _real(name, value, "a finite number")
    if not np.isfinite(x):
        raise ParameterError(f"{name} must be a finite number; got {name}={describe(value)}")
    return x


def check_positive(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """A real number > 0 (finite unless ``allow_inf``)."""
    allowed = "a number > 0 (inf allowed)" if allow_inf else "a finite number > 0"
    x = _real(name, value, allowed)
    if np.isnan(x) or x <= 0 or (np.isinf(x) and not allow_inf):
        raise ParameterError(f"{name} must be {allowed}; got {name}={describe(value)}")
    return x


def check_nonnegative(name: str, value: Any) -> float:
    """A finite real number >= 0."""
    x = _real(name, value, "a finite number >= 0")
    if not np.isfinite(x) or x < 0:
        raise ParameterError(f"{name} must be a finite number >= 0; got {name}={describe(value)}")
    return x


def _bound(v: Any) -> str:
    """``f"{v:g}"``, or the digits of an integer beyond the float range."""
    try:
        return f"{v:g}"
    except (OverflowError, TypeError, ValueError):
        return _int_text(v) if isinstance(v, numbers.Integral) else describe(v)


def check_in_range(name: str, value: Any, low: float, high: float, *,
                   low_inclusive: bool = True, high_inclusive: bool = True) -> float:
    """A real number in the interval between ``low`` and ``high``.

    Integers and fractions are compared exactly as well as after conversion, so one
    just outside the interval is refused even when its float rounds onto the bound
    (e.g. ``2**53 + 1`` in ``[0, 2**53]``), and one inside whose float rounds onto an
    open end (``Fraction(10**20 - 1, 10**20)`` in ``[0, 1)``) is refused too: the
    float returned always lies in the interval.
    """
    interval = (("[" if low_inclusive else "(") + f"{_bound(low)}, {_bound(high)}"
                + ("]" if high_inclusive else ")"))
    x = _real(name, value, f"a number in {interval}")
    exact = int(value) if isinstance(value, numbers.Integral) else (
        value if isinstance(value, numbers.Rational) else x)
    ok_low = (x >= low and exact >= low) if low_inclusive else (x > low and exact > low)
    ok_high = (x <= high and exact <= high) if high_inclusive else (x < high and exact < high)
    if np.isnan(x) or not (ok_low and ok_high):
        raise ParameterError(f"{name} must be in {interval}; got {name}={describe(value)}")
    return x


def check_epsilon(name: str, value: Any) -> float:
    """Privacy parameter ε: finite and > 0."""
    return check_positive(name, value)


def check_delta(name: str, value: Any, *, allow_zero: bool = True) -> float:
    """Privacy parameter δ: in [0, 1) (or (0, 1) when ``allow_zero`` is False)."""
    return check_in_range(name, value, 0.0, 1.0, low_inclusive=allow_zero, high_inclusive=False)


def check_sensitivity(name: str, value: Any) -> float:
    """Sensitivity Δ: finite and > 0."""
    return check_positive(name, value)


def check_probability(name: str, value: Any, *, open_low: bool = False,
                      open_high: bool = False) -> float:
    """A probability in [0, 1] (ends optionally open)."""
    return check_in_range(name, value, 0.0, 1.0, low_inclusive=not open_low,
                          high_inclusive=not open_high)


def _int_text(v: Any) -> str:
    """``str(v)``, shortened like :func:`describe` for an integer of very many digits."""
    try:
        text = str(v)
    except ValueError:                   # beyond Python's int-to-str digit limit
        sign = "-" if v < 0 else ""
        return f"<{sign}int of about {int(abs(v).bit_length() * 0.30103) + 1} digits>"
    return text if len(text) <= 60 else text[:57] + "..."


def check_int(name: str, value: Any, *, minimum: int | None = None,
              maximum: int | None = None) -> int:
    """An integer (not a bool, not a float) in ``[minimum, maximum]``."""
    lo = "-inf" if minimum is None else _int_text(minimum)
    hi = "inf" if maximum is None else _int_text(maximum)
    if isinstance(value, np.ndarray) and value.ndim == 0 and np.issubdtype(value.dtype, np.integer):
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer in [{lo}, {hi}]; got {name}={describe(value)} "
                        f"of type {type(value).__name__}")
    v = int(value)
    if (minimum is not None and v < minimum) or (maximum is not None and v > maximum):
        raise ParameterError(f"{name} must be an integer in [{lo}, {hi}]; got {name}={describe(v)}")
    return v


def check_bool(name: str, value: Any) -> bool:
    """``True`` or ``False`` (also NumPy's bool); 0/1, strings and None are refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {name}={describe(value)} "
                        f"of type {type(value).__name__}")
    return bool(value)


def check_array(name: str, value: Any, *, ndim: int | tuple[int, ...] | None = None,
                finite: bool = True, min_size: int = 1, dtype=float,
                allow_bool: bool = True) -> np.ndarray:
    """A numeric array of the given dimension(s), finite by default.

    Accepts numbers, sequences and arrays of real numbers (integers, floats and,
    unless ``allow_bool=False``, booleans). Strings, bytes, None, complex
    numbers, dates and ragged nested lists are refused with a ``TypeError``;
    strings are not parsed as numbers.
    """
    allowed = None if ndim is None else ((ndim,) if isinstance(ndim, int) else tuple(ndim))
    try:
        allowed_text = str(allowed)
    except ValueError:                   # an int beyond Python's int-to-str digit limit
        allowed_text = "(" + ", ".join(_int_text(a) for a in allowed) + ")"
    what = ("a number or array of numbers" if allowed is None
            else f"an array of numbers with ndim in {allowed_text}")

    def refuse(kind: str = ""):
        return TypeError(f"{name} must be {what}{kind}; got {name}={describe(value)} "
                         f"of type {type(value).__name__}")

    if isinstance(value, (str, bytes)) or value is None:
        raise refuse()
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as exc:          # e.g. ragged nested lists
        raise refuse() from exc
    kind = raw.dtype.kind
    if kind == "b" and not allow_bool:
        raise refuse(" (not booleans)")
    if kind == "O":                                  # mixed Python objects: numbers only
        for item in raw.ravel():
            if isinstance(item, (bool, np.bool_)) and not allow_bool:
                raise refuse(" (not booleans)")
            if not isinstance(item, (numbers.Real, np.bool_)):
                raise refuse(" (real numbers only)")
    elif kind not in "biuf":                         # strings, complex, dates, void, ...
        raise refuse(" (real numbers only)")
    try:
        arr = np.asarray(raw, dtype=dtype)
    except OverflowError:                            # Python ints beyond the float range
        raise ParameterError(f"{name} must contain only finite values; "
                             f"got {name}={describe(value)}") from None
    except (TypeError, ValueError) as exc:
        raise refuse() from exc
    if allowed is not None and arr.ndim not in allowed:
        raise ParameterError(f"{name} must have ndim in {allowed_text}; got {name} with shape "
                             f"{arr.shape}")
    if arr.size < min_size:
        raise ParameterError(f"{name} must have at least {_int_text(min_size)} element(s); got "
                             f"{name} with shape {arr.shape}")
    if finite and arr.size and not np.all(np.isfinite(arr)):
        raise ParameterError(f"{name} must contain only finite values; got {name}={describe(value)}")
    return arr


def check_choice(name: str, value: Any, choices) -> Any:
    """One of a fixed set of options (compared with ``==``; unhashable values refused)."""
    options = sorted(choices, key=repr)

    def same(c) -> bool:
        if isinstance(value, (bool, np.bool_)) != isinstance(c, (bool, np.bool_)):
            return False                             # True is not the option 1
        try:
            eq = value == c
        except Exception:                            # noqa: BLE001 - any odd __eq__
            return False
        return isinstance(eq, (bool, np.bool_)) and bool(eq)   # arrays compare elementwise

    if not any(same(c) for c in options):
        raise ParameterError(f"{name} must be one of {options}; got {name}={describe(value)}")
    return value


def check_rng(rng: Any = None) -> np.random.Generator:
    """Turn ``rng`` (None, an int seed or a ``numpy.random.Generator``) into a Generator.

    Never touches NumPy's global random state.
    """
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (bool, np.bool_)):
        raise TypeError("rng must be None, an int seed or a numpy.random.Generator; "
                        f"got rng={rng!r}")
    if isinstance(rng, numbers.Integral):
        if int(rng) < 0:
            raise ParameterError(f"rng seed must be an integer >= 0; got rng={int(rng)}")
        return np.random.default_rng(int(rng))
    raise TypeError("rng must be None, an int seed or a numpy.random.Generator; "
                    f"got rng={describe(rng)} of type {type(rng).__name__}")
