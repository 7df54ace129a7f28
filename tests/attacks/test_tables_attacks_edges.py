"""Legal-but-extreme inputs for the linkage, k-anonymity, reconstruction and tracing attacks
and their figures.

Each row of ``CASES`` names a function, valid keyword arguments, one NUMERIC parameter and a
strategy of extreme values for it (subnormals, 1e-300, 1e300, the largest double, Python ints
beyond the float range, tables and vectors holding such values), and optionally an exact
``check(kwargs, result)``. The call must answer without NaN (and pass the check) or refuse
with ParameterError/TypeError naming an argument, within a few seconds
(``_props.assert_extreme_ok``). Where the answer is known it is asserted: class sizes are
counts ≥ 1, Mondrian's output is k-anonymous, a reconstruction is a 0/1 vector and its
fraction lies in [0, 1], ``dp_recovery_bound(ε) = (e^ε + δ)/(1 + e^ε)``, a calibrated noise
scale is finite and positive, a tracing power is a probability, figures can be drawn.

``test_every_public_function_and_numeric_parameter_is_covered`` walks ``MODULES`` and fails
when a public function (or one of its numeric parameters) has no row.
"""

from __future__ import annotations

import inspect
import math
import re

import numpy as np
import pandas as pd
import pytest
from _props import EXTREME_POSITIVE_FLOATS, HUGE_INTS, TINY_FLOATS, assert_extreme_ok
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure
from scipy import special

from dpteach._validation import ParameterError
from dpteach.attacks import kanonymity as K
from dpteach.attacks import linkage as L
from dpteach.attacks import reconstruction as R
from dpteach.attacks import tracing as T
from dpteach.plots import anonymity as PA
from dpteach.plots import reconstruction as PR
from dpteach.plots.figure import FigureData

MODULES = (L, K, R, T, PA, PR)

# ------------------------------------------------------------------------ strategies
POS = st.one_of(EXTREME_POSITIVE_FLOATS, HUGE_INTS)
REALS = st.one_of(EXTREME_POSITIVE_FLOATS, EXTREME_POSITIVE_FLOATS.map(lambda v: -v),
                  st.just(0.0))
INTS = st.one_of(HUGE_INTS, st.sampled_from([0, 1, 2, 3, 5, 999, 1000, 1001, 10**6]))
EXTREME_LISTS = st.one_of(st.lists(REALS, min_size=4, max_size=4),
                          st.lists(HUGE_INTS, min_size=4, max_size=4))
PROBS = st.one_of(TINY_FLOATS, TINY_FLOATS.map(lambda t: 1.0 - t), st.sampled_from([0.0, 1.0]))
SMALL_PROBS = st.one_of(TINY_FLOATS, st.sampled_from([0.0, 0.5, 1 - 1e-16]))
FRACTIONS = st.lists(PROBS, min_size=4, max_size=4)


def table_of(values):
    """A 4-row table whose quasi-identifier ``q`` holds the (extreme) values."""
    return pd.DataFrame({"q": pd.Series(list(values), dtype=object).infer_objects(),
                         "s": ["a", "b", "a", "b"], "n": ["w", "x", "y", "z"]})


TABLES = EXTREME_LISTS.map(table_of)
BASE = table_of([1, 2, 2, 3])
ROSTER = BASE[["n", "q"]]
X = [0, 1, 1, 0]
Q = [[1, 0, 1, 1], [0, 1, 1, 0], [1, 1, 0, 1], [1, 1, 1, 1], [0, 0, 1, 1], [1, 0, 0, 0],
     [0, 1, 0, 1], [1, 1, 1, 0]]
A = [1.0, 2.0, 1.0, 2.0, 1.0, 0.0, 1.0, 2.0]


# ------------------------------------------------------------------------- checks
def is_float(r):
    return type(r) is float


def in01(r):
    return is_float(r) and 0.0 <= r <= 1.0


