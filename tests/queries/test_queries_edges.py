"""Legal-but-extreme inputs for answering many queries: ``dpteach.queries.linear``,
``dpteach.queries.independent`` and ``dpteach.queries.mwem`` (every public function, class and method).

For each numeric parameter the table ``CASES`` draws values from the strategies of
``tests/_props.py`` (subnormal, tiny and huge floats, huge integers; histograms with counts
up to 2⁵³; query matrices with subnormal entries) and calls the function with a time bound
(``_props.assert_extreme_ok``): it must answer without NaN — and where the answer is known
the ``check`` asserts it (a huge ε gives the exact answers, a Laplace scale is k/ε, MWEM's
synthetic data has total n, a PMW run makes at most c updates) — or refuse with
``ParameterError``/``TypeError`` naming the argument. ``test_every_public_callable_is_in_the_table``
and ``test_every_numeric_parameter_is_varied`` fail when something public is missing.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import re

import numpy as np
import pandas as pd
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

from dpteach.queries import linear as LQ
from dpteach.queries import independent as MQ
from dpteach.queries import mwem as MW
from dpteach._validation import ParameterError

MODULES = {"dpteach.queries.linear": LQ, "dpteach.queries.independent": MQ, "dpteach.queries.mwem": MW}

FMAX = 1.7976931348623157e308
POS = EXTREME_POSITIVE_FLOATS
INTS = st.one_of(HUGE_INTS, st.sampled_from([1, 2, 10**6]))
UNIT = st.one_of(TINY_FLOATS, st.sampled_from([0.5, 1 - 1e-12, 1 - 2**-53]))   # (0, 1)
X = np.array([3.0, 1.0, 0.0, 4.0])
Q = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0], [0.5, 0.0, 0.5, 0.0]])
# histograms: counts at the ends of what is allowed (n ≤ 2⁵³), subnormal or tiny counts
# (n < 1 is refused), one huge cell next to tiny ones
HISTS = st.sampled_from([
    np.array([2.0**52, 2.0**52 - 1, 0.0, 1.0]), np.array([5e-324, 1e-300, 1.0, 0.0]),
    np.array([0.0, 0.0, 0.0, 1.0]), np.array([1e15, 1.0, 1.0, 1.0]),
    np.array([5e-324, 0.0, 0.0, 0.0]), np.array([2.0**53, 1.0, 0.0, 0.0]),
    np.array([1e300, 1e300, 0.0, 0.0]), np.array([0.5, 0.25, 0.125, 0.125])])
# query matrices with subnormal, tiny and 1 - ulp entries; the same shape as Q
MATRICES = st.sampled_from([
    np.full((3, 4), 5e-324), np.full((3, 4), 1 - 2**-53), Q * 1e-300,
    np.array([[1.0, 0.0, 0.0, 0.0]] * 3), np.zeros((3, 4)), np.ones((3, 4))])


def n_of(kw) -> float:
    return float(np.sum(kw["hist"]))


# ---------------------------------------------------------------------- the checks
def exact_for_huge_epsilon(out, kw):
    """Finite answers; with negligible noise (scale ≤ 1e-6·n) they are the exact counts."""
    truth = np.asarray(kw["queries"], float) @ np.asarray(kw["hist"], float)
    if not np.all(np.isfinite(out)) or out.shape != truth.shape:
        return False
    k = truth.size
    eps = float(kw["epsilon"])
    if k / eps <= 1e-9 * max(1.0, n_of(kw)):
        return bool(np.all(np.abs(out - truth) <= 1e-6 * max(1.0, n_of(kw))))
    return True


def scale_ok(out, kw):
    if not (type(out) is float and 0 < out < math.inf):
        return False
    if kw.get("mechanism", "laplace") == "laplace" and kw.get("sensitivity") is None:
        return math.isclose(out, kw["k"] / float(kw["epsilon"]), rel_tol=1e-12)
    return True


def rho_ok(out, kw):
    """0 ≤ ρ ≤ ε (ε = ρ + 2√(ρ ln 1/δ) ≥ ρ)."""
    return type(out) is float and 0 <= out <= float(kw["epsilon"]) * (1 + 1e-12)


def nonneg_float(out, kw):
    return type(out) is float and out >= 0


def synthetic_ok(res, kw):
    """MWEM's output: non-negative weights with total n (relative 1e-9)."""
    n = n_of(kw)
    return all(np.all(a >= 0) and math.isclose(a.sum(), n, rel_tol=1e-9)
               for a in (res.synthetic, res.last)) and res.selected.size == kw["T"]


