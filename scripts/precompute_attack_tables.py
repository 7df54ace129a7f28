"""Precompute the app pages "Audit a mechanism" and "Reconstruction attack" over their sliders.

Both pages show the outcome of a randomised experiment that takes too long for a slider
move (an audit: a few ms to 20 s; a reconstruction: 1 ms to 2 s, and a chart needs a whole
curve of them). This script runs every experiment the sliders can ask for once, seeded, with
the library's own functions, and writes

* ``dpteach/data/audit_page.npz`` — :func:`audit_table`: for every case of
  :data:`dpapp.audit_mechanism.CASES` (the correct mechanisms of
  :mod:`dpteach.audit.cases`, the planted bugs and the floating-point leak), every claimed ε
  of the slider (``CLAIMS``) and every run count (``TRIALS``), the audit
  ``audit_case(name, ε).audit(n, confidence=0.95, rng=default_rng(cell_seed(name, ε, n)))``:
  its numbers (``result_numbers``), and the data of its histogram figure
  (:func:`dpteach.plots.audit.audit_histograms_data`, 40 bins; arrays as float32), or nothing
  where the auditor refuses (too few runs for the claim); with each case's title,
  description, true ε, δ, test and bound;
* ``dpteach/data/reconstruction_page.npz`` — :func:`reconstruction_table`: for every n, k,
  noise level (bounded errors c·√n; DP Laplace with basic composition and DP Gaussian with
  zCDP at δ = 1e-6, each at every total ε of the slider) and decoder of
  :mod:`dpapp.reconstruction_attack`, the number of bits
  :func:`dpteach.attacks.reconstruction.reconstruction_attack` recovers with
  ``rng=default_rng((SEED, n, k))`` (−1 where the library refuses the decoder at that size).

Each file holds a ``meta`` entry (JSON): what was run, the seeds, the library versions, the
date and the time it took. Run from the repository root (one process by default; on the
shared 2-core development machine the audit table took 15 minutes, most of it the exact
discrete Laplace sampler and the sparse vector's Python loop at 10⁵ runs, and the
reconstruction table 4 minutes, most of it the LPs)::

    .venv/bin/python scripts/precompute_attack_tables.py
    .venv/bin/python scripts/precompute_attack_tables.py --only reconstruction --jobs 2

Rerun it after changing a page's slider grid, the auditor, a case, a decoder or the noise
calibration. ``tests/test_tables.py`` recomputes a few entries and checks that the
tables cover the pages' sliders.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import multiprocessing
import platform
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import scipy  # noqa: E402
import streamlit.logger  # noqa: E402

streamlit.logger.set_log_level("error")     # the pages' caches warn "No runtime found"

import dpteach  # noqa: E402
from dpteach._validation import ParameterError  # noqa: E402
from dpapp import audit_mechanism as A  # noqa: E402
from dpapp import reconstruction_attack as R  # noqa: E402
from dpteach.attacks.reconstruction import DECODERS, reconstruction_attack  # noqa: E402
from dpteach.audit.cases import audit_case  # noqa: E402
from dpteach.plots.audit import audit_histograms_data  # noqa: E402
from dpteach import tables  # noqa: E402

DATA = ROOT / "dpteach" / "data"


def _meta(table: str, seconds: float, **extra) -> str:
    return json.dumps({
        "table": table,
        "made_by": "scripts/precompute_attack_tables.py",
        "dpteach": dpteach.__version__,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "streamlit": importlib.metadata.version("streamlit"),
        "python": platform.python_version(),
        "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(seconds, 1),
        **extra,
    })


def _run(func, tasks: list, jobs: int, label: str) -> list:
    """``func(*task)`` for every task, in order; the slow ones first when in parallel."""
    if jobs <= 1:
        out = []
        t0 = time.perf_counter()
        for i, task in enumerate(tasks):
            out.append(func(*task))
            if (i + 1) % 50 == 0 or i + 1 == len(tasks):
                print(f"  {label}: {i + 1}/{len(tasks)} in {time.perf_counter() - t0:.0f} s",
                      flush=True)
        return out
    with multiprocessing.Pool(jobs, initializer=threadpool_limits, initargs=(1,)) as pool:
        return pool.starmap(func, tasks, chunksize=1)


# -------------------------------------------------------------------------- audit
def audit_cell(name: str, claim: float, n_trials: int):
    """One cell: the numbers of the seeded audit and its histogram figure (None if refused)."""
    case = audit_case(name, claim)
    rng = np.random.default_rng(A.cell_seed(name, claim, n_trials))
    try:
        result = case.audit(n_trials, confidence=A.CONFIDENCE, rng=rng)
    except ParameterError:
        return None
    return A.result_numbers(result), audit_histograms_data(result, A.BINS)


def audit_table(jobs: int = 1) -> dict[str, np.ndarray]:
    """Every audit of the "Audit a mechanism" page's grid (see the module docstring)."""
    t0 = time.perf_counter()
    tasks = [(name, float(claim), int(n)) for name in A.CASES for claim in A.CLAIMS
             for n in A.TRIALS]
    outcomes = _run(audit_cell, tasks, jobs, "audits")
    pool: dict = {}
    cells, bounds = [], np.full(len(tasks), np.nan)
    for t, outcome in enumerate(outcomes):
        if outcome is None:
            cells.append(None)
            continue
        numbers, figure = outcome
        cells.append({"result": numbers, "figure": A.figure_record(figure, pool)})
        bounds[t] = numbers["epsilon_lower_bound"]
    info = {}
    for name in A.CASES:
        rows = []
        for claim in A.CLAIMS:
            c = audit_case(name, float(claim))
            rows.append([c.title, c.description, float(c.true_epsilon), float(c.delta), c.test,
                         c.bound])
        info[name] = rows
    # one JSON text per cell (empty: refused), so that the page parses only the cells it shows
    texts = [b"" if cell is None else json.dumps(cell, ensure_ascii=False).encode("utf-8")
             for cell in cells]
    offsets = np.cumsum([0] + [len(t) for t in texts]).astype(np.int64)
    seconds = time.perf_counter() - t0
    return dict(
        cases=np.array(A.CASES), claims=np.array(A.CLAIMS, dtype=float),
        trials=np.array(A.TRIALS, dtype=np.int64),
        bounds=bounds.reshape(len(A.CASES), len(A.CLAIMS), len(A.TRIALS)),
        values=A.pool_values(pool), cells=np.frombuffer(b"".join(texts), dtype=np.uint8),
        cell_offsets=offsets,
        info=np.frombuffer(json.dumps(info, ensure_ascii=False).encode("utf-8"), dtype=np.uint8),
        meta=_meta("audit_page", seconds, confidence=A.CONFIDENCE, bins=A.BINS, seed=A.SEED,
                   seed_rule="numpy.random.default_rng(SeedSequence((seed, zlib.crc32(name), "
                             "round(claim * 1e6), n_trials)))",
                   call="audit_case(name, claim).audit(n_trials, confidence, rng)",
                   refused=int(np.isnan(bounds).sum()), cells=len(tasks),
                   values="bounds float64 [case, claim, trials] (NaN: refused); cells: UTF-8 "
                          "JSON {result, figure} of each cell (case-major, then claim, then "
                          "trials) at cells[cell_offsets[i]:cell_offsets[i + 1]] (empty: "
                          "refused); info: UTF-8 JSON {case: [title, description, true epsilon, "
                          "delta, test, bound] per claim}; values: the figures' arrays, float32"))


