"""Property-based bad-input tests for EVERY public function of mechanisms.py,
randomized_response.py and datasets.py.

Each (function, argument) pair gets a hypothesis strategy of wrong values (NaN, ±inf,
negatives, zero, out-of-range values, wrong types: str, bytes, None, list, bool, complex,
objects, and wrong shapes). The call must raise ValueError or TypeError whose message
names the argument (as a whole word) and shows what was received ("got ..."). Any other
exception, or no exception, fails. A coverage test checks that every parameter of every
public function defined in those modules is exercised here, so a new function cannot slip
through untested. A second group checks that extreme but *valid* values never crash.
"""

from __future__ import annotations

import inspect
import math
import re

import numpy as np
import pandas as pd
import pytest
from _props import (
    BAD_CHOICE,
    BAD_DELTA,
    BAD_POSITIVE,
    BAD_PROB,
    BAD_RNG,
    NON_FINITE_ARRAYS,
    NOT_A_NUMBER,
    NOT_BOOL,
    NOT_NUMERIC,
    WRONG_SHAPE,
    bad_int,
    call_rejects,
)
from hypothesis import given
from hypothesis import strategies as st

from dpteach import datasets as ds
from dpteach.mechanisms import noise as m
from dpteach.mechanisms import randomized_response as rr

# ε for gaussian_delta may be 0 (δ(0) is the total variation) but not negative or infinite.
BAD_NONNEG_EPS = st.one_of(
    st.sampled_from([-1e-300, -1.0, math.nan, math.inf, -math.inf]),
    st.floats(max_value=-1e-300, allow_nan=False, allow_infinity=True),
    NOT_A_NUMBER, WRONG_SHAPE)
# δ for the Gaussian: [0, 1) is the validator's range, and 0 is refused on top.
BAD_GAUSS_DELTA = st.one_of(BAD_DELTA, st.sampled_from([0, 0.0, -0.0]), NOT_A_NUMBER, WRONG_SHAPE)
BAD_OPEN_UNIT = st.one_of(st.sampled_from([0, 0.0, 1, 1.0]), BAD_PROB)          # (0, 1)
BAD_GAMMA = st.one_of(                                                           # (0, ½)
    st.sampled_from([0, 0.0, 0.5, 0.75, -0.1, math.nan, math.inf, -math.inf]),
    st.floats(min_value=0.5, allow_nan=False), st.floats(max_value=0.0, allow_nan=False),
    NOT_A_NUMBER, WRONG_SHAPE)




BAD_VALUE = st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC,
                      st.sampled_from([True, False, [True, False], np.array([False]),
                                       math.nan, math.inf, -math.inf, 10**400]))
# Wrong bit vectors: values other than 0/1, wrong shapes, empty, non-numbers, non-finite.
BAD_BITS = st.one_of(
    NON_FINITE_ARRAYS, NOT_NUMERIC,
    st.sampled_from([[0, 1, 2], [0.5], [-1, 0], 2, -1, 0.5, np.zeros((2, 2)), [[0, 1]], [],
                     np.array([], dtype=int), np.ones((1, 1, 1))]),
    st.lists(st.integers(min_value=2, max_value=10**6), min_size=1, max_size=5),
    st.lists(st.floats(min_value=0.01, max_value=0.99), min_size=1, max_size=5))
K = 4


def bad_categories(allow_scalar: bool):
    """Wrong vectors of categories in {0, …, K−1}."""
    items = [[0, K], [K + 3], [-1], [0.5, 1], [1.0000001], np.zeros((2, 2)), [[0, 1]], [],
             [True, False], True, np.array([True]), 2**70, [2**70]]
    if not allow_scalar:
        items += [1, np.int64(2), np.array(0)]
    else:
        items += [K, -1, 0.5]
    return st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC, st.sampled_from(items),
                     st.lists(st.integers(min_value=K, max_value=10**9), min_size=1, max_size=4))


@pytest.fixture(scope="module")
def small_adult():
    return ds.load_adult().head(300)


def _adult_with(column, value):
    df = ds.load_adult().head(40).copy()
    df[column] = df[column].astype(object)
    df.loc[5, column] = value
    return df


