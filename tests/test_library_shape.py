"""Issue 21's targets for the library's shape, kept: measured by scripts/library_stats.py
(its docstring defines code lines, checking lines and reading paths).

* argument-checking lines are at most 6% of the code lines;
* the whole of dpteach/ is at most 31,000 lines (code, docstrings, comments and blanks);
* ``laplace_mechanism``'s body is at most 3 statements (the textbook's is 2).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import sys
import textwrap

from _servers import ROOT

spec = importlib.util.spec_from_file_location("library_stats", ROOT / "scripts" / "library_stats.py")
library_stats = importlib.util.module_from_spec(spec)
sys.modules.setdefault("library_stats", library_stats)
spec.loader.exec_module(library_stats)


def shape_problems(root) -> list[str]:
    stats = library_stats.measure(root)
    total, share = stats["total"], stats["checking_share"]
    out = []
    if share > 0.06:
        out.append(f"checking lines are {share:.1%} of code lines "
                   f"({total['checking']:,} of {total['code']:,}); at most 6%")
    if total["lines"] > 31_000:
        out.append(f"dpteach/ has {total['lines']:,} lines; at most 31,000")
    return out


def test_the_library_keeps_its_shape():
    assert not shape_problems(ROOT), shape_problems(ROOT)


def test_the_shape_check_fails_on_a_heavier_library(tmp_path):
    # a copy with one module's checks written out again, as they were before issue 21
    (tmp_path / "dpteach").mkdir()
    heavy = "\n".join(f"def f{i}(x):\n    if x < {i}:\n        raise ValueError(x)\n"
                      "    return x\n" for i in range(500))
    (tmp_path / "dpteach" / "heavy.py").write_text(heavy + "\n" * 31_000)
    problems = shape_problems(tmp_path)
    assert len(problems) == 2, problems


def test_laplace_mechanism_is_the_textbook_algorithm():
    from dpteach.mechanisms.noise import laplace_mechanism

    source = textwrap.dedent(inspect.getsource(inspect.unwrap(laplace_mechanism)))
    body = ast.parse(source).body[0].body
    statements = [s for s in body if not (isinstance(s, ast.Expr)
                                          and isinstance(s.value, ast.Constant))]
    assert len(statements) <= 3, ast.unparse(ast.Module(statements, []))
