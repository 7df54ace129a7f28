"""Legal-but-extreme inputs for every public function of the mechanism modules.

Modules: ``mechanisms``, ``randomized_response``, ``selection``, ``sparse_vector``,
``robust`` (``samplers`` and the secure mechanisms:
``tests/exact/test_samplers_edges.py``). Every numeric parameter of every public function
(and of the public class ``SparseVector`` and its ``query``) gets the strategies of
``tests/_props.py`` for values at the ends of what float64 and Python integers hold:
subnormals, huge floats, integers beyond the float range, sizes far beyond any memory.
Each call must, within a few seconds, answer without NaN or refuse with
``ParameterError``/``TypeError`` naming the argument (``assert_extreme_ok``). Where the
exact answer is known it is checked too: probabilities lie in [0, 1] and sum to 1, the
exponential mechanism and report-noisy-max pick the best candidate when ε/Δ is huge, the
Laplace privacy loss is exactly ±ε away from the data, functions documented to return a
``float`` return a Python ``float``.

``test_every_public_parameter_is_in_the_table`` walks the modules and fails when a public
function or one of its parameters is missing from ``CASES`` (or from the explicit list of
non-numeric parameters), so a new function cannot slip through.
"""

from __future__ import annotations

import inspect
import math
from fractions import Fraction

import numpy as np
import pytest
from _props import EXTREME_POSITIVE_FLOATS, HUGE_FLOATS, HUGE_INTS, TINY_FLOATS, assert_extreme_ok
from hypothesis import given, settings
from hypothesis import strategies as st

from dpteach.mechanisms import (
    noise as mechanisms,
    randomized_response,
    stability as robust,
    selection,
)
from dpteach.exact import discrete as samplers
from dpteach.mechanisms import l2_laplace
from dpteach.mechanisms import sparse_vector as svt
from dpteach._validation import ParameterError

MODULES = [mechanisms, randomized_response, selection, svt, robust]
EXAMPLES = 12                 # hypothesis examples per (function, argument)

# ------------------------------------------------------------------ strategies
FLOAT_MAX = 1.7976931348623157e308
POS = st.one_of(EXTREME_POSITIVE_FLOATS, HUGE_INTS)                     # ε, Δ, σ, β, ...
POS_FLOATS = EXTREME_POSITIVE_FLOATS
REAL = st.one_of(EXTREME_POSITIVE_FLOATS, EXTREME_POSITIVE_FLOATS.map(lambda x: -x),
                 st.sampled_from([0.0, -0.0]), HUGE_INTS, HUGE_INTS.map(lambda x: -x))
REAL_FLOATS = st.one_of(EXTREME_POSITIVE_FLOATS, EXTREME_POSITIVE_FLOATS.map(lambda x: -x),
                        st.just(0.0))
ARRAYS = st.one_of(st.lists(REAL_FLOATS, min_size=1, max_size=6),
                   st.sampled_from([[FLOAT_MAX, -FLOAT_MAX], [5e-324, -5e-324, 0.0],
                                    [1e308, 1e308, 1e308], [10**400], [2**64, -(2**64)]]))
UNIT = st.one_of(TINY_FLOATS, st.sampled_from([1 - 2**-53, 0.5, 1 - 1e-12]),   # (0, 1)
                 st.floats(min_value=5e-324, max_value=1 - 2**-53))
PROB = st.one_of(UNIT, st.sampled_from([0.0, 1.0]))                             # [0, 1]
GAMMA = st.one_of(TINY_FLOATS, st.sampled_from([0.5 - 2**-54, 0.25]),          # (0, ½)
                  st.floats(min_value=5e-324, max_value=0.5 - 2**-54))
ALPHA = st.one_of(TINY_FLOATS, st.sampled_from([0.5 - 2**-54]),                # (0, ½)
                  st.floats(min_value=5e-324, max_value=0.5 - 2**-54))


def ints(*legal):
    """Integers beyond any limit, plus the given legal (boundary) values."""
    return st.one_of(HUGE_INTS, st.sampled_from(list(legal))) if legal else HUGE_INTS


# ------------------------------------------------------------------------ checks
def is_float(r, kw=None):
    return type(r) is float


