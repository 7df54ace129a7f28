"""The shipped LFR sweep (dpteach/data/lfr_grid.npz, made by scripts/precompute_lfr_grid.py):
it says how it was made, covers the A_z values and data sets it claims, and a refit of two
German entries reproduces the shipped numbers.

Tolerance: on the build the grid was made with (same NumPy, SciPy, scikit-learn and BLAS
kernels, see :func:`dpteach.fairness.lfr_grid.build_info`) a refit repeats the same
arithmetic, and every number must agree to a relative 1e-9 (measured: exactly). On another
build L-BFGS-B may take another path on this non-convex objective; then only the training
objective (within 0.006) and the training yAcc and yDiscrim (within 0.02) are compared —
about three times the largest change seen when the training rows were perturbed by 1e-13
(see GRID_TOLERANCE).
"""

from __future__ import annotations

import functools
from importlib import resources

import numpy as np
import pytest

from dpteach.fairness import lfr_grid as G
from dpteach.fairness.lfr import LFR


@functools.cache
def grid():
    return G.load_lfr_grid()


def test_grid_is_small_and_says_how_it_was_made():
    size = resources.files("dpteach").joinpath("data", G.GRID_FILE).stat().st_size
    assert size < 100_000
    meta = grid().meta
    assert meta["made_by"] == "scripts/precompute_lfr_grid.py"
    assert meta["settings"] == G.GRID_SETTINGS
    assert meta["Az"] == list(G.GRID_AZ)
    assert meta["n_neighbors"] == G.GRID_NEIGHBORS
    assert meta["created_utc"] and meta["seconds"] > 0 and meta["build"]
    assert meta["tolerance"] == G.GRID_TOLERANCE
    # a different build is worth knowing about when a refit below disagrees
    print("grid built with", meta["build"], "; here:", G.build_info())


def test_grid_covers_what_it_claims():
    g = grid()
    assert set(g.results) == set(G.GRID_DATASETS) == set(g.baseline.index)
    sizes = {"adult": (30162, 15060, 102), "german": (700, 300, 60)}
    for name, table in g.results.items():
        np.testing.assert_allclose(table["Az"], sorted(G.GRID_AZ), rtol=0, atol=0)
        assert len(G.GRID_AZ) == 12 and G.GRID_AZ[0] == 0.0
        numbers = table.drop(columns=["n_iter"]).to_numpy()
        assert np.isfinite(numbers).all()
        for col in ("y_acc_test", "y_discrim_test", "y_nn_test", "accuracy_test",
                    "dp_gap_test", "y_acc_train", "y_discrim_train", "L_z"):
            assert ((table[col] >= 0) & (table[col] <= 2)).all(), col
        d = g.meta["datasets"][name]
        assert (d["n_train"], d["n_test"], d["n_features"]) == sizes[name]
        # the parity term does its job on the training rows: A_z = 30 against A_z = 0
        assert table["L_z"].iloc[-1] < 0.01 and table["L_z"].iloc[0] > 0.3
        assert table["y_discrim_train"].iloc[-1] < table["y_discrim_train"].iloc[0] / 5
        # the best objective cannot fall as A_z grows; a fit finds a local optimum, which
        # may be a little worse (Adult, A_z = 1.22 vs 2.72: by 0.0004)
        assert (np.diff(table["objective"]) > -0.002).all()
        assert table["objective"].iloc[-1] > table["objective"].iloc[0]
    for col in ("y_acc_test", "y_discrim_test", "y_nn_test", "accuracy_test", "dp_gap_test"):
        assert g.baseline[col].between(0, 1).all()
    # Adult: LFR with a large A_z halves nothing but the gap; LR is the unconstrained reference
    adult, base = g.results["adult"], g.baseline.loc["adult"]
    assert base["accuracy_test"] > 0.83 and base["y_discrim_test"] > 0.15
    assert adult["y_discrim_test"].iloc[-1] < 0.02 and adult["accuracy_test"].iloc[-1] > 0.8


def test_entry_lookup():
    g = grid()
    row = g.entry("german", 0.245951)
    assert row["Az"] == 0.245951
    with pytest.raises(G.ParameterError, match="Az must be one of"):
        g.entry("german", 0.3)
    with pytest.raises(G.ParameterError, match="dataset"):
        g.entry("compas", 0.0)


@pytest.mark.parametrize("Az", [0.245951, 2.716345])
def test_refit_of_a_german_entry_matches(Az):
    g = grid()
    refit = G.lfr_grid_entry("german", Az)
    dev = g.deviation("german", refit)
    print(f"Az={Az}: same build: {g.same_build()}; largest deviation "
          f"{max(dev, key=dev.get)} = {max(dev.values()):.3g}")
    assert g.matches("german", refit), dev
    if g.same_build():
        assert max(dev.values()) <= 1e-9


def test_the_grid_model_is_the_documented_one():
    # the notebook refits with LFR(**meta["settings"], Az=...): that is what lfr_grid_entry does
    d = G.lfr_grid_data("german")
    m = LFR(**grid().meta["settings"], Az=2.716345).fit(d.X_train, d.y_train,
                                                        sensitive_features=d.a_train)
    row = grid().entry("german", 2.716345)
    assert m.objective_ == pytest.approx(row["objective"], abs=G.GRID_TOLERANCE["objective"])
