"""Grade one submission with otter-grader, without the stall; write the result as JSON.

``scripts/grade_class.py`` runs this in a subprocess per submission (so a time limit can
kill it with its kernel); ``benchmarks/bench_grading.py`` runs it many times. Usage::

    python scripts/_grade_one.py AUTOGRADER_ZIP SUBMISSION.ipynb RESULT.json \
        [--kernel-pid-file FILE] [--poll-slice SECONDS]

RESULT.json gets ``{"questions": {q: {"score", "possible", "tests": [...]}}, "total",
"possible", "seconds", "cell_errors": [...], "catastrophic_error": str | null}``.

Why not ``otter run``: otter executes the notebook with nbconvert's ``ExecutePreprocessor``
and no cell timeout, so nbclient waits for each cell's reply with one unbounded
``get_msg(timeout=None)``. About one grading of notebook 03 in 5-10 loses the wake-up for
the reply of its first widget cell (the reply is in the socket, the wait never notices;
scripts/_nbrun.py), and then never finishes. Here otter's grading runs unchanged except that
its kernel client polls in short slices (``_nbrun.poll_in_slices``), which reads such a reply
within half a second.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _nbrun  # noqa: E402  (next to this file)


@contextlib.contextmanager
def otter_polls_in_slices(kernel_pid_file: Path | None = None):
    """While active, otter's notebook execution polls its kernel channels in slices.

    ``otter.execute.grade_notebook`` imports ``ExecutePreprocessor`` from
    ``nbconvert.preprocessors`` when it is called and builds it with its own config, so the
    only way in is that name: it is swapped for a subclass whose new kernel client gets
    sliced polling before any cell runs. With ``kernel_pid_file``, the kernel's process
    group id is written there (jupyter_client starts the kernel in a session of its own, so
    whoever kills this process on a time limit must kill the kernel's group too).
    """
    import nbconvert.preprocessors as preprocessors
    from jupyter_core.utils import run_sync

    original = preprocessors.ExecutePreprocessor

    class SlicedExecutePreprocessor(original):
        async def async_start_new_kernel_client(self):
            kc = await super().async_start_new_kernel_client()
            _nbrun.poll_in_slices(kc)
            pgid = getattr(self.km.provisioner, "pgid", None)
            if kernel_pid_file is not None and pgid:
                kernel_pid_file.write_text(str(pgid))
            return kc

        # nbclient binds the synchronous name to the base class's coroutine: rebind it
        start_new_kernel_client = run_sync(async_start_new_kernel_client)

    preprocessors.ExecutePreprocessor = SlicedExecutePreprocessor
    try:
        yield
    finally:
        preprocessors.ExecutePreprocessor = original


def _cell_errors(notebook) -> list[str]:
    """"ExceptionName: message" of every cell of the executed notebook that raised."""
    errors = []
    for cell in getattr(notebook, "cells", None) or []:
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            if output.get("output_type") == "error":
                errors.append(f"{output.get('ename')}: {output.get('evalue', '')}"[:300])
    return errors


def grade(autograder_zip: Path, submission: Path, sliced: bool = True,
          kernel_pid_file: Path | None = None) -> dict:
    """Grade ``submission`` with every test of ``autograder_zip``; a JSON-ready dict."""
    from otter.api import grade_submission

    start = time.perf_counter()
    with otter_polls_in_slices(kernel_pid_file) if sliced else contextlib.nullcontext():
        results = grade_submission(str(submission), str(autograder_zip), quiet=True)
    questions = {}
    for name, test_file in results.results.items():
        questions[name] = {
            "score": test_file.score,
            "possible": test_file.possible,
            "tests": [{"name": r.test_case.name, "hidden": r.test_case.hidden,
                       "passed": r.passed, "message": (r.message or "").strip()}
                      for r in test_file.test_case_results],
        }
    error = results.catastrophic_error
    return {"questions": questions, "total": results.total, "possible": results.possible,
            "catastrophic_error": None if error is None else f"{type(error).__name__}: {error}",
            "cell_errors": _cell_errors(results.notebook),
            "seconds": round(time.perf_counter() - start, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("autograder", type=Path, help="the autograder zip (otter assign)")
    parser.add_argument("submission", type=Path, help="the notebook to grade")
    parser.add_argument("result", type=Path, help="where the JSON result goes")
    parser.add_argument("--poll-slice", type=float, default=_nbrun.POLL_SLICE,
                        help="longest single wait on a kernel channel, in seconds (default "
                             "%(default)s); 0 grades exactly as `otter run` does, which can "
                             "stall (for benchmarks/bench_grading.py)")
    parser.add_argument("--kernel-pid-file", type=Path, default=None,
                        help="write the kernel's process group id here once it has started")
    args = parser.parse_args(argv)
    _nbrun.POLL_SLICE = args.poll_slice or _nbrun.POLL_SLICE
    result = grade(args.autograder.resolve(), args.submission.resolve(),
                   sliced=args.poll_slice > 0, kernel_pid_file=args.kernel_pid_file)
    args.result.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
