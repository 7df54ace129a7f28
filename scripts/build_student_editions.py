"""Build the student edition of every notebook (otter-grader's ``otter assign``).

The notebooks in ``notebooks/`` are the instructor masters. A master whose first cell is an
otter assignment-config raw cell (``# ASSIGNMENT CONFIG``) holds its exercises in otter's
notebook format (v1): ``# BEGIN QUESTION`` / ``# BEGIN SOLUTION`` / ``# BEGIN TESTS`` raw cells,
exception-based tests, hidden ones marked ``# HIDDEN``. For those, ``otter assign`` writes

* the student edition: solutions replaced by ``...``, tests replaced by ``grader.check("qN")``
  cells, only the public tests kept (in the notebook's metadata), and an ``import otter`` cell
  at the top; this script copies it to ``student/`` with deterministic cell ids, without
  the check cells (cells tagged ``check``: the proof behind the lesson, docs/notebooks.md),
  and with ``show_feedback_first()`` in that first cell (a failed check shows its message
  first: ``dpteach.exercises``);
* the autograder edition (solutions, every test including the hidden ones) and an autograder
  zip for ``otter run``; kept only with ``--autograder DIR``.

Masters without an assignment config (no exercises converted yet) are copied unchanged, so
``student/`` always holds the whole course. A master with otter markers but no config is an
error (its solutions would leak).

Usage::

    python scripts/build_student_editions.py                  # all notebooks -> student/
    python scripts/build_student_editions.py --out DIR --autograder DIR2 notebooks/01_*.ipynb

``make student`` runs the first form; ``binder/postBuild`` runs it when Binder builds the image.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
STUDENT = ROOT / "student"

# the same patterns otter.assign uses to recognise its cells (raw cells, first line)
_CONFIG = re.compile(r"#\s+assignment\s+config\s*", re.IGNORECASE)
_MARKER = re.compile(r"#\s+(begin|end)\s+(question|solution|tests|prompt)\s*", re.IGNORECASE)

STUDENT_README = """\
# Student editions (generated: do not edit here)