def pos_float(r, kw=None):
    return type(r) is float and 0 < r < math.inf


def unit_float(r, kw=None):
    return type(r) is float and 0.0 <= r <= 1.0


def probabilities(p, kw=None, tol=1e-9):
    p = np.asarray(p)
    return bool(np.all((p >= 0) & (p <= 1 + 1e-12)) and abs(p.sum() - 1.0) <= tol)


def _eps(kw):
    return float(kw["epsilon"])


def em_probabilities(p, kw):
    """Sum to 1, order-preserving, and all mass on the best score(s) when ε/Δ·gap is huge."""
    if not probabilities(p, tol=1e-12):
        return False
    u = np.asarray(kw["scores"], dtype=float)
    order = np.argsort(u, kind="stable")
    if np.any(np.diff(p[order]) < -1e-15):                    # higher score, never less likely
        return False
    return _mass_on_best(p, u, kw, factor=1.0 if kw.get("monotonic") else 2.0)


def _log_gap(top: float, second: float) -> float:
    """log(top − second) for floats top > second, even when the difference overflows."""
    gap = Fraction(top) - Fraction(second)                 # exact; math.log takes big ints
    return math.log(gap.numerator) - math.log(gap.denominator)


def _mass_on_best(p, u, kw, factor):
    best = u == u.max()
    others = u[~best]
    if others.size == 0:
        return bool(np.allclose(p, 1.0 / u.size))
    log_rate_gap = (math.log(_eps(kw)) - math.log(factor) - math.log(float(kw["sensitivity"]))
                    + _log_gap(float(u.max()), float(others.max())))
    if log_rate_gap > math.log(800.0):                         # e^{−800} = 0 in double
        return bool(np.all(p[~best] == 0.0) and np.allclose(p[best], 1.0 / best.sum()))
    return True


def picks_best(factor):
    """A sampled index is a best candidate whenever ε/Δ·gap is huge."""
    def check(idx, kw):
        u = np.asarray(kw["scores"], dtype=float)
        p = np.zeros(u.size)
        p[np.asarray(idx).ravel()] = 1.0
        best = u == u.max()
        if best.all():
            return True
        log_rate_gap = (math.log(_eps(kw)) - math.log(factor)
                        - math.log(float(kw["sensitivity"]))
                        + _log_gap(float(u.max()), float(u[~best].max())))
        # Laplace/Gumbel noise beyond 700 scales has probability < e^{−700}
        return log_rate_gap <= math.log(2000.0) or bool(np.all(best[np.asarray(idx).ravel()]))
    return check


def laplace_loss(loss, kw):
    """Exactly ε left of the data, exactly −ε right of data + Δ, within [−ε, ε] between."""
    eps, sens, value = _eps(kw), float(kw["sensitivity"]), float(kw.get("value", 0.0))
    ys = np.atleast_1d(np.asarray(kw["y"], dtype=float))
    out = np.atleast_1d(loss)
    for y, l in zip(ys, out):
        t = Fraction(float(y)) - Fraction(value)
        if t <= 0 and l != eps:
            return False
        if t >= Fraction(sens) and l != -eps:
            return False
        if abs(l) > eps:
            return False
    return type(loss) is float if np.ndim(kw["y"]) == 0 else True


def gaussian_sigma_ok(sigma, kw):
    if not pos_float(sigma):
        return False
    if kw.get("method", "analytic") == "analytic":
        return mechanisms.gaussian_delta(sigma, kw["sensitivity"], kw["epsilon"]) <= kw["delta"]
    return True


def k_rr_sum(est, kw):
    k = int(kw["k"])
    return est.shape == (k,) and abs(est.sum() - 1.0) <= 1e-9 + 1e-14 * k / _eps(kw)


def truthful_when_huge(out, kw):
    eps = kw.get("epsilon")
    if eps is not None and float(eps) > 40:                  # p = 1 − e^{−40}/(1+…)
        return bool(np.array_equal(out, kw["bits"]))
    return bool(np.all((np.asarray(out) == 0) | (np.asarray(out) == 1)))


def in_unit(r, kw=None):
    return type(r) is float and 0.0 <= r <= 1.0 + 1e-12


