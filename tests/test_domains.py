"""Every parameter of dpteach has a declared teaching domain, and the declarations hold.

Generated from the declarations themselves (``@validate(...)``: ``func.__domains__``;
estimators: ``_parameter_constraints``), as scikit-learn's common tests are generated from
its parameter constraints. For every public function, class and method of the library:

* every parameter has a domain (:func:`test_every_parameter_has_a_domain`);
* the example call answers, with no NaN and no infinity in what it returns (a baseline: a
  bad-value case cannot pass on a function that always raises);
* every *bad* value of each domain (NaN, ±inf, ±0.0 where 0 is excluded, numbers beyond the
  ends, huge integers, booleans, strings, None, ragged and empty arrays, ...) is refused
  with :class:`~dpteach._validation.ParameterError` naming the argument;
* every *edge* value (the ends of each domain; the lower end only for work sizes) gives an
  answer without NaN or infinity, or a ``ParameterError`` naming an argument (a rule that
  ties two arguments together).

A function is called with the valid arguments of :data:`EXAMPLES` (or, where it has no
entry, each parameter's default or its domain's example) with one argument replaced; a
method (or a class that needs more than its arguments) through a factory there. Result
containers the library builds and returns (:data:`RESULTS`) take no student's values and
need no domains.
``benchmarks/bench_domains.py`` times the upper ends of the work sizes instead (a test does
not read the clock). Modules whose checks are still written out are listed in
:data:`WRITTEN_OUT` until they are converted.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import pkgutil
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pytest

import dpteach
from dpteach._validation import Domain, ParameterError

#: modules not yet converted to declarations (their tests: tests/<part>/test_*_edges.py)
WRITTEN_OUT = {
    "dpteach.accounting", "dpteach.attacks", "dpteach.audit",
    "dpteach.exercises", "dpteach.fairness", "dpteach.learning", "dpteach.pate",
    "dpteach.plots", "dpteach.queries", "dpteach.tables",
}

#: valid keyword arguments per callable ("module:qualname"), where the domains' examples do
#: not fit together (arrays of matching shapes, a batch no larger than the data, ...). A value
#: may also be a list of such dicts (parametrisations that exclude each other, e.g. γ or ε:
#: an argument is varied in the first dict that gives it), or a factory returning the callable
#: to use and its keyword arguments (a method: the bound method of a fresh instance).
EXAMPLES: dict[str, Any] = {
    "dpteach.mechanisms.noise:laplace_mechanism": dict(value=[3.0, 7.0], sensitivity=1.0,
                                                       epsilon=1.0, rng=0),
    "dpteach.mechanisms.noise:gaussian_mechanism": dict(value=[3.0, 7.0], sensitivity=1.0,
                                                        epsilon=0.5, delta=1e-5, rng=0),
    "dpteach.mechanisms.noise:gaussian_sigma": dict(sensitivity=1.0, epsilon=0.5, delta=1e-5),
    # randomized response: γ or ε, exactly one
    **{f"dpteach.mechanisms.randomized_response:{name}": [dict(base, gamma=0.25),
                                                          dict(base, epsilon=1.0)]
       for name, base in (("randomized_response", dict(bits=[0, 1, 1], rng=0)),
                          ("rr_estimate", dict(reports=[0, 1, 1])),
                          ("rr_std_error", dict(rate=0.3, n=100)),
                          ("simulate_rr_estimates", dict(true_rate=0.3, n=50, n_trials=10,
                                                         rng=0)))},
    # categories below k
    "dpteach.mechanisms.randomized_response:k_randomized_response": dict(
        values=[0, 1, 1], k=4, epsilon=1.0, rng=0),
    "dpteach.mechanisms.randomized_response:k_rr_estimate": dict(reports=[0, 1, 1], k=4,
                                                                  epsilon=1.0),
    # δ > 0 needs ε < 1 (advanced composition)
    **{f"dpteach.mechanisms.sparse_vector:{name}": [dict(threshold=2.0, epsilon=1.0, **extra),
                                                    dict(threshold=2.0, epsilon=0.5,
                                                         delta=1e-5, **extra)]
       for name, extra in (("SparseVector", dict(rng=0)),
                           ("sparse_vector", dict(values=[1.0, 3.0, 2.0], rng=0)))},
    "dpteach.mechanisms.sparse_vector:sparse_vector_noise_scales": [
        dict(epsilon=1.0), dict(epsilon=0.5, delta=1e-5)],
    "dpteach.mechanisms.sparse_vector:SparseVector.query": lambda: (
        __import__("dpteach.mechanisms.sparse_vector", fromlist=["x"]).SparseVector(
            2.0, 1.0, rng=0).query, dict(answer=1.0)),
    # transcripts no longer than the queries
    **{f"dpteach.mechanisms.sparse_vector:{name}": dict(
        values=[1.0, 3.0, 2.0], answers=[False, True], threshold=2.0, epsilon=1.0)
       for name in ("sparse_vector_pattern_probability", "no_query_noise_pattern_probability")},
    # a range [lower, upper] around the data, at most as many blocks as records
    "dpteach.mechanisms.stability:subsample_and_aggregate": dict(
        data=[1.0, 2.0, 2.0, 3.0, 5.0, 8.0], statistic="mean", n_blocks=3, lower=0.0,
        upper=10.0, epsilon=1.0, rng=0),
    "dpteach.mechanisms.stability:block_estimates": dict(data=[1.0, 2.0, 2.0, 3.0, 5.0, 8.0],
                                                         n_blocks=3, rng=0),
    "dpteach.mechanisms.stability:subsample_and_aggregate_sensitivity": dict(
        lower=0.0, upper=10.0, n_blocks=3),
    **{f"dpteach.mechanisms.stability:{name}": dict(
        data=[1.0, 2.0, 2.0, 3.0, 5.0, 8.0], lower=0.0, upper=10.0, **extra)
       for name, extra in (("median_local_sensitivity", {}),
                           ("median_distance_to_instability", dict(bound=1.0)),
                           ("propose_test_release_median", dict(bound=1.0, epsilon=1.0,
                                                                delta=1e-5, rng=0)))},
    # the secure mechanisms: the noise in grid units below the samplers' limits
    "dpteach.exact.secure:secure_laplace_mechanism": dict(value=[0.5, -1.25], sensitivity=1.0,
                                                          epsilon=1.0, rng=0, granularity=0.5),
    "dpteach.exact.secure:secure_gaussian_mechanism": dict(
        value=[0.5, -1.25], sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0, granularity=0.5),
    # λ = Δ/ε < bound < 2**46·λ
    "dpteach.exact.snapping:snapping_mechanism": dict(value=[0.0, 3.5], sensitivity=1.0,
                                                      epsilon=1.0, bound=100.0, rng=0),
    "dpteach.exact.snapping:snapping_epsilon": dict(epsilon=1.0, sensitivity=1.0, bound=100.0),
    "dpteach.datasets:adult_arrays": lambda: (
        __import__("dpteach.datasets", fromlist=["x"]).adult_arrays,
        dict(df=__import__("dpteach.datasets", fromlist=["x"]).load_adult().head(300))),
}

#: parameters whose edge values are not tried, with the reason
NO_EDGES: dict[str, str] = {}

#: callables whose results may hold an infinity by design (a log-probability of 0, ...)
MAY_RETURN_INF: set[str] = {
    # γ, the distance to instability of the median, is ∞ (by definition, and documented)
    # when the proposed bound is at least b − a: no dataset's median can move more; PTR's
    # noisy distance γ + Lap(2/ε) is then ∞ too, and the test always passes
    "dpteach.mechanisms.stability:median_distance_to_instability",
    "dpteach.mechanisms.stability:propose_test_release_median",
}

#: result containers ("module:qualname"): classes the library builds and returns, never called
#: with a student's values (their public methods are still walked)
RESULTS: set[str] = {
    "dpteach.mechanisms.randomized_response:RREstimate",
    "dpteach.mechanisms.sparse_vector:SparseVectorResult",
    "dpteach.mechanisms.stability:PTRResult",
    "dpteach.datasets:AdultArrays",
}


# ------------------------------------------------------------------------- the walk
def _converted(module_name: str) -> bool:
    return not any(module_name == w or module_name.startswith(w + ".") for w in WRITTEN_OUT)


def library_modules() -> dict[str, Any]:
    found = {}
    for info in pkgutil.walk_packages(dpteach.__path__, "dpteach."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        found[info.name] = importlib.import_module(info.name)
    return found


def public_callables() -> dict[str, Callable]:
    """"module:qualname" → callable, for the public functions, classes and their public
    methods defined in the converted modules."""
    out = {}
    for name, module in library_modules().items():
        if not _converted(name):
            continue
        for attr, obj in vars(module).items():
            if attr.startswith("_") or getattr(obj, "__module__", None) != name:
                continue
            if inspect.isfunction(obj):
                out[f"{name}:{attr}"] = obj
            elif inspect.isclass(obj) and not issubclass(obj, BaseException):
                if f"{name}:{attr}" not in RESULTS:
                    out[f"{name}:{attr}"] = obj
                for meth, fn in vars(obj).items():
                    if not meth.startswith("_") and inspect.isfunction(fn):
                        out[f"{name}:{attr}.{meth}"] = fn
    return out


CALLABLES = public_callables()


def _parameters(obj: Callable) -> list[str]:
    target = obj.__init__ if inspect.isclass(obj) else obj
    sig = inspect.signature(inspect.unwrap(target))
    return [p.name for p in sig.parameters.values()
            if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _domains(obj: Callable) -> Mapping[str, Domain]:
    if inspect.isclass(obj) and hasattr(obj, "_parameter_constraints"):
        return obj._parameter_constraints
    return getattr(obj, "__domains__", {})


def _is_method(key: str) -> bool:
    return "." in key.split(":")[1]


def _has_factory(key: str) -> bool:
    return callable(EXAMPLES.get(key))


def _example(key: str, obj: Callable, name: str | None = None) -> tuple[Callable, dict[str, Any]]:
    """The callable to call and valid keyword arguments for it (to vary ``name``)."""
    spec = EXAMPLES.get(key)
    if callable(spec):
        func, kwargs = spec()
        return func, dict(kwargs)
    if isinstance(spec, list):
        spec = next((d for d in spec if d.get(name) is not None), spec[0])
    if spec is not None:
        return obj, dict(spec)
    target = obj.__init__ if inspect.isclass(obj) else obj
    sig = inspect.signature(inspect.unwrap(target))
    doms = _domains(obj)
    kwargs = {}
    for p in sig.parameters.values():
        if p.name in ("self", "cls") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.default is not p.empty:
            continue
        kwargs[p.name] = doms[p.name].example
    return obj, kwargs


def _non_finite(value: Any, depth: int = 0) -> str | None:
    """Where ``value`` holds a NaN or an infinity (None if nowhere)."""
    if depth > 6:
        return None
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (float, np.floating)):
        return None if math.isfinite(value) else repr(value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc" and not np.all(np.isfinite(value)):
            return f"array with {int(np.sum(~np.isfinite(value)))} non-finite entries"
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            where = _non_finite(getattr(value, f.name), depth + 1)
            if where:
                return f"{f.name}: {where}"
        return None
    if isinstance(value, Mapping):
        for k, v in value.items():
            where = _non_finite(v, depth + 1)
            if where:
                return f"[{k!r}]: {where}"
        return None
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            where = _non_finite(v, depth + 1)
            if where:
                return f"[{i}]: {where}"
    return None


def _call(key: str, func: Callable, kwargs: dict[str, Any]) -> Any:
    if _is_method(key) and not _has_factory(key):
        pytest.skip("methods are called through their EXAMPLES factory")   # pragma: no cover
    return func(**kwargs)


def _cases(kind: str) -> list:
    out = []
    for key, obj in CALLABLES.items():
        if _is_method(key) and not _has_factory(key):
            continue                       # a method needs an instance: EXAMPLES' factory
        doms = _domains(obj)
        for name, dom in doms.items():
            values = dom.bad if kind == "bad" else dom.edges
            if kind == "edge" and f"{key}({name})" in NO_EDGES:
                continue
            for i, v in enumerate(values):
                out.append(pytest.param(key, name, v, id=f"{key.split(':')[1]}-{name}-{i}"))
    return out


# -------------------------------------------------------------------------- tests
def test_the_walk_finds_the_converted_modules():
    assert "dpteach.mechanisms.noise:laplace_mechanism" in CALLABLES


@pytest.mark.parametrize("key", sorted(CALLABLES))
def test_every_parameter_has_a_domain(key):
    obj = CALLABLES[key]
    missing = sorted(set(_parameters(obj)) - set(_domains(obj)))
    assert not missing, f"{key}: parameters without a declared domain: {missing}"


@pytest.mark.parametrize("key", sorted(k for k in CALLABLES
                                        if not _is_method(k) or _has_factory(k)))
def test_the_example_call_answers(key):
    obj = CALLABLES[key]
    result = _call(key, *_example(key, obj))
    if key not in MAY_RETURN_INF:
        assert _non_finite(result) is None, f"{key} returned {_non_finite(result)}"


@pytest.mark.parametrize("key, name, bad", _cases("bad"))
def test_bad_values_are_refused_by_name(key, name, bad):
    func, kwargs = _example(key, CALLABLES[key], name)
    kwargs[name] = bad
    with pytest.raises(ParameterError, match=rf"\b{re.escape(name)}\b"):
        _call(key, func, kwargs)


@pytest.mark.parametrize("key, name, edge", _cases("edge"))
def test_edge_values_answer_without_nan_or_inf(key, name, edge):
    func, kwargs = _example(key, CALLABLES[key], name)
    kwargs[name] = edge
    try:
        result = _call(key, func, kwargs)
    except ParameterError as err:          # a rule tying two arguments: it names them
        assert any(re.search(rf"\b{re.escape(p)}\b", str(err)) for p in kwargs), str(err)
        return
    if key not in MAY_RETURN_INF:
        assert _non_finite(result) is None, f"{key}({name}={edge!r}) returned {_non_finite(result)}"


# ------------------------------------------------------------- the machinery itself
def test_validate_converts_positional_keyword_and_default_arguments():
    from dpteach._validation import EPSILON, RNG, validate

    @validate(epsilon=EPSILON, rng=RNG)
    def f(x, epsilon, rng=None):
        return x, epsilon, rng

    x, eps, gen = f("anything", 2)
    assert eps == 2.0 and type(eps) is float and isinstance(gen, np.random.Generator)
    assert f(1, epsilon=3)[1] == 3.0
    assert f.__wrapped__(1, 2)[2] is None                  # the unchecked algorithm
    assert set(f.__domains__) == {"epsilon", "rng"}
    with pytest.raises(ParameterError, match=r"epsilon must be a number in \[1e-06, 1000\]; "
                                             r"got epsilon=-1"):
        f(1, -1)


def test_domains_combine_and_refuse_by_name():
    from dpteach._validation import FLAG, array, choice, integer, one_of, real

    maybe = array(ndim=1).or_none()
    assert maybe("x", None) is None and maybe("x", [1, 2]).tolist() == [1.0, 2.0]
    either = one_of(choice("auto"), real(0.0, 1.0))
    assert either("x", "auto") == "auto" and either("x", 0.5) == 0.5
    for dom, bad in ((integer(1, 5), 2.0), (integer(1, 5), True), (FLAG, 1),
                     (choice("a", "b"), "c"), (array(ndim=1), [[1.0]]), (maybe, "abc")):
        with pytest.raises(ParameterError, match=r"^arg must be .*; got arg"):
            dom("arg", bad)


def test_rational_takes_numbers_exactly():
    from fractions import Fraction

    from dpteach._validation import rational

    dom = rational(1e-6, 2**50)
    assert dom("t", 0.1) == Fraction(0.1) != Fraction(1, 10)       # the double, exactly
    assert dom("t", Fraction(1, 3)) == Fraction(1, 3) and dom("t", np.int64(3)) == 3
    assert dom("t", 2**50) == 2**50 and dom("t", 1e-6) == Fraction(1e-6)
    for bad in (Fraction(1, 10**7), 2**50 + 1, math.inf, True, "1", None):
        with pytest.raises(ParameterError, match=r"^t must be a number in \[1e-06, "):
            dom("t", bad)


def test_arrays_of_booleans_and_negative_zero():
    from dpteach._validation import array, real

    bits = array(low=0, high=1, integers=True, booleans=True)
    assert bits("b", [True, False, 1]).tolist() == [1.0, 0.0, 1.0]
    with pytest.raises(ParameterError, match="^b must be"):
        array()("b", [True, False])                                  # not by default
    # -0.0 passes "≥ 0" and comes out as 0.0: NumPy refuses a scale of -0.0
    zero = real(0.0, 1.0)("s", -0.0)
    assert zero == 0.0 and math.copysign(1.0, zero) == 1.0
    assert -0.0 in real(0.0, 1.0).edges                             # the generated tests try it


def test_validate_params_checks_an_estimators_hyper_parameters():
    from dpteach._validation import EPSILON, validate_params

    class Estimator:
        _parameter_constraints = {"epsilon": EPSILON}

        def __init__(self, epsilon=1.0):
            self.epsilon = epsilon

    est = Estimator(epsilon=2)
    validate_params(est)
    assert est.epsilon == 2.0 and type(est.epsilon) is float
    with pytest.raises(ParameterError, match="epsilon"):
        validate_params(Estimator(epsilon="high"))


def test_declaring_an_unknown_parameter_fails_at_import():
    from dpteach._validation import EPSILON, validate

    with pytest.raises(TypeError, match="unknown parameters"):
        validate(epsilon=EPSILON, eps=EPSILON)(lambda epsilon: epsilon)


def test_parameter_error_is_both_value_and_type_error():
    assert issubclass(ParameterError, ValueError) and issubclass(ParameterError, TypeError)


def test_the_generated_checks_can_fail(monkeypatch):
    # A function whose declaration is too wide is caught: it answers a bad value (no
    # error) and returns NaN at an edge.
    from dpteach._validation import real, validate

    loose = real(-1.0, 1.0)

    @validate(p=loose)
    def sqrt_p(p):
        return math.sqrt(p) if p >= 0 else math.nan

    with pytest.raises(AssertionError):
        assert _non_finite(sqrt_p(-1.0)) is None
    bad_ok = validate(p=real(-math.inf, math.inf))(lambda p: p)
    with pytest.raises(pytest.fail.Exception):
        with pytest.raises(ParameterError):
            bad_ok(math.inf)
    key = "dpteach.mechanisms.noise:laplace_scale"
    monkeypatch.setitem(CALLABLES, key, validate(sensitivity=real(0.0, 1.0),
                                                 epsilon=real(0.0, 1.0))(lambda sensitivity,
                                                                         epsilon: sensitivity / epsilon))
    with pytest.raises((AssertionError, ZeroDivisionError)):
        test_edge_values_answer_without_nan_or_inf(key, "epsilon", 0.0)
