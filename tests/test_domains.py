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
entry, each parameter's default or its domain's example) with one argument replaced.
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
import pandas as pd
import pytest

import dpteach
from dpteach._validation import Domain, ParameterError

#: modules not yet converted to declarations (their tests: tests/<part>/test_*_edges.py)
WRITTEN_OUT = {
    "dpteach.attacks", "dpteach.audit", "dpteach.datasets",
    "dpteach.exercises", "dpteach.fairness", "dpteach.learning", "dpteach.pate",
    "dpteach.plots", "dpteach.tables", "dpteach.exact",
    "dpteach.mechanisms.l2_laplace",
    "dpteach.mechanisms.randomized_response", "dpteach.mechanisms.selection",
    "dpteach.mechanisms.sparse_vector", "dpteach.mechanisms.stability",
}

#: valid keyword arguments per callable ("module:qualname"), where the domains' examples do
#: not fit together (arrays of matching shapes, a batch no larger than the data, ...). For a
#: method, a factory: a function returning (the method bound to a fresh instance, kwargs).
EXAMPLES: dict[str, Any] = {
    "dpteach.mechanisms.noise:laplace_mechanism": dict(value=[3.0, 7.0], sensitivity=1.0,
                                                       epsilon=1.0, rng=0),
    "dpteach.mechanisms.noise:gaussian_mechanism": dict(value=[3.0, 7.0], sensitivity=1.0,
                                                        epsilon=0.5, delta=1e-5, rng=0),
    "dpteach.mechanisms.noise:gaussian_sigma": dict(sensitivity=1.0, epsilon=0.5, delta=1e-5),
}


# ------------------------------------------------------- accounting and queries
def _rdp_accountant():
    from dpteach.accounting.rdp import RDPAccountant

    acc = RDPAccountant(orders=[2.0, 8.0])
    acc.step(noise_multiplier=1.0, sample_rate=0.01, steps=100)
    return acc


def _pld_accountant():
    from dpteach.accounting.pld import PLDAccountant

    acc = PLDAccountant(value_discretization_interval=1e-2)
    acc.step(noise_multiplier=1.0, sample_rate=0.01, steps=100)
    return acc


def _budget():
    from dpteach.accounting.composition import BudgetAccountant

    return BudgetAccountant(epsilon=1.0, delta=1e-5)


def _universe():
    from dpteach.queries.linear import Universe

    return Universe(("a",), (("x", "y"),))


def _queries():
    from dpteach.queries.linear import LinearQueries

    return LinearQueries(np.ones((5, 4)))


def _adult_universe():
    from dpteach.queries.linear import adult_universe

    return adult_universe()


_Q = [[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0], [0.5, 0.0, 0.5, 0.0]]
_A, _C, _L, _M = ("dpteach.accounting.", "dpteach.accounting.composition:",
                  "dpteach.queries.linear:", "dpteach.queries.mwem:")
EXAMPLES.update({
    # methods: (bound to a fresh instance, kwargs)
    _A + "rdp:RDPAccountant.step": lambda: (
        _rdp_accountant().step, dict(noise_multiplier=1.0, sample_rate=0.01, steps=10)),
    _A + "rdp:RDPAccountant.compose_rdp": lambda: (
        _rdp_accountant().compose_rdp, dict(rdp=[0.1, 0.5], count=3)),
    _A + "rdp:RDPAccountant.get_epsilon": lambda: (
        _rdp_accountant().get_epsilon, dict(delta=1e-5)),
    _A + "rdp:RDPAccountant.get_epsilon_and_order": lambda: (
        _rdp_accountant().get_epsilon_and_order, dict(delta=1e-5)),
    _A + "rdp:RDPAccountant.get_delta": lambda: (_rdp_accountant().get_delta, dict(epsilon=1.0)),
    _A + "pld:PLDAccountant.step": lambda: (
        _pld_accountant().step, dict(noise_multiplier=1.0, sample_rate=0.01, steps=10)),
    _A + "pld:PLDAccountant.compose_laplace": lambda: (
        _pld_accountant().compose_laplace, dict(scale=1.0, sensitivity=1.0, count=3)),
    _A + "pld:PLDAccountant.get_epsilon": lambda: (_pld_accountant().get_epsilon,
                                                   dict(delta=1e-5)),
    _A + "pld:PLDAccountant.get_delta": lambda: (_pld_accountant().get_delta, dict(epsilon=1.0)),
    _C + "BudgetAccountant.spend": lambda: (_budget().spend, dict(epsilon=0.5, delta=1e-6)),
    _L + "Universe.decode": lambda: (_universe().decode, dict(indices=[0, 1, 1])),
    _L + "Universe.to_histogram": lambda: (_universe().to_histogram,
                                           dict(df=pd.DataFrame({"a": ["x", "y", "y"]}))),
    _L + "LinearQueries.answer": lambda: (_queries().answer, dict(hist=[3.0, 1.0, 0.0, 4.0])),
    _L + "LinearQueries.first": lambda: (_queries().first, dict(k=2)),
    # functions whose domains' examples do not fit together
    _A + "compare:composition_epsilons": dict(ks=[1, 10], epsilon=0.5,
                                              methods=("basic", "advanced", "optimal", "rdp")),
    _A + "calibrate:get_noise_multiplier": dict(        # PLD at a coarse grid: seconds less
        target_epsilon=1.0, target_delta=1e-5, sample_rate=0.01, steps=10,
        value_discretization_interval=1e-2, rtol=1e-2),
    _C + "optimal_composition_epsilon": dict(epsilon=0.1, delta=0.0, k=10, total_delta=1e-5),
    _L + "marginal_queries": dict(universe=_adult_universe(), ways=2),
    _L + "max_error": dict(queries=_Q, hist=[3.0, 1.0, 0.0, 4.0], answers=[4.0, 4.0, 3.5]),
})
#: classes whose instances the library returns (results, history entries), with the reason:
#: their fields are outputs, checked by the function that builds them, not parameters
RECORDS: dict[str, str] = {
    _A + "rdp:Step": "a history entry of the accountants",
    _C + "Spend": "a history entry of BudgetAccountant",
    _M + "PMWResult": "what private_multiplicative_weights returns",
    _M + "MWEMResult": "what mwem returns",
    _M + "MWEMPrivacy": "what mwem_privacy returns",
}

