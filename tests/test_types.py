"""The library type-checks: mypy over dpteach/ with the settings of [tool.mypy] in
pyproject.toml reports no error (CI installs the pinned mypy of requirements-test.txt)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _mypy(*args: str) -> tuple[str, int]:
    api = pytest.importorskip("mypy.api", reason="mypy is not installed (pip install -r "
                              "requirements-test.txt installs it)")
    here = os.getcwd()
    os.chdir(ROOT)                       # mypy reads pyproject.toml from where it runs
    try:
        out, err, status = api.run(["--no-incremental", *args])
    finally:
        os.chdir(here)
    return out + err, status


def test_dpteach_type_checks():
    report, status = _mypy("--config-file", str(ROOT / "pyproject.toml"), "dpteach")
    assert status == 0, report
    assert "Success: no issues found" in report, report


def test_the_check_sees_a_type_error(tmp_path):
    """The same settings catch a wrong argument type (what the check above would report)."""
    bad = tmp_path / "bad.py"
    bad.write_text("from dpteach.plots.figure import Rule\n"
                   "Rule('k', 'x', 'not a number')\n", encoding="utf-8")
    report, status = _mypy("--config-file", str(ROOT / "pyproject.toml"), str(bad))
    assert status == 1 and "arg-type" in report, report
