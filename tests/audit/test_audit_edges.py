"""Legal-but-extreme inputs for every public function of the auditing modules and their figures.

Modules: ``audit_bounds``, ``audit_runs``, ``audit_one_run``, ``audit_bugs``, ``audit_cases``
and ``plots.audit`` (the sparse vector's ``svt_pattern_frequency`` included). Every
numeric parameter of every public function (and method) gets the strategies of
``tests/_props.py``: subnormals, huge floats, integers beyond the float range, probabilities
within an ulp of 0 or 1, outputs at the ends of the double range. Each call must, within a
few seconds, answer without NaN or refuse with ``ParameterError``/``TypeError``
(``_props.run_edge_case``), and where the answer is known it is checked: bounds are ≥ 0 and
finite, Clopper–Pearson bounds bracket count/n, p-values lie in [0, 1], guesses are −1/0/+1
with the numbers asked for, figures have finite axes.

``test_every_public_parameter_is_in_the_table`` walks ``MODULES`` and fails when a public
function (or method) or one of its parameters is missing from ``CASES`` or from the explicit
list of non-numeric parameters.
"""

from __future__ import annotations

import inspect
import math
from functools import cache

import numpy as np
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

from dpteach.audit import (
    bounds as audit_bounds,
    bugs as audit_bugs,
    cases as audit_cases,
    one_run as audit_one_run,
    runs as audit_runs,
)
from dpteach.datasets import make_toy_data
from dpteach.learning.dpsgd import DPSGDClassifier
from dpteach.mechanisms.noise import laplace_mechanism
from dpteach.plots import audit as plots_audit
from dpteach.plots.figure import FigureData

MODULES = [audit_bounds, audit_runs, audit_one_run, audit_bugs, audit_cases, plots_audit]
B, R, O, BUG, C, P = audit_bounds, audit_runs, audit_one_run, audit_bugs, audit_cases, plots_audit
FMAX = 1.7976931348623157e308

# ------------------------------------------------------------------ strategies
POS = st.one_of(EXTREME_POSITIVE_FLOATS, HUGE_INTS)
NONNEG = st.one_of(POS, st.just(0.0))
UNIT = st.one_of(TINY_FLOATS, st.sampled_from([1 - 2**-53, 0.5, 1 - 1e-12]),
                 st.floats(min_value=5e-324, max_value=1 - 2**-53))          # (0, 1)
DELTA = st.one_of(UNIT, st.just(0.0))                                         # [0, 1)
PROB = st.one_of(UNIT, st.sampled_from([0.0, 1.0]))                           # [0, 1]
REAL = st.one_of(EXTREME_POSITIVE_FLOATS, EXTREME_POSITIVE_FLOATS.map(lambda x: -x),
                 st.just(0.0))


def ints(*legal):
    """Integers beyond any limit, plus the given legal (boundary) values."""
    return st.one_of(HUGE_INTS, st.sampled_from(list(legal))) if legal else HUGE_INTS


def wave(scale: float, n: int = 200) -> np.ndarray:
    """n finite outputs spread over [−scale, scale] (sin keeps them finite for any scale)."""
    return scale * np.sin(np.arange(n) * 0.7)


OUTPUTS = st.one_of(REAL.map(wave), st.sampled_from([
    np.full(200, FMAX), np.concatenate([np.full(100, -FMAX), np.full(100, FMAX)]),
    np.full(200, 5e-324), np.zeros(200), np.arange(200) % 2 * 1e308]))
SCORES = st.one_of(REAL.map(lambda s: wave(s, 50)), st.sampled_from([np.zeros(50)]))
PROB_ARRAYS = st.sampled_from([[0.0, 1.0], [5e-324, 1 - 2**-53], [1.0, 1.0], [0.5, 5e-324]])


# ------------------------------------------------------------------------ checks
def nonneg_float(r, kw=None):
    return type(r) is float and 0.0 <= r < math.inf


def nonneg(r, kw=None):
    return np.all(np.asarray(r) >= 0)


def cp_ok(r, kw):
    lo, hi = r
    return type(lo) is float and 0.0 <= lo <= kw["count"] / kw["n"] <= hi <= 1.0


def unit(r, kw=None):
    return type(r) is float and 0.0 <= r <= 1.0


