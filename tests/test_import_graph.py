"""The package's import graph: arrows point one way and never in a circle.

The layout (``shared/DESIGN.md``): app pages → plots → math modules. The math modules
(everything outside ``dpteach.plots`` and ``dpteach.app_pages``) never import plotting,
widgets or Streamlit; the plots never import the app; nothing imports the app pages but
``app.py``. A module never imports another module's private (``_underscore``) names, and a
private module is used only inside its own package (``dpteach._validation`` excepted: it is
the package-wide checker).

The graph is read from the source with :mod:`ast` (every ``import`` statement, top level
or inside a function), so a lazy import cannot hide a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "dpteach"

DRAWING = ("matplotlib", "streamlit", "ipywidgets", "altair", "IPython")
PACKAGE_WIDE_PRIVATE = {"dpteach._validation"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


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
            if target.startswith("dpteach"):
                # importing a.b.c runs a and a.b too, but those are packages whose
                # __init__ only re-exports; the arrow that matters is to a.b.c itself
                if target in MODULES:
                    edges[module].add(target)
    return edges


def _layer(module: str) -> str:
    if module.startswith("dpteach.app_pages"):
        return "app"
    if module.startswith("dpteach.plots"):
        return "plots"
    return "math"


def test_the_walk_finds_the_package():
    assert "dpteach.mechanisms" in MODULES and "dpteach.plots" in MODULES
    assert len(MODULES) > 30


def test_no_import_cycles():
    edges = _internal_edges()
    # Tarjan-free version: depth-first search with colours, reporting the first cycle found.
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
            if layer == "math" and (top in DRAWING or target.startswith(("dpteach.plots",
                                                                         "dpteach.app_pages"))):
                wrong.append(f"{module}:{line} (math) imports {target}")
            if layer == "plots" and (top == "streamlit" or target.startswith("dpteach.app_pages")):
                wrong.append(f"{module}:{line} (plots) imports {target}")
    assert not wrong, "imports against the direction app → plots → math: " + "; ".join(wrong)


def test_no_private_names_cross_a_module_boundary():
    leaks = []
    for module in MODULES:
        package = module.rsplit(".", 1)[0] if MODULES[module].name != "__init__.py" else module
        for target, name, line in _imports(module):
            if not target.startswith("dpteach"):
                continue
            if name is not None and name.startswith("_") and name != "__version__":
                leaks.append(f"{module}:{line} imports private {name} from {target}")
            private_parts = [p for p in target.split(".") if p.startswith("_")]
            if private_parts and target not in PACKAGE_WIDE_PRIVATE:
                owner = target.rsplit(".", 1)[0]
                if not (package == owner or package.startswith(owner + ".")):
                    leaks.append(f"{module}:{line} uses private module {target} of another package")
    assert not leaks, "; ".join(leaks)


@pytest.mark.parametrize("bad, expect", [
    ("import matplotlib.pyplot as plt\n", "math"),
    ("from ..plots import new_axes\n", "math"),
])
def test_the_direction_check_can_fail(tmp_path, monkeypatch, bad, expect):
    # Guard against a test that cannot fail: a math module with a drawing import is caught.
    fake = dict(MODULES)
    path = tmp_path / "fake.py"
    path.write_text(bad)
    fake["dpteach.accounting.fake"] = path
    monkeypatch.setattr(__import__(__name__), "MODULES", fake)
    with pytest.raises(AssertionError, match="imports against the direction"):
        test_arrows_point_from_app_to_plots_to_math()


def test_the_cycle_check_can_fail(tmp_path, monkeypatch):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("from . import fake_b\n")
    b.write_text("def f():\n    from .fake_a import g\n")        # a lazy import still counts
    fake = dict(MODULES)
    fake["dpteach.fake_a"], fake["dpteach.fake_b"] = a, b
    monkeypatch.setattr(__import__(__name__), "MODULES", fake)
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
