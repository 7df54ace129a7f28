"""Precompute MWEM's errors over the "Many queries" page's slider grid.

The page (and notebook 22) compares answering k random counting queries independently
(exact expectations, computed live) with MWEM's synthetic data at the same total ε. MWEM
takes 10-100 ms per run, so a slider move must not run it: this script runs
:func:`dpteach.queries.mwem.compare_independent` (T = 30 rounds, 10 extra passes, 5 runs) for every
k of :data:`dpteach.plots.many_queries.CROSSOVER_KS` and every ε of
:data:`~dpteach.plots.many_queries.CROSSOVER_EPSILONS` (the sliders' values), on
:func:`~dpteach.plots.many_queries.crossover_workload` (Adult, age × sex × race, the first k
of 10,000 seeded random queries), each entry with its own generator
(:func:`~dpteach.plots.many_queries.crossover_rng`), and writes
``dpteach/data/many_queries_grid.npz``:

* ``ks``, ``epsilons`` — the grid;
* ``mwem``, ``mwem_last`` — float64, shape (ε, k, run): the largest error (fraction of n)
  of MWEM's output (the average of its T distributions) and of its last distribution;
* ``meta`` — JSON: how (T, passes, runs, δ of the Gaussian line, seeds, universe, n), the
  library versions, the date and the time it took.

Run from the repository root (about 2-4 minutes on the 2-core development machine)::

    .venv/bin/python scripts/precompute_many_queries.py

``--only needed`` makes the second table, ``dpteach/data/many_queries_needed.npz`` (notebook
22's setting where MWEM is needed, a few minutes): on
:func:`~dpteach.plots.many_queries.needed_workload` (40,320 cells, 240 conjunctions), for
every ε of :data:`~dpteach.plots.many_queries.NEEDED_EPSILONS` and each of
``NEEDED_RUNS`` runs (seed ``(NEEDED_SEED, run, round(ε·10⁶))``), the largest error
(fraction of n) of the noisy histogram, independent Laplace (basic and ℓ1 calibration),
independent Gaussian (zCDP, δ = 1e-6) and MWEM (its average and its last distribution),
each an array of shape (ε, run); ``uniform`` is the data-free answer n·|q|/|U|.

Rerun it after changing the grid, the workload or :func:`dpteach.queries.mwem.mwem`.
``tests/test_tables.py`` recomputes a few entries and checks the grid covers the
page's sliders.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpteach.queries.independent import (gaussian_answers, histogram_answers,  # noqa: E402
                                         laplace_answers)
from dpteach.queries.linear import max_error  # noqa: E402
from dpteach.queries.mwem import compare_independent, mwem as run_mwem  # noqa: E402
from dpteach.plots import many_queries as P  # noqa: E402
from dpteach import tables  # noqa: E402


def grid_entry(k: int, epsilon: float) -> dict:
    """One (k, ε) entry: :func:`compare_independent` with the grid's settings and seed."""
    _, hist, queries = P.crossover_workload()
    return compare_independent(queries.first(k), hist, epsilon, T=P.CROSSOVER_T,
                               passes=P.CROSSOVER_PASSES, repeats=P.CROSSOVER_REPEATS,
                               delta=P.CROSSOVER_DELTA, rng=P.crossover_rng(k, epsilon))


def needed_rng(epsilon: float, run: int) -> np.random.Generator:
    """The generator of one run of the MWEM-needed table."""
    return np.random.default_rng((P.NEEDED_SEED, run, int(round(epsilon * 1e6))))


def needed_entry(epsilon: float, run: int) -> dict:
    """One run at ε: the largest error (fraction of n) of every method, one generator."""
    _, hist, queries = P.needed_workload()
    rng = needed_rng(epsilon, run)
    out = {name: max_error(queries, hist, answers=answer(rng)) for name, answer in (
        ("histogram", lambda g: histogram_answers(queries, hist, epsilon, rng=g)),
        ("laplace", lambda g: laplace_answers(queries, hist, epsilon, rng=g)),
        ("laplace_l1", lambda g: laplace_answers(queries, hist, epsilon, calibration="l1",
                                                 rng=g)),
        ("gaussian", lambda g: gaussian_answers(queries, hist, epsilon, P.CROSSOVER_DELTA,
                                                rng=g)))}
    res = run_mwem(queries, hist, epsilon=epsilon, T=P.NEEDED_T, passes=P.NEEDED_PASSES, rng=rng)
    out["mwem"] = max_error(queries, hist, synthetic=res.synthetic)
    out["mwem_last"] = max_error(queries, hist, synthetic=res.last)
    return out


NEEDED_METHODS = ("histogram", "laplace", "laplace_l1", "gaussian", "mwem", "mwem_last")


