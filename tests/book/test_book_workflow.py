"""The GitHub Pages workflow (.github/workflows/book.yml) cannot run here: check that it is
valid YAML, builds with the same command as a laptop (`make book`), uploads build/book and
deploys it."""

from __future__ import annotations

import yaml
from _servers import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"


def _steps(job: dict) -> list[dict]:
    return job.get("steps", [])


def test_workflow_builds_with_make_book_and_deploys_build_book():
    wf = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    # PyYAML reads the key `on` as True (YAML 1.1)
    assert "push" in wf.get("on", wf.get(True, {}))
    assert wf["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    build, deploy = wf["jobs"]["build"], wf["jobs"]["deploy"]
    runs = [s.get("run", "").strip() for s in _steps(build)]
    assert "make book" in runs
    uploads = [s for s in _steps(build)
               if s.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert [u["with"]["path"] for u in uploads] == ["build/book"]
    # the upload comes after the build
    assert runs.index("make book") < _steps(build).index(uploads[0])
    assert deploy["needs"] == "build"
    assert any(s.get("uses", "").startswith("actions/deploy-pages@") for s in _steps(deploy))


def test_makefile_book_target_runs_the_build_script():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\nbook:", 1)[1].split("\n\n", 1)[0]
    assert "scripts/build_book.py" in recipe
    assert "requirements-book.txt" in makefile