def bits(kw, r):
    return r.dtype == np.int64 and set(np.unique(r)) <= {0, 1}


def sizes_ok(kw, r):
    t = kw["table"]
    return r.dtype == np.int64 and r.shape == (len(t),) and r.min() >= 1 and r.max() <= len(t)


def k_anonymous(kw, r):
    qi = list(r.quasi_identifiers)
    return (L.anonymity_level(r.table, qi) >= r.k and r.class_sizes.sum() == len(kw["table"])
            and 0.0 <= r.information_loss <= 1.0)


def bound_ok(kw, r):
    eps, d = float(kw["epsilon"]), float(kw.get("delta", 0.0))
    exact = special.expit(eps) + d * special.expit(-eps)
    return is_float(r) and 0.5 <= r <= 1.0 and math.isclose(r, min(exact, 1.0), rel_tol=1e-12)


def calibration_ok(kw, r):
    return (r.scale > 0 and math.isfinite(r.scale) and math.isfinite(r.noise_std)
            and r.noise_std > 0 and r.per_query_epsilon >= 0 and r.per_query_rho >= 0)


def attack_ok(kw, r):
    return in01(r.fraction) and (r.dp_bound is None or 0.5 <= r.dp_bound <= 1.0)


def tracing_ok(kw, r):
    return in01(r.power) and np.all(np.isfinite(r.member_scores))


def figure(kw, r):
    return isinstance(r, Figure)


def figure_data(kw, r):
    return isinstance(r, FigureData) and all(
        np.all(np.isfinite(s.x)) for s in r.series)


def tbl(v):
    return dict(table=v)