BAD_DF = st.sampled_from([
    "adult", 1, [1, 2], {"age": [30]}, np.zeros((3, 16)), pd.DataFrame(),
    pd.DataFrame({"age": [30], "sex": ["Male"]}), pd.Series([1, 2]), True,
])
BAD_DF_VALUES = st.sampled_from([
    ("sex", "male"), ("sex", " Male"), ("sex", 1), ("race", "Martian"),
    ("workclass", "Private "), ("income", "<=50K."), ("income", 1), ("split", "validation"),
    ("age", "forty"), ("age", math.inf), ("capital-gain", -math.inf), ("education", 3.0),
]).map(lambda cv: _adult_with(*cv))

# ----------------------------------------------------------------------- the table
# (function, valid keyword arguments, argument under attack, strategy of bad values)
CASES = [
    (m.laplace_scale, {"sensitivity": 1.0, "epsilon": 1.0}, "sensitivity", BAD_POSITIVE),
    (m.laplace_scale, {"sensitivity": 1.0, "epsilon": 1.0}, "epsilon", BAD_POSITIVE),

    (m.laplace_mechanism, {"value": [1.0, 2.0], "sensitivity": 1.0, "epsilon": 1.0, "rng": 0},
     "value", BAD_VALUE),
    (m.laplace_mechanism, {"value": [1.0, 2.0], "sensitivity": 1.0, "epsilon": 1.0, "rng": 0},
     "sensitivity", BAD_POSITIVE),
    (m.laplace_mechanism, {"value": [1.0, 2.0], "sensitivity": 1.0, "epsilon": 1.0, "rng": 0},
     "epsilon", BAD_POSITIVE),
    (m.laplace_mechanism, {"value": [1.0, 2.0], "sensitivity": 1.0, "epsilon": 1.0, "rng": 0},
     "rng", BAD_RNG),

    (m.gaussian_delta, {"sigma": 1.0, "sensitivity": 1.0, "epsilon": 1.0}, "sigma", BAD_POSITIVE),
    (m.gaussian_delta, {"sigma": 1.0, "sensitivity": 1.0, "epsilon": 1.0}, "sensitivity",
     BAD_POSITIVE),
    (m.gaussian_delta, {"sigma": 1.0, "sensitivity": 1.0, "epsilon": 1.0}, "epsilon",
     BAD_NONNEG_EPS),
    *[(m.gaussian_epsilon, {"sigma": 1.0, "delta": 1e-5, "sensitivity": 1.0}, arg, strat)
      for arg, strat in (("sigma", BAD_POSITIVE), ("sensitivity", BAD_POSITIVE),
                         ("delta", BAD_GAUSS_DELTA))],

    *[(m.gaussian_sigma, {"sensitivity": 1.0, "epsilon": 0.5, "delta": 1e-5, "method": meth},
       arg, strat)
      for meth in ("analytic", "classic")
      for arg, strat in (("sensitivity", BAD_POSITIVE), ("epsilon", BAD_POSITIVE),
                         ("delta", BAD_GAUSS_DELTA))],
    (m.gaussian_sigma, {"sensitivity": 1.0, "epsilon": 0.5, "delta": 1e-5}, "method", BAD_CHOICE),
    # the classic bound additionally refuses ε ≥ 1
    (m.gaussian_sigma, {"sensitivity": 1.0, "epsilon": 0.5, "delta": 1e-5, "method": "classic"},
     "epsilon", st.floats(min_value=1.0, max_value=1e300)),

    *[(m.gaussian_mechanism, {"value": 0.0, "sensitivity": 1.0, "epsilon": 0.5, "delta": 1e-5,
                              "rng": 0}, arg, strat)
      for arg, strat in (("value", BAD_VALUE), ("sensitivity", BAD_POSITIVE),
                         ("epsilon", BAD_POSITIVE), ("delta", BAD_GAUSS_DELTA),
                         ("method", BAD_CHOICE), ("rng", BAD_RNG))],
    (rr.rr_epsilon_from_gamma, {"gamma": 0.25}, "gamma", BAD_GAMMA),
    (rr.rr_gamma_from_epsilon, {"epsilon": 1.0}, "epsilon", BAD_POSITIVE),

    (rr.randomized_response, {"bits": [0, 1, 1], "gamma": 0.25, "rng": 0}, "bits", BAD_BITS),
    (rr.randomized_response, {"bits": [0, 1, 1], "gamma": 0.25, "rng": 0}, "gamma", BAD_GAMMA),
    (rr.randomized_response, {"bits": [0, 1, 1], "epsilon": 1.0, "rng": 0}, "epsilon",
     BAD_POSITIVE),
    (rr.randomized_response, {"bits": [0, 1, 1], "gamma": 0.25, "rng": 0}, "rng", BAD_RNG),

    (rr.rr_std_error, {"rate": 0.3, "n": 100, "gamma": 0.25}, "rate", BAD_PROB),
    (rr.rr_std_error, {"rate": 0.3, "n": 100, "gamma": 0.25}, "n", bad_int(1, 10**15)),
    (rr.rr_std_error, {"rate": 0.3, "n": 100, "gamma": 0.25}, "gamma", BAD_GAMMA),
    (rr.rr_std_error, {"rate": 0.3, "n": 100, "epsilon": 1.0}, "epsilon", BAD_POSITIVE),

    (rr.rr_estimate, {"reports": [0, 1, 1], "gamma": 0.25}, "reports", BAD_BITS),
    (rr.rr_estimate, {"reports": [0, 1, 1], "gamma": 0.25}, "gamma", BAD_GAMMA),
    (rr.rr_estimate, {"reports": [0, 1, 1], "epsilon": 1.0}, "epsilon", BAD_POSITIVE),
    (rr.rr_estimate, {"reports": [0, 1, 1], "gamma": 0.25}, "confidence", BAD_OPEN_UNIT),

    (rr.k_randomized_response, {"values": [0, 1, 3], "k": K, "epsilon": 1.0, "rng": 0}, "values",
     bad_categories(allow_scalar=True)),
    (rr.k_randomized_response, {"values": [0, 1, 1], "k": K, "epsilon": 1.0, "rng": 0}, "k",
     bad_int(2, 1_000_000)),
    (rr.k_randomized_response, {"values": [0, 1, 3], "k": K, "epsilon": 1.0, "rng": 0}, "epsilon",
     BAD_POSITIVE),
    (rr.k_randomized_response, {"values": [0, 1, 3], "k": K, "epsilon": 1.0, "rng": 0}, "rng",
     BAD_RNG),

    (rr.k_rr_estimate, {"reports": [0, 1, 3], "k": K, "epsilon": 1.0}, "reports",
     bad_categories(allow_scalar=False)),
    (rr.k_rr_estimate, {"reports": [0, 1, 1], "k": K, "epsilon": 1.0}, "k", bad_int(2, 1_000_000)),
    (rr.k_rr_estimate, {"reports": [0, 1, 3], "k": K, "epsilon": 1.0}, "epsilon", BAD_POSITIVE),

    # privacy-loss functions and the randomized-response error analysis
    *[(m.laplace_privacy_loss, {"y": [0.0, 1.0], "sensitivity": 1.0, "epsilon": 1.0,
                                "value": 0.0}, arg, strat)
      for arg, strat in (("y", BAD_VALUE), ("sensitivity", BAD_POSITIVE),
                         ("epsilon", BAD_POSITIVE),
                         ("value", st.one_of(NOT_A_NUMBER, WRONG_SHAPE,
                                             st.sampled_from([math.nan, math.inf]))))],
    *[(m.gaussian_privacy_loss, {"y": [0.0, 1.0], "sensitivity": 1.0, "sigma": 1.0,
                                 "value": 0.0}, arg, strat)
      for arg, strat in (("y", BAD_VALUE), ("sensitivity", BAD_POSITIVE),
                         ("sigma", BAD_POSITIVE),
                         ("value", st.one_of(NOT_A_NUMBER, WRONG_SHAPE,
                                             st.sampled_from([math.nan, -math.inf]))))],
    *[(rr.simulate_rr_estimates, {"true_rate": 0.3, "n": 50, "gamma": 0.25, "n_trials": 10,
                                 "rng": 0}, arg, strat)
      for arg, strat in (("true_rate", BAD_PROB), ("n", bad_int(1, 10**9)),
                         ("gamma", BAD_GAMMA), ("n_trials", bad_int(2, 10**6)),
                         ("rng", BAD_RNG))],
    (rr.simulate_rr_estimates, {"true_rate": 0.3, "n": 50, "epsilon": 1.0, "n_trials": 10,
                               "rng": 0}, "epsilon", BAD_POSITIVE),
    (rr.simulate_rr_estimates, {"true_rate": 0.3, "n": 50, "epsilon": 1.0, "n_trials": 10,
                               "rng": 0}, "simulation", BAD_CHOICE),
    *[(f, {"n": [10, 100], "epsilon": 1.0}, arg, strat)
      for f in (rr.rr_local_std, rr.central_laplace_rate_std)
      for arg, strat in (("n", st.one_of(NON_FINITE_ARRAYS, NOT_NUMERIC,
                                         st.sampled_from([0, -1, [1, 0], [2.5], 0.5,
                                                          np.zeros((2, 2))]))),
                         ("epsilon", BAD_POSITIVE))],

    # ----------------------------------------------------------------------- datasets
    (ds.adult_arrays, {"df": None}, "df", st.one_of(BAD_DF, BAD_DF_VALUES)),
    (ds.adult_arrays, {"df": None}, "include_sex", NOT_BOOL),
    (ds.adult_arrays, {"df": None}, "drop_missing", NOT_BOOL),
    (ds.load_mnist_5k, {}, "scale", NOT_BOOL),
    (ds.make_parallel_databases, {"n": 10, "p": 0.5, "rng": 0}, "n", bad_int(2, 2_000)),
    (ds.make_parallel_databases, {"n": 10, "p": 0.5, "rng": 0}, "p", BAD_PROB),
    (ds.make_parallel_databases, {"n": 10, "p": 0.5, "rng": 0}, "rng", BAD_RNG),
    (ds.make_toy_data, {"n": 20, "rng": 0}, "n", st.one_of(bad_int(4, 100_000),
                                                           st.sampled_from([5, 21, 99]))),
    (ds.make_toy_data, {"n": 20, "rng": 0}, "rng", BAD_RNG),
    *[(ds.make_two_moons, {"n": 20, "noise": 0.25, "rng": 0}, arg, strat) for arg, strat in (
        ("n", bad_int(4, 100_000)), ("rng", BAD_RNG),
        ("noise", st.one_of(NOT_A_NUMBER, WRONG_SHAPE, st.sampled_from(
            [-1e-9, -1.0, 100.5, 1e300, math.nan, math.inf, -math.inf]))))],
]


