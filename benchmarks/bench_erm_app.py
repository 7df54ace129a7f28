"""Cost of a slider move on the app page "Private logistic regression".

Two measurements, after the Adult curve has been computed once (its cost is
reported separately; it is not on the slider path):

* **cold computation per slider position**: :func:`private_lr.toy_view` without its
  cache (8 private fits + the non-private one, the chart's data and the caption's
  numbers) and the Vega-Lite specification of the chart, timed with
  ``time.perf_counter`` at every position of the page's slider grid (ε × Λ × n ×
  algorithm, R at its default); prints median, p95 and the slowest position per n.
  Target: every position well under 100 ms.
* **AppTest reruns** (headless, times include AppTest's own overhead): the ε slider
  walked through consecutive positions, then the Λ slider, first at never-seen
  positions (empty cache) and then again (cached).

For the real server (browser-like client, all sliders) use ``bench_live_app.py
--pages private-lr``.

Command: ``.venv/bin/python benchmarks/bench_erm_app.py`` (about a minute;
``--quick``: every third ε, Λ and n only).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from dpapp import widgets  # noqa: E402
from dpapp import private_lr  # noqa: E402
from dpteach.datasets import TOY_DATA_NORM  # noqa: E402
from dpteach.plots.figure import to_vega_lite  # noqa: E402


def _page() -> None:
    from dpapp import private_lr as page

    page.render()


def new_app() -> AppTest:
    return AppTest.from_function(_page, default_timeout=300).run()


def walk(at: AppTest, key: str, values) -> list[float]:
    times = []
    for v in values:
        at.select_slider(key=key).set_value(v)
        t0 = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t0)
        assert not at.exception, [e.value for e in at.exception]
    return times


def p95(values: list[float]) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]


def cold_grid(quick: bool) -> None:
    step = 3 if quick else 1
    grid = list(itertools.product(widgets.EPSILONS[::step], private_lr.LAMS[::step],
                                  private_lr.NS[::step], ("objective", "output")))
    compute = private_lr.toy_view.__wrapped__            # the function without its cache
    compute(1.0, 1e-3, "objective", 200, TOY_DATA_NORM)   # imports, first-call set-up
    rows = []
    for eps, lam, n, method in grid:
        t0 = time.perf_counter()
        view = compute(eps, lam, method, n, TOY_DATA_NORM)
        t1 = time.perf_counter()
        spec = json.dumps(to_vega_lite(view["figure"], height=460))
        t2 = time.perf_counter()
        rows.append((t2 - t0, t1 - t0, len(spec), eps, lam, n, method))
    print(f"\nCold toy chart per slider position ({len(grid)} positions, R = {TOY_DATA_NORM:g}):")
    print("\n| n | positions | fits + data: median (ms) | p95 (ms) | max (ms) | "
          "+ Vega-Lite spec: max (ms) | spec size (kB) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in private_lr.NS[::step]:
        sel = [r for r in rows if r[5] == n]
        fit = [r[1] for r in sel]
        print(f"| {n} | {len(sel)} | {1e3 * statistics.median(fit):.1f} | {1e3 * p95(fit):.1f} | "
              f"{1e3 * max(fit):.1f} | {1e3 * max(r[0] for r in sel):.1f} | "
              f"{max(r[2] for r in sel) / 1e3:.0f} |")
    worst = max(rows)
    print(f"\nSlowest position: {1e3 * worst[0]:.1f} ms (ε = {worst[3]:g}, Λ = {worst[4]:g}, "
          f"n = {worst[5]}, {worst[6]}).")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every third ε, Λ and n only")
    args = parser.parse_args()
    print(f"python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}")
    t0 = time.perf_counter()
    private_lr.adult_curve()
    print(f"Adult curve, computed once: {time.perf_counter() - t0:.1f} s")
    cold_grid(args.quick)

    eps_walk = [e for e in widgets.EPSILONS if e != 1.0][:12]
    lam_walk = [lam for lam in private_lr.LAMS if lam != 1e-3]
    private_lr.toy_view.clear()
    at = new_app()
    rows = {"new positions (empty cache)": walk(at, "erm_epsilon", eps_walk)
            + walk(at, "erm_lam", lam_walk)}
    at = new_app()
    rows["revisited positions (cached)"] = (walk(at, "erm_epsilon", eps_walk)
                                            + walk(at, "erm_lam", lam_walk))
    print("\nAppTest reruns after a slider move (ε walk then Λ walk):")
    print("\n| condition | reruns | median (ms) | max (ms) |")
    print("|---|---:|---:|---:|")
    for name, ts in rows.items():
        print(f"| {name} | {len(ts)} | {1e3 * statistics.median(ts):.0f} | {1e3 * max(ts):.0f} |")
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
