"""How dpteach checks its arguments: declared teaching domains and one error type.

A public function declares the *teaching domain* of each parameter, so that its body is
the algorithm::

    @validate(value=VALUES, sensitivity=SENSITIVITY, epsilon=EPSILON, rng=RNG)
    def laplace_mechanism(value, sensitivity, epsilon, rng=None):
        return value + rng.laplace(0.0, sensitivity / epsilon, size=np.shape(value) or None)

Before the body runs every declared argument is converted (a Python ``float`` or ``int``, a
NumPy array, a ``numpy.random.Generator``) and checked; a value outside its domain raises
:class:`ParameterError` naming the argument, the value and the allowed range::

    ParameterError: epsilon must be a number in [1e-06, 1000]; got epsilon=-1.0

A teaching domain is what a course needs (ε from 10⁻⁶ to 10³, counts below 2⁵³, work sizes
that finish in seconds on one core), not everything a float can hold; inside it no function
returns NaN or an infinity silently. The named domains at the end are the library's
vocabulary; a module builds its own with :func:`real`, :func:`integer`, :func:`array`,
:func:`choice`, :func:`one_of`. ``func.__domains__`` holds the declarations (the tests
generate the bad-input and edge cases from them), ``func.__wrapped__`` the unchecked
algorithm for inner loops. Rules tying two arguments together stay in the body, short.
``docs/developing.md`` says how to declare a module.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, Union

import numpy as np
import numpy.typing as npt

__all__ = [
    "ParameterError", "Domain", "validate", "validate_params", "documented", "describe", "refuse",
    "real", "integer", "rational", "array", "choice", "one_of", "anything", "function",
    "instance_of",
    "ArrayLike", "Seed",
    "EPSILON", "EPSILON_OR_ZERO", "DELTA", "DELTA_POSITIVE", "PROBABILITY",
    "SENSITIVITY", "SCALE", "VALUE", "VALUES", "COUNT", "POSITIVE_COUNT", "FLAG", "RNG",
]

#: anything NumPy turns into an array: a number, a (nested) list, an array
ArrayLike = npt.ArrayLike
#: what ``rng=`` accepts: None (fresh entropy), an int seed ≥ 0, or a Generator
Seed = Union[None, int, np.random.Generator]


class ParameterError(ValueError, TypeError):
    """Arguments that dpteach does not allow: of the wrong kind, out of range, too large.

    Both a ValueError (a value out of range) and a TypeError (a string where a number
    belongs); the app shows exactly this type as a friendly message.
    """


def describe(value: Any) -> str:
    """A short ``repr`` of ``value`` for an error message (at most 60 characters)."""
    try:
        text = repr(value)
    except Exception:                    # noqa: BLE001 - e.g. ints beyond str() digit limit
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


def refuse(name: str, value: Any, allowed: str) -> ParameterError:
    """The error for an argument a rule refuses: ``"{name} must be {allowed}; got
    {name}={value}"``, the form of every message (a domain's refusal too)."""
    return ParameterError(f"{name} must be {allowed}; got {name}={describe(value)}")


# ------------------------------------------------------------------------------- domains
class Domain:
    """The allowed values of one parameter: a text for the error message and the docs, a
    converter that returns the value to use (or raises :class:`ParameterError`), and the
    values the generated tests try: ``example`` (valid), ``edges`` (valid extremes, where
    the function must still answer without NaN or inf) and ``bad`` (to be refused)."""

    __slots__ = ("text", "convert", "example", "edges", "bad", "work", "high")

    def __init__(self, text: str, convert: Callable[[str, Any], Any], *, example: Any = None,
                 edges: Sequence = (), bad: Sequence = (), work: bool = False,
                 high: Any = None):
        self.text, self.convert = text, convert
        self.example, self.edges, self.bad = example, tuple(edges), tuple(bad)
        # a work size (runs, samples, ...): its upper end ``high`` is timed by
        # benchmarks/bench_domains.py rather than tried by the tests
        self.work, self.high = work, high

    def __call__(self, name: str, value: Any) -> Any:
        return self.convert(name, value)

    def __repr__(self) -> str:
        return f"Domain({self.text!r})"

    def refuse(self, name: str, value: Any) -> ParameterError:
        plain = isinstance(value, (numbers.Real, np.ndarray)) and not isinstance(value, bool)
        kind = "" if plain else f" of type {type(value).__name__}"
        return ParameterError(f"{name} must be {self.text}; got {name}={describe(value)}{kind}")

    def or_none(self) -> Domain:
        """This domain, or None (left as None)."""
        return one_of(_NONE, self)

    def flat(self) -> Domain:
        """This domain (of numbers or arrays), its value returned as a 1-D array."""
        return Domain(self.text, lambda name, value: np.reshape(self.convert(name, value), -1),
                      example=self.example, edges=self.edges, bad=self.bad)


