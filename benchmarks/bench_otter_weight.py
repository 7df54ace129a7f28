"""Benchmark: what otter-grader (the exercises' grader) costs: install size, install time, memory.

The classroom issue asks whether otter-grader's weight breaks Binder's limits (1–2 GB of
memory per user; the image build time). Three measurements, all against the same course
without otter-grader:

(a) **Install** (skip with ``--no-install``; slow, minutes). First every requirement of
    ``requirements.txt`` is turned into a wheel in a local wheelhouse with the project's pip
    (``pip wheel``: it downloads what pip's cache does not hold and builds any sdist; untimed,
    reported). Then, ``--reps`` times (default 1), two fresh venvs are created under a temporary
    folder (``python3 -m venv``) and their bundled pip installs, offline from that wheelhouse
    (``--no-index --find-links``), either ``requirements.txt`` or the same file without its
    ``otter-grader`` line (their order alternating between repetitions). Reported for each:
    the wall time of ``pip install`` (median if ``--reps`` > 1; no download in it, so it is the
    unpack-and-install part of a Binder build),
    the apparent size of ``site-packages`` (sum of file sizes, MB = 10⁶ bytes), the number of
    distributions, and the difference; then the distributions only the otter venv has, with
    their installed size (from their ``RECORD``) and wheel size (what Binder downloads).
(b) **Memory** (skip with ``--no-memory``). Fresh processes of this venv's Python
    (``sys.executable``; run the script with ``.venv/bin/python``), in a temporary folder that
    holds the student edition of ``--notebook`` (built with ``scripts/build_student_editions.py``
    into that folder), each ``--n`` times (default 5), round-robin:

    * ``baseline``: ``import numpy, pandas, matplotlib.pyplot, IPython, ipywidgets, dpteach``
      (what every lesson's first code cell imports; ``MPLBACKEND=Agg``);
    * ``+ otter``: the same, then ``import otter`` and
      ``grader = otter.Notebook("<notebook>.ipynb")`` as the student edition's first cell does
      (it reads the notebook's metadata);
    * ``otter alone``: only the otter cell, in a fresh process (its cold import time).

    Each reports the peak RSS (``resource.getrusage(RUSAGE_SELF).ru_maxrss``) and the current
    RSS (``VmRSS`` of ``/proc/self/status``) at the end, in MiB. Unless ``--no-kernel``, the
    same code also runs in a fresh IPython kernel
    (``jupyter_client``, kernel ``python3``, started in the same folder): what a student's
    kernel holds, ipykernel included. Reported: medians and min–max over the ``--n`` runs.
(c) **Import time**: the wall time of ``import otter`` + ``otter.Notebook(...)`` in the same
    processes: after the baseline imports (what it adds to a lesson) and alone (cold: it
    imports pandas, IPython, nbformat … itself); medians and min–max over ``--n``, after one
    discarded warm-up round (the file cache).

The 1-minute load average is printed before and after (the machine is shared).

Run: ``.venv/bin/python benchmarks/bench_otter_weight.py [--reps 1] [--n 5] [--no-install]
[--no-kernel] [--keep DIR]`` (4–7 minutes with the install part on a shared 2-core machine,
about 2 minutes with ``--no-install``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = ROOT / "requirements.txt"
BUILD_SCRIPT = ROOT / "scripts" / "build_student_editions.py"
DEFAULT_NOTEBOOK = "01_differencing_attacks.ipynb"
BASELINE = ["numpy", "pandas", "matplotlib.pyplot", "IPython", "ipywidgets", "dpteach"]
MB = 1e6
MARK = "OTTER-WEIGHT "

# run in a fresh process (python -c) or a fresh kernel: timed steps, then the memory figures
CHILD = r'''
import json as _j, resource as _r, time as _t
def _status():
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) / 1024
    return out
_times = {}
for _label, _code in STEPS:
    _t0 = _t.perf_counter()
    exec(_code, globals())
    _times[_label] = _t.perf_counter() - _t0
print(MARK + _j.dumps({"times": _times,
                       "maxrss": _r.getrusage(_r.RUSAGE_SELF).ru_maxrss / 1024,
                       **_status()}))
'''


def _scenarios(notebook: str, baseline: list[str]) -> dict[str, list[tuple[str, str]]]:
    base = ("baseline", "import " + ", ".join(baseline))
    otter = ("otter", f"import otter\ngrader = otter.Notebook({notebook!r})")
    return {"baseline": [base], "+ otter": [base, otter], "otter alone": [otter]}


def _child_code(steps: list[tuple[str, str]]) -> str:
    return f"STEPS = {steps!r}\nMARK = {MARK!r}\n" + CHILD


def _parse(text: str) -> dict:
    for line in text.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    raise RuntimeError(f"no result in the child's output:\n{text[-3000:]}")


def run_process(steps, cwd: Path) -> dict:
    env = dict(os.environ, MPLBACKEND="Agg")
    run = subprocess.run([sys.executable, "-c", _child_code(steps)], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=300)
    if run.returncode:
        raise RuntimeError(run.stdout + run.stderr)
    return _parse(run.stdout)


def run_kernel(steps, cwd: Path) -> dict:
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3", cwd=str(cwd),
                              stderr=subprocess.DEVNULL)   # its TCP warning
    out: list[str] = []

    def hook(msg):
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            out.append("\n".join(msg["content"]["traceback"]))
    try:
        kc.execute_interactive(_child_code(steps), output_hook=hook, timeout=300)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return _parse("".join(out))


def student_edition(notebook: str, folder: Path) -> Path:
    """The student edition of ``notebooks/<notebook>``, built into ``folder``."""
    run = subprocess.run([sys.executable, str(BUILD_SCRIPT), "--out", str(folder),
                          str(ROOT / "notebooks" / notebook)],
                         capture_output=True, text=True, timeout=600)
    if run.returncode:
        raise RuntimeError(run.stdout + run.stderr)
    return folder / notebook


def measure_memory(notebook: str, n: int, kernel: bool, baseline: list[str]) -> dict:
    scenarios = _scenarios(notebook, baseline)
    modes = [("process", run_process)] + ([("kernel", run_kernel)] if kernel else [])
    results = {(mode, name): [] for mode, _ in modes for name in scenarios}
    with tempfile.TemporaryDirectory(prefix="otter-weight-nb-") as tmp:
        student_edition(notebook, Path(tmp))
        for i in range(n + 1):                       # round 0: warm-up (file cache), discarded
            for mode, runner in modes:
                for name, steps in scenarios.items():
                    row = runner(steps, Path(tmp))
                    if i:
                        results[(mode, name)].append(row)
    return results


# --------------------------------------------------------------------------- install part
def _dir_size(path: Path) -> int:
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    return total


def _site_packages(venv: Path) -> Path:
    (sp,) = venv.glob("lib/python*/site-packages")
    return sp


def _distributions(site: Path) -> dict[str, int]:
    """{normalised distribution name: installed bytes (files in its RECORD)}."""
    dists = {}
    for info in site.glob("*.dist-info"):
        name = info.name[: -len(".dist-info")].rsplit("-", 1)[0].lower().replace("_", "-")
        size = 0
        record = info / "RECORD"
        if record.exists():
            for line in record.read_text(encoding="utf-8").splitlines():
                rel = line.split(",")[0]
                p = (site / rel).resolve()
                if p.is_file():
                    size += p.stat().st_size
        dists[name] = size
    return dists


def _wheel_sizes(wheelhouse: Path) -> dict[str, int]:
    return {w.name.split("-")[0].lower().replace("_", "-"): w.stat().st_size
            for w in wheelhouse.glob("*.whl")}


def _without_otter(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.strip().lower().startswith("otter-grader"))


def _run(cmd: list[str]) -> None:
    """Run quietly (pip warns about every page missing from the local extra indexes)."""
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{run.stdout[-3000:]}{run.stderr[-3000:]}")


def install_venv(python: str, venv: Path, requirements: Path, wheelhouse: Path) -> float:
    _run([python, "-m", "venv", str(venv)])
    cmd = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-index",
           "--find-links", str(wheelhouse), "-r", str(requirements)]
    start = time.perf_counter()
    _run(cmd)
    return time.perf_counter() - start


def measure_install(python: str, reps: int, keep: Path | None) -> dict:
    base = Path(tempfile.mkdtemp(prefix="otter-weight-venv-", dir=keep))
    try:
        reqs = {"with otter": base / "requirements.txt",
                "without otter": base / "requirements-no-otter.txt"}
        text = REQUIREMENTS.read_text(encoding="utf-8")
        reqs["with otter"].write_text(text, encoding="utf-8")
        reqs["without otter"].write_text(_without_otter(text), encoding="utf-8")
        assert _without_otter(text) != text, "requirements.txt has no otter-grader line"
        wheelhouse = base / "wheels"
        start = time.perf_counter()
        _run([sys.executable, "-m", "pip", "wheel", "--quiet", "-w", str(wheelhouse),
              "-r", str(reqs["with otter"])])
        prepare = time.perf_counter() - start
        times = {k: [] for k in reqs}
        sizes, dists = {}, {}
        for rep in range(reps):
            order = list(reqs) if rep % 2 == 0 else list(reqs)[::-1]
            for label in order:
                venv = base / f"venv-{label.replace(' ', '-')}-{rep}"
                times[label].append(install_venv(python, venv, reqs[label], wheelhouse))
                site = _site_packages(venv)
                sizes[label] = _dir_size(site)
                dists[label] = _distributions(site)
                if rep < reps - 1 and keep is None:
                    shutil.rmtree(venv)
        return {"prepare": prepare, "times": times, "sizes": sizes, "dists": dists,
                "wheels": _wheel_sizes(wheelhouse), "where": base}
    finally:
        if keep is None:
            shutil.rmtree(base, ignore_errors=True)


# --------------------------------------------------------------------------- report
def _spread(xs: list[float], fmt: str) -> str:
    return f"{format(statistics.median(xs), fmt)} | {format(min(xs), fmt)}–{format(max(xs), fmt)}"


def report_install(res: dict, python: str, reps: int) -> None:
    w, wo = "with otter", "without otter"
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
    print("\ndistributions only otter-grader brings in (installed size, wheel size):")
    print("| distribution | installed (MB) | wheel (MB) |")
    print("|---|---:|---:|")
    for d in extra:
        wheel = res["wheels"].get(d)
        print(f"| {d} | {res['dists'][w][d] / MB:.2f} | "
              f"{'—' if wheel is None else f'{wheel / MB:.2f}'} |")
    total_wheel = sum(res["wheels"].get(d, 0) for d in extra)
    print(f"| **total** | {sum(res['dists'][w][d] for d in extra) / MB:.2f} | "
          f"{total_wheel / MB:.2f} |")


def report_memory(results: dict, n: int, notebook: str, baseline: list[str]) -> None:
    print(f"\n(b) memory, (c) import time: {n} fresh runs each (after one warm-up round); "
          f"baseline = import {', '.join(baseline)}; otter = `import otter; "
          f"grader = otter.Notebook({notebook!r})`")
    print("| where | imports | peak RSS ru_maxrss median (MiB) | min–max | VmRSS median (MiB) "
          "| min–max | otter step median (s) | min–max (s) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for (mode, name), rows in results.items():
        t = [r["times"]["otter"] for r in rows if "otter" in r["times"]]
        times = _spread(t, ".2f") if t else "— | —"
        print(f"| {mode} | {name} | {_spread([r['maxrss'] for r in rows], '.0f')} | "
              f"{_spread([r['VmRSS'] for r in rows], '.0f')} | {times} |")
    for mode in sorted({m for m, _ in results}):
        base, plus = results[(mode, "baseline")], results[(mode, "+ otter")]
        d_peak = (statistics.median(r["maxrss"] for r in plus)
                  - statistics.median(r["maxrss"] for r in base))
        d_rss = (statistics.median(r["VmRSS"] for r in plus)
                 - statistics.median(r["VmRSS"] for r in base))
        print(f"{mode}: otter adds {d_peak:+.0f} MiB peak RSS, {d_rss:+.0f} MiB current RSS "
              f"(medians; baseline median import time "
              f"{statistics.median(r['times']['baseline'] for r in base):.2f} s)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1, help="install repetitions (slow)")
    parser.add_argument("--n", type=int, default=5, help="memory/import-time runs per scenario")
    parser.add_argument("--no-install", action="store_true", help="skip (a), the slow part")
    parser.add_argument("--no-memory", action="store_true", help="skip (b) and (c)")
    parser.add_argument("--no-kernel", dest="kernel", action="store_false",
                        help="(b) in plain processes only, not also in IPython kernels")
    parser.add_argument("--python", default="python3",
                        help="the interpreter that creates the install venvs (default python3)")
    parser.add_argument("--notebook", default=DEFAULT_NOTEBOOK,
                        help="the master whose student edition otter.Notebook reads")
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
        installed = measure_install(args.python, args.reps, args.keep)
        print(f"  install part: {time.perf_counter() - t0:.0f} s, load average now "
              f"{os.getloadavg()[0]:.2f}")
    if not args.no_memory:
        memory = measure_memory(args.notebook, args.n, args.kernel, BASELINE)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"total {time.perf_counter() - t0:.0f} s")
    if installed:
        report_install(installed, args.python, args.reps)
        if args.keep:
            print(f"(venvs kept in {installed['where']})")
    if memory:
        report_memory(memory, args.n, args.notebook, BASELINE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
