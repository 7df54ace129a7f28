"""Who pays for differential privacy on Adult: per-group accuracy across ε (not a timing benchmark).

The experiment of Bagdasaryan, Poursaeed & Shmatikov (NeurIPS 2019) on the UCI Adult data
(:func:`dpteach.fairness.dp_impact.adult_group_data`: 30,162 training and 15,060 test rows,
104 features) with the course's two private learners, both fitting a logistic model:

* DP-SGD (``DPSGDClassifier``, no hidden layer, expected batch 256, 5 epochs, learning rate
  0.5, clipping norm C = 1, σ calibrated by RDP for each target ε at δ = 1e-5), at ε = ∞
  clipping without noise, and its clipping-free, noise-free baseline ``"sgd"``;
* objective perturbation (``PrivateLogisticRegression``, Λ = 1e-4, row bound √13, no
  intercept), at ε = ∞ the exact non-private minimiser;

at ε in ``SWEEP_EPSILONS`` and ∞, each with the seeds ``SWEEP_SEEDS``. For every fit it
counts the correct test predictions overall and in every group of ``sex``, ``race`` and
``sex_income`` and writes one row per fit to ``dpteach/data/dp_fairness_adult.csv``
(:func:`dpteach.tables.load_dp_fairness_sweep` reads it; notebook 18 re-runs
a few configurations live and checks it against the file). Then it prints the per-group mean
accuracy ± sd over seeds and the drop against the non-private baseline.

Run (about three minutes on one core)::

    .venv/bin/python benchmarks/dp_fairness_adult.py            # writes the CSV, prints tables
    .venv/bin/python benchmarks/dp_fairness_adult.py --dry-run  # prints only
"""

from __future__ import annotations

import argparse
import math
import time
from importlib import resources

import pandas as pd

from dpteach import tables
from dpteach.fairness import dp_impact as di


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dry-run", action="store_true", help="do not write the CSV")
    args = ap.parse_args(argv)
    start = time.perf_counter()
    table = di.dp_fairness_sweep(di.SWEEP_EPSILONS, methods=di.SWEEP_METHODS,
                                 seeds=di.SWEEP_SEEDS, progress=True)
    seconds = time.perf_counter() - start
    if not args.dry_run:
        path = resources.files("dpteach").joinpath("data", tables.DP_FAIRNESS_TABLE)
        with open(str(path), "w", newline="") as fh:
            table.to_csv(fh, index=False, float_format="%.6g")
        print(f"wrote {path} ({len(table)} fits)")
    summary = di.summarize_sweep(table)
    pd.set_option("display.width", 200)
    for grouping in ("all", "sex", "sex_income", "race"):
        part = summary[summary["grouping"] == grouping]
        cell = part.apply(lambda r: f"{r['mean']:.3f}±{r['sd']:.3f}", axis=1)
        wide = pd.DataFrame({"method": part["method"], "ε": part["epsilon"],
                             "group": part["group"], "acc": cell}).pivot(
            index=["method", "ε"], columns="group", values="acc")
        print(f"\n{grouping}: test accuracy, mean ± sd over {len(di.SWEEP_SEEDS)} seeds")
        print(wide.to_string())
        drop = part.pivot(index=["method", "epsilon"], columns="group", values="drop")
        print(f"{grouping}: drop against the non-private baseline (sgd for DP-SGD)")
        print(drop.round(4).to_string())
    per_fit = table.groupby("method")["fit_seconds"].median()
    print("\nmedian seconds per fit:", per_fit.round(2).to_dict(),
          f"| total {seconds:.0f} s | σ at the smallest ε:",
          table.loc[table["method"] == "dpsgd"].groupby("epsilon")["noise_multiplier"]
          .first().round(2).to_dict())
    assert math.isfinite(seconds)


if __name__ == "__main__":
    main()
