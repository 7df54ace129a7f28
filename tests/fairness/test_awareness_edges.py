"""Legal-but-extreme inputs for ``dpteach.fairness.awareness``: every public function, in
the style of ``tests/pate/test_teachers_edges.py``.

For each numeric parameter the table ``CASES`` draws values from the strategies of
``tests/_props.py`` (subnormal, tiny and huge floats, huge integers) and calls the function
with a time bound (``_props.assert_extreme_ok``): it must answer without NaN, and where the
answer is known the ``check`` asserts it (distances that vanish force the best constant
mapping, distances ≥ 1 leave the vendor unconstrained, a loss scaled by c has c times the
objective, the Earthmover distance is homogeneous, ...), or refuse with
``ParameterError``/``TypeError``. ``test_every_public_callable_is_in_the_table`` fails when
a public callable of the module is missing from ``CASES``.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect

import numpy as np
import pytest
from _props import (
    EXTREME_POSITIVE_FLOATS,
    HUGE_FLOATS,
    HUGE_INTS,
    TINY_FLOATS,
    EdgeCase,
    lazy_kwargs,
    run_edge_case,
)
from hypothesis import strategies as st

from dpteach.fairness import awareness

MODULES = {"dpteach.fairness.awareness": awareness}

POS = EXTREME_POSITIVE_FLOATS
SCALES = st.one_of(TINY_FLOATS, HUGE_FLOATS, st.sampled_from([1.0]))
N = 12
TOL = 1e-9


# ---------------------------------------------------------------------------- data
@functools.cache
def _base():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, 2))
    d = np.linalg.norm(X[:, None] - X[None], axis=-1)
    d = d / d.max()                                           # max distance 1
    L = rng.normal(size=(N, 3))
    L = L / np.abs(L).max()                                   # max |loss| 1
    groups = np.arange(N) % 2
    return X, d, L, groups


def _objective(**kwargs):
    _, d, L, _ = _base()
    return awareness.fair_mapping(**{"loss": L, "distances": 0.3 * d, **kwargs}).objective


def scaled(array_index):
    """The base array scaled by an extreme factor (so its largest entry is the factor)."""
    return SCALES.map(lambda factor: _base()[array_index] * factor)


def _tv(mu):
    return 0.5 * np.abs(mu[:, None, :] - mu[None, :, :]).sum(axis=-1)


def _best_constant(L):
    return float(L.mean(axis=0).min())


# ---------------------------------------------------------------------- the checks
def feasible(res, kw):
    """Every constraint holds; the objective lies between the unconstrained optimum and the
    best constant mapping; vanishing or ≥ 1 distances have their known optimum; a loss
    scaled by c (normal, not subnormal) has c times the objective."""
    d = np.asarray(kw["distances"], dtype=float)
    L = np.asarray(kw["loss"], dtype=float)
    mu = res.mapping
    scale = float(np.abs(L).max())
    ok = bool(np.all(mu >= 0) and np.allclose(mu.sum(axis=1), 1.0, atol=1e-12))
    ok = ok and bool(np.all(_tv(mu) <= d + TOL)) and res.max_violation <= TOL
    slack = 1e-9 * scale
    off = d[~np.eye(len(d), dtype=bool)]
    extra = "fixed_outcomes" in kw or kw.get("max_parity_gap") is not None
    ok = ok and res.unconstrained_objective - slack <= res.objective
    if "fixed_outcomes" not in kw:          # a fixed outcome can rule out every constant mapping
        ok = ok and res.objective <= _best_constant(L) + slack
    else:                                   # ... and is kept
        ok = ok and all(mu[i, a] == 1.0 for i, a in kw["fixed_outcomes"].items())
    if off.max() < 1e-12 and not extra:                       # (almost) equal treatment
        ok = ok and abs(res.objective - _best_constant(L)) <= 1e-8 * scale
    if off.min() >= 1.0 and not extra:                        # no constraint at all
        ok = ok and abs(res.objective - res.unconstrained_objective) <= 1e-12 * scale
    if kw.get("max_parity_gap") is not None:
        ok = ok and awareness.statistical_parity_gap(mu, kw["groups"]) <= \
            kw["max_parity_gap"] + TOL
    if scale >= 1e-290 and np.array_equal(d, 0.3 * _base()[1]) and "fixed_outcomes" not in kw \
            and kw.get("max_parity_gap") is None:
        ok = ok and abs(res.objective / scale - _objective()) <= 1e-9
    return ok


def parity_value(out, kw):
    return 0.0 <= out <= 1.0 and isinstance(out, float)


def homogeneous(out, kw):
    """d_EM(c·d) = c·d_EM(d) when c·d keeps its digits; always 0 ≤ d_EM ≤ max d."""
    d = np.asarray(kw["distances"], dtype=float)
    c = float(d.max())
    ok = 0.0 <= out <= c * (1 + 1e-12)
    if c >= 1e-290:
        base = awareness.earthmover_distance(_base()[1], kw["groups"])
        ok = ok and abs(out - c * base) <= 1e-9 * c
    return ok


def worst_case(out, kw):
    """At most d_EM; 1 when every pair is at distance ≥ 1; c·d_EM(d) for c ≤ 1 (a metric
    with values ≤ 1: the bound is tight)."""
    d = np.asarray(kw["distances"], dtype=float)
    c = float(d.max())
    em = awareness.earthmover_distance(d, kw["groups"])
    ok = 0.0 <= out <= min(1.0, em) + TOL
    if d[~np.eye(len(d), dtype=bool)].min() >= 1.0:
        ok = ok and abs(out - 1.0) <= TOL
    if 1e-290 <= c <= 1.0:
        ok = ok and abs(out - em) <= 1e-8
    return ok


def metric_ok(d, kw):
    """A symmetric matrix in [0, 1] with zero diagonal; min(1, scale·‖x − y‖) (+ the group
    term) when X and scale keep their digits."""
    ok = d.shape == (N, N) and bool(np.all((d >= 0) & (d <= 1))) and np.array_equal(d, d.T)
    ok = ok and bool(np.all(np.diag(d) == 0))
    X = np.asarray(kw["X"], dtype=float)
    top = float(np.abs(X).max())
    scale = kw.get("scale", 1.0)
    if top >= 1e-290:
        unit = np.linalg.norm((X / top)[:, None] - (X / top)[None], axis=-1)
        with np.errstate(over="ignore"):
            raw = unit * (top * scale)
        gd = kw.get("group_distance", 0.0)
        if kw.get("groups") is not None:
            raw = raw + gd * (np.asarray(kw["groups"])[:, None] != np.asarray(kw["groups"]))
        expected = np.where(unit > 0, np.minimum(1.0, raw), 0.0)
        np.fill_diagonal(expected, 0.0)
        ok = ok and np.allclose(d, expected, rtol=1e-9, atol=1e-300)
    return ok


def example_ok(ex, kw):
    n = kw.get("n", 10)
    return (ex.features.shape == (n, 102)
            and bool(np.all((ex.tied >= 0) & (ex.tied <= 1)))
            and bool(np.all(ex.separated >= ex.tied)) and int(ex.groups.sum()) == n // 2)


# --------------------------------------------------------------------------- cases
Case = EdgeCase
kw = lazy_kwargs


M = "dpteach.fairness.awareness"
D03 = lambda: 0.3 * _base()[1]                                  # noqa: E731
LOSS = lambda: _base()[2]                                       # noqa: E731
GROUPS = lambda: _base()[3]                                     # noqa: E731
X = lambda: _base()[0]                                          # noqa: E731

CASES = [
    Case(f"{M}.fair_mapping", awareness.fair_mapping, kw(loss=LOSS, distances=D03),
         {"loss": scaled(2), "distances": scaled(1),
          "fixed_outcomes": st.one_of(
              HUGE_INTS.map(lambda k: {k: 0}), HUGE_INTS.map(lambda k: {0: k}),
              st.sampled_from([{0: 2}, {N - 1: 0}, {0: 1, 1: 1}]))},
         check=feasible),
    Case(f"{M}.fair_mapping[capped]", awareness.fair_mapping,
         kw(loss=LOSS, distances=D03, groups=GROUPS, max_parity_gap=0.1),
         {"max_parity_gap": st.one_of(TINY_FLOATS, st.sampled_from([0.0, 1.0, 1 - 1e-16])),
          "distances": scaled(1)},
         check=feasible),
    Case(f"{M}.fair_mapping[dinf]", awareness.fair_mapping,
         kw(loss=LOSS, distances=D03, metric="dinf"),
         {"distances": st.one_of(TINY_FLOATS, st.sampled_from(
             [1.0, 29.0, 30.0, 30.000001, 1e15])).map(lambda f: _base()[1] * f),
          "loss": scaled(2)},
         check=lambda res, kw: res.max_violation <= TOL and bool(np.all(res.slack >= -1e-9))),
    Case(f"{M}.statistical_parity_gap", awareness.statistical_parity_gap,
         kw(mapping=np.array([[1.0, 0.0], [0.5, 0.5]]), groups=[0, 1]),
         {"mapping": TINY_FLOATS.map(lambda t: np.array([[1.0, 0.0], [1.0 - t, t]]))},
         check=lambda out, kw: parity_value(out, kw) and out <= np.asarray(kw["mapping"])[1, 1]),
    Case(f"{M}.earthmover_distance", awareness.earthmover_distance,
         kw(distances=lambda: _base()[1], groups=GROUPS), {"distances": scaled(1)},
         check=homogeneous),
    Case(f"{M}.worst_case_parity_gap", awareness.worst_case_parity_gap,
         kw(distances=lambda: _base()[1], groups=GROUPS), {"distances": scaled(1)},
         check=worst_case),
    Case(f"{M}.feature_metric", awareness.feature_metric,
         kw(X=X, groups=GROUPS, group_distance=0.5),
         {"X": SCALES.map(lambda f: _base()[0] / np.abs(_base()[0]).max() * f),
          "scale": st.one_of(POS, st.just(0.0)),
          "group_distance": st.one_of(TINY_FLOATS, st.sampled_from([0.0, 1.0, 1 - 1e-16]))},
         check=metric_ok),
    Case(f"{M}.adult_awareness_example", awareness.adult_awareness_example,
         kw(n=10, rng=0),
         {"n": st.one_of(HUGE_INTS, st.sampled_from([2, 500])),
          "scale": st.one_of(POS, st.just(0.0)), "rng": HUGE_INTS},
         check=example_ok, examples=3),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name.rsplit(".", 1)[1] for c in CASES])
def test_extreme_values(case):
    run_edge_case(case, seconds=20, warning_filter="error")


# ------------------------------------------------------------- known exact answers
def test_vanishing_and_huge_distances_have_exact_answers():
    _, d, L, _ = _base()
    tiny = awareness.fair_mapping(L, d * 5e-324)
    assert tiny.objective == pytest.approx(_best_constant(L), abs=1e-12)
    np.testing.assert_allclose(tiny.mapping, tiny.mapping[[0]].repeat(N, axis=0), atol=1e-12)
    huge = awareness.fair_mapping(L, d * 1.7976931348623157e308)
    assert huge.objective == huge.unconstrained_objective
    np.testing.assert_array_equal(huge.mapping, np.eye(3)[np.argmin(L, axis=1)])
    assert huge.n_constraints == 0 and huge.n_tight == 0


def test_losses_at_the_ends_of_the_float_range():
    top = 1.7976931348623157e308
    d = [[0, 0.2], [0.2, 0]]
    # L = top·[[−1, 1], [1, −1]]: the row range 2·top overflows; the optimum p1 − p0 = 0.2
    # costs 2·top·(p0 − p1) / 2 = −0.2·top
    res = awareness.fair_mapping([[-top, top], [top, -top]], d)
    assert res.objective == pytest.approx(-0.2 * top, rel=1e-12)
    assert res.mapping[1, 1] - res.mapping[0, 1] == pytest.approx(0.2, abs=1e-12)
    # the smallest loss there is: the same optimum (the loss is rescaled before solving)
    res = awareness.fair_mapping([[0.0, 5e-324], [5e-324, 0.0]], d)
    assert res.mapping[1, 1] - res.mapping[0, 1] == pytest.approx(0.2, abs=1e-12)
    assert 0.0 <= res.objective <= 5e-324


def test_earthmover_distance_of_huge_distances():
    _, d, _, g = _base()
    top = 1.7976931348623157e308
    assert awareness.earthmover_distance(d * top, g) == pytest.approx(
        awareness.earthmover_distance(d, g) * top, rel=1e-9)
    assert awareness.worst_case_parity_gap(d * top, g) == 1.0


def test_returned_numbers_have_python_types():
    _, d, L, g = _base()
    res = awareness.fair_mapping(L, 0.3 * d)
    assert type(res.objective) is float and type(res.unconstrained_objective) is float
    assert type(res.n_tight) is int and type(res.max_violation) is float
    assert type(res.n_constraints) is int and type(res.n_rounds) is int
    assert type(awareness.statistical_parity_gap(res, g)) is float
    assert type(awareness.earthmover_distance(d, g)) is float
    assert type(awareness.worst_case_parity_gap(d, g)) is float


# ------------------------------------------------------------------------ coverage
def _public_callables():
    names = set()
    for modname, module in MODULES.items():
        for attr, obj in vars(module).items():
            if attr.startswith("_") or getattr(obj, "__module__", None) != modname:
                continue
            if inspect.isfunction(obj) and inspect.signature(obj).parameters:
                names.add(f"{modname}.{attr}")
            elif inspect.isclass(obj) and not dataclasses.is_dataclass(obj):
                names.add(f"{modname}.{attr}")
    return names


def test_every_public_callable_is_in_the_table():
    found = _public_callables()
    listed = {c.name.split("[")[0] for c in CASES}
    assert len(found) >= 6
    assert not sorted(found - listed), sorted(found - listed)
    assert not sorted(listed - found), sorted(listed - found)


def test_every_numeric_parameter_is_varied():
    non_numeric = {"metric", "groups", "rng"}
    varied: dict = {}
    for case in CASES:
        varied.setdefault(case.func, set()).update(case.args, case.fixed)
    for func, args in varied.items():
        left = set(inspect.signature(func).parameters) - args - non_numeric
        assert not left, (func.__name__, sorted(left))
