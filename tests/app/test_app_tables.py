"""The tables shipped for the app pages (dpteach/data/*.npz, made by
scripts/precompute_app_tables.py): they hold the library's numbers (PLD, and the optimal
composition bound), say how they were made, cover every slider position of the pages,
and the data functions use them instead of computing.

Tolerances: the composition table stores float64 values computed exactly as
:func:`dpteach.accounting.composition_epsilons` does, so a recomputed entry must be
*equal*. The planner table stores float32 (to stay small), so an entry must equal the
library's float64 value rounded to float32 — a relative error of at most 2⁻²⁴ ≈ 6e-8,
far below the 4 significant digits the page shows.
"""

from __future__ import annotations

from importlib import metadata, resources

import numpy as np
import pytest

from dpteach._validation import ParameterError
from dpteach.accounting.compare import composition_epsilons
from dpteach.accounting.calibrate import epsilon_for_noise_multiplier
from dpteach.plots import accounting as A

pytestmark = pytest.mark.filterwarnings("ignore:No runtime found")


@pytest.fixture(scope="module")
def comp() -> dict:
    table = A.load_composition_table()
    assert table is not None, "run scripts/precompute_app_tables.py"
    return table


@pytest.fixture(scope="module")
def plan() -> dict:
    table = A.load_planner_table()
    assert table is not None, "run scripts/precompute_app_tables.py"
    return table


def test_tables_are_small_and_say_how_they_were_made(comp, plan):
    total = 0
    for name, table in ((A.COMPOSITION_TABLE, comp), (A.PLANNER_TABLE, plan)):
        total += resources.files("dpteach").joinpath("data", name).stat().st_size
        meta = table["meta"]
        assert meta["made_by"] == "scripts/precompute_app_tables.py"
        assert meta["value_discretization_interval"] == A.APP_PLD_INTERVAL == 1e-3
        assert meta["pessimistic_estimate"] is True
        assert meta["dpteach"] and meta["dp_accounting"] and meta["created_utc"]
        # the recomputation tests below are the real guard; a different dp-accounting
        # is worth knowing about when they fail
        print(name, meta["dp_accounting"], "installed:", metadata.version("dp-accounting"))
    assert total <= 300_000
    for name, values in comp.items():
        if name != "meta" and values.ndim == 3:      # the composition: nothing refused
            assert not np.isnan(values).any(), name
    assert comp["laplace_pld"].dtype == np.float64 and plan["epsilon"].dtype == np.float32


def test_composition_table_covers_the_page(comp):
    from dpapp import composition as page

    assert tuple(comp["epsilons"].tolist()) == A.COMPOSITION_EPSILONS
    assert tuple(comp["sigmas"].tolist()) == page.SIGMAS == A.COMPOSITION_SIGMAS
    assert tuple(comp["deltas"].tolist()) == page.DELTAS == A.COMPOSITION_DELTAS
    tabled = set(comp["ks"].tolist())
    for k in page.KS:                       # every k of the slider, with the figure's grid
        data = A.composition_data(A.COMPOSITION_K_MAX, epsilon=0.1, methods=("basic",),
                                  mark_k=k)
        assert set(data.extra["ks"].tolist()) <= tabled


def test_planner_table_covers_the_page(plan):
    from dpapp import dpsgd_planner as page

    assert tuple(plan["sigmas"].tolist()) == page.SIGMAS
    assert tuple(plan["deltas"].tolist()) == page.DELTAS
    runs = set(zip(plan["sample_rates"].tolist(), plan["steps"].tolist()))
    n_positions = 0
    for n in page.DATASET_SIZES:
        for b in page.BATCH_SIZES:
            for e in page.EPOCHS:
                if b > n:
                    continue                # a warning instead
                q, t = A.planner_run(n, b, e)
                if t > A.PLANNER_TABLE_MAX_STEPS:
                    continue                # the PLD button
                n_positions += 1
                assert (q, t) in runs
                assert {(q, s) for s in A.planner_pld_steps(n, b, e)} <= runs
    assert n_positions > 900


