"""The result tables shipped in ``dpteach/data`` and read by :mod:`dpteach.tables`.

Every file of ``dpteach/data`` is a dataset read by :mod:`dpteach.datasets` or a table read by
:mod:`dpteach.tables` (a new table cannot bypass the module: no other module of the library or
the app reads that folder), each loader works with no network, and the loaders cache as they
document. Then, table by table: it says how it was made, covers exactly the grid its notebook
or page offers, recomputed entries are the library's numbers, and the figures and pages read
it instead of computing.

Tolerances.

* Composition and planner (``scripts/precompute_app_tables.py``): the composition table stores
  float64 values computed exactly as :func:`dpteach.accounting.compare.composition_epsilons`
  does, so a recomputed entry must be *equal*. The planner table stores float32 (to stay
  small), so an entry must equal the library's float64 value rounded to float32 — a relative
  error of at most 2⁻²⁴ ≈ 6e-8, far below the 4 significant digits the page shows.
* Fairness thresholds, LAFTR and DP-fairness sweeps: derived in the comments of their tests.
* Many queries (``scripts/precompute_many_queries.py``): an entry is
  :func:`dpteach.queries.mwem.compare_independent` with the seed of
  :func:`dpteach.plots.many_queries.crossover_rng`; on the build the grid was made with (same
  NumPy and BLAS) a recomputation repeats the same arithmetic, so every stored error must
  agree to a relative 1e-9 (measured: exactly). On another build a dot product summed in
  another order could, with negligible probability, flip one exponential-mechanism choice and
  give a different run; then the failure names the entry.
* LFR (``scripts/precompute_lfr_grid.py``): on the build the grid was made with (same NumPy,
  SciPy, scikit-learn and BLAS kernels, see :func:`dpteach.tables.build_info`) a refit repeats
  the same arithmetic, and every number must agree to a relative 1e-9 (measured: exactly). On
  another build L-BFGS-B may take another path on this non-convex objective; then only the
  training objective (within 0.006) and the training yAcc and yDiscrim (within 0.02) are
  compared — about three times the largest change seen when the training rows were perturbed
  by 1e-13 (see :data:`dpteach.fairness.lfr_grid.GRID_TOLERANCE`).
* Audit and reconstruction (``scripts/precompute_attack_tables.py``). Each entry is a seeded run
  of the library (the seed rule is the pages' :func:`~dpapp.audit_mechanism.cell_seed` and
  :func:`~dpapp.reconstruction_attack.attack_rng`), so a recomputation draws the same outputs
  and must give the same counts, events and bits recovered exactly. The audit's probabilities
  and bound go through SciPy's beta quantiles and logarithms: stored as float64 from the same
  computation, they must agree to 1e-12 relative (room for a different SciPy build, not for a
  different draw, which would move them by far more). The histogram figure's arrays are stored
  as float32, so each must equal the library's float64 value rounded to float32 (relative
  error ≤ 2⁻²⁴ ≈ 6e-8, below the 6 significant digits the browser gets). The bits recovered
  depend on floating point only through the rounding of each decoded coordinate at ½; a
  coordinate within rounding error of ½ has negligible probability.
"""

from __future__ import annotations

import functools
import json
import math
import re
import subprocess
import sys
from importlib import metadata, resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpapp import audit_mechanism as AP
from dpapp import reconstruction_attack as RP
from dpteach import tables as T
from dpteach._validation import ParameterError
from dpteach.accounting.calibrate import epsilon_for_noise_multiplier
from dpteach.accounting.compare import composition_epsilons
from dpteach.attacks.reconstruction import (
    DECODERS,
    MAX_LP_ENTRIES,
    MAX_LP_N,
    dp_recovery_bound,
    reconstruction_attack,
)
from dpteach.audit.bounds import max_certifiable_epsilon
from dpteach.audit.cases import BUGS, CORRECT, FLOATING_POINT, audit_case
from dpteach.fairness import dp_impact as di
from dpteach.fairness import laftr as L
from dpteach.fairness import lfr_grid as G
from dpteach.fairness.lfr import LFR
from dpteach.plots import accounting as A
from dpteach.plots import many_queries as P
from dpteach.plots.audit import audit_histograms_data
from dpteach.queries.mwem import compare_independent

pytestmark = pytest.mark.filterwarnings("ignore:No runtime found")

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "dpteach" / "data"
INF = math.inf
#: the files of dpteach/data that describe the data rather than hold it
DOCUMENTATION = {"PROVENANCE.md", "adult.names"}
#: the table files, by the constants of dpteach.tables that name them
TABLE_FILES = {name: value for name, value in vars(T).items()
               if name.endswith("_TABLE") and isinstance(value, str)}
LOADERS = [getattr(T, name) for name in T.__all__ if name.startswith("load_")]


