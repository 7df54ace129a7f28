"""README's "Project layout" names every part of the library as it is on disk.

Each folder of ``dpteach/`` has a line (``  mechanisms/  noise, ...``) whose text, with
its continuation lines, names every public module of that folder; every top-level module
of ``dpteach/`` and every top-level folder of the repository that holds code is listed.
A module added, renamed or moved without its README line fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "dpteach"


def layout_block() -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Project layout", 1)[1]
    return section.split("```", 2)[1]


def entries() -> dict[str, str]:
    """``{name: its description, continuation lines included}`` of the layout block."""
    out: dict[str, str] = {}
    current = None
    for line in layout_block().splitlines():
        m = re.match(r"^(\s*)(\S+/?|\S+\.\w+)\s{2,}(.*)$", line)
        if m and not line.startswith(" " * 17):
            current = m.group(2)
            out[current] = m.group(3)
        elif current and line.strip():
            out[current] += " " + line.strip()
    return out


FOLDERS = sorted(p.name for p in PACKAGE.iterdir()
                 if p.is_dir() and (p / "__init__.py").exists())


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_module_of_a_folder_is_named_on_its_line(folder):
    described = entries().get(f"{folder}/")
    assert described is not None, f"README's layout has no line for dpteach/{folder}/"
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", described))
    modules = sorted(p.stem for p in (PACKAGE / folder).glob("*.py")
                     if not p.stem.startswith("_"))
    missing = [m for m in modules if m not in words]
    assert not missing, f"dpteach/{folder}/: README's layout does not name {missing}"


def test_every_top_level_module_and_folder_is_listed():
    names = set(entries())
    modules = {p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
    assert modules <= names, f"top-level modules not in the layout: {modules - names}"
    folders = {p.name + "/" for p in ROOT.iterdir() if p.is_dir()
               and not p.name.startswith(".") and any(p.rglob("*.py"))
               and p.name not in {"build", "student"} and not p.name.endswith(".egg-info")}
    assert folders <= names, f"folders not in the layout: {folders - names}"


def test_the_guard_sees_a_missing_module(monkeypatch):
    # shown once: a module the README does not name is reported
    monkeypatch.setattr(Path, "glob", lambda self, pattern: [self / "noise.py",
                                                             self / "not_in_readme.py"])
    with pytest.raises(AssertionError, match="not_in_readme"):
        test_every_module_of_a_folder_is_named_on_its_line("mechanisms")
