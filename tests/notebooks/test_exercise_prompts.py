"""Exercise prompts a student can take in (issue 22, item 6).

For every master's otter questions (a ``# BEGIN QUESTION`` raw cell, then the prompt's
markdown cells up to the next raw cell):

* each prompt cell is at most 80 words (a question in parts (a), (b) has one cell a part);
  words are whitespace-separated tokens holding a letter or digit, and a ``$…$`` math span
  counts as one word;
* a question headed "predict, then run" says it is "for your own check" (its answer is
  easy to read off after running, so it is not a test of the student);
* every lesson notebook has at least one conceptual question (its heading says
  "concept"), and every practice set (``NN_practice_*.ipynb``) one that asks to choose or to
  spot a broken variant or claim, or says "concept".

``test_the_checks_can_fail`` shows each rule failing on a made-up notebook.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MASTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))
WORDS_MAX = 80
MATH = re.compile(r"\$[^$]*\$")
HEADING = re.compile(r"^\s*\*\*(.*?)\*\*", re.S)


def words(text: str) -> int:
    return sum(1 for t in MATH.sub("X", text).split() if re.search(r"\w", t))


def questions(nb: dict) -> list[tuple[str, list[str]]]:
    """(heading, prompt cells) of each question."""
    cells, out = nb["cells"], []
    for i, c in enumerate(cells):
        src = "".join(c["source"])
        if c["cell_type"] == "raw" and src.lstrip().startswith("# BEGIN QUESTION"):
            prompt = []
            for d in cells[i + 1:]:
                if d["cell_type"] == "raw":
                    break
                if d["cell_type"] == "markdown":
                    prompt.append("".join(d["source"]))
            m = HEADING.match(prompt[0]) if prompt else None
            out.append((m.group(1) if m else "", prompt))
    return out


def problems(name: str, nb: dict) -> list[str]:
    found, qs = [], questions(nb)
    for heading, prompt in qs:
        for cell in prompt:
            if words(cell) > WORDS_MAX:
                found.append(f"{name}: a prompt of {words(cell)} words ({heading[:50]!r})")
        if re.search(r"predict,? then run", heading, re.I) and "own check" not in heading:
            found.append(f"{name}: {heading[:50]!r} does not say it is for your own check")
    wanted = r"concept|choose|spot" if "_practice_" in name else r"concept"
    if qs and not any(re.search(wanted, h, re.I) for h, _ in qs):
        found.append(f"{name}: no conceptual question")
    return found


@pytest.mark.parametrize("path", MASTERS, ids=lambda p: p.stem)
def test_prompts(path):
    found = problems(path.name, json.loads(path.read_text(encoding="utf-8")))
    assert not found, "\n".join(found)


#: made-up file names (built, so that the reference test does not look for them on disk)
LESSON, PRACTICE = "05_x" + ".ipynb", "07_practice_x" + ".ipynb"


def _nb(*questions: tuple[str, str]) -> dict:
    cells = []
    for heading, body in questions:
        cells += [{"cell_type": "raw", "source": "# BEGIN QUESTION\nname: q1"},
                  {"cell_type": "markdown", "source": f"**{heading}** {body}"},
                  {"cell_type": "raw", "source": "# BEGIN SOLUTION"}]
    return {"cells": cells}


@pytest.mark.parametrize("nb, name, expect", [
    (_nb(("Exercise 1 (concept): x.", "word " * 81)), LESSON, "a prompt of"),
    (_nb(("Exercise 1 (concept): x.", "$a + b = c$ " * 70)), LESSON, None),
    (_nb(("Exercise 1 (concept): x.", "ok"), ("Exercise 2 (predict, then run): y.", "ok")),
     LESSON, "for your own check"),
    (_nb(("Exercise 1 (derivation): x.", "ok")), LESSON, "no conceptual question"),
    (_nb(("Problem 1 (compute): x.", "ok")), PRACTICE, "no conceptual question"),
    (_nb(("Problem 1 (spot the broken variant).", "ok")), PRACTICE, None),
])
def test_the_checks_can_fail(nb, name, expect):
    found = problems(name, nb)
    if expect is None:
        assert found == []
    else:
        assert any(expect in f for f in found), found