# -------------------------------------------------------------------- reconstruction
def reconstruction_cell(n: int, k: int, noise: str, level: float, decoder: str) -> int:
    """Bits recovered by the seeded attack at one slider position (−1 if refused)."""
    try:
        res = reconstruction_attack(**R.attack_kwargs(n, k, noise, level, decoder),
                                    rng=R.attack_rng(n, k))
    except ParameterError:
        return -1
    return int(round(res.fraction * n))


def reconstruction_table(jobs: int = 1) -> dict[str, np.ndarray]:
    """Every attack of the "Reconstruction attack" page's grid (see the module docstring)."""
    t0 = time.perf_counter()
    dp_kinds = tuple(R.DP_SETTINGS)
    bounded = [(n, k, "bounded", c, d) for n in R.NS for k in R.KS for c in R.RELATIVE_NOISE
               for d in DECODERS]
    dp = [(n, k, kind, e, d) for n in R.NS for k in R.KS for kind in dp_kinds
          for e in R.TOTAL_EPSILONS for d in DECODERS]
    values = _run(reconstruction_cell, bounded + dp, jobs, "attacks")
    nb = len(bounded)
    shape_b = (len(R.NS), len(R.KS), len(R.RELATIVE_NOISE), len(DECODERS))
    shape_d = (len(R.NS), len(R.KS), len(dp_kinds), len(R.TOTAL_EPSILONS), len(DECODERS))
    seconds = time.perf_counter() - t0
    return dict(
        ns=np.array(R.NS, dtype=np.int64), ks=np.array(R.KS, dtype=np.int64),
        relative_noise=np.array(R.RELATIVE_NOISE), epsilons=np.array(R.TOTAL_EPSILONS),
        dp_kinds=np.array(dp_kinds), decoders=np.array(DECODERS),
        bounded=np.array(values[:nb], dtype=np.int16).reshape(shape_b),
        dp=np.array(values[nb:], dtype=np.int16).reshape(shape_d),
        meta=_meta("reconstruction_page", seconds, seed=R.SEED,
                   seed_rule="numpy.random.default_rng((seed, n, k))",
                   call="reconstruction_attack(**attack_kwargs(n, k, noise, level, decoder), "
                        "rng)",
                   dp_settings={kind: {"accounting": a, "delta": d}
                                for kind, (a, d) in R.DP_SETTINGS.items()},
                   blas_threads=1,
                   values="int16 bits recovered; bounded [n, k, c, decoder], dp [n, k, kind, "
                          "total epsilon, decoder]; -1: decoder refused at (n, k)"))


TABLES = {"audit": (audit_table, tables.AUDIT_TABLE),
          "reconstruction": (reconstruction_table, tables.RECONSTRUCTION_TABLE)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--only", choices=sorted(TABLES), help="compute one table")
    args = parser.parse_args(argv)
    for name, (make, filename) in TABLES.items():
        if args.only and name != args.only:
            continue
        t0 = time.perf_counter()
        table = make(args.jobs)
        path = DATA / filename
        np.savez_compressed(path, **table)
        print(f"{name}: {time.perf_counter() - t0:.1f} s → {path.relative_to(ROOT)} "
              f"({path.stat().st_size / 1000:.1f} kB)", flush=True)


if __name__ == "__main__":
    with threadpool_limits(limits=1):        # small matrices: BLAS threads only contend
        main()
