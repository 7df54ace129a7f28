"""The README's table of the library's named teaching domains, made from ``_validation``.

``python scripts/domain_table.py`` prints the table; ``--write`` puts it into README.md
between the ``<!-- domains -->`` markers. tests/test_domains.py checks that the README's
table is what this script makes, so it cannot go stale.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpteach import _validation  # noqa: E402

START, END = "<!-- domains -->", "<!-- /domains -->"


def _comments() -> dict[str, str]:
    """``{NAME: the #: comment above its definition}`` for the named domains."""
    source = (ROOT / "dpteach" / "_validation.py").read_text().splitlines()
    out = {}
    for node in ast.parse("\n".join(source)).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            lines, i = [], node.lineno - 2
            while i >= 0 and source[i].startswith("#:"):
                lines.insert(0, source[i][2:].strip())
                i -= 1
            if lines:
                out[node.targets[0].id] = " ".join(lines)
    return out


def table() -> str:
    rows = ["| name | what | allowed |", "|---|---|---|"]
    for name, what in _comments().items():
        domain = getattr(_validation, name, None)
        if isinstance(domain, _validation.Domain):
            rows.append(f"| `{name}` | {what.replace('``', '`')} | {domain.text} |")
    return "\n".join(rows)


def main() -> None:
    text = table()
    if "--write" in sys.argv:
        readme = ROOT / "README.md"
        before, rest = readme.read_text().split(START, 1)
        _, after = rest.split(END, 1)
        readme.write_text(f"{before}{START}\n{text}\n{END}{after}")
    else:
        print(text)


if __name__ == "__main__":
    main()