# -------------------------------------------- every file is read by datasets or tables
# A fresh interpreter calls every loader of dpteach.tables and dpteach.datasets with the
# network forbidden (an audit hook refuses every socket event) and records the files of
# dpteach/data each one opens (the hook sees every open(), whatever library calls it).
_PROBE = r"""
import json, os, sys
from pathlib import Path

DATA = Path(sys.argv[1]).resolve()
opened = []


def hook(event, args):
    if event.startswith("socket.") or event.startswith("urllib."):
        raise RuntimeError(f"a loader used the network ({event})")
    if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        path = Path(os.fsdecode(os.fspath(args[0]))).resolve()
        if path.parent == DATA:
            opened.append(path.name)


sys.addaudithook(hook)
import dpteach.datasets
import dpteach.tables

reads = {}
for module in (dpteach.tables, dpteach.datasets):
    for name in module.__all__:
        if name.startswith("load_"):
            del opened[:]
            getattr(module, name)()
            reads[f"{module.__name__}.{name}"] = sorted(set(opened))
print(json.dumps(reads))
"""


@functools.cache
def loader_reads() -> dict:
    """{loader: the files of dpteach/data it opened}, from a fresh offline interpreter."""
    out = subprocess.run([sys.executable, "-c", _PROBE, str(DATA)], capture_output=True,
                         text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.splitlines()[-1])


def unaccounted(files, reads: dict) -> list[str]:
    """The files that no loader reads and that are not documentation."""
    read = set().union(*map(set, reads.values())) if reads else set()
    return sorted(set(files) - read - DOCUMENTATION)


def test_every_data_file_is_a_dataset_or_a_table_read_offline():
    reads = loader_reads()                    # its interpreter forbids the network
    files = sorted(p.name for p in DATA.iterdir() if p.is_file())
    assert not unaccounted(files, reads), unaccounted(files, reads)
    assert DOCUMENTATION <= set(files)
    table_reads = {k: v for k, v in reads.items() if k.startswith("dpteach.tables.")}
    data_reads = {k: v for k, v in reads.items() if k.startswith("dpteach.datasets.")}
    # one loader per table, one file per loader: the files the constants name
    assert len(table_reads) == len(LOADERS) == len(TABLE_FILES) == 10
    assert all(len(v) == 1 for v in table_reads.values()), table_reads
    assert sorted(v[0] for v in table_reads.values()) == sorted(TABLE_FILES.values())
    # the datasets' loaders read data about people, never a table
    assert data_reads and all(data_reads.values())
    assert not set().union(*map(set, data_reads.values())) & set(TABLE_FILES.values())


def test_the_data_file_check_can_fail():
    # Guard against a check that cannot fail: a file no loader reads is reported.
    reads = {"dpteach.datasets.load_german": ["german.data.gz"],
             "dpteach.tables.load_lfr_grid": ["lfr_grid.npz"]}
    assert unaccounted(["german.data.gz", "lfr_grid.npz", "PROVENANCE.md"], reads) == []
    assert unaccounted(["german.data.gz", "lfr_grid.npz", "new_sweep.csv"], reads) == [
        "new_sweep.csv"]
    assert unaccounted(["lfr_grid.npz"], {}) == ["lfr_grid.npz"]


#: how a module would find a shipped file
_READS_DATA = re.compile(r"importlib\.resources|from importlib import resources|"
                         r"resources\.files|__file__|\.joinpath\(")


_NAMES_DATA = re.compile(r"[\"']data[\"'/]|/data\b")


def data_readers(sources: dict) -> list[str]:
    """The modules (name → source) that could read ``dpteach/data`` on their own: they find
    files next to the code and name a ``data`` folder (a page that reads its notebook's
    title from ``notebooks/`` is not one)."""
    return sorted(name for name, text in sources.items()
                  if _READS_DATA.search(text) and _NAMES_DATA.search(text))


def test_only_datasets_and_tables_find_the_data_folder():
    sources = {str(p.relative_to(ROOT)): p.read_text()
               for p in [*(ROOT / "dpteach").rglob("*.py"), *(ROOT / "dpapp").rglob("*.py"),
                         ROOT / "app.py"]}
    assert len(sources) > 60
    assert data_readers(sources) == ["dpteach/datasets.py", "dpteach/tables.py"]
    # and the check can fail: a page opening a table itself is found
    fake = {"dpapp/page.py": 'with resources.files("dpteach").joinpath("data", "t.npz")'}
    assert data_readers(fake) == ["dpapp/page.py"]


def test_every_table_is_documented():
    provenance = (DATA / "PROVENANCE.md").read_text()
    guide = T.__doc__
    assert guide.count("\n* :func:`load_") == len(LOADERS)
    for load in LOADERS:
        (file,) = loader_reads()[f"dpteach.tables.{load.__name__}"]
        doc = load.__doc__
        script = re.search(r"``python ((?:scripts|benchmarks)/\w+\.py)[^`]*``", doc)
        assert script, f"{load.__name__}: its docstring names no command"
        assert (ROOT / script.group(1)).exists(), script.group(1)
        # the module's docstring lists the loader with its file and the same command;
        # PROVENANCE.md describes the file and names its script
        entry = guide.split(f":func:`{load.__name__}`", 1)[1].split("\n* ", 1)[0]
        assert f"``{file}``" in entry and script.group(0) in " ".join(entry.split()), \
            load.__name__
        # PROVENANCE.md lists the file with its loader and command, and describes it
        assert f"| `{file}` | `{load.__name__}` | `{script.group(0)[2:-2]}` |" in provenance, \
            file
        (about,) = [p for p in provenance.split("\n\n") if f"`{file}` (" in p]
        assert script.group(1) in about, (file, script.group(1))


