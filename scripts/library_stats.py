"""The library's shape in numbers: code lines per folder, the argument-checking share, the
modules at the top level, what a reader meets before the first public definition, and the
length of four reading paths.

    python scripts/library_stats.py               # the working tree
    python scripts/library_stats.py --rev 359e137 # any commit (read with git archive)

Definitions (issue 21):

* code lines: lines holding a token that is not a comment, a blank or a docstring;
* argument-checking lines: every line of a statement that raises, calls a ``check…``
  function (or a function of the same module whose body only refuses, whatever its name)
  or names ``ParameterError`` (an import of a checker or of ``ParameterError``
  included), and the test of an ``if`` whose body only raises (declarations —
  ``@validate(...)``, domain definitions and their imports — are not checking lines: they
  are data);
* a reading path: the lines (docstrings included) of an entry function and of the
  functions and methods of its own module it calls, transitively — what a student reads
  in the file they opened. Entries are listed in ``READING_PATHS`` under both the old and
  the new layout's names; the first that exists is used.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import tokenize
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
        tokenize.ENDMARKER)

#: path → entries, each a list of alternatives "module.path:qualname" (old layout, new)
READING_PATHS = {
    "Laplace mechanism": [["dpteach.mechanisms:laplace_mechanism",
                           "dpteach.mechanisms.noise:laplace_mechanism"]],
    "one DP-SGD step": [["dpteach.learning.dpsgd:dp_sgd_gradient"],
                        ["dpteach.learning.nn:MLP.backward", "dpteach.learning.network:Network.backward"],
                        ["dpteach.learning.nn:MLP.clipped_gradient_sum",
                         "dpteach.learning.network:Network.clipped_gradient_sum"]],
    "GNMax and its RDP": [["dpteach.learning.pate:gnmax", "dpteach.pate.aggregators:gnmax"],
                          ["dpteach.accounting.pate:gnmax_rdp", "dpteach.pate.analysis:gnmax_rdp"]],
    "the MWEM loop": [["dpteach.mwem:mwem", "dpteach.queries.mwem:mwem"]],
}


def docstring_lines(tree: ast.AST) -> set[int]:
    doc = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and n.body and isinstance(n.body[0], ast.Expr) \
                and isinstance(getattr(n.body[0], "value", None), ast.Constant) \
                and isinstance(n.body[0].value.value, str):
            doc.update(range(n.body[0].lineno, n.body[0].end_lineno + 1))
    return doc


def code_lines(src: str, tree: ast.AST) -> set[int]:
    doc = docstring_lines(tree)
    code = set()
    for t in tokenize.generate_tokens(io.StringIO(src).readline):
        if t.type not in SKIP:
            code.update(line for line in range(t.start[0], t.end[0] + 1) if line not in doc)
    return code


#: names of the functions of the module being read whose body only checks (see checkers)
_CHECKERS: set[str] = set()


def checkers(tree: ast.AST) -> set[str]:
    """The module's functions whose body (past a docstring) only refuses: each statement an
    ``if`` whose body only raises, or a ``raise`` — a rule written as a helper, whatever its
    name (``_at_most_rows``); a call of one is a checking line as a ``check…`` call is."""
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = n.body[1:] if ast.get_docstring(n) is not None else n.body
            if body and all(isinstance(b, ast.Raise) or (
                    isinstance(b, ast.If) and not b.orelse
                    and all(isinstance(r, ast.Raise) for r in b.body)) for b in body):
                out.add(n.name)
    return out


def _calls_check(node: ast.AST) -> bool:
    for c in ast.walk(node):
        if isinstance(c, ast.Call):
            f = c.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name.lstrip("_").startswith("check") or name in _CHECKERS:
                return True
    return False


def _names_error(node: ast.AST) -> bool:
    return any(isinstance(c, ast.Name) and c.id == "ParameterError" for c in ast.walk(node))


_SOURCE: list[str] = []


def _line_text(node: ast.AST, line: int) -> str:
    return _SOURCE[line - 1] if 0 < line <= len(_SOURCE) else ""


def checking_lines(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for n in ast.walk(tree):
        span = range(getattr(n, "lineno", 0), getattr(n, "end_lineno", -1) + 1)
        if isinstance(n, ast.Raise):
            out.update(span)
        elif isinstance(n, ast.ImportFrom) and (n.module or "").endswith("_validation"):
            # the names of checkers and of the error type; importing a domain declares
            for alias in n.names:
                if alias.name.lstrip("_").startswith("check") or alias.name == "ParameterError":
                    out.update(line for line in span if alias.name in _line_text(n, line))
        elif isinstance(n, (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return)) \
                and (_calls_check(n) or _names_error(n)):
            out.update(span)
        elif isinstance(n, ast.If) and n.body and all(isinstance(b, ast.Raise) for b in n.body) \
                and not n.orelse:
            out.update(range(n.test.lineno, n.test.end_lineno + 1))
        elif isinstance(n, ast.ExceptHandler) and n.type is not None and _names_error(n.type):
            out.add(n.lineno)
    return out


def first_public_line(tree: ast.Module) -> int | None:
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_"):
            return n.lineno
    return None


def _definitions(tree: ast.Module) -> dict[str, ast.AST]:
    """qualname → node for top-level functions, classes and their methods."""
    out = {}
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[n.name] = n
        elif isinstance(n, ast.ClassDef):
            out[n.name] = n
            for m in n.body:
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out[f"{n.name}.{m.name}"] = m
    return out


def reading_path_lines(package_root: Path, entries: list[list[str]]) -> tuple[int, list[str]]:
    """Lines of the entries and of the same-module functions they call, transitively."""
    seen: set[tuple[str, str]] = set()
    total, used = 0, []
    for alternatives in entries:
        for alt in alternatives:
            module, qual = alt.split(":")
            path = package_root / Path(*module.split("."))
            path = path.with_suffix(".py") if path.with_suffix(".py").exists() else path / "__init__.py"
            if not path.exists():
                continue
            tree = ast.parse(path.read_text())
            defs = _definitions(tree)
            if qual not in defs:
                continue
            used.append(alt)
            todo = [qual]
            while todo:
                q = todo.pop()
                if (module, q) in seen or q not in defs:
                    continue
                seen.add((module, q))
                node = defs[q]
                start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
                total += node.end_lineno - start + 1
                cls = q.split(".")[0] if "." in q else None
                for c in ast.walk(node):
                    if isinstance(c, ast.Call):
                        f = c.func
                        if isinstance(f, ast.Name) and f.id in defs:
                            todo.append(f.id)
                        elif isinstance(f, ast.Attribute) and cls and f"{cls}.{f.attr}" in defs \
                                and isinstance(f.value, ast.Name) and f.value.id in ("self", "cls"):
                            todo.append(f"{cls}.{f.attr}")
            break
    return total, used


def measure(root: Path) -> dict:
    package = root / "dpteach"
    folders: dict[str, dict[str, int]] = defaultdict(
        lambda: {"files": 0, "lines": 0, "code": 0, "checking": 0})
    before_public = {}
    for path in sorted(package.rglob("*.py")):
        src = path.read_text()
        tree = ast.parse(src)
        _SOURCE[:] = src.splitlines()
        _CHECKERS.clear()
        _CHECKERS.update(checkers(tree))
        code = code_lines(src, tree)
        rel = path.relative_to(package)
        folder = rel.parts[0] if len(rel.parts) > 1 else "(top level)"
        for d in (folders[folder], folders["total"]):
            d["files"] += 1
            d["lines"] += len(src.splitlines())
            d["code"] += len(code)
            d["checking"] += len(code & checking_lines(tree))
        first = first_public_line(tree)
        if first is not None and path.name != "__init__.py":
            before_public[str(rel)] = first - 1
    total = folders.pop("total")
    paths = {name: reading_path_lines(root, entries) for name, entries in READING_PATHS.items()}
    return {
        "folders": dict(sorted(folders.items())), "total": total,
        "checking_share": total["checking"] / max(total["code"], 1),
        "top_level_modules": sorted(p.name for p in package.glob("*.py") if p.name != "__init__.py"),
        "lines_before_first_public": {
            "median": statistics.median(before_public.values()),
            "largest": max(before_public.items(), key=lambda kv: kv[1])},
        "reading_paths": {k: {"lines": v[0], "entries": v[1]} for k, v in paths.items()},
    }


def _checkout(rev: str) -> Path:
    tmp = Path(tempfile.mkdtemp(prefix="dpteach-stats-"))
    data = subprocess.run(["git", "archive", rev, "dpteach"], cwd=ROOT, check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(tmp, filter="data")
    return tmp


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", help="a git revision to measure instead of the working tree")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    stats = measure(_checkout(args.rev) if args.rev else ROOT)
    if args.json:
        print(json.dumps(stats, indent=1))
        return
    print(f"{'folder':14s} {'files':>5s} {'lines':>7s} {'code':>7s} {'checking':>8s} {'share':>6s}")
    for name, d in [*stats["folders"].items(), ("total", stats["total"])]:
        print(f"{name:14s} {d['files']:5d} {d['lines']:7d} {d['code']:7d} {d['checking']:8d} "
              f"{d['checking'] / max(d['code'], 1):6.1%}")
    print(f"argument-checking share of code lines: {stats['checking_share']:.1%}")
    print(f"modules directly under dpteach/: {len(stats['top_level_modules'])} "
          f"({', '.join(stats['top_level_modules'])})")
    b = stats["lines_before_first_public"]
    print(f"lines before the first public definition: median {b['median']}, largest "
          f"{b['largest'][1]} ({b['largest'][0]})")
    for name, p in stats["reading_paths"].items():
        print(f"reading path, {name}: {p['lines']} lines ({', '.join(p['entries'])})")


if __name__ == "__main__":
    main(sys.argv[1:])
