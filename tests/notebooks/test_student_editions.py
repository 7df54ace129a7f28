"""The two editions of the exercise notebooks (otter-grader).

The instructor masters in ``notebooks/`` hold the solutions and every test as ordinary cells;
``pytest --nbval-lax notebooks`` runs them. Here ``scripts/build_student_editions.py`` builds
the student and autograder editions into a temporary folder, and for every master with an
otter assignment config:

* the student edition holds no solution and no hidden test (only the public tests, in its
  metadata), and every question has its ``grader.check`` cell;
* it runs headless with its ``...`` scaffolds: no cell raises, and every
  ``grader.check("qN")`` reports failed cases that all say "not done yet";
* in the same kernel, the master's solutions are then filled in and checked by otter's own
  runner against the autograder edition's tests, public and hidden: all pass. This catches a
  test that passes as a notebook cell but not under otter (for example one that uses a
  notebook global it does not take as an argument).
"""

from __future__ import annotations

import copy
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import _nbrun  # noqa: E402  (scripts/_nbrun.py: nbclient without its stall after widget cells)

SCRIPT = ROOT / "scripts" / "build_student_editions.py"
MASTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))

_spec = importlib.util.spec_from_file_location("build_student_editions", SCRIPT)
builder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(builder)


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


ASSIGNED = [p.name for p in MASTERS if builder.has_assignment_config(_load(p))]
# the model notebooks the authoring guide (docs/exercises.md) points to
MODELS = {"01_differencing_attacks.ipynb", "03_randomized_response.ipynb",
          "04_laplace_and_gaussian.ipynb", "05_composition_and_budget.ipynb"}
CHECK = re.compile(r'^grader\.check\("([^"]+)"\)$')
SOLUTION_TAG = "otter_assign_solution_cell"          # otter's tag on the autograder's solutions


