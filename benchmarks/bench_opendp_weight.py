"""Benchmark: what OpenDP (notebook 24's production library) costs: install size, time, memory.

Issue 23 asks to add OpenDP to the course's requirements only if its wheel installs offline
and its cost on Binder (install size, kernel memory) is measured and stated. Three
measurements, all against the same course without OpenDP:

(a) **Install** (skip with ``--no-install``; minutes). Every requirement of
    ``requirements.txt`` (with the ``opendp`` pin, ``--pin`` if the file has none) is turned
    into a wheel in a local wheelhouse with this venv's pip (``pip wheel``: downloads what
    pip's cache lacks; untimed, reported). Then, ``--reps`` times (default 1), two fresh venvs
    (``python3 -m venv``) whose bundled pip installs, offline from that wheelhouse
    (``--no-index --find-links``), either the requirements with OpenDP or the same without
    its ``opendp`` line (their order alternating between repetitions). Reported: the wall time
    of ``pip install`` (no download in it: the unpack-and-install part of a Binder build), the
    apparent size of ``site-packages`` (MB = 10⁶ bytes) and the number of distributions, and
    the distributions only the OpenDP venv has, with their installed size (``RECORD``) and
    wheel size (what Binder downloads), OpenDP's own folder measured with ``du`` as well.
(b) **Memory** (skip with ``--no-memory``). Fresh processes of this venv's Python, each
    ``--n`` times (default 7), round-robin after one discarded warm-up round:

    * ``baseline``: ``import numpy, pandas, matplotlib.pyplot, IPython, ipywidgets, dpteach``
      (a lesson's first cell; ``MPLBACKEND=Agg``);
    * ``+ opendp``: the same, then ``import opendp.prelude as dp``,
      ``dp.enable_features("contrib")`` and notebook 24's two releases (a count and a
      16-category histogram of 32,561 strings through ``then_count_by_categories`` and
      ``then_laplace``, and their privacy maps): what the notebook makes the kernel hold;
    * ``opendp alone``: only that OpenDP step, in a fresh process (its cold import time).

    Each reports the peak RSS (``resource.getrusage(RUSAGE_SELF).ru_maxrss``) and the
    current RSS (``VmRSS``, with its anonymous and file-backed parts ``RssAnon`` and
    ``RssFile``) at the end, in MiB. Unless ``--no-kernel``, the same code also
    runs in a fresh IPython kernel (``jupyter_client``): what a student's kernel holds.
    Reported: medians and min–max.
(c) **Import time**: the wall time of the OpenDP step in the same processes (after the
    baseline, and alone); medians and min–max.

The 1-minute load average is printed before and after (the machine is shared). The
process and kernel plumbing is ``bench_otter_weight.py``'s (imported from this folder).

Run: ``.venv/bin/python benchmarks/bench_opendp_weight.py [--reps 1] [--n 7] [--no-install]
[--no-kernel] [--keep DIR]`` (4–8 minutes with the install part on a shared 2-core machine,
about 1 minute with ``--no-install``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_otter_weight as otter_bench
from bench_otter_weight import (
    BASELINE,
    _dir_size,
    _distributions,
    _run,
    _site_packages,
    _spread,
    _wheel_sizes,
    install_venv,
)

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = ROOT / "requirements.txt"
DEFAULT_PIN = "opendp==0.16.0"
MB = 1e6

#: notebook 24's OpenDP step: the library, then its count and histogram and their maps
OPENDP_STEP = """
import opendp.prelude as dp
dp.enable_features("contrib")
_cats = [f"c{i}" for i in range(16)]
_data = [_cats[i % 16] for i in range(32_561)]
_space = dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()
_hist = _space >> dp.t.then_count_by_categories(categories=_cats, null_category=False) \\
    >> dp.m.then_laplace(scale=1.0)
_count = (dp.vector_domain(dp.atom_domain(T=bool)), dp.symmetric_distance()) \\
    >> dp.t.then_count() >> dp.m.then_laplace(scale=1.0)
