"""Every public module of dpteach is driven by some ``tests/test_edges_*.py`` file.

The convention: each ``tests/test_edges_<area>.py`` has a module-level ``MODULES`` (a tuple
or list of modules, or a dict of name → module) naming the modules whose public callables
its own coverage test walks, so that every public function there gets legal-but-extreme
values. A module whose every public function and class declares its teaching domains is
driven by the generated tests of ``tests/test_domains.py`` instead. This meta-test imports each edges file, reads its ``MODULES``, walks ``dpteach``
with :func:`pkgutil.walk_packages` and fails when a module that defines a public function
or class of its own is in no table. A new module (or a new edges file without a table)
therefore cannot slip through.

Modules that declare their domains (``@validate``) need no table: ``tests/test_domains.py``
generates their edge values from the declarations.

Skipped: ``dpapp`` (Streamlit pages, driven through AppTest) and private modules
(a name part starting with ``_``) except those in :data:`PRIVATE_BUT_CHECKED`. Packages whose
``__init__`` only re-exports (defines nothing of its own) need no table, nor do modules that
declare their teaching domains (not in ``tests/test_domains.py``'s ``WRITTEN_OUT``): their edge
and bad-input cases are generated from the declarations.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import inspect
import pkgutil
import sys
import types
from pathlib import Path

import pytest
from test_domains import WRITTEN_OUT

import dpteach

HERE = Path(__file__).parent
SKIPPED_PACKAGES = ("dpapp",)
#: private modules that are nevertheless part of the public surface (their checkers and
#: the plots' shared style are used by every chapter)
PRIVATE_BUT_CHECKED = {"dpteach._validation", "dpteach.plots._style"}
#: modules known to be without an edges table yet, with the reason; an entry must be
#: removed as soon as the module is covered (or gone), see test_pending_entries_are_current
PENDING: dict[str, str] = {}


# ------------------------------------------------------------------------ the logic
def is_checked(name: str) -> bool:
    """Whether a dotted module name must appear in an edges table."""
    if name.startswith(SKIPPED_PACKAGES):
        return False
    return name in PRIVATE_BUT_CHECKED or not any(p.startswith("_") for p in name.split("."))


def declared(name: str) -> bool:
    """Whether the module declares its domains (tests/test_domains.py covers it)."""
    return not any(name == w or name.startswith(w + ".") for w in WRITTEN_OUT)


def defines_public_api(module: types.ModuleType) -> bool:
    """True if ``module`` defines (not merely imports) a public function or class."""
    for attr, obj in vars(module).items():
        if attr.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj) or inspect.isclass(obj):
            return True
    return False


def module_names(table) -> set[str]:
    """The dotted names of the modules in one ``MODULES`` table (sequence or dict)."""
    items = table.values() if isinstance(table, dict) else table
    names = set()
    for item in items:
        if not isinstance(item, types.ModuleType):
            raise TypeError(f"MODULES must hold modules; got {item!r}")
        names.add(item.__name__)
    return names


def declares_its_domains(module: types.ModuleType) -> bool:
    """True if every public function and class ``module`` defines declares its teaching
    domains (``@validate``: ``__domains__``; estimators: ``_parameter_constraints``; a
    function without parameters has none): the generated tests of ``tests/test_domains.py``
    drive it, no edges table is needed."""
    own = [obj for attr, obj in vars(module).items()
           if not attr.startswith("_") and getattr(obj, "__module__", None) == module.__name__
           and (inspect.isfunction(obj) or inspect.isclass(obj))]
    return bool(own) and all(hasattr(obj, "__domains__") or hasattr(obj, "_parameter_constraints")
                             or (inspect.isfunction(obj) and not inspect.signature(obj).parameters)
                             or dataclasses.is_dataclass(obj)      # a record of results
                             for obj in own)


def uncovered(modules: dict[str, types.ModuleType], tables: dict[str, set[str]]) -> list[str]:
    """Names of the checked modules defining a public API that no table names (and that do
    not declare their domains)."""
    named = set().union(*tables.values()) if tables else set()
    return sorted(name for name, module in modules.items()
                  if is_checked(name) and defines_public_api(module) and name not in named
                  and not declares_its_domains(module))


def public_modules() -> dict[str, types.ModuleType]:
    """Every module of dpteach (imported), as {dotted name: module}."""
    found = {"dpteach": dpteach}
    for info in pkgutil.walk_packages(dpteach.__path__, "dpteach.",
                                      onerror=lambda name: pytest.fail(f"cannot import {name}")):
        if info.name.startswith(SKIPPED_PACKAGES):
            continue
        found[info.name] = importlib.import_module(info.name)
    return found


def edges_files() -> list[Path]:
    return sorted(p for p in HERE.rglob("test_*_edges.py") if p.name != Path(__file__).name)


def load_test_module(path: Path) -> types.ModuleType:
    """The edges file as pytest imports it (by its basename, ``tests/`` on ``sys.path``)."""
    if path.stem in sys.modules:
        return sys.modules[path.stem]
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[path.stem]
        raise
    return module


def tables_of(files) -> dict[str, set[str]]:
    """{file name: module names of its MODULES}; a file without MODULES is an error."""
    out = {}
    for path in files:
        module = load_test_module(path)
        if not hasattr(module, "MODULES"):
            raise AssertionError(f"{path.name} has no module-level MODULES table (the modules "
                                 "whose public callables it drives)")
        out[path.name] = module_names(module.MODULES)
    return out


# ------------------------------------------------------------------------------ tests
def test_every_public_module_is_in_an_edges_table():
    modules = public_modules()
    assert len(modules) >= 25                          # the walk really found the library
    tables = tables_of(edges_files())
    assert len(tables) >= 6
    missing = [m for m in uncovered(modules, tables) if m not in PENDING and not declared(m)]
    assert not missing, ("public modules in no tests/test_edges_*.py MODULES table (add their "
                         "functions to an edges file): " + ", ".join(missing))


def test_tables_name_only_existing_checked_modules():
    modules = public_modules()
    for file, names in tables_of(edges_files()).items():
        assert names, f"{file}: MODULES is empty"
        stale = sorted(n for n in names if n not in modules or not is_checked(n))
        assert not stale, f"{file}: MODULES names modules that are not public: {stale}"


def test_pending_entries_are_current():
    modules = public_modules()
    still = {m for m in uncovered(modules, tables_of(edges_files())) if not declared(m)}
    stale = sorted(set(PENDING) - still)
    assert not stale, f"PENDING lists modules that are covered now (or gone): {stale}"


# ---------------------------------------------------------------- the meta-test can fail
def _fake_module(name: str, *, own: bool) -> types.ModuleType:
    module = types.ModuleType(name)

    def chapter_function(x):
        return x

    chapter_function.__module__ = name if own else "dpteach.mechanisms.noise"
    module.chapter_function = chapter_function
    module._helper = lambda: None
    return module


def test_a_module_missing_from_every_table_is_reported():
    fake = {"dpteach.fake_chapter": _fake_module("dpteach.fake_chapter", own=True),
            "dpteach.fake_package": _fake_module("dpteach.fake_package", own=False),
            "dpteach._fake_private": _fake_module("dpteach._fake_private", own=True),
            "dpapp.fake_page": _fake_module("dpapp.fake_page", own=True),
            "dpteach._validation": _fake_module("dpteach._validation", own=True)}
    tables = {"test_edges_x.py": {"dpteach.mechanisms.noise"}}
    # an own public function makes a module need a table; re-exports, private modules
    # and app pages do not, but _validation does
    assert uncovered(fake, tables) == ["dpteach._validation", "dpteach.fake_chapter"]
    tables["test_edges_y.py"] = {"dpteach.fake_chapter", "dpteach._validation"}
    assert uncovered(fake, tables) == []
    assert uncovered(fake, {}) == ["dpteach._validation", "dpteach.fake_chapter"]
    # a module declaring the domains of all its functions needs no table; one declaration
    # missing, it does
    declared = _fake_module("dpteach.fake_declared", own=True)
    declared.chapter_function.__domains__ = {"x": None}
    assert uncovered({"dpteach.fake_declared": declared}, {}) == []
    declared.other = lambda y: y
    declared.other.__module__ = "dpteach.fake_declared"
    assert uncovered({"dpteach.fake_declared": declared}, {}) == ["dpteach.fake_declared"]


def test_a_file_without_a_table_is_reported(tmp_path):
    path = tmp_path / "test_edges_fake_without_table.py"
    path.write_text("CASES = []\n")
    with pytest.raises(AssertionError, match="no module-level MODULES"):
        tables_of([path])
    path = tmp_path / "test_edges_fake_with_dict_table.py"
    path.write_text("import dpteach.mechanisms.noise as m\nMODULES = {'m': m}\n")
    assert tables_of([path]) == {path.name: {"dpteach.mechanisms.noise"}}
    with pytest.raises(TypeError, match="MODULES must hold modules"):
        module_names(["dpteach.mechanisms.noise"])
    for name in ("test_edges_fake_without_table", "test_edges_fake_with_dict_table"):
        sys.modules.pop(name, None)
