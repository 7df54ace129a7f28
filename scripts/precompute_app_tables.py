"""Precompute the slow numbers of the app pages (PLD, fairness) over their exact slider grids.

The pages "Composition & budget" and "DP-SGD planner" show privacy-loss-distribution
(PLD) numbers from Google's dp_accounting that take from 10 ms to several seconds
each (k Laplace queries at large k·ε₀; T DP-SGD steps at small σ), and the optimal
composition bound, O(k) per k. A slider move must
not wait for them, so this script computes them once, over exactly the values the
pages' sliders offer (imported from :mod:`dpteach.plots.accounting`), and writes

* ``dpteach/data/composition_tables.npz`` — :func:`composition_table`: total ε of k
  Laplace queries by PLD, and of k Laplace or Gaussian queries by the optimal (KOV)
  theorem (O(k) each), for every per-query ε₀ or σ, every k the page shows (the
  slider's k's and the figure's k grid) and every total δ of the slider (float64,
  bit-for-bit what :func:`dpteach.accounting.composition_epsilons` returns);
* ``dpteach/data/dpsgd_planner_pld.npz`` — :func:`planner_table`: ε of DP-SGD by PLD
  for every σ, every run (q, T) = (batch/n, round(epochs/q)) of the sliders with
  T ≤ 10⁶ (longer runs wait for a button on the page) and every δ (float32, to keep
  the file small: relative error ≤ 2⁻²⁴ ≈ 6e-8, far below the 4 digits shown);
* ``dpteach/data/fairness_adult_thresholds.npz`` — :func:`fairness_table`: the test-split
  scores of the "Fairness metrics" page's Adult model (so the page never trains), and its
  accuracy and fairness gaps (:mod:`dpteach.fairness.metrics`) at every pair of the two
  threshold sliders' values (float32).

Each file holds a ``meta`` entry (JSON): the dpteach, dp-accounting, NumPy and Python
versions, the PLD discretisation, the date and the time the table took (the fairness
table: scikit-learn and fairlearn instead of dp-accounting, and the model's settings).

Run it after changing a slider grid, the PLD discretisation or dp-accounting (the
fairness table: after changing its model, its threshold grid or the metrics module)::

    .venv/bin/python scripts/precompute_app_tables.py            # every table, 2 processes
    .venv/bin/python scripts/precompute_app_tables.py --jobs 1 --only composition

``tests/test_tables.py`` recomputes random entries with the library and checks that
the tables cover the grids.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import math
import multiprocessing
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import dpteach  # noqa: E402
from dpteach._validation import ParameterError  # noqa: E402
from dpteach.accounting.pld import PLDAccountant  # noqa: E402
from dpteach.accounting.compare import composition_epsilons
from dpteach.plots import accounting as A  # noqa: E402
from dpteach.plots import fairness as F  # noqa: E402
from dpteach import tables  # noqa: E402

DATA = ROOT / "dpteach" / "data"


def byte_planes(values: np.ndarray) -> np.ndarray:
    """``values`` (float) as a (itemsize, size) uint8 array: row i holds byte i of every value.

    The high bytes (sign, exponent, leading mantissa) of neighbouring values are alike,
    so zip compresses these rows ~25 % better than the values themselves;
    :func:`dpteach.tables.load_planner_table` (and ``load_composition_table``, and
    ``load_fairness_table``) undo it, exactly.
    """
    v = np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("<")).reshape(-1)
    return np.ascontiguousarray(v.view(np.uint8).reshape(v.size, v.itemsize).T)


def pack(table: dict) -> dict:
    """The value arrays (3-D) of ``table`` as byte planes, their dtype and shape in ``meta``."""
    out = dict(table)
    planes = {}
    for name, values in table.items():
        if getattr(values, "ndim", 0) == 3:
            out[name] = byte_planes(values)
            planes[name] = {"dtype": values.dtype.newbyteorder("<").str,
                            "shape": list(values.shape)}
    meta = json.loads(table["meta"])
    meta["byte_planes"] = planes
    out["meta"] = np.array(json.dumps(meta))
    return out


def _meta(table: str, seconds: float, **extra) -> str:
    return json.dumps({
        "table": table,
        "made_by": "scripts/precompute_app_tables.py",
        "dpteach": dpteach.__version__,
        "dp_accounting": importlib.metadata.version("dp-accounting"),
        "numpy": np.__version__,
        "python": platform.python_version(),
        "value_discretization_interval": tables.APP_PLD_INTERVAL,
        "pessimistic_estimate": True,
        "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(seconds, 1),
        **extra,
    })


# ------------------------------------------------------------------------ composition
def composition_cell(eps0: float, k: int, deltas=A.COMPOSITION_DELTAS) -> list[float]:
    """Total ε of k Laplace(1/ε₀) queries by PLD at each δ (NaN where it is refused).

    The same computation as ``composition_epsilons([k], epsilon=eps0, delta=δ,
    methods=("pld",))`` (one PLD, the dp_accounting overflow to ∞ capped at kε₀), but
    the PLD is composed once and read at every δ.
    """
    acc = PLDAccountant(tables.APP_PLD_INTERVAL)
    try:
        acc.compose_laplace(1.0, sensitivity=eps0, count=k)
    except ParameterError:
        return [math.nan] * len(deltas)
    out = []
    for d in deltas:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            pld = acc.get_epsilon(d)
        out.append(min(pld, k * eps0))
    return out


def optimal_row(mechanism: str, value: float, delta: float, ks) -> list[float]:
    """The optimal (KOV) total ε for each k: the library's own call."""
    kw = dict(epsilon=value) if mechanism == "laplace" else dict(sigma=value)
    return composition_epsilons(ks, mechanism=mechanism, delta=delta, methods=("optimal",),
                                **kw)["optimal"].tolist()