def test_loaders_cache_as_documented():
    # the app's npz tables: read once per process, the same read-only arrays every time
    for load in (T.load_composition_table, T.load_planner_table, T.load_crossover_grid,
                 T.load_mwem_needed, T.load_fairness_table, T.load_reconstruction_table,
                 T.load_audit_table):
        table = load()
        assert load() is table, load.__name__
        arrays = [v for v in table.values() if isinstance(v, np.ndarray)]
        assert arrays and not any(a.flags.writeable for a in arrays), load.__name__
    # the LAFTR sweep: read once, a fresh copy per call (checked in test_gamma_sweep_is_complete)
    assert T.load_gamma_sweep() is not T.load_gamma_sweep()
    # the LFR grid and the DP-fairness sweep: read at each call
    assert T.load_lfr_grid() is not T.load_lfr_grid()
    assert T.load_dp_fairness_sweep() is not T.load_dp_fairness_sweep()


def test_same_build_compares_what_the_grid_recorded(monkeypatch):
    here = {"numpy": "1", "scipy": "2", "scikit_learn": "3", "blas_architectures": ["X"],
            "python": "3.11.7"}
    monkeypatch.setattr(T, "build_info", lambda: dict(here))
    recorded = {k: v for k, v in here.items() if k != "python"}    # grids made before 3.11.7
    grid = T.LFRGrid({"build": recorded}, {}, None)
    assert grid.same_build()
    assert not T.LFRGrid({"build": {**recorded, "blas_architectures": ["Y"]}}, {},
                         None).same_build()
    assert not T.LFRGrid({}, {}, None).same_build()
    assert not T.LFRGrid({"build": {}}, {}, None).same_build()
    assert set(T.build_info()) == set(here)


# ------------------------------------------------ composition and the DP-SGD planner
@pytest.fixture(scope="module")
def comp() -> dict:
    table = T.load_composition_table()
    assert table is not None, "run scripts/precompute_app_tables.py"
    return table


@pytest.fixture(scope="module")
def plan() -> dict:
    table = T.load_planner_table()
    assert table is not None, "run scripts/precompute_app_tables.py"
    return table


def test_pld_tables_are_small_and_say_how_they_were_made(comp, plan):
    total = 0
    for name, table in ((T.COMPOSITION_TABLE, comp), (T.PLANNER_TABLE, plan)):
        total += resources.files("dpteach").joinpath("data", name).stat().st_size
        meta = table["meta"]
        assert meta["made_by"] == "scripts/precompute_app_tables.py"
        assert meta["value_discretization_interval"] == T.APP_PLD_INTERVAL == 1e-3
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
            accountant="pld", value_discretization_interval=T.APP_PLD_INTERVAL)
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
                accountant="pld", value_discretization_interval=T.APP_PLD_INTERVAL)


def _planner_value(sigma: float, q: float, steps: int, delta: float) -> float:
    table = T.load_planner_table()
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


# ------------------------------------------------------------ many queries (MWEM)
@pytest.fixture(scope="module")
def crossover() -> dict:
    table = T.load_crossover_grid()
    assert table is not None, "run scripts/precompute_many_queries.py"
    return table


def test_crossover_grid_is_small_and_says_how_it_was_made(crossover):
    size = resources.files("dpteach").joinpath("data", T.CROSSOVER_TABLE).stat().st_size
    assert size < 100_000
    meta = crossover["meta"]
    assert meta["made_by"] == "scripts/precompute_many_queries.py"
    assert (meta["T"], meta["passes"], meta["repeats"]) == (30, 10, 5)
    assert meta["gaussian_delta"] == P.CROSSOVER_DELTA
    assert (meta["workload_seed"], meta["grid_seed"]) == (P.WORKLOAD_SEED, P.GRID_SEED)
    assert meta["universe"] == {"columns": ["age", "sex", "race"], "size": 60}
    assert meta["n"] == 48_842 and meta["created_utc"] and meta["seconds"] > 0
    shape = (len(P.CROSSOVER_EPSILONS), len(P.CROSSOVER_KS), P.CROSSOVER_REPEATS)
    for name in ("mwem", "mwem_last"):
        values = crossover[name]
        assert values.shape == shape and values.dtype == np.float64
        assert np.all(np.isfinite(values)) and np.all((values > 0) & (values < 1))


def test_crossover_grid_covers_the_pages_sliders(crossover):
    from dpapp import widgets
    from dpapp import many_queries as page

    assert tuple(crossover["ks"].tolist()) == P.CROSSOVER_KS == page.KS
    assert tuple(crossover["epsilons"].tolist()) == P.CROSSOVER_EPSILONS == page.EPSILONS
    assert page.EPSILONS == widgets.EPSILONS                # the app's usual ε slider
    assert page.DEFAULT_K in page.KS and page.DEFAULT_EPSILON in page.EPSILONS
    # every slider position has its charts (the data functions read the grid, no MWEM)
    for k in page.KS[::6]:
        for eps in page.EPSILONS[::6]:
            assert np.isfinite(list(P.crossover_data(k, eps).extra["at"].values())).all()


