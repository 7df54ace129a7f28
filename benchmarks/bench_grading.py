"""Benchmark: grading never stalls (repeated gradings), and how long a class takes.

The grading issue: ``otter run`` on the randomized-response notebook (03_randomized_response,
numbered 02 then) did not finish in 4 of 17 runs (the reply to its first
widget cell is sometimes never noticed, and otter waits for it without a timeout;
scripts/_nbrun.py). This repeats the grading that ``make grade`` uses
(``scripts/_grade_one.py``: otter's grading with the kernel client polling in slices), each
in a fresh subprocess killed at ``--limit`` seconds, on two submissions of ``--notebook``:

* ``master``: the autograder edition (the master with its solutions): must score full marks;
* ``untouched``: the student edition as downloaded: must score 0.

``--runs`` of each (default 50), alternating, ``--workers`` at a time (make grade uses 2),
first without load, then with two busy loops beside it (``yes > /dev/null``, twice: one per core of the 2-core machine it was
written for; ``--no-load`` / ``--no-quiet`` skip a phase). Reported per phase and kind:
how many finished, how many scored right, and the grading's wall time (median, 95th
percentile, min-max). The 1-minute load average is printed around each phase (the machine
is shared).

``--poll-slice 0`` grades exactly as ``otter run`` does (no slices), for the before/after
comparison: a stalled grading waits until it is killed, so give it a ``--limit`` well above
the slowest normal grading (they took up to 81 s on the busy shared machine).
``--poll-slice 10`` makes every lost wake-up cost exactly 10 s instead of forever, so the
stalls can be counted in gradings that still finish.

``--class-size 30`` (instead of the repetitions) times ``grade_class.py`` on a class of that
many submissions of the notebook, mixed as a real class might be (tests/_submissions.py:
about a third complete, partial and wrong answers, a few untouched, one cell that raises,
one endless loop, one corrupted file, one other notebook), with its default time limit and
2 workers.

Run: ``.venv/bin/python benchmarks/bench_grading.py --workers 2 [--runs 50] [--limit 300]``
(each phase about 45 minutes on the shared 2-core machine at load average 15-29),
``... --class-size 30`` (17 minutes there). Results: benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
sys.path[:0] = [str(SCRIPTS), str(ROOT / "tests")]
import _submissions  # noqa: E402  (tests/_submissions.py)
import grade_class  # noqa: E402  (scripts/grade_class.py)

# a class of 30, as it might come in (scaled for other sizes)
CLASS_MIX = {"complete": 10, "partial": 6, "wrong_answer": 4, "untouched": 3, "raises": 2,
             "renamed": 1, "endless_loop": 1, "corrupted": 1, "other_notebook": 1,
             "not_a_notebook": 1}


def load_average() -> str:
    return f"{os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "?"


def build(notebook: str, out: Path) -> tuple[Path, Path, Path]:
    """(student edition, autograder edition, autograder zip) of ``notebook``."""
    run = subprocess.run([sys.executable, str(SCRIPTS / "build_student_editions.py"),
                          "--out", str(out / "student"), "--autograder", str(out / "ag"),
                          str(ROOT / "notebooks" / f"{notebook}.ipynb")],
                         capture_output=True, text=True)
    if run.returncode:
        raise SystemExit(run.stdout + run.stderr)
    folder = out / "ag" / notebook
    return (out / "student" / f"{notebook}.ipynb", folder / f"{notebook}.ipynb",
            next(folder.glob("*-autograder_*.zip")))


def grade_once(zip_path: Path, submission: Path, work: Path, limit: float,
               poll_slice: float) -> tuple[bool, float, float | None]:
    """One grading in a fresh subprocess: (finished, wall seconds, score or None)."""
    result, pid_file = work / "result.json", work / "kernel.pgid"
    for stale in (result, pid_file):
        stale.unlink(missing_ok=True)
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, str(SCRIPTS / "_grade_one.py"), str(zip_path), str(submission),
         str(result), "--kernel-pid-file", str(pid_file), "--poll-slice", str(poll_slice)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        process.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        grade_class._kill(process, pid_file)
        return False, time.perf_counter() - start, None
    seconds = time.perf_counter() - start
    if process.returncode or not result.exists():
        return True, seconds, None
    return True, seconds, json.loads(result.read_text())["total"]


def summarise(times: list[float]) -> str:
    if not times:
        return "-"
    p95 = statistics.quantiles(times, n=20, method="inclusive")[18] if len(times) > 1 \
        else times[0]
    return (f"median {statistics.median(times):.1f} s, p95 {p95:.1f} s, "
            f"{min(times):.1f}-{max(times):.1f} s")


def repeated(args, tmp: Path) -> dict:
    student, autograder, zip_path = build(args.notebook, tmp)
    kinds = {"master": (autograder, 4.0), "untouched": (student, 0.0)}
    for name, (path, _) in kinds.items():           # each in a folder of its own, by name
        folder = tmp / "sub" / name
        folder.mkdir(parents=True)
        kinds[name] = ((folder / path.name).resolve(), kinds[name][1])
        (folder / path.name).write_bytes(path.read_bytes())
    phases = [p for p, on in (("quiet", args.quiet), ("loaded", args.load)) if on]
    report = {}
    for phase in phases:
        loops = []
        if phase == "loaded":
            loops = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL)   # yes > /dev/null &
                     for _ in range(2)]
        print(f"{phase}: load average {load_average()} at the start", flush=True)
        try:
            stats = {k: {"finished": 0, "right": 0, "times": [], "scores": Counter()}
                     for k in kinds}
            tasks = [(i, kind) for i in range(args.runs) for kind in kinds]

            def one(task):
                i, kind = task
                work = tmp / "work" / f"{phase}-{i}-{kind}"
                work.mkdir(parents=True)
                return task, grade_once(zip_path, kinds[kind][0], work, args.limit,
                                        args.poll_slice)

            with concurrent.futures.ThreadPoolExecutor(args.workers) as pool:
                for (i, kind), (finished, seconds, score) in pool.map(one, tasks):
                    s, want = stats[kind], kinds[kind][1]
                    s["finished"] += finished
                    s["right"] += score == want
                    s["scores"][str(score) if finished else "did not finish"] += 1
                    if finished:
                        s["times"].append(seconds)
                    print(f"  {phase} {i + 1:3d} {kind:9s} "
                          f"{'finished' if finished else 'KILLED':8s} {seconds:6.1f} s "
                          f"score {score} load {load_average()}", flush=True)
        finally:
            for loop in loops:
                loop.kill()
                loop.wait()
        print(f"{phase}: load average {load_average()} at the end", flush=True)
        report[phase] = stats
    print(f"\n{args.notebook}, poll slice {args.poll_slice} s, limit {args.limit:.0f} s, "
          f"{args.workers} at a time, "
          f"{args.runs} gradings of each kind per phase:")
    for phase, stats in report.items():
        for kind, s in stats.items():
            print(f"  {phase:6s} {kind:9s}: {s['finished']}/{args.runs} finished, "
                  f"{s['right']}/{args.runs} right score ({dict(s['scores'])}); "
                  f"{summarise(s['times'])}")
    return report


def class_of(args, tmp: Path) -> None:
    student, autograder, _ = build(args.notebook, tmp)
    other = "01_differencing_attacks" if args.notebook != "01_differencing_attacks" \
        else "03_randomized_response"
    other_student, other_autograder, _ = build(other, tmp / "other")
    other_complete = _submissions.make("complete", other_student, other_autograder, tmp,
                                       name="other-complete.ipynb")
    scale = args.class_size / sum(CLASS_MIX.values())
    mix = {k: max(1, round(n * scale)) for k, n in CLASS_MIX.items()}
    mix["complete"] += args.class_size - sum(mix.values())
    folder = tmp / "class"
    folder.mkdir()
    n = 0
    for kind, count in mix.items():
        for _ in range(count):
            n += 1
            suffix = {"renamed": ".json", "not_a_notebook": ".pdf"}.get(kind, ".ipynb")
            _submissions.make(kind, student, autograder, folder, other_complete,
                              name=f"student{n:02d}-{kind}{suffix}")
    print(f"class of {n}: {mix}; load average {load_average()}", flush=True)
    start = time.perf_counter()
    rows = grade_class.grade_class(grade_class.resolve_assignment(args.notebook), folder,
                                   tmp / "grades", workers=2)
    seconds = time.perf_counter() - start
    counts = Counter(r.status for r in rows)
    graded = [r.seconds for r in rows if r.seconds is not None and r.status == "graded"]
    print(f"\nclass of {n} on {os.cpu_count()} cores, 2 workers: {seconds:.0f} s in all "
          f"({seconds / 60:.1f} min, building the autograder and grading the solutions "
          f"included); {dict(counts)}; graded submissions {summarise(graded)}; load average "
          f"{load_average()} at the end")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notebook", default="03_randomized_response")
    parser.add_argument("--runs", type=int, default=50, help="gradings of each kind per phase")
    parser.add_argument("--limit", type=float, default=300.0,
                        help="seconds before a grading counts as not finished (killed)")
    parser.add_argument("--poll-slice", type=float, default=0.5,
                        help="0: exactly as `otter run` (can stall); default %(default)s")
    parser.add_argument("--workers", type=int, default=1,
                        help="gradings at a time (make grade uses 2); default %(default)s")
    parser.add_argument("--no-quiet", dest="quiet", action="store_false")
    parser.add_argument("--no-load", dest="load", action="store_false")
    parser.add_argument("--class-size", type=int, default=0,
                        help="time grade_class.py on a mixed class of this many instead")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        if args.class_size:
            class_of(args, Path(tmp))
        else:
            repeated(args, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