@pytest.fixture(scope="session")
def editions(tmp_path_factory):
    """Student editions and autograder editions of every master, built by the script (once
    per worker: each edition's run is a scheduling unit of its own, see tests/conftest.py)."""
    out = tmp_path_factory.mktemp("editions")
    run = subprocess.run([sys.executable, str(SCRIPT), "--out", str(out / "student"),
                          "--autograder", str(out / "autograder")],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    return out / "student", out / "autograder"


def _source(cell: dict) -> str:
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


def _questions(nb: dict) -> dict[str, str]:
    """{question: test file source} from otter's notebook metadata."""
    return nb["metadata"]["otter"]["tests"]


def _test_functions(test_source: str) -> list[tuple[str, bool]]:
    """[(function name, hidden)] of an exception-based otter test file."""
    return [(name, hidden == "True") for hidden, name in
            re.findall(r"@test_case\([^)]*hidden=(True|False)[^)]*\)\s*def (\w+)", test_source)]


def _solution_lines(master: dict) -> set[str]:
    """Lines of the master's solutions (long enough to be specific) that must not leak."""
    lines, inside = set(), False
    for cell in master["cells"]:
        first = _source(cell).strip().split("\n", 1)[0].lower()
        if cell["cell_type"] == "raw" and re.match(r"#\s+(begin|end)\s+solution", first):
            inside = first.split()[1] == "begin"
            continue
        if not inside:
            continue
        block = cell["cell_type"] == "markdown"     # solution notes: all of them go
        for line in _source(cell).split("\n"):
            stripped = line.strip()
            if stripped.endswith("# BEGIN SOLUTION"):
                block = True
                continue
            if stripped.endswith("# END SOLUTION"):
                block = False
                continue
            if stripped.endswith("# SOLUTION"):
                stripped = stripped[: -len("# SOLUTION")].strip()
            elif not block:
                continue
            if len(stripped) >= 12:
                lines.add(stripped)
    return lines


def test_every_master_has_a_student_edition(editions):
    student, _ = editions
    assert sorted(p.name for p in student.glob("*.ipynb")) == [p.name for p in MASTERS]
    for master in MASTERS:
        built = student / master.name
        if master.name in ASSIGNED:
            first = _source(_load(built)["cells"][0])
            assert f'grader = otter.Notebook("{master.name}")' in first, first
        else:                                       # no exercises converted yet: copied as is
            assert built.read_bytes() == master.read_bytes(), master.name
    assert (student / "README.md").exists()


def test_model_notebooks_are_converted():
    assert MODELS <= set(ASSIGNED), MODELS - set(ASSIGNED)


# ------------------------------------------------ every master ends with 2-4 otter exercises
EXERCISES_PER_NOTEBOOK = (2, 4)         # the classroom issue: "each notebook ends with 2–4"
#: a practice set (NN_practice_*.ipynb) is all exercises: "8–12 problems each" (issue 23)
PRACTICE_PROBLEMS = (8, 12)


def _exercise_limits(name: str) -> tuple[int, int]:
    return PRACTICE_PROBLEMS if "_practice_" in name else EXERCISES_PER_NOTEBOOK


def _question_blocks(nb: dict) -> list[tuple[int, int, dict]]:
    """[(BEGIN QUESTION cell index, END QUESTION cell index, its YAML config)], as otter assign
    reads them: raw cells whose first line is a ``# BEGIN QUESTION`` / ``# END QUESTION``
    marker (the build script's pattern), the rest of the BEGIN cell being the question's YAML.
    A missing END is -1; an END without a BEGIN, or a BEGIN inside a question, raises."""
    blocks, begin, config = [], None, {}
    for i, cell in enumerate(nb["cells"]):
        m = builder._MARKER.match(builder._first_line(cell)) if cell["cell_type"] == "raw" \
            else None
        if not m or m.group(2).lower() != "question":
            continue
        if m.group(1).lower() == "begin":
            if begin is not None:
                raise ValueError(f"cell {i}: BEGIN QUESTION inside the question of cell {begin}")
            body = _source(cell).lstrip("\n").split("\n", 1)
            begin, config = i, (yaml.safe_load(body[1]) if len(body) > 1 else None) or {}
        else:
            if begin is None:
                raise ValueError(f"cell {i}: END QUESTION without a BEGIN QUESTION")
            blocks.append((begin, i, config))
            begin = None
    if begin is not None:
        blocks.append((begin, -1, config))
    return blocks


def _exercise_problems(nb: dict, limits: tuple[int, int] = EXERCISES_PER_NOTEBOOK) -> list[str]:
    """Why ``nb`` does not end with 2–4 exercises (``limits``) in otter's format ([] if it
    does)."""
    try:
        blocks = _question_blocks(nb)
    except ValueError as err:
        return [str(err)]
    problems = []
    if not builder.has_assignment_config(nb):
        problems.append("no '# ASSIGNMENT CONFIG' raw cell, so otter assign would not build "
                        "its exercises (docs/exercises.md: copy notebook 01's)")
    lo, hi = limits
    if not lo <= len(blocks) <= hi:
        problems.append(f"{len(blocks)} exercises (otter '# BEGIN QUESTION' blocks); each "
                        f"notebook ends with {lo}–{hi} (docs/exercises.md; a practice "
                        f"set has {PRACTICE_PROBLEMS[0]}–{PRACTICE_PROBLEMS[1]})")
    names = [config.get("name") for _, _, config in blocks]
    if any(not n for n in names) or len(set(names)) != len(names):
        problems.append(f"every question needs its own `name:`, got {names}")
    if any(end < 0 for _, end, _ in blocks):
        problems.append("a '# BEGIN QUESTION' has no '# END QUESTION'")
    if blocks:
        cells = nb["cells"]
        headings = [i for i, c in enumerate(cells) if c["cell_type"] == "markdown"
                    and re.match(r"#{1,2}\s", _source(c).lstrip())]
        exercises = [i for i in headings
                     if re.match(r"##\s+Exercises\b", _source(cells[i]).lstrip())]
        if not exercises or exercises[-1] > blocks[0][0]:
            problems.append("the questions must follow a '## Exercises' markdown cell")
        elif headings[-1] != exercises[-1]:
            problems.append("'## Exercises' must be the notebook's last section, found "
                            f"{_source(cells[headings[-1]]).lstrip().splitlines()[0]!r} after it")
    return problems


@pytest.mark.parametrize("master", MASTERS, ids=lambda p: p.name)
def test_every_master_ends_with_two_to_four_exercises(master):
    problems = _exercise_problems(_load(master), _exercise_limits(master.name))
    assert not problems, f"{master.name}: " + "; ".join(problems)


def _with_questions(nb: dict, keep: list[int]) -> dict:
    """``nb`` with only its questions ``keep`` (indices into its blocks; repeats allowed,
    renamed), the other question blocks removed."""
    nb = copy.deepcopy(nb)
    blocks = _question_blocks(nb)
    first, last = blocks[0][0], blocks[-1][1]
    kept = []
    for k, q in enumerate(keep):
        begin, end, _ = blocks[q]
        block = copy.deepcopy(nb["cells"][begin:end + 1])
        block[0]["source"] = re.sub(r"name:\s*\S+", f"name: q{k + 1}", _source(block[0]))
        kept += block
    nb["cells"][first:last + 1] = kept
    return nb


def test_exercise_count_check_catches_too_few_and_too_many():
    nb = _load(ROOT / "notebooks" / "01_differencing_attacks.ipynb")
    assert len(_question_blocks(nb)) == 4
    for keep in ([0, 1], [0, 1, 2], [0, 1, 2, 3]):
        assert _exercise_problems(_with_questions(nb, keep)) == [], keep
    for keep in ([], [2], [0, 1, 2, 3, 0]):
        problems = _exercise_problems(_with_questions(nb, keep))
        assert any(f"{len(keep)} exercises" in p for p in problems), (keep, problems)
    no_config = copy.deepcopy(nb)
    no_config["cells"] = no_config["cells"][1:]
    assert any("ASSIGNMENT CONFIG" in p for p in _exercise_problems(no_config))
    unclosed = copy.deepcopy(nb)
    del unclosed["cells"][_question_blocks(nb)[-1][1]]
    assert any("END QUESTION" in p for p in _exercise_problems(unclosed))
    moved = copy.deepcopy(nb)
    moved["cells"].append({"cell_type": "markdown", "id": "late", "metadata": {},
                           "source": "## A section after the exercises"})
    assert any("last section" in p for p in _exercise_problems(moved))


def test_practice_sets_hold_eight_to_twelve_problems():
    assert _exercise_limits("07_practice_foundations.ipynb") == PRACTICE_PROBLEMS
    assert _exercise_limits("05_composition_and_budget.ipynb") == EXERCISES_PER_NOTEBOOK
    nb = _load(ROOT / "notebooks" / "01_differencing_attacks.ipynb")
    for keep, fits in (([0, 1, 2, 3], False), ([0, 1, 2, 3] * 2, True),
                       ([0, 1, 2, 3] * 3, True), ([0, 1, 2, 3] * 3 + [0], False)):
        problems = _exercise_problems(_with_questions(nb, keep), PRACTICE_PROBLEMS)
        assert (problems == []) == fits, (keep, problems)
        if not fits:
            assert any(f"{len(keep)} exercises" in p for p in problems), problems


def test_markers_without_config_are_refused(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_raw_cell("# BEGIN QUESTION\nname: q1")])
    path = tmp_path / "stray.ipynb"
    nbformat.write(nb, path)
    with pytest.raises(SystemExit, match="ASSIGNMENT CONFIG"):
        builder.build([path], tmp_path / "out")