def pmw_ok(res, kw):
    return (res.n_updates <= kw["max_updates"] and np.all(np.isfinite(res.answers))
            and res.n_updates == int(res.updated.sum())
            and math.isclose(res.synthetic.sum(), n_of(kw), rel_tol=1e-9))


def privacy_ok(res, kw):
    return math.isclose(res.epsilon, float(kw["epsilon"]), rel_tol=1e-12) and res.rho >= 0


def compare_ok(res, kw):
    return (res["mwem"].size == kw["repeats"] and np.all(res["mwem"] >= 0)
            and res["laplace"] >= 0 and res["gaussian"] >= 0)


def rows_ok(out, kw):
    return isinstance(out, pd.DataFrame) and len(out) == kw["n_rows"]


def histogram_ok(out, kw):
    return out.shape == (kw["universe_size"],) if kw.get("universe_size") else out.ndim == 1


def queries_ok(out, kw):
    return isinstance(out, LQ.LinearQueries) and out.k == 3


def universe_ok(out, kw):
    return isinstance(out, LQ.Universe) and out.size >= 1


def max_error_ok(out, kw):
    return type(out) is float and out >= 0


# --------------------------------------------------------------------------- wrappers
@functools.cache
def _universe():
    return LQ.adult_universe()


def _binned_universe(edges):
    """A one-column universe cut by ``edges`` (the Universe constructor's numeric argument)."""
    levels = tuple(f"b{i}" for i in range(len(edges) - 1))
    return LQ.Universe(("v",), (levels,), (tuple(edges),))


def _decode(indices):
    return _universe().decode(indices)


def _to_histogram(values):
    return _binned_universe((0.0, 1.0, 2.0)).to_histogram(pd.DataFrame({"v": values}))


def _answer(hist):
    return LQ.LinearQueries(Q).answer(hist)


def _first(k):
    return LQ.LinearQueries(np.ones((5, 2))).first(k)


