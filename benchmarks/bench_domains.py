"""What the declared checks cost, and how long the largest allowed work takes.

1. **Per-call overhead of ``@validate``**: a checked call against the unchecked algorithm
   (``func.__wrapped__``) with the same, already valid arguments, for a few small functions
   whose bodies are fast (so the overhead shows). Timed with ``timeit`` in interleaved
   rounds; reported per call as the median over rounds, with the min–max spread, and the
   difference (the overhead).
2. **The upper ends of the work sizes**: every parameter declared with
   ``integer(..., work=True)`` (runs, samples, permutations, queries) is a size whose upper
   end should finish in seconds on one core; each public function is called once at that
   end (the other arguments from ``tests/test_domains.py``'s examples) and timed. A test
   cannot read the clock, so these are measured here instead.

Run from the repository root::

    .venv/bin/python benchmarks/bench_domains.py              # about a minute
    .venv/bin/python benchmarks/bench_domains.py --rounds 3   # quick
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import timeit
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from dpteach.mechanisms import noise  # noqa: E402


def overhead_cases():
    gen = np.random.default_rng(0)
    return [
        ("laplace_scale(1.0, 1.0)", noise.laplace_scale, (1.0, 1.0)),
        ("laplace_mechanism(3.0, 1.0, 1.0, rng)", noise.laplace_mechanism, (3.0, 1.0, 1.0, gen)),
        ("gaussian_delta(1.0, 1.0, 1.0)", noise.gaussian_delta, (1.0, 1.0, 1.0)),
        ("laplace_privacy_loss(0.3, 1.0, 1.0)", noise.laplace_privacy_loss, (0.3, 1.0, 1.0)),
    ]


def measure_overhead(rounds: int, number: int) -> None:
    print(f"1. per-call overhead of @validate ({rounds} interleaved rounds of {number:,} calls)")
    print(f"   {'call':42s} {'checked µs':>12s} {'unchecked µs':>13s} {'overhead µs':>12s} "
          f"{'spread (checked)':>18s}")
    for name, func, args in overhead_cases():
        checked, bare = [], []
        for _ in range(rounds):
            checked.append(timeit.timeit(lambda: func(*args), number=number) / number * 1e6)
            bare.append(timeit.timeit(lambda: func.__wrapped__(*args), number=number)
                        / number * 1e6)
        c, b = statistics.median(checked), statistics.median(bare)
        print(f"   {name:42s} {c:12.2f} {b:13.2f} {c - b:12.2f} "
              f"{min(checked):8.2f}–{max(checked):<8.2f}")


def measure_work_ends() -> None:
    import test_domains as td

    print("\n2. the upper ends of the work sizes (one call each)")
    rows = []
    for key, obj in td.CALLABLES.items():
        for name, dom in td._domains(obj).items():
            if not getattr(dom, "work", False):
                continue
            try:
                call, kwargs = td._example(key, obj, name)
            except BaseException:                # no example to vary (pytest.fail is not an Exception)
                continue
            kwargs[name] = dom.high
            start = time.perf_counter()
            try:
                call(**kwargs)
                outcome = "answered"
            except Exception as err:             # a rule tying two arguments, say
                outcome = f"refused: {type(err).__name__}"
            rows.append((time.perf_counter() - start, key, name, dom.high, outcome))
    for seconds, key, name, high, outcome in sorted(rows, reverse=True):
        flag = "  <- over 10 s" if seconds > 10 else ""
        print(f"   {seconds:8.2f} s  {key}({name}={high:,}) {outcome}{flag}")
    if not rows:
        print("   (no work-size domains declared yet)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--number", type=int, default=20_000)
    parser.add_argument("--skip-work", action="store_true")
    args = parser.parse_args()
    measure_overhead(args.rounds, args.number)
    if not args.skip_work:
        measure_work_ends()


if __name__ == "__main__":
    main()
