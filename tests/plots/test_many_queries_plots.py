"""The figures of notebook 14 and the "Many queries" page (dpteach.plots.many_queries).

The crossover charts' independent lines are :func:`dpteach.queries.independent.independent_max_error`
(exact expectations) and their MWEM points the shipped grid's runs; the rounds chart shows the
mean and range of the runs passed in; the PMW chart splits free and paid answers. Every figure
has its series keys, labels and a title with ε, and both renderers draw it. A hypothesis
bad-input test attacks every public function (``_props.call_rejects``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _props import (
    BAD_PROBABILITY,
    NON_FINITE_ARRAYS,
    NOT_A_NUMBER,
    NOT_NUMERIC,
    NOT_POSITIVE_FINITE,
    bad_int,
    call_rejects,
)
from hypothesis import given
from hypothesis import strategies as st
from matplotlib.figure import Figure

from dpteach._validation import ParameterError
from dpteach.queries.independent import independent_max_error
from dpteach.plots import many_queries as P
from dpteach.plots.figure import to_matplotlib, to_vega_lite
from dpteach.tables import load_crossover_grid


@pytest.fixture(scope="module")
def grid():
    table = load_crossover_grid()
    assert table is not None, "run scripts/precompute_many_queries.py"
    return table


def _gids(fig):
    ax = fig.axes[0]
    return {ln.get_gid() for ln in ax.lines} | {c.get_gid() for c in ax.collections}


# ---------------------------------------------------------------- the crossover charts
@pytest.mark.parametrize("k,epsilon", [(1000, 1.0), (10, 0.01), (10000, 10.0), (150, 0.07)])
def test_crossover_lines_are_the_library_and_the_grid(grid, k, epsilon):
    n = grid["meta"]["n"]
    assert n == 48_842
    data = P.crossover_data(k, epsilon)
    assert [s.key for s in data.series] == ["laplace", "gaussian", "mwem-band", "mwem",
                                            "mwem-last"]
    ks = np.asarray(P.CROSSOVER_KS, dtype=float)
    i_eps = P.CROSSOVER_EPSILONS.index(epsilon)
    for key, mech in (("laplace", "laplace"), ("gaussian", "gaussian")):
        line = data.series_by_key(key)
        np.testing.assert_array_equal(line.x, ks)
        assert line.y.tolist() == [independent_max_error(int(kk), epsilon, n=n, mechanism=mech,
                                                         delta=1e-6) for kk in ks]
    np.testing.assert_array_equal(data.series_by_key("mwem").y, grid["mwem"][i_eps].mean(axis=1))
    np.testing.assert_array_equal(data.series_by_key("mwem-last").y,
                                  grid["mwem_last"][i_eps].mean(axis=1))
    band = data.series_by_key("mwem-band")
    np.testing.assert_array_equal(band.y, grid["mwem"][i_eps].min(axis=1))
    np.testing.assert_array_equal(band.y2, grid["mwem"][i_eps].max(axis=1))
    (rule,) = data.rules
    assert rule.key == "k" and rule.value == k
    j = P.CROSSOVER_KS.index(k)
    assert data.extra["at"] == {key: float(data.series_by_key(key).y[j])
                                for key in ("laplace", "gaussian", "mwem", "mwem-last")}
    assert f"ε = {epsilon:.3g}" in data.title and "48,842" in data.title
    assert data.log_x and data.log_y and "fraction of n" in data.y_title


def test_crossover_against_epsilon_is_the_same_grid_by_column(grid):
    by_k = {e: P.crossover_data(300, e).extra["at"] for e in P.CROSSOVER_EPSILONS}
    data = P.crossover_epsilon_data(300, 0.5)
    np.testing.assert_array_equal(data.series_by_key("mwem").x, P.CROSSOVER_EPSILONS)
    for key in ("laplace", "gaussian", "mwem", "mwem-last"):
        assert data.series_by_key(key).y.tolist() == [by_k[e][key] for e in P.CROSSOVER_EPSILONS]
    assert data.rules[0].key == "epsilon" and data.rules[0].value == 0.5
    assert "k = 300" in data.title and data.extra["at"] == by_k[0.5]


def test_the_crossover_is_there():
    # at ε = 1 independent Laplace wins for 10 queries and MWEM for 10,000 — the lesson
    small, large = P.crossover_data(10, 1.0).extra["at"], P.crossover_data(10000, 1.0).extra["at"]
    assert small["laplace"] < small["mwem"] and large["mwem"] < large["laplace"] / 10
    # independent Laplace is exactly k·H_k/(nε): ten times more queries, > ten times the error
    lap = P.crossover_data(10, 1.0).series_by_key("laplace").y
    assert lap[P.CROSSOVER_KS.index(100)] > 10 * lap[0]


def test_off_grid_values_are_refused_by_name():
    with pytest.raises(ParameterError, match="epsilon"):
        P.crossover_data(1000, 0.4)
    with pytest.raises(ParameterError, match="k"):
        P.crossover_epsilon_data(999, 1.0)
    with pytest.raises(ParameterError, match="k"):
        P.crossover_data(5, 1.0)


def test_both_renderers_draw_the_crossover():
    for data, fig in ((P.crossover_data(1000, 1.0), P.plot_crossover(1000, 1.0)),
                      (P.crossover_epsilon_data(1000, 1.0), P.plot_crossover_epsilon(1000, 1.0))):
        assert isinstance(fig, Figure)
        assert {"laplace", "gaussian", "mwem", "mwem-last"} <= _gids(fig)
        spec = to_vega_lite(data)
        assert len(spec["layer"]) == 6                     # 5 series and the rule
        assert spec["title"]["text"][0].startswith("Answering k")
        to_matplotlib(data)


def test_workload_and_seeds_are_what_the_grid_says(grid):
    universe, hist, queries = P.crossover_workload()
    meta = grid["meta"]
    assert meta["universe"] == {"columns": list(universe.columns), "size": universe.size}
    assert meta["n"] == hist.sum() and queries.k == max(P.CROSSOVER_KS)
    assert (meta["T"], meta["passes"], meta["repeats"]) == (P.CROSSOVER_T, P.CROSSOVER_PASSES,
                                                            P.CROSSOVER_REPEATS)
    a, b = P.crossover_rng(100, 0.3), P.crossover_rng(100, 0.3)
    assert a.random() == b.random() and P.crossover_rng(100, 0.2).random() != a.random()


# ----------------------------------------------------------------- notebook figures
def test_mwem_rounds_chart_shows_mean_range_and_best_T():
    rounds = [30, 1, 10]
    errors = np.array([[0.10, 0.14], [0.40, 0.40], [0.05, 0.07]])
    data = P.mwem_rounds_data(rounds, errors, 0.5, reference=0.2)
    mean = data.series_by_key("mwem")
    np.testing.assert_array_equal(mean.x, [1, 10, 30])                 # sorted by T
    np.testing.assert_allclose(mean.y, [0.40, 0.06, 0.12])
    band = data.series_by_key("mwem-band")
    np.testing.assert_allclose(band.y, [0.40, 0.05, 0.10])
    np.testing.assert_allclose(band.y2, [0.40, 0.07, 0.14])
    assert data.extra["best_T"] == 10 and data.rules[0].value == 0.2
    assert "ε = 0.5" in data.title and data.log_x and data.log_y
    one = P.mwem_rounds_data([1, 2], [0.3, 0.0], 1.0)                # one run per T, an exact 0
    assert [s.key for s in one.series] == ["mwem", "mwem-points"] and not one.log_y
    fig = P.plot_mwem_rounds(rounds, errors, 0.5, reference=0.2)
    assert {"mwem", "reference"} <= _gids(fig)
    to_vega_lite(data)


def test_pmw_chart_splits_free_and_paid_answers():
    errors = [0.01, 0.2, 0.03, 0.0, 0.15]
    updated = [False, True, False, False, True]
    data = P.pmw_errors_data(errors, updated, 0.05)
    free, paid = data.series_by_key("free"), data.series_by_key("update")
    np.testing.assert_array_equal(free.x, [1, 3, 4])
    np.testing.assert_array_equal(paid.y, [0.2, 0.15])
    assert data.extra == {"n_updates": 2, "max_free": 0.03}
    assert data.rules[0].value == 0.05 and "2 paid updates for 5 answers" in data.title
    fig = P.plot_pmw_errors(errors, updated, 0.05)
    assert {"free", "update", "threshold"} <= _gids(fig)
    to_vega_lite(data)
    none_free = P.pmw_errors_data([0.1], [True], 1.0)
    assert none_free.extra["max_free"] == 0.0


# ------------------------------------------------------------------------ bad input
BAD_EPS = st.one_of(NOT_POSITIVE_FINITE, NOT_A_NUMBER, st.sampled_from([0.4, 11.0, 1e-3]))
BAD_K = st.one_of(bad_int(10, 10_000), st.sampled_from([11, 999, 10**4 - 1]))
BAD_ERRORS = st.one_of(NOT_NUMERIC, NON_FINITE_ARRAYS, st.sampled_from(
    [[-0.1, 0.2], [1e201, 0.1], [[0.1]], [0.1], [0.1, 0.2, 0.3]]))


def test_every_function_rejects_bad_values():
    crossover = dict(k=1000, epsilon=1.0)
    rounds = dict(rounds=[1, 10], errors=[0.3, 0.1], epsilon=1.0)
    pmw = dict(errors=[0.1, 0.0], updated=[True, False], threshold=0.05)
    table = [
        (P.crossover_data, crossover, "k", BAD_K),
        (P.crossover_data, crossover, "epsilon", BAD_EPS),
        (P.plot_crossover, crossover, "k", BAD_K),
        (P.plot_crossover, crossover, "epsilon", BAD_EPS),
        (P.crossover_epsilon_data, crossover, "k", BAD_K),
        (P.crossover_epsilon_data, crossover, "epsilon", BAD_EPS),
        (P.plot_crossover_epsilon, crossover, "k", BAD_K),
        (P.plot_crossover_epsilon, crossover, "epsilon", BAD_EPS),
        (P.crossover_rng, crossover, "k", bad_int(1, 10**5)),
        (P.crossover_rng, crossover, "epsilon",
         st.one_of(NOT_POSITIVE_FINITE, NOT_A_NUMBER, st.just(2e9))),
        (P.mwem_rounds_data, rounds, "rounds", st.one_of(NOT_NUMERIC, NON_FINITE_ARRAYS,
         st.sampled_from([[0, 10], [1, 1], [1.5, 2], [1, 10**7], [True, False]]))),
        (P.mwem_rounds_data, rounds, "errors", BAD_ERRORS),
        (P.mwem_rounds_data, rounds, "epsilon", st.one_of(NOT_POSITIVE_FINITE, NOT_A_NUMBER)),
        (P.mwem_rounds_data, rounds, "reference", st.one_of(NOT_NUMERIC.filter(
            lambda v: v is not None), st.sampled_from([-1.0, math.nan, math.inf, [0.1, 0.2]]))),
        (P.plot_mwem_rounds, rounds, "errors", BAD_ERRORS),
        (P.plot_mwem_rounds, rounds, "rounds", st.sampled_from([[0, 10], [1, 1]])),
        (P.plot_mwem_rounds, rounds, "epsilon", st.one_of(NOT_POSITIVE_FINITE, NOT_A_NUMBER)),
        (P.pmw_errors_data, pmw, "errors", BAD_ERRORS),
        (P.pmw_errors_data, pmw, "updated", st.sampled_from(
            ["yes", [1, 0], [True], [0.5, 1.0], None, [[True, False]]])),
        (P.pmw_errors_data, pmw, "threshold", st.one_of(NOT_POSITIVE_FINITE, NOT_A_NUMBER,
                                                        BAD_PROBABILITY)),
        (P.plot_pmw_errors, pmw, "errors", BAD_ERRORS),
        (P.plot_pmw_errors, pmw, "updated", st.sampled_from([[1, 0], None])),
        (P.plot_pmw_errors, pmw, "threshold", st.one_of(NOT_POSITIVE_FINITE, BAD_PROBABILITY)),
    ]
    for func, valid, arg, strategy in table:
        func(**valid)

        @given(bad=strategy)
        def run(bad):
            call_rejects(func, {**valid, arg: bad}, arg)

        run()