def audit_ok(r, kw=None):
    return isinstance(r, R.AuditResult) and 0.0 <= r.epsilon_lower_bound < math.inf \
        and 0.0 <= r.p_lo <= 1.0 and 0.0 < r.p_prime_hi <= 1.0


def bounds_ok(r, kw):
    return r.shape == (len(kw["trials"]),) and np.all((r >= 0) & np.isfinite(r))


def guesses_ok(r, kw):
    return (np.sum(r > 0) == kw["k_plus"] and np.sum(r < 0) == kw["k_minus"]
            and set(np.unique(r)) <= {-1, 0, 1})


def one_run_ok(r, kw=None):
    return isinstance(r, O.OneRunAudit) and 0.0 <= r.epsilon_lower_bound <= O.EPSILON_SEARCH_MAX \
        and 0 <= r.v <= r.r <= r.m


def canaries_ok(r, kw):
    X_train, y_train, can, labels, inc = r
    m = kw["n_canaries"]
    return can.shape[0] == m and X_train.shape[0] == 20 + inc.sum() and labels.shape == (m,)


def figure_ok(r, kw=None):
    if not isinstance(r, FigureData):
        return False
    for s in r.series:
        if np.any(np.isnan(s.x)) or np.any(np.isnan(s.y)):
            return False
    return all(math.isfinite(rule.value) for rule in r.rules)


def no_check(r, kw=None):
    return True


# ------------------------------------------------------------------ fixed inputs
def _laplace(value, size, rng):
    return laplace_mechanism(np.full(size, float(value)), 1.0, 1.0, rng=rng)


@cache
def toy():
    return make_toy_data(20, rng=0)


@cache
def small_result():
    return R.audit_samples(wave(1.0), wave(1.0) + 0.5, claimed_epsilon=0.5)


@cache
def small_one_run():
    rng = np.random.default_rng(0)
    inc = rng.random(50) < 0.5
    return O.one_run_audit(inc + rng.normal(0, 1, 50), inc, k_plus=5, k_minus=5)


@cache
def fitted_toy_classifier():
    X, y = toy()
    Xt, yt, can, labels, inc = O.add_canaries(X, y, 4, scale=2.0, rng=0)
    return DPSGDClassifier(noise_multiplier=1.0, batch_size=5, epochs=1, hidden=(),
                           rng=0).fit(Xt, yt), can, labels


def _canary_scores_of(canaries_scale):
    """canary_scores on the toy classifier's canaries multiplied by ``canaries_scale``."""
    clf, can, labels = fitted_toy_classifier()
    return O.canary_scores(clf, can * canaries_scale, labels)


def _histograms_of(output_scale, bins=40):
    """audit_histograms_data of an audit of outputs spread over ±output_scale."""
    res = R.audit_samples(wave(output_scale), -wave(output_scale) + 0.0, claimed_epsilon=0.1)
    return P.audit_histograms_data(res, bins)


def _canary_figure_of(score_scale, bins=40, claimed_epsilon=None):
    rng = np.random.default_rng(1)
    inc = rng.random(50) < 0.5
    a = O.one_run_audit(wave(score_scale, 50), inc, k_plus=5, k_minus=5)
    return P.canary_scores_data(a, bins, claimed_epsilon)


def _fit_bug(noise_multiplier=1.0, max_grad_norm=1.0, X=None, y=None):
    """DPSGDClassifierWithoutClipping(σ, C) fitted on (X, y) (the toy data by default)."""
    X0, y0 = toy()
    clf = BUG.DPSGDClassifierWithoutClipping(noise_multiplier=noise_multiplier,
                                             max_grad_norm=max_grad_norm, batch_size=5,
                                             epochs=1, hidden=(), rng=0)
    return clf.fit(X0 if X is None else X, y0 if y is None else y)