def scales_ok(r, kw):
    s, q = r
    return pos_float(s) and pos_float(q) and q == 2 * s


def no_check(r, kw):
    return True


# --------------------------------------------------------------------- the table
def _sv_query(answer):
    """``SparseVector.query`` on a fresh instance (threshold 0, ε = 1)."""
    return svt.SparseVector(0.0, 1.0, rng=0).query(answer)


_sv_query.__name__ = "SparseVector.query"

M, RR, S, SV, R, SM = mechanisms, randomized_response, selection, svt, robust, samplers
L2 = l2_laplace
VAL = [1.0, 3.0, 2.0]
DATA = [1.0, 2.0, 2.0, 3.0, 5.0, 8.0]

CASES = []        # (key, func, valid kwargs, argument, strategy, check(result, kwargs))


def add(key, func, valid, **strategies_and_checks):
    """Register one row per argument: ``add(key, f, valid, arg=(strategy, check), ...)``."""
    for arg, (strategy, check) in strategies_and_checks.items():
        CASES.append((key, func, valid, arg, strategy, check))


# mechanisms ------------------------------------------------------------------------
add("noise.laplace_scale", M.laplace_scale, dict(sensitivity=1.0, epsilon=1.0),
    sensitivity=(POS, pos_float), epsilon=(POS, pos_float))
add("noise.laplace_mechanism", M.laplace_mechanism,
    dict(value=0.0, sensitivity=1.0, epsilon=1.0, rng=0),
    value=(st.one_of(REAL, ARRAYS), no_check), sensitivity=(POS, is_float),
    epsilon=(POS, is_float))
add("noise.gaussian_delta", M.gaussian_delta, dict(sigma=1.0, sensitivity=1.0, epsilon=1.0),
    sigma=(POS, unit_float), sensitivity=(POS, unit_float),
    epsilon=(st.one_of(POS, st.just(0.0)), unit_float))
for method, eps in (("analytic", 0.5), ("classic", 0.5)):
    add("noise.gaussian_sigma", M.gaussian_sigma,
        dict(sensitivity=1.0, epsilon=eps, delta=1e-5, method=method),
        sensitivity=(POS, gaussian_sigma_ok), epsilon=(POS, gaussian_sigma_ok),
        delta=(UNIT, gaussian_sigma_ok))
add("noise.gaussian_mechanism", M.gaussian_mechanism,
    dict(value=0.0, sensitivity=1.0, epsilon=0.5, delta=1e-5, rng=0),
    value=(st.one_of(REAL, ARRAYS), no_check), sensitivity=(POS, is_float),
    epsilon=(POS, is_float), delta=(UNIT, is_float))
add("noise.laplace_privacy_loss", M.laplace_privacy_loss,
    dict(y=[-1e300, -1.0, 0.0, 0.25, 1.0, 1e300], sensitivity=1.0, epsilon=1.0, value=0.0),
    y=(st.one_of(REAL, ARRAYS), laplace_loss), sensitivity=(POS, laplace_loss),
    epsilon=(POS, laplace_loss), value=(REAL, laplace_loss))
add("noise.gaussian_privacy_loss", M.gaussian_privacy_loss,
    dict(y=[-1e300, 0.0, 0.5, 1e300], sensitivity=1.0, sigma=1.0, value=0.0),
    y=(st.one_of(REAL, ARRAYS), no_check), sensitivity=(POS, no_check),
    sigma=(POS, no_check), value=(REAL, no_check))

# randomized_response -------------------------------------------------------------------
add("randomized_response.rr_epsilon_from_gamma", RR.rr_epsilon_from_gamma, dict(gamma=0.25),
    gamma=(GAMMA, pos_float))
add("randomized_response.rr_gamma_from_epsilon", RR.rr_gamma_from_epsilon, dict(epsilon=1.0),
    epsilon=(POS, lambda r, kw: type(r) is float and 0 < r <= 0.5))
add("randomized_response.randomized_response", RR.randomized_response,
    dict(bits=[0, 1, 1, 0], gamma=0.25, rng=0), gamma=(GAMMA, truthful_when_huge))
add("randomized_response.randomized_response", RR.randomized_response,
    dict(bits=[0, 1, 1, 0], epsilon=1.0, rng=0), epsilon=(POS, truthful_when_huge))