def composition_table(jobs: int = 2) -> dict[str, np.ndarray]:
    """The slow methods of the composition page over its grid.

    ``laplace_pld`` (seconds at large kε₀) and ``laplace_optimal`` / ``gaussian_optimal``
    (the exact KOV bound costs O(k): ~50 ms for the figure's k's), each indexed
    [ε₀ or σ, k, δ].
    """
    t0 = time.perf_counter()
    epsilons = np.array(A.COMPOSITION_EPSILONS)
    sigmas = np.array(A.COMPOSITION_SIGMAS)
    ks = A.composition_table_ks()
    deltas = np.array(A.COMPOSITION_DELTAS)
    cells = [(float(e), int(k)) for e in epsilons for k in ks]
    # the expensive cells (large kε₀) first, so that the processes finish together
    order = sorted(range(len(cells)), key=lambda i: -cells[i][0] * cells[i][1])
    rows = [("laplace", float(e), float(d)) for e in epsilons for d in deltas]
    rows += [("gaussian", float(s), float(d)) for s in sigmas for d in deltas]
    with multiprocessing.Pool(jobs) as pool:
        values = pool.starmap(composition_cell, [cells[i] for i in order], chunksize=1)
        optimal = pool.starmap(optimal_row, [(*r, ks) for r in rows], chunksize=4)
    pld = np.empty((len(cells), deltas.size))
    for i, v in zip(order, values):
        pld[i] = v
    optimal = np.array(optimal)                               # rows × ks
    n_lap = epsilons.size * deltas.size
    lap_opt = optimal[:n_lap].reshape(epsilons.size, deltas.size, ks.size).transpose(0, 2, 1)
    gau_opt = optimal[n_lap:].reshape(sigmas.size, deltas.size, ks.size).transpose(0, 2, 1)
    seconds = time.perf_counter() - t0
    return dict(epsilons=epsilons, sigmas=sigmas, ks=ks.astype(np.int64), deltas=deltas,
                laplace_pld=pld.reshape(epsilons.size, ks.size, deltas.size),
                laplace_optimal=np.ascontiguousarray(lap_opt),
                gaussian_optimal=np.ascontiguousarray(gau_opt),
                meta=_meta("composition", seconds, values="float64, [ε₀ or σ, k, δ]; "
                           "laplace_pld = min(PLD ε, kε₀)"))