def test_random_composition_entries_match_the_library(comp):
    rng = np.random.default_rng(20240611)
    ks, deltas = comp["ks"], comp["deltas"]
    for mechanism, method, axis in (("laplace", "pld", "epsilons"),
                                    ("laplace", "optimal", "epsilons"),
                                    ("gaussian", "optimal", "sigmas")):
        values, grid = comp[f"{mechanism}_{method}"], comp[axis]
        assert values.shape == (grid.size, ks.size, deltas.size)
        # PLD: k·ε₀ ≤ 100 keeps each recomputation under ~0.1 s
        cells = [(i, j) for i in range(grid.size) for j in range(ks.size)
                 if method != "pld" or grid[i] * ks[j] <= 100]
        picks = [cells[c] for c in rng.choice(len(cells), size=5, replace=False)]
        if method == "pld":                          # k·ε₀ = 3000: dp_accounting overflows,
            picks.append((int(np.argmax(grid)), int(np.argmax(ks == 300))))   # capped at kε₀
        for i, j in picks:
            d = int(rng.integers(deltas.size))
            kw = {axis[:-1]: float(grid[i])}
            lib = composition_epsilons([int(ks[j])], mechanism=mechanism, delta=float(deltas[d]),
                                       methods=(method,), **kw)[method][0]
            # to 1e-12 relative, not bit for bit: the table was made on another machine and
            # an earlier version of gaussian_epsilon's root search (both solve to ~1e-13)
            assert values[i, j, d] == pytest.approx(lib, rel=1e-12, abs=0.0), (
                mechanism, method, grid[i], ks[j], deltas[d])


def test_random_planner_entries_match_the_library(plan):
    rng = np.random.default_rng(20240612)
    sigmas, deltas = plan["sigmas"], plan["deltas"]
    # σ ≥ 0.8 keeps each recomputation under ~0.1 s
    cells = [(s, r) for s in range(sigmas.size) if sigmas[s] >= 0.8
             for r in range(plan["steps"].size)]
    for c in rng.choice(len(cells), size=8, replace=False):
        s, r = cells[c]
        d = int(rng.integers(deltas.size))
        lib = epsilon_for_noise_multiplier(
            noise_multiplier=float(sigmas[s]), delta=float(deltas[d]),
            sample_rate=float(plan["sample_rates"][r]), steps=int(plan["steps"][r]),
            accountant="pld", value_discretization_interval=A.APP_PLD_INTERVAL)
        assert plan["epsilon"][s, r, d] == np.float32(lib)
        assert abs(float(plan["epsilon"][s, r, d]) - lib) <= 2.0**-24 * lib


def test_planner_nan_entries_are_the_librarys_refusals(plan):
    # NaN marks a run whose PLD grid the library refuses to build (ParameterError, in
    # milliseconds): the page then shows that message, as it would without the table
    bad = np.argwhere(np.isnan(plan["epsilon"]))
    assert 0 < len(bad) < 0.01 * plan["epsilon"].size
    cells = {(int(s), int(r)) for s, r, _ in bad}
    for s, r in sorted(cells)[:3]:
        assert np.isnan(plan["epsilon"][s, r]).all()          # all δ: the PLD is not built
        with pytest.raises(ParameterError, match="PLD grid"):
            epsilon_for_noise_multiplier(
                noise_multiplier=float(plan["sigmas"][s]), delta=1e-5,
                sample_rate=float(plan["sample_rates"][r]), steps=int(plan["steps"][r]),
                accountant="pld", value_discretization_interval=A.APP_PLD_INTERVAL)


def _planner_value(sigma: float, q: float, steps: int, delta: float) -> float:
    table = A.load_planner_table()
    r = [i for i, (qq, t) in enumerate(zip(table["sample_rates"], table["steps"]))
         if qq == q and t == steps]
    return float(table["epsilon"][list(table["sigmas"]).index(sigma), r[0],
                                  list(table["deltas"]).index(delta)])


