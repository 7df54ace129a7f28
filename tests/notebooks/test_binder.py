"""Binder configuration: pins, postBuild, and the Streamlit app behind the proxy.

``test_proxy_serves_streamlit_app`` starts a Jupyter server configured exactly
as ``binder/postBuild`` configures Binder's (it runs the same
``binder/install-proxy-config.sh`` into a temporary JUPYTER_CONFIG_DIR), under a
JupyterHub-like base URL ``/user/student/``, and checks that
``/user/student/streamlit/`` serves the app, which is what the README's
``?urlpath=streamlit/`` badge opens.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from _servers import (
    ROOT,
    Server,
    chromium_page,
    free_port,
    http_get,
    jupyter_env,
    jupyter_security_args,
)

BINDER = ROOT / "binder"
BASE_URL = "/user/student/"          # like a JupyterHub user server on mybinder.org


def _pins(path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([A-Za-z0-9_.\-+]+)", line)
        assert m, f"{path.name}: not an exact pin: {line!r}"
        pins[m.group(1).lower().replace("_", "-")] = m.group(2)
    return pins


def test_binder_requirements_agree_with_runtime_pins():
    runtime = _pins(ROOT / "requirements.txt")
    binder = _pins(BINDER / "requirements.txt")
    test = _pins(ROOT / "requirements-test.txt")
    assert runtime, "requirements.txt has no pins"
    for name, version in runtime.items():
        assert binder.get(name) == version, f"binder pins {name}=={binder.get(name)}, " \
                                            f"requirements.txt {version}"
    extra = set(binder) - set(runtime)
    assert extra == {"jupyter-server-proxy"}, extra
    # the proxy version Binder gets is the one the tests here run against
    assert binder["jupyter-server-proxy"] == test["jupyter-server-proxy"]


def test_binder_runtime_and_postbuild():
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.11"
    post = BINDER / "postBuild"
    assert os.access(post, os.X_OK) and os.access(BINDER / "install-proxy-config.sh", os.X_OK)
    text = post.read_text()
    assert text.startswith("#!/bin/bash\n")
    assert re.search(r"^set -e", text, re.M)
    assert re.search(r"pip install .*--no-deps \.$", text, re.M)
    assert "bash binder/install-proxy-config.sh" in text
    subprocess.run(["bash", "-n", str(post)], check=True)


@pytest.fixture(scope="module")
def binder_jupyter(tmp_path_factory):
    """A Jupyter server with the Binder proxy configuration; yields its URL."""
    tmp = tmp_path_factory.mktemp("binder-jupyter")
    env = jupyter_env(tmp)
    subprocess.run(["bash", str(BINDER / "install-proxy-config.sh")], env=env, check=True,
                   capture_output=True, timeout=30)
    port = free_port()
    server = Server([sys.executable, "-m", "jupyter", "server", f"--port={port}",
                     f"--ServerApp.base_url={BASE_URL}", f"--ServerApp.root_dir={ROOT}",
                     *jupyter_security_args()],
                    log=tmp / "jupyter.log", env=env)
    url = f"http://127.0.0.1:{port}{BASE_URL}"
    try:
        server.wait_for(url + "api/status", timeout=60)
        yield url, server
    finally:
        server.stop()


def test_proxy_serves_streamlit_app(binder_jupyter):
    url, server = binder_jupyter
    # the first request makes jupyter-server-proxy start Streamlit (bounded by its timeout)
    status, body = server.wait_for(url + "streamlit/", timeout=150,
                                   expect=lambda s, b: s == 200)
    assert "<title>Streamlit</title>" in body and 'id="root"' in body, body[:500]
    status, body = http_get(url + "streamlit/_stcore/health")
    assert (status, body) == (200, "ok"), (status, body, server.log())


@pytest.mark.browser
def test_app_renders_through_proxy(binder_jupyter):
    url, server = binder_jupyter
    server.wait_for(url + "streamlit/_stcore/health", timeout=150,
                    expect=lambda s, b: (s, b) == (200, "ok"))
    from playwright.sync_api import expect

    with chromium_page() as page:
        page.goto(url + "streamlit/")
        # the page only renders once the websocket to the script runner works
        expect(page.get_by_role("heading", name="Noise calibration")).to_be_visible(
            timeout=60_000)
        expect(page.get_by_test_id("stMetricValue").first).to_be_visible()
        # the charts are drawn by the browser from data sent over the proxied websocket
        expect(page.get_by_test_id("stVegaLiteChart")).to_have_count(2)


def test_proxy_entry_has_launcher_tile(binder_jupyter):
    url, server = binder_jupyter
    status, body = http_get(url + "server-proxy/servers-info")
    assert status == 200, body
    servers = {s["name"]: s for s in json.loads(body)["server_processes"]}
    assert "streamlit" in servers, servers
    entry = servers["streamlit"]["launcher_entry"]
    assert entry["enabled"] and entry["title"] == "dpteach app"


def test_both_launchers_give_the_app_two_malloc_arenas():
    # glibc keeps what each thread's arena freed; with one arena per session thread a class
    # of 30 left the server at 1.19-1.24x its one-session memory, 1.09x with two
    # (benchmarks/README.md). `make app` and the Binder proxy entry must both set it.
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\napp:", 1)[1].split("\n\n", 1)[0]
    assert "MALLOC_ARENA_MAX=2 $(BIN)/streamlit run app.py" in recipe, recipe
    config = (ROOT / "binder" / "jupyter_server_config.py").read_text()
    assert '"environment": {"MALLOC_ARENA_MAX": "2"}' in config

