"""Cold cost of every slider position of the pages "Noise calibration" and "Randomized response".

A rerun at a slider position never shown before computes, besides Streamlit's own work:

* the page's numbers (the metrics; on "Randomized response" also the one simulated survey,
  which is not cached);
* for each chart the position shows, its data function (the page caches it with
  ``st.cache_data``: paid once per position and process) and its Vega-Lite specification
  (``to_vega_lite``, paid on every rerun) with the JSON encoding Streamlit does.

This script times exactly that, with ``time.perf_counter``, for **every** position of each
page's sliders: noise calibration ε × δ × Δ × view (19 × 10 × 7 × 4 = 5,320 positions),
randomized response (γ or ε) × n × π ((49 + 19) × 13 × 101 = 89,284 positions). Each
distinct chart is computed cold (the undecorated function behind the page's
``st.cache_data``, with the page's own arguments); a position's cold cost is the sum of its
charts' cold costs and its own numbers. Every cost is the best of ``REPEAT`` calls: nothing
on these paths memoizes, so a repeated call is as cold as the first, and the minimum leaves
out the moments the other jobs on the machine took the core. It prints the median, 95th
percentile and maximum per page and view, with the slowest position.

Budget: a trivial rerun of the live server costs ~45 ms; the page's own work should stay
under ~50 ms (median) so that a step of a slider stays under the 100 ms target
(``benchmarks/bench_live_app.py`` measures the whole rerun on a real server).

Command: ``.venv/bin/python benchmarks/bench_app.py [--quick]`` (about 6-7 minutes, nearly all
of it the 89,284 randomized-response positions; ``--quick`` times every 10th true rate of that
grid, about 1 minute). Positions are printed as (ε, δ, Δ) and (γ or ε, n, π).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

REPEAT = 2

import streamlit.logger  # noqa: E402

# the pages' st.cache_data functions are only imported here, never run through Streamlit:
# no "No runtime found" warnings
streamlit.logger.set_log_level("error")

from dpteach._validation import ParameterError  # noqa: E402
from dpapp import noise_calibration as cal  # noqa: E402
from dpapp import randomized_response as rr  # noqa: E402
from dpapp.widgets import DELTAS, EPSILONS
from dpteach.mechanisms.noise import gaussian_sigma, laplace_scale  # noqa: E402
from dpteach.plots.figure import FigureData, to_vega_lite  # noqa: E402
from dpteach.mechanisms.randomized_response import (
    rr_epsilon_from_gamma,
    rr_gamma_from_epsilon,
    rr_std_error,
)


def _timed(func, *args) -> tuple[object, float]:
    """``func(*args)`` and its best time of ``REPEAT`` calls."""
    best = float("inf")
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        out = func(*args)
        best = min(best, time.perf_counter() - t0)
    return out, best


def _chart_cost(cache: dict, chart, args) -> float:
    """Cold data cost (once per distinct chart) + the per-rerun spec and JSON cost."""
    key = (chart.__name__, args)
    if key not in cache:
        data, cold = _timed(chart.__wrapped__, *args)           # bypass st.cache_data
        cache[key] = cold + _timed(_spec_json, data)[1]
    return cache[key]


def _spec_json(data) -> str:
    """What every rerun does with a chart's data: the Vega-Lite spec, as JSON."""
    return json.dumps(to_vega_lite(data) if isinstance(data, FigureData) else data)


def _calibration_numbers(sens: float, eps: float, delta: float) -> None:
    """The metrics: b, the analytic and (ε < 1) the classic σ."""
    laplace_scale(sens, eps)
    if delta > 0:
        gaussian_sigma(sens, eps, delta)
        if eps < 1:
            gaussian_sigma(sens, eps, delta, method="classic")


def _rr_numbers(gamma, epsilon, n: int, rate: float) -> None:
    """The metrics and the one simulated survey (seed 0), as the page computes them."""
    privacy = {"gamma": gamma} if gamma is not None else {"epsilon": epsilon}
    rr_epsilon_from_gamma(gamma) if gamma is not None else rr_gamma_from_epsilon(epsilon)
    rr_std_error(rate, n, **privacy)
    rr._simulate_survey(rate, n, privacy, 0)