# ------------------------------------------------------------------------ DP-SGD planner
def planner_cell(sigma: float, q: float, steps: int, deltas=A.PLANNER_DELTAS) -> list[float]:
    """ε of ``steps`` Poisson-subsampled Gaussian steps by PLD at each δ (NaN if refused).

    What ``epsilon_for_noise_multiplier(..., accountant="pld")`` returns, with the PLD
    composed once and read at every δ.
    """
    acc = PLDAccountant(tables.APP_PLD_INTERVAL)
    try:
        acc.step(noise_multiplier=sigma, sample_rate=q, steps=steps)
    except ParameterError:
        return [math.nan] * len(deltas)
    return [acc.get_epsilon(d) for d in deltas]


def planner_table(jobs: int = 2) -> dict[str, np.ndarray]:
    """PLD ε of DP-SGD over the planner's grid (runs of at most 10⁶ steps)."""
    t0 = time.perf_counter()
    sigmas = np.array(A.PLANNER_SIGMAS)
    runs = A.planner_table_runs()
    deltas = np.array(A.PLANNER_DELTAS)
    cells = [(float(s), q, t) for s in sigmas for q, t in runs]
    # small σ is the slow end: start there
    order = sorted(range(len(cells)), key=lambda i: cells[i][0])
    with multiprocessing.Pool(jobs) as pool:
        values = pool.starmap(planner_cell, [cells[i] for i in order], chunksize=1)
    eps = np.empty((len(cells), deltas.size))
    for i, v in zip(order, values):
        eps[i] = v
    seconds = time.perf_counter() - t0
    return dict(sigmas=sigmas, sample_rates=np.array([q for q, _ in runs]),
                steps=np.array([t for _, t in runs], dtype=np.int64), deltas=deltas,
                epsilon=eps.reshape(sigmas.size, len(runs), deltas.size).astype(np.float32),
                meta=_meta("dpsgd_planner_pld", seconds, mechanism="DP-SGD",
                           values="PLD ε, float32, [σ, run, δ]",
                           max_steps=A.PLANNER_TABLE_MAX_STEPS))


# ------------------------------------------------------------------------ fairness
def fairness_row(i: int, score: np.ndarray, y: np.ndarray, sex: np.ndarray) -> np.ndarray:
    """:func:`dpteach.plots.fairness.gap_values` (accuracy and every gap, each a call of
    :mod:`dpteach.fairness.metrics`) for women's threshold ``F.THRESHOLDS[i]`` and every
    men's threshold: shape (len(F.GRID_NAMES), len(F.THRESHOLDS))."""
    tf = F.THRESHOLDS[i]
    out = np.empty((len(F.GRID_NAMES), len(F.THRESHOLDS)))
    for j, tm in enumerate(F.THRESHOLDS):
        y_pred = np.where(sex == 1, score >= tf, score >= tm).astype(np.int64)
        out[:, j] = list(F.gap_values(y, y_pred, sensitive_features=sex).values())
    return out


