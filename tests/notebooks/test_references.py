"""Every reference to a notebook names one that exists, and the right one (issues 22, 23, 25).

The course was renumbered (25 notebooks in teaching order); a reference written for the old
numbering ("09 fairness", "all 15 notebooks") now points at the wrong lesson. In the prose
people read -- ``docs/*.md``, ``docs/book/*.md``, ``README.md``, ``benchmarks/README.md``
and the benchmarks' docstrings, ``binder/*``, the markdown cells of ``notebooks/*.ipynb``,
the strings of ``dpapp/*.py`` and the docstrings of ``dpteach/**/*.py``:

* "notebook NN" / "notebooks NN, MM and KK" / "notebooks NN–MM" name notebooks that exist
  (``NN_*.ipynb``);
* where the mention carries a topic next to it -- "notebook 09 (sparse vector)",
  "09 fairness", "notebook 21, testing a privacy claim" -- the topic is one of that
  notebook's (:data:`TOPICS`, an explicit table);
* "notebook NN, section K" / "(notebook NN, §K)": notebook NN has a heading "## K. ...";
* "all/the N notebooks" counts the notebooks there are;
* a file stem ``NN_topic`` names an existing notebook;

and anywhere in the repository (every tracked text file), ``NN_topic.ipynb`` exists.

Numbers that are not notebooks (section and problem numbers, years, counts of seeds or
seconds) are not read: only a two-digit number right after "notebook(s)", in a list or
range that follows it, or a two-digit number directly followed by a topic word of
:data:`TOPICS` counts. ``test_the_check_can_fail`` shows each rule failing on a stale line.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MASTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
STEMS = {p.stem for p in MASTERS}
NUMBERS = {int(p.name[:2]) for p in MASTERS}

#: topic words per notebook (lower case, matched at the start of a word): a mention's topic
#: must use a word of its own notebook. Words shared by several notebooks (PATE, fairness)
#: are listed under each of them.
TOPICS: dict[int, tuple[str, ...]] = {
    0: ("anonymi*", "removing names", "re-identif*", "linkage"),
    1: ("differencing", "aggregates"),
    2: ("what differential privacy promises", "what dp promises", "the definition",
        "neighbours", "post-processing", "group privacy"),
    3: ("randomized response", "randomised response", "randomized-response"),
    4: ("laplace", "gaussian", "sensitivity"),
    5: ("composition",),
    6: ("rényi", "renyi", "zcdp", "rdp", "privacy loss distributions?", "pld", "subsampl*",
        "accountants?"),
    7: ("practice set a", "foundations"),
    8: ("private selection", "exponential mechanism", "report-noisy-max", "report noisy max"),
    9: ("sparse vector", "stability", "above ?threshold"),
    10: ("private logistic regression", "logistic regression", "objective perturbation",
         "output perturbation", "erm"),
    11: ("dp-sgd", "dpsgd", "membership inference"),
    12: ("pate", "noisy votes", "noisy aggregators"),
    13: ("pate", "student model", "smooth sensitivity", "sanitised ε"),
    14: ("practice set b",),
    15: ("fairness", "fairness definitions", "demographic parity", "equal opportunity", "equalized odds",
         "unawareness"),
    16: ("fairness", "fairness through awareness", "awareness", "lfr", "individual fairness", "fair representations"),
    17: ("fair representations", "laftr", "fairness"),
    18: ("privacy meets fairness", "who pays", "fairness", "disparate"),
    19: ("practice set c", "fairness"),
    20: ("reconstruction", "tracing", "information recovery"),
    21: ("auditing", "audit", "auditor", "floating point", "floating-point",
         "testing a privacy claim"),
    22: ("many queries", "mwem", "multiplicative weights", "boosting"),
    23: ("practice set d",),
    24: ("dp in practice", "deployments", "opendp", "production library"),
}
#: a topic word as a regular expression: whole words, "*" for any ending
_PATTERN = {w: r"(?<!\w)" + re.escape(w).replace(r"\*", r"\w*").replace(r"\?", "?")
            .replace(r"\ ", r"\s+") + r"(?!\w)" for words in TOPICS.values() for w in words}
#: a topic word at the start of a text
TOPIC_START = re.compile("|".join(sorted(_PATTERN.values(), key=len, reverse=True)), re.I)

#: file names used as made-up examples by tests (not references to the course)
FIXTURE_NAMES = {"03_x.ipynb", "14_x.ipynb", "25_new.ipynb"}

NUM = r"\d{2}"
#: "notebook 04", "Notebooks 01 (…), 03 (…) and 04 (…)", "notebooks 05–06", "notebook 02's"
MENTION = re.compile(r"\b[Nn]otebooks?(?:\s|&nbsp;)+(?=\d{2}\b)")
#: one item of the list after "notebooks": a number or a range, with an optional "(topic)"
ITEM = re.compile(rf"({NUM})(?:\s*[–-]\s*({NUM}))?\b(?!\s*(?:s|ms|min|MiB|MB|GB|%|×)\b)"
                  r"(?:\s*\(([^()]*)\))?")
SEP = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s+or\s+)(?=\d{2}\b)")
SECTION = re.compile(r"^(?:,\s*|\s*\(\s*)(?:section\s+|§\s*)(\d+)", re.I)
#: "09 fairness", "12 reconstruction": a bare two-digit number directly before a topic word
BARE = re.compile(rf"(?<![\w.,§#/=+–-])(?:({NUM})[–-])?({NUM}) (?=[A-Za-zÀ-ÿ])")
#: "all 15 notebooks", "the 15 masters"
WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
COUNT = re.compile(r"\b(?:all|the|its|our)\s+(\d+|%s|twenty-\w+)\s+(?:student\s+|lesson\s+)?"
                   r"(?:notebooks|masters)\b" % "|".join(WORDS), re.I)
#: "The numbers left out (13, 16, 19, 23) are notebooks still being written"
LEFT_OUT = re.compile(r"numbers left out\s*\(([^()]*)\)", re.I)
STEM = re.compile(r"(?<![\w/.-])(\d{2}_[a-z][a-z0-9_]*[a-z0-9])(\.ipynb)?\b")


def _topic_owners(text: str) -> set[int]:
    """The notebooks whose topic words occur in ``text``; the longest words decide.

    "Privacy meets fairness" is notebook 18's: its "fairness" (15-19) inside the longer
    match does not count.
    """
    hits = [(m.start(), m.end(), number) for number, words in TOPICS.items() for w in words
            for m in re.finditer(_PATTERN[w], text, re.I)]
    return {n for a, b, n in hits
            if not any(a2 <= a and b <= b2 and b2 - a2 > b - a for a2, b2, _ in hits)}


def _headings(number: int) -> set[int]:
    path = next(p for p in MASTERS if int(p.name[:2]) == number)
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return {int(m.group(1)) for c in cells if c["cell_type"] == "markdown"
            for m in re.finditer(r"^##\s+(?:Going further:\s*)?(\d+)\.", "".join(c["source"]), re.M)}


def findings(text: str) -> list[str]:
    """Every stale or wrong notebook reference in one piece of prose."""
    text = text.replace("\u00a0", " ")
    out, seen = [], set()
    for m in MENTION.finditer(text):
        pos = m.end()
        while True:
            item = ITEM.match(text, pos)
            if not item:
                break
            first, last, topic = item.groups()
            seen.update({item.start(1), item.start(2)})
            numbers = range(int(first), int(last or first) + 1)
            for n in numbers:
                if n not in NUMBERS:
                    out.append(f"no notebook {n:02d}: {text[m.start():item.end()]!r}")
            after = text[item.end():item.end() + 60]
            if topic is None and not last:
                # a topic word right after ("09 fairness"), or an apposition after a comma up to
                # "and" or punctuation ("notebook 21, testing a privacy claim")
                word = TOPIC_START.match(after, 1) if after[:1] == " " else None
                tail = re.match(r",\s*((?:(?!\b(?:and|or)\b)[^.,;:()\n]){0,40})", after)
                topic = word.group(0) if word else " ".join(tail.group(1).split()[:4]) if tail else None
            if topic and all(n in NUMBERS for n in numbers):
                owners = _topic_owners(topic)
                if owners and not owners & set(numbers):
                    out.append(f"notebook {first}{'–' + last if last else ''} is not about "
                               f"{topic.strip()!r} (that is {sorted(owners)}): "
                               f"{text[m.start():item.end() + 30]!r}")
            sec = SECTION.match(after)
            if sec and not last and int(first) in NUMBERS and int(sec.group(1)) not in _headings(int(first)):
                out.append(f"notebook {first} has no section {sec.group(1)}: "
                           f"{text[m.start():item.end() + sec.end()]!r}")
            sep = SEP.match(text, item.end())
            if not sep:
                break
            pos = sep.end()
    for m in BARE.finditer(text):
        word = TOPIC_START.match(text, m.end())
        before = text[:m.start()].rstrip()[-1:]
        if not word or m.start(2) in seen or (before and before in "=<>≤≥±×*/^"):
            continue               # not a topic, already read, or a value ("γ = 16 LAFTR")
        numbers = range(int(m.group(1) or m.group(2)), int(m.group(2)) + 1)
        for n in numbers:
            if n not in NUMBERS:
                out.append(f"no notebook {n:02d}: {text[m.start():m.end() + 30]!r}")
        owners = _topic_owners(word.group(0))
        if all(n in NUMBERS for n in numbers) and not owners & set(numbers):
            out.append(f"notebook {m.group(0).strip()} is not about {word.group(0)!r} (that is "
                       f"{sorted(owners)}): {text[m.start():m.end() + 30]!r}")
    for m in COUNT.finditer(text):
        said = m.group(1).lower()
        number = int(said) if said.isdigit() else WORDS.get(said, 20 + WORDS.get(said[7:], 0))
        if number != len(MASTERS):
            out.append(f"the course has {len(MASTERS)} notebooks: {m.group(0)!r}")
    for m in LEFT_OUT.finditer(text):
        for n in re.findall(r"\d{2}", m.group(1)):
            if int(n) in NUMBERS:
                out.append(f"notebook {n} is not left out: {m.group(0)!r}")
    for m in STEM.finditer(text):
        if m.group(1) not in STEMS:
            out.append(f"no notebook {m.group(1)}: {m.group(0)!r}")
    return out


# -- where people read about notebooks ------------------------------------------------------

def _docstrings(path: Path) -> str:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = [tree] + [n for n in ast.walk(tree)
                      if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    return "\n\n".join(d for n in nodes if (d := ast.get_docstring(n, clean=False)))


def _strings(path: Path) -> str:
    """Every string constant of a module (captions, messages, docstrings), not its names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set()
    for node in ast.walk(tree):     # the NOTEBOOK constant is checked by test_page_notebooks
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["NOTEBOOK"]:
            skip.add(id(node.value))
    return "\n\n".join(n.value for n in ast.walk(tree)
                       if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in skip)


