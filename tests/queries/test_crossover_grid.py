"""The grid shipped for the "Many queries" page (dpteach/data/many_queries_grid.npz, made by
scripts/precompute_many_queries.py): it says how it was made, covers exactly the page's
sliders, and recomputed entries reproduce it.

Tolerance: an entry is :func:`dpteach.queries.mwem.compare_independent` with the seed of
:func:`dpteach.plots.many_queries.crossover_rng`; on the build the grid was made with (same
NumPy and BLAS) a recomputation repeats the same arithmetic, so every stored error must agree
to a relative 1e-9 (measured: exactly). On another build a dot product summed in another
order could, with negligible probability, flip one exponential-mechanism choice and give a
different run; then the failure names the entry.
"""

from __future__ import annotations

from importlib import resources

import numpy as np
import pytest

from dpteach.queries.mwem import compare_independent
from dpteach.plots import many_queries as P


@pytest.fixture(scope="module")
def grid() -> dict:
    table = P.load_crossover_grid()
    assert table is not None, "run scripts/precompute_many_queries.py"
    return table


def test_grid_is_small_and_says_how_it_was_made(grid):
    size = resources.files("dpteach").joinpath("data", P.CROSSOVER_TABLE).stat().st_size
    assert size < 100_000
    meta = grid["meta"]
    assert meta["made_by"] == "scripts/precompute_many_queries.py"
    assert (meta["T"], meta["passes"], meta["repeats"]) == (30, 10, 5)
    assert meta["gaussian_delta"] == P.CROSSOVER_DELTA
    assert (meta["workload_seed"], meta["grid_seed"]) == (P.WORKLOAD_SEED, P.GRID_SEED)
    assert meta["universe"] == {"columns": ["age", "sex", "race"], "size": 60}
    assert meta["n"] == 48_842 and meta["created_utc"] and meta["seconds"] > 0
    shape = (len(P.CROSSOVER_EPSILONS), len(P.CROSSOVER_KS), P.CROSSOVER_REPEATS)
    for name in ("mwem", "mwem_last"):
        values = grid[name]
        assert values.shape == shape and values.dtype == np.float64
        assert np.all(np.isfinite(values)) and np.all((values > 0) & (values < 1))


def test_grid_covers_the_pages_sliders(grid):
    from dpapp import widgets
    from dpapp import many_queries as page

    assert tuple(grid["ks"].tolist()) == P.CROSSOVER_KS == page.KS
    assert tuple(grid["epsilons"].tolist()) == P.CROSSOVER_EPSILONS == page.EPSILONS
    assert page.EPSILONS == widgets.EPSILONS                # the app's usual ε slider
    assert page.DEFAULT_K in page.KS and page.DEFAULT_EPSILON in page.EPSILONS
    # every slider position has its charts (the data functions read the grid, no MWEM)
    for k in page.KS[::6]:
        for eps in page.EPSILONS[::6]:
            assert np.isfinite(list(P.crossover_data(k, eps).extra["at"].values())).all()


@pytest.mark.parametrize("k,epsilon", [(1000, 1.0), (10, 0.01), (50, 3.0), (300, 0.15)])
def test_recomputed_entries_match_the_grid(grid, k, epsilon):
    _, hist, queries = P.crossover_workload()
    out = compare_independent(queries.first(k), hist, epsilon, T=P.CROSSOVER_T,
                              passes=P.CROSSOVER_PASSES, repeats=P.CROSSOVER_REPEATS,
                              delta=P.CROSSOVER_DELTA, rng=P.crossover_rng(k, epsilon))
    i, j = P.CROSSOVER_EPSILONS.index(epsilon), P.CROSSOVER_KS.index(k)
    np.testing.assert_allclose(out["mwem"], grid["mwem"][i, j], rtol=1e-9,
                               err_msg=f"entry k={k}, epsilon={epsilon}")
    np.testing.assert_allclose(out["mwem_last"], grid["mwem_last"][i, j], rtol=1e-9,
                               err_msg=f"entry k={k}, epsilon={epsilon}")
