"""Three library calls a notebook or page waits for, timed side by side.

Unit tests check what these calls return; how long they take is measured here (the tests
once asserted wall-clock limits, which a busy shared machine can break without any change
in the code). Each call runs ``--repeats`` times after one warm-up run, interleaved so that
the machine's load falls on all of them alike; reported: median, min–max, and the median
against its target where the course has one.

1. ``reconstruction.reconstruction_attack(200, 800)`` — the least-squares attack of
   notebook 00 and the reconstruction page, with no noise and with DP Laplace noise at
   ε = 50. Target: under 0.1 s, so that the page's slider redraws at once.
2. ``kanonymity.mondrian_anonymize`` on the 45,222 complete rows of Adult with invented quasi-identifiers
   (ZIP, birth date, sex, age, race) at k = 5 — notebook 00's k-anonymity step. Target:
   under 10 s, a cell a student waits for.
3. ``samplers.sample_discrete_gaussian(1, size=10**5)`` — the exact sampler of Canonne,
   Kamath & Steinke 2020 (pure Python integers). Reported only: no page draws 10⁵ at once.

Run from the repository root::

    .venv/bin/python benchmarks/bench_library_calls.py              # ~1 min
    .venv/bin/python benchmarks/bench_library_calls.py --repeats 3  # quick
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpteach.exact import discrete as samplers  # noqa: E402
from dpteach.attacks import kanonymity, linkage, reconstruction  # noqa: E402


def cases() -> list[tuple[str, float | None, callable]]:
    adult = linkage.adult_with_quasi_identifiers(rng=0)
    qi = ["zip", "birth_date", "sex", "age", "race"]
    return [
        ("reconstruction_attack(200, 800), no noise", 0.1,
         lambda s: reconstruction.reconstruction_attack(200, 800, rng=s)),
        ("reconstruction_attack(200, 800), DP Laplace ε = 50", 0.1,
         lambda s: reconstruction.reconstruction_attack(200, 800, noise="dp_laplace",
                                                        epsilon=50.0, rng=s)),
        ("mondrian_anonymize(Adult, 5 quasi-identifiers, k = 5)", 10.0,
         lambda s: kanonymity.mondrian_anonymize(adult, qi, 5)),
        ("sample_discrete_gaussian(σ² = 1, size = 10⁵)", None,
         lambda s: samplers.sample_discrete_gaussian(1, size=100_000, rng=s)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    todo = cases()
    for _, _, call in todo:                              # warm-up: imports, caches
        call(0)
    times: list[list[float]] = [[] for _ in todo]
    for r in range(args.repeats):
        for i, (_, _, call) in enumerate(todo):
            start = time.perf_counter()
            call(r + 1)
            times[i].append(time.perf_counter() - start)
    print(f"{args.repeats} runs each, interleaved; load average {os.getloadavg()[0]:.1f}\n")
    print("| call | median (s) | min–max (s) | target (s) | met |")
    print("|---|---:|---:|---:|---|")
    for (name, target, _), t in zip(todo, times):
        med = float(np.median(t))
        met = "—" if target is None else ("yes" if med < target else "**no**")
        print(f"| {name} | {med:.3f} | {min(t):.3f}–{max(t):.3f} | "
              f"{'—' if target is None else target} | {met} |")


if __name__ == "__main__":
    main()