def _markdown(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def sources() -> dict[str, str]:
    """``{path: the prose in it}`` for every place a reader meets a notebook reference."""
    out = {}
    for pattern, read in [("docs/*.md", Path.read_text), ("docs/book/*.md", Path.read_text),
                          ("README.md", Path.read_text), ("benchmarks/README.md", Path.read_text),
                          ("benchmarks/*.py", _docstrings), ("binder/*", Path.read_text),
                          ("notebooks/*.ipynb", _markdown), ("dpapp/*.py", _strings),
                          ("dpteach/**/*.py", _docstrings)]:
        for path in sorted(ROOT.glob(pattern)):
            if path.is_file():
                out[str(path.relative_to(ROOT))] = read(path)
    return out


SOURCES = sources()


@pytest.mark.parametrize("path", sorted(SOURCES))
def test_references_name_the_right_notebook(path):
    found = findings(SOURCES[path])
    assert not found, "\n".join(found)


def _tracked_text_files():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    for name in files:
        path = ROOT / name
        if name.startswith("build/") or not path.is_file() or path.suffix in {".png", ".npz", ".gz", ".zip", ".parquet", ".pdf", ".woff2", ".ico", ".jpg"}:
            continue
        try:
            yield name, path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue


def test_every_notebook_file_name_exists():
    found = []
    for name, text in _tracked_text_files():
        for m in re.finditer(r"(?<![\w-])(\d{2}_[A-Za-z0-9_]+\.ipynb)", text):
            fixture = name.startswith("tests/") and m.group(1) in FIXTURE_NAMES
            if m.group(1)[:-6] not in STEMS and not fixture:
                found.append(f"{name}: {m.group(1)}")
    assert not found, "\n".join(found)


def test_every_notebook_has_topics():
    assert NUMBERS <= set(TOPICS), sorted(NUMBERS - set(TOPICS))


@pytest.mark.parametrize("stale, rule", [
    ("see 09 fairness", "not about"),                                   # old number, topic
    ("Notebook 09 (sparse vector) and notebook 12, reconstruction", "not about"),
    ("Notebooks 01 (differencing), 02 (randomized response) and 04", "not about"),
    ("as notebook 31 shows", "no notebook 31"),
    ("notebooks 23–26 are new", "no notebook 25"),
    ("notebook 02, section 12", "no section 12"),
    ("(notebook 05, §9)", "no section 9"),
    ("builds all 15 notebooks", "notebooks:"),
    ("the fifteen student notebooks", "notebooks:"),
    ("notebook 17 (Privacy meets\nfairness)", "not about"),           # the longest words decide
    ("The numbers left out (13, 16) are being written", "notebook 16 is not left out"),
    ("`--notebook 02_randomized_response`", "no notebook 02_randomized_response"),
])
def test_the_check_can_fail(stale, rule):
    assert any(rule in f for f in findings(stale)), findings(stale)


@pytest.mark.parametrize("fine", [
    "notebook 7, jupyterhub-singleuser",         # the Jupyter package, not a lesson
    "Notebooks 01 (differencing attacks), 03 (randomized response) and 04 (Laplace and Gaussian)",
    "notebook 02, section 6", "notebook 02's count plus Laplace noise",
    "notebooks 9-40 s each", "Problem 10 (spot the broken claim; notebooks 15 and 18)",
    "20 seeds per case, 10 classes, 15 alternating repeats", "the 2016 fairness paper",
    "notebooks 05–06 (composition, zCDP, RDP)", "notebook 21 (Testing a privacy claim)",
])
def test_numbers_that_are_fine(fine):
    assert not findings(fine)