M = "dpteach"
CASES = [
    EdgeCase(f"{M}.queries.linear.Universe", _binned_universe, lambda: {},
             {"edges": st.one_of(st.lists(POS, min_size=3, max_size=3).map(sorted),
                                 st.sampled_from([(5e-324, 1e-300, FMAX), (-FMAX, 0.0, FMAX),
                                                  (0.0, 5e-324, 1e-323), (1e300, 1e300, 1e301)]))},
             check=lambda out, kw: isinstance(out, LQ.Universe)),
    EdgeCase(f"{M}.queries.linear.Universe.decode", _decode, lambda: {},
             {"indices": st.one_of(st.lists(INTS, min_size=1, max_size=3),
                                   st.sampled_from([[0, 59], [59.0], np.zeros(10**6)]))},
             check=lambda out, kw: len(out) == len(kw["indices"])),
    EdgeCase(f"{M}.queries.linear.Universe.to_histogram", _to_histogram, lambda: {},
             {"values": st.one_of(st.lists(st.one_of(TINY_FLOATS, st.sampled_from(
                 [1 - 2**-53, 2 - 2**-52, 0.0, FMAX, 10**400, 2])), min_size=1, max_size=4))},
             check=lambda out, kw: out.sum() == len(kw["values"])),
    EdgeCase(f"{M}.queries.linear.adult_universe", LQ.adult_universe, lambda: {},
             {"bins": st.one_of(
                 st.lists(st.one_of(POS, INTS), min_size=2, max_size=4).map(
                     lambda e: {"age": sorted(e)}),
                 st.sampled_from([{"age": [-1e6, 1e6]}, {"age": [0, 5e-324]},
                                  {"hours-per-week": [1, 1 + 2**-52, 1e6]}]))},
             check=universe_ok),
    EdgeCase(f"{M}.queries.linear.LinearQueries", LQ.LinearQueries, lambda: {},
             {"matrix": MATRICES}, check=lambda out, kw: out.k == 3),
    EdgeCase(f"{M}.queries.linear.LinearQueries.answer", _answer, lambda: {},
             {"hist": HISTS}, check=lambda out, kw: np.all(np.isfinite(out))),
    EdgeCase(f"{M}.queries.linear.LinearQueries.first", _first, lambda: {}, {"k": INTS},
             check=lambda out, kw: out.k == kw["k"]),
    EdgeCase(f"{M}.queries.linear.check_histogram", LQ.check_histogram,
             lazy_kwargs(hist=X, universe_size=4),
             {"hist": HISTS, "universe_size": INTS}, check=histogram_ok),
    EdgeCase(f"{M}.queries.linear.as_queries", LQ.as_queries,
             lazy_kwargs(queries=Q, universe_size=4),
             {"queries": MATRICES, "universe_size": INTS}, check=queries_ok),
    EdgeCase(f"{M}.queries.linear.marginal_queries", LQ.marginal_queries,
             lazy_kwargs(universe=_universe, ways=2), {"ways": INTS},
             check=lambda out, kw: out.k >= 1),
    EdgeCase(f"{M}.queries.linear.random_queries", LQ.random_queries,
             lazy_kwargs(universe=10, k=5, rng=0),
             {"universe": INTS, "k": INTS, "density": st.one_of(UNIT, st.sampled_from([0.0, 1.0])),
              "rng": HUGE_INTS},
             check=lambda out, kw: out.k == kw["k"]),
    EdgeCase(f"{M}.queries.linear.max_error", LQ.max_error,
             lazy_kwargs(queries=Q, hist=X, answers=np.array([4.0, 4.0, 3.5])),
             {"answers": st.sampled_from([np.full(3, FMAX), np.full(3, -FMAX), np.full(3, 5e-324),
                                          np.array([1e300, -1e300, 0.0])]),
              "hist": HISTS, "queries": MATRICES}, check=max_error_ok),
    EdgeCase(f"{M}.queries.linear.max_error", LQ.max_error,
             lazy_kwargs(queries=Q, hist=X, synthetic=X),
             {"synthetic": st.sampled_from([np.full(4, FMAX), np.full(4, 5e-324),
                                            np.array([1e300, 0.0, 0.0, 1e300])])},
             check=max_error_ok),
    # ------------------------------------------------------------------ many_queries
    EdgeCase(f"{M}.queries.independent.laplace_answers", MQ.laplace_answers,
             lazy_kwargs(queries=Q, hist=X, epsilon=1.0, rng=0),
             {"epsilon": POS, "hist": HISTS, "queries": MATRICES, "rng": HUGE_INTS},
             check=exact_for_huge_epsilon, examples=8),
    EdgeCase(f"{M}.queries.independent.laplace_answers", MQ.laplace_answers,
             lazy_kwargs(queries=Q, hist=X, epsilon=1.0, calibration="l1", rng=0),
             {"epsilon": POS, "queries": MATRICES}, fixed=("calibration",)),
    EdgeCase(f"{M}.queries.independent.gaussian_answers", MQ.gaussian_answers,
             lazy_kwargs(queries=Q, hist=X, epsilon=1.0, delta=1e-5, rng=0),
             {"epsilon": POS, "delta": UNIT, "hist": HISTS, "queries": MATRICES,
              "rng": HUGE_INTS},
             check=lambda out, kw: np.all(np.isfinite(out)), fixed=("calibration",)),
    EdgeCase(f"{M}.queries.independent.histogram_answers", MQ.histogram_answers,
             lazy_kwargs(queries=Q, hist=X, epsilon=1.0, rng=0),
             {"epsilon": POS, "hist": HISTS, "queries": MATRICES, "rng": HUGE_INTS},
             check=exact_for_huge_epsilon),
    EdgeCase(f"{M}.queries.independent.zcdp_budget", MQ.zcdp_budget,
             lazy_kwargs(epsilon=1.0, delta=1e-5), {"epsilon": POS, "delta": UNIT},
             check=rho_ok, examples=10),
    EdgeCase(f"{M}.queries.independent.independent_noise_scale", MQ.independent_noise_scale,
             lazy_kwargs(k=10, epsilon=1.0), {"k": INTS, "epsilon": POS, "delta": UNIT,
                                              "sensitivity": POS},
             check=scale_ok, fixed=("mechanism",), examples=10),
    EdgeCase(f"{M}.queries.independent.independent_noise_scale", MQ.independent_noise_scale,
             lazy_kwargs(k=10, epsilon=1.0, mechanism="gaussian"),
             {"k": INTS, "epsilon": POS, "delta": UNIT, "sensitivity": POS},
             check=scale_ok, fixed=("mechanism",), examples=10),
    EdgeCase(f"{M}.queries.independent.independent_max_error", MQ.independent_max_error,
             lazy_kwargs(k=10, epsilon=1.0, n=100.0),
             {"k": INTS, "epsilon": POS, "n": POS, "delta": UNIT},
             check=nonneg_float, fixed=("mechanism",)),
    EdgeCase(f"{M}.queries.independent.independent_max_error", MQ.independent_max_error,
             lazy_kwargs(k=10, epsilon=1.0, n=100.0, mechanism="gaussian"),
             {"k": INTS, "epsilon": POS, "n": POS, "delta": UNIT},
             check=nonneg_float, fixed=("mechanism",)),
    # -------------------------------------------------------------------------- mwem
    EdgeCase(f"{M}.queries.mwem.mwem", MW.mwem,
             lazy_kwargs(queries=Q, hist=X, epsilon=1.0, T=5, passes=1, rng=0),
             {"epsilon": POS, "T": st.one_of(INTS, st.sampled_from([1, 1000])),
              "passes": st.one_of(INTS, st.sampled_from([0, 100])), "hist": HISTS,
              "queries": MATRICES, "rng": HUGE_INTS,
              "split": st.sampled_from([(5e-324, 1.0), (1.0 - 2**-53, 2**-53), (0.5, 0.5 + 1e-12),
                                        (1e-300, 1 - 1e-300)])},
             check=synthetic_ok, examples=8),
    EdgeCase(f"{M}.queries.mwem.private_multiplicative_weights", MW.private_multiplicative_weights,
             lazy_kwargs(queries=Q, hist=X, epsilon=1.0, threshold=0.1, max_updates=2, rng=0),
             {"epsilon": POS, "threshold": st.one_of(UNIT, st.just(1.0)),
              "max_updates": st.one_of(INTS, st.sampled_from([1, 10_000])),
              "learning_rate": st.one_of(UNIT, st.just(1.0)),
              "passes": st.one_of(INTS, st.sampled_from([0, 100])), "hist": HISTS,
              "queries": MATRICES, "rng": HUGE_INTS,
              "split": st.sampled_from([(5e-324, 1.0), (1.0 - 2**-53, 2**-53)])},
             check=pmw_ok, examples=8),
    EdgeCase(f"{M}.queries.mwem.sample_rows", MW.sample_rows,
             lazy_kwargs(universe=_universe, synthetic=np.ones(60), n_rows=5, rng=0),
             {"n_rows": st.one_of(INTS, st.sampled_from([0, 10**6])),
              "synthetic": st.sampled_from([np.full(60, 5e-324), np.full(60, 1e300),
                                            np.r_[np.zeros(59), FMAX], np.full(60, 1e-300)]),
              "rng": HUGE_INTS},
             check=rows_ok),
    EdgeCase(f"{M}.queries.mwem.mwem_privacy", MW.mwem_privacy, lazy_kwargs(epsilon=1.0, T=30),
             {"epsilon": POS, "T": st.one_of(INTS, st.sampled_from([1, 1000])), "delta": UNIT},
             check=privacy_ok, examples=10),
    EdgeCase(f"{M}.queries.mwem.compare_independent", MW.compare_independent,
             lazy_kwargs(queries=Q, hist=X, epsilon=1.0, T=3, passes=1, repeats=2, rng=0),
             {"epsilon": POS, "T": st.one_of(INTS, st.sampled_from([1, 1000])),
              "passes": st.one_of(INTS, st.sampled_from([0, 100])),
              "repeats": st.one_of(INTS, st.sampled_from([1, 100])), "delta": UNIT,
              "hist": HISTS, "queries": MATRICES, "rng": HUGE_INTS},
             check=compare_ok),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name.split("dpteach.", 1)[1] for c in CASES])