def _no_slow_computation(monkeypatch):
    """Make the tabled computations in the plots module fail (so only the table answers)."""
    real_comp, real_dpsgd = A.composition_epsilons, A.dpsgd_epsilons

    def comp(*args, methods=(), mechanism="laplace", **kw):
        slow = set(methods) & set(A.COMPOSITION_TABLED[mechanism])
        assert not slow, f"{slow} computed on a slider position"
        return real_comp(*args, methods=methods, mechanism=mechanism, **kw)

    def dpsgd(*args, accountants=(), **kw):
        assert "pld" not in accountants, "PLD computed on a slider position"
        return real_dpsgd(*args, accountants=accountants, **kw)

    monkeypatch.setattr(A, "composition_epsilons", comp)
    monkeypatch.setattr(A, "dpsgd_epsilons", dpsgd)


def test_data_functions_read_slider_positions_from_the_tables(monkeypatch):
    _no_slow_computation(monkeypatch)
    from dpapp import composition as cpage
    from dpapp import dpsgd_planner as ppage

    rng = np.random.default_rng(7)
    for _ in range(20):
        k = int(rng.choice(cpage.KS))
        eps0 = float(rng.choice(A.COMPOSITION_EPSILONS))
        delta = float(rng.choice(cpage.DELTAS))
        data = A.composition_data(A.COMPOSITION_K_MAX, epsilon=eps0, delta=delta, mark_k=k)
        assert np.isfinite(data.series_by_key("pld").y).all()
        sigma = float(rng.choice(cpage.SIGMAS))
        data = A.composition_data(A.COMPOSITION_K_MAX, mechanism="gaussian", epsilon=None,
                                  sigma=sigma, delta=delta, mark_k=k)
        assert set(data.extra["at_mark"]) == set(A.METHODS)
    n_checked = 0
    while n_checked < 20:
        n, b, e = (int(rng.choice(g)) for g in (ppage.DATASET_SIZES, ppage.BATCH_SIZES,
                                                ppage.EPOCHS))
        if b > n:
            continue
        q, t = A.planner_run(n, b, e)
        if t > A.PLANNER_TABLE_MAX_STEPS:
            continue
        sigma, delta = float(rng.choice(ppage.SIGMAS)), float(rng.choice(ppage.DELTAS))
        if any(np.isnan(_planner_value(sigma, q, s, delta))
               for s in A.planner_pld_steps(n, b, e)):
            continue                                # refused by the library: computed
        data = A.dpsgd_epsilon_data(max(t, 2), noise_multiplier=sigma, sample_rate=q,
                                    delta=delta, pld_steps=A.planner_pld_steps(n, b, e),
                                    mark_steps=t)
        assert "pld" in data.extra["at_mark"]
        n_checked += 1


def test_off_grid_arguments_are_computed():
    # ε₀ = 0.123, σ = 1.23 and q = 0.0123 are not slider values: the library computes them
    data = A.composition_data(50, epsilon=0.123, delta=1e-5, methods=("pld", "optimal"),
                              mark_k=7)
    ks = data.extra["ks"]
    lib = composition_epsilons(ks, epsilon=0.123, delta=1e-5, methods=("pld", "optimal"))
    for m in ("pld", "optimal"):
        assert np.array_equal(data.series_by_key(m).y, lib[m])
    data = A.composition_data(50, mechanism="gaussian", epsilon=None, sigma=1.23,
                              methods=("optimal",))
    lib = composition_epsilons(data.extra["ks"], mechanism="gaussian", sigma=1.23,
                               methods=("optimal",))["optimal"]
    assert np.array_equal(data.series_by_key("optimal").y, lib)
    data = A.dpsgd_epsilon_data(100, noise_multiplier=1.1, sample_rate=0.0123, delta=1e-5,
                                pld_steps=[10, 100])
    lib = [epsilon_for_noise_multiplier(noise_multiplier=1.1, delta=1e-5, sample_rate=0.0123,
                                        steps=t, accountant="pld",
                                        value_discretization_interval=1e-3) for t in (10, 100)]
    assert data.series_by_key("pld").y.tolist() == lib