@pytest.mark.parametrize("k,epsilon", [(1000, 1.0), (10, 0.01), (50, 3.0), (300, 0.15)])
def test_recomputed_crossover_entries_match_the_grid(crossover, k, epsilon):
    _, hist, queries = P.crossover_workload()
    out = compare_independent(queries.first(k), hist, epsilon, T=P.CROSSOVER_T,
                              passes=P.CROSSOVER_PASSES, repeats=P.CROSSOVER_REPEATS,
                              delta=P.CROSSOVER_DELTA, rng=P.crossover_rng(k, epsilon))
    i, j = P.CROSSOVER_EPSILONS.index(epsilon), P.CROSSOVER_KS.index(k)
    np.testing.assert_allclose(out["mwem"], crossover["mwem"][i, j], rtol=1e-9,
                               err_msg=f"entry k={k}, epsilon={epsilon}")
    np.testing.assert_allclose(out["mwem_last"], crossover["mwem_last"][i, j], rtol=1e-9,
                               err_msg=f"entry k={k}, epsilon={epsilon}")


def test_mwem_needed_table_says_how_it_was_made():
    table = T.load_mwem_needed()
    meta = table["meta"]
    assert meta["made_by"] == "scripts/precompute_many_queries.py --only needed"
    assert (meta["T"], meta["passes"], meta["runs"], meta["seed"]) == (
        P.NEEDED_T, P.NEEDED_PASSES, P.NEEDED_RUNS, P.NEEDED_SEED)
    assert meta["universe"] == {"columns": list(P.NEEDED_COLUMNS), "size": 40_320}
    assert meta["n"] == 48_842 and meta["k"] == P.NEEDED_K
    assert tuple(table["epsilons"].tolist()) == P.NEEDED_EPSILONS
    for name in ("histogram", "laplace", "laplace_l1", "gaussian", "mwem", "mwem_last"):
        values = table[name]
        assert values.shape == (len(P.NEEDED_EPSILONS), P.NEEDED_RUNS), name
        assert np.all(np.isfinite(values)) and np.all(values > 0), name
    # the data-free answer n·|q|/|U|, recomputed
    _, hist, queries = P.needed_workload()
    uniform = np.abs(queries.answer(hist) - queries.matrix.sum(axis=1) * 48_842 / hist.size)
    assert math.isclose(float(table["uniform"]), uniform.max() / 48_842, rel_tol=1e-12)


@pytest.mark.parametrize("epsilon,run", [(0.02, 0), (0.2, 9)])
def test_recomputed_mwem_needed_runs_match_the_table(epsilon, run):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "precompute_many_queries", ROOT / "scripts" / "precompute_many_queries.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    table, i = T.load_mwem_needed(), P.NEEDED_EPSILONS.index(epsilon)
    for name, value in script.needed_entry(epsilon, run).items():
        assert math.isclose(value, table[name][i, run], rel_tol=1e-9), (name, epsilon, run)


# ----------------------------------------------------- audit and reconstruction pages
@pytest.fixture(scope="module")
def audit() -> dict:
    return T.load_audit_table()


@pytest.fixture(scope="module")
def rec() -> dict:
    return T.load_reconstruction_table()


def _size(name: str) -> int:
    return resources.files("dpteach").joinpath("data", name).stat().st_size


def test_attack_tables_are_small_and_say_how_they_were_made(audit, rec):
    assert _size(T.AUDIT_TABLE) <= 400_000 and _size(T.RECONSTRUCTION_TABLE) <= 50_000
    for table, seed in ((audit, AP.SEED), (rec, RP.SEED)):
        meta = table["meta"]
        assert meta["made_by"] == "scripts/precompute_attack_tables.py"
        assert meta["seed"] == seed and meta["seed_rule"] and meta["created_utc"]
        assert meta["dpteach"] and meta["numpy"] and meta["scipy"]
    assert audit["meta"]["confidence"] == AP.CONFIDENCE and audit["meta"]["bins"] == AP.BINS
    assert rec["meta"]["dp_settings"] == {k: {"accounting": a, "delta": d}
                                          for k, (a, d) in RP.DP_SETTINGS.items()}