# ------------------------------------------------------------------------- the table
# (function, valid kwargs, numeric parameter, strategy of extreme values, check or None)
CASES = [
    # ------------------------------------------------------------ attacks.linkage
    (L.adult_with_quasi_identifiers, {"n_rows": 5, "n_zip_codes": 3, "rng": 0}, "n_rows",
     INTS, lambda kw, r: len(r) == kw["n_rows"]),
    (L.adult_with_quasi_identifiers, {"n_rows": 5, "n_zip_codes": 3, "rng": 0}, "n_zip_codes",
     INTS, lambda kw, r: r["zip"].nunique() <= kw["n_zip_codes"]),
    (L.adult_with_quasi_identifiers, {"n_rows": 5, "n_zip_codes": 3, "rng": 0}, "rng", INTS,
     None),
    (L.check_table, {"name": "t", "table": BASE}, "table", TABLES,
     lambda kw, r: r is kw["table"]),
    (L.check_table, {"name": "t", "table": BASE.iloc[:1]}, "max_rows", INTS,
     lambda kw, r: r is kw["table"] and 1 <= kw.get("max_rows", 1) <= L.MAX_ROWS),
    (L.check_columns, {"name": "c", "columns": ["q", "s"], "table": BASE}, "table", TABLES,
     lambda kw, r: r == ["q", "s"]),
    (L.check_column, {"name": "c", "column": "q", "table": BASE}, "table", TABLES,
     lambda kw, r: r == "q"),
    (L.equivalence_classes, {"table": BASE, "quasi_identifiers": "q"}, "table", TABLES,
     lambda kw, r: r.dtype == np.int64 and r.shape == (4,) and r[0] == 0
     and set(r) == set(range(r.max() + 1))),
    (L.class_sizes, {"table": BASE, "quasi_identifiers": "q"}, "table", TABLES, sizes_ok),
    (L.fraction_unique, {"table": BASE, "quasi_identifiers": "q"}, "table", TABLES,
     lambda kw, r: in01(r)),
    (L.anonymity_level, {"table": BASE, "quasi_identifiers": "q"}, "table", TABLES,
     lambda kw, r: type(r) is int and 1 <= r <= 4),
    (L.uniqueness_curve, {"table": BASE, "attributes": ["q", "s"]}, "table", TABLES,
     lambda kw, r: np.all(np.diff(r) >= 0) and np.all((r >= 0) & (r <= 1))),
    (L.expected_fraction_unique, {"n": 10, "n_cells": 100}, "n", INTS,
     lambda kw, r: in01(r)),
    (L.expected_fraction_unique, {"n": 10, "n_cells": 100}, "n_cells", INTS,
     lambda kw, r: in01(r) and (r == 1.0 if kw["n_cells"] > 2**1023 else True)),
    (L.deidentify, {"table": BASE, "keep": ["q", "s"], "rng": 0}, "table", TABLES,
     lambda kw, r: len(r) == 4),
    (L.deidentify, {"table": BASE, "keep": ["q", "s"], "rng": 0}, "rng", INTS, None),
    *[(L.linkage_attack, {"release": BASE, "roster": ROSTER, "quasi_identifiers": "q",
                          "sensitive": "s"}, arg, TABLES,
       lambda kw, r: r.n_roster == 4 and 0 <= r.fraction_reidentified <= 1)
      for arg in ("release", "roster")],

    # ---------------------------------------------------------- attacks.kanonymity
    (K.coarsen, {"table": BASE, "rules": {"q": 2}}, "table", TABLES,
     lambda kw, r: len(r) == 4),
    (K.coarsen, {"table": BASE, "rules": {"q": 2}}, "rules", INTS.map(lambda v: {"q": v}),
     lambda kw, r: len(r) == 4),
    (K.suppress_small_classes, {"table": BASE, "quasi_identifiers": "q", "k": 2}, "table",
     TABLES, lambda kw, r: len(r) == 0 or L.anonymity_level(r, "q") >= 2),
    (K.suppress_small_classes, {"table": BASE, "quasi_identifiers": "q", "k": 2}, "k", INTS,
     lambda kw, r: len(r) == 0 or L.anonymity_level(r, "q") >= kw["k"]),
    (K.mondrian_anonymize, {"table": BASE, "quasi_identifiers": "q", "k": 2}, "table", TABLES,
     k_anonymous),
    (K.mondrian_anonymize, {"table": BASE, "quasi_identifiers": "q", "k": 2}, "k", INTS,
     k_anonymous),
    (K.l_diversity, {"table": BASE, "quasi_identifiers": "q", "sensitive": "s"}, "table",
     TABLES, lambda kw, r: type(r) is int and r >= 1),
    (K.homogeneity_attack, {"table": BASE, "quasi_identifiers": "q", "sensitive": "s"},
     "table", TABLES, lambda kw, r: 0 <= r.fraction_rows_exposed <= 1 and r.l >= 1),
    *[(K.background_knowledge_attack, {"table": BASE, "quasi_identifiers": "q",
                                       "sensitive": "s", "target": 1, "ruled_out": []},
       arg, strat, lambda kw, r: math.isclose(sum(r.candidates.values()), 1.0))
      for arg, strat in (("table", TABLES), ("target", INTS), ("ruled_out", EXTREME_LISTS))],

    # ------------------------------------------------------- attacks.reconstruction
    *[(R.subset_sum_queries, {"n": 4, "k": 3, "rng": 0}, arg, INTS,
       lambda kw, r: r.shape == (kw["k"], kw["n"])) for arg in ("n", "k", "rng")],
    *[(R.noisy_answers, {"secret": X, "queries": Q, "noise": noise, "size": 1.0, "rng": 0},
       "size", POS, lambda kw, r: r.shape == (8,) and np.all(np.isfinite(r)))
      for noise in ("bounded", "gaussian", "laplace")],
    (R.noisy_answers, {"secret": X, "queries": Q, "noise": "corrupt", "size": 0.5, "rng": 0},
     "size", PROBS, lambda kw, r: r.shape == (8,)),
    *[(R.noisy_answers, {"secret": X, "queries": Q, "noise": "bounded", "size": 1.0}, arg,
       EXTREME_LISTS, None) for arg in ("secret",)],
    (R.noisy_answers, {"secret": X, "queries": Q, "noise": "bounded", "size": 1.0}, "queries",
     EXTREME_LISTS.map(lambda v: [v] * 2), None),
    (R.noisy_answers, {"secret": X, "queries": Q, "noise": "bounded", "size": 1.0}, "rng", INTS,
     None),
    *[(R.calibrate_noise, {"k": 10, "epsilon": 1.0, "delta": 1e-6, "mechanism": m,
                           "accounting": a}, arg, strat, calibration_ok)
      for m in ("laplace", "gaussian") for a in ("basic", "zcdp")
      # ε up to the teaching domain's 1e3: beyond, the noise σ leaves gaussian_epsilon's
      # domain (the attack's own ε domain comes with its declaration)
      for arg, strat in (("epsilon", POS.filter(lambda v: v <= 1e3)), ("k", INTS),
                         ("delta", SMALL_PROBS))],
    *[(R.private_answers, {"secret": X, "queries": Q, "epsilon": 1.0, "delta": 1e-6,
                           "mechanism": m, "accounting": a, "rng": 0}, arg, strat,
       lambda kw, r: np.all(np.isfinite(r[0])))
      for m, a in (("laplace", "basic"), ("gaussian", "zcdp"))
      for arg, strat in (("epsilon", POS.filter(lambda v: v <= 1e3)), ("delta", SMALL_PROBS),
                         ("rng", INTS),
                         ("secret", EXTREME_LISTS),
                         ("queries", EXTREME_LISTS.map(lambda v: [v] * 2)))],
    *[(f, {"queries": Q, "answers": A, **extra}, "answers",
       st.lists(REALS, min_size=8, max_size=8), bits)
      for f, extra in ((R.reconstruct_least_squares, {}), (R.reconstruct_lp, {"norm": "l1"}),
                       (R.reconstruct_lp, {"norm": "linf"}))],
    *[(f, {"queries": Q, "answers": A}, "queries",
       EXTREME_LISTS.map(lambda v: [v] * 8), None)
      for f in (R.reconstruct_least_squares, R.reconstruct_lp)],
    *[(R.fraction_recovered, {"guess": X, "secret": X}, arg, EXTREME_LISTS, None)
      for arg in ("guess", "secret")],
    (R.dp_recovery_bound, {"epsilon": 1.0}, "epsilon", POS, bound_ok),
    (R.dp_recovery_bound, {"epsilon": 1.0, "delta": 0.0}, "delta", SMALL_PROBS, bound_ok),
    *[(R.reconstruction_attack, {"n": 8, "k": 16, "noise": "bounded", "size": 1.0,
                                 "decoder": dec, "rng": 0}, arg, strat, attack_ok)
      for dec in ("least_squares", "lp_l1")
      for arg, strat in (("size", POS), ("n", INTS), ("k", INTS), ("rng", INTS))],
    *[(R.reconstruction_attack, {"n": 8, "k": 16, "noise": noise, "epsilon": 1.0,
                                 "delta": 1e-6, "accounting": acc, "rng": 0}, arg, strat,
       attack_ok)
      for noise, acc in (("dp_laplace", "basic"), ("dp_gaussian", "zcdp"))
      for arg, strat in (("epsilon", POS), ("delta", SMALL_PROBS))],

    # ------------------------------------------------------------- attacks.tracing
    *[(T.population_frequencies, {"d": 3, "rng": 0}, arg, INTS,
       lambda kw, r: np.all((r >= 0.1) & (r <= 0.9))) for arg in ("d", "rng")],
    *[(T.means_noise_std, {"n": 10, "d": 10, "epsilon": 1.0, "delta": 1e-5}, arg, strat,
       lambda kw, r: is_float(r) and 0 < r < math.inf)
      for arg, strat in (("n", INTS), ("d", INTS), ("epsilon", POS), ("delta", SMALL_PROBS))],
    *[(T.tracing_statistic, {"targets": [[1, 0, 1, 0]], "released_means": [0.5] * 4,
                             "reference_means": [0.4] * 4, "method": m}, arg, strat,
       lambda kw, r: np.all(np.isfinite(r)))
      for m in ("inner_product", "homer")
      for arg, strat in (("targets", EXTREME_LISTS), ("released_means", EXTREME_LISTS),
                         ("reference_means", EXTREME_LISTS))],
    *[(T.tracing_attack, {"n": 20, "d": 30, "n_targets": 5, "rng": 0}, arg, strat, tracing_ok)
      for arg, strat in (("n", INTS), ("d", INTS), ("noise_std", POS), ("epsilon", POS),
                         ("delta", SMALL_PROBS), ("reference_size", INTS),
                         ("n_targets", INTS), ("fpr", PROBS), ("rng", INTS))],
    *[(T.tracing_power, {"n": 20, "d": 30}, arg, strat, lambda kw, r: in01(r))
      for arg, strat in (("n", INTS), ("d", INTS), ("noise_std", POS), ("epsilon", POS),
                         ("delta", SMALL_PROBS), ("fpr", PROBS))],

    # ------------------------------------------------------------ plots.anonymity
    *[(f, {"curves": {"Adult": [0.1, 0.5]}}, "curves",
       FRACTIONS.map(lambda v: {"c": v}), check)
      for f, check in ((PA.uniqueness_curve_data, figure_data),
                       (PA.plot_uniqueness_curve, figure))],
    *[(f, {"sizes": [1, 2, 2, 5]}, arg, strat, check)
      for f, check in ((PA.class_sizes_data, figure_data), (PA.plot_class_sizes, figure))
      for arg, strat in (("sizes", EXTREME_LISTS), ("k", INTS), ("max_size", INTS))],

    # -------------------------------------------------------- plots.reconstruction
    *[(f, {"relative_noise": [0.0, 0.5, 1.0, 2.0], "fractions": {"LS": [1.0, 0.9, 0.6, 0.5]},
           "n": 100}, arg, strat, check)
      for f, check in ((PR.recovery_vs_noise_data, figure_data),
                       (PR.plot_recovery_vs_noise, figure))
      for arg, strat in (("relative_noise", EXTREME_LISTS),
                         ("fractions", FRACTIONS.map(lambda v: {"LS": v})), ("n", INTS),
                         ("highlight", st.tuples(REALS, PROBS)))],
    *[(f, {"epsilons": [0.1, 1.0, 10.0, 100.0], "fractions": {"LS": [0.5, 0.5, 0.6, 0.9]}},
       arg, strat, check)
      for f, check in ((PR.recovery_vs_epsilon_data, figure_data),
                       (PR.plot_recovery_vs_epsilon, figure))
      for arg, strat in (("epsilons", EXTREME_LISTS),
                         ("fractions", FRACTIONS.map(lambda v: {"LS": v})),
                         ("delta", SMALL_PROBS), ("highlight", st.tuples(REALS, PROBS)))],
    *[(f, {"x": [10.0, 100.0, 1000.0, 1e4], "powers": {"sim": [0.05, 0.2, 0.9, 1.0]},
           "fpr": 0.05}, arg, strat, check)
      for f, check in ((PR.tracing_power_data, figure_data), (PR.plot_tracing_power, figure))
      for arg, strat in (("x", EXTREME_LISTS), ("powers", FRACTIONS.map(lambda v: {"s": v})),
                         ("fpr", PROBS), ("ceiling", PROBS))],
]

