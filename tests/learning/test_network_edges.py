"""Legal-but-extreme and bad inputs for ``dpteach.learning.optim`` (every public function,
class and method) and for ``Network.forward``/``Network.backward`` of
``dpteach.learning.network`` (whose other methods are in ``test_learning_edges.py``), in the
style of ``tests/fairness/test_lfr_edges.py``.

``CASES`` draws values from the strategies of ``tests/_props.py`` (subnormal, tiny and huge
floats, huge integers; arrays rescaled so that their largest entry is such a float) and calls
with a time bound (``_props.assert_extreme_ok``): the call must answer without NaN — losses
finite and ≥ 0 with finite gradients, network outputs and gradients finite — or refuse with
``ParameterError``/``TypeError``. Entries beyond |x| = 1e15 (``optim.MAX_INPUT``) are refused by
design. ``BAD`` attacks every argument with wrong values (``_props.call_rejects``): the error
must name the argument. ``test_every_public_callable_is_in_the_table`` fails when a public
callable of ``optim`` is missing from ``CASES`` or ``BAD``.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math

import numpy as np
import pytest
from _props import (
    BAD_CHOICE,
    BAD_POSITIVE,
    BAD_PROB,
    BAD_RNG,
    EXTREME_POSITIVE_FLOATS,
    HUGE_FLOATS,
    HUGE_INTS,
    NON_FINITE_ARRAYS,
    NOT_AN_OBJECT,
    NOT_BOOL,
    NOT_NUMERIC,
    SUBNORMALS,
    TINY_FLOATS,
    EdgeCase,
    bad_int,
    call_rejects,
    lazy_kwargs,
    run_edge_case,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from dpteach.learning import network, optim
from dpteach.learning.network import Network
from dpteach.learning.optim import (
    Adam,
    binary_cross_entropy_with_logits,
    gradient_check,
    group_normalized_l1,
    log_softmax,
    softmax,
    softmax_cross_entropy,
    squared_error,
)

MODULES = {"dpteach.learning.optim": optim}

POS = EXTREME_POSITIVE_FLOATS
INTS = st.one_of(HUGE_INTS, st.sampled_from([1, 2, 1000]))
SCALES = st.one_of(SUBNORMALS, TINY_FLOATS, HUGE_FLOATS, st.just(1.0))
UNIT_OPEN = st.one_of(TINY_FLOATS, st.sampled_from([0.0, 0.5, 1.0 - 1e-16]))   # [0, 1)
N = "dpteach.learning.optim"
NET = "dpteach.learning.network"


# ---------------------------------------------------------------------------- data
@functools.cache
def _data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((8, 3))
    return X, rng.integers(0, 2, 8), np.tile([0, 1], 4), rng.standard_normal((8, 2))


def _scaled(a, factor):
    a = np.asarray(a, dtype=float)
    return a / np.max(np.abs(a)) * factor


def scaled(a):
    return SCALES.map(lambda f: _scaled(a, f))


def _net():
    return Network((3, 4, 2), activation="tanh", rng=0)


def _adam(**kwargs):
    theta = np.array([1.0, -2.0])
    opt = Adam([theta], **kwargs)
    opt.step([np.array([0.5, -1.0])])
    return theta


def _adam_step(grads):
    theta = np.array([1.0, -2.0])
    Adam([theta], learning_rate=0.1).step(grads)
    return theta


def _check_sum_of_cubes(**kwargs):
    p = np.array([1.0, -0.5, 2.0])
    return gradient_check(lambda: float(np.sum(p ** 3)), [p], [3 * p ** 2], **kwargs)


# ---------------------------------------------------------------------- the checks
def loss_ok(out, kw):
    value, grad = out
    return isinstance(value, float) and 0.0 <= value < math.inf and np.all(np.isfinite(grad))


def bce_ok(out, kw):
    # |z| ≤ 1e-16: ℓ = log 2 − z y + O(z²) = log 2 to float64 precision
    small = np.max(np.abs(kw["logits"])) <= 1e-16
    return loss_ok(out, kw) and (not small or out[0] == pytest.approx(math.log(2.0), rel=1e-15))


# --------------------------------------------------------------------------- cases
Case = functools.partial(EdgeCase, examples=6)
kw = lazy_kwargs

CASES = [
    Case(f"{N}.softmax", softmax, kw(logits=lambda: np.array([[1.0, -2.0, 0.5]])),
         {"logits": SCALES.flatmap(lambda f: st.sampled_from(
             [np.array([[f, -f, 0.0]]), np.array([[f, f / 2, -f]], dtype=np.float32)
              if f < 1e38 else np.array([[f, 0.0, -f]])]))},
         check=lambda P, k: np.all((P >= 0) & (P <= 1)) and np.allclose(P.sum(axis=1), 1.0), examples=10),
    Case(f"{N}.log_softmax", log_softmax, kw(logits=lambda: np.array([[1.0, -2.0, 0.5]])),
         {"logits": SCALES.flatmap(lambda f: st.sampled_from(
             [np.array([[f, -f, 0.0]]), np.array([[f, f / 2, -f]], dtype=np.float32)
              if f < 1e38 else np.array([[f, 0.0, -f]])]))},
         check=lambda out, k: np.all(out <= 0) and np.allclose(np.exp(out).sum(axis=1), 1.0),
         examples=10),
    Case(f"{N}.Adam", _adam, kw(learning_rate=0.1),
         {"learning_rate": POS, "beta1": UNIT_OPEN, "beta2": UNIT_OPEN, "eps": POS},
         check=lambda out, k: np.all(np.isfinite(out)), examples=8),
    Case(f"{N}.Adam.step", _adam_step, kw(grads=lambda: [np.array([0.5, -1.0])]),
         {"grads": SCALES.map(lambda f: [np.array([f, -f])])},
         # with g = ±f the first step moves each θ by 0.1 · f / (f + 1e-8) toward −sign(g)
         check=lambda out, k: np.allclose(out, [1.0, -2.0] - 0.1 * np.sign(k["grads"][0])
                                           * np.abs(k["grads"][0]) / (np.abs(k["grads"][0])
                                                                     + 1e-8), rtol=1e-12)),
    Case(f"{N}.binary_cross_entropy_with_logits", binary_cross_entropy_with_logits,
         kw(logits=lambda: _data()[3][:, 0], y=lambda: _data()[1]),
         {"logits": scaled(_data()[3][:, 0]), "y": UNIT_OPEN.map(lambda f: np.full(8, f))},
         check=bce_ok, examples=10),
    Case(f"{N}.softmax_cross_entropy", softmax_cross_entropy,
         kw(logits=lambda: _data()[3], y=lambda: _data()[1]),
         {"logits": scaled(_data()[3])}, check=loss_ok, fixed=("y",)),
    Case(f"{N}.squared_error", squared_error,
         kw(pred=lambda: _data()[3], target=lambda: np.zeros((8, 2))),
         {"pred": scaled(_data()[3]), "target": scaled(_data()[3])}, check=loss_ok),
    Case(f"{N}.group_normalized_l1", group_normalized_l1,
         kw(prob=lambda: _data()[3][:, 0], target=lambda: _data()[2],
            groups=lambda: _data()[2]),
         {"prob": scaled(_data()[3][:, 0]), "n_groups": INTS},
         check=loss_ok, fixed=("target", "groups")),
    Case(f"{N}.gradient_check", _check_sum_of_cubes, kw(),
         {"eps": POS, "n_checks": INTS, "rng": HUGE_INTS},
         check=lambda out, k: isinstance(out, float) and 0 <= out <= 1, fixed=("f",)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name.rsplit("optim.", 1)[1] for c in CASES])
def test_extreme_values(case):
    run_edge_case(case, seconds=10)


# ------------------------------------------------------------- known exact answers
def test_huge_inputs_are_refused_by_name_and_tiny_eps_is_named():
    with pytest.raises(optim.ParameterError, match="X"):
        _net().forward(np.full((2, 3), 1e16))
    with pytest.raises(optim.ParameterError, match="logits"):
        binary_cross_entropy_with_logits([1e300], [1.0])
    with pytest.raises(optim.ParameterError, match="eps"):
        _check_sum_of_cubes(eps=1e-300)        # 2 ± 1e-300 == 2: no step was taken
    with pytest.raises(optim.ParameterError, match="X"):     # too many rows to cache
        _net().forward(np.zeros((network.MAX_ACTIVATIONS // 9 + 1, 3)))


def test_a_diverged_network_is_reported_not_propagated():
    net = _net()
    net.params[0][:] = 1e3                      # as if training had blown up: the hidden
    net.params[2][:] = 1e308                    # units saturate at 1, the output is 4e308
    with pytest.raises(optim.ParameterError, match="overflowed"):
        net.forward(np.ones((2, 3)))


# ----------------------------------------------------------------- bad input
def _valid_cache():
    return _net().forward(_data()[0])[1]


BAD_X = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from(
    [np.ones(3), np.ones((2, 4)), np.ones((2, 3, 1)), [[1e16, 0.0, 0.0]], 1.0, None]))
BAD_VECTOR = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from(
    [np.ones(7), np.ones(9), np.ones((8, 2)), np.ones((8, 1, 1)), [], 1.0, None,
     np.full(8, 1e16)]))
BAD_MATRIX = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from(
    [np.ones(8), np.ones((7, 2)), np.ones((8, 3)), np.ones((8, 2, 1)), np.zeros((0, 2)), None,
     np.full((8, 2), 1e16), [[True, False]] * 8]))
BAD_BETA = st.one_of(BAD_PROB, st.sampled_from([1, 1.0]))
BAD_GRADS = st.one_of(NOT_AN_OBJECT, st.sampled_from(
    [[np.ones(3)], [np.array([np.nan, 0.0])], [np.array([1e16, 0.0])], [np.ones(2), np.ones(2)],
     [[1.0, 2.0]], [np.array([1j, 0])], []]))


def _adam_kwargs(**kwargs):
    return {"params": [np.array([1.0, -2.0])], **kwargs}


def _step(grads, check_input=True):
    Adam([np.array([1.0, -2.0])]).step(grads, check_input=check_input)


def _net_backward(cache, grad_out, check_input=True, input_grad=True):
    _net().backward(cache, grad_out, check_input=check_input, input_grad=input_grad)


def _net_forward(X, check_input=True):
    _net().forward(X, check_input=check_input)


P8 = np.linspace(0.1, 0.9, 8)
BAD = [
    # (name, function, valid keyword arguments, argument, strategy of wrong values)
    *[(f"{NET}.Network", Network, {"layer_sizes": (3, 2)}, arg, strat) for arg, strat in (
        ("layer_sizes", st.sampled_from([(3,), (3, 0), (0, 2), (3, 2.0), "32", 3, None,
                                         (3, 10**6), (3,) * 51, (True, 2)])),
        ("activation", BAD_CHOICE), ("dtype", BAD_CHOICE), ("rng", BAD_RNG))],
    *[(f"{NET}.Network.forward", _net_forward, {"X": np.ones((2, 3))}, arg, strat)
      for arg, strat in (("X", BAD_X), ("check_input", NOT_BOOL))],
    *[(f"{NET}.Network.backward", _net_backward,
       {"cache": _valid_cache(), "grad_out": np.ones((8, 2))}, arg, strat)
      for arg, strat in (
          ("cache", st.one_of(NOT_AN_OBJECT, st.just(network.ForwardCache([np.ones((8, 5))])))),
          ("grad_out", st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from(
              [np.ones((8, 3)), np.ones((7, 2)), np.ones(8), np.full((8, 2), 1e16), None]))),
          ("check_input", NOT_BOOL), ("input_grad", NOT_BOOL))],
    *[(f"{N}.Adam", Adam, _adam_kwargs(), arg, strat) for arg, strat in (
        ("params", st.sampled_from([[], None, np.ones(2), [np.array([1, 2])], [[1.0, 2.0]],
                                    [np.ones(2), "x"]])),
        ("learning_rate", st.one_of(BAD_POSITIVE, st.sampled_from([1e4, 1e300]))),
        ("beta1", BAD_BETA), ("beta2", BAD_BETA),
        ("eps", BAD_POSITIVE))],
    *[(f"{N}.Adam.step", _step, {"grads": [np.ones(2)]}, arg, strat)
      for arg, strat in (("grads", BAD_GRADS), ("check_input", NOT_BOOL))],
    *[(f"{N}.{f.__name__}", f, {"logits": [[1.0, 2.0]]}, "logits", st.one_of(
        NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from([[1.0, 2.0], 1.0, np.ones((2, 0)),
                                                         np.ones((1, 1, 2)), [[True, False]]])))
      for f in (softmax, log_softmax)],
    *[(f"{N}.binary_cross_entropy_with_logits", binary_cross_entropy_with_logits,
       {"logits": np.zeros(8), "y": np.ones(8)}, arg, strat) for arg, strat in (
        ("logits", st.one_of(BAD_VECTOR, st.sampled_from([np.ones((8, 2)), [True] * 8]))),
        ("y", st.one_of(BAD_VECTOR, st.sampled_from([np.full(8, 1.5), np.full(8, -0.1)]))))],
    *[(f"{N}.softmax_cross_entropy", softmax_cross_entropy,
       {"logits": np.zeros((8, 2)), "y": np.zeros(8, dtype=int)}, arg, strat)
      for arg, strat in (
        ("logits", st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from(
            [np.zeros(8), np.zeros((8, 0)), np.zeros((0, 2)), np.full((8, 2), 1e16)]))),
        ("y", st.one_of(NOT_NUMERIC, st.sampled_from(
            [np.full(8, 2), np.full(8, -1), np.zeros(8), np.zeros(7, dtype=int),
             np.zeros((8, 1), dtype=int), np.zeros(8, dtype=bool), [0.5] * 8, None]))))],
    *[(f"{N}.squared_error", squared_error, {"pred": np.zeros((8, 2)),
                                              "target": np.zeros((8, 2))}, arg, strat)
      for arg, strat in (("pred", BAD_MATRIX), ("target", BAD_MATRIX))],
    *[(f"{N}.group_normalized_l1", group_normalized_l1,
       {"prob": P8, "target": _data()[2], "groups": _data()[2]}, arg, strat)
      for arg, strat in (
        ("prob", BAD_VECTOR), ("target", BAD_VECTOR),
        ("groups", st.one_of(NOT_NUMERIC, st.sampled_from(
            [np.zeros(7, dtype=int), np.zeros((8, 1), dtype=int), np.full(8, 0.5), None,
             [0.5] * 8]))),
        ("n_groups", bad_int(1, 8)))],
    (f"{N}.group_normalized_l1", group_normalized_l1,
     {"prob": P8, "target": _data()[2], "groups": _data()[2], "n_groups": 2}, "groups",
     st.sampled_from([np.zeros(8, dtype=int), np.full(8, 5), np.arange(8) - 1])),
    *[(f"{N}.gradient_check", gradient_check,
       {"f": lambda: 0.0, "params": [np.zeros(2)], "grads": [np.zeros(2)]}, arg, strat)
      for arg, strat in (
        ("f", st.sampled_from([None, 1.0, "f", [lambda: 0.0], lambda: math.nan,
                               lambda: "1", lambda: np.ones(2), lambda: math.inf])),
        ("params", st.sampled_from([[], None, np.zeros(2), [np.zeros(2, dtype=int)],
                                    [[0.0, 0.0]]])),
        ("grads", st.one_of(NON_FINITE_ARRAYS.map(lambda a: [a]), st.sampled_from(
            [[np.zeros(3)], [], None, [np.zeros(2), np.zeros(2)], [["a", "b"]]]))),
        ("eps", st.one_of(BAD_POSITIVE, st.sampled_from([1.5, 1e300]))),
        ("n_checks", bad_int(1, optim.MAX_CHECKS)), ("rng", BAD_RNG))],
]


@pytest.mark.parametrize("row", BAD, ids=[f"{r[0].rsplit('.', 1)[1]}-{r[3]}" for r in BAD])
def test_bad_values_are_named(row):
    _, func, valid, arg, strategy = row

    @settings(max_examples=25, deadline=None, database=None)
    @given(bad=strategy)
    def run(bad):
        call_rejects(func, {**valid, arg: bad}, arg)

    run()


def test_bad_value_baselines_succeed():
    # without this a bad-value row could pass on a function that always raises
    for _, func, valid, _, _ in BAD:
        func(**valid)


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
                for meth, fn in vars(obj).items():
                    if meth.startswith("_") or not inspect.isfunction(fn):
                        continue
                    if [p for p in inspect.signature(fn).parameters if p != "self"]:
                        names.add(f"{modname}.{attr}.{meth}")
    return names


def test_every_public_callable_is_in_the_table():
    found = _public_callables()
    assert len(found) >= 9
    # (the BAD rows of Network are checked for coverage with the rest of the network in
    # test_learning_edges.py)
    for listed in ({c.name for c in CASES}, {r[0] for r in BAD if not r[0].startswith(NET)}):
        assert not sorted(found - listed), sorted(found - listed)
        assert not sorted(listed - found), sorted(listed - found)