def _number_text(x: float) -> str:
    if isinstance(x, numbers.Integral) or (math.isfinite(x) and x == int(x) and abs(x) < 1e16):
        return f"{int(x):,}".replace(",", "") if abs(x) < 1e7 else f"{x:g}"
    return f"{x:g}"


def real(low: float, high: float, *, low_open: bool = False, high_open: bool = False,
         example: float | None = None) -> Domain:
    """A real number in the interval from ``low`` to ``high`` (a Python float).

    Booleans, strings, complex numbers and NaN are refused; integers are converted, and
    -0.0 to 0.0.
    """
    text = ("a number in " + ("(" if low_open else "[") + f"{_number_text(low)}, "
            f"{_number_text(high)}" + (")" if high_open else "]"))

    def convert(name: str, value: Any) -> float:
        if type(value) is float:
            x = value
        elif isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
                return convert(name, value[()])
            raise domain.refuse(name, value)
        else:
            try:
                x = float(value)
            except OverflowError:        # an int beyond the float range
                raise domain.refuse(name, value) from None
        if (x > low if low_open else x >= low) and (x < high if high_open else x <= high):
            return x + 0.0                 # -0.0 becomes 0.0: NumPy refuses a scale of -0.0
        raise domain.refuse(name, value)   # also NaN, which fails every comparison

    lo_edge = math.nextafter(low, math.inf) if low_open else low
    hi_edge = math.nextafter(high, -math.inf) if high_open else high
    below = low - max(abs(low), 1.0) if low > -math.inf else None
    above = high + max(abs(high), 1.0) if high < math.inf else None
    bad = [math.nan, "1", None, True, 1j, [1.0]]
    bad += [v for v in (below, above, math.inf, -math.inf) if v is not None
            and not ((v > low if low_open else v >= low) and (v < high if high_open else v <= high))]
    if low_open and low == 0:
        bad += [0.0, -0.0]
    domain = Domain(text, convert, bad=bad,
                    example=(example if example is not None
                             else min(max(1.0, lo_edge), hi_edge)),
                    edges=[e for e in (lo_edge, hi_edge) if math.isfinite(e)]
                    + ([-0.0] if low == 0 and not low_open else []))
    return domain


def integer(low: int, high: int, *, example: int | None = None, work: bool = False) -> Domain:
    """A whole number (``int`` or a NumPy integer, not a bool, not a float) in [low, high].

    ``work=True`` marks a size that costs time (runs, samples, queries): its upper end is
    what finishes in seconds on one core, and the generated tests try only its lower end
    (``benchmarks/bench_domains.py`` times the upper one).
    """
    text = f"an integer in [{_number_text(low)}, {_number_text(high)}]"

    def convert(name: str, value: Any) -> int:
        if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu":
            value = value[()]
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            raise domain.refuse(name, value)
        v = int(value)
        if low <= v <= high:
            return v
        raise domain.refuse(name, value)

    domain = Domain(text, convert, example=example if example is not None else max(low, min(2, high)),
                    edges=(low,) if work else (low, high),
                    bad=[low - 1, high + 1, 2.5, "3", None, True, math.nan], work=work, high=high)
    return domain


