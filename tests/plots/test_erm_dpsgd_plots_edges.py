"""Legal-but-extreme inputs for the figures of the learning chapter, ``dpteach.plots.erm`` and
``dpteach.plots.dpsgd`` (moved here from ``tests/learning/``: every module of
``dpteach.learning`` now declares its teaching domains, and ``tests/test_domains.py``
generates its edge and bad-value tests; these two figure modules are still written out).

For each numeric parameter the table ``CASES`` draws values from the strategies of
``tests/_props.py`` (subnormal, tiny and huge floats, huge integers; array arguments are
rescaled so that their largest entry is such a float) and calls the function with a
time bound (``_props.assert_extreme_ok``): it must answer without NaN, and where the
answer is known the ``check`` asserts it, or refuse with ``ParameterError``/``TypeError``.
``test_every_public_callable_is_in_the_table`` walks the modules and fails when a public
function, class or method taking arguments is missing from ``CASES``.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import math
import os
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest
from _props import (
    EXTREME_POSITIVE_FLOATS,
    HUGE_FLOATS,
    HUGE_INTS,
    SUBNORMALS,
    TINY_FLOATS,
    assert_extreme_ok,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpteach import datasets
from dpteach.learning import dpsgd, erm, erm_experiments, logistic, network
from dpteach.plots import dpsgd as pdp
from dpteach.plots import erm as perm

_FACTOR = int(os.environ.get("DPTEACH_EDGE_FACTOR", "1"))

# ----------------------------------------------------------------------- strategies
POS = EXTREME_POSITIVE_FLOATS                                  # any float in (0, max]
UNIT = st.one_of(TINY_FLOATS, HUGE_FLOATS, st.sampled_from([1.0 - 1e-16, 0.5]))  # for [0, 1]
INTS = st.one_of(HUGE_INTS, st.sampled_from([1, 2, 10**6]))
SCALES = st.one_of(SUBNORMALS, TINY_FLOATS, HUGE_FLOATS)        # largest |entry| of an array


def _scaled(a, factor):
    """``a`` rescaled so that its largest entry has magnitude ``factor``."""
    a = np.asarray(a, dtype=float)
    m = np.max(np.abs(a))
    return a / m * factor if m > 0 else a


def scaled(a):
    """Strategy: ``a`` with its largest |entry| replaced by an extreme float."""
    return SCALES.map(lambda f: _scaled(a, f))


# ---------------------------------------------------------------------------- data
@functools.cache
def _toy():
    X, y = datasets.make_toy_data(20, rng=0)
    return X, y


@functools.cache
def _bounded():
    X, y = _toy()
    Z = logistic.bound_rows(X, 3.0, True)
    s = np.where(y == 1, 1.0, -1.0)
    return Z, s


@functools.cache
def _w_star():
    Z, s = _bounded()
    return logistic.fit_logistic_erm(Z, s, 0.1)


@functools.cache
def _three():
    rng = np.random.default_rng(1)
    return rng.standard_normal((12, 2)), rng.integers(0, 3, size=12)


def _mlp():
    return network.Network((2, 4, 3), l2=0.01, rng=0)


def _trace():
    X, y = _three()
    return _mlp().trace(X, y)


def _tanh_net():
    return network.Network((2, 4, 3), activation="tanh", rng=0)


def _forward(X):
    return _tanh_net().forward(X)


def _backward(grad_out):
    net = _tanh_net()
    return net.backward(net.forward(_three()[0])[1], grad_out)


def forward_ok(out, kw):
    # tanh network with zero biases: f(0) = 0 and f is odd, so tiny X give tiny outputs
    return np.all(np.isfinite(out[0])) and (np.max(np.abs(kw["X"])) > 1e-30
                                            or np.max(np.abs(out[0])) < 1e-25)


def backward_ok(out, kw):
    grads, grad_X = out
    return all(np.all(np.isfinite(g)) for g in grads) and np.all(np.isfinite(grad_X))


@functools.cache
def _dpsgd_clf():
    X, y = _toy()
    return dpsgd.DPSGDClassifier(noise_multiplier=1.0, batch_size=10, epochs=1, hidden=(4,),
                                 rng=0).fit(X, y)


@functools.cache
def _plr():
    X, y = _toy()
    return erm.PrivateLogisticRegression(epsilon=1.0, lam=0.1, data_norm=3.0, rng=0).fit(X, y)


@functools.cache
def _curve():
    X, y = _toy()
    return erm_experiments.accuracy_vs_epsilon(X, y, X, y, [0.5, 2.0], 0.1, data_norm=3.0,
                                               n_trials=2, rng=0)


@functools.cache
def _attack():
    from dpteach.attacks.roc import roc_from_scores
    rng = np.random.default_rng(0)
    lab = rng.random(40) < 0.5
    return roc_from_scores(rng.standard_normal(40) + lab, lab, name="toy")


# ---------------------------------------------------------------------- the checks
def finite_positive(out, kw):
    return isinstance(out, float) and 0 < out < math.inf


def nonnegative(out, kw):
    return np.all(np.asarray(out) >= 0)


def beta_is_formula(out, kw):
    return isinstance(out, float) and out == kw["n"] * kw["lam"] * kw["epsilon"] / 2.0


def lam_is_formula(out, kw):
    return finite_positive(out, kw) and out == 1.0 / (kw["n"] * kw["C"])


def C_is_formula(out, kw):
    return finite_positive(out, kw) and out == 1.0 / (kw["n"] * kw["lam"])


def constants_add_up(k, kw):
    # Theorem 9's split: ε' + log-Jacobian = ε, β = ε'/2, Δ ≥ 0 (round-off aside)
    return (all(isinstance(v, float) and math.isfinite(v) for v in dataclasses.astuple(k))
            and math.isclose(k.epsilon_prime + k.log_jacobian, k.epsilon, rel_tol=1e-6)
            and k.beta == k.epsilon_prime / 2 and k.Delta >= -1e-9 * kw["lam"]
            and k.epsilon_prime > 0)


def rows_in_ball(Z, kw):
    return np.all(np.isfinite(Z)) and np.all(np.linalg.norm(Z, axis=1) <= 1 + 1e-9)


def probabilities(P, kw):
    P = np.asarray(P)
    return np.all((P >= 0) & (P <= 1)) and np.allclose(P.sum(axis=1), 1.0)


def factors(c, kw):
    return np.all((c >= 0) & (c <= 1))


def finite_array(out, kw):
    return np.all(np.isfinite(out))


def finite_weights(out, kw):
    return np.all(np.isfinite(out)) and np.linalg.norm(out) <= logistic.MAX_WEIGHT_NORM


def fitted_finite(est, kw):
    return np.all(np.isfinite(est.coef_)) and np.all(np.isfinite(est.intercept_))


def private_fit_finite(fit, kw):
    return np.all(np.isfinite(fit.w)) and np.all(np.isfinite(fit.noise))


def accuracies(curve, kw):
    return all(np.all((a >= 0) & (a <= 1)) for a in curve.accuracy.values())


def sensitivity_holds(res, kw):
    ok = np.all(res.distances >= 0)
    if 1e-6 <= res.lam <= 1e6:                               # exact minimisers: Corollary 8
        ok = ok and np.all(res.distances <= res.bound * (1 + 1e-6))
    return ok


def dpsgd_fitted(clf, kw):
    return (all(np.all(np.isfinite(p)) for p in clf.model_.params)
            and clf.epsilon_ >= 0 and not any(math.isnan(v) for v in clf.history_["loss"]))


def figure(out, kw):
    from matplotlib.figure import Figure
    return isinstance(out, Figure)


def figure_data(out, kw):
    from dpteach.plots.figure import FigureData, to_vega_lite
    json.dumps(to_vega_lite(out), allow_nan=False)    # the browser's chart: plain JSON
    return isinstance(out, FigureData)


def grid(out, kw):
    x0, x1, p = out
    return np.all((p >= 0) & (p <= 1))


# --------------------------------------------------------------------------- cases
@dataclass
class Case:
    """``func(**base(), arg=value)`` for each ``arg`` and values drawn from ``args[arg]``."""

    name: str                      # qualified name, for the coverage test
    func: Callable
    base: Callable[[], dict]
    args: dict
    check: Callable | None = None
    examples: int = 6
    # argument names of ``func`` that the table deliberately does not vary (not numeric)
    fixed: tuple = field(default_factory=tuple)


def kw(**kwargs):
    """A base-kwargs factory whose values may be zero-argument callables (built per call)."""
    return lambda: {k: (v() if callable(v) and not isinstance(v, type) else v)
                    for k, v in kwargs.items()}


def Z():
    return _bounded()[0]


def S():
    return _bounded()[1]


def X2():
    return _toy()[0]


def Y2():
    return _toy()[1]


def X3():
    return _three()[0]


def Y3():
    return _three()[1]


L, E, EX, NN, DP = ("dpteach.learning.logistic", "dpteach.learning.erm",
                    "dpteach.learning.erm_experiments", "dpteach.learning.network",
                    "dpteach.learning.dpsgd")
PE, PD = "dpteach.plots.erm", "dpteach.plots.dpsgd"
EB = "dpteach.learning.erm_bounds"


def _problem_method(method):
    def call(**kwargs):
        return getattr(logistic.LogisticProblem(Z(), S()), method)(**kwargs)
    return call


def _plr_fit(**kwargs):
    X = kwargs.pop("X", X2())
    return erm.PrivateLogisticRegression(**kwargs).fit(X, Y2())


def _plr_method(method):
    def call(X):
        return getattr(_plr(), method)(X)
    return call


def _mlp_method(method, **fixed):
    def call(**kwargs):
        return getattr(_mlp(), method)(**{**fixed, **kwargs})
    return call


def _dpsgd_fit(**kwargs):
    X = kwargs.pop("X", X2())
    params = dict(noise_multiplier=1.0, batch_size=10, epochs=1, hidden=(4,), rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dpsgd.DPSGDClassifier(**{**params, **kwargs}).fit(X, Y2())


def _dpsgd_method(method):
    def call(X):
        return getattr(_dpsgd_clf(), method)(X)
    return call


def _grads(factor):
    return [_scaled(g, factor) for g in _mlp().gradient(X3(), Y3())]


CASES = [
    # --------------------------------------------------------------- plots.erm
    Case(f"{PE}.plot_decision_boundaries", perm.plot_decision_boundaries,
         kw(X=X2, y=Y2, nonprivate=lambda: ([1.0, 0.5], 0.1), private=()),
         {"X": scaled(_toy()[0]),
          "nonprivate": SCALES.map(lambda f: (_scaled([1.0, 0.5], f), 0.1))},
         check=figure, examples=3),
    Case(f"{PE}.decision_boundaries_data", perm.decision_boundaries_data,
         kw(X=X2, y=Y2, nonprivate=lambda: ([1.0, 0.5], 0.1), private=()),
         {"X": scaled(_toy()[0]),
          "nonprivate": SCALES.map(lambda f: (_scaled([1.0, 0.5], f), 0.1))},
         check=figure_data, examples=3),
    Case(f"{PE}.plot_toy_boundaries",
         lambda epsilon: perm.plot_toy_boundaries(erm_experiments.toy_fits(
             epsilon=epsilon, lam=0.1, n_fits=1, n=20)),
         kw(epsilon=1.0), {"epsilon": POS}, check=figure, examples=3),
    Case(f"{PE}.plot_accuracy_curve", perm.plot_accuracy_curve, kw(curve=_curve),
         {"baseline": UNIT}, check=figure, examples=3),
    Case(f"{PE}.toy_boundaries_data",
         lambda epsilon: perm.toy_boundaries_data(erm_experiments.toy_fits(
             epsilon=epsilon, lam=0.1, n_fits=1, n=20)),
         kw(epsilon=1.0), {"epsilon": POS}, check=figure_data, examples=3),
    Case(f"{PE}.accuracy_curve_data", perm.accuracy_curve_data, kw(curve=_curve),
         {"baseline": UNIT}, check=figure_data, examples=3, fixed=("nonprivate",)),
    Case(f"{PE}.plot_sensitivity",
         lambda lam: perm.plot_sensitivity(erm_experiments.minimizer_sensitivity(
             X2(), Y2(), lam, n_random=2, n_adversarial=1, data_norm=3.0, rng=0)),
         kw(lam=0.1), {"lam": POS}, check=figure, examples=3),
    Case(f"{PE}.sensitivity_data",
         lambda lam: perm.sensitivity_data(erm_experiments.minimizer_sensitivity(
             X2(), Y2(), lam, n_random=2, n_adversarial=1, data_norm=3.0, rng=0)),
         kw(lam=0.1), {"lam": POS}, check=figure_data, examples=3),
    Case(f"{PE}.plot_excess_risk", perm.plot_excess_risk,
         kw(epsilons=lambda: np.array([0.5, 1.0]), measured=lambda: {"output": np.ones((2, 2))},
            bounds=lambda: {"output": np.array([2.0, 2.0])}),
         {"epsilons": scaled(np.array([0.5, 1.0])),
          "measured": SCALES.map(lambda f: {"output": np.full((2, 2), f)})},
         check=figure, examples=3),
    Case(f"{PE}.excess_risk_data", perm.excess_risk_data,
         kw(epsilons=lambda: np.array([0.5, 1.0]), measured=lambda: {"output": np.ones((2, 2))},
            bounds=lambda: {"output": np.array([2.0, 2.0])}),
         {"epsilons": scaled(np.array([0.5, 1.0])),
          "measured": SCALES.map(lambda f: {"output": np.full((2, 2), f)})},
         check=figure_data, examples=3),
    *[Case(f"{PE}.{name}", getattr(perm, name),
           kw(norms=lambda: np.array([1.0, 2.0, 3.0]), d=3, beta=1.0, bins=5),
           {"norms": scaled(np.array([1.0, 2.0, 3.0])), "d": INTS, "beta": POS, "bins": INTS},
           check=check, examples=3)
      for name, check in (("noise_norm_data", figure_data), ("plot_noise_norm", figure))],
    *[Case(f"{PE}.{name}", getattr(perm, name),
           kw(lams=lambda: np.array([1e-4, 1e-3]), accuracy=lambda: {"objective": [0.8, 0.7]},
              epsilon=1.0, baseline=0.5),
           {"lams": scaled(np.array([1e-4, 1e-3])), "epsilon": POS, "baseline": UNIT,
            "accuracy": UNIT.map(lambda a: {"output": [a, a]})},
           check=check, examples=3)
      for name, check in (("lambda_scan_data", figure_data), ("plot_lambda_scan", figure))],

    # ------------------------------------------------------------- plots.dpsgd
    Case(f"{PD}.plot_mia_roc", pdp.plot_mia_roc, kw(results=_attack, epsilon=1.0),
         {"epsilon": POS, "delta": UNIT, "min_fpr": UNIT}, check=figure, examples=3),
    Case(f"{PD}.mia_roc_data", pdp.mia_roc_data, kw(results=_attack, epsilon=1.0),
         {"epsilon": POS, "delta": UNIT, "min_fpr": UNIT}, check=figure_data, examples=3),
    Case(f"{PD}.privacy_utility_data", pdp.privacy_utility_data,
         kw(epsilons=lambda: np.array([0.5, 2.0]), accuracies=lambda: np.array([0.6, 0.8])),
         {"epsilons": scaled(np.array([0.5, 2.0])), "baseline": UNIT}, check=figure_data,
         examples=3),
    Case(f"{PD}.plot_privacy_utility", pdp.plot_privacy_utility,
         kw(epsilons=lambda: np.array([0.5, 2.0]), accuracies=lambda: np.array([0.6, 0.8])),
         {"epsilons": scaled(np.array([0.5, 2.0])), "baseline": UNIT}, check=figure,
         examples=3),
    Case(f"{PD}.plot_grad_norm_histogram", pdp.plot_grad_norm_histogram,
         kw(norms=lambda: np.array([0.1, 0.5, 2.0]), max_grad_norm=1.0),
         {"norms": scaled(np.array([0.1, 0.5, 2.0])), "max_grad_norm": POS, "bins": INTS},
         check=figure, examples=3),
    Case(f"{PD}.grad_norm_histogram_data", pdp.grad_norm_histogram_data,
         kw(norms=lambda: np.array([0.1, 0.5, 2.0]), max_grad_norm=1.0),
         {"norms": scaled(np.array([0.1, 0.5, 2.0])), "max_grad_norm": POS, "bins": INTS},
         check=figure_data, examples=3),
    Case(f"{PD}.training_history_data", pdp.training_history_data,
         kw(histories=lambda: {"a": _dpsgd_clf().history_}, delta=1e-5),
         {"histories": SCALES.map(lambda f: {"a": {"epoch": [1, 2], "accuracy": [0.5, 0.9],
                                                   "epsilon": [f / 2, f]}}),
          "delta": UNIT},
         check=lambda out, k: figure_data(out, k) and len(out.panels) == 2, examples=3),
    Case(f"{PD}.probability_grid_data", pdp.probability_grid_data,
         kw(x0=lambda: np.linspace(-1.0, 1.0, 10), x1=lambda: np.linspace(-1.0, 1.0, 10),
            p=lambda: np.full((10, 10), 0.5), X=X2, y=Y2),
         {"x0": scaled(np.linspace(-1.0, 1.0, 10)), "x1": scaled(np.linspace(-1.0, 1.0, 10)),
          "p": UNIT.map(lambda v: np.full((10, 10), v)), "X": scaled(_toy()[0])},
         check=figure_data, examples=3),
    Case(f"{PD}.plot_training_history", pdp.plot_training_history,
         kw(histories=lambda: {"a": _dpsgd_clf().history_}),
         {"histories": SCALES.map(lambda f: {"a": {"epoch": [1, 2], "accuracy": [0.5, 0.9],
                                                   "epsilon": [f / 2, f]}})},
         check=figure, examples=3),
    Case(f"{PD}.decision_grid", pdp.decision_grid, kw(clf=_plr, X=X2, grid_size=10),
         {"X": scaled(_toy()[0]), "grid_size": INTS, "pad": POS}, check=grid, examples=5),
    Case(f"{PD}.plot_probability_grid", pdp.plot_probability_grid,
         kw(x0=lambda: np.linspace(-1.0, 1.0, 10), x1=lambda: np.linspace(-1.0, 1.0, 10),
            p=lambda: np.full((10, 10), 0.5), X=X2, y=Y2),
         {"x0": scaled(np.linspace(-1.0, 1.0, 10)), "x1": scaled(np.linspace(-1.0, 1.0, 10)),
          "p": UNIT.map(lambda v: np.full((10, 10), v)), "X": scaled(_toy()[0])},
         check=figure, examples=3),
    Case(f"{PD}.plot_decision_boundary", pdp.plot_decision_boundary,
         kw(clf=_plr, X=X2, y=Y2, grid_size=10),
         {"X": scaled(_toy()[0]), "grid_size": INTS}, check=figure, examples=3),
    Case(f"{PD}.decision_boundary_data", pdp.decision_boundary_data,
         kw(clf=_plr, X=X2, y=Y2, grid_size=10),
         {"X": scaled(_toy()[0]), "grid_size": INTS}, check=figure_data, examples=3),
]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt
    plt.close("all")


@pytest.mark.parametrize("case", CASES, ids=[c.name.rsplit(".", 2 if c.name.count(".") > 2
                                                            else 1)[-1] for c in CASES])
def test_extreme_values(case):
    # DPTEACH_EDGE_FACTOR=20 multiplies the examples for a deeper (slower) search
    for arg, strategy in case.args.items():
        _run_arg(case, arg, strategy)


def _run_arg(case: Case, arg: str, strategy) -> None:
    @settings(max_examples=case.examples * _FACTOR, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(value=strategy)
    def run(value):
        kwargs = {**case.base(), arg: value}
        check = None if case.check is None else (lambda out: case.check(out, kwargs))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")         # ConvergenceWarning, overflow in plots, ...
            assert_extreme_ok(case.func, kwargs, arg, check=check)

    run()


# -------------------------------------------------- the edge classes of the review
# ------------------------------------------------------------------------ coverage
MODULES = {
    "dpteach.plots.erm": perm, "dpteach.plots.dpsgd": pdp,
}


def _takes_arguments(func) -> bool:
    params = [p for p in inspect.signature(func).parameters if p not in ("self", "cls")]
    return bool(params)


def _public_callables():
    """Qualified names of the public functions, classes and methods taking arguments."""
    names = set()
    targets = [(name, mod, None) for name, mod in MODULES.items()]
    for modname, module, only in targets:
        for attr, obj in vars(module).items():
            if attr.startswith("_") or (only is not None and attr not in only):
                continue
            if getattr(obj, "__module__", None) != modname:
                continue                                      # imported from elsewhere
            if inspect.isfunction(obj) and _takes_arguments(obj):
                names.add(f"{modname}.{attr}")
            elif inspect.isclass(obj) and not dataclasses.is_dataclass(obj) \
                    and not issubclass(obj, Exception):
                names.add(f"{modname}.{attr}")               # the constructor (and fit)
                for meth, fn in vars(obj).items():
                    fn = fn.__func__ if isinstance(fn, (staticmethod, classmethod)) else fn
                    if meth.startswith("_") or not inspect.isfunction(fn) or meth == "fit":
                        continue
                    if _takes_arguments(fn):
                        names.add(f"{modname}.{attr}.{meth}")
    return names


def test_every_public_callable_is_in_the_table():
    found = _public_callables()
    assert len(found) > 20          # the walk found the two figure modules
    listed = {c.name for c in CASES}
    missing = sorted(found - listed)
    assert not missing, "public callables without an extreme-value case: " + ", ".join(missing)
    stale = sorted(listed - found)
    assert not stale, "CASES names callables that do not exist: " + ", ".join(stale)


def test_every_numeric_parameter_is_varied():
    # every parameter of a listed function is either varied or declared fixed (non-numeric)
    non_numeric = {"method", "methods", "rng", "ax", "title", "label", "show_spread", "log",
                   "progress", "fit_intercept", "activation", "dtype", "accountant", "progress",
                   "results", "curve", "result", "fits", "clf", "y", "y_train", "y_test",
                   "s", "X_train", "private", "bounds", "accuracies", "histories", "trace",
                   "model", "y_batch", "check_input", "use_sparse"}
    for case in CASES:
        func = case.func
        if getattr(func, "__name__", "") in ("call", "<lambda>") or func in (_plr_fit,
                                                                           _dpsgd_fit):
            continue                                          # wrappers: checked by hand above
        params = set(inspect.signature(func).parameters)
        left = params - set(case.args) - set(case.fixed) - non_numeric
        assert not left, (case.name, sorted(left))
