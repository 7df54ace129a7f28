"""The definition first (issue 23): no guarantee before it, zCDP defined where first named.

Issue 23 is done when "the definition notebook comes before any notebook that states a
privacy guarantee; the first notebook that names zCDP defines it". Read as a student reads
them -- markdown cells and code cells not tagged ``check``, otter's test messages included:

* the definition notebook, ``02_what_dp_promises.ipynb``, exists, holds the definition of
  (ε, δ)-differential privacy, and is row 02 of the syllabus tables (README.md,
  docs/start_here.md);
* no notebook numbered before it states a DP guarantee: no "ε-DP", "$\\varepsilon$-DP",
  "(ε, δ)-DP", "kε-DP", "1-DP", no "-differentially private" and no "differentially
  private" at all (before the definition the words can only be a claim), no "is DP".
  A pointer such as "differential privacy (notebook 02)" names the idea, not a guarantee,
  and passes;
* the first notebook, in number order, whose student-visible text names zCDP
  ("zCDP", "zero-concentrated") has a markdown cell that defines it: the words
  "zero-concentrated", ρ, and the Rényi-divergence bound D_α(M(D) ‖ M(D')) ≤ ρα.

``test_the_checks_can_fail`` shows each check failing on a bad notebook.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
DEFINITION = "02_what_dp_promises.ipynb"
SYLLABI = (ROOT / "README.md", ROOT / "docs" / "start_here.md")

_EPS = r"(?:ε|δ|\\varepsilon|\\epsilon|\\delta|\d|\))"
#: a DP guarantee stated as a property of something
GUARANTEE = re.compile("|".join([
    _EPS + r"\$?\s*-\s*DP\b",                               # ε-DP, $\varepsilon$-DP, (ε, δ)-DP, 1-DP
    r"-\s*differentially[\s>]+private",                        # ε-differentially private
    r"\bdifferentially[\s>]+private\b",                        # "a differentially private answer"
    r"\b(?:is|are|was|were|be|being|stays?|remains?)\s+(?:not\s+)?DP\b",   # "is DP"
]), re.I)
#: zCDP named
ZCDP = re.compile(r"zCDP|zero-concentrated", re.I)
#: a markdown cell that defines zCDP: the name, ρ, and D_α(...) ≤ ρα
ZCDP_DEFINITION = (
    re.compile(r"zero-concentrated", re.I),
    re.compile(r"ρ|\\rho"),
    re.compile(r"D_\{?(?:\\alpha|α)\}?.{0,80}?(?:\\leq?|≤)\s*(?:\\rho|ρ)\s*(?:\\,|\\cdot|\\;|\s)*"
               r"(?:\\alpha|α)", re.S),
)
#: the definition of differential privacy, in one markdown cell
DP_DEFINITION = (
    re.compile(r"\*\*Definition\*\*"),
    re.compile(r"differentially[\s>]+private", re.I),      # a blockquote may break the line
    re.compile(r"e\^\{?\\varepsilon\}?"),
)


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def student_text(nb: dict) -> list[tuple[int, str]]:
    """(index, text) of the cells a student reads: markdown, and code not tagged check."""
    out = []
    for i, cell in enumerate(nb["cells"]):
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] == "markdown" or (cell["cell_type"] == "code" and "check" not in tags):
            out.append((i, _source(cell)))
    return out


def guarantees(nb: dict) -> list[str]:
    """Every place where a student-visible cell states a DP guarantee."""
    found = []
    for i, text in student_text(nb):
        for m in GUARANTEE.finditer(text):
            line = text[:m.start()].count("\n")
            found.append(f"cell {i}: {text.splitlines()[line].strip()!r} ({m.group(0)!r})")
    return found


def defines_zcdp(nb: dict) -> bool:
    return any(all(p.search(_source(c)) for p in ZCDP_DEFINITION)
               for c in nb["cells"] if c["cell_type"] == "markdown")


def names_zcdp(nb: dict) -> bool:
    return any(ZCDP.search(text) for _, text in student_text(nb))


def order_problems(nbs: dict[str, dict]) -> list[str]:
    """Everything that breaks "the definition first" in the notebooks ``nbs`` (name → json)."""
    found = []
    if DEFINITION not in nbs:
        return [f"the definition notebook {DEFINITION} does not exist"]
    if not any(all(p.search(_source(c)) for p in DP_DEFINITION)
               for c in nbs[DEFINITION]["cells"] if c["cell_type"] == "markdown"):
        found.append(f"{DEFINITION} has no markdown cell with the **Definition** of DP")
    for name in sorted(nbs):
        if name < DEFINITION:
            found += [f"{name} (before the definition) {g}" for g in guarantees(nbs[name])]
    naming = [name for name in sorted(nbs) if names_zcdp(nbs[name])]
    if naming and not defines_zcdp(nbs[naming[0]]):
        found.append(f"{naming[0]} is the first notebook to name zCDP but does not define it "
                     "(a markdown cell with 'zero-concentrated', ρ and D_α(…) ≤ ρα)")
    return found


def syllabus_problems(text: str, where: str) -> list[str]:
    """The definition notebook is row 02 of the syllabus table, in its place."""
    rows = re.findall(r"^\|\s*(\d{2})\s*\|\s*\[[^\]]*\]\((?:\.\./)?notebooks/([^)]+\.ipynb)\)", text, re.M)
    numbers = [n for n, _ in rows]
    if (("02", DEFINITION) not in rows or numbers[:3] != ["00", "01", "02"]):
        return [f"{where}: the syllabus does not list {DEFINITION} as 02, third in order"]
    return []


def _masters() -> dict[str, dict]:
    return {p.name: _load(p) for p in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))}


def test_the_definition_comes_first_and_zcdp_is_defined_where_named():
    found = order_problems(_masters())
    assert not found, "\n".join(found)


@pytest.mark.parametrize("path", SYLLABI, ids=lambda p: p.name)
def test_the_definition_notebook_is_02_in_the_syllabus(path):
    found = syllabus_problems(path.read_text(encoding="utf-8"), path.name)
    assert not found, "\n".join(found)


# --- the checks can fail --------------------------------------------------------------------

def _fake(number: int) -> str:
    """A made-up notebook file name (built, so that test_references does not read it)."""
    return f"{number:02d}_toy" + ".ipynb"


def _md(src):
    return {"cell_type": "markdown", "source": src, "metadata": {}}


def _code(src, **meta):
    return {"cell_type": "code", "source": src, "metadata": meta}


_DEF_NB = {"cells": [_md("> **Definition**. $M$ is $(\\varepsilon,\\delta)$-differentially "
                         "private if $P[M(D)\\in S] \\le e^{\\varepsilon} P[M(D')\\in S]+\\delta$.")]}
_ZCDP_DEF = _md("A mechanism is **ρ-zero-concentrated DP (ρ-zCDP)** if for every α > 1\n"
                "$$D_\\alpha\\big(M(D)\\,\\|\\,M(D')\\big) \\le \\rho\\,\\alpha.$$")


@pytest.mark.parametrize("text", [
    "so each answer is $\\varepsilon$-differentially private (Dwork & Roth 2014)",
    "For an $\\varepsilon$-DP answer every test's false-alarm rate",
    "together they are only $k\\varepsilon$-DP",
    "every attack on an ε-DP answer",
    "the release is $(\\varepsilon, \\delta)$-DP",
    "a differentially private count",
    "the noisy count is DP",
])
def test_the_guarantee_check_can_fail(text):
    for cell in (_md(text), _code(f"print({text!r})"), _code(f"assert ok, {text!r}")):
        nbs = {_fake(1): {"cells": [cell]}, DEFINITION: _DEF_NB}
        assert any("before the definition" in p for p in order_problems(nbs)), text


@pytest.mark.parametrize("text", [
    "differential privacy (notebook 02; Dwork & Roth 2014, Def. 2.4) is built on this",
    "notebook 02 turns this into the definition of differential privacy",
    "the smaller $\\varepsilon$, the wider the noise; DP-SGD later",
])
def test_pointers_and_check_cells_pass(text):
    hidden = _code("assert x, 'ε-DP'", tags=["check"])
    nbs = {_fake(1): {"cells": [_md(text), hidden]}, DEFINITION: _DEF_NB}
    assert order_problems(nbs) == []


def test_the_zcdp_check_can_fail():
    naming = {"cells": [_md("accountants (Rényi DP, zCDP, notebook 06)")]}
    defining = {"cells": [_md("Notebook 06 covers zCDP."), _ZCDP_DEF]}
    assert any(_fake(5) + " is the first notebook to name zCDP" in p
               for p in order_problems({DEFINITION: _DEF_NB, _fake(5): naming,
                                        _fake(6): defining}))
    assert order_problems({DEFINITION: _DEF_NB, _fake(5): {"cells": [_md("accountants")]},
                           _fake(6): defining}) == []


def test_the_definition_checks_can_fail():
    assert order_problems({_fake(1): {"cells": []}}) == [
        f"the definition notebook {DEFINITION} does not exist"]
    assert any("no markdown cell" in p
               for p in order_problems({DEFINITION: {"cells": [_md("What DP promises")]}}))
    table = "".join(f"| {n:02d} | [t](notebooks/{_fake(n)}) |\n" for n in range(3))
    assert syllabus_problems(table, "README.md")
    assert not syllabus_problems(table.replace(_fake(2), DEFINITION), "README.md")