def rational(low: float, high: float, *,
             text: str | None = None, example: Any = None, work: bool = False) -> Domain:
    """An exact number in [low, high]: an ``int``, a :class:`fractions.Fraction`, or a float
    taken exactly (``Fraction(0.1)`` is the double nearest 0.1, not 1/10). Returns a
    Fraction. ``work=True`` as for :func:`integer`."""
    text = text or (f"a number in [{_number_text(low)}, {_number_text(high)}] (an int, a "
                    "Fraction or a float, used exactly)")

    def convert(name: str, value: Any) -> Fraction:
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value[()]
        if isinstance(value, (bool, np.bool_)):
            raise domain.refuse(name, value)
        if isinstance(value, numbers.Rational):
            exact = Fraction(int(value.numerator), int(value.denominator))
        elif isinstance(value, (float, np.floating)) and math.isfinite(value):
            exact = Fraction(*float(value).as_integer_ratio())    # exact, no rounding
        else:
            raise domain.refuse(name, value)
        if low <= exact <= high:
            return exact
        raise domain.refuse(name, value)

    domain = Domain(text, convert, example=example if example is not None else high if high < 1
                    else max(low, 1), edges=(low,) if work else (low, high),
                    bad=[-1, 0, low / 2 if low > 0 else low - 1, high * 2, math.nan, math.inf,
                         True, "1", None, 1j])
    return domain


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def array(*, ndim: int | tuple[int, ...] | None = None, min_size: int = 1,
          max_size: int = 10**7, low: float = -math.inf, high: float = math.inf,
          integers: bool = False, dtype=float, text: str | None = None,
          example: Any = None, booleans: bool = False, max_rows: int | None = None,
          finite: bool = True) -> Domain:
    """A numeric array (numbers, nested lists or arrays of real numbers; not booleans, not
    strings, not ragged), of the given dimension(s) and size, every entry finite and in
    [low, high] (whole numbers with ``integers=True``). Returns a NumPy array of ``dtype``
    (``dtype=np.floating``: float32 and float64 arrays keep their precision, anything else
    becomes float64). ``booleans=True`` also accepts True/False (as 1/0: a mask, a 0/1
    indicator); ``finite=False`` also NaN and ±inf (a gap in a plotted line), the finite
    entries in range. ``max_rows`` bounds the length of the first axis (a data set's rows,
    whose count sets the work) as ``max_size`` bounds the entries.
    """
    dims = None if ndim is None else ((ndim,) if isinstance(ndim, int) else tuple(ndim))
    shape_text = "" if dims is None else {(0,): "a number", (1,): "a 1-D array",
                                          (2,): "a 2-D array", (0, 1): "a number or 1-D array",
                                          (1, 2): "a 1-D or 2-D array"}.get(dims, f"an array with ndim in {dims}")
    what = "whole numbers" if integers else "numbers"
    bounds = ("" if low == -math.inf and high == math.inf
              else f" in [{_number_text(low)}, {_number_text(high)}]")
    if text is None:
        text = (f"{shape_text or 'an array'} of finite {what}{bounds}"
                + (f", {min_size:,} to {max_size:,} of them" if min_size > 1 or max_size < 10**7
                   else "") + (f", at most {max_rows:,} rows" if max_rows is not None else ""))

    def convert(name: str, value: Any) -> np.ndarray:
        if isinstance(value, (str, bytes)) or value is None:
            raise domain.refuse(name, value)
        try:
            raw = np.asarray(value)
        except (TypeError, ValueError):              # ragged nested lists
            raise domain.refuse(name, value) from None
        if raw.dtype.kind == "O":
            if not all(isinstance(v, (numbers.Real, np.bool_)) and (
                    booleans or not isinstance(v, (bool, np.bool_))) for v in raw.ravel()):
                raise domain.refuse(name, value)
        elif raw.dtype.kind not in ("biuf" if booleans else "iuf"):   # strings, complex, dates
            raise domain.refuse(name, value)
        try:
            arr = np.asarray(raw, dtype=(raw.dtype if raw.dtype in _FLOATS else float)
                             if dtype is np.floating else dtype)
        except (OverflowError, TypeError, ValueError):
            raise domain.refuse(name, value) from None
        if dims is not None and arr.ndim not in dims:
            raise ParameterError(f"{name} must be {text}; got {name} with shape {arr.shape}")
        if not min_size <= arr.size <= max_size:
            raise ParameterError(f"{name} must be {text}; got {name} with {arr.size:,} "
                                 "entries")
        if max_rows is not None and arr.ndim and arr.shape[0] > max_rows:
            raise ParameterError(f"{name} must be {text}; got {name} with {arr.shape[0]:,} rows")
        shown = arr if finite else arr[np.isfinite(arr)]
        lo, hi = (shown.min(), shown.max()) if shown.size else (low, high)  # NaN/±inf if any
        if shown.size and not (np.isfinite(lo) and np.isfinite(hi) and lo >= low and hi <= high
                               and (not integers or np.all(shown == np.round(shown)))):
            raise domain.refuse(name, value)
        return arr

    base = example if example is not None else [max(low, min(0.5, high))] * max(min_size, 3)
    domain = Domain(text, convert, example=base,
                    edges=[v for v in ([low] * max(min_size, 1), [high] * max(min_size, 1))
                           if math.isfinite(v[0])],
                    bad=["abc", None, [[1.0, 2.0], [3.0]], [1j]]
                    + ([[math.nan] * max(min_size, 1), [math.inf] * max(min_size, 1)] if finite
                       else [])
                    + ([] if booleans else [[True] * max(min_size, 1)])
                    + ([[]] if min_size > 0 else []))
    return domain