# --------------------------------------------------------------------- the table
CASES = [
    # audit_bounds
    EdgeCase("check_confidence", B.check_confidence, lazy_kwargs(name="confidence",
                                                                 confidence=0.9),
             {"confidence": UNIT}, lambda r, kw: type(r) is float and 0 < r < 1),
    EdgeCase("clopper_pearson_bounds", B.clopper_pearson_bounds, lazy_kwargs(count=5, n=10),
             {"count": ints(0, 5, 10), "n": ints(10, 10**12), "confidence": UNIT}, cp_ok),
    EdgeCase("epsilon_from_probabilities", B.epsilon_from_probabilities,
             lazy_kwargs(p=0.5, p_prime=0.2),
             {"p": PROB, "p_prime": PROB, "delta": DELTA},
             lambda r, kw: type(r) is float and r >= 0),
    EdgeCase("mu_from_probabilities", B.mu_from_probabilities, lazy_kwargs(p=0.5, p_prime=0.2),
             {"p": PROB, "p_prime": PROB}, lambda r, kw: type(r) is float and r >= 0),
    EdgeCase("epsilon_lower_bound", B.epsilon_lower_bound,
             lazy_kwargs(count=5, n=10, count_prime=1, n_prime=10),
             {"count": ints(0, 10), "n": ints(10, 10**12), "count_prime": ints(0, 10),
              "n_prime": ints(10, 10**12), "delta": DELTA, "confidence": UNIT}, nonneg_float),
    EdgeCase("gdp_mu_lower_bound", B.gdp_mu_lower_bound,
             lazy_kwargs(count=5, n=10, count_prime=1, n_prime=10),
             {"count": ints(0, 10), "n": ints(10, 10**12), "count_prime": ints(0, 10),
              "n_prime": ints(10, 10**12), "confidence": UNIT}, nonneg_float),
    EdgeCase("gdp_epsilon", B.gdp_epsilon, lazy_kwargs(mu=1.0, delta=1e-5),
             {"mu": NONNEG, "delta": UNIT}, lambda r, kw: type(r) is float and r >= 0),
    EdgeCase("max_certifiable_epsilon", B.max_certifiable_epsilon, lazy_kwargs(n_eval=100),
             {"n_eval": ints(1, 10**12), "delta": DELTA, "confidence": UNIT}, nonneg_float),
    EdgeCase("audit_trials_needed", B.audit_trials_needed, lazy_kwargs(claimed_epsilon=1.0),
             {"claimed_epsilon": NONNEG, "delta": DELTA, "confidence": UNIT},
             lambda r, kw: type(r) is int and r >= 3),
    # audit_runs
    EdgeCase("audit_samples", R.audit_samples,
             lazy_kwargs(outputs=wave(1.0), outputs_prime=wave(1.0) + 1, claimed_epsilon=0.5),
             {"outputs": OUTPUTS, "outputs_prime": OUTPUTS, "claimed_epsilon": NONNEG,
              "delta": DELTA, "confidence": UNIT, "bins": ints(2, 1000)}, audit_ok,
             fixed=("test", "bound")),
    EdgeCase("audit_samples", R.audit_samples,
             lazy_kwargs(outputs=wave(1.0), outputs_prime=wave(1.0) + 1, claimed_epsilon=0.5,
                         test="histogram", delta=1e-5, bound="gdp"),
             {"outputs": OUTPUTS, "outputs_prime": OUTPUTS, "delta": UNIT,
              "bins": ints(2, 1000)}, audit_ok),
    EdgeCase("audit_mechanism", R.audit_mechanism,
             lazy_kwargs(mechanism=lambda: _laplace, d=0.0, d_prime=1.0, claimed_epsilon=0.5,
                         n_trials=100, rng=0),
             {"claimed_epsilon": NONNEG, "delta": DELTA, "n_trials": ints(2, 100, 1000),
              "confidence": UNIT, "bins": ints(2, 1000)}, audit_ok),
    *[EdgeCase("svt_pattern_frequency", R.svt_pattern_frequency,
               lazy_kwargs(values=[1.0, 2.0], answers=[False, True], threshold=1.5, epsilon=1.0,
                           n_trials=5, variant=variant, rng=0),
               {"values": REAL.map(lambda s: [s, 2.0]), "threshold": REAL, "epsilon": POS,
                "sensitivity": POS, "n_trials": ints(1, 50),
                **({"max_above": ints(1, 10**6)} if variant == "sparse" else {})},
               lambda r, kw: type(r) is int and 0 <= r <= kw["n_trials"])
      for variant in ("sparse", "no_query_noise")],
    EdgeCase("audit_convergence", R.audit_convergence,
             lazy_kwargs(mechanism=lambda: _laplace, d=0.0, d_prime=1.0, trials=[10, 100],
                         claimed_epsilon=0.5, rng=0),
             {"trials": st.sampled_from([[2], [3, 50], [10**8], [2**70], [10**400],
                                         [2] * 100]),
              "claimed_epsilon": NONNEG, "delta": DELTA, "confidence": UNIT,
              "bins": ints(2, 1000)}, bounds_ok),
    EdgeCase("AuditResult.in_event", lambda outputs: small_result().in_event(outputs),
             lazy_kwargs(outputs=[0.0]), {"outputs": OUTPUTS},
             lambda r, kw: r.shape == np.shape(kw["outputs"])),
    # audit_one_run
    EdgeCase("one_run_p_value", O.one_run_p_value,
             lazy_kwargs(m=1000, r=100, v=75, epsilon=1.0, delta=1e-4),
             {"m": ints(100, 10**9), "r": ints(0, 100), "v": ints(0, 75), "epsilon": NONNEG,
              "delta": DELTA}, unit),
    EdgeCase("one_run_audit_bound", O.one_run_audit_bound,
             lazy_kwargs(m=1000, r=100, v=75, delta=1e-4),
             {"m": ints(100, 10**9), "r": ints(75, 100), "v": ints(0, 75, 100),
              "delta": DELTA, "beta": UNIT},
             lambda r, kw: type(r) is float and 0 <= r <= O.EPSILON_SEARCH_MAX),
    EdgeCase("one_run_guesses", O.one_run_guesses, lazy_kwargs(scores=wave(1.0, 50), k_plus=5,
                                                              k_minus=5),
             {"scores": SCORES, "k_plus": ints(0, 45), "k_minus": ints(0, 45)}, guesses_ok),
    EdgeCase("one_run_audit", O.one_run_audit,
             lazy_kwargs(scores=wave(1.0, 50), included=np.arange(50) % 2 == 0, k_plus=5,
                         k_minus=5),
             {"scores": SCORES, "k_plus": ints(0, 45), "k_minus": ints(0, 5),
              "delta": DELTA, "beta": UNIT}, one_run_ok),
    EdgeCase("add_canaries", O.add_canaries,
             lazy_kwargs(X=lambda: toy()[0], y=lambda: toy()[1], n_canaries=5, rng=0),
             {"X": REAL.map(lambda s: np.full((20, 2), s)), "n_canaries": ints(2, 100, 5000),
              "scale": POS}, canaries_ok),
    EdgeCase("canary_scores", _canary_scores_of, lazy_kwargs(canaries_scale=1.0),
             {"canaries_scale": REAL}, lambda r, kw: r.shape == (4,) and not np.any(np.isnan(r))),
    EdgeCase("one_run_audit_dpsgd", O.one_run_audit_dpsgd,
             lazy_kwargs(classifier=DPSGDClassifier(noise_multiplier=1.0, batch_size=5,
                                                    epochs=1, hidden=(), rng=0),
                         X=lambda: toy()[0], y=lambda: toy()[1], n_canaries=10, k_plus=2,
                         k_minus=2, rng=0),
             {"X": REAL.map(lambda s: np.full((20, 2), s)), "n_canaries": ints(4, 50),
              "canary_scale": POS, "k_plus": ints(0, 2), "k_minus": ints(0, 2), "beta": UNIT},
             lambda r, kw: one_run_ok(r.audit), examples=3),
    # audit_bugs
    EdgeCase("laplace_half_scale", BUG.laplace_half_scale,
             lazy_kwargs(value=1.0, sensitivity=1.0, epsilon=1.0, rng=0),
             {"value": REAL, "sensitivity": POS, "epsilon": POS},
             lambda r, kw: type(r) is float),
    EdgeCase("randomized_response_wrong_epsilon", BUG.randomized_response_wrong_epsilon,
             lazy_kwargs(bits=[0, 1, 1], epsilon=1.0, rng=0), {"epsilon": POS},
             lambda r, kw: set(np.unique(r)) <= {0, 1}),
    EdgeCase("DPSGDClassifierWithoutClipping.fit", _fit_bug, lazy_kwargs(),
             {"noise_multiplier": POS, "max_grad_norm": POS,
              "X": REAL.map(lambda s: np.full((20, 2), s) + np.eye(20, 2))},
             lambda r, kw: r.epsilon_ >= 0, examples=4),      # ε = inf for a subnormal σ
    # audit_cases
    EdgeCase("audit_case", C.audit_case, lazy_kwargs(name="gaussian"),
             {"epsilon": POS, "delta": UNIT},
             lambda r, kw: isinstance(r, C.AuditCase) and r.true_epsilon >= 0),
    EdgeCase("audit_case", C.audit_case, lazy_kwargs(name="sparse_vector"), {"epsilon": POS},
             lambda r, kw: r.true_epsilon <= r.claimed_epsilon + 1e-9),
    EdgeCase("audit_case", C.audit_case, lazy_kwargs(name="report_noisy_max"), {"epsilon": POS},
             lambda r, kw: r.true_epsilon <= r.claimed_epsilon * (1 + 1e-6) + 1e-12),
    # the exact-sampler cases: tiny ε is refused by name (σ² or 1/ε out of reach), the rest
    # keep true ε ≤ claim
    EdgeCase("audit_case", C.audit_case, lazy_kwargs(name="snapping"), {"epsilon": POS},
             lambda r, kw: 0 < r.true_epsilon <= r.claimed_epsilon),
    EdgeCase("audit_case", C.audit_case, lazy_kwargs(name="gaussian_secure"),
             {"epsilon": POS, "delta": UNIT},
             lambda r, kw: 0 <= r.true_epsilon <= r.claimed_epsilon and r.delta == kw.get(
                 "delta", 1e-5)),
    EdgeCase("pair_epsilon", C.pair_epsilon, lazy_kwargs(p=[0.5, 0.5], p_prime=[0.25, 0.75]),
             {"p": PROB_ARRAYS, "p_prime": PROB_ARRAYS},
             lambda r, kw: type(r) is float and r >= 0),
    EdgeCase("AuditCase.audit", lambda n_trials=100, confidence=0.95:
             C.audit_case("randomized_response").audit(n_trials, confidence=confidence, rng=0),
             lazy_kwargs(), {"n_trials": ints(2, 100, 1000), "confidence": UNIT}, audit_ok),
    EdgeCase("AuditCase.convergence", lambda trials=(10,), confidence=0.95:
             C.audit_case("randomized_response").convergence(trials, confidence=confidence,
                                                             rng=0),
             lazy_kwargs(trials=[10]),
             {"trials": st.sampled_from([[2], [10**8], [10**400], [3, 99]]),
                             "confidence": UNIT}, bounds_ok),
    # plots.audit
    EdgeCase("audit_histograms_data", _histograms_of, lazy_kwargs(output_scale=1.0),
             {"output_scale": REAL, "bins": ints(2, 200)}, figure_ok),
    EdgeCase("bound_convergence_data", P.bound_convergence_data,
             lazy_kwargs(trials=[10, 100, 1000], bounds=[0.0, 0.5, 0.9], claimed_epsilon=1.0),
             {"trials": st.sampled_from([[2], [10**7], [2**70, 10], [10**400]]),
              "bounds": st.sampled_from([[0.0, 5e-324, 1e300], [FMAX] * 3, [0.0] * 3]),
              "claimed_epsilon": NONNEG, "true_epsilon": st.one_of(NONNEG, st.just(math.inf)),
              "delta": DELTA, "confidence": UNIT}, figure_ok),
    EdgeCase("canary_scores_data", _canary_figure_of, lazy_kwargs(score_scale=1.0),
             {"score_scale": REAL, "bins": ints(2, 200), "claimed_epsilon": NONNEG}, figure_ok),
    EdgeCase("one_run_bound_data", P.one_run_bound_data, lazy_kwargs(m=1000, r=100),
             {"m": ints(100, 10**9), "r": ints(1, 100), "delta": DELTA, "beta": UNIT,
              "claimed_epsilon": NONNEG, "points": ints(2, 100)}, figure_ok, examples=4),
]

