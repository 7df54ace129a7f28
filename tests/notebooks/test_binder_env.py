"""Binder rebuilt from ``binder/`` alone: every student notebook runs, and the app is served.

What mybinder.org (repo2docker) does with this repository, done here without Docker:

1. a new virtual environment of the Python that ``binder/runtime.txt`` names
   (``python3.11 -m venv``): nothing from the project's ``.venv`` or ``requirements*.txt``;
2. ``pip install -r binder/requirements.txt`` from the package index (pip's cache if warm);
3. ``binder/postBuild``, run in a copy of the repository's files (``git ls-files``: tracked
   and new, not ignored), so that its ``pip install .`` and its ``student/`` never touch the
   checkout; ``JUPYTER_CONFIG_DIR`` is a temporary folder (on Binder: ``~/.jupyter``).

Then, with that environment only:

(a) every student edition postBuild built (``student/*.ipynb``, one per master in
    ``notebooks/``) runs headless in that environment's kernel (its own nbclient, the
    notebook's folder as working directory, as JupyterLab does): no cell raises, every
    exercise check reports "not done yet", and the kernel's peak memory stays under 1 GiB
    (Binder gives 1-2 GB; the figures are in docs/classroom.md);
(b) that environment's ``jupyter server``, configured only by what postBuild installed and
    under a JupyterHub-like base URL ``/user/<name>/``, serves the app at
    ``/user/<name>/streamlit/`` (jupyter-server-proxy starts it with that environment's
    Python, from the copy), and a shared view (page, slider, ``?present=true``) too; with
    Chromium (``browser`` marker) the shared view renders through the proxy and its
    "Share this view" link carries the proxied address;
(c) the JupyterHub layout docs/classroom.md recommends for persistent home folders: the
    repository outside the home folder (repo2docker ``--target-repo-dir``), no loader in
    ``~/.jupyter``, ``JUPYTER_CONFIG_PATH=<repo>/binder``, the student editions copied into
    the home folder, and ``default_url`` (``singleuser.defaultUrl``) on the first one.

Not tested here (no Docker daemon, no registry images, no cluster): repo2docker's image
itself (a conda environment with JupyterLab, notebook, jupyterhub-singleuser and
jupyter-resource-usage under our pins), mybinder.org, and a real JupyterHub (login, the
hub's proxy, KubeSpawner, memory limits).

It takes several minutes (the install dominates; timings in docs/classroom.md), so it is
marked ``slow``. It is skipped, with the reason, only when no Python 3.11 can be found or
the package index cannot be reached; any other failure fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
from _servers import (
    ROOT,
    Server,
    chromium_page,
    free_port,
    http_get,
    jupyter_env,
    jupyter_security_args,
    screenshot_on_failure,
)

pytestmark = pytest.mark.slow

BINDER = ROOT / "binder"
MASTERS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
BASE_URL = "/user/student/"              # a JupyterHub user server, as on mybinder.org
HUB_BASE_URL = "/user/alice/"
SHARED_VIEW = "composition?eps0=0.5&k=1000&present=true"      # a page, two sliders, the mode
FIRST_NOTEBOOK = "student/00_why_anonymization_fails.ipynb"    # what the students' badge opens
KERNEL_MEMORY_LIMIT_MB = 1024
CELL_TIMEOUT = 300                       # seconds per cell (nbval's budget in CI is 120)
TIMINGS: dict[str, float] = {}           # phase -> seconds, printed at the end (pytest -s)

# pip's words for "the index cannot be reached" (anything else is a real failure)
NETWORK_ERRORS = re.compile(
    r"NewConnectionError|Failed to establish a new connection|Temporary failure in name "
    r"resolution|Name or service not known|Network is unreachable|ConnectTimeoutError|"
    r"ReadTimeoutError|Max retries exceeded|Could not fetch URL|ProxyError|"
    r"Connection refused|No route to host", re.I)

# Runs inside the Binder environment: one notebook with that environment's nbclient and
# kernel; writes a JSON report (per-cell failure, slow cells, checks, kernel peak memory).
RUNNER = r'''
import json, resource, sys, time, traceback
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from _nbrun import poll_in_slices

path, out, cell_timeout = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
nb = nbformat.read(path, as_version=4)
nb.cells.append(nbformat.v4.new_code_cell(
    "import resource as _r, sys as _s\n"
    "print('PEAK-RSS-KB', _r.getrusage(_r.RUSAGE_SELF).ru_maxrss, _s.executable)"))
report = {"python": sys.executable, "slow_cells": [], "checks": {}}
t0 = time.perf_counter()
client = NotebookClient(nb, timeout=cell_timeout, kernel_name="python3",
                        resources={"metadata": {"path": str(path.parent)}})
try:
    with client.setup_kernel():
        poll_in_slices(client.kc)          # scripts/_nbrun.py, copied next to this runner
        report["kernel_start_s"] = round(time.perf_counter() - t0, 2)
        for index, cell in enumerate(nb.cells):
            t = time.perf_counter()
            try:
                client.execute_cell(cell, index)
            except Exception as exc:
                report["failed_cell"] = {"index": index, "source": cell.source[:400],
                                         "error": f"{type(exc).__name__}: {str(exc)[-3000:]}"}
                break
            finally:
                dt = time.perf_counter() - t
                if dt > 10:
                    report["slow_cells"].append([index, round(dt, 1), cell.source[:80]])
            src = cell.source.strip()
            if cell.cell_type == "code" and src.startswith("grader.check("):
                report["checks"][src] = "".join(
                    o.get("text", "") + o.get("data", {}).get("text/plain", "")
                    for o in cell.outputs)
except Exception:
    report["kernel_error"] = traceback.format_exc()[-3000:]
report["seconds"] = round(time.perf_counter() - t0, 1)
last = "".join(o.get("text", "") for o in nb.cells[-1].get("outputs", []))
if "PEAK-RSS-KB" in last:
    rss, kernel_python = last.split("PEAK-RSS-KB", 1)[1].split()[:2]
    report["peak_mb"], report["kernel_python"] = round(int(rss) / 1024, 1), kernel_python
out.write_text(json.dumps(report))
'''


# ----------------------------------------------------------------------------- helpers
def _runtime_python() -> str:
    """The interpreter binder/runtime.txt names (python-3.11), or skip saying why."""
    text = (BINDER / "runtime.txt").read_text().strip()
    m = re.fullmatch(r"python-(\d+)\.(\d+)", text)
    assert m, f"binder/runtime.txt: unexpected {text!r}"
    wanted = (int(m.group(1)), int(m.group(2)))
    if sys.version_info[:2] == wanted:
        return getattr(sys, "_base_executable", sys.executable)
    found = shutil.which(f"python{wanted[0]}.{wanted[1]}")
    if found is None:
        pytest.skip(f"binder/runtime.txt asks for Python {wanted[0]}.{wanted[1]}, which is not "
                    f"installed here (no python{wanted[0]}.{wanted[1]} on PATH): the Binder "
                    "environment cannot be rebuilt")
    return found


def _repo_files() -> list[str]:
    """The files a clone (or the next commit) has: tracked and new, not ignored."""
    if not (ROOT / ".git").exists():
        pytest.fail(f"{ROOT} is not a git checkout: cannot tell which files Binder would see")
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, capture_output=True, check=True, timeout=60).stdout
    return [f for f in out.decode().split("\0") if f and (ROOT / f).is_file()]


def _copy_repo(dest: Path) -> None:
    for name in _repo_files():
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)          # keeps postBuild's executable bit


def _env(venv: Path, tmp: Path) -> dict:
    """The environment of a Binder session: the venv first on PATH, private Jupyter dirs."""
    env = jupyter_env(tmp)
    for name in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "JUPYTER_PATH",
                 "JUPYTER_CONFIG_PATH", "PIP_REQUIRE_VIRTUALENV", "CONDA_PREFIX"):
        env.pop(name, None)
    project_bin = str(Path(sys.executable).parent)
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != project_bin]
    env.update(PATH=os.pathsep.join([str(venv / "bin"), *path]), VIRTUAL_ENV=str(venv),
               MPLCONFIGDIR=str(tmp / "mpl"), TQDM_DISABLE="1", PYTHONNOUSERSITE="1")
    return env


def _run(args, *, env, cwd, timeout, what) -> subprocess.CompletedProcess:
    t = time.perf_counter()
    run = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True,
                         timeout=timeout, stdin=subprocess.DEVNULL)
    TIMINGS[what] = round(time.perf_counter() - t, 1)
    return run


def _app_processes(app: Path, base_url: str) -> list[tuple[list[str], str]]:
    """(argv, pid) of the Streamlit processes (Linux /proc) running ``app`` under the
    proxy's ``base_url`` (other tests may run other copies at the same time)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = [a for a in cmdline.read_bytes().decode(errors="replace").split("\0") if a]
        except OSError:
            continue
        if str(app) in argv and f"--server.baseUrlPath={base_url}streamlit" in argv:
            found.append((argv, cmdline.parent.name))
    return found


