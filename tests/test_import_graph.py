"""The import graph of the library and the app: arrows point one way and never in a circle.

The layout (``shared/DESIGN.md``): the app (``dpapp``, outside the library) → the figures
(``dpteach.plots``) → the mathematics (the rest of ``dpteach``). Inside the mathematics,
each part of the course is a layer (:data:`LAYERS`, lowest first) and a module imports only
from its own part or from a lower layer: noise mechanisms know nothing of accounting,
accounting nothing of learning, and only the audit sees every mechanism. Nothing under
``dpteach`` imports Streamlit, widgets or plotting outside ``plots``; nothing in the library
imports the app. A module never imports another module's private (``_underscore``) names,
and a private module is used only inside its own package (``dpteach._validation``
excepted: it is the package-wide checker).

The graph is read from the source with :mod:`ast` (every ``import`` statement, top level or
inside a function), so a lazy import cannot hide a cycle or a back arrow.
:func:`test_print_the_map` prints the parts and the arrows between them (``pytest -s -k
map``): the picture of the structure, measured.
"""

from __future__ import annotations

import sys
import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("dpteach", "dpapp")

DRAWING = ("matplotlib", "streamlit", "ipywidgets", "altair", "IPython")
#: production DP libraries a notebook releases with beside dpteach (notebook 24): the
#: library stays free of them, so it reads on its own and installs without them
COMPARED_LIBRARIES = ("opendp",)
PACKAGE_WIDE_PRIVATE = {"dpteach._validation"}

#: the library's parts, lowest layer first; a part may import only from lower layers
LAYERS = (
    ("_validation",),
    ("datasets", "exercises"),
    ("mechanisms",),
    ("accounting",),
    ("exact", "queries", "learning"),
    ("pate", "attacks"),
    ("fairness",),
    ("audit",),
    ("tables",),
    ("plots",),
)
RANK = {part: i for i, layer in enumerate(LAYERS) for part in layer}
#: at most this many modules directly under dpteach/ (besides __init__)
TOP_LEVEL_MAX = 5


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