# Parameters that are not numbers (names, choices, flags, axes): not extreme-value targets.
NOT_NUMERIC = {"quasi_identifiers", "attributes", "keep", "sensitive", "noise", "mechanism",
               "accounting", "decoder", "norm", "method", "x_title", "log_x", "ax",
               "name", "columns", "column", "table_name"}
SLOW = {L.adult_with_quasi_identifiers, PA.plot_uniqueness_curve, PA.plot_class_sizes,
        PR.plot_recovery_vs_noise, PR.plot_recovery_vs_epsilon, PR.plot_tracing_power,
        R.reconstruct_lp, R.reconstruction_attack}


def _case_id(case):
    func, _, arg = case[:3]
    return f"{func.__module__.rsplit('.', 1)[-1]}.{func.__name__}-{arg}"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt
    plt.close("all")


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_extreme_values_answer_or_refuse_clearly(case):
    func, valid, arg, strategy, check = case
    examples = 4 if func in SLOW else 12

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(value=strategy)
    def run(value):
        kwargs = {**valid, arg: value}
        out = assert_extreme_ok(func, kwargs, arg,
                                check=None if check is None else (lambda r: check(kwargs, r)))
        if out is None:                        # refused: the message must name the argument
            with pytest.raises((ParameterError, TypeError)) as info:
                func(**kwargs)
            assert re.search(rf"(?<![A-Za-z0-9_]){arg}(?![A-Za-z0-9_])", str(info.value)), (
                f"{func.__name__}({arg}=...) refused without naming {arg}: {info.value}")

    run()


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_valid_baseline_passes_its_check(case):
    func, valid, _, _, check = case
    out = func(**valid)
    assert check is None or check(valid, out)


