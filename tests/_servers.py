"""Helpers for tests that start real servers (Streamlit, Jupyter) and Chromium.

Everything listens on 127.0.0.1 only, on a free port; every wait is bounded;
servers run in their own process group so that teardown stops them and any
child they started (e.g. the Streamlit process jupyter-server-proxy spawns),
and nothing else.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url: str, timeout: float = 10.0) -> tuple[int, str]:
    """(status, body) of a GET; HTTP errors are returned, not raised."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode("utf-8", "replace")


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """Linux: SIGTERM this child if the test process dies without its teardown."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class Server:
    """A subprocess in its own session, with its output in a log file."""

    def __init__(self, args: list[str], log: Path, env: dict | None = None,
                 cwd: Path = ROOT) -> None:
        self.args = args
        self.log_path = log
        self._log = open(log, "wb")
        self.proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=self._log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=True,
                                     preexec_fn=_die_with_parent if sys.platform == "linux"
                                     else None)

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")[-4000:]

    def wait_for(self, url: str, timeout: float, expect=lambda status, body: status == 200):
        """Poll ``url`` until ``expect(status, body)``; fail with the log on timeout."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"{self.args[:4]} exited with {self.proc.returncode}:\n{self.log()}")
            try:
                status, body = http_get(url, timeout=5)
                if expect(status, body):
                    return status, body
                last = (status, body[:200])
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as exc:
                last = exc
            time.sleep(0.25)
        pytest.fail(f"{url} not ready after {timeout:.0f} s (last: {last!r}); log:\n{self.log()}")

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM the process group, SIGKILL it if it is still there after ``timeout``."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGINT)   # Jupyter/Streamlit shut down cleanly
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        # the group may still hold children (e.g. a proxied Streamlit)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            time.sleep(0.5)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        self._log.close()


def streamlit_args(port: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
            "--server.headless", "true", "--server.port", str(port),
            "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none", *extra]


def jupyter_env(tmp: Path) -> dict:
    """Environment with private Jupyter config/runtime/data dirs under ``tmp``."""
    env = os.environ.copy()
    for name in ("config", "runtime", "data"):
        (tmp / name).mkdir(parents=True, exist_ok=True)
    env.update(JUPYTER_CONFIG_DIR=str(tmp / "config"), JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
               JUPYTER_DATA_DIR=str(tmp / "data"), JUPYTER_PLATFORM_DIRS="1",
               IPYTHONDIR=str(tmp / "ipython"))
    env.pop("JUPYTER_PATH", None)
    # run the venv's jupyter scripts even if the venv is not activated
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


def jupyter_security_args() -> list[str]:
    """No token/password/XSRF: the server only listens on 127.0.0.1 for one test."""
    args = ["--no-browser", "--ip=127.0.0.1", "--IdentityProvider.token=",
            "--ServerApp.disable_check_xsrf=True"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:      # e.g. a CI container
        args.append("--allow-root")
    return args


def require_chromium() -> str:
    """Path of Chromium, or skip (fail on CI, where it must be there)."""
    if os.access(CHROMIUM, os.X_OK):
        return CHROMIUM
    message = (f"Chromium not installed at {CHROMIUM}: the browser tests need Debian's "
               "chromium (apt-get install chromium; `make test` installs it on CI).")
    if os.environ.get("CI") == "true":
        pytest.fail("CI=true but " + message)
    pytest.skip(message)


@contextlib.contextmanager
def chromium_page(viewport=(1400, 1000)):
    """A Playwright page in Debian's Chromium; closed afterwards."""
    path = require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, timeout=60_000)
        try:
            page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
            page.set_default_timeout(30_000)
            yield page
        finally:
            browser.close()
@contextlib.contextmanager
def screenshot_on_failure(page, path):
    """Save what the browser showed when a check failed (path in the message)."""
    try:
        yield
    except Exception as exc:
        with contextlib.suppress(Exception):
            page.screenshot(path=path)
        raise AssertionError(f"{exc}\n(screenshot: {path})") from exc