def _peak_rss_mb(pid: str) -> float | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    m = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
    return round(int(m.group(1)) / 1024, 1) if m else None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _location(url: str) -> tuple[int, str]:
    """(status, Location header) of a GET, without following the redirect."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(url, timeout=10) as resp:
            return resp.status, resp.headers.get("Location", "")
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("Location", "")


# ----------------------------------------------------------------------------- the build
@pytest.fixture(scope="module")
def binder(tmp_path_factory):
    """The Binder environment, built from binder/ alone: venv, requirements, postBuild."""
    python = _runtime_python()
    tmp = tmp_path_factory.mktemp("binder-env")
    venv, repo = tmp / "venv", tmp / "repo"
    start = time.perf_counter()

    run = _run([python, "-m", "venv", str(venv)], env=None, cwd=tmp, timeout=300,
               what="venv")
    assert run.returncode == 0, run.stdout + run.stderr
    env = _env(venv, tmp)
    run = _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--progress-bar", "off",
                "-r", str(BINDER / "requirements.txt")], env=env, cwd=tmp, timeout=1800,
               what="pip install -r binder/requirements.txt")
    if run.returncode != 0:
        output = run.stdout + run.stderr
        if NETWORK_ERRORS.search(output):
            pytest.skip("the package index cannot be reached, so binder/requirements.txt "
                        "cannot be installed into a fresh environment: "
                        + NETWORK_ERRORS.search(output).group(0))
        pytest.fail(f"pip install -r binder/requirements.txt failed:\n{output[-6000:]}")

    t = time.perf_counter()
    _copy_repo(repo)
    TIMINGS["copy the repository"] = round(time.perf_counter() - t, 1)
    run = _run(["bash", str(repo / "binder" / "postBuild")], env=env, cwd=repo, timeout=900,
               what="binder/postBuild")
    assert run.returncode == 0, f"binder/postBuild failed:\n{(run.stdout + run.stderr)[-6000:]}"
    TIMINGS["build total"] = round(time.perf_counter() - start, 1)
    yield SimpleNamespace(venv=venv, repo=repo, env=env, tmp=tmp,
                          python=venv / "bin" / "python", postbuild_log=run.stdout + run.stderr)
    TIMINGS["module total"] = round(time.perf_counter() - start, 1)
    print("\nBinder environment timings (s): " + json.dumps(TIMINGS), file=sys.stderr)


def test_postbuild_installed_the_package_the_student_editions_and_the_proxy_entry(binder):
    # dpteach comes from the copy, installed (not editable) into the Binder environment
    code = ("import dpteach, jupyter_server_proxy, otter, streamlit, sys; "
            "print(dpteach.__file__); print(sys.prefix)")
    run = subprocess.run([str(binder.python), "-c", code], env=binder.env, cwd=binder.tmp,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    module, prefix = run.stdout.split()
    assert Path(prefix) == binder.venv and Path(module).is_relative_to(binder.venv), run.stdout
    # the data files the notebooks load are inside the installed package
    data = list((Path(module).parent / "data").glob("*"))
    assert len(data) >= 3, f"dpteach/data not installed: {data}"
    # one student edition per master, built by postBuild into the copy
    built = sorted(p.name for p in (binder.repo / "student").glob("*.ipynb"))
    assert built == MASTERS, (built, binder.postbuild_log[-3000:])
    # the loader install-proxy-config.sh wrote (on Binder: ~/.jupyter/jupyter_server_config.py)
    loader = Path(binder.env["JUPYTER_CONFIG_DIR"]) / "jupyter_server_config.py"
    assert str(binder.repo / "binder" / "jupyter_server_config.py") in loader.read_text()


# ----------------------------------------------------------- (a) every student notebook
@pytest.mark.parametrize("name", MASTERS)
def test_student_notebook_runs_in_the_binder_kernel(binder, name, tmp_path):
    notebook = binder.repo / "student" / name
    runner, report_path = tmp_path / "runner.py", tmp_path / "report.json"
    runner.write_text(RUNNER)
    shutil.copy(Path(__file__).parents[2] / "scripts" / "_nbrun.py", tmp_path / "_nbrun.py")
    run = _run([str(binder.python), str(runner), str(notebook), str(report_path),
                str(CELL_TIMEOUT)], env=binder.env, cwd=notebook.parent, timeout=1800,
               what=f"run student/{name}")
    assert run.returncode == 0 and report_path.exists(), run.stdout + run.stderr[-4000:]
    report = json.loads(report_path.read_text())
    TIMINGS[f"run student/{name}"] = report["seconds"]
    assert Path(report["python"]).parent == binder.venv / "bin", report["python"]
    assert Path(report.get("kernel_python", "")).parent == binder.venv / "bin", report
    assert "kernel_error" not in report, report["kernel_error"]
    assert "failed_cell" not in report, (
        f"student/{name}, cell {report['failed_cell']['index']}:\n"
        f"{report['failed_cell']['source']}\n{report['failed_cell']['error']}")
    for check, text in report["checks"].items():
        assert "not done yet" in text and "All test cases passed" not in text, (
            f"student/{name}: {check} on the untouched scaffold says:\n{text}")
    assert report.get("peak_mb", 0) > 0, report
    assert report["peak_mb"] < KERNEL_MEMORY_LIMIT_MB, (
        f"student/{name}: the kernel peaked at {report['peak_mb']} MB "
        f"(Binder: 1-2 GB for the whole session)")


# ------------------------------------------------ (b) the app through the proxy, as on Binder
@pytest.fixture(scope="module")
def binder_server(binder):
    """That environment's Jupyter server, configured by postBuild's loader only."""
    port = free_port()
    server = Server([str(binder.venv / "bin" / "jupyter"), "server", f"--port={port}",
                     f"--ServerApp.base_url={BASE_URL}", f"--ServerApp.root_dir={binder.repo}",
                     *jupyter_security_args()],
                    log=binder.tmp / "jupyter-binder.log", env=binder.env, cwd=binder.repo)
    url = f"http://127.0.0.1:{port}{BASE_URL}"
    try:
        t = time.perf_counter()
        server.wait_for(url + "api/status", timeout=90)
        TIMINGS["jupyter server start"] = round(time.perf_counter() - t, 1)
        yield url, server
    finally:
        server.stop()


def test_proxy_serves_the_app_from_the_binder_environment(binder, binder_server):
    url, server = binder_server
    t = time.perf_counter()
    status, body = server.wait_for(url + "streamlit/", timeout=150,
                                   expect=lambda s, b: s == 200)
    TIMINGS["first /streamlit/ (app start)"] = round(time.perf_counter() - t, 1)
    assert "<title>Streamlit</title>" in body and 'id="root"' in body, body[:500]
    assert http_get(url + "streamlit/_stcore/health") == (200, "ok"), server.log()
    # a shared view: any page path with its query is served (the browser restores it)
    status, body = http_get(url + "streamlit/" + SHARED_VIEW)
    assert status == 200 and 'id="root"' in body, (status, body[:300])
    # the app runs with the Binder environment's Python, from the copy postBuild saw
    if Path("/proc").is_dir():
        procs = _app_processes(binder.repo / "app.py", BASE_URL)
        assert len(procs) == 1, f"{procs}: no single app process:\n{server.log()}"
        argv, pid = procs[0]
        assert Path(argv[0]).parent == binder.venv / "bin", argv
        # the proxy entry's environment: two malloc arenas (binder/jupyter_server_config.py)
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert b"MALLOC_ARENA_MAX=2" in environ, "the app runs without MALLOC_ARENA_MAX=2"
        TIMINGS["streamlit peak RSS MB (started, no page drawn yet)"] = _peak_rss_mb(pid) or -1
        TIMINGS["jupyter server peak RSS MB"] = _peak_rss_mb(str(server.proc.pid)) or -1


@pytest.mark.browser
def test_shared_view_renders_through_the_proxy(binder, binder_server, tmp_path):
    url, server = binder_server
    server.wait_for(url + "streamlit/_stcore/health", timeout=150,
                    expect=lambda s, b: (s, b) == (200, "ok"))
    from playwright.sync_api import expect

    with chromium_page(viewport=(1600, 1000)) as page, \
            screenshot_on_failure(page, tmp_path / "shared-view.png"):
        page.goto(url + "streamlit/" + SHARED_VIEW)
        expect(page.get_by_role("heading", name="Composition & budget")).to_be_visible(
            timeout=90_000)
        expect(page.get_by_test_id("stVegaLiteChart").first).to_be_visible(timeout=60_000)
        assert page.get_by_test_id("stException").count() == 0
        # presentation mode's larger type, and the slider where the link put it
        assert page.evaluate("getComputedStyle(document.documentElement).fontSize") == "21px"
        sliders = page.evaluate(
            "() => [...document.querySelectorAll(\"[data-testid='stSlider'] input[type='range']\")]"
            ".map(e => [e.getAttribute('aria-label') || '',"
            "           e.getAttribute('aria-valuetext') || e.value])")
        assert any("ε" in label and text == "0.5" for label, text in sliders), sliders
        assert any("queries k" in label and text == "1000" for label, text in sliders), sliders
        assert page.get_by_role("dialog").count() == 0, "a dialog (e.g. 'Page not found')"
        # "Share this view" gives the proxied address (what a student on this server opens)
        page.get_by_role("button", name="Share this view").click()
        codes = page.get_by_test_id("stPopoverBody").get_by_test_id("stCode")
        codes.last.wait_for(timeout=30_000)
        full = codes.first.inner_text().strip()
        assert full.startswith(url + "streamlit/composition?"), full
        assert all(p in full for p in ("eps0=0.5", "k=1000", "present=true")), full
    if Path("/proc").is_dir():                # the app's memory once a page has been drawn
        for _, pid in _app_processes(binder.repo / "app.py", BASE_URL):
            TIMINGS["streamlit peak RSS MB (after a page was drawn)"] = _peak_rss_mb(pid) or -1


# -------------------------------- (c) the JupyterHub layout with persistent home folders
def test_jupyterhub_layout_with_repository_outside_home(binder, tmp_path):
    """repo2docker --target-repo-dir /srv/dpteach, home folder on a volume (no ~/.jupyter
    from the image), singleuser.extraEnv JUPYTER_CONFIG_PATH=/srv/dpteach/binder,
    a postStart copy of student/ into the home folder, singleuser.defaultUrl."""
    home = tmp_path / "home"
    shutil.copytree(binder.repo / "student", home / "student")     # cp -rn ... (postStart)
    env = _env(binder.venv, tmp_path / "jupyter")    # an empty JUPYTER_CONFIG_DIR: no loader
    env["JUPYTER_CONFIG_PATH"] = str(binder.repo / "binder")
    env["HOME"] = str(home)
    port = free_port()
    server = Server([str(binder.venv / "bin" / "jupyter"), "server", f"--port={port}",
                     f"--ServerApp.base_url={HUB_BASE_URL}", f"--ServerApp.root_dir={home}",
                     f"--ServerApp.default_url=/lab/tree/{FIRST_NOTEBOOK}",
                     *jupyter_security_args()],
                    log=tmp_path / "jupyter-hub-layout.log", env=env, cwd=home)
    url = f"http://127.0.0.1:{port}{HUB_BASE_URL}"
    try:
        server.wait_for(url + "api/status", timeout=90)
        # singleuser.defaultUrl: the server's root sends students to the first notebook
        status, location = _location(url)
        assert status in (301, 302) and urlsplit(location).path.endswith(
            f"{HUB_BASE_URL}lab/tree/{FIRST_NOTEBOOK}"), (status, location)
        status, body = http_get(url + f"api/contents/{FIRST_NOTEBOOK}?content=0")
        assert status == 200, body[:300]
        # the proxy entry, loaded from JUPYTER_CONFIG_PATH, runs the app from the repository
        status, body = server.wait_for(url + "streamlit/", timeout=150,
                                       expect=lambda s, b: s == 200)
        assert "<title>Streamlit</title>" in body, body[:300]
        assert http_get(url + "streamlit/_stcore/health") == (200, "ok")
        if Path("/proc").is_dir():
            assert _app_processes(binder.repo / "app.py", HUB_BASE_URL), server.log()
    finally:
        server.stop()
