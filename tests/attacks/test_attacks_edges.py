"""Legal-but-extreme inputs for every public function of the attacks package and its plots.

Each row of ``CASES`` names a function, valid keyword arguments, one NUMERIC parameter and a
strategy of extreme values for it (subnormals, 1e-300, 1e300, the largest double, Python ints
beyond the float range, ...), and optionally an exact ``check(kwargs, result)``. The call must
answer without NaN (and pass the check) or refuse with ParameterError/TypeError naming an
argument, within a few seconds (``_props.assert_extreme_ok``). Where the answer is known it is
asserted: ``dp_success_bound(ε) = e^ε/(1+e^ε)`` (→ 1, never NaN), ``dp_roc_bound`` within
[0, 1], monotone and ≥ FPR, ``dp_advantage_bound(ε) = tanh(ε/2)``, ``noisy_attack_success``
between ½ and the DP bound, the mean within [min, max], ...

``test_every_public_function_and_numeric_parameter_is_covered`` walks the modules and fails
when a public function (or one of its numeric parameters) is missing from ``CASES``.
"""

from __future__ import annotations

import importlib
import inspect
import json
import math
import re

import numpy as np
import pytest
from _props import (
    EXTREME_POSITIVE_FLOATS,
    HUGE_INTS,
    TINY_FLOATS,
    assert_extreme_ok,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure
from scipy import special
from sklearn.dummy import DummyClassifier

from dpteach._validation import ParameterError
from dpteach.attacks import differencing as D
from dpteach.attacks import membership as M
from dpteach.attacks import roc as R
from dpteach.plots import attacks as P
from dpteach.plots.figure import FigureData, to_vega_lite

MODULES = (D, M, R, P)

# ------------------------------------------------------------------------ strategies
POS = st.one_of(EXTREME_POSITIVE_FLOATS, HUGE_INTS)                 # > 0, any size
SIGNED = st.one_of(POS, POS.map(lambda v: -v), st.just(0.0))
REALS = st.one_of(EXTREME_POSITIVE_FLOATS, EXTREME_POSITIVE_FLOATS.map(lambda v: -v),
                  st.just(0.0))
INTS = st.one_of(HUGE_INTS, st.sampled_from([0, 1, 2, 999, 1000, 1001, 10**6, 10**6 + 1]))
EXTREME_ARRAYS = st.one_of(st.lists(REALS, min_size=2, max_size=6),
                           st.lists(HUGE_INTS, min_size=2, max_size=4))
POS_ARRAYS = st.lists(EXTREME_POSITIVE_FLOATS, min_size=2, max_size=6)
# probabilities at the ends of [0, 1]: tiny, subnormal, 1 − tiny
PROBS = st.one_of(TINY_FLOATS, TINY_FLOATS.map(lambda t: 1.0 - t), st.sampled_from([0.0, 1.0]))
SMALL_PROBS = st.one_of(TINY_FLOATS, st.sampled_from([0.0, 0.5]))   # legal δ and FPR levels

# --------------------------------------------------------------------- fixtures
DB = [0, 1, 1, 0, 1]
EXP_MEMBER = M.membership_matrix(4, 12, rng=0)
EXP_MEMBER[:, :2] = [[True, False]] * 4           # every model: members and non-members
EXP_MEMBER[0, 2], EXP_MEMBER[1, 2] = True, False


def experiment(values):
    """A 4-model experiment whose confidences and losses are built from ``values``."""
    v = np.resize(np.asarray(values, dtype=object), EXP_MEMBER.shape)
    return M.ShadowExperiment(membership=EXP_MEMBER, confidences=v, losses=v,
                              train_accuracy=np.ones(4), test_accuracy=np.ones(4),
                              epsilons=np.ones(4))


class PrivateDummy(DummyClassifier):
    """A fast classifier that reports a privacy level, as dpteach's learners do."""

    def fit(self, X, y, sample_weight=None):
        super().fit(X, y, sample_weight)
        self.epsilon_ = 1.0
        return self


def proba_with(p):
    return [[p, 1.0 - p], [0.5, 0.5], [1.0 - p, p]]


# ------------------------------------------------------------------------- checks
def in01(x):
    return bool(np.all((np.asarray(x) >= 0) & (np.asarray(x) <= 1)))


def is_roc(res):
    return (in01(res.fpr) and in01(res.tpr) and np.all(np.diff(res.fpr) >= 0)
            and np.all(np.diff(res.tpr) >= 0) and res.fpr[-1] == res.tpr[-1] == 1.0
            and 0.0 <= res.auc <= 1.0 and -1e-12 <= res.advantage <= 1.0
            and isinstance(res.auc, float) and all(isinstance(v, float)
                                                   for v in res.tpr_at_fpr.values()))


def is_float(r):
    return type(r) is float


def success_between_half_and_bound(kw, r):
    eps = float(kw["epsilon"])
    k = kw.get("k", 1)
    bound = special.expit(k * eps) if math.isfinite(k * eps) else 1.0
    ok = is_float(r) and 0.5 - 1e-12 <= r <= bound + 1e-12
    if k == 1 and kw.get("scenario", "known_rest") == "known_rest":
        ok = ok and math.isclose(r, 1 - 0.5 * math.exp(-eps / 2), rel_tol=1e-12, abs_tol=1e-15)
    return ok


def laplace_sf_ok(kw, r):
    m, a, b = kw["m"], float(kw["a"]), float(kw["scale"])
    if not (is_float(r) and 0.0 <= r <= 1.0 and (r <= 0.5 if a >= 0 else r >= 0.5)):
        return False
    if m == 1 and a >= 0:                         # ½ e^{−a/b}
        with np.errstate(over="ignore"):
            u = np.float64(a) / np.float64(b)
        return math.isclose(r, 0.5 * math.exp(-min(float(u), 800.0)), rel_tol=1e-9,
                            abs_tol=1e-300)
    return True


def roc_bound_ok(kw, r):
    f = np.atleast_1d(np.asarray(kw["fpr"], dtype=float))
    b = np.atleast_1d(r)
    d = float(kw.get("delta", 0.0))
    order = np.argsort(f)
    return (in01(b) and np.all(b >= f - 1e-15) and np.all(np.diff(b[order]) >= -1e-15)
            and np.all(b[f == 0] <= d + 1e-15) and np.all(b[f == 1] == 1.0)
            and (is_float(r) if np.ndim(kw["fpr"]) == 0 else True))


def advantage_ok(kw, r):
    eps, d = float(kw["epsilon"]), float(kw.get("delta", 0.0))
    exact = math.tanh(eps / 2) + 2 * d / (math.exp(min(eps, 700)) + 1)
    return is_float(r) and 0.0 <= r <= 1.0 and math.isclose(r, min(exact, 1.0), rel_tol=1e-9,
                                                            abs_tol=1e-15)


def auc_ok(kw, r):
    # at δ = 0 the ceiling has corners (0, 0), (x*, 1 − x*), (1, 1) with x* = 1/(1 + e^ε), so
    # its area is 1 − x* = e^ε/(1 + e^ε); δ > 0 only raises it
    eps, d = float(kw["epsilon"]), float(kw.get("delta", 0.0))
    exact = special.expit(eps)
    return is_float(r) and 0.5 <= r <= 1.0 and (
        math.isclose(r, exact, rel_tol=1e-12) if d == 0 else r >= exact - 1e-12)


def lira_ok(kw, r):
    return r.shape == (len(kw["target_confidences"]),) and np.all(np.isfinite(r))


def figure(kw, r):
    return isinstance(r, Figure)


def figure_data(kw, r):
    """A FigureData whose browser chart is plain JSON (no NaN, no inf)."""
    json.dumps(to_vega_lite(r), allow_nan=False)
    return isinstance(r, FigureData)


# ------------------------------------------------------------------------- the table
# (function, valid kwargs, numeric parameter, strategy of extreme values, check or None)
CASES = [
    # ------------------------------------------------------- attacks.differencing
    (D.query_sum, {"x": DB}, "x", EXTREME_ARRAYS, lambda kw, r: is_float(r)),
    (D.query_mean, {"x": DB}, "x", EXTREME_ARRAYS,
     lambda kw, r: is_float(r) and min(map(float, kw["x"])) <= r <= max(map(float, kw["x"]))),
    (D.count_at_least, {"threshold": 2}, "threshold", INTS,
     lambda kw, r: r(np.ones(3)) == float(3 >= kw["threshold"])),
    (D.empirical_sensitivity, {"query": "sum", "db": DB}, "db", EXTREME_ARRAYS,
     lambda kw, r: is_float(r.sensitivity) and r.sensitivity >= 0),
    (D.empirical_sensitivity, {"query": "mean", "db": DB}, "db", EXTREME_ARRAYS,
     lambda kw, r: is_float(r.sensitivity) and r.sensitivity >= 0),
    (D.empirical_sensitivity, {"query": "sum", "db": DB}, "norm", INTS, None),
    (D.empirical_sensitivity, {"query": "sum", "db": DB}, "parallel",
     EXTREME_ARRAYS.map(lambda v: np.resize(np.asarray(v, dtype=object), (5, 4))), None),
    (D.differencing_attack, {"db": DB, "target": 1}, "target", INTS,
     lambda kw, r: r.guess == DB[kw["target"]]),
    *[(f, {"db": DB, "target": 1, **extra}, "db", EXTREME_ARRAYS, None)
      for f, extra in ((D.differencing_attack, {}), (D.threshold_attack, {"threshold": 2}),
                       (D.simulate_noisy_attack, {"epsilon": 1.0, "n_trials": 50}))],
    (D.reconstruct_by_differencing, {"db": DB}, "db", EXTREME_ARRAYS, None),
    (D.threshold_attack, {"db": DB, "target": 1, "threshold": 2}, "target", INTS,
     lambda kw, r: r.guess == DB[kw["target"]]),
    (D.threshold_attack, {"db": DB, "target": 1, "threshold": 2}, "threshold", INTS,
     lambda kw, r: r.guess == DB[1]),
    (D.dp_success_bound, {"epsilon": 1.0}, "epsilon", POS,
     lambda kw, r: is_float(r) and 0.5 <= r <= 1.0 and r == special.expit(float(kw["epsilon"]))),
    (D.laplace_sum_sf, {"m": 1, "a": 1.0, "scale": 1.0}, "m", INTS, laplace_sf_ok),
    (D.laplace_sum_sf, {"m": 1, "a": 1.0, "scale": 1.0}, "a", SIGNED, laplace_sf_ok),
    (D.laplace_sum_sf, {"m": 3, "a": 1.0, "scale": 1.0}, "a", SIGNED, laplace_sf_ok),
    (D.laplace_sum_sf, {"m": 1, "a": 1.0, "scale": 1.0}, "scale", POS, laplace_sf_ok),
    (D.laplace_sum_sf, {"m": 50, "a": 1e300, "scale": 1.0}, "scale", POS, laplace_sf_ok),
    (D.noisy_attack_success, {"epsilon": 1.0}, "epsilon", POS, success_between_half_and_bound),
    (D.noisy_attack_success, {"epsilon": 1.0, "k": 1000, "scenario": "two_queries"}, "epsilon",
     POS, success_between_half_and_bound),
    (D.noisy_attack_success, {"epsilon": 1.0}, "k", INTS, success_between_half_and_bound),
    *[(D.simulate_noisy_attack, {"db": DB, "target": 1, "epsilon": 1.0, "n_trials": 50, "rng": 0},
       arg, strat, lambda kw, r: is_float(r) and 0 <= r <= 1
       and (r == 1.0 or float(kw["epsilon"]) < 100))
      for arg, strat in (("epsilon", POS), ("target", INTS), ("k", INTS), ("n_trials", INTS),
                         ("rng", INTS))],

    # -------------------------------------------------------------------- attacks.roc
    (R.roc_from_scores, {"scores": [1.0, 2.0, 3.0, 4.0], "is_member": [1, 0, 1, 0]}, "scores",
     EXTREME_ARRAYS.map(lambda v: (v * 2)[:4]), lambda kw, r: is_roc(r)),
    (R.roc_from_scores, {"scores": [1.0, 2.0, 3.0, 4.0], "is_member": [1, 0, 1, 0]},
     "sample_weight", POS_ARRAYS.map(lambda v: (v * 2)[:4]), lambda kw, r: is_roc(r)),
    (R.roc_from_scores, {"scores": [1.0, 2.0, 3.0, 4.0], "is_member": [1, 0, 1, 0]},
     "low_fprs", st.lists(st.one_of(TINY_FLOATS, TINY_FLOATS.map(lambda t: 1 - t)), min_size=1,
                          max_size=3), lambda kw, r: is_roc(r)),
    (R.dp_roc_bound, {"fpr": [0.0, 5e-324, 1e-300, 0.3, 1.0], "epsilon": 1.0}, "epsilon", POS,
     roc_bound_ok),
    (R.dp_roc_bound, {"fpr": 0.3, "epsilon": 1.0, "delta": 1e-5}, "fpr", PROBS, roc_bound_ok),
    (R.dp_roc_bound, {"fpr": 0.3, "epsilon": 800.0}, "fpr", PROBS, roc_bound_ok),
    (R.dp_roc_bound, {"fpr": [0.0, 5e-324, 0.3, 1.0], "epsilon": 1.0}, "delta", SMALL_PROBS,
     roc_bound_ok),
    (R.dp_advantage_bound, {"epsilon": 1.0}, "epsilon", POS, advantage_ok),
    (R.dp_advantage_bound, {"epsilon": 1.0}, "delta", SMALL_PROBS, advantage_ok),
    (R.dp_auc_bound, {"epsilon": 1.0}, "epsilon", POS, auc_ok),
    (R.dp_auc_bound, {"epsilon": 1.0}, "delta", SMALL_PROBS, auc_ok),

    # ------------------------------------------------------------- attacks.membership
    *[(M.loss_threshold_attack, {"member_losses": [0.1, 0.2], "nonmember_losses": [0.3, 1.0],
                                 "threshold": 0.2}, arg, strat,
       lambda kw, r: is_roc(r) and in01(r.operating_point))
      for arg, strat in (("member_losses", EXTREME_ARRAYS), ("nonmember_losses", EXTREME_ARRAYS),
                         ("threshold", SIGNED), ("low_fprs", EXTREME_ARRAYS))],
    (M.logit_confidence, {"proba": proba_with(0.3), "y": [0, 1, 0]}, "proba", PROBS.map(proba_with),
     lambda kw, r: r.shape == (3,) and np.all(np.abs(r) <= 1418.1)),
    (M.logit_confidence, {"proba": proba_with(0.3), "y": [0, 1, 0]}, "y",
     st.lists(INTS, min_size=3, max_size=3), None),
    (M.cross_entropy_from_proba, {"proba": proba_with(0.3), "y": [0, 1, 0]}, "proba",
     PROBS.map(proba_with), lambda kw, r: np.all((r >= 0) & (r <= 745.2))),
    (M.cross_entropy_from_proba, {"proba": proba_with(0.3), "y": [0, 1, 0]}, "y",
     st.lists(INTS, min_size=3, max_size=3), None),
    *[(M.membership_matrix, {"n_models": 2, "n_examples": 3}, arg, INTS,
       lambda kw, r: r.shape == (kw["n_models"], kw["n_examples"]) and r.dtype == bool)
      for arg in ("n_models", "n_examples", "rng")],
    *[(M.run_shadow_experiment,
       {"estimator": PrivateDummy(), "X": np.arange(40.0).reshape(20, 2),
        "y": np.arange(20) % 2, "n_models": 2, "rng": 0}, arg, strat,
       lambda kw, r: np.all(np.isfinite(r.confidences)) and np.all(np.isfinite(r.losses)))
      for arg, strat in (("X", EXTREME_ARRAYS.map(lambda v: np.resize(np.asarray(v, dtype=object),
                                                                        (20, 2)))),
                         ("n_models", INTS), ("rng", INTS))],
    *[(M.lira_scores, {"target_confidences": [0.0, 1.0],
                       "shadow_confidences": [[0.5, 0.0], [0.0, 1.5], [-1.0, 2.0], [1.0, 2.5]],
                       "shadow_membership": [[1, 0], [0, 1], [1, 1], [0, 0]], "mode": mode,
                       "fix_variance": fix}, arg, strat, lira_ok)
      for mode in ("online", "offline") for fix in (True, False)
      for arg, strat in (("target_confidences", EXTREME_ARRAYS.map(lambda v: v[:2])),
                         ("shadow_confidences",
                          EXTREME_ARRAYS.map(lambda v: np.resize(np.asarray(v, dtype=object),
                                                                 (4, 2)))))],
    *[(f, {"experiment": experiment([0.0, 1.0, -2.0])}, arg, strat, lambda kw, r: is_roc(r))
      for f in (M.lira_attack, M.loss_attack)
      for arg, strat in (("experiment", EXTREME_ARRAYS.map(experiment)),
                         ("targets", st.lists(INTS, min_size=1, max_size=3)),
                         ("low_fprs", EXTREME_ARRAYS))],

    # ------------------------------------------------------------------ plots.attacks
    (P.plot_neighbour_differences, {"query": "sum", "db": DB}, "db", EXTREME_ARRAYS, figure),
    (P.plot_neighbour_differences, {"query": "mean", "db": DB}, "db", EXTREME_ARRAYS, figure),
    (P.plot_noisy_difference, {"epsilon": 1.0}, "epsilon", POS, figure),
    (P.plot_noisy_difference, {"epsilon": 1.0, "scenario": "two_queries"}, "epsilon", POS,
     figure),
    (P.plot_attack_success, {"epsilons": [0.1, 1.0]}, "epsilons", POS_ARRAYS.map(lambda v: v[:4]),
     figure),
    (P.plot_attack_success, {"epsilons": [0.1, 1.0]}, "highlight", POS, figure),
    (P.plot_averaging_attack, {"epsilon": 1.0, "k_max": 5}, "epsilon", POS, figure),
    (P.plot_averaging_attack, {"epsilon": 1.0, "k_max": 5}, "k_max", INTS, figure),
    (P.plot_averaging_attack, {"epsilon": 1.0, "k_max": 5}, "simulated",
     st.dictionaries(st.one_of(INTS, EXTREME_POSITIVE_FLOATS), PROBS, min_size=1, max_size=3),
     figure),
]
# each plot_x draws x_data: the data functions get the same rows (a FigureData whose browser
# chart is valid JSON)
DATA_FUNCTIONS = {P.plot_neighbour_differences: P.neighbour_differences_data,
                  P.plot_noisy_difference: P.noisy_difference_data,
                  P.plot_attack_success: P.attack_success_data,
                  P.plot_averaging_attack: P.averaging_attack_data}
CASES += [(DATA_FUNCTIONS[f], valid, arg, strat, figure_data)
          for f, valid, arg, strat, *_ in list(CASES) if f in DATA_FUNCTIONS]

# Parameters that are not numbers (choices, names, axes, estimators, labels, flags): not
# extreme-value targets. Booleans are checked by test_boolean_parameters_refuse_non_booleans.
NOT_NUMERIC = {"query", "scenario", "mode", "name", "ax", "estimator", "y", "is_member",
               "shadow_membership", "allow_dummies", "progress", "fix_variance", "symmetric"}
BOOLEANS = [(D.threshold_attack, {"db": DB, "target": 1, "threshold": 2}, "allow_dummies"),
            (R.dp_roc_bound, {"fpr": 0.5, "epsilon": 1.0}, "symmetric"),
            (M.lira_scores, {"target_confidences": [0.0], "shadow_confidences": [[0.0], [1.0]],
                             "shadow_membership": [[True], [False]]}, "fix_variance"),
            (M.lira_attack, {"experiment": experiment([0.0, 1.0])}, "fix_variance"),
            (M.run_shadow_experiment, {"estimator": DummyClassifier(), "X": np.zeros((20, 1)),
                                       "y": np.arange(20) % 2, "n_models": 2, "rng": 0},
             "progress")]
SLOW = {P.plot_neighbour_differences, P.plot_noisy_difference, P.plot_attack_success,
        P.plot_averaging_attack, M.run_shadow_experiment, *DATA_FUNCTIONS.values()}


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
    examples = 6 if func in SLOW else 25

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
    # the check is not vacuous: the valid call answers and passes it
    func, valid, _, _, check = case
    out = func(**valid)
    assert check is None or check(valid, out)


@pytest.mark.parametrize("func,valid,arg", BOOLEANS, ids=[_case_id(c) for c in BOOLEANS])
def test_boolean_parameters_refuse_non_booleans(func, valid, arg):
    func(**{**valid, arg: True})
    for bad in ("no", "False", 0, 1, None, 1.0, [True]):
        with pytest.raises(TypeError, match=arg):
            func(**{**valid, arg: bad})


@pytest.mark.parametrize("func,valid", [
    (R.roc_from_scores, {"scores": [0.0, 1.0], "is_member": [0, 1]}),
    (M.loss_threshold_attack, {"member_losses": [0.1], "nonmember_losses": [1.0]}),
    (M.lira_attack, {"experiment": experiment([0.0, 1.0])}),
    (M.loss_attack, {"experiment": experiment([0.0, 1.0])}),
    (P.plot_neighbour_differences, {"query": "sum", "db": DB})])
def test_names_are_strings(func, valid):
    res = func(**valid, name="my attack")
    assert getattr(res, "name", "my attack") == "my attack"
    for bad in (3, ["a"], b"x", 1.5):
        with pytest.raises(TypeError, match="name"):
            func(**valid, name=bad)


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
    assert len(functions) >= 25
    covered = {(f.__module__, f.__name__) for f, *_ in CASES}
    missing = sorted(f"{m}.{n}" for m, n in functions if (m, n) not in covered)
    assert not missing, "public functions without an extreme-value test: " + ", ".join(missing)
    params = {(f.__module__, f.__name__, arg) for f, _, arg, *_ in CASES}
    untested = sorted(f"{m}.{n}({p})" for (m, n), f in functions.items()
                      for p in inspect.signature(f).parameters
                      if p not in NOT_NUMERIC and (m, n, p) not in params)
    assert not untested, "numeric parameters without an extreme-value test: " + ", ".join(untested)
    for module in MODULES:                 # nothing listed under another module's name
        importlib.import_module(module.__name__)


# --------------------------------------------------------------- exact answers at the edges
def test_dp_bounds_at_the_ends_of_float64():
    for eps in (5e-324, 1e-300, 1e-16):
        assert D.dp_success_bound(eps) == 0.5
        assert R.dp_advantage_bound(eps) == pytest.approx(eps / 2, rel=1e-12)
        assert R.dp_auc_bound(eps) == pytest.approx(0.5, abs=1e-15)
    for eps in (700.0, 1e15, 1e300, 1.7976931348623157e308, 10**30):
        assert D.dp_success_bound(eps) == 1.0
        assert R.dp_advantage_bound(eps) == 1.0
        assert R.dp_auc_bound(eps) == pytest.approx(1.0, abs=1e-12)
        assert R.dp_roc_bound(0.0, eps) == 0.0 and R.dp_roc_bound(1e-3, eps) == 1.0
    # e^ε·FPR when e^ε overflows: 5e-324 · e^700 ≈ 5e-20, far from 1 (the old answer)
    assert R.dp_roc_bound(5e-324, 700.0, symmetric=False) == pytest.approx(
        math.exp(700.0 + math.log(5e-324)), rel=1e-9)
    f = np.array([0.0, 5e-324, 1e-310, 1e-300, 1e-200, 0.5, 1.0])
    for eps in (699.0, 700.0, 745.0, 1e4):
        b = R.dp_roc_bound(f, eps)
        assert np.all(np.diff(b) >= 0) and b[0] == 0.0 and b[-1] == 1.0


def test_python_ints_beyond_float_range_are_refused_by_name():
    for func, kwargs, arg in [(D.dp_success_bound, {}, "epsilon"),
                              (D.noisy_attack_success, {}, "epsilon"),
                              (D.laplace_sum_sf, {"m": 2}, "a"),
                              (R.dp_roc_bound, {"fpr": 0.5}, "epsilon"),
                              (P.plot_averaging_attack, {}, "epsilon")]:
        with pytest.raises(ParameterError, match=arg):
            func(**kwargs, **{arg: 10**400})
    with pytest.raises(ParameterError, match="x"):
        D.query_sum([10**400, 1])


def test_error_messages_never_fail_to_format():
    # formatting the message used to index a 0-d array (IndexError) for is_member=None
    with pytest.raises(TypeError, match="is_member"):
        R.roc_from_scores([0.1, 0.9, 0.5], None)
    with pytest.raises(TypeError, match="shadow_membership"):
        M.lira_scores([0.0], [[0.0], [1.0]], [["a"], [""]])
    with pytest.raises(ParameterError, match="shadow_membership"):
        M.lira_scores([0.0], [[0.0], [1.0]], [[2], [0]])         # was read as True


def test_overflowing_sums_are_handled():
    big = 1.7976931348623157e308
    assert D.query_mean([big, big, big]) == big                  # the mean of finite values
    with pytest.raises(ParameterError, match="x"):
        D.query_sum([big, big])
    res = R.roc_from_scores([1.0, 2.0, 3.0, 4.0], [1, 0, 1, 0], sample_weight=[big] * 4)
    ref = R.roc_from_scores([1.0, 2.0, 3.0, 4.0], [1, 0, 1, 0])
    np.testing.assert_array_equal(res.tpr, ref.tpr)
    assert res.auc == ref.auc
    # weights scaled by a power of two per class: identical results for ordinary weights
    w = np.array([0.3, 1.7, 2.9, 0.01])
    a = R.roc_from_scores([1.0, 2.0, 3.0, 4.0], [1, 0, 1, 0], sample_weight=w)
    b = R.roc_from_scores([1.0, 2.0, 3.0, 4.0], [1, 0, 1, 0], sample_weight=w * 2.0**-600)
    np.testing.assert_array_equal(a.tpr, b.tpr)
    np.testing.assert_array_equal(a.fpr, b.fpr)


def test_sizes_have_upper_bounds():
    with pytest.raises(ParameterError, match="db"):
        D.reconstruct_by_differencing(np.zeros(D.MAX_ROWS + 1))
    with pytest.raises(ParameterError, match="threshold"):
        D.threshold_attack([0, 1, 1], 0, 10**7)
    with pytest.raises(ParameterError, match="n_models"):
        M.membership_matrix(10**4, 10**4)
    with pytest.raises(ParameterError, match="targets"):
        M.loss_attack(experiment([0.0, 1.0]), targets=[0, 0, 0])
    with pytest.raises(ParameterError, match="epsilons"):
        P.plot_attack_success(epsilons=np.linspace(0.1, 1, 1001))
    with pytest.raises(ParameterError, match="db"):
        P.plot_neighbour_differences("sum", np.zeros(1001))
    with pytest.raises(ParameterError, match="low_fprs"):
        R.roc_from_scores([0.0, 1.0], [0, 1], low_fprs=np.full(101, 0.1))
