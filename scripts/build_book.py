"""Build the course book: every notebook as a chapter a student can read before running it.

    python scripts/build_book.py                      # the whole book into build/book/ (make book)
    python scripts/build_book.py --out DIR 03_randomized_response 05_composition_and_budget

What a reader gets: each notebook of ``notebooks/`` (found by globbing, in teaching order) as a
chapter with its outputs, figures and typeset math, in the form students get (the student
edition: check cells, exercise solutions and hidden tests removed), three launch buttons per
chapter (the student edition on Binder, the instructor master, the matching app page), a
landing page ("start here": prerequisites and the syllabus with time estimates), the
instructor's lecture plan (notebook sections beside app pages), search and navigation.

The steps, each cached under ``build/book-cache/`` so a rebuild redoes only what changed:

1. the student edition of each master (``scripts/build_student_editions.py``: otter assign),
   keyed by the master's content;
2. one execution of each student edition (nbclient), keyed by the edition's content and the
   library's source and data: the book never runs a notebook twice;
3. the chapter: otter's plumbing cells (``import otter``, ``grader.check``) removed, the
   outputs of the answer prompts cleared, slider widgets (which need a kernel) replaced by a
   note (their default figure is the plain output above them, docs/notebooks.md), launch
   buttons under the title;
4. Sphinx with MyST-NB (execution off: it reads the executed copies) and the book theme,
   MathJax served from the site itself (sphinx-mathjax-offline), so the site reads offline.

The pinned tools are in ``requirements-book.txt`` (``make book`` installs them once).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
BOOK_DOCS = ROOT / "docs" / "book"
CACHE = ROOT / "build" / "book-cache"
OUT = ROOT / "build" / "book"
STUDENT_SCRIPT = ROOT / "scripts" / "build_student_editions.py"

sys.path.insert(0, str(ROOT / "scripts"))
import notebook_stats  # noqa: E402

#: where the launch buttons go (the README's Binder badges)
BINDER = "https://mybinder.org/v2/gh/dpteach-course/dpteach/HEAD"
REPOSITORY = "https://github.com/dpteach-course/dpteach"

# ---------------------------------------------------------------------------------------------
# The syllabus: part and path of each notebook (the course plan of issue 23), keyed by the
# notebook's topic, its file name without the number, so that renumbering changes nothing here.
SYLLABUS = {
    "why_anonymization_fails": ("I. Why privacy is hard", "core"),
    "differencing_attacks": ("I. Why privacy is hard", "core"),
    "what_dp_promises": ("II. The definition and the basic mechanisms", "core"),
    "randomized_response": ("II. The definition and the basic mechanisms", "core"),
    "laplace_and_gaussian": ("II. The definition and the basic mechanisms", "core"),
    "composition_and_budget": ("II. The definition and the basic mechanisms", "core"),
    "renyi_zcdp_and_pld": ("II. The definition and the basic mechanisms",
                           "going further (the Rényi DP introduction is core)"),
    "practice_foundations": ("Practice set A (parts I–II)", "core (half)"),
    "private_selection": ("III. Choosing privately", "core"),
    "sparse_vector_and_stability": ("III. Choosing privately", "going further"),
    "private_logistic_regression": ("IV. Private learning", "going further"),
    "dp_sgd": ("IV. Private learning", "core"),
    "pate_votes_and_privacy": ("IV. Private learning", "going further"),
    "pate_publishing_and_students": ("IV. Private learning", "going further"),
    "practice_selection_and_learning": ("Practice set B (parts III–IV)", "core (half)"),
    "fairness_definitions": ("V. Fairness", "core"),
    "awareness_and_lfr": ("V. Fairness", "going further"),
    "fair_representations": ("V. Fairness", "going further"),
    "privacy_meets_fairness": ("V. Fairness", "going further"),
    "practice_fairness": ("Practice set C (part V)", "going further"),
    "reconstruction_and_tracing": ("VI. Testing the promise", "core"),
    "auditing_and_floating_point": ("VI. Testing the promise", "going further"),
    "many_queries": ("VI. Testing the promise", "going further"),
    "practice_attacks_and_queries": ("Practice set D (part VI)", "going further"),
    "dp_in_practice": ("VII. DP in practice", "core"),
    # masters not yet split by the renumbering (issue 23): the part of their first half
    "pate": ("IV. Private learning", "going further"),
    "fairness": ("V. Fairness", "core"),
}
TEACHING_ORDER = list(SYLLABUS)

#: topic → the app pages (modules of app.py's PAGES) that show the same idea live, each with
#: words that find the notebook section it belongs to (the first heading holding one of them)
APP_PAGES = {
    "randomized_response": [("dpapp.randomized_response", ("randomized response", "estimat"))],
    "laplace_and_gaussian": [("dpapp.noise_calibration", ("gaussian", "laplace", "sensitivity"))],
    "composition_and_budget": [("dpapp.composition", ("composition", "budget"))],
    "renyi_zcdp_and_pld": [("dpapp.composition", ("rényi", "privacy loss distribution")),
                           ("dpapp.dpsgd_planner", ("dp-sgd", "subsampling"))],
    "private_logistic_regression": [("dpapp.private_lr", ("perturbation",))],
    "dp_sgd": [("dpapp.dpsgd_planner", ("account",)),
               ("dpapp.dpsgd_playground", ("dp-sgd", "clip"))],
    "pate": [("dpapp.pate_votes", ("vote", "gnmax", "aggregat"))],
    "pate_votes_and_privacy": [("dpapp.pate_votes", ("vote", "gnmax", "aggregat"))],
    "fairness": [("dpapp.fairness_metrics", ("threshold", "metric", "gap"))],
    "fairness_definitions": [("dpapp.fairness_metrics", ("threshold", "metric", "gap"))],
    "fair_representations": [("dpapp.fair_representations", ("laftr", "frontier", "γ"))],
    "many_queries": [("dpapp.many_queries", ("mwem", "crossover", "independent"))],
    "auditing_and_floating_point": [("dpapp.audit_mechanism", ("audit",))],
    "reconstruction_and_tracing": [("dpapp.reconstruction_attack", ("reconstruct", "decod"))],
}

#: the tag MyST-NB uses to hide a cell (here: otter's plumbing) and otter's answer-cell tag
OTTER_ANSWER = "otter_answer_cell"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def topic(name: str) -> str:
    """``"03_randomized_response.ipynb"`` → ``"randomized_response"``."""
    return re.sub(r"^\d+_", "", Path(name).stem)


def number(name: str) -> str:
    return Path(name).stem.split("_", 1)[0]


def teaching_key(path: Path) -> tuple:
    """Sort by the file's number; two notebooks with one number by the course plan's order."""
    t = topic(path.name)
    return (number(path.name), TEACHING_ORDER.index(t) if t in TEACHING_ORDER else 99, path.name)


def masters(selected: list[str] | None = None) -> list[Path]:
    paths = sorted(NOTEBOOKS.glob("*.ipynb"), key=teaching_key)
    if selected:
        wanted = {Path(s).stem for s in selected}
        paths = [p for p in paths if p.stem in wanted]
        missing = wanted - {p.stem for p in paths}
        if missing:
            raise SystemExit(f"no such notebook: {', '.join(sorted(missing))}")
    return paths


def app_page_path(module: str) -> str:
    """The app's URL path of a page (app.py: the module's last part, ``_`` → ``-``; the first
    page of PAGES is served at the root only)."""
    pages = app_pages()
    if pages and pages[0][1] == module:
        return ""
    return module.rsplit(".", 1)[-1].replace("_", "-")


def app_pages() -> list[tuple[str, str]]:
    """(title, module) of app.py's PAGES, read without importing Streamlit."""
    import ast

    tree = ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "PAGES"
                                                for t in node.targets):
            return [(e.elts[0].value, e.elts[1].value) for e in node.value.elts]
    return []