def _case_id(case):
    func, valid, arg, _ = case
    extra = f"-{valid['method']}" if "method" in valid and arg != "method" else ""
    return f"{func.__name__}-{arg}{extra}"


def _names_argument(arg: str, message: str) -> bool:
    # whole word: "epsilon" must not be satisfied by "epsilons", "p" not by "epsilon"
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(arg)}(?![A-Za-z0-9_])", message) is not None


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_rejects_bad_values(case):
    func, valid, arg, strategy = case

    @given(bad=strategy)
    def run(bad):
        kwargs = {**valid, arg: bad}
        call_rejects(func, kwargs, arg)            # ValueError/TypeError naming arg, else fail
        try:
            func(**kwargs)
        except (ValueError, TypeError) as exc:
            msg = str(exc)
            assert _names_argument(arg, msg), f"{func.__name__}: {arg!r} not a word in {msg!r}"
            assert "got" in msg, f"{func.__name__}: message does not show the value: {msg!r}"

    run()


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_valid_baseline_calls_succeed(case):
    # Without this the bad-value tests could pass vacuously on a function that always raises.
    func, valid, _, _ = case
    if func is ds.adult_arrays:
        valid = {**valid, "df": ds.load_adult().head(300)}
    func(**valid)


def _public_functions(module):
    for name in getattr(module, "__all__", dir(module)):
        obj = getattr(module, name)
        if inspect.isfunction(obj) and obj.__module__ == module.__name__:
            yield obj


