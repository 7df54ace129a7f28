"""Accuracy of private logistic regression on Adult (not a timing benchmark).

Reproduces the privacy-accuracy comparison of Chaudhuri, Monteleoni & Sarwate
(2011, Section 7 / Figure of the Adult experiments): objective perturbation
(their Algorithm 2) against output perturbation (Algorithm 1) and the
non-private regularised logistic regression, on the standard UCI train/test
split of Adult (30,162 / 15,060 rows after dropping rows with missing values,
104 features from :func:`dpteach.datasets.adult_arrays`).

Rows are scaled by the public bound ``data_norm = sqrt(13)`` (5 numeric
features in [0, 1] plus one 1 in each of 8 one-hot groups), so no row is
clipped; no intercept column is needed because each one-hot group already sums
to 1. Each (method, ε, Λ) cell is the mean ± standard deviation of the test
accuracy over ``--repeats`` independent private fits (seeded).

Run::

    .venv/bin/python benchmarks/erm_adult_accuracy.py            # full table (~1-2 min)
    .venv/bin/python benchmarks/erm_adult_accuracy.py --quick    # 5 repeats, 2 values of Λ

The "best Λ" rows pick, for each method and ε, the Λ of the grid with the
highest mean *test* accuracy: an optimistic, non-private choice (tuning Λ on
private data costs privacy; see CMS11 Section 6 for a private way).
"""

from __future__ import annotations

import argparse
import math
import time

from dpteach.datasets import adult_arrays
from dpteach.learning.erm_experiments import accuracy_vs_epsilon

EPSILONS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
LAMS = (1e-5, 1e-4, 1e-3, 1e-2)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--seed", type=int, default=2011)
    ap.add_argument("--quick", action="store_true", help="5 repeats, Λ in {1e-4, 1e-3}")
    args = ap.parse_args(argv)
    lams = (1e-4, 1e-3) if args.quick else LAMS
    repeats = 5 if args.quick else args.repeats

    A = adult_arrays()
    Xtr, Xte, ytr, yte = A.train_test()
    majority = max(yte.mean(), 1 - yte.mean())
    print(f"Adult: n_train = {len(ytr)}, n_test = {len(yte)}, d = {Xtr.shape[1]}; "
          f"majority-class test accuracy = {majority:.4f}")
    print(f"{repeats} private fits per cell, seed {args.seed}; data_norm = sqrt(13), "
          "no intercept column\n")
    head = "method      Λ        non-private " + " ".join(f"ε={e:<11g}" for e in EPSILONS)
    print(head)
    print("-" * len(head))
    curves = {}
    t0 = time.perf_counter()
    for lam in lams:
        cur = accuracy_vs_epsilon(Xtr, ytr, Xte, yte, EPSILONS, lam, n_trials=repeats,
                                  data_norm=math.sqrt(13), fit_intercept=False,
                                  rng=args.seed)
        curves[lam] = cur
        for m in ("objective", "output"):
            cells = " ".join(f"{mu:.3f}±{sd:.3f}  " for mu, sd in zip(cur.mean(m), cur.std(m)))
            print(f"{m:<11} {lam:<8g} {cur.nonprivate_accuracy:.4f}      {cells}")
    print("\nbest Λ of the grid per ε (chosen on the test set: optimistic, not private)")
    for m in ("objective", "output"):
        best = []
        for i, _ in enumerate(EPSILONS):
            lam = max(lams, key=lambda L: curves[L].mean(m)[i])
            best.append(f"{curves[lam].mean(m)[i]:.3f}({lam:g})")
        print(f"{m:<11} " + " ".join(f"{b:<13}" for b in best))
    print(f"\n[{time.perf_counter() - t0:.0f} s]")


if __name__ == "__main__":
    main()