def launch_links(name: str) -> dict[str, list[tuple[str, str]]]:
    """kind → [(label, url)] for one notebook's launch buttons."""
    links = {
        "student": [("Run the student edition on Binder",
                     f"{BINDER}?labpath={quote('student/' + name, safe='')}")],
        "instructor": [("Instructor master (solutions) on Binder",
                        f"{BINDER}?labpath={quote('notebooks/' + name, safe='')}")],
        "app": [],
    }
    titles = dict((m, t) for t, m in app_pages())
    for module, _ in APP_PAGES.get(topic(name), []):
        links["app"].append((f"App: {titles[module]}", app_url(module)))
    return links


def app_url(module: str) -> str:
    """The app page on Binder (the README's app badge: ``?urlpath=streamlit/<page>``)."""
    return f"{BINDER}?urlpath={quote('streamlit/' + app_page_path(module), safe='/')}"


# ---------------------------------------------------------------------------------------------
# Time estimates (the course plan): minutes = lesson words / 150 + 1.5 x lesson code cells
# + 10 x exercises; "core" minutes leave out the sections headed "Going further".

def _heading(cell: dict) -> tuple[int, str] | None:
    if cell["cell_type"] != "markdown":
        return None
    m = re.match(r"(#+)\s+(.*)", notebook_stats.source(cell).lstrip())
    return (len(m.group(1)), m.group(2).strip()) if m else None