def calibration_grid() -> dict[str, list[tuple[float, tuple]]]:
    """{view: [(seconds, (ε, δ, Δ)), ...]} over the page's full slider grid."""
    cache: dict = {}
    out: dict[str, list] = {v: [] for v in cal.VIEWS.values()}
    for sens in cal.SENSITIVITIES:
        for eps in EPSILONS:
            for delta in DELTAS:
                numbers = _timed(_calibration_numbers, sens, eps, delta)[1]
                for view in out:
                    cost = numbers
                    figures = cal._figures(view, sens, eps, delta)
                    for chart, args, _ in figures:
                        cost += _chart_cost(cache, chart, args)
                    if len(figures) == 1:
                        cost += _timed(cal._reading, view, sens, eps, delta)[1]
                    out[view].append((cost, (eps, delta, sens)))
    return out


def rr_grid(rate_stride: int = 1) -> dict[str, list[tuple[float, tuple]]]:
    """{parametrisation: [(seconds, (γ or ε, n, π)), ...]} over the page's full slider grid."""
    cache: dict = {}
    out: dict[str, list] = {"gamma": [], "epsilon": []}
    privacies = ([("gamma", g) for g in rr.GAMMAS] + [("epsilon", e) for e in EPSILONS])
    for which, value in privacies:
        gamma, epsilon = (value, None) if which == "gamma" else (None, value)
        for n in rr.SIZES:
            for rate in rr.RATES[::rate_stride]:
                cost = _timed(_rr_numbers, gamma, epsilon, n, rate)[1]
                cost += _chart_cost(cache, rr.probabilities_chart, (gamma, epsilon))
                cost += _chart_cost(cache, rr.estimator_chart, (rate, n, gamma, epsilon))
                out[which].append((cost, (value, n, rate)))
    return out


def _table(title: str, groups: dict, what: str) -> list[str]:
    lines = [f"### {title}", "", f"| {what} | positions | median (ms) | p95 (ms) | max (ms) "
             "| slowest position |", "|---|---:|---:|---:|---:|---|"]
    every = []
    for name, rows in groups.items():
        every += rows
        ms = sorted(1000 * c for c, _ in rows)
        worst = max(rows)
        lines.append(f"| {name} | {len(rows)} | {statistics.median(ms):.1f} | "
                     f"{ms[int(0.95 * (len(ms) - 1))]:.1f} | {ms[-1]:.1f} | {worst[1]} |")
    ms = sorted(1000 * c for c, _ in every)
    lines.append(f"| all | {len(every)} | {statistics.median(ms):.1f} | "
                 f"{ms[int(0.95 * (len(ms) - 1))]:.1f} | {ms[-1]:.1f} | {max(every)[1]} |")
    return lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="randomized response: every 10th true rate only")
    args = parser.parse_args()
    try:
        t0 = time.perf_counter()
        cal_rows = calibration_grid()
        t1 = time.perf_counter()
        rr_rows = rr_grid(10 if args.quick else 1)
        t2 = time.perf_counter()
    except ParameterError as exc:            # a slider position the page cannot show
        raise SystemExit(f"a slider position fails: {exc}") from None
    lines = ["## App pages: cold cost of every slider position — `bench_app.py`", "",
             "Computation a rerun at a never-seen position does (page numbers + cold chart "
             "data + Vega-Lite spec and JSON), `time.perf_counter`, one process.",
             f"Machine: {os.cpu_count()} cores shared with other jobs (load average "
             f"{os.getloadavg()[0]:.1f} at the end). Walk: {t1 - t0:.0f} s (calibration), "
             f"{t2 - t1:.0f} s (randomized response"
             f"{', every 10th π' if args.quick else ''}).", ""]
    lines += _table("Noise calibration (ε × δ × Δ, per view)", cal_rows, "view")
    lines += _table("Randomized response ((γ or ε) × n × π)", rr_rows, "privacy slider")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
