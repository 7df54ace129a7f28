"""LAFTR on Adult: the γ sweep shipped as ``dpteach/data/laftr_adult_sweep.csv``.

For every objective of :data:`dpteach.fairness.laftr.OBJECTIVES` (demographic parity,
equalized odds, equal opportunity on Y = 0), every γ in
:data:`~dpteach.fairness.laftr.SWEEP_GAMMAS` and every seed in
:data:`~dpteach.fairness.laftr.SWEEP_SEEDS`, plus the unfair baseline (the same encoder and
classifier, γ = 0, no adversary) for every seed, this runs
:func:`dpteach.fairness.laftr.gamma_sweep_row`: one ``LAFTR(**SWEEP_SETTINGS)`` fit on
Adult's 30,162 training rows (``adult_arrays(include_sex=False)``, A = sex) scored on the
15,060 held-out rows — accuracy, ΔDP, ΔEO (= ΔTPR + ΔFPR), ΔEOpp (Y = 0, the LAFTR paper's
convention) and Hardt's ΔEOpp (Y = 1), the per-group selection rate, TPR and FPR, and the
balanced accuracy of a fresh adversary predicting sex from the held-out rows' Z. It writes
one CSV row per fit, with ``#`` header lines saying how the file was made
(:func:`dpteach.tables.load_gamma_sweep` reads them into ``.attrs["meta"]``), and
prints the table (mean ± sd over seeds, Markdown) and the fit times.

Run from the repository root (about 10-20 minutes on the 2-core development machine)::

    .venv/bin/python benchmarks/laftr_adult.py --jobs 1

``--jobs N`` runs N fits at once (each fit uses one BLAS thread); the fit times in the file
are then those of N concurrent fits. ``--out PATH`` writes elsewhere (e.g. to compare a
rerun with the shipped file). Rerun after changing LAFTR's training, its settings or the data.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpteach.fairness import laftr as L  # noqa: E402
from dpteach import tables  # noqa: E402

GAPS = ("accuracy", "dp_gap", "eo_gap", "eopp_gap", "eopp_gap_y1",
        "adversary_balanced_accuracy")
HEADERS = ("accuracy", "ΔDP", "ΔEO", "ΔEOpp (Y=0)", "ΔEOpp (Y=1)", "adversary bal. acc.")


def jobs_list():
    todo = [("unfair", 0.0, s) for s in L.SWEEP_SEEDS]
    todo += [(o, g, s) for o in L.OBJECTIVES for g in L.SWEEP_GAMMAS for s in L.SWEEP_SEEDS]
    return todo


def run_one(job):
    objective, gamma, seed = job
    return L.gamma_sweep_row(objective, gamma, seed)


def fmt(values):
    v = np.asarray(values, dtype=float)
    return f"{v.mean():.3f} ± {v.std(ddof=1):.3f}" if v.size > 1 else f"{v[0]:.3f}"


def print_table(df):
    print(f"\n### LAFTR on Adult (held-out rows), mean ± sd over seeds "
          f"{list(L.SWEEP_SEEDS)}\n")
    print("| model | γ | " + " | ".join(HEADERS) + " |")
    print("|---|---|" + "---|" * len(HEADERS))
    for objective in ("unfair", *L.OBJECTIVES):
        part = df[df.objective == objective]
        for gamma in sorted(set(part.gamma)):
            cell = part[part.gamma == gamma]
            name = "unfair MLP" if objective == "unfair" else f"LAFTR-{objective.upper()}"
            print(f"| {name} | {gamma:g} | " + " | ".join(fmt(cell[c]) for c in GAPS) + " |")
    print("\nWhich variant has the smallest mean gap, at each γ > 0 "
          "(the pattern of the LAFTR paper: each variant lowers most the gap it targets):\n")
    print("| γ | smallest ΔDP | smallest ΔEO | smallest ΔEOpp (Y=0) |")
    print("|---|---|---|---|")
    for gamma in L.SWEEP_GAMMAS:
        if gamma == 0:
            continue
        means = df[df.gamma == gamma].groupby("objective")[["dp_gap", "eo_gap",
                                                             "eopp_gap"]].mean()
        means = means.drop(index="unfair", errors="ignore")
        if means.empty:
            continue
        best = [f"{means[c].idxmin()} ({means[c].min():.3f})"
                for c in ("dp_gap", "eo_gap", "eopp_gap")]
        print(f"| {gamma:g} | " + " | ".join(best) + " |")
    t = df["fit_seconds"]
    print(f"\nFit time on the 30,162 training rows: median {t.median():.1f} s "
          f"(min {t.min():.1f}, max {t.max():.1f}) over {len(t)} fits.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path,
                        default=ROOT / "dpteach" / "data" / tables.GAMMA_SWEEP_TABLE)
    parser.add_argument("--limit", type=int, default=None,
                        help="run only the first N fits (a smoke test; write to --out /tmp/...)")
    args = parser.parse_args()
    import pandas as pd

    start = time.perf_counter()
    todo = jobs_list()[:args.limit]
    rows = []
    if args.jobs > 1:
        from multiprocessing import Pool
        with Pool(args.jobs) as pool:
            for row in pool.imap(run_one, todo):
                rows.append(row)
                print(f"{len(rows)}/{len(todo)} {row['objective']} γ={row['gamma']:g} "
                      f"seed={row['seed']} {row['fit_seconds']:.1f} s", flush=True)
    else:
        for job in todo:
            rows.append(run_one(job))
            row = rows[-1]
            print(f"{len(rows)}/{len(todo)} {row['objective']} γ={row['gamma']:g} "
                  f"seed={row['seed']} {row['fit_seconds']:.1f} s  acc {row['accuracy']:.3f} "
                  f"ΔDP {row['dp_gap']:.3f} ΔEO {row['eo_gap']:.3f} ΔEOpp "
                  f"{row['eopp_gap']:.3f} adv {row['adversary_balanced_accuracy']:.3f}",
                  flush=True)
    df = pd.DataFrame(rows, columns=L.SWEEP_COLUMNS)
    seconds = time.perf_counter() - start
    meta = {
        "made_by": "benchmarks/laftr_adult.py --jobs " + str(args.jobs),
        "created_utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "seconds": round(seconds, 1),
        "settings": {k: (list(v) if isinstance(v, tuple) else v)
                     for k, v in L.SWEEP_SETTINGS.items()},
        "gammas": list(L.SWEEP_GAMMAS),
        "seeds": list(L.SWEEP_SEEDS),
        "data": ("Adult, dpteach.datasets.adult_arrays(include_sex=False): the original UCI "
                 "train/test split, rows with a missing value dropped; 30,162 training and "
                 "15,060 held-out rows, 102 features in [0, 1]; y = income > 50K; "
                 "A = sex (1 = Female)"),
        "model": ("LAFTR(objective, gamma=gamma, **settings, rng=seed) fitted on the training "
                  "rows; objective 'unfair': objective='dp', gamma=0, adversary_steps=0"),
        "scores": ("held-out rows: accuracy and gaps of predict() "
                   "(dpteach.fairness.metrics: demographic_parity_difference, "
                   "equalized_odds_sum, laftr_equal_opportunity_difference (Y=0), "
                   "equal_opportunity_difference (Y=1)); per-group rates by group_table; "
                   "adversary_balanced_accuracy: adversary_accuracy(transform(X_test), "
                   "sex_test, rng=seed); fit_seconds: LAFTR.fit_seconds_"),
        "build": tables.build_info(),
    }
    floats = [c for c in L.SWEEP_COLUMNS if c not in ("objective", "seed", "fit_seconds")]
    df[floats] = df[floats].round(6)
    df["fit_seconds"] = df["fit_seconds"].round(2)
    header = "".join(f"# {key}: {json.dumps(value, ensure_ascii=False)}\n"
                     for key, value in meta.items())
    args.out.write_text(header + df.to_csv(index=False, lineterminator="\n"))
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes) in {seconds:.0f} s")
    print_table(df)


if __name__ == "__main__":
    main()