def without_going_further(nb: dict) -> dict:
    """The notebook without its sections headed "Going further" (to the next heading of the
    same or a higher level)."""
    kept, skip_level = [], None
    for cell in nb["cells"]:
        h = _heading(cell)
        if h and skip_level is not None and h[0] <= skip_level:
            skip_level = None
        if h and skip_level is None and "going further" in h[1].lower():
            skip_level = h[0]
        if skip_level is None:
            kept.append(cell)
    return {**nb, "cells": kept}


def exercises(nb: dict) -> int:
    return sum(1 for c in nb["cells"] if c["cell_type"] == "raw"
               and re.match(r"#\s+begin\s+question", notebook_stats.source(c).strip(), re.I))


def minutes(nb: dict) -> float:
    s = notebook_stats.stats(nb)
    return s["words"] / 150 + 1.5 * s["code_cells"] + 10 * exercises(nb)


def syllabus_row(path: Path) -> dict:
    nb = json.loads(path.read_text(encoding="utf-8"))
    part, route = SYLLABUS.get(topic(path.name), ("—", "not yet in the course plan"))
    total = minutes(nb)
    if route.startswith("core"):
        core = minutes(without_going_further(nb)) * (0.5 if "half" in route else 1)
    elif "core" in route:
        core = minutes(without_going_further(nb))
    else:
        core = 0.0
    return {"name": path.name, "title": title(nb), "part": part, "route": route,
            "minutes": total, "core_minutes": core, "exercises": exercises(nb)}


def title(nb: dict) -> str:
    for cell in nb["cells"]:
        h = _heading(cell)
        if h and h[0] == 1:
            return re.sub(r"^\d+\s*·\s*", "", h[1])
    return "untitled"


def sections(nb: dict) -> list[str]:
    return [h[1] for c in nb["cells"] if (h := _heading(c)) and h[0] == 2]


# ---------------------------------------------------------------------------------------------
# 1-2. student editions and their one execution, cached

def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(hashlib.sha256(p).digest())
    return h.hexdigest()[:16]


def library_digest() -> str:
    """What an execution depends on beside the notebook: the library (source and shipped
    data), the pinned packages."""
    files = sorted(p for p in (ROOT / "dpteach").rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts)
    files.append(ROOT / "requirements.txt")
    return _digest(*(str(p.relative_to(ROOT)).encode() + p.read_bytes() for p in files))


def student_edition(master: Path, cache: Path) -> Path:
    """The student edition of one master (otter assign, in its own process), cached."""
    key = _digest(master.read_bytes(), STUDENT_SCRIPT.read_bytes())
    target = cache / "student" / f"{master.stem}-{key}.ipynb"
    if not target.exists():
        with tempfile.TemporaryDirectory(prefix="book-student-") as tmp:
            run = subprocess.run([sys.executable, str(STUDENT_SCRIPT),
                                  "--out", tmp, str(master)], cwd=ROOT, capture_output=True,
                                 text=True)
            if run.returncode != 0:
                raise SystemExit(f"{master.name}: student edition failed\n{run.stdout}{run.stderr}")
            _store(Path(tmp) / master.name, target)
    return target