def test_audit_table_covers_the_page(audit):
    assert audit["cases"] == AP.CASES == AP.MECHANISMS + BUGS + FLOATING_POINT
    # the page offers every correct case the table holds; the others are named (UNTABLED:
    # added to the library after the table was made, audited by tests/audit/test_runs.py)
    assert AP.MECHANISMS + AP.UNTABLED == CORRECT and AP.DEFAULT_MECHANISM in AP.MECHANISMS
    assert audit["claims"] == AP.CLAIMS and audit["trials"] == AP.TRIALS
    assert AP.DEFAULT_CLAIM in AP.CLAIMS and AP.DEFAULT_TRIALS in AP.TRIALS
    assert set(AP.BUG_CHOICES) == set(AP.MECHANISMS)
    assert {b for bugs in AP.BUG_CHOICES.values() for b in bugs} == set(BUGS + FLOATING_POINT)
    n_cells = len(AP.CASES) * len(AP.CLAIMS) * len(AP.TRIALS)
    assert audit["cell_offsets"].shape == (n_cells + 1,) and audit["bounds"].shape == (
        len(AP.CASES), len(AP.CLAIMS), len(AP.TRIALS))
    assert 0 < np.isnan(audit["bounds"]).sum() < n_cells / 3


def test_audit_info_is_the_cases(audit):
    for name in AP.CASES:
        for claim in AP.CLAIMS:
            case = audit_case(name, claim)
            info = AP.case_info(name, claim)
            # the shipped true ε was computed on another machine: its last bits may differ
            # (libm's exp/log are not correctly rounded), so it agrees to 1e-12 relative
            assert info.pop("true_epsilon") == pytest.approx(float(case.true_epsilon),
                                                              rel=1e-12, abs=0.0), (name, claim)
            assert info == {
                "title": case.title, "description": case.description,
                "delta": float(case.delta), "test": case.test, "bound": case.bound}, (name, claim)


