"""The syllabus (README "Syllabus", docs/start_here.md) against the notebooks on disk.

Each syllabus table lists every notebook of ``notebooks/`` once, in number order, with its
minutes by the course's time estimate (``scripts/notebook_stats.py``: lesson words / 150 +
1.5 × lesson code cells + 10 × exercises) within ±1 of the value recomputed from the
notebook; a row marked ``core: §a–b (N min)`` has N within ±1 of the minutes of those
sections (and everything outside numbered sections); a notebook needs only notebooks that
exist and come before it; and the core total stated in hours under the README table is the
sum of the core minutes (to the tenth of an hour it is given in), at most 16 hours (the
course plan's target). A notebook added, renamed or rewritten without its row fails here.
``test_the_checks_can_fail`` shows each check failing on a stale table.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SYLLABI = {"README.md": ROOT / "README.md", "docs/start_here.md": ROOT / "docs" / "start_here.md"}

_spec = importlib.util.spec_from_file_location("notebook_stats", ROOT / "scripts" / "notebook_stats.py")
stats_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(stats_module)

HEADER = re.compile(r"^\|\s*#\s*\|\s*notebook\s*\|\s*part\s*\|\s*minutes\s*\|\s*core or going further\s*\|"
                    r"\s*needs\s*\|\s*$", re.M)
LINK = re.compile(r"\]\((?:\.\./)?notebooks/([^)]+\.ipynb)\)")
CORE = re.compile(r"^core(?::\s*§(\d+)(?:[–-](\d+))?\s*\((\d+) min\))?$")
CORE_TOTAL = re.compile(r"\*\*(\d+(?:\.\d)?) hours\*\*")
TARGET_HOURS = 16          # course plan (issue 23): the core path in at most 16 student hours


def notebooks() -> dict[str, dict]:
    return {p.name: json.loads(p.read_text(encoding="utf-8"))
            for p in sorted((ROOT / "notebooks").glob("*.ipynb"))}


def table_rows(text: str) -> tuple[list[list[str]], str]:
    """The cells of each row of the syllabus table, and the text after the table."""
    m = HEADER.search(text)
    if m is None:
        return [], ""
    lines = text[m.end():].lstrip("\n").splitlines()
    rows, i = [], 1                                            # line 0 is the |---| rule
    while i < len(lines) and lines[i].startswith("|"):
        rows.append([c.strip() for c in lines[i].strip().strip("|").split("|")])
        i += 1
    return rows, "\n".join(lines[i:])


def problems(text: str, nbs: dict[str, dict], *, core_total: bool = True) -> list[str]:
    """Everything in one syllabus that does not match the notebooks ``nbs``."""
    rows, after = table_rows(text)
    if not rows:
        return ["no syllabus table (| # | notebook | part | minutes | core or going further | needs |)"]
    found, listed, core_minutes = [], [], 0.0
    for row in rows:
        if len(row) != 6:
            found.append(f"row {row}: 6 columns expected")
            continue
        number, name, _, minutes, core, needs = row
        link = LINK.search(name)
        if link is None:
            found.append(f"row {number}: no link to notebooks/NN_topic.ipynb")
            continue
        file = link.group(1)
        listed.append(file)
        if file not in nbs:
            found.append(f"row {number}: {file} is not in notebooks/")
            continue
        if not file.startswith(number + "_"):
            found.append(f"row {number}: links {file}")
        nb = nbs[file]
        measured = stats_module.minutes(nb)
        if not re.fullmatch(r"\d+", minutes) or abs(int(minutes) - measured) > 1:
            found.append(f"{file}: {minutes} minutes in the table, {measured:.1f} measured")
        m = CORE.match(core)
        if m and m.group(1):
            first, last = int(m.group(1)), int(m.group(2) or m.group(1))
            partial = stats_module.minutes(nb, set(range(first, last + 1)))
            if abs(int(m.group(3)) - partial) > 1:
                found.append(f"{file}: core §{first}–{last} {m.group(3)} min in the table, "
                             f"{partial:.1f} measured")
            core_minutes += partial
        elif m:
            core_minutes += measured
        elif core not in ("going further", "practice"):   # practice sets: homework
            found.append(f"{file}: {core!r} is neither 'core', 'core: §a–b (N min)' "
                         "nor 'going further' nor 'practice'")
        for need in re.findall(r"\d{2}", needs):
            if not any(f.startswith(need + "_") for f in nbs) or need >= number:
                found.append(f"{file}: needs {need}, which is not an earlier notebook")
    if listed != sorted(nbs):
        missing = sorted(set(nbs) - set(listed))
        found.append(f"the table lists {listed}, not every notebook once in number order"
                     + (f" (missing {missing})" if missing else ""))
    if core_total:
        stated = CORE_TOTAL.search(after)
        if stated is None:
            found.append("no core total ('**N.N hours**') under the table")
        else:
            hours = core_minutes / 60
            if abs(float(stated.group(1)) - hours) > 0.05 + 1e-9:
                found.append(f"core total {stated.group(1)} hours stated, {hours:.2f} measured")
            if hours > TARGET_HOURS:
                found.append(f"the core path takes {hours:.1f} hours, over the "
                             f"{TARGET_HOURS}-hour target")
    return found


@pytest.mark.parametrize("name", SYLLABI)
def test_syllabus_matches_the_notebooks(name):
    found = problems(SYLLABI[name].read_text(encoding="utf-8"), notebooks(),
                     core_total=name == "README.md")
    assert not found, f"{name}: " + "; ".join(found)


def test_minutes_follow_the_stated_rule():
    """The estimate on a notebook small enough to count by hand: 300 words, 2 lesson cells,
    a check cell and an otter question (headings' words included) → 300/150 + 1.5·2 + 10·1 = 15 minutes; without its
    'Going further' section (150 words, 1 cell) → 1 + 1.5 + 10 = 12.5: the exercises, under
    their own heading, are outside every numbered section."""
    md = lambda words, head="": {"cell_type": "markdown", "metadata": {},
                                 "source": head + " ".join(["w"] * words)}
    code = lambda tags=(): {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": "x = 1"}
    raw = lambda s: {"cell_type": "raw", "metadata": {}, "source": s}
    nb = {"cells": [md(97, "## 1. A\n"), code(), code(["check"]),
                    md(145, "## Going further: 2. B\n"), code(), md(48, "## Exercises\n"),
                    raw("# BEGIN QUESTION\nname: q1"), raw("# END QUESTION")]}
    assert stats_module.minutes(nb) == pytest.approx(15.0)
    assert stats_module.minutes(nb, stats_module.core_sections(nb)) == pytest.approx(12.5)


def _readme_with(transform) -> str:
    return transform((ROOT / "README.md").read_text(encoding="utf-8"))


def _row(text: str, number: str) -> str:
    """Row ``number`` of the syllabus table (README's notebook list has rows like it)."""
    after = text[HEADER.search(text).end():]
    return next(line for line in after.splitlines() if line.startswith(f"| {number} | ["))


def _edit_cell(number: str, column: int, edit):
    """A README transform: ``edit`` applied to one cell of row ``number``."""
    def transform(text: str) -> str:
        row = _row(text, number)
        cells = row.strip().strip("|").split("|")
        cells[column] = f" {edit(cells[column].strip())} "
        return text.replace(row, "|" + "|".join(cells) + "|")
    return transform


def _swap_rows(a: str, b: str):
    def transform(text: str) -> str:
        ra, rb = _row(text, a), _row(text, b)
        return text.replace(ra, "@@").replace(rb, ra).replace("@@", rb)
    return transform


@pytest.mark.parametrize("transform, expect", [
    (_edit_cell("04", 3, lambda m: str(int(m) + 4)), "04_laplace_and_gaussian.ipynb: "),
    (lambda t: t.replace(_row(t, "22") + "\n", ""), "missing ['22_many_queries.ipynb']"),
    (_swap_rows("05", "06"), "not every notebook once in number order"),
    (_edit_cell("06", 4, lambda c: re.sub(r"\((\d+) min", lambda m: f"({int(m[1]) + 8} min", c)),
     "06_renyi_zcdp_and_pld.ipynb: core §1–1"),
    (lambda t: CORE_TOTAL.sub("**0.5 hours**", t, count=1), "core total 0.5 hours stated"),
    (_edit_cell("06", 4, lambda c: "going further"), "hours stated"),
    (_edit_cell("10", 4, lambda c: "core"), "over the 16-hour target"),
    (_edit_cell("03", 5, lambda c: "08"), "needs 08, which is not an earlier notebook"),
    (_edit_cell("09", 4, lambda c: "optional"), "is neither 'core'"),
])
def test_the_checks_can_fail(transform, expect):
    found = problems(_readme_with(transform), notebooks())
    assert any(expect in p for p in found), found


def test_a_notebook_without_a_row_fails():
    """A notebook added to notebooks/ (here: a copy of 24 as 25) without its row."""
    nbs = notebooks()
    nbs["25_new.ipynb"] = nbs["24_dp_in_practice.ipynb"]
    found = problems((ROOT / "README.md").read_text(encoding="utf-8"), nbs)
    assert any("missing ['25_new.ipynb']" in p for p in found), found