#: parameters whose edge values are not tried, with the reason
NO_EDGES: dict[str, str] = {}

#: callables whose results may hold an infinity by design (a log-probability of 0, ...)
MAY_RETURN_INF: set[str] = set()


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


def _example(key: str, obj: Callable) -> dict[str, Any]:
    if key in EXAMPLES:
        example = EXAMPLES[key]
        return dict(example()[1] if _is_method(key) else example)
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
    return kwargs


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


def _call(key: str, obj: Callable, kwargs: dict[str, Any]) -> Any:
    if _is_method(key):
        method, _ = EXAMPLES[key]()              # bound to a fresh instance
        return method(**kwargs)
    return obj(**kwargs)


def _testable(key: str) -> bool:
    """Functions and classes; methods with a factory in EXAMPLES."""
    return key not in RECORDS and (not _is_method(key) or key in EXAMPLES)


def _cases(kind: str) -> list:
    out = []
    for key, obj in CALLABLES.items():
        if not _testable(key):
            continue
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


@pytest.mark.parametrize("key", sorted(k for k in CALLABLES if k not in RECORDS))
def test_every_parameter_has_a_domain(key):
    obj = CALLABLES[key]
    missing = sorted(set(_parameters(obj)) - set(_domains(obj)))
    assert not missing, f"{key}: parameters without a declared domain: {missing}"


@pytest.mark.parametrize("key", sorted(k for k in CALLABLES if _is_method(k)
                                        and _domains(CALLABLES[k])))
def test_every_method_with_parameters_has_an_example_factory(key):
    # without one its bad and edge values would go untried
    assert key in EXAMPLES and callable(EXAMPLES[key]), f"{key}: add a factory to EXAMPLES"


@pytest.mark.parametrize("key", sorted(k for k in CALLABLES if _testable(k)))
def test_the_example_call_answers(key):
    obj = CALLABLES[key]
    result = _call(key, obj, _example(key, obj))
    if key not in MAY_RETURN_INF:
        assert _non_finite(result) is None, f"{key} returned {_non_finite(result)}"


@pytest.mark.parametrize("key, name, bad", _cases("bad"))
def test_bad_values_are_refused_by_name(key, name, bad):
    obj = CALLABLES[key]
    kwargs = {**_example(key, obj), name: bad}
    with pytest.raises(ParameterError, match=rf"\b{re.escape(name)}\b"):
        _call(key, obj, kwargs)


@pytest.mark.parametrize("key, name, edge", _cases("edge"))
def test_edge_values_answer_without_nan_or_inf(key, name, edge):
    obj = CALLABLES[key]
    kwargs = {**_example(key, obj), name: edge}
    try:
        result = _call(key, obj, kwargs)
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
    flat = array(ndim=(0, 1)).flat()
    assert flat("x", 2).tolist() == [2.0] and flat("x", [1, 2]).shape == (2,)
    either = one_of(choice("auto"), real(0.0, 1.0))
    assert either("x", "auto") == "auto" and either("x", 0.5) == 0.5
    for dom, bad in ((integer(1, 5), 2.0), (integer(1, 5), True), (FLAG, 1),
                     (choice("a", "b"), "c"), (array(ndim=1), [[1.0]]), (maybe, "abc")):
        with pytest.raises(ParameterError, match=r"^arg must be .*; got arg"):
            dom("arg", bad)


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