@pytest.mark.parametrize("module", [m, rr, ds], ids=["mechanisms", "randomized_response",
                                                     "datasets"])
def test_every_public_parameter_is_attacked(module):
    # Functions *defined* in the module (re-exports from other modules are tested with
    # their own module) must have every parameter in the table above.
    covered = {}
    for func, _, arg, _ in CASES:
        covered.setdefault(func, set()).add(arg)
    missing = []
    for func in _public_functions(module):
        params = set(inspect.signature(func).parameters)
        lacking = params - covered.get(func, set())
        if lacking:
            missing.append(f"{func.__name__}: {sorted(lacking)}")
    assert not missing, "parameters without bad-input tests: " + "; ".join(missing)


def test_parameterless_loaders_reject_arguments():
    for loader in (ds.load_adult, ds.load_german):
        assert not inspect.signature(loader).parameters
        with pytest.raises(TypeError, match=loader.__name__):
            loader(1)
    X_tr, X_te, y_tr, y_te = ds.adult_arrays(ds.load_adult().head(200)).train_test()
    assert len(X_tr) + len(X_te) == len(y_tr) + len(y_te) <= 200


# ------------------------------------------------- extreme but valid values never crash
POS = st.floats(min_value=5e-324, max_value=1e300)


@given(sensitivity=st.floats(min_value=1e-6, max_value=1e6),
       epsilon=st.floats(min_value=1e-6, max_value=1e3))