These notebooks are built from the instructor masters in `../notebooks/` by
`make student` (`scripts/build_student_editions.py`, which runs otter-grader's
`otter assign`). Each exercise has a cell with `...` to replace and a
`grader.check("q1")` cell that tests your answer. Edit the masters, not these files:
`make student` overwrites them. See `../docs/exercises.md`.
"""


def _first_line(cell: dict) -> str:
    source = cell.get("source", "")
    text = "".join(source) if isinstance(source, list) else source
    return text.lstrip("\n").split("\n", 1)[0]


def has_assignment_config(nb: dict) -> bool:
    """Whether the notebook has an otter assignment-config raw cell."""
    return any(c["cell_type"] == "raw" and _CONFIG.match(_first_line(c)) for c in nb["cells"])


def has_otter_markers(nb: dict) -> bool:
    """Whether the notebook has otter question/solution/tests boundary cells."""
    return any(c["cell_type"] == "raw" and _MARKER.match(_first_line(c)) for c in nb["cells"])


#: the tag of a check cell: the proof behind a lesson cell (docs/notebooks.md); removed here
CHECK_TAG = "check"


def strip_checks(nb: dict) -> dict:
    """The notebook without its check cells (what students and the book see)."""
    nb["cells"] = [c for c in nb["cells"] if CHECK_TAG not in c.get("metadata", {}).get("tags", [])]
    return nb


def _dump(nb: dict) -> str:
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def _normalise(student: dict, master: dict) -> dict:
    """Deterministic cell ids (master ids kept; otter's new cells named after their role)."""
    master_ids = {c.get("id") for c in master["cells"]}
    seen: set[str] = set()
    for i, cell in enumerate(student["cells"]):
        cid = cell.get("id")
        if cid not in master_ids or cid in seen:
            text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            check = re.fullmatch(r'grader\.check\("([^"]+)"\)', text.strip())
            if check:
                cid = f"otter-check-{check.group(1)}"
            elif "import otter" in text:
                cid = "otter-init"
            else:
                cid = f"otter-cell-{i:03d}"
        assert cid not in seen, f"duplicate cell id {cid}"
        seen.add(cid)
        cell["id"] = cid
    return student


#: appended to otter's first cell (``grader = otter.Notebook(...)``) in the student edition
FEEDBACK_FIRST = ("from dpteach.exercises import show_feedback_first\n"
                  "show_feedback_first()  # a failed check shows its message first")


def feedback_first(nb: dict) -> dict:
    """The student edition with :data:`FEEDBACK_FIRST` at the end of otter's first cell."""
    for cell in nb["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and "otter.Notebook(" in text:
            cell["source"] = text.rstrip("\n") + "\n" + FEEDBACK_FIRST
            return nb
    raise SystemExit("otter assign wrote no `grader = otter.Notebook(...)` cell "
                     "(keep `init_cell: true` in the assignment config)")


def assign(master_path: Path, out: Path, autograder: Path | None = None) -> Path:
    """Run ``otter assign`` on one master; write the student edition into ``out``."""
    from otter.assign import main as otter_assign   # slow import (~4 s): only when needed

    master = json.loads(master_path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="otter-assign-") as tmp:
        result = Path(tmp) / "dist"
        log = io.StringIO()
        with contextlib.redirect_stdout(log):
            otter_assign(str(master_path), str(result), no_pdfs=True, no_run_tests=True)
        student = json.loads((result / "student" / master_path.name).read_text(encoding="utf-8"))
        target = out / master_path.name
        student = feedback_first(strip_checks(student))
        target.write_text(_dump(_normalise(student, master)), encoding="utf-8")
        if autograder is not None:
            dest = autograder / master_path.stem
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(result / "autograder", dest)
    return target


def build(masters: list[Path], out: Path = STUDENT, autograder: Path | None = None,
          prune: bool = True) -> dict[str, str]:
    """Build the student editions of ``masters`` into ``out``; returns {name: "assigned"|"copied"}.

    With ``prune`` (the default when building every notebook), student editions whose master
    no longer exists are removed.
    """
    out.mkdir(parents=True, exist_ok=True)
    if autograder is not None:
        autograder.mkdir(parents=True, exist_ok=True)
    kinds: dict[str, str] = {}
    for path in masters:
        nb = json.loads(path.read_text(encoding="utf-8"))
        if has_assignment_config(nb):
            start = time.perf_counter()
            assign(path, out, autograder)
            kinds[path.name] = "assigned"
            print(f"  {path.name}: student edition by otter assign "
                  f"({time.perf_counter() - start:.1f} s)")
        elif has_otter_markers(nb):
            raise SystemExit(f"{path}: has otter BEGIN/END cells but no '# ASSIGNMENT CONFIG' "
                             "raw cell; add one (docs/exercises.md) so its solutions are removed")
        else:
            (out / path.name).write_text(_dump(strip_checks(nb)), encoding="utf-8")
            kinds[path.name] = "copied"
    if prune:
        for stale in sorted(out.glob("*.ipynb")):
            if stale.name not in kinds:
                stale.unlink()
                print(f"  removed {stale.name} (no master)")
    (out / "README.md").write_text(STUDENT_README, encoding="utf-8")
    return kinds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="masters to build (default: every notebooks/*.ipynb)")
    parser.add_argument("--out", type=Path, default=STUDENT,
                        help="where the student editions go (default: student/)")
    parser.add_argument("--autograder", type=Path, default=None,
                        help="also keep otter's autograder editions (solutions, hidden tests, "
                             "autograder zip) in this folder")
    args = parser.parse_args(argv)
    masters = [p.resolve() for p in args.notebooks] or sorted(NOTEBOOKS.glob("*.ipynb"))
    start = time.perf_counter()
    kinds = build(masters, args.out, args.autograder, prune=not args.notebooks)
    n_assigned = sum(k == "assigned" for k in kinds.values())
    print(f"student editions in {args.out}: {n_assigned} built by otter assign, "
          f"{len(kinds) - n_assigned} copied unchanged ({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