# What each walked parameter is covered by, when not by a row of its own name:
#: the plot_* functions draw their *_data (one baseline call each below)
DRAWN_BY = {"plot_audit_histograms": "audit_histograms_data",
            "plot_bound_convergence": "bound_convergence_data",
            "plot_canary_scores": "canary_scores_data", "plot_one_run_bound": "one_run_bound_data"}
#: parameters that are not numbers (choices, flags, seeds, callables, results, labels)
NOT_NUMERIC = {
    "rng": "a seed or Generator (bad values: the property tests)",
    "test": "a choice", "bound": "a choice", "name": "a choice or a label", "bug": "a flag",
    "mechanism": "a callable", "func": "a callable", "classifier": "an estimator",
    "d": "passed to the user's mechanism unchanged", "d_prime": "likewise",
    "result": "an AuditResult (extreme outputs: the _histograms_of row)",
    "audit": "a OneRunAudit (extreme scores: the _canary_figure_of row)",
    "included": "booleans", "labels": "class labels", "y": "class labels",
    "bits": "0/1 data", "ax": "matplotlib axes", "answers": "a True/False transcript",
    "variant": "a choice",
}
# wrapper rows drive these parameters through a numeric stand-in
VIA_WRAPPER = {("canary_scores", "canaries"): "canaries_scale",
               ("audit_histograms_data", "bins"): "bins",
               ("canary_scores_data", "bins"): "bins",
               ("canary_scores_data", "claimed_epsilon"): "claimed_epsilon"}