def main_needed() -> None:
    start = time.perf_counter()
    universe, hist, queries = P.needed_workload()
    shape = (len(P.NEEDED_EPSILONS), P.NEEDED_RUNS)
    table = {m: np.empty(shape) for m in NEEDED_METHODS}
    for i, eps in enumerate(P.NEEDED_EPSILONS):
        for run in range(P.NEEDED_RUNS):
            for m, value in needed_entry(eps, run).items():
                table[m][i, run] = value
        print(f"ε = {eps:<5g}", "  ".join(f"{m} {np.median(table[m][i]) * hist.sum():7.0f}"
                                          for m in NEEDED_METHODS), flush=True)
    n = float(hist.sum())
    uniform = max_error(queries, hist, answers=queries.matrix.sum(axis=1) * n / hist.size)
    meta = {
        "made_by": "scripts/precompute_many_queries.py --only needed",
        "created_utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "seconds": round(time.perf_counter() - start, 1),
        "T": P.NEEDED_T, "passes": P.NEEDED_PASSES, "runs": P.NEEDED_RUNS,
        "gaussian_delta": P.CROSSOVER_DELTA, "seed": P.NEEDED_SEED,
        "seed_rule": "numpy.random.default_rng((seed, run, round(epsilon * 1e6)))",
        "universe": {"columns": list(universe.columns), "size": universe.size},
        "k": queries.k, "n": n,
        "queries": "dpteach.queries.linear.conjunction_queries(universe, k, rng=seed)",
        "error": "max over the k queries of |q·x − estimate| / n",
        "dpteach": importlib.metadata.version("dpteach"),
        "numpy": np.__version__,
        "python": platform.python_version(),
    }
    out = ROOT / "dpteach" / "data" / tables.NEEDED_TABLE
    np.savez_compressed(out, epsilons=np.asarray(P.NEEDED_EPSILONS), uniform=uniform,
                        meta=np.asarray(json.dumps(meta)), **table)
    print(f"wrote {out} ({out.stat().st_size:,} bytes) in {meta['seconds']} s")


def main() -> None:
    start = time.perf_counter()
    universe, hist, _ = P.crossover_workload()
    shape = (len(P.CROSSOVER_EPSILONS), len(P.CROSSOVER_KS), P.CROSSOVER_REPEATS)
    mwem, last = np.empty(shape), np.empty(shape)
    for i, eps in enumerate(P.CROSSOVER_EPSILONS):
        t0 = time.perf_counter()
        for j, k in enumerate(P.CROSSOVER_KS):
            entry = grid_entry(k, eps)
            mwem[i, j], last[i, j] = entry["mwem"], entry["mwem_last"]
        print(f"ε = {eps:<6g} {time.perf_counter() - t0:5.1f} s   MWEM error at k = 10, "
              f"1,000, 10,000: {mwem[i, 0].mean():.4f} {mwem[i, 12].mean():.4f} "
              f"{mwem[i, -1].mean():.4f}", flush=True)
    meta = {
        "made_by": "scripts/precompute_many_queries.py",
        "created_utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "seconds": round(time.perf_counter() - start, 1),
        "T": P.CROSSOVER_T, "passes": P.CROSSOVER_PASSES, "repeats": P.CROSSOVER_REPEATS,
        "gaussian_delta": P.CROSSOVER_DELTA,
        "workload_seed": P.WORKLOAD_SEED, "grid_seed": P.GRID_SEED,
        "seed_rule": "numpy.random.default_rng((grid_seed, k, round(epsilon * 1e6)))",
        "universe": {"columns": list(universe.columns), "size": universe.size},
        "n": float(hist.sum()),
        "queries": "dpteach.queries.linear.random_queries(universe, 10000, "
                   "rng=workload_seed).first(k)",
        "error": "max over the k queries of |q·x − q·y| / n, y = MWEM's output (mwem) or "
                 "its last distribution (mwem_last)",
        "dpteach": importlib.metadata.version("dpteach"),
        "numpy": np.__version__,
        "python": platform.python_version(),
    }
    out = ROOT / "dpteach" / "data" / tables.CROSSOVER_TABLE
    np.savez_compressed(out, ks=np.asarray(P.CROSSOVER_KS, dtype=np.int64),
                        epsilons=np.asarray(P.CROSSOVER_EPSILONS), mwem=mwem, mwem_last=last,
                        meta=np.asarray(json.dumps(meta)))
    print(f"wrote {out} ({out.stat().st_size:,} bytes) in {meta['seconds']} s")


if __name__ == "__main__":
    with threadpool_limits(limits=1):        # small matrices: BLAS threads only contend
        main_needed() if sys.argv[1:] == ["--only", "needed"] else main()
