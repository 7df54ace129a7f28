"""Execute the course notebooks headless and export each one to HTML: ``make render``.

Each master in notebooks/ (or each notebook named on the command line) is run top to
bottom in a fresh kernel with nbclient, every cell under a time limit, and written as a
static page to ``build/render/<name>.html``. The check cells (tag ``check``,
docs/notebooks.md) run like every other cell, so a claim that no longer holds fails the
render, but they are removed from the page (nbconvert's TagRemovePreprocessor): the page
is for reading, as the student editions and the course book are.

A notebook whose cell raises, exceeds the time limit or kills its kernel is still written
(up to the failing cell, with its traceback) so that one can see where it stopped; the
script goes on with the next notebook and exits with status 1 at the end, naming each
failure.

    python scripts/render_notebooks.py                               # every master
    python scripts/render_notebooks.py 00_why_anonymization_fails 03_randomized_response
    python scripts/render_notebooks.py path/to/any.ipynb --out somewhere --timeout 120
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
OUT = ROOT / "build" / "render"
#: seconds one cell may run before the render of its notebook fails
CELL_TIMEOUT = 300
#: the tag of the cells that check the text's claims (docs/notebooks.md)
CHECK_TAG = "check"


def resolve(name: str) -> Path:
    """The notebook a command-line argument names: a path, or a master's name with or
    without ``.ipynb``."""
    path = Path(name)
    if path.suffix == ".ipynb" and path.exists():
        return path.resolve()
    master = NOTEBOOKS / (path.stem + ".ipynb")
    if master.exists():
        return master
    raise SystemExit(f"render: no notebook {name!r} (neither a path nor a master in {NOTEBOOKS})")


def execute(notebook, cwd: Path, timeout: int) -> str | None:
    """Run ``notebook`` (an nbformat node, filled with its outputs in place) in a kernel
    started in ``cwd``; None if every cell ran, else what went wrong."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    sys.path.insert(0, str(ROOT / "scripts"))
    from _nbrun import execute as run   # nbclient without its stall after widget cells

    client = NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                            allow_errors=False, resources={"metadata": {"path": str(cwd)}})
    try:
        run(client)
    except CellTimeoutError:
        return f"a cell ran longer than {timeout} s"
    except DeadKernelError as exc:
        return f"the kernel died: {exc}"
    except CellExecutionError as exc:
        return f"{exc.ename}: {exc.evalue}"   # its traceback is in the page
    return None


def to_html(notebook) -> str:
    """The page of an executed notebook, its check cells removed."""
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import TagRemovePreprocessor

    exporter = HTMLExporter()
    exporter.register_preprocessor(
        TagRemovePreprocessor(remove_cell_tags={CHECK_TAG}, enabled=True), enabled=True)
    body, _ = exporter.from_notebook_node(notebook)
    return body


def render(path: Path, out: Path, timeout: int) -> str | None:
    """Execute ``path`` and write ``out/<name>.html``; None on success, else the failure."""
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    failure = execute(notebook, path.parent, timeout)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{path.stem}.html").write_text(to_html(notebook), encoding="utf-8")
    return failure


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*",
                        help="masters' names or notebook paths (default: every master)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"folder of the pages ({OUT})")
    parser.add_argument("--timeout", type=int, default=CELL_TIMEOUT,
                        help=f"seconds per cell ({CELL_TIMEOUT})")
    args = parser.parse_args(argv)

    paths = ([resolve(name) for name in args.notebooks] if args.notebooks
             else sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")))
    failures = {}
    for path in paths:
        print(f"render: {path.stem} ...", flush=True)
        failure = render(path, args.out, args.timeout)
        if failure is not None:
            failures[path.stem] = failure
            print(f"render: {path.stem} FAILED: {failure}", flush=True)
    for name, failure in failures.items():
        print(f"render: FAILED {name}: {failure} (see {args.out / (name + '.html')})",
              file=sys.stderr)
    print(f"render: {len(paths) - len(failures)} of {len(paths)} notebooks into {args.out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