@pytest.mark.parametrize("case", CASES, ids=[f"{c.name}-{i}" for i, c in enumerate(CASES)])
def test_extreme_values_answer_or_refuse(case):
    run_edge_case(case)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.name}-{i}" for i, c in enumerate(CASES)])
def test_valid_baseline_passes_its_check(case):
    kwargs = case.base()
    out = case.func(**kwargs)
    assert case.check is None or case.check(out, kwargs), case.name


def test_the_plot_functions_draw():
    res, a = small_result(), small_one_run()
    figs = [P.plot_audit_histograms(res), P.plot_bound_convergence([10, 100], [0.1, 0.5],
                                                                    claimed_epsilon=1.0),
            P.plot_canary_scores(a), P.plot_one_run_bound(100, 10, delta=1e-3, points=5)]
    for fig in figs:
        fig.canvas.draw()
        for ax in fig.axes:
            assert all(math.isfinite(v) for v in ax.get_xlim() + ax.get_ylim())


def test_huge_samples_stay_cheap():
    # a million runs per side, outputs 0/1: P(1) = 1/3 on D, 2/3 on D′, so ε = ln 2
    x = np.zeros(10**6)
    x[::3] = 1.0
    res = R.audit_samples(x, 1.0 - x, claimed_epsilon=0.5, test="histogram")
    assert 0.68 < res.epsilon_lower_bound <= math.log(2)
    assert res.refuted and res.event in ("output = 0", "output = 1")
    # r = 10⁶ guesses: the p-value sums O(√r) terms, not O(r)
    assert O.one_run_audit_bound(10**9, 10**6, 600_000, delta=1e-9) > 0.3