_released = (_hist(_data), _count([True] * 8_000), _hist.map(1), _count.map(1))
"""


# the child of bench_otter_weight.py, also reporting the anonymous and the file-backed part
# of the resident set (OpenDP's 275 MB shared library is file-backed: pages the kernel can
# drop and re-read, unlike the anonymous ones)
otter_bench.CHILD = otter_bench.CHILD.replace('("VmRSS", "VmHWM")',
                                              '("VmRSS", "VmHWM", "RssAnon", "RssFile")')
run_process, run_kernel = otter_bench.run_process, otter_bench.run_kernel


def _scenarios(baseline: list[str]) -> dict[str, list[tuple[str, str]]]:
    base = ("baseline", "import " + ", ".join(baseline))
    odp = ("opendp", OPENDP_STEP)
    return {"baseline": [base], "+ opendp": [base, odp], "opendp alone": [odp]}


def measure_memory(n: int, kernel: bool, baseline: list[str]) -> dict:
    scenarios = _scenarios(baseline)
    modes = [("process", run_process)] + ([("kernel", run_kernel)] if kernel else [])
    results = {(mode, name): [] for mode, _ in modes for name in scenarios}
    with tempfile.TemporaryDirectory(prefix="opendp-weight-") as tmp:
        for i in range(n + 1):                       # round 0: warm-up (file cache), discarded
            for mode, runner in modes:
                for name, steps in scenarios.items():
                    row = runner(steps, Path(tmp))
                    if i:
                        results[(mode, name)].append(row)
    return results


# --------------------------------------------------------------------------- install part
def _is_opendp(line: str) -> bool:
    return bool(re.match(r"\s*opendp\s*(==|$|\[)", line, re.I))


def _requirement_texts(pin: str) -> tuple[str, str]:
    """(requirements with OpenDP, requirements without it), from requirements.txt."""
    lines = REQUIREMENTS.read_text(encoding="utf-8").splitlines(keepends=True)
    without = "".join(line for line in lines if not _is_opendp(line))
    pins = [line.strip() for line in lines if _is_opendp(line)]
    with_ = without + (pins[0] if pins else pin) + "\n"
    return with_, without


def _du(path: Path) -> int:
    """``du -sb``: apparent bytes of a folder, as the shell reports it."""
    out = subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0])


def measure_install(python: str, reps: int, keep: Path | None, pin: str) -> dict:
    base = Path(tempfile.mkdtemp(prefix="opendp-weight-venv-", dir=keep))
    try:
        reqs = {"with opendp": base / "requirements-opendp.txt",
                "without opendp": base / "requirements-no-opendp.txt"}
        with_, without = _requirement_texts(pin)
        reqs["with opendp"].write_text(with_, encoding="utf-8")
        reqs["without opendp"].write_text(without, encoding="utf-8")
        wheelhouse = base / "wheels"
        start = time.perf_counter()
        _run([sys.executable, "-m", "pip", "wheel", "--quiet", "-w", str(wheelhouse),
              "-r", str(reqs["with opendp"])])
        prepare = time.perf_counter() - start
        times = {k: [] for k in reqs}
        sizes, dists, opendp_du = {}, {}, None
        for rep in range(reps):
            order = list(reqs) if rep % 2 == 0 else list(reqs)[::-1]
            for label in order:
                venv = base / f"venv-{label.replace(' ', '-')}-{rep}"
                times[label].append(install_venv(python, venv, reqs[label], wheelhouse))
                site = _site_packages(venv)
                sizes[label] = _dir_size(site)
                dists[label] = _distributions(site)
                if label == "with opendp":
                    opendp_du = _du(site / "opendp")
                if rep < reps - 1 and keep is None:
                    shutil.rmtree(venv)
        return {"prepare": prepare, "times": times, "sizes": sizes, "dists": dists,
                "wheels": _wheel_sizes(wheelhouse), "opendp_du": opendp_du, "where": base}
    finally:
        if keep is None:
            shutil.rmtree(base, ignore_errors=True)


# --------------------------------------------------------------------------- report
def report_install(res: dict, python: str, reps: int) -> None:
    w, wo = "with opendp", "without opendp"
    print(f"\n(a) install: `{python} -m venv` + its pip, offline from a wheelhouse of "
          f"requirements.txt ({res['prepare']:.0f} s to prepare, untimed below), {reps} rep(s)")
    print("| venv | pip install median (s) | min–max (s) | site-packages (MB) | distributions |")
    print("|---|---:|---:|---:|---:|")
    for label in (wo, w):
        print(f"| {label} | {_spread(res['times'][label], '.1f')} | "
              f"{res['sizes'][label] / MB:.1f} | {len(res['dists'][label])} |")
    dt = statistics.median(res["times"][w]) - statistics.median(res["times"][wo])
    print(f"| **difference** | {dt:+.1f} | | {(res['sizes'][w] - res['sizes'][wo]) / MB:+.1f} | "
          f"{len(res['dists'][w]) - len(res['dists'][wo]):+d} |")
    extra = sorted(set(res["dists"][w]) - set(res["dists"][wo]),
                   key=lambda d: -res["dists"][w][d])
    print("\ndistributions only the OpenDP venv has (installed size, wheel size):")
    print("| distribution | installed (MB) | wheel (MB) |")
    print("|---|---:|---:|")
    for d in extra:
        wheel = res["wheels"].get(d)
        print(f"| {d} | {res['dists'][w][d] / MB:.2f} | "
              f"{'—' if wheel is None else f'{wheel / MB:.2f}'} |")
    print(f"| **total** | {sum(res['dists'][w][d] for d in extra) / MB:.2f} | "
          f"{sum(res['wheels'].get(d, 0) for d in extra) / MB:.2f} |")
    print(f"du -sb site-packages/opendp: {res['opendp_du'] / MB:.1f} MB")


def report_memory(results: dict, n: int, baseline: list[str]) -> None:
    print(f"\n(b) memory, (c) import time: {n} fresh runs each (after one warm-up round); "
          f"baseline = import {', '.join(baseline)}; opendp = import opendp.prelude, "
          "enable contrib, notebook 24's count and histogram and their maps")
    print("| where | imports | peak RSS ru_maxrss median (MiB) | min–max | VmRSS median (MiB) "
          "| min–max | of which anonymous (MiB) | file-backed (MiB) | opendp step median (s) "
          "| min–max (s) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (mode, name), rows in results.items():
        t = [r["times"]["opendp"] for r in rows if "opendp" in r["times"]]
        times = _spread(t, ".2f") if t else "— | —"
        print(f"| {mode} | {name} | {_spread([r['maxrss'] for r in rows], '.0f')} | "
              f"{_spread([r['VmRSS'] for r in rows], '.0f')} | "
              f"{statistics.median(r['RssAnon'] for r in rows):.0f} | "
              f"{statistics.median(r['RssFile'] for r in rows):.0f} | {times} |")
    for mode in sorted({m for m, _ in results}):
        base, plus = results[(mode, "baseline")], results[(mode, "+ opendp")]
        d_peak = (statistics.median(r["maxrss"] for r in plus)
                  - statistics.median(r["maxrss"] for r in base))
        d_rss = (statistics.median(r["VmRSS"] for r in plus)
                 - statistics.median(r["VmRSS"] for r in base))
        d_anon = (statistics.median(r["RssAnon"] for r in plus)
                  - statistics.median(r["RssAnon"] for r in base))
        print(f"{mode}: OpenDP adds {d_peak:+.0f} MiB peak RSS, {d_rss:+.0f} MiB current RSS, "
              f"{d_anon:+.0f} MiB of it anonymous (medians; baseline median import time "
              f"{statistics.median(r['times']['baseline'] for r in base):.2f} s)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1, help="install repetitions (slow)")
    parser.add_argument("--n", type=int, default=7, help="memory/import-time runs per scenario")
    parser.add_argument("--no-install", action="store_true", help="skip (a), the slow part")
    parser.add_argument("--no-memory", action="store_true", help="skip (b) and (c)")
    parser.add_argument("--no-kernel", dest="kernel", action="store_false",
                        help="(b) in plain processes only, not also in IPython kernels")
    parser.add_argument("--python", default="python3",
                        help="the interpreter that creates the install venvs (default python3)")
    parser.add_argument("--pin", default=DEFAULT_PIN,
                        help="the OpenDP requirement when requirements.txt has none")
    parser.add_argument("--keep", type=Path, default=None,
                        help="create the install venvs under DIR and keep them")
    args = parser.parse_args(argv)
    py = subprocess.run([args.python, "--version"], capture_output=True, text=True).stdout
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"(1, 5, 15 min; {os.cpu_count()} cores); this venv: python "
          f"{sys.version.split()[0]}; venvs from {args.python}: {py.strip()}")
    t0 = time.perf_counter()
    installed = memory = None
    if not args.no_install:
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
        installed = measure_install(args.python, args.reps, args.keep, args.pin)
        print(f"  install part: {time.perf_counter() - t0:.0f} s, load average now "
              f"{os.getloadavg()[0]:.2f}")
    if not args.no_memory:
        memory = measure_memory(args.n, args.kernel, BASELINE)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"total {time.perf_counter() - t0:.0f} s")
    if installed:
        report_install(installed, args.python, args.reps)
        if args.keep:
            print(f"(venvs kept in {installed['where']})")
    if memory:
        report_memory(memory, args.n, BASELINE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