def test_fairness_table_is_a_refit_and_the_metrics_at_every_slider_pair():
    # The "Fairness metrics" page's table (scripts/precompute_app_tables.py, fairness_table):
    # * score: the model refitted here (LogisticRegression(**F.ADULT_MODEL) on the Adult
    #   training split, Newton's method to a gradient of 1e-10) gives the shipped scores to
    #   1e-7: they are stored as float32 (rounding ≤ 2⁻²⁵ ≈ 3e-8 for a score below 1), and
    #   the exact minimiser is found again to ~1e-12;
    # * grid and group_rates: float32 of the metrics module's float64 values, so a
    #   recomputed entry rounded to float32 must be equal (relative error ≤ 2⁻²⁴);
    # * the grid covers both sliders of the page; the file stays small.
    from sklearn.linear_model import LogisticRegression

    from dpapp import fairness_metrics as page
    from dpteach.datasets import adult_arrays
    from dpteach.fairness import metrics as M
    from dpteach.plots import fairness as F

    table = F.load_fairness_table()
    assert table is not None, "run scripts/precompute_app_tables.py --only fairness"
    size = resources.files("dpteach").joinpath("data", F.FAIRNESS_TABLE).stat().st_size
    assert size <= 250_000
    meta = table["meta"]
    assert meta["made_by"] == "scripts/precompute_app_tables.py"
    assert meta["model"]["LogisticRegression"] == F.ADULT_MODEL
    assert meta["grid_names"] == list(F.GRID_NAMES)
    # the sliders' grid: min, max and step of the page give exactly the table's thresholds
    low, high, default, step = page.SLIDER
    slider = [round(low + k * step, 2) for k in range(round((high - low) / step) + 1)]
    assert slider == list(F.THRESHOLDS) == table["thresholds"].tolist() and default in slider

    a = adult_arrays()
    train, test = a.split == "train", a.split == "test"
    model = LogisticRegression(**F.ADULT_MODEL).fit(a.X[train], a.y[train])
    refit = model.predict_proba(a.X[test])[:, 1]
    assert table["score"].shape == refit.shape == (15_060,)
    assert np.max(np.abs(table["score"] - refit)) <= 1e-7
    assert np.array_equal(table["y"], a.y[test]) and np.array_equal(table["sex"], a.sex[test])

    rng = np.random.default_rng(20240613)
    score, y, sex = table["score"], table["y"], table["sex"]
    kw = {"sensitive_features": sex}
    for i, j in [(50, 50), (0, 100), (100, 0)] + [tuple(rng.integers(101, size=2))
                                                  for _ in range(5)]:
        tf, tm = F.THRESHOLDS[i], F.THRESHOLDS[j]
        y_pred = np.where(sex == 1, score >= tf, score >= tm).astype(int)
        lib = [float(np.mean(y_pred == y)),
               M.demographic_parity_difference(y, y_pred, **kw),
               M.equalized_odds_difference(y, y_pred, agg="worst_case", **kw),
               M.equalized_odds_difference(y, y_pred, agg="mean", **kw),
               M.equalized_odds_sum(y, y_pred, **kw),
               M.equal_opportunity_difference(y, y_pred, **kw),
               M.laftr_equal_opportunity_difference(y, y_pred, **kw)]
        assert table["grid"][:, i, j].tolist() == [float(np.float32(v)) for v in lib], (tf, tm)
    for row, group in enumerate((1, 0)):                       # women, then men
        yg, sg = y[sex == group], score[sex == group]
        for k in rng.integers(101, size=3):
            pred = (sg >= F.THRESHOLDS[k]).astype(int)
            lib = [M.selection_rate(yg, pred), M.true_positive_rate(yg, pred),
                   M.false_positive_rate(yg, pred)]
            assert table["group_rates"][row, :, k].tolist() == [float(np.float32(v))
                                                                for v in lib]
