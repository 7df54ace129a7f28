"""What a student meets in each notebook: lesson words, code cells, lesson code lines, the
median and largest lesson cell, asserts in lesson cells and in check cells.

    python scripts/notebook_stats.py                 # notebooks/ in the working tree
    python scripts/notebook_stats.py --rev 359e137   # any commit (read with git show)

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
    args = parser.parse_args(argv)
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