def _store(made: Path, target: Path) -> None:
    """Put ``made`` at ``target`` and drop the stale cached versions of the same notebook."""
    target.parent.mkdir(parents=True, exist_ok=True)
    stem = target.stem.rsplit("-", 1)[0]
    for stale in target.parent.glob(f"{stem}-*.ipynb"):
        if stale.stem.rsplit("-", 1)[0] == stem:
            stale.unlink()
    shutil.copy(made, target)


def chapter_input(master: Path, cache: Path, lib: str, timeout: int) -> Path:
    """The executed student edition of one master: made once, then reused."""
    return execute(student_edition(master, cache), master.name, cache, lib, timeout)


def execute(student: Path, name: str, cache: Path, lib: str, timeout: int) -> Path:
    """The executed copy of a student edition (run once, then reused)."""
    key = _digest(student.read_bytes(), lib.encode())
    target = cache / "executed" / f"{Path(name).stem}-{key}.ipynb"
    if target.exists():
        print(f"  {name}: executed copy reused", flush=True)
        return target
    start = time.perf_counter()
    run = subprocess.run([sys.executable, str(Path(__file__)), "--execute-one", str(student),
                          str(target), "--timeout", str(timeout)], cwd=ROOT, env=_kernel_env(),
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"{name}: execution failed\n{run.stdout[-3000:]}{run.stderr[-3000:]}")
    print(f"  {name}: executed ({time.perf_counter() - start:.0f} s)", flush=True)
    return target


def _kernel_env() -> dict:
    env = os.environ.copy()
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    # one BLAS thread per kernel: two kernels share the two cores
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    return env


def execute_one(student: Path, target: Path, timeout: int) -> None:
    """Run one notebook in the notebooks/ folder (as a student's kernel would) with nbclient."""
    import nbformat
    from nbclient import NotebookClient

    sys.path.insert(0, str(ROOT / "scripts"))
    from _nbrun import execute as run   # nbclient without its stall after widget cells

    nb = nbformat.read(student, as_version=4)
    # the student edition's answer prompts hold `...`: their checks fail, and code that uses an
    # answer may raise; those cells' outputs are cleared in the chapter (prepare_chapter)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    run(client)
    with tempfile.TemporaryDirectory(prefix="book-run-") as tmp:
        nbformat.write(nb, Path(tmp) / target.name)
        _store(Path(tmp) / target.name, target)


# ---------------------------------------------------------------------------------------------
# 3. the chapter

def _src(cell: dict) -> str:
    return notebook_stats.source(cell)


def _is_otter_plumbing(cell: dict) -> bool:
    text = _src(cell).strip()
    return cell["cell_type"] == "code" and (
        text.startswith("# Initialize Otter")
        or re.fullmatch(r'grader\.check\("[^"]+"\)', text) is not None
        or text.startswith("grader.check_all()") or text.startswith("grader.export("))


def _is_error(output: dict) -> bool:
    return output.get("output_type") == "error"


def launch_cell(name: str) -> dict:
    links = launch_links(name)
    buttons = []
    for kind, items in links.items():
        for label, url in items:
            buttons.append(f'<a class="dpteach-launch dpteach-launch-{kind}" data-launch="{kind}" '
                           f'href="{url}" target="_blank" rel="noopener">{label}</a>')
    html = ('<div class="dpteach-launch-bar">\n' + "\n".join(buttons) + "\n</div>\n\n"
            "Read it here; to run the code, move the sliders and do the exercises, launch it "
            "(Binder takes a minute to start).")
    return {"cell_type": "markdown", "id": "book-launch", "metadata": {}, "source": html}


_SLIDERS = re.compile(r"show_with_sliders|interact|widgets\.")


def _widget_outputs(model_id: str | None, state: dict) -> list[dict]:
    """The outputs a widget drew when it was shown (its Output widgets' outputs, in order),
    from the widget state nbclient saved: the default view of an ``interact`` figure."""
    model = state.get(model_id or "")
    if model is None:
        return []
    found = [o for o in model["state"].get("outputs", []) if o.get("output_type") != "error"]
    for child in model["state"].get("children", []):
        found += _widget_outputs(str(child).replace("IPY_MODEL_", ""), state)
    return found