add("randomized_response.rr_estimate", RR.rr_estimate, dict(reports=[0, 1, 1], gamma=0.25),
    gamma=(GAMMA, no_check), confidence=(UNIT, no_check))
add("randomized_response.rr_estimate", RR.rr_estimate, dict(reports=[0, 1, 1], epsilon=1.0),
    epsilon=(POS, lambda r, kw: all(math.isfinite(x) for x in (r.estimate, r.std_error))))
add("randomized_response.rr_std_error", RR.rr_std_error, dict(rate=0.3, n=100, gamma=0.25),
    rate=(PROB, is_float), n=(ints(1, 10**15), is_float), gamma=(GAMMA, is_float))
add("randomized_response.rr_std_error", RR.rr_std_error, dict(rate=0.3, n=100, epsilon=1.0),
    epsilon=(POS, is_float))
add("randomized_response.k_randomized_response", RR.k_randomized_response,
    dict(values=[0, 1, 2], k=3, epsilon=1.0, rng=0),
    k=(ints(3, 10**6), no_check), epsilon=(POS, no_check))
add("randomized_response.k_rr_estimate", RR.k_rr_estimate,
    dict(reports=[0, 1, 2, 0, 0], k=3, epsilon=1.0),
    k=(ints(3, 10**6), k_rr_sum), epsilon=(POS, k_rr_sum))
add("randomized_response.simulate_rr_estimates", RR.simulate_rr_estimates,
    dict(true_rate=0.3, n=50, gamma=0.25, n_trials=10, rng=0),
    true_rate=(PROB, no_check), n=(ints(1, 10**9), no_check), gamma=(GAMMA, no_check),
    n_trials=(ints(2, 10**5), no_check))
add("randomized_response.simulate_rr_estimates", RR.simulate_rr_estimates,
    dict(true_rate=0.3, n=50, epsilon=1.0, n_trials=10, rng=0), epsilon=(POS, no_check))
for f in (RR.rr_local_std, RR.central_laplace_rate_std):
    add(f"randomized_response.{f.__name__}", f, dict(n=10, epsilon=1.0),
        n=(st.one_of(HUGE_INTS, HUGE_FLOATS, st.sampled_from([[1, FLOAT_MAX], [2**64]])),
           lambda r, kw: np.all(np.asarray(r) >= 0) and (np.ndim(kw["n"]) or type(r) is float)),
        epsilon=(POS, is_float))

# selection -------------------------------------------------------------------------------
EM = dict(scores=VAL, sensitivity=1.0, epsilon=1.0)
for mono in (False, True):
    add("selection.exponential_mechanism_probabilities", S.exponential_mechanism_probabilities,
        {**EM, "monotonic": mono}, scores=(ARRAYS, em_probabilities),
        sensitivity=(POS, em_probabilities), epsilon=(POS, em_probabilities))