@pytest.mark.parametrize("name", ASSIGNED)
def test_student_edition_has_no_solution_and_no_hidden_test(editions, name):
    student_dir, ag_dir = editions
    student, master = _load(student_dir / name), _load(ROOT / "notebooks" / name)
    autograder = _load(ag_dir / Path(name).stem / name)
    public, full = _questions(student), _questions(autograder)
    assert sorted(public) == sorted(full), (sorted(public), sorted(full))
    text = json.dumps(student, ensure_ascii=False)
    for q, source in full.items():
        tests = _test_functions(source)
        assert any(not h for _, h in tests) and any(h for _, h in tests), (
            f"{name} {q}: each question needs a public test and a hidden one, got {tests}")
        assert _test_functions(public[q]) == [(f, h) for f, h in tests if not h], q
        for function, hidden in tests:
            if hidden:
                assert function not in text, f"{name}: hidden test {function} leaked"
    checks = [CHECK.match(_source(c).strip()) for c in student["cells"]]
    assert sorted(m.group(1) for m in checks if m) == sorted(full), name
    sources = "\n".join(_source(c) for c in student["cells"])
    leaked = sorted(line for line in _solution_lines(master) if line in sources)
    assert not leaked, f"{name}: solution lines in the student edition: {leaked}"


@pytest.mark.slow
@pytest.mark.parametrize("name", ASSIGNED)
def test_student_edition_runs_and_every_check_says_not_done(editions, name, tmp_path):
    student_dir, ag_dir = editions
    ag_path = (ag_dir / Path(name).stem / name).resolve()
    shutil.copy(student_dir / name, tmp_path / name)     # otter.Notebook reads it from cwd
    nb = nbformat.read(tmp_path / name, as_version=4)
    n_student = len(nb.cells)
    questions = sorted(_questions(_load(ag_path)))
    # after the student's run, in the same kernel: the master's solutions, then every test
    for cell in nbformat.read(ag_path, as_version=4).cells:
        if cell.cell_type == "code" and SOLUTION_TAG in cell.metadata.get("tags", []):
            nb.cells.append(nbformat.v4.new_code_cell(cell.source))
    nb.cells.append(nbformat.v4.new_code_cell(
        "import json as _json\n"
        f"_ag = otter.Notebook({str(ag_path)!r})\n"
        "_res = {q: _ag.check(q) for q in " + repr(questions) + "}\n"
        "print('OTTER-RESULTS ' + _json.dumps({q: [[t.test_case.name, t.test_case.hidden, "
        "t.passed, t.message] for t in r.test_case_results] for q, r in _res.items()}))"))

    _nbrun.execute(NotebookClient(nb, timeout=180, kernel_name="python3",
                                  resources={"metadata": {"path": str(tmp_path)}}))

    seen = []
    for cell in nb.cells[:n_student]:
        m = CHECK.match(cell.source.strip()) if cell.cell_type == "code" else None
        if not m:
            continue
        seen.append(m.group(1))
        text = "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)
        failed = text.count("❌ ")      # one line per failed case (show_feedback_first)
        assert "All test cases passed" not in text and failed >= 1, f"{m.group(1)}: {text}"
        assert text.count("❌ not done yet") == failed, (
            f"{name} {m.group(1)}: a check on the untouched scaffold should only say "
            f"'not done yet':\n{text}")
    assert sorted(seen) == questions

    out = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
    results = json.loads(out.split("OTTER-RESULTS ", 1)[1])
    failures = [f"{q} {case} (hidden={hidden}):\n{message}"
                for q, cases in results.items()
                for case, hidden, passed, message in cases if not passed]
    assert not failures, f"{name}: the master's solutions fail otter's tests:\n" + \
        "\n".join(failures)
    assert sorted(results) == questions