def test_laplace_scale_is_a_usable_noise_scale_on_the_teaching_domain(sensitivity, epsilon):
    # b = Δ/ε must be a positive finite float: 0 would mean *no noise* (a privacy failure),
    # inf would mean NaN outputs; the teaching domain keeps it in [1e-9, 1e12]
    b = m.laplace_scale(sensitivity, epsilon)
    assert math.isfinite(b) and 1e-9 * (1 - 1e-15) <= b <= 1e12 * (1 + 1e-15)


@given(sensitivity=st.floats(min_value=1e-6, max_value=1e6),
       epsilon=st.floats(min_value=1e-6, max_value=1e3),
       delta=st.floats(min_value=1e-50, max_value=0.999999))
def test_analytic_sigma_valid_everywhere(sensitivity, epsilon, delta):
    sigma = m.gaussian_sigma(sensitivity, epsilon, delta)
    assert math.isfinite(sigma) and sigma > 0
    assert m.gaussian_delta(sigma, sensitivity, epsilon) <= delta


def _finite_or_names(call, arg):
    """Run ``call``; it returns finite numbers or raises a ValueError naming ``arg``."""
    try:
        out = call()
    except ValueError as exc:
        assert _names_argument(arg, str(exc)) and "got" in str(exc), str(exc)
        return None
    return out


@given(epsilon=POS, p=st.floats(min_value=0, max_value=1))
def test_rr_estimate_finite_for_any_valid_epsilon(epsilon, p):
    reports = (np.arange(20) < round(20 * p)).astype(int)
    r = _finite_or_names(lambda: rr.rr_estimate(reports, epsilon=epsilon), "epsilon")
    if r is None:
        # only astronomically small ε may be refused (the estimate exceeds 1e308)
        assert epsilon < 1e-300
    else:
        assert all(math.isfinite(x) for x in (r.estimate, r.std_error, r.ci_low, r.ci_high))
    se = _finite_or_names(lambda: rr.rr_std_error(p, 20, epsilon=epsilon), "epsilon")
    assert (se is None and epsilon < 1e-300) or math.isfinite(se)


@given(gamma=st.floats(min_value=5e-324, max_value=0.5, exclude_max=True))
def test_rr_estimate_finite_for_any_valid_gamma(gamma):
    r = _finite_or_names(lambda: rr.rr_estimate([0, 1, 1], gamma=gamma), "gamma")
    assert (r is None and gamma < 1e-300) or math.isfinite(r.ci_high)


@given(epsilon=POS, k=st.integers(min_value=2, max_value=50))
def test_k_rr_estimate_finite_for_any_valid_epsilon(epsilon, k):
    reports = np.r_[np.arange(k), 0, 0]          # uneven counts: k·c_v − n ≠ 0
    est = _finite_or_names(lambda: rr.k_rr_estimate(reports, k, epsilon), "epsilon")
    if est is None:
        assert epsilon < 1e-300
    else:
        assert np.all(np.isfinite(est))
        # Σ π̂_v = 1 exactly; in floating point the huge entries for tiny ε cancel only
        # up to their rounding, ~1e-16·max|π̂_v| ≈ 1e-16·k/ε.
        assert est.sum() == pytest.approx(1.0, abs=1e-9 + 1e-14 * k / epsilon)


@given(value=st.one_of(st.floats(min_value=-1e15, max_value=1e15),
                       st.lists(st.floats(min_value=-1e6, max_value=1e6), max_size=5)))
def test_mechanisms_accept_any_finite_value(value):
    out = m.laplace_mechanism(value, 1.0, 1.0, rng=0)
    assert np.shape(out) == np.shape(value)
    out = m.gaussian_mechanism(value, 1.0, 1.0, 1e-5, rng=0)
    assert np.shape(out) == np.shape(value)