def _public_functions():
    found = {}
    for module in MODULES:
        for name, obj in vars(module).items():
            if (not name.startswith("_") and inspect.isfunction(obj)
                    and obj.__module__ == module.__name__ and inspect.signature(obj).parameters):
                found[(module.__name__, name)] = obj
    return found


def test_every_public_function_and_numeric_parameter_is_covered():
    functions = _public_functions()
    assert len(functions) >= 35
    covered = {(f.__module__, f.__name__) for f, *_ in CASES}
    missing = sorted(f"{m}.{n}" for m, n in functions if (m, n) not in covered)
    assert not missing, "public functions without an extreme-value test: " + ", ".join(missing)
    params = {(f.__module__, f.__name__, arg) for f, _, arg, *_ in CASES}
    untested = sorted(f"{m}.{n}({p})" for (m, n), f in functions.items()
                      for p in inspect.signature(f).parameters
                      if p not in NOT_NUMERIC and (m, n, p) not in params)
    assert not untested, "numeric parameters without an extreme-value test: " + ", ".join(untested)


# --------------------------------------------------------------- exact answers at the edges
def test_exact_answers_at_the_ends_of_float64():
    for eps in (5e-324, 1e-300, 1e-16):
        assert R.dp_recovery_bound(eps) == 0.5
    for eps in (40.0, 1e15, 1e300, 1.7976931348623157e308):
        assert R.dp_recovery_bound(eps) == 1.0
    assert L.expected_fraction_unique(10**12, 2**2000) == 1.0
    assert L.expected_fraction_unique(10**12, 10**6) == 0.0            # underflows to 0 exactly
    # answers far out of range are moved into [0, |S_j|]: the decoders still return bits
    q = R.subset_sum_queries(4, 8, rng=0)
    for a in (np.full(8, 1e308), np.full(8, -1e308)):
        for guess in (R.reconstruct_least_squares(q, a), R.reconstruct_lp(q, a)):
            np.testing.assert_array_equal(guess, np.ones(4) if a[0] > 0 else np.zeros(4))


def test_boolean_and_string_parameters_refuse_other_kinds():
    for bad in ("no", 0, 1, None, [True]):
        with pytest.raises(TypeError, match="log_x"):
            PR.tracing_power_data([1.0, 2.0], {"s": [0.1, 0.2]}, fpr=0.05, log_x=bad)
    for bad in (3, None, ["t"]):
        with pytest.raises(TypeError, match="x_title"):
            PR.tracing_power_data([1.0, 2.0], {"s": [0.1, 0.2]}, fpr=0.05, x_title=bad)
