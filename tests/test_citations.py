"""One citation key per paper across the library.

Docstrings cite their sources in numpydoc "References" entries, ``.. [KEY] Authors. Title``.
The key is the authors' initials and the year (``[DR14]``, ``[ACG16]``); a student who meets
``[ACG16]`` in one module and ``[ACG+16]`` in another should not wonder whether these are two
papers. This test reads every entry in ``dpteach/`` and checks that

* a key names one paper everywhere (the same first author and year), and
* a paper (first author and year) has one key everywhere;
* a key cited in the text of a module (``[KEY]_``) has its entry in that module.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "dpteach"
ENTRY = re.compile(r"^\s*\.\. \[([^\]]+)\]\s+(.*)$", re.M)
CITED = re.compile(r"\[([A-Za-z][A-Za-z+]*\d{2}[a-z]?|NA)\]_")


# Different papers that share a first author and a year, each with its own key.
DISTINCT_PAPERS = {("balle", "18"): {"BBG18", "BW18"}}   # amplification by subsampling; analytic Gaussian


def first_author(text: str) -> str:
    """The surname of the first author of a reference entry ("M. Abadi et al." → "abadi")."""
    for token in re.split(r"[\s,]+", text.strip()):
        token = token.strip("*\"'")
        if not token or re.fullmatch(r"(?:[A-Z][a-z]?\.-?)+", token) or token in {"and", "&"}:
            continue                                # initials such as "M.", "T.-H.", "Y.-X."
        return token.rstrip(".,:;").lower()
    return ""


def year_of(key: str) -> str:
    m = re.search(r"(\d{2})[a-z]?$", key)
    return m.group(1) if m else ""


def entries():
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        for m in ENTRY.finditer(text):
            yield path, m.group(1), m.group(2)


def test_references_are_found():
    assert sum(1 for _ in entries()) > 60


def test_one_key_per_paper_and_one_paper_per_key():
    by_key = defaultdict(set)
    by_paper = defaultdict(set)
    where = defaultdict(list)
    for path, key, text in entries():
        author = first_author(text)
        by_key[key].add(author)
        if year_of(key):
            by_paper[(author, year_of(key))].add(key)
        where[key].append(path.relative_to(PACKAGE.parent).as_posix())
    two_papers = {k: sorted(a) for k, a in by_key.items() if len(a) > 1}
    two_keys = {f"{a} '{y}": sorted(k) for (a, y), k in by_paper.items()
                if len(k) > 1 and k != DISTINCT_PAPERS.get((a, y))}
    assert not two_papers, f"one key, several first authors: {two_papers}"
    assert not two_keys, ("one paper, several keys: "
                          + "; ".join(f"{p}: {ks} in {[where[k] for k in ks]}"
                                      for p, ks in two_keys.items()))


def test_every_cited_key_has_its_entry_in_the_module():
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        defined = {m.group(1) for m in ENTRY.finditer(text)}
        for key in sorted(set(CITED.findall(text)) - defined):
            missing.append(f"{path.relative_to(PACKAGE.parent).as_posix()}: [{key}]_")
    assert not missing, "keys cited without a References entry: " + ", ".join(missing)


def test_first_author_parser():
    assert first_author("M. Abadi et al. Deep learning") == "abadi"
    assert first_author("T.-H. H. Chan, E. Shi and D. Song.") == "chan"
    assert first_author("Dwork & Roth 2014, Thm 3.16") == "dwork"
    assert first_author("C. Dwork and A. Roth. *The Algorithmic") == "dwork"
