"""What a student meets in each notebook: lesson words, code cells, lesson code lines, the
median and largest lesson cell, asserts in lesson cells and in check cells.

    python scripts/notebook_stats.py                 # notebooks/ in the working tree
    python scripts/notebook_stats.py --rev 359e137   # any commit (read with git show)
    python scripts/notebook_stats.py --minutes       # the syllabus's time estimate

The time estimate (the syllabus, README "Syllabus", states it; tests/notebooks/test_syllabus.py
checks README against it)::

    minutes = lesson words / 150 + 1.5 × lesson code cells + 10 × exercises

reading technical prose at 150 words a minute, running and reading a cell in a minute and a
half, ten minutes an exercise (an otter question: a raw cell ``# BEGIN QUESTION``). Core time
leaves out the numbered sections a notebook does not teach in the core course (its "Going
further" sections, or the sections the syllabus names).

Definitions:

* a *check cell* is a code cell tagged ``check`` (docs/notebooks.md); otter's exercise
  machinery (raw cells and the test cells between ``# BEGIN TESTS`` and ``# END TESTS``)
  is neither lesson nor check;
* *lesson words*: whitespace-separated words of the markdown cells (math included, as a
  student reads it);
* *lesson code cells* and *lines*: code cells that are not check cells nor otter tests;
  lines are non-blank source lines.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECK_TAG = "check"


def source(cell: dict) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def classify(nb: dict) -> list[tuple[str, dict]]:
    """(kind, cell) for every cell: "markdown", "lesson", "check", "otter"."""
    out, in_tests = [], False
    for cell in nb["cells"]:
        src = source(cell)
        if cell["cell_type"] == "raw":
            first = src.strip().splitlines()[0].lower() if src.strip() else ""
            if "begin tests" in first:
                in_tests = True
            elif "end tests" in first:
                in_tests = False
            out.append(("otter", cell))
        elif cell["cell_type"] == "markdown":
            out.append(("markdown", cell))
        elif in_tests:
            out.append(("otter", cell))
        elif CHECK_TAG in cell.get("metadata", {}).get("tags", []):
            out.append(("check", cell))
        else:
            out.append(("lesson", cell))
    return out


def stats(nb: dict) -> dict:
    cells = classify(nb)
    lesson = [source(c) for k, c in cells if k == "lesson"]
    lengths = [sum(1 for line in s.splitlines() if line.strip()) for s in lesson]
    asserts = re.compile(r"^\s*assert\b", re.M)
    return {
        "words": sum(len(source(c).split()) for k, c in cells if k == "markdown"),
        "code_cells": len(lesson),
        "lesson_lines": sum(lengths),
        "median_cell": statistics.median(lengths) if lengths else 0,
        "largest_cell": max(lengths, default=0),
        "lesson_asserts": sum(len(asserts.findall(s)) for s in lesson),
        "check_cells": sum(1 for k, _ in cells if k == "check"),
        "check_asserts": sum(len(asserts.findall(source(c))) for k, c in cells if k == "check"),
    }


WORDS_PER_MINUTE, MINUTES_PER_CELL, MINUTES_PER_EXERCISE = 150, 1.5, 10
#: a numbered section's heading: "## 3. Title" or "## Going further: 3. Title"
SECTION = re.compile(r"^##\s+(?:(Going further):\s*)?(\d+)\.", re.M)


def sections(nb: dict) -> list[tuple[int | None, bool, str, dict]]:
    """(section number, "Going further"?, kind, cell) for every cell. A section runs from its
    ``## N.`` heading to the next level-2 heading; cells outside numbered sections (the
    introduction, summary, exercises) have number None."""
    out, number, further = [], None, False
    for kind, cell in classify(nb):
        if kind == "markdown":
            src = source(cell)
            heading = next((line for line in src.splitlines() if re.match(r"##\s", line)), None)
            if heading is not None:
                m = SECTION.match(heading)
                number, further = (int(m.group(2)), bool(m.group(1))) if m else (None, False)
        out.append((number, further, kind, cell))
    return out


def is_exercise(cell: dict) -> bool:
    """An otter question: a raw cell whose first line is ``# BEGIN QUESTION``."""
    src = source(cell).strip()
    return cell["cell_type"] == "raw" and bool(src) and \
        src.splitlines()[0].strip().lower() == "# begin question"


def minutes(nb: dict, core: set[int] | None = None) -> float:
    """The time estimate of a notebook, in minutes: lesson words / 150 + 1.5 × lesson code
    cells + 10 × exercises. With ``core`` (the numbered sections of the core course), the
    other numbered sections are left out; without it, the whole notebook."""
    words = cells = exercises = 0
    for number, _, kind, cell in sections(nb):
        if core is not None and number is not None and number not in core:
            continue
        if kind == "markdown":
            words += len(source(cell).split())
        elif kind == "lesson":
            cells += 1
        elif is_exercise(cell):
            exercises += 1
    return words / WORDS_PER_MINUTE + MINUTES_PER_CELL * cells + MINUTES_PER_EXERCISE * exercises


def core_sections(nb: dict) -> set[int]:
    """The numbered sections not headed "Going further"."""
    return {n for n, further, _, _ in sections(nb) if n is not None and not further}


def notebooks(rev: str | None) -> dict[str, dict]:
    if rev is None:
        return {p.name: json.loads(p.read_text()) for p in sorted((ROOT / "notebooks").glob("*.ipynb"))}
    names = subprocess.run(["git", "ls-tree", "--name-only", rev, "notebooks/"], cwd=ROOT,
                           check=True, capture_output=True, text=True).stdout.split()
    return {Path(n).name: json.loads(subprocess.run(["git", "show", f"{rev}:{n}"], cwd=ROOT,
                                                    check=True, capture_output=True,
                                                    text=True).stdout)
            for n in names if n.endswith(".ipynb")}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--minutes", action="store_true",
                        help="the time estimate: whole notebook, and without 'Going further'")
    args = parser.parse_args(argv)
    if args.minutes:
        print(f"{'notebook':48s} {'minutes':>8s} {'core':>8s}  core sections")
        for name, nb in notebooks(args.rev).items():
            core = core_sections(nb)
            print(f"{name:48s} {minutes(nb):8.1f} {minutes(nb, core):8.1f}  {sorted(core)}")
        return
    table = {name: stats(nb) for name, nb in notebooks(args.rev).items()}
    if args.json:
        print(json.dumps(table, indent=1))
        return
    cols = ("words", "code_cells", "lesson_lines", "median_cell", "largest_cell",
            "lesson_asserts", "check_cells", "check_asserts")
    print(f"{'notebook':48s} " + " ".join(f"{c:>14s}" for c in cols))
    for name, row in table.items():
        print(f"{name:48s} " + " ".join(f"{row[c]:>14}" for c in cols))
    print(f"{'total':48s} " + " ".join(
        f"{sum(r[c] for r in table.values()):>14}" if c not in ('median_cell',) else f"{'':>14}"
        for c in cols))


if __name__ == "__main__":
    main(sys.argv[1:])