def test_refused_cells_are_exactly_the_auditors_refusals(audit):
    # the auditor refuses n runs per side when n - n//2 evaluation runs cannot certify more
    # than the claim (audit_runs._refuse_too_few); the page asks the library again there
    for c, name in enumerate(AP.CASES):
        for i, claim in enumerate(AP.CLAIMS):
            delta = AP.case_info(name, claim)["delta"]
            for j, n in enumerate(AP.TRIALS):
                most = max_certifiable_epsilon(n - n // 2, delta=delta, confidence=AP.CONFIDENCE)
                refused = math.isnan(audit["bounds"][c, i, j])
                assert refused == (most <= claim), (name, claim, n)
                flat = (c * len(AP.CLAIMS) + i) * len(AP.TRIALS) + j
                empty = audit["cell_offsets"][flat + 1] == audit["cell_offsets"][flat]
                assert empty == refused
    for name, claim, n in (("laplace", 10.0, 1000), ("gaussian", 7.0, 3000),
                           ("report_noisy_max", 10.0, 100_000)):
        with pytest.raises(ParameterError, match="too few"):
            AP.audit_cell(name, claim, n)


def _check_audit_entry(name: str, claim: float, n: int) -> None:
    rng = np.random.default_rng(AP.cell_seed(name, claim, n))
    result = audit_case(name, claim).audit(n, confidence=AP.CONFIDENCE, rng=rng)
    shipped, figure = AP.audit_cell(name, claim, n)
    lib = AP.result_numbers(result)
    for field, value in lib.items():
        if isinstance(value, float) and not isinstance(value, bool):
            assert shipped[field] == pytest.approx(value, rel=1e-12, abs=0), (name, field)
        else:
            assert shipped[field] == value, (name, claim, n, field)
    ref = audit_histograms_data(result, AP.BINS)
    assert figure.title == ref.title and figure.rules == ref.rules
    assert (figure.x_title, figure.y_title, figure.extra) == (ref.x_title, ref.y_title, ref.extra)
    assert [s.key for s in figure.series] == [s.key for s in ref.series]
    for got, want in zip(figure.series, ref.series):
        assert (got.label, got.kind, got.colour, got.width) == (want.label, want.kind,
                                                                want.colour, want.width)
        for a, b in ((got.x, want.x), (got.y, want.y)):
            assert np.array_equal(a, b.astype(np.float32).astype(float)), (name, got.key)


def test_audit_entries_match_the_library(audit):
    # every case at a few fixed cells, then random cheap cells (≤ 3,000 runs; the exact
    # discrete Laplace sampler and the sparse vector's loop cost ~0.1 s per 1,000 runs)
    for name in AP.CASES:
        _check_audit_entry(name, 1.0, 1_000)
    _check_audit_entry("laplace", 3.0, 100_000)
    _check_audit_entry("rr_wrong_epsilon", 0.5, 30_000)
    rng = np.random.default_rng(20241114)
    cells = [(c, i, j) for c in range(len(AP.CASES)) for i in range(len(AP.CLAIMS))
             for j in range(len(AP.TRIALS)) if AP.TRIALS[j] <= 3_000
             and not math.isnan(audit["bounds"][c, i, j])]
    for t in rng.choice(len(cells), size=8, replace=False):
        c, i, j = cells[t]
        _check_audit_entry(AP.CASES[c], AP.CLAIMS[i], AP.TRIALS[j])


def test_the_audits_are_honest_in_both_directions(audit):
    # correct mechanisms: each 95% bound exceeds the pair's true ε (≤ the claim) with
    # probability ≤ 5%; over the N audited cells the count of exceedances is at most
    # Binomial(N, 0.05): mean 0.05 N, sd √(0.0475 N) (N ≈ 600: 30 ± 5.3), so 10% of N
    # is more than 5 sd away
    b = audit["bounds"]
    correct = [AP.CASES.index(c) for c in AP.MECHANISMS]
    vals = b[correct]
    ok = ~np.isnan(vals)
    claims = np.broadcast_to(np.array(AP.CLAIMS)[None, :, None], vals.shape)
    assert (vals[ok] > claims[ok]).sum() <= 0.10 * ok.sum()
    # every bug is caught at ε = 1 with 10⁵ runs
    i, j = AP.CLAIMS.index(1.0), AP.TRIALS.index(100_000)
    for name in BUGS + FLOATING_POINT:
        assert b[AP.CASES.index(name), i, j] > 1.0, name


def test_the_page_reads_the_audit_table(monkeypatch, audit):
    def refuse(*args, **kwargs):
        raise AssertionError("an audit was run on a slider position")

    monkeypatch.setattr(AP, "audit_case", refuse)
    rng = np.random.default_rng(3)
    for _ in range(30):
        c, i, j = (int(rng.integers(len(g))) for g in (AP.CASES, AP.CLAIMS, AP.TRIALS))
        if math.isnan(audit["bounds"][c, i, j]):
            continue
        result, figure = AP.audit_cell(AP.CASES[c], AP.CLAIMS[i], AP.TRIALS[j])
        assert result["epsilon_lower_bound"] == audit["bounds"][c, i, j]
        assert figure.series
        assert AP.convergence_figure(AP.CASES[c], AP.CLAIMS[i], AP.TRIALS[j]) is not None


def test_reconstruction_table_covers_the_page(rec):
    assert rec["ns"] == RP.NS and rec["ks"] == RP.KS
    assert rec["relative_noise"] == RP.RELATIVE_NOISE and rec["epsilons"] == RP.TOTAL_EPSILONS
    assert rec["dp_kinds"] == tuple(RP.DP_SETTINGS) and rec["decoders"] == DECODERS
    assert rec["bounded"].shape == (len(RP.NS), len(RP.KS), len(RP.RELATIVE_NOISE),
                                    len(DECODERS))
    assert rec["dp"].shape == (len(RP.NS), len(RP.KS), len(RP.DP_SETTINGS),
                               len(RP.TOTAL_EPSILONS), len(DECODERS))
    assert (RP.DEFAULT_N in RP.NS and RP.DEFAULT_K in RP.KS and RP.DEFAULT_C in RP.RELATIVE_NOISE
            and RP.DEFAULT_EPSILON in RP.TOTAL_EPSILONS)


def test_refused_entries_are_exactly_the_librarys_refusals(rec):
    for i, n in enumerate(RP.NS):
        for j, k in enumerate(RP.KS):
            for m, decoder in enumerate(DECODERS):
                refused = decoder != "least_squares" and (n > MAX_LP_N or n * k > MAX_LP_ENTRIES)
                for values in (rec["bounded"][i, j, :, m], rec["dp"][i, j, :, :, m]):
                    assert ((values < 0).all() if refused else
                            ((values >= 0) & (values <= n)).all()), (n, k, decoder)
                if refused:
                    with pytest.raises(ParameterError, match="n·k"):
                        RP.fraction_at(n, k, "bounded", 0.3, decoder)


def _check_reconstruction_entry(n, k, noise, level, decoder) -> None:
    res = reconstruction_attack(**RP.attack_kwargs(n, k, noise, level, decoder),
                                rng=RP.attack_rng(n, k))
    assert RP.fraction_at(n, k, noise, level, decoder) == res.fraction, (n, k, noise, level,
                                                                         decoder)


def test_reconstruction_entries_match_the_library():
    _check_reconstruction_entry(100, 400, "bounded", 0.3, "least_squares")
    _check_reconstruction_entry(50, 200, "bounded", 1.0, "lp_linf")
    _check_reconstruction_entry(50, 100, "dp_laplace", 1000.0, "lp_l1")
    _check_reconstruction_entry(400, 1600, "dp_gaussian", 200.0, "least_squares")
    rng = np.random.default_rng(20241115)
    for _ in range(12):
        n, k = int(rng.choice(RP.NS)), int(rng.choice(RP.KS))
        noise = str(rng.choice(RP.NOISES))
        levels = RP.RELATIVE_NOISE if noise == "bounded" else RP.TOTAL_EPSILONS
        level = float(rng.choice(levels))
        # the LPs only where they take well under a second (n·k ≤ 40,000)
        decoder = str(rng.choice(DECODERS)) if n * k <= 40_000 else "least_squares"
        _check_reconstruction_entry(n, k, noise, level, decoder)


def test_the_fundamental_law_holds_in_the_table(rec):
    b, d = rec["bounded"], rec["dp"]
    n = np.array(RP.NS)[:, None]
    # errors ≤ 0.1·√n with k ≥ 4n queries: least squares recovers ≥ 95% of the bits
    for i, nn in enumerate(RP.NS):
        for j, k in enumerate(RP.KS):
            if k >= 4 * nn:
                for c in range(RP.RELATIVE_NOISE.index(0.1) + 1):
                    assert b[i, j, c, 0] >= 0.95 * nn, (nn, k)
    # DP answers at total ε ≤ 0.5: the mean fraction over every (n, k, decoder) stays near
    # the ceiling (e^ε + δ)/(1 + e^ε) ≤ 0.623 (each bit is guessed right with at most that
    # probability; averaging ~100 runs of n ≥ 50 bits leaves a standard error < 0.01)
    for e in range(RP.TOTAL_EPSILONS.index(0.5) + 1):
        eps = RP.TOTAL_EPSILONS[e]
        vals = d[:, :, :, e, :]
        frac = vals / n[:, :, None, None]
        ok = vals >= 0
        assert frac[ok].mean() <= dp_recovery_bound(eps, 1e-6) + 0.03, eps
    assert n.size == len(RP.NS)


def test_the_page_reads_the_reconstruction_table(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("an attack was run on a slider position")

    monkeypatch.setattr(RP, "reconstruction_attack", refuse)
    rng = np.random.default_rng(4)
    for _ in range(30):
        n, k = int(rng.choice(RP.NS)), int(rng.choice(RP.KS))
        noise = str(rng.choice(RP.NOISES))
        level = float(rng.choice(RP.RELATIVE_NOISE if noise == "bounded"
                                 else RP.TOTAL_EPSILONS))
        RP.noise_figure(n, k, noise, level, "least_squares")
        RP.queries_figure(n, k, noise, level, "least_squares")
        assert 0 <= RP.fraction_at(n, k, noise, level, "least_squares") <= 1


# ------------------------------------------------------- fairness: group thresholds
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

    table = T.load_fairness_table()
    assert table is not None, "run scripts/precompute_app_tables.py --only fairness"
    size = resources.files("dpteach").joinpath("data", T.FAIRNESS_TABLE).stat().st_size
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


# ------------------------------------------------------------------------ LFR sweep
@functools.cache
def lfr_grid():
    return T.load_lfr_grid()


def test_lfr_grid_is_small_and_says_how_it_was_made():
    size = resources.files("dpteach").joinpath("data", T.LFR_GRID_TABLE).stat().st_size
    assert size < 100_000
    meta = lfr_grid().meta
    assert meta["made_by"] == "scripts/precompute_lfr_grid.py"
    assert meta["settings"] == G.GRID_SETTINGS
    assert meta["Az"] == list(G.GRID_AZ)
    assert meta["n_neighbors"] == G.GRID_NEIGHBORS
    assert meta["created_utc"] and meta["seconds"] > 0 and meta["build"]
    assert meta["tolerance"] == G.GRID_TOLERANCE
    # a different build is worth knowing about when a refit below disagrees
    print("grid built with", meta["build"], "; here:", T.build_info())


def test_lfr_grid_covers_what_it_claims():
    g = lfr_grid()
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


def test_lfr_entry_lookup():
    g = lfr_grid()
    row = g.entry("german", 0.245951)
    assert row["Az"] == 0.245951
    with pytest.raises(ParameterError, match="Az must be one of"):
        g.entry("german", 0.3)
    with pytest.raises(ParameterError, match="dataset"):
        g.entry("compas", 0.0)


def test_a_refit_is_compared_number_by_number():
    # every number of the shipped row against a refit-shaped dict: deviations are |difference|,
    # finite for any finite number (the largest double included); a non-finite or non-numeric
    # one is refused by name instead of giving an infinite or NaN deviation
    g = lfr_grid()
    row = g.entry("german", 0.0)
    keys = [k for k in row.index if k not in ("fit_seconds", "n_iter", "Az")]
    for value in (0.0, 5e-324, 1.7976931348623157e308):
        dev = g.deviation("german", {**{k: value for k in keys}, "Az": 0.0})
        assert all(d == abs(float(row[k]) - value) for k, d in dev.items())
        assert not g.matches("german", {**{k: value for k in keys}, "Az": 0.0})
    for bad in (math.nan, math.inf, 10**400, "0.5", None, True):
        with pytest.raises(ParameterError, match=r"entry\["):
            g.deviation("german", {**{k: 0.5 for k in keys}, "Az": 0.0, keys[0]: bad})
    with pytest.raises(ParameterError, match="entry must be a dict"):
        g.deviation("german", [0.5])


@pytest.mark.parametrize("Az", [0.245951, 2.716345])
def test_refit_of_a_german_entry_matches(Az):
    g = lfr_grid()
    refit = G.lfr_grid_entry("german", Az)
    dev = g.deviation("german", refit)
    print(f"Az={Az}: same build: {g.same_build()}; largest deviation "
          f"{max(dev, key=dev.get)} = {max(dev.values()):.3g}")
    assert g.matches("german", refit), dev
    if g.same_build():
        assert max(dev.values()) <= 1e-9


def test_the_lfr_grid_model_is_the_documented_one():
    # the notebook refits with LFR(**meta["settings"], Az=...): that is what lfr_grid_entry does
    d = G.lfr_grid_data("german")
    m = LFR(**lfr_grid().meta["settings"], Az=2.716345).fit(d.X_train, d.y_train,
                                                        sensitive_features=d.a_train)
    row = lfr_grid().entry("german", 2.716345)
    assert m.objective_ == pytest.approx(row["objective"], abs=G.GRID_TOLERANCE["objective"])


# ---------------------------------------------------------------------- LAFTR sweep
def test_gamma_sweep_is_complete():
    df = T.load_gamma_sweep()
    assert tuple(df.columns) == L.SWEEP_COLUMNS
    meta = df.attrs["meta"]
    assert meta["settings"] == {k: (list(v) if isinstance(v, tuple) else v)
                                for k, v in L.SWEEP_SETTINGS.items()}
    assert meta["gammas"] == list(L.SWEEP_GAMMAS) and meta["seeds"] == list(L.SWEEP_SEEDS)
    for objective in L.OBJECTIVES:
        part = df[df.objective == objective]
        assert sorted(set(part.gamma)) == sorted(L.SWEEP_GAMMAS)
        assert len(part) == len(L.SWEEP_GAMMAS) * len(L.SWEEP_SEEDS)
    assert (df[df.objective == "unfair"].gamma == 0).all()
    assert len(df[df.objective == "unfair"]) == len(L.SWEEP_SEEDS)
    # γ = 0: the same encoder and classifier for every objective and the baseline
    zero = df[df.gamma == 0].set_index(["objective", "seed"])
    for objective in L.OBJECTIVES:
        for seed in L.SWEEP_SEEDS:
            assert zero.loc[(objective, seed), "accuracy"] == zero.loc[("unfair", seed),
                                                                         "accuracy"]
    df.loc[0, "accuracy"] = -1.0                                  # a copy: the cache stays
    assert T.load_gamma_sweep().loc[0, "accuracy"] != -1.0


def test_one_gamma_sweep_row_refits():
    # One full fit with the row's exact settings (SWEEP_SETTINGS, Adult's whole training
    # split, rng=0): about 6 s. The file stores 6 decimals. On the build that made the file
    # (meta["build"]) the refit repeats the arithmetic: every number to 1e-6 (fit_seconds
    # aside). On another build the adversarial game may take another path; inputs scaled by
    # 1 ± 1e-13 left accuracy and ΔDP unchanged to 4 decimals here, and across the three
    # seeds of this γ the sd is 0.003 (accuracy) and 0.012 (ΔDP): so elsewhere accuracy
    # must agree to 0.015 and ΔDP to 0.05 (about 5 and 4 seed standard deviations).
    df = T.load_gamma_sweep()
    row = df[(df.objective == "dp") & (df.gamma == 4.0) & (df.seed == 0)].iloc[0]
    new = L.gamma_sweep_row("dp", 4.0, 0)
    same_build = df.attrs["meta"]["build"] == T.build_info()
    for column in L.SWEEP_COLUMNS[3:-1]:
        if same_build:
            assert new[column] == pytest.approx(row[column], abs=1e-6), column
    assert new["accuracy"] == pytest.approx(row["accuracy"], abs=0.015)
    assert new["dp_gap"] == pytest.approx(row["dp_gap"], abs=0.05)


# ------------------------------------------------------------------ DP-fairness sweep
@functools.cache
def dp_sweep():
    return T.load_dp_fairness_sweep()


def test_dp_fairness_sweep_holds_what_it_documents():
    t = dp_sweep()
    fits = t.groupby(["method", "epsilon"])["seed"].apply(sorted)
    expected = {(m, e) for m in ("dpsgd", "objective") for e in (*di.SWEEP_EPSILONS, INF)}
    assert set(fits.index) == expected | {("sgd", INF)}
    assert all(s == list(di.SWEEP_SEEDS) for s in fits)
    d = di.adult_group_data()
    for grouping, labels in d.groups_test.items():
        for group, n in pd.Series(labels).value_counts().items():
            assert (t[f"count:{grouping}={group}"] == n).all()
    assert (t["count:all"] == 15_060).all()
    dp = t[t["method"] == "dpsgd"]
    assert (dp["epsilon_spent"] <= dp["epsilon"] * (1 + 1e-9)).all()
    assert (dp.loc[np.isinf(dp["epsilon"]), "noise_multiplier"] == 0).all()


def test_dp_fairness_sweep_reproduces():
    # the deterministic entry (exact minimiser) to one test row per group (BLAS rounding), and
    # DP-SGD at ε = 0.3 with fresh seeds at compare_with_sweep's t-test
    d = di.adult_group_data()
    row = di.fit_and_score("objective", INF, seed=0, data=d)
    ref = dp_sweep()[(dp_sweep()["method"] == "objective") & np.isinf(dp_sweep()["epsilon"])]
    for key, value in row.items():
        if key.startswith("correct:"):
            assert abs(value - ref[key].iloc[0]) <= 1, key
    live = di.dp_fairness_sweep([0.3], methods=["dpsgd"], seeds=[1000, 1001], data=d,
                                include_nonprivate=False)
    check = di.compare_with_sweep(live, dp_sweep())
    assert check["ok"].all(), check[~check["ok"]]