def test_extreme_values(case):
    run_edge_case(case, seconds=8.0)


# ------------------------------------------------------------- known exact answers
def test_refusals_name_the_argument():
    # the refusal of an extreme value names the argument, not an internal one
    cases = [
        (MW.mwem_privacy, dict(epsilon=FMAX, T=1), "epsilon"),            # ρ overflows
        (MW.mwem, dict(queries=Q, hist=X, epsilon=5e-324, T=2), "epsilon"),
        (MQ.laplace_answers, dict(queries=Q, hist=X, epsilon=5e-324), "epsilon"),
        (MQ.gaussian_answers, dict(queries=Q, hist=X, epsilon=5e-324, delta=0.5), "epsilon"),
        (MW.private_multiplicative_weights,
         dict(queries=Q, hist=X, epsilon=5e-324, threshold=0.1, max_updates=2), "epsilon"),
        (MW.mwem, dict(queries=Q, hist=X, epsilon=1.0, T=1000, passes=1), "passes"),
        (MW.private_multiplicative_weights,
         dict(queries=Q, hist=X, epsilon=1.0, threshold=0.1, max_updates=10_000, passes=1),
         "passes"),
        (LQ.check_histogram, dict(hist=[2.0**53, 1.0]), "hist"),
        (LQ.check_histogram, dict(hist=[5e-324]), "hist"),
    ]
    for func, kwargs, arg in cases:
        with pytest.raises((ParameterError, TypeError)) as info:
            func(**kwargs)
        assert re.search(rf"\b{arg}\b", str(info.value)), (func.__name__, str(info.value))