# ------------------------------------------------------------------------- coverage
def _public_callables():
    """{"name": callable} of the public functions, classes' public methods, in MODULES."""
    out = {}
    for module in MODULES:
        for name in module.__all__:
            obj = getattr(module, name)
            if getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isclass(obj):
                for meth, f in vars(obj).items():
                    if inspect.isfunction(f) and not meth.startswith("_"):
                        out[f"{name}.{meth}"] = f
            elif inspect.isfunction(obj):
                out[name] = obj
    return out


def test_every_public_parameter_is_in_the_table():
    covered = {}
    for case in CASES:
        covered.setdefault(case.name, set()).update(case.args)
        covered[case.name].update(case.fixed)
    missing = []
    found = _public_callables()
    for key, obj in sorted(found.items()):
        if key in DRAWN_BY:
            key = DRAWN_BY[key]
        params = [p for p in inspect.signature(obj).parameters if p != "self"]
        for p in params:
            if p in NOT_NUMERIC or p in covered.get(key, set()):
                continue
            if (key, p) in VIA_WRAPPER and VIA_WRAPPER[(key, p)] in covered.get(key, set()):
                continue
            missing.append(f"{key}: {p}")
    assert not missing, "parameters without an extreme-value case: " + "; ".join(missing)
    assert len(found) >= 30
