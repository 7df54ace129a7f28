"""Benchmark: MWEM (dpteach.queries.mwem.mwem) on Adult, all 2-way marginals, T = 30 rounds.

The issue's target: "MWEM on three Adult columns with all 2-way marginals, T = 30 rounds, in
under 5 s on this machine". Settings, side by side in one process (ε = 1 throughout; the
histogram and the queries are built once, outside the timing):

(a) the default universe of :func:`dpteach.queries.linear.adult_universe`, age (6 bins) × sex
    (2) × race (5) = 60 cells, all 2-way marginals (52 queries), Algorithm 1 as published
    (``passes=0``);
(b) the same with the paper's practical improvement, 10 extra passes over the past
    measurements per round (``passes=10``: 4,680 multiplicative-weights updates);
(c) a larger three-column universe, age × education (16) × race = 480 cells, all 2-way
    marginals (206 queries), ``passes=10``;
(d) (c)'s universe with 10,000 random counting queries (the app's workload on the larger
    universe), ``passes=10``.

Each row reports the largest error of MWEM's output (fraction of n, the mean over the runs)
next to independent Laplace's expected largest error at the same ε, so the timing comes with
what it buys.

Timing: the candidates run round-robin in a freshly shuffled order each round after one
warm-up call; median, interquartile range and min–max of the wall times; the 1-minute load
average before and after (the machine is shared). NumPy's BLAS runs with one thread
(``threadpoolctl``): these matrices are small, and on the shared 2-core machine a second
BLAS thread made each matrix-vector product 20-50× slower under load. ``--threads`` keeps
the default instead.

Run: ``.venv/bin/python benchmarks/bench_many_queries.py [--reps 15] [--threads]``
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import time

import numpy as np
from threadpoolctl import threadpool_limits

from dpteach.datasets import load_adult
from dpteach.queries.linear import adult_universe, marginal_queries, max_error, random_queries
from dpteach.queries.independent import independent_max_error
from dpteach.queries.mwem import mwem

T, EPSILON = 30, 1.0


def settings() -> dict:
    df = load_adult()
    small = adult_universe()
    large = adult_universe(("age", "education", "race"))
    h_small, h_large = small.to_histogram(df), large.to_histogram(df)
    return {
        "(a) age×sex×race (60 cells), 52 2-way marginals, passes=0":
            (marginal_queries(small), h_small, 0),
        "(b) age×sex×race (60 cells), 52 2-way marginals, passes=10":
            (marginal_queries(small), h_small, 10),
        "(c) age×education×race (480 cells), 206 2-way marginals, passes=10":
            (marginal_queries(large), h_large, 10),
        "(d) age×education×race (480 cells), 10,000 random queries, passes=10":
            (random_queries(large, 10_000, rng=2024), h_large, 10),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=15, help="timed runs per candidate")
    parser.add_argument("--threads", action="store_true",
                        help="keep NumPy's default BLAS threads")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    limit = contextlib.nullcontext() if args.threads else threadpool_limits(limits=1)
    with limit:
        cases = settings()
        times = {name: [] for name in cases}
        errors = {name: [] for name in cases}
        order = list(cases)
        seed = 0
        for name, (q, h, passes) in cases.items():          # warm-up
            mwem(q, h, epsilon=EPSILON, T=T, passes=passes, rng=seed)
        for _ in range(args.reps):
            random.shuffle(order)
            for name in order:
                q, h, passes = cases[name]
                seed += 1
                start = time.perf_counter()
                res = mwem(q, h, epsilon=EPSILON, T=T, passes=passes, rng=seed)
                times[name].append(time.perf_counter() - start)
                errors[name].append(max_error(q, h, synthetic=res.synthetic))
    load_after = os.getloadavg()[0]
    print(f"MWEM, T = {T}, ε = {EPSILON}; {args.reps} runs each; BLAS threads: "
          f"{'default' if args.threads else 1}; load average {load_before:.2f} → {load_after:.2f}")
    print("| setting | median (ms) | IQR (ms) | min–max (ms) | MWEM max error | "
          "independent Laplace |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (q, h, _) in cases.items():
        t = np.array(times[name]) * 1e3
        q1, q3 = np.percentile(t, [25, 75])
        lap = independent_max_error(q.k, EPSILON, n=float(h.sum()))
        print(f"| {name} | {statistics.median(t):.1f} | {q1:.1f}–{q3:.1f} | "
              f"{t.min():.1f}–{t.max():.1f} | {np.mean(errors[name]):.4f} | {lap:.4f} |")


if __name__ == "__main__":
    main()