def choice(*options: Any) -> Domain:
    """One of a fixed set of options (compared with ``==``; True is not the option 1)."""
    text = "one of " + ", ".join(repr(o) for o in options)

    def convert(name: str, value: Any) -> Any:
        for option in options:
            if (type(value) is type(option) or (isinstance(value, str) and isinstance(option, str))) \
                    and value == option:
                return option
        raise domain.refuse(name, value)

    domain = Domain(text, convert, example=options[0], edges=options,
                    bad=["not an option", None, 1.5])
    return domain


def one_of(*domains: Domain, text: str | None = None) -> Domain:
    """A value of the first of ``domains`` that accepts it (e.g. None or an array)."""
    text = text or " or ".join(d.text for d in domains)

    def convert(name: str, value: Any) -> Any:
        for d in domains:
            try:
                return d.convert(name, value)
            except ParameterError:
                continue
        raise domain.refuse(name, value)

    bad = [b for b in domains[-1].bad if not _accepts(domains, b)]
    domain = Domain(text, convert, example=domains[-1].example,
                    edges=[e for d in domains for e in d.edges], bad=bad)
    return domain


def _accepts(domains: Sequence[Domain], value: Any) -> bool:
    for d in domains:
        try:
            d.convert("x", value)
            return True
        except ParameterError:
            pass
    return False


def anything(text: str, *, example: Any = None) -> Domain:
    """A parameter whose values are not numbers (an estimator, a callable, a table); its
    function checks what it needs. ``text`` documents what is expected."""
    return Domain(text, lambda name, value: value, example=example)


def function(text: str, *, example: Any = None) -> Domain:
    """A callable (a mechanism, a scoring function); ``text`` says how it is called."""
    return _accepting(callable, text, example, ["not a function", None, 3])


def instance_of(cls: type, text: str, *, example: Any = None) -> Domain:
    """An instance of ``cls`` (a network, a result the library made); ``text`` names it."""
    return _accepting(lambda value: isinstance(value, cls), text, example,
                      [None, "made by hand", 1.0])


def _accepting(accepts: Callable[[Any], bool], text: str, example: Any, bad: list) -> Domain:
    def convert(name: str, value: Any) -> Any:
        if accepts(value):
            return value
        raise domain.refuse(name, value)

    domain = Domain(text, convert, example=example, bad=bad)
    return domain


def _none(name: str, value: Any) -> None:
    if value is not None:
        raise ParameterError(f"{name} must be None; got {name}={describe(value)}")


_NONE = Domain("None", _none, edges=(None,))


def _flag(name: str, value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise FLAG.refuse(name, value)


def _rng(name: str, value: Any) -> np.random.Generator:
    if isinstance(value, np.random.Generator):
        return value
    if value is None:
        return np.random.default_rng()
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)) \
            and 0 <= int(value) < 2**63:
        return np.random.default_rng(int(value))
    raise RNG.refuse(name, value)


# ------------------------------------------------------------------- the named domains
#: privacy parameter ε
EPSILON = real(1e-6, 1e3)
#: ε where 0 is meaningful (δ(0) is the total-variation distance)
EPSILON_OR_ZERO = real(0.0, 1e3)
#: δ: 0 (pure DP) or a failure probability from 10⁻⁵⁰ (far below any 1/n) to below 1
DELTA = one_of(real(0.0, 0.0), real(1e-50, 1.0, high_open=True, example=1e-5),
               text="0 or a number in [1e-50, 1)")
#: δ > 0, where δ = 0 has no finite answer (the Gaussian mechanism)
DELTA_POSITIVE = real(1e-50, 1.0, high_open=True, example=1e-5)
#: a probability
PROBABILITY = real(0.0, 1.0, example=0.5)
#: a query's sensitivity Δ
SENSITIVITY = real(1e-6, 1e6)
#: a noise scale or standard deviation (Laplace b, Gaussian σ): wide enough to hold every
#: scale calibrated from the domains above (Δ/ε from 1e-9 to 1e12; σ up to ~1e13)
SCALE = real(1e-12, 1e15)
#: one number of data or an answer: counts and sums up to 10¹⁵, where doubles still hold
#: every integer exactly
VALUE = real(-1e15, 1e15, example=3.0)
#: answers: a number (a Python float) or an array of numbers (the mechanisms keep the shape)
VALUES = one_of(VALUE, array(low=-1e15, high=1e15, min_size=0),
                text="a number or an array of numbers in [-1e15, 1e15]")