def fairness_table(jobs: int = 2) -> dict[str, np.ndarray]:
    """The "Fairness metrics" page: the Adult model's test scores and its gaps at every
    pair of group thresholds.

    The model is ``LogisticRegression(**F.ADULT_MODEL)`` fitted on the training split of
    :func:`dpteach.datasets.adult_arrays` (sex among the features, no fairness
    constraint); ``score`` is its P(income > $50K) on the 15,060 test people (rounded to
    float32, which the grid is computed from), with ``y`` and ``sex`` (uint8). ``grid``
    [name, i, j] holds :data:`F.GRID_NAMES` for women's threshold ``F.THRESHOLDS[i]`` and
    men's ``F.THRESHOLDS[j]`` (float32, from the metrics module); ``group_rates`` [group
    (women, men), rate (selection rate, TPR, FPR), threshold] the points of the ROC curves
    (float32, from the metrics module).
    """
    from sklearn.linear_model import LogisticRegression

    from dpteach.datasets import adult_arrays
    from dpteach.fairness import metrics as M

    t0 = time.perf_counter()
    a = adult_arrays()
    train, test = a.split == "train", a.split == "test"
    model = LogisticRegression(**F.ADULT_MODEL).fit(a.X[train], a.y[train])
    # float32 (55 kB instead of 111 kB; 7 digits): the grid is computed from these values
    score = model.predict_proba(a.X[test])[:, 1].astype(np.float32).astype(np.float64)
    y, sex = a.y[test].astype(np.int64), a.sex[test].astype(np.int64)
    with multiprocessing.Pool(jobs) as pool:
        rows = pool.starmap(fairness_row, [(i, score, y, sex) for i in range(len(F.THRESHOLDS))],
                            chunksize=4)
    grid = np.stack(rows, axis=1)                          # [name, women's t, men's t]
    rates = np.empty((2, 3, len(F.THRESHOLDS)))
    for row, group in enumerate(F.GROUPS):                 # women, then men
        yg, sg = y[sex == group], score[sex == group]
        for k, t in enumerate(F.THRESHOLDS):
            pred = (sg >= t).astype(np.int64)
            rates[row, :, k] = (M.selection_rate(yg, pred), M.true_positive_rate(yg, pred),
                                M.false_positive_rate(yg, pred))
    seconds = time.perf_counter() - t0
    meta = json.dumps({
        "table": "fairness_adult_thresholds",
        "made_by": "scripts/precompute_app_tables.py",
        "dpteach": dpteach.__version__,
        "scikit_learn": importlib.metadata.version("scikit-learn"),
        "fairlearn": importlib.metadata.version("fairlearn"),
        "numpy": np.__version__,
        "python": platform.python_version(),
        "model": {"LogisticRegression": F.ADULT_MODEL, "data": "adult_arrays(), train split",
                  "sensitive": "sex (1 = female), among the features",
                  "n_iter": int(model.n_iter_[0])},
        "grid_names": list(F.GRID_NAMES),
        "values": "score float32 (the grid is computed from these values); grid float32 "
                  "[name, women's threshold, men's threshold]; group_rates float32 "
                  "[women/men, selection rate/TPR/FPR, threshold]",
        "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(seconds, 1),
    })
    return dict(thresholds=np.array(F.THRESHOLDS), score=score.astype(np.float32),
                y=y.astype(np.uint8), sex=sex.astype(np.uint8), grid=grid.astype(np.float32),
                group_rates=rates.astype(np.float32), meta=meta)


TABLES = {"composition": (composition_table, tables.COMPOSITION_TABLE),
          "planner": (planner_table, tables.PLANNER_TABLE),
          "fairness": (fairness_table, tables.FAIRNESS_TABLE)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--only", choices=sorted(TABLES), help="compute one table")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    for name, (make, filename) in TABLES.items():
        if args.only and name != args.only:
            continue
        t0 = time.perf_counter()
        table = make(args.jobs)
        path = DATA / filename
        np.savez_compressed(path, **pack(table))
        n_values = sum(v.size for v in table.values() if getattr(v, "ndim", 0) == 3)
        print(f"{name}: {n_values} values in {time.perf_counter() - t0:.1f} s "
              f"→ {path.relative_to(ROOT)} ({path.stat().st_size / 1000:.1f} kB)", flush=True)
    print(f"total: {time.perf_counter() - start:.1f} s with {args.jobs} process(es)")


if __name__ == "__main__":
    main()