WIDGET_NOTE = ("*The sliders of this cell need a running notebook: launch it (the buttons at "
               "the top) to move them. The figure above is the default view.*")


def prepare_chapter(executed: dict, name: str) -> tuple[dict, list[str]]:
    """The chapter from the executed student edition; also the errors found outside the
    answer prompts (a build that shows a traceback fails)."""
    nb = copy.deepcopy(executed)
    widget_state = (nb["metadata"].get("widgets", {})
                    .get("application/vnd.jupyter.widget-state+json", {}).get("state", {}))
    problems: list[str] = []
    cells, titled = [], False
    in_exercises = False
    for i, cell in enumerate(nb["cells"]):
        if _is_otter_plumbing(cell):
            continue
        h = _heading(cell)
        if h and h[0] <= 2:
            in_exercises = "exercise" in h[1].lower()
        if cell["cell_type"] == "code":
            tags = cell.get("metadata", {}).get("tags", [])
            if OTTER_ANSWER in tags:
                cell["outputs"] = []          # a prompt: nothing to show (never a solution)
                cell["execution_count"] = None
            outputs, had_widget, drawn = [], False, []
            for out in cell.get("outputs", []):
                if WIDGET_VIEW in out.get("data", {}):
                    had_widget = True
                    drawn += _widget_outputs(out["data"][WIDGET_VIEW].get("model_id"),
                                             widget_state)
                    continue
                if _is_error(out):
                    if not in_exercises:
                        problems.append(f"{name} cell {i}: {out.get('ename')}: "
                                        f"{out.get('evalue', '')[:200]}")
                    continue
                outputs.append(out)
            if in_exercises and any(_is_error(o) for o in cell.get("outputs", [])):
                # code under an exercise that uses an unanswered prompt: no half output
                outputs = []
            if drawn and not any("image/png" in o.get("data", {}) for o in outputs):
                outputs += drawn        # what the sliders drew at their default values
            cell["outputs"] = outputs
            if had_widget and _SLIDERS.search(_src(cell)):
                cells.append(cell)
                cells.append({"cell_type": "markdown", "id": f"book-widget-{i}",
                              "metadata": {}, "source": WIDGET_NOTE})
                continue
        if not titled and h and h[0] == 1:
            # the launch buttons right under the title, above the introduction
            head, _, rest = _src(cell).lstrip().partition("\n")
            cells.append({**cell, "source": head})
            cells.append(launch_cell(name))
            if rest.strip():
                cells.append({"cell_type": "markdown", "id": f"{cell.get('id', 'intro')}-intro",
                              "metadata": {}, "source": rest.strip()})
            titled = True
            continue
        cells.append(cell)
    if not titled:
        cells.insert(0, launch_cell(name))
    nb["cells"] = cells
    nb["metadata"].pop("widgets", None)         # no widget state: no widget manager from a CDN
    nb["metadata"].pop("otter", None)           # otter's public tests: not for the page
    return nb, problems


# ---------------------------------------------------------------------------------------------
# 4. pages and Sphinx

def _fmt_minutes(m: float) -> str:
    return f"{round(m):d}" if m else "—"


def landing_page(rows: list[dict]) -> str:
    lines = ["| # | chapter | part | path | minutes | core minutes |",
             "|---|---|---|---|---:|---:|"]
    for r in rows:
        lines.append(f"| {number(r['name'])} | [{r['title']}]({Path(r['name']).stem}.ipynb) | "
                     f"{r['part']} | {r['route']} | {_fmt_minutes(r['minutes'])} | "
                     f"{_fmt_minutes(r['core_minutes'])} |")
    core = sum(r["core_minutes"] for r in rows)
    total = sum(r["minutes"] for r in rows)
    table = "\n".join(lines)
    text = (BOOK_DOCS / "index.md").read_text(encoding="utf-8")
    return (text.replace("{{syllabus}}", table)
            .replace("{{core_hours}}", f"{core / 60:.1f}")
            .replace("{{total_hours}}", f"{total / 60:.1f}")
            .replace("{{n_chapters}}", str(len(rows))))