add("selection.exponential_mechanism", S.exponential_mechanism, {**EM, "rng": 0},
    scores=(ARRAYS, picks_best(2.0)), sensitivity=(POS, picks_best(2.0)),
    epsilon=(POS, picks_best(2.0)),
    size=(ints(1, 10**7 // 3, 10**7), lambda r, kw: r.shape == (kw["size"],)))
add("selection.mode_utility", S.mode_utility, dict(data=DATA, candidates=[1.0, 2.0, 8.0]),
    data=(ARRAYS, no_check), candidates=(ARRAYS, no_check))
add("selection.median_utility", S.median_utility, dict(data=DATA, candidates=[1.0, 2.0, 8.0]),
    data=(ARRAYS, no_check), candidates=(ARRAYS, no_check))
for f in (S.private_mode_probabilities, S.private_median_probabilities):
    add(f"selection.{f.__name__}", f, dict(data=DATA, candidates=[1.0, 2.0, 8.0], epsilon=1.0),
        data=(ARRAYS, probabilities), candidates=(ARRAYS, probabilities),
        epsilon=(POS, probabilities))
add("selection.private_mode", S.private_mode,
    dict(data=DATA, candidates=[1.0, 2.0, 8.0], epsilon=1.0, rng=0),
    data=(ARRAYS, no_check), candidates=(ARRAYS, no_check),
    epsilon=(POS, lambda r, kw: float(kw["epsilon"]) < 1e4 or r == 2.0))
add("selection.private_median", S.private_median,
    dict(data=DATA, candidates=[1.0, 2.0, 8.0], epsilon=1.0, rng=0),
    data=(ARRAYS, is_float), candidates=(ARRAYS, is_float),
    epsilon=(POS, lambda r, kw: type(r) is float and (float(kw["epsilon"]) < 1e4 or r == 2.0)))
add("selection.report_noisy_max_scale", S.report_noisy_max_scale,
    dict(sensitivity=1.0, epsilon=1.0), sensitivity=(POS, pos_float), epsilon=(POS, pos_float))
for noise in ("laplace", "exponential", "gumbel"):
    add("selection.report_noisy_max", S.report_noisy_max, {**EM, "noise": noise, "rng": 0},
        scores=(ARRAYS, picks_best(2.0)), sensitivity=(POS, picks_best(2.0)),
        epsilon=(POS, picks_best(2.0)),
        size=(ints(1, 10**7 // 3), lambda r, kw: r.shape == (kw["size"],)))
    add("selection.report_noisy_max_probabilities", S.report_noisy_max_probabilities,
        {**EM, "noise": noise},
        scores=(ARRAYS, lambda p, kw: _mass_on_best(p, np.asarray(kw["scores"], float), kw, 2.0)
                and probabilities(p)),
        sensitivity=(POS, probabilities), epsilon=(POS, lambda p, kw: probabilities(p)
                                                   and _mass_on_best(p, np.asarray(VAL), kw, 2.0)))

# sparse_vector ------------------------------------------------------------------------------
add("sparse_vector.sparse_vector_noise_scales", SV.sparse_vector_noise_scales, dict(epsilon=1.0),
    epsilon=(POS, scales_ok), sensitivity=(POS, scales_ok),
    max_above=(ints(1, 10**6), scales_ok))
add("sparse_vector.sparse_vector_noise_scales", SV.sparse_vector_noise_scales,
    dict(epsilon=0.5, delta=1e-5), delta=(UNIT, scales_ok))
SVV = dict(threshold=2.0, epsilon=1.0)
add("sparse_vector.SparseVector", SV.SparseVector, {**SVV, "rng": 0},
    threshold=(REAL, no_check), epsilon=(POS, no_check), sensitivity=(POS, no_check),
    max_above=(ints(1, 10**6), no_check))
add("sparse_vector.SparseVector", SV.SparseVector, dict(threshold=2.0, epsilon=0.5, rng=0),
    delta=(UNIT, no_check))
add("sparse_vector.SparseVector.query", _sv_query, dict(answer=1.0),
    answer=(REAL, lambda r, kw: type(r) is bool))
add("sparse_vector.sparse_vector", SV.sparse_vector, dict(values=VAL, **SVV, rng=0),
    values=(ARRAYS, no_check), threshold=(REAL, no_check), epsilon=(POS, no_check),
    sensitivity=(POS, no_check), max_above=(ints(1, 10**6), no_check))
add("sparse_vector.sparse_vector", SV.sparse_vector,
    dict(values=VAL, threshold=2.0, epsilon=0.5, rng=0), delta=(UNIT, no_check))
for f in (SV.above_threshold, SV.sparse_vector_without_query_noise):
    add(f"sparse_vector.{f.__name__}", f, dict(values=VAL, **SVV, rng=0),
        values=(ARRAYS, no_check), threshold=(REAL, no_check), epsilon=(POS, no_check),
        sensitivity=(POS, no_check))
add("sparse_vector.as_transcript", SV.as_transcript, dict(answers=[True, False], n_queries=2),
    n_queries=(ints(2, 10**6), lambda r, kw: r.tolist() == [True, False]))
PAT = dict(values=VAL, answers=[False, True], **SVV)
for f in (SV.sparse_vector_pattern_probability, SV.no_query_noise_pattern_probability):
    add(f"sparse_vector.{f.__name__}", f, PAT,
        values=(ARRAYS, in_unit), threshold=(REAL, in_unit), epsilon=(POS, in_unit),
        sensitivity=(POS, in_unit))
add("sparse_vector.sparse_vector_pattern_probability", SV.sparse_vector_pattern_probability,
    PAT, max_above=(ints(1, 10**6), in_unit))

# robust --------------------------------------------------------------------------------------
add("stability.block_estimates", R.block_estimates, dict(data=DATA, n_blocks=3, rng=0),
    data=(ARRAYS, no_check), n_blocks=(ints(1, 6), no_check))
add("stability.subsample_and_aggregate_sensitivity", R.subsample_and_aggregate_sensitivity,
    dict(lower=0.0, upper=1.0, n_blocks=3),
    lower=(REAL, pos_float), upper=(REAL, pos_float), n_blocks=(ints(1, 10**9), pos_float))
for agg in ("mean", "median"):
    add("stability.subsample_and_aggregate", R.subsample_and_aggregate,
        dict(data=DATA, statistic="mean", n_blocks=3, lower=0.0, upper=10.0, epsilon=1.0,
             aggregator=agg, rng=0),
        data=(ARRAYS, is_float), n_blocks=(ints(1, 6), is_float), lower=(REAL, is_float),
        upper=(REAL, is_float), epsilon=(POS, is_float),
        grid_size=(ints(2, 10**5), is_float))
add("stability.median_local_sensitivity", R.median_local_sensitivity,
    dict(data=DATA, lower=0.0, upper=10.0),
    data=(ARRAYS, is_float), lower=(REAL, is_float), upper=(REAL, is_float),
    distance=(ints(0, 5), is_float))
add("stability.median_distance_to_instability", R.median_distance_to_instability,
    dict(data=DATA, bound=1.0, lower=0.0, upper=10.0),
    data=(ARRAYS, is_float), bound=(st.one_of(POS, st.just(0.0)), is_float),
    lower=(REAL, is_float), upper=(REAL, is_float))
add("stability.ptr_pass_probability", R.ptr_pass_probability,
    dict(distance=3.0, epsilon=1.0, delta=1e-5),
    distance=(st.one_of(POS, st.sampled_from([0.0, math.inf])), in_unit),
    epsilon=(POS, in_unit), delta=(UNIT, in_unit))
add("stability.propose_test_release_median", R.propose_test_release_median,
    dict(data=DATA * 20, bound=1.0, lower=0.0, upper=10.0, epsilon=1.0, delta=1e-5, rng=0),
    data=(ARRAYS, no_check), bound=(st.one_of(POS, st.just(0.0)), no_check),
    lower=(REAL, no_check), upper=(REAL, no_check), epsilon=(POS, no_check),
    delta=(UNIT, no_check))

# Parameters that are not numbers (choices, flags, seeds) or whose values are labels/bits,
# with the reason they have no extreme-value strategy.
NOT_NUMERIC = {
    "rng": "a seed or Generator, checked by check_rng (bad values: test_properties_*)",
    "method": "a choice", "noise": "a choice", "variant": "a choice", "simulation": "a choice",
    "neighbouring": "a choice", "aggregator": "a choice", "statistic": "a name or callable",
    "monotonic": "a flag",
    "bits": "0/1 data", "reports": "0/1 or category data", "answers": "a True/False transcript",
}
# values of k-RR are category labels in [0, k − 1], not magnitudes
NOT_NUMERIC_FOR = {("randomized_response.k_randomized_response", "values"),
                   # gaussian_epsilon's extreme values: tests/accounting/test_accounting_edges.py
                   *(("noise.gaussian_epsilon", p) for p in ("sigma", "delta", "sensitivity"))}
# public names that are result containers (dataclasses), not computations
CONTAINERS = {"RREstimate", "SparseVectorResult", "PTRResult"}


def _case_id(case):
    key, func, valid, arg, _, _ = case
    extra = "".join(f"-{valid[k]}" for k in ("method", "noise", "variant", "aggregator",
                                              "monotonic") if k in valid and k != arg)
    return f"{key.split('.', 1)[1]}-{arg}{extra}"


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_extreme_values_answer_or_refuse(case):
    _, func, valid, arg, strategy, check = case

    @settings(max_examples=EXAMPLES, deadline=None, database=None)
    @given(value=strategy)
    def run(value):
        kwargs = {**valid, arg: value}
        assert_extreme_ok(func, kwargs, arg, check=lambda r: check(r, kwargs))

    run()


# ------------------------------------------------------------------ exact known answers
@pytest.mark.parametrize("sens, eps", [(1.0, 1e300), (1e-300, 1e300), (1.0, FLOAT_MAX),
                                       (5e-324, 1.0), (1e-300, 1e10)])
def test_huge_epsilon_over_sensitivity_selects_the_best(sens, eps):
    scores = [3.0, 7.0, -1e308, 7.0 - 2**-50, 1e-300]
    for mono in (False, True):
        p = S.exponential_mechanism_probabilities(scores, sens, eps, monotonic=mono)
        assert p.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0]
        assert S.exponential_mechanism(scores, sens, eps, monotonic=mono, rng=0) == 1
        assert np.all(S.exponential_mechanism(scores, sens, eps, monotonic=mono, size=50,
                                              rng=1) == 1)
    for noise in ("laplace", "exponential", "gumbel"):
        p = S.report_noisy_max_probabilities(scores, sens, eps, noise=noise)
        assert p[1] == pytest.approx(1.0, abs=1e-12) and p.sum() == pytest.approx(1.0, abs=1e-12)
        assert np.all(S.report_noisy_max(scores, sens, eps, noise=noise, size=50, rng=2) == 1)
    # ties share the mass equally
    p = S.exponential_mechanism_probabilities([2.0, 5.0, 5.0], sens, eps)
    assert p.tolist() == [0.0, 0.5, 0.5]


def test_tiny_epsilon_over_sensitivity_is_uniform_without_nan():
    p = S.exponential_mechanism_probabilities([0.0, 1.0, -1e308, 1e308], 1e300, 5e-324)
    assert np.all(np.isfinite(p)) and p.sum() == pytest.approx(1.0, abs=1e-15)
    # the gap 2e308 overflows; ε/(2Δ) underflows; their product is ≈ 1e-16: uniform to 1e-15
    np.testing.assert_allclose(p, 0.25, rtol=1e-12)
    p = S.exponential_mechanism_probabilities([-FLOAT_MAX, FLOAT_MAX], 1.0, 1.0)
    assert p.tolist() == [0.0, 1.0]                  # the score gap overflows the float range


@pytest.mark.parametrize("eps", [1e-6, 0.3, 1.0, 1e3])
def test_laplace_privacy_loss_far_from_the_data_is_exactly_epsilon(eps):
    y = np.array([-1e15, -1e10, 0.0, 1e10, 1e15])
    loss = M.laplace_privacy_loss(y, 1.0, eps, value=-1e-300)
    # exactly ±ε, no cancellation of |y − a − Δ| − |y − a| far from the data
    assert loss[:2].tolist() == [eps, eps] and loss[3:].tolist() == [-eps, -eps]
    assert abs(loss[2]) <= eps
    assert type(M.laplace_privacy_loss(1e10, 1.0, eps)) is float


def test_subnormal_delta_and_epsilon():
    # log(1/δ) would be inf for subnormal δ; −log δ is 744.4
    s, q = SV.sparse_vector_noise_scales(0.5, 1.0, 1, delta=5e-324)
    assert s == pytest.approx(math.sqrt(32 * 744.4400719213812) / 0.5) and q == 2 * s
    assert 0.0 <= R.ptr_pass_probability(0.0, 1.0, 5e-324) <= 5e-324     # δ/2
    # a subnormal ε: ε/2 underflows to 0; no ZeroDivisionError, a certain refusal by the test
    assert R.ptr_pass_probability(5.0, 5e-324, 1e-5) == pytest.approx(0.5e-5)
    for call in (lambda: R.propose_test_release_median(DATA, 1.0, 0.0, 10.0, 5e-324, 1e-5),
                 lambda: SV.sparse_vector_noise_scales(5e-324),
                 lambda: S.report_noisy_max_scale(1.0, 5e-324),
                 lambda: RR.central_laplace_rate_std(10, 5e-324),
                 lambda: M.gaussian_privacy_loss(0.0, 1.0, 5e-324)):        # σ: the domain
        with pytest.raises(ParameterError, match="epsilon|sigma"):
            call()
    assert M.gaussian_sigma(1.0, 0.5, 1e-50, method="classic") > 0
    sigma = M.gaussian_sigma(1.0, 0.5, 1e-50)
    assert M.gaussian_delta(sigma, 1.0, 0.5) <= 1e-50


def test_integers_beyond_the_float_range():
    for call, arg in ((lambda: M.laplace_scale(10**400, 1.0), "sensitivity"),
                      (lambda: RR.rr_std_error(0.5, 10**400, epsilon=1.0), "n"),
                      (lambda: R.subsample_and_aggregate_sensitivity(0.0, 1.0, 10**400),
                       "n_blocks"),
                      (lambda: L2.l2_laplace_norm_distribution(10**400, 1.0), "dim"),
                      (lambda: SV.sparse_vector_noise_scales(1.0, 1.0, 10**400), "max_above")):
        with pytest.raises(ParameterError, match=arg):
            call()
    with pytest.raises(ParameterError, match="size"):
        S.exponential_mechanism([1.0, 2.0], 1.0, 1.0, size=10**9)       # was a MemoryError


def test_documented_float_results_are_python_floats():
    for value in (M.laplace_scale(1, 1), M.gaussian_delta(1, 1, 1), M.gaussian_sigma(1, 1, 1e-5),
                  M.laplace_privacy_loss(0.3, 1, 1), M.gaussian_privacy_loss(0.3, 1, 1),
                  RR.rr_epsilon_from_gamma(0.1), RR.rr_gamma_from_epsilon(1),
                  RR.rr_std_error(0.5, 10, epsilon=1), RR.rr_local_std(10, 1.0),
                  RR.central_laplace_rate_std(10, 1.0), S.report_noisy_max_scale(1, 1),
                  S.private_median([1, 2], [1, 2], 1.0, rng=0),
                  SV.sparse_vector_pattern_probability([1.0], [True], 0.0, 1.0),
                  SV.no_query_noise_pattern_probability([1.0], [True], 0.0, 1.0),
                  R.subsample_and_aggregate_sensitivity(0, 1, 2),
                  R.subsample_and_aggregate(DATA, "mean", 2, 0, 10, 1.0, rng=0),
                  R.median_local_sensitivity(DATA, 0, 10),
                  R.median_distance_to_instability(DATA, 1, 0, 10),
                  R.ptr_pass_probability(3, 1.0, 1e-5)):
        assert type(value) is float, value
    assert all(type(s) is float for s in SV.sparse_vector_noise_scales(1.0))


# ------------------------------------------------------------------------- coverage
def _public_callables(module):
    """{"module.name": callable} for the public functions and classes defined in ``module``."""
    out = {}
    short = module.__name__.rsplit(".", 1)[1]
    for name in module.__all__:
        obj = getattr(module, name)
        if getattr(obj, "__module__", None) != module.__name__ or name in CONTAINERS:
            continue
        if inspect.isclass(obj):
            out[f"{short}.{name}"] = obj
            for meth_name, meth in vars(obj).items():
                if inspect.isfunction(meth) and not meth_name.startswith("_"):
                    out[f"{short}.{name}.{meth_name}"] = meth
        elif inspect.isfunction(obj):
            out[f"{short}.{name}"] = obj
    return out


def test_every_public_parameter_is_in_the_table():
    covered = {}
    for key, _, _, arg, _, _ in CASES:
        covered.setdefault(key, set()).add(arg)
    missing = []
    found = {}
    for module in MODULES:
        found.update(_public_callables(module))
    for key, obj in sorted(found.items()):
        params = [p for p in inspect.signature(obj).parameters if p != "self"]
        needed = {p for p in params if p not in NOT_NUMERIC and (key, p) not in NOT_NUMERIC_FOR}
        lacking = needed - covered.get(key, set())
        if lacking:
            missing.append(f"{key}: {sorted(lacking)}")
    assert not missing, "parameters without an extreme-value case: " + "; ".join(missing)
    stale = sorted(set(covered) - set(found))
    assert not stale, f"CASES name functions that are not public any more: {stale}"
    assert len(found) >= 45                       # the walk really found the modules