def test_huge_epsilon_gives_the_exact_answers_and_best_queries():
    truth = Q @ X
    np.testing.assert_array_equal(MQ.laplace_answers(Q, X, FMAX, rng=0), truth)
    np.testing.assert_array_equal(MQ.histogram_answers(Q, X, 1e300, rng=0), truth)
    # MWEM with ε near the largest double: the exponential mechanism picks a worst query
    # and the measurement is exact
    res = MW.mwem(np.eye(4), X, epsilon=1e300, T=1, rng=0)
    assert res.measurements[0] == X[res.selected[0]]
    assert abs(X[res.selected[0]] - 2.0) == np.abs(X - 2.0).max()          # A₀ = 2 per cell


def test_returned_numbers_have_python_types():
    assert type(LQ.max_error(Q, X, answers=[4.0, 4.0, 3.5])) is float
    assert type(MQ.zcdp_budget(1.0, 1e-5)) is float
    assert type(MQ.independent_noise_scale(10, 1.0)) is float
    assert type(MQ.independent_max_error(10, 1.0)) is float
    r = MW.private_multiplicative_weights(Q, X, epsilon=1.0, threshold=0.1, max_updates=2,
                                          rng=0)
    assert type(r.n_answered) is int and type(r.n_updates) is int and type(r.epsilon) is float
    acc = MW.mwem_privacy(1.0, 30)
    assert all(type(getattr(acc, f.name)) is float for f in dataclasses.fields(acc))
    assert type(LQ.LinearQueries(Q).l1_sensitivity()) is float
    assert type(_universe().size) is int


# ------------------------------------------------------------------------ coverage
def _public_callables():
    names = set()
    for modname, module in MODULES.items():
        for attr, obj in vars(module).items():
            if attr.startswith("_") or getattr(obj, "__module__", None) != modname:
                continue
            if inspect.isfunction(obj) and inspect.signature(obj).parameters:
                names.add(f"{modname}.{attr}")
            elif inspect.isclass(obj) and not (dataclasses.is_dataclass(obj)
                                               and obj.__name__.endswith(("Result", "Privacy"))):
                names.add(f"{modname}.{attr}")
                for meth, fn in vars(obj).items():
                    if meth.startswith("_") or not inspect.isfunction(fn):
                        continue
                    if [p for p in inspect.signature(fn).parameters if p != "self"]:
                        names.add(f"{modname}.{attr}.{meth}")
    return names


def test_every_public_callable_is_in_the_table():
    found = _public_callables()
    listed = {c.name for c in CASES}
    assert len(found) >= 20
    assert not sorted(found - listed), sorted(found - listed)
    assert not sorted(listed - found), sorted(listed - found)


WRAPPED = {_binned_universe: LQ.Universe, _decode: LQ.Universe.decode,
           _to_histogram: LQ.Universe.to_histogram, _answer: LQ.LinearQueries.answer,
           _first: LQ.LinearQueries.first}
# the wrapped callables' numeric parameters, and what the wrapper varies instead
WRAPPED_VARIES = {LQ.Universe: {"edges"}, LQ.Universe.decode: {"indices"},
                  LQ.Universe.to_histogram: {"df"}, LQ.LinearQueries.answer: {"hist"},
                  LQ.LinearQueries.first: {"k"}}


def test_every_numeric_parameter_is_varied():
    non_numeric = {"columns", "levels", "names", "name", "universe", "calibration",
                   "mechanism", "self"}
    varied: dict = {}
    for case in CASES:
        target = WRAPPED.get(case.func, case.func)
        varied.setdefault(target, set()).update(case.args, case.fixed)
    for target, args in varied.items():
        if target in WRAPPED_VARIES:
            assert WRAPPED_VARIES[target] <= set(inspect.signature(target).parameters) | {"df"}
            continue
        params = set(inspect.signature(target).parameters)
        left = params - args - non_numeric
        # exactly one of answers/synthetic per call of max_error: both rows together
        assert not left, (target.__name__, sorted(left))
