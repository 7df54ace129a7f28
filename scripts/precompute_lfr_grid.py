"""Precompute the LFR A_z sweep shipped as ``dpteach/data/lfr_grid.npz``.

For Adult (A = sex) and German credit (A = age > 25), on the splits of
:func:`dpteach.fairness.lfr_grid.lfr_grid_data`, this fits
``LFR(**GRID_SETTINGS, Az=Az)`` for every A_z in :data:`~dpteach.fairness.lfr_grid.GRID_AZ`
(:func:`~dpteach.fairness.lfr_grid.lfr_grid_entry`) and the logistic-regression baseline
(:func:`~dpteach.fairness.lfr_grid.lfr_grid_baseline`), and stores their scores (yAcc, yDiscrim,
yNN, accuracy and parity gap, training objective and its terms) with a ``meta`` entry (JSON)
saying exactly how: settings, A_z values, data sets and splits, library versions, date and run
time. :func:`dpteach.tables.load_lfr_grid` reads it; ``tests/test_tables.py``
refits two German entries and checks that they match.

Run from the repository root (about 3–5 minutes on the 2-core development machine, nearly all of
it the 12 fits on Adult's 30,162 training rows)::

    .venv/bin/python scripts/precompute_lfr_grid.py

Rerun it after changing the LFR objective, its optimiser, the settings or the data sets.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpteach.fairness import lfr_grid as lfr  # noqa: E402
from dpteach import tables  # noqa: E402


def main() -> None:
    start = time.perf_counter()
    out: dict[str, np.ndarray] = {}
    datasets = {}
    for name in lfr.GRID_DATASETS:
        data = lfr.lfr_grid_data(name)
        t0 = time.perf_counter()
        base = lfr.lfr_grid_baseline(name)
        for key, value in base.items():
            out[f"baseline/{name}/{key}"] = np.array(value)
        rows = []
        for Az in lfr.GRID_AZ:
            row = lfr.lfr_grid_entry(name, Az)
            rows.append(row)
            print(f"{name:7s} Az={Az:<10g} {row['fit_seconds']:5.1f} s  objective "
                  f"{row['objective']:.4f}  yAcc {row['y_acc_test']:.3f}  yDiscrim "
                  f"{row['y_discrim_test']:.3f}  yNN {row['y_nn_test']:.3f}", flush=True)
        for key in rows[0]:
            dtype = np.int64 if key == "n_iter" else np.float64
            out[f"{name}/{key}"] = np.array([r[key] for r in rows], dtype=dtype)
        datasets[name] = {
            "n_train": int(data.X_train.shape[0]), "n_test": int(data.X_test.shape[0]),
            "n_features": int(data.X_train.shape[1]), "sensitive": data.sensitive,
            "label": "income > 50K" if name == "adult" else "good credit (credit_risk == 1)",
            "split": ("the original UCI train/test split, rows with a missing value dropped"
                      if name == "adult" else
                      "numpy.random.default_rng(0).permutation(1000): first 700 train, "
                      "last 300 held out"),
            "base_rate_train": float(data.y_train.mean()),
            "group1_share_train": float(data.a_train.mean()),
            "seconds": round(time.perf_counter() - t0, 1),
        }
    seconds = time.perf_counter() - start
    meta = {
        "made_by": "scripts/precompute_lfr_grid.py",
        "created_utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "seconds": round(seconds, 1),
        "settings": lfr.GRID_SETTINGS,
        "Az": list(lfr.GRID_AZ),
        "n_neighbors": lfr.GRID_NEIGHBORS,
        "datasets": datasets,
        "model": "dpteach.fairness.lfr.LFR(**settings, Az=Az) fitted on the training rows",
        "baseline": "sklearn LogisticRegression(C=1.0, max_iter=1000) on the same features",
        "scores": ("y_acc/y_discrim/y_nn: Zemel et al. (2013) measures of the probabilities "
                   "yhat (dpteach.fairness.metrics); accuracy/dp_gap: of yhat > 1/2; "
                   "objective, L_x, L_y, L_z: the training objective of the kept start"),
        "python": platform.python_version(),
        "pandas": importlib.metadata.version("pandas"),
        "build": tables.build_info(),
        "tolerance": lfr.GRID_TOLERANCE,
        "machine": platform.machine(),
    }
    out["meta"] = np.array(json.dumps(meta))
    path = ROOT / "dpteach" / "data" / tables.LFR_GRID_TABLE
    np.savez_compressed(path, **out)
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size:,} bytes) in {seconds:.0f} s")


if __name__ == "__main__":
    main()