def instructor_page(paths: list[Path]) -> str:
    titles = dict((m, t) for t, m in app_pages())
    lines = []
    for path in paths:
        nb = json.loads(path.read_text(encoding="utf-8"))
        pages = APP_PAGES.get(topic(path.name), [])
        placed: dict[str, list[str]] = {}
        for module, words in pages:
            where = next((s for s in sections(nb) if any(w in s.lower() for w in words)), None)
            placed.setdefault(where or "", []).append(module)
        lines.append(f"### {number(path.name)} · [{title(nb)}]({path.stem}.ipynb)\n")
        lines.append("| section | show in the app |\n|---|---|")
        for s in sections(nb):
            shown = ", ".join(f"[{titles[m]}]({app_url(m)})" for m in placed.get(s, []))
            lines.append(f"| {s.replace('|', '/')} | {shown} |")
        if placed.get(""):
            lines.append("| (the whole notebook) | " + ", ".join(
                titles[m] for m in placed[""]) + " |")
        lines.append("")
    text = (BOOK_DOCS / "instructors.md").read_text(encoding="utf-8")
    return text.replace("{{lecture_plan}}", "\n".join(lines))


def write_source(src: Path, chapters: dict[str, dict], paths: list[Path]) -> None:
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    for item in ("conf.py", "_static"):
        s = BOOK_DOCS / item
        (shutil.copytree if s.is_dir() else shutil.copy)(s, src / item)
    rows = [syllabus_row(p) for p in paths]
    toc = "\n".join(Path(p.name).stem for p in paths)
    index = landing_page(rows) + (
        "\n\n```{toctree}\n:hidden:\n:caption: Chapters\n:maxdepth: 1\n\n" + toc +
        "\n```\n\n```{toctree}\n:hidden:\n:caption: Teaching\n\ninstructors\n```\n")
    (src / "index.md").write_text(index, encoding="utf-8")
    (src / "instructors.md").write_text(instructor_page(paths), encoding="utf-8")
    for name, nb in chapters.items():
        (src / name).write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")


def sphinx(src: Path, out: Path, doctrees: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-d", str(doctrees),
           str(src), str(out)]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"sphinx-build failed:\n{run.stdout[-4000:]}{run.stderr[-4000:]}")
    if run.stderr.strip():
        print(run.stderr.strip())


def build(selected: list[str] | None = None, out: Path = OUT, cache: Path = CACHE,
          jobs: int = 2, timeout: int = 600) -> Path:
    start = time.perf_counter()
    paths = masters(selected)
    print(f"the course book: {len(paths)} chapters → {out}", flush=True)
    lib = library_digest()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {p.name: pool.submit(chapter_input, p, cache, lib, timeout) for p in paths}
        executed = {name: f.result() for name, f in futures.items()}
    chapters, problems = {}, []
    for name, path in executed.items():
        chapters[name], found = prepare_chapter(json.loads(path.read_text(encoding="utf-8")),
                                                name)
        problems += found
    if problems:
        raise SystemExit("errors in lesson cells (a chapter would show a traceback):\n"
                         + "\n".join(problems))
    src = cache / "source" if out == OUT else out.parent / (out.name + "-source")
    write_source(src, chapters, paths)
    sphinx(src, out, cache / "doctrees" if out == OUT else out.parent / (out.name + "-doctrees"))
    print(f"the course book is in {out} ({time.perf_counter() - start:.0f} s); "
          f"open {out / 'index.html'}", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", help="only these (default: every notebook)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--jobs", type=int, default=2, help="notebooks executed at once")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    parser.add_argument("--execute-one", nargs=2, type=Path, metavar=("STUDENT", "TARGET"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.execute_one:
        execute_one(*args.execute_one, timeout=args.timeout)
        return 0
    build(args.notebooks or None, out=args.out.resolve(), cache=args.cache.resolve(),
          jobs=args.jobs, timeout=args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