MODULES = _modules()


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str) -> list[tuple[str, str | None, int]]:
    """(imported module, imported name or None, line) for every import in ``module``."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append((alias.name, None, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, is_package, node)
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in MODULES:                       # ``from . import rdp``: a submodule
                    found.append((sub, None, node.lineno))
                else:
                    found.append((target, alias.name, node.lineno))
    return found


def _internal_edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {m: set() for m in MODULES}
    for module in MODULES:
        for target, _, _ in _imports(module):
            # importing a.b.c runs a and a.b too, but those are packages whose __init__
            # only re-exports; the arrow that matters is to a.b.c itself
            if target.split(".")[0] in PACKAGES and target in MODULES:
                edges[module].add(target)
    return edges


def _part(module: str) -> str:
    """``dpteach.mechanisms.noise`` → ``mechanisms``; the app is ``app``."""
    parts = module.split(".")
    if parts[0] == "dpapp":
        return "app"
    return parts[1] if len(parts) > 1 else "(face)"


def _layer(module: str) -> str:
    part = _part(module)
    return part if part in ("app", "plots") else "math"


def test_the_walk_finds_the_packages():
    assert "dpteach.mechanisms.noise" in MODULES and "dpteach.plots" in MODULES
    assert "dpapp.frame" in MODULES
    assert len(MODULES) > 30


def test_every_part_has_a_layer():
    parts = {_part(m) for m in MODULES} - {"app", "(face)"}
    assert parts <= set(RANK), sorted(parts - set(RANK))
    assert set(RANK) <= parts                         # tables: a module of its own


def test_the_top_level_holds_at_most_five_modules():
    top = [p.name for p in (ROOT / "dpteach").glob("*.py") if p.name != "__init__.py"]
    assert len(top) <= TOP_LEVEL_MAX, sorted(top)


def test_no_import_cycles():
    edges = _internal_edges()
    # depth-first search with colours, reporting the first cycle found.
    colour = {m: 0 for m in edges}
    stack: list[str] = []
    cycles = []

    def visit(m: str) -> None:
        colour[m] = 1
        stack.append(m)
        for t in sorted(edges[m]):
            # a package __init__ re-exporting its own submodules is not a cycle with them
            if t == m or (MODULES[t].name == "__init__.py" and m.startswith(t + ".")):
                continue
            if colour[t] == 1:
                cycles.append(stack[stack.index(t):] + [t])
            elif colour[t] == 0:
                visit(t)
        stack.pop()
        colour[m] = 2

    for m in sorted(edges):
        if colour[m] == 0:
            visit(m)
    assert not cycles, "import cycles: " + "; ".join(" → ".join(c) for c in cycles)


def test_arrows_point_from_app_to_plots_to_math():
    wrong = []
    for module in MODULES:
        layer = _layer(module)
        for target, _, line in _imports(module):
            top = target.split(".")[0]
            if layer == "math" and (top in DRAWING or top == "dpapp"
                                    or target.startswith("dpteach.plots")):
                wrong.append(f"{module}:{line} (math) imports {target}")
            if layer == "plots" and top in ("streamlit", "dpapp"):
                wrong.append(f"{module}:{line} (plots) imports {target}")
    assert not wrong, "imports against the direction app → plots → math: " + "; ".join(wrong)


def test_nothing_in_the_library_imports_streamlit():
    found = [f"{m}:{line}" for m in MODULES if m.startswith("dpteach")
             for target, _, line in _imports(m) if target.split(".")[0] == "streamlit"]
    assert not found, found


def test_nothing_in_the_library_imports_a_compared_library():
    found = [f"{m}:{line} imports {target}" for m in MODULES if m.startswith("dpteach")
             for target, _, line in _imports(m) if target.split(".")[0] in COMPARED_LIBRARIES]
    assert not found, "the library imports a library it is compared with: " + "; ".join(found)


def test_parts_import_only_from_lower_layers():
    wrong = []
    for module in MODULES:
        if not module.startswith("dpteach") or MODULES[module].name == "__init__.py":
            continue
        part = _part(module)
        for target, _, line in _imports(module):
            if not target.startswith("dpteach.") or target not in MODULES:
                continue
            other = _part(target)
            if other != part and RANK.get(other, -1) >= RANK.get(part, -1):
                wrong.append(f"{module}:{line} ({part}) imports {target} ({other})")
    assert not wrong, "arrows against the layers " + " < ".join("/".join(x) for x in LAYERS) \
        + ": " + "; ".join(wrong)


def test_no_private_names_cross_a_module_boundary():
    leaks = []
    for module in MODULES:
        package = module.rsplit(".", 1)[0] if MODULES[module].name != "__init__.py" else module
        for target, name, line in _imports(module):
            if target.split(".")[0] not in PACKAGES:
                continue
            if name is not None and name.startswith("_") and name != "__version__":
                leaks.append(f"{module}:{line} imports private {name} from {target}")
            private_parts = [p for p in target.split(".") if p.startswith("_")]
            if private_parts and target not in PACKAGE_WIDE_PRIVATE:
                owner = target.rsplit(".", 1)[0]
                if not (package == owner or package.startswith(owner + ".")):
                    leaks.append(f"{module}:{line} uses private module {target} of another package")
    assert not leaks, "; ".join(leaks)


def part_arrows() -> dict[str, set[str]]:
    """Part → the parts it imports from (the structure at the scale of the course)."""
    arrows: dict[str, set[str]] = defaultdict(set)
    for module, targets in _internal_edges().items():
        if MODULES[module].name == "__init__.py":
            continue
        for t in targets:
            if _part(t) != _part(module):
                arrows[_part(module)].add(_part(t))
    return arrows


def test_print_the_map(capsys):
    arrows = part_arrows()
    with capsys.disabled():
        print("\nparts (lowest layer first) and the parts each imports from:")
        for layer in LAYERS + (("app",),):
            for part in layer:
                n = sum(1 for m in MODULES if _part(m) == part)
                print(f"  {part:12s} {n:3d} modules -> {', '.join(sorted(arrows[part])) or '-'}")
        print(f"  {sum(len(v) for v in arrows.values())} arrows between parts")
    assert arrows["app"] and not arrows["_validation"]


@pytest.mark.parametrize("bad, where", [
    ("import matplotlib.pyplot as plt\n", "dpteach.accounting.fake"),
    ("from ..plots import new_axes\n", "dpteach.accounting.fake"),
    ("import streamlit as st\n", "dpteach.plots.fake"),
])
def test_the_direction_check_can_fail(tmp_path, monkeypatch, bad, where):
    # Guard against a test that cannot fail: a drawing import in the math is caught.
    fake = dict(MODULES)
    path = tmp_path / "fake.py"
    path.write_text(bad)
    fake[where] = path
    monkeypatch.setattr(sys.modules[__name__], "MODULES", fake)
    with pytest.raises(AssertionError, match="imports against the direction"):
        test_arrows_point_from_app_to_plots_to_math()


def test_the_layer_check_can_fail(tmp_path, monkeypatch):
    # mechanisms (a low layer) importing the accounting (higher) is an arrow against them
    fake = dict(MODULES)
    path = tmp_path / "fake.py"
    path.write_text("def f():\n    from ..accounting.zcdp import zcdp_to_epsilon\n")
    fake["dpteach.mechanisms.fake"] = path
    monkeypatch.setattr(sys.modules[__name__], "MODULES", fake)
    with pytest.raises(AssertionError, match="arrows against the layers"):
        test_parts_import_only_from_lower_layers()


def test_the_compared_library_check_can_fail(tmp_path, monkeypatch):
    fake = dict(MODULES)
    path = tmp_path / "fake.py"
    path.write_text("def f():\n    import opendp.prelude as dp\n")      # a lazy import counts
    fake["dpteach.mechanisms.fake"] = path
    monkeypatch.setattr(sys.modules[__name__], "MODULES", fake)
    with pytest.raises(AssertionError, match="imports a library it is compared with"):
        test_nothing_in_the_library_imports_a_compared_library()


def test_the_cycle_check_can_fail(tmp_path, monkeypatch):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("from . import fake_b\n")
    b.write_text("def f():\n    from .fake_a import g\n")        # a lazy import still counts
    fake = dict(MODULES)
    fake["dpteach.fake_a"], fake["dpteach.fake_b"] = a, b
    monkeypatch.setattr(sys.modules[__name__], "MODULES", fake)
    with pytest.raises(AssertionError, match="import cycles"):
        test_no_import_cycles()


def test_importing_the_plots_package_loads_no_drawing_library():
    # ``import dpteach.plots`` must stay light (the app and notebook start-up pay for it):
    # its chapters, with matplotlib and SciPy, load on first use of one of their names.
    import subprocess
    import sys
    code = ("import sys, dpteach.plots as p; "
            "heavy = [m for m in ('matplotlib', 'scipy.stats', 'sklearn', 'pandas') "
            "if m in sys.modules]; print(heavy); "
            "f = p.plot_sigma_comparison; print(f.__module__, 'matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.split("\n")
    assert out[0] == "[]", out[0]
    assert out[1] == "dpteach.plots.calibration True"


def test_every_name_the_plots_package_exports_exists_in_its_chapter():
    import dpteach.plots as plots
    for name in plots.__all__:
        obj = getattr(plots, name)
        if callable(obj):
            assert obj.__module__ == f"dpteach.plots.{plots._HOME[name]}", name