#: a count (people, rows, queries): below 2⁵³, where doubles hold every integer
COUNT = integer(0, 2**53 - 1, example=10)
#: a count that must be at least 1 (a number of blocks, of teachers, of steps)
POSITIVE_COUNT = integer(1, 2**53 - 1, example=10)
#: True or False (not 0/1, not a string)
FLAG = Domain("True or False", _flag, example=True, edges=(True, False),
              bad=[0, 1, "yes", None, 1.0])
#: ``rng=``: None (fresh entropy), an int seed in [0, 2⁶³), or a numpy.random.Generator
RNG = Domain("None, an int seed in [0, 2**63) or a numpy.random.Generator", _rng,
             example=0, edges=(None, 0, 2**63 - 1), bad=[-1, 1.5, "seed", True, 2**63])


# ------------------------------------------------------------------------- declaring
_KINDS = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def validate(**domains: Domain) -> Callable:
    """Declare the domains of a function's parameters (or a class's ``__init__``).

    The decorated function converts and checks every declared argument, given or
    defaulted, before its body runs; ``__wrapped__`` is the unchecked function and
    ``__domains__`` the declarations. Declaring a name the function does not have is an
    error when the module is imported.
    """

    def decorate(func):
        if isinstance(func, type):
            func.__init__ = decorate(func.__init__)
            func.__domains__ = func.__init__.__domains__
            func.__doc__ = _with_domains(func.__doc__, domains)
            return func
        sig = inspect.signature(func)
        unknown = set(domains) - set(sig.parameters)
        if unknown:
            raise TypeError(f"{func.__qualname__} declares unknown parameters {sorted(unknown)}")
        params = list(sig.parameters.values())
        position = {p.name: i for i, p in enumerate(params) if p.kind in _KINDS}
        default = {p.name: p.default for p in params if p.default is not p.empty}
        plan = [(name, position.get(name, -1), dom, name in default, default.get(name))
                for name, dom in domains.items()]

        @functools.wraps(func)
        def checked(*args, **kwargs):
            if args:
                args = list(args)
            for name, pos, dom, has_default, dflt in plan:
                if 0 <= pos < len(args):
                    args[pos] = dom.convert(name, args[pos])
                elif name in kwargs:
                    kwargs[name] = dom.convert(name, kwargs[name])
                elif has_default:
                    kwargs[name] = dom.convert(name, dflt)
            return func(*args, **kwargs)

        checked.__domains__ = dict(domains)
        checked.__doc__ = _with_domains(func.__doc__, domains)
        return checked

    return decorate


def _with_domains(doc: str | None, domains: dict[str, Domain]) -> str | None:
    """``doc`` with a "Teaching domains" section listing each declared parameter's domain
    (what ``help()`` and the docs show; the source keeps the one-line declaration)."""
    if not doc or not domains:
        return doc
    lines = doc.expandtabs().splitlines()
    indent = min((len(x) - len(x.lstrip()) for x in lines[1:] if x.strip()), default=4)
    pad = " " * indent
    section = [f"{pad}Teaching domains", f"{pad}----------------"]
    section += [f"{pad}{name} : {dom.text}" for name, dom in domains.items()]
    return doc.rstrip() + "\n\n" + "\n".join(section) + "\n" + pad


def documented(cls: Any) -> Any:
    """A class decorator for a scikit-learn-style estimator: its docstring gains the
    "Teaching domains" section of its ``_parameter_constraints`` (checked in ``fit`` by
    :func:`validate_params`), as :func:`validate` adds one to a function's."""
    cls.__doc__ = _with_domains(cls.__doc__, cls._parameter_constraints)
    return cls


def validate_params(estimator: Any, *, store: bool = True) -> dict[str, Any]:
    """Check an estimator's hyper-parameters against its ``_parameter_constraints`` (the
    scikit-learn convention: checked in ``fit``, not in ``__init__``) and return the
    converted values by name. ``store=True`` also stores them back; ``store=False`` leaves
    the hyper-parameters as given (an int seed ``rng`` stays an int, so that every ``fit``
    draws the same numbers and ``get_params`` returns what was set)."""
    values = {name: dom.convert(name, getattr(estimator, name))
              for name, dom in type(estimator)._parameter_constraints.items()}
    if store:
        for name, value in values.items():
            setattr(estimator, name, value)
    return values