@pytest.mark.slow
def test_a_student_who_calls_the_library_answer_is_told_so(editions, tmp_path):
    """Exercise 1 of notebook 00, answered with the library function it is compared with:
    the student's own check (public tests, in their kernel) fails and names the call."""
    student_dir, _ = editions
    name = "00_why_anonymization_fails.ipynb"
    shutil.copy(student_dir / name, tmp_path / name)
    nb = nbformat.read(tmp_path / name, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(
        "from dpteach.attacks import linkage as shortcut\n"
        "def expected_unique(n, m):\n"
        "    return shortcut.expected_fraction_unique(n, m)\n"
        "cells_for_half = 65_241\n"
        "_r = grader.check('q1')\n"
        "print('OTTER-RESULTS', [[t.passed, t.message] for t in _r.test_case_results])"))
    _nbrun.execute(NotebookClient(nb, timeout=180, kernel_name="python3",
                                  resources={"metadata": {"path": str(tmp_path)}}))
    out = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
    results = out.split("OTTER-RESULTS", 1)[1]
    assert "False" in results and "True" not in results, results
    assert ("expected_unique calls expected_fraction_unique, the library function that gives "
            "the answer: exercise 1 asks you to compute it yourself") in results, results


# ------------------------------------------------------- the student edition in JupyterLab
ALL_CODE_CELLS_RUN = """() => {
    const ps = [...document.querySelectorAll(
        '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt')];
    return ps.length > 0 && ps.every(p => /\\[\\d+\\]/.test(p.textContent));
}"""


@pytest.mark.browser
def test_student_edition_in_jupyterlab(editions, tmp_path):
    """What a student sees after Binder's badge: run all, each check says "not done yet"."""
    from _servers import (Server, chromium_page, free_port, jupyter_env,
                          jupyter_security_args, require_chromium)
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect

    require_chromium()
    student, _ = editions
    name = "01_differencing_attacks.ipynb"
    work = tmp_path / "work"
    (work / "student").mkdir(parents=True)
    shutil.copy(student / name, work / "student" / name)
    env = jupyter_env(tmp_path)
    settings = tmp_path / "config" / "lab" / "user-settings" / "@jupyterlab"
    (settings / "apputils-extension").mkdir(parents=True)
    (settings / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))   # no pop-ups
    port = free_port()
    server = Server([sys.executable, "-m", "jupyter", "lab", f"--port={port}",
                     f"--ServerApp.root_dir={work}", *jupyter_security_args()],
                    log=tmp_path / "jupyterlab.log", env=env, cwd=work)
    url = f"http://127.0.0.1:{port}/"
    try:
        server.wait_for(url + "api/status", timeout=90)
        with chromium_page() as page:
            page.goto(f"{url}lab/tree/student/{name}")
            notebook = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook")
            expect(notebook).to_be_visible(timeout=90_000)
            expect(page.locator("#jp-main-statusbar")).to_contain_text("Idle", timeout=90_000)
            for attempt in range(3):   # the first request may be dropped while the kernel wires up
                page.locator(".lm-MenuBar-item", has_text="Run").first.click()
                page.locator("li[data-command='runmenu:run-all']").click()
                try:
                    page.wait_for_function(ALL_CODE_CELLS_RUN, timeout=150_000 if attempt
                                           else 60_000)
                    break
                except PlaywrightTimeout:
                    if attempt == 2:
                        raise
            errors = notebook.locator("[data-mime-type='application/vnd.jupyter.stderr']",
                                      has_text="Traceback")
            assert errors.count() == 0, errors.first.inner_text()
            questions = sorted(_questions(_load(student / name)))
            results = notebook.locator(".jp-OutputArea-output", has_text="results:")
            expect(results).to_have_count(len(questions), timeout=30_000)
            for i in range(len(questions)):
                expect(results.nth(i)).to_contain_text("not done yet")
                # what the student reads (JupyterLab shows the HTML output): the message
                # first, once, no otter "Error at line" and no assert (show_feedback_first)
                shown = results.nth(i).inner_text().strip().splitlines()
                assert shown and shown[0].startswith("❌ not done yet"), shown
                assert not any("Error at line" in line or line.lstrip().startswith("assert")
                               for line in shown), shown
            results.first.scroll_into_view_if_needed()
            page.screenshot(path=tmp_path / "student-lab.png")
            results.first.screenshot(path=tmp_path / "student-check.png")
    finally:
        server.stop()
